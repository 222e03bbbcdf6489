/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Counters that every operation touches, sharded so that threads on
 * different cores do not bounce one cache line: each thread adds to the
 * shard of its slot, readers sum the shards.  Slots are handed out by
 * counter.c (claimed and released by task.c): a thread holds one of its own
 * while it lives. */
#ifndef UVFS_LIB_COUNTER_H
#define UVFS_LIB_COUNTER_H
#include "compiler.h"

#define COUNTER_SHARDS 16

struct counter_shard { long v; } ____cacheline_aligned;
struct pcounter { struct counter_shard s[COUNTER_SHARDS]; };

/* A thread's slot, set when it first calls in: one of 0..COUNTER_SHARED-1
 * held by that thread alone while it lives, or COUNTER_SHARED when more
 * threads than that are in (and for a thread that never registered). */
#define COUNTER_SHARED (COUNTER_SHARDS - 1)
extern __thread unsigned uvfs_thread_slot;
void counter_slot_claim(void);   /* sets the caller's uvfs_thread_slot */
void counter_slot_release(void); /* at thread exit */

/* An atomic add: for counters whose updates must also order what follows
 * them (a lock-prefixed add is a full barrier on x86; mntput relies on it). */
static inline void pcounter_add(struct pcounter *c, long d)
{
	__atomic_fetch_add(&c->s[uvfs_thread_slot % COUNTER_SHARDS].v, d, __ATOMIC_RELAXED);
}

/* A plain add to the caller's own shard, as Linux's this_cpu_add: no other
 * thread writes it, so a load and a store do (no lock prefix, no barrier);
 * a thread without a shard of its own adds atomically to the shared one.
 * Only for counters that are summed approximately, or after the adders are
 * known to be done (the open-file count).  The two kinds of add must not be
 * mixed on one counter. */
static inline void pcounter_add_local(struct pcounter *c, long d)
{
	unsigned s = uvfs_thread_slot;
	if (likely(s < COUNTER_SHARED)) {
		long *v = &c->s[s].v;
		__atomic_store_n(v, __atomic_load_n(v, __ATOMIC_RELAXED) + d, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&c->s[COUNTER_SHARED].v, d, __ATOMIC_RELAXED);
	}
}
static inline long pcounter_sum(const struct pcounter *c)
{
	long t = 0;
	for (int i = 0; i < COUNTER_SHARDS; i++)
		t += __atomic_load_n(&c->s[i].v, __ATOMIC_RELAXED);
	return t;
}

/*
 * A count that the hot paths both change and test against a bound (the
 * negative dentries a create and an unlink each move): read with one load
 * of a line written once per BCOUNTER_BATCH changes of a thread.  Each
 * thread adds to its own shard and moves the shard into the total when it
 * reaches +-BCOUNTER_BATCH (Linux's percpu_counter_add_batch), so the total
 * is off by less than COUNTER_SHARDS x BCOUNTER_BATCH; bcounter_sum is
 * exact once the adders are done.
 */
#define BCOUNTER_BATCH 32
struct bcounter {
	long total ____cacheline_aligned; /* atomic */
	struct pcounter local;
};

static inline void bcounter_add(struct bcounter *c, long d)
{
	unsigned s = uvfs_thread_slot;
	if (likely(s < COUNTER_SHARED)) {
		long *v = &c->local.s[s].v;
		long n = __atomic_load_n(v, __ATOMIC_RELAXED) + d;
		if (likely(n < BCOUNTER_BATCH && n > -BCOUNTER_BATCH)) {
			__atomic_store_n(v, n, __ATOMIC_RELAXED);
			return;
		}
		__atomic_store_n(v, 0, __ATOMIC_RELAXED);
		d = n;
	}
	__atomic_fetch_add(&c->total, d, __ATOMIC_RELAXED);
}

static inline long bcounter_read(const struct bcounter *c)
{
	return __atomic_load_n(&c->total, __ATOMIC_RELAXED);
}

static inline long bcounter_sum(const struct bcounter *c)
{
	return bcounter_read(c) + pcounter_sum(&c->local);
}
#endif
