/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread caches of objects that lockless readers may still see after
 * they are freed (dentries, inodes): a free that would be a call_rcu and a
 * free() each, and an allocation that would be a malloc, become a push and
 * a pop on the freeing thread's own lists.
 *
 * The rule is call_rcu's, not SLAB_TYPESAFE_BY_RCU's: memory is handed out
 * again only after a grace period that began after it was freed, so a
 * reader under rcu_read_lock never sees an object change identity under it
 * and needs no re-check beyond what it does today.  The grace period is
 * paid per batch: RCU_CACHE_BATCH frees of one thread share one call_rcu,
 * whose callback gives the batch back to that thread.
 *
 * Objects come from malloc and may be handed to free() after a grace period
 * instead (a teardown path that does not know the cache): the cache is only
 * a shortcut.  Under ThreadSanitizer the cache is off (every free is a
 * call_rcu of c->free_rcu, as before): TSan does not see liburcu's grace
 * periods, and a reuse would look like a race with the last reader, where
 * a free() in a callback is suppressed by name (tests/tsan.supp).  Under
 * AddressSanitizer cached objects are poisoned, so a use after free is
 * still reported while the object waits for its reuse.
 */
#ifndef UVFS_LIB_RCU_CACHE_H
#define UVFS_LIB_RCU_CACHE_H
#include <stddef.h>
#include <stdbool.h>
#include <urcu/urcu-memb.h>

/* frees of one thread that share a grace period */
#define RCU_CACHE_BATCH 32
/* objects a thread keeps for reuse; beyond that they go back to malloc */
#define RCU_CACHE_MAX 1024
/* ... and up to this many when its own churn needs them: a thread that
 * creates and removes at a high rate has rate x grace period objects in
 * flight (some 10 ms between liburcu's passes), all of which come back in
 * one pass; with only RCU_CACHE_MAX kept, the rest would go to free() on
 * the call_rcu thread while the owner callocs anew, both every pass.  A
 * thread's bound grows by one for each allocation it had to calloc while
 * batches of its own were in flight, up to this ceiling. */
#define RCU_CACHE_CEIL 65536

struct rcu_cache {
	const char *name;
	size_t size;
	/* The object's struct rcu_head: the only word the cache writes while
	 * readers may still see the object (as call_rcu writes it). */
	size_t rcu_off;
	/* Frees one object after a grace period (its call_rcu callback): for
	 * an object the cache cannot take, and for every object under TSan. */
	void (*free_rcu)(struct rcu_head *h);
	unsigned id;    /* index of this cache in a thread's table, < RCU_CACHE_TYPES */
};
#define RCU_CACHE_TYPES 4

/* An object of c->size bytes, all zero, or NULL. */
void *rcu_cache_zalloc(struct rcu_cache *c);
/* Frees obj (of c) once every read-side section under way has ended;
 * it may be handed out again by rcu_cache_zalloc after that. */
void rcu_cache_free(struct rcu_cache *c, void *obj);
/* The calling thread's cached objects of every cache: kept ones go back
 * to malloc now, waiting ones after their grace period.  Called at thread
 * exit (a key destructor); any later call builds a fresh cache. */
void rcu_cache_thread_exit(void);
/* For the fault harness, whose allocations must come in the same order on
 * every run: while set, every free is c->free_rcu's call_rcu and every
 * allocation a calloc (a reuse depends on when grace periods end). */
extern bool rcu_cache_disabled;
/* For tests: objects the calling thread holds in c, ready and waiting. */
void rcu_cache_stats(struct rcu_cache *c, long *ready, long *waiting);
#endif
