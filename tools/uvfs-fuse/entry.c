/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * entry.c - attributes and entries: stat of a node, lookups as the caller, entry
 * replies and how long the kernel may keep a name.
 */
#include "internal.h"

int uf_stat_fd(struct uvfs_proc *p, int fd, struct stat *st)
{
	return uvfs_fstatat(p, fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

/* How long the kernel may keep a name of directory dir (see the top). */
double uf_name_timeout(struct uf_thread *t, struct uf_node *dir, double timeout)
{
	struct stat st;

	if (timeout <= 0 || t->uf->o.default_permissions)
		return timeout;
	/* No way to take a name back at once when search permission goes
	 * (epoch.c): the kernel must ask every time. */
	if (!t->uf->epoch)
		return 0;
	if (uf_stat_fd(t->p, dir->fd, &st) < 0 || !searchable_by_all(st.st_mode))
		return 0;
	return timeout;
}

void uf_fill_entry(struct uf_thread *t, struct fuse_entry_param *e, struct uf_node *n,
		   const struct stat *st, double entry_timeout)
{
	memset(e, 0, sizeof(*e));
	e->ino = node_id(n);
	e->generation = 0;
	e->attr = *st;
	e->attr_timeout = t->uf->o.attr_timeout;
	e->entry_timeout = entry_timeout;
}

/* Look name up in dir as the caller; on success e names a node whose lookup
 * count was raised. */
int uf_lookup_at(struct uf_thread *t, struct uf_node *dir, const char *name,
		 struct fuse_entry_param *e, double entry_timeout)
{
	struct stat st;
	struct uf_node *n;
	int fd, r;
	unsigned long gen = __atomic_load_n(&t->uf->change_gen, __ATOMIC_ACQUIRE);

	fd = uvfs_openat(t->p, dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r = uf_stat_fd(t->p, fd, &st);
	if (r < 0) {
		uvfs_close(t->p, fd);
		return r;
	}
	n = uf_node_get(t, &st, fd);
	if (!n)
		return -ENOMEM;
	uf_fill_entry(t, e, n, &st, entry_timeout);
	/* Another proc changed the tree meanwhile (the change hook counts):
	 * this answer may be older than the change, and the hook may have
	 * found no node to invalidate yet (uf_node_get came after its look), so
	 * the kernel must not keep it. */
	if (__atomic_load_n(&t->uf->change_gen, __ATOMIC_ACQUIRE) != gen) {
		e->entry_timeout = 0;
		e->attr_timeout = 0;
	}
	return 0;
}

void uf_reply_entry(struct uf_thread *t, fuse_req_t req, struct fuse_entry_param *e)
{
	if (fuse_reply_entry(req, e) != 0 && e->ino)
		uf_node_forget(t->uf, t->p, N(req, e->ino), 1);
}

/* The reply of requests that make a name (mknod, mkdir, symlink): look the new
 * name up. */
void uf_reply_new_name(struct uf_thread *t, fuse_req_t req, struct uf_node *dir, const char *name)
{
	struct fuse_entry_param e;
	int r = uf_lookup_at(t, dir, name, &e, uf_name_timeout(t, dir, t->uf->o.entry_timeout));

	if (r < 0)
		fuse_reply_err(req, -r);
	else
		uf_reply_entry(t, req, &e);
}
