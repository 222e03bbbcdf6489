// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * file_table.c - struct file: allocation, references and the final release
 * (Linux's fs/file_table.c).
 *
 * File memory is type-stable: a struct file is only ever reused as a struct
 * file, and is returned to the allocator only after a grace period.  So a
 * lockless fget() may touch a file that was closed meanwhile: it raises the
 * count only if it is not zero and then checks that the fd slot still points
 * at it (as Linux does since files became SLAB_TYPESAFE_BY_RCU).  Freed files
 * wait in a small per-thread cache for the next open.
 *
 * The seeds' fast paths live here:
 *   - seed 000: a file that failed to open was never visible; it is freed on
 *     the spot (file_free_unopened), no atomic, no task_work, no grace period.
 *     The open path goes further and builds no file until the path resolves.
 *   - seed 001: close(2) drops its reference with fput_close(), which runs the
 *     final release synchronously; one compare-and-swap when the count is one.
 * With -Dbaseline_failed_open / -Dbaseline_close_sync the old behaviour is
 * compiled in instead: every final release goes through task_work, and an
 * unopened file is freed through call_rcu.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include "core/eventpoll.h"
#include "locks.h"

#define FILE_CACHE_MAX 64

static __thread struct file *file_cache;
static __thread unsigned file_cache_n;

static void file_free_rcu(struct rcu_head *h)
{
	struct file *f = container_of(h, struct file, f_rcu);
	pthread_mutex_destroy(&f->f_pos_lock);
	free(f);
}

/* A cached file keeps its f_cred reference: the next open on this thread
 * with the same cred reuses it (file_cred_reuse), so open and close pay
 * nothing for it. */
static inline void file_cache_put(struct file *f)
{
	if (likely(file_cache_n < FILE_CACHE_MAX)) {
		f->f_cache_next = file_cache;
		file_cache = f;
		file_cache_n++;
		return;
	}
	file_cred_put(f->f_cred);
	urcu_memb_call_rcu(&f->f_rcu, file_free_rcu);
}

/* A thread that exits hands its cache back through call_rcu. */
void file_cache_drain(void)
{
	while (file_cache) {
		struct file *f = file_cache;
		file_cache = f->f_cache_next;
		if (f->f_cred)
			file_cred_put(f->f_cred);
		urcu_memb_call_rcu(&f->f_rcu, file_free_rcu);
	}
	file_cache_n = 0;
}

static inline struct file *file_cache_get(void)
{
	struct file *f = file_cache;
	if (likely(f)) {
		file_cache = f->f_cache_next;
		file_cache_n--;
		return f;
	}
	/* a cache line of its own: files of different threads must not share one */
	f = aligned_alloc(64, (sizeof(*f) + 63) & ~(size_t)63);
	if (f) {
		f->f_count = 0;
		f->f_gen = 0;
		f->f_cred = NULL;
		f->f_ep = NULL; /* and NULL again whenever a file is freed (eventpoll_release) */
		/* initialised once: a cached file keeps an unlocked mutex */
		pthread_mutex_init(&f->f_pos_lock, NULL);
	}
	return f;
}

struct file *alloc_empty_file(struct uvfs *vfs, int flags)
{
	/* ENFILE, as Linux: the cheap approximate sum first */
	if (unlikely(vfs->max_files != ~0UL) && pcounter_sum(&vfs->nr_files) >= (long)vfs->max_files)
		return NULL;
	struct file *f = file_cache_get();
	if (!f)
		return NULL;
	/* odd until fd install publishes it: lockless readers of a stale slot
	 * see the change (fd_path_rcu) */
	__atomic_store_n(&f->f_gen, f->f_gen | 1, __ATOMIC_RELAXED);
	smp_wmb();
	f->f_mode = 0;
	f->f_flags = flags;
	f->f_pos = 0;
	f->f_path.mnt = NULL;
	f->f_path.dentry = NULL;
	f->f_inode = NULL;
	f->f_op = NULL;
	f->f_uvfs = vfs;
	f->f_cred = file_cred_reuse(f->f_cred);
	f->private_data = NULL;
	pcounter_add_local(&vfs->nr_files, 1);
	/* The count goes last: a racing fget() must not see a half-made file. */
	__atomic_store_n(&f->f_count, 1, __ATOMIC_RELEASE);
	return f;
}

/* Why alloc_empty_file (or alloc_file_pseudo) gave NULL: ENFILE at the
 * instance's limit, else ENOMEM, as Linux's alloc_empty_file answers.  Asked
 * after the failure, out of line, so that the open path carries no error
 * code. */
int alloc_file_errno(struct uvfs *vfs)
{
	if (vfs->max_files != ~0UL && pcounter_sum(&vfs->nr_files) >= (long)vfs->max_files)
		return -ENFILE;
	return -ENOMEM;
}

/* A file that never became open and was never seen by another thread. */
static void file_free(struct file *f)
{
	pcounter_add_local(&f->f_uvfs->nr_files, -1);
	file_cache_put(f);
}

#ifndef UVFS_BASELINE_FAILED_OPEN
void file_free_unopened(struct file *f)
{
	/* seed 000: not opened, never installed: no deferral, no grace period.
	 * One compare-and-swap remains because file memory is type-stable: a
	 * racing fget() on a stale slot may hold a transient reference, and then
	 * the ordinary put frees it. */
	long one = 1;
	if (likely(__atomic_compare_exchange_n(&f->f_count, &one, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)))
		file_free(f);
	else
		fput(f);
}
#else
static void file_free_unopened_rcu(struct rcu_head *h)
{
	file_free_rcu(h);
}
static void ____fput_unopened(struct callback_head *work)
{
	struct file *f = container_of(work, struct file, f_task_work);
	file_cred_put(f->f_cred); /* not through the cache */
	pcounter_add_local(&f->f_uvfs->nr_files, -1);
	urcu_memb_call_rcu(&f->f_rcu, file_free_unopened_rcu);
}
void file_free_unopened(struct file *f)
{
	/* before seed 000: the ordinary fput, task_work, then an RCU-delayed free */
	if (__atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL) == 0)
		task_work_add(&f->f_task_work, ____fput_unopened);
}
#endif

struct file *get_file(struct file *f)
{
	__atomic_fetch_add(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

/* The final release: no locks held, any thread. */
void __fput(struct file *f)
{
	if (likely(f->f_mode & FMODE_OPENED)) {
		struct inode *inode = f->f_inode;
		fsnotify_close(f); /* before release, as Linux's __fput */
		eventpoll_release(f);
		if (unlikely(READ_ONCE(inode->i_flctx) != NULL))
			locks_remove_file(f); /* its flock and OFD locks */
		if (f->f_op && f->f_op->release)
			f->f_op->release(inode, f);
		if (f->f_mode & FMODE_WRITE)
			__atomic_fetch_sub(&inode->i_writecount, 1, __ATOMIC_RELAXED);
		if (f->f_mode & FMODE_WRITER)
			mnt_put_write_access(f->f_path.mnt);
		dput(f->f_path.dentry);
		mntput_inline(f->f_path.mnt);
	}
	file_free(f);
}

static void ____fput(struct callback_head *work)
{
	__fput(container_of(work, struct file, f_task_work));
}

void fput(struct file *f)
{
	if (__atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL) == 0)
		task_work_add(&f->f_task_work, ____fput);
}

#ifndef UVFS_BASELINE_CLOSE_SYNC
/* seed 001: close(2) may release synchronously; when its reference is the
 * only one, a single compare-and-swap takes the count to zero. */
void fput_close(struct file *f)
{
	long one = 1;
	if (likely(__atomic_compare_exchange_n(&f->f_count, &one, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) ||
	    __atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL) == 0)
		__fput(f);
}
#else
void fput_close(struct file *f)
{
	fput(f);
}
#endif

/* The last step of an open: the file takes the path's references. */
int finish_open(struct file *f, const struct path *path, struct inode *inode, unsigned mode)
{
	return __finish_open(f, path, inode, mode);
}

/* A file on an internal filesystem that no path reaches (pipes): created
 * with FMODE_NONOTIFY so that reads and writes skip fsnotify (seed 003). */
struct file *alloc_file_pseudo(struct uvfs *vfs, struct super_block *sb, struct inode *inode, int flags,
			       const struct file_operations *fop)
{
	struct file *f = alloc_empty_file(vfs, flags);
	if (!f)
		return NULL;
	struct dentry *d = d_alloc_pseudo(sb, inode);
	if (!d) {
		file_free_unopened(f);
		return NULL;
	}
	struct path path = { .mnt = NULL, .dentry = d };
	unsigned mode = ((flags & O_ACCMODE) == O_RDONLY ? FMODE_READ : 0) |
			((flags & O_ACCMODE) == O_WRONLY ? FMODE_WRITE : 0) |
			((flags & O_ACCMODE) == O_RDWR ? FMODE_READ | FMODE_WRITE : 0);
#ifndef UVFS_BASELINE_PSEUDO_NONOTIFY
	mode |= FMODE_NONOTIFY;
#endif
	finish_open(f, &path, inode, mode);
	f->f_op = fop;
	return f;
}
