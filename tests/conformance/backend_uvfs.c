/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend_uvfs.c - the implementation under test: a fresh uvfs instance and
 * proc per scenario (uvfs_create(NULL): a tmpfs root 01777 root:root; the proc
 * as uid 0, gid 0, umask 022, root and cwd "/").  Every operation is the uvfs
 * call of the same name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/stat.h>
#include "backend.h"
#include "uvfs.h"
#include "overlay_root.h"

#define MAX_PROCS 8
struct uv {
	struct uvfs *fs;
	struct uvfs_proc *p[MAX_PROCS];
	int cur;
};
static struct uv uv_ctx;

#define P(c) (((struct uv *)(c))->p[((struct uv *)(c))->cur])

static int u_scenario_fs(struct uvfs *fs, struct uvfs_proc *p);
static int u_setup(void **ctx, const char *scratch)
{
	(void)scratch;
	/* inotify's queue as long as the host's (its default, 16384), so that
	 * overflow scenarios overflow at the same event on both */
	struct uvfs_options opts = { .inotify_max_queued_events = 16384 };
	FILE *q = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (q) {
		if (fscanf(q, "%lu", &opts.inotify_max_queued_events) != 1)
			opts.inotify_max_queued_events = 16384;
		fclose(q);
	}
	uv_ctx.fs = uvfs_create(&opts);
	if (!uv_ctx.fs)
		return -ENOMEM;
	uv_ctx.cur = 0;
	uv_ctx.p[0] = uvfs_proc_create(uv_ctx.fs, 0, 0);
	if (!uv_ctx.p[0]) {
		uvfs_destroy(uv_ctx.fs);
		return -ENOMEM;
	}
	int err = u_scenario_fs(uv_ctx.fs, uv_ctx.p[0]);
	if (err) {
		uvfs_proc_destroy(uv_ctx.p[0]);
		uvfs_destroy(uv_ctx.fs);
		return err;
	}
	*ctx = &uv_ctx;
	return 0;
}

static void u_teardown(void *ctx)
{
	struct uv *u = ctx;
	for (int i = 0; i < MAX_PROCS; i++)
		if (u->p[i])
			uvfs_proc_destroy(u->p[i]);
	uvfs_destroy(u->fs);
}

/* For tests/fault, which checks the tree a scenario left: the instance, and
 * the end of every proc as at teardown (which then destroys the instance). */
struct uvfs *uvfs_backend_instance(void *ctx)
{
	return ((struct uv *)ctx)->fs;
}

void uvfs_backend_end_procs(void *ctx)
{
	struct uv *u = ctx;
	for (int i = 0; i < MAX_PROCS; i++) {
		if (u->p[i])
			uvfs_proc_destroy(u->p[i]);
		u->p[i] = NULL;
	}
}

static int u_proc_clone(void *c, unsigned flags)
{
	struct uv *u = c;
	int i;
	for (i = 1; i < MAX_PROCS && u->p[i]; i++)
		;
	if (i == MAX_PROCS)
		return -EAGAIN;
	if (u->cur != 0)
		return -ENOSYS;	/* as the host backend: clones of proc 0 only */
	u->p[i] = uvfs_proc_clone(u->p[0], flags);
	return u->p[i] ? i : -ENOMEM;
}

static int u_proc_use(void *c, int i)
{
	struct uv *u = c;
	if (i < 0 || i >= MAX_PROCS || !u->p[i])
		return -EINVAL;
	u->cur = i;
	return 0;
}

static int u_proc_destroy(void *c, int i)
{
	struct uv *u = c;
	if (i <= 0 || i >= MAX_PROCS || !u->p[i])
		return -EINVAL;
	uvfs_proc_destroy(u->p[i]);
	u->p[i] = NULL;
	if (u->cur == i)
		u->cur = 0;
	return 0;
}

static int u_openat(void *c, int dirfd, const char *path, int flags, mode_t mode)
{ return uvfs_openat(P(c), dirfd, path, flags, mode); }
static int u_openat2(void *c, int dirfd, const char *path, const struct open_how *how, size_t size)
{ return uvfs_openat2(P(c), dirfd, path, how, size); }
static int u_close(void *c, int fd)
{ return uvfs_close(P(c), fd); }
static int u_close_range(void *c, unsigned first, unsigned last, unsigned flags)
{ return uvfs_close_range(P(c), first, last, flags); }
static int u_fd_reopen(void *c, int fd, int flags)
{ return uvfs_fd_reopen(P(c), fd, flags); }
static ssize_t u_read(void *c, int fd, void *buf, size_t count)
{ return uvfs_read(P(c), fd, buf, count); }
static ssize_t u_write(void *c, int fd, const void *buf, size_t count)
{ return uvfs_write(P(c), fd, buf, count); }
static ssize_t u_pread(void *c, int fd, void *buf, size_t count, off_t off)
{ return uvfs_pread(P(c), fd, buf, count, off); }
static ssize_t u_pwrite(void *c, int fd, const void *buf, size_t count, off_t off)
{ return uvfs_pwrite(P(c), fd, buf, count, off); }
static ssize_t u_readv(void *c, int fd, const struct iovec *iov, int iovcnt)
{ return uvfs_readv(P(c), fd, iov, iovcnt); }
static ssize_t u_writev(void *c, int fd, const struct iovec *iov, int iovcnt)
{ return uvfs_writev(P(c), fd, iov, iovcnt); }
static off_t u_lseek(void *c, int fd, off_t off, int whence)
{ return uvfs_lseek(P(c), fd, off, whence); }
static int u_ftruncate(void *c, int fd, off_t len)
{ return uvfs_ftruncate(P(c), fd, len); }
static int u_truncate(void *c, const char *path, off_t len)
{ return uvfs_truncate(P(c), path, len); }
static int u_fsync(void *c, int fd)
{ return uvfs_fsync(P(c), fd); }
static int u_fdatasync(void *c, int fd)
{ return uvfs_fdatasync(P(c), fd); }
static int u_dup(void *c, int fd)
{ return uvfs_dup(P(c), fd); }
static int u_dup2(void *c, int oldfd, int newfd)
{ return uvfs_dup2(P(c), oldfd, newfd); }
static int u_dup3(void *c, int oldfd, int newfd, int flags)
{ return uvfs_dup3(P(c), oldfd, newfd, flags); }
static int u_fcntl(void *c, int fd, int cmd, unsigned long arg)
{ return uvfs_fcntl(P(c), fd, cmd, arg); }
static int u_mkdirat(void *c, int dirfd, const char *path, mode_t mode)
{ return uvfs_mkdirat(P(c), dirfd, path, mode); }
static int u_mknodat(void *c, int dirfd, const char *path, mode_t mode, dev_t dev)
{ return uvfs_mknodat(P(c), dirfd, path, mode, dev); }
static int u_unlinkat(void *c, int dirfd, const char *path, int flags)
{ return uvfs_unlinkat(P(c), dirfd, path, flags); }
static int u_renameat2(void *c, int od, const char *op, int nd, const char *np, unsigned flags)
{ return uvfs_renameat2(P(c), od, op, nd, np, flags); }
static int u_linkat(void *c, int od, const char *op, int nd, const char *np, int flags)
{ return uvfs_linkat(P(c), od, op, nd, np, flags); }
static int u_symlinkat(void *c, const char *target, int nd, const char *lp)
{ return uvfs_symlinkat(P(c), target, nd, lp); }
static ssize_t u_readlinkat(void *c, int dirfd, const char *path, char *buf, size_t bufsiz)
{ return uvfs_readlinkat(P(c), dirfd, path, buf, bufsiz); }
static ssize_t u_getdents64(void *c, int fd, void *buf, size_t count)
{ return uvfs_getdents64(P(c), fd, buf, count); }
static int u_fstat(void *c, int fd, struct stat *st)
{ return uvfs_fstat(P(c), fd, st); }
static int u_fstatat(void *c, int dirfd, const char *path, struct stat *st, int flags)
{ return uvfs_fstatat(P(c), dirfd, path, st, flags); }
static int u_statx(void *c, int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{ return uvfs_statx(P(c), dirfd, path, flags, mask, stx); }
static int u_fchmod(void *c, int fd, mode_t mode)
{ return uvfs_fchmod(P(c), fd, mode); }
static int u_fchmodat(void *c, int dirfd, const char *path, mode_t mode, int flags)
{ return uvfs_fchmodat(P(c), dirfd, path, mode, flags); }
static int u_fchown(void *c, int fd, uid_t uid, gid_t gid)
{ return uvfs_fchown(P(c), fd, uid, gid); }
static int u_fchownat(void *c, int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{ return uvfs_fchownat(P(c), dirfd, path, uid, gid, flags); }
static int u_utimensat(void *c, int dirfd, const char *path, const struct timespec *t, int flags)
{ return uvfs_utimensat(P(c), dirfd, path, t, flags); }
static int u_faccessat(void *c, int dirfd, const char *path, int mode, int flags)
{ return uvfs_faccessat(P(c), dirfd, path, mode, flags); }
static mode_t u_umask(void *c, mode_t mask)
{ return uvfs_umask(P(c), mask); }
static int u_fstatfs(void *c, int fd, struct statfs *buf)
{ return uvfs_fstatfs(P(c), fd, buf); }
static int u_statfs(void *c, const char *path, struct statfs *buf)
{ return uvfs_statfs(P(c), path, buf); }
static int u_chdir(void *c, const char *path)
{ return uvfs_chdir(P(c), path); }
static int u_fchdir(void *c, int fd)
{ return uvfs_fchdir(P(c), fd); }
static int u_getcwd(void *c, char *buf, size_t size)
{ return uvfs_getcwd(P(c), buf, size); }
static int u_chroot(void *c, const char *path)
{ return uvfs_chroot(P(c), path); }
static int u_setcred(void *c, uid_t uid, gid_t gid)
{ return uvfs_proc_setcred(P(c), uid, gid); }
static int u_setgroups(void *c, size_t n, const gid_t *groups)
{ return uvfs_proc_setgroups(P(c), n, groups); }
static int u_set_nofile(void *c, unsigned long limit)
{ return uvfs_proc_set_nofile(P(c), limit); }
static int u_mount(void *c, const char *source, const char *target, const char *fstype, unsigned long flags, const void *data)
{ return uvfs_mount(P(c), source, target, fstype, flags, data); }
static int u_umount2(void *c, const char *target, int flags)
{ return uvfs_umount2(P(c), target, flags); }
static int u_pivot_root(void *c, const char *new_root, const char *put_old)
{ return uvfs_pivot_root(P(c), new_root, put_old); }

static int u_pipe2(void *c, int fds[2], int flags)
{ return uvfs_pipe2(P(c), fds, flags); }
static int u_ioctl(void *c, int fd, unsigned long req, void *arg)
{ return uvfs_ioctl(P(c), fd, req, arg); }
static int u_poll(void *c, struct pollfd *fds, unsigned long nfds, int timeout_ms)
{ return uvfs_poll(P(c), fds, nfds, timeout_ms); }

static int u_inotify_init1(void *c, int flags)
{ return uvfs_inotify_init1(P(c), flags); }
static int u_inotify_add_watch(void *c, int fd, const char *path, uint32_t mask)
{ return uvfs_inotify_add_watch(P(c), fd, path, mask); }
static int u_inotify_rm_watch(void *c, int fd, int wd)
{ return uvfs_inotify_rm_watch(P(c), fd, wd); }

/*
 * UVFS_CONF_FS=testfs (tests/conformance/on_testfs.c sets it): the scenario
 * runs on a testfs (tests/testfs) that the proc is chrooted into, so that
 * its "/" is that filesystem's root.  testfs_register is weak: the
 * programs that share this backend without testfs (fuzz, fault) answer
 * ENODEV for it.
 */
int testfs_register(struct uvfs *u) __attribute__((weak));

/* UVFS_CONF_FS=overlay: the root an overlay of the layers overlay_root.h
 * describes, made as the host backend makes them */
static int u_overlay_root(struct uvfs_proc *p)
{
	int err = 0;
	for (size_t i = 0; !err && i < sizeof(ovl_root_layers) / sizeof(ovl_root_layers[0]); i++) {
		const struct ovl_root_entry *e = &ovl_root_layers[i];
		if (e->type == 'd') {
			err = uvfs_mkdirat(p, AT_FDCWD, e->path, 0755);
		} else if (e->type == 'l') {
			err = uvfs_symlinkat(p, e->data, AT_FDCWD, e->path);
		} else {
			int fd = uvfs_openat(p, AT_FDCWD, e->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			err = fd < 0 ? fd : 0;
			if (fd >= 0) {
				if (uvfs_write(p, fd, e->data, strlen(e->data)) != (ssize_t)strlen(e->data))
					err = -EIO;
				uvfs_close(p, fd);
			}
		}
	}
	if (!err)
		err = uvfs_fchmodat(p, AT_FDCWD, OVL_ROOT_UPPER, 01777, 0);
	if (!err)
		err = uvfs_mount(p, "overlay", OVL_ROOT_MOUNT, "overlay", 0, OVL_ROOT_OPTS);
	if (!err)
		err = uvfs_chroot(p, OVL_ROOT_MOUNT);
	if (!err)
		err = uvfs_chdir(p, "/");
	return err;
}

static int u_scenario_hostfs(struct uvfs_proc *p);
static int u_scenario_fs(struct uvfs *fs, struct uvfs_proc *p)
{
	const char *name = getenv("UVFS_CONF_FS");
	if (!name || !*name)
		return 0;
	if (!strcmp(name, "overlay"))
		return u_overlay_root(p);
	if (!strcmp(name, "hostfs"))
		return u_scenario_hostfs(p);
	if (strcmp(name, "testfs") || !testfs_register)
		return -ENODEV;
	int err = testfs_register(fs);
	if (!err)
		err = uvfs_mkdirat(p, AT_FDCWD, "/.testfs", 0755);
	if (!err)
		err = uvfs_mount(p, "testfs", "/.testfs", "testfs", 0, NULL);
	if (!err)
		err = uvfs_chroot(p, "/.testfs");
	if (!err)
		err = uvfs_chdir(p, "/");
	return err;
}

/*
 * UVFS_CONF_FS=hostfs (tests/conformance/on_hostfs.c): the root is a
 * hostfs mount of a fresh directory under UVFS_CONF_HOSTDIR (a directory
 * of the host's tmpfs that on_hostfs.c makes and removes), mode 01777 as
 * the host side's fresh tmpfs root.
 */
static int u_scenario_hostfs(struct uvfs_proc *p)
{
	const char *base = getenv("UVFS_CONF_HOSTDIR");
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/s-XXXXXX", base ? base : "/dev/shm");
	if (!mkdtemp(dir) || chmod(dir, 01777))
		return -errno;
	int err = uvfs_mkdirat(p, AT_FDCWD, "/.hostfs", 0755);
	if (!err)
		err = uvfs_mount(p, dir, "/.hostfs", "hostfs", 0, NULL);
	if (!err)
		err = uvfs_chroot(p, "/.hostfs");
	if (!err)
		err = uvfs_chdir(p, "/");
	return err;
}

static int u_setxattr(void *c, const char *path, const char *name, const void *value, size_t size, int flags)
{ return uvfs_setxattr(P(c), path, name, value, size, flags); }
static int u_lsetxattr(void *c, const char *path, const char *name, const void *value, size_t size, int flags)
{ return uvfs_lsetxattr(P(c), path, name, value, size, flags); }
static int u_fsetxattr(void *c, int fd, const char *name, const void *value, size_t size, int flags)
{ return uvfs_fsetxattr(P(c), fd, name, value, size, flags); }
static ssize_t u_getxattr(void *c, const char *path, const char *name, void *value, size_t size)
{ return uvfs_getxattr(P(c), path, name, value, size); }
static ssize_t u_lgetxattr(void *c, const char *path, const char *name, void *value, size_t size)
{ return uvfs_lgetxattr(P(c), path, name, value, size); }
static ssize_t u_fgetxattr(void *c, int fd, const char *name, void *value, size_t size)
{ return uvfs_fgetxattr(P(c), fd, name, value, size); }
static int u_fd_setxattr(void *c, int fd, const char *name, const void *value, size_t size, int flags)
{ return uvfs_fd_setxattr(P(c), fd, name, value, size, flags); }
static ssize_t u_fd_getxattr(void *c, int fd, const char *name, void *value, size_t size)
{ return uvfs_fd_getxattr(P(c), fd, name, value, size); }
static ssize_t u_fd_listxattr(void *c, int fd, char *list, size_t size)
{ return uvfs_fd_listxattr(P(c), fd, list, size); }
static int u_fd_removexattr(void *c, int fd, const char *name)
{ return uvfs_fd_removexattr(P(c), fd, name); }
static ssize_t u_listxattr(void *c, const char *path, char *list, size_t size)
{ return uvfs_listxattr(P(c), path, list, size); }
static ssize_t u_llistxattr(void *c, const char *path, char *list, size_t size)
{ return uvfs_llistxattr(P(c), path, list, size); }
static ssize_t u_flistxattr(void *c, int fd, char *list, size_t size)
{ return uvfs_flistxattr(P(c), fd, list, size); }
static int u_removexattr(void *c, const char *path, const char *name)
{ return uvfs_removexattr(P(c), path, name); }
static int u_lremovexattr(void *c, const char *path, const char *name)
{ return uvfs_lremovexattr(P(c), path, name); }
static int u_fremovexattr(void *c, int fd, const char *name)
{ return uvfs_fremovexattr(P(c), fd, name); }
static int u_setxattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name, const void *args,
			size_t usize)
{ return uvfs_setxattrat(P(c), dfd, path, at_flags, name, args, usize); }
static ssize_t u_getxattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name, void *args,
			    size_t usize)
{ return uvfs_getxattrat(P(c), dfd, path, at_flags, name, args, usize); }
static ssize_t u_listxattrat(void *c, int dfd, const char *path, unsigned at_flags, char *list, size_t size)
{ return uvfs_listxattrat(P(c), dfd, path, at_flags, list, size); }
static int u_removexattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name)
{ return uvfs_removexattrat(P(c), dfd, path, at_flags, name); }

static int u_flock(void *c, int fd, int op)
{ return uvfs_flock(P(c), fd, op); }
static int u_getpid(void *c)
{ return uvfs_getpid(P(c)); }

static int u_fallocate(void *c, int fd, int mode, off_t offset, off_t len)
{ return uvfs_fallocate(P(c), fd, mode, offset, len); }

static ssize_t u_copy_file_range(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
				 unsigned flags)
{ return uvfs_copy_file_range(P(c), fd_in, off_in, fd_out, off_out, len, flags); }
static ssize_t u_sendfile(void *c, int out_fd, int in_fd, off_t *offset, size_t count)
{ return uvfs_sendfile(P(c), out_fd, in_fd, offset, count); }
static ssize_t u_splice(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned flags)
{ return uvfs_splice(P(c), fd_in, off_in, fd_out, off_out, len, flags); }
static ssize_t u_tee(void *c, int fd_in, int fd_out, size_t len, unsigned flags)
{ return uvfs_tee(P(c), fd_in, fd_out, len, flags); }

static int u_epoll_create1(void *c, int flags)
{ return uvfs_epoll_create1(P(c), flags); }
static int u_epoll_ctl(void *c, int epfd, int op, int fd, struct epoll_event *ev)
{ return uvfs_epoll_ctl(P(c), epfd, op, fd, ev); }
static int u_epoll_wait(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms)
{ return uvfs_epoll_wait(P(c), epfd, evs, maxevents, timeout_ms); }
static int u_epoll_pwait(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms,
			 const sigset_t *mask)
{ return uvfs_epoll_pwait(P(c), epfd, evs, maxevents, timeout_ms, mask); }

static int u_setresuid(void *c, uid_t r, uid_t e, uid_t s)
{ return uvfs_proc_setresuid(P(c), r, e, s); }
static int u_setresgid(void *c, gid_t r, gid_t e, gid_t s)
{ return uvfs_proc_setresgid(P(c), r, e, s); }
static int u_name_to_handle_at(void *c, int dfd, const char *path, struct file_handle *h, int *mid, int flags)
{ return uvfs_name_to_handle_at(P(c), dfd, path, h, mid, flags); }
static int u_open_by_handle_at(void *c, int mfd, struct file_handle *h, int flags)
{ return uvfs_open_by_handle_at(P(c), mfd, h, flags); }
static ssize_t u_preadv(void *c, int fd, const struct iovec *iov, int n, off_t off)
{ return uvfs_preadv(P(c), fd, iov, n, off); }
static ssize_t u_pwritev(void *c, int fd, const struct iovec *iov, int n, off_t off)
{ return uvfs_pwritev(P(c), fd, iov, n, off); }
static ssize_t u_preadv2(void *c, int fd, const struct iovec *iov, int n, off_t off, int flags)
{ return uvfs_preadv2(P(c), fd, iov, n, off, flags); }
static ssize_t u_pwritev2(void *c, int fd, const struct iovec *iov, int n, off_t off, int flags)
{ return uvfs_pwritev2(P(c), fd, iov, n, off, flags); }
static int u_fadvise(void *c, int fd, off_t off, off_t len, int advice)
{ return uvfs_posix_fadvise(P(c), fd, off, len, advice); }
static ssize_t u_readahead(void *c, int fd, off_t off, size_t count)
{ return uvfs_readahead(P(c), fd, off, count); }
static int u_syncfs(void *c, int fd)
{ return uvfs_syncfs(P(c), fd); }
static int u_sync_file_range(void *c, int fd, off_t off, off_t nbytes, unsigned flags)
{ return uvfs_sync_file_range(P(c), fd, off, nbytes, flags); }
static int u_memfd_create(void *c, const char *name, unsigned flags)
{ return uvfs_memfd_create(P(c), name, flags); }

const struct backend uvfs_backend = {
	.name = "uvfs",
	.leak_check = 1,
	.setup = u_setup,
	.teardown = u_teardown,
	.openat = u_openat,
	.openat2 = u_openat2,
	.close = u_close,
	.close_range = u_close_range,
	.fd_reopen = u_fd_reopen,
	.fd_setxattr = u_fd_setxattr, .fd_getxattr = u_fd_getxattr, .fd_listxattr = u_fd_listxattr,
	.fd_removexattr = u_fd_removexattr,
	.read = u_read,
	.write = u_write,
	.pread = u_pread,
	.pwrite = u_pwrite,
	.readv = u_readv,
	.writev = u_writev,
	.lseek = u_lseek,
	.ftruncate = u_ftruncate,
	.truncate = u_truncate,
	.fsync = u_fsync,
	.fdatasync = u_fdatasync,
	.dup = u_dup,
	.dup2 = u_dup2,
	.dup3 = u_dup3,
	.fcntl = u_fcntl,
	.mkdirat = u_mkdirat,
	.mknodat = u_mknodat,
	.unlinkat = u_unlinkat,
	.renameat2 = u_renameat2,
	.linkat = u_linkat,
	.symlinkat = u_symlinkat,
	.readlinkat = u_readlinkat,
	.getdents64 = u_getdents64,
	.fstat = u_fstat,
	.fstatat = u_fstatat,
	.statx = u_statx,
	.fchmod = u_fchmod,
	.fchmodat = u_fchmodat,
	.fchown = u_fchown,
	.fchownat = u_fchownat,
	.utimensat = u_utimensat,
	.faccessat = u_faccessat,
	.umask = u_umask,
	.fstatfs = u_fstatfs,
	.statfs = u_statfs,
	.chdir = u_chdir,
	.fchdir = u_fchdir,
	.getcwd = u_getcwd,
	.chroot = u_chroot,
	.setcred = u_setcred,
	.setgroups = u_setgroups,
	.set_nofile = u_set_nofile,
	.mount = u_mount,
	.umount2 = u_umount2,
	.pivot_root = u_pivot_root,
	.proc_clone = u_proc_clone,
	.proc_use = u_proc_use,
	.proc_destroy = u_proc_destroy,
	.pipe2 = u_pipe2,
	.ioctl = u_ioctl,
	.poll = u_poll,
	.inotify_init1 = u_inotify_init1,
	.inotify_add_watch = u_inotify_add_watch,
	.inotify_rm_watch = u_inotify_rm_watch,

	.setxattr = u_setxattr, .lsetxattr = u_lsetxattr, .fsetxattr = u_fsetxattr,
	.getxattr = u_getxattr, .lgetxattr = u_lgetxattr, .fgetxattr = u_fgetxattr,
	.listxattr = u_listxattr, .llistxattr = u_llistxattr, .flistxattr = u_flistxattr,
	.removexattr = u_removexattr, .lremovexattr = u_lremovexattr, .fremovexattr = u_fremovexattr,
	.setxattrat = u_setxattrat, .getxattrat = u_getxattrat, .listxattrat = u_listxattrat,
	.removexattrat = u_removexattrat,

	.flock = u_flock,
	.getpid = u_getpid,

	.fallocate = u_fallocate,

	.copy_file_range = u_copy_file_range,
	.sendfile = u_sendfile,
	.splice = u_splice,
	.tee = u_tee,

	.epoll_create1 = u_epoll_create1,
	.epoll_ctl = u_epoll_ctl,
	.epoll_wait = u_epoll_wait,
	.epoll_pwait = u_epoll_pwait,

	.setresuid = u_setresuid,
	.setresgid = u_setresgid,
	.name_to_handle_at = u_name_to_handle_at,
	.open_by_handle_at = u_open_by_handle_at,
	.preadv = u_preadv, .pwritev = u_pwritev, .preadv2 = u_preadv2, .pwritev2 = u_pwritev2,
	.fadvise = u_fadvise, .readahead = u_readahead, .syncfs = u_syncfs, .sync_file_range = u_sync_file_range,
	.memfd_create = u_memfd_create,

};
