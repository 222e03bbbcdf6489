// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr.c - attribute changes: chmod, chown, utimensat, truncate's size
 * change (Linux's fs/attr.c, fs/open.c's chmod/chown and fs/utimes.c).
 *
 * notify_change() is the one place attributes change: it checks what
 * setattr_prepare checks, in its order, and has the filesystem apply the
 * change (->setattr) with the inode's i_rwsem held exclusive.
 */
#include "vfs.h"
#include "attr.h"
#include "xattr.h"
#include "notify/fsnotify.h"
#include "pathcache.h"
#include <limits.h>


static bool chown_ok(const struct cred *c, const struct inode *inode, uid_t uid)
{
	if (c->fsuid == READ_ONCE(inode->i_uid) && uid == READ_ONCE(inode->i_uid))
		return true;
	return cred_is_root(c);
}

static bool chgrp_ok(const struct cred *c, const struct inode *inode, gid_t gid)
{
	if (c->fsuid == READ_ONCE(inode->i_uid) && (in_group_p(c, gid) || gid == READ_ONCE(inode->i_gid)))
		return true;
	return cred_is_root(c);
}

/* Linux's setattr_prepare. */
static int setattr_prepare(const struct cred *c, struct inode *inode, struct iattr *ia)
{
	unsigned v = ia->ia_valid;
	if (v & ATTR_SIZE) {
		if (ia->ia_size < 0)
			return -EINVAL;
	}
	if ((v & ATTR_UID) && !chown_ok(c, inode, ia->ia_uid))
		return -EPERM;
	if ((v & ATTR_GID) && !chgrp_ok(c, inode, ia->ia_gid))
		return -EPERM;
	if (v & ATTR_MODE) {
		if (!inode_owner_or_capable(c, inode))
			return -EPERM;
		gid_t gid = (v & ATTR_GID) ? ia->ia_gid : READ_ONCE(inode->i_gid);
		if (!in_group_p(c, gid) && !cred_is_root(c))
			ia->ia_mode &= ~S_ISGID;
	}
	if (v & (ATTR_MTIME_SET | ATTR_ATIME_SET | ATTR_TIMES_SET)) {
		if (!inode_owner_or_capable(c, inode))
			return -EPERM;
	}
	return 0;
}

/* Linux's may_setattr: what notify_change checks itself, before any
 * filesystem could refuse: an immutable or append-only inode keeps its
 * mode, owner and set times, an immutable one its times altogether;
 * "now" (utimensat with no times) asks for write access of a caller who
 * does not own the inode. */
static int may_setattr(const struct cred *c, struct inode *inode, unsigned v)
{
	if ((v & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_TIMES_SET)) && (IS_IMMUTABLE(inode) || IS_APPEND(inode)))
		return -EPERM;
	if (v & ATTR_TOUCH) {
		if (IS_IMMUTABLE(inode))
			return -EPERM;
		if (!inode_owner_or_capable(c, inode))
			return inode_permission(c, inode, MAY_WRITE);
	}
	return 0;
}

/* Linux's simple_setattr, for an inode that is all there is of the object
 * and has no data to resize (->setattr NULL). */
int simple_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	(void)d;
	if (setattr_resizes(inode, ia))
		return -EPERM;
	setattr_copy(inode, ia, false);
	return 0;
}

/*
 * Linux's notify_change: the checks (setattr_prepare's, in its order), then
 * the filesystem applies the change (->setattr, simple_setattr when NULL)
 * with i_rwsem held exclusive, then the VFS's own state (the ACL a chmod
 * rewrites, the walk's cached permission) and the notification.
 */
int notify_change(struct uvfs_proc *p, const struct cred *c, struct dentry *d, struct inode *inode,
		  struct iattr *ia)
{
	unsigned v = ia->ia_valid;
	int err = (v & ATTR_FORCE) ? 0 : may_setattr(c, inode, v);
	if (err)
		return err;
	if (unlikely(READ_ONCE(inode->i_flags) & S_NOATTR))
		return -EOPNOTSUPP;
	if ((v & ATTR_MODE) && S_ISLNK(READ_ONCE(inode->i_mode)))
		return -EOPNOTSUPP;
	down_write(&inode->i_rwsem);
	umode_t mode = inode->i_mode;
	if ((v & ATTR_KILL_SUID) && (mode & S_ISUID)) {
		v |= ATTR_MODE;
		ia->ia_mode = mode & ~S_ISUID;
	}
	if ((v & ATTR_KILL_SGID) && (mode & S_ISGID)) {
		if (!(v & ATTR_MODE)) {
			v |= ATTR_MODE;
			ia->ia_mode = mode;
		}
		ia->ia_mode &= ~S_ISGID;
	}
	ia->ia_valid = v;
	err = (v & ATTR_FORCE) ? 0 : setattr_prepare(c, inode, ia);
	struct posix_acl *acl = NULL;
	if (!err && (v & ATTR_SIZE) && !S_ISREG(READ_ONCE(inode->i_mode)))
		err = -EINVAL;
	if (!err && (v & ATTR_MODE))
		err = posix_acl_chmod_prepare(inode, ia->ia_mode, &acl);
	if (!err) {
		if (v & (ATTR_UID | ATTR_GID | ATTR_MODE))
			pathcache_perm_change(inode);
		err = inode_setattr(d, inode, ia);
	}
	if (err) {
		up_write(&inode->i_rwsem);
		free(acl);
		return err;
	}
	if (v & ATTR_MODE) {
		posix_acl_chmod_commit(inode, acl);
		inode_fastperm_changed(inode);
	}
	if (v & ATTR_KILL_PRIV)
		inode_killpriv(inode);
	if (v & (ATTR_UID | ATTR_GID | ATTR_MODE))
		pathcache_perm_change(inode);
	up_write(&inode->i_rwsem);
	fsnotify_change(p, d, v);
	return 0;
}

/* Linux's setattr_should_drop_sgid: a group-executable setgid bit, or one
 * whose group the caller is not in (and cannot override). */
unsigned should_drop_sgid(const struct cred *c, const struct inode *inode)
{
	umode_t mode = inode->i_mode;
	if (!(mode & S_ISGID))
		return 0;
	if (mode & S_IXGRP)
		return ATTR_KILL_SGID;
	if (!in_group_p(c, READ_ONCE(inode->i_gid)) && !cred_is_root(c))
		return ATTR_KILL_SGID;
	return 0;
}

/* setattr_should_drop_suidgid: what a write or truncate drops. */
unsigned should_remove_suid(const struct cred *c, const struct inode *inode)
{
	unsigned kill = (inode->i_mode & S_ISUID) ? ATTR_KILL_SUID : 0;
	kill |= should_drop_sgid(c, inode);
	if (kill && !cred_is_root(c) && S_ISREG(READ_ONCE(inode->i_mode)))
		return kill;
	return 0;
}

/* A write by a caller without CAP_FSETID drops setuid and setgid. */
void inode_kill_suid(struct inode *inode, const struct cred *c)
{
	down_write(&inode->i_rwsem);
	unsigned kill = should_remove_suid(c, inode);
	umode_t mode = inode->i_mode;
	if (kill & ATTR_KILL_SUID)
		mode &= ~S_ISUID;
	if (kill & ATTR_KILL_SGID)
		mode &= ~S_ISGID;
	if (mode != inode->i_mode) {
		/* through the filesystem, which may keep its own copy of the mode */
		struct iattr ia = { .ia_valid = ATTR_MODE | ATTR_CTIME | ATTR_FORCE, .ia_mode = mode };
		if (!inode_setattr(NULL, inode, &ia))
			inode_fastperm_changed(inode);
	}
	up_write(&inode->i_rwsem);
}

/* Pseudo files (pipes, inotify) have no mount in the tree: on Linux they sit
 * on internal mounts, which are never read-only. */
static int attr_want_write(const struct path *path)
{
	return path->mnt ? mnt_want_write(path->mnt) : 0;
}

/* ---- chmod ---- */

static int chmod_common(struct uvfs_proc *p, const struct path *path, mode_t mode)
{
	int err = attr_want_write(path);
	if (err)
		return err;
	struct inode *inode = path->dentry->d_inode;
	struct iattr ia = { .ia_valid = ATTR_MODE | ATTR_CTIME,
			    .ia_mode = (mode & S_IALLUGO) | (inode->i_mode & ~S_IALLUGO) };
	return notify_change(p, current_cred(), path->dentry, inode, &ia);
}

UVFS_API int uvfs_fchmod(struct uvfs_proc *p, int fd, mode_t mode)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err = chmod_common(p, &f->f_path, mode);
	fput(f);
	API_RETURN(err);
}

/* fchmodat2: EINVAL (flags); the walk's; EROFS; EOPNOTSUPP on a symlink;
 * EPERM for a non-owner. */
UVFS_API int uvfs_fchmodat(struct uvfs_proc *p, int dfd, const char *pathname, mode_t mode, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		API_RETURN(-EINVAL);
	struct path path;
	int err = user_path_at(p, dfd, pathname, at_lookup_flags(flags), &path);
	if (err)
		API_RETURN(err);
	err = chmod_common(p, &path, mode);
	path_put(&path);
	API_RETURN(err);
}

/* ---- chown ---- */

static int chown_common(struct uvfs_proc *p, const struct path *path, uid_t uid, gid_t gid)
{
	int err = attr_want_write(path);
	if (err)
		return err;
	struct inode *inode = path->dentry->d_inode;
	struct iattr ia = { .ia_valid = ATTR_CTIME };
	if (uid != (uid_t)-1) {
		ia.ia_valid |= ATTR_UID;
		ia.ia_uid = uid;
	}
	if (gid != (gid_t)-1) {
		ia.ia_valid |= ATTR_GID;
		ia.ia_gid = gid;
	}
	if (!S_ISDIR(READ_ONCE(inode->i_mode)))
		ia.ia_valid |= ATTR_KILL_SUID | ATTR_KILL_PRIV | should_drop_sgid(current_cred(), inode);
	return notify_change(p, current_cred(), path->dentry, inode, &ia);
}

UVFS_API int uvfs_fchown(struct uvfs_proc *p, int fd, uid_t uid, gid_t gid)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err = chown_common(p, &f->f_path, uid, gid);
	fput(f);
	API_RETURN(err);
}

UVFS_API int uvfs_fchownat(struct uvfs_proc *p, int dfd, const char *pathname, uid_t uid, gid_t gid, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		API_RETURN(-EINVAL);
	struct path path;
	int err = user_path_at(p, dfd, pathname, at_lookup_flags(flags), &path);
	if (err)
		API_RETURN(err);
	err = chown_common(p, &path, uid, gid);
	path_put(&path);
	API_RETURN(err);
}

/* ---- utimensat ---- */

static bool nsec_valid(long nsec)
{
	if (nsec == UTIME_OMIT || nsec == UTIME_NOW)
		return true;
	return nsec >= 0 && nsec <= 999999999;
}

static int utimes_common(struct uvfs_proc *p, const struct path *path, const struct timespec *times)
{
	int err = attr_want_write(path);
	if (err)
		return err;
	struct iattr ia = { .ia_valid = ATTR_CTIME | ATTR_MTIME | ATTR_ATIME };
	if (times) {
		if (times[0].tv_nsec == UTIME_OMIT)
			ia.ia_valid &= ~ATTR_ATIME;
		if (times[1].tv_nsec == UTIME_OMIT)
			ia.ia_valid &= ~ATTR_MTIME;
		if (times[0].tv_nsec != UTIME_NOW) {
			ia.ia_atime = times[0];
			ia.ia_valid |= ATTR_ATIME_SET;
		}
		if (times[1].tv_nsec != UTIME_NOW) {
			ia.ia_mtime = times[1];
			ia.ia_valid |= ATTR_MTIME_SET;
		}
		ia.ia_valid |= ATTR_TIMES_SET;
	} else {
		ia.ia_valid |= ATTR_TOUCH;
	}
	return notify_change(p, current_cred(), path->dentry, path->dentry->d_inode, &ia);
}

/*
 * utimensat: EINVAL (bad nsec, flags); both UTIME_NOW is as times NULL;
 * both UTIME_OMIT changes nothing; a NULL path acts on dirfd (EINVAL with
 * AT_SYMLINK_NOFOLLOW, EBADF for O_PATH); the walk's; EROFS; EPERM for
 * explicit times by a non-owner; EACCES for "now" without write access.
 */
UVFS_API int uvfs_utimensat(struct uvfs_proc *p, int dfd, const char *pathname, const struct timespec times[2],
			    int flags)
{
	API_ENTER_PROC(p);
	struct timespec ts[2];
	const struct timespec *t = NULL;
	if (times) {
		ts[0] = times[0];
		ts[1] = times[1];
		if (!nsec_valid(ts[0].tv_nsec) || !nsec_valid(ts[1].tv_nsec))
			API_RETURN(-EINVAL);
		if (ts[0].tv_nsec == UTIME_NOW && ts[1].tv_nsec == UTIME_NOW)
			t = NULL;
		else
			t = ts;
	}
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		API_RETURN(-EINVAL);
	if (t && t[0].tv_nsec == UTIME_OMIT && t[1].tv_nsec == UTIME_OMIT) {
		/* nothing to change, though the arguments are still checked */
	}
	if (!pathname && dfd != AT_FDCWD) {
		if (flags & AT_SYMLINK_NOFOLLOW)
			API_RETURN(-EINVAL);
		struct file *f = fget(p, dfd);
		if (!f)
			API_RETURN(-EBADF);
		int err = 0;
		if (!(t && t[0].tv_nsec == UTIME_OMIT && t[1].tv_nsec == UTIME_OMIT))
			err = utimes_common(p, &f->f_path, t);
		fput(f);
		API_RETURN(err);
	}
	struct path path;
	int err = user_path_at(p, dfd, pathname, at_lookup_flags(flags), &path);
	if (err)
		API_RETURN(err);
	if (!(t && t[0].tv_nsec == UTIME_OMIT && t[1].tv_nsec == UTIME_OMIT))
		err = utimes_common(p, &path, t);
	path_put(&path);
	API_RETURN(err);
}
