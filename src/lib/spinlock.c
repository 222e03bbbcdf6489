// SPDX-License-Identifier: LGPL-2.1-or-later
/* spinlock.c - the contended path of spin_lock (spinlock.h). */
#include "spinlock.h"

void spin_lock_slow(spinlock_t *l)
{
	for (unsigned n = 0;; n++) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			if (++n < 256)
				__builtin_ia32_pause();
			else {
				sched_yield();
				n = 0;
			}
		}
		if (!__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
			return;
	}
}
