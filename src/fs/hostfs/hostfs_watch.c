// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_watch.c - cache=watch: names and attributes cached as with
 * cache=exclusive, and the host's inotify says when the host changed them.
 * This file reads the host's events and applies them; the operations that
 * wrap cache=exclusive's (uvfs's own changes, the checks of the walk and
 * of stat) are hostfs_watch_ops.c's.
 *
 * One host inotify fd per superblock and one watch per cached directory
 * inode (added when the inode is made, removed when it is evicted).  An
 * event about a name in a directory gives the directory a new generation,
 * a fresh value of the superblock's clock: a cached name is good while the
 * generation it was last checked against is its directory's, and is
 * checked with the host once (cache=revalidate's fstatat) when it is not.
 * An event about an object's attributes marks its inode stale, and the
 * next stat reads them from the host.  Events are passed on to uvfs's
 * inotify watchers with the host's mask and a cookie of uvfs's series.
 *
 * When events are read.  A thread blocks on the inotify fd, so that a uvfs
 * watcher asleep in read or poll wakes up and the host's queue never fills
 * while uvfs is idle; but a thread alone cannot promise that the call after
 * a host change sees it.  So the walk (d_revalidate), stat (getattr) and
 * every inotify read and poll of the instance (notify/external.c) first read
 * what is pending, under the same mutex as the thread: the kernel queues an
 * inotify event before the host call that caused it returns, so whatever
 * the host did before a uvfs call started is applied when that call looks.
 * That costs a non-blocking read(2) of the inotify fd per revalidated name
 * and per stat: cache=watch buys coherence, cache=exclusive speed.
 *
 * uvfs's own changes.  The host reports them too, and uvfs has told its
 * watchers already.  Each change uvfs makes runs with the mutex held: the
 * events pending before it are applied first, and the events read right
 * after it that name what it changed are its own and are dropped.  A host
 * change to the very same name in that instant is taken for uvfs's own
 * (inotify does not say who made a change).
 *
 * Events about objects are derived as Linux orders them: a name the host
 * removed tells its object IN_ATTRIB (not for rmdir) and, with no link
 * left, IN_DELETE_SELF and the end of its watches, before the directory's
 * IN_DELETE; a rename tells the moved object IN_MOVE_SELF after
 * IN_MOVED_TO (or after IN_MOVED_FROM when it left every watched
 * directory), and a replaced object IN_ATTRIB then IN_DELETE_SELF.  Linux
 * tells IN_DELETE_SELF when the object's last user lets go; uvfs cannot
 * see the host's users, so it tells it when the last link goes.
 *
 * Limits.  Past the host's max_user_watches (or out of memory) a directory
 * gets no watch: its names are checked with the host at every walk and its
 * objects' attributes read at every stat, as with cache=revalidate.  A
 * queue overflow (IN_Q_OVERFLOW) makes every cached name, attribute and
 * page be checked once, and every uvfs watcher of the mount reads
 * IN_Q_OVERFLOW (fsnotify_sb_overflow): the events lost are lost to it
 * too.  Only the directory a node was found in watches it: a hard link
 * changed through a name in another directory uvfs has not cached that
 * object by is not seen.  Cached file data (hostfs_pages.c) is dropped at
 * any IN_MODIFY of the file or event about its name; a host write through
 * a shared mmap makes no inotify event, so it is not seen until another
 * event about the file comes.
 *
 * Locks: watch->lock (the reads of the inotify fd and the changes uvfs
 * makes) is inner to the VFS's locks and outer to hsb->lock; events are
 * delivered with neither hsb->lock nor any VFS lock held by this file.
 */
#include "hostfs_watch.h"
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | IN_ONLYDIR)
#define NAME_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

/* ---- the watch table (hsb->lock) ---- */

static struct hnode **wd_slot(struct hostfs_watch *w, int wd)
{
	struct hnode **pp = &w->table[(unsigned)wd % WD_HASH];
	while (*pp && (*pp)->wd != wd)
		pp = &(*pp)->wd_next;
	return pp;
}

static void gen_bump_locked(struct hostfs_watch *w, struct inode *dir)
{
	if (gen_of(dir))
		__atomic_store_n(&HOSTFS_I(dir)->gen, ++w->clock, __ATOMIC_RELEASE);
}

void hostfs_watch_add_locked(struct hostfs_sb *hsb, struct hnode *hn, struct inode *inode, int fd)
{
	struct hostfs_watch *w = hsb->watch;
	char path[32];
	/* the magic link of the node's own fd names that directory only */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int wd = inotify_add_watch(w->fd, path, WATCH_MASK);
	/* ENOSPC past max_user_watches: gen 0, checked at every walk */
	if (wd < 0 || *wd_slot(w, wd))
		return;
	hn->wd = wd;
	hn->wd_next = NULL;
	*wd_slot(w, wd) = hn;
	__atomic_store_n(&HOSTFS_I(inode)->gen, ++w->clock, __ATOMIC_RELEASE);
}

void hostfs_watch_del_locked(struct hostfs_sb *hsb, struct hnode *hn)
{
	struct hostfs_watch *w = hsb->watch;
	struct hnode **pp = wd_slot(w, hn->wd);
	if (*pp == hn)
		*pp = hn->wd_next;
	/* its IN_IGNORED finds no node */
	inotify_rm_watch(w->fd, hn->wd);
	hn->wd = -1;
}

/* ---- events ---- */

static struct hnode *child_by_name(struct hnode *dir, const char *name)
{
	struct list_head *pos;
	list_for_each(pos, &dir->children) {
		struct hnode *c = list_entry(pos, struct hnode, sibling);
		if (c->name && !strcmp(c->name, name))
			return c;
	}
	return NULL;
}

static bool is_self(const struct hw_self *s, struct hnode *d, const char *name, struct hnode *child)
{
	if (!s)
		return false;
	for (int i = 0; i < 2; i++) {
		if (s->target[i] && (s->target[i] == (name ? child : d)))
			return true;
		if (name && s->dir[i] == d && s->name[i] && !strcmp(s->name[i], name))
			return true;
	}
	return false;
}

static uint32_t cookie_map(struct hostfs_watch *w, uint32_t host)
{
	for (unsigned i = 0; i < COOKIES; i++)
		if (w->cookies[i].uvfs && w->cookies[i].host == host)
			return w->cookies[i].uvfs;
	unsigned i = w->next_cookie++ % COOKIES;
	w->cookies[i].host = host;
	w->cookies[i].uvfs = fsnotify_new_cookie();
	return w->cookies[i].uvfs;
}

/* igrab: a reference on an inode not already on its way out */
static struct inode *inode_tryget(struct inode *inode)
{
	long c = inode ? __atomic_load_n(&inode->i_count, __ATOMIC_RELAXED) : 0;
	while (c > 0)
		if (__atomic_compare_exchange_n(&inode->i_count, &c, c + 1, true, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return inode;
	return NULL;
}

/* Events lost: every cached name and attribute is checked once. */
static void overflow_locked(struct hostfs_sb *hsb)
{
	for (size_t i = 0; i < hsb->hash_size; i++)
		for (struct hnode *hn = hsb->hash[i]; hn; hn = hn->hash_next)
			if (hn->inode) {
				mark_stale(hn->inode);
				hostfs_pages_invalidate(hn->inode);
				gen_bump_locked(hsb->watch, hn->inode);
				if (S_ISDIR(READ_ONCE(hn->inode->i_mode)))
					hostfs_dir_listing_invalidate(hn->inode);
			}
}

/* The links an object has now that the host removed one of its names:
 * its node's fd says, or (the fd closed, and the name gone) one fewer than
 * known; a directory has none left (hsb->lock held). */
static unsigned links_now(struct hnode *c)
{
	struct stat st;
	if (c->fd >= 0 && !fstat(c->fd, &st)) {
		hostfs_fill_inode(c->inode, &st);
		return (unsigned)st.st_nlink;
	}
	unsigned n = READ_ONCE(c->inode->i_nlink);
	n = S_ISDIR(READ_ONCE(c->inode->i_mode)) || !n ? 0 : n - 1;
	WRITE_ONCE(c->inode->i_nlink, n);
	return n;
}

/* The object a host rename moved, until its IN_MOVED_TO (or the end of the
 * events read) tells it IN_MOVE_SELF, after the directories' events as
 * Linux orders them (watch->lock held). */
static void move_self_flush(struct hostfs_watch *w)
{
	struct inode *moved = w->moved;
	if (!moved)
		return;
	w->moved = NULL;
	fsnotify_external(NULL, moved, FS_MOVE_SELF, NULL, 0, 0);
	iput(moved);
}

/* A name of the object went on the host (unlink, rmdir, a rename over it):
 * IN_ATTRIB for the link count (not for a directory's rmdir, as Linux). */
static void link_gone(struct inode *obj, bool attrib)
{
	if (attrib && fsnotify_sb_watched(obj->i_sb))
		fsnotify_external(NULL, obj, FS_ATTRIB, NULL, 0, 0);
}

/* ... and with no link left, IN_DELETE_SELF, and its watches go
 * (__fsnotify_inoderemove).  Linux tells that when the last user lets go;
 * uvfs cannot see the host's users, so it tells it now. */
static void obj_gone(struct inode *obj, unsigned links)
{
	if (!links && fsnotify_sb_watched(obj->i_sb))
		__fsnotify_inoderemove(obj);
}

/* A file the host made a name for in a watched directory may be a hard
 * link to an object uvfs has cached: its link count moved (IN_ATTRIB, as
 * Linux's link tells it before the directory's IN_CREATE).  The name is
 * looked at with fstatat relative to the directory's fd; the object's
 * inode, referenced, or NULL. */
/* The host's attributes of name in the directory watched as wd, asked with
 * fstatat relative to the directory's fd; the directory's node, with a
 * reference the caller drops (hostfs_node_unref), or NULL when the event is
 * uvfs's own, its directory is gone or the name is not there. */
static struct hnode *stat_name(struct hostfs_sb *hsb, int wd, const char *name, const struct hw_self *self,
			       struct stat *st)
{
	struct hostfs_watch *w = hsb->watch;
	pthread_mutex_lock(&hsb->lock);
	struct hnode *d = *wd_slot(w, wd);
	if (!d || !d->inode || is_self(self, d, name, NULL)) {
		pthread_mutex_unlock(&hsb->lock);
		return NULL;
	}
	d->refs++; /* the node stays while its fd is used */
	pthread_mutex_unlock(&hsb->lock);
	int fd = hostfs_fd_get(hsb, d);
	bool found = fd >= 0 && !fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW);
	if (fd >= 0)
		hostfs_fd_put(hsb, d);
	if (!found) {
		hostfs_node_unref(hsb, d);
		return NULL;
	}
	return d;
}

static struct inode *link_target(struct hostfs_sb *hsb, int wd, const char *name, const struct hw_self *self)
{
	struct stat st;
	struct hnode *d = stat_name(hsb, wd, name, self, &st);
	if (!d)
		return NULL;
	struct inode *inode = NULL;
	pthread_mutex_lock(&hsb->lock);
	struct hnode *hn = st.st_nlink > 1 ? hostfs_node_find_locked(hsb, st.st_dev, st.st_ino) : NULL;
	if (hn && hn->inode && !S_ISDIR(st.st_mode) && READ_ONCE(hn->inode->i_nlink) != st.st_nlink) {
		hostfs_fill_inode(hn->inode, &st);
		inode = inode_tryget(hn->inode);
	}
	pthread_mutex_unlock(&hsb->lock);
	hostfs_node_unref(hsb, d);
	return inode;
}

/*
 * An IN_MOVED_TO that ends no open move: the object came from outside every
 * watched directory, or its IN_MOVED_FROM was ended before the IN_MOVED_TO
 * was queued (a uvfs call drained between the two: drain()), which left its
 * node without a name.  An object uvfs has cached (found by identity) takes
 * the new name, so that the events about that name reach it, and its
 * attributes are read again.
 */
static void arrived(struct hostfs_sb *hsb, int wd, const char *name, const struct hw_self *self)
{
	struct stat st;
	struct hnode *d = stat_name(hsb, wd, name, self, &st);
	if (!d)
		return;
	pthread_mutex_lock(&hsb->lock);
	struct hnode *hn = hostfs_node_find_locked(hsb, st.st_dev, st.st_ino);
	if (hn && hn->inode) {
		hostfs_node_found_locked(hsb, hn, d, name);
		mark_stale(hn->inode);
		hostfs_pages_invalidate(hn->inode);
	}
	pthread_mutex_unlock(&hsb->lock);
	hostfs_node_unref(hsb, d);
}

/* A name the host removed (or renamed over) in d was not the one uvfs knows
 * an object by: it may have been another link of an object found in d,
 * whose link count then moved.  Such objects (more than one link) are
 * asked with fstat of their fd, or marked stale when the LRU closed it;
 * those that lost a link are returned, referenced (hsb->lock held). */
#define ALIASES 8
static int aliases_locked(struct hnode *d, struct inode **out)
{
	int n = 0;
	struct list_head *pos;
	list_for_each(pos, &d->children) {
		struct hnode *ch = list_entry(pos, struct hnode, sibling);
		struct inode *ci = ch->inode;
		if (!ci || S_ISDIR(READ_ONCE(ci->i_mode)) || READ_ONCE(ci->i_nlink) < 2)
			continue;
		struct stat st;
		if (ch->fd < 0 || n == ALIASES || fstat(ch->fd, &st)) {
			mark_stale(ci);
			continue;
		}
		if ((unsigned)st.st_nlink == READ_ONCE(ci->i_nlink))
			continue;
		hostfs_fill_inode(ci, &st);
		if ((out[n] = inode_tryget(ci)))
			n++;
	}
	return n;
}

static void apply_event(struct hostfs_sb *hsb, const struct inotify_event *ev, const struct hw_self *self)
{
	struct hostfs_watch *w = hsb->watch;
	struct inode *dir = NULL, *inode = NULL, *gone = NULL, *moved = NULL;
	const char *name = ev->len && ev->name[0] ? ev->name : NULL;
	uint32_t mask = ev->mask & (NAME_EVENTS | IN_MODIFY | IN_ATTRIB);
	uint32_t cookie = 0;
	unsigned links = 1;
	bool entry = false, overflow = false, gone_attrib = false;
	struct inode *alias[ALIASES];
	int nalias = 0;
	bool arrives = (ev->mask & IN_MOVED_TO) && name && !(w->moved && w->moved_cookie == ev->cookie);
	/* a host link(2): the object's IN_ATTRIB comes first */
	struct inode *linked = (ev->mask & IN_CREATE) && !(ev->mask & IN_ISDIR) && name
				       ? link_target(hsb, ev->wd, name, self)
				       : NULL;
	pthread_mutex_lock(&hsb->lock);
	if (ev->mask & IN_Q_OVERFLOW) {
		overflow_locked(hsb);
		overflow = true;
		goto out;
	}
	struct hnode *d = *wd_slot(w, ev->wd);
	if (!d || !d->inode)
		goto out;
	if (ev->mask & IN_IGNORED) {
		/* the host directory went (or its filesystem): no watch now */
		*wd_slot(w, ev->wd) = d->wd_next;
		d->wd = -1;
		__atomic_store_n(&HOSTFS_I(d->inode)->gen, 0, __ATOMIC_RELEASE);
		hostfs_dir_listing_invalidate(d->inode);
		/* nothing tells of its files' data now */
		struct list_head *pos;
		list_for_each(pos, &d->children) {
			struct hnode *ch = list_entry(pos, struct hnode, sibling);
			if (ch->inode)
				hostfs_pages_invalidate(ch->inode);
		}
		goto out;
	}
	struct hnode *c = name ? child_by_name(d, name) : NULL;
	/* the data may have changed, or is no longer watched by this name:
	 * uvfs's own writes too (a host write in the same instant would be
	 * taken for uvfs's, and cached bytes must never be wrong) */
	if (c && c->inode && (ev->mask & (IN_MODIFY | NAME_EVENTS)))
		hostfs_pages_invalidate(c->inode);
	if (!mask || is_self(self, d, name, c))
		goto out;
	if (!name) {
		/* the directory's own attributes; watchers hear it through its
		 * parent's watch, but for the mount's root, which has none */
		mark_stale(d->inode);
		if (d == hsb->root)
			inode = inode_tryget(d->inode);
	} else if (mask & NAME_EVENTS) {
		/* a name came or went: each name cached in d is checked once,
		 * and the object known by it (if cached) no longer is */
		gen_bump_locked(w, d->inode);
		mark_stale(d->inode);
		hostfs_dir_listing_invalidate(d->inode);
		if (c) {
			free(c->name);
			c->name = NULL;
			if (c->inode) {
				mark_stale(c->inode);
				if (mask & IN_MOVED_FROM) {
					/* told IN_MOVE_SELF after its IN_MOVED_TO */
					moved = inode_tryget(c->inode);
				} else if (mask & (IN_DELETE | IN_MOVED_TO)) {
					/* removed, or replaced by a rename */
					gone = inode_tryget(c->inode);
					gone_attrib = !(mask & IN_DELETE) || !S_ISDIR(READ_ONCE(c->inode->i_mode));
					links = links_now(c);
				}
			}
		} else if ((mask & (IN_DELETE | IN_MOVED_TO)) && !(ev->mask & IN_ISDIR)) {
			nalias = aliases_locked(d, alias);
		}
		if (mask & (IN_MOVED_FROM | IN_MOVED_TO))
			cookie = cookie_map(w, ev->cookie);
		dir = inode_tryget(d->inode);
		entry = true;
		mask |= ev->mask & IN_ISDIR;
	} else {
		if (c && c->inode) {
			mark_stale(c->inode);
			inode = inode_tryget(c->inode);
		}
		dir = inode_tryget(d->inode);
		if (!inode)
			mask |= ev->mask & IN_ISDIR;
	}
out:
	pthread_mutex_unlock(&hsb->lock);
	if (overflow) {
		/* the events lost are lost to uvfs's watchers too */
		move_self_flush(w);
		fsnotify_sb_overflow(w->sb);
		iput(linked);
		return;
	}
	unsigned len = name ? (unsigned)strlen(name) : 0;
	/* a rename whose IN_MOVED_TO did not come next */
	if (w->moved && !((mask & IN_MOVED_TO) && ev->cookie == w->moved_cookie))
		move_self_flush(w);
	/* Linux's order: unlink tells the object (attrib, delete_self) before
	 * the directory; a rename tells moved_from, moved_to, the replaced
	 * object's attrib, the moved object's move_self, then (at the end of
	 * the call) the replaced object's delete_self */
	if (linked)
		link_gone(linked, true);
	for (int i = 0; i < nalias && (mask & IN_DELETE); i++)
		link_gone(alias[i], true);
	if (gone && (mask & IN_DELETE)) {
		link_gone(gone, gone_attrib);
		obj_gone(gone, links);
	}
	if (inode && !entry)
		fsnotify_external(dir, inode, mask, name, len, 0);
	else if (dir)
		fsnotify_external(dir, NULL, mask, name, len, cookie);
	if (gone && !(mask & IN_DELETE))
		link_gone(gone, gone_attrib);
	for (int i = 0; i < nalias && !(mask & IN_DELETE); i++)
		link_gone(alias[i], true);
	if (moved) {
		w->moved = moved;
		w->moved_cookie = ev->cookie;
	} else if (mask & IN_MOVED_TO) {
		/* the moved object is known by its new name from now on, so
		 * that its next events (a rename, a removal) find it */
		if (w->moved && dir && w->moved_cookie == ev->cookie)
			hostfs_node_found(hsb, HN(w->moved), HN(dir), name);
		move_self_flush(w);
	}
	if (gone && !(mask & IN_DELETE))
		obj_gone(gone, links);
	/* after the replaced object went: the moved one takes its name */
	if (arrives)
		arrived(hsb, ev->wd, name, self);
	for (int i = 0; i < nalias; i++)
		iput(alias[i]);
	iput(linked);
	iput(gone);
	iput(inode);
	iput(dir);
}

/*
 * Reads and applies what the host queued.  A rename's IN_MOVED_FROM and
 * IN_MOVED_TO are queued one after the other, not at once: a read between
 * them gets the first alone.  A drain made by a uvfs call ends a move left
 * without its IN_MOVED_TO (ends_moves): a host rename finished before the
 * call started has both queued, so the object left every watched
 * directory.  The thread's drain, woken by the IN_MOVED_FROM itself, may
 * have read it before the IN_MOVED_TO was queued: it leaves the move for
 * the next drain, which reads the IN_MOVED_TO or ends the move (CI run 38:
 * the thread's read ended with the IN_MOVED_FROM, and IN_MOVE_SELF was told
 * before the IN_MOVED_TO).  A uvfs call that drains while a host rename is
 * between its two events can still tell them in that wrong order.
 */
static void drain(struct hostfs_sb *hsb, const struct hw_self *self, bool ends_moves)
{
	struct hostfs_watch *w = hsb->watch;
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);
			apply_event(hsb, ev, self);
			off += (ssize_t)(sizeof(*ev) + ev->len);
		}
		/* the next event would have fitted: the queue was empty */
		if ((size_t)n + sizeof(struct inotify_event) + NAME_MAX + 1 <= sizeof(buf))
			break;
	}
	if (ends_moves)
		move_self_flush(w);
}

void hostfs_watch_drain_locked(struct hostfs_sb *hsb, const struct hw_self *self)
{
	drain(hsb, self, true);
}

void hostfs_watch_sync(struct hostfs_sb *hsb)
{
	struct hostfs_watch *w = hsb->watch;
	pthread_mutex_lock(&w->lock);
	drain(hsb, NULL, true);
	pthread_mutex_unlock(&w->lock);
}

static void source_sync(struct fsnotify_source *s)
{
	struct hostfs_watch *w = container_of(s, struct hostfs_watch, source);
	hostfs_watch_sync(HOSTFS_SB(w->sb));
}

static void *watch_thread(void *arg)
{
	struct hostfs_watch *w = arg;
	task_enter(); /* an RCU reader: an iput here may evict */
	struct pollfd pf[2] = { { .fd = w->fd, .events = POLLIN }, { .fd = w->stop_fd, .events = POLLIN } };
	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		if (pf[0].revents & POLLIN) {
			pthread_mutex_lock(&w->lock);
			drain(HOSTFS_SB(w->sb), NULL, false);
			pthread_mutex_unlock(&w->lock);
		}
	}
	return NULL;
}

/* ---- the superblock's ---- */

int hostfs_watch_init(struct super_block *sb)
{
	struct hostfs_sb *hsb = HOSTFS_SB(sb);
	struct hostfs_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->stop_fd = -1;
	/* EMFILE past the host's max_user_instances */
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		int err = -errno;
		free(w);
		return err;
	}
	pthread_mutex_init(&w->lock, NULL);
	w->sb = sb;
	hsb->watch = w;
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0)
		return -errno;
	int err = pthread_create(&w->thread, NULL, watch_thread, w);
	if (err)
		return -err;
	w->thread_started = true;
	w->source.vfs = sb->s_uvfs;
	w->source.sync = source_sync;
	fsnotify_source_add(&w->source);
	w->source_added = true;
	return 0;
}

/* The last mount went: no uvfs call reaches the superblock any more, and
 * once this returns neither does the thread, before the inodes go. */
void hostfs_watch_shutdown(struct super_block *sb)
{
	struct hostfs_watch *w = HOSTFS_SB(sb)->watch;
	if (!w)
		return;
	if (w->source_added) {
		fsnotify_source_del(&w->source);
		w->source_added = false;
	}
	if (w->thread_started) {
		uint64_t one = 1;
		while (write(w->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(w->thread, NULL);
		w->thread_started = false;
	}
	/* a move the thread left open holds its inode */
	pthread_mutex_lock(&w->lock);
	move_self_flush(w);
	pthread_mutex_unlock(&w->lock);
}

void hostfs_watch_fini(struct hostfs_sb *hsb)
{
	struct hostfs_watch *w = hsb->watch;
	if (!w)
		return;
	close(w->fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
	hsb->watch = NULL;
}
