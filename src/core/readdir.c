// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * readdir.c - getdents64 and the dcache-backed directory iterator
 * (Linux's fs/readdir.c and the offset directories of fs/libfs.c).
 *
 * Directory offsets are stable across concurrent changes: every name gets
 * the next offset of its directory when it is made (or renamed in), the
 * children list is kept in offset order, and a reader resumes at the first
 * name whose offset is at least f_pos.  "." is offset 0, ".." offset 1.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include <stddef.h>
#include <dirent.h>
#include <limits.h>

struct linux_dirent64_ {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static inline unsigned char dt_type(umode_t mode) { return (mode >> 12) & 15; }

int dcache_readdir(struct file *f, struct dir_context *ctx)
{
	struct dentry *dir = f->f_path.dentry;
	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, 1, dir->d_inode->i_ino, DT_DIR))
			return 0;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		/* the parent within this filesystem; a root names itself.  A
		 * rename of dir may move it meanwhile (we hold only dir's own
		 * lock) and drop the old parent: read it as walkers do. */
		urcu_memb_read_lock();
		uint64_t pino = READ_ONCE(READ_ONCE(dir->d_parent)->d_inode)->i_ino;
		urcu_memb_read_unlock();
		if (!ctx->actor(ctx, "..", 2, 2, pino, DT_DIR))
			return 0;
		ctx->pos = 2;
	}
	struct list_head *pos;
	list_for_each(pos, &dir->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		struct inode *inode = c->d_inode;
		if (!inode || (loff_t)c->d_offset < ctx->pos)
			continue;
		const struct dname *n = c->d_name;
		if (!ctx->actor(ctx, n->name, (int)n->len, (loff_t)c->d_offset + 1, inode->i_ino,
				dt_type(inode->i_mode)))
			return 0;
		ctx->pos = (loff_t)c->d_offset + 1;
	}
	return 0;
}

int iterate_dir(struct file *f, struct dir_context *ctx)
{
	struct inode *inode = f->f_inode;
	if (!f->f_op || !f->f_op->iterate)
		return -ENOTDIR;
	pthread_rwlock_rdlock(&inode->i_rwsem);
	int err = -ENOENT;
	if (!(inode->i_flags & S_DEAD_DIR)) {
		ctx->pos = f->f_pos;
		err = f->f_op->iterate(f, ctx);
		f->f_pos = ctx->pos;
	}
	pthread_rwlock_unlock(&inode->i_rwsem);
	if (!err) {
		fsnotify_access(f); /* Linux's iterate_dir: reading a directory is IN_ACCESS */
		touch_atime(f);
	}
	return err;
}

struct getdents_ctx {
	struct dir_context ctx;
	char *buf;
	size_t count, used;
	int error;
};

static bool filldir64(struct dir_context *c, const char *name, int len, loff_t next, uint64_t ino,
		      unsigned type)
{
	struct getdents_ctx *g = container_of(c, struct getdents_ctx, ctx);
	size_t reclen = (offsetof(struct linux_dirent64_, d_name) + (size_t)len + 1 + 7) & ~(size_t)7;
	if (g->used + reclen > g->count) {
		if (!g->used)
			g->error = -EINVAL;
		return false;
	}
	struct linux_dirent64_ *d = (struct linux_dirent64_ *)(g->buf + g->used);
	d->d_ino = ino;
	d->d_off = next;
	d->d_reclen = (unsigned short)reclen;
	d->d_type = (unsigned char)type;
	memcpy(d->d_name, name, (size_t)len);
	memset(d->d_name + len, 0, reclen - offsetof(struct linux_dirent64_, d_name) - (size_t)len);
	g->used += reclen;
	return true;
}

/* getdents64: EBADF; ENOTDIR; EINVAL when not even one record fits; EFAULT;
 * ENOENT for a removed directory. */
UVFS_API ssize_t uvfs_getdents64(struct uvfs_proc *p, int fd, void *buf, size_t count)
{
	ENTER();
	struct file *f = fget(p, fd);
	if (!f)
		RETURN(-EBADF);
	ssize_t ret;
	if (!S_ISDIR(f->f_inode->i_mode) || !f->f_op || !f->f_op->iterate) {
		ret = -ENOTDIR;
		goto out;
	}
	if (count > INT_MAX)
		count = INT_MAX;
	if (!buf) {
		ret = -EFAULT;
		goto out;
	}
	struct getdents_ctx g = { .ctx.actor = filldir64, .buf = buf, .count = count };
	pthread_mutex_lock(&f->f_pos_lock);
	int err = iterate_dir(f, &g.ctx);
	pthread_mutex_unlock(&f->f_pos_lock);
	ret = err ? err : g.error && !g.used ? g.error : (ssize_t)g.used;
out:
	fput(f);
	RETURN(ret);
}
