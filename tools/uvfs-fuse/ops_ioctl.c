/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_ioctl.c - the ioctls the kernel's FUSE client sends on its own:
 * FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (chattr, lsattr), and FS_IOC_FSGETXATTR
 * and FS_IOC_FSSETXATTR, which the kernel's fileattr_set uses to read the
 * old flags: they reach uvfs's tmpfs flags.  The client asks only on
 * regular files and directories, through a handle it opened for the purpose
 * (its fuse_priv_ioctl), with the argument's size each way; every other
 * request is ENOTTY, as a file without the request answers on Linux.
 *
 * uvfs then enforces the flags (an immutable file refuses an open for
 * writing, an unlink, ...), on the requests the kernel sends it.
 */
#include "internal.h"
#include <sys/ioctl.h>
#include <linux/fs.h>

void uf_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi, unsigned flags,
	      const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	BEGIN(req);
	struct fsxattr x; /* the largest argument */
	size_t size = cmd == FS_IOC_GETFLAGS || cmd == FS_IOC_SETFLAGS ? sizeof(int) : sizeof(x);
	bool in = cmd == FS_IOC_SETFLAGS || cmd == FS_IOC_FSSETXATTR;
	int fd, own = -1, r;

	(void)arg;
	if (flags & FUSE_IOCTL_COMPAT) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	if ((cmd != FS_IOC_GETFLAGS && cmd != FS_IOC_SETFLAGS && cmd != FS_IOC_FSGETXATTR && cmd != FS_IOC_FSSETXATTR) ||
	    (in ? in_bufsz : out_bufsz) < size) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	if (fi && fi->fh) {
		fd = fh_fd(fi);
	} else {
		/* no handle (no-open): a file of our own on the node */
		struct uf_node *n = N(req, ino);
		if (!n) {
			fuse_reply_err(req, ESTALE);
			return;
		}
		RETRY_GROUPS(t, own, uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
		if (own < 0) {
			fuse_reply_err(req, -own);
			return;
		}
		fd = own;
	}
	memset(&x, 0, sizeof(x));
	if (in)
		memcpy(&x, in_buf, size);
	r = uvfs_ioctl(t->p, fd, cmd, &x);
	if (own >= 0)
		uvfs_close(t->p, own);
	/* a set moved ctime, and the kernel keeps its cached attributes after
	 * an ioctl: they are dropped before the reply (offset -1: not the
	 * page cache; no lock of the kernel's is taken, as ops_xattr.c) */
	if (r == 0 && in)
		fuse_lowlevel_notify_inval_inode(t->uf->se, ino, -1, 0);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_ioctl(req, 0, in ? NULL : &x, in ? 0 : size);
}
