/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * results.c - what the run's results become: each result's statistics, the
 * run's description (run_info) and the header printed before the run, and
 * the table, JSON and SVG files written after it (report.c draws them).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>

#include "harness.h"

void stats(struct result *r)
{
	double v[MAX_SAMPLES], sum = 0, sq = 0;
	int i, j, n = r->nsamples;

	if (!n)
		return;
	memcpy(v, r->samples, n * sizeof(double));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	r->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	r->min = v[0];
	r->max = v[n - 1];
	for (i = 0; i < n; i++)
		sum += v[i];
	r->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - r->mean) * (v[i] - r->mean);
	r->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			c++;
			while (isspace((unsigned char)*c))
				c++;
			c[strcspn(c, "\n")] = 0;
			snprintf(buf, len, "%s", c);
			break;
		}
	}
	fclose(f);
}

/* Describes the run (sel[0..nsel) are the targets) and prints its header. */
void results_header(struct run_info *ri, struct target **sel, int nsel)
{
	struct utsname un;
	int i, j;

	/* header */
	ri->seed = opt.seed;
	{
		time_t tt = time(NULL);
		strftime(ri->date, sizeof(ri->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
	}
	uname(&un);
	snprintf(ri->host, sizeof(ri->host), "%s", un.nodename);
	snprintf(ri->kernel, sizeof(ri->kernel), "%s %s %s", un.sysname, un.release, un.machine);
	read_cpu_model(ri->cpu, sizeof(ri->cpu));
	ri->ncpus = ncpus;
	ri->warmup = opt.warmup;
	ri->interval = opt.interval;
	ri->nsamples = (int)(opt.duration / opt.interval + 0.5);
	if (ri->nsamples < 1)
		ri->nsamples = 1;
	ri->lib = in_list(opt.targets, "uvfs") ? opt.lib : NULL;
	ri->baseline_lib = in_list(opt.targets, "uvfs-baseline") ? opt.baseline_lib : NULL;
	ri->hostbase = opt.hostbase;
	for (i = 0; i < nsel; i++)
		if (!strcmp(sel[i]->name, "uvfs-fuse"))
			ri->fuse_dir = opt.fuse_dir;
	ri->rate_run = opt.rate_run;
	ri->affinity = opt.affinity;
	for (i = 0; i < nsel; i++)
		snprintf(ri->targets + strlen(ri->targets), sizeof(ri->targets) - strlen(ri->targets),
			 "%s%s", i ? "," : "", sel[i]->name);
	snprintf(ri->modes, sizeof(ri->modes), "%s", opt.modes == 3 ? "threads,processes" :
		 opt.modes == 1 ? "threads" : "processes");
	for (i = 0; i < opt.nworkers; i++)
		snprintf(ri->workers + strlen(ri->workers), sizeof(ri->workers) - strlen(ri->workers),
			 "%s%d", i ? "," : "", opt.workers[i]);

	if (getloadavg(ri->load_start, 1) < 1)
		ri->load_start[0] = -1;
	printf("uvfs-bench  seed %llu  %s  %s  %s  %d cpus (%s)\n", ri->seed, ri->date, ri->host,
	       ri->kernel, ri->ncpus, ri->cpu);
	if (ri->load_start[0] > ri->ncpus)
		printf("warning: load average %.1f on %d cpus: other work is running, the figures "
		       "will be noisy%s\n", ri->load_start[0], ri->ncpus,
		       opt.rate_run ? "" : " (--rate run discounts the time taken by it)");
	printf("targets %s; modes %s; workers %s; warm-up %.2f s, %d samples of %.3g s%s\n",
	       ri->targets, ri->modes, ri->workers, ri->warmup, ri->nsamples, ri->interval,
	       opt.affinity ? "; workers pinned" : "");
	for (i = 0; i < nsel; i++)
		if (sel[i]->kind == TARGET_UVFS)
			printf("  %-14s %s%s\n", sel[i]->name, sel[i]->lib,
			       sel[i]->ops.pipe2 ? "" : "  (no uvfs_pipe2: pipe testcases n/a)");
		else if (!strcmp(sel[i]->name, "uvfs-fuse")) {
			static const char *mn[] = { "none", "threads", "processes",
						    "threads,processes" };
			int fm = (opt.fuse_modes ? opt.fuse_modes : 3) & opt.modes;
			struct statfs sf;

			printf("  %-14s system calls under %s%s; modes %s; workers ", sel[i]->name,
			       opt.fuse_dir, statfs(opt.fuse_dir, &sf) == 0 &&
			       sf.f_type == 0x65735546 /* FUSE_SUPER_MAGIC */ ? "" :
			       " (warning: not a FUSE mount)", mn[fm]);
			if (!opt.nfuse_workers)
				printf("%s", ri->workers);
			for (j = 0; j < opt.nfuse_workers; j++)
				printf("%s%d", j ? "," : "", opt.fuse_workers[j]);
			printf("; pipe testcases n/a\n");
		}
	printf("\n");
	fflush(stdout);
}

/* The table on stdout, then results.json, table.txt and the SVG plots in
 * --out (and --json); 0 or 1 (the exit status). */
int results_write(struct run_info *ri, struct result *res, int nres)
{
	char files[64][PATH_MAX];
	char path[PATH_MAX];
	FILE *f;
	int i, k;

	report_table(stdout, ri, res, nres);
	fflush(stdout);

	if (mkdir(opt.out, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "uvfs-bench: mkdir %s: %s\n", opt.out, strerror(errno));
		return 1;
	}
	printf("\nresults:\n");
	snprintf(path, sizeof(path), "%s/results.json", opt.out);
	if (report_json(path, ri, res, nres) == 0)
		printf("  %s\n", path);
	if (opt.json && report_json(opt.json, ri, res, nres) == 0)
		printf("  %s\n", opt.json);
	snprintf(path, sizeof(path), "%s/table.txt", opt.out);
	f = fopen(path, "w");
	if (f) {
		report_table(f, ri, res, nres);
		fclose(f);
		printf("  %s\n", path);
	}
	k = report_svg(opt.out, ri, res, nres, files, 64);
	for (i = 0; i < k; i++)
		printf("  %s\n", files[i]);
	return 0;
}
