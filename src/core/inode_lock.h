/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The exclusive i_rwsem of the namespace changes (create, unlink, mkdir,
 * rmdir), taken with a short optimistic spin first, as Linux's rwsem spins
 * while the owner runs (rwsem_optimistic_spin).  These sections last about
 * a microsecond; two threads changing names in one directory would
 * otherwise hand the lock to each other through futex sleeps and wake-ups
 * that cost more than the section, and two workers would do less than one.
 * The spin is bounded: a holder that was preempted is waited for by
 * sleeping, as before.
 */
#ifndef UVFS_CORE_INODE_LOCK_H
#define UVFS_CORE_INODE_LOCK_H
#include <pthread.h>
#include "../lib/compiler.h"

#define INODE_LOCK_SPINS 256

/* namei.c: a borrowed parent (parent_single_borrow) takes its references
 * and leaves the fd table's single-thread section before a wait */
void parent_unborrow(void);

static inline void inode_lock_spin(pthread_rwlock_t *l)
{
	if (likely(!pthread_rwlock_trywrlock(l)))
		return;
	parent_unborrow();
	for (unsigned i = 0; i < INODE_LOCK_SPINS; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if (!pthread_rwlock_trywrlock(l))
			return;
	}
	pthread_rwlock_wrlock(l);
}
#endif
