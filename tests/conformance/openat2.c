/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* openat2.c - struct open_how checks and the RESOLVE_* flags. */
#include "conf.h"

#ifndef OPEN_HOW_SIZE_VER0
#define OPEN_HOW_SIZE_VER0 24
#endif

static int o2(int dirfd, const char *path, unsigned long long flags, unsigned long long mode,
	      unsigned long long resolve)
{
	struct open_how how = { .flags = flags, .mode = mode, .resolve = resolve };
	return openat2(dirfd, path, &how, sizeof how);
}

/* the fd (or error) of an openat2, closed afterwards */
static int o2c(int dirfd, const char *path, unsigned long long flags, unsigned long long resolve)
{
	int fd = o2(dirfd, path, flags, 0, resolve);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

static void openat2_how_checks(void)
{
	C(mkfile("/f", "data"));
	struct {
		struct open_how how;
		char pad[64];
	} big;
	memset(&big, 0, sizeof big);
	big.how.flags = O_RDONLY;
	int fd = F(openat2(AT_FDCWD, "/f", &big.how, sizeof big.how));
	cl(fd);
	F(openat2(AT_FDCWD, "/f", &big.how, OPEN_HOW_SIZE_VER0 - 1));
	F(openat2(AT_FDCWD, "/f", &big.how, 0));
	fd = F(openat2(AT_FDCWD, "/f", &big.how, sizeof big));
	cl(fd);
	big.pad[10] = 1;
	F(openat2(AT_FDCWD, "/f", &big.how, sizeof big));
	big.pad[10] = 0;
	F(openat2(AT_FDCWD, "/f", &big.how, 4097));
	F(openat2(AT_FDCWD, "/f", &big.how, 1 << 20));
	C(o2c(AT_FDCWD, "/f", O_RDONLY | (1ULL << 40), 0));
	C(o2c(AT_FDCWD, "/f", O_RDONLY | 0x40000000, 0));
	C(o2c(AT_FDCWD, "/f", O_RDONLY, 1ULL << 20));
	C(o2(AT_FDCWD, "/f", O_RDONLY, 0644, 0));
	C(o2(AT_FDCWD, "/n", O_CREAT | O_RDWR, 010000, 0));
	C(o2(AT_FDCWD, "/n", O_CREAT | O_RDWR, 1ULL << 33, 0));
	fd = F(o2(AT_FDCWD, "/n", O_CREAT | O_RDWR, 0600, 0));
	cl(fd);
	STAT("/n");
	fd = F(o2(AT_FDCWD, "/", O_TMPFILE | O_RDWR, 0640, 0));
	FSTAT(fd);
	cl(fd);
	C(o2c(AT_FDCWD, "/f", O_PATH | O_RDWR, 0));
	C(o2c(AT_FDCWD, "/f", O_PATH | O_CREAT, 0));
	C(o2c(AT_FDCWD, "/f", O_DIRECTORY | O_CREAT, 0));
	C(o2c(AT_FDCWD, "/f", O_RDONLY, RESOLVE_BENEATH | RESOLVE_IN_ROOT));
	/* plain openat2 behaves like openat */
	C(o2c(AT_FDCWD, "/missing", O_RDONLY, 0));
	C(o2c(AT_FDCWD, "/f", O_RDONLY | O_DIRECTORY, 0));
	C(o2c(AT_FDCWD, "/f", O_WRONLY | O_TRUNC, 0));
	SIZEOF("/f");
	C(o2c(-1, "f", O_RDONLY, 0));
	fd = F(o2(AT_FDCWD, "/f", O_RDONLY | O_CLOEXEC, 0, 0));
	C(fcntl(fd, F_GETFD, 0));
	cl(fd);
}

static void resolve_beneath(void)
{
	C(MKDIR("/top", 0755));
	C(MKDIR("/top/d", 0755));
	C(mkfile("/top/d/f", "f"));
	C(mkfile("/outside", "o"));
	C(SYMLINK("../outside", "/top/up"));
	C(SYMLINK("/outside", "/top/abs"));
	C(SYMLINK("d/f", "/top/rel"));
	C(SYMLINK("../d/f", "/top/d/back"));
	int top = F(OPEN("/top", O_RDONLY | O_DIRECTORY));
	C(o2c(top, "d/f", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "d/../d/f", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "../outside", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "d/../../outside", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "/outside", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "/top/d/f", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "up", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "abs", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "rel", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "d/back", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "..", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, ".", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "missing", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(top, "../missing", O_RDONLY, RESOLVE_BENEATH));
	int fd = F(o2(top, "newfile", O_CREAT | O_RDWR, 0644, RESOLVE_BENEATH));
	cl(fd);
	STAT("/top/newfile");
	C(o2c(top, "up", O_RDONLY | O_NOFOLLOW | O_PATH, RESOLVE_BENEATH));
	C(o2c(AT_FDCWD, "top/d/f", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(AT_FDCWD, "/top/d/f", O_RDONLY, RESOLVE_BENEATH));
	C(chdir("/top/d"));
	C(o2c(AT_FDCWD, "../d/f", O_RDONLY, RESOLVE_BENEATH));
	C(o2c(AT_FDCWD, "back", O_RDONLY, RESOLVE_BENEATH));
	C(chdir("/"));
	cl(top);
}

static void resolve_in_root(void)
{
	C(MKDIR("/root2", 0755));
	C(MKDIR("/root2/d", 0755));
	C(mkfile("/root2/d/f", "inner f"));
	C(mkfile("/root2/outside", "inner outside"));
	C(mkfile("/outside", "real outside"));
	C(SYMLINK("/outside", "/root2/abs"));
	C(SYMLINK("../../../outside", "/root2/d/up"));
	C(SYMLINK("/d/f", "/root2/absf"));
	int r = F(OPEN("/root2", O_RDONLY | O_DIRECTORY));
	char b[32];
	int fd = F(o2(r, "/outside", O_RDONLY, 0, RESOLVE_IN_ROOT));
	memset(b, 0, sizeof b);
	C(read(fd, b, sizeof b - 1));
	CS("content", b);
	cl(fd);
	fd = F(o2(r, "abs", O_RDONLY, 0, RESOLVE_IN_ROOT));
	memset(b, 0, sizeof b);
	C(read(fd, b, sizeof b - 1));
	CS("content", b);
	cl(fd);
	fd = F(o2(r, "d/up", O_RDONLY, 0, RESOLVE_IN_ROOT));
	memset(b, 0, sizeof b);
	C(read(fd, b, sizeof b - 1));
	CS("content", b);
	cl(fd);
	fd = F(o2(r, "../../outside", O_RDONLY, 0, RESOLVE_IN_ROOT));
	memset(b, 0, sizeof b);
	C(read(fd, b, sizeof b - 1));
	CS("content", b);
	cl(fd);
	C(o2c(r, "absf", O_RDONLY, RESOLVE_IN_ROOT));
	C(o2c(r, "/", O_RDONLY | O_DIRECTORY, RESOLVE_IN_ROOT));
	C(o2c(r, "/missing", O_RDONLY, RESOLVE_IN_ROOT));
	fd = F(o2(r, "/created", O_CREAT | O_RDWR, 0644, RESOLVE_IN_ROOT));
	cl(fd);
	STAT("/root2/created");
	STAT("/created");
	/* the returned fd for ".." at the root is the root itself */
	fd = F(o2(r, "..", O_RDONLY | O_DIRECTORY, 0, RESOLVE_IN_ROOT));
	struct stat s1, s2;
	fstat(fd, &s1);
	fstat(r, &s2);
	C(s1.st_ino == s2.st_ino);
	cl(fd);
	cl(r);
}

static void resolve_no_symlinks(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "f"));
	C(SYMLINK("d", "/ld"));
	C(SYMLINK("d/f", "/lf"));
	C(o2c(AT_FDCWD, "/d/f", O_RDONLY, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/ld/f", O_RDONLY, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/lf", O_RDONLY, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/lf", O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/lf", O_RDONLY | O_NOFOLLOW, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/lf", O_CREAT | O_RDWR, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/ld/new", O_CREAT | O_RDWR, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/d/new", O_CREAT | O_RDWR, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/d/../d/f", O_RDONLY, RESOLVE_NO_SYMLINKS));
	C(o2c(AT_FDCWD, "/ld", O_RDONLY, RESOLVE_NO_MAGICLINKS));
	C(o2c(AT_FDCWD, "/ld/f", O_RDONLY, RESOLVE_NO_MAGICLINKS));
	C(o2c(AT_FDCWD, "/lf", O_RDONLY, RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH));
	LS("/d");
}

static void resolve_no_xdev(void)
{
	C(MKDIR("/m", 0755));
	C(MKDIR("/m2", 0755));
	C(mkfile("/f", "f"));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/g", "g"));
	C(MKDIR("/m/sub", 0755));
	C(SYMLINK("/f", "/m/abs"));
	C(SYMLINK("g", "/m/rel"));
	C(o2c(AT_FDCWD, "/m/g", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(AT_FDCWD, "/f", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(AT_FDCWD, "/m", O_RDONLY, RESOLVE_NO_XDEV));
	int m = F(OPEN("/m", O_RDONLY | O_DIRECTORY));
	C(o2c(m, "g", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "sub/../g", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "..", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "../f", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "abs", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "rel", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "/m/g", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(m, "..", O_RDONLY, RESOLVE_BENEATH));
	cl(m);
	C(chdir("/m"));
	C(o2c(AT_FDCWD, "g", O_RDONLY, RESOLVE_NO_XDEV));
	C(o2c(AT_FDCWD, "../f", O_RDONLY, RESOLVE_NO_XDEV));
	C(chdir("/"));
	C(mount("/m", "/m2", NULL, MS_BIND, NULL));
	C(o2c(AT_FDCWD, "/m2/g", O_RDONLY, RESOLVE_NO_XDEV));
	int fd = F(OPEN("/m2", O_RDONLY | O_DIRECTORY));
	C(o2c(fd, "g", O_RDONLY, RESOLVE_NO_XDEV));
	cl(fd);
}

static void resolve_cached(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/f", "f"));
	CAT("/d/f");
	C(o2c(AT_FDCWD, "/d/f", O_RDONLY, RESOLVE_CACHED));
	C(o2c(AT_FDCWD, "/d/new", O_CREAT | O_RDWR, RESOLVE_CACHED));
	C(o2c(AT_FDCWD, "/d/f", O_WRONLY | O_TRUNC, RESOLVE_CACHED));
	C(o2c(AT_FDCWD, "/d", O_TMPFILE | O_RDWR, RESOLVE_CACHED));
	C(o2c(AT_FDCWD, "/d/f", O_PATH, RESOLVE_CACHED));
	C(o2c(AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, RESOLVE_CACHED | RESOLVE_BENEATH));
	C(o2c(AT_FDCWD, "/d/f", O_RDONLY, RESOLVE_CACHED | 0x40));
	STAT("/d/new");
	SIZEOF("/d/f");
}

/* O_CREAT through a trailing symlink: the body resolves from the link's
 * directory within the same walk, so the RESOLVE_* scope, the mounts and
 * the 40-link count of the call apply to it as to the rest of the path. */
static void create_through_links(void)
{
	C(MKDIR("/D", 0755));
	C(MKDIR("/D/sub", 0755));
	C(MKDIR("/D/dir", 0755));
	C(SYMLINK("../x", "/D/sub/l"));
	C(SYMLINK("/y", "/D/sub/a"));
	C(SYMLINK("../../../z", "/D/sub/up"));
	C(SYMLINK("dir", "/D/ldir"));
	C(SYMLINK("nowhere", "/D/dangling"));
	C(SYMLINK("/outside", "/D/abs"));
	int D = F(OPEN("/D", O_RDONLY | O_DIRECTORY));
	/* beneath: "../x" from sub stays in D */
	C(o2c(D, "sub/l", O_CREAT | O_WRONLY, RESOLVE_BENEATH));
	STAT("/D/x");
	/* in root: "/y" is D/y, and ".." at the root stays there */
	C(o2c(D, "sub/a", O_CREAT | O_WRONLY, RESOLVE_IN_ROOT));
	STAT("/D/y");
	STAT("/D/sub/y");
	STAT("/y");
	C(o2c(D, "sub/up", O_CREAT | O_WRONLY, RESOLVE_IN_ROOT));
	STAT("/D/z");
	STAT("/z");
	/* beneath: an absolute body, or one that climbs out, is EXDEV */
	C(o2c(D, "abs", O_CREAT | O_WRONLY, RESOLVE_BENEATH));
	C(o2c(D, "sub/up", O_CREAT | O_WRONLY, RESOLVE_BENEATH));
	STAT("/outside");
	/* no symlinks at all; O_EXCL never follows; a link to a directory */
	C(o2c(D, "dangling", O_CREAT | O_WRONLY, RESOLVE_NO_SYMLINKS));
	C(o2c(D, "dangling", O_CREAT | O_EXCL | O_WRONLY, 0));
	C(o2c(D, "dangling", O_CREAT | O_WRONLY | O_NOFOLLOW, 0));
	C(o2c(D, "ldir", O_CREAT | O_WRONLY, 0));
	C(o2c(D, "ldir/new", O_CREAT | O_WRONLY, 0));
	C(o2c(D, "dangling", O_CREAT | O_WRONLY, 0));
	STAT("/D/nowhere");
	LS("/D");
	cl(D);
}

/* The 40-link limit counts every link one open follows, in the middle of
 * the path and at its end alike, across the hops of O_CREAT.  Only counts
 * with one host answer are compared (conf.h, "Symlink counts"). */
static void create_link_limit(void)
{
	char name[32], body[32];
	C(MKDIR("/c", 0755));
	C(MKDIR("/c/d", 0755));
	/* l0 -> l1 -> ... -> l40 -> t (dangling): 41 links from l0, 20 from l21 */
	for (int i = 0; i < 41; i++) {
		snprintf(name, sizeof name, "/c/l%d", i);
		if (i == 40)
			snprintf(body, sizeof body, "t");
		else
			snprintf(body, sizeof body, "l%d", i + 1);
		C(SYMLINK(body, name));
	}
	C(o2c(AT_FDCWD, "/c/l0", O_CREAT | O_WRONLY, 0));
	STAT("/c/t");
	C(o2c(AT_FDCWD, "/c/l21", O_CREAT | O_WRONLY, 0));
	STAT("/c/t");
	C(o2c(AT_FDCWD, "/c/l0", O_RDONLY, 0));
	C(o2c(AT_FDCWD, "/c/l21", O_RDONLY, 0));
	/* one more, in the middle of the path: 42 and 20 */
	C(SYMLINK("c", "/lc"));
	C(o2c(AT_FDCWD, "/lc/l0", O_CREAT | O_WRONLY, 0));
	C(o2c(AT_FDCWD, "/lc/l1", O_CREAT | O_WRONLY, 0));
	C(o2c(AT_FDCWD, "/lc/l22", O_CREAT | O_WRONLY, 0));
	/* a link to the chain: 42, then 20 */
	C(SYMLINK("/c/l0", "/c/d/m"));
	C(o2c(AT_FDCWD, "/c/d/m", O_CREAT | O_WRONLY, 0));
	C(SYMLINK("/c/l22", "/c/d/m2"));
	C(o2c(AT_FDCWD, "/c/d/m2", O_CREAT | O_WRONLY, 0));
}

const struct scenario openat2_scenarios[] = {
	{ "openat2_how_checks", openat2_how_checks },
	{ "resolve_beneath", resolve_beneath },
	{ "resolve_in_root", resolve_in_root },
	{ "resolve_no_symlinks", resolve_no_symlinks },
	{ "resolve_no_xdev", resolve_no_xdev },
	{ "resolve_cached", resolve_cached },
	{ "create_through_links", create_through_links },
	{ "create_link_limit", create_link_limit },
	{ NULL, NULL },
};
