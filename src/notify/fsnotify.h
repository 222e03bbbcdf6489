/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsnotify.h - the notification hooks the VFS calls (Linux's
 * include/linux/fsnotify.h and fsnotify_backend.h).
 *
 * The hooks are inline and written for the case where nobody watches:
 *
 *   - a file with FMODE_NONOTIFY (pipes and every other pseudo file, seed 003)
 *     returns after testing a bit of f_mode, a word the caller already loaded;
 *   - any other object costs one load of sb->s_fsnotify_watchers, the number
 *     of watched inodes on its superblock, and returns when it is zero; an
 *     event the change listeners may want (create, write, ...) loads
 *     sb->s_change_mask beside it, in the same line, and tests its bit.
 *
 * Only past those two tests does a call leave the inline hook for fsnotify.c,
 * which finds the marks of the inode and of its parent directory.
 *
 * Event bits are inotify's own (FS_ACCESS == IN_ACCESS, ...), as in Linux.
 */
#ifndef UVFS_NOTIFY_FSNOTIFY_H
#define UVFS_NOTIFY_FSNOTIFY_H

#include "core/vfs.h"

#define FS_ACCESS        0x00000001u
#define FS_MODIFY        0x00000002u
#define FS_ATTRIB        0x00000004u
#define FS_CLOSE_WRITE   0x00000008u
#define FS_CLOSE_NOWRITE 0x00000010u
#define FS_OPEN          0x00000020u
#define FS_MOVED_FROM    0x00000040u
#define FS_MOVED_TO      0x00000080u
#define FS_CREATE        0x00000100u
#define FS_DELETE        0x00000200u
#define FS_DELETE_SELF   0x00000400u
#define FS_MOVE_SELF     0x00000800u
#define FS_UNMOUNT       0x00002000u
#define FS_Q_OVERFLOW    0x00004000u
#define FS_IN_IGNORED    0x00008000u
#define FS_EVENT_ON_CHILD 0x08000000u /* internal: the event is a child's, reported to its directory */
#define FS_ISDIR         0x40000000u

#define ALL_FSNOTIFY_EVENTS 0x0000ffffu
/* Events a directory may be told about its children (fsnotify_parent). */
#define FS_EVENTS_POSS_ON_CHILD                                                                               \
	(FS_ACCESS | FS_MODIFY | FS_ATTRIB | FS_CLOSE_WRITE | FS_CLOSE_NOWRITE | FS_OPEN)

/* ---- the slow paths (fsnotify.c) ---- */
void __fsnotify_file(struct file *f, uint32_t mask);
void __fsnotify_dentry(struct dentry *d, uint32_t mask);
void __fsnotify_inode(struct inode *inode, uint32_t mask);
void __fsnotify_name(struct inode *dir, struct dentry *d, struct inode *inode, uint32_t mask, uint32_t cookie);
void __fsnotify_inoderemove(struct inode *inode);
void __fsnotify_move(struct inode *old_dir, struct inode *new_dir, const char *old_name, unsigned old_len,
		     bool isdir, struct inode *target, struct dentry *moved);
/* A superblock goes (umount, teardown): IN_UNMOUNT to each watched inode,
 * then its marks go (IN_IGNORED). */
void fsnotify_sb_delete(struct super_block *sb);
/* Events about sb's objects were lost outside uvfs: IN_Q_OVERFLOW to every
 * group watching one of them. */
void fsnotify_sb_overflow(struct super_block *sb);
/* The instance goes: what fsnotify and inotify keep per instance. */
void fsnotify_instance_fini(struct uvfs *vfs);
/* A file on the instance's anonymous inode (inotify.c keeps that
 * filesystem); NULL: ENFILE or ENOMEM, as alloc_file_errno tells. */
struct file *anon_inode_getfile(struct uvfs *vfs, const struct file_operations *fops, void *priv, int flags);

/* ---- the change listeners (change.c; uvfs_add_change_listener and
 * uvfs_set_change_hook) ----
 * Each listener is a group with its own mask of change kinds; every
 * superblock of the instance carries their union in s_change_mask (as
 * Linux's s_fsnotify_mask), so a change nobody listens for costs the test of
 * one bit.  __fsnotify_report queues a change for the listeners, which hear
 * it when the API call returns (outside the locks).  kind is UVFS_CHANGE_*;
 * flags are RENAME_* for a rename, ia_valid for UVFS_CHANGE_ATTR; d names the
 * entry (its name now).
 *
 * First-write listeners (UVFS_CHANGE_WRITE_FIRST) hear a write only when it
 * is the first of its proc since the inode was last read or stat'ed: a taken
 * report stores the proc (with the write generation, so that a new listener
 * hears the next write of every inode) in i_change_seen, and every read
 * clears it (fsnotify_observe).  The writer compares after its data is
 * stored and the reader clears before it reads, an asymmetric Dekker pair:
 * smp_mb_light() on the write side, smp_mb_heavy() on the rare clearing
 * side. */
void __fsnotify_report(struct uvfs_proc *p, int kind, unsigned flags, struct inode *dir, const struct dentry *d,
		       struct inode *inode, struct inode *old_dir, const char *old_name, unsigned old_len,
		       struct inode *other);
/* A superblock joins vfs->supers (ns_lock held): it takes the listeners' mask. */
void fsnotify_sb_added(struct uvfs *vfs, struct super_block *sb);
void fsnotify_change_fini(struct uvfs *vfs);
__attribute__((cold)) void __fsnotify_observe(struct inode *inode);
#define FSN_CHANGE_CREATE 1 /* = UVFS_CHANGE_* of uvfs.h */
#define FSN_CHANGE_LINK   2
#define FSN_CHANGE_UNLINK 3
#define FSN_CHANGE_RENAME 4
#define FSN_CHANGE_ATTR   5
#define FSN_CHANGE_WRITE  6
/* s_change_mask: bit k, a listener wants every change of kind k; then the
 * first-write listeners' bit and, above FSN_GEN_SHIFT, their generation
 * (never 0 while one is listening) */
#define FSN_WANT(kind)       (1u << (kind))
#define FSN_WANT_WRITE_FIRST (1u << 7)
#define FSN_GEN_SHIFT        16

static __always_inline unsigned fsnotify_change_mask(const struct super_block *sb)
{
	return __atomic_load_n(&sb->s_change_mask, __ATOMIC_RELAXED);
}

/* i_change_seen's value for writes of p under mask m: proc pointers are
 * below 2^47, the generation takes the bits above. */
static __always_inline unsigned long fsnotify_seen_key(const struct uvfs_proc *p, unsigned m)
{
	return (uintptr_t)p ^ ((unsigned long)(m >> FSN_GEN_SHIFT) << 48);
}

/* Before the data or the attributes of inode are read: a first-write
 * listener hears the next write again.  One load while nothing is taken. */
static __always_inline void fsnotify_observe(struct inode *inode)
{
	if (unlikely(__atomic_load_n(&inode->i_change_seen, __ATOMIC_RELAXED) != 0))
		__fsnotify_observe(inode);
}

/* The one load of the fast path.  An atomic load, so that a build where
 * nothing ever watches cannot fold it away: the baseline of seed 003 pays
 * exactly this on pipes. */
static __always_inline bool fsnotify_sb_watched(const struct super_block *sb)
{
	return unlikely(__atomic_load_n(&sb->s_fsnotify_watchers, __ATOMIC_RELAXED) != 0);
}

/* Does a change listener want changes of kind on sb? */
static __always_inline bool fsnotify_sb_wants(const struct super_block *sb, int kind)
{
	return unlikely(fsnotify_change_mask(sb) & FSN_WANT(kind));
}

/* File events (Linux's fsnotify_file): a pseudo file returns on its f_mode
 * bit, before the superblock is even looked at (seed 003). */
static __always_inline void fsnotify_file(struct file *f, uint32_t mask)
{
	if (f->f_mode & FMODE_NONOTIFY)
		return;
	if (!fsnotify_sb_watched(f->f_inode->i_sb))
		return;
	__fsnotify_file(f, mask);
}

static __always_inline void fsnotify_open(struct file *f) { fsnotify_file(f, FS_OPEN); }
static __always_inline void fsnotify_access(struct file *f) { fsnotify_file(f, FS_ACCESS); }
static __always_inline void fsnotify_modify(struct file *f) { fsnotify_file(f, FS_MODIFY); }
/* A write of at least one byte (vfs_write, writev): IN_MODIFY, and the change
 * listeners hear who wrote.  With first-write listeners only, a proc's
 * repeated writes to an inode nobody read since cost a compare. */
static __always_inline void fsnotify_write(struct uvfs_proc *p, struct file *f)
{
	if (f->f_mode & FMODE_NONOTIFY)
		return;
	struct inode *inode = f->f_inode;
	const struct super_block *sb = inode->i_sb;
	if (fsnotify_sb_watched(sb))
		__fsnotify_file(f, FS_MODIFY);
	unsigned m = fsnotify_change_mask(sb);
	if (likely(!(m & (FSN_WANT(FSN_CHANGE_WRITE) | FSN_WANT_WRITE_FIRST))))
		return;
	if (!(m & FSN_WANT(FSN_CHANGE_WRITE))) {
		/* the data is stored: pairs with __fsnotify_observe's barrier */
		smp_mb_light();
		if (__atomic_load_n(&inode->i_change_seen, __ATOMIC_RELAXED) == fsnotify_seen_key(p, m))
			return;
	}
	__fsnotify_report(p, FSN_CHANGE_WRITE, 0, NULL, NULL, inode, NULL, NULL, 0, NULL);
}
static __always_inline void fsnotify_close(struct file *f)
{
	fsnotify_file(f, (f->f_mode & FMODE_WRITE) ? FS_CLOSE_WRITE : FS_CLOSE_NOWRITE);
}

/* A directory entry event, reported to dir with the entry's name. */
static __always_inline void fsnotify_name(struct inode *dir, struct dentry *d, struct inode *inode, uint32_t mask,
					  uint32_t cookie)
{
	if (fsnotify_sb_watched(dir->i_sb))
		__fsnotify_name(dir, d, inode, mask, cookie);
}

static __always_inline void fsnotify_create(struct uvfs_proc *p, struct inode *dir, struct dentry *d)
{
	if (fsnotify_sb_watched(dir->i_sb))
		__fsnotify_name(dir, d, d->d_inode, FS_CREATE, 0);
	if (fsnotify_sb_wants(dir->i_sb, FSN_CHANGE_CREATE))
		__fsnotify_report(p, FSN_CHANGE_CREATE, 0, dir, d, d->d_inode, NULL, NULL, 0, NULL);
}
static __always_inline void fsnotify_mkdir(struct uvfs_proc *p, struct inode *dir, struct dentry *d)
{
	if (fsnotify_sb_watched(dir->i_sb))
		__fsnotify_name(dir, d, d->d_inode, FS_CREATE | FS_ISDIR, 0);
	if (fsnotify_sb_wants(dir->i_sb, FSN_CHANGE_CREATE))
		__fsnotify_report(p, FSN_CHANGE_CREATE, 0, dir, d, d->d_inode, NULL, NULL, 0, NULL);
}

/* An event of the inode alone, never reported to a parent. */
static __always_inline void fsnotify_inode(struct inode *inode, uint32_t mask)
{
	if (fsnotify_sb_watched(inode->i_sb))
		__fsnotify_inode(inode, mask);
}

/* A name of inode was added or removed: IN_ATTRIB for its watchers. */
static __always_inline void fsnotify_link_count(struct inode *inode) { fsnotify_inode(inode, FS_ATTRIB); }

/* link(2): the inode's link count moved, then the new name appears. */
static __always_inline void fsnotify_link(struct uvfs_proc *p, struct inode *dir, struct inode *inode,
					  struct dentry *new)
{
	if (fsnotify_sb_watched(dir->i_sb)) {
		__fsnotify_inode(inode, FS_ATTRIB);
		__fsnotify_name(dir, new, inode, FS_CREATE, 0);
	}
	if (fsnotify_sb_wants(dir->i_sb, FSN_CHANGE_LINK))
		__fsnotify_report(p, FSN_CHANGE_LINK, 0, dir, new, inode, NULL, NULL, 0, NULL);
}

/*
 * unlink(2) and rmdir(2) once the filesystem removed the name (Linux's
 * d_delete_notify): when the caller's reference is the last one on the
 * dentry (besides a tmpfs name's pin, which an unlink's d_delete drops
 * after this) and no link is left, the inode is gone now (IN_DELETE_SELF,
 * then its watches go); otherwise that happens when the last user lets go
 * (fsnotify_dentry_kill).  Then the directory hears IN_DELETE.
 */
static __always_inline void fsnotify_delete(struct inode *dir, struct dentry *d, struct inode *inode)
{
	if (!fsnotify_sb_watched(dir->i_sb))
		return;
	long pin = !!(READ_ONCE(d->d_flags) & DCACHE_PINNED);
	if (__atomic_load_n(&d->d_count, __ATOMIC_ACQUIRE) == 1 + pin && READ_ONCE(inode->i_nlink) == 0)
		__fsnotify_inoderemove(inode);
	__fsnotify_name(dir, d, inode, S_ISDIR(inode->i_mode) ? FS_DELETE | FS_ISDIR : FS_DELETE, 0);
}
static __always_inline void fsnotify_unlink(struct uvfs_proc *p, struct inode *dir, struct dentry *d,
					    struct inode *inode)
{
	if (fsnotify_sb_watched(dir->i_sb)) {
		__fsnotify_inode(inode, FS_ATTRIB);
		fsnotify_delete(dir, d, inode);
	}
	if (fsnotify_sb_wants(dir->i_sb, FSN_CHANGE_UNLINK))
		__fsnotify_report(p, FSN_CHANGE_UNLINK, 0, dir, d, inode, NULL, NULL, 0, NULL);
}
static __always_inline void fsnotify_rmdir(struct uvfs_proc *p, struct inode *dir, struct dentry *d,
					   struct inode *inode)
{
	fsnotify_delete(dir, d, inode);
	if (fsnotify_sb_wants(dir->i_sb, FSN_CHANGE_UNLINK))
		__fsnotify_report(p, FSN_CHANGE_UNLINK, 0, dir, d, inode, NULL, NULL, 0, NULL);
}

/* The last reference to a dentry of an inode with no link left (dcache's
 * d_kill): the inode is gone for its watchers. */
static __always_inline void fsnotify_dentry_kill(struct inode *inode)
{
	if (unlikely(READ_ONCE(inode->i_nlink) == 0) && fsnotify_sb_watched(inode->i_sb))
		__fsnotify_inoderemove(inode);
}

/* rename(2), after the dentry moved: moved_from (old_name in old_dir) and
 * moved_to (its name now, in new_dir) with one cookie, the replaced inode's
 * link count, move_self.  The caller snapshots old_name before the move. */
static __always_inline void fsnotify_move(struct inode *old_dir, struct inode *new_dir, const char *old_name,
					  unsigned old_len, bool isdir, struct inode *target, struct dentry *moved)
{
	if (fsnotify_sb_watched(old_dir->i_sb))
		__fsnotify_move(old_dir, new_dir, old_name, old_len, isdir, target, moved);
}

/* Does a rename need the source's old name: for inotify's moved_from or a
 * change listener's report. */
static __always_inline bool fsnotify_rename_wanted(const struct super_block *sb)
{
	return fsnotify_sb_watched(sb) || fsnotify_sb_wants(sb, FSN_CHANGE_RENAME);
}

/* The change listeners' one report of a rename (after its fsnotify_move calls):
 * moved now has its new name in new_dir; other is what that name held. */
static __always_inline void fsnotify_rename(struct uvfs_proc *p, struct inode *old_dir, struct inode *new_dir,
					    const char *old_name, unsigned old_len, struct dentry *moved,
					    struct inode *other, unsigned flags)
{
	if (fsnotify_sb_wants(old_dir->i_sb, FSN_CHANGE_RENAME))
		__fsnotify_report(p, FSN_CHANGE_RENAME, flags, new_dir, moved, moved->d_inode, old_dir, old_name,
				  old_len, other);
}

/* notify_change() succeeded (Linux's fsnotify_change): attrib for owner,
 * mode and both times; modify for a size change or mtime alone; access for
 * atime alone.  A first-write listener hears the next write again: what it
 * holds of the inode may have come with the change (a setattr's reply). */
static __always_inline void fsnotify_change(struct uvfs_proc *p, struct dentry *d, unsigned ia_valid)
{
	fsnotify_observe(d->d_inode);
	if (fsnotify_sb_wants(d->d_sb, FSN_CHANGE_ATTR))
		__fsnotify_report(p, FSN_CHANGE_ATTR, ia_valid, NULL, NULL, d->d_inode, NULL, NULL, 0, NULL);
	if (!fsnotify_sb_watched(d->d_sb))
		return;
	uint32_t mask = 0;
	if (ia_valid & (ATTR_UID | ATTR_GID | ATTR_MODE))
		mask |= FS_ATTRIB;
	if (ia_valid & ATTR_SIZE)
		mask |= FS_MODIFY;
	if ((ia_valid & (ATTR_ATIME | ATTR_MTIME)) == (ATTR_ATIME | ATTR_MTIME))
		mask |= FS_ATTRIB;
	else if (ia_valid & ATTR_ATIME)
		mask |= FS_ACCESS;
	else if (ia_valid & ATTR_MTIME)
		mask |= FS_MODIFY;
	if (mask)
		__fsnotify_dentry(d, mask);
}

/* ---- changes made outside uvfs (external.c; hostfs cache=watch) ----
 * A source reads in what is pending from outside when sync is called: every
 * inotify read, poll and FIONREAD of the instance calls the sources of its
 * instance first, so an outside change made before the call is seen by it.
 * sync runs with no lock of the caller held. */
struct fsnotify_source {
	struct list_head list;
	struct uvfs *vfs;
	void (*sync)(struct fsnotify_source *s);
};
void fsnotify_source_add(struct fsnotify_source *s);
void fsnotify_source_del(struct fsnotify_source *s);
void __fsnotify_sources_sync(struct uvfs *vfs);
static __always_inline void fsnotify_sources_sync(struct uvfs *vfs)
{
	if (unlikely(__atomic_load_n(&vfs->nr_fsnotify_sources, __ATOMIC_ACQUIRE) != 0))
		__fsnotify_sources_sync(vfs);
}
void __fsnotify_external(struct inode *dir, struct inode *inode, uint32_t mask, const char *name, unsigned len,
			 uint32_t cookie);
static inline void fsnotify_external(struct inode *dir, struct inode *inode, uint32_t mask, const char *name,
				     unsigned len, uint32_t cookie)
{
	if (fsnotify_sb_watched((dir ? dir : inode)->i_sb))
		__fsnotify_external(dir, inode, mask, name, len, cookie);
}
uint32_t fsnotify_new_cookie(void);

#endif /* UVFS_NOTIFY_FSNOTIFY_H */
