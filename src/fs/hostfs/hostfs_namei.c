// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_namei.c - hostfs's names: lookup, create, mkdir, mknod, symlink,
 * O_TMPFILE, link, unlink, rmdir, rename, symlink bodies, and
 * cache=revalidate's d_revalidate.
 *
 * Each is one host call with one name relative to the O_PATH fd of the
 * directory it acts in (hostfs_node.c), or on the object's own fd with
 * AT_EMPTY_PATH; the dcache then changes as tmpfs's does.  Called with the
 * directories' i_rwsem held as vfs.h says.
 */
#include "hostfs.h"
#include "core/xattr.h"
#include <sys/syscall.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* ---- namespace ---- */

/* The object called name in the directory dfd, as an O_PATH fd, with its
 * attributes and chattr flags (hostfs_stat_fd); -ENOENT if there is none. */
static int host_lookup(struct hostfs_sb *hsb, int dfd, const char *name, struct stat *st, unsigned *fsflags)
{
	int fd = hostfs_open_beneath(hsb, dfd, name);
	if (fd < 0)
		return fd;
	int err = hostfs_stat_fd(fd, st, fsflags, NULL);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int hostfs_lookup(struct inode *dir, struct dentry *d, unsigned flags)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	struct hnode *dhn = HN(dir);
	/* a name the listing in memory does not have (tar -x, a compiler's
	 * include path): negative without asking the host */
	if (hostfs_dir_absent(dir, d->d_name->name, d->d_name->len)) {
		d_set_flags(d, DCACHE_NEGATIVE_FINAL);
		return 0;
	}
	int dfd = hostfs_fd_get(hsb, dhn);
	if (dfd < 0)
		return dfd;
	struct stat st;
	unsigned fsflags;
	int fd = host_lookup(hsb, dfd, d->d_name->name, &st, &fsflags);
	int err = 0;
	if (fd >= 0) {
		struct inode *inode = hostfs_iget(dir->i_sb, fd, &st, fsflags, dhn, d->d_name->name, true, &err);
		if (inode)
			d_instantiate(d, inode);
	} else if (fd != -ENOENT) {
		err = fd; /* EXDEV: a host mount inside the source is not crossed */
	} else if (hsb->cache == HOSTFS_CACHE_EXCLUSIVE) {
		d_set_flags(d, DCACHE_NEGATIVE_FINAL); /* no name appears behind uvfs */
	}
	hostfs_fd_put(hsb, dhn);
	return err;
}

/* A name uvfs just made (d instantiated): into the hash, or, if it was
 * cached negative, moved among the positive children (d_link_child, which
 * also pins it as tmpfs's are until the name goes). */
static void hostfs_d_added(struct dentry *d)
{
	if (d_unhashed(d))
		d_add_hashed(d);
	else
		d_link_child(d);
}

/*
 * A new object's owner and mode as uvfs gives them (inode_init_owner: the
 * caller's fs ids, the directory's group if it is setgid), set on the host
 * object fd where the host's differ (its umask, the library's own ids).
 * chown first: it drops set-id bits that the chmod puts back.  *st is
 * refreshed.  chown only takes as root (a FUSE passthrough's rule).
 */
static int host_set_owner(int fd, struct inode *dir, umode_t mode, const struct cred *c, struct stat *st,
			  bool as_root)
{
	struct inode want;
	want.i_mode = 0;
	inode_init_owner(&want, dir, mode, c);
	if ((want.i_uid != st->st_uid || want.i_gid != st->st_gid) && as_root) {
		if (fchownat(fd, "", want.i_uid, want.i_gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) || fstat(fd, st))
			return -1;
	}
	/* below a default ACL the host made the mode from it, as uvfs would */
	if (!S_ISLNK(mode) && !READ_ONCE(dir->i_default_acl) &&
	    (st->st_mode & S_IALLUGO) != (want.i_mode & S_IALLUGO)) {
		if (syscall(SYS_fchmodat2, fd, "", want.i_mode & S_IALLUGO, AT_EMPTY_PATH) || fstat(fd, st))
			return -1;
	}
	return 0;
}

/*
 * The object just made as name in dir (dfd): the inode takes it and d its
 * name.  Its owner and mode are what uvfs gives a new object (the caller's
 * fs ids, the directory's group if setgid, the mode as asked, whatever the
 * host's umask did), set on the host: chown only takes as root.
 */
static int hostfs_new(struct inode *dir, int dfd, struct dentry *d, umode_t mode, const struct cred *c)
{
	struct super_block *sb = dir->i_sb;
	struct hostfs_sb *hsb = HOSTFS_SB(sb);
	const char *name = d->d_name->name;
	struct stat st;
	unsigned fsflags; /* a new object's: the ones the host's directory gave it */
	int fd = host_lookup(hsb, dfd, name, &st, &fsflags);
	if (fd < 0)
		return fd;
	if (host_set_owner(fd, dir, mode, c, &st, hsb->as_root))
		goto fail;
	int err;
	bool acls = READ_ONCE(dir->i_default_acl) != NULL;
	struct inode *inode = hostfs_iget(sb, fd, &st, fsflags, HN(dir), name, acls, &err);
	if (!inode)
		return err;
	hostfs_xattr_new(inode);
	d_instantiate(d, inode);
	hostfs_d_added(d);
	hostfs_dir_add(dir, name, d->d_name->len, inode->i_ino, READ_ONCE(inode->i_mode));
	if (S_ISDIR(mode))
		hostfs_dir_new(inode);
	hostfs_refresh(dir);
	return 0;
fail:
	err = -errno;
	close(fd);
	unlinkat(dfd, name, S_ISDIR(mode) ? AT_REMOVEDIR : 0);
	return err;
}

int hostfs_mknod(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	int dfd = hostfs_fd_get(hsb, HN(dir));
	if (dfd < 0)
		return dfd;
	const char *name = d->d_name->name;
	int err = 0;
	switch (mode & S_IFMT) {
	case S_IFDIR:
		err = mkdirat(dfd, name, mode & 07777) ? -errno : 0;
		break;
	default:
		/* a regular file too: the host's mknod makes it as open's
		 * O_CREAT|O_EXCL would (vfs_create), without an open file */
		err = mknodat(dfd, name, mode & (S_IFMT | 07777), dev) ? -errno : 0;
		break;
	}
	if (!err && (err = hostfs_new(dir, dfd, d, mode, c)))
		hostfs_dir_listing_invalidate(dir); /* whether the name stayed */
	hostfs_fd_put(hsb, HN(dir));
	return err;
}

/* O_TMPFILE on the host (linkable: the VFS keeps O_EXCL's rule).  The node
 * has no name until a link gives it one, so its fd is never given up. */
int hostfs_tmpfile(struct inode *dir, struct inode **out, umode_t mode, const struct cred *c)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	int dfd = hostfs_fd_get(hsb, HN(dir));
	if (dfd < 0)
		return dfd;
	int err = 0;
	int tfd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode & 07777);
	hostfs_fd_put(hsb, HN(dir));
	if (tfd < 0)
		return -errno;
	struct stat st;
	int fd = -1;
	char path[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", tfd);
	if (fstat(tfd, &st) || host_set_owner(tfd, dir, (mode & ~S_IFMT) | S_IFREG, c, &st, hsb->as_root) ||
	    (fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		err = -errno;
	close(tfd);
	if (err)
		return err;
	bool acls = READ_ONCE(dir->i_default_acl) != NULL;
	struct inode *inode = hostfs_iget(dir->i_sb, fd, &st, 0, NULL, NULL, acls, &err);
	if (!inode)
		return err;
	hostfs_xattr_new(inode);
	*out = inode;
	return 0;
}

int hostfs_create(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	return hostfs_mknod(dir, d, (mode & ~S_IFMT) | S_IFREG, 0, c);
}

int hostfs_mkdir(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	return hostfs_mknod(dir, d, (mode & ~S_IFMT) | S_IFDIR, 0, c);
}

int hostfs_symlink(struct inode *dir, struct dentry *d, const char *target, const struct cred *c)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	int dfd = hostfs_fd_get(hsb, HN(dir));
	if (dfd < 0)
		return dfd;
	int err = symlinkat(target, dfd, d->d_name->name) ? -errno : 0;
	if (!err && (err = hostfs_new(dir, dfd, d, S_IFLNK | 0777, c)))
		hostfs_dir_listing_invalidate(dir);
	hostfs_fd_put(hsb, HN(dir));
	return err;
}

int hostfs_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	struct inode *inode = old->d_inode;
	int dfd = hostfs_fd_get(hsb, HN(dir));
	if (dfd < 0)
		return dfd;
	int ofd = hostfs_fd_get(hsb, HN(inode));
	int err = ofd;
	if (ofd >= 0) {
		/* the object itself, not a name that may have changed: needs
		 * CAP_DAC_READ_SEARCH; otherwise the old dentry's name */
		err = linkat(ofd, "", dfd, d->d_name->name, AT_EMPTY_PATH) ? -errno : 0;
		hostfs_fd_put(hsb, HN(inode));
		if (err == -ENOENT && !hsb->as_root) {
			struct inode *odir = old->d_parent->d_inode;
			int pfd = hostfs_fd_get(hsb, HN(odir));
			err = pfd;
			if (pfd >= 0) {
				err = linkat(pfd, old->d_name->name, dfd, d->d_name->name, 0) ? -errno : 0;
				hostfs_fd_put(hsb, HN(odir));
			}
		}
	}
	if (!err) {
		hostfs_node_named(hsb, HN(inode), HN(dir), d->d_name->name);
		ihold(inode);
		d_instantiate(d, inode);
		hostfs_d_added(d);
		hostfs_dir_add(dir, d->d_name->name, d->d_name->len, inode->i_ino, READ_ONCE(inode->i_mode));
		hostfs_refresh(inode);
		hostfs_refresh(dir);
	}
	hostfs_fd_put(hsb, HN(dir));
	return err;
}

static int hostfs_remove(struct inode *dir, struct dentry *d, bool isdir)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	int dfd = hostfs_fd_get(hsb, HN(dir));
	if (dfd < 0)
		return dfd;
	const char *name = d->d_name->name;
	struct inode *inode = d->d_inode;
	/* the object's own fd, open before its name goes: the only way back to
	 * it afterwards (a reopen of an unlinked open file), which the LRU
	 * leaves to a node without a name */
	int vfd = hostfs_fd_get(hsb, HN(inode));
	int err = unlinkat(dfd, name, isdir ? AT_REMOVEDIR : 0) ? -errno : 0;
	if (!err) {
		hostfs_node_unlinked(hsb, HN(inode), HN(dir), name);
		if (isdir) {
			d_prune_negative_children(d);
			inode_flags_set(inode, S_DEAD_DIR);
			set_nlink(inode, 0);
		} else if (hostfs_refresh(inode)) {
			drop_nlink(inode);
		}
		hostfs_dir_remove(dir, name, d->d_name->len);
		hostfs_refresh(dir);
		/* an unlink's name leaves the dcache in the VFS (d_delete) */
		if (isdir)
			d_delete_entry(d);
	}
	if (vfd >= 0)
		hostfs_fd_put(hsb, HN(inode));
	hostfs_fd_put(hsb, HN(dir));
	return err;
}

int hostfs_unlink(struct inode *dir, struct dentry *d)
{
	return hostfs_remove(dir, d, false);
}

int hostfs_rmdir(struct inode *dir, struct dentry *d)
{
	return hostfs_remove(dir, d, true);
}

/*
 * The listings after a rename, numbered as the dcache numbers tmpfs's
 * (readdir.c, d_move, d_exchange): a name renamed over another takes that
 * one's offset, an exchange gives both names new ones; a whiteout is a new
 * name.
 */
static void rename_listings(struct inode *odir, const char *oname, struct inode *ndir, const char *nname,
			    struct inode *inode, struct inode *target, unsigned flags, int ofd)
{
	unsigned olen = (unsigned)strlen(oname), nlen = (unsigned)strlen(nname);
	hostfs_dir_remove(odir, oname, olen);
	if (flags & RENAME_EXCHANGE) {
		hostfs_dir_remove(ndir, nname, nlen);
		hostfs_dir_add(ndir, nname, nlen, inode->i_ino, READ_ONCE(inode->i_mode));
		hostfs_dir_add(odir, oname, olen, target->i_ino, READ_ONCE(target->i_mode));
		return;
	}
	hostfs_dir_add(ndir, nname, nlen, inode->i_ino, READ_ONCE(inode->i_mode));
	if (flags & RENAME_WHITEOUT) {
		struct stat st;
		if (fstatat(ofd, oname, &st, AT_SYMLINK_NOFOLLOW))
			hostfs_dir_listing_invalidate(odir);
		else
			hostfs_dir_add(odir, oname, olen, st.st_ino, st.st_mode);
	}
}

int hostfs_rename(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd,
			 unsigned flags, const struct cred *c)
{
	struct hostfs_sb *hsb = HOSTFS_SB(odir->i_sb);
	struct inode *inode = od->d_inode, *target = nd->d_inode;
	/* what can fail comes before the host changes anything */
	struct dname *na = d_name_copy(nd);
	struct dname *nb = (flags & RENAME_EXCHANGE) ? d_name_copy(od) : NULL;
	char *oname = strdup(od->d_name->name), *nname = strdup(nd->d_name->name);
	int err = -ENOMEM;
	if (!na || ((flags & RENAME_EXCHANGE) && !nb) || !oname || !nname)
		goto out_free;
	int ofd = hostfs_fd_get(hsb, HN(odir));
	err = ofd;
	if (ofd < 0)
		goto out_free;
	int nfd = hostfs_fd_get(hsb, HN(ndir));
	err = nfd;
	if (nfd < 0)
		goto out_odir;
	/* a target replaced keeps its fd, as an unlinked object does */
	int tfd = target && !(flags & RENAME_EXCHANGE) ? hostfs_fd_get(hsb, HN(target)) : -1;
	err = syscall(SYS_renameat2, ofd, oname, nfd, nname, flags) ? -errno : 0;
	if (err)
		goto out_ndir;
	/* the host made the whiteout as the library's process: it is the
	 * caller's, as a new object (Linux's vfs_whiteout through mknod);
	 * chown only takes as root */
	if ((flags & RENAME_WHITEOUT) && hsb->as_root) {
		struct inode want;
		want.i_mode = 0;
		inode_init_owner(&want, odir, S_IFCHR, c);
		(void)fchownat(ofd, oname, want.i_uid, want.i_gid, AT_SYMLINK_NOFOLLOW);
	}
	if (hostfs_node_rename(hsb, HN(inode), HN(ndir), nname))
		hostfs_node_unlinked(hsb, HN(inode), HN(odir), oname);
	rename_listings(odir, oname, ndir, nname, inode, target, flags, ofd);
	if (flags & RENAME_EXCHANGE) {
		if (hostfs_node_rename(hsb, HN(target), HN(odir), oname))
			hostfs_node_unlinked(hsb, HN(target), HN(ndir), nname);
		hostfs_refresh(target);
		d_exchange(od, nd, na, nb);
		na = nb = NULL;
	} else {
		if (target) {
			hostfs_node_unlinked(hsb, HN(target), HN(ndir), nname);
			if (S_ISDIR(READ_ONCE(target->i_mode))) {
				d_prune_negative_children(nd);
				inode_flags_set(target, S_DEAD_DIR);
				set_nlink(target, 0);
			} else if (hostfs_refresh(target)) {
				drop_nlink(target);
			}
		}
		d_move(od, nd, na);
		na = NULL;
	}
	hostfs_refresh(inode);
	hostfs_refresh(odir);
	if (ndir != odir)
		hostfs_refresh(ndir);
out_ndir:
	if (tfd >= 0)
		hostfs_fd_put(hsb, HN(target));
	hostfs_fd_put(hsb, HN(ndir));
out_odir:
	hostfs_fd_put(hsb, HN(odir));
out_free:
	d_name_free(na);
	d_name_free(nb);
	free(oname);
	free(nname);
	return err;
}

int hostfs_get_link(struct inode *inode, char **body, unsigned *len)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	int fd = hostfs_fd_get(hsb, HN(inode));
	if (fd < 0)
		return fd;
	char *b = malloc(PATH_MAX);
	ssize_t n = b ? readlinkat(fd, "", b, PATH_MAX) : -1;
	int err = n < 0 ? (b ? -errno : -ENOMEM) : 0;
	hostfs_fd_put(hsb, HN(inode));
	if (!err && n >= PATH_MAX)
		err = -ENAMETOOLONG;
	if (err) {
		free(b);
		return err;
	}
	b[n] = 0;
	*body = b;
	*len = (unsigned)n;
	return 0;
}

/* ---- dentries (cache=revalidate) ---- */

static int hostfs_d_revalidate(struct dentry *d, unsigned flags)
{
	if (flags & LOOKUP_RCU)
		return -ECHILD; /* a host call */
	struct inode *inode = d->d_inode;
	if (!inode)
		return 0;
	struct hostfs_sb *hsb = HOSTFS_SB(d->d_sb);
	char name[NAME_MAX + 1];
	urcu_memb_read_lock();
	struct dentry *parent = READ_ONCE(d->d_parent);
	struct inode *dir = READ_ONCE(parent->d_inode);
	struct hnode *dhn = HN(dir);
	const struct dname *n = rcu_dereference(d->d_name);
	memcpy(name, n->name, n->len + 1);
	/* the parent's node outlives this section: a reference of our own */
	pthread_mutex_lock(&hsb->lock);
	dhn->refs++;
	pthread_mutex_unlock(&hsb->lock);
	urcu_memb_read_unlock();
	int r;
	int dfd = hostfs_fd_get(hsb, dhn);
	if (dfd < 0) {
		r = 0;
	} else {
		struct stat st;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			r = errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
		else if (st.st_ino != HN(inode)->ino || st.st_dev != HN(inode)->dev ||
			 (st.st_mode & S_IFMT) != (READ_ONCE(inode->i_mode) & S_IFMT))
			r = 0;
		else {
			hostfs_fill_inode(inode, &st);
			hostfs_node_found(hsb, HN(inode), dhn, name);
			r = 1;
		}
		hostfs_fd_put(hsb, dhn);
	}
	hostfs_node_unref(hsb, dhn);
	return r;
}

/* ".", "..", the root: no name to check, but the attributes the checks at
 * the end of the walk use (permission to open ".") are the host's now. */
static int hostfs_d_weak_revalidate(struct dentry *d, unsigned flags)
{
	(void)flags;
	struct inode *inode = d->d_inode;
	if (!inode)
		return 0;
	int err = hostfs_refresh(inode);
	return err == -ENOENT || err == -ESTALE ? 0 : err ? err : 1;
}

const struct dentry_operations hostfs_dentry_operations = {
	.d_revalidate = hostfs_d_revalidate,
	.d_weak_revalidate = hostfs_d_weak_revalidate,
};
