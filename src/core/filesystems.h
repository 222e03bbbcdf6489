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
struct uvfs_proc;
struct super_block;

#define FS_REQUIRES_DEV 0x1u /* the source names a device (none exist: ENOTBLK) */
/* internal: made by the core, never by uvfs_mount (EINVAL, Linux's SB_NOUSER) */
#define FS_NOUSER 0x2u

/* Linux's struct file_system_type, with mount() in place of
 * init_fs_context: it parses data (EINVAL for an option it does not know)
 * and makes the superblock with its root dentry.  Called with no VFS lock
 * held, given its own type (a type registered through uvfs_fs.h finds its
 * operations there); returns 0 with *sbp, or -errno. */
struct file_system_type {
	const char *name;
	unsigned fs_flags;
	int (*mount)(const struct file_system_type *type, struct uvfs *vfs, const char *source,
		     unsigned long ms_flags, const void *data, struct super_block **sbp);
	/* In place of mount, for a type whose options name paths of the
	 * caller's tree (overlay's layers): given the proc they are resolved
	 * in, with the same contract. */
	int (*mount_proc)(const struct file_system_type *type, struct uvfs_proc *p, const char *source,
			  unsigned long ms_flags, const void *data, struct super_block **sbp);
};

/* A type registered with an instance.  users counts get_fs_type's
 * references and the superblocks of the type (Linux: the module's
 * count); unregister_filesystem refuses a type in use. */
struct filesystem_entry {
	const struct file_system_type *type;
	struct filesystem_entry *next;
	long users;
	void (*release)(const struct file_system_type *type); /* at unregister or teardown, or NULL */
};

int filesystems_init(struct uvfs *vfs);
void filesystems_fini(struct uvfs *vfs);
/* -EBUSY if a type of that name is registered already; -ENOMEM.  release,
 * if not NULL, is called when the entry goes. */
int register_filesystem(struct uvfs *vfs, const struct file_system_type *type,
			void (*release)(const struct file_system_type *type));
/* -ENOENT if no type has that name, -EBUSY while the type is in use or if
 * it is built in (registered without release). */
int unregister_filesystem(struct uvfs *vfs, const char *name);
/* The type of that name with a reference (put_filesystem), or NULL (mount
 * gives ENODEV). */
const struct file_system_type *get_fs_type(struct uvfs *vfs, const char *name);
void get_filesystem(struct uvfs *vfs, const struct file_system_type *type); /* one more */
void put_filesystem(struct uvfs *vfs, const struct file_system_type *type);
/* An internal superblock of the type of that name (Linux's kern_mount):
 * *slot's, made through the registry on first use, SB_KERNMOUNT (no path
 * reaches it); of two threads that race, one's is kept and the other's
 * goes.  NULL when it cannot be made.  uvfs_destroy deactivates *slot. */
struct super_block *kern_mount_once(struct uvfs *vfs, struct super_block **slot, const char *name,
				    const char *source);

/* the built-in types */
extern const struct file_system_type tmpfs_fs_type;
extern const struct file_system_type pipefs_fs_type; /* pipe.c */
extern const struct file_system_type overlay_fs_type;
extern const struct file_system_type hostfs_fs_type; /* src/fs/hostfs: a host directory */

#endif
