/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * onename.c - creates and unlinks of one name relative to a directory fd
 * or the cwd, the case uvfs resolves without a walk (namei.c's
 * parent_single): every way the start directory can be out of the
 * ordinary must give the walk's answer.  A bad fd, a file or an O_PATH
 * file as the directory, a removed directory, a directory the caller may
 * not search or write, ".", "..", a name that is a symlink (followed, as
 * O_CREAT follows it, to a relative and to an absolute body, inside a
 * chroot too), a directory, a sticky directory.
 */
#include "conf.h"

static void onename_dirfd(void)
{
	C(MKDIR("/d", 0755));
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	int fd = F(openat(dfd, "f", O_CREAT | O_EXCL | O_RDWR, 0600));
	C(write(fd, "abc", 3));
	cl(fd);
	STAT("/d/f");
	CAT("/d/f");
	C(openat(dfd, "f", O_CREAT | O_EXCL | O_RDWR, 0600));
	fd = F(openat(dfd, "f", O_CREAT | O_RDWR, 0600));
	FCAT(fd);
	cl(fd);
	C(unlinkat(dfd, "f", 0));
	STAT("/d/f");
	C(unlinkat(dfd, "f", 0));
	/* an unlink of an open file, and a create of the name again */
	fd = F(openat(dfd, "g", O_CREAT | O_EXCL | O_WRONLY, 0644));
	C(unlinkat(dfd, "g", 0));
	C(write(fd, "x", 1));
	FSTAT(fd);
	int fd2 = F(openat(dfd, "g", O_CREAT | O_EXCL | O_WRONLY, 0644));
	STAT("/d/g");
	cl(fd);
	cl(fd2);
	C(unlinkat(dfd, "g", 0));
	/* a directory, ".", ".." and "" */
	C(MKDIR("/d/sub", 0755));
	C(unlinkat(dfd, "sub", 0));
	C(openat(dfd, "sub", O_CREAT | O_WRONLY, 0644));
	C(openat(dfd, "sub", O_CREAT | O_EXCL | O_WRONLY, 0644));
	C(openat(dfd, ".", O_CREAT | O_WRONLY, 0644));
	C(openat(dfd, ".", O_CREAT | O_EXCL | O_RDONLY, 0644));
	C(openat(dfd, "..", O_CREAT | O_RDONLY, 0644));
	C(unlinkat(dfd, ".", 0));
	C(unlinkat(dfd, "..", 0));
	C(unlinkat(dfd, "", 0));
	C(openat(dfd, "", O_CREAT | O_RDWR, 0644));
	LS("/d");
	cl(dfd);
}

static void onename_bad_start(void)
{
	C(mkfile("/file", "data"));
	C(MKDIR("/d", 0755));
	int ffd = F(OPEN("/file", O_RDONLY));
	C(openat(ffd, "x", O_CREAT | O_RDWR, 0644));
	C(unlinkat(ffd, "x", 0));
	C(openat(99, "x", O_CREAT | O_RDWR, 0644));
	C(unlinkat(99, "x", 0));
	C(openat(-5, "x", O_CREAT | O_RDWR, 0644));
	C(unlinkat(-5, "x", 0));
	cl(ffd);
	C(unlinkat(ffd, "x", 0)); /* closed meanwhile */
	/* an O_PATH directory fd is a start like any other */
	int pfd = F(OPEN("/d", O_PATH | O_DIRECTORY));
	int fd = F(openat(pfd, "p", O_CREAT | O_EXCL | O_RDWR, 0640));
	cl(fd);
	STAT("/d/p");
	C(unlinkat(pfd, "p", 0));
	STAT("/d/p");
	/* an O_PATH fd of a file is not a directory */
	int pf = F(OPEN("/file", O_PATH));
	C(openat(pf, "x", O_CREAT | O_RDWR, 0644));
	C(unlinkat(pf, "x", 0));
	cl(pf);
	cl(pfd);
	/* a removed directory */
	C(MKDIR("/r", 0755));
	int rfd = F(OPEN("/r", O_RDONLY | O_DIRECTORY));
	C(RMDIR("/r"));
	C(openat(rfd, "x", O_CREAT | O_RDWR, 0644));
	C(openat(rfd, "x", O_CREAT | O_EXCL | O_RDWR, 0644));
	C(unlinkat(rfd, "x", 0));
	C(openat(rfd, "x", O_RDONLY, 0));
	cl(rfd);
}

static void onename_cwd(void)
{
	C(MKDIR("/c", 0755));
	C(chdir("/c"));
	int fd = F(OPEN("here", O_CREAT | O_EXCL | O_RDWR));
	cl(fd);
	STAT("/c/here");
	C(UNLINK("here"));
	C(UNLINK("here"));
	/* the cwd removed under us */
	C(MKDIR("/c/gone", 0755));
	C(chdir("/c/gone"));
	C(RMDIR("/c/gone"));
	C(OPEN("x", O_CREAT | O_RDWR));
	C(UNLINK("x"));
	C(chdir("/"));
	LS("/c");
}

static void onename_perms(void)
{
	C(MKDIR("/s", 0755));
	C(mkfile("/s/f", "f"));
	C(MKDIR("/w", 0777));
	C(MKDIR("/nx", 0666));   /* writable, not searchable */
	C(MKDIR("/nw", 0555));   /* searchable, not writable */
	C(MKDIR("/t", 01777));   /* sticky */
	C(mkfile("/t/roots", "r"));
	C(mkfile("/nx/in", "i"));
	int s = F(OPEN("/s", O_RDONLY | O_DIRECTORY));
	int nx = F(OPEN("/nx", O_RDONLY | O_DIRECTORY));
	int nw = F(OPEN("/nw", O_RDONLY | O_DIRECTORY));
	int t = F(OPEN("/t", O_RDONLY | O_DIRECTORY));
	int w = F(OPEN("/w", O_RDONLY | O_DIRECTORY));
	/* root may search and write anything */
	int fd = F(openat(nx, "r", O_CREAT | O_EXCL | O_RDWR, 0644));
	cl(fd);
	C(unlinkat(nx, "r", 0));
	C(setcred(1000, 1000));
	C(openat(s, "x", O_CREAT | O_EXCL | O_RDWR, 0644));
	C(unlinkat(s, "f", 0));
	C(openat(nx, "x", O_CREAT | O_RDWR, 0644));
	C(unlinkat(nx, "in", 0));
	C(openat(nw, "x", O_CREAT | O_RDWR, 0644));
	C(unlinkat(nw, "x", 0));
	fd = F(openat(t, "mine", O_CREAT | O_EXCL | O_RDWR, 0600));
	cl(fd);
	C(unlinkat(t, "roots", 0));
	C(unlinkat(t, "mine", 0));
	fd = F(openat(w, "u", O_CREAT | O_EXCL | O_RDWR, 0600));
	cl(fd);
	STAT("/w/u");
	C(setcred(0, 0));
	/* a chmod of the start directory between two creates */
	C(CHMOD("/w", 0666));
	C(setcred(1000, 1000));
	C(openat(w, "v", O_CREAT | O_EXCL | O_RDWR, 0600));
	C(unlinkat(w, "u", 0));
	C(setcred(0, 0));
	C(CHMOD("/w", 0777));
	C(setcred(1000, 1000));
	C(unlinkat(w, "u", 0));
	C(setcred(0, 0));
	LS("/w");
	LS("/t");
	cl(s);
	cl(nx);
	cl(nw);
	cl(t);
	cl(w);
}

static void onename_links(void)
{
	C(MKDIR("/d", 0755));
	C(MKDIR("/e", 0755));
	C(MKDIR("/j", 0755));
	C(MKDIR("/j/e", 0755));
	C(SYMLINK("../e/rel", "/d/rel"));
	C(SYMLINK("/e/abs", "/d/abs"));
	C(SYMLINK("/j/e/abs", "/j/abs"));
	C(SYMLINK("nowhere/x", "/d/deep"));
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	int fd = F(openat(dfd, "rel", O_CREAT | O_WRONLY, 0644));
	cl(fd);
	STAT("/e/rel");
	fd = F(openat(dfd, "abs", O_CREAT | O_WRONLY, 0644));
	cl(fd);
	STAT("/e/abs");
	C(openat(dfd, "deep", O_CREAT | O_WRONLY, 0644));
	C(openat(dfd, "rel", O_CREAT | O_EXCL | O_WRONLY, 0644));
	C(openat(dfd, "rel", O_CREAT | O_NOFOLLOW | O_WRONLY, 0644));
	/* unlink removes the link, not its target */
	C(unlinkat(dfd, "rel", 0));
	STAT("/e/rel");
	STAT("/d/rel");
	/* a link to itself */
	C(SYMLINK("loop", "/d/loop"));
	C(openat(dfd, "loop", O_CREAT | O_WRONLY, 0644));
	C(unlinkat(dfd, "loop", 0));
	/* an absolute body inside a chroot: the root is the chroot's */
	C(chroot("/j"));
	int jfd = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	fd = F(openat(jfd, "abs", O_CREAT | O_WRONLY, 0644));
	cl(fd);
	STAT("/e/abs");
	STAT("/j/e/abs");
	C(unlinkat(jfd, "abs", 0));
	LS("/");
	cl(jfd);
	cl(dfd);
}

const struct scenario onename_scenarios[] = {
	{ "onename_dirfd", onename_dirfd },
	{ "onename_bad_start", onename_bad_start },
	{ "onename_cwd", onename_cwd },
	{ "onename_perms", onename_perms },
	{ "onename_links", onename_links },
	{ NULL, NULL },
};
