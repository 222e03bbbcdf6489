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

static int node_files_take(struct uvfs_fuse *uf, struct uf_node *n, int *fds);

void uf_node_free(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n)
{
	int fds[2], k;

	pthread_mutex_lock(&uf->flock);
	k = node_files_take(uf, n, fds);
	pthread_mutex_unlock(&uf->flock);
	while (k > 0)
		uvfs_close(p, fds[--k]);
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
 * The files that reads and writes of a node go through when the kernel
 * opened it without asking (no-open): a read-write one, made at the first
 * request that needs it, and a read-only one for reads before that (opening
 * for writing is not free on every filesystem: on an overlay it copies a
 * lower file up, so reading a lower file through the mount would copy it;
 * after a copy-up the overlay's read-only file reads the upper file).  The
 * kernel has checked the opener's permissions (no-open is used only with
 * default_permissions), so they are opened with fs credentials 0.
 *
 * On hostfs (and an overlay of hostfs layers) every open file holds a host
 * fd, and the kernel may know far more inodes than the fd limit allows: tar
 * -x after 20,000 copy-ups in one -o lowerdir mount ran out at 20,000, find
 * | xargs cat of 25,000 files too.  So the files kept are bounded
 * (uf->max_files, a quarter of the fd limit) and least recently used first
 * goes; a node whose files were closed opens them again at its next request,
 * through its O_PATH fd (which hostfs keeps for an unlinked file too).  A
 * request holds the node's files (users) until uf_node_file_put, so they are
 * never closed under it.  What the library then sees of the frontend is an
 * open and a close of such a file (inotify IN_OPEN, IN_CLOSE_*) each time
 * the node comes back, instead of once per node.
 */
static void lru_unlink(struct uvfs_fuse *uf, struct uf_node *n)
{
	if (n->lru_prev)
		n->lru_prev->lru_next = n->lru_next;
	else if (uf->lru_head == n)
		uf->lru_head = n->lru_next;
	else
		return; /* not in the list */
	if (n->lru_next)
		n->lru_next->lru_prev = n->lru_prev;
	else
		uf->lru_tail = n->lru_prev;
	n->lru_prev = n->lru_next = NULL;
}

static void lru_touch(struct uvfs_fuse *uf, struct uf_node *n)
{
	if (uf->lru_head == n)
		return;
	lru_unlink(uf, n);
	n->lru_next = uf->lru_head;
	if (uf->lru_head)
		uf->lru_head->lru_prev = n;
	else
		uf->lru_tail = n;
	uf->lru_head = n;
}

/* Take n's files out (under flock) into fds[0..1]; returns how many. */
static int node_files_take(struct uvfs_fuse *uf, struct uf_node *n, int *fds)
{
	int k = 0;

	if (n->iofd >= 0)
		fds[k++] = n->iofd;
	if (n->rdfd >= 0)
		fds[k++] = n->rdfd;
	n->iofd = n->rdfd = -1;
	uf->nfiles -= (unsigned)k;
	lru_unlink(uf, n);
	return k;
}

/* Over the bound: the files of the least recently used nodes no request is
 * using, into fds (room for 2 * UF_TRIM_NODES); returns how many.  Each
 * request opens one file at most, so a node or two per call keep the
 * bound; busy nodes only put it off. */
#define UF_TRIM_NODES 2
static int lru_trim(struct uvfs_fuse *uf, int *fds)
{
	struct uf_node *n = uf->lru_tail, *prev;
	int k = 0, nodes = 0;

	for (; n && uf->nfiles > uf->max_files && nodes < UF_TRIM_NODES; n = prev) {
		prev = n->lru_prev;
		if (n->users)
			continue;
		k += node_files_take(uf, n, fds + k);
		nodes++;
	}
	return k;
}

static int node_open(struct uf_thread *t, struct uf_node *n, bool write)
{
	uid_t uid = t->uid;
	gid_t gid = t->gid;
	int fd;

	uf_set_cred(t, 0, 0);
	fd = uvfs_fd_reopen(t->p, n->fd, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (write && (fd == -EROFS || fd == -ETXTBSY || fd == -EISDIR || fd == -EPERM))
		fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
	uf_set_cred(t, uid, gid);
	return fd;
}

/*
 * A file of n for a no-open request, or -errno: the read-write one (write;
 * read-only where the node cannot be written: a directory, a read-only
 * filesystem), or for a read whichever the node has.  Held until
 * uf_node_file_put(n).
 */
int uf_node_file(struct uf_thread *t, struct uf_node *n, bool write)
{
	struct uvfs_fuse *uf = t->uf;
	int fd, spare = -1, old[2 * UF_TRIM_NODES + 1], k, i;

	pthread_mutex_lock(&uf->flock);
	fd = n->iofd >= 0 ? n->iofd : write ? -1 : n->rdfd;
	if (fd >= 0) {
		n->users++;
		lru_touch(uf, n);
		pthread_mutex_unlock(&uf->flock);
		return fd;
	}
	pthread_mutex_unlock(&uf->flock);

	fd = node_open(t, n, write);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&uf->flock);
	if (n->iofd >= 0 || (!write && n->rdfd >= 0)) {
		spare = fd; /* another request made one first */
		fd = n->iofd >= 0 ? n->iofd : n->rdfd;
	} else {
		*(write ? &n->iofd : &n->rdfd) = fd;
		uf->nfiles++;
	}
	n->users++;
	lru_touch(uf, n);
	k = lru_trim(uf, old);
	pthread_mutex_unlock(&uf->flock);
	if (spare >= 0)
		old[k++] = spare;
	for (i = 0; i < k; i++)
		uvfs_close(t->p, old[i]);
	return fd;
}

void uf_node_file_put(struct uvfs_fuse *uf, struct uf_node *n)
{
	pthread_mutex_lock(&uf->flock);
	n->users--;
	pthread_mutex_unlock(&uf->flock);
}
