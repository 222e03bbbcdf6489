/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostfs internals shared by its files: a host directory shown inside the
 * tree (docs/ARCHITECTURE.md, "hostfs").
 *
 * Every object uvfs has met is a node: its host identity (st_dev, st_ino),
 * the node of the directory it was found in and the name it was found by
 * (to open it again), and an O_PATH fd of the host's while it holds one.
 * Nodes are the superblock's, not the VFS's: an inode holds one reference
 * on its node and a node one on its parent's, so a node is there to reopen
 * a child by for as long as anything below it is cached, whatever the
 * VFS's inodes do.  Nodes are hashed by identity, so the names of one host
 * inode (hard links) share one uvfs inode.
 *
 * Locks: hsb->lock, inner to every VFS lock, guards the hash, every node's
 * fields and the fd LRU.  Host calls that open a node's fd run under it;
 * data calls use the open file's own host fd and take nothing.
 */
#ifndef UVFS_HOSTFS_H
#define UVFS_HOSTFS_H
#include "vfs.h"
#include "dcache.h"
#include "stat.h"

#define HOSTFS_MAGIC 0x686f7374 /* "host" */

enum hostfs_cache { HOSTFS_CACHE_EXCLUSIVE, HOSTFS_CACHE_REVALIDATE, HOSTFS_CACHE_WATCH };

struct hnode {
	struct hnode *hash_next;
	dev_t dev;
	ino_t ino;
	long refs;            /* the inode's, children's, and pins of users */
	struct hnode *parent; /* NULL: the root */
	char *name;           /* in parent; NULL once the name went (unlink) */
	int fd;               /* O_PATH|O_NOFOLLOW, or -1 */
	unsigned pins;        /* users of fd: the LRU leaves it open */
	struct list_head lru; /* in hsb->lru while it holds an fd the trim may close */
	int rfd;              /* O_RDONLY, shared by the read-only opens, or -1 */
	unsigned rusers;      /* open files using rfd: the LRU leaves it open */
	int wfd;              /* a writable fd opened before chattr +i or +a, for the
			       * files then open for writing without a host fd yet
			       * (hostfs_file.c), or -1; closed with the node */
	struct inode *inode;  /* the live inode of this node, or NULL */
	/* cache=watch (hostfs_watch.c) */
	struct list_head children; /* nodes whose parent this is, by sibling */
	struct list_head sibling;
	int wd;                    /* the host inotify watch of a directory inode, or -1 */
	struct hnode *wd_next;     /* in hsb->watch's table */
};

/* A page cache budget (hostfs_pages.c): the bytes and the LRU of the inodes
 * holding pages, under its own lock; one shared by every mount made
 * without pagecache= (hostfs_pc_shared), or a mount's own. */
struct hostfs_pagecache {
	pthread_mutex_t lock;
	struct list_head lru;   /* struct hostfs_pages, most recently used first */
	size_t bytes;           /* pages held, 4 KiB each */
	size_t max_bytes;       /* pagecache=, 0: off (atomic: read without the lock) */
	size_t nr_inodes;       /* on the LRU */
	unsigned long evictions;
};

struct hostfs_sb {
	pthread_mutex_t lock;
	struct hnode **hash;
	size_t hash_size, nr_nodes;
	struct list_head lru; /* most recently used first */
	unsigned nr_fds, max_fds;
	bool shared_budget;   /* no fds= (at mount or remount): max_fds bounds all such superblocks together */
	enum hostfs_cache cache;
	uint64_t mnt_id;      /* the source's host mount (no other is entered) */
	bool as_root;         /* the library runs as root: chown created objects */
	struct hnode *root;
	struct hostfs_watch *watch; /* cache=watch: the host inotify (hostfs_watch.c) */
	bool listings;        /* directories list from memory (hostfs_dir.c) */
	/* the page cache budget: hostfs_pc_shared() (no pagecache=) or the
	 * mount's own, freed with it; changed once at most, by a remount
	 * (atomic: read without a lock) */
	struct hostfs_pagecache *pc;
};

struct hostfs_inode {
	struct inode vfs_inode;
	struct hnode *hn;
	/* cache=watch, in the inode (freed after a grace period) so that an
	 * RCU walk may read them: a directory's generation, a fresh value of
	 * the superblock's clock at each host change in it (0: not watched);
	 * the attributes changed on the host since they were read.  The
	 * generation a name was last checked against is its dentry's d_time. */
	uint64_t gen;
	int stale;
	/* a directory's listing (hostfs_dir.c), made at its first read; set:
	 * read it from the host again */
	struct hostfs_listing *listing;
	int listing_stale;
	/* a regular file's cached data (hostfs_pages.c), made at its first
	 * read; data_gen: bumped (cache=watch) when the host may have changed
	 * the data, so that pages of an older generation are dropped */
	struct hostfs_pages *pages;
	unsigned data_gen;
	/* cache=exclusive: xattr names the host object is known not to have
	 * (hostfs_xattr.c; low bits), and a generation that each set or
	 * removal through uvfs bumps (atomic) */
	unsigned xattr_absent;
};

static inline struct hostfs_inode *HOSTFS_I(struct inode *inode)
{
	return container_of(inode, struct hostfs_inode, vfs_inode);
}
static inline struct hostfs_sb *HOSTFS_SB(struct super_block *sb) { return sb->s_fs_info; }
static inline struct hnode *HN(struct inode *inode) { return HOSTFS_I(inode)->hn; }

/* hostfs_node.c */
int hostfs_sb_init(struct hostfs_sb *hsb, int root_fd, const struct stat *st, unsigned max_fds);
void hostfs_sb_fini(struct hostfs_sb *hsb);
/* fds= at a remount: the bound of this superblock alone from now on. */
void hostfs_set_max_fds(struct hostfs_sb *hsb, unsigned max_fds);
/* name in the host directory dfd as an O_PATH fd, confined (above):
 * -errno as the host says, EXDEV for a host mount point. */
int hostfs_open_beneath(struct hostfs_sb *hsb, int dfd, const char *name);
/* The node's O_PATH fd, pinned until hostfs_fd_put: opened again through
 * the parent's fd and the name if the LRU closed it (-ESTALE if the name
 * now names another object, -ENOENT if it is gone). */
int hostfs_fd_get(struct hostfs_sb *hsb, struct hnode *hn);
void hostfs_fd_put(struct hostfs_sb *hsb, struct hnode *hn);
/* The inode of the object fd (O_PATH, found as name in parent), referenced:
 * the one already cached for its identity, or a new one (its ACLs read from
 * the host if acls: an object uvfs just made below a directory without a
 * default ACL has none; its chattr flags the VFS checks from fsflags, FS_*_FL
 * as hostfs_stat_fd gives them); fd is the node's or closed.  NULL with
 * *errp. */
struct inode *hostfs_iget(struct super_block *sb, int fd, const struct stat *st, unsigned fsflags,
			  struct hnode *parent, const char *name, bool acls, int *errp);
/* fstat of a host fd (O_PATH too), by statx: also the immutable,
 * append-only and nodump flags the host reports in stx_attributes (FS_*_FL
 * in *fsflags; in *known, when not NULL, those of the three it reports at
 * all).  0 or -errno. */
int hostfs_stat_fd(int fd, struct stat *st, unsigned *fsflags, unsigned *known);
void hostfs_node_evict(struct inode *inode);
/* The node of host identity (dev, ino), or NULL (hsb->lock held). */
struct hnode *hostfs_node_find_locked(struct hostfs_sb *hsb, dev_t dev, ino_t ino);
/* Drops a reference taken on the node under hsb->lock. */
void hostfs_node_unref(struct hostfs_sb *hsb, struct hnode *hn);
/* The node's name changed (rename) or went (name NULL: unlink). */
int hostfs_node_rename(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name);
/* Unlink of name in parent: the node stops naming itself by it. */
void hostfs_node_unlinked(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name);
/* The host has the node as name in parent now (a revalidation found it
 * there): the name it is reopened by from now on. */
void hostfs_node_found(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name);
void hostfs_node_found_locked(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name);
/* A node without a name (unlinked, O_TMPFILE) takes name in parent. */
void hostfs_node_named(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name);
/* Opens a path-resolving name of the node's own O_PATH fd with flags
 * (/proc/self/fd/N: the inode held, nothing else): for data and xattrs. */
int hostfs_open_node(struct hostfs_sb *hsb, struct hnode *hn, int flags);

/* The node's shared O_RDONLY fd, opened through its O_PATH fd if it has
 * none, held until hostfs_rfd_put: pread only, the offset is nobody's. */
int hostfs_rfd_get(struct hostfs_sb *hsb, struct hnode *hn);
void hostfs_rfd_put(struct hostfs_sb *hsb, struct hnode *hn);
/* Before an immutable or append-only flag is set on the object: a writable
 * fd kept for the files open for writing then (hn->wfd; no error: without
 * it those files meet the host's EPERM at their first write). */
void hostfs_wfd_keep(struct hostfs_sb *hsb, struct hnode *hn);
/* A copy of hn->wfd (-EPERM when there is none). */
int hostfs_wfd_dup(struct hostfs_sb *hsb, struct hnode *hn);

/* hostfs.c */
void hostfs_fill_inode(struct inode *inode, const struct stat *st);
int hostfs_refresh(struct inode *inode);
void hostfs_set_ops(struct inode *inode);

/* hostfs_watch.c (the host's events) and hostfs_watch_ops.c (the wrapped
 * operations): cache=watch */
int hostfs_watch_init(struct super_block *sb);
void hostfs_watch_shutdown(struct super_block *sb);
void hostfs_watch_fini(struct hostfs_sb *hsb);
/* The directory inode of hn is new (hsb->lock held; fd: its O_PATH fd):
 * its host watch. */
void hostfs_watch_add_locked(struct hostfs_sb *hsb, struct hnode *hn, struct inode *inode, int fd);
/* hn's inode goes (hsb->lock held): its watch goes. */
void hostfs_watch_del_locked(struct hostfs_sb *hsb, struct hnode *hn);
/* cache=watch: would a host change of inode's data be told by a watch
 * (it has a name in a watched directory)? */
bool hostfs_watch_data_watched(struct inode *inode);
/* The watch-mode operation tables for an inode hostfs_set_ops set. */
void hostfs_watch_set_ops(struct inode *inode);
extern const struct dentry_operations hostfs_watch_dentry_operations;

/* hostfs_dir.c: listings from memory, when hsb->listings */
bool hostfs_dir_listed(struct inode *dir);
int hostfs_dir_iterate(struct file *f, struct dir_context *ctx);
/* uvfs made name in dir (a new offset; renamed over another name, that
 * one's), or removed it: the listing follows, or is read from the host if
 * dir had none (dir's i_rwsem held exclusive). */
void hostfs_dir_add(struct inode *dir, const char *name, unsigned len, uint64_t ino, umode_t mode);
void hostfs_dir_remove(struct inode *dir, const char *name, unsigned len);
/* dir was just made by uvfs: empty, listed without the host. */
void hostfs_dir_new(struct inode *dir);
/* cache=exclusive: dir's listing is complete and has no such name, so the
 * host has none either (uvfs is its only writer): a lookup miss needs no
 * host call.  False when not known. */
bool hostfs_dir_absent(struct inode *dir, const char *name, unsigned len);
/* The host changed dir behind uvfs (any context, no lock needed): the
 * listing is read from the host again at its next use, the names that
 * stay keeping their offsets. */
void hostfs_dir_listing_invalidate(struct inode *dir);
void hostfs_dir_listing_free(struct inode *dir);

/* hostfs_pages.c: the page cache */
#define HOSTFS_PAGECACHE_DEFAULT ((size_t)64 << 20)
#define HOSTFS_UNCACHED ((ssize_t)-100000) /* hostfs_pages_read: read from the host */
struct hostfs_pagecache *hostfs_pc_shared(void);
struct hostfs_pagecache *hostfs_pc_new(size_t max_bytes);
void hostfs_pc_free(struct hostfs_pagecache *pc);
void hostfs_pc_resize(struct hostfs_pagecache *pc, size_t max_bytes);
void hostfs_pc_leave(struct hostfs_pagecache *old, struct super_block *sb);
ssize_t hostfs_pages_read(struct file *f, int (*get_fd)(struct file *), void *buf, size_t len, loff_t pos,
			  bool *from_host);
void hostfs_pages_write(struct inode *inode, loff_t pos, const void *buf, size_t n, loff_t size);
void hostfs_pages_truncate(struct inode *inode, loff_t size);
void hostfs_pages_drop(struct inode *inode);
void hostfs_pages_evict(struct inode *inode);
/* cache=watch: the host may have changed the inode's data (any context;
 * the pages go at the next read) */
static inline void hostfs_pages_invalidate(struct inode *inode)
{
	__atomic_add_fetch(&HOSTFS_I(inode)->data_gen, 1, __ATOMIC_ACQ_REL);
}

/* hostfs_export.c: file handles (super_operations) */
int hostfs_encode_fh(struct inode *inode, unsigned char *fh, unsigned *bytes);
int hostfs_fh_to_ino(struct super_block *sb, const unsigned char *fh, unsigned bytes, int type, uint64_t *ino);

/* hostfs_namei.c */
int hostfs_lookup(struct inode *dir, struct dentry *d, unsigned flags);
int hostfs_create(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c);
int hostfs_mkdir(struct inode *dir, struct dentry *d, umode_t mode, const struct cred *c);
int hostfs_mknod(struct inode *dir, struct dentry *d, umode_t mode, dev_t dev, const struct cred *c);
int hostfs_symlink(struct inode *dir, struct dentry *d, const char *target, const struct cred *c);
int hostfs_tmpfile(struct inode *dir, struct inode **out, umode_t mode, const struct cred *c);
int hostfs_link(struct dentry *old, struct inode *dir, struct dentry *d);
int hostfs_unlink(struct inode *dir, struct dentry *d);
int hostfs_rmdir(struct inode *dir, struct dentry *d);
int hostfs_rename(struct inode *odir, struct dentry *od, struct inode *ndir, struct dentry *nd, unsigned flags,
		  const struct cred *c);
int hostfs_get_link(struct inode *inode, char **body, unsigned *len);
extern const struct dentry_operations hostfs_dentry_operations; /* cache=revalidate */

/* hostfs_file.c */
extern const struct file_operations hostfs_file_operations;
extern const struct file_operations hostfs_dir_operations;
/* f: the open file of an ftruncate or O_TRUNC open (ATTR_FILE), or NULL */
int hostfs_truncate_same(struct inode *inode, loff_t size);
int hostfs_setsize(struct inode *inode, loff_t size, struct file *f);

/* hostfs_xattr.c */
ssize_t hostfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size);
int hostfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags);
ssize_t hostfs_listxattr(struct inode *inode, char *buf, size_t size, bool trusted);
struct posix_acl;
int hostfs_set_acl(struct inode *inode, int type, struct posix_acl *acl, umode_t mode);
/* A new inode's ACLs from the host object fd. */
void hostfs_load_acls(struct inode *inode, int fd);
/* An object uvfs just made has no file capability (cache=exclusive). */
void hostfs_xattr_new(struct inode *inode);

#endif
