/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hook.c - exact invalidation: the change hook, and the seam for invalidating by
 * hand (uvfs_fuse_notify_inval_entry/_inode).
 */
#include "internal.h"

/*
 * uvfs calls uf_change for every change to the tree, on the thread that made
 * it, before that call returns and with no uvfs lock held; for writes only
 * the first of a proc since the file was last read or stat'ed
 * (UVFS_CHANGE_WRITE_FIRST), since everything the kernel caches of a file
 * came from such a read or from its own writes.  Returning 1 for a write
 * says what the kernel cached of the inode is dropped (or there was
 * nothing), so that proc's next writes need no report until the frontend
 * reads the inode again to answer the kernel; the frontend's own writes
 * return 0, since the kernel keeps the pages it wrote.  A change made by
 * one of the frontend's own procs (a request being served) is known to the
 * kernel already.  Any other proc's change (the embedding application's)
 * becomes inval_entry/inval_inode items for the nodes the kernel knows; the
 * notifier thread sends them (a request handler must not: the kernel may be
 * holding the directory's lock for the very request) and the hook waits until
 * they are sent, so when the library call returns the kernel has dropped what
 * it cached.  The wait is bounded (UF_HOOK_WAIT_MS) so that a stuck kernel
 * lock cannot hang the application.
 */
#define UF_HOOK_WAIT_MS 2000

static bool own_proc(struct uvfs_fuse *uf, struct uvfs_proc *p)
{
	struct uf_thread *t;

	if (p == uf->base || p == uf->qproc)
		return true;
	/* a request's proc is the proc of the thread serving it, and the hook
	 * runs on the thread that made the change */
	t = pthread_getspecific(uf->key);
	return t && t->p == p;
}

static bool node_known(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
{
	bool r;

	pthread_mutex_lock(&uf->nlock);
	r = uf_hash_find(uf, dev, ino) != NULL;
	pthread_mutex_unlock(&uf->nlock);
	return r;
}

/* Queue kind for (dev, ino) if the kernel knows that node now.  A node it
 * learns later is looked up after the change and is current. */
static void hook_push(struct uvfs_fuse *uf, struct uf_wait *w, enum uf_qkind kind, dev_t dev, ino_t ino,
		      const char *name)
{
	if (ino && node_known(uf, dev, ino))
		uf_queue_push_wait(uf, kind, dev, ino, name, w);
}

static int uf_change(const struct uvfs_change *c, void *arg)
{
	struct uvfs_fuse *uf = arg;
	struct uf_wait *w;
	struct timespec until;
	bool done, late;

	if (own_proc(uf, c->proc) || __atomic_load_n(&uf->exiting, __ATOMIC_ACQUIRE))
		return 0;
	/* before the node table is looked at: a lookup whose uf_node_get comes
	 * after our look sees the count move (uf_lookup_at) */
	__atomic_fetch_add(&uf->change_gen, 1, __ATOMIC_SEQ_CST);
	w = calloc(1, sizeof(*w));
	if (!w)
		return 0;
	w->refs = 1;
	switch (c->kind) {
	case UVFS_CHANGE_CREATE:
	case UVFS_CHANGE_LINK:
	case UVFS_CHANGE_UNLINK:
		/* the name; the directory's times (and link count); the inode's
		 * link count and ctime */
		hook_push(uf, w, UF_Q_ENTRY, c->dev, c->dir, c->name);
		hook_push(uf, w, UF_Q_INODE, c->dev, c->dir, NULL);
		if (c->kind != UVFS_CHANGE_CREATE)
			hook_push(uf, w, UF_Q_INODE, c->dev, c->ino, NULL);
		break;
	case UVFS_CHANGE_RENAME:
		/* both names (dropping the old one drops what the kernel cached
		 * below a moved directory), both directories, the moved inode's
		 * ctime, the replaced or exchanged inode */
		hook_push(uf, w, UF_Q_ENTRY, c->dev, c->old_dir, c->old_name);
		hook_push(uf, w, UF_Q_ENTRY, c->dev, c->dir, c->name);
		hook_push(uf, w, UF_Q_INODE, c->dev, c->old_dir, NULL);
		if (c->dir != c->old_dir)
			hook_push(uf, w, UF_Q_INODE, c->dev, c->dir, NULL);
		hook_push(uf, w, UF_Q_INODE, c->dev, c->ino, NULL);
		hook_push(uf, w, UF_Q_INODE, c->dev, c->other, NULL);
		break;
	case UVFS_CHANGE_ATTR:
	case UVFS_CHANGE_WRITE:
		/* attributes and page cache */
		hook_push(uf, w, UF_Q_INODE, c->dev, c->ino, NULL);
		/* a directory closed to some: the names cached below it must go
		 * (epoch.c; no lock, so here, on this thread) */
		if (c->kind == UVFS_CHANGE_ATTR && (c->flags & UVFS_CHANGE_MODE) && S_ISDIR(c->mode) &&
		    !uf->o.default_permissions && !searchable_by_all(c->mode) && node_known(uf, c->dev, c->ino))
			uf_names_closed(uf);
		break;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += UF_HOOK_WAIT_MS / 1000;
	until.tv_nsec += (long)(UF_HOOK_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&uf->qlock);
	while (w->left && pthread_cond_timedwait(&uf->qdone, &uf->qlock, &until) == 0)
		;
	/* on a timeout the items are still sent, later */
	late = w->left != 0;
	done = --w->refs == 0;
	pthread_mutex_unlock(&uf->qlock);
	if (done)
		free(w);
	if (late)
		fprintf(stderr, "uvfs-fuse: invalidations not sent within %d ms; the mount may show the old "
			"state of a change for a moment\n", UF_HOOK_WAIT_MS);
	/* a late item is still sent, and the kernel reads the inode again
	 * only after it: the report is taken either way */
	return 1;
}

int uf_hook_install(struct uvfs_fuse *uf)
{
	unsigned mask = UVFS_CHANGE_ALL & ~UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE);

	return uvfs_add_change_listener(uf->fs, mask | UVFS_CHANGE_WRITE_FIRST, uf_change, uf, &uf->listener);
}

/* Before the notifier stops: afterwards no hook call is running. */
void uf_hook_remove(struct uvfs_fuse *uf)
{
	if (uf->hooked) {
		uvfs_remove_change_listener(uf->fs, uf->listener);
		uf->listener = NULL;
		uf->hooked = false;
	}
}

int uvfs_fuse_notify_inval_entry(struct uvfs_fuse *uf, ino_t dir_ino, const char *name)
{
	struct uf_node *n;
	int r;

	if (!uf->set_up)
		return -EINVAL;
	n = uf_node_pin(uf, uf->root->dev, dir_ino);
	if (!n)
		return 0;
	r = fuse_lowlevel_notify_inval_entry(uf->se, node_id(n), name, strlen(name));
	uf_node_unpin(uf, uf->qproc, n);
	return r == -ENOENT ? 0 : r;
}

int uvfs_fuse_notify_inval_inode(struct uvfs_fuse *uf, ino_t ino)
{
	struct uf_node *n;
	int r;

	if (!uf->set_up)
		return -EINVAL;
	n = uf_node_pin(uf, uf->root->dev, ino);
	if (!n)
		return 0;
	r = fuse_lowlevel_notify_inval_inode(uf->se, node_id(n), 0, 0);
	uf_node_unpin(uf, uf->qproc, n);
	return r == -ENOENT ? 0 : r;
}
