// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * inode.c - the overlay's inodes and files (Linux's fs/overlayfs/inode.c
 * and file.c).
 *
 * An overlay inode shows the attributes of its real object (the upper one,
 * else the top lower one), read again at each stat.  st_ino and st_dev are
 * Linux's without xino: with every layer on one superblock, st_dev is the
 * overlay's for all objects and st_ino the real object's, except that a
 * merged directory shows its top lower directory's number and the root
 * its upper directory's; a merged directory has one link.
 *
 * A regular file opened through the overlay opens its real file beside it
 * (private_data) and reads and writes there; the overlay's own file keeps
 * the position, so the real file's is never used.
 */
#include "overlayfs.h"
#include "namei.h"
#include "core/xattr.h"

static uint64_t ovl_ino_of(struct ovl_inode *oi, bool is_root)
{
	struct inode *top = (oi->upper.dentry ? oi->upper.dentry : oi->lower[0].dentry)->d_inode;
	if (is_root)
		return top->i_ino;
	if (oi->merged && oi->nlower)
		return oi->lower[0].dentry->d_inode->i_ino;
	/* a copied-up object keeps the number of the lower one it came from */
	uint64_t ino;
	if (oi->upper.dentry && ovl_origin_ino(oi->upper.dentry, &ino))
		return ino;
	return top->i_ino;
}

/* The real object's attributes into the overlay inode; a field is
 * written only when it changed, so a stat does not store into what
 * lockless walkers read (i_mode) when nothing moved. */
static void ovl_copyattr(struct inode *inode, const struct kstat *st)
{
	struct ovl_inode *oi = OVL_I(inode);
	if (READ_ONCE(inode->i_mode) != st->mode) {
		WRITE_ONCE(inode->i_mode, st->mode);
		inode_fastperm_changed(inode);
	}
	if (READ_ONCE(inode->i_uid) != st->uid)
		WRITE_ONCE(inode->i_uid, st->uid);
	if (READ_ONCE(inode->i_gid) != st->gid)
		WRITE_ONCE(inode->i_gid, st->gid);
	if (READ_ONCE(inode->i_size) != st->size)
		WRITE_ONCE(inode->i_size, st->size);
	if (READ_ONCE(inode->i_blocks) != st->blocks)
		WRITE_ONCE(inode->i_blocks, st->blocks);
	unsigned nlink = READ_ONCE(oi->merged) ? 1 : st->nlink;
	if (READ_ONCE(inode->i_nlink) != nlink)
		set_nlink(inode, nlink);
	struct timespec a, m, c;
	inode_read_times(inode, &a, &m, &c, NULL);
	if (a.tv_sec != st->atime.tv_sec || a.tv_nsec != st->atime.tv_nsec || m.tv_sec != st->mtime.tv_sec ||
	    m.tv_nsec != st->mtime.tv_nsec || c.tv_sec != st->ctime.tv_sec || c.tv_nsec != st->ctime.tv_nsec)
		inode_set_times(inode, &st->atime, &st->mtime, &st->ctime);
}

/*
 * chattr flags (Linux's ovl_copyflags, ovl_set_protattr): the overlay inode
 * carries the real object's noatime (and nodump, for statx), while
 * immutable and append-only live in the upper object's
 * trusted.overlay.protattr ("a", "i"), never in its own flags, so that a
 * protected object's children and hard links can still be copied up.
 */
#define OVL_PROT_FLAGS (S_APPEND | S_IMMUTABLE)

static void ovl_set_iflags(struct inode *inode, unsigned want, unsigned mask)
{
	unsigned have = READ_ONCE(inode->i_flags) & mask;
	want &= mask;
	if (want == have)
		return;
	__atomic_fetch_and(&inode->i_flags, ~(have & ~want), __ATOMIC_RELAXED);
	__atomic_fetch_or(&inode->i_flags, want, __ATOMIC_RELAXED);
}

/* The protection flags an upper object's xattr holds */
static unsigned ovl_protattr(struct dentry *upper)
{
	struct inode *ri = upper->d_inode;
	char v[32];
	if (!ri->i_op->getxattr)
		return 0;
	down_read(&ri->i_rwsem);
	ssize_t n = ri->i_op->getxattr(ri, OVL_XATTR_PROTATTR, v, sizeof(v));
	up_read(&ri->i_rwsem);
	unsigned fl = 0;
	for (ssize_t i = 0; i < n; i++)
		fl |= v[i] == 'a' ? S_APPEND : v[i] == 'i' ? S_IMMUTABLE : 0;
	return fl;
}

/* FS_IOC_GETFLAGS: the real object's, with the overlay's protection flags
 * (Linux's ovl_fileattr_get) */
int ovl_fileattr_get(struct inode *inode, unsigned *flags)
{
	struct inode *real = ovl_real_of(inode)->dentry->d_inode;
	if (!real->i_op->fileattr_get)
		return -ENOTTY;
	down_read(&real->i_rwsem);
	int err = real->i_op->fileattr_get(real, flags);
	up_read(&real->i_rwsem);
	unsigned prot = UVFS_FS_APPEND_FL | UVFS_FS_IMMUTABLE_FL;
	*flags = (*flags & ~prot) | (inode_fsflags(inode) & prot);
	return err;
}

/* FS_IOC_SETFLAGS, as Linux's ovl_fileattr_set: the object copied up; the
 * protection flags into the xattr and the overlay inode (kept even when
 * the upper filesystem then refuses the rest, as on Linux); the other
 * flags into the upper object; the overlay inode takes its noatime. */
int ovl_fileattr_set(struct inode *inode, unsigned flags)
{
	struct ovl_inode *oi = OVL_I(inode);
	int err = smp_load_acquire(&oi->upper.dentry) ? 0 : oi->alias ? ovl_copy_up(oi->alias) : -ESTALE;
	if (err)
		return err;
	struct dentry *ud = oi->upper.dentry;
	struct inode *real = ud->d_inode;
	char v[2];
	int len = 0;
	unsigned prot = 0;
	if (flags & UVFS_FS_APPEND_FL) {
		v[len++] = 'a';
		prot |= S_APPEND;
	}
	if (flags & UVFS_FS_IMMUTABLE_FL) {
		v[len++] = 'i';
		prot |= S_IMMUTABLE;
	}
	if (len || (READ_ONCE(inode->i_flags) & OVL_PROT_FLAGS)) {
		if (!real->i_op->setxattr)
			return len ? -EPERM : 0;
		down_write(&real->i_rwsem);
		err = real->i_op->setxattr(real, OVL_XATTR_PROTATTR, len ? v : NULL, (size_t)len, 0);
		up_write(&real->i_rwsem);
		if (!len && (err == -ENODATA || err == -EOPNOTSUPP))
			err = 0;
		else if (len && err == -EOPNOTSUPP)
			err = -EPERM;
		if (err)
			return err;
	}
	ovl_set_iflags(inode, prot, OVL_PROT_FLAGS);
	if (!real->i_op->fileattr_set)
		err = -ENOTTY;
	else {
		down_write(&real->i_rwsem);
		err = real->i_op->fileattr_set(real, flags & ~(unsigned)(UVFS_FS_APPEND_FL | UVFS_FS_IMMUTABLE_FL));
		up_write(&real->i_rwsem);
	}
	ovl_set_iflags(inode, READ_ONCE(real->i_flags), S_NOATIME | S_NODUMP_);
	inode_touch_c(inode);
	return err;
}

/* A copy of one of the real object's ACLs (NULL and *errp 0: it has none). */
struct posix_acl *ovl_real_acl(struct inode *real, int type, int *errp)
{
	*errp = 0;
	urcu_memb_read_lock();
	const struct posix_acl *acl = smp_load_acquire(acl_slot(real, type));
	struct posix_acl *copy = acl ? posix_acl_dup(acl) : NULL;
	urcu_memb_read_unlock();
	if (acl && !copy)
		*errp = -ENOMEM;
	return copy;
}

/*
 * The real object's ACLs into a new overlay inode, which no one sees yet.
 * Linux's overlay asks the real inode at each check (ovl_get_inode_acl);
 * here the overlay inode keeps a copy, as it keeps the mode, and
 * ovl_set_acl and a chmod through it change both (dir.c).  A symlink has
 * none (its overlay inode has no ->set_acl: EOPNOTSUPP, as Linux's).
 */
static int ovl_acls_from_real(struct inode *inode, struct inode *real)
{
	static const int types[] = { ACL_TYPE_ACCESS, ACL_TYPE_DEFAULT };
	for (int i = 0; i < 2; i++) {
		int err;
		*acl_slot(inode, types[i]) = ovl_real_acl(real, types[i], &err);
		if (err)
			return err;
	}
	return 0;
}

struct inode *ovl_get_inode(struct super_block *sb, struct ovl_real *upper, struct ovl_real *lower, int nlower,
			    bool is_root, int *errp)
{
	struct inode *inode = new_inode(sb);
	struct inode *real = (upper ? upper->dentry : lower[0].dentry)->d_inode;
	char *body = NULL;
	if (inode && S_ISLNK(real->i_mode)) {
		int err = 0;
		const char *b = inode_get_link(real, &err);
		body = b ? strdup(b) : NULL;
		if (!body) {
			*errp = b ? -ENOMEM : err;
			goto fail;
		}
	}
	if (!inode) {
		*errp = -ENOMEM;
		goto fail;
	}
	struct ovl_inode *oi = OVL_I(inode);
	if (upper)
		oi->upper = *upper;
	oi->lower = lower;
	oi->nlower = nlower;
	oi->merged = S_ISDIR(real->i_mode) && (upper ? 1 : 0) + nlower > 1;
	struct kstat st;
	vfs_getattr_unseen(real, &st);
	ovl_copyattr(inode, &st);
	ovl_set_iflags(inode, READ_ONCE(real->i_flags) | (upper ? ovl_protattr(upper->dentry) : 0),
		       S_NOATIME | S_NODUMP_ | OVL_PROT_FLAGS);
	inode->i_ino = ovl_ino_of(oi, is_root);
	inode->i_rdev = READ_ONCE(real->i_rdev);
	if (!S_ISLNK(real->i_mode) && (*errp = ovl_acls_from_real(inode, real)) != 0)
		goto fail_inode;
	switch (real->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &ovl_dir_inode_operations;
		inode->i_fop = &ovl_dir_operations;
		break;
	case S_IFREG:
		inode->i_op = &ovl_file_inode_operations;
		inode->i_fop = &ovl_file_operations;
		break;
	case S_IFLNK:
		/* before the inode is seen: nothing asks ->get_link for it */
		inode->i_link = body;
		inode->i_linklen = (unsigned)strlen(body);
		inode->i_op = &ovl_symlink_inode_operations;
		break;
	default:
		inode->i_op = &ovl_special_inode_operations;
		break;
	}
	return inode;
fail_inode:
	/* the ACLs copied so far go with the inode (posix_acl_free_inode) */
	oi->upper.dentry = NULL;
	oi->lower = NULL;
	oi->nlower = 0;
fail:
	free(body);
	if (inode) {
		/* the new inode owns nothing yet */
		iput(inode);
	}
	if (upper)
		ovl_real_put(upper);
	for (int i = 0; i < nlower; i++)
		ovl_real_put(&lower[i]);
	free(lower);
	return NULL;
}

int ovl_getattr(struct inode *inode, struct kstat *st)
{
	struct ovl_inode *oi = OVL_I(inode);
	const struct ovl_real *r = ovl_real_of(inode);
	int err = vfs_getattr(r->dentry->d_inode, st);
	if (err)
		return err;
	ovl_copyattr(inode, st);
	st->ino = inode->i_ino;
	if (READ_ONCE(oi->merged))
		st->nlink = 1;
	/* without xino, objects of another superblock than the others keep
	 * their own device, directories the overlay's */
	if (OVL_SB(inode->i_sb)->samefs || S_ISDIR(st->mode))
		st->dev = inode->i_sb->s_dev;
	return 0;
}

static bool ovl_is_private_xattr(const char *name)
{
	return !strncmp(name, OVL_XATTR_PREFIX, sizeof(OVL_XATTR_PREFIX) - 1);
}

/* The real object's, except the overlay's own: Linux hides
 * trusted.overlay.* (no such attribute, and not in the list). */
ssize_t ovl_getxattr(struct inode *inode, const char *name, void *buf, size_t size)
{
	if (ovl_is_private_xattr(name))
		return -ENODATA;
	struct inode *real = ovl_real_of(inode)->dentry->d_inode;
	if (!real->i_op->getxattr)
		return -EOPNOTSUPP;
	return real->i_op->getxattr(real, name, buf, size);
}

/*
 * Linux's ovl_listxattr: the real list, read as the mounter, then the
 * overlay's own names and those the caller may not see (trusted.* without
 * privilege) taken out.  A size query answers the real list's size, and a
 * buffer too small for the real list is ERANGE, before the filtering, as
 * on Linux.
 */
ssize_t ovl_listxattr(struct inode *inode, char *buf, size_t size, bool trusted)
{
	struct inode *real = ovl_real_of(inode)->dentry->d_inode;
	if (!real->i_op->listxattr)
		return 0;
	ssize_t n = real->i_op->listxattr(real, NULL, 0, true);
	if (n <= 0 || !size)
		return n;
	if ((size_t)n > size)
		return -ERANGE;
	char *all = malloc((size_t)n);
	if (!all)
		return -ENOMEM;
	ssize_t got = real->i_op->listxattr(real, all, (size_t)n, true);
	if (got < 0) {
		free(all);
		return got;
	}
	size_t out = 0;
	for (ssize_t off = 0; off < got;) {
		const char *name = all + off;
		size_t l = strlen(name) + 1;
		if (!ovl_is_private_xattr(name) && (trusted || strncmp(name, "trusted.", 8))) {
			if (out + l > size) {
				free(all);
				return -ERANGE;
			}
			memcpy(buf + out, name, l);
			out += l;
		}
		off += (ssize_t)l;
	}
	free(all);
	return (ssize_t)out;
}

/* The real file of an overlay file, open with the same access. */
struct file *ovl_open_realfile(struct file *f, const struct path *real, int *errp)
{
	struct inode *rinode = real->dentry->d_inode;
	struct file *rf = alloc_empty_file(f->f_uvfs, (int)(f->f_flags & ~(unsigned)(O_CREAT | O_EXCL | O_TRUNC)));
	if (!rf) {
		*errp = alloc_file_errno(f->f_uvfs);
		return NULL;
	}
	struct path held = *real;
	path_get(&held);
	/* the overlay's file is the one watchers see (Linux's backing file) */
	int err = finish_open(rf, &held, rinode, (f->f_mode & (FMODE_READ | FMODE_WRITE)) | FMODE_NONOTIFY);
	if (err) {
		path_put(&held);
		file_free_unopened(rf);
		*errp = err;
		return NULL;
	}
	return rf;
}

/* An overlay file's real file: the lower one until the object is copied
 * up, then the upper one (Linux's ovl_real_fdget reopens too), so a file
 * opened for reading before a copy-up reads what was written after it.
 * The lower file stays until release: a racing call may still use it. */
struct ovl_file {
	struct file *real;
	struct file *stale;
	pthread_mutex_t lock;
};

static int ovl_open(struct inode *inode, struct file *f)
{
	if (f->f_mode & FMODE_WRITE) {
		int err = ovl_copy_up(f->f_path.dentry);
		if (err)
			return err;
	}
	struct ovl_file *of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	struct path real = ovl_real_path(ovl_real_of(inode));
	int err;
	of->real = ovl_open_realfile(f, &real, &err);
	if (!of->real) {
		free(of);
		return err;
	}
	pthread_mutex_init(&of->lock, NULL);
	f->private_data = of;
	return 0;
}

static void ovl_release(struct inode *inode, struct file *f)
{
	(void)inode;
	struct ovl_file *of = f->private_data;
	if (!of)
		return;
	fput(of->real);
	if (of->stale)
		fput(of->stale);
	pthread_mutex_destroy(&of->lock);
	free(of);
}

/* F_SETFL changes the overlay file's O_APPEND; the real file follows at
 * its next use, as Linux's ovl_change_flags (the flag is the real
 * filesystem's to apply: tmpfs writes at the end when it is set). */
static void ovl_sync_flags(struct file *f, struct file *rf)
{
	unsigned want = READ_ONCE(f->f_flags) & O_APPEND;
	if ((READ_ONCE(rf->f_flags) & O_APPEND) != want)
		WRITE_ONCE(rf->f_flags, (rf->f_flags & ~(unsigned)O_APPEND) | want);
}

static struct file *ovl_real_file(struct file *f)
{
	struct ovl_file *of = f->private_data;
	struct file *rf = smp_load_acquire(&of->real);
	struct ovl_inode *oi = OVL_I(f->f_inode);
	struct dentry *up = smp_load_acquire(&oi->upper.dentry);
	ovl_sync_flags(f, rf);
	if (likely(!up || rf->f_path.dentry == up))
		return rf;
	pthread_mutex_lock(&of->lock);
	if (of->real->f_path.dentry != up && !of->stale) {
		struct path real = ovl_real_path(&oi->upper);
		int err;
		struct file *nf = ovl_open_realfile(f, &real, &err);
		if (nf) {
			of->stale = of->real;
			smp_store_release(&of->real, nf);
		}
	}
	rf = of->real;
	pthread_mutex_unlock(&of->lock);
	ovl_sync_flags(f, rf);
	return rf;
}

static ssize_t ovl_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	struct file *rf = ovl_real_file(f);
	if (!rf->f_op || !rf->f_op->read)
		return -EINVAL;
	return rf->f_op->read(rf, buf, len, pos);
}

/* The VFS dropped the overlay inode's capability for a write; one that
 * came up with the object (copy-up marked the real inode) goes too, as the
 * upper filesystem's own write would drop it. */
static void ovl_real_killpriv(struct inode *ri)
{
	if (unlikely(READ_ONCE(ri->i_flags) & S_KILLPRIV)) {
		down_write(&ri->i_rwsem);
		inode_killpriv(ri);
		up_write(&ri->i_rwsem);
	}
}

static ssize_t ovl_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct file *rf = ovl_real_file(f);
	if (!rf->f_op || !rf->f_op->write)
		return -EINVAL;
	/* the VFS dropped set-id bits of the overlay inode for this write:
	 * the upper object loses them too */
	struct inode *ri = rf->f_inode;
	umode_t om = READ_ONCE(f->f_inode->i_mode);
	if (unlikely(READ_ONCE(ri->i_mode) & (S_ISUID | S_ISGID) & ~om)) {
		down_write(&ri->i_rwsem);
		WRITE_ONCE(ri->i_mode, (ri->i_mode & ~(umode_t)(S_ISUID | S_ISGID)) | (om & (S_ISUID | S_ISGID)));
		inode_fastperm_changed(ri);
		struct timespec now = current_time();
		inode_set_times(ri, NULL, NULL, &now);
		up_write(&ri->i_rwsem);
	}
	if (len)
		ovl_real_killpriv(ri);
	/* As Linux's ovl_write_iter: the real write gets the call's flags back
	 * from the kiocb's, where RWF_NOAPPEND left no trace, and the real file
	 * is O_APPEND too: it appends. */
	unsigned rwf = uvfs_current.rwf;
	uvfs_current.rwf = rwf & ~(unsigned)RWF_NOAPPEND;
	ssize_t n = rf->f_op->write(rf, buf, len, pos);
	uvfs_current.rwf = rwf;
	if (n > 0) {
		struct kstat st;
		if (!vfs_getattr_unseen(rf->f_inode, &st))
			ovl_copyattr(f->f_inode, &st);
	}
	return n;
}

static loff_t ovl_llseek(struct file *f, loff_t off, int whence)
{
	/* SEEK_DATA and SEEK_HOLE: the real file knows its holes; the
	 * position stays the overlay file's */
	struct file *rf = ovl_real_file(f);
	if (rf->f_op && rf->f_op->llseek)
		return rf->f_op->llseek(rf, off, whence);
	return -ENXIO;
}

static long ovl_fallocate(struct file *f, int mode, loff_t offset, loff_t len)
{
	struct file *rf = ovl_real_file(f);
	if (!rf->f_op || !rf->f_op->fallocate)
		return -EOPNOTSUPP;
	long err = rf->f_op->fallocate(rf, mode, offset, len);
	if (!err)
		ovl_real_killpriv(rf->f_inode);
	struct kstat st;
	if (!vfs_getattr_unseen(rf->f_inode, &st))
		ovl_copyattr(f->f_inode, &st);
	return err;
}

static int ovl_fsync(struct file *f)
{
	struct file *rf = ovl_real_file(f);
	return rf->f_op && rf->f_op->fsync ? rf->f_op->fsync(rf) : 0;
}

const struct file_operations ovl_file_operations = {
	.open = ovl_open,
	.release = ovl_release,
	.read = ovl_read,
	.write = ovl_write,
	.llseek = ovl_llseek,
	.fsync = ovl_fsync,
	.fallocate = ovl_fallocate,
	.fop_flags = FOP_PRIVS_FIRST,
};
