/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wait.h - wait queues and poll tables (Linux's wait_queue_head_t,
 * wait_queue_entry_t and poll_table).
 *
 * A wait queue is a list of entries, each with a wake function.  Two kinds of
 * entry go on it:
 *   - a sleeping thread (prepare_to_wait + wait_woken): woken through a futex
 *     word in the entry; no spinning, no polling, and no RCU read-side section
 *     may be held while it sleeps;
 *   - a poller (uvfs_poll, a uvfs_pollset): queued by poll_wait() from a
 *     file's ->poll method, woken with the events that happened.
 *
 * How to make a file type pollable and blocking (pipes do this; inotify can):
 *
 *   struct thing { pthread_mutex_t lock; struct wait_queue_head wq; ... };
 *   init_waitqueue_head(&t->wq);             at creation
 *
 *   ->poll (in struct file_operations):
 *     static unsigned thing_poll(struct file *f, struct poll_table *pt)
 *     {
 *         poll_wait(f, &t->wq, pt);          queue FIRST, then read the state
 *         return has_data(t) ? POLLIN | POLLRDNORM : 0;
 *     }
 *
 *   a blocking read:
 *     DEFINE_WAIT(w);
 *     lock(t);
 *     while (!has_data(t)) {
 *         if (f->f_flags & O_NONBLOCK) { ret = -EAGAIN; break; }
 *         prepare_to_wait(&t->wq, &w);      queued while the state is known
 *         unlock(t);
 *         wait_woken(&w, NULL);             sleeps (deadline: CLOCK_MONOTONIC)
 *         lock(t);
 *     }
 *     unlock(t);
 *     finish_wait(&t->wq, &w);              always, before w goes out of scope
 *
 *   the side that makes it ready (after changing the state):
 *     wake_up_poll(&t->wq, POLLIN | POLLRDNORM);
 *   wake_up_poll() costs one full barrier and one load when nobody waits.  It
 *   pairs with the barrier that prepare_to_wait() and poll_wait() execute
 *   after queueing, so that either the waiter sees the new state or the waker
 *   sees the waiter.  (A caller that checks waitqueue_active() under a lock
 *   that the waiters also take after queueing may skip the barrier: pipe.c.)
 *
 * Keys: wake-ups carry POLL* bits.  A poll entry is woken only when the key
 * intersects the events it asked for (0 wakes everyone); a sleeper queued
 * with prepare_to_wait() is woken by any key.  prepare_to_wait_exclusive()
 * queues a sleeper that wake_up_nr(.., 1) wakes alone (Linux's exclusive
 * waits, to avoid thundering herds); whoever is woken that way and leaves
 * the condition true for others must wake the next one.
 *
 * Lock order: object locks > wq->lock.  Wake functions run under wq->lock
 * and must not take object locks.
 *
 * struct umutex (below) is a cheap sleeping lock for such objects: the pipe
 * uses it as its object lock.
 */
#ifndef UVFS_CORE_WAIT_H
#define UVFS_CORE_WAIT_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "../lib/compiler.h"
#include "../lib/list.h"

struct file;
struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *w, unsigned key);

#define WQ_FLAG_EXCLUSIVE 0x1u

/* Linux's wait_queue_entry_t */
struct wait_queue_entry {
	struct list_head entry; /* on the head's list; empty when not queued */
	unsigned flags;
	unsigned key;           /* poll entries: the events wanted (0: any) */
	wait_queue_func_t func;
	void *private;
	uint32_t state;         /* sleepers: the futex word (WAIT_ARMED, ...) */
};

/* Linux's wait_queue_head_t */
struct wait_queue_head {
	pthread_mutex_t lock;
	struct list_head head;
	long nr; /* queued entries; read without the lock by waitqueue_active */
};

void init_waitqueue_head(struct wait_queue_head *wq);
void destroy_waitqueue_head(struct wait_queue_head *wq);

void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w);
void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w);

/* Someone is queued.  A plain load: the caller provides the ordering (a full
 * barrier after its state change, or a lock the waiters take after
 * queueing). */
static inline bool waitqueue_active(struct wait_queue_head *wq)
{
	return __atomic_load_n(&wq->nr, __ATOMIC_RELAXED) != 0;
}
static inline bool wq_has_sleeper(struct wait_queue_head *wq)
{
	smp_mb();
	return waitqueue_active(wq);
}

/* Wakes every non-exclusive entry whose key matches and at most nr_exclusive
 * exclusive ones (0: all).  Takes wq->lock. */
void __wake_up(struct wait_queue_head *wq, unsigned key, int nr_exclusive);
static inline void wake_up_poll(struct wait_queue_head *wq, unsigned key)
{
	if (wq_has_sleeper(wq))
		__wake_up(wq, key, 1);
}
static inline void wake_up_all(struct wait_queue_head *wq)
{
	if (wq_has_sleeper(wq))
		__wake_up(wq, 0, 0);
}

/* ---- sleeping threads ---- */
enum { WAIT_ARMED = 0, WAIT_WOKEN = 1, WAIT_SLEEPING = 2 };
int autoremove_wake_function(struct wait_queue_entry *w, unsigned key);
#define DEFINE_WAIT(name)                                                                               \
	struct wait_queue_entry name = { .entry = LIST_HEAD_INIT(name.entry),                            \
					 .func = autoremove_wake_function }
/* The same for an entry declared earlier: a hot path that rarely sleeps
 * initialises it only when it is about to. */
static inline void init_wait(struct wait_queue_entry *w)
{
	INIT_LIST_HEAD(&w->entry);
	w->flags = 0;
	w->key = 0;
	w->func = autoremove_wake_function;
}

/* Queue w (if a wake-up took it off) and arm it; then a full barrier. */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w);
/* Sleep until woken or, with a deadline (CLOCK_MONOTONIC, absolute), until
 * it passes.  Returns 0 when woken, -ETIMEDOUT.  Returns at once if a wake-up
 * came since prepare_to_wait. */
int wait_woken(struct wait_queue_entry *w, const struct timespec *deadline);
/* Dequeue w; waits out a waker that is still touching it. */
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);

/* ---- poll (Linux's poll_table and poll_wait) ---- */
struct poll_table;
typedef void (*poll_queue_proc)(struct file *f, struct wait_queue_head *wq, struct poll_table *pt);
struct poll_table {
	poll_queue_proc qproc; /* NULL: the caller only wants the current mask */
	unsigned key;          /* the events the caller is interested in */
};

/* Called by a ->poll method for each queue that signals a change of its
 * readiness, before it reads the state it reports. */
static inline void poll_wait(struct file *f, struct wait_queue_head *wq, struct poll_table *pt)
{
	if (pt && pt->qproc && wq)
		pt->qproc(f, wq, pt);
}

/* The mask of a file that has no ->poll method: always ready, as Linux's
 * DEFAULT_POLLMASK. */
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

/* Futex helpers (private futexes of this process). */
void futex_wait_u32(uint32_t *addr, uint32_t val, const struct timespec *deadline);
void futex_wake_u32(uint32_t *addr, int n);

/*
 * A sleeping lock on one futex word (0 free, 1 held, 2 held with waiters):
 * one compare-and-swap to take, one exchange to drop, a system call only
 * when someone waits.  For locks held across copies or sleeps (a pipe's
 * mutex), where a spinlock would burn the CPU of a preempted holder and a
 * pthread mutex costs twice the instructions.  A waiter spins briefly first.
 */
struct umutex {
	uint32_t v;
};
#define UMUTEX_INIT { 0 }
void umutex_lock_slow(struct umutex *m);
static inline void umutex_lock(struct umutex *m)
{
	uint32_t z = 0;
	if (likely(__atomic_compare_exchange_n(&m->v, &z, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return;
	umutex_lock_slow(m);
}
static inline void umutex_unlock(struct umutex *m)
{
	if (unlikely(__atomic_exchange_n(&m->v, 0, __ATOMIC_RELEASE) == 2))
		futex_wake_u32(&m->v, 1);
}

#endif /* UVFS_CORE_WAIT_H */
