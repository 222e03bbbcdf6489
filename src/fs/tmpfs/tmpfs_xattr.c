// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tmpfs_xattr.c - tmpfs's extended attributes (Linux's simple_xattrs as
 * mm/shmem.c uses them): a list per inode, whose name and value are one
 * allocation, kept in the order Linux 6.18 lists them: names in descending
 * byte order, whatever order they were set in (measured on the host).
 *
 * Changes come with the inode's i_rwsem held exclusive (xattr.c) and take
 * i_lock around the list itself; readers take i_lock only.  Every value
 * (user.*, trusted.*, security.*) takes its tmpfs_xattr_space() from the
 * superblock's inode space (tmpfs.h), charged before anything else is
 * checked and given back on removal, replacement and eviction, as shmem's
 * xattr handler does.
 */
#include "tmpfs.h"
#include "core/xattr.h"
#include <linux/fs.h>

struct tmpfs_xattr {
	struct tmpfs_xattr *next;
	size_t size;
	size_t name_len;
	char name[]; /* NUL-terminated, then the value */
};

/* simple_xattr_space: 40 rather than the size of the node, so that the
 * figure is the same everywhere */
static size_t tmpfs_xattr_space(size_t name_len, size_t size)
{
	return 40 + name_len + size;
}

static bool ispace_charge(struct super_block *sb, size_t bytes)
{
	struct tmpfs_sb_info *sbi = TMPFS_SB(sb);
	__atomic_add_fetch(&sbi->used_xattr, (long)bytes, __ATOMIC_SEQ_CST);
	if (tmpfs_ispace_over(sbi)) {
		__atomic_sub_fetch(&sbi->used_xattr, (long)bytes, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

static void ispace_uncharge(struct super_block *sb, size_t bytes)
{
	__atomic_sub_fetch(&TMPFS_SB(sb)->used_xattr, (long)bytes, __ATOMIC_RELAXED);
}

/* The link that points at name's node, or where it would go (the first
 * name below it, or the end); i_lock held. */
static struct tmpfs_xattr **find(struct inode *inode, const char *name)
{
	struct tmpfs_xattr **pp = &TMPFS_I(inode)->xattrs;
	while (*pp && strcmp((*pp)->name, name) > 0)
		pp = &(*pp)->next;
	return pp;
}

static bool is_named(const struct tmpfs_xattr *x, const char *name)
{
	return x && !strcmp(x->name, name);
}

ssize_t tmpfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size)
{
	ssize_t r;
	spin_lock(&inode->i_lock);
	struct tmpfs_xattr *x = *find(inode, name);
	if (!is_named(x, name))
		r = -ENODATA;
	else if (size && size < x->size)
		r = -ERANGE;
	else {
		if (size)
			memcpy(buf, x->name + x->name_len + 1, x->size);
		r = (ssize_t)x->size;
	}
	spin_unlock(&inode->i_lock);
	return r;
}

int tmpfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags)
{
	struct super_block *sb = inode->i_sb;
	size_t len = strlen(name);
	struct tmpfs_xattr *nx = NULL;
	if (value) {
		if (!ispace_charge(sb, tmpfs_xattr_space(len, size)))
			return -ENOSPC;
		nx = malloc(sizeof(*nx) + len + 1 + size);
		if (!nx) {
			ispace_uncharge(sb, tmpfs_xattr_space(len, size));
			return -ENOMEM;
		}
		nx->size = size;
		nx->name_len = len;
		memcpy(nx->name, name, len + 1);
		memcpy(nx->name + len + 1, value, size);
	}
	int err = 0;
	spin_lock(&inode->i_lock);
	struct tmpfs_xattr **pp = find(inode, name);
	struct tmpfs_xattr *old = is_named(*pp, name) ? *pp : NULL;
	if (old && (flags & XATTR_CREATE)) {
		err = -EEXIST;
	} else if (!old && (flags & XATTR_REPLACE)) {
		err = -ENODATA;
	} else if (old) {
		/* in place: a replaced value keeps its position in the list */
		if (nx) {
			nx->next = old->next;
			*pp = nx;
		} else {
			*pp = old->next;
		}
	} else if (nx) {
		nx->next = *pp;
		*pp = nx;
	}
	spin_unlock(&inode->i_lock);
	if (err) {
		if (nx) {
			ispace_uncharge(sb, tmpfs_xattr_space(len, size));
			free(nx);
		}
		return err;
	}
	if (old) {
		ispace_uncharge(sb, tmpfs_xattr_space(old->name_len, old->size));
		free(old);
	}
	inode_touch_c(inode);
	return 0;
}

ssize_t tmpfs_listxattr(struct inode *inode, char *buf, size_t size, bool trusted)
{
	size_t n = 0;
	ssize_t r = 0;
	spin_lock(&inode->i_lock);
	for (struct tmpfs_xattr *x = TMPFS_I(inode)->xattrs; x; x = x->next) {
		/* trusted.* is invisible without CAP_SYS_ADMIN */
		if (!trusted && !strncmp(x->name, "trusted.", 8))
			continue;
		if (size) {
			if (n + x->name_len + 1 > size) {
				r = -ERANGE;
				break;
			}
			memcpy(buf + n, x->name, x->name_len + 1);
		}
		n += x->name_len + 1;
	}
	spin_unlock(&inode->i_lock);
	return r ? r : (ssize_t)n;
}

/* Eviction: the inode is unreachable, its space goes back. */
void tmpfs_xattrs_free(struct inode *inode)
{
	struct tmpfs_xattr *x = TMPFS_I(inode)->xattrs;
	TMPFS_I(inode)->xattrs = NULL;
	while (x) {
		struct tmpfs_xattr *next = x->next;
		ispace_uncharge(inode->i_sb, tmpfs_xattr_space(x->name_len, x->size));
		free(x);
		x = next;
	}
}

/*
 * The chattr flags tmpfs keeps since Linux 6.0 (shmem's fileattr_get and
 * fileattr_set): FS_IMMUTABLE_FL, FS_APPEND_FL, FS_NODUMP_FL and
 * FS_NOATIME_FL; any other is EOPNOTSUPP.  Setting them moves ctime.
 */
#define TMPFS_FL_MODIFIABLE (FS_IMMUTABLE_FL | FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL)

int tmpfs_fileattr_get(struct inode *inode, unsigned *flags)
{
	*flags = TMPFS_I(inode)->fsflags;
	return 0;
}

int tmpfs_fileattr_set(struct inode *inode, unsigned flags)
{
	if (flags & ~TMPFS_FL_MODIFIABLE)
		return -EOPNOTSUPP;
	struct tmpfs_inode *ti = TMPFS_I(inode);
	ti->fsflags = (ti->fsflags & ~TMPFS_FL_MODIFIABLE) | flags;
	inode_set_fsflags(inode, ti->fsflags);
	inode_touch_c(inode);
	return 0;
}
