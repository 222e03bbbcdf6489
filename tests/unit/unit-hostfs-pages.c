// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-hostfs-pages: hostfs's page cache (src/fs/hostfs/hostfs_pages.c).
 *
 *   - cache=exclusive: a file read once is read again without the host
 *     (no IN_ACCESS on the host's inotify of the source directory), and
 *     stays exact through uvfs's writes across page boundaries, O_APPEND,
 *     ftruncate and truncate down and up, fallocate (a punched hole, an
 *     extension), copy_file_range into it, a write through a hard link and
 *     through another open file: after each, uvfs's read of the whole file,
 *     the host's, and a model in memory agree byte for byte;
 *   - the host's atime still moves at the first read after a change
 *     (relatime), as without the cache;
 *   - cache=watch: a host write, truncate, append and a rename over the
 *     name are seen by the next uvfs read (an fd open across the change
 *     too); cache=revalidate: every read is the host's;
 *   - pagecache=64k: 40 files of 1-3 pages read and changed at random,
 *     every read checked against a model, while the budget evicts (the
 *     host is read again); then three threads reading and one changing
 *     files of that budget (also under TSan, tests/run-tsan.sh);
 *   - the option: bad values and conflicts are EINVAL, a remount to 0
 *     drops the cache and reads stay right;
 *   - the mounts made without pagecache= share one budget (64 MiB for
 *     them all, as the mounts without fds= share one fd bound): a file of
 *     33 MiB read in one evicts another's read in the other, while a
 *     mount with pagecache= keeps its own; a remount with pagecache=
 *     gives a mount a budget of its own (two threads reading meanwhile,
 *     every byte checked; also under TSan).
 */
#include "uvfs.h"
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[64], src[128];
static struct uvfs *u;
static struct uvfs_proc *p;

#define MAXF 65536
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

static void hrel(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", src, rel);
}

/* host IN_ACCESS events on ifd since the last call */
static int accesses(int ifd)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int c = 0;
	while ((n = read(ifd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			off += (ssize_t)(sizeof(*ev) + ev->len);
			c += !!(ev->mask & IN_ACCESS);
		}
	return c;
}

/* The whole file through uvfs, in reads of odd sizes: its length or -errno. */
static long u_whole(const char *path, char *buf)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	long got = 0, r;
	while ((r = uvfs_read(p, fd, buf + got, MIN(3001, MAXF - got))) > 0)
		got += r;
	uvfs_close(p, fd);
	return r < 0 ? r : got;
}

static long h_whole(const char *rel, char *buf)
{
	char h[300];
	hrel(h, sizeof(h), rel);
	int fd = open(h, O_RDONLY);
	if (fd < 0)
		return -errno;
	long got = 0, r;
	while ((r = read(fd, buf + got, MAXF - got)) > 0)
		got += r;
	close(fd);
	return got;
}

static char ubuf[MAXF], hbuf[MAXF];

/* uvfs's file, the host's and the model agree */
static bool same3(const char *upath, const char *rel, const char *model, long size, const char *when)
{
	long a = u_whole(upath, ubuf), b = h_whole(rel, hbuf);
	bool ok = a == size && b == size && !memcmp(ubuf, model, (size_t)size) && !memcmp(hbuf, model, (size_t)size);
	CHECK(ok, "%s: uvfs %ld host %ld model %ld bytes", when, a, b, size);
	return ok;
}

static void fill_pattern(char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (char)('a' + (seed * 31 + i * 7 + i / 4096) % 26);
}

static char model[MAXF];

static void test_exclusive(void)
{
	SECTION("cache=exclusive: writes, truncates, fallocate, copy_file_range");
	char h[300];
	hrel(h, sizeof(h), "x");
	mkdir(h, 0755);
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(inotify_add_watch(ifd, h, IN_ACCESS) >= 0);
	uvfs_mkdirat(p, AT_FDCWD, "/x", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/x", "hostfs", 0, "cache=exclusive"), 0);

	long size = 3 * 4096 + 100;
	fill_pattern(model, (size_t)size, 1);
	int fd = uvfs_openat(p, AT_FDCWD, "/x/x/f", O_CREAT | O_RDWR, 0644);
	CHECK_EQ(uvfs_write(p, fd, model, (size_t)size), size);
	same3("/x/x/f", "x/f", model, size, "written");
	accesses(ifd);
	/* read again: from memory */
	same3("/x/x/f", "x/f", model, size, "again");
	/* (the host read in same3 is this process's own: counted, so subtract) */
	CHECK_EQ(accesses(ifd), 1);

	/* a write across a page boundary, into cached pages */
	CHECK_EQ(uvfs_pwrite(p, fd, "0123456789ABCDEFGHIJ", 20, 4090), 20);
	memcpy(model + 4090, "0123456789ABCDEFGHIJ", 20);
	same3("/x/x/f", "x/f", model, size, "pwrite across pages");
	/* past the end, leaving a gap: zeros in between */
	CHECK_EQ(uvfs_pwrite(p, fd, "tail", 4, size + 5000), 4);
	memset(model + size, 0, 5000);
	memcpy(model + size + 5000, "tail", 4);
	size += 5004;
	same3("/x/x/f", "x/f", model, size, "pwrite past the end");
	/* O_APPEND through another open file */
	int fa = uvfs_openat(p, AT_FDCWD, "/x/x/f", O_WRONLY | O_APPEND, 0);
	CHECK_EQ(uvfs_write(p, fa, "APPENDED", 8), 8);
	memcpy(model + size, "APPENDED", 8);
	size += 8;
	uvfs_close(p, fa);
	same3("/x/x/f", "x/f", model, size, "O_APPEND");

	/* truncate down into a page, then up: the tail reads as zeros */
	CHECK_EQ(uvfs_ftruncate(p, fd, 5000), 0);
	size = 5000;
	same3("/x/x/f", "x/f", model, size, "ftruncate down");
	char c;
	CHECK_EQ(uvfs_pread(p, fd, &c, 1, 6000), 0);
	CHECK_EQ(uvfs_truncate(p, "/x/x/f", 9000), 0);
	memset(model + 5000, 0, 4000);
	size = 9000;
	same3("/x/x/f", "x/f", model, size, "truncate up");
	/* O_TRUNC */
	int ft = uvfs_openat(p, AT_FDCWD, "/x/x/f", O_WRONLY | O_TRUNC, 0);
	CHECK(ft >= 0);
	fill_pattern(model, 12000, 2);
	CHECK_EQ(uvfs_write(p, ft, model, 12000), 12000);
	uvfs_close(p, ft);
	size = 12000;
	same3("/x/x/f", "x/f", model, size, "O_TRUNC and rewrite");

	/* fallocate: a punched hole, then an extension */
	CHECK_EQ(uvfs_fallocate(p, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100, 8192), 0);
	memset(model + 100, 0, 8192);
	same3("/x/x/f", "x/f", model, size, "punch hole");
	CHECK_EQ(uvfs_fallocate(p, fd, 0, 0, 16384), 0);
	memset(model + size, 0, (size_t)(16384 - size));
	size = 16384;
	same3("/x/x/f", "x/f", model, size, "fallocate extends");

	/* copy_file_range into cached pages */
	int fs = uvfs_openat(p, AT_FDCWD, "/x/x/s", O_CREAT | O_RDWR, 0644);
	char sbuf[6000];
	fill_pattern(sbuf, sizeof(sbuf), 3);
	CHECK_EQ(uvfs_write(p, fs, sbuf, sizeof(sbuf)), (long)sizeof(sbuf));
	off_t in = 0, outp = 1000;
	CHECK_EQ(uvfs_copy_file_range(p, fs, &in, fd, &outp, sizeof(sbuf), 0), (long)sizeof(sbuf));
	memcpy(model + 1000, sbuf, sizeof(sbuf));
	same3("/x/x/f", "x/f", model, size, "copy_file_range");
	uvfs_close(p, fs);

	/* a hard link is the same inode, and the same pages */
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/x/x/f", AT_FDCWD, "/x/x/g", 0), 0);
	int fg = uvfs_openat(p, AT_FDCWD, "/x/x/g", O_WRONLY, 0);
	CHECK_EQ(uvfs_pwrite(p, fg, "LINK", 4, 3000), 4);
	memcpy(model + 3000, "LINK", 4);
	uvfs_close(p, fg);
	same3("/x/x/f", "x/f", model, size, "written through a hard link");

	/* relatime: the first read after a change moves the host's atime */
	CHECK_EQ(uvfs_pwrite(p, fd, "Z", 1, 0), 1);
	model[0] = 'Z';
	struct stat before, after;
	hrel(h, sizeof(h), "x/f");
	stat(h, &before);
	CHECK_EQ(u_whole("/x/x/f", ubuf), size);
	stat(h, &after);
	CHECK(after.st_atim.tv_sec > before.st_atim.tv_sec ||
		      (after.st_atim.tv_sec == before.st_atim.tv_sec && after.st_atim.tv_nsec > before.st_atim.tv_nsec) ||
		      (before.st_atim.tv_sec > before.st_mtim.tv_sec ||
		       (before.st_atim.tv_sec == before.st_mtim.tv_sec && before.st_atim.tv_nsec > before.st_mtim.tv_nsec)),
	      "host atime did not move at the first read after a write");
	CHECK(after.st_atim.tv_sec > after.st_mtim.tv_sec ||
		      (after.st_atim.tv_sec == after.st_mtim.tv_sec && after.st_atim.tv_nsec >= after.st_mtim.tv_nsec),
	      "host atime older than mtime after a read");
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_umount2(p, "/x", 0), 0);
	close(ifd);
}

static void host_pwrite(const char *rel, const char *data, off_t at)
{
	char h[300];
	hrel(h, sizeof(h), rel);
	int fd = open(h, O_WRONLY);
	if (fd < 0 || pwrite(fd, data, strlen(data), at) != (ssize_t)strlen(data))
		perror(h);
	close(fd);
}

static void host_put(const char *rel, const char *data)
{
	char h[300];
	hrel(h, sizeof(h), rel);
	int fd = open(h, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		perror(h);
	close(fd);
}

static long u_pread_str(int fd, char *buf, size_t n)
{
	long r = uvfs_pread(p, fd, buf, n - 1, 0);
	buf[r > 0 ? r : 0] = 0;
	return r;
}

/* Host changes behind uvfs: the next read sees them. */
static void host_changes(const char *mnt, const char *opts)
{
	char path[64], buf[64], h[300], h2[300];
	hrel(h, sizeof(h), "w");
	mkdir(h, 0755);
	uvfs_mkdirat(p, AT_FDCWD, mnt, 0755);
	host_put("w/f", "original");
	CHECK_EQ(uvfs_mount(p, src, mnt, "hostfs", 0, opts), 0);
	snprintf(path, sizeof(path), "%s/w/f", mnt);
	int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
	CHECK(fd >= 0);
	CHECK_EQ(u_pread_str(fd, buf, sizeof(buf)), 8);
	CHECK_EQ(u_pread_str(fd, buf, sizeof(buf)), 8); /* cached now */
	host_pwrite("w/f", "CHANGED!", 0);
	CHECK_EQ(u_pread_str(fd, buf, sizeof(buf)), 8);
	CHECK(!strcmp(buf, "CHANGED!"), "%s: host write: %s", opts, buf);
	/* a new open too */
	int fd2 = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
	CHECK_EQ(u_pread_str(fd2, buf, sizeof(buf)), 8);
	CHECK(!strcmp(buf, "CHANGED!"), "%s: reopened: %s", opts, buf);
	uvfs_close(p, fd2);
	/* truncate and append on the host */
	hrel(h, sizeof(h), "w/f");
	CHECK_EQ(truncate(h, 3), 0);
	CHECK_EQ(u_pread_str(fd, buf, sizeof(buf)), 3);
	CHECK(!strcmp(buf, "CHA"), "%s: host truncate: %s", opts, buf);
	host_pwrite("w/f", "+more", 3);
	CHECK_EQ(u_pread_str(fd, buf, sizeof(buf)), 8);
	CHECK(!strcmp(buf, "CHA+more"), "%s: host append: %s", opts, buf);
	/* a rename over the name: a new open reads the new file, the open
	 * one still the old (unlinked) file */
	host_put("w/new", "replacement");
	hrel(h2, sizeof(h2), "w/new");
	CHECK_EQ(rename(h2, h), 0);
	fd2 = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
	CHECK_EQ(u_pread_str(fd2, buf, sizeof(buf)), 11);
	CHECK(!strcmp(buf, "replacement"), "%s: renamed over: %s", opts, buf);
	CHECK_EQ(u_pread_str(fd, buf, sizeof(buf)), 8);
	CHECK(!strcmp(buf, "CHA+more"), "%s: old file: %s", opts, buf);
	/* uvfs's own write, then a host write: both seen */
	int fw = uvfs_openat(p, AT_FDCWD, path, O_WRONLY, 0);
	CHECK_EQ(uvfs_pwrite(p, fw, "R", 1, 0), 1);
	CHECK_EQ(u_pread_str(fd2, buf, sizeof(buf)), 11);
	CHECK(!strcmp(buf, "Replacement"), "%s: own write: %s", opts, buf);
	host_pwrite("w/f", "E", 1);
	CHECK_EQ(u_pread_str(fd2, buf, sizeof(buf)), 11);
	CHECK(!strcmp(buf, "REplacement"), "%s: host write after own: %s", opts, buf);
	uvfs_close(p, fw);
	uvfs_close(p, fd2);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_umount2(p, mnt, 0), 0);
}

static void test_host_changes(void)
{
	SECTION("cache=watch and cache=revalidate: host changes are read");
	host_changes("/w", "cache=watch");
	host_changes("/r", "cache=revalidate");
}

/* ---- the budget ---- */

#define NF 40
static char models[NF][3 * 4096 + 512];
static long msize[NF];

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void test_budget(void)
{
	SECTION("pagecache=64k: eviction under load, every byte right");
	char h[300], path[64];
	hrel(h, sizeof(h), "b");
	mkdir(h, 0755);
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(inotify_add_watch(ifd, h, IN_ACCESS) >= 0);
	uvfs_mkdirat(p, AT_FDCWD, "/b", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/b", "hostfs", 0, "pagecache=64k"), 0);
	unsigned s = 7;
	for (int i = 0; i < NF; i++) {
		msize[i] = 1 + (long)(rnd(&s) % (3 * 4096 + 500));
		fill_pattern(models[i], (size_t)msize[i], (unsigned)i + 10);
		snprintf(path, sizeof(path), "/b/b/f%d", i);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		CHECK_EQ(uvfs_write(p, fd, models[i], (size_t)msize[i]), msize[i]);
		uvfs_close(p, fd);
	}
	accesses(ifd);
	int bad = 0;
	for (int op = 0; op < 3000; op++) {
		int i = (int)(rnd(&s) % NF);
		snprintf(path, sizeof(path), "/b/b/f%d", i);
		unsigned what = rnd(&s) % 10;
		if (what < 6) {
			/* a range read */
			long at = (long)(rnd(&s) % (unsigned)(msize[i] + 100));
			long len = 1 + (long)(rnd(&s) % 9000);
			int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
			long r = uvfs_pread(p, fd, ubuf, (size_t)len, at);
			long want = at >= msize[i] ? 0 : MIN(len, msize[i] - at);
			if (r != want || (want > 0 && memcmp(ubuf, models[i] + at, (size_t)want)))
				bad++;
			uvfs_close(p, fd);
		} else if (what < 9) {
			long at = (long)(rnd(&s) % (unsigned)(msize[i] + 1));
			long len = 1 + (long)(rnd(&s) % 3000);
			if (at + len > (long)sizeof(models[i]))
				len = (long)sizeof(models[i]) - at;
			char data[3000];
			fill_pattern(data, (size_t)len, rnd(&s));
			int fd = uvfs_openat(p, AT_FDCWD, path, O_WRONLY, 0);
			if (uvfs_pwrite(p, fd, data, (size_t)len, at) != len)
				bad++;
			uvfs_close(p, fd);
			memcpy(models[i] + at, data, (size_t)len);
			if (at + len > msize[i])
				msize[i] = at + len;
		} else {
			long ns = (long)(rnd(&s) % sizeof(models[i]));
			if (uvfs_truncate(p, path, ns))
				bad++;
			if (ns > msize[i])
				memset(models[i] + msize[i], 0, (size_t)(ns - msize[i]));
			msize[i] = ns;
		}
	}
	CHECK_EQ(bad, 0);
	/* 40 files of up to 3 pages in 16 pages: the host was read again */
	CHECK(accesses(ifd) > NF, "no eviction");
	for (int i = 0; i < NF; i++) {
		char rel[32];
		snprintf(path, sizeof(path), "/b/b/f%d", i);
		snprintf(rel, sizeof(rel), "b/f%d", i);
		if (!same3(path, rel, models[i], msize[i], "after the load"))
			break;
	}
	/* the option changes with a remount; 0 turns the cache off */
	CHECK_EQ(uvfs_mount(p, NULL, "/b", NULL, MS_REMOUNT, "pagecache=0"), 0);
	accesses(ifd);
	/* (inotify folds a repeated event: f1 between) */
	CHECK_EQ(u_whole("/b/b/f0", ubuf), msize[0]);
	CHECK_EQ(u_whole("/b/b/f1", ubuf), msize[1]);
	CHECK_EQ(u_whole("/b/b/f0", ubuf), msize[0]);
	CHECK(accesses(ifd) >= 3, "pagecache=0 still cached");
	CHECK(!memcmp(ubuf, models[0], (size_t)msize[0]));
	CHECK_EQ(uvfs_mount(p, NULL, "/b", NULL, MS_REMOUNT, "pagecache=1m"), 0);
	CHECK_EQ(uvfs_umount2(p, "/b", 0), 0);
	close(ifd);
}

/* three readers of files nobody writes, one writer of its own files, all
 * in a budget of 8 pages: the readers always see the model */
static volatile int stop;
static int tbad[4];

static void *reader(void *arg)
{
	int id = (int)(intptr_t)arg;
	char buf[3 * 4096 + 512];
	unsigned s = (unsigned)id * 77 + 1;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int i = (int)(rnd(&s) % 20);
		char path[32];
		snprintf(path, sizeof(path), "/t/b/f%d", i);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
		long r = uvfs_read(p, fd, buf, sizeof(buf));
		if (r != msize[i] || memcmp(buf, models[i], (size_t)r))
			tbad[id]++;
		uvfs_close(p, fd);
	}
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	unsigned s = 99;
	char data[4096], buf[3 * 4096 + 512];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int i = 20 + (int)(rnd(&s) % 20);
		char path[32];
		snprintf(path, sizeof(path), "/t/b/f%d", i);
		long at = (long)(rnd(&s) % 8000), len = 1 + (long)(rnd(&s) % 4000);
		fill_pattern(data, (size_t)len, rnd(&s));
		int fd = uvfs_openat(p, AT_FDCWD, path, O_RDWR, 0);
		if (uvfs_pwrite(p, fd, data, (size_t)len, at) != len)
			tbad[3]++;
		if (at > msize[i]) /* the gap reads as zeros */
			memset(models[i] + msize[i], 0, (size_t)(at - msize[i]));
		memcpy(models[i] + at, data, (size_t)len);
		if (at + len > msize[i])
			msize[i] = at + len;
		if (rnd(&s) % 8 == 0) {
			long ns = (long)(rnd(&s) % 12000);
			if (uvfs_ftruncate(p, fd, ns))
				tbad[3]++;
			if (ns > msize[i])
				memset(models[i] + msize[i], 0, (size_t)(ns - msize[i]));
			msize[i] = ns;
		}
		long r = uvfs_pread(p, fd, buf, sizeof(buf), 0);
		if (r != msize[i] || memcmp(buf, models[i], (size_t)r)) {
			if (!tbad[3]) {
				long k = 0;
				while (k < r && buf[k] == models[i][k])
					k++;
				printf("f%d: read %ld of %ld, first difference at %ld\n", i, r, msize[i], k);
			}
			tbad[3]++;
		}
		uvfs_close(p, fd);
	}
	return NULL;
}

static void test_threads(void)
{
	SECTION("threads: three readers and a writer in 8 pages");
	uvfs_mkdirat(p, AT_FDCWD, "/t", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/t", "hostfs", 0, "pagecache=32k"), 0);
	/* the files of the budget test, as it left them */
	pthread_t t[4];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, reader, (void *)(intptr_t)i);
	pthread_create(&t[3], NULL, writer, NULL);
	struct timespec ts = { 0, 600 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(!tbad[0] && !tbad[1] && !tbad[2], "readers: %d %d %d wrong", tbad[0], tbad[1], tbad[2]);
	CHECK_EQ(tbad[3], 0);
	CHECK_EQ(uvfs_umount2(p, "/t", 0), 0);
}

/* ---- one budget for the mounts without pagecache= ---- */

#define BIG ((size_t)33 << 20) /* two are more than the default 64 MiB */

/* The whole file through uvfs in reads of 256 KiB, every byte the file's
 * letter (its directory's last): its length, -EILSEQ, or -errno. */
#define CHUNK (256 << 10)
static char letters[3][CHUNK]; /* a, b, c: filled before the readers start */

static long u_big(const char *path)
{
	char *chunk = malloc(CHUNK);
	int fd = chunk ? uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0) : -ENOMEM;
	if (fd < 0) {
		free(chunk);
		return fd;
	}
	/* "/sX/big": memcmp, not a loop over the bytes (TSan's time) */
	const char *want = letters[path[strlen(path) - 5] - 'a'];
	long got = 0, r;
	bool bad = false;
	while ((r = uvfs_read(p, fd, chunk, CHUNK)) > 0) {
		bad |= memcmp(chunk, want, (size_t)r) != 0;
		got += r;
	}
	uvfs_close(p, fd);
	free(chunk);
	return r < 0 ? r : bad ? -EILSEQ : got;
}

/* Reads its file again and again until stop: the letters right. */
static volatile int sb_stop;
static void *big_reader(void *arg)
{
	long bad = 0;
	while (!__atomic_load_n(&sb_stop, __ATOMIC_RELAXED))
		bad += u_big(arg) != (long)BIG;
	return (void *)bad;
}

static void test_shared_budget(void)
{
	SECTION("mounts without pagecache= share one budget, as fds=");
	static const char *const dirs[] = { "sa", "sb", "sc" };
	static const char *const opts[] = { NULL, "cache=exclusive", "pagecache=64m" };
	char *data = malloc(BIG);
	CHECK(data != NULL);
	if (!data)
		return;
	int ifd[3];
	for (int i = 0; i < 3; i++) {
		char h[300], f[320], at[8];
		hrel(h, sizeof(h), dirs[i]);
		mkdir(h, 0755);
		memset(data, dirs[i][1], BIG); /* a, b, c */
		memset(letters[i], dirs[i][1], CHUNK);
		snprintf(f, sizeof(f), "%s/big", h);
		int fd = open(f, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		CHECK(fd >= 0 && write(fd, data, BIG) == (ssize_t)BIG, "host write of %s", f);
		close(fd);
		ifd[i] = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		CHECK(inotify_add_watch(ifd[i], h, IN_ACCESS) >= 0);
		snprintf(at, sizeof(at), "/%s", dirs[i]);
		uvfs_mkdirat(p, AT_FDCWD, at, 0755);
		CHECK_EQ(uvfs_mount(p, h, at, "hostfs", 0, opts[i]), 0);
	}
	free(data);
	/* A cached, and still after C, whose budget is its own */
	CHECK_EQ(u_big("/sa/big"), (long)BIG);
	CHECK_EQ(u_big("/sc/big"), (long)BIG);
	accesses(ifd[0]);
	accesses(ifd[2]);
	CHECK_EQ(u_big("/sa/big"), (long)BIG);
	CHECK_EQ(u_big("/sc/big"), (long)BIG);
	CHECK_EQ(accesses(ifd[0]), 0);
	CHECK_EQ(accesses(ifd[2]), 0);
	/* B, in another mount without pagecache=, takes A's room */
	CHECK_EQ(u_big("/sb/big"), (long)BIG);
	CHECK_EQ(u_big("/sa/big"), (long)BIG);
	CHECK(accesses(ifd[0]) > 0, "A kept: the budgets are per mount");
	CHECK_EQ(u_big("/sc/big"), (long)BIG);
	CHECK_EQ(accesses(ifd[2]), 0);
	/* readers of A and B evicting each other, across the remount below
	 * that gives B a budget of its own (also under TSan) */
	pthread_t t[2];
	sb_stop = 0;
	pthread_create(&t[0], NULL, big_reader, "/sa/big");
	pthread_create(&t[1], NULL, big_reader, "/sb/big");
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	/* a remount with pagecache= gives B a budget of its own: A and B
	 * both stay cached from then on */
	CHECK_EQ(uvfs_mount(p, NULL, "/sb", NULL, MS_REMOUNT, "pagecache=40m"), 0);
	nanosleep(&ts, NULL);
	__atomic_store_n(&sb_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++) {
		void *bad;
		pthread_join(t[i], &bad);
		CHECK(bad == NULL, "reader %d: %ld reads wrong", i, (long)bad);
	}
	/* B's pages a reader held at the remount stay in the shared budget
	 * until evicted (hostfs_pc_leave), and B's next fill after that is in
	 * its own: a round or two of reads, and then rounds that ask the host
	 * nothing (with one budget the two keep evicting each other) */
	int rounds, asked;
	accesses(ifd[0]);
	accesses(ifd[1]);
	for (rounds = 1;; rounds++) {
		CHECK_EQ(u_big("/sb/big"), (long)BIG);
		CHECK_EQ(u_big("/sa/big"), (long)BIG);
		asked = accesses(ifd[0]) + accesses(ifd[1]);
		if (!asked || rounds == 5)
			break;
	}
	CHECK(!asked, "A and B still read from the host after %d rounds", rounds);
	for (int i = 0; i < 3; i++) {
		char at[8], h[300];
		snprintf(at, sizeof(at), "/%s", dirs[i]);
		CHECK_EQ(uvfs_umount2(p, at, 0), 0);
		close(ifd[i]);
		hrel(h, sizeof(h), dirs[i]);
		strcat(h, "/big");
		unlink(h);
	}
}

static void test_options(void)
{
	SECTION("pagecache=: bad values");
	uvfs_mkdirat(p, AT_FDCWD, "/o", 0755);
	const char *bad[] = { "pagecache=", "pagecache=abc", "pagecache=1x", "pagecache=-1", "pagecache=2t",
			      "pagecache=1k,pagecache=2k", "pagecache=99999999999999g" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(uvfs_mount(p, src, "/o", "hostfs", 0, bad[i]) == -EINVAL, "%s", bad[i]);
	CHECK_EQ(uvfs_mount(p, src, "/o", "hostfs", 0, "pagecache=1k,pagecache=1k"), 0);
	CHECK_EQ(uvfs_umount2(p, "/o", 0), 0);
	CHECK_EQ(uvfs_mount(p, src, "/o", "hostfs", 0, "pagecache=2G"), 0);
	CHECK_EQ(uvfs_mount(p, NULL, "/o", NULL, MS_REMOUNT, "pagecache=bad"), -EINVAL);
	CHECK_EQ(uvfs_umount2(p, "/o", 0), 0);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP unit-hostfs-pages: needs root (a mount namespace of its own)\n0 passed, 0 failed\n");
		return 0;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		perror("unshare");
		return 1;
	}
	strcpy(top, "/dev/shm/uvfs-unit-hostfs-pages-XXXXXX");
	if (!mkdtemp(top) || mount("none", top, "tmpfs", 0, NULL))
		return 1;
	snprintf(src, sizeof(src), "%s/src", top);
	mkdir(src, 0755);
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	test_options();
	test_exclusive();
	test_host_changes();
	test_budget();
	test_threads();
	test_shared_budget();
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
	umount2(top, MNT_DETACH);
	rmdir(top);
	return check_done();
}
