// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * testfs.c - a memory filesystem written against include/uvfs_fs.h only
 * (see testfs.h).  One lock per mount orders every call; nodes live until
 * the filesystem goes (kill), whatever their names do, so a node the VFS
 * still holds is always there to forget.
 */
#include "testfs.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tentry {
	char *name;
	struct tnode *node;
	uint64_t cookie; /* readdir position: increasing in the list */
	struct tentry *next;
};

struct tnode {
	struct uvfs_fs_attr a;
	char *data; /* contents, or a symlink's body */
	size_t cap;
	long vfs_refs;
	unsigned gen;
	bool is_auto;
	bool gone; /* lost behind the cache (testfs_remove) */
	struct tentry *children; /* directories, in cookie order */
	uint64_t next_cookie;
	struct tnode *all_next;
};

struct lcount {
	char *name;
	unsigned long n;
	int in_flight;
	struct lcount *next;
};

struct testfs {
	pthread_mutex_t lock;
	struct tnode *root;
	struct tnode *all;
	uint64_t next_ino;
	unsigned gen;
	unsigned delay;
	unsigned long getattrs, readlinks, overlaps, weak_revalidates;
	struct lcount *lcounts;
};

static struct testfs *last_fs;
static long unbalanced;

static struct timespec now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return t;
}

static struct tnode *node_new(struct testfs *t, mode_t mode, uid_t uid, gid_t gid)
{
	struct tnode *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->a.ino = ++t->next_ino;
	n->a.mode = mode;
	n->a.nlink = S_ISDIR(mode) ? 2 : 1;
	n->a.uid = uid;
	n->a.gid = gid;
	n->a.atime = n->a.mtime = n->a.ctime = n->a.btime = now();
	n->next_cookie = 2;
	n->gen = t->gen;
	n->all_next = t->all;
	t->all = n;
	return n;
}

/* One reference to the VFS, with the node's attributes as of now. */
static void give(struct tnode *n, struct uvfs_fs_entry *out)
{
	n->vfs_refs++;
	__atomic_fetch_add(&unbalanced, 1, __ATOMIC_RELAXED);
	out->node = n;
	out->attr = n->a;
}

static struct tentry *find(struct tnode *dir, const char *name)
{
	for (struct tentry *e = dir->children; e; e = e->next)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static int add_entry(struct tnode *dir, const char *name, struct tnode *n)
{
	struct tentry *e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return -ENOMEM;
	}
	e->node = n;
	e->cookie = ++dir->next_cookie;
	struct tentry **p = &dir->children;
	while (*p)
		p = &(*p)->next;
	*p = e;
	dir->a.size++;
	dir->a.mtime = dir->a.ctime = now();
	return 0;
}

/* The entry goes; its node loses the name (and, a directory, its links). */
static void del_entry(struct tnode *dir, struct tentry *e)
{
	struct tentry **p = &dir->children;
	while (*p != e)
		p = &(*p)->next;
	*p = e->next;
	if (S_ISDIR(e->node->a.mode)) {
		e->node->a.nlink = 0;
		dir->a.nlink--;
	} else {
		e->node->a.nlink--;
	}
	e->node->a.ctime = now();
	dir->a.size--;
	dir->a.mtime = dir->a.ctime = now();
	free(e->name);
	free(e);
}

static int set_data(struct tnode *n, const char *s, size_t len)
{
	char *d = malloc(len + 1);
	if (!d)
		return -ENOMEM;
	memcpy(d, s, len);
	d[len] = 0;
	free(n->data);
	n->data = d;
	n->cap = len + 1;
	n->a.size = (int64_t)len;
	return 0;
}

static struct lcount *lcount(struct testfs *t, const char *name)
{
	for (struct lcount *c = t->lcounts; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	struct lcount *c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name))) {
		free(c);
		return NULL;
	}
	c->next = t->lcounts;
	t->lcounts = c;
	return c;
}

/* ---- the operations ---- */

static int t_mount(void *type_data, const char *source, unsigned long flags, const void *data, void **fsp,
		   struct uvfs_fs_entry *root)
{
	(void)type_data;
	(void)source;
	(void)flags;
	if (data && *(const char *)data)
		return -EINVAL; /* no options */
	struct testfs *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	t->next_ino = 1000;
	t->root = node_new(t, S_IFDIR | 01777, 0, 0); /* as a fresh tmpfs */
	if (!t->root) {
		free(t);
		return -ENOMEM;
	}
	give(t->root, root);
	*fsp = t;
	__atomic_store_n(&last_fs, t, __ATOMIC_RELEASE);
	return 0;
}

static void t_kill(void *fs)
{
	struct testfs *t = fs;
	__atomic_compare_exchange_n(&last_fs, &t, NULL, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	t = fs;
	for (struct tnode *n = t->all, *next; n; n = next) {
		next = n->all_next;
		if (n->vfs_refs)
			fprintf(stderr, "testfs: node %llu killed with %ld references of the VFS\n",
				(unsigned long long)n->a.ino, n->vfs_refs);
		while (n->children) {
			struct tentry *e = n->children;
			n->children = e->next;
			free(e->name);
			free(e);
		}
		free(n->data);
		free(n);
	}
	while (t->lcounts) {
		struct lcount *c = t->lcounts;
		t->lcounts = c->next;
		free(c->name);
		free(c);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void t_forget(void *fs, void *node)
{
	struct testfs *t = fs;
	struct tnode *n = node;
	pthread_mutex_lock(&t->lock);
	n->vfs_refs--;
	pthread_mutex_unlock(&t->lock);
	__atomic_fetch_sub(&unbalanced, 1, __ATOMIC_RELAXED);
}

/* An "auto-" or "link-" name, made (again) for this generation. */
static int make_auto(struct testfs *t, struct tnode *dir, const char *name, struct tentry **ep)
{
	bool link = !strncmp(name, "link-", 5);
	struct tnode *n = node_new(t, link ? S_IFLNK | 0777 : S_IFREG | 0644, 0, 0);
	if (!n)
		return -ENOMEM;
	n->is_auto = true;
	char body[NAME_MAX + 32];
	int len = link ? snprintf(body, sizeof(body), "auto-%s", name + 5)
		       : snprintf(body, sizeof(body), "%s %u\n", name + 5, t->gen);
	int err = set_data(n, body, (size_t)len);
	if (!err)
		err = add_entry(dir, name, n);
	if (err) {
		n->a.nlink = 0;
		return err;
	}
	*ep = find(dir, name);
	return 0;
}

static bool stale(const struct testfs *t, const struct tnode *n)
{
	return n->is_auto && n->gen != t->gen;
}

static int t_lookup(void *fs, void *dirp, const char *name, struct uvfs_fs_entry *out)
{
	struct testfs *t = fs;
	struct tnode *dir = dirp;
	pthread_mutex_lock(&t->lock);
	struct lcount *c = dir == t->root ? lcount(t, name) : NULL;
	if (c) {
		c->n++;
		if (c->in_flight++)
			t->overlaps++; /* the VFS asked twice at once */
	}
	unsigned delay = t->delay;
	pthread_mutex_unlock(&t->lock);
	if (delay)
		usleep(delay);
	pthread_mutex_lock(&t->lock);
	int err = 0;
	struct tentry *e = find(dir, name);
	if (e && stale(t, e->node)) {
		del_entry(dir, e);
		e = NULL;
	}
	if (!e && (!strncmp(name, "auto-", 5) || !strncmp(name, "link-", 5)) && name[5])
		err = make_auto(t, dir, name, &e);
	if (!err && !e)
		err = -ENOENT;
	if (!err)
		give(e->node, out);
	if (c)
		c->in_flight--;
	pthread_mutex_unlock(&t->lock);
	return err;
}

/* reached without a lookup ("." and the like): a node removed behind the
 * cache is stale, as an NFS file handle would be */
static int t_weak_revalidate(void *fs, void *node)
{
	struct testfs *t = fs;
	struct tnode *n = node;
	pthread_mutex_lock(&t->lock);
	t->weak_revalidates++;
	int r = !n->gone && !stale(t, n);
	pthread_mutex_unlock(&t->lock);
	return r;
}

static int t_revalidate(void *fs, void *dirp, const char *name, void *node)
{
	struct testfs *t = fs;
	pthread_mutex_lock(&t->lock);
	struct tentry *e = find(dirp, name);
	int r = e && e->node == node && !stale(t, e->node);
	pthread_mutex_unlock(&t->lock);
	return r;
}

static int t_getattr(void *fs, void *node, struct uvfs_fs_attr *attr)
{
	struct testfs *t = fs;
	pthread_mutex_lock(&t->lock);
	t->getattrs++;
	*attr = ((struct tnode *)node)->a;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static ssize_t t_readlink(void *fs, void *node, char *buf, size_t size)
{
	struct testfs *t = fs;
	struct tnode *n = node;
	pthread_mutex_lock(&t->lock);
	t->readlinks++;
	size_t len = (size_t)n->a.size;
	if (len > size)
		len = size;
	memcpy(buf, n->data, len);
	pthread_mutex_unlock(&t->lock);
	return (ssize_t)len;
}

static int t_readdir(void *fs, void *dirp, uint64_t pos, uvfs_fs_filldir_t fill, void *ctx)
{
	struct testfs *t = fs;
	struct tnode *dir = dirp;
	pthread_mutex_lock(&t->lock);
	for (struct tentry *e = dir->children; e; e = e->next)
		if (e->cookie > pos && !fill(ctx, e->name, e->node->a.ino, (e->node->a.mode >> 12) & 15, e->cookie))
			break;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static ssize_t t_read(void *fs, void *node, void *fh, void *buf, size_t len, int64_t off)
{
	struct testfs *t = fs;
	struct tnode *n = node;
	(void)fh;
	pthread_mutex_lock(&t->lock);
	ssize_t r = 0;
	if (off < n->a.size && len) {
		size_t avail = (size_t)(n->a.size - off);
		r = (ssize_t)(len < avail ? len : avail);
		if (n->data)
			memcpy(buf, n->data + off, (size_t)r);
		else
			memset(buf, 0, (size_t)r);
	}
	n->a.atime = now();
	pthread_mutex_unlock(&t->lock);
	return r;
}

static int resize(struct tnode *n, size_t size)
{
	if (size + 1 > n->cap) {
		char *d = realloc(n->data, size + 1);
		if (!d)
			return -ENOMEM;
		memset(d + n->cap, 0, size + 1 - n->cap);
		n->data = d;
		n->cap = size + 1;
	}
	if (size < (size_t)n->a.size)
		memset(n->data + size, 0, (size_t)n->a.size - size);
	n->a.size = (int64_t)size;
	n->a.blocks = (int64_t)((size + 511) / 512);
	return 0;
}

static ssize_t t_write(void *fs, void *node, void *fh, const void *buf, size_t len, int64_t off)
{
	struct testfs *t = fs;
	struct tnode *n = node;
	(void)fh;
	if (off + (int64_t)len > (1 << 24))
		return -EFBIG; /* a test filesystem: 16 MiB files */
	pthread_mutex_lock(&t->lock);
	int err = 0;
	if (off + (int64_t)len > n->a.size)
		err = resize(n, (size_t)off + len);
	if (!err && len) {
		memcpy(n->data + off, buf, len);
		n->a.mtime = n->a.ctime = now();
	}
	pthread_mutex_unlock(&t->lock);
	return err ? err : (ssize_t)len;
}

static int t_setattr(void *fs, void *node, unsigned valid, const struct uvfs_fs_attr *in)
{
	struct testfs *t = fs;
	if (valid & ~UVFS_FS_SET_SIZE)
		return -EINVAL;
	if (in->size > (1 << 24))
		return -EFBIG;
	pthread_mutex_lock(&t->lock);
	int err = resize(node, (size_t)in->size);
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int t_make(struct testfs *t, struct tnode *dir, const char *name, mode_t mode, uid_t uid, gid_t gid,
		  const char *body, struct uvfs_fs_entry *out)
{
	pthread_mutex_lock(&t->lock);
	int err = -EEXIST;
	if (find(dir, name))
		goto out;
	err = -ENOMEM;
	struct tnode *n = node_new(t, mode, uid, gid);
	if (!n)
		goto out;
	err = body ? set_data(n, body, strlen(body)) : 0;
	if (!err)
		err = add_entry(dir, name, n);
	if (err) {
		n->a.nlink = 0;
		goto out;
	}
	if (S_ISDIR(mode))
		dir->a.nlink++;
	give(n, out);
out:
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int t_create(void *fs, void *dir, const char *name, mode_t mode, uid_t uid, gid_t gid,
		    struct uvfs_fs_entry *out)
{
	return t_make(fs, dir, name, mode, uid, gid, NULL, out);
}

static int t_symlink(void *fs, void *dir, const char *name, const char *target, uid_t uid, gid_t gid,
		     struct uvfs_fs_entry *out)
{
	return t_make(fs, dir, name, S_IFLNK | 0777, uid, gid, target, out);
}

static int t_unlink(void *fs, void *dirp, const char *name)
{
	struct testfs *t = fs;
	pthread_mutex_lock(&t->lock);
	struct tentry *e = find(dirp, name);
	int err = !e ? -ENOENT : S_ISDIR(e->node->a.mode) ? -EISDIR : 0;
	if (!err)
		del_entry(dirp, e);
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int t_rmdir(void *fs, void *dirp, const char *name)
{
	struct testfs *t = fs;
	pthread_mutex_lock(&t->lock);
	struct tentry *e = find(dirp, name);
	int err = !e ? -ENOENT : !S_ISDIR(e->node->a.mode) ? -ENOTDIR : e->node->children ? -ENOTEMPTY : 0;
	if (!err)
		del_entry(dirp, e);
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int t_rename(void *fs, void *odir, const char *oname, void *ndir, const char *nname, unsigned flags)
{
	struct testfs *t = fs;
	pthread_mutex_lock(&t->lock);
	struct tentry *e = find(odir, oname), *target = find(ndir, nname);
	int err = 0;
	if (!e)
		err = -ENOENT;
	else if (target == e)
		goto out;
	else if (target && flags)
		err = -EEXIST;
	else if (target && S_ISDIR(target->node->a.mode) && target->node->children)
		err = -ENOTEMPTY;
	if (err)
		goto out;
	struct tnode *n = e->node;
	if (target)
		del_entry(ndir, target);
	char *name = strdup(nname);
	if (!name) {
		err = -ENOMEM;
		goto out;
	}
	/* moved by hand: del_entry would drop the node's link */
	struct tentry **p = &((struct tnode *)odir)->children;
	while (*p != e)
		p = &(*p)->next;
	*p = e->next;
	((struct tnode *)odir)->a.size--;
	free(e->name);
	free(e);
	err = add_entry(ndir, name, n);
	free(name);
	if (!err && S_ISDIR(n->a.mode) && odir != ndir) {
		((struct tnode *)odir)->a.nlink--;
		((struct tnode *)ndir)->a.nlink++;
	}
	n->a.ctime = now();
out:
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int t_link(void *fs, void *node, void *dir, const char *name, struct uvfs_fs_attr *attr)
{
	struct testfs *t = fs;
	struct tnode *n = node;
	pthread_mutex_lock(&t->lock);
	int err = find(dir, name) ? -EEXIST : add_entry(dir, name, n);
	if (!err) {
		n->a.nlink++;
		n->a.ctime = now();
		*attr = n->a;
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int t_statfs(void *fs, struct statfs *buf)
{
	(void)fs;
	buf->f_type = 0x74657374; /* "test" */
	buf->f_bsize = 512;
	buf->f_namelen = NAME_MAX;
	return 0;
}

static const struct uvfs_fs_type testfs_type = {
	.size = sizeof(struct uvfs_fs_type),
	.version = UVFS_FS_VERSION,
	.name = "testfs",
	.ops = {
		.mount = t_mount,
		.kill = t_kill,
		.lookup = t_lookup,
		.forget = t_forget,
		.revalidate = t_revalidate,
		.getattr = t_getattr,
		.readlink = t_readlink,
		.readdir = t_readdir,
		.read = t_read,
		.write = t_write,
		.create = t_create,
		.mkdir = t_create,
		.unlink = t_unlink,
		.rmdir = t_rmdir,
		.rename = t_rename,
		.symlink = t_symlink,
		.link = t_link,
		.setattr = t_setattr,
		.statfs = t_statfs,
		.weak_revalidate = t_weak_revalidate,
	},
};

int testfs_register(struct uvfs *u)
{
	return uvfs_register_filesystem(u, &testfs_type);
}

/* ---- the test's hooks ---- */

struct testfs *testfs_last(void)
{
	return __atomic_load_n(&last_fs, __ATOMIC_ACQUIRE);
}

void testfs_bump_generation(struct testfs *t)
{
	pthread_mutex_lock(&t->lock);
	t->gen++;
	pthread_mutex_unlock(&t->lock);
}

void testfs_set_lookup_delay(struct testfs *t, unsigned usec)
{
	pthread_mutex_lock(&t->lock);
	t->delay = usec;
	pthread_mutex_unlock(&t->lock);
}

unsigned long testfs_lookups(struct testfs *t, const char *name)
{
	pthread_mutex_lock(&t->lock);
	unsigned long n = 0;
	for (struct lcount *c = t->lcounts; c; c = c->next)
		if (!strcmp(c->name, name))
			n = c->n;
	pthread_mutex_unlock(&t->lock);
	return n;
}

unsigned long testfs_overlaps(struct testfs *t)
{
	pthread_mutex_lock(&t->lock);
	unsigned long n = t->overlaps;
	pthread_mutex_unlock(&t->lock);
	return n;
}

unsigned long testfs_getattrs(struct testfs *t)
{
	pthread_mutex_lock(&t->lock);
	unsigned long n = t->getattrs;
	pthread_mutex_unlock(&t->lock);
	return n;
}

unsigned long testfs_weak_revalidates(struct testfs *t)
{
	pthread_mutex_lock(&t->lock);
	unsigned long n = t->weak_revalidates;
	pthread_mutex_unlock(&t->lock);
	return n;
}

unsigned long testfs_readlinks(struct testfs *t)
{
	pthread_mutex_lock(&t->lock);
	unsigned long n = t->readlinks;
	pthread_mutex_unlock(&t->lock);
	return n;
}

int testfs_remove(struct testfs *t, const char *name)
{
	pthread_mutex_lock(&t->lock);
	struct tentry *e = find(t->root, name);
	if (e) {
		e->node->gone = true;
		del_entry(t->root, e);
	}
	pthread_mutex_unlock(&t->lock);
	return e ? 0 : -ENOENT;
}

int testfs_set_size(struct testfs *t, const char *name, long long size)
{
	pthread_mutex_lock(&t->lock);
	struct tentry *e = find(t->root, name);
	int err = e ? resize(e->node, (size_t)size) : -ENOENT;
	pthread_mutex_unlock(&t->lock);
	return err;
}

long testfs_unbalanced(void)
{
	return __atomic_load_n(&unbalanced, __ATOMIC_RELAXED);
}
