/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The exclusive i_rwsem of the namespace changes (create, unlink, mkdir,
 * rmdir).  down_write spins briefly while the holder runs before it sleeps
 * (lib/rwsem.c, as Linux's rwsem_optimistic_spin): these sections last about
 * a microsecond, and two threads changing names in one directory would
 * otherwise hand the lock to each other through futex sleeps and wake-ups
 * that cost more than the section.  Before a sleep, a borrowed parent
 * becomes references (it must not be borrowed across one); the bounded spin
 * comes first, still borrowed, since it is no longer than the section it
 * waits for: taking the references when the lock was busy (atomics on the
 * directory's dentry and mount, which the other worker uses too) put two
 * workers in one directory at 0.66x one worker instead of 0.8-1.1x.
 */
#ifndef UVFS_CORE_INODE_LOCK_H
#define UVFS_CORE_INODE_LOCK_H
#include "../lib/compiler.h"
#include "../lib/rwsem.h"

/* namei.c: a borrowed parent (parent_single_borrow) takes its references
 * and leaves the fd table's single-thread section before a wait */
void parent_unborrow(void);

static inline void inode_lock_spin(struct rw_semaphore *l)
{
	if (likely(down_write_trylock(l)) || down_write_trylock_spin(l))
		return;
	parent_unborrow();
	down_write(l);
}
#endif
