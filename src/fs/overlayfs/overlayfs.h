/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * overlayfs internals shared by its files (Linux's fs/overlayfs/ovl_entry.h
 * and overlayfs.h): a union of directory trees of the uvfs namespace, the
 * upper layer writable, the lower ones read only.
 */
#ifndef UVFS_OVERLAYFS_H
#define UVFS_OVERLAYFS_H
#include "vfs.h"
#include "dcache.h"
#include "stat.h"

#define OVERLAYFS_MAGIC_ 0x794c7630
#define OVL_MAX_LOWER 64

#define OVL_XATTR_OPAQUE "trusted.overlay.opaque"
#define OVL_XATTR_REDIRECT "trusted.overlay.redirect"
#define OVL_XATTR_ORIGIN "trusted.overlay.origin"
#define OVL_XATTR_IMPURE "trusted.overlay.impure"
#define OVL_XATTR_UUID "trusted.overlay.uuid"
#define OVL_XATTR_PROTATTR "trusted.overlay.protattr" /* "a", "i": append-only, immutable */
#define OVL_XATTR_PREFIX "trusted.overlay."
#define OVL_XATTR_REDIRECT_ "trusted.overlay.redirect"
#define XATTR_CREATE_ 1

/* A layer: the mount and root dentry of a directory given in the options,
 * referenced for the life of the superblock (umount of a layer is EBUSY
 * meanwhile). */
struct ovl_layer {
	struct path root;
	int idx; /* 0: upper; 1..: the lowers, top first */
};

struct ovl_sb_info {
	struct ovl_layer upper; /* root.dentry NULL: a read-only overlay */
	struct path workdir;    /* the "work" directory made inside workdir=, referenced */
	struct path workbase;   /* workdir= itself */
	int nlower;
	struct ovl_layer lower[OVL_MAX_LOWER];
	bool redirect_dir;
	bool samefs; /* every layer on one superblock: st_dev is the overlay's for all */
	pthread_mutex_t whiteout_lock;
	struct dentry *whiteout; /* the shared whiteout in the work directory, referenced */
	unsigned tmp_seq;        /* temporary names in the work directory, under whiteout_lock */
};

static inline struct ovl_sb_info *OVL_SB(struct super_block *sb) { return sb->s_fs_info; }

/* One layer's object under an overlay name. */
struct ovl_real {
	struct dentry *dentry; /* referenced */
	const struct ovl_layer *layer;
};

/*
 * The overlay's inode: the objects it shows, fixed when the name is looked
 * up (the layers must not change behind a mounted overlay, as on Linux).
 * A directory has the upper one (if any) and every lower one it merges
 * down to an opaque one; anything else has its topmost object only.
 */
struct ovl_inode {
	struct inode vfs_inode;
	struct ovl_real upper; /* dentry NULL: none */
	int nlower;
	struct ovl_real *lower; /* nlower entries, top first */
	bool merged; /* a directory with names from more than one layer */
	/* the one dentry of this inode (each lookup makes its own inode), for
	 * the operations the VFS gives an inode only (setxattr) */
	struct dentry *alias;
	pthread_mutex_t copy_lock; /* one copy-up at a time */
};

static inline struct ovl_inode *OVL_I(struct inode *inode)
{
	return container_of(inode, struct ovl_inode, vfs_inode);
}

/* The object that answers for the inode: the upper one, else the top lower. */
static inline const struct ovl_real *ovl_real_of(struct inode *inode)
{
	struct ovl_inode *oi = OVL_I(inode);
	return smp_load_acquire(&oi->upper.dentry) ? &oi->upper : &oi->lower[0];
}
static inline struct path ovl_real_path(const struct ovl_real *r)
{
	return (struct path){ .mnt = r->layer->root.mnt, .dentry = r->dentry };
}

/* namei.c */
struct dentry *ovl_lookup_real(struct dentry *dir, const char *name, size_t len, int *errp);
bool ovl_is_whiteout(const struct dentry *d);
bool ovl_is_opaque_dir(struct dentry *d);
int ovl_lookup(struct inode *dir, struct dentry *d, unsigned flags);
int ovl_set_xattr_once(struct dentry *real, const char *name, const void *value, size_t size);
int ovl_set_origin(struct dentry *upper, struct dentry *lower);
bool ovl_origin_ino(struct dentry *real, uint64_t *ino);
bool ovl_is_impure(struct dentry *real);

/* inode.c */
struct inode *ovl_get_inode(struct super_block *sb, struct ovl_real *upper, struct ovl_real *lower, int nlower,
			    bool is_root, int *errp);
void ovl_real_put(struct ovl_real *r);
extern const struct inode_operations ovl_dir_inode_operations;
extern const struct inode_operations ovl_file_inode_operations;
extern const struct inode_operations ovl_special_inode_operations;
extern const struct inode_operations ovl_symlink_inode_operations;
/* A copy of the real object's ACL of that type (NULL, *errp 0: none). */
struct posix_acl *ovl_real_acl(struct inode *real, int type, int *errp);
extern const struct file_operations ovl_file_operations;

struct file *ovl_open_realfile(struct file *f, const struct path *real, int *errp);

int ovl_getattr(struct inode *inode, struct kstat *st);
int ovl_fileattr_get(struct inode *inode, unsigned *flags);
int ovl_fileattr_set(struct inode *inode, unsigned flags);
ssize_t ovl_getxattr(struct inode *inode, const char *name, void *buf, size_t size);
ssize_t ovl_listxattr(struct inode *inode, char *buf, size_t size, bool trusted);
bool ovl_is_ancestor(struct dentry *anc, struct dentry *d);
/* dir.c: an unlink in a real directory (Linux's ovl_do_unlink) */
int ovl_do_unlink(struct inode *dir, struct dentry *d);

/* copy_up.c */
extern const struct cred ovl_mounter_cred;
int ovl_real_set_attrs(struct dentry *real, umode_t mode, uid_t uid, gid_t gid, const struct timespec *atime,
		       const struct timespec *mtime);
int ovl_copy_up(struct dentry *d);
/* in_rename: the caller is an overlay rename, inside rename_seq's write section */
int ovl_copy_up_ctx(struct dentry *d, bool in_rename);

/* dir.c */
int ovl_set_redirect(struct dentry *real, struct dentry *od, bool absolute);

/* readdir.c */
struct ovl_dircache;
extern const struct file_operations ovl_dir_operations;
/* The merged names of dir, read with ctx's instance. */
int ovl_build_cache(struct file *ctx, struct inode *dir, struct ovl_dircache **out);
int ovl_dircache_visible(const struct ovl_dircache *c);
/* the upper whiteouts of a directory being removed, its i_rwsem held */
int ovl_dircache_remove_whiteouts(const struct ovl_dircache *c, struct dentry *udir);
void ovl_dircache_free(struct ovl_dircache *c);

#endif
