/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pathcache.h - the whole-path lookup cache in front of the component walk
 * (issue 12, item 2; after Tsai et al., SOSP 2015): the directory a path's
 * prefix resolves to, found in one probe, so that a walk costs one probe
 * and its last component however deep the path is.  pathcache.c has the
 * design and the rules that keep it exactly Linux's walk.
 */
#ifndef UVFS_CORE_PATHCACHE_H
#define UVFS_CORE_PATHCACHE_H
#include "vfs.h"

/* a dentry some live entry's prefix may have gone through (or started
 * at): its unhash kills those entries (pathcache_unhash_slow).  Set under
 * its hash bucket's lock by an insertion; cleared under the cache's lock
 * when no entry depends on it any more. */
#define DCACHE_PATHCACHED 0x1000u

/* The entries that went through one dentry (pathcache.c): found by the
 * dentry's address, under the cache's lock. */
struct pc_dnode;

struct pathcache {
	/* moved (by 2: it stays even) before and after a change of a
	 * directory's mode, owner or ACL, and inside the rename_seq write
	 * section of any change of the mount tree; an entry of another value
	 * is dead.  Alone in its line: walks only read it. */
	unsigned gen ____cacheline_aligned;
	/* inserters, evictions, the dentries' lists; taken inside a dentry
	 * hash bucket's lock (pathcache_unhash), never the other way */
	pthread_mutex_t lock ____cacheline_aligned;
	struct pc_bucket *buckets;
	unsigned long mask; /* buckets - 1 */
	unsigned long nr_entries, bytes; /* under lock: what the entries hold */
	unsigned long inserts, evictions, kills;
	struct pc_dnode **dn_table; /* under lock: by dentry address */
	unsigned long dn_mask, nr_dnodes;
};

/* What a cached prefix is found by: the walk's start and root (chroot and
 * chdir make other keys), the credential's serial (search permission is
 * memoised per credential) and the prefix's bytes, as given. */
struct pc_key {
	struct path start, root;
	unsigned long long cred_serial;
	const char *name;
	unsigned len;
	uint64_t hash;
};

/* One dentry an entry went through: on that dentry's list. */
struct pc_dep {
	struct pc_dep *next, **pprev;
	struct pc_entry *e;
	struct pc_dnode *dn;
};

/* What it resolves to: the directory, and the links followed to get there
 * (they count against the 40 of the whole walk). */
struct pc_entry {
	struct rcu_head rcu;
	uint64_t hash;
	struct path start, root;
	unsigned long long cred_serial;
	unsigned len;
	unsigned links;
	/* pathcache.gen when it was made; PC_GEN_DEAD once a dentry it went
	 * through left the hash (atomic: readers compare it) */
	unsigned gen;
	unsigned ndeps;
	struct pc_dep *deps; /* after name[], under the cache's lock */
	struct path res;
	char name[];
};
#define PC_GEN_DEAD 1u /* odd: no generation is */

#define PC_MAX_DEPS 32 /* dentries a cacheable prefix may go through */

int pathcache_init(struct uvfs *vfs, unsigned long max_paths);
void pathcache_fini(struct uvfs *vfs); /* after the last grace period */

#ifndef UVFS_NO_PATH_CACHE
static inline void pathcache_bump(struct uvfs *vfs)
{
	__atomic_fetch_add(&vfs->pcache->gen, 2, __ATOMIC_SEQ_CST);
}

void pathcache_unhash_slow(struct dentry *d);

/* Under d's hash bucket lock, before d leaves the hash: the entries that
 * went through d die, the others stay. */
static inline void pathcache_unhash(struct dentry *d)
{
	if (unlikely(READ_ONCE(d->d_flags) & DCACHE_PATHCACHED))
		pathcache_unhash_slow(d);
}

/* Before and after a directory's mode, owner or access ACL changes. */
static inline void pathcache_perm_change(struct inode *inode)
{
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		pathcache_bump(inode->i_sb->s_uvfs);
}

/* Inside the rename_seq write section of a mount, an umount or a detached
 * mount's release: any entry may have crossed the mount (and its start or
 * root may be a superblock's root, which no mark covers).  Inside it, not
 * after: an insertion whose walk overlapped the change fails its
 * rename_seq check, and one that came before it made an entry of the old
 * gen. */
static inline void pathcache_mounts_changed(struct uvfs *vfs)
{
	pathcache_bump(vfs);
}
#else
static inline void pathcache_unhash(struct dentry *d) { (void)d; }
static inline void pathcache_perm_change(struct inode *inode) { (void)inode; }
static inline void pathcache_mounts_changed(struct uvfs *vfs) { (void)vfs; }
#endif

#define PC_WAYS 4
struct pc_bucket {
	unsigned tag[PC_WAYS]; /* the hash's high half: most misses stop here */
	struct pc_entry *e[PC_WAYS];
	unsigned char next; /* the way the next eviction takes, under lock */
} ____cacheline_aligned;

/* A word at a time, the tail by one overlapping load when there was a
 * whole word: no byte loop for a prefix of 8 bytes or more.  The key's
 * other fields are compared in full behind the hash, so it needs only to
 * spread. */
static inline uint64_t pathcache_hash(const struct pc_key *k)
{
	uint64_t h = (k->cred_serial << 32) ^ (uintptr_t)k->start.dentry ^ ((uintptr_t)k->root.dentry >> 4);
	const char *s = k->name;
	unsigned n = k->len;
	uint64_t w;
	if (n >= 8) {
		const char *end = s + n;
		do {
			__builtin_memcpy(&w, s, 8);
			h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
			s += 8;
			n -= 8;
		} while (n >= 8);
		if (n) {
			__builtin_memcpy(&w, end - 8, 8);
			h = (h ^ (w >> (8 * (8 - n)))) * 0x9e3779b97f4a7c15ULL;
		}
	} else {
		w = 0;
		for (unsigned i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	h ^= h >> 29;
	h = (h + k->len) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static inline unsigned pc_tag(uint64_t hash)
{
	return (unsigned)(hash >> 32) | 1; /* 0: an empty way */
}

static inline bool pc_key_eq(const struct pc_entry *e, const struct pc_key *k)
{
	return e->hash == k->hash && e->len == k->len && e->cred_serial == k->cred_serial &&
	       e->start.dentry == k->start.dentry && e->start.mnt == k->start.mnt &&
	       e->root.dentry == k->root.dentry && e->root.mnt == k->root.mnt && !memcmp(e->name, k->name, k->len);
}

/* In the walk's read-side section, after it read rename_seq (which it
 * validates at its end as ever: a rename or mount under way is its
 * concern, not the entry's): the entry for k if it is alive, else NULL
 * with *gen the generation to insert under. */
static inline const struct pc_entry *pathcache_find(struct uvfs *vfs, const struct pc_key *k, unsigned *genp)
{
	struct pathcache *pc = vfs->pcache;
	/* acquire: a change that moved gen before we read it is seen by the
	 * walk that follows */
	unsigned gen = __atomic_load_n(&pc->gen, __ATOMIC_ACQUIRE);
	*genp = gen;
	struct pc_bucket *b = &pc->buckets[k->hash & pc->mask];
	unsigned tag = pc_tag(k->hash);
	for (int w = 0; w < PC_WAYS; w++) {
		if (__atomic_load_n(&b->tag[w], __ATOMIC_RELAXED) != tag)
			continue;
		const struct pc_entry *e = __atomic_load_n(&b->e[w], __ATOMIC_ACQUIRE);
		if (e && pc_key_eq(e, k))
			return __atomic_load_n(&e->gen, __ATOMIC_RELAXED) == gen ? e : NULL;
	}
	return NULL;
}
/* After an RCU walk of k's prefix to res that went through deps (its start,
 * every position and every link) seeing rename_seq seq and generation gen. */
void pathcache_insert(struct uvfs *vfs, const struct pc_key *k, const struct path *res, unsigned links,
		      unsigned seq, unsigned gen, struct dentry *const *deps, int ndeps);

/* For the tests and the figures: entries held and the bytes they take
 * (entries and their share of the table). */
void pathcache_stats(struct uvfs *vfs, unsigned long *entries, unsigned long *bytes, unsigned long *evictions);
/* For the tests: the entries a dentry's unhash killed, since the start. */
unsigned long pathcache_kills(struct uvfs *vfs);

#endif
