// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * readdir.c - getdents64 and the dcache-backed directory iterator
 * (Linux's fs/readdir.c and the offset directories of fs/libfs.c).
 *
 * Directory offsets are stable across concurrent changes, and a reader ends
 * however the directory changes under it.  Every name gets the next offset of
 * its directory when it is made or renamed in (also within the directory),
 * and the children list holds the names newest first, in decreasing offset
 * order.  A reader walks the list from the head: its position is the offset
 * of the next name it will return, and it resumes at the first name whose
 * offset is at most that.  Whatever is made or renamed in meanwhile takes an
 * offset above every position and sorts before it (a name renamed over
 * another takes that one's offset and place instead), so a reader returns
 * each name that stays at most once, every name that stays untouched exactly
 * once, and reaches the end.  The end of the directory is taken when the
 * reader steps past "..": its position becomes the newest name's offset (so
 * a record's d_off is the offset of the name after it, DIR_OFFSET_EOD after
 * the last, as on Linux).  Linux 6.14 and later work and number the same way
 * (simple_offset over d_children), except where a rename replaces or
 * exchanges names (d_move, d_exchange): uvfs keeps the list sorted by offset
 * there, where Linux's walk can return a name twice.
 *
 * A name's offset never changes while it stays in the list, so the position
 * alone is enough to resume: walking the list from the head to the first name
 * at or below it is always right.  It is also a walk over every name before
 * the position, which made reading a large directory a buffer at a time cost
 * the square of its size.  So a reader that stops inside the list keeps the
 * name it will return next (the file's private_data, with a reference: the
 * name stays in memory, and a put name leaves the list only when it is
 * unhashed), and the next call starts there when that name is still in the
 * list (hashed, since hashed <=> listed), still dir's child and still at the
 * offset the reader stopped at.  Under dir's i_rwsem, which every change to
 * the list holds exclusively, that check is exact: a name whose offset did
 * not change did not move.  Anything else (a seek, the name unlinked, renamed
 * or exchanged) falls back to the walk from the head.  Filesystems that use
 * dcache_readdir release the name with dcache_dir_release.
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

/* The positive child after pos in dir's list, or NULL; the negative ones
 * come after every positive one. */
static struct dentry *next_positive(struct dentry *dir, struct list_head *pos)
{
	pos = pos->next;
	if (pos == &dir->d_subdirs)
		return NULL;
	struct dentry *c = list_entry(pos, struct dentry, d_child);
	return c->d_inode ? c : NULL;
}

static loff_t child_pos(const struct dentry *c)
{
	return c ? (loff_t)c->d_offset : DIR_OFFSET_EOD;
}

/* The reader's kept name, if it is where the reader stopped (see the top).
 * Called with dir's i_rwsem held. */
static struct dentry *resume_at(struct file *f, struct dentry *dir, loff_t pos)
{
	struct dentry *c = f->private_data;
	if (c && !d_unhashed(c) && c->d_parent == dir && c->d_inode && (loff_t)c->d_offset == pos)
		return c;
	return NULL;
}

/* Keeps c (or nothing) as the name the next call starts at.  The put of the
 * name kept before runs under dir's lock, as Linux's dcache_readdir puts its
 * cursor's last name: that name is positive and, being held, stays so (an
 * unlink turns only a name nobody holds negative: d_delete), so its
 * last put either leaves it cached or, unhashed, frees it, and neither
 * touches dir's list. */
static void keep_resume(struct file *f, struct dentry *c)
{
	struct dentry *old = f->private_data;
	if (old == c)
		return;
	f->private_data = c ? dget(c) : NULL;
	if (old)
		dput(old);
}

void dcache_dir_release(struct inode *inode, struct file *f)
{
	(void)inode;
	keep_resume(f, NULL);
}

int dcache_readdir(struct file *f, struct dir_context *ctx)
{
	struct dentry *dir = f->f_path.dentry;
	if (ctx->pos == DIR_OFFSET_EOD)
		return 0;
	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, 1, dir->d_inode->i_ino, DT_DIR))
			return 0;
		ctx->pos = 1;
	}
	struct dentry *c;
	if (ctx->pos == 1) {
		/* the parent within this filesystem; a root names itself.  A
		 * rename of dir may move it meanwhile (we hold only dir's own
		 * lock) and drop the old parent: read it as walkers do. */
		urcu_memb_read_lock();
		uint64_t pino = READ_ONCE(READ_ONCE(dir->d_parent)->d_inode)->i_ino;
		urcu_memb_read_unlock();
		c = next_positive(dir, &dir->d_subdirs);
		if (!ctx->actor(ctx, "..", 2, child_pos(c), pino, DT_DIR))
			return 0;
	} else if (!(c = resume_at(f, dir, ctx->pos))) {
		c = next_positive(dir, &dir->d_subdirs);
		if (ctx->pos != DIR_OFFSET_FIRST)
			while (c && (loff_t)c->d_offset > ctx->pos)
				c = next_positive(dir, &c->d_child);
	}
	while (c) {
		ctx->pos = (loff_t)c->d_offset;
		struct dentry *next = next_positive(dir, &c->d_child);
		struct inode *inode = c->d_inode;
		const struct dname *n = c->d_name;
		if (!ctx->actor(ctx, n->name, (int)n->len, child_pos(next), inode->i_ino, dt_type(inode->i_mode))) {
			keep_resume(f, c);
			return 0;
		}
		c = next;
	}
	keep_resume(f, NULL);
	ctx->pos = DIR_OFFSET_EOD;
	return 0;
}

int iterate_dir(struct file *f, struct dir_context *ctx)
{
	struct inode *inode = f->f_inode;
	if (!f->f_op || !f->f_op->iterate_shared)
		return -ENOTDIR;
	down_read(&inode->i_rwsem);
	int err = -ENOENT;
	if (!(READ_ONCE(inode->i_flags) & S_DEAD_DIR)) {
		ctx->pos = f->f_pos;
		err = f->f_op->iterate_shared(f, ctx);
		f->f_pos = ctx->pos;
	}
	up_read(&inode->i_rwsem);
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
	API_ENTER_PROC(p);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	ssize_t ret;
	if (!S_ISDIR(READ_ONCE(f->f_inode->i_mode)) || !f->f_op || !f->f_op->iterate_shared) {
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
	API_RETURN(ret);
}
