// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * locks.c - advisory file locks: flock(2), POSIX record locks and OFD locks
 * (Linux's fs/locks.c semantics).
 *
 * An inode that is ever locked gets a lock context (i_flctx), installed by
 * the first locker with a compare-and-swap and freed with the inode.  It
 * holds two lists under its flc_lock:
 *   - flc_flock: whole-file locks owned by an open file description;
 *   - flc_posix: byte-range locks.  A POSIX lock is owned by an fd table
 *     (Linux's fl_owner = files_struct: the threads of a proc, and procs
 *     cloned with UVFS_CLONE_FILES, share it); an OFD lock by its open file.
 *     One owner's locks are contiguous in the list, sorted by start, never
 *     overlapping, and adjacent ranges of one type are merged.  F_GETLK
 *     reports the first conflicting lock in list order, so the order is
 *     Linux's: a new owner's locks go to the tail.
 *
 * Waiting (F_SETLKW, F_OFD_SETLKW, flock without LOCK_NB): the request,
 * on the waiter's stack, is queued on the lock it conflicts with, or on an
 * earlier waiter of that lock that it conflicts with, so conflicting waiters
 * are served in the order they came (Linux's tree of blocked requests).
 * Releasing or changing a lock wakes its direct waiters, first come first;
 * each retries, and one granted hands the waiters queued behind it to its new
 * lock.  The waiter sleeps on a futex word of its request, holding no RCU
 * read-side section, no fd-table light section (fcntl and flock take file
 * references) and no lock; it cannot be interrupted (uvfs has no signals).
 *
 * Deadlock detection (F_SETLKW only, as Linux's posix_locks_deadlock): a
 * waiting POSIX request is also on the global blocked_posix list.  Before a
 * request sleeps, the owner of the lock it would wait for is looked up there,
 * its request followed to the lock at the root of its queue, and so on: if
 * the chain comes back to the caller, EDEADLK.  The chain is followed at most
 * ten steps, as on Linux.
 *
 * Locks: ctx->flc_lock > blocked_lock.  blocked_lock (global: deadlock chains
 * cross inodes and instances) covers every queue link: fl_blocker,
 * fl_blocked_requests, fl_blocked_member and blocked_posix.
 */
#include "vfs.h"
#include "locks.h"

#include <linux/futex.h>
#include <sys/file.h>
#include <sys/syscall.h>

#define FL_POSIX  0x1u
#define FL_FLOCK  0x2u
#define FL_SLEEP  0x80u
#define FL_OFDLCK 0x400u

#define OFFSET_MAX LLONG_MAX
#define FILE_LOCK_DEFERRED 1
#define MAX_DEADLK_ITERATIONS 10

struct file_lock {
	struct list_head fl_list; /* in flc_flock or flc_posix */
	void *fl_owner;           /* files_struct (POSIX), struct file (OFD, flock) */
	struct file *fl_file;     /* the file it was set through */
	unsigned fl_flags;
	int fl_type;              /* F_RDLCK, F_WRLCK, F_UNLCK */
	pid_t fl_pid;             /* the setter's uvfs_getpid() */
	loff_t fl_start, fl_end;  /* inclusive; fl_end OFFSET_MAX: to EOF and beyond */
	/* under blocked_lock */
	struct file_lock *fl_blocker;         /* what this request waits on */
	struct list_head fl_blocked_requests; /* requests waiting on this one */
	struct list_head fl_blocked_member;   /* in the blocker's fl_blocked_requests */
	struct list_head fl_link;             /* in blocked_posix while waiting */
	uint32_t fl_wait; /* futex: 1 while queued */
};

struct file_lock_context {
	pthread_mutex_t flc_lock;
	struct list_head flc_flock;
	struct list_head flc_posix;
};

static pthread_mutex_t blocked_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(blocked_posix);
static unsigned long nr_blocked; /* queued requests of every kind, for tests */

static void locks_init_lock(struct file_lock *fl)
{
	memset(fl, 0, sizeof(*fl));
	INIT_LIST_HEAD(&fl->fl_list);
	INIT_LIST_HEAD(&fl->fl_blocked_requests);
	INIT_LIST_HEAD(&fl->fl_blocked_member);
	INIT_LIST_HEAD(&fl->fl_link);
}

static struct file_lock *locks_alloc_lock(void)
{
	struct file_lock *fl = malloc(sizeof(*fl));
	if (fl)
		locks_init_lock(fl);
	return fl;
}

/* The lock's identity and range; its queue links stay its own. */
static void locks_copy_lock(struct file_lock *to, const struct file_lock *from)
{
	to->fl_owner = from->fl_owner;
	to->fl_file = from->fl_file;
	to->fl_flags = from->fl_flags & ~FL_SLEEP;
	to->fl_type = from->fl_type;
	to->fl_pid = from->fl_pid;
	to->fl_start = from->fl_start;
	to->fl_end = from->fl_end;
}

static struct file_lock_context *locks_inode_context(struct inode *inode)
{
	return __atomic_load_n(&inode->i_flctx, __ATOMIC_ACQUIRE);
}

static struct file_lock_context *locks_get_lock_context(struct inode *inode)
{
	struct file_lock_context *ctx = locks_inode_context(inode);
	if (likely(ctx))
		return ctx;
	struct file_lock_context *n = malloc(sizeof(*n));
	if (!n)
		return NULL;
	pthread_mutex_init(&n->flc_lock, NULL);
	INIT_LIST_HEAD(&n->flc_flock);
	INIT_LIST_HEAD(&n->flc_posix);
	if (__atomic_compare_exchange_n(&inode->i_flctx, &ctx, n, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return n;
	pthread_mutex_destroy(&n->flc_lock);
	free(n);
	return ctx; /* another locker's, installed meanwhile */
}

void locks_free_lock_context(struct inode *inode)
{
	struct file_lock_context *ctx = inode->i_flctx;
	if (!ctx)
		return;
	/* every file of the inode is gone, and each took its locks with it */
	struct list_head *lists[] = { &ctx->flc_flock, &ctx->flc_posix };
	for (unsigned i = 0; i < 2; i++) {
		LIFETIME_CHECK(list_empty(lists[i]), "inode %lu freed with file locks held",
			       (unsigned long)inode->i_ino);
		struct list_head *pos, *n;
		list_for_each_safe(pos, n, lists[i])
			free(list_entry(pos, struct file_lock, fl_list));
	}
	pthread_mutex_destroy(&ctx->flc_lock);
	free(ctx);
	inode->i_flctx = NULL;
}

/* ---- conflicts ---- */

static bool locks_overlap(const struct file_lock *a, const struct file_lock *b)
{
	return a->fl_start <= b->fl_end && b->fl_start <= a->fl_end;
}

static bool locks_types_conflict(const struct file_lock *a, const struct file_lock *b)
{
	return a->fl_type == F_WRLCK || b->fl_type == F_WRLCK;
}

static bool posix_locks_conflict(const struct file_lock *caller, const struct file_lock *sys)
{
	if (caller->fl_owner == sys->fl_owner)
		return false;
	return locks_overlap(caller, sys) && locks_types_conflict(caller, sys);
}

/* F_OFD_GETLK with F_UNLCK asks for the caller's own locks (Linux 6.9+). */
static bool posix_test_locks_conflict(const struct file_lock *caller, const struct file_lock *sys)
{
	if (caller->fl_type == F_UNLCK)
		return caller->fl_owner == sys->fl_owner && locks_overlap(caller, sys);
	return posix_locks_conflict(caller, sys);
}

static bool flock_locks_conflict(const struct file_lock *caller, const struct file_lock *sys)
{
	if (caller->fl_file == sys->fl_file)
		return false;
	return locks_types_conflict(caller, sys);
}

/* ---- queues of waiting requests (under blocked_lock) ---- */

static void futex_wake_one(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void __locks_delete_block(struct file_lock *waiter)
{
	if (!list_empty(&waiter->fl_blocked_member))
		nr_blocked--;
	list_del_init(&waiter->fl_link);
	list_del_init(&waiter->fl_blocked_member);
	waiter->fl_blocker = NULL;
}

/* The waiter returns only after taking blocked_lock (locks_delete_block),
 * so its request outlives the wake-up below. */
static void __locks_wake_up_blocks(struct file_lock *blocker)
{
	while (!list_empty(&blocker->fl_blocked_requests)) {
		struct file_lock *w =
			list_entry(blocker->fl_blocked_requests.next, struct file_lock, fl_blocked_member);
		__locks_delete_block(w);
		__atomic_store_n(&w->fl_wait, 0, __ATOMIC_RELEASE);
		futex_wake_one(&w->fl_wait);
	}
}

static void locks_wake_up_blocks(struct file_lock *blocker)
{
	pthread_mutex_lock(&blocked_lock);
	__locks_wake_up_blocks(blocker);
	pthread_mutex_unlock(&blocked_lock);
}

typedef bool (*conflict_fn)(const struct file_lock *, const struct file_lock *);

/* Queue waiter behind blocker, or behind the first of blocker's waiters
 * that it conflicts with (and so on down), so that it is not woken before
 * a request that came earlier and wants the same bytes. */
static void __locks_insert_block(struct file_lock *blocker, struct file_lock *waiter, conflict_fn conflict)
{
	struct list_head *pos;
again:
	list_for_each(pos, &blocker->fl_blocked_requests) {
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_blocked_member);
		if (conflict(fl, waiter)) {
			blocker = fl;
			goto again;
		}
	}
	waiter->fl_blocker = blocker;
	nr_blocked++;
	__atomic_store_n(&waiter->fl_wait, 1, __ATOMIC_RELAXED);
	list_add_tail(&waiter->fl_blocked_member, &blocker->fl_blocked_requests);
	if ((blocker->fl_flags & (FL_POSIX | FL_OFDLCK)) == FL_POSIX)
		list_add_tail(&waiter->fl_link, &blocked_posix);
}

/* Hand the requests waiting on a granted request to the lock made from it. */
static void locks_move_blocks(struct file_lock *to, struct file_lock *from)
{
	pthread_mutex_lock(&blocked_lock);
	while (!list_empty(&from->fl_blocked_requests)) {
		struct file_lock *w =
			list_entry(from->fl_blocked_requests.next, struct file_lock, fl_blocked_member);
		list_del_init(&w->fl_blocked_member);
		list_add_tail(&w->fl_blocked_member, &to->fl_blocked_requests);
		w->fl_blocker = to;
	}
	pthread_mutex_unlock(&blocked_lock);
}

/* The end of a lock call: the request leaves any queue, and requests
 * queued on it try again. */
static void locks_delete_block(struct file_lock *waiter)
{
	pthread_mutex_lock(&blocked_lock);
	__locks_wake_up_blocks(waiter);
	if (waiter->fl_blocker)
		__locks_delete_block(waiter);
	pthread_mutex_unlock(&blocked_lock);
}

static void locks_wait(struct file_lock *waiter)
{
	while (__atomic_load_n(&waiter->fl_wait, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &waiter->fl_wait, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
}

/* The lock at the root of the queue where block_fl's owner waits, if it
 * does. */
static struct file_lock *what_owner_is_waiting_for(struct file_lock *block_fl)
{
	struct list_head *pos;
	list_for_each(pos, &blocked_posix) {
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_link);
		if (fl->fl_owner == block_fl->fl_owner) {
			while (fl->fl_blocker)
				fl = fl->fl_blocker;
			return fl;
		}
	}
	return NULL;
}

static bool posix_locks_deadlock(struct file_lock *caller, struct file_lock *block_fl)
{
	int i = 0;
	/* an OFD lock's owner is a file, which does not wait as a task does */
	if (caller->fl_flags & FL_OFDLCK)
		return false;
	while ((block_fl = what_owner_is_waiting_for(block_fl))) {
		if (i++ > MAX_DEADLK_ITERATIONS)
			return false;
		if (caller->fl_owner == block_fl->fl_owner)
			return true;
	}
	return false;
}

/* Unlinked from its list under flc_lock: its waiters try again. */
static void locks_delete_lock(struct file_lock *fl)
{
	list_del_init(&fl->fl_list);
	locks_wake_up_blocks(fl);
	free(fl);
}

/* ---- flock ---- */

static int flock_lock_inode(struct inode *inode, struct file_lock *request)
{
	struct file_lock_context *ctx;
	struct file_lock *new_fl = NULL;
	if (request->fl_type == F_UNLCK) {
		ctx = locks_inode_context(inode);
		if (!ctx)
			return 0;
	} else {
		ctx = locks_get_lock_context(inode);
		if (!ctx)
			return -ENOMEM;
		new_fl = locks_alloc_lock();
		if (!new_fl)
			return -ENOMEM;
	}
	int err = 0;
	struct list_head *pos;
	pthread_mutex_lock(&ctx->flc_lock);
	/* A conversion drops the old lock before it looks for conflicts, as
	 * Linux does: a conversion that fails or waits has lost it. */
	list_for_each(pos, &ctx->flc_flock) {
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_list);
		if (fl->fl_file != request->fl_file)
			continue;
		if (fl->fl_type == request->fl_type)
			goto out;
		locks_delete_lock(fl);
		break;
	}
	if (request->fl_type == F_UNLCK)
		goto out;
	list_for_each(pos, &ctx->flc_flock) {
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_list);
		if (!flock_locks_conflict(request, fl))
			continue;
		err = -EWOULDBLOCK;
		if (!(request->fl_flags & FL_SLEEP))
			goto out;
		err = FILE_LOCK_DEFERRED;
		pthread_mutex_lock(&blocked_lock);
		__locks_insert_block(fl, request, flock_locks_conflict);
		pthread_mutex_unlock(&blocked_lock);
		goto out;
	}
	locks_copy_lock(new_fl, request);
	locks_move_blocks(new_fl, request);
	list_add_tail(&new_fl->fl_list, &ctx->flc_flock);
	new_fl = NULL;
out:
	pthread_mutex_unlock(&ctx->flc_lock);
	free(new_fl);
	return err;
}

/* Applies fl with lock_fn, sleeping while it is queued (FILE_LOCK_DEFERRED)
 * behind a blocker, until it is granted or refused. */
static int lock_inode_wait(struct inode *inode, struct file_lock *fl,
			   int (*lock_fn)(struct inode *, struct file_lock *))
{
	int err;
	for (;;) {
		err = lock_fn(inode, fl);
		if (err != FILE_LOCK_DEFERRED)
			break;
		locks_wait(fl);
	}
	locks_delete_block(fl);
	return err;
}

UVFS_API int uvfs_flock(struct uvfs_proc *p, int fd, int cmd)
{
	API_ENTER_PROC(p);
	/* LOCK_MAND never did anything; Linux ignores it before any check */
	if (cmd & LOCK_MAND)
		API_RETURN(0);
	int type;
	switch (cmd & ~LOCK_NB) {
	case LOCK_SH:
		type = F_RDLCK;
		break;
	case LOCK_EX:
		type = F_WRLCK;
		break;
	case LOCK_UN:
		type = F_UNLCK;
		break;
	default:
		API_RETURN(-EINVAL);
	}
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err;
	if (type != F_UNLCK && !(f->f_mode & (FMODE_READ | FMODE_WRITE))) {
		err = -EBADF;
	} else {
		struct file_lock fl;
		locks_init_lock(&fl);
		fl.fl_owner = f;
		fl.fl_file = f;
		fl.fl_flags = FL_FLOCK | ((cmd & LOCK_NB) ? 0 : FL_SLEEP);
		fl.fl_type = type;
		fl.fl_pid = p->pid;
		fl.fl_end = OFFSET_MAX;
		err = lock_inode_wait(f->f_inode, &fl, flock_lock_inode);
	}
	fput(f);
	API_RETURN(err);
}

/* ---- POSIX and OFD locks ---- */

/*
 * Apply request to its owner's locks: a conflict is EAGAIN, or queues the
 * request (FILE_LOCK_DEFERRED) unless that would deadlock.  Otherwise the
 * owner's locks in the range become the request's type (or go, for
 * F_UNLCK): locks of the same type that overlap or touch it merge into one,
 * locks of another type are cut back or split around it.  A lock that
 * changes wakes its waiters; one that only grows keeps them.
 */
static int posix_lock_inode(struct inode *inode, struct file_lock *request)
{
	struct file_lock_context *ctx;
	struct file_lock *new_fl = NULL, *new_fl2 = NULL;
	if (request->fl_type == F_UNLCK) {
		ctx = locks_inode_context(inode);
		if (!ctx)
			return 0;
	} else {
		ctx = locks_get_lock_context(inode);
		if (!ctx)
			return -ENOMEM;
	}
	/* at most two new locks: the request's and the far half of a split;
	 * taken before anything changes, so that a failure changes nothing */
	if (request->fl_type != F_UNLCK || request->fl_start != 0 || request->fl_end != OFFSET_MAX) {
		new_fl = locks_alloc_lock();
		new_fl2 = locks_alloc_lock();
		if (!new_fl || !new_fl2) {
			free(new_fl);
			free(new_fl2);
			return -ENOLCK;
		}
	}
	int err = 0;
	struct list_head *pos, *next;
	pthread_mutex_lock(&ctx->flc_lock);
	if (request->fl_type != F_UNLCK) {
		list_for_each(pos, &ctx->flc_posix) {
			struct file_lock *fl = list_entry(pos, struct file_lock, fl_list);
			if (!posix_locks_conflict(request, fl))
				continue;
			err = -EAGAIN;
			if (!(request->fl_flags & FL_SLEEP))
				goto out;
			/* the deadlock check and the queueing under one lock */
			err = -EDEADLK;
			pthread_mutex_lock(&blocked_lock);
			/* requests queued on ours must not be taken for waiters of ours */
			__locks_wake_up_blocks(request);
			if (likely(!posix_locks_deadlock(request, fl))) {
				err = FILE_LOCK_DEFERRED;
				__locks_insert_block(fl, request, posix_locks_conflict);
			}
			pthread_mutex_unlock(&blocked_lock);
			goto out;
		}
	}

	/* the owner's first lock */
	for (pos = ctx->flc_posix.next; pos != &ctx->flc_posix; pos = pos->next)
		if (list_entry(pos, struct file_lock, fl_list)->fl_owner == request->fl_owner)
			break;
	/* cur: the request's range and type, held by an existing lock once
	 * one stands for it (added) */
	struct file_lock *cur = request, *left = NULL, *right = NULL;
	bool added = false;
	for (; pos != &ctx->flc_posix; pos = next) {
		next = pos->next;
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_list);
		if (fl->fl_owner != request->fl_owner)
			break;
		if (fl->fl_type == request->fl_type) {
			/* the same type: merge when they overlap or touch */
			if (fl->fl_end < cur->fl_start - 1)
				continue;
			if (fl->fl_start - 1 > cur->fl_end)
				break;
			if (fl->fl_start > cur->fl_start)
				fl->fl_start = cur->fl_start;
			else
				cur->fl_start = fl->fl_start;
			if (fl->fl_end < cur->fl_end)
				fl->fl_end = cur->fl_end;
			else
				cur->fl_end = fl->fl_end;
			if (added) {
				locks_delete_lock(fl);
				continue;
			}
			cur = fl;
			added = true;
		} else {
			if (fl->fl_end < cur->fl_start)
				continue;
			if (fl->fl_start > cur->fl_end)
				break;
			if (request->fl_type == F_UNLCK)
				added = true;
			if (fl->fl_start < cur->fl_start)
				left = fl;
			if (fl->fl_end > cur->fl_end) {
				right = fl;
				break;
			}
			if (fl->fl_start >= cur->fl_start) {
				/* wholly inside the request */
				if (added) {
					locks_delete_lock(fl);
					continue;
				}
				locks_copy_lock(new_fl, request);
				locks_move_blocks(new_fl, request);
				list_add_tail(&new_fl->fl_list, &fl->fl_list);
				cur = new_fl;
				new_fl = NULL;
				locks_delete_lock(fl);
				added = true;
			}
		}
	}
	/* pos: where the loop stopped, the place for a new lock in the run */
	if (!added) {
		if (request->fl_type == F_UNLCK)
			goto out;
		locks_copy_lock(new_fl, request);
		locks_move_blocks(new_fl, request);
		list_add_tail(&new_fl->fl_list, pos);
		pos = &new_fl->fl_list;
		cur = new_fl;
		new_fl = NULL;
	}
	if (right) {
		if (left == right) {
			/* the request splits one lock in two */
			left = new_fl2;
			new_fl2 = NULL;
			locks_copy_lock(left, right);
			list_add_tail(&left->fl_list, pos);
		}
		right->fl_start = cur->fl_end + 1;
		locks_wake_up_blocks(right);
	}
	if (left) {
		left->fl_end = cur->fl_start - 1;
		locks_wake_up_blocks(left);
	}
out:
	pthread_mutex_unlock(&ctx->flc_lock);
	free(new_fl);
	free(new_fl2);
	return err;
}

/* The first lock that conflicts with fl, copied into it; else F_UNLCK. */
static void posix_test_lock(struct inode *inode, struct file_lock *fl)
{
	struct file_lock_context *ctx = locks_inode_context(inode);
	if (ctx) {
		struct list_head *pos;
		pthread_mutex_lock(&ctx->flc_lock);
		list_for_each(pos, &ctx->flc_posix) {
			struct file_lock *cfl = list_entry(pos, struct file_lock, fl_list);
			if (posix_test_locks_conflict(fl, cfl)) {
				locks_copy_lock(fl, cfl);
				pthread_mutex_unlock(&ctx->flc_lock);
				return;
			}
		}
		pthread_mutex_unlock(&ctx->flc_lock);
	}
	fl->fl_type = F_UNLCK;
}

/* struct flock to a range, with Linux's checks in its order. */
static int flock_to_posix_lock(struct uvfs_proc *p, struct file *f, struct file_lock *fl, const struct flock *l)
{
	loff_t start;
	switch (l->l_whence) {
	case SEEK_SET:
		start = 0;
		break;
	case SEEK_CUR:
		start = f->f_pos;
		break;
	case SEEK_END:
		start = READ_ONCE(f->f_inode->i_size);
		break;
	default:
		return -EINVAL;
	}
	if (l->l_start > OFFSET_MAX - start)
		return -EOVERFLOW;
	start += l->l_start;
	if (start < 0)
		return -EINVAL;
	locks_init_lock(fl);
	/* a negative length covers the bytes before the start (POSIX-2001) */
	if (l->l_len > 0) {
		if (l->l_len - 1 > OFFSET_MAX - start)
			return -EOVERFLOW;
		fl->fl_end = start + (l->l_len - 1);
		fl->fl_start = start;
	} else if (l->l_len < 0) {
		if (start + l->l_len < 0)
			return -EINVAL;
		fl->fl_end = start - 1;
		fl->fl_start = start + l->l_len;
	} else {
		fl->fl_start = start;
		fl->fl_end = OFFSET_MAX;
	}
	fl->fl_owner = p->files;
	fl->fl_pid = p->pid;
	fl->fl_file = f;
	fl->fl_flags = FL_POSIX;
	if (l->l_type != F_RDLCK && l->l_type != F_WRLCK && l->l_type != F_UNLCK)
		return -EINVAL;
	fl->fl_type = l->l_type;
	return 0;
}

static long fcntl_getlk(struct uvfs_proc *p, struct file *f, int cmd, struct flock *l)
{
	struct file_lock fl;
	if (cmd != F_OFD_GETLK && l->l_type != F_RDLCK && l->l_type != F_WRLCK)
		return -EINVAL;
	int err = flock_to_posix_lock(p, f, &fl, l);
	if (err)
		return err;
	if (cmd == F_OFD_GETLK) {
		if (l->l_pid != 0)
			return -EINVAL;
		fl.fl_flags |= FL_OFDLCK;
		fl.fl_owner = f;
	}
	posix_test_lock(f->f_inode, &fl);
	l->l_type = (short)fl.fl_type;
	if (fl.fl_type != F_UNLCK) {
		/* an OFD lock belongs to no process */
		l->l_pid = (fl.fl_flags & FL_OFDLCK) ? -1 : fl.fl_pid;
		l->l_start = fl.fl_start;
		l->l_len = fl.fl_end == OFFSET_MAX ? 0 : fl.fl_end - fl.fl_start + 1;
		l->l_whence = SEEK_SET;
	}
	return 0;
}

static long fcntl_setlk(struct uvfs_proc *p, int fd, struct file *f, int cmd, const struct flock *l)
{
	struct file_lock fl;
	int err = flock_to_posix_lock(p, f, &fl, l);
	if (err)
		return err;
	if ((fl.fl_type == F_RDLCK && !(f->f_mode & FMODE_READ)) ||
	    (fl.fl_type == F_WRLCK && !(f->f_mode & FMODE_WRITE)))
		return -EBADF;
	switch (cmd) {
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		if (l->l_pid != 0)
			return -EINVAL;
		fl.fl_flags |= FL_OFDLCK;
		fl.fl_owner = f;
		if (cmd == F_OFD_SETLKW)
			fl.fl_flags |= FL_SLEEP;
		break;
	case F_SETLKW:
		fl.fl_flags |= FL_SLEEP;
		break;
	}
	err = lock_inode_wait(f->f_inode, &fl, posix_lock_inode);
	/* A close of fd while we set the lock (or waited for it) removed the
	 * table's locks before ours was there: take it back, as close would
	 * have, and say so (Linux's fcntl_setlk). */
	if (!err && fl.fl_type != F_UNLCK && !(fl.fl_flags & FL_OFDLCK)) {
		struct file *now = fget_raw(p, fd);
		if (now != f) {
			fl.fl_type = F_UNLCK;
			fl.fl_flags &= ~FL_SLEEP;
			lock_inode_wait(f->f_inode, &fl, posix_lock_inode);
			err = -EBADF;
		}
		if (now)
			fput(now);
	}
	return err;
}

long fcntl_lock(struct uvfs_proc *p, int fd, struct file *f, int cmd, struct flock *arg)
{
	if (!arg)
		return -EFAULT;
	struct flock l = *arg;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		long err = fcntl_getlk(p, f, cmd, &l);
		if (!err)
			*arg = l;
		return err;
	}
	return fcntl_setlk(p, fd, f, cmd, &l);
}

void locks_remove_posix(struct file *f, void *owner)
{
	struct file_lock_context *ctx = locks_inode_context(f->f_inode);
	if (!ctx)
		return;
	struct file_lock fl;
	locks_init_lock(&fl);
	fl.fl_owner = owner;
	fl.fl_file = f;
	fl.fl_flags = FL_POSIX;
	fl.fl_type = F_UNLCK;
	fl.fl_end = OFFSET_MAX;
	/* the whole range: nothing to allocate, so it cannot fail */
	posix_lock_inode(f->f_inode, &fl);
}

void locks_remove_file(struct file *f)
{
	struct file_lock_context *ctx = locks_inode_context(f->f_inode);
	if (!ctx)
		return;
	locks_remove_posix(f, f); /* its OFD locks */
	struct list_head *pos, *n;
	pthread_mutex_lock(&ctx->flc_lock);
	list_for_each_safe(pos, n, &ctx->flc_flock) {
		struct file_lock *fl = list_entry(pos, struct file_lock, fl_list);
		if (fl->fl_file == f)
			locks_delete_lock(fl);
	}
	pthread_mutex_unlock(&ctx->flc_lock);
}

unsigned long locks_blocked_count(void)
{
	pthread_mutex_lock(&blocked_lock);
	unsigned long n = nr_blocked;
	pthread_mutex_unlock(&blocked_lock);
	return n;
}
