// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-changehook - uvfs_set_change_hook: every kind of change calls the hook
 * once, with the right kind, directory, names, inodes and the proc that made
 * it, after the change and before the call returns, outside the core's locks
 * (the hook changes the same directory again); nothing is reported without a
 * hook, for reads, or for calls that failed; the listeners' mask on the
 * superblocks (and on a tmpfs mounted while the hook is on) comes and goes
 * with the hook, and inotify's watcher count stays out of it; removal waits
 * for a call running on another thread.  Then the listeners
 * (uvfs_add_change_listener): errors, two masks, first writes, calls from
 * inside a listener, removal while other threads change the tree, first
 * writes against reads on another thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "vfs.h"
#include "check.h"

static struct uvfs *fs;
static struct uvfs_proc *p, *q;

#define MAXREC 16
struct rec {
	struct uvfs_change c;
	char name[256], old_name[256];
};
static struct rec recs[MAXREC];
static int nrec;
static int reenter;         /* the hook makes a change of its own on "reenter" */
static int reenter_result, deadlk_result;
static int slow_hook;       /* the hook sleeps (removal test) */
static int hook_running, hook_done; /* between the hook and the test: atomic */

static void hook(const struct uvfs_change *c, void *arg)
{
	CHECK(arg == &recs);
	if (slow_hook) {
		__atomic_store_n(&hook_running, 1, __ATOMIC_RELEASE);
		usleep(200 * 1000);
		__atomic_store_n(&hook_done, 1, __ATOMIC_RELEASE);
		return;
	}
	if (nrec < MAXREC) {
		struct rec *r = &recs[nrec];
		r->c = *c;
		snprintf(r->name, sizeof r->name, "%s", c->name ? c->name : "");
		snprintf(r->old_name, sizeof r->old_name, "%s", c->old_name ? c->old_name : "");
		r->c.name = c->name ? r->name : NULL;
		r->c.old_name = c->old_name ? r->old_name : NULL;
	}
	nrec++;
	if (reenter && c->kind == UVFS_CHANGE_CREATE && c->name && strcmp(c->name, "reenter") == 0) {
		/* the directory's lock must be free: mkdir takes it */
		reenter_result = uvfs_mkdirat(c->proc, AT_FDCWD, "/d/reenter2", 0700);
		deadlk_result = uvfs_set_change_hook(fs, NULL, NULL);
	}
}

static void reset(void)
{
	nrec = 0;
	memset(recs, 0, sizeof recs);
}

static ino_t ino_of(const char *path)
{
	struct stat st;
	return uvfs_fstatat(p, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_ino : 0;
}

static long sb_field(const char *path, bool mask)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_PATH, 0);
	if (fd < 0)
		return -1;
	struct file *f = fget_raw(p, fd);
	struct super_block *sb = f->f_inode->i_sb;
	long w = mask ? (long)(__atomic_load_n(&sb->s_change_mask, __ATOMIC_ACQUIRE) & 0xffffu)
		      : __atomic_load_n(&sb->s_fsnotify_watchers, __ATOMIC_ACQUIRE);
	fput(f);
	uvfs_close(p, fd);
	return w;
}

/* inotify's watched inodes on the superblock of path: listeners add none */
static long watchers(const char *path)
{
	return sb_field(path, false);
}

/* the kinds the listeners want there (s_change_mask, without the generation) */
static long sbmask(const char *path)
{
	return sb_field(path, true);
}

/* One call of kind with dir/name/ino by proc who. */
static void expect1(int kind, const char *dir, const char *name, const char *obj, struct uvfs_proc *who)
{
	CHECK_EQ(nrec, 1);
	if (nrec < 1)
		return;
	struct rec *r = &recs[0];
	struct stat st;
	uvfs_fstatat(p, AT_FDCWD, "/", &st, 0);
	CHECK_EQ(r->c.kind, kind);
	CHECK(r->c.proc == who);
	CHECK_EQ(r->c.dev, st.st_dev);
	if (dir) {
		CHECK_EQ(r->c.dir, ino_of(dir));
		CHECK(r->c.name && strcmp(r->c.name, name) == 0, "name %s, want %s", r->c.name ? r->c.name : "(null)",
		      name);
	} else {
		CHECK_EQ(r->c.dir, 0);
		CHECK(r->c.name == NULL);
	}
	if (obj) {
		CHECK_EQ(r->c.ino, ino_of(obj));
		uvfs_fstatat(p, AT_FDCWD, obj, &st, AT_SYMLINK_NOFOLLOW);
		CHECK_EQ(r->c.mode, st.st_mode);
	}
	CHECK(r->c.old_name == NULL || kind == UVFS_CHANGE_RENAME);
}

static void test_no_hook(void)
{
	SECTION("no hook: nothing called, nothing wanted");
	CHECK_EQ(watchers("/"), 0);
	CHECK_EQ(sbmask("/"), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/nohook", 0755), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/nohook/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "x", 1), 1);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/nohook/f", 0600, 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/nohook/f", 0), 0);
	CHECK_EQ(nrec, 0);
	/* removing a hook that was never installed */
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
	CHECK_EQ(watchers("/"), 0);
	CHECK_EQ(sbmask("/"), 0);
}

static void test_kinds(void)
{
	SECTION("install");
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	CHECK_EQ(watchers("/"), 0); /* no bias: inotify's slow paths stay off */
	CHECK_EQ(sbmask("/"), UVFS_CHANGE_ALL);
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), -EBUSY);
	CHECK_EQ(sbmask("/"), UVFS_CHANGE_ALL);

	SECTION("names");
	reset();
	CHECK_EQ(uvfs_mkdirat(q, AT_FDCWD, "/d", 0755), 0);
	expect1(UVFS_CHANGE_CREATE, "/", "d", "/d", q);
	CHECK(S_ISDIR(recs[0].c.mode));

	reset();
	int fd = uvfs_openat(p, AT_FDCWD, "/d/f", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	expect1(UVFS_CHANGE_CREATE, "/d", "f", "/d/f", p);

	reset();
	int fd2 = uvfs_openat(p, AT_FDCWD, "/d/f", O_CREAT | O_WRONLY, 0644);
	CHECK_EQ(nrec, 0); /* it exists: nothing created */
	uvfs_close(p, fd2);

	reset();
	CHECK_EQ(uvfs_mknodat(q, AT_FDCWD, "/d/fifo", S_IFIFO | 0600, 0), 0);
	expect1(UVFS_CHANGE_CREATE, "/d", "fifo", "/d/fifo", q);
	CHECK(S_ISFIFO(recs[0].c.mode));

	reset();
	CHECK_EQ(uvfs_symlinkat(p, "f", AT_FDCWD, "/d/sym"), 0);
	expect1(UVFS_CHANGE_CREATE, "/d", "sym", "/d/sym", p);

	reset();
	CHECK_EQ(uvfs_linkat(q, AT_FDCWD, "/d/f", AT_FDCWD, "/d/f2", 0), 0);
	expect1(UVFS_CHANGE_LINK, "/d", "f2", "/d/f", q);

	reset();
	ino_t f2 = ino_of("/d/f2");
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d/f2", 0), 0);
	expect1(UVFS_CHANGE_UNLINK, "/d", "f2", NULL, p);
	CHECK_EQ(recs[0].c.ino, f2);

	reset();
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/sub", 0755), 0);
	ino_t sub = ino_of("/d/sub");
	reset();
	CHECK_EQ(uvfs_unlinkat(q, AT_FDCWD, "/d/sub", AT_REMOVEDIR), 0);
	expect1(UVFS_CHANGE_UNLINK, "/d", "sub", NULL, q);
	CHECK_EQ(recs[0].c.ino, sub);
	CHECK(S_ISDIR(recs[0].c.mode));

	SECTION("failed calls report nothing");
	reset();
	CHECK_ERR(uvfs_mkdirat(p, AT_FDCWD, "/d", 0755), EEXIST);
	CHECK_ERR(uvfs_unlinkat(p, AT_FDCWD, "/d/nope", 0), ENOENT);
	CHECK_ERR(uvfs_renameat2(p, AT_FDCWD, "/d/nope", AT_FDCWD, "/d/x", 0), ENOENT);
	reset();
	struct uvfs_proc *u = uvfs_proc_create(fs, 1000, 1000);
	CHECK_ERR(uvfs_fchmodat(u, AT_FDCWD, "/d/f", 0777, 0), EPERM);
	CHECK_ERR(uvfs_mkdirat(u, AT_FDCWD, "/d/x", 0755), EACCES);
	uvfs_proc_destroy(u);
	CHECK_EQ(nrec, 0);

	SECTION("renames");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/e", 0755), 0);
	reset();
	ino_t fi = ino_of("/d/f");
	CHECK_EQ(uvfs_renameat2(q, AT_FDCWD, "/d/f", AT_FDCWD, "/e/g", 0), 0);
	expect1(UVFS_CHANGE_RENAME, "/e", "g", "/e/g", q);
	CHECK_EQ(recs[0].c.ino, fi);
	CHECK_EQ(recs[0].c.old_dir, ino_of("/d"));
	CHECK(recs[0].c.old_name && strcmp(recs[0].c.old_name, "f") == 0);
	CHECK_EQ(recs[0].c.other, 0);
	CHECK_EQ(recs[0].c.flags, 0);

	/* replacing a name */
	uvfs_close(p, uvfs_openat(p, AT_FDCWD, "/e/h", O_CREAT | O_WRONLY, 0644));
	ino_t h = ino_of("/e/h");
	reset();
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/e/g", AT_FDCWD, "/e/h", 0), 0);
	expect1(UVFS_CHANGE_RENAME, "/e", "h", "/e/h", p);
	CHECK_EQ(recs[0].c.other, h);
	CHECK(recs[0].c.old_name && strcmp(recs[0].c.old_name, "g") == 0);

	/* exchange */
	ino_t sym = ino_of("/d/sym");
	reset();
	CHECK_EQ(uvfs_renameat2(q, AT_FDCWD, "/e/h", AT_FDCWD, "/d/sym", RENAME_EXCHANGE), 0);
	expect1(UVFS_CHANGE_RENAME, "/d", "sym", "/d/sym", q);
	CHECK_EQ(recs[0].c.ino, fi);
	CHECK_EQ(recs[0].c.other, sym);
	CHECK_EQ(recs[0].c.old_dir, ino_of("/e"));
	CHECK(recs[0].c.old_name && strcmp(recs[0].c.old_name, "h") == 0);
	CHECK_EQ(recs[0].c.flags, RENAME_EXCHANGE);
	CHECK_EQ(ino_of("/e/h"), sym);

	/* whiteout */
	reset();
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/e/h", AT_FDCWD, "/e/wh", RENAME_WHITEOUT), 0);
	expect1(UVFS_CHANGE_RENAME, "/e", "wh", "/e/wh", p);
	CHECK_EQ(recs[0].c.flags, RENAME_WHITEOUT);
	CHECK(recs[0].c.old_name && strcmp(recs[0].c.old_name, "h") == 0);

	/* a directory moving between parents */
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/dd", 0755), 0);
	reset();
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/d/dd", AT_FDCWD, "/e/dd", RENAME_NOREPLACE), 0);
	expect1(UVFS_CHANGE_RENAME, "/e", "dd", "/e/dd", p);
	CHECK_EQ(recs[0].c.flags, RENAME_NOREPLACE);
	CHECK(S_ISDIR(recs[0].c.mode));

	SECTION("data and attributes");
	/* fd still open on the file now at /d/sym */
	reset();
	CHECK_EQ(uvfs_write(p, fd, "hello", 5), 5);
	expect1(UVFS_CHANGE_WRITE, NULL, NULL, "/d/sym", p);
	reset();
	CHECK_EQ(uvfs_pwrite(p, fd, "x", 1, 10), 1);
	expect1(UVFS_CHANGE_WRITE, NULL, NULL, "/d/sym", p);
	reset();
	struct iovec iov[2] = { { "ab", 2 }, { "cd", 2 } };
	CHECK_EQ(uvfs_writev(p, fd, iov, 2), 4);
	expect1(UVFS_CHANGE_WRITE, NULL, NULL, "/d/sym", p);
	reset();
	CHECK_EQ(uvfs_write(p, fd, "", 0), 0);
	CHECK_EQ(nrec, 0); /* nothing written */
	reset();
	CHECK_EQ(uvfs_ftruncate(p, fd, 3), 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", p);
	CHECK(recs[0].c.flags & UVFS_CHANGE_SIZE);
	reset();
	CHECK_EQ(uvfs_truncate(q, "/d/sym", 1), 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", q);
	CHECK(recs[0].c.flags & UVFS_CHANGE_SIZE);
	reset();
	int fd3 = uvfs_openat(q, AT_FDCWD, "/d/sym", O_WRONLY | O_TRUNC, 0);
	CHECK(fd3 >= 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", q);
	CHECK(recs[0].c.flags & UVFS_CHANGE_SIZE);
	uvfs_close(q, fd3);
	reset();
	CHECK_EQ(uvfs_fchmodat(q, AT_FDCWD, "/d/sym", 0600, 0), 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", q);
	CHECK_EQ(recs[0].c.flags, UVFS_CHANGE_MODE);
	CHECK_EQ(recs[0].c.mode & 07777, 0600);
	reset();
	CHECK_EQ(uvfs_fchmod(p, fd, 0640), 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", p);
	reset();
	CHECK_EQ(uvfs_fchownat(p, AT_FDCWD, "/d/sym", 1000, 1000, 0), 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", p);
	CHECK_EQ(recs[0].c.flags, UVFS_CHANGE_OWNER);
	reset();
	struct timespec ts[2] = { { 1, 0 }, { 2, 0 } };
	CHECK_EQ(uvfs_utimensat(q, AT_FDCWD, "/d/sym", ts, 0), 0);
	expect1(UVFS_CHANGE_ATTR, NULL, NULL, "/d/sym", q);
	CHECK_EQ(recs[0].c.flags, UVFS_CHANGE_ATIME | UVFS_CHANGE_MTIME);
	/* a write by another uid clears S_ISUID: reported as a mode change, then the write */
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/d/sym", 04666, 0), 0);
	struct uvfs_proc *w = uvfs_proc_create(fs, 2000, 2000);
	int wfd = uvfs_openat(w, AT_FDCWD, "/d/sym", O_WRONLY, 0);
	CHECK(wfd >= 0);
	reset();
	CHECK_EQ(uvfs_write(w, wfd, "z", 1), 1);
	CHECK_EQ(nrec, 2);
	CHECK_EQ(recs[0].c.kind, UVFS_CHANGE_ATTR);
	CHECK_EQ(recs[0].c.flags, UVFS_CHANGE_MODE);
	CHECK(recs[0].c.proc == w);
	CHECK_EQ(recs[1].c.kind, UVFS_CHANGE_WRITE);
	CHECK(recs[1].c.proc == w);
	uvfs_close(w, wfd);
	uvfs_proc_destroy(w);

	SECTION("reads, opens, stats report nothing");
	reset();
	char buf[16];
	int rfd = uvfs_openat(p, AT_FDCWD, "/d/sym", O_RDONLY, 0);
	CHECK(uvfs_read(p, rfd, buf, sizeof buf) >= 0);
	struct stat st;
	CHECK_EQ(uvfs_fstat(p, rfd, &st), 0);
	uvfs_close(p, rfd);
	CHECK_EQ(uvfs_readlinkat(p, AT_FDCWD, "/e/wh", buf, sizeof buf), 1);
	CHECK_EQ(nrec, 0);

	SECTION("outside the locks, before the call returns");
	reset();
	reenter = 1;
	CHECK_EQ(uvfs_mkdirat(q, AT_FDCWD, "/d/reenter", 0700), 0);
	reenter = 0;
	CHECK_EQ(reenter_result, 0);
	CHECK_EQ(deadlk_result, -EDEADLK);
	CHECK_EQ(nrec, 2); /* both reported by the time the outer call returned */
	CHECK(recs[0].c.name && strcmp(recs[0].c.name, "reenter") == 0);
	CHECK(recs[1].c.name && strcmp(recs[1].c.name, "reenter2") == 0);
	CHECK(recs[1].c.proc == q);

	SECTION("a tmpfs mounted while the hook is on");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/mnt", 0755), 0);
	CHECK_EQ(uvfs_mount(p, "none", "/mnt", "tmpfs", 0, NULL), 0);
	CHECK_EQ(sbmask("/mnt"), UVFS_CHANGE_ALL);
	CHECK_EQ(watchers("/mnt"), 0);
	reset();
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/mnt/x", 0755), 0);
	CHECK_EQ(nrec, 1);
	CHECK_EQ(recs[0].c.dev, (long long)({ struct stat s2; uvfs_fstatat(p, AT_FDCWD, "/mnt", &s2, 0); s2.st_dev; }));
	CHECK_EQ(recs[0].c.dir, ino_of("/mnt"));

	SECTION("inotify and the hook together");
	int in = uvfs_inotify_init1(p, IN_NONBLOCK);
	int wd = uvfs_inotify_add_watch(p, in, "/d", IN_CREATE);
	CHECK(wd >= 0);
	CHECK_EQ(watchers("/"), 1);
	reset();
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/both", 0755), 0);
	CHECK_EQ(nrec, 1);
	char ev[256];
	CHECK(uvfs_read(p, in, ev, sizeof ev) > 0);

	SECTION("removal");
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
	CHECK_EQ(watchers("/"), 1); /* the inotify watch */
	CHECK_EQ(sbmask("/"), 0);
	CHECK_EQ(sbmask("/mnt"), 0);
	reset();
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/after", 0755), 0); /* watched by inotify: slow path, no hook */
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/mnt/after", 0755), 0);
	CHECK_EQ(uvfs_write(p, fd, "y", 1), 1);
	CHECK_EQ(nrec, 0);
	CHECK(uvfs_read(p, in, ev, sizeof ev) > 0);
	uvfs_close(p, in);
	CHECK_EQ(watchers("/"), 0);
	/* installed again */
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	CHECK_EQ(sbmask("/"), UVFS_CHANGE_ALL);
	CHECK_EQ(sbmask("/mnt"), UVFS_CHANGE_ALL);
	reset();
	CHECK_EQ(uvfs_write(p, fd, "y", 1), 1);
	CHECK_EQ(nrec, 1);
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
	CHECK_EQ(uvfs_umount2(p, "/mnt", 0), 0);
	uvfs_close(p, fd);
}

static void *slow_writer(void *arg)
{
	(void)arg;
	CHECK_EQ(uvfs_mkdirat(q, AT_FDCWD, "/slow", 0755), 0);
	return NULL;
}

static void test_removal_waits(void)
{
	SECTION("removal waits for a running call");
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	slow_hook = 1;
	__atomic_store_n(&hook_running, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hook_done, 0, __ATOMIC_RELAXED);
	pthread_t th;
	pthread_create(&th, NULL, slow_writer, NULL);
	while (!__atomic_load_n(&hook_running, __ATOMIC_ACQUIRE))
		usleep(1000);
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
	CHECK_EQ(__atomic_load_n(&hook_done, __ATOMIC_ACQUIRE), 1);
	pthread_join(th, NULL);
	slow_hook = 0;
	CHECK_EQ(sbmask("/"), 0);
}

static void *thread_changes(void *arg)
{
	struct uvfs_proc *me = uvfs_proc_create(fs, 0, 0);
	char path[64];
	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof path, "/t/%ld-%d", (long)(intptr_t)arg, i);
		uvfs_mkdirat(me, AT_FDCWD, path, 0755);
		uvfs_unlinkat(me, AT_FDCWD, path, AT_REMOVEDIR);
	}
	uvfs_proc_destroy(me);
	return NULL;
}

static long counted;
static void count_hook(const struct uvfs_change *c, void *arg)
{
	(void)c;
	__atomic_fetch_add((long *)arg, 1, __ATOMIC_RELAXED);
}

static void test_threads(void)
{
	SECTION("threads: one call per change");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t", 0777), 0);
	CHECK_EQ(uvfs_set_change_hook(fs, count_hook, &counted), 0);
	pthread_t th[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thread_changes, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(counted, 4 * 200 * 2);
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
}

/* ---- listeners (uvfs_add_change_listener) ---- */

struct lrec {
	int n;           /* calls */
	int kinds[8];    /* calls by kind */
	int ret;         /* what it returns */
	struct uvfs_proc *last_proc;
	int add_result, remove_result; /* of the calls made from inside */
	bool call_inside;
	struct uvfs_change_listener *self;
};

static int lfn(const struct uvfs_change *c, void *arg)
{
	struct lrec *r = arg;
	r->n++;
	if (c->kind > 0 && c->kind < 8)
		r->kinds[c->kind]++;
	r->last_proc = c->proc;
	if (r->call_inside) {
		struct uvfs_change_listener *h2 = NULL;
		r->add_result = uvfs_add_change_listener(fs, UVFS_CHANGE_ALL, lfn, r, &h2);
		r->remove_result = uvfs_remove_change_listener(fs, r->self);
		r->call_inside = false;
	}
	return r->ret;
}

static void lreset(struct lrec *r, int ret)
{
	memset(r, 0, sizeof(*r) - sizeof(r->self));
	r->ret = ret;
}

static void test_listener_errors(void)
{
	SECTION("listeners: errors, in the order checked");
	struct uvfs_change_listener *h = NULL;
	struct lrec a;
	lreset(&a, 0);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_ALL, NULL, &a, &h), -EINVAL);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_ALL, lfn, &a, NULL), -EINVAL);
	CHECK_EQ(uvfs_add_change_listener(fs, 0, lfn, &a, &h), -EINVAL);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_BIT(0), lfn, &a, &h), -EINVAL);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_BIT(7), lfn, &a, &h), -EINVAL);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE) | UVFS_CHANGE_WRITE_FIRST, lfn, &a,
					  &h),
		 -EINVAL);
	CHECK(h == NULL);
	CHECK_EQ(sbmask("/"), 0); /* nothing was added */
	CHECK_EQ(uvfs_remove_change_listener(fs, NULL), -EINVAL);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_WRITE_FIRST, lfn, &a, &h), 0);
	CHECK(h != NULL);
	CHECK_EQ(sbmask("/"), 0x80); /* first writes only: no kind wanted whole */
	CHECK_EQ(uvfs_remove_change_listener(fs, h), 0);
	CHECK_EQ(uvfs_remove_change_listener(fs, h), -ENOENT);
	CHECK_EQ(sbmask("/"), 0);
	CHECK_EQ(a.n, 0);
}

static void test_two_listeners(void)
{
	SECTION("listeners: two masks, each gets exactly its kinds, beside the hook");
	struct lrec a, b;
	struct uvfs_change_listener *ha, *hb;
	lreset(&a, 0);
	lreset(&b, 0);
	unsigned ma = UVFS_CHANGE_BIT(UVFS_CHANGE_CREATE) | UVFS_CHANGE_BIT(UVFS_CHANGE_UNLINK);
	unsigned mb = UVFS_CHANGE_BIT(UVFS_CHANGE_ATTR) | UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE);
	CHECK_EQ(uvfs_add_change_listener(fs, ma, lfn, &a, &ha), 0);
	CHECK_EQ(sbmask("/"), ma);
	CHECK_EQ(uvfs_add_change_listener(fs, mb, lfn, &b, &hb), 0);
	CHECK_EQ(sbmask("/"), ma | mb);
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	reset();
	CHECK_EQ(uvfs_mkdirat(q, AT_FDCWD, "/two", 0755), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/two/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "ab", 2), 2);
	CHECK_EQ(uvfs_pwrite(p, fd, "c", 1, 5), 1);
	CHECK_EQ(uvfs_fchmod(p, fd, 0600), 0);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/two/f", AT_FDCWD, "/two/g", 0), 0);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/two/g", AT_FDCWD, "/two/h", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/two/h", 0), 0);
	uvfs_close(p, fd);
	CHECK_EQ(a.n, 3);
	CHECK_EQ(a.kinds[UVFS_CHANGE_CREATE], 2);
	CHECK_EQ(a.kinds[UVFS_CHANGE_UNLINK], 1);
	CHECK_EQ(b.n, 3);
	CHECK_EQ(b.kinds[UVFS_CHANGE_WRITE], 2);
	CHECK_EQ(b.kinds[UVFS_CHANGE_ATTR], 1);
	CHECK_EQ(nrec, 8); /* the hook: every one, link and rename included */
	/* one goes: the other and the hook keep theirs */
	CHECK_EQ(uvfs_remove_change_listener(fs, ha), 0);
	CHECK_EQ(sbmask("/"), UVFS_CHANGE_ALL);
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
	CHECK_EQ(sbmask("/"), mb);
	lreset(&a, 0);
	lreset(&b, 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/two/d", 0755), 0);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/two/d", 0700, 0), 0);
	CHECK_EQ(a.n, 0);
	CHECK_EQ(b.n, 1);
	CHECK_EQ(b.kinds[UVFS_CHANGE_ATTR], 1);
	CHECK_EQ(uvfs_remove_change_listener(fs, hb), 0);
	CHECK_EQ(sbmask("/"), 0);
}

static void test_first_write(void)
{
	SECTION("listeners: first writes");
	struct lrec f, g;
	struct uvfs_change_listener *hf, *hg;
	lreset(&f, 1);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_WRITE_FIRST, lfn, &f, &hf), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/fw", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	char buf[8];
	struct stat st;
	for (int i = 0; i < 5; i++)
		CHECK_EQ(uvfs_pwrite(p, fd, "abcd", 4, i), 4);
	CHECK_EQ(f.n, 1); /* taken: the next ones wait for a read */
	CHECK(f.last_proc == p);
	CHECK_EQ(uvfs_pread(p, fd, buf, 2, 0), 2);
	CHECK_EQ(uvfs_write(p, fd, "x", 1), 1);
	CHECK_EQ(uvfs_write(p, fd, "x", 1), 1);
	CHECK_EQ(f.n, 2);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "/fw", &st, 0), 0); /* anyone's stat */
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 3);
	CHECK_EQ(uvfs_lseek(p, fd, 0, SEEK_CUR), 2); /* the position is no read of the inode */
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 3);
	CHECK_EQ(uvfs_lseek(p, fd, 0, SEEK_END), 8); /* the size is */
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 4);
	struct iovec iov = { buf, 1 };
	CHECK_EQ(uvfs_lseek(p, fd, 0, SEEK_SET), 0);
	CHECK_EQ(uvfs_readv(p, fd, &iov, 1), 1);
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 5);
	int avail = -1;
	CHECK_EQ(uvfs_ioctl(p, fd, FIONREAD, &avail), 0); /* FIONREAD reads the size */
	CHECK_EQ(avail, 8 - 1);
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 6);
	CHECK_EQ(uvfs_ftruncate(p, fd, 8), 0); /* a setattr re-arms too */
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 7);
	/* sendfile from it: a read */
	int out = uvfs_openat(p, AT_FDCWD, "/fw-out", O_CREAT | O_WRONLY, 0644);
	CHECK(out >= 0);
	off_t off = 0;
	CHECK_EQ(uvfs_sendfile(p, out, fd, &off, 4), 4);
	CHECK_EQ(f.n, 8); /* the write to /fw-out */
	CHECK_EQ(uvfs_pwrite(p, fd, "y", 1, 0), 1);
	CHECK_EQ(f.n, 9);
	uvfs_close(p, out);

	SECTION("listeners: first writes: another proc's write is reported, and re-arms the first proc's");
	int fdq = uvfs_openat(q, AT_FDCWD, "/fw", O_RDWR, 0);
	CHECK(fdq >= 0);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 10);
	CHECK(f.last_proc == q);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 10);
	CHECK_EQ(uvfs_pwrite(p, fd, "p", 1, 0), 1);
	CHECK_EQ(f.n, 11);
	CHECK(f.last_proc == p);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 12);

	SECTION("listeners: first writes: a report not taken is made again");
	f.ret = 0;
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 12); /* q's writes were taken before: still no read since */
	CHECK_EQ(uvfs_pread(q, fdq, buf, 1, 0), 1);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 14); /* not taken: each write */
	f.ret = 1;

	SECTION("listeners: first writes: two listeners, one does not take it");
	lreset(&g, 0);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_WRITE_FIRST, lfn, &g, &hg), 0);
	f.n = 0;
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1); /* a new listener hears the next write */
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 2);
	CHECK_EQ(g.n, 2);
	g.ret = 1;
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 3);
	CHECK_EQ(g.n, 3);

	SECTION("listeners: first writes beside an every-write hook");
	reset();
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	CHECK_EQ(uvfs_pread(q, fdq, buf, 1, 0), 1);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(nrec, 3);
	CHECK_EQ(f.n, 4);
	CHECK_EQ(g.n, 4);
	CHECK_EQ(uvfs_set_change_hook(fs, NULL, NULL), 0);
	CHECK_EQ(uvfs_remove_change_listener(fs, hg), 0);
	CHECK_EQ(uvfs_remove_change_listener(fs, hf), 0);
	/* no listener: nothing reported, nothing stored */
	CHECK_EQ(uvfs_pwrite(q, fdq, "q", 1, 0), 1);
	CHECK_EQ(f.n, 4);
	uvfs_close(q, fdq);
	uvfs_close(p, fd);
}

static void test_listener_inside(void)
{
	SECTION("listeners: add or remove from inside a listener: EDEADLK");
	struct lrec a;
	lreset(&a, 0);
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_ALL, lfn, &a, &a.self), 0);
	a.call_inside = true;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/inside", 0755), 0);
	CHECK_EQ(a.add_result, -EDEADLK);
	CHECK_EQ(a.remove_result, -EDEADLK);
	CHECK_EQ(a.n, 1);
	CHECK_EQ(uvfs_remove_change_listener(fs, a.self), 0);
	CHECK_EQ(sbmask("/"), 0);
}

/* Removal while another thread changes the tree: once remove returned, the
 * listener is never called again (its arg is freed: ASan would see a late
 * call), and the other listener keeps counting. */
static int churn_stop;
static void *churn(void *arg)
{
	struct uvfs_proc *me = uvfs_proc_create(fs, 0, 0);
	char path[64];
	int fd = uvfs_openat(me, AT_FDCWD, "/churn-file", O_CREAT | O_RDWR, 0644);
	for (long i = 0; !__atomic_load_n(&churn_stop, __ATOMIC_ACQUIRE); i++) {
		snprintf(path, sizeof path, "/churn/%ld", i);
		uvfs_mkdirat(me, AT_FDCWD, path, 0755);
		uvfs_unlinkat(me, AT_FDCWD, path, AT_REMOVEDIR);
		uvfs_pwrite(me, fd, "z", 1, 0);
		struct stat st;
		uvfs_fstat(me, fd, &st);
	}
	uvfs_close(me, fd);
	uvfs_proc_destroy(me);
	(void)arg;
	return NULL;
}

struct counter {
	long n; /* atomic */
	long after; /* calls after removal began: atomic */
	int *removed;
};

static int count_listener(const struct uvfs_change *c, void *arg)
{
	struct counter *k = arg;
	(void)c;
	__atomic_fetch_add(&k->n, 1, __ATOMIC_RELAXED);
	return 1;
}

static void test_removal_under_churn(void)
{
	SECTION("listeners: removal while another thread changes the tree");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/churn", 0777), 0);
	struct counter *gone = calloc(1, sizeof(*gone)), stays = { 0 };
	struct uvfs_change_listener *hg, *hs;
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_ALL & ~UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE),
					  count_listener, &stays, &hs),
		 0);
	__atomic_store_n(&churn_stop, 0, __ATOMIC_RELAXED);
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, churn, NULL);
	for (int round = 0; round < 50; round++) {
		unsigned m = (round & 1) ? UVFS_CHANGE_ALL
					 : (UVFS_CHANGE_ALL & ~UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE)) | UVFS_CHANGE_WRITE_FIRST;
		CHECK_EQ(uvfs_add_change_listener(fs, m, count_listener, gone, &hg), 0);
		long seen = __atomic_load_n(&stays.n, __ATOMIC_RELAXED);
		while (__atomic_load_n(&stays.n, __ATOMIC_RELAXED) < seen + 20)
			usleep(100);
		CHECK_EQ(uvfs_remove_change_listener(fs, hg), 0);
		long at_removal = __atomic_load_n(&gone->n, __ATOMIC_RELAXED);
		seen = __atomic_load_n(&stays.n, __ATOMIC_RELAXED);
		while (__atomic_load_n(&stays.n, __ATOMIC_RELAXED) < seen + 20)
			usleep(100);
		/* no call of the removed listener after its removal returned */
		CHECK_EQ(__atomic_load_n(&gone->n, __ATOMIC_RELAXED), at_removal);
	}
	CHECK(gone->n > 0);
	free(gone); /* a late call would be a use after free */
	long seen = __atomic_load_n(&stays.n, __ATOMIC_RELAXED);
	while (__atomic_load_n(&stays.n, __ATOMIC_RELAXED) < seen + 50)
		usleep(100);
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(uvfs_remove_change_listener(fs, hs), 0);
	CHECK_EQ(sbmask("/"), 0);
}

/* First writes across threads: a writer and a reader race; after both
 * stop, a stat then a write must still be reported (nothing stays armed
 * behind a read). */
static int race_stop;
static void *race_reader(void *arg)
{
	struct uvfs_proc *me = uvfs_proc_create(fs, 0, 0);
	struct stat st;
	char c;
	int fd = uvfs_openat(me, AT_FDCWD, "/race", O_RDONLY, 0);
	(void)arg;
	for (long i = 0; !__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE); i++) {
		if (i & 1)
			uvfs_fstat(me, fd, &st);
		else
			uvfs_pread(me, fd, &c, 1, 0);
	}
	uvfs_close(me, fd);
	uvfs_proc_destroy(me);
	return NULL;
}

static void test_first_write_race(void)
{
	SECTION("listeners: first writes against reads on another thread");
	struct counter k = { 0 };
	struct uvfs_change_listener *h;
	CHECK_EQ(uvfs_add_change_listener(fs, UVFS_CHANGE_WRITE_FIRST, count_listener, &k, &h), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/race", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	__atomic_store_n(&race_stop, 0, __ATOMIC_RELAXED);
	pthread_t th;
	pthread_create(&th, NULL, race_reader, NULL);
	long writes = 20000;
	for (long i = 0; i < writes; i++)
		CHECK_EQ(uvfs_pwrite(p, fd, "w", 1, i & 1023), 1);
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	long n = __atomic_load_n(&k.n, __ATOMIC_RELAXED);
	CHECK(n >= 1 && n <= writes, "%ld reports for %ld writes", n, writes);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "/race", &st, 0), 0);
	CHECK_EQ(uvfs_pwrite(p, fd, "w", 1, 0), 1);
	CHECK_EQ(__atomic_load_n(&k.n, __ATOMIC_RELAXED), n + 1);
	CHECK_EQ(uvfs_pwrite(p, fd, "w", 1, 0), 1);
	CHECK_EQ(__atomic_load_n(&k.n, __ATOMIC_RELAXED), n + 1);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_remove_change_listener(fs, h), 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	fs = uvfs_create(NULL);
	p = uvfs_proc_create(fs, 0, 0);
	q = uvfs_proc_create(fs, 0, 0);
	test_no_hook();
	test_kinds();
	test_removal_waits();
	test_threads();
	test_listener_errors();
	test_two_listeners();
	test_first_write();
	test_listener_inside();
	test_removal_under_churn();
	test_first_write_race();
	/* destroyed with a hook installed */
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	uvfs_proc_destroy(q);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return check_done();
}
