/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-embed - the embedding API of the FUSE frontend (uvfs_fuse.h): an
 * application that uses uvfs in-process exposes its tree through FUSE, keeps
 * changing it through the library, and tells the kernel through the
 * invalidation seam (uvfs_fuse_notify_inval_entry/_inode).
 *
 * Checks: with -o nowatch, changes made through the library show on the
 * mount; a name the kernel cached as missing, and a size it cached, are stale
 * until the notification (or the 1 s timeout) and right at once after it;
 * files created through the mount are seen by the library; uvfs_fuse_exit()
 * ends the loop and uvfs_fuse_destroy() unmounts.  Then, by default (the
 * change hook, exact invalidation, day-long timeouts and keep_cache): a create,
 * write, truncate, chmod, chown, utimes, link, rename (plain, replacing,
 * across directories, exchange), unlink, mkdir and rmdir made through the
 * library are seen through the mount as soon as the library call returns,
 * with no wait; the mount's own changes stay right; 300 library writes and
 * renames while a program keeps looking leave nothing stale; with the hook
 * taken away, names, failed lookups, attributes and data stay cached past
 * 1 s (the caches are long indeed); a library change after uvfs_fuse_exit
 * returns at once.  Bad timeouts and writeback with the caller's instance
 * are EINVAL.  Skips without root or /dev/fuse.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <uvfs.h>
#include "uvfs_fuse.h"
#include "internal.h"

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

/* A program on the mount looking at the same names all the time, so that
 * its lookups and getattrs race with the library's changes. */
static volatile int racer_stop;
static char racer_dir[256];

static void *racer_main(void *arg)
{
	char a[300], b[300];
	struct stat st;

	(void)arg;
	snprintf(a, sizeof(a), "%s/race/a", racer_dir);
	snprintf(b, sizeof(b), "%s/race/b", racer_dir);
	while (!racer_stop) {
		stat(a, &st);
		stat(b, &st);
	}
	return NULL;
}

/* Whether a listing of dir on the mount has name. */
static bool host_listed(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, name) == 0)
			found = true;
	closedir(d);
	return found;
}

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
	char *argv[] = { "test-embed", "-o", "allow_other,nowatch", NULL };
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
		bad[2] = "attr_timeout=-1";
		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL,
		      "a negative timeout: EINVAL");
		bad[2] = "default_permissions,writeback";
		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL,
		      "writeback with an instance of the caller's: EINVAL");
		bad[2] = "entry_timeout=1x";
		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL,
		      "a timeout that is not a number: EINVAL");
		bad[2] = "spin=-1";
		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL, "a negative spin: EINVAL");
		bad[2] = "spin=5ms";
		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL,
		      "a spin that is not a number of microseconds: EINVAL");
		bad[2] = "spin=1000001";
		check(uvfs_fuse_new(fs, "/tmp", 3, bad, &err) == NULL && err == -EINVAL,
		      "a spin over a second: EINVAL");
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

	/* locks (-o locks, the default when embedding): uvfs keeps the mount's,
	 * so the library's and the mount's conflict both ways */
	{
		int lfd = uvfs_openat(p, AT_FDCWD, "/from-mount", O_RDWR, 0);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
		struct flock ml = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 1 };

		check(lfd >= 0 && uvfs_fcntl(p, lfd, F_SETLK, (unsigned long)&fl) == 0, "library: a write lock on 0+10");
		fd = open(path, O_RDWR);
		check(fd >= 0 && fcntl(fd, F_SETLK, &ml) < 0 && errno == EAGAIN, "mount: the library's lock conflicts");
		check(fcntl(fd, F_GETLK, &ml) == 0 && ml.l_type == F_WRLCK && ml.l_start == 0 && ml.l_len == 10,
		      "mount: F_GETLK shows the library's lock");
		fl.l_type = F_UNLCK;
		uvfs_fcntl(p, lfd, F_SETLK, (unsigned long)&fl);
		ml = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 20 };
		check(fcntl(fd, F_SETLK, &ml) == 0, "mount: the lock once the library's went");
		fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 20, .l_len = 1 };
		check(uvfs_fcntl(p, lfd, F_SETLK, (unsigned long)&fl) == -EAGAIN, "library: the mount's lock conflicts");
		close(fd); /* FLUSH: the owner's locks go */
		check(uvfs_fcntl(p, lfd, F_SETLK, (unsigned long)&fl) == 0, "library: the mount's lock went with its close");
		fd = open(path, O_RDWR);
		check(fd >= 0 && flock(fd, LOCK_EX) == 0 && uvfs_flock(p, lfd, LOCK_EX | LOCK_NB) == -EWOULDBLOCK,
		      "flock: the mount's conflicts with the library's");
		check(flock(fd, LOCK_UN) == 0 && uvfs_flock(p, lfd, LOCK_EX | LOCK_NB) == 0 &&
		      flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK, "flock: and the library's with the mount's");
		if (fd >= 0)
			close(fd);
		uvfs_close(p, lfd);
	}

	uvfs_fuse_exit(uf);
	pthread_join(th, &ret);
	check(*(int *)ret == 0, "uvfs_fuse_exit: the loop returns 0");
	uvfs_fuse_destroy(uf);
	check(statfs(dir, &sf) == 0 && sf.f_type != 0x65735546, "uvfs_fuse_destroy: unmounted");
	check(uvfs_fstatat(p, AT_FDCWD, "/from-mount", &st, 0) == 0, "the instance outlives the frontend");

	/* the change hook (the default when embedding): the same without
	 * calling the seam, with caches that would otherwise hold for a minute,
	 * and no waiting: each check runs right after the library call */
	{
		char *hargv[] = { "test-embed", NULL };
		char p2[256], p3[256];
		struct stat lst, st2;

		uf = uvfs_fuse_new(fs, dir, 1, hargv, &err);
		check(uf != NULL, "hook: mounted again (exact invalidation and day-long caches by default)");
		if (!uf)
			goto out;
		pthread_create(&th, NULL, loop_main, uf);
		check(statfs(dir, &sf) == 0 && sf.f_type == 0x65735546, "hook: the loop serves the mount");
		uvfs_mkdirat(p, AT_FDCWD, "/sub", 0755);
		snprintf(path, sizeof(path), "%s/sub/w", dir);
		check(stat(path, &st) < 0 && errno == ENOENT, "hook: sub/w is missing (and cached as missing)");

		/* create */
		lib_write(p, "/sub/w", "one\n", 0);
		check(stat(path, &st) == 0 && st.st_size == 4, "hook: a name created through the library shows at once");
		/* write: size, data, mtime */
		lib_write(p, "/sub/w", "two, longer\n", O_APPEND);
		uvfs_fstatat(p, AT_FDCWD, "/sub/w", &lst, 0);
		check(stat(path, &st) == 0 && st.st_size == lst.st_size && st.st_mtim.tv_sec == lst.st_mtim.tv_sec &&
		      st.st_mtim.tv_nsec == lst.st_mtim.tv_nsec,
		      "hook: the size and mtime of a write through the library show at once");
		check(host_read(path, buf, sizeof(buf)) == lst.st_size && strcmp(buf, "one\ntwo, longer\n") == 0,
		      "hook: and the data (page cache dropped)");
		/* an open fd on the mount sees the new data too */
		fd = open(path, O_RDONLY);
		lib_write(p, "/sub/w", "ONE\n", 0);
		check(fd >= 0 && pread(fd, buf, 4, 0) == 4 && memcmp(buf, "ONE\n", 4) == 0,
		      "hook: a file open on the mount reads data written through the library");
		if (fd >= 0)
			close(fd);
		/* truncate */
		uvfs_truncate(p, "/sub/w", 2);
		check(stat(path, &st) == 0 && st.st_size == 2, "hook: a truncate through the library shows at once");
		/* chmod, chown, utimes */
		uvfs_fchmodat(p, AT_FDCWD, "/sub/w", 0600, 0);
		check(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "hook: a chmod through the library shows at once");
		uvfs_fchownat(p, AT_FDCWD, "/sub/w", 1234, 5678, 0);
		check(stat(path, &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678,
		      "hook: a chown through the library shows at once");
		{
			struct timespec ts[2] = { { 1000, 0 }, { 2000, 0 } };

			uvfs_utimensat(p, AT_FDCWD, "/sub/w", ts, 0);
			check(stat(path, &st) == 0 && st.st_mtime == 2000 && st.st_atime == 1000,
			      "hook: utimensat through the library shows at once");
		}
		/* link: a new name, and the link count of the inode */
		uvfs_linkat(p, AT_FDCWD, "/sub/w", AT_FDCWD, "/sub/hard", 0);
		snprintf(p2, sizeof(p2), "%s/sub/hard", dir);
		check(stat(p2, &st2) == 0 && stat(path, &st) == 0 && st.st_nlink == 2 && st2.st_ino == st.st_ino,
		      "hook: a link through the library shows at once (name and link count)");
		uvfs_unlinkat(p, AT_FDCWD, "/sub/hard", 0);
		check(stat(p2, &st2) < 0 && errno == ENOENT && stat(path, &st) == 0 && st.st_nlink == 1,
		      "hook: its unlink too");
		/* rename within a directory */
		uvfs_renameat2(p, AT_FDCWD, "/sub/w", AT_FDCWD, "/sub/w2", 0);
		snprintf(p2, sizeof(p2), "%s/sub/w2", dir);
		check(stat(path, &st) < 0 && errno == ENOENT && stat(p2, &st) == 0,
		      "hook: a rename through the library shows at once (old name gone, new one there)");
		/* rename over a name the kernel knows */
		lib_write(p, "/sub/victim", "victim\n", 0);
		snprintf(p3, sizeof(p3), "%s/sub/victim", dir);
		check(stat(p3, &st) == 0 && st.st_size == 7, "hook: victim seen");
		uvfs_renameat2(p, AT_FDCWD, "/sub/w2", AT_FDCWD, "/sub/victim", 0);
		check(stat(p3, &st) == 0 && st.st_size == 2 && stat(p2, &st2) < 0,
		      "hook: a rename over a cached name shows at once");
		/* across directories, with a directory the kernel has cached below */
		uvfs_mkdirat(p, AT_FDCWD, "/sub/d", 0755);
		lib_write(p, "/sub/d/inner", "in\n", 0);
		snprintf(p2, sizeof(p2), "%s/sub/d/inner", dir);
		check(stat(p2, &st) == 0, "hook: sub/d/inner seen");
		uvfs_mkdirat(p, AT_FDCWD, "/other", 0755);
		uvfs_renameat2(p, AT_FDCWD, "/sub/d", AT_FDCWD, "/other/d", 0);
		snprintf(p3, sizeof(p3), "%s/other/d/inner", dir);
		check(stat(p2, &st) < 0 && errno == ENOENT && stat(p3, &st) == 0,
		      "hook: a directory moved through the library: the old path goes, the new one works");
		/* exchange */
		lib_write(p, "/other/x", "xx\n", 0);
		snprintf(p2, sizeof(p2), "%s/other/x", dir);
		snprintf(p3, sizeof(p3), "%s/sub/victim", dir);
		check(stat(p2, &st) == 0 && st.st_size == 3 && stat(p3, &st2) == 0 && st2.st_size == 2,
		      "hook: both sides of an exchange seen");
		uvfs_renameat2(p, AT_FDCWD, "/other/x", AT_FDCWD, "/sub/victim", RENAME_EXCHANGE);
		check(stat(p2, &st) == 0 && st.st_size == 2 && stat(p3, &st2) == 0 && st2.st_size == 3,
		      "hook: RENAME_EXCHANGE through the library shows at once");
		/* unlink */
		uvfs_unlinkat(p, AT_FDCWD, "/sub/victim", 0);
		check(stat(p3, &st) < 0 && errno == ENOENT, "hook: an unlink through the library shows at once");
		/* mkdir, rmdir, and the directory's link count */
		snprintf(p2, sizeof(p2), "%s/sub/newdir", dir);
		check(stat(p2, &st) < 0 && errno == ENOENT, "hook: sub/newdir missing (cached as missing)");
		snprintf(p3, sizeof(p3), "%s/sub", dir);
		stat(p3, &st2);
		uvfs_mkdirat(p, AT_FDCWD, "/sub/newdir", 0700);
		check(stat(p2, &st) == 0 && S_ISDIR(st.st_mode) && stat(p3, &st) == 0 && st.st_nlink == st2.st_nlink + 1,
		      "hook: a mkdir through the library shows at once (and the parent's link count)");
		uvfs_unlinkat(p, AT_FDCWD, "/sub/newdir", AT_REMOVEDIR);
		check(stat(p2, &st) < 0 && errno == ENOENT && stat(p3, &st) == 0 && st.st_nlink == st2.st_nlink,
		      "hook: an rmdir through the library shows at once");
		/* a symlink and a FIFO */
		uvfs_symlinkat(p, "target", AT_FDCWD, "/sub/sl");
		snprintf(p2, sizeof(p2), "%s/sub/sl", dir);
		check(readlink(p2, buf, sizeof(buf)) == 6, "hook: a symlink through the library shows at once");
		/* a directory closed through the library: what the kernel cached
		 * below it, a name and a missing name, is gone when the call
		 * returns (no default_permissions: the kernel would not check) */
		{
			char pf[256], pn[256];
			bool r, r2;

			uvfs_mkdirat(p, AT_FDCWD, "/open", 0755);
			lib_write(p, "/open/f", "f", 0);
			snprintf(pf, sizeof(pf), "%s/open/f", dir);
			snprintf(pn, sizeof(pn), "%s/open/none", dir);
			setfsgid(1000);
			setfsuid(1000);
			r = stat(pf, &st) == 0 && stat(pn, &st) < 0 && errno == ENOENT;
			setfsuid(0);
			setfsgid(0);
			check(r, "hook: uid 1000 sees open/f and not open/none (both cached)");
			uvfs_fchmodat(p, AT_FDCWD, "/open", 0700, 0);
			setfsgid(1000);
			setfsuid(1000);
			r = stat(pf, &st) < 0 && errno == EACCES;
			r2 = stat(pn, &st) < 0 && errno == EACCES;
			setfsuid(0);
			setfsgid(0);
			check(r && r2, "hook: a chmod 0700 through the library closes open/f and open/none to uid 1000 at once");
		}
		/* changes through the mount itself stay right */
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		check(fd >= 0 && write(fd, "abc", 3) == 3 && close(fd) == 0 && stat(path, &st) == 0 && st.st_size == 3,
		      "hook: changes through the mount");
		check(rename(path, p2) == 0 && stat(p2, &st) == 0 && st.st_size == 3 && stat(path, &st) < 0,
		      "hook: a rename through the mount");
		check(uvfs_fstatat(p, AT_FDCWD, "/sub/sl", &lst, 0) == 0 && lst.st_size == 3,
		      "hook: the library sees it");
		/* while a program on the mount keeps looking: after each library
		 * call the mount agrees with the library */
		{
			pthread_t rt;
			char pa[300], pb[300];
			int bad_size = 0, bad_name = 0, i;

			uvfs_mkdirat(p, AT_FDCWD, "/race", 0755);
			lib_write(p, "/race/a", "", 0);
			snprintf(racer_dir, sizeof(racer_dir), "%s", dir);
			snprintf(pa, sizeof(pa), "%s/race/a", dir);
			snprintf(pb, sizeof(pb), "%s/race/b", dir);
			racer_stop = 0;
			pthread_create(&rt, NULL, racer_main, NULL);
			for (i = 0; i < 300; i++) {
				bool at_a = i % 2 == 0;

				lib_write(p, at_a ? "/race/a" : "/race/b", "x", O_APPEND);
				uvfs_fstatat(p, AT_FDCWD, at_a ? "/race/a" : "/race/b", &lst, 0);
				if (stat(at_a ? pa : pb, &st) != 0 || st.st_size != lst.st_size)
					bad_size++;
				uvfs_renameat2(p, AT_FDCWD, at_a ? "/race/a" : "/race/b", AT_FDCWD,
					       at_a ? "/race/b" : "/race/a", 0);
				if (stat(at_a ? pb : pa, &st) != 0 || stat(at_a ? pa : pb, &st2) == 0)
					bad_name++;
			}
			racer_stop = 1;
			pthread_join(rt, NULL);
			printf("   (300 writes and renames: %d stale sizes, %d stale names)\n", bad_size, bad_name);
			check(bad_name == 0, "hook: 300 library renames while a program keeps looking: no stale name");
			check(bad_size == 0, "hook: 300 library writes while a program keeps looking: no stale size");
		}
		/* the data of a file rewritten in place (same size), kept in the
		 * page cache across opens by default; a directory's listing */
		snprintf(p2, sizeof(p2), "%s/sub/same", dir);
		lib_write(p, "/sub/same", "abc", 0);
		check(host_read(p2, buf, sizeof(buf)) == 3 && strcmp(buf, "abc") == 0, "hook: same: read through the mount");
		lib_write(p, "/sub/same", "XYZ", 0);
		check(host_read(p2, buf, sizeof(buf)) == 3 && strcmp(buf, "XYZ") == 0,
		      "hook: data rewritten in place (same size) through the library: a new open reads it");
		snprintf(p3, sizeof(p3), "%s/sub", dir);
		check(!host_listed(p3, "listed"), "hook: listing of sub");
		lib_write(p, "/sub/listed", "", 0);
		check(host_listed(p3, "listed"), "hook: a name made through the library is in the next listing");
		uvfs_unlinkat(p, AT_FDCWD, "/sub/listed", 0);
		check(!host_listed(p3, "listed"), "hook: a name removed through the library is gone from it");
		/* the caches are long indeed: with the hook taken away behind the
		 * frontend's back, library changes stay unseen well past 1 s.  The
		 * name is one a program on the mount holds open: the kernel never
		 * drops a dentry in use, so only its timeout can make the kernel
		 * ask again.  (A failed lookup's negative dentry was checked here
		 * before; memory reclaim or anyone's drop_caches, as test-fuse's
		 * file-handle check writes, drops it at any time: 10 runs of 10
		 * failed beside a drop_caches loop, and a parallel `meson test`
		 * runs the two together.)  Not a listing either: the kernel
		 * refetches a directory's attributes when it invalidated their
		 * atime after a READDIR, and drops its listing on seeing the new
		 * mtime. */
		snprintf(path, sizeof(path), "%s/sub/held", dir);
		lib_write(p, "/sub/held", "h", 0);
		int held = open(path, O_RDONLY);
		check(held >= 0 && stat(p2, &st2) == 0 && host_read(p2, buf, sizeof(buf)) == 3,
		      "hook: held open, same read");
		/* the frontend's listener (internal.h): its own removal at
		 * uvfs_fuse_destroy then finds nothing (-ENOENT) */
		check(uvfs_remove_change_listener(fs, uf->listener) == 0, "hook: removed behind the frontend's back");
		uvfs_unlinkat(p, AT_FDCWD, "/sub/held", 0);
		lib_write(p, "/sub/same", "123", 0);
		uvfs_fchmodat(p, AT_FDCWD, "/sub/same", 0611, 0);
		sleep(2);
		check(stat(path, &st) == 0, "hook: without it, a name removed through the library stays cached past 1 s");
		if (held >= 0)
			close(held);
		/* attributes of an embedder's instance are not cached at all
		 * (attr_timeout 0, options.c): the chmod shows at once, hook or
		 * not.  Whether the file's data then stays cached depends on
		 * whether the write moved mtime past a clock tick (the kernel
		 * drops the page cache when it sees new attributes), so it is
		 * not checked here. */
		check(stat(p2, &st) == 0 && (st.st_mode & 07777) == 0611,
		      "hook: an embedder's attributes are not cached: a chmod shows at once, even without the hook");
		/* a tree the kernel never looked at: nothing to invalidate */
		check(uvfs_mkdirat(p, AT_FDCWD, "/unseen", 0755) == 0 &&
		      uvfs_mkdirat(p, AT_FDCWD, "/unseen/a", 0755) == 0, "hook: changes where the kernel never looked");
		uvfs_fuse_exit(uf);
		pthread_join(th, &ret);
		{
			struct timespec t0, t1;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			uvfs_mkdirat(p, AT_FDCWD, "/sub/after-exit", 0755);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			check(t1.tv_sec - t0.tv_sec < 1, "hook: a library change after uvfs_fuse_exit returns at once");
		}
		uvfs_fuse_destroy(uf);
		check(statfs(dir, &sf) == 0 && sf.f_type != 0x65735546, "hook: unmounted");
		check(uvfs_mkdirat(p, AT_FDCWD, "/sub/after-destroy", 0755) == 0, "hook: removed with the frontend");
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
