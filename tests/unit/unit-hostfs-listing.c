// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-hostfs-listing: hostfs's listings from memory and its shared read
 * fds (src/fs/hostfs/hostfs_dir.c, hostfs_node.c), seen from the host.
 *
 *   - host calls, counted by the host's inotify on the source directory:
 *     a getdents64 of the host directory or a read of a file in it is an
 *     IN_ACCESS, an open for reading an IN_OPEN (hostfs's O_PATH opens and
 *     fstatat make none).  cache=exclusive: the second and later listings
 *     of a directory make no host call, the second open+read+close of a
 *     file no host open (its read is one pread); cache=revalidate lists
 *     from the host every time.  A name made on the host behind uvfs's
 *     back (which cache=exclusive says does not happen) shows in the
 *     revalidate listing only, so the exclusive one did not ask the host;
 *   - offsets against the host: a directory the host made, with its
 *     newest names removed on the host first, is changed through uvfs
 *     (creates, unlinks, mkdir, rmdir, symlinks, links, renames within,
 *     out of and into it); after each change uvfs's listing, read whole and
 *     from every d_off it handed out, is record for record (name, d_off,
 *     d_ino, d_type) the host's getdents64 of the same directory; readers
 *     under way in uvfs and on the host across the changes return the same
 *     records.  A rename over another name is compared as sets: Linux walks
 *     the renamed name out of offset order there, uvfs keeps the order
 *     (readdir.c);
 *   - fds=4: a shared read fd goes back to the LRU once no open file uses
 *     it (the file is opened again after others took the room), and a file
 *     open meanwhile keeps its fd and reads on; a remount with fds= gives
 *     a mount without it a bound of its own (another mount's fds in use
 *     no longer make it close its own);
 *   - threads (also under TSan, tests/run-tsan.sh): two listers of a
 *     directory that a third thread keeps changing (every name that stays
 *     comes exactly once in each listing) and a reader of its files
 *     through fds=8, for a second.
 */
#include "uvfs.h"
#include "check.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char top[64], src[128];
static struct uvfs *u;
static struct uvfs_proc *p;

struct dent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void put_file(const char *rel, const char *data)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/%s", src, rel);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		perror(path);
	close(fd);
}

static void hrel(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", src, rel);
}

static bool ts_before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Waits until the coarse clock, which uvfs stamps atimes with, is past the
 * host file's ctime and mtime.  A first read in the clock tick of the
 * file's last change leaves its atime not newer than them (on Linux too),
 * so relatime moves it again at a later read, and uvfs then reads a byte
 * on the host so that the host's atime moves as well (hostfs_read's
 * host_touch): a host read that the counts of cached reads would take for a
 * miss.  (CI run 45 saw it, under TSan: "again: 0 opens 1 reads".) */
static void past_last_change(const char *rel)
{
	char h[300];
	struct stat st;
	hrel(h, sizeof(h), rel);
	if (stat(h, &st))
		return;
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if (ts_before(st.st_ctim, now) && ts_before(st.st_mtim, now))
			return;
		usleep(1000);
	}
}

/* ---- counting host calls ---- */

struct counts {
	int dir_open, dir_access, file_open, file_access;
};

/* The events queued on ifd since the last call: the directory's own, and
 * those of the file called name in it. */
static struct counts drain(int ifd, const char *name)
{
	struct counts c = { 0 };
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(ifd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			off += (ssize_t)(sizeof(*ev) + ev->len);
			bool self = !ev->len || !ev->name[0];
			if (self) {
				c.dir_open += !!(ev->mask & IN_OPEN);
				c.dir_access += !!(ev->mask & IN_ACCESS);
			} else if (name && !strcmp(ev->name, name)) {
				c.file_open += !!(ev->mask & IN_OPEN);
				c.file_access += !!(ev->mask & IN_ACCESS);
			}
		}
	}
	return c;
}

/* Lists the uvfs directory whole: the number of names, or -errno. */
static int u_list(const char *path, const char *want)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	char buf[4096];
	int n = 0, found = 0;
	long r;
	while ((r = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			off += d->d_reclen;
			n++;
			found += want && !strcmp(d->d_name, want);
		}
	uvfs_close(p, fd);
	return r < 0 ? (int)r : want ? found : n;
}

static long u_cat(const char *path, char *buf, size_t n)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	long r = uvfs_read(p, fd, buf, n - 1);
	buf[r > 0 ? r : 0] = 0;
	uvfs_close(p, fd);
	return r;
}

static void test_host_calls(void)
{
	SECTION("host calls: second listing and open");
	mkdir(src, 0755);
	char h[300];
	hrel(h, sizeof(h), "c");
	mkdir(h, 0755);
	put_file("c/a", "alpha");
	put_file("c/b", "beta");
	hrel(h, sizeof(h), "c/sub");
	mkdir(h, 0755);
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	hrel(h, sizeof(h), "c");
	CHECK(inotify_add_watch(ifd, h, IN_OPEN | IN_ACCESS) >= 0);
	uvfs_mkdirat(p, AT_FDCWD, "/x", 0755);
	uvfs_mkdirat(p, AT_FDCWD, "/r", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/x", "hostfs", 0, "cache=exclusive"), 0);
	CHECK_EQ(uvfs_mount(p, src, "/r", "hostfs", 0, "cache=revalidate"), 0);
	drain(ifd, NULL);

	/* the first listing reads the host directory; later ones do not */
	CHECK_EQ(u_list("/x/c", NULL), 5);
	struct counts c = drain(ifd, NULL);
	CHECK(c.dir_open == 1 && c.dir_access >= 1, "first: %d opens %d reads", c.dir_open, c.dir_access);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(u_list("/x/c", NULL), 5);
	c = drain(ifd, NULL);
	CHECK(c.dir_open == 0 && c.dir_access == 0, "again: %d opens %d reads", c.dir_open, c.dir_access);
	/* revalidate: each listing is the host's */
	for (int i = 0; i < 3; i++)
		CHECK_EQ(u_list("/r/c", NULL), 5);
	c = drain(ifd, NULL);
	CHECK(c.dir_open == 3 && c.dir_access >= 3, "revalidate: %d opens %d reads", c.dir_open, c.dir_access);

	/* uvfs's own changes show in the cached listing, still without the host */
	CHECK_EQ(uvfs_close(p, uvfs_openat(p, AT_FDCWD, "/x/c/new", O_CREAT | O_WRONLY, 0644)), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/x/c/b", 0), 0);
	drain(ifd, NULL);
	CHECK_EQ(u_list("/x/c", "new"), 1);
	CHECK_EQ(u_list("/x/c", "b"), 0);
	c = drain(ifd, NULL);
	CHECK(c.dir_open == 0 && c.dir_access == 0, "after changes: %d opens %d reads", c.dir_open, c.dir_access);
	/* a name made behind uvfs's back: the revalidate listing asks the host */
	put_file("c/behind", "x");
	CHECK_EQ(u_list("/r/c", "behind"), 1);
	CHECK_EQ(u_list("/x/c", "behind"), 0);

	/* open+read+close: the first opens a host fd and reads the data into
	 * the page cache (hostfs_pages.c), the next ones read from memory */
	char buf[32];
	past_last_change("c/a");
	drain(ifd, "a");
	CHECK_EQ(u_cat("/x/c/a", buf, sizeof(buf)), 5);
	c = drain(ifd, "a");
	CHECK(c.file_open == 1 && c.file_access == 1, "first: %d opens %d reads", c.file_open, c.file_access);
	/* (inotify folds an event into the same one queued last: drained
	 * after each, every read counts) */
	struct counts sum = { 0 };
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(u_cat("/x/c/a", buf, sizeof(buf)), 5);
		CHECK(!strcmp(buf, "alpha"), "%s", buf);
		c = drain(ifd, "a");
		sum.file_open += c.file_open;
		sum.file_access += c.file_access;
	}
	CHECK(sum.file_open == 0 && sum.file_access == 0, "again: %d opens %d reads", sum.file_open, sum.file_access);
	/* two read-only opens at once share it; a writer has its own */
	int f1 = uvfs_openat(p, AT_FDCWD, "/x/c/a", O_RDONLY, 0);
	int f2 = uvfs_openat(p, AT_FDCWD, "/x/c/a", O_RDONLY, 0);
	int fw = uvfs_openat(p, AT_FDCWD, "/x/c/a", O_RDWR, 0);
	CHECK_EQ(uvfs_read(p, f1, buf, 2), 2);
	CHECK_EQ(uvfs_read(p, f2, buf, 3), 3);
	CHECK_EQ(uvfs_read(p, f1, buf, 3), 3);
	CHECK(!memcmp(buf, "pha", 3), "%.3s", buf);
	CHECK_EQ(uvfs_pwrite(p, fw, "ALPHA", 5, 0), 5);
	CHECK_EQ(uvfs_pread(p, f2, buf, 5, 0), 5);
	CHECK(!memcmp(buf, "ALPHA", 5), "%.5s", buf);
	c = drain(ifd, "a");
	CHECK_EQ(c.file_open, 1); /* the writer's */
	uvfs_close(p, f1);
	uvfs_close(p, f2);
	uvfs_close(p, fw);
	/* a stat of a cached file asks nothing */
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/x/c/a", &st, 0), 0);
	c = drain(ifd, "a");
	CHECK(c.file_open == 0 && c.file_access == 0, "stat: %d opens %d reads", c.file_open, c.file_access);
	/* revalidate: the walk asks the host, so a file the host replaced
	 * reads as the new one (and opens it) */
	CHECK_EQ(u_cat("/r/c/a", buf, sizeof(buf)), 5);
	put_file("c/a.new", "replaced");
	char h2[300];
	hrel(h, sizeof(h), "c/a.new");
	hrel(h2, sizeof(h2), "c/a");
	CHECK_EQ(rename(h, h2), 0);
	drain(ifd, "a");
	CHECK_EQ(u_cat("/r/c/a", buf, sizeof(buf)), 8);
	CHECK(!strcmp(buf, "replaced"), "%s", buf);
	c = drain(ifd, "a");
	CHECK_EQ(c.file_open, 1);
	/* exclusive keeps the inode it had: no host call to notice */
	CHECK_EQ(u_cat("/x/c/a", buf, sizeof(buf)), 5);
	CHECK(!strcmp(buf, "ALPHA"), "%s", buf);
	c = drain(ifd, "a");
	CHECK(c.file_open == 0, "%d opens", c.file_open);
	CHECK_EQ(uvfs_umount2(p, "/x", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/r", 0), 0);
	close(ifd);
}

/* ---- offsets against the host ---- */

/* The records of a getdents64 loop from pos (one record a call if one),
 * as "name@d_off:ino:type ..."; the host's with host set. */
static char *records(bool host, int fd, int64_t pos, bool one, int calls, char *out, size_t n)
{
	char buf[4096];
	size_t used = 0;
	out[0] = 0;
	if (pos >= 0) {
		int64_t r = host ? lseek(fd, pos, SEEK_SET) : uvfs_lseek(p, fd, pos, SEEK_SET);
		if (r != pos)
			snprintf(out, n, "lseek %lld: %lld", (long long)pos, (long long)r);
		if (r != pos)
			return out;
	}
	for (int k = 0; !calls || k < calls; k++) {
		size_t sz = one ? 32 + 256 : sizeof(buf);
		/* one record: a buffer just big enough for the next */
		long r;
		if (one) {
			for (sz = 24;; sz += 8) {
				r = host ? syscall(SYS_getdents64, fd, buf, sz) : uvfs_getdents64(p, fd, buf, sz);
				if (!(host ? r < 0 && errno == EINVAL : r == -EINVAL) || sz >= sizeof(buf))
					break;
			}
		} else {
			r = host ? syscall(SYS_getdents64, fd, buf, sz) : uvfs_getdents64(p, fd, buf, sz);
		}
		if (host && r < 0)
			r = -errno;
		if (r <= 0) {
			if (r < 0)
				used += (size_t)snprintf(out + used, n - used, "|%ld", r);
			break;
		}
		for (long off = 0; off < r && used < n - 1;) {
			struct dent *d = (void *)(buf + off);
			off += d->d_reclen;
			used += (size_t)snprintf(out + used, n - used, "%s@%lld:%llu:%u ", d->d_name, (long long)d->d_off,
						 (unsigned long long)d->d_ino, d->d_type);
			if (used >= n)
				used = n - 1;
		}
	}
	return out;
}

static int64_t offs[256];
static int noffs;

/* uvfs's /h/L against the host's L: whole, then from each d_off handed out. */
static void compare(const char *when)
{
	char hp[300];
	hrel(hp, sizeof(hp), "L");
	int hfd = open(hp, O_RDONLY | O_DIRECTORY);
	int ufd = uvfs_openat(p, AT_FDCWD, "/h/L", O_RDONLY | O_DIRECTORY, 0);
	static char a[16384], b[16384];
	records(true, hfd, -1, false, 0, a, sizeof(a));
	records(false, ufd, -1, false, 0, b, sizeof(b));
	CHECK(!strcmp(a, b), "%s: whole:\n   host %s\n   uvfs %s", when, a, b);
	/* every d_off of the listing, as a position */
	noffs = 0;
	for (char *s = strchr(a, '@'); s && noffs < 256; s = strchr(s + 1, '@'))
		offs[noffs++] = strtoll(s + 1, NULL, 10);
	int bad = 0;
	for (int i = 0; i < noffs; i++) {
		records(true, hfd, offs[i], true, 3, a, sizeof(a));
		records(false, ufd, offs[i], true, 3, b, sizeof(b));
		if (strcmp(a, b) && !bad++)
			CHECK(0, "%s: from %lld:\n   host %s\n   uvfs %s", when, (long long)offs[i], a, b);
	}
	CHECK_EQ(bad, 0);
	close(hfd);
	uvfs_close(p, ufd);
}

/* The sorted set of "name:ino" of a listing's records. */
static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void name_set(char *recs, char *out, size_t n)
{
	char *v[256];
	int k = 0;
	for (char *t = strtok(recs, " "); t && k < 256; t = strtok(NULL, " ")) {
		char *at = strchr(t, '@'), *colon = at ? strchr(at, ':') : NULL;
		char *end = colon ? strchr(colon + 1, ':') : NULL;
		if (!at || !end)
			continue;
		memmove(at, colon, (size_t)(end - colon));
		at[end - colon] = 0;
		v[k++] = t;
	}
	qsort(v, (size_t)k, sizeof(v[0]), cmp_str);
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < k && used < n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s ", v[i]);
}

static void test_offsets(void)
{
	SECTION("offsets: uvfs's listing against the host's");
	char h[300];
	hrel(h, sizeof(h), "L");
	mkdir(h, 0755);
	for (int i = 0; i < 12; i++) {
		char n[16];
		snprintf(n, sizeof(n), "L/f%02d", i);
		put_file(n, "");
	}
	hrel(h, sizeof(h), "L/d0");
	mkdir(h, 0755);
	hrel(h, sizeof(h), "M");
	mkdir(h, 0755);
	put_file("M/m0", "");
	/* the host's newest names go before uvfs looks: its counter is past
	 * the newest name it has */
	hrel(h, sizeof(h), "L/d0");
	rmdir(h);
	hrel(h, sizeof(h), "L/f11");
	unlink(h);
	hrel(h, sizeof(h), "L/f03");
	unlink(h);
	uvfs_mkdirat(p, AT_FDCWD, "/h", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/h", "hostfs", 0, "cache=exclusive"), 0);
	compare("first read");
	hrel(h, sizeof(h), "L");
	int hr = open(h, O_RDONLY | O_DIRECTORY);
	int ur = uvfs_openat(p, AT_FDCWD, "/h/L", O_RDONLY | O_DIRECTORY, 0);
	static char a[16384], b[16384];
	records(true, hr, -1, true, 4, a, sizeof(a));
	records(false, ur, -1, true, 4, b, sizeof(b));
	CHECK(!strcmp(a, b), "readers' first 4:\n   host %s\n   uvfs %s", a, b);

	CHECK_EQ(uvfs_close(p, uvfs_openat(p, AT_FDCWD, "/h/L/n0", O_CREAT | O_WRONLY, 0644)), 0);
	compare("create");
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h/L/f05", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h/L/f10", 0), 0);
	compare("unlinks");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/h/L/sub", 0755), 0);
	CHECK_EQ(uvfs_symlinkat(p, "f00", AT_FDCWD, "/h/L/sym"), 0);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/h/L/f01", AT_FDCWD, "/h/L/hard", 0), 0);
	compare("mkdir, symlink, link");
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/h/L/f02", AT_FDCWD, "/h/L/f02r", 0), 0);
	compare("rename within");
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/h/L/f04", AT_FDCWD, "/h/M/f04", 0), 0);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/h/M/m0", AT_FDCWD, "/h/L/m0", 0), 0);
	compare("renames out and in");
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h/L/sub", AT_REMOVEDIR), 0);
	CHECK_EQ(uvfs_close(p, uvfs_openat(p, AT_FDCWD, "/h/L/f05", O_CREAT | O_WRONLY, 0644)), 0);
	compare("rmdir, a name made again");
	/* the readers under way since the first read */
	records(true, hr, -1, true, 0, a, sizeof(a));
	records(false, ur, -1, true, 0, b, sizeof(b));
	CHECK(!strcmp(a, b), "readers' rest:\n   host %s\n   uvfs %s", a, b);
	/* renamed over another name: the same names, in uvfs's order */
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/h/L/f06", AT_FDCWD, "/h/L/f07", 0), 0);
	int hfd = open(h, O_RDONLY | O_DIRECTORY);
	int ufd = uvfs_openat(p, AT_FDCWD, "/h/L", O_RDONLY | O_DIRECTORY, 0);
	static char sa[16384], sb[16384];
	name_set(records(true, hfd, -1, false, 0, a, sizeof(a)), sa, sizeof(sa));
	name_set(records(false, ufd, -1, false, 0, b, sizeof(b)), sb, sizeof(sb));
	CHECK(!strcmp(sa, sb), "rename over:\n   host %s\n   uvfs %s", sa, sb);
	close(hfd);
	uvfs_close(p, ufd);
	close(hr);
	uvfs_close(p, ur);
	CHECK_EQ(uvfs_umount2(p, "/h", 0), 0);
}

/* ---- the fd bound ---- */

static void test_fd_bound(void)
{
	SECTION("fds=4,pagecache=0: shared read fds and the LRU");
	char h[300];
	hrel(h, sizeof(h), "B");
	mkdir(h, 0755);
	for (int i = 0; i < 10; i++) {
		char n[16], d[16];
		snprintf(n, sizeof(n), "B/g%d", i);
		snprintf(d, sizeof(d), "data%d", i);
		put_file(n, d);
	}
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(inotify_add_watch(ifd, h, IN_OPEN | IN_ACCESS) >= 0);
	uvfs_mkdirat(p, AT_FDCWD, "/b", 0755);
	/* without the page cache, so that every read is the host's */
	CHECK_EQ(uvfs_mount(p, src, "/b", "hostfs", 0, "fds=4,pagecache=0"), 0);
	char buf[32];
	/* g0 open throughout: its fd is in use, the LRU leaves it */
	int held = uvfs_openat(p, AT_FDCWD, "/b/B/g0", O_RDONLY, 0);
	CHECK_EQ(uvfs_read(p, held, buf, 2), 2);
	drain(ifd, NULL);
	int bad = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 1; i < 10; i++) {
			char path[32], want[16];
			snprintf(path, sizeof(path), "/b/B/g%d", i);
			snprintf(want, sizeof(want), "data%d", i);
			bad += u_cat(path, buf, sizeof(buf)) != 5 || strcmp(buf, want);
		}
	CHECK_EQ(bad, 0);
	/* g1 was read first in each pass: its fd went to the others between */
	struct counts c = drain(ifd, "g1");
	CHECK_EQ(c.file_open, 2);
	CHECK_EQ(uvfs_read(p, held, buf, 3), 3);
	CHECK(!memcmp(buf, "ta0", 3), "%.3s", buf);
	c = drain(ifd, "g0");
	CHECK(c.file_open == 0 && c.file_access == 1, "held: %d opens %d reads", c.file_open, c.file_access);
	uvfs_close(p, held);
	CHECK_EQ(uvfs_umount2(p, "/b", 0), 0);
	close(ifd);
}

/* A remount with fds= gives a mount that shared the default fd bound one of
 * its own: its fds no longer count against the other mounts' (nor theirs
 * against it), as a mount made with fds= has. */
static void test_fd_remount(void)
{
	SECTION("remount fds=: a bound of its own");
	char ha[300], hb[300];
	hrel(ha, sizeof(ha), "RA");
	hrel(hb, sizeof(hb), "RB");
	mkdir(ha, 0755);
	mkdir(hb, 0755);
	for (int i = 0; i < 40; i++) {
		char n[16];
		snprintf(n, sizeof(n), "RB/h%d", i);
		put_file(n, "b");
		if (i < 4) {
			snprintf(n, sizeof(n), "RA/h%d", i);
			put_file(n, "a");
		}
	}
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(inotify_add_watch(ifd, ha, IN_OPEN) >= 0);
	uvfs_mkdirat(p, AT_FDCWD, "/ra", 0755);
	uvfs_mkdirat(p, AT_FDCWD, "/rb", 0755);
	/* without the page cache: every read takes the shared read fd */
	CHECK_EQ(uvfs_mount(p, ha, "/ra", "hostfs", 0, "pagecache=0"), 0);
	CHECK_EQ(uvfs_mount(p, hb, "/rb", "hostfs", 0, "pagecache=0"), 0);
	/* 40 files of B open: 40 fds in use, more than A's bound to come */
	int held[40];
	char buf[8];
	for (int i = 0; i < 40; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/rb/h%d", i);
		held[i] = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
		CHECK(held[i] >= 0 && uvfs_read(p, held[i], buf, 1) == 1, "%s", path);
	}
	CHECK_EQ(uvfs_mount(p, NULL, "/ra", NULL, MS_REMOUNT, "fds=16"), 0);
	int opens = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 4; i++) {
			char path[32], name[8];
			snprintf(path, sizeof(path), "/ra/h%d", i);
			snprintf(name, sizeof(name), "h%d", i);
			CHECK_EQ(u_cat(path, buf, sizeof(buf)), 1);
			opens += drain(ifd, name).file_open;
		}
		if (pass == 0)
			opens = 0;
	}
	/* A's 4 files (8 fds and the root's) fit its 16: their read fds stay */
	CHECK(opens == 0, "%d host opens in the second pass", opens);
	for (int i = 0; i < 40; i++)
		uvfs_close(p, held[i]);
	CHECK_EQ(uvfs_umount2(p, "/ra", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/rb", 0), 0);
	close(ifd);
}

/* ---- threads ---- */

static volatile int stop_threads;
static int thread_bad[4];

/* Lists /t/T again and again: the names that stay (s0..s9) come exactly
 * once each time. */
static void *lister(void *arg)
{
	int id = (int)(intptr_t)arg;
	char buf[512]; /* a few records a call: readers interleave with changes */
	while (!__atomic_load_n(&stop_threads, __ATOMIC_RELAXED)) {
		int fd = uvfs_openat(p, AT_FDCWD, "/t/T", O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0) {
			thread_bad[id]++;
			continue;
		}
		int seen[10] = { 0 };
		long r;
		while ((r = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < r;) {
				struct dent *d = (void *)(buf + off);
				off += d->d_reclen;
				if (d->d_name[0] == 's' && d->d_name[1] >= '0' && d->d_name[1] <= '9' && !d->d_name[2])
					seen[d->d_name[1] - '0']++;
			}
		for (int i = 0; i < 10; i++)
			thread_bad[id] += r < 0 || seen[i] != 1;
		uvfs_close(p, fd);
	}
	return NULL;
}

/* Makes and removes names in /t/T, renames them within and out. */
static void *changer(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (int i = 0; !__atomic_load_n(&stop_threads, __ATOMIC_RELAXED); i++) {
		char a[32], b[32];
		snprintf(a, sizeof(a), "/t/T/n%d", i % 50);
		snprintf(b, sizeof(b), i % 2 ? "/t/T/m%d" : "/t/U/m%d", i % 50);
		int fd = uvfs_openat(p, AT_FDCWD, a, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			thread_bad[id]++;
			continue;
		}
		uvfs_close(p, fd);
		thread_bad[id] += uvfs_renameat2(p, AT_FDCWD, a, AT_FDCWD, b, 0) != 0;
		thread_bad[id] += uvfs_unlinkat(p, AT_FDCWD, b, 0) != 0;
	}
	return NULL;
}

/* Reads the files in turn through fds=8: shared read fds come and go. */
static void *reader(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (int i = 0; !__atomic_load_n(&stop_threads, __ATOMIC_RELAXED); i++) {
		char path[32], buf[16];
		snprintf(path, sizeof(path), "/t/T/s%d", i % 10);
		thread_bad[id] += u_cat(path, buf, sizeof(buf)) != 2 || buf[0] != 's';
	}
	return NULL;
}

static void test_threads(void)
{
	SECTION("threads: two listers, a changer, a reader over fds=8");
	char h[300];
	hrel(h, sizeof(h), "T");
	mkdir(h, 0755);
	hrel(h, sizeof(h), "U");
	mkdir(h, 0755);
	for (int i = 0; i < 10; i++) {
		char n[16], d[4];
		snprintf(n, sizeof(n), "T/s%d", i);
		snprintf(d, sizeof(d), "s%d", i);
		put_file(n, d);
	}
	uvfs_mkdirat(p, AT_FDCWD, "/t", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/t", "hostfs", 0, "fds=8"), 0);
	pthread_t th[4];
	void *(*fn[4])(void *) = { lister, lister, changer, reader };
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, fn[i], (void *)(intptr_t)i);
	struct timespec ts = { .tv_sec = 1 };
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop_threads, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 4; i++)
		CHECK(thread_bad[i] == 0, "thread %d: %d bad", i, thread_bad[i]);
	/* what is left is the host's */
	CHECK_EQ(u_list("/t/T", NULL), 12);
	CHECK_EQ(uvfs_umount2(p, "/t", 0), 0);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP unit-hostfs-listing: needs root (a mount namespace of its own)\n0 passed, 0 failed\n");
		return 0;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		perror("unshare");
		return 1;
	}
	/* a tmpfs of our own: the host's numbering is tmpfs's */
	strcpy(top, "/dev/shm/uvfs-unit-hostfs-listing-XXXXXX");
	if (!mkdtemp(top) || mount("none", top, "tmpfs", 0, NULL))
		return 1;
	snprintf(src, sizeof(src), "%s/src", top);
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	test_host_calls();
	test_fd_bound();
	test_fd_remount();
	test_offsets();
	test_threads();
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
	umount2(top, MNT_DETACH);
	rmdir(top);
	return check_done();
}
