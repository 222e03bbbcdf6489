/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * options.c - uvfs-bench's command line: the options, their defaults and
 * their parsing, and the comma lists they take.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef UVFS_BENCH_DEFAULT_LIB
#define UVFS_BENCH_DEFAULT_LIB NULL
#endif
#ifndef UVFS_BENCH_DEFAULT_BASELINE_LIB
#define UVFS_BENCH_DEFAULT_BASELINE_LIB NULL
#endif

struct options opt = {
	.lib = UVFS_BENCH_DEFAULT_LIB,
	.baseline_lib = UVFS_BENCH_DEFAULT_BASELINE_LIB,
	.out = "bench-results",
	.hostbase = "/dev/shm",
	.warmup = 0.25,
	.duration = 3,
	.interval = 0.25,
	.modes = 3,
	.affinity = 1,
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: uvfs-bench [options]\n"
"       uvfs-bench replay [options] TRACE...   (recorded programs; replay --help)\n"
"  --lib PATH            libuvfs.so (target uvfs)\n"
"  --baseline-lib PATH   libuvfs-baseline.so (target uvfs-baseline)\n"
"  --targets LIST        comma list of uvfs,uvfs-baseline,host,uvfs-fuse (default:\n"
"                        all; uvfs-fuse only with --fuse-dir)\n"
"  -T, --test LIST       comma list of testcases (default: all; --list shows them)\n"
"  -m, --mode MODE       threads, processes or both (default both)\n"
"  -t, --workers LIST    worker counts, e.g. 1 or 1,2 or 1-4 (default 1..nproc)\n"
"  -d, --duration SEC    measured seconds per target and configuration: that\n"
"                        many samples, the targets taking turns (default 3)\n"
"  -w, --warmup SEC      warm-up before a target's first sample (default 0.25;\n"
"                        50 ms before each later one)\n"
"  -i, --interval SEC    sampling interval (default 0.25: 12 samples in\n"
"                        the default 3 s, rounds of paired samples)\n"
"  -s, --seed N          seed for the random target order (default: from the clock)\n"
"  -o, --out DIR         results.json, table.txt and SVG plots (default bench-results)\n"
"  -j, --json FILE       also write the JSON here\n"
"      --hostdir DIR     where host-target directories are made (default /dev/shm)\n"
"      --fuse-dir DIR    a uvfs-fuse mount: target uvfs-fuse makes its directories\n"
"                        there (the host's system calls into the mount; default\n"
"                        none: the target is unavailable)\n"
"      --fuse-mode MODE  the modes uvfs-fuse runs in (default: those of -m)\n"
"      --fuse-workers LIST  its worker counts (default: those of -t; 'all')\n"
"  -g, --groups LIST     group counts of job testcases (messaging; default 1,2,4)\n"
"      --rate wall|run   the table's rate: wall = ops per second (default);\n"
"                        run = ops per second the workers were not kept off\n"
"                        their CPUs by other work (for a busy machine)\n"
"      --no-affinity     do not pin workers to CPUs\n"
"      --iterations N    fixed-iteration mode for callgrind: one testcase, one\n"
"                        target, one worker, N iterations, in this process;\n"
"                        with -m threads the worker is a second thread sharing\n"
"                        the set-up proc (a shared fd table), else it has a\n"
"                        proc of its own\n"
"  -l, --list            list the testcases\n"
"  -h, --help\n");
}

static int parse_list(const char *s, int *out, int *nout)
{
	char *dup = strdup(s), *tok, *save = NULL;

	*nout = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long a = strtol(tok, &end, 10), b = a;

		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end || a < 1 || b < a || b > MAX_WORKERS)
			return -1;
		for (; a <= b && *nout < MAX_WORKERS; a++)
			out[(*nout)++] = a;
	}
	free(dup);
	return *nout ? 0 : -1;
}

static int parse_workers(const char *s)
{
	return parse_list(s, opt.workers, &opt.nworkers);
}

/* -m's and --fuse-mode's argument: 1 threads, 2 processes, 3 both, -1 */
static int parse_mode(const char *s)
{
	return !strcmp(s, "threads") ? 1 : !strcmp(s, "processes") ? 2 :
	       !strcmp(s, "both") ? 3 : -1;
}

int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!list)
		return 1;
	while (*p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

/* Fills opt from argv.  Returns -1 to go on, else the exit status (after
 * --help or a bad option). */
int options_parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, 0, 'L' },
		{ "baseline-lib", required_argument, 0, 'B' },
		{ "targets", required_argument, 0, 'G' },
		{ "test", required_argument, 0, 'T' },
		{ "mode", required_argument, 0, 'm' },
		{ "workers", required_argument, 0, 't' },
		{ "duration", required_argument, 0, 'd' },
		{ "warmup", required_argument, 0, 'w' },
		{ "interval", required_argument, 0, 'i' },
		{ "seed", required_argument, 0, 's' },
		{ "out", required_argument, 0, 'o' },
		{ "json", required_argument, 0, 'j' },
		{ "hostdir", required_argument, 0, 'H' },
		{ "fuse-dir", required_argument, 0, 'F' },
		{ "fuse-mode", required_argument, 0, 'M' },
		{ "fuse-workers", required_argument, 0, 'W' },
		{ "no-affinity", no_argument, 0, 'A' },
		{ "groups", required_argument, 0, 'g' },
		{ "rate", required_argument, 0, 'R' },
		{ "iterations", required_argument, 0, 'I' },
		{ "list", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "T:m:t:d:w:i:s:o:j:g:lh", longopts, NULL)) != -1) {
		switch (c) {
		case 'L': opt.lib = optarg; break;
		case 'B': opt.baseline_lib = optarg; break;
		case 'G': opt.targets = optarg; break;
		case 'T': opt.tests = optarg; break;
		case 'm':
		case 'M':
			if (parse_mode(optarg) < 0) {
				fprintf(stderr, "uvfs-bench: bad mode %s\n", optarg);
				return 2;
			}
			*(c == 'm' ? &opt.modes : &opt.fuse_modes) = parse_mode(optarg);
			break;
		case 'W':
			if (!strcmp(optarg, "all"))
				opt.nfuse_workers = 0;
			else if (parse_list(optarg, opt.fuse_workers, &opt.nfuse_workers) < 0) {
				fprintf(stderr, "uvfs-bench: bad worker list %s\n", optarg);
				return 2;
			}
			break;
		case 'F': opt.fuse_dir = optarg; break;
		case 't':
			if (parse_workers(optarg) < 0) {
				fprintf(stderr, "uvfs-bench: bad worker list %s\n", optarg);
				return 2;
			}
			break;
		case 'd': opt.duration = atof(optarg); break;
		case 'w': opt.warmup = atof(optarg); break;
		case 'i': opt.interval = atof(optarg); break;
		case 's': opt.seed = strtoull(optarg, NULL, 0); opt.seed_given = 1; break;
		case 'o': opt.out = optarg; break;
		case 'j': opt.json = optarg; break;
		case 'H': opt.hostbase = optarg; break;
		case 'A': opt.affinity = 0; break;
		case 'R':
			if (!strcmp(optarg, "run"))
				opt.rate_run = 1;
			else if (!strcmp(optarg, "wall"))
				opt.rate_run = 0;
			else {
				fprintf(stderr, "uvfs-bench: --rate wall or run\n");
				return 2;
			}
			break;
		case 'g': {
			int save[MAX_WORKERS], nsave = opt.nworkers;

			memcpy(save, opt.workers, sizeof(save));
			if (parse_workers(optarg) < 0) {
				fprintf(stderr, "uvfs-bench: bad group list %s\n", optarg);
				return 2;
			}
			memcpy(opt.groups, opt.workers, sizeof(opt.groups));
			opt.ngroups = opt.nworkers;
			memcpy(opt.workers, save, sizeof(save));
			opt.nworkers = nsave;
			break;
		}
		case 'I': opt.iterations = strtoull(optarg, NULL, 0); break;
		case 'l': opt.list = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (opt.interval <= 0 || opt.duration <= 0 || opt.warmup < 0) {
		fprintf(stderr, "uvfs-bench: durations must be positive\n");
		return 2;
	}
	return -1;
}
