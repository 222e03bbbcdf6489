/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs_fs.h - filesystems of the embedder's own (Linux's register_filesystem
 * and struct file_system_type, reduced to a table of calls on nodes).
 *
 * A filesystem is a struct uvfs_fs_type: a name, flags and an operations
 * table.  uvfs_register_filesystem makes the name known to one instance;
 * uvfs_mount(p, source, target, name, flags, data) then mounts it like
 * tmpfs.  The VFS keeps its own objects (dentries, inodes, open files) and
 * its own locks; a filesystem sees only its nodes, as opaque pointers it
 * hands out:
 *
 *   - every node the filesystem returns (mount's root, lookup, create,
 *     mkdir, symlink) is one reference the VFS holds until it calls forget
 *     on it; a node the filesystem returns again (a second lookup of a name
 *     whose dentry was invalidated) is another reference;
 *   - the VFS caches names: a name looked up once is not looked up again
 *     until revalidate says it is stale (or, without revalidate, never: the
 *     cache is then as good as the filesystem).  A name that does not exist
 *     is not cached; a lookup of it asks again.  Two threads that miss the
 *     same name at once cause one lookup;
 *   - attributes are cached from the uvfs_fs_attr of the call that returned
 *     the node; getattr, if given, is asked at every stat;
 *   - a symlink's body is asked once (readlink) and cached with the node.
 *
 * Calls come with no VFS lock the filesystem can see: a directory is not
 * changed by two namespace calls at once (the VFS holds its lock; lookups
 * may run at the same time as each other, of different names); a file's
 * reads and writes may run at the same time.  A call must not call back
 * into the same instance.  Every call returns 0 (or a count) or a negative
 * errno value, which the VFS passes on.
 *
 * Versioning: size is sizeof(struct uvfs_fs_type) as the caller compiled
 * it, and version is UVFS_FS_VERSION.  Later versions append members; the
 * library treats the members past size as NULL.
 */
#ifndef UVFS_FS_H
#define UVFS_FS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UVFS_FS_VERSION 1

struct uvfs;

/* The attributes of a node. */
struct uvfs_fs_attr {
	uint64_t ino;      /* st_ino; 0: the VFS numbers the node itself */
	mode_t mode;       /* type and permission bits */
	uint32_t nlink;
	uid_t uid;
	gid_t gid;
	dev_t rdev;
	int64_t size;
	int64_t blocks;    /* 512-byte units */
	struct timespec atime, mtime, ctime, btime;
};

/* A node and its attributes, as lookup and the calls that make a node
 * answer. */
struct uvfs_fs_entry {
	void *node;
	struct uvfs_fs_attr attr;
};

/* readdir's callback: one entry, with the position after it (the position
 * to resume from); false when the caller's buffer is full (stop, and do
 * not count the entry as returned). */
typedef bool (*uvfs_fs_filldir_t)(void *ctx, const char *name, uint64_t ino, unsigned d_type, uint64_t next);

/* setattr's valid bits */
#define UVFS_FS_SET_SIZE 0x1u

struct uvfs_fs_operations {
	/* Required.  A new superblock: *fsp is passed to every later call,
	 * *root is the root directory.  data is uvfs_mount's. */
	int (*mount)(void *type_data, const char *source, unsigned long flags, const void *data, void **fsp,
		     struct uvfs_fs_entry *root);
	/* The last mount went and every node was forgotten. */
	void (*kill)(void *fs);
	/* Required.  The entry name of directory dir, or -ENOENT. */
	int (*lookup)(void *fs, void *dir, const char *name, struct uvfs_fs_entry *out);
	/* The VFS drops one reference on node. */
	void (*forget)(void *fs, void *node);
	/* Is the cached entry name -> node of dir still so?  1 yes, 0 no (the
	 * VFS looks the name up again), or -errno.  NULL: always. */
	int (*revalidate)(void *fs, void *dir, const char *name, void *node);
	/* Fresh attributes for stat; NULL: the cached ones. */
	int (*getattr)(void *fs, void *node, struct uvfs_fs_attr *attr);
	/* A symlink's body into buf (not terminated): its length, at most
	 * size. */
	ssize_t (*readlink)(void *fs, void *node, char *buf, size_t size);
	/* The entries of dir from position pos on, through fill.  Positions
	 * are the filesystem's own, at least 2 ("." and ".." are the VFS's: 0
	 * and 1); pos 2 is the first entry.  NULL: "." and ".." only. */
	int (*readdir)(void *fs, void *dir, uint64_t pos, uvfs_fs_filldir_t fill, void *ctx);
	/* open(2) of a regular file: *fh is passed to read, write and
	 * release.  NULL: every open succeeds with fh NULL. */
	int (*open)(void *fs, void *node, int flags, void **fh);
	/* the bytes done (0: the end of the file); NULL: EINVAL */
	ssize_t (*read)(void *fs, void *node, void *fh, void *buf, size_t len, int64_t off);
	ssize_t (*write)(void *fs, void *node, void *fh, const void *buf, size_t len, int64_t off);
	void (*release)(void *fs, void *node, void *fh);
	/* Namespace changes, with the VFS's checks done (permission, the name
	 * free or present as the call needs).  NULL: EPERM (create: EACCES). */
	int (*create)(void *fs, void *dir, const char *name, mode_t mode, uid_t uid, gid_t gid,
		      struct uvfs_fs_entry *out);
	int (*mkdir)(void *fs, void *dir, const char *name, mode_t mode, uid_t uid, gid_t gid,
		     struct uvfs_fs_entry *out);
	int (*unlink)(void *fs, void *dir, const char *name);
	int (*rmdir)(void *fs, void *dir, const char *name);
	/* flags: 0 or RENAME_NOREPLACE (checked by the VFS already) */
	int (*rename)(void *fs, void *odir, const char *oname, void *ndir, const char *nname, unsigned flags);
	int (*symlink)(void *fs, void *dir, const char *name, const char *target, uid_t uid, gid_t gid,
		       struct uvfs_fs_entry *out);
	/* a new name for node; *attr its attributes after */
	int (*link)(void *fs, void *node, void *dir, const char *name, struct uvfs_fs_attr *attr);
	/* truncate(2) and O_TRUNC: UVFS_FS_SET_SIZE with in->size.  NULL: EPERM */
	int (*setattr)(void *fs, void *node, unsigned valid, const struct uvfs_fs_attr *in);
	/* NULL: zeros with f_namelen 255 */
	int (*statfs)(void *fs, struct statfs *buf);
	/* A lookup ended on node without asking its directory (".", "..",
	 * "/", a mount's root, the dirfd of an empty path: Linux's
	 * d_weak_revalidate): is it still there?  1 yes, 0 no (the call fails
	 * with ESTALE), or -errno.  NULL: always.  Appended after version 1
	 * was published: a caller compiled without it registers with its
	 * smaller size, and it is NULL. */
	int (*weak_revalidate)(void *fs, void *node);
};

struct uvfs_fs_type {
	uint32_t size;    /* sizeof(struct uvfs_fs_type) */
	uint32_t version; /* UVFS_FS_VERSION */
	const char *name; /* uvfs_mount's fstype: 1 to 31 bytes, no '/', ',' or space */
	unsigned flags;   /* none defined yet: 0 */
	void *data;       /* passed to mount */
	struct uvfs_fs_operations ops;
};

/*
 * Makes the type known to the instance under its name; the library copies
 * *type (name included).  Errors, in the order checked: EINVAL for a NULL
 * u or type, a version other than UVFS_FS_VERSION, a size smaller than
 * version 1's, unknown flags, a bad name, or no mount or lookup; EEXIST if
 * a type of that name is registered (tmpfs is); ENOMEM.
 */
int uvfs_register_filesystem(struct uvfs *u, const struct uvfs_fs_type *type);
/*
 * Forgets the type of that name.  Errors, in the order checked: EINVAL for
 * a NULL u or name; ENOENT if no type has that name; EBUSY while it is
 * mounted or being mounted (or is built in).
 */
int uvfs_unregister_filesystem(struct uvfs *u, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* UVFS_FS_H */
