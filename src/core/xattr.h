/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xattr.h - extended attributes (xattr.c) and POSIX ACLs (posix_acl.c):
 * what the VFS core and the filesystems share (Linux's linux/xattr.h and
 * linux/posix_acl.h).
 */
#ifndef UVFS_CORE_XATTR_H
#define UVFS_CORE_XATTR_H
#include "vfs.h"
#include <sys/xattr.h>

#define XATTR_NAME_MAX_ 255   /* bytes of a name, prefix included */
#define XATTR_SIZE_MAX_ 65536 /* bytes of a value */
#define XATTR_LIST_MAX_ 65536 /* bytes of a list */

#define XATTR_NAME_POSIX_ACL_ACCESS "system.posix_acl_access"
#define XATTR_NAME_POSIX_ACL_DEFAULT "system.posix_acl_default"

/* ---- POSIX ACLs (posix_acl.c) ---- */
#define ACL_TYPE_ACCESS 0x8000
#define ACL_TYPE_DEFAULT 0x4000

#define ACL_USER_OBJ 0x01
#define ACL_USER 0x02
#define ACL_GROUP_OBJ 0x04
#define ACL_GROUP 0x08
#define ACL_MASK 0x10
#define ACL_OTHER 0x20
#define ACL_UNDEFINED_ID 0xffffffffu

struct posix_acl_entry {
	unsigned short e_tag;
	unsigned short e_perm; /* MAY_READ | MAY_WRITE | MAY_EXEC, as the mode bits */
	uint32_t e_id;         /* ACL_USER: a uid, ACL_GROUP: a gid */
};

/* Immutable once made; replaced whole and freed after a grace period. */
struct posix_acl {
	struct rcu_head a_rcu;
	unsigned a_count;
	struct posix_acl_entry a_entries[];
};

/* The inode's ACL of that type, read under RCU by its callers. */
static inline struct posix_acl **acl_slot(struct inode *inode, int type)
{
	return type == ACL_TYPE_ACCESS ? &inode->i_acl : &inode->i_default_acl;
}

/* Linux's check_acl: 0 or -EACCES as the access ACL decides, -EAGAIN when
 * the inode has none (the mode's group class decides). */
int check_acl(const struct cred *c, struct inode *inode, int mask);
/* chmod, with i_rwsem held (Linux's posix_acl_chmod): prepare makes the
 * ACL that mode implies (NULL: the inode has none), before anything
 * changes, so that ENOMEM changes nothing; commit installs it with the
 * mode. */
int posix_acl_chmod_prepare(struct inode *inode, umode_t mode, struct posix_acl **out);
void posix_acl_chmod_commit(struct inode *inode, struct posix_acl *acl);
/* The mode of a new inode in dir, Linux's vfs_prepare_mode: first a
 * group-executable setgid non-directory asked for in a setgid directory by
 * a caller neither in its group nor privileged loses S_ISGID
 * (mode_strip_sgid, on the mode as asked, before the umask: 02755 under
 * umask 077 is 0700); then the umask applies only when dir has no default
 * ACL (mode_strip_umask and posix_acl_create). */
static inline umode_t vfs_prepare_mode(struct inode *dir, umode_t mode, umode_t umask, const struct cred *c)
{
	if (unlikely((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)) && !S_ISDIR(mode) &&
	    (READ_ONCE(dir->i_mode) & S_ISGID) && !in_group_p(c, READ_ONCE(dir->i_gid)) && !cred_is_root(c))
		mode &= ~(umode_t)S_ISGID;
	if (unlikely(READ_ONCE(dir->i_default_acl) != NULL))
		return mode;
	return mode & ~umask;
}
/* A new inode in dir (the filesystem calls it after inode_init_owner, with
 * the mode vfs_prepare_mode gave): the default ACL of dir is inherited
 * and masks the mode.  0 or -ENOMEM.  Inline up to the one load that says
 * the directory has none, as it almost never has. */
int __posix_acl_create(struct inode *dir, struct inode *inode);
static inline int posix_acl_create(struct inode *dir, struct inode *inode)
{
	if (likely(READ_ONCE(dir->i_default_acl) == NULL))
		return 0;
	return __posix_acl_create(dir, inode);
}
/* A copy of an ACL (NULL: ENOMEM), for a filesystem that keeps one of
 * another inode's (overlayfs). */
struct posix_acl *posix_acl_dup(const struct posix_acl *acl);
/* i_op->set_acl of a filesystem that keeps ACLs in the inode only (tmpfs). */
int simple_set_acl(struct inode *inode, int type, struct posix_acl *acl, umode_t mode);
/* The inode is being freed (after its grace period). */
void __posix_acl_free_inode(struct inode *inode);
static inline void posix_acl_free_inode(struct inode *inode)
{
	if (unlikely(inode->i_acl || inode->i_default_acl))
		__posix_acl_free_inode(inode);
}

/* system.posix_acl_* through the xattr calls (xattr.c) */
bool is_posix_acl_xattr(const char *name);
ssize_t posix_acl_xattr_get(struct inode *inode, const char *name, void *buf, size_t size);
int posix_acl_xattr_set(const struct cred *c, struct inode *inode, const char *name, const void *value,
			size_t size, unsigned *ia_valid);
ssize_t posix_acl_xattr_list(struct inode *inode, char *buf, size_t size);
/* The xattr form of an ACL and back, for a filesystem that stores them so
 * (hostfs): from_xattr's errors are the VFS's (EINVAL, EOPNOTSUPP,
 * ENOMEM; *out NULL for an empty one); to_xattr returns the size and
 * writes only when it fits. */
int posix_acl_from_xattr(const void *value, size_t size, struct posix_acl **out);
size_t posix_acl_to_xattr(const struct posix_acl *acl, void *buf, size_t size);

#endif
