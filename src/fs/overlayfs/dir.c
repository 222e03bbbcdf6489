// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dir.c - changes of the merged tree (Linux's fs/overlayfs/dir.c and the
 * setattr/xattr parts of inode.c and xattrs.c).
 *
 * Every change lands in the upper layer, the parent copied up first.  A
 * name made where a whiteout was replaces it (a directory made there is
 * opaque, so the lower one stays hidden); a name removed while a lower
 * layer has it leaves a whiteout; a merged directory is removed only when
 * it shows nothing, its upper whiteouts going with it.  A directory that
 * has a lower part is renamed only with redirect_dir=on (EXDEV otherwise,
 * as Linux): the new name gets trusted.overlay.redirect, the old one a
 * whiteout.
 *
 * Locks: the VFS holds the overlay directories' (and renames' rename_seq
 * section); each real directory's i_rwsem is taken inside, for the real
 * call, as the VFS would take it.
 */
#include "overlayfs.h"
#include "core/xattr.h"
#include "core/attr.h"

bool ovl_is_ancestor(struct dentry *anc, struct dentry *d)
{
	while (d != d->d_parent) {
		d = d->d_parent;
		if (d == anc)
			return true;
	}
	return false;
}

/* Linux's redirect_dir: where the lower part of a renamed directory is, the
 * old name when the parent stays, else its path from the layers' root. */
int ovl_set_redirect(struct dentry *real, struct dentry *od, bool absolute)
{
	char buf[PATH_MAX];
	size_t at = sizeof(buf) - 1;
	buf[at] = '\0';
	for (struct dentry *p = od; p != od->d_sb->s_root; p = p->d_parent) {
		size_t l = p->d_name->len;
		if (l + 1 > at)
			return -ENAMETOOLONG;
		at -= l;
		memcpy(buf + at, p->d_name->name, l);
		if (!absolute)
			break;
		buf[--at] = '/';
	}
	struct inode *ri = real->d_inode;
	if (!ri->i_op->setxattr)
		return -EXDEV;
	down_write(&ri->i_rwsem);
	int err = ri->i_op->setxattr(ri, OVL_XATTR_REDIRECT_, buf + at, sizeof(buf) - 1 - at, 0);
	up_write(&ri->i_rwsem);
	return err;
}

static void ovl_dir_refresh(struct inode *dir)
{
	const struct ovl_real *r = ovl_real_of(dir);
	struct kstat st;
	if (r->dentry && !vfs_getattr_unseen(r->dentry->d_inode, &st)) {
		inode_set_times(dir, &st.atime, &st.mtime, &st.ctime);
		WRITE_ONCE(dir->i_size, st.size);
		if (!READ_ONCE(OVL_I(dir)->merged))
			set_nlink(dir, st.nlink);
	}
}

/* Whether a lower layer of dir has name (a whiteout counts: the name
 * must stay hidden), as Linux's ovl_lower_positive. */
static bool ovl_lower_has(struct inode *dir, const struct qstr *name, int *errp)
{
	struct ovl_inode *oi = OVL_I(dir);
	for (int i = 0; i < oi->nlower; i++) {
		struct dentry *r = ovl_lookup_real(oi->lower[i].dentry, name->name, name->len, errp);
		if (!r)
			return false;
		bool pos = r->d_inode != NULL;
		dput(r);
		if (pos)
			return true;
	}
	return false;
}

/*
 * Linux's shared whiteout: one 0/0 device in the work directory, linked
 * to every name a removal hides, made before the upper parent is locked
 * (the work directory's lock is never taken inside an upper one's).
 */
static int ovl_prepare_whiteout(struct ovl_sb_info *ofs)
{
	pthread_mutex_lock(&ofs->whiteout_lock);
	int err = 0;
	if (!ofs->whiteout) {
		struct dentry *work = ofs->workdir.dentry;
		struct inode *wdir = work->d_inode;
		char name[24];
		int l = snprintf(name, sizeof(name), "#%x", ++ofs->tmp_seq);
		const struct qstr q = { .name = name, .len = (uint32_t)l, .hash = name_hash(name, (unsigned)l) };
		down_write(&wdir->i_rwsem);
		struct dentry *d = d_lookup_or_alloc(work, &q, &err);
		if (d && d->d_inode)
			err = -EEXIST;
		else if (d)
			err = wdir->i_op->mknod ? wdir->i_op->mknod(wdir, d, S_IFCHR, makedev(0, 0), &ovl_mounter_cred)
						: -EPERM;
		up_write(&wdir->i_rwsem);
		if (!err)
			ofs->whiteout = d;
		else if (d)
			dput(d);
	}
	pthread_mutex_unlock(&ofs->whiteout_lock);
	return err;
}

static int ovl_whiteout(struct inode *udir, struct dentry *rd)
{
	return udir->i_op->mknod ? udir->i_op->mknod(udir, rd, S_IFCHR, makedev(0, 0), &ovl_mounter_cred) : -EPERM;
}

/* A whiteout at rd (udir locked): a link of the shared one when there is
 * one, else a device of its own (a rename's, as RENAME_WHITEOUT makes). */
static int ovl_whiteout_shared(struct ovl_sb_info *ofs, struct inode *udir, struct dentry *rd)
{
	struct dentry *w = ofs->whiteout;
	if (!w || !udir->i_op->link)
		return ovl_whiteout(udir, rd);
	struct inode *wi = w->d_inode;
	down_write(&wi->i_rwsem);
	int err = udir->i_op->link(w, udir, rd);
	up_write(&wi->i_rwsem);
	return err == -EMLINK ? ovl_whiteout(udir, rd) : err;
}

/* An unlink of d in the real directory dir, which the caller locked: the
 * victim's lock around ->unlink, then the name leaves the dcache
 * (d_delete), as the VFS's unlink does (names.c); the caller keeps its
 * reference. */
int ovl_do_unlink(struct inode *dir, struct dentry *d)
{
	struct inode *inode = d->d_inode;
	down_write(&inode->i_rwsem);
	int err = dir->i_op->unlink ? dir->i_op->unlink(dir, d) : -EPERM;
	up_write(&inode->i_rwsem);
	if (!err)
		d_delete(d);
	return err;
}

/* The real dentry of name in the upper directory, locked by the caller;
 * a whiteout there is removed first (*was_whiteout). */
static struct dentry *ovl_upper_slot(struct dentry *udir, const struct qstr *name, bool *was_whiteout, int *errp)
{
	struct inode *ui = udir->d_inode;
	struct dentry *rd = d_lookup_or_alloc(udir, name, errp);
	*was_whiteout = false;
	if (rd && rd->d_inode && ovl_is_whiteout(rd)) {
		*errp = ovl_do_unlink(ui, rd);
		dput(rd);
		if (*errp)
			return NULL;
		*was_whiteout = true;
		rd = d_lookup_or_alloc(udir, name, errp);
	}
	if (rd && rd->d_inode) {
		dput(rd);
		*errp = -EEXIST;
		return NULL;
	}
	return rd;
}

static int ovl_instantiate(struct inode *dir, struct dentry *d, struct dentry *rd)
{
	struct ovl_real upper = { .dentry = dget(rd), .layer = &OVL_SB(dir->i_sb)->upper };
	int err;
	struct inode *inode = ovl_get_inode(dir->i_sb, &upper, NULL, 0, false, &err);
	if (!inode)
		return err;
	OVL_I(inode)->alias = d;
	d_instantiate(d, inode);
	if (d_unhashed(d))
		d_add_hashed(d);
	return 0;
}

static int ovl_create_object(struct inode *dir, struct dentry *d, umode_t mode, dev_t rdev, const char *link,
			     const struct cred *c)
{
	int err = ovl_copy_up(d->d_parent);
	if (err)
		return err;
	struct dentry *udir = OVL_I(dir)->upper.dentry;
	struct inode *ui = udir->d_inode;
	const struct qstr name = { .name = d->d_name->name, .len = d->d_name->len, .hash = d->d_name->hash };
	bool was_whiteout;
	down_write(&ui->i_rwsem);
	struct dentry *rd = ovl_upper_slot(udir, &name, &was_whiteout, &err);
	if (!rd)
		goto out;
	switch (mode & S_IFMT) {
	case S_IFDIR:
		err = ui->i_op->mkdir ? ui->i_op->mkdir(ui, rd, mode & 07777, c) : -EPERM;
		/* over a whiteout: the lower directory must stay hidden */
		if (!err && was_whiteout)
			err = ovl_set_xattr_once(rd, OVL_XATTR_OPAQUE, "y", 1);
		break;
	case S_IFREG:
		err = ui->i_op->create ? ui->i_op->create(ui, rd, mode & 07777, c) : -EPERM;
		break;
	case S_IFLNK:
		err = ui->i_op->symlink ? ui->i_op->symlink(ui, rd, link, c) : -EPERM;
		break;
	default:
		err = ui->i_op->mknod ? ui->i_op->mknod(ui, rd, mode, rdev, c) : -EPERM;
		break;
	}
	if (!err)
		err = ovl_instantiate(dir, d, rd);
	dput(rd);
out:
	up_write(&ui->i_rwsem);
	ovl_dir_refresh(dir);
	return err;
}

static int ovl_create(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	return ovl_create_object(dir, d, (mode & 07777) | S_IFREG, 0, NULL, c);
}

static int ovl_mkdir(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	return ovl_create_object(dir, d, (mode & 07777) | S_IFDIR, 0, NULL, c);
}

static int ovl_mknod(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c)
{
	/* Linux's ovl_mknod: a whiteout is the overlay's, not the caller's */
	if (S_ISCHR(mode) && dev == makedev(0, 0))
		return -EPERM;
	return ovl_create_object(dir, d, mode, dev, NULL, c);
}

static int ovl_symlink(struct inode *dir, struct dentry *d, const char *target, const struct cred *c)
{
	return ovl_create_object(dir, d, S_IFLNK | 0777, 0, target, c);
}

static int ovl_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	int err = ovl_copy_up(old);
	if (!err)
		err = ovl_copy_up(d->d_parent);
	if (err)
		return err;
	struct dentry *rold = OVL_I(old->d_inode)->upper.dentry;
	struct dentry *udir = OVL_I(dir)->upper.dentry;
	struct inode *ui = udir->d_inode;
	const struct qstr name = { .name = d->d_name->name, .len = d->d_name->len, .hash = d->d_name->hash };
	bool was_whiteout;
	down_write(&ui->i_rwsem);
	struct dentry *rd = ovl_upper_slot(udir, &name, &was_whiteout, &err);
	if (rd) {
		struct inode *ri = rold->d_inode;
		down_write(&ri->i_rwsem);
		err = ui->i_op->link ? ui->i_op->link(rold, ui, rd) : -EPERM;
		up_write(&ri->i_rwsem);
		if (!err)
			err = ovl_instantiate(dir, d, rd);
		dput(rd);
	}
	up_write(&ui->i_rwsem);
	ovl_dir_refresh(dir);
	/* the old name's count moved with the real inode's */
	struct kstat st;
	if (!err && !vfs_getattr_unseen(rold->d_inode, &st))
		set_nlink(old->d_inode, st.nlink);
	return err;
}

/* O_TMPFILE: a real one in the upper directory, behind a dentry of no
 * name (as the VFS makes one for the overlay's), linked later by linkat */
static int ovl_tmpfile(struct inode *dir, struct inode **out, umode_t mode, const struct cred *c)
{
	struct ovl_inode *odi = OVL_I(dir);
	int err = odi->alias ? ovl_copy_up(odi->alias) : -ESTALE;
	if (err)
		return err;
	struct dentry *udir = odi->upper.dentry;
	struct inode *ui = udir->d_inode;
	if (!ui->i_op->tmpfile)
		return -EOPNOTSUPP;
	struct inode *ri = NULL;
	err = ui->i_op->tmpfile(ui, &ri, mode, c);
	if (err)
		return err;
	struct dentry *rd = d_alloc_pseudo(ui->i_sb, ri);
	if (!rd) {
		iput(ri);
		return -ENOMEM;
	}
	d_clear_flags(rd, DCACHE_DISCONNECTED);
	rd->d_parent = dget(udir);
	struct ovl_real upper = { .dentry = rd, .layer = &OVL_SB(dir->i_sb)->upper };
	struct inode *inode = ovl_get_inode(dir->i_sb, &upper, NULL, 0, false, &err);
	if (!inode)
		return err;
	*out = inode;
	return 0;
}

/* The merged directory shows nothing but "." and ".."?  ENOTEMPTY if it
 * does; otherwise the names of its upper whiteouts, to go with it. */
static int ovl_check_empty(struct dentry *d, struct ovl_dircache **cp)
{
	struct file *ctx = alloc_empty_file(d->d_sb->s_uvfs, O_RDONLY);
	if (!ctx)
		return -ENOMEM;
	ctx->f_mode = FMODE_READ;
	int err = ovl_build_cache(ctx, d->d_inode, cp);
	file_free_unopened(ctx);
	if (err)
		return err;
	if (ovl_dircache_visible(*cp) > 2) {
		ovl_dircache_free(*cp);
		*cp = NULL;
		return -ENOTEMPTY;
	}
	return 0;
}

static int ovl_remove(struct inode *dir, struct dentry *d, bool is_dir)
{
	struct inode *inode = d->d_inode;
	struct ovl_inode *oi = OVL_I(inode);
	const struct qstr name = { .name = d->d_name->name, .len = d->d_name->len, .hash = d->d_name->hash };
	struct ovl_dircache *c = NULL;
	int err = 0;
	if (is_dir && (err = ovl_check_empty(d, &c)) != 0)
		return err;
	bool whiteout = ovl_lower_has(dir, &name, &err);
	if (!err)
		err = ovl_copy_up(d->d_parent);
	if (!err && whiteout)
		err = ovl_prepare_whiteout(OVL_SB(dir->i_sb));
	if (err)
		goto out;
	struct dentry *udir = OVL_I(dir)->upper.dentry;
	struct inode *ui = udir->d_inode;
	down_write(&ui->i_rwsem);
	struct dentry *rd = d_lookup_or_alloc(udir, &name, &err);
	if (rd && rd->d_inode && rd == oi->upper.dentry) {
		struct inode *ri = rd->d_inode;
		down_write(&ri->i_rwsem);
		if (is_dir && c)
			err = ovl_dircache_remove_whiteouts(c, rd);
		if (!err)
			err = is_dir ? (ui->i_op->rmdir ? ui->i_op->rmdir(ui, rd) : -EPERM)
				     : (ui->i_op->unlink ? ui->i_op->unlink(ui, rd) : -EPERM);
		up_write(&ri->i_rwsem);
		if (!err && !is_dir)
			d_delete(rd); /* as ovl_do_unlink: the name leaves the dcache */
		if (!err && whiteout) {
			dput(rd);
			rd = d_lookup_or_alloc(udir, &name, &err);
		}
	} else if (rd && rd->d_inode) {
		err = -ESTALE; /* the upper layer changed behind the overlay */
	}
	if (!err && rd && whiteout)
		err = ovl_whiteout_shared(OVL_SB(dir->i_sb), ui, rd);
	if (rd)
		dput(rd);
	up_write(&ui->i_rwsem);
	if (!err) {
		if (is_dir) {
			inode_flags_set(inode, S_DEAD_DIR);
			set_nlink(inode, 0);
		} else {
			drop_nlink(inode);
		}
		/* an unlink's name leaves the dcache in the VFS (d_delete) */
		if (is_dir)
			d_delete_entry(d);
	}
	ovl_dir_refresh(dir);
out:
	ovl_dircache_free(c);
	return err;
}

static int ovl_unlink(struct inode *dir, struct dentry *d)
{
	return ovl_remove(dir, d, false);
}

static int ovl_rmdir(struct inode *dir, struct dentry *d)
{
	return ovl_remove(dir, d, true);
}

/* RENAME_EXCHANGE: both names copied up, the real objects exchanged; each
 * name stays, so no whiteout is needed */
static int ovl_exchange(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd,
			const struct cred *c, bool redirect)
{
	struct inode *tgt = nd->d_inode;
	if (S_ISDIR(tgt->i_mode) && OVL_I(tgt)->nlower && !OVL_SB(odir->i_sb)->redirect_dir)
		return -EXDEV;
	if (redirect || (S_ISDIR(tgt->i_mode) && OVL_I(tgt)->nlower))
		return -EXDEV; /* exchanged redirects are not written (docs/ARCHITECTURE.md) */
	int err = ovl_copy_up_ctx(od->d_parent, true);
	if (!err)
		err = ovl_copy_up_ctx(nd->d_parent, true);
	if (!err)
		err = ovl_copy_up_ctx(od, true);
	if (!err)
		err = ovl_copy_up_ctx(nd, true);
	if (err)
		return err;
	struct dname *na = d_name_copy(nd), *nb = d_name_copy(od);
	if (!na || !nb) {
		d_name_free(na);
		d_name_free(nb);
		return -ENOMEM;
	}
	struct dentry *uodir = OVL_I(odir)->upper.dentry, *undir = OVL_I(ndir)->upper.dentry;
	struct inode *uo = uodir->d_inode, *un = undir->d_inode;
	struct inode *first = uo, *second = un;
	if (uo != un && ovl_is_ancestor(undir, uodir)) {
		first = un;
		second = uo;
	}
	const struct qstr oname = { .name = od->d_name->name, .len = od->d_name->len, .hash = od->d_name->hash };
	const struct qstr nname = { .name = nd->d_name->name, .len = nd->d_name->len, .hash = nd->d_name->hash };
	down_write(&first->i_rwsem);
	if (second != first)
		down_write(&second->i_rwsem);
	struct dentry *rod = d_lookup_or_alloc(uodir, &oname, &err);
	struct dentry *rnd = rod ? d_lookup_or_alloc(undir, &nname, &err) : NULL;
	if (rnd && (rod->d_inode != OVL_I(od->d_inode)->upper.dentry->d_inode ||
		    rnd->d_inode != OVL_I(tgt)->upper.dentry->d_inode))
		err = -ESTALE;
	if (!err && rnd)
		err = uo->i_op->rename ? uo->i_op->rename(uo, rod, un, rnd, RENAME_EXCHANGE, c) : -EXDEV;
	/* each side's rule of ovl_rename (neither has a lower part here) */
	if (!err && S_ISDIR(od->d_inode->i_mode) && OVL_I(ndir)->nlower)
		err = ovl_set_xattr_once(OVL_I(od->d_inode)->upper.dentry, OVL_XATTR_OPAQUE, "y", 1);
	if (!err && S_ISDIR(tgt->i_mode) && OVL_I(odir)->nlower)
		err = ovl_set_xattr_once(OVL_I(tgt)->upper.dentry, OVL_XATTR_OPAQUE, "y", 1);
	if (rnd)
		dput(rnd);
	if (rod)
		dput(rod);
	if (second != first)
		up_write(&second->i_rwsem);
	up_write(&first->i_rwsem);
	if (err) {
		d_name_free(na);
		d_name_free(nb);
		return err;
	}
	if (odir != ndir) {
		uint64_t ino;
		if (ovl_origin_ino(OVL_I(od->d_inode)->upper.dentry, &ino))
			ovl_set_xattr_once(undir, OVL_XATTR_IMPURE, "y", 1);
		if (ovl_origin_ino(OVL_I(tgt)->upper.dentry, &ino))
			ovl_set_xattr_once(uodir, OVL_XATTR_IMPURE, "y", 1);
	}
	d_exchange(od, nd, na, nb);
	ovl_dir_refresh(odir);
	if (ndir != odir)
		ovl_dir_refresh(ndir);
	struct kstat st;
	if (!vfs_getattr_unseen(OVL_I(tgt)->upper.dentry->d_inode, &st))
		inode_set_times(tgt, NULL, NULL, &st.ctime);
	if (!vfs_getattr_unseen(OVL_I(od->d_inode)->upper.dentry->d_inode, &st))
		inode_set_times(od->d_inode, NULL, NULL, &st.ctime);
	return 0;
}

static int ovl_rename(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd, unsigned flags,
		      const struct cred *c)
{
	/* Linux's ovl_rename takes NOREPLACE and EXCHANGE (two names of one
	 * object never come here: s_op->real_inode) */
	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	struct inode *src = od->d_inode, *tgt = nd->d_inode;
	struct ovl_inode *si = OVL_I(src);
	struct ovl_sb_info *ofs = OVL_SB(odir->i_sb);
	bool is_dir = S_ISDIR(src->i_mode);
	bool redirect = false;
	if (is_dir && si->nlower) {
		if (!ofs->redirect_dir)
			return -EXDEV;
		redirect = true;
	}
	if (flags & RENAME_EXCHANGE)
		return ovl_exchange(odir, od, ndir, nd, c, redirect);
	const struct qstr oname = { .name = od->d_name->name, .len = od->d_name->len, .hash = od->d_name->hash };
	const struct qstr nname = { .name = nd->d_name->name, .len = nd->d_name->len, .hash = nd->d_name->hash };
	struct ovl_dircache *tc = NULL;
	int err = 0;
	if (tgt && S_ISDIR(tgt->i_mode) && (err = ovl_check_empty(nd, &tc)) != 0)
		return err;
	bool whiteout = ovl_lower_has(odir, &oname, &err);
	if (!err)
		err = ovl_copy_up_ctx(od->d_parent, true);
	if (!err)
		err = ovl_copy_up_ctx(nd->d_parent, true);
	if (!err)
		err = ovl_copy_up_ctx(od, true);
	struct dname *na = err ? NULL : d_name_copy(nd);
	if (!err && !na)
		err = -ENOMEM;
	if (err)
		goto out;
	struct dentry *uodir = OVL_I(odir)->upper.dentry, *undir = OVL_I(ndir)->upper.dentry;
	struct inode *uo = uodir->d_inode, *un = undir->d_inode;
	/* both upper directories lie below the upper root, which the VFS's
	 * lock of the overlay parents orders; parent before child */
	struct inode *first = uo, *second = un;
	if (uo != un && ovl_is_ancestor(undir, uodir)) {
		first = un;
		second = uo;
	}
	down_write(&first->i_rwsem);
	if (second != first)
		down_write(&second->i_rwsem);
	struct dentry *rod = d_lookup_or_alloc(uodir, &oname, &err);
	struct dentry *rnd = NULL;
	if (rod && rod->d_inode != si->upper.dentry->d_inode)
		err = -ESTALE;
	if (!err && rod) {
		rnd = d_lookup_or_alloc(undir, &nname, &err);
		if (rnd && rnd->d_inode && ovl_is_whiteout(rnd)) {
			err = ovl_do_unlink(un, rnd);
			dput(rnd);
			rnd = err ? NULL : d_lookup_or_alloc(undir, &nname, &err);
		}
	}
	if (!err && rnd && rnd->d_inode && tc) {
		struct inode *ti = rnd->d_inode;
		down_write(&ti->i_rwsem);
		err = ovl_dircache_remove_whiteouts(tc, rnd);
		up_write(&ti->i_rwsem);
	}
	if (!err && rnd) {
		struct inode *rt = rnd->d_inode;
		if (rt)
			down_write(&rt->i_rwsem);
		err = uo->i_op->rename ? uo->i_op->rename(uo, rod, un, rnd, flags, c) : -EXDEV;
		if (rt)
			up_write(&rt->i_rwsem);
	}
	if (!err && redirect)
		err = ovl_set_redirect(rod, od, odir != ndir);
	if (!err && whiteout) {
		struct dentry *w = d_lookup_or_alloc(uodir, &oname, &err);
		if (w) {
			err = w->d_inode ? -EEXIST : ovl_whiteout(uo, w);
			dput(w);
		}
	}
	/* Linux's ovl_rename: a directory with no lower part moved into a
	 * merged directory becomes opaque, so that no lower directory of its
	 * new name merges into it, in this mount (where a whiteout was) or in
	 * the next (a lower directory emptied by whiteouts, replaced) */
	if (!err && is_dir && !redirect && OVL_I(ndir)->nlower)
		err = ovl_set_xattr_once(rod, OVL_XATTR_OPAQUE, "y", 1);
	if (rnd)
		dput(rnd);
	if (rod)
		dput(rod);
	if (second != first)
		up_write(&second->i_rwsem);
	up_write(&first->i_rwsem);
	if (err)
		goto out;
	/* Linux's ovl_rename: what has an origin marks a new parent impure
	 * (a parent it stays in was marked when it was copied up) */
	uint64_t oino;
	if (odir != ndir && (si->nlower || ovl_origin_ino(si->upper.dentry, &oino)))
		ovl_set_xattr_once(undir, OVL_XATTR_IMPURE, "y", 1);
	if (tgt) {
		if (S_ISDIR(tgt->i_mode)) {
			inode_flags_set(tgt, S_DEAD_DIR);
			set_nlink(tgt, 0);
		} else {
			drop_nlink(tgt);
		}
	}
	d_move(od, nd, na);
	na = NULL;
	ovl_dir_refresh(odir);
	if (ndir != odir)
		ovl_dir_refresh(ndir);
out:
	d_name_free(na);
	ovl_dircache_free(tc);
	return err;
}

/* notify_change's checks passed: the upper object takes the change as the
 * mounter (through its layer's ->setattr), then the overlay inode. */
static int ovl_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	struct ovl_inode *oi = OVL_I(inode);
	/* a write dropping setuid knows only the inode: its file is upper */
	int err = d ? ovl_copy_up(d) : smp_load_acquire(&oi->upper.dentry) ? 0 : -ESTALE;
	if (err)
		return err;
	struct dentry *rd = oi->upper.dentry;
	struct inode *real = rd->d_inode;
	struct iattr ria = *ia;
	ria.ia_valid = (ia->ia_valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE | ATTR_ATIME | ATTR_MTIME |
					 ATTR_ATIME_SET | ATTR_MTIME_SET)) | ATTR_CTIME | ATTR_FORCE;
	bool resized = setattr_resizes(inode, ia);
	/* a chmod rewrites the upper object's ACL as the VFS's chmod would
	 * there (the overlay inode's own copy is the caller's, attr.c) */
	struct posix_acl *racl = NULL;
	down_write(&real->i_rwsem);
	if (ria.ia_valid & ATTR_MODE)
		err = posix_acl_chmod_prepare(real, ria.ia_mode, &racl);
	if (!err)
		err = inode_setattr(rd, real, &ria);
	if (!err && (ria.ia_valid & ATTR_MODE))
		posix_acl_chmod_commit(real, racl);
	else
		free(racl);
	/* a capability that came up with the object goes as it would on the
	 * upper filesystem */
	if (!err && (ia->ia_valid & ATTR_KILL_PRIV))
		inode_killpriv(real);
	up_write(&real->i_rwsem);
	if (err)
		return err;
	if (ia->ia_valid & ATTR_MODE)
		inode_fastperm_changed(real);
	if (resized)
		WRITE_ONCE(inode->i_size, ia->ia_size);
	setattr_copy(inode, ia, resized);
	return 0;
}

static int ovl_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags)
{
	/* the overlay's own: Linux answers success and stores nothing */
	if (!strncmp(name, OVL_XATTR_PREFIX, sizeof(OVL_XATTR_PREFIX) - 1))
		return 0;
	struct ovl_inode *oi = OVL_I(inode);
	int err = smp_load_acquire(&oi->upper.dentry) ? 0 : oi->alias ? ovl_copy_up(oi->alias) : -ESTALE;
	if (err)
		return err;
	struct inode *real = oi->upper.dentry->d_inode;
	if (!real->i_op->setxattr)
		return -EOPNOTSUPP;
	down_write(&real->i_rwsem);
	err = real->i_op->setxattr(real, name, value, size, flags);
	up_write(&real->i_rwsem);
	if (!err)
		inode_touch_c(inode);
	return err;
}

/*
 * Linux's ovl_set_acl: the VFS checked the caller on the overlay inode
 * (posix_acl_xattr_set, i_rwsem held); the object is copied up and the ACL
 * set on the upper one as the mounter, then kept in the overlay inode too
 * (inode.c).  The upper filesystem owns acl once its ->set_acl succeeded.
 */
static int ovl_set_acl(struct inode *inode, int type, struct posix_acl *acl, umode_t mode)
{
	struct ovl_inode *oi = OVL_I(inode);
	int err = smp_load_acquire(&oi->upper.dentry) ? 0 : oi->alias ? ovl_copy_up(oi->alias) : -ESTALE;
	if (err)
		return err;
	struct inode *real = oi->upper.dentry->d_inode;
	if (!real->i_op->set_acl)
		return -EOPNOTSUPP;
	struct posix_acl *mine = acl ? posix_acl_dup(acl) : NULL;
	if (acl && !mine)
		return -ENOMEM;
	down_write(&real->i_rwsem);
	err = real->i_op->set_acl(real, type, acl, mode);
	up_write(&real->i_rwsem);
	if (err) {
		free(mine);
		return err;
	}
	if (type == ACL_TYPE_ACCESS)
		inode_fastperm_changed(real);
	return simple_set_acl(inode, type, mine, mode);
}

/* what every overlay inode has: its attributes and xattrs are the real
 * object's, changed in the upper one */
#define OVL_COMMON_OPS .getattr = ovl_getattr, .getxattr = ovl_getxattr, .setxattr = ovl_setxattr, \
	.listxattr = ovl_listxattr, .setattr = ovl_setattr

const struct inode_operations ovl_dir_inode_operations = {
	.lookup = ovl_lookup,
	.create = ovl_create,
	.mkdir = ovl_mkdir,
	.mknod = ovl_mknod,
	.symlink = ovl_symlink,
	.link = ovl_link,
	.unlink = ovl_unlink,
	.rmdir = ovl_rmdir,
	.rename = ovl_rename,
	.tmpfile = ovl_tmpfile,
	.set_acl = ovl_set_acl,
	OVL_COMMON_OPS,
	.fileattr_get = ovl_fileattr_get, .fileattr_set = ovl_fileattr_set,
};

const struct inode_operations ovl_file_inode_operations = {
	.set_acl = ovl_set_acl,
	OVL_COMMON_OPS,
	.fileattr_get = ovl_fileattr_get, .fileattr_set = ovl_fileattr_set,
};

const struct inode_operations ovl_special_inode_operations = { .set_acl = ovl_set_acl, OVL_COMMON_OPS };

const struct inode_operations ovl_symlink_inode_operations = { OVL_COMMON_OPS };
