// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * change.c - the change hook (uvfs_set_change_hook): every change to the
 * tree, with the proc that made it, told to one function of the embedder.
 *
 * It rides on the notification hooks of fsnotify.h, which sit in every place
 * Linux reports a change.  Their inline test is one load of the superblock's
 * s_fsnotify_watchers; while a hook is installed every superblock of the
 * instance counts one watcher more (the "hook bias"), so each change reaches
 * the slow path, which calls __fsnotify_report() beside the delivery to
 * inotify marks.  With no hook installed nothing on the hot paths changes,
 * and the slow path (inotify watchers exist) pays one load of
 * vfs->change_hook per change.
 *
 * A change is reported under the locks that made it (the directory's
 * i_rwsem, ...), but the hook must run with none held: __fsnotify_report
 * copies it into a per-thread queue and puts a carrier on the thread's
 * task_work list, which every API call runs before it returns (RETURN), with
 * no locks held.  The carrier is a struct file of this thread that only lends
 * its f_task_work fields; it is never opened or counted.
 *
 * The hook is called under a read lock of the instance's hook (shared by all
 * threads, recursive for a hook that calls uvfs); uvfs_set_change_hook takes
 * it exclusively, so a removal returns only once no call of the old hook
 * runs.
 *
 * Bias and installation are serialised by vfs->ns_lock, the lock under
 * which superblocks join vfs->supers (fsnotify_sb_added): every superblock
 * on the list has the bias exactly while the hook is on.  Lock order:
 * hook->lock > ns_lock.
 */
#include "fsnotify.h"
#include "uvfs.h"
#include <limits.h>

struct uvfs_change_hook {
	pthread_rwlock_t lock; /* shared: a call runs; exclusive: fn changes */
	uvfs_change_fn fn;
	void *arg;
	bool on; /* the superblocks carry the bias; written under ns_lock */
};

struct change_rec {
	struct change_rec *next;
	struct uvfs *vfs;
	struct uvfs_change c;
	char names[]; /* name, then old_name, each NUL-terminated */
};

static __thread struct change_rec *pending, **pending_tail;
static __thread struct file change_work; /* the carrier on task_works */
static __thread bool change_work_queued;
static __thread unsigned in_hook; /* calls of a hook running on this thread */

static struct uvfs_change_hook *hook_get(struct uvfs *vfs, bool create)
{
	struct uvfs_change_hook *h = __atomic_load_n(&vfs->change_hook, __ATOMIC_ACQUIRE);
	if (h || !create)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	pthread_rwlock_init(&h->lock, NULL);
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
	struct uvfs_change_hook *h = hook_get(vfs, false);
	if (h && h->on)
		__atomic_fetch_add(&sb->s_fsnotify_watchers, 1, __ATOMIC_RELEASE);
}

/* hook->lock exclusive held. */
static void set_bias(struct uvfs *vfs, struct uvfs_change_hook *h, bool on)
{
	pthread_mutex_lock(&vfs->ns_lock);
	if (h->on != on) {
		struct list_head *pos;
		/* on first, so that a superblock that counts the bias finds it on */
		if (on)
			__atomic_store_n(&h->on, true, __ATOMIC_RELEASE);
		list_for_each(pos, &vfs->supers) {
			struct super_block *sb = list_entry(pos, struct super_block, s_list);
			if (on)
				__atomic_fetch_add(&sb->s_fsnotify_watchers, 1, __ATOMIC_RELEASE);
			else
				__atomic_fetch_sub(&sb->s_fsnotify_watchers, 1, __ATOMIC_RELEASE);
		}
		if (!on)
			__atomic_store_n(&h->on, false, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&vfs->ns_lock);
}

UVFS_API int uvfs_set_change_hook(struct uvfs *vfs, uvfs_change_fn fn, void *arg)
{
	API_ENTER();
	if (in_hook)
		API_RETURN(-EDEADLK);
	struct uvfs_change_hook *h = hook_get(vfs, fn != NULL);
	if (!h)
		API_RETURN(fn ? -ENOMEM : 0);
	pthread_rwlock_wrlock(&h->lock);
	if (fn && h->fn) {
		pthread_rwlock_unlock(&h->lock);
		API_RETURN(-EBUSY);
	}
	h->fn = fn;
	h->arg = fn ? arg : NULL;
	set_bias(vfs, h, fn != NULL);
	pthread_rwlock_unlock(&h->lock);
	API_RETURN(0);
}

/* uvfs_destroy: every proc is gone, so no call is running. */
void fsnotify_change_fini(struct uvfs *vfs)
{
	struct uvfs_change_hook *h = vfs->change_hook;
	if (!h)
		return;
	pthread_rwlock_destroy(&h->lock);
	free(h);
	vfs->change_hook = NULL;
}

/* The task_work of this thread's carrier: the API call is returning. */
static void deliver(struct file *unused)
{
	(void)unused;
	change_work_queued = false;
	struct change_rec *r = pending;
	pending = NULL;
	pending_tail = &pending;
	while (r) {
		struct change_rec *next = r->next;
		struct uvfs_change_hook *h = hook_get(r->vfs, false);
		pthread_rwlock_rdlock(&h->lock);
		if (h->fn) {
			in_hook++;
			h->fn(&r->c, h->arg);
			in_hook--;
		}
		pthread_rwlock_unlock(&h->lock);
		free(r);
		r = next;
	}
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
	struct uvfs_change_hook *h = __atomic_load_n(&vfs->change_hook, __ATOMIC_ACQUIRE);
	if (!h || !__atomic_load_n(&h->on, __ATOMIC_ACQUIRE))
		return; /* inotify watchers only */
	size_t room = d ? NAME_MAX + 1 : 0;
	if (old_name)
		room += old_len + 1;
	struct change_rec *r = malloc(sizeof(*r) + room);
	if (!r)
		return; /* the change is made; only its report is lost */
	memset(&r->c, 0, sizeof(r->c));
	r->next = NULL;
	r->vfs = vfs;
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
	if (!pending_tail)
		pending_tail = &pending;
	*pending_tail = r;
	pending_tail = &r->next;
	if (!change_work_queued) {
		change_work_queued = true;
		task_work_add(&change_work, deliver);
	}
}
