/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pipes.c - concurrency tests for uvfs pipes and FIFOs.
 *
 *   stream      one producer, one consumer, a checksummed byte stream of
 *               random-sized writes and reads: nothing lost, duplicated or
 *               reordered;
 *   records     several producers writing records of at most PIPE_BUF
 *               bytes, several consumers: every record arrives whole (no
 *               interleaving), once, and in each producer's order;
 *   wake        blocked readers and writers (on empty and full pipes) wake
 *               when the peer acts or closes, and finish;
 *   fifo_open   a blocked O_RDONLY open of a FIFO wakes when a writer opens,
 *               and a blocked O_WRONLY open when a reader does;
 *   poll        uvfs_poll sleeping on several pipes wakes on a write, and a
 *               poll set's host eventfd becomes readable;
 *   packets     O_DIRECT packets from several writers arrive whole.
 * Every test has a time limit (an alarm ends the program as failed).  The
 * last line is "N passed, N failed".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "uvfs.h"
#include "check.h"
#include "clock.h"

static struct uvfs *fs;
static struct uvfs_proc *proc;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- stream ---- */

#define STREAM_BYTES (64ul << 20)
struct stream_arg {
	int fd;
	uint64_t seed;
	uint64_t sum;
	size_t bytes;
	int err;
};

/* byte i of the stream is a function of i alone, so the reader can check
 * each byte's value and position */
static inline unsigned char stream_byte(size_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13);
}

static void *stream_writer(void *a)
{
	struct stream_arg *s = a;
	char buf[70000];
	size_t pos = 0;
	while (pos < STREAM_BYTES) {
		size_t n = 1 + rnd(&s->seed) % (rnd(&s->seed) & 1 ? 200 : sizeof buf);
		if (n > STREAM_BYTES - pos)
			n = STREAM_BYTES - pos;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)stream_byte(pos + i);
		ssize_t r = uvfs_write(proc, s->fd, buf, n);
		if (r != (ssize_t)n) { /* a blocking write completes */
			s->err = (int)r;
			break;
		}
		pos += n;
	}
	s->bytes = pos;
	uvfs_close(proc, s->fd);
	return NULL;
}

static void *stream_reader(void *a)
{
	struct stream_arg *s = a;
	char buf[70000];
	size_t pos = 0;
	for (;;) {
		size_t n = 1 + rnd(&s->seed) % (rnd(&s->seed) & 1 ? 300 : sizeof buf);
		ssize_t r = uvfs_read(proc, s->fd, buf, n);
		if (r < 0) {
			s->err = (int)r;
			break;
		}
		if (r == 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			if ((unsigned char)buf[i] != stream_byte(pos + i)) {
				if (!s->err)
					s->err = -EILSEQ;
			}
		pos += r;
	}
	s->bytes = pos;
	return NULL;
}

static void test_stream(void)
{
	int p[2];
	CHECK(uvfs_pipe2(proc, p, 0) == 0, "pipe2");
	struct stream_arg w = { .fd = p[1], .seed = 0x1234567 }, r = { .fd = p[0], .seed = 0x7654321 };
	pthread_t tw, tr;
	double t0 = now_s();
	pthread_create(&tr, NULL, stream_reader, &r);
	pthread_create(&tw, NULL, stream_writer, &w);
	pthread_join(tw, NULL);
	pthread_join(tr, NULL);
	double dt = now_s() - t0;
	CHECK(w.err == 0, "writer error %d", w.err);
	CHECK(r.err == 0, "reader error %d (EILSEQ: a byte out of place)", r.err);
	CHECK(r.bytes == STREAM_BYTES, "read %zu of %lu", r.bytes, STREAM_BYTES);
	printf("stream: %lu MiB in %.2f s (%.0f MiB/s)\n", STREAM_BYTES >> 20, dt, (STREAM_BYTES >> 20) / dt);
	uvfs_close(proc, p[0]);
}

/* ---- records from many writers, many readers ---- */

#define NPROD 6
#define NCONS 4
#define RECORDS 10000
struct rec_hdr {
	uint32_t producer, seq, len, sum;
};

static int rec_pipe[2];
static uint32_t last_seq[NCONS][NPROD];
static long rec_count[NPROD];
static int rec_err;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t rec_sum(const unsigned char *d, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 16777619u;
	return h;
}

static void *rec_producer(void *a)
{
	uint32_t id = (uint32_t)(uintptr_t)a;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (id + 1);
	unsigned char buf[PIPE_BUF];
	for (uint32_t seq = 1; seq <= RECORDS; seq++) {
		struct rec_hdr h = { id, seq, 0, 0 };
		/* a record is at most PIPE_BUF bytes, header included */
		h.len = (uint32_t)(rnd(&seed) % (PIPE_BUF - sizeof h + 1));
		unsigned char *d = buf + sizeof h;
		for (uint32_t i = 0; i < h.len; i++)
			d[i] = (unsigned char)rnd(&seed);
		h.sum = rec_sum(d, h.len);
		memcpy(buf, &h, sizeof h);
		ssize_t r = uvfs_write(proc, rec_pipe[1], buf, sizeof h + h.len);
		if (r != (ssize_t)(sizeof h + h.len)) {
			__atomic_store_n(&rec_err, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

/* Readers take the pipe's lock-free stream apart: each read takes a header
 * and then the body.  With several readers a record could be split between
 * two of them, so a reader holds rec_lock across one record; what is tested
 * is the writers' side (records never interleave) and the wake-ups of many
 * blocked readers and writers. */
static void *rec_consumer(void *a)
{
	int me = (int)(uintptr_t)a;
	unsigned char d[PIPE_BUF];
	for (;;) {
		struct rec_hdr h;
		pthread_mutex_lock(&rec_lock);
		size_t got = 0;
		ssize_t r = 1;
		while (got < sizeof h && (r = uvfs_read(proc, rec_pipe[0], (char *)&h + got, sizeof h - got)) > 0)
			got += r;
		if (got < sizeof h) {
			pthread_mutex_unlock(&rec_lock);
			if (got)
				__atomic_store_n(&rec_err, 2, __ATOMIC_RELAXED);
			break;
		}
		if (h.producer >= NPROD || h.len > PIPE_BUF - sizeof h) {
			pthread_mutex_unlock(&rec_lock);
			__atomic_store_n(&rec_err, 3, __ATOMIC_RELAXED);
			break;
		}
		got = 0;
		while (got < h.len && (r = uvfs_read(proc, rec_pipe[0], d + got, h.len - got)) > 0)
			got += r;
		/* per-producer order, as seen through the lock */
		if (h.seq != rec_count[h.producer] + 1)
			__atomic_store_n(&rec_err, 4, __ATOMIC_RELAXED);
		rec_count[h.producer] = h.seq;
		pthread_mutex_unlock(&rec_lock);
		if (got != h.len || rec_sum(d, h.len) != h.sum) {
			__atomic_store_n(&rec_err, 5, __ATOMIC_RELAXED);
			break;
		}
		last_seq[me][h.producer] = h.seq;
	}
	return NULL;
}

static void test_records(void)
{
	CHECK(uvfs_pipe2(proc, rec_pipe, 0) == 0, "pipe2");
	memset(rec_count, 0, sizeof rec_count);
	pthread_t prod[NPROD], cons[NCONS];
	double t0 = now_s();
	for (int i = 0; i < NCONS; i++)
		pthread_create(&cons[i], NULL, rec_consumer, (void *)(uintptr_t)i);
	for (int i = 0; i < NPROD; i++)
		pthread_create(&prod[i], NULL, rec_producer, (void *)(uintptr_t)i);
	for (int i = 0; i < NPROD; i++)
		pthread_join(prod[i], NULL);
	uvfs_close(proc, rec_pipe[1]);
	for (int i = 0; i < NCONS; i++)
		pthread_join(cons[i], NULL);
	CHECK(rec_err == 0, "record error %d (2 torn header, 3 garbage header, 4 order, 5 torn body)", rec_err);
	for (int i = 0; i < NPROD; i++)
		CHECK(rec_count[i] == RECORDS, "producer %d: %ld records arrived", i, rec_count[i]);
	printf("records: %d x %d records <= PIPE_BUF, %d readers, %.2f s\n", NPROD, RECORDS, NCONS, now_s() - t0);
	uvfs_close(proc, rec_pipe[0]);
}

/* ---- packets: O_DIRECT, many writers, one reader per packet read ---- */

static int pk_pipe[2];
static void *pk_writer(void *a)
{
	uint32_t id = (uint32_t)(uintptr_t)a;
	char buf[512];
	for (uint32_t i = 1; i <= 5000; i++) {
		size_t n = 8 + (i * 37 + id) % 500;
		memset(buf, (int)id, n);
		memcpy(buf, &id, 4);
		memcpy(buf + 4, &i, 4);
		if (uvfs_write(proc, pk_pipe[1], buf, n) != (ssize_t)n)
			return (void *)1;
	}
	return NULL;
}

static void test_packets(void)
{
	CHECK(uvfs_pipe2(proc, pk_pipe, O_DIRECT) == 0, "pipe2");
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, pk_writer, (void *)(uintptr_t)(i + 1));
	uint32_t next[5] = { 0, 1, 1, 1, 1 };
	int bad = 0, n = 0;
	char buf[4096];
	while (n < 4 * 5000) {
		ssize_t r = uvfs_read(proc, pk_pipe[0], buf, sizeof buf);
		uint32_t id, seq;
		if (r < 8) {
			bad++;
			break;
		}
		memcpy(&id, buf, 4);
		memcpy(&seq, buf + 4, 4);
		if (id < 1 || id > 4 || seq != next[id] || (size_t)r != 8 + (seq * 37 + id) % 500) {
			bad++;
			break;
		}
		for (ssize_t i = 8; i < r; i++)
			if (buf[i] != (char)id)
				bad++;
		next[id]++;
		n++;
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(bad == 0 && n == 20000, "packets: %d bad, %d read", bad, n);
	uvfs_close(proc, pk_pipe[0]);
	uvfs_close(proc, pk_pipe[1]);
}

/* ---- wake-ups ---- */

struct waker {
	int fd;
	ssize_t ret;
	size_t n;
	int done;
};

static void *blocked_read(void *a)
{
	struct waker *w = a;
	char buf[100000];
	w->ret = uvfs_read(proc, w->fd, buf, w->n);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *blocked_write(void *a)
{
	struct waker *w = a;
	static char buf[200000];
	w->ret = uvfs_write(proc, w->fd, buf, w->n);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int wait_done(struct waker *w, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
			return 1;
		msleep(1);
	}
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

static void test_wake(void)
{
	int p[2];
	pthread_t t[8];
	struct waker w[8];
	char buf[65536] = { 0 };

	/* readers on an empty pipe: one write wakes one reader, more wake more */
	CHECK(uvfs_pipe2(proc, p, 0) == 0, "pipe2");
	for (int i = 0; i < 4; i++) {
		w[i] = (struct waker){ .fd = p[0], .n = 10 };
		pthread_create(&t[i], NULL, blocked_read, &w[i]);
	}
	msleep(50);
	int asleep = 0;
	for (int i = 0; i < 4; i++)
		asleep += !w[i].done;
	CHECK(asleep == 4, "%d of 4 readers stayed asleep on an empty pipe", asleep);
	CHECK(uvfs_write(proc, p[1], "abcdefghij", 10) == 10, "write");
	CHECK(uvfs_write(proc, p[1], "0123456789", 10) == 10, "write");
	int woke = 0;
	for (int ms = 0; ms < 3000 && woke < 2; ms++) {
		msleep(1);
		woke = 0;
		for (int i = 0; i < 4; i++)
			woke += __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE);
	}
	msleep(50); /* and no more than two */
	woke = 0;
	for (int i = 0; i < 4; i++)
		woke += __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE);
	CHECK(woke == 2, "two writes of 10 bytes finished %d readers of 10", woke);
	/* the close of the last writer wakes the rest with EOF */
	uvfs_close(proc, p[1]);
	for (int i = 0; i < 4; i++) {
		CHECK(wait_done(&w[i], 2000), "reader %d woke on EOF", i);
		pthread_join(t[i], NULL);
	}
	int eofs = 0, tens = 0;
	for (int i = 0; i < 4; i++) {
		eofs += w[i].ret == 0;
		tens += w[i].ret == 10;
	}
	CHECK(eofs == 2 && tens == 2, "%d EOF, %d full reads", eofs, tens);
	uvfs_close(proc, p[0]);

	/* writers on a full pipe: a read makes room for them */
	CHECK(uvfs_pipe2(proc, p, 0) == 0, "pipe2");
	CHECK(uvfs_write(proc, p[1], buf, 65536) == 65536, "fill");
	for (int i = 0; i < 3; i++) {
		w[i] = (struct waker){ .fd = p[1], .n = 4096 };
		pthread_create(&t[i], NULL, blocked_write, &w[i]);
	}
	/* and a big one that must wait for several slots */
	w[3] = (struct waker){ .fd = p[1], .n = 100000 };
	pthread_create(&t[3], NULL, blocked_write, &w[3]);
	msleep(50);
	asleep = 0;
	for (int i = 0; i < 4; i++)
		asleep += !w[i].done;
	CHECK(asleep == 4, "%d of 4 writers asleep on a full pipe", asleep);
	size_t drained = 0;
	double t0 = now_s();
	while (drained < 65536 + 3 * 4096 + 100000 && now_s() - t0 < 5) {
		ssize_t r = uvfs_read(proc, p[0], buf, sizeof buf);
		if (r <= 0)
			break;
		drained += r;
	}
	CHECK(drained == 65536 + 3 * 4096 + 100000, "drained %zu", drained);
	for (int i = 0; i < 4; i++) {
		CHECK(wait_done(&w[i], 2000), "writer %d woke", i);
		pthread_join(t[i], NULL);
		CHECK(w[i].ret == (ssize_t)w[i].n, "writer %d wrote %zd of %zu", i, w[i].ret, w[i].n);
	}
	/* a writer blocked on a full pipe gets EPIPE when the reader goes */
	CHECK(uvfs_write(proc, p[1], buf, 65536) == 65536, "fill");
	w[0] = (struct waker){ .fd = p[1], .n = 10 };
	pthread_create(&t[0], NULL, blocked_write, &w[0]);
	msleep(30);
	CHECK(!w[0].done, "writer asleep");
	uvfs_close(proc, p[0]);
	CHECK(wait_done(&w[0], 2000), "writer woke when the reader closed");
	pthread_join(t[0], NULL);
	CHECK(w[0].ret == -EPIPE, "EPIPE, got %zd", w[0].ret);
	uvfs_close(proc, p[1]);
}

/* ---- FIFO opens that wait for a partner ---- */

struct opener {
	const char *path;
	int flags;
	int fd;
	int done;
};

static void *fifo_opener(void *a)
{
	struct opener *o = a;
	o->fd = uvfs_openat(proc, AT_FDCWD, o->path, o->flags, 0);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_fifo_open(void)
{
	CHECK(uvfs_mknodat(proc, AT_FDCWD, "/fifo", S_IFIFO | 0666, 0) == 0, "mknod");
	/* a reader waits for a writer */
	struct opener r = { "/fifo", O_RDONLY, -1, 0 };
	pthread_t t, t2;
	pthread_create(&t, NULL, fifo_opener, &r);
	msleep(50);
	CHECK(!r.done, "O_RDONLY open waits for a writer");
	int w = uvfs_openat(proc, AT_FDCWD, "/fifo", O_WRONLY, 0); /* a reader is there: no wait */
	CHECK(w >= 0, "O_WRONLY open with a waiting reader: %d", w);
	pthread_join(t, NULL);
	CHECK(r.fd >= 0, "the reader's open returned %d", r.fd);
	CHECK(uvfs_write(proc, w, "fifo", 4) == 4, "write");
	char b[8];
	CHECK(uvfs_read(proc, r.fd, b, sizeof b) == 4, "read");
	uvfs_close(proc, w);
	CHECK(uvfs_read(proc, r.fd, b, sizeof b) == 0, "EOF");
	uvfs_close(proc, r.fd);

	/* a writer waits for a reader */
	struct opener wo = { "/fifo", O_WRONLY, -1, 0 };
	pthread_create(&t, NULL, fifo_opener, &wo);
	msleep(50);
	CHECK(!wo.done, "O_WRONLY open waits for a reader");
	struct opener ro = { "/fifo", O_RDONLY | O_NONBLOCK, -1, 0 };
	pthread_create(&t2, NULL, fifo_opener, &ro);
	pthread_join(t2, NULL);
	pthread_join(t, NULL);
	CHECK(ro.fd >= 0 && wo.fd >= 0, "both opened: %d %d", ro.fd, wo.fd);
	uvfs_close(proc, ro.fd);
	uvfs_close(proc, wo.fd);

	/* several readers wait; one writer's open releases all; O_RDWR opens at once */
	struct opener rs[3];
	pthread_t ts[3];
	for (int i = 0; i < 3; i++) {
		rs[i] = (struct opener){ "/fifo", O_RDONLY, -1, 0 };
		pthread_create(&ts[i], NULL, fifo_opener, &rs[i]);
	}
	msleep(50);
	int rw = uvfs_openat(proc, AT_FDCWD, "/fifo", O_RDWR, 0);
	CHECK(rw >= 0, "O_RDWR opens at once: %d", rw);
	for (int i = 0; i < 3; i++) {
		pthread_join(ts[i], NULL);
		CHECK(rs[i].fd >= 0, "reader %d opened: %d", i, rs[i].fd);
		uvfs_close(proc, rs[i].fd);
	}
	uvfs_close(proc, rw);
	uvfs_unlinkat(proc, AT_FDCWD, "/fifo", 0);
}

/* ---- poll wakes ---- */

#define BURST 20000
static void *burst_writer(void *a)
{
	struct waker *w = a;
	for (int i = 0; i < BURST; i++) {
		if (uvfs_write(proc, w->fd, "b", 1) != 1)
			break;
		if (i % 64 == 0)
			sched_yield();
	}
	return NULL;
}

struct poller {
	struct pollfd pf[3];
	int ret;
	int done;
};

static void *do_poll(void *a)
{
	struct poller *p = a;
	p->ret = uvfs_poll(proc, p->pf, 3, 5000);
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_poll(void)
{
	int a[2], b[2], c[2];
	uvfs_pipe2(proc, a, 0);
	uvfs_pipe2(proc, b, 0);
	uvfs_pipe2(proc, c, 0);
	struct poller p = { { { a[0], POLLIN, 0 }, { b[0], POLLIN, 0 }, { c[0], POLLIN, 0 } }, 0, 0 };
	pthread_t t;
	double t0 = now_s();
	pthread_create(&t, NULL, do_poll, &p);
	msleep(50);
	CHECK(!p.done, "poll waits");
	uvfs_write(proc, b[1], "x", 1);
	pthread_join(t, NULL);
	CHECK(p.ret == 1 && p.pf[1].revents == POLLIN && !p.pf[0].revents && !p.pf[2].revents,
	      "poll woke with %d, revents %x %x %x", p.ret, p.pf[0].revents, p.pf[1].revents, p.pf[2].revents);
	CHECK(now_s() - t0 < 3, "poll woke promptly");
	/* a close wakes it with POLLHUP */
	char x;
	CHECK(uvfs_read(proc, b[0], &x, 1) == 1, "read");
	p.done = 0;
	pthread_create(&t, NULL, do_poll, &p);
	msleep(30);
	uvfs_close(proc, c[1]);
	pthread_join(t, NULL);
	CHECK(p.ret == 1 && p.pf[2].revents == POLLHUP, "close: %d, revents %x", p.ret, p.pf[2].revents);
	/* a timeout */
	struct pollfd one = { a[0], POLLIN, 0 };
	t0 = now_s();
	int r = uvfs_poll(proc, &one, 1, 100);
	double dt = now_s() - t0;
	CHECK(r == 0 && dt >= 0.09 && dt < 3, "timeout: %d after %.3f s", r, dt);

	/* a poll set: the host eventfd turns readable on a write */
	struct uvfs_pollset *ps = uvfs_pollset_create(proc);
	CHECK(ps != NULL, "pollset");
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, a[0], POLLIN) == 0, "add");
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, a[0], POLLIN) == -EEXIST, "add twice");
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, 999, POLLIN) == -EBADF, "add bad fd");
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_DEL, b[0], 0) == -ENOENT, "del absent");
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, b[1], POLLOUT) == 0, "add write end");
	struct pollfd out[4];
	CHECK(uvfs_pollset_wait(ps, out, 4, 0) == 1 && out[0].fd == b[1] && out[0].revents == POLLOUT,
	      "the write end is ready");
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_DEL, b[1], 0) == 0, "del");
	CHECK(uvfs_pollset_wait(ps, out, 4, 0) == 0, "nothing ready");
	struct pollfd hp = { uvfs_pollset_hostfd(ps), POLLIN, 0 };
	CHECK(poll(&hp, 1, 0) == 0, "host fd not readable");
	uvfs_write(proc, a[1], "y", 1);
	CHECK(poll(&hp, 1, 1000) == 1, "host fd readable after a write");
	CHECK(uvfs_pollset_wait(ps, out, 4, 0) == 1 && out[0].fd == a[0] && out[0].revents == POLLIN, "ready");
	char ch;
	uvfs_read(proc, a[0], &ch, 1);
	CHECK(uvfs_pollset_wait(ps, out, 4, 0) == 0, "drained");
	CHECK(poll(&hp, 1, 0) == 0, "host fd quiet again");
	/* wait with a timeout, woken by another thread's write */
	struct waker wk = { .fd = a[1], .n = 1 };
	pthread_create(&t, NULL, blocked_write, &wk);
	CHECK(uvfs_pollset_wait(ps, out, 4, 2000) == 1, "pollset_wait woke");
	pthread_join(t, NULL);
	CHECK(uvfs_read(proc, a[0], &ch, 1) == 1, "read");
	/* an event loop on the host fd: every byte a writer thread sends is
	 * seen, none is left behind by a lost signal */
	struct waker burst = { .fd = a[1], .n = 1 };
	int got = 0, stalls = 0;
	pthread_create(&t, NULL, burst_writer, &burst);
	while (got < BURST && stalls < 3) {
		if (poll(&hp, 1, 1000) != 1) {
			stalls++;
			continue;
		}
		int n = uvfs_pollset_wait(ps, out, 4, 0);
		for (int i = 0; i < n; i++) {
			char buf[64];
			ssize_t r;
			if (out[i].fd == a[0] && (r = uvfs_read(proc, a[0], buf, sizeof buf)) > 0)
				got += (int)r;
		}
	}
	pthread_join(t, NULL);
	CHECK(got == BURST, "event loop got %d of %d bytes (%d stalls of 1 s)", got, BURST, stalls);
	uvfs_pollset_destroy(ps);
	uvfs_close(proc, a[0]);
	uvfs_close(proc, a[1]);
	uvfs_close(proc, b[0]);
	uvfs_close(proc, b[1]);
	uvfs_close(proc, c[0]);
}

/* ---- a ping-pong: many wake-ups each way ---- */

static int pp_a[2], pp_b[2];
static void *pong(void *x)
{
	char c;
	for (int i = 0; i < 20000; i++) {
		if (uvfs_read(proc, pp_a[0], &c, 1) != 1)
			return (void *)1;
		if (uvfs_write(proc, pp_b[1], &c, 1) != 1)
			return (void *)1;
	}
	return NULL;
}

static void test_pingpong(void)
{
	uvfs_pipe2(proc, pp_a, 0);
	uvfs_pipe2(proc, pp_b, 0);
	pthread_t t;
	double t0 = now_s();
	pthread_create(&t, NULL, pong, NULL);
	int ok = 1;
	for (int i = 0; i < 20000 && ok; i++) {
		char c = (char)i, d;
		ok = uvfs_write(proc, pp_a[1], &c, 1) == 1 && uvfs_read(proc, pp_b[0], &d, 1) == 1 && c == d;
	}
	void *ret;
	pthread_join(t, &ret);
	double dt = now_s() - t0;
	CHECK(ok && !ret, "ping-pong");
	printf("pingpong: 20000 round trips, %.1f us each\n", dt / 20000 * 1e6);
	uvfs_close(proc, pp_a[0]);
	uvfs_close(proc, pp_a[1]);
	uvfs_close(proc, pp_b[0]);
	uvfs_close(proc, pp_b[1]);
}

/* ---- a sleeper in single-thread mode ----
 * A fresh proc used by one thread takes no file references (fdtable.c's
 * single-thread mode).  When that thread sleeps in a pipe read, a second
 * thread that comes to the proc must not wait for it (the read left the
 * mode's section before sleeping) and can write to wake it. */
struct light_arg {
	struct uvfs_proc *p;
	int fds[2];
	int ready;
	ssize_t ret;
};

static void *light_owner(void *a)
{
	struct light_arg *l = a;
	char b[8];
	if (uvfs_pipe2(l->p, l->fds, 0) != 0)
		return NULL;
	/* a first call that does not sleep, so the table is owned by us */
	uvfs_write(l->p, l->fds[1], "a", 1);
	uvfs_read(l->p, l->fds[0], b, 1);
	__atomic_store_n(&l->ready, 1, __ATOMIC_RELEASE);
	l->ret = uvfs_read(l->p, l->fds[0], b, sizeof b); /* sleeps */
	return NULL;
}

static void test_light(void)
{
	struct light_arg l = { .p = uvfs_proc_create(fs, 0, 0) };
	pthread_t t;
	pthread_create(&t, NULL, light_owner, &l);
	while (!__atomic_load_n(&l.ready, __ATOMIC_ACQUIRE))
		msleep(1);
	msleep(50);
	double t0 = now_s();
	ssize_t w = uvfs_write(l.p, l.fds[1], "wake", 4); /* a second thread: the handshake */
	pthread_join(t, NULL);
	CHECK(w == 4 && l.ret == 4, "second thread's write %zd, the sleeper read %zd", w, l.ret);
	CHECK(now_s() - t0 < 2, "the second thread did not wait for the sleeper");
	uvfs_close(l.p, l.fds[0]);
	uvfs_close(l.p, l.fds[1]);
	uvfs_proc_destroy(l.p);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "FAIL: time limit (a thread never woke)\n0 passed, 1 failed\n";
	ssize_t r = write(1, m, sizeof m - 1);
	(void)r;
	_exit(1);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(60);
	fs = uvfs_create(NULL);
	proc = uvfs_proc_create(fs, 0, 0);
	test_stream();
	test_records();
	test_packets();
	test_wake();
	test_fifo_open();
	test_poll();
	test_pingpong();
	test_light();
	uvfs_proc_destroy(proc);
	uvfs_destroy(fs);
	return check_done();
}
