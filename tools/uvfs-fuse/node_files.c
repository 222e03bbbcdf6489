/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node_files.c - the files that no-open reads and writes of a node go
 * through, and the bound on how many are kept.
 *
 * When the kernel opened a file without asking (no-open), its reads and
 * writes go through files of the node's: a read-write one, made at the first
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
 *
 * Over host directories the bound is smaller than hostfs's own: a file kept
 * here holds a host fd that hostfs counts in its LRU (a read-only file, its
 * node's shared read fd) but may not close while the file is open.  With a
 * quarter of the fd limit here (5000 at 20,000) and hostfs's bound of a
 * quarter of it, at most 1024 (docs/ARCHITECTURE.md, "Bounded host fds"),
 * the files kept here alone held hostfs over its bound, and every take or
 * put of a host fd walked all of them in hostfs's LRU before giving up:
 * `find | xargs cat` of /usr/share/man (24,213 entries) through -o hostdir
 * took 16-47 s and `rm -rf` of it 24-37 s, with 79% of the server's time in
 * that walk; keeping a quarter of hostfs's bound here, 1.7-3.1 s and 1.9-2.1
 * s (docs/BENCHMARKS.md, session 8).  A node whose file was closed opens it
 * again through hostfs's cached read fd, without a host call while hostfs
 * still has it.
 */
#include "internal.h"
#include <sys/resource.h>

/* How many files the nodes may keep (uf->max_files): a quarter of the fd
 * limit; over host directories (hostdir=, lowerdir=) a quarter of hostfs's
 * default bound, itself a quarter of the limit and at most 1024. */
unsigned uf_node_files_bound(const struct uvfs_fuse *uf)
{
	struct rlimit rl;
	unsigned long n = 1u << 20;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < n)
		n = rl.rlim_cur / 4;
	if (uf->o.hostdir || uf->o.lowerdir) {
		if (n > 1024)
			n = 1024;
		n /= 4;
	}
	return n < 4 ? 4 : (unsigned)n;
}

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

/* The node goes: its files are closed. */
void uf_node_files_close(struct uvfs_fuse *uf, struct uvfs_proc *p, struct uf_node *n)
{
	int fds[2], k;

	pthread_mutex_lock(&uf->flock);
	k = node_files_take(uf, n, fds);
	pthread_mutex_unlock(&uf->flock);
	while (k > 0)
		uvfs_close(p, fds[--k]);
}
