// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * super.c - mounting an overlay (Linux's fs/overlayfs/super.c and
 * params.c): the options, the layers and their checks, the work directory.
 *
 * The layers are directories of the caller's uvfs namespace, resolved with
 * its root and cwd when the options are parsed and held as path references
 * until the superblock goes.  The errors, and the order they are found in,
 * are those Linux 6.18 gives mount(2): a layer that cannot be resolved or is
 * not a directory, an unknown option or a read-only upper layer when the
 * option is parsed, then the missing layers, then the upper and work
 * directories' relation, then overlapping layers (ELOOP).
 */
#include "overlayfs.h"
#include "namei.h"
#include "core/xattr.h"
#include "core/fs_parser.h"

struct ovl_params {
	struct path lower[OVL_MAX_LOWER];
	int nlower;
	int ndata;     /* the last ndata lowers are data-only ("::"): never looked up */
	struct path upper, work;
	bool redirect_dir;
};

static void ovl_params_free(struct ovl_params *op)
{
	for (int i = 0; i < op->nlower; i++)
		path_put(&op->lower[i]);
	op->nlower = 0;
	if (op->upper.dentry)
		path_put(&op->upper);
	if (op->work.dentry)
		path_put(&op->work);
	op->upper.dentry = op->work.dentry = NULL;
}

/* A layer's directory, as Linux's ovl_mount_dir: ENOENT and the like from
 * the walk; not a directory is EINVAL. */
static int ovl_resolve_dir(struct uvfs_proc *p, const char *name, struct path *out)
{
	struct filename fn;
	int err = getname(name, &fn, 0);
	if (!err)
		err = filename_lookup(p, AT_FDCWD, &fn, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, out);
	if (err == -ENOTDIR) {
		/* the walk says ENOTDIR for a file named last too; Linux's
		 * check is after the walk, and answers EINVAL */
		struct path pth;
		if (!filename_lookup(p, AT_FDCWD, &fn, LOOKUP_FOLLOW, &pth)) {
			path_put(&pth);
			return -EINVAL;
		}
	}
	return err;
}

/* "a:b\:c": the colon separates, a backslash escapes the next character.
 * "::" comes before each data-only layer, which only data-only layers may
 * follow.  An empty element is EINVAL. */
static int ovl_parse_lowerdir(struct uvfs_proc *p, const char *val, struct ovl_params *op)
{
	for (int i = 0; i < op->nlower; i++)
		path_put(&op->lower[i]);
	op->nlower = 0;
	op->ndata = 0;
	if (!*val)
		return -EINVAL;
	size_t n = strlen(val);
	char *buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	const char *s = val;
	bool data = false;
	int err = 0;
	while (!err) {
		size_t k = 0;
		while (*s && *s != ':') {
			if (*s == '\\' && s[1])
				s++;
			buf[k++] = *s++;
		}
		buf[k] = '\0';
		if (!k) {
			err = -EINVAL;
			break;
		}
		if (op->nlower == OVL_MAX_LOWER) {
			err = -EINVAL;
			break;
		}
		err = ovl_resolve_dir(p, buf, &op->lower[op->nlower]);
		if (err)
			break;
		op->nlower++;
		if (data)
			op->ndata++;
		if (!*s)
			break;
		s++;
		if (*s == ':') {
			data = true; /* "::" before each data-only layer */
			s++;
		} else if (data) {
			err = -EINVAL; /* a regular layer after a data-only one */
			break;
		}
	}
	free(buf);
	return err;
}

enum { OPT_LOWERDIR, OPT_UPPERDIR, OPT_WORKDIR, OPT_REDIRECT_DIR, OPT_OFF_ONLY, OPT_XINO };

static const struct fs_parameter_spec ovl_param_specs[] = {
	{ "lowerdir", OPT_LOWERDIR },
	{ "upperdir", OPT_UPPERDIR },
	{ "workdir", OPT_WORKDIR },
	{ "redirect_dir", OPT_REDIRECT_DIR },
	/* only what this kernel does by default */
	{ "index", OPT_OFF_ONLY },
	{ "metacopy", OPT_OFF_ONLY },
	{ "nfs_export", OPT_OFF_ONLY },
	{ "xino", OPT_XINO },
	{ NULL, 0 },
};

struct ovl_parse_ctx {
	struct uvfs_proc *p;
	struct ovl_params *op;
};

static int ovl_param(void *ctx, int opt, char *val)
{
	struct ovl_parse_ctx *c = ctx;
	struct ovl_params *op = c->op;
	int err = 0;
	switch (opt) {
	case OPT_LOWERDIR:
		return ovl_parse_lowerdir(c->p, val, op);
	case OPT_UPPERDIR:
	case OPT_WORKDIR: {
		struct path *slot = opt == OPT_UPPERDIR ? &op->upper : &op->work;
		if (slot->dentry) {
			path_put(slot);
			slot->dentry = NULL;
		}
		if (!*val)
			return -EINVAL;
		err = ovl_resolve_dir(c->p, val, slot);
		if (err) {
			slot->dentry = NULL;
		} else if (slot == &op->upper && mnt_want_write(slot->mnt)) {
			/* Linux: "filesystem on ... is read-only" */
			err = -EINVAL;
		} else if (slot == &op->upper && slot->dentry->d_sb->s_magic == OVERLAYFS_MAGIC_) {
			/* Linux: "filesystem on ... not supported as upperdir"
			 * (an overlay may only be a lower layer) */
			err = -EINVAL;
		}
		return err;
	}
	case OPT_REDIRECT_DIR:
		if (!strcmp(val, "on"))
			op->redirect_dir = true;
		else if (!strcmp(val, "off") || !strcmp(val, "follow") || !strcmp(val, "nofollow"))
			op->redirect_dir = false;
		else
			return -EINVAL;
		return 0;
	case OPT_OFF_ONLY:
		return strcmp(val, "off") ? -EINVAL : 0;
	default:
		/* auto gives no xino bits when the layers share a superblock,
		 * and this overlay reports like that */
		return strcmp(val, "off") && strcmp(val, "auto") ? -EINVAL : 0;
	}
}

/* Unknown parameters: EINVAL.  The flag words are not taken here (the
 * VFS's flags are the only way to give them). */
static const struct fs_parser ovl_parser = { .specs = ovl_param_specs, .param = ovl_param };

static int ovl_parse_options(struct uvfs_proc *p, const char *data, struct ovl_params *op)
{
	struct ovl_parse_ctx c = { p, op };
	return fs_parse_options(&ovl_parser, data, &c);
}

static bool is_ancestor_or_self(struct dentry *anc, struct dentry *d)
{
	for (;;) {
		if (d == anc)
			return true;
		if (d->d_parent == d)
			return false;
		d = d->d_parent;
	}
}

/* Linux's traps: the roots of the layers and the work directory.  A lower
 * layer that is one, or is below one, overlaps (ELOOP). */
static bool ovl_is_trap(const struct ovl_params *op, struct dentry *work, int nlower, struct dentry *d)
{
	if (op->upper.dentry && d == op->upper.dentry)
		return true;
	if (work && d == work)
		return true;
	for (int i = 0; i < nlower; i++)
		if (op->lower[i].dentry == d)
			return true;
	return false;
}

static int ovl_check_layers(const struct ovl_params *op, struct dentry *work)
{
	/* each lower's root must not already be a layer's (conflicting) */
	for (int i = 0; i < op->nlower; i++)
		if (ovl_is_trap(op, work, i, op->lower[i].dentry))
			return -ELOOP;
	/* nor lie below one (overlapping); the whole tree's dentries are
	 * stable here: renames of ancestors race only with a bad setup */
	for (int i = 0; i < op->nlower; i++) {
		struct dentry *d = op->lower[i].dentry;
		while (d->d_parent != d) {
			d = d->d_parent;
			if (ovl_is_trap(op, work, op->nlower, d))
				return -ELOOP;
		}
	}
	return 0;
}

/* workdir/work, made with mode 0 as Linux's ovl_workdir_create does; one
 * left by an earlier mount is used again. */
static int ovl_make_workdir(struct ovl_params *op, struct path *out)
{
	static const struct cred mounter = { .usage = 1 };
	struct dentry *base = op->work.dentry;
	struct inode *dir = base->d_inode;
	const struct qstr name = { .name = "work", .len = 4, .hash = name_hash("work", 4) };
	int err = mnt_want_write(op->work.mnt);
	if (err)
		return -EINVAL;
	down_write(&dir->i_rwsem);
	struct dentry *d = d_lookup_or_alloc(base, &name, &err);
	if (d && !d->d_inode) {
		err = dir->i_op->mkdir ? dir->i_op->mkdir(dir, d, S_IFDIR, &mounter) : -EPERM;
	} else if (d && !S_ISDIR(d->d_inode->i_mode)) {
		err = -EEXIST;
	}
	up_write(&dir->i_rwsem);
	if (err) {
		if (d)
			dput(d);
		return err;
	}
	out->mnt = mntget(op->work.mnt);
	out->dentry = d;
	return 0;
}

static void ovl_layers_put(struct ovl_sb_info *ofs)
{
	if (ofs->whiteout)
		dput(ofs->whiteout);
	ofs->whiteout = NULL;
	if (ofs->upper.root.dentry)
		path_put(&ofs->upper.root);
	if (ofs->workdir.dentry)
		path_put(&ofs->workdir);
	if (ofs->workbase.dentry)
		path_put(&ofs->workbase);
	for (int i = 0; i < ofs->nlower; i++)
		path_put(&ofs->lower[i].root);
	ofs->nlower = 0;
	ofs->upper.root.dentry = ofs->workdir.dentry = ofs->workbase.dentry = NULL;
}

static struct inode *ovl_alloc_inode(struct super_block *sb)
{
	(void)sb;
	struct ovl_inode *oi = calloc(1, sizeof(*oi));
	if (!oi)
		return NULL;
	pthread_mutex_init(&oi->copy_lock, NULL);
	return &oi->vfs_inode;
}

static void ovl_destroy_inode(struct inode *inode)
{
	pthread_mutex_destroy(&OVL_I(inode)->copy_lock);
	free((void *)inode->i_link);
	free(OVL_I(inode));
}

/* The real objects go with the last reference, not a grace period later:
 * dput may take the layers' locks, which a deferred callback must not. */
static void ovl_evict_inode(struct inode *inode)
{
	struct ovl_inode *oi = OVL_I(inode);
	ovl_real_put(&oi->upper);
	for (int i = 0; i < oi->nlower; i++)
		ovl_real_put(&oi->lower[i]);
	free(oi->lower);
	oi->lower = NULL;
	oi->nlower = 0;
}

static int ovl_statfs(struct super_block *sb, struct statfs *buf)
{
	/* the upper layer's (else the top lower's) space, the overlay's type */
	struct ovl_sb_info *ofs = OVL_SB(sb);
	struct super_block *rsb = (ofs->upper.root.dentry ? ofs->upper.root : ofs->lower[0].root).dentry->d_sb;
	int err = rsb->s_op->statfs ? rsb->s_op->statfs(rsb, buf) : 0;
	if (err)
		return err;
	buf->f_type = OVERLAYFS_MAGIC_;
	buf->f_fsid.__val[0] = (int)sb->s_dev;
	buf->f_flags = ST_VALID_ | ((READ_ONCE(sb->s_flags) & SB_RDONLY) ? ST_RDONLY : 0);
	return 0;
}

static void ovl_kill_sb(struct super_block *sb)
{
	ovl_layers_put(OVL_SB(sb));
}

static void ovl_put_super(struct super_block *sb)
{
	pthread_mutex_destroy(&OVL_SB(sb)->whiteout_lock);
	free(sb->s_fs_info);
}

/* the real object an overlay inode stands for: its topmost one */
static struct inode *ovl_real_inode(struct inode *inode)
{
	return ovl_real_of(inode)->dentry->d_inode;
}

static const struct super_operations ovl_super_operations = {
	.alloc_inode = ovl_alloc_inode,
	.destroy_inode = ovl_destroy_inode,
	.evict_inode = ovl_evict_inode,
	.statfs = ovl_statfs,
	.kill_sb = ovl_kill_sb,
	.put_super = ovl_put_super,
	.real_inode = ovl_real_inode,
};

/* Linux's uuid=auto: an upper layer without an instance uuid gets a new
 * random one on its root, kept for later mounts. */
static void ovl_init_uuid(struct dentry *upper_root)
{
	uint8_t uuid[16];
	FILE *r = fopen("/dev/urandom", "r");
	size_t got = r ? fread(uuid, 1, sizeof(uuid), r) : 0;
	if (r)
		fclose(r);
	if (got != sizeof(uuid)) {
		struct timespec now = current_time();
		uint64_t a = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)now.tv_sec;
		uint64_t b = a * 0xbf58476d1ce4e5b9ull ^ (uintptr_t)upper_root;
		memcpy(uuid, &a, 8);
		memcpy(uuid + 8, &b, 8);
	}
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40); /* version 4 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
	/* a layer that keeps no xattrs mounts all the same, as on Linux */
	ovl_set_xattr_once(upper_root, OVL_XATTR_UUID, uuid, sizeof(uuid));
}

static int ovl_make_root(struct super_block *sb)
{
	struct ovl_sb_info *ofs = OVL_SB(sb);
	struct ovl_real upper = { 0 };
	if (ofs->upper.root.dentry) {
		upper.dentry = dget(ofs->upper.root.dentry);
		upper.layer = &ofs->upper;
	}
	int nreg = ofs->nlower;
	struct ovl_real *lower = calloc((size_t)nreg, sizeof(*lower));
	if (!lower) {
		ovl_real_put(&upper);
		return -ENOMEM;
	}
	int n = 0;
	/* an opaque upper root hides the lowers as any opaque directory */
	if (!(upper.dentry && ovl_is_opaque_dir(upper.dentry))) {
		for (int i = 0; i < nreg; i++) {
			lower[n].dentry = dget(ofs->lower[i].root.dentry);
			lower[n++].layer = &ofs->lower[i];
			if (ovl_is_opaque_dir(ofs->lower[i].root.dentry))
				break;
		}
	}
	int err;
	struct inode *root = ovl_get_inode(sb, upper.dentry ? &upper : NULL, lower, n, true, &err);
	if (!root)
		return err;
	sb->s_root = d_alloc_root(sb, root);
	if (!sb->s_root) {
		iput(root);
		return -ENOMEM;
	}
	OVL_I(root)->alias = sb->s_root;
	return 0;
}

static int ovl_mount(const struct file_system_type *type, struct uvfs_proc *p, const char *source,
		     unsigned long ms_flags, const void *data, struct super_block **sbp)
{
	(void)type;
	(void)source;
	(void)ms_flags;
	struct ovl_params op = { 0 };
	int err = ovl_parse_options(p, data, &op);
	/* Linux's ovl_fs_params_verify */
	if (!err && !op.nlower)
		err = -EINVAL; /* missing 'lowerdir' */
	else if (!err && op.upper.dentry && !op.work.dentry)
		err = -EINVAL; /* missing 'workdir' */
	else if (!err && !op.upper.dentry && op.nlower < 2)
		err = -EINVAL; /* at least 2 lowerdir are needed while upperdir nonexistent */
	if (err) {
		ovl_params_free(&op);
		return err;
	}
	struct path work = { 0 };
	if (op.upper.dentry) {
		/* Linux's ovl_get_workdir: one mount, separate subtrees */
		if (op.work.mnt != op.upper.mnt ||
		    is_ancestor_or_self(op.work.dentry, op.upper.dentry) ||
		    is_ancestor_or_self(op.upper.dentry, op.work.dentry))
			err = -EINVAL;
		if (!err)
			err = ovl_make_workdir(&op, &work);
	}
	if (!err)
		err = ovl_check_layers(&op, work.dentry);
	struct ovl_sb_info *ofs = NULL;
	if (!err) {
		ofs = calloc(1, sizeof(*ofs));
		if (!ofs)
			err = -ENOMEM;
	}
	if (err) {
		if (work.dentry)
			path_put(&work);
		ovl_params_free(&op);
		return err;
	}
	/* data-only layers ("::") hold only what a metacopy upper names,
	 * and this overlay makes no metacopies: nothing ever looks in them */
	for (int i = op.nlower - op.ndata; i < op.nlower; i++)
		path_put(&op.lower[i]);
	op.nlower -= op.ndata;
	/* the references move from op to ofs */
	ofs->upper.root = op.upper;
	ofs->upper.idx = 0;
	ofs->workbase = op.work;
	ofs->workdir = work;
	ofs->nlower = op.nlower;
	for (int i = 0; i < op.nlower; i++) {
		ofs->lower[i].root = op.lower[i];
		ofs->lower[i].idx = i + 1;
	}
	ofs->redirect_dir = op.redirect_dir;
	struct super_block *rsb = op.lower[0].dentry->d_sb;
	ofs->samefs = !op.upper.dentry || op.upper.dentry->d_sb == rsb;
	for (int i = 1; i < op.nlower; i++)
		if (op.lower[i].dentry->d_sb != rsb)
			ofs->samefs = false;

	struct super_block *sb = sget(p->vfs, &ovl_super_operations, OVERLAYFS_MAGIC_);
	if (!sb) {
		ovl_layers_put(ofs);
		free(ofs);
		return -ENOMEM;
	}
	sb->s_fs_info = ofs;
	/* Linux's overlayfs answers a statx with its real inode's answer: over
	 * a multigrain upper layer (or lower, read-only), it is multigrain */
	if ((op.upper.dentry ? op.upper.dentry->d_sb : rsb)->s_flags & SB_MGTIME)
		sb->s_flags |= SB_MGTIME;
	pthread_mutex_init(&ofs->whiteout_lock, NULL);
	if (!ofs->upper.root.dentry)
		sb->s_flags |= SB_RDONLY;
	else
		ovl_init_uuid(ofs->upper.root.dentry);
	err = ovl_make_root(sb);
	if (err) {
		deactivate_super(sb);
		return err;
	}
	*sbp = sb;
	return 0;
}

const struct file_system_type overlay_fs_type = {
	.name = "overlay",
	.mount_proc = ovl_mount,
};
