// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_backend.c - the uvfs backend with every operation passed through
 * lockstep_call(): each result is logged (the clean run) or compared with
 * the clean run's (runs with an allocation failing).  A call in which the
 * failing allocation happened and that answered -ENOMEM is made again at
 * once (-ENFILE, for the allocations Linux answers so): if the failed call changed nothing, the second one is the clean
 * run's call, and everything after it must match the clean run exactly.
 */
#include <errno.h>
#include <poll.h>
#include "backend.h"
#include "fault_alloc.h"
#include "lockstep.h"

#define OP(ret, name, params, args)                                               \
	static ret w_##name params                                                \
	{                                                                         \
		bool before = fault_fired();                                      \
		ret r = uvfs_backend.name args;                                   \
		bool here = !before && fault_fired();                             \
		bool failed = here && lockstep_alloc_error(#name, (long long)r);  \
		if (failed)                                                       \
			r = uvfs_backend.name args;                               \
		lockstep_call(#name, (long long)r, here, failed);                 \
		return r;                                                         \
	}

OP(int, openat, (void *c, int d, const char *p, int f, mode_t m), (c, d, p, f, m))
OP(int, openat2, (void *c, int d, const char *p, const struct open_how *h, size_t s), (c, d, p, h, s))
OP(int, close, (void *c, int fd), (c, fd))
OP(int, close_range, (void *c, unsigned a, unsigned b, unsigned f), (c, a, b, f))
OP(int, fd_reopen, (void *c, int fd, int f), (c, fd, f))
OP(ssize_t, read, (void *c, int fd, void *b, size_t n), (c, fd, b, n))
OP(ssize_t, write, (void *c, int fd, const void *b, size_t n), (c, fd, b, n))
OP(ssize_t, pread, (void *c, int fd, void *b, size_t n, off_t o), (c, fd, b, n, o))
OP(ssize_t, pwrite, (void *c, int fd, const void *b, size_t n, off_t o), (c, fd, b, n, o))
OP(ssize_t, readv, (void *c, int fd, const struct iovec *v, int n), (c, fd, v, n))
OP(ssize_t, writev, (void *c, int fd, const struct iovec *v, int n), (c, fd, v, n))
OP(off_t, lseek, (void *c, int fd, off_t o, int w), (c, fd, o, w))
OP(int, ftruncate, (void *c, int fd, off_t l), (c, fd, l))
OP(int, truncate, (void *c, const char *p, off_t l), (c, p, l))
OP(int, fsync, (void *c, int fd), (c, fd))
OP(int, fdatasync, (void *c, int fd), (c, fd))
OP(int, dup, (void *c, int fd), (c, fd))
OP(int, dup2, (void *c, int a, int b), (c, a, b))
OP(int, dup3, (void *c, int a, int b, int f), (c, a, b, f))
OP(int, fcntl, (void *c, int fd, int cmd, unsigned long a), (c, fd, cmd, a))
OP(int, mkdirat, (void *c, int d, const char *p, mode_t m), (c, d, p, m))
OP(int, mknodat, (void *c, int d, const char *p, mode_t m, dev_t dev), (c, d, p, m, dev))
OP(int, unlinkat, (void *c, int d, const char *p, int f), (c, d, p, f))
OP(int, renameat2, (void *c, int od, const char *op, int nd, const char *np, unsigned f), (c, od, op, nd, np, f))
OP(int, linkat, (void *c, int od, const char *op, int nd, const char *np, int f), (c, od, op, nd, np, f))
OP(int, symlinkat, (void *c, const char *t, int d, const char *l), (c, t, d, l))
OP(ssize_t, readlinkat, (void *c, int d, const char *p, char *b, size_t n), (c, d, p, b, n))
OP(ssize_t, getdents64, (void *c, int fd, void *b, size_t n), (c, fd, b, n))
OP(int, fstat, (void *c, int fd, struct stat *st), (c, fd, st))
OP(int, fstatat, (void *c, int d, const char *p, struct stat *st, int f), (c, d, p, st, f))
OP(int, statx, (void *c, int d, const char *p, int f, unsigned m, struct statx *s), (c, d, p, f, m, s))
OP(int, fchmod, (void *c, int fd, mode_t m), (c, fd, m))
OP(int, fchmodat, (void *c, int d, const char *p, mode_t m, int f), (c, d, p, m, f))
OP(int, fchown, (void *c, int fd, uid_t u, gid_t g), (c, fd, u, g))
OP(int, fchownat, (void *c, int d, const char *p, uid_t u, gid_t g, int f), (c, d, p, u, g, f))
OP(int, utimensat, (void *c, int d, const char *p, const struct timespec t[2], int f), (c, d, p, t, f))
OP(int, faccessat, (void *c, int d, const char *p, int m, int f), (c, d, p, m, f))
OP(mode_t, umask, (void *c, mode_t m), (c, m))
OP(int, fstatfs, (void *c, int fd, struct statfs *b), (c, fd, b))
OP(int, statfs, (void *c, const char *p, struct statfs *b), (c, p, b))
OP(int, chdir, (void *c, const char *p), (c, p))
OP(int, fchdir, (void *c, int fd), (c, fd))
OP(int, getcwd, (void *c, char *b, size_t n), (c, b, n))
OP(int, chroot, (void *c, const char *p), (c, p))
OP(int, setcred, (void *c, uid_t u, gid_t g), (c, u, g))
OP(int, setgroups, (void *c, size_t n, const gid_t *g), (c, n, g))
OP(int, set_nofile, (void *c, unsigned long l), (c, l))
OP(int, mount, (void *c, const char *s, const char *t, const char *fs, unsigned long f, const void *d), (c, s, t, fs, f, d))
OP(int, umount2, (void *c, const char *t, int f), (c, t, f))
OP(int, pivot_root, (void *c, const char *n, const char *o), (c, n, o))
OP(int, proc_clone, (void *c, unsigned f), (c, f))
OP(int, proc_use, (void *c, int i), (c, i))
OP(int, proc_destroy, (void *c, int i), (c, i))
OP(int, pipe2, (void *c, int fds[2], int f), (c, fds, f))
OP(int, ioctl, (void *c, int fd, unsigned long req, void *a), (c, fd, req, a))
OP(int, poll, (void *c, struct pollfd *fds, unsigned long n, int t), (c, fds, n, t))
OP(int, inotify_init1, (void *c, int f), (c, f))
OP(int, inotify_add_watch, (void *c, int fd, const char *p, uint32_t m), (c, fd, p, m))
OP(int, inotify_rm_watch, (void *c, int fd, int wd), (c, fd, wd))
OP(int, setxattr, (void *c, const char *p, const char *n, const void *v, size_t s, int f), (c, p, n, v, s, f))
OP(int, lsetxattr, (void *c, const char *p, const char *n, const void *v, size_t s, int f), (c, p, n, v, s, f))
OP(int, fsetxattr, (void *c, int fd, const char *n, const void *v, size_t s, int f), (c, fd, n, v, s, f))
OP(ssize_t, getxattr, (void *c, const char *p, const char *n, void *v, size_t s), (c, p, n, v, s))
OP(ssize_t, lgetxattr, (void *c, const char *p, const char *n, void *v, size_t s), (c, p, n, v, s))
OP(ssize_t, fgetxattr, (void *c, int fd, const char *n, void *v, size_t s), (c, fd, n, v, s))
OP(ssize_t, listxattr, (void *c, const char *p, char *l, size_t s), (c, p, l, s))
OP(ssize_t, llistxattr, (void *c, const char *p, char *l, size_t s), (c, p, l, s))
OP(ssize_t, flistxattr, (void *c, int fd, char *l, size_t s), (c, fd, l, s))
OP(int, removexattr, (void *c, const char *p, const char *n), (c, p, n))
OP(int, lremovexattr, (void *c, const char *p, const char *n), (c, p, n))
OP(int, fremovexattr, (void *c, int fd, const char *n), (c, fd, n))
OP(int, fd_setxattr, (void *c, int fd, const char *n, const void *v, size_t s, int f), (c, fd, n, v, s, f))
OP(ssize_t, fd_getxattr, (void *c, int fd, const char *n, void *v, size_t s), (c, fd, n, v, s))
OP(ssize_t, fd_listxattr, (void *c, int fd, char *l, size_t s), (c, fd, l, s))
OP(int, fd_removexattr, (void *c, int fd, const char *n), (c, fd, n))
OP(int, fallocate, (void *c, int fd, int m, off_t o, off_t l), (c, fd, m, o, l))
OP(ssize_t, copy_file_range, (void *c, int a, off_t *oa, int b, off_t *ob, size_t n, unsigned f),
   (c, a, oa, b, ob, n, f))
OP(ssize_t, sendfile, (void *c, int o, int i, off_t *off, size_t n), (c, o, i, off, n))
OP(ssize_t, splice, (void *c, int a, off_t *oa, int b, off_t *ob, size_t n, unsigned f), (c, a, oa, b, ob, n, f))
OP(ssize_t, tee, (void *c, int a, int b, size_t n, unsigned f), (c, a, b, n, f))
OP(int, epoll_create1, (void *c, int f), (c, f))
OP(int, epoll_ctl, (void *c, int ep, int op, int fd, struct epoll_event *ev), (c, ep, op, fd, ev))
OP(int, epoll_wait, (void *c, int ep, struct epoll_event *evs, int n, int t), (c, ep, evs, n, t))
OP(int, epoll_pwait, (void *c, int ep, struct epoll_event *evs, int n, int t, const sigset_t *m), (c, ep, evs, n, t, m))
OP(int, flock, (void *c, int fd, int op), (c, fd, op))
OP(int, getpid, (void *c), (c))
OP(int, memfd_create, (void *c, const char *n, unsigned f), (c, n, f))
OP(int, fadvise, (void *c, int fd, off_t o, off_t l, int a), (c, fd, o, l, a))
OP(ssize_t, readahead, (void *c, int fd, off_t o, size_t n), (c, fd, o, n))
OP(int, syncfs, (void *c, int fd), (c, fd))
OP(ssize_t, preadv, (void *c, int fd, const struct iovec *v, int n, off_t o), (c, fd, v, n, o))
OP(ssize_t, pwritev, (void *c, int fd, const struct iovec *v, int n, off_t o), (c, fd, v, n, o))
OP(ssize_t, preadv2, (void *c, int fd, const struct iovec *v, int n, off_t o, int f), (c, fd, v, n, o, f))
OP(ssize_t, pwritev2, (void *c, int fd, const struct iovec *v, int n, off_t o, int f), (c, fd, v, n, o, f))
OP(int, name_to_handle_at, (void *c, int d, const char *p, struct file_handle *h, int *m, int f), (c, d, p, h, m, f))
OP(int, open_by_handle_at, (void *c, int m, struct file_handle *h, int f), (c, m, h, f))

#define W(name) .name = w_##name
const struct backend fault_backend = {
	.name = "uvfs-fault",
	W(openat), W(openat2), W(close), W(close_range), W(fd_reopen), W(read), W(write),
	W(pread), W(pwrite), W(readv), W(writev), W(lseek), W(ftruncate), W(truncate),
	W(fsync), W(fdatasync), W(dup), W(dup2), W(dup3), W(fcntl), W(mkdirat), W(mknodat),
	W(unlinkat), W(renameat2), W(linkat), W(symlinkat), W(readlinkat), W(getdents64),
	W(fstat), W(fstatat), W(statx), W(fchmod), W(fchmodat), W(fchown), W(fchownat),
	W(utimensat), W(faccessat), W(umask), W(fstatfs), W(statfs), W(chdir), W(fchdir),
	W(getcwd), W(chroot), W(setcred), W(setgroups), W(set_nofile), W(mount), W(umount2), W(pivot_root),
	W(proc_clone), W(proc_use), W(proc_destroy), W(pipe2), W(ioctl), W(poll),
	W(inotify_init1), W(inotify_add_watch), W(inotify_rm_watch),
	W(setxattr), W(lsetxattr), W(fsetxattr), W(getxattr), W(lgetxattr), W(fgetxattr),
	W(listxattr), W(llistxattr), W(flistxattr), W(removexattr), W(lremovexattr), W(fremovexattr),
	W(fd_setxattr), W(fd_getxattr), W(fd_listxattr), W(fd_removexattr),
	W(fallocate), W(copy_file_range), W(sendfile), W(splice), W(tee),
	W(epoll_create1), W(epoll_ctl), W(epoll_wait), W(epoll_pwait),
	W(flock), W(getpid), W(memfd_create), W(fadvise), W(readahead), W(syncfs),
	W(name_to_handle_at), W(open_by_handle_at), W(preadv), W(pwritev), W(preadv2), W(pwritev2),
};
