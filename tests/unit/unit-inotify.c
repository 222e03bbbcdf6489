// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-inotify - what the differential suite cannot ask the host: the
 * instance's limits (set small through uvfs_options), blocking reads and
 * poll woken from another thread, the per-superblock watcher count that the
 * fast path loads, pseudo files never reaching fsnotify, and teardown with
 * watches, events and sleeping readers left.
 */
#include <errno.h>
#include <poll.h>
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
static struct uvfs_proc *p;

static long watchers_of_root(void)
{
	return __atomic_load_n(&fs->root_mnt->m_sb->s_fsnotify_watchers, __ATOMIC_ACQUIRE);
}

static int read_events(int in, uint32_t *masks, int max)
{
	unsigned char buf[4096];
	ssize_t n = uvfs_read(p, in, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	int k = 0;
	for (ssize_t off = 0; off < n; k++) {
		struct inotify_event *e = (struct inotify_event *)(buf + off);
		if (k < max)
			masks[k] = e->mask;
		off += (ssize_t)sizeof(*e) + e->len;
	}
	return k;
}

static void test_limits(void)
{
	struct uvfs_options o = { .inotify_max_queued_events = 4, .inotify_max_user_watches = 3,
				  .inotify_max_user_instances = 2 };
	fs = uvfs_create(&o);
	p = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *q = uvfs_proc_create(fs, 1000, 1000);
	int a = uvfs_inotify_init1(p, IN_NONBLOCK);
	int b = uvfs_inotify_init1(p, IN_NONBLOCK);
	CHECK(a >= 0 && b >= 0);
	CHECK_EQ(uvfs_inotify_init1(p, 0), -EMFILE);
	/* another uid has its own count */
	int c = uvfs_inotify_init1(q, IN_NONBLOCK);
	CHECK(c >= 0);
	/* an instance closed gives its place back */
	CHECK_EQ(uvfs_close(p, b), 0);
	b = uvfs_inotify_init1(p, IN_NONBLOCK);
	CHECK(b >= 0);

	for (int i = 0; i < 5; i++) {
		char path[16];
		snprintf(path, sizeof path, "/f%d", i);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		uvfs_close(p, fd);
	}
	CHECK_EQ(uvfs_inotify_add_watch(p, a, "/f0", IN_MODIFY), 1);
	CHECK_EQ(uvfs_inotify_add_watch(p, a, "/f1", IN_MODIFY), 2);
	CHECK_EQ(uvfs_inotify_add_watch(p, b, "/f2", IN_MODIFY), 1);
	/* watches count per uid across instances */
	CHECK_EQ(uvfs_inotify_add_watch(p, a, "/f3", IN_MODIFY), -ENOSPC);
	CHECK_EQ(uvfs_inotify_add_watch(p, b, "/f3", IN_MODIFY), -ENOSPC);
	/* updating a watch costs nothing */
	CHECK_EQ(uvfs_inotify_add_watch(p, a, "/f0", IN_ACCESS | IN_MASK_ADD), 1);
	CHECK_EQ(uvfs_inotify_add_watch(q, c, "/f3", IN_MODIFY), 1);
	/* a refused watch still moved the cyclic wd on, as Linux's idr */
	CHECK_EQ(uvfs_inotify_rm_watch(p, a, 2), 0);
	CHECK_EQ(uvfs_inotify_add_watch(p, a, "/f3", IN_MODIFY), 4);
	CHECK_EQ(watchers_of_root(), 3); /* f0, f2, f3 (twice) */

	/* a queue of 4: four events, then one overflow */
	uint32_t m[16];
	int n = read_events(a, m, 16);
	CHECK_EQ(n, 1); /* the IN_IGNORED of wd 2 */
	int fd = uvfs_openat(p, AT_FDCWD, "/f0", O_RDWR, 0);
	char x[1];
	for (int i = 0; i < 10; i++) {
		uvfs_pwrite(p, fd, "x", 1, 0);
		uvfs_pread(p, fd, x, 1, 0);
	}
	int nread = 0;
	CHECK_EQ(uvfs_ioctl(p, a, FIONREAD, &nread), 0);
	CHECK_EQ(nread, 5 * (int)sizeof(struct inotify_event));
	n = read_events(a, m, 16);
	CHECK_EQ(n, 5);
	CHECK_EQ(m[4], IN_Q_OVERFLOW);
	CHECK_EQ(uvfs_read(p, a, x, 1), -EAGAIN);
	uvfs_close(p, fd);
	uvfs_proc_destroy(q);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

struct waker {
	int delay_ms;
	const char *path;
};

static void *make_event(void *arg)
{
	struct waker *w = arg;
	struct timespec ts = { 0, w->delay_ms * 1000000L };
	nanosleep(&ts, NULL);
	int fd = uvfs_openat(p, AT_FDCWD, w->path, O_CREAT | O_WRONLY, 0644);
	uvfs_close(p, fd);
	return NULL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_blocking(void)
{
	fs = uvfs_create(NULL);
	p = uvfs_proc_create(fs, 0, 0);
	int in = uvfs_inotify_init1(p, 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d", 0755), 0);
	CHECK_EQ(uvfs_inotify_add_watch(p, in, "/d", IN_CREATE), 1);

	/* a blocking read sleeps until another thread makes an event */
	pthread_t t;
	struct waker w = { 100, "/d/a" };
	double t0 = now();
	pthread_create(&t, NULL, make_event, &w);
	unsigned char buf[256];
	ssize_t n = uvfs_read(p, in, buf, sizeof buf);
	double dt = now() - t0;
	pthread_join(t, NULL);
	CHECK_EQ(n, (long)(sizeof(struct inotify_event) + 16));
	CHECK(dt >= 0.09, "woke after %.3fs", dt);
	struct inotify_event *e = (struct inotify_event *)buf;
	CHECK_EQ(e->mask, IN_CREATE);
	CHECK(!strcmp(e->name, "a"));

	/* poll: nothing within the timeout, then woken by the event */
	struct pollfd pf = { .fd = in, .events = POLLIN };
	CHECK_EQ(uvfs_poll(p, &pf, 1, 50), 0);
	w.path = "/d/b";
	pthread_create(&t, NULL, make_event, &w);
	t0 = now();
	CHECK_EQ(uvfs_poll(p, &pf, 1, 5000), 1);
	dt = now() - t0;
	pthread_join(t, NULL);
	CHECK_EQ(pf.revents, POLLIN);
	CHECK(dt < 4.0, "poll took %.3fs", dt);
	CHECK(uvfs_read(p, in, buf, sizeof buf) > 0);

	/* FIONBIO makes it non-blocking */
	int on = 1;
	CHECK_EQ(uvfs_ioctl(p, in, FIONBIO, &on), 0);
	CHECK_EQ(uvfs_read(p, in, buf, sizeof buf), -EAGAIN);

	/* the watcher count of the superblock follows the watched inodes */
	CHECK_EQ(watchers_of_root(), 1);
	CHECK_EQ(uvfs_inotify_add_watch(p, in, "/d/a", IN_OPEN), 2);
	CHECK_EQ(uvfs_inotify_add_watch(p, in, "/d/a", IN_OPEN), 2);
	int in2 = uvfs_inotify_init1(p, IN_NONBLOCK);
	CHECK_EQ(uvfs_inotify_add_watch(p, in2, "/d/a", IN_OPEN), 1);
	CHECK_EQ(watchers_of_root(), 2);
	CHECK_EQ(uvfs_close(p, in2), 0);
	CHECK_EQ(watchers_of_root(), 2);
	CHECK_EQ(uvfs_inotify_rm_watch(p, in, 2), 0);
	CHECK_EQ(watchers_of_root(), 1);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d/a", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d/b", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d", AT_REMOVEDIR), 0);
	CHECK_EQ(watchers_of_root(), 0);

	/* pipes are pseudo files: their reads and writes never look */
	int pfd[2];
	CHECK_EQ(uvfs_pipe2(p, pfd, 0), 0);
	struct file *f = fget(p, pfd[0]);
#ifndef UVFS_BASELINE_PSEUDO_NONOTIFY
	CHECK(f && (f->f_mode & FMODE_NONOTIFY));
#else
	/* seed 003 reverted: pipes pay the superblock check */
	CHECK(f && !(f->f_mode & FMODE_NONOTIFY));
#endif
	fput(f);
	struct file *fi = fget(p, in);
	CHECK(fi && !(fi->f_mode & FMODE_WRITE));
#ifndef UVFS_BASELINE_PSEUDO_NONOTIFY
	CHECK(fi->f_mode & FMODE_NONOTIFY);
#else
	CHECK(!(fi->f_mode & FMODE_NONOTIFY));
#endif
	fput(fi);
	CHECK_EQ(uvfs_write(p, pfd[1], "x", 1), 1);
	CHECK_EQ(uvfs_read(p, pfd[0], buf, 1), 1);
	uvfs_close(p, pfd[0]);
	uvfs_close(p, pfd[1]);
	uvfs_close(p, in);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

/* Threads make events on watched files while others add and remove watches
 * and close instances; nothing may leak or be touched after it is freed
 * (run under ASan). */
static volatile int stop;
static int inst[4];

static void *churn_events(void *arg)
{
	long id = (long)arg;
	char path[32];
	snprintf(path, sizeof path, "/w/f%ld", id);
	char b[1];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_RDWR, 0644);
		uvfs_write(p, fd, "x", 1);
		uvfs_pread(p, fd, b, 1, 0);
		uvfs_close(p, fd);
		uvfs_unlinkat(p, AT_FDCWD, path, 0);
	}
	return NULL;
}

static void *churn_watches(void *arg)
{
	long id = (long)arg;
	unsigned seed = (unsigned)id;
	unsigned char buf[4096];
	for (int i = 0; i < 3000; i++) {
		int in = __atomic_load_n(&inst[id], __ATOMIC_RELAXED);
		char path[32];
		snprintf(path, sizeof path, "/w/f%d", rand_r(&seed) % 4);
		int r = rand_r(&seed) % 4;
		if (r == 0)
			uvfs_inotify_add_watch(p, in, "/w", IN_ALL_EVENTS | (rand_r(&seed) % 2 ? IN_ONESHOT : 0));
		else if (r == 1)
			uvfs_inotify_add_watch(p, in, path, IN_ALL_EVENTS | IN_EXCL_UNLINK);
		else if (r == 2)
			uvfs_inotify_rm_watch(p, in, 1 + rand_r(&seed) % 8);
		else
			uvfs_read(p, in, buf, sizeof buf);
		if (i % 500 == 499) {
			int nin = uvfs_inotify_init1(p, IN_NONBLOCK);
			__atomic_store_n(&inst[id], nin, __ATOMIC_RELAXED);
			uvfs_close(p, in);
		}
	}
	return NULL;
}

static void test_concurrency(void)
{
	fs = uvfs_create(NULL);
	p = uvfs_proc_create(fs, 0, 0);
	uvfs_proc_set_nofile(p, 4096);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/w", 0777), 0);
	for (int i = 0; i < 4; i++)
		inst[i] = uvfs_inotify_init1(p, IN_NONBLOCK);
	pthread_t ev[4], wt[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&ev[i], NULL, churn_events, (void *)i);
	for (long i = 0; i < 4; i++)
		pthread_create(&wt[i], NULL, churn_watches, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(wt[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(ev[i], NULL);
	/* close half, leave the others with watches and queued events for
	 * uvfs_destroy */
	uvfs_close(p, inst[0]);
	uvfs_close(p, inst[1]);
	uvfs_unlinkat(p, AT_FDCWD, "/w/f0", 0);
	CHECK(1);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

/* A watch on a tmpfs mounted inside the tree goes at umount: IN_UNMOUNT,
 * IN_IGNORED; the other superblock's count is untouched. */
static void test_umount(void)
{
	fs = uvfs_create(NULL);
	p = uvfs_proc_create(fs, 0, 0);
	int in = uvfs_inotify_init1(p, IN_NONBLOCK);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m", 0755), 0);
	CHECK_EQ(uvfs_mount(p, "tmpfs", "/m", "tmpfs", 0, NULL), 0);
	CHECK_EQ(uvfs_inotify_add_watch(p, in, "/m", IN_CREATE), 1);
	CHECK_EQ(watchers_of_root(), 0);
	CHECK_EQ(uvfs_umount2(p, "/m", 0), 0);
	uint32_t m[4];
	CHECK_EQ(read_events(in, m, 4), 2);
	CHECK_EQ(m[0], IN_UNMOUNT | IN_ISDIR);
	CHECK_EQ(m[1], IN_IGNORED);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

int main(int argc, char **argv)
{
	/* an argument runs one test: limits, blocking, umount, concurrency */
	const char *only = argc > 1 ? argv[1] : NULL;
	if (!only || !strcmp(only, "limits"))
		test_limits();
	if (!only || !strcmp(only, "blocking"))
		test_blocking();
	if (!only || !strcmp(only, "umount"))
		test_umount();
	if (!only || !strcmp(only, "concurrency"))
		test_concurrency();
	return check_done();
}
