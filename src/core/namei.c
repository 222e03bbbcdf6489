// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * namei.c - path walk and permission checks (Linux's fs/namei.c).
 *
 * The walk runs first in RCU mode: no reference and no lock is taken; each
 * component is one probe of the dentry hash (__d_lookup_rcu), inode fields are
 * read as they are, and the result is validated at the end against
 * vfs->rename_seq, which rename, mount and umount bump.  Any doubt (a miss
 * that must leave a negative dentry, a dying dentry, a moved seq) returns
 * -ECHILD and the walk starts over in REF mode, which holds a reference on
 * every position and looks names up under the directory's lock.
 *
 *   RCU walk, as an algorithm:
 *     1. seq = rename_seq (waiting out a writer); start at root, cwd or dirfd.
 *     2. per component: check search permission on the directory; "." stays;
 *        ".." goes to d_parent (through mountpoints upwards); a name is looked
 *        up in the hash: a miss -> ECHILD; a negative dentry -> ENOENT
 *        (if not the last component) or the result; a mounted dentry is
 *        crossed to the root of the topmost mount; a symlink that must be
 *        followed pushes the rest of the path and walks the body, which the
 *        inode caches and which lives until a grace period after the inode.
 *     3. at the end, callers that keep the result take references
 *        (dget_not_dead, mntget) and recheck seq; callers that only read
 *        (stat, access, readlink) do their work inside the read-side section
 *        and recheck seq.  A moved seq -> drop what was taken, walk in REF mode.
 */
#include "vfs.h"
#include "xattr.h"
#include "dcache.h"
#include "namei.h"
#include "pathcache.h"
#include <limits.h>

#define MAXSYMLINKS 40

/* the walk of a prefix the path cache missed: note what it goes through */
#ifndef UVFS_NO_PATH_CACHE
#define LOOKUP_PC_RECORD 0x40000000
#else
#define LOOKUP_PC_RECORD 0 /* the checks of the walk fold away */
#endif
/* walks the path cache does not serve: RESOLVE_* take the component walk */
#define PC_EXCLUDE (LOOKUP_BENEATH | LOOKUP_IN_ROOT | LOOKUP_NO_XDEV | LOOKUP_NO_SYMLINKS | LOOKUP_NO_MAGICLINKS)

struct nameidata {
	struct uvfs_proc *proc;
	const struct cred *cred;
	struct path path;
	struct inode *inode;
	struct path root;
	unsigned flags;
	unsigned seq;
	int total_link_count;
	/* REF mode: every link followed, held as a path (mount and dentry) until
	 * the walk ends, as Linux's nd->stack[].link.  The dentry keeps the
	 * inode and its body; the mount keeps the superblock, so an umount
	 * meanwhile is EBUSY, or, lazy, frees nothing until we let go. */
	int depth;
	struct path links[MAXSYMLINKS + 1];
	const char *link_body; /* set by walk_component when it returns 1 */
	struct qstr last;
	int last_type;
	bool trailing_slash;
	bool root_held; /* REF mode: root holds references */
	/* the walk has used its root: an absolute or scoped start, a "..", a
	 * jump.  Linux sets nd->root only then, and RESOLVE_NO_XDEV refuses an
	 * absolute symlink met before (nd_jump_root compares with no root) */
	bool root_used;
	/* the path cache: the name's length (0: no cache for this walk); while
	 * LOOKUP_PC_RECORD, the key missed, the generation seen and the dentries
	 * the prefix's walk went through */
	unsigned pc_len;
	unsigned pc_gen;
	int pc_ndeps;
	struct pc_key pc_key;
	struct dentry *pc_deps[PC_MAX_DEPS];
};

static inline bool nd_rcu(const struct nameidata *nd) { return nd->flags & LOOKUP_RCU; }

static inline void pc_note(struct nameidata *nd, struct dentry *d)
{
	int n = nd->pc_ndeps;
	if (unlikely(n >= PC_MAX_DEPS)) {
		nd->pc_ndeps = PC_MAX_DEPS + 1; /* too long a way to cache */
		return;
	}
	if (n && nd->pc_deps[n - 1] == d)
		return; /* a link to "." and the like: once is enough */
	nd->pc_deps[n] = d;
	nd->pc_ndeps = n + 1;
}

/* ---- credentials and permission ---- */

bool in_group_p(const struct cred *c, gid_t gid)
{
	if (c->fsgid == gid)
		return true;
	for (int i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

bool inode_owner_or_capable(const struct cred *c, const struct inode *inode)
{
	return c->fsuid == READ_ONCE(inode->i_uid) || cred_is_root(c);
}

/*
 * Linux's generic_permission: the owner class, then the group class, then
 * other; root (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) may read and write
 * anything and search any directory, and execute a file with any x bit.
 */
__attribute__((noinline)) int generic_permission_slow(const struct cred *c, struct inode *inode, int mask)
{
	umode_t mode = READ_ONCE(inode->i_mode);
	int m = mask & (MAY_READ | MAY_WRITE | MAY_EXEC);
	unsigned bits;
	int acl;
	if (c->fsuid == READ_ONCE(inode->i_uid))
		bits = (mode >> 6) & 7;
	else if (unlikely(READ_ONCE(inode->i_acl) != NULL) && (mode & S_IRWXG) &&
		 (acl = check_acl(c, inode, m)) != -EAGAIN)
		bits = acl ? 0 : 7; /* the access ACL decided (posix_acl.c) */
	else if (in_group_p(c, READ_ONCE(inode->i_gid)))
		bits = (mode >> 3) & 7;
	else if (unlikely(c->groups_unknown) && !cred_is_root(c) && (m & ~((mode >> 3) & 7)))
		bits = 0; /* other grants what the group class refuses: the
			   * caller may be in the group (cred's groups_unknown) */
	else
		bits = mode & 7;
	if ((m & ~bits) == 0)
		return 0;
	if (cred_is_root(c)) {
		if (S_ISDIR(mode))
			return 0;
		if (!(m & MAY_EXEC) || (mode & 0111))
			return 0;
	}
	return -EACCES;
}

int generic_permission(const struct cred *c, struct inode *inode, int mask)
{
	return generic_permission_inline(c, inode, mask);
}

int inode_permission(const struct cred *c, struct inode *inode, int mask)
{
	return __inode_permission(c, inode, mask);
}

/* Search permission on a directory during the walk: the common cases first. */
static inline bool may_exec_all(struct inode *inode)
{
	return (READ_ONCE(inode->i_mode) & 0111) == 0111 && !READ_ONCE(inode->i_acl) && !inode->i_op->permission;
}

static int may_lookup_slow(struct nameidata *nd)
{
	struct inode *inode = nd->inode;
	if (unlikely(inode->i_op->permission))
		return inode->i_op->permission(nd->cred, inode, MAY_EXEC | (nd_rcu(nd) ? MAY_NOT_BLOCK : 0));
	if (may_exec_all(inode)) {
		/* cache it; a change stored meanwhile is seen again after the
		 * barrier, and its clear is ordered after ours */
		__atomic_fetch_or(&inode->i_opflags, IOP_FASTPERM_MAY_EXEC, __ATOMIC_RELAXED);
		smp_mb();
		if (unlikely(!may_exec_all(inode)))
			__atomic_fetch_and(&inode->i_opflags, ~IOP_FASTPERM_MAY_EXEC, __ATOMIC_RELAXED);
		return 0;
	}
	if (cred_is_root(nd->cred))
		return 0;
	return generic_permission(nd->cred, inode, MAY_EXEC);
}

static __always_inline int may_lookup(struct nameidata *nd)
{
	if (likely(READ_ONCE(nd->inode->i_opflags) & IOP_FASTPERM_MAY_EXEC))
		return 0;
	return may_lookup_slow(nd);
}

/* Sticky directories and the checks of Linux's may_delete, in its order
 * (__may_delete, vfs.h). */
int may_delete(const struct cred *c, struct inode *dir, struct dentry *victim, bool isdir)
{
	return __may_delete(c, dir, victim, isdir);
}

/* ---- paths and mounts ---- */

/* Mount references (mntget, vfs.h) are counted per thread with plain adds
 * (Linux: per CPU, mnt_add_count).  An umount orders itself against them
 * with a grace period, not with barriers on this side: see mntput and
 * uvfs_umount2. */

void mntput(struct mount *m)
{
	mntput_inline(m);
}

/* A put that leaves MNT_EXPIRE's mark alone: umount's own. */
void mntput_no_expire(struct mount *m)
{
	__mntput(m);
}

void path_get(const struct path *p)
{
	mntget(p->mnt);
	dget(p->dentry);
}

void path_put(const struct path *p)
{
	dput(p->dentry);
	mntput(p->mnt);
}

static inline bool path_equal(const struct path *a, const struct path *b)
{
	return a->mnt == b->mnt && a->dentry == b->dentry;
}

/* Topmost mount on (parent, mountpoint), under RCU or ns_lock. */
struct mount *lookup_mnt(struct mount *parent, struct dentry *mountpoint)
{
	struct uvfs *vfs = mountpoint->d_sb->s_uvfs;
	uintptr_t k = ((uintptr_t)parent >> 4) ^ ((uintptr_t)mountpoint >> 6);
	struct hlist_head *b = &vfs->m_hash[k & 255];
	for (struct hlist_node *n = smp_load_acquire(&b->first); n; n = smp_load_acquire(&n->next)) {
		struct mount *m = container_of(n, struct mount, m_hash);
		if (READ_ONCE(m->m_parent) == parent && READ_ONCE(m->m_mountpoint) == mountpoint)
			return m;
	}
	return NULL;
}

/* Is p at or below root (following mounts and parents)? */
bool path_is_under(const struct path *p, const struct path *root)
{
	struct mount *m = p->mnt;
	struct dentry *d = p->dentry;
	for (;;) {
		if (m == root->mnt) {
			for (;;) {
				if (d == root->dentry)
					return true;
				if (d == d->d_parent)
					return false;
				d = d->d_parent;
			}
		}
		if (m->m_parent == m)
			return false;
		d = m->m_mountpoint;
		m = m->m_parent;
	}
}

/* ---- getname: the path copy of the API entry ---- */

/* getname's other names: with a '/' or a component longer than NAME_MAX */
int getname_slow(const char *upath, struct filename *out, unsigned lookup_flags)
{
	out->single = false;
	size_t len = strnlen(upath, PATH_MAX);
	if (unlikely(len >= PATH_MAX))
		return -ENAMETOOLONG;
	out->name = upath;
	out->len = (unsigned)len;
	return 0;
}

/* ---- the walk ---- */

/*
 * The end of an RCU walk that keeps its result: references on path, taken
 * in an order that pins what they live on, then the check that nothing
 * moved since seq.  The mount first, with the light side of an asymmetric
 * barrier before rename_seq is read: the release of a detached mount
 * (mnt_free_detached) moves rename_seq, forces a barrier on every thread
 * and only then sums the count, so either it sees our reference and keeps
 * the mount, or we see the move and let go, before we have touched its
 * dentries (Linux's __legitimize_mnt).  The dentry second: while we hold
 * the mount its superblock cannot be torn down.
 */
static __always_inline bool __legitimize_path(struct uvfs *vfs, const struct path *path, unsigned seq,
					     struct inode *inode, bool check_inode)
{
	mntget(path->mnt);
	smp_mb_light();
	RACE_POINT("walk:legitimize");
	if (likely(!read_seqcount_retry(&vfs->rename_seq, seq))) {
		if (likely(dget_not_dead(path->dentry))) {
			if ((!check_inode || likely(smp_load_acquire(&path->dentry->d_inode) == inode)) &&
			    likely(!read_seqcount_retry(&vfs->rename_seq, seq)))
				return true;
			dput(path->dentry);
		}
	}
	mntput(path->mnt);
	return false;
}

/* A directory (a walk's start or a parent): never turned negative. */
static __always_inline bool legitimize_path(struct uvfs *vfs, const struct path *path, unsigned seq)
{
	return __legitimize_path(vfs, path, seq, NULL, false);
}

/* A walk's end, whose inode the walk read before the reference: an
 * unlink's victim turned negative in place (d_delete) may have lost
 * it meanwhile, and is then not the answer.  Inside the read-side section
 * the inode seen cannot have been freed and made again at the same
 * address, so equal means the same inode. */
static __always_inline bool legitimize_path_inode(struct uvfs *vfs, const struct path *path, unsigned seq,
						  struct inode *inode)
{
	return __legitimize_path(vfs, path, seq, inode, true);
}

static void terminate_walk(struct nameidata *nd)
{
	if (!nd_rcu(nd)) {
		for (int i = 0; i < nd->depth; i++)
			path_put(&nd->links[i]);
		if (nd->path.dentry)
			path_put(&nd->path);
		if (nd->root_held)
			path_put(&nd->root);
	} else {
		urcu_memb_read_unlock();
	}
	nd->depth = 0;
	nd->path.dentry = NULL;
	nd->path.mnt = NULL;
	nd->root_held = false;
}

/* Moves nd->path to (m, d), whose inode the caller read once: in RCU mode a
 * second read could differ (an unlink's victim kept negative meanwhile,
 * d_delete), and legitimize_path_inode checks against this one.  REF
 * mode takes the new references first. */
static __always_inline void nd_set_path_inode(struct nameidata *nd, struct mount *m, struct dentry *d,
					      bool have_ref, struct inode *inode)
{
	if (!nd_rcu(nd)) {
		if (!have_ref)
			dget(d);
		if (m != nd->path.mnt) {
			mntget(m);
			mntput(nd->path.mnt);
		}
		dput(nd->path.dentry);
	} else if (unlikely(nd->flags & LOOKUP_PC_RECORD)) {
		pc_note(nd, d);
	}
	nd->path.mnt = m;
	nd->path.dentry = d;
	nd->inode = inode;
}

/* The same to a directory (a root, a parent, a mount's root), whose inode
 * never changes while the dentry is hashed. */
static __always_inline void nd_set_path(struct nameidata *nd, struct mount *m, struct dentry *d, bool have_ref)
{
	nd_set_path_inode(nd, m, d, have_ref, smp_load_acquire(&d->d_inode));
}

static int follow_mounts(struct nameidata *nd, struct mount **mp, struct dentry **dp);

/* REF mode: move to (m, d), whose references the caller already took. */
static inline void nd_move_ref(struct nameidata *nd, struct mount *m, struct dentry *d)
{
	struct path old = nd->path;
	nd->path.mnt = m;
	nd->path.dentry = d;
	nd->inode = d->d_inode;
	path_put(&old);
}

/*
 * REF mode crosses mounts and climbs parents under seq_lock: every writer
 * of d_parent, of the mount hash and of m_parent/m_mountpoint (rename,
 * mount, umount) holds it, so what we read stays true until our references
 * are taken (an attached mount cannot be freed, a dentry pins its parent).
 * Old references are dropped after the lock: an mntput may take ns_lock.
 */
static int follow_mounts_ref(struct nameidata *nd, struct mount **mp, struct dentry **dp)
{
	struct uvfs *vfs = nd->proc->vfs;
	struct mount *m = *mp;
	struct dentry *d = *dp, *md = d;
	pthread_mutex_lock(&vfs->seq_lock);
	int err = follow_mounts(nd, &m, &md);
	if (!err) {
		dget(md);
		mntget(m);
	}
	pthread_mutex_unlock(&vfs->seq_lock);
	dput(d);
	*mp = m;
	*dp = md;
	return err;
}

/* REF mode: d (referenced) is under nd->path; move to the top of the mounts
 * on it.  On error d's reference is gone and nd->path is unchanged. */
static int nd_follow_mounts_ref(struct nameidata *nd, struct dentry *d)
{
	struct mount *m = nd->path.mnt;
	int err = follow_mounts_ref(nd, &m, &d);
	if (!err)
		nd_move_ref(nd, m, d);
	return err;
}

static int nd_jump_root(struct nameidata *nd)
{
	if (unlikely(nd->flags & LOOKUP_BENEATH))
		return -EXDEV;
	if (unlikely(nd->flags & LOOKUP_NO_XDEV) && nd->path.mnt &&
	    (!nd->root_used || nd->path.mnt != nd->root.mnt))
		return -EXDEV;
	nd->root_used = true;
	if (nd->path.dentry) {
		nd_set_path(nd, nd->root.mnt, nd->root.dentry, false);
	} else {
		nd->path = nd->root;
		if (!nd_rcu(nd))
			path_get(&nd->path);
		nd->inode = nd->path.dentry->d_inode;
	}
	return 0;
}

static void nd_get_fs_path(struct nameidata *nd, const struct path *src, struct path *dst)
{
	struct fs_struct *fs = nd->proc->fs;
	if (nd_rcu(nd)) {
		/* chroot and chdir replace these under fs->seq and free the old
		 * path only after a grace period (see set_fs_path) */
		unsigned seq;
		do {
			seq = read_seqcount_begin(&fs->seq);
			dst->mnt = READ_ONCE(src->mnt);
			dst->dentry = READ_ONCE(src->dentry);
		} while (read_seqcount_retry(&fs->seq, seq));
	} else {
		pthread_mutex_lock(&fs->lock);
		*dst = *src;
		path_get(dst);
		pthread_mutex_unlock(&fs->lock);
	}
}

static int path_init(struct nameidata *nd, int dfd, const char *s)
{
	struct uvfs_proc *p = nd->proc;
	struct fs_struct *fs = p->fs;
	nd->depth = 0;
	nd->total_link_count = 0;
	nd->path.dentry = NULL;
	nd->path.mnt = NULL;
	nd->root_held = false;
	nd->root_used = false;
	if (nd_rcu(nd)) {
		urcu_memb_read_lock();
		nd->seq = read_seqcount_begin(&p->vfs->rename_seq);
	}
	bool scoped = nd->flags & (LOOKUP_BENEATH | LOOKUP_IN_ROOT);

	if (*s == '/' && !(nd->flags & LOOKUP_IN_ROOT)) {
		if (nd->flags & LOOKUP_BENEATH)
			return -EXDEV;
		nd_get_fs_path(nd, &fs->root, &nd->root);
		nd->root_held = !nd_rcu(nd);
		return nd_jump_root(nd);
	}
	struct path start;
	if (dfd == AT_FDCWD) {
		nd_get_fs_path(nd, &fs->pwd, &start);
	} else if (nd_rcu(nd)) {
		/* no reference: the path stays valid until the read-side section
		 * ends, even if another thread closes the fd meanwhile */
		unsigned fmode;
		int err = fd_path_rcu(p, dfd, &start, &fmode);
		if (err)
			return err;
		if (*s && !S_ISDIR(READ_ONCE(start.dentry->d_inode->i_mode)))
			return -ENOTDIR;
	} else {
		struct file *f = fget_raw(p, dfd);
		if (!f)
			return -EBADF;
		if (*s && !S_ISDIR(READ_ONCE(f->f_inode->i_mode))) {
			fput(f);
			return -ENOTDIR;
		}
		start = f->f_path;
		path_get(&start);
		fput(f);
	}
	nd->path = start;
	nd->inode = start.dentry->d_inode;
	if (scoped) {
		nd->root_used = true;
		nd->root = start;
		if (!nd_rcu(nd)) {
			path_get(&nd->root);
			nd->root_held = true;
		}
	} else {
		nd_get_fs_path(nd, &fs->root, &nd->root);
		nd->root_held = !nd_rcu(nd);
	}
	return 0;
}

/* Crosses every mount stacked on (m, d). */
static int follow_mounts(struct nameidata *nd, struct mount **mp, struct dentry **dp)
{
	struct mount *m = *mp;
	struct dentry *d = *dp;
	while (READ_ONCE(d->d_flags) & DCACHE_MOUNTED) {
		struct mount *c = lookup_mnt(m, d);
		if (!c)
			break;
		if (unlikely(nd->flags & LOOKUP_NO_XDEV))
			return -EXDEV;
		m = c;
		d = c->m_root;
	}
	*mp = m;
	*dp = d;
	return 0;
}

/*
 * Linux's follow_dotdot: at the walk's root, or at a mount root with no
 * mountpoint to go up to below the walk's root (choose_mountpoint), ".."
 * stays where it is ("in_root"), and lands on whatever is mounted on top,
 * as step_into does; otherwise it goes up to the mountpoint (EXDEV under
 * RESOLVE_NO_XDEV: a mount left) and takes its parent.
 */
static int follow_dotdot_locked(struct nameidata *nd, struct mount **mp, struct dentry **dp)
{
	struct mount *m = nd->path.mnt;
	struct dentry *d = nd->path.dentry;
	if (m == nd->root.mnt && d == nd->root.dentry)
		goto in_root;
	if (d == m->m_root) {
		/* an umount may detach a mount meanwhile (RCU mode; REF mode
		 * holds seq_lock): read each once, rename_seq tells */
		struct mount *c = m;
		for (;;) {
			struct mount *up = READ_ONCE(c->m_parent);
			if (up == c)
				goto in_root; /* the root of the tree */
			struct dentry *point = READ_ONCE(c->m_mountpoint);
			c = up;
			if (c == nd->root.mnt && point == nd->root.dentry)
				goto in_root;
			if (point != c->m_root) {
				m = c;
				d = point;
				break;
			}
		}
		if (unlikely(nd->flags & LOOKUP_NO_XDEV))
			return -EXDEV;
	}
	struct dentry *parent = READ_ONCE(d->d_parent);
	int err = follow_mounts(nd, &m, &parent);
	*mp = m;
	*dp = parent;
	return err;
in_root:
	if (unlikely(nd->flags & LOOKUP_BENEATH))
		return -EXDEV;
	*mp = nd->path.mnt;
	*dp = nd->path.dentry;
	return follow_mounts(nd, mp, dp);
}

static int follow_dotdot(struct nameidata *nd)
{
	struct mount *m;
	struct dentry *d;
	int err;
	nd->root_used = true;
	if (nd_rcu(nd)) {
		err = follow_dotdot_locked(nd, &m, &d);
		if (err)
			return err;
		if (m != nd->path.mnt || d != nd->path.dentry)
			nd_set_path(nd, m, d, false);
	} else {
		struct uvfs *vfs = nd->proc->vfs;
		pthread_mutex_lock(&vfs->seq_lock);
		err = follow_dotdot_locked(nd, &m, &d);
		if (!err) {
			dget(d);
			mntget(m);
		}
		pthread_mutex_unlock(&vfs->seq_lock);
		if (err)
			return err;
		nd_move_ref(nd, m, d);
	}
	if (unlikely(nd->flags & (LOOKUP_BENEATH | LOOKUP_IN_ROOT)) && !path_is_under(&nd->path, &nd->root))
		return nd_rcu(nd) ? -ECHILD : -EXDEV;
	return 0;
}

/* A miss in a directory with ->lookup: the filesystem is asked, with the
 * directory's lock shared, once per name however many walkers miss it. */
static struct dentry *lookup_parallel(struct dentry *parent, const struct qstr *name, unsigned flags,
				      int *errp)
{
	struct inode *dir = parent->d_inode;
	down_read(&dir->i_rwsem);
	struct dentry *d = d_alloc_parallel(parent, name, errp);
	if (d && (READ_ONCE(d->d_flags) & DCACHE_PAR_LOOKUP)) {
		/* a removed directory has no names, whatever the filesystem
		 * still says */
		int err = (READ_ONCE(dir->i_flags) & S_DEAD_DIR) ? 0 : dir->i_op->lookup(dir, d, flags);
		d_lookup_done(d);
		if (err) {
			dput(d);
			d = NULL;
			*errp = err;
		}
	}
	up_read(&dir->i_rwsem);
	return d;
}

/* REF mode lookup of one name: a cached dentry with a reference (asked
 * again if its filesystem revalidates), or, under the directory's lock, a
 * new one: negative for tmpfs, the filesystem's answer for one with
 * ->lookup. */
static struct dentry *lookup_slow(struct dentry *parent, const struct qstr *name, unsigned flags, int *errp)
{
	struct dentry *d;
	for (;;) {
		d = d_lookup_locked(parent, name);
		if (!d)
			break;
		if (likely(!(READ_ONCE(d->d_flags) & DCACHE_OP_REVALIDATE)))
			return d;
		int r = d_revalidate(d, flags & ~LOOKUP_RCU);
		if (r > 0)
			return d;
		if (r < 0) {
			dput(d);
			*errp = r;
			return NULL;
		}
		if (READ_ONCE(d->d_flags) & DCACHE_MOUNTED)
			return d; /* stays until the umount */
		d_invalidate(d);
		dput(d);
	}
	struct inode *dir = parent->d_inode;
	if (dir->i_op->lookup)
		return lookup_parallel(parent, name, flags, errp);
	down_write(&dir->i_rwsem);
	d = d_lookup_or_alloc(parent, name, errp);
	up_write(&dir->i_rwsem);
	return d;
}

/*
 * The body of a symlink whose filesystem did not cache it when the inode
 * was made: asked once (REF mode), then cached in i_link as tmpfs's are,
 * so that every later walk reads it without a call.  NULL with *errp.
 */
const char *inode_get_link(struct inode *inode, int *errp)
{
	const char *body = smp_load_acquire(&inode->i_link);
	if (body)
		return body;
	if (!inode->i_op->get_link) {
		*errp = -EIO;
		return NULL;
	}
	char *b;
	unsigned len;
	int err = inode->i_op->get_link(inode, &b, &len);
	if (err) {
		*errp = err;
		return NULL;
	}
	spin_lock(&inode->i_lock);
	if (inode->i_link) {
		free(b); /* another caller's came first */
	} else {
		inode->i_linklen = len;
		smp_store_release(&inode->i_link, b);
	}
	spin_unlock(&inode->i_lock);
	return inode->i_link;
}

/*
 * Looks up nd->last under nd->path and moves there.  Returns 0, 1 when the
 * result is a symlink to follow (nd->link_body set), or -errno.  A negative
 * last component returns -ENOENT with nd->path left at the parent.
 */
static __always_inline int walk_component(struct nameidata *nd, bool is_last)
{
	if (nd->last_type != LAST_NORM) {
		if (nd->last_type == LAST_DOTDOT)
			return follow_dotdot(nd);
		return 0;
	}
	struct dentry *d;
	if (nd_rcu(nd)) {
		d = __d_lookup_rcu(nd->path.dentry, &nd->last, NULL);
		if (unlikely(!d))
			return -ECHILD; /* leave a negative dentry: REF mode */
	} else {
		int err;
		d = lookup_slow(nd->path.dentry, &nd->last, nd->flags, &err);
		if (!d)
			return err;
	}
	struct inode *inode = smp_load_acquire(&d->d_inode);
	if (!inode) {
		if (!nd_rcu(nd))
			dput(d);
		return -ENOENT;
	}
	struct mount *m = nd->path.mnt;
	bool mnt_ref = false; /* REF mode: a reference on m of our own */
	unsigned dflags = READ_ONCE(d->d_flags);
	if (unlikely(dflags & (DCACHE_MOUNTED | DCACHE_OP_REVALIDATE))) {
		/* REF mode asked in lookup_slow; RCU mode asks here, and any
		 * answer but "valid" is the REF walk's to act on */
		if ((dflags & DCACHE_OP_REVALIDATE) && nd_rcu(nd) && d_revalidate(d, nd->flags) <= 0)
			return -ECHILD;
	}
	if (unlikely(dflags & DCACHE_MOUNTED)) {
		int err;
		if (nd_rcu(nd)) {
			err = follow_mounts(nd, &m, &d);
		} else {
			/* under seq_lock, with references on what we land on */
			err = follow_mounts_ref(nd, &m, &d);
			mnt_ref = !err;
		}
		if (err)
			return err;
		inode = d->d_inode;
	}
	if (S_ISLNK(READ_ONCE(inode->i_mode)) && (!is_last || (nd->flags & LOOKUP_FOLLOW))) {
		int err = 0;
		if (unlikely(nd->flags & LOOKUP_NO_SYMLINKS))
			err = -ELOOP;
		else if (unlikely(++nd->total_link_count > MAXSYMLINKS))
			err = -ELOOP;
		if (!nd_rcu(nd)) {
			if (unlikely(err)) {
				dput(d);
				if (mnt_ref)
					mntput(m);
				return err;
			}
			/* the link is held, references and all, until the walk
			 * ends: its body is read meanwhile */
			nd->links[nd->depth].mnt = mnt_ref ? m : mntget(m);
			nd->links[nd->depth].dentry = d;
			nd->depth++;
		} else if (err) {
			return err;
		} else if (unlikely(nd->flags & LOOKUP_PC_RECORD)) {
			pc_note(nd, d); /* its unlink or replacement kills the entry */
		}
		/* acquire: a body ->get_link cached is published by this store */
		nd->link_body = smp_load_acquire(&inode->i_link);
		if (unlikely(!nd->link_body)) {
			int err;
			if (nd_rcu(nd))
				return -ECHILD;
			nd->link_body = inode_get_link(inode, &err);
			if (!nd->link_body)
				return err;
		}
		return 1;
	}
	if (mnt_ref)
		nd_move_ref(nd, m, d);
	else
		nd_set_path_inode(nd, m, d, true, inode);
	return 0;
}

static __always_inline unsigned scan_component(struct nameidata *nd, const char *s)
{
	uint32_t hash;
	unsigned len = hash_component(s, &hash);
	nd->last.hash = hash;
	nd->last.name = s;
	nd->last.len = len;
	nd->last_type = LAST_NORM;
	if (s[0] == '.') {
		if (len == 1)
			nd->last_type = LAST_DOT;
		else if (len == 2 && s[1] == '.')
			nd->last_type = LAST_DOTDOT;
	}
	return len;
}

#ifndef UVFS_NO_PATH_CACHE
/* The prefix's walk reached the last component (s) with no error: what it
 * found goes into the path cache. */
static void pathcache_record(struct nameidata *nd, const char *s)
{
	nd->flags &= ~LOOKUP_PC_RECORD;
	if (s != nd->pc_key.name + nd->pc_key.len || nd->pc_ndeps > PC_MAX_DEPS)
		return;
	pathcache_insert(nd->proc->vfs, &nd->pc_key, &nd->path, nd->total_link_count, nd->seq, nd->pc_gen,
			 nd->pc_deps, nd->pc_ndeps);
}

/*
 * RCU mode, after path_init: the path cache's directory for all of s but its
 * last component, and the rest of s to walk from there; or, on a miss, s
 * itself, with the walk of the prefix recorded for pathcache_record.  A
 * path of one component (after "/" or not) is its own last: no probe.
 */
/* Where the component that ends at end starts: back from end a word at a
 * time to the last '/' before it.  The bytes of a word that are '/' have
 * their high bit set in t, exactly (no borrow from a lower byte, as the
 * cheaper test would let through). */
static __always_inline const char *pc_last_component(const char *s, const char *end)
{
	const char *last = end;
	while (last - s >= 8) {
		uint64_t w, x, t;
		__builtin_memcpy(&w, last - 8, 8);
		x = w ^ SLASHES_;
		t = ~(((x & ~HIGHS_) + ~HIGHS_) | x | ~HIGHS_);
		if (t)
			return last - (8 - (unsigned)(63 - __builtin_clzll(t)) / 8 - 1);
		last -= 8;
	}
	if (last - s > 3) {
		/* the first bytes, fewer than a word: one load, the bytes past
		 * them masked off (fewer than 4: the loop below is cheaper) */
		unsigned n = (unsigned)(last - s);
		uint64_t x = load_word_zeropad(s) ^ SLASHES_;
		uint64_t t = ~(((x & ~HIGHS_) + ~HIGHS_) | x | ~HIGHS_) & ((1ull << (8 * n)) - 1);
		return t ? s + (63 - __builtin_clzll(t)) / 8 + 1 : s;
	}
	while (last > s && last[-1] != '/')
		last--;
	return last;
}

/* The length of s's prefix (up to its last component), or 0 when the last
 * component is the only one. */
static unsigned pc_prefix_len(const char *s, unsigned len)
{
	const char *end = s + len;
	while (end > s && end[-1] == '/')
		end--;
	const char *last = pc_last_component(s, end), *q = last;
	while (q > s && q[-1] == '/')
		q--;
	return q > s ? (unsigned)(last - s) : 0;
}

static const char *pathcache_walk(struct nameidata *nd, const char *s)
{
	unsigned p = pc_prefix_len(s, nd->pc_len);
	if (!p)
		return s;
	struct pc_key *k = &nd->pc_key;
	k->start = nd->path;
	k->root = nd->root;
	k->cred_serial = nd->cred->serial;
	k->name = s;
	k->len = p;
	k->hash = pathcache_hash(k);
	const struct pc_entry *e = pathcache_find(nd->proc->vfs, k, &nd->pc_gen);
	if (e) {
		nd_set_path(nd, e->res.mnt, e->res.dentry, true);
		nd->total_link_count = e->links;
		return s + p;
	}
	nd->flags |= LOOKUP_PC_RECORD;
	nd->pc_ndeps = 0;
	pc_note(nd, nd->path.dentry);
	return s;
}

/*
 * The path cache's fast path, as lookup_fast_one for a path with a '/': the
 * directory of all but the last component from the cache (or the root for
 * "/name"), then the last name as lookup_fast_one looks it up, with no
 * nameidata.  Same contract: inside the read-side section after the caller
 * read rename_seq, which it validates afterwards; 0, -ENOENT for a
 * cached negative name, or -ECHILD for anything out of the ordinary (a
 * miss, a link to follow, a mount, "." or "..", a trailing slash, a
 * directory not everybody may search): the walk then decides.
 */
struct pc_fast pathcache_lookup_fast(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags)
{
	struct pc_fast f = { .r = -ECHILD };
	if (unlikely(flags & (FAST_LOOKUP_EXCLUDE | PC_EXCLUDE)))
		return f;
	const char *s = name->name, *end = s + name->len, *last = pc_last_component(s, end);
	if (unlikely(last == end))
		return f; /* "name/", "/" */
	struct qstr q;
	unsigned len = hash_component(last, &q.hash);
	if (unlikely(len > NAME_MAX || (last[0] == '.' && (len == 1 || (len == 2 && last[1] == '.')))))
		return f;
	q.name = last;
	q.len = len;
	struct fs_struct *fs = p->fs;
	struct pc_key k;
	unsigned fseq;
	if (*s == '/') {
		do {
			fseq = read_seqcount_begin(&fs->seq);
			k.root.mnt = READ_ONCE(fs->root.mnt);
			k.root.dentry = READ_ONCE(fs->root.dentry);
		} while (read_seqcount_retry(&fs->seq, fseq));
		k.start = k.root;
	} else {
		do {
			fseq = read_seqcount_begin(&fs->seq);
			k.root.mnt = READ_ONCE(fs->root.mnt);
			k.root.dentry = READ_ONCE(fs->root.dentry);
			if (dfd == AT_FDCWD) {
				k.start.mnt = READ_ONCE(fs->pwd.mnt);
				k.start.dentry = READ_ONCE(fs->pwd.dentry);
			}
		} while (read_seqcount_retry(&fs->seq, fseq));
		unsigned fmode;
		if (dfd != AT_FDCWD && fd_path_rcu(p, dfd, &k.start, &fmode))
			return f;
	}
	const struct cred *cred = current_cred();
	struct path dir;
	const char *pe = last;
	while (pe > s && pe[-1] == '/')
		pe--;
	if (pe == s) {
		dir = k.root; /* "/name": the walk's nd_jump_root */
	} else {
		k.cred_serial = cred->serial;
		k.name = s;
		k.len = (unsigned)(last - s);
		k.hash = pathcache_hash(&k);
		unsigned gen;
		const struct pc_entry *e = pathcache_find(p->vfs, &k, &gen);
		if (!e)
			return f;
		dir = e->res;
	}
	struct inode *di = smp_load_acquire(&dir.dentry->d_inode);
	if (unlikely(!(READ_ONCE(di->i_opflags) & IOP_FASTPERM_MAY_EXEC)) &&
	    (!S_ISDIR(READ_ONCE(di->i_mode)) || !cred_is_root(cred) || READ_ONCE(di->i_acl) || di->i_op->permission))
		return f;
	struct dentry *d = __d_lookup_rcu(dir.dentry, &q, NULL);
	if (unlikely(!d))
		return f;
	struct inode *inode = smp_load_acquire(&d->d_inode);
	if (!inode) {
		f.r = -ENOENT;
		return f;
	}
	if (unlikely(READ_ONCE(d->d_flags) & (DCACHE_MOUNTED | DCACHE_OP_REVALIDATE)))
		return f;
	umode_t m = READ_ONCE(inode->i_mode);
	if (unlikely((S_ISLNK(m) && (flags & LOOKUP_FOLLOW)) || ((flags & LOOKUP_DIRECTORY) && !S_ISDIR(m))))
		return f;
	f.r = 0;
	f.res.mnt = dir.mnt;
	f.res.dentry = d;
	f.inode = inode;
	return f;
}

static int link_path_walk(struct nameidata *nd, const char *s);
static void nd_init(struct nameidata *nd, struct uvfs_proc *p, unsigned flags);

/* A miss of the REF walk: the prefix walked once in RCU mode, which
 * records it as any RCU walk's miss does, so that the next create there
 * hits. */
static void pathcache_prime(struct uvfs_proc *p, int dfd, const char *s, unsigned len, unsigned flags)
{
	struct nameidata nd;
	nd_init(&nd, p, (flags & ~(LOOKUP_FOLLOW | LOOKUP_DIRECTORY | LOOKUP_EXCL)) | LOOKUP_RCU);
	nd.pc_len = len;
	if (!path_init(&nd, dfd, s))
		link_path_walk(&nd, pathcache_walk(&nd, s));
	urcu_memb_read_unlock();
}

/*
 * REF mode (the O_CREAT walk), after path_init: the cached prefix's
 * directory with references taken as the RCU walk's end takes them, and
 * the rest of s; or s itself, after priming the cache.
 */
static __attribute__((noinline)) const char *pathcache_walk_ref_slow(struct nameidata *nd, int dfd,
								   const struct filename *name, unsigned p)
{
	const char *s = name->name;
	unsigned len = name->len;
	struct uvfs *vfs = nd->proc->vfs;
	struct pc_key k = { .start = nd->path, .root = nd->root, .cred_serial = nd->cred->serial,
			    .name = s, .len = p };
	k.hash = pathcache_hash(&k);
	urcu_memb_read_lock();
	unsigned seq = read_seqcount_begin(&vfs->rename_seq), gen, links = 0;
	const struct pc_entry *e = pathcache_find(vfs, &k, &gen);
	struct path res;
	bool hit = false;
	if (e) {
		res = e->res;
		links = e->links;
		hit = legitimize_path(vfs, &res, seq);
	}
	urcu_memb_read_unlock();
	if (!hit) {
		pathcache_prime(nd->proc, dfd, s, len, nd->flags);
		return s;
	}
	path_put(&nd->path);
	nd->path = res;
	nd->inode = res.dentry->d_inode;
	nd->total_link_count = links;
	return s + p;
}

/* single: no '/'; the one-name creates and unlinks pay one test, and a
 * path of one component its scan, inline (out of line, the function's
 * register saves cost unlink1 38 instructions) */
static __always_inline const char *pathcache_walk_ref(struct nameidata *nd, int dfd, const struct filename *name)
{
	unsigned p;
	if (likely(name->single) || (nd->flags & PC_EXCLUDE) || !(p = pc_prefix_len(name->name, name->len)))
		return name->name;
	return pathcache_walk_ref_slow(nd, dfd, name, p);
}
#else
static inline void pathcache_record(struct nameidata *nd, const char *s) { }
static inline const char *pathcache_walk_ref(struct nameidata *nd, int dfd, const struct filename *name)
{
	return name->name;
}
#endif

/*
 * Walks every component of s but the last, following the symlinks met on the
 * way (their bodies are walked in place, the rest of the path waits on a
 * stack); the last component is left in nd->last for the caller.
 */
/*
 * RCU mode, a component not the last: the step most components take, with
 * each test once (walk_component makes the same ones for every case and
 * both modes): a name (scan_component said LAST_NORM), a hashed positive
 * dentry with no mount on it, no d_revalidate and no link to follow.  1
 * when it moved there; -ECHILD for a miss (REF mode leaves the negative
 * dentry); 0 when walk_component is to decide.
 */
static __always_inline int walk_component_rcu_step(struct nameidata *nd)
{
	if (unlikely(nd->last_type != LAST_NORM))
		return 0;
	struct dentry *d = __d_lookup_rcu(nd->path.dentry, &nd->last, NULL);
	if (unlikely(!d))
		return -ECHILD;
	struct inode *inode = smp_load_acquire(&d->d_inode);
	if (unlikely(!inode || (READ_ONCE(d->d_flags) & (DCACHE_MOUNTED | DCACHE_OP_REVALIDATE)) ||
		     S_ISLNK(READ_ONCE(inode->i_mode))))
		return 0;
	if (unlikely(nd->flags & LOOKUP_PC_RECORD))
		pc_note(nd, d);
	nd->path.dentry = d;
	nd->inode = inode;
	return 1;
}

static int link_path_walk(struct nameidata *nd, const char *s)
{
	const char *rest[MAXSYMLINKS + 1];
	int depth = 0, err;
	nd->last_type = LAST_ROOT;
	nd->trailing_slash = false;
	/* s is past its slashes at the top of the loop: every way back to it
	 * (the next component, a link's body, the rest after a link) skipped
	 * them once */
	while (*s == '/')
		s++;
	for (;;) {
		if (!*s) {
			if (!depth)
				return 0;
			s = rest[--depth];
			continue;
		}
		if (unlikely(!S_ISDIR(READ_ONCE(nd->inode->i_mode)))) {
			mnt_note_use(nd->path.mnt); /* Linux unlazies first */
			return -ENOTDIR;
		}
		err = may_lookup(nd);
		if (unlikely(err))
			return err;
		unsigned len = scan_component(nd, s);
		const char *after = s + len;
		while (*after == '/')
			after++;
		if (!*after && !depth) {
			/* a name's length is its lookup's to refuse (Linux: the
			 * filesystem's ->lookup), after the caller's own checks
			 * for the last one, and after a dead directory's ENOENT
			 * for any (d_lookup_or_alloc) */
			nd->trailing_slash = s[len] == '/';
			if (unlikely(nd->flags & LOOKUP_PC_RECORD))
				pathcache_record(nd, s);
			return 0;
		}
		if (likely(nd_rcu(nd))) {
			err = walk_component_rcu_step(nd);
			if (likely(err > 0)) {
				s = after;
				continue;
			}
			if (err)
				return err;
		}
		err = walk_component(nd, false);
		if (err < 0)
			return err;
		if (err == 1) {
			rest[depth++] = after;
			s = nd->link_body;
			if (*s == '/') {
				err = nd_jump_root(nd);
				if (err)
					return err;
			}
			while (*s == '/')
				s++;
			RACE_POINT("walk:follow_link");
			continue;
		}
		s = after;
	}
}

/* The last component: trailing slashes mean "a directory, follow links". */
static inline int lookup_last(struct nameidata *nd)
{
	if (nd->last_type == LAST_NORM && nd->trailing_slash)
		nd->flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
	return walk_component(nd, true);
}

/*
 * Linux's complete_walk for a walk that ended where no lookup in a parent
 * brought it (".", "..", "/", a mount's root: ND_JUMPED): a filesystem
 * whose objects can change behind the cache checks the final dentry
 * (d_weak_revalidate; 0 is ESTALE).  In RCU mode: -ECHILD, the walk is
 * made again in REF mode.
 */
static int complete_jump(struct nameidata *nd)
{
	struct dentry *d = nd->path.dentry;
	const struct dentry_operations *op = d->d_sb->s_d_op;
	if (likely(!op || !op->d_weak_revalidate))
		return 0;
	if (nd->last_type == LAST_NORM && d != nd->path.mnt->m_root)
		return 0;
	if (nd_rcu(nd))
		return -ECHILD;
	int r = op->d_weak_revalidate(d, nd->flags);
	return r > 0 ? 0 : r ? r : -ESTALE;
}

static int path_lookupat(struct nameidata *nd, int dfd, const char *s)
{
	int err = path_init(nd, dfd, s);
	if (err)
		return err;
#ifndef UVFS_NO_PATH_CACHE
	if (nd->pc_len && !(nd->flags & PC_EXCLUDE))
		s = pathcache_walk(nd, s);
#endif
	for (;;) {
		err = link_path_walk(nd, s);
		if (err)
			return err;
		err = lookup_last(nd);
		if (err != 1)
			break;
		s = nd->link_body;
		if (*s == '/') {
			err = nd_jump_root(nd);
			if (err)
				return err;
		}
		RACE_POINT("walk:follow_link");
	}
	if (err)
		return err;
	if (unlikely(nd->flags & LOOKUP_MOUNTPOINT)) {
		/* umount: the mounts on the final position count, even at "/" */
		if (nd_rcu(nd)) {
			struct mount *m = nd->path.mnt;
			struct dentry *d = nd->path.dentry;
			err = follow_mounts(nd, &m, &d);
			if (err)
				return err;
			if (d != nd->path.dentry || m != nd->path.mnt)
				nd_set_path(nd, m, d, false);
		} else {
			err = nd_follow_mounts_ref(nd, dget(nd->path.dentry));
			if (err)
				return err;
		}
	}
	err = complete_jump(nd);
	if (err)
		return err;
	if ((nd->flags & LOOKUP_DIRECTORY) && !S_ISDIR(READ_ONCE(nd->inode->i_mode)))
		return -ENOTDIR;
	return 0;
}

static int path_parentat(struct nameidata *nd, int dfd, const struct filename *name)
{
	const char *s = name->name;
	int err = path_init(nd, dfd, s);
	if (err)
		return err;
	return link_path_walk(nd, pathcache_walk_ref(nd, dfd, name));
}

/* RCU mode ends: take references on nd->path and check nothing moved. */
static int unlazy_walk(struct nameidata *nd)
{
	if (!legitimize_path_inode(nd->proc->vfs, &nd->path, nd->seq, nd->inode))
		goto fail;
	nd->flags &= ~LOOKUP_RCU;
	nd->depth = 0;
	nd->root_held = false;
	urcu_memb_read_unlock();
	return 0;
fail:
	nd->path.dentry = NULL;
	return -ECHILD;
}

static inline bool rcu_result_valid(struct nameidata *nd)
{
	return !read_seqcount_retry(&nd->proc->vfs->rename_seq, nd->seq);
}

static void nd_init(struct nameidata *nd, struct uvfs_proc *p, unsigned flags)
{
	nd->proc = p;
	nd->cred = current_cred();
	nd->flags = flags;
	nd->pc_len = 0;
}

static int filename_lookup_walk(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
				struct path *path);

int filename_lookup(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
		    struct path *path)
{
	struct uvfs *vfs = p->vfs;
	urcu_memb_read_lock();
	unsigned seq = read_seqcount_begin(&vfs->rename_seq);
	struct inode *inode;
	int r = lookup_fast_one(p, dfd, name, flags, seq, path, &inode);
	if (likely(r != -ECHILD)) {
		if (r == 0) {
			/* keep it: references first, then the check that nothing moved */
			if (likely(legitimize_path_inode(vfs, path, seq, inode))) {
				urcu_memb_read_unlock();
				return 0;
			}
		} else if (!read_seqcount_retry(&vfs->rename_seq, seq)) {
			urcu_memb_read_unlock();
			return r;
		}
	}
	urcu_memb_read_unlock();
	return filename_lookup_walk(p, dfd, name, flags, path);
}

static int filename_lookup_walk(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
				struct path *path)
{
	struct nameidata nd;
	nd_init(&nd, p, flags | LOOKUP_RCU);
	nd.pc_len = name->len;
	int err = path_lookupat(&nd, dfd, name->name);
	if (!err) {
		err = unlazy_walk(&nd);
		if (!err) {
			*path = nd.path;
			nd.path.dentry = NULL;
			terminate_walk(&nd);
			return 0;
		}
		urcu_memb_read_unlock();
	} else {
		bool ok = rcu_result_valid(&nd) && err != -ECHILD;
		urcu_memb_read_unlock();
		if (ok)
			return err;
	}
	if (flags & LOOKUP_CACHED)
		return -EAGAIN;
	nd_init(&nd, p, flags);
	err = path_lookupat(&nd, dfd, name->name);
	if (!err) {
		*path = nd.path;
		nd.path.dentry = NULL;
	}
	terminate_walk(&nd);
	return err;
}

/*
 * filename_lookup_fn (namei.h) after its fast path declined: the general
 * walk in RCU mode, fn inside the read-side section; then, if anything
 * moved, the walk and fn again in REF mode.
 */
long filename_lookup_fn_walk(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
			     lookup_rcu_fn fn, void *arg)
{
	struct nameidata nd;
	long ret;
	nd_init(&nd, p, flags | LOOKUP_RCU);
	nd.pc_len = name->len;
	int err = path_lookupat(&nd, dfd, name->name);
	if (!err) {
		mnt_note_use(nd.path.mnt); /* Linux's path_put after the call */
		ret = fn(nd.inode, nd.path.dentry, nd.path.mnt, arg);
	} else {
		ret = err;
	}
	bool ok = err != -ECHILD && rcu_result_valid(&nd);
	urcu_memb_read_unlock();
	if (likely(ok))
		return ret;
	if (flags & LOOKUP_CACHED)
		return -EAGAIN;
	nd_init(&nd, p, flags);
	err = path_lookupat(&nd, dfd, name->name);
	ret = err ? err : fn(nd.inode, nd.path.dentry, nd.path.mnt, arg);
	terminate_walk(&nd);
	return ret;
}

long filename_lookup_fn(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
			lookup_rcu_fn fn, void *arg)
{
	return filename_lookup_fn_inline(p, dfd, name, flags, fn, arg);
}

int lookup_fn_leave_rcu(struct inode *inode)
{
	if (!urcu_memb_read_ongoing())
		return 0;
	long c = __atomic_load_n(&inode->i_count, __ATOMIC_RELAXED);
	do {
		if (c <= 0)
			return -1;
	} while (!__atomic_compare_exchange_n(&inode->i_count, &c, c + 1, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	urcu_memb_read_unlock();
	return 1;
}

/* The caller's check of rename_seq decides, as for any fn, whether what it
 * answered stands. */
void lookup_fn_enter_rcu(struct inode *inode)
{
	iput(inode);
	urcu_memb_read_lock();
}

/* The parent of one name (namei.h): what its inline fast path leaves
 * out of line. */

/* A directory met first here, not by a walk: its search permission
 * cached as may_lookup_slow caches it, or the stat and open of its names
 * (lookup_fast_one) would test the mode on every call */
__attribute__((noinline)) bool parent_single_dir_slow(struct inode *dir)
{
	if (dir->i_op->permission)
		return false;
	if (may_exec_all(dir)) {
		__atomic_fetch_or(&dir->i_opflags, IOP_FASTPERM_MAY_EXEC, __ATOMIC_RELAXED);
		smp_mb();
		if (likely(may_exec_all(dir)))
			return true;
		__atomic_fetch_and(&dir->i_opflags, ~IOP_FASTPERM_MAY_EXEC, __ATOMIC_RELAXED);
	}
	return cred_is_root(current_cred()) && !READ_ONCE(dir->i_acl);
}

/* With references, taken as an RCU walk's end takes them (legitimize_path). */
static __always_inline int parent_single(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
					 struct path *parent)
{
	if (!parent_single_name(name, flags))
		return -ECHILD;
	struct uvfs *vfs = p->vfs;
	int r = -ECHILD;
	urcu_memb_read_lock();
	unsigned seq = read_seqcount_begin(&vfs->rename_seq);
	struct path start;
	if (!start_dir_rcu(p, dfd, &start) && parent_single_dir(smp_load_acquire(&start.dentry->d_inode)) &&
	    likely(legitimize_path(vfs, &start, seq))) {
		*parent = start;
		r = 0;
	}
	urcu_memb_read_unlock();
	return r;
}

/* parent_single out of line, for the borrow's fallback: the borrow's own
 * path then saves no registers for it */
__attribute__((noinline)) int parent_single_ref(struct uvfs_proc *p, int dfd, const struct filename *name,
						unsigned flags, struct path *parent)
{
	return parent_single(p, dfd, name, flags, parent);
}

__thread struct parent_borrow parent_borrow;

void parent_unborrow(void)
{
	if (parent_borrow.files) {
		path_get(parent_borrow.path);
		files_light_exit(parent_borrow.files);
		parent_borrow.files = NULL;
	}
}

/* All but the last component, in REF mode (the callers lock the parent). */
int filename_parentat(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
		      struct path *parent, struct qstr *last, int *type)
{
	if (likely(!parent_single(p, dfd, name, flags, parent))) {
		parent_single_last(name, last);
		*type = LAST_NORM;
		return 0;
	}
	struct nameidata nd;
	nd_init(&nd, p, flags & ~LOOKUP_RCU);
	int err = path_parentat(&nd, dfd, name);
	if (!err) {
		*parent = nd.path;
		nd.path.dentry = NULL;
		*last = nd.last;
		*type = nd.last_type;
	}
	terminate_walk(&nd);
	return err;
}

/*
 * The walk of an O_CREAT open, as Linux's path_openat: all but the last
 * component, then fn on the last one with the parent held; when fn finds a
 * symlink to follow, the link joins the walk's own stack and its body is
 * walked by the same nameidata, so the RESOLVE_* scope, the root of
 * RESOLVE_IN_ROOT and the 40-link count of the call apply to it as to the
 * rest of the path.  Errors: the walk's; for a last component "." or "..",
 * the walk of ".." (EXDEV out of a scope), then EEXIST with LOOKUP_EXCL,
 * else EISDIR; EISDIR for a trailing slash; ELOOP
 * for a link with
 * RESOLVE_NO_SYMLINKS or past 40; fn's.  The one name's case is
 * filename_open_walk's (namei.h); this is the general one, with a
 * nameidata (out of line: its frame is large).
 */
__attribute__((noinline)) int filename_open_walk_nd(struct uvfs_proc *p, int dfd, const struct filename *name,
						    unsigned flags, open_last_fn fn, void *arg, struct path *out)
{
	struct path res;
	int err;
	struct nameidata nd;
	nd_init(&nd, p, flags & ~(LOOKUP_RCU | LOOKUP_FOLLOW | LOOKUP_DIRECTORY));
	const char *s = name->name;
	err = path_init(&nd, dfd, s);
	if (!err)
		s = pathcache_walk_ref(&nd, dfd, name);
	while (!err) {
		err = link_path_walk(&nd, s);
		if (err)
			break;
		/* "." and ".." exist (O_EXCL) and are directories; "name/"
		 * is EISDIR before any lookup, as Linux orders them.  ".." is
		 * walked first (Linux's handle_dots): it may leave the scope */
		if (nd.last_type != LAST_NORM) {
			if (nd.last_type == LAST_DOTDOT && (err = follow_dotdot(&nd)) != 0)
				break;
			err = (nd.flags & LOOKUP_EXCL) ? -EEXIST : -EISDIR;
			break;
		}
		if (nd.trailing_slash) {
			err = -EISDIR;
			break;
		}
		err = fn(&nd.path, &nd.last, arg, &res);
		if (err == 0)
			*out = res;
		if (err != 1)
			break;
		if (unlikely(nd.flags & LOOKUP_NO_SYMLINKS) || unlikely(++nd.total_link_count > MAXSYMLINKS)) {
			path_put(&res);
			err = -ELOOP;
			break;
		}
		/* held until the walk ends, as walk_component holds a link */
		nd.links[nd.depth++] = res;
		s = inode_get_link(res.dentry->d_inode, &err);
		if (!s)
			break;
		err = *s == '/' ? nd_jump_root(&nd) : 0;
		RACE_POINT("walk:follow_link");
	}
	terminate_walk(&nd);
	return err;
}

/* Linux's user_path_at: copy the caller's path and resolve it. */
int user_path_at(struct uvfs_proc *p, int dfd, const char *upath, unsigned flags, struct path *path)
{
	struct filename name;
	int err = getname(upath, &name, flags);
	if (err)
		return err;
	return filename_lookup(p, dfd, &name, flags, path);
}

/* ---- rename locking (Linux's lock_rename) ---- */

/* If anc is a proper ancestor of d: the child of anc on the way to d. */
static struct dentry *d_ancestor(struct dentry *anc, struct dentry *d)
{
	/* a same-directory rename (no rename_mutex) may store d_parent meanwhile:
	 * the same value, since it moves nothing between directories */
	for (struct dentry *p; d != (p = READ_ONCE(d->d_parent)); d = p)
		if (p == anc)
			return d;
	return NULL;
}

/*
 * Locks two directories for a rename, ancestor first; unrelated ones by
 * address.  Cross-directory renames also take rename_mutex so that the
 * ancestry seen here stays true.  *trap, as Linux's lock_rename returns it:
 * the child of the ancestor directory on the way to the other one, or NULL.
 */
int lock_rename(struct dentry *p1, struct dentry *p2, struct dentry **trap)
{
	*trap = NULL;
	if (p1 == p2) {
		down_write(&p1->d_inode->i_rwsem);
		return 0;
	}
	struct uvfs *vfs = p1->d_sb->s_uvfs;
	pthread_mutex_lock(&vfs->rename_mutex);
	struct dentry *t;
	if ((t = d_ancestor(p2, p1)) != NULL) {
		*trap = t;
		down_write(&p2->d_inode->i_rwsem);
		down_write(&p1->d_inode->i_rwsem);
	} else {
		*trap = d_ancestor(p1, p2);
		if (*trap || p1 < p2) {
			down_write(&p1->d_inode->i_rwsem);
			down_write(&p2->d_inode->i_rwsem);
		} else {
			down_write(&p2->d_inode->i_rwsem);
			down_write(&p1->d_inode->i_rwsem);
		}
	}
	return 0;
}

void unlock_rename(struct dentry *p1, struct dentry *p2)
{
	up_write(&p1->d_inode->i_rwsem);
	if (p1 != p2) {
		up_write(&p2->d_inode->i_rwsem);
		pthread_mutex_unlock(&p1->d_sb->s_uvfs->rename_mutex);
	}
}

int mnt_want_write(struct mount *m)
{
	return __mnt_want_write(m);
}

/* A writer that met a remount's MNT_WRITE_HOLD: waits until it decided. */
int mnt_get_write_access_slow(struct mount *m)
{
	unsigned fl;
	while ((fl = __atomic_load_n(&m->m_flags, __ATOMIC_ACQUIRE)) & MNT_WRITE_HOLD)
		sched_yield(); /* the remount is summing: it takes no longer than that */
	if (fl & MNT_RDONLY) {
		pcounter_add_local(&m->m_writers, -1);
		return -EROFS;
	}
	return 0;
}
