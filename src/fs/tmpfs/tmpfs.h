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
 * missing page is a hole and reads as zeros.  A slot may also hold
 * TMPFS_FALLOC_PAGE: a page fallocate reserved and nobody wrote yet
 * (shmem's folio that is not uptodate).  It is charged and counted in
 * st_blocks, reads as zeros, is a hole to SEEK_DATA, and costs no memory
 * until a write makes it a real page.  tmpfs_page_present() tells a real
 * page from both, in the one compare a NULL test costs. */
#define TMPFS_FALLOC_PAGE ((void *)1)
static inline bool tmpfs_page_present(const void *pg) { return (uintptr_t)pg > 1; }

struct tmpfs_radix {
	void *root;
	unsigned height; /* 0: empty; 1: root is a page array of 512 entries; ... */
};

struct tmpfs_xattr;
struct tmpfs_inode {
	struct inode vfs_inode;
	struct tmpfs_radix pages;
	unsigned long nr_pages;
	struct tmpfs_xattr *xattrs; /* tmpfs_xattr.c: changed under i_rwsem and i_lock, read under i_lock */
	struct offset_ctx dir_offsets; /* directories: readdir offsets (dcache_readdir) */
	unsigned fsflags; /* FS_*_FL (chattr), under i_rwsem: tmpfs_fileattr_set */
	/* regular files: F_SEAL_* (memfd.c's F_ADD_SEALS adds under i_rwsem);
	 * F_SEAL_SEAL from the start but for a memfd made to be sealed */
	unsigned seals;
};

struct tmpfs_sb_info {
	unsigned long max_blocks; /* pages; 0: unlimited */
	long used_blocks;         /* atomic */
	unsigned long max_inodes; /* 0: unlimited */
	/* Inodes and extra links in use: with a limit (max_inodes), in
	 * used_inodes, exactly (the ENOSPC check below); without one, in the
	 * counting thread's shard of used_inodes_pc, so that creates on
	 * different cores write different lines.  A remount may set a limit
	 * later: the total is always the sum of both. */
	long used_inodes;         /* atomic */
	struct pcounter used_inodes_pc;
	long used_xattr;          /* atomic: bytes of xattrs, from the same space (tmpfs_ispace_over) */
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

static inline struct tmpfs_inode *TMPFS_I(struct inode *inode)
{
	return container_of(inode, struct tmpfs_inode, vfs_inode);
}
static inline struct tmpfs_sb_info *TMPFS_SB(struct super_block *sb) { return sb->s_fs_info; }

/*
 * shmem's ispace: a limit of nr_inodes is nr_inodes * BOGO_INODE_SIZE bytes,
 * of which every inode and extra hard link takes BOGO_INODE_SIZE and every
 * xattr value tmpfs_xattr_space().  Each taker adds its part first and then
 * checks the sum (sequentially consistent, so of two racing takers at least
 * one sees the other), taking it back when over.
 */
#define BOGO_INODE_SIZE 1024
/* Inodes and extra links in use (both counts; see used_inodes). */
static inline long tmpfs_inodes_used(struct tmpfs_sb_info *sbi)
{
	return __atomic_load_n(&sbi->used_inodes, __ATOMIC_SEQ_CST) + pcounter_sum(&sbi->used_inodes_pc);
}
static inline bool tmpfs_ispace_over(struct tmpfs_sb_info *sbi)
{
	if (!sbi->max_inodes)
		return false;
	unsigned long inodes = (unsigned long)tmpfs_inodes_used(sbi);
	unsigned long xattr = (unsigned long)__atomic_load_n(&sbi->used_xattr, __ATOMIC_SEQ_CST);
	return inodes * BOGO_INODE_SIZE + xattr > sbi->max_inodes * BOGO_INODE_SIZE;
}
/* The inodes' worth of ispace in use, as statfs and remount count it. */
static inline unsigned long tmpfs_ispace_used(struct tmpfs_sb_info *sbi)
{
	unsigned long xattr = (unsigned long)__atomic_load_n(&sbi->used_xattr, __ATOMIC_RELAXED);
	return (unsigned long)tmpfs_inodes_used(sbi) +
	       (xattr + BOGO_INODE_SIZE - 1) / BOGO_INODE_SIZE;
}

/* Count an inode (or link) in or out: without a limit nothing reads the
 * count on this path, so the thread's own shard takes it. */
static inline void tmpfs_count_inodes(struct tmpfs_sb_info *sbi, long d)
{
	if (READ_ONCE(sbi->max_inodes))
		__atomic_add_fetch(&sbi->used_inodes, d, __ATOMIC_SEQ_CST);
	else
		pcounter_add(&sbi->used_inodes_pc, d);
}

/* tmpfs_xattr.c */
ssize_t tmpfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size);
int tmpfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags);
ssize_t tmpfs_listxattr(struct inode *inode, char *buf, size_t size, bool trusted);
/* FS_IOC_GETFLAGS/SETFLAGS of files and directories (tmpfs_xattr.c) */
int tmpfs_fileattr_get(struct inode *inode, unsigned *flags);
int tmpfs_fileattr_set(struct inode *inode, unsigned flags);
/* the flags a new inode takes from its directory: nodump, noatime */
#define TMPFS_FL_INHERITED (0x40u | 0x80u)
void tmpfs_xattrs_free(struct inode *inode);

/* tmpfs_file.c */
void tmpfs_truncate_pages(struct inode *inode, loff_t from);
int tmpfs_setsize(struct inode *inode, loff_t size);
bool tmpfs_charge_pages(struct super_block *sb, long n);
void tmpfs_uncharge_pages(struct super_block *sb, long n);
extern const struct inode_operations tmpfs_file_inode_operations;
extern const struct file_operations tmpfs_file_operations;
extern const struct file_operations tmpfs_dir_operations;

#endif
