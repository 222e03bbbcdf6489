/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_xattr.c - getxattr, setxattr, listxattr, removexattr: extended
 * attributes and POSIX ACLs (system.posix_acl_*) through the mount.
 *
 * A node's own fd is O_PATH, which the f*xattr calls refuse as Linux's do,
 * and so do the *xattrat calls with AT_EMPTY_PATH (Linux 6.18, measured:
 * EBADF); a Linux server goes through /proc/self/fd/N instead, and so does
 * this one, through uvfs's equivalent: the uvfs_fd_*xattr calls on the
 * node's fd, made as the caller, so that uvfs checks the caller's
 * permission against the inode as getxattr(2) on a path does.  That
 * reaches every node, symlinks and special files too (whose ACLs the
 * kernel asks for before a check with default_permissions), and opens
 * nothing.
 *
 * Once the server answers xattr requests, the kernel asks for
 * security.capability before every write (to clear file capabilities, as
 * Linux does; FUSE_HANDLE_KILLPRIV_V2, which spares that, is not in libfuse
 * 3.14): a round trip more per write.  -o noxattr answers ENOSYS, after
 * which the kernel never asks again.
 */
#include "internal.h"

/* The node's fd, or -errno. */
static int xattr_fd(struct uf_thread *t, fuse_req_t req, fuse_ino_t ino)
{
	struct uf_node *n = N(req, ino);

	if (!t->uf->o.xattr)
		return -ENOSYS;
	return n ? n->fd : -ESTALE;
}

void uf_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	BEGIN(req);
	char *buf = size ? uf_thread_buf(t, size) : NULL;
	int fd = xattr_fd(t, req, ino);
	ssize_t r;

	if (size && !buf)
		r = -ENOMEM;
	else if (fd < 0)
		r = fd;
	else
		RETRY_GROUPS(t, r, uvfs_fd_getxattr(t->p, fd, name, buf, size));
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else if (!size)
		fuse_reply_xattr(req, (size_t)r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
}

void uf_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	BEGIN(req);
	char *buf = size ? uf_thread_buf(t, size) : NULL;
	int fd = xattr_fd(t, req, ino);
	ssize_t r;

	if (size && !buf)
		r = -ENOMEM;
	else
		r = fd < 0 ? fd : uvfs_fd_listxattr(t->p, fd, buf, size);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else if (!size)
		fuse_reply_xattr(req, (size_t)r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
}

/*
 * An access ACL set or removed changes the mode, and without
 * FUSE_CAP_POSIX_ACL (asked only with default_permissions, ops.c) the kernel
 * takes the request for an xattr change that leaves the mode it cached: a
 * mode-only statx (stat -c %a after cp -p) would show the old one for as
 * long as the attribute timeout.  Its attributes are dropped before the
 * reply (offset -1: not the page cache).  This takes no lock of the
 * kernel's, so it is sent from the request, not through the notifier.
 */
static void acl_mode_changed(struct uf_thread *t, fuse_ino_t ino, const char *name, int r)
{
	if (r == 0 && !t->uf->o.default_permissions && !strcmp(name, "system.posix_acl_access"))
		fuse_lowlevel_notify_inval_inode(t->uf->se, ino, -1, 0);
}

void uf_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size, int flags)
{
	BEGIN(req);
	int fd = xattr_fd(t, req, ino);
	int r;

	if (fd < 0)
		r = fd;
	else
		RETRY_GROUPS(t, r, uvfs_fd_setxattr(t->p, fd, name, value, size, flags));
	acl_mode_changed(t, ino, name, r);
	fuse_reply_err(req, r < 0 ? -r : 0);
}

void uf_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	BEGIN(req);
	int fd = xattr_fd(t, req, ino);
	int r;

	if (fd < 0)
		r = fd;
	else
		RETRY_GROUPS(t, r, uvfs_fd_removexattr(t->p, fd, name));
	acl_mode_changed(t, ino, name, r);
	fuse_reply_err(req, r < 0 ? -r : 0);
}
