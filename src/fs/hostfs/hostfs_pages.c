// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_pages.c - hostfs's page cache: file data read from the host kept
 * in uvfs's memory, so that a read of cached data makes no host call
 * (Linux's filemap, for a filesystem whose data lives behind host fds).
 *
 * What is cached.  Per regular file inode, 4 KiB pages by index (an array
 * of pointers, grown on demand), and `size`, the host file's size the
 * pages are true for (-1: not known yet).  The invariant: a cached page
 * holds the host file's bytes at its offset, and zeros past `size`, so a
 * read is served from the pages clamped to `size`, a write copies its
 * bytes into the pages it touches, and a truncate zeroes the tail of its
 * last page and drops the pages past it (Linux's truncate_pagecache).
 * Writes go through to the host first (write-through: nothing is ever
 * only in uvfs's memory, so fsync, close and umount are the host's), and
 * the pages follow what the host accepted.  fallocate drops the file's
 * pages: its modes move or zero ranges in ways cheaper to read again.
 *
 * When it is valid.  cache=exclusive: uvfs is the only writer, so the
 * pages and i_size are exact for as long as uvfs keeps them.  cache=watch
 * (hostfs_watch.c): a host event that may have changed the data (IN_MODIFY
 * of the file, any event about its name, the loss of its directory's
 * watch, an overflow) bumps the inode's data generation, and a read that
 * finds its pages of another generation drops them first; a read reads the
 * pending host events before it looks (as stat does), and a file is only
 * cached while the directory it was found in has a watch.
 * cache=revalidate caches no data: every read is the host's.
 *
 * The budget.  Pages count against a byte budget: one shared by every
 * mount made without pagecache= (HOSTFS_PAGECACHE_DEFAULT for them all
 * together, as the host fds of mounts without fds= are one budget), or the
 * mount's own (pagecache=, hostfs.c).  Each inode's pages remember the
 * budget they count against (p->pc), which follows the superblock's at
 * the inode's next fill with no pages cached, so a remount that gives a
 * mount a budget of its own moves nothing under a reader; an inode's pages
 * are evicted together, least
 * recently used inode first, with a second chance for an inode read since
 * it was last looked at (Linux's referenced bit).  A read that cannot get
 * room (every other inode busy, or more than the budget) is served from
 * the host without caching.
 *
 * Locks: each inode's `lock` (an rwlock: hits read-locked, fills and
 * changes write-locked; it guards p->pc too) is outer to pc->lock (the LRU
 * and the byte count, for every mount sharing the budget)
 * and to hsb->lock (a fill opens the host fd); eviction takes a victim's
 * lock with trylock under pc->lock, so the order is never inverted.  A fill
 * holds its inode's lock across the host pread: a write's pwrite either
 * came before the pread (which reads its bytes) or its page update comes
 * after the fill, so a fill never leaves stale bytes behind.
 */
#include "hostfs.h"
#include <sys/uio.h>

struct hostfs_pages {
	pthread_rwlock_t lock;
	char **slot;          /* page by index, or NULL */
	size_t nr_slots;
	size_t nr_pages;      /* pages held */
	loff_t size;          /* the host file's size the pages are for; -1: not known */
	unsigned gen;         /* the inode's data generation the pages are of */
	int referenced;       /* read since the LRU last looked */
	struct list_head lru; /* in pc->lru while nr_pages (pc->lock) */
	struct hostfs_pagecache *pc; /* the budget the pages count against */
	struct inode *inode;
};

#define PG_SHIFT 12
#define PG_SIZE ((size_t)1 << PG_SHIFT)
#define PG_MASK (PG_SIZE - 1)
#define RUN_MAX 64 /* pages per host preadv */

/* The budget of every mount made without pagecache=: never freed. */
static struct hostfs_pagecache shared_pc = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.lru = LIST_HEAD_INIT(shared_pc.lru),
	.max_bytes = HOSTFS_PAGECACHE_DEFAULT,
};

struct hostfs_pagecache *hostfs_pc_shared(void)
{
	return &shared_pc;
}

struct hostfs_pagecache *hostfs_pc_new(size_t max_bytes)
{
	struct hostfs_pagecache *pc = calloc(1, sizeof(*pc));
	if (!pc)
		return NULL;
	pthread_mutex_init(&pc->lock, NULL);
	INIT_LIST_HEAD(&pc->lru);
	pc->max_bytes = max_bytes;
	return pc;
}

/* A mount's own budget, once its inodes (and so their pages) are gone. */
void hostfs_pc_free(struct hostfs_pagecache *pc)
{
	if (!pc || pc == &shared_pc)
		return;
	LIFETIME_CHECK(!pc->bytes && list_empty(&pc->lru), "hostfs: %zu page cache bytes left at teardown",
		       pc->bytes);
	pthread_mutex_destroy(&pc->lock);
	free(pc);
}

static struct hostfs_pagecache *sb_pc(const struct inode *inode)
{
	return __atomic_load_n(&HOSTFS_SB(inode->i_sb)->pc, __ATOMIC_ACQUIRE);
}

static struct hostfs_pages *pages_of(struct inode *inode)
{
	return __atomic_load_n(&HOSTFS_I(inode)->pages, __ATOMIC_ACQUIRE);
}

static struct hostfs_pages *pages_get(struct inode *inode, struct hostfs_pagecache *pc)
{
	struct hostfs_pages *p = pages_of(inode);
	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_rwlock_init(&p->lock, NULL);
	INIT_LIST_HEAD(&p->lru);
	p->size = -1;
	p->pc = pc;
	p->inode = inode;
	p->gen = __atomic_load_n(&HOSTFS_I(inode)->data_gen, __ATOMIC_ACQUIRE);
	struct hostfs_pages *expect = NULL;
	if (!__atomic_compare_exchange_n(&HOSTFS_I(inode)->pages, &expect, p, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		pthread_rwlock_destroy(&p->lock);
		free(p);
		return expect;
	}
	return p;
}

/* Frees the pages from index `from` on (p->lock held for writing). */
static void drop_from(struct hostfs_pages *p, size_t from)
{
	struct hostfs_pagecache *pc = p->pc;
	size_t freed = 0;
	for (size_t i = from; i < p->nr_slots && p->nr_pages > freed; i++)
		if (p->slot[i]) {
			free(p->slot[i]);
			p->slot[i] = NULL;
			freed++;
		}
	if (!freed)
		return;
	pthread_mutex_lock(&pc->lock);
	p->nr_pages -= freed;
	pc->bytes -= freed * PG_SIZE;
	if (!p->nr_pages) {
		list_del_init(&p->lru);
		pc->nr_inodes--;
	}
	pthread_mutex_unlock(&pc->lock);
}

static void drop_all(struct hostfs_pages *p)
{
	drop_from(p, 0);
	p->size = -1;
}

/* Frees every page of v (pc->lock held, and v's lock for writing, taken
 * with a trylock: it is outer to pc->lock). */
static void evict_locked(struct hostfs_pagecache *pc, struct hostfs_pages *v)
{
	for (size_t i = 0; i < v->nr_slots && v->nr_pages; i++)
		if (v->slot[i]) {
			free(v->slot[i]);
			v->slot[i] = NULL;
			v->nr_pages--;
			pc->bytes -= PG_SIZE;
		}
	v->size = -1;
	list_del_init(&v->lru);
	pc->nr_inodes--;
	pc->evictions++;
}

/* Room for n more pages of p (p->lock held for writing): other inodes'
 * pages evicted, least recently used first.  False: no room now. */
static bool reserve(struct hostfs_pagecache *pc, struct hostfs_pages *p, size_t n)
{
	size_t need = n * PG_SIZE;
	pthread_mutex_lock(&pc->lock);
	if (need > pc->max_bytes) {
		pthread_mutex_unlock(&pc->lock);
		return false;
	}
	for (size_t tries = 2 * pc->nr_inodes + 1; pc->bytes + need > pc->max_bytes && tries; tries--) {
		struct hostfs_pages *v = list_entry(pc->lru.prev, struct hostfs_pages, lru);
		if (&v->lru == &pc->lru)
			break;
		if (v == p || __atomic_exchange_n(&v->referenced, 0, __ATOMIC_RELAXED) ||
		    pthread_rwlock_trywrlock(&v->lock)) {
			list_del_init(&v->lru);
			list_add(&v->lru, &pc->lru);
			continue;
		}
		evict_locked(pc, v);
		pthread_rwlock_unlock(&v->lock);
	}
	bool ok = pc->bytes + need <= pc->max_bytes;
	if (ok && n) {
		pc->bytes += need;
		if (list_empty(&p->lru)) {
			list_add(&p->lru, &pc->lru);
			pc->nr_inodes++;
		}
	}
	pthread_mutex_unlock(&pc->lock);
	return ok;
}

/* Gives back room reserve() took and no page used. */
static void unreserve(struct hostfs_pagecache *pc, struct hostfs_pages *p, size_t n)
{
	pthread_mutex_lock(&pc->lock);
	pc->bytes -= n * PG_SIZE;
	if (!p->nr_pages && !list_empty(&p->lru)) {
		list_del_init(&p->lru);
		pc->nr_inodes--;
	}
	pthread_mutex_unlock(&pc->lock);
}

static bool grow_slots(struct hostfs_pages *p, size_t last)
{
	if (last < p->nr_slots)
		return true;
	size_t n = p->nr_slots ? p->nr_slots : 4;
	while (n <= last)
		n *= 2;
	char **s = realloc(p->slot, n * sizeof(*s));
	if (!s)
		return false;
	memset(s + p->nr_slots, 0, (n - p->nr_slots) * sizeof(*s));
	p->slot = s;
	p->nr_slots = n;
	return true;
}

/* Are the pages of [pos, end) all cached (p->lock held)? */
static bool all_cached(const struct hostfs_pages *p, loff_t pos, loff_t end)
{
	size_t last = (size_t)((end - 1) >> PG_SHIFT);
	if (last >= p->nr_slots)
		return false;
	for (size_t i = (size_t)(pos >> PG_SHIFT); i <= last; i++)
		if (!p->slot[i])
			return false;
	return true;
}

static void copy_out(const struct hostfs_pages *p, char *buf, loff_t pos, loff_t end)
{
	while (pos < end) {
		size_t off = (size_t)pos & PG_MASK;
		size_t n = MIN(PG_SIZE - off, (size_t)(end - pos));
		memcpy(buf, p->slot[pos >> PG_SHIFT] + off, n);
		buf += n;
		pos += (loff_t)n;
	}
}

/* Reads the pages first..last that are not cached from the host fd into new
 * pages, runs of them with one preadv each (p->lock held for writing, room
 * reserved for every missing page).  Pages past the host's end read as
 * zeros.  Returns 0 or -errno (the pages read so far kept). */
static int fill(struct hostfs_pages *p, int fd, size_t first, size_t last)
{
	for (size_t i = first; i <= last;) {
		if (p->slot[i]) {
			i++;
			continue;
		}
		struct iovec iov[RUN_MAX];
		int cnt = 0;
		size_t start = i;
		while (i <= last && !p->slot[i] && cnt < RUN_MAX) {
			char *pg = malloc(PG_SIZE);
			if (!pg)
				break;
			iov[cnt].iov_base = pg;
			iov[cnt++].iov_len = PG_SIZE;
			i++;
		}
		if (!cnt)
			return -ENOMEM;
		ssize_t n = preadv(fd, iov, cnt, (off_t)(start << PG_SHIFT));
		if (n < 0) {
			int err = -errno;
			for (int k = 0; k < cnt; k++)
				free(iov[k].iov_base);
			return err;
		}
		for (int k = 0; k < cnt; k++) {
			size_t got = (size_t)n > (size_t)k * PG_SIZE ? MIN(PG_SIZE, (size_t)n - (size_t)k * PG_SIZE) : 0;
			memset((char *)iov[k].iov_base + got, 0, PG_SIZE - got);
			p->slot[start + (size_t)k] = iov[k].iov_base;
		}
		p->nr_pages += (size_t)cnt;
	}
	return 0;
}

/*
 * A read of [pos, pos + len) of f's inode from the cache, filling what is
 * missing from the host fd get_fd(f) gives (*from_host set then).  Returns
 * the bytes read (0 at the end), -errno, or HOSTFS_UNCACHED: the caller
 * reads from the host.
 */
ssize_t hostfs_pages_read(struct file *f, int (*get_fd)(struct file *), void *buf, size_t len, loff_t pos,
			  bool *from_host)
{
	struct inode *inode = f->f_inode;
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	struct hostfs_pagecache *pc = sb_pc(inode);
	if (!__atomic_load_n(&pc->max_bytes, __ATOMIC_RELAXED) || !len)
		return HOSTFS_UNCACHED;
	struct hostfs_pages *p = pages_get(inode, pc);
	if (!p)
		return HOSTFS_UNCACHED;
	unsigned gen = __atomic_load_n(&HOSTFS_I(inode)->data_gen, __ATOMIC_ACQUIRE);
	pthread_rwlock_rdlock(&p->lock);
	loff_t size = p->size;
	if (p->gen == gen && size >= 0) {
		if (pos >= size) {
			pthread_rwlock_unlock(&p->lock);
			return 0;
		}
		loff_t end = (loff_t)len > size - pos ? size : pos + (loff_t)len;
		if (all_cached(p, pos, end)) {
			copy_out(p, buf, pos, end);
			if (!__atomic_load_n(&p->referenced, __ATOMIC_RELAXED))
				__atomic_store_n(&p->referenced, 1, __ATOMIC_RELAXED);
			pthread_rwlock_unlock(&p->lock);
			return end - pos;
		}
	}
	pthread_rwlock_unlock(&p->lock);

	/* a miss: the host's data, under the write lock */
	pthread_rwlock_wrlock(&p->lock);
	ssize_t ret = HOSTFS_UNCACHED;
	gen = __atomic_load_n(&HOSTFS_I(inode)->data_gen, __ATOMIC_ACQUIRE);
	if (p->gen != gen) {
		drop_all(p);
		p->gen = gen;
	}
	/* no pages: none on any LRU, so they may count against the budget the
	 * superblock has now (a remount gave it one of its own) */
	if (!p->nr_pages)
		p->pc = pc;
	pc = p->pc;
	int fd = get_fd(f);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (p->size < 0) {
		if (hsb->cache == HOSTFS_CACHE_EXCLUSIVE) {
			p->size = READ_ONCE(inode->i_size);
		} else {
			/* cache=watch: only while an event can tell us (its
			 * directory watched), and the size read before the data:
			 * a host change after this read is an event to come */
			if (!hostfs_watch_data_watched(inode))
				goto out;
			struct stat st;
			if (fstat(fd, &st)) {
				ret = -errno;
				goto out;
			}
			p->size = st.st_size;
		}
	}
	size = p->size;
	if (pos >= size) {
		ret = 0;
		goto out;
	}
	loff_t end = (loff_t)len > size - pos ? size : pos + (loff_t)len;
	size_t first = (size_t)(pos >> PG_SHIFT), last = (size_t)((end - 1) >> PG_SHIFT);
	size_t max_pages = __atomic_load_n(&pc->max_bytes, __ATOMIC_RELAXED) >> PG_SHIFT;
	if (last >= max_pages || !grow_slots(p, last))
		goto out;
	size_t missing = 0;
	for (size_t i = first; i <= last; i++)
		missing += !p->slot[i];
	if (missing && !reserve(pc, p, missing))
		goto out;
	size_t before = p->nr_pages;
	*from_host = missing > 0;
	int err = fill(p, fd, first, last);
	__atomic_store_n(&p->referenced, 1, __ATOMIC_RELAXED);
	size_t used = p->nr_pages - before;
	if (used < missing)
		unreserve(pc, p, missing - used);
	if (err) {
		ret = err;
		goto out;
	}
	copy_out(p, buf, pos, end);
	ret = end - pos;
out:
	pthread_rwlock_unlock(&p->lock);
	return ret;
}

/* A write of n bytes at pos went to the host; size is the host's size now
 * (-1: not known).  The pages take the bytes (i_rwsem held). */
void hostfs_pages_write(struct inode *inode, loff_t pos, const void *buf, size_t n, loff_t size)
{
	struct hostfs_pages *p = pages_of(inode);
	if (!p)
		return;
	pthread_rwlock_wrlock(&p->lock);
	if (size < 0 || p->size < 0 || p->gen != __atomic_load_n(&HOSTFS_I(inode)->data_gen, __ATOMIC_ACQUIRE)) {
		drop_all(p);
		goto out;
	}
	const char *src = buf;
	for (loff_t at = pos, end = pos + (loff_t)n; at < end;) {
		size_t off = (size_t)at & PG_MASK;
		size_t k = MIN(PG_SIZE - off, (size_t)(end - at));
		size_t i = (size_t)(at >> PG_SHIFT);
		if (i < p->nr_slots && p->slot[i])
			memcpy(p->slot[i] + off, src + (at - pos), k);
		at += (loff_t)k;
	}
	p->size = size;
out:
	pthread_rwlock_unlock(&p->lock);
}

/* The host file was truncated to size: the tail of its last page reads as
 * zeros, the pages past it go (i_rwsem held or the inode otherwise
 * quiescent for writes). */
void hostfs_pages_truncate(struct inode *inode, loff_t size)
{
	struct hostfs_pages *p = pages_of(inode);
	if (!p)
		return;
	pthread_rwlock_wrlock(&p->lock);
	if (p->size < 0 || p->gen != __atomic_load_n(&HOSTFS_I(inode)->data_gen, __ATOMIC_ACQUIRE)) {
		drop_all(p);
	} else {
		size_t keep = (size_t)((size + (loff_t)PG_MASK) >> PG_SHIFT);
		size_t tail = (size_t)size & PG_MASK;
		if (tail && (size_t)(size >> PG_SHIFT) < p->nr_slots && p->slot[size >> PG_SHIFT])
			memset(p->slot[size >> PG_SHIFT] + tail, 0, PG_SIZE - tail);
		drop_from(p, keep);
		p->size = size;
	}
	pthread_rwlock_unlock(&p->lock);
}

/* The host data changed in a way not followed here: read it again. */
void hostfs_pages_drop(struct inode *inode)
{
	struct hostfs_pages *p = pages_of(inode);
	if (!p)
		return;
	pthread_rwlock_wrlock(&p->lock);
	drop_all(p);
	pthread_rwlock_unlock(&p->lock);
}

/* The inode goes: its pages and the cache's record of it. */
void hostfs_pages_evict(struct inode *inode)
{
	struct hostfs_pages *p = pages_of(inode);
	if (!p)
		return;
	HOSTFS_I(inode)->pages = NULL;
	pthread_rwlock_wrlock(&p->lock);
	drop_all(p);
	pthread_rwlock_unlock(&p->lock);
	pthread_rwlock_destroy(&p->lock);
	free(p->slot);
	free(p);
}

/* The superblock's pages in the budget it leaves (a remount gave it its
 * own) go where no reader holds them, so that they do not stay there until
 * the LRU reaches them; the others follow at their next fill. */
void hostfs_pc_leave(struct hostfs_pagecache *old, struct super_block *sb)
{
	pthread_mutex_lock(&old->lock);
	struct list_head *pos = old->lru.next;
	while (pos != &old->lru) {
		struct hostfs_pages *v = list_entry(pos, struct hostfs_pages, lru);
		pos = pos->next;
		/* on the LRU: v and its inode are alive (pc->lock) */
		if (v->inode->i_sb == sb && !pthread_rwlock_trywrlock(&v->lock)) {
			evict_locked(old, v);
			pthread_rwlock_unlock(&v->lock);
		}
	}
	pthread_mutex_unlock(&old->lock);
}

/* The budget changed (remount): evict down to it. */
void hostfs_pc_resize(struct hostfs_pagecache *pc, size_t max_bytes)
{
	pthread_mutex_lock(&pc->lock);
	__atomic_store_n(&pc->max_bytes, max_bytes, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pc->lock);
	/* a reservation of nothing evicts down to the budget */
	struct hostfs_pages none = { .lru = LIST_HEAD_INIT(none.lru) };
	reserve(pc, &none, 0);
}
