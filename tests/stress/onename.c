// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stress-onename: creates and unlinks of one name relative to a directory
 * fd while a second thread makes the fd table shared and closes that fd.
 *
 *   stress-onename [-d SECONDS]
 *
 * A create or unlink through a directory fd of a table only its thread has
 * used borrows the directory from the fd's file, with no reference, for
 * as long as the table's single-thread section lasts (namei.c,
 * parent_single_borrow).  Each round here makes a fresh proc, mounts a
 * tmpfs, opens its root and detaches the mount, so that the fd's file holds
 * the last reference on the mount: worker A creates, writes, closes and
 * unlinks names through the fd, and thread B, at a random moment, makes
 * its first call on the same proc (the handshake that ends the owner's
 * single-thread mode) and closes the fd, while thread C, of a proc of its
 * own, creates and unlinks in the same directory, so that A's directory
 * lock is often taken and A's borrow becomes references before it waits
 * (parent_unborrow).  A borrow that outlived the
 * section would run on a superblock torn down under it (ASan, and the
 * teardown's reference check, report it); otherwise every call of A
 * returns 0, EEXIST (a name A made but could not unlink, the fd being
 * closed meanwhile) or EBADF.
 */
#include <uvfs.h>
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>

static double duration = 2.0;

struct round {
	struct uvfs_proc *p, *q;
	int dfd, qfd;
	long c_bad;
	unsigned delay_us;
	int close_ret;
	long made, removed, bad;
	char mp[32];
	int opened, go, closed; /* atomic */
};

static void wait_for(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void *worker(void *arg)
{
	struct round *r = arg;
	char name[32];
	/* the first call on the proc's table: this thread owns it */
	r->dfd = uvfs_openat(r->p, AT_FDCWD, r->mp, O_RDONLY | O_DIRECTORY, 0);
	__atomic_store_n(&r->opened, 1, __ATOMIC_RELEASE);
	if (r->dfd < 0)
		return NULL;
	wait_for(&r->go);
	for (int i = 0; i < 400 && !__atomic_load_n(&r->closed, __ATOMIC_ACQUIRE); i++) {
		snprintf(name, sizeof(name), "n%d", i % 8);
		int fd = uvfs_openat(r->p, r->dfd, name, O_CREAT | O_EXCL | O_RDWR, 0600);
		if (fd == -EBADF || fd == -EEXIST)
			continue; /* closed; or left by an unlink that met the close */
		if (fd < 0) {
			r->bad++;
			printf("FAIL create %s: %s\n", name, strerror(-fd));
			continue;
		}
		r->made++;
		if (uvfs_write(r->p, fd, "x", 1) != 1)
			r->bad++;
		uvfs_close(r->p, fd);
		int e = uvfs_unlinkat(r->p, r->dfd, name, 0);
		if (e == 0)
			r->removed++;
		else if (e != -EBADF) {
			r->bad++;
			printf("FAIL unlink %s: %s\n", name, strerror(-e));
		}
	}
	return NULL;
}

/* C: the directory's lock taken often, from a table of its own */
static void *contender(void *arg)
{
	struct round *r = arg;
	char name[32];
	wait_for(&r->go);
	for (int i = 0; !__atomic_load_n(&r->closed, __ATOMIC_ACQUIRE) || i < 50; i++) {
		snprintf(name, sizeof(name), "c%d", i % 4);
		int fd = uvfs_openat(r->q, r->qfd, name, O_CREAT | O_RDWR, 0600);
		if (fd < 0) {
			r->c_bad++;
			continue;
		}
		uvfs_close(r->q, fd);
		if (uvfs_unlinkat(r->q, r->qfd, name, 0))
			r->c_bad++;
	}
	return NULL;
}

static void *closer(void *arg)
{
	struct round *r = arg;
	wait_for(&r->go);
	usleep(r->delay_us);
	r->close_ret = uvfs_close(r->p, r->dfd);
	__atomic_store_n(&r->closed, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	int c;
	while ((c = getopt(argc, argv, "d:")) != -1) {
		if (c == 'd') {
			duration = atof(optarg);
		} else {
			fprintf(stderr, "usage: stress-onename [-d SECONDS]\n");
			return 2;
		}
	}
	struct uvfs *vfs = uvfs_create(NULL);
	CHECK(vfs != NULL);
	struct uvfs_proc *admin = uvfs_proc_create(vfs, 0, 0);
	CHECK(admin != NULL);
	srand((unsigned)time(NULL));
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long rounds = 0, made = 0, left_total = 0;
	do {
		struct round r = { .p = uvfs_proc_create(vfs, 0, 0), .delay_us = (unsigned)(rand() % 400) };
		CHECK(r.p != NULL);
		snprintf(r.mp, sizeof(r.mp), "/m%ld", rounds);
		CHECK_EQ(uvfs_mkdirat(admin, AT_FDCWD, r.mp, 0755), 0);
		CHECK_EQ(uvfs_mount(admin, "tmpfs", r.mp, "tmpfs", 0, NULL), 0);
		r.q = uvfs_proc_create(vfs, 0, 0);
		CHECK(r.q != NULL);
		pthread_t a, b, cth;
		pthread_create(&a, NULL, worker, &r);
		pthread_create(&b, NULL, closer, &r);
		wait_for(&r.opened);
		CHECK(r.dfd >= 0, "open %s: %d", r.mp, r.dfd);
		r.qfd = uvfs_openat(r.q, AT_FDCWD, r.mp, O_RDONLY | O_DIRECTORY, 0);
		CHECK(r.qfd >= 0, "open %s: %d", r.mp, r.qfd);
		pthread_create(&cth, NULL, contender, &r);
		/* the fd's file now holds the mount's last reference */
		CHECK_EQ(uvfs_umount2(admin, r.mp, MNT_DETACH), 0);
		__atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		pthread_join(cth, NULL);
		CHECK_EQ(r.close_ret, 0);
		CHECK_EQ(r.c_bad, 0);
		CHECK_EQ(uvfs_close(r.q, r.qfd), 0);
		uvfs_proc_destroy(r.q);
		CHECK_EQ(r.bad, 0);
		CHECK(r.removed <= r.made, "removed %ld of %ld", r.removed, r.made);
		made += r.made;
		left_total += r.made - r.removed;
		uvfs_proc_destroy(r.p);
		CHECK_EQ(uvfs_unlinkat(admin, AT_FDCWD, r.mp, AT_REMOVEDIR), 0);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < duration);
	printf("%ld rounds, %ld files made, %ld left in detached mounts\n", rounds, made, left_total);
	uvfs_proc_destroy(admin);
	uvfs_destroy(vfs);
	return check_done();
}
