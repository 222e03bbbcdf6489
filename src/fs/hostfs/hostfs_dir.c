// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_dir.c - directory listings kept in memory (cache=exclusive): a
 * directory is read from the host once, and later getdents64 calls are
 * served from the copy, which uvfs's own creates, links, unlinks and
 * renames keep up to date.  uvfs is the only writer, so the copy is the
 * host's directory; cache=revalidate lists from the host each time.
 *
 * Offsets are the listing's own, numbered as Linux's tmpfs numbers them
 * (6.14 and later, readdir.c): every name gets the next offset of its
 * directory when it is made or renamed in (also within the directory, also
 * over another name), and a listing returns names by decreasing offset, so
 * a name made meanwhile sorts before every reader's position.  A position is
 * the offset of the next name to return; a reader resumes at the first name
 * whose offset is at most that, so a telldir value stays good whatever
 * changes, each name that stays is returned once and the reader ends.  The
 * host's names get their offsets at the first read, in the host's order
 * (the first the highest), so a fresh listing comes in the host's order.
 * The host's own offsets are never handed out: a hashed filesystem's would
 * give a name made by uvfs no place to go.
 *
 * A listing that may no longer be the host's (a create whose outcome is
 * unknown; for cache=watch, a host event: hostfs_dir_listing_invalidate) is
 * read again at its next use; the names that stay keep their offsets, so
 * positions handed out before stay good across the reread too.
 *
 * Locks: the listing's mutex guards it; it is inner to the directory's
 * i_rwsem (taken shared by readers, exclusive by the changes) and outer to
 * hsb->lock (the host fd for a reread).  The dir_context actors
 * (getdents64's copy, overlay's merge) only copy, so they run under it.
 */
#include "hostfs.h"
#include <dirent.h>
#include <sys/syscall.h>

struct hdent {
	struct hdent *hnext; /* in the listing's hash */
	uint64_t off;
	uint64_t ino;
	unsigned char type;
	bool dead;           /* removed; kept until compaction for its offset */
	unsigned short len;
	char name[];
};

struct hostfs_listing {
	pthread_mutex_t lock;
	bool complete;         /* holds every host name */
	bool host_offsets;     /* the offsets are the host's (an offset directory) */
	bool exact;            /* next_off is the host's too */
	struct hdent **v;      /* by increasing offset, dead ones included */
	size_t n, cap, nr_dead;
	struct hdent **hash;   /* live entries by name */
	size_t hash_size;      /* a power of two, or 0 */
	uint64_t next_off;     /* the last offset handed out */
};

static inline unsigned char dt_of(umode_t mode) { return (mode >> 12) & 15; }

static size_t ent_hash(const char *name, unsigned len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32));
}

static struct hdent **hash_slot(struct hostfs_listing *l, const char *name, unsigned len)
{
	struct hdent **pp = &l->hash[ent_hash(name, len) & (l->hash_size - 1)];
	while (*pp && ((*pp)->len != len || memcmp((*pp)->name, name, len)))
		pp = &(*pp)->hnext;
	return pp;
}

static int hash_grow(struct hostfs_listing *l)
{
	size_t ns = l->hash_size ? l->hash_size * 2 : 16;
	struct hdent **h = calloc(ns, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < l->hash_size; i++) {
		while (l->hash[i]) {
			struct hdent *e = l->hash[i];
			l->hash[i] = e->hnext;
			size_t b = ent_hash(e->name, e->len) & (ns - 1);
			e->hnext = h[b];
			h[b] = e;
		}
	}
	free(l->hash);
	l->hash = h;
	l->hash_size = ns;
	return 0;
}

/* Drops the dead entries; the live ones keep their offsets (and order). */
static void compact(struct hostfs_listing *l)
{
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i]->dead)
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
	l->nr_dead = 0;
}

static void clear(struct hostfs_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->hash);
	l->v = NULL;
	l->hash = NULL;
	l->n = l->cap = l->nr_dead = l->hash_size = 0;
	l->complete = false;
}

/* The next offset, above every one handed out; DIR_OFFSET_EOD is never a
 * name's. */
static uint64_t new_offset(struct hostfs_listing *l)
{
	uint64_t off = ++l->next_off;
	if (off == DIR_OFFSET_EOD)
		off = ++l->next_off;
	return off;
}

/* Appends a live entry at offset off (above every other). */
static int append(struct hostfs_listing *l, const char *name, unsigned len, uint64_t ino, unsigned char type,
		  uint64_t off)
{
	if (l->n - l->nr_dead >= l->hash_size && hash_grow(l))
		return -ENOMEM;
	if (l->n == l->cap) {
		if (l->nr_dead * 2 > l->n) {
			compact(l);
		} else {
			size_t nc = l->cap ? l->cap * 2 : 16;
			struct hdent **v = realloc(l->v, nc * sizeof(*v));
			if (!v)
				return -ENOMEM;
			l->v = v;
			l->cap = nc;
		}
	}
	struct hdent *e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	e->off = off;
	e->ino = ino;
	e->type = type;
	e->dead = false;
	e->len = (unsigned short)len;
	memcpy(e->name, name, len);
	e->name[len] = 0;
	struct hdent **pp = &l->hash[ent_hash(name, len) & (l->hash_size - 1)];
	e->hnext = *pp;
	*pp = e;
	l->v[l->n++] = e;
	return 0;
}

static void remove_name(struct hostfs_listing *l, const char *name, unsigned len)
{
	if (!l->hash_size)
		return;
	struct hdent **pp = hash_slot(l, name, len);
	struct hdent *e = *pp;
	if (!e)
		return;
	*pp = e->hnext;
	e->hnext = NULL;
	e->dead = true;
	l->nr_dead++;
}

/* The first index whose entry's offset is above off. */
static size_t index_above(const struct hostfs_listing *l, uint64_t off)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[mid]->off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct linux_dirent64_h {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* An old entry's offset for name, if it still names ino (a reread). */
static uint64_t old_offset(struct hostfs_listing *old, const char *name, unsigned len, uint64_t ino)
{
	if (!old->hash_size)
		return 0;
	struct hdent *e = *hash_slot(old, name, len);
	return e && e->ino == ino ? e->off : 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct hdent *x = *(struct hdent *const *)a, *y = *(struct hdent *const *)b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* (an empty listing has no array, which qsort may not be given) */
static void sort_by_offset(struct hostfs_listing *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_offset);
}

/*
 * Reads the host's directory into l (l->lock held).  A host whose
 * directories number as tmpfs's do ("." and ".." first, each record's d_off
 * the offset of the name after it, 0x7fffffff after the last) gives its own
 * offsets: a name's is the d_off of the record before it, the host's
 * numbers, as if uvfs had made every name (sorted: after a rename over
 * another name Linux walks one out of order, readdir.c).  Otherwise a name the listing had keeps its offset, and the others
 * get new ones, the host's first name the highest, so a first read lists in
 * the host's order.
 */
static int fill(struct inode *dir, struct hostfs_listing *l)
{
	struct hostfs_sb *hsb = HOSTFS_SB(dir->i_sb);
	int fd = hostfs_open_node(hsb, HN(dir), O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	/* the old entries, for their offsets; l starts empty */
	struct hostfs_listing old = { .v = l->v, .n = l->n, .cap = l->cap, .nr_dead = l->nr_dead,
				      .hash = l->hash, .hash_size = l->hash_size };
	l->complete = false;
	l->v = l->hash = NULL;
	l->n = l->cap = l->nr_dead = l->hash_size = 0;
	char buf[8192] __attribute__((aligned(8)));
	int err = 0;
	bool offset_dir = true;
	long rec = 0;
	int64_t prev = 0; /* the d_off of the record before */
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (got < 0) {
			err = -errno;
			break;
		}
		if (got == 0)
			break;
		for (long off = 0; off < got && !err; rec++) {
			struct linux_dirent64_h *d = (struct linux_dirent64_h *)(buf + off);
			off += d->d_reclen;
			unsigned len = (unsigned)strlen(d->d_name);
			bool dot = len == 1 && d->d_name[0] == '.';
			bool dotdot = len == 2 && d->d_name[0] == '.' && d->d_name[1] == '.';
			int64_t own = prev;
			prev = d->d_off;
			if (rec < 2) {
				offset_dir &= rec == 0 ? dot : dotdot;
				continue;
			}
			if (dot || dotdot) {
				offset_dir = false;
				continue;
			}
			if (own < DIR_OFFSET_MIN || own >= DIR_OFFSET_EOD)
				offset_dir = false;
			err = append(l, d->d_name, len, d->d_ino, d->d_type, (uint64_t)own);
		}
		if (err)
			break;
	}
	close(fd);
	if (err) {
		clear(l);
		l->v = old.v;
		l->hash = old.hash;
		l->n = old.n;
		l->cap = old.cap;
		l->nr_dead = old.nr_dead;
		l->hash_size = old.hash_size;
		return err;
	}
	if (offset_dir && prev == DIR_OFFSET_EOD) {
		sort_by_offset(l);
		for (size_t i = 1; i < l->n; i++)
			offset_dir &= l->v[i - 1]->off != l->v[i]->off;
	}
	l->host_offsets = offset_dir && prev == DIR_OFFSET_EOD;
	if (l->host_offsets) {
		/* the host's counter may be past its newest name (one removed):
		 * known from the next name made (begin_change) */
		if (l->n && l->v[l->n - 1]->off > l->next_off)
			l->next_off = l->v[l->n - 1]->off;
		l->exact = false;
	} else {
		size_t fresh = 0;
		for (size_t i = 0; i < l->n; i++) {
			struct hdent *e = l->v[i];
			e->off = old_offset(&old, e->name, e->len, e->ino);
			fresh += !e->off;
		}
		/* the new names, in the host's order, downward from the top */
		uint64_t top = l->next_off + fresh;
		for (size_t i = 0; i < l->n; i++)
			if (!l->v[i]->off)
				l->v[i]->off = top--;
		l->next_off += fresh;
	}
	sort_by_offset(l);
	l->complete = true;
	clear(&old);
	return 0;
}

static void listing_free(struct hostfs_listing *l)
{
	clear(l);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* The directory's listing, made on first use (a racing maker's is freed). */
static struct hostfs_listing *listing_of(struct inode *dir)
{
	struct hostfs_inode *hi = HOSTFS_I(dir);
	struct hostfs_listing *l = __atomic_load_n(&hi->listing, __ATOMIC_ACQUIRE);
	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	l->next_off = DIR_OFFSET_MIN - 1;
	struct hostfs_listing *expect = NULL;
	if (!__atomic_compare_exchange_n(&hi->listing, &expect, l, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		listing_free(l);
		return expect;
	}
	return l;
}

bool hostfs_dir_listed(struct inode *dir)
{
	return HOSTFS_SB(dir->i_sb)->listings;
}

int hostfs_dir_iterate(struct file *f, struct dir_context *ctx)
{
	struct dentry *dentry = f->f_path.dentry;
	struct inode *dir = f->f_inode;
	struct hostfs_inode *hi = HOSTFS_I(dir);
	if (ctx->pos == DIR_OFFSET_EOD)
		return 0;
	struct hostfs_listing *l = listing_of(dir);
	if (!l)
		return -ENOMEM;
	pthread_mutex_lock(&l->lock);
	int err = 0;
	if (__atomic_exchange_n(&hi->listing_stale, 0, __ATOMIC_ACQ_REL))
		l->complete = false;
	if (!l->complete) {
		err = fill(dir, l);
		if (err)
			goto out;
	}
	size_t i;
	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, 1, dir->i_ino, DT_DIR))
			goto out;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		/* uvfs's parent: at the mount root, the directory the mount
		 * is on; a rename may move dir meanwhile (readdir.c) */
		urcu_memb_read_lock();
		uint64_t pino = READ_ONCE(READ_ONCE(dentry->d_parent)->d_inode)->i_ino;
		urcu_memb_read_unlock();
		i = l->n;
		while (i && l->v[i - 1]->dead)
			i--;
		if (!ctx->actor(ctx, "..", 2, i ? (loff_t)l->v[i - 1]->off : DIR_OFFSET_EOD, pino, DT_DIR))
			goto out;
	} else if (ctx->pos == DIR_OFFSET_FIRST) {
		i = l->n;
	} else {
		i = index_above(l, (uint64_t)ctx->pos);
	}
	/* i - 1 is the next candidate, walking down */
	while (i) {
		struct hdent *e = l->v[--i];
		if (e->dead)
			continue;
		size_t j = i;
		while (j && l->v[j - 1]->dead)
			j--;
		ctx->pos = (loff_t)e->off;
		if (!ctx->actor(ctx, e->name, e->len, j ? (loff_t)l->v[j - 1]->off : DIR_OFFSET_EOD, e->ino,
				e->type))
			goto out;
		i = j;
	}
	ctx->pos = DIR_OFFSET_EOD;
out:
	pthread_mutex_unlock(&l->lock);
	return err;
}

/*
 * The listing of dir, locked, for a change uvfs just made on the host, or
 * NULL.  A directory without a listing yet is read now, change included,
 * so a later read costs no host call; so is one with the host's offsets
 * whose counter is not known yet, when a name is added: the name the host
 * just numbered is the newest, and from then on each name made takes the
 * offset the host gave it.  (A fresh read's counter is at its newest name,
 * which is behind the host's if the host removed its newest names.)
 */
static struct hdent *find(struct hostfs_listing *l, const char *name, unsigned len);

static struct hostfs_listing *begin_change(struct inode *dir, const char *added, unsigned len)
{
	if (!hostfs_dir_listed(dir))
		return NULL;
	struct hostfs_inode *hi = HOSTFS_I(dir);
	struct hostfs_listing *l = listing_of(dir);
	if (!l)
		return NULL; /* filled at the next read */
	pthread_mutex_lock(&l->lock);
	if (__atomic_exchange_n(&hi->listing_stale, 0, __ATOMIC_ACQ_REL))
		l->complete = false;
	/* (a name renamed over another took that one's offset: nothing new) */
	bool learn = added && l->complete && l->host_offsets && !l->exact && !find(l, added, len);
	if (!l->complete || learn) {
		if (!fill(dir, l) && learn)
			l->exact = true;
		pthread_mutex_unlock(&l->lock);
		return NULL;
	}
	return l;
}

/* The entry called name, live, or NULL. */
static struct hdent *find(struct hostfs_listing *l, const char *name, unsigned len)
{
	return l->hash_size ? *hash_slot(l, name, len) : NULL;
}

void hostfs_dir_add(struct inode *dir, const char *name, unsigned len, uint64_t ino, umode_t mode)
{
	struct hostfs_listing *l = begin_change(dir, name, len);
	if (!l)
		return;
	struct hdent *e = find(l, name, len);
	if (e) {
		/* renamed over it: that name's offset and place */
		e->ino = ino;
		e->type = dt_of(mode);
	} else if (append(l, name, len, ino, dt_of(mode), new_offset(l))) {
		l->complete = false; /* read again at the next listing */
	}
	pthread_mutex_unlock(&l->lock);
}

void hostfs_dir_remove(struct inode *dir, const char *name, unsigned len)
{
	struct hostfs_listing *l = begin_change(dir, NULL, 0);
	if (!l)
		return;
	remove_name(l, name, len);
	pthread_mutex_unlock(&l->lock);
}

void hostfs_dir_new(struct inode *dir)
{
	if (!hostfs_dir_listed(dir))
		return;
	struct hostfs_listing *l = listing_of(dir);
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	if (!l->n && l->next_off == DIR_OFFSET_MIN - 1)
		l->complete = l->host_offsets = l->exact = true;
	else
		l->complete = false; /* an inode cached under a reused identity */
	pthread_mutex_unlock(&l->lock);
}

bool hostfs_dir_absent(struct inode *dir, const char *name, unsigned len)
{
	struct hostfs_inode *hi = HOSTFS_I(dir);
	struct hostfs_listing *l = __atomic_load_n(&hi->listing, __ATOMIC_ACQUIRE);
	if (!l || HOSTFS_SB(dir->i_sb)->cache != HOSTFS_CACHE_EXCLUSIVE)
		return false;
	pthread_mutex_lock(&l->lock);
	bool absent = l->complete && !__atomic_load_n(&hi->listing_stale, __ATOMIC_ACQUIRE) && !find(l, name, len);
	pthread_mutex_unlock(&l->lock);
	return absent;
}

void hostfs_dir_listing_invalidate(struct inode *dir)
{
	__atomic_store_n(&HOSTFS_I(dir)->listing_stale, 1, __ATOMIC_RELEASE);
}

void hostfs_dir_listing_free(struct inode *dir)
{
	struct hostfs_listing *l = HOSTFS_I(dir)->listing;
	if (l)
		listing_free(l);
}
