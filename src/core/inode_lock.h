/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The exclusive i_rwsem of the namespace changes (create, unlink, mkdir,
 * rmdir).  down_write spins briefly while the holder runs before it sleeps
 * (lib/rwsem.c, as Linux's rwsem_optimistic_spin): these sections last about
 * a microsecond, and two threads changing names in one directory would
 * otherwise hand the lock to each other through futex sleeps and wake-ups
 * that cost more than the section.  Before any wait, a borrowed parent
 * becomes references (it must not be borrowed across a sleep).
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
	if (likely(down_write_trylock(l)))
		return;
	parent_unborrow();
	down_write(l);
}
#endif
