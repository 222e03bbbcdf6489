// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-mount: the lifetimes of mounts.
 *
 *   - a mount is busy (EBUSY) while an fd, a cwd or a mount on top of it
 *     holds it, and not once they are gone; stacked mounts come off in
 *     order; a lazily detached mount keeps working for whoever holds it and
 *     goes with its last reference, even after the mount it sat on;
 *   - two threads unmounting the same mount at once: one wins, the other
 *     gets EINVAL (the mount is no longer in the tree);
 *   - path walks through a mount while it is detached and a new one
 *     mounted: every lookup finds one of the two file systems or nothing.
 * Crashes here are use-after-free bugs; the ASan build names them.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>
#include <sys/mount.h>

static void test_busy_and_stacked(void)
{
	SECTION("busy, stacked, lazily detached");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *q = uvfs_proc_create(fs, 0, 0);
	struct stat st, root;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/", &root, 0), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m", 0755), 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EINVAL); /* not a mount */
	CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, NULL), 0); /* A */
	int a = uvfs_openat(p, AT_FDCWD, "/m/a", O_CREAT | O_RDWR, 0600);
	CHECK(a >= 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY); /* the fd */
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_chdir(q, "/m"), 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY); /* the cwd */
	CHECK_EQ(uvfs_chdir(q, "/"), 0);
	int o = uvfs_openat(p, AT_FDCWD, "/m", O_PATH, 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY); /* an O_PATH fd of its root */
	CHECK_EQ(uvfs_close(p, o), 0);

	CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, NULL), 0); /* B on A */
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/m/a", &st, 0), ENOENT); /* A is hidden */
	int b = uvfs_openat(p, AT_FDCWD, "/m/b", O_CREAT | O_RDWR, 0600);
	CHECK(b >= 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY); /* B, busy with b */
	CHECK_EQ(uvfs_umount2(p, "/m", MNT_DETACH), 0); /* B goes lazily */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/m/a", &st, 0), 0); /* A again */
	CHECK_EQ(uvfs_write(p, b, "b", 1), 1);               /* B still works */
	CHECK_EQ(uvfs_umount2(p, "/m", 0), 0); /* A: not busy, B is not on it any more */
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/m/a", &st, 0), ENOENT);
	urcu_memb_barrier(); /* A's deferred frees have run */
	CHECK_EQ(uvfs_fstat(p, b, &st), 0);
	CHECK_EQ(st.st_size, 1);
	/* B's last reference: it must not touch A, which is gone (a use
	 * after free of A's root dentry, B's old mountpoint, until fixed) */
	CHECK_EQ(uvfs_close(p, b), 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EINVAL);

	/* a tree of mounts detached at once, held by a cwd in the lowest */
	CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, NULL), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m/sub", 0755), 0);
	CHECK_EQ(uvfs_mount(p, "none", "/m/sub", "tmpfs", 0, NULL), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m/sub/deeper", 0755), 0);
	/* attached: ".." at a mount's root crosses to the mountpoint's parent */
	CHECK_EQ(uvfs_chdir(q, "/m/sub/deeper"), 0);
	CHECK_EQ(uvfs_chdir(q, "../.."), 0);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "sub/deeper", &st, 0), 0); /* at /m */
	CHECK_EQ(uvfs_chdir(q, ".."), 0);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, ".", &st, 0), 0);
	CHECK(st.st_ino == root.st_ino && st.st_dev == root.st_dev); /* at / */
	CHECK_EQ(uvfs_chdir(q, "/m/sub/deeper"), 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY); /* a mount below */
	CHECK_EQ(uvfs_umount2(p, "/m", MNT_DETACH), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/m/sub", &st, 0), ENOENT);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, ".", &st, 0), 0);
	int c = uvfs_openat(q, AT_FDCWD, "new", O_CREAT | O_RDWR, 0600);
	CHECK(c >= 0);
	/* ".." stops at the root of a detached mount: a lazy umount of a tree
	 * disconnects each mount of it from its parent (Linux's
	 * disconnect_mount; checked on the host: the cwd stays at the root of
	 * the tmpfs of /m/sub).  uvfs let it climb back to "/" of the live
	 * tree (reported; the core work on umount_tree_one addresses it). */
	CHECK_EQ(uvfs_chdir(q, "../../.."), 0);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "deeper", &st, 0), 0);
	CHECK_ERR(uvfs_fstatat(q, AT_FDCWD, "sub", &st, 0), ENOENT);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, ".", &st, 0), 0);
	CHECK(st.st_ino != root.st_ino || st.st_dev != root.st_dev);
	CHECK_EQ(uvfs_close(q, c), 0);
	uvfs_proc_destroy(q); /* the last reference of the detached tree */
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/m", AT_REMOVEDIR), 0);
	uvfs_destroy(fs);
}

/* ---- two threads unmounting one mount ---- */

static struct uvfs *rfs;
static int rstop; /* polled by the threads: atomic loads and stores */
struct racer {
	struct uvfs_proc *p;
	unsigned long ok, einval, other, mounted;
	int flags;
};

static void *umount_racer(void *arg)
{
	struct racer *r = arg;
	while (!__atomic_load_n(&rstop, __ATOMIC_RELAXED)) {
		int e = uvfs_umount2(r->p, "/m", r->flags);
		if (e == 0)
			r->ok++;
		else if (e == -EINVAL || e == -EBUSY)
			r->einval++;
		else
			r->other++;
		/* keep a mount there for the others to fight over */
		if (uvfs_mount(r->p, "none", "/m", "tmpfs", 0, NULL) == 0)
			r->mounted++;
	}
	return NULL;
}

static void *walker(void *arg)
{
	struct racer *r = arg;
	while (!__atomic_load_n(&rstop, __ATOMIC_RELAXED)) {
		struct stat st;
		int e = uvfs_fstatat(r->p, AT_FDCWD, "/m/f", &st, 0);
		if (e == 0 || e == -ENOENT)
			r->ok++;
		else
			r->other++;
		int fd = uvfs_openat(r->p, AT_FDCWD, "/m/f", O_CREAT | O_RDWR, 0600);
		if (fd >= 0) {
			uvfs_write(r->p, fd, "x", 1);
			uvfs_close(r->p, fd);
		} else if (fd != -ENOENT) {
			r->other++;
		}
		int dfd = uvfs_openat(r->p, AT_FDCWD, "/m", O_RDONLY | O_DIRECTORY, 0);
		if (dfd >= 0) {
			uvfs_fstatat(r->p, dfd, "f", &st, 0);
			uvfs_fstatat(r->p, dfd, "..", &st, 0);
			uvfs_close(r->p, dfd);
		}
	}
	return NULL;
}

static void test_umount_races(void)
{
	SECTION("concurrent umounts of one mount, walks through it");
	rfs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(rfs, 0, 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m", 0755), 0);
	CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, NULL), 0);
	enum { NU = 2, NWALK = 2 };
	struct racer r[NU + NWALK];
	pthread_t th[NU + NWALK];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < NU + NWALK; i++) {
		r[i].p = uvfs_proc_create(rfs, 0, 0);
		r[i].flags = i == 1 ? MNT_DETACH : 0;
		pthread_create(&th[i], NULL, i < NU ? umount_racer : walker, &r[i]);
	}
	struct timespec ts = { 0, 400 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__atomic_store_n(&rstop, 1, __ATOMIC_RELAXED);
	unsigned long ok = 0, einval = 0, other = 0, mounted = 0, walks = 0, wother = 0;
	for (int i = 0; i < NU + NWALK; i++) {
		pthread_join(th[i], NULL);
		if (i < NU) {
			ok += r[i].ok;
			einval += r[i].einval;
			other += r[i].other;
			mounted += r[i].mounted;
		} else {
			walks += r[i].ok;
			wother += r[i].other;
		}
	}
	printf("   %lu mounts, %lu umounts, %lu EINVAL/EBUSY, %lu other; %lu lookups, %lu other\n", mounted, ok,
	       einval, other, walks, wother);
	CHECK(ok > 0 && mounted > 0, "%lu umounts, %lu mounts", ok, mounted);
	CHECK_EQ(other, 0);
	CHECK_EQ(wother, 0);
	/* every mount comes off; those under detached trees go with their
	 * trees (LeakSanitizer checks that at uvfs_destroy) */
	for (int i = 0; i < NU + NWALK; i++)
		uvfs_proc_destroy(r[i].p);
	unsigned long left = 0;
	int e;
	while ((e = uvfs_umount2(p, "/m", 0)) == 0)
		left++;
	CHECK_ERR(e, EINVAL);
	/* each successful umount took one mount or more (a lazy umount of a
	 * mount that got another stacked on it meanwhile takes both) */
	CHECK(ok + left <= mounted + 1, "%lu umounts + %lu left > %lu mounts", ok, left, mounted + 1);
	uvfs_destroy(rfs);
}

/* Negative names cached in a superblock leave the instance's count when it
 * is torn down: the count caps negative caching instance-wide, so a leak
 * would end it after enough mounts come and go. */
static void test_negative_count_after_umount(void)
{
	SECTION("negative dentries of an unmounted tmpfs leave the count");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	struct stat st;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m", 0755), 0);
	long before = bcounter_sum(&fs->nr_negative);
	for (int round = 0; round < 3; round++) {
		CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, NULL), 0);
		CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m/d", 0755), 0);
		char name[32];
		for (int i = 0; i < 50; i++) {
			snprintf(name, sizeof(name), "/m/%s%d", i & 1 ? "d/" : "", i);
			CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, name, &st, 0), ENOENT);
		}
		CHECK(bcounter_sum(&fs->nr_negative) >= before + 50);
		CHECK_EQ(uvfs_umount2(p, "/m", round == 1 ? MNT_DETACH : 0), 0);
		CHECK_EQ(bcounter_sum(&fs->nr_negative), before);
	}
	uvfs_destroy(fs);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_busy_and_stacked();
	test_umount_races();
	test_negative_count_after_umount();
	return check_done();
}
