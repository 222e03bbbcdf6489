// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * select.c - poll(2) over uvfs fds and poll sets that signal a host eventfd
 * (Linux's fs/select.c, and the part of fs/eventpoll.c an event loop needs).
 *
 * uvfs_poll: each pass asks every file's ->poll for its mask; the first pass
 * also queues an entry on each wait queue the file names (poll_wait), and
 * holds a reference to the file while the entry is queued (so a concurrent
 * close cannot free the queue).  When nothing is ready, the caller sleeps on
 * a futex word that any of those entries' wake-ups sets, then makes another
 * pass without queueing.  No RCU read-side section is held while asleep.
 *
 * uvfs_pollset: a set of (fd, events) whose entries stay queued; a wake-up
 * on any of them makes the set's host eventfd readable, so an embedder's
 * epoll/poll loop can wait on uvfs fds and its own fds together.
 */
#include "vfs.h"
#include <sys/eventfd.h>

#define POLL_INLINE_ENTRIES 16

/* Linux's poll_table_entry */
struct poll_table_entry {
	struct file *filp;
	struct wait_queue_head *wq;
	struct wait_queue_entry wait;
};

struct poll_table_page {
	struct poll_table_page *next;
	unsigned used, cap;
	struct poll_table_entry entries[];
};

/* Linux's poll_wqueues */
struct poll_wqueues {
	struct poll_table pt;
	uint32_t state; /* futex word: WAIT_ARMED, WAIT_SLEEPING, WAIT_WOKEN */
	int error;
	unsigned inline_used;
	struct poll_table_page *pages;
	struct poll_table_entry inline_entries[POLL_INLINE_ENTRIES];
};

static int pollwake(struct wait_queue_entry *w, unsigned key)
{
	struct poll_wqueues *pwq = w->private;
	if (__atomic_exchange_n(&pwq->state, WAIT_WOKEN, __ATOMIC_RELEASE) == WAIT_SLEEPING)
		futex_wake_u32(&pwq->state, 1);
	return 1;
}

static struct poll_table_entry *poll_get_entry(struct poll_wqueues *pwq)
{
	if (pwq->inline_used < POLL_INLINE_ENTRIES)
		return &pwq->inline_entries[pwq->inline_used++];
	struct poll_table_page *pg = pwq->pages;
	if (!pg || pg->used == pg->cap) {
		unsigned cap = 64;
		struct poll_table_page *n = malloc(sizeof(*n) + cap * sizeof(n->entries[0]));
		if (!n) {
			pwq->error = -ENOMEM;
			return NULL;
		}
		n->next = pg;
		n->used = 0;
		n->cap = cap;
		pwq->pages = pg = n;
	}
	return &pg->entries[pg->used++];
}

/* Linux's __pollwait: queue an entry on wq, holding the file. */
static void __pollwait(struct file *f, struct wait_queue_head *wq, struct poll_table *pt)
{
	struct poll_wqueues *pwq = container_of(pt, struct poll_wqueues, pt);
	struct poll_table_entry *e = poll_get_entry(pwq);
	if (!e)
		return;
	e->filp = get_file(f);
	e->wq = wq;
	INIT_LIST_HEAD(&e->wait.entry);
	e->wait.flags = 0;
	e->wait.key = pt->key;
	e->wait.func = pollwake;
	e->wait.private = pwq;
	add_wait_queue(wq, &e->wait);
	/* pairs with wq_has_sleeper(): queued before ->poll reads the state */
	smp_mb();
}

static void poll_initwait(struct poll_wqueues *pwq)
{
	pwq->pt.qproc = __pollwait;
	pwq->pt.key = ~0u;
	pwq->state = WAIT_ARMED;
	pwq->error = 0;
	pwq->inline_used = 0;
	pwq->pages = NULL;
}

static void free_poll_entry(struct poll_table_entry *e)
{
	remove_wait_queue(e->wq, &e->wait);
	fput(e->filp);
}

static void poll_freewait(struct poll_wqueues *pwq)
{
	for (unsigned i = 0; i < pwq->inline_used; i++)
		free_poll_entry(&pwq->inline_entries[i]);
	struct poll_table_page *pg = pwq->pages;
	while (pg) {
		for (unsigned i = 0; i < pg->used; i++)
			free_poll_entry(&pg->entries[i]);
		struct poll_table_page *next = pg->next;
		free(pg);
		pg = next;
	}
}

/* The events a file reports, filtered to those asked for (POLLERR and
 * POLLHUP always); pt NULL: no queueing. */
static inline unsigned vfs_poll(struct file *f, struct poll_table *pt)
{
	if (!f->f_op || !f->f_op->poll)
		return DEFAULT_POLLMASK;
	return f->f_op->poll(f, pt);
}

/* Linux's do_pollfd: POLLNVAL for an fd that is not open (or O_PATH). */
static unsigned do_pollfd(struct uvfs_proc *p, struct pollfd *pfd, struct poll_table *pt)
{
	if (pfd->fd < 0)
		return 0;
	struct file *f = fget(p, pfd->fd);
	if (!f)
		return POLLNVAL;
	unsigned filter = (unsigned short)pfd->events | POLLERR | POLLHUP;
	if (pt)
		pt->key = filter;
	unsigned mask = vfs_poll(f, pt) & filter;
	fput(f);
	return mask;
}

static bool deadline_passed(const struct timespec *d)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->tv_sec || (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

static void deadline_in(struct timespec *d, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, d);
	d->tv_sec += ms / 1000;
	d->tv_nsec += (long)(ms % 1000) * 1000000;
	if (d->tv_nsec >= 1000000000) {
		d->tv_sec++;
		d->tv_nsec -= 1000000000;
	}
}

/*
 * poll(2) over uvfs fds: EINVAL when nfds exceeds the fd limit; EFAULT for a
 * NULL array; ENOMEM; else the number of entries with revents set.  A
 * negative fd is skipped (revents 0); an fd that is not open gives POLLNVAL;
 * files without a ->poll method (regular files, directories) are always
 * ready.  timeout_ms < 0 waits without limit, 0 does not wait.
 */
UVFS_API int uvfs_poll(struct uvfs_proc *p, struct pollfd *fds, unsigned long nfds, int timeout_ms)
{
	API_ENTER_PROC(p);
	if (nfds > p->nofile)
		API_RETURN(-EINVAL);
	if (nfds && !fds)
		API_RETURN(-EFAULT);
	struct timespec deadline;
	if (timeout_ms > 0)
		deadline_in(&deadline, timeout_ms);
	struct poll_wqueues pwq;
	poll_initwait(&pwq);
	struct poll_table *pt = timeout_ms == 0 ? NULL : &pwq.pt;
	int count;
	for (;;) {
		count = 0;
		for (unsigned long i = 0; i < nfds; i++) {
			unsigned mask = do_pollfd(p, &fds[i], pt);
			fds[i].revents = (short)mask;
			if (mask) {
				count++;
				pt = NULL; /* something to report: no need to queue more */
			}
		}
		pt = NULL;
		if (count || timeout_ms == 0 || pwq.error)
			break;
		if (timeout_ms > 0 && deadline_passed(&deadline))
			break;
		uint32_t s = WAIT_ARMED;
		if (__atomic_compare_exchange_n(&pwq.state, &s, WAIT_SLEEPING, false, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE)) {
			while (__atomic_load_n(&pwq.state, __ATOMIC_ACQUIRE) == WAIT_SLEEPING) {
				futex_wait_u32(&pwq.state, WAIT_SLEEPING, timeout_ms > 0 ? &deadline : NULL);
				if (timeout_ms > 0 && deadline_passed(&deadline))
					break;
			}
		}
		/* re-arm before the next pass reads the states (pairs with the
		 * barrier in wake_up_poll) */
		__atomic_store_n(&pwq.state, WAIT_ARMED, __ATOMIC_RELAXED);
		smp_mb();
	}
	poll_freewait(&pwq);
	if (!count && pwq.error)
		API_RETURN(pwq.error);
	API_RETURN(count);
}

/* ---- poll sets: a host eventfd that uvfs signals ---- */

struct pollset_item {
	struct pollset_item *next;
	struct uvfs_pollset *ps;
	int fd;
	short events;
	struct file *f;
	unsigned nq;
	struct {
		struct wait_queue_head *wq;
		struct wait_queue_entry wait;
	} q[4]; /* a file queues on at most a few heads (a pipe: two) */
};

struct uvfs_pollset {
	struct uvfs_proc *p;
	pthread_mutex_t lock; /* items */
	struct pollset_item *items;
	int efd;
	uint32_t signalled; /* the eventfd holds a count: no need to write again */
};

static void pollset_signal(struct uvfs_pollset *ps)
{
	if (!__atomic_exchange_n(&ps->signalled, 1, __ATOMIC_ACQ_REL)) {
		uint64_t one = 1;
		ssize_t r = write(ps->efd, &one, sizeof(one));
		(void)r; /* EAGAIN only at a count of 2^64-2: readable anyway */
	}
}

static int pollset_wake(struct wait_queue_entry *w, unsigned key)
{
	struct pollset_item *it = w->private;
	pollset_signal(it->ps);
	return 1;
}

struct pollset_table {
	struct poll_table pt;
	struct pollset_item *it;
};

static void pollset_queue(struct file *f, struct wait_queue_head *wq, struct poll_table *pt)
{
	struct pollset_item *it = container_of(pt, struct pollset_table, pt)->it;
	if (it->nq == ARRAY_SIZE(it->q))
		return;
	struct wait_queue_entry *w = &it->q[it->nq].wait;
	it->q[it->nq++].wq = wq;
	INIT_LIST_HEAD(&w->entry);
	w->flags = 0;
	w->key = pt->key;
	w->func = pollset_wake;
	w->private = it;
	add_wait_queue(wq, w);
	smp_mb();
}

static void pollset_item_free(struct pollset_item *it)
{
	for (unsigned i = 0; i < it->nq; i++)
		remove_wait_queue(it->q[i].wq, &it->q[i].wait);
	fput(it->f);
	free(it);
}

UVFS_API struct uvfs_pollset *uvfs_pollset_create(struct uvfs_proc *p)
{
	API_ENTER_PROC(p);
	struct uvfs_pollset *ps = calloc(1, sizeof(*ps));
	if (!ps)
		API_RETURN(NULL);
	ps->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ps->efd < 0) {
		free(ps);
		API_RETURN(NULL);
	}
	ps->p = p;
	pthread_mutex_init(&ps->lock, NULL);
	API_RETURN(ps);
}

UVFS_API int uvfs_pollset_hostfd(const struct uvfs_pollset *ps)
{
	API_ENTER();
	API_RETURN(ps->efd);
}

static struct pollset_item **pollset_find(struct uvfs_pollset *ps, int fd)
{
	struct pollset_item **pp = &ps->items;
	while (*pp && (*pp)->fd != fd)
		pp = &(*pp)->next;
	return pp;
}

UVFS_API int uvfs_pollset_ctl(struct uvfs_pollset *ps, int op, int fd, short events)
{
	API_ENTER();
	if (op != UVFS_POLLSET_ADD && op != UVFS_POLLSET_MOD && op != UVFS_POLLSET_DEL)
		API_RETURN(-EINVAL);
	struct file *f = NULL;
	if (op != UVFS_POLLSET_DEL) {
		f = fget(ps->p, fd);
		if (!f)
			API_RETURN(-EBADF);
	}
	pthread_mutex_lock(&ps->lock);
	struct pollset_item **pp = pollset_find(ps, fd);
	struct pollset_item *old = *pp;
	int err = 0;
	if (op == UVFS_POLLSET_ADD && old)
		err = -EEXIST;
	else if (op != UVFS_POLLSET_ADD && !old)
		err = -ENOENT;
	if (!err && old) {
		*pp = old->next;
		pollset_item_free(old);
	}
	if (!err && f) {
		struct pollset_item *it = calloc(1, sizeof(*it));
		if (!it) {
			err = -ENOMEM;
		} else {
			it->ps = ps;
			it->fd = fd;
			it->events = events;
			it->f = f;
			f = NULL;
			struct pollset_table tab = { { pollset_queue, (unsigned short)events | POLLERR | POLLHUP }, it };
			unsigned mask = vfs_poll(it->f, &tab.pt) & tab.pt.key;
			it->next = ps->items;
			ps->items = it;
			if (mask)
				pollset_signal(ps);
		}
	}
	pthread_mutex_unlock(&ps->lock);
	if (f)
		fput(f);
	API_RETURN(err);
}

UVFS_API int uvfs_pollset_wait(struct uvfs_pollset *ps, struct pollfd *out, int maxevents, int timeout_ms)
{
	API_ENTER();
	if (maxevents <= 0)
		API_RETURN(-EINVAL);
	if (!out)
		API_RETURN(-EFAULT);
	struct timespec deadline;
	if (timeout_ms > 0)
		deadline_in(&deadline, timeout_ms);
	for (;;) {
		/* Drain the eventfd, then clear the flag, then look.  A wake-up
		 * before the clear found the flag set and wrote nothing, but its
		 * state change is seen by the scan below; one after the clear
		 * writes the eventfd anew.  (Clearing before the drain could
		 * swallow a wake-up's write and leave the flag set: the host fd
		 * would then stay quiet with a file ready.) */
		uint64_t v;
		ssize_t r = read(ps->efd, &v, sizeof(v));
		(void)r;
		__atomic_store_n(&ps->signalled, 0, __ATOMIC_SEQ_CST);
		smp_mb();
		int n = 0;
		pthread_mutex_lock(&ps->lock);
		for (struct pollset_item *it = ps->items; it && n < maxevents; it = it->next) {
			unsigned mask = vfs_poll(it->f, NULL) & ((unsigned short)it->events | POLLERR | POLLHUP);
			if (mask) {
				out[n].fd = it->fd;
				out[n].events = it->events;
				out[n].revents = (short)mask;
				n++;
			}
		}
		pthread_mutex_unlock(&ps->lock);
		if (n) {
			/* level-triggered: the host fd stays readable while
			 * something may still be ready */
			pollset_signal(ps);
			API_RETURN(n);
		}
		if (timeout_ms == 0)
			API_RETURN(0);
		int ms = -1;
		if (timeout_ms > 0) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			long long left = (deadline.tv_sec - now.tv_sec) * 1000LL + (deadline.tv_nsec - now.tv_nsec) / 1000000;
			if (left <= 0)
				API_RETURN(0);
			ms = (int)left;
		}
		struct pollfd hp = { .fd = ps->efd, .events = POLLIN };
		int rc = poll(&hp, 1, ms);
		if (rc < 0 && errno != EINTR)
			API_RETURN(-errno);
	}
}

UVFS_API void uvfs_pollset_destroy(struct uvfs_pollset *ps)
{
	if (!ps)
		return;
	API_ENTER();
	while (ps->items) {
		struct pollset_item *it = ps->items;
		ps->items = it->next;
		pollset_item_free(it);
	}
	close(ps->efd);
	pthread_mutex_destroy(&ps->lock);
	free(ps);
	API_RETURN_VOID();
}
