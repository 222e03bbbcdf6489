/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_locks.c - POSIX record locks (getlk, setlk, setlkw, and flush, which
 * releases them) and flock through the mount, kept by uvfs (-o locks), so
 * that programs on the mount and the library's procs see each other's locks.
 *
 * Owners.  The kernel names the owner of a POSIX lock by lock_owner (its
 * files_struct: the threads of a process share it, a fork's child has its
 * own) and releases all of an owner's locks on a file when the owner closes
 * any fd of it (FLUSH with that lock_owner).  Each (owner, inode) the kernel
 * locks through gets a uvfs open file of its own here, and its locks are
 * OFD locks of that file: two open files' OFD locks conflict exactly as two
 * owners' POSIX locks do, one file's locks split, merge and replace each
 * other as one owner's do, and they conflict with the library's POSIX and
 * OFD locks too.  FLUSH closes that file, which drops them all, as close(2)
 * does for a POSIX owner.  What differs from Linux's POSIX locks: F_GETLK
 * through the mount names no holder (l_pid 0: an OFD lock has none), and a
 * wait never ends in EDEADLK.
 *
 * flock locks belong to the open file description: the kernel's open file
 * is our uvfs file (fi->fh), on which uvfs_flock acts, and RELEASE closes it
 * at the last close.  Without an OPEN reaching uvfs (no-open) there is no
 * such file, so with no-open flock stays the kernel's (uf_init).
 *
 * Waiting (F_SETLKW, flock without LOCK_NB) is a retry of the non-blocking
 * call with a growing pause, in the worker thread of the request: a uvfs wait
 * cannot be interrupted, and the kernel, once a request reached us, waits
 * for its answer even when the process is killed, so a wait must end on the
 * kernel's INTERRUPT (EINTR, with nothing locked, as fcntl(2) after a
 * signal).  Other requests go on in the other worker threads meanwhile.
 */
#include "internal.h"
#include <sys/file.h>

struct uf_lkowner {
	struct uf_lkowner *next;
	uint64_t owner;
	dev_t dev;
	ino_t ino;
	int fd;        /* in the shared fd table */
	unsigned refs; /* the table's (while hashed) and each request's; under lk_lock */
	bool hashed;
};

/* One lock for the owner tables of every instance: a leaf, taken around
 * table updates only, never across a uvfs call. */
static pthread_mutex_t lk_lock = PTHREAD_MUTEX_INITIALIZER;

static struct uf_lkowner **lk_slot(struct uvfs_fuse *uf, uint64_t owner, dev_t dev, ino_t ino)
{
	size_t h = (size_t)((owner ^ (owner >> 29) ^ ((uint64_t)ino * 0x9e3779b97f4a7c15ull)) % UF_LK_BUCKETS);
	struct uf_lkowner **pp = &uf->lk[h];

	while (*pp && !((*pp)->owner == owner && (*pp)->dev == dev && (*pp)->ino == ino))
		pp = &(*pp)->next;
	return pp;
}

static void lk_put(struct uvfs_proc *p, struct uf_lkowner *o)
{
	bool last;

	pthread_mutex_lock(&lk_lock);
	last = --o->refs == 0;
	pthread_mutex_unlock(&lk_lock);
	if (last) {
		uvfs_close(p, o->fd); /* drops the owner's locks */
		free(o);
	}
}

/* The owner's entry for the node, with a reference: found, or made when
 * create; NULL with *err set otherwise. */
static struct uf_lkowner *lk_get(struct uf_thread *t, struct uf_node *n, uint64_t owner, bool create, int *err)
{
	struct uvfs_fuse *uf = t->uf;
	struct uf_lkowner **pp, *o;
	uid_t uid = t->uid;
	gid_t gid = t->gid;
	int fd;

	pthread_mutex_lock(&lk_lock);
	o = *lk_slot(uf, owner, n->dev, n->ino);
	if (o)
		o->refs++;
	pthread_mutex_unlock(&lk_lock);
	if (o || !create) {
		*err = -ENOENT;
		return o;
	}
	/* The kernel checked the caller's fd (a write lock needs one open for
	 * writing); this file only has to take both kinds. */
	uf_set_cred(t, 0, 0);
	fd = uvfs_fd_reopen(t->p, n->fd, O_RDWR | O_CLOEXEC);
	if (fd == -EROFS || fd == -ETXTBSY || fd == -EISDIR || fd == -EPERM)
		fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
	uf_set_cred(t, uid, gid);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	o = malloc(sizeof(*o));
	if (!o) {
		uvfs_close(t->p, fd);
		*err = -ENOMEM;
		return NULL;
	}
	o->owner = owner;
	o->dev = n->dev;
	o->ino = n->ino;
	o->fd = fd;
	o->refs = 2;
	o->hashed = true;
	pthread_mutex_lock(&lk_lock);
	pp = lk_slot(uf, owner, n->dev, n->ino);
	if (*pp) { /* another thread of the owner made it first */
		struct uf_lkowner *mine = o;

		o = *pp;
		o->refs++;
		pthread_mutex_unlock(&lk_lock);
		uvfs_close(t->p, mine->fd);
		free(mine);
		return o;
	}
	o->next = NULL;
	*pp = o;
	pthread_mutex_unlock(&lk_lock);
	return o;
}

/* Drops the owner's entry for the node, and so its locks (close of a POSIX owner). */
static void lk_forget(struct uf_thread *t, struct uf_node *n, uint64_t owner)
{
	struct uf_lkowner **pp, *o;

	pthread_mutex_lock(&lk_lock);
	pp = lk_slot(t->uf, owner, n->dev, n->ino);
	o = *pp;
	if (o) {
		*pp = o->next;
		o->hashed = false;
	}
	pthread_mutex_unlock(&lk_lock);
	if (o)
		lk_put(t->p, o);
}

/* At teardown: every entry left (an owner whose close never came). */
void uf_locks_free(struct uvfs_fuse *uf)
{
	for (size_t i = 0; i < UF_LK_BUCKETS; i++) {
		struct uf_lkowner *o, *next;

		for (o = uf->lk[i]; o; o = next) {
			next = o->next;
			uvfs_close(uf->base, o->fd);
			free(o);
		}
		uf->lk[i] = NULL;
	}
}

/* The caller gave up (a signal: the kernel's INTERRUPT), or the mount goes. */
static bool lk_interrupted(fuse_req_t req)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);

	return fuse_req_interrupted(req) || fuse_session_exited(uf->se);
}

/* The pause before the next try of a blocked lock: 50 us growing to 20 ms. */
static void lk_pause(long *ns)
{
	struct timespec ts = { 0, *ns };

	nanosleep(&ts, NULL);
	if (*ns < 20 * 1000 * 1000)
		*ns *= 2;
}

void uf_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock)
{
	BEGIN(req);
	struct uf_lkowner *o;
	struct flock l = *lock;
	int r;

	o = lk_get(t, N(req, ino), fi->lock_owner, true, &r);
	if (!o) {
		fuse_reply_err(req, -r);
		return;
	}
	l.l_pid = 0;
	r = uvfs_fcntl(t->p, o->fd, F_OFD_GETLK, (unsigned long)&l);
	lk_put(t->p, o);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	/* no holder to name: an OFD lock's l_pid is -1, a library proc's pid is
	 * uvfs's; 0 is what the kernel reports for a pid it does not know */
	l.l_pid = 0;
	fuse_reply_lock(req, &l);
}

void uf_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock, int sleep)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino);
	struct uf_lkowner *o;
	struct flock l = *lock;
	long pause = 50 * 1000;
	int r;

	/* an owner with no file here has nothing to unlock */
	o = lk_get(t, n, fi->lock_owner, l.l_type != F_UNLCK, &r);
	if (!o) {
		fuse_reply_err(req, r == -ENOENT ? 0 : -r);
		return;
	}
	l.l_pid = 0;
	while ((r = uvfs_fcntl(t->p, o->fd, F_OFD_SETLK, (unsigned long)&l)) == -EAGAIN && sleep) {
		if (lk_interrupted(req)) {
			r = -EINTR;
			break;
		}
		lk_pause(&pause);
	}
	lk_put(t->p, o);
	fuse_reply_err(req, -r);
}

void uf_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op)
{
	BEGIN(req);
	long pause = 50 * 1000;
	int r;

	if (!fi->fh) { /* not asked for with no-open (uf_init) */
		fuse_reply_err(req, ENOSYS);
		return;
	}
	if ((op & LOCK_NB) || (op & LOCK_UN)) {
		r = uvfs_flock(t->p, fh_fd(fi), op);
	} else {
		/* a conversion drops the old lock before it waits, as a
		 * LOCK_NB try does: the tries are a wait */
		while ((r = uvfs_flock(t->p, fh_fd(fi), op | LOCK_NB)) == -EWOULDBLOCK) {
			if (fuse_req_interrupted(req)) {
				r = -EINTR;
				break;
			}
			lk_pause(&pause);
		}
	}
	fuse_reply_err(req, -r);
}

/* close(2) of one of the owner's fds: its POSIX locks on the file go. */
void uf_locks_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);

	lk_forget(t, N(req, ino), fi->lock_owner);
	fuse_reply_err(req, 0);
}
