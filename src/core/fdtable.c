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
 * Shared mode.  Once a second thread came, the fds of the first word of the
 * bitmaps (0..63, the ones nearly every program uses) are allocated,
 * installed and closed without the table lock: an fd is claimed with a
 * compare-and-swap on open_fds[0], so the lowest free one is taken exactly,
 * and released by emptying its slot before its bit is cleared, so that two
 * closes of one fd cannot both get the file.  A slot that holds
 * a file always has its bit set.  Every other change to the first words
 * (dup2, fcntl, close_range, a fork's copy) is atomic too, under the lock;
 * fds from 64 up change only under the lock.  A resize must not copy the
 * table while a lock-free op writes to it: as Linux's expand_fdtable does
 * for its lock-free fd_install, it raises resize_in_progress, waits for an
 * RCU grace period (every op that had not seen it is over) and copies under
 * the lock, where the ops that saw it wait.  Threads doing open/close on one
 * table then share the bitmap word and the slots' line, not a lock.
 *
 * A first-word fd of a shared table, its bit and its slot:
 *
 *	bit 0, NULL		free
 *	bit 1, FD_RESERVED	reserved by an open in progress
 *	bit 1, a file		open
 *	bit 1, NULL		a change under way on one thread, between its
 *				two steps
 *	bit 0, anything else	never
 *
 * Every change but fd_install takes two steps, with no wait between them:
 *   - allocation: CAS the lowest free bit, then store the file (or
 *     FD_RESERVED: get_unused_fd_flags marks its reservation, in single-
 *     thread mode too, since the table may be shared before fd_install);
 *   - fd_install: store the file over FD_RESERVED (one step);
 *   - put_unused_fd: store NULL over FD_RESERVED, then clear the bit;
 *   - close: CAS the slot from the file it read to NULL (of two closes one
 *     wins; FD_RESERVED is no file: EBADF), then clear the bit;
 *   - dup2, under the lock (so one at a time): a file: CAS it for the new
 *     one; FD_RESERVED: EBUSY, as Linux; NULL and bit 0: set the bit
 *     with a fetch-or (which shows whether an allocation took it first),
 *     then store.
 * Linux makes each of these atomic under file_lock.  Here a close or dup2
 * that meets "bit 1, NULL" waits until the other thread has made its second
 * step and decides again, so each comes wholly before or after the other:
 *   - dup2 onto an fd being closed: waits for the bit to clear, then takes
 *     the free fd (never EBUSY: that is only for a reservation);
 *   - close during a dup2's or an allocation's window: waits, then closes
 *     the new file (the close came after); close vs close: the loser finds
 *     NULL, waits for the bit to clear, EBADF;
 *   - an allocation taking the fd the moment a close clears the bit: a dup2
 *     then waits for its file and replaces it (the dup2 came after);
 *   - close_range is a close per fd; a fork's copy, under the lock, takes
 *     only slots holding a file (a change under way lands before or after).
 * Every reader of slots (fget, fdget, fd_path_rcu, a fork's copy, F_SETFD,
 * close_range) takes FD_RESERVED as no file (slot_has_file).  The lock-free
 * open and close gain no atomic: close's exchange became a CAS, and an
 * allocation stores the marker where it stored nothing.
 *
 * The lowest free fd is found a word at a time: full_fds_bits has a bit per
 * word of open_fds from the second on, set when that word is full, so a
 * search skips 64 busy fds per bit (the first word is read directly: lock-free
 * ops keep no summary bit for it).  In single-thread mode next_fd remembers
 * where the lowest free fd can start; shared mode does not use it.
 */
#include "vfs.h"
#include "locks.h"
#include "../lib/bitmap.h"
#include <assert.h>
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

/*
 * Grows the table so that fd fits.  Unlocked: the single-thread owner inside
 * its light section.  Locked: file_lock held, and the lock is dropped and
 * taken again while lock-free ops drain (the header comment); the caller
 * reads files->fdt again after it.  Never inside an RCU read-side section.
 */
static int expand_files_slow(struct files_struct *files, unsigned fd, bool locked)
{
	if (fd >= NR_OPEN_MAX)
		return -EMFILE;
	if (locked) {
		/* a grace period cannot end while this thread is inside a section */
		assert(!urcu_memb_read_ongoing());
		__atomic_add_fetch(&files->resize_in_progress, 1, __ATOMIC_SEQ_CST);
		spin_unlock(&files->file_lock);
		urcu_memb_synchronize_rcu();
		spin_lock(&files->file_lock);
	}
	int err = 0;
	struct fdtable *cur = files->fdt;
	if (fd >= cur->max_fds) { /* else another thread grew it meanwhile */
		unsigned nr = cur->max_fds;
		while (nr <= fd)
			nr *= 2;
		if (nr > NR_OPEN_MAX)
			nr = NR_OPEN_MAX;
		struct fdtable *nfdt = fdt_alloc(nr);
		if (nfdt) {
			/* each slot with acquire: the grace period above orders the
			 * lock-free installs before this copy, but ThreadSanitizer
			 * does not see it, and a file's fields read later through
			 * the new table (a fork's copy closing it) would show as a
			 * race with its open (unit-bitmap's race test, once) */
			for (unsigned i = 0; i < cur->max_fds; i++)
				nfdt->fd[i] = smp_load_acquire(&cur->fd[i]);
			copy_fd_bitmaps(nfdt, cur, cur->max_fds);
			smp_store_release(&files->fdt, nfdt);
			if (cur != &files->fdtab)
				urcu_memb_call_rcu(&cur->rcu, fdt_free_rcu);
		} else {
			err = -ENOMEM;
		}
	}
	if (locked)
		__atomic_sub_fetch(&files->resize_in_progress, 1, __ATOMIC_SEQ_CST);
	return err;
}

static inline int expand_files(struct files_struct *files, unsigned fd, bool locked)
{
	if (likely(fd < files->fdt->max_fds))
		return 0;
	return expand_files_slow(files, fd, locked);
}

/* Plain bit changes: the single-thread owner, or fds from 64 up under the
 * lock.  The first word has no full bit. */
static inline void __set_open_fd(unsigned fd, struct fdtable *fdt)
{
	set_bit_(fd, fdt->open_fds);
	unsigned w = fd / BITS_PER_LONG;
	if (w && !~fdt->open_fds[w])
		set_bit_(w, fdt->full_fds_bits);
}

static inline void __clear_open_fd(unsigned fd, struct fdtable *fdt)
{
	clear_bit_(fd, fdt->open_fds);
	if (fd >= BITS_PER_LONG)
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
	if (start < BITS_PER_LONG) {
		unsigned long free = ~READ_ONCE(fdt->open_fds[0]) & (~0UL << start);
		if (free)
			return (unsigned)__builtin_ctzl(free);
		start = BITS_PER_LONG;
	}
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


/* ---- single-thread mode: plain changes, next_fd ---- */

/* Reserve the lowest free fd >= start below the proc's limit. */
static __always_inline int alloc_fd_light(struct uvfs_proc *p, struct files_struct *files, unsigned start,
					  unsigned flags)
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
	int err = expand_files(files, fd, false);
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

static inline void __put_unused_fd(struct files_struct *files, unsigned fd)
{
	__set_cloexec(fd, files->fdt, false);
	__clear_open_fd(fd, files->fdt);
	if (fd < files->next_fd)
		files->next_fd = fd;
}

/* ---- shared mode: the first word lock-free, atomic everywhere ---- */

static inline unsigned long word0_bit(unsigned fd) { return 1UL << fd; }

/* Claims the lowest free fd >= start of the first word (below the limit),
 * sets its close-on-exec bit as asked and stores f (a file or FD_RESERVED)
 * in its slot; -1 if none is free.  Inside an RCU read-side section or under
 * the lock. */
static int word0_claim(struct uvfs_proc *p, struct fdtable *fdt, unsigned start, unsigned flags, struct file *f)
{
	unsigned long allowed = ~0UL << start;
	if (p->nofile < BITS_PER_LONG)
		allowed &= word0_bit((unsigned)p->nofile) - 1;
	unsigned long *word = &fdt->open_fds[0];
	/* the line is about to be written: fetch it for writing at once, not
	 * shared first and then again to own it (a second transfer when
	 * another thread wrote it last) */
	prefetchw(word);
	unsigned long w = __atomic_load_n(word, __ATOMIC_RELAXED);
	unsigned fd;
	do {
		unsigned long free = ~w & allowed;
		if (!free)
			return -1;
		fd = (unsigned)__builtin_ctzl(free);
	} while (!__atomic_compare_exchange_n(word, &w, w | word0_bit(fd), false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	/* written either way: an fcntl(FD_CLOEXEC) that raced the fd's last
	 * close may have left the bit set */
	unsigned long *ce = &fdt->close_on_exec[0];
	if (unlikely(flags & O_CLOEXEC))
		__atomic_fetch_or(ce, word0_bit(fd), __ATOMIC_SEQ_CST);
	else if (unlikely(__atomic_load_n(ce, __ATOMIC_RELAXED) & word0_bit(fd)))
		__atomic_fetch_and(ce, ~word0_bit(fd), __ATOMIC_SEQ_CST);
	smp_store_release(fdt_slot(fdt, fd), f);
	return (int)fd;
}

/* Clears the bits of a first-word fd whose slot was emptied. */
static void word0_unreserve(struct fdtable *fdt, unsigned fd)
{
	if (__atomic_load_n(&fdt->close_on_exec[0], __ATOMIC_RELAXED) & word0_bit(fd))
		__atomic_fetch_and(&fdt->close_on_exec[0], ~word0_bit(fd), __ATOMIC_SEQ_CST);
	__atomic_fetch_and(&fdt->open_fds[0], ~word0_bit(fd), __ATOMIC_SEQ_CST);
}

/* Gives back a reserved first-word fd: the marker goes first, so that no
 * thread ever sees it on a free fd. */
static void word0_put_unused(struct fdtable *fdt, unsigned fd)
{
	smp_store_release(fdt_slot(fdt, fd), NULL);
	word0_unreserve(fdt, fd);
}

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	barrier();
#endif
}

/* A first-word slot is empty while its bit is set: another thread is between
 * the two steps of a change (the header comment), none of which waits for
 * anything.  Waits until it has made the second; the caller decides again. */
static void __attribute__((noinline)) word0_wait(struct fdtable *fdt, struct file **slot, unsigned fd)
{
	for (unsigned n = 0; !__atomic_load_n(slot, __ATOMIC_ACQUIRE) &&
			     (__atomic_load_n(&fdt->open_fds[0], __ATOMIC_ACQUIRE) & word0_bit(fd));
	     n++) {
		/* the other thread may have lost its CPU in there */
		if (n < 100)
			spin_pause();
		else
			sched_yield();
	}
}

/* word0_close when the slot held no file or changed under it: decides again
 * until the close can come wholly before or after whatever other thread is
 * changing the fd. */
static struct file *__attribute__((noinline)) word0_close_slow(struct fdtable *fdt, unsigned fd)
{
	struct file **slot = fdt_slot(fdt, fd);
	struct file *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
	for (;;) {
		if (slot_has_file(f)) {
			if (__atomic_compare_exchange_n(slot, &f, NULL, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				break;
			continue;
		}
		if (f == FD_RESERVED || !(__atomic_load_n(&fdt->open_fds[0], __ATOMIC_ACQUIRE) & word0_bit(fd)))
			return NULL;
		/* a change under way: this close comes after it */
		word0_wait(fdt, slot, fd);
		f = __atomic_load_n(slot, __ATOMIC_RELAXED);
	}
	RACE_POINT("close:slot_cleared");
	word0_unreserve(fdt, fd);
	return f;
}

/* Takes the file out of a first-word slot and frees the fd: the slot is
 * emptied first (a compare-and-swap from the file found there, so that of two
 * racing closes one gets the file and a reservation is never taken), then
 * the bit is cleared. */
static inline struct file *word0_close(struct fdtable *fdt, unsigned fd)
{
	struct file **slot = fdt_slot(fdt, fd);
	struct file *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (unlikely(!slot_has_file(f)) ||
	    unlikely(!__atomic_compare_exchange_n(slot, &f, NULL, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)))
		return word0_close_slow(fdt, fd);
	/* the slot is empty and the bit still set: unit-fdrace runs a dup2
	 * onto the fd here */
	RACE_POINT("close:slot_cleared");
	word0_unreserve(fdt, fd);
	return f;
}

/* An op on the first word without the lock: the table read under RCU, unless
 * a resize is under way (then the caller takes the lock). */
static inline struct fdtable *word0_begin(struct files_struct *files)
{
	urcu_memb_read_lock();
	if (unlikely(__atomic_load_n(&files->resize_in_progress, __ATOMIC_SEQ_CST))) {
		urcu_memb_read_unlock();
		return NULL;
	}
	return rcu_dereference(files->fdt);
}

static inline void word0_end(void) { urcu_memb_read_unlock(); }

/* Reserve the lowest free fd >= start and store f (a file, or FD_RESERVED for
 * a reservation) in its slot. */
static int alloc_fd_shared(struct uvfs_proc *p, struct files_struct *files, unsigned start, unsigned flags,
			   struct file *f)
{
	int fd = -1;
	if (start < BITS_PER_LONG) {
		struct fdtable *fdt = word0_begin(files);
		if (fdt) {
			fd = word0_claim(p, fdt, start, flags, f);
			word0_end();
			if (fd >= 0)
				return fd;
		}
	}
	files_lock(files);
	for (;;) {
		struct fdtable *fdt = files->fdt;
		if (start < BITS_PER_LONG && (fd = word0_claim(p, fdt, start, flags, f)) >= 0)
			break;
		unsigned nfd = find_next_fd(fdt, start > BITS_PER_LONG ? start : BITS_PER_LONG);
		if (nfd >= p->nofile) {
			fd = -EMFILE;
			break;
		}
		if (nfd >= fdt->max_fds) {
			/* the lock is dropped in there: search again after */
			int err = expand_files_slow(files, nfd, true);
			if (err) {
				fd = err;
				break;
			}
			continue;
		}
		__set_open_fd(nfd, fdt);
		__set_cloexec(nfd, fdt, flags & O_CLOEXEC);
		smp_store_release(fdt_slot(fdt, nfd), f);
		fd = (int)nfd;
		break;
	}
	spin_unlock(&files->file_lock);
	return fd;
}

/* ---- the calls ---- */

/* A new file becomes visible: its generation turns even (see fd_path_rcu). */
static inline void file_publish(struct file *f)
{
	unsigned g = __atomic_load_n(&f->f_gen, __ATOMIC_RELAXED);
	if (g & 1)
		__atomic_store_n(&f->f_gen, g + 1, __ATOMIC_RELEASE);
}

static __attribute__((noinline)) int alloc_fd_from_slow(struct uvfs_proc *p, unsigned start, unsigned flags)
{
	struct files_struct *files = p->files;
	if (files_light_enter(files)) {
		int fd = alloc_fd_light(p, files, start, flags);
		/* marked here too: the table may be shared before fd_install */
		if (fd >= 0)
			WRITE_ONCE(*fdt_slot(files->fdt, fd), FD_RESERVED);
		files_light_exit(files);
		return fd;
	}
	return alloc_fd_shared(p, files, start, flags, FD_RESERVED);
}

/* The owner's lock-free section entered without files_light_enter's
 * claim of a table nobody owns yet: the fast paths below leave that, and
 * every other case, to their slow path, so that they save no register. */
static __always_inline bool files_light_enter_owner(struct files_struct *files)
{
	if (READ_ONCE(files->owner) != (void *)&uvfs_current || READ_ONCE(files->shared))
		return false;
	WRITE_ONCE(files->owner_active, files->owner_active + 1);
	barrier(); /* as files_light_enter */
	if (likely(!READ_ONCE(files->shared)))
		return true;
	files_light_exit(files);
	return false;
}

/* The common allocation in a few plain stores: the owner alone on its
 * table, next_fd free and below the table's size and the limit, no
 * close-on-exec (alloc_fd_light's answer without its search); f (a file
 * or FD_RESERVED) goes in its slot.  -1 for anything else, which the
 * caller's slow path does; the fast paths that use it save no register. */
static __always_inline int alloc_fd_next_owner(struct uvfs_proc *p, unsigned start, unsigned flags,
						struct file *f, bool release)
{
	struct files_struct *files = p->files;
	if (likely(!(flags & O_CLOEXEC)) && likely(files_light_enter_owner(files))) {
		unsigned fd = files->next_fd;
		struct fdtable *fdt = files->fdt;
		if (likely(start <= fd && fd < fdt->max_fds && fd < p->nofile && !test_bit_(fd, fdt->open_fds))) {
			files->next_fd = fd + 1;
			__set_open_fd(fd, fdt);
			if (release)
				smp_store_release(fdt_slot(fdt, fd), f);
			else
				WRITE_ONCE(*fdt_slot(fdt, fd), f);
			files_light_exit(files);
			return (int)fd;
		}
		files_light_exit(files);
	}
	return -1;
}

int alloc_fd_from(struct uvfs_proc *p, unsigned start, unsigned flags)
{
	int fd = alloc_fd_next_owner(p, start, flags, FD_RESERVED, false);
	return likely(fd >= 0) ? fd : alloc_fd_from_slow(p, start, flags);
}

void put_unused_fd(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	if (files_light_enter(files)) {
		WRITE_ONCE(*fdt_slot(files->fdt, fd), NULL);
		__put_unused_fd(files, fd);
		files_light_exit(files);
		return;
	}
	if ((unsigned)fd < BITS_PER_LONG) {
		struct fdtable *fdt = word0_begin(files);
		if (fdt) {
			word0_put_unused(fdt, fd);
			word0_end();
			return;
		}
	}
	files_lock(files);
	if ((unsigned)fd < BITS_PER_LONG) {
		word0_put_unused(files->fdt, fd);
	} else {
		WRITE_ONCE(*fdt_slot(files->fdt, fd), NULL);
		__put_unused_fd(files, fd);
	}
	spin_unlock(&files->file_lock);
}

/*
 * Is every fd below the proc's limit taken?  (EMFILE before an open's
 * walk.)  A lockless peek: it writes nothing, so opens that fail (seed 000's
 * case) in threads sharing a table do not bounce its cache lines; a race
 * with another thread's close only moves the answer to the allocation,
 * which decides.  A table smaller than the limit can still grow: not full,
 * and the bitmap is not even read.
 */
bool fd_table_full(struct uvfs_proc *p)
{
	struct files_struct *files = p->files;
	urcu_memb_read_lock();
	struct fdtable *fdt = rcu_dereference(files->fdt);
	bool full = fdt->max_fds < p->nofile ? false : find_next_fd(fdt, 0) >= p->nofile;
	urcu_memb_read_unlock();
	return full;
}

static __attribute__((noinline)) int fd_alloc_install_slow(struct uvfs_proc *p, struct file *f, unsigned flags)
{
	struct files_struct *files = p->files;
	if (files_light_enter(files)) {
		int fd = alloc_fd_light(p, files, 0, flags);
		if (fd >= 0)
			smp_store_release(fdt_slot(files->fdt, fd), f);
		files_light_exit(files);
		return fd;
	}
	return alloc_fd_shared(p, files, 0, flags, f);
}

/* Reserve the lowest free fd and install f there, in one step. */
int fd_alloc_install(struct uvfs_proc *p, struct file *f, unsigned flags)
{
	file_publish(f);
	int fd = alloc_fd_next_owner(p, 0, flags, f, true);
	return likely(fd >= 0) ? fd : fd_alloc_install_slow(p, f, flags);
}

static __attribute__((noinline)) void fd_install_slow(struct uvfs_proc *p, int fd, struct file *f)
{
	struct files_struct *files = p->files;
	if (files_light_enter(files)) {
		smp_store_release(fdt_slot(files->fdt, fd), f);
		files_light_exit(files);
		return;
	}
	if ((unsigned)fd < BITS_PER_LONG) {
		struct fdtable *fdt = word0_begin(files);
		if (fdt) {
			smp_store_release(fdt_slot(fdt, fd), f);
			word0_end();
			return;
		}
	}
	files_lock(files);
	smp_store_release(fdt_slot(files->fdt, fd), f);
	spin_unlock(&files->file_lock);
}

void fd_install(struct uvfs_proc *p, int fd, struct file *f)
{
	struct files_struct *files = p->files;
	file_publish(f);
	if (likely(files_light_enter_owner(files))) {
		smp_store_release(fdt_slot(files->fdt, fd), f);
		files_light_exit(files);
		return;
	}
	fd_install_slow(p, fd, f);
}

/*
 * Lockless fd lookup: raise the count unless it is zero, then check the slot
 * still holds this file (file memory is type-stable, see file_table.c).
 */
static __always_inline struct file *__fget(struct uvfs_proc *p, int fd, unsigned exclude)
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
		struct file **slot = fdt_slot(fdt, fd);
		f = smp_load_acquire(slot);
		if (unlikely(!slot_has_file(f))) {
			f = NULL;
			break;
		}
		long c = __atomic_load_n(&f->f_count, __ATOMIC_RELAXED);
		if (unlikely(c <= 0) ||
		    !__atomic_compare_exchange_n(&f->f_count, &c, c + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		if (unlikely(f != smp_load_acquire(slot) || fdt != READ_ONCE(files->fdt))) {
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
	struct file **slot = fdt_slot(fdt, fd);
	struct file *f = smp_load_acquire(slot);
	if (unlikely(!slot_has_file(f)))
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

/* fdget of a shared table (or a file that is not light): a reference. */
struct fd fdget_slow(struct uvfs_proc *p, int fd, unsigned exclude)
{
	struct file *f = __fget(p, fd, exclude);
	return (struct fd){ f, f ? FDPUT_FPUT : 0 };
}

struct file *fget(struct uvfs_proc *p, int fd) { return __fget(p, fd, FMODE_PATH); }
struct file *fget_raw(struct uvfs_proc *p, int fd) { return __fget(p, fd, 0); }

/* Removes fd from the table; the caller drops the returned reference. */
/* close in the owner's lock-free section, which it leaves */
static __always_inline struct file *close_fd_light(struct files_struct *files, int fd)
{
	struct fdtable *fdt = files->fdt;
	struct file *f = NULL;
	if (likely((unsigned)fd < fdt->max_fds) && likely(slot_has_file(f = *fdt_slot(fdt, fd)))) {
		smp_store_release(fdt_slot(fdt, fd), NULL);
		__put_unused_fd(files, fd);
	} else {
		f = NULL; /* a reservation is not closed */
	}
	files_light_exit(files);
	return f;
}

static __attribute__((noinline)) struct file *file_close_fd_slow(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	struct file *f = NULL;
	if (files_light_enter(files))
		return close_fd_light(files, fd);
	if ((unsigned)fd < BITS_PER_LONG) {
		struct fdtable *fdt = word0_begin(files);
		if (fdt) {
			f = word0_close(fdt, fd);
			word0_end();
			return f;
		}
	}
	files_lock(files);
	struct fdtable *fdt = files->fdt;
	if ((unsigned)fd < BITS_PER_LONG) {
		f = word0_close(fdt, fd);
	} else if ((unsigned)fd < fdt->max_fds && slot_has_file(f = *fdt_slot(fdt, fd))) {
		smp_store_release(fdt_slot(fdt, fd), NULL);
		__put_unused_fd(files, fd);
	} else {
		f = NULL;
	}
	spin_unlock(&files->file_lock);
	return f;
}

/* close's common case, the owner alone on its table, in a function that
 * saves no register (as alloc_fd_from) */
struct file *file_close_fd(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	if (likely(files_light_enter_owner(files)))
		return close_fd_light(files, fd);
	return file_close_fd_slow(p, fd);
}

/*
 * dup2/dup3 into a given slot: the old file there is closed.  A first-word
 * slot may change under the lock (lock-free ops), so it is taken over with a
 * compare-and-swap: a file there is replaced only if it is still there; an
 * empty slot is claimed through its bit.  A reserved fd (FD_RESERVED) is
 * EBUSY, as Linux; an empty slot whose bit is set is a close, an allocation
 * or a put_unused_fd between its two steps on another thread (the header
 * comment): wait for it and decide again, so that dup2 is atomic with them
 * as Linux's is under file_lock.
 */
int do_dup2(struct uvfs_proc *p, struct file *f, unsigned fd, unsigned flags)
{
	struct files_struct *files = p->files;
	if (fd >= p->nofile)
		return -EBADF;
	files_lock(files);
	int err = expand_files(files, fd, true);
	if (err) {
		spin_unlock(&files->file_lock);
		return err == -EMFILE ? -EBADF : err;
	}
	struct fdtable *fdt = files->fdt;
	struct file *tofree;
	get_file(f);
	if (fd < BITS_PER_LONG) {
		struct file **slot = fdt_slot(fdt, fd);
		for (;;) {
			tofree = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
			if (tofree == FD_RESERVED) {
				spin_unlock(&files->file_lock);
				fput(f);
				return -EBUSY; /* reserved by an open in progress */
			}
			if (tofree) {
				if (__atomic_compare_exchange_n(slot, &tofree, f, false, __ATOMIC_SEQ_CST,
								__ATOMIC_RELAXED))
					break;
				continue;
			}
			if (!(__atomic_fetch_or(&fdt->open_fds[0], word0_bit(fd), __ATOMIC_SEQ_CST) & word0_bit(fd))) {
				smp_store_release(slot, f);
				break;
			}
			RACE_POINT("dup2:closing");
			word0_wait(fdt, slot, fd);
		}
		if (flags & O_CLOEXEC)
			__atomic_fetch_or(&fdt->close_on_exec[0], word0_bit(fd), __ATOMIC_SEQ_CST);
		else if (__atomic_load_n(&fdt->close_on_exec[0], __ATOMIC_RELAXED) & word0_bit(fd))
			__atomic_fetch_and(&fdt->close_on_exec[0], ~word0_bit(fd), __ATOMIC_SEQ_CST);
	} else {
		tofree = *fdt_slot(fdt, fd);
		if (tofree == FD_RESERVED) {
			spin_unlock(&files->file_lock);
			fput(f);
			return -EBUSY; /* reserved by an open in progress */
		}
		smp_store_release(fdt_slot(fdt, fd), f);
		__set_open_fd(fd, fdt);
		__set_cloexec(fd, fdt, flags & O_CLOEXEC);
	}
	spin_unlock(&files->file_lock);
	if (tofree)
		filp_close(tofree, files);
	return (int)fd;
}

int get_close_on_exec(struct uvfs_proc *p, int fd)
{
	struct files_struct *files = p->files;
	urcu_memb_read_lock();
	struct fdtable *fdt = rcu_dereference(files->fdt);
	int r = (unsigned)fd < fdt->max_fds && (READ_ONCE(fdt->close_on_exec[fd / BITS_PER_LONG]) >>
						  (fd % BITS_PER_LONG) & 1);
	urcu_memb_read_unlock();
	return r;
}

/* Marks an fd close-on-exec (or not); lock-free allocations set the bit of
 * the fds they take, so one left by a race with the fd's close is harmless. */
static void set_cloexec_locked(struct fdtable *fdt, unsigned fd, bool on)
{
	if (fd >= BITS_PER_LONG)
		__set_cloexec(fd, fdt, on);
	else if (on)
		__atomic_fetch_or(&fdt->close_on_exec[0], word0_bit(fd), __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&fdt->close_on_exec[0], ~word0_bit(fd), __ATOMIC_SEQ_CST);
}

void set_close_on_exec(struct uvfs_proc *p, int fd, bool on)
{
	struct files_struct *files = p->files;
	files_lock(files);
	struct fdtable *fdt = files->fdt;
	if ((unsigned)fd < fdt->max_fds && slot_has_file(READ_ONCE(*fdt_slot(fdt, fd))))
		set_cloexec_locked(fdt, fd, on);
	spin_unlock(&files->file_lock);
}

/* A reference to the file in a slot that lock-free closes may empty; NULL
 * if it holds none.  Inside an RCU read-side section (file memory is
 * type-stable). */
static struct file *slot_get_file(struct file **slot)
{
	for (;;) {
		struct file *f = smp_load_acquire(slot);
		if (!slot_has_file(f))
			return NULL;
		long c = __atomic_load_n(&f->f_count, __ATOMIC_RELAXED);
		if (unlikely(c <= 0) ||
		    !__atomic_compare_exchange_n(&f->f_count, &c, c + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		/* acquire, as __fget's: file memory is reused, so the reference
		 * may be on a new file whose open the slot has published since;
		 * the copy reads its fields after this load */
		if (likely(f == smp_load_acquire(slot)))
			return f;
		fput(f);
	}
}

/* fork: a copy of the table, each file with one more reference.  Only fds
 * with a file are copied: one reserved by an open in progress in the
 * parent is not the child's. */
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
	/* the first word may change under the lock (lock-free ops): read once */
	unsigned long ce0 = __atomic_load_n(&ofdt->close_on_exec[0], __ATOMIC_RELAXED);
	urcu_memb_read_lock();
	for (unsigned i = 0; i < n; i++) {
		struct file *f = slot_get_file(fdt_slot(ofdt, i));
		if (f) {
			*fdt_slot(nfdt, i) = f;
			__set_open_fd(i, nfdt);
			if (i < BITS_PER_LONG ? (ce0 >> i) & 1 : test_bit_(i, ofdt->close_on_exec))
				set_bit_(i, nfdt->close_on_exec);
		}
	}
	urcu_memb_read_unlock();
	spin_unlock(&old->file_lock);
	nf->next_fd = (unsigned)find_next_fd(nfdt, 0);
	return nf;
}

static void close_files(struct files_struct *files)
{
	struct fdtable *fdt = files->fdt;
	for (unsigned i = 0; i < fdt->max_fds; i++) {
		struct file *f = fdt->fd[i]; /* every slot, in any order */
		if (slot_has_file(f)) {
			fdt->fd[i] = NULL;
			filp_close(f, files);
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
			if (slot_has_file(READ_ONCE(*fdt_slot(fdt, fd))))
				set_cloexec_locked(fdt, fd, true);
		spin_unlock(&files->file_lock);
		return 0;
	}
	for (unsigned fd = first; fd <= last; fd++) {
		/* the next open fd, read without the lock: file_close_fd decides */
		urcu_memb_read_lock();
		struct fdtable *fdt = rcu_dereference(files->fdt);
		unsigned max = fdt->max_fds;
		if (fd < max)
			fd = find_next_bit_(fdt->open_fds, max, fd);
		urcu_memb_read_unlock();
		if (fd >= max || fd > last)
			break;
		struct file *f = file_close_fd(p, (int)fd);
		if (f)
			filp_close(f, files);
		if (fd == ~0u)
			break;
	}
	return 0;
}
