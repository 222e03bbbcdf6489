/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops_names.c - requests on names: lookup, forget, mknod, mkdir, symlink, link,
 * unlink, rmdir, rename.
 */
#include "internal.h"

/*
 * "." and "..": the kernel asks for them only to decode a file handle
 * (FUSE_CAP_EXPORT_SUPPORT): "." of a nodeid it may have forgotten (the
 * inode it names is found again by its number, see node_id), ".." of a
 * directory it holds, to connect a directory's handle to the tree (an
 * ordinary lookup: openat of ".." relative to the node).
 */
static void lookup_dot(struct uf_thread *t, fuse_req_t req, fuse_ino_t parent)
{
	struct fuse_entry_param e;
	struct uf_node *n = uf_node_by_handle(t, parent);
	struct stat st;

	if (!n) {
		fuse_reply_err(req, errno);
		return;
	}
	if (uf_stat_fd(t->p, n->fd, &st) < 0) {
		uf_node_forget(t->uf, t->p, n, 1);
		fuse_reply_err(req, ESTALE);
		return;
	}
	uf_fill_entry(t, &e, n, &st, 0);
	uf_reply_entry(t, req, &e);
}

void uf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	struct uvfs_fuse *uf = t->uf;
	struct uf_node *dir;
	struct fuse_entry_param e;
	int r;

	if (name[0] == '.' && name[1] == '\0') {
		lookup_dot(t, req, parent);
		return;
	}
	dir = N(req, parent);
	RETRY_GROUPS(t, r, uf_lookup_at(t, dir, name, &e, 0));
	if (r == 0) {
		e.entry_timeout = uf_name_timeout(t, dir, uf->o.entry_timeout);
		uf_reply_entry(t, req, &e);
	} else if (r == -ENOENT && uf->o.negative_timeout > 0) {
		memset(&e, 0, sizeof(e));
		e.entry_timeout = uf_name_timeout(t, dir, uf->o.negative_timeout);
		if (e.entry_timeout > 0)
			fuse_reply_entry(req, &e);
		else
			fuse_reply_err(req, ENOENT);
	} else {
		fuse_reply_err(req, -r);
	}
}

void uf_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = uf_thread_self(uf);

	uf_node_forget(uf, t ? t->p : uf->base, N(req, ino), nlookup);
	fuse_reply_none(req);
}

void uf_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	struct uf_thread *t = uf_thread_self(uf);
	size_t i;

	for (i = 0; i < count; i++)
		uf_node_forget(uf, t ? t->p : uf->base, N(req, forgets[i].ino), forgets[i].nlookup);
	fuse_reply_none(req);
}

void uf_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent);
	int r;

	uf_req_umask(t);
	if (mode & S_ISGID)
		uf_req_groups(t);
	RETRY_GROUPS(t, r, uvfs_mknodat(t->p, dir->fd, name, mode, rdev));
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		uf_reply_new_name(t, req, dir, name);
}

void uf_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent);
	int r;

	uf_req_umask(t);
	RETRY_GROUPS(t, r, uvfs_mkdirat(t->p, dir->fd, name, mode));
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		uf_reply_new_name(t, req, dir, name);
}

void uf_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	struct uf_node *dir = N(req, parent);
	int r;

	RETRY_GROUPS(t, r, uvfs_symlinkat(t->p, link, dir->fd, name));
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		uf_reply_new_name(t, req, dir, name);
}

/*
 * link(2) by inode: linkat(fd, "", ..., AT_EMPTY_PATH).  Linux lets only
 * CAP_DAC_READ_SEARCH do that (others get ENOENT), because the source was
 * reached through an fd rather than a path.  Here the kernel did resolve a
 * path as the caller, and has already applied what link(2) checks on the
 * source (a directory: EPERM; fs.protected_hardlinks).  What remains are the
 * checks on the new name, made as the caller in link(2)'s order: EEXIST, then
 * write and search permission on the directory; then the link is made with
 * fs credentials 0.
 */
static int do_link(struct uf_thread *t, struct uf_node *n, struct uf_node *dir, const char *newname)
{
	struct stat st;
	uid_t uid = t->uid;
	gid_t gid = t->gid;
	int r;

	r = uvfs_linkat(t->p, n->fd, "", dir->fd, newname, AT_EMPTY_PATH);
	if (r != -ENOENT || uid == 0)
		return r;
	RETRY_GROUPS(t, r, uvfs_fstatat(t->p, dir->fd, newname, &st, AT_SYMLINK_NOFOLLOW));
	if (r == 0)
		return -EEXIST;
	if (r != -ENOENT)
		return r;
	/* the caller's fs.protected_hardlinks check, which the link made as
	 * root below would skip (without default_permissions the kernel made
	 * none): the owner, or a regular, non-setuid, non-setgid-executable
	 * file the caller may read and write; then the directory's access */
	r = uvfs_fstatat(t->p, n->fd, "", &st, AT_EMPTY_PATH);
	if (r < 0)
		return r;
	if (st.st_uid != uid) {
		bool safe = S_ISREG(st.st_mode) && !(st.st_mode & S_ISUID) &&
			    (st.st_mode & (S_ISGID | S_IXGRP)) != (S_ISGID | S_IXGRP);
		if (safe)
			RETRY_GROUPS(t, r, uvfs_faccessat(t->p, n->fd, "", R_OK | W_OK, AT_EACCESS | AT_EMPTY_PATH));
		if (!safe || r < 0)
			return -EPERM;
	}
	RETRY_GROUPS(t, r, uvfs_faccessat(t->p, dir->fd, "", W_OK | X_OK, AT_EACCESS | AT_EMPTY_PATH));
	if (r < 0)
		return r;
	uf_set_cred(t, 0, 0);
	r = uvfs_linkat(t->p, n->fd, "", dir->fd, newname, AT_EMPTY_PATH);
	uf_set_cred(t, uid, gid);
	return r;
}

void uf_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	BEGIN(req);
	struct uf_node *n = N(req, ino), *dir = N(req, newparent);
	struct fuse_entry_param e;
	struct stat st;
	int r;

	r = do_link(t, n, dir, newname);
	if (r == 0)
		r = uf_stat_fd(t->p, n->fd, &st);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	pthread_mutex_lock(&t->uf->nlock);
	n->nlookup++;
	pthread_mutex_unlock(&t->uf->nlock);
	uf_fill_entry(t, &e, n, &st, uf_name_timeout(t, dir, t->uf->o.entry_timeout));
	uf_reply_entry(t, req, &e);
}

void uf_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	int r;

	RETRY_GROUPS(t, r, uvfs_unlinkat(t->p, N(req, parent)->fd, name, 0));
	fuse_reply_err(req, r < 0 ? -r : 0);
}

void uf_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	BEGIN(req);
	int r;

	RETRY_GROUPS(t, r, uvfs_unlinkat(t->p, N(req, parent)->fd, name, AT_REMOVEDIR));
	fuse_reply_err(req, r < 0 ? -r : 0);
}

void uf_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
	       const char *newname, unsigned int flags)
{
	BEGIN(req);
	struct uf_node *od = N(req, parent), *nd = N(req, newparent);
	int r;

	RETRY_GROUPS(t, r, uvfs_renameat2(t->p, od->fd, name, nd->fd, newname, flags));
	if (r == 0 && !t->uf->o.default_permissions && od != nd) {
		/* A name moved from an open directory into a closed one keeps
		 * the kernel's timeout of its old place (the kernel moves the
		 * cached name, and what it cached below a directory): drop it
		 * before the reply, as for a chmod. */
		struct stat st;

		if ((uf_stat_fd(t->p, nd->fd, &st) == 0 && !searchable_by_all(st.st_mode)) ||
		    ((flags & RENAME_EXCHANGE) && uf_stat_fd(t->p, od->fd, &st) == 0 &&
		     !searchable_by_all(st.st_mode)))
			uf_names_closed(t->uf);
	}
	fuse_reply_err(req, r < 0 ? -r : 0);
}
