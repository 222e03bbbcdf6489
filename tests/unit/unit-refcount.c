// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-refcount: the lifetimes of files, inodes and dentries, observed
 * through the API.
 *
 * Two counters make references visible from outside:
 *   - open files count against the instance's max_files: a struct file is
 *     gone exactly when an open that failed with ENFILE succeeds again;
 *   - a tmpfs with nr_inodes and size limits reports in statfs how many
 *     inodes and pages are alive: an unlinked inode is gone exactly when
 *     f_ffree and f_bfree come back.
 * Checked: files shared by dup, F_DUPFD, dup2, a shared table and a copied
 * table live until their last close; failed opens keep nothing; an unlinked
 * or renamed-over open file keeps its data until the last close; removed
 * directories stay usable (and their inodes alive) while a cwd or an fd pins
 * them; mounts busy while referenced, lazily unmounted ones keep working.
 * Finally uvfs_destroy on instances that still hold all of that (and on one
 * used by threads that have exited): under the ASan build LeakSanitizer is
 * the judge of what was not freed.
 */
#include "vfs.h"
#include "check.h"
#include <sys/mount.h>
#include <pthread.h>

#define MAXF 8

static struct uvfs *vfs;
static struct uvfs_proc *p;

static long ffree(struct uvfs_proc *q, const char *path)
{
	struct statfs s;
	int r = uvfs_statfs(q, path, &s);
	return r ? r : (long)s.f_ffree;
}
static long bfree(struct uvfs_proc *q, const char *path)
{
	struct statfs s;
	int r = uvfs_statfs(q, path, &s);
	return r ? r : (long)s.f_bfree;
}

/* Opens files until ENFILE; returns how many it opened (their fds in fds). */
static int open_until_enfile(struct uvfs_proc *q, int *fds, int max, int *last_err)
{
	int n = 0;
	for (;;) {
		int fd = uvfs_openat(q, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0) {
			*last_err = fd;
			return n;
		}
		if (n == max) {
			uvfs_close(q, fd);
			*last_err = 0;
			return n;
		}
		fds[n++] = fd;
	}
}
static void close_all(struct uvfs_proc *q, const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		uvfs_close(q, fds[i]);
}

/* How many more files the instance would open now. */
static int room(struct uvfs_proc *q)
{
	int fds[MAXF + 1], err;
	int n = open_until_enfile(q, fds, MAXF + 1, &err);
	close_all(q, fds, n);
	return err == -ENFILE ? n : -1;
}

static void test_file_counts(void)
{
	SECTION("struct file lifetime (ENFILE)");
	CHECK_EQ(room(p), MAXF);
	/* failed opens keep no file */
	for (int i = 0; i < 1000; i++)
		uvfs_openat(p, AT_FDCWD, "/no/such", O_RDONLY, 0);
	for (int i = 0; i < 200; i++)
		uvfs_openat(p, AT_FDCWD, "/nodir/f", O_CREAT | O_EXCL | O_RDWR, 0600);
	int f = uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(f >= 0);
	int eexist = 0;
	for (int i = 0; i < 200; i++)
		eexist += uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_EXCL | O_RDWR, 0600) == -EEXIST;
	CHECK_EQ(eexist, 200);
	CHECK_EQ(uvfs_close(p, f), 0);
	CHECK_EQ(room(p), MAXF);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/f", &st, 0), 0);

	/* one file, five fds: dup, F_DUPFD, dup2, dup3 */
	int a = uvfs_openat(p, AT_FDCWD, "/f", O_RDWR, 0);
	CHECK(a >= 0);
	int d[4];
	d[0] = uvfs_dup(p, a);
	d[1] = uvfs_fcntl(p, a, F_DUPFD, 20);
	d[2] = uvfs_dup2(p, a, 30);
	d[3] = uvfs_dup3(p, a, 31, O_CLOEXEC);
	CHECK(d[0] >= 0 && d[1] == 20 && d[2] == 30 && d[3] == 31);
	CHECK_EQ(room(p), MAXF - 1);
	CHECK_EQ(uvfs_close(p, a), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(uvfs_close(p, d[i]), 0);
		CHECK_EQ(room(p), MAXF - 1); /* a reference is left */
	}
	CHECK_EQ(uvfs_write(p, d[3], "x", 1), 1); /* and it works */
	CHECK_EQ(uvfs_close(p, d[3]), 0);
	CHECK_EQ(room(p), MAXF);

	/* dup2 onto the last fd of a file closes that file */
	a = uvfs_openat(p, AT_FDCWD, "/f", O_RDONLY, 0);
	int b = uvfs_openat(p, AT_FDCWD, "/f", O_RDONLY, 0);
	CHECK_EQ(room(p), MAXF - 2);
	CHECK_EQ(uvfs_dup2(p, a, b), b);
	CHECK_EQ(room(p), MAXF - 1);
	CHECK_EQ(uvfs_close_range(p, 0, ~0u, 0), 0);
	CHECK_EQ(room(p), MAXF);

	/* a shared table: one set of files */
	a = uvfs_openat(p, AT_FDCWD, "/f", O_RDONLY, 0);
	struct uvfs_proc *t = uvfs_proc_clone(p, UVFS_CLONE_FILES);
	CHECK_EQ(room(p), MAXF - 1);
	CHECK_EQ(uvfs_close(t, a), 0); /* closes it for both */
	CHECK_EQ(room(p), MAXF);
	a = uvfs_openat(t, AT_FDCWD, "/f", O_RDONLY, 0);
	uvfs_proc_destroy(t); /* the table lives on in p */
	CHECK_EQ(uvfs_fstat(p, a, &st), 0);
	CHECK_EQ(room(p), MAXF - 1);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(room(p), MAXF);

	/* a copied table: the files get one more reference each */
	a = uvfs_openat(p, AT_FDCWD, "/f", O_RDONLY, 0);
	b = uvfs_openat(p, AT_FDCWD, "/f", O_RDONLY, 0);
	struct uvfs_proc *c = uvfs_proc_clone(p, 0);
	CHECK_EQ(room(p), MAXF - 2);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(room(p), MAXF - 2); /* c still has it */
	CHECK_EQ(uvfs_close(c, b), 0);
	CHECK_EQ(room(p), MAXF - 2); /* p still has that one */
	CHECK_EQ(uvfs_close(c, a), 0);
	CHECK_EQ(room(p), MAXF - 1);
	int cc = uvfs_dup(c, b >= 0 ? b : 0); /* b is closed in c: EBADF */
	CHECK_ERR(cc, EBADF);
	struct uvfs_proc *c2 = uvfs_proc_clone(p, 0);
	uvfs_proc_destroy(p); /* the parent leaves; c2's copy keeps b */
	p = c2;
	CHECK_EQ(room(p), MAXF - 1);
	CHECK_EQ(uvfs_fstat(p, b, &st), 0);
	uvfs_proc_destroy(c);
	CHECK_EQ(uvfs_close(p, b), 0);
	CHECK_EQ(room(p), MAXF);

	/* close_range with CLOSE_RANGE_UNSHARE in a shared table: the copy
	 * takes references, the close drops only the copy's */
	a = uvfs_openat(p, AT_FDCWD, "/f", O_RDONLY, 0);
	t = uvfs_proc_clone(p, UVFS_CLONE_FILES);
	CHECK_EQ(uvfs_close_range(t, 0, ~0u, CLOSE_RANGE_UNSHARE), 0);
	CHECK_EQ(room(p), MAXF - 1);
	CHECK_EQ(uvfs_fstat(p, a, &st), 0);
	uvfs_proc_destroy(t);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(room(p), MAXF);

	/* O_PATH and O_DIRECTORY fds are files too */
	a = uvfs_openat(p, AT_FDCWD, "/f", O_PATH, 0);
	CHECK(a >= 0);
	b = uvfs_dup(p, a);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_fstat(p, b, &st), 0);
	CHECK_EQ(uvfs_close(p, b), 0);
	CHECK_EQ(room(p), MAXF);
}

static void test_unlinked_open(void)
{
	SECTION("unlinked and renamed-over open files");
	long f0 = ffree(p, "/"), b0 = bfree(p, "/");
	CHECK(f0 > 0 && b0 > 0);
	static char buf[1 << 20], back[1 << 20];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 31 + 7);

	int a = uvfs_openat(p, AT_FDCWD, "/u", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(a >= 0);
	CHECK_EQ(uvfs_write(p, a, buf, sizeof(buf)), sizeof(buf));
	CHECK_EQ(ffree(p, "/"), f0 - 1);
	CHECK_EQ(bfree(p, "/"), b0 - 256);
	int d = uvfs_dup(p, a);
	struct uvfs_proc *c = uvfs_proc_clone(p, 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/u", 0), 0);
	struct stat st;
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/u", &st, 0), ENOENT);
	CHECK_EQ(uvfs_fstat(p, a, &st), 0);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_EQ(st.st_size, sizeof(buf));
	CHECK_EQ(ffree(p, "/"), f0 - 1); /* still alive */
	CHECK_EQ(bfree(p, "/"), b0 - 256);
	/* a name of the same spelling is a new inode */
	int n = uvfs_openat(p, AT_FDCWD, "/u", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(n >= 0);
	struct stat sn;
	CHECK_EQ(uvfs_fstat(p, n, &sn), 0);
	CHECK(sn.st_ino != st.st_ino);
	CHECK_EQ(sn.st_size, 0);
	CHECK_EQ(uvfs_close(p, n), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/u", 0), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 1);

	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_pread(p, d, back, sizeof(back), 0), sizeof(back));
	CHECK(memcmp(buf, back, sizeof(buf)) == 0);
	CHECK_EQ(uvfs_close(p, d), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 1); /* the copied table holds it */
	memset(back, 0, sizeof(back));
	CHECK_EQ(uvfs_pread(c, a, back, sizeof(back), 0), sizeof(back));
	CHECK(memcmp(buf, back, sizeof(buf)) == 0);
	/* a link to a file with no links left: ENOENT (it is not O_TMPFILE) */
	CHECK_ERR(uvfs_linkat(c, a, "", AT_FDCWD, "/relinked", AT_EMPTY_PATH), ENOENT);
	uvfs_proc_destroy(c); /* the last reference: inode and pages go */
	CHECK_EQ(ffree(p, "/"), f0);
	CHECK_EQ(bfree(p, "/"), b0);

	/* renamed over while open */
	a = uvfs_openat(p, AT_FDCWD, "/victim", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_write(p, a, buf, 8192), 8192);
	n = uvfs_openat(p, AT_FDCWD, "/winner", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_close(p, n), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/winner", AT_FDCWD, "/victim", 0), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	CHECK_EQ(uvfs_fstat(p, a, &st), 0);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_EQ(uvfs_pread(p, a, back, 8192, 0), 8192);
	CHECK(memcmp(buf, back, 8192) == 0);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 1);
	CHECK_EQ(bfree(p, "/"), b0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/victim", 0), 0);
	CHECK_EQ(ffree(p, "/"), f0);

	/* hard links: the inode lives until its last name and last fd */
	a = uvfs_openat(p, AT_FDCWD, "/h1", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/h1", AT_FDCWD, "/h2", 0), 0);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/h1", AT_FDCWD, "/h3", 0), 0);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h1", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h3", 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/h2", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 1);
	a = uvfs_openat(p, AT_FDCWD, "/h2", O_RDONLY, 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/h2", 0), 0);
	CHECK(ffree(p, "/") < f0);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(ffree(p, "/"), f0);

	/* renamed over while it has other links: only that name goes, and
	 * with it the link's inode charge (shmem charges each extra link) */
	a = uvfs_openat(p, AT_FDCWD, "/l1", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/l1", AT_FDCWD, "/l2", 0), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	a = uvfs_openat(p, AT_FDCWD, "/l3", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/l3", AT_FDCWD, "/l2", 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/l1", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 1);
	CHECK_EQ(ffree(p, "/"), f0 - 2); /* /l1 and /l2 (once /l3) */
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/l1", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/l2", 0), 0);
	CHECK_EQ(ffree(p, "/"), f0);

	/* O_TMPFILE: no name ever; gone at close */
	a = uvfs_openat(p, AT_FDCWD, "/", O_TMPFILE | O_RDWR, 0600);
	CHECK(a >= 0);
	CHECK_EQ(uvfs_write(p, a, buf, 4096), 4096);
	CHECK_EQ(ffree(p, "/"), f0 - 1);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(ffree(p, "/"), f0);
	CHECK_EQ(bfree(p, "/"), b0);
}

static void test_dir_pins(void)
{
	SECTION("directories pinned by a cwd or an fd");
	long f0 = ffree(p, "/");
	struct uvfs_proc *q = uvfs_proc_clone(p, 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/e", 0755), 0);
	CHECK_EQ(uvfs_chdir(q, "/d/e"), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d/e", AT_REMOVEDIR), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d", AT_REMOVEDIR), 0);
	/* both stay: /d/e is the cwd, and a dentry pins its parent as in
	 * Linux (d_parent holds a reference; "../" still works below) */
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, ".", &st, 0), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(st.st_nlink, 0);
	CHECK_ERR(uvfs_openat(q, AT_FDCWD, "x", O_CREAT | O_RDWR, 0600), ENOENT);
	CHECK_ERR(uvfs_mkdirat(q, AT_FDCWD, "x", 0700), ENOENT);
	CHECK_ERR(uvfs_symlinkat(q, "t", AT_FDCWD, "x"), ENOENT);
	char cwd[256];
	CHECK_ERR(uvfs_getcwd(q, cwd, sizeof(cwd)), ENOENT);
	int dfd = uvfs_openat(q, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	CHECK(dfd >= 0);
	char dents[512];
	/* Linux's iterate_dir: ENOENT on a dead directory */
	CHECK_ERR(uvfs_getdents64(q, dfd, dents, sizeof(dents)), ENOENT);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "..", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 0);
	/* the cwd moves; the fd pins it now */
	CHECK_EQ(uvfs_chdir(q, "/"), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	CHECK_EQ(uvfs_fchdir(q, dfd), 0);
	CHECK_EQ(uvfs_close(q, dfd), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2); /* and the cwd again */
	/* a clone that shares the fs_struct moves with it */
	struct uvfs_proc *s = uvfs_proc_clone(q, UVFS_CLONE_FS);
	struct uvfs_proc *k = uvfs_proc_clone(q, 0); /* a copied cwd: one more pin */
	CHECK_EQ(uvfs_chdir(s, "/"), 0);
	CHECK_EQ(uvfs_getcwd(q, cwd, sizeof(cwd)), 2);
	CHECK_EQ(ffree(p, "/"), f0 - 2); /* k is still in it */
	CHECK_EQ(uvfs_fstatat(k, AT_FDCWD, ".", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 0);
	uvfs_proc_destroy(k);
	CHECK_EQ(ffree(p, "/"), f0);
	uvfs_proc_destroy(s);

	/* a directory renamed over while it is a cwd */
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/r1", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/r2", 0755), 0);
	CHECK_EQ(uvfs_chdir(q, "/r2"), 0);
	CHECK_EQ(uvfs_renameat2(p, AT_FDCWD, "/r1", AT_FDCWD, "/r2", 0), 0);
	CHECK_EQ(ffree(p, "/"), f0 - 2);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, ".", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "..", &st, 0), 0); /* the old parent */
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(uvfs_chdir(q, "/r2"), 0); /* the survivor, r1's inode */
	CHECK_EQ(ffree(p, "/"), f0 - 1);
	CHECK_EQ(uvfs_chdir(q, "/"), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/r2", AT_REMOVEDIR), 0);
	CHECK_EQ(ffree(p, "/"), f0);

	/* a deep tree removed bottom-up under a cwd at its leaf */
	char path[256] = "";
	for (int i = 0; i < 10; i++) {
		strcat(path, "/t");
		CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, path, 0755), 0);
	}
	CHECK_EQ(uvfs_chdir(q, path), 0);
	for (int i = 10; i > 0; i--) {
		CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, path, AT_REMOVEDIR), 0);
		path[strlen(path) - 2] = 0;
	}
	CHECK_EQ(ffree(p, "/"), f0 - 10); /* the leaf pins its ancestors */
	/* ".." of the removed leaf is its removed parent: still there */
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "../..", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 0);
	uvfs_proc_destroy(q);
	CHECK_EQ(ffree(p, "/"), f0);
}

static void test_mounts(void)
{
	SECTION("mounts: busy, lazily unmounted");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/m", 0755), 0);
	CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, "size=1m,nr_inodes=64"), 0);
	long mf = ffree(p, "/m");
	CHECK(mf > 0);
	int a = uvfs_openat(p, AT_FDCWD, "/m/file", O_CREAT | O_RDWR, 0600);
	CHECK(a >= 0);
	CHECK_EQ(ffree(p, "/m"), mf - 1);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY);
	CHECK_EQ(uvfs_close(p, a), 0);
	struct uvfs_proc *q = uvfs_proc_clone(p, 0);
	CHECK_EQ(uvfs_chdir(q, "/m"), 0);
	CHECK_ERR(uvfs_umount2(p, "/m", 0), EBUSY);
	CHECK_EQ(uvfs_chdir(q, "/"), 0);
	CHECK_EQ(uvfs_umount2(p, "/m", 0), 0);
	struct stat st;
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/m/file", &st, 0), ENOENT);

	/* lazily: the open file and the cwd keep working in the detached tree */
	CHECK_EQ(uvfs_mount(p, "none", "/m", "tmpfs", 0, "size=1m,nr_inodes=64"), 0);
	a = uvfs_openat(p, AT_FDCWD, "/m/file", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_chdir(q, "/m"), 0);
	CHECK_EQ(uvfs_umount2(p, "/m", MNT_DETACH), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/m/file", &st, 0), ENOENT);
	CHECK_EQ(uvfs_write(p, a, "abc", 3), 3);
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "file", &st, 0), 0);
	CHECK_EQ(st.st_size, 3);
	int b = uvfs_openat(q, AT_FDCWD, "new", O_CREAT | O_RDWR, 0600);
	CHECK(b >= 0, "create in a detached mount: %d", b);
	CHECK_EQ(uvfs_close(p, a), 0);
	CHECK_EQ(uvfs_close(q, b), 0);
	CHECK_EQ(uvfs_chdir(q, "/"), 0); /* the last reference: the tree goes */
	uvfs_proc_destroy(q);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/m", AT_REMOVEDIR), 0);
}

/* ---- one inode's links changed from several directories at once ---- */

static volatile int nl_stop;
struct nl_arg {
	int id;
	unsigned long done;
};
static void *nlink_thread(void *arg)
{
	struct nl_arg *a = arg;
	char dir[32], name[48];
	snprintf(dir, sizeof(dir), "/nl/d%d", a->id);
	snprintf(name, sizeof(name), "%s/link", dir);
	while (!__atomic_load_n(&nl_stop, __ATOMIC_RELAXED)) {
		/* each thread links and unlinks its own name in its own
		 * directory: only the shared inode is common to them */
		if (uvfs_linkat(p, AT_FDCWD, "/nl/file", AT_FDCWD, name, 0) == 0)
			uvfs_unlinkat(p, AT_FDCWD, name, 0);
		a->done++;
	}
	return NULL;
}

static void test_concurrent_nlink(void)
{
	SECTION("one inode linked and unlinked from four directories at once");
	long f0 = ffree(p, "/");
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/nl", 0755), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/nl/file", O_CREAT | O_RDWR, 0600);
	CHECK_EQ(uvfs_close(p, fd), 0);
	enum { NT = 4 };
	pthread_t th[NT];
	struct nl_arg args[NT];
	for (int i = 0; i < NT; i++) {
		char d[32];
		snprintf(d, sizeof(d), "/nl/d%d", i);
		CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, d, 0755), 0);
		args[i].id = i;
		args[i].done = 0;
		pthread_create(&th[i], NULL, nlink_thread, &args[i]);
	}
	struct timespec ts = { 0, 500 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__atomic_store_n(&nl_stop, 1, __ATOMIC_RELAXED);
	unsigned long done = 0;
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		done += args[i].done;
	}
	printf("   %lu link+unlink pairs\n", done);
	/* Linux serialises the changes of one inode's links with that inode's
	 * lock (vfs_link and vfs_unlink both take it); then the count and the
	 * tmpfs's charges come out exact whatever the interleaving.
	 * KNOWN CORE BUG (reported by the unit tests): uvfs's unlinkat locks
	 * only the directory, so two unlinks (or an unlink and a link) of one
	 * inode in different directories lose updates of i_nlink and of the
	 * charges: nlink ends above 1 (the inode would never be freed) or,
	 * the other way, reaches 0 while names remain. */
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/nl/file", &st, 0), 0);
	CHECK_EQ(st.st_nlink, 1);
	CHECK_EQ(ffree(p, "/"), f0 - (1 + 1 + NT)); /* /nl, the file, the four directories */
	for (int i = 0; i < NT; i++) {
		char d[32];
		snprintf(d, sizeof(d), "/nl/d%d", i);
		CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, d, AT_REMOVEDIR), 0);
	}
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/nl/file", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/nl", AT_REMOVEDIR), 0);
	CHECK_EQ(ffree(p, "/"), f0);
}

/* ---- uvfs_destroy with everything still held ---- */

static void build_clutter(struct uvfs *fs)
{
	struct uvfs_proc *r = uvfs_proc_create(fs, 0, 0);
	uvfs_proc_set_nofile(r, 4096);
	/* files: plain, unlinked-with-data, dups, a high fd, O_PATH, a dir */
	int a = uvfs_openat(r, AT_FDCWD, "/keep", O_CREAT | O_RDWR, 0644);
	uvfs_write(r, a, "data", 4);
	int u = uvfs_openat(r, AT_FDCWD, "/gone", O_CREAT | O_RDWR, 0644);
	static char big[3 << 16];
	memset(big, 'z', sizeof(big));
	uvfs_pwrite(r, u, big, sizeof(big), 1 << 20); /* a hole, then pages */
	uvfs_unlinkat(r, AT_FDCWD, "/gone", 0);
	uvfs_dup(r, u);
	uvfs_dup2(r, a, 3000);
	uvfs_openat(r, AT_FDCWD, "/keep", O_PATH, 0);
	uvfs_openat(r, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0);
	uvfs_openat(r, AT_FDCWD, "/", O_TMPFILE | O_RDWR, 0600);
	uvfs_symlinkat(r, "/keep", AT_FDCWD, "/link");
	uvfs_symlinkat(r, "a-body-longer-than-a-short-symlink-so-that-it-is-charged-a-page-as-shmem-does"
			  "-and-allocated-separately-from-the-inode-itself-which-needs-well-over-128-bytes",
		       AT_FDCWD, "/longlink");
	uvfs_linkat(r, AT_FDCWD, "/keep", AT_FDCWD, "/keep2", 0);
	/* negative dentries */
	struct stat st;
	for (int i = 0; i < 100; i++) {
		char n[32];
		sprintf(n, "/neg%d", i);
		uvfs_fstatat(r, AT_FDCWD, n, &st, 0);
	}
	/* a tree with files */
	uvfs_mkdirat(r, AT_FDCWD, "/tree", 0755);
	uvfs_mkdirat(r, AT_FDCWD, "/tree/sub", 0755);
	for (int i = 0; i < 50; i++) {
		char n[64];
		sprintf(n, "/tree/sub/f%d", i);
		int fd = uvfs_openat(r, AT_FDCWD, n, O_CREAT | O_WRONLY, 0644);
		uvfs_write(r, fd, n, strlen(n));
		if (i % 10)
			uvfs_close(r, fd);
	}
	/* cwds in removed directories: own fs_struct and a shared one */
	struct uvfs_proc *c1 = uvfs_proc_clone(r, 0);
	uvfs_mkdirat(r, AT_FDCWD, "/doomed", 0755);
	uvfs_mkdirat(r, AT_FDCWD, "/doomed/deeper", 0755);
	uvfs_chdir(c1, "/doomed/deeper");
	struct uvfs_proc *c2 = uvfs_proc_clone(c1, UVFS_CLONE_FS | UVFS_CLONE_FILES);
	uvfs_unlinkat(r, AT_FDCWD, "/doomed/deeper", AT_REMOVEDIR);
	uvfs_unlinkat(r, AT_FDCWD, "/doomed", AT_REMOVEDIR);
	uvfs_openat(c2, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	/* mounts: a tmpfs with files, a bind mount, a mount on a mount */
	uvfs_mkdirat(r, AT_FDCWD, "/mnt", 0755);
	uvfs_mount(r, "none", "/mnt", "tmpfs", 0, "size=4m");
	uvfs_mkdirat(r, AT_FDCWD, "/mnt/inner", 0755);
	int mfd = uvfs_openat(r, AT_FDCWD, "/mnt/file", O_CREAT | O_RDWR, 0600);
	uvfs_write(r, mfd, big, sizeof(big));
	uvfs_mount(r, "none", "/mnt/inner", "tmpfs", 0, NULL);
	uvfs_openat(r, AT_FDCWD, "/mnt/inner/f", O_CREAT | O_RDWR, 0600);
	uvfs_mkdirat(r, AT_FDCWD, "/bind", 0755);
	uvfs_mount(r, "/tree", "/bind", NULL, MS_BIND, NULL);
	uvfs_mount(r, "none", "/mnt", "tmpfs", 0, NULL); /* stacked on /mnt */
	/* lazily unmounted, with an open file and a cwd inside */
	uvfs_mkdirat(r, AT_FDCWD, "/lazy", 0755);
	uvfs_mount(r, "none", "/lazy", "tmpfs", 0, NULL);
	uvfs_mkdirat(r, AT_FDCWD, "/lazy/d", 0755);
	uvfs_openat(r, AT_FDCWD, "/lazy/d/open", O_CREAT | O_RDWR, 0600);
	struct uvfs_proc *c3 = uvfs_proc_clone(r, 0);
	uvfs_chdir(c3, "/lazy/d");
	uvfs_umount2(r, "/lazy", MNT_DETACH);
	/* a lazily unmounted tree that nothing holds any more */
	uvfs_mkdirat(r, AT_FDCWD, "/lazy2", 0755);
	uvfs_mount(r, "none", "/lazy2", "tmpfs", 0, NULL);
	uvfs_mkdirat(r, AT_FDCWD, "/lazy2/x", 0755);
	uvfs_umount2(r, "/lazy2", MNT_DETACH);
	/* a chrooted proc */
	struct uvfs_proc *c4 = uvfs_proc_clone(r, 0);
	uvfs_chroot(c4, "/tree");
	uvfs_openat(c4, AT_FDCWD, "/sub/f1", O_RDONLY, 0);
}

static void *clutter_thread(void *arg)
{
	/* a thread that opens and closes, then exits: whatever it kept per
	 * thread must not outlive the instance */
	struct uvfs_proc *q = arg;
	for (int i = 0; i < 200; i++) {
		int fd = uvfs_openat(q, AT_FDCWD, "/keep", O_RDONLY, 0);
		if (fd >= 0)
			uvfs_close(q, fd);
		int dfd = uvfs_dup(q, 0);
		if (dfd >= 0)
			uvfs_close(q, dfd);
	}
	/* many files at once, all closed by this thread: whatever it caches
	 * of them must go back by the time the instance is destroyed */
	int fds[150];
	for (int i = 0; i < 150; i++)
		fds[i] = uvfs_openat(q, AT_FDCWD, "/keep", O_RDONLY, 0);
	for (int i = 0; i < 150; i++)
		if (fds[i] >= 0)
			uvfs_close(q, fds[i]);
	int fd = uvfs_openat(q, AT_FDCWD, "/thread-left-open", O_CREAT | O_RDWR, 0600);
	(void)fd;
	return NULL;
}

static void *destroy_thread(void *fs)
{
	uvfs_destroy(fs);
	return NULL;
}

static void test_destroy(void)
{
	SECTION("uvfs_destroy with everything held");
	struct uvfs *fs = uvfs_create(NULL);
	CHECK(fs != NULL);
	build_clutter(fs);
	uvfs_destroy(fs);
	CHECK(1, "destroy returned"); /* LeakSanitizer reports at exit */

	/* the same used by threads that exited before the destroy */
	fs = uvfs_create(NULL);
	build_clutter(fs);
	struct uvfs_proc *q = uvfs_proc_create(fs, 0, 0);
	int fd = uvfs_openat(q, AT_FDCWD, "/keep", O_RDONLY, 0);
	CHECK_EQ(fd, 0);
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, clutter_thread, q);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	uvfs_destroy(fs);
	CHECK(1, "destroy after threads returned");

	/* an instance destroyed from a thread other than its creator's */
	fs = uvfs_create(NULL);
	build_clutter(fs);
	pthread_t t;
	pthread_create(&t, NULL, destroy_thread, fs);
	pthread_join(t, NULL);
	CHECK(1, "destroy from another thread returned");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct uvfs_options o = { .max_files = MAXF, .tmpfs_nr_inodes = 1000, .tmpfs_size = 64 << 20 };
	vfs = uvfs_create(&o);
	p = uvfs_proc_create(vfs, 0, 0);
	test_file_counts();
	uvfs_destroy(vfs);

	struct uvfs_options o2 = { .tmpfs_nr_inodes = 1000, .tmpfs_size = 64 << 20 };
	vfs = uvfs_create(&o2);
	p = uvfs_proc_create(vfs, 0, 0);
	test_unlinked_open();
	test_dir_pins();
	test_mounts();
	test_concurrent_nlink();
	uvfs_destroy(vfs);

	test_destroy();
	return check_done();
}
