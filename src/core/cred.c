// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cred.c - credentials (Linux's kernel/cred.c and kernel/sys.c's set*id):
 * refcounted, immutable once published, swapped under RCU.
 *
 * A change copies the proc's cred (prepare_creds), edits the copy and
 * publishes it with a release store (commit_creds); the proc's reference on
 * the old one is dropped after a grace period, so a call that read the old
 * pointer inside a read-side section can still take a reference.  Threads of
 * one proc changing its cred at the same time are serialised by
 * p->cred_lock, from the copy to the publication, so that neither change is
 * lost.  Readers take no lock: a call reads its proc's cred once at entry
 * (api.h).
 *
 * References: the proc's one; each open file's (f_cred); each thread's pin
 * on the cred its last call ran with, plus that thread's spare references,
 * taken in batches so that a file's reference costs no atomic.  The last
 * put frees at once: by then no proc publishes the cred (its reference went
 * after a grace period), and pins and files are private to their holders.
 */
#include "vfs.h"

/* spare references a thread takes at once for the files it opens */
#define CRED_SPARE_BATCH 1024

static struct cred *cred_alloc(void)
{
	static unsigned long long next_serial;
	struct cred *c = malloc(sizeof(*c));
	if (c) {
		c->usage = 1;
		c->serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
	}
	return c;
}

struct cred *cred_new(uid_t uid, gid_t gid)
{
	struct cred *c = cred_alloc();
	if (!c)
		return NULL;
	c->uid = c->euid = c->suid = c->fsuid = uid;
	c->gid = c->egid = c->sgid = c->fsgid = gid;
	c->ngroups = 0;
	c->groups_unknown = false;
	return c;
}

void put_cred(const struct cred *cc)
{
	struct cred *c = (struct cred *)cc;
	if (__atomic_sub_fetch(&c->usage, 1, __ATOMIC_ACQ_REL) == 0)
		free(c);
}

static void put_cred_rcu(struct rcu_head *h)
{
	put_cred(container_of(h, struct cred, rcu));
	/* no tail call into free: tests/tsan.supp names this frame */
	barrier();
}

/* The proc's reference, dropped once no reader can be about to take one. */
void proc_cred_release(struct uvfs_proc *p)
{
	urcu_memb_call_rcu(&p->cred_rcu->rcu, put_cred_rcu);
	p->cred_rcu = NULL;
}

/* A copy of p's cred to edit; cred_lock held, which keeps p->cred_rcu. */
static struct cred *prepare_creds(struct uvfs_proc *p)
{
	struct cred *c = cred_alloc();
	if (!c)
		return NULL;
	const struct cred *old = p->cred_rcu;
	c->uid = old->uid, c->euid = old->euid, c->suid = old->suid, c->fsuid = old->fsuid;
	c->gid = old->gid, c->egid = old->egid, c->sgid = old->sgid, c->fsgid = old->fsgid;
	c->ngroups = old->ngroups;
	c->groups_unknown = old->groups_unknown;
	memcpy(c->groups, old->groups, sizeof(gid_t) * (size_t)old->ngroups);
	return c;
}

/* A copy of p's cred for a new proc (uvfs_proc_clone): a cred is published
 * in one proc only, as its rcu_head serves that proc's release. */
struct cred *cred_dup(struct uvfs_proc *p)
{
	pthread_mutex_lock(&p->cred_lock);
	struct cred *c = prepare_creds(p);
	pthread_mutex_unlock(&p->cred_lock);
	return c;
}

/* cred_lock held; the old cred goes after a grace period. */
static void commit_creds(struct uvfs_proc *p, struct cred *new)
{
	struct cred *old = p->cred_rcu;
	__atomic_store_n(&p->cred_rcu, new, __ATOMIC_RELEASE);
	urcu_memb_call_rcu(&old->rcu, put_cred_rcu);
}

/*
 * The entry of a call whose proc's cred is not this thread's pin: pin it.
 * The proc's reference lives until a grace period after the cred was
 * replaced, so inside the read-side section a plain increment is safe.
 */
void cred_pin_slow(struct uvfs_proc *p)
{
	task_enter();
	urcu_memb_read_lock();
	struct cred *c = __atomic_load_n(&p->cred_rcu, __ATOMIC_ACQUIRE);
	__atomic_fetch_add(&c->usage, 1, __ATOMIC_RELAXED);
	urcu_memb_read_unlock();
	cred_unpin();
	uvfs_current.cred = c;
}

/* Gives back the thread's pin and spare references (thread exit, the move
 * to another cred, uvfs_destroy). */
void cred_unpin(void)
{
	struct cred *c = uvfs_current.cred;
	if (!c)
		return;
	long n = uvfs_current.cred_spare + 1;
	uvfs_current.cred = NULL;
	uvfs_current.cred_spare = 0;
	if (__atomic_sub_fetch(&c->usage, n, __ATOMIC_ACQ_REL) == 0)
		free(c);
}

/* The thread's spare references ran out (-1): one is being taken. */
void cred_spare_refill(void)
{
	LIFETIME_CHECK(uvfs_current.cred, "a file opened outside a proc's call has no cred");
	__atomic_fetch_add(&uvfs_current.cred->usage, CRED_SPARE_BATCH, __ATOMIC_RELAXED);
	uvfs_current.cred_spare += CRED_SPARE_BATCH;
}

/* A cached file's reference (old, or NULL for new memory) for the current
 * cred's. */
const struct cred *file_cred_swap(const struct cred *old)
{
	if (old)
		file_cred_put(old);
	return file_cred_get();
}

/* ---- the public calls ---- */

/* uvfs.h: ENOMEM.  Real, effective and fs ids; the saved ones stay. */
UVFS_API int uvfs_proc_setcred(struct uvfs_proc *p, uid_t uid, gid_t gid)
{
	API_ENTER_PROC(p);
	pthread_mutex_lock(&p->cred_lock);
	struct cred *c = prepare_creds(p);
	if (!c) {
		pthread_mutex_unlock(&p->cred_lock);
		API_RETURN(-ENOMEM);
	}
	c->uid = c->euid = c->fsuid = uid;
	c->gid = c->egid = c->fsgid = gid;
	commit_creds(p, c);
	pthread_mutex_unlock(&p->cred_lock);
	API_RETURN(0);
}

/* uvfs.h: EINVAL, EFAULT, ENOMEM. */
UVFS_API int uvfs_proc_setgroups(struct uvfs_proc *p, size_t n, const gid_t *groups)
{
	API_ENTER_PROC(p);
	bool unknown = n == UVFS_GROUPS_UNKNOWN;
	if (unknown)
		n = 0;
	if (n > UVFS_NGROUPS_MAX)
		API_RETURN(-EINVAL);
	if (n && !groups)
		API_RETURN(-EFAULT);
	pthread_mutex_lock(&p->cred_lock);
	struct cred *c = prepare_creds(p);
	if (!c) {
		pthread_mutex_unlock(&p->cred_lock);
		API_RETURN(-ENOMEM);
	}
	if (n) /* groups may be NULL then */
		memcpy(c->groups, groups, sizeof(gid_t) * n);
	c->ngroups = (int)n;
	c->groups_unknown = unknown;
	commit_creds(p, c);
	pthread_mutex_unlock(&p->cred_lock);
	API_RETURN(0);
}

/* An unprivileged caller may only move an id to one it already has. */
static bool id_allowed(unsigned id, unsigned r, unsigned e, unsigned s)
{
	return id == (unsigned)-1 || id == r || id == e || id == s;
}

/*
 * Linux's setresuid and setresgid: -1 keeps an id; the fs id follows the
 * effective one.  Privilege (CAP_SETUID, CAP_SETGID) is an effective uid
 * of 0, as the capabilities of uvfs go with uid 0.
 */
static int setres(struct uvfs_proc *p, bool is_uid, unsigned r, unsigned e, unsigned s)
{
	pthread_mutex_lock(&p->cred_lock);
	const struct cred *old = p->cred_rcu;
	unsigned or = is_uid ? old->uid : old->gid, oe = is_uid ? old->euid : old->egid;
	unsigned os = is_uid ? old->suid : old->sgid;
	if (old->euid != 0 && !(id_allowed(r, or, oe, os) && id_allowed(e, or, oe, os) && id_allowed(s, or, oe, os))) {
		pthread_mutex_unlock(&p->cred_lock);
		return -EPERM;
	}
	struct cred *c = prepare_creds(p);
	if (!c) {
		pthread_mutex_unlock(&p->cred_lock);
		return -ENOMEM;
	}
	if (is_uid) {
		if (r != (unsigned)-1)
			c->uid = r;
		if (e != (unsigned)-1)
			c->euid = e;
		if (s != (unsigned)-1)
			c->suid = s;
		c->fsuid = c->euid;
	} else {
		if (r != (unsigned)-1)
			c->gid = r;
		if (e != (unsigned)-1)
			c->egid = e;
		if (s != (unsigned)-1)
			c->sgid = s;
		c->fsgid = c->egid;
	}
	commit_creds(p, c);
	pthread_mutex_unlock(&p->cred_lock);
	return 0;
}

/* uvfs.h: EPERM, ENOMEM. */
UVFS_API int uvfs_proc_setresuid(struct uvfs_proc *p, uid_t ruid, uid_t euid, uid_t suid)
{
	API_ENTER_PROC(p);
	API_RETURN(setres(p, true, ruid, euid, suid));
}

/* uvfs.h: EPERM, ENOMEM. */
UVFS_API int uvfs_proc_setresgid(struct uvfs_proc *p, gid_t rgid, gid_t egid, gid_t sgid)
{
	API_ENTER_PROC(p);
	API_RETURN(setres(p, false, rgid, egid, sgid));
}
