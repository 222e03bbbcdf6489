// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tmpfs_file.c - the data of tmpfs regular files: sparse pages in a radix
 * tree, read, write, truncate, fallocate and SEEK_DATA/SEEK_HOLE.
 *
 * Locks: the inode's i_rwsem, shared for read and exclusive for write and
 * size changes, protects the page tree and i_size.
 */
#include "tmpfs.h"
#include "core/xattr.h"
#include "core/attr.h"
#include <limits.h>
#include <malloc.h>
#include <linux/falloc.h>

#define MAX_LFS_FILESIZE ((loff_t)LLONG_MAX)

bool tmpfs_charge_pages(struct super_block *sb, long n)
{
	struct tmpfs_sb_info *sbi = TMPFS_SB(sb);
	long used = __atomic_add_fetch(&sbi->used_blocks, n, __ATOMIC_RELAXED);
	if (sbi->max_blocks && (unsigned long)used > sbi->max_blocks) {
		__atomic_sub_fetch(&sbi->used_blocks, n, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

void tmpfs_uncharge_pages(struct super_block *sb, long n)
{
	__atomic_sub_fetch(&TMPFS_SB(sb)->used_blocks, n, __ATOMIC_RELAXED);
}

/*
 * Freed pages go back to the host.  A page is a 4 KiB malloc chunk, and
 * glibc returns freed chunks to the kernel only from the top of a heap: one
 * allocation made after a file's pages and still live (any dentry, any
 * other file) keeps every page below it resident after the file is gone (a
 * FUSE server stayed at its peak).  So once TRIM_PAGES pages were freed
 * since the last time, the thread that frees more runs malloc_trim(0),
 * which gives back the whole pages inside free chunks of every arena.  Its
 * cost is a walk of the free chunks and a madvise per run of them, paid
 * once per 16 MiB freed; a write never pays it (docs/BENCHMARKS.md).
 */
#define TRIM_PAGES 4096ul
static unsigned long pages_freed_untrimmed; /* atomic */

static void tmpfs_pages_freed(unsigned long n)
{
	if (!n)
		return;
	if (__atomic_add_fetch(&pages_freed_untrimmed, n, __ATOMIC_RELAXED) < TRIM_PAGES)
		return;
	/* of the threads that cross the mark together, one trims */
	if (__atomic_exchange_n(&pages_freed_untrimmed, 0, __ATOMIC_RELAXED) >= TRIM_PAGES)
		malloc_trim(0);
}

static inline unsigned long radix_capacity(unsigned height)
{
	return height == 0 ? 0 : 1ul << (TMPFS_RADIX_SHIFT * height > 63 ? 63 : TMPFS_RADIX_SHIFT * height);
}

/* The page at index, or NULL (a hole). */
static void *radix_lookup(const struct tmpfs_radix *r, unsigned long index)
{
	if (index >= radix_capacity(r->height))
		return NULL;
	void **node = r->root;
	for (unsigned h = r->height; node && h > 1; h--)
		node = node[(index >> (TMPFS_RADIX_SHIFT * (h - 1))) & (TMPFS_RADIX_SIZE - 1)];
	return node ? node[index & (TMPFS_RADIX_SIZE - 1)] : NULL;
}

/* The first index >= from that has data (a page that is not merely
 * fallocated), under node (height h, first index base), or ULONG_MAX: empty
 * subtrees are skipped whole, so a sparse file of any size costs the pages
 * it has. */
static unsigned long radix_next(void **node, unsigned h, unsigned long base, unsigned long from)
{
	unsigned long span = h == 1 ? 1 : 1ul << (TMPFS_RADIX_SHIFT * (h - 1));
	for (unsigned i = 0; i < TMPFS_RADIX_SIZE; i++) {
		unsigned long lo = base + i * span;
		if (!node[i] || lo + span <= from)
			continue;
		if (h == 1) {
			if (node[i] == TMPFS_FALLOC_PAGE)
				continue;
			return lo;
		}
		unsigned long r = radix_next(node[i], h - 1, lo, from);
		if (r != ULONG_MAX)
			return r;
	}
	return ULONG_MAX;
}

/* The slot for index, growing the tree; NULL when out of memory. */
static void **radix_slot(struct tmpfs_radix *r, unsigned long index)
{
	while (index >= radix_capacity(r->height)) {
		void **n = calloc(TMPFS_RADIX_SIZE, sizeof(void *));
		if (!n)
			return NULL;
		n[0] = r->root;
		r->root = n;
		r->height++;
	}
	void **node = r->root;
	for (unsigned h = r->height; h > 1; h--) {
		void **slot = &node[(index >> (TMPFS_RADIX_SHIFT * (h - 1))) & (TMPFS_RADIX_SIZE - 1)];
		if (!*slot && !(*slot = calloc(TMPFS_RADIX_SIZE, sizeof(void *))))
			return NULL;
		node = *slot;
	}
	return &node[index & (TMPFS_RADIX_SIZE - 1)];
}

/* Frees every page at index in [first, end) under node; returns the pages
 * (and fallocated slots) dropped.  Sets *empty when the node holds nothing
 * afterwards. */
static unsigned long radix_trim(void **node, unsigned h, unsigned long base, unsigned long first,
				unsigned long end, bool *empty)
{
	unsigned long freed = 0;
	bool any = false;
	unsigned long span = h == 1 ? 1 : 1ul << (TMPFS_RADIX_SHIFT * (h - 1));
	for (unsigned i = 0; i < TMPFS_RADIX_SIZE; i++) {
		if (!node[i])
			continue;
		unsigned long lo = base + i * span;
		if (lo + span <= first || lo >= end) {
			any = true;
			continue;
		}
		if (h == 1) {
			if (node[i] != TMPFS_FALLOC_PAGE)
				free(node[i]);
			node[i] = NULL;
			freed++;
		} else {
			bool e;
			freed += radix_trim(node[i], h - 1, lo, first, end, &e);
			if (e) {
				free(node[i]);
				node[i] = NULL;
			} else {
				any = true;
			}
		}
	}
	*empty = !any;
	return freed;
}

/* Zeroes bytes [from, to) of the page at index, if it has a real one. */
static void zero_in_page(struct tmpfs_inode *ti, unsigned long index, size_t from, size_t to)
{
	char *pg = radix_lookup(&ti->pages, index);
	if (tmpfs_page_present(pg))
		memset(pg + from, 0, to - from);
}

/* Drops the pages wholly inside [start, end] (bytes, end inclusive) and
 * zeroes the parts of the partial pages at either end (shmem's
 * shmem_truncate_range).  i_rwsem held exclusive. */
static void tmpfs_drop_range(struct inode *inode, loff_t start, loff_t end)
{
	struct tmpfs_inode *ti = TMPFS_I(inode);
	if (!ti->pages.root || end < start)
		return;
	const loff_t mask = TMPFS_PAGE_SIZE - 1;
	unsigned long first = (unsigned long)(start >> TMPFS_PAGE_SHIFT);
	unsigned long last = (unsigned long)(end >> TMPFS_PAGE_SHIFT);
	unsigned long stop; /* the first page past the whole ones */
	if (first == last && ((start & mask) || (end & mask) != mask)) {
		zero_in_page(ti, first, (size_t)(start & mask), (size_t)(end & mask) + 1);
		return;
	}
	if (start & mask)
		zero_in_page(ti, first++, (size_t)(start & mask), TMPFS_PAGE_SIZE);
	if ((end & mask) != mask)
		zero_in_page(ti, last, 0, (size_t)(end & mask) + 1);
	stop = (end & mask) == mask ? last + 1 : last;
	if (first >= stop)
		return;
	bool empty;
	unsigned long freed = radix_trim(ti->pages.root, ti->pages.height, 0, first, stop, &empty);
	if (empty) {
		free(ti->pages.root);
		ti->pages.root = NULL;
		ti->pages.height = 0;
	}
	ti->nr_pages -= freed;
	WRITE_ONCE(inode->i_blocks, ti->nr_pages << (TMPFS_PAGE_SHIFT - 9));
	tmpfs_uncharge_pages(inode->i_sb, (long)freed);
	tmpfs_pages_freed(freed);
}

/* Drops the pages wholly at or beyond from; zeroes the tail of a partial page. */
void tmpfs_truncate_pages(struct inode *inode, loff_t from)
{
	tmpfs_drop_range(inode, from, MAX_LFS_FILESIZE);
}

int tmpfs_setsize(struct inode *inode, loff_t size)
{
	if (size < inode->i_size)
		tmpfs_truncate_pages(inode, size);
	WRITE_ONCE(inode->i_size, size);
	return 0;
}

static ssize_t tmpfs_read(struct file *f, void *buf, size_t len, loff_t *ppos)
{
	struct inode *inode = f->f_inode;
	struct tmpfs_inode *ti = TMPFS_I(inode);
	loff_t pos = *ppos;
	size_t done = 0;
	down_read(&inode->i_rwsem);
	loff_t size = inode->i_size;
	if (pos < size) {
		if ((loff_t)len > size - pos)
			len = (size_t)(size - pos);
		while (done < len) {
			unsigned long idx = (unsigned long)((pos + done) >> TMPFS_PAGE_SHIFT);
			size_t off = (size_t)((pos + done) & (TMPFS_PAGE_SIZE - 1));
			size_t n = MIN(TMPFS_PAGE_SIZE - off, len - done);
			const char *pg = radix_lookup(&ti->pages, idx);
			if (tmpfs_page_present(pg))
				memcpy((char *)buf + done, pg + off, n);
			else
				memset((char *)buf + done, 0, n);
			done += n;
		}
	}
	up_read(&inode->i_rwsem);
	*ppos = pos + (loff_t)done;
	touch_atime(f);
	return (ssize_t)done;
}

/* What a write of *len bytes at pos may do under the seals (shmem's
 * write_begin, called page by page: F_SEAL_WRITE and F_SEAL_FUTURE_WRITE
 * refuse every page, F_SEAL_GROW a page whose part of the write ends past
 * the size, so the pages before it are written and the write comes back
 * short).  The bytes it may write, or -EPERM for none, after the times
 * change as shmem's do before its first page fails.  Out of line: the
 * unsealed write pays one test. */
static __cold ssize_t sealed_write(struct inode *inode, unsigned seals, loff_t pos, size_t len)
{
	size_t n = len;
	if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
		n = 0;
	} else if ((seals & F_SEAL_GROW) && pos + (loff_t)n > inode->i_size) {
		loff_t last = inode->i_size & ~(loff_t)(TMPFS_PAGE_SIZE - 1); /* the end of the last whole page */
		n = last > pos ? (size_t)(last - pos) : 0;
	}
	if (!n) {
		inode_touch_mc(inode);
		return -EPERM;
	}
	return (ssize_t)n;
}

/* Copies len bytes at pos into the pages, i_rwsem held: the bytes copied
 * (fewer when space or memory ran out), or -ENOSPC or -ENOMEM for none. */
static __always_inline ssize_t tmpfs_copy_in(struct inode *inode, struct tmpfs_inode *ti, const void *buf,
					     size_t len, loff_t pos)
{
	size_t done = 0;
	while (done < len) {
		unsigned long idx = (unsigned long)((pos + done) >> TMPFS_PAGE_SHIFT);
		size_t off = (size_t)((pos + done) & (TMPFS_PAGE_SIZE - 1));
		size_t n = MIN(TMPFS_PAGE_SIZE - off, len - done);
		char *pg = radix_lookup(&ti->pages, idx);
		if (unlikely(!tmpfs_page_present(pg))) {
			/* a fallocated page is charged and counted already */
			bool reserved = pg == TMPFS_FALLOC_PAGE;
			if (!reserved && !tmpfs_charge_pages(inode->i_sb, 1))
				break;
			void **slot = radix_slot(&ti->pages, idx);
			pg = slot ? calloc(1, TMPFS_PAGE_SIZE) : NULL;
			if (!pg) {
				/* out of memory, not of space: shmem's ENOMEM */
				if (!reserved)
					tmpfs_uncharge_pages(inode->i_sb, 1);
				if (done == 0)
					return -ENOMEM;
				break;
			}
			*slot = pg;
			if (!reserved) {
				ti->nr_pages++;
				WRITE_ONCE(inode->i_blocks, ti->nr_pages << (TMPFS_PAGE_SHIFT - 9));
			}
		}
		memcpy(pg + off, (const char *)buf + done, n);
		done += n;
	}
	return done ? (ssize_t)done : -ENOSPC;
}

/* The checks of a write of len bytes at pos, i_rwsem held: the bytes it
 * may write, 0 for none asked, -EFBIG, or the seals' -EPERM
 * (generic_write_checks, then shmem's write_begin). */
static __always_inline ssize_t tmpfs_write_checks(struct inode *inode, struct tmpfs_inode *ti, loff_t pos, size_t len)
{
	if (len == 0)
		return 0;
	if (pos >= MAX_LFS_FILESIZE)
		return -EFBIG;
	if ((loff_t)len > MAX_LFS_FILESIZE - pos)
		len = (size_t)(MAX_LFS_FILESIZE - pos);
	if (unlikely(ti->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE | F_SEAL_GROW)))
		return sealed_write(inode, ti->seals, pos, len);
	return (ssize_t)len;
}

/* The end of a write of done > 0 bytes at pos, i_rwsem held. */
static __always_inline void tmpfs_write_end(struct inode *inode, loff_t pos, size_t done, loff_t *ppos)
{
	if (pos + (loff_t)done > inode->i_size)
		WRITE_ONCE(inode->i_size, pos + (loff_t)done);
	inode_touch_mc(inode);
	*ppos = pos + (loff_t)done;
}

/* tmpfs_write_checks written out: through it, write1 cost 6 instructions
 * more (callgrind) */
static ssize_t tmpfs_write(struct file *f, const void *buf, size_t len, loff_t *ppos)
{
	struct inode *inode = f->f_inode;
	struct tmpfs_inode *ti = TMPFS_I(inode);
	ssize_t ret;
	down_write(&inode->i_rwsem);
	loff_t pos = iocb_append(f) ? inode->i_size : *ppos;
	if (len == 0) {
		ret = 0;
		goto out;
	}
	if (pos >= MAX_LFS_FILESIZE) {
		ret = -EFBIG;
		goto out;
	}
	if ((loff_t)len > MAX_LFS_FILESIZE - pos)
		len = (size_t)(MAX_LFS_FILESIZE - pos);
	if (unlikely(ti->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE | F_SEAL_GROW))) {
		ret = sealed_write(inode, ti->seals, pos, len);
		if (ret < 0)
			goto out;
		len = (size_t)ret;
	}
	ret = tmpfs_copy_in(inode, ti, buf, len, pos);
	if (ret > 0)
		tmpfs_write_end(inode, pos, (size_t)ret, ppos);
out:
	up_write(&inode->i_rwsem);
	return ret;
}

/* writev and its positioned forms: the whole vector in one hold of i_rwsem,
 * as Linux's generic_perform_write, so that no other write comes between
 * its segments and the seals see the whole request (a grow seal stops it at
 * the last whole page within the size, whichever segment that is in). */
static ssize_t tmpfs_write_iter(struct file *f, const struct iovec *iov, int iovcnt, loff_t *ppos)
{
	struct inode *inode = f->f_inode;
	struct tmpfs_inode *ti = TMPFS_I(inode);
	size_t total = 0;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len; /* the VFS bounded the sum (iov_check) */
	down_write(&inode->i_rwsem);
	loff_t pos = iocb_append(f) ? inode->i_size : *ppos;
	ssize_t ret = tmpfs_write_checks(inode, ti, pos, total);
	if (ret > 0) {
		size_t len = (size_t)ret, done = 0;
		for (int i = 0; i < iovcnt && done < len; i++) {
			size_t n = MIN(iov[i].iov_len, len - done);
			if (!n)
				continue;
			ssize_t r = tmpfs_copy_in(inode, ti, iov[i].iov_base, n, pos + (loff_t)done);
			if (r < 0) {
				if (!done)
					ret = r;
				break;
			}
			done += (size_t)r;
			if ((size_t)r < n)
				break;
		}
		if (done) {
			tmpfs_write_end(inode, pos, done, ppos);
			ret = (ssize_t)done;
		}
	}
	up_write(&inode->i_rwsem);
	return ret;
}

/* SEEK_DATA / SEEK_HOLE over allocated pages, as shmem_file_llseek. */
static loff_t tmpfs_llseek(struct file *f, loff_t off, int whence)
{
	struct inode *inode = f->f_inode;
	struct tmpfs_inode *ti = TMPFS_I(inode);
	down_read(&inode->i_rwsem);
	loff_t size = inode->i_size;
	loff_t ret;
	if (off < 0 || off >= size) {
		ret = -ENXIO;
		goto out;
	}
	unsigned long idx = (unsigned long)(off >> TMPFS_PAGE_SHIFT);
	unsigned long last = (unsigned long)((size - 1) >> TMPFS_PAGE_SHIFT);
	bool want_data = whence == SEEK_DATA;
	if (want_data)
		idx = ti->pages.height ? radix_next(ti->pages.root, ti->pages.height, 0, idx) : ULONG_MAX;
	else	/* a run of pages ends within nr_pages steps */
		while (idx <= last && tmpfs_page_present(radix_lookup(&ti->pages, idx)))
			idx++;
	if (idx > last) {
		ret = want_data ? -ENXIO : size;
	} else {
		ret = (loff_t)idx << TMPFS_PAGE_SHIFT;
		if (ret < off)
			ret = off;
		if (ret > size)
			ret = size;
	}
out:
	up_read(&inode->i_rwsem);
	return ret;
}

/*
 * fallocate(2) as shmem_fallocate.  Allocation reserves every missing page
 * of the range (TMPFS_FALLOC_PAGE) and turns a page reserved by an earlier
 * call into a real one, as shmem marks such a folio uptodate so that this
 * call's undo cannot take it back; a failure undoes only this call's
 * reservations, so nothing it added stays charged.
 */
static long tmpfs_fallocate(struct file *f, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = f->f_inode;
	struct tmpfs_inode *ti = TMPFS_I(inode);
	struct tmpfs_sb_info *sbi = TMPFS_SB(inode->i_sb);
	long err = 0;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	down_write(&inode->i_rwsem);
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (ti->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
			err = -EPERM;
			goto out;
		}
		tmpfs_drop_range(inode, offset, offset + len - 1);
		goto out;
	}
	/* past the size, with KEEP_SIZE too */
	if ((ti->seals & F_SEAL_GROW) && offset + len > inode->i_size) {
		err = -EPERM;
		goto out;
	}
	unsigned long start = (unsigned long)(offset >> TMPFS_PAGE_SHIFT);
	unsigned long end = (unsigned long)((offset + len - 1) >> TMPFS_PAGE_SHIFT) + 1;
	/* what no amount of freeing could satisfy fails before any work */
	if (sbi->max_blocks && end - start > sbi->max_blocks) {
		err = -ENOSPC;
		goto out;
	}
	unsigned long idx;
	for (idx = start; idx < end; idx++) {
		void **slot = radix_slot(&ti->pages, idx);
		if (!slot) {
			err = -ENOMEM;
			break;
		}
		if (!*slot) {
			if (!tmpfs_charge_pages(inode->i_sb, 1)) {
				err = -ENOSPC;
				break;
			}
			*slot = TMPFS_FALLOC_PAGE;
			ti->nr_pages++;
		} else if (*slot == TMPFS_FALLOC_PAGE) {
			void *pg = calloc(1, TMPFS_PAGE_SIZE);
			if (!pg) {
				err = -ENOMEM;
				break;
			}
			*slot = pg;
		}
	}
	if (err) {
		/* every reservation left in [start, idx) is this call's */
		unsigned long undone = 0;
		for (unsigned long i = start; i < idx; i++) {
			void **slot = radix_slot(&ti->pages, i);
			if (slot && *slot == TMPFS_FALLOC_PAGE) {
				*slot = NULL;
				undone++;
			}
		}
		ti->nr_pages -= undone;
		tmpfs_uncharge_pages(inode->i_sb, (long)undone);
	} else if (!(mode & FALLOC_FL_KEEP_SIZE) && offset + len > inode->i_size) {
		WRITE_ONCE(inode->i_size, offset + len);
	}
	WRITE_ONCE(inode->i_blocks, ti->nr_pages << (TMPFS_PAGE_SHIFT - 9));
out:
	if (!err)
		inode_touch_mc(inode);
	up_write(&inode->i_rwsem);
	return err;
}

static int tmpfs_fsync(struct file *f) { return 0; }

static unsigned *tmpfs_file_seals(struct file *f)
{
	return &TMPFS_I(f->f_inode)->seals;
}

const struct file_operations tmpfs_file_operations = {
	.read = tmpfs_read,
	.write = tmpfs_write,
	.write_iter = tmpfs_write_iter,
	.llseek = tmpfs_llseek,
	.fsync = tmpfs_fsync,
	.fallocate = tmpfs_fallocate,
	.file_seals = tmpfs_file_seals,
};

static int tmpfs_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	(void)d;
	unsigned seals = TMPFS_I(inode)->seals;
	if (unlikely(seals & (F_SEAL_EXEC | F_SEAL_SHRINK | F_SEAL_GROW))) {
		/* shmem_setattr: no change of an x bit under F_SEAL_EXEC, no
		 * smaller size under F_SEAL_SHRINK, no bigger under F_SEAL_GROW */
		if ((seals & F_SEAL_EXEC) && (ia->ia_valid & ATTR_MODE) && ((inode->i_mode ^ ia->ia_mode) & 0111))
			return -EPERM;
		if ((ia->ia_valid & ATTR_SIZE) &&
		    ((ia->ia_size < inode->i_size && (seals & F_SEAL_SHRINK)) ||
		     (ia->ia_size > inode->i_size && (seals & F_SEAL_GROW))))
			return -EPERM;
	}
	bool resized = setattr_resizes(inode, ia);
	if (resized)
		tmpfs_setsize(inode, ia->ia_size);
	else if (ia->ia_valid & ATTR_SIZE)
		/* shmem_setattr: a size not above the old one drops every page
		 * past it, the same size too, so what fallocate reserved
		 * beyond the end (FALLOC_FL_KEEP_SIZE) goes at an O_TRUNC of an
		 * empty file or a truncate to the size it has */
		tmpfs_truncate_pages(inode, ia->ia_size);
	setattr_copy(inode, ia, resized);
	return 0;
}

const struct inode_operations tmpfs_file_inode_operations = {
	.setattr = tmpfs_setattr,
	.getxattr = tmpfs_getxattr, .setxattr = tmpfs_setxattr, .listxattr = tmpfs_listxattr,
	.set_acl = simple_set_acl,
	.fileattr_get = tmpfs_fileattr_get, .fileattr_set = tmpfs_fileattr_set,
};
