// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tmpfs.c - the in-memory filesystem (Linux's mm/shmem.c and fs/libfs.c).
 *
 * The dcache is the directory: every name of a tmpfs directory is a positive
 * dentry pinned in the cache (d_link_child), readdir walks the parent's
 * children in offset order (dcache_readdir), and a lookup miss is final.
 * Directory sizes count BOGO_DIRENT_SIZE per entry, as Linux does.
 *
 * Symlinks: the body and its length are cached in the inode when the link is
 * made (i_link, i_linklen), so readlink copies by length and the path walk
 * reads the body without locks.  Bodies longer than SHORT_SYMLINK_LEN are
 * charged a page, as shmem does.
 *
 * Every operation is called with the directories' i_rwsem held exclusive.
 */
#include "tmpfs.h"
#include "core/xattr.h"
#include "core/fs_parser.h"
#include "lib/rcu_cache.h"
#include <ctype.h>
#include <limits.h>

static int tmpfs_parse_options(const char *data, struct tmpfs_params *p);

static void tmpfs_inode_free_rcu(struct rcu_head *h);

/* Evicted inodes wait for their grace period in the evicting thread's
 * cache and serve its next creates (rcu_cache.h). */
static struct rcu_cache tmpfs_inode_cache = {
	.name = "tmpfs_inode",
	.size = sizeof(struct tmpfs_inode),
	.rcu_off = offsetof(struct tmpfs_inode, vfs_inode.i_rcu),
	.free_rcu = tmpfs_inode_free_rcu,
	.id = 1,
};

static struct inode *tmpfs_alloc_inode(struct super_block *sb)
{
	struct tmpfs_inode *ti = rcu_cache_zalloc(&tmpfs_inode_cache);
	return ti ? &ti->vfs_inode : NULL;
}

static void tmpfs_destroy_inode(struct inode *inode)
{
	free((void *)inode->i_link);
	free(TMPFS_I(inode));
}

static void tmpfs_inode_free_rcu(struct rcu_head *h)
{
	tmpfs_destroy_inode(&container_of(h, struct tmpfs_inode, vfs_inode.i_rcu)->vfs_inode);
}

/* The inode holds nothing but its memory (evict, inode.c); its locks are
 * unlocked and need no destroy on glibc, and are made again on reuse. */
static void tmpfs_recycle_inode(struct inode *inode)
{
	rcu_cache_free(&tmpfs_inode_cache, TMPFS_I(inode));
}

static void tmpfs_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	/* most files die without a page (a create+unlink): no call for them */
	if (S_ISREG(inode->i_mode) && TMPFS_I(inode)->pages.root)
		tmpfs_truncate_pages(inode, 0);
	if (S_ISLNK(inode->i_mode) && inode->i_linklen + 1 > SHORT_SYMLINK_LEN)
		tmpfs_uncharge_pages(sb, 1);
	if (TMPFS_I(inode)->xattrs)
		tmpfs_xattrs_free(inode);
	tmpfs_count_inodes(TMPFS_SB(sb), -1);
}

static int tmpfs_statfs(struct super_block *sb, struct statfs *buf)
{
	struct tmpfs_sb_info *sbi = TMPFS_SB(sb);
	memset(buf, 0, sizeof(*buf));
	buf->f_type = TMPFS_MAGIC_;
	buf->f_bsize = TMPFS_PAGE_SIZE;
	buf->f_frsize = TMPFS_PAGE_SIZE;
	buf->f_namelen = NAME_MAX;
	if (sbi->max_blocks) {
		long used = __atomic_load_n(&sbi->used_blocks, __ATOMIC_RELAXED);
		buf->f_blocks = sbi->max_blocks;
		buf->f_bfree = buf->f_bavail = sbi->max_blocks - (unsigned long)used;
	}
	if (sbi->max_inodes) {
		unsigned long used = tmpfs_ispace_used(sbi);
		buf->f_files = sbi->max_inodes;
		buf->f_ffree = used < sbi->max_inodes ? sbi->max_inodes - used : 0;
	}
	buf->f_fsid.__val[0] = (int)sb->s_dev;
	buf->f_flags = ST_VALID_ | ((READ_ONCE(sb->s_flags) & SB_RDONLY) ? ST_RDONLY : 0);
	return 0;
}

static void tmpfs_put_super(struct super_block *sb)
{
	free(sb->s_fs_info);
}

static int tmpfs_remount(struct super_block *sb, const char *data)
{
	struct tmpfs_params p;
	int err = tmpfs_parse_options(data, &p);
	if (err)
		return err;
	struct tmpfs_sb_info *sbi = TMPFS_SB(sb);
	unsigned long blocks = (unsigned long)((p.size + TMPFS_PAGE_SIZE - 1) / TMPFS_PAGE_SIZE);
	if (p.size && (unsigned long)__atomic_load_n(&sbi->used_blocks, __ATOMIC_RELAXED) > blocks)
		return -EINVAL;
	if (p.nr_inodes && tmpfs_ispace_used(sbi) > p.nr_inodes)
		return -EINVAL;
	if (p.size)
		sbi->max_blocks = blocks;
	if (p.nr_inodes)
		WRITE_ONCE(sbi->max_inodes, p.nr_inodes);
	return 0;
}

static const struct super_operations tmpfs_super_operations = {
	.alloc_inode = tmpfs_alloc_inode,
	.destroy_inode = tmpfs_destroy_inode,
	.recycle_inode = tmpfs_recycle_inode,
	.evict_inode = tmpfs_evict_inode,
	.statfs = tmpfs_statfs,
	.remount = tmpfs_remount,
	.put_super = tmpfs_put_super,
};

extern const struct inode_operations tmpfs_dir_inode_operations;
static const struct inode_operations tmpfs_symlink_inode_operations = {
	.getxattr = tmpfs_getxattr, .setxattr = tmpfs_setxattr, .listxattr = tmpfs_listxattr,
};
static const struct inode_operations tmpfs_special_inode_operations = {
	.getxattr = tmpfs_getxattr, .setxattr = tmpfs_setxattr, .listxattr = tmpfs_listxattr,
	.set_acl = simple_set_acl,
};

/* A new inode of the given type, or NULL with *err set (ENOSPC: nr_inodes). */
static struct inode *tmpfs_get_inode(struct super_block *sb, struct inode *dir, umode_t mode, dev_t dev,
				     const struct cred *c, int *err)
{
	struct tmpfs_sb_info *sbi = TMPFS_SB(sb);
	tmpfs_count_inodes(sbi, 1);
	if (tmpfs_ispace_over(sbi)) {
		tmpfs_count_inodes(sbi, -1);
		*err = -ENOSPC;
		return NULL;
	}
	struct inode *inode = new_inode(sb);
	if (!inode) {
		tmpfs_count_inodes(sbi, -1);
		*err = -ENOMEM;
		return NULL;
	}
	inode_init_owner(inode, dir, mode, c);
	if (dir && (TMPFS_I(dir)->fsflags & TMPFS_FL_INHERITED)) {
		TMPFS_I(inode)->fsflags = TMPFS_I(dir)->fsflags & TMPFS_FL_INHERITED;
		inode_set_fsflags(inode, TMPFS_I(inode)->fsflags);
	}
	if (dir && posix_acl_create(dir, inode)) {
		set_nlink(inode, 0);
		iput(inode);
		*err = -ENOMEM;
		return NULL;
	}
	switch (mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &tmpfs_file_inode_operations;
		inode->i_fop = &tmpfs_file_operations;
		TMPFS_I(inode)->seals = F_SEAL_SEAL;
		break;
	case S_IFDIR:
		inode->i_op = &tmpfs_dir_inode_operations;
		inode->i_fop = &tmpfs_dir_operations;
		inode->i_size = 2 * BOGO_DIRENT_SIZE;
		inode->i_nlink = 2;
		TMPFS_I(inode)->dir_offsets.next_off = DIR_OFFSET_MIN - 1;
		break;
	case S_IFLNK:
		inode->i_op = &tmpfs_symlink_inode_operations;
		break;
	default:
		inode->i_op = &tmpfs_special_inode_operations;
		inode->i_rdev = dev;
		break;
	}
	return inode;
}

/* A name is added to dir: the bogus size grows, the times move to now. */
static void dir_add_entry(struct inode *dir, struct timespec now)
{
	WRITE_ONCE(dir->i_size, dir->i_size + BOGO_DIRENT_SIZE);
	inode_touch_mc_at(dir, now);
}

/* ... and the directory takes the stamp the removed inode took */
static void dir_remove_entry(struct inode *dir, struct timespec stamp)
{
	WRITE_ONCE(dir->i_size, dir->i_size - BOGO_DIRENT_SIZE);
	inode_set_mc_to(dir, stamp);
}

static void tmpfs_link_new(struct inode *dir, struct dentry *d, struct inode *inode, struct timespec now)
{
	dir_add_entry(dir, now);
	d_instantiate(d, inode);
	d_link_child(d);
	/* the dentry now owns the inode's first reference */
}

static int tmpfs_mknod(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c)
{
	int err;
	struct inode *inode = tmpfs_get_inode(dir->i_sb, dir, mode, dev, c, &err);
	if (!inode)
		return err;
	if (S_ISDIR(mode))
		inc_nlink(dir);
	/* the directory's times are the new inode's: one clock read */
	tmpfs_link_new(dir, d, inode, inode->i_ctime);
	return 0;
}

static int tmpfs_create(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	return tmpfs_mknod(dir, d, (mode & ~S_IFMT) | S_IFREG, 0, c);
}

static int tmpfs_mkdir(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c)
{
	return tmpfs_mknod(dir, d, (mode & ~S_IFMT) | S_IFDIR, 0, c);
}

static int tmpfs_symlink(struct inode *dir, struct dentry *d, const char *target, const struct cred *c)
{
	size_t len = strlen(target);
	if (len + 1 > TMPFS_PAGE_SIZE)
		return -ENAMETOOLONG;
	int err;
	struct inode *inode = tmpfs_get_inode(dir->i_sb, dir, S_IFLNK | 0777, 0, c, &err);
	if (!inode)
		return err;
	char *body = malloc(len + 1);
	if (!body) {
		set_nlink(inode, 0);
		iput(inode);
		return -ENOMEM;
	}
	memcpy(body, target, len + 1);
	if (len + 1 > SHORT_SYMLINK_LEN) {
		if (!tmpfs_charge_pages(dir->i_sb, 1)) {
			free(body);
			set_nlink(inode, 0);
			iput(inode);
			return -ENOSPC;
		}
		inode->i_blocks = TMPFS_PAGE_SIZE >> 9;
	}
	inode->i_size = (loff_t)len;
	/* Linux's inode_set_cached_link: body and length, made once (seed 004) */
	inode->i_link = body;
	inode->i_linklen = (unsigned)len;
	tmpfs_link_new(dir, d, inode, inode->i_ctime);
	return 0;
}

/* shmem charges every extra hard link against nr_inodes */
static bool tmpfs_reserve_inode(struct super_block *sb)
{
	struct tmpfs_sb_info *sbi = TMPFS_SB(sb);
	tmpfs_count_inodes(sbi, 1);
	if (tmpfs_ispace_over(sbi)) {
		tmpfs_count_inodes(sbi, -1);
		return false;
	}
	return true;
}

static void tmpfs_free_inode(struct super_block *sb)
{
	tmpfs_count_inodes(TMPFS_SB(sb), -1);
}

static int tmpfs_link(struct dentry *old, struct inode *dir, struct dentry *d)
{
	struct inode *inode = old->d_inode;
	if (inode->i_nlink && !tmpfs_reserve_inode(inode->i_sb))
		return -ENOSPC;
	inc_nlink(inode);
	inode_touch_c(inode);
	ihold(inode);
	tmpfs_link_new(dir, d, inode, current_time());
	return 0;
}

static int tmpfs_unlink(struct inode *dir, struct dentry *d)
{
	struct inode *inode = d->d_inode;
	if (inode->i_nlink > 1 && !S_ISDIR(inode->i_mode))
		tmpfs_free_inode(inode->i_sb);
	/* one clock read for both; a ctime already at now (a file made in
	 * this tick) is not written again.  As shmem_unlink, the directory
	 * takes the inode's stamp (a fine one if the inode was seen). */
	struct timespec now = inode_touch_c_at(inode, current_time());
	dir_remove_entry(dir, now);
	drop_nlink(inode);
	return 0; /* the VFS's d_delete takes the name out of the dcache */
}

/* Does the directory have any name left in it? */
static bool tmpfs_dir_empty(struct dentry *d)
{
	struct list_head *pos;
	list_for_each(pos, &d->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		if (c->d_inode)
			return false;
	}
	return true;
}

static int tmpfs_rmdir(struct inode *dir, struct dentry *d)
{
	if (!tmpfs_dir_empty(d))
		return -ENOTEMPTY;
	struct inode *inode = d->d_inode;
	d_prune_negative_children(d);
	inode_flags_set(inode, S_DEAD_DIR);
	drop_nlink(inode);
	drop_nlink(dir);
	tmpfs_unlink(dir, d);
	d_delete_entry(d); /* ->rmdir takes its name out of the dcache itself */
	return 0;
}

/* Linux's simple_rename_timestamp; each stamp starts from the one before,
 * so none is older than another's fine stamp */
static struct timespec rename_set_times(struct inode *odir, struct inode *ndir, struct inode *inode,
					struct timespec now)
{
	now = inode_stamp(odir, now, INODE_NOW_M, NULL, NULL);
	if (ndir != odir)
		now = inode_stamp(ndir, now, INODE_NOW_M, NULL, NULL);
	return inode_stamp(inode, now, 0, NULL, NULL);
}

static int tmpfs_rename(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd,
			unsigned flags, const struct cred *c)
{
	struct inode *inode = od->d_inode;
	struct inode *target = nd->d_inode;
	bool isdir = S_ISDIR(inode->i_mode);
	if (!(flags & RENAME_EXCHANGE) && target && S_ISDIR(target->i_mode) && !tmpfs_dir_empty(nd))
		return -ENOTEMPTY;
	/* Everything that can fail comes first: the names and the whiteout.
	 * After this point the rename completes. */
	struct dname *na = d_name_copy(nd);
	struct dname *nb = (flags & RENAME_EXCHANGE) ? d_name_copy(od) : NULL;
	if (!na || ((flags & RENAME_EXCHANGE) && !nb)) {
		d_name_free(na);
		d_name_free(nb);
		return -ENOMEM;
	}
	struct dentry *wd = NULL;
	struct inode *wi = NULL;
	if (flags & RENAME_WHITEOUT) {
		/* a 0:0 character device takes the old name (overlayfs's
		 * whiteout), a new inode of the caller's, as Linux's
		 * shmem_whiteout makes it */
		int err;
		wi = tmpfs_get_inode(odir->i_sb, odir, S_IFCHR, 0, c, &err);
		if (!wi) {
			d_name_free(na);
			return err;
		}
		struct qstr q = { .name = od->d_name->name, .len = od->d_name->len, .hash = od->d_name->hash };
		wd = d_alloc(od->d_parent, &q);
		if (!wd) {
			set_nlink(wi, 0);
			iput(wi);
			d_name_free(na);
			return -ENOMEM;
		}
	}
	struct timespec now = current_time();
	if (flags & RENAME_EXCHANGE) {
		bool tdir = S_ISDIR(target->i_mode);
		if (odir != ndir && isdir != tdir) {
			if (isdir) {
				drop_nlink(odir);
				inc_nlink(ndir);
			} else {
				drop_nlink(ndir);
				inc_nlink(odir);
			}
		}
		now = rename_set_times(odir, ndir, inode, now);
		inode_stamp(target, now, 0, NULL, NULL);
		d_exchange(od, nd, na, nb);
		return 0;
	}
	if (target) {
		if (S_ISDIR(target->i_mode)) {
			/* new_dir loses the old subdir and gains this one; old_dir loses one */
			d_prune_negative_children(nd);
			inode_flags_set(target, S_DEAD_DIR);
			drop_nlink(target);
			drop_nlink(odir);
		}
		/* the target's name goes; its dentry leaves the hash in d_move */
		WRITE_ONCE(ndir->i_size, ndir->i_size - BOGO_DIRENT_SIZE);
		if (!S_ISDIR(target->i_mode) && target->i_nlink > 1)
			tmpfs_free_inode(target->i_sb); /* as shmem_unlink: the link's charge */
		drop_nlink(target);
		now = inode_stamp(target, now, 0, NULL, NULL);
	} else if (isdir) {
		drop_nlink(odir);
		inc_nlink(ndir);
	}
	WRITE_ONCE(odir->i_size, odir->i_size - BOGO_DIRENT_SIZE);
	WRITE_ONCE(ndir->i_size, ndir->i_size + BOGO_DIRENT_SIZE);
	rename_set_times(odir, ndir, inode, now);
	d_move(od, nd, na);
	if (wd) {
		tmpfs_link_new(odir, wd, wi, now);
		dput(wd);
	}
	return 0;
}

static int tmpfs_tmpfile(struct inode *dir, struct inode **out, umode_t mode, const struct cred *c)
{
	int err;
	struct inode *inode = tmpfs_get_inode(dir->i_sb, dir, (mode & ~S_IFMT) | S_IFREG, 0, c, &err);
	if (!inode)
		return err;
	set_nlink(inode, 0);
	*out = inode;
	return 0;
}

static struct offset_ctx *tmpfs_get_offset_ctx(struct inode *dir)
{
	return &TMPFS_I(dir)->dir_offsets;
}

const struct inode_operations tmpfs_dir_inode_operations = {
	.get_offset_ctx = tmpfs_get_offset_ctx,
	.create = tmpfs_create,
	.mkdir = tmpfs_mkdir,
	.mknod = tmpfs_mknod,
	.symlink = tmpfs_symlink,
	.link = tmpfs_link,
	.unlink = tmpfs_unlink,
	.rmdir = tmpfs_rmdir,
	.rename = tmpfs_rename,
	.tmpfile = tmpfs_tmpfile,
	.getxattr = tmpfs_getxattr, .setxattr = tmpfs_setxattr, .listxattr = tmpfs_listxattr,
	.set_acl = simple_set_acl,
	.fileattr_get = tmpfs_fileattr_get, .fileattr_set = tmpfs_fileattr_set,
};

const struct file_operations tmpfs_dir_operations = {
	.iterate_shared = dcache_readdir,
	.release = dcache_dir_release,
};

/* "size=N[k|m|g|%],nr_inodes=N[k|m|g],mode=OCTAL,uid=N,gid=N" */
static int parse_size(const char *v, unsigned long long *out, bool allow_pct)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 0);
	if (end == v || errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': n <<= 10; end++; break;
	case 'm': case 'M': n <<= 20; end++; break;
	case 'g': case 'G': n <<= 30; end++; break;
	case '%':
		if (!allow_pct)
			return -EINVAL;
		n = n * (12ull << 30) / 100; /* of a notional 12 GiB of memory */
		end++;
		break;
	default: break;
	}
	if (*end)
		return -EINVAL;
	*out = n;
	return 0;
}

enum { OPT_SIZE, OPT_NR_INODES, OPT_MODE, OPT_UID, OPT_GID };

static const struct fs_parameter_spec tmpfs_param_specs[] = {
	{ "size", OPT_SIZE }, { "nr_inodes", OPT_NR_INODES }, { "mode", OPT_MODE },
	{ "uid", OPT_UID },   { "gid", OPT_GID },		  { NULL, 0 },
};

static int tmpfs_param(void *ctx, int opt, char *val)
{
	struct tmpfs_params *p = ctx;
	unsigned long long n;
	char *end;
	switch (opt) {
	case OPT_SIZE:
		if (parse_size(val, &n, true))
			return -EINVAL;
		p->size = n;
		return 0;
	case OPT_NR_INODES:
		if (parse_size(val, &n, false))
			return -EINVAL;
		p->nr_inodes = (unsigned long)n;
		return 0;
	case OPT_MODE:
		n = strtoull(val, &end, 8);
		if (*end || end == val)
			return -EINVAL;
		p->mode = (mode_t)(n & 07777);
		p->has_mode = true;
		return 0;
	default: /* uid, gid */
		n = strtoull(val, &end, 0);
		if (*end || end == val)
			return -EINVAL;
		if (opt == OPT_UID) {
			p->uid = (uid_t)n;
			p->has_uid = true;
		} else {
			p->gid = (gid_t)n;
			p->has_gid = true;
		}
		return 0;
	}
}

static const struct fs_parser tmpfs_parser = {
	.specs = tmpfs_param_specs, .param = tmpfs_param, .max_len = 4096, .sb_words = true,
};

static int tmpfs_parse_options(const char *data, struct tmpfs_params *p)
{
	memset(p, 0, sizeof(*p));
	return fs_parse_options(&tmpfs_parser, data, p);
}

static struct super_block *tmpfs_fill_super(struct uvfs *vfs, const struct tmpfs_params *params)
{
	/* aligned for used_inodes_pc's shards: a line each */
	struct tmpfs_sb_info *sbi = aligned_alloc(64, (sizeof(*sbi) + 63) & ~(size_t)63);
	if (!sbi)
		return NULL;
	memset(sbi, 0, sizeof(*sbi));
	sbi->max_blocks = (unsigned long)((params->size + TMPFS_PAGE_SIZE - 1) / TMPFS_PAGE_SIZE);
	sbi->max_inodes = params->nr_inodes;
	struct super_block *sb = sget(vfs, &tmpfs_super_operations, TMPFS_MAGIC_);
	if (!sb) {
		free(sbi);
		return NULL;
	}
	sb->s_fs_info = sbi;
	sb->s_flags |= SB_EXPORT; /* fhandle.c finds its inodes by number: no map to keep */
	sb->s_flags |= SB_MGTIME;
	struct cred c = { .fsuid = params->has_uid ? params->uid : 0, .fsgid = params->has_gid ? params->gid : 0 };
	int err;
	struct inode *root = tmpfs_get_inode(sb, NULL, S_IFDIR | (params->has_mode ? params->mode : 01777), 0, &c,
					     &err);
	if (!root) {
		deactivate_super(sb);
		return NULL;
	}
	sb->s_root = d_alloc_root(sb, root);
	if (!sb->s_root) {
		iput(root);
		deactivate_super(sb);
		return NULL;
	}
	return sb;
}

/* mount -t tmpfs: any source names nothing; data are the options above */
static int tmpfs_mount(const struct file_system_type *type, struct uvfs *vfs, const char *source,
		       unsigned long ms_flags, const void *data, struct super_block **sbp)
{
	(void)type;
	(void)source;
	(void)ms_flags;
	struct tmpfs_params params;
	int err = tmpfs_parse_options(data, &params);
	if (err)
		return err;
	*sbp = tmpfs_fill_super(vfs, &params);
	return *sbp ? 0 : -ENOMEM;
}

const struct file_system_type tmpfs_fs_type = {
	.name = "tmpfs",
	.mount = tmpfs_mount,
};
