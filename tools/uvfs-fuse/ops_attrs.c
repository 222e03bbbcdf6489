/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_attrs.c - requests on attributes: getattr, setattr, readlink, statfs, access.
 */
#include "internal.h"

void uf_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct stat st;
	int r;

	fi = fi_open(fi);
	if (fi)
		r = uvfs_fstat(t->p, fh_fd(fi), &st);
	else
		r = uf_stat_fd(t->p, N(req, ino)->fd, &st);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, t->uf->o.attr_timeout);
}

static int do_chmod(struct uf_thread *t, struct uf_node *n, struct fuse_file_info *fi, mode_t mode)
{
	int r = uvfs_fchmodat(t->p, n->fd, "", mode, AT_EMPTY_PATH);

	/* fchmodat2-style AT_EMPTY_PATH missing: an open file will do. */
	if ((r == -EINVAL || r == -ENOENT || r == -EOPNOTSUPP) && fi)
		r = uvfs_fchmod(t->p, fh_fd(fi), mode);
	return r;
}

static int do_truncate(struct uf_thread *t, struct uf_node *n, struct fuse_file_info *fi, bool via_file,
		       off_t size)
{
	int fd, r;

	if (fi)
		return uvfs_ftruncate(t->p, fh_fd(fi), size);
	/* ftruncate(2) of a file the kernel opened without asking: it checked
	 * that the file is open for writing */
	if (via_file) {
		fd = uf_node_file(t, n, true);
		if (fd < 0)
			return fd;
		r = uvfs_ftruncate(t->p, fd, size);
		uf_node_file_put(t->uf, n);
		return r;
	}
	/* truncate(2): write permission on the inode, as opening it for writing */
	fd = uvfs_fd_reopen(t->p, n->fd, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fd;
	r = uvfs_ftruncate(t->p, fd, size);
	uvfs_close(t->p, fd);
	return r;
}

static int do_utimens(struct uf_thread *t, struct uf_node *n, struct fuse_file_info *fi,
		      const struct stat *attr, int valid)
{
	struct timespec ts[2];
	int r;

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = ts[0];
	if (valid & FUSE_SET_ATTR_ATIME_NOW)
		ts[0].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_ATIME)
		ts[0] = attr->st_atim;
	if (valid & FUSE_SET_ATTR_MTIME_NOW)
		ts[1].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_MTIME)
		ts[1] = attr->st_mtim;
	r = uvfs_utimensat(t->p, n->fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if ((r == -EINVAL || r == -ENOENT || r == -EBADF) && fi)
		r = uvfs_utimensat(t->p, fh_fd(fi), NULL, ts, 0);
	return r;
}

/* A mode change that only clears S_ISUID and/or S_ISGID: what the kernel
 * sends, as the writer, before a write or truncate by someone who is not the
 * owner.  libfuse 3.14 cannot negotiate FUSE_HANDLE_KILLPRIV, which would let
 * uvfs clear the bits itself on write. */
static bool only_kills_priv(mode_t before, mode_t after)
{
	mode_t gone = before & ~after & 07777, added = after & ~before & 07777;

	return gone && !added && !(gone & ~(mode_t)(S_ISUID | S_ISGID));
}

void uf_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino);
	struct stat st, before;
	bool closing = false, chmod_dir = false, killpriv = false;
	mode_t mode = attr->st_mode & 07777;
	int r = 0;
	bool via_file = fi != NULL;

	fi = fi_open(fi);

	if (valid & FUSE_SET_ATTR_MODE) {
		bool have_before = uf_stat_fd(t->p, n->fd, &before) == 0;

		if (mode & S_ISGID)
			uf_req_groups(t); /* S_ISGID survives only for a member of the group */
		if (have_before && !t->uf->o.default_permissions && S_ISDIR(before.st_mode) &&
		    searchable_by_all(before.st_mode) && !searchable_by_all(mode))
			closing = true;
		if (have_before && only_kills_priv(before.st_mode, mode)) {
			killpriv = true; /* after the rest, below */
		} else {
			RETRY_GROUPS(t, r, do_chmod(t, n, fi, mode));
			if (r < 0)
				goto out;
			chmod_dir = closing;
		}
	}
	if (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;

		RETRY_GROUPS(t, r, uvfs_fchownat(t->p, n->fd, "", uid, gid,
						 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
		if (r < 0)
			goto out;
	}
	if (valid & FUSE_SET_ATTR_SIZE) {
		RETRY_GROUPS(t, r, do_truncate(t, n, fi, via_file, attr->st_size));
		if (r < 0)
			goto out;
	}
	if ((valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
		      FUSE_SET_ATTR_MTIME_NOW)) && t->uf->writeback && (valid & FUSE_SET_ATTR_CTIME)) {
		/*
		 * The writeback cache: the kernel keeps mtime and ctime itself
		 * and sends them as times given (never "now"): with the data
		 * it writes back, with a truncate, and in place of a
		 * utimensat(NULL) by a writer who is not the owner, whom uvfs
		 * would refuse given times.  The kernel checked the caller
		 * (default_permissions, which the writeback cache needs:
		 * setattr_prepare) or it keeps its own clock, so the times go
		 * in as root.
		 */
		uid_t uid = t->uid;
		gid_t gid = t->gid;

		uf_set_cred(t, 0, 0);
		r = do_utimens(t, n, fi, attr, valid);
		uf_set_cred(t, uid, gid);
		if (r < 0)
			goto out;
	} else if (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
			    FUSE_SET_ATTR_MTIME_NOW)) {
		RETRY_GROUPS(t, r, do_utimens(t, n, fi, attr, valid));
		if (r < 0)
			goto out;
	}
	if (killpriv) {
		RETRY_GROUPS(t, r, do_chmod(t, n, fi, mode));
		if (r == -EPERM) {
			/* Anyone who may write the file may clear these bits
			 * (Linux does on write and truncate): an open file
			 * for writing, or write permission, suffices. */
			int fl = fi ? uvfs_fcntl(t->p, fh_fd(fi), F_GETFL, 0) : -EBADF;

			if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY)
				r = 0;
			else
				RETRY_GROUPS(t, r, uvfs_faccessat(t->p, n->fd, "", W_OK,
								  AT_EACCESS | AT_EMPTY_PATH));
			if (r == 0) {
				uid_t uid = t->uid;
				gid_t gid = t->gid;

				uf_set_cred(t, 0, 0);
				r = do_chmod(t, n, fi, mode);
				uf_set_cred(t, uid, gid);
			} else {
				r = -EPERM;
			}
		}
	}
	/* chown(f, -1, -1) changes only ctime, which the kernel asks for
	 * with no attribute at all: a no-op chown does it in uvfs too.  With
	 * FUSE_HANDLE_KILLPRIV (devio.c) the kernel sends the same empty
	 * request before a write or truncate of a set-id file, as the writer,
	 * and leaves the clearing to the write: the no-op chown refuses a
	 * writer who is not the owner (it would clear the bits), so for one
	 * who may write the file the request is answered as it stands and
	 * the write, made as the writer, clears them in uvfs. */
	if (!(valid & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID | FUSE_SET_ATTR_SIZE |
		       FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
		       FUSE_SET_ATTR_MTIME_NOW))) {
		r = uvfs_fchownat(t->p, n->fd, "", (uid_t)-1, (gid_t)-1, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
		if (r == -EPERM && uf_stat_fd(t->p, n->fd, &before) == 0 && S_ISREG(before.st_mode) &&
		    (before.st_mode & (S_ISUID | S_ISGID))) {
			RETRY_GROUPS(t, r, uvfs_faccessat(t->p, n->fd, "", W_OK, AT_EACCESS | AT_EMPTY_PATH));
			if (r < 0)
				r = -EPERM;
		}
	}
out:
	/* Before the reply: the chmod returns to its caller right after it,
	 * and the caller's next walk must find no name cached below. */
	if (chmod_dir)
		uf_names_closed(t->uf);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	r = fi ? uvfs_fstat(t->p, fh_fd(fi), &st) : uf_stat_fd(t->p, n->fd, &st);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, t->uf->o.attr_timeout);
}

void uf_readlink(fuse_req_t req, fuse_ino_t ino)
{
	BEGIN(req);
	char *buf = uf_thread_buf(t, PATH_MAX + 1);
	ssize_t r;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r = uvfs_readlinkat(t->p, N(req, ino)->fd, "", buf, PATH_MAX);
	if (r < 0) {
		fuse_reply_err(req, (int)-r);
		return;
	}
	buf[r] = '\0';
	fuse_reply_readlink(req, buf);
}

void uf_statfs(fuse_req_t req, fuse_ino_t ino)
{
	BEGIN(req);
	struct statfs sf;
	struct statvfs sv;
	int r = uvfs_fstatfs(t->p, N(req, ino)->fd, &sf);

	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = sf.f_bsize;
	sv.f_frsize = sf.f_frsize ? sf.f_frsize : sf.f_bsize;
	sv.f_blocks = sf.f_blocks;
	sv.f_bfree = sf.f_bfree;
	sv.f_bavail = sf.f_bavail;
	sv.f_files = sf.f_files;
	sv.f_ffree = sf.f_ffree;
	sv.f_favail = sf.f_ffree;
	sv.f_namemax = sf.f_namelen;
	fuse_reply_statfs(req, &sv);
}

void uf_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	BEGIN(req);
	int r;

	/* The kernel already switched to the real ids for access(2). */
	RETRY_GROUPS(t, r, uvfs_faccessat(t->p, N(req, ino)->fd, "", mask, AT_EACCESS | AT_EMPTY_PATH));
	fuse_reply_err(req, r < 0 ? -r : 0);
}
