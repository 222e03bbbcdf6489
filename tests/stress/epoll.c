/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * epoll.c - concurrency tests for uvfs epoll.
 *
 *   consumers   producers write records to pipes; consumer threads share one
 *               epoll with EPOLLONESHOT items re-armed after each drain:
 *               every record arrives once, in order, and all finish at EOF;
 *   exclusive   threads sleeping in their own epoll on one pipe: a write
 *               wakes exactly one with EPOLLEXCLUSIVE, every one without;
 *   wake        a wait blocked while another thread closes the epoll fd goes
 *               on (the file lives) and reports; one blocked while the
 *               watched file is closed times out with nothing;
 *   nested      a thread sleeping on an epoll that watches another one
 *               wakes for a pipe of the inner one; uvfs_poll sleeping on an
 *               epoll fd wakes too;
 *   hostfd      the host eventfd of uvfs_epoll_hostfd is readable exactly
 *               while something is ready, for a host poll() in another
 *               thread;
 *   pwait       epoll_pwait's mask holds for the call (a signal runs its
 *               handler when the old mask comes back), and no signal ends
 *               a wait;
 *   churn       waiters, writers and a thread adding, modifying, deleting
 *               and closing watched pipes and the epoll fd itself, at once:
 *               every result is one Linux could give, nothing leaks.
 * Every test has a time limit (an alarm ends the program as failed).  The
 * last line is "N passed, N failed".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "uvfs.h"
#include "check.h"
#include "clock.h"

static struct uvfs *fs;
static struct uvfs_proc *proc;

static int ctl(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };
	return uvfs_epoll_ctl(proc, ep, op, fd, &ev);
}

/* ---- consumers ---- */

#define CONS_PIPES 4
#define CONS_THREADS 3
#define CONS_RECORDS 20000
#define STOP_DATA 1000

static struct {
	int ep, stop[2];
	int rd[CONS_PIPES], wr[CONS_PIPES];
	/* per pipe, touched only by the consumer holding its one-shot item:
	 * epoll's locks must order those consumers */
	uint32_t next[CONS_PIPES];
	int bad;
	int done; /* pipes at EOF, atomic */
	long records; /* atomic */
} cons;

static void *cons_producer(void *a)
{
	int i = (int)(intptr_t)a;
	for (uint32_t s = 0; s < CONS_RECORDS; s++) {
		uint32_t rec[2] = { (uint32_t)i, s };
		ssize_t r = uvfs_write(proc, cons.wr[i], rec, sizeof rec);
		if (r != sizeof rec) {
			__atomic_store_n(&cons.bad, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	uvfs_close(proc, cons.wr[i]);
	return NULL;
}

static void *cons_consumer(void *a)
{
	(void)a;
	uint32_t buf[512];
	for (;;) {
		struct epoll_event ev;
		int n = uvfs_epoll_wait(proc, cons.ep, &ev, 1, 10000);
		if (n != 1) {
			__atomic_store_n(&cons.bad, 2, __ATOMIC_RELAXED);
			return NULL;
		}
		if (ev.data.u64 == STOP_DATA)
			return NULL;
		int i = (int)ev.data.u64;
		bool eof = false;
		for (;;) {
			ssize_t r = uvfs_read(proc, cons.rd[i], buf, sizeof buf);
			if (r == -EAGAIN)
				break;
			if (r == 0) {
				eof = true;
				break;
			}
			if (r < 0 || r % 8) {
				__atomic_store_n(&cons.bad, 3, __ATOMIC_RELAXED);
				return NULL;
			}
			for (ssize_t k = 0; k < r / 4; k += 2) {
				if (buf[k] != (uint32_t)i || buf[k + 1] != cons.next[i])
					__atomic_store_n(&cons.bad, 4, __ATOMIC_RELAXED);
				cons.next[i]++;
			}
			__atomic_add_fetch(&cons.records, r / 8, __ATOMIC_RELAXED);
		}
		if (eof) {
			uvfs_epoll_ctl(proc, cons.ep, EPOLL_CTL_DEL, cons.rd[i], NULL);
			if (__atomic_add_fetch(&cons.done, 1, __ATOMIC_ACQ_REL) == CONS_PIPES)
				uvfs_write(proc, cons.stop[1], "s", 1);
		} else if (ctl(cons.ep, EPOLL_CTL_MOD, cons.rd[i], EPOLLIN | EPOLLONESHOT, i)) {
			__atomic_store_n(&cons.bad, 5, __ATOMIC_RELAXED);
			return NULL;
		}
	}
}

static void test_consumers(void)
{
	double t0 = now_s();
	memset(&cons, 0, sizeof cons);
	cons.ep = uvfs_epoll_create1(proc, 0);
	CHECK(cons.ep >= 0, "%d", cons.ep);
	CHECK(uvfs_pipe2(proc, cons.stop, O_NONBLOCK) == 0, "");
	/* the stop pipe level-triggered: every consumer sees it */
	CHECK(ctl(cons.ep, EPOLL_CTL_ADD, cons.stop[0], EPOLLIN, STOP_DATA) == 0, "");
	for (int i = 0; i < CONS_PIPES; i++) {
		int p[2];
		CHECK(uvfs_pipe2(proc, p, 0) == 0, "");
		cons.rd[i] = p[0];
		cons.wr[i] = p[1];
		CHECK(uvfs_fcntl(proc, p[0], F_SETFL, O_NONBLOCK) == 0, "");
		CHECK(ctl(cons.ep, EPOLL_CTL_ADD, p[0], EPOLLIN | EPOLLONESHOT, i) == 0, "");
	}
	pthread_t pt[CONS_PIPES], ct[CONS_THREADS];
	for (int i = 0; i < CONS_THREADS; i++)
		pthread_create(&ct[i], NULL, cons_consumer, NULL);
	for (int i = 0; i < CONS_PIPES; i++)
		pthread_create(&pt[i], NULL, cons_producer, (void *)(intptr_t)i);
	for (int i = 0; i < CONS_PIPES; i++)
		pthread_join(pt[i], NULL);
	for (int i = 0; i < CONS_THREADS; i++)
		pthread_join(ct[i], NULL);
	CHECK(cons.bad == 0, "error %d", cons.bad);
	CHECK(cons.records == (long)CONS_PIPES * CONS_RECORDS, "%ld records", cons.records);
	CHECK(cons.done == CONS_PIPES, "%d at EOF", cons.done);
	for (int i = 0; i < CONS_PIPES; i++) {
		CHECK(cons.next[i] == CONS_RECORDS, "pipe %d: %u", i, cons.next[i]);
		uvfs_close(proc, cons.rd[i]);
	}
	uvfs_close(proc, cons.stop[0]);
	uvfs_close(proc, cons.stop[1]);
	uvfs_close(proc, cons.ep);
	printf("consumers: %d x %d records, %d threads, one-shot, %.2f s\n", CONS_PIPES, CONS_RECORDS,
	       CONS_THREADS, now_s() - t0);
}

/* ---- exclusive ---- */

#define EXCL_THREADS 4
#define EXCL_ROUNDS 10

static struct {
	int rd, wr;
	int ep[EXCL_THREADS];
	pid_t tid[EXCL_THREADS];
	int waiting[EXCL_THREADS]; /* atomic: about to wait, or waiting */
	int woken;                 /* atomic: waits that returned an event this round */
	int round;                 /* atomic */
	int stop;                  /* atomic */
	int bad;
} ex;

static void *excl_waiter(void *a)
{
	int i = (int)(intptr_t)a;
	__atomic_store_n(&ex.tid[i], (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ex.stop, __ATOMIC_ACQUIRE)) {
		int round = __atomic_load_n(&ex.round, __ATOMIC_ACQUIRE);
		struct epoll_event ev;
		__atomic_store_n(&ex.waiting[i], 1, __ATOMIC_RELEASE);
		int n = uvfs_epoll_wait(proc, ex.ep[i], &ev, 1, 20000);
		__atomic_store_n(&ex.waiting[i], 0, __ATOMIC_RELEASE);
		if (n < 0)
			__atomic_store_n(&ex.bad, 1, __ATOMIC_RELAXED);
		if (n > 0)
			__atomic_add_fetch(&ex.woken, 1, __ATOMIC_ACQ_REL);
		/* the next wait once the main thread has drained the pipe */
		while (__atomic_load_n(&ex.round, __ATOMIC_ACQUIRE) == round &&
		       !__atomic_load_n(&ex.stop, __ATOMIC_ACQUIRE))
			msleep(1);
	}
	return NULL;
}

/* The thread is asleep (state S: in the futex of its wait). */
static bool thread_sleeping(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* Every waiter inside its wait and asleep, in three samples in a row: a
 * thread briefly asleep on a lock on its way in is running by the next. */
static bool all_asleep(void)
{
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < EXCL_THREADS; i++)
			if (!__atomic_load_n(&ex.waiting[i], __ATOMIC_ACQUIRE) || !thread_sleeping(ex.tid[i]))
				return false;
		msleep(10);
	}
	return true;
}

static void excl_run(uint32_t events, int expect, const char *name)
{
	memset(&ex, 0, sizeof ex);
	int p[2];
	CHECK(uvfs_pipe2(proc, p, O_NONBLOCK) == 0, "");
	ex.rd = p[0];
	ex.wr = p[1];
	for (int i = 0; i < EXCL_THREADS; i++) {
		ex.ep[i] = uvfs_epoll_create1(proc, 0);
		CHECK(ctl(ex.ep[i], EPOLL_CTL_ADD, ex.rd, events, i) == 0, "");
	}
	pthread_t t[EXCL_THREADS];
	for (int i = 0; i < EXCL_THREADS; i++)
		pthread_create(&t[i], NULL, excl_waiter, (void *)(intptr_t)i);
	int exact = 0;
	for (int r = 0; r < EXCL_ROUNDS; r++) {
		double t0 = now_s();
		while (!all_asleep() && now_s() - t0 < 10)
			msleep(5);
		__atomic_store_n(&ex.woken, 0, __ATOMIC_RELEASE);
		CHECK(uvfs_write(proc, ex.wr, "x", 1) == 1, "");
		t0 = now_s();
		while (__atomic_load_n(&ex.woken, __ATOMIC_ACQUIRE) < expect && now_s() - t0 < 10)
			msleep(1);
		msleep(30); /* time for a wrong extra wake-up to show */
		int w = __atomic_load_n(&ex.woken, __ATOMIC_ACQUIRE);
		exact += w == expect;
		if (w != expect)
			printf("%s round %d: %d woken, expected %d\n", name, r, w, expect);
		char c;
		CHECK(uvfs_read(proc, ex.rd, &c, 1) == 1, "");
		__atomic_add_fetch(&ex.round, 1, __ATOMIC_ACQ_REL);
	}
	CHECK(exact == EXCL_ROUNDS, "%s: %d of %d rounds woke %d", name, exact, EXCL_ROUNDS, expect);
	__atomic_store_n(&ex.stop, 1, __ATOMIC_RELEASE);
	CHECK(uvfs_write(proc, ex.wr, "x", 1) == 1, "");
	/* that write wakes one waiter of the exclusive run; the hang-up of
	 * the close wakes every one (a key-less wake-up is never exclusive) */
	uvfs_close(proc, ex.wr);
	for (int i = 0; i < EXCL_THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(ex.bad == 0, "");
	for (int i = 0; i < EXCL_THREADS; i++)
		uvfs_close(proc, ex.ep[i]);
	uvfs_close(proc, ex.rd);
}

static void test_exclusive(void)
{
	double t0 = now_s();
	excl_run(EPOLLIN | EPOLLEXCLUSIVE, 1, "exclusive");
	excl_run(EPOLLIN, EXCL_THREADS, "shared");
	printf("exclusive: %d waiters, %d rounds each way, %.2f s\n", EXCL_THREADS, EXCL_ROUNDS, now_s() - t0);
}

/* ---- wake: closes under a blocked wait ---- */

struct waitarg {
	int ep, timeout, n;
	int tid; /* the waiter's, once it runs (atomic) */
	double took;
	struct epoll_event ev;
};

static void *waiter(void *a)
{
	struct waitarg *w = a;
	double t0 = now_s();
	__atomic_store_n(&w->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	w->n = uvfs_epoll_wait(proc, w->ep, &w->ev, 1, w->timeout);
	w->took = now_s() - t0;
	return NULL;
}

/* Until the waiter sleeps (its task's state S), at most 10 s: a close
 * "under the wait" must come after the wait began, which a fixed 50 ms did
 * not ensure at load 30 (the wait found the fd closed: EBADF). */
static void wait_blocked(struct waitarg *w)
{
	double t0 = now_s();
	int tid;
	while (!(tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE)) && now_s() - t0 < 10)
		sched_yield();
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	while (now_s() - t0 < 10) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		char *e = strrchr(buf, ')');
		if (e && e[1] == ' ' && e[2] == 'S')
			break;
		msleep(1);
	}
}

static void test_wake(void)
{
	/* the epoll fd closed under the wait: the waiter's reference keeps
	 * the instance, and a write still reaches it */
	int ep = uvfs_epoll_create1(proc, 0), p[2];
	CHECK(uvfs_pipe2(proc, p, O_NONBLOCK) == 0, "");
	CHECK(ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 7) == 0, "");
	struct waitarg w = { .ep = ep, .timeout = 20000 };
	pthread_t t;
	pthread_create(&t, NULL, waiter, &w);
	wait_blocked(&w);
	CHECK(uvfs_close(proc, ep) == 0, "");
	msleep(20);
	CHECK(uvfs_write(proc, p[1], "x", 1) == 1, "");
	pthread_join(t, NULL);
	CHECK(w.n == 1 && w.ev.data.u64 == 7 && w.ev.events == EPOLLIN, "n %d events %#x", w.n, w.ev.events);
	CHECK(w.took < 10, "%.2f s", w.took);
	uvfs_close(proc, p[0]);
	uvfs_close(proc, p[1]);

	/* the watched file closed under the wait: its item goes, and the wait
	 * ends by its timeout with nothing */
	ep = uvfs_epoll_create1(proc, 0);
	CHECK(uvfs_pipe2(proc, p, O_NONBLOCK) == 0, "");
	CHECK(ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 8) == 0, "");
	w = (struct waitarg){ .ep = ep, .timeout = 300 };
	pthread_create(&t, NULL, waiter, &w);
	wait_blocked(&w);
	CHECK(uvfs_close(proc, p[0]) == 0, "");
	CHECK(uvfs_write(proc, p[1], "x", 1) == -EPIPE, "");
	pthread_join(t, NULL);
	CHECK(w.n == 0, "%d", w.n);
	CHECK(w.took >= 0.29, "%.3f s", w.took);
	CHECK(ctl(ep, EPOLL_CTL_DEL, p[1], 0, 0) == -ENOENT, "");
	uvfs_close(proc, p[1]);

	/* a watched full write end whose reader goes: EPOLLERR wakes the
	 * waiter (still full: no EPOLLOUT, as the host reports) */
	CHECK(uvfs_pipe2(proc, p, O_NONBLOCK) == 0, "");
	static char big[65536];
	CHECK(uvfs_write(proc, p[1], big, sizeof big) == (ssize_t)sizeof big, "");
	CHECK(ctl(ep, EPOLL_CTL_ADD, p[1], EPOLLOUT, 9) == 0, "");
	w = (struct waitarg){ .ep = ep, .timeout = 20000 };
	pthread_create(&t, NULL, waiter, &w);
	wait_blocked(&w);
	CHECK(uvfs_close(proc, p[0]) == 0, "");
	pthread_join(t, NULL);
	CHECK(w.n == 1 && w.ev.events == EPOLLERR, "n %d events %#x", w.n, w.ev.events);
	uvfs_close(proc, p[1]);
	uvfs_close(proc, ep);
}

/* ---- nested ---- */

struct pollarg {
	int fd, n;
	short revents;
};

static void *poller(void *a)
{
	struct pollarg *pa = a;
	struct pollfd q = { pa->fd, POLLIN, 0 };
	pa->n = uvfs_poll(proc, &q, 1, 20000);
	pa->revents = q.revents;
	return NULL;
}

static void test_nested(void)
{
	int outer = uvfs_epoll_create1(proc, 0), inner = uvfs_epoll_create1(proc, 0), p[2];
	CHECK(uvfs_pipe2(proc, p, O_NONBLOCK) == 0, "");
	CHECK(ctl(inner, EPOLL_CTL_ADD, p[0], EPOLLIN, 1) == 0, "");
	CHECK(ctl(outer, EPOLL_CTL_ADD, inner, EPOLLIN, 2) == 0, "");
	for (int r = 0; r < 20; r++) {
		struct waitarg w = { .ep = outer, .timeout = 20000 };
		struct pollarg pa = { .fd = inner };
		pthread_t t, tp;
		pthread_create(&t, NULL, waiter, &w);
		pthread_create(&tp, NULL, poller, &pa);
		msleep(r % 3 * 5);
		CHECK(uvfs_write(proc, p[1], "x", 1) == 1, "");
		pthread_join(t, NULL);
		pthread_join(tp, NULL);
		CHECK(w.n == 1 && w.ev.data.u64 == 2 && w.ev.events == EPOLLIN, "n %d", w.n);
		CHECK(pa.n == 1 && pa.revents == POLLIN, "n %d revents %#x", pa.n, pa.revents);
		struct epoll_event ev;
		CHECK(uvfs_epoll_wait(proc, inner, &ev, 1, 0) == 1 && ev.data.u64 == 1, "");
		char c;
		CHECK(uvfs_read(proc, p[0], &c, 1) == 1, "");
		CHECK(uvfs_epoll_wait(proc, outer, &ev, 1, 0) == 0, "");
	}
	uvfs_close(proc, p[0]);
	uvfs_close(proc, p[1]);
	uvfs_close(proc, inner);
	uvfs_close(proc, outer);
}

/* ---- hostfd ---- */

struct hostarg {
	int fd, n;
};

static void *host_poller(void *a)
{
	struct hostarg *h = a;
	struct pollfd q = { h->fd, POLLIN, 0 };
	h->n = poll(&q, 1, 20000);
	return NULL;
}

static int host_ready(int fd)
{
	struct pollfd q = { fd, POLLIN, 0 };
	return poll(&q, 1, 0);
}

static void test_hostfd(void)
{
	int ep = uvfs_epoll_create1(proc, 0), p[2];
	CHECK(uvfs_pipe2(proc, p, O_NONBLOCK) == 0, "");
	CHECK(uvfs_epoll_hostfd(proc, p[0]) == -EINVAL, "");
	CHECK(uvfs_epoll_hostfd(proc, 999) == -EBADF, "");
	/* ready before the host fd exists: readable from the start */
	CHECK(ctl(ep, EPOLL_CTL_ADD, p[1], EPOLLOUT | EPOLLONESHOT, 3) == 0, "");
	int hfd = uvfs_epoll_hostfd(proc, ep);
	CHECK(hfd >= 0, "%d", hfd);
	CHECK(uvfs_epoll_hostfd(proc, ep) == hfd, "");
	CHECK(host_ready(hfd) == 1, "");
	struct epoll_event ev;
	CHECK(uvfs_epoll_wait(proc, ep, &ev, 1, 0) == 1, "");
	CHECK(host_ready(hfd) == 0, "");
	CHECK(ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 4) == 0, "");
	CHECK(host_ready(hfd) == 0, "");
	for (int r = 0; r < 20; r++) {
		struct hostarg h = { .fd = hfd };
		pthread_t t;
		pthread_create(&t, NULL, host_poller, &h);
		msleep(r % 3 * 5);
		CHECK(uvfs_write(proc, p[1], "x", 1) == 1, "");
		pthread_join(t, NULL);
		CHECK(h.n == 1, "%d", h.n);
		/* level-triggered: still readable after a wait that reported */
		CHECK(uvfs_epoll_wait(proc, ep, &ev, 1, 0) == 1 && ev.data.u64 == 4, "");
		CHECK(host_ready(hfd) == 1, "");
		char c;
		CHECK(uvfs_read(proc, p[0], &c, 1) == 1, "");
		/* a wait that finds nothing ready quiets it */
		CHECK(uvfs_epoll_wait(proc, ep, &ev, 1, 0) == 0, "");
		CHECK(host_ready(hfd) == 0, "");
	}
	uvfs_close(proc, p[0]);
	uvfs_close(proc, p[1]);
	uvfs_close(proc, ep); /* closes the eventfd: LeakSanitizer and fd counts see the rest */
	CHECK(fcntl(hfd, F_GETFD) == -1, "the host fd outlived its instance");
}

/* ---- churn ---- */

#define CHURN_PIPES 8
#define CHURN_SECONDS 1.5

static struct {
	int ep;          /* the fd number waiters use; replaced under them */
	int rd[CHURN_PIPES], wr[CHURN_PIPES];
	pthread_mutex_t lock; /* the fds above */
	int stop;        /* atomic */
	int bad;         /* atomic */
	long waits, events, changes; /* atomic */
} ch;

static void *churn_waiter(void *a)
{
	(void)a;
	struct epoll_event evs[8];
	while (!__atomic_load_n(&ch.stop, __ATOMIC_ACQUIRE)) {
		int ep = __atomic_load_n(&ch.ep, __ATOMIC_ACQUIRE);
		int n = uvfs_epoll_wait(proc, ep, evs, 8, 20);
		/* the number may have been closed, or reused by any file */
		if (n < 0 && n != -EBADF && n != -EINVAL)
			__atomic_store_n(&ch.bad, n, __ATOMIC_RELAXED);
		for (int i = 0; i < n; i++)
			if (evs[i].data.u64 >= CHURN_PIPES * 2)
				__atomic_store_n(&ch.bad, 1000, __ATOMIC_RELAXED);
		__atomic_add_fetch(&ch.waits, 1, __ATOMIC_RELAXED);
		if (n > 0)
			__atomic_add_fetch(&ch.events, n, __ATOMIC_RELAXED);
		if (n > 0) {
			/* drain what we can see; the fds may be gone */
			char buf[256];
			pthread_mutex_lock(&ch.lock);
			for (int i = 0; i < n; i++) {
				int k = (int)evs[i].data.u64;
				if (k < CHURN_PIPES && ch.rd[k] >= 0)
					uvfs_read(proc, ch.rd[k], buf, sizeof buf);
			}
			pthread_mutex_unlock(&ch.lock);
		}
	}
	return NULL;
}

static void *churn_writer(void *a)
{
	uint64_t s = (uintptr_t)a * 2654435761u + 1;
	while (!__atomic_load_n(&ch.stop, __ATOMIC_ACQUIRE)) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		pthread_mutex_lock(&ch.lock);
		int fd = ch.wr[s % CHURN_PIPES];
		if (fd >= 0) {
			ssize_t r = uvfs_write(proc, fd, "w", 1);
			if (r != 1 && r != -EAGAIN && r != -EPIPE)
				__atomic_store_n(&ch.bad, (int)r, __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&ch.lock);
		sched_yield();
	}
	return NULL;
}

static void churn_new_pipe(int k)
{
	int p[2];
	if (uvfs_pipe2(proc, p, O_NONBLOCK)) {
		__atomic_store_n(&ch.bad, 2000, __ATOMIC_RELAXED);
		return;
	}
	ch.rd[k] = p[0];
	ch.wr[k] = p[1];
	int ep = ch.ep;
	static const uint32_t modes[] = { EPOLLIN, EPOLLIN | EPOLLET, EPOLLIN | EPOLLONESHOT,
					  EPOLLIN | EPOLLEXCLUSIVE };
	ctl(ep, EPOLL_CTL_ADD, p[0], modes[k % 4], k);
	ctl(ep, EPOLL_CTL_ADD, p[1], EPOLLOUT | EPOLLET, CHURN_PIPES + k);
}

static void *churn_changer(void *a)
{
	(void)a;
	uint64_t s = 88172645463325252ull;
	while (!__atomic_load_n(&ch.stop, __ATOMIC_ACQUIRE)) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		int k = (int)(s % CHURN_PIPES);
		pthread_mutex_lock(&ch.lock);
		switch ((s >> 8) % 6) {
		case 0: /* both ends closed: their items go on release */
			uvfs_close(proc, ch.rd[k]);
			uvfs_close(proc, ch.wr[k]);
			churn_new_pipe(k);
			break;
		case 1: { /* a dup survives the close of the watched fd */
			int d = uvfs_dup(proc, ch.rd[k]);
			uvfs_close(proc, ch.rd[k]);
			ch.rd[k] = d;
			break;
		}
		case 2:
			uvfs_epoll_ctl(proc, ch.ep, EPOLL_CTL_DEL, ch.rd[k], NULL);
			ctl(ch.ep, EPOLL_CTL_ADD, ch.rd[k], EPOLLIN, k);
			break;
		case 3:
			ctl(ch.ep, EPOLL_CTL_MOD, ch.rd[k], (s >> 20) & 1 ? EPOLLIN | EPOLLONESHOT : EPOLLIN, k);
			break;
		case 4: { /* a new instance under the waiters' feet */
			int nep = uvfs_epoll_create1(proc, 0);
			int old = ch.ep;
			__atomic_store_n(&ch.ep, nep, __ATOMIC_RELEASE);
			for (int i = 0; i < CHURN_PIPES; i++)
				ctl(nep, EPOLL_CTL_ADD, ch.rd[i], EPOLLIN, i);
			uvfs_close(proc, old);
			break;
		}
		case 5: /* the other end of a pipe gone */
			uvfs_close(proc, ch.wr[k]);
			ch.wr[k] = -1;
			uvfs_close(proc, ch.rd[k]);
			churn_new_pipe(k);
			break;
		}
		pthread_mutex_unlock(&ch.lock);
		__atomic_add_fetch(&ch.changes, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
	return NULL;
}

static void test_churn(void)
{
	double t0 = now_s();
	memset(&ch, 0, sizeof ch);
	pthread_mutex_init(&ch.lock, NULL);
	ch.ep = uvfs_epoll_create1(proc, 0);
	for (int k = 0; k < CHURN_PIPES; k++)
		churn_new_pipe(k);
	pthread_t w[3], wr[2], c;
	for (int i = 0; i < 3; i++)
		pthread_create(&w[i], NULL, churn_waiter, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&wr[i], NULL, churn_writer, (void *)(intptr_t)(i + 1));
	pthread_create(&c, NULL, churn_changer, NULL);
	/* the time, and then until each kind of thread has done something (a
	 * loaded machine may not have run one yet), at most a minute */
	while (now_s() - t0 < CHURN_SECONDS ||
	       ((!__atomic_load_n(&ch.waits, __ATOMIC_RELAXED) || !__atomic_load_n(&ch.events, __ATOMIC_RELAXED) ||
		 !__atomic_load_n(&ch.changes, __ATOMIC_RELAXED)) &&
		now_s() - t0 < 60))
		msleep(20);
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i], NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(wr[i], NULL);
	pthread_join(c, NULL);
	CHECK(ch.bad == 0, "error %d", ch.bad);
	CHECK(ch.waits > 0 && ch.events > 0 && ch.changes > 0, "%ld waits %ld events %ld changes", ch.waits,
	      ch.events, ch.changes);
	for (int k = 0; k < CHURN_PIPES; k++) {
		uvfs_close(proc, ch.rd[k]);
		if (ch.wr[k] >= 0)
			uvfs_close(proc, ch.wr[k]);
	}
	uvfs_close(proc, ch.ep);
	/* nothing left open: the fd table is empty again */
	int fd = uvfs_epoll_create1(proc, 0);
	CHECK(fd == 0, "lowest free fd %d", fd);
	uvfs_close(proc, fd);
	pthread_mutex_destroy(&ch.lock);
	printf("churn: %ld waits, %ld events, %ld changes, %.2f s\n", ch.waits, ch.events, ch.changes,
	       now_s() - t0);
}

/* ---- pwait's signal mask ---- */

static double sig_at; /* written by the handler, read after the join */

static void on_usr1(int sig)
{
	(void)sig;
	sig_at = now_s();
}

struct pwaitarg {
	int ep, n;
	bool masked;
	double t0, t1;
	pthread_t self;
	int ready; /* atomic */
};

static void *pwaiter(void *a)
{
	struct pwaitarg *w = a;
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	struct epoll_event ev;
	w->t0 = now_s();
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	w->n = uvfs_epoll_pwait(proc, w->ep, &ev, 1, 1000, w->masked ? &m : NULL);
	w->t1 = now_s();
	return NULL;
}

/* The mask holds for the call: a signal sent meanwhile runs its handler
 * when the call restores the old mask; without a mask it runs at once.
 * Either way the wait goes on to its timeout (no EINTR). */
static void test_pwait_mask(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	int ep = uvfs_epoll_create1(proc, 0);
	for (int masked = 0; masked < 2; masked++) {
		struct pwaitarg w = { .ep = ep, .masked = masked };
		sig_at = 0;
		pthread_t t;
		pthread_create(&t, NULL, pwaiter, &w);
		while (!__atomic_load_n(&w.ready, __ATOMIC_ACQUIRE))
			msleep(1);
		msleep(50);
		pthread_kill(t, SIGUSR1);
		pthread_join(t, NULL);
		CHECK(w.n == 0, "masked %d: %d", masked, w.n);
		CHECK(w.t1 - w.t0 >= 0.99, "masked %d: returned after %.3f s", masked, w.t1 - w.t0);
		CHECK(sig_at > 0, "masked %d: the handler never ran", masked);
		if (masked)
			CHECK(sig_at - w.t0 >= 0.99, "handler ran %.3f s into a masked wait", sig_at - w.t0);
		else
			CHECK(sig_at - w.t0 < 0.9, "handler ran %.3f s into an unmasked wait", sig_at - w.t0);
	}
	uvfs_close(proc, ep);
	signal(SIGUSR1, SIG_DFL);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: time limit\n0 passed, 1 failed\n";
	ssize_t r = write(1, msg, sizeof msg - 1);
	(void)r;
	_exit(1);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(120);
	fs = uvfs_create(NULL);
	proc = uvfs_proc_create(fs, 0, 0);
	test_consumers();
	test_exclusive();
	test_wake();
	test_nested();
	test_hostfd();
	test_pwait_mask();
	test_churn();
	uvfs_proc_destroy(proc);
	uvfs_destroy(fs);
	return check_done();
}
