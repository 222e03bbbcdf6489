// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-hostfs-watch: hostfs with cache=watch (src/fs/hostfs/hostfs_watch.c).
 *
 * Each check makes one change on the host (a plain syscall on the source
 * directory, as another program would) and looks with the very next uvfs
 * call, with no wait and no retry:
 *
 *   - stat: a name the host created, removed, renamed (also a directory
 *     above a cached file) or replaced; a size the host's write and
 *     truncate changed; a mode the host's chmod changed;
 *   - inotify: a uvfs watcher of the directory and of a file reads
 *     IN_CREATE, IN_MODIFY, IN_ATTRIB, IN_MOVED_FROM/IN_MOVED_TO (one
 *     cookie, not 0), IN_DELETE, IN_CREATE|IN_ISDIR with the names; a
 *     reader asleep in a blocking read is woken by a host change;
 *   - uvfs's own changes (create, write, chmod, rename, unlink) reach a
 *     watcher once, not a second time from the host's report;
 *   - the bounded resources: one host watch per cached directory, and at
 *     umount no inotify fd and no thread is left;
 *   - host removals and renames as Linux orders their events: unlink
 *     (IN_ATTRIB, IN_DELETE_SELF, IN_IGNORED, then the directory's
 *     IN_DELETE), rename (IN_MOVE_SELF after IN_MOVED_TO), a rename over a
 *     name (the replaced object's IN_ATTRIB, the moved one's IN_MOVE_SELF,
 *     the replaced one's IN_DELETE_SELF), a hard link made and removed
 *     (IN_ATTRIB, and stat's link count), rmdir, a directory renamed and
 *     one renamed out of every watched directory;
 *   - the host's queue overflowing (hostfs's thread parked in a signal
 *     handler meanwhile) reaches a uvfs watcher as IN_Q_OVERFLOW.
 */
#include "uvfs.h"
#include "check.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char src[64]; /* /dev/shm/uvfs-unit-hostfs-watch-XXXXXX */
static struct uvfs *u;
static struct uvfs_proc *p;

static void hpath(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", src, rel);
}

static void host_put(const char *rel, const char *data, int flags)
{
	char path[160];
	hpath(path, sizeof(path), rel);
	int fd = open(path, O_CREAT | O_WRONLY | flags, 0644);
	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		perror(path);
	close(fd);
}

static int host(int r)
{
	if (r)
		perror("host call");
	return r;
}

static long u_size(const char *path)
{
	struct stat st;
	int r = uvfs_fstatat(p, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	return r ? r : (long)st.st_size;
}

static long u_ino(const char *path)
{
	struct stat st;
	int r = uvfs_fstatat(p, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	return r ? r : (long)st.st_ino;
}

static long h_ino(const char *rel)
{
	char path[160];
	struct stat st;
	hpath(path, sizeof(path), rel);
	return lstat(path, &st) ? -errno : (long)st.st_ino;
}

/* ---- events ---- */

struct ev {
	int wd;
	uint32_t mask, cookie;
	char name[64];
};

/* Every event queued now (non-blocking fd): their number. */
static int read_events(int ifd, struct ev *out, int max)
{
	char buf[4096] __attribute__((aligned(8)));
	int n = 0;
	for (;;) {
		long r = uvfs_read(p, ifd, buf, sizeof(buf));
		if (r <= 0)
			return n;
		for (long off = 0; off < r;) {
			struct inotify_event *e = (struct inotify_event *)(buf + off);
			if (n < max) {
				out[n].wd = e->wd;
				out[n].mask = e->mask;
				out[n].cookie = e->cookie;
				snprintf(out[n].name, sizeof(out[n].name), "%s", e->len ? e->name : "");
			}
			n++;
			off += (long)sizeof(*e) + e->len;
		}
	}
}

static int count(const struct ev *e, int n, int wd, uint32_t mask, const char *name)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (e[i].wd == wd && e[i].mask == mask && !strcmp(e[i].name, name))
			c++;
	return c;
}

/* ---- host resources of this process ---- */

/* inotify fds, and the watches of all of them (from /proc/self/fdinfo) */
static int host_inotify(int *watches)
{
	DIR *d = opendir("/proc/self/fd");
	int fds = 0;
	*watches = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char path[300], link[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strcmp(link, "anon_inode:inotify"))
			continue;
		fds++;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", de->d_name);
		FILE *f = fopen(path, "r");
		char line[512];
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "inotify wd:", 11))
				(*watches)++;
		if (f)
			fclose(f);
	}
	closedir(d);
	return fds;
}

static int host_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* ---- tests ---- */

static void test_stat(void)
{
	SECTION("a host change shows to the next uvfs stat");
	char a[160], b[160];
	mkdir(src, 0755);
	host_put("f", "1234", O_TRUNC);
	hpath(a, sizeof(a), "d");
	mkdir(a, 0755);
	host_put("d/x", "x", O_TRUNC);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	/* cached: names, attributes */
	CHECK_EQ(u_size("/w/f"), 4);
	CHECK_EQ(u_size("/w/d/x"), 1);
	CHECK_EQ(u_size("/w/f"), 4);

	host_put("f", "56789", O_APPEND);
	CHECK_EQ(u_size("/w/f"), 9);
	hpath(a, sizeof(a), "f");
	host(truncate(a, 2));
	CHECK_EQ(u_size("/w/f"), 2);
	host(chmod(a, 0600));
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/f", &st, 0), 0);
	CHECK_EQ(st.st_mode & 07777, 0600);
	/* through an open file too (fstat: getattr, no walk) */
	int fd = uvfs_openat(p, AT_FDCWD, "/w/f", O_RDONLY, 0);
	CHECK(fd >= 0);
	host_put("f", "abc", O_APPEND);
	CHECK_EQ(uvfs_fstat(p, fd, &st), 0);
	CHECK_EQ(st.st_size, 5);
	uvfs_close(p, fd);

	/* names: created, removed, renamed, replaced */
	CHECK_ERR(u_size("/w/g"), ENOENT);
	host_put("g", "gg", O_TRUNC);
	CHECK_EQ(u_size("/w/g"), 2);
	hpath(a, sizeof(a), "g");
	hpath(b, sizeof(b), "h");
	host(rename(a, b));
	CHECK_ERR(u_size("/w/g"), ENOENT);
	CHECK_EQ(u_ino("/w/h"), h_ino("h"));
	host(unlink(b));
	CHECK_ERR(u_size("/w/h"), ENOENT);
	long old = u_ino("/w/f");
	host_put("new", "n", O_TRUNC);
	hpath(a, sizeof(a), "new");
	hpath(b, sizeof(b), "f");
	host(rename(a, b));
	CHECK(u_ino("/w/f") != old);
	CHECK_EQ(u_ino("/w/f"), h_ino("f"));
	CHECK_EQ(u_size("/w/f"), 1);

	/* a directory above a cached file renamed on the host */
	CHECK_EQ(u_size("/w/d/x"), 1);
	hpath(a, sizeof(a), "d");
	hpath(b, sizeof(b), "e");
	host(rename(a, b));
	CHECK_ERR(u_size("/w/d/x"), ENOENT);
	CHECK_EQ(u_ino("/w/e/x"), h_ino("e/x"));
	host(rename(b, a));
	CHECK_EQ(u_ino("/w/d/x"), h_ino("d/x"));
	/* a new file in a cached subdirectory, its content read through uvfs */
	host_put("d/y", "hello", O_TRUNC);
	char buf[16] = "";
	fd = uvfs_openat(p, AT_FDCWD, "/w/d/y", O_RDONLY, 0);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 5);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

static void test_inotify(void)
{
	SECTION("a host change shows to the next uvfs inotify read");
	char a[160], b[160];
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	CHECK(ifd >= 0);
	int wd = uvfs_inotify_add_watch(p, ifd, "/w", IN_ALL_EVENTS);
	int fwd = uvfs_inotify_add_watch(p, ifd, "/w/f", IN_ALL_EVENTS);
	CHECK(wd >= 0 && fwd >= 0 && wd != fwd);
	struct ev e[32];
	CHECK_EQ(read_events(ifd, e, 32), 0);

	host_put("c", "", O_TRUNC); /* creat, then close: IN_CREATE only (no open/close events from the host) */
	int n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_CREATE, "c"), 1);

	hpath(a, sizeof(a), "f");
	int hfd = open(a, O_WRONLY);
	CHECK_EQ(write(hfd, "z", 1), 1);
	n = read_events(ifd, e, 32);
	CHECK_EQ(count(e, n, wd, IN_MODIFY, "f"), 1);
	CHECK_EQ(count(e, n, fwd, IN_MODIFY, ""), 1);
	CHECK_EQ(n, 2);
	close(hfd);
	(void)read_events(ifd, e, 32);

	host(chmod(a, 0640));
	n = read_events(ifd, e, 32);
	CHECK_EQ(count(e, n, wd, IN_ATTRIB, "f"), 1);
	CHECK_EQ(count(e, n, fwd, IN_ATTRIB, ""), 1);
	CHECK_EQ(n, 2);

	host(truncate(a, 0));
	n = read_events(ifd, e, 32);
	CHECK_EQ(count(e, n, wd, IN_MODIFY, "f"), 1);
	CHECK_EQ(count(e, n, fwd, IN_MODIFY, ""), 1);

	hpath(a, sizeof(a), "c");
	hpath(b, sizeof(b), "c2");
	host(rename(a, b));
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 2);
	CHECK_EQ(count(e, n, wd, IN_MOVED_FROM, "c"), 1);
	CHECK_EQ(count(e, n, wd, IN_MOVED_TO, "c2"), 1);
	CHECK(n == 2 && e[0].cookie != 0 && e[0].cookie == e[1].cookie);

	host(unlink(b));
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_DELETE, "c2"), 1);

	hpath(a, sizeof(a), "sub");
	host(mkdir(a, 0755));
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_CREATE | IN_ISDIR, "sub"), 1);
	host(rmdir(a));
	n = read_events(ifd, e, 32);
	CHECK_EQ(count(e, n, wd, IN_DELETE | IN_ISDIR, "sub"), 1);

	/* a change in a cached subdirectory, to a watcher of it */
	int dwd = uvfs_inotify_add_watch(p, ifd, "/w/d", IN_CREATE | IN_DELETE);
	CHECK(dwd >= 0);
	host_put("d/z", "", O_TRUNC);
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, dwd, IN_CREATE, "z"), 1);
	uvfs_close(p, ifd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

/* The events read, in order, are exactly want (n of them). */
static bool seq_equal(const struct ev *e, int n, const struct ev *want, int nw)
{
	bool ok = n == nw;
	for (int i = 0; ok && i < n; i++)
		ok = e[i].wd == want[i].wd && e[i].mask == want[i].mask && !strcmp(e[i].name, want[i].name);
	return ok;
}

/* The events read as "wd:mask:name ..." (CI's log keeps FAIL lines only). */
static const char *seq_str(const struct ev *e, int n)
{
	static char buf[512];
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < n && i < 32 && k < sizeof(buf) - 1; i++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%d:%#x:%s", i ? " " : "", e[i].wd, e[i].mask, e[i].name);
	return buf;
}

static void expect_seq(const char *what, const struct ev *e, int n, const struct ev *want, int nw)
{
	bool ok = seq_equal(e, n, want, nw);
	CHECK(ok, "%s: %d events, %d wanted; read: %s", what, n, nw, seq_str(e, n));
}

static void test_self_events(void)
{
	SECTION("host removals and renames: IN_ATTRIB, IN_DELETE_SELF, IN_MOVE_SELF in Linux's order");
	char a[160], b[160];
	hpath(a, sizeof(a), "s");
	host(mkdir(a, 0755));
	host_put("s/f", "f", O_TRUNC);
	host_put("s/g", "g", O_TRUNC);
	host_put("s/h", "h", O_TRUNC);
	hpath(a, sizeof(a), "s/sub");
	host(mkdir(a, 0755));
	hpath(a, sizeof(a), "s/sub2");
	host(mkdir(a, 0755));
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	int swd = uvfs_inotify_add_watch(p, ifd, "/w/s", IN_ALL_EVENTS);
	int fwd = uvfs_inotify_add_watch(p, ifd, "/w/s/f", IN_ALL_EVENTS);
	int gwd = uvfs_inotify_add_watch(p, ifd, "/w/s/g", IN_ALL_EVENTS);
	int hwd = uvfs_inotify_add_watch(p, ifd, "/w/s/h", IN_ALL_EVENTS);
	int subwd = uvfs_inotify_add_watch(p, ifd, "/w/s/sub", IN_ALL_EVENTS);
	int sub2wd = uvfs_inotify_add_watch(p, ifd, "/w/s/sub2", IN_ALL_EVENTS);
	CHECK(swd >= 0 && fwd >= 0 && gwd >= 0 && hwd >= 0 && subwd >= 0 && sub2wd >= 0);
	struct ev e[32];
	CHECK_EQ(read_events(ifd, e, 32), 0);

	/* unlink: the link count, the object gone, then the directory */
	hpath(a, sizeof(a), "s/f");
	host(unlink(a));
	int n = read_events(ifd, e, 32);
	struct ev unl[] = { { fwd, IN_ATTRIB, 0, "" }, { fwd, IN_DELETE_SELF, 0, "" }, { fwd, IN_IGNORED, 0, "" },
			    { swd, IN_DELETE, 0, "f" } };
	expect_seq("unlink", e, n, unl, 4);
	struct stat st;
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/w/s/f", &st, 0), ENOENT);

	/* rename: moved_from, moved_to, then the object's move_self */
	hpath(a, sizeof(a), "s/g");
	hpath(b, sizeof(b), "s/g2");
	host(rename(a, b));
	n = read_events(ifd, e, 32);
	struct ev ren[] = { { swd, IN_MOVED_FROM, 0, "g" }, { swd, IN_MOVED_TO, 0, "g2" }, { gwd, IN_MOVE_SELF, 0, "" } };
	expect_seq("rename", e, n, ren, 3);
	CHECK(n == 3 && e[0].cookie && e[0].cookie == e[1].cookie);

	/* a rename over a name: the replaced object's attrib, the moved
	 * object's move_self, then the replaced one is gone */
	hpath(a, sizeof(a), "s/g2");
	hpath(b, sizeof(b), "s/h");
	host(rename(a, b));
	n = read_events(ifd, e, 32);
	struct ev over[] = { { swd, IN_MOVED_FROM, 0, "g2" }, { swd, IN_MOVED_TO, 0, "h" }, { hwd, IN_ATTRIB, 0, "" },
			     { gwd, IN_MOVE_SELF, 0, "" }, { hwd, IN_DELETE_SELF, 0, "" }, { hwd, IN_IGNORED, 0, "" } };
	expect_seq("rename over", e, n, over, 6);
	/* the moved object, found by its new name, is still heard */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/s/h", &st, 0), 0);
	host_put("s/h", "more", O_APPEND);
	n = read_events(ifd, e, 32);
	CHECK_EQ(count(e, n, gwd, IN_MODIFY, ""), 1);
	CHECK_EQ(count(e, n, swd, IN_MODIFY, "h"), 1);

	/* a host link(2) of a cached file: its link count (IN_ATTRIB first, as
	 * Linux's link), then the new name; the removal of that other name */
	host_put("s/k", "k", O_TRUNC);
	int kwd = uvfs_inotify_add_watch(p, ifd, "/w/s/k", IN_ALL_EVENTS);
	CHECK(kwd >= 0);
	(void)read_events(ifd, e, 32);
	hpath(a, sizeof(a), "s/k");
	hpath(b, sizeof(b), "s/k2");
	host(link(a, b));
	n = read_events(ifd, e, 32);
	struct ev lnk[] = { { kwd, IN_ATTRIB, 0, "" }, { swd, IN_CREATE, 0, "k2" } };
	expect_seq("link", e, n, lnk, 2);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/s/k", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 2);
	host(unlink(b));
	n = read_events(ifd, e, 32);
	struct ev unl2[] = { { kwd, IN_ATTRIB, 0, "" }, { swd, IN_DELETE, 0, "k2" } };
	expect_seq("unlink of the other name", e, n, unl2, 2);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/s/k", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 1);

	/* rmdir: no attrib (Linux's vfs_rmdir tells none); inotify never
	 * sets IN_ISDIR on the self events */
	hpath(a, sizeof(a), "s/sub");
	host(rmdir(a));
	n = read_events(ifd, e, 32);
	struct ev rmd[] = { { subwd, IN_DELETE_SELF, 0, "" }, { subwd, IN_IGNORED, 0, "" },
			    { swd, IN_DELETE | IN_ISDIR, 0, "sub" } };
	expect_seq("rmdir", e, n, rmd, 3);

	/* a directory renamed, then one renamed out of every watched directory */
	hpath(a, sizeof(a), "s/sub2");
	hpath(b, sizeof(b), "s/sub3");
	host(rename(a, b));
	n = read_events(ifd, e, 32);
	struct ev rend[] = { { swd, IN_MOVED_FROM | IN_ISDIR, 0, "sub2" }, { swd, IN_MOVED_TO | IN_ISDIR, 0, "sub3" },
			     { sub2wd, IN_MOVE_SELF, 0, "" } };
	expect_seq("rename of a directory", e, n, rend, 3);
	snprintf(b, sizeof(b), "%s-out", src);
	hpath(a, sizeof(a), "s/sub3");
	host(rename(a, b));
	n = read_events(ifd, e, 32);
	struct ev out[] = { { swd, IN_MOVED_FROM | IN_ISDIR, 0, "sub3" }, { sub2wd, IN_MOVE_SELF, 0, "" } };
	expect_seq("rename out", e, n, out, 2);
	host(rmdir(b));
	uvfs_close(p, ifd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

/* Host directories d and its child sub, then the watch mount on /w. */
static void mount_over_dirs(const char *d, const char *sub)
{
	char a[160];
	hpath(a, sizeof(a), d);
	host(mkdir(a, 0755));
	hpath(a, sizeof(a), sub);
	host(mkdir(a, 0755));
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
}

/*
 * The host queues a rename's IN_MOVED_FROM and IN_MOVED_TO one after the
 * other, and the watch thread, woken by the first, may read it alone: the
 * rename must still be told in Linux's order (moved_from, moved_to, then
 * the object's move_self), never as a move out of the mount followed by a
 * name that came.  A directory renamed back and forth, each rename read at
 * once, and one renamed out and back in now and then.  (CI run 38, TSan:
 * the thread's read ended with the IN_MOVED_FROM, and the drain told
 * IN_MOVE_SELF before the IN_MOVED_TO it read next.)
 */
static void test_rename_split(void)
{
	SECTION("a rename read half by the watch thread: still moved_from, moved_to, move_self");
	char a[160], b[160], out[160];
	mount_over_dirs("r", "r/x");
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	int rwd = uvfs_inotify_add_watch(p, ifd, "/w/r", IN_MOVE | IN_CREATE | IN_DELETE);
	int xwd = uvfs_inotify_add_watch(p, ifd, "/w/r/x", IN_MOVE_SELF);
	CHECK(rwd >= 0 && xwd >= 0);
	struct ev e[32];
	(void)read_events(ifd, e, 32);
	snprintf(out, sizeof(out), "%s-x", src);
	int bad = 0, rounds = 2000;
	for (int i = 0; i < rounds; i++) {
		const char *from = i % 2 ? "y" : "x", *to = i % 2 ? "x" : "y";
		snprintf(a, sizeof(a), "%s/r/%s", src, from);
		snprintf(b, sizeof(b), "%s/r/%s", src, to);
		host(rename(a, b));
		int n = read_events(ifd, e, 32);
		struct ev want[] = { { rwd, IN_MOVED_FROM | IN_ISDIR, 0, "" }, { rwd, IN_MOVED_TO | IN_ISDIR, 0, "" },
				     { xwd, IN_MOVE_SELF, 0, "" } };
		snprintf(want[0].name, sizeof(want[0].name), "%s", from);
		snprintf(want[1].name, sizeof(want[1].name), "%s", to);
		if (!seq_equal(e, n, want, 3) && bad++ == 0)
			CHECK(false, "round %d: %d events; read: %s", i, n, seq_str(e, n));
		if (i % 100 == 99) { /* out of the mount (the name is "x" now) and back */
			snprintf(a, sizeof(a), "%s/r/x", src);
			host(rename(a, out));
			n = read_events(ifd, e, 32);
			struct ev gone[] = { { rwd, IN_MOVED_FROM | IN_ISDIR, 0, "x" }, { xwd, IN_MOVE_SELF, 0, "" } };
			if (!seq_equal(e, n, gone, 2) && bad++ == 0)
				CHECK(false, "round %d, out: %d events; read: %s", i, n, seq_str(e, n));
			host(rename(out, a));
			n = read_events(ifd, e, 32);
			struct ev back[] = { { rwd, IN_MOVED_TO | IN_ISDIR, 0, "x" } };
			if (!seq_equal(e, n, back, 1) && bad++ == 0)
				CHECK(false, "round %d, back: %d events; read: %s", i, n, seq_str(e, n));
			/* the directory that came back is a new object to uvfs's
			 * walk; watch it again */
			xwd = uvfs_inotify_add_watch(p, ifd, "/w/r/x", IN_MOVE_SELF);
		}
	}
	CHECK(bad == 0, "%d of %d renames told out of order", bad, rounds);
	uvfs_close(p, ifd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	hpath(a, sizeof(a), "r/x");
	rmdir(a);
	hpath(a, sizeof(a), "r");
	rmdir(a);
}

/* The host inotify fd of the newest hostfs watch: the highest-numbered
 * inotify fd of the process (uvfs's own inotify fds are not host fds). */
static int host_inotify_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int best = -1;
	while (d && (de = readdir(d))) {
		char path[300], link[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			if (!strcmp(link, "anon_inode:inotify") && atoi(de->d_name) > best)
				best = atoi(de->d_name);
		}
	}
	if (d)
		closedir(d);
	return best;
}

static void put_event(int fd, int wd, uint32_t mask, uint32_t cookie, const char *name)
{
	char buf[sizeof(struct inotify_event) + 32] __attribute__((aligned(8)));
	struct inotify_event *e = (struct inotify_event *)buf;
	memset(buf, 0, sizeof(buf));
	e->wd = wd;
	e->mask = mask;
	e->cookie = cookie;
	e->len = 16;
	snprintf(e->name, 16, "%s", name);
	CHECK_EQ(write(fd, buf, sizeof(*e) + 16), (ssize_t)(sizeof(*e) + 16));
}

/* The end of a test that replaced the host inotify fd by the pipe pfd. */
static void unmount_piped(const int pfd[2])
{
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	close(pfd[0]);
	close(pfd[1]);
}

/* rmdir of the host directories d1, then d2 (if not NULL) */
static void host_rmdirs(const char *d1, const char *d2)
{
	char a[160];
	hpath(a, sizeof(a), d1);
	rmdir(a);
	if (d2) {
		hpath(a, sizeof(a), d2);
		rmdir(a);
	}
}

/*
 * The same split, made to happen: the watch thread's host inotify fd is
 * replaced by a pipe (dup2 over its number) that this test writes the
 * host's events into.  The thread reads an IN_MOVED_FROM alone, the
 * IN_MOVED_TO comes after its drain: the rename is told in order.  Before
 * the fix, the thread's drain ended the move at once (IN_MOVE_SELF before
 * IN_MOVED_TO), on every run.  The host directory is not renamed: only the
 * events are the host's, and the mount goes right after.
 */
static void test_rename_split_forced(void)
{
	SECTION("a rename's IN_MOVED_FROM read alone by the watch thread: the move waits for its IN_MOVED_TO");
	char a[160];
	mount_over_dirs("q", "q/x");
	int hfd = host_inotify_fd();
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	/* host watches: the root 1, q 2 (made by this walk), q/x 3 */
	int qwd = uvfs_inotify_add_watch(p, ifd, "/w/q", IN_MOVE);
	int xwd = uvfs_inotify_add_watch(p, ifd, "/w/q/x", IN_MOVE_SELF);
	CHECK(hfd >= 0 && qwd >= 0 && xwd >= 0);
	struct ev e[32];
	(void)read_events(ifd, e, 32);
	int pfd[2];
	CHECK_EQ(pipe2(pfd, O_NONBLOCK | O_CLOEXEC), 0);
	CHECK_EQ(dup2(pfd[0], hfd), hfd);
	/* the host's IN_MOVED_FROM, then a real host change to wake the
	 * thread out of its poll of the old fd; it reads the pipe */
	put_event(pfd[1], 2, IN_MOVED_FROM | IN_ISDIR, 77, "x");
	hpath(a, sizeof(a), "q/wake");
	host_put("q/wake", "", O_TRUNC);
	int left = 1;
	for (int i = 0; i < 5000 && left > 0; i++) {
		if (ioctl(pfd[1], FIONREAD, &left))
			left = 0;
		if (left > 0)
			usleep(1000);
	}
	CHECK_EQ(left, 0);
	usleep(100000); /* the thread applies what it read, then polls the pipe */
	put_event(pfd[1], 2, IN_MOVED_TO | IN_ISDIR, 77, "y");
	int n = read_events(ifd, e, 32);
	struct ev want[] = { { qwd, IN_MOVED_FROM | IN_ISDIR, 0, "x" }, { qwd, IN_MOVED_TO | IN_ISDIR, 0, "y" },
			     { xwd, IN_MOVE_SELF, 0, "" } };
	expect_seq("split rename", e, n, want, 3);
	uvfs_close(p, ifd);
	unmount_piped(pfd);
	unlink(a);
	host_rmdirs("q/x", "q");
}

/*
 * A rename's IN_MOVED_FROM ended by a uvfs call's drain before its
 * IN_MOVED_TO was queued (drain(): the move is taken for one out of the
 * mount, and the object's node loses its name): the IN_MOVED_TO must still
 * give the object its new name, or the host's later changes to it under
 * that name are never heard and uvfs keeps its old size (stress-hostwatch
 * under ASan, with the machine loaded: "host size 11, uvfs size 4").  The
 * host renames and writes for real; the events come through a pipe in
 * place of the host inotify fd, as above, so the drain comes between them.
 */
static void test_rename_ended_early(void)
{
	SECTION("a rename's IN_MOVED_TO after its move was ended: the object takes the new name");
	char a[160], b[160];
	hpath(a, sizeof(a), "v");
	host(mkdir(a, 0755));
	host_put("v/x", "1234", O_TRUNC);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	int hfd = host_inotify_fd();
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/v/x", &st, 0), 0); /* host watches: the root 1, v 2 */
	int fd = uvfs_openat(p, AT_FDCWD, "/w/v/x", O_RDONLY, 0);
	CHECK(hfd >= 0 && fd >= 0);
	int pfd[2];
	CHECK_EQ(pipe2(pfd, O_NONBLOCK | O_CLOEXEC), 0);
	CHECK_EQ(dup2(pfd[0], hfd), hfd);
	host_put("v/wake", "", O_TRUNC); /* the thread leaves its poll of the old fd */
	usleep(100000);
	hpath(a, sizeof(a), "v/x");
	hpath(b, sizeof(b), "v/y");
	host(rename(a, b));
	put_event(pfd[1], 2, IN_MOVED_FROM, 91, "x");
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/v", &st, 0), 0); /* a drain: the move ends */
	put_event(pfd[1], 2, IN_MOVED_TO, 91, "y");
	CHECK_EQ(uvfs_fstat(p, fd, &st), 0); /* the drain, then the object read again */
	CHECK_EQ(st.st_size, 4);
	host_put("v/y", "5678901", O_APPEND);
	put_event(pfd[1], 2, IN_MODIFY, 0, "y");
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/v/y", &st, 0), 0);
	CHECK_EQ(st.st_size, 11);
	CHECK_EQ(uvfs_fstat(p, fd, &st), 0);
	CHECK_EQ(st.st_size, 11);
	char buf[16] = "";
	CHECK_EQ(uvfs_pread(p, fd, buf, sizeof(buf) - 1, 0), 11);
	CHECK(!strcmp(buf, "12345678901"), "the data: %s", buf);
	uvfs_close(p, fd);
	unmount_piped(pfd);
	unlink(b);
	hpath(a, sizeof(a), "v/wake");
	unlink(a);
	host_rmdirs("v", NULL);
}

/* ---- the host's queue overflows ---- */

static int park_pipe[2];
static void park(int sig)
{
	(void)sig;
	char c;
	while (read(park_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
}

/* The tid of a thread of this process not in before (a list of tids). */
static int new_tid(const int *before, int nb)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int tid = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			int t = atoi(de->d_name), seen = 0;
			for (int i = 0; i < nb; i++)
				seen |= before[i] == t;
			if (!seen)
				tid = t;
		}
	closedir(d);
	return tid;
}

static int tids(int *out, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && n < max)
			out[n++] = atoi(de->d_name);
	closedir(d);
	return n;
}

/* Is thread tid blocked in poll or ppoll (/proc's syscall file)? */
static bool in_poll(int tid)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	int nr = atoi(buf);
	return nr == 7 || nr == 271; /* x86_64 poll, ppoll */
}

/*
 * The host's queue overflows while hostfs's thread is held in a signal
 * handler (parked while it sleeps in poll, so it holds no lock): the host
 * events of a directory nobody in uvfs watches fill it, and a uvfs watcher
 * of another directory of the mount reads IN_Q_OVERFLOW (its own queue
 * never filled: it was told nothing else).  Afterwards stat sees the
 * changes (every cached attribute checked once).
 */
static void test_overflow(void)
{
	SECTION("the host's queue overflows: IN_Q_OVERFLOW to uvfs's watchers");
	char a[160];
	long max = 16384;
	FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 16384;
		fclose(f);
	}
	hpath(a, sizeof(a), "flood");
	host(mkdir(a, 0755));
	hpath(a, sizeof(a), "quiet");
	host(mkdir(a, 0755));
	host_put("flood/x", "", O_TRUNC);
	host_put("flood/y", "", O_TRUNC);
	int before[256], nb = tids(before, 256);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	int tid = new_tid(before, nb);
	CHECK(tid > 0);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/flood/x", &st, 0), 0);
	CHECK_EQ(st.st_mode & 07777, 0644);
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	int qwd = uvfs_inotify_add_watch(p, ifd, "/w/quiet", IN_ALL_EVENTS);
	CHECK(qwd >= 0);
	struct ev e[32];
	CHECK_EQ(read_events(ifd, e, 32), 0);

	CHECK_EQ(pipe(park_pipe), 0);
	struct sigaction sa = { .sa_handler = park }, old;
	sigaction(SIGUSR1, &sa, &old);
	/* (within 10 s: the thread goes back to poll once nothing is pending;
	 * the bounds only keep a broken build from hanging) */
	for (int i = 0; i < 100000 && !in_poll(tid); i++)
		usleep(100);
	CHECK(in_poll(tid), "hostfs's thread not in poll");
	syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
	/* parked once it left poll for the handler */
	for (int i = 0; i < 100000 && in_poll(tid); i++)
		usleep(100);
	/* chmods of two files in turn (inotify folds only an event equal to
	 * the last one queued) */
	char x[160], y[160];
	hpath(x, sizeof(x), "flood/x");
	hpath(y, sizeof(y), "flood/y");
	for (long i = 0; i < max / 2 + 8; i++) {
		host(chmod(x, (i & 1) ? 0600 : 0640));
		host(chmod(y, (i & 1) ? 0600 : 0640));
	}
	int n = read_events(ifd, e, 32);
	CHECK(n == 1 && e[0].wd == -1 && e[0].mask == IN_Q_OVERFLOW, "%d events, first wd %d mask %#x", n,
	      n ? e[0].wd : 0, n ? e[0].mask : 0);
	/* what was lost is checked with the host again */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/w/flood/x", &st, 0), 0);
	CHECK_EQ(st.st_mode & 07777, ((max / 2 + 7) & 1) ? 0600 : 0640);
	CHECK_EQ(write(park_pipe[1], "go", 1), 1);
	/* and the host is heard again */
	host_put("quiet/q", "", O_TRUNC);
	n = read_events(ifd, e, 32);
	CHECK_EQ(count(e, n, qwd, IN_CREATE, "q"), 1);
	uvfs_close(p, ifd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	sigaction(SIGUSR1, &old, NULL);
	close(park_pipe[0]);
	close(park_pipe[1]);
}

static int sleeper_fd;
static void *sleeper(void *arg)
{
	char buf[512];
	*(long *)arg = uvfs_read(p, sleeper_fd, buf, sizeof(buf));
	return NULL;
}

static void test_sleeper(void)
{
	SECTION("a reader asleep in uvfs read wakes at a host change");
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	sleeper_fd = uvfs_inotify_init1(p, 0);
	CHECK(uvfs_inotify_add_watch(p, sleeper_fd, "/w", IN_CREATE) >= 0);
	long got = 0;
	pthread_t t;
	pthread_create(&t, NULL, sleeper, &got);
	usleep(50000); /* not needed for the check: the reader is likely asleep by now */
	host_put("wake", "", O_TRUNC);
	alarm(20); /* a reader never woken is a failure, not a hang */
	pthread_join(t, NULL);
	alarm(0);
	CHECK(got >= (long)(sizeof(struct inotify_event) + 5), "read %ld", got);
	uvfs_close(p, sleeper_fd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

static void test_own_changes(void)
{
	SECTION("uvfs's own changes reach a watcher once");
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	int wd = uvfs_inotify_add_watch(p, ifd, "/w", IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_MOVE);
	CHECK(wd >= 0);
	struct ev e[32];
	int fd = uvfs_openat(p, AT_FDCWD, "/w/own", O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	int n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_CREATE, "own"), 1);
	CHECK_EQ(uvfs_write(p, fd, "abc", 3), 3);
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_MODIFY, "own"), 1);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/w/own", 0644, 0), 0);
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_ATTRIB, "own"), 1);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/w/own", AT_FDCWD, "/w/own2", 0), 0);
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 2);
	CHECK_EQ(count(e, n, wd, IN_MOVED_FROM, "own"), 1);
	CHECK_EQ(count(e, n, wd, IN_MOVED_TO, "own2"), 1);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/w/owndir", 0755), 0);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/w/owndir", 0700, 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/w/owndir", AT_REMOVEDIR), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/w/own2", 0), 0);
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 4);
	CHECK_EQ(count(e, n, wd, IN_CREATE | IN_ISDIR, "owndir"), 1);
	CHECK_EQ(count(e, n, wd, IN_ATTRIB | IN_ISDIR, "owndir"), 1);
	CHECK_EQ(count(e, n, wd, IN_DELETE | IN_ISDIR, "owndir"), 1);
	CHECK_EQ(count(e, n, wd, IN_DELETE, "own2"), 1);
	/* and the host still is heard after them */
	host_put("after", "", O_TRUNC);
	n = read_events(ifd, e, 32);
	CHECK_EQ(n, 1);
	CHECK_EQ(count(e, n, wd, IN_CREATE, "after"), 1);
	uvfs_close(p, ifd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

static void test_resources(void)
{
	SECTION("one host watch per cached directory; none left at umount");
	char path[160];
	int watches;
	int fds0 = host_inotify(&watches), threads0 = host_threads();
	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "%s/t%02d", src, i);
		mkdir(path, 0755);
	}
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	CHECK_EQ(host_inotify(&watches), fds0 + 1);
	CHECK_EQ(watches, 1); /* the root */
	CHECK_EQ(host_threads(), threads0 + 1);
	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/w/t%02d", i);
		struct stat st;
		CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, path, &st, 0), 0);
	}
	CHECK_EQ(host_inotify(&watches), fds0 + 1);
	CHECK_EQ(watches, 21);
	/* a directory removed by uvfs: its inode goes, and its watch */
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/w/t00", AT_REMOVEDIR), 0);
	host_inotify(&watches);
	CHECK_EQ(watches, 20);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	CHECK_EQ(host_inotify(&watches), fds0);
	CHECK_EQ(host_threads(), threads0);
}

/* Two names of one object in one directory: a name checked says nothing
 * about another name of the same object (a hard link, or a directory
 * renamed on the host while uvfs caches it by its old name). */
static void test_aliases(void)
{
	SECTION("a name checked does not vouch for another name of its object");
	char a[160], b[160];
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	hpath(a, sizeof(a), "al");
	mkdir(a, 0755);
	host_put("al/f", "f", O_TRUNC);
	CHECK_EQ(u_ino("/w/al/f"), h_ino("al/f"));
	/* a hard link made, the old name removed, the new name looked up */
	hpath(a, sizeof(a), "al/f");
	hpath(b, sizeof(b), "al/g");
	host(link(a, b));
	host(unlink(a));
	CHECK_EQ(u_ino("/w/al/g"), h_ino("al/g"));
	CHECK_ERR(u_ino("/w/al/f"), ENOENT);
	/* a directory renamed, another made under its old name */
	hpath(a, sizeof(a), "al/h3");
	hpath(b, sizeof(b), "al/h1");
	mkdir(a, 0755);
	long x = h_ino("al/h3");
	CHECK_EQ(u_ino("/w/al/h3"), x);
	host(rename(a, b));
	mkdir(a, 0700);
	CHECK_EQ(u_ino("/w/al/h1"), x);
	CHECK_EQ(u_ino("/w/al/h3"), h_ino("al/h3"));
	CHECK(u_ino("/w/al/h3") != x);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

/* Pushes every fd of a cached node out of a mount made with fds=4: stats
 * of other names. */
static void fds_churn(const char *dir)
{
	char rel[64], up[96];
	for (int i = 0; i < 12; i++) {
		snprintf(rel, sizeof(rel), "%s/churn%d", dir, i);
		host_put(rel, "c", O_TRUNC);
		snprintf(up, sizeof(up), "/w/%s", rel);
		u_ino(up);
	}
}

/* An object whose host fd the LRU closed is reopened through the name it
 * was last found by: a host rename must not leave it unreachable. */
static void test_reopen_by_name(void)
{
	static const char *const modes[] = { "cache=watch,fds=4", "cache=revalidate,fds=4" };
	char a[160], b[160];
	for (int m = 0; m < 2; m++) {
		printf("-- %s: reached after a host rename once its fd was closed\n", modes[m]);
		hpath(a, sizeof(a), "ro");
		mkdir(a, 0755);
		hpath(a, sizeof(a), "ro2");
		mkdir(a, 0755);
		host_put("ro/a", "aaa", O_TRUNC);
		CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, modes[m]), 0);
		CHECK_EQ(u_size("/w/ro/a"), 3);
		fds_churn("ro");
		/* away and back: the name went (watch), then names it again */
		hpath(a, sizeof(a), "ro/a");
		hpath(b, sizeof(b), "ro2/b");
		host(rename(a, b));
		host(rename(b, a));
		host_put("ro/a", "bb", O_APPEND);
		CHECK_EQ(u_size("/w/ro/a"), 5);
		CHECK_EQ(u_ino("/w/ro/a"), h_ino("ro/a"));
		/* a new name in the same directory, the old one gone */
		fds_churn("ro");
		hpath(b, sizeof(b), "ro/c");
		host(rename(a, b));
		host_put("ro/c", "c", O_APPEND);
		CHECK_EQ(u_size("/w/ro/c"), 6);
		CHECK_ERR(u_size("/w/ro/a"), ENOENT);
		fds_churn("ro");
		char buf[16] = "";
		int fd = uvfs_openat(p, AT_FDCWD, "/w/ro/c", O_RDONLY, 0);
		CHECK(fd >= 0);
		CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 6);
		uvfs_close(p, fd);
		CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
		hpath(b, sizeof(b), "ro/c");
		unlink(b);
	}
}

/* The names of a directory, sorted and joined by spaces: uvfs's listing
 * (path in uvfs) or the host's (rel under src). */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_of(const char *upath, const char *rel, char *out, size_t n)
{
	char *v[64];
	int k = 0;
	char buf[4096] __attribute__((aligned(8)));
	if (upath) {
		int fd = uvfs_openat(p, AT_FDCWD, upath, O_RDONLY | O_DIRECTORY, 0);
		long r;
		while (fd >= 0 && (r = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < r;) {
				struct dirent64 *e = (struct dirent64 *)(buf + off);
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && k < 64)
					v[k++] = strdup(e->d_name);
				off += e->d_reclen;
			}
		if (fd >= 0)
			uvfs_close(p, fd);
	} else {
		char h[160];
		hpath(h, sizeof(h), rel);
		DIR *d = opendir(h);
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && k < 64)
				v[k++] = strdup(e->d_name);
		if (d)
			closedir(d);
	}
	qsort(v, (size_t)k, sizeof(v[0]), cmp_str);
	out[0] = 0;
	for (int i = 0; i < k; i++) {
		snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
}

#define CHECK_LISTING(upath, rel)                                                 \
	do {                                                                      \
		char u_[1024], h_[1024];                                          \
		names_of(upath, NULL, u_, sizeof(u_));                            \
		names_of(NULL, rel, h_, sizeof(h_));                              \
		CHECK(!strcmp(u_, h_), "uvfs [%s], host [%s]", u_, h_);           \
	} while (0)

/* The events queued on a host inotify fd, drained. */
static int spy_count(int fd)
{
	char buf[4096] __attribute__((aligned(8)));
	int n = 0;
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < r; n++)
			off += (ssize_t)sizeof(struct inotify_event) + ((struct inotify_event *)(buf + off))->len;
	return n;
}

/* cache=watch lists from memory (hostfs_dir.c) like cache=exclusive, and a
 * host change makes the directory's listing stale: the next getdents64
 * after it has it. */
static void test_listing(void)
{
	SECTION("a host change shows in the next uvfs listing");
	char a[160], b[160];
	hpath(a, sizeof(a), "ls");
	mkdir(a, 0755);
	hpath(a, sizeof(a), "ls2");
	mkdir(a, 0755);
	host_put("ls/one", "1", O_TRUNC);
	host_put("ls/two", "2", O_TRUNC);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	CHECK_LISTING("/w/ls", "ls");
	/* with nothing changed, the second listing asks the host nothing (a
	 * host getdents64 is an IN_ACCESS of the directory) */
	int spy = inotify_init1(IN_NONBLOCK);
	hpath(a, sizeof(a), "ls");
	CHECK(inotify_add_watch(spy, a, IN_ACCESS | IN_ONLYDIR) >= 0);
	char u_[1024];
	names_of("/w/ls", NULL, u_, sizeof(u_));
	CHECK_EQ(spy_count(spy), 0);
	host_put("ls/three", "3", O_TRUNC);
	CHECK_LISTING("/w/ls", "ls");
	hpath(a, sizeof(a), "ls/one");
	host(unlink(a));
	CHECK_LISTING("/w/ls", "ls");
	hpath(a, sizeof(a), "ls/two");
	hpath(b, sizeof(b), "ls/deux");
	host(rename(a, b));
	CHECK_LISTING("/w/ls", "ls");
	hpath(a, sizeof(a), "ls/deux");
	hpath(b, sizeof(b), "ls2/deux");
	host(rename(a, b));
	CHECK_LISTING("/w/ls", "ls");
	CHECK_LISTING("/w/ls2", "ls2");
	hpath(a, sizeof(a), "ls/sub");
	host(mkdir(a, 0755));
	CHECK_LISTING("/w/ls", "ls");
	/* uvfs's own changes beside the host's */
	int fd = uvfs_openat(p, AT_FDCWD, "/w/ls/mine", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	host_put("ls/theirs", "t", O_TRUNC);
	CHECK_LISTING("/w/ls", "ls");
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/w/ls/mine", 0), 0);
	CHECK_LISTING("/w/ls", "ls");
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	close(spy);
}

/* A file unlinked (or renamed over) while uvfs still holds it is reached
 * through its node's own fd afterwards, even if the LRU had closed that fd
 * while the name was there (uvfs-fuse reopens a node's file so). */
static void test_unlinked_reopen(void)
{
	static const char *const modes[] = { "cache=exclusive,fds=4", "cache=watch,fds=4" };
	for (int m = 0; m < 2; m++) {
		printf("-- %s: an unlinked file reopened through its O_PATH fd\n", modes[m]);
		char a[160];
		hpath(a, sizeof(a), "ul");
		mkdir(a, 0755);
		CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, modes[m]), 0);
		for (int k = 0; k < 2; k++) {
			int fd = uvfs_openat(p, AT_FDCWD, "/w/ul/gone", O_CREAT | O_EXCL | O_RDWR, 0644);
			CHECK(fd >= 0);
			CHECK_EQ(uvfs_write(p, fd, "before", 6), 6);
			int opath = uvfs_openat(p, AT_FDCWD, "/w/ul/gone", O_PATH, 0);
			CHECK(opath >= 0);
			uvfs_close(p, fd);
			fds_churn("ul"); /* the node's fd closed, its name still there */
			if (k == 0) {
				CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/w/ul/gone", 0), 0);
			} else {
				/* made on the host only where uvfs follows the host:
				 * cache=exclusive answers a name its listing lacks
				 * without asking */
				if (m == 0) {
					int o = uvfs_openat(p, AT_FDCWD, "/w/ul/other", O_CREAT | O_WRONLY | O_TRUNC, 0644);
					CHECK(o >= 0 && uvfs_write(p, o, "o", 1) == 1);
					uvfs_close(p, o);
				} else {
					host_put("ul/other", "o", O_TRUNC);
				}
				CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/w/ul/other", AT_FDCWD, "/w/ul/gone", 0), 0);
			}
			fds_churn("ul");
			fd = uvfs_fd_reopen(p, opath, O_RDWR);
			CHECK(fd >= 0, "reopen: %d", fd);
			char buf[16] = "";
			CHECK_EQ(uvfs_pwrite(p, fd, "+after", 6, 6), 6);
			CHECK_EQ(uvfs_pread(p, fd, buf, sizeof(buf) - 1, 0), 12);
			CHECK(!strcmp(buf, "before+after"), "%s", buf);
			uvfs_close(p, fd);
			uvfs_close(p, opath);
			uvfs_unlinkat(p, AT_FDCWD, "/w/ul/gone", 0);
		}
		CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	}
}

int main(void)
{
	strcpy(src, "/dev/shm/uvfs-unit-hostfs-watch-XXXXXX");
	if (!mkdtemp(src))
		return 1;
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	uvfs_mkdirat(p, AT_FDCWD, "/w", 0755);
	test_stat();
	test_inotify();
	test_sleeper();
	test_own_changes();
	test_resources();
	test_aliases();
	test_reopen_by_name();
	test_listing();
	test_unlinked_reopen();
	test_self_events();
	test_rename_split();
	test_rename_split_forced();
	test_rename_ended_early();
	test_overflow();
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", src);
	if (system(cmd))
		printf("could not remove %s\n", src);
	return check_done();
}
