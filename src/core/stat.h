/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The attributes stat and statx return (Linux's struct kstat): filled from
 * the inode, then corrected by a filesystem's ->getattr. */
#ifndef UVFS_CORE_STAT_H
#define UVFS_CORE_STAT_H
#include "vfs.h"

struct kstat {
	uint64_t ino;
	dev_t dev;
	umode_t mode;
	unsigned nlink;
	uid_t uid;
	gid_t gid;
	dev_t rdev;
	loff_t size;
	uint64_t blocks; /* 512-byte units */
	unsigned blksize;
	struct timespec atime, mtime, ctime, btime;
};

void generic_fillattr(struct inode *inode, struct kstat *st);
/* generic_fillattr, then the filesystem's ->getattr if it has one */
int vfs_getattr(struct inode *inode, struct kstat *st);
/* the same, not a stat: the times are not marked as seen (stat.c) */
int vfs_getattr_unseen(struct inode *inode, struct kstat *st);

#endif
