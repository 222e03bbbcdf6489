/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend.h - the table of operations every conformance scenario is written
 * against.  One implementation per backend: the host kernel (backend_host.c)
 * and uvfs (backend_uvfs.c); a third one (syscalls into a FUSE mount of uvfs)
 * only has to fill in the same table.
 *
 * Every operation returns a value >= 0 or -errno, exactly as the uvfs API does,
 * and takes Linux's own flags and structures.  The first argument is the
 * backend's context, made by setup().
 *
 * Life cycle of one scenario run on one backend:
 *   parent:  prepare(scratch)        (optional; e.g. make a temp directory)
 *   fork:    child: setup(&ctx, scratch) -> scenario -> teardown(ctx) -> exit
 *   parent:  cleanup(scratch)        (optional; e.g. remove the temp directory)
 * Setup must leave the backend as a fresh process on a fresh file system: an
 * empty tmpfs root with mode 01777 owned by 0:0, root and cwd "/", umask 022,
 * credentials 0:0 with no supplementary groups, no fd open, an fd limit of
 * 1024.  Fd numbers are then comparable between backends where Linux defines
 * them (lowest free fd).
 */
#ifndef CONF_BACKEND_H
#define CONF_BACKEND_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/openat2.h>
#include <time.h>
#include <signal.h>

struct statx;
struct pollfd;
struct epoll_event;

struct backend {
	const char *name;
	/* The child ends with exit(), so LeakSanitizer checks what the backend
	 * left behind; others end with _exit() (the host child has no /proc in
	 * its new root for LSan to read). */
	int leak_check;
	int (*prepare)(char *scratch, size_t len);
	int (*setup)(void **ctx, const char *scratch);
	void (*teardown)(void *ctx);
	void (*cleanup)(const char *scratch);

	/* files */
	int (*openat)(void *c, int dirfd, const char *path, int flags, mode_t mode);
	int (*openat2)(void *c, int dirfd, const char *path, const struct open_how *how, size_t size);
	int (*close)(void *c, int fd);
	int (*close_range)(void *c, unsigned first, unsigned last, unsigned flags);
	int (*fd_reopen)(void *c, int fd, int flags);
	ssize_t (*read)(void *c, int fd, void *buf, size_t count);
	ssize_t (*write)(void *c, int fd, const void *buf, size_t count);
	ssize_t (*pread)(void *c, int fd, void *buf, size_t count, off_t off);
	ssize_t (*pwrite)(void *c, int fd, const void *buf, size_t count, off_t off);
	ssize_t (*readv)(void *c, int fd, const struct iovec *iov, int iovcnt);
	ssize_t (*writev)(void *c, int fd, const struct iovec *iov, int iovcnt);
	off_t (*lseek)(void *c, int fd, off_t off, int whence);
	int (*ftruncate)(void *c, int fd, off_t len);
	int (*truncate)(void *c, const char *path, off_t len);
	int (*fsync)(void *c, int fd);
	int (*fdatasync)(void *c, int fd);
	int (*dup)(void *c, int fd);
	int (*dup2)(void *c, int oldfd, int newfd);
	int (*dup3)(void *c, int oldfd, int newfd, int flags);
	int (*fcntl)(void *c, int fd, int cmd, unsigned long arg);

	/* names */
	int (*mkdirat)(void *c, int dirfd, const char *path, mode_t mode);
	int (*mknodat)(void *c, int dirfd, const char *path, mode_t mode, dev_t dev);
	int (*unlinkat)(void *c, int dirfd, const char *path, int flags);
	int (*renameat2)(void *c, int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			 unsigned flags);
	int (*linkat)(void *c, int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		      int flags);
	int (*symlinkat)(void *c, const char *target, int newdirfd, const char *linkpath);
	ssize_t (*readlinkat)(void *c, int dirfd, const char *path, char *buf, size_t bufsiz);
	ssize_t (*getdents64)(void *c, int fd, void *buf, size_t count);

	/* attributes */
	int (*fstat)(void *c, int fd, struct stat *st);
	int (*fstatat)(void *c, int dirfd, const char *path, struct stat *st, int flags);
	int (*statx)(void *c, int dirfd, const char *path, int flags, unsigned mask, struct statx *stx);
	int (*fchmod)(void *c, int fd, mode_t mode);
	int (*fchmodat)(void *c, int dirfd, const char *path, mode_t mode, int flags);
	int (*fchown)(void *c, int fd, uid_t uid, gid_t gid);
	int (*fchownat)(void *c, int dirfd, const char *path, uid_t uid, gid_t gid, int flags);
	int (*utimensat)(void *c, int dirfd, const char *path, const struct timespec times[2], int flags);
	int (*faccessat)(void *c, int dirfd, const char *path, int mode, int flags);
	mode_t (*umask)(void *c, mode_t mask);
	int (*fstatfs)(void *c, int fd, struct statfs *buf);
	int (*statfs)(void *c, const char *path, struct statfs *buf);

	/* process state */
	int (*chdir)(void *c, const char *path);
	int (*fchdir)(void *c, int fd);
	int (*getcwd)(void *c, char *buf, size_t size);
	int (*chroot)(void *c, const char *path);
	int (*setcred)(void *c, uid_t uid, gid_t gid);
	int (*setgroups)(void *c, size_t n, const gid_t *groups);
	int (*set_nofile)(void *c, unsigned long limit);

	/* mounts */
	int (*mount)(void *c, const char *source, const char *target, const char *fstype,
		     unsigned long flags, const void *data);
	int (*umount2)(void *c, const char *target, int flags);
	int (*pivot_root)(void *c, const char *new_root, const char *put_old);

	/* Processes (optional; scenarios that need them are skipped without).
	 * Proc 0 is the one setup made.  proc_clone makes a copy of proc 0 as
	 * fork(2) does, sharing its fd table with flag 0x1 (UVFS_CLONE_FILES)
	 * and its root, cwd and umask with 0x2 (UVFS_CLONE_FS), and returns its
	 * number; proc_use directs the following operations to a proc;
	 * proc_destroy ends one (as _exit of that process). */
	int (*proc_clone)(void *c, unsigned flags);
	int (*proc_use)(void *c, int proc);
	int (*proc_destroy)(void *c, int proc);

	/* pipes, ioctl and poll (pipes.c) */
	int (*pipe2)(void *c, int fds[2], int flags);
	int (*ioctl)(void *c, int fd, unsigned long req, void *arg);
	int (*poll)(void *c, struct pollfd *fds, unsigned long nfds, int timeout_ms);

	/* inotify (inotify.c); events are read with read(), FIONREAD is ioctl() */
	int (*inotify_init1)(void *c, int flags);
	int (*inotify_add_watch)(void *c, int fd, const char *path, uint32_t mask);
	int (*inotify_rm_watch)(void *c, int fd, int wd);

	/* extended attributes (xattr.c, acl.c); flags of <sys/xattr.h> */
	int (*setxattr)(void *c, const char *path, const char *name, const void *value, size_t size, int flags);
	int (*lsetxattr)(void *c, const char *path, const char *name, const void *value, size_t size, int flags);
	int (*fsetxattr)(void *c, int fd, const char *name, const void *value, size_t size, int flags);
	ssize_t (*getxattr)(void *c, const char *path, const char *name, void *value, size_t size);
	ssize_t (*lgetxattr)(void *c, const char *path, const char *name, void *value, size_t size);
	ssize_t (*fgetxattr)(void *c, int fd, const char *name, void *value, size_t size);
	ssize_t (*listxattr)(void *c, const char *path, char *list, size_t size);
	ssize_t (*llistxattr)(void *c, const char *path, char *list, size_t size);
	ssize_t (*flistxattr)(void *c, int fd, char *list, size_t size);
	int (*removexattr)(void *c, const char *path, const char *name);
	int (*lremovexattr)(void *c, const char *path, const char *name);
	int (*fremovexattr)(void *c, int fd, const char *name);
	/* the *xattrat calls of Linux 6.13 (xattrat.c); args is Linux's struct
	 * xattr_args (struct uvfs_xattr_args) of usize bytes */
	int (*setxattrat)(void *c, int dfd, const char *path, unsigned at_flags, const char *name,
			  const void *args, size_t usize);
	ssize_t (*getxattrat)(void *c, int dfd, const char *path, unsigned at_flags, const char *name, void *args,
			      size_t usize);
	ssize_t (*listxattrat)(void *c, int dfd, const char *path, unsigned at_flags, char *list, size_t size);
	int (*removexattrat)(void *c, int dfd, const char *path, unsigned at_flags, const char *name);
	/* the path calls on what fd refers to, an O_PATH fd too: on the host
	 * the *xattrat calls on /proc/self/fd/N, in uvfs uvfs_fd_*xattr */
	int (*fd_setxattr)(void *c, int fd, const char *name, const void *value, size_t size, int flags);
	ssize_t (*fd_getxattr)(void *c, int fd, const char *name, void *value, size_t size);
	ssize_t (*fd_listxattr)(void *c, int fd, char *list, size_t size);
	int (*fd_removexattr)(void *c, int fd, const char *name);

	/* flock(2); the fcntl lock commands go through fcntl with a struct
	 * flock * as arg.  getpid: the current proc's pid as F_GETLK reports
	 * it (uvfs_getpid), compared only with other getpid answers. */
	int (*flock)(void *c, int fd, int op);
	int (*getpid)(void *c);

	int (*fallocate)(void *c, int fd, int mode, off_t offset, off_t len);

	ssize_t (*copy_file_range)(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
				   unsigned flags);
	ssize_t (*sendfile)(void *c, int out_fd, int in_fd, off_t *offset, size_t count);
	ssize_t (*splice)(void *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned flags);
	ssize_t (*tee)(void *c, int fd_in, int fd_out, size_t len, unsigned flags);

	/* epoll (epoll.c); struct epoll_event as <sys/epoll.h>; pwait's mask
	 * NULL or an 8-byte kernel sigset */
	int (*epoll_create1)(void *c, int flags);
	int (*epoll_ctl)(void *c, int epfd, int op, int fd, struct epoll_event *ev);
	int (*epoll_wait)(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms);
	int (*epoll_pwait)(void *c, int epfd, struct epoll_event *evs, int maxevents, int timeout_ms,
			   const sigset_t *mask);

	/* setresuid(2), setresgid(2): (uid_t)-1 keeps an id */
	int (*setresuid)(void *c, uid_t ruid, uid_t euid, uid_t suid);
	int (*setresgid)(void *c, gid_t rgid, gid_t egid, gid_t sgid);

	/* name_to_handle_at(2), open_by_handle_at(2) (fhandle.c) */
	int (*name_to_handle_at)(void *c, int dfd, const char *path, struct file_handle *h, int *mount_id, int flags);
	int (*open_by_handle_at)(void *c, int mount_fd, struct file_handle *h, int flags);

	/* vectored I/O at an offset, and with RWF_* flags (rw2.c): preadv2's
	 * offset -1 is the file position */
	ssize_t (*preadv)(void *c, int fd, const struct iovec *iov, int iovcnt, off_t off);
	ssize_t (*pwritev)(void *c, int fd, const struct iovec *iov, int iovcnt, off_t off);
	ssize_t (*preadv2)(void *c, int fd, const struct iovec *iov, int iovcnt, off_t off, int flags);
	ssize_t (*pwritev2)(void *c, int fd, const struct iovec *iov, int iovcnt, off_t off, int flags);
	/* advice and writeback (rw2.c): posix_fadvise returns -errno here, as
	 * the system call does */
	int (*fadvise)(void *c, int fd, off_t off, off_t len, int advice);
	ssize_t (*readahead)(void *c, int fd, off_t off, size_t count);
	int (*syncfs)(void *c, int fd);
	int (*sync_file_range)(void *c, int fd, off_t off, off_t nbytes, unsigned flags);

	/* memfd_create(2) (memfd.c): flags of <linux/memfd.h>; the seals are
	 * fcntl's F_ADD_SEALS and F_GET_SEALS */
	int (*memfd_create)(void *c, const char *name, unsigned flags);

};

extern const struct backend host_backend;
/* Weak: a build without the library (host-vs-host self test) leaves it NULL. */
extern const struct backend uvfs_backend __attribute__((weak));
/* backend_uvfs.c, for tests/fault: the instance behind a uvfs context, and
 * the end of all its procs (teardown then only destroys the instance). */
struct uvfs;
struct uvfs *uvfs_backend_instance(void *ctx);
void uvfs_backend_end_procs(void *ctx);

#endif
