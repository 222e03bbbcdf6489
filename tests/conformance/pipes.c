/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pipes.c - scenarios for pipes, FIFOs, FIONREAD and poll.
 *
 * Only non-blocking forms here: a scenario is one thread, and a blocking
 * read or open would wait forever on either backend.  The blocking paths
 * (wake-ups, partners in FIFO opens) are exercised by tests/stress/pipes.c.
 * Fd numbers are recorded with F() only; pipe2's two fds are checked as
 * "the lowest free, in order" relations.
 */
#include "conf.h"
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>

#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define ioctl(fd, r, a) B->ioctl(BX, fd, r, a)
#define poll(p, n, t) B->poll(BX, p, n, t)

#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032
#endif

static char big[1 << 17];

/* pipe2 with the result and both fds recorded as relations */
static int mkpipe(int fds[2], int flags)
{
	int r = (int)C(pipe2(fds, flags));
	if (r == 0) {
		C(fds[1] == fds[0] + 1);
		C(fds[0] >= 0);
	}
	return r;
}

/* writes of n bytes until the pipe says no; returns bytes written, records
 * the count and the error that stopped it */
static long fill(int w, size_t n)
{
	long total = 0, r;
	int writes = 0;
	while ((r = write(w, big, n)) > 0 && writes < 100000) {
		total += r;
		writes++;
	}
	C(r);
	C(writes);
	C(total);
	return total;
}

static long drain(int r)
{
	char b[4096];
	long total = 0, n;
	while ((n = read(r, b, sizeof b)) > 0)
		total += n;
	C(n);
	C(total);
	return total;
}

static int nread(int fd)
{
	int v = -12345;
	int r = ioctl(fd, FIONREAD, &v);
	return r < 0 ? r : v;
}

/* ---- capacity ---- */

static void pipe_capacity_bytes(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	fill(p[1], 1);
	C(nread(p[0]));
	drain(p[0]);
	C(nread(p[0]));
	/* the ring is free again: the same again */
	fill(p[1], 1);
	cl(p[0]);
	cl(p[1]);
}

static void pipe_capacity_sizes(void)
{
	static const size_t sizes[] = { 100, 1000, 4095, 4096, 4097, 5000, 8192, 20000, 65536, 70000 };
	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		int p[2];
		note("write size %zu", sizes[i]);
		mkpipe(p, O_NONBLOCK);
		fill(p[1], sizes[i]);
		C(nread(p[0]));
		drain(p[0]);
		cl(p[0]);
		cl(p[1]);
	}
}

/* a small write after a big one, a big one after a small one: merging */
static void pipe_merge(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	C(write(p[1], big, 10));
	C(write(p[1], big, 5000)); /* 904 bytes go into the first buffer */
	C(nread(p[0]));
	fill(p[1], 4096);
	C(write(p[1], big, 1));
	C(nread(p[0]));
	char b[64];
	C(read(p[0], b, 20));
	C(nread(p[0]));
	C(write(p[1], big, 20));
	drain(p[0]);
	cl(p[0]);
	cl(p[1]);
}

/* ---- atomicity ---- */

static void pipe_atomic(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	/* 15 full slots and 4000 bytes in the 16th: 96 bytes of room */
	for (int i = 0; i < 15; i++)
		C(write(p[1], big, 4096));
	C(write(p[1], big, 4000));
	C(write(p[1], big, 97));   /* does not fit whole: nothing */
	C(write(p[1], big, 4096)); /* PIPE_BUF: nothing */
	C(write(p[1], big, 96));   /* fits exactly */
	C(write(p[1], big, 1));
	C(write(p[1], big, 10000)); /* larger than PIPE_BUF: partial allowed, none fits */
	C(nread(p[0]));
	char b[4096];
	C(read(p[0], b, 4096)); /* one slot free */
	C(write(p[1], big, 5000)); /* non-atomic: part */
	C(nread(p[0]));
	C(read(p[0], b, 100));
	C(write(p[1], big, 100)); /* no free slot, the last buffer full */
	cl(p[0]);
	cl(p[1]);
}

static void pipe_writev_atomic(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	for (int i = 0; i < 15; i++)
		C(write(p[1], big, 4096));
	C(write(p[1], big, 4000));
	struct iovec v[3] = { { big, 50 }, { big, 40 }, { big, 10 } };
	C(writev(p[1], v, 3)); /* 100 > 96: all or nothing */
	v[2].iov_len = 6;
	C(writev(p[1], v, 3)); /* 96: fits */
	C(nread(p[0]));
	char a[10], b2[10];
	struct iovec r[2] = { { a, 10 }, { b2, 10 } };
	C(readv(p[0], r, 2));
	C(nread(p[0]));
	cl(p[0]);
	cl(p[1]);
}

/* ---- EOF, EPIPE, EAGAIN ---- */

static void pipe_eof(void)
{
	int p[2];
	mkpipe(p, 0);
	char b[16] = { 0 };
	C(wr(p[1], "abc"));
	C(write(p[1], "", 0));
	C(nread(p[0]));
	cl(p[1]);
	C(read(p[0], b, 2));
	CS("pipe data", b);
	C(read(p[0], b, sizeof b));
	C(read(p[0], b, sizeof b));
	C(read(p[0], b, 0));
	C(nread(p[0]));
	cl(p[0]);
}

static void pipe_epipe(void)
{
	int p[2];
	mkpipe(p, 0);
	cl(p[0]);
	C(write(p[1], "x", 1));
	C(write(p[1], "", 0));
	C(write(p[1], big, 100000));
	struct iovec v = { big, 10 };
	C(writev(p[1], &v, 1));
	cl(p[1]);
	/* a dup of the read end keeps a reader */
	mkpipe(p, 0);
	int d = F(dup(p[0]));
	cl(p[0]);
	C(write(p[1], "y", 1));
	cl(d);
	C(write(p[1], "y", 1));
	cl(p[1]);
}

static void pipe_eagain(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	char b[8];
	C(read(p[0], b, sizeof b));
	C(read(p[0], b, 0));
	C(fcntl(p[0], F_GETFL, 0));
	C(fcntl(p[1], F_GETFL, 0));
	C(fcntl(p[0], F_SETFL, 0));
	C(fcntl(p[0], F_GETFL, 0));
	C(fcntl(p[0], F_SETFL, O_NONBLOCK));
	C(read(p[0], b, sizeof b));
	/* FIONBIO clears and sets it too */
	int on = 0;
	C(ioctl(p[1], FIONBIO, &on));
	C(fcntl(p[1], F_GETFL, 0));
	on = 1;
	C(ioctl(p[1], FIONBIO, &on));
	C(fcntl(p[1], F_GETFL, 0));
	fill(p[1], 512);
	cl(p[1]);
	drain(p[0]);
	cl(p[0]);
}

/* ---- flags and the calls a pipe refuses ---- */

static void pipe_flags(void)
{
	int p[2];
	C(pipe2(p, O_APPEND));
	C(pipe2(p, O_RDWR));
	C(pipe2(p, O_NOCTTY));
	C(pipe2(NULL, 0));
	C(pipe2(NULL, O_APPEND));
	mkpipe(p, O_CLOEXEC);
	C(fcntl(p[0], F_GETFD, 0));
	C(fcntl(p[1], F_GETFD, 0));
	cl(p[0]);
	cl(p[1]);
	mkpipe(p, O_DIRECT | O_NONBLOCK);
	C(fcntl(p[0], F_GETFL, 0));
	C(fcntl(p[1], F_GETFL, 0));
	char b[4];
	C(lseek(p[0], 0, SEEK_SET));
	C(lseek(p[1], 0, SEEK_CUR));
	C(pread(p[0], b, 1, 0));
	C(pwrite(p[1], b, 1, 0));
	C(pread(p[1], b, 1, 0));
	C(pwrite(p[0], b, 1, 0));
	C(ftruncate(p[1], 0));
	C(ftruncate(p[0], 0));
	C(fsync(p[1]));
	C(read(p[1], b, 1));
	C(write(p[0], b, 1));
	FSTAT(p[0]);
	FSTAT(p[1]);
	cl(p[0]);
	cl(p[1]);
	/* fds run out: EMFILE, and nothing is left behind */
	C(set_nofile(4));
	int a = F(OPEN("/", O_RDONLY));
	int b2 = F(OPEN("/", O_RDONLY));
	int c = F(OPEN("/", O_RDONLY));
	C(pipe2(p, 0));
	cl(c);
	C(pipe2(p, 0));
	int d = F(OPEN("/", O_RDONLY));
	C(d == c);
	cl(a);
	C(mkpipe(p, 0));
	cl(p[0]);
	cl(p[1]);
	cl(b2);
	cl(d);
}

/* ---- O_DIRECT: packets ---- */

static void pipe_packet(void)
{
	int p[2];
	mkpipe(p, O_DIRECT | O_NONBLOCK);
	char b[64] = { 0 };
	C(wr(p[1], "hello"));
	C(wr(p[1], "world!"));
	C(nread(p[0]));
	C(read(p[0], b, 3));
	CS("packet 1", b);
	memset(b, 0, sizeof b);
	C(read(p[0], b, sizeof b));
	CS("packet 2", b);
	C(read(p[0], b, sizeof b));
	fill(p[1], 1);
	C(nread(p[0]));
	drain(p[0]);
	/* a packet larger than a page is split into pages */
	C(write(p[1], big, 5000));
	C(read(p[0], b, sizeof b));
	C(nread(p[0]));
	drain(p[0]);
	/* switched off by F_SETFL: bytes merge again; and on again */
	C(fcntl(p[1], F_SETFL, O_NONBLOCK));
	C(wr(p[1], "ab"));
	C(wr(p[1], "cd"));
	C(read(p[0], b, 3));
	C(fcntl(p[1], F_SETFL, O_NONBLOCK | O_DIRECT));
	C(wr(p[1], "ef"));
	C(wr(p[1], "gh"));
	C(read(p[0], b, sizeof b));
	C(read(p[0], b, sizeof b));
	C(read(p[0], b, sizeof b));
	C(read(p[0], b, sizeof b));
	cl(p[0]);
	cl(p[1]);
}

/* ---- F_SETPIPE_SZ, F_GETPIPE_SZ ---- */

static void pipe_setsz(void)
{
	static const unsigned long sz[] = { 0, 1, 4095, 4096, 4097, 8192, 12288, 65535, 65536, 100000,
					    1048575, 1048576, 1048577, (1ul << 31) + 1, 0xffffffffu,
					    (1ul << 32) + 8192 };
	int p[2];
	mkpipe(p, O_NONBLOCK);
	C(fcntl(p[0], F_GETPIPE_SZ, 0));
	C(fcntl(p[1], F_GETPIPE_SZ, 0));
	for (unsigned i = 0; i < sizeof sz / sizeof sz[0]; i++) {
		note("F_SETPIPE_SZ %lu", sz[i]);
		C(fcntl(p[1], F_SETPIPE_SZ, sz[i]));
		C(fcntl(p[0], F_GETPIPE_SZ, 0));
	}
	/* the size is the pipe's, whichever end sets it */
	C(fcntl(p[0], F_SETPIPE_SZ, 8192));
	C(fcntl(p[1], F_GETPIPE_SZ, 0));
	fill(p[1], 1);
	drain(p[0]);
	/* not below the data held: EBUSY */
	C(fcntl(p[1], F_SETPIPE_SZ, 65536));
	for (int i = 0; i < 3; i++)
		C(write(p[1], big, 4096));
	C(fcntl(p[1], F_SETPIPE_SZ, 4096));
	C(fcntl(p[1], F_SETPIPE_SZ, 8192));
	C(fcntl(p[1], F_SETPIPE_SZ, 16384));
	C(fcntl(p[1], F_GETPIPE_SZ, 0));
	C(nread(p[0]));
	fill(p[1], 4096);
	drain(p[0]);
	cl(p[0]);
	cl(p[1]);
	/* a regular file, a directory: EBADF */
	C(mkfile("/f", "x"));
	int f = F(OPEN("/f", O_RDWR));
	C(fcntl(f, F_GETPIPE_SZ, 0));
	C(fcntl(f, F_SETPIPE_SZ, 4096));
	cl(f);
	f = F(OPEN("/", O_RDONLY));
	C(fcntl(f, F_GETPIPE_SZ, 0));
	cl(f);
	C(fcntl(-1, F_GETPIPE_SZ, 0));
}

static void pipe_setsz_user(void)
{
	int p[2];
	C(setcred(1000, 1000));
	mkpipe(p, O_NONBLOCK);
	C(fcntl(p[1], F_SETPIPE_SZ, 1048576));
	C(fcntl(p[1], F_SETPIPE_SZ, 1048577));
	C(fcntl(p[1], F_SETPIPE_SZ, 2097152));
	C(fcntl(p[1], F_GETPIPE_SZ, 0));
	C(fcntl(p[1], F_SETPIPE_SZ, 4096));
	C(fcntl(p[1], F_SETPIPE_SZ, 2097152));
	cl(p[0]);
	cl(p[1]);
	/* root makes a big one; a user may shrink it, not grow it past the max */
	C(setcred(0, 0));
	mkpipe(p, O_NONBLOCK);
	C(fcntl(p[1], F_SETPIPE_SZ, 4194304));
	C(setcred(1000, 1000));
	C(fcntl(p[1], F_SETPIPE_SZ, 4194304));
	C(fcntl(p[1], F_SETPIPE_SZ, 2097152));
	C(fcntl(p[1], F_SETPIPE_SZ, 4194304));
	C(fcntl(p[1], F_GETPIPE_SZ, 0));
	cl(p[0]);
	cl(p[1]);
	C(setcred(0, 0));
}

/* ---- FIONREAD and other ioctls ---- */

static void ioctl_fionread(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	C(nread(p[0]));
	C(nread(p[1]));
	C(write(p[1], big, 10000));
	C(nread(p[0]));
	C(nread(p[1]));
	C(ioctl(p[0], FIONREAD, NULL));
	C(ioctl(p[0], TCGETS, big));
	C(ioctl(p[0], 0x12345678, big));
	C(ioctl(p[0], FIOCLEX, NULL));
	C(fcntl(p[0], F_GETFD, 0));
	C(ioctl(p[0], FIONCLEX, NULL));
	C(fcntl(p[0], F_GETFD, 0));
	cl(p[0]);
	cl(p[1]);
	/* regular files: from the position to the end */
	C(mkfile("/f", "0123456789"));
	int f = F(OPEN("/f", O_RDONLY));
	C(nread(f));
	char b[4];
	C(read(f, b, 4));
	C(nread(f));
	C(lseek(f, 25, SEEK_SET));
	C(nread(f));
	C(ioctl(f, FIONREAD, NULL));
	C(ioctl(f, TCGETS, big));
	cl(f);
	f = F(OPEN("/f", O_WRONLY | O_APPEND));
	C(nread(f));
	cl(f);
	f = F(OPEN("/f", O_PATH));
	C(nread(f));
	cl(f);
	/* directories: no FIONREAD */
	f = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	C(nread(f));
	C(ioctl(f, FIOCLEX, NULL));
	C(fcntl(f, F_GETFD, 0));
	cl(f);
	C(nread(-1));
	C(nread(77));
}

/* ---- FIFOs ---- */

static void fifo_open_rules(void)
{
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	F(OPEN("/p", O_WRONLY | O_NONBLOCK)); /* no reader: ENXIO */
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	int w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(fcntl(r, F_GETFL, 0));
	C(fcntl(w, F_GETFL, 0));
	C(fcntl(r, F_GETPIPE_SZ, 0));
	C(wr(w, "data"));
	C(nread(r));
	cl(w);
	/* a reader alone (blocking flags cleared after the open) */
	int w2 = F(OPEN("/p", O_WRONLY)); /* a reader is there: no wait */
	C(wr(w2, "more"));
	C(nread(r));
	cl(w2);
	cl(r);
	/* all closed: the data went with the pipe */
	int rw = F(OPEN("/p", O_RDWR));
	C(nread(rw));
	C(wr(rw, "xyz"));
	cl(rw);
	rw = F(OPEN("/p", O_RDWR | O_NONBLOCK));
	C(nread(rw));
	char b[8];
	C(read(rw, b, sizeof b));
	/* with a reader (rw) present, O_WRONLY|O_NONBLOCK opens */
	w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(wr(w, "q"));
	C(nread(rw));
	cl(w);
	cl(rw);
	/* O_ACCMODE 3, O_TRUNC, O_CREAT on an existing FIFO, O_PATH */
	F(OPEN("/p", 3 | O_NONBLOCK));
	r = F(OPEN("/p", O_RDONLY | O_NONBLOCK | O_TRUNC));
	cl(r);
	r = F(openat(AT_FDCWD, "/p", O_RDONLY | O_NONBLOCK | O_CREAT, 0600));
	cl(r);
	F(openat(AT_FDCWD, "/p", O_WRONLY | O_NONBLOCK | O_CREAT | O_EXCL, 0600));
	int pa = F(OPEN("/p", O_PATH));
	FSTAT(pa);
	C(read(pa, b, 1));
	C(nread(pa));
	C(fcntl(pa, F_GETPIPE_SZ, 0));
	cl(pa);
	STAT("/p");
}

static void fifo_perms(void)
{
	C(MKNOD("/p", S_IFIFO | 0640, 0));
	C(CHOWN("/p", 1000, 1000));
	C(setcred(2000, 2000));
	F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(setcred(3000, 1000));
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	cl(r);
	C(setcred(0, 0));
	/* a read-only mount: a FIFO still opens for writing */
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(MKNOD("/m/p", S_IFIFO | 0666, 0));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	r = F(OPEN("/m/p", O_RDONLY | O_NONBLOCK));
	int w = F(OPEN("/m/p", O_WRONLY | O_NONBLOCK));
	C(wr(w, "ro"));
	C(nread(r));
	cl(w);
	cl(r);
	C(umount2("/m", 0));
}

static void fifo_unlink_rename(void)
{
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	int w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(wr(w, "kept"));
	C(UNLINK("/p"));
	C(wr(w, "!"));
	char b[16] = { 0 };
	C(read(r, b, sizeof b));
	CS("fifo after unlink", b);
	FSTAT(r);
	cl(r);
	C(write(w, "x", 1));
	cl(w);
	/* a new FIFO under the same name is another pipe */
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	C(RENAME("/p", "/q"));
	w = F(OPEN("/q", O_WRONLY | O_NONBLOCK));
	C(wr(w, "moved"));
	C(nread(r));
	/* a hard link reaches the same pipe */
	C(LINK("/q", "/l"));
	int w2 = F(OPEN("/l", O_WRONLY | O_NONBLOCK));
	C(wr(w2, "+"));
	C(nread(r));
	cl(w);
	cl(w2);
	cl(r);
}

static void fifo_times(void)
{
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	int w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	AGE("/p");
	C(wr(w, "t"));
	TS("/p");
	AGE("/p");
	char b[4];
	C(read(r, b, sizeof b));
	TS("/p");
	AGE("/p");
	C(read(r, b, sizeof b));
	C(write(w, "", 0));
	TS("/p");
	cl(r);
	cl(w);
	SIZEOF("/p");
	BLOCKSOF("/p");
}

/* ---- poll ---- */

#define POLL1(fd, ev)                                                                                  \
	do {                                                                                           \
		struct pollfd q_ = { fd, ev, 0x7777 };                                                   \
		C(poll(&q_, 1, 0));                                                                    \
		chk(fmt("revents of poll(%s, %s)", #fd, #ev), q_.revents);                             \
	} while (0)

static void poll_pipe(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	POLL1(p[0], POLLIN);
	POLL1(p[0], POLLIN | POLLOUT | POLLPRI);
	POLL1(p[1], POLLOUT);
	POLL1(p[1], POLLIN | POLLOUT);
	POLL1(p[1], POLLWRNORM);
	POLL1(p[0], 0);
	C(wr(p[1], "x"));
	POLL1(p[0], POLLIN);
	POLL1(p[0], POLLRDNORM);
	POLL1(p[0], POLLRDBAND);
	fill(p[1], 4096);
	POLL1(p[1], POLLOUT);
	POLL1(p[1], POLLOUT | POLLIN);
	char b[4096];
	C(read(p[0], b, 1));
	POLL1(p[1], POLLOUT); /* the first buffer still holds data: still full */
	C(read(p[0], b, 4096));
	POLL1(p[1], POLLOUT);
	/* no writer: POLLHUP, with and without data */
	cl(p[1]);
	POLL1(p[0], POLLIN);
	POLL1(p[0], 0);
	drain(p[0]);
	POLL1(p[0], POLLIN);
	cl(p[0]);
	/* no reader: POLLERR */
	mkpipe(p, O_NONBLOCK);
	cl(p[0]);
	POLL1(p[1], POLLOUT);
	POLL1(p[1], 0);
	cl(p[1]);
}

static void poll_many(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	C(mkfile("/f", "abc"));
	int f = F(OPEN("/f", O_RDONLY));
	int d = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	int o = F(OPEN("/f", O_PATH));
	struct pollfd q[8] = {
		{ p[0], POLLIN, 0x7777 }, { p[1], POLLOUT, 0x7777 }, { f, POLLIN | POLLOUT | POLLPRI, 0x7777 },
		{ d, POLLIN, 0x7777 },    { -1, POLLIN, 0x7777 },   { 99, POLLIN, 0x7777 },
		{ o, POLLIN, 0x7777 },    { f, 0, 0x7777 },
	};
	C(poll(q, 8, 0));
	for (int i = 0; i < 8; i++)
		chk(fmt("revents[%d]", i), q[i].revents);
	C(poll(q, 0, 0));
	C(poll(NULL, 0, 0));
	C(poll(q, 2, 1)); /* one ready: no wait */
	/* nothing ready: a timeout */
	struct pollfd e = { p[0], POLLIN, 0 };
	C(poll(&e, 1, 20));
	C(e.revents);
	C(set_nofile(16));
	C(poll(q, 17, 0));
	C(poll(q, 8, 0));
	cl(o);
	cl(d);
	cl(f);
	cl(p[0]);
	cl(p[1]);
}

static void poll_fifo(void)
{
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	/* never had a writer: no POLLHUP for this open */
	POLL1(r, POLLIN);
	int w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	POLL1(r, POLLIN);
	POLL1(w, POLLOUT);
	C(wr(w, "z"));
	POLL1(r, POLLIN);
	cl(w);
	/* a writer came and went: now POLLHUP */
	POLL1(r, POLLIN);
	char b[4];
	C(read(r, b, sizeof b));
	POLL1(r, POLLIN);
	/* a second reader opened now, with no writer: no POLLHUP for it */
	int r2 = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	POLL1(r2, POLLIN);
	POLL1(r, POLLIN);
	cl(r2);
	cl(r);
	int rw = F(OPEN("/p", O_RDWR | O_NONBLOCK));
	POLL1(rw, POLLIN | POLLOUT);
	C(wr(rw, "y"));
	POLL1(rw, POLLIN | POLLOUT);
	cl(rw);
}

/* open("/proc/self/fd/N") of a pipe end opens the same pipe, as a FIFO */
static void pipe_reopen(void)
{
	int p[2];
	mkpipe(p, O_NONBLOCK);
	int w = F(fd_reopen(p[0], O_WRONLY | O_NONBLOCK));
	C(wr(w, "via reopen"));
	C(nread(p[0]));
	int r = F(fd_reopen(p[1], O_RDONLY | O_NONBLOCK));
	char b[32] = { 0 };
	C(read(r, b, 3));
	CS("reopened read end", b);
	C(fcntl(w, F_GETFL, 0));
	C(fcntl(r, F_GETFL, 0));
	C(fcntl(w, F_GETPIPE_SZ, 0));
	cl(p[1]);
	cl(w);
	/* the last writer is gone: EOF after the data */
	memset(b, 0, sizeof b);
	C(read(p[0], b, sizeof b));
	C(read(r, b, sizeof b));
	POLL1(r, POLLIN);
	cl(p[0]);
	cl(r);
}

const struct scenario pipes_scenarios[] = {
	{ "pipe_reopen", pipe_reopen },
	{ "pipe_capacity_bytes", pipe_capacity_bytes },
	{ "pipe_capacity_sizes", pipe_capacity_sizes },
	{ "pipe_merge", pipe_merge },
	{ "pipe_atomic", pipe_atomic },
	{ "pipe_writev_atomic", pipe_writev_atomic },
	{ "pipe_eof", pipe_eof },
	{ "pipe_epipe", pipe_epipe },
	{ "pipe_eagain", pipe_eagain },
	{ "pipe_flags", pipe_flags },
	{ "pipe_packet", pipe_packet },
	{ "pipe_setsz", pipe_setsz },
	{ "pipe_setsz_user", pipe_setsz_user },
	{ "ioctl_fionread", ioctl_fionread },
	{ "fifo_open_rules", fifo_open_rules },
	{ "fifo_perms", fifo_perms },
	{ "fifo_unlink_rename", fifo_unlink_rename },
	{ "fifo_times", fifo_times },
	{ "poll_pipe", poll_pipe },
	{ "poll_many", poll_many },
	{ "poll_fifo", poll_fifo },
	{ NULL, NULL },
};
