/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - what the files of the FUSE frontend share: libfuse3 low-level
 * requests mapped onto the public uvfs API.  Not installed; the public
 * interface is uvfs_fuse.h.
 *
 * Nodes.  The kernel names inodes by a 64-bit nodeid and counts how many times
 * it was told about each one (lookup count).  For every inode the kernel knows,
 * the frontend keeps a struct uf_node holding an O_PATH|O_NOFOLLOW fd in the
 * fd table that all the frontend's procs share; the nodeid is the inode
 * number plus one (the root is FUSE_ROOT_ID; see node_id for other
 * filesystems).  A hash keyed by (st_dev, st_ino) finds the node of an inode
 * that is looked up again, and the node of a nodeid.  uvfs never reuses an
 * inode number, so the generation is always 0 and a nodeid names one inode
 * for the life of the mount: after forget (at zero the node and its fd go)
 * the kernel can still ask for it by a lookup of "." (file handles).
 *
 * Requests act through the node fds: *at() calls relative to the parent's fd,
 * AT_EMPTY_PATH on the node's own fd, uvfs_fd_reopen to open a node.
 *
 * Credentials.  Each worker thread has its own uvfs proc, a clone of the base
 * proc that shares its fd table (UVFS_CLONE_FILES).  Each request first sets
 * that proc's fsuid/fsgid (and, for creating requests, the umask) to those of
 * the calling process, so uvfs makes every permission decision as Linux would.
 * Supplementary groups cost a read of /proc/PID/task/PID/status, so they are
 * fetched only when a request fails with EACCES or EPERM as the primary group
 * (it is then retried: a failed call had no effect), or when the outcome of a
 * successful call depends on them (a mode with S_ISGID).
 *
 * Caching and permissions.  Without -o default_permissions the kernel checks
 * nothing when it walks a path through dentries it has cached, so a cached
 * name would be reachable by a process that may not search its directory.
 * Hence a name is cached (entry_timeout > 0) only when its directory is
 * searchable by everybody (all three x bits); otherwise every walk through it
 * comes back here as a lookup made with the walker's credentials.  When a
 * directory loses an x bit (chmod) or a name is moved into such a directory,
 * the affected names are invalidated by the notifier thread, after the reply
 * (invalidating from inside the request that holds the directory lock would
 * deadlock).  With -o default_permissions the kernel checks cached modes
 * itself and the timeouts apply to every name.
 *
 * Changes made by other procs of the instance (an embedding application)
 * reach the frontend through uvfs's change hook (-o watch, the default when
 * embedding): see hook.c.
 *
 * Lock order: uf->nlock (node hash) is a leaf; no uvfs call is made while
 * holding it except uvfs_fd_reopen of a pinned node in the notifier.
 * uf_dir.lock serialises one directory stream.  uf->tlock protects the list of
 * thread states; uf->qlock the notifier queue.  uf->flock (the nodes' kept
 * files and their LRU) is a leaf too: files are opened and closed outside it.
 *
 * The files, one concern each:
 *   cred.c       worker threads, their procs, the caller's credentials
 *   nodes.c      the node table (nodeids, lookup counts, pins)
 *   node_files.c the nodes' files for no-open I/O and their bound (an LRU)
 *   entry.c      attribute and entry replies, name timeouts
 *   notifier.c   the notifier thread and its queue of invalidations
 *   hook.c       exact invalidation: the change hook, the seam
 *   ops.c        INIT and the table of low-level operations
 *   ops_names.c  lookup, forget and the requests that make or remove names
 *   ops_attrs.c  getattr, setattr, readlink, statfs, access
 *   ops_files.c  open, create, read, write, release, fsync, lseek
 *   ops_dirs.c   opendir, readdir(plus), releasedir, fsyncdir
 *   ops_xattr.c  getxattr, setxattr, listxattr, removexattr
 *   ops_locks.c  getlk, setlk(w), flock, and flush for the locks (-o locks)
 *   options.c    option parsing, the instance's tmpfs options, --help
 *   session.c    mount, setup, loop, exit, teardown (uvfs_fuse.h)
 */
#ifndef UVFS_FUSE_INTERNAL_H
#define UVFS_FUSE_INTERNAL_H

#define FUSE_USE_VERSION 312
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/statvfs.h>
#include <poll.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include <uvfs.h>
#include "uvfs_fuse.h"

/* The kernel marks the open of execve(2) with __FMODE_EXEC in the flags. */
#define UF_FMODE_EXEC 0x20

/* Open flags handed on to uvfs; the rest is the kernel's business
 * (O_LARGEFILE, __FMODE_EXEC, O_DIRECT: the kernel does direct I/O with
 * ordinary read/write requests), or is dealt with here (O_CREAT, O_EXCL).
 * Not O_APPEND: the kernel turns an O_APPEND write into a write at the end
 * itself, and only it sees fcntl(F_SETFL) turn O_APPEND off and on again. */
#define UF_OPEN_FLAGS (O_ACCMODE | O_NONBLOCK | O_DSYNC | O_SYNC | O_NOATIME | O_TRUNC)

#define UF_MAX_GROUPS 64

/* A record of uvfs_getdents64: struct linux_dirent64 of getdents64(2). */
struct uf_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct uf_node {
	struct uf_node *hnext;
	dev_t dev;
	ino_t ino;
	uint64_t nlookup; /* under uf->nlock */
	unsigned pins;    /* notifier references; under uf->nlock */
	int fd;           /* O_PATH|O_NOFOLLOW, in the shared fd table */
	/* the node's files for no-open I/O (node_files.c), under uf->flock */
	int iofd;         /* read-write (or read-only) file; -1 until needed or once closed */
	int rdfd;         /* read-only file for reads while iofd is -1 */
	unsigned users;   /* requests using iofd or rdfd: they stay open meanwhile */
	struct uf_node *lru_prev, *lru_next; /* in uf->lru while it holds a file */
	bool is_root;
	bool on_root_fs; /* dev is the root's: the nodeid is ino + 1 (node_id) */
	bool hashed;
};

struct uf_thread {
	struct uvfs_fuse *uf;
	struct uvfs_proc *p;
	uid_t uid;
	gid_t gid;
	int ngroups;          /* supplementary groups set on p; -1: UVFS_GROUPS_UNKNOWN */
	bool groups_tried;    /* this request already fetched them */
	fuse_req_t req;
	char *buf;
	size_t bufsz;
	struct uf_thread *next, *prev;
};

/* A directory stream.  Nothing is buffered between requests: each one
 * seeks to the kernel's offset (a d_off cookie uvfs gave) and reads afresh,
 * so that names created or removed in between show as on Linux. */
struct uf_dir {
	pthread_mutex_t lock;
	int fd;
};

/*
 * File handles: a regular file's fi->fh is its uvfs fd plus one; 0 is no
 * handle at all (the kernel opened the file without asking: no-open, see
 * ops_files.c), and I/O then goes through the node's own file
 * (uf_node_file).  A directory's is its struct uf_dir, tagged with the top
 * bit (never set in a user-space address).  The kernel hands a directory's
 * handle to setattr too (fchmod, fchown, futimens on a directory fd), so
 * every user of fi->fh goes through fh_fd().
 */
#define UF_FH_DIR (1ULL << 63)

static inline uint64_t dir_fh(struct uf_dir *d)
{
	return (uint64_t)(uintptr_t)d | UF_FH_DIR;
}

static inline struct uf_dir *fh_dir(const struct fuse_file_info *fi)
{
	return (struct uf_dir *)(uintptr_t)(fi->fh & ~UF_FH_DIR);
}

static inline uint64_t file_fh(int fd)
{
	return (uint64_t)fd + 1;
}

static inline int fh_fd(const struct fuse_file_info *fi)
{
	return (fi->fh & UF_FH_DIR) ? fh_dir(fi)->fd : (int)fi->fh - 1;
}

/* fi when it carries a handle of ours, else NULL (none, or no-open's 0) */
static inline struct fuse_file_info *fi_open(struct fuse_file_info *fi)
{
	return fi && fi->fh ? fi : NULL;
}

enum uf_qkind { UF_Q_ENTRY, UF_Q_INODE, UF_Q_WAKEUP };

/* A library call waiting in the change hook for its invalidations; held by
 * the waiter and by each of its items (it may give up waiting first). */
struct uf_wait {
	unsigned left; /* items not yet done; under uf->qlock */
	unsigned refs; /* under uf->qlock */
};

struct uf_qitem {
	struct uf_qitem *next;
	struct uf_wait *w; /* or NULL */
	enum uf_qkind kind;
	dev_t dev;
	ino_t ino;      /* the directory (ENTRY) or the inode */
	char name[];    /* ENTRY */
};

struct uf_opts {
	char *size;
	char *nr_inodes;
	char *uid;
	char *gid;
	char *mode;
	double entry_timeout;
	double attr_timeout;
	double negative_timeout;
	int default_permissions;
	int keep_cache;
	int watch;
	int epoch; /* -1: where the kernel has it */
	int writeback;
	unsigned long atime_flags; /* MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_STRICTATIME */
	char *hostdir; /* -o hostdir=DIR: the tree is DIR through hostfs */
	char *lowerdir, *upperdir, *workdir; /* an overlay of host directories (layers.c) */
	int xattr;     /* -o noxattr: 0, xattr requests answered ENOSYS (ops_xattr.c) */
	int locks;     /* -o locks: uvfs keeps the mount's locks (ops_locks.c); -1: when embedding */
	unsigned given; /* UF_GIVEN_*: set by an option, not by uf_cache_defaults */
	unsigned spin_us; /* -o spin=US: a worker's reads before it sleeps (devio.c) */
};

#define UF_GIVEN_ENTRY      1u
#define UF_GIVEN_ATTR       2u
#define UF_GIVEN_NEGATIVE   4u
#define UF_GIVEN_KEEP_CACHE 8u
#define UF_GIVEN_ATIME      16u

/* The timeouts when the frontend's invalidation is exact (a day; the kernel
 * drops what it cached as soon as it is told), and the largest accepted. */
#define UF_LONG_TIMEOUT 86400.0
#define UF_LK_BUCKETS 64 /* lock owners' table (ops_locks.c) */
#define UF_MAX_TIMEOUT  (10 * 365 * 86400)
#define UF_DEFAULT_SPIN_US 50
#define UF_MAX_SPIN_US 1000000

struct uvfs_fuse {
	struct uvfs *fs;
	bool own_fs;
	struct uvfs_proc *base;
	struct fuse_session *se;
	struct fuse_cmdline_opts cmd;
	struct uf_opts o;
	char *mountpoint;
	char *wakeup;     /* a name in the mount whose lookup wakes the loop */
	bool mounted;
	bool set_up;
	bool dont_mask;   /* the kernel hands us the umask */
	bool exact;       /* every change reaches the frontend (uf_cache_defaults) */
	bool no_open;     /* the kernel opens files without asking (uf_init) */
	bool writeback;   /* FUSE_CAP_WRITEBACK_CACHE (uf_init) */
	bool epoch;       /* the kernel takes FUSE_NOTIFY_INC_EPOCH (epoch.c; set at mount) */
	/* devio.c: the INIT request's unique, the flags the kernel offered and
	 * those to add to the reply */
	bool init_seen, init_replied;
	uint64_t spin_ns; /* devio.c: 0, or the fd is non-blocking and reads spin this long */
	/* the nodes' files kept (nodes.c), least recently used last, and
	 * their bound; under flock (node_files.c) */
	pthread_mutex_t flock;
	struct uf_node *lru_head, *lru_tail;
	unsigned nfiles, max_files;
	uint64_t init_unique;
	uint32_t init_offered, init_extra;

	struct uf_node *root;
	pthread_mutex_t nlock;
	struct uf_node **htab;
	size_t hsize, hcount;

	pthread_key_t key;
	bool key_made;
	pthread_mutex_t tlock;
	struct uf_thread *threads;

	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct uf_qitem *qhead, **qtail;
	bool qstop;
	bool qthread_running;
	pthread_t qthread;
	struct uvfs_proc *qproc;

	pthread_cond_t qdone;  /* an item of a uf_wait is done */

	/* -o watch: the change listener is installed (hook.c) */
	bool hooked;
	struct uvfs_change_listener *listener;
	bool exiting;          /* uvfs_fuse_exit: the hook lets changes be */
	unsigned long change_gen; /* other procs' changes seen by the hook (atomic) */

	/* -o locks (ops_locks.c): the kernel's lock owners' files, under its lk_lock */
	bool locks;
	struct uf_lkowner *lk[UF_LK_BUCKETS];
};

#define BEGIN(req)                                    \
	struct uf_thread *t = uf_req_begin(req);      \
	if (!t)                                       \
		return

/* Evaluate a uvfs call; if it was refused, retry once with the caller's
 * supplementary groups. */
#define RETRY_GROUPS(t, r, expr)                                                  \
	do {                                                                      \
		(r) = (expr);                                                     \
		if (((r) == -EACCES || (r) == -EPERM) && uf_req_groups(t))        \
			(r) = (expr);                                             \
	} while (0)

/*
 * Nodeids.  A node on the root's filesystem is named by its inode number
 * plus one (the root is FUSE_ROOT_ID), which uvfs never reuses: the kernel
 * can put it in a file handle (FUSE_CAP_EXPORT_SUPPORT), and after it
 * forgot the inode ask for it again with a lookup of "." in that nodeid,
 * which finds the inode by its number (uvfs_open_by_handle_at; see
 * uf_lookup).  A node on another filesystem (a mount made through the
 * library) is named by its address with the top bit set: such handles go
 * stale when the kernel forgets the node.
 */
#define UF_NID_ADDR (1ULL << 63)

static inline fuse_ino_t node_id(const struct uf_node *n)
{
	if (n->is_root)
		return FUSE_ROOT_ID;
	return n->on_root_fs ? (fuse_ino_t)n->ino + 1 : (fuse_ino_t)(uintptr_t)n | UF_NID_ADDR;
}

struct uf_node *uf_node_by_id(struct uvfs_fuse *uf, fuse_ino_t id);

/* The node of a nodeid the kernel holds (it has not forgotten it). */
static inline struct uf_node *N(fuse_req_t req, fuse_ino_t ino)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);

	if (ino == FUSE_ROOT_ID)
		return uf->root;
	if (ino & UF_NID_ADDR)
		return (struct uf_node *)(uintptr_t)(ino & ~UF_NID_ADDR);
	return uf_node_by_id(uf, ino);
}

static inline bool searchable_by_all(mode_t mode)
{
	return (mode & 0111) == 0111;
}

/* cred.c */
void uf_thread_free(struct uf_thread *t);
void uf_thread_key_dtor(void *arg);
struct uf_thread *uf_thread_self(struct uvfs_fuse *uf);
void uf_set_cred(struct uf_thread *t, uid_t uid, gid_t gid);
struct uf_thread *uf_req_begin(fuse_req_t req);
void uf_req_umask(struct uf_thread *t);
bool uf_req_groups(struct uf_thread *t);
char *uf_thread_buf(struct uf_thread *t, size_t size);

/* nodes.c */
struct uf_node *uf_hash_find(struct uvfs_fuse *uf, dev_t dev, ino_t ino);
void uf_hash_insert(struct uvfs_fuse *uf, struct uf_node *n);
struct uf_node *uf_node_get(struct uf_thread *t, const struct stat *st, int fd);
void uf_node_free(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n);
void uf_node_forget(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n, uint64_t count);
struct uf_node *uf_node_pin(struct uvfs_fuse *uf, dev_t dev, ino_t ino);
struct uf_node *uf_node_by_handle(struct uf_thread *t, fuse_ino_t id);

/* node_files.c */
unsigned uf_node_files_bound(const struct uvfs_fuse *uf);
int uf_node_file(struct uf_thread *t, struct uf_node *n, bool write);
void uf_node_file_put(struct uvfs_fuse *uf, struct uf_node *n);
void uf_node_files_close(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n);
bool uf_node_looked_up(struct uvfs_fuse *uf, struct uf_node *n);
void uf_node_unpin(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n);

/* entry.c */
int uf_stat_fd(struct uvfs_proc *p, int fd, struct stat *st);
double uf_name_timeout(struct uf_thread *t, struct uf_node *dir, double timeout);
void uf_fill_entry(struct uf_thread *t, struct fuse_entry_param *e, struct uf_node *n,
		   const struct stat *st, double entry_timeout);
int uf_lookup_at(struct uf_thread *t, struct uf_node *dir, const char *name,
		 struct fuse_entry_param *e, double entry_timeout);
void uf_reply_entry(struct uf_thread *t, fuse_req_t req, struct fuse_entry_param *e);
void uf_reply_new_name(struct uf_thread *t, fuse_req_t req, struct uf_node *dir, const char *name);

/* epoch.c */
int uf_inc_epoch(struct uvfs_fuse *uf);
void uf_names_closed(struct uvfs_fuse *uf);

/* notifier.c */
void uf_queue_push_wait(struct uvfs_fuse *uf, enum uf_qkind kind, dev_t dev, ino_t ino, const char *name,
			struct uf_wait *w);
void uf_queue_push(struct uvfs_fuse *uf, enum uf_qkind kind, dev_t dev, ino_t ino, const char *name);
void uf_item_done(struct uvfs_fuse *uf, struct uf_qitem *q);
void uf_queue_node(struct uvfs_fuse *uf, enum uf_qkind kind, struct uf_node *n, const char *name);
void *uf_notifier_main(void *arg);
void uf_notifier_stop(struct uvfs_fuse *uf);

/* hook.c */
int uf_hook_install(struct uvfs_fuse *uf);
void uf_hook_remove(struct uvfs_fuse *uf);

/* ops.c and the handlers, by family */
extern const struct fuse_lowlevel_ops uf_ops;
/* devio.c */
int uf_devio_install(struct uvfs_fuse *uf);
void uf_devio_want(struct uvfs_fuse *uf, struct fuse_conn_info *conn);

/* loop.c */
int uf_loop_mt(struct uvfs_fuse *uf, unsigned max_threads);

/* layers.c */
int uf_check_layers(struct uvfs_fuse *uf);
int uf_mount_layers(struct uvfs_fuse *uf);

void uf_init(void *userdata, struct fuse_conn_info *conn);
void uf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void uf_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void uf_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);
void uf_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void uf_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void uf_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void uf_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void uf_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void uf_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void uf_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
	       const char *newname, unsigned int flags);
void uf_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		struct fuse_file_info *fi);
void uf_readlink(fuse_req_t req, fuse_ino_t ino);
void uf_statfs(fuse_req_t req, fuse_ino_t ino);
void uf_access(fuse_req_t req, fuse_ino_t ino, int mask);
void uf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       struct fuse_file_info *fi);
void uf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void uf_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
	      struct fuse_file_info *fi);
void uf_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void uf_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi);
void uf_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length, struct fuse_file_info *fi);
void uf_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, struct fuse_file_info *fi_in,
			fuse_ino_t ino_out, off_t off_out, struct fuse_file_info *fi_out, size_t len, int flags);
void uf_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void uf_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi);
void uf_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
/* ops_locks.c */
void uf_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock);
void uf_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock, int sleep);
void uf_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op);
void uf_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi, unsigned flags,
	      const void *in_buf, size_t in_bufsz, size_t out_bufsz); /* ops_ioctl.c */
void uf_locks_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void uf_locks_free(struct uvfs_fuse *uf);
/* ops_xattr.c */
void uf_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void uf_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void uf_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size, int flags);
void uf_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

/* options.c */
extern const struct fuse_opt uf_optspec[];
int uf_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs);
int uf_make_instance(struct uvfs_fuse *uf, bool create);
void uf_cache_defaults(struct uvfs_fuse *uf);
int uf_apply_atime(struct uvfs_fuse *uf);
void uf_apply_host_atime(struct uvfs_fuse *uf);

#endif /* UVFS_FUSE_INTERNAL_H */
