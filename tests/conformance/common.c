/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common.c - helpers that scenarios use to turn state into comparable values:
 * stat summaries, sorted directory listings, file contents, inode relations and
 * timestamp movements.  They call the current backend like scenarios do.
 */
#include <stdarg.h>
#include <linux/stat.h>
#include "conf.h"
#include <fnmatch.h>
#include "fuzz.h"

struct dirent64_rec {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

const struct timespec T_OLD[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

static char *rbuf(void)
{
	static char bufs[16][2048];
	static int i;
	return bufs[i++ & 15];
}

const char *fmt(const char *f, ...)
{
	char *b = rbuf();
	va_list ap;
	va_start(ap, f);
	vsnprintf(b, 2048, f, ap);
	va_end(ap);
	return b;
}

const char *rep(char c, int n)
{
	static char bufs[4][8192];
	static int i;
	char *b = bufs[i++ & 3];
	if (n > 8191)
		n = 8191;
	memset(b, c, n);
	b[n] = 0;
	return b;
}

static const char *err_str(long e)
{
	const char *n = strerrorname_np((int)-e);
	return n ? fmt("-%s", n) : fmt("%ld", e);
}

const char *pattern(void)
{
	static char p[FUZZ_BUF];
	if (!p[0])
		for (size_t i = 0; i < sizeof p; i++)
			p[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36];
	return p;
}

const char *capability_value(long long size)
{
	/* struct vfs_cap_data: the magic (revision, effective), the permitted
	 * and inheritable sets, and in 24 bytes vfs_ns_cap_data's root uid */
	static const char v2[20] = { 1, 0, 0, 2, 0, 4 }, v3[24] = { 1, 0, 0, 3, 0, 4 };
	return size == 24 ? v3 : v2;
}

/* tag, permissions, id: each entry of an ACL of acl_value's */
struct acl_ent {
	unsigned short tag, perm;
	unsigned id;
};
#define U_OBJ 1
#define U_NAMED 2
#define G_OBJ 4
#define G_NAMED 8
#define MASK 0x10
#define OTHER 0x20
#define NOID 0xffffffffu
static const struct acl_ent acls[ACLV_N][7] = {
	{ { U_OBJ, 6, NOID }, { G_OBJ, 4, NOID }, { OTHER, 4, NOID } },
	{ { U_OBJ, 7, NOID }, { G_OBJ, 0, NOID }, { OTHER, 0, NOID } },
	{ { U_OBJ, 6, NOID }, { U_NAMED, 7, 1000 }, { G_OBJ, 4, NOID }, { MASK, 7, NOID }, { OTHER, 0, NOID } },
	{ { U_OBJ, 7, NOID }, { U_NAMED, 0, 1000 }, { G_OBJ, 7, NOID }, { MASK, 5, NOID }, { OTHER, 7, NOID } },
	{ { U_OBJ, 7, NOID }, { G_OBJ, 5, NOID }, { G_NAMED, 7, 1000 }, { MASK, 3, NOID }, { OTHER, 1, NOID } },
	{ { U_OBJ, 7, NOID }, { U_NAMED, 6, 1000 }, { G_OBJ, 5, NOID }, { OTHER, 5, NOID } },
};

size_t acl_value_size(int k)
{
	size_t n = 0;
	while (n < 7 && acls[k][n].tag)
		n++;
	return 4 + 8 * n;
}

const char *acl_value(long long k)
{
	static unsigned char b[ACLV_N][4 + 8 * 7];
	unsigned char *v = b[k];
	size_t n = (acl_value_size((int)k) - 4) / 8;
	v[0] = 2;
	for (size_t i = 0; i < n; i++) {
		const struct acl_ent *e = &acls[k][i];
		unsigned char *o = v + 4 + 8 * i;
		o[0] = (unsigned char)e->tag;
		o[1] = (unsigned char)(e->tag >> 8);
		o[2] = (unsigned char)e->perm;
		o[3] = 0;
		for (int j = 0; j < 4; j++)
			o[4 + j] = (unsigned char)(e->id >> (8 * j));
	}
	return (const char *)v;
}

ssize_t wr(int fd, const char *s)
{
	return write(fd, s, strlen(s));
}

void cl(int fd)
{
	if (fd >= 0)
		close(fd);
}

int mkfile(const char *path, const char *s)
{
	int fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	ssize_t r = s ? write(fd, s, strlen(s)) : 0;
	close(fd);
	return r < 0 ? (int)r : 0;
}

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "reg";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "lnk";
	case S_IFIFO: return "fifo";
	case S_IFCHR: return "chr";
	case S_IFBLK: return "blk";
	case S_IFSOCK: return "sock";
	default: return "?";
	}
}

static const char *st_summary(const struct stat *st)
{
	const char *dev = "";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		dev = fmt(" rdev%u:%u", major(st->st_rdev), minor(st->st_rdev));
	if (S_ISDIR(st->st_mode))
		return fmt("%s %04o n%lu u%u g%u", type_name(st->st_mode), st->st_mode & 07777,
			   (unsigned long)st->st_nlink, st->st_uid, st->st_gid);
	return fmt("%s %04o n%lu s%lld u%u g%u%s", type_name(st->st_mode), st->st_mode & 07777,
		   (unsigned long)st->st_nlink, (long long)st->st_size, st->st_uid, st->st_gid, dev);
}

const char *fstatat_str(int dirfd, const char *path, int flags)
{
	struct stat st;
	int r = fstatat(dirfd, path, &st, flags);
	return r < 0 ? err_str(r) : st_summary(&st);
}

const char *stat_str(const char *path, int flags)
{
	return fstatat_str(AT_FDCWD, path, flags);
}

const char *fstat_str(int fd)
{
	struct stat st;
	int r = fstat(fd, &st);
	return r < 0 ? err_str(r) : st_summary(&st);
}

/* What a statx says that does not depend on the instance: the returned
 * mask, the attributes and their mask, the block size and, with
 * STATX_DIOALIGN, the alignments; then what st_summary says, with a regular
 * file's blocks.  No times, inode or device numbers, mount ids. */
const char *statx_str(const struct statx *x)
{
	struct stat st = {
		.st_mode = x->stx_mode, .st_nlink = x->stx_nlink, .st_size = (off_t)x->stx_size,
		.st_uid = x->stx_uid, .st_gid = x->stx_gid, .st_rdev = makedev(x->stx_rdev_major, x->stx_rdev_minor),
	};
	const char *dio = "";
	if (x->stx_mask & STATX_DIOALIGN)
		dio = fmt(" dio%u/%u", x->stx_dio_mem_align, x->stx_dio_offset_align);
	const char *blocks = S_ISREG(x->stx_mode) ? fmt(" b%llu", (unsigned long long)x->stx_blocks) : "";
	return fmt("mask%#x attr%#llx/%#llx bs%u%s %s%s", x->stx_mask, (unsigned long long)x->stx_attributes,
		   (unsigned long long)x->stx_attributes_mask, x->stx_blksize, dio, st_summary(&st), blocks);
}

/* A listxattr's n bytes of names, each ended by a NUL, as one string in
 * their order: "user.a,user.b," */
const char *xattr_names(const char *list, long long n)
{
	char *b = rbuf();
	size_t len = 0, cap = 2047;
	for (long long i = 0; i < n && len < cap; i++)
		b[len++] = list[i] ? list[i] : ',';
	b[len] = 0;
	return b;
}

long long st_field(const char *path, int which)
{
	struct stat st;
	int r = fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return r;
	switch (which) {
	case NLINK: return st.st_nlink;
	case MODE: return st.st_mode;
	case SIZE: return st.st_size;
	case UID: return st.st_uid;
	case GID: return st.st_gid;
	case BLOCKS: return st.st_blocks;
	case TYPE: return st.st_mode & S_IFMT;
	}
	return 0;
}

int same_ino(const char *a, const char *b)
{
	struct stat s1, s2;
	int r = fstatat(AT_FDCWD, a, &s1, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return r;
	r = fstatat(AT_FDCWD, b, &s2, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return r;
	return s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev;
}

/* The scenario's first root, once at_root_mark() has noted it: a chroot
 * leaves the tree's root mount reachable through a cwd or an fd. */
static struct stat first_root;
static int first_root_set;

void at_root_mark(void)
{
	first_root_set = fstatat(AT_FDCWD, "/", &first_root, 0) == 0;
}

int at_root(const char *path)
{
	struct stat r, st;
	if (fstatat(AT_FDCWD, "/", &r, 0) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (fstatat(AT_FDCWD, path, &st, i ? AT_SYMLINK_NOFOLLOW : 0) == 0 &&
		    ((st.st_ino == r.st_ino && st.st_dev == r.st_dev) ||
		     (first_root_set && st.st_ino == first_root.st_ino && st.st_dev == first_root.st_dev)))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char dtype_char(unsigned t)
{
	switch (t) {
	case DT_REG: return 'f';
	case DT_DIR: return 'd';
	case DT_LNK: return 'l';
	case DT_FIFO: return 'p';
	case DT_CHR: return 'c';
	case DT_BLK: return 'b';
	case DT_SOCK: return 's';
	default: return '?';
	}
}

const char *ls_str(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return err_str(fd);
	static char names[256][280];
	char *ptrs[256];
	int n = 0;
	char buf[4096];
	for (;;) {
		ssize_t r = getdents64(fd, buf, sizeof buf);
		if (r < 0) {
			close(fd);
			return err_str(r);
		}
		if (r == 0)
			break;
		for (ssize_t off = 0; off < r;) {
			struct dirent64_rec *d = (void *)(buf + off);
			if (d->d_reclen == 0)
				break;
			if (n < 256) {
				snprintf(names[n], sizeof names[n], "%s:%c", d->d_name, dtype_char(d->d_type));
				ptrs[n] = names[n];
				n++;
			}
			off += d->d_reclen;
		}
	}
	close(fd);
	qsort(ptrs, n, sizeof ptrs[0], cmp_str);
	char *out = rbuf();
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < n && l < 2000; i++)
		l += snprintf(out + l, 2048 - l, "%s%s", i ? " " : "", ptrs[i]);
	return out;
}

static const char *escape(const char *s, size_t n)
{
	char *out = rbuf();
	size_t l = 0;
	size_t zeros = 0;
	/* Long runs of NULs (holes) are shown as a count. */
	for (size_t i = 0; i < n && l < 1900; i++) {
		unsigned char c = s[i];
		if (c == 0) {
			zeros++;
			continue;
		}
		if (zeros) {
			l += snprintf(out + l, 2048 - l, "<%zu NUL>", zeros);
			zeros = 0;
		}
		if (c >= 32 && c < 127 && c != '\\')
			out[l++] = c;
		else
			l += snprintf(out + l, 2048 - l, "\\x%02x", c);
	}
	if (zeros)
		l += snprintf(out + l, 2048 - l, "<%zu NUL>", zeros);
	out[l] = 0;
	return out;
}

const char *fcat_str(int fd)
{
	static char buf[1 << 16];
	size_t n = 0;
	for (;;) {
		ssize_t r = pread(fd, buf + n, sizeof buf - n, n);
		if (r < 0)
			return err_str(r);
		if (r == 0 || n + r >= sizeof buf) {
			n += r;
			break;
		}
		n += r;
	}
	const char *e = escape(buf, n);
	return fmt("%zu:%s", n, e);
}

const char *cat_str(const char *path)
{
	int fd = openat(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return err_str(fd);
	const char *s = fcat_str(fd);
	close(fd);
	return s;
}

const char *rl_str(const char *path)
{
	char buf[PATH_MAX + 1];
	ssize_t r = readlinkat(AT_FDCWD, path, buf, sizeof buf - 1);
	if (r < 0)
		return err_str(r);
	buf[r] = 0;
	return fmt("%zd:%s", r, buf);
}

void tick(void)
{
	struct timespec t = { 0, 15 * 1000 * 1000 };
	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

static struct {
	char path[256];
	struct timespec ctime;
} aged[16];

void age(const char *path)
{
	struct stat st;
	int slot = 0;
	utimensat(AT_FDCWD, path, T_OLD, AT_SYMLINK_NOFOLLOW);
	fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	for (int i = 0; i < 16; i++) {
		if (!aged[i].path[0] || !strcmp(aged[i].path, path)) {
			slot = i;
			break;
		}
	}
	snprintf(aged[slot].path, sizeof aged[slot].path, "%s", path);
	aged[slot].ctime = st.st_ctim;
	tick();
}

const char *ts_str(const char *path)
{
	struct stat st;
	int r = fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return err_str(r);
	struct timespec c0 = { 0, 0 };
	for (int i = 0; i < 16; i++)
		if (!strcmp(aged[i].path, path))
			c0 = aged[i].ctime;
	int a = st.st_atim.tv_sec != T_OLD[0].tv_sec || st.st_atim.tv_nsec != 0;
	int m = st.st_mtim.tv_sec != T_OLD[1].tv_sec || st.st_mtim.tv_nsec != 0;
	int c = st.st_ctim.tv_sec != c0.tv_sec || st.st_ctim.tv_nsec != c0.tv_nsec;
	return fmt("a%d m%d c%d", a, m, c);
}

/* A scenario name the command line's patterns select: a glob, or else a
 * substring; no pattern selects everything. */
int scenario_selected(const char *name, int npat, char **pat)
{
	if (!npat)
		return 1;
	for (int i = 0; i < npat; i++) {
		if (strpbrk(pat[i], "*?[")) {
			if (fnmatch(pat[i], name, 0) == 0)
				return 1;
		} else if (strstr(name, pat[i])) {
			return 1;
		}
	}
	return 0;
}
