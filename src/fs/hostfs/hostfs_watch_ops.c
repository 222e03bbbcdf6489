// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_watch_ops.c - cache=watch's operations: cache=exclusive's, wrapped
 * (hostfs_watch.c says why).  uvfs's own changes run inside a window of the
 * watch mutex, so that the host's report of them is recognised and dropped;
 * the walk (d_revalidate), stat (getattr), listings and reads first apply
 * the host's pending events, then trust the cache as far as they say.
 *
 * The wrapped tables are built once per inode type, at the first inode,
 * from the cache=exclusive ones (hostfs.c), so those stay as they are.
 */
#include "hostfs_watch.h"

/* ---- uvfs's own changes ---- */

/* The window of a change uvfs makes: what the host did before is applied
 * first, so that only the change's own events are taken for its own. */
static struct hostfs_watch *self_begin(struct inode *inode)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	pthread_mutex_lock(&hsb->watch->lock);
	hostfs_watch_drain_locked(hsb, NULL);
	return hsb->watch;
}

static void self_end(struct hostfs_watch *w, const struct hw_self *s)
{
	hostfs_watch_drain_locked(HOSTFS_SB(w->sb), s);
	pthread_mutex_unlock(&w->lock);
}

/* d names its object in a directory of generation g, checked now.  The
 * stamp is the name's, not the object's: a hard link, or a directory the
 * host renamed while uvfs still caches its old name, gives one object two
 * names in one directory, and a check of one says nothing of the other. */
static void seen(struct dentry *d, uint64_t g)
{
	if (d->d_inode && g)
		__atomic_store_n(&d->d_time, g, __ATOMIC_RELEASE);
}

enum { T_DIR, T_FILE, T_LINK, T_SPECIAL, T_N };

static int type_of(umode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return T_DIR;
	case S_IFREG:
		return T_FILE;
	case S_IFLNK:
		return T_LINK;
	default:
		return T_SPECIAL;
	}
}

static const struct inode_operations *base_iops[T_N];
static struct inode_operations watch_iops[T_N];
static struct file_operations watch_fops, watch_dir_fops;
static bool built[T_N];
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

#define BASE(inode) base_iops[type_of(READ_ONCE((inode)->i_mode))]

static int w_lookup(struct inode *dir, struct dentry *d, unsigned flags)
{
	/* before the host is asked: a change after it bumps the generation */
	uint64_t g = gen_of(dir);
	int err = base_iops[T_DIR]->lookup(dir, d, flags);
	if (!err)
		seen(d, g);
	return err;
}

#define NAME_SELF(dir_, d_) { .dir = { HN(dir_) }, .name = { (d_)->d_name->name } }

static int w_create(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	uint64_t g = gen_of(dir);
	int err = base_iops[T_DIR]->create(dir, d, mode, c);
	self_end(w, &s);
	if (!err)
		seen(d, g);
	return err;
}

static int w_mkdir(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	uint64_t g = gen_of(dir);
	int err = base_iops[T_DIR]->mkdir(dir, d, mode, c);
	self_end(w, &s);
	if (!err)
		seen(d, g);
	return err;
}

static int w_mknod(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	uint64_t g = gen_of(dir);
	int err = base_iops[T_DIR]->mknod(dir, d, mode, dev, c);
	self_end(w, &s);
	if (!err)
		seen(d, g);
	return err;
}

static int w_symlink(struct inode *dir, struct dentry *d, const char *target, const struct cred *c)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	uint64_t g = gen_of(dir);
	int err = base_iops[T_DIR]->symlink(dir, d, target, c);
	self_end(w, &s);
	if (!err)
		seen(d, g);
	return err;
}

static int w_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	s.target[0] = HN(old->d_inode);
	uint64_t g = gen_of(dir);
	int err = base_iops[T_DIR]->link(old, dir, d);
	self_end(w, &s);
	if (!err)
		seen(d, g);
	return err;
}

static int w_unlink(struct inode *dir, struct dentry *d)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	s.target[0] = HN(d->d_inode);
	int err = base_iops[T_DIR]->unlink(dir, d);
	self_end(w, &s);
	return err;
}

static int w_rmdir(struct inode *dir, struct dentry *d)
{
	struct hostfs_watch *w = self_begin(dir);
	struct hw_self s = NAME_SELF(dir, d);
	s.target[0] = HN(d->d_inode);
	int err = base_iops[T_DIR]->rmdir(dir, d);
	self_end(w, &s);
	return err;
}

static int w_rename(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd, unsigned flags,
		    const struct cred *c)
{
	/* the names as they are now: the rename moves them */
	char oname[NAME_MAX + 1], nname[NAME_MAX + 1];
	snprintf(oname, sizeof(oname), "%s", od->d_name->name);
	snprintf(nname, sizeof(nname), "%s", nd->d_name->name);
	struct hw_self s = { .dir = { HN(odir), HN(ndir) }, .name = { oname, nname },
			     .target = { HN(od->d_inode), nd->d_inode ? HN(nd->d_inode) : NULL } };
	struct hostfs_watch *w = self_begin(odir);
	uint64_t og = gen_of(odir), ng = gen_of(ndir);
	int err = base_iops[T_DIR]->rename(odir, od, ndir, nd, flags, c);
	self_end(w, &s);
	if (!err) {
		seen(od, ng); /* od now has the new name in ndir */
		if (flags & RENAME_EXCHANGE)
			seen(nd, og);
	}
	return err;
}

#define TARGET_SELF(inode) { .target = { HN(inode) } }

static int w_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	struct hostfs_watch *w = self_begin(inode);
	struct hw_self s = TARGET_SELF(inode);
	int err = BASE(inode)->setattr(d, inode, ia);
	self_end(w, &s);
	return err;
}

static int w_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags)
{
	struct hostfs_watch *w = self_begin(inode);
	struct hw_self s = TARGET_SELF(inode);
	int err = BASE(inode)->setxattr(inode, name, value, size, flags);
	self_end(w, &s);
	return err;
}

static int w_set_acl(struct inode *inode, int type, struct posix_acl *acl, umode_t mode)
{
	struct hostfs_watch *w = self_begin(inode);
	struct hw_self s = TARGET_SELF(inode);
	int err = BASE(inode)->set_acl(inode, type, acl, mode);
	self_end(w, &s);
	return err;
}

static ssize_t w_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct hostfs_watch *w = self_begin(f->f_inode);
	struct hw_self s = TARGET_SELF(f->f_inode);
	ssize_t n = hostfs_file_operations.write(f, buf, len, pos);
	self_end(w, &s);
	return n;
}

static long w_fallocate(struct file *f, int mode, loff_t offset, loff_t len)
{
	struct hostfs_watch *w = self_begin(f->f_inode);
	struct hw_self s = TARGET_SELF(f->f_inode);
	long err = hostfs_file_operations.fallocate(f, mode, offset, len);
	self_end(w, &s);
	return err;
}

/* Cached data is the host's as of the events read: those pending are
 * read first (hostfs_pages.c drops what they changed). */
static ssize_t w_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	hostfs_watch_sync(HOSTFS_SB(f->f_inode->i_sb));
	return hostfs_file_operations.read(f, buf, len, pos);
}

bool hostfs_watch_data_watched(struct inode *inode)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	struct hnode *hn = HN(inode);
	pthread_mutex_lock(&hsb->lock);
	struct inode *pi = hn->parent && hn->name ? hn->parent->inode : NULL;
	bool yes = pi && gen_of(pi);
	pthread_mutex_unlock(&hsb->lock);
	return yes;
}

/* A listing from memory is the host's as of the events read: those
 * pending are read first.  A directory without a watch (past the host's
 * max_user_watches, or its watch gone) lists from the host each time. */
static int w_iterate_shared(struct file *f, struct dir_context *ctx)
{
	struct inode *dir = f->f_inode;
	hostfs_watch_sync(HOSTFS_SB(dir->i_sb));
	if (!gen_of(dir))
		hostfs_dir_listing_invalidate(dir);
	return hostfs_dir_operations.iterate_shared(f, ctx);
}

/* Are the inode's attributes told by a watch: a directory's own, or its
 * parent's (the directory it was found in)? */
static bool attrs_watched(struct hostfs_sb *hsb, struct inode *inode)
{
	struct hnode *hn = HN(inode);
	if (gen_of(inode))
		return true;
	pthread_mutex_lock(&hsb->lock);
	struct inode *pi = hn->parent ? hn->parent->inode : NULL;
	bool yes = pi && gen_of(pi);
	pthread_mutex_unlock(&hsb->lock);
	return yes;
}

static int w_getattr(struct inode *inode, struct kstat *k)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	hostfs_watch_sync(hsb);
	/* cleared before the read: a change after it marks it again */
	if (__atomic_exchange_n(&HOSTFS_I(inode)->stale, 0, __ATOMIC_ACQ_REL) || !attrs_watched(hsb, inode)) {
		int err = hostfs_refresh(inode);
		if (err) {
			mark_stale(inode);
			return err;
		}
	}
	/* another caller's refresh may store them meanwhile (hostfs_fill_inode's
	 * WRITE_ONCE), as on the walk's side */
	k->ino = READ_ONCE(inode->i_ino);
	k->mode = READ_ONCE(inode->i_mode);
	k->nlink = READ_ONCE(inode->i_nlink);
	k->uid = READ_ONCE(inode->i_uid);
	k->gid = READ_ONCE(inode->i_gid);
	k->rdev = READ_ONCE(inode->i_rdev);
	k->size = READ_ONCE(inode->i_size);
	k->blocks = READ_ONCE(inode->i_blocks);
	inode_read_times(inode, &k->atime, &k->mtime, &k->ctime, NULL);
	return 0;
}

static int w_d_revalidate(struct dentry *d, unsigned flags)
{
	struct inode *inode = READ_ONCE(d->d_inode);
	if (!inode)
		return 0;
	struct dentry *parent = READ_ONCE(d->d_parent);
	if (parent == d)
		return 1;
	hostfs_watch_sync(HOSTFS_SB(d->d_sb));
	struct inode *dir = READ_ONCE(parent->d_inode);
	uint64_t g = dir ? gen_of(dir) : 0;
	if (g && __atomic_load_n(&d->d_time, __ATOMIC_ACQUIRE) == g)
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD; /* a host call */
	int r = hostfs_dentry_operations.d_revalidate(d, flags);
	if (r > 0)
		seen(d, g);
	return r;
}

const struct dentry_operations hostfs_watch_dentry_operations = {
	.d_revalidate = w_d_revalidate,
};

static void build(int t, const struct inode_operations *base)
{
	struct inode_operations *o = &watch_iops[t];
	*o = *base;
	o->getattr = w_getattr;
#define WRAP(op) if (o->op) o->op = w_##op
	WRAP(lookup);
	WRAP(create);
	WRAP(mkdir);
	WRAP(mknod);
	WRAP(symlink);
	WRAP(link);
	WRAP(unlink);
	WRAP(rmdir);
	WRAP(rename);
	WRAP(setattr);
	WRAP(setxattr);
	WRAP(set_acl);
#undef WRAP
	if (t == T_FILE) {
		watch_fops = hostfs_file_operations;
		watch_fops.read = w_read;
		watch_fops.write = w_write;
		watch_fops.fallocate = w_fallocate;
	} else if (t == T_DIR) {
		watch_dir_fops = hostfs_dir_operations;
		watch_dir_fops.iterate_shared = w_iterate_shared;
	}
	base_iops[t] = base;
}

void hostfs_watch_set_ops(struct inode *inode)
{
	int t = type_of(READ_ONCE(inode->i_mode));
	if (!__atomic_load_n(&built[t], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&build_lock);
		if (!built[t]) {
			build(t, inode->i_op);
			__atomic_store_n(&built[t], true, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&build_lock);
	}
	inode->i_op = &watch_iops[t];
	if (t == T_FILE)
		inode->i_fop = &watch_fops;
	else if (t == T_DIR)
		inode->i_fop = &watch_dir_fops;
}
