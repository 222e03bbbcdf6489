// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * namespace.c - the mount tree: superblocks, mount, bind mounts, remount,
 * umount (Linux's fs/namespace.c and fs/super.c).
 *
 * Locks: vfs->ns_lock serialises every change to the tree; a change also
 * runs inside a rename_seq write section, so lockless walkers that crossed
 * a mountpoint meanwhile retry.  A mount's reference count is a sharded
 * counter (paths hold it: cwd, root, open files, walks in REF mode); umount
 * sums it inside the write section to decide EBUSY, which is race-free
 * against walkers because they take their reference before they recheck
 * rename_seq.  Mounts and superblocks are freed after a grace period.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include "pathcache.h"
#include <sys/mount.h>

struct super_block *sget(struct uvfs *vfs, const struct super_operations *ops, unsigned long magic)
{
	struct super_block *sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->s_op = ops;
	sb->s_magic = magic;
	sb->s_uvfs = vfs;
	sb->s_dev = makedev(0, __atomic_add_fetch(&vfs->next_dev, 1, __ATOMIC_RELAXED));
	inode_sb_list_init(sb);
	pthread_mutex_init(&sb->s_in_lookup_lock, NULL);
	pthread_cond_init(&sb->s_in_lookup_done, NULL);
	INIT_LIST_HEAD(&sb->s_in_lookup);
	INIT_LIST_HEAD(&sb->s_list);
	return sb;
}

/* Frees every dentry of a tree: first out of the hash, then, after a grace
 * period, the memory. */
static void d_unhash_tree(struct dentry *d)
{
	struct list_head *pos;
	list_for_each(pos, &d->d_subdirs)
		d_unhash_tree(list_entry(pos, struct dentry, d_child));
	d_drop(d);
}

static void sb_free_rcu(struct rcu_head *h)
{
	struct super_block *sb = container_of(h, struct super_block, s_rcu);
	if (sb->s_op->put_super)
		sb->s_op->put_super(sb);
	pthread_mutex_destroy(&sb->s_in_lookup_lock);
	pthread_cond_destroy(&sb->s_in_lookup_done);
	free(sb);
}

/*
 * The last mount of a superblock is gone: tear it down.  Nothing here waits
 * for a grace period (it may run from an mntput inside a read-side
 * section): dentries, inodes and the superblock itself are freed by RCU
 * callbacks, and inodes carry their own s_op so that theirs need no sb.
 */
void deactivate_super(struct super_block *sb)
{
	if (sb->s_op->shutdown)
		sb->s_op->shutdown(sb);
	if (sb->s_root)
		d_unhash_tree(sb->s_root);
	fsnotify_sb_delete(sb); /* IN_UNMOUNT, IN_IGNORED: before the inodes go */
	if (sb->s_root) {
		d_genocide(sb->s_root);
		sb->s_root = NULL;
	}
	evict_all_inodes(sb);
	if (sb->s_op->kill_sb)
		sb->s_op->kill_sb(sb);
	/* callers never hold ns_lock: superblocks die outside the tree's lock */
	struct uvfs *vfs = sb->s_uvfs;
	pthread_mutex_lock(&vfs->ns_lock);
	if (!list_empty(&sb->s_list))
		list_del_init(&sb->s_list);
	pthread_mutex_unlock(&vfs->ns_lock);
	urcu_memb_call_rcu(&sb->s_rcu, sb_free_rcu);
}

static inline struct hlist_head *m_bucket(struct uvfs *vfs, struct mount *parent, struct dentry *mp)
{
	uintptr_t k = ((uintptr_t)parent >> 4) ^ ((uintptr_t)mp >> 6);
	return &vfs->m_hash[k & 255];
}

static struct mount *alloc_mount(struct super_block *sb, struct dentry *root)
{
	struct mount *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->m_sb = sb;
	m->m_root = dget(root);
	m->m_parent = m;
	/* from 2^31 + 1, as Linux's, above every old-style id */
	m->m_id_unique = (1ull << 31) + __atomic_add_fetch(&sb->s_uvfs->last_mnt_id, 1, __ATOMIC_RELAXED);
	INIT_LIST_HEAD(&m->m_children);
	INIT_LIST_HEAD(&m->m_child);
	INIT_LIST_HEAD(&m->m_list);
	INIT_LIST_HEAD(&m->m_umount);
	__atomic_add_fetch(&sb->s_active, 1, __ATOMIC_ACQ_REL);
	return m;
}

int namespace_init(struct uvfs *vfs, struct super_block *root_sb)
{
	vfs->m_hash = calloc(256, sizeof(struct hlist_head));
	if (!vfs->m_hash)
		return -ENOMEM;
	struct mount *m = alloc_mount(root_sb, root_sb->s_root);
	if (!m) {
		/* uvfs_create then frees the instance without namespace_fini */
		free(vfs->m_hash);
		vfs->m_hash = NULL;
		return -ENOMEM;
	}
	list_add(&root_sb->s_list, &vfs->supers);
	list_add(&m->m_list, &vfs->mounts);
	vfs->root_mnt = m;
	return 0;
}

static void mount_free_rcu(struct rcu_head *h)
{
	free(container_of(h, struct mount, m_rcu));
}

/* A detached mount with no reference left: release what it holds. */
static void mount_release(struct mount *m)
{
	struct super_block *sb = m->m_sb;
	/* detached: the mountpoint was let go of at umount (umount_tree_one) */
	dput(m->m_root);
	if (__atomic_sub_fetch(&sb->s_active, 1, __ATOMIC_ACQ_REL) == 0)
		deactivate_super(sb);
	urcu_memb_call_rcu(&m->m_rcu, mount_free_rcu);
}

/*
 * mntput of a detached mount: release it if no reference is left.  An RCU
 * walk may be about to take one (it read the mount through a file being
 * closed, or a cwd being left): so rename_seq moves first, then a barrier
 * on every thread, then the sum.  Either the sum sees the walker's
 * reference, or the walker sees the move and drops it again
 * (legitimize_path in namei.c); nobody touches a torn-down superblock.  The
 * plain sum first keeps that work for the last reference.
 */
void mnt_free_detached(struct mount *m)
{
	struct uvfs *vfs = m->m_sb->s_uvfs;
	pthread_mutex_lock(&vfs->ns_lock);
	bool free_it = false;
	if ((m->m_flags & MNT_DETACHED) && !(m->m_flags & MNT_RELEASED) && pcounter_sum(&m->m_count) == 0) {
		pthread_mutex_lock(&vfs->seq_lock);
		write_seqcount_begin(&vfs->rename_seq);
		smp_mb_heavy();
		free_it = pcounter_sum(&m->m_count) == 0;
		if (free_it) {
			WRITE_ONCE(m->m_flags, m->m_flags | MNT_RELEASED);
			pathcache_mounts_changed(vfs); /* its root's address may come back */
		}
		write_seqcount_end(&vfs->rename_seq);
		pthread_mutex_unlock(&vfs->seq_lock);
	}
	pthread_mutex_unlock(&vfs->ns_lock);
	if (free_it)
		mount_release(m);
}

/* m, unhashed, leaves its mountpoint: the dentry stays DCACHE_MOUNTED
 * while any other attached mount sits on it (another bind of the same
 * directory may carry one); ns_lock held, in a rename_seq write section. */
static void mountpoint_unmark(struct uvfs *vfs, struct mount *m)
{
	struct dentry *mp = m->m_mountpoint;
	if (lookup_mnt(m->m_parent, mp))
		return;
	struct list_head *pos;
	list_for_each(pos, &vfs->mounts) {
		struct mount *o = list_entry(pos, struct mount, m_list);
		if (o != m && o->m_mountpoint == mp && o->m_parent != o)
			return;
	}
	__atomic_and_fetch(&mp->d_flags, ~DCACHE_MOUNTED, __ATOMIC_RELEASE);
}

/* Takes m out of the tree; ns_lock held, in a rename_seq write section. */
static void umount_tree_one(struct uvfs *vfs, struct mount *m)
{
	hlist_del_rcu(&m->m_hash);
	list_del_init(&m->m_child);
	list_del_init(&m->m_list);
	struct dentry *mp = m->m_mountpoint;
	mountpoint_unmark(vfs, m);
	/* As Linux's unhash_mnt: a detached mount is its own parent and lets go
	 * of its mountpoint now, so that the tree it left (whose superblock may
	 * go first) is not held by it.  Lockless walkers that read the old
	 * values meanwhile fail their rename_seq check (we are in a write
	 * section). */
	WRITE_ONCE(m->m_mountpoint, m->m_root);
	WRITE_ONCE(m->m_parent, m);
	WRITE_ONCE(m->m_flags, m->m_flags | MNT_DETACHED);
	dput(mp);
}

/* Detaches m and everything mounted below it, children first; the ones
 * below are collected on gone (through m_umount), each with a reference,
 * for the caller to drop once the locks are gone (the last reference
 * releases a detached mount).  Without that reference a racing mntput could
 * release one and its memory go after a grace period, before the caller
 * looked at it.  However many there are: nothing here allocates. */
static void umount_tree(struct uvfs *vfs, struct mount *m, struct list_head *gone)
{
	struct list_head *pos, *n;
	list_for_each_safe(pos, n, &m->m_children) {
		struct mount *c = list_entry(pos, struct mount, m_child);
		umount_tree(vfs, c, gone);
		list_add_tail(&mntget(c)->m_umount, gone);
	}
	umount_tree_one(vfs, m);
}

void namespace_fini(struct uvfs *vfs)
{
	/* children before parents: the list has newer mounts first */
	while (!list_empty(&vfs->mounts)) {
		struct mount *m = list_entry(vfs->mounts.next, struct mount, m_list);
		list_del_init(&m->m_list);
		/* every proc and file is gone: no path holds a mount now */
		LIFETIME_CHECK(pcounter_sum(&m->m_count) == 0, "a mount has %ld references at uvfs_destroy",
			       (long)pcounter_sum(&m->m_count));
		struct super_block *sb = m->m_sb;
		/* the root mount holds no mountpoint (after a pivot_root its
		 * m_mountpoint is its own root, never NULL for a walker) */
		if (m->m_parent != m) {
			hlist_del_rcu(&m->m_hash);
			dput(m->m_mountpoint);
		}
		dput(m->m_root);
		if (__atomic_sub_fetch(&sb->s_active, 1, __ATOMIC_ACQ_REL) == 0)
			deactivate_super(sb);
		free(m);
	}
	free(vfs->m_hash);
}

/* Hangs m on (parent, mp) where no walk sees it yet; ns_lock held. */
static void graft_mount(struct mount *m, struct mount *parent, struct dentry *mp)
{
	m->m_parent = parent;
	m->m_mountpoint = dget(mp);
	list_add(&m->m_child, &parent->m_children);
}

/* Makes a grafted mount visible to walks; ns_lock held. */
static void publish_mount(struct uvfs *vfs, struct mount *m)
{
	struct dentry *mp = m->m_mountpoint;
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	hlist_add_head_rcu(&m->m_hash, m_bucket(vfs, m->m_parent, mp));
	__atomic_or_fetch(&mp->d_flags, DCACHE_MOUNTED, __ATOMIC_RELEASE);
	pathcache_mounts_changed(vfs);
	write_seqcount_end(&vfs->rename_seq);
	pthread_mutex_unlock(&vfs->seq_lock);
	list_add(&m->m_list, &vfs->mounts);
}

/* Attaches m on (parent, mp); ns_lock held. */
static void attach_mount(struct uvfs *vfs, struct mount *m, struct mount *parent, struct dentry *mp)
{
	graft_mount(m, parent, mp);
	publish_mount(vfs, m);
}

static bool d_is_under(struct dentry *d, struct dentry *root)
{
	for (;;) {
		if (d == root)
			return true;
		if (d == d->d_parent)
			return false;
		d = d->d_parent;
	}
}

/* MS_BIND|MS_REC: the mounts below (src, root) are cloned onto dst, keeping
 * their mountpoints, and queued on clones in the order to publish them
 * (older mounts first, so stacking stays); ns_lock held.  Nothing is
 * visible until the whole copy is made, as Linux's copy_tree: ENOMEM leaves
 * the namespace as it was. */
static int copy_tree(struct mount *src, struct dentry *root, struct mount *dst, struct list_head *clones)
{
	struct list_head *pos;
	for (pos = src->m_children.prev; pos != &src->m_children; pos = pos->prev) {
		struct mount *c = list_entry(pos, struct mount, m_child);
		/* an unbindable mount is left out, with all it covers */
		if (!d_is_under(c->m_mountpoint, root) || (c->m_flags & MNT_UNBINDABLE))
			continue;
		struct mount *nc = alloc_mount(c->m_sb, c->m_root);
		if (!nc)
			return -ENOMEM;
		nc->m_flags = c->m_flags & ~MNT_DETACHED;
		graft_mount(nc, dst, c->m_mountpoint);
		list_add_tail(&nc->m_list, clones);
		int err = copy_tree(c, c->m_root, nc, clones);
		if (err)
			return err;
	}
	return 0;
}

/* A copy_tree that failed: its mounts were never seen, so no grace period.
 * The source mounts hold every dentry and superblock they pinned. */
static void free_clones(struct list_head *clones)
{
	while (!list_empty(clones)) {
		struct mount *m = list_entry(clones->next, struct mount, m_list);
		list_del_init(&m->m_list);
		dput(m->m_mountpoint);
		dput(m->m_root);
		if (__atomic_sub_fetch(&m->m_sb->s_active, 1, __ATOMIC_ACQ_REL) == 0)
			deactivate_super(m->m_sb);
		free(m);
	}
}

/*
 * What may be mounted on mp (the top of the mounts on the target, ns_lock
 * held), in Linux's order: a name that is gone, or below one that is, takes
 * no mount (ENOENT, d_set_mounted's check at lock_mount); then a directory
 * covers a directory and anything else anything else (ENOTDIR, graft_tree).
 * root is the root of what would be mounted.
 */
static int mountpoint_check(struct dentry *mp, struct dentry *root)
{
	for (struct dentry *d = mp;; d = READ_ONCE(d->d_parent)) {
		if (d == READ_ONCE(d->d_parent))
			break;
		if (d_unhashed(d))
			return -ENOENT;
	}
	if (S_ISDIR(READ_ONCE(root->d_inode->i_mode)) != S_ISDIR(READ_ONCE(mp->d_inode->i_mode)))
		return -ENOTDIR;
	return 0;
}

/* Linux's lock_mount: a new mount goes on top of whatever is already
 * mounted on the target.  A walk leaves "/" and "." where they are, under
 * the mounts on them, so the mount would hide the others beside them instead
 * (a rename of the lower mount's root stays allowed, for one).  ns_lock
 * held, so nothing here is the last reference. */
static void path_to_top(struct path *p)
{
	struct mount *c;
	while ((READ_ONCE(p->dentry->d_flags) & DCACHE_MOUNTED) && (c = lookup_mnt(p->mnt, p->dentry))) {
		struct path top = { .mnt = mntget(c), .dentry = dget(c->m_root) };
		path_put(p);
		*p = top;
	}
}

static unsigned ms_to_mnt_flags(unsigned long flags)
{
	unsigned f = 0;
	if (flags & MS_RDONLY)
		f |= MNT_RDONLY;
	if (flags & MS_NOSUID)
		f |= MNT_NOSUID;
	if (flags & MS_NODEV)
		f |= MNT_NODEV;
	if (flags & MS_NOEXEC)
		f |= MNT_NOEXEC;
	if (flags & MS_NOATIME)
		f |= MNT_NOATIME;
	if (flags & MS_NODIRATIME)
		f |= MNT_NODIRATIME;
	/* Linux's path_mount: strictatime overrides noatime */
	if (flags & MS_STRICTATIME)
		f = (f & ~MNT_NOATIME) | MNT_STRICTATIME;
	return f;
}

/* An inode that a read-only remount must wait for: open for writing, or
 * removed but still held. */
static bool inode_blocks_rdonly(struct inode *i)
{
	return __atomic_load_n(&i->i_writecount, __ATOMIC_RELAXED) > 0 || READ_ONCE(i->i_nlink) == 0;
}

/* Whether sb may not become read-only now: no file may be open for
 * writing on a read-only sb, and no inode removed but still held (an open
 * file, a cwd: Linux's s_remove_count), whose final drop would write.
 * Under ns_lock. */
static bool sb_blocks_rdonly(struct super_block *sb)
{
	inode_sb_list_lock_all(sb);
	bool busy = inode_sb_list_find(sb, inode_blocks_rdonly) != NULL;
	inode_sb_list_unlock_all(sb);
	return busy;
}

static int do_remount(struct uvfs_proc *p, struct path *path, unsigned long flags, const void *data)
{
	struct uvfs *vfs = p->vfs;
	struct mount *m = path->mnt;
	if (path->dentry != m->m_root)
		return -EINVAL;
	pthread_mutex_lock(&vfs->ns_lock);
	int err = 0;
	if (m->m_flags & MNT_DETACHED) {
		pthread_mutex_unlock(&vfs->ns_lock);
		return -EINVAL;
	}
	if (flags & MS_BIND) {
		unsigned nf = (m->m_flags & MNT_KEPT_ON_REMOUNT) | ms_to_mnt_flags(flags);
		if ((nf & MNT_RDONLY) && !(m->m_flags & MNT_RDONLY)) {
			/* Linux's mnt_make_readonly: hold new writers, then count
			 * the ones that came before (see mnt_get_write_access) */
			__atomic_or_fetch(&m->m_flags, MNT_WRITE_HOLD, __ATOMIC_SEQ_CST);
			smp_mb_heavy();
			if (pcounter_sum(&m->m_writers) > 0)
				err = -EBUSY;
		}
		/* the new flags, or the old ones without the hold: the writers
		 * that waited go on */
		__atomic_store_n(&m->m_flags, err ? (m->m_flags & ~MNT_WRITE_HOLD) : nf, __ATOMIC_RELEASE);
	} else {
		struct super_block *sb = m->m_sb;
		if ((flags & MS_RDONLY) && !(sb->s_flags & SB_RDONLY) && sb_blocks_rdonly(sb))
			err = -EBUSY;
		if (!err && sb->s_op->remount && data)
			err = sb->s_op->remount(sb, data);
		if (!err) {
			if (flags & MS_RDONLY)
				WRITE_ONCE(sb->s_flags, sb->s_flags | SB_RDONLY);
			else
				WRITE_ONCE(sb->s_flags, sb->s_flags & ~SB_RDONLY);
			/* Linux's do_remount sets the mount's flags too, read-only
			 * included: a plain remount makes a read-only bind
			 * writable again */
			WRITE_ONCE(m->m_flags, (m->m_flags & MNT_KEPT_ON_REMOUNT) | ms_to_mnt_flags(flags));
		}
	}
	pthread_mutex_unlock(&vfs->ns_lock);
	return err;
}

/* The mount after p in a preorder walk of root's subtree, or NULL at its
 * end (Linux's next_mnt); ns_lock held. */
static struct mount *next_mnt(struct mount *p, struct mount *root)
{
	struct list_head *next = p->m_children.next;
	if (next == &p->m_children) {
		for (;;) {
			if (p == root)
				return NULL;
			next = p->m_child.next;
			if (next != &p->m_parent->m_children)
				break;
			p = p->m_parent;
		}
	}
	return list_entry(next, struct mount, m_child);
}

/* vfs->mounts keeps children before their parents (namespace_fini takes it
 * in order): after a mount changed parents, the list is rebuilt from a
 * preorder walk of the tree, each mount put at the front, so that every
 * mount ends up ahead of its ancestors.  ns_lock held. */
static void mounts_relist(struct uvfs *vfs)
{
	for (struct mount *m = vfs->root_mnt; m; m = next_mnt(m, vfs->root_mnt)) {
		list_del_init(&m->m_list);
		list_add(&m->m_list, &vfs->mounts);
	}
}

/*
 * MS_PRIVATE, MS_SLAVE or MS_UNBINDABLE, of the mount at path or, with
 * MS_REC, of every mount in its subtree (Linux's do_change_type).  EINVAL
 * unless path is a mount's root, unless exactly one propagation type is
 * asked (besides MS_REC and MS_SILENT), and for a detached mount.  An
 * instance is one mount namespace without propagation, so every mount is
 * private: private and slave (of no master) only clear unbindable.
 * MS_SHARED is EINVAL (docs/ARCHITECTURE.md).  ns_lock not held.
 */
static int do_change_type(struct uvfs *vfs, struct path *path, unsigned long flags)
{
	struct mount *m = path->mnt;
	if (path->dentry != m->m_root)
		return -EINVAL;
	unsigned long type = flags & ~(MS_REC | MS_SILENT);
	if ((type & ~(unsigned long)(MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)) || (type & (type - 1)) ||
	    type == MS_SHARED)
		return -EINVAL;
	int err = 0;
	pthread_mutex_lock(&vfs->ns_lock);
	if (m->m_flags & MNT_DETACHED)
		err = -EINVAL;
	else
		for (struct mount *c = m; c; c = (flags & MS_REC) ? next_mnt(c, m) : NULL) {
			if (type == MS_UNBINDABLE)
				__atomic_or_fetch(&c->m_flags, MNT_UNBINDABLE, __ATOMIC_RELAXED);
			else
				__atomic_and_fetch(&c->m_flags, ~MNT_UNBINDABLE, __ATOMIC_RELAXED);
		}
	pthread_mutex_unlock(&vfs->ns_lock);
	return err;
}

/*
 * MS_MOVE: the mount whose root source names moves, with every mount
 * above it, onto the top of the mounts on target (Linux's
 * do_move_mount_old).  EINVAL for no source; the source walk's errors;
 * EINVAL for a source that is not a mount's root, or a directory and a
 * non-directory; ENOENT for a target in a detached tree or below a removed
 * name; EINVAL for a detached source; ELOOP for a target inside the moved
 * tree.
 * The instance's root mount is always an ancestor of the target, so it is
 * ELOOP, as "/" with the parent it has on a Linux system.  ns_lock not held.
 */
static int do_move_mount(struct uvfs_proc *p, struct path *tpath, const char *source)
{
	if (!source || !*source)
		return -EINVAL;
	struct uvfs *vfs = p->vfs;
	struct filename sname;
	struct path spath;
	int err = getname(source, &sname, 0);
	if (!err)
		err = filename_lookup(p, AT_FDCWD, &sname, LOOKUP_FOLLOW, &spath);
	if (err)
		return err;
	pthread_mutex_lock(&vfs->ns_lock);
	struct mount *old = spath.mnt;
	/* Linux 6.18's order: the source and the two types before the target
	 * is locked (its ENOENT), a detached source after */
	if (spath.dentry != old->m_root ||
	    S_ISDIR(READ_ONCE(spath.dentry->d_inode->i_mode)) != S_ISDIR(READ_ONCE(tpath->dentry->d_inode->i_mode)))
		err = -EINVAL;
	path_to_top(tpath);
	struct mount *to = tpath->mnt;
	struct dentry *mp = tpath->dentry;
	if (err)
		;
	else if (to->m_flags & MNT_DETACHED)
		err = -ENOENT;
	else if ((err = mountpoint_check(mp, spath.dentry)) == -ENOTDIR)
		err = 0; /* compared above */
	if (err)
		;
	else if (old->m_flags & MNT_DETACHED)
		err = -EINVAL;
	else
		for (struct mount *a = to;; a = a->m_parent) {
			if (a == old) {
				err = -ELOOP;
				break;
			}
			if (a->m_parent == a)
				break;
		}
	if (err) {
		pthread_mutex_unlock(&vfs->ns_lock);
		path_put(&spath);
		return err;
	}
	struct dentry *oldmp = old->m_mountpoint;
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	hlist_del_rcu(&old->m_hash);
	list_del_init(&old->m_child);
	mountpoint_unmark(vfs, old);
	WRITE_ONCE(old->m_parent, to);
	WRITE_ONCE(old->m_mountpoint, dget(mp));
	list_add(&old->m_child, &to->m_children);
	hlist_add_head_rcu(&old->m_hash, m_bucket(vfs, to, mp));
	__atomic_or_fetch(&mp->d_flags, DCACHE_MOUNTED, __ATOMIC_RELEASE);
	pathcache_mounts_changed(vfs);
	write_seqcount_end(&vfs->rename_seq);
	pthread_mutex_unlock(&vfs->seq_lock);
	mounts_relist(vfs);
	/* under ns_lock: once it is dropped, the mount old left may be
	 * unmounted and its superblock torn down, which takes ns_lock and
	 * wants no reference left on its dentries (as umount_tree_one) */
	dput(oldmp);
	pthread_mutex_unlock(&vfs->ns_lock);
	RACE_POINT("move:moved");
	path_put(&spath);
	return 0;
}

/*
 * mount: EPERM without privilege; the target walk's; for MS_REMOUNT, EINVAL
 * unless the target is a mount's root; for MS_BIND, the source walk's;
 * ENODEV for a filesystem type nobody registered (filesystems.c); the
 * filesystem's own (EINVAL for bad options, ENOMEM); ENOTDIR when a
 * directory would cover a non-directory or the reverse.
 */
UVFS_API int uvfs_mount(struct uvfs_proc *p, const char *source, const char *target, const char *fstype,
			unsigned long flags, const void *data)
{
	API_ENTER_PROC(p);
	struct filename tname;
	int err = getname(target, &tname, 0);
	if (err)
		API_RETURN(err);
	struct path tpath;
	/* the target is looked up before the privilege check, as on Linux */
	err = filename_lookup(p, AT_FDCWD, &tname, LOOKUP_FOLLOW, &tpath);
	if (err)
		API_RETURN(err);
	if (!cred_is_root(current_cred())) {
		path_put(&tpath);
		API_RETURN(-EPERM);
	}
	struct uvfs *vfs = p->vfs;
	if (flags & MS_REMOUNT) {
		err = do_remount(p, &tpath, flags, data);
		path_put(&tpath);
		API_RETURN(err);
	}
	struct mount *nm = NULL;
	if (flags & MS_BIND) {
		struct filename sname;
		struct path spath;
		/* Linux's do_loopback: no source name at all is EINVAL */
		if (!source || !*source) {
			path_put(&tpath);
			API_RETURN(-EINVAL);
		}
		err = getname(source, &sname, 0);
		if (!err)
			err = filename_lookup(p, AT_FDCWD, &sname, LOOKUP_FOLLOW, &spath);
		if (err) {
			path_put(&tpath);
			API_RETURN(err);
		}
		pthread_mutex_lock(&vfs->ns_lock);
		path_to_top(&tpath);
		/* nothing is mounted on, or bound from, a detached tree: it
		 * would outlive what it hangs on.  Linux's order (6.18,
		 * measured): a target that is not mounted is ENOENT (lock_mount),
		 * a detached source EINVAL (check_mnt), before the type check */
		if (tpath.mnt->m_flags & MNT_DETACHED)
			err = -ENOENT;
		else
			err = mountpoint_check(tpath.dentry, spath.dentry);
		if ((!err || err == -ENOTDIR) && (spath.mnt->m_flags & (MNT_DETACHED | MNT_UNBINDABLE)))
			err = -EINVAL;
		/* a removed source binds nowhere (Linux 6.18, measured: after
		 * the type check), be it a removed cwd or the root of a bind
		 * mount whose directory was removed */
		if (!err && d_unlinked(spath.dentry))
			err = -ENOENT;
		if (err) {
			pthread_mutex_unlock(&vfs->ns_lock);
			path_put(&spath);
			path_put(&tpath);
			API_RETURN(err);
		}
		struct list_head clones = LIST_HEAD_INIT(clones);
		nm = alloc_mount(spath.mnt->m_sb, spath.dentry);
		err = nm ? 0 : -ENOMEM;
		if (nm) {
			/* a bind keeps the source's flags; MS_RDONLY needs a remount */
			nm->m_flags = spath.mnt->m_flags & ~MNT_DETACHED;
			list_add_tail(&nm->m_list, &clones);
			/* copied before nm hangs on the target, which may be
			 * below the source: the copy must not contain itself */
			if (flags & MS_REC)
				err = copy_tree(spath.mnt, spath.dentry, nm, &clones);
			if (!err) {
				graft_mount(nm, tpath.mnt, tpath.dentry);
				while (!list_empty(&clones)) {
					struct mount *m = list_entry(clones.next, struct mount, m_list);
					list_del_init(&m->m_list);
					publish_mount(vfs, m);
				}
			}
		}
		pthread_mutex_unlock(&vfs->ns_lock);
		free_clones(&clones);
		path_put(&spath);
		path_put(&tpath);
		API_RETURN(err);
	}
	if (flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)) {
		err = do_change_type(vfs, &tpath, flags);
		path_put(&tpath);
		API_RETURN(err);
	}
	if (flags & MS_MOVE) {
		err = do_move_mount(p, &tpath, source);
		path_put(&tpath);
		API_RETURN(err);
	}
	if (!fstype) {
		path_put(&tpath);
		API_RETURN(-EINVAL);
	}
	const struct file_system_type *type = get_fs_type(vfs, fstype);
	if (!type) {
		path_put(&tpath);
		API_RETURN(-ENODEV);
	}
	if (type->fs_flags & FS_NOUSER) {
		put_filesystem(vfs, type);
		path_put(&tpath);
		API_RETURN(-EINVAL);
	}
	struct super_block *sb;
	err = type->mount_proc ? type->mount_proc(type, p, source, flags, data, &sb)
			       : type->mount(type, vfs, source, flags, data, &sb);
	put_filesystem(vfs, type); /* a superblock of the type holds its own */
	if (err) {
		path_put(&tpath);
		API_RETURN(err);
	}
	if (flags & MS_RDONLY)
		sb->s_flags |= SB_RDONLY;
	pthread_mutex_lock(&vfs->ns_lock);
	path_to_top(&tpath);
	err = (tpath.mnt->m_flags & MNT_DETACHED) ? -ENOENT : mountpoint_check(tpath.dentry, sb->s_root);
	if (err) {
		pthread_mutex_unlock(&vfs->ns_lock);
		deactivate_super(sb);
		path_put(&tpath);
		API_RETURN(err);
	}
	list_add(&sb->s_list, &vfs->supers);
	fsnotify_sb_added(vfs, sb); /* the change hook's bias */
	nm = alloc_mount(sb, sb->s_root);
	if (nm) {
		nm->m_flags = ms_to_mnt_flags(flags) & ~MNT_RDONLY;
		attach_mount(vfs, nm, tpath.mnt, tpath.dentry);
	}
	pthread_mutex_unlock(&vfs->ns_lock);
	if (!nm)
		deactivate_super(sb);
	path_put(&tpath);
	API_RETURN(nm ? 0 : -ENOMEM);
}

/*
 * umount2: EINVAL (flags); the walk's; EPERM without privilege; EINVAL when
 * the path is not a mount's root or is the root of the tree; with
 * MNT_EXPIRE, EINVAL with MNT_FORCE or MNT_DETACH or on the caller's root
 * mount, EAGAIN the first time (the mount is marked; any use unmarks it);
 * EBUSY when something is mounted below or a reference is held (unless
 * MNT_DETACH).  Linux's order (ksys_umount, can_umount, do_umount).
 */
UVFS_API int uvfs_umount2(struct uvfs_proc *p, const char *target, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		API_RETURN(-EINVAL);
	/* from now on the lock-free lookups note their mount's use (namei.h),
	 * which clears a mark; before any mark is set */
	if ((flags & MNT_EXPIRE) && !READ_ONCE(p->vfs->expiry_used)) {
		WRITE_ONCE(p->vfs->expiry_used, 1);
		smp_mb();
	}
	struct filename name;
	int err = getname(target, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, LOOKUP_MOUNTPOINT | ((flags & UMOUNT_NOFOLLOW) ? 0 : LOOKUP_FOLLOW),
			      &path);
	if (err)
		API_RETURN(err);
	struct uvfs *vfs = p->vfs;
	struct mount *m = path.mnt;
	/* Linux's can_umount, after the lookup: privilege, then a mount's root;
	 * do_umount's MNT_EXPIRE checks; then the mount of the caller's root,
	 * which is not unmounted but made read-only (do_umount_root: "umount
	 * /"), also the tree's root mount, which no other umount takes
	 * (docs/ARCHITECTURE.md: EINVAL, where Linux detaches a namespace's
	 * root) */
	bool own_root = false;
	if (!cred_is_root(current_cred()))
		err = -EPERM;
	else if (path.dentry != m->m_root)
		err = -EINVAL;
	else if ((flags & MNT_EXPIRE) &&
		 ((flags & (MNT_FORCE | MNT_DETACH)) || m == READ_ONCE(p->fs->root.mnt)))
		err = -EINVAL;
	else if (m == READ_ONCE(p->fs->root.mnt) && !(flags & MNT_DETACH))
		own_root = true;
	else if (READ_ONCE(m->m_parent) == m) /* again under ns_lock */
		err = -EINVAL;
	if (err) {
		/* not path_put: a failed umount is no use of the mount, and
		 * leaves MNT_EXPIRE's mark where it was */
		dput(path.dentry);
		mntput_no_expire(m);
		API_RETURN(err);
	}
	if (own_root) {
		struct super_block *sb = m->m_sb;
		pthread_mutex_lock(&vfs->ns_lock);
		if (m->m_flags & MNT_DETACHED)
			err = -EINVAL;
		else if (!(sb->s_flags & SB_RDONLY)) {
			if (sb_blocks_rdonly(sb))
				err = -EBUSY;
			else
				WRITE_ONCE(sb->s_flags, sb->s_flags | SB_RDONLY);
		}
		pthread_mutex_unlock(&vfs->ns_lock);
		/* as Linux's path_umount: not a use of the mount */
		dput(path.dentry);
		mntput_no_expire(m);
		API_RETURN(err);
	}
	pthread_mutex_lock(&vfs->ns_lock);
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	smp_mb();
	if (m->m_flags & MNT_DETACHED)
		err = -EINVAL; /* another umount took it since our walk */
	else if ((flags & MNT_EXPIRE) && (!list_empty(&m->m_children) || pcounter_sum(&m->m_count) > 1))
		err = -EBUSY;
	else if ((flags & MNT_EXPIRE) && !__atomic_exchange_n(&m->m_expiry_mark, 1, __ATOMIC_RELAXED))
		err = -EAGAIN; /* marked: a second MNT_EXPIRE with no use between takes it */
	else if (!(flags & MNT_DETACH)) {
		/* busy: a mount below, or any reference beyond our own walk's */
		if (!list_empty(&m->m_children) || pcounter_sum(&m->m_count) > 1)
			err = -EBUSY;
	}
	LIST_HEAD(gone);
	if (!err) {
		umount_tree(vfs, m, &gone);
		pathcache_mounts_changed(vfs);
	}
	write_seqcount_end(&vfs->rename_seq);
	pthread_mutex_unlock(&vfs->seq_lock);
	pthread_mutex_unlock(&vfs->ns_lock);
	/* Mount counts are plain per-thread adds (mntget/mntput): every
	 * mntput that read these mounts as attached runs inside a read-side
	 * section, so after a grace period its decrement is in the sums below,
	 * and every later one sees MNT_DETACHED and sums for itself (Linux's
	 * umount waits the same way before it lets go of the mounts). */
	if (!err)
		urcu_memb_synchronize_rcu();
	/* our references to the mounts below: the last one releases each,
	 * children first */
	while (!list_empty(&gone)) {
		struct mount *c = list_entry(gone.next, struct mount, m_umount);
		list_del_init(&c->m_umount);
		mntput(c);
	}
	/* the last reference frees it (mntput -> mnt_free_detached) */
	dput(path.dentry);
	mntput_no_expire(m);
	API_RETURN(err);
}

/* Every proc whose root or cwd is old moves to new (Linux's chroot_fs_refs);
 * ns_lock held, so no proc is made or cloned meanwhile (uvfs.c). */
static void chroot_fs_refs(struct uvfs *vfs, const struct path *old, const struct path *new)
{
	pthread_mutex_lock(&vfs->procs_lock);
	struct list_head *pos;
	list_for_each(pos, &vfs->procs) {
		struct fs_struct *fs = list_entry(pos, struct uvfs_proc, p_list)->fs;
		struct path *slots[2] = { &fs->root, &fs->pwd };
		struct path gone[2] = { { NULL, NULL }, { NULL, NULL } };
		pthread_mutex_lock(&fs->lock);
		write_seqcount_begin(&fs->seq);
		for (int i = 0; i < 2; i++) {
			if (slots[i]->mnt != old->mnt || slots[i]->dentry != old->dentry)
				continue;
			gone[i] = *slots[i];
			path_get(new);
			WRITE_ONCE(slots[i]->mnt, new->mnt);
			WRITE_ONCE(slots[i]->dentry, new->dentry);
		}
		write_seqcount_end(&fs->seq);
		pthread_mutex_unlock(&fs->lock);
		/* never the last references: the caller holds old */
		for (int i = 0; i < 2; i++)
			if (gone[i].mnt)
				path_put(&gone[i]);
	}
	pthread_mutex_unlock(&vfs->procs_lock);
}

/*
 * pivot_root (Linux's, fs/namespace.c): the mount of new_root takes the
 * place of the caller's root mount, which goes onto the top of put_old.
 * The instance's root mount counts as mounted on an invisible rootfs (as
 * "/" on a Linux system): pivoting it makes new_root's mount the tree's
 * root (vfs->root_mnt), with no parent.
 */
UVFS_API int uvfs_pivot_root(struct uvfs_proc *p, const char *new_root, const char *put_old)
{
	API_ENTER_PROC(p);
	if (!cred_is_root(current_cred()))
		API_RETURN(-EPERM);
	struct filename nname, oname;
	struct path new, old, root;
	int err = getname(new_root, &nname, 0);
	if (!err)
		err = filename_lookup(p, AT_FDCWD, &nname, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &new);
	if (err)
		API_RETURN(err);
	err = getname(put_old, &oname, 0);
	if (!err)
		err = filename_lookup(p, AT_FDCWD, &oname, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &old);
	if (err) {
		path_put(&new);
		API_RETURN(err);
	}
	struct uvfs *vfs = p->vfs;
	pthread_mutex_lock(&p->fs->lock);
	root = p->fs->root;
	path_get(&root);
	pthread_mutex_unlock(&p->fs->lock);
	pthread_mutex_lock(&vfs->ns_lock);
	/* Linux's lock_mount of put_old: the top of its stack, which must not
	 * be gone */
	path_to_top(&old);
	struct mount *new_mnt = new.mnt, *root_mnt = root.mnt, *old_mnt = old.mnt;
	for (struct dentry *d = old.dentry; d != READ_ONCE(d->d_parent); d = READ_ONCE(d->d_parent))
		if (d_unhashed(d)) {
			err = -ENOENT;
			break;
		}
	if (!err && (old_mnt->m_flags & MNT_DETACHED))
		err = -ENOENT; /* not mounted: as a mount's target */
	if (err)
		;
	else if ((root_mnt->m_flags & MNT_DETACHED) || (new_mnt->m_flags & MNT_DETACHED))
		err = -EINVAL;
	else if (d_unlinked(new.dentry))
		err = -ENOENT;
	else if (new_mnt == root_mnt || old_mnt == root_mnt)
		err = -EBUSY; /* on the same mount: a loop */
	else if (root.dentry != root_mnt->m_root || new.dentry != new_mnt->m_root || new_mnt->m_parent == new_mnt)
		err = -EINVAL; /* not a mount's root, or new_root is the tree's root */
	else if (!path_is_under(&old, &new) || !path_is_under(&new, &root))
		err = -EINVAL; /* put_old not below new_root, or new_root not below the root */
	if (err) {
		pthread_mutex_unlock(&vfs->ns_lock);
		path_put(&root);
		path_put(&old);
		path_put(&new);
		API_RETURN(err);
	}
	struct mount *root_parent = root_mnt->m_parent;
	struct dentry *root_mp = root_mnt->m_mountpoint, *new_mp = new_mnt->m_mountpoint;
	bool tree_root = root_parent == root_mnt;
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	/* new_root's mount leaves its mountpoint ... */
	hlist_del_rcu(&new_mnt->m_hash);
	list_del_init(&new_mnt->m_child);
	mountpoint_unmark(vfs, new_mnt);
	/* ... the root's leaves its place (keeping the reference on root_mp
	 * for new_root's mount, which takes it) ... */
	if (!tree_root) {
		hlist_del_rcu(&root_mnt->m_hash);
		list_del_init(&root_mnt->m_child);
	}
	/* ... and goes onto put_old: the mountpoint before the parent, so that
	 * a lockless walker that sees the parent sees a mountpoint with it
	 * (rename_seq then sends it back) */
	__atomic_store_n(&root_mnt->m_mountpoint, dget(old.dentry), __ATOMIC_RELEASE);
	__atomic_store_n(&root_mnt->m_parent, old_mnt, __ATOMIC_RELEASE);
	list_add(&root_mnt->m_child, &old_mnt->m_children);
	hlist_add_head_rcu(&root_mnt->m_hash, m_bucket(vfs, old_mnt, old.dentry));
	__atomic_or_fetch(&old.dentry->d_flags, DCACHE_MOUNTED, __ATOMIC_RELEASE);
	if (tree_root) {
		/* the tree's root now: no parent, and its own root for a
		 * mountpoint, never NULL for a walker (as a detached mount's) */
		__atomic_store_n(&new_mnt->m_mountpoint, new_mnt->m_root, __ATOMIC_RELEASE);
		__atomic_store_n(&new_mnt->m_parent, new_mnt, __ATOMIC_RELEASE);
		WRITE_ONCE(vfs->root_mnt, new_mnt);
	} else {
		__atomic_store_n(&new_mnt->m_mountpoint, root_mp, __ATOMIC_RELEASE);
		__atomic_store_n(&new_mnt->m_parent, root_parent, __ATOMIC_RELEASE);
		list_add(&new_mnt->m_child, &root_parent->m_children);
		hlist_add_head_rcu(&new_mnt->m_hash, m_bucket(vfs, root_parent, root_mp));
	}
	pathcache_mounts_changed(vfs);
	write_seqcount_end(&vfs->rename_seq);
	pthread_mutex_unlock(&vfs->seq_lock);
	mounts_relist(vfs);
	/* the reference new_root's mount held on its old mountpoint, under
	 * ns_lock (do_move_mount) */
	dput(new_mp);
	chroot_fs_refs(vfs, &root, &new);
	pthread_mutex_unlock(&vfs->ns_lock);
	path_put(&root);
	path_put(&old);
	path_put(&new);
	API_RETURN(0);
}
