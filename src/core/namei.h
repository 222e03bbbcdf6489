/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The walk's fast path, inline: one name relative to a directory, resolved
 * in RCU mode without a nameidata, so that the callers that only read the
 * final inode (stat, readlink) run their work inline too; and the parent of
 * one name that an unlink or an O_CREAT open changes, maybe borrowed. */
#ifndef UVFS_CORE_NAMEI_H
#define UVFS_CORE_NAMEI_H
#include "vfs.h"
#include "dcache.h"

/* The path cache's fast path for a name with a '/' (namei.c), the same
 * contract as lookup_fast_one's (the caller validates its rename_seq).  The
 * answer comes back by value: lookup_fast_one's callers keep theirs in
 * registers (passing their addresses cost stat1 5 instructions a call). */
struct pc_fast {
	int r;
	struct path res;
	struct inode *inode;
};
#ifndef UVFS_NO_PATH_CACHE
struct pc_fast pathcache_lookup_fast(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags);
#else
static inline struct pc_fast pathcache_lookup_fast(struct uvfs_proc *p, int dfd, const struct filename *name,
						   unsigned flags)
{
	return (struct pc_fast){ .r = -ECHILD };
}
#endif

/*
 * The directory a one-name call starts from, read in RCU mode (inside the
 * caller's read-side section): the cwd, consistent under its fs_struct's
 * seq (chdir moves it), or a dir fd's path without a reference
 * (fd_path_rcu).  Nonzero for an fd that is not open or is being changed:
 * the caller's general walk then decides, errors included.
 */
static __always_inline int start_dir_rcu(struct uvfs_proc *p, int dfd, struct path *start)
{
	if (dfd == AT_FDCWD) {
		struct fs_struct *fs = p->fs;
		unsigned fseq;
		do {
			fseq = read_seqcount_begin(&fs->seq);
			start->mnt = READ_ONCE(fs->pwd.mnt);
			start->dentry = READ_ONCE(fs->pwd.dentry);
		} while (read_seqcount_retry(&fs->seq, fseq));
		return 0;
	}
	unsigned fmode;
	return fd_path_rcu(p, dfd, start, &fmode);
}

/*
 * The common lookup, straight through: one name relative to a directory (no
 * slash, not "." or ".."), in RCU mode.  Called inside the read-side section
 * after the caller read rename_seq; the caller validates it afterwards (the
 * cwd is read consistently under its fs_struct's seq, which chdir moves).
 * Returns 0 with the result, -ENOENT for a cached negative name, or -ECHILD
 * when anything is out of the ordinary (the general walk then decides,
 * errors included).
 */
#define FAST_LOOKUP_EXCLUDE (LOOKUP_BENEATH | LOOKUP_IN_ROOT | LOOKUP_NO_XDEV | LOOKUP_NO_SYMLINKS | \
			     LOOKUP_MOUNTPOINT)
static __always_inline int lookup_fast_one(struct uvfs_proc *p, int dfd, const struct filename *name,
					   unsigned flags, unsigned seq, struct path *res, struct inode **inodep)
{
	const char *s = name->name;
	if (unlikely(flags & FAST_LOOKUP_EXCLUDE))
		return -ECHILD;
	struct qstr q;
	unsigned len;
	if (likely(name->single)) {
		/* getname hashed it: no '/', at most NAME_MAX bytes */
		len = name->len;
		q.hash = name->hash;
		if (unlikely(len == 0 || (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))))
			return -ECHILD;
	} else {
		/* a '/' in it: the path cache's */
		if (unlikely(s[0] == '/'))
			goto cached;
		len = hash_component(s, &q.hash);
		if (len != name->len)
			goto cached;
		if (unlikely(len - 1 >= NAME_MAX ||
			     (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))))
			return -ECHILD;
	}
	q.name = s;
	q.len = len;
	struct path start;
	if (start_dir_rcu(p, dfd, &start))
		return -ECHILD;
	struct inode *dir = smp_load_acquire(&start.dentry->d_inode);
	/* a directory everybody may search (may_lookup cached it), or root's
	 * search of a directory with no ACL and no ->permission of its own */
	if (unlikely(!(READ_ONCE(dir->i_opflags) & IOP_FASTPERM_MAY_EXEC)) &&
	    (!S_ISDIR(READ_ONCE(dir->i_mode)) || !cred_is_root(current_cred()) || READ_ONCE(dir->i_acl) ||
	     dir->i_op->permission))
		return -ECHILD;
	struct dentry *d = __d_lookup_rcu(start.dentry, &q, NULL);
	if (unlikely(!d))
		return -ECHILD;
	struct inode *inode = smp_load_acquire(&d->d_inode);
	if (!inode)
		return -ENOENT;
	if (unlikely(READ_ONCE(d->d_flags) & (DCACHE_MOUNTED | DCACHE_OP_REVALIDATE)))
		return -ECHILD;
	umode_t m = READ_ONCE(inode->i_mode);
	if (unlikely((S_ISLNK(m) && (flags & LOOKUP_FOLLOW)) || ((flags & LOOKUP_DIRECTORY) && !S_ISDIR(m))))
		return -ECHILD;
	res->mnt = start.mnt;
	res->dentry = d;
	*inodep = inode;
	return 0;
cached:;
	struct pc_fast f = pathcache_lookup_fast(p, dfd, name, flags);
	if (!f.r) {
		*res = f.res;
		*inodep = f.inode;
	}
	return f.r;
}

/*
 * For a lookup_rcu_fn that must call a filesystem (which may block, and
 * needs the inode held): 0 when fn runs in REF mode (call it as it is); 1
 * when fn ran in the walk's read-side section, which is now left with a
 * reference on the inode (lookup_fn_enter_rcu enters it again and drops
 * the reference; whatever else fn was given may be gone meanwhile, so it
 * reads what it needs first); -1 when the inode is on its way out (fn
 * answers without the filesystem).
 */
int lookup_fn_leave_rcu(struct inode *inode);
void lookup_fn_enter_rcu(struct inode *inode);

long filename_lookup_fn_walk(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
			     lookup_rcu_fn fn, void *arg);

/*
 * Lookups whose whole work is reading the final inode (stat, access,
 * readlink): fn runs inside the read-side section in RCU mode and its result
 * stands if nothing moved; otherwise the walk and fn run again in REF mode
 * (filename_lookup_fn_walk).
 * fn must not block and must be safe to run twice.
 */
static __always_inline long filename_lookup_fn_inline(struct uvfs_proc *p, int dfd, const struct filename *name,
						      unsigned flags, lookup_rcu_fn fn, void *arg)
{
	struct uvfs *vfs = p->vfs;
	urcu_memb_read_lock();
	unsigned seq = read_seqcount_begin(&vfs->rename_seq);
	struct path res;
	struct inode *inode;
	int r = lookup_fast_one(p, dfd, name, flags, seq, &res, &inode);
	if (likely(r != -ECHILD)) {
		long ret;
		if (likely(!r)) {
			/* Linux's path_put after the call clears MNT_EXPIRE's mark */
			if (unlikely(READ_ONCE(vfs->expiry_used)))
				mnt_note_use(res.mnt);
			ret = fn(inode, res.dentry, res.mnt, arg);
		} else {
			/* an ENOTDIR on the way: the walk says which mount it used */
			if (unlikely(r == -ENOTDIR) && READ_ONCE(vfs->expiry_used))
				goto walk;
			ret = r;
		}
		if (likely(!read_seqcount_retry(&vfs->rename_seq, seq))) {
			urcu_memb_read_unlock();
			return ret;
		}
	}
walk:
	urcu_memb_read_unlock();
	return filename_lookup_fn_walk(p, dfd, name, flags, fn, arg);
}

/*
 * The parent of a create or an unlink of one name relative to a directory
 * (no '/', not "." or ".."), the common case, with no nameidata walk: no
 * root is read (Linux too sets it only when a walk needs it), and the name
 * keeps getname's hash.  The checks are link_path_walk's before a last
 * component (a directory, search permission); anything out of the
 * ordinary (a bad fd, a directory whose search needs a full permission
 * check, a dead one, a move meanwhile) is -ECHILD and the caller walks,
 * which gives the errors.  Inline at the callers (uvfs_unlinkat, the
 * O_CREAT open): a call to it saved registers it did not need.
 */
static __always_inline bool parent_single_name(const struct filename *name, unsigned flags)
{
	const char *s = name->name;
	unsigned len = name->len;
	return likely(name->single && !(flags & FAST_LOOKUP_EXCLUDE) && len != 0) &&
	       !(s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')));
}

bool parent_single_dir_slow(struct inode *dir);
static __always_inline bool parent_single_dir(struct inode *dir)
{
	if (unlikely(!dir || !S_ISDIR(READ_ONCE(dir->i_mode))))
		return false;
	return likely(READ_ONCE(dir->i_opflags) & IOP_FASTPERM_MAY_EXEC) || parent_single_dir_slow(dir);
}

/* The parent with references, as an RCU walk's end takes them
 * (legitimize_path); -ECHILD: walk. */
int parent_single_ref(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
		      struct path *parent);

/*
 * Or, better, borrowed: a directory fd of a table only this thread uses
 * (fdget's light case) is the directory's file's own path, which nobody can
 * close until the table's single-thread section ends, so no reference is
 * taken.  The section lasts until parent_single_put, unless the call is
 * about to sleep on the directory's lock: then parent_unborrow (from
 * inode_lock_spin) takes the references and ends the section first, as
 * fd_unlight does before a pipe's sleep, so that no second thread's first
 * use of the table (fdtable.c's handshake) waits for a sleeper.
 * *borrowed is the table, or NULL for a parent with references.
 * parent_borrow is the calling thread's (namei.c).
 */
struct parent_borrow {
	struct files_struct *files; /* the section a borrow is in, or NULL */
	struct path *path;
};
extern __thread struct parent_borrow parent_borrow;

static __always_inline int parent_single_borrow(struct uvfs_proc *p, int dfd, const struct filename *name,
						unsigned flags, struct path *parent, struct files_struct **borrowed)
{
	struct files_struct *files = p->files;
	if (dfd >= 0 && parent_single_name(name, flags) && files_light_enter(files)) {
		struct fdtable *fdt = files->fdt;
		struct file *f = likely((unsigned)dfd < fdt->max_fds) ? *fdt_slot(fdt, dfd) : NULL;
		if (likely(slot_has_file(f) && (f->f_mode & FMODE_LIGHT)) && parent_single_dir(f->f_inode)) {
			*parent = f->f_path;
			*borrowed = files;
			parent_borrow.files = files;
			parent_borrow.path = parent;
			return 0;
		}
		files_light_exit(files);
	}
	*borrowed = NULL;
	return parent_single_ref(p, dfd, name, flags, parent);
}

/* a borrow that parent_unborrow turned into references ends as they do */
static __always_inline void parent_single_put(struct path *parent, struct files_struct *borrowed)
{
	if (borrowed && likely(parent_borrow.files)) {
		parent_borrow.files = NULL;
		files_light_exit(borrowed);
	} else {
		path_put(parent);
	}
}

static __always_inline void parent_single_last(const struct filename *name, struct qstr *last)
{
	last->name = name->name;
	last->len = name->len;
	last->hash = name->hash;
}

/* As filename_parentat, for a caller that ends with parent_put: a one-name
 * parent may be borrowed from the directory fd's file (*borrowed set, no
 * references; the table's single-thread section lasts until parent_put). */
static __always_inline int filename_parentat_borrow(struct uvfs_proc *p, int dfd, const struct filename *name,
						    unsigned flags, struct path *parent,
						    struct files_struct **borrowed, struct qstr *last, int *type)
{
	if (likely(!parent_single_borrow(p, dfd, name, flags, parent, borrowed))) {
		parent_single_last(name, last);
		*type = LAST_NORM;
		return 0;
	}
	return filename_parentat(p, dfd, name, flags, parent, last, type);
}

static __always_inline void parent_put(struct path *parent, struct files_struct *borrowed)
{
	parent_single_put(parent, borrowed);
}

/*
 * The walk of an O_CREAT open (open.c), as Linux's path_openat: fn is
 * called on the last component with the parent held: 0 with *res (the path
 * to open, referenced), 1 with *res a symlink to follow (mount and dentry
 * referenced), or -errno.  One name has no nameidata, unless it is a link
 * to follow, which the general walk (filename_open_walk_nd, namei.c) finds
 * again, with the root and the link stack the rest of its resolution
 * needs.  Inline, so that the caller's fn is called directly.
 */
typedef int (*open_last_fn)(const struct path *parent, const struct qstr *last, void *arg, struct path *res);
int filename_open_walk_nd(struct uvfs_proc *p, int dfd, const struct filename *name, unsigned flags,
			  open_last_fn fn, void *arg, struct path *out);
static __always_inline int filename_open_walk(struct uvfs_proc *p, int dfd, const struct filename *name,
					      unsigned flags, open_last_fn fn, void *arg, struct path *out)
{
	struct path parent, res;
	struct files_struct *borrowed;
	if (likely(!parent_single_borrow(p, dfd, name, flags, &parent, &borrowed))) {
		struct qstr last;
		parent_single_last(name, &last);
		int err = fn(&parent, &last, arg, &res);
		if (likely(err != 1)) {
			if (!err)
				*out = res;
			parent_single_put(&parent, borrowed);
			return err;
		}
		path_put(&res);
		parent_single_put(&parent, borrowed);
	}
	return filename_open_walk_nd(p, dfd, name, flags, fn, arg, out);
}

#endif
