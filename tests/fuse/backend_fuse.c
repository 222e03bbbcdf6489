/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend_fuse.c - the conformance suite's third backend: system calls into a
 * FUSE mount of uvfs.
 *
 * It is linked in place of backend_uvfs.c (as the harness's uvfs_backend), so
 * every conformance scenario compares the host tmpfs with uvfs seen through
 * the kernel's FUSE client and uvfs-fuse.
 *
 * prepare (parent): a scratch directory with a fresh `uvfs-fuse -f -o
 * allow_other` mounted on scratch/mnt, so every scenario starts on an empty
 * tree (root 01777 root:root).  setup (child): a private mount namespace whose
 * root is that mount (pivot_root, else chroot), cwd "/", umask 022, no fds,
 * fd limit 1024, as the host backend does for its tmpfs.  cleanup (parent):
 * fusermount3 -u, wait for the server, remove the scratch directory.
 *
 * Mounting inside the uvfs tree is done through the library, not through
 * FUSE: mount, umount2 and pivot_root answer ENOSYS, and the runner (conformance_fuse.c)
 * leaves the mount scenarios out.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/stat.h>
#include "backend.h"
#include "mount.h"
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

/* /proc, opened before the pivot, parked above the scenarios' fd limit: for
 * fd_reopen through /proc/self/fd. */
#define PROC_FD 5000

static pid_t server_pid = -1;
static struct { uid_t uid; gid_t gid; } fctx;

/* a raw system call's result as the uvfs API gives it */
#define SC(...) do { long r_ = syscall(__VA_ARGS__); return r_ < 0 ? -errno : r_; } while (0)

/* UVFS_FUSE_HOSTDIR=1 (conformance-fuse-hostfs): the server shows a fresh
 * directory of the host's tmpfs (-o hostdir), made here and removed by
 * f_cleanup. */
static char hostdir[64];

static int f_prepare(char *scratch, size_t len)
{
	const char *bin = fuse_program();
	const char *extra = getenv("UVFS_FUSE_ARGS");
	char mnt[300], log[300], args[512];
	char *argv[24];
	int argc = 0;

	snprintf(scratch, len, "/tmp/uvfs-conf-fuse.XXXXXX");
	if (!mkdtemp(scratch))
		return -errno;
	chmod(scratch, 0755);
	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	snprintf(log, sizeof(log), "%s/server.log", scratch);
	if (mkdir(mnt, 0755) < 0)
		return -errno;
	argv[argc++] = (char *)bin;
	argv[argc++] = "-f";
	argv[argc++] = "-o";
	argv[argc++] = "allow_other";
	char hostopt[80];
	if (getenv("UVFS_FUSE_HOSTDIR")) {
		snprintf(hostdir, sizeof(hostdir), "/dev/shm/uvfs-conf-fuse-host.XXXXXX");
		if (!mkdtemp(hostdir) || chmod(hostdir, 01777))
			return -errno;
		snprintf(hostopt, sizeof(hostopt), "hostdir=%s", hostdir);
		argv[argc++] = "-o";
		argv[argc++] = hostopt;
	}
	snprintf(args, sizeof(args), "%s", extra ? extra : "");
	for (char *save, *tok = strtok_r(args, " ", &save); tok && argc < 20; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc++] = mnt;
	argv[argc] = NULL;
	server_pid = fuse_spawn(argv, log, 0);
	if (server_pid < 0)
		return -errno;
	int r = fuse_wait_mounted(server_pid, mnt, 10);
	if (r == -EIO)
		server_pid = -1;
	if (r < 0)
		errno = -r;
	return r;
}

static void f_cleanup(const char *scratch)
{
	char mnt[300], cmd[700];

	if (!scratch[0])
		return;
	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	if (fuse_mounted(mnt))
		fuse_unmount(mnt, 0);
	if (server_pid > 0) {
		fuse_reap(server_pid, 10);
		server_pid = -1;
	}
	if (fuse_mounted(mnt))
		umount2(mnt, MNT_DETACH);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", scratch);
	if (hostdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", hostdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", hostdir);
		hostdir[0] = 0;
	}
}

static int f_setup(void **ctx, const char *scratch)
{
	char mnt[300];
	struct rlimit rl;
	int pfd;

	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur <= PROC_FD && rl.rlim_max > PROC_FD) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* /proc first: it stays reachable through the fd after the pivot */
	pfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0) {
		dup2(pfd, PROC_FD);
		close(pfd);
	}
	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    chdir(mnt) == 0 && syscall(SYS_pivot_root, ".", ".") == 0 && umount2(".", MNT_DETACH) == 0) {
		if (chdir("/") < 0)
			return -errno;
	} else if (chroot(mnt) < 0 || chdir("/") < 0) {
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
	syscall(SYS_close_range, 0, PROC_FD - 1, 0);
	syscall(SYS_close_range, PROC_FD + 1, ~0U, 0);
	fctx.uid = 0;
	fctx.gid = 0;
	*ctx = &fctx;
	return 0;
}

static void f_teardown(void *ctx)
{
	(void)ctx;
}

static int f_openat(void *c, int dirfd, const char *path, int flags, mode_t mode)
{ SC(SYS_openat, dirfd, path, flags, mode); }
/* A scoped or cached walk's EAGAIN is the host kernel's answer to a mount
 * or rename anywhere on the machine meanwhile (openat2(2): the caller may
 * retry); see backend_host.c's h_openat2.  What the FUSE client refuses to
 * answer from its cache (an expired name, a stale epoch) stays EAGAIN. */
static int f_openat2(void *c, int dirfd, const char *path, const struct open_how *how, size_t size)
{
	long r;
	int tries = 0;
	do
		r = syscall(SYS_openat2, dirfd, path, how, size);
	while (r < 0 && errno == EAGAIN && how && size >= sizeof(*how) &&
	       (how->resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT | RESOLVE_CACHED)) && ++tries < 100);
	return r < 0 ? -errno : r;
}
static int f_close(void *c, int fd)
{ SC(SYS_close, fd); }
static int f_close_range(void *c, unsigned first, unsigned last, unsigned flags)
{
	long r = 0;

	if (first > last || first > PROC_FD || last < PROC_FD)
		SC(SYS_close_range, first, last, flags);
	/* around the parked /proc fd */
	if (first < PROC_FD)
		r = syscall(SYS_close_range, first, PROC_FD - 1, flags);
	if (r == 0 && last > PROC_FD)
		r = syscall(SYS_close_range, PROC_FD + 1, last, flags);
	return r < 0 ? -errno : 0;
}
static int f_fd_reopen(void *c, int fd, int flags)
{
	char p[48];

	if (fd < 0 || fd == PROC_FD || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	if (fcntl(PROC_FD, F_GETFD) < 0)
		return -ENOSYS;
	snprintf(p, sizeof(p), "self/fd/%d", fd);
	SC(SYS_openat, PROC_FD, p, flags & ~(O_CREAT | O_EXCL), 0);
}
static ssize_t f_read(void *c, int fd, void *buf, size_t n) { SC(SYS_read, fd, buf, n); }
static ssize_t f_write(void *c, int fd, const void *buf, size_t n) { SC(SYS_write, fd, buf, n); }
static ssize_t f_pread(void *c, int fd, void *buf, size_t n, off_t off) { SC(SYS_pread64, fd, buf, n, off); }
static ssize_t f_pwrite(void *c, int fd, const void *buf, size_t n, off_t off) { SC(SYS_pwrite64, fd, buf, n, off); }
static ssize_t f_readv(void *c, int fd, const struct iovec *iov, int n) { SC(SYS_readv, fd, iov, n); }
static ssize_t f_writev(void *c, int fd, const struct iovec *iov, int n) { SC(SYS_writev, fd, iov, n); }
static off_t f_lseek(void *c, int fd, off_t off, int whence) { SC(SYS_lseek, fd, off, whence); }
static int f_ftruncate(void *c, int fd, off_t len) { SC(SYS_ftruncate, fd, len); }
static int f_truncate(void *c, const char *path, off_t len) { SC(SYS_truncate, path, len); }
static int f_fsync(void *c, int fd) { SC(SYS_fsync, fd); }
static int f_fdatasync(void *c, int fd) { SC(SYS_fdatasync, fd); }
static int f_dup(void *c, int fd) { SC(SYS_dup, fd); }
static int f_dup2(void *c, int a, int b) { SC(SYS_dup2, a, b); }
static int f_dup3(void *c, int a, int b, int flags) { SC(SYS_dup3, a, b, flags); }
static int f_fcntl(void *c, int fd, int cmd, unsigned long arg) { SC(SYS_fcntl, fd, cmd, arg); }
static int f_mkdirat(void *c, int d, const char *p, mode_t m) { SC(SYS_mkdirat, d, p, m); }
static int f_mknodat(void *c, int d, const char *p, mode_t m, dev_t dev) { SC(SYS_mknodat, d, p, m, (unsigned)dev); }
static int f_unlinkat(void *c, int d, const char *p, int flags) { SC(SYS_unlinkat, d, p, flags); }
static int f_renameat2(void *c, int od, const char *op, int nd, const char *np, unsigned flags)
{ SC(SYS_renameat2, od, op, nd, np, flags); }
static int f_linkat(void *c, int od, const char *op, int nd, const char *np, int flags)
{ SC(SYS_linkat, od, op, nd, np, flags); }
static int f_symlinkat(void *c, const char *t, int d, const char *p) { SC(SYS_symlinkat, t, d, p); }
static ssize_t f_readlinkat(void *c, int d, const char *p, char *buf, size_t n) { SC(SYS_readlinkat, d, p, buf, n); }
static ssize_t f_getdents64(void *c, int fd, void *buf, size_t n) { SC(SYS_getdents64, fd, buf, n); }
static int f_fstat(void *c, int fd, struct stat *st) { SC(SYS_fstat, fd, st); }
static int f_fstatat(void *c, int d, const char *p, struct stat *st, int flags) { SC(SYS_newfstatat, d, p, st, flags); }
static int f_statx(void *c, int d, const char *p, int flags, unsigned mask, struct statx *stx)
{ SC(SYS_statx, d, p, flags, mask, stx); }
static int f_fchmod(void *c, int fd, mode_t m) { SC(SYS_fchmod, fd, m); }
static int f_fchmodat(void *c, int d, const char *p, mode_t m, int flags) { SC(SYS_fchmodat2, d, p, m, flags); }
static int f_fchown(void *c, int fd, uid_t u, gid_t g) { SC(SYS_fchown, fd, u, g); }
static int f_fchownat(void *c, int d, const char *p, uid_t u, gid_t g, int flags) { SC(SYS_fchownat, d, p, u, g, flags); }
static int f_utimensat(void *c, int d, const char *p, const struct timespec t[2], int flags)
{ SC(SYS_utimensat, d, p, t, flags); }
static int f_faccessat(void *c, int d, const char *p, int mode, int flags) { SC(SYS_faccessat2, d, p, mode, flags); }
static mode_t f_umask(void *c, mode_t m) { return (mode_t)syscall(SYS_umask, m); }
static int f_fstatfs(void *c, int fd, struct statfs *b) { SC(SYS_fstatfs, fd, b); }
static int f_statfs(void *c, const char *p, struct statfs *b) { SC(SYS_statfs, p, b); }
static int f_chdir(void *c, const char *p) { SC(SYS_chdir, p); }
static int f_fchdir(void *c, int fd) { SC(SYS_fchdir, fd); }
static int f_getcwd(void *c, char *buf, size_t n) { SC(SYS_getcwd, buf, n); }
static int f_chroot(void *c, const char *p) { SC(SYS_chroot, p); }

/* Real, effective and fs ids; the saved uid stays 0 to come back. */
static int f_setcred(void *c, uid_t uid, gid_t gid)
{
	if (syscall(SYS_setresuid, 0, 0, 0) < 0 || syscall(SYS_setresgid, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_setresgid, gid, gid, 0) < 0 || syscall(SYS_setresuid, uid, uid, 0) < 0)
		return -errno;
	fctx.uid = uid;
	fctx.gid = gid;
	return 0;
}
static int f_setgroups(void *c, size_t n, const gid_t *groups)
{
	long r;
	int r2;

	if (syscall(SYS_setresuid, 0, 0, 0) < 0)
		return -errno;
	r = syscall(SYS_setgroups, n, groups);
	r = r < 0 ? -errno : 0;
	r2 = f_setcred(c, fctx.uid, fctx.gid);
	return r ? (int)r : r2;
}
static int f_set_nofile(void *c, unsigned long limit)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = limit;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}
static int f_mount(void *c, const char *s, const char *t, const char *type, unsigned long fl, const void *d)
{ return -ENOSYS; }
static int f_umount2(void *c, const char *t, int flags)
{ return -ENOSYS; }
static int f_pivot_root(void *c, const char *n, const char *o)
{ return -ENOSYS; }

static int f_setxattr(void *c, const char *path, const char *name, const void *value, size_t size, int flags)
{ SC(SYS_setxattr, path, name, value, size, flags); }
static int f_lsetxattr(void *c, const char *path, const char *name, const void *value, size_t size, int flags)
{ SC(SYS_lsetxattr, path, name, value, size, flags); }
static int f_fsetxattr(void *c, int fd, const char *name, const void *value, size_t size, int flags)
{ SC(SYS_fsetxattr, fd, name, value, size, flags); }
static ssize_t f_getxattr(void *c, const char *path, const char *name, void *value, size_t size)
{ SC(SYS_getxattr, path, name, value, size); }
static ssize_t f_lgetxattr(void *c, const char *path, const char *name, void *value, size_t size)
{ SC(SYS_lgetxattr, path, name, value, size); }
static ssize_t f_fgetxattr(void *c, int fd, const char *name, void *value, size_t size)
{ SC(SYS_fgetxattr, fd, name, value, size); }
static ssize_t f_listxattr(void *c, const char *path, char *list, size_t size)
{ SC(SYS_listxattr, path, list, size); }
static ssize_t f_llistxattr(void *c, const char *path, char *list, size_t size)
{ SC(SYS_llistxattr, path, list, size); }
static ssize_t f_flistxattr(void *c, int fd, char *list, size_t size)
{ SC(SYS_flistxattr, fd, list, size); }
static int f_removexattr(void *c, const char *path, const char *name)
{ SC(SYS_removexattr, path, name); }
static int f_lremovexattr(void *c, const char *path, const char *name)
{ SC(SYS_lremovexattr, path, name); }
static int f_fremovexattr(void *c, int fd, const char *name)
{ SC(SYS_fremovexattr, fd, name); }
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif
static int f_setxattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name, const void *args,
			size_t usize)
{ SC(SYS_setxattrat, dfd, path, at_flags, name, args, usize); }
static ssize_t f_getxattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name, void *args,
			    size_t usize)
{ SC(SYS_getxattrat, dfd, path, at_flags, name, args, usize); }
static ssize_t f_listxattrat(void *c, int dfd, const char *path, unsigned at_flags, char *list, size_t size)
{ SC(SYS_listxattrat, dfd, path, at_flags, list, size); }
static int f_removexattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name)
{ SC(SYS_removexattrat, dfd, path, at_flags, name); }
/* the fd forms: the *xattrat calls on /proc/self/fd/N (the parked /proc) */
static int f_proc_fd(int fd, char *p, size_t n)
{
	if (fd < 0 || fd == PROC_FD || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	if (fcntl(PROC_FD, F_GETFD) < 0)
		return -ENOSYS;
	snprintf(p, n, "self/fd/%d", fd);
	return 0;
}
static int f_fd_setxattr(void *c, int fd, const char *name, const void *value, size_t size, int flags)
{
	char p[48];
	struct { uint64_t v; uint32_t s, f; } a = { (uint64_t)(uintptr_t)value, (uint32_t)size, (uint32_t)flags };
	int e = f_proc_fd(fd, p, sizeof(p));

	if (e)
		return e;
	SC(SYS_setxattrat, PROC_FD, p, 0, name, &a, sizeof(a));
}
static ssize_t f_fd_getxattr(void *c, int fd, const char *name, void *value, size_t size)
{
	char p[48];
	struct { uint64_t v; uint32_t s, f; } a = { (uint64_t)(uintptr_t)value, (uint32_t)size, 0 };
	int e = f_proc_fd(fd, p, sizeof(p));

	if (e)
		return e;
	SC(SYS_getxattrat, PROC_FD, p, 0, name, &a, sizeof(a));
}
static ssize_t f_fd_listxattr(void *c, int fd, char *list, size_t size)
{
	char p[48];
	int e = f_proc_fd(fd, p, sizeof(p));

	if (e)
		return e;
	SC(SYS_listxattrat, PROC_FD, p, 0, list, size);
}
static int f_fd_removexattr(void *c, int fd, const char *name)
{
	char p[48];
	int e = f_proc_fd(fd, p, sizeof(p));

	if (e)
		return e;
	SC(SYS_removexattrat, PROC_FD, p, 0, name);
}

/* Host pipes and inotify on the mount: the xattr, ACL and lock scenarios
 * use pipes as the special files they are, and watch the mount's inodes
 * (the host kernel's fsnotify reports what goes through the mount). */
static int f_pipe2(void *c, int fds[2], int flags) { SC(SYS_pipe2, fds, flags); }
static int f_ioctl(void *c, int fd, unsigned long req, void *arg) { SC(SYS_ioctl, fd, req, arg); }
static int f_poll(void *c, struct pollfd *fds, unsigned long nfds, int timeout_ms)
{ SC(SYS_poll, fds, nfds, timeout_ms); }
static int f_inotify_init1(void *c, int flags) { SC(SYS_inotify_init1, flags); }
static int f_inotify_add_watch(void *c, int fd, const char *path, uint32_t mask)
{ SC(SYS_inotify_add_watch, fd, path, mask); }
static int f_inotify_rm_watch(void *c, int fd, int wd) { SC(SYS_inotify_rm_watch, fd, wd); }

/* One process only (no proc_clone: NEEDS_PROCS scenarios are skipped);
 * the lock scenarios name proc 0 to read its pid. */
static int f_proc_use(void *c, int proc) { return proc == 0 ? 0 : -ENOSYS; }

static int f_flock(void *c, int fd, int op) { SC(SYS_flock, fd, op); }
static int f_getpid(void *c) { SC(SYS_getpid); }

static int f_fallocate(void *c, int fd, int mode, off_t offset, off_t len) { SC(SYS_fallocate, fd, mode, offset, len); }

static ssize_t f_copy_file_range(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
				 unsigned flags)
{ SC(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, flags); }
static ssize_t f_sendfile(void *c, int out_fd, int in_fd, off_t *offset, size_t count)
{ SC(SYS_sendfile, out_fd, in_fd, offset, count); }
static ssize_t f_splice(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned flags)
{ SC(SYS_splice, fd_in, off_in, fd_out, off_out, len, flags); }
static ssize_t f_tee(void *c, int fd_in, int fd_out, size_t len, unsigned flags)
{ SC(SYS_tee, fd_in, fd_out, len, flags); }

/* Real epoll on the test's fds.  The epoll scenarios are not in this
 * runner (they watch pipes and inotify fds, which the mount does not give;
 * a file on the mount, unlike one on tmpfs, can be polled: FUSE has poll). */
static int f_epoll_create1(void *c, int flags) { SC(SYS_epoll_create1, flags); }
static int f_epoll_ctl(void *c, int epfd, int op, int fd, struct epoll_event *ev)
{ SC(SYS_epoll_ctl, epfd, op, fd, ev); }
static int f_epoll_wait(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms)
{ SC(SYS_epoll_wait, epfd, evs, maxevents, timeout_ms); }
static int f_epoll_pwait(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms,
			 const sigset_t *mask)
{ SC(SYS_epoll_pwait, epfd, evs, maxevents, timeout_ms, mask, 8); }

static int f_setresuid(void *c, uid_t r, uid_t e, uid_t s) { SC(SYS_setresuid, r, e, s); }
static int f_setresgid(void *c, gid_t r, gid_t e, gid_t s) { SC(SYS_setresgid, r, e, s); }
static int f_name_to_handle_at(void *c, int dfd, const char *path, struct file_handle *h, int *mid, int flags)
{ SC(SYS_name_to_handle_at, dfd, path, h, mid, flags); }
static int f_open_by_handle_at(void *c, int mfd, struct file_handle *h, int flags) { SC(SYS_open_by_handle_at, mfd, h, flags); }
static ssize_t f_preadv(void *c, int fd, const struct iovec *iov, int n, off_t off) { SC(SYS_preadv, fd, iov, n, (long)off, 0L); }
static ssize_t f_pwritev(void *c, int fd, const struct iovec *iov, int n, off_t off) { SC(SYS_pwritev, fd, iov, n, (long)off, 0L); }
static ssize_t f_preadv2(void *c, int fd, const struct iovec *iov, int n, off_t off, int flags)
{ SC(SYS_preadv2, fd, iov, n, (long)off, 0L, flags); }
static ssize_t f_pwritev2(void *c, int fd, const struct iovec *iov, int n, off_t off, int flags)
{ SC(SYS_pwritev2, fd, iov, n, (long)off, 0L, flags); }
static int f_fadvise(void *c, int fd, off_t off, off_t len, int advice) { SC(SYS_fadvise64, fd, (long)off, (long)len, advice); }
static ssize_t f_readahead(void *c, int fd, off_t off, size_t count) { SC(SYS_readahead, fd, (long)off, (long)count); }
static int f_syncfs(void *c, int fd) { SC(SYS_syncfs, fd); }
static int f_sync_file_range(void *c, int fd, off_t off, off_t nbytes, unsigned flags)
{ SC(SYS_sync_file_range, fd, (long)off, (long)nbytes, (long)flags); }
/* The host's memfd_create: a memfd is the kernel's, on its internal tmpfs,
 * whatever the mount; its seals are the kernel's too (memfd.c's scenarios
 * then compare the host with itself, but for the names they make on the
 * mount). */
static int f_memfd_create(void *c, const char *name, unsigned flags) { SC(SYS_memfd_create, name, flags); }

const struct backend uvfs_backend = {
	.name = "uvfs-fuse",
	.prepare = f_prepare, .setup = f_setup, .teardown = f_teardown, .cleanup = f_cleanup,
	.openat = f_openat, .openat2 = f_openat2, .close = f_close, .close_range = f_close_range,
	.fd_reopen = f_fd_reopen, .read = f_read, .write = f_write, .pread = f_pread,
	.pwrite = f_pwrite, .readv = f_readv, .writev = f_writev, .lseek = f_lseek,
	.ftruncate = f_ftruncate, .truncate = f_truncate, .fsync = f_fsync,
	.fdatasync = f_fdatasync, .dup = f_dup, .dup2 = f_dup2, .dup3 = f_dup3, .fcntl = f_fcntl,
	.mkdirat = f_mkdirat, .mknodat = f_mknodat, .unlinkat = f_unlinkat,
	.renameat2 = f_renameat2, .linkat = f_linkat, .symlinkat = f_symlinkat,
	.readlinkat = f_readlinkat, .getdents64 = f_getdents64,
	.fstat = f_fstat, .fstatat = f_fstatat, .statx = f_statx, .fchmod = f_fchmod,
	.fchmodat = f_fchmodat, .fchown = f_fchown, .fchownat = f_fchownat,
	.utimensat = f_utimensat, .faccessat = f_faccessat, .umask = f_umask,
	.fstatfs = f_fstatfs, .statfs = f_statfs,
	.chdir = f_chdir, .fchdir = f_fchdir, .getcwd = f_getcwd, .chroot = f_chroot,
	.setcred = f_setcred, .setgroups = f_setgroups, .set_nofile = f_set_nofile,
	.mount = f_mount, .umount2 = f_umount2, .pivot_root = f_pivot_root,

	.setxattr = f_setxattr, .lsetxattr = f_lsetxattr, .fsetxattr = f_fsetxattr,
	.getxattr = f_getxattr, .lgetxattr = f_lgetxattr, .fgetxattr = f_fgetxattr,
	.listxattr = f_listxattr, .llistxattr = f_llistxattr, .flistxattr = f_flistxattr,
	.removexattr = f_removexattr, .lremovexattr = f_lremovexattr, .fremovexattr = f_fremovexattr,
	.setxattrat = f_setxattrat, .getxattrat = f_getxattrat, .listxattrat = f_listxattrat,
	.removexattrat = f_removexattrat, .fd_setxattr = f_fd_setxattr, .fd_getxattr = f_fd_getxattr,
	.fd_listxattr = f_fd_listxattr, .fd_removexattr = f_fd_removexattr,

	.proc_use = f_proc_use,
	.pipe2 = f_pipe2, .ioctl = f_ioctl, .poll = f_poll,
	.inotify_init1 = f_inotify_init1, .inotify_add_watch = f_inotify_add_watch,
	.inotify_rm_watch = f_inotify_rm_watch,

	.flock = f_flock, .getpid = f_getpid,

	.fallocate = f_fallocate,

	.copy_file_range = f_copy_file_range, .sendfile = f_sendfile, .splice = f_splice, .tee = f_tee,

	.epoll_create1 = f_epoll_create1, .epoll_ctl = f_epoll_ctl, .epoll_wait = f_epoll_wait,
	.epoll_pwait = f_epoll_pwait,

	.setresuid = f_setresuid, .setresgid = f_setresgid,
	.name_to_handle_at = f_name_to_handle_at, .open_by_handle_at = f_open_by_handle_at,
	.preadv = f_preadv, .pwritev = f_pwritev, .preadv2 = f_preadv2, .pwritev2 = f_pwritev2,
	.fadvise = f_fadvise, .readahead = f_readahead, .syncfs = f_syncfs, .sync_file_range = f_sync_file_range,
	.memfd_create = f_memfd_create,

};
