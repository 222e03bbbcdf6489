// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcache.c - the dentry cache (Linux's fs/dcache.c).
 *
 * Dentries are hashed by (parent, name) in one table per instance; a name that
 * was looked up and not found leaves a negative dentry, so a repeated failed
 * lookup costs one hash probe per component.  tmpfs keeps its directories in
 * the dcache itself: a positive dentry of a tmpfs entry is pinned by an extra
 * reference while the name exists.
 *
 * Locks and what they protect:
 *   bucket lock (vfs->d_hash_locks[b % D_HASH_LOCKS])  the chain of bucket b
 *                         (a spinlock: held for one list update, never
 *                         across anything that blocks)
 *   parent dir's i_rwsem, exclusive                    insertion/removal of its
 *                         children in the hash and in d_subdirs, d_offset
 *   rename_mutex + rename_seq                          d_parent and d_name
 *
 * Rules that lockless readers rely on:
 *   - a dentry's d_inode changes only while no one but its changer holds
 *     a reference: NULL to an inode when its name is made (d_instantiate,
 *     the directory locked), and back to NULL only for an unlink's victim
 *     that nobody else holds, in place and still hashed (d_delete, the
 *     directory locked and the count at -1 meanwhile); so whoever holds a
 *     positive dentry holds a stable inode.  A walker in RCU mode that read
 *     the inode before and takes its reference after checks the inode is
 *     still the one it saw (legitimize_path_inode);
 *   - d_name is replaced whole (struct dname) and the old one freed after a
 *     grace period; d_parent changes only under rename_seq;
 *   - a rename moves a dentry from one hash chain to another with no grace
 *     period between, inside rename_seq's write section: a probe standing on
 *     it follows it into the other chain, so a miss is final only when
 *     rename_seq did not move (__d_lookup_exact, dcache.h);
 *   - hashed <=> on the parent's d_subdirs list, where the positive
 *     children come first, by decreasing d_offset (readdir.c);
 *   - dentries, names and inodes are freed after a grace period; a dentry's
 *     or a name's memory is reused (dentry_cache, dname_cache) only after
 *     one too, never earlier, so
 *     a reader needs no identity check beyond d_seq's.
 *
 * d_count is the reference count; -1 marks a dead dentry that can no longer
 * be taken (and, for the moment d_delete turns a hashed one negative, one
 * that cannot be taken yet).  Hashed dentries may sit at zero (cached); an
 * unhashed dentry dies when its count drops to zero.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include "dcache.h"
#include "pathcache.h"
#include "lib/rcu_cache.h"

#define NEGATIVE_DENTRY_MAX (1L << 18)
/* below this many negative entries an unlink's victim is kept as one
 * (d_delete): names made and removed again, without a bound on the
 * distinct names a long-lived directory churns through */
#define NEGATIVE_DENTRY_KEEP_MAX (1L << 12)

int dcache_init(struct uvfs *vfs)
{
	vfs->d_hash = calloc((size_t)1 << D_HASH_BITS, sizeof(struct hlist_head));
	if (!vfs->d_hash)
		return -ENOMEM;
	for (int i = 0; i < D_HASH_LOCKS; i++)
		spin_lock_init(&vfs->d_hash_locks[i].m);
	return 0;
}

void dcache_fini(struct uvfs *vfs)
{
	free(vfs->d_hash);
}

static void dname_free_rcu(struct rcu_head *h);

/* A name too short to need its own size: what fits a dentry's inline
 * buffer, the common case of a rename's new name. */
#define DNAME_SHORT sizeof(((struct dentry *)0)->d_iname.buf)

/* The short names a rename gives a dentry come from here and go back
 * after their grace period, like dentries (rcu_cache.h): a rename costs
 * no malloc, call_rcu and free() for its name. */
static struct rcu_cache dname_cache = {
	.name = "dname",
	.size = sizeof(struct dname) + DNAME_SHORT,
	.rcu_off = offsetof(struct dname, rcu),
	.free_rcu = dname_free_rcu,
	.id = 2,
};

static struct dname *dname_alloc(struct dentry *d, const char *name, unsigned len, uint32_t hash)
{
	struct dname *n;
	if (d && len < sizeof(d->d_iname.buf))
		n = &d->d_iname.hdr;
	else if (len < DNAME_SHORT ? !(n = rcu_cache_zalloc(&dname_cache)) : !(n = malloc(sizeof(*n) + len + 1)))
		return NULL;
	n->hash = hash;
	n->len = len;
	memcpy(n->name, name, len);
	n->name[len] = 0;
	return n;
}

static void dname_free_rcu(struct rcu_head *h)
{
	free(container_of(h, struct dname, rcu));
}

static void dname_put(struct dentry *d, struct dname *n)
{
	if (n == &d->d_iname.hdr)
		return;
	if (n->len < DNAME_SHORT)
		rcu_cache_free(&dname_cache, n);
	else
		urcu_memb_call_rcu(&n->rcu, dname_free_rcu);
}

static void d_free_rcu(struct rcu_head *h);
static void d_free_rcu_dentry_only(struct rcu_head *h);

/* Freed dentries wait for their grace period in the freeing thread's cache
 * and serve its next allocations.  What it cannot take is freed alone: its
 * name, if not inline, went to dname_cache on its own (d_kill). */
static struct rcu_cache dentry_cache = {
	.name = "dentry",
	.size = sizeof(struct dentry),
	.rcu_off = offsetof(struct dentry, d_rcu),
	.free_rcu = d_free_rcu_dentry_only,
	.id = 0,
};

static struct dentry *__d_alloc(struct super_block *sb, const char *name, unsigned len, uint32_t hash)
{
	struct dentry *d = rcu_cache_zalloc(&dentry_cache);
	if (!d)
		return NULL;
	d->d_name = dname_alloc(d, name, len, hash);
	if (!d->d_name) {
		free(d);
		return NULL;
	}
	d->d_count = 1;
	d->d_sb = sb;
	d->d_parent = d;
	INIT_LIST_HEAD(&d->d_child);
	INIT_LIST_HEAD(&d->d_subdirs);
	return d;
}

struct dentry *d_alloc(struct dentry *parent, const struct qstr *name)
{
	struct dentry *d = __d_alloc(parent->d_sb, name->name, name->len, name->hash);
	if (d) {
		d->d_parent = dget(parent);
		const struct dentry_operations *op = parent->d_sb->s_d_op;
		if (op && op->d_revalidate)
			d->d_flags |= DCACHE_OP_REVALIDATE;
	}
	return d;
}

struct dentry *d_alloc_root(struct super_block *sb, struct inode *inode)
{
	struct dentry *d = __d_alloc(sb, "/", 1, name_hash("/", 1));
	if (d)
		d->d_inode = inode;
	return d;
}

struct dentry *d_alloc_pseudo(struct super_block *sb, struct inode *inode)
{
	struct dentry *d = __d_alloc(sb, "", 0, 0);
	if (d) {
		d->d_inode = inode;
		d->d_flags |= DCACHE_DISCONNECTED;
	}
	return d;
}

/* Takes a reference unless the dentry is dead; for lockless finders
 * (__dget_not_dead, dcache.h, inline). */
bool dget_not_dead(struct dentry *d)
{
	return __dget_not_dead(d);
}

static void d_free_rcu(struct rcu_head *h)
{
	struct dentry *d = container_of(h, struct dentry, d_rcu);
	if (d->d_name != &d->d_iname.hdr)
		free(d->d_name);
	free(d);
}

/* (the name "d_free_rcu" in it is what tests/tsan.supp matches) */
static void d_free_rcu_dentry_only(struct rcu_head *h)
{
	free(container_of(h, struct dentry, d_rcu));
}

/* The dentry is dead and unhashed: release what it holds.  Returns the parent
 * whose reference it dropped, for the caller's loop, or NULL. */
static struct dentry *d_kill(struct dentry *d)
{
	struct dentry *parent = d->d_parent == d ? NULL : d->d_parent;
	struct inode *inode = d->d_inode;
	if (inode) {
		/* the last dentry of an inode with no link left: IN_DELETE_SELF */
		fsnotify_dentry_kill(inode);
		iput(inode);
	}
	struct dname *n = d->d_name;
	if (n == &d->d_iname.hdr || n->len < DNAME_SHORT) {
		/* a renamed dentry's short name waits in its own cache */
		dname_put(d, n);
		rcu_cache_free(&dentry_cache, d);
	} else {
		urcu_memb_call_rcu(&d->d_rcu, d_free_rcu);
	}
	return parent;
}

/*
 * Once our decrement is done the dentry is no longer ours: another thread
 * may take it at zero, unhash it (a rename onto a negative dentry, an
 * unlink) and drop it for good, and its memory goes after a grace period.
 * So a decrement that may reach zero, and every look at the dentry after
 * it, run inside a read-side section, as Linux's fast_dput; whoever moves
 * the count from 0 to -1 owns the dentry and releases it outside the
 * section.  A decrement that leaves the count above zero looks at nothing
 * afterwards and needs no section (the common case: a tmpfs name's pin
 * keeps its count at one or more).
 */
void dput_slow(struct dentry *d)
{
	while (d) {
		long c = __atomic_load_n(&d->d_count, __ATOMIC_RELAXED);
		while (c > 1)
			if (__atomic_compare_exchange_n(&d->d_count, &c, c - 1, true, __ATOMIC_RELEASE,
							__ATOMIC_RELAXED))
				return;
		/* The last reference to a name already gone (an unlink's victim):
		 * straight from ours to dead, so the dentry is never anyone
		 * else's and needs no read-side section.  A lockless finder that
		 * took it before the unhash makes the exchange fail, and the
		 * general case below decides. */
		if (c == 1 && d_unhashed(d) &&
		    __atomic_compare_exchange_n(&d->d_count, &c, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			d = d_kill(d);
			continue;
		}
		urcu_memb_read_lock();
		if (__atomic_sub_fetch(&d->d_count, 1, __ATOMIC_ACQ_REL) != 0) {
			urcu_memb_read_unlock();
			return;
		}
		RACE_POINT("dput:zero");
		/* Hashed dentries stay cached at zero. */
		long zero = 0;
		if (!d_unhashed(d) ||
		    !__atomic_compare_exchange_n(&d->d_count, &zero, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			urcu_memb_read_unlock(); /* cached, or a lockless finder took it meanwhile */
			return;
		}
		urcu_memb_read_unlock();
		d = d_kill(d);
	}
}

/* The chain of (parent, name) walked again with its bucket's lock held, in
 * a read-side section: no dentry joins or leaves it meanwhile, so a miss is
 * one (dcache.h, __d_lookup_exact).  No race point here: this walk cannot
 * be led astray. */
struct dentry *d_lookup_bucket_locked(const struct dentry *parent, const struct qstr *name)
{
	spinlock_t *l = d_bucket_lock(parent->d_sb->s_uvfs, parent, name->hash);
	spin_lock(l);
	struct dentry *d = __d_lookup_rcu(parent, name, NULL);
	spin_unlock(l);
	return d;
}

/* Lookup with the parent's i_rwsem held (either mode): the children of the
 * parent cannot change; returns a referenced dentry or NULL. */
static __always_inline struct dentry *__d_lookup_locked(struct dentry *parent, const struct qstr *name)
{
	struct dentry *d;
	unsigned seq;
	urcu_memb_read_lock();
	d = __d_lookup_exact(parent, name, &seq);
	if (!d)
		d = d_lookup_miss_exact(parent, name, seq);
	if (d && !dget_not_dead(d))
		d = NULL;
	urcu_memb_read_unlock();
	return d;
}

struct dentry *d_lookup_locked(struct dentry *parent, const struct qstr *name)
{
	return __d_lookup_locked(parent, name);
}

/* Into the hash and the parent's list: a positive child after at, or at
 * the head when at is NULL (it has just taken the newest offset). */
static void d_add_hashed_at(struct dentry *d, struct list_head *at)
{
	struct uvfs *vfs = d->d_sb->s_uvfs;
	struct dentry *parent = d->d_parent;
	/* the bucket once: the lock's barrier kept the compiler from merging
	 * two computations (18 instructions per create) */
	uint32_t b = d_hash_bucket(parent, d->d_name->hash, D_HASH_BITS);
	spinlock_t *l = &vfs->d_hash_locks[b % D_HASH_LOCKS].m;
	spin_lock(l);
	hlist_add_head_rcu(&d->d_hash, &vfs->d_hash[b]);
	spin_unlock(l);
	if (d->d_inode)
		list_add(&d->d_child, at ? at : &parent->d_subdirs);
	else {
		list_add_tail(&d->d_child, &parent->d_subdirs);
		bcounter_add(&vfs->nr_negative, 1);
	}
}

void d_add_hashed(struct dentry *d)
{
	d_add_hashed_at(d, NULL);
}

static void d_unhash(struct dentry *d)
{
	struct uvfs *vfs = d->d_sb->s_uvfs;
	spinlock_t *l = d_bucket_lock(vfs, d->d_parent, d->d_name->hash);
	spin_lock(l);
	pathcache_unhash(d);
	hlist_del_rcu(&d->d_hash);
	spin_unlock(l);
	list_del_init(&d->d_child);
	if (!d->d_inode)
		bcounter_add(&vfs->nr_negative, -1);
}

/* Out of the hash only (superblock teardown). */
void d_drop(struct dentry *d)
{
	if (d_unhashed(d))
		return;
	struct uvfs *vfs = d->d_sb->s_uvfs;
	spinlock_t *l = d_bucket_lock(vfs, d->d_parent, d->d_name->hash);
	spin_lock(l);
	pathcache_unhash(d);
	hlist_del_rcu(&d->d_hash);
	spin_unlock(l);
	/* a cached negative name leaves the instance's count with its hash */
	if (!d->d_inode)
		bcounter_add(&vfs->nr_negative, -1);
}

/* Nothing is cached under a removed directory: its dentry is out of the
 * tree, and a cached child would keep it alive for ever. */
static bool d_parent_dead(struct dentry *parent)
{
	return d_unlinked(parent);
}

/*
 * d_invalidate's first half: what is cached below a directory whose name
 * was found stale goes out of the hash, so that nothing reaches it and the
 * dentries nobody holds die (those in use die when let go).  Each level
 * under its own i_rwsem, parent before child; mountpoints stay.  With try,
 * a lock that is taken is not waited for (a namespace change may hold it
 * itself: a rename's other directory can sit below the stale one) and the
 * answer is false; what was pruned by then was only cache.
 */
static bool d_prune_subtree(struct dentry *d, bool try)
{
	struct inode *inode = READ_ONCE(d->d_inode);
	if (!inode || !S_ISDIR(READ_ONCE(inode->i_mode)))
		return true;
	if (try) {
		if (!down_write_trylock(&inode->i_rwsem))
			return false;
	} else {
		down_write(&inode->i_rwsem);
	}
	bool ok = true;
	struct list_head *pos, *n;
	list_for_each_safe(pos, n, &d->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		if (READ_ONCE(c->d_flags) & DCACHE_MOUNTED)
			continue;
		dget(c);
		if (d_prune_subtree(c, try)) {
			if (!d_unhashed(c))
				d_unhash(c);
		} else {
			ok = false;
		}
		dput(c);
		if (!ok)
			break;
	}
	up_write(&inode->i_rwsem);
	return ok;
}

void d_invalidate(struct dentry *d)
{
	if (READ_ONCE(d->d_flags) & DCACHE_MOUNTED)
		return; /* a mountpoint stays what it is until the umount */
	d_prune_subtree(d, false); /* no lock held: parent before child */
	struct super_block *sb = d->d_sb;
	struct inode *dir = d->d_parent->d_inode; /* d pins its parent */
	down_read(&dir->i_rwsem);
	pthread_mutex_lock(&sb->s_in_lookup_lock);
	if (!d_unhashed(d))
		d_unhash(d);
	pthread_mutex_unlock(&sb->s_in_lookup_lock);
	up_read(&dir->i_rwsem);
}

static struct dentry *d_in_lookup_find(struct super_block *sb, struct dentry *parent, const struct qstr *name)
{
	struct list_head *pos;
	list_for_each(pos, &sb->s_in_lookup) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		if (c->d_parent == parent && d_name_eq(c->d_name, name))
			return c;
	}
	return NULL;
}

/*
 * Linux's d_alloc_parallel, with the lookups under way on a list of the
 * superblock rather than in a second hash (they are few: one per walker in
 * a ->lookup).  The dentry of a lookup under way is on no hash chain, so a
 * walk in RCU mode never meets it: it misses and comes here.
 */
struct dentry *d_alloc_parallel(struct dentry *parent, const struct qstr *name, int *errp)
{
	if (unlikely(name->len > NAME_MAX)) {
		*errp = (READ_ONCE(parent->d_inode->i_flags) & S_DEAD_DIR) ? -ENOENT : -ENAMETOOLONG;
		return NULL;
	}
	struct super_block *sb = parent->d_sb;
	struct dentry *new = d_alloc(parent, name);
	if (!new) {
		*errp = -ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&sb->s_in_lookup_lock);
	for (;;) {
		struct dentry *d = d_lookup_locked(parent, name);
		if (d) {
			pthread_mutex_unlock(&sb->s_in_lookup_lock);
			dput(new);
			return d;
		}
		struct dentry *busy = d_in_lookup_find(sb, parent, name);
		if (!busy)
			break;
		/* its lookup ends in d_lookup_done: positive, it is hashed
		 * and the probe above finds it; negative, we ask ourselves */
		dget(busy);
		while (READ_ONCE(busy->d_flags) & DCACHE_PAR_LOOKUP)
			pthread_cond_wait(&sb->s_in_lookup_done, &sb->s_in_lookup_lock);
		pthread_mutex_unlock(&sb->s_in_lookup_lock);
		dput(busy);
		pthread_mutex_lock(&sb->s_in_lookup_lock);
	}
	d_set_flags(new, DCACHE_PAR_LOOKUP);
	list_add(&new->d_child, &sb->s_in_lookup);
	pthread_mutex_unlock(&sb->s_in_lookup_lock);
	return new;
}

/* A negative answer of ->lookup is cached only where the filesystem said
 * it is final (DCACHE_NEGATIVE_FINAL), within the bound. */
static bool negative_cacheable(struct dentry *d)
{
	return (READ_ONCE(d->d_flags) & DCACHE_NEGATIVE_FINAL) &&
	       bcounter_read(&d->d_sb->s_uvfs->nr_negative) < NEGATIVE_DENTRY_MAX;
}

/* The end of a lookup d_alloc_parallel started: a positive result joins the
 * hash and its parent's children; a negative one is not cached (unless
 * negative_cacheable), since a filesystem with ->lookup may gain the name
 * behind the cache. */
void d_lookup_done(struct dentry *d)
{
	struct super_block *sb = d->d_sb;
	pthread_mutex_lock(&sb->s_in_lookup_lock);
	list_del_init(&d->d_child);
	if ((d->d_inode || negative_cacheable(d)) && !d_parent_dead(d->d_parent))
		d_add_hashed(d);
	d_clear_flags(d, DCACHE_PAR_LOOKUP);
	pthread_cond_broadcast(&sb->s_in_lookup_done);
	pthread_mutex_unlock(&sb->s_in_lookup_lock);
}

/*
 * With the parent's i_rwsem held exclusive: the dentry of name, positive or
 * negative, with a reference.  A miss makes a negative dentry and hashes it
 * (unless too many are cached; then it stays private to the caller).  NULL
 * with *errp on a miss that cannot be one: ENAMETOOLONG for a name longer
 * than NAME_MAX (as tmpfs's simple_lookup answers: the walk leaves the last
 * component's length to this lookup, after the checks that come first),
 * ENOMEM.  In a directory with ->lookup a cached name is revalidated and a
 * miss asks the filesystem; a negative answer stays private (not cached).
 */
static __always_inline struct dentry *d_lookup_or_alloc_slow(struct dentry *parent, const struct qstr *name,
							     int *errp, bool cache_miss, struct dentry *d)
{
	if (d) {
		int r = d_revalidate(d, 0);
		/* a mountpoint stays what it is until the umount */
		if (r > 0 || (r == 0 && (READ_ONCE(d->d_flags) & DCACHE_MOUNTED)))
			return d;
		if (r == 0) {
			/* a stale directory whose subtree is locked (by this very
			 * change, perhaps) stays for this call; the next walk
			 * through it replaces it */
			if (!d_prune_subtree(d, true))
				return d;
			if (!d_unhashed(d))
				d_unhash(d);
		}
		dput(d);
		if (r < 0) {
			*errp = r;
			return NULL;
		}
	}
	if (unlikely(name->len > NAME_MAX)) {
		/* a removed directory has no names at all: that comes first */
		*errp = (READ_ONCE(parent->d_inode->i_flags) & S_DEAD_DIR) ? -ENOENT : -ENAMETOOLONG;
		return NULL;
	}
	d = d_alloc(parent, name);
	if (!d) {
		*errp = -ENOMEM;
		return NULL;
	}
	bool dead = d_parent_dead(parent);
	struct inode *dir = parent->d_inode;
	if (unlikely(dir->i_op->lookup)) {
		int err = (READ_ONCE(dir->i_flags) & S_DEAD_DIR) ? 0 : dir->i_op->lookup(dir, d, 0);
		if (err) {
			dput(d);
			*errp = err;
			return NULL;
		}
		if ((d->d_inode || negative_cacheable(d)) && !dead)
			d_add_hashed(d);
		return d;
	}
	if (cache_miss && !dead &&
	    bcounter_read(&parent->d_sb->s_uvfs->nr_negative) < NEGATIVE_DENTRY_MAX)
		d_add_hashed(d);
	return d;
}

/* __d_lookup_or_alloc's way out of its read-side section for anything but
 * a plain hit (dcache.h): d (found, maybe dying) is taken here, then the
 * slow path, inline here (its only caller): as a call of its own it made a
 * miss (a mkdir's, a rename's target) pay two calls, mkdir+rmdir 14
 * instructions more than before the hit moved into the section */
__attribute__((noinline)) struct dentry *d_lookup_or_alloc_miss(struct dentry *parent, const struct qstr *name,
								int *errp, bool cache_miss, struct dentry *d,
								unsigned seq)
{
	if (!d)
		d = d_lookup_miss_exact(parent, name, seq);
	if (d && !__dget_not_dead(d))
		d = NULL;
	urcu_memb_read_unlock();
	if (d && likely(!(READ_ONCE(d->d_flags) & DCACHE_OP_REVALIDATE)))
		return d;
	return d_lookup_or_alloc_slow(parent, name, errp, cache_miss, d);
}

struct dentry *d_lookup_or_alloc(struct dentry *parent, const struct qstr *name, int *errp)
{
	return __d_lookup_or_alloc(parent, name, errp, true);
}

/*
 * For a create (open O_CREAT, mkdir, mknod, symlink, link): the miss is
 * about to become the new name (d_link_child hashes it then), so it is not
 * hashed as a negative first, which would cost the bucket lock, the
 * negative count's shared line twice, and a move in the parent's list.
 * A create that fails leaves nothing cached; a walker meanwhile misses
 * and waits on the directory's lock, as it would for a negative dentry.
 */
struct dentry *d_lookup_or_alloc_create(struct dentry *parent, const struct qstr *name, int *errp)
{
	return __d_lookup_or_alloc(parent, name, errp, false);
}

/*
 * The offset a name made or renamed into dir takes: above every offset the
 * directory has handed out, so that it sorts before every reader's position
 * (readdir.c) and no reader already under way meets it.  DIR_OFFSET_EOD is
 * never an entry's.
 */
static uint64_t dir_new_offset(struct inode *dir)
{
	if (!dir->i_op->get_offset_ctx)
		return 0; /* the filesystem's readdir numbers its own */
	struct offset_ctx *ctx = dir->i_op->get_offset_ctx(dir);
	uint64_t off = ++ctx->next_off;
	if (off == DIR_OFFSET_EOD)
		off = ++ctx->next_off;
	return off;
}

/*
 * A new name in a tmpfs directory: d was just instantiated.  It gets the next
 * readdir offset, goes to the head of the parent's list (positive children in
 * decreasing offset order, then the negative ones) and is pinned by a
 * reference of its own.
 */
void d_link_child(struct dentry *d)
{
	struct dentry *parent = d->d_parent;
	struct inode *dir = parent->d_inode;
	rwsem_assert_held_write(&dir->i_rwsem);
	d->d_offset = dir_new_offset(dir);
	if (d_unhashed(d)) {
		/* still the creator's alone (d_lookup_or_alloc_create): the
		 * pin is a plain add before the hash publishes it */
		d->d_count++;
		d_set_flags(d, DCACHE_PINNED);
		d_add_hashed(d);
		return;
	}
	list_del_init(&d->d_child);
	list_add(&d->d_child, &parent->d_subdirs);
	bcounter_add(&d->d_sb->s_uvfs->nr_negative, -1);
	d_set_flags(d, DCACHE_PINNED);
	dget(d);
}

/*
 * An unlink's end in the dcache (Linux's d_delete after vfs_unlink's
 * ->unlink): the filesystem dropped the link and left the dentry as it was,
 * hashed, positive and pinned if it was (a tmpfs name); the parent's
 * i_rwsem is still held exclusive.  In a directory whose dcache is the
 * directory (no ->lookup, no revalidation: tmpfs), a regular file's dentry
 * that nobody but the caller holds turns negative in place, as Linux's
 * d_delete turns the dentry of a sole user negative: it stays hashed and
 * listed and becomes the cached negative entry of its name, and the next
 * create of the name finds it (d_lookup_or_alloc_create) and allocates,
 * hashes and later frees nothing.  Linux's tmpfs opts out
 * (always_delete_dentry) to spare memory; here NEGATIVE_DENTRY_KEEP_MAX
 * bounds what unlinks keep.  Anything else leaves the hash and drops its
 * pin (d_delete_entry): its other holders keep a positive, unhashed dentry.
 *
 * The count goes from the caller's reference and the pin straight to -1
 * first, so nothing takes the dentry while its inode goes: a lockless
 * finder (a walk's hash probe, legitimize_path, lookup_slow's unlocked
 * probe) fails as for a dead one and walks again, and the locked lookups
 * wait for the parent's lock.  The count comes back (to the caller's 1, or
 * to 0 when put) only after the inode is gone; a walk in RCU mode that read
 * the inode before checks after its reference that it is still the one it
 * saw (legitimize_path_inode).  put: the caller's reference goes too.
 */
static __always_inline void __d_delete(struct dentry *d, bool put)
{
	struct dentry *parent = d->d_parent;
	struct inode *inode = d->d_inode;
	unsigned flags = READ_ONCE(d->d_flags);
	/* the pin changes only under the parent's lock, which we hold */
	long expect = 1 + !!(flags & DCACHE_PINNED);
	rwsem_assert_held_write(&parent->d_inode->i_rwsem);
	if (d_unhashed(d) || !inode || !S_ISREG(READ_ONCE(inode->i_mode)) || parent->d_inode->i_op->lookup ||
	    (flags & (DCACHE_OP_REVALIDATE | DCACHE_MOUNTED | DCACHE_PATHCACHED)) ||
	    bcounter_read(&d->d_sb->s_uvfs->nr_negative) >= NEGATIVE_DENTRY_KEEP_MAX ||
	    d_parent_dead(parent) ||
	    !__atomic_compare_exchange_n(&d->d_count, &expect, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		d_delete_entry(d);
		if (put)
			dput(d);
		return;
	}
	RACE_POINT("d_delete:dead");
	if (flags & DCACHE_PINNED)
		d_clear_flags(d, DCACHE_PINNED);
	write_seqcount_begin(&d->d_seq);
	smp_store_release(&d->d_inode, NULL);
	write_seqcount_end(&d->d_seq);
	/* hashed <=> listed: from among the positive names to the negative
	 * ones at the list's end (readdir.c) */
	list_move_tail(&d->d_child, &parent->d_subdirs);
	bcounter_add(&d->d_sb->s_uvfs->nr_negative, 1);
	/* the last dentry of an inode with no link left: IN_DELETE_SELF */
	fsnotify_dentry_kill(inode);
	iput(inode);
	__atomic_store_n(&d->d_count, put ? 0 : 1, __ATOMIC_RELEASE);
}

void d_delete(struct dentry *d)
{
	__d_delete(d, false);
}

void d_delete_put(struct dentry *d)
{
	__d_delete(d, true);
}

/* The name is gone (rmdir, replaced by rename, an unlink's victim that
 * d_delete does not keep): unhash the dentry and drop its pin.  Holders keep
 * a positive, unhashed dentry. */
void d_delete_entry(struct dentry *d)
{
	rwsem_assert_held_write(&d->d_parent->d_inode->i_rwsem);
	if (!d_unhashed(d))
		d_unhash(d);
	if (d_clear_flags(d, DCACHE_PINNED) & DCACHE_PINNED)
		dput(d);
}

/* A copy of d's name for a rename, made before anything changes so that the
 * rename itself cannot fail half way (and put back with d_name_free if the
 * rename does not happen). */
struct dname *d_name_copy(const struct dentry *d)
{
	return dname_alloc(NULL, d->d_name->name, d->d_name->len, d->d_name->hash);
}

void d_name_free(struct dname *n)
{
	free(n);
}

/*
 * rename: d takes target's place (same parent and name, given as newname,
 * a d_name_copy of target); target, if hashed, is removed.  Called with
 * both parents' i_rwsem held exclusive and rename_seq in a write section.
 *
 * A name that replaces another keeps that one's offset and place, as Linux's
 * simple_offset_rename keeps the offset: a reader returns the name once,
 * before or after the rename.  (Linux also moves the entry to the front of
 * its d_children walk, which makes a reader below it return names twice.)
 */
void d_move(struct dentry *d, struct dentry *target, struct dname *newname)
{
	struct dentry *oldparent = d->d_parent, *newparent = target->d_parent;
	struct dname *oldname = d->d_name;
	struct list_head *at = NULL;
	uint64_t off = 0;
	/* d first, so that target's neighbour in the list is not d */
	d_unhash(d);
	if (!d_unhashed(target)) {
		if (target->d_inode) {
			off = target->d_offset;
			at = target->d_child.prev;
			d_delete_entry(target);
		} else {
			d_unhash(target);
		}
	}
	write_seqcount_begin(&d->d_seq);
	smp_store_release(&d->d_name, newname);
	if (newparent != oldparent) {
		dget(newparent);
		WRITE_ONCE(d->d_parent, newparent);
	}
	write_seqcount_end(&d->d_seq);
	d->d_offset = at ? off : dir_new_offset(newparent->d_inode);
	d_add_hashed_at(d, at);
	dname_put(d, oldname);
	if (newparent != oldparent)
		dput(oldparent);
}

/* RENAME_EXCHANGE: a and b swap names and parents (na is a d_name_copy of
 * b, nb of a); each gets a new offset, so that a reader under way returns
 * neither name again (Linux keeps each name's offset but moves both entries
 * to the front of the reading order, with the same effect on readers). */
void d_exchange(struct dentry *a, struct dentry *b, struct dname *na, struct dname *nb)
{
	struct dentry *pa = a->d_parent, *pb = b->d_parent;
	struct dname *oa = a->d_name, *ob = b->d_name;
	d_unhash(a);
	d_unhash(b);
	write_seqcount_begin(&a->d_seq);
	write_seqcount_begin(&b->d_seq);
	smp_store_release(&a->d_name, na);
	smp_store_release(&b->d_name, nb);
	if (pa != pb) {
		/* only a cross-directory exchange moves them, under rename_mutex,
		 * which d_ancestor's walk up the tree holds too */
		WRITE_ONCE(a->d_parent, pb);
		WRITE_ONCE(b->d_parent, pa);
	}
	write_seqcount_end(&b->d_seq);
	write_seqcount_end(&a->d_seq);
	a->d_offset = dir_new_offset(pb->d_inode);
	d_add_hashed(a);
	b->d_offset = dir_new_offset(pa->d_inode);
	d_add_hashed(b);
	dname_put(a, oa);
	dname_put(b, ob);
}

/* rmdir: drop the negative dentries cached under a directory that goes. */
void d_prune_negative_children(struct dentry *dir)
{
	struct list_head *pos, *n;
	list_for_each_safe(pos, n, &dir->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		if (c->d_inode)
			continue;
		d_unhash(c);
		dget(c);
		dput(c); /* dies now unless a walker holds it */
	}
}

/*
 * Superblock teardown, the tree already out of the hash: free every dentry
 * of it after a grace period (lockless walkers may still be on it).
 *
 * Nothing but the cache may hold a dentry now: its count must be what the
 * cache accounts for (a tmpfs name's pin, one per child, the superblock's
 * on its root), or someone still uses a dentry, an inode or a body that is
 * about to go.  Each is marked dead, so that a lockless finder cannot take
 * it, and lets go of its inode's reference: evict_all_inodes then checks
 * that no other reference is left on any inode.
 */
void d_genocide(struct dentry *root)
{
	long expect = root == root->d_sb->s_root;
	struct list_head *pos, *n;
	list_for_each_safe(pos, n, &root->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		d_genocide(c);
		expect++;
	}
	if (root->d_flags & DCACHE_PINNED)
		expect++;
	long count = __atomic_exchange_n(&root->d_count, -1, __ATOMIC_ACQ_REL);
	LIFETIME_CHECK(count == expect, "dentry \"%s\" of a superblock being torn down has %ld references, "
		       "the cache accounts for %ld", root->d_name->name, count, expect);
	(void)count;
	if (root->d_inode)
		__atomic_fetch_sub(&root->d_inode->i_count, 1, __ATOMIC_RELEASE);
	urcu_memb_call_rcu(&root->d_rcu, d_free_rcu);
}
