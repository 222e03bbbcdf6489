/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The walk's fast path, inline: one name relative to a directory, resolved
 * in RCU mode without a nameidata, so that the callers that only read the
 * final inode (stat, readlink) run their work inline too. */
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

#endif
