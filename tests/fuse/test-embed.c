/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-embed - the embedding API of the FUSE frontend (uvfs_fuse.h): an
 * application that uses uvfs in-process exposes its tree through FUSE, keeps
 * changing it through the library, and tells the kernel through the
 * invalidation seam (uvfs_fuse_notify_inval_entry/_inode).
 *
 * Checks: changes made through the library show on the mount; a name the
 * kernel cached as missing, and a size it cached, are stale until the
 * notification (or the 1 s timeout) and right at once after it; files created
 * through the mount are seen by the library; uvfs_fuse_exit() ends the loop
 * and uvfs_fuse_destroy() unmounts.  Skips without root or /dev/fuse.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <uvfs.h>
#include "uvfs_fuse.h"

static int passed, failed, skipped;

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "PASS" : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

static void *loop_main(void *arg)
{
	static int r;

	r = uvfs_fuse_loop(arg);
	return &r;
}

static ssize_t lib_write(struct uvfs_proc *p, const char *path, const char *data, int flags)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_WRONLY | O_CREAT | flags, 0644);
	ssize_t r;

	if (fd < 0)
		return fd;
	r = uvfs_write(p, fd, data, strlen(data));
	uvfs_close(p, fd);
	return r;
}

/* Wait up to secs for cond to hold (the watcher works asynchronously). */
#define WITHIN(secs, cond)                                                   \
	({                                                                   \
		struct timespec t0_, t1_;                                    \
		bool ok_ = false;                                            \
		clock_gettime(CLOCK_MONOTONIC, &t0_);                        \
		for (;;) {                                                   \
			if (cond) {                                          \
				ok_ = true;                                  \
				break;                                       \
			}                                                    \
			clock_gettime(CLOCK_MONOTONIC, &t1_);                \
			if (t1_.tv_sec - t0_.tv_sec + (t1_.tv_nsec - t0_.tv_nsec) / 1e9 > (secs)) \
				break;                                       \
			usleep(2000);                                        \
		}                                                            \
		ok_;                                                         \
	})

static ssize_t host_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

int main(void)
{
	char dir[] = "/tmp/uvfs-embed.XXXXXX", path[256], buf[256];
	char *argv[] = { "test-embed", "-o", "allow_other", NULL };
	struct uvfs *fs;
	struct uvfs_proc *p;
	struct uvfs_fuse *uf;
	struct stat st, root;
	struct statfs sf;
	pthread_t th;
	void *ret;
	int err = 0, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/fuse", O_RDWR);
	if (geteuid() != 0 || fd < 0) {
		printf("SKIP embedding API: %s\n", geteuid() != 0 ? "not root" : "/dev/fuse cannot be opened");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	close(fd);
	if (!mkdtemp(dir)) {
		printf("FAIL mkdtemp\n0 passed, 1 failed\n");
		return 1;
	}
	fs = uvfs_create(NULL);
	p = fs ? uvfs_proc_create(fs, 0, 0) : NULL;
	if (!p) {
		printf("FAIL uvfs_create\n0 passed, 1 failed\n");
		return 1;
	}
	check(lib_write(p, "/before", "made before the mount\n", O_TRUNC) > 0, "library: a file before mounting");

	uf = uvfs_fuse_new(fs, dir, 3, argv, &err);
	check(uf != NULL, "uvfs_fuse_new mounts an existing instance");
	if (!uf) {
		printf("   error %d\n", err);
		goto out;
	}
	check(uvfs_fuse_new(fs, dir, 3, argv, &err) == NULL && err == -EBUSY, "a second mount on the same point: EBUSY");
	{
		char *bad[] = { "x", "-o", "size=1m", NULL };

		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL,
		      "size= with an instance of the caller's: EINVAL");
	}
	pthread_create(&th, NULL, loop_main, uf);
	check(statfs(dir, &sf) == 0 && sf.f_type == 0x65735546, "the loop serves the mount");

	snprintf(path, sizeof(path), "%s/before", dir);
	check(host_read(path, buf, sizeof(buf)) > 0 && strcmp(buf, "made before the mount\n") == 0,
	      "mount: reads what the library wrote");

	/* a name the kernel saw missing, then created through the library */
	snprintf(path, sizeof(path), "%s/late", dir);
	check(stat(path, &st) < 0 && errno == ENOENT, "mount: late is missing");
	lib_write(p, "/late", "late\n", 0);
	if (stat(path, &st) < 0 && errno == ENOENT)
		printf("   (as expected: the kernel still caches late as missing, for up to 1 s)\n");
	uvfs_fstatat(p, AT_FDCWD, "/", &root, 0);
	check(uvfs_fuse_notify_inval_entry(uf, root.st_ino, "late") == 0 && stat(path, &st) == 0,
	      "notify_inval_entry: the new name shows at once");

	/* a size the kernel cached, changed through the library */
	snprintf(path, sizeof(path), "%s/before", dir);
	stat(path, &st);
	lib_write(p, "/before", "appended through the library\n", O_APPEND);
	{
		struct stat lst;

		uvfs_fstatat(p, AT_FDCWD, "/before", &lst, 0);
		if (stat(path, &st) == 0 && st.st_size != lst.st_size)
			printf("   (as expected: the kernel still caches the old size, for up to 1 s)\n");
		check(uvfs_fuse_notify_inval_inode(uf, lst.st_ino) == 0 && stat(path, &st) == 0 &&
		      st.st_size == lst.st_size, "notify_inval_inode: the new size shows at once");
		check(host_read(path, buf, sizeof(buf)) == lst.st_size, "mount: reads the new data");
	}
	/* removed through the library */
	uvfs_unlinkat(p, AT_FDCWD, "/late", 0);
	snprintf(path, sizeof(path), "%s/late", dir);
	check(uvfs_fuse_notify_inval_entry(uf, root.st_ino, "late") == 0 && stat(path, &st) < 0 && errno == ENOENT,
	      "notify_inval_entry: a removed name goes at once");
	check(uvfs_fuse_notify_inval_entry(uf, 999999, "x") == 0, "notify about an inode the kernel never saw: 0");

	/* the other way: made through the mount, seen by the library */
	snprintf(path, sizeof(path), "%s/from-mount", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	check(fd >= 0 && write(fd, "m", 1) == 1, "mount: create and write");
	if (fd >= 0)
		close(fd);
	check(uvfs_fstatat(p, AT_FDCWD, "/from-mount", &st, 0) == 0 && st.st_size == 1 &&
	      (st.st_mode & 07777) == 0600, "library: sees the file made through the mount");

	uvfs_fuse_exit(uf);
	pthread_join(th, &ret);
	check(*(int *)ret == 0, "uvfs_fuse_exit: the loop returns 0");
	uvfs_fuse_destroy(uf);
	check(statfs(dir, &sf) == 0 && sf.f_type != 0x65735546, "uvfs_fuse_destroy: unmounted");
	check(uvfs_fstatat(p, AT_FDCWD, "/from-mount", &st, 0) == 0, "the instance outlives the frontend");

	/* -o watch: the same without calling the seam, with caches that would
	 * otherwise hold for a minute */
	{
		char *wargv[] = { "test-embed", "-o", "watch,entry_timeout=60,attr_timeout=60,negative_timeout=60", NULL };
		struct stat lst;

		uf = uvfs_fuse_new(fs, dir, 3, wargv, &err);
		check(uf != NULL, "-o watch: mounted again");
		if (!uf)
			goto out;
		pthread_create(&th, NULL, loop_main, uf);
		uvfs_mkdirat(p, AT_FDCWD, "/sub", 0755);
		snprintf(path, sizeof(path), "%s/sub/w", dir);
		check(stat(path, &st) < 0 && errno == ENOENT, "-o watch: sub/w is missing (cached as missing)");
		lib_write(p, "/sub/w", "one\n", 0);
		check(WITHIN(5, stat(path, &st) == 0), "-o watch: a name created through the library shows");
		lib_write(p, "/sub/w", "two, longer\n", O_APPEND);
		uvfs_fstatat(p, AT_FDCWD, "/sub/w", &lst, 0);
		check(WITHIN(5, stat(path, &st) == 0 && st.st_size == lst.st_size),
		      "-o watch: a size changed through the library shows");
		check(host_read(path, buf, sizeof(buf)) == lst.st_size && strcmp(buf, "one\ntwo, longer\n") == 0,
		      "-o watch: and the data");
		uvfs_fchmodat(p, AT_FDCWD, "/sub/w", 0600, 0);
		check(WITHIN(5, stat(path, &st) == 0 && (st.st_mode & 07777) == 0600),
		      "-o watch: a mode changed through the library shows");
		uvfs_renameat2(p, AT_FDCWD, "/sub/w", AT_FDCWD, "/sub/w2", 0);
		snprintf(buf, sizeof(buf), "%s/sub/w2", dir);
		check(WITHIN(5, stat(path, &st) < 0 && stat(buf, &st) == 0),
		      "-o watch: a rename through the library shows");
		uvfs_unlinkat(p, AT_FDCWD, "/sub/w2", 0);
		check(WITHIN(5, stat(buf, &st) < 0 && errno == ENOENT), "-o watch: an unlink through the library shows");
		/* changes through the mount itself stay cached (no self-invalidation
		 * storm) and right */
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		check(fd >= 0 && write(fd, "abc", 3) == 3 && close(fd) == 0 && stat(path, &st) == 0 && st.st_size == 3,
		      "-o watch: changes through the mount");
		uvfs_fuse_exit(uf);
		pthread_join(th, &ret);
		uvfs_fuse_destroy(uf);
		check(statfs(dir, &sf) == 0 && sf.f_type != 0x65735546, "-o watch: unmounted");
	}
out:
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	if (statfs(dir, &sf) == 0 && sf.f_type == 0x65735546)
		umount2(dir, MNT_DETACH);
	rmdir(dir);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
