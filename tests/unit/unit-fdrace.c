// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-fdrace: dup2 onto an fd that another thread of the table is closing
 * at that instant (issue 9, part 5).
 *
 * A shared table closes fds 0-63 without its lock: the slot is emptied first,
 * its bit cleared after.  On Linux a close is atomic under file_lock, so a
 * dup2 racing it always succeeds; the only EBUSY is an fd reserved by an
 * open in progress, which the races here never make (their opens and dups
 * reserve and install in one step).  Checked, with one thread closing fd N
 * (after re-opening it) and another dup2'ing fd 0 onto N:
 *   - dup2 always returns N, never EBUSY;
 *   - close and close_range of N always succeed (only that thread empties N);
 *   - the same with two closers, two dup2s and an open (and fork copies)
 *     on N at once;
 *   - every file is released exactly once and the dup2'd one installed
 *     exactly once: at the end no file is left (the instance's count) and
 *     both unlinked inodes are freed;
 *   - the table ends consistent: N holds the dup2 source's file, and once
 *     closed the lowest free fd is 0 again;
 * and that an fd reserved by an open in progress, the one case where dup2
 * gives EBUSY, still does, in single-thread and shared tables and in one
 * reserved before its table became shared.
 *
 * Free-running, the close's window (slot empty, bit set) is a few
 * instructions wide.  In a -Drace_delay=true build the test also stops every
 * close of N at RACE_POINT("close:slot_cleared"), right inside that window,
 * runs the dup2 from the other thread there and waits until it has returned
 * or is waiting at RACE_POINT("dup2:closing") for the close to finish.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>
#include <sys/statfs.h>
#include <time.h>

/* the free race runs MIN_ROUNDS rounds, then more until FREE_ROUNDS or a
 * second has passed: a loaded machine (or ASan) does fewer, never none */
enum { N = 1, MIN_ROUNDS = 5000, FREE_ROUNDS = 300000, STOPPED_ROUNDS = 3000 };

static struct uvfs *vfs;
static struct uvfs_proc *p;
static ino_t ino_a, ino_b;

static long inodes_used(void)
{
	struct statfs s;
	if (uvfs_statfs(p, "/", &s))
		return -1;
	return (long)(s.f_files - s.f_ffree);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- free-running ---- */

struct side {
	unsigned long rounds, ebusy, bad;
	int done;
	struct side *other;
};

/* Keep within a few rounds of the other thread, so that the two really
 * interleave even when the machine runs one of them at a time. */
static void pace(struct side *s)
{
	__atomic_store_n(&s->rounds, s->rounds + 1, __ATOMIC_RELEASE);
	while (s->rounds > __atomic_load_n(&s->other->rounds, __ATOMIC_ACQUIRE) + 4 &&
	       !__atomic_load_n(&s->other->done, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void *free_closer(void *arg)
{
	struct side *s = arg;
	double end = now() + 1.0;
	for (unsigned i = 0; i < FREE_ROUNDS && (i < MIN_ROUNDS || now() < end); i++) {
		int fd = uvfs_openat(p, AT_FDCWD, "/a", O_RDONLY, 0);
		/* N already holds the dup2'd file: a higher fd */
		if (fd < 0 || (fd != N && uvfs_close(p, fd) != 0)) {
			if (s->bad++ < 3)
				printf("   re-open: %d\n", fd);
		}
		int r = (i % 4 == 3) ? uvfs_close_range(p, N, N, 0) : uvfs_close(p, N);
		if (r != 0 && s->bad++ < 3)
			printf("   %s(%d): %d\n", i % 4 == 3 ? "close_range" : "close", N, r);
		pace(s);
	}
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *free_dup2er(void *arg)
{
	struct side *s = arg;
	while (!__atomic_load_n(&s->other->done, __ATOMIC_ACQUIRE)) {
		int r = uvfs_dup2(p, 0, N);
		if (r == -EBUSY)
			s->ebusy++;
		else if (r != N && s->bad++ < 3)
			printf("   dup2(0, %d): %d\n", N, r);
		pace(s);
	}
	/* the last word is a dup2's: N holds the source's file */
	int r = uvfs_dup2(p, 0, N);
	if (r != N && s->bad++ < 3)
		printf("   last dup2(0, %d): %d\n", N, r);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_free_race(void)
{
	SECTION("dup2 racing close, free-running");
	struct side c = { 0 }, d = { 0 };
	c.other = &d;
	d.other = &c;
	pthread_t tc, td;
	pthread_create(&tc, NULL, free_closer, &c);
	pthread_create(&td, NULL, free_dup2er, &d);
	pthread_join(tc, NULL);
	pthread_join(td, NULL);
	printf("   %lu closes, %lu dup2s, %lu EBUSY\n", c.rounds, d.rounds, d.ebusy);
	/* the pacing kept the dup2s going until the last close */
	CHECK(c.rounds >= MIN_ROUNDS && d.rounds + 4 >= c.rounds, "%lu closes, %lu dup2s", c.rounds, d.rounds);
	CHECK(d.ebusy == 0, "dup2 onto an fd being closed gave EBUSY %lu times in %lu", d.ebusy, d.rounds);
	CHECK(c.bad + d.bad == 0, "%lu unexpected results", c.bad + d.bad);
}

/* ---- everything on fd N at once ---- */

/* Two closers, two dup2s, and an open and a fork copy of the table taking
 * the fd whenever it is free: close vs close, dup2 vs dup2 and an open
 * allocating the fd the moment a close frees it. */
static int mixed_stop;
static unsigned long mixed_ebusy, mixed_bad, mixed_ops[5];

static void mixed_fail(const char *what, int r)
{
	if (__atomic_fetch_add(&mixed_bad, 1, __ATOMIC_RELAXED) < 3)
		printf("   %s: %d\n", what, r);
}

static void *mixed_main(void *arg)
{
	int id = (int)(long)arg;
	unsigned long n = 0;
	while (!__atomic_load_n(&mixed_stop, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&mixed_ops[id], ++n, __ATOMIC_RELAXED);
		int r;
		switch (id) {
		case 0: /* close: another thread's close may have won */
		case 1:
			r = (n & 1) ? uvfs_close(p, N) : uvfs_close_range(p, N, N, 0);
			if (r != 0 && r != -EBADF)
				mixed_fail("close", r);
			break;
		case 2:
		case 3:
			r = (n & 1) ? uvfs_dup2(p, 0, N) : uvfs_dup3(p, 0, N, (n & 2) ? O_CLOEXEC : 0);
			if (r == -EBUSY)
				__atomic_fetch_add(&mixed_ebusy, 1, __ATOMIC_RELAXED);
			else if (r != N)
				mixed_fail("dup2", r);
			break;
		case 4:
			/* the lowest free fd: N, which the others close, or a
			 * higher one that only this thread has */
			r = uvfs_openat(p, AT_FDCWD, "/a", O_RDONLY, 0);
			if (r < N)
				mixed_fail("open", r);
			else if (r > N && uvfs_close(p, r) != 0)
				mixed_fail("close of the open's fd", r);
			if (n % 64 == 0) {
				struct uvfs_proc *c = uvfs_proc_clone(p, 0);
				struct stat st;
				if (!c) {
					mixed_fail("fork", 0);
					break;
				}
				/* fd 0 is copied; N is copied whole or not at all */
				if (uvfs_fstat(c, 0, &st) != 0 || st.st_ino != ino_b)
					mixed_fail("fork: fd 0", 0);
				r = uvfs_fstat(c, N, &st);
				if (r != -EBADF && (r != 0 || (st.st_ino != ino_a && st.st_ino != ino_b)))
					mixed_fail("fork: fd N", r);
				uvfs_proc_destroy(c);
			}
			break;
		}
	}
	return NULL;
}

static void test_mixed_race(void)
{
	SECTION("two closes, two dup2s and an open on one fd");
	pthread_t t[5];
	for (long i = 0; i < 5; i++)
		pthread_create(&t[i], NULL, mixed_main, (void *)i);
	/* half a second, and until each thread has had its turns: on a loaded
	 * machine one of them may wait long for a CPU */
	double end = now() + 0.5;
	for (;;) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		unsigned least = ~0u;
		for (int i = 0; i < 5; i++) {
			unsigned long n = __atomic_load_n(&mixed_ops[i], __ATOMIC_RELAXED);
			if (n < least)
				least = (unsigned)n;
		}
		if (least >= MIN_ROUNDS / 5 && now() >= end)
			break;
	}
	__atomic_store_n(&mixed_stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	printf("   %lu + %lu closes, %lu + %lu dup2s, %lu opens, %lu EBUSY\n", mixed_ops[0], mixed_ops[1],
	       mixed_ops[2], mixed_ops[3], mixed_ops[4], mixed_ebusy);
	CHECK(mixed_ebusy == 0, "dup2 gave EBUSY %lu times with no open reserving the fd", mixed_ebusy);
	CHECK(mixed_bad == 0, "%lu unexpected results", mixed_bad);
	/* N holds a file again for the final checks */
	CHECK_EQ(uvfs_dup2(p, 0, N), N);
}

/* ---- stopped inside the close's window (race-delay builds) ---- */

static __thread int role; /* 1: the closer, 2: the dup2 thread */
static int armed, go, dup2_waiting, dup2_done, dup2_result, stop_dup2er;
static unsigned long hits;

static void hook(const char *point, void *arg)
{
	(void)arg;
	if (role == 1 && __atomic_load_n(&armed, __ATOMIC_ACQUIRE) && !strcmp(point, "close:slot_cleared")) {
		__atomic_store_n(&armed, 0, __ATOMIC_RELAXED);
		hits++;
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		/* the dup2 has either decided already or waits for this close */
		while (!__atomic_load_n(&dup2_done, __ATOMIC_ACQUIRE) &&
		       !__atomic_load_n(&dup2_waiting, __ATOMIC_ACQUIRE))
			sched_yield();
	} else if (role == 2 && !strcmp(point, "dup2:closing")) {
		__atomic_store_n(&dup2_waiting, 1, __ATOMIC_RELEASE);
	}
}

static void *stopped_dup2er(void *arg)
{
	(void)arg;
	role = 2;
	for (;;) {
		while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
			if (__atomic_load_n(&stop_dup2er, __ATOMIC_ACQUIRE))
				return NULL;
			sched_yield();
		}
		__atomic_store_n(&go, 0, __ATOMIC_RELAXED);
		dup2_result = uvfs_dup2(p, 0, N);
		__atomic_store_n(&dup2_done, 1, __ATOMIC_RELEASE);
	}
}

static void test_stopped_race(void)
{
	SECTION("dup2 inside a close's window (race point)");
	role = 1;
	race_set_hook(hook, NULL);
	pthread_t td;
	pthread_create(&td, NULL, stopped_dup2er, NULL);
	unsigned long ebusy = 0, bad = 0, wrong_file = 0;
	for (unsigned i = 0; i < STOPPED_ROUNDS; i++) {
		/* N holds the re-opened /a on odd rounds, the last dup2's
		 * file on even ones */
		if (i & 1)
			uvfs_close(p, N);
		if (uvfs_fcntl(p, N, F_GETFD, 0) == -EBADF) {
			int fd = uvfs_openat(p, AT_FDCWD, "/a", O_RDONLY, 0);
			if (fd != N && bad++ < 3)
				printf("   re-open: %d\n", fd);
		}
		__atomic_store_n(&dup2_waiting, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dup2_done, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
		int r = (i % 3 == 2) ? uvfs_close_range(p, N, N, 0) : uvfs_close(p, N);
		if (r != 0 && bad++ < 3)
			printf("   close of %d: %d\n", N, r);
		if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE)) {
			/* the close never reached the point: no race was run */
			__atomic_store_n(&armed, 0, __ATOMIC_RELAXED);
			continue;
		}
		while (!__atomic_load_n(&dup2_done, __ATOMIC_ACQUIRE))
			sched_yield();
		if (dup2_result == -EBUSY) {
			ebusy++;
			continue;
		}
		if (dup2_result != N) {
			if (bad++ < 3)
				printf("   dup2(0, %d): %d\n", N, dup2_result);
			continue;
		}
		struct stat st;
		if (uvfs_fstat(p, N, &st) != 0 || st.st_ino != ino_b)
			wrong_file++;
	}
	__atomic_store_n(&stop_dup2er, 1, __ATOMIC_RELEASE);
	pthread_join(td, NULL);
	race_set_hook(NULL, NULL);
	role = 0;
	printf("   %lu of %d closes stopped in the window, %lu EBUSY\n", hits, STOPPED_ROUNDS, ebusy);
	CHECK_EQ(hits, STOPPED_ROUNDS);
	CHECK(ebusy == 0, "dup2 onto an fd being closed gave EBUSY %lu times in %lu", ebusy, hits);
	CHECK(bad == 0, "%lu unexpected results", bad);
	CHECK(wrong_file == 0, "%lu times N did not hold the dup2'd file", wrong_file);
	/* N holds a file again for the final checks */
	CHECK_EQ(uvfs_dup2(p, 0, N), N);
}

/* ---- a reservation is not a close in progress ---- */

static void *touch_main(void *arg)
{
	struct stat st;
	uvfs_fstat(arg, -1, &st); /* any fd call joins the table */
	return NULL;
}

static void share(struct uvfs_proc *q)
{
	pthread_t t;
	pthread_create(&t, NULL, touch_main, q);
	pthread_join(t, NULL);
}

/*
 * An fd reserved by an open in progress (get_unused_fd_flags until fd_install
 * or put_unused_fd) is taken but holds no file: dup2 onto it is EBUSY, as on
 * Linux, and not a wait for a close to finish; close, fstat and F_SETFD give
 * EBADF; close_range passes over it; a fork does not copy it.  mode 0: a
 * single-thread table; 1: shared before the reservation; 2: reserved in
 * single-thread mode, shared before it is looked at.
 */
static void reserved_case(int mode, unsigned below, bool install)
{
	struct uvfs_proc *q = uvfs_proc_create(vfs, 0, 0);
	struct stat st;
	if (mode == 1)
		share(q);
	for (unsigned i = 0; i < below; i++)
		CHECK_EQ(uvfs_openat(q, AT_FDCWD, "/b", O_RDONLY, 0), i);
	int r = get_unused_fd_flags(q, 0);
	CHECK_EQ(r, below);
	if (mode == 2)
		share(q);
	CHECK_EQ(__atomic_load_n(&q->files->shared, __ATOMIC_ACQUIRE), mode ? 2 : 0);
	CHECK_ERR(uvfs_dup2(q, 0, r), EBUSY);
	CHECK_ERR(uvfs_dup3(q, 0, r, O_CLOEXEC), EBUSY);
	CHECK_ERR(uvfs_close(q, r), EBADF);
	CHECK_ERR(uvfs_fstat(q, r, &st), EBADF);
	CHECK_ERR(uvfs_fcntl(q, r, F_SETFD, FD_CLOEXEC), EBADF);
	CHECK_ERR(uvfs_openat(q, r, "b", O_RDONLY, 0), EBADF); /* a dirfd lookup (RCU walk) */
	int above = uvfs_openat(q, AT_FDCWD, "/b", O_RDONLY, 0);
	CHECK_EQ(above, r + 1);
	CHECK_EQ(uvfs_close_range(q, r, r, CLOSE_RANGE_CLOEXEC), 0);
	CHECK_EQ(uvfs_close_range(q, r, r, 0), 0);
	CHECK_ERR(uvfs_dup2(q, 0, r), EBUSY); /* still reserved */
	struct uvfs_proc *c = uvfs_proc_clone(q, 0);
	CHECK(c != NULL);
	if (c) {
		CHECK_ERR(uvfs_fcntl(c, r, F_GETFD, 0), EBADF);
		CHECK_EQ(uvfs_fcntl(c, above, F_GETFD, 0), 0);
		CHECK_EQ(uvfs_openat(c, AT_FDCWD, "/b", O_RDONLY, 0), r); /* free in the copy */
		uvfs_proc_destroy(c);
	}
	if (install) {
		/* the open finishes: fd_install takes a reference of its own */
		int fd = uvfs_openat(q, AT_FDCWD, "/a", O_RDONLY, 0);
		struct file *f = fget(q, fd);
		CHECK(f != NULL);
		CHECK_EQ(uvfs_close(q, fd), 0);
		fd_install(q, r, f);
		CHECK(uvfs_fstat(q, r, &st) == 0 && st.st_ino == ino_a);
		CHECK_EQ(uvfs_dup2(q, 0, r), r);
		CHECK(uvfs_fstat(q, r, &st) == 0 && st.st_ino == ino_b);
		CHECK_EQ(uvfs_close(q, r), 0);
	} else {
		/* the open fails: the fd is free again */
		put_unused_fd(q, r);
		CHECK_ERR(uvfs_close(q, r), EBADF);
		CHECK_EQ(uvfs_dup2(q, 0, r), r);
		CHECK_EQ(uvfs_close(q, r), 0);
	}
	CHECK_EQ(uvfs_openat(q, AT_FDCWD, "/b", O_RDONLY, 0), r);
	CHECK_EQ(uvfs_close_range(q, 0, ~0u, 0), 0);
	CHECK_ERR(uvfs_close(q, 0), EBADF);
	uvfs_proc_destroy(q);
}

static void test_reserved(void)
{
	SECTION("dup2 onto a reserved fd: EBUSY, in every mode");
	static const char *what[] = { "single-thread", "shared", "reserved single-thread, then shared" };
	for (int mode = 0; mode < 3; mode++) {
		unsigned long failed = check_failed;
		for (int install = 0; install < 2; install++) {
			reserved_case(mode, 2, install); /* the first word, lock-free */
			reserved_case(mode, 70, install); /* under the lock */
		}
		printf("   %s: %s\n", what[mode], check_failed == failed ? "ok" : "FAILED");
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a limit on inodes, so that statfs counts them */
	struct uvfs_options o = { .tmpfs_nr_inodes = 1000 };
	vfs = uvfs_create(&o);
	p = uvfs_proc_create(vfs, 0, 0);
	long base = inodes_used();
	struct stat st;
	int fd = uvfs_openat(p, AT_FDCWD, "/a", O_CREAT | O_RDWR, 0600);
	CHECK(fd == 0 && uvfs_fstat(p, fd, &st) == 0);
	ino_a = st.st_ino;
	CHECK_EQ(uvfs_close(p, fd), 0);
	/* fd 0: the dup2 source, for the whole run */
	CHECK_EQ(uvfs_openat(p, AT_FDCWD, "/b", O_CREAT | O_RDWR, 0600), 0);
	CHECK_EQ(uvfs_fstat(p, 0, &st), 0);
	ino_b = st.st_ino;
	CHECK(ino_a != ino_b);

	test_reserved();
	test_free_race(); /* the table is shared from its first thread on */
	test_mixed_race();
	if (race_points_enabled())
		test_stopped_race();
	else
		printf("-- (no race points in this build: the stopped race is not run)\n");

	SECTION("the table and the files afterwards");
	/* N holds the dup2'd file, nothing above it */
	CHECK(uvfs_fstat(p, N, &st) == 0 && st.st_ino == ino_b, "fd %d does not hold /b", N);
	for (int i = N + 1; i < 64; i++)
		CHECK_ERR(uvfs_fcntl(p, i, F_GETFD, 0), EBADF);
	CHECK_EQ(uvfs_close(p, N), 0);
	CHECK_EQ(uvfs_close(p, 0), 0);
	CHECK_ERR(uvfs_close(p, N), EBADF);
	CHECK_ERR(uvfs_close(p, 0), EBADF);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/a", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/b", 0), 0);
	/* every file released: no reference kept either inode */
	CHECK_EQ(pcounter_sum(&vfs->nr_files), 0);
	CHECK_EQ(inodes_used(), base);
	/* the lowest free fd is 0 again */
	fd = uvfs_openat(p, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0);
	CHECK_EQ(fd, 0);
	CHECK_EQ(uvfs_close(p, fd), 0);
	uvfs_proc_destroy(p);
	CHECK_EQ(pcounter_sum(&vfs->nr_files), 0);
	uvfs_destroy(vfs);
	return check_done();
}
