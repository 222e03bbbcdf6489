/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Counters that every operation touches, sharded so that threads on
 * different cores do not bounce one cache line: each thread adds to the
 * shard of its slot, readers sum the shards. */
#ifndef UVFS_LIB_COUNTER_H
#define UVFS_LIB_COUNTER_H
#include "compiler.h"

#define COUNTER_SHARDS 16

struct counter_shard { long v; } ____cacheline_aligned;
struct pcounter { struct counter_shard s[COUNTER_SHARDS]; };

extern __thread unsigned uvfs_thread_slot; /* set once per thread */

static inline void pcounter_add(struct pcounter *c, long d)
{
	__atomic_fetch_add(&c->s[uvfs_thread_slot % COUNTER_SHARDS].v, d, __ATOMIC_RELAXED);
}
static inline long pcounter_sum(const struct pcounter *c)
{
	long t = 0;
	for (int i = 0; i < COUNTER_SHARDS; i++)
		t += __atomic_load_n(&c->s[i].v, __ATOMIC_RELAXED);
	return t;
}
#endif
