// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * splice.c - copies without the caller's buffer: copy_file_range,
 * sendfile, splice and tee (Linux's fs/splice.c and the copy_file_range
 * and sendfile parts of fs/read_write.c).
 *
 * Between two files the data goes through a bounce buffer of the call's
 * own (Linux's do_splice_direct goes through a pipe of its own); into and
 * out of a pipe it goes straight between the pipe's pages and the file
 * (pipe.c: pipe_fill, pipe_drain), and from pipe to pipe buffers move
 * (pipe_to_pipe).  A file is read in pieces that end at its page
 * boundaries, so a pipe holds what Linux's would, buffer for buffer.
 *
 * Events as Linux: IN_ACCESS on the source, IN_MODIFY on the destination,
 * when at least one byte moved.
 */
#include "splice.h"
#include "notify/fsnotify.h"

#define MAX_RW_COUNT (INT_MAX & ~4095L)
#define COPY_CHUNK (64u << 10)
#define SPLICE_PAGE 4096u

/* Linux's file_remove_privs for a write that is about to change data. */
static void splice_remove_privs(struct uvfs_proc *p, struct file *f)
{
	struct inode *inode = f->f_inode;
	umode_t mode = READ_ONCE(inode->i_mode);
	if (likely(!(mode & (S_ISUID | S_ISGID))) || cred_is_root(current_cred()))
		return;
	inode_kill_suid(inode, current_cred());
	if (READ_ONCE(inode->i_mode) != mode)
		fsnotify_change(p, f->f_path.dentry, ATTR_MODE);
}

/* Linux's rw_verify_area for files without FMODE_UNSIGNED_OFFSET. */
static int rw_verify_area(loff_t pos, size_t count)
{
	loff_t end;
	if ((ssize_t)count < 0 || pos < 0 || __builtin_add_overflow(pos, (loff_t)count, &end))
		return -EINVAL;
	return 0;
}

/* Files a splice may read: regular files (Linux's ->splice_read). */
static bool can_splice_read(const struct file *f)
{
	return S_ISREG(READ_ONCE(f->f_inode->i_mode)) && f->f_op && f->f_op->read;
}

struct file_actor {
	struct uvfs_proc *p;
	struct file *f;
	loff_t *pos;
	bool started;
};

/* Into a pipe: the checks of Linux's vfs_splice_read come once the pipe
 * has room, as there (a full pipe answers EAGAIN first). */
static ssize_t read_actor(void *ctx, char *data, size_t n)
{
	struct file_actor *a = ctx;
	if (!a->started) {
		a->started = true;
		if (rw_verify_area(*a->pos, n) || !can_splice_read(a->f))
			return -EINVAL;
		fsnotify_observe(a->f->f_inode); /* before the data is read (change.c) */
	}
	size_t in_page = SPLICE_PAGE - (size_t)(*a->pos & (SPLICE_PAGE - 1));
	return a->f->f_op->read(a->f, data, MIN(n, in_page), a->pos);
}

static ssize_t write_actor(void *ctx, char *data, size_t n)
{
	struct file_actor *a = ctx;
	if (!a->started) {
		splice_remove_privs(a->p, a->f);
		a->started = true;
	}
	return a->f->f_op->write(a->f, data, n, a->pos);
}

/* Linux's do_splice_direct between two files: what was read and not
 * written is given back to the source's position. */
static ssize_t copy_direct(struct uvfs_proc *p, struct file *in, loff_t *pos_in, struct file *out, loff_t *pos_out,
			   size_t len)
{
	if (out->f_flags & O_APPEND)
		return -EINVAL;
	/* 0 bytes: Linux 6.18 refuses only a pipe or FIFO input (a directory,
	 * an inotify or epoll fd, a device give 0, measured on the host); the
	 * rest only once data moves */
	if (S_ISFIFO(READ_ONCE(in->f_inode->i_mode)))
		return -EINVAL;
	if (!len)
		return 0;
	if (!can_splice_read(in))
		return -EINVAL;
	if (!out->f_op || !out->f_op->write)
		return -EINVAL;
	char *buf = malloc(MIN((size_t)COPY_CHUNK, len));
	if (!buf)
		return -ENOMEM;
	fsnotify_observe(in->f_inode); /* before the data is read (change.c) */
	ssize_t done = 0;
	bool privs_done = false;
	while (len) {
		loff_t start = *pos_in;
		ssize_t n = in->f_op->read(in, buf, MIN((size_t)COPY_CHUNK, len), pos_in);
		if (n <= 0) {
			if (!done)
				done = n;
			break;
		}
		if (!privs_done) {
			splice_remove_privs(p, out);
			privs_done = true;
		}
		ssize_t w = out->f_op->write(out, buf, (size_t)n, pos_out);
		if (w < 0) {
			*pos_in = start;
			if (!done)
				done = w;
			break;
		}
		done += w;
		len -= (size_t)w;
		if (w < n) {
			*pos_in = start + w;
			break;
		}
	}
	free(buf);
	return done;
}

static void splice_notify(struct uvfs_proc *p, struct file *in, struct file *out)
{
	fsnotify_access(in);
	fsnotify_write(p, out);
}

/* ---- copy_file_range ---- */

static ssize_t do_copy_file_range(struct uvfs_proc *p, struct file *in, loff_t pos_in, struct file *out,
				  loff_t pos_out, size_t len, loff_t *new_in, loff_t *new_out)
{
	struct inode *ii = in->f_inode, *io = out->f_inode;
	/* generic_file_rw_checks */
	if (S_ISDIR(READ_ONCE(ii->i_mode)) || S_ISDIR(READ_ONCE(io->i_mode)))
		return -EISDIR;
	if (!S_ISREG(READ_ONCE(ii->i_mode)) || !S_ISREG(READ_ONCE(io->i_mode)))
		return -EINVAL;
	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE) || (out->f_flags & O_APPEND))
		return -EBADF;
	/* generic_copy_file_checks: tmpfs has no copy_file_range of its own,
	 * so one superblock only; then nothing is copied into an immutable
	 * file */
	if (ii->i_sb != io->i_sb)
		return -EXDEV;
	if (IS_IMMUTABLE(io))
		return -EPERM;
	/* offsets as unsigned, as Linux adds them */
	uint64_t count = len;
	if ((uint64_t)pos_in + count < (uint64_t)pos_in || (uint64_t)pos_out + count < (uint64_t)pos_out)
		return -EOVERFLOW;
	loff_t size_in = READ_ONCE(ii->i_size);
	if (pos_in >= size_in)
		count = 0;
	else
		count = MIN(count, (uint64_t)size_in - (uint64_t)pos_in);
	/* generic_write_check_limits */
	if (pos_out >= LLONG_MAX)
		return -EFBIG;
	count = MIN(count, (uint64_t)LLONG_MAX - (uint64_t)pos_out);
	/* a negative offset is EINVAL below whatever the ranges are, so the
	 * overlap is only worked out (without overflow) for real ones */
	if (ii == io && pos_in >= 0 && pos_out >= 0 && pos_out + (loff_t)count > pos_in &&
	    pos_out < pos_in + (loff_t)count)
		return -EINVAL;
	int err = rw_verify_area(pos_in, count);
	if (!err)
		err = rw_verify_area(pos_out, count);
	if (err)
		return err;
	if (!count)
		return 0;
	ssize_t ret = copy_direct(p, in, &pos_in, out, &pos_out, MIN(count, (uint64_t)MAX_RW_COUNT));
	if (ret > 0) {
		splice_notify(p, in, out);
		*new_in = pos_in;
		*new_out = pos_out;
	}
	return ret;
}

UVFS_API ssize_t uvfs_copy_file_range(struct uvfs_proc *p, int fd_in, off_t *off_in, int fd_out, off_t *off_out,
				      size_t len, unsigned flags)
{
	API_ENTER_PROC(p);
	struct file *in = fget(p, fd_in);
	if (!in)
		API_RETURN(-EBADF);
	struct file *out = fget(p, fd_out);
	ssize_t ret = -EBADF;
	if (!out)
		goto put_in;
	ret = -EINVAL;
	if (flags)
		goto put;
	/* f_pos of each file is that file's business: the position locks,
	 * in address order when the two differ, as Linux's fdget_pos */
	struct file *first = in < out ? in : out, *second = in < out ? out : in;
	if (!off_in || !off_out) {
		pthread_mutex_lock(&first->f_pos_lock);
		if (second != first)
			pthread_mutex_lock(&second->f_pos_lock);
	}
	loff_t pos_in = off_in ? *off_in : in->f_pos, pos_out = off_out ? *off_out : out->f_pos;
	loff_t new_in, new_out;
	ret = do_copy_file_range(p, in, pos_in, out, pos_out, len, &new_in, &new_out);
	if (ret > 0) {
		if (off_in)
			*off_in = new_in;
		else
			in->f_pos = new_in;
		if (off_out)
			*off_out = new_out;
		else
			out->f_pos = new_out;
	}
	if (!off_in || !off_out) {
		if (second != first)
			pthread_mutex_unlock(&second->f_pos_lock);
		pthread_mutex_unlock(&first->f_pos_lock);
	}
put:
	fput(out);
put_in:
	fput(in);
	API_RETURN(ret);
}

/* ---- sendfile ---- */

UVFS_API ssize_t uvfs_sendfile(struct uvfs_proc *p, int out_fd, int in_fd, off_t *offset, size_t count)
{
	API_ENTER_PROC(p);
	struct file *in = fget(p, in_fd), *out = NULL;
	ssize_t ret = -EBADF;
	if (!in)
		API_RETURN(-EBADF);
	if (!(in->f_mode & FMODE_READ))
		goto put;
	loff_t pos;
	if (offset) {
		pos = *offset;
		ret = -ESPIPE;
		if (!(in->f_mode & FMODE_LSEEK) || S_ISFIFO(READ_ONCE(in->f_inode->i_mode)))
			goto put;
	} else {
		pos = in->f_pos;
	}
	if ((ret = rw_verify_area(pos, count)))
		goto put;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	ret = -EBADF;
	if (!(out = fget(p, out_fd)) || !(out->f_mode & FMODE_WRITE))
		goto put;
	loff_t end;
	if (__builtin_add_overflow(pos, (loff_t)count, &end)) {
		ret = -EOVERFLOW;
		if (pos >= LLONG_MAX)
			goto put;
		count = (size_t)(LLONG_MAX - pos);
	}
	if (file_is_pipe(out)) {
		unsigned fl = (out->f_flags & O_NONBLOCK) ? SPLICE_F_NONBLOCK : 0;
		struct file_actor a = { p, in, &pos, false };
		ret = pipe_fill(out, count, fl, read_actor, &a);
	} else {
		pthread_mutex_lock(&out->f_pos_lock);
		loff_t out_pos = out->f_pos;
		ret = rw_verify_area(out_pos, count);
		if (!ret)
			ret = copy_direct(p, in, &pos, out, &out_pos, count);
		if (ret > 0)
			out->f_pos = out_pos;
		pthread_mutex_unlock(&out->f_pos_lock);
	}
	if (ret > 0) {
		splice_notify(p, in, out);
		if (offset)
			*offset = pos;
		else
			in->f_pos = pos;
	}
put:
	if (out)
		fput(out);
	fput(in);
	API_RETURN(ret);
}

/* ---- splice ---- */

/* The file side's position: *off if the caller gave one (the file must be
 * seekable), else the file's own. */
static int splice_start(struct file *f, const off_t *off, loff_t *pos)
{
	if (off) {
		if (!(f->f_mode & FMODE_LSEEK))
			return -EINVAL;
		*pos = *off;
	} else {
		*pos = f->f_pos;
	}
	return 0;
}

/* ...and where it ends, stored back where splice_start took it from. */
static void splice_end(struct file *f, off_t *off, loff_t pos)
{
	if (off)
		*off = pos;
	else
		f->f_pos = pos;
}

static ssize_t do_splice(struct uvfs_proc *p, struct file *in, off_t *off_in, struct file *out, off_t *off_out,
			 size_t len, unsigned flags)
{
	bool ipipe = file_is_pipe(in), opipe = file_is_pipe(out);
	/* each pipe side loses RWF_NOWAIT for good once its offset is checked,
	 * before the modes (Linux's __do_splice and pipe_clear_nowait) */
	if (ipipe) {
		if (off_in)
			return -ESPIPE;
		__atomic_store_n(&in->f_nowait_off, 1, __ATOMIC_RELAXED);
	}
	if (opipe) {
		if (off_out)
			return -ESPIPE;
		__atomic_store_n(&out->f_nowait_off, 1, __ATOMIC_RELAXED);
	}
	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE))
		return -EBADF;
	ssize_t ret;
	loff_t pos;
	if (ipipe && opipe) {
		if (in->f_inode == out->f_inode)
			return -EINVAL;
		if ((in->f_flags | out->f_flags) & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		ret = pipe_to_pipe(in, out, len, flags, false);
	} else if (ipipe) {
		if ((ret = splice_start(out, off_out, &pos)))
			return ret;
		if (out->f_flags & O_APPEND)
			return -EINVAL;
		if ((ret = rw_verify_area(pos, len)))
			return ret;
		if (!S_ISREG(READ_ONCE(out->f_inode->i_mode)) || !out->f_op || !out->f_op->write)
			return -EINVAL;
		if (in->f_flags & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		struct file_actor a = { p, out, &pos, false };
		ret = pipe_drain(in, MIN(len, (size_t)MAX_RW_COUNT), flags, write_actor, &a);
		splice_end(out, off_out, pos);
	} else if (opipe) {
		if ((ret = splice_start(in, off_in, &pos)))
			return ret;
		if (out->f_flags & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		struct file_actor a = { p, in, &pos, false };
		ret = pipe_fill(out, MIN(len, (size_t)MAX_RW_COUNT), flags, read_actor, &a);
		splice_end(in, off_in, pos);
	} else {
		return -EINVAL;
	}
	/* modify before access, as Linux's do_splice orders them */
	if (ret > 0) {
		fsnotify_write(p, out);
		fsnotify_access(in);
	}
	return ret;
}

UVFS_API ssize_t uvfs_splice(struct uvfs_proc *p, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
			     unsigned flags)
{
	API_ENTER_PROC(p);
	if (!len)
		API_RETURN(0);
	if (flags & ~SPLICE_F_ALL)
		API_RETURN(-EINVAL);
	struct file *in = fget(p, fd_in);
	if (!in)
		API_RETURN(-EBADF);
	struct file *out = fget(p, fd_out);
	ssize_t ret = -EBADF;
	if (out) {
		ret = do_splice(p, in, off_in, out, off_out, len, flags);
		fput(out);
	}
	fput(in);
	API_RETURN(ret);
}

/* ---- tee ---- */

UVFS_API ssize_t uvfs_tee(struct uvfs_proc *p, int fd_in, int fd_out, size_t len, unsigned flags)
{
	API_ENTER_PROC(p);
	if (flags & ~SPLICE_F_ALL)
		API_RETURN(-EINVAL);
	if (!len)
		API_RETURN(0);
	struct file *in = fget(p, fd_in);
	if (!in)
		API_RETURN(-EBADF);
	struct file *out = fget(p, fd_out);
	ssize_t ret = -EBADF;
	if (!out)
		goto put_in;
	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE))
		goto put;
	ret = -EINVAL;
	if (!file_is_pipe(in) || !file_is_pipe(out) || in->f_inode == out->f_inode)
		goto put;
	if ((in->f_flags | out->f_flags) & O_NONBLOCK)
		flags |= SPLICE_F_NONBLOCK;
	ret = pipe_to_pipe(in, out, len, flags, true);
	if (ret > 0)
		splice_notify(p, in, out);
put:
	fput(out);
put_in:
	fput(in);
	API_RETURN(ret);
}
