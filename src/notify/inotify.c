// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * inotify.c - the inotify API over fsnotify (Linux's fs/notify/inotify/):
 * instances are groups, watches are marks, watch descriptors are handed out
 * cyclically from 1 as Linux's idr_alloc_cyclic does.
 *
 * An instance is a pseudo file (alloc_file_pseudo, FMODE_NONOTIFY) on an
 * internal anon_inodefs of the uvfs instance, sharing one inode as Linux's
 * anon_inode_getfd does.  The limits are per uid of the uvfs instance
 * (Linux's ucounts): inotify_max_user_instances (EMFILE) and
 * inotify_max_user_watches (ENOSPC), and per inotify instance
 * inotify_max_queued_events.
 */
#include "fsnotify_backend.h"
#include <limits.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>

#define ANON_INODE_FS_MAGIC_ 0x09041934

#define DEFAULT_MAX_QUEUED 16384
#define DEFAULT_MAX_WATCHES 8192
#define DEFAULT_MAX_INSTANCES 128

/* Linux's ALL_INOTIFY_BITS: every bit inotify_add_watch accepts. */
#define ALL_INOTIFY_BITS                                                                                      \
	(IN_ALL_EVENTS | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK |   \
	 IN_MASK_ADD | IN_MASK_CREATE | IN_ISDIR | IN_ONESHOT)

/* Per uid counts (Linux's ucounts of UCOUNT_INOTIFY_*). */
struct inotify_ucount {
	uid_t uid;
	unsigned long instances, watches;
	struct inotify_ucount *next;
};

/* What an uvfs instance keeps for inotify; made by the first inotify_init1. */
struct uvfs_notify {
	pthread_mutex_t lock; /* ucounts */
	struct inotify_ucount *ucounts;
	struct super_block *anon_sb;
	struct inode *anon_inode;
	unsigned long max_queued, max_watches, max_instances;
};

static const struct file_operations inotify_fops;

/* ---- anon_inodefs ---- */

static struct inode *anon_alloc_inode(struct super_block *sb)
{
	return calloc(1, sizeof(struct inode));
}

static void anon_destroy_inode(struct inode *inode)
{
	free(inode);
}

static const struct inode_operations anon_iops = { 0 };

/* anon_inodefs's simple_statfs: its magic, a page, the longest name */
static int anon_statfs(struct super_block *sb, struct statfs *buf)
{
	(void)sb;
	memset(buf, 0, sizeof(*buf));
	buf->f_type = ANON_INODE_FS_MAGIC_;
	buf->f_bsize = 4096;
	buf->f_namelen = 255;
	return 0;
}

static const struct super_operations anon_sops = {
	.alloc_inode = anon_alloc_inode,
	.destroy_inode = anon_destroy_inode,
	.statfs = anon_statfs,
};

static void notify_free(struct uvfs_notify *n)
{
	/* The superblock's own reference on its shared inode goes first, so
	 * that teardown finds no reference left (its lifetime check); the
	 * inode's RCU-deferred free needs no superblock (it carries i_sop). */
	if (n->anon_inode)
		iput(n->anon_inode);
	if (n->anon_sb)
		deactivate_super(n->anon_sb);
	while (n->ucounts) {
		struct inotify_ucount *u = n->ucounts;
		n->ucounts = u->next;
		free(u);
	}
	pthread_mutex_destroy(&n->lock);
	free(n);
}

static unsigned long opt_or(unsigned long v, unsigned long def) { return v ? v : def; }

static struct uvfs_notify *notify_get(struct uvfs *vfs)
{
	struct uvfs_notify *n = __atomic_load_n(&vfs->notify, __ATOMIC_ACQUIRE);
	if (likely(n))
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	pthread_mutex_init(&n->lock, NULL);
	n->max_queued = opt_or(vfs->opts.inotify_max_queued_events, DEFAULT_MAX_QUEUED);
	n->max_watches = opt_or(vfs->opts.inotify_max_user_watches, DEFAULT_MAX_WATCHES);
	n->max_instances = opt_or(vfs->opts.inotify_max_user_instances, DEFAULT_MAX_INSTANCES);
	n->anon_sb = sget(vfs, &anon_sops, ANON_INODE_FS_MAGIC_);
	if (n->anon_sb) {
		n->anon_sb->s_flags |= SB_KERNMOUNT | SB_PSEUDO;
		n->anon_inode = new_inode(n->anon_sb);
	}
	if (!n->anon_inode) {
		notify_free(n);
		return NULL;
	}
	/* Linux's alloc_anon_inode: rw for the owner, no file type */
	n->anon_inode->i_mode = S_IRUSR | S_IWUSR;
	n->anon_inode->i_op = &anon_iops;
	/* Linux's anon_inode_setattr: the shared inode's attributes never change */
	inode_flags_set(n->anon_inode, S_NONOTIFY_INODE | S_NOATTR | S_PRIVATE);
	struct uvfs_notify *old = NULL;
	if (!__atomic_compare_exchange_n(&vfs->notify, &old, n, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		notify_free(n);
		return old;
	}
	return n;
}

/* Linux's anon_inode_getfile: a file on the instance's anon_inodefs, on the
 * inode every anonymous file shares (epoll's as well as inotify's). */
struct file *anon_inode_getfile(struct uvfs *vfs, const struct file_operations *fops, void *priv, int flags)
{
	struct uvfs_notify *n = notify_get(vfs);
	if (!n)
		return NULL;
	struct file *f = alloc_file_pseudo(vfs, n->anon_sb, ihold(n->anon_inode), flags, fops);
	if (!f) {
		iput(n->anon_inode);
		return NULL;
	}
	f->private_data = priv;
	return f;
}

void fsnotify_instance_fini(struct uvfs *vfs)
{
	if (vfs->notify) {
		notify_free(vfs->notify);
		vfs->notify = NULL;
	}
}

static struct inotify_ucount *ucount_find(struct uvfs_notify *n, uid_t uid, bool create)
{
	for (struct inotify_ucount *u = n->ucounts; u; u = u->next)
		if (u->uid == uid)
			return u;
	if (!create)
		return NULL;
	struct inotify_ucount *u = calloc(1, sizeof(*u));
	if (u) {
		u->uid = uid;
		u->next = n->ucounts;
		n->ucounts = u;
	}
	return u;
}

/* Linux's inc_ucount: 0, or over past the limit.  ENOMEM when the uid's
 * first count cannot be allocated: Linux's counts live with the user's
 * credentials and are there already, so it has no such case to copy. */
static int ucount_inc(struct uvfs_notify *n, uid_t uid, bool watch, int over)
{
	int ret = -ENOMEM;
	pthread_mutex_lock(&n->lock);
	struct inotify_ucount *u = ucount_find(n, uid, true);
	if (u) {
		unsigned long *c = watch ? &u->watches : &u->instances;
		unsigned long max = watch ? n->max_watches : n->max_instances;
		ret = over;
		if (*c < max) {
			(*c)++;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&n->lock);
	return ret;
}

static void ucount_dec(struct uvfs_notify *n, uid_t uid, bool watch)
{
	pthread_mutex_lock(&n->lock);
	struct inotify_ucount *u = ucount_find(n, uid, false);
	if (u)
		(*(watch ? &u->watches : &u->instances))--;
	pthread_mutex_unlock(&n->lock);
}

/* ---- the wd table (Linux's idr), under the group's mark_mutex ---- */

static inline unsigned wd_bucket(int wd) { return (unsigned)wd & (INOTIFY_WD_HASH - 1); }

static struct fsnotify_mark *wd_find(struct fsnotify_group *g, int wd)
{
	for (struct fsnotify_mark *m = g->wd_hash[wd_bucket(wd)]; m; m = m->wd_next)
		if (m->wd == wd)
			return m;
	return NULL;
}

/* The next free wd after the last one handed out, wrapping to 1. */
static int wd_alloc(struct fsnotify_group *g, struct fsnotify_mark *m)
{
	int wd = g->last_wd;
	do {
		wd = wd == INT_MAX ? 1 : wd + 1;
	} while (wd_find(g, wd));
	g->last_wd = wd;
	m->wd = wd;
	m->wd_next = g->wd_hash[wd_bucket(wd)];
	g->wd_hash[wd_bucket(wd)] = m;
	return wd;
}

static void wd_remove(struct fsnotify_group *g, struct fsnotify_mark *m)
{
	for (struct fsnotify_mark **pp = &g->wd_hash[wd_bucket(m->wd)]; *pp; pp = &(*pp)->wd_next) {
		if (*pp == m) {
			*pp = m->wd_next;
			m->wd_next = NULL;
			return;
		}
	}
}

/* ---- the group's operations ---- */

/* Linux's inotify_merge/event_compare: the same mask, wd and name as the
 * last queued event, unless that one is IN_IGNORED. */
static bool inotify_merge(const struct fsnotify_event *last, const struct fsnotify_event *ev)
{
	if (last->mask & FS_IN_IGNORED)
		return false;
	return last->mask == ev->mask && last->wd == ev->wd && last->name_len == ev->name_len &&
	       (!last->name_len || !memcmp(last->name, ev->name, ev->name_len));
}

static void inotify_handle_event(struct fsnotify_mark *m, uint32_t mask, const char *name, unsigned name_len,
				 uint32_t cookie)
{
	/* inotify never reported IN_ISDIR with these two; Linux keeps it so */
	if (mask & (FS_MOVE_SELF | FS_DELETE_SELF))
		mask &= ~FS_ISDIR;
	if (!name)
		name_len = 0;
	struct fsnotify_event *ev = malloc(sizeof(*ev) + name_len + 1);
	if (!ev) {
		/* as Linux: a lost event is reported as an overflow */
		fsnotify_add_event(m->group, m->group->overflow_event, NULL);
		return;
	}
	INIT_LIST_HEAD(&ev->list);
	ev->mask = mask;
	ev->wd = m->wd;
	ev->cookie = cookie;
	ev->name_len = name_len;
	if (name_len)
		memcpy(ev->name, name, name_len);
	ev->name[name_len] = 0;
	if (fsnotify_add_event(m->group, ev, inotify_merge))
		free(ev);
}

/* The watch went: IN_IGNORED, its wd is free, its uid has one watch less. */
static void inotify_freeing_mark(struct fsnotify_mark *m)
{
	inotify_handle_event(m, FS_IN_IGNORED, NULL, 0, 0);
	struct fsnotify_group *g = m->group;
	wd_remove(g, m);
	ucount_dec(g->priv, g->uid, true);
}

static const struct fsnotify_ops inotify_ops = {
	.handle_event = inotify_handle_event,
	.freeing_mark = inotify_freeing_mark,
};

/* ---- the file ---- */

/* A named event takes its name plus at least one NUL, rounded up to the
 * size of the header (Linux's round_event_name_len). */
static size_t event_size(const struct fsnotify_event *ev)
{
	size_t n = sizeof(struct inotify_event);
	if (ev->name_len)
		n += (ev->name_len + 1 + sizeof(struct inotify_event) - 1) / sizeof(struct inotify_event) *
		     sizeof(struct inotify_event);
	return n;
}

/* Linux's get_one_event: the first event if it fits in count, -EINVAL if
 * not, NULL if the queue is empty.  notification_lock held. */
static struct fsnotify_event *get_one_event(struct fsnotify_group *g, size_t count, long *err)
{
	if (list_empty(&g->notification_list))
		return NULL;
	struct fsnotify_event *ev = list_entry(g->notification_list.next, struct fsnotify_event, list);
	if (event_size(ev) > count) {
		*err = -EINVAL;
		return NULL;
	}
	list_del_init(&ev->list);
	g->q_len--;
	return ev;
}

static size_t copy_event(const struct fsnotify_event *ev, char *buf)
{
	struct inotify_event ie = {
		.wd = ev->wd,
		/* inotify_mask_to_arg: the internal bits stay inside */
		.mask = ev->mask & (IN_ALL_EVENTS | IN_ISDIR | IN_UNMOUNT | IN_IGNORED | IN_Q_OVERFLOW),
		.cookie = ev->cookie,
	};
	size_t total = event_size(ev);
	ie.len = (uint32_t)(total - sizeof(ie));
	memcpy(buf, &ie, sizeof(ie));
	if (ie.len) {
		memcpy(buf + sizeof(ie), ev->name, ev->name_len);
		memset(buf + sizeof(ie) + ev->name_len, 0, ie.len - ev->name_len);
	}
	return total;
}

static void free_event(struct fsnotify_group *g, struct fsnotify_event *ev)
{
	if (ev != g->overflow_event)
		free(ev);
}

/*
 * Linux's inotify_read: as many whole events as fit; EINVAL if the first
 * does not fit; with none queued, EAGAIN (O_NONBLOCK) or sleep until one is.
 */
static ssize_t inotify_read(struct file *f, void *ubuf, size_t count, loff_t *pos)
{
	struct fsnotify_group *g = f->private_data;
	fsnotify_sources_sync(g->vfs);
	char *buf = ubuf, *start = ubuf;
	long ret = 0;
	DEFINE_WAIT(w);
	for (;;) {
		pthread_mutex_lock(&g->notification_lock);
		struct fsnotify_event *ev = get_one_event(g, count, &ret);
		if (ev) {
			size_t n = copy_event(ev, buf);
			pthread_mutex_unlock(&g->notification_lock);
			free_event(g, ev);
			buf += n;
			count -= n;
			continue;
		}
		if (ret) { /* -EINVAL */
			pthread_mutex_unlock(&g->notification_lock);
			break;
		}
		if (buf != start) {
			pthread_mutex_unlock(&g->notification_lock);
			break;
		}
		if (READ_ONCE(f->f_flags) & O_NONBLOCK) {
			pthread_mutex_unlock(&g->notification_lock);
			ret = -EAGAIN;
			break;
		}
		/* queued while the queue is known empty: an event queued after
		 * the unlock wakes us */
		prepare_to_wait(&g->notification_waitq, &w);
		pthread_mutex_unlock(&g->notification_lock);
		wait_woken(&w, NULL);
	}
	finish_wait(&g->notification_waitq, &w);
	if (buf != start)
		return buf - start;
	return ret;
}

static unsigned inotify_poll(struct file *f, struct poll_table *pt)
{
	struct fsnotify_group *g = f->private_data;
	fsnotify_sources_sync(g->vfs);
	poll_wait(f, &g->notification_waitq, pt);
	pthread_mutex_lock(&g->notification_lock);
	unsigned mask = list_empty(&g->notification_list) ? 0 : POLLIN | POLLRDNORM;
	pthread_mutex_unlock(&g->notification_lock);
	return mask;
}

/* FIONREAD: the bytes a reader would get for every queued event. */
static long inotify_ioctl(struct file *f, unsigned long req, void *arg)
{
	struct fsnotify_group *g = f->private_data;
	if (req != FIONREAD)
		return -ENOTTY;
	if (!arg)
		return -EFAULT;
	fsnotify_sources_sync(g->vfs);
	size_t n = 0;
	pthread_mutex_lock(&g->notification_lock);
	struct list_head *pos;
	list_for_each(pos, &g->notification_list)
		n += event_size(list_entry(pos, struct fsnotify_event, list));
	pthread_mutex_unlock(&g->notification_lock);
	*(int *)arg = (int)n;
	return 0;
}

static void inotify_release(struct inode *inode, struct file *f)
{
	struct fsnotify_group *g = f->private_data;
	struct uvfs_notify *n = g->priv;
	uid_t uid = g->uid;
	fsnotify_destroy_group(g);
	ucount_dec(n, uid, false);
}

static const struct file_operations inotify_fops = {
	.read = inotify_read,
	.llseek = noop_llseek,
	.release = inotify_release,
	.poll = inotify_poll,
	.unlocked_ioctl = inotify_ioctl,
};

/* ---- the system calls ---- */

UVFS_API int uvfs_inotify_init1(struct uvfs_proc *p, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		API_RETURN(-EINVAL);
	struct uvfs_notify *n = notify_get(p->vfs);
	if (!n)
		API_RETURN(-ENOMEM);
	uid_t uid = current_cred()->fsuid;
	/* Linux's inotify_new_group: the instance is charged before the fd */
	int err = ucount_inc(n, uid, false, -EMFILE);
	if (err)
		API_RETURN(err);
	struct fsnotify_group *g = fsnotify_alloc_group(p->vfs, &inotify_ops, n->max_queued);
	if (!g) {
		ucount_dec(n, uid, false);
		API_RETURN(-ENOMEM);
	}
	g->uid = uid;
	g->priv = n;
	int fd = get_unused_fd_flags(p, flags & IN_CLOEXEC ? O_CLOEXEC : 0);
	if (fd < 0) {
		fsnotify_destroy_group(g);
		ucount_dec(n, uid, false);
		API_RETURN(fd);
	}
	struct file *f = alloc_file_pseudo(p->vfs, n->anon_sb, ihold(n->anon_inode), O_RDONLY | (flags & IN_NONBLOCK),
					   &inotify_fops);
	if (!f) {
		iput(n->anon_inode);
		put_unused_fd(p, fd);
		fsnotify_destroy_group(g);
		ucount_dec(n, uid, false);
		API_RETURN(alloc_file_errno(p->vfs));
	}
	f->private_data = g;
	fd_install(p, fd, f);
	API_RETURN(fd);
}

/* Linux's inotify_arg_to_mask and inotify_arg_to_flags. */
static uint32_t arg_to_mask(const struct inode *inode, uint32_t arg)
{
	/* every watch hears its unmount; directories hear their children */
	uint32_t mask = FS_UNMOUNT;
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		mask |= FS_EVENT_ON_CHILD;
	return mask | (arg & IN_ALL_EVENTS);
}

static unsigned arg_to_flags(uint32_t arg)
{
	return (arg & IN_EXCL_UNLINK ? FSN_MARK_EXCL_UNLINK : 0) | (arg & IN_ONESHOT ? FSN_MARK_ONESHOT : 0);
}

/* Linux's inotify_update_watch: update the group's mark of the inode, or
 * make one. */
static int inotify_update_watch(struct fsnotify_group *g, struct inode *inode, uint32_t arg)
{
	int ret;
	pthread_mutex_lock(&g->mark_mutex);
	struct fsnotify_mark *m = fsnotify_find_mark_locked(g, inode);
	if (m) {
		if (arg & IN_MASK_CREATE) {
			ret = -EEXIST;
		} else {
			pthread_mutex_t *l = fsnotify_obj_lock(inode);
			pthread_mutex_lock(l);
			if (!(arg & IN_MASK_ADD)) {
				m->mask = 0;
				m->flags &= ~(FSN_MARK_EXCL_UNLINK | FSN_MARK_ONESHOT);
			}
			m->mask |= arg_to_mask(inode, arg);
			m->flags |= arg_to_flags(arg);
			pthread_mutex_unlock(l);
			ret = m->wd;
		}
		pthread_mutex_unlock(&g->mark_mutex);
		return ret;
	}
	m = fsnotify_alloc_mark(g);
	if (!m) {
		pthread_mutex_unlock(&g->mark_mutex);
		return -ENOMEM;
	}
	m->mask = arg_to_mask(inode, arg);
	m->flags = arg_to_flags(arg);
	/* as Linux: the wd is taken before the watch is charged, so a refused
	 * watch still moves the cyclic allocator on */
	wd_alloc(g, m);
	int err = ucount_inc(g->priv, g->uid, true, -ENOSPC);
	if (err) {
		wd_remove(g, m);
		pthread_mutex_unlock(&g->mark_mutex);
		fsnotify_put_mark(m);
		return err;
	}
	fsnotify_attach_mark_locked(m, inode);
	ret = m->wd;
	pthread_mutex_unlock(&g->mark_mutex);
	return ret;
}

UVFS_API int uvfs_inotify_add_watch(struct uvfs_proc *p, int fd, const char *pathname, uint32_t mask)
{
	API_ENTER_PROC(p);
	if (mask & ~(uint32_t)ALL_INOTIFY_BITS)
		API_RETURN(-EINVAL);
	if (!(mask & ALL_INOTIFY_BITS))
		API_RETURN(-EINVAL);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err;
	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE)) {
		err = -EINVAL;
		goto out;
	}
	if (f->f_op != &inotify_fops) {
		err = -EINVAL;
		goto out;
	}
	unsigned lf = 0;
	if (!(mask & IN_DONT_FOLLOW))
		lf |= LOOKUP_FOLLOW;
	if (mask & IN_ONLYDIR)
		lf |= LOOKUP_DIRECTORY;
	struct filename name;
	err = getname(pathname, &name, 0);
	if (err)
		goto out;
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, lf, &path);
	if (err)
		goto out;
	/* only what the caller may read can be watched */
	struct inode *inode = path.dentry->d_inode;
	err = inode_permission(current_cred(), inode, MAY_READ);
	if (!err)
		err = inotify_update_watch(f->private_data, inode, mask);
	path_put(&path);
out:
	fput(f);
	API_RETURN(err);
}

UVFS_API int uvfs_inotify_rm_watch(struct uvfs_proc *p, int fd, int wd)
{
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err = -EINVAL;
	if (f->f_op == &inotify_fops) {
		struct fsnotify_group *g = f->private_data;
		pthread_mutex_lock(&g->mark_mutex);
		struct fsnotify_mark *m = wd_find(g, wd);
		if (m)
			fsnotify_get_mark(m);
		pthread_mutex_unlock(&g->mark_mutex);
		if (m) {
			fsnotify_destroy_mark(m);
			fsnotify_put_mark(m);
			err = 0;
		}
	}
	fput(f);
	API_RETURN(err);
}
