/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vfs.h - the VFS core: the instance, its objects (one header each, included
 * below in the order of their definitions) and the interfaces between the
 * core's files.
 *
 * Each type names the Linux structure it mirrors.  Lifetimes and locks are
 * summarised in docs/ARCHITECTURE.md; the lock order is:
 *
 *   ns_lock (mount tree)  >  rename_mutex  >  dir i_rwsem (parent before child;
 *   two unrelated dirs by address)  >  inode i_rwsem of a non-directory  >
 *   files->file_lock  >  i_lock  >  dcache bucket lock
 *
 * fs->lock (root, cwd, the writers of fs->seq) and p->cred_lock (a proc's
 * cred changes) are taken with none of these held, except that pivot_root
 * and the making of a proc (uvfs_proc_create, uvfs_proc_clone) take
 *
 *   ns_lock  >  procs_lock  >  fs->lock
 *
 * so that a proc is made wholly before or after a pivot moves every proc.
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
#include "../lib/rwsem.h"
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

/* Deferred work of one object on the thread's task_work list (task.c):
 * Linux's shape, embedded in the object, so queueing never allocates. */
struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
};

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
	/* UVFS_GROUPS_UNKNOWN: the supplementary groups are not known (a FUSE
	 * server learns them only when it must): a grant that a group the
	 * caller may be in would turn into a refusal is refused instead
	 * (generic_permission_slow, acl_permission) */
	bool groups_unknown;
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
	int expiry_used; /* set once by the first umount2(MNT_EXPIRE): lookups then note their mount's use (mount.h) */
	pthread_mutex_t rename_mutex; /* cross-directory renames (Linux's s_vfs_rename_mutex) */
	pthread_mutex_t seq_lock;     /* serialises rename_seq writers (Linux's rename_lock) */

	pthread_mutex_t ns_lock; /* mount tree */
	struct hlist_head *m_hash; /* mounts hashed by (parent mount, mountpoint) */
	struct mount *root_mnt;
	struct list_head mounts; /* every mount, for destroy */
	struct list_head supers;

	struct pcounter nr_files;
	unsigned long max_files;
	struct bcounter nr_negative; /* negative dentries kept (approximate read) */

	uint64_t next_ino;
	unsigned next_dev;
	uint64_t last_mnt_id; /* atomic: the last mount's m_id_unique */
	struct super_block *pipe_sb;
	struct super_block *shm_sb; /* memfd.c: the internal tmpfs of memfds, made on the first */

	pthread_mutex_t procs_lock;
	struct list_head procs;
	pid_t last_pid; /* under procs_lock */
	struct uvfs_options opts;
	struct uvfs_notify *notify; /* inotify's state, made by the first inotify_init1 (notify/inotify.c) */
	struct uvfs_change_hook *change_hook; /* uvfs_set_change_hook's, made by its first call (notify/change.c) */
	pthread_mutex_t fs_types_lock;
	struct filesystem_entry *fs_types; /* the registry (filesystems.c) */

	long nr_fsnotify_sources; /* outside changes to read in before inotify reads (notify/external.c) */


	struct pathcache *pcache; /* whole-path lookup cache (pathcache.c); NULL with -Dpath_cache=false */

	uint64_t ino_id; /* names this instance to the threads' runs of inode numbers (inode.c) */
};

/* ---- the objects, one header each (their sections used to be here) ---- */
#include "super.h"
#include "inode.h"
#include "dentry.h"
#include "mount.h"
#include "file.h"
#include "fdtable.h"
#include "task.h"

/* ---- time (inode.c) ----
 * Linux's multigrain timestamps (6.13, fs/inode.c and kernel/time/timekeeping.c):
 * a change is stamped with the coarse clock, unless someone has read the
 * inode's ctime (stat) and the coarse clock has not moved past it; then
 * with the fine clock, so that a change seen after a stat always shows in
 * mtime and ctime.  A fine stamp raises the floor, and no coarse stamp is
 * older than the floor: a change made after another is never stamped
 * earlier, whichever clock stamped each. */
extern int64_t uvfs_time_floor; /* the latest fine stamp, ns since the epoch */
#define NSEC_PER_SEC 1000000000ll
struct timespec current_time_floor(struct timespec coarse, int64_t floor);
struct timespec current_time_fine(void);
static inline struct timespec current_time(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	int64_t floor = __atomic_load_n(&uvfs_time_floor, __ATOMIC_RELAXED);
	if (unlikely(floor > ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec))
		return current_time_floor(ts, floor);
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
/* negative -> positive, with the parent's i_rwsem held exclusive */
static inline void d_instantiate(struct dentry *d, struct inode *inode)
{
	write_seqcount_begin(&d->d_seq);
	smp_store_release(&d->d_inode, inode);
	write_seqcount_end(&d->d_seq);
}
void d_link_child(struct dentry *d);
void d_delete_entry(struct dentry *d);
/* after a successful ->unlink, the parent locked: the victim turns negative
 * in place if nobody else holds it, else leaves the hash (Linux's d_delete);
 * d_delete_put also puts the caller's reference */
void d_delete(struct dentry *d);
void d_delete_put(struct dentry *d);
struct dname *d_name_copy(const struct dentry *d);
void d_name_free(struct dname *n);
void d_move(struct dentry *d, struct dentry *target, struct dname *newname);
void d_exchange(struct dentry *a, struct dentry *b, struct dname *na, struct dname *nb);
void d_prune_negative_children(struct dentry *dir);
void d_drop(struct dentry *d);
static __always_inline struct dentry *dget(struct dentry *d)
{
	__atomic_fetch_add(&d->d_count, 1, __ATOMIC_RELAXED);
	return d;
}
bool dget_not_dead(struct dentry *d);
void dput_slow(struct dentry *d);
/* dput's common case inline (a count that stays above zero: a cached
 * name's pin holds it there), one compare-and-swap; a put that may reach
 * zero goes to dcache.c, inside a read-side section */
static __always_inline void dput(struct dentry *d)
{
	if (likely(d)) {
		long c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
		if (likely(c > 1) &&
		    likely(__atomic_compare_exchange_n(&d->d_count, &c, c - 1, false, __ATOMIC_RELEASE,
						       __ATOMIC_RELAXED)))
			return;
		dput_slow(d);
	}
}
void d_genocide(struct dentry *root); /* instance teardown */

/* ---- inode.c ---- */
struct inode *new_inode(struct super_block *sb);
/*
 * Owner and mode of a new inode, as Linux's inode_init_owner: the owner is
 * the caller's fsuid; the group is the caller's fsgid unless the directory is
 * setgid, in which case the group is the directory's and new directories
 * inherit the setgid bit.  A setgid non-directory made by a caller that is
 * neither in the group nor privileged loses S_ISGID.
 */
static inline void inode_init_owner(struct inode *inode, struct inode *dir, umode_t mode, const struct cred *c)
{
	inode->i_uid = c->fsuid;
	if (dir && (dir->i_mode & S_ISGID)) {
		inode->i_gid = dir->i_gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
	} else {
		inode->i_gid = c->fsgid;
	}
	if ((mode & S_ISGID) && !S_ISDIR(mode) && (mode & S_IXGRP) && !in_group_p(c, inode->i_gid) &&
	    !cred_is_root(c))
		mode &= ~S_ISGID;
	inode->i_mode = mode;
}
struct inode *ihold(struct inode *inode);
void iput(struct inode *inode);
void inc_nlink(struct inode *inode);
static inline void drop_nlink(struct inode *inode)
{
	if (READ_ONCE(inode->i_nlink))
		WRITE_ONCE(inode->i_nlink, inode->i_nlink - 1);
}
void set_nlink(struct inode *inode, unsigned n);
/* The times as they are given (NULL: unchanged): a copy from another
 * store (hostfs's host, overlayfs's upper), never a change's stamp. */
void inode_set_times(struct inode *inode, const struct timespec *atime, const struct timespec *mtime,
		     const struct timespec *ctime);
/* A change's stamp: ctime, and each of atime and mtime that is NULL and
 * named in now_mask (INODE_NOW_A, INODE_NOW_M), takes the time of the
 * change, now (the coarse clock's, read once per operation) or the fine
 * clock's when the multigrain rule asks for it; atime and mtime given are
 * stored as they are.  Returns the ctime stored. */
#define INODE_NOW_A 1u
#define INODE_NOW_M 2u
/* now is another inode's stamp of the same change, taken as it is (Linux's
 * inode_set_ctime_to_ts): no fine stamp of its own, the mark cleared */
#define INODE_NOW_GIVEN 4u
struct timespec inode_stamp(struct inode *inode, struct timespec now, unsigned now_mask, const struct timespec *atime,
			    const struct timespec *mtime);
void inode_touch_mc(struct inode *inode);         /* mtime = ctime = now */
void inode_touch_c(struct inode *inode);          /* ctime = now */
/* As Linux's file_update_time, nothing is written when the times already
 * are the coarse clock's now and nobody has read them since (a stream of
 * changes within one tick takes the writers' lock once); with a time the
 * caller read for its whole call, as Linux's current_time once per
 * operation */
static inline bool inode_time_is(const struct timespec *t, struct timespec v)
{
	return READ_ONCE(t->tv_nsec) == v.tv_nsec && READ_ONCE(t->tv_sec) == v.tv_sec;
}
static inline void inode_touch_mc_at(struct inode *inode, struct timespec now)
{
	if (!READ_ONCE(inode->i_ctime_queried) && inode_time_is(&inode->i_mtime, now) &&
	    inode_time_is(&inode->i_ctime, now))
		return;
	inode_stamp(inode, now, INODE_NOW_M, NULL, NULL);
}
/* mtime = ctime = another inode's stamp of this change */
static inline void inode_set_mc_to(struct inode *inode, struct timespec stamp)
{
	if (!READ_ONCE(inode->i_ctime_queried) && inode_time_is(&inode->i_mtime, stamp) &&
	    inode_time_is(&inode->i_ctime, stamp))
		return;
	inode_stamp(inode, stamp, INODE_NOW_M | INODE_NOW_GIVEN, NULL, NULL);
}
/* returns the ctime the inode has now, for the change's other stamps */
static inline struct timespec inode_touch_c_at(struct inode *inode, struct timespec now)
{
	if (!READ_ONCE(inode->i_ctime_queried) && inode_time_is(&inode->i_ctime, now))
		return now;
	return inode_stamp(inode, now, 0, NULL, NULL);
}
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
static inline void inode_copy_times(const struct inode *inode, struct timespec *a, struct timespec *m,
				    struct timespec *c, struct timespec *b)
{
	seq_copy_time(a, &inode->i_atime);
	seq_copy_time(m, &inode->i_mtime);
	seq_copy_time(c, &inode->i_ctime);
	if (b)
		seq_copy_time(b, &inode->i_btime);
}
static inline void inode_read_times(const struct inode *inode, struct timespec *a, struct timespec *m,
				    struct timespec *c, struct timespec *b)
{
	unsigned seq;
	do {
		seq = read_seqcount_begin(&inode->i_time_seq);
		inode_copy_times(inode, a, m, c, b);
	} while (read_seqcount_retry(&inode->i_time_seq, seq));
}
/* The same for a stat, which marks the ctime it returns as seen: the next
 * change of the inode is stamped later than it (the multigrain rule).  The
 * mark is made inside the read section, so that it is on the ctime
 * returned; it and the writer's look at it are sequentially consistent
 * with the writer's lock and the reader's check of the count, so either
 * the writer sees the mark or the reader sees the writer (Dekker's
 * pattern). */
static inline void inode_query_times(struct inode *inode, struct timespec *a, struct timespec *m, struct timespec *c,
				     struct timespec *b)
{
	unsigned seq;
	for (;;) {
		seq = read_seqcount_begin(&inode->i_time_seq);
		inode_copy_times(inode, a, m, c, b);
		if (unlikely(!READ_ONCE(inode->i_ctime_queried))) {
			__atomic_store_n(&inode->i_ctime_queried, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&inode->i_time_seq.sequence, __ATOMIC_SEQ_CST) == seq)
				return;
		} else if (!read_seqcount_retry(&inode->i_time_seq, seq)) {
			return;
		}
	}
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
int generic_permission_slow(const struct cred *c, struct inode *inode, int mask);
/* The owner whose own class allows it, the common case, without the
 * slow path's saved registers; anything else is decided by the slow path
 * from the start (namei.c). */
static __always_inline int generic_permission_inline(const struct cred *c, struct inode *inode, int mask)
{
	umode_t mode = READ_ONCE(inode->i_mode);
	if (likely(c->fsuid == READ_ONCE(inode->i_uid)) &&
	    likely(!(mask & (MAY_READ | MAY_WRITE | MAY_EXEC) & ~((mode >> 6) & 7))))
		return 0;
	return generic_permission_slow(c, inode, mask);
}
/* inode_permission inline, for a create's and an unlink's check of the
 * directory (inode_permission is the same out of line) */
static __always_inline int __inode_permission(const struct cred *c, struct inode *inode, int mask)
{
	if (unlikely(mask & MAY_WRITE)) {
		/* Read-only filesystems: only files that are not regular, dirs or links escape. */
		umode_t mode = inode->i_mode;
		if ((READ_ONCE(inode->i_sb->s_flags) & SB_RDONLY) && (S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode)))
			return -EROFS;
		/* nobody, root included, writes to an immutable inode */
		if (IS_IMMUTABLE(inode))
			return -EPERM;
	}
	if (unlikely(inode->i_op->permission))
		return inode->i_op->permission(c, inode, mask);
	return generic_permission_inline(c, inode, mask);
}
int may_delete(const struct cred *c, struct inode *dir, struct dentry *victim, bool isdir);
/* may_delete inline, for the unlink of one name (may_delete is the same
 * out of line): sticky directories and the checks of Linux's may_delete,
 * in its order */
static __always_inline int __may_delete(const struct cred *c, struct inode *dir, struct dentry *victim, bool isdir)
{
	struct inode *inode = victim->d_inode;
	if (!inode)
		return -ENOENT;
	int err = __inode_permission(c, dir, MAY_WRITE | MAY_EXEC);
	if (err)
		return err;
	if (IS_APPEND(dir))
		return -EPERM;
	if (((READ_ONCE(dir->i_mode) & S_ISVTX) && c->fsuid != READ_ONCE(inode->i_uid) &&
	     c->fsuid != READ_ONCE(dir->i_uid) && !cred_is_root(c)) ||
	    IS_APPEND(inode) || IS_IMMUTABLE(inode))
		return -EPERM;
	if (isdir) {
		if (!S_ISDIR(READ_ONCE(inode->i_mode)))
			return -ENOTDIR;
		if (victim == victim->d_sb->s_root)
			return -EBUSY;
	} else if (S_ISDIR(READ_ONCE(inode->i_mode))) {
		return -EISDIR;
	}
	return 0;
}
bool inode_owner_or_capable(const struct cred *c, const struct inode *inode);
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
 * line with strnlen.  An absolute path goes there before the scan, which
 * would stop at its first byte having cost it some 30 instructions (the
 * test costs a one-name call 3). */
static __always_inline int getname(const char *upath, struct filename *out, unsigned lookup_flags)
{
	uint32_t hash;
	if (unlikely(!upath))
		return -EFAULT;
	if (unlikely(upath[0] == '/'))
		return getname_slow(upath, out, lookup_flags);
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
/* filename_parentat_borrow, parent_put, filename_open_walk: the parent of
 * one name, maybe borrowed (namei.h) */
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
/* a plain add to the thread's shard of the count (see namei.c's mntput) */
static inline struct mount *mntget(struct mount *m)
{
	if (m)
		pcounter_add_local(&m->m_count, 1);
	return m;
}
void mntput(struct mount *m);
void mnt_free_detached(struct mount *m); /* namespace.c */

static __always_inline void __mntput(struct mount *m)
{
	/* The read-side section keeps m's memory (freed by call_rcu) until we
	 * have looked at its flags: once our reference is gone another thread
	 * may release it.  It also orders the plain decrement against an
	 * umount, as Linux's mntput_no_expire: the umount marks the mount
	 * detached and then waits for a grace period before it sums the count,
	 * so a decrement that read the flag clear is visible to that sum, and
	 * one that reads it set comes here and sums under ns_lock itself. */
	urcu_memb_read_lock();
	pcounter_add_local(&m->m_count, -1);
	if (unlikely(READ_ONCE(m->m_flags) & MNT_DETACHED))
		mnt_free_detached(m);
	urcu_memb_read_unlock();
}

/* mntput inline, for the last put of an open file (__fput) */
static __always_inline void mntput_inline(struct mount *m)
{
	if (!m)
		return;
	/* a use of the mount: umount2(MNT_EXPIRE) must ask twice again */
	mnt_note_use(m);
	__mntput(m);
}
void mntput_no_expire(struct mount *m);
struct mount *lookup_mnt(struct mount *parent, struct dentry *mountpoint);
bool path_is_under(const struct path *p, const struct path *root);
int lock_rename(struct dentry *p1, struct dentry *p2, struct dentry **trap);
void unlock_rename(struct dentry *p1, struct dentry *p2);
static inline bool is_dir(const struct inode *i) { return S_ISDIR(READ_ONCE(i->i_mode)); }
/* EROFS for a change of a name or an attribute through a read-only mount
 * or superblock (Linux's mnt_want_write; nothing to drop afterwards: a
 * remount to read-only waits only for writers of open files).  Inline for
 * the create and the unlink of one name; mnt_want_write is the same out of
 * line (inline in do_filp_open's O_TRUNC, it cost open1 an instruction). */
static __always_inline int __mnt_want_write(struct mount *m)
{
	if (unlikely((READ_ONCE(m->m_flags) & MNT_RDONLY) || (READ_ONCE(m->m_sb->s_flags) & SB_RDONLY)))
		return -EROFS;
	return 0;
}
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
/* finish_open inline, for the opens of open.c (as a call it cost open1
 * and unlink1 some 26 instructions each) */
static __always_inline int __finish_open(struct file *f, const struct path *path, struct inode *inode, unsigned mode)
{
	f->f_path = *path;
	f->f_inode = inode;
	f->f_op = inode->i_fop;
	f->f_mode |= mode;
	if (mode & FMODE_WRITE) {
		/* a regular file written through the mount holds it writable
		 * (FIFOs and devices do not, as on Linux; a memfd has no mount) */
		if (S_ISREG(READ_ONCE(inode->i_mode)) && path->mnt) {
			int err = mnt_get_write_access(path->mnt);
			if (err) {
				f->f_path.dentry = NULL;
				f->f_path.mnt = NULL;
				return err;
			}
			f->f_mode |= FMODE_WRITER;
		}
		__atomic_fetch_add(&inode->i_writecount, 1, __ATOMIC_RELAXED);
	}
	if (f->f_op && f->f_op->open && !(mode & FMODE_PATH)) {
		int err = f->f_op->open(inode, f);
		if (err) {
			if (mode & FMODE_WRITE)
				__atomic_fetch_sub(&inode->i_writecount, 1, __ATOMIC_RELAXED);
			if (f->f_mode & FMODE_WRITER)
				mnt_put_write_access(path->mnt);
			f->f_mode &= ~FMODE_WRITER;
			f->f_path.dentry = NULL;
			f->f_path.mnt = NULL;
			return err;
		}
	}
	f->f_mode |= FMODE_OPENED;
	return 0;
}
struct file *alloc_file_pseudo(struct uvfs *vfs, struct super_block *sb, struct inode *inode, int flags,
			       const struct file_operations *fop);
/* x86-64 forces O_LARGEFILE on every open; glibc defines it as 0 there */
#define O_LARGEFILE_KERNEL 0100000

/* ---- memfd.c ---- */
long memfd_fcntl(struct file *f, unsigned cmd, unsigned arg);

/* ---- fdtable.c ---- */
struct files_struct *files_alloc(void);
struct files_struct *files_dup(struct files_struct *old, int *err);
void files_put(struct files_struct *files);
int alloc_fd_from(struct uvfs_proc *p, unsigned start, unsigned flags);
static inline int get_unused_fd_flags(struct uvfs_proc *p, unsigned flags)
{
	return alloc_fd_from(p, 0, flags);
}
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
#define ATTR_FILE 0x10000u /* ia_file is the open file of an ftruncate or an O_TRUNC open (Linux's) */
struct iattr {
	unsigned ia_valid;
	umode_t ia_mode;
	uid_t ia_uid;
	gid_t ia_gid;
	loff_t ia_size;
	struct timespec ia_atime, ia_mtime;
	struct file *ia_file; /* with ATTR_FILE */
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
void inode_killpriv_mark(struct inode *inode, const char *name, size_t size);

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
/* ->release of a dcache_readdir directory: puts the name a reader stopped at */
void dcache_dir_release(struct inode *inode, struct file *f);

/* ---- namespace.c ---- */
int namespace_init(struct uvfs *vfs, struct super_block *root_sb);
void namespace_fini(struct uvfs *vfs);
struct super_block *sget(struct uvfs *vfs, const struct super_operations *ops, unsigned long magic);
void deactivate_super(struct super_block *sb);

/* ---- the API entry protocol and the call's cred ---- */
#include "api.h"

#endif /* UVFS_CORE_VFS_H */
