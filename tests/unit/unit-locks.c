// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-locks: file locks with threads and procs, where waiting is involved
 * (the conformance scenarios in tests/conformance/locks.c cover what one
 * host thread can reproduce without waiting).
 *
 *   - a model: two procs set random POSIX locks on small ranges with
 *     F_SETLK; a byte map per owner predicts every answer (EAGAIN or 0) and
 *     what F_GETLK reports for each byte (the holder's run of one type);
 *   - blocking waits: F_SETLKW, F_OFD_SETLKW and flock sleep until the
 *     conflicting lock goes (an unlock, a close, the holder proc's end);
 *   - wake-up order (Linux's): conflicting waiters are granted in the
 *     order they came, readers that do not conflict with each other
 *     together, a writer queued behind a reader after both readers;
 *   - EDEADLK: a cycle of two and of three procs, detected by the request
 *     that would close it, while the others keep waiting;
 *   - a wait on an fd that another thread of the proc closes: granted,
 *     then dropped, EBADF;
 *   - a waiter that owns its fd table's single-thread mode holds no light
 *     section: another thread's handshake and calls go through;
 *   - threads contending: two threads of one proc share POSIX locks;
 *     threads with their own open files (OFD, flock) or their own procs
 *     (POSIX) exclude each other: a counter updated inside the lock by
 *     read, pause, write loses no update.
 * Waiters are started one at a time: the next starts once the previous one
 * is queued (locks_blocked_count), so the order is the test's.
 */
#include "vfs.h"
#include "locks.h"
#include "check.h"
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>

static struct uvfs *vfs;

static int lk(struct uvfs_proc *p, int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	return uvfs_fcntl(p, fd, cmd, (unsigned long)&f);
}

/* F_GETLK: the conflicting lock's type, and its range and pid through the
 * pointers. */
static int getlk(struct uvfs_proc *p, int fd, short type, off_t start, off_t len, off_t *s, off_t *l,
		 pid_t *pid)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int r = uvfs_fcntl(p, fd, F_GETLK, (unsigned long)&f);
	if (r < 0)
		return r;
	if (s)
		*s = f.l_start;
	if (l)
		*l = f.l_len;
	if (pid)
		*pid = f.l_pid;
	return f.l_type;
}

static void wait_blocked(unsigned long n)
{
	for (int i = 0; i < 20000 && locks_blocked_count() != n; i++)
		usleep(100);
	CHECK_EQ(locks_blocked_count(), n);
}

/* ---- the model ---- */

#define MB 40
static char model[2][MB]; /* per owner and byte: 0, 'R', 'W' */

static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

static void model_run(void)
{
	SECTION("model: random F_SETLK by two procs, every byte checked with F_GETLK");
	struct uvfs_proc *p[2];
	p[0] = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(p[0], AT_FDCWD, "/model", O_CREAT | O_RDWR, 0644);
	p[1] = uvfs_proc_clone(p[0], 0);
	unsigned long bad = 0;
	for (int it = 0; it < 3000; it++) {
		int o = (int)rnd(2);
		int s = (int)rnd(MB - 2), len = 1 + (int)rnd(8);
		if (s + len > MB)
			len = MB - s;
		short type = (short[]){ F_RDLCK, F_WRLCK, F_UNLCK }[rnd(3)];
		char t = type == F_RDLCK ? 'R' : type == F_WRLCK ? 'W' : 0;
		bool conflict = false;
		for (int b = s; b < s + len && type != F_UNLCK; b++)
			if (model[!o][b] && (model[!o][b] == 'W' || t == 'W'))
				conflict = true;
		int r = lk(p[o], fd, F_SETLK, type, s, len);
		if (r != (conflict ? -EAGAIN : 0))
			bad++;
		if (!r)
			for (int b = s; b < s + len; b++)
				model[o][b] = t;
		/* each owner's view of the other */
		for (int v = 0; v < 2; v++) {
			for (int b = 0; b < MB; b++) {
				off_t ls = -1, ll = -1;
				int got = getlk(p[v], fd, F_WRLCK, b, 1, &ls, &ll, NULL);
				char m = model[!v][b];
				if (!m) {
					if (got != F_UNLCK)
						bad++;
					continue;
				}
				int lo = b, hi = b;
				while (lo > 0 && model[!v][lo - 1] == m)
					lo--;
				while (hi + 1 < MB && model[!v][hi + 1] == m)
					hi++;
				if (got != (m == 'R' ? F_RDLCK : F_WRLCK) || ls != lo || ll != hi - lo + 1)
					bad++;
			}
		}
	}
	CHECK_EQ(bad, 0);
	uvfs_close(p[0], fd);
	uvfs_proc_destroy(p[1]);
	uvfs_proc_destroy(p[0]);
}

/* ---- waiters ---- */

struct waiter {
	pthread_t th;
	struct uvfs_proc *p;
	int fd;
	int cmd; /* F_SETLKW, F_OFD_SETLKW, or 0 for flock */
	short type;
	off_t start, len;
	int ret;
	int order; /* when it was granted, counting from 1 */
	int hold_for; /* readers: wait until this many hold, then unlock */
	bool unlock; /* unlock as soon as granted (and recorded) */
	bool done;
};

static int grants, holding;

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	if (w->cmd)
		w->ret = lk(w->p, w->fd, w->cmd, w->type, w->start, w->len);
	else
		w->ret = uvfs_flock(w->p, w->fd, w->type == F_RDLCK ? LOCK_SH : LOCK_EX);
	w->order = __atomic_add_fetch(&grants, 1, __ATOMIC_SEQ_CST);
	if (w->hold_for) {
		__atomic_add_fetch(&holding, 1, __ATOMIC_SEQ_CST);
		for (int i = 0; i < 20000 && __atomic_load_n(&holding, __ATOMIC_SEQ_CST) < w->hold_for; i++)
			usleep(100);
	}
	if (w->unlock && w->ret == 0) {
		if (w->cmd)
			lk(w->p, w->fd, w->cmd == F_OFD_SETLKW ? F_OFD_SETLK : F_SETLK, F_UNLCK, w->start, w->len);
		else
			uvfs_flock(w->p, w->fd, LOCK_UN);
	}
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Start w and wait until it is queued (blocked requests then number n). */
static void start_waiter(struct waiter *w, unsigned long n)
{
	w->done = false;
	pthread_create(&w->th, NULL, waiter_fn, w);
	wait_blocked(n);
}

static bool is_done(struct waiter *w) { return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE); }

static void join(struct waiter *w) { pthread_join(w->th, NULL); }

static void blocking_waits(void)
{
	SECTION("blocking waits: unlock, close and the holder's end wake the waiter");
	struct uvfs_proc *a = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(a, AT_FDCWD, "/w", O_CREAT | O_RDWR, 0644);
	struct uvfs_proc *b = uvfs_proc_clone(a, 0);
	pid_t pid = 0;

	CHECK_EQ(lk(a, fd, F_SETLK, F_WRLCK, 0, 10), 0);
	struct waiter w = { .p = b, .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .start = 5, .len = 10 };
	start_waiter(&w, 1);
	usleep(10000);
	CHECK(!is_done(&w), "the waiter returned while the lock was held");
	/* an unlock outside its range wakes it, and it waits again */
	CHECK_EQ(lk(a, fd, F_SETLK, F_UNLCK, 0, 2), 0);
	wait_blocked(1);
	CHECK(!is_done(&w));
	CHECK_EQ(lk(a, fd, F_SETLK, F_UNLCK, 5, 0), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(getlk(a, fd, F_RDLCK, 0, 0, NULL, NULL, &pid), F_WRLCK);
	CHECK_EQ(pid, uvfs_getpid(b));

	/* a close of any fd of the file by the holder */
	w = (struct waiter){ .p = a, .fd = fd, .cmd = F_SETLKW, .type = F_RDLCK, .start = 5, .len = 1 };
	start_waiter(&w, 1);
	int bfd = uvfs_openat(b, AT_FDCWD, "/w", O_RDONLY, 0);
	CHECK_EQ(uvfs_close(b, bfd), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);

	/* the holder proc's end */
	w = (struct waiter){ .p = b, .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 0 };
	start_waiter(&w, 1);
	uvfs_proc_destroy(a);
	join(&w);
	CHECK_EQ(w.ret, 0);
	struct uvfs_proc *c = uvfs_proc_clone(b, 0);
	CHECK_EQ(getlk(c, fd, F_RDLCK, 0, 0, NULL, NULL, &pid), F_WRLCK);
	CHECK_EQ(pid, uvfs_getpid(b));
	uvfs_proc_destroy(c);

	/* OFD: two open files of one proc (its POSIX lock would conflict) */
	CHECK_EQ(lk(b, fd, F_SETLK, F_UNLCK, 0, 0), 0);
	int o1 = uvfs_openat(b, AT_FDCWD, "/w", O_RDWR, 0);
	int o2 = uvfs_openat(b, AT_FDCWD, "/w", O_RDWR, 0);
	CHECK_EQ(lk(b, o1, F_OFD_SETLK, F_WRLCK, 0, 1), 0);
	w = (struct waiter){ .p = b, .fd = o2, .cmd = F_OFD_SETLKW, .type = F_WRLCK, .start = 0, .len = 1 };
	start_waiter(&w, 1);
	/* the file's last close */
	CHECK_EQ(uvfs_close(b, o1), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(uvfs_close(b, o2), 0);

	/* flock: an unlock, a conversion that waits, the last close */
	int f1 = uvfs_openat(b, AT_FDCWD, "/w", O_RDONLY, 0);
	int f2 = uvfs_openat(b, AT_FDCWD, "/w", O_RDONLY, 0);
	CHECK_EQ(uvfs_flock(b, f1, LOCK_EX), 0);
	w = (struct waiter){ .p = b, .fd = f2, .cmd = 0, .type = F_WRLCK };
	start_waiter(&w, 1);
	CHECK_EQ(uvfs_flock(b, f1, LOCK_UN), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(uvfs_flock(b, f2, LOCK_SH), 0);
	CHECK_EQ(uvfs_flock(b, f1, LOCK_SH), 0);
	w = (struct waiter){ .p = b, .fd = f2, .cmd = 0, .type = F_WRLCK };
	start_waiter(&w, 1);
	/* f2's conversion dropped its shared lock before it waited */
	CHECK_EQ(uvfs_flock(b, f1, LOCK_EX | LOCK_NB), 0);
	wait_blocked(1);
	CHECK(!is_done(&w));
	CHECK_EQ(uvfs_flock(b, f1, LOCK_UN), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(uvfs_flock(b, f1, LOCK_SH | LOCK_NB), -EWOULDBLOCK);
	w = (struct waiter){ .p = b, .fd = f1, .cmd = 0, .type = F_RDLCK };
	start_waiter(&w, 1);
	CHECK_EQ(uvfs_close(b, f2), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(uvfs_close(b, f1), 0);
	uvfs_close(b, fd);
	uvfs_proc_destroy(b);
}

static void wake_order(void)
{
	SECTION("wake-up order: first come, first served; readers together");
	struct uvfs_proc *a = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(a, AT_FDCWD, "/o", O_CREAT | O_RDWR, 0644);
	struct uvfs_proc *q[4];
	for (int i = 0; i < 4; i++)
		q[i] = uvfs_proc_clone(a, 0);
	struct waiter w[4];

	for (int cmd = 0; cmd < 3; cmd++) {
		/* POSIX by four procs; OFD and flock by four open files */
		int cmds[] = { F_SETLKW, F_OFD_SETLKW, 0 };
		int fds[4];
		for (int i = 0; i < 4; i++)
			fds[i] = cmd ? uvfs_openat(q[i], AT_FDCWD, "/o", O_RDWR, 0) : fd;
		int hfd = cmd ? uvfs_openat(a, AT_FDCWD, "/o", O_RDWR, 0) : fd;
		int unl = cmds[cmd] == F_OFD_SETLKW ? F_OFD_SETLK : F_SETLK;
		if (cmds[cmd])
			CHECK_EQ(lk(a, hfd, unl, F_WRLCK, 0, 1), 0);
		else
			CHECK_EQ(uvfs_flock(a, hfd, LOCK_EX), 0);
		grants = 0;
		for (int i = 0; i < 4; i++) {
			w[i] = (struct waiter){ .p = q[i], .fd = fds[i], .cmd = cmds[cmd], .type = F_WRLCK,
						.start = 0, .len = 1, .unlock = true };
			start_waiter(&w[i], (unsigned long)i + 1);
		}
		if (cmds[cmd])
			CHECK_EQ(lk(a, hfd, unl, F_UNLCK, 0, 1), 0);
		else
			CHECK_EQ(uvfs_flock(a, hfd, LOCK_UN), 0);
		for (int i = 0; i < 4; i++) {
			join(&w[i]);
			CHECK_EQ(w[i].ret, 0);
			CHECK(w[i].order == i + 1, "cmd %d: waiter %d granted %d-th", cmds[cmd], i, w[i].order);
		}
		if (cmd) {
			for (int i = 0; i < 4; i++)
				uvfs_close(q[i], fds[i]);
			uvfs_close(a, hfd);
		}
	}

	/* a writer queued between two readers waits behind the first: both
	 * readers are granted before it */
	CHECK_EQ(lk(a, fd, F_SETLK, F_WRLCK, 0, 1), 0);
	grants = holding = 0;
	w[0] = (struct waiter){ .p = q[0], .fd = fd, .cmd = F_SETLKW, .type = F_RDLCK, .len = 1, .hold_for = 2,
				.unlock = true };
	w[1] = (struct waiter){ .p = q[1], .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .len = 1, .unlock = true };
	w[2] = (struct waiter){ .p = q[2], .fd = fd, .cmd = F_SETLKW, .type = F_RDLCK, .len = 1, .hold_for = 2,
				.unlock = true };
	for (int i = 0; i < 3; i++)
		start_waiter(&w[i], (unsigned long)i + 1);
	CHECK_EQ(lk(a, fd, F_SETLK, F_UNLCK, 0, 1), 0);
	for (int i = 0; i < 3; i++) {
		join(&w[i]);
		CHECK_EQ(w[i].ret, 0);
	}
	/* the second reader did not conflict with the first request, so it
	 * waited on the lock itself and was woken with the first */
	CHECK(w[0].order <= 2 && w[2].order <= 2, "readers %d %d", w[0].order, w[2].order);
	CHECK_EQ(w[1].order, 3);
	uvfs_close(a, fd);
	for (int i = 0; i < 4; i++)
		uvfs_proc_destroy(q[i]);
	uvfs_proc_destroy(a);
}

static void deadlocks(void)
{
	SECTION("EDEADLK: cycles of two and three procs");
	struct uvfs_proc *p[3];
	p[0] = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(p[0], AT_FDCWD, "/d", O_CREAT | O_RDWR, 0644);
	p[1] = uvfs_proc_clone(p[0], 0);
	p[2] = uvfs_proc_clone(p[0], 0);
	/* the second file: chains cross inodes */
	int fd2 = uvfs_openat(p[0], AT_FDCWD, "/d2", O_CREAT | O_RDWR, 0644);
	int fd2b = uvfs_openat(p[1], AT_FDCWD, "/d2", O_RDWR, 0);

	CHECK_EQ(lk(p[0], fd, F_SETLK, F_WRLCK, 0, 1), 0);
	CHECK_EQ(lk(p[1], fd2b, F_SETLK, F_WRLCK, 0, 1), 0);
	struct waiter w = { .p = p[1], .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 1 };
	start_waiter(&w, 1);
	CHECK_EQ(lk(p[0], fd2, F_SETLKW, F_WRLCK, 0, 1), -EDEADLK);
	/* F_SETLK does not look for cycles: it does not wait */
	CHECK_EQ(lk(p[0], fd2, F_SETLK, F_WRLCK, 0, 1), -EAGAIN);
	CHECK(!is_done(&w));
	CHECK_EQ(lk(p[0], fd, F_SETLK, F_UNLCK, 0, 1), 0);
	join(&w);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(lk(p[1], fd, F_SETLK, F_UNLCK, 0, 0), 0);
	CHECK_EQ(lk(p[1], fd2b, F_SETLK, F_UNLCK, 0, 0), 0);

	/* three: 0 holds byte 0, 1 byte 1, 2 byte 2; 1 waits for 0, 2 for 1 */
	for (int i = 0; i < 3; i++)
		CHECK_EQ(lk(p[i], fd, F_SETLK, F_WRLCK, i, 1), 0);
	struct waiter w1 = { .p = p[1], .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 1 };
	struct waiter w2 = { .p = p[2], .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .start = 1, .len = 1 };
	start_waiter(&w1, 1);
	start_waiter(&w2, 2);
	CHECK_EQ(lk(p[0], fd, F_SETLKW, F_WRLCK, 2, 1), -EDEADLK);
	/* a read lock is a wait too */
	CHECK_EQ(lk(p[0], fd, F_SETLKW, F_RDLCK, 2, 1), -EDEADLK);
	CHECK(!is_done(&w1) && !is_done(&w2));
	CHECK_EQ(lk(p[0], fd, F_SETLK, F_UNLCK, 0, 1), 0);
	join(&w1);
	CHECK_EQ(w1.ret, 0);
	CHECK_EQ(lk(p[1], fd, F_SETLK, F_UNLCK, 0, 2), 0);
	join(&w2);
	CHECK_EQ(w2.ret, 0);
	CHECK_EQ(locks_blocked_count(), 0);
	uvfs_close(p[0], fd2);
	uvfs_close(p[1], fd2b);
	for (int i = 0; i < 3; i++)
		uvfs_proc_destroy(p[i]);
}

static void *closer(void *arg)
{
	struct waiter *w = arg;
	wait_blocked(1);
	CHECK_EQ(uvfs_close(w->p, w->fd), 0);
	return NULL;
}

static void close_while_waiting(void)
{
	SECTION("a wait whose fd another thread closes: granted, dropped, EBADF");
	struct uvfs_proc *a = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(a, AT_FDCWD, "/c", O_CREAT | O_RDWR, 0644);
	struct uvfs_proc *b = uvfs_proc_clone(a, 0);
	CHECK_EQ(lk(a, fd, F_SETLK, F_WRLCK, 0, 0), 0);
	struct waiter w = { .p = b, .fd = fd, .cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 0 };
	start_waiter(&w, 1);
	pthread_t t;
	pthread_create(&t, NULL, closer, &w);
	pthread_join(t, NULL);
	usleep(5000);
	CHECK(!is_done(&w));
	CHECK_EQ(lk(a, fd, F_SETLK, F_UNLCK, 0, 0), 0);
	join(&w);
	CHECK_EQ(w.ret, -EBADF);
	CHECK_EQ(getlk(a, fd, F_WRLCK, 0, 0, NULL, NULL, NULL), F_UNLCK);
	uvfs_close(a, fd);
	uvfs_proc_destroy(b);
	uvfs_proc_destroy(a);
}

struct owner_waiter {
	struct uvfs_proc *p;
	int fd, other, ret;
};

static void *owner_waiter_fn(void *arg)
{
	struct owner_waiter *o = arg;
	/* the first thread to use the table: its owner, in single-thread mode */
	char c;
	uvfs_pread(o->p, o->fd, &c, 1, 0);
	o->other = uvfs_openat(o->p, AT_FDCWD, "/s", O_RDONLY, 0);
	o->ret = lk(o->p, o->fd, F_SETLKW, F_WRLCK, 0, 0);
	return NULL;
}

static void owner_mode(void)
{
	SECTION("a table owner waiting for a lock: another thread's handshake and close go through");
	struct uvfs_proc *a = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(a, AT_FDCWD, "/s", O_CREAT | O_RDWR, 0644);
	CHECK_EQ(uvfs_write(a, fd, "x", 1), 1);
	struct uvfs_proc *b = uvfs_proc_clone(a, 0);
	CHECK_EQ(lk(a, fd, F_SETLK, F_WRLCK, 0, 0), 0);
	struct owner_waiter o = { .p = b, .fd = fd };
	pthread_t t;
	pthread_create(&t, NULL, owner_waiter_fn, &o);
	wait_blocked(1);
	/* a second thread ends the owner's single-thread mode: that waits for
	 * the owner's light sections, of which a sleeper must hold none */
	CHECK_EQ(uvfs_close(b, o.other), 0);
	char c;
	CHECK_EQ(uvfs_pread(b, fd, &c, 1, 0), 1);
	CHECK_EQ(lk(a, fd, F_SETLK, F_UNLCK, 0, 0), 0);
	pthread_join(t, NULL);
	CHECK_EQ(o.ret, 0);
	uvfs_proc_destroy(b);
	uvfs_close(a, fd);
	uvfs_proc_destroy(a);
}

/* ---- threads contending ---- */

#define ITERS 300
struct worker {
	struct uvfs_proc *p;
	int fd;
	int kind; /* 0 POSIX, 1 OFD, 2 flock */
	pthread_t th;
};
static long counter;
static int inside;
static unsigned long overlaps;

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < ITERS; i++) {
		int r = w->kind == 2 ? uvfs_flock(w->p, w->fd, LOCK_EX)
				     : lk(w->p, w->fd, w->kind ? F_OFD_SETLKW : F_SETLKW, F_WRLCK, 0, 1);
		CHECK_EQ(r, 0);
		if (__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST) != 1)
			__atomic_add_fetch(&overlaps, 1, __ATOMIC_RELAXED);
		/* read, pause, write: a second thread inside loses an update */
		long c = __atomic_load_n(&counter, __ATOMIC_RELAXED);
		if (i % 16 == 0)
			sched_yield();
		__atomic_store_n(&counter, c + 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
		r = w->kind == 2 ? uvfs_flock(w->p, w->fd, LOCK_UN)
				 : lk(w->p, w->fd, w->kind ? F_OFD_SETLK : F_SETLK, F_UNLCK, 0, 1);
		CHECK_EQ(r, 0);
	}
	return NULL;
}

static void contention(void)
{
	SECTION("threads contending: POSIX by two procs, OFD and flock by two open files");
	struct uvfs_proc *a = uvfs_proc_create(vfs, 0, 0);
	int fd = uvfs_openat(a, AT_FDCWD, "/t", O_CREAT | O_RDWR, 0644);
	struct uvfs_proc *b = uvfs_proc_clone(a, 0);
	for (int kind = 0; kind < 3; kind++) {
		struct worker w[3];
		counter = 0;
		overlaps = 0;
		for (int i = 0; i < 3; i++) {
			/* POSIX: three procs; OFD and flock: three files of one proc */
			w[i].kind = kind;
			w[i].p = kind ? a : (i == 0 ? a : i == 1 ? b : uvfs_proc_clone(a, 0));
			w[i].fd = kind ? uvfs_openat(a, AT_FDCWD, "/t", O_RDWR, 0) : fd;
		}
		for (int i = 0; i < 3; i++)
			pthread_create(&w[i].th, NULL, worker_fn, &w[i]);
		for (int i = 0; i < 3; i++)
			pthread_join(w[i].th, NULL);
		CHECK_EQ(counter, 3 * ITERS);
		CHECK_EQ(overlaps, 0);
		for (int i = 0; i < 3; i++)
			if (kind)
				uvfs_close(a, w[i].fd);
		if (!kind)
			uvfs_proc_destroy(w[2].p);
	}
	CHECK_EQ(locks_blocked_count(), 0);

	/* two threads of one proc are one owner */
	struct uvfs_proc *t = uvfs_proc_clone(a, UVFS_CLONE_FILES);
	CHECK_EQ(lk(a, fd, F_SETLK, F_WRLCK, 0, 10), 0);
	CHECK_EQ(lk(t, fd, F_SETLK, F_WRLCK, 5, 10), 0);
	CHECK_EQ(lk(b, fd, F_SETLK, F_RDLCK, 14, 1), -EAGAIN);
	off_t s = -1, l = -1;
	CHECK_EQ(getlk(b, fd, F_RDLCK, 0, 0, &s, &l, NULL), F_WRLCK);
	CHECK(s == 0 && l == 15, "merged across the threads: %lld+%lld", (long long)s, (long long)l);
	/* the locks are the table's: they outlive the proc that set them while
	 * the table lives on, and a waiter wakes when the table's last proc goes */
	uvfs_proc_destroy(t);
	CHECK_EQ(getlk(b, fd, F_RDLCK, 14, 1, NULL, NULL, NULL), F_WRLCK);
	struct waiter w = { .p = b, .fd = fd, .cmd = F_SETLKW, .type = F_RDLCK, .start = 14, .len = 1 };
	start_waiter(&w, 1);
	struct uvfs_proc *a2 = uvfs_proc_clone(a, UVFS_CLONE_FILES);
	uvfs_proc_destroy(a);
	usleep(5000);
	CHECK(!is_done(&w), "the table still has a proc");
	uvfs_proc_destroy(a2);
	join(&w);
	CHECK_EQ(w.ret, 0);
	uvfs_proc_destroy(b);
}

int main(void)
{
	vfs = uvfs_create(NULL);
	model_run();
	blocking_waits();
	wake_order();
	deadlocks();
	close_while_waiting();
	owner_mode();
	contention();
	uvfs_destroy(vfs);
	return check_done();
}
