/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pathcache.c - the same long path looked up before and after a change of
 * one of its prefixes (issue 12, item 2): uvfs answers the second lookup
 * from its path cache unless the change invalidated it, so each change a
 * cached prefix depends on is made here between two lookups and every
 * answer compared with the host's.  Each lookup runs twice (the first may
 * fill the cache, the second is served by it). */
#include "conf.h"
#include <linux/openat2.h>

#define DEEP "/a/b/c/d/e/f/g"

static void tree(void)
{
	C(MKDIR("/a", 0755));
	C(MKDIR("/a/b", 0755));
	C(MKDIR("/a/b/c", 0755));
	C(MKDIR("/a/b/c/d", 0755));
	C(MKDIR("/a/b/c/d/e", 0755));
	C(MKDIR("/a/b/c/d/e/f", 0755));
	C(MKDIR("/a/b/c/d/e/f/g", 0755));
	C(mkfile(DEEP "/file", "deep"));
}

/* stat, stat following links, access and open of one path, twice */
static void look(const char *p)
{
	for (int i = 0; i < 2; i++) {
		STAT(p);
		STATF(p);
		C(ACCESS(p, F_OK));
		int fd = F(OPEN(p, O_RDONLY));
		cl(fd);
	}
}

static void pc_rename_middle(void)
{
	tree();
	look(DEEP "/file");
	look(DEEP "/missing");
	C(RENAME("/a/b/c", "/a/b/x"));
	look(DEEP "/file");
	look("/a/b/x/d/e/f/g/file");
	/* back, and a directory of the same name in between */
	C(MKDIR("/a/b/c", 0755));
	look(DEEP "/file");
	C(RMDIR("/a/b/c"));
	C(RENAME("/a/b/x", "/a/b/c"));
	look(DEEP "/file");
	/* replaced by another tree (rename over an empty directory) */
	C(MKDIR("/t", 0755));
	C(MKDIR("/t/d", 0755));
	C(RENAME("/a/b/c/d", "/t/d2"));
	C(RENAME("/t/d", "/a/b/c/d"));
	look(DEEP "/file");
	look("/t/d2/e/f/g/file");
	/* exchanged */
	C(RENAME2("/a/b/c/d", "/t/d2", RENAME_EXCHANGE));
	look(DEEP "/file");
	look("/t/d2/e/f/g/file");
}

static void pc_chmod_parent(void)
{
	tree();
	C(CHOWN("/a/b/c", 1000, 1000));
	C(setcred(1000, 1000));
	look(DEEP "/file");
	/* the same credentials before and after: only the mode moved */
	C(CHMOD("/a/b/c", 0));
	look(DEEP "/file");
	look(DEEP "/missing");
	C(CHMOD("/a/b/c", 0644)); /* read but no search */
	look(DEEP "/file");
	C(CHMOD("/a/b/c", 0711));
	look(DEEP "/file");
	C(CHMOD("/a/b/c", 0700));
	look(DEEP "/file");
	C(setcred(0, 0));
	/* owner and group */
	C(CHOWN("/a/b/c", 2000, 1000));
	C(CHMOD("/a/b/c", 0070));
	C(setcred(1000, 1000));
	look(DEEP "/file");
	C(setcred(0, 0));
	C(CHOWN("/a/b/c", 2000, 2000));
	C(setcred(1000, 1000));
	look(DEEP "/file");
	C(setcred(0, 0));
	/* the last directory, whose search the last step checks */
	C(CHMOD(DEEP, 0700));
	C(setcred(1000, 1000));
	look(DEEP "/file");
}

static void pc_mount_over_parent(void)
{
	tree();
	look(DEEP "/file");
	C(TMPFS("/a/b/c", 0, NULL));
	look(DEEP "/file");
	C(MKDIR("/a/b/c/d", 0755));
	C(MKDIR("/a/b/c/d/e", 0755));
	C(MKDIR("/a/b/c/d/e/f", 0755));
	C(MKDIR("/a/b/c/d/e/f/g", 0755));
	C(mkfile(DEEP "/file", "upper"));
	look(DEEP "/file");
	CAT(DEEP "/file");
	C(umount2("/a/b/c", 0));
	look(DEEP "/file");
	CAT(DEEP "/file");
	/* a mount under the path, then lazily gone while a cwd is in it */
	C(TMPFS("/a/b/c/d/e", 0, NULL));
	look(DEEP "/file");
	C(MKDIR("/a/b/c/d/e/f", 0755));
	C(chdir("/a/b/c/d/e/f"));
	look("../f/../../e/f");
	C(umount2("/a/b/c/d/e", MNT_DETACH));
	look(DEEP "/file");
	look("../f/../../e/f");
	C(chdir("/"));
}

static void pc_symlink_replaced(void)
{
	tree();
	C(MKDIR("/z", 0755));
	C(MKDIR("/z/c", 0755));
	C(MKDIR("/z/c/d", 0755));
	C(mkfile("/z/c/d/file", "other"));
	C(MKDIR("/a/b/c/d/file", 0755)); /* the same name, a directory there */
	C(SYMLINK("/a/b", "/l"));
	look("/l/c/d/file");
	C(UNLINK("/l"));
	look("/l/c/d/file");
	C(SYMLINK("/z", "/l"));
	look("/l/c/d/file");
	CAT("/l/c/d/file");
	/* replaced by rename, with a relative body */
	C(SYMLINK("a/b", "/l2"));
	C(RENAME("/l2", "/l"));
	look("/l/c/d/file");
	/* a link in the middle of the path, its target moved under it */
	C(SYMLINK("../../../z/c", "/a/b/c/m"));
	look("/a/b/c/m/d/file");
	C(RENAME("/z", "/z2"));
	look("/a/b/c/m/d/file");
	C(RENAME("/z2", "/z"));
	look("/a/b/c/m/d/file");
	/* the link replaced by a directory of the same name */
	C(UNLINK("/a/b/c/m"));
	C(MKDIR("/a/b/c/m", 0755));
	look("/a/b/c/m/d/file");
}

static void pc_chroot_chdir(void)
{
	tree();
	C(SYMLINK("/b/c", "/a/abs"));
	look(DEEP "/file");
	look("/a/abs/d/e/f/g/file");
	C(chdir("/a/b"));
	look("c/d/e/f/g/file");
	look("../b/c/d/../d/e/f/g/file");
	C(chroot("/a"));
	look(DEEP "/file");
	look("/b/c/d/e/f/g/file");
	/* an absolute body now starts at the new root */
	look("/abs/d/e/f/g/file");
	/* the cwd stays outside the new root, and ".." climbs from it */
	look("c/d/e/f/g/file");
	look("../../../a/b/c/d/e/f/g/file");
	C(chdir("/b/c/d"));
	look("e/f/g/file");
	look("../../../../../../b/c/d/e/f/g/file");
}

/* two procs, one cache: each answer is its own credentials' */
static void pc_other_proc_creds(void)
{
	tree();
	C(CHMOD("/a/b/c", 0700));
	look(DEEP "/file");
	C(proc_clone(0));
	C(proc_use(1));
	C(setcred(1000, 1000));
	look(DEEP "/file");
	C(proc_use(0));
	look(DEEP "/file");
	C(CHMOD("/a/b/c", 0755));
	C(proc_use(1));
	look(DEEP "/file");
	C(proc_use(0));
	C(CHMOD("/a/b/c", 0700));
	C(proc_use(1));
	look(DEEP "/file");
	/* another uid in the same group list as before: another credential */
	C(setcred(1001, 1000));
	look(DEEP "/file");
	C(proc_use(0));
	C(proc_destroy(1));
	look(DEEP "/file");
}

static void pc_final_replaced(void)
{
	tree();
	look(DEEP "/file");
	C(UNLINK(DEEP "/file"));
	look(DEEP "/file");
	C(mkfile(DEEP "/file", "again"));
	look(DEEP "/file");
	CAT(DEEP "/file");
	C(UNLINK(DEEP "/file"));
	C(MKDIR(DEEP "/file", 0700));
	look(DEEP "/file");
	look(DEEP "/file/");
	C(RMDIR(DEEP "/file"));
	C(SYMLINK("/a/b", DEEP "/file"));
	look(DEEP "/file");
	look(DEEP "/file/");
	/* the same names again, all of them new */
	C(UNLINK(DEEP "/file"));
	C(RMDIR("/a/b/c/d/e/f/g"));
	C(RMDIR("/a/b/c/d/e/f"));
	C(RMDIR("/a/b/c/d/e"));
	look(DEEP "/file");
	C(MKDIR("/a/b/c/d/e", 0700));
	C(MKDIR("/a/b/c/d/e/f", 0700));
	C(MKDIR("/a/b/c/d/e/f/g", 0700));
	C(mkfile(DEEP "/file", "new"));
	look(DEEP "/file");
	CAT(DEEP "/file");
}

/* the walk's rules at the end of a cached prefix */
static void pc_walk_rules(void)
{
	tree();
	C(SYMLINK("file", DEEP "/lnk"));
	C(SYMLINK("lnk", DEEP "/lnk2"));
	C(SYMLINK(".", "/a/s"));
	look(DEEP "/lnk");
	look(DEEP "/lnk2");
	look(DEEP "/lnk/");
	look(DEEP "/file/");
	look(DEEP "/file/.");
	look(DEEP "/.");
	look(DEEP "/..");
	look(DEEP "//file");
	look("/a//b/./c/../c/d/e/f/g/file");
	for (int i = 0; i < 2; i++) {
		C(openat(AT_FDCWD, DEEP "/lnk", O_RDONLY | O_NOFOLLOW, 0));
		C(openat(AT_FDCWD, DEEP "/file", O_CREAT | O_EXCL | O_WRONLY, 0644));
		int fd = F(openat(AT_FDCWD, DEEP "/new", O_CREAT | O_EXCL | O_WRONLY, 0644));
		cl(fd);
		C(UNLINK(DEEP "/new"));
		C(openat(AT_FDCWD, DEEP "/lnk/", O_CREAT | O_WRONLY, 0644));
		READLINK(DEEP "/lnk2");
	}
	/*
	 * the prefix's count and the last one's add up: n links to reach g, n + 2
	 * to follow lnk2 (n to stat it without following); only counts with one
	 * host answer (conf.h, "Symlink counts")
	 */
	char p[512];
	static const int ns[] = { 16, 17, 18, 41, 42 };
	for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		int n = ns[k];
		int len = snprintf(p, sizeof p, "/a");
		for (int i = 0; i < n; i++)
			len += snprintf(p + len, sizeof p - len, "/s");
		snprintf(p + len, sizeof p - len, "/b/c/d/e/f/g/lnk2");
		look(p);
		snprintf(p + len, sizeof p - len, "/b/c/d/e/f/g/file");
		look(p);
	}
	/* a file in the middle */
	look(DEEP "/file/x");
	look(DEEP "/file/x/y");
}

#define setxattr(p, n, v, s, f) B->setxattr(BX, p, n, v, s, f)
#define removexattr(p, n) B->removexattr(BX, p, n)

/* system.posix_acl_access with user::rwx, user:1000:perm, group::r-x,
 * mask::perm|r, other::--- (perm 0 or 1: search) */
static int set_acl_1000(const char *path, unsigned perm)
{
	const unsigned e[5][3] = { { 1, 7, 0 }, { 2, perm, 1000 }, { 4, 5, 0 }, { 0x10, perm | 4, 0 }, { 0x20, 0, 0 } };
	unsigned char b[4 + 8 * 5] = { 2 };
	for (int i = 0; i < 5; i++) {
		unsigned char *q = b + 4 + 8 * i;
		q[0] = (unsigned char)e[i][0];
		q[2] = (unsigned char)e[i][1];
		q[4] = (unsigned char)e[i][2];
		q[5] = (unsigned char)(e[i][2] >> 8);
	}
	return setxattr(path, "system.posix_acl_access", b, sizeof b, 0);
}

/* an access ACL on a parent, changed by another proc between two lookups
 * of the same proc (the same credentials) */
static void pc_acl_parent(void)
{
	tree();
	C(CHMOD("/a/b/c", 0700));
	C(proc_clone(0));
	C(proc_use(1));
	C(setcred(1000, 1000));
	look(DEEP "/file");
	C(proc_use(0));
	C(set_acl_1000("/a/b/c", 1));
	STAT("/a/b/c");
	C(proc_use(1));
	look(DEEP "/file");
	C(proc_use(0));
	C(set_acl_1000("/a/b/c", 0));
	C(proc_use(1));
	look(DEEP "/file");
	C(proc_use(0));
	C(set_acl_1000("/a/b/c", 1));
	C(proc_use(1));
	look(DEEP "/file");
	C(proc_use(0));
	C(removexattr("/a/b/c", "system.posix_acl_access"));
	STAT("/a/b/c");
	C(proc_use(1));
	look(DEEP "/file");
	C(proc_use(0));
	C(proc_destroy(1));
}

static int o2(int dfd, const char *p, unsigned long long resolve)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = resolve };
	int fd = openat2(dfd, p, &how, sizeof how);
	if (fd >= 0)
		cl(fd);
	return fd < 0 ? fd : 0;
}

/* RESOLVE_* take the component walk, after the same path was cached */
static void pc_resolve(void)
{
	tree();
	C(SYMLINK("/a/b/c", "/a/b/abs"));
	C(SYMLINK("../c", "/a/b/c/rel"));
	int dfd = F(OPEN("/a/b", O_RDONLY | O_DIRECTORY));
	for (int i = 0; i < 2; i++) {
		STATAT(dfd, "c/d/e/f/g/file", 0);
		STATAT(dfd, "abs/d/e/f/g/file", 0);
		STATAT(dfd, "c/rel/d/e/f/g/file", 0);
		C(o2(dfd, "c/d/e/f/g/file", RESOLVE_BENEATH));
		C(o2(dfd, "abs/d/e/f/g/file", RESOLVE_BENEATH));
		C(o2(dfd, "abs/d/e/f/g/file", RESOLVE_IN_ROOT));
		C(o2(dfd, "c/rel/d/e/f/g/file", RESOLVE_NO_SYMLINKS));
		C(o2(dfd, "c/rel/d/e/f/g/file", RESOLVE_BENEATH));
		C(o2(dfd, "../b/c/d/e/f/g/file", RESOLVE_BENEATH));
		C(o2(AT_FDCWD, DEEP "/file", RESOLVE_NO_XDEV));
	}
	C(TMPFS("/a/b/c/d", 0, NULL));
	for (int i = 0; i < 2; i++) {
		C(o2(AT_FDCWD, "/a/b/c/d/.", RESOLVE_NO_XDEV));
		C(o2(dfd, "c/d/.", 0));
		C(o2(dfd, "c/d/.", RESOLVE_NO_XDEV));
	}
	C(umount2("/a/b/c/d", 0));
	/* the directory fd follows its directory through a rename */
	C(RENAME("/a/b", "/q"));
	for (int i = 0; i < 2; i++) {
		STATAT(dfd, "c/d/e/f/g/file", 0);
		STATAT(dfd, "abs/d/e/f/g/file", 0);
	}
	cl(dfd);
}

/* Renames a cached path does not go through leave its answers as they were
 * (uvfs keeps its entries for them), and the ones it goes through, however
 * they reach it, change them: each between two lookups of the same paths. */
static void pc_rename_unrelated(void)
{
	tree();
	C(MKDIR("/tmp", 0755));
	C(MKDIR("/tmp/u", 0755));
	C(MKDIR("/tmp/u/v", 0755));
	C(SYMLINK("/a/b/c", "/l"));
	int dfd = F(OPEN("/a/b/c/d", O_RDONLY | O_DIRECTORY));
	look(DEEP "/file");
	look("/l/d/e/f/g/file");
	STATAT(dfd, "e/f/g/file", 0);
	STATAT(dfd, "../d/e/f/g/file", 0);
	/* a compiler's -o: a temporary file renamed over the output, in the
	 * directory the path ends in and in one on its way */
	C(mkfile(DEEP "/out.o.tmp", "1"));
	C(RENAME(DEEP "/out.o.tmp", DEEP "/out.o"));
	look(DEEP "/file");
	look(DEEP "/out.o");
	C(mkfile("/a/b/c/index.lock", "2"));
	C(RENAME("/a/b/c/index.lock", "/a/b/c/index"));
	look(DEEP "/file");
	look("/l/d/e/f/g/file");
	/* a directory off the path, moved about, and into a directory on it */
	C(RENAME("/tmp/u", "/tmp/w"));
	look(DEEP "/file");
	C(RENAME("/tmp/w/v", "/a/b/c/d/v"));
	look(DEEP "/file");
	look("/a/b/c/d/v/../e/f/g/file");
	STATAT(dfd, "v/../e/f/g/file", 0);
	C(RENAME("/a/b/c/d/v", "/tmp/v"));
	look("/a/b/c/d/v/../e/f/g/file");
	STATAT(dfd, "v/../e/f/g/file", 0);
	/* a file renamed over the symlink on the way: ENOTDIR */
	C(mkfile("/lfile", "3"));
	C(RENAME("/lfile", "/l"));
	look("/l/d/e/f/g/file");
	C(SYMLINK("/a/b/c", "/l.new"));
	C(RENAME("/l.new", "/l"));
	look("/l/d/e/f/g/file");
	/* the directory fd's own directory moved: ".." is its new parent */
	C(MKDIR("/tmp/v/e", 0755));
	C(MKDIR("/tmp/v/e/f", 0755));
	C(MKDIR("/tmp/v/e/f/g", 0755));
	C(mkfile("/tmp/v/e/f/g/file", "other"));
	STATAT(dfd, "../d/e/f/g/file", 0);
	STATAT(dfd, "../v/e/f/g/file", 0);
	C(RENAME("/a/b/c/d", "/tmp/v/d"));
	STATAT(dfd, "e/f/g/file", 0);
	STATAT(dfd, "../d/e/f/g/file", 0);
	STATAT(dfd, "../v/e/f/g/file", 0);
	STATAT(dfd, "../e/f/g/file", 0);
	look(DEEP "/file");
	look("/tmp/v/d/e/f/g/file");
	/* a directory on the path exchanged with one off it, and back */
	C(RENAME("/tmp/v/d", "/a/b/c/d"));
	look(DEEP "/file");
	C(RENAME2("/a/b/c/d/e", "/tmp/v/e", RENAME_EXCHANGE));
	look(DEEP "/file");
	CAT(DEEP "/file");
	STATAT(dfd, "e/f/g/file", 0);
	C(RENAME2("/a/b/c/d/e", "/tmp/v/e", RENAME_EXCHANGE));
	look(DEEP "/file");
	CAT(DEEP "/file");
	cl(dfd);
}

/* Directories and a symlink that other cached paths went through renamed,
 * removed and replaced (issue 12: an entry dies with a dentry it went
 * through, the others stay): each path, the deep one, the other ones and
 * their new names, looked up between the changes. */
static void pc_rename_other_paths(void)
{
	tree();
	C(MKDIR("/o", 0755));
	C(MKDIR("/o/p", 0755));
	C(MKDIR("/o/p/q", 0755));
	C(MKDIR("/o/r", 0755));
	C(MKDIR("/o/r/s", 0755));
	C(mkfile("/o/p/q/x", "x"));
	C(SYMLINK("/o/p", "/lnk"));
	int dfd = F(OPEN("/o/p", O_RDONLY | O_DIRECTORY));
	look(DEEP "/file");
	look("/o/p/q/x");
	look("/lnk/q/x");
	look("/o/r/s/missing");
	STATAT(dfd, "q/x", 0);
	STATAT(dfd, "../p/q/x", 0);
	C(RENAME("/o/p", "/o/p2"));
	look(DEEP "/file");
	look("/o/p/q/x");
	look("/o/p2/q/x");
	look("/lnk/q/x");
	STATAT(dfd, "q/x", 0);
	STATAT(dfd, "../p2/q/x", 0);
	STATAT(dfd, "../p/q/x", 0);
	/* removed: the prefix's directories, then made again */
	C(RMDIR("/o/r/s"));
	look("/o/r/s/missing");
	look(DEEP "/file");
	C(RMDIR("/o/r"));
	look("/o/r/s/missing");
	C(MKDIR("/o/r", 0755));
	C(MKDIR("/o/r/s", 0755));
	C(mkfile("/o/r/s/missing", "now"));
	look("/o/r/s/missing");
	CAT("/o/r/s/missing");
	/* the symlink replaced by one to the renamed directory, then removed */
	C(UNLINK("/lnk"));
	C(SYMLINK("/o/p2", "/lnk"));
	look("/lnk/q/x");
	look(DEEP "/file");
	C(UNLINK("/lnk"));
	look("/lnk/q/x");
	/* a directory inside the renamed one, renamed out of it */
	C(RENAME("/o/p2/q", "/o/q"));
	look("/o/p2/q/x");
	look("/o/q/x");
	STATAT(dfd, "q/x", 0);
	look(DEEP "/file");
	/* back where it all was */
	C(RENAME("/o/q", "/o/p2/q"));
	C(RENAME("/o/p2", "/o/p"));
	look("/o/p/q/x");
	look("/o/p2/q/x");
	STATAT(dfd, "q/x", 0);
	STATAT(dfd, "../p/q/x", 0);
	look(DEEP "/file");
	cl(dfd);
}

/* One name after the root, which getname measures and hashes from one word
 * when it has 1 to 7 bytes: every length around that word, and what is
 * not one name. */
static void pc_root_names(void)
{
	static const char *const names[] = { "/a", "/abcdefg", "/abcdefgh", "/abcdefghijklmno", "/abcdefghijklmnop" };
	for (int i = 0; i < 5; i++)
		C(mkfile(names[i], "x"));
	C(SYMLINK("a", "/lnk"));
	C(MKDIR("/dir", 0755));
	static const char *const looks[] = { "/a", "/abcdefg", "/abcdefgh", "/abcdefghijklmno", "/abcdefghijklmnop",
					     "/abcdef", "/abcdefgx", "/b", "/", "/.", "/..", "//a", "/a/", "/dir/",
					     "/lnk", "/lnk/", "/dir/..", "/\xff\xfe" };
	for (unsigned i = 0; i < sizeof(looks) / sizeof(looks[0]); i++)
		look(looks[i]);
	C(UNLINK("/abcdefg"));
	look("/abcdefg");
	C(RENAME("/abcdefgh", "/abcdefg"));
	look("/abcdefg");
	look("/abcdefgh");
}

const struct scenario pathcache_scenarios[] = {
	{ "pc_rename_middle", pc_rename_middle },
	{ "pc_rename_unrelated", pc_rename_unrelated },
	{ "pc_rename_other_paths", pc_rename_other_paths },
	{ "pc_root_names", pc_root_names },
	{ "pc_chmod_parent", pc_chmod_parent },
	{ "pc_mount_over_parent", pc_mount_over_parent },
	{ "pc_symlink_replaced", pc_symlink_replaced },
	{ "pc_chroot_chdir", pc_chroot_chdir },
	{ "pc_other_proc_creds", pc_other_proc_creds, NEEDS_PROCS },
	{ "pc_final_replaced", pc_final_replaced },
	{ "pc_walk_rules", pc_walk_rules },
	{ "pc_resolve", pc_resolve },
	{ "pc_acl_parent", pc_acl_parent, NEEDS_PROCS },
	{ NULL, NULL },
};
