/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend_host.c - the expected values: the host kernel.
 *
 * The parent makes an empty directory under /dev/shm.  The child (one per
 * scenario) moves into a private mount namespace, mounts a fresh tmpfs on that
 * directory (so the root is 01777 root:root, like a fresh uvfs), makes it the
 * root (pivot_root, or chroot where that fails) and closes every fd, so that
 * absolute paths, ".." at the root and the lowest free fd behave as in a fresh
 * uvfs proc.  Its mounts vanish with the
 * namespace when the child exits; the parent then removes the directory.
 *
 * Calls go through raw syscalls, so every call returns -errno and we get the
 * kernel's own answers (getcwd's length, getdents64 records, renameat2 and
 * openat2 flags) without glibc in the way.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/stat.h>
#include "backend.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

/* An fd on /proc opened before the chroot, for fd_reopen, parked above the fd
 * limit the scenarios run with (1024), where they do not look.  close_range()
 * over it leaves it open. */
#define HOST_PROC_FD 5000

struct host {
	uid_t uid;
	gid_t gid;
};
static struct host host_ctx;

#define R(expr) do { long _r = (long)(expr); return _r < 0 ? -errno : _r; } while (0)

static int h_prepare(char *scratch, size_t len)
{
	snprintf(scratch, len, "/dev/shm/uvfs-conf.XXXXXX");
	return mkdtemp(scratch) ? 0 : -errno;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st; (void)f;
	if (type == FTW_DP || type == FTW_D)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

static void h_cleanup(const char *scratch)
{
	if (scratch[0])
		nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	rmdir(scratch);
}

static int h_setup(void **ctx, const char *scratch)
{
	int own_tmpfs = 0;

	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("tmpfs", scratch, "tmpfs", 0, NULL) == 0)
		own_tmpfs = 1;
	if (!own_tmpfs && chmod(scratch, 01777) < 0)
		return -errno;
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur <= HOST_PROC_FD && rl.rlim_max > HOST_PROC_FD) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	int pfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0) {
		dup2(pfd, HOST_PROC_FD);
		close(pfd);
	}
	/* With our own tmpfs in our own namespace, make it the namespace's root
	 * (pivot_root), so that even a cwd outside a later chroot reads as
	 * "(unreachable)/..." from that root, as in uvfs; else chroot. */
	if (own_tmpfs && chdir(scratch) == 0 && syscall(SYS_pivot_root, ".", ".") == 0 &&
	    umount2(".", MNT_DETACH) == 0) {
		if (chdir("/") < 0)
			return -errno;
	} else if (chroot(scratch) < 0 || chdir("/") < 0) {
		return -errno;
	}
	umask(022);
	if (syscall(SYS_setgroups, 0, NULL) < 0)
		return -errno;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 1024;
	if (rl.rlim_max < 1024)
		rl.rlim_max = 1024;
	setrlimit(RLIMIT_NOFILE, &rl);
	syscall(SYS_close_range, 0, HOST_PROC_FD - 1, 0);
	syscall(SYS_close_range, HOST_PROC_FD + 1, ~0U, 0);
	host_ctx.uid = 0;
	host_ctx.gid = 0;
	*ctx = &host_ctx;
	return 0;
}

static void h_teardown(void *ctx)
{
	(void)ctx;
}

static int h_openat(void *c, int dirfd, const char *path, int flags, mode_t mode)
{ R(syscall(SYS_openat, dirfd, path, flags, mode)); }
static int h_openat2(void *c, int dirfd, const char *path, const struct open_how *how, size_t size)
{ R(syscall(SYS_openat2, dirfd, path, how, size)); }
static int h_close(void *c, int fd)
{ R(syscall(SYS_close, fd)); }
static int h_close_range(void *c, unsigned first, unsigned last, unsigned flags)
{
	/* Keep the parked /proc fd out of the scenario's reach. */
	if (first <= last && first <= HOST_PROC_FD && last >= HOST_PROC_FD) {
		long r = 0;
		if (first < HOST_PROC_FD)
			r = syscall(SYS_close_range, first, HOST_PROC_FD - 1, flags);
		if (r == 0 && last > HOST_PROC_FD)
			r = syscall(SYS_close_range, HOST_PROC_FD + 1, last, flags);
		return r < 0 ? -errno : 0;
	}
	R(syscall(SYS_close_range, first, last, flags));
}
static int h_fd_reopen(void *c, int fd, int flags)
{
	char p[64];
	if (fd < 0 || fd == HOST_PROC_FD || syscall(SYS_fcntl, fd, F_GETFD) < 0)
		return -EBADF;
	snprintf(p, sizeof p, "self/fd/%d", fd);
	R(syscall(SYS_openat, HOST_PROC_FD, p, flags & ~(O_CREAT | O_EXCL), 0));
}
static ssize_t h_read(void *c, int fd, void *buf, size_t count)
{ R(syscall(SYS_read, fd, buf, count)); }
static ssize_t h_write(void *c, int fd, const void *buf, size_t count)
{ R(syscall(SYS_write, fd, buf, count)); }
static ssize_t h_pread(void *c, int fd, void *buf, size_t count, off_t off)
{ R(syscall(SYS_pread64, fd, buf, count, off)); }
static ssize_t h_pwrite(void *c, int fd, const void *buf, size_t count, off_t off)
{ R(syscall(SYS_pwrite64, fd, buf, count, off)); }
static ssize_t h_readv(void *c, int fd, const struct iovec *iov, int iovcnt)
{ R(syscall(SYS_readv, fd, iov, iovcnt)); }
static ssize_t h_writev(void *c, int fd, const struct iovec *iov, int iovcnt)
{ R(syscall(SYS_writev, fd, iov, iovcnt)); }
static off_t h_lseek(void *c, int fd, off_t off, int whence)
{ R(syscall(SYS_lseek, fd, off, whence)); }
static int h_ftruncate(void *c, int fd, off_t len)
{ R(syscall(SYS_ftruncate, fd, len)); }
static int h_truncate(void *c, const char *path, off_t len)
{ R(syscall(SYS_truncate, path, len)); }
static int h_fsync(void *c, int fd)
{ R(syscall(SYS_fsync, fd)); }
static int h_fdatasync(void *c, int fd)
{ R(syscall(SYS_fdatasync, fd)); }
static int h_dup(void *c, int fd)
{ R(syscall(SYS_dup, fd)); }
static int h_dup2(void *c, int oldfd, int newfd)
{ R(syscall(SYS_dup2, oldfd, newfd)); }
static int h_dup3(void *c, int oldfd, int newfd, int flags)
{ R(syscall(SYS_dup3, oldfd, newfd, flags)); }
static int h_fcntl(void *c, int fd, int cmd, unsigned long arg)
{ R(syscall(SYS_fcntl, fd, cmd, arg)); }

static int h_mkdirat(void *c, int dirfd, const char *path, mode_t mode)
{ R(syscall(SYS_mkdirat, dirfd, path, mode)); }
static int h_mknodat(void *c, int dirfd, const char *path, mode_t mode, dev_t dev)
{ R(syscall(SYS_mknodat, dirfd, path, mode, (unsigned)dev)); }
static int h_unlinkat(void *c, int dirfd, const char *path, int flags)
{ R(syscall(SYS_unlinkat, dirfd, path, flags)); }
static int h_renameat2(void *c, int od, const char *op, int nd, const char *np, unsigned flags)
{ R(syscall(SYS_renameat2, od, op, nd, np, flags)); }
static int h_linkat(void *c, int od, const char *op, int nd, const char *np, int flags)
{ R(syscall(SYS_linkat, od, op, nd, np, flags)); }
static int h_symlinkat(void *c, const char *target, int nd, const char *lp)
{ R(syscall(SYS_symlinkat, target, nd, lp)); }
static ssize_t h_readlinkat(void *c, int dirfd, const char *path, char *buf, size_t bufsiz)
{ R(syscall(SYS_readlinkat, dirfd, path, buf, bufsiz)); }
static ssize_t h_getdents64(void *c, int fd, void *buf, size_t count)
{ R(syscall(SYS_getdents64, fd, buf, count)); }

static int h_fstat(void *c, int fd, struct stat *st)
{ R(syscall(SYS_fstat, fd, st)); }
static int h_fstatat(void *c, int dirfd, const char *path, struct stat *st, int flags)
{ R(syscall(SYS_newfstatat, dirfd, path, st, flags)); }
static int h_statx(void *c, int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{ R(syscall(SYS_statx, dirfd, path, flags, mask, stx)); }
static int h_fchmod(void *c, int fd, mode_t mode)
{ R(syscall(SYS_fchmod, fd, mode)); }
static int h_fchmodat(void *c, int dirfd, const char *path, mode_t mode, int flags)
{
	/* fchmodat2 (Linux 6.6) only when there are flags, so that plain chmod
	 * works on older kernels; there a flag gives ENOSYS and is skipped. */
	if (!flags)
		R(syscall(SYS_fchmodat, dirfd, path, mode));
	R(syscall(SYS_fchmodat2, dirfd, path, mode, flags));
}
static int h_fchown(void *c, int fd, uid_t uid, gid_t gid)
{ R(syscall(SYS_fchown, fd, uid, gid)); }
static int h_fchownat(void *c, int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{ R(syscall(SYS_fchownat, dirfd, path, uid, gid, flags)); }
static int h_utimensat(void *c, int dirfd, const char *path, const struct timespec t[2], int flags)
{ R(syscall(SYS_utimensat, dirfd, path, t, flags)); }
static int h_faccessat(void *c, int dirfd, const char *path, int mode, int flags)
{ R(syscall(SYS_faccessat2, dirfd, path, mode, flags)); }
static mode_t h_umask(void *c, mode_t mask)
{ return (mode_t)syscall(SYS_umask, mask); }
static int h_fstatfs(void *c, int fd, struct statfs *buf)
{ R(syscall(SYS_fstatfs, fd, buf)); }
static int h_statfs(void *c, const char *path, struct statfs *buf)
{ R(syscall(SYS_statfs, path, buf)); }

static int h_chdir(void *c, const char *path)
{ R(syscall(SYS_chdir, path)); }
static int h_fchdir(void *c, int fd)
{ R(syscall(SYS_fchdir, fd)); }
static int h_getcwd(void *c, char *buf, size_t size)
{ R(syscall(SYS_getcwd, buf, size)); }
static int h_chroot(void *c, const char *path)
{ R(syscall(SYS_chroot, path)); }

/*
 * A process with uid/gid as its real, effective and fs ids: a non-zero euid
 * clears the effective capabilities (all of them: file capabilities, mount,
 * chroot, mknod), which is what uvfs_proc_setcred documents for uid != 0.
 * The saved uid stays 0 so that we can come back to root.  faccessat without
 * AT_EACCESS then checks the same ids as with it, as in uvfs, which keeps a
 * single set of credentials.
 */
static int to_root(void)
{
	if (syscall(SYS_setresuid, 0, 0, 0) < 0 || syscall(SYS_setresgid, 0, 0, 0) < 0)
		return -errno;
	return 0;
}

static int h_setcred(void *c, uid_t uid, gid_t gid)
{
	struct host *h = c;
	int r = to_root();
	if (r)
		return r;
	if (syscall(SYS_setresgid, gid, gid, 0) < 0 || syscall(SYS_setresuid, uid, uid, 0) < 0)
		return -errno;
	h->uid = uid;
	h->gid = gid;
	return 0;
}

static int h_setgroups(void *c, size_t n, const gid_t *groups)
{
	struct host *h = c;
	int r = to_root();
	if (r)
		return r;
	long e = syscall(SYS_setgroups, n, groups);
	int err = e < 0 ? -errno : 0;
	r = h_setcred(c, h->uid, h->gid);
	return err ? err : r;
}

static int h_set_nofile(void *c, unsigned long limit)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = limit;
	R(setrlimit(RLIMIT_NOFILE, &rl));
}

static int h_mount(void *c, const char *source, const char *target, const char *fstype,
		   unsigned long flags, const void *data)
{ R(syscall(SYS_mount, source, target, fstype, flags, data)); }
static int h_umount2(void *c, const char *target, int flags)
{ R(syscall(SYS_umount2, target, flags)); }

const struct backend host_backend = {
	.name = "host",
	.prepare = h_prepare,
	.setup = h_setup,
	.teardown = h_teardown,
	.cleanup = h_cleanup,
	.openat = h_openat, .openat2 = h_openat2, .close = h_close, .close_range = h_close_range,
	.fd_reopen = h_fd_reopen, .read = h_read, .write = h_write, .pread = h_pread,
	.pwrite = h_pwrite, .readv = h_readv, .writev = h_writev, .lseek = h_lseek,
	.ftruncate = h_ftruncate, .truncate = h_truncate, .fsync = h_fsync,
	.fdatasync = h_fdatasync, .dup = h_dup, .dup2 = h_dup2, .dup3 = h_dup3, .fcntl = h_fcntl,
	.mkdirat = h_mkdirat, .mknodat = h_mknodat, .unlinkat = h_unlinkat,
	.renameat2 = h_renameat2, .linkat = h_linkat, .symlinkat = h_symlinkat,
	.readlinkat = h_readlinkat, .getdents64 = h_getdents64,
	.fstat = h_fstat, .fstatat = h_fstatat, .statx = h_statx, .fchmod = h_fchmod,
	.fchmodat = h_fchmodat, .fchown = h_fchown, .fchownat = h_fchownat,
	.utimensat = h_utimensat, .faccessat = h_faccessat, .umask = h_umask,
	.fstatfs = h_fstatfs, .statfs = h_statfs,
	.chdir = h_chdir, .fchdir = h_fchdir, .getcwd = h_getcwd, .chroot = h_chroot,
	.setcred = h_setcred, .setgroups = h_setgroups, .set_nofile = h_set_nofile,
	.mount = h_mount, .umount2 = h_umount2,
};
