/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mount.h - struct mount and struct path.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_MOUNT_H
#define UVFS_CORE_MOUNT_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

/* ---- mount ---- */
#define MNT_RDONLY  0x1u
#define MNT_NOSUID  0x2u
#define MNT_NODEV   0x4u
#define MNT_NOEXEC  0x8u
#define MNT_NOATIME 0x10u
#define MNT_NODIRATIME  0x20u /* atime.c */
#define MNT_STRICTATIME 0x40u
#define MNT_DETACHED 0x100u
#define MNT_RELEASED 0x200u /* detached, and its last reference went: released once */
#define MNT_WRITE_HOLD 0x400u /* a remount read-only is counting the writers: new ones wait */
#define MNT_UNBINDABLE 0x800u /* MS_UNBINDABLE: no bind from it; MS_REC binds leave it out */
/* what a remount keeps: the rest are the flags it sets */
#define MNT_KEPT_ON_REMOUNT (MNT_DETACHED | MNT_UNBINDABLE)

struct mount {
	struct hlist_node m_hash;
	struct mount *m_parent;      /* self for the root mount */
	struct dentry *m_mountpoint; /* in m_parent */
	struct dentry *m_root;
	struct super_block *m_sb;
	unsigned m_flags;
	struct pcounter m_count; /* references from paths; summed at umount */
	struct list_head m_list;      /* vfs->mounts */
	struct list_head m_children;  /* mounts on top of this one */
	struct list_head m_child;
	struct list_head m_umount; /* an umount's list of what it detached, under ns_lock */
	int m_expiry_mark;         /* umount2(MNT_EXPIRE) marked it; any use (mntput) clears it */
	struct pcounter m_writers; /* files open for writing through it (Linux's mnt_writers) */
	uint64_t m_id_unique;      /* never reused in the instance (Linux's mnt_id_unique): statx */
	struct rcu_head m_rcu;
};

struct path {
	struct mount *mnt;
	struct dentry *dentry;
};

/* A use of the mount (Linux's mntput clears the mark): mntput, and a
 * lookup that ends in it without a reference, where Linux's ends with
 * path_put (stat, access, readlink) or unlazies before its ENOTDIR.  m is
 * NULL for a pseudo file (a pipe's AT_EMPTY_PATH). */
static inline void mnt_note_use(struct mount *m)
{
	if (m && unlikely(READ_ONCE(m->m_expiry_mark)))
		WRITE_ONCE(m->m_expiry_mark, 0);
}

#endif
