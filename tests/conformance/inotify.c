/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * inotify.c - inotify scenarios: the same operations on the host's tmpfs and
 * on uvfs must queue the same events.
 *
 * Every instance is made with IN_NONBLOCK and drained with EV(), which
 * records how many events were queued and then each one as
 * "wd MASK name cookie".  Watch descriptors are compared as numbers (Linux
 * hands them out from 1, cyclically, per instance); cookies are not: each is
 * recorded as 0 or as "c<n>", n counting distinct non-zero cookies in order of
 * appearance, so a MOVED_FROM/MOVED_TO pair shows the same tag and other
 * events show 0.
 */
#include <poll.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include "conf.h"
#include "events.h"

#define IINIT(f) B->inotify_init1(BX, f)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)
#define IRM(fd, wd) B->inotify_rm_watch(BX, fd, wd)

/* The instance every scenario reads from. */
#define NB IN_NONBLOCK

static int fionread(int fd)
{
	int n = -1;
	int r = B->ioctl(BX, fd, FIONREAD, &n);
	return r < 0 ? r : n;
}
#define FIONREAD_OF(fd) fionread(fd)

/* ---- scenarios ---- */

static void in_init_flags(void)
{
	C(IINIT(0x1));
	C(IINIT(O_RDWR));
	C(IINIT(-1));
	int a = F(IINIT(0));
	int b = F(IINIT(IN_NONBLOCK));
	int c = F(IINIT(IN_CLOEXEC));
	int d = F(IINIT(IN_NONBLOCK | IN_CLOEXEC));
	C(a);
	C(b);
	C(c);
	C(d);
	C(fcntl(a, F_GETFL, 0));
	C(fcntl(b, F_GETFL, 0));
	C(fcntl(c, F_GETFD, 0));
	C(fcntl(d, F_GETFD, 0));
	C(fcntl(d, F_GETFL, 0));
	char buf[64];
	C(read(b, buf, sizeof buf));
	C(read(b, buf, 0));
	C(write(b, "x", 1));
	C(FIONREAD_OF(b));
	C(fcntl(a, F_SETFL, O_NONBLOCK));
	C(read(a, buf, sizeof buf));
	/* the anonymous inode behind every instance */
	struct stat st, st2;
	C(fstat(a, &st));
	C(st.st_mode);
	C(st.st_nlink);
	C(st.st_size);
	C(st.st_uid);
	C(fstat(b, &st2));
	C(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev);
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(a, 10, SEEK_SET));
	C(pread(a, buf, sizeof buf, 0));
	C(fsync(a));
	C(ftruncate(a, 0));
	C(getdents64(a, buf, sizeof buf));
	C(close(a));
	C(close(b));
	C(close(c));
	C(close(d));
}

static void in_add_watch_errors(void)
{
	int fd = F(IINIT(NB));
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	C(SYMLINK("/d", "/ld"));
	C(SYMLINK("/f", "/lf"));
	C(SYMLINK("/nowhere", "/dangling"));
	C(IADD(fd, "/f", 0));
	C(IADD(fd, "/f", 0x1000));
	C(IADD(fd, "/f", IN_MODIFY | 0x00100000));
	C(IADD(99, "/f", IN_MODIFY));
	C(IADD(-1, "/f", IN_MODIFY));
	C(IADD(99, "/f", 0));
	C(IADD(fd, "/f", IN_MODIFY | IN_MASK_ADD | IN_MASK_CREATE));
	C(IADD(99, "/f", IN_MODIFY | IN_MASK_ADD | IN_MASK_CREATE));
	int rf = F(OPEN("/f", O_RDONLY));
	C(IADD(rf, "/f", IN_MODIFY));
	C(IADD(rf, "/f", IN_MODIFY | IN_MASK_ADD | IN_MASK_CREATE));
	int pf = F(OPEN("/f", O_PATH));
	C(IADD(pf, "/f", IN_MODIFY));
	C(IADD(fd, "/nope", IN_MODIFY));
	C(IADD(fd, "/nope/x", IN_MODIFY));
	C(IADD(fd, "/f/x", IN_MODIFY));
	C(IADD(fd, "", IN_MODIFY));
	C(IADD(fd, "/f", IN_MODIFY | IN_ONLYDIR));
	C(IADD(fd, "/lf", IN_MODIFY | IN_ONLYDIR));
	C(IADD(fd, "/dangling", IN_MODIFY));
	C(IADD(fd, "/dangling", IN_MODIFY | IN_DONT_FOLLOW));
	C(IADD(fd, "/d", IN_MODIFY | IN_ONLYDIR));
	C(IADD(fd, "/ld", IN_MODIFY | IN_ONLYDIR));
	C(IADD(fd, "/ld", IN_MODIFY | IN_ONLYDIR | IN_DONT_FOLLOW));
	C(IADD(fd, "/f", IN_MODIFY));
	C(IADD(fd, "/lf", IN_ATTRIB));
	C(IADD(fd, "/lf", IN_ATTRIB | IN_DONT_FOLLOW));
	C(IADD(fd, "/f", IN_ONLYDIR));
	C(IADD(fd, "/f", IN_IGNORED));
	C(IADD(fd, "/f", IN_ISDIR | IN_Q_OVERFLOW | IN_UNMOUNT));
	C(IRM(fd, 0));
	C(IRM(fd, -1));
	C(IRM(fd, 1000));
	C(IRM(rf, 1));
	C(IRM(pf, 1));
	C(IRM(99, 1));
	EV(fd);
	/* read permission on the inode, as the caller */
	C(mkfile("/secret", "s"));
	C(CHMOD("/secret", 0600));
	C(CHMOD("/d", 0711));
	C(mkfile("/d/in", "i"));
	C(CHMOD("/d/in", 0644));
	C(setcred(1000, 1000));
	C(IADD(fd, "/secret", IN_MODIFY));
	C(IADD(fd, "/d", IN_MODIFY));
	C(IADD(fd, "/d/in", IN_MODIFY));
	C(IADD(fd, "/f", IN_ACCESS));
	C(setcred(0, 0));
	C(IADD(fd, "/secret", IN_MODIFY));
	EV(fd);
	cl(rf);
	cl(pf);
	cl(fd);
}

static void in_wd_numbers(void)
{
	int fd = F(IINIT(NB));
	int fd2 = F(IINIT(NB));
	C(mkfile("/a", ""));
	C(mkfile("/b", ""));
	C(LINK("/a", "/a2"));
	C(IADD(fd, "/a", IN_MODIFY));
	C(IADD(fd, "/a2", IN_ACCESS));
	C(IADD(fd, "/b", IN_MODIFY));
	C(IADD(fd2, "/b", IN_MODIFY));
	C(IRM(fd, 1));
	C(IRM(fd, 1));
	C(IADD(fd, "/a", IN_MODIFY));
	C(IRM(fd, 2));
	C(IRM(fd, 3));
	C(IADD(fd, "/b", IN_MODIFY));
	C(IADD(fd, "/", IN_MODIFY));
	EV(fd);
	EV(fd2);
	cl(fd);
	cl(fd2);
}

static void in_file_events(void)
{
	int in = F(IINIT(NB));
	C(mkfile("/f", "hello"));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	int fd = F(OPEN("/f", O_RDWR));
	EV(in);
	char buf[16];
	C(read(fd, buf, 2));
	EV(in);
	C(read(fd, buf, sizeof buf));
	C(read(fd, buf, sizeof buf));
	EV(in);
	C(write(fd, "ab", 2));
	C(write(fd, "", 0));
	EV(in);
	C(pread(fd, buf, 3, 0));
	C(pwrite(fd, "zz", 2, 1));
	C(pread(fd, buf, 3, 100));
	EV(in);
	struct iovec iov[2] = { { buf, 1 }, { buf + 1, 1 } };
	C(lseek(fd, 0, SEEK_SET));
	C(readv(fd, iov, 2));
	C(writev(fd, iov, 2));
	EV(in);
	C(lseek(fd, 0, SEEK_END));
	C(readv(fd, iov, 2));
	EV(in);
	C(ftruncate(fd, 3));
	C(ftruncate(fd, 3));
	C(truncate("/f", 1));
	C(truncate("/f", 1));
	EV(in);
	C(fsync(fd));
	C(lseek(fd, 0, SEEK_SET));
	struct stat st;
	C(fstat(fd, &st));
	EV(in);
	C(close(fd));
	EV(in);
	fd = F(OPEN("/f", O_RDONLY));
	C(close(fd));
	fd = F(OPEN("/f", O_WRONLY));
	C(close(fd));
	fd = F(OPEN("/f", O_WRONLY | O_TRUNC));
	C(close(fd));
	fd = F(OPEN("/f", O_RDONLY | O_CREAT));
	C(close(fd));
	C(OPEN("/f", O_RDONLY | O_CREAT | O_EXCL));
	fd = F(OPEN("/f", O_PATH));
	C(close(fd));
	EV(in);
	cl(in);
}

static void in_attr_events(void)
{
	int in = F(IINIT(NB));
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0755));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(CHMOD("/f", 0600));
	C(CHMOD("/f", 0600));
	C(CHOWN("/f", 1, 1));
	C(CHOWN("/f", -1, -1));
	C(CHOWN("/f", -1, 2));
	C(CHMOD("/d", 0700));
	EV(in);
	C(utimensat(AT_FDCWD, "/f", NULL, 0));
	EV(in);
	struct timespec t[2] = { { 1, 0 }, { 2, 0 } };
	C(utimensat(AT_FDCWD, "/f", t, 0));
	EV(in);
	t[0].tv_nsec = UTIME_OMIT;
	C(utimensat(AT_FDCWD, "/f", t, 0));
	EV(in);
	t[0].tv_nsec = 0;
	t[1].tv_nsec = UTIME_OMIT;
	C(utimensat(AT_FDCWD, "/f", t, 0));
	EV(in);
	t[0].tv_nsec = UTIME_OMIT;
	C(utimensat(AT_FDCWD, "/f", t, 0));
	EV(in);
	t[0].tv_nsec = UTIME_NOW;
	t[1].tv_nsec = UTIME_OMIT;
	C(utimensat(AT_FDCWD, "/f", t, 0));
	EV(in);
	C(utimensat(AT_FDCWD, "/d", NULL, 0));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fchmod(fd, 0644));
	C(fchown(fd, 0, 0));
	C(close(fd));
	EV(in);
	/* a write by a non-owner drops setuid: attrib, then modify */
	C(CHMOD("/f", 04777));
	EV(in);
	C(setcred(1000, 1000));
	fd = F(OPEN("/f", O_WRONLY));
	C(write(fd, "x", 1));
	C(write(fd, "y", 1));
	C(close(fd));
	C(setcred(0, 0));
	EV(in);
	cl(in);
}

static void in_dir_children(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	int fd = F(OPEN("/d/f", O_CREAT | O_WRONLY));
	C(write(fd, "x", 1));
	C(close(fd));
	EV(in);
	C(MKDIR("/d/sub", 0755));
	C(SYMLINK("target", "/d/ln"));
	C(MKNOD("/d/fifo", S_IFIFO | 0644, 0));
	C(MKNOD("/d/reg", S_IFREG | 0644, 0));
	C(LINK("/d/f", "/d/f2"));
	EV(in);
	fd = F(OPEN("/d/sub", O_RDONLY | O_DIRECTORY));
	char buf[512];
	C(getdents64(fd, buf, sizeof buf) > 0);
	C(close(fd));
	EV(in);
	fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(getdents64(fd, buf, sizeof buf) > 0);
	C(getdents64(fd, buf, sizeof buf));
	C(close(fd));
	EV(in);
	C(CHMOD("/d/f", 0600));
	C(CHMOD("/d/sub", 0700));
	C(readlinkat(AT_FDCWD, "/d/ln", buf, sizeof buf));
	struct stat st;
	C(fstatat(AT_FDCWD, "/d/f", &st, 0));
	C(ACCESS("/d/f", R_OK));
	EV(in);
	C(UNLINK("/d/f2"));
	C(UNLINK("/d/ln"));
	C(RMDIR("/d/sub"));
	C(RENAME("/d/f", "/d/g"));
	C(RENAME("/d/reg", "/d/g"));
	EV(in);
	C(MKDIR("/d/s2", 0755));
	C(MKDIR("/d/s2/deep", 0755));
	C(mkfile("/d/s2/deep/x", "x"));
	C(RENAME("/d/s2", "/d/s3"));
	EV(in);
	/* a name outside the watched directory is not its business */
	C(mkfile("/outside", "x"));
	C(RENAME("/outside", "/outside2"));
	EV(in);
	cl(in);
}

static void in_parent_and_child(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "abc"));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(IADD(in, "/d/f", IN_ALL_EVENTS));
	int fd = F(OPEN("/d/f", O_RDWR));
	C(write(fd, "1", 1));
	C(write(fd, "2", 1));
	char b[4];
	C(read(fd, b, 1));
	C(close(fd));
	C(CHMOD("/d/f", 0600));
	EV(in);
	/* only the child watched for modify, only the parent for access */
	C(IADD(in, "/d", IN_ACCESS));
	C(IADD(in, "/d/f", IN_MODIFY));
	fd = F(OPEN("/d/f", O_RDWR));
	C(write(fd, "1", 1));
	C(pread(fd, b, 1, 0));
	C(close(fd));
	EV(in);
	/* a second instance watching the same objects gets its own copy */
	int in2 = F(IINIT(NB));
	C(IADD(in2, "/d/f", IN_MODIFY | IN_DELETE_SELF));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(IADD(in, "/d/f", IN_ALL_EVENTS));
	C(UNLINK("/d/f"));
	EV(in);
	EV(in2);
	cl(in);
	cl(in2);
}

static void in_unlink_open(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "abc"));
	C(mkfile("/d/h", "abc"));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(IADD(in, "/d/f", IN_ALL_EVENTS));
	C(IADD(in, "/d/h", IN_ALL_EVENTS));
	int fd = F(OPEN("/d/f", O_RDWR));
	C(UNLINK("/d/f"));
	EV(in);
	C(write(fd, "x", 1));
	C(fchmod(fd, 0600));
	EV(in);
	C(close(fd));
	EV(in);
	/* two links: the inode stays */
	C(LINK("/d/h", "/d/h2"));
	C(UNLINK("/d/h"));
	EV(in);
	C(UNLINK("/d/h2"));
	EV(in);
	/* a directory with an open fd: delete_self when it closes */
	C(MKDIR("/d/s", 0755));
	C(IADD(in, "/d/s", IN_ALL_EVENTS));
	fd = F(OPEN("/d/s", O_RDONLY | O_DIRECTORY));
	C(RMDIR("/d/s"));
	EV(in);
	C(close(fd));
	EV(in);
	cl(in);
}

static void in_rename(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/a", 0755));
	C(MKDIR("/b", 0755));
	C(mkfile("/a/f", "1"));
	C(mkfile("/b/t", "2"));
	C(MKDIR("/a/dir", 0755));
	C(IADD(in, "/a", IN_ALL_EVENTS));
	C(IADD(in, "/b", IN_ALL_EVENTS));
	C(IADD(in, "/a/f", IN_ALL_EVENTS));
	C(IADD(in, "/b/t", IN_ALL_EVENTS));
	C(IADD(in, "/a/dir", IN_ALL_EVENTS));
	C(RENAME("/a/f", "/b/f"));
	EV(in);
	C(RENAME("/b/f", "/b/t"));
	EV(in);
	C(RENAME("/a/dir", "/b/dir"));
	EV(in);
	C(RENAME("/b/dir", "/b/dir"));
	C(LINK("/b/t", "/b/t2"));
	EV(in);
	C(RENAME("/b/t", "/b/t2"));
	EV(in);
	C(mkfile("/a/x", "x"));
	C(MKDIR("/a/y", 0755));
	C(IADD(in, "/a/x", IN_MOVE_SELF));
	C(IADD(in, "/a/y", IN_MOVE_SELF));
	C(RENAME2("/a/x", "/a/y", RENAME_EXCHANGE));
	EV(in);
	C(RENAME2("/a/x", "/b/t", RENAME_EXCHANGE));
	EV(in);
	C(RENAME2("/b/x", "/b/t", RENAME_NOREPLACE));
	C(RENAME2("/b/x", "/b/new", RENAME_NOREPLACE));
	EV(in);
	/* an empty directory replaced by a rename */
	C(MKDIR("/a/e1", 0755));
	C(MKDIR("/b/e2", 0755));
	C(IADD(in, "/b/e2", IN_ALL_EVENTS));
	C(RENAME("/a/e1", "/b/e2"));
	EV(in);
	/* the watched directory itself moves: move_self, no moved_from/to of its own */
	C(RENAME("/a", "/c"));
	C(mkfile("/c/after", "x"));
	EV(in);
	cl(in);
}

/* More instances watching one file than fsnotify collects without an
 * allocation (8): each hears the write once. */
static void in_many_instances(void)
{
	int in[12];
	C(mkfile("/f", ""));
	for (int i = 0; i < 12; i++) {
		in[i] = F(IINIT(NB));
		C(IADD(in[i], "/f", IN_MODIFY | IN_CLOSE_WRITE));
	}
	int f = F(OPEN("/f", O_WRONLY));
	C(write(f, "1", 1));
	cl(f);
	for (int i = 0; i < 12; i++)
		EV(in[i]);
	for (int i = 0; i < 12; i++)
		cl(in[i]);
}

static void in_merge(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", ""));
	C(mkfile("/d/g", ""));
	C(IADD(in, "/d", IN_MODIFY | IN_ACCESS | IN_ATTRIB));
	int f = F(OPEN("/d/f", O_RDWR));
	int g = F(OPEN("/d/g", O_RDWR));
	C(write(f, "1", 1));
	C(write(f, "2", 1));
	C(write(f, "3", 1));
	EV(in);
	C(write(f, "1", 1));
	C(write(g, "1", 1));
	C(write(f, "1", 1));
	C(write(f, "1", 1));
	EV(in);
	char b[4];
	C(write(f, "1", 1));
	C(pread(f, b, 1, 0));
	C(write(f, "1", 1));
	C(pread(f, b, 1, 0));
	C(pread(f, b, 1, 0));
	EV(in);
	C(IADD(in, "/d/f", IN_MODIFY));
	C(write(f, "1", 1));
	C(write(f, "1", 1));
	EV(in);
	C(fchmod(f, 0600));
	C(fchmod(f, 0644));
	C(fchmod(g, 0600));
	EV(in);
	/* merging happens in the queue: events already read do not merge */
	C(write(g, "1", 1));
	EV(in);
	C(write(g, "1", 1));
	EV(in);
	/* IN_IGNORED never takes a merge */
	C(IRM(in, 2));
	C(IADD(in, "/d/f", IN_MODIFY));
	C(IRM(in, 3));
	EV(in);
	cl(f);
	cl(g);
	cl(in);
}

static void in_overflow(void)
{
	int in = F(IINIT(NB));
	C(mkfile("/f", ""));
	C(IADD(in, "/f", IN_MODIFY | IN_ACCESS));
	int fd = F(OPEN("/f", O_RDWR));
	char b[1];
	/* alternate so that nothing merges: 2 * 8300 events */
	int ok = 1;
	for (int i = 0; i < 8300; i++) {
		if (pwrite(fd, "x", 1, 0) != 1 || pread(fd, b, 1, 0) != 1)
			ok = 0;
	}
	C(ok);
	C(FIONREAD_OF(in));
	int n = drain(in);
	C(n);
	int overflows = 0, modify = 0, access = 0, other = 0;
	for (int i = 0; i < n && i < MAXEV; i++) {
		if (evs[i].mask == IN_Q_OVERFLOW)
			overflows++;
		else if (evs[i].mask == IN_MODIFY)
			modify++;
		else if (evs[i].mask == IN_ACCESS)
			access++;
		else
			other++;
	}
	C(overflows);
	C(modify);
	C(access);
	C(other);
	uint32_t ck[64];
	int nc = 0;
	if (n > 0) {
		CS("first", ev_str(&evs[0], ck, &nc));
		CS("last-1", ev_str(&evs[n > 1 ? n - 2 : 0], ck, &nc));
		CS("last", ev_str(&evs[n - 1], ck, &nc));
	}
	/* room again: events queue as before */
	C(pwrite(fd, "x", 1, 0));
	EV(in);
	/* overflow with a partly read queue: one overflow only */
	for (int i = 0; i < 8200; i++) {
		if (pwrite(fd, "x", 1, 0) != 1 || pread(fd, b, 1, 0) != 1)
			ok = 0;
	}
	unsigned char small[64];
	C(read(in, small, sizeof small));
	C(pwrite(fd, "x", 1, 0));
	C(pwrite(fd, "x", 1, 0));
	n = drain(in);
	C(n);
	overflows = 0;
	for (int i = 0; i < n && i < MAXEV; i++)
		overflows += evs[i].mask == IN_Q_OVERFLOW;
	C(overflows);
	if (n > 0)
		CS("last", ev_str(&evs[n - 1], ck, &nc));
	/* the ignored event of a watch removed on a full queue is lost too */
	for (int i = 0; i < 8200; i++) {
		if (pwrite(fd, "x", 1, 0) != 1 || pread(fd, b, 1, 0) != 1)
			ok = 0;
	}
	C(IRM(in, 1));
	n = drain(in);
	C(n);
	if (n > 0)
		CS("last", ev_str(&evs[n - 1], ck, &nc));
	cl(fd);
	cl(in);
}

static void in_oneshot(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", ""));
	C(IADD(in, "/d/f", IN_MODIFY | IN_ONESHOT));
	int fd = F(OPEN("/d/f", O_RDWR));
	C(write(fd, "1", 1));
	C(write(fd, "2", 1));
	EV(in);
	C(IRM(in, 1));
	C(IADD(in, "/d/f", IN_MODIFY | IN_ONESHOT));
	C(IADD(in, "/d", IN_CREATE | IN_ONESHOT));
	C(mkfile("/d/a", ""));
	C(mkfile("/d/b", ""));
	C(write(fd, "1", 1));
	EV(in);
	/* oneshot on a watch that also sees its own child: parent first */
	C(IADD(in, "/d", IN_MODIFY | IN_ONESHOT));
	C(IADD(in, "/d/f", IN_MODIFY));
	C(write(fd, "1", 1));
	C(write(fd, "1", 1));
	EV(in);
	/* updating a watch to oneshot, and back */
	C(IADD(in, "/d/f", IN_MODIFY | IN_ONESHOT));
	C(IADD(in, "/d/f", IN_MODIFY));
	C(write(fd, "1", 1));
	C(write(fd, "1", 1));
	EV(in);
	C(IADD(in, "/d/f", IN_ACCESS | IN_ONESHOT | IN_MASK_ADD));
	C(write(fd, "1", 1));
	EV(in);
	cl(fd);
	cl(in);
}

static void in_mask_add_create(void)
{
	int in = F(IINIT(NB));
	C(mkfile("/f", ""));
	C(IADD(in, "/f", IN_MODIFY | IN_MASK_CREATE));
	C(IADD(in, "/f", IN_MODIFY | IN_MASK_CREATE));
	C(IADD(in, "/f", IN_ACCESS | IN_MASK_CREATE));
	int fd = F(OPEN("/f", O_RDWR));
	char b[2];
	C(write(fd, "1", 1));
	C(pread(fd, b, 1, 0));
	EV(in);
	C(IADD(in, "/f", IN_ACCESS | IN_MASK_ADD));
	C(write(fd, "1", 1));
	C(pread(fd, b, 1, 0));
	EV(in);
	C(IADD(in, "/f", IN_ATTRIB));
	C(write(fd, "1", 1));
	C(pread(fd, b, 1, 0));
	C(fchmod(fd, 0600));
	EV(in);
	C(IADD(in, "/f", IN_CLOSE | IN_MASK_ADD));
	C(close(fd));
	EV(in);
	/* a watch with no event bit left still hears what every watch hears */
	C(IADD(in, "/f", IN_ONLYDIR | IN_DONT_FOLLOW));
	fd = F(OPEN("/f", O_RDWR));
	C(write(fd, "1", 1));
	C(close(fd));
	C(UNLINK("/f"));
	EV(in);
	cl(in);
}

static void in_excl_unlink(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", ""));
	C(mkfile("/d/g", ""));
	C(IADD(in, "/d", IN_ALL_EVENTS | IN_EXCL_UNLINK));
	int f = F(OPEN("/d/f", O_RDWR));
	int g = F(OPEN("/d/g", O_RDWR));
	EV(in);
	C(UNLINK("/d/f"));
	C(write(f, "x", 1));
	C(write(g, "x", 1));
	C(fchmod(f, 0600));
	C(close(f));
	EV(in);
	/* without IN_EXCL_UNLINK the old directory still hears the file */
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(UNLINK("/d/g"));
	C(write(g, "y", 1));
	C(close(g));
	EV(in);
	/* on the file's own watch */
	C(mkfile("/d/h", ""));
	C(IADD(in, "/d/h", IN_ALL_EVENTS | IN_EXCL_UNLINK));
	C(IRM(in, 1));
	int h = F(OPEN("/d/h", O_RDWR));
	C(UNLINK("/d/h"));
	C(write(h, "x", 1));
	C(close(h));
	EV(in);
	cl(in);
}

static void in_symlinks(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", ""));
	C(SYMLINK("/d/f", "/lf"));
	C(SYMLINK("/d", "/ld"));
	C(IADD(in, "/lf", IN_ALL_EVENTS));
	C(IADD(in, "/ld", IN_ALL_EVENTS | IN_DONT_FOLLOW));
	C(IADD(in, "/ld", IN_ALL_EVENTS | IN_ONLYDIR));
	C(IADD(in, "/", IN_CREATE | IN_DELETE | IN_ATTRIB));
	int fd = F(OPEN("/lf", O_WRONLY));
	C(write(fd, "x", 1));
	C(close(fd));
	EV(in);
	C(LCHOWN("/ld", 5, 5));
	C(LCHOWN("/lf", 5, 5));
	C(UNLINK("/ld"));
	EV(in);
	cl(in);
}

static void in_read_sizes(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(IADD(in, "/d", IN_CREATE));
	C(mkfile("/d/a", ""));
	C(mkfile(fmt("/d/%s", rep('b', 15)), ""));
	C(mkfile(fmt("/d/%s", rep('c', 16)), ""));
	C(mkfile(fmt("/d/%s", rep('d', 31)), ""));
	C(mkfile(fmt("/d/%s", rep('e', 32)), ""));
	C(mkfile(fmt("/d/%s", rep('f', 255)), ""));
	C(FIONREAD_OF(in));
	unsigned char buf[1024];
	C(read(in, buf, 0));
	C(read(in, buf, 16));
	C(read(in, buf, 31));
	C(read(in, buf, 32));
	struct inotify_event *e = (struct inotify_event *)buf;
	C(e->len);
	C(strlen(e->name));
	C(e->name[1] == 0 && e->name[15] == 0);
	C(FIONREAD_OF(in));
	C(read(in, buf, 32 + 31));
	C(read(in, buf, 32 + 32 + 16));
	C(e->len);
	C(FIONREAD_OF(in));
	C(read(in, buf, 48));
	C(read(in, buf, 300));
	C(e->len);
	C(read(in, buf, sizeof buf));
	C(e->len);
	C(FIONREAD_OF(in));
	C(read(in, buf, sizeof buf));
	cl(in);
}

static void in_delete_self(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(MKDIR("/d/s", 0755));
	C(mkfile("/d/f", "x"));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(IADD(in, "/d/s", IN_ALL_EVENTS));
	C(IADD(in, "/d/f", IN_DELETE_SELF));
	C(RMDIR("/d/s"));
	EV(in);
	C(UNLINK("/d/f"));
	EV(in);
	C(RMDIR("/d"));
	EV(in);
	C(IRM(in, 1));
	C(IRM(in, 2));
	cl(in);
}

static void in_rm_watch_and_close(void)
{
	int in = F(IINIT(NB));
	int in2 = F(IINIT(NB));
	C(mkfile("/f", ""));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	C(IADD(in2, "/f", IN_ALL_EVENTS));
	C(IRM(in, 1));
	C(IRM(in, 1));
	int fd = F(OPEN("/f", O_RDONLY));
	C(close(fd));
	EV(in);
	EV(in2);
	/* closing an instance with watches leaves the other alone */
	C(IADD(in, "/f", IN_ALL_EVENTS));
	C(close(in));
	fd = F(OPEN("/f", O_RDONLY));
	C(close(fd));
	EV(in2);
	/* the instance fd duplicated: one queue */
	int dupfd = F(dup(in2));
	fd = F(OPEN("/f", O_RDONLY));
	C(FIONREAD_OF(dupfd));
	EV(dupfd);
	C(FIONREAD_OF(in2));
	C(close(fd));
	C(close(in2));
	EV(dupfd);
	cl(dupfd);
}

static void in_poll(void)
{
	int in = F(IINIT(NB));
	C(mkfile("/f", ""));
	C(IADD(in, "/f", IN_OPEN));
	struct pollfd p = { .fd = in, .events = POLLIN | POLLOUT };
	C(B->poll(BX, &p, 1, 0));
	C(p.revents);
	int fd = F(OPEN("/f", O_RDONLY));
	p.revents = 0;
	C(B->poll(BX, &p, 1, 0));
	C(p.revents);
	EV(in);
	p.revents = 0;
	C(B->poll(BX, &p, 1, 0));
	C(p.revents);
	cl(fd);
	cl(in);
}

static void in_unmount(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", ""));
	C(MKDIR("/m/d", 0755));
	C(IADD(in, "/m", IN_ALL_EVENTS));
	C(IADD(in, "/m/d", IN_ALL_EVENTS));
	C(IADD(in, "/m/f", IN_ACCESS));
	EV(in);
	C(umount2("/m", 0));
	EV(in);
	C(IRM(in, 1));
	/* the directory under the mount is watched on its own */
	C(IADD(in, "/m", IN_ALL_EVENTS));
	C(mkfile("/m/g", ""));
	EV(in);
	cl(in);
}

static void in_open_variants(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "abc"));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	/* failed opens say nothing */
	C(OPEN("/d/f", O_RDONLY | O_DIRECTORY));
	C(OPEN("/d/nope", O_RDONLY));
	C(OPEN("/d/f", O_CREAT | O_EXCL | O_WRONLY));
	C(CHMOD("/d/f", 0600));
	C(setcred(1000, 1000));
	C(OPEN("/d/f", O_RDONLY));
	C(setcred(0, 0));
	EV(in);
	/* O_TRUNC: open, then the size change */
	int fd = F(OPEN("/d/f", O_RDWR | O_TRUNC));
	C(close(fd));
	EV(in);
	/* O_CREAT of a new file: create, then open */
	fd = F(OPEN("/d/new", O_CREAT | O_RDWR));
	C(close(fd));
	fd = F(OPEN("/d/new", O_CREAT | O_RDWR | O_TRUNC));
	C(close(fd));
	EV(in);
	/* through a dir fd, and a reopen of an fd */
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	fd = F(openat(dfd, "new", O_RDONLY, 0));
	C(close(fd));
	C(close(dfd));
	EV(in);
	/* O_TMPFILE in the watched directory: its name is "#<ino>", not compared */
	fd = F(OPEN("/d", O_TMPFILE | O_RDWR));
	C(write(fd, "x", 1));
	C(close(fd));
	int n = drain(in);
	C(n);
	for (int i = 0; i < n && i < MAXEV; i++) {
		chk(fmt("tmpfile event %d mask", i), evs[i].mask);
		chk(fmt("tmpfile event %d named #", i), evs[i].name[0] == '#');
	}
	cl(in);
}

static void in_dup_and_fork(void)
{
	int in = F(IINIT(NB));
	C(mkfile("/f", ""));
	C(IADD(in, "/f", IN_OPEN | IN_CLOSE));
	int fd = F(OPEN("/f", O_RDONLY));
	int fd2 = F(dup(fd));
	C(close(fd));
	EV(in);
	C(close(fd2));
	EV(in);
	cl(in);
}

/* A FIFO is a file of the tree: its reads and writes are reported as any
 * file's.  A pipe is a pseudo file that no watch can reach. */
static void in_fifo(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(MKNOD("/d/p", S_IFIFO | 0644, 0));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(IADD(in, "/d/p", IN_ALL_EVENTS));
	int fd = F(OPEN("/d/p", O_RDWR | O_NONBLOCK));
	C(write(fd, "abc", 3));
	char b[8];
	C(read(fd, b, sizeof b));
	C(read(fd, b, sizeof b));
	C(close(fd));
	EV(in);
	int p[2];
	C(B->pipe2(BX, p, O_NONBLOCK));
	C(write(p[1], "x", 1));
	C(read(p[0], b, 1));
	C(close(p[0]));
	C(close(p[1]));
	EV(in);
	cl(in);
}

/* Mounts: a mounted root has no parent to tell; a bind mount is the same
 * inode seen twice. */
static void in_mounts(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/m", 0755));
	C(MKDIR("/src", 0755));
	C(MKDIR("/bind", 0755));
	C(mkfile("/src/f", "x"));
	C(IADD(in, "/", IN_ALL_EVENTS));
	C(IADD(in, "/m", IN_ALL_EVENTS));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/inside", ""));
	C(CHMOD("/m", 0700));
	EV(in);
	C(IADD(in, "/m", IN_ALL_EVENTS));
	C(mkfile("/m/inside2", ""));
	C(CHMOD("/m", 0755));
	EV(in);
	C(mount("/src", "/bind", NULL, MS_BIND, NULL));
	C(IADD(in, "/src/f", IN_ALL_EVENTS));
	C(IADD(in, "/src", IN_ALL_EVENTS));
	int fd = F(OPEN("/bind/f", O_WRONLY));
	C(write(fd, "y", 1));
	C(close(fd));
	C(mkfile("/bind/g", ""));
	EV(in);
	C(umount2("/bind", 0));
	C(umount2("/m", 0));
	EV(in);
	cl(in);
}

/* Another process's operations are seen; a forked inotify fd is the same
 * instance. */
static void in_procs(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(IADD(in, "/d", IN_CREATE | IN_DELETE | IN_CLOSE));
	int child = proc_clone(0);
	C(child > 0);
	C(proc_use(child));
	C(mkfile("/d/by-child", "x"));
	C(IADD(in, "/d", IN_CREATE | IN_MASK_ADD));
	C(UNLINK("/d/by-child"));
	C(proc_use(0));
	EV(in);
	C(proc_use(child));
	C(mkfile("/d/again", ""));
	C(close(in));
	C(proc_destroy(child));
	C(proc_use(0));
	EV(in);
	cl(in);
}

/* Operations that fail tell nobody. */
static void in_failed_ops(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0755));
	C(MKDIR("/d/full", 0755));
	C(mkfile("/d/full/x", ""));
	C(mkfile("/d/f", "x"));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	C(IADD(in, "/d/f", IN_ALL_EVENTS));
	C(IADD(in, "/d/full", IN_ALL_EVENTS));
	C(RMDIR("/d/full"));
	C(MKDIR("/d/f", 0755));
	C(RENAME("/d/full", "/d/f"));
	C(RENAME("/d/nope", "/d/g"));
	C(LINK("/d/full", "/d/full2"));
	C(UNLINK("/d/full"));
	C(setcred(1000, 1000));
	C(CHMOD("/d/f", 0777));
	C(CHOWN("/d/f", 1000, 1000));
	C(truncate("/d/f", 0));
	C(utimensat(AT_FDCWD, "/d/f", T_OLD, 0));
	C(UNLINK("/d/f"));
	C(mkfile("/d/new", ""));
	C(setcred(0, 0));
	C(truncate("/d/f", -1));
	EV(in);
	cl(in);
}

/* A rename over a file that is still open: its delete_self waits for the
 * close.  A rename of a parent moves no watched child. */
static void in_rename_more(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/a", 0755));
	C(MKDIR("/a/b", 0755));
	C(mkfile("/a/b/f", ""));
	C(mkfile("/a/t", ""));
	C(mkfile("/a/s", ""));
	C(IADD(in, "/a/b", IN_ALL_EVENTS));
	C(IADD(in, "/a/b/f", IN_ALL_EVENTS));
	C(IADD(in, "/a/t", IN_ALL_EVENTS));
	int fd = F(OPEN("/a/t", O_RDONLY));
	C(RENAME("/a/s", "/a/t"));
	EV(in);
	C(close(fd));
	EV(in);
	C(RENAME("/a", "/c"));
	int f = F(OPEN("/c/b/f", O_WRONLY));
	C(write(f, "x", 1));
	C(close(f));
	EV(in);
	C(RENAME2("/c/b/f", "/c/b/g", RENAME_WHITEOUT));
	LS("/c/b");
	EV(in);
	cl(in);
}

/* Odds and ends: one event with two bits, the root, fd calls that close or
 * open files, O_TMPFILE made visible, whiteout devices. */
static void in_misc(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/d", 0777));
	C(mkfile("/d/s", "data"));
	C(CHMOD("/d/s", 06777));
	C(IADD(in, "/d/s", IN_ALL_EVENTS));
	/* a truncate that drops setuid: IN_MODIFY|IN_ATTRIB in one event */
	C(setcred(1000, 1000));
	C(truncate("/d/s", 1));
	C(setcred(0, 0));
	EV(in);
	C(CHMOD("/d/s", 04755));
	C(CHOWN("/d/s", 7, 7));
	EV(in);
	/* the root directory has no parent to tell */
	C(IADD(in, "/", IN_ALL_EVENTS));
	C(CHMOD("/", 01777));
	int r = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	C(close(r));
	EV(in);
	/* O_APPEND, dup2 over an open file, close_range, reopen */
	int fd = F(OPEN("/d/s", O_WRONLY | O_APPEND));
	C(write(fd, "x", 1));
	int other = F(OPEN("/d/s", O_RDONLY));
	C(dup2(fd, other));
	C(close_range(other, other, 0));
	int re = F(fd_reopen(fd, O_RDONLY));
	C(close(re));
	C(close(fd));
	EV(in);
	/* O_TMPFILE given a name: link count, then create */
	C(IADD(in, "/d", IN_CREATE | IN_ATTRIB));
	int t = F(OPEN("/d", O_TMPFILE | O_RDWR));
	C(linkat(t, "", AT_FDCWD, "/d/named", AT_EMPTY_PATH));
	C(close(t));
	EV(in);
	/* a whiteout is a character device made by mknod */
	C(MKNOD("/d/wh", S_IFCHR | 0600, makedev(0, 0)));
	C(MKNOD("/d/sock", S_IFSOCK | 0600, 0));
	EV(in);
	cl(in);
}

/* A file with names in two watched directories: the directory of the name
 * that was opened hears it.  A file renamed away is not unlinked. */
static void in_two_names(void)
{
	int in = F(IINIT(NB));
	C(MKDIR("/a", 0755));
	C(MKDIR("/b", 0755));
	C(mkfile("/a/f", ""));
	C(LINK("/a/f", "/b/g"));
	C(IADD(in, "/a", IN_MODIFY | IN_ATTRIB | IN_EXCL_UNLINK));
	C(IADD(in, "/b", IN_MODIFY | IN_ATTRIB));
	int fa = F(OPEN("/a/f", O_WRONLY));
	int fb = F(OPEN("/b/g", O_WRONLY));
	C(write(fa, "1", 1));
	C(write(fb, "2", 1));
	C(CHMOD("/b/g", 0600));
	C(CHMOD("/a/f", 0644));
	EV(in);
	C(RENAME("/a/f", "/b/moved"));
	C(write(fa, "3", 1));
	C(UNLINK("/b/g"));
	C(write(fb, "4", 1));
	EV(in);
	cl(fa);
	cl(fb);
	cl(in);
}

const struct scenario inotify_scenarios[] = {
	{ "inotify_two_names", in_two_names },
	{ "inotify_misc", in_misc },
	{ "inotify_mounts", in_mounts },
	{ "inotify_procs", in_procs },
	{ "inotify_failed_ops", in_failed_ops },
	{ "inotify_rename_more", in_rename_more },
	{ "inotify_fifo", in_fifo },
	{ "inotify_init_flags", in_init_flags },
	{ "inotify_add_watch_errors", in_add_watch_errors },
	{ "inotify_wd_numbers", in_wd_numbers },
	{ "inotify_file_events", in_file_events },
	{ "inotify_attr_events", in_attr_events },
	{ "inotify_dir_children", in_dir_children },
	{ "inotify_parent_and_child", in_parent_and_child },
	{ "inotify_unlink_open", in_unlink_open },
	{ "inotify_rename", in_rename },
	{ "inotify_many_instances", in_many_instances },
	{ "inotify_merge", in_merge },
	{ "inotify_overflow", in_overflow },
	{ "inotify_oneshot", in_oneshot },
	{ "inotify_mask_add_create", in_mask_add_create },
	{ "inotify_excl_unlink", in_excl_unlink },
	{ "inotify_symlinks", in_symlinks },
	{ "inotify_read_sizes", in_read_sizes },
	{ "inotify_delete_self", in_delete_self },
	{ "inotify_rm_watch_and_close", in_rm_watch_and_close },
	{ "inotify_poll", in_poll },
	{ "inotify_unmount", in_unmount },
	{ "inotify_open_variants", in_open_variants },
	{ "inotify_dup", in_dup_and_fork },
	{ NULL, NULL },
};
