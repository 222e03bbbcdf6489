/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perms.c - permission checks as a non-root user (uid 1000, gid 1000), root's
 * overrides, sticky directories, chmod/chown rules, setgid, utimensat rules. */
#include "conf.h"

#define USER() C(setcred(1000, 1000))
#define ROOT() C(setcred(0, 0))

/* root-made file with owner and mode */
static void mk(const char *p, uid_t u, gid_t g, mode_t m)
{
	mkfile(p, "data");
	CHOWN(p, u, g);
	CHMOD(p, m);
}

static void mkd(const char *p, uid_t u, gid_t g, mode_t m)
{
	MKDIR(p, 0755);
	CHOWN(p, u, g);
	CHMOD(p, m);
}

static void perm_file_rw(void)
{
	mkd("/d", 0, 0, 0777);
	mk("/d/own", 1000, 1000, 0600);
	mk("/d/other", 0, 0, 0600);
	mk("/d/grp", 0, 1000, 0640);
	mk("/d/world", 0, 0, 0604);
	mk("/d/wonly", 0, 0, 0602);
	mk("/d/none", 1000, 1000, 0000);
	USER();
	int fd;
	fd = F(OPEN("/d/own", O_RDWR)); cl(fd);
	F(OPEN("/d/other", O_RDONLY));
	F(OPEN("/d/other", O_WRONLY));
	fd = F(OPEN("/d/grp", O_RDONLY)); cl(fd);
	F(OPEN("/d/grp", O_WRONLY));
	fd = F(OPEN("/d/world", O_RDONLY)); cl(fd);
	F(OPEN("/d/world", O_RDWR));
	fd = F(OPEN("/d/wonly", O_WRONLY)); cl(fd);
	F(OPEN("/d/wonly", O_RDONLY));
	F(OPEN("/d/none", O_RDONLY));
	F(OPEN("/d/none", O_WRONLY));
	fd = F(OPEN("/d/none", O_PATH)); cl(fd);
	F(OPEN("/d/other", O_RDONLY | O_TRUNC));
	F(OPEN("/d/world", O_RDONLY | O_TRUNC));
	C(truncate("/d/world", 0));
	C(truncate("/d/wonly", 1));
	C(truncate("/d/own", 2));
	F(OPEN("/d/other", O_CREAT | O_WRONLY));
	fd = F(OPEN("/d/world", O_CREAT | O_RDONLY)); cl(fd);
	F(OPEN("/d/other", O_CREAT | O_EXCL | O_WRONLY));
	fd = F(OPEN("/d/mine", O_CREAT | O_RDWR));
	FSTAT(fd);
	cl(fd);
	/* the owner's bits decide even when others' are wider */
	mode_t m = 0066;
	C(fchmodat(AT_FDCWD, "/d/own", m, 0));
	F(OPEN("/d/own", O_RDONLY));
	ROOT();
	CAT("/d/wonly");
	CAT("/d/own");
}

static void perm_dir_search(void)
{
	mkd("/nox", 0, 0, 0666);
	mk("/nox/f", 0, 0, 0644);
	mkd("/nor", 0, 0, 0711);
	mk("/nor/f", 0, 0, 0644);
	mkd("/now", 0, 0, 0755);
	mk("/now/f", 0, 0, 0666);
	mkd("/now/sub", 0, 0, 0777);
	mkd("/mine", 1000, 1000, 0700);
	USER();
	STAT("/nox/f");
	STAT("/nox/missing");
	STAT("/nox");
	LS("/nox");
	F(OPEN("/nox/f", O_RDONLY));
	C(chdir("/nox"));
	STAT("/nor/f");
	LS("/nor");
	CAT("/nor/f");
	C(chdir("/nor"));
	C(chdir("/"));
	C(mkfile("/now/new", "x"));
	C(MKDIR("/now/newd", 0755));
	C(UNLINK("/now/f"));
	C(RENAME("/now/f", "/now/g"));
	C(RENAME("/now/f", "/mine/f"));
	C(SYMLINK("x", "/now/l"));
	C(LINK("/now/f", "/now/h"));
	C(MKNOD("/now/p", S_IFIFO | 0644, 0));
	C(RMDIR("/now/sub"));
	C(mkfile("/now/sub/ok", "ok"));
	/* error precedence: EEXIST / ENOENT before the write check */
	C(MKDIR("/now/sub", 0755));
	C(MKDIR("/now/f", 0755));
	C(UNLINK("/now/missing"));
	C(RMDIR("/now/missing"));
	int fd = F(OPEN("/now/f", O_CREAT | O_RDWR));
	cl(fd);
	F(OPEN("/now/missing", O_CREAT | O_RDWR));
	F(OPEN("/now/f", O_CREAT | O_EXCL | O_RDWR));
	C(mkfile("/mine/x", "x"));
	CAT("/mine/x");
	ROOT();
	LS("/now");
	LS("/mine");
	/* root searches and lists any directory */
	C(CHMOD("/mine", 0));
	CAT("/mine/x");
	LS("/mine");
}

static void perm_root_override(void)
{
	mk("/f", 1000, 1000, 0000);
	mk("/x", 1000, 1000, 0644);
	mk("/ux", 1000, 1000, 0100);
	mk("/ox", 1000, 1000, 0001);
	mkd("/d", 1000, 1000, 0000);
	mk("/d/in", 1000, 1000, 0000);
	int fd = F(OPEN("/f", O_RDWR));
	cl(fd);
	C(ACCESS("/f", R_OK | W_OK));
	C(ACCESS("/f", X_OK));
	C(ACCESS("/x", X_OK));
	C(ACCESS("/ux", X_OK));
	C(ACCESS("/ox", X_OK));
	C(ACCESS("/d", X_OK));
	C(ACCESS("/d", R_OK | W_OK | X_OK));
	CAT("/d/in");
	LS("/d");
	C(mkfile("/d/new", "n"));
	C(CHMOD("/f", 0755));
	C(CHOWN("/f", 5, 5));
	STAT("/f");
	C(UNLINK("/d/in"));
	LS("/d");
}

static void sticky_dir(void)
{
	mkd("/t", 0, 0, 01777);
	mkd("/mytmp", 1000, 1000, 01777);
	USER();
	C(mkfile("/t/mine", "m"));
	C(mkfile("/mytmp/mine", "m"));
	ROOT();
	mk("/t/other", 1001, 1001, 0666);
	mk("/mytmp/other", 1001, 1001, 0666);
	mkd("/t/odir", 1001, 1001, 0777);
	USER();
	C(UNLINK("/t/other"));
	C(RENAME("/t/other", "/t/x"));
	C(RENAME("/t/mine", "/t/other"));
	C(RMDIR("/t/odir"));
	C(RENAME2("/t/mine", "/t/other", RENAME_EXCHANGE));
	/* writing is fine (no O_CREAT: fs.protected_regular would refuse that
	 * on hosts that set it, which is host policy, not VFS semantics) */
	int fd = F(OPEN("/t/other", O_WRONLY | O_TRUNC));
	C(wr(fd, "overwritten"));
	cl(fd);
	C(UNLINK("/t/mine"));
	C(UNLINK("/mytmp/other"));
	C(UNLINK("/mytmp/mine"));
	ROOT();
	C(UNLINK("/t/other"));
	LS("/t");
	LS("/mytmp");
	CHMOD("/t", 0777);
	mk("/t/o2", 1001, 1001, 0600);
	USER();
	C(UNLINK("/t/o2"));
	ROOT();
}

static void chmod_rules(void)
{
	mk("/root", 0, 0, 0644);
	mk("/mine", 1000, 1000, 0644);
	mk("/mineg", 1000, 2000, 0644);
	mkd("/dg", 1000, 2000, 0755);
	USER();
	C(CHMOD("/root", 0666));
	C(CHMOD("/mine", 0600));
	C(CHMOD("/mine", 02755));
	STAT("/mine");
	C(CHMOD("/mineg", 02755));
	STAT("/mineg");
	C(CHMOD("/mineg", 04755));
	STAT("/mineg");
	C(CHMOD("/dg", 02755));
	STAT("/dg");
	gid_t g[1] = { 2000 };
	C(setgroups(1, g));
	C(CHMOD("/mineg", 02755));
	STAT("/mineg");
	C(setgroups(0, NULL));
	C(fchmodat(AT_FDCWD, "/root", 0644, 0));
	int fd = F(OPEN("/root", O_RDONLY));
	C(fchmod(fd, 0600));
	cl(fd);
	ROOT();
	STAT("/root");
	/* a write by a non-root user clears setuid and setgid bits */
	C(CHMOD("/mine", 06777));
	C(CHMOD("/mineg", 06777));
	USER();
	fd = F(OPEN("/mine", O_WRONLY));
	C(wr(fd, "w"));
	cl(fd);
	STAT("/mine");
	fd = F(OPEN("/mineg", O_WRONLY));
	C(ftruncate(fd, 1));
	cl(fd);
	STAT("/mineg");
	ROOT();
	/* but not by root (CAP_FSETID) */
	C(CHMOD("/mine", 06777));
	fd = F(OPEN("/mine", O_WRONLY));
	C(wr(fd, "w"));
	cl(fd);
	STAT("/mine");
	/* setgid without group exec: dropped too when the writer is not in the
	 * file's group (setattr_should_drop_sgid, Linux 6.2; kept before) */
	C(CHMOD("/mineg", 02666));
	USER();
	fd = F(OPEN("/mineg", O_WRONLY));
	C(wr(fd, "w"));
	cl(fd);
	STAT_SINCE(6, 2, "/mineg");
	ROOT();
}

static void chown_rules(void)
{
	mk("/root", 0, 0, 0644);
	mk("/mine", 1000, 1000, 06755);
	mk("/mine2", 1000, 1000, 0644);
	USER();
	C(CHOWN("/root", 1000, 1000));
	C(CHOWN("/root", -1, 1000));
	C(CHOWN("/root", -1, -1));
	C(CHOWN("/mine2", 1001, -1));
	C(CHOWN("/mine2", 1000, -1));
	C(CHOWN("/mine2", -1, 1000));
	C(CHOWN("/mine2", -1, 2000));
	gid_t g[2] = { 2000, 3000 };
	C(setgroups(2, g));
	C(CHOWN("/mine2", -1, 3000));
	STAT("/mine2");
	C(CHOWN("/mine", -1, 2000));
	STAT("/mine");
	C(CHOWN("/mine", -1, -1));
	STAT("/mine");
	C(setgroups(0, NULL));
	C(SYMLINK("mine2", "/l"));
	C(LCHOWN("/l", -1, 1000));
	STAT("/l");
	C(LCHOWN("/l", 0, -1));
	int fd = F(OPEN("/mine2", O_RDONLY));
	C(fchown(fd, -1, 1000));
	C(fchown(fd, 0, 0));
	cl(fd);
	ROOT();
	STAT("/mine2");
}

static void setgid_inherit(void)
{
	mkd("/g", 0, 2000, 02777);
	mkd("/p", 0, 2000, 0777);
	USER();
	C(mkfile("/g/f", "x"));
	STAT("/g/f");
	C(MKDIR("/g/sub", 0755));
	STAT("/g/sub");
	C(MKDIR("/g/sub/deeper", 0700));
	STAT("/g/sub/deeper");
	C(MKNOD("/g/fifo", S_IFIFO | 0644, 0));
	STAT("/g/fifo");
	C(SYMLINK("x", "/g/l"));
	STAT("/g/l");
	int fd = F(openat(AT_FDCWD, "/g/sg", O_CREAT | O_RDWR, 02755));
	cl(fd);
	STAT("/g/sg");
	fd = F(openat(AT_FDCWD, "/p/sg", O_CREAT | O_RDWR, 02755));
	cl(fd);
	STAT("/p/sg");
	C(MKDIR("/p/sgd", 02755));
	STAT("/p/sgd");
	C(mkfile("/p/f", "x"));
	STAT("/p/f");
	fd = F(openat(AT_FDCWD, "/g", O_TMPFILE | O_RDWR, 02755));
	FSTAT(fd);
	cl(fd);
	ROOT();
	fd = F(openat(AT_FDCWD, "/g/rootsg", O_CREAT | O_RDWR, 02755));
	cl(fd);
	STAT("/g/rootsg");
	C(MKDIR("/g/rootd", 0755));
	STAT("/g/rootd");
}

static void utimens_perms(void)
{
	mk("/ww", 0, 0, 0666);
	mk("/ro", 0, 0, 0644);
	mk("/mine", 1000, 1000, 0444);
	struct timespec now2[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	struct timespec now_omit[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	struct timespec omit2[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	USER();
	C(utimensat(AT_FDCWD, "/ww", NULL, 0));
	C(utimensat(AT_FDCWD, "/ww", now2, 0));
	C(utimensat(AT_FDCWD, "/ww", now_omit, 0));
	C(utimensat(AT_FDCWD, "/ww", T_OLD, 0));
	C(utimensat(AT_FDCWD, "/ww", omit2, 0));
	C(utimensat(AT_FDCWD, "/ro", NULL, 0));
	C(utimensat(AT_FDCWD, "/ro", now2, 0));
	C(utimensat(AT_FDCWD, "/ro", T_OLD, 0));
	C(utimensat(AT_FDCWD, "/ro", omit2, 0));
	C(utimensat(AT_FDCWD, "/mine", NULL, 0));
	C(utimensat(AT_FDCWD, "/mine", T_OLD, 0));
	int fd = F(OPEN("/ww", O_RDWR));
	C(utimensat(fd, NULL, NULL, 0));
	C(utimensat(fd, NULL, T_OLD, 0));
	cl(fd);
	fd = F(OPEN("/ro", O_RDONLY));
	C(utimensat(fd, NULL, NULL, 0));
	cl(fd);
	ROOT();
	C(utimensat(AT_FDCWD, "/ro", T_OLD, 0));
	struct stat st;
	fstatat(AT_FDCWD, "/mine", &st, 0);
	C(st.st_mtim.tv_sec);
}

static void access_checks(void)
{
	mk("/r", 0, 0, 0644);
	mk("/x", 0, 0, 0755);
	mk("/g", 0, 1000, 0070);
	mk("/mine", 1000, 1000, 0070);
	mkd("/d", 0, 0, 0700);
	mk("/d/in", 0, 0, 0777);
	C(SYMLINK("r", "/l"));
	USER();
	C(ACCESS("/r", F_OK));
	C(ACCESS("/r", R_OK));
	C(ACCESS("/r", W_OK));
	C(ACCESS("/r", X_OK));
	C(ACCESS("/r", R_OK | W_OK));
	C(ACCESS("/x", R_OK | X_OK));
	C(ACCESS("/g", R_OK | W_OK | X_OK));
	C(ACCESS("/mine", R_OK));
	C(ACCESS("/d/in", F_OK));
	C(ACCESS("/d", F_OK));
	C(ACCESS("/missing", F_OK));
	C(faccessat(AT_FDCWD, "/r", R_OK, AT_EACCESS));
	C(faccessat(AT_FDCWD, "/r", W_OK, AT_EACCESS));
	C(faccessat(AT_FDCWD, "/l", W_OK, AT_SYMLINK_NOFOLLOW));
	C(faccessat(AT_FDCWD, "/l", W_OK, 0));
	C(faccessat(AT_FDCWD, "/r", 8, 0));
	C(faccessat(AT_FDCWD, "/r", R_OK, 0x4));
	C(faccessat(AT_FDCWD, "", R_OK, 0));
	int fd = F(OPEN("/r", O_RDONLY));
	C(faccessat(fd, "", R_OK, AT_EMPTY_PATH));
	C(faccessat(fd, "", W_OK, AT_EMPTY_PATH));
	cl(fd);
	ROOT();
	C(ACCESS("/r", W_OK));
	C(ACCESS("/r", X_OK));
	C(ACCESS("/g", X_OK));
	C(ACCESS("/d/in", X_OK));
}

static void noatime_perm(void)
{
	mk("/other", 0, 0, 0644);
	mk("/mine", 1000, 1000, 0644);
	USER();
	F(OPEN("/other", O_RDONLY | O_NOATIME));
	int fd = F(OPEN("/mine", O_RDONLY | O_NOATIME));
	cl(fd);
	fd = F(OPEN("/other", O_RDONLY));
	C(fcntl(fd, F_SETFL, O_NOATIME));
	C(fcntl(fd, F_GETFL, 0) & O_NOATIME);
	cl(fd);
	ROOT();
	fd = F(OPEN("/other", O_RDONLY | O_NOATIME));
	cl(fd);
}

static void perm_rename_dir(void)
{
	mkd("/a", 1000, 1000, 0755);
	mkd("/b", 1000, 1000, 0755);
	mkd("/a/rootdir", 0, 0, 0755);
	mkd("/a/mydir", 1000, 1000, 0755);
	mk("/a/rootfile", 0, 0, 0644);
	USER();
	C(RENAME("/a/rootdir", "/b/rootdir"));
	C(RENAME("/a/rootdir", "/a/renamed"));
	C(RENAME("/a/mydir", "/b/mydir"));
	C(RENAME("/a/rootfile", "/b/rootfile"));
	C(UNLINK("/b/rootfile"));
	C(RMDIR("/a/renamed"));
	ROOT();
	LS("/a");
	LS("/b");
}

static void perm_setcred_ids(void)
{
	C(MKDIR("/d", 0777));
	C(CHMOD("/d", 0777));
	C(setcred(1234, 5678));
	C(mkfile("/d/f", "x"));
	C(MKDIR("/d/s", 0777));
	C(SYMLINK("f", "/d/l"));
	STAT("/d/f");
	STAT("/d/s");
	STAT("/d/l");
	gid_t g[3] = { 10, 20, 30 };
	C(setgroups(3, g));
	C(mkfile("/d/g", "x"));
	STAT("/d/g");
	C(CHOWN("/d/g", -1, 20));
	STAT("/d/g");
	C(CHOWN("/d/g", -1, 40));
	C(setgroups(0, NULL));
	C(setcred(0, 0));
	C(mkfile("/d/r", "x"));
	STAT("/d/r");
}

static void perm_group_classes(void)
{
	mk("/gf", 0, 1000, 0604);
	mk("/of", 0, 2000, 0064);
	mk("/sup", 0, 3000, 0060);
	mk("/supr", 0, 3000, 0604);
	mkd("/gd", 0, 1000, 0705);
	mk("/gd/in", 0, 0, 0644);
	USER();
	/* the group class applies to a member even when others have more */
	F(OPEN("/gf", O_RDONLY));
	int fd = F(OPEN("/of", O_RDONLY));
	cl(fd);
	F(OPEN("/sup", O_RDONLY));
	STAT("/gd/in");
	gid_t g[1] = { 3000 };
	C(setgroups(1, g));
	fd = F(OPEN("/sup", O_RDWR));
	cl(fd);
	C(ACCESS("/sup", R_OK | W_OK));
	/* a supplementary group's class refuses what other grants (a FUSE
	 * server that fetches groups only after a refusal must still see it) */
	F(OPEN("/supr", O_RDONLY));
	C(ACCESS("/supr", R_OK));
	C(setgroups(0, NULL));
	fd = F(OPEN("/supr", O_RDONLY));
	cl(fd);
	F(OPEN("/sup", O_RDONLY));
	ROOT();
	/* the new gid from setcred is the primary group */
	C(setcred(1000, 3000));
	fd = F(OPEN("/sup", O_RDONLY));
	cl(fd);
	C(mkfile("/newf", "x"));
	ROOT();
	STAT("/newf");
}

/* Access is checked at open: a later chmod or credential change does not
 * affect an open fd, but lookups through a directory fd are checked anew. */
static void perm_checked_at_open(void)
{
	mkd("/d", 1000, 1000, 0755);
	mk("/d/f", 1000, 1000, 0644);
	USER();
	int w = F(OPEN("/d/f", O_RDWR));
	int dfd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(fchmod(w, 0));
	C(wr(w, "still"));
	char b[8] = { 0 };
	C(pread(w, b, 5, 0));
	F(OPEN("/d/f", O_RDONLY));
	C(CHMOD("/d", 0));
	F(openat(dfd, "f", O_PATH, 0));
	struct stat st;
	C(fstatat(dfd, "f", &st, 0));
	C(fstat(w, &st));
	char d[256];
	C(getdents64(dfd, d, sizeof d));
	C(fchdir(dfd));
	F(OPEN("f", O_PATH));
	C(CHMOD("/d", 0100));
	int p = F(OPEN("f", O_PATH));
	cl(p);
	C(chdir("/"));
	ROOT();
	/* an fd opened by root keeps working after dropping to a user */
	C(CHMOD("/d", 0700));
	C(CHOWN("/d", 0, 0));
	int r = F(OPEN("/d/f", O_RDWR));
	USER();
	C(pwrite(r, "R", 1, 0));
	F(OPEN("/d/f", O_RDONLY));
	C(fchmod(r, 0644));
	C(fchown(r, 0, 0));
	ROOT();
	CAT("/d/f");
	cl(w);
	cl(r);
	cl(dfd);
}

const struct scenario perms_scenarios[] = {
	{ "perm_file_rw", perm_file_rw },
	{ "perm_dir_search", perm_dir_search },
	{ "perm_root_override", perm_root_override },
	{ "sticky_dir", sticky_dir },
	{ "chmod_rules", chmod_rules },
	{ "chown_rules", chown_rules },
	{ "setgid_inherit", setgid_inherit },
	{ "utimens_perms", utimens_perms },
	{ "access_checks", access_checks },
	{ "noatime_perm", noatime_perm },
	{ "perm_rename_dir", perm_rename_dir },
	{ "perm_setcred_ids", perm_setcred_ids },
	{ "perm_group_classes", perm_group_classes },
	{ "perm_checked_at_open", perm_checked_at_open },
	{ NULL, NULL },
};
