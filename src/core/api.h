/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * api.h - the one entry protocol of every public call, and the cred a call
 * runs with.  scripts/check-api-entry.py (a test of the suite) holds every
 * function of src/uvfs.map and include/uvfs.h to it:
 *
 *	UVFS_API int uvfs_foo(struct uvfs_proc *p, ...)
 *	{
 *		API_ENTER_PROC(p);	(API_ENTER() for a call with no proc)
 *		...
 *		API_RETURN(err);	(API_RETURN_VOID() in a void call)
 *	}
 *
 * Before the entry, only a guard that returns at once for a NULL object
 * (uvfs_destroy(NULL)); after it, every way out is an API_RETURN.
 *
 * The entry registers the thread as an RCU reader and claims its counter
 * slot on its first call (task_enter), so no walk and no fdget runs
 * unregistered; a proc's call then makes the proc's cred the thread's
 * current_cred(), which the call reads from start to end, whatever
 * uvfs_proc_setcred does meanwhile on another thread.  The exit runs the
 * thread's task_work (final releases of files, the change hook's reports)
 * with no lock held and every light fdget closed (fdput): the fd table's
 * owner handshake (fdtable.c) never waits on a call that has returned.
 *
 * The cred costs no atomic on the fast path: the thread keeps a reference
 * on the last cred it ran with (its pin) from call to call, so the entry is
 * one load and one compare while the proc's cred stays the same; only after
 * a change does it take a reference on the new one under RCU (cred.c).  A
 * nested call (a change hook calling uvfs from the task_work of an exit)
 * may move the pin: the outer call has finished with its cred by then, as
 * task_work runs last.
 */
#ifndef UVFS_CORE_API_H
#define UVFS_CORE_API_H

void cred_pin_slow(struct uvfs_proc *p);
void cred_unpin(void);
void cred_spare_refill(void);
void put_cred(const struct cred *c);

static __always_inline const struct cred *current_cred(void)
{
	return uvfs_current.cred;
}

/* A pin exists only on a registered thread (cred_unpin goes first when the
 * thread leaves), so the one compare stands for task_enter's test too. */
static __always_inline void api_enter_proc(struct uvfs_proc *p)
{
	if (unlikely(READ_ONCE(p->cred_rcu) != uvfs_current.cred))
		cred_pin_slow(p);
}

static __always_inline void api_exit(void)
{
	if (unlikely(READ_ONCE(uvfs_current.task_works) != NULL))
		task_work_run();
}

#define API_ENTER() task_enter()
#define API_ENTER_PROC(p) api_enter_proc(p)
/* x is evaluated before the exit's task_work runs */
#define API_RETURN(x)                           \
	do {                                    \
		__typeof__(x) api_ret_ = (x);   \
		api_exit();                     \
		return api_ret_;                \
	} while (0)
#define API_RETURN_VOID()       \
	do {                    \
		api_exit();     \
		return;         \
	} while (0)

/* The spellings this protocol replaced. */
#pragma GCC poison ENTER RETURN

/*
 * A file's f_cred: a reference on the opener's cred.  A file memory keeps
 * its reference in the thread's cache of free files (file_table.c), so an
 * open with the cred the last file here had takes nothing; otherwise the
 * reference comes from the thread's spare ones, and goes back to them when
 * the releasing thread's pin is that cred: no atomic either way.
 */
const struct cred *file_cred_swap(const struct cred *old);
static __always_inline const struct cred *file_cred_reuse(const struct cred *old)
{
	if (likely(old == uvfs_current.cred))
		return old;
	return file_cred_swap(old);
}

static __always_inline const struct cred *file_cred_get(void)
{
	if (unlikely(--uvfs_current.cred_spare < 0))
		cred_spare_refill();
	return uvfs_current.cred;
}

static __always_inline void file_cred_put(const struct cred *c)
{
	if (likely(c == uvfs_current.cred))
		uvfs_current.cred_spare++;
	else
		put_cred(c);
}

#endif
