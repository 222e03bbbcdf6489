/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-fsx.c - an fsx-style randomized tester: one file, a sequence of
 * operations drawn from a seeded generator (read, write, mapread, mapwrite,
 * truncate, fallocate with mode 0, KEEP_SIZE and PUNCH_HOLE|KEEP_SIZE,
 * copy_file_range within the file, fsync, close and reopen), each checked
 * against an in-memory model of the contents and the size; every byte of
 * the file and its size are compared every 1000 operations and at the end.
 * On a mismatch it prints the seed, the last operations and the bytes that
 * differ, and exits 1.  The same seed gives the same sequence.
 *
 *   test-fsx                 (the test) 100,000 operations through a fresh
 *                            uvfs-fuse mount, then 100,000 on the library
 *   test-fsx -p DIR [-n N] [-s SEED]   on DIR through system calls (a host
 *                            tmpfs as the oracle, or a mount)
 *   test-fsx -l [-n N] [-s SEED]       on the library (no mmap there:
 *                            mapread and mapwrite are pread and pwrite)
 *
 * fsx itself is not in Debian; this is a new program with the same idea.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <uvfs.h>
#include "mount.h"

#define MAXLEN (256 * 1024) /* the file never grows past this */
#define MAXOP (32 * 1024)   /* bytes one operation touches at most */
#define LOGN 32

/* The file under test, through system calls or the library. */
struct target {
	const char *name;
	int (*open)(struct target *t);
	void (*close)(struct target *t);
	ssize_t (*pread)(struct target *t, void *b, size_t n, off_t o);
	ssize_t (*pwrite)(struct target *t, const void *b, size_t n, off_t o);
	int (*ftruncate)(struct target *t, off_t len);
	int (*fallocate)(struct target *t, int mode, off_t o, off_t len);
	ssize_t (*copy)(struct target *t, off_t from, off_t to, size_t n);
	int (*fsync)(struct target *t);
	off_t (*size)(struct target *t);
	int (*mapread)(struct target *t, void *b, size_t n, off_t o);
	int (*mapwrite)(struct target *t, const void *b, size_t n, off_t o);
	char path[4096];
	int fd;
	struct uvfs *fs;
	struct uvfs_proc *p;
};

/* ---- system calls ---- */
static int s_open(struct target *t)
{
	t->fd = open(t->path, O_RDWR | O_CREAT, 0644);
	return t->fd < 0 ? -errno : 0;
}
static void s_close(struct target *t) { close(t->fd); }
static ssize_t s_pread(struct target *t, void *b, size_t n, off_t o)
{ ssize_t r = pread(t->fd, b, n, o); return r < 0 ? -errno : r; }
static ssize_t s_pwrite(struct target *t, const void *b, size_t n, off_t o)
{ ssize_t r = pwrite(t->fd, b, n, o); return r < 0 ? -errno : r; }
static int s_ftruncate(struct target *t, off_t len) { return ftruncate(t->fd, len) < 0 ? -errno : 0; }
static int s_fallocate(struct target *t, int mode, off_t o, off_t len)
{ return fallocate(t->fd, mode, o, len) < 0 ? -errno : 0; }
static ssize_t s_copy(struct target *t, off_t from, off_t to, size_t n)
{ ssize_t r = copy_file_range(t->fd, &from, t->fd, &to, n, 0); return r < 0 ? -errno : r; }
static int s_fsync(struct target *t) { return fsync(t->fd) < 0 ? -errno : 0; }
static off_t s_size(struct target *t)
{
	struct stat st;
	return fstat(t->fd, &st) < 0 ? -errno : st.st_size;
}
/* mmap of the pages around [o, o + n), as fsx does; n > 0, o + n <= size */
static int s_mapread(struct target *t, void *b, size_t n, off_t o)
{
	long pg = sysconf(_SC_PAGESIZE);
	off_t base = o & ~(off_t)(pg - 1);
	size_t len = (size_t)(o - base) + n;
	char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, t->fd, base);
	if (m == MAP_FAILED)
		return -errno;
	memcpy(b, m + (o - base), n);
	return munmap(m, len) < 0 ? -errno : 0;
}
static int s_mapwrite(struct target *t, const void *b, size_t n, off_t o)
{
	long pg = sysconf(_SC_PAGESIZE);
	off_t base = o & ~(off_t)(pg - 1);
	size_t len = (size_t)(o - base) + n;
	struct stat st;
	/* fsx extends the file first: a mapping cannot */
	if (fstat(t->fd, &st) < 0)
		return -errno;
	if (st.st_size < o + (off_t)n && ftruncate(t->fd, o + (off_t)n) < 0)
		return -errno;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, base);
	if (m == MAP_FAILED)
		return -errno;
	memcpy(m + (o - base), b, n);
	int r = msync(m, len, MS_SYNC) < 0 ? -errno : 0;
	if (munmap(m, len) < 0 && !r)
		r = -errno;
	return r;
}

/* ---- the library ---- */
static int l_open(struct target *t)
{
	t->fd = uvfs_openat(t->p, AT_FDCWD, "/fsx.file", O_RDWR | O_CREAT, 0644);
	return t->fd < 0 ? t->fd : 0;
}
static void l_close(struct target *t) { uvfs_close(t->p, t->fd); }
static ssize_t l_pread(struct target *t, void *b, size_t n, off_t o) { return uvfs_pread(t->p, t->fd, b, n, o); }
static ssize_t l_pwrite(struct target *t, const void *b, size_t n, off_t o)
{ return uvfs_pwrite(t->p, t->fd, b, n, o); }
static int l_ftruncate(struct target *t, off_t len) { return uvfs_ftruncate(t->p, t->fd, len); }
static int l_fallocate(struct target *t, int mode, off_t o, off_t len)
{ return uvfs_fallocate(t->p, t->fd, mode, o, len); }
static ssize_t l_copy(struct target *t, off_t from, off_t to, size_t n)
{ return uvfs_copy_file_range(t->p, t->fd, &from, t->fd, &to, n, 0); }
static int l_fsync(struct target *t) { return uvfs_fsync(t->p, t->fd); }
static off_t l_size(struct target *t)
{
	struct stat st;
	int r = uvfs_fstat(t->p, t->fd, &st);
	return r < 0 ? r : st.st_size;
}
static int l_mapread(struct target *t, void *b, size_t n, off_t o)
{
	ssize_t r = uvfs_pread(t->p, t->fd, b, n, o);
	return r < 0 ? (int)r : r == (ssize_t)n ? 0 : -EIO;
}
static int l_mapwrite(struct target *t, const void *b, size_t n, off_t o)
{
	ssize_t r = uvfs_pwrite(t->p, t->fd, b, n, o);
	return r < 0 ? (int)r : r == (ssize_t)n ? 0 : -EIO;
}

/* ---- the model and the log ---- */
static unsigned char model[MAXLEN], got[MAXLEN + MAXOP], wbuf[MAXOP];
static off_t msize;
static uint64_t rng;
static unsigned long opno;
static char oplog[LOGN][128];

static uint64_t next(void)
{
	/* xorshift64*: the same seed, the same sequence, on every machine */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}
static uint64_t below(uint64_t n) { return n ? next() % n : 0; }

static void logop(const char *f, ...)
{
	va_list ap;
	char *l = oplog[opno % LOGN];
	int k = snprintf(l, sizeof(oplog[0]), "%lu ", opno);
	va_start(ap, f);
	vsnprintf(l + k, sizeof(oplog[0]) - (size_t)k, f, ap);
	va_end(ap);
}

static uint64_t seed0;

static void fail(struct target *t, const char *f, ...)
{
	va_list ap;
	printf("FAIL fsx on %s (seed %" PRIu64 ", operation %lu): ", t->name, seed0, opno);
	va_start(ap, f);
	vprintf(f, ap);
	va_end(ap);
	printf("\nthe last operations (number, op, offset, length):\n");
	for (unsigned long i = opno >= LOGN ? opno - LOGN + 1 : 0; i <= opno; i++)
		printf("  %s\n", oplog[i % LOGN]);
	printf("0 passed, 1 failed\n");
	exit(1);
}

/* what the model says about n bytes read at o, compared with buf */
static void check_bytes(struct target *t, const char *what, const unsigned char *buf, off_t o, size_t n)
{
	if (!memcmp(buf, model + o, n))
		return;
	for (size_t i = 0; i < n; i++)
		if (buf[i] != model[o + (off_t)i]) {
			size_t j = i;
			while (j < n && buf[j] != model[o + (off_t)j])
				j++;
			fail(t, "%s: byte %jd is 0x%02x, the model has 0x%02x (%zu bytes differ from there)", what,
			     (intmax_t)(o + (off_t)i), buf[i], model[o + (off_t)i], j - i);
		}
}

static void check_all(struct target *t)
{
	off_t sz = t->size(t);
	if (sz != msize)
		fail(t, "the size is %jd, the model's %jd", (intmax_t)sz, (intmax_t)msize);
	ssize_t r = t->pread(t, got, (size_t)msize + 1, 0);
	if (r != msize)
		fail(t, "a read of the whole file gave %zd, the size is %jd", r, (intmax_t)msize);
	check_bytes(t, "whole file", got, 0, (size_t)msize);
}

static void set_size(off_t len)
{
	if (len > msize)
		memset(model + msize, 0, (size_t)(len - msize));
	msize = len;
}

/* an offset and a length within MAXLEN, sometimes past the size */
static void pick(off_t *o, size_t *n, int within)
{
	off_t lim = within ? msize : MAXLEN;
	*o = lim ? (off_t)below((uint64_t)lim) : 0;
	*n = (size_t)below(MAXOP) + 1;
	if (within && *o + (off_t)*n > msize)
		*n = (size_t)(msize - *o);
	if (*o + (off_t)*n > MAXLEN)
		*n = (size_t)(MAXLEN - *o);
}

enum { OP_READ, OP_WRITE, OP_MAPREAD, OP_MAPWRITE, OP_TRUNCATE, OP_FALLOC, OP_KEEP, OP_PUNCH, OP_COPY,
       OP_FSYNC, OP_REOPEN, NOPS };

static void run(struct target *t, unsigned long nops, uint64_t seed)
{
	seed0 = seed;
	rng = seed ? seed : 1;
	msize = 0;
	memset(model, 0, sizeof(model));
	if (t->open(t) < 0)
		fail(t, "cannot open the file");
	if (t->ftruncate(t, 0) < 0)
		fail(t, "cannot truncate the file");
	for (opno = 0; opno < nops; opno++) {
		int op = (int)below(NOPS * 4);
		off_t o;
		size_t n;
		long r;
		/* reads and writes four times as often as the rest, as in fsx */
		op = op < 16 ? op / 4 : op - 12;
		if (op >= NOPS)
			op = OP_READ;
		switch (op) {
		case OP_READ:
		case OP_MAPREAD:
			pick(&o, &n, 1);
			logop("%s %jd %zu", op == OP_READ ? "read" : "mapread", (intmax_t)o, n);
			if (!n)
				break;
			if (op == OP_READ) {
				r = t->pread(t, got, n, o);
				if (r != (long)n)
					fail(t, "read gave %ld, wanted %zu", r, n);
			} else if ((r = t->mapread(t, got, n, o)) < 0) {
				fail(t, "mapread: %s", strerror((int)-r));
			}
			check_bytes(t, op == OP_READ ? "read" : "mapread", got, o, n);
			break;
		case OP_WRITE:
		case OP_MAPWRITE:
			pick(&o, &n, 0);
			logop("%s %jd %zu", op == OP_WRITE ? "write" : "mapwrite", (intmax_t)o, n);
			/* a pattern that differs from op to op and byte to byte */
			for (size_t i = 0; i < n; i += 8) {
				uint64_t v = (opno * 0x9e3779b97f4a7c15ull) ^ (i * 0x0101010101010101ull + 1);
				memcpy(wbuf + i, &v, n - i < 8 ? n - i : 8);
			}
			r = op == OP_WRITE ? t->pwrite(t, wbuf, n, o) : t->mapwrite(t, wbuf, n, o);
			if (r != (op == OP_WRITE ? (long)n : 0))
				fail(t, "%s gave %ld", op == OP_WRITE ? "write" : "mapwrite", r);
			if (o + (off_t)n > msize)
				set_size(o + (off_t)n);
			memcpy(model + o, wbuf, n);
			break;
		case OP_TRUNCATE:
			o = (off_t)below(MAXLEN + 1);
			logop("truncate %jd", (intmax_t)o);
			if ((r = t->ftruncate(t, o)) < 0)
				fail(t, "truncate: %s", strerror((int)-r));
			if (o < msize)
				memset(model + o, 0, (size_t)(msize - o));
			set_size(o);
			break;
		case OP_FALLOC:
		case OP_KEEP:
		case OP_PUNCH: {
			int mode = op == OP_FALLOC ? 0 : op == OP_KEEP ? FALLOC_FL_KEEP_SIZE :
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
			pick(&o, &n, op == OP_PUNCH);
			logop("fallocate %s %jd %zu", op == OP_FALLOC ? "0" : op == OP_KEEP ? "KEEP_SIZE" :
			      "PUNCH_HOLE|KEEP_SIZE", (intmax_t)o, n);
			if (!n)
				break;
			if ((r = t->fallocate(t, mode, o, (off_t)n)) < 0)
				fail(t, "fallocate: %s", strerror((int)-r));
			if (op == OP_PUNCH)
				memset(model + o, 0, n);
			else if (op == OP_FALLOC && o + (off_t)n > msize)
				set_size(o + (off_t)n);
			break;
		}
		case OP_COPY: {
			off_t to;
			pick(&o, &n, 1);
			to = (off_t)below(MAXLEN);
			if (to + (off_t)n > MAXLEN)
				n = (size_t)(MAXLEN - to);
			/* copy_file_range refuses overlapping ranges in one file */
			if (n && to < o + (off_t)n && o < to + (off_t)n)
				n = to > o ? (size_t)(to - o) : (size_t)(o - to);
			logop("copy_file_range %jd -> %jd %zu", (intmax_t)o, (intmax_t)to, n);
			if (!n)
				break;
			r = t->copy(t, o, to, n);
			if (r != (long)n)
				fail(t, "copy_file_range gave %ld, wanted %zu", r, n);
			if (to + (off_t)n > msize)
				set_size(to + (off_t)n);
			memmove(model + to, model + o, n);
			break;
		}
		case OP_FSYNC:
			logop("fsync");
			if ((r = t->fsync(t)) < 0)
				fail(t, "fsync: %s", strerror((int)-r));
			break;
		case OP_REOPEN:
			logop("close and reopen");
			t->close(t);
			if ((r = t->open(t)) < 0)
				fail(t, "reopen: %s", strerror((int)-r));
			break;
		}
		if (opno % 1000 == 999)
			check_all(t);
	}
	check_all(t);
	t->close(t);
}

static void sys_target(struct target *t, const char *dir)
{
	*t = (struct target){ "a path", s_open, s_close, s_pread, s_pwrite, s_ftruncate, s_fallocate, s_copy,
			      s_fsync, s_size, s_mapread, s_mapwrite };
	snprintf(t->path, sizeof(t->path), "%s/fsx.file", dir);
	t->name = dir;
}

static int lib_target(struct target *t)
{
	*t = (struct target){ "the library", l_open, l_close, l_pread, l_pwrite, l_ftruncate, l_fallocate, l_copy,
			      l_fsync, l_size, l_mapread, l_mapwrite };
	t->fs = uvfs_create(NULL);
	t->p = t->fs ? uvfs_proc_create(t->fs, 0, 0) : NULL;
	return t->p ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long nops = 100000;
	uint64_t seed = 0;
	const char *dir = NULL;
	int lib = 0, c;
	struct target t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "p:ln:s:")) != -1) {
		switch (c) {
		case 'p': dir = optarg; break;
		case 'l': lib = 1; break;
		case 'n': nops = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-p DIR | -l] [-n OPS] [-s SEED]\n", argv[0]);
			return 2;
		}
	}
	if (dir || lib) {
		if (!seed)
			seed = (uint64_t)time(NULL);
		if (lib ? lib_target(&t) : (sys_target(&t, dir), 0))
			return 1;
		double t0 = fuse_mono();
		run(&t, nops, seed);
		printf("ok   fsx on %s: %lu operations, seed %" PRIu64 ", %.2f s\n", t.name, nops, seed, fuse_mono() - t0);
		printf("1 passed, 0 failed\n");
		if (lib) {
			uvfs_proc_destroy(t.p);
			uvfs_destroy(t.fs);
		}
		return 0;
	}

	/* the test: a fixed seed, through a fresh mount and on the library */
	int pass = 0;
	seed = 20261201;
	if (lib_target(&t) == 0) {
		double t0 = fuse_mono();
		run(&t, nops, seed);
		printf("ok   fsx on the library: %lu operations, seed %" PRIu64 ", %.2f s\n", nops, seed, fuse_mono() - t0);
		uvfs_proc_destroy(t.p);
		uvfs_destroy(t.fs);
		pass++;
	}
	const char *bin = fuse_program(), *why = fuse_unavailable(bin);
	if (why) {
		printf("SKIP fsx through FUSE: %s\n", why);
		printf("%d passed, 0 failed, 1 skipped\n", pass);
		return 0;
	}
	char scratch[] = "/tmp/uvfs-fsx.XXXXXX", mnt[64];
	if (!mkdtemp(scratch))
		return 1;
	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	mkdir(mnt, 0755);
	char *srv_argv[] = { (char *)bin, "-f", mnt, NULL };
	pid_t srv = fuse_start(srv_argv, mnt, NULL);
	if (srv < 0) {
		printf("FAIL uvfs-fuse did not mount %s\n0 passed, 1 failed\n", mnt);
		return 1;
	}
	/* the run in a child, so that a failure still unmounts */
	pid_t ch = fork();
	if (ch == 0) {
		sys_target(&t, mnt);
		t.name = "the FUSE mount";
		double t0 = fuse_mono();
		run(&t, nops, seed);
		printf("ok   fsx through the FUSE mount: %lu operations, seed %" PRIu64 ", %.2f s\n", nops, seed,
		       fuse_mono() - t0);
		_exit(0);
	}
	int st;
	waitpid(ch, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		pass++;
	fuse_unmount(mnt, 0);
	fuse_reap(srv, 10);
	rmdir(mnt);
	rmdir(scratch);
	int failed = !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("%d passed, %d failed\n", pass, failed);
	return failed;
}
