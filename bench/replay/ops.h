/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops.h - the calls a replay makes, one table per target: the uvfs library's
 * own entry points (dlsym on the handle target.c opened) or the host's
 * system calls, errno returned as -errno as uvfs returns it.
 */
#ifndef UVFS_BENCH_REPLAY_OPS_H
#define UVFS_BENCH_REPLAY_OPS_H

#include <sys/stat.h>
#include <sys/types.h>

struct uvfs_proc;
struct target;

struct replay_ops {
	int (*openat)(struct uvfs_proc *p, int dirfd, const char *path, int flags, mode_t mode);
	int (*close)(struct uvfs_proc *p, int fd);
	ssize_t (*read)(struct uvfs_proc *p, int fd, void *buf, size_t count);
	ssize_t (*pread)(struct uvfs_proc *p, int fd, void *buf, size_t count, off_t off);
	off_t (*lseek)(struct uvfs_proc *p, int fd, off_t off, int whence);
	int (*ftruncate)(struct uvfs_proc *p, int fd, off_t length);
	int (*fstat)(struct uvfs_proc *p, int fd, struct stat *st);
	int (*fstatat)(struct uvfs_proc *p, int dirfd, const char *path, struct stat *st, int flags);
	int (*statx)(struct uvfs_proc *p, int dirfd, const char *path, int flags, unsigned mask,
		     struct statx *stx);
	int (*faccessat)(struct uvfs_proc *p, int dirfd, const char *path, int mode, int flags);
	ssize_t (*readlinkat)(struct uvfs_proc *p, int dirfd, const char *path, char *buf,
			      size_t bufsiz);
	ssize_t (*getdents64)(struct uvfs_proc *p, int fd, void *buf, size_t count);
	int (*chdir)(struct uvfs_proc *p, const char *path);
	int (*fchdir)(struct uvfs_proc *p, int fd);
	int (*getcwd)(struct uvfs_proc *p, char *buf, size_t size);
	int (*mkdirat)(struct uvfs_proc *p, int dirfd, const char *path, mode_t mode);
	int (*symlinkat)(struct uvfs_proc *p, const char *target, int dirfd, const char *path);
	int (*fchmodat)(struct uvfs_proc *p, int dirfd, const char *path, mode_t mode, int flags);
};

extern const struct replay_ops replay_host_ops;
/* Fills OPS from the uvfs target T (loaded); 0, or -1 with the missing
 * symbol in err. */
int replay_uvfs_ops(struct target *t, struct replay_ops *ops, char *err, size_t errlen);

#endif
