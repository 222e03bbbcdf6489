// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * readdir.c - the merged directory (Linux's fs/overlayfs/readdir.c).
 *
 * The first readdir of an open directory reads every layer it merges, upper
 * first, into a list kept with the file: a name seen in a higher layer hides
 * the same name below, a whiteout hides it and is not shown.  The order is
 * Linux's: the entries of the lowest layer first, in that layer's order
 * (an entry a higher layer also has moves there), then those of the other
 * layers, in the order they were read.  Positions are indices into the
 * list, so a directory changed behind an open file shows the list it had
 * (rewinddir reads again, as on Linux).
 *
 * A directory of one layer that can hold no whiteout (Linux's "real"
 * directory, ovl_dir_is_real: not merged, and an upper one made in the
 * upper layer, with no origin) is read through: its real directory's own
 * readdir, offsets and all (tmpfs's 0x7fffffff at the end), from a real
 * file kept with the overlay's, as Linux's od->realfile.  An impure one
 * (copied-up children, whose d_ino is their origin's) is read in batches,
 * so that the origins are looked up outside the real directory's lock.
 */
#include "overlayfs.h"
#include <dirent.h>

struct ovl_dirent {
	char *name;
	uint32_t len, hash;
	uint64_t ino;
	unsigned type;
	int layer;      /* where it was first seen: 0 upper, 1.. lower */
	bool whiteout;
	bool maybe_whiteout; /* a character device: looked at once the layer is read */
	bool in_lowest; /* on the lowest layer's list */
	int hnext;      /* hash chain */
	int prev, next; /* the order */
};

struct ovl_dircache {
	struct ovl_dirent *e;
	int n, cap;
	int *buckets;
	unsigned nbuckets;
	int head, tail;   /* the other layers' entries */
	int mhead, mtail; /* the lowest layer's, shown first */
	int *order;       /* the final order, built once reading is done */
	int norder;
};

struct ovl_readdir_file {
	struct ovl_dircache *cache;
	struct file *realfile; /* a directory read through, or NULL */
};

void ovl_dircache_free(struct ovl_dircache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		free(c->e[i].name);
	free(c->e);
	free(c->buckets);
	free(c->order);
	free(c);
}

static int cache_find(struct ovl_dircache *c, const char *name, uint32_t len, uint32_t hash)
{
	for (int i = c->buckets[hash & (c->nbuckets - 1)]; i >= 0; i = c->e[i].hnext)
		if (c->e[i].hash == hash && c->e[i].len == len && !memcmp(c->e[i].name, name, len))
			return i;
	return -1;
}

static int cache_grow(struct ovl_dircache *c)
{
	if (c->n < c->cap)
		return 0;
	int cap = c->cap ? 2 * c->cap : 32;
	struct ovl_dirent *e = realloc(c->e, (size_t)cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	c->e = e;
	c->cap = cap;
	if ((unsigned)cap > c->nbuckets) {
		unsigned nb = (unsigned)cap * 2;
		int *b = malloc(nb * sizeof(*b));
		if (!b)
			return -ENOMEM;
		for (unsigned i = 0; i < nb; i++)
			b[i] = -1;
		for (int i = 0; i < c->n; i++) {
			unsigned k = c->e[i].hash & (nb - 1);
			c->e[i].hnext = b[k];
			b[k] = i;
		}
		free(c->buckets);
		c->buckets = b;
		c->nbuckets = nb;
	}
	return 0;
}

static void list_unlink(struct ovl_dircache *c, int i, int *head, int *tail)
{
	struct ovl_dirent *e = &c->e[i];
	if (e->prev >= 0)
		c->e[e->prev].next = e->next;
	else
		*head = e->next;
	if (e->next >= 0)
		c->e[e->next].prev = e->prev;
	else
		*tail = e->prev;
}

static void list_append(struct ovl_dircache *c, int i, int *head, int *tail)
{
	c->e[i].prev = *tail;
	c->e[i].next = -1;
	if (*tail >= 0)
		c->e[*tail].next = i;
	else
		*head = i;
	*tail = i;
}

struct layer_ctx {
	struct dir_context ctx;
	struct ovl_dircache *c;
	int layer;
	bool lowest;
	int err;
};

static bool ovl_fill(struct dir_context *ctx, const char *name, int len, loff_t off, uint64_t ino, unsigned type)
{
	(void)off;
	struct layer_ctx *l = container_of(ctx, struct layer_ctx, ctx);
	struct ovl_dircache *c = l->c;
	uint32_t hash = name_hash(name, (unsigned)len);
	int i = cache_find(c, name, (uint32_t)len, hash);
	if (i >= 0) {
		struct ovl_dirent *e = &c->e[i];
		if (l->lowest) {
			/* Linux moves it among the lowest layer's entries */
			if (!e->in_lowest) {
				list_unlink(c, i, &c->head, &c->tail);
				list_append(c, i, &c->mhead, &c->mtail);
				e->in_lowest = true;
			}
		}
		return true;
	}
	if (cache_grow(c)) {
		l->err = -ENOMEM;
		return false;
	}
	i = c->n;
	struct ovl_dirent *e = &c->e[i];
	e->name = malloc((size_t)len + 1);
	if (!e->name) {
		l->err = -ENOMEM;
		return false;
	}
	memcpy(e->name, name, (size_t)len);
	e->name[len] = '\0';
	e->len = (uint32_t)len;
	e->hash = hash;
	e->ino = ino;
	e->type = type;
	e->layer = l->layer;
	e->whiteout = false;
	e->in_lowest = l->lowest;
	e->maybe_whiteout = type == DT_CHR && !l->lowest;
	c->n++;
	unsigned k = hash & (c->nbuckets - 1);
	e->hnext = c->buckets[k];
	c->buckets[k] = i;
	if (l->lowest)
		list_append(c, i, &c->mhead, &c->mtail);
	else
		list_append(c, i, &c->head, &c->tail);
	return true;
}

/* Every entry of one real directory, through its own readdir. */
static int ovl_read_layer(struct file *f, struct ovl_dircache *c, const struct ovl_real *r, bool lowest)
{
	struct path real = ovl_real_path(r);
	int err;
	struct file *rf = ovl_open_realfile(f, &real, &err);
	if (!rf)
		return err;
	struct layer_ctx l = { .ctx = { .actor = ovl_fill }, .c = c, .layer = r->layer->idx,
			       .lowest = lowest };
	for (;;) {
		loff_t before = rf->f_pos;
		l.ctx.pos = rf->f_pos;
		err = iterate_dir(rf, &l.ctx);
		if (err || l.err || rf->f_pos == before)
			break;
	}
	fput(rf);
	if (err || l.err)
		return err ? err : l.err;
	/* Outside the real directory's readdir, which holds its lock: the
	 * character devices that may be whiteouts, and in an impure upper
	 * directory (one with copied-up children) each child's number as
	 * stat reports it, its origin's, as Linux recalculates them. */
	bool impure = r->layer->idx == 0 && ovl_is_impure(r->dentry);
	for (int i = 0; i < c->n; i++) {
		struct ovl_dirent *e = &c->e[i];
		if (e->layer != r->layer->idx)
			continue;
		bool dots = e->name[0] == '.' && (e->len == 1 || (e->len == 2 && e->name[1] == '.'));
		if (!e->maybe_whiteout && !(impure && !dots))
			continue;
		struct dentry *d = ovl_lookup_real(r->dentry, e->name, e->len, &err);
		if (!d)
			return err;
		if (e->maybe_whiteout)
			e->whiteout = ovl_is_whiteout(d);
		e->maybe_whiteout = false;
		uint64_t ino;
		if (impure && d->d_inode && !e->whiteout && ovl_origin_ino(d, &ino))
			e->ino = ino;
		dput(d);
	}
	return 0;
}

int ovl_build_cache(struct file *f, struct inode *dir, struct ovl_dircache **out)
{
	struct ovl_inode *oi = OVL_I(dir);
	struct ovl_dircache *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->head = c->tail = c->mhead = c->mtail = -1;
	int err = cache_grow(c);
	bool has_upper = smp_load_acquire(&oi->upper.dentry) != NULL;
	int nlayers = (has_upper ? 1 : 0) + oi->nlower;
	int k = 0;
	if (!err && has_upper)
		err = ovl_read_layer(f, c, &oi->upper, ++k == nlayers && nlayers > 1);
	for (int i = 0; !err && i < oi->nlower; i++)
		err = ovl_read_layer(f, c, &oi->lower[i], ++k == nlayers && nlayers > 1);
	if (!err) {
		c->order = malloc((size_t)(c->n ? c->n : 1) * sizeof(int));
		if (!c->order)
			err = -ENOMEM;
	}
	if (err) {
		ovl_dircache_free(c);
		return err;
	}
	for (int i = c->mhead; i >= 0; i = c->e[i].next)
		if (!c->e[i].whiteout)
			c->order[c->norder++] = i;
	for (int i = c->head; i >= 0; i = c->e[i].next)
		if (!c->e[i].whiteout)
			c->order[c->norder++] = i;
	*out = c;
	return 0;
}

int ovl_dircache_visible(const struct ovl_dircache *c)
{
	return c->norder;
}

int ovl_dircache_remove_whiteouts(const struct ovl_dircache *c, struct dentry *udir)
{
	struct inode *ui = udir->d_inode;
	for (int i = 0; i < c->n; i++) {
		const struct ovl_dirent *e = &c->e[i];
		if (!e->whiteout || e->layer != 0)
			continue;
		int err = 0;
		const struct qstr q = { .name = e->name, .len = e->len, .hash = e->hash };
		struct dentry *d = d_lookup_or_alloc(udir, &q, &err);
		if (!d)
			return err;
		if (d->d_inode && ovl_is_whiteout(d))
			err = ovl_do_unlink(ui, d);
		dput(d);
		if (err)
			return err;
	}
	return 0;
}

/* Linux's ovl_dir_is_real: one layer, and an upper one with no origin. */
static bool ovl_dir_read_through(struct inode *inode)
{
	struct ovl_inode *oi = OVL_I(inode);
	struct dentry *upper = smp_load_acquire(&oi->upper.dentry);
	if ((upper ? 1 : 0) + oi->nlower != 1)
		return false;
	if (!upper)
		return true;
	struct inode *ui = upper->d_inode;
	return !ui->i_op->getxattr || ui->i_op->getxattr(ui, OVL_XATTR_ORIGIN, NULL, 0) == -ENODATA;
}

static int ovl_dir_open(struct inode *inode, struct file *f)
{
	struct ovl_readdir_file *od = calloc(1, sizeof(*od));
	if (!od)
		return -ENOMEM;
	if (ovl_dir_read_through(inode)) {
		struct path real = ovl_real_path(ovl_real_of(inode));
		int err;
		od->realfile = ovl_open_realfile(f, &real, &err);
		if (!od->realfile) {
			free(od);
			return err;
		}
	}
	f->private_data = od;
	return 0;
}

static void ovl_dir_release(struct inode *inode, struct file *f)
{
	(void)inode;
	struct ovl_readdir_file *od = f->private_data;
	if (od) {
		ovl_dircache_free(od->cache);
		if (od->realfile)
			fput(od->realfile);
		free(od);
	}
}

/* The real directory's entries as they come, "." and ".." with the overlay
 * directory's and its parent's numbers (as in the list). */
struct through_ctx {
	struct dir_context ctx;
	struct dir_context *to;
	struct file *f;
};

static bool ovl_fill_through(struct dir_context *ctx, const char *name, int len, loff_t off, uint64_t ino,
			     unsigned type)
{
	struct through_ctx *t = container_of(ctx, struct through_ctx, ctx);
	if (len == 1 && name[0] == '.')
		ino = t->f->f_inode->i_ino;
	else if (len == 2 && name[0] == '.' && name[1] == '.')
		ino = t->f->f_path.dentry->d_parent->d_inode->i_ino;
	t->to->pos = ctx->pos;
	return t->to->actor(t->to, name, len, off, ino, type);
}

static int ovl_iterate_through(struct file *f, struct file *rf, struct dir_context *ctx)
{
	struct through_ctx t = { .ctx = { .actor = ovl_fill_through }, .to = ctx, .f = f };
	rf->f_pos = ctx->pos;
	int err = iterate_dir(rf, &t.ctx);
	ctx->pos = rf->f_pos;
	return err;
}

/*
 * An impure directory read through (Linux's ovl_iterate_real): a copied-up
 * child's d_ino is its origin's, as stat says.  The real directory's
 * readdir holds its lock, under which no lookup may run here, so its
 * entries come in batches: read, the lock dropped, the copied-up ones
 * looked up, then given out; where the caller's buffer fills, the position
 * goes back to the first entry not given (a real offset, as any other).
 */
#define THROUGH_BATCH 32
struct through_ent {
	char *name;
	int len;
	unsigned type;
	loff_t pos, next;
	uint64_t ino;
};

struct batch_ctx {
	struct dir_context ctx;
	struct through_ent e[THROUGH_BATCH];
	int n, err;
};

static bool ovl_fill_batch(struct dir_context *ctx, const char *name, int len, loff_t off, uint64_t ino,
			   unsigned type)
{
	struct batch_ctx *b = container_of(ctx, struct batch_ctx, ctx);
	if (b->n == THROUGH_BATCH)
		return false;
	char *copy = malloc((size_t)len + 1);
	if (!copy) {
		b->err = -ENOMEM;
		return false;
	}
	memcpy(copy, name, (size_t)len);
	copy[len] = '\0';
	b->e[b->n++] = (struct through_ent){ copy, len, type, ctx->pos, off, ino };
	return true;
}

static int ovl_iterate_through_impure(struct file *f, struct file *rf, struct dentry *upper, struct dir_context *ctx)
{
	for (;;) {
		struct batch_ctx b = { .ctx = { .actor = ovl_fill_batch } };
		rf->f_pos = ctx->pos;
		int err = iterate_dir(rf, &b.ctx);
		if (!err)
			err = b.err;
		int i = 0;
		for (; !err && i < b.n; i++) {
			struct through_ent *e = &b.e[i];
			uint64_t ino = e->ino;
			if (e->len == 1 && e->name[0] == '.') {
				ino = f->f_inode->i_ino;
			} else if (e->len == 2 && e->name[0] == '.' && e->name[1] == '.') {
				ino = f->f_path.dentry->d_parent->d_inode->i_ino;
			} else {
				int lerr;
				struct dentry *d = ovl_lookup_real(upper, e->name, (size_t)e->len, &lerr);
				uint64_t origin;
				if (d && d->d_inode && ovl_origin_ino(d, &origin))
					ino = origin;
				if (d)
					dput(d);
			}
			ctx->pos = e->pos;
			if (!ctx->actor(ctx, e->name, e->len, e->next, ino, e->type))
				break;
		}
		bool more = !err && i == b.n && b.n == THROUGH_BATCH;
		if (!err)
			ctx->pos = i < b.n ? b.e[i].pos : rf->f_pos;
		for (int k = 0; k < b.n; k++)
			free(b.e[k].name);
		if (!more)
			return err;
	}
}

static int ovl_iterate(struct file *f, struct dir_context *ctx)
{
	struct ovl_readdir_file *od = f->private_data;
	/* a rewind of a directory of one lower layer copied up since: the
	 * list from now on (Linux's ovl_dir_reset) */
	if (od->realfile && ctx->pos == 0 && !ovl_dir_read_through(f->f_inode)) {
		fput(od->realfile);
		od->realfile = NULL;
	}
	if (od->realfile) {
		struct dentry *upper = smp_load_acquire(&OVL_I(f->f_inode)->upper.dentry);
		if (upper && ovl_is_impure(upper))
			return ovl_iterate_through_impure(f, od->realfile, upper, ctx);
		return ovl_iterate_through(f, od->realfile, ctx);
	}
	if (!od->cache || ctx->pos == 0) {
		/* a rewind reads the layers again */
		struct ovl_dircache *c;
		int err = ovl_build_cache(f, f->f_inode, &c);
		if (err)
			return err;
		ovl_dircache_free(od->cache);
		od->cache = c;
	}
	struct ovl_dircache *c = od->cache;
	while (ctx->pos >= 0 && ctx->pos < c->norder) {
		struct ovl_dirent *e = &c->e[c->order[ctx->pos]];
		uint64_t ino = e->ino;
		/* "." is the directory's st_ino; the others, ".." too, are
		 * the real entries' d_ino, as Linux leaves them without xino */
		if (e->len == 1 && e->name[0] == '.')
			ino = f->f_inode->i_ino;
		else if (e->len == 2 && e->name[0] == '.' && e->name[1] == '.' && !READ_ONCE(OVL_I(f->f_inode)->merged))
			ino = f->f_path.dentry->d_parent->d_inode->i_ino; /* a directory of one layer */
		if (!ctx->actor(ctx, e->name, (int)e->len, ctx->pos + 1, ino, e->type))
			return 0;
		ctx->pos++;
	}
	return 0;
}

const struct file_operations ovl_dir_operations = {
	.open = ovl_dir_open,
	.release = ovl_dir_release,
	.iterate_shared = ovl_iterate,
};
