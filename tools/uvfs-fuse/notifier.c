/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notifier.c - the notifier thread: invalidations (and the loop's wakeup) sent from
 * a thread that never serves a request, so that the kernel's directory locks
 * held for a request cannot deadlock them.
 */
#include "internal.h"

/* Queue an item; with w, count it there (the caller waits for it). */
void uf_queue_push_wait(struct uvfs_fuse *uf, enum uf_qkind kind, dev_t dev, ino_t ino, const char *name,
			struct uf_wait *w)
{
	size_t nl = name ? strlen(name) + 1 : 0;
	struct uf_qitem *q = malloc(sizeof(*q) + nl);

	if (!q)
		return;
	q->next = NULL;
	q->w = w;
	q->kind = kind;
	q->dev = dev;
	q->ino = ino;
	if (nl)
		memcpy(q->name, name, nl);
	pthread_mutex_lock(&uf->qlock);
	if (!uf->qthread_running) {
		pthread_mutex_unlock(&uf->qlock);
		free(q);
		return;
	}
	*uf->qtail = q;
	uf->qtail = &q->next;
	if (w) {
		w->left++;
		w->refs++;
	}
	pthread_cond_signal(&uf->qcond);
	pthread_mutex_unlock(&uf->qlock);
}

void uf_queue_push(struct uvfs_fuse *uf, enum uf_qkind kind, dev_t dev, ino_t ino, const char *name)
{
	uf_queue_push_wait(uf, kind, dev, ino, name, NULL);
}

/* An item is done: its waiter may go on. */
void uf_item_done(struct uvfs_fuse *uf, struct uf_qitem *q)
{
	struct uf_wait *w = q->w;

	if (w) {
		pthread_mutex_lock(&uf->qlock);
		if (--w->left == 0)
			pthread_cond_broadcast(&uf->qdone);
		if (--w->refs == 0)
			free(w);
		pthread_mutex_unlock(&uf->qlock);
	}
	free(q);
}

void uf_queue_node(struct uvfs_fuse *uf, enum uf_qkind kind, struct uf_node *n, const char *name)
{
	uf_queue_push(uf, kind, n->dev, n->ino, name);
}

/*
 * The kernel answers inval_inode with ENOENT when it has no inode for the
 * nodeid.  While the node's lookup count is above zero that means "not yet"
 * or "not any more", never "nothing to do": a counted reply (lookup, create,
 * readdirplus) is turned into an inode only after it was written, in the task
 * that asked, with the reply's attributes, which may be older than the change
 * (the count is raised before the reply is sent, so a reply in flight always
 * shows here); or the kernel evicted the inode and its FORGET is on its way.
 * So the invalidation is repeated, with a backoff, until it succeeds or the
 * count reaches 0 (every FORGET is in: the kernel holds nothing of the node).
 * A reply counted after that (uf_node_get, under nlock like this read) was
 * counted after the hook bumped change_gen, so uf_lookup_at gives it timeouts
 * 0.  Once the inode exists the invalidation succeeds and raises its
 * attr_version above that of the reply's request, so the kernel drops the
 * reply's attributes whichever of the two it applies last.  Only the end of
 * the session stops the repeats sooner: its FORGETs never come.
 */
#define UF_INVAL_BACKOFF_MIN_US 50
#define UF_INVAL_BACKOFF_MAX_US 5000

static bool notifier_stopping(struct uvfs_fuse *uf)
{
	bool r;

	pthread_mutex_lock(&uf->qlock);
	r = uf->qstop;
	pthread_mutex_unlock(&uf->qlock);
	return r || fuse_session_exited(uf->se);
}

static void inval_inode(struct uvfs_fuse *uf, struct uf_node *n)
{
	useconds_t us = UF_INVAL_BACKOFF_MIN_US;

	while (fuse_lowlevel_notify_inval_inode(uf->se, node_id(n), 0, 0) == -ENOENT &&
	       uf_node_looked_up(uf, n) && !notifier_stopping(uf)) {
		usleep(us);
		if (us < UF_INVAL_BACKOFF_MAX_US)
			us *= 2;
	}
}

void *uf_notifier_main(void *arg)
{
	struct uvfs_fuse *uf = arg;

	for (;;) {
		struct uf_qitem *q;
		struct uf_node *n;

		pthread_mutex_lock(&uf->qlock);
		while (!uf->qhead && !uf->qstop)
			pthread_cond_wait(&uf->qcond, &uf->qlock);
		q = uf->qhead;
		if (!q) {
			pthread_mutex_unlock(&uf->qlock);
			break;
		}
		uf->qhead = q->next;
		if (!uf->qhead)
			uf->qtail = &uf->qhead;
		pthread_mutex_unlock(&uf->qlock);

		if (q->kind == UF_Q_WAKEUP) {
			/* A request for the loop to wake on.  libfuse drops a
			 * request read after exit, so this blocks until the
			 * connection closes in uvfs_fuse_destroy. */
			if (uf->wakeup)
				(void)access(uf->wakeup, F_OK);
			free(q);
			continue;
		}
		n = uf_node_pin(uf, q->dev, q->ino);
		if (n) {
			switch (q->kind) {
			case UF_Q_ENTRY:
				fuse_lowlevel_notify_inval_entry(uf->se, node_id(n), q->name, strlen(q->name));
				break;
			case UF_Q_INODE:
				inval_inode(uf, n);
				break;
			case UF_Q_WAKEUP:
				break;
			}
			uf_node_unpin(uf, uf->qproc, n);
		}
		uf_item_done(uf, q);
	}
	return NULL;
}

/* Stop the notifier thread (it may be blocked in a lookup of its own until
 * the device is closed by the unmount). */
void uf_notifier_stop(struct uvfs_fuse *uf)
{
	if (!uf->qthread_running)
		return;
	pthread_mutex_lock(&uf->qlock);
	uf->qstop = true;
	pthread_cond_signal(&uf->qcond);
	pthread_mutex_unlock(&uf->qlock);
	pthread_join(uf->qthread, NULL);
	pthread_mutex_lock(&uf->qlock);
	uf->qthread_running = false;
	pthread_mutex_unlock(&uf->qlock);
}
