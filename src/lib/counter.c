// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * counter.c - the slots of the sharded counters (counter.h): shards
 * 0..COUNTER_SHARED-1 are handed out one per thread, held while the thread
 * lives (task.c claims one at a thread's first call and releases it at its
 * exit); the rest share COUNTER_SHARED.
 */
#include "counter.h"

__thread unsigned uvfs_thread_slot = COUNTER_SHARED;

/* a bit per shard 0..COUNTER_SHARED-1, set while a thread holds it */
static unsigned long slots_held;

void counter_slot_claim(void)
{
	unsigned long held = __atomic_load_n(&slots_held, __ATOMIC_RELAXED);
	for (;;) {
		unsigned long free = ~held & ((1UL << COUNTER_SHARED) - 1);
		if (!free) {
			uvfs_thread_slot = COUNTER_SHARED;
			return;
		}
		unsigned s = (unsigned)__builtin_ctzl(free);
		if (__atomic_compare_exchange_n(&slots_held, &held, held | 1UL << s, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			uvfs_thread_slot = s; /* after the last holder's adds (its release) */
			return;
		}
	}
}

void counter_slot_release(void)
{
	unsigned s = uvfs_thread_slot;
	uvfs_thread_slot = COUNTER_SHARED; /* any later call adds atomically */
	if (s < COUNTER_SHARED)
		__atomic_fetch_and(&slots_held, ~(1UL << s), __ATOMIC_RELEASE);
}
