// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stat.c - stat, statx, statfs (Linux's fs/stat.c and fs/statfs.c).
 *
 * Path forms run their whole work inside the RCU walk: the attributes are
 * copied from the inode in the read-side section and kept if nothing moved.
 */
#include "vfs.h"
#include "namei.h"
#include <sys/sysmacros.h>

static void fill_stat(struct inode *inode, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = inode->i_sb->s_dev;
	st->st_ino = inode->i_ino;
	st->st_mode = READ_ONCE(inode->i_mode);
	st->st_nlink = READ_ONCE(inode->i_nlink);
	st->st_uid = READ_ONCE(inode->i_uid);
	st->st_gid = READ_ONCE(inode->i_gid);
	st->st_rdev = inode->i_rdev;
	st->st_size = READ_ONCE(inode->i_size);
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)READ_ONCE(inode->i_blocks);
	inode_read_times(inode, &st->st_atim, &st->st_mtim, &st->st_ctim, NULL);
}

static long stat_fn(struct inode *inode, struct dentry *d, struct mount *m, void *arg)
{
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
	if (st)
		fill_stat(fd_.file->f_inode, st);
	else
		err = -EFAULT;
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

static unsigned mount_id(struct mount *m)
{
	return (unsigned)(((uintptr_t)m >> 6) & 0x7fffffff);
}

static void fill_statx(struct inode *inode, struct dentry *d, struct mount *m, struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = STATX_BASIC_STATS | STATX_BTIME | STATX_MNT_ID;
	stx->stx_blksize = 4096;
	stx->stx_attributes_mask = STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE | STATX_ATTR_NODUMP |
				   STATX_ATTR_MOUNT_ROOT;
	if (m && d == m->m_root)
		stx->stx_attributes |= STATX_ATTR_MOUNT_ROOT;
	stx->stx_nlink = READ_ONCE(inode->i_nlink);
	stx->stx_uid = READ_ONCE(inode->i_uid);
	stx->stx_gid = READ_ONCE(inode->i_gid);
	stx->stx_mode = (uint16_t)READ_ONCE(inode->i_mode);
	stx->stx_ino = inode->i_ino;
	stx->stx_size = (uint64_t)READ_ONCE(inode->i_size);
	stx->stx_blocks = READ_ONCE(inode->i_blocks);
	struct timespec at, mt, ct, bt;
	inode_read_times(inode, &at, &mt, &ct, &bt);
	stx->stx_atime.tv_sec = at.tv_sec;
	stx->stx_atime.tv_nsec = (uint32_t)at.tv_nsec;
	stx->stx_btime.tv_sec = bt.tv_sec;
	stx->stx_btime.tv_nsec = (uint32_t)bt.tv_nsec;
	stx->stx_ctime.tv_sec = ct.tv_sec;
	stx->stx_ctime.tv_nsec = (uint32_t)ct.tv_nsec;
	stx->stx_mtime.tv_sec = mt.tv_sec;
	stx->stx_mtime.tv_nsec = (uint32_t)mt.tv_nsec;
	stx->stx_rdev_major = major(inode->i_rdev);
	stx->stx_rdev_minor = minor(inode->i_rdev);
	stx->stx_dev_major = major(inode->i_sb->s_dev);
	stx->stx_dev_minor = minor(inode->i_sb->s_dev);
	stx->stx_mnt_id = m ? mount_id(m) : 0;
}

static long statx_fn(struct inode *inode, struct dentry *d, struct mount *m, void *arg)
{
	struct statx_args *a = arg;
	fill_statx(inode, d, m, a->stx);
	return 0;
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

static int statfs_path(struct mount *m, struct super_block *sb, struct statfs *buf)
{
	int err = sb->s_op->statfs(sb, buf);
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
	else
		buf->f_flags |= ST_RELATIME;
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
	else if (!f->f_path.mnt)
		err = f->f_inode->i_sb->s_op->statfs(f->f_inode->i_sb, buf);
	else
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
