/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* names.c - mkdir, rmdir, unlink, link, symlink, rename, mknod; path walk
 * corner cases: ".", "..", trailing slashes, NAME_MAX, PATH_MAX, ELOOP. */
#include "conf.h"

static void mkdir_basic(void)
{
	C(MKDIR("/d", 0755));
	STAT("/d");
	C(MKDIR("/d", 0755));
	C(MKDIR("/a/b", 0755));
	C(mkfile("/f", "x"));
	C(MKDIR("/f/sub", 0755));
	C(MKDIR("/f", 0755));
	C(MKDIR("/", 0755));
	C(MKDIR(".", 0755));
	C(MKDIR("..", 0755));
	C(MKDIR("/d/.", 0755));
	C(MKDIR("/d/..", 0755));
	C(MKDIR("/t/", 0755));
	STAT("/t");
	C(MKDIR("/t2//", 0700));
	STAT("/t2");
	C(MKDIR("", 0755));
	C(SYMLINK("/nowhere", "/dl"));
	C(MKDIR("/dl", 0755));
	C(MKDIR("/dl/", 0755));
	STAT("/nowhere");
	C(MKDIR("/m", 07777));
	STAT("/m");
	C(MKDIR("/m0", 0));
	STAT("/m0");
	C(mkdirat(-1, "x", 0755));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(mkdirat(fd, "sub", 0755));
	STAT("/d/sub");
	cl(fd);
	LS("/");
}

static void rmdir_cases(void)
{
	C(MKDIR("/d", 0755));
	C(MKDIR("/d/e", 0755));
	C(mkfile("/f", "x"));
	C(RMDIR("/d"));
	C(RMDIR("/nope"));
	C(RMDIR("/f"));
	C(RMDIR("/d/e/."));
	C(RMDIR("/d/e/.."));
	C(RMDIR("."));
	C(RMDIR(".."));
	C(RMDIR("/"));
	C(RMDIR("/f/"));
	C(SYMLINK("d/e", "/le"));
	C(RMDIR("/le"));
	C(RMDIR("/le/"));
	C(RMDIR("/d/e/"));
	STAT("/d/e");
	C(MKDIR("/d/e", 0755));
	C(RMDIR("/d/e//"));
	C(MKDIR("/d/g", 0755));
	C(chdir("/d/g"));
	C(RMDIR("/d/g"));
	char b[128];
	C(getcwd(b, sizeof b));
	F(OPEN(".", O_RDONLY));
	F(OPEN("x", O_CREAT | O_RDWR));
	C(chdir(".."));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(chdir("/"));
	C(unlinkat(AT_FDCWD, "/d", AT_REMOVEDIR | AT_SYMLINK_NOFOLLOW));
	C(unlinkat(AT_FDCWD, "/d", 0x4000));
	C(RMDIR("/d"));
	LS("/");
}

static void unlink_cases(void)
{
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	C(SYMLINK("f", "/l"));
	C(SYMLINK("d", "/ld"));
	C(UNLINK("/d"));
	C(UNLINK("/nope"));
	C(UNLINK("/f/"));
	C(UNLINK("/f/x"));
	C(UNLINK("/ld/"));
	C(UNLINK("/l"));
	STAT("/f");
	C(UNLINK("/ld"));
	STAT("/d");
	C(UNLINK("/"));
	C(UNLINK("."));
	C(UNLINK(""));
	C(unlinkat(AT_FDCWD, "/f", AT_REMOVEDIR));
	C(unlinkat(-1, "f", 0));
	C(unlinkat(AT_FDCWD, "/f", 0x1));
	C(UNLINK("/f"));
	C(UNLINK("/f"));
	C(MKNOD("/p", S_IFIFO | 0644, 0));
	C(UNLINK("/p"));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(mkfile("/d/x", "1"));
	C(unlinkat(fd, "x", 0));
	C(unlinkat(fd, "x", 0));
	cl(fd);
	LS("/");
	LS("/d");
}

static void link_cases(void)
{
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	C(LINK("/f", "/g"));
	NLINKS("/f");
	SAME("/f", "/g");
	C(LINK("/d", "/d2"));
	C(LINK("/f", "/g"));
	C(LINK("/f", "/d"));
	C(LINK("/nope", "/h"));
	C(LINK("/f", "/nodir/h"));
	C(LINK("/f/", "/h"));
	C(LINK("/f", "/h/"));
	C(LINK("/f", "/f"));
	C(SYMLINK("f", "/l"));
	C(LINK("/l", "/l2"));
	STAT("/l2");
	SAME("/l", "/l2");
	C(linkat(AT_FDCWD, "/l", AT_FDCWD, "/l3", AT_SYMLINK_FOLLOW));
	STAT("/l3");
	SAME("/f", "/l3");
	NLINKS("/f");
	C(linkat(AT_FDCWD, "/f", AT_FDCWD, "/h", 0x1));
	C(linkat(AT_FDCWD, "", AT_FDCWD, "/h", 0));
	int fd = F(OPEN("/f", O_RDONLY));
	C(linkat(fd, "", AT_FDCWD, "/h", AT_EMPTY_PATH));
	NLINKS("/f");
	cl(fd);
	C(UNLINK("/g"));
	NLINKS("/f");
	AGE("/f");
	C(LINK("/f", "/k"));
	TS("/f");
	AGE("/f");
	C(UNLINK("/k"));
	TS("/f");
	C(SYMLINK("/nowhere", "/dang"));
	C(linkat(AT_FDCWD, "/dang", AT_FDCWD, "/dang2", AT_SYMLINK_FOLLOW));
	C(LINK("/dang", "/dang2"));
	LS("/");
}

static void symlink_cases(void)
{
	C(mkfile("/f", "data"));
	C(SYMLINK("f", "/l"));
	STAT("/l");
	STATF("/l");
	READLINK("/l");
	C(SYMLINK("f", "/l"));
	C(SYMLINK("x", "/f"));
	C(SYMLINK("", "/e"));
	C(SYMLINK("x", "/nodir/l"));
	C(SYMLINK("x", "/f/l"));
	C(SYMLINK(rep('a', 4095), "/long"));
	SIZEOF("/long");
	BLOCKSOF("/long");
	C(SYMLINK(rep('a', 4096), "/long2"));
	C(umask(0777));
	C(SYMLINK("f", "/l4"));
	C(umask(022));
	STAT("/l4");
	char b[8];
	C(readlinkat(AT_FDCWD, "/l", b, 0));
	C(readlinkat(AT_FDCWD, "/f", b, sizeof b));
	C(readlinkat(AT_FDCWD, "/nope", b, sizeof b));
	C(SYMLINK("0123456789", "/n"));
	C(readlinkat(AT_FDCWD, "/n", b, 4));
	b[4] = 0;
	CS("truncated", b);
	C(readlinkat(AT_FDCWD, "/l/", b, sizeof b));
	C(readlinkat(AT_FDCWD, "", b, sizeof b));
	C(SYMLINK("/f", "/abs"));
	CAT("/abs");
	C(MKDIR("/d", 0755));
	C(SYMLINK("../f", "/d/up"));
	CAT("/d/up");
	C(SYMLINK("d", "/ld"));
	CAT("/ld/up");
	C(SYMLINK("/d/", "/ld2"));
	STAT("/ld2/");
	STAT("/ld2/.");
	C(SYMLINK("f/", "/lfs"));
	STATF("/lfs");
	C(SYMLINK("x", "/sl/"));
	int fd = F(OPEN("/d", O_RDONLY));
	C(symlinkat("../f", fd, "rel"));
	CAT("/d/rel");
	char buf[16] = { 0 };
	C(readlinkat(fd, "rel", buf, sizeof buf));
	CS("rel", buf);
	cl(fd);
	LS("/");
}

static void symlink_loops(void)
{
	C(SYMLINK("self", "/self"));
	F(OPEN("/self", O_RDONLY));
	STATF("/self");
	C(SYMLINK("b", "/a"));
	C(SYMLINK("a", "/b"));
	F(OPEN("/a", O_RDONLY));
	F(OPEN("/a/x", O_RDONLY));
	F(OPEN("/a", O_CREAT | O_RDWR));
	C(mkfile("/t0", "end"));
	/*
	 * /t1 -> t0, ..., /tN -> t(N-1): opening /tN follows N links.  Only
	 * counts whose host answer cannot move are compared: at most 20 links,
	 * or more than 40.  Between them Linux may say ELOOP when its RCU walk
	 * restarts (another mount or rename anywhere), since the abandoned
	 * attempt's links still count; unit-linklimit checks the exact limit.
	 */
	for (int i = 1; i <= 41; i++) {
		char n[16], t[16];
		snprintf(n, sizeof n, "/t%d", i);
		snprintf(t, sizeof t, "t%d", i - 1);
		SYMLINK(t, n);
	}
	CAT("/t19");
	CAT("/t20");
	CAT("/t41");
	STATF("/t20");
	STATF("/t41");
	C(MKDIR("/d0", 0755));
	C(mkfile("/d0/f", "in d0"));
	for (int i = 1; i <= 41; i++) {
		char n[16], t[16];
		snprintf(n, sizeof n, "/d%d", i);
		snprintf(t, sizeof t, "d%d", i - 1);
		SYMLINK(t, n);
	}
	CAT("/d20/f");
	CAT("/d41/f");
	C(chdir("/d20"));
	C(chdir("/d41"));
	C(chdir("/"));
	C(MKDIR("/x", 0755));
	C(SYMLINK("../x/../x/l1", "/x/l1"));
	STATF("/x/l1");
	/* links in the middle of a path: 20 in all, then 61 */
	C(MKDIR("/m", 0755));
	C(SYMLINK("/t19", "/m/a"));
	C(SYMLINK("/d19", "/m/b"));
	CAT("/m/a");
	CAT("/m/b/f");
	C(SYMLINK("/d20/../d20/../t20", "/m/c"));
	CAT("/m/c");
}

static void rename_files(void)
{
	C(mkfile("/a", "A"));
	C(mkfile("/b", "B"));
	C(RENAME("/a", "/c"));
	CAT("/c");
	STAT("/a");
	C(RENAME("/c", "/b"));
	CAT("/b");
	STAT("/c");
	C(RENAME("/nope", "/x"));
	C(RENAME("/b", "/nodir/x"));
	C(RENAME("/b", "/b"));
	C(LINK("/b", "/b2"));
	C(RENAME("/b", "/b2"));
	STAT("/b");
	STAT("/b2");
	C(RENAME("/b/", "/x"));
	C(RENAME("/b", "/x/"));
	C(RENAME("", "/x"));
	C(RENAME("/b", ""));
	C(renameat2(-1, "b", AT_FDCWD, "/x", 0));
	C(RENAME("/b", "/b2/x"));
	C(SYMLINK("b", "/lb"));
	C(RENAME("/lb", "/lb2"));
	STAT("/lb2");
	READLINK("/lb2");
	C(MKDIR("/d", 0755));
	C(RENAME("/lb2", "/d/lb"));
	CAT("/d/lb");
	int fd = F(OPEN("/d", O_RDONLY));
	C(renameat2(fd, "lb", AT_FDCWD, "/lb3", 0));
	cl(fd);
	LS("/");
	LS("/d");
	/* an open file survives being renamed over */
	C(mkfile("/o", "old"));
	C(mkfile("/n", "new"));
	fd = F(OPEN("/o", O_RDONLY));
	C(RENAME("/n", "/o"));
	FCAT(fd);
	FSTAT(fd);
	CAT("/o");
	cl(fd);
}

static void rename_dirs(void)
{
	C(MKDIR("/a", 0755));
	C(MKDIR("/a/sub", 0755));
	C(MKDIR("/b", 0755));
	C(mkfile("/f", "x"));
	C(MKDIR("/full", 0755));
	C(mkfile("/full/x", "x"));
	C(RENAME("/a", "/a/sub/x"));
	C(RENAME("/a", "/a/sub"));
	C(RENAME("/a", "/a"));
	C(RENAME("/a/sub", "/a"));
	C(RENAME("/a/..", "/z"));
	C(RENAME("/a/.", "/z"));
	C(RENAME("/", "/z"));
	C(RENAME("/b", "/a/."));
	C(RENAME("/b", "/full"));
	C(RENAME("/f", "/b"));
	C(RENAME("/b", "/f"));
	C(RENAME("/b/", "/f"));
	C(RENAME("/b/", "/c/"));
	STAT("/c");
	C(RENAME("/c", "/d"));
	NLINKS("/");
	NLINKS("/a");
	C(RENAME("/d", "/a/d"));
	NLINKS("/");
	NLINKS("/a");
	C(MKDIR("/e", 0755));
	C(RENAME("/a/d", "/e"));
	NLINKS("/");
	NLINKS("/a");
	STAT("/e");
	C(RENAME("/a/sub", "/a/sub2"));
	NLINKS("/a");
	C(chdir("/a/sub2"));
	C(RENAME("/a", "/a2"));
	char b[128];
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	F(OPEN("../../e", O_RDONLY | O_DIRECTORY));
	LS("/");
	LS("/a2");
}

static void rename_flags(void)
{
	C(mkfile("/a", "A"));
	C(mkfile("/b", "B"));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/in", "in"));
	C(RENAME2("/a", "/b", RENAME_NOREPLACE));
	C(RENAME2("/a", "/c", RENAME_NOREPLACE));
	CAT("/c");
	C(RENAME2("/c", "/b", RENAME_EXCHANGE));
	CAT("/b");
	CAT("/c");
	C(RENAME2("/b", "/nope", RENAME_EXCHANGE));
	C(RENAME2("/nope", "/b", RENAME_EXCHANGE));
	C(RENAME2("/b", "/c", RENAME_EXCHANGE | RENAME_NOREPLACE));
	C(RENAME2("/b", "/c", 0x100));
	C(RENAME2("/b", "/d", RENAME_EXCHANGE));
	STAT("/b");
	STAT("/d");
	CAT("/d");
	CAT("/b/in");
	C(RENAME2("/b", "/b/in", RENAME_EXCHANGE));
	C(RENAME2("/b", "/b", RENAME_EXCHANGE));
	C(RENAME2("/b", "/b", RENAME_NOREPLACE));
	C(MKDIR("/e", 0755));
	C(MKDIR("/e/f", 0755));
	NLINKS("/e");
	C(RENAME2("/e/f", "/d", RENAME_EXCHANGE));
	NLINKS("/e");
	NLINKS("/");
	STAT("/e/f");
	STAT("/d");
	C(RENAME2("/b", "/d", RENAME_NOREPLACE));
	LS("/");
	AGE("/b");
	AGE("/c");
	C(RENAME2("/b", "/c", RENAME_EXCHANGE));
	TS("/b");
	TS("/c");
}

/* RENAME_WHITEOUT (for overlayfs) leaves a 0:0 character device behind; tmpfs
 * supports it and it needs CAP_MKNOD. */
static void rename_whiteout(void)
{
	C(mkfile("/b", "B"));
	C(RENAME2("/b", "/x", RENAME_WHITEOUT));
	STAT("/b");
	CAT("/x");
	C(RENAME2("/x", "/y", RENAME_WHITEOUT | RENAME_EXCHANGE));
	C(setcred(1000, 1000));
	C(MKDIR("/tmp", 0777));
	C(mkfile("/tmp/c", "C"));
	C(RENAME2("/tmp/c", "/tmp/d", RENAME_WHITEOUT));
	C(setcred(0, 0));
	LS("/");
}

static void rename_times(void)
{
	C(MKDIR("/s", 0755));
	C(MKDIR("/t", 0755));
	C(mkfile("/s/f", "x"));
	AGE("/s");
	AGE("/t");
	AGE("/s/f");
	C(renameat2(AT_FDCWD, "/s/f", AT_FDCWD, "/t/f", 0));
	TS("/s");
	TS("/t");
	TS("/t/f");
	C(mkfile("/t/g", "g"));
	AGE("/t");
	AGE("/t/g");
	C(RENAME("/t/f", "/t/g"));
	TS("/t");
	TS("/t/g");
	AGE("/s");
	C(MKDIR("/s/sub", 0755));
	TS("/s");
	AGE("/s");
	C(RMDIR("/s/sub"));
	TS("/s");
	AGE("/s");
	C(mkfile("/s/new", ""));
	TS("/s");
	AGE("/s");
	C(UNLINK("/s/new"));
	TS("/s");
	AGE("/s");
	C(SYMLINK("x", "/s/l"));
	TS("/s");
	AGE("/s");
	C(RENAME("/nope", "/s/x"));
	TS("/s");
}

static void dot_dotdot(void)
{
	C(MKDIR("/d", 0755));
	C(MKDIR("/d/e", 0755));
	C(mkfile("/d/e/f", "f"));
	SAME("/..", "/");
	SAME("/../..", "/");
	SAME("/d/..", "/");
	SAME("/d/e/../..", "/");
	SAME("/d/./e/.", "/d/e");
	CAT("/../../d/e/f");
	CAT("/d/e/../e/./f");
	CAT("/d//e///f");
	CAT("//d/e/f");
	CAT("/d/e/f/.");
	CAT("/d/e/f/..");
	C(chdir("/d/e"));
	CAT("f");
	CAT("./f");
	CAT("../e/f");
	CAT("../../../d/e/f");
	SAME(".", "/d/e");
	SAME("..", "/d");
	C(chdir("../.."));
	char b[64];
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(chdir(".."));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	F(OPEN("/d/nope/..", O_RDONLY));
	F(OPEN("/d/e/f/../f", O_RDONLY));
	STAT("/.");
	STAT("/d/e/..");
}

static void trailing_slashes(void)
{
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	C(SYMLINK("d", "/ld"));
	C(SYMLINK("f", "/lf"));
	F(OPEN("/f/", O_RDONLY));
	F(OPEN("/f/", O_CREAT | O_RDWR));
	F(OPEN("/new/", O_CREAT | O_RDWR));
	F(OPEN("/new/", O_CREAT | O_RDONLY));
	F(OPEN("/new/", O_RDONLY));
	STAT("/new");
	F(OPEN("/d/", O_RDONLY));
	F(OPEN("/d/", O_RDWR));
	F(OPEN("/ld/", O_RDONLY | O_NOFOLLOW));
	F(OPEN("/lf/", O_RDONLY));
	STAT("/f/");
	STAT("/d/");
	STAT("/ld/");
	STAT("/ld");
	STAT("/lf/");
	STAT("/d//");
	STAT("/d/.//");
	C(faccessat(AT_FDCWD, "/f/", F_OK, 0));
	C(CHMOD("/f/", 0600));
	C(CHMOD("/d/", 0700));
	STAT("/d");
	C(RENAME("/f/", "/g"));
	C(RENAME("/d/", "/e/"));
	C(RENAME("/e", "/d//"));
	C(MKNOD("/p/", S_IFIFO | 0644, 0));
	C(MKNOD("/p2", S_IFIFO | 0644, 0));
	STAT("/p2/");
	C(SYMLINK("x", "/sl/"));
	C(LINK("/f", "/f2/"));
	C(truncate("/f/", 0));
	C(UNLINK("/ld/"));
	C(RMDIR("/ld/"));
	C(RENAME("/ld/", "/ld2"));
	LS("/");
}

static void name_max(void)
{
	const char *n255 = rep('n', 255);
	char p[300], q[300];
	snprintf(p, sizeof p, "/%s", n255);
	snprintf(q, sizeof q, "/%sX", n255);
	C(mkfile(p, "ok"));
	CAT(p);
	C(mkfile(q, "no"));
	F(OPEN(q, O_RDONLY));
	C(MKDIR(q, 0755));
	C(UNLINK(q));
	C(RENAME(p, q));
	C(SYMLINK("x", q));
	C(LINK(p, q));
	STAT(q);
	C(MKDIR("/d", 0755));
	C(SYMLINK(q, "/d/l"));
	F(OPEN("/d/l", O_RDONLY));
	char r[300];
	snprintf(r, sizeof r, "/d/../%s", n255);
	CAT(r);
	C(UNLINK(p));
	LS("/");
}

/* A last component longer than NAME_MAX is refused by its lookup, after
 * the checks that come before it (the other name's walk, the dots, a
 * trailing slash's EISDIR, a missing source); one in the middle of a path
 * by the walk, after the directory's search permission. */
static void name_too_long_order(void)
{
	const char *n = rep('n', 256);
	char p[600], q[600];
	C(MKDIR("/x", 0755));
	C(mkfile("/f", "f"));
	C(renameat2(AT_FDCWD, n, AT_FDCWD, "/b/a", 0));
	C(renameat2(AT_FDCWD, "/y", AT_FDCWD, n, 0));
	C(renameat2(AT_FDCWD, "/f", AT_FDCWD, n, 0));
	C(renameat2(AT_FDCWD, ".", AT_FDCWD, n, RENAME_EXCHANGE));
	C(renameat2(AT_FDCWD, n, AT_FDCWD, "/.", RENAME_NOREPLACE));
	snprintf(p, sizeof p, "%s/", n);
	F(openat(AT_FDCWD, p, O_WRONLY | O_CREAT, 0644));
	snprintf(q, sizeof q, "/x/%s/", n);
	F(openat(AT_FDCWD, q, O_WRONLY | O_CREAT, 0644));
	F(openat(AT_FDCWD, n, O_WRONLY | O_CREAT, 0644));
	F(openat(AT_FDCWD, n, O_RDONLY, 0));
	C(mkdirat(AT_FDCWD, n, 0755));
	C(unlinkat(AT_FDCWD, n, 0));
	C(unlinkat(AT_FDCWD, n, AT_REMOVEDIR));
	C(unlinkat(AT_FDCWD, p, 0));
	C(symlinkat("x", AT_FDCWD, n));
	C(linkat(AT_FDCWD, "/f", AT_FDCWD, n, 0));
	C(linkat(AT_FDCWD, n, AT_FDCWD, "/g", 0));
	struct stat st;
	C(fstatat(AT_FDCWD, n, &st, 0));
	C(readlinkat(AT_FDCWD, n, q, sizeof q));
	/* in the middle: after search permission, before the rest */
	snprintf(p, sizeof p, "/x/%s/y", n);
	C(fstatat(AT_FDCWD, p, &st, 0));
	C(mkdirat(AT_FDCWD, p, 0755));
	snprintf(p, sizeof p, "/f/%s/y", n);
	C(fstatat(AT_FDCWD, p, &st, 0));
	C(CHMOD("/x", 0600));
	C(setcred(1000, 1000));
	snprintf(p, sizeof p, "/x/%s", n);
	C(fstatat(AT_FDCWD, p, &st, 0));
	snprintf(p, sizeof p, "/x/%s/y", n);
	C(fstatat(AT_FDCWD, p, &st, 0));
	C(setcred(0, 0));
	LS("/");
	/* in a removed directory nothing exists: ENOENT comes first */
	C(CHMOD("/x", 0755));
	C(chdir("/x"));
	C(unlinkat(AT_FDCWD, "/x", AT_REMOVEDIR));
	F(openat(AT_FDCWD, n, O_RDONLY, 0));
	F(openat(AT_FDCWD, n, O_WRONLY | O_CREAT, 0644));
	C(mkdirat(AT_FDCWD, n, 0755));
	C(unlinkat(AT_FDCWD, n, 0));
	C(chdir(n));
	snprintf(p, sizeof p, "%s/x", n);
	F(openat(AT_FDCWD, p, O_RDONLY, 0));
	C(truncate(p, 1));
	C(chdir(p));
	C(chdir("/"));
}

/* One name relative to a dirfd (the walk's one-pass fast path): around
 * NAME_MAX and the word boundaries near it, and whole paths of one
 * component at PATH_MAX. */
static void name_max_rel(void)
{
	static const int lens[] = { 1, 7, 8, 9, 247, 248, 254, 255, 256, 257, 263, 264, 300, 4095, 4096, 5000 };
	C(MKDIR("/d", 0755));
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		char name[8192];
		snprintf(name, sizeof name, "%s", rep('m', lens[i]));
		struct stat st;
		char b[64];
		C(lens[i]);
		C(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW));
		C(readlinkat(dfd, name, b, sizeof b));
		C(symlinkat(".", dfd, name));
		C(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW));
		long n = readlinkat(dfd, name, b, sizeof b);
		C(n);
		if (n > 0)
			CS("body", (b[n] = 0, b));
		C(readlinkat(dfd, name, b, 1));
		int fd = F(openat(dfd, name, O_RDONLY, 0));
		if (fd >= 0)
			cl(fd);
		/* the same ended by a '/' (not one component: the link is followed) */
		char slash[8200];
		snprintf(slash, sizeof slash, "%s/", name);
		C(readlinkat(dfd, slash, b, sizeof b));
		C(fstatat(dfd, slash, &st, AT_SYMLINK_NOFOLLOW));
		C(unlinkat(dfd, name, 0));
	}
	cl(dfd);
	LS("/");
}

static void path_max(void)
{
	static char p[8200];
	C(mkfile("/x", "X"));
	/* "./" repeated, then "x": strlen 4095 resolves, 4096 is too long */
	int n = 0;
	while (n < 4094 - 1) {
		p[n++] = '.';
		p[n++] = '/';
	}
	p[n++] = 'x';
	p[n] = 0;
	C((long)strlen(p));
	CAT(p);
	char *p2 = p + 0;
	(void)p2;
	static char q[8300];
	snprintf(q, sizeof q, "/%s", p);
	C((long)strlen(q));
	F(OPEN(q, O_RDONLY));
	static char r[8300];
	snprintf(r, sizeof r, "//%s", p);
	C((long)strlen(r));
	F(OPEN(r, O_RDONLY));
	C(MKDIR(r, 0755));
	C(UNLINK(r));
	STAT(r);
	C(truncate(r, 0));
	C(chdir(r));
	/* a deep real path walked in pieces is fine */
	C(MKDIR("/d", 0755));
	static char deep[8200];
	strcpy(deep, "/d");
	int ok = 0;
	for (int i = 0; i < 30; i++) {
		strcat(deep, "/");
		strcat(deep, rep('a' + i % 26, 200));
		if (MKDIR(deep, 0755) == 0)
			ok++;
	}
	C(ok);
	C((long)strlen(deep));
	int fd = F(OPEN("/d", O_RDONLY));
	C(fd >= 0 && fchdir(fd) == 0);
	cl(fd);
	char cwd[16];
	C(getcwd(cwd, sizeof cwd));
	/* a cwd deeper than PATH_MAX: getcwd cannot name it */
	C(chdir("/"));
	C(MKDIR("/e", 0755));
	C(chdir("/e"));
	int depth = 0;
	for (int i = 0; i < 25; i++) {
		const char *n = rep('a' + i % 26, 200);
		if (MKDIR(n, 0755) == 0 && chdir(n) == 0)
			depth++;
	}
	C(depth);
	static char big[10000];
	C(getcwd(big, sizeof big));
	C(getcwd(big, 100));
	C(MKDIR("leaf", 0755));
	STAT("leaf");
	F(OPEN(".", O_RDONLY | O_DIRECTORY));
	C(chdir("/"));
}

static void mknod_types(void)
{
	C(MKNOD("/fifo", S_IFIFO | 0666, 0));
	STAT("/fifo");
	C(MKNOD("/reg", S_IFREG | 0600, 0));
	STAT("/reg");
	C(MKNOD("/reg0", 0640, 0));
	STAT("/reg0");
	C(MKNOD("/chr", S_IFCHR | 0600, makedev(1, 3)));
	STAT("/chr");
	C(MKNOD("/blk", S_IFBLK | 0600, makedev(8, 1)));
	STAT("/blk");
	C(MKNOD("/sock", S_IFSOCK | 0600, 0));
	STAT("/sock");
	C(MKNOD("/dir", S_IFDIR | 0755, 0));
	C(MKNOD("/bad", 0170000 | 0644, 0));
	C(MKNOD("/bad2", 0050000 | 0644, 0));
	C(MKNOD("/fifo", S_IFIFO | 0666, 0));
	C(MKNOD("/nodir/x", S_IFIFO | 0666, 0));
	C(MKNOD("/reg/x", S_IFIFO | 0666, 0));
	LS("/");
	C(umask(0));
	C(MKNOD("/fifo2", S_IFIFO | 0777, 0));
	STAT("/fifo2");
	C(umask(022));
	C(MKNOD("/fifo3", S_IFIFO | 07777, 0));
	STAT("/fifo3");
	C(setcred(1000, 1000));
	C(MKNOD("/chr2", S_IFCHR | 0600, makedev(1, 3)));
	C(MKNOD("/blk2", S_IFBLK | 0600, makedev(1, 3)));
	C(MKNOD("/fifo4", S_IFIFO | 0600, 0));
	C(MKNOD("/reg4", S_IFREG | 0600, 0));
	C(MKNOD("/sock4", S_IFSOCK | 0600, 0));
	STAT("/fifo4");
	/* a 0:0 character device is a whiteout: no CAP_MKNOD needed (Linux 5.8) */
	C_SINCE(5, 8, MKNOD("/wh", S_IFCHR | 0600, 0));
	STAT_SINCE(5, 8, "/wh");
	C(setcred(0, 0));
	/* FIFO open without a peer */
	F(OPEN("/fifo", O_WRONLY | O_NONBLOCK));
	F(OPEN("/sock", O_RDONLY));
	int fd = F(OPEN("/reg", O_RDWR));
	C(wr(fd, "r"));
	cl(fd);
	CAT("/reg");
}

static void rename_over_busy_dirs(void)
{
	C(MKDIR("/src", 0755));
	C(mkfile("/src/f", "f"));
	C(MKDIR("/cwd", 0755));
	C(MKDIR("/open", 0755));
	C(chdir("/cwd"));
	C(RENAME("/src", "/cwd"));
	char b[64];
	C(getcwd(b, sizeof b));
	F(OPEN(".", O_RDONLY));
	F(OPEN("x", O_CREAT | O_RDWR));
	C(chdir("/"));
	CAT("/cwd/f");
	int fd = F(OPEN("/open", O_RDONLY | O_DIRECTORY));
	C(RENAME("/cwd", "/open"));
	char d[256];
	C(getdents64(fd, d, sizeof d));
	FSTAT(fd);
	C(mkdirat(fd, "x", 0755));
	cl(fd);
	NLINKS("/");
	LS("/");
	LS("/open");
	/* exchanging two non-empty directories is fine */
	C(MKDIR("/a", 0755));
	C(mkfile("/a/1", ""));
	C(MKDIR("/b", 0755));
	C(mkfile("/b/2", ""));
	C(RENAME2("/a", "/b", RENAME_EXCHANGE));
	LS("/a");
	LS("/b");
	/* renaming into a removed directory */
	C(MKDIR("/gone", 0755));
	fd = F(OPEN("/gone", O_RDONLY | O_DIRECTORY));
	C(RMDIR("/gone"));
	C(renameat2(AT_FDCWD, "/a/2", fd, "2", 0));
	C(linkat(AT_FDCWD, "/a/2", fd, "2", 0));
	C(symlinkat("x", fd, "l"));
	C(mknodat(fd, "p", S_IFIFO | 0644, 0));
	cl(fd);
}

static void symlink_corner_cases(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "f"));
	C(SYMLINK(".", "/d/dot"));
	C(SYMLINK("..", "/d/dotdot"));
	C(SYMLINK("/", "/d/root"));
	C(SYMLINK("f", "/d/lf"));
	CAT("/d/dot/f");
	CAT("/d/dot/dot/dot/f");
	SAME("/d/dotdot/.", "/");
	SAME("/d/root/.", "/");
	STAT("/d/root");
	STATF("/d/root");
	CAT("/d/root/d/f");
	/* an O_PATH fd on a symlink: the *at calls with "" act on the link */
	int fd = F(OPEN("/d/lf", O_PATH | O_NOFOLLOW));
	struct stat st;
	C(fstatat(fd, "", &st, AT_EMPTY_PATH));
	C(S_ISLNK(st.st_mode));
	C(fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
	C(S_ISLNK(st.st_mode));
	C(fchownat(fd, "", 7, 7, AT_EMPTY_PATH));
	STAT("/d/lf");
	STAT("/d/f");
	C(fchmodat(fd, "", 0600, AT_EMPTY_PATH));
	C(faccessat(fd, "", R_OK, AT_EMPTY_PATH));
	C(utimensat(fd, "", T_OLD, AT_EMPTY_PATH));
	char b[16] = { 0 };
	C(readlinkat(fd, "", b, sizeof b));
	CS("link body", b);
	C(fchdir(fd));
	C(openat(fd, "", O_RDONLY, 0));
	cl(fd);
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(readlinkat(dfd, "", b, sizeof b));
	C(readlinkat(dfd, "lf", b, sizeof b));
	cl(dfd);
	/* readlink updates the link's atime */
	AGE("/d/lf");
	READLINK("/d/lf");
	TS("/d/lf");
	/* a link body with a trailing slash on a file, and links in the middle */
	C(SYMLINK("f/", "/d/lfslash"));
	F(OPEN("/d/lfslash", O_RDONLY));
	F(OPEN("/d/lfslash", O_CREAT | O_RDWR));
	C(SYMLINK("newdir/", "/d/ldir"));
	C(MKDIR("/d/ldir", 0755));
	F(OPEN("/d/ldir", O_CREAT | O_RDWR));
	C(SYMLINK("newfile", "/d/lnew"));
	fd = F(OPEN("/d/lnew", O_CREAT | O_RDWR));
	cl(fd);
	STAT("/d/newfile");
	LS("/d");
}

static void lookup_errors_precedence(void)
{
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	/* ENOTDIR wins over ENOENT further on; ENAMETOOLONG is checked per component */
	F(OPEN("/f/missing/x", O_RDONLY));
	F(OPEN("/missing/f/x", O_RDONLY));
	char p[400];
	snprintf(p, sizeof p, "/missing/%s", rep('z', 256));
	F(OPEN(p, O_RDONLY));
	snprintf(p, sizeof p, "/%s/missing", rep('z', 256));
	F(OPEN(p, O_RDONLY));
	snprintf(p, sizeof p, "/f/%s", rep('z', 256));
	F(OPEN(p, O_RDONLY));
	C(MKDIR("/d/..", 0755));
	C(MKDIR("/missing/..", 0755));
	C(RMDIR("/d/../d"));
	C(UNLINK("/d/."));
	C(LINK("/d/.", "/x"));
	C(LINK("/f", "/d/."));
	C(LINK("/f", "/d/.."));
	C(SYMLINK("x", "/d/."));
	C(RENAME("/f", "/d/.."));
	C(RENAME("/d/..", "/d/x"));
	C(MKNOD("/d/.", S_IFIFO | 0644, 0));
	F(OPEN("/d/.", O_CREAT | O_RDWR));
	F(OPEN("/d/..", O_CREAT | O_EXCL | O_RDWR));
	C(MKDIR("/f/.", 0755));
	C(MKDIR("/f/..", 0755));
	C(RMDIR("/f/.."));
	C(setcred(1000, 1000));
	C(MKDIR("/", 0755));
	C(MKDIR("/d/new", 0755));
	C(MKDIR("/d", 0755));
	C(RMDIR("/d/nope"));
	C(UNLINK("/f/x"));
	C(setcred(0, 0));
}

/* Lookups cached (positive and negative) must follow every change, whichever
 * name or mount the change came through. */
static void dcache_coherence(void)
{
	C(MKDIR("/a", 0755));
	STAT("/a/x");
	STAT("/a/x/y");
	C(mkfile("/a/x", "1"));
	STAT("/a/x");
	STAT("/a/x/y");
	C(RENAME("/a", "/b"));
	STAT("/a/x");
	STAT("/b/x");
	C(MKDIR("/a", 0755));
	STAT("/a/x");
	C(RMDIR("/a"));
	C(RENAME("/b", "/a"));
	CAT("/a/x");
	/* rmdir and mkdir again: no old children */
	C(MKDIR("/d", 0755));
	C(mkfile("/d/old", ""));
	STAT("/d/old");
	C(UNLINK("/d/old"));
	C(RMDIR("/d"));
	C(MKDIR("/d", 0755));
	STAT("/d/old");
	LS("/d");
	/* a negative entry filled through a dirfd, a hard link and a bind mount */
	STAT("/d/n1");
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	int fd = F(openat(dfd, "n1", O_CREAT | O_RDWR, 0644));
	cl(fd);
	STAT("/d/n1");
	STAT("/d/n2");
	C(LINK("/d/n1", "/d/n2"));
	STAT("/d/n2");
	C(MKDIR("/bind", 0755));
	C(mount("/d", "/bind", NULL, MS_BIND, NULL));
	STAT("/d/n3");
	C(mkfile("/bind/n3", "via bind"));
	CAT("/d/n3");
	C(unlinkat(dfd, "n3", 0));
	STAT("/bind/n3");
	C(umount2("/bind", 0));
	cl(dfd);
	/* a mount covering a directory with cached children */
	C(MKDIR("/m", 0755));
	C(mkfile("/m/under", "u"));
	STAT("/m/under");
	STAT("/m/over");
	C(TMPFS("/m", 0, NULL));
	STAT("/m/under");
	C(mkfile("/m/over", "o"));
	STAT("/m/over");
	C(umount2("/m", 0));
	STAT("/m/over");
	CAT("/m/under");
	/* symlink retargeted */
	C(mkfile("/t1", "one"));
	C(mkfile("/t2", "two"));
	C(SYMLINK("t1", "/l"));
	CAT("/l");
	C(UNLINK("/l"));
	C(SYMLINK("t2", "/l"));
	CAT("/l");
	C(RENAME("/t1", "/l"));
	CAT("/l");
	/* a directory replaced by a file of the same name */
	C(MKDIR("/x", 0755));
	STAT("/x/.");
	C(RMDIR("/x"));
	C(mkfile("/x", "file"));
	STAT("/x/.");
	STAT("/x");
	/* exchange swaps what both names resolve to */
	C(MKDIR("/e1", 0755));
	C(mkfile("/e1/in1", ""));
	C(mkfile("/e2", "e2"));
	STAT("/e1/in1");
	C(RENAME2("/e1", "/e2", RENAME_EXCHANGE));
	STAT("/e1/in1");
	STAT("/e2/in1");
	CAT("/e1");
	/* many names in one directory, removed in a different order */
	C(MKDIR("/many", 0755));
	int made = 0, gone = 0, left = 0;
	for (int i = 0; i < 300; i++)
		made += mkfile(fmt("/many/n%03d", i), "") == 0;
	for (int i = 0; i < 300; i += 3)
		gone += UNLINK(fmt("/many/n%03d", (i * 7) % 300)) == 0;
	for (int i = 0; i < 300; i++)
		left += same_ino(fmt("/many/n%03d", i), fmt("/many/n%03d", i)) == 1;
	C(made);
	C(gone);
	C(left);
	SIZEOF("/many");
	NLINKS("/many");
}

const struct scenario names_scenarios[] = {
	{ "mkdir_basic", mkdir_basic },
	{ "rmdir_cases", rmdir_cases },
	{ "unlink_cases", unlink_cases },
	{ "link_cases", link_cases },
	{ "symlink_cases", symlink_cases },
	{ "symlink_loops", symlink_loops },
	{ "rename_files", rename_files },
	{ "rename_dirs", rename_dirs },
	{ "rename_flags", rename_flags },
	{ "rename_whiteout", rename_whiteout },
	{ "rename_times", rename_times },
	{ "dot_dotdot", dot_dotdot },
	{ "trailing_slashes", trailing_slashes },
	{ "name_too_long_order", name_too_long_order },
	{ "name_max", name_max },
	{ "name_max_rel", name_max_rel },
	{ "path_max", path_max },
	{ "mknod_types", mknod_types },
	{ "rename_over_busy_dirs", rename_over_busy_dirs },
	{ "symlink_corner_cases", symlink_corner_cases },
	{ "lookup_errors_precedence", lookup_errors_precedence },
	{ "dcache_coherence", dcache_coherence },
	{ NULL, NULL },
};
