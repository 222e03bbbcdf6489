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
 *
 * Linking: libuvfs reaches liburcu-memb's per-thread reader state with
 * initial-exec TLS (its read-side sections are inlined).  Link the program
 * against libuvfs (or liburcu-memb) rather than dlopen it into a process
 * that has not loaded liburcu-memb at start-up, or the dlopen may fail with
 * "cannot allocate memory in static TLS block".
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
#define UVFS_VERSION_MINOR 4
/* The version of the library the program runs against, as
 * UVFS_VERSION_MAJOR << 16 | UVFS_VERSION_MINOR: a program built against a
 * newer header than the library it finds can tell (added in 0.2). */
unsigned uvfs_version(void);

struct uvfs;
struct uvfs_proc;
struct statx; /* <sys/stat.h> declares it with _GNU_SOURCE only */

/* Limits of one instance.  Zero in any field means "the default". */
struct uvfs_options {
	unsigned long max_files;      /* open files in the instance (ENFILE); default 1048576 */
	unsigned long long tmpfs_size; /* bytes of file data in the root tmpfs (ENOSPC); default unlimited */
	unsigned long tmpfs_nr_inodes; /* inodes in the root tmpfs (ENOSPC); default unlimited */
	mode_t root_mode;             /* mode of the root directory; default 01777 as a fresh tmpfs */
	uid_t root_uid;
	gid_t root_gid;
	/* inotify limits (Linux's /proc/sys/fs/inotify/), counted per instance:
	 * events queued in one inotify instance before IN_Q_OVERFLOW; default 16384 */
	unsigned long inotify_max_queued_events;
	/* watches of one uid across its inotify instances (ENOSPC); default 8192 */
	unsigned long inotify_max_user_watches;
	/* inotify instances of one uid (EMFILE); default 128 */
	unsigned long inotify_max_user_instances;
	/* paths the path cache holds (each the directory a path's prefix
	 * resolves to; rounded up to a power of two, at most 1 << 26); default
	 * 65536, about 9 MiB when full.  An evicted path costs a full walk the
	 * next time, never another result. */
	unsigned long path_cache_max;
	unsigned long reserved[4];
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
/* Supplementary groups for permission checks (at most 64).  Errors: -EINVAL,
 * -EFAULT, -ENOMEM.  n = UVFS_GROUPS_UNKNOWN: the groups are not known yet
 * (a server that learns a caller's groups only when it must); a check that
 * a group the caller might be in would refuse is refused (EACCES), so that
 * the caller can set the groups and call again. */
#define UVFS_GROUPS_UNKNOWN ((size_t)-1)
int uvfs_proc_setgroups(struct uvfs_proc *p, size_t n, const gid_t *groups);
/* The credentials the proc's file system calls run with: the real, effective
 * and fs ids (the saved ones stay; see uvfs_proc_setresuid): uid 0 has the
 * file capabilities (CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
 * CAP_FOWNER, CAP_FSETID, CAP_MKNOD) and may mount; any other uid has none.
 * Each change makes a new immutable cred; calls of other threads into the
 * proc run with the old or the new one, never a mix.  Errors: -ENOMEM. */
int uvfs_proc_setcred(struct uvfs_proc *p, uid_t uid, gid_t gid);

/* ---- files ---- */
int uvfs_openat(struct uvfs_proc *p, int dirfd, const char *path, int flags, mode_t mode);
int uvfs_openat2(struct uvfs_proc *p, int dirfd, const char *path, const struct open_how *how, size_t size);
int uvfs_close(struct uvfs_proc *p, int fd);
/* Opens anew the file that fd refers to (an O_PATH fd too), as
 * open("/proc/self/fd/N", flags) does on Linux: permission is checked against
 * the inode; O_CREAT and O_EXCL are ignored; O_PATH drops the flags it does
 * not take; O_NOFOLLOW without O_PATH is -ELOOP (the /proc link is a
 * symlink); an inotify or epoll fd is -ENXIO (no open), a pipe or FIFO with
 * O_DIRECT -EINVAL, and an anonymous pipe's end waits for no partner and has
 * no -ENXIO.  Returns the new fd or -errno. */
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
/* F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL, the pipe sizes,
 * the seals (F_ADD_SEALS, F_GET_SEALS: see uvfs_memfd_create) and the record
 * locks; the argument as fcntl(2)'s third (for the lock
 * commands a struct flock *, cast to unsigned long).
 * Locks: F_GETLK, F_SETLK, F_SETLKW (POSIX locks, owned by the proc's fd
 * table: threads and UVFS_CLONE_FILES clones share them; all of them on a
 * file go at any close of an fd of it by a proc of that table) and
 * F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW (owned by the open file; gone at
 * its last close).  They conflict with each other; flock locks are apart.
 * F_GETLK's l_pid is the holder's uvfs_getpid(), -1 for an OFD lock.
 * Errors of the lock commands, in order: EBADF (fd; an O_PATH fd), EFAULT
 * (a NULL arg), EINVAL (F_GETLK: l_type not F_RDLCK or F_WRLCK), EINVAL
 * (l_whence), EOVERFLOW (the start past the largest offset), EINVAL (the
 * start before 0), EOVERFLOW (the end past the largest offset), EINVAL (a
 * negative l_len reaching before 0), EINVAL (l_type), EINVAL (F_OFD_GETLK:
 * l_pid not 0), EBADF (the set commands: F_RDLCK needs the file open for
 * reading, F_WRLCK for writing), EINVAL (F_OFD_SETLK, F_OFD_SETLKW: l_pid
 * not 0), ENOMEM or ENOLCK, EAGAIN (F_SETLK, F_OFD_SETLK: a conflicting
 * lock), EDEADLK (F_SETLKW: waiting would close a cycle of procs waiting
 * for each other's locks), EBADF (F_SETLK, F_SETLKW: the fd was closed
 * meanwhile, and the lock was dropped).  Waits cannot be interrupted. */
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

/* ---- inotify (inotify(7)) ----
 * The flags, event bits and struct inotify_event are Linux's, from
 * <sys/inotify.h>.  Events are reported for the operations of every proc of
 * the instance, as the kernel reports them for every process.
 *
 * uvfs_read on an inotify fd returns whole struct inotify_event records; a
 * name is NUL-padded to a multiple of sizeof(struct inotify_event).  EINVAL
 * when the buffer cannot hold the next event; EAGAIN when the queue is empty
 * and the fd is non-blocking, else the reading thread sleeps until an event
 * arrives.  An event identical to the last queued one (mask, wd, name) is
 * merged into it.  A full queue (uvfs_options.inotify_max_queued_events)
 * ends with one IN_Q_OVERFLOW event (wd -1).  A watch that goes (rm_watch,
 * IN_ONESHOT after its event, the inode deleted, its file system unmounted)
 * queues IN_IGNORED.  FIONREAD through uvfs_ioctl gives the bytes queued.
 */
/* flags: IN_NONBLOCK, IN_CLOEXEC.  Errors: EINVAL (flags); EMFILE (the uid's
 * inotify_max_user_instances, or the fd limit); ENFILE; ENOMEM. */
int uvfs_inotify_init1(struct uvfs_proc *p, int flags);
/* Watch path (resolved from the cwd) for the IN_* events of mask, with
 * IN_ONLYDIR, IN_DONT_FOLLOW, IN_EXCL_UNLINK, IN_ONESHOT, IN_MASK_ADD (add to
 * the watch's mask instead of replacing it), IN_MASK_CREATE (EEXIST if the
 * inode is already watched).  Returns the watch descriptor, the same one for
 * the same inode.  Errors in Linux's order: EINVAL (unknown bits, no bits);
 * EBADF (fd); EINVAL (IN_MASK_ADD with IN_MASK_CREATE; fd not an inotify
 * instance); the walk's (ENOENT, ENOTDIR for IN_ONLYDIR, ...); EACCES without
 * read permission on the inode; EEXIST (IN_MASK_CREATE); ENOSPC (the uid's
 * inotify_max_user_watches). */
int uvfs_inotify_add_watch(struct uvfs_proc *p, int fd, const char *path, uint32_t mask);
/* Errors: EBADF; EINVAL (not an inotify fd, or no such watch). */
int uvfs_inotify_rm_watch(struct uvfs_proc *p, int fd, int wd);

/* ---- the change hook ----
 * One function per instance told about every change to the tree, with the
 * proc that made it: for an embedder that keeps a cache of the tree (the FUSE
 * frontend invalidates the kernel's with it) and must tell its own changes
 * from others'.
 *
 * Called once per change, by the thread that made it, after the change and
 * before the call that made it returns, with none of uvfs's locks held: the
 * hook may call uvfs (its own changes are reported too, when that call
 * returns).  Changes of one thread reach the hook in the order they were
 * made; changes of different threads may interleave.  What is reported:
 *
 *   kind                  made by                         dir, name      ino
 *   UVFS_CHANGE_CREATE    open(O_CREAT) of a new file,    the new name   the new inode
 *                         mknod, mkdir, symlink
 *   UVFS_CHANGE_LINK      link                            the new name   the linked inode
 *   UVFS_CHANGE_UNLINK    unlink, rmdir                   the old name   the removed inode
 *   UVFS_CHANGE_RENAME    rename (flags: RENAME_*)        the new name   the moved inode
 *                         old_dir/old_name: the name it had; other: the inode the new
 *                         name held before (replaced; with RENAME_EXCHANGE now at
 *                         old_name), 0 if none; RENAME_WHITEOUT: old_name is a whiteout
 *   UVFS_CHANGE_ATTR      chmod, chown, utimensat,        -              the inode
 *                         truncate, ftruncate, O_TRUNC,
 *                         a write that clears S_ISUID/S_ISGID  (flags: UVFS_CHANGE_MODE...)
 *   UVFS_CHANGE_WRITE     write, pwrite, writev of at     -              the inode
 *                         least one byte (data, size, mtime)
 *
 * A name change also changes the directories' mtime and ctime (and the link
 * count of a directory gaining or losing a subdirectory).  Reads (atime) and
 * opens change nothing reported.  Inode numbers are st_ino, and dev is the
 * st_dev of every inode of the change (a change never spans two file
 * systems).  Names and the struct live until the hook returns.
 *
 * The hook is a change listener of every kind (below); with no listener of
 * a kind installed, the changes of that kind pay one bit test.  Changes
 * made while uvfs_set_change_hook runs may or may not be reported; every
 * change that completes after it returned is.
 */
#define UVFS_CHANGE_CREATE 1
#define UVFS_CHANGE_LINK   2
#define UVFS_CHANGE_UNLINK 3
#define UVFS_CHANGE_RENAME 4
#define UVFS_CHANGE_ATTR   5
#define UVFS_CHANGE_WRITE  6

/* flags of UVFS_CHANGE_ATTR: what changed (ctime always does) */
#define UVFS_CHANGE_MODE  0x1u
#define UVFS_CHANGE_OWNER 0x2u /* uid, gid or both */
#define UVFS_CHANGE_SIZE  0x4u /* a truncate: size (mtime when it moved) */
#define UVFS_CHANGE_ATIME 0x8u
#define UVFS_CHANGE_MTIME 0x10u

struct uvfs_change {
	int kind;              /* UVFS_CHANGE_* */
	unsigned flags;        /* RENAME: RENAME_NOREPLACE/EXCHANGE/WHITEOUT; ATTR: UVFS_CHANGE_MODE... */
	dev_t dev;             /* st_dev of the inodes below */
	ino_t dir;             /* the directory of name; 0 for ATTR and WRITE */
	const char *name;      /* NUL-terminated; NULL for ATTR and WRITE */
	ino_t ino;             /* the object of the change */
	mode_t mode;           /* its st_mode after the change */
	ino_t old_dir;         /* RENAME: where the object was, and its name there */
	const char *old_name;  /* RENAME; else NULL */
	ino_t other;           /* RENAME: see above; else 0 */
	struct uvfs_proc *proc; /* the proc whose call made the change */
};
typedef void (*uvfs_change_fn)(const struct uvfs_change *c, void *arg);

/* Install fn (called with arg), or remove the hook with fn NULL.  Removal
 * waits until no call of the old hook is running on another thread, so arg
 * may be freed when it returns.  Errors: -EBUSY (a hook is installed: remove
 * it first), -EDEADLK (called from inside the hook), -ENOMEM. */
int uvfs_set_change_hook(struct uvfs *fs, uvfs_change_fn fn, void *arg);

/*
 * Change listeners: several functions, each told about the changes of the
 * kinds in its mask, as the hook above is (same thread, same moment, same
 * struct; listeners in the order they were added, the hook among them).
 * mask: UVFS_CHANGE_BIT(kind) for each kind wanted, and instead of
 * UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE) possibly UVFS_CHANGE_WRITE_FIRST: a
 * write is reported only when it is the first of its proc since the inode's
 * data or attributes were last read (read, pread, readv, splice, sendfile
 * and copy_file_range from it, any stat, lseek SEEK_END/DATA/HOLE, FIONREAD;
 * a setattr also counts) or since a write of another proc.  A first-write
 * listener's return value for a WRITE says whether it took it: only when
 * every first-write listener returned nonzero are that proc's next writes
 * to the inode left unreported until the next read; a listener that holds
 * state which the write did not make stale (its own writes) returns 0.  A
 * read that began before a report may still miss a write after it; a
 * listener that caches what reads returned drops the results of reads that
 * began before the last report of the inode (as FUSE's attr_version does).
 * The return value is ignored for every other report.
 *
 * Add errors, in the order checked: -EDEADLK (called from inside a listener
 * or the hook), -EINVAL (fn or handle NULL; mask empty or with other bits),
 * -ENOMEM.  On success *handle names the listener.  Remove errors:
 * -EDEADLK (inside a listener or the hook), -EINVAL (handle NULL, or no
 * listener was ever added to fs), -ENOENT (handle is not a listener of fs
 * now).  Removal waits until no call of the listener runs on another
 * thread, so arg may be freed when it returns.
 */
#define UVFS_CHANGE_BIT(kind) (1u << (kind))
#define UVFS_CHANGE_ALL                                                                                      \
	(UVFS_CHANGE_BIT(UVFS_CHANGE_CREATE) | UVFS_CHANGE_BIT(UVFS_CHANGE_LINK) |                              \
	 UVFS_CHANGE_BIT(UVFS_CHANGE_UNLINK) | UVFS_CHANGE_BIT(UVFS_CHANGE_RENAME) |                            \
	 UVFS_CHANGE_BIT(UVFS_CHANGE_ATTR) | UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE))
#define UVFS_CHANGE_WRITE_FIRST 0x100u
struct uvfs_change_listener;
typedef int (*uvfs_change_listener_fn)(const struct uvfs_change *c, void *arg);
int uvfs_add_change_listener(struct uvfs *fs, unsigned mask, uvfs_change_listener_fn fn, void *arg,
			     struct uvfs_change_listener **handle);
int uvfs_remove_change_listener(struct uvfs *fs, struct uvfs_change_listener *handle);

/* ---- mounts ---- */
/* fstype "tmpfs" with data "size=,nr_inodes=,mode=,uid=,gid="; fstype
 * "hostfs" with source a host directory and data
 * "cache=exclusive|revalidate|watch,fds=N" (its errors: EINVAL for a NULL
 * source or bad options, then the host's ENOENT, ENOTDIR, EACCES, ELOOP
 * opening the source, then with cache=watch the host's EMFILE or ENOMEM for
 * its inotify instance; see uvfs_mount(3)); flags MS_BIND
 * (with MS_REC), MS_RDONLY, MS_REMOUNT (with MS_BIND to change only the mount's
 * flags), MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOATIME, MS_NODIRATIME,
 * MS_STRICTATIME (which overrides MS_NOATIME, as on Linux); MS_MOVE (source
 * a mount's root, moved with what is above it onto target); MS_PRIVATE,
 * MS_SLAVE, MS_UNBINDABLE, with MS_REC for the subtree (every mount is
 * private: there is no propagation, and MS_SHARED is EINVAL). Only root may
 * mount. */
int uvfs_mount(struct uvfs_proc *p, const char *source, const char *target, const char *fstype,
	       unsigned long flags, const void *data);
/* flags: MNT_DETACH, MNT_FORCE (accepted), UMOUNT_NOFOLLOW. */
int uvfs_umount2(struct uvfs_proc *p, const char *target, int flags);
/* As Linux's pivot_root(2): the mount of new_root becomes the caller's root
 * mount's place, the caller's root mount goes onto put_old (which must lie
 * below new_root), and every proc whose root or cwd was the old root moves
 * to new_root; pivot_root(".", ".") then umount2(".", MNT_DETACH) works.
 * The instance's root mount counts as mounted on an invisible rootfs, as
 * "/" on a Linux system: after a pivot, new_root's mount is the root that
 * uvfs_proc_create gives.  Errors in Linux's order: EPERM (not root); the
 * two walks (ENOTDIR for a non-directory); ENOENT (new_root removed, or
 * put_old removed or in a detached tree); EBUSY (new_root or put_old on the
 * root's mount); EINVAL (the root, or new_root, is not a mount's root or
 * is detached, or put_old is not below new_root, or new_root not below
 * the root). */
int uvfs_pivot_root(struct uvfs_proc *p, const char *new_root, const char *put_old);

/* ---- pipes, FIFOs, poll, ioctl ---- */
/*
 * Pipes behave as Linux's: a capacity of 65536 bytes (16 buffers of 4096)
 * that uvfs_fcntl F_GETPIPE_SZ reads and F_SETPIPE_SZ changes (rounded up to
 * a power-of-two number of pages; -EBUSY below the data held; -EPERM above
 * 1048576 bytes, /proc/sys/fs/pipe-max-size, for uid 0 too, which has no
 * CAP_SYS_RESOURCE); writes of at most PIPE_BUF (4096) bytes, write and
 * writev alike, are atomic; reads return what is there and 0 once no writer
 * is left; O_DIRECT is packet mode.  FIONREAD through uvfs_ioctl.
 *
 * Blocking: a read, a write or a FIFO open without O_NONBLOCK puts the
 * calling thread to sleep until a peer (another thread) acts, as the kernel
 * would; nothing can interrupt that sleep, as there are no signals.
 *
 * Signals: a write with no reader left fails with -EPIPE and raises no
 * SIGPIPE: the library never sends a signal to its host process.
 *
 * FIFOs (uvfs_mknodat with S_IFIFO) open as Linux's: O_RDONLY waits for a
 * writer, O_WRONLY for a reader, O_RDWR never waits; with O_NONBLOCK a reader
 * opens at once and a writer with no reader fails with -ENXIO.  Positioned
 * I/O and lseek give -ESPIPE, ftruncate -EINVAL.
 */
/* pipe2(2): flags O_NONBLOCK, O_CLOEXEC, O_DIRECT (else -EINVAL); -ENFILE,
 * -EMFILE; -EFAULT for a NULL fds.  fds[0] reads, fds[1] writes. */
int uvfs_pipe2(struct uvfs_proc *p, int fds[2], int flags);

/* memfd_create(2): an anonymous regular file in memory, open O_RDWR, on an
 * internal tmpfs of the instance that no path reaches (Linux's shm_mnt): mode
 * 0777 (0666 with MFD_NOEXEC_SEAL), owned by the proc's fsuid and fsgid, no
 * link (st_nlink 0; linkat of it is -EXDEV).  flags: MFD_CLOEXEC,
 * MFD_ALLOW_SEALING (the seals start empty; without it F_SEAL_SEAL, as every
 * other tmpfs file's), MFD_EXEC, MFD_NOEXEC_SEAL (mode 0666 and F_SEAL_EXEC).
 * The seals are uvfs_fcntl's F_ADD_SEALS and F_GET_SEALS, on any tmpfs regular
 * file (-EINVAL on others) with Linux's effects on write, truncate, fallocate
 * and chmod (uvfs has no mappings, so F_SEAL_WRITE never waits or fails for
 * one).  Errors, in order: -EINVAL (unknown flags, MFD_EXEC with
 * MFD_NOEXEC_SEAL, huge page size bits without MFD_HUGETLB), -EFAULT (a NULL
 * name), -EINVAL (a name longer than 249 bytes), -EMFILE, -ENODEV
 * (MFD_HUGETLB: uvfs has no huge pages), -ENOMEM or -ENFILE.  The name only
 * labels the file: uvfs has no /proc to show it. */
#include <sys/mman.h> /* MFD_* (with _GNU_SOURCE); those newer than glibc 2.36 below */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif
int uvfs_memfd_create(struct uvfs_proc *p, const char *name, unsigned int flags);

/* poll(2) over uvfs fds, with Linux's results: POLLNVAL for an fd that is not
 * open, POLLHUP on a pipe's read side with no writer, POLLERR on its write
 * side with no reader; regular files and directories are always ready
 * (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM).  timeout_ms < 0: no limit.
 * Returns the number of entries with revents set, -EINVAL (nfds above the fd
 * limit), -EFAULT, -ENOMEM.  Only uvfs fds: to wait on host fds as well, use
 * a poll set. */
struct pollfd;
int uvfs_poll(struct uvfs_proc *p, struct pollfd *fds, unsigned long nfds, int timeout_ms);

/*
 * Poll sets: waiting on uvfs fds from an embedder's own event loop.
 *
 * A poll set holds (fd, events) pairs of one proc (the file the fd named when
 * it was added) and owns a host eventfd
 * (uvfs_pollset_hostfd: non-blocking, close-on-exec) that becomes readable
 * when a file of the set may have become ready.  Put that fd in the loop's
 * epoll/poll/select set; when it is readable, call uvfs_pollset_wait with
 * timeout 0 to learn which uvfs fds are ready.  Level-triggered, as epoll
 * without EPOLLET: while an fd stays ready, every uvfs_pollset_wait reports
 * it and the host fd is left readable.
 *
 *   struct uvfs_pollset *ps = uvfs_pollset_create(proc);
 *   uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, pipe_rd, POLLIN);
 *   epoll_ctl(ep, EPOLL_CTL_ADD, uvfs_pollset_hostfd(ps), &(struct epoll_event){ .events = EPOLLIN });
 *   ... epoll_wait says the host fd is readable:
 *   struct pollfd ready[16];
 *   int n = uvfs_pollset_wait(ps, ready, 16, 0);   // ready[i].fd, .revents
 *
 * The set keeps a reference to each file added, as a dup of its fd would
 * (unlike epoll, closing the fd does not remove it): remove the fd with
 * UVFS_POLLSET_DEL before closing it when the peer must see the close (EOF,
 * EPIPE).  A set may be used from several threads.
 */
struct uvfs_pollset;
#define UVFS_POLLSET_ADD 1 /* -EEXIST if present; -EBADF if fd is not open */
#define UVFS_POLLSET_DEL 2 /* -ENOENT if absent; events ignored */
#define UVFS_POLLSET_MOD 3 /* -ENOENT if absent */
/* NULL on failure (ENOMEM, or no eventfd could be made). */
struct uvfs_pollset *uvfs_pollset_create(struct uvfs_proc *p);
int uvfs_pollset_hostfd(const struct uvfs_pollset *ps);
int uvfs_pollset_ctl(struct uvfs_pollset *ps, int op, int fd, short events);
/* Fills out[] with up to maxevents ready fds (fd, events as added, revents)
 * and returns their number; waits up to timeout_ms (< 0: no limit) when none
 * is ready.  -EINVAL for maxevents <= 0, -EFAULT for a NULL out. */
int uvfs_pollset_wait(struct uvfs_pollset *ps, struct pollfd *out, int maxevents, int timeout_ms);
/* Drops every entry (and its file reference) and closes the host fd. */
void uvfs_pollset_destroy(struct uvfs_pollset *ps);

/* ioctl(2): FIONREAD (pipes and FIFOs: bytes buffered; regular files: bytes
 * from the position to the end), FIONBIO, FIOCLEX, FIONCLEX, and
 * FS_IOC_GETFLAGS / FS_IOC_SETFLAGS (chattr's FS_*_FL flags: a tmpfs keeps
 * immutable, append-only, nodump and noatime, and enforces the first two
 * with -EPERM as Linux does; see uvfs_ioctl(3)); -ENOTTY for other
 * requests or files; -EBADF; -EFAULT for a NULL arg; FS_IOC_SETFLAGS:
 * -EROFS, -EPERM (not the owner; immutable or append-only changed by a
 * uid other than 0), -EOPNOTSUPP (a flag the filesystem does not keep). */
int uvfs_ioctl(struct uvfs_proc *p, int fd, unsigned long req, void *arg);

/* ---- registering a filesystem type ---- */
/* uvfs_register_filesystem, uvfs_unregister_filesystem: <uvfs_fs.h> */

/* ---- extended attributes ---- */
/*
 * Extended attributes, as setxattr(2), getxattr(2), listxattr(2) and
 * removexattr(2): the path form follows a final symlink, the l form does
 * not, the f form takes an fd (not an O_PATH one).  flags: XATTR_CREATE,
 * XATTR_REPLACE of <sys/xattr.h>.  Namespaces: user.* (regular files and
 * directories only), trusted.* (uid 0 only; invisible to others in a
 * list), security.* (set and removed by uid 0 only), system.posix_acl_access
 * and system.posix_acl_default (POSIX ACLs in Linux's xattr format, version
 * 2).  tmpfs keeps them in memory; with an nr_inodes limit their space is
 * taken from it (ENOSPC), as Linux's tmpfs does.  Every change is IN_ATTRIB
 * and an UVFS_CHANGE_ATTR for the change hook.  The order of a list is
 * unspecified (newest first here; Linux lists in hash order).
 *
 * set: EINVAL (flags); EFAULT (name NULL); ERANGE (name empty or longer
 * than 255 bytes); E2BIG (size over 65536); EFAULT (value NULL with a
 * size); the walk's (f: EBADF); EROFS; for an ACL: EOPNOTSUPP (version),
 * EINVAL (a bad ACL), EOPNOTSUPP (symlinks), EACCES (a default ACL on a
 * non-directory), EPERM (not the owner); otherwise EPERM (user.* on a
 * symlink or special file, on a sticky directory of another owner;
 * trusted.* or security.* without uid 0), EACCES (no write permission),
 * EOPNOTSUPP (unknown namespace), EINVAL (a bare prefix such as "user."),
 * ENOSPC (tmpfs's inode space), EEXIST (XATTR_CREATE and it exists),
 * ENODATA (XATTR_REPLACE and it does not).
 */
int uvfs_setxattr(struct uvfs_proc *p, const char *path, const char *name, const void *value, size_t size,
		  int flags);
int uvfs_lsetxattr(struct uvfs_proc *p, const char *path, const char *name, const void *value, size_t size,
		   int flags);
int uvfs_fsetxattr(struct uvfs_proc *p, int fd, const char *name, const void *value, size_t size, int flags);
/* The value's size; size 0 asks for the size only.  EFAULT (name NULL);
 * ERANGE (name empty or longer than 255 bytes); the walk's (f: EBADF);
 * EFAULT (value NULL with a size); for an ACL: EOPNOTSUPP (symlinks),
 * ENODATA (none), ERANGE (size too small); otherwise ENODATA (trusted.*
 * without uid 0, user.* on a symlink or special file), EACCES (no read
 * permission), EOPNOTSUPP (unknown namespace), EINVAL (a bare prefix),
 * ENODATA (no such attribute), ERANGE (size too small). */
ssize_t uvfs_getxattr(struct uvfs_proc *p, const char *path, const char *name, void *value, size_t size);
ssize_t uvfs_lgetxattr(struct uvfs_proc *p, const char *path, const char *name, void *value, size_t size);
ssize_t uvfs_fgetxattr(struct uvfs_proc *p, int fd, const char *name, void *value, size_t size);
/* The names, each NUL-terminated, and the list's size; size 0 asks for
 * the size only.  No permission needed.  The walk's (f: EBADF); EFAULT
 * (list NULL with a size); ERANGE (size too small; E2BIG with a size of
 * 65536 or more). */
ssize_t uvfs_listxattr(struct uvfs_proc *p, const char *path, char *list, size_t size);
ssize_t uvfs_llistxattr(struct uvfs_proc *p, const char *path, char *list, size_t size);
ssize_t uvfs_flistxattr(struct uvfs_proc *p, int fd, char *list, size_t size);
/* EFAULT, ERANGE (name); the walk's (f: EBADF); EROFS; then as set, and
 * ENODATA when there is no such attribute (removing an absent ACL is 0). */
int uvfs_removexattr(struct uvfs_proc *p, const char *path, const char *name);
int uvfs_lremovexattr(struct uvfs_proc *p, const char *path, const char *name);
int uvfs_fremovexattr(struct uvfs_proc *p, int fd, const char *name);

/*
 * The calls above on the file fd refers to, an O_PATH fd too, as Linux's
 * on the path /proc/self/fd/N (whose magic link reaches the fd's object,
 * a symlink or special file included, with nothing checked on the way).
 * Linux has no such calls; the FUSE frontend reaches its nodes' attributes
 * with them.  Errors: those of the path forms, EBADF for the fd after the
 * name and value checks.
 */
int uvfs_fd_setxattr(struct uvfs_proc *p, int fd, const char *name, const void *value, size_t size, int flags);
ssize_t uvfs_fd_getxattr(struct uvfs_proc *p, int fd, const char *name, void *value, size_t size);
ssize_t uvfs_fd_listxattr(struct uvfs_proc *p, int fd, char *list, size_t size);
int uvfs_fd_removexattr(struct uvfs_proc *p, int fd, const char *name);

/*
 * The *xattrat calls of Linux 6.13: the file is path relative to dfd (a
 * final symlink followed unless AT_SYMLINK_NOFOLLOW), or with AT_EMPTY_PATH
 * and path NULL or "", the file dfd itself, which may not be an O_PATH fd
 * (EBADF, as Linux 6.18).  setxattrat and getxattrat then walk "" from a
 * negative dfd (AT_FDCWD: the cwd); listxattrat and removexattrat take the
 * fd only (AT_FDCWD: EBADF), as Linux does.  The value, its size and the
 * flags come in struct uvfs_xattr_args, the layout of Linux's struct
 * xattr_args, whose size the caller passes as usize (a larger struct's
 * unknown tail must be zero).  Results and the later errors are those of
 * the path forms above.
 *
 * setxattrat: EINVAL (usize under 16), E2BIG (usize over 4096, or a
 * non-zero tail), EFAULT (args NULL), EINVAL (at_flags other than
 * AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH), then uvfs_setxattr's from
 * EINVAL (args flags) on, the name and size checked before the walk (or
 * EBADF for the fd).
 * getxattrat: the same usize and args errors, EINVAL (args flags not 0),
 * EINVAL (at_flags), EFAULT, ERANGE (name), the walk's (EBADF), then
 * uvfs_getxattr's; args value NULL with a size is EFAULT only when the
 * value exists, is not empty and fits.
 * listxattrat: EINVAL (at_flags), the walk's (EBADF), then
 * uvfs_listxattr's.  removexattrat: EINVAL (at_flags), EFAULT, ERANGE
 * (name), the walk's (EBADF), then uvfs_removexattr's.
 */
struct uvfs_xattr_args {
	uint64_t value; /* a pointer */
	uint32_t size;
	uint32_t flags; /* setxattrat: XATTR_CREATE, XATTR_REPLACE; getxattrat: 0 */
};
#define UVFS_XATTR_ARGS_SIZE_VER0 16
int uvfs_setxattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags, const char *name,
		    const struct uvfs_xattr_args *args, size_t usize);
ssize_t uvfs_getxattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags, const char *name,
			struct uvfs_xattr_args *args, size_t usize);
ssize_t uvfs_listxattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags, char *list,
			 size_t size);
int uvfs_removexattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags, const char *name);

/* ---- file locks ---- */
/* flock(2): LOCK_SH, LOCK_EX or LOCK_UN (<sys/file.h>), with LOCK_NB not to
 * wait.  The lock belongs to the open file (dups and fork copies share it),
 * is converted in place (the old one is dropped before the new one is
 * waited for) and goes at the file's last close.  Independent of fcntl's locks.  A wait cannot
 * be interrupted.  Errors, in order: EINVAL (any other op; LOCK_MAND is
 * ignored and returns 0), EBADF (fd; an O_PATH fd; a file opened for neither
 * reading nor writing, unless LOCK_UN), ENOMEM, EWOULDBLOCK (LOCK_NB and a
 * conflicting lock). */
int uvfs_flock(struct uvfs_proc *p, int fd, int op);
/* The proc's id within its instance (1 for the first proc made, then one
 * more for each uvfs_proc_create or uvfs_proc_clone): the l_pid that F_GETLK
 * reports for the proc's POSIX locks.  It is no host pid. */
pid_t uvfs_getpid(struct uvfs_proc *p);

/* ---- fallocate, SEEK_DATA/SEEK_HOLE ---- */
/* fallocate(2).  tmpfs takes mode 0, FALLOC_FL_KEEP_SIZE and
 * FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE; pages it reserves count in
 * st_blocks, read as zeros and are holes to SEEK_DATA until written.
 * Errors in Linux's order: EBADF (no fd, O_PATH); EINVAL (offset < 0, len
 * <= 0); EOPNOTSUPP (unknown mode bits, two operations, PUNCH_HOLE without
 * KEEP_SIZE, KEEP_SIZE with COLLAPSE_RANGE, INSERT_RANGE or WRITE_ZEROES);
 * EBADF (not open for writing); ESPIPE (pipe or FIFO); EISDIR; ENODEV (not
 * a regular file); EFBIG (offset + len past LLONG_MAX); EOPNOTSUPP (a mode
 * the filesystem does not do: ZERO_RANGE, COLLAPSE_RANGE, INSERT_RANGE,
 * UNSHARE_RANGE, WRITE_ZEROES on tmpfs); ENOSPC (the range is larger than
 * the size limit, or the pages are not there: nothing stays allocated);
 * ENOMEM.  Success updates mtime and ctime (a punched hole too), drops the
 * set-id bits of a caller that is not root and is an IN_MODIFY. */
int uvfs_fallocate(struct uvfs_proc *p, int fd, int mode, off_t offset, off_t len);

/* ---- copy_file_range, sendfile, splice, tee ---- */
/* copy_file_range(2) between two regular files, through the library's own
 * buffer.  off_in/off_out NULL: the files' positions are used and advanced;
 * otherwise *off_in and *off_out are, and the positions stay.  The length is
 * clipped at the source's end.  Errors in Linux's order: EBADF (fd_in,
 * then fd_out: no fd, O_PATH); EINVAL (flags not 0); EISDIR (either is a
 * directory); EINVAL (either is not a regular file); EBADF (fd_in not open
 * for reading, fd_out not for writing, or O_APPEND); EXDEV (two
 * superblocks: tmpfs copies within one); EOVERFLOW (an offset plus len
 * wraps, negative offsets included); EFBIG (*off_out at LLONG_MAX);
 * EINVAL (overlapping ranges of one file); EINVAL (a negative offset);
 * then the write's (ENOSPC, ...). */
ssize_t uvfs_copy_file_range(struct uvfs_proc *p, int fd_in, off_t *off_in, int fd_out, off_t *off_out,
			     size_t len, unsigned flags);
/* sendfile(2): from a regular file to any file open for writing (a pipe
 * or FIFO too).  offset NULL: in_fd's position is used and advanced.
 * Errors in Linux's order: EBADF (in_fd: no fd, O_PATH, not open for
 * reading); ESPIPE (an offset on a file without one); EINVAL (a negative
 * offset); EBADF (out_fd, or not open for writing); EOVERFLOW (offset at
 * LLONG_MAX); to a pipe: EPIPE (no reader), EAGAIN (full and O_NONBLOCK),
 * EINVAL (in_fd is not a regular file); to a file: EINVAL (O_APPEND, or
 * in_fd is not a regular file); then the write's. */
ssize_t uvfs_sendfile(struct uvfs_proc *p, int out_fd, int in_fd, off_t *offset, size_t count);
/* splice(2): one side must be a pipe or FIFO.  SPLICE_F_NONBLOCK (or
 * O_NONBLOCK on the pipe) does not wait; SPLICE_F_MOVE, SPLICE_F_MORE and
 * SPLICE_F_GIFT are hints.  Errors in Linux's order: 0 for len 0; EINVAL
 * (unknown flags); EBADF (fd_in, fd_out); ESPIPE (an offset for a pipe);
 * EBADF (fd_in not readable, fd_out not writable); EINVAL (the same pipe on
 * both sides, or no pipe at all); into a file: EINVAL (O_APPEND, a
 * negative offset); out of a file: EPIPE (no reader), EAGAIN (the pipe is
 * full), EINVAL (a negative offset, not a regular file); from a pipe:
 * EAGAIN (empty, with writers); 0 when empty with no writer. */
ssize_t uvfs_splice(struct uvfs_proc *p, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
		    unsigned flags);
/* tee(2): copies up to len bytes from one pipe to another, consuming
 * nothing.  Errors in Linux's order: EINVAL (unknown flags); 0 for len 0;
 * EBADF (fd_in, fd_out; not readable, not writable); EINVAL (not two
 * different pipes); EAGAIN (SPLICE_F_NONBLOCK or O_NONBLOCK, input empty
 * with writers or output full); EPIPE (no reader on the output). */
ssize_t uvfs_tee(struct uvfs_proc *p, int fd_in, int fd_out, size_t len, unsigned flags);

/* ---- epoll ---- */
/*
 * epoll(7) over uvfs fds, with Linux's results (include <sys/epoll.h> for
 * struct epoll_event and the EPOLL* constants).  An instance is an fd on the
 * anonymous inode inotify's instances share.  A watch is keyed by (file, fd):
 * it goes when the file is released, so after a dup and a close of the
 * watched fd it still reports (under the closed fd's data).  Pipes, FIFOs,
 * inotify and epoll fds can be watched; regular files and directories cannot
 * (they have no poll method: -EPERM, as on Linux).
 */
struct epoll_event;
/* epoll_create1(2): -EINVAL for flags other than EPOLL_CLOEXEC; -EMFILE,
 * -ENFILE, -ENOMEM. */
int uvfs_epoll_create1(struct uvfs_proc *p, int flags);
/* epoll_ctl(2), op EPOLL_CTL_ADD, EPOLL_CTL_MOD or EPOLL_CTL_DEL; event is
 * ignored for DEL.  Errors in the order checked: -EFAULT (a NULL event
 * unless op is DEL), -EBADF (epfd, then fd, not open or O_PATH), -EPERM (fd
 * cannot be polled: a regular file or directory), -EINVAL (fd is epfd's
 * file, or epfd is not an epoll fd), -EINVAL (EPOLLEXCLUSIVE with MOD, or
 * with ADD of an epoll fd or with bits other than EPOLLIN, EPOLLOUT,
 * EPOLLERR, EPOLLHUP, EPOLLWAKEUP, EPOLLET), -ELOOP (ADD of an epoll fd that
 * would make a cycle or a chain of more than 5 instances), -EEXIST (ADD
 * of a watched fd), -ENOENT (MOD or DEL of an unwatched one), -EINVAL (MOD
 * of a watch added with EPOLLEXCLUSIVE; an unknown op), -ENOMEM.
 * EPOLLERR and EPOLLHUP are always reported (a pipe whose writers are gone
 * reports EPOLLHUP, never EPOLLRDHUP, as on Linux); EPOLLWAKEUP is accepted
 * and has no effect. */
int uvfs_epoll_ctl(struct uvfs_proc *p, int epfd, int op, int fd, struct epoll_event *event);
/* epoll_wait(2): up to maxevents ready watches, waiting up to timeout_ms
 * (< 0: no limit; 0: no wait) when none is.  Errors in the order checked:
 * -EBADF, -EINVAL (maxevents <= 0 or above INT_MAX / sizeof(struct
 * epoll_event), or not an epoll fd), -EFAULT (events NULL with an event to
 * report).  Never -EINTR: uvfs waits are not ended by signals. */
int uvfs_epoll_wait(struct uvfs_proc *p, int epfd, struct epoll_event *events, int maxevents, int timeout_ms);
/* epoll_pwait(2): as uvfs_epoll_wait, with the calling thread's signal mask
 * set to *sigmask (pthread_sigmask) for the length of the call when sigmask
 * is not NULL.  The wait does not end when a signal is delivered. */
int uvfs_epoll_pwait(struct uvfs_proc *p, int epfd, struct epoll_event *events, int maxevents, int timeout_ms,
		     const sigset_t *sigmask);
/* A host fd (an eventfd, made on the first call, the same one every time)
 * that is readable while the instance may have events to report, for an
 * embedder's own event loop: when it polls readable, call uvfs_epoll_wait
 * with timeout 0; it stays readable until a wait leaves nothing ready.
 * Owned by the instance: valid until the epoll file is released; never
 * close or read it.  -EBADF, -EINVAL (not an epoll fd), -EMFILE or -ENFILE
 * (host eventfd). */
int uvfs_epoll_hostfd(struct uvfs_proc *p, int epfd);

/* ---- credentials ---- */
/* Real, effective and saved ids of a proc, as setresuid(2) and setresgid(2):
 * (uid_t)-1 or (gid_t)-1 keeps an id; the fs id (the one permission checks
 * use) follows the effective one.  faccessat without AT_EACCESS checks the
 * real ids, with it the effective ones.  A proc whose effective uid is not 0
 * may only set each id to its current real, effective or saved one.  Safe
 * against calls of other threads into the same proc: a call runs with the
 * ids it found at its start.  Errors: -EPERM, -ENOMEM. */
int uvfs_proc_setresuid(struct uvfs_proc *p, uid_t ruid, uid_t euid, uid_t suid);
int uvfs_proc_setresgid(struct uvfs_proc *p, gid_t rgid, gid_t egid, gid_t sgid);

/* ---- file handles ---- */
/* name_to_handle_at(2) and open_by_handle_at(2) (struct file_handle of
 * <fcntl.h> with _GNU_SOURCE).  A handle names an inode of a tmpfs by its
 * number (never reused in an instance; the generation is 0) and stays valid
 * while the inode has a name: after it is gone, or for an unlinked file
 * still open (which Linux's tmpfs opens), open_by_handle_at gives -ESTALE.
 * On hostfs (the library as root) a handle is the host's, and names an
 * object uvfs has met below the mount's root and still caches.
 * *mount_id is the value statx's STATX_MNT_ID gives.
 * name_to_handle_at flags: AT_SYMLINK_FOLLOW, AT_EMPTY_PATH, AT_HANDLE_FID.
 * Errors: -EINVAL (flags); the walk's (-ENOENT, -ENOTDIR, -EACCES, ...);
 * -EOPNOTSUPP (not a tmpfs or hostfs, without AT_HANDLE_FID); -EFAULT
 * (handle NULL); -EINVAL (handle_bytes above 128); -EOVERFLOW (handle_bytes
 * too small: set to the size needed, 12 on a tmpfs); -EFAULT (mount_id
 * NULL). */
struct file_handle;
int uvfs_name_to_handle_at(struct uvfs_proc *p, int dirfd, const char *path, struct file_handle *handle,
			   int *mount_id, int flags);
/* mount_fd: any fd but an O_PATH one (or AT_FDCWD) on the mount whose
 * filesystem the handle is of; flags as open's (O_CREAT creates nothing;
 * O_PATH drops the flags it does not take).  Errors: -EFAULT (handle NULL);
 * -EINVAL (handle_bytes 0 or above 128, a negative handle_type or unknown
 * type flags); -EBADF (mount_fd, an O_PATH fd too); -EPERM (fsuid not 0:
 * Linux's CAP_DAC_READ_SEARCH); -ESTALE (no inode of that number and
 * generation with a name, or a filesystem without handles); -EEXIST
 * (O_CREAT|O_EXCL); then the open's (-ENOTDIR for O_DIRECTORY, -EACCES,
 * -EISDIR, ...). */
int uvfs_open_by_handle_at(struct uvfs_proc *p, int mount_fd, struct file_handle *handle, int flags);

/* ---- vectored I/O at an offset; advice and writeback ---- */
/* preadv(2), pwritev(2): readv/writev at off, the file position unchanged
 * (an O_APPEND file is written at its end, as on Linux).  Errors in Linux's
 * order: EINVAL (off < 0); EBADF (fd, O_PATH, or not open for the
 * direction); ESPIPE (a pipe or FIFO); EINVAL (a file that cannot be read
 * or written); EINVAL (iovcnt outside 0..1024, a segment length or total
 * above what ssize_t holds); EFAULT (iov NULL, a NULL base with a length);
 * then nothing more for an empty vector (0); EISDIR (a directory);
 * EINVAL (the range ends past the largest offset); then the transfer's. */
ssize_t uvfs_preadv(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off);
ssize_t uvfs_pwritev(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off);
/* preadv2(2), pwritev2(2): as preadv/pwritev, off -1 meaning the file
 * position (which then moves, as readv/writev; a pipe or FIFO takes only
 * -1), and flags the RWF_* of <linux/fs.h>: RWF_HIPRI, RWF_DSYNC and
 * RWF_SYNC (accepted: nothing to write back), RWF_NOWAIT (a pipe read or
 * write that would wait is -EAGAIN), RWF_APPEND (this write at the end),
 * RWF_NOAPPEND (0x20: this write at off though the file is O_APPEND).
 * The flags are checked after the vector and the range, as Linux's
 * kiocb_set_rw_flags: EOPNOTSUPP (an unknown bit; RWF_ATOMIC 0x40 and
 * RWF_DONTCACHE 0x80, which tmpfs lacks; on a file that is neither
 * regular nor a pipe, any flag but RWF_HIPRI), EINVAL (RWF_APPEND with
 * RWF_NOAPPEND), EPERM (RWF_NOAPPEND on an append-only file opened
 * O_APPEND).  An empty vector returns 0 before any of them. */
ssize_t uvfs_preadv2(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off, int flags);
ssize_t uvfs_pwritev2(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off, int flags);
/* posix_fadvise(2), returning -errno (glibc's wrapper returns the error
 * number): EBADF (fd, O_PATH); ESPIPE (a pipe or FIFO); EINVAL (len < 0);
 * EINVAL (advice not one of POSIX_FADV_*).  The advice changes nothing a
 * caller can see (as on Linux's tmpfs). */
int uvfs_posix_fadvise(struct uvfs_proc *p, int fd, off_t off, off_t len, int advice);
/* readahead(2): EBADF (fd, O_PATH, not open for reading); EINVAL (not a
 * regular file; count above LLONG_MAX).  Nothing to read ahead: 0. */
ssize_t uvfs_readahead(struct uvfs_proc *p, int fd, off_t off, size_t count);
/* syncfs(2): EBADF (fd, O_PATH); else 0 (data is in memory, or written
 * through to the host at each call by hostfs). */
int uvfs_syncfs(struct uvfs_proc *p, int fd);
/* sync_file_range(2): EBADF (fd, O_PATH); EINVAL (flags outside
 * SYNC_FILE_RANGE_WAIT_BEFORE | _WRITE | _WAIT_AFTER, off < 0, off + nbytes
 * negative or before off); ESPIPE (not a regular file, directory or
 * symlink); else 0. */
int uvfs_sync_file_range(struct uvfs_proc *p, int fd, off_t off, off_t nbytes, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* UVFS_H */
