// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-pathcache-rename: which changes keep the path cache's entries and
 * which kill them (issue 12, item 2, finer invalidation).  A rename of a
 * file or a directory no cached prefix went through must keep every entry
 * (the next lookup of a cached path inserts nothing: a hit); a rename of
 * a directory or a symlink on the way, and a mount or umount anywhere, must
 * kill them (the next lookup walks, gives the new answer and inserts).
 * A rename or removal of a directory or a symlink that only other cached
 * paths went through kills those (pathcache_kills counts them), not the
 * deep path's entries.
 * The answers themselves are the conformance suite's (pathcache.c, against
 * the host); here the cache's own counters tell hits from walks.
 */
#include "vfs.h"
#include "pathcache.h"
#include "check.h"
#include <fcntl.h>
#include <stdio.h>

#define DEEP "/src/a/b/c/d/e/f"

static struct uvfs *fs;
static struct uvfs_proc *p;

static unsigned long inserts(void)
{
	struct pathcache *pc = fs->pcache;
	pthread_mutex_lock(&pc->lock);
	unsigned long n = pc->inserts;
	pthread_mutex_unlock(&pc->lock);
	return n;
}

static long answer(const char *path)
{
	struct stat st;
	int r = uvfs_fstatat(p, AT_FDCWD, path, &st, 0);
	return r ? r : (long)st.st_ino;
}

static void mkfile(const char *path)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "%s: %d", path, fd);
	uvfs_close(p, fd);
}

static void mkdirs(const char *path)
{
	char buf[256];
	for (const char *s = path + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		snprintf(buf, sizeof buf, "%.*s", (int)(s - path), path);
		int r = uvfs_mkdirat(p, AT_FDCWD, buf, 0755);
		CHECK(r == 0 || r == -EEXIST, "%s: %d", buf, r);
		if (!*s)
			break;
	}
}

static void ren(const char *from, const char *to)
{
	int r = uvfs_renameat2(p, AT_FDCWD, from, AT_FDCWD, to, 0);
	CHECK(r == 0, "rename %s %s: %d", from, to, r);
}

/* The answers for the cached paths, and whether getting them inserted
 * (walked) or not (hit); each looked up twice, the second always a hit.
 * A walk that fails inserts nothing: there the answer (not the file's
 * inode, which a stale entry would give) is the proof. */
static void expect(const char *what, bool walked, long want_file, long want_rel)
{
	unsigned long before = inserts();
	long f = answer(DEEP "/file.c"), r = answer("a/b/c/d/e/f/file.c");
	unsigned long mid = inserts();
	CHECK(f == want_file, "%s: %s: %ld, want %ld", what, DEEP "/file.c", f, want_file);
	CHECK(r == want_rel, "%s: relative: %ld, want %ld", what, r, want_rel);
	CHECK(walked ? mid > before || want_file < 0 : mid == before, "%s: %lu inserts (%s)", what, mid - before,
	      walked ? "the entries had to die" : "the entries had to stay");
	CHECK(answer(DEEP "/file.c") == f && answer("a/b/c/d/e/f/file.c") == r && inserts() == mid,
	      "%s: the second lookups", what);
}

int main(void)
{
	fs = uvfs_create(NULL);
	p = uvfs_proc_create(fs, 0, 0);
	CHECK(fs && p, "");
#ifndef UVFS_NO_PATH_CACHE
	mkdirs(DEEP);
	mkdirs("/mnt");
	/* by single names: a walk of "/tmp/u/v" would cache "/tmp/u/", and
	 * a rename of u would then concern a cached prefix */
	CHECK(uvfs_mkdirat(p, AT_FDCWD, "/tmp", 0755) == 0, "");
	int tfd = uvfs_openat(p, AT_FDCWD, "/tmp", O_RDONLY | O_DIRECTORY, 0);
	CHECK(tfd >= 0 && uvfs_mkdirat(p, tfd, "u", 0755) == 0, "");
	int ufd = uvfs_openat(p, tfd, "u", O_RDONLY | O_DIRECTORY, 0);
	CHECK(ufd >= 0 && uvfs_mkdirat(p, ufd, "v", 0755) == 0, "");
	uvfs_close(p, ufd);
	mkfile(DEEP "/file.c");
	CHECK(uvfs_chdir(p, "/src") == 0, "");
	long ino = answer(DEEP "/file.c");
	CHECK(ino > 0, "%ld", ino);
	expect("first lookups", true, ino, ino);
	expect("nothing changed", false, ino, ino);

	/* the output of a compile, in the directory the path ends in */
	mkfile(DEEP "/file.o.tmp");
	ren(DEEP "/file.o.tmp", DEEP "/file.o");
	expect("a file renamed in the last directory", false, ino, ino);
	/* a lock file renamed into place in a directory on the way */
	mkfile("/src/a/index.lock");
	ren("/src/a/index.lock", "/src/a/index");
	expect("a file renamed in a directory on the way", false, ino, ino);
	/* a directory off every cached path, moved within, out and in */
	CHECK(uvfs_renameat2(p, tfd, "u", tfd, "w", 0) == 0, "");
	expect("a directory off the path", false, ino, ino);
	CHECK(uvfs_renameat2(p, tfd, "w", AT_FDCWD, "/src/a/b/w", 0) == 0, "");
	expect("a directory moved into one on the path", false, ino, ino);
	CHECK(uvfs_renameat2(p, AT_FDCWD, "/src/a/b/w", tfd, "w", 0) == 0, "");
	expect("a directory moved out of one on the path", false, ino, ino);
	uvfs_close(p, tfd);
	/* a file replaced by rename in a directory on the way */
	mkfile("/src/a/b/c/x");
	mkfile("/src/a/b/c/y");
	ren("/src/a/b/c/y", "/src/a/b/c/x");
	expect("a file replaced beside the path", false, ino, ino);

	/* Directories and a symlink other cached paths went through: renamed,
	 * removed, unlinked.  Their own entries die (their answers change),
	 * the deep path's stay: invalidation follows the dentries an entry
	 * went through, not one count for the whole cache. */
	mkdirs("/o/p/q");
	mkdirs("/o/r/s");
	mkfile("/o/p/q/x");
	CHECK(uvfs_symlinkat(p, "/o/p", AT_FDCWD, "/lnk") == 0, "");
	long xino = answer("/o/p/q/x");
	CHECK(xino > 0 && answer("/lnk/q/x") == xino && answer("/o/r/s/missing") == -ENOENT, "");
	unsigned long kills = pathcache_kills(fs), n0 = inserts();
	CHECK(answer("/o/p/q/x") == xino && answer("/lnk/q/x") == xino && inserts() == n0, "the other paths cached");
	ren("/o/p", "/o/p2");
	CHECK(answer("/o/p/q/x") == -ENOENT && answer("/o/p2/q/x") == xino && answer("/lnk/q/x") == -ENOENT,
	      "after the rename of /o/p");
	CHECK(pathcache_kills(fs) > kills, "the entries through /o/p died (%lu)", pathcache_kills(fs) - kills);
	expect("a directory another cached path went through renamed", false, ino, ino);
	CHECK(uvfs_unlinkat(p, AT_FDCWD, "/o/r/s", AT_REMOVEDIR) == 0, "");
	CHECK(uvfs_unlinkat(p, AT_FDCWD, "/o/r", AT_REMOVEDIR) == 0, "");
	CHECK(answer("/o/r/s/missing") == -ENOENT, "");
	expect("directories another cached path went through removed", false, ino, ino);
	CHECK(uvfs_unlinkat(p, AT_FDCWD, "/lnk", 0) == 0, "");
	CHECK(uvfs_symlinkat(p, "/o/p2", AT_FDCWD, "/lnk") == 0, "");
	CHECK(answer("/lnk/q/x") == xino, "the symlink replaced");
	expect("a symlink another cached path went through replaced", false, ino, ino);
	/* the renamed directory's new paths are cached afresh, and its rename
	 * back kills them */
	n0 = inserts();
	CHECK(answer("/o/p2/q/x") == xino && inserts() == n0, "a hit");
	ren("/o/p2", "/o/p");
	CHECK(answer("/o/p2/q/x") == -ENOENT && answer("/o/p/q/x") == xino && answer("/lnk/q/x") == -ENOENT, "");
	expect("renamed back", false, ino, ino);

	/* a directory on the way: the paths go, and come back fresh */
	ren("/src/a/b/c", "/src/a/b/c2");
	expect("a directory on the way moved", true, -ENOENT, -ENOENT);
	ren("/src/a/b/c2", "/src/a/b/c");
	expect("moved back", true, ino, ino);
	/* the cwd's directory itself: only the absolute path changes */
	ren("/src", "/src2");
	expect("the start of the relative path moved", true, -ENOENT, ino);
	ren("/src2", "/src");
	expect("moved back", true, ino, ino);
	/* a mount off the path, then over a directory on it */
	CHECK(uvfs_mount(p, "none", "/mnt", "tmpfs", 0, NULL) == 0, "");
	expect("a mount off the path", true, ino, ino);
	CHECK(uvfs_mount(p, "none", "/src/a/b/c/d", "tmpfs", 0, NULL) == 0, "");
	expect("a mount over the path", true, -ENOENT, -ENOENT);
	CHECK(uvfs_umount2(p, "/src/a/b/c/d", 0) == 0, "");
	expect("its umount", true, ino, ino);
	CHECK(uvfs_umount2(p, "/mnt", 0) == 0, "");
	expect("an umount off the path", true, ino, ino);
#else
	CHECK(!fs->pcache, "no cache built");
#endif
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return check_done();
}
