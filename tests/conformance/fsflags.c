/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsflags.c - FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (chattr/lsattr): the
 * flags tmpfs keeps since Linux 6.0 (immutable, append-only, nodump,
 * noatime), who may set which, and what an immutable or append-only file or
 * directory refuses (EPERM) and in which order among the other errors: what
 * LTP's tests on such files (unlink09, rename, open, link, fsetxattr02,
 * ...) and xfstests' generic/079 (t_immutable) assert.
 */
#include "conf.h"
#include "events.h"
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/falloc.h>

#define ioctl(fd, r, a) B->ioctl(BX, fd, r, a)
#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define setxattr(p, n, v, s, f) B->setxattr(BX, p, n, v, s, f)
#define removexattr(p, n) B->removexattr(BX, p, n)
#define getxattr(p, n, v, s) B->getxattr(BX, p, n, v, s)
#define pwritev2(fd, v, n, o, f) B->pwritev2(BX, fd, v, n, o, f)
#define copy_file_range(a, oa, b, ob, n, f) B->copy_file_range(BX, a, oa, b, ob, n, f)
#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define IINIT(f) B->inotify_init1(BX, f)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)
#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x20
#endif

/* the flags of path (opened O_RDONLY|O_NONBLOCK), or -errno */
static long getflags(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	int fl = 0;
	long r = ioctl(fd, FS_IOC_GETFLAGS, &fl);
	cl(fd);
	return r < 0 ? r : fl;
}

/* sets the flags of path through an fd opened O_RDONLY|O_NONBLOCK */
static long setflags(const char *path, int fl)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	long r = ioctl(fd, FS_IOC_SETFLAGS, &fl);
	cl(fd);
	return r;
}
#define GETFL(p) chk(fmt("getflags %s", p), getflags(p))

/* statx's attributes and their mask (LTP statx04) */
static long long stx_attrs(const char *path)
{
	struct statx stx;
	int r = statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx);
	if (r < 0)
		return r;
	return (long long)(stx.stx_attributes & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND | STATX_ATTR_NODUMP |
						 STATX_ATTR_COMPRESSED | STATX_ATTR_ENCRYPTED)) << 32 |
	       (stx.stx_attributes_mask & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND | STATX_ATTR_NODUMP |
					   STATX_ATTR_COMPRESSED | STATX_ATTR_ENCRYPTED));
}
#define STXATTR(p) chk(fmt("statx attributes %s", p), stx_attrs(p))
#define SETFL(p, f) chk(fmt("setflags %s %s", p, #f), setflags(p, f))

/* who may set what, which flags tmpfs keeps, on which files */
static void fsflags_set_get(void)
{
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0755));
	GETFL("/f");
	GETFL("/d");
	GETFL("/");
	STXATTR("/f");
	AGE("/f");
	SETFL("/f", FS_NODUMP_FL);
	TS("/f");
	GETFL("/f");
	SETFL("/f", FS_NOATIME_FL | FS_NODUMP_FL);
	GETFL("/f");
	STXATTR("/f");
	SETFL("/f", 0);
	GETFL("/f");
	/* flags tmpfs does not keep */
	SETFL("/f", FS_SYNC_FL);
	SETFL("/f", FS_COMPR_FL);
	SETFL("/f", FS_DIRSYNC_FL);
	SETFL("/f", FS_NOCOW_FL);
	SETFL("/f", FS_PROJINHERIT_FL);
	SETFL("/f", FS_EXTENT_FL);
	SETFL("/f", FS_NODUMP_FL | FS_SYNC_FL);
	GETFL("/f");
	SETFL("/f", -1);
	GETFL("/f");
	SETFL("/d", FS_NODUMP_FL | FS_NOATIME_FL);
	GETFL("/d");
	/* inherited from the directory: nodump and noatime */
	C(mkfile("/d/f", "x"));
	C(MKDIR("/d/s", 0755));
	GETFL("/d/f");
	GETFL("/d/s");
	SETFL("/d", FS_IMMUTABLE_FL | FS_APPEND_FL);
	STXATTR("/d");
	STXATTR("/d/f");
	C(MKDIR("/d2", 0755));
	SETFL("/d2", FS_APPEND_FL);
	C(mkfile("/d2/f", "x"));
	GETFL("/d2/f");
	/* the ioctl's own errors */
	int fd = F(OPEN("/f", O_RDONLY));
	C(ioctl(fd, FS_IOC_GETFLAGS, NULL));
	C(ioctl(fd, FS_IOC_SETFLAGS, NULL));
	cl(fd);
	int pa = F(OPEN("/f", O_PATH));
	int fl = 0;
	C(ioctl(pa, FS_IOC_GETFLAGS, &fl));
	C(ioctl(pa, FS_IOC_SETFLAGS, &fl));
	cl(pa);
	int p[2];
	C(pipe2(p, O_NONBLOCK));
	C(ioctl(p[0], FS_IOC_GETFLAGS, &fl));
	C(ioctl(p[0], FS_IOC_SETFLAGS, &fl));
	cl(p[0]);
	cl(p[1]);
	C(MKNOD("/fifo", S_IFIFO | 0666, 0));
	GETFL("/fifo");
	SETFL("/fifo", FS_NODUMP_FL);
	int in = F(IINIT(0));
	C(ioctl(in, FS_IOC_GETFLAGS, &fl));
	cl(in);
	/* a file opened for writing only, and a read-only mount */
	int wo = F(OPEN("/f", O_WRONLY));
	fl = FS_NODUMP_FL;
	C(ioctl(wo, FS_IOC_SETFLAGS, &fl));
	C(ioctl(wo, FS_IOC_GETFLAGS, &fl));
	C(fl);
	cl(wo);
	/* the owner who is not root: no immutable, no append-only */
	C(mkfile("/u", "u"));
	C(CHOWN("/u", 1000, 1000));
	C(mkfile("/r", "r"));
	SETFL("/r", FS_APPEND_FL);
	C(setcred(1000, 1000));
	SETFL("/u", FS_NODUMP_FL);
	GETFL("/u");
	SETFL("/u", FS_IMMUTABLE_FL);
	SETFL("/u", FS_APPEND_FL | FS_NODUMP_FL);
	SETFL("/u", FS_NOATIME_FL);
	SETFL("/u", FS_SYNC_FL);
	GETFL("/u");
	SETFL("/f", FS_NODUMP_FL);
	SETFL("/f", FS_SYNC_FL);
	GETFL("/f");
	/* the append-only flag stays as it is: allowed */
	SETFL("/r", FS_APPEND_FL | FS_NODUMP_FL);
	SETFL("/r", FS_NODUMP_FL);
	C(setcred(0, 0));
	GETFL("/r");
	STAT("/u");
	STAT("/f");
}

/* a read-only mount: EROFS before the owner's EPERM */
static void fsflags_ro_mount(void)
{
	C(MKDIR("/m", 0777));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", "x"));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	GETFL("/m/f");
	SETFL("/m/f", FS_NODUMP_FL);
	SETFL("/m/f", FS_IMMUTABLE_FL);
	C(setcred(1000, 1000));
	SETFL("/m/f", FS_NODUMP_FL);
	C(setcred(0, 0));
	C(umount2("/m", 0));
}

/* an immutable file: nothing changes it, root included; reads do */
static void fsflags_immutable_file(void)
{
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0777));
	C(mkfile("/d/g", "g"));
	int w = F(OPEN("/f", O_RDWR));
	C(setxattr("/f", "user.a", "1", 1, 0));
	SETFL("/f", FS_IMMUTABLE_FL);
	GETFL("/f");
	CAT("/f");
	F(OPEN("/f", O_RDONLY));
	C(OPEN("/f", O_WRONLY));
	C(OPEN("/f", O_RDWR));
	C(OPEN("/f", O_RDONLY | O_TRUNC));
	C(OPEN("/f", O_WRONLY | O_APPEND));
	C(OPEN("/f", O_CREAT | O_EXCL | O_WRONLY));
	C(ACCESS("/f", W_OK));
	C(ACCESS("/f", R_OK));
	C(truncate("/f", 0));
	C(ftruncate(w, 0));
	/* an fd opened before: the write goes through (tmpfs checks nothing) */
	C(wr(w, "X"));
	C(fallocate(w, 0, 0, 100));
	C(fallocate(w, FALLOC_FL_KEEP_SIZE, 0, 8192));
	C(fallocate(w, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1));
	CAT("/f");
	C(CHMOD("/f", 0600));
	C(fchmod(w, 0600));
	C(CHOWN("/f", 1, 1));
	C(CHOWN("/f", -1, -1));
	C(CHOWN("/f", 0, 0));
	C(utimensat(AT_FDCWD, "/f", T_OLD, 0));
	C(utimensat(AT_FDCWD, "/f", NULL, 0));
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	C(utimensat(AT_FDCWD, "/f", omit, 0));
	struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	C(utimensat(AT_FDCWD, "/f", now, 0));
	C(setxattr("/f", "user.b", "2", 1, 0));
	C(removexattr("/f", "user.a"));
	char v[8];
	C(getxattr("/f", "user.a", v, sizeof v));
	C(UNLINK("/f"));
	C(RENAME("/f", "/g"));
	C(RENAME("/d/g", "/f"));
	C(LINK("/f", "/h"));
	C(SYMLINK("/f", "/s"));
	C(linkat(w, "", AT_FDCWD, "/h2", AT_EMPTY_PATH));
	int r = F(OPEN("/f", O_RDONLY));
	C(pwritev2(w, (&(struct iovec){ "y", 1 }), 1, 0, 0));
	off_t o1 = 0, o2 = 0;
	C(copy_file_range(r, &o1, w, &o2, 1, 0));
	cl(r);
	/* root clears it; then everything works again */
	SETFL("/f", 0);
	C(UNLINK("/f"));
	cl(w);
	LS("/");
}

/* an append-only file: writes at the end only, no truncate, no unlink */
static void fsflags_append_file(void)
{
	C(mkfile("/f", "data"));
	int rw = F(OPEN("/f", O_RDWR));
	SETFL("/f", FS_APPEND_FL);
	C(OPEN("/f", O_WRONLY));
	C(OPEN("/f", O_RDWR));
	C(OPEN("/f", O_WRONLY | O_APPEND | O_TRUNC));
	C(OPEN("/f", O_RDONLY | O_TRUNC));
	int a = F(OPEN("/f", O_WRONLY | O_APPEND));
	int ro = F(OPEN("/f", O_RDONLY));
	C(wr(a, "more"));
	C(ACCESS("/f", W_OK));
	C(truncate("/f", 0));
	C(truncate("/f", 100));
	C(ftruncate(a, 0));
	C(ftruncate(rw, 0));
	C(fcntl(a, F_SETFL, 0));
	C(fcntl(a, F_SETFL, O_APPEND | O_NONBLOCK));
	C(fcntl(rw, F_SETFL, O_APPEND));
	C(fcntl(rw, F_SETFL, 0));
	C(fcntl(ro, F_SETFL, O_APPEND));
	C(fcntl(ro, F_SETFL, 0));
	C(fcntl(a, F_GETFL, 0) & (O_APPEND | O_NONBLOCK));
	C(pwritev2(a, (&(struct iovec){ "Z", 1 }), 1, 0, RWF_NOAPPEND));
	C(pwritev2(a, (&(struct iovec){ "Z", 1 }), 1, 0, 0));
	C(pwrite(a, "P", 1, 0));
	C(wr(rw, "W"));
	C(fallocate(a, 0, 0, 100));
	C(fallocate(a, FALLOC_FL_KEEP_SIZE, 0, 100));
	C(fallocate(a, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1));
	C(fallocate(a, FALLOC_FL_ZERO_RANGE, 0, 1));
	CAT("/f");
	C(CHMOD("/f", 0600));
	C(CHOWN("/f", 1, 1));
	C(utimensat(AT_FDCWD, "/f", T_OLD, 0));
	C(utimensat(AT_FDCWD, "/f", NULL, 0));
	C(setxattr("/f", "user.b", "2", 1, 0));
	C(UNLINK("/f"));
	C(RENAME("/f", "/g"));
	C(LINK("/f", "/h"));
	C(mkfile("/x", "x"));
	C(RENAME("/x", "/f"));
	off_t o1 = 0, o2 = 0;
	C(copy_file_range(ro, &o1, a, &o2, 1, 0));
	C(copy_file_range(ro, &o1, rw, &o2, 1, 0));
	cl(a);
	cl(ro);
	cl(rw);
	SETFL("/f", 0);
	C(UNLINK("/f"));
	LS("/");
}

/* immutable and append-only directories, and the order of EPERM among
 * the other errors (EACCES, ENOENT, EEXIST, the sticky bit) */
static void fsflags_dirs(void)
{
	C(MKDIR("/i", 0777));
	C(mkfile("/i/f", "f"));
	C(MKDIR("/i/sub", 0777));
	C(MKDIR("/a", 01777));
	C(mkfile("/a/f", "f"));
	C(MKDIR("/a/sub", 0777));
	C(mkfile("/x", "x"));
	SETFL("/i", FS_IMMUTABLE_FL);
	SETFL("/a", FS_APPEND_FL);
	/* immutable: no name added or removed */
	C(OPEN("/i/new", O_CREAT | O_WRONLY));
	C(OPEN("/i/f", O_CREAT | O_WRONLY));
	C(OPEN("/i/f", O_CREAT | O_EXCL | O_WRONLY));
	C(MKDIR("/i/d", 0755));
	C(MKDIR("/i/f", 0755));
	C(SYMLINK("x", "/i/l"));
	C(MKNOD("/i/p", S_IFIFO | 0644, 0));
	C(LINK("/x", "/i/x"));
	C(UNLINK("/i/f"));
	C(UNLINK("/i/none"));
	C(RMDIR("/i/sub"));
	C(RENAME("/i/f", "/y"));
	C(RENAME("/x", "/i/x"));
	C(RENAME("/x", "/i/f"));
	C(RENAME("/i/sub", "/sub2"));
	C(OPEN("/i", O_RDONLY | O_TMPFILE | O_RDWR));
	C(ACCESS("/i", W_OK));
	C(CHMOD("/i", 0755));
	/* what is inside stays writable */
	int fd = F(OPEN("/i/f", O_WRONLY | O_TRUNC));
	C(wr(fd, "in"));
	cl(fd);
	C(MKDIR("/i/sub/d", 0755));
	CAT("/i/f");
	/* append-only: names may be added, not removed */
	C(MKDIR("/a/d", 0755));
	C(mkfile("/a/g", "g"));
	C(UNLINK("/a/f"));
	C(RMDIR("/a/sub"));
	C(RENAME("/a/f", "/a/f2"));
	C(RENAME("/x", "/a/x"));
	C(RENAME("/x", "/a/f"));
	C(RENAME2("/x", "/a/f", RENAME_EXCHANGE));
	C(RENAME2("/x", "/a/new", RENAME_NOREPLACE));
	C(LINK("/a/g", "/a/g2"));
	C(OPEN("/a/f", O_WRONLY | O_TRUNC));
	C(ACCESS("/a", W_OK));
	LS("/a");
	/* which error first: a user without write permission, the sticky bit */
	C(setcred(1000, 1000));
	C(OPEN("/i/new", O_CREAT | O_WRONLY));
	C(UNLINK("/i/f"));
	C(UNLINK("/a/f"));
	C(UNLINK("/a/none"));
	C(mkfile("/a/mine", "m"));
	C(UNLINK("/a/mine"));
	C(setcred(0, 0));
	C(CHMOD("/i/sub", 0700));
	SETFL("/i", 0);
	SETFL("/i/sub", FS_APPEND_FL);
	C(setcred(1000, 1000));
	C(RMDIR("/i/sub/d"));
	C(setcred(0, 0));
	/* an immutable file in a sticky directory */
	C(MKDIR("/t", 01777));
	C(mkfile("/t/f", "f"));
	SETFL("/t/f", FS_IMMUTABLE_FL);
	C(setcred(1000, 1000));
	C(UNLINK("/t/f"));
	C(setcred(0, 0));
	C(UNLINK("/t/f"));
	C(RMDIR("/t"));
	SETFL("/t/f", 0);
	SETFL("/a", 0);
	SETFL("/i/sub", 0);
	LS("/");
	LS("/a");
}

/* noatime: reads leave atime; the events and the ctime of a change */
static void fsflags_noatime_events(void)
{
	C(mkfile("/f", "data"));
	int in = F(IINIT(IN_NONBLOCK));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	SETFL("/f", FS_NOATIME_FL);
	EV(in);
	AGE("/f");
	CAT("/f");
	TS("/f");
	SETFL("/f", FS_NOATIME_FL);
	EV(in);
	SETFL("/f", 0);
	AGE("/f");
	CAT("/f");
	TS("/f");
	/* a directory's listing */
	C(MKDIR("/d", 0755));
	SETFL("/d", FS_NOATIME_FL);
	AGE("/d");
	LS("/d");
	TS("/d");
	cl(in);
}

/* FS_IOC_FSGETXATTR/FSSETXATTR (xfs_io chattr; the kernel's fileattr_set
 * reads the old flags this way through FUSE): the same flags as xflags */
static long long fsx_get(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	struct fsxattr x;
	memset(&x, 0xff, sizeof(x));
	long r = ioctl(fd, FS_IOC_FSGETXATTR, &x);
	cl(fd);
	if (r < 0)
		return r;
	return (long long)x.fsx_xflags << 32 | (x.fsx_extsize | x.fsx_nextents | x.fsx_projid | x.fsx_cowextsize);
}

static long fsx_set(const char *path, unsigned xflags, unsigned extsize, unsigned projid)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	struct fsxattr x;
	memset(&x, 0, sizeof(x));
	x.fsx_xflags = xflags;
	x.fsx_extsize = extsize;
	x.fsx_projid = projid;
	long r = ioctl(fd, FS_IOC_FSSETXATTR, &x);
	cl(fd);
	return r;
}
#define FSXGET(p) chk(fmt("fsgetxattr %s", p), fsx_get(p))
#define FSXSET(p, x, e, j) chk(fmt("fssetxattr %s %s %s %s", p, #x, #e, #j), fsx_set(p, x, e, j))

static void fsflags_fsxattr(void)
{
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0755));
	FSXGET("/f");
	SETFL("/f", FS_IMMUTABLE_FL | FS_NODUMP_FL | FS_NOATIME_FL);
	FSXGET("/f");
	SETFL("/f", FS_APPEND_FL);
	FSXGET("/f");
	FSXSET("/f", FS_XFLAG_NODUMP, 0, 0);
	GETFL("/f");
	FSXSET("/f", FS_XFLAG_IMMUTABLE | FS_XFLAG_APPEND, 0, 0);
	GETFL("/f");
	FSXSET("/f", 0, 0, 0);
	GETFL("/f");
	FSXSET("/f", FS_XFLAG_SYNC, 0, 0);
	FSXSET("/f", FS_XFLAG_REALTIME, 0, 0);
	FSXSET("/f", 0, 0, 5);
	FSXSET("/d", FS_XFLAG_NOATIME, 0, 0);
	FSXGET("/d");
	GETFL("/d");
	int fd = F(OPEN("/f", O_RDONLY));
	C(ioctl(fd, FS_IOC_FSGETXATTR, NULL));
	C(ioctl(fd, FS_IOC_FSSETXATTR, NULL));
	cl(fd);
	C(CHOWN("/f", 1000, 1000));
	C(setcred(1000, 1000));
	FSXSET("/f", FS_XFLAG_NODUMP, 0, 0);
	FSXSET("/f", FS_XFLAG_IMMUTABLE, 0, 0);
	FSXSET("/d", FS_XFLAG_NODUMP, 0, 0);
	C(setcred(0, 0));
	FSXGET("/f");
}

const struct scenario fsflags_scenarios[] = {
	{ "fsflags_set_get", fsflags_set_get },
	{ "fsflags_ro_mount", fsflags_ro_mount },
	{ "fsflags_immutable_file", fsflags_immutable_file },
	{ "fsflags_append_file", fsflags_append_file },
	{ "fsflags_dirs", fsflags_dirs },
	{ "fsflags_noatime_events", fsflags_noatime_events },
	{ "fsflags_fsxattr", fsflags_fsxattr },
	{ NULL, NULL },
};
