/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fault_alloc.h - allocation failure injection for the library's own
 * allocations.
 *
 * The fault build links a copy of libuvfs.a whose references to malloc,
 * calloc, realloc, free, aligned_alloc, posix_memalign, strdup and strndup
 * were renamed (objcopy --redefine-sym, see meson.build) to the fault_*
 * functions of fault_alloc.c.  So exactly the library's allocation sites are
 * counted, on whatever thread they run, and nothing else is: not the test's
 * own allocations, not liburcu's (its call_rcu thread allocates, and an
 * allocation failure there is fatal by design), not glibc's.
 *
 * Allocations are numbered only on the thread that armed the counter (the
 * scenario's), so that the Nth is the same allocation on every run; frees
 * and allocations on other threads (call_rcu callbacks) still count towards
 * the live total, which must be back at zero after uvfs_destroy.
 */
#ifndef FAULT_ALLOC_H
#define FAULT_ALLOC_H
#include <stdbool.h>

/* Numbers this thread's library allocations from 1 while armed; the one
 * numbered fail_at (0: none) fails.  Arming again continues the numbering. */
void fault_arm(long fail_at);
void fault_disarm(void);
/* Allocations numbered so far on the armed thread. */
long fault_count(void);
/* Whether the failing allocation has happened. */
bool fault_fired(void);
/* Library allocations minus frees, all threads. */
long fault_live(void);
/* The call stack of the failed allocation (return addresses), and its depth. */
int fault_stack(void **out, int max);

#endif
