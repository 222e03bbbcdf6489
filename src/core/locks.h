/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * locks.h - file locks (locks.c): what the close paths, fcntl and the inode's
 * teardown call.
 */
#ifndef UVFS_CORE_LOCKS_H
#define UVFS_CORE_LOCKS_H

#include "vfs.h"

struct flock;

/* fcntl's F_GETLK, F_SETLK, F_SETLKW and their F_OFD_ forms; arg is the
 * caller's struct flock. */
long fcntl_lock(struct uvfs_proc *p, int fd, struct file *f, int cmd, struct flock *arg);
/* The POSIX locks that owner (a files_struct) holds on f's inode go. */
void locks_remove_posix(struct file *f, void *owner);
/* The final release of f: its OFD and flock locks go. */
void locks_remove_file(struct file *f);
/* The inode is being freed: so is its lock context. */
void locks_free_lock_context(struct inode *inode);
/* Requests queued waiting for a lock, in every instance (for tests: a
 * waiter is known to be queued before the next one starts). */
unsigned long locks_blocked_count(void);

/*
 * An fd of files is closed (Linux's filp_close): any close of any fd drops
 * the POSIX locks its table holds on the inode.  An inode that was never
 * locked has no context, so the close path pays one load for it.
 */
static __always_inline void filp_close(struct file *f, struct files_struct *files)
{
	if (unlikely(READ_ONCE(f->f_inode->i_flctx) != NULL))
		locks_remove_posix(f, files);
	fput_close(f);
}

#endif /* UVFS_CORE_LOCKS_H */
