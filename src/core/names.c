// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * names.c - operations on names: mkdir, mknod, symlink, link, unlink, rmdir,
 * rename, readlink (the second half of Linux's fs/namei.c).
 *
 * Each operation checks its errors in the order Linux does; the comment
 * above each entry point lists them.
 */
#include "vfs.h"
#include "xattr.h"
#include "namei.h"
#include "notify/fsnotify.h"
#include <limits.h>

/* May a name be created in dir?  (Linux's may_create) */
static int may_create(const struct cred *c, struct inode *dir, struct dentry *child)
{
	if (child->d_inode)
		return -EEXIST;
	if (READ_ONCE(dir->i_flags) & S_DEAD_DIR)
		return -ENOENT;
	return inode_permission(c, dir, MAY_WRITE | MAY_EXEC);
}

static inline bool has_trailing_slash(const struct qstr *last)
{
	return last->name[last->len] == '/';
}

static inline bool is_mountpoint(struct dentry *d)
{
	return READ_ONCE(d->d_flags) & DCACHE_MOUNTED;
}

/*
 * Linux's filename_create: the parent, locked, and a negative dentry for the
 * last component.  Errors in order: the parent walk's; EEXIST for ".", ".."
 * or "/"; ENOENT in a removed directory (unless the name is cached); EEXIST
 * when the name exists; ENOENT for "name/" unless a directory is made; EROFS.
 */
static struct dentry *filename_create(struct uvfs_proc *p, int dfd, const struct filename *name,
				      struct path *path, bool want_dir, int *errp)
{
	struct qstr last;
	int type;
	int err = filename_parentat(p, dfd, name, 0, path, &last, &type);
	if (err) {
		*errp = err;
		return NULL;
	}
	if (type != LAST_NORM) {
		*errp = -EEXIST;
		goto put;
	}
	int err2 = mnt_want_write(path->mnt);
	bool create = !(has_trailing_slash(&last) && !want_dir);
	struct inode *dir = path->dentry->d_inode;
	inode_lock_spin(&dir->i_rwsem);
	if (unlikely(READ_ONCE(dir->i_flags) & S_DEAD_DIR)) {
		/* Linux's lookup_one_qstr_excl makes no child of a removed
		 * directory: ENOENT here, before linkat's EXDEV, unless the
		 * name is cached already */
		struct dentry *c = d_lookup_locked(path->dentry, &last);
		if (!c) {
			*errp = -ENOENT;
			goto unlock;
		}
		dput(c);
	}
	struct dentry *d = d_lookup_or_alloc_create(path->dentry, &last, errp);
	if (!d)
		goto unlock;
	if (d->d_inode) {
		*errp = -EEXIST;
		goto fail;
	}
	if (!create) {
		*errp = -ENOENT;
		goto fail;
	}
	if (err2) {
		*errp = err2;
		goto fail;
	}
	return d;
fail:
	dput(d);
unlock:
	up_write(&dir->i_rwsem);
put:
	path_put(path);
	return NULL;
}

static void done_path_create(struct path *path, struct dentry *d)
{
	dput(d);
	up_write(&path->dentry->d_inode->i_rwsem);
	path_put(path);
}

static inline mode_t current_umask(struct uvfs_proc *p) { return READ_ONCE(p->fs->umask); }

/* mkdirat: EEXIST, ENOENT (dead parent), EACCES, the filesystem's (ENOSPC). */
UVFS_API int uvfs_mkdirat(struct uvfs_proc *p, int dfd, const char *pathname, mode_t mode)
{
	API_ENTER_PROC(p);
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	struct dentry *d = filename_create(p, dfd, &name, &path, true, &err);
	if (!d)
		API_RETURN(err);
	struct inode *dir = path.dentry->d_inode;
	mode = vfs_prepare_mode(dir, mode, current_umask(p), current_cred()) & (S_IRWXUGO | S_ISVTX);
	err = may_create(current_cred(), dir, d);
	if (!err)
		err = dir->i_op->mkdir ? dir->i_op->mkdir(dir, d, mode, current_cred()) : -EPERM;
	if (!err)
		fsnotify_mkdir(p, dir, d);
	done_path_create(&path, d);
	API_RETURN(err);
}

/* mknodat: EPERM for S_IFDIR, EINVAL for unknown types (before the walk);
 * then as mkdirat, and EPERM for devices without CAP_MKNOD. */
UVFS_API int uvfs_mknodat(struct uvfs_proc *p, int dfd, const char *pathname, mode_t mode, dev_t dev)
{
	API_ENTER_PROC(p);
	switch (mode & S_IFMT) {
	case S_IFREG: case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK: case 0:
		break;
	case S_IFDIR:
		API_RETURN(-EPERM);
	default:
		API_RETURN(-EINVAL);
	}
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	struct dentry *d = filename_create(p, dfd, &name, &path, false, &err);
	if (!d)
		API_RETURN(err);
	struct inode *dir = path.dentry->d_inode;
	umode_t type = mode & S_IFMT;
	mode = (vfs_prepare_mode(dir, mode & ~S_IFMT, current_umask(p), current_cred()) & (S_IALLUGO)) | (type ? type : S_IFREG);
	err = may_create(current_cred(), dir, d);
	/* a whiteout (char 0:0) needs no CAP_MKNOD */
	bool whiteout = S_ISCHR(mode) && dev == 0;
	if (!err && (S_ISCHR(mode) || S_ISBLK(mode)) && !whiteout && !cred_is_root(current_cred()))
		err = -EPERM;
	if (!err) {
		if (S_ISREG(mode))
			err = dir->i_op->create ? dir->i_op->create(dir, d, mode, current_cred()) : -EACCES;
		else
			err = dir->i_op->mknod ? dir->i_op->mknod(dir, d, mode,
								  (S_ISCHR(mode) || S_ISBLK(mode)) ? dev : 0,
								  current_cred())
					       : -EPERM;
		if (!err)
			fsnotify_create(p, dir, d);
	}
	done_path_create(&path, d);
	API_RETURN(err);
}

/* symlinkat: ENOENT for an empty target; then as mkdirat (no umask). */
UVFS_API int uvfs_symlinkat(struct uvfs_proc *p, const char *target, int dfd, const char *linkpath)
{
	API_ENTER_PROC(p);
	struct filename from, name;
	int err = getname(target, &from, 0);
	if (err)
		API_RETURN(err);
	err = getname(linkpath, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	struct dentry *d = filename_create(p, dfd, &name, &path, false, &err);
	if (!d)
		API_RETURN(err);
	struct inode *dir = path.dentry->d_inode;
	err = may_create(current_cred(), dir, d);
	if (!err)
		err = dir->i_op->symlink ? dir->i_op->symlink(dir, d, from.name, current_cred()) : -EPERM;
	if (!err)
		fsnotify_create(p, dir, d);
	done_path_create(&path, d);
	API_RETURN(err);
}

/* fs.protected_hardlinks, on by default: a caller that does not own the
 * inode may link only a regular, non-setuid file it can read and write. */
static int may_linkat(const struct cred *c, struct inode *inode)
{
	if (inode_owner_or_capable(c, inode))
		return 0;
	umode_t mode = inode->i_mode;
	if (S_ISREG(mode) && !(mode & S_ISUID) && !((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)) &&
	    generic_permission(c, inode, MAY_READ | MAY_WRITE) == 0)
		return 0;
	return -EPERM;
}

/*
 * linkat: EINVAL for unknown flags; ENOENT for AT_EMPTY_PATH without
 * privilege; the old walk's errors; the new name's (EEXIST, ...); EXDEV
 * across mounts; EPERM (protected_hardlinks); EACCES; EPERM for directories;
 * ENOENT for an inode with no link left (unless O_TMPFILE made it linkable).
 */
UVFS_API int uvfs_linkat(struct uvfs_proc *p, int olddfd, const char *oldpath, int newdfd, const char *newpath,
			 int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		API_RETURN(-EINVAL);
	unsigned how = 0;
	if (flags & AT_EMPTY_PATH)
		how |= LOOKUP_EMPTY;
	if (flags & AT_SYMLINK_FOLLOW)
		how |= LOOKUP_FOLLOW;
	struct filename oldname, newname;
	int err = getname(oldpath, &oldname, how);
	if (err)
		API_RETURN(err);
	if ((flags & AT_EMPTY_PATH) && oldname.name[0] != '/' && !cred_is_root(current_cred()) && olddfd != AT_FDCWD) {
		/* Linux 6.10: a walk that starts at the fd (any relative name,
		 * not only the empty one) needs a file opened with the caller's
		 * credentials; the cwd (AT_FDCWD) is not checked at all */
		struct file *f = fget_raw(p, olddfd);
		bool same = f && f->f_cred->fsuid == current_cred()->fsuid && f->f_cred->fsgid == current_cred()->fsgid;
		if (f)
			fput(f);
		if (!same)
			API_RETURN(f ? -ENOENT : -EBADF);
	}
	struct path old_path;
	err = filename_lookup(p, olddfd, &oldname, how, &old_path);
	if (err)
		API_RETURN(err);
	err = getname(newpath, &newname, 0);
	if (err) {
		path_put(&old_path);
		API_RETURN(err);
	}
	struct path new_path;
	struct dentry *d = filename_create(p, newdfd, &newname, &new_path, false, &err);
	if (!d) {
		path_put(&old_path);
		API_RETURN(err);
	}
	struct inode *dir = new_path.dentry->d_inode;
	struct inode *inode = old_path.dentry->d_inode;
	if (old_path.mnt != new_path.mnt)
		err = -EXDEV;
	else if ((err = may_linkat(current_cred(), inode)) != 0)
		;
	else if ((err = may_create(current_cred(), dir, d)) != 0)
		;
	else if (dir->i_sb != inode->i_sb)
		err = -EXDEV;
	else if (IS_APPEND(inode) || IS_IMMUTABLE(inode))
		err = -EPERM;
	else if (!dir->i_op->link)
		err = -EPERM;
	else if (S_ISDIR(READ_ONCE(inode->i_mode)))
		err = -EPERM;
	else {
		down_write(&inode->i_rwsem);
		if (READ_ONCE(inode->i_nlink) == 0 && !(inode->i_flags & S_LINKABLE))
			err = -ENOENT;
		else {
			err = dir->i_op->link(old_path.dentry, dir, d);
			if (!err && (inode->i_flags & S_LINKABLE) && READ_ONCE(inode->i_nlink) == 1)
				inode_flags_clear(inode, S_LINKABLE);
			if (!err)
				fsnotify_link(p, dir, inode, d);
		}
		up_write(&inode->i_rwsem);
	}
	done_path_create(&new_path, d);
	path_put(&old_path);
	API_RETURN(err);
}

/*
 * unlinkat: EINVAL for unknown flags; the parent walk's; EISDIR for ".",
 * ".." and "/"; EROFS; ENOENT / EISDIR / ENOTDIR for "name/"; then
 * may_delete (ENOENT, EACCES, EPERM sticky, EISDIR); EBUSY on a mountpoint.
 * With AT_REMOVEDIR, as rmdir.
 */
static int do_rmdir(struct uvfs_proc *p, int dfd, const struct filename *name);

UVFS_API int uvfs_unlinkat(struct uvfs_proc *p, int dfd, const char *pathname, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~AT_REMOVEDIR)
		API_RETURN(-EINVAL);
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	if (flags & AT_REMOVEDIR)
		API_RETURN(do_rmdir(p, dfd, &name));
	struct path path;
	struct files_struct *borrowed;
	struct qstr last;
	int type;
	err = filename_parentat_borrow(p, dfd, &name, 0, &path, &borrowed, &last, &type);
	if (err)
		API_RETURN(err);
	if (type != LAST_NORM) {
		err = -EISDIR;
		goto out;
	}
	err = __mnt_want_write(path.mnt);
	if (err)
		goto out;
	struct inode *dir = path.dentry->d_inode;
	inode_lock_spin(&dir->i_rwsem);
	struct dentry *d = __d_lookup_or_alloc(path.dentry, &last, &err, true);
	if (d) {
		if (has_trailing_slash(&last))
			err = !d->d_inode ? -ENOENT : S_ISDIR(READ_ONCE(d->d_inode->i_mode)) ? -EISDIR : -ENOTDIR;
		else if ((err = __may_delete(current_cred(), dir, d, false)) != 0)
			;
		else if (is_mountpoint(d))
			err = -EBUSY;
		else {
			struct inode *inode = d->d_inode;
			/* the victim's lock orders this against links and unlinks
			 * of the same inode in other directories (vfs_unlink) */
			inode_lock_spin(&inode->i_rwsem);
			err = dir->i_op->unlink ? dir->i_op->unlink(dir, d) : -EPERM;
			up_write(&inode->i_rwsem);
			if (!err)
				fsnotify_unlink(p, dir, d, inode);
		}
		if (!err) {
			RACE_POINT("unlink:removed");
			d_delete_put(d); /* the name leaves the dcache */
		} else {
			dput(d);
		}
	}
	up_write(&dir->i_rwsem);
out:
	parent_put(&path, borrowed);
	API_RETURN(err);
}

/* rmdir: ENOTEMPTY for "..", EINVAL for ".", EBUSY for "/"; EROFS; ENOENT;
 * may_delete (ENOTDIR, EBUSY for a root); EBUSY on a mountpoint; ENOTEMPTY. */
static int do_rmdir(struct uvfs_proc *p, int dfd, const struct filename *name)
{
	struct path path;
	struct qstr last;
	int type;
	int err = filename_parentat(p, dfd, name, 0, &path, &last, &type);
	if (err)
		return err;
	switch (type) {
	case LAST_DOTDOT: err = -ENOTEMPTY; goto out;
	case LAST_DOT: err = -EINVAL; goto out;
	case LAST_ROOT: err = -EBUSY; goto out;
	}
	err = mnt_want_write(path.mnt);
	if (err)
		goto out;
	struct inode *dir = path.dentry->d_inode;
	inode_lock_spin(&dir->i_rwsem);
	struct dentry *d = d_lookup_or_alloc(path.dentry, &last, &err);
	if (d) {
		if (!d->d_inode)
			err = -ENOENT;
		else if ((err = may_delete(current_cred(), dir, d, true)) != 0)
			;
		else if (is_mountpoint(d))
			err = -EBUSY;
		else {
			struct inode *inode = d->d_inode;
			inode_lock_spin(&inode->i_rwsem);
			err = dir->i_op->rmdir ? dir->i_op->rmdir(dir, d) : -EPERM;
			up_write(&inode->i_rwsem);
			if (!err)
				fsnotify_rmdir(p, dir, d, inode);
		}
		dput(d);
	}
	up_write(&dir->i_rwsem);
out:
	path_put(&path);
	return err;
}

/*
 * renameat2, errors in Linux's order: EINVAL (flags); the two parent walks;
 * EXDEV (different mounts); EBUSY ("." / ".." / "/" either side); EROFS;
 * ENOENT (no source); EEXIST (NOREPLACE); ENOENT / ENOTDIR (EXCHANGE target);
 * ENOTDIR (trailing slash on a non-directory); EINVAL (source is an
 * ancestor of the target); ENOTEMPTY (target an ancestor of the source);
 * then may_delete / may_create, EACCES on moving a directory between
 * parents without write access to it, EBUSY on mountpoints, ENOTEMPTY.
 */
UVFS_API int uvfs_renameat2(struct uvfs_proc *p, int olddfd, const char *oldpath, int newdfd, const char *newpath,
			    unsigned flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		API_RETURN(-EINVAL);
	if ((flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)) && (flags & RENAME_EXCHANGE))
		API_RETURN(-EINVAL);
	struct filename from, to;
	int err = getname(oldpath, &from, 0);
	if (err)
		API_RETURN(err);
	/* a bad new name (ENOENT for "") counts only after the old walk */
	int to_err = getname(newpath, &to, 0);
	struct path old_path, new_path;
	struct qstr old_last, new_last;
	int old_type, new_type;
	err = filename_parentat(p, olddfd, &from, 0, &old_path, &old_last, &old_type);
	if (err)
		API_RETURN(err);
	err = to_err ? to_err : filename_parentat(p, newdfd, &to, 0, &new_path, &new_last, &new_type);
	if (err)
		goto put_old;
	err = -EXDEV;
	if (old_path.mnt != new_path.mnt)
		goto put_new;
	err = -EBUSY;
	if (old_type != LAST_NORM)
		goto put_new;
	/* RENAME_NOREPLACE onto "." or "..": they exist */
	if (flags & RENAME_NOREPLACE)
		err = -EEXIST;
	if (new_type != LAST_NORM)
		goto put_new;
	err = mnt_want_write(old_path.mnt);
	if (err)
		goto put_new;

	struct uvfs *vfs = p->vfs;
	struct dentry *trap;
	struct inode *odir = old_path.dentry->d_inode, *ndir = new_path.dentry->d_inode;
	lock_rename(new_path.dentry, old_path.dentry, &trap);
	/* Linux's order: the old name's lookup, ENOENT, then the new one's */
	struct dentry *nd = NULL, *od = d_lookup_or_alloc(old_path.dentry, &old_last, &err);
	if (!od)
		goto unlock;
	err = -ENOENT;
	if (!od->d_inode)
		goto unlock;
	/* a missing new name is not cached negative first: d_move would
	 * only unhash it again (as for a create, d_lookup_or_alloc_create) */
	nd = d_lookup_or_alloc_create(new_path.dentry, &new_last, &err);
	if (!nd)
		goto unlock;
	/* Linux's lookup_one_qstr_excl makes no child of a removed directory:
	 * ENOENT before the permission checks of vfs_rename */
	err = -ENOENT;
	if (!nd->d_inode && (READ_ONCE(ndir->i_flags) & S_DEAD_DIR))
		goto unlock;
	err = -EEXIST;
	if ((flags & RENAME_NOREPLACE) && nd->d_inode)
		goto unlock;
	if (flags & RENAME_EXCHANGE) {
		err = -ENOENT;
		if (!nd->d_inode)
			goto unlock;
		err = -ENOTDIR;
		if (!S_ISDIR(READ_ONCE(nd->d_inode->i_mode)) && has_trailing_slash(&new_last))
			goto unlock;
	}
	struct inode *source = od->d_inode, *target = nd->d_inode;
	bool is_dir = S_ISDIR(READ_ONCE(source->i_mode));
	if (!is_dir) {
		err = -ENOTDIR;
		if (has_trailing_slash(&old_last))
			goto unlock;
		if (!(flags & RENAME_EXCHANGE) && has_trailing_slash(&new_last))
			goto unlock;
	}
	err = -EINVAL;
	if (od == trap)
		goto unlock;
	if (!(flags & RENAME_EXCHANGE))
		err = -ENOTEMPTY;
	if (nd == trap)
		goto unlock;

	/* vfs_rename */
	err = 0;
	if (source == target)
		goto unlock;
	const struct super_operations *sop = odir->i_sb->s_op;
	if (target && unlikely(sop->real_inode) && sop->real_inode(source) == sop->real_inode(target))
		goto unlock;
	err = may_delete(current_cred(), odir, od, is_dir);
	if (err)
		goto unlock;
	bool new_is_dir = target && S_ISDIR(READ_ONCE(target->i_mode));
	if (!target)
		err = may_create(current_cred(), ndir, nd);
	else
		err = may_delete(current_cred(), ndir, nd, (flags & RENAME_EXCHANGE) ? new_is_dir : is_dir);
	if (err)
		goto unlock;
	if (!odir->i_op->rename) {
		err = -EPERM;
		goto unlock;
	}
	if (ndir != odir) {
		if (is_dir && (err = inode_permission(current_cred(), source, MAY_WRITE)) != 0)
			goto unlock;
		if ((flags & RENAME_EXCHANGE) && new_is_dir &&
		    (err = inode_permission(current_cred(), target, MAY_WRITE)) != 0)
			goto unlock;
	}
	err = -EBUSY;
	if (is_mountpoint(od) || is_mountpoint(nd))
		goto unlock;
	/* the source's name before the move, for IN_MOVED_FROM */
	char old_name[NAME_MAX + 1];
	unsigned old_len = 0;
	if (fsnotify_rename_wanted(odir->i_sb)) {
		old_len = od->d_name->len;
		memcpy(old_name, od->d_name->name, old_len);
	}
	if (target)
		down_write(&target->i_rwsem);
	pthread_mutex_lock(&vfs->seq_lock);
	write_seqcount_begin(&vfs->rename_seq);
	err = odir->i_op->rename(odir, od, ndir, nd, flags, current_cred());
	write_seqcount_end(&vfs->rename_seq);
	pthread_mutex_unlock(&vfs->seq_lock);
	if (target)
		up_write(&target->i_rwsem);
	if (!err && old_len) {
		/* Linux's vfs_rename: the target's link count only when it is
		 * replaced; an exchange is two moves */
		fsnotify_move(odir, ndir, old_name, old_len, is_dir, (flags & RENAME_EXCHANGE) ? NULL : target, od);
		if (flags & RENAME_EXCHANGE)
			fsnotify_move(ndir, odir, od->d_name->name, od->d_name->len, new_is_dir, NULL, nd);
		fsnotify_rename(p, odir, ndir, old_name, old_len, od, target, flags);
	}
unlock:
	if (nd)
		dput(nd);
	if (od)
		dput(od);
	unlock_rename(new_path.dentry, old_path.dentry);
put_new:
	path_put(&new_path);
put_old:
	path_put(&old_path);
	API_RETURN(err);
}

/* ---- readlink ---- */

struct readlink_args {
	char *buf;
	size_t size;
	bool empty;
};

/*
 * The body is cached with its length in the inode (seed 004): copy by
 * length.  The baseline build measures it with strlen, as Linux did before.
 */
/* A link whose filesystem did not cache its body: asked for it (once). */
static __cold long readlink_get_link(struct inode *inode, struct mount *m, struct readlink_args *a)
{
	inode_touch_atime(inode, m); /* before m may go */
	int left = lookup_fn_leave_rcu(inode);
	if (left < 0)
		return -ENOENT; /* unlinked and going: no body to ask for */
	int err = 0;
	const char *link = inode_get_link(inode, &err);
	long ret = err;
	if (link) {
		size_t len = inode->i_linklen;
		if (len > a->size)
			len = a->size;
		memcpy(a->buf, link, len);
		ret = (long)len;
	}
	if (left)
		lookup_fn_enter_rcu(inode);
	return ret;
}

static __always_inline long readlink_fn(struct inode *inode, struct dentry *d, struct mount *m, void *arg)
{
	struct readlink_args *a = arg;
	if (!S_ISLNK(READ_ONCE(inode->i_mode)))
		return a->empty ? -ENOENT : -EINVAL;
	/* acquire: i_linklen is stored before a body ->get_link cached */
	const char *link = smp_load_acquire(&inode->i_link);
	if (unlikely(!link))
		return readlink_get_link(inode, m, a);
#ifndef UVFS_BASELINE_CACHED_LINK
	size_t len = inode->i_linklen;
#else
	size_t len = strlen(link);
#endif
	if (len > a->size)
		len = a->size;
	memcpy(a->buf, link, len);
	inode_touch_atime(inode, m);
	return (long)len;
}

/* readlinkat: EINVAL for bufsiz <= 0; the walk's; EINVAL when not a link
 * (ENOENT for an empty path). */
UVFS_API ssize_t uvfs_readlinkat(struct uvfs_proc *p, int dfd, const char *pathname, char *buf, size_t bufsiz)
{
	API_ENTER_PROC(p);
	/* the system call takes an int */
	if ((int)bufsiz <= 0)
		API_RETURN(-EINVAL);
	bufsiz = (size_t)(int)bufsiz;
	struct filename name;
	int err = getname(pathname, &name, LOOKUP_EMPTY);
	if (err)
		API_RETURN(err);
	if (!buf)
		API_RETURN(-EFAULT);
	struct readlink_args a = { buf, bufsiz, name.len == 0 };
	API_RETURN(filename_lookup_fn_inline(p, dfd, &name, LOOKUP_EMPTY, readlink_fn, &a));
}
