/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cred.c - worker threads and credentials: each worker thread has a uvfs proc of
 * its own, set to the caller's fsuid/fsgid, umask and (when needed)
 * supplementary groups at the start of every request.
 */
#include "internal.h"

void uf_thread_free(struct uf_thread *t)
{
	uvfs_proc_destroy(t->p);
	free(t->buf);
	free(t);
}

void uf_thread_key_dtor(void *arg)
{
	struct uf_thread *t = arg;
	struct uvfs_fuse *uf = t->uf;

	pthread_mutex_lock(&uf->tlock);
	if (t->prev)
		t->prev->next = t->next;
	else
		uf->threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&uf->tlock);
	uf_thread_free(t);
}

struct uf_thread *uf_thread_self(struct uvfs_fuse *uf)
{
	struct uf_thread *t = pthread_getspecific(uf->key);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->uf = uf;
	t->p = uvfs_proc_clone(uf->base, UVFS_CLONE_FILES);
	if (!t->p) {
		free(t);
		return NULL;
	}
	uvfs_proc_setcred(t->p, 0, 0);
	uvfs_umask(t->p, 0);
	pthread_mutex_lock(&uf->tlock);
	t->next = uf->threads;
	if (t->next)
		t->next->prev = t;
	uf->threads = t;
	pthread_mutex_unlock(&uf->tlock);
	pthread_setspecific(uf->key, t);
	return t;
}

void uf_set_cred(struct uf_thread *t, uid_t uid, gid_t gid)
{
	if (t->uid != uid || t->gid != gid) {
		uvfs_proc_setcred(t->p, uid, gid);
		t->uid = uid;
		t->gid = gid;
	}
}

/* Start a request: this thread's proc with the caller's credentials.  NULL
 * (after replying ENOMEM) when the thread state cannot be made. */
struct uf_thread *uf_req_begin(fuse_req_t req)
{
	struct uvfs_fuse *uf = fuse_req_userdata(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct uf_thread *t = uf_thread_self(uf);

	if (!t) {
		fuse_reply_err(req, ENOMEM);
		return NULL;
	}
	uf_set_cred(t, ctx->uid, ctx->gid);
	/* the caller's supplementary groups are unknown until a call needs
	 * them (uf_req_groups); meanwhile uvfs refuses what one of them could
	 * refuse, so that the call is made again with them.  uvfs never asks
	 * that of root, so root's requests leave the state as it is: a worker
	 * serving root and users in turn changes its cred only after a call
	 * that fetched groups. */
	if (t->ngroups != -1 && uvfs_proc_setgroups(t->p, UVFS_GROUPS_UNKNOWN, NULL) == 0)
		t->ngroups = -1;
	t->groups_tried = false;
	t->req = req;
	return t;
}

/* For requests that create: the caller's umask too. */
void uf_req_umask(struct uf_thread *t)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(t->req);

	/* Without FUSE_CAP_DONT_MASK the kernel already applied it. */
	uvfs_umask(t->p, t->uf->dont_mask ? (ctx->umask & 0777) : 0);
}

/* Give the proc the caller's supplementary groups.  True when that may change
 * an answer: they were unknown (the proc refused what a group could refuse),
 * or there are groups other than the primary one. */
bool uf_req_groups(struct uf_thread *t)
{
	gid_t g[UF_MAX_GROUPS];
	int n, i;
	bool other = false, was_unknown = t->ngroups == -1;

	if (t->groups_tried || t->uid == 0)
		return false;
	t->groups_tried = true;
	n = fuse_req_getgroups(t->req, UF_MAX_GROUPS, g);
	if (n > UF_MAX_GROUPS)
		n = UF_MAX_GROUPS; /* uvfs keeps at most 64 */
	for (i = 0; i < n; i++)
		if (g[i] != t->gid)
			other = true;
	if (!other) {
		/* none beyond the primary (or the caller is gone): known */
		if (!was_unknown || uvfs_proc_setgroups(t->p, 0, NULL) < 0)
			return false;
		t->ngroups = 0;
		return true;
	}
	if (uvfs_proc_setgroups(t->p, (size_t)n, g) < 0)
		return false;
	t->ngroups = n;
	return true;
}

char *uf_thread_buf(struct uf_thread *t, size_t size)
{
	if (t->bufsz < size) {
		char *b = realloc(t->buf, size);

		if (!b)
			return NULL;
		t->buf = b;
		t->bufsz = size;
	}
	return t->buf;
}
