// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * treewalk.c - the tree's invariants (see treewalk.h), the same ones
 * tests/stress checks after its threads, made independent of any naming
 * scheme and aware of mounts:
 *
 * - every name getdents lists resolves in its directory, to the inode and
 *   type d_ino and d_type say (a mount point shows the mounted root: any
 *   entry whose stat differs from its d_ino or device is one);
 * - no name is listed twice; "." and ".." are listed once and name the
 *   directory and its parent;
 * - a directory's nlink is 2 + its subdirectories and its size 20 per entry
 *   ("." and ".." included: tmpfs's BOGO_DIRENT_SIZE); it has one name, the
 *   root none, and is met once (no cycle);
 * - a non-directory has as many names as its nlink;
 * - the tmpfs counts as used exactly the inodes found (an extra hard link
 *   charged as an inode, as shmem does) and the pages they hold.
 * Name and inode counts are skipped for a superblock in which a mount hides
 * part of the tree.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "uvfs.h"
#include "treewalk.h"

struct ino {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	unsigned long nlink;
	long long blocks;
	unsigned names;
	bool walked;
	bool mounted; /* a mount's root: its names are mount points */
};

struct sbrec {
	dev_t dev;
	bool hidden; /* a mount covers something of it */
};

struct walk {
	struct uvfs_proc *p;
	struct ino *inos;
	size_t n, cap;
	struct sbrec sbs[64];
	unsigned nsb;
	unsigned long bad;
	char *msg;
	size_t len, used;
};

static void bad(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(struct walk *w, const char *fmt, ...)
{
	if (w->bad++ < 4 && w->used + 2 < w->len) {
		va_list ap;
		va_start(ap, fmt);
		if (w->used)
			w->msg[w->used++] = ';', w->msg[w->used++] = ' ';
		int r = vsnprintf(w->msg + w->used, w->len - w->used, fmt, ap);
		va_end(ap);
		if (r > 0)
			w->used += (size_t)r < w->len - w->used ? (size_t)r : w->len - w->used - 1;
	}
}

static struct ino *ino_get(struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->inos[i].dev == st->st_dev && w->inos[i].ino == st->st_ino)
			return &w->inos[i];
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->inos = realloc(w->inos, w->cap * sizeof(*w->inos));
		if (!w->inos)
			abort();
	}
	struct ino *r = &w->inos[w->n++];
	memset(r, 0, sizeof(*r));
	r->dev = st->st_dev;
	r->ino = st->st_ino;
	r->mode = st->st_mode;
	r->nlink = st->st_nlink;
	r->blocks = st->st_blocks;
	return r;
}

static struct sbrec *sb_get(struct walk *w, dev_t dev)
{
	for (unsigned i = 0; i < w->nsb; i++)
		if (w->sbs[i].dev == dev)
			return &w->sbs[i];
	if (w->nsb == sizeof(w->sbs) / sizeof(w->sbs[0]))
		abort();
	struct sbrec *s = &w->sbs[w->nsb++];
	memset(s, 0, sizeof(*s));
	s->dev = dev;
	return s;
}

static unsigned dtype_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return DT_REG;
	case S_IFDIR: return DT_DIR;
	case S_IFLNK: return DT_LNK;
	case S_IFIFO: return DT_FIFO;
	case S_IFCHR: return DT_CHR;
	case S_IFBLK: return DT_BLK;
	case S_IFSOCK: return DT_SOCK;
	}
	return DT_UNKNOWN;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct ent {
	char *name;
	uint64_t ino;
	unsigned char type;
};

static void walk_dir(struct walk *w, int pdfd, const char *name, const char *path, const struct stat *parent)
{
	int dfd = uvfs_openat(w->p, pdfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	struct stat dst;
	if (dfd < 0 || uvfs_fstat(w->p, dfd, &dst) != 0) {
		bad(w, "%s: open gives %d", path, dfd);
		if (dfd >= 0)
			uvfs_close(w->p, dfd);
		return;
	}
	struct ino *self = ino_get(w, &dst);
	if (self->walked) {
		bad(w, "%s: directory met twice", path);
		uvfs_close(w->p, dfd);
		return;
	}
	self->walked = true;
	struct sbrec *sb = sb_get(w, dst.st_dev);

	size_t n = 0, cap = 16;
	struct ent *e = malloc(cap * sizeof(*e));
	unsigned dots = 0, dotdots = 0;
	char buf[4096] __attribute__((aligned(8)));
	for (;;) {
		long r = uvfs_getdents64(w->p, dfd, buf, sizeof buf);
		if (r < 0)
			bad(w, "%s: getdents64 gives %ld", path, r);
		if (r <= 0)
			break;
		for (long off = 0; off < r;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			off += de->d_reclen;
			if (!strcmp(de->d_name, ".")) {
				dots++;
				if (de->d_ino != dst.st_ino)
					bad(w, "%s: \".\" has ino %llu, the directory %llu", path,
					    (unsigned long long)de->d_ino, (unsigned long long)dst.st_ino);
				continue;
			}
			if (!strcmp(de->d_name, "..")) {
				dotdots++;
				if (parent && parent->st_dev == dst.st_dev && de->d_ino != parent->st_ino)
					bad(w, "%s: \"..\" has ino %llu, the parent %llu", path,
					    (unsigned long long)de->d_ino, (unsigned long long)parent->st_ino);
				continue;
			}
			if (n == cap) {
				cap *= 2;
				e = realloc(e, cap * sizeof(*e));
			}
			e[n].name = strdup(de->d_name);
			e[n].ino = de->d_ino;
			e[n].type = de->d_type;
			n++;
		}
	}
	if (dots != 1 || dotdots != 1)
		bad(w, "%s: \".\" listed %u times, \"..\" %u times", path, dots, dotdots);

	unsigned subdirs = 0;
	for (size_t i = 0; i < n; i++) {
		char full[4200];
		snprintf(full, sizeof full, "%s/%s", strcmp(path, "/") ? path : "", e[i].name);
		if (e[i].type == DT_DIR)
			subdirs++;
		struct stat st;
		int r = uvfs_fstatat(w->p, dfd, e[i].name, &st, AT_SYMLINK_NOFOLLOW);
		if (r != 0) {
			bad(w, "%s: listed, but stat gives %d", full, r);
			continue;
		}
		if (st.st_dev != dst.st_dev || st.st_ino != e[i].ino) {
			/* a mount point: what it covers is out of reach */
			struct ino *root = ino_get(w, &st);
			sb->hidden = true;
			root->mounted = true;
			if (S_ISDIR(st.st_mode) && st.st_dev != dst.st_dev && !root->walked)
				walk_dir(w, dfd, e[i].name, full, &dst);
			continue;
		}
		if (e[i].type != dtype_of(st.st_mode))
			bad(w, "%s: d_type %u, mode 0%o", full, e[i].type, st.st_mode);
		struct ino *rec = ino_get(w, &st);
		rec->names++;
		if (S_ISDIR(st.st_mode))
			walk_dir(w, dfd, e[i].name, full, &dst);
	}
	if (dst.st_nlink != 2 + subdirs)
		bad(w, "%s: nlink %lu with %u subdirectories", path, (unsigned long)dst.st_nlink, subdirs);
	if (dst.st_size != (off_t)(20 * (2 + n)))
		bad(w, "%s: size %lld with %zu entries", path, (long long)dst.st_size, n);
	qsort(e, n, sizeof(*e), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(e[i - 1].name, e[i].name))
			bad(w, "%s: \"%s\" listed twice", path, e[i].name);
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
	uvfs_close(w->p, dfd);
}

unsigned long tree_check(struct uvfs *fs, char *msg, size_t len)
{
	struct walk w = { .msg = msg, .len = len };
	msg[0] = 0;
	w.p = uvfs_proc_create(fs, 0, 0);
	if (!w.p) {
		snprintf(msg, len, "uvfs_proc_create failed");
		return 1;
	}
	/* an fd per level */
	uvfs_proc_set_nofile(w.p, 1 << 16);
	struct stat rst;
	if (uvfs_fstatat(w.p, AT_FDCWD, "/", &rst, 0) != 0) {
		bad(&w, "stat / failed");
	} else {
		walk_dir(&w, AT_FDCWD, "/", "/", NULL);
		ino_get(&w, &rst)->names++; /* the root's name is "/" */
	}
	for (size_t i = 0; i < w.n; i++) {
		struct ino *r = &w.inos[i];
		if (sb_get(&w, r->dev)->hidden || r->mounted)
			continue;
		if (S_ISDIR(r->mode) ? r->names != 1 : r->nlink != r->names)
			bad(&w, "inode %llu (mode 0%o): nlink %lu, %u names found", (unsigned long long)r->ino,
			    r->mode, r->nlink, r->names);
	}
	for (unsigned s = 0; s < w.nsb; s++) {
		struct sbrec *sb = &w.sbs[s];
		long used, used_pages;
		if (sb->hidden || !tree_tmpfs_usage(fs, sb->dev, &used, &used_pages))
			continue;
		long found = 0, pages = 0;
		for (size_t i = 0; i < w.n; i++) {
			struct ino *r = &w.inos[i];
			if (r->dev != sb->dev)
				continue;
			found += 1 + (!S_ISDIR(r->mode) && r->nlink > 1 ? (long)r->nlink - 1 : 0);
			/* a file's pages, a long symlink body's page */
			if (!S_ISDIR(r->mode))
				pages += r->blocks / (4096 / 512);
		}
		if (used != found)
			bad(&w, "tmpfs %u counts %ld inodes in use, the walk found %ld", s, used, found);
		if (used_pages != pages)
			bad(&w, "tmpfs %u counts %ld pages in use, the files found hold %ld", s, used_pages, pages);
	}
	free(w.inos);
	uvfs_proc_destroy(w.p);
	return w.bad;
}
