/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A read-write semaphore (Linux's struct rw_semaphore, include/linux/rwsem.h)
 * in two 32-bit words: the i_rwsem of every inode.  The uncontended
 * down_write/up_write and down_read/up_read are one atomic each, inline; a
 * waiter spins briefly while the holder runs, then sleeps on a futex.
 * All zero bits are an unlocked semaphore, so an object that is zeroed when
 * it is allocated needs no initialisation call (rcu_cache_zalloc's inodes).
 *
 * count:  bits 0-29  readers holding it, or RWSEM_WRITE_LOCKED (all 30 set)
 *         bit 30     readers sleep on count (RWSEM_READERS_WAITING)
 *         bit 31     writers sleep on writer_seq (RWSEM_WRITERS_WAITING)
 * writer_seq: bumped by every wake-up of a writer; writers sleep on it, so a
 *         wake-up between a writer's check and its sleep is never lost.
 *
 * Fairness, as Linux's rwsem hands the lock over rather than letting the
 * newest caller win: a reader that arrives while a writer waits queues
 * behind that writer (writers do not starve), and the release that finds
 * both kinds asleep alternates: the last reader out wakes a writer, a writer
 * out wakes the sleeping readers, who then enter even though writers still
 * wait (readers do not starve either).  rwsem.c has the slow paths and the
 * argument.
 *
 * Every fast path is an acquire or release atomic on count, which is what
 * ThreadSanitizer needs to see the happens-before edge of a lock.  Builds
 * with assertions (LIFETIME_CHECKS) check each release against the state it
 * found: an up_write of a semaphore not write-locked, or an up_read of one
 * held by no reader, stops the run there.
 */
#ifndef UVFS_LIB_RWSEM_H
#define UVFS_LIB_RWSEM_H
#include <stdint.h>
#include "compiler.h"
#include "debug.h"

struct rw_semaphore {
	uint32_t count;
	uint32_t writer_seq;
};

#define RWSEM_COUNT_MASK ((1u << 30) - 1)
#define RWSEM_WRITE_LOCKED RWSEM_COUNT_MASK
#define RWSEM_MAX_READERS (RWSEM_COUNT_MASK - 1)
#define RWSEM_READERS_WAITING (1u << 30)
#define RWSEM_WRITERS_WAITING (1u << 31)

#define RWSEM_INITIALIZER { 0, 0 }

static inline void init_rwsem(struct rw_semaphore *sem)
{
	sem->count = 0;
	sem->writer_seq = 0;
}

void down_read_slow(struct rw_semaphore *sem);
void down_write_slow(struct rw_semaphore *sem);
/* down_write_trylock after the bounded spin of a contended down_write
 * (rwsem.c), never sleeping: 1 when taken */
int down_write_trylock_spin(struct rw_semaphore *sem);
void rwsem_wake(struct rw_semaphore *sem, uint32_t count, bool readers_first);
void rwsem_bug(const struct rw_semaphore *sem, uint32_t count, const char *what) __attribute__((noreturn, cold));

/* A fresh reader may enter when nobody writes or waits and the count has
 * room: all three in one compare, since the waiting bits are the top ones
 * and a write lock fills the count. */
static inline bool rwsem_read_lockable(uint32_t c)
{
	return c < RWSEM_MAX_READERS;
}

static inline void down_read(struct rw_semaphore *sem)
{
	uint32_t c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
	if (likely(rwsem_read_lockable(c)) &&
	    likely(__atomic_compare_exchange_n(&sem->count, &c, c + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return;
	down_read_slow(sem);
}

/* 1 when taken, 0 when not, as Linux's */
static inline int down_read_trylock(struct rw_semaphore *sem)
{
	uint32_t c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
	while (rwsem_read_lockable(c))
		if (__atomic_compare_exchange_n(&sem->count, &c, c + 1, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

static inline void up_read(struct rw_semaphore *sem)
{
	uint32_t c = __atomic_sub_fetch(&sem->count, 1, __ATOMIC_RELEASE);
	if (LIFETIME_CHECKS && unlikely((c & RWSEM_COUNT_MASK) >= RWSEM_MAX_READERS))
		rwsem_bug(sem, c + 1, "up_read without a reader");
	/* the last reader out, with someone asleep */
	if (unlikely((c & RWSEM_COUNT_MASK) == 0 && c))
		rwsem_wake(sem, c, false);
}

static inline int down_write_trylock(struct rw_semaphore *sem)
{
	uint32_t c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
	while (!(c & RWSEM_COUNT_MASK))
		if (__atomic_compare_exchange_n(&sem->count, &c, c | RWSEM_WRITE_LOCKED, true, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 1;
	return 0;
}

static inline void down_write(struct rw_semaphore *sem)
{
	uint32_t c = 0;
	if (likely(__atomic_compare_exchange_n(&sem->count, &c, RWSEM_WRITE_LOCKED, false, __ATOMIC_ACQUIRE,
					       __ATOMIC_RELAXED)))
		return;
	down_write_slow(sem);
}

static inline void up_write(struct rw_semaphore *sem)
{
	uint32_t c = __atomic_sub_fetch(&sem->count, RWSEM_WRITE_LOCKED, __ATOMIC_RELEASE);
	if (LIFETIME_CHECKS && unlikely(c & RWSEM_COUNT_MASK))
		rwsem_bug(sem, c + RWSEM_WRITE_LOCKED, "up_write of a semaphore not write-locked");
	if (unlikely(c))
		rwsem_wake(sem, c, true);
}

/* Assertions of the lock a caller must hold (Linux's lockdep_assert_held):
 * the mode, not the holder; off with NDEBUG. */
static inline bool rwsem_is_write_locked(const struct rw_semaphore *sem)
{
	return (__atomic_load_n(&sem->count, __ATOMIC_RELAXED) & RWSEM_COUNT_MASK) == RWSEM_WRITE_LOCKED;
}

static inline bool rwsem_is_locked(const struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) & RWSEM_COUNT_MASK;
}

#define rwsem_assert_held_write(sem) \
	LIFETIME_CHECK(rwsem_is_write_locked(sem), "%s not held for writing", #sem)
#define rwsem_assert_held(sem) LIFETIME_CHECK(rwsem_is_locked(sem), "%s not held", #sem)
#endif
