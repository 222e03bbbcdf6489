// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pathcache.c - whole-path lookup cache (issue 12, item 2), after Tsai et
 * al., "How to Get More Value From Your File System Directory Cache" (SOSP
 * 2015): the directory a path's prefix (all but its last component)
 * resolves to, found with one hash of the prefix and one probe, so that the
 * walk pays for the last component only, however deep the path is.
 *
 * Key: (start, root, credential serial, the prefix's bytes as given).  The
 * start is where the walk begins (the root for an absolute path, the cwd
 * or the dirfd's path), the root is the proc's (what ".." and absolute
 * link bodies reach): chroot and chdir give other keys.  The credential's
 * serial stands for the search permissions the prefix passed: credentials
 * never change and a serial is never reused, as an address would be.
 * Value: the (mount, dentry) of the directory and the number of links
 * followed on the way, which the rest of the walk adds to.
 *
 * Validity, O(1) on a hit: an entry holds the cache's gen it was made
 * under and is dead once gen moved.  gen moves, before and after, when a
 * directory changes mode, owner or access ACL (search permission), when a
 * dentry a cached prefix went through leaves the hash (rmdir, unlink or
 * rename of a directory or a symlink on the way, or of the start: d_move
 * and d_exchange unhash what they move, and the target they replace), and
 * inside the rename_seq write section of a mount, an umount or a detached
 * mount's release (a mount over or under a prefix).  The dentries of a
 * prefix's walk are marked DCACHE_PATHCACHED under their hash bucket's
 * lock when the entry is made, and checked still hashed there, so either
 * the insertion sees the unhash or the unhash sees the mark and moves gen.
 * A rename of anything no cached prefix went through (a temporary file, a
 * directory off every cached path) leaves the cache alone: it can change
 * the answer for (P, name) only by moving the dentry that was there or
 * replacing it, and either leaves the hash, and it can change ".." only of
 * a directory it moves.  A walk that overlaps any rename still fails its
 * own rename_seq check and takes the slow way, and an insertion whose walk
 * overlapped one is dropped.  A dentry is freed only once unhashed and
 * after a grace period, so an entry alive under the read-side section
 * points at live memory (a superblock's root, which is never marked, goes
 * only after its mount's release has moved gen).  The last component is
 * walked as ever (its dentry may go negative or be replaced), and the
 * prefix's directory's own search permission is checked again by that
 * step.
 *
 * Walks that stay out: any RESOLVE_* (LOOKUP_BENEATH, IN_ROOT, NO_XDEV,
 * NO_SYMLINKS), and a prefix through a directory whose filesystem has its
 * own ->lookup (it may change behind the dcache), ->permission or
 * d_revalidate: those take the component walk.
 *
 * Memory: a set-associative table of buckets of PC_WAYS slots, as many
 * slots as the instance's path_cache_max (rounded up to a power of two);
 * an insertion into a full bucket evicts a dead entry, or else the next in
 * turn.  An evicted path is walked again: eviction changes the cost only.
 * Hits take no lock and write nothing shared; insertion takes the lock and
 * frees what it replaced after a grace period.
 */
#include "vfs.h"
#include "dcache.h"
#include "pathcache.h"
#include <sys/mman.h>

#define PC_DEFAULT_PATHS 65536UL

int pathcache_init(struct uvfs *vfs, unsigned long max_paths)
{
	struct pathcache *pc = aligned_alloc(64, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	memset(pc, 0, sizeof(*pc));
	if (!max_paths)
		max_paths = PC_DEFAULT_PATHS;
	if (max_paths > (1UL << 26))
		max_paths = 1UL << 26;
	unsigned long nb = 1;
	while (nb * PC_WAYS < max_paths)
		nb <<= 1;
	/* mmap: the buckets are cache-line aligned (calloc gives 16 bytes),
	 * and pages of the table nobody hashed into stay untouched */
	void *b = mmap(NULL, nb * sizeof(struct pc_bucket), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	if (b == MAP_FAILED) {
		free(pc);
		return -ENOMEM;
	}
	pc->buckets = b;
	pc->mask = nb - 1;
	pthread_mutex_init(&pc->lock, NULL);
	vfs->pcache = pc;
	return 0;
}

void pathcache_fini(struct uvfs *vfs)
{
	struct pathcache *pc = vfs->pcache;
	if (!pc)
		return;
	for (unsigned long i = 0; i <= pc->mask; i++)
		for (int w = 0; w < PC_WAYS; w++)
			free(pc->buckets[i].e[w]);
	munmap(pc->buckets, (pc->mask + 1) * sizeof(struct pc_bucket));
	pthread_mutex_destroy(&pc->lock);
	free(pc);
	vfs->pcache = NULL;
}

/* In pathcache.h: pathcache_hash, pathcache_find. */

static void pc_entry_free_rcu(struct rcu_head *h)
{
	free(container_of(h, struct pc_entry, rcu));
}

/* A dependency of the entry: on a filesystem the dcache speaks for, and
 * still hashed, marked so that its unhash moves gen. */
static bool pc_pin_dep(struct uvfs *vfs, struct dentry *d)
{
	struct inode *inode = smp_load_acquire(&d->d_inode);
	if (!inode || inode->i_op->permission || (S_ISDIR(READ_ONCE(inode->i_mode)) && inode->i_op->lookup) ||
	    (READ_ONCE(d->d_flags) & DCACHE_OP_REVALIDATE))
		return false;
	struct dentry *parent = READ_ONCE(d->d_parent);
	if (parent == d)
		return true; /* a superblock's root: goes with its last mount (gen) */
	/* a rename meanwhile may make this the wrong lock: rename_seq, checked
	 * after, kills the entry then */
	const struct dname *name = smp_load_acquire(&d->d_name);
	spinlock_t *l = d_bucket_lock(vfs, parent, name->hash);
	spin_lock(l);
	bool hashed = !d_unhashed(d);
	if (hashed && !(READ_ONCE(d->d_flags) & DCACHE_PATHCACHED))
		d_set_flags(d, DCACHE_PATHCACHED);
	spin_unlock(l);
	return hashed;
}

static inline bool pc_entry_dead(const struct pc_entry *e, unsigned gen)
{
	return e->gen != gen;
}

void pathcache_insert(struct uvfs *vfs, const struct pc_key *k, const struct path *res, unsigned links,
		      unsigned seq, unsigned gen, struct dentry *const *deps, int ndeps)
{
	struct pathcache *pc = vfs->pcache;
	for (int i = 0; i < ndeps; i++)
		if (!pc_pin_dep(vfs, deps[i]))
			return;
	if (__atomic_load_n(&pc->gen, __ATOMIC_SEQ_CST) != gen || read_seqcount_retry(&vfs->rename_seq, seq))
		return; /* what the walk saw may be gone already */
	struct pc_entry *e = malloc(sizeof(*e) + k->len);
	if (!e)
		return; /* the cache is an optimisation: the walk stands */
	e->hash = k->hash;
	e->start = k->start;
	e->root = k->root;
	e->cred_serial = k->cred_serial;
	e->len = k->len;
	e->links = links;
	e->gen = gen;
	e->res = *res;
	memcpy(e->name, k->name, k->len);

	struct pc_bucket *b = &pc->buckets[k->hash & pc->mask];
	unsigned tag = pc_tag(k->hash);
	pthread_mutex_lock(&pc->lock);
	int way = -1;
	/* the same key (another walk's, or a dead one), an empty way, a dead
	 * entry, or the next in turn */
	for (int w = 0; w < PC_WAYS && way < 0; w++)
		if (b->e[w] && b->tag[w] == tag && b->e[w]->hash == k->hash && pc_key_eq(b->e[w], k))
			way = w;
	for (int w = 0; w < PC_WAYS && way < 0; w++)
		if (!b->e[w])
			way = w;
	for (int w = 0; w < PC_WAYS && way < 0; w++)
		if (pc_entry_dead(b->e[w], gen))
			way = w;
	if (way < 0) {
		way = b->next;
		b->next = (b->next + 1) % PC_WAYS;
		pc->evictions++;
	}
	struct pc_entry *old = b->e[way];
	/* the way's tag is wrong while it changes: a reader compares the whole
	 * key behind any tag */
	__atomic_store_n(&b->e[way], e, __ATOMIC_RELEASE);
	__atomic_store_n(&b->tag[way], tag, __ATOMIC_RELAXED);
	pc->inserts++;
	if (old) {
		pc->bytes -= sizeof(*old) + old->len;
		pc->nr_entries--;
	}
	pc->bytes += sizeof(*e) + e->len;
	pc->nr_entries++;
	pthread_mutex_unlock(&pc->lock);
	if (old)
		urcu_memb_call_rcu(&old->rcu, pc_entry_free_rcu);
}

void pathcache_stats(struct uvfs *vfs, unsigned long *entries, unsigned long *bytes, unsigned long *evictions)
{
	struct pathcache *pc = vfs->pcache;
	if (!pc) {
		*entries = *bytes = *evictions = 0;
		return;
	}
	pthread_mutex_lock(&pc->lock);
	*entries = pc->nr_entries;
	/* the entries, and the table's share of each way */
	*bytes = pc->bytes + pc->nr_entries * (sizeof(struct pc_bucket) / PC_WAYS);
	*evictions = pc->evictions;
	pthread_mutex_unlock(&pc->lock);
}
