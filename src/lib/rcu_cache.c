// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcu_cache.c - per-thread caches of RCU-freed objects (rcu_cache.h).
 *
 * A thread's cache of one type has three lists, all linked through the
 * objects' rcu_head (the one field no reader looks at, as for call_rcu):
 *   batch     freed since the last grace period was asked for: readers may
 *             still be on these, nothing but the link is written;
 *   returned  batches whose grace period ended, pushed by the call_rcu
 *             thread (a lock-free stack) for the owner to take in one swap;
 *   ready     the owner's, taken from returned: handed out by the next
 *             allocations.
 * A full batch goes to call_rcu with a small descriptor; the callback pushes
 * it back, or frees it when the owner keeps its bound already (limit:
 * RCU_CACHE_MAX, more for a thread whose churn needs it, rcu_cache.h) or
 * has exited.  The owner and every batch in flight hold a reference on the
 * thread's cache, so that a late callback finds it.
 */
#include "rcu_cache.h"
#include "compiler.h"
#include "list.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <urcu/urcu-memb.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define poison(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define poison(p, n) ((void)(p), (void)(n))
#define unpoison(p, n) ((void)(p), (void)(n))
#endif
#if defined(__SANITIZE_THREAD__)
#define REUSE 0
#else
#define REUSE 1
#endif

struct rcu_cache_batch {
	struct rcu_head rcu;
	struct rcu_cache_local *owner;
	void *first, *last;
	long n;
};

struct rcu_cache_local {
	struct rcu_cache *cache;
	void *ready;      /* owner only */
	long ready_n;     /* written by the owner, read by callbacks */
	void *batch, *batch_last;
	long batch_n;
	struct rcu_cache_batch *spare; /* the next batch's descriptor */
	void *returned;   /* atomic: the callbacks' pushes */
	long returned_n;  /* atomic, approximately the length of returned */
	long limit;       /* written by the owner, read by callbacks: objects kept */
	long refs;        /* atomic: the owner's, one per batch in flight */
	bool dead;        /* the owner exited: callbacks free */
	struct list_head all;
};

/* Every thread's caches, so that LeakSanitizer sees what they hold as
 * reachable; nothing walks it. */
static LIST_HEAD(all_locals);
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static __thread struct rcu_cache_local *locals[RCU_CACHE_TYPES];
bool rcu_cache_disabled;

static inline void **link_of(const struct rcu_cache *c, void *obj)
{
	return (void **)((char *)obj + c->rcu_off);
}

static void exit_destructor(void *arg)
{
	(void)arg;
	rcu_cache_thread_exit();
}

static void exit_key_init(void)
{
	pthread_key_create(&exit_key, exit_destructor);
}

static __cold struct rcu_cache_local *local_new(struct rcu_cache *c)
{
	struct rcu_cache_local *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cache = c;
	l->refs = 1;
	l->limit = RCU_CACHE_MAX;
	pthread_once(&exit_once, exit_key_init);
	pthread_setspecific(exit_key, (void *)1); /* any non-NULL value: run at exit */
	pthread_mutex_lock(&all_lock);
	list_add(&l->all, &all_locals);
	pthread_mutex_unlock(&all_lock);
	locals[c->id] = l;
	return l;
}

static void local_put(struct rcu_cache_local *l)
{
	if (__atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_lock(&all_lock);
	list_del_init(&l->all);
	pthread_mutex_unlock(&all_lock);
	free(l->spare);
	free(l);
}

static void free_list(const struct rcu_cache *c, void *obj)
{
	while (obj) {
		void *next = *link_of(c, obj);
		unpoison(obj, c->size);
		free(obj);
		obj = next;
	}
}

/* Past its grace period: no reader sees these objects any more. */
static void batch_done(struct rcu_head *h)
{
	struct rcu_cache_batch *b = container_of(h, struct rcu_cache_batch, rcu);
	struct rcu_cache_local *l = b->owner;
	const struct rcu_cache *c = l->cache;
	if (!REUSE || __atomic_load_n(&l->dead, __ATOMIC_SEQ_CST) ||
	    READ_ONCE(l->ready_n) + __atomic_load_n(&l->returned_n, __ATOMIC_RELAXED) + b->n > READ_ONCE(l->limit)) {
		free_list(c, b->first);
	} else {
#if defined(__SANITIZE_ADDRESS__)
		/* all but the link: a use of a freed object is still reported
		 * (elsewhere no walk: the objects are cold in this CPU's cache) */
		for (void *o = b->first; o; o = *link_of(c, o)) {
			poison(o, c->rcu_off);
			poison((char *)o + c->rcu_off + sizeof(void *), c->size - c->rcu_off - sizeof(void *));
		}
#endif
		void *old = __atomic_load_n(&l->returned, __ATOMIC_RELAXED);
		do
			*link_of(c, b->last) = old;
		while (!__atomic_compare_exchange_n(&l->returned, &old, b->first, true, __ATOMIC_SEQ_CST,
						    __ATOMIC_RELAXED));
		__atomic_fetch_add(&l->returned_n, b->n, __ATOMIC_RELAXED);
		/* the owner exited between the test and the push: it may have
		 * taken its last look at returned before our push (its store of
		 * dead and our push are each followed by the other's load) */
		if (__atomic_load_n(&l->dead, __ATOMIC_SEQ_CST))
			free_list(c, __atomic_exchange_n(&l->returned, NULL, __ATOMIC_SEQ_CST));
	}
	free(b);
	local_put(l);
}

static void batch_flush(struct rcu_cache_local *l)
{
	struct rcu_cache_batch *b = l->spare;
	if (!b && !(b = malloc(sizeof(*b)))) {
		/* no memory for a descriptor: one grace period each */
		const struct rcu_cache *c = l->cache;
		void *o = l->batch;
		while (o) {
			void *next = *link_of(c, o);
			urcu_memb_call_rcu((struct rcu_head *)link_of(c, o), c->free_rcu);
			o = next;
		}
		l->batch = l->batch_last = NULL;
		l->batch_n = 0;
		return;
	}
	l->spare = NULL;
	b->owner = l;
	b->first = l->batch;
	b->last = l->batch_last;
	b->n = l->batch_n;
	l->batch = l->batch_last = NULL;
	l->batch_n = 0;
	__atomic_fetch_add(&l->refs, 1, __ATOMIC_RELAXED);
	urcu_memb_call_rcu(&b->rcu, batch_done);
}

void *rcu_cache_zalloc(struct rcu_cache *c)
{
	struct rcu_cache_local *l = locals[c->id];
	if (REUSE && likely(l) && likely(!rcu_cache_disabled)) {
		void *o = l->ready;
		if (!o && __atomic_load_n(&l->returned, __ATOMIC_RELAXED)) {
			o = __atomic_exchange_n(&l->returned, NULL, __ATOMIC_ACQUIRE);
			WRITE_ONCE(l->ready_n, l->ready_n + __atomic_exchange_n(&l->returned_n, 0, __ATOMIC_RELAXED));
		}
		if (o) {
			unpoison(o, c->size);
			l->ready = *link_of(c, o);
			WRITE_ONCE(l->ready_n, l->ready_n - 1);
			return memset(o, 0, c->size);
		}
		/* a miss while batches of ours wait for their grace period:
		 * keep one more of them when they come back (rcu_cache.h) */
		if (__atomic_load_n(&l->refs, __ATOMIC_RELAXED) > 1 && l->limit < RCU_CACHE_CEIL)
			WRITE_ONCE(l->limit, l->limit + 1);
	}
	return calloc(1, c->size);
}

void rcu_cache_free(struct rcu_cache *c, void *obj)
{
	struct rcu_cache_local *l = locals[c->id];
	if (!REUSE || unlikely(rcu_cache_disabled) || (unlikely(!l) && !(l = local_new(c)))) {
		urcu_memb_call_rcu((struct rcu_head *)link_of(c, obj), c->free_rcu);
		return;
	}
	/* readers may still be on obj: its rcu_head is all we may write */
	*link_of(c, obj) = l->batch;
	if (!l->batch)
		l->batch_last = obj;
	l->batch = obj;
	if (unlikely(!l->spare))
		l->spare = malloc(sizeof(struct rcu_cache_batch));
	if (++l->batch_n >= RCU_CACHE_BATCH)
		batch_flush(l);
}

void rcu_cache_thread_exit(void)
{
	for (unsigned i = 0; i < RCU_CACHE_TYPES; i++) {
		struct rcu_cache_local *l = locals[i];
		if (!l)
			continue;
		locals[i] = NULL;
		__atomic_store_n(&l->dead, true, __ATOMIC_SEQ_CST);
		free_list(l->cache, __atomic_exchange_n(&l->returned, NULL, __ATOMIC_SEQ_CST));
		free_list(l->cache, l->ready);
		l->ready = NULL;
		if (l->batch)
			batch_flush(l);
		local_put(l);
	}
}

void rcu_cache_stats(struct rcu_cache *c, long *ready, long *waiting)
{
	struct rcu_cache_local *l = locals[c->id];
	*ready = *waiting = 0;
	if (!l)
		return;
	long n = 0;
	for (void *o = l->ready; o; o = *link_of(c, o))
		n++;
	*ready = n + __atomic_load_n(&l->returned_n, __ATOMIC_RELAXED);
	*waiting = l->batch_n;
}
