/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * task.h - a proc (its fs_struct) and the per-thread state.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_TASK_H
#define UVFS_CORE_TASK_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

/* ---- fs_struct + the proc ---- */
struct fs_struct {
	long users; /* atomic */
	pthread_mutex_t lock;
	/* bumped around every change of root or pwd, under lock: a lockless
	 * walk reads the two paths consistently with it (Linux's fs->seq),
	 * without moving vfs->rename_seq for every other proc's walks */
	seqcount_t seq;
	struct path root, pwd;
	mode_t umask;
};

struct uvfs_proc {
	struct uvfs *vfs;
	struct files_struct *files;
	struct fs_struct *fs;
	struct cred *cred_rcu; /* RCU: replaced whole by commit_creds; a call reads it once (api.h) */
	pthread_mutex_t cred_lock; /* serialises this proc's prepare_creds..commit_creds */
	unsigned long nofile; /* RLIMIT_NOFILE */
	pid_t pid; /* uvfs_getpid(): what F_GETLK reports as l_pid */
	struct list_head p_list;
};

/* ---- per-thread state (current) ---- */
struct uvfs_task {
	struct callback_head *task_works; /* pushed by fput, run before the API call returns */
	bool rcu_registered;
	/* the file of the light fdget this thread is in (no reference), and a
	 * light file that fd_unlight() gave a reference before a sleep */
	struct file *light_file;
	struct files_struct *light_files;
	struct file *unlit;
	/* The cred of this thread's calls (current_cred), pinned: a reference
	 * kept from call to call while the proc's cred stays the same, plus
	 * cred_spare more that files opened here take and give back without an
	 * atomic (api.h, cred.c). */
	struct cred *cred;
	long cred_spare;
	/* The RWF_NOWAIT, RWF_APPEND and RWF_NOAPPEND of the preadv2 or
	 * pwritev2 this thread is in, 0 in every other call: Linux's per-call
	 * kiocb flags, asked by a filesystem's write (iocb_append) and a
	 * pipe's read and write (iocb_nowait). */
	unsigned rwf;
};
extern __thread struct uvfs_task uvfs_current;

#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x8
#define RWF_APPEND 0x10
#endif
#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x20
#endif
/* Whether this write goes at the end of the file: O_APPEND, or the call's
 * RWF_APPEND or RWF_NOAPPEND (Linux's IOCB_APPEND). */
static __always_inline bool iocb_append(const struct file *f)
{
	unsigned rwf = uvfs_current.rwf;
	if (likely(!(rwf & (RWF_APPEND | RWF_NOAPPEND))))
		return READ_ONCE(f->f_flags) & O_APPEND;
	return rwf & RWF_APPEND;
}
/* Whether this pipe read or write must not wait: O_NONBLOCK, or the call's
 * RWF_NOWAIT (Linux's IOCB_NOWAIT). */
static __always_inline bool iocb_nowait(const struct file *f)
{
	return (READ_ONCE(f->f_flags) & O_NONBLOCK) || (uvfs_current.rwf & RWF_NOWAIT);
}

void task_enter_slow(void);
static __always_inline void task_enter(void)
{
	if (unlikely(!uvfs_current.rcu_registered))
		task_enter_slow();
}
void task_work_run(void);
/* Every API call ends through here: deferred releases run before return. */
static __always_inline long task_exit(long ret)
{
	if (unlikely(READ_ONCE(uvfs_current.task_works) != NULL))
		task_work_run();
	return ret;
}
/* Queue work on this thread, to run before its API call returns.  The
 * callback_head lives in the object that needs the work (Linux's
 * task_work_add), so queueing never allocates. */
void task_work_add(struct callback_head *work, void (*func)(struct callback_head *));

#endif
