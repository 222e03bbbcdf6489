// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fsnotify.c - the notification core (Linux's fs/notify/fsnotify.c, mark.c,
 * group.c and notification.c): who is told about an event, marks, groups
 * and the event queue.  Locks and references: fsnotify_backend.h.
 *
 * Only the slow paths live here.  The inline hooks of fsnotify.h have
 * already seen that the object's superblock has a watched inode; even so
 * most events find no mark on the inode or its parent and return after one
 * unlocked look at each mark list.
 *
 * Who hears an event (Linux's fsnotify() and __fsnotify_parent()):
 *   - an event of a directory entry (create, delete, moved_from/to) goes to
 *     the directory's marks with the entry's name;
 *   - an event of an object reached through a dentry (open, access, modify,
 *     close, attrib) goes first to the marks of the parent directory, with
 *     the child's name and FS_EVENT_ON_CHILD (only marks that watch children
 *     take it), then to the object's own marks without a name;
 *   - an event of the inode alone (delete_self, move_self, link count,
 *     unmount) goes to its own marks.
 */
#include "fsnotify_backend.h"
#include <limits.h>

/* ---- the object lock: a striped table, so struct inode needs no lock of
 * its own for a list that is almost always empty ---- */
#define OBJ_LOCKS 64
static pthread_mutex_t obj_locks[OBJ_LOCKS] = {
#define L4 PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER
	L4, L4, L4, L4, L4, L4, L4, L4, L4, L4, L4, L4, L4, L4, L4, L4,
#undef L4
};

pthread_mutex_t *fsnotify_obj_lock(const struct inode *inode)
{
	uintptr_t k = (uintptr_t)inode;
	return &obj_locks[((k >> 6) ^ (k >> 12)) & (OBJ_LOCKS - 1)];
}

static inline bool marks_empty(const struct inode *inode)
{
	/* unlocked peek: a racing add may be missed, as in Linux */
	return __atomic_load_n(&inode->i_fsnotify_marks.next, __ATOMIC_ACQUIRE) == &inode->i_fsnotify_marks;
}

/* ---- groups ---- */

struct fsnotify_group *fsnotify_alloc_group(struct uvfs *vfs, const struct fsnotify_ops *ops,
					    unsigned long max_events)
{
	struct fsnotify_group *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->overflow_event = calloc(1, sizeof(*g->overflow_event));
	if (!g->overflow_event) {
		free(g);
		return NULL;
	}
	INIT_LIST_HEAD(&g->overflow_event->list);
	g->overflow_event->mask = FS_Q_OVERFLOW;
	g->overflow_event->wd = -1;
	g->refcnt = 1;
	g->ops = ops;
	g->vfs = vfs;
	g->max_events = max_events;
	pthread_mutex_init(&g->mark_mutex, NULL);
	pthread_mutex_init(&g->notification_lock, NULL);
	init_waitqueue_head(&g->notification_waitq);
	INIT_LIST_HEAD(&g->marks);
	INIT_LIST_HEAD(&g->notification_list);
	return g;
}

void fsnotify_get_group(struct fsnotify_group *g)
{
	__atomic_fetch_add(&g->refcnt, 1, __ATOMIC_RELAXED);
}

static void flush_events(struct fsnotify_group *g)
{
	pthread_mutex_lock(&g->notification_lock);
	while (!list_empty(&g->notification_list)) {
		struct fsnotify_event *ev = list_entry(g->notification_list.next, struct fsnotify_event, list);
		list_del_init(&ev->list);
		if (ev != g->overflow_event)
			free(ev);
	}
	g->q_len = 0;
	pthread_mutex_unlock(&g->notification_lock);
}

void fsnotify_put_group(struct fsnotify_group *g)
{
	if (__atomic_sub_fetch(&g->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	flush_events(g);
	if (g->ops->free_group_priv)
		g->ops->free_group_priv(g);
	pthread_mutex_destroy(&g->mark_mutex);
	pthread_mutex_destroy(&g->notification_lock);
	destroy_waitqueue_head(&g->notification_waitq);
	free(g->overflow_event);
	free(g);
}

void fsnotify_destroy_group(struct fsnotify_group *g)
{
	/* first: nothing more is queued, so the marks' IN_IGNORED go nowhere */
	pthread_mutex_lock(&g->notification_lock);
	g->shutdown = true;
	pthread_mutex_unlock(&g->notification_lock);
	for (;;) {
		pthread_mutex_lock(&g->mark_mutex);
		if (list_empty(&g->marks)) {
			pthread_mutex_unlock(&g->mark_mutex);
			break;
		}
		struct fsnotify_mark *m = list_entry(g->marks.next, struct fsnotify_mark, g_list);
		fsnotify_get_mark(m);
		pthread_mutex_unlock(&g->mark_mutex);
		fsnotify_destroy_mark(m);
		fsnotify_put_mark(m);
	}
	flush_events(g);
	fsnotify_put_group(g);
}

/* ---- the queue (Linux's notification.c) ---- */

int fsnotify_add_event(struct fsnotify_group *g, struct fsnotify_event *ev,
		       bool (*merge)(const struct fsnotify_event *last, const struct fsnotify_event *ev))
{
	int ret = 0;
	pthread_mutex_lock(&g->notification_lock);
	if (g->shutdown) {
		pthread_mutex_unlock(&g->notification_lock);
		return 2;
	}
	if (ev == g->overflow_event || g->q_len >= g->max_events) {
		/* full: one IN_Q_OVERFLOW ends the queue, later events are lost
		 * until a reader makes room */
		ret = 2;
		if (!list_empty(&g->overflow_event->list)) {
			pthread_mutex_unlock(&g->notification_lock);
			return ret;
		}
		ev = g->overflow_event;
	} else if (merge && !list_empty(&g->notification_list)) {
		/* only with the last queued event, as Linux's inotify_merge */
		struct fsnotify_event *last = list_entry(g->notification_list.prev, struct fsnotify_event, list);
		if (merge(last, ev)) {
			pthread_mutex_unlock(&g->notification_lock);
			return 1;
		}
	}
	g->q_len++;
	list_add_tail(&ev->list, &g->notification_list);
	pthread_mutex_unlock(&g->notification_lock);
	/* readers and pollers; one barrier and one load when nobody waits */
	wake_up_poll(&g->notification_waitq, POLLIN | POLLRDNORM);
	return ret;
}

/* ---- marks (Linux's mark.c) ---- */

struct fsnotify_mark *fsnotify_alloc_mark(struct fsnotify_group *g)
{
	struct fsnotify_mark *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->refcnt = 1;
	m->group = g;
	m->wd = -1;
	INIT_LIST_HEAD(&m->i_list);
	INIT_LIST_HEAD(&m->g_list);
	fsnotify_get_group(g);
	return m;
}

void fsnotify_get_mark(struct fsnotify_mark *m)
{
	__atomic_fetch_add(&m->refcnt, 1, __ATOMIC_RELAXED);
}

void fsnotify_put_mark(struct fsnotify_mark *m)
{
	if (__atomic_sub_fetch(&m->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	struct fsnotify_group *g = m->group;
	free(m);
	fsnotify_put_group(g);
}

void fsnotify_attach_mark_locked(struct fsnotify_mark *m, struct inode *inode)
{
	struct fsnotify_group *g = m->group;
	m->inode = ihold(inode);
	m->alive = true;
	list_add_tail(&m->g_list, &g->marks);
	pthread_mutex_t *l = fsnotify_obj_lock(inode);
	pthread_mutex_lock(l);
	if (list_empty(&inode->i_fsnotify_marks))
		__atomic_fetch_add(&inode->i_sb->s_fsnotify_watchers, 1, __ATOMIC_RELEASE);
	list_add_tail(&m->i_list, &inode->i_fsnotify_marks);
	pthread_mutex_unlock(l);
}

struct fsnotify_mark *fsnotify_find_mark_locked(struct fsnotify_group *g, struct inode *inode)
{
	struct fsnotify_mark *found = NULL;
	pthread_mutex_t *l = fsnotify_obj_lock(inode);
	pthread_mutex_lock(l);
	struct list_head *pos;
	list_for_each(pos, &inode->i_fsnotify_marks) {
		struct fsnotify_mark *m = list_entry(pos, struct fsnotify_mark, i_list);
		if (m->group == g) {
			found = m;
			break;
		}
	}
	pthread_mutex_unlock(l);
	return found;
}

/* Detach and drop the mark's attachment: rm_watch, oneshot, the inode going,
 * unmount, the group going.  Safe to call twice. */
void fsnotify_destroy_mark(struct fsnotify_mark *m)
{
	struct fsnotify_group *g = m->group;
	pthread_mutex_lock(&g->mark_mutex);
	if (!m->alive) {
		pthread_mutex_unlock(&g->mark_mutex);
		return;
	}
	struct inode *inode = m->inode;
	pthread_mutex_t *l = fsnotify_obj_lock(inode);
	pthread_mutex_lock(l);
	m->alive = false;
	list_del_init(&m->i_list);
	if (list_empty(&inode->i_fsnotify_marks))
		__atomic_fetch_sub(&inode->i_sb->s_fsnotify_watchers, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(l);
	list_del_init(&m->g_list);
	if (g->ops->freeing_mark)
		g->ops->freeing_mark(m);
	pthread_mutex_unlock(&g->mark_mutex);
	m->inode = NULL;
	iput(inode);
	fsnotify_put_mark(m);
}

/* Every mark of an inode goes (its last link went, or its superblock). */
static void destroy_inode_marks(struct inode *inode)
{
	pthread_mutex_t *l = fsnotify_obj_lock(inode);
	for (;;) {
		pthread_mutex_lock(l);
		if (list_empty(&inode->i_fsnotify_marks)) {
			pthread_mutex_unlock(l);
			return;
		}
		struct fsnotify_mark *m = list_entry(inode->i_fsnotify_marks.next, struct fsnotify_mark, i_list);
		fsnotify_get_mark(m);
		pthread_mutex_unlock(l);
		/* a mark still on the list is alive: destroying it takes it off */
		fsnotify_destroy_mark(m);
		fsnotify_put_mark(m);
	}
}

/* ---- delivery ---- */

/*
 * Tell the interested marks of one inode.  as_parent: the event is a child's
 * and only marks that watch children take it.  path_d: the dentry of a file
 * event, for IN_EXCL_UNLINK.  The marks are collected under the object lock
 * and told with no lock held, so a group may destroy a oneshot mark.
 */
static __attribute__((noinline)) void __send_to_marks(struct inode *inode, uint32_t mask, bool as_parent,
						      struct dentry *path_d, const char *name, unsigned name_len,
						      uint32_t cookie)
{
	uint32_t test = mask & ALL_FSNOTIFY_EVENTS;
	struct fsnotify_mark *stack[8], **v = stack;
	int n = 0, cap = 8;
	bool unlinked = path_d && d_unlinked(path_d);
	pthread_mutex_t *l = fsnotify_obj_lock(inode);
	pthread_mutex_lock(l);
	struct list_head *pos;
	list_for_each(pos, &inode->i_fsnotify_marks) {
		struct fsnotify_mark *m = list_entry(pos, struct fsnotify_mark, i_list);
		if (as_parent && !(m->mask & FS_EVENT_ON_CHILD))
			continue;
		if (!(m->mask & test) || (m->flags & FSN_MARK_FIRED))
			continue;
		if ((m->flags & FSN_MARK_EXCL_UNLINK) && unlinked)
			continue;
		if (n == cap) {
			struct fsnotify_mark **nv = malloc(sizeof(*nv) * (size_t)cap * 2);
			if (!nv) {
				/* the event is lost to this mark's group: say so as
				 * a failed event allocation does, with IN_Q_OVERFLOW
				 * (the queue's lock is below the object lock) */
				fsnotify_add_event(m->group, m->group->overflow_event, NULL);
				continue;
			}
			memcpy(nv, v, sizeof(*nv) * (size_t)n);
			if (v != stack)
				free(v);
			v = nv;
			cap *= 2;
		}
		uintptr_t oneshot = 0;
		if (m->flags & FSN_MARK_ONESHOT) {
			m->flags |= FSN_MARK_FIRED;
			oneshot = 1; /* remembered in the pointer's low bit */
		}
		fsnotify_get_mark(m);
		v[n++] = (struct fsnotify_mark *)((uintptr_t)m | oneshot);
	}
	pthread_mutex_unlock(l);
	for (int i = 0; i < n; i++) {
		struct fsnotify_mark *m = (struct fsnotify_mark *)((uintptr_t)v[i] & ~(uintptr_t)1);
		m->group->ops->handle_event(m, mask, name, name_len, cookie);
		if ((uintptr_t)v[i] & 1)
			fsnotify_destroy_mark(m);
		fsnotify_put_mark(m);
	}
	if (v != stack)
		free(v);
}

/* Most inodes of a watched superblock have no mark: that test is inline,
 * the collection out of line. */
static inline void send_to_marks(struct inode *inode, uint32_t mask, bool as_parent, struct dentry *path_d,
				 const char *name, unsigned name_len, uint32_t cookie)
{
	if (!marks_empty(inode))
		__send_to_marks(inode, mask, as_parent, path_d, name, name_len, cookie);
}

/* Linux's fsnotify(): inode NULL is an entry event of dir; with
 * FS_EVENT_ON_CHILD the parent dir hears it with the name, then the inode
 * without. */
static void fsnotify(uint32_t mask, struct dentry *path_d, struct inode *dir, const char *name, unsigned name_len,
		     struct inode *inode, uint32_t cookie)
{
	if (!inode) {
		send_to_marks(dir, mask, false, NULL, name, name_len, cookie);
		return;
	}
	if (mask & FS_EVENT_ON_CHILD)
		send_to_marks(dir, mask, true, path_d, name, name_len, 0);
	send_to_marks(inode, mask & ~FS_EVENT_ON_CHILD, false, path_d, NULL, 0, cookie);
}

/* Does a mark of dir watch its children for one of mask's events?  (Linux
 * reads the union of the marks' masks, i_fsnotify_mask.) */
static bool watches_children(struct inode *dir, uint32_t mask)
{
	uint32_t test = mask & FS_EVENTS_POSS_ON_CHILD;
	bool yes = false;
	pthread_mutex_t *l = fsnotify_obj_lock(dir);
	pthread_mutex_lock(l);
	struct list_head *pos;
	list_for_each(pos, &dir->i_fsnotify_marks) {
		struct fsnotify_mark *m = list_entry(pos, struct fsnotify_mark, i_list);
		if ((m->mask & FS_EVENT_ON_CHILD) && (m->mask & test)) {
			yes = true;
			break;
		}
	}
	pthread_mutex_unlock(l);
	return yes;
}

/*
 * An event of the object behind dentry d (Linux's fsnotify_parent): its
 * parent directory hears it too when it has marks.  The parent and the name
 * are taken under RCU: the parent with a reference, the name copied, as
 * Linux's dget_parent and take_dentry_name_snapshot.
 */
static void notify_parent(struct dentry *d, uint32_t mask, bool path_event)
{
	struct inode *inode = d->d_inode;
	if (!inode)
		return;
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		mask |= FS_ISDIR;
	struct dentry *parent = NULL;
	char name[NAME_MAX + 32];
	unsigned len = 0;
	if (READ_ONCE(d->d_parent) != d && !(READ_ONCE(d->d_flags) & DCACHE_DISCONNECTED)) {
		urcu_memb_read_lock();
		struct dentry *p = rcu_dereference(d->d_parent);
		struct inode *pi = READ_ONCE(p->d_inode);
		if (p != d && pi && !marks_empty(pi) && watches_children(pi, mask) && dget_not_dead(p)) {
			parent = p;
			const struct dname *n = rcu_dereference(d->d_name);
			len = n->len < NAME_MAX ? n->len : NAME_MAX;
			memcpy(name, n->name, len);
		}
		urcu_memb_read_unlock();
		/* an O_TMPFILE file has no name of its own: Linux calls it "#ino" */
		if (parent && len == 0)
			len = (unsigned)snprintf(name, sizeof(name), "#%llu", (unsigned long long)inode->i_ino);
	}
	if (parent) {
		mask |= FS_EVENT_ON_CHILD;
		fsnotify(mask, path_event ? d : NULL, parent->d_inode, name, len, inode, 0);
		dput(parent);
	} else {
		fsnotify(mask, path_event ? d : NULL, NULL, NULL, 0, inode, 0);
	}
}

void __fsnotify_file(struct file *f, uint32_t mask)
{
	/* an O_PATH file opens and closes no file (Linux gives it FMODE_NONOTIFY) */
	if (f->f_mode & FMODE_PATH)
		return;
	/* A FIFO's reads and writes are told to its own watches only: Linux
	 * 6.18 does not report them to the directory (measured by the
	 * differential suite, inotify_fifo); its open and close are. */
	if (unlikely(S_ISFIFO(READ_ONCE(f->f_inode->i_mode))) && (mask & (FS_ACCESS | FS_MODIFY))) {
		fsnotify(mask, f->f_path.dentry, NULL, NULL, 0, f->f_inode, 0);
		return;
	}
	notify_parent(f->f_path.dentry, mask, true);
}

void __fsnotify_dentry(struct dentry *d, uint32_t mask)
{
	notify_parent(d, mask, false);
}

void __fsnotify_inode(struct inode *inode, uint32_t mask)
{
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		mask |= FS_ISDIR;
	send_to_marks(inode, mask, false, NULL, NULL, 0, 0);
}

void __fsnotify_name(struct inode *dir, struct dentry *d, struct inode *inode, uint32_t mask, uint32_t cookie)
{
	/* the caller holds d and dir's lock: the name holds still */
	const struct dname *n = d->d_name;
	send_to_marks(dir, mask, false, NULL, n->name, n->len, cookie);
}

void __fsnotify_inoderemove(struct inode *inode)
{
	if (marks_empty(inode))
		return;
	__fsnotify_inode(inode, FS_DELETE_SELF);
	destroy_inode_marks(inode);
}

/* Cookies pair moved_from with moved_to; one counter for the library, as
 * Linux has one for the kernel. */
static uint32_t fsnotify_sync_cookie;

void __fsnotify_move(struct inode *old_dir, struct inode *new_dir, const char *old_name, unsigned old_len,
		     bool isdir, struct inode *target, struct dentry *moved)
{
	uint32_t cookie = __atomic_add_fetch(&fsnotify_sync_cookie, 1, __ATOMIC_RELAXED);
	uint32_t isdir_bit = isdir ? FS_ISDIR : 0;
	const struct dname *nn = moved->d_name;
	send_to_marks(old_dir, FS_MOVED_FROM | isdir_bit, false, NULL, old_name, old_len, cookie);
	send_to_marks(new_dir, FS_MOVED_TO | isdir_bit, false, NULL, nn->name, nn->len, cookie);
	if (target)
		__fsnotify_inode(target, FS_ATTRIB);
	__fsnotify_inode(moved->d_inode, FS_MOVE_SELF);
}

/* A change made outside uvfs (external.c): with inode NULL an entry event
 * of dir, else an event of inode that dir (if any) hears with the name. */
void __fsnotify_external(struct inode *dir, struct inode *inode, uint32_t mask, const char *name, unsigned len,
			 uint32_t cookie)
{
	if (!inode) {
		send_to_marks(dir, mask, false, NULL, name, len, cookie);
		return;
	}
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		mask |= FS_ISDIR;
	fsnotify(dir ? mask | FS_EVENT_ON_CHILD : mask, NULL, dir, name, len, inode, 0);
}

/* A cookie of uvfs's own series for a rename learnt from outside. */
uint32_t fsnotify_new_cookie(void)
{
	return __atomic_add_fetch(&fsnotify_sync_cookie, 1, __ATOMIC_RELAXED);
}

static bool inode_has_marks(struct inode *inode)
{
	return !marks_empty(inode);
}

/* Linux's fsnotify_unmount_inodes: each watched inode of the superblock
 * hears IN_UNMOUNT, then loses its marks.  Called before the inodes go. */
void fsnotify_sb_delete(struct super_block *sb)
{
	if (!__atomic_load_n(&sb->s_fsnotify_watchers, __ATOMIC_ACQUIRE))
		return;
	for (;;) {
		inode_sb_list_lock_all(sb);
		struct inode *found = inode_sb_list_find(sb, inode_has_marks);
		if (found)
			ihold(found);
		inode_sb_list_unlock_all(sb);
		if (!found)
			return;
		__fsnotify_inode(found, FS_UNMOUNT);
		destroy_inode_marks(found);
		iput(found);
	}
}

/* Events about the superblock's objects were lost before they reached
 * uvfs (hostfs: the host's inotify queue overflowed): every group with a
 * mark on one of its inodes reads IN_Q_OVERFLOW, once, as when its own
 * queue is full. */
void fsnotify_sb_overflow(struct super_block *sb)
{
	if (!sb || !__atomic_load_n(&sb->s_fsnotify_watchers, __ATOMIC_ACQUIRE))
		return;
	/* the watched inodes, held (a mark holds its inode, so ihold is
	 * safe), then each one's groups told with no list lock held */
	size_t n = 0, cap = 0;
	struct inode **v = NULL;
	for (;;) {
		inode_sb_list_lock_all(sb);
		n = 0;
		for (unsigned s = 0; s < COUNTER_SHARDS; s++) {
			struct list_head *pos;
			list_for_each(pos, &sb->s_inode_shards[s].inodes) {
				struct inode *inode = list_entry(pos, struct inode, i_sb_list);
				if (marks_empty(inode))
					continue;
				if (n < cap) {
					ihold(inode);
					v[n] = inode;
				}
				n++;
			}
		}
		inode_sb_list_unlock_all(sb);
		if (n <= cap)
			break;
		for (size_t i = 0; i < cap; i++)
			iput(v[i]);
		free(v);
		cap = n + 16;
		v = malloc(cap * sizeof(*v));
		if (!v)
			return;
	}
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_t *l = fsnotify_obj_lock(v[i]);
		pthread_mutex_lock(l);
		struct list_head *mp;
		list_for_each(mp, &v[i]->i_fsnotify_marks) {
			struct fsnotify_mark *m = list_entry(mp, struct fsnotify_mark, i_list);
			fsnotify_add_event(m->group, m->group->overflow_event, NULL);
		}
		pthread_mutex_unlock(l);
		iput(v[i]);
	}
	free(v);
}
