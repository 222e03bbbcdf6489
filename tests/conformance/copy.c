/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * copy.c - scenarios for copy_file_range, sendfile, splice and tee: the
 * errors in Linux's order, lengths clipped at the end, offsets advanced or
 * positions moved, overlapping ranges, two superblocks, pipes filled and
 * drained buffer by buffer (what a later write can still merge), tee
 * consuming nothing, and the inotify events.
 *
 * Only calls that cannot wait: pipes are given data or room first, or the
 * call is non-blocking (a scenario is one thread).
 */
#include "conf.h"
#include "events.h"
#include <sys/inotify.h>
#include <sys/ioctl.h>

#define copy_file_range(a, oa, b, ob, n, f) B->copy_file_range(BX, a, oa, b, ob, n, f)
#define sendfile(o, i, off, n) B->sendfile(BX, o, i, off, n)
#define splice(a, oa, b, ob, n, f) B->splice(BX, a, oa, b, ob, n, f)
#define tee(a, b, n, f) B->tee(BX, a, b, n, f)
#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define ioctl(fd, r, a) B->ioctl(BX, fd, r, a)
#define IINIT(f) B->inotify_init1(BX, f)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)

#ifndef SPLICE_F_NONBLOCK
#define SPLICE_F_MOVE 1
#define SPLICE_F_NONBLOCK 2
#define SPLICE_F_MORE 4
#define SPLICE_F_GIFT 8
#endif
#define NB SPLICE_F_NONBLOCK

static char big[1 << 17];

static int nread(int fd)
{
	int n = -1;
	int r = ioctl(fd, FIONREAD, &n);
	return r < 0 ? r : n;
}

static void copy_range_errors(void)
{
	C(mkfile("/a", "0123456789"));
	C(mkfile("/b", ""));
	C(MKDIR("/d", 0755));
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/x", "x"));
	int a = F(OPEN("/a", O_RDWR)), b = F(OPEN("/b", O_RDWR));
	int ro = F(OPEN("/a", O_RDONLY)), wo = F(OPEN("/b", O_WRONLY)), ap = F(OPEN("/b", O_WRONLY | O_APPEND));
	int x = F(OPEN("/m/x", O_RDWR)), d = F(OPEN("/d", O_RDONLY)), pa = F(OPEN("/a", O_PATH));
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	off_t neg = -1, big_off = LLONG_MAX - 1, oi = 0, oo = 0;
	C(copy_file_range(a, NULL, b, NULL, 3, 1));
	C(copy_file_range(99, NULL, b, NULL, 3, 1));
	C(copy_file_range(a, NULL, 99, NULL, 3, 1));
	C(copy_file_range(pa, NULL, b, NULL, 3, 0));
	C(copy_file_range(a, NULL, pa, NULL, 3, 0));
	C(copy_file_range(a, NULL, b, NULL, 3, ~0u));
	C(copy_file_range(a, NULL, x, NULL, 3, 0));
	C(copy_file_range(a, NULL, x, NULL, 0, 0));
	C(copy_file_range(x, NULL, a, NULL, 3, 0));
	C(copy_file_range(d, NULL, x, NULL, 3, 0));
	C(copy_file_range(d, NULL, b, NULL, 3, 0));
	C(copy_file_range(a, NULL, d, NULL, 3, 0));
	C(copy_file_range(p[0], NULL, b, NULL, 3, 0));
	C(copy_file_range(a, NULL, p[1], NULL, 3, 0));
	C(copy_file_range(p[0], NULL, d, NULL, 3, 0));
	C(copy_file_range(wo, NULL, b, NULL, 3, 0));
	C(copy_file_range(a, NULL, ro, NULL, 3, 0));
	C(copy_file_range(a, NULL, ap, NULL, 3, 0));
	C(copy_file_range(wo, NULL, x, NULL, 3, 0));
	C(copy_file_range(a, &neg, b, NULL, 3, 0));
	C(copy_file_range(a, NULL, b, &neg, 3, 0));
	neg = -5;
	C(copy_file_range(a, &neg, b, NULL, 3, 0));
	C(copy_file_range(a, NULL, b, &neg, 3, 0));
	C(copy_file_range(a, NULL, b, &big_off, 3, 0));
	C(big_off);
	oi = 0;
	C(copy_file_range(a, &oi, b, &big_off, 3, 0));
	C(big_off);
	oo = LLONG_MAX;
	C(copy_file_range(a, &oi, b, &oo, 3, 0));
	big_off = LLONG_MAX - 1;
	C(copy_file_range(a, &big_off, b, NULL, 3, 0));
	oo = 0;
	C(copy_file_range(a, &oi, b, &oo, 0, 0));
	C(copy_file_range(a, &oi, ro, &oo, 0, 0));
	C(copy_file_range(d, &oi, ro, &oo, 0, 0));
	C(copy_file_range(a, &oi, b, &oo, 0, 3));
	C(copy_file_range(a, &oi, b, &oo, (size_t)-1, 0));
	C(oi);
	C(oo);
	SIZEOF("/b");
	cl(a); cl(b); cl(ro); cl(wo); cl(ap); cl(x); cl(d); cl(pa); cl(p[0]); cl(p[1]);
	C(umount2("/m", 0));
}

static void copy_range_data(void)
{
	C(mkfile("/a", "0123456789"));
	C(mkfile("/b", ""));
	int a = F(OPEN("/a", O_RDWR)), b = F(OPEN("/b", O_RDWR));
	off_t oi = 2, oo = 0;
	C(copy_file_range(a, &oi, b, &oo, 100, 0));
	C(oi);
	C(oo);
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(b, 0, SEEK_CUR));
	CAT("/b");
	C(copy_file_range(a, NULL, b, NULL, 4, 0));
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(b, 0, SEEK_CUR));
	C(lseek(a, 3, SEEK_SET));
	C(copy_file_range(a, NULL, b, NULL, 4, 0));
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(b, 0, SEEK_CUR));
	CAT("/b");
	C(lseek(a, 100, SEEK_SET));
	C(copy_file_range(a, NULL, b, NULL, 4, 0));
	C(lseek(a, 0, SEEK_CUR));
	/* a hole in the destination, past its end */
	oi = 0;
	oo = 10000;
	C(copy_file_range(a, &oi, b, &oo, 10, 0));
	SIZEOF("/b");
	BLOCKSOF("/b");
	/* the same file: overlapping ranges are refused */
	static const off_t pairs[][3] = {
		{ 0, 5, 5 }, { 0, 5, 6 }, { 0, 4, 5 }, { 5, 0, 100 }, { 4, 0, 100 }, { 0, 20, 100 },
		{ 3, 3, 1 }, { 9, 0, 1 }, { 0, 9, 2 }, { 0, 10, 100 }, { 100, 0, 5 },
	};
	for (unsigned i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		oi = pairs[i][0];
		oo = pairs[i][1];
		note("in %ld out %ld len %ld", (long)oi, (long)oo, (long)pairs[i][2]);
		C(copy_file_range(a, &oi, a, &oo, (size_t)pairs[i][2], 0));
		C(oi);
		C(oo);
		CAT("/a");
	}
	/* through two fds of one file, with the positions */
	int a2 = F(OPEN("/a", O_RDWR));
	C(lseek(a2, 40, SEEK_SET));
	C(lseek(a, 0, SEEK_SET));
	C(copy_file_range(a, NULL, a2, NULL, 8, 0));
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(a2, 0, SEEK_CUR));
	CAT("/a");
	/* a large copy, page-crossing */
	int c = F(OPEN("/c", O_RDWR | O_CREAT));
	for (unsigned i = 0; i < sizeof big; i++)
		big[i] = (char)(i * 7 + i / 4096);
	C(write(c, big, sizeof big));
	int e = F(OPEN("/e", O_RDWR | O_CREAT));
	oi = 1000;
	oo = 3;
	C(copy_file_range(c, &oi, e, &oo, 100000, 0));
	C(oi);
	C(oo);
	static char back[1 << 17];
	C(pread(e, back, sizeof back, 0));
	C(memcmp(back + 3, big + 1000, 100000));
	C(back[0] | back[1] | back[2]);
	cl(a); cl(a2); cl(b); cl(c); cl(e);
}

static void sendfile_calls(void)
{
	C(mkfile("/a", "0123456789abcdefghij"));
	C(mkfile("/b", ""));
	C(MKDIR("/d", 0755));
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/x", ""));
	int a = F(OPEN("/a", O_RDWR)), b = F(OPEN("/b", O_RDWR));
	int ro = F(OPEN("/a", O_RDONLY)), wo = F(OPEN("/b", O_WRONLY)), ap = F(OPEN("/b", O_WRONLY | O_APPEND));
	int x = F(OPEN("/m/x", O_RDWR)), d = F(OPEN("/d", O_RDONLY)), pa = F(OPEN("/a", O_PATH));
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	off_t oi = 0, neg = -1;
	C(sendfile(b, a, NULL, 3));
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(b, 0, SEEK_CUR));
	C(sendfile(p[1], a, NULL, 3));
	C(nread(p[0]));
	C(sendfile(b, p[0], NULL, 3));
	C(sendfile(b, p[0], &oi, 3));
	C(sendfile(p[1], a, &neg, 3));
	C(sendfile(b, a, &neg, 0));
	C(sendfile(ro, a, NULL, 3));
	C(sendfile(ap, a, NULL, 3));
	C(sendfile(b, wo, NULL, 3));
	C(sendfile(b, d, NULL, 3));
	C(sendfile(d, a, NULL, 3));
	C(sendfile(x, a, NULL, 3));
	C(sendfile(b, a, NULL, 0));
	C(sendfile(99, a, NULL, 0));
	C(sendfile(b, 99, NULL, 0));
	C(sendfile(ro, pa, NULL, 0));
	C(sendfile(pa, a, NULL, 0));
	C(sendfile(p[0], a, NULL, 3));
	oi = LLONG_MAX;
	C(sendfile(b, a, &oi, 3));
	oi = LLONG_MAX - 1;
	C(sendfile(b, a, &oi, 3));
	oi = 8;
	C(sendfile(b, a, &oi, 100));
	C(oi);
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(b, 0, SEEK_CUR));
	CAT("/b");
	CAT("/m/x");
	oi = 1000;
	C(sendfile(b, a, &oi, 100));
	C(oi);
	/* into a full pipe: EAGAIN (the pipe is O_NONBLOCK) */
	C(fcntl(p[1], F_SETPIPE_SZ, 4096));
	C(sendfile(p[1], a, NULL, 3));
	C(nread(p[0]));
	cl(p[0]);
	C(sendfile(p[1], a, NULL, 3));
	cl(a); cl(b); cl(ro); cl(wo); cl(ap); cl(x); cl(d); cl(pa); cl(p[1]);
	C(umount2("/m", 0));
}

static void splice_errors(void)
{
	C(mkfile("/a", "0123456789"));
	C(mkfile("/b", ""));
	C(MKDIR("/d", 0755));
	int a = F(OPEN("/a", O_RDWR)), b = F(OPEN("/b", O_RDWR));
	int ro = F(OPEN("/a", O_RDONLY)), wo = F(OPEN("/b", O_WRONLY)), ap = F(OPEN("/b", O_WRONLY | O_APPEND));
	int d = F(OPEN("/d", O_RDONLY)), pa = F(OPEN("/a", O_PATH));
	int p[2] = { -1, -1 }, q[2] = { -1, -1 };
	C(pipe2(p, 0));
	C(pipe2(q, 0));
	off_t oi = 0, oo = 0, neg = -1;
	C(splice(a, NULL, b, NULL, 3, 0));
	C(splice(p[0], NULL, p[1], NULL, 3, NB));
	C(splice(a, NULL, p[1], &oo, 3, 0));
	C(splice(p[0], &oi, b, NULL, 3, 0));
	C(splice(p[0], &oi, q[1], &oo, 3, 0));
	C(splice(a, &neg, p[1], NULL, 3, 0));
	C(splice(p[0], NULL, b, NULL, 3, NB));
	C(splice(p[0], NULL, b, NULL, 0, 0));
	C(splice(p[0], NULL, b, NULL, 0, 0x100));
	C(splice(99, NULL, b, NULL, 0, 0));
	C(splice(p[0], NULL, b, NULL, 3, 0x100));
	C(splice(p[0], NULL, b, NULL, 3, 0x10));
	C(splice(p[0], NULL, p[0], NULL, 3, 0));
	C(splice(p[1], NULL, b, NULL, 3, 0));
	C(splice(a, NULL, p[0], NULL, 3, 0));
	C(splice(wo, NULL, p[1], NULL, 3, 0));
	C(splice(p[0], NULL, ro, NULL, 3, NB));
	C(splice(p[0], NULL, ap, NULL, 3, NB));
	C(splice(p[0], NULL, b, &neg, 3, NB));
	C(splice(p[0], NULL, d, NULL, 3, NB));
	C(splice(d, NULL, p[1], NULL, 3, 0));
	C(splice(pa, NULL, p[1], NULL, 3, 0));
	C(splice(99, NULL, p[1], NULL, 3, 0));
	C(splice(a, NULL, 99, NULL, 3, 0));
	C(splice(q[0], NULL, p[1], NULL, 3, NB));
	C(splice(q[0], NULL, p[0], NULL, 3, NB));
	/* tee */
	C(tee(p[0], q[1], 3, NB));
	C(tee(a, q[1], 3, 0));
	C(tee(p[0], b, 3, 0));
	C(tee(p[0], p[1], 3, 0));
	C(tee(p[0], q[1], 3, 0x100));
	C(tee(p[0], q[1], 0, 0x100));
	C(tee(p[0], q[1], 0, 0));
	C(tee(99, q[1], 0, 0));
	C(tee(99, q[1], 3, 0));
	C(tee(p[0], 99, 3, 0));
	C(tee(p[1], q[1], 3, 0));
	C(tee(p[0], q[0], 3, 0));
	C(tee(pa, q[1], 3, 0));
	/* no writer left: 0, not EAGAIN */
	cl(p[1]);
	C(tee(p[0], q[1], 3, NB));
	C(tee(p[0], q[1], 3, 0));
	C(splice(p[0], NULL, q[1], NULL, 3, NB));
	C(splice(p[0], NULL, q[1], NULL, 3, 0));
	C(splice(p[0], NULL, b, NULL, 3, 0));
	/* no reader left: EPIPE */
	cl(q[0]);
	C(splice(a, NULL, q[1], NULL, 3, 0));
	C(sendfile(q[1], a, NULL, 3));
	C(mkfile("/c", "x"));
	int r[2] = { -1, -1 };
	C(pipe2(r, 0));
	C(write(r[1], "abc", 3));
	C(splice(r[0], NULL, q[1], NULL, 3, 0));
	C(tee(r[0], q[1], 3, 0));
	C(nread(r[0]));
	cl(a); cl(b); cl(ro); cl(wo); cl(ap); cl(d); cl(pa); cl(p[0]); cl(q[1]); cl(r[0]); cl(r[1]);
}

static void splice_data(void)
{
	for (unsigned i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + i % 26);
	C(mkfile("/b", ""));
	int a = F(OPEN("/a", O_RDWR | O_CREAT)), b = F(OPEN("/b", O_RDWR));
	C(write(a, big, 20000));
	int p[2] = { -1, -1 }, q[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	C(pipe2(q, O_NONBLOCK));
	off_t oi = 2, oo = 50;
	C(lseek(a, 0, SEEK_SET));
	C(splice(a, &oi, p[1], NULL, 5, 0));
	C(oi);
	C(lseek(a, 0, SEEK_CUR));
	C(splice(a, NULL, p[1], NULL, 5, 0));
	C(lseek(a, 0, SEEK_CUR));
	C(nread(p[0]));
	C(splice(p[0], NULL, b, &oo, 3, 0));
	C(oo);
	C(lseek(b, 0, SEEK_CUR));
	C(splice(p[0], NULL, b, NULL, 100, 0));
	C(lseek(b, 0, SEEK_CUR));
	CAT("/b");
	C(splice(p[0], NULL, b, NULL, 100, 0));
	/* a spliced buffer takes no merges: small writes after it take slots */
	oi = 0;
	C(splice(a, &oi, p[1], NULL, 100, 0));
	long n = 0, w;
	while ((w = write(p[1], "x", 1)) == 1 && n < 100000)
		n++;
	C(w);
	C(n);
	C(nread(p[0]));
	char tmp[70000];
	C(read(p[0], tmp, sizeof tmp));
	/* a file read in pieces that end at its page boundaries: 16 slots
	 * from offset 100 hold less than 65536 */
	oi = 100;
	C(splice(a, &oi, p[1], NULL, 200000, 0));
	C(oi);
	C(nread(p[0]));
	C(splice(a, &oi, p[1], NULL, 10, 0));
	C(splice(a, &oi, p[1], NULL, 10, NB));
	/* pipe to pipe: whole buffers move, part of one is copied */
	C(splice(p[0], NULL, q[1], NULL, 5000, 0));
	C(nread(p[0]));
	C(nread(q[0]));
	C(splice(p[0], NULL, q[1], NULL, 1000000, 0));
	C(nread(p[0]));
	C(nread(q[0]));
	C(read(q[0], tmp, 10));
	C(memcmp(tmp, big + 100, 10));
	C(read(q[0], tmp, sizeof tmp));
	C(read(p[0], tmp, sizeof tmp));
	/* a plain write's buffer moved whole still takes merges */
	C(write(p[1], "hello", 5));
	C(splice(p[0], NULL, q[1], NULL, 5, 0));
	C(write(q[1], "world", 5));
	C(nread(q[0]));
	C(fcntl(q[1], F_SETPIPE_SZ, 4096));
	C(write(q[1], "!", 1));
	C(read(q[0], tmp, sizeof tmp));
	C(memcmp(tmp, "helloworld!", 11));
	/* more than the output can take moves what fits */
	C(fcntl(q[1], F_SETPIPE_SZ, 8192));
	C(write(p[1], big, 3 * 4096));
	C(splice(p[0], NULL, q[1], NULL, 3 * 4096, 0));
	C(splice(p[0], NULL, q[1], NULL, 3 * 4096, 0));
	C(nread(p[0]));
	C(nread(q[0]));
	/* into a file from a pipe holding several buffers */
	C(read(q[0], tmp, sizeof tmp));
	C(write(p[1], "abc", 3));
	C(write(p[1], big, 5000));
	C(ftruncate(b, 0));
	C(splice(p[0], NULL, b, NULL, 4000, 0));
	C(splice(p[0], NULL, b, NULL, 4000, 0));
	C(nread(p[0]));
	SIZEOF("/b");
	cl(a); cl(b); cl(p[0]); cl(p[1]); cl(q[0]); cl(q[1]);
}

static void tee_data(void)
{
	int p[2] = { -1, -1 }, q[2] = { -1, -1 }, r[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	C(pipe2(q, O_NONBLOCK));
	C(pipe2(r, 0));
	char tmp[70000];
	C(write(p[1], "hello", 5));
	C(write(p[1], big, 5000));
	C(tee(p[0], q[1], 3, 0));
	C(tee(p[0], q[1], 10, 0));
	C(tee(p[0], q[1], 100000, 0));
	C(nread(p[0]));
	C(nread(q[0]));
	/* tee's buffers take no merges */
	C(write(q[1], "x", 1));
	C(fcntl(q[1], F_GETPIPE_SZ, 0));
	C(nread(q[0]));
	C(read(q[0], tmp, 13));
	C(memcmp(tmp, "hellohellohel", 13));
	/* a full output: as much as fits, then EAGAIN */
	C(read(q[0], tmp, sizeof tmp));
	C(fcntl(r[1], F_SETPIPE_SZ, 4096));
	C(tee(p[0], r[1], 100000, 0));
	C(tee(p[0], r[1], 100000, 0));
	C(tee(p[0], r[1], 100000, NB));
	C(nread(r[0]));
	C(read(p[0], tmp, sizeof tmp));
	/* an empty input with a blocking output fd but a non-blocking input */
	C(tee(p[0], q[1], 10, 0));
	cl(p[0]); cl(p[1]); cl(q[0]); cl(q[1]); cl(r[0]); cl(r[1]);
}

/* A FIFO is a pipe for splice and tee; its own inode has watchers. */
static void copy_fifo_and_events(void)
{
	C(mkfile("/a", "0123456789"));
	C(mkfile("/b", ""));
	C(MKNOD("/fifo", S_IFIFO | 0644, 0));
	int in = F(IINIT(IN_NONBLOCK));
	C(IADD(in, "/a", IN_ALL_EVENTS));
	C(IADD(in, "/b", IN_ALL_EVENTS));
	C(IADD(in, "/fifo", IN_ALL_EVENTS));
	int a = F(OPEN("/a", O_RDWR)), b = F(OPEN("/b", O_RDWR));
	int f = F(OPEN("/fifo", O_RDWR | O_NONBLOCK));
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	EV(in);
	off_t oi = 0;
	C(copy_file_range(a, NULL, b, NULL, 3, 0));
	EV(in);
	C(copy_file_range(a, &oi, b, NULL, 3, 0));
	EV(in);
	C(copy_file_range(a, NULL, b, NULL, 0, 0));
	oi = 1000;
	C(copy_file_range(a, &oi, b, NULL, 3, 0));
	C(copy_file_range(a, &oi, b, NULL, 3, 1));
	EV(in);
	oi = 0;
	C(sendfile(b, a, &oi, 3));
	EV(in);
	oi = 1000;
	C(sendfile(b, a, &oi, 3));
	EV(in);
	oi = 0;
	C(sendfile(f, a, &oi, 4));
	EV(in);
	C(splice(f, NULL, b, NULL, 2, 0));
	EV(in);
	C(splice(f, NULL, p[1], NULL, 1, 0));
	EV(in);
	C(tee(p[0], f, 1, 0));
	EV(in);
	C(splice(p[0], NULL, f, NULL, 1, 0));
	EV(in);
	C(splice(f, NULL, b, NULL, 10, 0));
	EV(in);
	C(splice(f, NULL, b, NULL, 10, 0));
	EV(in);
	oi = 1000;
	C(splice(a, &oi, p[1], NULL, 3, 0));
	EV(in);
	oi = 0;
	C(splice(a, &oi, p[1], NULL, 3, 0));
	EV(in);
	C(splice(p[0], NULL, b, NULL, 3, 0));
	EV(in);
	CAT("/b");
	/* times */
	AGE("/b");
	AGE("/a");
	oi = 0;
	C(copy_file_range(a, &oi, b, NULL, 3, 0));
	TS("/a");
	TS("/b");
	/* a caller that is not root loses set-id bits on the destination */
	C(CHMOD("/b", 06777));
	C(setcred(1000, 1000));
	oi = 0;
	C(copy_file_range(a, &oi, b, NULL, 3, 0));
	STAT("/b");
	C(setcred(0, 0));
	C(CHMOD("/b", 06777));
	C(setcred(1000, 1000));
	C(write(p[1], "z", 1));
	C(splice(p[0], NULL, b, NULL, 1, 0));
	STAT("/b");
	C(setcred(0, 0));
	EV(in);
	cl(a); cl(b); cl(f); cl(p[0]); cl(p[1]); cl(in);
}

/* Into a full filesystem: the copy stops short, or fails with ENOSPC. */
static void copy_nospace(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, "size=16k"));
	int a = F(OPEN("/a", O_RDWR | O_CREAT));
	C(write(a, big, 30000));
	int b = F(OPEN("/m/b", O_RDWR | O_CREAT));
	int c = F(OPEN("/m/c", O_RDWR | O_CREAT));
	off_t oi = 100, oo = 0;
	C(copy_file_range(a, &oi, b, &oo, 30000, 0));
	C(oi);
	C(oo);
	C(copy_file_range(a, &oi, b, &oo, 30000, 0));
	C(oi);
	C(oo);
	oi = 0;
	C(sendfile(c, a, &oi, 100));
	C(oi);
	C(lseek(c, 0, SEEK_CUR));
	C(ftruncate(b, 4096));
	oi = 0;
	C(sendfile(c, a, &oi, 30000));
	C(oi);
	C(lseek(c, 0, SEEK_CUR));
	BLOCKSOF("/m/b");
	BLOCKSOF("/m/c");
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	C(write(p[1], big, 9000));
	C(ftruncate(c, 0));
	C(ftruncate(b, 0));
	C(splice(p[0], NULL, b, NULL, 9000, 0));
	C(nread(p[0]));
	C(splice(p[0], NULL, c, NULL, 9000, 0));
	C(nread(p[0]));
	C(splice(p[0], NULL, c, NULL, 9000, 0));
	C(nread(p[0]));
	C(lseek(c, 0, SEEK_CUR));
	cl(a); cl(b); cl(c); cl(p[0]); cl(p[1]);
	C(umount2("/m", 0));
}

const struct scenario copy_scenarios[] = {
	{ "copy_nospace", copy_nospace },
	{ "copy_range_errors", copy_range_errors },
	{ "copy_range_data", copy_range_data },
	{ "sendfile_calls", sendfile_calls },
	{ "splice_errors", splice_errors },
	{ "splice_data", splice_data },
	{ "tee_data", tee_data },
	{ "copy_fifo_and_events", copy_fifo_and_events },
	{ NULL, NULL },
};
