/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs-bench - will-it-scale for uvfs: every testcase against uvfs,
 * uvfs-baseline (every seed's fast path switched off) and the host kernel
 * (and, with --fuse-dir, the host's calls into a uvfs-fuse mount), in
 * threads and processes mode, for 1..nproc workers.
 *
 * The pieces: options.c (the command line), testcases.c (the registry),
 * target.c (loading the targets), run.c (the run loop, the measurement
 * children and their workers), results.c and report.c (what is printed and
 * written).  Here: which targets take part, and the order of the steps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "replay/replay.h"


/* dlopen of a library with initial-exec TLS fails when glibc's static TLS
 * surplus is used up (two such libraries in one process).  The tunable
 * that enlarges it must be set before the program starts: re-exec once. */
void reexec_for_tls(char **argv)
{
	const char *tun = getenv("GLIBC_TUNABLES");
	char buf[1024];

	if (tun && strstr(tun, "optional_static_tls"))
		return;
	snprintf(buf, sizeof(buf), "%s%sglibc.rtld.optional_static_tls=65536",
		 tun ? tun : "", tun ? ":" : "");
	setenv("GLIBC_TUNABLES", buf, 1);
	execv("/proc/self/exe", argv);
}

/* Loads the targets --targets names (all by default) into sel[]; returns
 * how many, or -(exit status). */
static int select_targets(struct target *targets, struct target **sel, char **argv)
{
	int i, nsel = 0;

	if (opt.targets) {
		char *dup = strdup(opt.targets), *tok, *save = NULL;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < MAX_TARGETS && strcmp(targets[i].name, tok); i++)
				;
			if (i == MAX_TARGETS) {
				fprintf(stderr, "uvfs-bench: no target %s (uvfs, uvfs-baseline, host, "
					"uvfs-fuse)\n", tok);
				free(dup);
				return -2;
			}
		}
		free(dup);
	}
	targets[0].lib = opt.lib;
	targets[1].lib = opt.baseline_lib;
	targets[2].dirbase = opt.hostbase;
	targets[3].dirbase = opt.fuse_dir;
	for (i = 0; i < MAX_TARGETS; i++) {
		if (!in_list(opt.targets, targets[i].name))
			continue;
		if (target_load(&targets[i]) < 0) {
			if (strstr(targets[i].why, "static TLS"))
				reexec_for_tls(argv);
			fprintf(stderr, "uvfs-bench: target %s unavailable: %s\n", targets[i].name,
				targets[i].why);
			if (opt.targets) /* asked for by name: an error */
				return -1;
			continue;
		}
		sel[nsel++] = &targets[i];
	}
	if (!nsel) {
		fprintf(stderr, "uvfs-bench: no target to run\n");
		return -1;
	}
	return nsel;
}

int main(int argc, char **argv)
{
	struct target targets[MAX_TARGETS] = {
		{ .name = "uvfs", .kind = TARGET_UVFS },
		{ .name = "uvfs-baseline", .kind = TARGET_UVFS },
		{ .name = "host", .kind = TARGET_HOST },
		{ .name = "uvfs-fuse", .kind = TARGET_HOST },  /* host calls into --fuse-dir */
	};
	const struct testcase **tcs;
	struct target *sel[MAX_TARGETS];
	struct result *res;
	struct run_info ri = { 0 };
	int ntc, nsel, nres, ret;

	if (argc > 1 && !strcmp(argv[1], "replay"))
		return replay_main(argc - 1, argv + 1, argv);
	ret = options_parse(argc, argv);
	if (ret >= 0)
		return ret;
	tcs = testcases_all(&ntc);
	if (opt.list) {
		testcases_list(tcs, ntc);
		return 0;
	}
	if (testcases_select(tcs, &ntc, opt.tests) < 0)
		return 2;
	nsel = select_targets(targets, sel, argv);
	if (nsel < 0)
		return -nsel;
	if (run_init() < 0)
		return 1;

	if (opt.iterations) {
		if (ntc != 1 || nsel != 1) {
			fprintf(stderr, "uvfs-bench: --iterations needs one testcase (-T) and one "
				"target (--targets)\n");
			return 2;
		}
		if ((tcs[0]->needs & target_has(sel[0])) != tcs[0]->needs) {
			fprintf(stderr, "uvfs-bench: %s: target %s lacks what the testcase needs\n",
				tcs[0]->name, sel[0]->name);
			return 4;
		}
		return run_fixed(tcs[0], sel[0], opt.modes == 1);
	}

	if (!opt.seed_given)
		opt.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	results_header(&ri, sel, nsel);
	nres = run_all(tcs, ntc, sel, nsel, &ri, &res);
	if (nres < 0)
		return 1;
	ret = results_write(&ri, res, nres);
	free(res);
	return ret ? ret : interrupted ? 130 : 0;
}
