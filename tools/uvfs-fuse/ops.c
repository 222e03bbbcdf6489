/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops.c - INIT (the capabilities asked of the kernel) and the table of low-level
 * operations.
 */
#include "internal.h"

void uf_init(void *userdata, struct fuse_conn_info *conn)
{
	struct uvfs_fuse *uf = userdata;
	unsigned want[] = { FUSE_CAP_DONT_MASK, FUSE_CAP_ATOMIC_O_TRUNC, FUSE_CAP_HANDLE_KILLPRIV,
			    FUSE_CAP_CACHE_SYMLINKS, FUSE_CAP_PARALLEL_DIROPS, FUSE_CAP_AUTO_INVAL_DATA,
			    FUSE_CAP_ASYNC_READ, FUSE_CAP_ASYNC_DIO, FUSE_CAP_EXPORT_SUPPORT };
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (conn->capable & want[i])
			conn->want |= want[i];
	conn->want &= ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_POSIX_LOCKS | FUSE_CAP_FLOCK_LOCKS |
			FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
			FUSE_CAP_SPLICE_MOVE);
	/* No-open where the kernel checks the opener's permissions itself;
	 * then it must truncate for O_TRUNC itself too (ops_files.c). */
	uf->no_open = (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) && uf->o.default_permissions;
	if (uf->no_open)
		conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
	/*
	 * Writeback cache (-o writeback): the kernel keeps written data in its
	 * page cache and sends it later, in large writes, and it keeps the
	 * size, mtime and ctime of regular files itself, ignoring uvfs's while
	 * it has the inode.  So only for the frontend's own instance, where
	 * nobody else changes or reads a file (uvfs_fuse_new checks), and only
	 * with no-open: the kernel then reads pages of files opened O_WRONLY
	 * too, which the node's read-write file serves (an OPEN of such a file
	 * would be made O_RDWR, as the caller, who may lack read permission).
	 * Not the default: ENOSPC and st_blocks come late, SEEK_DATA/SEEK_HOLE
	 * see no holes (uf_lseek; README).
	 */
	uf->writeback = uf->o.writeback && uf->no_open && (conn->capable & FUSE_CAP_WRITEBACK_CACHE);
	if (uf->o.writeback && !uf->writeback)
		fprintf(stderr, "uvfs-fuse: the kernel offers no writeback cache with no-open; -o writeback "
			"ignored\n");
	if (uf->writeback)
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	/*
	 * Locks (-o locks; by default when embedding, where the library's
	 * procs lock too): uvfs keeps them (ops_locks.c), POSIX locks in any
	 * case, flock only where every open reaches uvfs.  Otherwise the
	 * kernel keeps them, which for the frontend's own instance, where every
	 * locker is on the mount, is Linux's semantics exactly, and spares the
	 * FLUSH that every close would cost.
	 */
	uf->locks = (uf->o.locks < 0 ? !uf->own_fs : uf->o.locks) && (conn->capable & FUSE_CAP_POSIX_LOCKS);
	if (uf->locks) {
		conn->want |= FUSE_CAP_POSIX_LOCKS;
		if (!uf->no_open && (conn->capable & FUSE_CAP_FLOCK_LOCKS))
			conn->want |= FUSE_CAP_FLOCK_LOCKS;
	}
	/*
	 * POSIX ACLs: with default_permissions the kernel checks permissions
	 * itself, from the ACLs too once it knows the server keeps them
	 * (FUSE_CAP_POSIX_ACL: it then caches them, leaves the umask to the
	 * server when a directory has a default ACL, and drops its cached
	 * ACLs and attributes when it changes one).  Without default_permissions
	 * uvfs makes every decision, and the ACL xattrs pass through as they are.
	 */
	if (uf->o.default_permissions && (conn->capable & FUSE_CAP_POSIX_ACL))
		conn->want |= FUSE_CAP_POSIX_ACL;
	uf->dont_mask = (conn->want & FUSE_CAP_DONT_MASK) != 0;
	conn->time_gran = 1;
	uf_devio_want(uf, conn);
}

const struct fuse_lowlevel_ops uf_ops = {
	.init = uf_init,
	.lookup = uf_lookup,
	.forget = uf_forget,
	.forget_multi = uf_forget_multi,
	.getattr = uf_getattr,
	.setattr = uf_setattr,
	.readlink = uf_readlink,
	.mknod = uf_mknod,
	.mkdir = uf_mkdir,
	.unlink = uf_unlink,
	.rmdir = uf_rmdir,
	.symlink = uf_symlink,
	.rename = uf_rename,
	.link = uf_link,
	.open = uf_open,
	.read = uf_read,
	.write = uf_write,
	.flush = uf_flush,
	.release = uf_release,
	.fsync = uf_fsync,
	.opendir = uf_opendir,
	.readdir = uf_readdir,
	.readdirplus = uf_readdirplus,
	.releasedir = uf_releasedir,
	.fsyncdir = uf_fsyncdir,
	.statfs = uf_statfs,
	.access = uf_access,
	.create = uf_create,
	.lseek = uf_lseek,
	.fallocate = uf_fallocate,
	.copy_file_range = uf_copy_file_range,
	.getxattr = uf_getxattr,
	.setxattr = uf_setxattr,
	.listxattr = uf_listxattr,
	.removexattr = uf_removexattr,
	.getlk = uf_getlk,
	.setlk = uf_setlk,
	.flock = uf_flock,
	.ioctl = uf_ioctl, /* FS_IOC_GETFLAGS/SETFLAGS only (ops_ioctl.c) */
	/* Not here: poll (libfuse answers ENOSYS).  TMPFILE, which libfuse
	 * 3.14 does not know, comes to .create as a CREATE of "/" (devio.c). */
};
