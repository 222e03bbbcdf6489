// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wait.c - wait queues (Linux's kernel/sched/wait.c): sleeping threads and
 * poll entries, woken by the side that changes the state.  See wait.h for
 * how to use them.
 *
 * A sleeper's entry carries a futex word: WAIT_ARMED when queued,
 * WAIT_SLEEPING once the thread is (about to be) in the kernel, WAIT_WOKEN
 * after a wake-up.  The waker only makes the futex system call when the
 * sleeper really sleeps, so a wake-up that beats the sleep costs no syscall.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "wait.h"

void futex_wait_u32(uint32_t *addr, uint32_t val, const struct timespec *deadline)
{
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline */
	syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, val, deadline, NULL, FUTEX_BITSET_MATCH_ANY);
}

void futex_wake_u32(uint32_t *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

void umutex_lock_slow(struct umutex *m)
{
	/* a short spin: the holder is usually copying a few bytes */
	for (int i = 0; i < 64; i++) {
		cpu_relax();
		uint32_t z = 0;
		if (__atomic_load_n(&m->v, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&m->v, &z, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
	}
	/* then sleep, marking the lock contended so the holder wakes us */
	while (__atomic_exchange_n(&m->v, 2, __ATOMIC_ACQUIRE) != 0)
		futex_wait_u32(&m->v, 2, NULL);
}

void init_waitqueue_head(struct wait_queue_head *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	INIT_LIST_HEAD(&wq->head);
	wq->nr = 0;
}

void destroy_waitqueue_head(struct wait_queue_head *wq)
{
	pthread_mutex_destroy(&wq->lock);
}

static inline void __add(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	if (w->flags & WQ_FLAG_EXCLUSIVE)
		list_add_tail(&w->entry, &wq->head);
	else
		list_add(&w->entry, &wq->head);
	__atomic_store_n(&wq->nr, wq->nr + 1, __ATOMIC_RELAXED);
}

static inline void __del(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	list_del_init(&w->entry);
	__atomic_store_n(&wq->nr, wq->nr - 1, __ATOMIC_RELAXED);
}

void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	pthread_mutex_lock(&wq->lock);
	__add(wq, w);
	pthread_mutex_unlock(&wq->lock);
}

void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	pthread_mutex_lock(&wq->lock);
	if (!list_empty(&w->entry))
		__del(wq, w);
	pthread_mutex_unlock(&wq->lock);
}

void __wake_up(struct wait_queue_head *wq, unsigned key, int nr_exclusive)
{
	struct list_head *pos, *n;
	pthread_mutex_lock(&wq->lock);
	list_for_each_safe(pos, n, &wq->head) {
		struct wait_queue_entry *w = list_entry(pos, struct wait_queue_entry, entry);
		if (key && w->key && !(w->key & key))
			continue;
		unsigned flags = w->flags; /* w may be dequeued by its function */
		if (w->func(w, key) && (flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive)
			break;
	}
	pthread_mutex_unlock(&wq->lock);
}

/* A sleeper's wake function: dequeue (so the next exclusive wake-up goes to
 * the next sleeper) and wake the thread if it is in the futex.  Runs under
 * wq->lock, which finish_wait() takes, so w outlives this function. */
int autoremove_wake_function(struct wait_queue_entry *w, unsigned key)
{
	struct wait_queue_head *wq = w->private;
	__del(wq, w);
	if (__atomic_exchange_n(&w->state, WAIT_WOKEN, __ATOMIC_RELEASE) == WAIT_SLEEPING)
		futex_wake_u32(&w->state, 1);
	return 1;
}

static void __prepare(struct wait_queue_head *wq, struct wait_queue_entry *w, unsigned flags)
{
	pthread_mutex_lock(&wq->lock);
	w->private = wq;
	w->flags = flags;
	__atomic_store_n(&w->state, WAIT_ARMED, __ATOMIC_RELAXED);
	if (list_empty(&w->entry))
		__add(wq, w);
	pthread_mutex_unlock(&wq->lock);
	/* pairs with wq_has_sleeper(): queued before the caller reads the state */
	smp_mb();
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	__prepare(wq, w, 0);
}

void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	__prepare(wq, w, WQ_FLAG_EXCLUSIVE);
}

int wait_woken(struct wait_queue_entry *w, const struct timespec *deadline)
{
	uint32_t s = WAIT_ARMED;
	if (!__atomic_compare_exchange_n(&w->state, &s, WAIT_SLEEPING, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		return 0; /* woken before we slept */
	for (;;) {
		futex_wait_u32(&w->state, WAIT_SLEEPING, deadline);
		if (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == WAIT_WOKEN)
			return 0;
		if (deadline) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline->tv_sec ||
			    (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
				return -ETIMEDOUT;
		}
	}
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	/* Always under the lock: a waker may be inside w->func right now. */
	pthread_mutex_lock(&wq->lock);
	if (!list_empty(&w->entry))
		__del(wq, w);
	pthread_mutex_unlock(&wq->lock);
}
