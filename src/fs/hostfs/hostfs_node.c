// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_node.c - hostfs's nodes (hostfs.h): the identity hash, and the
 * LRU that bounds the host fds held.
 *
 * Confinement: every fd here is opened with one name relative to the fd of
 * the node's parent, by openat2 with RESOLVE_BENEATH (no "..", no absolute
 * path), RESOLVE_NO_SYMLINKS and O_NOFOLLOW (a symlink is opened as itself,
 * never followed), RESOLVE_NO_MAGICLINKS and RESOLVE_NO_XDEV (no host mount
 * is crossed), and what it opened must be the object the node was (same
 * st_dev and st_ino), or the node is stale.  So a node's fd is always the
 * object uvfs found by walking down from the source directory, and the only
 * path ever resolved through it is /proc/self/fd/N of that very fd.
 */
#include "hostfs.h"
#include <sys/syscall.h>

static const struct open_how path_how = {
	.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
	.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
};

static uint64_t mount_id(int fd)
{
	struct statx stx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) || !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

/*
 * Where openat2 does not exist (valgrind's emulation): one name with
 * O_NOFOLLOW resolves no symlink and no "..", and the mount is checked
 * after the fact, by mount id, so that a bind mount of the same filesystem
 * is refused too (EXDEV, as RESOLVE_NO_XDEV).
 */
static int open_beneath_compat(struct hostfs_sb *hsb, int dfd, const char *name)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (mount_id(fd) != hsb->mnt_id) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

int hostfs_open_beneath(struct hostfs_sb *hsb, int dfd, const char *name)
{
	static int no_openat2; /* atomic: set once */
	if (!__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
		long fd = syscall(SYS_openat2, dfd, name, &path_how, sizeof(path_how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
	}
	return open_beneath_compat(hsb, dfd, name);
}

static size_t hash_of(const struct hostfs_sb *hsb, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino * 0x9e3779b97f4a7c15ull) ^ (uint64_t)dev;
	return (size_t)(h ^ (h >> 29)) & (hsb->hash_size - 1);
}

static struct hnode *hash_find(struct hostfs_sb *hsb, dev_t dev, ino_t ino)
{
	struct hnode *hn = hsb->hash[hash_of(hsb, dev, ino)];
	while (hn && (hn->dev != dev || hn->ino != ino))
		hn = hn->hash_next;
	return hn;
}

static void hash_grow(struct hostfs_sb *hsb)
{
	size_t n = hsb->hash_size * 2;
	struct hnode **h = calloc(n, sizeof(*h));
	if (!h)
		return; /* longer chains, still correct */
	struct hnode **old = hsb->hash;
	size_t on = hsb->hash_size;
	hsb->hash = h;
	hsb->hash_size = n;
	for (size_t i = 0; i < on; i++) {
		while (old[i]) {
			struct hnode *hn = old[i];
			old[i] = hn->hash_next;
			size_t b = hash_of(hsb, hn->dev, hn->ino);
			hn->hash_next = h[b];
			h[b] = hn;
		}
	}
	free(old);
}

static void hash_del(struct hostfs_sb *hsb, struct hnode *hn)
{
	struct hnode **pp = &hsb->hash[hash_of(hsb, hn->dev, hn->ino)];
	while (*pp != hn)
		pp = &(*pp)->hash_next;
	*pp = hn->hash_next;
	hsb->nr_nodes--;
}

/* The host fds of every superblock mounted without fds= count against one
 * budget for the process (its max_fds, hostfs.c's default), so that several
 * such mounts (an overlay's host layers, uvfs-fuse's own files beside them)
 * together stay within the fd limit; fds=N bounds that superblock alone. */
static unsigned long shared_nr_fds;

static void nr_fds_add(struct hostfs_sb *hsb, int n)
{
	hsb->nr_fds += (unsigned)n;
	if (hsb->shared_budget)
		__atomic_add_fetch(&shared_nr_fds, (unsigned long)(long)n, __ATOMIC_RELAXED);
}

static bool over_bound(const struct hostfs_sb *hsb)
{
	return hsb->nr_fds > hsb->max_fds ||
	       (hsb->shared_budget && __atomic_load_n(&shared_nr_fds, __ATOMIC_RELAXED) > hsb->max_fds);
}

/*
 * The LRU holds only nodes with an fd the trim may close: an unused shared
 * read fd (rusers 0), or an O_PATH fd nobody is using (pins 0) of a node
 * that can be opened again (it has a parent and a name).  A node in use is
 * off it, as Linux keeps busy inodes off its inode LRU, and goes back to
 * its head when its last user is done; so taking and putting a host fd is
 * O(1), and the trim closes from the tail without walking past nodes it may
 * not touch.  A node whose name went (unlink, a host event) may still be on
 * it: the trim takes it off when it meets it, and a new name puts it back.
 */
static bool lru_closable(const struct hnode *hn)
{
	return (hn->rfd >= 0 && !hn->rusers) || (hn->fd >= 0 && !hn->pins && hn->parent && hn->name);
}

/* The node was used: at the LRU's head if the trim may close one of its
 * fds, off the LRU otherwise. */
static void lru_touch(struct hostfs_sb *hsb, struct hnode *hn)
{
	list_del_init(&hn->lru);
	if (lru_closable(hn))
		list_add(&hn->lru, &hsb->lru);
}

static void fd_close_locked(struct hostfs_sb *hsb, struct hnode *hn)
{
	if (hn->fd < 0)
		return;
	close(hn->fd);
	hn->fd = -1;
	if (!lru_closable(hn))
		list_del_init(&hn->lru);
	nr_fds_add(hsb, -1);
}

static void rfd_close_locked(struct hostfs_sb *hsb, struct hnode *hn)
{
	if (hn->rfd < 0)
		return;
	close(hn->rfd);
	hn->rfd = -1;
	if (!lru_closable(hn))
		list_del_init(&hn->lru);
	nr_fds_add(hsb, -1);
}

/* Over the bound: close the least recently used fds nobody is using and
 * that can be opened again: a shared read fd first (its node's O_PATH fd
 * opens it again), then the O_PATH fd itself (but a node whose name went
 * keeps it: it is the only way back to the object).  Each node met loses
 * an fd or leaves the LRU, so the work is in proportion to the fds closed. */
static void lru_trim(struct hostfs_sb *hsb)
{
	while (over_bound(hsb) && !list_empty(&hsb->lru)) {
		struct hnode *hn = list_entry(hsb->lru.prev, struct hnode, lru);
		if (hn->rfd >= 0 && !hn->rusers)
			rfd_close_locked(hsb, hn);
		if (over_bound(hsb) && hn->fd >= 0 && !hn->pins && hn->parent && hn->name)
			fd_close_locked(hsb, hn);
		if (!lru_closable(hn))
			list_del_init(&hn->lru); /* in use, or its name went */
	}
}

/* A user of the node's O_PATH fd is done with it. */
static void unpin_locked(struct hostfs_sb *hsb, struct hnode *hn)
{
	if (!--hn->pins)
		lru_touch(hsb, hn);
}

static void fd_adopt_locked(struct hostfs_sb *hsb, struct hnode *hn, int fd)
{
	hn->fd = fd;
	lru_touch(hsb, hn);
	nr_fds_add(hsb, 1);
	lru_trim(hsb);
}

static void node_put_locked(struct hostfs_sb *hsb, struct hnode *hn)
{
	while (hn && --hn->refs == 0) {
		struct hnode *parent = hn->parent;
		hash_del(hsb, hn);
		list_del_init(&hn->sibling);
		rfd_close_locked(hsb, hn);
		fd_close_locked(hsb, hn);
		if (hn->wfd >= 0)
			close(hn->wfd);
		list_del_init(&hn->lru);
		free(hn->name);
		free(hn);
		hn = parent;
	}
}

static int fd_get_locked(struct hostfs_sb *hsb, struct hnode *hn)
{
	if (hn->fd >= 0) {
		hn->pins++;
		lru_touch(hsb, hn);
		return hn->fd;
	}
	if (!hn->parent || !hn->name)
		return -ESTALE;
	int pfd = fd_get_locked(hsb, hn->parent);
	if (pfd < 0)
		return pfd;
	int fd = hostfs_open_beneath(hsb, pfd, hn->name);
	unpin_locked(hsb, hn->parent);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) || st.st_dev != hn->dev || st.st_ino != hn->ino) {
		close(fd);
		return -ESTALE; /* the name names another object now */
	}
	hn->pins++;
	fd_adopt_locked(hsb, hn, fd);
	return fd;
}

int hostfs_fd_get(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	int fd = fd_get_locked(hsb, hn);
	pthread_mutex_unlock(&hsb->lock);
	return fd;
}

void hostfs_fd_put(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	unpin_locked(hsb, hn);
	lru_trim(hsb);
	pthread_mutex_unlock(&hsb->lock);
}

int hostfs_open_node(struct hostfs_sb *hsb, struct hnode *hn, int flags)
{
	int fd = hostfs_fd_get(hsb, hn);
	if (fd < 0)
		return fd;
	char path[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int r = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (r < 0)
		r = -errno;
	hostfs_fd_put(hsb, hn);
	return r;
}

/*
 * A cached file read again and again (a build's headers, a Python import's
 * modules) makes no host open: the read-only opens share one O_RDONLY fd,
 * kept after the last of them goes until the LRU needs the room.  It is
 * opened outside the lock (two racing openers keep the first).
 */
int hostfs_rfd_get(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	if (hn->rfd >= 0) {
		hn->rusers++;
		lru_touch(hsb, hn);
		pthread_mutex_unlock(&hsb->lock);
		return hn->rfd;
	}
	pthread_mutex_unlock(&hsb->lock);
	int fd = hostfs_open_node(hsb, hn, O_RDONLY);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&hsb->lock);
	if (hn->rfd >= 0) {
		close(fd);
	} else {
		hn->rfd = fd;
		nr_fds_add(hsb, 1);
	}
	hn->rusers++;
	lru_touch(hsb, hn);
	lru_trim(hsb);
	fd = hn->rfd;
	pthread_mutex_unlock(&hsb->lock);
	return fd;
}

void hostfs_rfd_put(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	if (!--hn->rusers)
		lru_touch(hsb, hn);
	lru_trim(hsb);
	pthread_mutex_unlock(&hsb->lock);
}

void hostfs_wfd_keep(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	bool have = hn->wfd >= 0;
	pthread_mutex_unlock(&hsb->lock);
	if (have)
		return;
	int fd = hostfs_open_node(hsb, hn, O_RDWR);
	if (fd < 0)
		fd = hostfs_open_node(hsb, hn, O_WRONLY);
	if (fd < 0)
		return;
	pthread_mutex_lock(&hsb->lock);
	if (hn->wfd < 0) {
		hn->wfd = fd;
		fd = -1;
	}
	pthread_mutex_unlock(&hsb->lock);
	if (fd >= 0)
		close(fd);
}

int hostfs_wfd_dup(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	int fd = hn->wfd >= 0 ? fcntl(hn->wfd, F_DUPFD_CLOEXEC, 0) : -1;
	int err = hn->wfd < 0 ? -EPERM : fd < 0 ? -errno : 0;
	pthread_mutex_unlock(&hsb->lock);
	return err ? err : fd;
}

static struct hnode *node_new(struct hostfs_sb *hsb, const struct stat *st, struct hnode *parent,
			      const char *name)
{
	struct hnode *hn = calloc(1, sizeof(*hn));
	char *n = name ? strdup(name) : NULL;
	if (!hn || (name && !n)) {
		free(hn);
		free(n);
		return NULL;
	}
	hn->dev = st->st_dev;
	hn->ino = st->st_ino;
	hn->fd = -1;
	hn->rfd = -1;
	hn->wfd = -1;
	hn->name = n;
	INIT_LIST_HEAD(&hn->lru);
	INIT_LIST_HEAD(&hn->children);
	INIT_LIST_HEAD(&hn->sibling);
	hn->wd = -1;
	hn->parent = parent;
	if (parent) {
		parent->refs++;
		list_add(&hn->sibling, &parent->children);
	}
	if (hsb->nr_nodes >= hsb->hash_size)
		hash_grow(hsb);
	size_t b = hash_of(hsb, hn->dev, hn->ino);
	hn->hash_next = hsb->hash[b];
	hsb->hash[b] = hn;
	hsb->nr_nodes++;
	return hn;
}

/* igrab: a reference on an inode that is not already on its way out */
static bool inode_tryget(struct inode *inode)
{
	long c = __atomic_load_n(&inode->i_count, __ATOMIC_RELAXED);
	while (c > 0)
		if (__atomic_compare_exchange_n(&inode->i_count, &c, c + 1, true, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/* The node is now name in parent (a reference on parent taken here). */
static void node_rename_locked(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, char *name)
{
	parent->refs++;
	struct hnode *old = hn->parent;
	hn->parent = parent;
	list_del_init(&hn->sibling);
	list_add(&hn->sibling, &parent->children);
	free(hn->name);
	hn->name = name;
	if (list_empty(&hn->lru))
		lru_touch(hsb, hn); /* a node that lost its name may be closed again */
	node_put_locked(hsb, old);
}

/* A node found again by a name after its own name went: that name reopens
 * it from now on. */
static void node_renamed_if_nameless(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent,
				     const char *name)
{
	if (hn->name || !parent || !name)
		return;
	char *n = strdup(name);
	if (n)
		node_rename_locked(hsb, hn, parent, n);
}

/* The host was just asked and has the node as name in parent: the name
 * its fd is reopened by, once the LRU closed it, is that one.  The host
 * may have renamed it meanwhile (the name it had names nothing or another
 * object), or, under cache=watch, an event about its old name took that
 * name; either way the node would be out of reach with its fd closed. */
static void node_found_at(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name)
{
	if (!parent || !name || (hn->parent == parent && hn->name && !strcmp(hn->name, name)))
		return;
	char *n = strdup(name);
	if (n)
		node_rename_locked(hsb, hn, parent, n);
}

void hostfs_node_found_locked(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name)
{
	node_found_at(hsb, hn, parent, name);
}

void hostfs_node_found(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name)
{
	pthread_mutex_lock(&hsb->lock);
	node_found_at(hsb, hn, parent, name);
	pthread_mutex_unlock(&hsb->lock);
}

static unsigned stx_fsflags(uint64_t a)
{
	return ((a & STATX_ATTR_IMMUTABLE) ? UVFS_FS_IMMUTABLE_FL : 0) | ((a & STATX_ATTR_APPEND) ? UVFS_FS_APPEND_FL : 0) |
	       ((a & STATX_ATTR_NODUMP) ? UVFS_FS_NODUMP_FL : 0);
}

int hostfs_stat_fd(int fd, struct stat *st, unsigned *fsflags, unsigned *known)
{
	struct statx x;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &x))
		return -errno;
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(x.stx_dev_major, x.stx_dev_minor);
	st->st_ino = x.stx_ino;
	st->st_mode = x.stx_mode;
	st->st_nlink = x.stx_nlink;
	st->st_uid = x.stx_uid;
	st->st_gid = x.stx_gid;
	st->st_rdev = makedev(x.stx_rdev_major, x.stx_rdev_minor);
	st->st_size = (off_t)x.stx_size;
	st->st_blksize = x.stx_blksize;
	st->st_blocks = (blkcnt_t)x.stx_blocks;
	st->st_atim = (struct timespec){ x.stx_atime.tv_sec, x.stx_atime.tv_nsec };
	st->st_mtim = (struct timespec){ x.stx_mtime.tv_sec, x.stx_mtime.tv_nsec };
	st->st_ctim = (struct timespec){ x.stx_ctime.tv_sec, x.stx_ctime.tv_nsec };
	*fsflags = stx_fsflags(x.stx_attributes & x.stx_attributes_mask);
	if (known)
		*known = stx_fsflags(x.stx_attributes_mask);
	return 0;
}

struct inode *hostfs_iget(struct super_block *sb, int fd, const struct stat *st, unsigned fsflags,
			  struct hnode *parent, const char *name, bool acls, int *errp)
{
	struct hostfs_sb *hsb = HOSTFS_SB(sb);
	pthread_mutex_lock(&hsb->lock);
	struct hnode *hn = hash_find(hsb, st->st_dev, st->st_ino);
	if (hn && hn->inode && inode_tryget(hn->inode)) {
		struct inode *inode = hn->inode;
		if (hn->fd < 0)
			fd_adopt_locked(hsb, hn, fd);
		else
			close(fd);
		node_found_at(hsb, hn, parent, name);
		pthread_mutex_unlock(&hsb->lock);
		return inode;
	}
	bool fresh = !hn;
	if (!fresh)
		node_found_at(hsb, hn, parent, name);
	if (fresh) {
		hn = node_new(hsb, st, parent, name);
		if (!hn) {
			pthread_mutex_unlock(&hsb->lock);
			close(fd);
			*errp = -ENOMEM;
			return NULL;
		}
	}
	struct inode *inode = new_inode(sb);
	if (!inode) {
		if (fresh) {
			hn->refs = 1;
			node_put_locked(hsb, hn);
		}
		pthread_mutex_unlock(&hsb->lock);
		close(fd);
		*errp = -ENOMEM;
		return NULL;
	}
	hn->refs++;
	hn->inode = inode;
	HOSTFS_I(inode)->hn = hn;
	hostfs_fill_inode(inode, st);
	if (fsflags)
		inode_set_fsflags(inode, fsflags);
	hostfs_set_ops(inode);
	if (hsb->watch && S_ISDIR(st->st_mode))
		hostfs_watch_add_locked(hsb, hn, inode, fd);
	/* with fd itself: adopting it may let the LRU close it at once */
	if (acls)
		hostfs_load_acls(inode, fd);
	if (hn->fd < 0)
		fd_adopt_locked(hsb, hn, fd);
	else
		close(fd);
	pthread_mutex_unlock(&hsb->lock);
	return inode;
}

void hostfs_node_evict(struct inode *inode)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	struct hnode *hn = HN(inode);
	if (!hn)
		return;
	pthread_mutex_lock(&hsb->lock);
	if (hn->inode == inode) {
		hn->inode = NULL;
		if (hn->wd >= 0)
			hostfs_watch_del_locked(hsb, hn);
	}
	node_put_locked(hsb, hn);
	pthread_mutex_unlock(&hsb->lock);
}

int hostfs_node_rename(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name)
{
	char *n = strdup(name);
	if (!n)
		return -ENOMEM;
	pthread_mutex_lock(&hsb->lock);
	node_rename_locked(hsb, hn, parent, n);
	pthread_mutex_unlock(&hsb->lock);
	return 0;
}

void hostfs_node_unlinked(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name)
{
	pthread_mutex_lock(&hsb->lock);
	if (hn->parent == parent && hn->name && !strcmp(hn->name, name)) {
		free(hn->name);
		hn->name = NULL; /* the fd, if open, stays: nothing else reaches it */
	}
	pthread_mutex_unlock(&hsb->lock);
}

void hostfs_set_max_fds(struct hostfs_sb *hsb, unsigned max_fds)
{
	pthread_mutex_lock(&hsb->lock);
	if (hsb->shared_budget) {
		/* its fds leave the shared count: a bound of its own now */
		__atomic_sub_fetch(&shared_nr_fds, (unsigned long)hsb->nr_fds, __ATOMIC_RELAXED);
		hsb->shared_budget = false;
	}
	hsb->max_fds = max_fds;
	lru_trim(hsb);
	pthread_mutex_unlock(&hsb->lock);
}

int hostfs_sb_init(struct hostfs_sb *hsb, int root_fd, const struct stat *st, unsigned max_fds)
{
	pthread_mutex_init(&hsb->lock, NULL);
	INIT_LIST_HEAD(&hsb->lru);
	hsb->hash_size = 256;
	hsb->hash = calloc(hsb->hash_size, sizeof(*hsb->hash));
	hsb->max_fds = max_fds;
	hsb->mnt_id = mount_id(root_fd);
	if (!hsb->hash)
		return -ENOMEM;
	hsb->root = node_new(hsb, st, NULL, NULL);
	if (!hsb->root)
		return -ENOMEM;
	/* the superblock's own reference: the root's fd never goes */
	hsb->root->refs = 1;
	hsb->root->pins = 1;
	fd_adopt_locked(hsb, hsb->root, root_fd);
	return 0;
}

void hostfs_sb_fini(struct hostfs_sb *hsb)
{
	if (hsb->root) {
		pthread_mutex_lock(&hsb->lock);
		node_put_locked(hsb, hsb->root);
		pthread_mutex_unlock(&hsb->lock);
	}
	LIFETIME_CHECK(hsb->nr_nodes == 0, "hostfs: %zu nodes left at teardown", hsb->nr_nodes);
	free(hsb->hash);
	pthread_mutex_destroy(&hsb->lock);
}

struct hnode *hostfs_node_find_locked(struct hostfs_sb *hsb, dev_t dev, ino_t ino)
{
	return hash_find(hsb, dev, ino);
}

void hostfs_node_unref(struct hostfs_sb *hsb, struct hnode *hn)
{
	pthread_mutex_lock(&hsb->lock);
	node_put_locked(hsb, hn);
	pthread_mutex_unlock(&hsb->lock);
}

void hostfs_node_named(struct hostfs_sb *hsb, struct hnode *hn, struct hnode *parent, const char *name)
{
	pthread_mutex_lock(&hsb->lock);
	node_renamed_if_nameless(hsb, hn, parent, name);
	pthread_mutex_unlock(&hsb->lock);
}
