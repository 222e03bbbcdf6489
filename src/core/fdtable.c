// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fdtable.c - per-process fd tables (Linux's fs/file.c).
 *
 * Locks: files->file_lock serialises every change to a table (allocation,
 * install, close, resize).  Readers (fget) take no lock: the table pointer and
 * its slots are read under RCU; a table replaced by a resize is freed after a
 * grace period.
 *
 * Single-thread mode.  Linux's fdget skips the file reference when the
 * table is not shared (files->count == 1): no other task can close the fd
 * under the caller.  A uvfs proc may be called from any number of host
 * threads, so the equivalent condition is "only one thread ever used this
 * table": its first thread becomes the owner, and while no second thread
 * or proc came, the owner's calls on regular files and directories take no
 * reference, no f_pos lock when the file is in no other table, and no
 * table lock.  The owner brackets such a section with two plain stores
 * (owner_active = 1 ... 0) and reads `shared` in between; a second thread
 * sets `shared`, forces a memory barrier on every running thread with
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) and waits for owner_active to
 * drop, after which every call takes the shared (referenced, locked) path
 * for good.  Files whose calls may sleep waiting for a peer (pipes, FIFOs)
 * are light too, but call fd_unlight() before they sleep: it takes a
 * reference and leaves the section, so an owner asleep in one can never hold
 * up that handshake (files without that call, such as inotify's, always
 * take a reference).
 *
 * The lowest free fd is found a word at a time: full_fds_bits has a bit per
 * word of open_fds that is set when that word is full, so a search skips 64
 * busy fds per bit; next_fd remembers where the lowest free fd can start.
 */
#include "vfs.h"
#include "../lib/bitmap.h"
#include <linux/membarrier.h>
#include <sys/syscall.h>

#define NR_OPEN_MAX (1u << 20)

static void fdt_init_embedded(struct files_struct *files)
{
	struct fdtable *fdt = &files->fdtab;
	fdt->max_fds = NR_OPEN_DEFAULT;
	fdt->fd = files->fd_array;
	fdt->open_fds = files->open_fds_init;
	fdt->close_on_exec = files->close_on_exec_init;
	fdt->full_fds_bits = files->full_fds_bits_init;
	files->fdt = fdt;
}

struct files_struct *files_alloc(void)
{
	/* cache-line aligned: the lock and the read-mostly fields sit on lines of their own */
	struct files_struct *files = aligned_alloc(64, (sizeof(*files) + 63) & ~(size_t)63);
	if (!files)
		return NULL;
	memset(files, 0, sizeof(*files));
	files->count = 1;
	spin_lock_init(&files->file_lock);
	fdt_init_embedded(files);
	return files;
}

static struct fdtable *fdt_alloc(unsigned nr)
{
	struct fdtable *fdt = calloc(1, sizeof(*fdt));
	if (!fdt)
		return NULL;
	size_t words = BITS_TO_LONGS(nr);
	fdt->max_fds = nr;
	fdt->fd = calloc(nr, sizeof(struct file *));
	fdt->open_fds = calloc(2 * words + BITS_TO_LONGS(words), sizeof(unsigned long));
	if (!fdt->fd || !fdt->open_fds) {
		free(fdt->fd);
		free(fdt->open_fds);
		free(fdt);
		return NULL;
	}
	fdt->close_on_exec = fdt->open_fds + words;
	fdt->full_fds_bits = fdt->open_fds + 2 * words;
	return fdt;
}

static void fdt_free(struct fdtable *fdt)
{
	free(fdt->fd);
	free(fdt->open_fds);
	free(fdt);
}

static void fdt_free_rcu(struct rcu_head *h)
{
	fdt_free(container_of(h, struct fdtable, rcu));
}

static void copy_fd_bitmaps(struct fdtable *nfdt, const struct fdtable *ofdt, unsigned count)
{
	size_t words = BITS_TO_LONGS(count);
	memcpy(nfdt->open_fds, ofdt->open_fds, words * sizeof(long));
	memcpy(nfdt->close_on_exec, ofdt->close_on_exec, words * sizeof(long));
	size_t fwords = BITS_TO_LONGS(words);
	memcpy(nfdt->full_fds_bits, ofdt->full_fds_bits, fwords * sizeof(long));
	/* a partial last word of full bits must not claim words beyond count */
}

/* Grows the table so that fd fits; file_lock held. */
static int expand_files_slow(struct files_struct *files, unsigned fd)
{
	struct fdtable *cur = files->fdt;
	if (fd >= NR_OPEN_MAX)
		return -EMFILE;
	unsigned nr = cur->max_fds;
	while (nr <= fd)
		nr *= 2;
	if (nr > NR_OPEN_MAX)
		nr = NR_OPEN_MAX;
	struct fdtable *nfdt = fdt_alloc(nr);
	if (!nfdt)
		return -ENOMEM;
	memcpy(nfdt->fd, cur->fd, cur->max_fds * sizeof(struct file *));
	copy_fd_bitmaps(nfdt, cur, cur->max_fds);
	rcu_assign_pointer(files->fdt, nfdt);
	if (cur != &files->fdtab)
		urcu_memb_call_rcu(&cur->rcu, fdt_free_rcu);
	return 0;
}

static inline int expand_files(struct files_struct *files, unsigned fd)
{
	if (likely(fd < files->fdt->max_fds))
		return 0;
	return expand_files_slow(files, fd);
}

static inline void __set_open_fd(unsigned fd, struct fdtable *fdt)
{
	set_bit_(fd, fdt->open_fds);
	unsigned w = fd / BITS_PER_LONG;
	if (!~fdt->open_fds[w])
		set_bit_(w, fdt->full_fds_bits);
}

static inline void __clear_open_fd(unsigned fd, struct fdtable *fdt)
{
	clear_bit_(fd, fdt->open_fds);
	clear_bit_(fd / BITS_PER_LONG, fdt->full_fds_bits);
}

static inline void __set_cloexec(unsigned fd, struct fdtable *fdt, bool on)
{
	if (on)
		set_bit_(fd, fdt->close_on_exec);
	else if (test_bit_(fd, fdt->close_on_exec))
		clear_bit_(fd, fdt->close_on_exec);
}

static unsigned find_next_fd(struct fdtable *fdt, unsigned start)
{
	unsigned maxfd = fdt->max_fds;
	unsigned maxbit = maxfd / BITS_PER_LONG;
	unsigned bitbit = start / BITS_PER_LONG;
	bitbit = find_next_zero_bit_(fdt->full_fds_bits, maxbit, bitbit) * BITS_PER_LONG;
	if (bitbit >= maxfd)
		return maxfd;
	if (bitbit > start)
		start = bitbit;
	return find_next_zero_bit_(fdt->open_fds, maxfd, start);
}

static int light_state; /* 0: unknown, 1: membarrier works, -1: never light */

static bool light_possible(void)
{
	int st = __atomic_load_n(&light_state, __ATOMIC_RELAXED);
	if (likely(st))
		return st > 0;
	st = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1 : -1;
	__atomic_store_n(&light_state, st, __ATOMIC_RELAXED);
	return st > 0;
}

/* Any other thread, or a second proc, uses the table from now on. */
void files_mark_shared(struct files_struct *files)
{
	/* shared: 0 private, 1 handshake under way, 2 shared.  Only the thread
	 * that moves it to 1 runs the handshake; everyone else waits for 2, so
	 * that nobody takes the table lock while the owner may still be inside
	 * a lock-free section. */
	int st = __atomic_load_n(&files->shared, __ATOMIC_ACQUIRE);
	if (st == 2)
		return;
	int zero = 0;
	if (st == 0 && __atomic_compare_exchange_n(&files->shared, &zero, 1, false, __ATOMIC_ACQ_REL,
						   __ATOMIC_ACQUIRE)) {
		if (light_possible())
			syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		else
			smp_mb();
		while (__atomic_load_n(&files->owner_active, __ATOMIC_ACQUIRE))
			sched_yield();
		__atomic_store_n(&files->shared, 2, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&files->shared, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
}

/* The first call from a thread that is not the owner. */
bool files_light_claim(struct files_struct *files)
{
	if (READ_ONCE(files->shared)) {
		files_mark_shared(files); /* returns once the handshake is over */
		return false;
	}
	void *expected = NULL;
	if (READ_ONCE(files->owner) == NULL && light_possible() &&
	    __atomic_compare_exchange_n(&files->owner, &expected, (void *)&uvfs_current, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		WRITE_ONCE(files->owner_active, files->owner_active + 1);
		barrier();
		if (likely(!READ_ONCE(files->shared)))
			return true;
		smp_store_release(&files->owner_active, files->owner_active - 1);
		return false;
	}
	files_mark_shared(files);
	return false;
}

/*
 * Every path that takes the table lock comes through here: a thread that
 * is not the owner must first end the owner's lock-free mode (or become
 * the owner of a table nobody has used yet), or it would change the table
 * under a lock-free owner.
 */
static void files_join(struct files_struct *files)
{
	void *expected = NULL;
	if (READ_ONCE(files->owner) == NULL && !READ_ONCE(files->shared) && light_possible() &&
	    __atomic_compare_exchange_n(&files->owner, &expected, (void *)&uvfs_current, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		return;
	files_mark_shared(files);
}

static inline void files_lock(struct files_struct *files)
{
	if (unlikely(READ_ONCE(files->owner) != (void *)&uvfs_current) &&
	    __atomic_load_n(&files->shared, __ATOMIC_ACQUIRE) != 2)
		files_join(files);
	spin_lock(&files->file_lock);
}

struct fd fdget_slow(struct uvfs_proc *p, int fd, unsigned exclude)
{
	struct file *f = exclude ? fget(p, fd) : fget_raw(p, fd);
	return (struct fd){ f, f ? FDPUT_FPUT : 0 };
}

/* Reserve the lowest free fd >= start below the proc's limit. */
static int alloc_fd_locked(struct uvfs_proc *p, struct files_struct *files, unsigned start, unsigned flags)
{
	unsigned end = p->nofile;
	unsigned fd = start;
	if (fd < files->next_fd)
		fd = files->next_fd;
	struct fdtable *fdt = files->fdt;
	if (likely(fd < fdt->max_fds)) {
		/* next_fd is the lowest free fd when nothing was closed below it
		 * since: take it without a search */
		if (unlikely(test_bit_(fd, fdt->open_fds)))
			fd = find_next_fd(fdt, fd);
	}
	if (unlikely(fd >= end))
		return -EMFILE;
	int err = expand_files(files, fd);
	if (unlikely(err))
		return err;
	fdt = files->fdt;
	if (start <= files->next_fd)
		files->next_fd = fd + 1;
	__set_open_fd(fd, fdt);
	if (unlikely(flags & O_CLOEXEC))
		set_bit_(fd, fdt->close_on_exec);
	/* a freed fd's close-on-exec bit was cleared when it was closed */
	return (int)fd;
}

int alloc_fd_from(struct uvfs_proc *p, unsigned start, unsigned flags)
{
	struct files_struct *files = p->files;
	files_lock(files);
	int fd = alloc_fd_locked(p, files, start, flags);
	spin_unlock(&files->file_lock);
	return fd;
}

int get_unused_fd_flags(struct uvfs_proc *p, unsigned flags)
{
	return alloc_fd_from(p, 0, flags);
}

static inline void __put_unused_fd(struct files_struct *files, unsigned fd)
{
	__set_cloexec(fd, files->fdt, false);
	__clear_open_fd(fd, files->fdt);
	if (fd < files->next_fd)
		files->next_fd = fd;
}

void put_unused_fd(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	files_lock(files);
	__put_unused_fd(files, fd);
	spin_unlock(&files->file_lock);
}

/*
 * Is every fd below the proc's limit taken?  (EMFILE before an open's
 * walk.)  A lockless peek: it writes nothing, so opens that fail (seed 000's
 * case) in threads sharing a table do not bounce its cache lines; a race
 * with another thread's close only moves the answer to the allocation,
 * which decides under the lock.
 */
bool fd_table_full(struct uvfs_proc *p)
{
	struct files_struct *files = p->files;
	urcu_memb_read_lock();
	struct fdtable *fdt = rcu_dereference(files->fdt);
	unsigned fd = READ_ONCE(files->next_fd);
	if (fd < fdt->max_fds && (READ_ONCE(fdt->open_fds[fd / BITS_PER_LONG]) >> (fd % BITS_PER_LONG) & 1))
		fd = find_next_fd(fdt, fd);
	urcu_memb_read_unlock();
	return fd >= p->nofile;
}

/* A new file becomes visible: its generation turns even (see fd_path_rcu). */
static inline void file_publish(struct file *f)
{
	unsigned g = __atomic_load_n(&f->f_gen, __ATOMIC_RELAXED);
	if (g & 1)
		__atomic_store_n(&f->f_gen, g + 1, __ATOMIC_RELEASE);
}

/* Reserve the lowest free fd and install f there, in one critical section. */
int fd_alloc_install(struct uvfs_proc *p, struct file *f, unsigned flags)
{
	struct files_struct *files = p->files;
	bool light = files_light_enter(files);
	if (!light)
		spin_lock(&files->file_lock);
	file_publish(f);
	int fd = alloc_fd_locked(p, files, 0, flags);
	if (fd >= 0)
		smp_store_release(&files->fdt->fd[fd], f);
	if (light)
		files_light_exit(files);
	else
		spin_unlock(&files->file_lock);
	return fd;
}

void fd_install(struct uvfs_proc *p, int fd, struct file *f)
{
	struct files_struct *files = p->files;
	file_publish(f);
	files_lock(files);
	smp_store_release(&files->fdt->fd[fd], f);
	spin_unlock(&files->file_lock);
}

/*
 * Lockless fd lookup: raise the count unless it is zero, then check the slot
 * still holds this file (file memory is type-stable, see file_table.c).
 */
static inline struct file *__fget(struct uvfs_proc *p, int fd, unsigned exclude)
{
	struct files_struct *files = p->files;
	struct file *f;
	urcu_memb_read_lock();
	for (;;) {
		struct fdtable *fdt = rcu_dereference(files->fdt);
		if (unlikely((unsigned)fd >= fdt->max_fds)) {
			f = NULL;
			break;
		}
		struct file **slot = &fdt->fd[fd];
		f = smp_load_acquire(slot);
		if (!f)
			break;
		long c = __atomic_load_n(&f->f_count, __ATOMIC_RELAXED);
		if (unlikely(c <= 0) ||
		    !__atomic_compare_exchange_n(&f->f_count, &c, c + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		if (unlikely(f != READ_ONCE(*slot) || fdt != READ_ONCE(files->fdt))) {
			fput(f);
			continue;
		}
		break;
	}
	urcu_memb_read_unlock();
	if (f && unlikely(f->f_mode & exclude)) {
		fput(f);
		f = NULL;
	}
	return f;
}

/*
 * For RCU-mode path walks: the path of a dirfd without a reference.  The
 * caller is inside a read-side section, so the dentry and mount stay valid;
 * the file itself may be closed and its memory reused at any moment, so the
 * snapshot counts only if the slot, the count and the generation held still
 * around the reads.  -ECHILD sends the caller to REF mode.
 */
int fd_path_rcu(struct uvfs_proc *p, int fd, struct path *out, unsigned *fmode)
{
	struct files_struct *files = p->files;
	struct fdtable *fdt = rcu_dereference(files->fdt);
	if (unlikely((unsigned)fd >= fdt->max_fds))
		return -EBADF;
	struct file **slot = &fdt->fd[fd];
	struct file *f = smp_load_acquire(slot);
	if (unlikely(!f))
		return -EBADF;
	unsigned gen = smp_load_acquire(&f->f_gen);
	struct mount *m = READ_ONCE(f->f_path.mnt);
	struct dentry *d = READ_ONCE(f->f_path.dentry);
	unsigned mode = READ_ONCE(f->f_mode);
	smp_rmb();
	if (unlikely((gen & 1) || READ_ONCE(f->f_count) <= 0 || READ_ONCE(f->f_gen) != gen ||
		     READ_ONCE(*slot) != f || !d))
		return -ECHILD;
	out->mnt = m;
	out->dentry = d;
	*fmode = mode;
	return 0;
}

struct file *fget(struct uvfs_proc *p, int fd) { return __fget(p, fd, FMODE_PATH); }
struct file *fget_raw(struct uvfs_proc *p, int fd) { return __fget(p, fd, 0); }

/* Removes fd from the table; the caller drops the returned reference. */
struct file *file_close_fd(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	struct file *f = NULL;
	bool light = files_light_enter(files);
	if (!light)
		spin_lock(&files->file_lock);
	struct fdtable *fdt = files->fdt;
	if ((unsigned)fd < fdt->max_fds && (f = fdt->fd[fd]) != NULL) {
		smp_store_release(&fdt->fd[fd], NULL);
		__set_cloexec(fd, fdt, false);
		__put_unused_fd(files, fd);
	}
	if (light)
		files_light_exit(files);
	else
		spin_unlock(&files->file_lock);
	return f;
}

/* dup2/dup3/F_DUPFD into a given slot: the old file there is closed. */
int do_dup2(struct uvfs_proc *p, struct file *f, unsigned fd, unsigned flags)
{
	struct files_struct *files = p->files;
	if (fd >= p->nofile)
		return -EBADF;
	files_lock(files);
	int err = expand_files(files, fd);
	if (err) {
		spin_unlock(&files->file_lock);
		return err == -EMFILE ? -EBADF : err;
	}
	struct fdtable *fdt = files->fdt;
	struct file *tofree = fdt->fd[fd];
	if (!tofree && test_bit_(fd, fdt->open_fds)) {
		spin_unlock(&files->file_lock);
		return -EBUSY; /* reserved by an open in progress */
	}
	get_file(f);
	smp_store_release(&fdt->fd[fd], f);
	__set_open_fd(fd, fdt);
	__set_cloexec(fd, fdt, flags & O_CLOEXEC);
	spin_unlock(&files->file_lock);
	if (tofree)
		fput_close(tofree);
	return (int)fd;
}

int get_close_on_exec(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	files_lock(files);
	struct fdtable *fdt = files->fdt;
	int r = (unsigned)fd < fdt->max_fds && test_bit_(fd, fdt->close_on_exec);
	spin_unlock(&files->file_lock);
	return r;
}

void set_close_on_exec(struct uvfs_proc *p, int fd, bool on)
{
	struct files_struct *files = p->files;
	files_lock(files);
	struct fdtable *fdt = files->fdt;
	if ((unsigned)fd < fdt->max_fds && fdt->fd[fd])
		__set_cloexec(fd, fdt, on);
	spin_unlock(&files->file_lock);
}

/* fork: a copy of the table, each file with one more reference. */
struct files_struct *files_dup(struct files_struct *old, int *err)
{
	/* a copy made by a thread other than a light table's owner ends the
	 * owner's lock-free mode: the copy reads the table under its lock */
	if (READ_ONCE(old->owner) != (void *)&uvfs_current)
		files_mark_shared(old);
	struct files_struct *nf = files_alloc();
	if (!nf) {
		*err = -ENOMEM;
		return NULL;
	}
	spin_lock(&old->file_lock);
	struct fdtable *ofdt = old->fdt;
	unsigned n = ofdt->max_fds;
	if (n > NR_OPEN_DEFAULT) {
		struct fdtable *nfdt = fdt_alloc(n);
		if (!nfdt) {
			spin_unlock(&old->file_lock);
			free(nf);
			*err = -ENOMEM;
			return NULL;
		}
		nf->fdt = nfdt;
	}
	struct fdtable *nfdt = nf->fdt;
	copy_fd_bitmaps(nfdt, ofdt, n);
	for (unsigned i = 0; i < n; i++) {
		struct file *f = ofdt->fd[i];
		if (f) {
			get_file(f);
			nfdt->fd[i] = f;
		} else if (test_bit_(i, nfdt->open_fds)) {
			/* reserved by an open in progress in the parent: not ours */
			__clear_open_fd(i, nfdt);
			__set_cloexec(i, nfdt, false);
		}
	}
	nf->next_fd = old->next_fd;
	spin_unlock(&old->file_lock);
	return nf;
}

static void close_files(struct files_struct *files)
{
	struct fdtable *fdt = files->fdt;
	for (unsigned i = 0; i < fdt->max_fds; i++) {
		struct file *f = fdt->fd[i];
		if (f) {
			fdt->fd[i] = NULL;
			fput_close(f);
		}
	}
}

void files_put(struct files_struct *files)
{
	if (__atomic_sub_fetch(&files->count, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	close_files(files);
	if (files->fdt != &files->fdtab)
		fdt_free(files->fdt);
	/* lockless readers of a proc being destroyed are the caller's bug */
	free(files);
}

/* close_range(2): closes (or marks close-on-exec) every fd in [first, last]. */
int close_range_fds(struct uvfs_proc *p, unsigned first, unsigned last, unsigned flags)
{
	struct files_struct *files = p->files;
	if (flags & CLOSE_RANGE_CLOEXEC) {
		files_lock(files);
		struct fdtable *fdt = files->fdt;
		for (unsigned fd = first; fd <= last && fd < fdt->max_fds; fd++)
			if (fdt->fd[fd])
				__set_cloexec(fd, fdt, true);
		spin_unlock(&files->file_lock);
		return 0;
	}
	for (unsigned fd = first; fd <= last; fd++) {
		files_lock(files);
		struct fdtable *fdt = files->fdt;
		if (fd >= fdt->max_fds) {
			spin_unlock(&files->file_lock);
			break;
		}
		fd = find_next_bit_(fdt->open_fds, fdt->max_fds, fd);
		if (fd > last || fd >= fdt->max_fds) {
			spin_unlock(&files->file_lock);
			break;
		}
		struct file *f = fdt->fd[fd];
		if (f) {
			smp_store_release(&fdt->fd[fd], NULL);
			__set_cloexec(fd, fdt, false);
			__put_unused_fd(files, fd);
		}
		spin_unlock(&files->file_lock);
		if (f)
			fput_close(f);
		if (fd == ~0u)
			break;
	}
	return 0;
}
