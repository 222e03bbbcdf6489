/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* replay.h - `uvfs-bench replay`: what the run hands to its report. */
#ifndef UVFS_BENCH_REPLAY_H
#define UVFS_BENCH_REPLAY_H

#include <stdio.h>

#include "replay/trace.h"

#define REPLAY_TARGETS 4   /* uvfs, uvfs-baseline, host, uvfs-hostfs */

/* One target's replay of one trace (in shared memory: the child writes it). */
#define REPLAY_MAX_TIMES 8192

struct replay_run {
	int ran;                 /* every round finished and measured */
	int failed;              /* a round did not: msg says why */
	int ntimes;
	double times[REPLAY_MAX_TIMES];  /* ns per call of each timed replay, all rounds */
	char msg[256];           /* why not */
	int reps;
	double ns;               /* ns per call: the median of the timed repetitions */
	double ns_min, ns_max;
	double ns_q1, ns_q3;     /* quartiles: the spread shown, robust to a preempted replay */
	long diffs;              /* calls whose result is not the recorded one */
	struct outcome out[];    /* of the first (warm-up) repetition */
};

struct replay_row {
	const char *name;        /* the trace's file name without .trace */
	struct trace t;
	struct replay_run *run[REPLAY_TARGETS];  /* NULL: target not selected */
	long diffs;              /* calls differing from the recording or between targets */
};

extern const char *const replay_target_names[REPLAY_TARGETS];

void replay_report_table(FILE *f, struct replay_row *rows, int n, double load0, double load1);
int replay_report_json(const char *path, struct replay_row *rows, int n);
int replay_report_svg(const char *path, struct replay_row *rows, int n);

/* uvfs-bench replay [options] TRACE...; argv[0] is "replay" */
int replay_main(int argc, char **argv, char **orig_argv);

#endif
