/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tmpfs internals shared by its files (Linux's mm/shmem.c). */
#ifndef UVFS_TMPFS_H
#define UVFS_TMPFS_H
#include "vfs.h"
#include "dcache.h"

#define TMPFS_PAGE_SHIFT 12
#define TMPFS_PAGE_SIZE (1ul << TMPFS_PAGE_SHIFT)
#define TMPFS_RADIX_SHIFT 9
#define TMPFS_RADIX_SIZE (1u << TMPFS_RADIX_SHIFT)
#define BOGO_DIRENT_SIZE 20
#define TMPFS_MAGIC_ 0x01021994

/* mount options: "size=N[k|m|g|%],nr_inodes=N[k|m|g],mode=OCTAL,uid=N,gid=N" */
struct tmpfs_params {
	unsigned long long size; /* 0: unlimited */
	unsigned long nr_inodes; /* 0: unlimited */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool has_mode, has_uid, has_gid;
};
#define SHORT_SYMLINK_LEN 128

/* File pages in a radix tree of 512-way nodes, grown upwards on demand; a
 * missing page is a hole and reads as zeros. */
struct tmpfs_radix {
	void *root;
	unsigned height; /* 0: empty; 1: root is a page array of 512 entries; ... */
};

struct tmpfs_inode {
	struct inode vfs_inode;
	struct tmpfs_radix pages;
	unsigned long nr_pages;
	struct offset_ctx dir_offsets; /* directories: readdir offsets (dcache_readdir) */
};

struct tmpfs_sb_info {
	unsigned long max_blocks; /* pages; 0: unlimited */
	long used_blocks;         /* atomic */
	unsigned long max_inodes; /* 0: unlimited */
	long used_inodes;         /* atomic */
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

static inline struct tmpfs_inode *TMPFS_I(struct inode *inode)
{
	return container_of(inode, struct tmpfs_inode, vfs_inode);
}
static inline struct tmpfs_sb_info *TMPFS_SB(struct super_block *sb) { return sb->s_fs_info; }

/* tmpfs_file.c */
void tmpfs_truncate_pages(struct inode *inode, loff_t from);
int tmpfs_setsize(struct inode *inode, loff_t size);
bool tmpfs_charge_pages(struct super_block *sb, long n);
void tmpfs_uncharge_pages(struct super_block *sb, long n);
extern const struct inode_operations tmpfs_file_inode_operations;
extern const struct file_operations tmpfs_file_operations;
extern const struct file_operations tmpfs_dir_operations;

#endif
