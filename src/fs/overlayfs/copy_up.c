// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * copy_up.c - a lower object made an upper one before it changes (Linux's
 * fs/overlayfs/copy_up.c).
 *
 * The parents first, from the top down, so every object copied up has an
 * upper parent.  The copy is made in the work directory under a temporary
 * name (data, mode, owner, times, xattrs other than trusted.overlay.*, and
 * trusted.overlay.origin naming the lower object), then moved to its name
 * in the upper parent, which Linux marks impure: a reader of the upper
 * layer never meets a half-made copy.
 *
 * Locks: the overlay inode's copy-up mutex (two callers copy once); inside
 * it the real directories' i_rwsem, the work directory's and the upper
 * parent's taken in address order for the move (they are separate
 * subtrees, checked at mount).  The move runs inside rename_seq's write
 * section unless the caller is in one already (an overlay rename).
 */
#include "overlayfs.h"
#include "core/xattr.h"

const struct cred ovl_mounter_cred = { .usage = 1 };

/* Attributes set on a real object as the overlay's mounter: no checks,
 * through the layer's own ->setattr, whose refusal changes nothing.  A
 * symlink's mode is not set (Linux's ovl_set_attr). */
int ovl_real_set_attrs(struct dentry *real, umode_t mode, uid_t uid, gid_t gid, const struct timespec *atime,
		       const struct timespec *mtime)
{
	struct inode *ri = real->d_inode;
	struct iattr ia = { .ia_valid = ATTR_UID | ATTR_GID | ATTR_FORCE, .ia_mode = mode, .ia_uid = uid,
			    .ia_gid = gid };
	if (!S_ISLNK(ri->i_mode))
		ia.ia_valid |= ATTR_MODE;
	if (atime) {
		ia.ia_valid |= ATTR_ATIME | ATTR_ATIME_SET;
		ia.ia_atime = *atime;
	}
	if (mtime) {
		ia.ia_valid |= ATTR_MTIME | ATTR_MTIME_SET;
		ia.ia_mtime = *mtime;
	}
	int err = inode_setattr(real, ri, &ia);
	if (!err)
		inode_fastperm_changed(ri);
	return err;
}

static int ovl_copy_xattrs(struct inode *from, struct inode *to)
{
	if (!from->i_op->listxattr)
		return 0;
	ssize_t n = from->i_op->listxattr(from, NULL, 0, true);
	if (n <= 0)
		return (int)n;
	if (!to->i_op->setxattr)
		return -EOPNOTSUPP;
	char *names = malloc((size_t)n);
	char *val = malloc(XATTR_SIZE_MAX_);
	int err = names && val ? 0 : -ENOMEM;
	if (!err)
		n = from->i_op->listxattr(from, names, (size_t)n, true);
	for (ssize_t off = 0; !err && off < n; off += (ssize_t)strlen(names + off) + 1) {
		const char *name = names + off;
		if (!strncmp(name, OVL_XATTR_PREFIX, sizeof(OVL_XATTR_PREFIX) - 1))
			continue;
		ssize_t vn = from->i_op->getxattr(from, name, val, XATTR_SIZE_MAX_);
		if (vn == -ENODATA)
			continue;
		if (vn < 0) {
			err = (int)vn;
			break;
		}
		err = to->i_op->setxattr(to, name, val, (size_t)vn, 0);
		if (!err)
			inode_killpriv_mark(to, name, (size_t)vn);
		/* an attribute the upper layer does not keep is skipped, as
		 * Linux's ovl_copy_xattr skips EOPNOTSUPP */
		if (err == -EOPNOTSUPP)
			err = 0;
	}
	free(names);
	free(val);
	return err;
}

/* The lower object's ACLs onto its copy, as Linux's copy-up takes them
 * with the other xattrs; an upper filesystem that keeps none is skipped as
 * for any xattr (EOPNOTSUPP). */
static int ovl_copy_acls(struct inode *from, struct inode *to)
{
	static const int types[] = { ACL_TYPE_ACCESS, ACL_TYPE_DEFAULT };
	if (S_ISLNK(from->i_mode) || !to->i_op->set_acl)
		return 0;
	for (int i = 0; i < 2; i++) {
		int err;
		struct posix_acl *acl = ovl_real_acl(from, types[i], &err);
		if (!acl) {
			if (err)
				return err;
			continue;
		}
		down_write(&to->i_rwsem);
		err = to->i_op->set_acl(to, types[i], acl, READ_ONCE(to->i_mode));
		up_write(&to->i_rwsem);
		if (err)
			free(acl);
		if (err && err != -EOPNOTSUPP)
			return err;
	}
	return 0;
}

static int ovl_copy_data(struct file *of, const struct ovl_real *lower, struct dentry *upper,
			 const struct ovl_layer *ul)
{
	struct inode *li = lower->dentry->d_inode;
	if (!READ_ONCE(li->i_size))
		return 0;
	struct path lp = ovl_real_path(lower);
	struct path up = { .mnt = ul->root.mnt, .dentry = upper };
	/* the overlay file only lends its context: access is the copier's */
	unsigned save = of->f_mode, saveflags = of->f_flags;
	of->f_mode = FMODE_READ;
	of->f_flags = O_RDONLY;
	int err;
	struct file *in = ovl_open_realfile(of, &lp, &err);
	of->f_mode = FMODE_WRITE;
	of->f_flags = O_WRONLY;
	struct file *out = in ? ovl_open_realfile(of, &up, &err) : NULL;
	of->f_mode = save;
	of->f_flags = saveflags;
	if (!out) {
		if (in)
			fput(in);
		return err;
	}
	char *buf = malloc(65536);
	err = buf ? 0 : -ENOMEM;
	loff_t pos = 0, opos = 0;
	while (!err) {
		ssize_t n = in->f_op->read(in, buf, 65536, &pos);
		if (n <= 0) {
			err = (int)n;
			break;
		}
		for (ssize_t done = 0; done < n && !err;) {
			ssize_t w = out->f_op->write(out, buf + done, (size_t)(n - done), &opos);
			if (w < 0)
				err = (int)w;
			else
				done += w;
		}
	}
	free(buf);
	fput(in);
	fput(out);
	return err;
}

/* The real move of a copy from the work directory to its place. */
static int ovl_move_into_place(struct ovl_sb_info *ofs, struct dentry *tmp, struct dentry *udir,
			       struct dentry *target, bool in_rename)
{
	struct uvfs *vfs = udir->d_sb->s_uvfs;
	struct inode *wdir = ofs->workdir.dentry->d_inode, *ndir = udir->d_inode;
	if (!wdir->i_op->rename)
		return -EXDEV;
	int err;
	if (!in_rename) {
		pthread_mutex_lock(&vfs->seq_lock);
		write_seqcount_begin(&vfs->rename_seq);
	}
	err = wdir->i_op->rename(wdir, tmp, ndir, target, 0, &ovl_mounter_cred);
	if (!in_rename) {
		write_seqcount_end(&vfs->rename_seq);
		pthread_mutex_unlock(&vfs->seq_lock);
	}
	return err;
}

static void lock_two(struct inode *a, struct inode *b)
{
	if (a == b) {
		down_write(&a->i_rwsem);
		return;
	}
	if ((uintptr_t)a > (uintptr_t)b) {
		struct inode *t = a;
		a = b;
		b = t;
	}
	down_write(&a->i_rwsem);
	down_write(&b->i_rwsem);
}

static void unlock_two(struct inode *a, struct inode *b)
{
	up_write(&a->i_rwsem);
	if (a != b)
		up_write(&b->i_rwsem);
}

/* One object whose parent has an upper directory already. */
static int ovl_copy_up_one(struct dentry *d, struct file *ctx, bool in_rename)
{
	struct inode *inode = d->d_inode;
	struct ovl_inode *oi = OVL_I(inode);
	struct ovl_inode *pi = OVL_I(d->d_parent->d_inode);
	struct ovl_sb_info *ofs = OVL_SB(d->d_sb);
	struct dentry *udir = pi->upper.dentry;
	const struct ovl_real *lower = &oi->lower[0];
	struct inode *li = lower->dentry->d_inode;
	struct dentry *work = ofs->workdir.dentry;
	struct kstat st;
	int err = vfs_getattr_unseen(li, &st);
	if (err)
		return err;
	/* a temporary name no one else uses: the inode's address */
	char tname[40];
	int tl = snprintf(tname, sizeof(tname), "#%lx", (unsigned long)(uintptr_t)inode);
	const struct qstr tq = { .name = tname, .len = (uint32_t)tl, .hash = name_hash(tname, (unsigned)tl) };
	/* a copy of the name: nothing here holds off a rename of d, which
	 * frees the old name after a grace period */
	char nbuf[NAME_MAX + 1];
	struct qstr nq;
	urcu_memb_read_lock();
	const struct dname *dn = rcu_dereference(d->d_name);
	memcpy(nbuf, dn->name, dn->len + 1);
	nq.name = nbuf;
	nq.len = dn->len;
	nq.hash = dn->hash;
	urcu_memb_read_unlock();
	struct cred c = { .usage = 1, .fsuid = st.uid, .fsgid = st.gid };

	struct inode *wdir = work->d_inode, *ndir = udir->d_inode;
	lock_two(wdir, ndir);
	struct dentry *tmp = d_lookup_or_alloc(work, &tq, &err);
	struct dentry *target = tmp ? d_lookup_or_alloc(udir, &nq, &err) : NULL;
	if (!target)
		goto out;
	/* a whiteout where the copy goes would be a lower name hidden: the
	 * name shows the lower object, so none is there */
	err = -EEXIST;
	if (tmp->d_inode || (target->d_inode && !ovl_is_whiteout(target)))
		goto out;
	switch (st.mode & S_IFMT) {
	case S_IFDIR:
		err = wdir->i_op->mkdir ? wdir->i_op->mkdir(wdir, tmp, st.mode & 07777, &c) : -EPERM;
		break;
	case S_IFREG:
		err = wdir->i_op->create ? wdir->i_op->create(wdir, tmp, st.mode & 07777, &c) : -EPERM;
		break;
	case S_IFLNK: {
		int e2 = 0;
		const char *body = inode_get_link(li, &e2);
		err = !body ? e2 : wdir->i_op->symlink ? wdir->i_op->symlink(wdir, tmp, body, &c) : -EPERM;
		break;
	}
	default:
		err = wdir->i_op->mknod ? wdir->i_op->mknod(wdir, tmp, st.mode, st.rdev, &c) : -EPERM;
		break;
	}
	if (err)
		goto out;
	struct inode *ti = tmp->d_inode;
	bool made = true;
	if (S_ISREG(st.mode))
		err = ovl_copy_data(ctx, lower, tmp, &ofs->upper);
	/* owner and mode before the attributes: a chown on a filesystem that
	 * drops file capabilities (hostfs: the host's chown) would take the
	 * security.capability the copy just set */
	if (!err)
		err = ovl_real_set_attrs(tmp, st.mode, st.uid, st.gid, &st.atime, &st.mtime);
	if (!err)
		err = ovl_copy_xattrs(li, ti);
	if (!err)
		err = ovl_copy_acls(li, ti);
	if (!err && ti->i_op->setxattr)
		err = ovl_set_origin(tmp, lower->dentry);
	if (err == -EOPNOTSUPP)
		err = 0;
	if (!err) {
		if (target->d_inode) {
			/* the whiteout goes first; the rename replaces nothing */
			err = ovl_do_unlink(ndir, target);
			dput(target);
			target = err ? NULL : d_lookup_or_alloc(udir, &nq, &err);
		}
	}
	if (!err && target)
		err = ovl_move_into_place(ofs, tmp, udir, target, in_rename);
	if (!err) {
		/* the object now lives at target; publish it for the
		 * overlay's readers (ovl_real_of) */
		struct dentry *up = d_lookup_locked(udir, &nq);
		if (up && !up->d_inode) {
			dput(up);
			up = NULL;
		}
		if (!up) {
			err = -ENOENT;
		} else {
			oi->upper.layer = &ofs->upper;
			smp_store_release(&oi->upper.dentry, up);
			if (S_ISDIR(st.mode)) {
				WRITE_ONCE(oi->merged, true);
				set_nlink(inode, 1);
			}
			made = false;
		}
	}
	if (made && tmp->d_inode) {
		/* undo: the half-made copy leaves the work directory */
		struct inode *xi = tmp->d_inode;
		if (S_ISDIR(xi->i_mode)) {
			down_write(&xi->i_rwsem);
			wdir->i_op->rmdir(wdir, tmp);
			up_write(&xi->i_rwsem);
		} else {
			ovl_do_unlink(wdir, tmp);
		}
	}
out:
	if (target)
		dput(target);
	if (tmp)
		dput(tmp);
	unlock_two(wdir, ndir);
	if (!err)
		ovl_set_xattr_once(udir, OVL_XATTR_IMPURE, "y", 1);
	return err;
}

/*
 * d has an upper object when this returns 0.  ctx: a file of the overlay to
 * lend its instance to the real files of the data copy (any open overlay
 * file; NULL makes one of its own).
 */
int ovl_copy_up_ctx(struct dentry *d, bool in_rename)
{
	if (smp_load_acquire(&OVL_I(d->d_inode)->upper.dentry))
		return 0;
	if (READ_ONCE(d->d_sb->s_flags) & SB_RDONLY)
		return -EROFS;
	/* the parents first: the root always has an upper directory */
	int err = ovl_copy_up_ctx(d->d_parent, in_rename);
	if (err)
		return err;
	struct ovl_inode *oi = OVL_I(d->d_inode);
	pthread_mutex_lock(&oi->copy_lock);
	if (!oi->upper.dentry) {
		struct file *ctx = alloc_empty_file(d->d_sb->s_uvfs, O_RDONLY);
		if (!ctx) {
			err = -ENOMEM;
		} else {
			err = ovl_copy_up_one(d, ctx, in_rename);
			file_free_unopened(ctx);
		}
	}
	pthread_mutex_unlock(&oi->copy_lock);
	return err;
}

int ovl_copy_up(struct dentry *d)
{
	return ovl_copy_up_ctx(d, false);
}
