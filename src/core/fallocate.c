// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fallocate.c - fallocate(2): the checks of Linux's vfs_fallocate, then the
 * filesystem's ->fallocate.
 *
 * Errors, in order: EBADF (no fd, O_PATH); EINVAL (offset < 0, len <= 0);
 * EOPNOTSUPP (a mode no filesystem could take: unknown bits, two
 * operations, PUNCH_HOLE without KEEP_SIZE, KEEP_SIZE with COLLAPSE, INSERT
 * or WRITE_ZEROES); EBADF (not open for writing); ESPIPE (pipe, FIFO);
 * EISDIR; ENODEV (not a regular file); EFBIG (offset + len past
 * LLONG_MAX); then the filesystem's (EOPNOTSUPP for a mode it does not do,
 * ENOSPC, ENOMEM).
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include <linux/falloc.h>

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif
#define FALLOC_FL_MODE_MASK                                                                        \
	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_INSERT_RANGE | \
	 FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_WRITE_ZEROES)

/* The shape of the mode, before the fd's own checks (Linux 6.11+: one
 * operation, and KEEP_SIZE only where it means something). */
static int falloc_mode_ok(int mode)
{
	if (mode & ~(FALLOC_FL_MODE_MASK | FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	switch (mode & FALLOC_FL_MODE_MASK) {
	case 0:
	case FALLOC_FL_UNSHARE_RANGE:
	case FALLOC_FL_ZERO_RANGE:
		return 0;
	case FALLOC_FL_PUNCH_HOLE:
		return mode & FALLOC_FL_KEEP_SIZE ? 0 : -EOPNOTSUPP;
	case FALLOC_FL_COLLAPSE_RANGE:
	case FALLOC_FL_INSERT_RANGE:
	case FALLOC_FL_WRITE_ZEROES:
		return mode & FALLOC_FL_KEEP_SIZE ? -EOPNOTSUPP : 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* Linux's file_modified: a change of the data by someone without
 * CAP_FSETID drops setuid and group-exec setgid, heard as IN_ATTRIB. */
static void falloc_remove_privs(struct uvfs_proc *p, struct file *f)
{
	struct inode *inode = f->f_inode;
	umode_t mode = READ_ONCE(inode->i_mode);
	if (unlikely(READ_ONCE(inode->i_flags) & S_KILLPRIV)) {
		down_write(&inode->i_rwsem);
		inode_killpriv(inode);
		up_write(&inode->i_rwsem);
	}
	if (likely(!(mode & (S_ISUID | S_ISGID))) || cred_is_root(current_cred()))
		return;
	inode_kill_suid(inode, current_cred());
	if (READ_ONCE(inode->i_mode) != mode)
		fsnotify_change(p, f->f_path.dentry, ATTR_MODE);
}

static long vfs_fallocate(struct uvfs_proc *p, struct file *f, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = f->f_inode;
	loff_t end;
	long err;

	if (offset < 0 || len <= 0)
		return -EINVAL;
	if ((err = falloc_mode_ok(mode)))
		return err;
	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	/* an append-only file may only grow; nothing changes an immutable one */
	if ((mode & ~FALLOC_FL_KEEP_SIZE) && IS_APPEND(inode))
		return -EPERM;
	if (IS_IMMUTABLE(inode))
		return -EPERM;
	if (S_ISFIFO(READ_ONCE(inode->i_mode)))
		return -ESPIPE;
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		return -EISDIR;
	if (!S_ISREG(READ_ONCE(inode->i_mode)))
		return -ENODEV;
	if (__builtin_add_overflow(offset, len, &end))
		return -EFBIG;
	if (!f->f_op || !f->f_op->fallocate)
		return -EOPNOTSUPP;
	/* the set-id bits go before the filesystem's checks (FOP_PRIVS_FIRST)
	 * or once it did the change, never twice */
	bool first = f->f_op->fop_flags & FOP_PRIVS_FIRST;
	if (first)
		falloc_remove_privs(p, f);
	err = f->f_op->fallocate(f, mode, offset, len);
	if (err)
		return err;
	if (!first)
		falloc_remove_privs(p, f);
	fsnotify_write(p, f);
	return 0;
}

UVFS_API int uvfs_fallocate(struct uvfs_proc *p, int fd, int mode, off_t offset, off_t len)
{
	API_ENTER_PROC(p);
	struct fd fd_ = fdget(p, fd);
	if (!fd_.file)
		API_RETURN(-EBADF);
	long err = vfs_fallocate(p, fd_.file, mode, offset, len);
	fdput(p, fd_);
	API_RETURN((int)err);
}
