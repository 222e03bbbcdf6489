/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * attr.h - what a filesystem's ->setattr uses to apply a change the VFS
 * has checked (notify_change, attr.c).  Inline: chmod, chown, utimensat
 * and truncate of a tmpfs file are one call into the filesystem, and cost
 * what they cost when the VFS stored the change itself.
 */
#ifndef UVFS_ATTR_H
#define UVFS_ATTR_H

#include "vfs.h"

/* a change of size that moves it: the filesystem's to make, with mtime and ctime */
static inline bool setattr_resizes(const struct inode *inode, const struct iattr *ia)
{
	return (ia->ia_valid & ATTR_SIZE) && ia->ia_size != READ_ONCE(inode->i_size);
}

/* Linux's setattr_copy: ia's owner, mode and times into the inode.  A size
 * that moved brings mtime and ctime (shmem_setattr's); the same size, only
 * the times ia names. */
static __always_inline void setattr_copy(struct inode *inode, const struct iattr *ia, bool resized)
{
	unsigned v = ia->ia_valid;
	struct timespec now = current_time();
	if (v & ATTR_UID)
		WRITE_ONCE(inode->i_uid, ia->ia_uid);
	if (v & ATTR_GID)
		WRITE_ONCE(inode->i_gid, ia->ia_gid);
	if (v & ATTR_MODE)
		WRITE_ONCE(inode->i_mode, (inode->i_mode & S_IFMT) | (ia->ia_mode & S_IALLUGO));
	const struct timespec *at = (v & ATTR_ATIME) && (v & ATTR_ATIME_SET) ? &ia->ia_atime : NULL;
	const struct timespec *mt = (v & ATTR_MTIME) && (v & ATTR_MTIME_SET) && !resized ? &ia->ia_mtime : NULL;
	unsigned now_mask = ((v & ATTR_ATIME) && !at ? INODE_NOW_A : 0) |
			    (((v & ATTR_MTIME) && !mt) || resized ? INODE_NOW_M : 0);
	if ((v & ATTR_CTIME) || resized) {
		/* setattr_copy_mgtime: the times of now are the ctime's */
		inode_stamp(inode, now, now_mask, at, mt);
	} else if (at || mt || now_mask) {
		inode_set_times(inode, at ? at : (now_mask & INODE_NOW_A) ? &now : NULL,
				mt ? mt : (now_mask & INODE_NOW_M) ? &now : NULL, NULL);
	}
}

#endif
