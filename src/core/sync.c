// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sync.c - syncfs, sync_file_range, posix_fadvise and readahead (Linux's
 * fs/sync.c, mm/fadvise.c, mm/readahead.c).
 *
 * Every filesystem of uvfs keeps its data in memory or writes it through
 * to the host at each call (hostfs), so there is nothing to write back,
 * wait for or read ahead: these calls check their arguments as Linux does
 * on a tmpfs (a superblock on noop_backing_dev_info) and succeed.  The
 * advice changes nothing a reader can see, on Linux's tmpfs either.
 */
#include "vfs.h"
#include <linux/fadvise.h>

/* syncfs(2): EBADF (no fd, or O_PATH); then 0. */
UVFS_API int uvfs_syncfs(struct uvfs_proc *p, int fd)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	fput(f);
	API_RETURN(0);
}

#define SYNC_RANGE_FLAGS 7u /* SYNC_FILE_RANGE_WAIT_BEFORE | _WRITE | _WAIT_AFTER */

/*
 * sync_file_range(2), Linux's order: EBADF (no fd, or O_PATH); EINVAL
 * (unknown flags; a negative offset; an end, offset + nbytes, that is
 * negative or before the offset); ESPIPE (not a regular file, directory or
 * symlink).
 */
UVFS_API int uvfs_sync_file_range(struct uvfs_proc *p, int fd, off_t off, off_t nbytes, unsigned flags)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err = 0;
	/* Linux adds the two as 64-bit values that wrap */
	loff_t end = (loff_t)((uint64_t)off + (uint64_t)nbytes);
	umode_t mode = READ_ONCE(f->f_inode->i_mode);
	if ((flags & ~SYNC_RANGE_FLAGS) || off < 0 || end < 0 || end < off)
		err = -EINVAL;
	else if (!S_ISREG(mode) && !S_ISDIR(mode) && !S_ISLNK(mode))
		err = -ESPIPE;
	fput(f);
	API_RETURN(err);
}

/*
 * posix_fadvise(2) (the fadvise64 system call: -errno, where glibc's
 * posix_fadvise returns the error number): EBADF (no fd, or O_PATH);
 * ESPIPE (a pipe or FIFO); EINVAL (a negative len); EINVAL (an advice
 * outside POSIX_FADV_NORMAL..POSIX_FADV_NOREUSE); else 0.
 */
static int vfs_fadvise(struct file *f, loff_t len, int advice)
{
	if (S_ISFIFO(READ_ONCE(f->f_inode->i_mode)))
		return -ESPIPE;
	if (len < 0)
		return -EINVAL;
	if (advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE)
		return -EINVAL;
	return 0;
}

UVFS_API int uvfs_posix_fadvise(struct uvfs_proc *p, int fd, off_t off, off_t len, int advice)
{
	API_ENTER_PROC(p);
	(void)off;
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err = vfs_fadvise(f, len, advice);
	fput(f);
	API_RETURN(err);
}

/*
 * readahead(2): EBADF (no fd, O_PATH, or not open for reading); EINVAL (not
 * a regular file); then posix_fadvise's POSIX_FADV_WILLNEED of count bytes
 * (EINVAL for a count above LLONG_MAX, which is negative as a length).
 */
UVFS_API ssize_t uvfs_readahead(struct uvfs_proc *p, int fd, off_t off, size_t count)
{
	API_ENTER_PROC(p);
	(void)off;
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	ssize_t err;
	if (!(f->f_mode & FMODE_READ))
		err = -EBADF;
	else if (!S_ISREG(READ_ONCE(f->f_inode->i_mode)))
		err = -EINVAL;
	else
		err = vfs_fadvise(f, (loff_t)count, POSIX_FADV_WILLNEED);
	fput(f);
	API_RETURN(err);
}
