// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_export.c - file handles on hostfs: the host's own.
 *
 * A handle is the host's name_to_handle_at of the node's O_PATH fd, byte
 * for byte (its size and type are the host filesystem's: a host tmpfs gives
 * what uvfs's tmpfs and Linux's give, 12 bytes of type 1).  Decoding asks
 * the host (open_by_handle_at relative to the source's fd, O_PATH), which
 * checks the generation and says ESTALE for an object that is gone; the
 * host object's inode number is then found in the superblock's dentry tree
 * by fhandle.c, as tmpfs's are.  So the host may open an object outside the
 * source directory, but nothing is ever reached through it: the fd is only
 * fstat'ed, and an object that has no dentry below the mount's root names
 * nothing (ESTALE).  That also means a handle opens only what uvfs has met
 * and still caches (cache=exclusive keeps every name it has seen); an
 * object it has not looked up since the mount, or one with no name left, is
 * ESTALE.
 *
 * The host's open_by_handle_at needs CAP_DAC_READ_SEARCH: where the library
 * does not run as root, hostfs makes no handles (EOPNOTSUPP).
 */
#include "hostfs.h"

struct host_fh {
	struct file_handle h;
	unsigned char buf[128]; /* MAX_HANDLE_SZ */
};

int hostfs_encode_fh(struct inode *inode, unsigned char *fh, unsigned *bytes)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	struct hnode *hn = HN(inode);
	if (!hsb->as_root)
		return -EOPNOTSUPP;
	struct host_fh x;
	x.h.handle_bytes = *bytes < sizeof(x.buf) ? *bytes : sizeof(x.buf);
	int fd = hostfs_fd_get(hsb, hn);
	if (fd < 0)
		return fd;
	int mount_id;
	int err = name_to_handle_at(fd, "", &x.h, &mount_id, AT_EMPTY_PATH) ? -errno : 0;
	hostfs_fd_put(hsb, hn);
	if (err == -EOVERFLOW)
		*bytes = x.h.handle_bytes;
	if (err)
		return err;
	memcpy(fh, x.h.f_handle, x.h.handle_bytes);
	*bytes = x.h.handle_bytes;
	return x.h.handle_type;
}

int hostfs_fh_to_ino(struct super_block *sb, const unsigned char *fh, unsigned bytes, int type, uint64_t *ino)
{
	struct hostfs_sb *hsb = HOSTFS_SB(sb);
	if (!hsb->as_root || bytes > sizeof(((struct host_fh *)0)->buf))
		return -ESTALE;
	struct host_fh x;
	x.h.handle_bytes = bytes;
	x.h.handle_type = type;
	memcpy(x.h.f_handle, fh, bytes);
	/* the source's fd is the superblock's for its whole life */
	int fd = open_by_handle_at(hsb->root->fd, &x.h, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int err = fstat(fd, &st) ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (st.st_dev != hsb->root->dev)
		return -ESTALE;
	*ino = st.st_ino;
	return 0;
}
