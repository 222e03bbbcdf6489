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
	uf_node_files_close(uf, p, n);
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
	/* the mount fd may not be O_PATH, as on Linux (fdget): the root's
	 * node fd is, so a plain open of the root serves (decodes are rare) */
	int mfd = uvfs_fd_reopen(t->p, uf->root->fd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = mfd < 0 ? mfd : uvfs_open_by_handle_at(t->p, mfd, &fh.h, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (mfd >= 0)
		uvfs_close(t->p, mfd);
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
