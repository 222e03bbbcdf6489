// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rwsem.c - the contended paths of struct rw_semaphore (rwsem.h).
 *
 * Sleeping and waking, and why no wake-up is lost:
 *  - A reader that cannot enter sets READERS_WAITING in count and sleeps on
 *    count with the exact value it saw, waiting bit included.  Only
 *    rwsem_wake clears that bit, and it does so before it wakes: a reader
 *    between its compare-and-swap and its futex_wait finds count changed and
 *    does not sleep.
 *  - A writer that cannot enter sets WRITERS_WAITING, reads writer_seq, reads
 *    count again, and sleeps on writer_seq only if count still says it must.
 *    A waker clears the bit first and bumps writer_seq after, so a writer
 *    that read the old writer_seq either sees the bit gone or has its sleep
 *    refused by the kernel for the changed word.  Writers wake one at a
 *    time; one that has slept sets WRITERS_WAITING again when it takes the
 *    lock, since others may still sleep.
 *  - A waiting bit is cleared only by the release that leaves no holder
 *    (up_write, or the last up_read).  If someone took the lock between that
 *    release and rwsem_wake's compare-and-swap, the compare-and-swap fails
 *    and the new holder's own release does the waking.
 *
 * Who goes next (no kind starves the other):
 *  - the last reader out wakes one writer;
 *  - a writer out wakes every sleeping reader, and a reader woken from its
 *    sleep may enter although writers still wait (fresh readers may not):
 *    that batch of readers runs, and the last of them wakes a writer.
 *  A futex_wait that returns because count changed (not because a writer
 *  woke the readers) also counts as woken; that lets at most the readers
 *  caught in that window past a waiting writer, which is not starvation.
 *  Such a reader enters with READERS_WAITING still set, so the bit can
 *  outlive every sleeping reader: a writer's release that wakes readers and
 *  finds none asleep wakes a writer instead, or WRITERS_WAITING would stay
 *  with no holder to clear it (the sleeping writer never woken, every fresh
 *  reader asleep behind the bit: unit-rwsem's "stale readers' bit").
 *  Writers that arrive while the lock is free take it whether or not
 *  others sleep (as a mutex lets the running thread win); they spin only
 *  while nobody sleeps, so a steady stream of spinners cannot keep a
 *  sleeper out for long.
 */
#include "rwsem.h"
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Bounded spin while the holder runs (Linux's rwsem_optimistic_spin): these
 * sections last about a microsecond, less than a futex sleep and wake-up.
 * The spinner reads the count less and less often (exponential backoff,
 * from about 70 ns between reads to about 3 us, for about 14 us in all, in
 * cycles of the time-stamp counter at some 3 GHz): every read pulls the
 * line from the holder, whose next write (the release, or its next
 * acquire) then waits for it back.  With a read every pause instead (256
 * pauses, where one took 58 ns in this machine's VM), two workers creating
 * and unlinking in one directory ran at 0.42-0.46x one worker; with the
 * backoff, and the spin before parent_unborrow (inode_lock.h), 0.8-1.1x.
 */
#define SPIN_TICKS 40000
#define SPIN_DELAY_FIRST 200
#define SPIN_DELAY_MAX 8000

static inline uint64_t spin_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 3000000000u + (uint64_t)t.tv_nsec * 3;
#endif
}

/* The spin's state: when it ends, when it reads next, how long it waits. */
struct spin {
	uint64_t now, end, delay;
};

static inline struct spin spin_start(void)
{
	uint64_t now = spin_clock();
	return (struct spin){ now, now + SPIN_TICKS, SPIN_DELAY_FIRST };
}

/* Waits out the next delay; false once the spin's time is up. */
static inline bool spin_wait(struct spin *s)
{
	if (s->now >= s->end)
		return false;
	uint64_t until = s->now + s->delay;
	while ((s->now = spin_clock()) < until)
		barrier();
	if (s->delay < SPIN_DELAY_MAX)
		s->delay *= 2;
	return true;
}

static void futex_wait(uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static long futex_wake(uint32_t *word, int n)
{
	return syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline uint32_t count_load(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
}

static inline bool count_cas(struct rw_semaphore *sem, uint32_t *c, uint32_t new_, int mo)
{
	return __atomic_compare_exchange_n(&sem->count, c, new_, false, mo, __ATOMIC_RELAXED);
}

void rwsem_bug(const struct rw_semaphore *sem, uint32_t count, const char *what)
{
	fprintf(stderr, "uvfs: rwsem %p: %s (count %#x)\n", (const void *)sem, what, count);
	abort();
}

/* Until the semaphore is free of holders, or someone sleeps on it. */
static uint32_t spin_write(struct rw_semaphore *sem)
{
	uint32_t c = count_load(sem);
	struct spin s = spin_start();
	while ((c & RWSEM_COUNT_MASK) && !(c & (RWSEM_READERS_WAITING | RWSEM_WRITERS_WAITING)) && spin_wait(&s))
		c = count_load(sem);
	return c;
}

/* Until no writer holds it, or someone sleeps on it. */
static uint32_t spin_read(struct rw_semaphore *sem)
{
	uint32_t c = count_load(sem);
	struct spin s = spin_start();
	while ((c & RWSEM_COUNT_MASK) == RWSEM_WRITE_LOCKED &&
	       !(c & (RWSEM_READERS_WAITING | RWSEM_WRITERS_WAITING)) && spin_wait(&s))
		c = count_load(sem);
	return c;
}

int down_write_trylock_spin(struct rw_semaphore *sem)
{
	uint32_t c = spin_write(sem);
	while (!(c & RWSEM_COUNT_MASK))
		if (count_cas(sem, &c, c | RWSEM_WRITE_LOCKED, __ATOMIC_ACQUIRE))
			return 1;
	return 0;
}

void down_read_slow(struct rw_semaphore *sem)
{
	bool woken = false;
	uint32_t c = spin_read(sem);
	for (;;) {
		uint32_t n = c & RWSEM_COUNT_MASK;
		if (woken ? n < RWSEM_MAX_READERS : rwsem_read_lockable(c)) {
			if (count_cas(sem, &c, c + 1, __ATOMIC_ACQUIRE))
				return;
			continue;
		}
		if (n == RWSEM_MAX_READERS)
			rwsem_bug(sem, c, "too many readers");
		if (!(c & RWSEM_READERS_WAITING)) {
			if (!count_cas(sem, &c, c | RWSEM_READERS_WAITING, __ATOMIC_RELAXED))
				continue;
			c |= RWSEM_READERS_WAITING;
		}
		futex_wait(&sem->count, c);
		woken = true;
		c = spin_read(sem);
	}
}

void down_write_slow(struct rw_semaphore *sem)
{
	uint32_t others = 0; /* WRITERS_WAITING once this writer has slept */
	uint32_t c = spin_write(sem);
	for (;;) {
		if (!(c & RWSEM_COUNT_MASK)) {
			if (count_cas(sem, &c, c | RWSEM_WRITE_LOCKED | others, __ATOMIC_ACQUIRE))
				return;
			continue;
		}
		if (!(c & RWSEM_WRITERS_WAITING)) {
			if (!count_cas(sem, &c, c | RWSEM_WRITERS_WAITING, __ATOMIC_RELAXED))
				continue;
		}
		others = RWSEM_WRITERS_WAITING;
		uint32_t seq = __atomic_load_n(&sem->writer_seq, __ATOMIC_ACQUIRE);
		c = count_load(sem);
		if (!(c & RWSEM_COUNT_MASK) || !(c & RWSEM_WRITERS_WAITING))
			continue;
		futex_wait(&sem->writer_seq, seq);
		c = spin_write(sem);
	}
}

/* true if a sleeping writer was woken */
static bool wake_writer(struct rw_semaphore *sem)
{
	__atomic_fetch_add(&sem->writer_seq, 1, __ATOMIC_RELEASE);
	return futex_wake(&sem->writer_seq, 1) > 0;
}

/*
 * After a release that left no holder, with a waiting bit in c (the count
 * that release made); readers_first after a writer's release: the readers'
 * turn if any sleep.  A failed compare-and-swap that finds a holder leaves
 * the waking to that holder; one that finds a bit added tries again.
 */
void rwsem_wake(struct rw_semaphore *sem, uint32_t c, bool readers_first)
{
	const uint32_t rw = RWSEM_READERS_WAITING, ww = RWSEM_WRITERS_WAITING;
	for (;;) {
		if (c & RWSEM_COUNT_MASK)
			return; /* taken again: its holder wakes */
		if (c == ww) {
			if (count_cas(sem, &c, 0, __ATOMIC_RELAXED)) {
				wake_writer(sem);
				return;
			}
			continue;
		}
		if (c == (rw | ww)) {
			if (readers_first) {
				if (!count_cas(sem, &c, ww, __ATOMIC_RELAXED))
					continue;
				/* the last of these readers wakes a writer */
				if (futex_wake(&sem->count, __INT_MAX__) > 0)
					return;
				/* none slept: the readers' bit was left by readers
				 * that entered without sleeping; the writer's turn */
				c = ww;
				continue;
			}
			if (!count_cas(sem, &c, rw, __ATOMIC_RELAXED))
				continue;
			if (wake_writer(sem))
				return;
			c = rw; /* no writer was asleep yet: the readers too */
		}
		if (c == rw) {
			if (count_cas(sem, &c, 0, __ATOMIC_RELAXED)) {
				futex_wake(&sem->count, __INT_MAX__);
				return;
			}
			continue;
		}
		return; /* no bit left */
	}
}
