// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uvfs_fs.c - filesystems of the embedder's own (include/uvfs_fs.h): the
 * public operations table adapted to the core's (super, inode, dentry and
 * file operations), so that nothing of the core shows in the header.
 *
 * A registered type is a copy of the caller's struct uvfs_fs_type behind a
 * file_system_type of the registry.  Its superblocks keep the filesystem's
 * handle; its inodes the node they stand for, one reference of the
 * filesystem's each (forget at eviction).  Directories have ->lookup, so
 * their names are asked on a miss and never cached negative; with a
 * revalidate, every dentry of the superblock is asked again on each walk in
 * REF mode (RCU mode answers -ECHILD: the embedder's call may block).
 *
 * Locks: the core's.  The namespace operations run with the directories'
 * i_rwsem held exclusive, lookups with it shared; a write holds the file's
 * i_rwsem exclusive (i_size and O_APPEND), a read nothing.
 */
#include "vfs.h"
#include "dcache.h"
#include "stat.h"
#include "attr.h"
#include "uvfs_fs.h"
#include <dirent.h>

#define PUB_FS_MAGIC 0x75766673 /* "uvfs" */
#define PUB_NAME_MAX 31
/* the size of version 1's struct uvfs_fs_type as first published, before
 * weak_revalidate was appended; however later ones grow */
#define PUB_TYPE_SIZE_V1 offsetof(struct uvfs_fs_type, ops.weak_revalidate)

struct pub_fs_type {
	struct file_system_type type;
	struct uvfs_fs_type pub;
	char name[PUB_NAME_MAX + 1];
};

struct pub_sb {
	const struct pub_fs_type *t;
	void *fs;
	struct uvfs *vfs;
};

struct pub_inode {
	struct inode vfs_inode;
	void *node;
};

static inline struct pub_inode *PUB_I(struct inode *inode)
{
	return container_of(inode, struct pub_inode, vfs_inode);
}
static inline struct pub_sb *PUB_SB(struct super_block *sb) { return sb->s_fs_info; }
static inline const struct uvfs_fs_operations *pub_ops(struct super_block *sb) { return &PUB_SB(sb)->t->pub.ops; }
static inline void *pub_fs(struct super_block *sb) { return PUB_SB(sb)->fs; }
static inline void *pub_node(struct inode *inode) { return PUB_I(inode)->node; }

/* ---- superblock ---- */

static struct inode *pub_alloc_inode(struct super_block *sb)
{
	struct pub_inode *pi = calloc(1, sizeof(*pi));
	return pi ? &pi->vfs_inode : NULL;
}

static void pub_destroy_inode(struct inode *inode)
{
	free((void *)inode->i_link);
	free(PUB_I(inode));
}

static void pub_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	if (pub_ops(sb)->forget)
		pub_ops(sb)->forget(pub_fs(sb), pub_node(inode));
}

static int pub_statfs(struct super_block *sb, struct statfs *buf)
{
	memset(buf, 0, sizeof(*buf));
	int err = 0;
	if (pub_ops(sb)->statfs)
		err = pub_ops(sb)->statfs(pub_fs(sb), buf);
	if (err)
		return err;
	if (!buf->f_type)
		buf->f_type = PUB_FS_MAGIC;
	if (!buf->f_bsize)
		buf->f_bsize = 4096;
	if (!buf->f_namelen)
		buf->f_namelen = NAME_MAX;
	buf->f_fsid.__val[0] = (int)sb->s_dev;
	return 0;
}

static void pub_kill_sb(struct super_block *sb)
{
	struct pub_sb *ps = PUB_SB(sb);
	if (ps->t->pub.ops.kill)
		ps->t->pub.ops.kill(ps->fs);
	put_filesystem(ps->vfs, &ps->t->type);
}

static void pub_put_super(struct super_block *sb)
{
	free(sb->s_fs_info);
}

static const struct super_operations pub_super_operations = {
	.alloc_inode = pub_alloc_inode,
	.destroy_inode = pub_destroy_inode,
	.evict_inode = pub_evict_inode,
	.statfs = pub_statfs,
	.put_super = pub_put_super,
	.kill_sb = pub_kill_sb,
};

/* ---- inodes ---- */

extern const struct inode_operations pub_dir_inode_operations, pub_file_inode_operations,
	pub_link_inode_operations, pub_special_inode_operations;
extern const struct file_operations pub_dir_operations, pub_file_operations;

static void pub_set_attr(struct inode *inode, const struct uvfs_fs_attr *a)
{
	if (a->ino)
		inode->i_ino = a->ino;
	inode->i_mode = a->mode;
	inode->i_nlink = a->nlink;
	inode->i_uid = a->uid;
	inode->i_gid = a->gid;
	inode->i_rdev = a->rdev;
	inode->i_size = a->size;
	inode->i_blocks = (uint64_t)a->blocks;
	inode->i_atime = a->atime;
	inode->i_mtime = a->mtime;
	inode->i_ctime = a->ctime;
	inode->i_btime = a->btime;
}

/* The inode of a node the filesystem just returned; its reference is the
 * inode's from now on (forgotten at once if no inode can be made). */
static struct inode *pub_iget(struct super_block *sb, const struct uvfs_fs_entry *e, int *errp)
{
	struct inode *inode = new_inode(sb);
	if (!inode) {
		if (pub_ops(sb)->forget)
			pub_ops(sb)->forget(pub_fs(sb), e->node);
		*errp = -ENOMEM;
		return NULL;
	}
	PUB_I(inode)->node = e->node;
	pub_set_attr(inode, &e->attr);
	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &pub_dir_inode_operations;
		inode->i_fop = &pub_dir_operations;
		break;
	case S_IFREG:
		inode->i_op = &pub_file_inode_operations;
		inode->i_fop = &pub_file_operations;
		break;
	case S_IFLNK:
		inode->i_op = &pub_link_inode_operations;
		break;
	default:
		inode->i_op = &pub_special_inode_operations;
		break;
	}
	return inode;
}

/* A name the filesystem made: d (negative, unhashed) takes the inode, with
 * the symlink body the VFS already knows (owned by the inode from here, even
 * on failure), or NULL. */
static int pub_instantiate(struct inode *dir, struct dentry *d, const struct uvfs_fs_entry *e, char *body)
{
	int err;
	struct inode *inode = pub_iget(dir->i_sb, e, &err);
	if (!inode) {
		free(body);
		return err;
	}
	if (body && S_ISLNK(READ_ONCE(inode->i_mode))) {
		/* before the inode is seen: nothing asks ->get_link for it */
		inode->i_linklen = (unsigned)strlen(body);
		inode->i_link = body;
	} else {
		free(body);
	}
	d_instantiate(d, inode);
	if (d_unhashed(d))
		d_add_hashed(d);
	inode_touch_mc(dir);
	return 0;
}

static int pub_lookup(struct inode *dir, struct dentry *d, unsigned flags)
{
	struct super_block *sb = dir->i_sb;
	struct uvfs_fs_entry e = { 0 };
	int err = pub_ops(sb)->lookup(pub_fs(sb), pub_node(dir), d->d_name->name, &e);
	if (err == -ENOENT)
		return 0; /* negative */
	if (err)
		return err;
	struct inode *inode = pub_iget(sb, &e, &err);
	if (!inode)
		return err;
	d_instantiate(d, inode);
	return 0;
}

static int pub_create(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	struct super_block *sb = dir->i_sb;
	if (!pub_ops(sb)->create)
		return -EACCES;
	struct uvfs_fs_entry e = { 0 };
	int err = pub_ops(sb)->create(pub_fs(sb), pub_node(dir), d->d_name->name, (mode & ~S_IFMT) | S_IFREG,
				      c->fsuid, c->fsgid, &e);
	return err ? err : pub_instantiate(dir, d, &e, NULL);
}

static int pub_mkdir(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	struct super_block *sb = dir->i_sb;
	if (!pub_ops(sb)->mkdir)
		return -EPERM;
	struct uvfs_fs_entry e = { 0 };
	int err = pub_ops(sb)->mkdir(pub_fs(sb), pub_node(dir), d->d_name->name, (mode & ~S_IFMT) | S_IFDIR,
				     c->fsuid, c->fsgid, &e);
	if (err)
		return err;
	err = pub_instantiate(dir, d, &e, NULL);
	if (!err)
		inc_nlink(dir);
	return err;
}

static int pub_symlink(struct inode *dir, struct dentry *d, const char *target, const struct cred *c)
{
	struct super_block *sb = dir->i_sb;
	if (!pub_ops(sb)->symlink)
		return -EPERM;
	/* the body is known: cached now, as tmpfs does, not asked later */
	char *body = strdup(target);
	if (!body)
		return -ENOMEM;
	struct uvfs_fs_entry e = { 0 };
	int err = pub_ops(sb)->symlink(pub_fs(sb), pub_node(dir), d->d_name->name, target, c->fsuid, c->fsgid, &e);
	if (err) {
		free(body);
		return err;
	}
	return pub_instantiate(dir, d, &e, body);
}

static int pub_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct super_block *sb = dir->i_sb;
	if (!pub_ops(sb)->link)
		return -EPERM;
	struct inode *inode = old->d_inode;
	struct uvfs_fs_attr a = { 0 };
	int err = pub_ops(sb)->link(pub_fs(sb), pub_node(inode), pub_node(dir), d->d_name->name, &a);
	if (err)
		return err;
	set_nlink(inode, a.nlink);
	inode_touch_c(inode);
	ihold(inode);
	d_instantiate(d, inode);
	if (d_unhashed(d))
		d_add_hashed(d);
	inode_touch_mc(dir);
	return 0;
}

static int pub_unlink(struct inode *dir, struct dentry *d)
{
	struct super_block *sb = dir->i_sb;
	if (!pub_ops(sb)->unlink)
		return -EPERM;
	int err = pub_ops(sb)->unlink(pub_fs(sb), pub_node(dir), d->d_name->name);
	if (err)
		return err;
	drop_nlink(d->d_inode);
	inode_touch_c(d->d_inode);
	inode_touch_mc(dir);
	return 0; /* the VFS's d_delete takes the name out of the dcache */
}

static int pub_rmdir(struct inode *dir, struct dentry *d)
{
	struct super_block *sb = dir->i_sb;
	if (!pub_ops(sb)->rmdir)
		return -EPERM;
	int err = pub_ops(sb)->rmdir(pub_fs(sb), pub_node(dir), d->d_name->name);
	if (err)
		return err;
	struct inode *inode = d->d_inode;
	inode_flags_set(inode, S_DEAD_DIR);
	set_nlink(inode, 0);
	drop_nlink(dir);
	inode_touch_mc(dir);
	d_delete_entry(d);
	return 0;
}

static int pub_rename(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd, unsigned flags,
		      const struct cred *c)
{
	struct super_block *sb = odir->i_sb;
	if (!pub_ops(sb)->rename)
		return -EPERM;
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	/* what can fail comes before the filesystem changes anything */
	struct dname *na = d_name_copy(nd);
	if (!na)
		return -ENOMEM;
	int err = pub_ops(sb)->rename(pub_fs(sb), pub_node(odir), od->d_name->name, pub_node(ndir), nd->d_name->name,
				      flags);
	if (err) {
		d_name_free(na);
		return err;
	}
	struct inode *inode = od->d_inode, *target = nd->d_inode;
	bool isdir = S_ISDIR(READ_ONCE(inode->i_mode));
	if (target) {
		if (S_ISDIR(READ_ONCE(target->i_mode))) {
			inode_flags_set(target, S_DEAD_DIR);
			set_nlink(target, 0);
			drop_nlink(odir);
		} else {
			drop_nlink(target);
		}
		inode_touch_c(target);
	} else if (isdir && odir != ndir) {
		drop_nlink(odir);
		inc_nlink(ndir);
	}
	inode_touch_mc(odir);
	if (ndir != odir)
		inode_touch_mc(ndir);
	inode_touch_c(inode);
	d_move(od, nd, na);
	return 0;
}

static int pub_setsize(struct inode *inode, loff_t size)
{
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->setattr)
		return -EPERM;
	struct uvfs_fs_attr a = { .size = size };
	int err = pub_ops(sb)->setattr(pub_fs(sb), pub_node(inode), UVFS_FS_SET_SIZE, &a);
	if (!err)
		WRITE_ONCE(inode->i_size, size);
	return err;
}

/* the public table changes only the size; the rest is the inode's */
static int pub_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	(void)d;
	bool resized = setattr_resizes(inode, ia);
	int err = resized ? pub_setsize(inode, ia->ia_size) : 0;
	if (!err)
		setattr_copy(inode, ia, resized);
	return err;
}

static int pub_getattr(struct inode *inode, struct kstat *st)
{
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->getattr)
		return 0; /* the attributes cached from the node's lookup */
	struct uvfs_fs_attr a = { 0 };
	int err = pub_ops(sb)->getattr(pub_fs(sb), pub_node(inode), &a);
	if (err)
		return err;
	if (a.ino)
		st->ino = a.ino;
	st->mode = a.mode;
	st->nlink = a.nlink;
	st->uid = a.uid;
	st->gid = a.gid;
	st->rdev = a.rdev;
	st->size = a.size;
	st->blocks = (uint64_t)a.blocks;
	st->atime = a.atime;
	st->mtime = a.mtime;
	st->ctime = a.ctime;
	st->btime = a.btime;
	return 0;
}

static int pub_get_link(struct inode *inode, char **body, unsigned *len)
{
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->readlink)
		return -EINVAL;
	char *b = malloc(PATH_MAX);
	if (!b)
		return -ENOMEM;
	ssize_t n = pub_ops(sb)->readlink(pub_fs(sb), pub_node(inode), b, PATH_MAX - 1);
	if (n < 0 || n > PATH_MAX - 1) {
		free(b);
		return n < 0 ? (int)n : -EIO;
	}
	b[n] = 0;
	*body = b;
	*len = (unsigned)n;
	return 0;
}

const struct inode_operations pub_dir_inode_operations = {
	.create = pub_create,
	.mkdir = pub_mkdir,
	.symlink = pub_symlink,
	.link = pub_link,
	.unlink = pub_unlink,
	.rmdir = pub_rmdir,
	.rename = pub_rename,
	.lookup = pub_lookup,
	.getattr = pub_getattr,
};
const struct inode_operations pub_file_inode_operations = {
	.setattr = pub_setattr,
	.getattr = pub_getattr,
};
const struct inode_operations pub_link_inode_operations = {
	.get_link = pub_get_link,
	.getattr = pub_getattr,
};
const struct inode_operations pub_special_inode_operations = {
	.getattr = pub_getattr,
};

/* ---- files ---- */

static int pub_open(struct inode *inode, struct file *f)
{
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->open)
		return 0;
	void *fh = NULL;
	int err = pub_ops(sb)->open(pub_fs(sb), pub_node(inode), (int)f->f_flags, &fh);
	if (!err)
		f->private_data = fh;
	return err;
}

static void pub_release(struct inode *inode, struct file *f)
{
	struct super_block *sb = inode->i_sb;
	if (pub_ops(sb)->release)
		pub_ops(sb)->release(pub_fs(sb), pub_node(inode), f->private_data);
}

static ssize_t pub_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->read)
		return -EINVAL;
	ssize_t n = pub_ops(sb)->read(pub_fs(sb), pub_node(inode), f->private_data, buf, len, *pos);
	if (n > 0) {
		*pos += n;
		touch_atime(f);
	}
	return n;
}

static ssize_t pub_write(struct file *f, const void *buf, size_t len, loff_t *ppos)
{
	struct inode *inode = f->f_inode;
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->write)
		return -EINVAL;
	down_write(&inode->i_rwsem);
	loff_t pos = iocb_append(f) ? READ_ONCE(inode->i_size) : *ppos;
	ssize_t n = pub_ops(sb)->write(pub_fs(sb), pub_node(inode), f->private_data, buf, len, pos);
	if (n > 0) {
		*ppos = pos + n;
		if (pos + n > READ_ONCE(inode->i_size))
			WRITE_ONCE(inode->i_size, pos + n);
		inode_touch_mc(inode);
	}
	up_write(&inode->i_rwsem);
	return n;
}

struct pub_readdir {
	struct dir_context *ctx;
};

static bool pub_filldir(void *arg, const char *name, uint64_t ino, unsigned d_type, uint64_t next)
{
	struct dir_context *ctx = ((struct pub_readdir *)arg)->ctx;
	size_t len = strnlen(name, NAME_MAX + 1);
	if (len == 0 || len > NAME_MAX || next < 2 || next > (uint64_t)LLONG_MAX)
		return false; /* not an entry a directory can have: the listing ends */
	if (!ctx->actor(ctx, name, (int)len, (loff_t)next, ino, d_type))
		return false;
	ctx->pos = (loff_t)next;
	return true;
}

/* "." and ".." are the VFS's (positions 0 and 1); from 2 on the positions
 * are the filesystem's. */
static int pub_iterate_shared(struct file *f, struct dir_context *ctx)
{
	struct dentry *dir = f->f_path.dentry;
	struct inode *inode = f->f_inode;
	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, 1, inode->i_ino, DT_DIR))
			return 0;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		urcu_memb_read_lock();
		uint64_t pino = READ_ONCE(READ_ONCE(dir->d_parent)->d_inode)->i_ino;
		urcu_memb_read_unlock();
		if (!ctx->actor(ctx, "..", 2, 2, pino, DT_DIR))
			return 0;
		ctx->pos = 2;
	}
	struct super_block *sb = inode->i_sb;
	if (!pub_ops(sb)->readdir)
		return 0;
	struct pub_readdir rd = { ctx };
	return pub_ops(sb)->readdir(pub_fs(sb), pub_node(inode), (uint64_t)ctx->pos, pub_filldir, &rd);
}

const struct file_operations pub_dir_operations = {
	.iterate_shared = pub_iterate_shared,
};
const struct file_operations pub_file_operations = {
	.open = pub_open,
	.release = pub_release,
	.read = pub_read,
	.write = pub_write,
};

/* ---- dentries ---- */

static int pub_d_revalidate(struct dentry *d, unsigned flags)
{
	if (flags & LOOKUP_RCU)
		return -ECHILD; /* the embedder's call may block */
	struct inode *inode = d->d_inode;
	if (!inode)
		return 0;
	struct super_block *sb = d->d_sb;
	/* a rename may move d meanwhile: its parent and name as of now */
	char name[NAME_MAX + 1];
	urcu_memb_read_lock();
	struct dentry *parent = READ_ONCE(d->d_parent);
	void *pnode = pub_node(READ_ONCE(parent->d_inode));
	const struct dname *n = rcu_dereference(d->d_name);
	memcpy(name, n->name, n->len + 1);
	urcu_memb_read_unlock();
	int r = pub_ops(sb)->revalidate(pub_fs(sb), pnode, name, pub_node(inode));
	return r < 0 ? r : r > 0;
}

/* ".", "..", the root, a dirfd: no name to ask revalidate of */
static int pub_d_weak_revalidate(struct dentry *d, unsigned flags)
{
	(void)flags;
	struct inode *inode = d->d_inode;
	if (!inode)
		return 0;
	struct super_block *sb = d->d_sb;
	int r = pub_ops(sb)->weak_revalidate(pub_fs(sb), pub_node(inode));
	return r < 0 ? r : r > 0;
}

/* [revalidate given][weak_revalidate given] */
static const struct dentry_operations pub_dentry_operations[2][2] = {
	{ { 0 }, { .d_weak_revalidate = pub_d_weak_revalidate } },
	{ { .d_revalidate = pub_d_revalidate },
	  { .d_revalidate = pub_d_revalidate, .d_weak_revalidate = pub_d_weak_revalidate } },
};

/* ---- mount ---- */

static int pub_mount(const struct file_system_type *type, struct uvfs *vfs, const char *source,
		     unsigned long ms_flags, const void *data, struct super_block **sbp)
{
	const struct pub_fs_type *t = container_of(type, struct pub_fs_type, type);
	struct pub_sb *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	ps->t = t;
	ps->vfs = vfs;
	struct uvfs_fs_entry root = { 0 };
	int err = t->pub.ops.mount(t->pub.data, source, ms_flags, data, &ps->fs, &root);
	if (err) {
		free(ps);
		return err;
	}
	if (!S_ISDIR(root.attr.mode)) {
		err = -ENOTDIR;
		goto fail_fs;
	}
	struct super_block *sb = sget(vfs, &pub_super_operations, PUB_FS_MAGIC);
	if (!sb) {
		err = -ENOMEM;
		goto fail_fs;
	}
	sb->s_fs_info = ps;
	if (t->pub.ops.revalidate || t->pub.ops.weak_revalidate)
		sb->s_d_op = &pub_dentry_operations[!!t->pub.ops.revalidate][!!t->pub.ops.weak_revalidate];
	/* from here the superblock's teardown (kill_sb) undoes it all */
	get_filesystem(vfs, type);
	struct inode *inode = pub_iget(sb, &root, &err);
	if (inode) {
		sb->s_root = d_alloc_root(sb, inode);
		if (sb->s_root) {
			*sbp = sb;
			return 0;
		}
		iput(inode);
		err = -ENOMEM;
	}
	deactivate_super(sb);
	return err;
fail_fs:
	if (t->pub.ops.forget)
		t->pub.ops.forget(ps->fs, root.node);
	if (t->pub.ops.kill)
		t->pub.ops.kill(ps->fs);
	free(ps);
	return err;
}

static void pub_type_release(const struct file_system_type *type)
{
	free(container_of(type, struct pub_fs_type, type));
}

static bool pub_name_ok(const char *name)
{
	size_t len = strnlen(name, PUB_NAME_MAX + 1);
	return len >= 1 && len <= PUB_NAME_MAX && !strpbrk(name, "/, \t\n");
}

UVFS_API int uvfs_register_filesystem(struct uvfs *u, const struct uvfs_fs_type *type)
{
	API_ENTER();
	if (!u || !type || type->version != UVFS_FS_VERSION || type->size < PUB_TYPE_SIZE_V1 || type->flags ||
	    !type->name || !pub_name_ok(type->name) || !type->ops.mount || !type->ops.lookup)
		API_RETURN(-EINVAL);
	struct pub_fs_type *t = calloc(1, sizeof(*t));
	if (!t)
		API_RETURN(-ENOMEM);
	/* a newer caller's members past ours are not known here; an older
	 * one's missing members stay NULL */
	memcpy(&t->pub, type, MIN(type->size, sizeof(t->pub)));
	strcpy(t->name, type->name);
	t->pub.name = t->name;
	t->type.name = t->name;
	t->type.mount = pub_mount;
	int err = register_filesystem(u, &t->type, pub_type_release);
	if (err) {
		free(t);
		API_RETURN(err == -EBUSY ? -EEXIST : err);
	}
	API_RETURN(0);
}

UVFS_API int uvfs_unregister_filesystem(struct uvfs *u, const char *name)
{
	API_ENTER();
	if (!u || !name)
		API_RETURN(-EINVAL);
	API_RETURN(unregister_filesystem(u, name));
}
