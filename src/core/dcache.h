/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dentry hash probe, inline: the path walk pays one per component. */
#ifndef UVFS_CORE_DCACHE_H
#define UVFS_CORE_DCACHE_H
#include "vfs.h"
#include "../lib/hash.h"

/* The readdir offsets of a directory whose names are the dcache's (libfs's
 * offset directories; tmpfs keeps one per directory inode): the last
 * offset handed out, under the directory's i_rwsem held exclusive. */
struct offset_ctx {
	uint64_t next_off;
};

/* Dentry flags of the filesystem boundary (the others are in vfs.h). */
#define DCACHE_OP_REVALIDATE 0x10u /* the sb's s_d_op has d_revalidate: the walk asks it */
#define DCACHE_PAR_LOOKUP    0x20u /* being looked up (d_alloc_parallel); not hashed */
/* set by a ->lookup whose "no such name" is final (no name appears behind
 * the cache: hostfs cache=exclusive): the negative dentry is cached */
#define DCACHE_NEGATIVE_FINAL 0x40u

/*
 * Linux's dentry_operations, for filesystems whose names can change behind
 * the cache.  d_revalidate: 1 the dentry is still good, 0 it is not (the
 * walk unhashes it and looks the name up again), -errno; with LOOKUP_RCU
 * in flags it is called in RCU mode (no reference, no lock, must not
 * block) and may answer -ECHILD: ask again in REF mode.  Only names the
 * walk looks up are asked (not ".", "..", a mount root or a dirfd).
 * d_weak_revalidate (optional): a lookup that ends on a dentry no lookup
 * in its parent gave (".", "..", "/", a mount's root, the dirfd of an
 * empty path) asks it, in REF mode only, whether the object is still
 * there and what its attributes are now: 1 yes, 0 no (ESTALE), -errno.
 */
struct dentry_operations {
	int (*d_revalidate)(struct dentry *d, unsigned flags);
	int (*d_weak_revalidate)(struct dentry *d, unsigned flags);
};

static inline int d_revalidate(struct dentry *d, unsigned flags)
{
	return d->d_sb->s_d_op->d_revalidate(d, flags);
}
/* A miss in a directory with ->lookup (the parent's i_rwsem held shared):
 * a hashed dentry of the name, referenced, that appeared meanwhile, or a
 * new one with DCACHE_PAR_LOOKUP set that the caller looks up and hands to
 * d_lookup_done; a second walker of the same name waits for the first. */
struct dentry *d_alloc_parallel(struct dentry *parent, const struct qstr *name, int *errp);
void d_lookup_done(struct dentry *d);
/* d_revalidate said 0: out of the hash with what is cached below it */
void d_invalidate(struct dentry *d);

static inline struct hlist_head *d_bucket(struct uvfs *vfs, const struct dentry *parent, uint32_t hash)
{
	return &vfs->d_hash[d_hash_bucket(parent, hash, D_HASH_BITS)];
}
static inline spinlock_t *d_bucket_lock(struct uvfs *vfs, const struct dentry *parent, uint32_t hash)
{
	return &vfs->d_hash_locks[d_hash_bucket(parent, hash, D_HASH_BITS) % D_HASH_LOCKS].m;
}

/* A word of a dentry's name at a multiple of 8 bytes from its start.  The
 * name begins 8-byte aligned (asserted below; dnames are allocated at 16,
 * inline in a dentry or on their own), so the word is aligned and cannot
 * cross into another page: the plain load needs no page test (4 of the
 * walk's instructions per component).  Under a sanitizer the bytes after
 * the NUL are another's for it, as for load_word_zeropad. */
_Static_assert(offsetof(struct dname, name) % 8 == 0, "a dname's name is word aligned");
_Static_assert(offsetof(struct dentry, d_iname) % 8 == 0, "an inline name is word aligned");
static inline uint64_t dname_load_word(const char *p)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	uint64_t w;
	__builtin_memcpy(&w, __builtin_assume_aligned(p, 8), 8);
	return w;
#else
	return load_word_zeropad(p);
#endif
}

/* Names are short: compare a word at a time rather than call memcmp. */
static inline bool d_name_eq(const struct dname *n, const struct qstr *q)
{
	if (n->hash != q->hash || n->len != q->len)
		return false;
	const char *a = n->name, *b = q->name;
	unsigned len = q->len;
	while (len >= 8) {
		uint64_t x, y;
		__builtin_memcpy(&x, a, 8);
		__builtin_memcpy(&y, b, 8);
		if (x != y)
			return false;
		a += 8;
		b += 8;
		len -= 8;
	}
	if (!len)
		return true;
	/* the tail, as one word each: both names go on to a NUL (or, for a
	 * component inside a path, to more of the path), and the loads stay
	 * within the page; the bytes past the tail are masked off.  The
	 * dentry's side needs no page test: its word is aligned */
	uint64_t x = dname_load_word(a) ^ load_word_zeropad(b);
	return (x & ((1ull << (8 * len)) - 1)) == 0;
}

/* The probe of one chain; point: a race point at each dentry it stands on
 * (for the exact lookups below, NULL elsewhere). */
static __always_inline struct dentry *__d_lookup_chain(const struct dentry *parent, const struct qstr *name,
							unsigned *seqp, const char *point)
{
	struct uvfs *vfs = parent->d_sb->s_uvfs;
	struct hlist_head *b = d_bucket(vfs, parent, name->hash);
	for (struct hlist_node *n = smp_load_acquire(&b->first); n; n = smp_load_acquire(&n->next)) {
		struct dentry *d = container_of(n, struct dentry, d_hash);
		if (point)
			RACE_POINT(point);
		if (READ_ONCE(d->d_parent) != parent)
			continue;
		const struct dname *dn = rcu_dereference(d->d_name);
		if (!d_name_eq(dn, name))
			continue;
		if (seqp)
			*seqp = raw_read_seqcount(&d->d_seq);
		return d;
	}
	return NULL;
}

/*
 * Lockless lookup of (parent, name), under rcu_read_lock().  The result may
 * be stale by the time it is used, and a miss may be wrong: the caller
 * validates vfs->rename_seq (renames can move a dentry between chains under
 * a reader) and takes a reference with dget_not_dead() if it keeps the
 * dentry.
 */
static __always_inline struct dentry *__d_lookup_rcu(const struct dentry *parent, const struct qstr *name, unsigned *seqp)
{
	return __d_lookup_chain(parent, name, seqp, NULL);
}

/*
 * For a lookup whose answer is final (the parent's i_rwsem held, which
 * keeps the parent's own names still), under rcu_read_lock(): a hit of the
 * probe is the name, but a miss is final only if no rename moved a dentry
 * meanwhile.
 * d_move and d_exchange take a dentry out of its chain and put it at the
 * head of another with no grace period between (as Linux's do), so a probe
 * standing on it goes on down the other chain and can miss a name of a
 * directory no rename touched; they do that only inside rename_seq's write
 * section.  So the probe reads rename_seq first (*seqp), and a miss counts
 * when the count did not move (d_lookup_miss_exact); otherwise the chain is
 * walked again under its bucket lock, where nothing joins or leaves it
 * (d_lookup_bucket_locked).  Linux's d_lookup retries under rename_lock's
 * count instead; the bucket lock needs no wait for a rename, whose write
 * section may itself look names up (an overlay's copy-up).
 */
static __always_inline struct dentry *__d_lookup_exact(const struct dentry *parent, const struct qstr *name,
							unsigned *seqp)
{
	*seqp = raw_read_seqcount(&parent->d_sb->s_uvfs->rename_seq);
	return __d_lookup_chain(parent, name, NULL, "d_lookup:chain");
}
struct dentry *d_lookup_bucket_locked(const struct dentry *parent, const struct qstr *name);
/* After a miss of __d_lookup_exact: the answer, NULL or the dentry. */
static __always_inline struct dentry *d_lookup_miss_exact(const struct dentry *parent, const struct qstr *name,
							   unsigned seq)
{
	if (likely(!(seq & 1)) && likely(!read_seqcount_retry(&parent->d_sb->s_uvfs->rename_seq, seq)))
		return NULL;
	return d_lookup_bucket_locked(parent, name);
}

static __always_inline bool __dget_not_dead(struct dentry *d)
{
	long c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
	do {
		if (c < 0)
			return false;
	} while (!__atomic_compare_exchange_n(&d->d_count, &c, c + 1, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/* d_lookup_or_alloc (cache_miss) and d_lookup_or_alloc_create (not), inline
 * for the unlink and the O_CREAT open of one name.  The hit of a name that
 * needs no revalidation is taken inside the probe's read-side section and
 * leaves it with nothing but the dentry live; anything else goes to
 * d_lookup_or_alloc_miss (dcache.c), still inside the section. */
struct dentry *d_lookup_or_alloc_miss(struct dentry *parent, const struct qstr *name, int *errp, bool cache_miss,
				      struct dentry *d, unsigned seq);
static __always_inline struct dentry *__d_lookup_or_alloc(struct dentry *parent, const struct qstr *name,
							  int *errp, bool cache_miss)
{
	urcu_memb_read_lock();
	unsigned seq;
	struct dentry *d = __d_lookup_exact(parent, name, &seq);
	if (likely(d) && likely(!(READ_ONCE(d->d_flags) & DCACHE_OP_REVALIDATE)) && likely(__dget_not_dead(d))) {
		urcu_memb_read_unlock();
		return d;
	}
	return d_lookup_or_alloc_miss(parent, name, errp, cache_miss, d, seq);
}

#endif
