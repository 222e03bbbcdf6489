/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A test-and-test-and-set spinlock for short critical sections that never
 * block (fd table updates): one atomic exchange to take, one store to drop.
 * A waiter spins with pause and yields the CPU after a while, since user
 * space can be preempted while holding it. */
#ifndef UVFS_LIB_SPINLOCK_H
#define UVFS_LIB_SPINLOCK_H
#include "compiler.h"
#include <sched.h>

typedef struct { int locked; } spinlock_t;

static inline void spin_lock_init(spinlock_t *l) { l->locked = 0; }

void spin_lock_slow(spinlock_t *l);

static inline void spin_lock(spinlock_t *l)
{
	if (likely(!__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)))
		return;
	spin_lock_slow(l);
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
#endif
