/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench.h - what a uvfs-bench testcase sees.
 *
 * A testcase is written once, in the shape of will-it-scale: one function
 * that does its per-worker setup, then loops incrementing *iterations until
 * the harness says stop, then undoes its setup.  It makes every file system
 * call through ctx->ops, a table with one implementation per target:
 *
 *   uvfs, uvfs-baseline   the library's own uvfs_* entry points, resolved with
 *                         dlsym from libuvfs.so / libuvfs-baseline.so: the
 *                         table holds the library's functions themselves, so a
 *                         call is one indirect call into the library;
 *   host                  the same calls as system calls (glibc wrappers) on a
 *                         fresh directory of a host tmpfs, errno turned into
 *                         a -errno return as uvfs returns it.
 *
 * Every operation takes the handle ctx->p first (the uvfs proc; NULL and
 * ignored for the host) and returns >= 0 or -errno, as the uvfs API does.
 * Paths are one component relative to ctx->dirfd, a directory of the target
 * that holds nothing but this measurement's files, so every target walks the
 * same path.
 *
 * To add a testcase: write bench/tests/NAME.c ending in BENCH_TESTCASE(...)
 * and list it in bench/meson.build.  Nothing else names it.  A benchmark
 * that is not a counted loop but a complete run with a time (perf bench
 * sched messaging) is a job: BENCH_JOB(...) with .job instead of .fn.
 */
#ifndef UVFS_BENCH_H
#define UVFS_BENCH_H

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "uvfs.h"

/* The operations a testcase may use.  The types are the uvfs API's own, so
 * the uvfs targets fill the table straight from dlsym.  An entry the target
 * lacks (uvfs_pipe2 in a library that has no pipes yet) is NULL; a testcase
 * that needs it says so in .needs and is reported "n/a" for that target. */
struct bench_ops {
	int (*openat)(struct uvfs_proc *p, int dirfd, const char *path, int flags, mode_t mode);
	int (*close)(struct uvfs_proc *p, int fd);
	ssize_t (*read)(struct uvfs_proc *p, int fd, void *buf, size_t count);
	ssize_t (*write)(struct uvfs_proc *p, int fd, const void *buf, size_t count);
	ssize_t (*pread)(struct uvfs_proc *p, int fd, void *buf, size_t count, off_t off);
	ssize_t (*pwrite)(struct uvfs_proc *p, int fd, const void *buf, size_t count, off_t off);
	off_t (*lseek)(struct uvfs_proc *p, int fd, off_t off, int whence);
	int (*ftruncate)(struct uvfs_proc *p, int fd, off_t length);
	int (*dup)(struct uvfs_proc *p, int fd);
	int (*fstat)(struct uvfs_proc *p, int fd, struct stat *st);
	int (*fstatat)(struct uvfs_proc *p, int dirfd, const char *path, struct stat *st, int flags);
	int (*mkdirat)(struct uvfs_proc *p, int dirfd, const char *path, mode_t mode);
	int (*unlinkat)(struct uvfs_proc *p, int dirfd, const char *path, int flags);
	int (*symlinkat)(struct uvfs_proc *p, const char *target, int newdirfd, const char *linkpath);
	ssize_t (*readlinkat)(struct uvfs_proc *p, int dirfd, const char *path, char *buf, size_t bufsiz);
	/* optional: NULL when the target has no pipes */
	int (*pipe2)(struct uvfs_proc *p, int fds[2], int flags);
};

/* What a testcase needs beyond the always-present operations. */
#define BENCH_NEED_PIPE2 0x1u

/* One worker's view of one measurement. */
struct ctx {
	const struct bench_ops *ops;
	struct uvfs_proc *p;        /* the proc this worker calls into (NULL: host) */
	int dirfd;                  /* the measurement's directory, in p's fd table */
	unsigned long nr;           /* worker number, 0..workers-1 */
	const char *target;         /* "uvfs", "uvfs-baseline", "host" */
	/* private to the harness: read through bench_running() */
	volatile int *stop;
	unsigned long long limit;   /* fixed-iteration mode (callgrind); else ~0 */
	int failed;
};

/* The loop condition of every testcase: false once the harness stops the
 * measurement or a fixed iteration count is reached.  Two loads and two
 * compares per iteration, the same for every target. */
static inline int bench_running(const struct ctx *c, unsigned long long iterations)
{
	return !*c->stop && iterations < c->limit;
}

/* Report a wrong result or failed setup: the measurement stops and the table
 * shows the message instead of a rate.  Returns nothing; the testcase
 * returns after calling it. */
void bench_fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "name.NR" for this worker: the per-worker file names of will-it-scale. */
static inline void bench_name(const struct ctx *c, char *buf, size_t len, const char *base)
{
	snprintf(buf, len, "%s.%lu", base, c->nr);
}

/* Create (or truncate) the per-worker regular file NAME with SIZE bytes of
 * data; returns 0 or -errno (and has called bench_fail). */
int bench_make_file(struct ctx *c, const char *name, size_t size);

struct testcase {
	const char *name;
	const char *description;
	const char *seed;        /* the seed whose experiment it reproduces, or NULL */
	unsigned needs;          /* BENCH_NEED_* */
	/* A loop testcase (will-it-scale): run by every worker, counted. */
	void (*fn)(struct ctx *c, unsigned long long *iterations, unsigned long nr);
	/* A job (perf bench shape): one complete run with PARAM (e.g. groups)
	 * and LOOPS, which makes its own threads, all calling into c->p;
	 * stores the run's time and how many operations it did; 0 or -1 (after
	 * bench_fail).  The harness reports ops/s and the time per run, in
	 * threads mode, for each of params[] instead of each worker count. */
	int (*job)(struct ctx *c, unsigned long param, unsigned long loops, double *seconds,
		   unsigned long long *ops);
	unsigned long params[8]; /* zero-terminated */
	const char *param_name;  /* "groups" */
	unsigned long job_loops; /* loops per run */
	unsigned long ops_per_loop; /* operations per loop with param 1 */
};

/* Registers a testcase: a pointer to it goes into the bench_testcases
 * section, which the harness walks between __start_ and __stop_. */
#define BENCH_TESTCASE(ident, ...)                                                   \
	static const struct testcase bench_tc_##ident = { __VA_ARGS__ };               \
	static const struct testcase *const bench_tc_ptr_##ident                        \
		__attribute__((used, section("bench_testcases"), aligned(sizeof(void *)))) = \
			&bench_tc_##ident

/* A job: the same registration. */
#define BENCH_JOB(ident, ...) BENCH_TESTCASE(ident, __VA_ARGS__)

#endif /* UVFS_BENCH_H */
