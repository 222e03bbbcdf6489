// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * xattr.c - extended attributes: setxattr, getxattr, listxattr, removexattr
 * in their three forms, against the host's tmpfs.
 *
 * A list is recorded sorted (XLIST): Linux's tmpfs lists in the order of a
 * hash table, uvfs newest first, and no program may rely on either.
 */
#include <sys/inotify.h>
#include <sys/xattr.h>
#include "conf.h"
#include "events.h"

#define setxattr(p, n, v, s, f) B->setxattr(BX, p, n, v, s, f)
#define lsetxattr(p, n, v, s, f) B->lsetxattr(BX, p, n, v, s, f)
#define fsetxattr(fd, n, v, s, f) B->fsetxattr(BX, fd, n, v, s, f)
#define getxattr(p, n, v, s) B->getxattr(BX, p, n, v, s)
#define lgetxattr(p, n, v, s) B->lgetxattr(BX, p, n, v, s)
#define fgetxattr(fd, n, v, s) B->fgetxattr(BX, fd, n, v, s)
#define listxattr(p, l, s) B->listxattr(BX, p, l, s)
#define llistxattr(p, l, s) B->llistxattr(BX, p, l, s)
#define flistxattr(fd, l, s) B->flistxattr(BX, fd, l, s)
#define removexattr(p, n) B->removexattr(BX, p, n)
#define lremovexattr(p, n) B->lremovexattr(BX, p, n)
#define fremovexattr(fd, n) B->fremovexattr(BX, fd, n)
#define fd_setxattr(fd, n, v, s, f) B->fd_setxattr(BX, fd, n, v, s, f)
#define fd_getxattr(fd, n, v, s) B->fd_getxattr(BX, fd, n, v, s)
#define fd_listxattr(fd, l, s) B->fd_listxattr(BX, fd, l, s)
#define fd_removexattr(fd, n) B->fd_removexattr(BX, fd, n)
#define IINIT(f) B->inotify_init1(BX, f)
#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)

#define SET(p, n, v) setxattr(p, n, v, strlen(v), 0)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of a list, sorted, comma-separated; or "-errno". */
static const char *list_str(ssize_t n, char *buf)
{
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	char *names[512];
	int k = 0;
	for (ssize_t i = 0; i < n && k < 512; i += (ssize_t)strlen(buf + i) + 1)
		names[k++] = buf + i;
	qsort(names, (size_t)k, sizeof names[0], cmp_str);
	static char out[8192];
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < k; i++)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", i ? "," : "", names[i]);
	return out;
}

static char lbuf[65536];
#define XLIST(p) CS(fmt("list %s", p), list_str(listxattr(p, lbuf, sizeof lbuf), lbuf))
#define XLLIST(p) CS(fmt("llist %s", p), list_str(llistxattr(p, lbuf, sizeof lbuf), lbuf))
#define XFLIST(fd) CS("flist " #fd, list_str(flistxattr(fd, lbuf, sizeof lbuf), lbuf))

/* A value as text, or "-errno". */
static char vbuf[65536];
static const char *val_str(ssize_t n)
{
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	return fmt("%zd:%.*s", n, (int)(n > 64 ? 64 : n), vbuf);
}
#define XGET(p, n) CS(fmt("get %s %s", p, n), val_str(getxattr(p, n, vbuf, sizeof vbuf)))
#define XLGET(p, n) CS(fmt("lget %s %s", p, n), val_str(lgetxattr(p, n, vbuf, sizeof vbuf)))

static void xattr_user_basic(void)
{
	char b[8];
	C(mkfile("/f", ""));
	C(SET("/f", "user.a", "one"));
	XGET("/f", "user.a");
	C(getxattr("/f", "user.a", NULL, 0));
	C(getxattr("/f", "user.a", b, 2));
	C(getxattr("/f", "user.a", b, 3));
	C(getxattr("/f", "user.missing", b, sizeof b));
	C(setxattr("/f", "user.empty", "", 0, 0));
	C(setxattr("/f", "user.null", NULL, 0, 0));
	XGET("/f", "user.empty");
	XGET("/f", "user.null");
	C(SET("/f", "user.a", "longer value"));
	XGET("/f", "user.a");
	C(SET("/f", "user.b", "two"));
	XLIST("/f");
	C(listxattr("/f", NULL, 0));
	C(listxattr("/f", lbuf, 5));
	C(removexattr("/f", "user.a"));
	C(removexattr("/f", "user.a"));
	XGET("/f", "user.a");
	XLIST("/f");
	/* a hard link and a rename keep them; an open unlinked file too */
	C(LINK("/f", "/g"));
	XGET("/g", "user.b");
	C(RENAME("/g", "/h"));
	XGET("/h", "user.b");
	int fd = F(OPEN("/h", O_RDONLY));
	C(UNLINK("/h"));
	C(UNLINK("/f"));
	C(fgetxattr(fd, "user.b", vbuf, sizeof vbuf));
	C(fsetxattr(fd, "user.c", "x", 1, 0));
	XFLIST(fd);
	cl(fd);
	C(MKDIR("/d", 0755));
	C(SET("/d", "user.dir", "v"));
	XGET("/d", "user.dir");
	XLIST("/d");
	XLIST("/");
}

static void xattr_flags(void)
{
	C(mkfile("/f", ""));
	C(setxattr("/f", "user.a", "1", 1, XATTR_CREATE));
	C(setxattr("/f", "user.a", "2", 1, XATTR_CREATE));
	C(setxattr("/f", "user.b", "2", 1, XATTR_REPLACE));
	C(setxattr("/f", "user.a", "3", 1, XATTR_REPLACE));
	XGET("/f", "user.a");
	C(setxattr("/f", "user.a", "4", 1, XATTR_CREATE | XATTR_REPLACE));
	C(setxattr("/f", "user.c", "4", 1, XATTR_CREATE | XATTR_REPLACE));
	C(setxattr("/f", "user.a", "5", 1, 4));
	C(setxattr("/f", "user.a", "5", 1, -1));
	XGET("/f", "user.a");
	XLIST("/f");
}

static void xattr_limits(void)
{
	static char big[65537];
	memset(big, 'x', sizeof big);
	C(mkfile("/f", ""));
	C(setxattr("/f", "", "1", 1, 0));
	C(getxattr("/f", "", vbuf, sizeof vbuf));
	C(removexattr("/f", ""));
	const char *n255 = fmt("user.%s", rep('n', 250));
	const char *n256 = fmt("user.%s", rep('n', 251));
	C(setxattr("/f", n255, "1", 1, 0));
	C(setxattr("/f", n256, "1", 1, 0));
	C(getxattr("/f", n256, vbuf, sizeof vbuf));
	C(removexattr("/f", n256));
	C(getxattr("/f", n255, vbuf, sizeof vbuf));
	C(setxattr("/f", "user.big", big, 65536, 0));
	C(setxattr("/f", "user.big2", big, 65537, 0));
	C(getxattr("/f", "user.big", NULL, 0));
	C(getxattr("/f", "user.big", vbuf, 65535));
	C(getxattr("/f", "user.big", vbuf, sizeof vbuf));
	C(getxattr("/f", "user.big", vbuf, 1 << 20));
	XLIST("/f");
	/* the order of the checks: flags, name, size, then the walk */
	C(setxattr("/nonexistent", "", "1", 1, 4));
	C(setxattr("/nonexistent", "", big, 65537, 0));
	C(setxattr("/nonexistent", "user.a", big, 65537, 0));
	C(setxattr("/nonexistent", "user.a", "1", 1, 0));
	C(getxattr("/nonexistent", "", vbuf, 1));
	C(removexattr("/nonexistent", n256));
	C(fsetxattr(99, "user.a", "1", 1, 4));
	C(fsetxattr(99, "", "1", 1, 0));
	C(fsetxattr(99, "user.a", "1", 1, 0));
	C(fgetxattr(99, "", vbuf, 1));
	C(fgetxattr(99, "user.a", vbuf, 1));
	C(flistxattr(99, lbuf, 1));
	C(fremovexattr(99, ""));
	C(fremovexattr(99, "user.a"));
}

static void xattr_namespaces(void)
{
	C(mkfile("/f", ""));
	C(SET("/f", "foo.a", "1"));
	C(SET("/f", "user", "1"));
	C(SET("/f", "user.", "1"));
	C(SET("/f", "trusted.", "1"));
	C(SET("/f", "security.", "1"));
	C(SET("/f", "system.", "1"));
	C(SET("/f", "system.foo", "1"));
	C(SET("/f", "system.posix_acl_accessx", "1"));
	C(SET("/f", "trusted.t", "tv"));
	C(SET("/f", "security.s", "sv"));
	C(SET("/f", "user.u", "uv"));
	XGET("/f", "foo.a");
	XGET("/f", "user.");
	XGET("/f", "system.foo");
	XGET("/f", "trusted.t");
	XGET("/f", "security.s");
	XLIST("/f");
	C(removexattr("/f", "foo.a"));
	C(removexattr("/f", "user."));
	C(removexattr("/f", "trusted.t"));
	C(removexattr("/f", "security.s"));
	XLIST("/f");
}

/* user.* on regular files and directories only; the others on anything */
static void xattr_file_types(void)
{
	C(mkfile("/f", ""));
	C(SYMLINK("/f", "/l"));
	C(SYMLINK("/nowhere", "/dangling"));
	C(MKNOD("/p", S_IFIFO | 0644, 0));
	C(MKNOD("/c", S_IFCHR | 0644, makedev(1, 3)));
	C(lsetxattr("/l", "user.a", "1", 1, 0));
	XLGET("/l", "user.a");
	C(lremovexattr("/l", "user.a"));
	C(lsetxattr("/l", "trusted.a", "1", 1, 0));
	XLGET("/l", "trusted.a");
	XLLIST("/l");
	/* through the link, to the file */
	C(setxattr("/l", "user.via", "1", 1, 0));
	XGET("/f", "user.via");
	XLIST("/l");
	XLLIST("/l");
	C(setxattr("/dangling", "user.a", "1", 1, 0));
	C(lsetxattr("/dangling", "trusted.a", "1", 1, 0));
	C(setxattr("/p", "user.a", "1", 1, 0));
	XGET("/p", "user.a");
	C(removexattr("/p", "user.a"));
	C(setxattr("/p", "trusted.a", "1", 1, 0));
	XLIST("/p");
	C(setxattr("/c", "user.a", "1", 1, 0));
	C(setxattr("/c", "security.a", "1", 1, 0));
	XLIST("/c");
}

/* The rules for a caller who is not root. */
static void xattr_nonroot(void)
{
	C(mkfile("/f", ""));
	C(SET("/f", "user.a", "1"));
	C(SET("/f", "trusted.t", "1"));
	C(SET("/f", "security.s", "1"));
	C(mkfile("/mine", ""));
	C(CHOWN("/mine", 1000, 1000));
	C(MKDIR("/sticky", 01777));
	C(MKDIR("/sticky/own", 01777));
	C(CHOWN("/sticky/own", 1000, 1000));
	C(MKDIR("/open", 0777));
	C(mkfile("/closed", ""));
	C(CHMOD("/closed", 0));
	C(SET("/closed", "user.c", "1"));
	C(setcred(1000, 1000));
	C(SET("/f", "user.n", "1"));
	XGET("/f", "user.a");
	XGET("/f", "trusted.t");
	XGET("/f", "security.s");
	XLIST("/f");
	C(SET("/f", "trusted.x", "1"));
	C(removexattr("/f", "trusted.t"));
	C(SET("/f", "security.x", "1"));
	C(removexattr("/f", "security.s"));
	C(SET("/f", "foo.x", "1"));
	XGET("/f", "foo.x");
	/* the size of a list counts only what the caller sees */
	C(listxattr("/f", NULL, 0));
	C(listxattr("/f", lbuf, 7));
	C(listxattr("/f", lbuf, 18));
	C(listxattr("/f", lbuf, 19));
	C(SET("/mine", "user.m", "1"));
	C(SET("/mine", "trusted.m", "1"));
	C(SET("/mine", "security.m", "1"));
	C(SET("/mine", "user.", "1"));
	XGET("/mine", "user.m");
	C(CHMOD("/mine", 0));
	XGET("/mine", "user.m");
	C(SET("/mine", "user.m", "2"));
	XLIST("/mine");
	XGET("/closed", "user.c");
	XGET("/closed", "security.none");
	XGET("/closed", "foo.x");
	XLIST("/closed");
	/* a sticky directory: only its owner changes its user.* */
	C(SET("/sticky", "user.s", "1"));
	XGET("/sticky", "user.s");
	C(SET("/sticky/own", "user.s", "1"));
	C(SET("/open", "user.s", "1"));
	C(setcred(0, 0));
	C(SET("/sticky", "user.s", "1"));
	C(setcred(1000, 1000));
	C(removexattr("/sticky", "user.s"));
	XGET("/sticky", "user.s");
}

static void xattr_fds(void)
{
	C(mkfile("/f", ""));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fsetxattr(fd, "user.a", "1", 1, 0));
	C(fgetxattr(fd, "user.a", vbuf, sizeof vbuf));
	C(flistxattr(fd, lbuf, sizeof lbuf));
	C(flistxattr(fd, NULL, 0));
	C(fremovexattr(fd, "user.a"));
	C(fremovexattr(fd, "user.a"));
	int pfd = F(OPEN("/f", O_PATH));
	C(fsetxattr(pfd, "user.a", "1", 1, 0));
	C(fgetxattr(pfd, "user.a", vbuf, sizeof vbuf));
	C(flistxattr(pfd, lbuf, sizeof lbuf));
	C(fremovexattr(pfd, "user.a"));
	C(MKDIR("/d", 0755));
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(fsetxattr(dfd, "user.d", "1", 1, 0));
	XGET("/d", "user.d");
	int p[2];
	/* a removed directory keeps them for whoever holds it */
	C(RMDIR("/d"));
	C(fsetxattr(dfd, "user.e", "1", 1, 0));
	C(fgetxattr(dfd, "user.d", vbuf, sizeof vbuf));
	XFLIST(dfd);
	C(pipe2(p, 0));
	C(fsetxattr(p[0], "user.a", "1", 1, 0));
	C(fgetxattr(p[0], "user.a", vbuf, sizeof vbuf));
	C(flistxattr(p[0], lbuf, sizeof lbuf));
	C(fsetxattr(p[1], "trusted.a", "1", 1, 0));
	C(fgetxattr(p[1], "trusted.a", vbuf, sizeof vbuf));
	cl(p[0]);
	cl(p[1]);
	int in = F(IINIT(IN_NONBLOCK));
	C(fsetxattr(in, "user.a", "1", 1, 0));
	C(fsetxattr(in, "trusted.a", "1", 1, 0));
	C(fgetxattr(in, "trusted.a", vbuf, sizeof vbuf));
	C(flistxattr(in, lbuf, sizeof lbuf));
	C(fremovexattr(in, "trusted.a"));
	cl(in);
	cl(fd);
	cl(pfd);
	cl(dfd);
}

/* IN_ATTRIB on each change, none on a failed one or a read; ctime moves */
static void xattr_events(void)
{
	C(mkfile("/f", ""));
	C(MKDIR("/d", 0755));
	int in = F(IINIT(IN_NONBLOCK));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	AGE("/f");
	C(SET("/f", "user.a", "1"));
	TS("/f");
	EV(in);
	AGE("/f");
	XGET("/f", "user.a");
	XLIST("/f");
	TS("/f");
	C(setxattr("/f", "user.a", "2", 1, XATTR_CREATE));
	C(removexattr("/f", "user.none"));
	TS("/f");
	EV(in);
	C(removexattr("/f", "user.a"));
	TS("/f");
	EV(in);
	C(mkfile("/d/g", ""));
	EV(in);
	C(SET("/d/g", "user.a", "1"));
	EV(in);
	C(SET("/d", "user.a", "1"));
	EV(in);
	cl(in);
}

/* Values take tmpfs's inode space: nr_inodes * 1024 bytes, of which each
 * inode takes 1024 and each value 40 + its name + its size. */
static void xattr_enospc(void)
{
	static char big[4096];
	memset(big, 'x', sizeof big);
	struct statfs sf;
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, "nr_inodes=3"));
	C(mkfile("/m/f", ""));
	C(statfs("/m", &sf));
	C(sf.f_ffree);
	C(setxattr("/m/f", "user.a", big, 978, 0));
	C(statfs("/m", &sf));
	C(sf.f_ffree);
	C(setxattr("/m/f", "user.b", "", 0, 0));
	C(setxattr("/m/f", "user.a", big, 977, 0));
	C(setxattr("/m/f", "user.q", big, 10, XATTR_REPLACE));
	C(setxattr("/m/f", "trusted.q", big, 10, 0));
	C(mkfile("/m/g", ""));
	C(LINK("/m/f", "/m/h"));
	C(removexattr("/m/f", "user.a"));
	C(statfs("/m", &sf));
	C(sf.f_ffree);
	C(setxattr("/m/f", "user.a", big, 979, 0));
	C(setxattr("/m/f", "user.a", big, 500, 0));
	C(setxattr("/m/f", "user.b", big, 400, 0));
	C(setxattr("/m/f", "user.c", big, 100, 0));
	C(removexattr("/m/f", "user.a"));
	C(removexattr("/m/f", "user.b"));
	C(LINK("/m/f", "/m/h"));
	C(UNLINK("/m/h"));
	/* an unlinked file gives its values' space back */
	C(mkfile("/m/g", ""));
	C(setxattr("/m/g", "user.a", big, 900, 0));
	C(UNLINK("/m/f"));
	C(mkfile("/m/f", ""));
	C(UNLINK("/m/g"));
	C(mkfile("/m/g", ""));
	C(umount2("/m", 0));
	/* a remount counts the values' space as inodes in use */
	C(TMPFS("/m", 0, "nr_inodes=4"));
	C(mkfile("/m/f", ""));
	C(setxattr("/m/f", "user.a", big, 900, 0));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "nr_inodes=2"));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "nr_inodes=3"));
	C(statfs("/m", &sf));
	C(sf.f_ffree);
	C(mkfile("/m/g", ""));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "nr_inodes=5"));
	C(statfs("/m", &sf));
	C(sf.f_ffree);
	C(mkfile("/m/g", ""));
	C(umount2("/m", 0));
	/* without a limit, no limit */
	C(TMPFS("/m", 0, "nr_inodes=0"));
	C(mkfile("/m/f", ""));
	for (int i = 0; i < 40; i++)
		if (setxattr("/m/f", fmt("user.%d", i), big, sizeof big, 0))
			C(i);
	C(listxattr("/m/f", NULL, 0));
	C(umount2("/m", 0));
}

/*
 * A file capability goes with the file's contents: a write, a truncate and a
 * chown drop security.capability, even root's (Linux's file_remove_privs and
 * notify_change with ATTR_KILL_PRIV, through security_inode_killpriv); a
 * write of nothing and a chmod keep it.
 */
static void xattr_killpriv(void)
{
	/* struct vfs_cap_data, revision 2, little-endian: CAP_NET_BIND_SERVICE
	 * permitted */
	static const unsigned char cap[20] = { 0, 0, 0, 2, 0, 4 };
#define CAPSET(p) setxattr(p, "security.capability", cap, sizeof cap, 0)
#define CAPLEN(p) getxattr(p, "security.capability", NULL, 0)
	C(mkfile("/f", "x"));
	C(CAPSET("/f"));
	C(CAPLEN("/f"));
	int fd = F(openat(AT_FDCWD, "/f", O_WRONLY, 0));
	C(write(fd, "", 0));
	C(CAPLEN("/f"));
	C(write(fd, "y", 1));
	C(CAPLEN("/f"));
	C(CAPSET("/f"));
	C(pwrite(fd, "z", 1, 5));
	C(CAPLEN("/f"));
	C(CAPSET("/f"));
	C(ftruncate(fd, 2));
	C(CAPLEN("/f"));
	C(CAPSET("/f"));
	C(fallocate(fd, 0, 0, 8192));
	C(CAPLEN("/f"));
	cl(fd);
	C(CAPSET("/f"));
	C(truncate("/f", 1));
	C(CAPLEN("/f"));
	C(CAPSET("/f"));
	C(CHMOD("/f", 0700));
	C(CAPLEN("/f"));
	C(CHOWN("/f", 1000, 1000));
	C(CAPLEN("/f"));
	C(CAPSET("/f"));
	C(CHOWN("/f", -1, -1));
	C(CAPLEN("/f"));
	STAT("/f");
#undef CAPSET
#undef CAPLEN
}

/* A value's bytes in hex, or "-errno". */
static const char *hex_str(ssize_t n, const unsigned char *v)
{
	static char out[160];
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	size_t l = (size_t)snprintf(out, sizeof out, "%zd:", n);
	for (ssize_t i = 0; i < n && i < 32; i++)
		l += (size_t)snprintf(out + l, sizeof out - l, "%02x", v[i]);
	return out;
}
#define CAPGET(p) CS(fmt("capability of %s", p), hex_str(getxattr(p, "security.capability", vbuf, sizeof vbuf), (unsigned char *)vbuf))

/*
 * security.capability's value is a struct vfs_cap_data that the kernel
 * checks and converts (commoncap's cap_convert_nscap, before any other
 * check of the set): revision 2 in 20 bytes or revision 3 in 24, else
 * EINVAL, from anyone; a valid one needs CAP_SETFCAP (EPERM).  An empty
 * value skips both.  A revision 3 whose root is this namespace's reads back
 * as revision 2.
 */
static void xattr_capability_values(void)
{
	unsigned char v[32] = { 0 };
#define CAPSETV(p, magic, len, root)                                                          \
	(memset(v, 0, sizeof v), v[0] = (magic) & 0xff, v[3] = (unsigned char)((magic) >> 24), \
	 v[20] = (root) & 0xff, v[21] = (unsigned char)((root) >> 8),                          \
	 v[22] = (unsigned char)((root) >> 16), v[23] = (unsigned char)((root) >> 24), v[4] = 4, \
	 setxattr(p, "security.capability", v, len, 0))
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	C(CAPSETV("/f", 0x02000000, 20, 0));
	CAPGET("/f");
	C(CAPSETV("/f", 0x02000001, 20, 0));
	CAPGET("/f");
	C(CAPSETV("/f", 0x02000000, 19, 0));
	C(CAPSETV("/f", 0x02000000, 21, 0));
	C(CAPSETV("/f", 0x02000000, 24, 0));
	C(CAPSETV("/f", 0x01000000, 12, 0));
	C(CAPSETV("/f", 0x01000000, 20, 0));
	C(CAPSETV("/f", 0x03000000, 20, 0));
	C(CAPSETV("/f", 0x02000002, 20, 0));
	C(CAPSETV("/f", 0x00000000, 4, 0));
	CAPGET("/f");
	/* a value shorter than the magic, in a buffer of its own size (read
	 * past it, AddressSanitizer's builds would say) */
	char *one = malloc(1);
	if (one) {
		one[0] = 2;
		C(setxattr("/f", "security.capability", one, 1, 0));
		free(one);
	}
	C(CAPSETV("/f", 0x03000000, 24, 0));
	CAPGET("/f");
	C(CAPSETV("/f", 0x03000001, 24, 1000));
	CAPGET("/f");
	C(CAPSETV("/f", 0x03000000, 24, 0xffff));
	CAPGET("/f");
	C(CAPSETV("/f", 0x03000000, 24, 0xffffffff));
	CAPGET("/f");
	C(CAPSETV("/f", 0x03000001, 24, 0));
	CAPGET("/f");
	C(getxattr("/f", "security.capability", NULL, 0));
	C(getxattr("/f", "security.capability", vbuf, 19));
	C(getxattr("/f", "security.capability", vbuf, 20));
	C(listxattr("/f", NULL, 0));
	C(setxattr("/f", "security.capability", "", 0, 0));
	CAPGET("/f");
	C(CAPSETV("/d", 0x02000000, 20, 0));
	CAPGET("/d");
	C(CAPSETV("/d", 0x02000000, 7, 0));
	int fd = F(openat(AT_FDCWD, "/f", O_RDONLY, 0));
	C(fsetxattr(fd, "security.capability", v, 3, 0));
	cl(fd);
	C(CAPSETV("/f", 0x02000000, 20, 0));
	C(setcred(1000, 1000));
	C(CAPSETV("/f", 0x02000000, 20, 0));
	C(CAPSETV("/f", 0x02000000, 10, 0));
	C(CAPSETV("/f", 0x03000000, 24, 1000));
	C(setxattr("/f", "security.capability", "", 0, 0));
	C(removexattr("/f", "security.capability"));
	C(setxattr("/f", "security.other", "", 0, 0));
	C(setcred(0, 0));
	CAPGET("/f");
	C(CHMOD("/f", 0644));
	C(CHOWN("/f", 1000, 1000));
	C(setcred(1000, 1000));
	C(CAPSETV("/f", 0x02000000, 20, 0));
	C(CAPSETV("/f", 0x02000000, 10, 0));
	C(setcred(0, 0));
#undef CAPSETV
}

/* The order of a listing, as it comes (the other scenarios sort it): Linux
 * 6.18's tmpfs lists names in descending byte order whatever order they
 * were set in, the ACLs first; a replaced value keeps its place, a removed
 * name leaves, and trusted.* is left out for non-root. */
#define XORDER(p) CS(fmt("list in order %s", p), xattr_names(lbuf, listxattr(p, lbuf, sizeof lbuf)))
static void xattr_list_order(void)
{
	static const char *const names[] = { "user.b", "trusted.a", "user.a", "security.s", "user.zz", "user.ab",
					     "trusted.t", "user.\xc3\xa9", "user.B", "user.a0" };
	C(mkfile("/f", ""));
	C(MKDIR("/d", 0777));
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		C(SET("/f", names[i], "v"));
		C(SET("/d", names[(i * 7) % 10], "w"));
		XORDER("/f");
	}
	XORDER("/d");
	C(SET("/f", "user.a", "longer value"));
	C(removexattr("/f", "user.zz"));
	C(SET("/f", "user.zz", "again"));
	XORDER("/f");
	C(setxattr("/d", "system.posix_acl_default", acl_value(3), acl_value_size(3), 0));
	C(setxattr("/f", "system.posix_acl_access", acl_value(2), acl_value_size(2), 0));
	XORDER("/f");
	XORDER("/d");
	C(CHMOD("/f", 0666));
	C(setcred(1000, 1000));
	XORDER("/f");
	C(setcred(0, 0));
}
#undef XORDER

static void xattr_rofs(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", ""));
	C(SET("/m/f", "user.a", "1"));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	C(SET("/m/f", "user.b", "1"));
	C(SET("/m/f", "", "1"));
	C(removexattr("/m/f", "user.a"));
	C(SET("/m/f", "foo.b", "1"));
	C(setxattr("/m/f", "system.posix_acl_access", "zz", 2, 0));
	C(removexattr("/m/f", "system.posix_acl_access"));
	/* before a file capability's own checks */
	C(setxattr("/m/f", "security.capability", "\0\0\0\2", 4, 0));
	XGET("/m/f", "user.a");
	XLIST("/m/f");
	C(umount2("/m", 0));
}

/* Permission is the inode's, whatever the fd was opened for */
static void xattr_fd_perms(void)
{
	C(mkfile("/f", ""));
	C(CHMOD("/f", 0644));
	C(SET("/f", "user.a", "1"));
	C(setcred(1000, 1000));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fsetxattr(fd, "user.b", "1", 1, 0));
	C(fremovexattr(fd, "user.a"));
	C(fgetxattr(fd, "user.a", vbuf, sizeof vbuf));
	cl(fd);
	C(setcred(0, 0));
	C(CHMOD("/f", 0622));
	C(setcred(1000, 1000));
	fd = F(OPEN("/f", O_WRONLY));
	C(fgetxattr(fd, "user.a", vbuf, sizeof vbuf));
	C(fsetxattr(fd, "user.b", "1", 1, 0));
	XFLIST(fd);
	cl(fd);
	/* an O_TMPFILE file keeps what it got once it has a name */
	C(setcred(0, 0));
	C(MKDIR("/d", 0777));
	fd = F(openat(AT_FDCWD, "/d", O_TMPFILE | O_RDWR, 0600));
	C(fsetxattr(fd, "user.t", "tmp", 3, 0));
	XFLIST(fd);
	C(linkat(fd, "", AT_FDCWD, "/d/named", AT_EMPTY_PATH));
	XGET("/d/named", "user.t");
	cl(fd);
}

/* The path calls on what an fd refers to (Linux: on /proc/self/fd/N; uvfs:
 * uvfs_fd_*xattr), an O_PATH fd of a file, a directory, a FIFO, a device
 * node, a symlink: the attribute's own rules and the caller's permission
 * apply as on a path; the f forms refuse the O_PATH fd. */
static void xattr_fd_forms(void)
{
	static const char *const paths[] = { "/d/f", "/d", "/d/p", "/d/c", "/d/l" };
	char v[64], l[256];
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "x"));
	C(CHMOD("/d/f", 0640));
	C(MKNOD("/d/p", S_IFIFO | 0644, 0));
	C(MKNOD("/d/c", S_IFCHR | 0644, makedev(1, 3)));
	C(SYMLINK("f", "/d/l"));
	for (int i = 0; i < 5; i++) {
		const char *p = paths[i];
		int fd = F(OPEN(p, O_PATH | O_NOFOLLOW));
		C(fgetxattr(fd, "user.a", v, sizeof v));
		C(fd_setxattr(fd, "user.a", "va", 2, 0));
		C(fd_setxattr(fd, "trusted.t", "vt", 2, XATTR_CREATE));
		C(fd_setxattr(fd, "trusted.t", "vt", 2, XATTR_CREATE));
		C(fd_getxattr(fd, "user.a", v, sizeof v));
		C(fd_getxattr(fd, "trusted.t", v, sizeof v));
		C(fd_getxattr(fd, "trusted.t", NULL, 0));
		C(fd_getxattr(fd, "trusted.t", v, 1));
		C(fd_getxattr(fd, "system.posix_acl_access", v, sizeof v));
		CS(fmt("fd list %s", p), list_str(fd_listxattr(fd, l, sizeof l), l));
		C(lgetxattr(p, "trusted.t", v, sizeof v));
		C(setcred(1000, 1000));
		C(fd_getxattr(fd, "user.a", v, sizeof v));
		C(fd_setxattr(fd, "user.b", "vb", 2, 0));
		C(fd_removexattr(fd, "user.a"));
		CS(fmt("fd list %s as 1000", p), list_str(fd_listxattr(fd, l, sizeof l), l));
		C(setcred(0, 0));
		C(fd_removexattr(fd, "trusted.t"));
		C(fd_removexattr(fd, "trusted.t"));
		C(fd_removexattr(fd, "user.a"));
		CS(fmt("list %s", p), list_str(llistxattr(p, l, sizeof l), l));
		cl(fd);
	}
	/* an fd open for reading: the same as the f forms */
	int fd = F(OPEN("/d/f", O_RDONLY));
	C(fd_setxattr(fd, "user.r", "vr", 2, 0));
	C(fgetxattr(fd, "user.r", v, sizeof v));
	cl(fd);
	/* the name and the value are checked before the fd */
	C(fd_getxattr(fd, "user.r", v, sizeof v));
	C(fd_setxattr(999, "user.r", "v", 1, XATTR_CREATE));
	C(fd_listxattr(999, l, sizeof l));
	C(fd_removexattr(999, "user.r"));
}

const struct scenario xattr_scenarios[] = {
	{ "xattr_fd_perms", xattr_fd_perms },
	{ "xattr_fd_forms", xattr_fd_forms },
	{ "xattr_user_basic", xattr_user_basic },
	{ "xattr_flags", xattr_flags },
	{ "xattr_limits", xattr_limits },
	{ "xattr_namespaces", xattr_namespaces },
	{ "xattr_file_types", xattr_file_types },
	{ "xattr_nonroot", xattr_nonroot },
	{ "xattr_fds", xattr_fds },
	{ "xattr_events", xattr_events },
	{ "xattr_enospc", xattr_enospc },
	{ "xattr_rofs", xattr_rofs },
	{ "xattr_killpriv", xattr_killpriv },
	{ "xattr_capability_values", xattr_capability_values },
	{ "xattr_list_order", xattr_list_order },
	{ NULL, NULL },
};
