// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lifetimes: the object-lifetime races of the walk, each made to happen.
 *
 *   lifetimes [-d SECONDS] [-c CASE]   (CASE: link, dput, dirfd, unlink, chain or mounts; all by default)
 *
 * 1. A walk through an absolute symlink on a mount that another thread
 *    unmounts.  The walk holds the link (its mount and dentry) while it reads
 *    the body, as Linux's nd->stack[].link: a plain umount meanwhile is EBUSY,
 *    a lazy one detaches the mount but frees nothing until the walk is done.
 * 2. dput of a negative dentry racing a rename onto it: the rename takes the
 *    dentry, unhashes it and drops it; dput must not read it after its own
 *    decrement outside a read-side section (Linux's fast_dput).
 * 3. An RCU walk relative to a dirfd whose file holds the last reference on
 *    a lazily unmounted tmpfs, while another thread closes it: the walk's
 *    references are taken mount first, against the release's moved
 *    rename_seq, so it never holds a dentry of a superblock being torn down
 *    (the teardown's lifetime check would name it).
 * 4. umount of hundreds of mounts below the target (plain: EBUSY; lazy: all
 *    detached and released, LeakSanitizer judges at uvfs_destroy).
 * 5. An open whose RCU walk found a file that another thread unlinks (and,
 *    every other round, makes again) before the walk takes its reference:
 *    the unlink keeps the dentry as the name's negative entry
 *    (d_delete), so the walk's dentry is live but no longer the inode
 *    it saw; it must notice and walk again (ENOENT, or the new file), never
 *    open a negative dentry or the freed inode.
 * 6. The other side of 5: a walk that meets an unlink's victim between the
 *    filesystem's ->unlink and the dentry's turn to negative (d_delete).
 *    Taken before d_delete (race point unlink:removed), the dentry has a
 *    second holder and stays positive (unhashed): the open file's inode must
 *    stay alive.  Met while its inode goes (d_delete:dead), the dentry is
 *    still hashed but its count is -1: the walk must fail to take it (an
 *    open with RESOLVE_CACHED says EAGAIN), never hold a dentry whose inode
 *    turns NULL under it.
 * 7. A lookup that holds its directory's lock (a rename's, an unlink's, a
 *    create's) while a rename in another directory moves the dentry the
 *    probe stands on to another hash chain: the probe must not miss the
 *    name (CI's readdir-renames failure of session 10: a miss hashed a
 *    negative entry in front of the real one, and the names diverged).
 * 8. MS_MOVE of a mount stacked on another while a third thread unmounts
 *    the one it left: the move lets go of its old mountpoint (the lower
 *    mount's root) before it drops ns_lock, so the lower mount's teardown
 *    finds no reference left on its dentries (race point move:moved, after
 *    the lock; the teardown's lifetime check names a late dput).
 *
 * 9. pivot_root back and forth between two roots while another proc walks
 *    absolute and relative paths, reads its cwd, and procs are made and
 *    destroyed: every answer one of the two trees gives, and the teardown's
 *    checks find no reference left behind (free-running only).
 *
 * 1, 2, 5 and 7 run twice: free-running for a few seconds (threads hammering the
 * window, which the ASan build catches about once a second when the bug is
 * there), and, in a library built with -Drace_delay=true, deterministically:
 * a hook at the race point (src/lib/race.h) makes the other thread do its
 * part right there, then forces a grace period, so the unfixed code reads
 * freed memory on every run and ASan says so.
 */
#include "vfs.h"
#include "check.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>

static struct uvfs *vfs;
static double duration = 2.0;
static const char *only;

static bool want(const char *name)
{
	return !only || strcmp(only, name) == 0;
}

/* An absolute body of about 2 KB that resolves to /s/d1: the walk spends
 * its time reading it, which is the window of race 1. */
static char long_body[2100];

static void make_long_body(void)
{
	size_t n = 0;
	n += (size_t)snprintf(long_body + n, sizeof(long_body) - n, "/s/d1");
	while (n + 12 < 2048)
		n += (size_t)snprintf(long_body + n, sizeof(long_body) - n, "/../d1/./.");
}

/* ---- a helper thread that runs one request at a time for a hook ---- */

struct mailbox {
	pthread_t thread;
	sem_t go, done;
	void (*fn)(void *);
	void *arg;
	bool quit;
};

static void *mailbox_main(void *a)
{
	struct mailbox *mb = a;
	for (;;) {
		sem_wait(&mb->go);
		if (mb->quit)
			return NULL;
		mb->fn(mb->arg);
		sem_post(&mb->done);
	}
}

static void mailbox_start(struct mailbox *mb)
{
	sem_init(&mb->go, 0, 0);
	sem_init(&mb->done, 0, 0);
	mb->quit = false;
	pthread_create(&mb->thread, NULL, mailbox_main, mb);
}

static void mailbox_run(struct mailbox *mb, void (*fn)(void *), void *arg)
{
	mb->fn = fn;
	mb->arg = arg;
	sem_post(&mb->go);
	sem_wait(&mb->done);
}

static void mailbox_stop(struct mailbox *mb)
{
	mb->quit = true;
	sem_post(&mb->go);
	pthread_join(mb->thread, NULL);
	sem_destroy(&mb->go);
	sem_destroy(&mb->done);
}

/* ---- the race hook: acts once, on the armed thread, at the armed point ---- */

static __thread bool hook_armed;
static const char *hook_point;
static void (*hook_fn)(void *);
static void *hook_arg;
static struct mailbox hook_mb;
static int hook_fired;
static bool hook_in_rcu; /* fn waits for no grace period: it may run inside a section */

static void race_hook(const char *point, void *arg)
{
	(void)arg;
	if (!hook_armed || strcmp(point, hook_point) != 0)
		return;
	/* Inside a read-side section, a fn that waits for a grace period
	 * (umount does) would wait for us while we wait for it. */
	if (urcu_memb_read_ongoing() && !hook_in_rcu)
		return;
	hook_armed = false;
	hook_fired++;
	mailbox_run(&hook_mb, hook_fn, hook_arg);
	/* where the caller holds no read-side section, what fn let go of is
	 * freed now: a later read of it is a use after free that ASan names */
	race_force_grace_period();
}

/* Runs call() on this thread with the hook armed for point; fn runs on the
 * mailbox thread when the call reaches the point.  Returns call's result. */
static long with_hook(const char *point, bool in_rcu, void (*fn)(void *), void *arg, long (*call)(void *),
		      void *carg)
{
	hook_point = point;
	hook_in_rcu = in_rcu;
	hook_fn = fn;
	hook_arg = arg;
	hook_fired = 0;
	hook_armed = true;
	long r = call(carg);
	hook_armed = false;
	return r;
}

/* ---- 1. a symlink on a mount being unmounted ---- */

static struct uvfs_proc *setup_proc(void)
{
	return uvfs_proc_create(vfs, 0, 0);
}

static int mount_x_with_link(struct uvfs_proc *p)
{
	int err = uvfs_mount(p, "none", "/m/x", "tmpfs", 0, NULL);
	if (err)
		return err;
	err = uvfs_symlinkat(p, long_body, AT_FDCWD, "/m/x/l");
	if (err)
		uvfs_umount2(p, "/m/x", MNT_DETACH);
	return err;
}

struct umount_req {
	struct uvfs_proc *p;
	int flags;
	int result;
};

static void do_umount(void *a)
{
	struct umount_req *r = a;
	r->result = uvfs_umount2(r->p, "/m/x", r->flags);
}

static long call_mkdir_through_link(void *a)
{
	return uvfs_mkdirat(a, AT_FDCWD, "/m/x/l/n", 0755);
}

static void race_link_umount_exact(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("link on a mount being unmounted, at the race point");
	for (int lazy = 0; lazy < 2; lazy++) {
		CHECK_EQ(mount_x_with_link(pa), 0);
		struct umount_req req = { pa, lazy ? MNT_DETACH : 0, 1 };
		long r = with_hook("walk:follow_link", false, do_umount, &req, call_mkdir_through_link, pb);
		CHECK_EQ(hook_fired, 1);
		/* the walk holds the link's mount: a plain umount is busy, a lazy
		 * one detaches it and the walk goes on with what it holds */
		CHECK_EQ(req.result, lazy ? 0 : -EBUSY);
		CHECK_EQ(r, 0);
		CHECK_EQ(uvfs_unlinkat(pb, AT_FDCWD, "/s/d1/n", AT_REMOVEDIR), 0);
		if (!lazy)
			CHECK_EQ(uvfs_umount2(pa, "/m/x", 0), 0);
		/* nothing is left mounted there */
		CHECK_EQ(uvfs_umount2(pa, "/m/x", 0), -EINVAL);
	}
}

static int stop; /* the threads poll it: atomic loads and stores */

static void *link_umounter(void *a)
{
	struct uvfs_proc *p = a;
	unsigned long n = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (mount_x_with_link(p) != 0)
			continue;
		int err;
		do
			err = uvfs_umount2(p, "/m/x", (n & 1) ? MNT_DETACH : 0);
		while (err == -EBUSY && !__atomic_load_n(&stop, __ATOMIC_RELAXED));
		if (err == -EBUSY)
			uvfs_umount2(p, "/m/x", MNT_DETACH);
		n++;
	}
	return NULL;
}

static void *link_walker(void *a)
{
	struct uvfs_proc *p = a;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int r = uvfs_mkdirat(p, AT_FDCWD, "/m/x/l/n", 0755);
		if (r == 0)
			uvfs_unlinkat(p, AT_FDCWD, "/s/d1/n", AT_REMOVEDIR);
		else if (r != -ENOENT && r != -EEXIST)
			CHECK(0, "mkdirat through the link: %d", r);
		struct stat st;
		r = uvfs_fstatat(p, AT_FDCWD, "/m/x/l/nx", &st, 0);
		if (r != -ENOENT)
			CHECK(0, "fstatat through the link: %d", r);
	}
	return NULL;
}

/* The two sides of a race, fa on pa and fb on pb, for -d seconds. */
static void run_race(void *(*fa)(void *), struct uvfs_proc *pa, void *(*fb)(void *), struct uvfs_proc *pb)
{
	pthread_t a, b;
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	pthread_create(&a, NULL, fa, pa);
	pthread_create(&b, NULL, fb, pb);
	usleep((useconds_t)(duration * 1e6));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

static void race_link_umount_free(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("link on a mount being unmounted, free-running");
	run_race(link_umounter, pa, link_walker, pb);
	int err = uvfs_umount2(pa, "/m/x", MNT_DETACH);
	CHECK(err == 0 || err == -EINVAL, "final umount: %d", err);
	CHECK_EQ(uvfs_umount2(pa, "/m/x", 0), -EINVAL);
}

/* ---- 9. pivot_root back and forth under walks ---- */

static void *pivoter(void *a)
{
	struct uvfs_proc *p = a;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		/* the tmpfs on /pv becomes the root, the old one goes on its
		 * /old; then back: the old root, now on /old, takes its place
		 * again and the tmpfs goes back onto /pv */
		CHECK_EQ(uvfs_pivot_root(p, "/pv", "/pv/old"), 0);
		CHECK_EQ(uvfs_pivot_root(p, "/old", "/old/pv"), 0);
	}
	return NULL;
}

static void *pivot_walker(void *a)
{
	struct uvfs_proc *p = a;
	static const char *const names[] = { "/rmark", "/nmark", "/old/rmark", "/pv/nmark", "rmark", "nmark" };
	unsigned n = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct stat st;
		const char *name = names[n++ % 6];
		int r = uvfs_fstatat(p, AT_FDCWD, name, &st, 0);
		CHECK(r == 0 || r == -ENOENT, "fstatat %s during pivots: %d", name, r);
		char cwd[64];
		r = uvfs_getcwd(p, cwd, sizeof(cwd));
		CHECK(r == 2 && !strcmp(cwd, "/"), "getcwd during pivots: %d %s", r, r > 0 ? cwd : "");
		if (n % 64 == 0) {
			/* a new proc starts at the root of the moment, and its
			 * root follows the pivots from then on: each name may
			 * be there or not, the two stats are at two moments */
			struct uvfs_proc *q = uvfs_proc_create(vfs, 0, 0);
			CHECK(q != NULL);
			r = uvfs_fstatat(q, AT_FDCWD, "/rmark", &st, 0);
			int r2 = uvfs_fstatat(q, AT_FDCWD, "/nmark", &st, 0);
			CHECK((r == 0 || r == -ENOENT) && (r2 == 0 || r2 == -ENOENT), "a new proc's root: %d %d", r,
			      r2);
			r = uvfs_getcwd(q, cwd, sizeof(cwd));
			CHECK(r == 2 && !strcmp(cwd, "/"), "a new proc's cwd during pivots: %d", r);
			uvfs_proc_destroy(q);
		}
	}
	return NULL;
}

static void race_pivot_walk_free(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("pivot_root back and forth under walks, free-running");
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/rmark", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/pv", 0755), 0);
	CHECK_EQ(uvfs_mount(pa, "none", "/pv", "tmpfs", 0, NULL), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/pv/old", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/pv/nmark", 0755), 0);
	run_race(pivoter, pa, pivot_walker, pb);
	/* as it was: the first root, the tmpfs on /pv */
	struct stat st;
	CHECK_EQ(uvfs_fstatat(pb, AT_FDCWD, "/rmark", &st, 0), 0);
	CHECK_EQ(uvfs_fstatat(pb, AT_FDCWD, "/pv/nmark", &st, 0), 0);
	CHECK_EQ(uvfs_umount2(pa, "/pv", 0), 0);
	CHECK_EQ(uvfs_unlinkat(pa, AT_FDCWD, "/pv", AT_REMOVEDIR), 0);
	CHECK_EQ(uvfs_unlinkat(pa, AT_FDCWD, "/rmark", AT_REMOVEDIR), 0);
}

/* ---- 8. MS_MOVE from a stack whose lower mount is unmounted ---- */

static void do_umount_q(void *a)
{
	struct umount_req *r = a;
	r->result = uvfs_umount2(r->p, "/q", r->flags);
}

static long call_move_q(void *a)
{
	return uvfs_mount(a, "/q", "/q2", NULL, MS_MOVE, NULL);
}

static void race_move_umount_exact(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("MS_MOVE off a stack whose lower mount goes, at the race point");
	for (int lazy = 0; lazy < 2; lazy++) {
		CHECK_EQ(uvfs_mount(pa, "none", "/q", "tmpfs", 0, NULL), 0);
		CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/q/lower", 0755), 0);
		CHECK_EQ(uvfs_mount(pa, "none", "/q", "tmpfs", 0, NULL), 0);
		CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/q/upper", 0755), 0);
		struct umount_req req = { pa, lazy ? MNT_DETACH : 0, 1 };
		long r = with_hook("move:moved", false, do_umount_q, &req, call_move_q, pb);
		CHECK_EQ(hook_fired, 1);
		CHECK_EQ(r, 0);
		/* the lower mount is alone on /q once the upper one moved */
		CHECK_EQ(req.result, 0);
		struct stat st;
		CHECK_EQ(uvfs_fstatat(pa, AT_FDCWD, "/q2/upper", &st, 0), 0);
		CHECK_EQ(uvfs_fstatat(pa, AT_FDCWD, "/q/lower", &st, 0), -ENOENT);
		CHECK_EQ(uvfs_umount2(pa, "/q2", 0), 0);
		CHECK_EQ(uvfs_umount2(pa, "/q2", 0), -EINVAL);
	}
}

/* ---- 2. dput of a negative dentry that a rename takes ---- */

struct rename_req {
	struct uvfs_proc *p;
	int result;
};

/* a name no earlier round used: an unlinked name stays cached as a
 * negative entry (d_delete), and the round needs its first lookup */
static char nx_name[32];

static void do_rename_onto(void *a)
{
	struct rename_req *r = a;
	r->result = uvfs_renameat2(r->p, AT_FDCWD, "/r/f", AT_FDCWD, nx_name, 0);
}

static long call_stat_missing(void *a)
{
	struct stat st;
	return uvfs_fstatat(a, AT_FDCWD, nx_name, &st, 0);
}

static void race_dput_rename_exact(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("dput of a negative dentry a rename takes, at the race point");
	for (int i = 0; i < 20; i++) {
		int fd = uvfs_openat(pa, AT_FDCWD, "/r/f", O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0);
		uvfs_close(pa, fd);
		/* the first lookup of the name leaves a negative dentry and drops
		 * it to zero: the rename lands in between */
		snprintf(nx_name, sizeof(nx_name), "/r/nx%d", i);
		struct rename_req req = { pa, 1 };
		long r = with_hook("dput:zero", true, do_rename_onto, &req, call_stat_missing, pb);
		CHECK_EQ(hook_fired, 1);
		CHECK_EQ(r, -ENOENT);
		CHECK_EQ(req.result, 0);
		struct stat st;
		CHECK_EQ(uvfs_fstatat(pb, AT_FDCWD, nx_name, &st, 0), 0);
		CHECK_EQ(uvfs_unlinkat(pb, AT_FDCWD, nx_name, 0), 0);
	}
}

static void *dput_renamer(void *a)
{
	struct uvfs_proc *p = a;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int fd = uvfs_openat(p, AT_FDCWD, "/r/f", O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			uvfs_close(p, fd);
		int r = uvfs_renameat2(p, AT_FDCWD, "/r/f", AT_FDCWD, "/r/nx", 0);
		if (r && r != -ENOENT)
			CHECK(0, "rename: %d", r);
		r = uvfs_unlinkat(p, AT_FDCWD, "/r/nx", 0);
		if (r && r != -ENOENT)
			CHECK(0, "unlink: %d", r);
	}
	return NULL;
}

static void *dput_statter(void *a)
{
	struct uvfs_proc *p = a;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct stat st;
		int r = uvfs_fstatat(p, AT_FDCWD, "/r/nx", &st, 0);
		if (r && r != -ENOENT)
			CHECK(0, "stat: %d", r);
	}
	return NULL;
}

static void race_dput_rename_free(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("dput of a negative dentry a rename takes, free-running");
	run_race(dput_renamer, pa, dput_statter, pb);
	/* what the race left is two names at most, and nothing else: the
	 * directory empties and goes */
	int r = uvfs_unlinkat(pa, AT_FDCWD, "/r/f", 0);
	CHECK(r == 0 || r == -ENOENT, "unlink /r/f: %d", r);
	r = uvfs_unlinkat(pa, AT_FDCWD, "/r/nx", 0);
	CHECK(r == 0 || r == -ENOENT, "unlink /r/nx: %d", r);
	CHECK_EQ(uvfs_unlinkat(pa, AT_FDCWD, "/r", AT_REMOVEDIR), 0);
}

/* ---- 3. an RCU walk from a dirfd that another thread closes ---- */

struct close_req {
	struct uvfs_proc *p;
	int fd;
	int result;
};

static void do_close(void *a)
{
	struct close_req *r = a;
	r->result = uvfs_close(r->p, r->fd);
}

struct open_args {
	struct uvfs_proc *p;
	int dfd;
};

static long call_open_at(void *a)
{
	struct open_args *o = a;
	return uvfs_openat(o->p, o->dfd, "e", O_RDONLY, 0);
}

/* The directory's file holds the last reference on a lazily unmounted
 * tmpfs; a thread of the same table opens a name relative to it while
 * another closes it.  The walk has read the mount through the file; when it
 * takes its reference the close may already have released the mount.  It
 * must either win (its reference keeps the mount: the open succeeds) or see
 * the release and start over (EBADF): never keep references into a
 * superblock being torn down. */
static void race_dirfd_close_exact(struct uvfs_proc *pa)
{
	SECTION("walk from a dirfd closed meanwhile, at the race point");
	struct uvfs_proc *pb = uvfs_proc_clone(pa, UVFS_CLONE_FILES);
	CHECK(pb != NULL);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ(uvfs_mount(pa, "none", "/m/x", "tmpfs", 0, NULL), 0);
		CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/m/x/d", 0755), 0);
		int fd = uvfs_openat(pa, AT_FDCWD, "/m/x/d/e", O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0);
		uvfs_close(pa, fd);
		int dfd = uvfs_openat(pa, AT_FDCWD, "/m/x/d", O_RDONLY | O_DIRECTORY, 0);
		CHECK(dfd >= 0);
		CHECK_EQ(uvfs_umount2(pa, "/m/x", MNT_DETACH), 0);
		struct close_req req = { pa, dfd, 1 };
		struct open_args oa = { pb, dfd };
		long r = with_hook("walk:legitimize", true, do_close, &req, call_open_at, &oa);
		CHECK_EQ(hook_fired, 1);
		CHECK_EQ(req.result, 0);
		CHECK(r >= 0 || r == -EBADF, "open relative to a dirfd closed meanwhile: %ld", r);
		if (r >= 0) {
			struct stat st;
			CHECK_EQ(uvfs_fstat(pb, (int)r, &st), 0);
			CHECK(S_ISREG(st.st_mode));
			CHECK_EQ(uvfs_close(pb, (int)r), 0);
		}
	}
	uvfs_proc_destroy(pb);
}

/* ---- 5. a walk's end unlinked before the walk takes its reference ---- */

struct unlink_req {
	struct uvfs_proc *p;
	bool remake;
	int result;
};

static void do_unlink_g(void *a)
{
	struct unlink_req *r = a;
	r->result = uvfs_unlinkat(r->p, AT_FDCWD, "/u/g", 0);
	if (!r->result && r->remake) {
		int fd = uvfs_openat(r->p, AT_FDCWD, "/u/g", O_CREAT | O_EXCL | O_WRONLY, 0600);
		r->result = fd < 0 ? fd : uvfs_close(r->p, fd);
	}
}

static long call_open_g(void *a)
{
	return uvfs_openat(a, AT_FDCWD, "/u/g", O_RDONLY, 0);
}

/* what an open of /u/g gave: ENOENT, or a file that is /u/g's current one */
static void check_open_g(struct uvfs_proc *p, long r, bool exists)
{
	if (!exists) {
		CHECK_EQ(r, -ENOENT);
		if (r >= 0)
			uvfs_close(p, (int)r);
		return;
	}
	CHECK(r >= 0, "open of a file made again: %ld", r);
	if (r < 0)
		return;
	struct stat st, now;
	CHECK_EQ(uvfs_fstat(p, (int)r, &st), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/u/g", &now, 0), 0);
	CHECK(S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_ino == now.st_ino, "the file opened is not /u/g's");
	CHECK_EQ(uvfs_close(p, (int)r), 0);
}

static void race_unlink_walk_exact(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("a walk's end unlinked (kept negative) before its reference, at the race point");
	for (int i = 0; i < 10; i++) {
		int fd = uvfs_openat(pa, AT_FDCWD, "/u/g", O_CREAT | O_EXCL | O_WRONLY, 0600);
		CHECK(fd >= 0);
		uvfs_close(pa, fd);
		struct unlink_req req = { pa, i & 1, 1 };
		long r = with_hook("walk:legitimize", true, do_unlink_g, &req, call_open_g, pb);
		CHECK_EQ(hook_fired, 1);
		CHECK_EQ(req.result, 0);
		check_open_g(pb, r, req.remake);
		if (req.remake)
			CHECK_EQ(uvfs_unlinkat(pa, AT_FDCWD, "/u/g", 0), 0);
	}
}

/* ---- 6. a walk that meets an unlink's victim in d_delete ---- */

struct open_req {
	struct uvfs_proc *p;
	bool cached;
	long result;
};

static void do_open_g(void *a)
{
	struct open_req *r = a;
	if (r->cached) {
		struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_CACHED };
		r->result = uvfs_openat2(r->p, AT_FDCWD, "/u/g", &how, sizeof(how));
	} else {
		r->result = uvfs_openat(r->p, AT_FDCWD, "/u/g", O_RDONLY, 0);
	}
}

static long call_unlink_g(void *a)
{
	return uvfs_unlinkat(a, AT_FDCWD, "/u/g", 0);
}

static void race_unlink_delete_exact(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("an unlink's victim met by a walk before and inside d_delete, at the race points");
	for (int i = 0; i < 10; i++) {
		bool dead = i & 1;
		int fd = uvfs_openat(pa, AT_FDCWD, "/u/g", O_CREAT | O_EXCL | O_WRONLY, 0600);
		CHECK(fd >= 0);
		uvfs_close(pa, fd);
		struct open_req req = { pb, dead, 1 };
		long r = with_hook(dead ? "d_delete:dead" : "unlink:removed", false, do_open_g, &req, call_unlink_g, pa);
		CHECK_EQ(hook_fired, 1);
		CHECK_EQ(r, 0);
		if (dead) {
			CHECK(req.result == -EAGAIN, "a walk took an unlink's victim while its inode went: %ld", req.result);
		} else {
			CHECK(req.result >= 0, "open before d_delete: %ld", req.result);
			struct stat st;
			if (req.result >= 0)
				CHECK(uvfs_fstat(pb, (int)req.result, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0,
				      "the open file of an unlinked name lost its inode");
		}
		if (req.result >= 0)
			CHECK_EQ(uvfs_close(pb, (int)req.result), 0);
		struct stat st;
		CHECK_EQ(uvfs_fstatat(pa, AT_FDCWD, "/u/g", &st, 0), -ENOENT);
	}
}

static void *unlink_churner(void *a)
{
	struct uvfs_proc *p = a;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int fd = uvfs_openat(p, AT_FDCWD, "/u/g", O_CREAT | O_EXCL | O_WRONLY, 0600);
		CHECK(fd >= 0, "create /u/g: %d", fd);
		if (fd < 0)
			break;
		uvfs_close(p, fd);
		CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/u/g", 0), 0);
	}
	return NULL;
}

static void *unlink_opener(void *a)
{
	struct uvfs_proc *p = a;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int fd = uvfs_openat(p, AT_FDCWD, "/u/g", O_RDONLY, 0);
		if (fd == -ENOENT)
			continue;
		CHECK(fd >= 0, "open /u/g: %d", fd);
		if (fd < 0)
			break;
		struct stat st;
		CHECK_EQ(uvfs_fstat(p, fd, &st), 0);
		CHECK(S_ISREG(st.st_mode) && st.st_nlink <= 1);
		uvfs_close(p, fd);
	}
	return NULL;
}

static void race_unlink_walk_free(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("opens of a file made and unlinked again and again, free-running");
	run_race(unlink_churner, pa, unlink_opener, pb);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(pa, AT_FDCWD, "/u/g", &st, 0), -ENOENT);
}

/* ---- 7. a locked lookup that a rename elsewhere leads off its chain ---- */

/* The hash bucket of name in the directory held open as fd: the test
 * arranges collisions with the dcache's own functions. */
static struct dentry *dir_dentry(struct uvfs_proc *p, int fd)
{
	struct file *f = fget(p, fd);
	struct dentry *d = f->f_path.dentry; /* the fd keeps it */
	fput(f);
	return d;
}

static uint32_t bucket_of(const struct dentry *dir, const char *name)
{
	return d_hash_bucket(dir, name_hash(name, (unsigned)strlen(name)), D_HASH_BITS);
}

/* A name "<prefix><n>" of dir in bucket b (same), or in another one. */
static void name_in_bucket(char *buf, size_t size, const struct dentry *dir, const char *prefix, uint32_t b,
			   bool same)
{
	for (unsigned n = 0;; n++) {
		snprintf(buf, size, "%s%u", prefix, n);
		if ((bucket_of(dir, buf) == b) == same)
			return;
	}
}

/* /h1 and /h2, held open for their dentries */
struct chain_dirs {
	int fd1, fd2;
	struct dentry *h1, *h2;
};

static struct chain_dirs chain_dirs_make(struct uvfs_proc *p)
{
	struct chain_dirs c;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/h1", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/h2", 0755), 0);
	c.fd1 = uvfs_openat(p, AT_FDCWD, "/h1", O_RDONLY | O_DIRECTORY, 0);
	c.fd2 = uvfs_openat(p, AT_FDCWD, "/h2", O_RDONLY | O_DIRECTORY, 0);
	c.h1 = dir_dentry(p, c.fd1);
	c.h2 = dir_dentry(p, c.fd2);
	return c;
}

static void chain_dirs_remove(struct uvfs_proc *p, struct chain_dirs *c)
{
	uvfs_close(p, c->fd1);
	uvfs_close(p, c->fd2);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h1", AT_REMOVEDIR), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h2", AT_REMOVEDIR), 0);
}

/* For /h1/a<n>: /h2/x (a name of x_prefix in a's chain) and /h2/y (a name
 * of y_prefix in another chain), as paths.  Two a<n> can share a chain (the
 * buckets follow the directories' addresses), so callers that keep several
 * at once give each n prefixes of its own: the first name of "x" in the
 * chain would be the same for both. */
static void chain_names(const struct chain_dirs *c, int n, const char *x_prefix, const char *y_prefix, char *a,
			char *x, char *y)
{
	char name[32];
	snprintf(name, sizeof(name), "a%d", n);
	uint32_t b = bucket_of(c->h1, name);
	snprintf(a, 64, "/h1/%s", name);
	name_in_bucket(name, sizeof(name), c->h2, x_prefix, b, true);
	snprintf(x, 64, "/h2/%s", name);
	name_in_bucket(name, sizeof(name), c->h2, y_prefix, b, false);
	snprintf(y, 64, "/h2/%s", name);
}

struct chain_req {
	struct uvfs_proc *p;
	char from[64], to[64];
	int result;
};

static void do_rename_chain(void *a)
{
	struct chain_req *r = a;
	r->result = uvfs_renameat2(r->p, AT_FDCWD, r->from, AT_FDCWD, r->to, 0);
}

struct chain_call {
	struct uvfs_proc *p;
	int op;
	char a[64], b[64];
};

enum { CHAIN_RENAME, CHAIN_UNLINK, CHAIN_CREATE, CHAIN_MKDIR, CHAIN_OPS };
static const char *const chain_op_name[CHAIN_OPS] = { "rename", "unlink", "open O_CREAT|O_EXCL", "mkdir" };
/* what each returns on an existing file */
static const int chain_op_expect[CHAIN_OPS] = { 0, 0, -EEXIST, -EEXIST };

static long call_chain_op(void *arg)
{
	struct chain_call *c = arg;
	switch (c->op) {
	case CHAIN_RENAME:
		return uvfs_renameat2(c->p, AT_FDCWD, c->a, AT_FDCWD, c->b, 0);
	case CHAIN_UNLINK:
		return uvfs_unlinkat(c->p, AT_FDCWD, c->a, 0);
	case CHAIN_CREATE: {
		int fd = uvfs_openat(c->p, AT_FDCWD, c->a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd >= 0)
			uvfs_close(c->p, fd);
		return fd >= 0 ? 0 : fd;
	}
	default:
		return uvfs_mkdirat(c->p, AT_FDCWD, c->a, 0755);
	}
}

/* The names dir lists, "." and ".." aside. */
static int count_names(struct uvfs_proc *p, const char *dir)
{
	int fd = uvfs_openat(p, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	char buf[4096];
	long r;
	int n = 0;
	while ((r = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < r;) {
			struct dirent64_ {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);
			off += d->reclen;
			n += strcmp(d->name, ".") && strcmp(d->name, "..");
		}
	uvfs_close(p, fd);
	return n;
}

/*
 * A rename, unlink or create of /h1/aN probes aN's chain holding /h1's lock;
 * in front of aN in that chain sits /h2/xN.  At the probe's first step (on
 * xN) another thread renames xN to a name of another chain: the probe's next
 * step is in that chain.  The lookup must still find aN (before the fix it
 * missed: the rename and the unlink said ENOENT and hashed a negative aN in
 * front of the real one, the create made a second aN).
 */
static void race_chain_rename_exact(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("a locked lookup whose chain a rename elsewhere changes, at the race point");
	struct chain_dirs dirs = chain_dirs_make(pa);
	for (int round = 0; round < 4 * CHAIN_OPS; round++) {
		int op = round % CHAIN_OPS;
		struct chain_call call = { .p = pb, .op = op };
		struct chain_req req = { .p = pa, .result = 1 };
		chain_names(&dirs, round, "x", "y", call.a, req.from, req.to);
		snprintf(call.b, sizeof(call.b), "/h1/b%d", round);
		/* aN first: xN, made after it, is in front of it in the chain */
		int fd = uvfs_openat(pa, AT_FDCWD, call.a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0, "create %s: %d", call.a, fd);
		uvfs_close(pa, fd);
		fd = uvfs_openat(pa, AT_FDCWD, req.from, O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0, "create %s: %d", req.from, fd);
		uvfs_close(pa, fd);
		/* the walks of /h1 done once before, so that the first locked
		 * lookup of the call is aN's (a first walk may take a slow path) */
		struct stat st;
		CHECK_EQ(uvfs_fstatat(pb, AT_FDCWD, call.a, &st, 0), 0);
		long r = with_hook("d_lookup:chain", true, do_rename_chain, &req, call_chain_op, &call);
		CHECK_EQ(hook_fired, 1);
		CHECK_EQ(req.result, 0);
		CHECK(r == chain_op_expect[op], "%s of %s with its chain changed: %ld, expected %d", chain_op_name[op],
		      call.a, r, chain_op_expect[op]);
		/* what stays is what the call made of the one aN, and one name */
		const char *stays = op == CHAIN_RENAME ? call.b : op == CHAIN_UNLINK ? NULL : call.a;
		CHECK_EQ(uvfs_fstatat(pb, AT_FDCWD, call.a, &st, 0), stays == call.a ? 0 : -ENOENT);
		if (stays)
			CHECK_EQ(uvfs_fstatat(pb, AT_FDCWD, stays, &st, 0), 0);
		CHECK_EQ(count_names(pb, "/h1"), stays ? 1 : 0);
		if (stays)
			CHECK_EQ(uvfs_unlinkat(pb, AT_FDCWD, stays, 0), 0);
		CHECK_EQ(count_names(pb, "/h1"), 0);
		CHECK_EQ(uvfs_unlinkat(pa, AT_FDCWD, req.to, 0), 0);
	}
	chain_dirs_remove(pa, &dirs);
}

/* Free-running: /h1 holds CHAIN_NAMES files, each with a name of /h2 in its
 * chain that one thread renames back and forth between two chains, while
 * the other renames, re-creates (EEXIST) and unlinks the files of /h1. */
#define CHAIN_NAMES 64
static char chain_x[CHAIN_NAMES][2][64]; /* /h2's two names of each */

static void *chain_mover(void *a)
{
	struct uvfs_proc *p = a;
	unsigned long n = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < CHAIN_NAMES; i++) {
			int r = uvfs_renameat2(p, AT_FDCWD, chain_x[i][n & 1], AT_FDCWD, chain_x[i][!(n & 1)], 0);
			if (r)
				CHECK(0, "rename %s: %d", chain_x[i][n & 1], r);
		}
		n++;
	}
	return NULL;
}

static void *chain_user(void *a)
{
	struct uvfs_proc *p = a;
	char name[64], other[64];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < CHAIN_NAMES; i++) {
			snprintf(name, sizeof(name), "/h1/a%d", i);
			snprintf(other, sizeof(other), "/h1/b%d", i);
			int fd = uvfs_openat(p, AT_FDCWD, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd >= 0)
				uvfs_close(p, fd);
			CHECK(fd == -EEXIST, "open O_EXCL of the existing %s: %d", name, fd);
			int r = uvfs_mkdirat(p, AT_FDCWD, name, 0755);
			CHECK(r == -EEXIST, "mkdir of the existing %s: %d", name, r);
			r = uvfs_renameat2(p, AT_FDCWD, name, AT_FDCWD, other, 0);
			CHECK(r == 0, "rename %s: %d", name, r);
			r = uvfs_renameat2(p, AT_FDCWD, other, AT_FDCWD, name, 0);
			CHECK(r == 0, "rename %s back: %d", other, r);
		}
	}
	return NULL;
}

static void race_chain_rename_free(struct uvfs_proc *pa, struct uvfs_proc *pb)
{
	SECTION("locked lookups whose chains renames elsewhere change, free-running");
	struct chain_dirs dirs = chain_dirs_make(pa);
	for (int i = 0; i < CHAIN_NAMES; i++) {
		char a[64], xp[16], yp[16];
		snprintf(xp, sizeof(xp), "x%d_", i);
		snprintf(yp, sizeof(yp), "y%d_", i);
		chain_names(&dirs, i, xp, yp, a, chain_x[i][0], chain_x[i][1]);
		int fd = uvfs_openat(pa, AT_FDCWD, a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0);
		uvfs_close(pa, fd);
		fd = uvfs_openat(pa, AT_FDCWD, chain_x[i][0], O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0);
		uvfs_close(pa, fd);
	}
	run_race(chain_mover, pa, chain_user, pb);
	CHECK_EQ(count_names(pa, "/h1"), CHAIN_NAMES);
	CHECK_EQ(count_names(pa, "/h2"), CHAIN_NAMES);
	for (int i = 0; i < CHAIN_NAMES; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/h1/a%d", i);
		CHECK_EQ(uvfs_unlinkat(pa, AT_FDCWD, path, 0), 0);
		int r = uvfs_unlinkat(pa, AT_FDCWD, chain_x[i][0], 0);
		if (r == -ENOENT)
			r = uvfs_unlinkat(pa, AT_FDCWD, chain_x[i][1], 0);
		CHECK_EQ(r, 0);
	}
	chain_dirs_remove(pa, &dirs);
}

/* ---- 4. umount of many submounts ---- */

static void many_submounts(struct uvfs_proc *p, int n)
{
	char path[64];
	SECTION("umount with hundreds of mounts below");
	for (int lazy = 0; lazy < 2; lazy++) {
		CHECK_EQ(uvfs_mount(p, "none", "/m/x", "tmpfs", 0, NULL), 0);
		int made = 0;
		for (int i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "/m/x/s%d", i);
			if (uvfs_mkdirat(p, AT_FDCWD, path, 0755) == 0 &&
			    uvfs_mount(p, "none", path, "tmpfs", 0, NULL) == 0)
				made++;
			/* a mount on a mount, too */
			if (i % 10 == 0) {
				snprintf(path, sizeof(path), "/m/x/s%d/t", i);
				if (uvfs_mkdirat(p, AT_FDCWD, path, 0755) == 0 &&
				    uvfs_mount(p, "none", path, "tmpfs", 0, NULL) == 0)
					made++;
			}
		}
		CHECK_EQ(made, n + (n + 9) / 10);
		if (lazy) {
			CHECK_EQ(uvfs_umount2(p, "/m/x", MNT_DETACH), 0);
		} else {
			CHECK_EQ(uvfs_umount2(p, "/m/x", 0), -EBUSY);
			for (int i = 0; i < n; i++) {
				if (i % 10 == 0) {
					snprintf(path, sizeof(path), "/m/x/s%d/t", i);
					CHECK_EQ(uvfs_umount2(p, path, 0), 0);
				}
				snprintf(path, sizeof(path), "/m/x/s%d", i);
				CHECK_EQ(uvfs_umount2(p, path, 0), 0);
			}
			CHECK_EQ(uvfs_umount2(p, "/m/x", 0), 0);
		}
		CHECK_EQ(uvfs_umount2(p, "/m/x", 0), -EINVAL);
	}
}

int main(int argc, char **argv)
{
	int c;
	while ((c = getopt(argc, argv, "d:c:")) != -1) {
		if (c == 'd')
			duration = atof(optarg);
		else if (c == 'c')
			only = optarg;
		else {
			fprintf(stderr, "usage: lifetimes [-d SECONDS] [-c link|dput|dirfd|unlink|chain|mounts]\n");
			return 2;
		}
	}
	make_long_body();
	vfs = uvfs_create(NULL);
	struct uvfs_proc *pa = setup_proc(), *pb = setup_proc();
	CHECK(vfs && pa && pb);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/s", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/s/d1", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/m", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/m/x", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/r", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/u", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/q", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(pa, AT_FDCWD, "/q2", 0755), 0);

	if (race_points_enabled()) {
		mailbox_start(&hook_mb);
		race_set_hook(race_hook, NULL);
		if (want("link"))
			race_link_umount_exact(pa, pb);
		if (want("dput"))
			race_dput_rename_exact(pa, pb);
		if (want("dirfd"))
			race_dirfd_close_exact(pa);
		if (want("unlink")) {
			race_unlink_walk_exact(pa, pb);
			race_unlink_delete_exact(pa, pb);
		}
		if (want("chain"))
			race_chain_rename_exact(pa, pb);
		if (want("mounts"))
			race_move_umount_exact(pa, pb);
		race_set_hook(NULL, NULL);
		mailbox_stop(&hook_mb);
	} else {
		printf("-- (no race points in this build: the exact cases need -Drace_delay=true)\n");
	}
	if (want("link"))
		race_link_umount_free(pa, pb);
	if (want("dput"))
		race_dput_rename_free(pa, pb);
	if (want("unlink"))
		race_unlink_walk_free(pa, pb);
	if (want("chain"))
		race_chain_rename_free(pa, pb);
	if (want("mounts")) {
		many_submounts(pa, 300);
		race_pivot_walk_free(pa, pb);
	}

	uvfs_proc_destroy(pa);
	uvfs_proc_destroy(pb);
	uvfs_destroy(vfs);
	return check_done();
}
