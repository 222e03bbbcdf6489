// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * xattrat.c - setxattrat, getxattrat, listxattrat and removexattrat
 * (Linux 6.13) against the host's tmpfs: struct xattr_args and its usize,
 * the AT_ flags, AT_EMPTY_PATH on an fd (not an O_PATH one), the order of
 * the errors, and a NULL buffer.
 *
 * On a host kernel before 6.13 the calls are ENOSYS, and the harness then
 * skips each check.
 */
#include <sys/xattr.h>
#include "conf.h"

#define setxattrat(d, p, af, n, a, us) B->setxattrat(BX, d, p, af, n, a, us)
#define getxattrat(d, p, af, n, a, us) B->getxattrat(BX, d, p, af, n, a, us)
#define listxattrat(d, p, af, l, s) B->listxattrat(BX, d, p, af, l, s)
#define removexattrat(d, p, af, n) B->removexattrat(BX, d, p, af, n)
#define lsetxattr(p, n, v, s, f) B->lsetxattr(BX, p, n, v, s, f)
#define getxattr(p, n, v, s) B->getxattr(BX, p, n, v, s)

/* Linux's struct xattr_args */
struct xa {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static char vbuf[256], lbuf[1024];

#define XA(v, s, f) (struct xa){ (uint64_t)(uintptr_t)(v), (uint32_t)(s), (uint32_t)(f) }
/* set and get with a struct made on the spot */
#define SETAT(d, p, af, n, v, f) ({ struct xa a_ = XA(v, strlen(v), f); setxattrat(d, p, af, n, &a_, sizeof a_); })
#define GETAT(d, p, af, n) ({ struct xa a_ = XA(vbuf, sizeof vbuf, 0); getxattrat(d, p, af, n, &a_, sizeof a_); })

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names of a list, sorted (tmpfs lists in hash order), or "-errno" */
static const char *list_str(ssize_t n, char *buf)
{
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	char *names[64];
	int k = 0;
	for (ssize_t i = 0; i < n && k < 64; i += (ssize_t)strlen(buf + i) + 1)
		names[k++] = buf + i;
	qsort(names, (size_t)k, sizeof names[0], cmp_str);
	static char out[1024];
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < k; i++)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", i ? "," : "", names[i]);
	return out;
}
#define XLISTAT(d, p, af) CS(fmt("listat %s %s %#x", #d, p ? p : "NULL", af), \
			     list_str(listxattrat(d, p, af, lbuf, sizeof lbuf), lbuf))
#define XGETAT(d, p, af, n) CS(fmt("getat %s %s %#x %s", #d, p ? p : "NULL", af, n), val_str(GETAT(d, p, af, n)))

static const char *val_str(ssize_t n)
{
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	return fmt("%zd:%.*s", n, (int)n, vbuf);
}

/* The four calls by path, relative to a directory fd, and symlinks */
static void xattrat_basic(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", ""));
	C(SYMLINK("f", "/d/l"));
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(SETAT(AT_FDCWD, "/d/f", 0, "user.a", "one", 0));
	C(SETAT(dfd, "f", 0, "user.b", "two", 0));
	XGETAT(AT_FDCWD, "/d/f", 0, "user.b");
	XGETAT(dfd, "f", 0, "user.a");
	XLISTAT(dfd, "f", 0);
	/* a final symlink is followed, unless AT_SYMLINK_NOFOLLOW */
	C(SETAT(dfd, "l", 0, "user.c", "three", 0));
	XGETAT(AT_FDCWD, "/d/f", 0, "user.c");
	C(SETAT(dfd, "l", AT_SYMLINK_NOFOLLOW, "user.c", "x", 0));
	XGETAT(dfd, "l", AT_SYMLINK_NOFOLLOW, "user.c");
	XLISTAT(dfd, "l", AT_SYMLINK_NOFOLLOW);
	XLISTAT(dfd, "l", 0);
	C(removexattrat(dfd, "l", AT_SYMLINK_NOFOLLOW, "user.c"));
	C(removexattrat(dfd, "l", 0, "user.c"));
	C(removexattrat(dfd, "l", 0, "user.c"));
	/* trusted.* on the symlink itself, as root */
	C(SETAT(dfd, "l", AT_SYMLINK_NOFOLLOW, "trusted.t", "t", 0));
	XLISTAT(dfd, "l", AT_SYMLINK_NOFOLLOW);
	XGETAT(AT_FDCWD, "/d/l", AT_SYMLINK_NOFOLLOW, "trusted.t");
	C(removexattrat(AT_FDCWD, "/d/l", AT_SYMLINK_NOFOLLOW, "trusted.t"));
	/* a path relative to a non-directory, a missing name, a bad dfd */
	int ffd = F(OPEN("/d/f", O_RDONLY));
	C(SETAT(ffd, "x", 0, "user.a", "1", 0));
	C(SETAT(dfd, "missing", 0, "user.a", "1", 0));
	C(SETAT(999, "f", 0, "user.a", "1", 0));
	XGETAT(ffd, "x", 0, "user.a");
	XLISTAT(999, "f", 0);
	C(removexattrat(dfd, "missing", 0, "user.a"));
	/* XATTR_CREATE and XATTR_REPLACE in the struct */
	C(SETAT(dfd, "f", 0, "user.a", "new", XATTR_CREATE));
	C(SETAT(dfd, "f", 0, "user.a", "new", XATTR_REPLACE));
	C(SETAT(dfd, "f", 0, "user.z", "new", XATTR_REPLACE));
	XGETAT(dfd, "f", 0, "user.a");
	/* the namespaces' rules are setxattr's */
	C(SETAT(dfd, "f", 0, "bad.a", "1", 0));
	C(SETAT(dfd, "f", 0, "user.", "1", 0));
	C(removexattrat(dfd, "f", 0, "bad.a"));
	C(CHMOD("/d/f", 0600));
	C(setcred(1000, 1000));
	XGETAT(dfd, "f", 0, "user.a");
	C(SETAT(dfd, "f", 0, "trusted.a", "1", 0));
	XLISTAT(dfd, "f", 0);
	C(setcred(0, 0));
	cl(ffd);
	cl(dfd);
}

/* struct xattr_args: usize, a larger struct's tail, the flags; the order
 * of the checks */
static void xattrat_args(void)
{
	struct {
		struct xa a;
		uint64_t more;
	} big = { XA("v", 1, 0), 0 };
	struct xa a = XA("v", 1, 0), g = XA(vbuf, sizeof vbuf, 0);
	C(mkfile("/f", ""));
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &a, 0));
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &a, 8));
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &a, 15));
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &big, 4097));
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &big, sizeof big));
	big.more = 1;
	C(setxattrat(AT_FDCWD, "/f", 0, "user.b", &big, sizeof big));
	C(setxattrat(AT_FDCWD, "/f", 0, "user.b", NULL, sizeof a));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &g, 0));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &g, 12));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &big, 8192));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", NULL, sizeof g));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &big, sizeof big));
	big.more = 0;
	big.a = XA(vbuf, sizeof vbuf, 0);
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &big, sizeof big));
	/* at_flags */
	C(setxattrat(AT_FDCWD, "/f", 0x2, "user.a", &a, sizeof a));
	C(setxattrat(AT_FDCWD, "/f", AT_SYMLINK_FOLLOW, "user.a", &a, sizeof a));
	C(getxattrat(AT_FDCWD, "/f", AT_REMOVEDIR, "user.a", &g, sizeof g));
	C(listxattrat(AT_FDCWD, "/f", 0x2, lbuf, sizeof lbuf));
	C(removexattrat(AT_FDCWD, "/f", 0x2, "user.a"));
	/* the struct's flags */
	a.flags = 4;
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &a, sizeof a));
	a.flags = XATTR_CREATE | XATTR_REPLACE;
	C(setxattrat(AT_FDCWD, "/f", 0, "user.c", &a, sizeof a));
	a.flags = 0;
	g.flags = 1;
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &g, sizeof g));
	g.flags = 0;
	/* names and sizes */
	char longname[300];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	memcpy(longname, "user.", 5);
	C(setxattrat(AT_FDCWD, "/f", 0, "", &a, sizeof a));
	C(setxattrat(AT_FDCWD, "/f", 0, NULL, &a, sizeof a));
	C(setxattrat(AT_FDCWD, "/f", 0, longname, &a, sizeof a));
	C(getxattrat(AT_FDCWD, "/f", 0, longname, &g, sizeof g));
	C(getxattrat(AT_FDCWD, "/f", 0, NULL, &g, sizeof g));
	C(removexattrat(AT_FDCWD, "/f", 0, ""));
	C(removexattrat(AT_FDCWD, "/f", 0, NULL));
	a.size = 70000;
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &a, sizeof a));
	a = XA(NULL, 2, 0);
	C(setxattrat(AT_FDCWD, "/f", 0, "user.a", &a, sizeof a));
	a = XA(NULL, 0, 0);
	C(setxattrat(AT_FDCWD, "/f", 0, "user.empty", &a, sizeof a));
	XGETAT(AT_FDCWD, "/f", 0, "user.empty");
	/* which comes first: usize, at_flags, the struct's flags, the name, the path */
	C(setxattrat(AT_FDCWD, NULL, 0x2, NULL, NULL, 8));
	C(setxattrat(AT_FDCWD, NULL, 0x2, NULL, NULL, 5000));
	C(setxattrat(AT_FDCWD, NULL, 0x2, NULL, NULL, sizeof a));
	C(setxattrat(AT_FDCWD, NULL, 0x2, NULL, &a, sizeof a));
	a.flags = 8;
	C(setxattrat(AT_FDCWD, NULL, 0, NULL, &a, sizeof a));
	a.flags = 0;
	C(setxattrat(AT_FDCWD, NULL, 0, "", &a, sizeof a));
	C(setxattrat(AT_FDCWD, NULL, 0, "user.x", &a, sizeof a));
	C(setxattrat(999, "", AT_EMPTY_PATH, "", &a, sizeof a));
	C(getxattrat(AT_FDCWD, NULL, 0x2, NULL, &g, 8));
	C(getxattrat(AT_FDCWD, NULL, 0, NULL, &g, sizeof g));
	C(getxattrat(AT_FDCWD, NULL, 0, "", &g, sizeof g));
	C(getxattrat(AT_FDCWD, NULL, 0, "user.x", &g, sizeof g));
	C(getxattrat(999, "", AT_EMPTY_PATH, "", &g, sizeof g));
	C(getxattrat(999, "", AT_EMPTY_PATH, "user.x", &g, sizeof g));
	C(listxattrat(999, "", 0x2, NULL, 0));
	C(listxattrat(AT_FDCWD, NULL, 0, NULL, 0));
	C(removexattrat(AT_FDCWD, NULL, 0x2, NULL));
	C(removexattrat(999, "x", 0, ""));
	C(removexattrat(999, "x", 0, "user.x"));
	C(removexattrat(AT_FDCWD, NULL, 0, "user.x"));
	C(removexattrat(AT_FDCWD, "", 0, "user.x"));
	C(getxattrat(AT_FDCWD, "", 0, "user.x", &g, sizeof g));
}

/* AT_EMPTY_PATH: the fd itself (not an O_PATH one); AT_FDCWD is the cwd
 * for set and get, EBADF for list and remove */
static void xattrat_empty_path(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", ""));
	C(SYMLINK("f", "/d/l"));
	C(chdir("/d"));
	int fd = F(OPEN("f", O_RDONLY));
	int pfd = F(OPEN("f", O_PATH));
	int lfd = F(OPEN("l", O_PATH | O_NOFOLLOW));
	int dfd = F(OPEN("/d", O_PATH | O_DIRECTORY));
	C(SETAT(fd, "", AT_EMPTY_PATH, "user.a", "fd", 0));
	C(SETAT(fd, NULL, AT_EMPTY_PATH, "user.b", "fd", 0));
	XGETAT(fd, "", AT_EMPTY_PATH, "user.a");
	XGETAT(fd, NULL, AT_EMPTY_PATH, "user.b");
	XLISTAT(fd, "", AT_EMPTY_PATH);
	XLISTAT(fd, NULL, AT_EMPTY_PATH);
	C(removexattrat(fd, "", AT_EMPTY_PATH, "user.b"));
	C(removexattrat(fd, NULL, AT_EMPTY_PATH, "user.b"));
	/* O_PATH fds, of a file, a symlink, a directory */
	C(SETAT(pfd, "", AT_EMPTY_PATH, "user.p", "1", 0));
	XGETAT(pfd, "", AT_EMPTY_PATH, "user.a");
	XLISTAT(pfd, "", AT_EMPTY_PATH);
	C(removexattrat(pfd, "", AT_EMPTY_PATH, "user.a"));
	C(SETAT(lfd, "", AT_EMPTY_PATH, "trusted.p", "1", 0));
	XLISTAT(lfd, NULL, AT_EMPTY_PATH);
	C(SETAT(dfd, "", AT_EMPTY_PATH, "user.p", "1", 0));
	/* an O_PATH directory fd is fine as a starting point */
	C(SETAT(dfd, "f", 0, "user.c", "dir", 0));
	XGETAT(dfd, "f", AT_EMPTY_PATH, "user.c");
	C(SETAT(dfd, ".", 0, "user.d", "dot", 0));
	/* without AT_EMPTY_PATH, "" is ENOENT and NULL EFAULT */
	C(SETAT(fd, "", 0, "user.a", "1", 0));
	C(SETAT(fd, NULL, 0, "user.a", "1", 0));
	XGETAT(fd, "", 0, "user.a");
	XLISTAT(fd, "", 0);
	C(removexattrat(fd, "", 0, "user.a"));
	/* AT_FDCWD */
	C(SETAT(AT_FDCWD, "", AT_EMPTY_PATH, "user.cwd", "c", 0));
	C(SETAT(AT_FDCWD, NULL, AT_EMPTY_PATH, "user.cwd2", "c", 0));
	XGETAT(AT_FDCWD, "", AT_EMPTY_PATH, "user.cwd");
	XGETAT(AT_FDCWD, NULL, AT_EMPTY_PATH, "user.cwd2");
	XGETAT(AT_FDCWD, ".", 0, "user.dot");
	XLISTAT(AT_FDCWD, "", AT_EMPTY_PATH);
	XLISTAT(AT_FDCWD, NULL, AT_EMPTY_PATH);
	XLISTAT(AT_FDCWD, "/d", 0);
	C(removexattrat(AT_FDCWD, "", AT_EMPTY_PATH, "user.cwd"));
	C(removexattrat(AT_FDCWD, ".", 0, "user.cwd"));
	/* bad fds */
	C(SETAT(999, "", AT_EMPTY_PATH, "user.a", "1", 0));
	C(SETAT(-5, "", AT_EMPTY_PATH, "user.a", "1", 0));
	XGETAT(999, NULL, AT_EMPTY_PATH, "user.a");
	XLISTAT(-5, "", AT_EMPTY_PATH);
	C(removexattrat(999, "", AT_EMPTY_PATH, "user.a"));
	/* a file's fd with a path: relative to a non-directory */
	C(SETAT(fd, "x", AT_EMPTY_PATH, "user.a", "1", 0));
	cl(fd);
	cl(pfd);
	cl(lfd);
	cl(dfd);
	C(chdir("/"));
}

/* A NULL buffer with a size: the attribute's own errors and ERANGE first,
 * then EFAULT; an empty value or list needs no buffer */
static void xattrat_null_buffer(void)
{
	C(mkfile("/f", ""));
	C(mkfile("/e", ""));
	struct xa g = XA(NULL, 10, 0);
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &g, sizeof g));
	C(SETAT(AT_FDCWD, "/f", 0, "user.a", "value", 0));
	C(SETAT(AT_FDCWD, "/f", 0, "user.long", "a value longer than ten bytes", 0));
	struct xa z = XA("", 0, 0);
	C(setxattrat(AT_FDCWD, "/f", 0, "user.empty", &z, sizeof z));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.a", &g, sizeof g));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.long", &g, sizeof g));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.empty", &g, sizeof g));
	C(getxattrat(AT_FDCWD, "/f", 0, "user.missing", &g, sizeof g));
	C(getxattr("/f", "user.a", NULL, 10));
	C(getxattr("/f", "user.long", NULL, 10));
	C(getxattr("/f", "user.missing", NULL, 10));
	C(getxattr("/f", "user.empty", NULL, 10));
	g.size = 0;
	C(getxattrat(AT_FDCWD, "/f", 0, "user.long", &g, sizeof g));
	C(listxattrat(AT_FDCWD, "/e", 0, NULL, 256));
	C(listxattrat(AT_FDCWD, "/f", 0, NULL, 5));
	C(listxattrat(AT_FDCWD, "/f", 0, NULL, 256));
	C(listxattrat(AT_FDCWD, "/f", 0, NULL, 0));
	C(listxattrat(AT_FDCWD, "/f", 0, lbuf, 5));
	C(listxattrat(AT_FDCWD, "/f", 0, lbuf, 100000));
}

const struct scenario xattrat_scenarios[] = {
	{ "xattrat_basic", xattrat_basic },
	{ "xattrat_args", xattrat_args },
	{ "xattrat_empty_path", xattrat_empty_path },
	{ "xattrat_null_buffer", xattrat_null_buffer },
	{ NULL, NULL },
};
