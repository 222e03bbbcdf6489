// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * namei.c - a name through the layers (Linux's fs/overlayfs/namei.c).
 *
 * The upper layer is asked first, then the lowers, top first.  A whiteout
 * (a character device 0/0) ends the search with no name; a non-directory
 * ends it with itself; a directory merges with the directories of the same
 * name below it, down to the first opaque one (trusted.overlay.opaque "y")
 * or the first non-directory, which is hidden.
 *
 * Locks: the overlay directory's i_rwsem is held (shared, by the walk);
 * each real directory's is taken exclusive around its own lookup, inside
 * it, as Linux takes the layers' locks inside the overlay's.
 */
#include "overlayfs.h"

struct dentry *ovl_lookup_real(struct dentry *dir, const char *name, size_t len, int *errp)
{
	struct inode *di = dir->d_inode;
	const struct qstr q = { .name = name, .len = (uint32_t)len, .hash = name_hash(name, (unsigned)len) };
	down_write(&di->i_rwsem);
	struct dentry *d = d_lookup_or_alloc(dir, &q, errp);
	up_write(&di->i_rwsem);
	return d;
}

bool ovl_is_whiteout(const struct dentry *d)
{
	const struct inode *inode = d->d_inode;
	return inode && S_ISCHR(READ_ONCE(inode->i_mode)) && READ_ONCE(inode->i_rdev) == makedev(0, 0);
}

/* The overlay reads its own xattrs as its mounter, Linux's ovl_override_creds:
 * through the layer's operation, past the caller's permission checks. */
bool ovl_is_opaque_dir(struct dentry *d)
{
	struct inode *inode = d->d_inode;
	char v[2];
	if (!inode || !S_ISDIR(inode->i_mode) || !inode->i_op->getxattr)
		return false;
	ssize_t n = inode->i_op->getxattr(inode, OVL_XATTR_OPAQUE, v, sizeof(v));
	return n == 1 && v[0] == 'y';
}

void ovl_real_put(struct ovl_real *r)
{
	if (r->dentry)
		dput(r->dentry);
	r->dentry = NULL;
}

/* Sets name on a real object unless it has one: the overlay's own
 * metadata, written as its mounter, with the object's i_rwsem. */
int ovl_set_xattr_once(struct dentry *real, const char *name, const void *value, size_t size)
{
	struct inode *inode = real->d_inode;
	if (!inode->i_op->setxattr || !inode->i_op->getxattr)
		return -EOPNOTSUPP;
	down_write(&inode->i_rwsem);
	int err = 0;
	if (inode->i_op->getxattr(inode, name, NULL, 0) == -ENODATA)
		err = inode->i_op->setxattr(inode, name, value, size, XATTR_CREATE_);
	up_write(&inode->i_rwsem);
	return err == -EEXIST ? 0 : err;
}

/*
 * Linux's ovl_fb, the origin of an upper object: version 0, magic 0xfb,
 * length, flags (little endian), the handle type, the lower superblock's
 * uuid (uvfs keeps none: zeros) and the lower inode's handle as tmpfs
 * encodes it (generation, then the inode number's two halves).
 */
int ovl_set_origin(struct dentry *upper, struct dentry *lower)
{
	uint8_t fb[5 + 16 + 12] = { 0, 0xfb, sizeof(fb), 1, 1 };
	uint64_t ino = lower->d_inode->i_ino;
	uint32_t fid[3] = { 0, (uint32_t)ino, (uint32_t)(ino >> 32) };
	memcpy(fb + 21, fid, sizeof(fid));
	return ovl_set_xattr_once(upper, OVL_XATTR_ORIGIN, fb, sizeof(fb));
}

/* The lower inode number an origin names (ovl_set_origin's layout, which
 * is also what Linux writes for a tmpfs lower layer). */
bool ovl_origin_ino(struct dentry *real, uint64_t *ino)
{
	struct inode *inode = real->d_inode;
	uint8_t fb[64];
	if (!inode->i_op->getxattr)
		return false;
	ssize_t n = inode->i_op->getxattr(inode, OVL_XATTR_ORIGIN, fb, sizeof(fb));
	if (n != 33 || fb[0] != 0 || fb[1] != 0xfb || fb[2] != 33 || fb[4] != 1)
		return false;
	uint32_t fid[3];
	memcpy(fid, fb + 21, sizeof(fid));
	*ino = fid[1] | (uint64_t)fid[2] << 32;
	return true;
}

bool ovl_is_impure(struct dentry *real)
{
	struct inode *inode = real->d_inode;
	char v[2];
	return inode->i_op->getxattr && inode->i_op->getxattr(inode, OVL_XATTR_IMPURE, v, sizeof(v)) == 1 &&
	       v[0] == 'y';
}

/* A merged directory found for the first time: Linux records the lower
 * directory it merges as the upper one's origin, and marks the upper
 * parent impure (it now has a child with an origin). */
static void ovl_record_origin(struct inode *dir, struct ovl_real *upper, struct ovl_real *lower)
{
	if (READ_ONCE(dir->i_sb->s_flags) & SB_RDONLY || !upper->dentry->d_inode->i_op->getxattr)
		return;
	struct inode *ui = upper->dentry->d_inode;
	if (ui->i_op->getxattr(ui, OVL_XATTR_ORIGIN, NULL, 0) != -ENODATA)
		return;
	/* a failure leaves the layer as it was: the view is the same */
	if (!ovl_set_origin(upper->dentry, lower->dentry))
		ovl_set_xattr_once(OVL_I(dir)->upper.dentry, OVL_XATTR_IMPURE, "y", 1);
}

/* The redirect of a real directory, malloc'd, or NULL. */
static char *ovl_get_redirect(struct dentry *real)
{
	struct inode *inode = real->d_inode;
	if (!S_ISDIR(inode->i_mode) || !inode->i_op->getxattr)
		return NULL;
	char buf[PATH_MAX];
	ssize_t n = inode->i_op->getxattr(inode, OVL_XATTR_REDIRECT_, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	/* a relative one is one name; anything else is not Linux's */
	if (buf[0] != '/' && memchr(buf, '/', (size_t)n))
		return NULL;
	return strdup(buf);
}

/* An absolute redirect from a layer's root, component by component: the
 * directory it names (referenced), a negative dentry, or NULL (*errp). */
static struct dentry *ovl_walk_layer(struct dentry *root, const char *path, int *errp)
{
	struct dentry *d = dget(root);
	const char *s = path;
	while (*s) {
		while (*s == '/')
			s++;
		size_t l = strcspn(s, "/");
		if (!l)
			break;
		if (!d->d_inode || !S_ISDIR(d->d_inode->i_mode)) {
			/* not there: a negative answer */
			return d;
		}
		struct dentry *next = ovl_lookup_real(d, s, l, errp);
		dput(d);
		if (!next)
			return NULL;
		d = next;
		s += l;
	}
	return d;
}

int ovl_lookup(struct inode *dir, struct dentry *d, unsigned flags)
{
	(void)flags;
	struct ovl_inode *odi = OVL_I(dir);
	const char *name = d->d_name->name;
	size_t len = d->d_name->len;
	struct ovl_real upper = { 0 };
	struct ovl_real *lower = NULL;
	int n = 0, err = 0;
	bool stop = false, found = false;
	char *redirect = NULL;

	int cap = odi->nlower;
	if (cap) {
		lower = calloc((size_t)cap, sizeof(*lower));
		if (!lower)
			return -ENOMEM;
	}
	/* the directory may be copied up meanwhile (copy_up.c publishes
	 * upper.dentry last, with a release) */
	struct dentry *odu = smp_load_acquire(&odi->upper.dentry);
	if (odu) {
		struct dentry *r = ovl_lookup_real(odu, name, len, &err);
		if (!r)
			goto fail;
		if (!r->d_inode) {
			dput(r);
		} else if (ovl_is_whiteout(r)) {
			dput(r);
			stop = true;
		} else {
			upper.dentry = r;
			upper.layer = odi->upper.layer;
			found = true;
			stop = !S_ISDIR(r->d_inode->i_mode) || ovl_is_opaque_dir(r);
		}
	}
	/* a renamed directory names where its lower part is (redirect_dir):
	 * followed whatever the option, as redirect_always_follow=Y */
	redirect = upper.dentry && !stop ? ovl_get_redirect(upper.dentry) : NULL;
	struct ovl_sb_info *ofs = OVL_SB(dir->i_sb);
	bool absolute = redirect && redirect[0] == '/';
	int nlayers = absolute ? ofs->nlower : odi->nlower;
	for (int i = 0; i < nlayers && !stop; i++) {
		struct dentry *r;
		const struct ovl_layer *layer = absolute ? &ofs->lower[i] : odi->lower[i].layer;
		if (absolute)
			r = ovl_walk_layer(layer->root.dentry, redirect, &err);
		else if (redirect)
			r = ovl_lookup_real(odi->lower[i].dentry, redirect, strlen(redirect), &err);
		else
			r = ovl_lookup_real(odi->lower[i].dentry, name, len, &err);
		if (!r)
			goto fail;
		if (!r->d_inode) {
			dput(r);
			continue;
		}
		bool isdir = S_ISDIR(r->d_inode->i_mode);
		if (ovl_is_whiteout(r) || (found && !isdir)) {
			/* a whiteout hides what is below; a non-directory below
			 * a directory is hidden and ends the merge */
			dput(r);
			break;
		}
		if (n == cap) {
			struct ovl_real *m = realloc(lower, (size_t)(cap = 2 * cap + 1) * sizeof(*lower));
			if (!m) {
				dput(r);
				err = -ENOMEM;
				goto fail;
			}
			lower = m;
		}
		lower[n].dentry = r;
		lower[n++].layer = layer;
		found = true;
		stop = !isdir || ovl_is_opaque_dir(r);
	}
	free(redirect);
	redirect = NULL;
	if (!found) {
		free(lower);
		return 0; /* negative */
	}
	if (upper.dentry && n && S_ISDIR(upper.dentry->d_inode->i_mode))
		ovl_record_origin(dir, &upper, &lower[0]);
	struct inode *inode = ovl_get_inode(dir->i_sb, upper.dentry ? &upper : NULL, lower, n, false, &err);
	if (!inode)
		return err; /* ovl_get_inode put the real objects */
	OVL_I(inode)->alias = d;
	d_instantiate(d, inode);
	return 0;
fail:
	free(redirect);
	ovl_real_put(&upper);
	for (int i = 0; i < n; i++)
		ovl_real_put(&lower[i]);
	free(lower);
	return err;
}
