/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs_fuse.c - the FUSE frontend of uvfs: libfuse3 low-level requests mapped
 * onto the public uvfs API.
 *
 * Nodes.  The kernel names inodes by a 64-bit nodeid and counts how many times
 * it was told about each one (lookup count).  For every inode the kernel knows,
 * the frontend keeps a struct uf_node holding an O_PATH|O_NOFOLLOW fd in the
 * fd table that all the frontend's procs share; the nodeid is the node's
 * address (the root is FUSE_ROOT_ID).  A hash keyed by (st_dev, st_ino) finds
 * the node of an inode that is looked up again, so one inode has one nodeid
 * while the kernel knows it.  uvfs never reuses an inode number, so the
 * generation is always 0 and st_ino is stable for the life of the mount.
 * forget drops the count; at zero the node and its fd go.
 *
 * Requests act through the node fds: *at() calls relative to the parent's fd,
 * AT_EMPTY_PATH on the node's own fd, uvfs_fd_reopen to open a node.
 *
 * Credentials.  Each worker thread has its own uvfs proc, a clone of the base
 * proc that shares its fd table (UVFS_CLONE_FILES).  Each request first sets
 * that proc's fsuid/fsgid (and, for creating requests, the umask) to those of
 * the calling process, so uvfs makes every permission decision as Linux would.
 * Supplementary groups cost a read of /proc/PID/task/PID/status, so they are
 * fetched only when a request fails with EACCES or EPERM as the primary group
 * (it is then retried: a failed call had no effect), or when the outcome of a
 * successful call depends on them (a mode with S_ISGID).
 *
 * Caching and permissions.  Without -o default_permissions the kernel checks
 * nothing when it walks a path through dentries it has cached, so a cached
 * name would be reachable by a process that may not search its directory.
 * Hence a name is cached (entry_timeout > 0) only when its directory is
 * searchable by everybody (all three x bits); otherwise every walk through it
 * comes back here as a lookup made with the walker's credentials.  When a
 * directory loses an x bit (chmod) or a name is moved into such a directory,
 * the affected names are invalidated by the notifier thread, after the reply
 * (invalidating from inside the request that holds the directory lock would
 * deadlock).  With -o default_permissions the kernel checks cached modes
 * itself and the timeouts apply to every name.
 *
 * Changes made by other procs of the instance (an embedding application)
 * reach the frontend through uvfs's change hook (-o watch, the default when
 * embedding): see "exact invalidation" below.
 *
 * Lock order: uf->nlock (node hash) is a leaf; no uvfs call is made while
 * holding it except uvfs_fd_reopen of a pinned node in the notifier.
 * uf_dir.lock serialises one directory stream.  uf->tlock protects the list of
 * thread states; uf->qlock the notifier queue.
 */
#define FUSE_USE_VERSION 312
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <poll.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include <uvfs.h>
#include "uvfs_fuse.h"

/* The kernel marks the open of execve(2) with __FMODE_EXEC in the flags. */
#define UF_FMODE_EXEC 0x20

/* Open flags handed on to uvfs; the rest is the kernel's business
 * (O_LARGEFILE, __FMODE_EXEC, O_DIRECT: the kernel does direct I/O with
 * ordinary read/write requests), or is dealt with here (O_CREAT, O_EXCL).
 * Not O_APPEND: the kernel turns an O_APPEND write into a write at the end
 * itself, and only it sees fcntl(F_SETFL) turn O_APPEND off and on again. */
#define UF_OPEN_FLAGS (O_ACCMODE | O_NONBLOCK | O_DSYNC | O_SYNC | O_NOATIME | O_TRUNC)

#define UF_MAX_GROUPS 64

/* A record of uvfs_getdents64: struct linux_dirent64 of getdents64(2). */
struct uf_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct uf_node {
	struct uf_node *hnext;
	dev_t dev;
	ino_t ino;
	uint64_t nlookup; /* under uf->nlock */
	unsigned pins;    /* notifier references; under uf->nlock */
	int fd;           /* O_PATH|O_NOFOLLOW, in the shared fd table */
	bool is_root;
	bool hashed;
};

struct uf_thread {
	struct uvfs_fuse *uf;
	struct uvfs_proc *p;
	uid_t uid;
	gid_t gid;
	unsigned ngroups;     /* supplementary groups set on p */
	bool groups_tried;    /* this request already fetched them */
	fuse_req_t req;
	char *buf;
	size_t bufsz;
	struct uf_thread *next, *prev;
};

/* A directory stream.  Nothing is buffered between requests: each one
 * seeks to the kernel's offset (a d_off cookie uvfs gave) and reads afresh,
 * so that names created or removed in between show as on Linux. */
struct uf_dir {
	pthread_mutex_t lock;
	int fd;
};

/*
 * File handles: a regular file's fi->fh is its uvfs fd; a directory's is its
 * struct uf_dir, tagged with the top bit (never set in a user-space address).
 * The kernel hands a directory's handle to setattr too (fchmod, fchown,
 * futimens on a directory fd), so every user of fi->fh goes through fh_fd().
 */
#define UF_FH_DIR (1ULL << 63)

static inline uint64_t dir_fh(struct uf_dir *d)
{
	return (uint64_t)(uintptr_t)d | UF_FH_DIR;
}

static inline struct uf_dir *fh_dir(const struct fuse_file_info *fi)
{
	return (struct uf_dir *)(uintptr_t)(fi->fh & ~UF_FH_DIR);
}

static inline int fh_fd(const struct fuse_file_info *fi)
{
	return (fi->fh & UF_FH_DIR) ? fh_dir(fi)->fd : (int)fi->fh;
}

enum uf_qkind { UF_Q_ENTRY, UF_Q_CHILDREN, UF_Q_INODE, UF_Q_WAKEUP };

/* A library call waiting in the change hook for its invalidations; held by
 * the waiter and by each of its items (it may give up waiting first). */
struct uf_wait {
	unsigned left; /* items not yet done; under uf->qlock */
	unsigned refs; /* under uf->qlock */
};

struct uf_qitem {
	struct uf_qitem *next;
	struct uf_wait *w; /* or NULL */
	enum uf_qkind kind;
	dev_t dev;
	ino_t ino;      /* the directory (ENTRY, CHILDREN) or the inode */
	char name[];    /* ENTRY */
};

struct uf_opts {
	char *size;
	char *nr_inodes;
	char *uid;
	char *gid;
	char *mode;
	double entry_timeout;
	double attr_timeout;
	double negative_timeout;
	int default_permissions;
	int keep_cache;
	int watch;
};

struct uvfs_fuse {
	struct uvfs *fs;
	bool own_fs;
	struct uvfs_proc *base;
	struct fuse_session *se;
	struct fuse_cmdline_opts cmd;
	struct uf_opts o;
	char *mountpoint;
	char *wakeup;     /* a name in the mount whose lookup wakes the loop */
	bool mounted;
	bool set_up;
	bool dont_mask;   /* the kernel hands us the umask */

	struct uf_node *root;
	pthread_mutex_t nlock;
	struct uf_node **htab;
	size_t hsize, hcount;

	pthread_key_t key;
	bool key_made;
	pthread_mutex_t tlock;
	struct uf_thread *threads;

	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct uf_qitem *qhead, **qtail;
	bool qstop;
	bool qthread_running;
	pthread_t qthread;
	struct uvfs_proc *qproc;

	pthread_cond_t qdone;  /* an item of a uf_wait is done */

	/* -o watch: the change hook is installed (uvfs_set_change_hook) */
	bool hooked;
	bool exiting;          /* uvfs_fuse_exit: the hook lets changes be */
	unsigned long change_gen; /* other procs' changes seen by the hook (atomic) */
};

/* ------------------------------------------------------------------ */
/* threads and credentials                                             */

static void thread_free(struct uf_thread *t)
{
	uvfs_proc_destroy(t->p);
	free(t->buf);
	free(t);
}

static void thread_key_dtor(void *arg)
{
	struct uf_thread *t = arg;
	struct uvfs_fuse *uf = t->uf;

	pthread_mutex_lock(&uf->tlock);
	if (t->prev)
		t->prev->next = t->next;
	else
		uf->threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&uf->tlock);
	thread_free(t);
}

static struct uf_thread *thread_self(struct uvfs_fuse *uf)
{
	struct uf_thread *t = pthread_getspecific(uf->key);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->uf = uf;
	t->p = uvfs_proc_clone(uf->base, UVFS_CLONE_FILES);
	if (!t->p) {
		free(t);
		return NULL;
	}
	uvfs_proc_setcred(t->p, 0, 0);
	uvfs_umask(t->p, 0);
	pthread_mutex_lock(&uf->tlock);
	t->next = uf->threads;
	if (t->next)
		t->next->prev = t;
	uf->threads = t;
	pthread_mutex_unlock(&uf->tlock);
	pthread_setspecific(uf->key, t);
	return t;
}

static void set_cred(struct uf_thread *t, uid_t uid, gid_t gid)
{
	if (t->uid != uid || t->gid != gid) {
		uvfs_proc_setcred(t->p, uid, gid);
		t->uid = uid;
		t->gid = gid;
	}
}

/* Start a request: this thread's proc with the caller's credentials.  NULL
 * (after replying ENOMEM) when the thread state cannot be made. */
static struct uf_thread *req_begin(fuse_req_t req)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct uf_thread *t = thread_self(uf);

	if (!t) {
		fuse_reply_err(req, ENOMEM);
		return NULL;
	}
	set_cred(t, ctx->uid, ctx->gid);
	if (t->ngroups) {
		uvfs_proc_setgroups(t->p, 0, NULL);
		t->ngroups = 0;
	}
	t->groups_tried = false;
	t->req = req;
	return t;
}

/* For requests that create: the caller's umask too. */
static void req_umask(struct uf_thread *t)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(t->req);

	/* Without FUSE_CAP_DONT_MASK the kernel already applied it. */
	uvfs_umask(t->p, t->uf->dont_mask ? (ctx->umask & 0777) : 0);
}

/* Give the proc the caller's supplementary groups.  True when that may change
 * an answer (there are groups other than the primary one). */
static bool req_groups(struct uf_thread *t)
{
	gid_t g[UF_MAX_GROUPS];
	int n, i;
	bool other = false;

	if (t->groups_tried || t->uid == 0)
		return false;
	t->groups_tried = true;
	n = fuse_req_getgroups(t->req, UF_MAX_GROUPS, g);
	if (n <= 0)
		return false;
	if (n > UF_MAX_GROUPS)
		n = UF_MAX_GROUPS; /* uvfs keeps at most 64 */
	for (i = 0; i < n; i++)
		if (g[i] != t->gid)
			other = true;
	if (!other)
		return false;
	if (uvfs_proc_setgroups(t->p, n, g) < 0)
		return false;
	t->ngroups = n;
	return true;
}

/* Evaluate a uvfs call; if it was refused, retry once with the caller's
 * supplementary groups. */
#define RETRY_GROUPS(t, r, expr)                                                  \
	do {                                                                      \
		(r) = (expr);                                                     \
		if (((r) == -EACCES || (r) == -EPERM) && req_groups(t))           \
			(r) = (expr);                                             \
	} while (0)

static char *thread_buf(struct uf_thread *t, size_t size)
{
	if (t->bufsz < size) {
		char *b = realloc(t->buf, size);

		if (!b)
			return NULL;
		t->buf = b;
		t->bufsz = size;
	}
	return t->buf;
}

/* ------------------------------------------------------------------ */
/* the node table                                                      */

static inline size_t node_hash(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

	return (h ^ (h >> 29)) & (uf->hsize - 1);
}

static inline fuse_ino_t node_id(const struct uf_node *n)
{
	return n->is_root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)n;
}

static inline struct uf_node *N(fuse_req_t req, fuse_ino_t ino)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);

	return ino == FUSE_ROOT_ID ? uf->root : (struct uf_node *)(uintptr_t)ino;
}

static struct uf_node *hash_find(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
{
	struct uf_node *n;

	for (n = uf->htab[node_hash(uf, dev, ino)]; n; n = n->hnext)
		if (n->ino == ino && n->dev == dev)
			return n;
	return NULL;
}

static void hash_grow(struct uvfs_fuse *uf)
{
	size_t nsize = uf->hsize * 2, i;
	struct uf_node **nt = calloc(nsize, sizeof(*nt));
	struct uf_node **old = uf->htab, *n, *next;
	size_t osize = uf->hsize;

	if (!nt)
		return; /* longer chains; still correct */
	uf->htab = nt;
	uf->hsize = nsize;
	for (i = 0; i < osize; i++)
		for (n = old[i]; n; n = next) {
			size_t h = node_hash(uf, n->dev, n->ino);

			next = n->hnext;
			n->hnext = nt[h];
			nt[h] = n;
		}
	free(old);
}

static void hash_insert(struct uvfs_fuse *uf, struct uf_node *n)
{
	size_t h;

	if (uf->hcount >= uf->hsize)
		hash_grow(uf);
	h = node_hash(uf, n->dev, n->ino);
	n->hnext = uf->htab[h];
	uf->htab[h] = n;
	n->hashed = true;
	uf->hcount++;
}

static void hash_remove(struct uvfs_fuse *uf, struct uf_node *n)
{
	struct uf_node **pp = &uf->htab[node_hash(uf, n->dev, n->ino)];

	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == n) {
			*pp = n->hnext;
			uf->hcount--;
			n->hashed = false;
			return;
		}
}

/* The node of the inode that fd (O_PATH, ours to consume) refers to, with its
 * lookup count raised by one. */
static struct uf_node *node_get(struct uf_thread *t, const struct stat *st, int fd)
{
	struct uvfs_fuse *uf = t->uf;
	struct uf_node *n, *nn;

	pthread_mutex_lock(&uf->nlock);
	n = hash_find(uf, st->st_dev, st->st_ino);
	if (n) {
		n->nlookup++;
		pthread_mutex_unlock(&uf->nlock);
		uvfs_close(t->p, fd);
		return n;
	}
	pthread_mutex_unlock(&uf->nlock);

	nn = calloc(1, sizeof(*nn));
	if (!nn) {
		uvfs_close(t->p, fd);
		return NULL;
	}
	nn->dev = st->st_dev;
	nn->ino = st->st_ino;
	nn->fd = fd;
	nn->nlookup = 1;

	pthread_mutex_lock(&uf->nlock);
	n = hash_find(uf, st->st_dev, st->st_ino);
	if (n) { /* another lookup of the same inode won */
		n->nlookup++;
		pthread_mutex_unlock(&uf->nlock);
		uvfs_close(t->p, fd);
		free(nn);
		return n;
	}
	hash_insert(uf, nn);
	pthread_mutex_unlock(&uf->nlock);
	return nn;
}

static void node_free(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n)
{
	uvfs_close(p, n->fd);
	free(n);
}

/* Drop count lookups; the node goes when none is left (and no pin). */
static void node_forget(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n, uint64_t count)
{
	bool gone = false;

	pthread_mutex_lock(&uf->nlock);
	if (n->is_root) {
		pthread_mutex_unlock(&uf->nlock);
		return;
	}
	n->nlookup = count > n->nlookup ? 0 : n->nlookup - count;
	if (n->nlookup == 0 && n->pins == 0) {
		hash_remove(uf, n);
		gone = true;
	}
	pthread_mutex_unlock(&uf->nlock);
	if (gone)
		node_free(uf, p, n);
}

/* Pin/unpin: for the notifier, which uses a node outside any request. */
static struct uf_node *node_pin(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
{
	struct uf_node *n;

	pthread_mutex_lock(&uf->nlock);
	n = hash_find(uf, dev, ino);
	if (n)
		n->pins++;
	pthread_mutex_unlock(&uf->nlock);
	return n;
}

static void node_unpin(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n)
{
	bool gone = false;

	pthread_mutex_lock(&uf->nlock);
	if (--n->pins == 0 && n->nlookup == 0 && !n->is_root) {
		hash_remove(uf, n);
		gone = true;
	}
	pthread_mutex_unlock(&uf->nlock);
	if (gone)
		node_free(uf, p, n);
}

/* ------------------------------------------------------------------ */
/* attributes and entries                                              */

static int stat_fd(struct uvfs_proc *p, int fd, struct stat *st)
{
	return uvfs_fstatat(p, fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

static inline bool searchable_by_all(mode_t mode)
{
	return (mode & 0111) == 0111;
}

/* How long the kernel may keep a name of directory dir (see the top). */
static double name_timeout(struct uf_thread *t, struct uf_node *dir, double timeout)
{
	struct stat st;

	if (timeout <= 0 || t->uf->o.default_permissions)
		return timeout;
	if (stat_fd(t->p, dir->fd, &st) < 0 || !searchable_by_all(st.st_mode))
		return 0;
	return timeout;
}

static void fill_entry(struct uf_thread *t, struct fuse_entry_param *e, struct uf_node *n,
		       const struct stat *st, double entry_timeout)
{
	memset(e, 0, sizeof(*e));
	e->ino = node_id(n);
	e->generation = 0;
	e->attr = *st;
	e->attr_timeout = t->uf->o.attr_timeout;
	e->entry_timeout = entry_timeout;
}

/* Look name up in dir as the caller; on success e names a node whose lookup
 * count was raised. */
static int lookup_at(struct uf_thread *t, struct uf_node *dir, const char *name,
		     struct fuse_entry_param *e, double entry_timeout)
{
	struct stat st;
	struct uf_node *n;
	int fd, r;
	unsigned long gen = __atomic_load_n(&t->uf->change_gen, __ATOMIC_ACQUIRE);

	fd = uvfs_openat(t->p, dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r = stat_fd(t->p, fd, &st);
	if (r < 0) {
		uvfs_close(t->p, fd);
		return r;
	}
	n = node_get(t, &st, fd);
	if (!n)
		return -ENOMEM;
	fill_entry(t, e, n, &st, entry_timeout);
	/* Another proc changed the tree meanwhile (the change hook counts):
	 * this answer may be older than the change, and the hook may have
	 * found no node to invalidate yet (node_get came after its look), so
	 * the kernel must not keep it. */
	if (__atomic_load_n(&t->uf->change_gen, __ATOMIC_ACQUIRE) != gen) {
		e->entry_timeout = 0;
		e->attr_timeout = 0;
	}
	return 0;
}

static void reply_entry(struct uf_thread *t, fuse_req_t req, struct fuse_entry_param *e)
{
	if (fuse_reply_entry(req, e) != 0 && e->ino)
		node_forget(t->uf, t->p, N(req, e->ino), 1);
}

/* The reply of requests that make a name (mknod, mkdir, symlink): look the new
 * name up. */
static void reply_new_name(struct uf_thread *t, fuse_req_t req, struct uf_node *dir, const char *name)
{
	struct fuse_entry_param e;
	int r = lookup_at(t, dir, name, &e, name_timeout(t, dir, t->uf->o.entry_timeout));

	if (r < 0)
		fuse_reply_err(req, -r);
	else
		reply_entry(t, req, &e);
}

/* ------------------------------------------------------------------ */
/* the notifier                                                        */

/* Queue an item; with w, count it there (the caller waits for it). */
static void queue_push_wait(struct uvfs_fuse *uf, enum uf_qkind kind, dev_t dev, ino_t ino, const char *name,
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

static void queue_push(struct uvfs_fuse *uf, enum uf_qkind kind, dev_t dev, ino_t ino, const char *name)
{
	queue_push_wait(uf, kind, dev, ino, name, NULL);
}

/* An item is done: its waiter may go on. */
static void item_done(struct uvfs_fuse *uf, struct uf_qitem *q)
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

static void queue_node(struct uvfs_fuse *uf, enum uf_qkind kind, struct uf_node *n, const char *name)
{
	queue_push(uf, kind, n->dev, n->ino, name);
}

/* Invalidate every name in directory n that the kernel may have cached. */
static void inval_children(struct uvfs_fuse *uf, struct uf_node *n)
{
	struct uvfs_proc *p = uf->qproc;
	char buf[8192];
	ssize_t len, off;
	int fd;

	fd = uvfs_fd_reopen(p, n->fd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((len = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < len;) {
			struct uf_dirent64 *d = (struct uf_dirent64 *)(buf + off);

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			fuse_lowlevel_notify_inval_entry(uf->se, node_id(n), d->d_name, strlen(d->d_name));
		}
	}
	uvfs_close(p, fd);
}

static void *notifier_main(void *arg)
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
		n = node_pin(uf, q->dev, q->ino);
		if (n) {
			switch (q->kind) {
			case UF_Q_ENTRY:
				fuse_lowlevel_notify_inval_entry(uf->se, node_id(n), q->name, strlen(q->name));
				break;
			case UF_Q_CHILDREN:
				inval_children(uf, n);
				break;
			case UF_Q_INODE:
				fuse_lowlevel_notify_inval_inode(uf->se, node_id(n), 0, 0);
				break;
			case UF_Q_WAKEUP:
				break;
			}
			node_unpin(uf, uf->qproc, n);
		}
		item_done(uf, q);
	}
	return NULL;
}

/* ---- exact invalidation: the change hook ----
 *
 * uvfs calls uf_change for every change to the tree, on the thread that made
 * it, before that call returns and with no uvfs lock held.  A change made by
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
	r = hash_find(uf, dev, ino) != NULL;
	pthread_mutex_unlock(&uf->nlock);
	return r;
}

/* Queue kind for (dev, ino) if the kernel knows that node now.  A node it
 * learns later is looked up after the change and is current. */
static void hook_push(struct uvfs_fuse *uf, struct uf_wait *w, enum uf_qkind kind, dev_t dev, ino_t ino,
		      const char *name)
{
	if (ino && node_known(uf, dev, ino))
		queue_push_wait(uf, kind, dev, ino, name, w);
}

static void uf_change(const struct uvfs_change *c, void *arg)
{
	struct uvfs_fuse *uf = arg;
	struct uf_wait *w;
	struct timespec until;
	bool done;

	if (own_proc(uf, c->proc) || __atomic_load_n(&uf->exiting, __ATOMIC_ACQUIRE))
		return;
	/* before the node table is looked at: a lookup whose node_get comes
	 * after our look sees the count move (lookup_at) */
	__atomic_fetch_add(&uf->change_gen, 1, __ATOMIC_SEQ_CST);
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
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
		/* a directory closed to some: its cached names must go (see the top) */
		if (c->kind == UVFS_CHANGE_ATTR && (c->flags & UVFS_CHANGE_MODE) && S_ISDIR(c->mode) &&
		    !uf->o.default_permissions && !searchable_by_all(c->mode))
			hook_push(uf, w, UF_Q_CHILDREN, c->dev, c->ino, NULL);
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
	done = --w->refs == 0;
	pthread_mutex_unlock(&uf->qlock);
	if (done)
		free(w);
}

/* Before the notifier stops: afterwards no hook call is running. */
static void hook_remove(struct uvfs_fuse *uf)
{
	if (uf->hooked) {
		uvfs_set_change_hook(uf->fs, NULL, NULL);
		uf->hooked = false;
	}
}

int uvfs_fuse_notify_inval_entry(struct uvfs_fuse *uf, ino_t dir_ino, const char *name)
{
	struct uf_node *n;
	int r;

	if (!uf->set_up)
		return -EINVAL;
	n = node_pin(uf, uf->root->dev, dir_ino);
	if (!n)
		return 0;
	r = fuse_lowlevel_notify_inval_entry(uf->se, node_id(n), name, strlen(name));
	node_unpin(uf, uf->qproc, n);
	return r == -ENOENT ? 0 : r;
}

int uvfs_fuse_notify_inval_inode(struct uvfs_fuse *uf, ino_t ino)
{
	struct uf_node *n;
	int r;

	if (!uf->set_up)
		return -EINVAL;
	n = node_pin(uf, uf->root->dev, ino);
	if (!n)
		return 0;
	r = fuse_lowlevel_notify_inval_inode(uf->se, node_id(n), 0, 0);
	node_unpin(uf, uf->qproc, n);
	return r == -ENOENT ? 0 : r;
}

/* ------------------------------------------------------------------ */
/* requests                                                            */

#define BEGIN(req)                                    \
	struct uf_thread *t = req_begin(req);         \
	if (!t)                                       \
		return

static void uf_init(void *userdata, struct fuse_conn_info *conn)
{
	struct uvfs_fuse *uf = userdata;
	unsigned want[] = { FUSE_CAP_DONT_MASK, FUSE_CAP_ATOMIC_O_TRUNC, FUSE_CAP_HANDLE_KILLPRIV,
			    FUSE_CAP_CACHE_SYMLINKS, FUSE_CAP_PARALLEL_DIROPS, FUSE_CAP_AUTO_INVAL_DATA,
			    FUSE_CAP_ASYNC_READ, FUSE_CAP_ASYNC_DIO };
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (conn->capable & want[i])
			conn->want |= want[i];
	/* Page cache and locks stay in the kernel; see docs. */
	conn->want &= ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_POSIX_LOCKS | FUSE_CAP_FLOCK_LOCKS |
			FUSE_CAP_EXPORT_SUPPORT | FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
			FUSE_CAP_SPLICE_MOVE);
	uf->dont_mask = (conn->want & FUSE_CAP_DONT_MASK) != 0;
	conn->time_gran = 1;
}

static void uf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	struct uvfs_fuse *uf = t->uf;
	struct uf_node *dir = N(req, parent);
	struct fuse_entry_param e;
	int r;

	RETRY_GROUPS(t, r, lookup_at(t, dir, name, &e, 0));
	if (r == 0) {
		e.entry_timeout = name_timeout(t, dir, uf->o.entry_timeout);
		reply_entry(t, req, &e);
	} else if (r == -ENOENT && uf->o.negative_timeout > 0) {
		memset(&e, 0, sizeof(e));
		e.entry_timeout = name_timeout(t, dir, uf->o.negative_timeout);
		if (e.entry_timeout > 0)
			fuse_reply_entry(req, &e);
		else
			fuse_reply_err(req, ENOENT);
	} else {
		fuse_reply_err(req, -r);
	}
}

static void uf_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = thread_self(uf);

	node_forget(uf, t ? t->p : uf->base, N(req, ino), nlookup);
	fuse_reply_none(req);
}

static void uf_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = thread_self(uf);
	size_t i;

	for (i = 0; i < count; i++)
		node_forget(uf, t ? t->p : uf->base, N(req, forgets[i].ino), forgets[i].nlookup);
	fuse_reply_none(req);
}

static void uf_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct stat st;
	int r;

	if (fi)
		r = uvfs_fstat(t->p, fh_fd(fi), &st);
	else
		r = stat_fd(t->p, N(req, ino)->fd, &st);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, t->uf->o.attr_timeout);
}

static int do_chmod(struct uf_thread *t, struct uf_node *n, struct fuse_file_info *fi, mode_t mode)
{
	int r = uvfs_fchmodat(t->p, n->fd, "", mode, AT_EMPTY_PATH);

	/* fchmodat2-style AT_EMPTY_PATH missing: an open file will do. */
	if ((r == -EINVAL || r == -ENOENT || r == -EOPNOTSUPP) && fi)
		r = uvfs_fchmod(t->p, fh_fd(fi), mode);
	return r;
}

static int do_truncate(struct uf_thread *t, struct uf_node *n, struct fuse_file_info *fi, off_t size)
{
	int fd, r;

	if (fi)
		return uvfs_ftruncate(t->p, fh_fd(fi), size);
	/* truncate(2): write permission on the inode, as opening it for writing */
	fd = uvfs_fd_reopen(t->p, n->fd, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fd;
	r = uvfs_ftruncate(t->p, fd, size);
	uvfs_close(t->p, fd);
	return r;
}

static int do_utimens(struct uf_thread *t, struct uf_node *n, struct fuse_file_info *fi,
		      const struct stat *attr, int valid)
{
	struct timespec ts[2];
	int r;

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = ts[0];
	if (valid & FUSE_SET_ATTR_ATIME_NOW)
		ts[0].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_ATIME)
		ts[0] = attr->st_atim;
	if (valid & FUSE_SET_ATTR_MTIME_NOW)
		ts[1].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_MTIME)
		ts[1] = attr->st_mtim;
	r = uvfs_utimensat(t->p, n->fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if ((r == -EINVAL || r == -ENOENT || r == -EBADF) && fi)
		r = uvfs_utimensat(t->p, fh_fd(fi), NULL, ts, 0);
	return r;
}

/* A mode change that only clears S_ISUID and/or S_ISGID: what the kernel
 * sends, as the writer, before a write or truncate by someone who is not the
 * owner.  libfuse 3.14 cannot negotiate FUSE_HANDLE_KILLPRIV, which would let
 * uvfs clear the bits itself on write. */
static bool only_kills_priv(mode_t before, mode_t after)
{
	mode_t gone = before & ~after & 07777, added = after & ~before & 07777;

	return gone && !added && !(gone & ~(mode_t)(S_ISUID | S_ISGID));
}

static void uf_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		       struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino);
	struct stat st, before;
	bool chmod_dir = false, killpriv = false;
	mode_t mode = attr->st_mode & 07777;
	int r = 0;

	if (valid & FUSE_SET_ATTR_MODE) {
		bool have_before = stat_fd(t->p, n->fd, &before) == 0;

		if (mode & S_ISGID)
			req_groups(t); /* S_ISGID survives only for a member of the group */
		if (have_before && !t->uf->o.default_permissions && S_ISDIR(before.st_mode) &&
		    searchable_by_all(before.st_mode) && !searchable_by_all(mode))
			chmod_dir = true;
		if (have_before && only_kills_priv(before.st_mode, mode)) {
			killpriv = true; /* after the rest, below */
		} else {
			RETRY_GROUPS(t, r, do_chmod(t, n, fi, mode));
			if (r < 0)
				goto out;
		}
	}
	if (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;

		RETRY_GROUPS(t, r, uvfs_fchownat(t->p, n->fd, "", uid, gid,
						 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
		if (r < 0)
			goto out;
	}
	if (valid & FUSE_SET_ATTR_SIZE) {
		RETRY_GROUPS(t, r, do_truncate(t, n, fi, attr->st_size));
		if (r < 0)
			goto out;
	}
	if (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
		     FUSE_SET_ATTR_MTIME_NOW)) {
		RETRY_GROUPS(t, r, do_utimens(t, n, fi, attr, valid));
		if (r < 0)
			goto out;
	}
	if (killpriv) {
		RETRY_GROUPS(t, r, do_chmod(t, n, fi, mode));
		if (r == -EPERM) {
			/* Anyone who may write the file may clear these bits
			 * (Linux does on write and truncate): an open file
			 * for writing, or write permission, suffices. */
			int fl = fi ? uvfs_fcntl(t->p, fh_fd(fi), F_GETFL, 0) : -EBADF;

			if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY)
				r = 0;
			else
				RETRY_GROUPS(t, r, uvfs_faccessat(t->p, n->fd, "", W_OK,
								  AT_EACCESS | AT_EMPTY_PATH));
			if (r == 0) {
				uid_t uid = t->uid;
				gid_t gid = t->gid;

				set_cred(t, 0, 0);
				r = do_chmod(t, n, fi, mode);
				set_cred(t, uid, gid);
			} else {
				r = -EPERM;
			}
		}
	}
	/* chown(f, -1, -1) changes only ctime, which the kernel asks for
	 * with no attribute at all: a no-op chown does it in uvfs too. */
	if (!(valid & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID | FUSE_SET_ATTR_SIZE |
		       FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
		       FUSE_SET_ATTR_MTIME_NOW)))
		r = uvfs_fchownat(t->p, n->fd, "", (uid_t)-1, (gid_t)-1, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
out:
	if (chmod_dir)
		queue_node(t->uf, UF_Q_CHILDREN, n, NULL);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	r = fi ? uvfs_fstat(t->p, fh_fd(fi), &st) : stat_fd(t->p, n->fd, &st);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, t->uf->o.attr_timeout);
}

static void uf_readlink(fuse_req_t req, fuse_ino_t ino)
{
	BEGIN(req);
	char *buf = thread_buf(t, PATH_MAX + 1);
	ssize_t r;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r = uvfs_readlinkat(t->p, N(req, ino)->fd, "", buf, PATH_MAX);
	if (r < 0) {
		fuse_reply_err(req, (int)-r);
		return;
	}
	buf[r] = '\0';
	fuse_reply_readlink(req, buf);
}

static void uf_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent);
	int r;

	req_umask(t);
	if (mode & S_ISGID)
		req_groups(t);
	RETRY_GROUPS(t, r, uvfs_mknodat(t->p, dir->fd, name, mode, rdev));
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		reply_new_name(t, req, dir, name);
}

static void uf_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent);
	int r;

	req_umask(t);
	RETRY_GROUPS(t, r, uvfs_mkdirat(t->p, dir->fd, name, mode));
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		reply_new_name(t, req, dir, name);
}

static void uf_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent);
	int r;

	RETRY_GROUPS(t, r, uvfs_symlinkat(t->p, link, dir->fd, name));
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		reply_new_name(t, req, dir, name);
}

/*
 * link(2) by inode: linkat(fd, "", ..., AT_EMPTY_PATH).  Linux lets only
 * CAP_DAC_READ_SEARCH do that (others get ENOENT), because the source was
 * reached through an fd rather than a path.  Here the kernel did resolve a
 * path as the caller, and has already applied what link(2) checks on the
 * source (a directory: EPERM; fs.protected_hardlinks).  What remains are the
 * checks on the new name, made as the caller in link(2)'s order: EEXIST, then
 * write and search permission on the directory; then the link is made with
 * fs credentials 0.
 */
static int do_link(struct uf_thread *t, struct uf_node *n, struct uf_node *dir, const char *newname)
{
	struct stat st;
	uid_t uid = t->uid;
	gid_t gid = t->gid;
	int r;

	r = uvfs_linkat(t->p, n->fd, "", dir->fd, newname, AT_EMPTY_PATH);
	if (r != -ENOENT || uid == 0)
		return r;
	RETRY_GROUPS(t, r, uvfs_fstatat(t->p, dir->fd, newname, &st, AT_SYMLINK_NOFOLLOW));
	if (r == 0)
		return -EEXIST;
	if (r != -ENOENT)
		return r;
	RETRY_GROUPS(t, r, uvfs_faccessat(t->p, dir->fd, "", W_OK | X_OK, AT_EACCESS | AT_EMPTY_PATH));
	if (r < 0)
		return r;
	set_cred(t, 0, 0);
	r = uvfs_linkat(t->p, n->fd, "", dir->fd, newname, AT_EMPTY_PATH);
	set_cred(t, uid, gid);
	return r;
}

static void uf_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino), *dir = N(req, newparent);
	struct fuse_entry_param e;
	struct stat st;
	int r;

	r = do_link(t, n, dir, newname);
	if (r == 0)
		r = stat_fd(t->p, n->fd, &st);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	pthread_mutex_lock(&t->uf->nlock);
	n->nlookup++;
	pthread_mutex_unlock(&t->uf->nlock);
	fill_entry(t, &e, n, &st, name_timeout(t, dir, t->uf->o.entry_timeout));
	reply_entry(t, req, &e);
}

static void uf_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	int r;

	RETRY_GROUPS(t, r, uvfs_unlinkat(t->p, N(req, parent)->fd, name, 0));
	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void uf_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	int r;

	RETRY_GROUPS(t, r, uvfs_unlinkat(t->p, N(req, parent)->fd, name, AT_REMOVEDIR));
	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void uf_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	BEGIN(req);
	struct uf_node *od = N(req, parent), *nd = N(req, newparent);
	int r;

	RETRY_GROUPS(t, r, uvfs_renameat2(t->p, od->fd, name, nd->fd, newname, flags));
	fuse_reply_err(req, r < 0 ? -r : 0);
	if (r == 0 && !t->uf->o.default_permissions && od != nd) {
		/* A name moved from an open directory into a closed one keeps the
		 * kernel's timeout of its old place: drop it. */
		struct stat st;

		if (stat_fd(t->p, nd->fd, &st) == 0 && !searchable_by_all(st.st_mode))
			queue_node(t->uf, UF_Q_ENTRY, nd, newname);
		if ((flags & RENAME_EXCHANGE) && stat_fd(t->p, od->fd, &st) == 0 &&
		    !searchable_by_all(st.st_mode))
			queue_node(t->uf, UF_Q_ENTRY, od, name);
	}
}

static void open_reply(struct uf_thread *t, fuse_req_t req, struct fuse_file_info *fi, int fd)
{
	fi->fh = (uint64_t)fd;
	fi->noflush = 1; /* writes are synchronous: close has nothing to report */
	/* keep_cache: the page cache survives opens; a change made behind the
	 * kernel's back then shows once attr_timeout expires and the kernel sees
	 * a new mtime or size (FUSE_CAP_AUTO_INVAL_DATA), or at once through
	 * uvfs_fuse_notify_inval_inode. */
	fi->keep_cache = t->uf->o.keep_cache ? 1 : 0;
	if (fuse_reply_open(req, fi) != 0)
		uvfs_close(t->p, fd);
}

static void uf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino);
	int flags = (fi->flags & UF_OPEN_FLAGS) | O_CLOEXEC;
	int fd;

	if (fi->flags & UF_FMODE_EXEC) {
		/* execve(2): the right to execute is checked, not the right to
		 * read; the frontend reads the image for the kernel. */
		RETRY_GROUPS(t, fd, uvfs_faccessat(t->p, n->fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH));
		if (fd == 0) {
			uid_t uid = t->uid;
			gid_t gid = t->gid;

			set_cred(t, 0, 0);
			fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
			set_cred(t, uid, gid);
		}
	} else {
		RETRY_GROUPS(t, fd, uvfs_fd_reopen(t->p, n->fd, flags));
	}
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	open_reply(t, req, fi, fd);
}

static void uf_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent), *n;
	int flags = (fi->flags & (UF_OPEN_FLAGS | O_EXCL | O_NOFOLLOW)) | O_CREAT | O_CLOEXEC;
	struct fuse_entry_param e;
	struct stat st;
	int fd, pfd, r;

	req_umask(t);
	if (mode & S_ISGID)
		req_groups(t);
	RETRY_GROUPS(t, fd, uvfs_openat(t->p, dir->fd, name, flags, mode));
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	pfd = uvfs_fd_reopen(t->p, fd, O_PATH | O_CLOEXEC);
	if (pfd < 0) {
		uvfs_close(t->p, fd);
		fuse_reply_err(req, -pfd);
		return;
	}
	r = stat_fd(t->p, pfd, &st);
	if (r < 0) {
		uvfs_close(t->p, pfd);
		uvfs_close(t->p, fd);
		fuse_reply_err(req, -r);
		return;
	}
	n = node_get(t, &st, pfd);
	if (!n) {
		uvfs_close(t->p, fd);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fill_entry(t, &e, n, &st, name_timeout(t, dir, t->uf->o.entry_timeout));
	fi->fh = (uint64_t)fd;
	fi->noflush = 1;
	if (fuse_reply_create(req, &e, fi) != 0) {
		node_forget(t->uf, t->p, n, 1);
		uvfs_close(t->p, fd);
	}
}

static void uf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	BEGIN(req);
	char *buf = thread_buf(t, size);
	ssize_t r;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r = uvfs_pread(t->p, fh_fd(fi), buf, size, off);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
}

static void uf_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	BEGIN(req);
	ssize_t r;

	r = uvfs_pwrite(t->p, fh_fd(fi), buf, size, off);

	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

static void uf_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* Writes went to uvfs synchronously; locks are the kernel's. */
	fuse_reply_err(req, 0);
}

static void uf_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = thread_self(uf);

	uvfs_close(t ? t->p : uf->base, fh_fd(fi));
	fuse_reply_err(req, 0);
}

static void uf_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	BEGIN(req);
	int r = datasync ? uvfs_fdatasync(t->p, fh_fd(fi)) : uvfs_fsync(t->p, fh_fd(fi));

	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void uf_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_dir *d;
	int fd;

	RETRY_GROUPS(t, fd, uvfs_fd_reopen(t->p, N(req, ino)->fd, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	d = malloc(sizeof(*d));
	if (!d) {
		uvfs_close(t->p, fd);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_init(&d->lock, NULL);
	d->fd = fd;
	fi->fh = dir_fh(d);
	if (fuse_reply_open(req, fi) != 0) {
		uvfs_close(t->p, fd);
		pthread_mutex_destroy(&d->lock);
		free(d);
	}
}

static bool is_dot_or_dotdot(const char *s)
{
	return s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0'));
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus)
{
	BEGIN(req);
	struct uf_dir *d = fh_dir(fi);
	struct uf_node *dir = N(req, ino);
	struct uf_node **counted = NULL;
	size_t ncounted = 0, used = 0;
	double etimeout = 0;
	char *out, *raw;
	bool full = false;
	int err = 0;

	/* one buffer: the reply, then the raw getdents64 records */
	out = thread_buf(t, 2 * size);
	raw = out ? out + size : NULL;
	if (plus) {
		counted = malloc(sizeof(*counted) * (size / 32 + 1));
		etimeout = name_timeout(t, dir, t->uf->o.entry_timeout);
	}
	if (!out || (plus && !counted)) {
		free(counted);
		fuse_reply_err(req, ENOMEM);
		return;
	}

	pthread_mutex_lock(&d->lock);
	{
		off_t r = uvfs_lseek(t->p, d->fd, off, SEEK_SET);

		if (r < 0) {
			err = (int)-r;
			goto out;
		}
	}
	while (!full) {
		ssize_t len = uvfs_getdents64(t->p, d->fd, raw, size), pos;

		if (len < 0) {
			if (used == 0)
				err = (int)-len;
			break;
		}
		if (len == 0)
			break;
		for (pos = 0; pos < len; pos += ((struct uf_dirent64 *)(raw + pos))->d_reclen) {
			struct uf_dirent64 *de = (struct uf_dirent64 *)(raw + pos);
			size_t sz;

			if (plus) {
				struct fuse_entry_param e;

				memset(&e, 0, sizeof(e));
				if (is_dot_or_dotdot(de->d_name) ||
				    lookup_at(t, dir, de->d_name, &e, etimeout) < 0) {
					/* nodeid 0: a name without attributes */
					memset(&e, 0, sizeof(e));
					e.attr.st_ino = de->d_ino;
					e.attr.st_mode = (mode_t)de->d_type << 12;
				}
				sz = fuse_add_direntry_plus(req, out + used, size - used, de->d_name, &e,
							    de->d_off);
				if (sz > size - used) {
					if (e.ino)
						node_forget(t->uf, t->p, N(req, e.ino), 1);
					full = true;
					break;
				}
				if (e.ino)
					counted[ncounted++] = N(req, e.ino);
			} else {
				struct stat st;

				memset(&st, 0, sizeof(st));
				st.st_ino = de->d_ino;
				st.st_mode = (mode_t)de->d_type << 12;
				sz = fuse_add_direntry(req, out + used, size - used, de->d_name, &st, de->d_off);
				if (sz > size - used) {
					full = true;
					break;
				}
			}
			used += sz;
		}
	}
out:
	pthread_mutex_unlock(&d->lock);
	if (err) {
		fuse_reply_err(req, err);
	} else if (fuse_reply_buf(req, out, used) != 0) {
		size_t i;

		for (i = 0; i < ncounted; i++)
			node_forget(t->uf, t->p, counted[i], 1);
	}
	free(counted);
}

static void uf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, false);
}

static void uf_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, true);
}

static void uf_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = thread_self(uf);
	struct uf_dir *d = fh_dir(fi);

	uvfs_close(t ? t->p : uf->base, d->fd);
	pthread_mutex_destroy(&d->lock);
	free(d);
	fuse_reply_err(req, 0);
}

static void uf_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_dir *d = fh_dir(fi);
	int r = datasync ? uvfs_fdatasync(t->p, d->fd) : uvfs_fsync(t->p, d->fd);

	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void uf_statfs(fuse_req_t req, fuse_ino_t ino)
{
	BEGIN(req);
	struct statfs sf;
	struct statvfs sv;
	int r = uvfs_fstatfs(t->p, N(req, ino)->fd, &sf);

	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = sf.f_bsize;
	sv.f_frsize = sf.f_frsize ? sf.f_frsize : sf.f_bsize;
	sv.f_blocks = sf.f_blocks;
	sv.f_bfree = sf.f_bfree;
	sv.f_bavail = sf.f_bavail;
	sv.f_files = sf.f_files;
	sv.f_ffree = sf.f_ffree;
	sv.f_favail = sf.f_ffree;
	sv.f_namemax = sf.f_namelen;
	fuse_reply_statfs(req, &sv);
}

static void uf_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	BEGIN(req);
	int r;

	/* The kernel already switched to the real ids for access(2). */
	RETRY_GROUPS(t, r, uvfs_faccessat(t->p, N(req, ino)->fd, "", mask, AT_EACCESS | AT_EMPTY_PATH));
	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void uf_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi)
{
	BEGIN(req);
	off_t r = uvfs_lseek(t->p, fh_fd(fi), off, whence);

	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_lseek(req, r);
}

static void uf_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			 struct fuse_file_info *fi)
{
	BEGIN(req);
	int r = uvfs_fallocate(t->p, fh_fd(fi), mode, offset, length);

	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void uf_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, struct fuse_file_info *fi_in,
			       fuse_ino_t ino_out, off_t off_out, struct fuse_file_info *fi_out, size_t len,
			       int flags)
{
	BEGIN(req);
	ssize_t r = uvfs_copy_file_range(t->p, fh_fd(fi_in), &off_in, fh_fd(fi_out), &off_out, len,
					 (unsigned)flags);

	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

static const struct fuse_lowlevel_ops uf_ops = {
	.init = uf_init,
	.lookup = uf_lookup,
	.forget = uf_forget,
	.forget_multi = uf_forget_multi,
	.getattr = uf_getattr,
	.setattr = uf_setattr,
	.readlink = uf_readlink,
	.mknod = uf_mknod,
	.mkdir = uf_mkdir,
	.unlink = uf_unlink,
	.rmdir = uf_rmdir,
	.symlink = uf_symlink,
	.rename = uf_rename,
	.link = uf_link,
	.open = uf_open,
	.read = uf_read,
	.write = uf_write,
	.flush = uf_flush,
	.release = uf_release,
	.fsync = uf_fsync,
	.opendir = uf_opendir,
	.readdir = uf_readdir,
	.readdirplus = uf_readdirplus,
	.releasedir = uf_releasedir,
	.fsyncdir = uf_fsyncdir,
	.statfs = uf_statfs,
	.access = uf_access,
	.create = uf_create,
	.lseek = uf_lseek,
	.fallocate = uf_fallocate,
	.copy_file_range = uf_copy_file_range,
	/* Not in the uvfs API (yet): xattrs, fallocate, copy_file_range, locks
	 * (kept by the kernel), ioctl, poll, tmpfile.  libfuse answers ENOSYS. */
};

/* ------------------------------------------------------------------ */
/* options                                                             */

enum { KEY_DEFAULT_PERMISSIONS };

#define UF_OPT(t, p) { t, offsetof(struct uf_opts, p), 1 }
static const struct fuse_opt uf_optspec[] = {
	UF_OPT("size=%s", size),
	UF_OPT("nr_inodes=%s", nr_inodes),
	UF_OPT("uid=%s", uid),
	UF_OPT("gid=%s", gid),
	UF_OPT("mode=%s", mode),
	UF_OPT("entry_timeout=%lf", entry_timeout),
	UF_OPT("attr_timeout=%lf", attr_timeout),
	UF_OPT("negative_timeout=%lf", negative_timeout),
	UF_OPT("keep_cache", keep_cache),
	UF_OPT("watch", watch),
	{ "nowatch", offsetof(struct uf_opts, watch), 0 },
	FUSE_OPT_KEY("default_permissions", KEY_DEFAULT_PERMISSIONS),
	FUSE_OPT_END
};

static int uf_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct uf_opts *o = data;

	if (key == KEY_DEFAULT_PERMISSIONS)
		o->default_permissions = 1;
	return 1; /* keep it for libfuse */
}

/* "123", "64k", "1g", "50%" (of physical memory, as tmpfs). */
static int parse_size(const char *s, bool percent_ok, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	case 't': case 'T': v <<= 40; end++; break;
	case '%':
		if (!percent_ok || v > 100)
			return -1;
		v = (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE) / 100 * v;
		end++;
		break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int parse_id(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v >= (unsigned long)UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* Parse the tmpfs options; with create, make the instance from them. */
static int make_instance(struct uvfs_fuse *uf, bool create)
{
	struct uvfs_options opts;
	unsigned long long v;
	unsigned id;

	memset(&opts, 0, sizeof(opts));
	opts.root_mode = 01777;
	if (uf->o.size) {
		if (parse_size(uf->o.size, true, &v) < 0)
			goto bad;
		opts.tmpfs_size = v;
	}
	if (uf->o.nr_inodes) {
		if (parse_size(uf->o.nr_inodes, false, &v) < 0)
			goto bad;
		opts.tmpfs_nr_inodes = (unsigned long)v;
	}
	if (uf->o.uid) {
		if (parse_id(uf->o.uid, &id) < 0)
			goto bad;
		opts.root_uid = id;
	}
	if (uf->o.gid) {
		if (parse_id(uf->o.gid, &id) < 0)
			goto bad;
		opts.root_gid = id;
	}
	if (uf->o.mode) {
		char *end;
		unsigned long m = strtoul(uf->o.mode, &end, 8);

		if (end == uf->o.mode || *end || m > 07777)
			goto bad;
		opts.root_mode = (mode_t)m;
	}
	if (create) {
		uf->fs = uvfs_create(&opts);
		if (!uf->fs)
			return -ENOMEM;
	}
	return 0;
bad:
	fprintf(stderr, "uvfs-fuse: bad value in -o size=/nr_inodes=/uid=/gid=/mode=\n");
	return -EINVAL;
}

void uvfs_fuse_print_help(void)
{
	printf("usage: uvfs-fuse [options] MOUNTPOINT\n"
	       "\n"
	       "Mount a fresh uvfs tree (the Linux VFS in user space, over an in-memory\n"
	       "tmpfs) on MOUNTPOINT through FUSE.\n"
	       "\n"
	       "uvfs options:\n"
	       "    -o size=BYTES[k|m|g|%%]  bytes of file data in the tmpfs (default unlimited)\n"
	       "    -o nr_inodes=N[k|m|g]   inodes in the tmpfs (default unlimited)\n"
	       "    -o uid=N,gid=N          owner of the root directory (default 0, 0)\n"
	       "    -o mode=OCTAL           mode of the root directory (default 1777)\n"
	       "    -o entry_timeout=S      seconds the kernel caches names (default 1)\n"
	       "    -o attr_timeout=S       seconds the kernel caches attributes (default 1)\n"
	       "    -o negative_timeout=S   seconds the kernel caches failed lookups (default 1)\n"
	       "    -o keep_cache           keep file data cached across opens (default: dropped\n"
	       "                            at each open)\n"
	       "    -o watch, -o nowatch    invalidate the kernel's caches when another proc of\n"
	       "                            the instance changes the tree (default: on when\n"
	       "                            embedding an instance, off for uvfs-fuse's own)\n"
	       "\n"
	       "FUSE options:\n"
	       "    -h   --help             print this help and exit\n"
	       "    -V   --version          print the version and exit\n"
	       "    -d   -o debug           print each request (implies -f)\n"
	       "    -f                      stay in the foreground\n"
	       "    -s                      single-threaded (default: multi-threaded)\n"
	       "    -o allow_other          let every user use the mount (not only its owner)\n"
	       "    -o default_permissions  the kernel checks modes too (from its cached\n"
	       "                            attributes); without it uvfs alone decides\n"
	       "    -o max_threads=N        at most N worker threads (default 10)\n"
	       "    -o max_idle_threads=N   keep at most N idle worker threads\n"
	       "    -o clone_fd             one /dev/fuse fd per worker thread\n"
	       "    -o fsname=NAME,subtype=NAME   names in /proc/mounts (default uvfs)\n"
	       "\n"
	       "Stop with Ctrl-C, SIGTERM or `fusermount3 -u MOUNTPOINT`.\n");
}

/* A clear word about a mount point before libfuse tries it. */
static int check_mountpoint(const char *mp)
{
	struct statx stx;
	int r;

	/* AT_STATX_DONT_SYNC: a FUSE mount there whose server does not answer
	 * (yet) must not hang us */
	r = statx(AT_FDCWD, mp, AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &stx);
	if (r < 0) {
		int e = errno;

		if (e == ENOTCONN)
			fprintf(stderr,
				"uvfs-fuse: %s: a stale FUSE mount is in the way (Transport endpoint is "
				"not connected); run `fusermount3 -u %s`\n", mp, mp);
		else
			fprintf(stderr, "uvfs-fuse: bad mount point %s: %s\n", mp, strerror(e));
		return -e;
	}
	if (!S_ISDIR(stx.stx_mode)) {
		fprintf(stderr, "uvfs-fuse: bad mount point %s: not a directory\n", mp);
		return -ENOTDIR;
	}
	if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		fprintf(stderr, "uvfs-fuse: mount point %s is busy: something is already mounted there "
			"(a dead FUSE mount? then `fusermount3 -u %s`)\n", mp, mp);
		return -EBUSY;
	}
	return 0;
}

static int check_dev_fuse(void)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	int e = errno;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	/* libfuse opens /dev/fuse itself before it falls back to the set-uid
	 * fusermount3, so an unprivileged user needs it readable and writable
	 * too (Debian makes it 0666). */
	if (e == EACCES || e == EPERM)
		fprintf(stderr, "uvfs-fuse: cannot use /dev/fuse: %s (run as root, or give users access "
			"to /dev/fuse, mode 0666 as most distributions do)\n", strerror(e));
	else
		fprintf(stderr, "uvfs-fuse: cannot use /dev/fuse: %s (is the fuse module loaded, and is "
			"/dev/fuse available in this container?)\n", strerror(e));
	return -ENODEV;
}

struct uvfs_fuse *uvfs_fuse_new(struct uvfs *fs, const char *mountpoint, int argc, char **argv, int *errp)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct uvfs_fuse *uf;
	int err = -EINVAL, i;

	uf = calloc(1, sizeof(*uf));
	if (!uf) {
		err = -ENOMEM;
		goto fail_nouf;
	}
	uf->fs = fs;
	uf->own_fs = fs == NULL;
	uf->o.entry_timeout = 1.0;
	uf->o.attr_timeout = 1.0;
	uf->o.negative_timeout = 1.0;
	pthread_mutex_init(&uf->nlock, NULL);
	pthread_mutex_init(&uf->tlock, NULL);
	pthread_mutex_init(&uf->qlock, NULL);
	pthread_cond_init(&uf->qcond, NULL);
	pthread_cond_init(&uf->qdone, NULL);
	uf->o.watch = -1; /* not given: on for an instance of the caller's */
	uf->qtail = &uf->qhead;

	if (fuse_opt_add_arg(&args, argc > 0 && argv && argv[0] ? argv[0] : "uvfs-fuse") < 0)
		goto nomem;
	/* Defaults first, so that the caller's own options win. */
	if (fuse_opt_add_arg(&args, "-ofsname=uvfs,subtype=uvfs") < 0)
		goto nomem;
	for (i = 1; i < argc; i++)
		if (fuse_opt_add_arg(&args, argv[i]) < 0)
			goto nomem;
	if (fuse_parse_cmdline(&args, &uf->cmd) != 0)
		goto fail;
	if (uf->cmd.show_help || uf->cmd.show_version) {
		fprintf(stderr, "uvfs-fuse: --help and --version are for the program\n");
		goto fail;
	}
	if (fuse_opt_parse(&args, &uf->o, uf_optspec, uf_opt_proc) != 0)
		goto fail;
	if (!uf->own_fs && (uf->o.size || uf->o.nr_inodes || uf->o.uid || uf->o.gid || uf->o.mode)) {
		fprintf(stderr, "uvfs-fuse: size=, nr_inodes=, uid=, gid= and mode= only apply to an "
			"instance the frontend makes\n");
		goto fail;
	}
	if (uf->own_fs) {
		err = make_instance(uf, false); /* validate now; the fs is made by the loop */
		if (err < 0)
			goto fail;
	}
	if (uf->o.watch < 0)
		uf->o.watch = !uf->own_fs; /* only another proc's changes need it */
	if (mountpoint && uf->cmd.mountpoint) {
		fprintf(stderr, "uvfs-fuse: two mount points given\n");
		err = -EINVAL;
		goto fail;
	}
	if (!mountpoint)
		mountpoint = uf->cmd.mountpoint;
	if (!mountpoint) {
		fprintf(stderr, "uvfs-fuse: no mount point given (see --help)\n");
		err = -EINVAL;
		goto fail;
	}
	if (uf->o.entry_timeout < 0 || uf->o.attr_timeout < 0 || uf->o.negative_timeout < 0) {
		fprintf(stderr, "uvfs-fuse: timeouts must not be negative\n");
		err = -EINVAL;
		goto fail;
	}
	uf->mountpoint = realpath(mountpoint, NULL);
	err = check_mountpoint(uf->mountpoint ? uf->mountpoint : mountpoint);
	if (err < 0)
		goto fail;
	err = check_dev_fuse();
	if (err < 0)
		goto fail;

	uf->se = fuse_session_new(&args, &uf_ops, sizeof(uf_ops), uf);
	if (!uf->se) {
		err = -EINVAL;
		goto fail;
	}
	if (fuse_session_mount(uf->se, uf->mountpoint) != 0) {
		fprintf(stderr, "uvfs-fuse: mounting on %s failed\n", uf->mountpoint);
		err = -EIO;
		goto fail;
	}
	uf->mounted = true;
	if (asprintf(&uf->wakeup, "%s/.uvfs-fuse-exit-%d-%p", uf->mountpoint, (int)getpid(), (void *)uf) < 0)
		uf->wakeup = NULL;
	fuse_opt_free_args(&args);
	return uf;

nomem:
	err = -ENOMEM;
fail:
	fuse_opt_free_args(&args);
	uvfs_fuse_destroy(uf);
fail_nouf:
	if (errp)
		*errp = err;
	return NULL;
}

int uvfs_fuse_daemonize(struct uvfs_fuse *uf)
{
	return fuse_daemonize(uf->cmd.foreground || uf->cmd.debug);
}

int uvfs_fuse_set_signal_handlers(struct uvfs_fuse *uf)
{
	return fuse_set_signal_handlers(uf->se);
}

void uvfs_fuse_remove_signal_handlers(struct uvfs_fuse *uf)
{
	fuse_remove_signal_handlers(uf->se);
}

static int setup(struct uvfs_fuse *uf)
{
	struct stat st;
	int fd, r;

	if (uf->own_fs && !uf->fs) {
		r = make_instance(uf, true);
		if (r < 0)
			return r;
	}
	uf->base = uvfs_proc_create(uf->fs, 0, 0);
	if (!uf->base)
		return -ENOMEM;
	/* Every node holds an fd: allow as many as uvfs does. */
	uvfs_proc_set_nofile(uf->base, 1UL << 20);
	uvfs_umask(uf->base, 0);
	uf->qproc = uvfs_proc_clone(uf->base, UVFS_CLONE_FILES);
	if (!uf->qproc)
		return -ENOMEM;

	uf->hsize = 1024;
	uf->htab = calloc(uf->hsize, sizeof(*uf->htab));
	if (!uf->htab)
		return -ENOMEM;
	fd = uvfs_openat(uf->base, AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r = stat_fd(uf->base, fd, &st);
	if (r < 0) {
		uvfs_close(uf->base, fd);
		return r;
	}
	uf->root = calloc(1, sizeof(*uf->root));
	if (!uf->root) {
		uvfs_close(uf->base, fd);
		return -ENOMEM;
	}
	uf->root->fd = fd;
	uf->root->dev = st.st_dev;
	uf->root->ino = st.st_ino;
	uf->root->nlookup = 1;
	uf->root->is_root = true;
	hash_insert(uf, uf->root);

	r = pthread_key_create(&uf->key, thread_key_dtor);
	if (r)
		return -r;
	uf->key_made = true;

	uf->qthread_running = true;
	r = pthread_create(&uf->qthread, NULL, notifier_main, uf);
	if (r) {
		uf->qthread_running = false;
		return -r;
	}
	uf->set_up = true;
	if (uf->o.watch) {
		r = uvfs_set_change_hook(uf->fs, uf_change, uf);
		if (r < 0) {
			fprintf(stderr, "uvfs-fuse: cannot install the change hook (%s); changes made through "
				"the library show when the timeouts expire\n", strerror(-r));
		} else {
			uf->hooked = true;
		}
	}
	return 0;
}

/* Stop the notifier thread (it may be blocked in a lookup of its own until
 * the device is closed by the unmount). */
static void notifier_stop(struct uvfs_fuse *uf)
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

static void teardown(struct uvfs_fuse *uf)
{
	struct uf_thread *t;
	struct uf_qitem *q;
	size_t i;

	hook_remove(uf);
	notifier_stop(uf);
	while ((q = uf->qhead)) {
		uf->qhead = q->next;
		item_done(uf, q);
	}
	uf->qtail = &uf->qhead;
	uf->set_up = false;

	if (uf->key_made) {
		/* Workers are gone (joined by the loop); what is left belongs to
		 * threads that called the loop. */
		pthread_setspecific(uf->key, NULL);
		pthread_mutex_lock(&uf->tlock);
		while ((t = uf->threads)) {
			uf->threads = t->next;
			thread_free(t);
		}
		pthread_mutex_unlock(&uf->tlock);
		pthread_key_delete(uf->key);
		uf->key_made = false;
	}
	if (uf->htab) {
		for (i = 0; i < uf->hsize; i++) {
			struct uf_node *n, *next;

			for (n = uf->htab[i]; n; n = next) {
				next = n->hnext;
				node_free(uf, uf->base, n);
			}
		}
		free(uf->htab);
		uf->htab = NULL;
		uf->root = NULL;
	}
	if (uf->qproc)
		uvfs_proc_destroy(uf->qproc);
	uf->qproc = NULL;
	if (uf->base)
		uvfs_proc_destroy(uf->base);
	uf->base = NULL;
	if (uf->own_fs && uf->fs) {
		uvfs_destroy(uf->fs);
		uf->fs = NULL;
	}
}

int uvfs_fuse_loop(struct uvfs_fuse *uf)
{
	int r;

	if (!uf->set_up) {
		r = setup(uf);
		if (r < 0) {
			fprintf(stderr, "uvfs-fuse: cannot start: %s\n", strerror(-r));
			return r;
		}
	}
	if (uf->cmd.singlethread) {
		r = fuse_session_loop(uf->se);
	} else {
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();

		if (!cfg)
			return -ENOMEM;
		fuse_loop_cfg_set_clone_fd(cfg, (unsigned)uf->cmd.clone_fd);
		if (uf->cmd.max_idle_threads != UINT_MAX) /* UINT_MAX: not given */
			fuse_loop_cfg_set_idle_threads(cfg, uf->cmd.max_idle_threads);
		fuse_loop_cfg_set_max_threads(cfg, uf->cmd.max_threads);
		r = fuse_session_loop_mt(uf->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	/* > 0: the number of the signal that ended it; a clean stop */
	return r > 0 ? 0 : r;
}

void uvfs_fuse_exit(struct uvfs_fuse *uf)
{
	/* the loop stops serving: a hook that waited for the notifier, queued
	 * behind the wakeup below, could wait for the unmount */
	__atomic_store_n(&uf->exiting, true, __ATOMIC_RELEASE);
	fuse_session_exit(uf->se);
	/* The loop notices only when a request arrives: the notifier thread
	 * makes one (a lookup of a name nobody uses). */
	if (uf->set_up)
		queue_push(uf, UF_Q_WAKEUP, 0, 0, NULL);
}

void uvfs_fuse_destroy(struct uvfs_fuse *uf)
{
	if (!uf)
		return;
	/* Unmount first: that closes the device, which fails any request still
	 * waiting (the notifier's wakeup lookup); then no thread of ours uses the
	 * session any more when it is destroyed. */
	if (uf->se && uf->mounted)
		fuse_session_unmount(uf->se);
	uf->mounted = false;
	hook_remove(uf);
	notifier_stop(uf);
	if (uf->se)
		fuse_session_destroy(uf->se);
	uf->se = NULL;
	teardown(uf);
	free(uf->cmd.mountpoint);
	free(uf->mountpoint);
	free(uf->wakeup);
	free(uf->o.size);
	free(uf->o.nr_inodes);
	free(uf->o.uid);
	free(uf->o.gid);
	free(uf->o.mode);
	pthread_mutex_destroy(&uf->nlock);
	pthread_mutex_destroy(&uf->tlock);
	pthread_mutex_destroy(&uf->qlock);
	pthread_cond_destroy(&uf->qcond);
	pthread_cond_destroy(&uf->qdone);
	free(uf);
}

int uvfs_fuse_serve(struct uvfs *fs, const char *mountpoint, int argc, char **argv)
{
	struct uvfs_fuse *uf;
	int err = 0, r;

	uf = uvfs_fuse_new(fs, mountpoint, argc, argv, &err);
	if (!uf)
		return err;
	if (uvfs_fuse_set_signal_handlers(uf) != 0) {
		uvfs_fuse_destroy(uf);
		return -EIO;
	}
	r = uvfs_fuse_loop(uf);
	uvfs_fuse_remove_signal_handlers(uf);
	uvfs_fuse_destroy(uf);
	return r;
}
