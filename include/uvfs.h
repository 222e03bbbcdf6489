/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs.h - the Linux virtual file system as a library that runs in user space.
 *
 * One struct uvfs is a kernel: a mount tree over an in-memory tmpfs, a dentry
 * cache and an inode cache.  One struct uvfs_proc is a process as the VFS sees
 * it: an fd table, a root, a cwd, a umask and credentials.
 *
 * Every call is shaped like the Linux system call of the same name: it returns
 * a value >= 0 on success or a negative errno value (-ENOENT, ...) on failure;
 * it never sets errno.  Flags and structures are Linux's own from the system
 * headers (O_*, AT_*, RENAME_*, RESOLVE_*, struct stat, struct statx,
 * struct open_how, struct linux_dirent64), so code moves between the kernel and
 * uvfs by changing a prefix.
 *
 * Threads: every call is thread-safe.  Any number of host threads may call into
 * one proc at the same time (they then behave as threads of one process that
 * share its fd table), or into different procs of one instance.  No thread
 * registration call is needed.
 */
#ifndef UVFS_H
#define UVFS_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/openat2.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UVFS_VERSION_MAJOR 0
#define UVFS_VERSION_MINOR 1

struct uvfs;
struct uvfs_proc;

/* Limits of one instance.  Zero in any field means "the default". */
struct uvfs_options {
	unsigned long max_files;      /* open files in the instance (ENFILE); default 1048576 */
	unsigned long long tmpfs_size; /* bytes of file data in the root tmpfs (ENOSPC); default unlimited */
	unsigned long tmpfs_nr_inodes; /* inodes in the root tmpfs (ENOSPC); default unlimited */
	mode_t root_mode;             /* mode of the root directory; default 01777 as a fresh tmpfs */
	uid_t root_uid;
	gid_t root_gid;
	unsigned long reserved[8];
};

/* Create an instance; NULL options give the defaults.  Returns NULL on ENOMEM. */
struct uvfs *uvfs_create(const struct uvfs_options *opts);
/* Destroy an instance and every proc, file, mount and inode it still has. */
void uvfs_destroy(struct uvfs *fs);

/* A new process with credentials uid/gid, root and cwd "/", umask 022 and a
 * default open-file limit of 1024. */
struct uvfs_proc *uvfs_proc_create(struct uvfs *fs, uid_t uid, gid_t gid);

#define UVFS_CLONE_FILES 0x1u /* share the fd table (threads) instead of copying it (fork) */
#define UVFS_CLONE_FS    0x2u /* share root, cwd and umask instead of copying them */
/* A new process made from an existing one, as clone(2)/fork(2) would. */
struct uvfs_proc *uvfs_proc_clone(struct uvfs_proc *p, unsigned flags);
/* Drop a process: its fd table reference, root and cwd.  Files it alone had
 * open are closed. */
void uvfs_proc_destroy(struct uvfs_proc *p);

/* RLIMIT_NOFILE of a process (EMFILE): fds must be < limit.  Returns 0 or -EINVAL
 * (limit 0 or above 1 << 20, Linux's nr_open). */
int uvfs_proc_set_nofile(struct uvfs_proc *p, unsigned long limit);
/* Supplementary groups for permission checks (at most 64). */
int uvfs_proc_setgroups(struct uvfs_proc *p, size_t n, const gid_t *groups);
/* The credentials the proc's file system calls run with, as setfsuid(2) and
 * setfsgid(2): uid 0 has the file capabilities (CAP_CHOWN, CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_FSETID, CAP_MKNOD) and may mount;
 * any other uid has none.  Returns 0. */
int uvfs_proc_setcred(struct uvfs_proc *p, uid_t uid, gid_t gid);

/* ---- files ---- */
int uvfs_openat(struct uvfs_proc *p, int dirfd, const char *path, int flags, mode_t mode);
int uvfs_openat2(struct uvfs_proc *p, int dirfd, const char *path, const struct open_how *how, size_t size);
int uvfs_close(struct uvfs_proc *p, int fd);
/* Opens anew the file that fd refers to (an O_PATH fd too), as
 * open("/proc/self/fd/N", flags) does on Linux: permission is checked against
 * the inode; O_CREAT and O_EXCL are ignored.  Returns the new fd or -errno. */
int uvfs_fd_reopen(struct uvfs_proc *p, int fd, int flags);
int uvfs_close_range(struct uvfs_proc *p, unsigned first, unsigned last, unsigned flags);
ssize_t uvfs_read(struct uvfs_proc *p, int fd, void *buf, size_t count);
ssize_t uvfs_write(struct uvfs_proc *p, int fd, const void *buf, size_t count);
ssize_t uvfs_pread(struct uvfs_proc *p, int fd, void *buf, size_t count, off_t off);
ssize_t uvfs_pwrite(struct uvfs_proc *p, int fd, const void *buf, size_t count, off_t off);
ssize_t uvfs_readv(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt);
ssize_t uvfs_writev(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt);
off_t uvfs_lseek(struct uvfs_proc *p, int fd, off_t off, int whence);
int uvfs_ftruncate(struct uvfs_proc *p, int fd, off_t length);
int uvfs_truncate(struct uvfs_proc *p, const char *path, off_t length);
int uvfs_fsync(struct uvfs_proc *p, int fd);
int uvfs_fdatasync(struct uvfs_proc *p, int fd);
int uvfs_dup(struct uvfs_proc *p, int fd);
int uvfs_dup2(struct uvfs_proc *p, int oldfd, int newfd);
int uvfs_dup3(struct uvfs_proc *p, int oldfd, int newfd, int flags);
/* F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL; the argument as
 * fcntl(2)'s third. */
int uvfs_fcntl(struct uvfs_proc *p, int fd, int cmd, unsigned long arg);

/* ---- names ---- */
int uvfs_mkdirat(struct uvfs_proc *p, int dirfd, const char *path, mode_t mode);
int uvfs_mknodat(struct uvfs_proc *p, int dirfd, const char *path, mode_t mode, dev_t dev);
int uvfs_unlinkat(struct uvfs_proc *p, int dirfd, const char *path, int flags);
int uvfs_renameat2(struct uvfs_proc *p, int olddirfd, const char *oldpath, int newdirfd,
		   const char *newpath, unsigned flags);
int uvfs_linkat(struct uvfs_proc *p, int olddirfd, const char *oldpath, int newdirfd,
		const char *newpath, int flags);
int uvfs_symlinkat(struct uvfs_proc *p, const char *target, int newdirfd, const char *linkpath);
ssize_t uvfs_readlinkat(struct uvfs_proc *p, int dirfd, const char *path, char *buf, size_t bufsiz);
/* Fills buf with struct linux_dirent64 records (d_ino, d_off, d_reclen, d_type,
 * d_name), as getdents64(2). */
ssize_t uvfs_getdents64(struct uvfs_proc *p, int fd, void *buf, size_t count);

/* ---- attributes ---- */
int uvfs_fstat(struct uvfs_proc *p, int fd, struct stat *st);
int uvfs_fstatat(struct uvfs_proc *p, int dirfd, const char *path, struct stat *st, int flags);
int uvfs_statx(struct uvfs_proc *p, int dirfd, const char *path, int flags, unsigned mask,
	       struct statx *stx);
int uvfs_fchmod(struct uvfs_proc *p, int fd, mode_t mode);
int uvfs_fchmodat(struct uvfs_proc *p, int dirfd, const char *path, mode_t mode, int flags);
int uvfs_fchown(struct uvfs_proc *p, int fd, uid_t uid, gid_t gid);
int uvfs_fchownat(struct uvfs_proc *p, int dirfd, const char *path, uid_t uid, gid_t gid, int flags);
/* times NULL: now; tv_nsec UTIME_NOW / UTIME_OMIT as utimensat(2).  path NULL
 * with dirfd an fd acts on that fd (futimens). */
int uvfs_utimensat(struct uvfs_proc *p, int dirfd, const char *path, const struct timespec times[2],
		   int flags);
/* flags: AT_EACCESS, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH (faccessat2). */
int uvfs_faccessat(struct uvfs_proc *p, int dirfd, const char *path, int mode, int flags);
/* Sets the umask and returns the old one (never fails). */
mode_t uvfs_umask(struct uvfs_proc *p, mode_t mask);
int uvfs_fstatfs(struct uvfs_proc *p, int fd, struct statfs *buf);
int uvfs_statfs(struct uvfs_proc *p, const char *path, struct statfs *buf);

/* ---- process state ---- */
int uvfs_chdir(struct uvfs_proc *p, const char *path);
int uvfs_fchdir(struct uvfs_proc *p, int fd);
/* Returns the length including the terminating NUL, as the getcwd system call. */
int uvfs_getcwd(struct uvfs_proc *p, char *buf, size_t size);
int uvfs_chroot(struct uvfs_proc *p, const char *path);

/* ---- mounts ---- */
/* fstype "tmpfs" with data "size=,nr_inodes=,mode=,uid=,gid="; flags MS_BIND
 * (with MS_REC), MS_RDONLY, MS_REMOUNT (with MS_BIND to change only the mount's
 * flags), MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOATIME. Only root may mount. */
int uvfs_mount(struct uvfs_proc *p, const char *source, const char *target, const char *fstype,
	       unsigned long flags, const void *data);
/* flags: MNT_DETACH, MNT_FORCE (accepted), UMOUNT_NOFOLLOW. */
int uvfs_umount2(struct uvfs_proc *p, const char *target, int flags);

#ifdef __cplusplus
}
#endif
#endif /* UVFS_H */
