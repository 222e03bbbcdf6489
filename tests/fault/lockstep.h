/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lockstep.h - a scenario's clean run, and the comparison of a run with one
 * allocation failing against it.
 *
 * The clean run logs every operation's result and every check the scenario
 * records (conf.h's C(), STAT(), LS(), ...).  A faulted run must repeat it
 * exactly, except that the operation in which the failing allocation
 * happened may answer -ENOMEM (it is then made again, and the retry must
 * give the clean result: the failure changed nothing), or a short count for
 * a write (Linux's partial write; the rest of the run is then not compared).
 * An inotify event whose allocation failed is reported as IN_Q_OVERFLOW
 * instead, as Linux does (inotify_handle_inode_event): when that allocation
 * failed, the operation must give its clean result, and the comparison ends
 * there.  So is an event lost because fsnotify could not grow its list of
 * the marks to tell; then later results may differ, but a check must show
 * an IN_Q_OVERFLOW the clean run did not have.
 */
#ifndef FAULT_LOCKSTEP_H
#define FAULT_LOCKSTEP_H
#include <stdbool.h>
#include <stdint.h>

#define MAXCALLS (1 << 19)
#define MAXCHECKS 4096

struct call_log {
	const char *op; /* the name in fault_backend.c: same address in every child */
	long long v;
};

struct check_log {
	uint64_t hash; /* of kind, name and value */
	char op[96];
	char s[160]; /* the value as text, cut */
};

struct clean_run {
	long ncalls, nchecks, nalloc;
	bool overflow;
	struct call_log calls[MAXCALLS];
	struct check_log checks[MAXCHECKS];
};

/* What one run reports to the parent. */
struct run_result {
	bool done;
	bool failed;
	bool enomem;  /* some operation answered -ENOMEM */
	bool partial; /* a short write; later results not compared */
	bool overflow; /* an inotify event lost to IN_Q_OVERFLOW; the same */
	const char *op; /* the operation the allocation failed in, if any */
	long call;
	char where[200]; /* the failed allocation's callers, innermost first */
	char msg[1536];
};

/* Both in shared memory; the clean run fills clean, a faulted run reads it. */
void lockstep_start(struct clean_run *clean, struct run_result *res, bool is_clean);
/* From fault_backend.c, for the operation in which the allocation failed:
 * whether r is the error for it (-ENOMEM; -ENFILE for pipe2's inode, as
 * Linux's create_pipe_files), to make the operation again. */
bool lockstep_alloc_error(const char *op, long long r);
/* From fault_backend.c after each operation: r its result (after the retry),
 * here whether the failing allocation happened in it, failed whether it
 * answered the error for it (and was made again). */
void lockstep_call(const char *op, long long r, bool here, bool failed);
/* After the scenario: a lost event must have been reported. */
void lockstep_end(void);
/* Fills res->where from the failed allocation's stack. */
void lockstep_where(void);
/* Records a failure (the first one is kept) */
void lockstep_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
