/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_dirs.c - requests on directory streams: opendir, readdir, readdirplus,
 * releasedir, fsyncdir.
 */
#include "internal.h"

void uf_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_dir *d;
	int fd;

	RETRY_GROUPS(t, fd, uvfs_fd_reopen(t->p, N(req, ino)->fd, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	d = malloc(sizeof(*d));
	if (!d) {
		uvfs_close(t->p, fd);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_init(&d->lock, NULL);
	d->fd = fd;
	fi->fh = dir_fh(d);
	/* Not cache_readdir: the kernel checks its cached listing for changes
	 * only at offset 0, so a stream that seeks to a saved d_off after a
	 * name came or went would read the old listing (conformance-fuse's
	 * readdir_seek_offsets, readdir_rename_returned). */
	if (fuse_reply_open(req, fi) != 0) {
		uvfs_close(t->p, fd);
		pthread_mutex_destroy(&d->lock);
		free(d);
	}
}

static bool is_dot_or_dotdot(const char *s)
{
	return s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0'));
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus)
{
	BEGIN(req);
	struct uf_dir *d = fh_dir(fi);
	struct uf_node *dir = N(req, ino);
	struct uf_node **counted = NULL;
	size_t ncounted = 0, used = 0;
	double etimeout = 0;
	char *out, *raw;
	bool full = false;
	int err = 0;

	/* one buffer: the reply, then the raw getdents64 records */
	out = uf_thread_buf(t, 2 * size);
	raw = out ? out + size : NULL;
	if (plus) {
		counted = malloc(sizeof(*counted) * (size / 32 + 1));
		etimeout = uf_name_timeout(t, dir, t->uf->o.entry_timeout);
	}
	if (!out || (plus && !counted)) {
		free(counted);
		fuse_reply_err(req, ENOMEM);
		return;
	}

	pthread_mutex_lock(&d->lock);
	{
		off_t r = uvfs_lseek(t->p, d->fd, off, SEEK_SET);

		if (r < 0) {
			err = (int)-r;
			goto out;
		}
	}
	while (!full) {
		ssize_t len = uvfs_getdents64(t->p, d->fd, raw, size), pos;

		if (len < 0) {
			if (used == 0)
				err = (int)-len;
			break;
		}
		if (len == 0)
			break;
		for (pos = 0; pos < len; pos += ((struct uf_dirent64 *)(raw + pos))->d_reclen) {
			struct uf_dirent64 *de = (struct uf_dirent64 *)(raw + pos);
			size_t sz;

			if (plus) {
				struct fuse_entry_param e;

				memset(&e, 0, sizeof(e));
				if (is_dot_or_dotdot(de->d_name) ||
				    uf_lookup_at(t, dir, de->d_name, &e, etimeout) < 0) {
					/* nodeid 0: a name without attributes */
					memset(&e, 0, sizeof(e));
					e.attr.st_ino = de->d_ino;
					e.attr.st_mode = (mode_t)de->d_type << 12;
				}
				sz = fuse_add_direntry_plus(req, out + used, size - used, de->d_name, &e,
							    de->d_off);
				if (sz > size - used) {
					if (e.ino)
						uf_node_forget(t->uf, t->p, N(req, e.ino), 1);
					full = true;
					break;
				}
				if (e.ino)
					counted[ncounted++] = N(req, e.ino);
			} else {
				struct stat st;

				memset(&st, 0, sizeof(st));
				st.st_ino = de->d_ino;
				st.st_mode = (mode_t)de->d_type << 12;
				sz = fuse_add_direntry(req, out + used, size - used, de->d_name, &st, de->d_off);
				if (sz > size - used) {
					full = true;
					break;
				}
			}
			used += sz;
		}
	}
out:
	pthread_mutex_unlock(&d->lock);
	if (err) {
		fuse_reply_err(req, err);
	} else if (fuse_reply_buf(req, out, used) != 0) {
		size_t i;

		for (i = 0; i < ncounted; i++)
			uf_node_forget(t->uf, t->p, counted[i], 1);
	}
	free(counted);
}

void uf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, false);
}

void uf_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, true);
}

void uf_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = uf_thread_self(uf);
	struct uf_dir *d = fh_dir(fi);

	uvfs_close(t ? t->p : uf->base, d->fd);
	pthread_mutex_destroy(&d->lock);
	free(d);
	fuse_reply_err(req, 0);
}

void uf_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	BEGIN(req);
	struct uf_dir *d = fh_dir(fi);
	int r = datasync ? uvfs_fdatasync(t->p, d->fd) : uvfs_fsync(t->p, d->fd);

	fuse_reply_err(req, r < 0 ? -r : 0);
}
