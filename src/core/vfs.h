/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vfs.h - the objects of the VFS core and the interfaces between its layers.
 *
 * Each type names the Linux structure it mirrors.  Lifetimes and locks are
 * summarised in docs/ARCHITECTURE.md; the lock order is:
 *
 *   ns_lock (mount tree)  >  rename_mutex  >  dir i_rwsem (parent before child;
 *   two unrelated dirs by address)  >  inode i_rwsem of a non-directory  >
 *   files->file_lock  >  i_lock  >  dcache bucket lock
 *
 * fs->lock (root, cwd, the writers of fs->seq) and p->cred_lock (a proc's
 * cred changes) are taken with none of these held.
 *
 * Readers of the dentry hash, the mount hash, fd tables and inode fields on
 * the path walk take no lock: they run under rcu_read_lock() and validate
 * with vfs->rename_seq (bumped by rename, mount and umount); a proc's root
 * and cwd are read under its fs_struct's own seq (chdir, chroot).
 */
#ifndef UVFS_CORE_VFS_H
#define UVFS_CORE_VFS_H

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <time.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <linux/openat2.h>
#include <linux/close_range.h>
#include <sys/statvfs.h>

/* The read-side primitives inline into our code (LGPL static inlines), so a
 * read-side section is a thread-local increment, not two library calls. */
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>

#include "../lib/compiler.h"
#include "../lib/list.h"
#include "../lib/seqcount.h"
#include "../lib/counter.h"
#include "../lib/hash.h"
#include "../lib/spinlock.h"
#include "../lib/race.h"
#include "../lib/debug.h"
#include "uvfs.h"
#include "wait.h"
#include "filesystems.h"
#include "inode_lock.h"

/* The two sides of an asymmetric barrier (task.c): smp_mb_light() on the
 * hot side pairs with smp_mb_heavy() on the rare one. */
extern int membarrier_state;
void membarrier_init(void);
void smp_mb_heavy(void);
static __always_inline void smp_mb_light(void)
{
	if (likely(__atomic_load_n(&membarrier_state, __ATOMIC_RELAXED) > 0))
		barrier();
	else
		smp_mb();
}

typedef mode_t umode_t;
#define S_IRWXUGO (S_IRWXU | S_IRWXG | S_IRWXO)
#define S_IALLUGO (S_ISUID | S_ISGID | S_ISVTX | S_IRWXUGO)
struct super_block;
struct inode;
struct dentry;
struct file;
struct mount;
struct uvfs_task;
struct dir_context;
struct posix_acl;
struct dentry_operations;
struct kstat;
struct offset_ctx;
struct iattr;

/* ---- names (struct qstr) ---- */
/* A dentry's name; replaced whole on rename and freed after a grace period,
 * so a lockless reader that loaded the pointer sees a consistent name. */
struct dname {
	uint32_t hash;
	uint32_t len;
	struct rcu_head rcu;
	char name[]; /* NUL terminated */
};
struct qstr {
	const char *name;
	uint32_t len;
	uint32_t hash;
};

/* ---- credentials (struct cred, reduced to what the VFS checks) ---- */
/*
 * Immutable once published: a proc's cred is replaced whole (cred.c,
 * commit_creds) and the old one is put after a grace period, so a call reads
 * its proc's cred once at entry and uses that one to the end (api.h).
 * Permission checks use the fs ids; access(2) without AT_EACCESS the real
 * ones.  A cred is published in at most one proc.
 */
#define UVFS_NGROUPS_MAX 64
struct cred {
	long usage; /* atomic: the proc's, files' (f_cred) and threads' pins */
	uid_t uid, euid, suid, fsuid;
	gid_t gid, egid, sgid, fsgid;
	int ngroups;
	gid_t groups[UVFS_NGROUPS_MAX];
	unsigned long long serial; /* unique in the process, never reused: the path cache's key (pathcache.c) */
	struct rcu_head rcu;
};
static inline bool cred_is_root(const struct cred *c) { return c->fsuid == 0; }
bool in_group_p(const struct cred *c, gid_t gid);
struct uvfs_proc;
struct cred *cred_new(uid_t uid, gid_t gid);     /* every id uid/gid, no groups */
struct cred *cred_dup(struct uvfs_proc *p);       /* a copy of p's, for a new proc */
void proc_cred_release(struct uvfs_proc *p);      /* the proc's reference, after a grace period */

/* ---- the instance (the kernel) ---- */
#define D_HASH_BITS 16
struct dcache_bucket_lock {
	spinlock_t m; /* held for a list update only (dcache.c) */
} ____cacheline_aligned;
#define D_HASH_LOCKS 64

struct uvfs {
	struct hlist_head *d_hash; /* dentry hash, 1 << D_HASH_BITS buckets */
	struct dcache_bucket_lock d_hash_locks[D_HASH_LOCKS];
	seqcount_t rename_seq;        /* bumped by rename, mount, umount; under seq_lock */
	pthread_mutex_t rename_mutex; /* cross-directory renames (Linux's s_vfs_rename_mutex) */
	pthread_mutex_t seq_lock;     /* serialises rename_seq writers (Linux's rename_lock) */

	pthread_mutex_t ns_lock; /* mount tree */
	struct hlist_head *m_hash; /* mounts hashed by (parent mount, mountpoint) */
	struct mount *root_mnt;
	struct list_head mounts; /* every mount, for destroy */
	struct list_head supers;

	struct pcounter nr_files;
	unsigned long max_files;
	long nr_negative; /* negative dentries kept, approximately */

	uint64_t next_ino;
	unsigned next_dev;
	struct super_block *pipe_sb;

	pthread_mutex_t procs_lock;
	struct list_head procs;
	pid_t last_pid; /* under procs_lock */
	struct uvfs_options opts;
	struct uvfs_notify *notify; /* inotify's state, made by the first inotify_init1 (notify/inotify.c) */
	struct uvfs_change_hook *change_hook; /* uvfs_set_change_hook's, made by its first call (notify/change.c) */
	pthread_mutex_t fs_types_lock;
	struct filesystem_entry *fs_types; /* the registry (filesystems.c) */

	/* @area hostwatch */
	long nr_fsnotify_sources; /* outside changes to read in before inotify reads (notify/external.c) */
	/* @area fusefile */

	/* @area boundary */

	/* @area walk */
	struct pathcache *pcache; /* whole-path lookup cache (pathcache.c); NULL with -Dpath_cache=false */

	/* @area create */
	uint64_t ino_id; /* names this instance to the threads' runs of inode numbers (inode.c) */
};

/* ---- super_block ---- */
#define SB_RDONLY 1u
#define SB_NOATIME 2u
#define SB_KERNMOUNT 4u /* internal, never reached by a path (pipefs) */
#define SB_EXPORT 8u /* file handles open its inodes (fhandle.c): every inode has a dentry in the tree */

struct super_operations {
	struct inode *(*alloc_inode)(struct super_block *sb);
	void (*destroy_inode)(struct inode *inode); /* after a grace period */
	void (*evict_inode)(struct inode *inode);   /* last link and last reference gone */
	int (*statfs)(struct super_block *sb, struct statfs *buf);
	int (*remount)(struct super_block *sb, const char *data);
	void (*put_super)(struct super_block *sb);

	/* The superblock's last mount went and its inodes are evicted: the
	 * filesystem lets go of its state now (put_super, after a grace
	 * period, frees what lockless readers may still see). */
	void (*kill_sb)(struct super_block *sb);

	/* @area hostwatch */
	/* Optional, first thing when the last mount went, before its dentries
	 * and inodes go: a filesystem stops what runs on its own (hostfs
	 * cache=watch joins its thread) and takes no new inode reference. */
	void (*shutdown)(struct super_block *sb);
	/* Optional file handles of the filesystem's own making (hostfs: the
	 * host's), instead of fhandle.c's layout.  encode_fh: inode's handle
	 * in fh (at most *bytes bytes): its type with *bytes set, -EOVERFLOW
	 * with *bytes the size needed, or -errno.  fh_to_ino: the number of
	 * the inode a handle names, which fhandle.c then finds in the dentry
	 * tree as for SB_EXPORT; -errno (ESTALE: it names nothing). */
	int (*encode_fh)(struct inode *inode, unsigned char *fh, unsigned *bytes);
	int (*fh_to_ino)(struct super_block *sb, const unsigned char *fh, unsigned bytes, int type, uint64_t *ino);
	/* @area fusefile */

	/* @area boundary */

	/* @area walk */

	/* @area create */
	/* Instead of destroy_inode, for an evicted inode that holds nothing
	 * else to free (no ACL, lock context or link body): the memory goes
	 * back to the filesystem, to be reused after a grace period. */
	void (*recycle_inode)(struct inode *inode);

};

struct super_block {
	const struct super_operations *s_op;
	unsigned long s_magic;
	unsigned s_flags;
	dev_t s_dev;
	struct dentry *s_root;
	struct uvfs *s_uvfs;
	long s_active; /* mounts of this sb, under ns_lock */
	long s_fsnotify_watchers; /* watched objects on this sb (fsnotify) */
	void *s_fs_info;
	/* the dentry operations of every dentry of this sb (d_alloc), or NULL */
	const struct dentry_operations *s_d_op;
	/* Lookups under way in the directories of a filesystem with ->lookup
	 * (d_alloc_parallel): their dentries, linked by d_child until hashed.
	 * The lock also orders changes of such a directory's d_subdirs made
	 * with its i_rwsem held shared. */
	pthread_mutex_t s_in_lookup_lock;
	pthread_cond_t s_in_lookup_done;
	struct list_head s_in_lookup;

	/* @area hostwatch */
	/* @area fusefile */

	/* @area boundary */

	/* @area walk */

	/* @area create */
	/* Every inode of the sb, in lists sharded by the adding thread's
	 * counter slot (inode.c: inode_sb_list_*), so that creates and evicts
	 * on different cores take different locks and lines. */
	struct inode_sb_shard {
		spinlock_t lock;
		struct list_head inodes;
	} ____cacheline_aligned s_inode_shards[COUNTER_SHARDS];

	struct list_head s_list;
	struct rcu_head s_rcu;
};

/* ---- inode ---- */

struct inode_operations {
	/* Directories; called with the directory's i_rwsem held exclusive, the
	 * dentry negative and hashed. */
	int (*create)(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c);
	int (*mkdir)(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c);
	int (*mknod)(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c);
	int (*symlink)(struct inode *dir, struct dentry *d, const char *target, const struct cred *c);
	int (*link)(struct dentry *old, struct inode *dir, struct dentry *d);
	int (*unlink)(struct inode *dir, struct dentry *d);
	int (*rmdir)(struct inode *dir, struct dentry *d);
	int (*rename)(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd,
		      unsigned flags, const struct cred *c); /* c: the caller's, for RENAME_WHITEOUT's new inode */
	int (*tmpfile)(struct inode *dir, struct inode **out, umode_t mode, const struct cred *c);

	/* Directories of a filesystem whose names are not all in the dcache
	 * (NULL: the dcache is the directory, and a miss is a negative entry,
	 * as simple_lookup answers for tmpfs).  d is negative and unhashed:
	 * d_instantiate it if the name exists, leave it negative if not;
	 * 0 or -errno.  Called on a miss with dir's i_rwsem held shared (the
	 * walk) or exclusive (a namespace change), never twice at once for one
	 * name (d_alloc_parallel).  A negative answer is not cached. */
	int (*lookup)(struct inode *dir, struct dentry *d, unsigned flags);
	/* Symlinks whose body is not cached: a malloc'd body and its length,
	 * which the VFS caches in i_link (freed by the filesystem's
	 * destroy_inode).  Called in REF mode only; the walk reads i_link
	 * first. */
	int (*get_link)(struct inode *inode, char **body, unsigned *len);
	/* stat, statx, fstat: st holds the inode's own attributes
	 * (generic_fillattr); the filesystem corrects what it knows better.
	 * Called with a reference on the inode, outside RCU mode. */
	int (*getattr)(struct inode *inode, struct kstat *st);
	/* inode_permission's check in place of generic_permission */
	int (*permission)(const struct cred *c, struct inode *inode, int mask);
	/* Directories whose names are the dcache's (dcache_readdir): the
	 * counter of their readdir offsets (Linux's get_offset_ctx) */
	struct offset_ctx *(*get_offset_ctx)(struct inode *dir);

	/*
	 * Extended attributes, called after xattr.c has checked the name, the
	 * size, the flags and permission (NULL: EOPNOTSUPP).  name is whole
	 * ("user.x") and in a namespace the VFS knows: a filesystem refuses
	 * one it does not keep with EOPNOTSUPP.  getxattr and listxattr return
	 * the size of the value or of the list and copy it only when size is
	 * not 0 (ERANGE when it does not fit); listxattr leaves trusted.* out
	 * unless trusted.  setxattr: value NULL removes; flags XATTR_CREATE,
	 * XATTR_REPLACE; i_rwsem held exclusive; ctime is the filesystem's.
	 */
	ssize_t (*getxattr)(struct inode *inode, const char *name, void *buf, size_t size);
	int (*setxattr)(struct inode *inode, const char *name, const void *value, size_t size, int flags);
	ssize_t (*listxattr)(struct inode *inode, char *buf, size_t size, bool trusted);

	/* POSIX ACLs (posix_acl.c): store acl (NULL: none) of type ACL_TYPE_*
	 * as i_acl or i_default_acl, with i_rwsem held exclusive; for the
	 * access ACL, mode is the one it implies (set it too).  NULL: the
	 * filesystem has no ACLs (EOPNOTSUPP). */
	int (*set_acl)(struct inode *inode, int type, struct posix_acl *acl, umode_t mode);

	/* @area hostwatch */
	/* @area fusefile */

	/* @area boundary */
	/*
	 * Applies an attribute change the VFS has checked (notify_change:
	 * setattr_prepare's checks, ATTR_KILL_* made ATTR_MODE, ATTR_SIZE only
	 * on a regular file) with i_rwsem held exclusive: the size (when it
	 * moves) and the owner, mode and times, in the filesystem's own store
	 * first, then in the inode (setattr_copy, attr.h).  The VFS updates the
	 * ACL, the walk's cached permission and the watchers after it.  An
	 * error before the inode changed changes nothing.  d: the dentry the
	 * change came through, NULL when only the inode is known (a write
	 * dropping setuid).  NULL: simple_setattr (no data to resize).
	 */
	int (*setattr)(struct dentry *d, struct inode *inode, const struct iattr *ia);

	/* @area walk */

	/* @area create */

};

struct file_operations {
	ssize_t (*read)(struct file *f, void *buf, size_t len, loff_t *pos);
	ssize_t (*write)(struct file *f, const void *buf, size_t len, loff_t *pos);
	int (*open)(struct inode *inode, struct file *f);
	void (*release)(struct inode *inode, struct file *f);
	/* readdir, with the directory's i_rwsem held shared; ctx->pos is the
	 * filesystem's own offset (0 and 1: "." and "..") */
	int (*iterate_shared)(struct file *f, struct dir_context *ctx);
	loff_t (*llseek)(struct file *f, loff_t off, int whence);
	int (*fsync)(struct file *f);
	/* Readiness as POLL* bits; queue on the file's wait queues with
	 * poll_wait(f, wq, pt) before reading the state (see wait.h).  NULL:
	 * always ready (DEFAULT_POLLMASK). */
	unsigned (*poll)(struct file *f, struct poll_table *pt);
	/* uvfs_ioctl; NULL: -ENOTTY for every request the core does not handle */
	long (*unlocked_ioctl)(struct file *f, unsigned long req, void *arg);
	/* Vectored I/O in one call, for files where splitting it would change
	 * the result (a pipe: atomicity, one blocking wait).  NULL: readv/writev
	 * call ->read/->write per segment. */
	ssize_t (*read_iter)(struct file *f, const struct iovec *iov, int iovcnt, loff_t *pos);
	ssize_t (*write_iter)(struct file *f, const struct iovec *iov, int iovcnt, loff_t *pos);

	/* fallocate(2) once the VFS checked the fd, the mode's shape and the
	 * range (offset >= 0, len > 0, offset + len <= LLONG_MAX); the file is
	 * regular and open for writing.  Modes it does not do: -EOPNOTSUPP.
	 * Updates the times itself; the VFS drops the set-id bits and sends
	 * IN_MODIFY on success.  NULL: -EOPNOTSUPP. */
	long (*fallocate)(struct file *f, int mode, loff_t offset, loff_t len);

};

/*
 * IOP_FASTPERM_MAY_EXEC: a directory anyone may search (all three x bits, no
 * access ACL, no ->permission), so the walk's search check is one load
 * (Linux's IOP_FASTPERM_MAY_EXEC).  Set by may_lookup when it finds that
 * true, then checked again after a full barrier; every change of the mode
 * or the access ACL stores the change, then a full barrier, then clears it
 * (inode_fastperm_changed), so a setter that raced a change sees the change
 * and clears what it set.
 */
#define IOP_FASTPERM_MAY_EXEC 1u
#define S_NONOTIFY_INODE 1u /* inode of a pseudo filesystem: never watched */
#define S_DEAD_DIR 2u       /* removed directory: nothing may be created in it */
#define S_LINKABLE 4u       /* O_TMPFILE without O_EXCL: linkat may give it a name */
#define S_NOATTR 8u         /* attributes never change: EOPNOTSUPP after may_setattr (anon_inode_setattr) */
#define S_KILLPRIV 16u      /* a regular file that may carry security.capability (set by setxattr, atomic or/and):
                             a write, truncate or chown drops it (inode_killpriv, xattr.c) */
#define ST_VALID_ 0x20

struct inode {
	umode_t i_mode;
	unsigned i_flags;
	unsigned i_opflags; /* IOP_*: what the walk may skip, cached (atomic or/and) */
	uid_t i_uid;
	gid_t i_gid;
	unsigned i_nlink;
	uint64_t i_ino;
	loff_t i_size;
	uint64_t i_blocks; /* 512-byte units */
	dev_t i_rdev;
	struct timespec i_atime, i_mtime, i_ctime, i_btime;
	seqcount_t i_time_seq; /* the times' writers' lock and their readers' check (inode_set_times) */

	long i_count; /* references: dentries and in-flight users (atomic) */
	const struct inode_operations *i_op; /* set before the inode is seen, fixed for its life */
	const struct file_operations *i_fop;
	struct super_block *i_sb;
	const struct super_operations *i_sop; /* for the deferred free, which may outlive i_sb */

	/* Symlinks: the body, cached with its length when the link is made
	 * (Linux's i_link and inode_set_cached_link); freed with the inode. */
	const char *i_link;
	unsigned i_linklen;

	pthread_rwlock_t i_rwsem; /* dir: namespace changes (excl) / readdir (shared); file: write (excl) / read */
	pthread_mutex_t i_lock;   /* i_pipe */
	long i_writecount;        /* open for write (ETXTBSY is not modelled) */
	void *i_private;          /* filesystem data */
	struct pipe_inode_info *i_pipe; /* pipes, and FIFOs while open (pipe.c); under i_lock */
	/* Immutable once published, replaced whole under i_rwsem and freed
	 * after a grace period: the permission check reads them under RCU. */
	struct posix_acl *i_acl;
	struct posix_acl *i_default_acl;

	struct file_lock_context *i_flctx; /* file locks (locks.c): made by the first, freed with the inode */

	/* @area hostwatch */
	/* @area fusefile */

	/* @area boundary */

	/* @area walk */

	/* @area create */
	unsigned i_sb_shard; /* its list in sb->s_inode_shards */

	struct list_head i_sb_list;
	struct rcu_head i_rcu;
	struct list_head i_fsnotify_marks;
};

/* After a change of i_mode or i_acl is stored (see IOP_FASTPERM_MAY_EXEC). */
static inline void inode_fastperm_changed(struct inode *inode)
{
	smp_mb();
	if (__atomic_load_n(&inode->i_opflags, __ATOMIC_RELAXED) & IOP_FASTPERM_MAY_EXEC)
		__atomic_fetch_and(&inode->i_opflags, ~IOP_FASTPERM_MAY_EXEC, __ATOMIC_RELAXED);
}

/* ---- dentry ---- */
#define DCACHE_MOUNTED     0x1u  /* a mount sits on it */
#define DCACHE_DISCONNECTED 0x4u /* pseudo: no parent, no name a path reaches */
#define DCACHE_PINNED      0x8u  /* holds the extra reference of a positive tmpfs entry */

struct dentry {
	struct hlist_node d_hash; /* in vfs->d_hash while the name exists or is cached negative */
	struct dentry *d_parent;  /* RCU readable; changed only by rename */
	struct dname *d_name;     /* RCU readable; replaced by rename */
	struct inode *d_inode;    /* NULL: negative.  RCU readable (acquire) */
	unsigned d_flags;
	seqcount_t d_seq;         /* bumped when d_inode, d_parent or d_name change */
	long d_count;             /* atomic; -1 once dead */
	struct super_block *d_sb;
	struct list_head d_child;   /* in the parent's d_subdirs: positive ones first, newest d_offset first */
	struct list_head d_subdirs; /* children, under the dir's i_rwsem */
	uint64_t d_offset;          /* this entry's readdir offset in its parent */
	struct rcu_head d_rcu;
	/* @area boundary */
	/* @area walk */
	/* @area create */
	struct {
		struct dname hdr;
		char buf[40];
	} d_iname; /* short names live here; longer ones are allocated */
};

/*
 * d_flags changes only by atomic read-modify-write once the allocator has
 * returned the dentry: mount and umount set and clear DCACHE_MOUNTED under
 * ns_lock while tmpfs pins and unpins a name under its directory's i_rwsem,
 * locks that do not exclude each other, so a plain |= or &= could undo the
 * other's bit.  Readers use READ_ONCE.  d_clear_flags returns the old flags.
 */
static inline void d_set_flags(struct dentry *d, unsigned f)
{
	__atomic_fetch_or(&d->d_flags, f, __ATOMIC_RELAXED);
}
static inline unsigned d_clear_flags(struct dentry *d, unsigned f)
{
	return __atomic_fetch_and(&d->d_flags, ~f, __ATOMIC_RELAXED);
}

static inline bool d_unhashed(const struct dentry *d) { return hlist_unhashed(&d->d_hash); }
static inline bool d_is_negative(const struct dentry *d) { return READ_ONCE(d->d_inode) == NULL; }

/* ---- mount ---- */
#define MNT_RDONLY  0x1u
#define MNT_NOSUID  0x2u
#define MNT_NODEV   0x4u
#define MNT_NOEXEC  0x8u
#define MNT_NOATIME 0x10u
#define MNT_NODIRATIME  0x20u /* atime.c */
#define MNT_STRICTATIME 0x40u
#define MNT_DETACHED 0x100u
#define MNT_RELEASED 0x200u /* detached, and its last reference went: released once */
#define MNT_WRITE_HOLD 0x400u /* a remount read-only is counting the writers: new ones wait */

struct mount {
	struct hlist_node m_hash;
	struct mount *m_parent;      /* self for the root mount */
	struct dentry *m_mountpoint; /* in m_parent */
	struct dentry *m_root;
	struct super_block *m_sb;
	unsigned m_flags;
	struct pcounter m_count; /* references from paths; summed at umount */
	struct list_head m_list;      /* vfs->mounts */
	struct list_head m_children;  /* mounts on top of this one */
	struct list_head m_child;
	struct list_head m_umount; /* an umount's list of what it detached, under ns_lock */
	int m_expiry_mark;         /* umount2(MNT_EXPIRE) marked it; any use (mntput) clears it */
	struct pcounter m_writers; /* files open for writing through it (Linux's mnt_writers) */
	struct rcu_head m_rcu;
};

struct path {
	struct mount *mnt;
	struct dentry *dentry;
};

/* ---- file ---- */
#define FMODE_READ      0x1u
#define FMODE_WRITE     0x2u
#define FMODE_LSEEK     0x4u
#define FMODE_PATH      0x8u
#define FMODE_OPENED    0x10u
#define FMODE_NONOTIFY  0x20u /* pseudo file: no fsnotify checks (seed 003) */
#define FMODE_ATOMIC_POS 0x40u
#define FMODE_LIGHT     0x200u /* calls never sleep on a peer: fdget may skip the reference */
#define FMODE_WRITER    0x400u /* holds write access to its mount (Linux's FMODE_WRITER) */

struct file {
	long f_count; /* atomic */
	unsigned f_gen; /* odd while a reused struct file is being set up; see fd_path_rcu */
	unsigned f_mode;
	unsigned f_flags; /* O_* status flags as open(2) and F_SETFL left them */
	pthread_mutex_t f_pos_lock;
	loff_t f_pos;
	struct path f_path;
	struct inode *f_inode;
	const struct file_operations *f_op;
	struct uvfs *f_uvfs;
	struct epitem *f_ep; /* epoll items watching this file (eventpoll.c); NULL when it is freed */

	const struct cred *f_cred; /* the opener's, referenced; kept by a cached free file (api.h) */

	void *private_data;
	union {
		struct rcu_head f_rcu;
		struct {
			void (*func)(struct file *);
			struct file *next;
		} f_task_work;
	};
};

/* ---- fd table (files_struct + fdtable) ---- */
struct fdtable {
	unsigned max_fds;
	struct file **fd;            /* RCU readable slots */
	unsigned long *open_fds;     /* bit per fd: allocated (possibly not yet installed) */
	unsigned long *close_on_exec;
	unsigned long *full_fds_bits; /* bit per word of open_fds: that word is full */
	struct rcu_head rcu;
};

#define NR_OPEN_DEFAULT 64
/* The slot of an fd: its bits 3-5 flipped by its bits 0-2, so that of 8
 * neighbouring fds (which threads sharing a table open and close at the
 * same time) each falls on its own cache line of 8 slots, and a long-lived
 * dirfd's slot is not on the line of the fds churned next to it.  The map
 * stays within each block of 64 (a table holds whole blocks) and is its own
 * inverse. */
static inline struct file **fdt_slot(struct fdtable *fdt, unsigned fd)
{
	return &fdt->fd[fd ^ (fd & 7u) << 3];
}
/* The slot of an fd reserved by an open in progress (get_unused_fd_flags
 * until fd_install or put_unused_fd): marked, so that an empty slot whose
 * bit is set is never a reservation, only a change under way on another
 * thread (fdtable.c).  Not an address: a reader that takes it for a file
 * faults at once. */
#define FD_RESERVED ((struct file *)1)
static inline bool slot_has_file(const struct file *f)
{
	return (uintptr_t)f > (uintptr_t)FD_RESERVED;
}
struct files_struct {
	/* read by every call, written (almost) never: a line of its own, so
	 * that threads allocating and closing fds do not take it from readers */
	long count; /* procs sharing the table (atomic) */
	/* Single-thread mode (see fdtable.c): while only the owner thread has
	 * ever used the table, its calls take no fd reference and no lock. */
	void *owner;      /* the thread (its &uvfs_current), or NULL */
	int shared;       /* sticky: a second thread or proc came (0, 1: handshake, 2) */
	struct fdtable *fdt; /* RCU */
	struct fdtable fdtab;
	int owner_active ____cacheline_aligned; /* light sections the owner is inside (nesting count) */
	/* written under the lock */
	spinlock_t file_lock ____cacheline_aligned;
	unsigned next_fd;            /* single-thread mode only: no free fd below it */
	unsigned resize_in_progress; /* resizes under way: the lock-free fd ops stand aside */
	/* the first word of each bitmap: changed by lock-free fd ops in shared
	 * mode.  open_fds' alone on its line: every open and close writes it,
	 * while close-on-exec is only read unless an fd has the flag. */
	unsigned long open_fds_init[1] ____cacheline_aligned;
	unsigned long close_on_exec_init[1] ____cacheline_aligned;
	unsigned long full_fds_bits_init[1];
	struct file *fd_array[NR_OPEN_DEFAULT] ____cacheline_aligned;
};

/* ---- fs_struct + the proc ---- */
struct fs_struct {
	long users; /* atomic */
	pthread_mutex_t lock;
	/* bumped around every change of root or pwd, under lock: a lockless
	 * walk reads the two paths consistently with it (Linux's fs->seq),
	 * without moving vfs->rename_seq for every other proc's walks */
	seqcount_t seq;
	struct path root, pwd;
	mode_t umask;
};

struct uvfs_proc {
	struct uvfs *vfs;
	struct files_struct *files;
	struct fs_struct *fs;
	struct cred *cred_rcu; /* RCU: replaced whole by commit_creds; a call reads it once (api.h) */
	pthread_mutex_t cred_lock; /* serialises this proc's prepare_creds..commit_creds */
	unsigned long nofile; /* RLIMIT_NOFILE */
	pid_t pid; /* uvfs_getpid(): what F_GETLK reports as l_pid */
	struct list_head p_list;
};

/* ---- per-thread state (current) ---- */
struct uvfs_task {
	struct file *task_works; /* pushed by fput, run before the API call returns */
	bool rcu_registered;
	/* the file of the light fdget this thread is in (no reference), and a
	 * light file that fd_unlight() gave a reference before a sleep */
	struct file *light_file;
	struct files_struct *light_files;
	struct file *unlit;
	/* The cred of this thread's calls (current_cred), pinned: a reference
	 * kept from call to call while the proc's cred stays the same, plus
	 * cred_spare more that files opened here take and give back without an
	 * atomic (api.h, cred.c). */
	struct cred *cred;
	long cred_spare;
};
extern __thread struct uvfs_task uvfs_current;

void task_enter_slow(void);
static __always_inline void task_enter(void)
{
	if (unlikely(!uvfs_current.rcu_registered))
		task_enter_slow();
}
void task_work_run(void);
/* Every API call ends through here: deferred releases run before return. */
static __always_inline long task_exit(long ret)
{
	if (unlikely(READ_ONCE(uvfs_current.task_works) != NULL))
		task_work_run();
	return ret;
}
void task_work_add(struct file *f, void (*func)(struct file *));

/* ---- time ---- */
static inline struct timespec current_time(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return ts;
}

/* ---- dcache.c ---- */
int dcache_init(struct uvfs *vfs);
void dcache_fini(struct uvfs *vfs);
struct dentry *d_alloc(struct dentry *parent, const struct qstr *name);
struct dentry *d_alloc_root(struct super_block *sb, struct inode *inode);
struct dentry *d_alloc_pseudo(struct super_block *sb, struct inode *inode);
struct dentry *d_lookup_locked(struct dentry *parent, const struct qstr *name);
struct dentry *d_lookup_or_alloc(struct dentry *parent, const struct qstr *name, int *errp);
void inode_ino_init(struct uvfs *vfs);
/* the superblock's inode lists: every shard locked, in order (rare walks) */
void inode_sb_list_init(struct super_block *sb);
void inode_sb_list_lock_all(struct super_block *sb);
void inode_sb_list_unlock_all(struct super_block *sb);
/* The first inode of sb after pos (NULL: from the start) for which
 * match is true, or NULL; with every shard locked. */
struct inode *inode_sb_list_find(struct super_block *sb, bool (*match)(struct inode *));
/* the same for a name about to be made: a miss is not cached */
struct dentry *d_lookup_or_alloc_create(struct dentry *parent, const struct qstr *name, int *errp);
void d_add_hashed(struct dentry *d);
void d_instantiate(struct dentry *d, struct inode *inode);
void d_link_child(struct dentry *d);
void d_delete_entry(struct dentry *d);
struct dname *d_name_copy(const struct dentry *d);
void d_name_free(struct dname *n);
void d_move(struct dentry *d, struct dentry *target, struct dname *newname);
void d_exchange(struct dentry *a, struct dentry *b, struct dname *na, struct dname *nb);
void d_prune_negative_children(struct dentry *dir);
void d_drop(struct dentry *d);
struct dentry *dget(struct dentry *d);
bool dget_not_dead(struct dentry *d);
void dput(struct dentry *d);
void d_genocide(struct dentry *root); /* instance teardown */

/* ---- inode.c ---- */
struct inode *new_inode(struct super_block *sb);
void inode_init_owner(struct inode *inode, struct inode *dir, umode_t mode, const struct cred *c);
struct inode *ihold(struct inode *inode);
void iput(struct inode *inode);
void inc_nlink(struct inode *inode);
void drop_nlink(struct inode *inode);
void set_nlink(struct inode *inode, unsigned n);
void inode_set_times(struct inode *inode, const struct timespec *atime, const struct timespec *mtime,
		     const struct timespec *ctime); /* NULL: unchanged */
void inode_touch_mc(struct inode *inode);         /* mtime = ctime = now */
void inode_touch_mc_at(struct inode *inode, struct timespec now);
void inode_touch_c(struct inode *inode);          /* ctime = now */
void inode_touch_c_at(struct inode *inode, struct timespec now);
/*
 * A copy inside a seqcount read section may be torn; the retry throws it
 * away.  So it is the compiler's own (one 16-byte move per timestamp), except
 * under ThreadSanitizer, which cannot see the seqcount's fences and is given
 * each word as an atomic load instead.
 */
#if defined(__SANITIZE_THREAD__)
#define seq_copy_time(dst, src) \
	((dst)->tv_sec = READ_ONCE((src)->tv_sec), (dst)->tv_nsec = READ_ONCE((src)->tv_nsec))
#else
#define seq_copy_time(dst, src) (*(dst) = *(src))
#endif
/* The times a stat returns, each one's seconds and nanoseconds from one
 * update (b, the birth time, may be NULL). */
static inline void inode_read_times(const struct inode *inode, struct timespec *a, struct timespec *m,
				    struct timespec *c, struct timespec *b)
{
	unsigned seq;
	do {
		seq = read_seqcount_begin(&inode->i_time_seq);
		seq_copy_time(a, &inode->i_atime);
		seq_copy_time(m, &inode->i_mtime);
		seq_copy_time(c, &inode->i_ctime);
		if (b)
			seq_copy_time(b, &inode->i_btime);
	} while (read_seqcount_retry(&inode->i_time_seq, seq));
}
void inode_touch_atime(struct inode *inode, struct mount *m);
bool mnt_touch_atime(struct inode *inode, unsigned mnt_flags); /* atime.c */
int open_path_fd(struct uvfs_proc *p, struct path *path, int flags); /* open.c; takes over path's references */
/* relatime, the default of every Linux mount: atime moves when it is not
 * newer than mtime or ctime, or is more than a day old (inode.c). */
static inline void touch_atime(struct file *f)
{
	if (f->f_flags & O_NOATIME)
		return;
	inode_touch_atime(f->f_inode, f->f_path.mnt);
}
void evict_all_inodes(struct super_block *sb);

/* ---- namei.c ---- */
#define MAY_EXEC   1
#define MAY_WRITE  2
#define MAY_READ   4
#define MAY_APPEND 8
#define MAY_OPEN   32
#define MAY_NOT_BLOCK 128 /* ->permission in RCU mode: may answer -ECHILD */

int inode_permission(const struct cred *c, struct inode *inode, int mask);
int generic_permission(const struct cred *c, struct inode *inode, int mask);
bool inode_owner_or_capable(const struct cred *c, const struct inode *inode);
int may_delete(const struct cred *c, struct inode *dir, struct dentry *victim, bool isdir);
/* a symlink's body: i_link, or ->get_link's answer cached there (REF mode) */
const char *inode_get_link(struct inode *inode, int *errp);

/* lookup flags */
#define LOOKUP_FOLLOW     0x0001
#define LOOKUP_DIRECTORY  0x0002
#define LOOKUP_EMPTY      0x4000
#define LOOKUP_RCU        0x0040
#define LOOKUP_NO_SYMLINKS 0x010000
#define LOOKUP_NO_MAGICLINKS 0x020000
#define LOOKUP_NO_XDEV    0x040000
#define LOOKUP_BENEATH    0x080000
#define LOOKUP_IN_ROOT    0x100000
#define LOOKUP_CACHED     0x200000
#define LOOKUP_MOUNTPOINT 0x0080
#define LOOKUP_EXCL       0x0400 /* O_CREAT|O_EXCL: the last component must not exist */

enum last_type { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

/* A path copied from the caller (Linux's struct filename): on the stack of
 * the API entry; nothing to free, no atomics (the "putname" cost the seeds
 * name is gone by construction). */
struct filename {
	const char *name; /* the caller's string, validated: NUL within PATH_MAX */
	unsigned len;
	/* single: the whole name is one component (no '/', at most NAME_MAX
	 * bytes, maybe empty, "." or ".."), hash its name_hash: getname scans
	 * such a name once, and the walk's fast path does not scan it again */
	bool single;
	uint32_t hash;
};
int getname_slow(const char *upath, struct filename *out, unsigned lookup_flags);
/* Linux's getname: EFAULT, ENAMETOOLONG (PATH_MAX), ENOENT for "" unless
 * LOOKUP_EMPTY.  The common name, one component relative to a directory, is
 * measured and hashed in one pass, inline; anything else is measured out of
 * line with strnlen. */
static __always_inline int getname(const char *upath, struct filename *out, unsigned lookup_flags)
{
	uint32_t hash;
	if (unlikely(!upath))
		return -EFAULT;
	unsigned n = hash_component_max(upath, &hash, NAME_MAX);
	if (unlikely(n > NAME_MAX || upath[n] != '\0'))
		return getname_slow(upath, out, lookup_flags);
	if (unlikely(n == 0) && !(lookup_flags & LOOKUP_EMPTY))
		return -ENOENT;
	out->name = upath;
	out->len = n;
	out->single = true;
	out->hash = hash;
	return 0;
}

struct nameidata;
/* Resolve a whole path; on success *path holds references. */
int filename_lookup(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
		    struct path *path);
/* Resolve all but the last component; *parent holds references, *last points
 * into name, *type tells whether the last is ".", ".." or a name. */
int filename_parentat(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
		      struct path *parent, struct qstr *last, int *type);
/* The last component of an O_CREAT open (open.c), called by
 * filename_open_walk with the parent held: 0 with *res (the path to open,
 * referenced), 1 with *res a symlink to follow (mount and dentry
 * referenced), or -errno. */
typedef int (*open_last_fn)(const struct path *parent, const struct qstr *last, void *arg, struct path *res);
int filename_open_walk(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
		       open_last_fn fn, void *arg, struct path *out);
/* Operations done entirely under RCU when possible: fn runs on the final
 * inode inside the read-side section and returns >= 0 or -errno. */
typedef long (*lookup_rcu_fn)(struct inode *inode, struct dentry *d, struct mount *m, void *arg);
long filename_lookup_fn(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
			lookup_rcu_fn fn, void *arg);
int user_path_at(struct uvfs_proc *p, int dfd, const char *upath, unsigned flags, struct path *path);
/* The lookup flags of the *at() calls' AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH. */
static inline unsigned at_lookup_flags(int flags)
{
	return ((flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) | ((flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0);
}
void path_get(const struct path *p);
void path_put(const struct path *p);
struct mount *mntget(struct mount *m);
void mntput(struct mount *m);
void mntput_no_expire(struct mount *m);
struct mount *lookup_mnt(struct mount *parent, struct dentry *mountpoint);
bool path_is_under(const struct path *p, const struct path *root);
int lock_rename(struct dentry *p1, struct dentry *p2, struct dentry **trap);
void unlock_rename(struct dentry *p1, struct dentry *p2);
static inline bool is_dir(const struct inode *i) { return S_ISDIR(i->i_mode); }
int mnt_want_write(struct mount *m);
int mnt_get_write_access_slow(struct mount *m);

/*
 * A regular file open for writing counts itself on its mount (Linux's
 * mnt_get_write_access), so that a remount read-only of that mount is
 * EBUSY while it is open.  The count first, then the flags, with the light
 * side of an asymmetric barrier between: the remount sets MNT_WRITE_HOLD,
 * forces a barrier on every thread and sums, so either it sees our count or
 * we see the hold and wait until it has decided (namespace.c, do_remount).
 */
static __always_inline int mnt_get_write_access(struct mount *m)
{
	pcounter_add_local(&m->m_writers, 1);
	smp_mb_light();
	if (unlikely(__atomic_load_n(&m->m_flags, __ATOMIC_ACQUIRE) & (MNT_WRITE_HOLD | MNT_RDONLY)))
		return mnt_get_write_access_slow(m);
	return 0;
}

static __always_inline void mnt_put_write_access(struct mount *m)
{
	pcounter_add_local(&m->m_writers, -1);
}

/* ---- file_table.c ---- */
struct file *alloc_empty_file(struct uvfs *vfs, int flags);
int alloc_file_errno(struct uvfs *vfs) __cold; /* after a NULL from alloc_empty_file: -ENFILE or -ENOMEM */
void file_free_unopened(struct file *f); /* seed 000: never opened, never seen: free now */
struct file *get_file(struct file *f);
void fput(struct file *f);       /* drop; the last reference defers __fput to task_work */
void fput_close(struct file *f); /* close(2): the last reference releases synchronously (seed 001) */
void __fput(struct file *f);
int finish_open(struct file *f, const struct path *path, struct inode *inode, unsigned mode);
struct file *alloc_file_pseudo(struct uvfs *vfs, struct super_block *sb, struct inode *inode, int flags,
			       const struct file_operations *fop);

/* ---- fdtable.c ---- */
struct files_struct *files_alloc(void);
struct files_struct *files_dup(struct files_struct *old, int *err);
void files_put(struct files_struct *files);
int get_unused_fd_flags(struct uvfs_proc *p, unsigned flags);
int alloc_fd_from(struct uvfs_proc *p, unsigned start, unsigned flags);
void put_unused_fd(struct uvfs_proc *p, int fd);
void fd_install(struct uvfs_proc *p, int fd, struct file *f);
int fd_alloc_install(struct uvfs_proc *p, struct file *f, unsigned flags);
bool fd_table_full(struct uvfs_proc *p);
/* fdget/fdput: the file of an fd for the length of one call.  In
 * single-thread mode (a table only its owner thread has used) regular files
 * and directories are returned without a reference ("light"); otherwise a
 * reference is taken as fget does. */
#define FDPUT_FPUT 1u
#define FDPUT_LIGHT 2u
struct fd {
	struct file *file;
	unsigned flags;
};
bool files_light_claim(struct files_struct *files);
void files_mark_shared(struct files_struct *files);
static __always_inline bool files_light_enter(struct files_struct *files)
{
	if (likely(READ_ONCE(files->owner) == (void *)&uvfs_current)) {
		/* once shared, write nothing here: the line is read by every
		 * thread of the proc */
		if (unlikely(READ_ONCE(files->shared)))
			return false;
		/* a nesting count: only the owner writes it */
		WRITE_ONCE(files->owner_active, files->owner_active + 1);
		barrier(); /* the other side's membarrier() supplies the fence */
		if (likely(!READ_ONCE(files->shared)))
			return true;
		smp_store_release(&files->owner_active, files->owner_active - 1);
		return false;
	}
	if (likely(__atomic_load_n(&files->shared, __ATOMIC_ACQUIRE) == 2))
		return false; /* another thread of a shared table */
	return files_light_claim(files);
}
static __always_inline void files_light_exit(struct files_struct *files)
{
	smp_store_release(&files->owner_active, files->owner_active - 1);
}
struct fd fdget_slow(struct uvfs_proc *p, int fd, unsigned exclude);
static __always_inline struct fd __fdget(struct uvfs_proc *p, int fd, unsigned exclude)
{
	struct files_struct *files = p->files;
	if (likely(files_light_enter(files))) {
		struct fdtable *fdt = files->fdt;
		struct file *f = likely((unsigned)fd < fdt->max_fds) ? *fdt_slot(fdt, fd) : NULL;
		/* only files whose calls never wait on another thread of this
		 * proc: a sleeping owner would hold a second thread's handshake */
		if (likely(slot_has_file(f) && (f->f_mode & FMODE_LIGHT) && !(f->f_mode & exclude))) {
			uvfs_current.light_file = f;
			uvfs_current.light_files = files;
			return (struct fd){ f, FDPUT_LIGHT };
		}
		files_light_exit(files);
	}
	return fdget_slow(p, fd, exclude);
}
static __always_inline struct fd fdget(struct uvfs_proc *p, int fd) { return __fdget(p, fd, FMODE_PATH); }
static __always_inline struct fd fdget_raw(struct uvfs_proc *p, int fd) { return __fdget(p, fd, 0); }
void fput(struct file *f);
static __always_inline void fdput(struct uvfs_proc *p, struct fd f)
{
	if (f.flags & FDPUT_LIGHT) {
		uvfs_current.light_file = NULL;
		if (unlikely(uvfs_current.unlit == f.file)) {
			/* fd_unlight() left the section and took a reference */
			uvfs_current.unlit = NULL;
			fput(f.file);
		} else {
			files_light_exit(p->files);
		}
	} else if (f.flags & FDPUT_FPUT) {
		fput(f.file);
	}
}
struct file *get_file(struct file *f);
/* For files whose calls may sleep waiting for a peer (pipes, FIFOs): called
 * before the sleep.  If the call came through a light fdget (no reference,
 * inside the owner's single-thread section), take a reference and leave the
 * section now, so that a second thread's handshake (fdtable.c) never waits
 * for a sleeper; fdput then drops the reference instead.  Otherwise a no-op. */
static inline void fd_unlight(struct file *f)
{
	if (uvfs_current.light_file == f) {
		get_file(f);
		uvfs_current.light_file = NULL;
		uvfs_current.unlit = f;
		files_light_exit(uvfs_current.light_files);
	}
}
struct file *fget(struct uvfs_proc *p, int fd);      /* excludes O_PATH files */
struct file *fget_raw(struct uvfs_proc *p, int fd);  /* includes O_PATH files */
struct file *file_close_fd(struct uvfs_proc *p, int fd);
int fd_path_rcu(struct uvfs_proc *p, int fd, struct path *out, unsigned *fmode);
int do_dup2(struct uvfs_proc *p, struct file *f, unsigned fd, unsigned flags);
int close_range_fds(struct uvfs_proc *p, unsigned first, unsigned last, unsigned flags);
int get_close_on_exec(struct uvfs_proc *p, int fd);
void set_close_on_exec(struct uvfs_proc *p, int fd, bool on);

/* ---- read_write.c ---- */
/* ->llseek of files that accept lseek and stay where they are (inotify) */
loff_t noop_llseek(struct file *f, loff_t off, int whence);

/* ---- open.c ---- */

/* ---- pipe.c ---- */
struct pipe_inode_info;
int fifo_open(struct inode *inode, struct file *f); /* open(2) of a FIFO */
long pipe_fcntl(struct file *f, unsigned cmd, unsigned long arg, const struct cred *c);

/* ---- attr.c ---- */
#define ATTR_MODE  0x1u
#define ATTR_UID   0x2u
#define ATTR_GID   0x4u
#define ATTR_SIZE  0x8u
#define ATTR_ATIME 0x10u
#define ATTR_MTIME 0x20u
#define ATTR_CTIME 0x40u
#define ATTR_ATIME_SET 0x80u
#define ATTR_MTIME_SET 0x100u
#define ATTR_TOUCH 0x200u
#define ATTR_KILL_SUID 0x800u
#define ATTR_KILL_SGID 0x1000u
#define ATTR_TIMES_SET 0x2000u
#define ATTR_FORCE 0x4000u /* the kernel's own change: no permission check */
#define ATTR_KILL_PRIV 0x8000u /* drop security.capability (a truncate, a chown of a non-directory) */
struct iattr {
	unsigned ia_valid;
	umode_t ia_mode;
	uid_t ia_uid;
	gid_t ia_gid;
	loff_t ia_size;
	struct timespec ia_atime, ia_mtime;
};
/* p: the proc making the change (told to the change hook); c: the cred its
 * permission is checked with. */
int notify_change(struct uvfs_proc *p, const struct cred *c, struct dentry *d, struct inode *inode,
		  struct iattr *ia);
void inode_kill_suid(struct inode *inode, const struct cred *c);
int simple_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia);
/* a checked change applied by the inode's filesystem, i_rwsem held exclusive */
static inline int inode_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	if (inode->i_op->setattr)
		return inode->i_op->setattr(d, inode, ia);
	return simple_setattr(d, inode, ia);
}
unsigned should_drop_sgid(const struct cred *c, const struct inode *inode);
unsigned should_remove_suid(const struct cred *c, const struct inode *inode);
void inode_killpriv(struct inode *inode);

/* ---- readdir.c ---- */
struct dir_context {
	bool (*actor)(struct dir_context *ctx, const char *name, int len, loff_t off, uint64_t ino,
		      unsigned type);
	loff_t pos;
};
/* Positions of a dcache_readdir directory, Linux's since 6.14: 0 ".", 1 "..",
 * 2 the first (newest) name, EOD the end; any other value n, the names whose
 * offset is at most n.  Names are numbered from 3 up. */
#define DIR_OFFSET_FIRST 2
#define DIR_OFFSET_MIN 3
#define DIR_OFFSET_EOD 0x7fffffff
int iterate_dir(struct file *f, struct dir_context *ctx);
int dcache_readdir(struct file *f, struct dir_context *ctx);

/* ---- namespace.c ---- */
int namespace_init(struct uvfs *vfs, struct super_block *root_sb);
void namespace_fini(struct uvfs *vfs);
struct super_block *sget(struct uvfs *vfs, const struct super_operations *ops, unsigned long magic);
void deactivate_super(struct super_block *sb);

/* ---- the API entry protocol and the call's cred ---- */
#include "api.h"

#endif /* UVFS_CORE_VFS_H */
