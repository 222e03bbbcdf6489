/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * times.c - timestamps are never torn.
 *
 * One thread sets a file's atime and mtime with utimensat, alternating
 * between two (seconds, nanoseconds) pairs that differ in both fields;
 * another reads them with stat, fstat or statx (one after the other) as fast
 * as it can.  Every timestamp read must be one of the two pairs: seconds of
 * one update with nanoseconds of the other is a torn read (see "Timestamps" in
 * docs/ARCHITECTURE.md).  The readers must also have seen both pairs, or the
 * test raced nothing.  The last line is "N passed, N failed".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include "uvfs.h"
#include "check.h"

static const struct timespec pair[2] = {
	{ .tv_sec = 1111111111, .tv_nsec = 111111111 },
	{ .tv_sec = 2222222222, .tv_nsec = 222222222 },
};

/* A reader runs until it saw the value change CHANGES times (it and the
 * writer ran at the same moment for a while: on one core, taking turns, the
 * value changes once a time slice) or for MAX_MS. */
enum { READER_KINDS = 3, CHANGES = 1000000, MAX_MS = 5000 };
static const char *const kind_name[READER_KINDS] = { "fstatat", "fstat", "statx" };

static struct uvfs *fs;
static struct uvfs_proc *main_proc; /* holds the fd that fstat reads */
static int stop;

struct reader {
	pthread_t thread;
	int kind, fd;
	unsigned long reads, torn, seen[2], changes;
	int last;
	struct timespec bad;
};

/* -1 when t is neither pair: a torn (or otherwise wrong) timestamp. */
static int which(long long sec, long long nsec)
{
	for (int i = 0; i < 2; i++)
		if (sec == pair[i].tv_sec && nsec == pair[i].tv_nsec)
			return i;
	return -1;
}

static void account(struct reader *r, long long sec, long long nsec)
{
	int w = which(sec, nsec);
	if (w < 0) {
		if (!r->torn++)
			r->bad = (struct timespec){ .tv_sec = sec, .tv_nsec = nsec };
	} else {
		r->seen[w]++;
		if (w != r->last)
			__atomic_store_n(&r->changes, r->changes + 1, __ATOMIC_RELAXED);
		r->last = w;
	}
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct uvfs_proc *own = r->kind == 1 ? NULL : uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *p = own ? own : main_proc;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct stat st;
		struct statx stx;
		int err;
		switch (r->kind) {
		case 0:
			err = uvfs_fstatat(p, AT_FDCWD, "/f", &st, 0);
			break;
		case 1:
			err = uvfs_fstat(p, r->fd, &st);
			break;
		default:
			err = uvfs_statx(p, AT_FDCWD, "/f", 0, STATX_BASIC_STATS, &stx);
			break;
		}
		if (err) {
			r->torn++;
			r->bad = (struct timespec){ .tv_sec = err, .tv_nsec = -1 };
			continue;
		}
		if (r->kind < 2) {
			account(r, st.st_atim.tv_sec, st.st_atim.tv_nsec);
			account(r, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		} else {
			account(r, stx.stx_atime.tv_sec, stx.stx_atime.tv_nsec);
			account(r, stx.stx_mtime.tv_sec, stx.stx_mtime.tv_nsec);
		}
		r->reads++;
	}
	if (own)
		uvfs_proc_destroy(own);
	return NULL;
}

struct writer {
	unsigned long updates;
	int errors;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
		struct timespec t[2] = { pair[i & 1], pair[i & 1] };
		if (uvfs_utimensat(p, AT_FDCWD, "/f", t, 0))
			w->errors++;
		w->updates++;
	}
	uvfs_proc_destroy(p);
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	SECTION("stat, fstat and statx against utimensat");
	fs = uvfs_create(NULL);
	CHECK(fs != NULL);
	if (!fs)
		return check_done();
	struct uvfs_proc *p = main_proc = uvfs_proc_create(fs, 0, 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0, "open: %d", fd);
	struct timespec t0[2] = { pair[0], pair[0] };
	CHECK_EQ(uvfs_utimensat(p, AT_FDCWD, "/f", t0, 0), 0);

	/* One reader at a time with the writer: two threads for the machine's
	 * cores, so that they run at the same moment as often as possible. */
	for (int i = 0; i < READER_KINDS; i++) {
		struct reader r = { .kind = i, .fd = fd, .last = -1 };
		struct writer w = { 0 };
		pthread_t wt;
		__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
		pthread_create(&r.thread, NULL, reader_main, &r);
		pthread_create(&wt, NULL, writer_main, &w);
		for (int ms = 0; ms < MAX_MS && __atomic_load_n(&r.changes, __ATOMIC_RELAXED) < CHANGES; ms += 10)
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000L }, NULL);
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		pthread_join(wt, NULL);
		pthread_join(r.thread, NULL);
		printf("   %s: %lu reads, %lu/%lu of the two pairs, %lu changes, %lu torn; %lu updates\n",
		       kind_name[i], r.reads, r.seen[0], r.seen[1], r.changes, r.torn, w.updates);
		CHECK_EQ(w.errors, 0);
		CHECK(w.updates > 100, "%lu updates", w.updates);
		CHECK(r.torn == 0, "%s: %lu torn, the first {%lld, %ld}", kind_name[i], r.torn,
		      (long long)r.bad.tv_sec, r.bad.tv_nsec);
		CHECK(r.seen[0] && r.seen[1], "%s saw %lu and %lu", kind_name[i], r.seen[0], r.seen[1]);
	}
	uvfs_close(p, fd);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return check_done();
}
