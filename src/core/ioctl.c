// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ioctl.c - uvfs_ioctl (Linux's fs/ioctl.c): the requests the VFS answers
 * for every file, then the file's own ->unlocked_ioctl.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include <sys/ioctl.h>
#include <linux/fs.h>

#define ENOIOCTLCMD 515 /* Linux's: not this layer's request, ask the file's own ioctl */

/*
 * FS_IOC_GETFLAGS (Linux's ioctl_getflags): the filesystem's flags, EFAULT
 * for a NULL arg after them; ENOIOCTLCMD (the file's own ioctl, or ENOTTY)
 * where it keeps none.
 */
static long ioctl_getflags(struct file *f, void *arg)
{
	struct inode *inode = f->f_inode;
	if (!inode->i_op->fileattr_get)
		return -ENOIOCTLCMD;
	unsigned flags = 0;
	down_read(&inode->i_rwsem);
	int err = inode->i_op->fileattr_get(inode, &flags);
	up_read(&inode->i_rwsem);
	if (err)
		return err;
	if (!arg)
		return -EFAULT;
	*(int *)arg = (int)flags;
	return 0;
}

/* FS_IOC_FSGETXATTR: the same flags as xflags (Linux's fileattr_fill_flags);
 * no extent size, no project. */
static const struct { unsigned fl, xfl; } xflag_map[] = {
	{ FS_SYNC_FL, FS_XFLAG_SYNC },		{ FS_IMMUTABLE_FL, FS_XFLAG_IMMUTABLE },
	{ FS_APPEND_FL, FS_XFLAG_APPEND },	{ FS_NODUMP_FL, FS_XFLAG_NODUMP },
	{ FS_NOATIME_FL, FS_XFLAG_NOATIME },	{ 0x02000000 /* FS_DAX_FL */, FS_XFLAG_DAX },
	{ FS_PROJINHERIT_FL, FS_XFLAG_PROJINHERIT },
};
#define XFLAG_COMMON                                                                                         \
	(FS_XFLAG_SYNC | FS_XFLAG_IMMUTABLE | FS_XFLAG_APPEND | FS_XFLAG_NODUMP | FS_XFLAG_NOATIME | FS_XFLAG_DAX | \
	 FS_XFLAG_PROJINHERIT)

static long ioctl_fsgetxattr(struct file *f, void *arg)
{
	unsigned flags;
	long err = ioctl_getflags(f, &flags);
	if (err)
		return err;
	if (!arg)
		return -EFAULT;
	struct fsxattr x;
	memset(&x, 0, sizeof(x));
	for (size_t i = 0; i < sizeof(xflag_map) / sizeof(xflag_map[0]); i++)
		if (flags & xflag_map[i].fl)
			x.fsx_xflags |= xflag_map[i].xfl;
	memcpy(arg, &x, sizeof(x));
	return 0;
}

static long ioctl_setflags_common(struct uvfs_proc *p, struct file *f, unsigned flags, bool fsx);

/* FS_IOC_FSSETXATTR: xflags made flags; a filesystem that keeps flags only
 * (tmpfs) refuses any other xflag, extent size or project (EOPNOTSUPP),
 * after the checks of FS_IOC_SETFLAGS. */
static long ioctl_fssetxattr(struct uvfs_proc *p, struct file *f, void *arg)
{
	if (!arg)
		return -EFAULT;
	struct fsxattr x;
	memcpy(&x, arg, sizeof(x));
	unsigned flags = 0;
	for (size_t i = 0; i < sizeof(xflag_map) / sizeof(xflag_map[0]); i++)
		if (x.fsx_xflags & xflag_map[i].xfl)
			flags |= xflag_map[i].fl;
	bool fsx = (x.fsx_xflags & ~XFLAG_COMMON) || x.fsx_extsize || x.fsx_projid || x.fsx_cowextsize;
	return ioctl_setflags_common(p, f, flags, fsx);
}

/*
 * FS_IOC_SETFLAGS, in the order of Linux's ioctl_setflags and
 * vfs_fileattr_set: EFAULT (a NULL arg); EROFS (a read-only mount, unless
 * the file is open for writing); ENOIOCTLCMD where the filesystem keeps no
 * flags; EPERM (neither the owner nor root); EPERM (a change of
 * FS_IMMUTABLE_FL or FS_APPEND_FL by anyone but root: CAP_LINUX_IMMUTABLE);
 * then the filesystem's EOPNOTSUPP.  No event: Linux's sends none.
 */
static long ioctl_setflags(struct uvfs_proc *p, struct file *f, void *arg)
{
	if (!arg)
		return -EFAULT;
	return ioctl_setflags_common(p, f, *(unsigned *)arg, false);
}

/* fsx: FS_IOC_FSSETXATTR asked for more than flags */
static long ioctl_setflags_common(struct uvfs_proc *p, struct file *f, unsigned flags, bool fsx)
{
	struct inode *inode = f->f_inode;
	if (!(f->f_mode & FMODE_WRITE) && f->f_path.mnt) { /* pseudo files have no mount */
		int err = mnt_want_write(f->f_path.mnt);
		if (err)
			return err;
	}
	if (!inode->i_op->fileattr_set)
		return -ENOIOCTLCMD;
	const struct cred *c = current_cred();
	if (!inode_owner_or_capable(c, inode))
		return -EPERM;
	down_write(&inode->i_rwsem);
	unsigned old = 0;
	int err = inode->i_op->fileattr_get ? inode->i_op->fileattr_get(inode, &old) : 0;
	if (!err && ((flags ^ old) & (FS_APPEND_FL | FS_IMMUTABLE_FL)) && !cred_is_root(c))
		err = -EPERM;
	if (!err && fsx)
		err = -EOPNOTSUPP; /* no filesystem here keeps xflags of its own */
	if (!err)
		err = inode->i_op->fileattr_set(inode, flags);
	up_write(&inode->i_rwsem);
	/* ctime moved: the change listeners hear it (uvfs-fuse drops the
	 * kernel's cached attributes); ATTR_CTIME alone queues no inotify
	 * event, as Linux's ioctl sends none */
	if (!err && f->f_path.dentry)
		fsnotify_change(p, f->f_path.dentry, ATTR_CTIME);
	return err;
}

/*
 * ioctl(2): EBADF (not open, or O_PATH); then by request:
 *   FIOCLEX, FIONCLEX   set or clear close-on-exec;
 *   FIONBIO             *(int *)arg: set or clear O_NONBLOCK (EFAULT: NULL);
 *   FIONREAD            regular files: bytes from the position to the end
 *                       (negative past it, as Linux); pipes and FIFOs: bytes
 *                       buffered; EFAULT for a NULL arg;
 *   FS_IOC_GETFLAGS, FS_IOC_SETFLAGS  *(int *)arg: the FS_*_FL flags
 *                       (chattr), where the filesystem keeps them;
 *   FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR  struct fsxattr: the same as
 *                       xflags (xfs_io's chattr);
 *   anything else       the file's ->unlocked_ioctl, or ENOTTY.
 */
UVFS_API int uvfs_ioctl(struct uvfs_proc *p, int fd, unsigned long req, void *arg)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	long err;
	switch (req) {
	case FIOCLEX:
	case FIONCLEX:
		set_close_on_exec(p, fd, req == FIOCLEX);
		err = 0;
		break;
	case FIONBIO:
		if (!arg) {
			err = -EFAULT;
			break;
		}
		if (*(int *)arg)
			__atomic_fetch_or(&f->f_flags, (unsigned)O_NONBLOCK, __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&f->f_flags, ~(unsigned)O_NONBLOCK, __ATOMIC_RELAXED);
		err = 0;
		break;
	case FS_IOC_GETFLAGS:
	case FS_IOC_SETFLAGS:
	case FS_IOC_FSGETXATTR:
	case FS_IOC_FSSETXATTR:
		err = req == FS_IOC_GETFLAGS	 ? ioctl_getflags(f, arg)
		      : req == FS_IOC_SETFLAGS	 ? ioctl_setflags(p, f, arg)
		      : req == FS_IOC_FSGETXATTR ? ioctl_fsgetxattr(f, arg)
						 : ioctl_fssetxattr(p, f, arg);
		if (err != -ENOIOCTLCMD)
			break;
		err = f->f_op && f->f_op->unlocked_ioctl ? f->f_op->unlocked_ioctl(f, req, arg) : -ENOTTY;
		break;
	case FIONREAD:
		if (S_ISREG(READ_ONCE(f->f_inode->i_mode))) {
			if (!arg) {
				err = -EFAULT;
				break;
			}
			fsnotify_observe(f->f_inode); /* the size is read (notify/change.c) */
			*(int *)arg = (int)(READ_ONCE(f->f_inode->i_size) - READ_ONCE(f->f_pos));
			err = 0;
			break;
		}
		/* fallthrough */
	default:
		err = f->f_op && f->f_op->unlocked_ioctl ? f->f_op->unlocked_ioctl(f, req, arg) : -ENOTTY;
		break;
	}
	fput(f);
	API_RETURN((int)err);
}
