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
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/stat.h>
#include "backend.h"
#include "overlay_root.h"

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

#define R(expr) do { long _r = (long)(expr); return _r < 0 ? -errno : _r; } while (0)
#define H(expr) return (expr)

/*
 * Processes.  Proc 0 is the scenario's own process.  proc_clone() makes
 * another one with clone(CLONE_VM | [CLONE_FILES] | [CLONE_FS]): it shares
 * our memory, so it can run any system call for us with our pointers, but it
 * has its own fd table (unless CLONE_FILES), root/cwd/umask (unless CLONE_FS),
 * credentials and limits, like a process made by fork(2).  Every operation
 * goes through hsys(), which makes the system call itself for proc 0 and
 * otherwise posts it to the current proc's mailbox and waits for the answer.
 */
#define MAX_PROCS 8
struct hproc {
	pid_t pid;
	void *stack;
	uid_t uid;
	gid_t gid;
	int state;	/* futex: 0 idle, 1 request posted, 2 answered, 3 quit */
	long nr, a[6], ret;
};
static struct hproc host_procs[MAX_PROCS];
static int cur_proc;
static int host_ctx;

/* A system call that returns -errno and never touches errno: the procs share
 * our memory, errno included. */
static long raw6(long n, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long r = syscall(n, a, b, c, d, e, f);
	return r < 0 ? -errno : r;
#endif
}

static void futex_wait(int *w, int val)
{
	raw6(SYS_futex, (long)w, FUTEX_WAIT, val, 0, 0, 0);
}

static void futex_wake(int *w)
{
	raw6(SYS_futex, (long)w, FUTEX_WAKE, 1, 0, 0, 0);
}

static long hsys6(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (cur_proc == 0)
		return raw6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	struct hproc *p = &host_procs[cur_proc];
	p->nr = nr;
	memcpy(p->a, a, sizeof a);
	__atomic_store_n(&p->state, 1, __ATOMIC_RELEASE);
	futex_wake(&p->state);
	int s;
	while ((s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE)) == 1)
		futex_wait(&p->state, 1);
	__atomic_store_n(&p->state, 0, __ATOMIC_RELAXED);
	return p->ret;
}
/* every argument as a long, padded to six */
#define hsys(...) hsys6(__VA_ARGS__, 0L, 0L, 0L, 0L, 0L, 0L)

static int proc_server(void *arg)
{
	struct hproc *p = arg;
	raw6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
	for (;;) {
		int s;
		while ((s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE)) == 0)
			futex_wait(&p->state, 0);
		if (s == 3)
			raw6(SYS_exit, 0, 0, 0, 0, 0, 0);
		if (s != 1)
			continue;
		p->ret = raw6(p->nr, p->a[0], p->a[1], p->a[2], p->a[3], p->a[4], p->a[5]);
		__atomic_store_n(&p->state, 2, __ATOMIC_RELEASE);
		futex_wake(&p->state);
	}
	return 0;
}

static int h_proc_clone(void *c, unsigned flags)
{
	int i;
	for (i = 1; i < MAX_PROCS && host_procs[i].pid; i++)
		;
	if (i == MAX_PROCS)
		return -EAGAIN;
	struct hproc *p = &host_procs[i];
	size_t sz = 256 * 1024;
	p->stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p->stack == MAP_FAILED)
		return -ENOMEM;
	p->state = 0;
	p->uid = host_procs[cur_proc].uid;
	p->gid = host_procs[cur_proc].gid;
	int cf = CLONE_VM | SIGCHLD;
	if (flags & 0x1)
		cf |= CLONE_FILES;
	if (flags & 0x2)
		cf |= CLONE_FS;
	/* The new proc is a copy of the current one, whichever that is: make
	 * the current one clone it. */
	int saved = cur_proc;
	long pid;
	if (saved == 0) {
		pid = clone(proc_server, (char *)p->stack + sz, cf, p);
		if (pid < 0)
			pid = -errno;
	} else {
		/* only proc 0 can start a server (the stack and entry point are ours):
		 * a clone of another proc is not supported */
		pid = -ENOSYS;
	}
	if (pid < 0) {
		munmap(p->stack, sz);
		return (int)pid;
	}
	p->pid = (pid_t)pid;
	return i;
}

static int h_proc_use(void *c, int i)
{
	if (i < 0 || i >= MAX_PROCS || (i && !host_procs[i].pid))
		return -EINVAL;
	cur_proc = i;
	return 0;
}

static int h_proc_destroy(void *c, int i)
{
	if (i <= 0 || i >= MAX_PROCS || !host_procs[i].pid)
		return -EINVAL;
	struct hproc *p = &host_procs[i];
	__atomic_store_n(&p->state, 3, __ATOMIC_RELEASE);
	futex_wake(&p->state);
	int st;
	waitpid(p->pid, &st, __WALL);
	munmap(p->stack, 256 * 1024);
	p->pid = 0;
	if (cur_proc == i)
		cur_proc = 0;
	return 0;
}

/* The scratch directory of the run in progress, removed if the parent is
 * interrupted; stale ones (a parent killed outright) are swept after an hour.
 * Only empty directories are ever removed (rmdir). */
static char live_scratch[256];

static void on_signal(int sig)
{
	if (live_scratch[0])
		rmdir(live_scratch);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void sweep_stale(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	if (!d)
		return;
	time_t now = time(NULL);
	while ((e = readdir(d))) {
		char p[300];
		struct stat st;
		if (strncmp(e->d_name, "uvfs-conf.", 10))
			continue;
		snprintf(p, sizeof p, "/dev/shm/%s", e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) && now - st.st_mtime > 3600)
			rmdir(p);
	}
	closedir(d);
}

static int h_prepare(char *scratch, size_t len)
{
	static int once;
	if (!once) {
		once = 1;
		sweep_stale();
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
	}
	snprintf(scratch, len, "/dev/shm/uvfs-conf.XXXXXX");
	if (!mkdtemp(scratch))
		return -errno;
	snprintf(live_scratch, sizeof live_scratch, "%s", scratch);
	return 0;
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
	live_scratch[0] = 0;
}

/* UVFS_CONF_FS=overlay (overlay_root.h): the same layers as the uvfs
 * backend makes, a real overlay of them, and the scenario chrooted in it */
static int h_overlay_root(void)
{
	for (size_t i = 0; i < sizeof(ovl_root_layers) / sizeof(ovl_root_layers[0]); i++) {
		const struct ovl_root_entry *e = &ovl_root_layers[i];
		if (e->type == 'd') {
			if (mkdir(e->path, 0755) < 0)
				return -errno;
		} else if (e->type == 'l') {
			if (symlink(e->data, e->path) < 0)
				return -errno;
		} else {
			int fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0)
				return -errno;
			ssize_t w = write(fd, e->data, strlen(e->data));
			close(fd);
			if (w != (ssize_t)strlen(e->data))
				return -EIO;
		}
	}
	if (chmod(OVL_ROOT_UPPER, 01777) < 0 ||
	    mount("overlay", OVL_ROOT_MOUNT, "overlay", 0, OVL_ROOT_OPTS) < 0 ||
	    chroot(OVL_ROOT_MOUNT) < 0 || chdir("/") < 0)
		return -errno;
	return 0;
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
	const char *fs = getenv("UVFS_CONF_FS");
	if (fs && !strcmp(fs, "overlay")) {
		int err = h_overlay_root();
		if (err)
			return err;
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
	memset(host_procs, 0, sizeof host_procs);
	cur_proc = 0;
	*ctx = &host_ctx;
	return 0;
}

static void h_teardown(void *ctx)
{
	for (int i = 1; i < MAX_PROCS; i++)
		if (host_procs[i].pid)
			h_proc_destroy(ctx, i);
}

static int h_openat(void *c, int dirfd, const char *path, int flags, mode_t mode)
{ H(hsys(SYS_openat, dirfd, path, flags, mode)); }
/* openat2(2): with RESOLVE_BENEATH or RESOLVE_IN_ROOT, a ".." in the walk
 * fails with EAGAIN when the host's mount or rename sequence moved meanwhile,
 * anywhere on the machine (another test's mount), and "the caller may choose
 * to retry".  RESOLVE_CACHED fails the same way: its walk must end in RCU
 * mode, and legitimising the path fails when the mount sequence moved (any
 * mount or umount on the machine, a mount put by a workqueue after an
 * earlier scenario's namespace went).  Under a loop of mounts elsewhere,
 * resolve_cached's host side failed 2 times in about 200 runs.  That is the
 * host's answer to a race the scenario did not make: ask again, as a careful
 * caller does, so the oracle reports the scenario's own result.  An EAGAIN
 * the scenario makes (O_CREAT, O_TRUNC, a name not cached) stays. */
static int h_openat2(void *c, int dirfd, const char *path, const struct open_how *how, size_t size)
{
	long r;
	int tries = 0;
	do
		r = hsys(SYS_openat2, dirfd, path, how, size);
	while (r == -EAGAIN && how && size >= sizeof(*how) &&
	       (how->resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT | RESOLVE_CACHED)) && ++tries < 100);
	H(r);
}
static int h_close(void *c, int fd)
{ H(hsys(SYS_close, fd)); }
static int h_close_range(void *c, unsigned first, unsigned last, unsigned flags)
{
	/* Keep the parked /proc fd out of the scenario's reach. */
	if (first <= last && first <= HOST_PROC_FD && last >= HOST_PROC_FD) {
		long r = 0;
		if (first < HOST_PROC_FD)
			r = hsys(SYS_close_range, first, HOST_PROC_FD - 1, flags);
		if (r == 0 && last > HOST_PROC_FD)
			r = hsys(SYS_close_range, HOST_PROC_FD + 1, last, flags);
		return r;
	}
	H(hsys(SYS_close_range, first, last, flags));
}
static int h_fd_reopen(void *c, int fd, int flags)
{
	char p[64];
	if (fd < 0 || fd == HOST_PROC_FD || hsys(SYS_fcntl, fd, F_GETFD) < 0)
		return -EBADF;
	snprintf(p, sizeof p, "self/fd/%d", fd);
	H(hsys(SYS_openat, HOST_PROC_FD, p, flags & ~(O_CREAT | O_EXCL), 0));
}
/* the fd forms of the xattr calls: the *xattrat calls (below) on
 * /proc/self/fd/N, relative to the parked /proc fd, following the link */
static int h_proc_fd(int fd, char *p, size_t n)
{
	if (fd < 0 || fd == HOST_PROC_FD || hsys(SYS_fcntl, fd, F_GETFD) < 0)
		return -EBADF;
	snprintf(p, n, "self/fd/%d", fd);
	return 0;
}
static ssize_t h_read(void *c, int fd, void *buf, size_t count)
{ H(hsys(SYS_read, fd, buf, count)); }
static ssize_t h_write(void *c, int fd, const void *buf, size_t count)
{ H(hsys(SYS_write, fd, buf, count)); }
static ssize_t h_pread(void *c, int fd, void *buf, size_t count, off_t off)
{ H(hsys(SYS_pread64, fd, buf, count, off)); }
static ssize_t h_pwrite(void *c, int fd, const void *buf, size_t count, off_t off)
{ H(hsys(SYS_pwrite64, fd, buf, count, off)); }
static ssize_t h_readv(void *c, int fd, const struct iovec *iov, int iovcnt)
{ H(hsys(SYS_readv, fd, iov, iovcnt)); }
static ssize_t h_writev(void *c, int fd, const struct iovec *iov, int iovcnt)
{ H(hsys(SYS_writev, fd, iov, iovcnt)); }
static off_t h_lseek(void *c, int fd, off_t off, int whence)
{ H(hsys(SYS_lseek, fd, off, whence)); }
static int h_ftruncate(void *c, int fd, off_t len)
{ H(hsys(SYS_ftruncate, fd, len)); }
static int h_truncate(void *c, const char *path, off_t len)
{ H(hsys(SYS_truncate, path, len)); }
static int h_fsync(void *c, int fd)
{ H(hsys(SYS_fsync, fd)); }
static int h_fdatasync(void *c, int fd)
{ H(hsys(SYS_fdatasync, fd)); }
static int h_dup(void *c, int fd)
{ H(hsys(SYS_dup, fd)); }
static int h_dup2(void *c, int oldfd, int newfd)
{ H(hsys(SYS_dup2, oldfd, newfd)); }
static int h_dup3(void *c, int oldfd, int newfd, int flags)
{ H(hsys(SYS_dup3, oldfd, newfd, flags)); }
static int h_fcntl(void *c, int fd, int cmd, unsigned long arg)
{ H(hsys(SYS_fcntl, fd, cmd, arg)); }

static int h_mkdirat(void *c, int dirfd, const char *path, mode_t mode)
{ H(hsys(SYS_mkdirat, dirfd, path, mode)); }
static int h_mknodat(void *c, int dirfd, const char *path, mode_t mode, dev_t dev)
{ H(hsys(SYS_mknodat, dirfd, path, mode, (unsigned)dev)); }
static int h_unlinkat(void *c, int dirfd, const char *path, int flags)
{ H(hsys(SYS_unlinkat, dirfd, path, flags)); }
static int h_renameat2(void *c, int od, const char *op, int nd, const char *np, unsigned flags)
{ H(hsys(SYS_renameat2, od, op, nd, np, flags)); }
static int h_linkat(void *c, int od, const char *op, int nd, const char *np, int flags)
{ H(hsys(SYS_linkat, od, op, nd, np, flags)); }
static int h_symlinkat(void *c, const char *target, int nd, const char *lp)
{ H(hsys(SYS_symlinkat, target, nd, lp)); }
static ssize_t h_readlinkat(void *c, int dirfd, const char *path, char *buf, size_t bufsiz)
{ H(hsys(SYS_readlinkat, dirfd, path, buf, bufsiz)); }
static ssize_t h_getdents64(void *c, int fd, void *buf, size_t count)
{ H(hsys(SYS_getdents64, fd, buf, count)); }

static int h_fstat(void *c, int fd, struct stat *st)
{ H(hsys(SYS_fstat, fd, st)); }
static int h_fstatat(void *c, int dirfd, const char *path, struct stat *st, int flags)
{ H(hsys(SYS_newfstatat, dirfd, path, st, flags)); }
static int h_statx(void *c, int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{ H(hsys(SYS_statx, dirfd, path, flags, mask, stx)); }
static int h_fchmod(void *c, int fd, mode_t mode)
{ H(hsys(SYS_fchmod, fd, mode)); }
static int h_fchmodat(void *c, int dirfd, const char *path, mode_t mode, int flags)
{
	/* fchmodat2 (Linux 6.6) only when there are flags, so that plain chmod
	 * works on older kernels; there a flag gives ENOSYS and is skipped. */
	if (!flags)
		H(hsys(SYS_fchmodat, dirfd, path, mode));
	H(hsys(SYS_fchmodat2, dirfd, path, mode, flags));
}
static int h_fchown(void *c, int fd, uid_t uid, gid_t gid)
{ H(hsys(SYS_fchown, fd, uid, gid)); }
static int h_fchownat(void *c, int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{ H(hsys(SYS_fchownat, dirfd, path, uid, gid, flags)); }
static int h_utimensat(void *c, int dirfd, const char *path, const struct timespec t[2], int flags)
{ H(hsys(SYS_utimensat, dirfd, path, t, flags)); }
static int h_faccessat(void *c, int dirfd, const char *path, int mode, int flags)
{ H(hsys(SYS_faccessat2, dirfd, path, mode, flags)); }
static mode_t h_umask(void *c, mode_t mask)
{ return (mode_t)hsys(SYS_umask, mask); }
static int h_fstatfs(void *c, int fd, struct statfs *buf)
{ H(hsys(SYS_fstatfs, fd, buf)); }
static int h_statfs(void *c, const char *path, struct statfs *buf)
{ H(hsys(SYS_statfs, path, buf)); }

static int h_chdir(void *c, const char *path)
{ H(hsys(SYS_chdir, path)); }
static int h_fchdir(void *c, int fd)
{ H(hsys(SYS_fchdir, fd)); }
static int h_getcwd(void *c, char *buf, size_t size)
{ H(hsys(SYS_getcwd, buf, size)); }
static int h_chroot(void *c, const char *path)
{ H(hsys(SYS_chroot, path)); }

/*
 * A process with uid/gid as its real, effective and fs ids: a non-zero euid
 * clears the effective capabilities (all of them: file capabilities, mount,
 * chroot, mknod), which is what uvfs_proc_setcred documents for uid != 0.
 * The saved uid stays 0 so that we can come back to root, as
 * uvfs_proc_setcred keeps the saved ids.  faccessat without AT_EACCESS then
 * checks the same ids as with it; creds.c sets real and effective apart
 * (setresuid, setresgid).
 */
static int to_root(void)
{
	long r = hsys(SYS_setresuid, 0, 0, 0);
	if (r == 0)
		r = hsys(SYS_setresgid, 0, 0, 0);
	return (int)r;
}

static int h_setcred(void *c, uid_t uid, gid_t gid)
{
	int r = to_root();
	if (r)
		return r;
	long e = hsys(SYS_setresgid, gid, gid, 0);
	if (e == 0)
		e = hsys(SYS_setresuid, uid, uid, 0);
	if (e)
		return (int)e;
	host_procs[cur_proc].uid = uid;
	host_procs[cur_proc].gid = gid;
	return 0;
}

static int h_setgroups(void *c, size_t n, const gid_t *groups)
{
	int r = to_root();
	if (r)
		return r;
	long e = hsys(SYS_setgroups, n, groups);
	r = h_setcred(c, host_procs[cur_proc].uid, host_procs[cur_proc].gid);
	return e ? (int)e : r;
}

static int h_set_nofile(void *c, unsigned long limit)
{
	struct rlimit rl;
	long r = hsys(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl);
	if (r)
		return (int)r;
	rl.rlim_cur = limit;
	H(hsys(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL));
}

static int h_mount(void *c, const char *source, const char *target, const char *fstype,
		   unsigned long flags, const void *data)
{ H(hsys(SYS_mount, source, target, fstype, flags, data)); }
static int h_umount2(void *c, const char *target, int flags)
{ H(hsys(SYS_umount2, target, flags)); }
static int h_pivot_root(void *c, const char *new_root, const char *put_old)
{ H(hsys(SYS_pivot_root, new_root, put_old)); }

static int h_pipe2(void *c, int fds[2], int flags)
{ H(hsys(SYS_pipe2, fds, flags)); }
static int h_ioctl(void *c, int fd, unsigned long req, void *arg)
{ H(hsys(SYS_ioctl, fd, req, arg)); }
static int h_poll(void *c, struct pollfd *fds, unsigned long nfds, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	H(hsys(SYS_ppoll, fds, nfds, timeout_ms < 0 ? NULL : &ts, NULL, 8));
}

static int h_inotify_init1(void *c, int flags)
{ H(hsys(SYS_inotify_init1, flags)); }
static int h_inotify_add_watch(void *c, int fd, const char *path, uint32_t mask)
{ H(hsys(SYS_inotify_add_watch, fd, path, mask)); }
static int h_inotify_rm_watch(void *c, int fd, int wd)
{ H(hsys(SYS_inotify_rm_watch, fd, wd)); }

static int h_setxattr(void *c, const char *path, const char *name, const void *value, size_t size, int flags)
{ H(hsys(SYS_setxattr, path, name, value, size, flags)); }
static int h_lsetxattr(void *c, const char *path, const char *name, const void *value, size_t size, int flags)
{ H(hsys(SYS_lsetxattr, path, name, value, size, flags)); }
static int h_fsetxattr(void *c, int fd, const char *name, const void *value, size_t size, int flags)
{ H(hsys(SYS_fsetxattr, fd, name, value, size, flags)); }
static ssize_t h_getxattr(void *c, const char *path, const char *name, void *value, size_t size)
{ H(hsys(SYS_getxattr, path, name, value, size)); }
static ssize_t h_lgetxattr(void *c, const char *path, const char *name, void *value, size_t size)
{ H(hsys(SYS_lgetxattr, path, name, value, size)); }
static ssize_t h_fgetxattr(void *c, int fd, const char *name, void *value, size_t size)
{ H(hsys(SYS_fgetxattr, fd, name, value, size)); }
static ssize_t h_listxattr(void *c, const char *path, char *list, size_t size)
{ H(hsys(SYS_listxattr, path, list, size)); }
static ssize_t h_llistxattr(void *c, const char *path, char *list, size_t size)
{ H(hsys(SYS_llistxattr, path, list, size)); }
static ssize_t h_flistxattr(void *c, int fd, char *list, size_t size)
{ H(hsys(SYS_flistxattr, fd, list, size)); }
static int h_removexattr(void *c, const char *path, const char *name)
{ H(hsys(SYS_removexattr, path, name)); }
static int h_lremovexattr(void *c, const char *path, const char *name)
{ H(hsys(SYS_lremovexattr, path, name)); }
static int h_fremovexattr(void *c, int fd, const char *name)
{ H(hsys(SYS_fremovexattr, fd, name)); }
/* the *xattrat calls (Linux 6.13; x86-64 numbers where libc has none) */
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif
static int h_setxattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name, const void *args,
			size_t usize)
{ H(hsys(SYS_setxattrat, (long)dfd, path, (long)at_flags, name, args, usize)); }
static ssize_t h_getxattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name, void *args,
			    size_t usize)
{ H(hsys(SYS_getxattrat, (long)dfd, path, (long)at_flags, name, args, usize)); }
static int h_fd_setxattr(void *c, int fd, const char *name, const void *value, size_t size, int flags)
{
	char p[48];
	struct { uint64_t v; uint32_t s, f; } a = { (uint64_t)(uintptr_t)value, (uint32_t)size, (uint32_t)flags };
	int e = h_proc_fd(fd, p, sizeof p);
	if (e)
		return e;
	H(hsys(SYS_setxattrat, (long)HOST_PROC_FD, p, 0L, name, &a, sizeof a));
}
static ssize_t h_fd_getxattr(void *c, int fd, const char *name, void *value, size_t size)
{
	char p[48];
	struct { uint64_t v; uint32_t s, f; } a = { (uint64_t)(uintptr_t)value, (uint32_t)size, 0 };
	int e = h_proc_fd(fd, p, sizeof p);
	if (e)
		return e;
	H(hsys(SYS_getxattrat, (long)HOST_PROC_FD, p, 0L, name, &a, sizeof a));
}
static ssize_t h_listxattrat(void *c, int dfd, const char *path, unsigned at_flags, char *list, size_t size)
{ H(hsys(SYS_listxattrat, (long)dfd, path, (long)at_flags, list, size)); }
static int h_removexattrat(void *c, int dfd, const char *path, unsigned at_flags, const char *name)
{ H(hsys(SYS_removexattrat, (long)dfd, path, (long)at_flags, name)); }
static ssize_t h_fd_listxattr(void *c, int fd, char *list, size_t size)
{
	char p[48];
	int e = h_proc_fd(fd, p, sizeof p);
	if (e)
		return e;
	H(hsys(SYS_listxattrat, (long)HOST_PROC_FD, p, 0L, list, size));
}
static int h_fd_removexattr(void *c, int fd, const char *name)
{
	char p[48];
	int e = h_proc_fd(fd, p, sizeof p);
	if (e)
		return e;
	H(hsys(SYS_removexattrat, (long)HOST_PROC_FD, p, 0L, name));
}

static int h_flock(void *c, int fd, int op)
{ H(hsys(SYS_flock, fd, op)); }
static int h_getpid(void *c)
{ H(hsys(SYS_getpid)); }

static int h_fallocate(void *c, int fd, int mode, off_t offset, off_t len)
{ H(hsys(SYS_fallocate, fd, mode, offset, len)); }

static ssize_t h_copy_file_range(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
				 unsigned flags)
{ H(hsys(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, flags)); }
static ssize_t h_sendfile(void *c, int out_fd, int in_fd, off_t *offset, size_t count)
{ H(hsys(SYS_sendfile, out_fd, in_fd, offset, count)); }
static ssize_t h_splice(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned flags)
{ H(hsys(SYS_splice, fd_in, off_in, fd_out, off_out, len, flags)); }
static ssize_t h_tee(void *c, int fd_in, int fd_out, size_t len, unsigned flags)
{ H(hsys(SYS_tee, fd_in, fd_out, len, flags)); }

static int h_epoll_create1(void *c, int flags)
{ H(hsys(SYS_epoll_create1, flags)); }
static int h_epoll_ctl(void *c, int epfd, int op, int fd, struct epoll_event *ev)
{ H(hsys(SYS_epoll_ctl, epfd, op, fd, ev)); }
static int h_epoll_wait(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms)
{ H(hsys(SYS_epoll_wait, epfd, evs, maxevents, timeout_ms)); }
static int h_epoll_pwait(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms,
			 const sigset_t *mask)
{ H(hsys(SYS_epoll_pwait, epfd, evs, maxevents, timeout_ms, mask, 8)); }

/* The raw calls (per thread, unlike glibc's wrappers), in the proc's child. */
static int h_setresuid(void *c, uid_t r, uid_t e, uid_t s)
{ H(hsys(SYS_setresuid, r, e, s)); }
static int h_setresgid(void *c, gid_t r, gid_t e, gid_t s)
{ H(hsys(SYS_setresgid, r, e, s)); }
static int h_name_to_handle_at(void *c, int dfd, const char *path, struct file_handle *h, int *mid, int flags)
{ H(hsys(SYS_name_to_handle_at, dfd, path, h, mid, flags)); }
static int h_open_by_handle_at(void *c, int mfd, struct file_handle *h, int flags)
{ H(hsys(SYS_open_by_handle_at, mfd, h, flags)); }
/* the offset as Linux's pos_l, pos_h pair: on 64 bits pos_l is all of it */
static ssize_t h_preadv(void *c, int fd, const struct iovec *iov, int n, off_t off)
{ H(hsys(SYS_preadv, fd, iov, n, (long)off, 0L)); }
static ssize_t h_pwritev(void *c, int fd, const struct iovec *iov, int n, off_t off)
{ H(hsys(SYS_pwritev, fd, iov, n, (long)off, 0L)); }
static ssize_t h_preadv2(void *c, int fd, const struct iovec *iov, int n, off_t off, int flags)
{ H(hsys(SYS_preadv2, fd, iov, n, (long)off, 0L, flags)); }
static ssize_t h_pwritev2(void *c, int fd, const struct iovec *iov, int n, off_t off, int flags)
{ H(hsys(SYS_pwritev2, fd, iov, n, (long)off, 0L, flags)); }
static int h_fadvise(void *c, int fd, off_t off, off_t len, int advice)
{ H(hsys(SYS_fadvise64, fd, (long)off, (long)len, advice)); }
static ssize_t h_readahead(void *c, int fd, off_t off, size_t count)
{ H(hsys(SYS_readahead, fd, (long)off, (long)count)); }
static int h_syncfs(void *c, int fd)
{ H(hsys(SYS_syncfs, fd)); }
static int h_sync_file_range(void *c, int fd, off_t off, off_t nbytes, unsigned flags)
{ H(hsys(SYS_sync_file_range, fd, (long)off, (long)nbytes, (long)flags)); }
static int h_memfd_create(void *c, const char *name, unsigned flags)
{ H(hsys(SYS_memfd_create, name, (long)flags)); }

const struct backend host_backend = {
	.name = "host",
	.prepare = h_prepare,
	.setup = h_setup,
	.teardown = h_teardown,
	.cleanup = h_cleanup,
	.openat = h_openat, .openat2 = h_openat2, .close = h_close, .close_range = h_close_range,
	.fd_reopen = h_fd_reopen, .fd_setxattr = h_fd_setxattr, .fd_getxattr = h_fd_getxattr,
	.fd_listxattr = h_fd_listxattr, .fd_removexattr = h_fd_removexattr, .read = h_read, .write = h_write, .pread = h_pread,
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
	.mount = h_mount, .umount2 = h_umount2, .pivot_root = h_pivot_root,
	.proc_clone = h_proc_clone, .proc_use = h_proc_use, .proc_destroy = h_proc_destroy,
	.pipe2 = h_pipe2, .ioctl = h_ioctl, .poll = h_poll,
	.inotify_init1 = h_inotify_init1, .inotify_add_watch = h_inotify_add_watch,
	.inotify_rm_watch = h_inotify_rm_watch,

	.setxattr = h_setxattr, .lsetxattr = h_lsetxattr, .fsetxattr = h_fsetxattr,
	.getxattr = h_getxattr, .lgetxattr = h_lgetxattr, .fgetxattr = h_fgetxattr,
	.listxattr = h_listxattr, .llistxattr = h_llistxattr, .flistxattr = h_flistxattr,
	.removexattr = h_removexattr, .lremovexattr = h_lremovexattr, .fremovexattr = h_fremovexattr,
	.setxattrat = h_setxattrat, .getxattrat = h_getxattrat, .listxattrat = h_listxattrat,
	.removexattrat = h_removexattrat,

	.flock = h_flock, .getpid = h_getpid,

	.fallocate = h_fallocate,

	.copy_file_range = h_copy_file_range, .sendfile = h_sendfile, .splice = h_splice, .tee = h_tee,

	.epoll_create1 = h_epoll_create1, .epoll_ctl = h_epoll_ctl, .epoll_wait = h_epoll_wait,
	.epoll_pwait = h_epoll_pwait,

	.setresuid = h_setresuid, .setresgid = h_setresgid,
	.name_to_handle_at = h_name_to_handle_at, .open_by_handle_at = h_open_by_handle_at,
	.preadv = h_preadv, .pwritev = h_pwritev, .preadv2 = h_preadv2, .pwritev2 = h_pwritev2,
	.fadvise = h_fadvise, .readahead = h_readahead, .syncfs = h_syncfs, .sync_file_range = h_sync_file_range,
	.memfd_create = h_memfd_create,

};
