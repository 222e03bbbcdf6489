/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_files.c - requests on files: open, create, read, write, flush, release, fsync,
 * lseek.
 */
#include "internal.h"

static void open_reply(struct uf_thread *t, fuse_req_t req, struct fuse_file_info *fi, int fd)
{
	fi->fh = (uint64_t)fd;
	fi->noflush = 1; /* writes are synchronous: close has nothing to report */
	/* keep_cache: the page cache survives opens; a change made behind the
	 * kernel's back then shows once attr_timeout expires and the kernel sees
	 * a new mtime or size (FUSE_CAP_AUTO_INVAL_DATA), or at once through
	 * uvfs_fuse_notify_inval_inode. */
	fi->keep_cache = t->uf->o.keep_cache ? 1 : 0;
	if (fuse_reply_open(req, fi) != 0)
		uvfs_close(t->p, fd);
}

void uf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino);
	int flags = (fi->flags & UF_OPEN_FLAGS) | O_CLOEXEC;
	int fd;

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
		RETRY_GROUPS(t, fd, uvfs_fd_reopen(t->p, n->fd, flags));
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
	fi->fh = (uint64_t)fd;
	fi->noflush = 1;
	if (fuse_reply_create(req, &e, fi) != 0) {
		uf_node_forget(t->uf, t->p, n, 1);
		uvfs_close(t->p, fd);
	}
}

void uf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	BEGIN(req);
	char *buf = uf_thread_buf(t, size);
	ssize_t r;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r = uvfs_pread(t->p, fh_fd(fi), buf, size, off);
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
}

void uf_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
	      struct fuse_file_info *fi)
{
	BEGIN(req);
	ssize_t r;

	r = uvfs_pwrite(t->p, fh_fd(fi), buf, size, off);

	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

void uf_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/* Writes went to uvfs synchronously; locks are the kernel's. */
	fuse_reply_err(req, 0);
}

void uf_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = uf_thread_self(uf);

	uvfs_close(t ? t->p : uf->base, fh_fd(fi));
	fuse_reply_err(req, 0);
}

void uf_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	BEGIN(req);
	int r = datasync ? uvfs_fdatasync(t->p, fh_fd(fi)) : uvfs_fsync(t->p, fh_fd(fi));

	fuse_reply_err(req, r < 0 ? -r : 0);
}

void uf_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi)
{
	BEGIN(req);
	off_t r = uvfs_lseek(t->p, fh_fd(fi), off, whence);

	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_lseek(req, r);
}
