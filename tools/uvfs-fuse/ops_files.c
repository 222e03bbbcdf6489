/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_files.c - requests on files: open, create, read, write, flush, release, fsync,
 * lseek.
 */
#include "internal.h"

static void open_reply(struct uf_thread *t, fuse_req_t req, struct fuse_file_info *fi, int fd)
{
	fi->fh = file_fh(fd);
	/* writes are synchronous: close has nothing to report, but for the
	 * POSIX locks it releases (-o locks, ops_locks.c) */
	fi->noflush = !t->uf->locks;
	/* keep_cache: the page cache survives opens; a change made behind the
	 * kernel's back then shows once attr_timeout expires and the kernel sees
	 * a new mtime or size (FUSE_CAP_AUTO_INVAL_DATA), or at once through
	 * uvfs_fuse_notify_inval_inode. */
	fi->keep_cache = t->uf->o.keep_cache ? 1 : 0;
	if (fuse_reply_open(req, fi) != 0)
		uvfs_close(t->p, fd);
}

/*
 * No-open (FUSE_CAP_NO_OPEN_SUPPORT, with default_permissions only): the
 * first OPEN is answered ENOSYS, and from then on the kernel opens and
 * closes files without a request; reads and writes come with handle 0 and
 * go through the node's own file (uf_node_file).  What an open did on the
 * uvfs side is then done elsewhere:
 *   - permission to open (read, write, execute): checked by the kernel from
 *     the attributes it caches, which are exact (see README); without
 *     default_permissions the kernel checks nothing on open, so no-open is
 *     not used then;
 *   - O_TRUNC: ATOMIC_O_TRUNC is not negotiated, so the kernel truncates
 *     with a SETATTR of the size, made as the opener;
 *   - O_APPEND: the kernel writes at the end itself, as it already does;
 *   - O_CREAT|O_EXCL: a CREATE request, as before (it opens a handle);
 *   - FIFOs, sockets, devices: the kernel never sent OPEN for them;
 *   - execve: the kernel checks exec permission and reads the image
 *     through the node's file;
 *   - O_NOATIME: the kernel passes the open's flags with each READ, and such
 *     a read goes through a file of its own opened O_NOATIME;
 *   - O_SYNC, O_DSYNC, O_NONBLOCK of one open are not seen by uvfs (its
 *     tmpfs has nothing to sync or to wait for).
 */
void uf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino);
	int flags = (fi->flags & UF_OPEN_FLAGS) | O_CLOEXEC;
	int fd;

	if (t->uf->no_open) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	if (fi->flags & UF_FMODE_EXEC) {
		/* execve(2): the right to execute is checked, not the right to
		 * read; the frontend reads the image for the kernel. */
		RETRY_GROUPS(t, fd, uvfs_faccessat(t->p, n->fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH));
		if (fd == 0) {
			uid_t uid = t->uid;
			gid_t gid = t->gid;

			uf_set_cred(t, 0, 0);
			fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_CLOEXEC);
			uf_set_cred(t, uid, gid);
		}
	} else {
		/* O_APPEND goes to uvfs for the open's check (an append-only
		 * file opens for writing only with it), then comes off again
		 * where uvfs allows it: the kernel appends itself, and a
		 * writeback flush through this handle must land where asked */
		int app = fi->flags & O_APPEND;
		RETRY_GROUPS(t, fd, uvfs_fd_reopen(t->p, n->fd, flags | app));
		if (fd >= 0 && app) {
			int fl = uvfs_fcntl(t->p, fd, F_GETFL, 0);
			if (fl >= 0)
				uvfs_fcntl(t->p, fd, F_SETFL, (unsigned long)(fl & ~O_APPEND)); /* EPERM: append-only */
		}
	}
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	open_reply(t, req, fi, fd);
}

void uf_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent), *n;
	int flags = (fi->flags & (UF_OPEN_FLAGS | O_EXCL | O_NOFOLLOW)) | O_CREAT | O_CLOEXEC;
	struct fuse_entry_param e;
	struct stat st;
	int fd, pfd, r;

	uf_req_umask(t);
	if (mode & S_ISGID)
		uf_req_groups(t);
	if (name[0] == '/' && !name[1]) {
		/* a TMPFILE request (devio.c): an unnamed file in dir, which
		 * linkat may name later unless the open had O_EXCL */
		flags = (fi->flags & (UF_OPEN_FLAGS | O_EXCL)) | O_TMPFILE | O_CLOEXEC;
		name = ".";
	}
	RETRY_GROUPS(t, fd, uvfs_openat(t->p, dir->fd, name, flags, mode));
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	pfd = uvfs_fd_reopen(t->p, fd, O_PATH | O_CLOEXEC);
	if (pfd < 0) {
		uvfs_close(t->p, fd);
		fuse_reply_err(req, -pfd);
		return;
	}
	r = uf_stat_fd(t->p, pfd, &st);
	if (r < 0) {
		uvfs_close(t->p, pfd);
		uvfs_close(t->p, fd);
		fuse_reply_err(req, -r);
		return;
	}
	n = uf_node_get(t, &st, pfd);
	if (!n) {
		uvfs_close(t->p, fd);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	uf_fill_entry(t, &e, n, &st, uf_name_timeout(t, dir, t->uf->o.entry_timeout));
	if (t->uf->no_open) {
		/* Once an OPEN was answered ENOSYS the kernel sends no RELEASE
		 * for a created file either (measured on 6.18: every file tar -x
		 * made kept its uvfs file, and on hostfs a host fd, until the
		 * unmount).  Its I/O goes through the node's file, as a no-open
		 * file's does (uf_node_file); a RELEASE that still comes carries handle 0. */
		uvfs_close(t->p, fd);
		fd = -1;
	}
	fi->fh = fd < 0 ? 0 : file_fh(fd);
	fi->noflush = !t->uf->locks;
	if (fuse_reply_create(req, &e, fi) != 0) {
		uf_node_forget(t->uf, t->p, n, 1);
		if (fd >= 0)
			uvfs_close(t->p, fd);
	}
}

/* The uvfs file of a write, fsync, lseek, fallocate or copy: the kernel's
 * handle, or the node's file (no-open), then held in *held until io_put. */
static int io_fd(struct uf_thread *t, fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		 struct uf_node **held)
{
	struct uf_node *n;
	int fd;

	*held = NULL;
	if (fi->fh)
		return fh_fd(fi);
	n = N(req, ino);
	if (!n)
		return -ESTALE;
	fd = uf_node_file(t, n, true);
	if (fd >= 0)
		*held = n;
	return fd;
}

static void io_put(struct uf_thread *t, struct uf_node *held)
{
	if (held)
		uf_node_file_put(t->uf, held);
}

void uf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	BEGIN(req);
	char *buf = uf_thread_buf(t, size);
	struct uf_node *n = fi->fh ? NULL : N(req, ino);
	int fd;
	ssize_t r;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (fi->fh) {
		fd = fh_fd(fi);
		r = uvfs_pread(t->p, fd, buf, size, off);
	} else if (!n) {
		r = -ESTALE;
	} else if (fi->flags & O_NOATIME) {
		/* no-open: the node's file moves atime; the kernel checked that
		 * the opener may use O_NOATIME, and passes the open's flags */
		uid_t uid = t->uid;
		gid_t gid = t->gid;

		uf_set_cred(t, 0, 0);
		fd = uvfs_fd_reopen(t->p, n->fd, O_RDONLY | O_NOATIME | O_CLOEXEC);
		uf_set_cred(t, uid, gid);
		r = fd < 0 ? fd : uvfs_pread(t->p, fd, buf, size, off);
		if (fd >= 0)
			uvfs_close(t->p, fd);
	} else {
		fd = uf_node_file(t, n, false);
		r = fd < 0 ? fd : uvfs_pread(t->p, fd, buf, size, off);
		if (fd >= 0)
			uf_node_file_put(t->uf, n);
	}
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
}

/*
 * A write through the node's own file (no-open: the kernel opened the file
 * without a request): what the open would have refused for the file's
 * chattr flags, which FUSE's attributes cannot carry to the kernel, is
 * refused here.  The node's file was opened before any flag was set, and
 * uvfs, as Linux, checks the flags when a file is opened, not when it is
 * written: without this, a program on a default_permissions mount wrote
 * into an immutable file.  An immutable file takes no write; an
 * append-only one only those of an O_APPEND open (the write's flags are its
 * open's), except with the writeback cache, whose writes carry no open's
 * flags.  Refused writes are EPERM, as the open would have been.
 */
static int no_open_write_allowed(struct uf_thread *t, int fd, const struct fuse_file_info *fi)
{
	int fl = 0;

	if (fi->fh || uvfs_ioctl(t->p, fd, FS_IOC_GETFLAGS, &fl) != 0)
		return 0; /* an opened handle, or no flags (hostfs: ENOTTY) */
	if (fl & FS_IMMUTABLE_FL)
		return -EPERM;
	if ((fl & FS_APPEND_FL) && !t->uf->writeback && !(fi->flags & O_APPEND))
		return -EPERM;
	return 0;
}

void uf_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
	      struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *held;
	int fd = io_fd(t, req, ino, fi, &held);
	ssize_t r = fd < 0 ? fd : no_open_write_allowed(t, fd, fi);

	if (r == 0)
		r = uvfs_pwrite(t->p, fd, buf, size, off);
	io_put(t, held);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

void uf_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);

	if (uf->locks) { /* the caller's POSIX locks on the file go (ops_locks.c) */
		uf_locks_flush(req, ino, fi);
		return;
	}
	/* Writes went to uvfs synchronously, and locks are the kernel's: close
	 * has nothing to do here.  ENOSYS makes the kernel stop sending FLUSH
	 * (no-open's files have no FOPEN_NOFLUSH).  Once uvfs serves POSIX or
	 * BSD locks through the mount, FLUSH must answer: it carries the lock
	 * owner whose locks a close releases. */
	fuse_reply_err(req, ENOSYS);
}

void uf_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = uf_thread_self(uf);

	if (fi->fh)
		uvfs_close(t ? t->p : uf->base, fh_fd(fi));
	fuse_reply_err(req, 0);
}

void uf_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *held;
	int fd = io_fd(t, req, ino, fi, &held);
	int r = fd < 0 ? fd : datasync ? uvfs_fdatasync(t->p, fd) : uvfs_fsync(t->p, fd);

	io_put(t, held);
	fuse_reply_err(req, r < 0 ? -r : 0);
}

/*
 * SEEK_DATA and SEEK_HOLE (the kernel seeks the others itself).  With the
 * writeback cache the kernel sends this before the data it holds and keeps
 * the size itself (README, "Writeback cache"): uvfs's answer, from what has
 * reached it, put the end of a freshly written file at 0 (ENXIO for data
 * that is there; found by stress-ng's seek stressor).  ENOSYS makes the
 * kernel stop asking and seek every file of the mount itself, from its own
 * size (generic_file_llseek): all of a file is data and the one hole is at
 * its end, the simplest answer lseek(2) allows and always a true one.
 */
void uf_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi)
{
	if (((struct uvfs_fuse *)fuse_req_userdata(req))->writeback) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	BEGIN(req);
	struct uf_node *held;
	int fd = io_fd(t, req, ino, fi, &held);
	off_t r = fd < 0 ? fd : uvfs_lseek(t->p, fd, off, whence);

	io_put(t, held);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_lseek(req, r);
}

void uf_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *held;
	int fd = io_fd(t, req, ino, fi, &held);
	int r = fd < 0 ? fd : uvfs_fallocate(t->p, fd, mode, offset, length);

	io_put(t, held);
	fuse_reply_err(req, r < 0 ? -r : 0);
}

void uf_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, struct fuse_file_info *fi_in,
			fuse_ino_t ino_out, off_t off_out, struct fuse_file_info *fi_out, size_t len, int flags)
{
	BEGIN(req);
	struct uf_node *held_in, *held_out;
	int in = io_fd(t, req, ino_in, fi_in, &held_in), out = io_fd(t, req, ino_out, fi_out, &held_out);
	ssize_t r = in < 0 ? in : out < 0 ? out :
		uvfs_copy_file_range(t->p, in, &off_in, out, &off_out, len, (unsigned)flags);

	io_put(t, held_in);
	io_put(t, held_out);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}
