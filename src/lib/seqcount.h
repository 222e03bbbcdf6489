/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sequence counts: writers (serialised by a lock of their own) make the count
 * odd while they change the protected data; lockless readers retry or fall
 * back when the count moved. */
#ifndef UVFS_LIB_SEQCOUNT_H
#define UVFS_LIB_SEQCOUNT_H
#include "compiler.h"

typedef struct { unsigned sequence; } seqcount_t;

static inline unsigned raw_read_seqcount(const seqcount_t *s)
{
	return __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
}
/* Waits out a writer in progress, then returns an even count. */
static inline unsigned read_seqcount_begin(const seqcount_t *s)
{
	unsigned seq;
	while (unlikely((seq = raw_read_seqcount(s)) & 1))
		__builtin_ia32_pause();
	return seq;
}
static inline bool read_seqcount_retry(const seqcount_t *s, unsigned start)
{
	smp_rmb();
	return unlikely(READ_ONCE(s->sequence) != start);
}
static inline void write_seqcount_begin(seqcount_t *s)
{
	WRITE_ONCE(s->sequence, s->sequence + 1);
	smp_wmb();
}
static inline void write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	WRITE_ONCE(s->sequence, s->sequence + 1);
}

/*
 * For data whose writers share no lock: the count is also the writers' lock,
 * taken by moving it from even to odd with a compare-and-swap.  Readers are
 * the same.  The section must be short and must not nest (a second lock by
 * the same thread spins for ever).  The compare-and-swap is sequentially
 * consistent (on x86 it costs what an acquire does): a reader that stores
 * to the data and then checks the count (inode_query_times) and a writer
 * that takes the lock and then loads that store see one another.
 */
static inline void write_seqcount_lock(seqcount_t *s)
{
	unsigned seq = __atomic_load_n(&s->sequence, __ATOMIC_RELAXED);
	for (;;) {
		if (!(seq & 1) &&
		    __atomic_compare_exchange_n(&s->sequence, &seq, seq + 1, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			break;
		if (seq & 1) {
			__builtin_ia32_pause();
			seq = __atomic_load_n(&s->sequence, __ATOMIC_RELAXED);
		}
	}
	smp_wmb();
}
static inline void write_seqcount_unlock(seqcount_t *s)
{
	__atomic_store_n(&s->sequence, __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}
#endif
