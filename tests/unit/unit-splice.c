// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-splice.c - the blocking side of splice, sendfile and tee, which a
 * one-thread conformance scenario cannot reach: a call waiting on an empty
 * or full pipe wakes when the other thread writes, reads or closes, and
 * then moves what Linux's would; a writer blocked on a full pipe wakes
 * when a splice drains it.  Then two threads stream a checksummed file
 * through two pipes (file -> pipe -> pipe -> file) with splice, and the
 * copy must be exact.  An alarm fails a run that hangs.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uvfs.h>
#include "check.h"

#ifndef SPLICE_F_NONBLOCK
#define SPLICE_F_NONBLOCK 2
#endif

static struct uvfs_proc *P;

struct job {
	int kind;
	int a, b;
	size_t len;
	off_t off;
	ssize_t ret;
};
enum { SPLICE_TO_FILE, SPLICE_FROM_FILE, SPLICE_PIPES, TEE, SENDFILE, WRITE };

static char data[1 << 16];

static void *run(void *arg)
{
	struct job *j = arg;
	switch (j->kind) {
	case SPLICE_TO_FILE:
	case SPLICE_PIPES:
		j->ret = uvfs_splice(P, j->a, NULL, j->b, NULL, j->len, 0);
		break;
	case SPLICE_FROM_FILE:
		j->ret = uvfs_splice(P, j->a, &j->off, j->b, NULL, j->len, 0);
		break;
	case TEE:
		j->ret = uvfs_tee(P, j->a, j->b, j->len, 0);
		break;
	case SENDFILE:
		j->ret = uvfs_sendfile(P, j->b, j->a, &j->off, j->len);
		break;
	case WRITE:
		j->ret = uvfs_write(P, j->b, data, j->len);
		break;
	}
	return NULL;
}

static pthread_t start(struct job *j)
{
	pthread_t t;
	j->ret = -12345;
	pthread_create(&t, NULL, run, j);
	/* give it time to reach its wait; the results below do not depend on it */
	nanosleep(&(struct timespec){ 0, 30 * 1000 * 1000 }, NULL);
	return t;
}

static int mkpipe(int fds[2], int size)
{
	int r = uvfs_pipe2(P, fds, 0);
	CHECK_EQ(r, 0);
	if (size)
		CHECK_EQ(uvfs_fcntl(P, fds[1], F_SETPIPE_SZ, (unsigned long)size), size);
	return r;
}

static void blocking_calls(void)
{
	int f = uvfs_openat(P, AT_FDCWD, "/f", O_CREAT | O_RDWR | O_TRUNC, 0644);
	int src = uvfs_openat(P, AT_FDCWD, "/src", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(f >= 0 && src >= 0);
	CHECK_EQ(uvfs_write(P, src, data, 20000), 20000);
	int p[2], q[2];
	char buf[8192];

	/* pipe -> file waits for data, then takes what came */
	mkpipe(p, 0);
	struct job j = { SPLICE_TO_FILE, p[0], f, 100, 0, 0 };
	pthread_t t = start(&j);
	CHECK_EQ(uvfs_write(P, p[1], "hello", 5), 5);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 5);
	CHECK_EQ(uvfs_pread(P, f, buf, sizeof buf, 0), 5);
	CHECK(!memcmp(buf, "hello", 5));
	/* ... and sees EOF when the last writer goes */
	t = start(&j);
	CHECK_EQ(uvfs_close(P, p[1]), 0);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 0);
	uvfs_close(P, p[0]);

	/* file -> a full pipe waits for room, then fills what is free */
	mkpipe(p, 4096);
	CHECK_EQ(uvfs_write(P, p[1], data, 4096), 4096);
	j = (struct job){ SPLICE_FROM_FILE, src, p[1], 10000, 100, 0 };
	t = start(&j);
	CHECK_EQ(uvfs_read(P, p[0], buf, 4096), 4096);
	pthread_join(t, NULL);
	/* one slot: the rest of the file's first page */
	CHECK_EQ(j.ret, 4096 - 100);
	CHECK_EQ(j.off, 4096);
	CHECK_EQ(uvfs_read(P, p[0], buf, sizeof buf), 4096 - 100);
	CHECK(!memcmp(buf, data + 100, 4096 - 100));
	/* sendfile into a full pipe, woken by the reader's close: EPIPE */
	CHECK_EQ(uvfs_write(P, p[1], data, 4096), 4096);
	j = (struct job){ SENDFILE, src, p[1], 10, 0, 0 };
	t = start(&j);
	CHECK_EQ(uvfs_close(P, p[0]), 0);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, -EPIPE);
	uvfs_close(P, p[1]);

	/* pipe -> pipe waits for input, and for room in the output */
	mkpipe(p, 0);
	mkpipe(q, 4096);
	j = (struct job){ SPLICE_PIPES, p[0], q[1], 100000, 0, 0 };
	t = start(&j);
	CHECK_EQ(uvfs_write(P, p[1], data, 3000), 3000);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 3000);
	CHECK_EQ(uvfs_write(P, p[1], data, 100), 100);
	t = start(&j);
	CHECK_EQ(uvfs_read(P, q[0], buf, sizeof buf), 3000);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 100);
	CHECK_EQ(uvfs_read(P, q[0], buf, sizeof buf), 100);
	/* tee waits for input and consumes nothing */
	j = (struct job){ TEE, p[0], q[1], 100, 0, 0 };
	t = start(&j);
	CHECK_EQ(uvfs_write(P, p[1], "abc", 3), 3);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 3);
	CHECK_EQ(uvfs_read(P, p[0], buf, sizeof buf), 3);
	CHECK_EQ(uvfs_read(P, q[0], buf, sizeof buf), 3);
	CHECK(!memcmp(buf, "abc", 3));

	/* a writer blocked on a full pipe wakes when a splice drains it */
	j = (struct job){ WRITE, -1, q[1], 8192, 0, 0 };
	t = start(&j);
	CHECK_EQ(uvfs_splice(P, q[0], NULL, f, NULL, 100000, 0), 4096);
	CHECK_EQ(uvfs_splice(P, q[0], NULL, f, NULL, 100000, 0), 4096);
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 8192);
	uvfs_close(P, p[0]);
	uvfs_close(P, p[1]);
	uvfs_close(P, q[0]);
	uvfs_close(P, q[1]);
	uvfs_close(P, f);
	uvfs_close(P, src);
}

/* file -> p -> q -> file, one thread per hop */
struct hop {
	int in, out;
	off_t *off;
	ssize_t total;
};

static void *hop_run(void *arg)
{
	struct hop *h = arg;
	for (;;) {
		ssize_t n = uvfs_splice(P, h->in, h->off, h->out, NULL, 7000, 0);
		if (n <= 0) {
			if (n < 0)
				h->total = n;
			break;
		}
		h->total += n;
		if (h->off && h->off[0] >= (off_t)sizeof data * 16)
			break;
	}
	return NULL;
}

static void stream(void)
{
	int src = uvfs_openat(P, AT_FDCWD, "/s", O_CREAT | O_RDWR | O_TRUNC, 0644);
	int dst = uvfs_openat(P, AT_FDCWD, "/d", O_CREAT | O_RDWR | O_TRUNC, 0644);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(uvfs_write(P, src, data, sizeof data), (long)sizeof data);
	int p[2], q[2];
	mkpipe(p, 0);
	mkpipe(q, 8192);
	off_t off = 0;
	struct hop h1 = { src, p[1], &off, 0 }, h2 = { p[0], q[1], NULL, 0 }, h3 = { q[0], dst, NULL, 0 };
	pthread_t t1, t2, t3;
	pthread_create(&t2, NULL, hop_run, &h2);
	pthread_create(&t3, NULL, hop_run, &h3);
	pthread_create(&t1, NULL, hop_run, &h1);
	pthread_join(t1, NULL);
	uvfs_close(P, p[1]);
	pthread_join(t2, NULL);
	uvfs_close(P, q[1]);
	pthread_join(t3, NULL);
	CHECK_EQ(h1.total, (long)sizeof data * 16);
	CHECK_EQ(h2.total, (long)sizeof data * 16);
	CHECK_EQ(h3.total, (long)sizeof data * 16);
	static char back[sizeof data];
	int same = 1;
	for (int i = 0; i < 16; i++) {
		CHECK_EQ(uvfs_pread(P, dst, back, sizeof back, (off_t)i * (off_t)sizeof back), (long)sizeof back);
		same &= !memcmp(back, data, sizeof back);
	}
	CHECK(same, "the copy differs");
	uvfs_close(P, p[0]);
	uvfs_close(P, q[0]);
	uvfs_close(P, src);
	uvfs_close(P, dst);
}

int main(void)
{
	alarm(120);
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)(i * 131 + i / 4096);
	struct uvfs *fs = uvfs_create(NULL);
	P = uvfs_proc_create(fs, 0, 0);
	blocking_calls();
	stream();
	uvfs_proc_destroy(P);
	uvfs_destroy(fs);
	return check_done();
}
