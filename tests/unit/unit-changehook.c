// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-changehook - uvfs_set_change_hook: every kind of change calls the hook
 * once, with the right kind, directory, names, inodes and the proc that made
 * it, after the change and before the call returns, outside the core's locks
 * (the hook changes the same directory again); nothing is reported without a
 * hook, for reads, or for calls that failed; the hook bias on the superblocks'
 * watcher count (and on a tmpfs mounted while the hook is on) comes and goes
 * with the hook; removal waits for a call running on another thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
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
	/* destroyed with a hook installed */
	CHECK_EQ(uvfs_set_change_hook(fs, hook, &recs), 0);
	uvfs_proc_destroy(q);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return check_done();
}
