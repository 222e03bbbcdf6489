/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * inode.h - struct inode and the inode and file operation tables.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_INODE_H
#define UVFS_CORE_INODE_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

/* ---- inode ---- */

struct inode_operations {
	/* Directories; called with the directory's i_rwsem held exclusive, the
	 * dentry negative and hashed. */
	int (*create)(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c);
	int (*mkdir)(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c);
	int (*mknod)(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c);
	int (*symlink)(struct inode *dir, struct dentry *d, const char *target, const struct cred *c);
	int (*link)(struct dentry *old, struct inode *dir, struct dentry *d);
	/* unlink and rmdir: d positive and hashed, its inode's i_rwsem held
	 * exclusive too.  unlink removes the name and drops the link count
	 * and leaves the dentry as it is (hashed, pinned if it was): after a
	 * success the caller's d_delete takes it out of the dcache, as Linux's
	 * vfs_unlink (uvfs_unlinkat; a filesystem that unlinks in another's
	 * directory calls d_delete itself, as overlayfs's ovl_do_unlink).
	 * rmdir takes its dentry out itself (d_delete_entry). */
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

	/*
	 * FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (ioctl.c; NULL: ENOTTY): the
	 * FS_*_FL flags of <linux/fs.h> the filesystem keeps (Linux's
	 * fileattr_get/set, flags only).  fileattr_set is called with
	 * i_rwsem held exclusive after the VFS's checks (the owner, root for
	 * a change of FS_IMMUTABLE_FL or FS_APPEND_FL): EOPNOTSUPP for a flag
	 * it does not keep, else it stores them, sets the inode's S_IMMUTABLE,
	 * S_APPEND and S_NOATIME to match (inode_set_fsflags) and moves ctime.
	 */
	int (*fileattr_get)(struct inode *inode, unsigned *flags);
	int (*fileattr_set)(struct inode *inode, unsigned flags);

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

	/* The file's seals (F_SEAL_*, Linux's memfd_file_seals_ptr): the word
	 * fcntl's F_GET_SEALS reads and F_ADD_SEALS adds to under the inode's
	 * i_rwsem, and the filesystem enforces on write, truncate, fallocate
	 * and chmod.  NULL: the file cannot have seals (-EINVAL), as every
	 * file but a tmpfs regular file's on Linux (shmem and hugetlbfs). */
	unsigned *(*file_seals)(struct file *f);

	unsigned fop_flags; /* FOP_* */
};
/* fallocate drops the set-id bits before the filesystem's own checks,
 * whatever it then answers (overlayfs: Linux's ovl_fallocate calls
 * file_remove_privs first; tmpfs only once the mode is one it does) */
#define FOP_PRIVS_FIRST 1u

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
#define S_KILLPRIV 16u      /* a regular file that may carry a non-empty security.capability (set and cleared
                             by setxattr, atomic or/and): a write, truncate or chown drops it (inode_killpriv,
                             xattr.c) */
#define ST_VALID_ 0x20
/* The inode flags FS_IOC_SETFLAGS sets (ioctl.c, Linux's S_IMMUTABLE,
 * S_APPEND, S_NOATIME); atomic or/and by the filesystem's ->fileattr_set
 * under i_rwsem, read with READ_ONCE by the checks. */
#define S_IMMUTABLE 0x40u   /* no change of data, names, attributes or links (EPERM) */
#define S_APPEND 0x80u      /* writes only at the end; no truncate, unlink or rename (EPERM) */
#define S_NOATIME 0x100u    /* reads never move atime */
#define S_NODUMP_ 0x200u    /* FS_NODUMP_FL: only statx's STATX_ATTR_NODUMP reads it */
/* an anon inode (Linux's S_PRIVATE): no security module is asked about it,
 * so a security.* change by non-root is the filesystem's EOPNOTSUPP, not
 * commoncap's EPERM (xattr.c) */
#define S_PRIVATE 0x400u
/* i_flags: every change is an atomic or/and (inode_flags_set/clear), as
 * the chattr flags are read with no lock (IS_APPEND in may_open, races a
 * rename's S_DEAD_DIR); readers outside the inode's lock use READ_ONCE. */
#define inode_flags_set(inode, bits) ((void)__atomic_fetch_or(&(inode)->i_flags, (bits), __ATOMIC_RELAXED))
#define inode_flags_clear(inode, bits) ((void)__atomic_fetch_and(&(inode)->i_flags, ~(unsigned)(bits), __ATOMIC_RELAXED))
#define IS_IMMUTABLE(inode) (unlikely(READ_ONCE((inode)->i_flags) & S_IMMUTABLE))
#define IS_APPEND(inode) (unlikely(READ_ONCE((inode)->i_flags) & S_APPEND))
/* FS_IMMUTABLE_FL, FS_APPEND_FL, FS_NOATIME_FL of <linux/fs.h> */
#define UVFS_FS_IMMUTABLE_FL 0x10u
#define UVFS_FS_APPEND_FL 0x20u
#define UVFS_FS_NOATIME_FL 0x80u
#define UVFS_FS_NODUMP_FL 0x40u

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
	unsigned i_ctime_queried; /* a stat has returned i_ctime since it was stamped (inode_query_times) */

	long i_count; /* references: dentries and in-flight users (atomic) */
	const struct inode_operations *i_op; /* set before the inode is seen, fixed for its life */
	const struct file_operations *i_fop;
	struct super_block *i_sb;
	const struct super_operations *i_sop; /* for the deferred free, which may outlive i_sb */

	/* Symlinks: the body, cached with its length when the link is made
	 * (Linux's i_link and inode_set_cached_link); freed with the inode. */
	const char *i_link;
	unsigned i_linklen;

	struct rw_semaphore i_rwsem; /* dir: namespace changes (excl) / readdir (shared); file: write (excl) / read */
	spinlock_t i_lock;        /* i_pipe, i_link's first store, tmpfs's xattrs: short sections that never sleep */
	long i_writecount;        /* open for write (ETXTBSY is not modelled) */
	void *i_private;          /* filesystem data */
	struct pipe_inode_info *i_pipe; /* pipes, and FIFOs while open (pipe.c); under i_lock */
	/* Immutable once published, replaced whole under i_rwsem and freed
	 * after a grace period: the permission check reads them under RCU. */
	struct posix_acl *i_acl;
	struct posix_acl *i_default_acl;

	struct file_lock_context *i_flctx; /* file locks (locks.c): made by the first, freed with the inode */




	unsigned i_sb_shard; /* its list in sb->s_inode_shards */
	/* notify/change.c: which proc's writes the first-write listeners have
	 * taken since the inode was last read or stat'ed (0: none); atomic */
	unsigned long i_change_seen;

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

/* The FS_*_FL flags the inode's flags stand for (inode_set_fsflags's
 * inverse). */
static inline unsigned inode_fsflags(const struct inode *inode)
{
	unsigned f = READ_ONCE(inode->i_flags);
	return ((f & S_IMMUTABLE) ? UVFS_FS_IMMUTABLE_FL : 0) | ((f & S_APPEND) ? UVFS_FS_APPEND_FL : 0) |
	       ((f & S_NOATIME) ? UVFS_FS_NOATIME_FL : 0) | ((f & S_NODUMP_) ? UVFS_FS_NODUMP_FL : 0);
}

/* A filesystem's fileattr_set (and its new inodes' inherited flags): the
 * inode flags the VFS checks follow the FS_*_FL flags. */
static inline void inode_set_fsflags(struct inode *inode, unsigned fsflags)
{
	unsigned set = ((fsflags & UVFS_FS_IMMUTABLE_FL) ? S_IMMUTABLE : 0) |
		       ((fsflags & UVFS_FS_APPEND_FL) ? S_APPEND : 0) | ((fsflags & UVFS_FS_NOATIME_FL) ? S_NOATIME : 0) |
		       ((fsflags & UVFS_FS_NODUMP_FL) ? S_NODUMP_ : 0);
	inode_flags_clear(inode, (S_IMMUTABLE | S_APPEND | S_NOATIME | S_NODUMP_) & ~set);
	if (set)
		inode_flags_set(inode, set);
}

#endif
