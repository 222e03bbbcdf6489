// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-testfs: the filesystem boundary, through a filesystem that is not
 * tmpfs (tests/testfs, written against include/uvfs_fs.h only).
 *
 *   - registration: the version, size, flags, name and required calls are
 *     checked (EINVAL), a name is registered once (EEXIST), a type is busy
 *     while mounted (EBUSY) and can go and come back after;
 *   - lookup on a miss: a name the dcache never saw is asked for, once,
 *     however many threads miss it at the same time, and never twice at
 *     once (d_alloc_parallel);
 *   - revalidate: a name made stale behind the cache is looked up again by
 *     stat and open; a name removed behind the cache is gone for both;
 *   - weak_revalidate: asked where a walk ends without a lookup (".",
 *     "..", the root); a directory removed behind the cache is ESTALE;
 *   - getattr: stat, fstat and statx ask the filesystem;
 *   - get_link: a symlink body that was not cached is read once, then
 *     walked and read from the cache;
 *   - readdir with the filesystem's own offsets, resumed in small buffers;
 *   - the namespace calls and file I/O through the adapter; every node
 *     the VFS was given is forgotten once by the end.
 */
#include "uvfs.h"
#include "uvfs_fs.h"
#include "../testfs/testfs.h"
#include "check.h"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int t_mount_ok(void *d, const char *s, unsigned long f, const void *data, void **fsp,
		      struct uvfs_fs_entry *root)
{
	return -EIO;
}
static int t_lookup_ok(void *fs, void *dir, const char *name, struct uvfs_fs_entry *out) { return -ENOENT; }

static void test_register(void)
{
	SECTION("registration");
	struct uvfs *u = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(u, 0, 0);
	struct uvfs_fs_type t = {
		.size = sizeof(t), .version = UVFS_FS_VERSION, .name = "broken",
		.ops = { .mount = t_mount_ok, .lookup = t_lookup_ok },
	};
	struct uvfs_fs_type bad = t;
	CHECK_ERR(uvfs_register_filesystem(NULL, &t), EINVAL);
	CHECK_ERR(uvfs_register_filesystem(u, NULL), EINVAL);
	bad.version = 2;
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad = t;
	bad.size = 8;
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad = t;
	bad.flags = 1;
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad = t;
	bad.name = "a/b";
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad.name = "";
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad.name = "a-name-that-is-longer-than-31-bytes";
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad = t;
	bad.ops.lookup = NULL;
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EINVAL);
	bad = t;
	bad.name = "tmpfs";
	CHECK_ERR(uvfs_register_filesystem(u, &bad), EEXIST);
	CHECK_EQ(uvfs_register_filesystem(u, &t), 0);
	CHECK_ERR(uvfs_register_filesystem(u, &t), EEXIST);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m", 0755), 0);
	CHECK_ERR(uvfs_mount(p, "x", "/m", "broken", 0, NULL), EIO); /* its mount's error */
	CHECK_ERR(uvfs_mount(p, "x", "/m", "nosuchfs", 0, NULL), ENODEV);
	CHECK_EQ(uvfs_unregister_filesystem(u, "broken"), 0);
	CHECK_ERR(uvfs_unregister_filesystem(u, "broken"), ENOENT);
	CHECK_ERR(uvfs_unregister_filesystem(u, NULL), EINVAL);
	CHECK_ERR(uvfs_unregister_filesystem(u, "tmpfs"), EBUSY); /* the root */
	CHECK_ERR(uvfs_mount(p, "x", "/m", "broken", 0, NULL), ENODEV);

	CHECK_EQ(testfs_register(u), 0);
	CHECK_EQ(uvfs_mount(p, "t", "/m", "testfs", 0, NULL), 0);
	CHECK_ERR(uvfs_unregister_filesystem(u, "testfs"), EBUSY);
	CHECK_ERR(uvfs_mount(p, "t", "/m", "testfs", 0, "opt"), EINVAL); /* testfs's own */
	CHECK_EQ(uvfs_umount2(p, "/m", 0), 0);
	CHECK_EQ(uvfs_unregister_filesystem(u, "testfs"), 0);
	CHECK_ERR(uvfs_mount(p, "t", "/m", "testfs", 0, NULL), ENODEV);
	CHECK_EQ(testfs_register(u), 0); /* and back */
	CHECK_EQ(uvfs_mount(p, "t", "/m", "testfs", 0, NULL), 0);
	uvfs_proc_destroy(p);
	uvfs_destroy(u); /* a mounted testfs goes with the instance */
	CHECK_EQ(testfs_unbalanced(), 0);
}

static struct uvfs *u;
static struct uvfs_proc *p;
static struct testfs *tfs;

static void setup(void)
{
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	CHECK_EQ(testfs_register(u), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t", 0755), 0);
	CHECK_EQ(uvfs_mount(p, "t", "/t", "testfs", 0, NULL), 0);
	tfs = testfs_last();
	CHECK(tfs != NULL);
}

static void teardown(void)
{
	CHECK_EQ(uvfs_umount2(p, "/t", 0), 0);
	CHECK(testfs_last() == NULL, "the filesystem was killed at umount");
	CHECK_EQ(testfs_unbalanced(), 0);
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
}

static void test_one_name(void)
{
	SECTION("a name made on lookup");
	setup();
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/auto-a", &st, 0), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_size, 4); /* "a 0\n" */
	CHECK(st.st_ino > 1000, "testfs's own inode number: %lu", (unsigned long)st.st_ino);
	CHECK_EQ(testfs_lookups(tfs, "auto-a"), 1);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/auto-a", &st, 0), 0);
	CHECK_EQ(testfs_lookups(tfs, "auto-a"), 1); /* cached, and still valid */
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/none", &st, 0), ENOENT);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/none", &st, 0), ENOENT);
	CHECK_EQ(testfs_lookups(tfs, "none"), 2); /* a miss is not cached */
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/auto-a/x", &st, 0), ENOTDIR);
	struct statfs sf;
	CHECK_EQ(uvfs_statfs(p, "/t", &sf), 0);
	CHECK_EQ(sf.f_type, 0x74657374);
	teardown();
}

#define NTHREADS 6
#define NNAMES 48
static pthread_barrier_t start;

static void *walker(void *arg)
{
	long id = (long)arg;
	struct uvfs_proc *q = uvfs_proc_create(u, 0, 0);
	pthread_barrier_wait(&start);
	for (int i = 0; i < NNAMES; i++) {
		/* every thread its own order: each name meets a few at once */
		int k = (int)((i * 7 + id * 5) % NNAMES);
		char path[64];
		snprintf(path, sizeof(path), "/t/auto-%d", k);
		struct stat st;
		int err = uvfs_fstatat(q, AT_FDCWD, path, &st, 0);
		CHECK_EQ(err, 0);
		snprintf(path, sizeof(path), "/t/auto-%d", (k + 1) % NNAMES);
		int fd = uvfs_openat(q, AT_FDCWD, path, O_RDONLY, 0);
		CHECK(fd >= 0, "open %s: %d", path, fd);
		if (fd >= 0)
			uvfs_close(q, fd);
	}
	uvfs_proc_destroy(q);
	return NULL;
}

static void test_parallel_lookups(void)
{
	SECTION("parallel lookups: one per name");
	setup();
	testfs_set_lookup_delay(tfs, 2000);
	pthread_barrier_init(&start, NULL, NTHREADS);
	pthread_t th[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, walker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	unsigned long total = 0;
	for (int k = 0; k < NNAMES; k++) {
		char name[32];
		snprintf(name, sizeof(name), "auto-%d", k);
		unsigned long n = testfs_lookups(tfs, name);
		CHECK_EQ(n, 1);
		total += n;
	}
	CHECK_EQ(total, NNAMES);
	CHECK_EQ(testfs_overlaps(tfs), 0);
	testfs_set_lookup_delay(tfs, 0);
	teardown();
}

static int stop_flag;

static void *stale_walker(void *arg)
{
	long id = (long)arg;
	struct uvfs_proc *q = uvfs_proc_create(u, 0, 0);
	char path[64], buf[64];
	for (int i = 0; i < 3000; i++) {
		int k = (int)((i + id) % 8);
		snprintf(path, sizeof(path), k & 1 ? "/t/d/auto-%d" : "/t/auto-%d", k);
		struct stat st;
		CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, path, &st, 0), 0);
		int fd = uvfs_openat(q, AT_FDCWD, path, O_RDONLY, 0);
		CHECK(fd >= 0, "open %s: %d", path, fd);
		if (fd < 0)
			continue;
		ssize_t n = uvfs_read(q, fd, buf, sizeof(buf) - 1);
		CHECK(n >= 4, "%zd", n);
		if (n > 0) {
			buf[n] = 0;
			unsigned kk, gen;
			CHECK(sscanf(buf, "%u %u", &kk, &gen) == 2 && kk == (unsigned)k, "%s: %s", path, buf);
		}
		uvfs_close(q, fd);
	}
	uvfs_proc_destroy(q);
	return NULL;
}

static void *bumper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
		testfs_bump_generation(tfs);
		usleep(200);
	}
	return NULL;
}

/* Names going stale while walkers use them: stale dentries (a directory's
 * with what is under it) are unhashed while other threads look the same
 * names up again; every walk finds the name, and nothing leaks. */
static void test_stale_race(void)
{
	SECTION("revalidation racing lookups");
	setup();
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/d", 0755), 0);
	pthread_t th[4], b;
	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
	pthread_create(&b, NULL, bumper, NULL);
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, stale_walker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
	pthread_join(b, NULL);
	CHECK_EQ(testfs_overlaps(tfs), 0);
	teardown();
}

static void test_revalidate(void)
{
	SECTION("revalidate: stale names looked up again");
	setup();
	struct stat a, b;
	char buf[64];
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/auto-x", &a, 0), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/t/auto-x", O_RDONLY, 0);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 4);
	CHECK(!memcmp(buf, "x 0\n", 4));
	testfs_bump_generation(tfs);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/auto-x", &b, 0), 0);
	CHECK(a.st_ino != b.st_ino, "a new inode after the generation moved");
	CHECK_EQ(testfs_lookups(tfs, "auto-x"), 2);
	int fd2 = uvfs_openat(p, AT_FDCWD, "/t/auto-x", O_RDONLY, 0);
	CHECK(fd2 >= 0);
	CHECK_EQ(uvfs_read(p, fd2, buf, sizeof(buf)), 4);
	CHECK(!memcmp(buf, "x 1\n", 4));
	/* the first open keeps the old file */
	struct stat f;
	CHECK_EQ(uvfs_fstat(p, fd, &f), 0);
	CHECK_EQ(f.st_ino, a.st_ino);
	CHECK_EQ(uvfs_close(p, fd), 0);
	CHECK_EQ(uvfs_close(p, fd2), 0);

	/* a name the filesystem lost behind the cache */
	fd = uvfs_openat(p, AT_FDCWD, "/t/kept", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_close(p, fd), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/kept", &a, 0), 0);
	CHECK_EQ(testfs_remove(tfs, "kept"), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/kept", &a, 0), ENOENT);
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, "/t/kept", O_RDONLY, 0), ENOENT);
	/* and the name can be made again */
	fd = uvfs_openat(p, AT_FDCWD, "/t/kept", O_CREAT | O_EXCL | O_RDWR, 0644);
	CHECK(fd >= 0, "%d", fd);
	CHECK_EQ(uvfs_close(p, fd), 0);

	/* a stale directory takes what is cached under it along */
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/d", 0755), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/d/auto-in", &a, 0), 0);
	CHECK_EQ(testfs_remove(tfs, "d"), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/d/auto-in", &a, 0), ENOENT);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/d", &a, 0), ENOENT);
	teardown();
}

static void test_getattr_and_links(void)
{
	SECTION("getattr, get_link");
	setup();
	struct stat st;
	int fd = uvfs_openat(p, AT_FDCWD, "/t/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	unsigned long g0 = testfs_getattrs(tfs);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/f", &st, 0), 0);
	CHECK_EQ(st.st_size, 0);
	CHECK(testfs_getattrs(tfs) > g0, "stat asked the filesystem");
	CHECK_EQ(testfs_set_size(tfs, "f", 12345), 0); /* behind the cache */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/f", &st, 0), 0);
	CHECK_EQ(st.st_size, 12345);
	CHECK_EQ(uvfs_fstat(p, fd, &st), 0);
	CHECK_EQ(st.st_size, 12345);
	struct statx stx;
	CHECK_EQ(uvfs_statx(p, AT_FDCWD, "/t/f", 0, STATX_BASIC_STATS, &stx), 0);
	CHECK_EQ(stx.stx_size, 12345);
	CHECK_EQ(uvfs_statx(p, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx), 0);
	CHECK_EQ(stx.stx_size, 12345);
	CHECK_EQ(uvfs_close(p, fd), 0);

	char buf[64];
	unsigned long r0 = testfs_readlinks(tfs);
	CHECK_EQ(uvfs_readlinkat(p, AT_FDCWD, "/t/link-q", buf, sizeof(buf)), 6);
	CHECK(!memcmp(buf, "auto-q", 6));
	CHECK_EQ(uvfs_readlinkat(p, AT_FDCWD, "/t/link-q", buf, sizeof(buf)), 6);
	CHECK_EQ(testfs_readlinks(tfs), r0 + 1); /* cached after the first */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/link-r", &st, 0), 0); /* walked, never read */
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_size, 4);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/link-r", &st, AT_SYMLINK_NOFOLLOW), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(testfs_readlinks(tfs), r0 + 2);
	CHECK_EQ(uvfs_symlinkat(p, "f", AT_FDCWD, "/t/s"), 0);
	CHECK_EQ(uvfs_readlinkat(p, AT_FDCWD, "/t/s", buf, sizeof(buf)), 1);
	CHECK_EQ(testfs_readlinks(tfs), r0 + 2); /* a body the VFS made is cached */
	fd = uvfs_openat(p, AT_FDCWD, "/t/link-w", O_RDONLY, 0);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 4);
	CHECK(!memcmp(buf, "w 0\n", 4));
	CHECK_EQ(uvfs_close(p, fd), 0);
	teardown();
}

struct dent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void test_readdir(void)
{
	SECTION("readdir: the filesystem's offsets");
	setup();
	const char *names[] = { "one", "two", "three", "four", "five" };
	for (int i = 0; i < 5; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/t/%s", names[i]);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0);
		uvfs_close(p, fd);
	}
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/sub", 0755), 0);
	int dfd = uvfs_openat(p, AT_FDCWD, "/t", O_RDONLY | O_DIRECTORY, 0);
	CHECK(dfd >= 0);
	/* a buffer of about two records a call: the listing resumes at the
	 * filesystem's positions */
	char buf[64];
	int seen = 0, calls = 0, dirs = 0;
	int64_t last_off = -1;
	bool increasing = true;
	ssize_t n;
	while ((n = uvfs_getdents64(p, dfd, buf, sizeof(buf))) > 0) {
		calls++;
		for (ssize_t off = 0; off < n;) {
			struct dent64 *d = (struct dent64 *)(buf + off);
			if (d->d_off <= last_off)
				increasing = false;
			last_off = d->d_off;
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				seen++;
				CHECK(d->d_off > 2, "%s at %lld", d->d_name, (long long)d->d_off);
				if (d->d_type == DT_DIR)
					dirs++;
			}
			off += d->d_reclen;
		}
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(seen, 6);
	CHECK_EQ(dirs, 1);
	CHECK(calls >= 3, "%d calls", calls);
	CHECK(increasing);
	/* a position taken from the listing is the filesystem's: rewinding to
	 * it goes on from there */
	CHECK_EQ(uvfs_lseek(p, dfd, 0, SEEK_SET), 0);
	n = uvfs_getdents64(p, dfd, buf, sizeof(buf));
	CHECK(n > 0);
	CHECK_EQ(uvfs_close(p, dfd), 0);
	teardown();
}

static void test_namespace(void)
{
	SECTION("namespace calls and I/O through the adapter");
	setup();
	struct stat st;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/d", 0750), 0);
	CHECK_ERR(uvfs_mkdirat(p, AT_FDCWD, "/t/d", 0750), EEXIST);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/d", &st, 0), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0750);
	int fd = uvfs_openat(p, AT_FDCWD, "/t/d/f", O_CREAT | O_RDWR, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "hello", 5), 5);
	CHECK_EQ(uvfs_lseek(p, fd, 0, SEEK_SET), 0);
	char buf[16];
	CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 5);
	CHECK(!memcmp(buf, "hello", 5));
	CHECK_EQ(uvfs_ftruncate(p, fd, 2), 0);
	CHECK_EQ(uvfs_fstat(p, fd, &st), 0);
	CHECK_EQ(st.st_size, 2);
	CHECK_EQ(uvfs_close(p, fd), 0);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/t/d/f", AT_FDCWD, "/t/d/g", 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/d/g", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/t/d/g", AT_FDCWD, "/t/h", 0), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/d/g", &st, 0), ENOENT);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/h", &st, 0), 0);
	CHECK_ERR(uvfs_renameat2(p, AT_FDCWD, "/t/h", AT_FDCWD, "/t/d/f", RENAME_NOREPLACE), EEXIST);
	CHECK_ERR(uvfs_unlinkat(p, AT_FDCWD, "/t/d", AT_REMOVEDIR), ENOTEMPTY);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/t/d/f", 0), 0);
	CHECK_ERR(uvfs_unlinkat(p, AT_FDCWD, "/t/d/f", 0), ENOENT);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/h", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 1);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/t/d", AT_REMOVEDIR), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/t/d", &st, 0), ENOENT);
	CHECK_ERR(uvfs_mkdirat(p, AT_FDCWD, "/t/d/x", 0755), ENOENT);
	/* the cwd inside: relative walks start in testfs */
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/e", 0755), 0);
	CHECK_EQ(uvfs_chdir(p, "/t/e"), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "auto-rel", &st, 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "../h", &st, 0), 0);
	CHECK_EQ(uvfs_chdir(p, "/"), 0);
	teardown();
}

/* A walk that ends on ".", "..", "/" or the mount's root asks
 * weak_revalidate (no name to revalidate there); a directory removed
 * behind the cache is then ESTALE, as on NFS.  A name looked up is not
 * asked; a caller compiled before weak_revalidate existed still registers. */
static void test_weak_revalidate(void)
{
	SECTION("weak_revalidate: walks that end without a lookup");
	setup();
	struct stat st;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/wd", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/t/wd/sub", 0755), 0);
	unsigned long n0 = testfs_weak_revalidates(tfs);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/wd/sub", &st, 0), 0);
	CHECK_EQ(testfs_weak_revalidates(tfs), n0); /* looked up by name */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t", &st, 0), 0); /* the mount's root */
	CHECK_EQ(testfs_weak_revalidates(tfs), n0 + 1);
	CHECK_EQ(uvfs_chdir(p, "/t/wd"), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, ".", &st, 0), 0);
	CHECK_EQ(testfs_weak_revalidates(tfs), n0 + 2);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "sub/..", &st, 0), 0);
	CHECK_EQ(testfs_weak_revalidates(tfs), n0 + 3);
	int fd = uvfs_openat(p, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0, "%d", fd);
	CHECK_EQ(uvfs_close(p, fd), 0);
	CHECK_EQ(testfs_remove(tfs, "wd"), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, ".", &st, 0), ESTALE);
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0), ESTALE);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "sub/..", &st, 0), ESTALE);
	CHECK_EQ(uvfs_chdir(p, "/"), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/t/.", &st, 0), 0);
	teardown();

	struct uvfs *v = uvfs_create(NULL);
	struct uvfs_fs_type old = {
		.size = offsetof(struct uvfs_fs_type, ops.weak_revalidate), .version = UVFS_FS_VERSION,
		.name = "older", .ops = { .mount = t_mount_ok, .lookup = t_lookup_ok },
	};
	CHECK_EQ(uvfs_register_filesystem(v, &old), 0);
	CHECK_EQ(uvfs_unregister_filesystem(v, "older"), 0);
	uvfs_destroy(v);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_register();
	test_one_name();
	test_parallel_lookups();
	test_revalidate();
	test_weak_revalidate();
	test_stale_race();
	test_getattr_and_links();
	test_readdir();
	test_namespace();
	return check_done();
}
