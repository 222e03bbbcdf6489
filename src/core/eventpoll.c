// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * eventpoll.c - epoll over uvfs fds (Linux's fs/eventpoll.c).
 *
 * An epoll instance is an anonymous-inode file (the inode inotify's
 * instances share, as on Linux) whose private data is a struct eventpoll.
 * Each watched (file, fd) pair is an epitem with an entry on every wait
 * queue the target's ->poll names; a wake-up on one of them runs
 * ep_poll_callback, which puts the item on the ready list and wakes one
 * waiter of epoll_wait (they queue exclusively) and the pollers of the epoll
 * file itself.  epoll_wait takes the ready list whole, asks each item's
 * ->poll again (without queueing) and reports what it says: level-triggered
 * items go back on the list, edge-triggered ones do not, one-shot ones are
 * disabled until EPOLL_CTL_MOD.
 *
 * An item holds no reference to its file: it goes when the file is released
 * (__fput calls eventpoll_release_file), not when one of the fds goes, so a
 * dup'ed fd keeps it reporting under the closed fd's number, as on Linux.
 *
 * Locks, outermost first:
 *   epmutex       every item's place in its target's f_ep list and in its
 *                 instance's item list; the loop check walks both.  Taken
 *                 by epoll_ctl ADD/DEL, and by the release of a watched
 *                 file or of an instance.  (Linux splits it into
 *                 epnested_mutex and file->f_lock.)
 *   ep->mtx       one instance's scans, insertions, changes and removals;
 *                 a scan may poll a nested instance and take its mtx: the
 *                 loop check keeps that order acyclic.
 *   target locks  (a pipe's mutex, ...) taken by ->poll
 *   wq->lock      a wait queue's; wake functions run under it
 *   ep->lock      the ready list and the overflow list, taken by the
 *                 callback, so never held across ->poll.
 * While a scan runs (ep->scanning) the scanner owns the ready list without
 * ep->lock; callbacks put items on ep->ovflist instead, and the scan's end
 * merges it back (Linux's ovflist).
 *
 * No wait holds an RCU read-side section or the fd table's owner mode: the
 * epoll file is taken with fget (a reference) before anything sleeps.
 */
#include "vfs.h"
#include "eventpoll.h"
#include "../notify/fsnotify.h"
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* Linux's EP_MAX_NESTS: at most this many instances below the top one. */
#define EP_MAX_NESTS 4
#define EP_MAX_EVENTS (INT_MAX / (int)sizeof(struct epoll_event))
/* The bits an item keeps when EPOLLONESHOT disables it. */
#define EP_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EPOLLINOUT_BITS (EPOLLIN | EPOLLOUT)
#define EPOLLEXCLUSIVE_OK_BITS (EPOLLINOUT_BITS | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)
/* a file queues on at most two heads (a FIFO open O_RDWR) */
#define EP_MAX_WAIT 4

struct eventpoll;

struct eppoll_entry {
	struct wait_queue_entry wait;
	struct wait_queue_head *whead;
};

struct epitem {
	struct list_head itemlink; /* ep->items, under epmutex and ep->mtx */
	struct list_head rdllink;  /* ep->rdllist or a scan's list; empty when on neither */
	struct list_head ovflink;  /* ep->ovflist while a scan runs, under ep->lock */
	struct epitem *fnext, **fpprev; /* the target's f_ep list, under epmutex */
	struct file *file;
	int fd;
	struct eventpoll *ep;
	struct epoll_event event; /* written under ep->mtx and ep->lock */
	int nwait;                /* entries queued; -1: one could not be */
	struct eppoll_entry pwq[EP_MAX_WAIT];
};

struct eventpoll {
	pthread_mutex_t mtx;
	pthread_mutex_t lock;
	struct wait_queue_head wq;        /* epoll_wait's sleepers, exclusive */
	struct wait_queue_head poll_wait; /* pollers of the epoll file (uvfs_poll, an outer epoll) */
	struct list_head rdllist;
	struct list_head ovflist;
	bool scanning;
	struct list_head items;
	struct file *file;
	int efd;            /* uvfs_epoll_hostfd's eventfd, -1 until asked for; under ep->lock */
	bool efd_signalled; /* under ep->lock */
	/* the loop check's marks, under epmutex */
	unsigned gen;
	int depth;
};

static pthread_mutex_t epmutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned loop_check_gen; /* under epmutex */

static const struct file_operations eventpoll_fops;

static inline bool is_file_epoll(const struct file *f)
{
	return f->f_op == &eventpoll_fops;
}

static inline unsigned vfs_poll(struct file *f, struct poll_table *pt)
{
	if (!f->f_op || !f->f_op->poll)
		return DEFAULT_POLLMASK;
	return f->f_op->poll(f, pt);
}

/* ---- the host fd (under ep->lock) ---- */

static void ep_hostfd_set(struct eventpoll *ep)
{
	if (ep->efd >= 0 && !ep->efd_signalled) {
		uint64_t one = 1;
		ssize_t r = write(ep->efd, &one, sizeof(one));
		(void)r; /* only fails at a count of 2^64-2: readable anyway */
		ep->efd_signalled = true;
	}
}

static void ep_hostfd_clear(struct eventpoll *ep)
{
	if (ep->efd >= 0 && ep->efd_signalled) {
		uint64_t v;
		ssize_t r = read(ep->efd, &v, sizeof(v));
		(void)r;
		ep->efd_signalled = false;
	}
}

/* ---- wake-ups ---- */

/*
 * Linux's ep_poll_callback, under the target's wq->lock.  Its return value
 * tells __wake_up whether an exclusive wake-up was used: an EPOLLEXCLUSIVE
 * item counts only when its instance had a sleeper to wake for those
 * events, so that the next instance in line gets the wake-up otherwise.
 */
static int ep_poll_callback(struct wait_queue_entry *w, unsigned key)
{
	struct epitem *epi = w->private;
	struct eventpoll *ep = epi->ep;
	int ewake = 0;
	bool pwake = false;

	pthread_mutex_lock(&ep->lock);
	unsigned events = epi->event.events;
	if (!(events & ~EP_PRIVATE_BITS))
		goto out; /* disabled by EPOLLONESHOT */
	if (key && !(key & events))
		goto out;
	if (ep->scanning) {
		if (list_empty(&epi->ovflink))
			list_add_tail(&epi->ovflink, &ep->ovflist);
	} else if (list_empty(&epi->rdllink)) {
		list_add_tail(&epi->rdllink, &ep->rdllist);
		ep_hostfd_set(ep);
	}
	if (waitqueue_active(&ep->wq)) {
		if (events & EPOLLEXCLUSIVE) {
			switch (key & EPOLLINOUT_BITS) {
			case EPOLLIN:
				ewake = !!(events & EPOLLIN);
				break;
			case EPOLLOUT:
				ewake = !!(events & EPOLLOUT);
				break;
			case 0:
				ewake = 1;
				break;
			}
		}
		__wake_up(&ep->wq, 0, 1);
	}
	pwake = waitqueue_active(&ep->poll_wait);
out:
	pthread_mutex_unlock(&ep->lock);
	if (pwake)
		__wake_up(&ep->poll_wait, POLLIN | POLLRDNORM, 1);
	if (!(events & EPOLLEXCLUSIVE))
		ewake = 1;
	return ewake;
}

struct ep_pqueue {
	struct poll_table pt;
	struct epitem *epi;
};

/* Linux's ep_ptable_queue_proc: one entry per wait queue the target names. */
static void ep_ptable_queue_proc(struct file *f, struct wait_queue_head *whead, struct poll_table *pt)
{
	struct epitem *epi = container_of(pt, struct ep_pqueue, pt)->epi;
	(void)f;
	if (epi->nwait < 0)
		return;
	if (epi->nwait == EP_MAX_WAIT) {
		epi->nwait = -1;
		return;
	}
	struct eppoll_entry *pwq = &epi->pwq[epi->nwait++];
	INIT_LIST_HEAD(&pwq->wait.entry);
	pwq->wait.flags = (epi->event.events & EPOLLEXCLUSIVE) ? WQ_FLAG_EXCLUSIVE : 0;
	pwq->wait.key = 0; /* ep_poll_callback filters on the item's current events */
	pwq->wait.func = ep_poll_callback;
	pwq->wait.private = epi;
	pwq->whead = whead;
	add_wait_queue(whead, &pwq->wait);
	/* pairs with wq_has_sleeper(): queued before ->poll reads the state */
	smp_mb();
}

/* The events an item reports now (EPOLLERR and EPOLLHUP are in every
 * item's mask); pt NULL: no queueing. */
static inline unsigned ep_item_poll(struct epitem *epi, struct poll_table *pt)
{
	return vfs_poll(epi->file, pt) & epi->event.events;
}

/* ---- scans: the ready list taken whole, under ep->mtx ---- */

static void ep_start_scan(struct eventpoll *ep, struct list_head *txlist)
{
	pthread_mutex_lock(&ep->lock);
	INIT_LIST_HEAD(txlist);
	if (!list_empty(&ep->rdllist)) {
		txlist->next = ep->rdllist.next;
		txlist->prev = ep->rdllist.prev;
		txlist->next->prev = txlist;
		txlist->prev->next = txlist;
		INIT_LIST_HEAD(&ep->rdllist);
	}
	ep->scanning = true;
	pthread_mutex_unlock(&ep->lock);
}

/* Splices list at the head of head. */
static void list_splice_head(struct list_head *list, struct list_head *head)
{
	if (list_empty(list))
		return;
	struct list_head *first = list->next, *last = list->prev, *at = head->next;
	first->prev = head;
	head->next = first;
	last->next = at;
	at->prev = last;
	INIT_LIST_HEAD(list);
}

/* What the scan left (txlist: not looked at) goes back first, then what
 * became ready during the scan, then the level-triggered items the scan put
 * back; the host fd and another sleeper hear of what remains. */
static void ep_done_scan(struct eventpoll *ep, struct list_head *txlist)
{
	struct list_head ovf;
	INIT_LIST_HEAD(&ovf);
	pthread_mutex_lock(&ep->lock);
	while (!list_empty(&ep->ovflist)) {
		struct epitem *epi = list_entry(ep->ovflist.next, struct epitem, ovflink);
		list_del_init(&epi->ovflink);
		if (list_empty(&epi->rdllink))
			list_add_tail(&epi->rdllink, &ovf);
	}
	list_splice_head(&ovf, &ep->rdllist);
	list_splice_head(txlist, &ep->rdllist);
	ep->scanning = false;
	if (!list_empty(&ep->rdllist)) {
		ep_hostfd_set(ep);
		if (waitqueue_active(&ep->wq))
			__wake_up(&ep->wq, 0, 1);
	} else {
		ep_hostfd_clear(ep);
	}
	pthread_mutex_unlock(&ep->lock);
}

/* Linux's ep_send_events: up to maxevents into events; -EFAULT when the
 * first one has nowhere to go (a NULL array). */
static int ep_send_events(struct eventpoll *ep, struct epoll_event *events, int maxevents)
{
	struct list_head txlist, *pos, *n;
	int res = 0;
	pthread_mutex_lock(&ep->mtx);
	ep_start_scan(ep, &txlist);
	list_for_each_safe(pos, n, &txlist) {
		struct epitem *epi = list_entry(pos, struct epitem, rdllink);
		if (res >= maxevents)
			break;
		list_del_init(&epi->rdllink);
		unsigned revents = ep_item_poll(epi, NULL);
		if (!revents)
			continue;
		if (!events) {
			list_add(&epi->rdllink, &txlist);
			if (!res)
				res = -EFAULT;
			break;
		}
		events[res].events = revents;
		events[res].data = epi->event.data;
		res++;
		if (epi->event.events & EPOLLONESHOT) {
			pthread_mutex_lock(&ep->lock);
			epi->event.events &= EP_PRIVATE_BITS;
			pthread_mutex_unlock(&ep->lock);
		} else if (!(epi->event.events & EPOLLET)) {
			/* level-triggered: looked at again by the next scan */
			list_add_tail(&epi->rdllink, &ep->rdllist);
		}
	}
	ep_done_scan(ep, &txlist);
	pthread_mutex_unlock(&ep->mtx);
	return res;
}

/*
 * ->poll of the epoll file (Linux's ep_eventpoll_poll): readable when an
 * item on the ready list really reports something; the items that do not are
 * dropped from the list on the way.  A nested instance's mtx is taken inside
 * the outer one's, in the order the loop check keeps acyclic.
 */
static unsigned ep_eventpoll_poll(struct file *f, struct poll_table *pt)
{
	struct eventpoll *ep = f->private_data;
	struct list_head txlist, *pos, *n;
	unsigned res = 0;
	poll_wait(f, &ep->poll_wait, pt);
	pthread_mutex_lock(&ep->mtx);
	ep_start_scan(ep, &txlist);
	list_for_each_safe(pos, n, &txlist) {
		struct epitem *epi = list_entry(pos, struct epitem, rdllink);
		if (ep_item_poll(epi, NULL)) {
			res = POLLIN | POLLRDNORM;
			break;
		}
		list_del_init(&epi->rdllink);
	}
	ep_done_scan(ep, &txlist);
	pthread_mutex_unlock(&ep->mtx);
	return res;
}

/* ---- items ---- */

static struct epitem *ep_find(struct eventpoll *ep, struct file *f, int fd)
{
	struct list_head *pos;
	list_for_each(pos, &ep->items) {
		struct epitem *epi = list_entry(pos, struct epitem, itemlink);
		if (epi->file == f && epi->fd == fd)
			return epi;
	}
	return NULL;
}

/* The target's list of items: its head is read without epmutex by __fput
 * (eventpoll_release), hence the atomic stores. */
static void ep_file_link(struct epitem *epi, struct file *f)
{
	struct epitem *first = f->f_ep;
	epi->fnext = first;
	if (first)
		first->fpprev = &epi->fnext;
	epi->fpprev = &f->f_ep;
	__atomic_store_n(&f->f_ep, epi, __ATOMIC_RELEASE);
}

static void ep_file_unlink(struct epitem *epi)
{
	if (epi->fnext)
		epi->fnext->fpprev = epi->fpprev;
	/* the last touch of the target: once its head reads NULL, __fput may
	 * go on to release and free it */
	__atomic_store_n(epi->fpprev, epi->fnext, __ATOMIC_RELEASE);
}

/* Linux's ep_remove; epmutex and ep->mtx held. */
static void ep_remove(struct eventpoll *ep, struct epitem *epi)
{
	/* Off the target's wait queues first: remove_wait_queue waits out a
	 * callback running on the entry, and the queues go with the file. */
	for (int i = 0; i < epi->nwait; i++)
		remove_wait_queue(epi->pwq[i].whead, &epi->pwq[i].wait);
	ep_file_unlink(epi);
	pthread_mutex_lock(&ep->lock);
	if (!list_empty(&epi->rdllink))
		list_del_init(&epi->rdllink);
	if (!list_empty(&epi->ovflink))
		list_del_init(&epi->ovflink);
	pthread_mutex_unlock(&ep->lock);
	list_del_init(&epi->itemlink);
	free(epi);
}

/* Queue an item that became ready outside a scan (insert, modify). */
static void ep_make_ready(struct eventpoll *ep, struct epitem *epi)
{
	bool pwake = false;
	pthread_mutex_lock(&ep->lock);
	if (list_empty(&epi->rdllink)) {
		list_add_tail(&epi->rdllink, &ep->rdllist);
		ep_hostfd_set(ep);
		if (waitqueue_active(&ep->wq))
			__wake_up(&ep->wq, 0, 1);
		pwake = waitqueue_active(&ep->poll_wait);
	}
	pthread_mutex_unlock(&ep->lock);
	if (pwake)
		__wake_up(&ep->poll_wait, POLLIN | POLLRDNORM, 1);
}

/* Linux's ep_insert; epmutex and ep->mtx held. */
static int ep_insert(struct eventpoll *ep, const struct epoll_event *event, struct file *tf, int fd)
{
	struct epitem *epi = calloc(1, sizeof(*epi));
	if (!epi)
		return -ENOMEM;
	INIT_LIST_HEAD(&epi->rdllink);
	INIT_LIST_HEAD(&epi->ovflink);
	epi->file = tf;
	epi->fd = fd;
	epi->ep = ep;
	epi->event = *event;
	list_add_tail(&epi->itemlink, &ep->items);
	ep_file_link(epi, tf);
	struct ep_pqueue epq = { { ep_ptable_queue_proc, ~0u }, epi };
	unsigned revents = ep_item_poll(epi, &epq.pt);
	if (epi->nwait < 0) {
		epi->nwait = EP_MAX_WAIT;
		ep_remove(ep, epi);
		return -ENOMEM;
	}
	if (revents)
		ep_make_ready(ep, epi);
	return 0;
}

/* Linux's ep_modify; ep->mtx held. */
static void ep_modify(struct eventpoll *ep, struct epitem *epi, const struct epoll_event *event)
{
	pthread_mutex_lock(&ep->lock);
	epi->event = *event;
	pthread_mutex_unlock(&ep->lock);
	/* pairs with the barrier of the waker: either it sees the new events
	 * or the poll below sees its state */
	smp_mb();
	if (ep_item_poll(epi, NULL))
		ep_make_ready(ep, epi);
}

/* ---- the loop check (epmutex held) ---- */

/* The longest chain of instances below ep, or INT_MAX if one of them is
 * target (a cycle). */
static int ep_depth_below(struct eventpoll *ep, struct eventpoll *target, int depth)
{
	if (ep->gen == loop_check_gen)
		return ep->depth;
	int result = 0;
	struct list_head *pos;
	list_for_each(pos, &ep->items) {
		struct epitem *epi = list_entry(pos, struct epitem, itemlink);
		if (!is_file_epoll(epi->file))
			continue;
		struct eventpoll *child = epi->file->private_data;
		if (child == target)
			return INT_MAX;
		if (depth >= EP_MAX_NESTS) /* already too deep: no need to look further */
			return INT_MAX;
		int d = ep_depth_below(child, target, depth + 1);
		if (d == INT_MAX)
			return INT_MAX;
		if (d + 1 > result)
			result = d + 1;
	}
	ep->gen = loop_check_gen;
	ep->depth = result;
	return result;
}

/* The longest chain of instances above ep (those watching its file). */
static int ep_depth_above(struct eventpoll *ep, int depth)
{
	int result = 0;
	if (depth > EP_MAX_NESTS)
		return depth;
	for (struct epitem *epi = ep->file->f_ep; epi; epi = epi->fnext) {
		int d = 1 + ep_depth_above(epi->ep, depth + 1);
		if (d > result)
			result = d;
	}
	return result;
}

/* Linux's ep_loop_check: watching to from ep must make no cycle and no
 * chain of more than EP_MAX_NESTS + 1 instances. */
static bool ep_loop_check(struct eventpoll *ep, struct eventpoll *to)
{
	loop_check_gen++;
	int below = ep_depth_below(to, ep, 0);
	if (below == INT_MAX || below > EP_MAX_NESTS)
		return false;
	return below + 1 + ep_depth_above(ep, 0) <= EP_MAX_NESTS;
}

/* ---- the file ---- */

/* Linux's eventpoll_release_file: the last reference to a watched file went
 * (__fput, before ->release): every item on it goes. */
void eventpoll_release_file(struct file *f)
{
	pthread_mutex_lock(&epmutex);
	struct epitem *epi;
	while ((epi = f->f_ep)) {
		struct eventpoll *ep = epi->ep;
		pthread_mutex_lock(&ep->mtx);
		ep_remove(ep, epi);
		pthread_mutex_unlock(&ep->mtx);
	}
	pthread_mutex_unlock(&epmutex);
}

static void ep_release(struct inode *inode, struct file *f)
{
	struct eventpoll *ep = f->private_data;
	(void)inode;
	pthread_mutex_lock(&epmutex);
	pthread_mutex_lock(&ep->mtx);
	while (!list_empty(&ep->items))
		ep_remove(ep, list_entry(ep->items.next, struct epitem, itemlink));
	pthread_mutex_unlock(&ep->mtx);
	pthread_mutex_unlock(&epmutex);
	if (ep->efd >= 0)
		close(ep->efd);
	destroy_waitqueue_head(&ep->wq);
	destroy_waitqueue_head(&ep->poll_wait);
	pthread_mutex_destroy(&ep->lock);
	pthread_mutex_destroy(&ep->mtx);
	free(ep);
}

/* Linux's epoll ioctls (EPIOCSPARAMS, busy polling) are not modelled: every
 * request is EINVAL, as on a kernel without them. */
static long ep_ioctl(struct file *f, unsigned long req, void *arg)
{
	(void)f;
	(void)req;
	(void)arg;
	return -EINVAL;
}

static const struct file_operations eventpoll_fops = {
	.release = ep_release,
	.poll = ep_eventpoll_poll,
	.llseek = noop_llseek,
	.unlocked_ioctl = ep_ioctl,
};

/* ---- the system calls ---- */

UVFS_API int uvfs_epoll_create1(struct uvfs_proc *p, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~EPOLL_CLOEXEC)
		API_RETURN(-EINVAL);
	struct eventpoll *ep = calloc(1, sizeof(*ep));
	if (!ep)
		API_RETURN(-ENOMEM);
	pthread_mutex_init(&ep->mtx, NULL);
	pthread_mutex_init(&ep->lock, NULL);
	init_waitqueue_head(&ep->wq);
	init_waitqueue_head(&ep->poll_wait);
	INIT_LIST_HEAD(&ep->rdllist);
	INIT_LIST_HEAD(&ep->ovflist);
	INIT_LIST_HEAD(&ep->items);
	ep->efd = -1;
	int fd = get_unused_fd_flags(p, flags & EPOLL_CLOEXEC ? O_CLOEXEC : 0);
	if (fd < 0)
		goto fail;
	struct file *f = anon_inode_getfile(p->vfs, &eventpoll_fops, ep, O_RDWR);
	if (!f) {
		put_unused_fd(p, fd);
		fd = alloc_file_errno(p->vfs);
		goto fail;
	}
	ep->file = f;
	fd_install(p, fd, f);
	API_RETURN(fd);
fail:
	destroy_waitqueue_head(&ep->wq);
	destroy_waitqueue_head(&ep->poll_wait);
	pthread_mutex_destroy(&ep->lock);
	pthread_mutex_destroy(&ep->mtx);
	free(ep);
	API_RETURN(fd);
}

static inline bool ep_op_has_event(int op)
{
	return op != EPOLL_CTL_DEL;
}

UVFS_API int uvfs_epoll_ctl(struct uvfs_proc *p, int epfd, int op, int fd, struct epoll_event *event)
{
	API_ENTER_PROC(p);
	struct epoll_event epds;
	if (ep_op_has_event(op)) {
		if (!event)
			API_RETURN(-EFAULT);
		epds = *event;
	}
	struct file *f = fget(p, epfd);
	if (!f)
		API_RETURN(-EBADF);
	int err = -EBADF;
	struct file *tf = fget(p, fd);
	if (!tf)
		goto out_f;
	/* the target must support poll: regular files and directories do not */
	err = -EPERM;
	if (!tf->f_op || !tf->f_op->poll)
		goto out;
	err = -EINVAL;
	if (f == tf || !is_file_epoll(f))
		goto out;
	/* the entries are queued at ADD: exclusivity cannot change later, and
	 * nested exclusive wake-ups are not supported (as Linux) */
	if (ep_op_has_event(op) && (epds.events & EPOLLEXCLUSIVE)) {
		if (op == EPOLL_CTL_MOD)
			goto out;
		if (op == EPOLL_CTL_ADD && (is_file_epoll(tf) || (epds.events & ~EPOLLEXCLUSIVE_OK_BITS)))
			goto out;
	}
	struct eventpoll *ep = f->private_data;
	pthread_mutex_lock(&epmutex);
	if (op == EPOLL_CTL_ADD && is_file_epoll(tf) && !ep_loop_check(ep, tf->private_data)) {
		pthread_mutex_unlock(&epmutex);
		err = -ELOOP;
		goto out;
	}
	pthread_mutex_lock(&ep->mtx);
	struct epitem *epi = ep_find(ep, tf, fd);
	err = -EINVAL;
	switch (op) {
	case EPOLL_CTL_ADD:
		if (!epi) {
			epds.events |= EPOLLERR | EPOLLHUP;
			err = ep_insert(ep, &epds, tf, fd);
		} else {
			err = -EEXIST;
		}
		break;
	case EPOLL_CTL_DEL:
		if (epi) {
			ep_remove(ep, epi);
			err = 0;
		} else {
			err = -ENOENT;
		}
		break;
	case EPOLL_CTL_MOD:
		if (epi) {
			if (!(epi->event.events & EPOLLEXCLUSIVE)) {
				epds.events |= EPOLLERR | EPOLLHUP;
				ep_modify(ep, epi, &epds);
				err = 0;
			}
		} else {
			err = -ENOENT;
		}
		break;
	}
	pthread_mutex_unlock(&ep->mtx);
	pthread_mutex_unlock(&epmutex);
out:
	fput(tf);
out_f:
	fput(f);
	API_RETURN(err);
}

static bool ep_events_available(struct eventpoll *ep)
{
	pthread_mutex_lock(&ep->lock);
	/* while a scan runs the scanner owns the list: count it as ready */
	bool avail = ep->scanning || !list_empty(&ep->rdllist);
	pthread_mutex_unlock(&ep->lock);
	return avail;
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

/* Linux's ep_poll: harvest, else sleep (exclusively: one sleeper per
 * wake-up; a scan that leaves items ready wakes the next) and retry. */
static int ep_poll(struct eventpoll *ep, struct epoll_event *events, int maxevents, int timeout_ms)
{
	struct timespec deadline;
	if (timeout_ms > 0)
		deadline_in(&deadline, timeout_ms);
	bool timed_out = false;
	for (;;) {
		int res = ep_send_events(ep, events, maxevents);
		if (res || timeout_ms == 0 || timed_out)
			return res;
		DEFINE_WAIT(w);
		prepare_to_wait_exclusive(&ep->wq, &w);
		if (!ep_events_available(ep))
			timed_out = wait_woken(&w, timeout_ms > 0 ? &deadline : NULL) == -ETIMEDOUT;
		finish_wait(&ep->wq, &w);
	}
}

static int do_epoll_wait(struct uvfs_proc *p, int epfd, struct epoll_event *events, int maxevents,
			 int timeout_ms)
{
	struct file *f = fget(p, epfd);
	if (!f)
		return -EBADF;
	int res = -EINVAL;
	if (maxevents > 0 && maxevents <= EP_MAX_EVENTS && is_file_epoll(f))
		res = ep_poll(f->private_data, events, maxevents, timeout_ms);
	fput(f);
	return res;
}

UVFS_API int uvfs_epoll_wait(struct uvfs_proc *p, int epfd, struct epoll_event *events, int maxevents,
			     int timeout_ms)
{
	API_ENTER_PROC(p);
	API_RETURN(do_epoll_wait(p, epfd, events, maxevents, timeout_ms));
}

UVFS_API int uvfs_epoll_pwait(struct uvfs_proc *p, int epfd, struct epoll_event *events, int maxevents,
			      int timeout_ms, const sigset_t *sigmask)
{
	API_ENTER_PROC(p);
	/* uvfs waits are not ended by signals; the mask still governs which
	 * signals the host may deliver to this thread meanwhile */
	sigset_t old;
	if (sigmask && pthread_sigmask(SIG_SETMASK, sigmask, &old))
		API_RETURN(-EINVAL);
	int res = do_epoll_wait(p, epfd, events, maxevents, timeout_ms);
	if (sigmask)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	API_RETURN(res);
}

UVFS_API int uvfs_epoll_hostfd(struct uvfs_proc *p, int epfd)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, epfd);
	if (!f)
		API_RETURN(-EBADF);
	if (!is_file_epoll(f)) {
		fput(f);
		API_RETURN(-EINVAL);
	}
	struct eventpoll *ep = f->private_data;
	int res = 0;
	pthread_mutex_lock(&ep->lock);
	if (ep->efd < 0) {
		ep->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (ep->efd < 0)
			res = -errno;
		else if (!ep->scanning && !list_empty(&ep->rdllist))
			ep_hostfd_set(ep); /* a scan under way decides at its end */
	}
	if (!res)
		res = ep->efd;
	pthread_mutex_unlock(&ep->lock);
	fput(f);
	API_RETURN(res);
}
