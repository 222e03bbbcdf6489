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
 * Validity, O(1) on a hit: an entry is alive while its gen is the cache's
 * gen.  The cache's gen moves (by 2), before and after, when a directory
 * changes mode, owner or access ACL (search permission), and inside the
 * rename_seq write section of a mount, an umount or a detached mount's
 * release (a mount over or under a prefix): those kill every entry.
 * Everything else kills only the entries that depend on it: an entry is
 * on the list of every dentry its prefix's walk went through (its start,
 * each directory, each symlink: pc_dep, one per dentry, the lists found by
 * the dentry's address, pc_dnode), and when one of those dentries leaves
 * the hash (rmdir, unlink or rename of a directory or a symlink on the
 * way, or of the start: d_move and d_exchange unhash what they move and
 * the target they replace) pathcache_unhash_slow kills the entries on its
 * list: their gen becomes PC_GEN_DEAD (odd, which no gen is) and they
 * leave the table.  A rename, rmdir or unlink of anything else (a
 * temporary file, a directory other paths went through) leaves the
 * entries that did not go through it: it can change the answer for
 * (P, name) only by moving the dentry that was there or replacing it,
 * either of which leaves the hash, and it can change ".." only of a
 * directory it moves.
 *
 * Concurrency.  A dentry with entries on its list is marked
 * DCACHE_PATHCACHED; the mark is set by an insertion under the dentry's
 * hash bucket lock with the dentry checked still hashed there, and
 * d_unhash tests it under the same lock before the dentry leaves the
 * hash, then (marked) takes the cache's lock, clears the mark and kills.
 * An insertion takes the cache's lock after marking its dentries and gives
 * up if any mark is clear by then.  So for an insertion through d and an
 * unhash of d: either the insertion marked d first, and then either it
 * linked its entry before the unhash took the cache's lock (killed there)
 * or it finds the mark cleared (gives up); or the unhash came first, and
 * the insertion's mark check under the bucket lock sees d unhashed.  A
 * rename also rehashes what it moves, which could be marked again; but it
 * does so inside its rename_seq write section, and an insertion whose walk
 * overlapped one is dropped (its rename_seq check), as a walk that
 * overlaps one fails its own.  The mark is cleared too when evictions
 * leave a dentry's list empty (under the cache's lock only: an insertion
 * that marked it meanwhile finds it clear and gives up, an unhash that saw
 * it finds no list).  Lock order: bucket lock, then the cache's; an
 * insertion takes the bucket locks before the cache's, never inside it.
 * A reader that found an entry before its kill may use it: it runs before
 * the unhash, as it would have run before the change.  A dentry is freed
 * only once unhashed and after a grace period, and a dentry with a list
 * is hashed (its unhash takes the list), so an entry alive under the
 * read-side section points at live memory (a superblock's root, which is
 * never marked, goes only after its mount's release has moved gen).  The
 * last component is walked as ever (its dentry may go negative or be
 * replaced), and the prefix's directory's own search permission is
 * checked again by that step.
 *
 * Walks that stay out: any RESOLVE_* (LOOKUP_BENEATH, IN_ROOT, NO_XDEV,
 * NO_SYMLINKS), and a prefix through a directory whose filesystem has its
 * own ->lookup (it may change behind the dcache; unless its superblock says
 * SB_DCACHE_EXACT: hostfs cache=exclusive), ->permission or d_revalidate:
 * those take the component walk.
 *
 * Memory: a set-associative table of buckets of PC_WAYS slots, as many
 * slots as the instance's path_cache_max (rounded up to a power of two);
 * an insertion into a full bucket evicts a dead entry, or else the next in
 * turn.  An evicted path is walked again: eviction changes the cost only.
 * Each entry takes one pc_dep (32 bytes) per dentry it went through, and
 * each such dentry one pc_dnode (24), counted in the bytes.  Hits take no
 * lock and write nothing shared; insertion takes the lock and frees what
 * it replaced after a grace period.
 */
#include "vfs.h"
#include "dcache.h"
#include "pathcache.h"
#include <sys/mman.h>

#define PC_DEFAULT_PATHS 65536UL

/* The entries that went through one dentry, on a list of their pc_deps; a
 * dnode exists only while its dentry is marked DCACHE_PATHCACHED, and its
 * list is never empty for long (the last dep to go frees it). */
struct pc_dnode {
	struct pc_dnode *next;
	struct dentry *d;
	struct pc_dep *head;
};

#define PC_DN_MIN 256UL

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
	pc->dn_table = calloc(PC_DN_MIN, sizeof(*pc->dn_table));
	if (!pc->dn_table) {
		munmap(b, nb * sizeof(struct pc_bucket));
		free(pc);
		return -ENOMEM;
	}
	pc->dn_mask = PC_DN_MIN - 1;
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
	for (unsigned long i = 0; i <= pc->dn_mask; i++)
		for (struct pc_dnode *dn = pc->dn_table[i], *next; dn; dn = next) {
			next = dn->next;
			free(dn);
		}
	free(pc->dn_table);
	munmap(pc->buckets, (pc->mask + 1) * sizeof(struct pc_bucket));
	pthread_mutex_destroy(&pc->lock);
	free(pc);
	vfs->pcache = NULL;
}

/* In pathcache.h: pathcache_hash, pathcache_find. */


static inline unsigned long pc_dn_slot(const struct pathcache *pc, const struct dentry *d)
{
	return (unsigned long)(((uint64_t)(uintptr_t)d >> 4) * 0x9E3779B97F4A7C15ull >> 32) & pc->dn_mask;
}

static struct pc_dnode **pc_dn_find(struct pathcache *pc, const struct dentry *d)
{
	struct pc_dnode **pp = &pc->dn_table[pc_dn_slot(pc, d)];
	while (*pp && (*pp)->d != d)
		pp = &(*pp)->next;
	return pp;
}

/* Twice the slots once there are more dnodes than slots; a failed
 * allocation keeps the table as it is (longer chains, nothing lost). */
static void pc_dn_grow(struct pathcache *pc)
{
	unsigned long n = (pc->dn_mask + 1) * 2;
	struct pc_dnode **t = calloc(n, sizeof(*t));
	if (!t)
		return;
	struct pc_dnode **old = pc->dn_table;
	unsigned long on = pc->dn_mask + 1;
	pc->dn_table = t;
	pc->dn_mask = n - 1;
	for (unsigned long i = 0; i < on; i++)
		for (struct pc_dnode *dn = old[i], *next; dn; dn = next) {
			next = dn->next;
			unsigned long slot = pc_dn_slot(pc, dn->d);
			dn->next = t[slot];
			t[slot] = dn;
		}
	free(old);
}

static struct pc_dnode *pc_dn_get(struct pathcache *pc, struct dentry *d)
{
	struct pc_dnode **pp = pc_dn_find(pc, d);
	if (*pp)
		return *pp;
	struct pc_dnode *dn = malloc(sizeof(*dn));
	if (!dn)
		return NULL;
	dn->d = d;
	dn->head = NULL;
	dn->next = NULL;
	*pp = dn;
	pc->bytes += sizeof(*dn);
	if (++pc->nr_dnodes > pc->dn_mask + 1)
		pc_dn_grow(pc);
	return dn;
}

/* dn's list is empty: no entry depends on its dentry any more.  The mark
 * goes too (not under the dentry's bucket lock: an insertion that set it
 * meanwhile sees it clear under our lock and gives up, and an unhash that
 * saw it set finds no dnode). */
static void pc_dn_release(struct pathcache *pc, struct pc_dnode *dn)
{
	struct pc_dnode **pp = pc_dn_find(pc, dn->d);
	*pp = dn->next;
	pc->nr_dnodes--;
	pc->bytes -= sizeof(*dn);
	d_clear_flags(dn->d, DCACHE_PATHCACHED);
	free(dn);
}

/* e's deps off their dentries' lists; a list left empty frees its dnode,
 * unless it is keep (the caller's, which it frees itself). */
static void pc_entry_unlink(struct pathcache *pc, struct pc_entry *e, struct pc_dnode *keep)
{
	for (unsigned i = 0; i < e->ndeps; i++) {
		struct pc_dep *dep = &e->deps[i];
		*dep->pprev = dep->next;
		if (dep->next)
			dep->next->pprev = dep->pprev;
		if (!dep->dn->head && dep->dn != keep)
			pc_dn_release(pc, dep->dn);
	}
	e->ndeps = 0;
}

static inline unsigned long pc_entry_size(unsigned len, unsigned ndeps)
{
	return ((sizeof(struct pc_entry) + len + 7) & ~7UL) + ndeps * sizeof(struct pc_dep);
}

static void pc_entry_free_rcu(struct rcu_head *h)
{
	free(container_of(h, struct pc_entry, rcu));
}

/* Out of the table, freed after a grace period; a reader that found it
 * before sees it dead. */
static void pc_entry_kill(struct pathcache *pc, struct pc_entry *e, struct pc_dnode *keep)
{
	__atomic_store_n(&e->gen, PC_GEN_DEAD, __ATOMIC_RELAXED);
	pc->bytes -= pc_entry_size(e->len, e->ndeps);
	pc_entry_unlink(pc, e, keep);
	struct pc_bucket *b = &pc->buckets[e->hash & pc->mask];
	for (int w = 0; w < PC_WAYS; w++)
		if (b->e[w] == e) {
			__atomic_store_n(&b->e[w], NULL, __ATOMIC_RELAXED);
			__atomic_store_n(&b->tag[w], 0, __ATOMIC_RELAXED);
		}
	pc->nr_entries--;
	pc->kills++;
	urcu_memb_call_rcu(&e->rcu, pc_entry_free_rcu);
}

/*
 * d leaves the hash (its bucket's lock held): every entry whose prefix went
 * through d dies, and only those.  Either an insertion that went through d
 * linked its entry before (killed here), or it takes the lock after and
 * finds d's mark cleared (it gives up): the mark was set, and checked
 * hashed, under the bucket lock we hold.
 */
void pathcache_unhash_slow(struct dentry *d)
{
	struct pathcache *pc = d->d_sb->s_uvfs->pcache;
	pthread_mutex_lock(&pc->lock);
	d_clear_flags(d, DCACHE_PATHCACHED);
	struct pc_dnode *dn = *pc_dn_find(pc, d);
	if (dn) {
		while (dn->head)
			pc_entry_kill(pc, dn->head->e, dn);
		pc_dn_release(pc, dn);
	}
	pthread_mutex_unlock(&pc->lock);
}

/* A dependency of the entry: on a filesystem the dcache speaks for, and
 * still hashed, marked so that its unhash kills the entry.  0: not
 * cacheable; 1: marked; 2: a superblock's root (never hashed, never
 * marked: it goes with its last mount, which moves gen). */
static int pc_pin_dep(struct uvfs *vfs, struct dentry *d)
{
	struct inode *inode = smp_load_acquire(&d->d_inode);
	if (!inode || inode->i_op->permission ||
	    (S_ISDIR(READ_ONCE(inode->i_mode)) && inode->i_op->lookup &&
	     !(READ_ONCE(inode->i_sb->s_flags) & SB_DCACHE_EXACT)) ||
	    (READ_ONCE(d->d_flags) & DCACHE_OP_REVALIDATE))
		return 0;
	struct dentry *parent = READ_ONCE(d->d_parent);
	if (parent == d)
		return 2;
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
	struct dentry *marked[PC_MAX_DEPS];
	unsigned nm = 0;
	for (int i = 0; i < ndeps; i++) {
		int r = pc_pin_dep(vfs, deps[i]);
		if (!r)
			return;
		if (r == 1)
			marked[nm++] = deps[i];
	}
	if (__atomic_load_n(&pc->gen, __ATOMIC_SEQ_CST) != gen || read_seqcount_retry(&vfs->rename_seq, seq))
		return; /* what the walk saw may be gone already */
	struct pc_entry *e = malloc(pc_entry_size(k->len, nm));
	if (!e)
		return; /* the cache is an optimisation: the walk stands */
	e->hash = k->hash;
	e->start = k->start;
	e->root = k->root;
	e->cred_serial = k->cred_serial;
	e->len = k->len;
	e->links = links;
	e->gen = gen;
	e->ndeps = 0;
	e->deps = (struct pc_dep *)((char *)e + pc_entry_size(k->len, 0));
	e->res = *res;
	memcpy(e->name, k->name, k->len);

	struct pc_bucket *b = &pc->buckets[k->hash & pc->mask];
	unsigned tag = pc_tag(k->hash);
	pthread_mutex_lock(&pc->lock);
	/* a mark cleared since we set it: that dentry left the hash (its
	 * unhash killed what it could find, and could not find this) */
	for (unsigned i = 0; i < nm; i++)
		if (!(READ_ONCE(marked[i]->d_flags) & DCACHE_PATHCACHED))
			goto drop;
	for (unsigned i = 0; i < nm; i++) {
		struct pc_dnode *dn = pc_dn_get(pc, marked[i]);
		if (!dn)
			goto drop;
		struct pc_dep *dep = &e->deps[e->ndeps++];
		dep->e = e;
		dep->dn = dn;
		dep->next = dn->head;
		dep->pprev = &dn->head;
		if (dn->head)
			dn->head->pprev = &dep->next;
		dn->head = dep;
	}
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
		pc->bytes -= pc_entry_size(old->len, old->ndeps);
		pc->nr_entries--;
		pc_entry_unlink(pc, old, NULL);
	}
	pc->bytes += pc_entry_size(e->len, e->ndeps);
	pc->nr_entries++;
	pthread_mutex_unlock(&pc->lock);
	if (old)
		urcu_memb_call_rcu(&old->rcu, pc_entry_free_rcu);
	return;
drop:
	pc_entry_unlink(pc, e, NULL);
	pthread_mutex_unlock(&pc->lock);
	free(e); /* never published */
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

unsigned long pathcache_kills(struct uvfs *vfs)
{
	struct pathcache *pc = vfs->pcache;
	if (!pc)
		return 0;
	pthread_mutex_lock(&pc->lock);
	unsigned long n = pc->kills;
	pthread_mutex_unlock(&pc->lock);
	return n;
}
