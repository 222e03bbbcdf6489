// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stat.c - stat, statx, statfs (Linux's fs/stat.c and fs/statfs.c).
 *
 * Path forms run their whole work inside the RCU walk: the attributes are
 * copied from the inode in the read-side section and kept if nothing moved.
 */
#include "vfs.h"
#include "namei.h"
#include "stat.h"
#include "notify/fsnotify.h"
#include <sys/sysmacros.h>

static __always_inline void fillattr(struct inode *inode, struct kstat *st, bool seen)
{
	/* before the attributes are read: a first-write listener hears the
	 * next write (notify/change.c) */
	fsnotify_observe(inode);
	st->ino = inode->i_ino;
	st->dev = inode->i_sb->s_dev;
	st->mode = READ_ONCE(inode->i_mode);
	st->nlink = READ_ONCE(inode->i_nlink);
	st->uid = READ_ONCE(inode->i_uid);
	st->gid = READ_ONCE(inode->i_gid);
	st->rdev = READ_ONCE(inode->i_rdev);
	st->size = READ_ONCE(inode->i_size);
	st->blocks = READ_ONCE(inode->i_blocks);
	st->blksize = 4096;
	if (seen)
		inode_query_times(inode, &st->atime, &st->mtime, &st->ctime, &st->btime);
	else
		inode_read_times(inode, &st->atime, &st->mtime, &st->ctime, &st->btime);
}

void generic_fillattr(struct inode *inode, struct kstat *st)
{
	fillattr(inode, st, true);
}

int vfs_getattr(struct inode *inode, struct kstat *st)
{
	generic_fillattr(inode, st);
	return inode->i_op->getattr ? inode->i_op->getattr(inode, st) : 0;
}

/* As vfs_getattr for a filesystem's own copy of another inode's attributes
 * (overlayfs's of its real inodes after a change), which no stat returns:
 * the times are not marked as seen (Linux's ovl_copyattr reads them from
 * the inode), so the next change is not stamped with the fine clock for
 * it. */
int vfs_getattr_unseen(struct inode *inode, struct kstat *st)
{
	fillattr(inode, st, false);
	return inode->i_op->getattr ? inode->i_op->getattr(inode, st) : 0;
}

/* A filesystem's ->getattr may block and needs its inode held: called out
 * of RCU mode (lookup_fn_leave_rcu); an inode already on its way out
 * answers from its cached attributes. */
static int getattr_any_mode(struct inode *inode, struct kstat *st, bool seen)
{
	int left = lookup_fn_leave_rcu(inode);
	if (left < 0) {
		fillattr(inode, st, seen);
		return 0;
	}
	int err = seen ? vfs_getattr(inode, st) : vfs_getattr_unseen(inode, st);
	if (left)
		lookup_fn_enter_rcu(inode);
	return err;
}

static void kstat_to_stat(const struct kstat *k, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = k->dev;
	st->st_ino = k->ino;
	st->st_mode = k->mode;
	st->st_nlink = k->nlink;
	st->st_uid = k->uid;
	st->st_gid = k->gid;
	st->st_rdev = k->rdev;
	st->st_size = k->size;
	st->st_blksize = k->blksize;
	st->st_blocks = (blkcnt_t)k->blocks;
	st->st_atim = k->atime;
	st->st_mtim = k->mtime;
	st->st_ctim = k->ctime;
}

static __cold int stat_getattr(struct inode *inode, struct stat *st)
{
	struct kstat k;
	int err = getattr_any_mode(inode, &k, true);
	if (!err)
		kstat_to_stat(&k, st);
	return err;
}

static void fill_stat(struct inode *inode, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = inode->i_sb->s_dev;
	st->st_ino = inode->i_ino;
	st->st_mode = READ_ONCE(inode->i_mode);
	st->st_nlink = READ_ONCE(inode->i_nlink);
	st->st_uid = READ_ONCE(inode->i_uid);
	st->st_gid = READ_ONCE(inode->i_gid);
	st->st_rdev = READ_ONCE(inode->i_rdev);
	st->st_size = READ_ONCE(inode->i_size);
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)READ_ONCE(inode->i_blocks);
	inode_query_times(inode, &st->st_atim, &st->st_mtim, &st->st_ctim, NULL);
}

static __always_inline long stat_fn(struct inode *inode, struct dentry *d, struct mount *m, void *arg)
{
	if (unlikely(inode->i_op->getattr))
		return stat_getattr(inode, arg);
	fsnotify_observe(inode); /* as generic_fillattr; fill_stat stays a leaf */
	fill_stat(inode, arg);
	return 0;
}

UVFS_API int uvfs_fstat(struct uvfs_proc *p, int fd, struct stat *st)
{
	API_ENTER_PROC(p);
	struct fd fd_ = fdget_raw(p, fd);
	if (!fd_.file)
		API_RETURN(-EBADF);
	int err = 0;
	struct inode *inode = fd_.file->f_inode;
	if (!st) {
		err = -EFAULT;
	} else if (unlikely(inode->i_op->getattr)) {
		err = stat_getattr(inode, st);
	} else {
		fsnotify_observe(inode); /* as generic_fillattr */
		fill_stat(inode, st);
	}
	fdput(p, fd_);
	API_RETURN(err);
}

/* fstatat: EINVAL (flags); the walk's; EFAULT. */
UVFS_API int uvfs_fstatat(struct uvfs_proc *p, int dfd, const char *pathname, struct stat *st, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH))
		API_RETURN(-EINVAL);
	if (!pathname && (flags & AT_EMPTY_PATH))
		pathname = "";
	unsigned lf = at_lookup_flags(flags);
	struct filename name;
	int err = getname(pathname, &name, lf);
	if (err)
		API_RETURN(err);
	if (!st)
		API_RETURN(-EFAULT);
	API_RETURN(filename_lookup_fn_inline(p, dfd, &name, lf, stat_fn, st));
}

struct statx_args {
	struct statx *stx;
	unsigned mask;
};

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE_ 0x4000U /* Linux 6.8 */
#else
#define STATX_MNT_ID_UNIQUE_ STATX_MNT_ID_UNIQUE
#endif

static unsigned mount_id(struct mount *m)
{
	return (unsigned)(((uintptr_t)m >> 6) & 0x7fffffff);
}

/*
 * What a statx that asks for mask returns, as Linux's: the birth time only
 * when asked for (shmem_getattr, ext4_getattr); and on a multigrain
 * filesystem, mtime and ctime only when one of them is asked for, and only
 * then is the ctime marked as seen (fill_mg_cmtime).
 */
static int fill_statx(struct inode *inode, struct dentry *d, struct mount *m, struct statx *stx, unsigned mask)
{
	/* before a ->getattr, which may leave the read-side section */
	bool mnt_root = m && d == m->m_root;
	bool cmtime = (mask & (STATX_CTIME | STATX_MTIME)) || !(inode->i_sb->s_flags & SB_MGTIME);
	struct kstat k;
	if (unlikely(inode->i_op->getattr)) {
		int err = getattr_any_mode(inode, &k, cmtime);
		if (err)
			return err;
	} else {
		fillattr(inode, &k, cmtime);
	}
	memset(stx, 0, sizeof(*stx));
	/* Linux's vfs_getattr_nosec and vfs_statx_path: a pseudo file has no
	 * birth time and no chattr attributes; the unique mount id when asked */
	bool pseudo = inode->i_sb->s_flags & SB_PSEUDO;
	bool unique = mask & STATX_MNT_ID_UNIQUE_;
	stx->stx_mask = (STATX_BASIC_STATS & ~(cmtime ? 0 : STATX_CTIME | STATX_MTIME)) |
			(pseudo ? 0 : mask & STATX_BTIME) | (unique ? STATX_MNT_ID_UNIQUE_ : STATX_MNT_ID);
	stx->stx_blksize = k.blksize;
	stx->stx_attributes_mask = STATX_ATTR_AUTOMOUNT | STATX_ATTR_DAX | STATX_ATTR_MOUNT_ROOT |
				   (pseudo ? 0 : STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE | STATX_ATTR_NODUMP);
	if (mnt_root)
		stx->stx_attributes |= STATX_ATTR_MOUNT_ROOT;
	/* chattr's flags, as shmem_getattr reports them */
	unsigned fl = READ_ONCE(inode->i_flags);
	if (unlikely(fl & (S_IMMUTABLE | S_APPEND | S_NODUMP_)))
		stx->stx_attributes |= ((fl & S_IMMUTABLE) ? STATX_ATTR_IMMUTABLE : 0) |
				       ((fl & S_APPEND) ? STATX_ATTR_APPEND : 0) | ((fl & S_NODUMP_) ? STATX_ATTR_NODUMP : 0);
	stx->stx_nlink = k.nlink;
	stx->stx_uid = k.uid;
	stx->stx_gid = k.gid;
	stx->stx_mode = (uint16_t)k.mode;
	stx->stx_ino = k.ino;
	stx->stx_size = (uint64_t)k.size;
	stx->stx_blocks = k.blocks;
	stx->stx_atime.tv_sec = k.atime.tv_sec;
	stx->stx_atime.tv_nsec = (uint32_t)k.atime.tv_nsec;
	if (stx->stx_mask & STATX_BTIME) {
		stx->stx_btime.tv_sec = k.btime.tv_sec;
		stx->stx_btime.tv_nsec = (uint32_t)k.btime.tv_nsec;
	}
	if (cmtime) {
		stx->stx_ctime.tv_sec = k.ctime.tv_sec;
		stx->stx_ctime.tv_nsec = (uint32_t)k.ctime.tv_nsec;
		stx->stx_mtime.tv_sec = k.mtime.tv_sec;
		stx->stx_mtime.tv_nsec = (uint32_t)k.mtime.tv_nsec;
	}
	stx->stx_rdev_major = major(k.rdev);
	stx->stx_rdev_minor = minor(k.rdev);
	stx->stx_dev_major = major(k.dev);
	stx->stx_dev_minor = minor(k.dev);
	stx->stx_mnt_id = !m ? 0 : unique ? m->m_id_unique : mount_id(m);
	return 0;
}

static long statx_fn(struct inode *inode, struct dentry *d, struct mount *m, void *arg)
{
	struct statx_args *a = arg;
	return fill_statx(inode, d, m, a->stx, a->mask);
}

/* statx: EINVAL (flags, sync type, reserved mask bits); the walk's; EFAULT. */
UVFS_API int uvfs_statx(struct uvfs_proc *p, int dfd, const char *pathname, int flags, unsigned mask,
			struct statx *stx)
{
	API_ENTER_PROC(p);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		API_RETURN(-EINVAL);
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		API_RETURN(-EINVAL);
	if (mask & STATX__RESERVED)
		API_RETURN(-EINVAL);
	if (!pathname && (flags & AT_EMPTY_PATH))
		pathname = "";
	unsigned lf = at_lookup_flags(flags);
	struct filename name;
	int err = getname(pathname, &name, lf);
	if (err)
		API_RETURN(err);
	if (!stx)
		API_RETURN(-EFAULT);
	struct statx_args a = { stx, mask };
	API_RETURN(filename_lookup_fn(p, dfd, &name, lf, statx_fn, &a));
}

/* The superblock's figures, as Linux's statfs_by_dentry: f_frsize is
 * f_bsize where the filesystem left it 0 */
static int sb_statfs(struct super_block *sb, struct statfs *buf)
{
	int err = sb->s_op->statfs(sb, buf);
	if (!err && !buf->f_frsize)
		buf->f_frsize = buf->f_bsize;
	return err;
}

static int statfs_path(struct mount *m, struct super_block *sb, struct statfs *buf)
{
	int err = sb_statfs(sb, buf);
	if (err)
		return err;
	buf->f_flags = ST_VALID_;
	unsigned mf = READ_ONCE(m->m_flags); /* remount changes it under ns_lock */
	if ((mf & MNT_RDONLY) || (READ_ONCE(sb->s_flags) & SB_RDONLY))
		buf->f_flags |= ST_RDONLY;
	if (mf & MNT_NOSUID)
		buf->f_flags |= ST_NOSUID;
	if (mf & MNT_NODEV)
		buf->f_flags |= ST_NODEV;
	if (mf & MNT_NOEXEC)
		buf->f_flags |= ST_NOEXEC;
	if (mf & MNT_NOATIME)
		buf->f_flags |= ST_NOATIME;
	else if (!(mf & MNT_STRICTATIME))
		buf->f_flags |= ST_RELATIME;
	if (mf & MNT_NODIRATIME)
		buf->f_flags |= ST_NODIRATIME;
	return 0;
}

UVFS_API int uvfs_fstatfs(struct uvfs_proc *p, int fd, struct statfs *buf)
{
	API_ENTER_PROC(p);
	struct file *f = fget_raw(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err;
	if (!buf)
		err = -EFAULT;
	else if (!f->f_path.mnt) {
		/* a pseudo file: its superblock's figures, and the flags of
		 * Linux's internal mount of it (none but ST_VALID) */
		err = sb_statfs(f->f_inode->i_sb, buf);
		if (!err)
			buf->f_flags = ST_VALID_;
	} else
		err = statfs_path(f->f_path.mnt, f->f_inode->i_sb, buf);
	fput(f);
	API_RETURN(err);
}

UVFS_API int uvfs_statfs(struct uvfs_proc *p, const char *pathname, struct statfs *buf)
{
	API_ENTER_PROC(p);
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	if (!buf)
		API_RETURN(-EFAULT);
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, LOOKUP_FOLLOW, &path);
	if (err)
		API_RETURN(err);
	err = statfs_path(path.mnt, path.dentry->d_sb, buf);
	path_put(&path);
	API_RETURN(err);
}
