// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ioctl.c - uvfs_ioctl (Linux's fs/ioctl.c): the requests the VFS answers
 * for every file, then the file's own ->unlocked_ioctl.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include <sys/ioctl.h>

/*
 * ioctl(2): EBADF (not open, or O_PATH); then by request:
 *   FIOCLEX, FIONCLEX   set or clear close-on-exec;
 *   FIONBIO             *(int *)arg: set or clear O_NONBLOCK (EFAULT: NULL);
 *   FIONREAD            regular files: bytes from the position to the end
 *                       (negative past it, as Linux); pipes and FIFOs: bytes
 *                       buffered; EFAULT for a NULL arg;
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
