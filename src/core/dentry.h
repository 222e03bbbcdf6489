/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dentry.h - struct dentry and its flags.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_DENTRY_H
#define UVFS_CORE_DENTRY_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

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
	uint64_t d_time;            /* the filesystem's, for d_revalidate (atomic): a name's own stamp */
	struct rcu_head d_rcu;
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
/* A removed name: out of the hash and not a tree's root (Linux's
 * d_unlinked).  The root of a bind mount is an ordinary dentry of its
 * filesystem, removed when its name is. */
static inline bool d_unlinked(const struct dentry *d)
{
	return d_unhashed(d) && READ_ONCE(d->d_parent) != d; /* a rename may move d */
}

#endif
