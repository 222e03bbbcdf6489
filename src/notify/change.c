// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * change.c - the change listeners: every change to the tree, with the proc
 * that made it, told to the functions of the embedder that asked for its
 * kind (uvfs_add_change_listener; uvfs_set_change_hook is one listener of
 * every kind).
 *
 * Each listener is an fsnotify group with its own mask, as a fanotify group
 * with a filesystem mark is in Linux: the union of the masks is stored in
 * every superblock of the instance (s_change_mask, Linux's
 * s_fsnotify_mask), which the inline hooks of fsnotify.h test beside
 * s_fsnotify_watchers, so a kind nobody listens for costs a bit test and
 * inotify's slow paths stay off while only listeners exist.
 *
 * A change is reported under the locks that made it (the directory's
 * i_rwsem, ...), but the listeners must run with none held:
 * __fsnotify_report copies it into a per-thread queue whose callback_head
 * goes on the thread's task_work list, which every API call runs before it
 * returns (API_RETURN), with no locks held.
 *
 * Listeners are called under a read lock of the instance's listener set
 * (shared by all threads, recursive for a listener that calls uvfs); adding
 * and removing take it exclusively, so a removal returns only once no call
 * of the removed listener runs.
 *
 * The mask and the superblocks are serialised by vfs->ns_lock, the lock
 * under which superblocks join vfs->supers (fsnotify_sb_added): every
 * superblock on the list has the union of the masks of the listeners
 * installed.  Lock order: set->lock > ns_lock.
 *
 * First-write listeners (fsnotify.h): a WRITE record of a write that nobody
 * took yet carries the inode (held) and the key of its proc; when every
 * first-write listener took it (returned nonzero), the key is stored in
 * i_change_seen and the proc's next writes to the inode stop at the inline
 * compare until a read or stat clears it.  The key is stored after the
 * listeners ran, so a write on another thread meanwhile is reported too.
 */
#include "fsnotify_backend.h"
#include "uvfs.h"
#include <limits.h>

#define CHANGE_KINDS_MASK                                                                                     \
	(FSN_WANT(FSN_CHANGE_CREATE) | FSN_WANT(FSN_CHANGE_LINK) | FSN_WANT(FSN_CHANGE_UNLINK) |                \
	 FSN_WANT(FSN_CHANGE_RENAME) | FSN_WANT(FSN_CHANGE_ATTR) | FSN_WANT(FSN_CHANGE_WRITE))

struct uvfs_change_listener {
	struct list_head list; /* set->listeners, under set->lock */
	struct fsnotify_group *group;
	unsigned mask; /* UVFS_CHANGE_BIT()s, UVFS_CHANGE_WRITE_FIRST */
	uvfs_change_listener_fn fn;
	uvfs_change_fn hook_fn; /* uvfs_set_change_hook's, which returns nothing */
	void *arg;
};

/* The instance's listener set (vfs->change_hook), made by the first add. */
struct uvfs_change_hook {
	pthread_rwlock_t lock; /* shared: listeners run; exclusive: the set changes */
	struct list_head listeners;
	struct uvfs_change_listener *hook; /* uvfs_set_change_hook's, on the list */
	unsigned mask;     /* the superblocks' s_change_mask; under ns_lock */
	unsigned gen;      /* the first-write generation of the last add */
};

struct change_rec {
	struct change_rec *next;
	struct uvfs *vfs;
	struct inode *first; /* a first write: held, for i_change_seen */
	unsigned long key;
	struct uvfs_change c;
	char names[]; /* name, then old_name, each NUL-terminated */
};

/* This thread's reports, waiting for its API call to return. */
struct change_queue {
	struct callback_head work;
	bool queued;
	struct change_rec *head, **tail;
};
static __thread struct change_queue change_q;
static __thread unsigned in_hook; /* calls of a listener running on this thread */

static struct uvfs_change_hook *set_get(struct uvfs *vfs, bool create)
{
	struct uvfs_change_hook *h = __atomic_load_n(&vfs->change_hook, __ATOMIC_ACQUIRE);
	if (h || !create)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	pthread_rwlock_init(&h->lock, NULL);
	INIT_LIST_HEAD(&h->listeners);
	struct uvfs_change_hook *old = NULL;
	if (!__atomic_compare_exchange_n(&vfs->change_hook, &old, h, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_rwlock_destroy(&h->lock);
		free(h);
		return old;
	}
	return h;
}

/* ns_lock held: the superblock joins vfs->supers. */
void fsnotify_sb_added(struct uvfs *vfs, struct super_block *sb)
{
	struct uvfs_change_hook *h = set_get(vfs, false);
	if (h)
		__atomic_store_n(&sb->s_change_mask, h->mask, __ATOMIC_RELAXED);
}

/* set->lock exclusive held: the union of the listeners' masks goes to every
 * superblock.  new_first: a first-write listener was added, so that every
 * inode's i_change_seen is stale from now on. */
static void publish_mask(struct uvfs *vfs, struct uvfs_change_hook *h, bool new_first)
{
	unsigned m = 0;
	struct list_head *pos;
	list_for_each(pos, &h->listeners) {
		struct uvfs_change_listener *l = list_entry(pos, struct uvfs_change_listener, list);
		m |= l->mask & CHANGE_KINDS_MASK;
		if ((l->mask & UVFS_CHANGE_WRITE_FIRST) && !(l->mask & FSN_WANT(FSN_CHANGE_WRITE)))
			m |= FSN_WANT_WRITE_FIRST;
	}
	if (new_first && ++h->gen >= 1u << (32 - FSN_GEN_SHIFT))
		h->gen = 1;
	if (m & FSN_WANT_WRITE_FIRST)
		m |= h->gen << FSN_GEN_SHIFT;
	pthread_mutex_lock(&vfs->ns_lock);
	h->mask = m;
	list_for_each(pos, &vfs->supers) {
		struct super_block *sb = list_entry(pos, struct super_block, s_list);
		__atomic_store_n(&sb->s_change_mask, m, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&vfs->ns_lock);
}

static void listener_free_priv(struct fsnotify_group *g)
{
	free(g->priv);
}

static const struct fsnotify_ops change_group_ops = {
	.free_group_priv = listener_free_priv,
};

/* set->lock exclusive held */
static int listener_add(struct uvfs *vfs, struct uvfs_change_hook *h, unsigned mask, uvfs_change_listener_fn fn,
			uvfs_change_fn hook_fn, void *arg, struct uvfs_change_listener **out)
{
	struct uvfs_change_listener *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->group = fsnotify_alloc_group(vfs, &change_group_ops, 0);
	if (!l->group) {
		free(l);
		return -ENOMEM;
	}
	l->group->priv = l;
	l->mask = mask;
	l->fn = fn;
	l->hook_fn = hook_fn;
	l->arg = arg;
	list_add_tail(&l->list, &h->listeners);
	publish_mask(vfs, h, (mask & UVFS_CHANGE_WRITE_FIRST) != 0);
	*out = l;
	return 0;
}

/* set->lock exclusive held: no call of l runs. */
static void listener_del(struct uvfs *vfs, struct uvfs_change_hook *h, struct uvfs_change_listener *l)
{
	list_del_init(&l->list);
	publish_mask(vfs, h, false);
	fsnotify_destroy_group(l->group); /* frees l */
}

static bool valid_mask(unsigned mask)
{
	if (mask & ~(CHANGE_KINDS_MASK | UVFS_CHANGE_WRITE_FIRST))
		return false;
	if ((mask & UVFS_CHANGE_WRITE_FIRST) && (mask & FSN_WANT(FSN_CHANGE_WRITE)))
		return false; /* one or the other */
	return (mask & CHANGE_KINDS_MASK) || (mask & UVFS_CHANGE_WRITE_FIRST);
}

UVFS_API int uvfs_add_change_listener(struct uvfs *vfs, unsigned mask, uvfs_change_listener_fn fn, void *arg,
				      struct uvfs_change_listener **handle)
{
	API_ENTER();
	if (in_hook)
		API_RETURN(-EDEADLK);
	if (!fn || !handle || !valid_mask(mask))
		API_RETURN(-EINVAL);
	struct uvfs_change_hook *h = set_get(vfs, true);
	if (!h)
		API_RETURN(-ENOMEM);
	pthread_rwlock_wrlock(&h->lock);
	int err = listener_add(vfs, h, mask, fn, NULL, arg, handle);
	pthread_rwlock_unlock(&h->lock);
	API_RETURN(err);
}

UVFS_API int uvfs_remove_change_listener(struct uvfs *vfs, struct uvfs_change_listener *handle)
{
	API_ENTER();
	if (in_hook)
		API_RETURN(-EDEADLK);
	struct uvfs_change_hook *h = set_get(vfs, false);
	if (!handle || !h)
		API_RETURN(-EINVAL);
	int err = -ENOENT;
	pthread_rwlock_wrlock(&h->lock);
	struct list_head *pos;
	list_for_each(pos, &h->listeners) {
		/* compared, never dereferenced before it is found: a stale
		 * handle is an error, not a use after free */
		if (list_entry(pos, struct uvfs_change_listener, list) == handle && handle != h->hook) {
			listener_del(vfs, h, handle);
			err = 0;
			break;
		}
	}
	pthread_rwlock_unlock(&h->lock);
	API_RETURN(err);
}

UVFS_API int uvfs_set_change_hook(struct uvfs *vfs, uvfs_change_fn fn, void *arg)
{
	API_ENTER();
	if (in_hook)
		API_RETURN(-EDEADLK);
	struct uvfs_change_hook *h = set_get(vfs, fn != NULL);
	if (!h)
		API_RETURN(fn ? -ENOMEM : 0);
	int err = 0;
	pthread_rwlock_wrlock(&h->lock);
	if (fn && h->hook) {
		err = -EBUSY;
	} else if (fn) {
		err = listener_add(vfs, h, CHANGE_KINDS_MASK, NULL, fn, arg, &h->hook);
	} else if (h->hook) {
		listener_del(vfs, h, h->hook);
		h->hook = NULL;
	}
	pthread_rwlock_unlock(&h->lock);
	API_RETURN(err);
}

/* uvfs_destroy: every proc is gone, so no call is running. */
void fsnotify_change_fini(struct uvfs *vfs)
{
	struct uvfs_change_hook *h = vfs->change_hook;
	if (!h)
		return;
	while (!list_empty(&h->listeners)) {
		struct uvfs_change_listener *l = list_entry(h->listeners.next, struct uvfs_change_listener, list);
		list_del_init(&l->list);
		fsnotify_destroy_group(l->group);
	}
	pthread_rwlock_destroy(&h->lock);
	free(h);
	vfs->change_hook = NULL;
}

/* set->lock shared held.  A first write: did every first-write listener
 * take it? */
static bool deliver_one(struct uvfs_change_hook *h, struct change_rec *r)
{
	bool taken = true;
	unsigned bit = FSN_WANT(r->c.kind);
	struct list_head *pos;
	list_for_each(pos, &h->listeners) {
		struct uvfs_change_listener *l = list_entry(pos, struct uvfs_change_listener, list);
		bool every = l->mask & bit;
		bool first = r->c.kind == FSN_CHANGE_WRITE && !every && (l->mask & UVFS_CHANGE_WRITE_FIRST);
		if (!every && !(first && r->first))
			continue;
		in_hook++;
		if (l->hook_fn) {
			l->hook_fn(&r->c, l->arg);
		} else {
			int took = l->fn(&r->c, l->arg);
			if (first && !took)
				taken = false;
		}
		in_hook--;
	}
	return taken;
}

/* The task_work of this thread's queue: the API call is returning. */
static void deliver(struct callback_head *work)
{
	struct change_queue *q = container_of(work, struct change_queue, work);
	q->queued = false;
	struct change_rec *r = q->head;
	q->head = NULL;
	q->tail = &q->head;
	while (r) {
		struct change_rec *next = r->next;
		struct uvfs_change_hook *h = set_get(r->vfs, false);
		pthread_rwlock_rdlock(&h->lock);
		bool taken = deliver_one(h, r);
		/* the key of the generation the write saw: a listener added
		 * since has a new one, and hears the next write */
		if (r->first && taken && (__atomic_load_n(&h->mask, __ATOMIC_RELAXED) & FSN_WANT_WRITE_FIRST))
			__atomic_store_n(&r->first->i_change_seen, r->key, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&h->lock);
		if (r->first)
			iput(r->first);
		free(r);
		r = next;
	}
}

/* A read or stat of inode begins: clear the taken writes, then a full
 * barrier on every thread, so that a writer comparing i_change_seen after
 * storing its data either sees the clear or has its data seen by this
 * read (fsnotify.h). */
void __fsnotify_observe(struct inode *inode)
{
	__atomic_store_n(&inode->i_change_seen, 0, __ATOMIC_RELAXED);
	smp_mb_heavy();
}

static unsigned attr_flags(unsigned ia_valid)
{
	unsigned f = 0;
	if (ia_valid & ATTR_MODE)
		f |= UVFS_CHANGE_MODE;
	if (ia_valid & (ATTR_UID | ATTR_GID))
		f |= UVFS_CHANGE_OWNER;
	if (ia_valid & ATTR_SIZE)
		f |= UVFS_CHANGE_SIZE;
	if (ia_valid & ATTR_ATIME)
		f |= UVFS_CHANGE_ATIME;
	if (ia_valid & ATTR_MTIME)
		f |= UVFS_CHANGE_MTIME;
	return f;
}

/* A name of dentry d, copied under RCU (a rename replaces d_name whole). */
static unsigned copy_name(const struct dentry *d, char *buf)
{
	urcu_memb_read_lock();
	const struct dname *n = rcu_dereference(d->d_name);
	unsigned len = n->len < NAME_MAX ? n->len : NAME_MAX;
	memcpy(buf, n->name, len);
	urcu_memb_read_unlock();
	buf[len] = 0;
	return len;
}

void __fsnotify_report(struct uvfs_proc *p, int kind, unsigned flags, struct inode *dir, const struct dentry *d,
		       struct inode *inode, struct inode *old_dir, const char *old_name, unsigned old_len,
		       struct inode *other)
{
	struct uvfs *vfs = inode->i_sb->s_uvfs;
	unsigned m = fsnotify_change_mask(inode->i_sb);
	bool all = m & FSN_WANT(kind), first = false;
	unsigned long key = 0;
	if (kind == FSN_CHANGE_WRITE && (m & FSN_WANT_WRITE_FIRST)) {
		key = fsnotify_seen_key(p, m);
		unsigned long seen = __atomic_load_n(&inode->i_change_seen, __ATOMIC_RELAXED);
		first = seen != key;
		/* another proc writes: its key is not ours, and ours must not
		 * hide the next write of that proc's owner either */
		if (seen && first)
			__atomic_store_n(&inode->i_change_seen, 0, __ATOMIC_RELAXED);
	}
	if (!all && !first)
		return;
	size_t room = d ? NAME_MAX + 1 : 0;
	if (old_name)
		room += old_len + 1;
	struct change_rec *r = malloc(sizeof(*r) + room);
	if (!r)
		return; /* the change is made; only its report is lost */
	memset(&r->c, 0, sizeof(r->c));
	r->next = NULL;
	r->vfs = vfs;
	r->first = first ? ihold(inode) : NULL;
	r->key = key;
	r->c.kind = kind;
	r->c.flags = kind == UVFS_CHANGE_ATTR ? attr_flags(flags) : flags;
	r->c.dev = inode->i_sb->s_dev;
	r->c.ino = inode->i_ino;
	r->c.mode = READ_ONCE(inode->i_mode);
	r->c.proc = p;
	char *s = r->names;
	if (d) {
		r->c.dir = dir->i_ino;
		r->c.name = s;
		s += copy_name(d, s) + 1;
	}
	if (old_name) {
		r->c.old_dir = old_dir->i_ino;
		r->c.old_name = s;
		memcpy(s, old_name, old_len);
		s[old_len] = 0;
	}
	if (other)
		r->c.other = other->i_ino;
	struct change_queue *q = &change_q;
	if (!q->tail)
		q->tail = &q->head;
	*q->tail = r;
	q->tail = &r->next;
	if (!q->queued) {
		q->queued = true;
		task_work_add(&q->work, deliver);
	}
}
