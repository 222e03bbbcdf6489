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
	pthread_mutex_init(&sb->s_inode_list_lock, NULL);
	INIT_LIST_HEAD(&sb->s_inodes);
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
	pthread_mutex_destroy(&sb->s_inode_list_lock);
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
	if (sb->s_root) {
		d_unhash_tree(sb->s_root);
		d_genocide(sb->s_root);
		sb->s_root = NULL;
	}
	fsnotify_sb_delete(sb); /* IN_UNMOUNT, IN_IGNORED: before the inodes go */
	evict_all_inodes(sb);
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
	INIT_LIST_HEAD(&m->m_children);
	INIT_LIST_HEAD(&m->m_child);
	INIT_LIST_HEAD(&m->m_list);
	__atomic_add_fetch(&sb->s_active, 1, __ATOMIC_ACQ_REL);
	return m;
}

int namespace_init(struct uvfs *vfs, struct super_block *root_sb)
{
	vfs->m_hash = calloc(256, sizeof(struct hlist_head));
	if (!vfs->m_hash)
		return -ENOMEM;
	struct mount *m = alloc_mount(root_sb, root_sb->s_root);
	if (!m)
		return -ENOMEM;
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

void mnt_free_detached(struct mount *m)
{
	struct uvfs *vfs = m->m_sb->s_uvfs;
	pthread_mutex_lock(&vfs->ns_lock);
	bool free_it = (m->m_flags & MNT_DETACHED) && !(m->m_flags & 0x200u) && pcounter_sum(&m->m_count) == 0;
	if (free_it)
		WRITE_ONCE(m->m_flags, m->m_flags | 0x200u); /* released */
	pthread_mutex_unlock(&vfs->ns_lock);
	if (free_it)
		mount_release(m);
}

/* Takes m out of the tree; ns_lock held, in a rename_seq write section. */
static void umount_tree_one(struct uvfs *vfs, struct mount *m)
{
	hlist_del_rcu(&m->m_hash);
	list_del_init(&m->m_child);
	list_del_init(&m->m_list);
	struct dentry *mp = m->m_mountpoint;
	if (!lookup_mnt(m->m_parent, mp)) {
		bool other = false;
		struct list_head *pos;
		list_for_each(pos, &vfs->mounts) {
			struct mount *o = list_entry(pos, struct mount, m_list);
			if (o->m_mountpoint == mp && o->m_parent != o) {
				other = true;
				break;
			}
		}
		if (!other)
			__atomic_and_fetch(&mp->d_flags, ~DCACHE_MOUNTED, __ATOMIC_RELEASE);
	}
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
 * below are collected, each with a reference, for the caller to drop once
 * the locks are gone (the last reference releases a detached mount).
 * Without that reference a racing mntput could release one and its memory
 * go after a grace period, before the caller looked at it. */
static void umount_tree(struct uvfs *vfs, struct mount *m, struct mount **gone, int *ngone)
{
	struct list_head *pos, *n;
	list_for_each_safe(pos, n, &m->m_children) {
		struct mount *c = list_entry(pos, struct mount, m_child);
		umount_tree(vfs, c, gone, ngone);
		if (*ngone < 64)
			gone[(*ngone)++] = mntget(c);
	}
	umount_tree_one(vfs, m);
}

void namespace_fini(struct uvfs *vfs)
{
	/* children before parents: the list has newer mounts first */
	while (!list_empty(&vfs->mounts)) {
		struct mount *m = list_entry(vfs->mounts.next, struct mount, m_list);
		list_del_init(&m->m_list);
		if (m->m_parent != m)
			hlist_del_rcu(&m->m_hash);
		struct super_block *sb = m->m_sb;
		if (m->m_mountpoint)
			dput(m->m_mountpoint);
		dput(m->m_root);
		if (__atomic_sub_fetch(&sb->s_active, 1, __ATOMIC_ACQ_REL) == 0)
			deactivate_super(sb);
		free(m);
	}
	free(vfs->m_hash);
}

/* Attaches m on (parent, mp); ns_lock held. */
static void attach_mount(struct uvfs *vfs, struct mount *m, struct mount *parent, struct dentry *mp)
{
	m->m_parent = parent;
	m->m_mountpoint = dget(mp);
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	hlist_add_head_rcu(&m->m_hash, m_bucket(vfs, parent, mp));
	__atomic_or_fetch(&mp->d_flags, DCACHE_MOUNTED, __ATOMIC_RELEASE);
	write_seqcount_end(&vfs->rename_seq);
	pthread_mutex_unlock(&vfs->seq_lock);
	list_add(&m->m_child, &parent->m_children);
	list_add(&m->m_list, &vfs->mounts);
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
 * their mountpoints; ns_lock held.  Older mounts first, so stacking stays. */
static void copy_tree(struct uvfs *vfs, struct mount *src, struct dentry *root, struct mount *dst)
{
	struct list_head *pos;
	for (pos = src->m_children.prev; pos != &src->m_children; pos = pos->prev) {
		struct mount *c = list_entry(pos, struct mount, m_child);
		if (!d_is_under(c->m_mountpoint, root))
			continue;
		struct mount *nc = alloc_mount(c->m_sb, c->m_root);
		if (!nc)
			return;
		nc->m_flags = c->m_flags & ~MNT_DETACHED;
		attach_mount(vfs, nc, dst, c->m_mountpoint);
		copy_tree(vfs, c, c->m_root, nc);
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
	return f;
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
		WRITE_ONCE(m->m_flags, (m->m_flags & MNT_DETACHED) | ms_to_mnt_flags(flags));
	} else {
		struct super_block *sb = m->m_sb;
		if ((flags & MS_RDONLY) && !(sb->s_flags & SB_RDONLY)) {
			/* no file may be open for writing on a read-only sb */
			struct list_head *pos;
			pthread_mutex_lock(&sb->s_inode_list_lock);
			list_for_each(pos, &sb->s_inodes) {
				struct inode *i = list_entry(pos, struct inode, i_sb_list);
				if (__atomic_load_n(&i->i_writecount, __ATOMIC_RELAXED) > 0) {
					err = -EBUSY;
					break;
				}
			}
			pthread_mutex_unlock(&sb->s_inode_list_lock);
		}
		if (!err && sb->s_op->remount && data)
			err = sb->s_op->remount(sb, data);
		if (!err) {
			if (flags & MS_RDONLY)
				WRITE_ONCE(sb->s_flags, sb->s_flags | SB_RDONLY);
			else
				WRITE_ONCE(sb->s_flags, sb->s_flags & ~SB_RDONLY);
			unsigned keep = m->m_flags & (MNT_DETACHED | MNT_RDONLY);
			WRITE_ONCE(m->m_flags, keep | (ms_to_mnt_flags(flags) & ~MNT_RDONLY));
		}
	}
	pthread_mutex_unlock(&vfs->ns_lock);
	return err;
}

/*
 * mount: EPERM without privilege; the target walk's; for MS_REMOUNT, EINVAL
 * unless the target is a mount's root; for MS_BIND, the source walk's;
 * ENODEV for a filesystem other than tmpfs; EINVAL for bad options;
 * ENOTDIR when a directory would cover a non-directory or the reverse.
 */
UVFS_API int uvfs_mount(struct uvfs_proc *p, const char *source, const char *target, const char *fstype,
			unsigned long flags, const void *data)
{
	ENTER();
	if (!cred_is_root(&p->cred))
		RETURN(-EPERM);
	struct filename tname;
	int err = getname(target, &tname, 0);
	if (err)
		RETURN(err);
	struct path tpath;
	err = filename_lookup(p, AT_FDCWD, &tname, LOOKUP_FOLLOW, &tpath);
	if (err)
		RETURN(err);
	struct uvfs *vfs = p->vfs;
	if (flags & MS_REMOUNT) {
		err = do_remount(p, &tpath, flags, data);
		path_put(&tpath);
		RETURN(err);
	}
	struct mount *nm = NULL;
	if (flags & MS_BIND) {
		struct filename sname;
		struct path spath;
		err = getname(source, &sname, 0);
		if (!err)
			err = filename_lookup(p, AT_FDCWD, &sname, LOOKUP_FOLLOW, &spath);
		if (err) {
			path_put(&tpath);
			RETURN(err);
		}
		if (S_ISDIR(spath.dentry->d_inode->i_mode) != S_ISDIR(tpath.dentry->d_inode->i_mode)) {
			path_put(&spath);
			path_put(&tpath);
			RETURN(-ENOTDIR);
		}
		pthread_mutex_lock(&vfs->ns_lock);
		/* nothing is mounted on, or bound from, a detached tree
		 * (Linux's check_mnt): it would outlive what it hangs on */
		if ((tpath.mnt->m_flags | spath.mnt->m_flags) & MNT_DETACHED) {
			pthread_mutex_unlock(&vfs->ns_lock);
			path_put(&spath);
			path_put(&tpath);
			RETURN(-EINVAL);
		}
		nm = alloc_mount(spath.mnt->m_sb, spath.dentry);
		if (nm) {
			/* a bind keeps the source's flags; MS_RDONLY needs a remount */
			nm->m_flags = spath.mnt->m_flags & ~MNT_DETACHED;
			attach_mount(vfs, nm, tpath.mnt, tpath.dentry);
			if (flags & MS_REC)
				copy_tree(vfs, spath.mnt, spath.dentry, nm);
		}
		pthread_mutex_unlock(&vfs->ns_lock);
		path_put(&spath);
		path_put(&tpath);
		RETURN(nm ? 0 : -ENOMEM);
	}
	if (!fstype) {
		path_put(&tpath);
		RETURN(-EINVAL);
	}
	if (strcmp(fstype, "tmpfs") != 0) {
		path_put(&tpath);
		RETURN(-ENODEV);
	}
	struct tmpfs_params params;
	err = tmpfs_parse_options(data, &params);
	if (err) {
		path_put(&tpath);
		RETURN(err);
	}
	if (!S_ISDIR(tpath.dentry->d_inode->i_mode)) {
		path_put(&tpath);
		RETURN(-ENOTDIR);
	}
	struct super_block *sb = tmpfs_mount(vfs, &params);
	if (!sb) {
		path_put(&tpath);
		RETURN(-ENOMEM);
	}
	if (flags & MS_RDONLY)
		sb->s_flags |= SB_RDONLY;
	pthread_mutex_lock(&vfs->ns_lock);
	if (tpath.mnt->m_flags & MNT_DETACHED) {
		pthread_mutex_unlock(&vfs->ns_lock);
		deactivate_super(sb);
		path_put(&tpath);
		RETURN(-EINVAL);
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
	RETURN(nm ? 0 : -ENOMEM);
}

/*
 * umount2: EINVAL (flags); EPERM without privilege; the walk's; EINVAL when
 * the path is not a mount's root or is the root of the tree; EBUSY when
 * something is mounted below or a reference is held (unless MNT_DETACH).
 */
UVFS_API int uvfs_umount2(struct uvfs_proc *p, const char *target, int flags)
{
	ENTER();
	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		RETURN(-EINVAL);
	if ((flags & MNT_EXPIRE) && (flags & (MNT_FORCE | MNT_DETACH)))
		RETURN(-EINVAL);
	if (!cred_is_root(&p->cred))
		RETURN(-EPERM);
	struct filename name;
	int err = getname(target, &name, 0);
	if (err)
		RETURN(err);
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, LOOKUP_MOUNTPOINT | ((flags & UMOUNT_NOFOLLOW) ? 0 : LOOKUP_FOLLOW),
			      &path);
	if (err)
		RETURN(err);
	struct uvfs *vfs = p->vfs;
	struct mount *m = path.mnt;
	if (path.dentry != m->m_root || READ_ONCE(m->m_parent) == m) { /* checked again under ns_lock */
		path_put(&path);
		RETURN(-EINVAL);
	}
	pthread_mutex_lock(&vfs->ns_lock);
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	smp_mb();
	if (m->m_flags & MNT_DETACHED)
		err = -EINVAL; /* another umount took it since our walk */
	else if (!(flags & MNT_DETACH)) {
		/* busy: a mount below, or any reference beyond our own walk's */
		if (!list_empty(&m->m_children) || pcounter_sum(&m->m_count) > 1)
			err = -EBUSY;
	}
	struct mount *gone[64];
	int ngone = 0;
	if (!err)
		umount_tree(vfs, m, gone, &ngone);
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
	for (int i = 0; i < ngone; i++)
		mntput(gone[i]);
	path_put(&path); /* the last reference frees it (mntput -> mnt_free_detached) */
	RETURN(err);
}
