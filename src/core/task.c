// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * task.c - what the kernel keeps per task and uvfs keeps per host thread:
 * RCU reader registration (done on a thread's first call, undone when the
 * thread exits, so callers never register) and the task_work list.
 *
 * task_work mirrors Linux's: fput() of a last reference pushes the file's
 * callback_head here and the release runs when the API call returns, with no locks held and a
 * shallow stack.  Other threads never add to this list, but the push and the
 * pop are atomic exchanges as in the kernel, so the baseline builds pay what
 * Linux paid before seeds 000 and 001.
 */
#include "vfs.h"
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include "lib/rcu_cache.h"

__thread struct uvfs_task uvfs_current;

static pthread_key_t task_key;
static pthread_once_t task_key_once = PTHREAD_ONCE_INIT;
void file_cache_drain(void);

static void task_exit_thread(void *arg)
{
	(void)arg;
	if (uvfs_current.task_works)
		task_work_run();
	/* the thread's cache of free files would leak with the thread, and so
	 * would its pin on a cred */
	file_cache_drain();
	rcu_cache_thread_exit();
	cred_unpin();
	if (uvfs_current.rcu_registered) {
		urcu_memb_unregister_thread();
		uvfs_current.rcu_registered = false;
	}
	counter_slot_release();
}

static void task_key_init(void)
{
	pthread_key_create(&task_key, task_exit_thread);
}

void task_enter_slow(void)
{
	pthread_once(&task_key_once, task_key_init);
	urcu_memb_register_thread();
	uvfs_current.rcu_registered = true;
	counter_slot_claim();
	/* Any non-NULL value makes the destructor run at thread exit. */
	pthread_setspecific(task_key, &uvfs_current);
}

void task_work_add(struct callback_head *work, void (*func)(struct callback_head *))
{
	work->func = func;
	struct callback_head *head = __atomic_load_n(&uvfs_current.task_works, __ATOMIC_RELAXED);
	do {
		work->next = head;
	} while (!__atomic_compare_exchange_n(&uvfs_current.task_works, &head, work, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

void task_work_run(void)
{
	struct callback_head *work;
	while ((work = __atomic_exchange_n(&uvfs_current.task_works, NULL, __ATOMIC_ACQUIRE)) != NULL) {
		while (work) {
			/* func may free the object that holds work */
			struct callback_head *next = work->next;
			work->func(work);
			work = next;
		}
	}
}

/*
 * Asymmetric barriers, as liburcu's memb flavour and Linux's sys_membarrier:
 * where one side of a store-then-load handshake is hot (an RCU walk taking
 * its mount reference) and the other rare (the release of a detached
 * mount), the hot side needs only a compiler barrier if the rare side can
 * force a full barrier on every running thread of the process.  Until
 * membarrier is known to work, the hot side fences (membarrier_state 0 or
 * -1).
 */
int membarrier_state;

void membarrier_init(void)
{
	if (__atomic_load_n(&membarrier_state, __ATOMIC_ACQUIRE))
		return;
	int st = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1 : -1;
	__atomic_store_n(&membarrier_state, st, __ATOMIC_RELEASE);
}

void smp_mb_heavy(void)
{
	smp_mb();
	if (__atomic_load_n(&membarrier_state, __ATOMIC_ACQUIRE) > 0)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}
