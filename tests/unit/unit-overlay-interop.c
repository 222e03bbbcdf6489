// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-overlay-interop: layers written by one overlayfs mount under the
 * other with the same view.
 *
 *   - uvfs -> Linux: the layers are made in a uvfs instance, changed through
 *     a uvfs overlay (copy-ups, whiteouts, an opaque directory, renames with
 *     redirect_dir=on), then copied out byte for byte (data, modes, owners,
 *     symlinks, whiteout devices, every xattr, trusted.* included) to a
 *     tmpfs of the host in a private mount namespace, where the kernel's
 *     overlayfs mounts them: its merged tree must be the one uvfs shows;
 *   - Linux -> uvfs: the same changes made through the kernel's overlay,
 *     the layers copied into a new instance and mounted there.
 *
 * The trees are compared as sorted listings of the merged view (path,
 * type, mode, owner, size, data or link target); inode numbers and times
 * are each system's own.  Needs root (mount); without it, skipped.
 */

#include "uvfs.h"
#include "check.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* One side: a uvfs proc, or the host under a path prefix. */
struct side {
	struct uvfs_proc *p;
	const char *prefix;
};

static const char *hp(const struct side *s, const char *path, char *buf)
{
	snprintf(buf, 1024, "%s%s", s->prefix, path);
	return buf;
}
#define HOST(call) ((call) < 0 ? -errno : 0)

static int s_mkdir(const struct side *s, const char *path, mode_t m)
{
	char b[1024];
	return s->p ? uvfs_mkdirat(s->p, AT_FDCWD, path, m) : HOST(mkdir(hp(s, path, b), m));
}
static int s_mknod(const struct side *s, const char *path, mode_t m, dev_t d)
{
	char b[1024];
	return s->p ? uvfs_mknodat(s->p, AT_FDCWD, path, m, d) : HOST(mknod(hp(s, path, b), m, d));
}
static int s_symlink(const struct side *s, const char *target, const char *path)
{
	char b[1024];
	return s->p ? uvfs_symlinkat(s->p, target, AT_FDCWD, path) : HOST(symlink(target, hp(s, path, b)));
}
static int s_put(const struct side *s, const char *path, const void *data, size_t n, int flags)
{
	char b[1024];
	int fd = s->p ? uvfs_openat(s->p, AT_FDCWD, path, O_WRONLY | O_CREAT | flags, 0644)
		      : open(hp(s, path, b), O_WRONLY | O_CREAT | flags, 0644);
	if (fd < 0)
		return s->p ? fd : -errno;
	ssize_t w = s->p ? uvfs_write(s->p, fd, data, n) : write(fd, data, n);
	if (s->p)
		uvfs_close(s->p, fd);
	else
		close(fd);
	return w == (ssize_t)n ? 0 : -EIO;
}
static ssize_t s_get(const struct side *s, const char *path, char *buf, size_t n)
{
	char b[1024];
	int fd = s->p ? uvfs_openat(s->p, AT_FDCWD, path, O_RDONLY, 0) : open(hp(s, path, b), O_RDONLY);
	if (fd < 0)
		return s->p ? fd : -errno;
	ssize_t r = s->p ? uvfs_read(s->p, fd, buf, n) : read(fd, buf, n);
	if (s->p)
		uvfs_close(s->p, fd);
	else
		close(fd);
	return r;
}
static int s_lstat(const struct side *s, const char *path, struct stat *st)
{
	char b[1024];
	return s->p ? uvfs_fstatat(s->p, AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW) : HOST(lstat(hp(s, path, b), st));
}
static ssize_t s_readlink(const struct side *s, const char *path, char *buf, size_t n)
{
	char b[1024];
	ssize_t r = s->p ? uvfs_readlinkat(s->p, AT_FDCWD, path, buf, n) : readlink(hp(s, path, b), buf, n);
	return r < 0 && !s->p ? -errno : r;
}
static ssize_t s_listx(const struct side *s, const char *path, char *buf, size_t n)
{
	char b[1024];
	ssize_t r = s->p ? uvfs_llistxattr(s->p, path, buf, n) : llistxattr(hp(s, path, b), buf, n);
	return r < 0 && !s->p ? -errno : r;
}
static ssize_t s_getx(const struct side *s, const char *path, const char *name, void *buf, size_t n)
{
	char b[1024];
	ssize_t r = s->p ? uvfs_lgetxattr(s->p, path, name, buf, n) : lgetxattr(hp(s, path, b), name, buf, n);
	return r < 0 && !s->p ? -errno : r;
}
static int s_setx(const struct side *s, const char *path, const char *name, const void *v, size_t n)
{
	char b[1024];
	return s->p ? uvfs_lsetxattr(s->p, path, name, v, n, 0) : HOST(lsetxattr(hp(s, path, b), name, v, n, 0));
}
static int s_chmod(const struct side *s, const char *path, mode_t m)
{
	char b[1024];
	return s->p ? uvfs_fchmodat(s->p, AT_FDCWD, path, m, 0) : HOST(chmod(hp(s, path, b), m));
}
static int s_lchown(const struct side *s, const char *path, uid_t u, gid_t g)
{
	char b[1024];
	return s->p ? uvfs_fchownat(s->p, AT_FDCWD, path, u, g, AT_SYMLINK_NOFOLLOW) : HOST(lchown(hp(s, path, b), u, g));
}
static int s_unlink(const struct side *s, const char *path, int flags)
{
	char b[1024];
	return s->p ? uvfs_unlinkat(s->p, AT_FDCWD, path, flags)
		    : HOST(flags ? rmdir(hp(s, path, b)) : unlink(hp(s, path, b)));
}
static int s_rename(const struct side *s, const char *a, const char *b_)
{
	char b[1024], c[1024];
	return s->p ? uvfs_renameat2(s->p, AT_FDCWD, a, AT_FDCWD, b_, 0) : HOST(rename(hp(s, a, b), hp(s, b_, c)));
}
static int s_mount_overlay(const struct side *s, const char *opts)
{
	char data[1024], b[1024];
	if (s->p)
		return uvfs_mount(s->p, "overlay", "/m", "overlay", 0, opts);
	/* the same options with the host's prefix before each layer */
	snprintf(data, sizeof data, "lowerdir=%s/l1:%s/l2,upperdir=%s/u,workdir=%s/w%s", s->prefix, s->prefix,
		 s->prefix, s->prefix, strstr(opts, ",redirect_dir=on") ? ",redirect_dir=on" : "");
	return HOST(mount("overlay", hp(s, "/m", b), "overlay", 0, data));
}
static int s_umount(const struct side *s)
{
	char b[1024];
	return s->p ? uvfs_umount2(s->p, "/m", 0) : HOST(umount2(hp(s, "/m", b), 0));
}

/* names of a directory, sorted, without "." and ".." */
static int s_names(const struct side *s, const char *dir, char names[][256], int max)
{
	int n = 0;
	if (s->p) {
		int fd = uvfs_openat(s->p, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			return fd;
		char buf[4096];
		ssize_t r;
		while ((r = uvfs_getdents64(s->p, fd, buf, sizeof buf)) > 0)
			for (ssize_t off = 0; off < r;) {
				struct dirent64 *d = (void *)(buf + off);
				if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") && n < max)
					snprintf(names[n++], 256, "%s", d->d_name);
				off += d->d_reclen;
			}
		uvfs_close(s->p, fd);
	} else {
		char b[1024];
		DIR *d = opendir(hp(s, dir, b));
		if (!d)
			return -errno;
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < max)
				snprintf(names[n++], 256, "%s", e->d_name);
		closedir(d);
	}
	qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
	return n;
}

/* The view below dir, one line per object. */
static void dump(const struct side *s, const char *dir, char *out, size_t *l, size_t cap)
{
	char (*names)[256] = malloc(128 * 256);
	int n = s_names(s, dir, names, 128);
	for (int i = 0; i < n && *l < cap - 1024; i++) {
		char p[1024];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		struct stat st;
		if (s_lstat(s, p, &st))
			continue;
		*l += (size_t)snprintf(out + *l, cap - *l, "%s %o %o %u:%u", p + 2, st.st_mode & S_IFMT, st.st_mode & 07777,
				       st.st_uid, st.st_gid);
		char buf[256];
		if (S_ISREG(st.st_mode)) {
			ssize_t r = s_get(s, p, buf, sizeof buf - 1);
			buf[r > 0 ? r : 0] = 0;
			*l += (size_t)snprintf(out + *l, cap - *l, " %lld [%s]", (long long)st.st_size, buf);
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t r = s_readlink(s, p, buf, sizeof buf - 1);
			buf[r > 0 ? r : 0] = 0;
			*l += (size_t)snprintf(out + *l, cap - *l, " -> %s", buf);
		} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
			*l += (size_t)snprintf(out + *l, cap - *l, " %u:%u", major(st.st_rdev), minor(st.st_rdev));
		}
		*l += (size_t)snprintf(out + *l, cap - *l, "\n");
		if (S_ISDIR(st.st_mode))
			dump(s, p, out, l, cap);
	}
	free(names);
}

static char *view(const struct side *s)
{
	char *out = malloc(65536);
	size_t l = 0;
	out[0] = 0;
	dump(s, "/m", out, &l, 65536);
	return out;
}

/* A layer tree from one side to the other, everything a layer holds. */
static int copy_tree(const struct side *a, const struct side *b, const char *dir)
{
	char (*names)[256] = malloc(128 * 256);
	int n = s_names(a, dir, names, 128), err = n < 0 ? n : 0;
	for (int i = 0; i < n && !err; i++) {
		char p[1024];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		struct stat st;
		if ((err = s_lstat(a, p, &st)))
			break;
		char buf[65536];
		if (S_ISDIR(st.st_mode)) {
			err = s_mkdir(b, p, 0700);
		} else if (S_ISREG(st.st_mode)) {
			ssize_t r = s_get(a, p, buf, sizeof buf);
			err = r < 0 ? (int)r : s_put(b, p, buf, (size_t)r, O_EXCL);
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t r = s_readlink(a, p, buf, sizeof buf - 1);
			buf[r > 0 ? r : 0] = 0;
			err = r < 0 ? (int)r : s_symlink(b, buf, p);
		} else {
			err = s_mknod(b, p, st.st_mode, st.st_rdev);
		}
		if (err)
			break;
		char list[4096];
		ssize_t ln = s_listx(a, p, list, sizeof list);
		for (ssize_t k = 0; k < ln && !err; k += (ssize_t)strlen(list + k) + 1) {
			ssize_t vn = s_getx(a, p, list + k, buf, sizeof buf);
			if (vn >= 0)
				err = s_setx(b, p, list + k, buf, (size_t)vn);
		}
		if (!err)
			err = s_lchown(b, p, st.st_uid, st.st_gid);
		if (!err && !S_ISLNK(st.st_mode))
			err = s_chmod(b, p, st.st_mode & 07777);
		if (!err && S_ISDIR(st.st_mode))
			err = copy_tree(a, b, p);
	}
	free(names);
	return err;
}

static void layers(const struct side *s)
{
	const char *dirs[] = { "/l1", "/l2", "/u", "/w", "/m", "/l1/d", "/l2/d", "/l1/pure", "/l1/op", "/l2/e",
			       "/l2/deep", "/l2/deep/er", "/u/up" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		CHECK(s_mkdir(s, dirs[i], 0755) == 0, "%s", dirs[i]);
	CHECK(!s_put(s, "/l1/a", "a from l1", 9, 0));
	CHECK(!s_put(s, "/l2/a", "a from l2", 9, 0));
	CHECK(!s_put(s, "/l2/b", "b from l2", 9, 0));
	CHECK(!s_put(s, "/l1/d/y", "y", 1, 0));
	CHECK(!s_put(s, "/l2/d/x", "x", 1, 0));
	CHECK(!s_put(s, "/l1/pure/p", "p", 1, 0));
	CHECK(!s_put(s, "/l1/op/hidden", "hidden", 6, 0));
	CHECK(!s_put(s, "/l2/deep/er/f", "deep", 4, 0));
	CHECK(!s_symlink(s, "a", "/l1/sl"));
	CHECK(!s_setx(s, "/l1/a", "user.kept", "v", 1));
}

/* The changes made through the overlay (all must succeed on both). */
static void changes(const struct side *s, const char *who)
{
	CHECK(!s_put(s, "/m/a", "+more", 5, O_APPEND), "%s", who);
	CHECK(!s_chmod(s, "/m/b", 0600), "%s", who);
	CHECK(!s_lchown(s, "/m/sl", 7, 8), "%s", who);
	CHECK(!s_unlink(s, "/m/d/x", 0), "%s", who);
	CHECK(!s_unlink(s, "/m/pure/p", 0), "%s", who);
	CHECK(!s_unlink(s, "/m/pure", AT_REMOVEDIR), "%s", who);
	CHECK(!s_mkdir(s, "/m/pure", 0750), "%s", who);
	CHECK(!s_put(s, "/m/pure/new", "new", 3, 0), "%s", who);
	CHECK(!s_unlink(s, "/m/op/hidden", 0), "%s", who);
	CHECK(!s_rename(s, "/m/b", "/m/e/b2"), "%s", who);
	CHECK(!s_rename(s, "/m/d", "/m/d2"), "%s", who);
	CHECK(!s_rename(s, "/m/deep/er", "/m/up/er"), "%s", who);
	CHECK(!s_put(s, "/m/deep/er2", "er2", 3, 0), "%s", who);
	CHECK(!s_symlink(s, "d2/y", "/m/ly"), "%s", who);
	CHECK(!s_mknod(s, "/m/fifo", S_IFIFO | 0640, 0), "%s", who);
	CHECK(!s_setx(s, "/m/e", "user.new", "1", 1), "%s", who);
}

#define OPTS "lowerdir=/l1:/l2,upperdir=/u,workdir=/w,redirect_dir=on"

static void compare(const char *what, const char *a, const char *b)
{
	/* the changes are in the view compared: a redirected directory's
	 * lower names, a copied-up file, an opaque directory's own names */
	CHECK(strstr(a, "/d2/y ") && strstr(a, "/a 100000 644 0:0 14 [a from l1+more]") &&
	      strstr(a, "/pure/new ") && !strstr(a, "/pure/p ") && !strstr(a, "/d2/x "),
	      "%s: the view lacks the changes:\n%s", what, a);
	int same = !strcmp(a, b);
	CHECK(same, "%s differ:\n--- uvfs\n%s--- host\n%s", what, a, b);
}

int main(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("SKIP: needs root and a private mount namespace\n");
		return check_done();
	}
	char dir[] = "/tmp/uvfs-ovl-interop.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(mount("tmpfs", dir, "tmpfs", 0, NULL) == 0);
	char hdir[64];

	/* uvfs writes the layers; Linux mounts them */
	struct uvfs *fs = uvfs_create(NULL);
	struct side u = { .p = uvfs_proc_create(fs, 0, 0) };
	snprintf(hdir, sizeof hdir, "%s/a", dir);
	CHECK(mkdir(hdir, 0755) == 0);
	struct side h = { .prefix = hdir };
	layers(&u);
	CHECK(s_mount_overlay(&u, OPTS) == 0);
	changes(&u, "uvfs");
	char *uv = view(&u);
	CHECK(s_umount(&u) == 0);
	const char *trees[] = { "/l1", "/l2", "/u", "/w", "/m" };
	for (int i = 0; i < 5; i++)
		CHECK(s_mkdir(&h, trees[i], 0755) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(copy_tree(&u, &h, trees[i]) == 0, "copy %s out", trees[i]);
	/* the layer roots' own xattrs (the upper's uuid) */
	char list[1024], v[256];
	ssize_t ln = s_listx(&u, "/u", list, sizeof list);
	for (ssize_t k = 0; k < ln; k += (ssize_t)strlen(list + k) + 1) {
		ssize_t vn = s_getx(&u, "/u", list + k, v, sizeof v);
		CHECK(vn >= 0 && s_setx(&h, "/u", list + k, v, (size_t)vn) == 0, "%s", list + k);
	}
	CHECK(s_mount_overlay(&h, OPTS) == 0, "the host mounts uvfs's layers: %s", strerror(errno));
	char *hv = view(&h);
	compare("uvfs-written layers", uv, hv);
	CHECK(s_umount(&h) == 0);
	free(hv);
	free(uv);
	uvfs_proc_destroy(u.p);
	uvfs_destroy(fs);

	/* Linux writes them; uvfs mounts them */
	snprintf(hdir, sizeof hdir, "%s/b", dir);
	CHECK(mkdir(hdir, 0755) == 0);
	layers(&h);
	CHECK(s_mount_overlay(&h, OPTS) == 0);
	changes(&h, "host");
	hv = view(&h);
	CHECK(s_umount(&h) == 0);
	fs = uvfs_create(NULL);
	u.p = uvfs_proc_create(fs, 0, 0);
	for (int i = 0; i < 5; i++)
		CHECK(s_mkdir(&u, trees[i], 0755) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(copy_tree(&h, &u, trees[i]) == 0, "copy %s in", trees[i]);
	ln = s_listx(&h, "/u", list, sizeof list);
	for (ssize_t k = 0; k < ln; k += (ssize_t)strlen(list + k) + 1) {
		ssize_t vn = s_getx(&h, "/u", list + k, v, sizeof v);
		CHECK(vn >= 0 && s_setx(&u, "/u", list + k, v, (size_t)vn) == 0, "%s", list + k);
	}
	CHECK(s_mount_overlay(&u, OPTS) == 0);
	uv = view(&u);
	compare("host-written layers", uv, hv);
	CHECK(s_umount(&u) == 0);
	free(hv);
	free(uv);
	uvfs_proc_destroy(u.p);
	uvfs_destroy(fs);

	umount2(dir, MNT_DETACH);
	rmdir(dir);
	return check_done();
}
