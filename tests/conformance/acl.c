// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * acl.c - POSIX ACLs on tmpfs, as setfacl and getfacl drive them: the
 * system.posix_acl_access and system.posix_acl_default xattrs in Linux's
 * format (version 2 header, then entries of tag, perm, id), written here
 * directly so that no scenario needs the acl tools.
 */
#include <sys/inotify.h>
#include <sys/xattr.h>
#include "conf.h"
#include "events.h"

#define setxattr(p, n, v, s, f) B->setxattr(BX, p, n, v, s, f)
#define lsetxattr(p, n, v, s, f) B->lsetxattr(BX, p, n, v, s, f)
#define getxattr(p, n, v, s) B->getxattr(BX, p, n, v, s)
#define lgetxattr(p, n, v, s) B->lgetxattr(BX, p, n, v, s)
#define listxattr(p, l, s) B->listxattr(BX, p, l, s)
#define removexattr(p, n) B->removexattr(BX, p, n)
#define IINIT(f) B->inotify_init1(BX, f)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)

#define A "system.posix_acl_access"
#define D "system.posix_acl_default"

enum { UO = 1, U = 2, GO = 4, G = 8, M = 0x10, O = 0x20 };

struct acl_buf {
	size_t len;
	unsigned char b[4 + 8 * 16];
};

/* acl(version, n, tag, perm, id, ...): the xattr value */
static struct acl_buf acl_(unsigned version, int n, const unsigned *e)
{
	struct acl_buf a;
	a.b[0] = (unsigned char)version;
	a.b[1] = a.b[2] = a.b[3] = 0;
	for (int i = 0; i < n; i++) {
		unsigned char *p = a.b + 4 + 8 * i;
		unsigned tag = e[3 * i], perm = e[3 * i + 1], id = e[3 * i + 2];
		p[0] = (unsigned char)tag;
		p[1] = (unsigned char)(tag >> 8);
		p[2] = (unsigned char)perm;
		p[3] = (unsigned char)(perm >> 8);
		p[4] = (unsigned char)id;
		p[5] = (unsigned char)(id >> 8);
		p[6] = (unsigned char)(id >> 16);
		p[7] = (unsigned char)(id >> 24);
	}
	a.len = 4 + 8 * (size_t)n;
	return a;
}
#define ACL(...) acl_(2, (int)(sizeof((unsigned[]){ __VA_ARGS__ }) / sizeof(unsigned) / 3), (unsigned[]){ __VA_ARGS__ })
#define SETACL(p, name, a) ({ struct acl_buf a_ = (a); setxattr(p, name, a_.b, a_.len, 0); })

/* An ACL as getfacl would print it ("u::rw-,u:1000:r--,..."), or "-errno". */
static const char *acl_str(ssize_t n, const unsigned char *b)
{
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	static char out[1024];
	size_t o = (size_t)snprintf(out, sizeof out, "v%u", b[0]);
	for (ssize_t i = 4; i + 8 <= n; i += 8) {
		unsigned tag = b[i] | b[i + 1] << 8, perm = b[i + 2] | b[i + 3] << 8;
		unsigned id = b[i + 4] | b[i + 5] << 8 | b[i + 6] << 16 | (unsigned)b[i + 7] << 24;
		const char *t = tag == UO ? "u:" : tag == U ? "u" : tag == GO ? "g:" : tag == G ? "g" : tag == M ? "m:" :
				tag == O ? "o:" : "?";
		o += (size_t)snprintf(out + o, sizeof out - o, ",%s%s%u:%c%c%c", t, tag == U || tag == G ? ":" : "",
				      (tag == U || tag == G) ? id : (id == 0xffffffffu ? 0 : 1), perm & 4 ? 'r' : '-',
				      perm & 2 ? 'w' : '-', perm & 1 ? 'x' : '-');
	}
	return out;
}
static unsigned char abuf[1024];
#define GETACL(p, name) CS(fmt("getfacl %s %s", p, name), acl_str(getxattr(p, name, abuf, sizeof abuf), abuf))

static const char *list_str(ssize_t n, char *buf)
{
	if (n < 0)
		return fmt("%s", strerrorname_np((int)-n));
	/* at most the two ACL names and one more: sort by hand */
	const char *names[8];
	int k = 0;
	for (ssize_t i = 0; i < n && k < 8; i += (ssize_t)strlen(buf + i) + 1)
		names[k++] = buf + i;
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	static char out[512];
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < k; i++)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", i ? "," : "", names[i]);
	return out;
}
static char lbuf[4096];
#define XLIST(p) CS(fmt("list %s", p), list_str(listxattr(p, lbuf, sizeof lbuf), lbuf))

#define NAMED ACL(UO, 6, 0, U, 4, 1000, GO, 4, 0, M, 4, 0, O, 0, 0)

static void acl_set_get(void)
{
	C(mkfile("/f", ""));
	C(CHMOD("/f", 0640));
	AGE("/f");
	C(SETACL("/f", A, NAMED));
	TS("/f");
	STAT("/f");
	GETACL("/f", A);
	GETACL("/f", D);
	C(getxattr("/f", A, NULL, 0));
	C(getxattr("/f", A, abuf, 8));
	XLIST("/f");
	/* setfacl -m: a new ACL whole; the mode follows its classes */
	C(SETACL("/f", A, ACL(UO, 7, 0, U, 7, 1000, G, 5, 5, GO, 0, 0, M, 5, 0, O, 1, 0)));
	C(SETACL("/f", A, ACL(UO, 7, 0, U, 7, 1000, GO, 0, 0, G, 5, 5, M, 5, 0, O, 1, 0)));
	STAT("/f");
	GETACL("/f", A);
	/* flags do not apply to ACLs */
	C(({ struct acl_buf a_ = NAMED; setxattr("/f", A, a_.b, a_.len, XATTR_CREATE); }));
	C(({ struct acl_buf a_ = NAMED; setxattr("/f", A, a_.b, a_.len, XATTR_CREATE | XATTR_REPLACE); }));
	STAT("/f");
}

/* An ACL that a mode can say is not kept: the mode says it. */
static void acl_equiv(void)
{
	C(mkfile("/f", ""));
	C(SETACL("/f", A, ACL(UO, 7, 0, GO, 5, 0, O, 1, 0)));
	STAT("/f");
	GETACL("/f", A);
	XLIST("/f");
	/* a mask is more than a mode */
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, M, 4, 0, O, 0, 0)));
	STAT("/f");
	GETACL("/f", A);
	/* no entries, or no value: no ACL; the mode stays */
	C(setxattr("/f", A, "\2\0\0\0", 4, 0));
	GETACL("/f", A);
	STAT("/f");
	C(SETACL("/f", A, NAMED));
	C(setxattr("/f", A, "", 0, 0));
	GETACL("/f", A);
	STAT("/f");
	C(SETACL("/f", A, NAMED));
	AGE("/f");
	C(removexattr("/f", A));
	TS("/f");
	STAT("/f");
	C(removexattr("/f", A));
	C(removexattr("/f", D));
	GETACL("/f", A);
}

/* chmod rewrites the owner, mask and other entries */
static void acl_chmod(void)
{
	C(mkfile("/f", ""));
	C(SETACL("/f", A, ACL(UO, 6, 0, U, 7, 1000, GO, 4, 0, M, 7, 0, O, 4, 0)));
	STAT("/f");
	C(CHMOD("/f", 0600));
	GETACL("/f", A);
	C(CHMOD("/f", 0751));
	GETACL("/f", A);
	STAT("/f");
	C(mkfile("/g", ""));
	C(CHMOD("/g", 0));
	GETACL("/g", A);
}

static void acl_invalid(void)
{
	C(mkfile("/f", ""));
	C(({ struct acl_buf a_ = acl_(1, 3, (unsigned[]){ UO, 6, 0, GO, 4, 0, O, 0, 0 }); setxattr("/f", A, a_.b, a_.len, 0); }));
	C(setxattr("/f", A, "\2\0", 2, 0));
	C(setxattr("/f", A, "\2\0\0\0\1\0\6\0\0\0\0\0x", 13, 0));
	C(SETACL("/f", A, ACL(UO, 6, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, U, 4, 1000, GO, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, G, 4, 5, O, 0, 0)));
	C(SETACL("/f", A, ACL(GO, 6, 0, UO, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, UO, 6, 0, GO, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, M, 4, 0, M, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, O, 0, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 017, 0, GO, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, 0x40, 0, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, U, 4, 0xffffffffu, GO, 4, 0, M, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, G, 4, 0xffffffffu, M, 4, 0, O, 0, 0)));
	C(SETACL("/f", A, ACL(UO, 6, 0, M, 4, 0, GO, 4, 0, O, 0, 0)));
	/* ids may repeat and come in any order */
	C(SETACL("/f", A, ACL(UO, 6, 0, U, 4, 1001, U, 4, 1000, U, 2, 1000, GO, 4, 0, G, 4, 5, G, 4, 5, M, 4, 0, O, 0, 0)));
	GETACL("/f", A);
	STAT("/f");
	/* a default ACL is for directories; removing none is fine */
	C(SETACL("/f", D, NAMED));
	C(setxattr("/f", D, "\2\0\0\0", 4, 0));
	C(removexattr("/f", D));
	GETACL("/f", D);
	/* none on symlinks */
	C(SYMLINK("/f", "/l"));
	C(({ struct acl_buf a_ = NAMED; lsetxattr("/l", A, a_.b, a_.len, 0); }));
	C(lsetxattr("/l", A, "zz", 2, 0));
	C(lgetxattr("/l", A, abuf, sizeof abuf));
	GETACL("/l", A);
}

/* Only the owner (or root) sets an ACL; the value is checked first */
static void acl_owner(void)
{
	C(mkfile("/f", ""));
	C(CHMOD("/f", 0666));
	C(SETACL("/f", A, NAMED));
	C(mkfile("/mine", ""));
	C(CHOWN("/mine", 1000, 1000));
	C(CHMOD("/mine", 02660));
	C(CHOWN("/mine", 1000, 5));
	C(setcred(1000, 1000));
	C(SETACL("/f", A, NAMED));
	C(setxattr("/f", A, "zz", 2, 0));
	C(removexattr("/f", A));
	GETACL("/f", A);
	C(SETACL("/mine", A, NAMED));
	/* not in the file's group: the setgid bit goes, as with chmod */
	STAT("/mine");
	GETACL("/mine", A);
	C(removexattr("/mine", A));
	STAT("/mine");
}

/* The check: owner, named users, the group class through the mask, other */
static void acl_permission(void)
{
	gid_t g5 = 5, g6 = 6;
	C(mkfile("/f", "data"));
	C(CHMOD("/f", 0640));
	C(SETACL("/f", A, ACL(UO, 6, 0, U, 6, 1000, U, 0, 1001, GO, 4, 0, G, 2, 5, G, 4, 6, M, 6, 0, O, 4, 0)));
	STAT("/f");
	C(setcred(1000, 1000));
	C(ACCESS("/f", R_OK));
	C(ACCESS("/f", W_OK));
	C(ACCESS("/f", X_OK));
	cl(F(OPEN("/f", O_RDWR)));
	C(setcred(1001, 1001));
	C(ACCESS("/f", R_OK));
	C(setcred(1002, 1002));
	C(ACCESS("/f", R_OK));
	C(ACCESS("/f", W_OK));
	C(setgroups(1, &g5));
	C(setcred(1002, 1002));
	C(ACCESS("/f", W_OK));
	/* in a group whose entry does not grant it: refused, though other would */
	C(ACCESS("/f", R_OK));
	C(setcred(0, 0));
	C(setgroups(1, &g6));
	C(setcred(1002, 1002));
	C(ACCESS("/f", R_OK));
	C(ACCESS("/f", W_OK));
	C(setcred(0, 0));
	C(setgroups(0, NULL));
	C(CHOWN("/f", 0, 1002));
	C(setcred(1002, 1002));
	C(ACCESS("/f", R_OK));
	C(ACCESS("/f", W_OK));
	/* the mask limits the named entries */
	C(setcred(0, 0));
	C(CHMOD("/f", 0604));
	C(setcred(1000, 1000));
	C(ACCESS("/f", R_OK));
	C(ACCESS("/f", W_OK));
	C(setcred(0, 0));
	C(CHMOD("/f", 0004));
	C(setcred(1000, 1000));
	C(ACCESS("/f", R_OK));
	/* root is not bound by it */
	C(setcred(0, 0));
	C(ACCESS("/f", R_OK | W_OK));
	C(ACCESS("/f", X_OK));
}

/* A named user without search on a directory whose mode says x for all */
static void acl_search(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "x"));
	C(SETACL("/d", A, ACL(UO, 7, 0, U, 6, 1000, GO, 5, 0, M, 7, 0, O, 5, 0)));
	STAT("/d");
	C(setcred(1000, 1000));
	STAT("/d/f");
	CAT("/d/f");
	C(ACCESS("/d", X_OK));
	C(setcred(1001, 1001));
	STAT("/d/f");
	CAT("/d/f");
}

/* Default ACLs: inherited at create, masked by the mode asked for; with
 * one the umask does not apply */
static void acl_inherit(void)
{
	C(umask(077));
	C(MKDIR("/d", 0755));
	C(SETACL("/d", D, ACL(UO, 7, 0, U, 5, 1000, GO, 5, 0, M, 7, 0, O, 5, 0)));
	STAT("/d");
	XLIST("/d");
	GETACL("/d", D);
	GETACL("/d", A);
	cl(F(openat(AT_FDCWD, "/d/n", O_CREAT | O_WRONLY, 0666)));
	STAT("/d/n");
	GETACL("/d/n", A);
	GETACL("/d/n", D);
	C(MKDIR("/d/sub", 0777));
	STAT("/d/sub");
	GETACL("/d/sub", A);
	GETACL("/d/sub", D);
	cl(F(openat(AT_FDCWD, "/d/sub/deeper", O_CREAT | O_WRONLY, 0640)));
	STAT("/d/sub/deeper");
	GETACL("/d/sub/deeper", A);
	C(SYMLINK("x", "/d/sl"));
	STAT("/d/sl");
	C(lgetxattr("/d/sl", A, abuf, sizeof abuf));
	C(MKNOD("/d/fifo", S_IFIFO | 0666, 0));
	STAT("/d/fifo");
	GETACL("/d/fifo", A);
	/* a default that a mode can say: nothing to inherit but the mode */
	C(SETACL("/d", D, ACL(UO, 7, 0, GO, 5, 0, O, 5, 0)));
	GETACL("/d", D);
	cl(F(openat(AT_FDCWD, "/d/n2", O_CREAT | O_WRONLY, 0666)));
	STAT("/d/n2");
	GETACL("/d/n2", A);
	C(MKDIR("/d/sub2", 0777));
	STAT("/d/sub2");
	GETACL("/d/sub2", D);
	/* without a default ACL the umask is back */
	C(removexattr("/d", D));
	cl(F(openat(AT_FDCWD, "/d/n3", O_CREAT | O_WRONLY, 0666)));
	STAT("/d/n3");
	C(MKDIR("/d/sub3", 0777));
	STAT("/d/sub3");
	C(umask(022));
}

/* IN_ATTRIB and ctime for every change of an ACL */
static void acl_events(void)
{
	C(mkfile("/f", ""));
	C(MKDIR("/d", 0755));
	int in = F(IINIT(IN_NONBLOCK));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	AGE("/f");
	C(SETACL("/f", A, NAMED));
	TS("/f");
	EV(in);
	AGE("/f");
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0, O, 4, 0)));
	TS("/f");
	EV(in);
	C(SETACL("/f", A, ACL(UO, 6, 0, GO, 4, 0)));
	EV(in);
	AGE("/f");
	C(removexattr("/f", A));
	TS("/f");
	EV(in);
	C(SETACL("/d", D, NAMED));
	EV(in);
	AGE("/f");
	C(setxattr("/f", D, "\2\0\0\0", 4, 0));
	TS("/f");
	EV(in);
	GETACL("/f", A);
	/* chmod of a file with an ACL: one event, as any chmod */
	C(SETACL("/f", A, NAMED));
	EV(in);
	C(CHMOD("/f", 0600));
	EV(in);
	GETACL("/f", A);
	cl(in);
}

/* A rename keeps the ACLs a file has; it inherits nothing new */
static void acl_rename(void)
{
	C(MKDIR("/a", 0755));
	C(MKDIR("/b", 0755));
	C(SETACL("/b", D, NAMED));
	C(mkfile("/a/f", ""));
	C(RENAME("/a/f", "/b/f"));
	GETACL("/b/f", A);
	C(mkfile("/b/g", ""));
	C(RENAME("/b/g", "/a/g"));
	GETACL("/a/g", A);
	C(getxattr("/a/g", A, abuf, 1 << 20));
	STAT("/a/g");
	int fd = F(openat(AT_FDCWD, "/b", O_TMPFILE | O_RDWR, 0666));
	FSTAT(fd);
	cl(fd);
}

/* ACLs of special files: a FIFO and a device node keep them (set, or
 * inherited from the directory's default ACL at mknod), a symlink has none
 * (EOPNOTSUPP); a named entry decides who may read a FIFO.  Through a FUSE
 * mount the server reaches them with nothing opened (uvfs_fd_getxattr), and
 * with default_permissions the kernel asks for a special file's access ACL
 * before every check by one who is not its owner. */
static void acl_special_files(void)
{
	C(MKDIR("/d", 0755));
	C(MKNOD("/d/p", S_IFIFO | 0640, 0));
	C(MKNOD("/d/c", S_IFCHR | 0640, makedev(1, 3)));
	C(SYMLINK("p", "/d/l"));
	GETACL("/d/p", A);
	GETACL("/d/c", D);
	C(lgetxattr("/d/l", A, abuf, sizeof abuf));
	XLIST("/d/p");
	C(SETACL("/d/p", A, NAMED));
	C(SETACL("/d/c", A, NAMED));
	C(lsetxattr("/d/l", A, "\2\0\0\0", 4, 0));
	STAT("/d/p");
	GETACL("/d/p", A);
	GETACL("/d/c", A);
	XLIST("/d/c");
	C(setcred(1000, 1000));
	C(ACCESS("/d/p", R_OK));
	C(ACCESS("/d/p", W_OK));
	C(ACCESS("/d/c", R_OK));
	C(setcred(1001, 1001));
	C(ACCESS("/d/p", R_OK));
	C(setcred(0, 0));
	C(SETACL("/d", D, ACL(UO, 7, 0, U, 6, 1000, GO, 5, 0, M, 7, 0, O, 5, 0)));
	C(MKNOD("/d/q", S_IFIFO | 0666, 0));
	STAT("/d/q");
	GETACL("/d/q", A);
	C(setcred(1000, 1000));
	C(ACCESS("/d/q", W_OK));
	C(setcred(0, 0));
	AGE("/d/p");
	C(removexattr("/d/p", A));
	TS("/d/p");
	GETACL("/d/p", A);
	STAT("/d/p");
}

const struct scenario acl_scenarios[] = {
	{ "acl_events", acl_events },
	{ "acl_rename", acl_rename },
	{ "acl_set_get", acl_set_get },
	{ "acl_equiv", acl_equiv },
	{ "acl_chmod", acl_chmod },
	{ "acl_invalid", acl_invalid },
	{ "acl_owner", acl_owner },
	{ "acl_permission", acl_permission },
	{ "acl_search", acl_search },
	{ "acl_inherit", acl_inherit },
	{ "acl_special_files", acl_special_files },
	{ NULL, NULL },
};
