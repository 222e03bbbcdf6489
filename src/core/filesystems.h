/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem registry (Linux's fs/filesystems.c): a filesystem is a
 * type with a name and a mount function; the core finds it by name and
 * names no filesystem itself.  The registry is per instance (an instance is
 * a kernel); the built-in types are registered when it is made.
 */
#ifndef UVFS_CORE_FILESYSTEMS_H
#define UVFS_CORE_FILESYSTEMS_H

struct uvfs;
struct super_block;

#define FS_REQUIRES_DEV 0x1u /* the source names a device (none exist: ENOTBLK) */

/* Linux's struct file_system_type, with mount() in place of
 * init_fs_context: it parses data (EINVAL for an option it does not know)
 * and makes the superblock with its root dentry.  Called with no VFS lock
 * held; returns 0 with *sbp, or -errno. */
struct file_system_type {
	const char *name;
	unsigned fs_flags;
	int (*mount)(struct uvfs *vfs, const char *source, unsigned long ms_flags, const void *data,
		     struct super_block **sbp);
};

/* A type registered with an instance.  The entries of a registry are never
 * removed before the instance goes: get_fs_type hands out no reference. */
struct filesystem_entry {
	const struct file_system_type *type;
	struct filesystem_entry *next;
};

int filesystems_init(struct uvfs *vfs);
void filesystems_fini(struct uvfs *vfs);
/* -EBUSY if a type of that name is registered already; -ENOMEM. */
int register_filesystem(struct uvfs *vfs, const struct file_system_type *type);
/* The type of that name, or NULL (mount gives ENODEV). */
const struct file_system_type *get_fs_type(struct uvfs *vfs, const char *name);

/* the built-in types */
extern const struct file_system_type tmpfs_fs_type;

#endif
