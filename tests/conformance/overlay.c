// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * overlay.c - overlayfs against the host kernel's: each scenario builds the
 * same layers on the scenario's root, mounts an overlay of them on /m and
 * records what the merged tree shows, and afterwards what the upper layer
 * holds (names, types, modes, whiteouts, trusted.overlay.* xattrs, data).
 *
 * Listings are recorded twice: sorted (LS), and in readdir order with each
 * entry's d_ino compared to its st_ino, since Linux's merged order (the
 * lowest layer's names first) and its inode numbers without xino are part of
 * what a program sees.  Inode numbers and devices are compared as relations
 * between two paths (same or not), never as values.
 */
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include "conf.h"

#define setxattr(p, n, v, s, f) B->setxattr(BX, p, n, v, s, f)
#define lsetxattr(p, n, v, s, f) B->lsetxattr(BX, p, n, v, s, f)
#define lgetxattr(p, n, v, s) B->lgetxattr(BX, p, n, v, s)
#define lremovexattr(p, n) B->lremovexattr(BX, p, n)
#define llistxattr(p, l, s) B->llistxattr(BX, p, l, s)

#define OVL(data) mount("overlay", "/m", "overlay", 0, data)
#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define STD_OPTS "lowerdir=/l1:/l2,upperdir=/u,workdir=/w"

static void put(const char *path, const char *data)
{
	int fd = OPEN(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd >= 0) {
		wr(fd, data);
		cl(fd);
	}
}

/* The layers every scenario starts from (not recorded: the host makes the
 * same ones and each step is checked by what the overlay then shows). */
static void layers(void)
{
	const char *dirs[] = { "/l1", "/l2", "/u", "/w", "/m", "/l1/d", "/l2/d", "/u/d", "/l1/pure", "/l1/op",
			       "/u/op", "/l2/e", "/u/f", "/l1/filedir", "/l2/deep", "/l2/deep/er", "/l1/dd",
			       "/l2/dd", "/l2/dd/sub" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		MKDIR(dirs[i], 0755);
	put("/l1/a", "a from l1");
	put("/l2/a", "a from l2");
	put("/l2/b", "b from l2");
	put("/u/c", "c from u");
	put("/l1/d/y", "y");
	put("/l2/d/x", "x");
	put("/l2/d/x2", "x2");
	put("/u/d/z", "z");
	put("/l1/pure/p", "p");
	put("/l1/op/hidden", "hidden");
	put("/u/op/shown", "shown");
	put("/l1/wh", "whited out");
	put("/l2/filedir", "a file below a dir");
	put("/l2/deep/er/f", "deep");
	put("/l2/dd/sub/s", "s");
	SYMLINK("a", "/l1/sl");
	SYMLINK("d/y", "/l1/sld");
	SYMLINK("/m/a", "/l2/abs");
	MKNOD("/u/wh", S_IFCHR | 0, 0);
	MKNOD("/u/d/x", S_IFCHR | 0, 0);
	MKNOD("/l1/dd/sub", S_IFCHR | 0, 0);
	setxattr("/u/op", "trusted.overlay.opaque", "y", 1, 0);
	setxattr("/l1/a", "user.kept", "v", 1, 0);
}

/* The names of a directory in readdir order, each "name:t" and "=" when its
 * d_ino is the st_ino stat gives the name, "#" when not. */
static const char *ls_order(const char *dir)
{
	static char out[4096];
	size_t l = 0;
	out[0] = 0;
	int fd = OPEN(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fmt("%d", fd);
	char buf[4096];
	for (;;) {
		ssize_t r = getdents64(fd, buf, sizeof buf);
		if (r <= 0) {
			if (r < 0)
				l += (size_t)snprintf(out + l, sizeof out - l, " %zd", r);
			break;
		}
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			struct stat st;
			char p[512];
			snprintf(p, sizeof p, "%s/%s", dir, d->d_name);
			int s = fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW);
			if (l < sizeof out - 300)
				l += (size_t)snprintf(out + l, sizeof out - l, "%s%s:%u%s", l ? " " : "", d->d_name,
						      d->d_type, s < 0 ? "?" : st.st_ino == d->d_ino ? "=" : "#");
			off += d->d_reclen;
		}
	}
	cl(fd);
	return out;
}
#define LSO(p) chk_str(fmt("ls-order %s", p), ls_order(p))

/* st_ino and st_dev of two paths, as relations */
static int rel(const char *a, const char *b, int dev)
{
	struct stat s1, s2;
	int r = fstatat(AT_FDCWD, a, &s1, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return r;
	r = fstatat(AT_FDCWD, b, &s2, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return r;
	return dev ? s1.st_dev == s2.st_dev : s1.st_ino == s2.st_ino;
}
#define SAMEINO(a, b) chk(fmt("same st_ino %s %s", a, b), rel(a, b, 0))
#define SAMEDEV(a, b) chk(fmt("same st_dev %s %s", a, b), rel(a, b, 1))

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void xattrs_of(const char *p, char *out, size_t *l, size_t cap)
{
	char list[1024];
	ssize_t ln = llistxattr(p, list, sizeof list);
	char *xs[32];
	int nx = 0;
	for (ssize_t k = 0; k < ln && nx < 32; k += (ssize_t)strlen(list + k) + 1)
		if (!strncmp(list + k, "trusted.overlay.", 16))
			xs[nx++] = list + k;
	for (int a = 0; a < nx; a++)
		for (int b = a + 1; b < nx; b++)
			if (strcmp(xs[a], xs[b]) > 0) {
				char *t = xs[a];
				xs[a] = xs[b];
				xs[b] = t;
			}
	for (int a = 0; a < nx; a++) {
		/* origin is a file handle of the lower object, uuid a
		 * random one: their bytes are the host's own (uuid,
		 * generation), so only their presence is compared */
		if (!strcmp(xs[a], "trusted.overlay.origin") || !strcmp(xs[a], "trusted.overlay.uuid")) {
			*l += (size_t)snprintf(out + *l, cap - *l, " %s", xs[a]);
			continue;
		}
		char v[256];
		ssize_t vn = lgetxattr(p, xs[a], v, sizeof v - 1);
		v[vn > 0 ? vn : 0] = 0;
		*l += (size_t)snprintf(out + *l, cap - *l, " %s=%s", xs[a], v);
	}
}

/* One line per object below dir, sorted: path, type, mode, rdev of a
 * device, the trusted.overlay.* xattrs, the data of a file. */
static void tree(const char *dir, char *out, size_t *l, size_t cap)
{
	static char names[64][256];
	int fd = OPEN(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	char buf[4096];
	int n = 0;
	for (;;) {
		ssize_t r = getdents64(fd, buf, sizeof buf);
		if (r <= 0)
			break;
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") && n < 64)
				snprintf(names[n++], sizeof names[0], "%s", d->d_name);
			off += d->d_reclen;
		}
	}
	cl(fd);
	char mine[64][256];
	memcpy(mine, names, sizeof(mine[0]) * (size_t)n);
	qsort(mine, (size_t)n, sizeof(mine[0]), cmp_name);
	for (int i = 0; i < n; i++) {
		char p[512];
		snprintf(p, sizeof p, "%.300s/%.200s", dir, mine[i]);
		struct stat st;
		if (fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		*l += (size_t)snprintf(out + *l, cap - *l, "\n  %s %s", p, stat_str(p, AT_SYMLINK_NOFOLLOW));
		xattrs_of(p, out, l, cap);
		if (S_ISREG(st.st_mode))
			*l += (size_t)snprintf(out + *l, cap - *l, " [%s]", cat_str(p));
		else if (S_ISLNK(st.st_mode))
			*l += (size_t)snprintf(out + *l, cap - *l, " -> %s", rl_str(p));
		if (*l > cap - 600)
			return;
		if (S_ISDIR(st.st_mode))
			tree(p, out, l, cap);
	}
}

static const char *tree_str(const char *dir)
{
	static char out[16384];
	size_t l = (size_t)snprintf(out, sizeof out, "%s", dir);
	xattrs_of(dir, out, &l, sizeof out);
	tree(dir, out, &l, sizeof out);
	return out;
}
/* the upper layer after the scenario, as the interop check: what Linux's
 * overlayfs would mount again */
#define UPPER() chk_str("upper layer", tree_str("/u"))

static void overlay_mount_errors(void)
{
	layers();
	put("/notdir", "");
	MKDIR("/u/sub", 0755);
	MKDIR("/l1/sub", 0755);
	MKDIR("/o", 0755);
	MKDIR("/r", 0755);
	C(OVL("lowerdir=/nope,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/notdir,upperdir=/u,workdir=/w"));
	C(OVL("upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/l1,upperdir=/u"));
	C(OVL("lowerdir=/l1,workdir=/w"));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/w,bogus=1"));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/w,bogus"));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/u"));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/u/sub"));
	C(OVL("lowerdir=/l1,upperdir=/l1,workdir=/w"));
	C(OVL("lowerdir=/l1:/l1,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/u/sub,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/l1/sub:/l1,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/l1:/l1/sub,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/l1,upperdir=/u/nope,workdir=/w"));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/nope"));
	C(OVL("lowerdir=/l1,upperdir=/notdir,workdir=/w"));
	C(OVL("lowerdir=/l1"));
	C(OVL("lowerdir="));
	C(OVL("lowerdir=/l1:,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=:/l1,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/l1,redirect_dir=bad,upperdir=/u,workdir=/w"));
	C(OVL("lowerdir=/l1:/l2,lowerdir=/l2"));
	/* data-only layers: each after "::", only such layers after one */
	C(OVL("lowerdir=/l1::/l2:/d"));
	C(OVL("lowerdir=::/l2"));
	C(OVL("lowerdir=/l1::"));
	C(OVL("lowerdir=/l1:::/l2"));
	C(OVL("lowerdir=/l1::/o::/r"));
	C(umount2("/m", 0));
	C(OVL("lowerdir=/l1:/l2::/o"));
	LS("/m");
	C(umount2("/m", 0));
	C(OVL(NULL));
	C(OVL(""));
	C(TMPFS("/o", 0, NULL));
	C(MKDIR("/o/w", 0755));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/o/w"));
	C(TMPFS("/r", MS_RDONLY, NULL));
	C(OVL("lowerdir=/l1,upperdir=/r,workdir=/r"));
	C(OVL("lowerdir=/l1,upperdir=/r,workdir=/w"));
	/* what mounts, and what it leaves in the work directory */
	C(OVL("lowerdir=/l1,upperdir=/u/sub,workdir=/w"));
	C(umount2("/m", 0));
	STAT("/w/work");
	LS("/w");
	LS("/w/work");
	C(OVL("lowerdir=/l1,upperdir=/l1/sub,workdir=/w"));
	C(umount2("/m", 0));
	C(OVL("lowerdir=/,upperdir=/u,workdir=/w"));
	C(umount2("/m", 0));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/w,redirect_dir=off,index=off,xino=off,metacopy=off"));
	C(umount2("/m", 0));
	C(OVL("lowerdir=/l1,upperdir=/u,workdir=/w,,"));
	C(umount2("/m", 0));
	C(OVL("lowerdir=/l2:/u,lowerdir=/l1:/l2"));
	LS("/m");
	C(umount2("/m", 0));
	C(chdir("/l1"));
	C(OVL("lowerdir=d:pure"));
	LS("/m");
	C(umount2("/m", 0));
	C(chdir("/"));
	/* a file is not mounted on, whatever the layers */
	C(mount("overlay", "/notdir", "overlay", 0, STD_OPTS));
	C(setcred(1000, 1000));
	C(OVL(STD_OPTS));
}

static void overlay_lookup(void)
{
	layers();
	C(OVL(STD_OPTS));
	LS("/m");
	LS("/m/d");
	LS("/m/op");
	LS("/m/pure");
	LS("/m/e");
	LS("/m/f");
	LS("/m/dd");
	LS("/m/deep/er");
	const char *names[] = { "/m", "/m/a", "/m/b", "/m/c", "/m/d", "/m/d/x", "/m/d/x2", "/m/d/y", "/m/d/z",
				"/m/wh", "/m/op", "/m/op/hidden", "/m/op/shown", "/m/pure", "/m/pure/p", "/m/e",
				"/m/f", "/m/sl", "/m/sld", "/m/abs", "/m/filedir", "/m/dd/sub", "/m/dd/sub/s",
				"/m/deep/er/f", "/m/nope", "/m/a/x", "/m/d/", "/m/a/" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		STAT(names[i]);
	STATF("/m/sl");
	STATF("/m/sld");
	STATF("/m/abs");
	CAT("/m/a");
	CAT("/m/b");
	CAT("/m/c");
	CAT("/m/d/y");
	CAT("/m/d/x2");
	CAT("/m/sl");
	CAT("/m/sld");
	CAT("/m/abs");
	CAT("/m/deep/er/f");
	READLINK("/m/sl");
	READLINK("/m/abs");
	READLINK("/m/a");
	CAT("/m/wh");
	CAT("/m/op/hidden");
	C(ACCESS("/m/a", R_OK));
	C(ACCESS("/m/wh", F_OK));
	C(chdir("/m/d"));
	CAT("y");
	CAT("../a");
	STAT("..");
	C(chdir("/"));
	C(umount2("/m", 0));
	UPPER();
}

static void overlay_readdir(void)
{
	layers();
	C(OVL(STD_OPTS));
	LSO("/m");
	LSO("/m/d");
	LSO("/m/op");
	LSO("/m/pure");
	LSO("/m/dd");
	LSO("/m/e");
	/* a small buffer: one entry at a time, the offsets go on */
	int fd = OPEN("/m", O_RDONLY | O_DIRECTORY);
	char buf[40];
	for (int i = 0; i < 16; i++) {
		ssize_t r = getdents64(fd, buf, sizeof buf);
		C(r > 0);
		if (r <= 0)
			break;
		CS("entry", ((struct dent *)buf)->d_name);
	}
	/* rewind starts again */
	C(lseek(fd, 0, SEEK_SET));
	ssize_t r = getdents64(fd, buf, sizeof buf);
	C(r > 0);
	if (r > 0)
		CS("first", ((struct dent *)buf)->d_name);
	cl(fd);
	C(umount2("/m", 0));
	UPPER();
}

static void overlay_ino_dev(void)
{
	layers();
	C(OVL(STD_OPTS));
	/* all layers on one superblock: every st_dev is the overlay's */
	SAMEDEV("/m", "/m/a");
	SAMEDEV("/m/a", "/m/c");
	SAMEDEV("/m/d", "/m/pure");
	SAMEDEV("/m", "/");
	SAMEDEV("/m/a", "/l1/a");
	/* and st_ino the real object's */
	SAMEINO("/m/a", "/l1/a");
	SAMEINO("/m/b", "/l2/b");
	SAMEINO("/m/c", "/u/c");
	SAMEINO("/m/sl", "/l1/sl");
	SAMEINO("/m/pure", "/l1/pure");
	SAMEINO("/m/e", "/l2/e");
	SAMEINO("/m/f", "/u/f");
	/* a merged directory: its top lower directory's; the root: upper's */
	SAMEINO("/m/d", "/l1/d");
	SAMEINO("/m/d", "/u/d");
	SAMEINO("/m/dd", "/l1/dd");
	SAMEINO("/m/op", "/u/op");
	SAMEINO("/m", "/u");
	SAMEINO("/m", "/l1");
	SAMEINO("/m/d/x2", "/l2/d/x2");
	NLINKS("/m");
	NLINKS("/m/d");
	NLINKS("/m/pure");
	NLINKS("/m/f");
	NLINKS("/m/op");
	int fd = OPEN("/m/d", O_RDONLY | O_DIRECTORY);
	FSTAT(fd);
	cl(fd);
	struct statfs sf;
	C(statfs("/m", &sf));
	C(sf.f_type);
	C(umount2("/m", 0));
}

/* Two lowers and no upper: a read-only overlay */
static void overlay_readonly(void)
{
	layers();
	C(OVL("lowerdir=/l1:/l2"));
	LS("/m");
	LSO("/m/d");
	STAT("/m/d");
	CAT("/m/a");
	SAMEINO("/m", "/l1");
	C(MKDIR("/m/new", 0755));
	C(OPEN("/m/newf", O_WRONLY | O_CREAT));
	C(OPEN("/m/a", O_WRONLY));
	C(OPEN("/m/a", O_RDWR));
	int fd = OPEN("/m/a", O_RDONLY);
	C(fd >= 0);
	char b[4];
	C(read(fd, b, 4));
	C(lseek(fd, 0, SEEK_END));
	C(lseek(fd, 0, SEEK_DATA));
	cl(fd);
	C(UNLINK("/m/a"));
	C(RMDIR("/m/pure"));
	C(RENAME("/m/a", "/m/a2"));
	C(CHMOD("/m/a", 0600));
	C(truncate("/m/a", 0));
	C(SYMLINK("x", "/m/s"));
	C(setxattr("/m/a", "user.x", "1", 1, 0));
	struct statfs sf;
	C(statfs("/m", &sf));
	C(sf.f_flags & ST_RDONLY);
	C(umount2("/m", 0));
	C(OVL("lowerdir=/l1::/l2"));
	LS("/m");
	C(umount2("/m", 0));
}

static void overlay_xattrs(void)
{
	layers();
	C(OVL(STD_OPTS));
	char v[64];
	C(lgetxattr("/m/a", "user.kept", v, sizeof v));
	C(lgetxattr("/m/op", "trusted.overlay.opaque", v, sizeof v));
	C(lgetxattr("/m/op", "trusted.other", v, sizeof v));
	char list[256];
	ssize_t n = llistxattr("/m/op", list, sizeof list);
	C(n);
	n = llistxattr("/m/a", list, sizeof list);
	C(n);
	if (n > 0)
		CS("list", list);
	C(umount2("/m", 0));
	UPPER();
}

/* While an overlay uses a layer: the layers' own views stay as they were */
static void overlay_layers_untouched(void)
{
	layers();
	C(OVL(STD_OPTS));
	LS("/m");
	CAT("/m/a");
	C(umount2("/m", 0));
	LS("/l1");
	LS("/l2");
	LS("/u");
	LS("/w");
	UPPER();
	/* mounted again on the same layers: the same view */
	C(OVL(STD_OPTS));
	LSO("/m");
	C(umount2("/m", 0));
}


/* Copy-up on open for writing, and what the lower layer keeps */
static void overlay_copy_up_write(void)
{
	layers();
	C(OVL(STD_OPTS));
	int fd = F(OPEN("/m/a", O_WRONLY | O_APPEND));
	C(wr(fd, "+more"));
	FSTAT(fd);
	cl(fd);
	CAT("/m/a");
	CAT("/l1/a");
	CAT("/u/a");
	STAT("/m/a");
	SAMEINO("/m/a", "/l1/a");
	SAMEINO("/m/a", "/u/a");
	/* deep: the parents come up first */
	fd = OPEN("/m/deep/er/f", O_RDWR);
	C(fd >= 0);
	C(pwrite(fd, "D", 1, 0));
	cl(fd);
	CAT("/m/deep/er/f");
	CAT("/l2/deep/er/f");
	STAT("/m/deep");
	STAT("/m/deep/er");
	SAMEINO("/m/deep", "/l2/deep");
	/* O_TRUNC and a read-only open */
	fd = OPEN("/m/b", O_WRONLY | O_TRUNC);
	C(fd >= 0);
	cl(fd);
	CAT("/m/b");
	CAT("/l2/b");
	fd = OPEN("/m/d/y", O_RDONLY);
	cl(fd);
	STAT("/u/d/y");
	/* a file open before the copy-up keeps reading the lower data */
	fd = OPEN("/m/d/x2", O_RDONLY);
	int wfd = OPEN("/m/d/x2", O_WRONLY | O_TRUNC);
	C(wfd >= 0);
	C(wr(wfd, "new"));
	cl(wfd);
	char b[16] = { 0 };
	C(read(fd, b, sizeof b - 1));
	CS("old fd reads", b);
	cl(fd);
	CAT("/m/d/x2");
	C(umount2("/m", 0));
	UPPER();
	C(OVL(STD_OPTS));
	CAT("/m/a");
	LS("/m/deep/er");
	C(umount2("/m", 0));
}

/* Attribute changes copy up; so do xattrs and links */
static void overlay_copy_up_attrs(void)
{
	layers();
	C(OVL(STD_OPTS));
	C(CHMOD("/m/b", 0600));
	STAT("/m/b");
	STAT("/l2/b");
	C(LCHOWN("/m/sl", 7, 8));
	STAT("/m/sl");
	READLINK("/u/sl");
	C(CHOWN("/m/pure", 5, 6));
	STAT("/m/pure");
	LS("/u/pure");
	C(truncate("/m/d/x2", 1));
	CAT("/m/d/x2");
	CAT("/l2/d/x2");
	struct timespec ts[2] = { { 1000, 0 }, { 2000, 0 } };
	C(utimensat(AT_FDCWD, "/m/d/y", ts, 0));
	struct stat st;
	C(fstatat(AT_FDCWD, "/m/d/y", &st, 0) ? -1 : st.st_mtime);
	C(fstatat(AT_FDCWD, "/u/d/y", &st, 0) ? -1 : st.st_mtime);
	C(setxattr("/m/e", "user.new", "1", 1, 0));
	char v[16];
	C(lgetxattr("/u/e", "user.new", v, sizeof v));
	C(lgetxattr("/u/a", "user.kept", v, sizeof v));
	C(setxattr("/m/e", "trusted.overlay.opaque", "y", 1, 0));
	C(LINK("/m/a", "/m/a-link"));
	NLINKS("/m/a");
	NLINKS("/m/a-link");
	NLINKS("/u/a");
	SAMEINO("/u/a", "/u/a-link");
	C(lgetxattr("/u/a", "user.kept", v, sizeof v));
	CAT("/m/a-link");
	C(umount2("/m", 0));
	UPPER();
}

/* Names made and removed: whiteouts, opaque directories, ENOTEMPTY */
static void overlay_create_remove(void)
{
	layers();
	C(OVL(STD_OPTS));
	put("/m/new", "new");
	C(MKDIR("/m/newd", 0700));
	C(SYMLINK("new", "/m/newl"));
	C(MKNOD("/m/fifo", S_IFIFO | 0644, 0));
	put("/m/d/inmerged", "m");
	put("/m/pure/inlower", "l");
	C(UNLINK("/m/a"));
	C(UNLINK("/m/c"));
	C(UNLINK("/m/sl"));
	C(UNLINK("/m/wh"));
	C(RMDIR("/m/pure"));
	C(UNLINK("/m/pure/p"));
	C(UNLINK("/m/pure/inlower"));
	C(RMDIR("/m/pure"));
	STAT("/m/pure");
	C(MKDIR("/m/pure", 0755));
	LS("/m/pure");
	C(RMDIR("/m/d"));
	C(UNLINK("/m/d/y"));
	C(UNLINK("/m/d/x2"));
	C(UNLINK("/m/d/z"));
	C(UNLINK("/m/d/inmerged"));
	LS("/m/d");
	C(RMDIR("/m/d"));
	STAT("/m/d");
	C(MKDIR("/m/d", 0755));
	LS("/m/d");
	put("/m/a", "again");
	CAT("/m/a");
	C(RMDIR("/m/f"));
	C(RMDIR("/m/op"));
	C(UNLINK("/m/op/shown"));
	C(RMDIR("/m/op"));
	LS("/m");
	LSO("/m");
	C(umount2("/m", 0));
	UPPER();
	C(OVL(STD_OPTS));
	LS("/m");
	LS("/m/d");
	LS("/m/pure");
	C(umount2("/m", 0));
}

/* Renames: files copy up; directories with a lower part are EXDEV without
 * redirect_dir (this kernel's default) */
static void overlay_rename(void)
{
	layers();
	C(OVL(STD_OPTS));
	C(RENAME("/m/b", "/m/b2"));
	CAT("/m/b2");
	STAT("/m/b");
	C(RENAME("/m/c", "/m/d/c"));
	CAT("/m/d/c");
	C(RENAME("/m/a", "/m/d/y"));
	CAT("/m/d/y");
	C(RENAME("/m/d", "/m/d2"));
	C(RENAME("/m/pure", "/m/pure2"));
	C(RENAME("/m/dd", "/m/dd2"));
	C(RENAME("/m/f", "/m/f2"));
	C(RENAME("/m/op", "/m/op2"));
	C(RENAME("/m/sld", "/m/e/sld"));
	C(RENAME2("/m/e/sld", "/m/b2", RENAME_NOREPLACE));
	C(RENAME("/m/d/x2", "/m/wh"));
	C(MKDIR("/m/newd", 0755));
	C(RENAME("/m/newd", "/m/filedir"));
	LS("/m");
	LS("/m/d");
	LSO("/m");
	C(umount2("/m", 0));
	UPPER();
}

/* Linux's ovl_rename: a directory with no lower part, not opaque, moved
 * into a merged directory becomes opaque (so that no lower directory of its
 * new name ever merges into it), the other side of an exchange too; one
 * moved into a directory of the upper layer alone stays as it is.  The
 * xattr is hidden from listings, but a listing's size query counts it. */
static void overlay_rename_opaque(void)
{
	layers();
	C(OVL(STD_OPTS));
	C(MKDIR("/m/n1", 0755));
	C(MKDIR("/m/n1/sub", 0755));
	C(RENAME("/m/n1", "/m/n1b"));
	C(llistxattr("/m/n1b", NULL, 0));
	C(MKDIR("/m/f/n2", 0755));
	C(RENAME("/m/f/n2", "/m/f/n2b"));
	C(llistxattr("/m/f/n2b", NULL, 0));
	C(RENAME("/m/f/n2b", "/m/d/n2c"));
	C(llistxattr("/m/d/n2c", NULL, 0));
	C(MKDIR("/m/op/n3", 0755));
	C(RENAME("/m/op/n3", "/m/op/n3b"));
	C(MKDIR("/m/n5", 0755));
	C(RENAME("/m/n5", "/m/f/n5"));
	C(llistxattr("/m/f/n5", NULL, 0));
	C(MKDIR("/m/x1", 0755));
	C(MKDIR("/m/f/x2", 0755));
	C(RENAME2("/m/x1", "/m/f/x2", RENAME_EXCHANGE));
	C(llistxattr("/m/x1", NULL, 0));
	C(llistxattr("/m/f/x2", NULL, 0));
	C(MKDIR("/m/f/x3", 0755));
	C(RENAME2("/m/c", "/m/f/x3", RENAME_EXCHANGE));
	C(llistxattr("/m/c", NULL, 0));
	C(RENAME2("/m/f/c", "/m/pure", RENAME_EXCHANGE));
	/* onto a lower directory emptied by whiteouts: its names stay hidden */
	C(UNLINK("/m/pure/p"));
	C(MKDIR("/m/n6", 0755));
	put("/m/n6/q", "q");
	C(RENAME("/m/n6", "/m/pure"));
	LS("/m/pure");
	LS("/m");
	LS("/m/f");
	LS("/m/d");
	C(umount2("/m", 0));
	UPPER();
	C(OVL(STD_OPTS));
	LS("/m/pure");
	LS("/m/n1b");
	C(umount2("/m", 0));
}

/* redirect_dir=on: a directory with a lower part is renamed; the new name
 * says where its lower part is, and a later mount follows it */
static void overlay_redirect(void)
{
	layers();
	C(OVL(STD_OPTS ",redirect_dir=on"));
	C(RENAME("/m/d", "/m/d2"));
	C(RENAME("/m/pure", "/m/e/pure2"));
	C(RENAME("/m/dd", "/m/dd2"));
	C(RENAME("/m/deep/er", "/m/er"));
	LS("/m");
	LS("/m/d2");
	LS("/m/e/pure2");
	LS("/m/dd2");
	CAT("/m/d2/y");
	CAT("/m/e/pure2/p");
	STAT("/m/d");
	SAMEINO("/m/d2", "/l1/d");
	SAMEINO("/m/e/pure2", "/l1/pure");
	C(umount2("/m", 0));
	UPPER();
	C(OVL(STD_OPTS ",redirect_dir=on"));
	LS("/m");
	LS("/m/d2");
	LS("/m/e/pure2");
	LS("/m/dd2");
	LS("/m/er");
	CAT("/m/er/f");
	CAT("/m/e/pure2/p");
	SAMEINO("/m/d2", "/l1/d");
	C(umount2("/m", 0));
	/* without the option: followed, never made */
	C(OVL(STD_OPTS));
	LS("/m/d2");
	C(RENAME("/m/d2", "/m/d3"));
	C(RENAME("/m/f", "/m/f3"));
	C(umount2("/m", 0));
	UPPER();
}

/* Permissions are the merged objects' own, checked with the caller's
 * credentials; the copy-up itself is the overlay's */
static void overlay_perms(void)
{
	layers();
	C(CHMOD("/l1/pure", 0700));
	C(OVL(STD_OPTS));
	C(CHOWN("/m/e", 1000, 1000));
	C(setcred(1000, 1000));
	C(OPEN("/m/a", O_WRONLY));
	C(OPEN("/m/a", O_RDONLY) >= 0);
	C(CHMOD("/m/a", 0600));
	C(MKDIR("/m/x", 0755));
	C(UNLINK("/m/b"));
	LS("/m/pure");
	C(ACCESS("/m/pure", X_OK));
	put("/m/e/mine", "mine");
	STAT("/m/e/mine");
	C(MKDIR("/m/e/sub", 0700));
	C(SYMLINK("mine", "/m/e/l"));
	C(RENAME("/m/e/mine", "/m/e/sub/mine"));
	C(setcred(0, 0));
	C(umount2("/m", 0));
	UPPER();
	/* a mount a layer is on: Linux's overlay keeps private clones */
	C(MKDIR("/o", 0755));
	C(TMPFS("/o", 0, NULL));
	C(MKDIR("/o/l", 0755));
	C(MKDIR("/o/l2", 0755));
	C(OVL("lowerdir=/o/l:/o/l2"));
	DOC(umount2("/o", 0), "the overlay holds its layers' mounts by reference: EBUSY until it goes");
	C(umount2("/m", 0));
}

/* A write by a caller without CAP_FSETID drops setuid and setgid from the
 * upper object too (the change goes through the overlay's ->setattr), so
 * neither the merged name nor the upper layer keeps them. */
static void overlay_write_kills_suid(void)
{
	layers();
	C(CHMOD("/l2/b", 06777));
	C(OVL(STD_OPTS));
	C(setcred(1000, 1000));
	int fd = F(OPEN("/m/b", O_WRONLY));
	if (fd >= 0) {
		wr(fd, "by 1000");
		cl(fd);
	}
	C(setcred(0, 0));
	STAT("/m/b");
	STAT("/u/b");
	STAT("/l2/b");
	CAT("/m/b");
	C(umount2("/m", 0));
	STAT("/u/b");
}

/* A file capability that came up from a lower layer goes with a write, a
 * truncate and a chown through the overlay, as the upper filesystem's own
 * write drops it on Linux (xattr_killpriv's rule). */
static void overlay_killpriv(void)
{
	static const unsigned char cap[20] = { 0, 0, 0, 2, 0, 4 };
	layers();
	C(setxattr("/l1/a", "security.capability", cap, sizeof cap, 0));
	C(setxattr("/l2/b", "security.capability", cap, sizeof cap, 0));
	C(setxattr("/l1/d/y", "security.capability", cap, sizeof cap, 0));
	C(setxattr("/l1/pure/p", "security.capability", cap, sizeof cap, 0));
	C(OVL(STD_OPTS));
	C(lgetxattr("/m/a", "security.capability", NULL, 0));
	int fd = F(OPEN("/m/a", O_WRONLY | O_APPEND));
	C(lgetxattr("/m/a", "security.capability", NULL, 0));
	C(lgetxattr("/u/a", "security.capability", NULL, 0));
	C(wr(fd, "+cap"));
	cl(fd);
	C(lgetxattr("/m/a", "security.capability", NULL, 0));
	C(lgetxattr("/u/a", "security.capability", NULL, 0));
	C(lgetxattr("/l1/a", "security.capability", NULL, 0));
	C(truncate("/m/b", 1));
	C(lgetxattr("/m/b", "security.capability", NULL, 0));
	C(lgetxattr("/u/b", "security.capability", NULL, 0));
	C(CHOWN("/m/d/y", 3, 3));
	C(lgetxattr("/m/d/y", "security.capability", NULL, 0));
	C(lgetxattr("/u/d/y", "security.capability", NULL, 0));
	fd = F(OPEN("/m/pure/p", O_RDWR));
	C(lgetxattr("/u/pure/p", "security.capability", NULL, 0));
	C(fallocate(fd, 0, 0, 8192));
	cl(fd);
	C(lgetxattr("/m/pure/p", "security.capability", NULL, 0));
	C(lgetxattr("/u/pure/p", "security.capability", NULL, 0));
	C(umount2("/m", 0));
	UPPER();
}

/* An access ACL as stored in system.posix_acl_access: the version-2 header,
 * then (tag, perm, id) little-endian entries: the owner, user 1000, the
 * owning group, the mask and the others with perms u, n, g, m, o. */
static size_t acl_bytes(unsigned char *b, unsigned u, unsigned n, unsigned g, unsigned m, unsigned o)
{
	const unsigned e[5][3] = { { 0x01, u, ~0u }, { 0x02, n, 1000 }, { 0x04, g, ~0u }, { 0x10, m, ~0u },
				   { 0x20, o, ~0u } };
	memset(b, 0, 4);
	b[0] = 2;
	for (int i = 0; i < 5; i++) {
		unsigned char *q = b + 4 + 8 * i;
		q[0] = (unsigned char)e[i][0];
		q[1] = 0;
		q[2] = (unsigned char)e[i][1];
		q[3] = 0;
		for (int k = 0; k < 4; k++)
			q[4 + k] = (unsigned char)(e[i][2] >> (8 * k));
	}
	return 4 + 8 * 5;
}

/* The ACL a path has, as "tag:perm" pairs, or -errno */
static const char *acl_of(const char *p, const char *name)
{
	unsigned char v[256];
	ssize_t n = lgetxattr(p, name, v, sizeof v);
	if (n < 0)
		return fmt("%zd", n);
	static char out[256];
	size_t l = 0;
	out[0] = 0;
	for (ssize_t i = 4; i + 8 <= n; i += 8)
		l += (size_t)snprintf(out + l, sizeof out - l, "%s%x:%o", l ? "," : "", v[i], v[i + 2]);
	return out;
}
#define GETACL(p) chk_str(fmt("acl %s", p), acl_of(p, "system.posix_acl_access"))
#define GETDACL(p) chk_str(fmt("default acl %s", p), acl_of(p, "system.posix_acl_default"))

/* POSIX ACLs through an overlay, as Linux's overlayfs passes them: an
 * object without one answers ENODATA (a symlink EOPNOTSUPP); a lower
 * object's ACL shows and decides permission (a named user may read what
 * the mode alone refuses him); setting one, or a chmod that rewrites the
 * mask, copies the object up with its ACL and changes the upper copy. */
static void overlay_acl(void)
{
	unsigned char b[64];
	layers();
	C(CHMOD("/l2/b", 0640));
	C(lsetxattr("/l2/b", "system.posix_acl_access", b, acl_bytes(b, 6, 4, 4, 4, 0), 0));
	C(CHMOD("/l1/pure", 0750));
	C(lsetxattr("/l1/pure", "system.posix_acl_access", b, acl_bytes(b, 7, 5, 5, 5, 0), 0));
	C(OVL(STD_OPTS));
	GETACL("/m/a");
	GETACL("/m/d");
	GETDACL("/m/d");
	GETACL("/m/sl");
	GETACL("/m/b");
	GETACL("/m/pure");
	STAT("/m/b");
	C(setcred(1000, 1000));
	CAT("/m/b");
	CAT("/m/pure/p");
	C(setcred(1001, 1001));
	CAT("/m/b");
	CAT("/m/pure/p");
	C(setcred(0, 0));
	/* chmod rewrites the mask of the copied-up ACL */
	C(CHMOD("/m/b", 0600));
	GETACL("/m/b");
	GETACL("/u/b");
	GETACL("/l2/b");
	C(setcred(1000, 1000));
	CAT("/m/b");
	C(setcred(0, 0));
	/* an ACL set on a lower object without one */
	C(lsetxattr("/m/a", "system.posix_acl_access", b, acl_bytes(b, 6, 6, 4, 6, 0), 0));
	STAT("/m/a");
	GETACL("/m/a");
	GETACL("/u/a");
	GETACL("/l1/a");
	C(lremovexattr("/m/b", "system.posix_acl_access"));
	GETACL("/m/b");
	STAT("/m/b");
	C(umount2("/m", 0));
	GETACL("/u/a");
	GETACL("/u/b");
	UPPER();
}

const struct scenario overlay_scenarios[] = {
	{ "overlay_mount_errors", overlay_mount_errors },
	{ "overlay_lookup", overlay_lookup },
	{ "overlay_readdir", overlay_readdir },
	{ "overlay_ino_dev", overlay_ino_dev },
	{ "overlay_readonly", overlay_readonly },
	{ "overlay_xattrs", overlay_xattrs },
	{ "overlay_layers_untouched", overlay_layers_untouched },
	{ "overlay_copy_up_write", overlay_copy_up_write },
	{ "overlay_copy_up_attrs", overlay_copy_up_attrs },
	{ "overlay_create_remove", overlay_create_remove },
	{ "overlay_rename", overlay_rename },
	{ "overlay_rename_opaque", overlay_rename_opaque },
	{ "overlay_redirect", overlay_redirect },
	{ "overlay_perms", overlay_perms },
	{ "overlay_write_kills_suid", overlay_write_kills_suid },
	{ "overlay_killpriv", overlay_killpriv },
	{ "overlay_acl", overlay_acl },
	{ NULL, NULL },
};
