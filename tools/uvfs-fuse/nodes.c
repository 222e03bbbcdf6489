/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nodes.c - the node table: one node per inode the kernel knows, keyed by (st_dev,
 * st_ino), with the kernel's lookup count and the notifier's pins.
 */
#include "internal.h"

static inline size_t node_hash(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

	return (h ^ (h >> 29)) & (uf->hsize - 1);
}

struct uf_node *uf_hash_find(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
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

void uf_hash_insert(struct uvfs_fuse *uf, struct uf_node *n)
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
struct uf_node *uf_node_get(struct uf_thread *t, const struct stat *st, int fd)
{
	struct uvfs_fuse *uf = t->uf;
	struct uf_node *n, *nn;

	pthread_mutex_lock(&uf->nlock);
	n = uf_hash_find(uf, st->st_dev, st->st_ino);
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
	nn->on_root_fs = st->st_dev == uf->root->dev;
	nn->fd = fd;
	nn->iofd = -1;
	nn->rdfd = -1;
	nn->nlookup = 1;

	pthread_mutex_lock(&uf->nlock);
	n = uf_hash_find(uf, st->st_dev, st->st_ino);
	if (n) { /* another lookup of the same inode won */
		n->nlookup++;
		pthread_mutex_unlock(&uf->nlock);
		uvfs_close(t->p, fd);
		free(nn);
		return n;
	}
	uf_hash_insert(uf, nn);
	pthread_mutex_unlock(&uf->nlock);
	return nn;
}

void uf_node_free(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n)
{
	if (n->iofd >= 0)
		uvfs_close(p, n->iofd);
	if (n->rdfd >= 0) {
		uvfs_close(p, n->rdfd);
		__atomic_sub_fetch(&uf->nrdfds, 1, __ATOMIC_RELAXED);
	}
	uvfs_close(p, n->fd);
	free(n);
}

/* Drop count lookups; the node goes when none is left (and no pin). */
void uf_node_forget(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n, uint64_t count)
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
		uf_node_free(uf, p, n);
}

/* The node of nodeid id (an inode number plus one, on the root's
 * filesystem), or NULL when the kernel no longer holds it. */
struct uf_node *uf_node_by_id(struct uvfs_fuse *uf, fuse_ino_t id)
{
	struct uf_node *n;

	pthread_mutex_lock(&uf->nlock);
	n = uf_hash_find(uf, uf->root->dev, (ino_t)(id - 1));
	pthread_mutex_unlock(&uf->nlock);
	return n;
}

/*
 * A lookup of "." in nodeid id, which the kernel sends to open a file
 * handle whose inode it no longer has: the node, with its lookup count
 * raised, found again by the inode number (uvfs_open_by_handle_at on the
 * root's filesystem, as root: the kernel checked the caller's right to
 * open handles), or NULL with errno ESTALE when no such inode has a name.
 */
struct uf_node *uf_node_by_handle(struct uf_thread *t, fuse_ino_t id)
{
	struct uvfs_fuse *uf = t->uf;
	struct {
		struct file_handle h;
		uint32_t w[3];
	} fh;
	uid_t uid = t->uid;
	gid_t gid = t->gid;
	struct stat st;
	int fd;

	if (id == FUSE_ROOT_ID || (id & UF_NID_ADDR)) {
		struct uf_node *n = id == FUSE_ROOT_ID ? uf->root : NULL;

		if (n) {
			pthread_mutex_lock(&uf->nlock);
			n->nlookup++;
			pthread_mutex_unlock(&uf->nlock);
		}
		errno = ESTALE;
		return n;
	}
	pthread_mutex_lock(&uf->nlock);
	struct uf_node *known = uf_hash_find(uf, uf->root->dev, (ino_t)(id - 1));
	if (known)
		known->nlookup++;
	pthread_mutex_unlock(&uf->nlock);
	if (known)
		return known;
	/* the layout of uvfs's tmpfs handles: generation 0, the number */
	fh.h.handle_bytes = sizeof(fh.w);
	fh.h.handle_type = 1;
	fh.w[0] = 0;
	fh.w[1] = (uint32_t)(id - 1);
	fh.w[2] = (uint32_t)((uint64_t)(id - 1) >> 32);
	uf_set_cred(t, 0, 0);
	fd = uvfs_open_by_handle_at(t->p, uf->root->fd, &fh.h, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	uf_set_cred(t, uid, gid);
	if (fd < 0 || uf_stat_fd(t->p, fd, &st) < 0 || st.st_dev != uf->root->dev) {
		if (fd >= 0)
			uvfs_close(t->p, fd);
		errno = ESTALE;
		return NULL;
	}
	return uf_node_get(t, &st, fd);
}

/* Pin/unpin: for the notifier, which uses a node outside any request. */
struct uf_node *uf_node_pin(struct uvfs_fuse *uf, dev_t dev, ino_t ino)
{
	struct uf_node *n;

	pthread_mutex_lock(&uf->nlock);
	n = uf_hash_find(uf, dev, ino);
	if (n)
		n->pins++;
	pthread_mutex_unlock(&uf->nlock);
	return n;
}

void uf_node_unpin(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n)
{
	bool gone = false;

	pthread_mutex_lock(&uf->nlock);
	if (--n->pins == 0 && n->nlookup == 0 && !n->is_root) {
		hash_remove(uf, n);
		gone = true;
	}
	pthread_mutex_unlock(&uf->nlock);
	if (gone)
		uf_node_free(uf, p, n);
}

/* Whether the kernel may hold n, or be about to (see inval_inode in
 * notifier.c): a counted reply has not been forgotten yet. */
bool uf_node_looked_up(struct uvfs_fuse *uf, struct uf_node *n)
{
	bool r;

	pthread_mutex_lock(&uf->nlock);
	r = n->nlookup > 0;
	pthread_mutex_unlock(&uf->nlock);
	return r;
}

/*
 * The file that reads and writes of a node go through when the kernel opened
 * it without asking (no-open): one per node, made at the first such request
 * and kept until the node goes.  The kernel has checked the opener's
 * permissions (no-open is used only with default_permissions), so it is
 * opened with fs credentials 0, for reading and writing where it can be.
 */
static int node_file(struct uf_thread *t, struct uf_node *n, int *slot, int flags)
{
	int fd = __atomic_load_n(slot, __ATOMIC_ACQUIRE), none = -1;
	uid_t uid = t->uid;
	gid_t gid = t->gid;

	if (fd >= 0)
		return fd;
	uf_set_cred(t, 0, 0);
	fd = uvfs_fd_reopen(t->p, n->fd, flags | O_CLOEXEC);
	if (flags == O_RDWR && (fd == -EROFS || fd == -ETXTBSY || fd == -EISDIR || fd == -EPERM))
		fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
	uf_set_cred(t, uid, gid);
	if (fd < 0)
		return fd;
	if (!__atomic_compare_exchange_n(slot, &none, fd, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		uvfs_close(t->p, fd); /* another request made it first */
		fd = none;
	}
	return fd;
}

int uf_node_iofd(struct uf_thread *t, struct uf_node *n)
{
	return node_file(t, n, &n->iofd, O_RDWR);
}

/*
 * A read needs no write access, and opening for writing is not free on
 * every filesystem: on an overlay it copies a lower file up, so reading a
 * lower file through the mount would copy it.  Reads therefore use a
 * read-only file of their own until the node has its read-write one (after
 * a copy-up, the overlay's read-only file reads the upper file).  On hostfs
 * every open file holds a host fd, and the kernel may know more files than
 * the fd limit allows (find | xargs cat of 25,000 files ran out at 20,000):
 * past uf->max_rdfds kept files, a read opens one for itself (*once: the
 * caller closes it).
 */
int uf_node_rdfd(struct uf_thread *t, struct uf_node *n, bool *once)
{
	struct uvfs_fuse *uf = t->uf;
	int fd = __atomic_load_n(&n->iofd, __ATOMIC_ACQUIRE);
	uid_t uid = t->uid;
	gid_t gid = t->gid;

	*once = false;
	if (fd >= 0)
		return fd;
	fd = __atomic_load_n(&n->rdfd, __ATOMIC_ACQUIRE);
	if (fd >= 0)
		return fd;
	if (__atomic_add_fetch(&uf->nrdfds, 1, __ATOMIC_RELAXED) <= uf->max_rdfds) {
		int none = -1;

		uf_set_cred(t, 0, 0);
		fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
		uf_set_cred(t, uid, gid);
		if (fd >= 0 && __atomic_compare_exchange_n(&n->rdfd, &none, fd, false, __ATOMIC_ACQ_REL,
							   __ATOMIC_ACQUIRE))
			return fd;
		__atomic_sub_fetch(&uf->nrdfds, 1, __ATOMIC_RELAXED);
		if (fd < 0)
			return fd;
		uvfs_close(t->p, fd); /* another request made it first */
		return none;
	}
	__atomic_sub_fetch(&uf->nrdfds, 1, __ATOMIC_RELAXED);
	uf_set_cred(t, 0, 0);
	fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
	uf_set_cred(t, uid, gid);
	*once = fd >= 0;
	return fd;
}
