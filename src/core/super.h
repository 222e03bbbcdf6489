/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * super.h - struct super_block and its operations.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_SUPER_H
#define UVFS_CORE_SUPER_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

/* ---- super_block ---- */
#define SB_RDONLY 1u
#define SB_NOATIME 2u
#define SB_KERNMOUNT 4u /* internal, never reached by a path (pipefs) */
#define SB_EXPORT 8u /* file handles open its inodes (fhandle.c): every inode has a dentry in the tree */
/* The dcache's positive names are the filesystem's own: nothing changes them
 * behind uvfs, so the path cache may go through its directories although
 * they have ->lookup (hostfs cache=exclusive: a miss asks the host, a name
 * found stays what it is until uvfs changes it). */
#define SB_DCACHE_EXACT 16u
/* Multigrain timestamps (Linux's FS_MGTIME, tmpfs's since 6.13): a change
 * after a stat of the inode is stamped with the fine clock when the coarse
 * one has not moved past the ctime the stat returned (inode_stamp), and a
 * statx that asks for neither mtime nor ctime gets neither (fill_statx).
 * hostfs over a multigrain host filesystem and overlayfs over a multigrain
 * layer set it too, for the statx rule (their times are the host's or the
 * real inodes'). */
#define SB_MGTIME 32u
/* A pseudo filesystem (pipefs, anon_inodefs): its inodes have no birth time
 * and take no chattr flags, so statx reports neither (Linux's
 * generic_fillattr alone, where tmpfs's getattr adds them). */
#define SB_PSEUDO 64u

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



	/* Optional: the object an inode stands for, where two inodes may
	 * stand for one (overlayfs: each name of a hard-linked object has an
	 * overlay inode of its own).  rename compares these where Linux's
	 * vfs_rename compares inodes: two names of one object are 0 before
	 * any permission check. */
	struct inode *(*real_inode)(struct inode *inode);

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
	/* What the change listeners of the instance want (notify/change.c):
	 * FSN_WANT bits, and the write generation above FSN_GEN_SHIFT; read
	 * beside s_fsnotify_watchers by the inline hooks of fsnotify.h */
	unsigned s_change_mask;
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

#endif
