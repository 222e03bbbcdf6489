// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stress-pathcache: lookups of deep paths racing changes of their prefixes,
 * each result checked against the invariant that a path that resolves
 * resolves to what its components name at some instant (issue 12, item 2).
 *
 * The tree: /r/A/B and /r/A/B2 each hold C/D/E/F/file, two different
 * files X and Y.  While walkers look up
 *     /r/A/B/C/D/E/F/file, /r/L/C/D/E/F/file (L a symlink) and, from the
 *     cwd /r/A, B/C/D/E/F/file,
 * one thread exchanges B and B2 (RENAME_EXCHANGE: /r/A/B always exists),
 * one flips the mode of /r/A/B/C between 0755 and 0700 (root's: the uid
 * 1000 walker is refused, the root one never), and one replaces L by a
 * link to "A/B" or "A/B2" (rename over it: L always exists), and one
 * renames what the cached paths do not go through: a temporary file in
 * /r/A over another (a compiler's -o), and /r/U/d1 to /r/U/d2 and back
 * beside /r/U/keep, which a rename no longer empties the cache for.  The
 * walkers also look up /r/U/keep/K/file (always the file K) and
 * /r/U/d1/K/file (the file M, or ENOENT while d1 is d2).  And one removes
 * and makes again /r/T/a/b/f with its directories (unlink and rmdir: no
 * rename_seq to fail a walk, only the kill of the entries through a and
 * b and an insertion's mark check keep a prefix off the dead b), looked
 * up as /r/T/a/b/f (a file, or ENOENT).  Every answer on
 * the first three paths must be X or Y, or EACCES for the uid 1000
 * walker, and never ENOENT.
 * Between rounds everything stops and each walker's answer must be exactly
 * what the tree then says: an entry the cache kept past a change would
 * show there.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>

#define ROUNDS 12
#define LOOKUPS 1500 /* per walker and round */

static struct uvfs *fs;
static ino_t ino_x, ino_y, ino_k, ino_m;
static int stop;
static unsigned long bad;

static ino_t ino_of(struct uvfs_proc *p, const char *path)
{
	struct stat st;
	return uvfs_fstatat(p, AT_FDCWD, path, &st, 0) ? 0 : st.st_ino;
}

static void mktree(struct uvfs_proc *p, const char *top, ino_t *file)
{
	char path[128];
	static const char *const sub[] = { "/C", "/C/D", "/C/D/E", "/C/D/E/F" };
	CHECK(uvfs_mkdirat(p, AT_FDCWD, top, 0755) == 0, "%s", top);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s%s", top, sub[i]);
		CHECK(uvfs_mkdirat(p, AT_FDCWD, path, 0755) == 0, "%s", path);
	}
	snprintf(path, sizeof path, "%s/C/D/E/F/file", top);
	int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "%s", path);
	uvfs_close(p, fd);
	*file = ino_of(p, path);
}

struct walker {
	struct uvfs_proc *p;
	bool root;
	pthread_t t;
	unsigned long done;
};

#define NPATHS 6
static const char *const paths[NPATHS] = { "/r/A/B/C/D/E/F/file", "/r/L/C/D/E/F/file", "B/C/D/E/F/file",
					   "/r/U/keep/K/file", "/r/U/d1/K/file", "/r/T/a/b/f" };

static bool allowed(const struct walker *w, int i, long r)
{
	if (i == 3)
		return r == (long)ino_k;
	if (i == 4)
		return r == (long)ino_m || r == -ENOENT;
	if (i == 5)
		return r > 0 || r == -ENOENT;
	return r == (long)ino_x || r == (long)ino_y || (!w->root && r == -EACCES);
}

static long look(struct uvfs_proc *p, const char *path)
{
	struct stat st;
	int r = uvfs_fstatat(p, AT_FDCWD, path, &st, 0);
	return r ? r : (long)st.st_ino;
}

static void *walk(void *arg)
{
	struct walker *w = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < NPATHS; i++) {
			long r = look(w->p, paths[i]);
			if (!allowed(w, i, r) && __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED) < 5)
				printf("FAIL walker %s: %s -> %ld\n", w->root ? "root" : "1000", paths[i], r);
		}
		__atomic_fetch_add(&w->done, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *exchanger(void *arg)
{
	struct uvfs_proc *p = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		if (uvfs_renameat2(p, AT_FDCWD, "/r/A/B", AT_FDCWD, "/r/A/B2", RENAME_EXCHANGE))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *chmoder(void *arg)
{
	struct uvfs_proc *p = arg;
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++)
		if (uvfs_fchmodat(p, AT_FDCWD, "/r/A/B/C", i & 1 ? 0700 : 0755, 0))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *linker(void *arg)
{
	struct uvfs_proc *p = arg;
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
		if (uvfs_symlinkat(p, i & 1 ? "A/B2" : "A/B", AT_FDCWD, "/r/L.new") ||
		    uvfs_renameat2(p, AT_FDCWD, "/r/L.new", AT_FDCWD, "/r/L", 0))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static unsigned renames; /* the renamer's, across rounds: odd while d1 is d2 */

static void *renamer(void *arg)
{
	struct uvfs_proc *p = arg;
	for (unsigned i = renames; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); renames = ++i) {
		int fd = uvfs_openat(p, AT_FDCWD, "/r/A/t.new", O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || uvfs_close(p, fd) || uvfs_renameat2(p, AT_FDCWD, "/r/A/t.new", AT_FDCWD, "/r/A/t.o", 0) ||
		    uvfs_renameat2(p, AT_FDCWD, i & 1 ? "/r/U/d2" : "/r/U/d1", AT_FDCWD, i & 1 ? "/r/U/d1" : "/r/U/d2",
				   0))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* /r/T/a/b/f and its directories made, or removed; made when it stops */
static int make_t(struct uvfs_proc *p)
{
	if (uvfs_mkdirat(p, AT_FDCWD, "/r/T/a", 0755) || uvfs_mkdirat(p, AT_FDCWD, "/r/T/a/b", 0755))
		return -1;
	int fd = uvfs_openat(p, AT_FDCWD, "/r/T/a/b/f", O_CREAT | O_WRONLY, 0644);
	return fd < 0 || uvfs_close(p, fd) ? -1 : 0;
}

static void *remover(void *arg)
{
	struct uvfs_proc *p = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		if (uvfs_unlinkat(p, AT_FDCWD, "/r/T/a/b/f", 0) || uvfs_unlinkat(p, AT_FDCWD, "/r/T/a/b", AT_REMOVEDIR) ||
		    uvfs_unlinkat(p, AT_FDCWD, "/r/T/a", AT_REMOVEDIR) || make_t(p))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* The component walk's answer (RESOLVE_NO_XDEV keeps the path cache out),
 * as the truth the cache's answers are held to: the inode, or its mode. */
static long truth(struct uvfs_proc *admin, const char *path, bool mode)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_NO_XDEV };
	int fd = uvfs_openat2(admin, AT_FDCWD, path, &how, sizeof how);
	if (fd < 0)
		return fd;
	struct stat st;
	int r = uvfs_fstat(admin, fd, &st);
	uvfs_close(admin, fd);
	return r ? r : mode ? (long)st.st_mode : (long)st.st_ino;
}

/* Quiescent: what each path must give now, from the tree's own state. */
static long expected(struct uvfs_proc *admin, const struct walker *w, int i)
{
	char base[32] = "/r/A/B", path[64];
	if (i >= 3)
		return truth(admin, paths[i], false);
	if (i == 1) {
		long n = uvfs_readlinkat(admin, AT_FDCWD, "/r/L", base + 3, sizeof base - 4);
		if (n < 0)
			return -1000;
		base[3 + n] = 0;
	}
	snprintf(path, sizeof path, "%s/C", base);
	long mode = truth(admin, path, true);
	if (mode < 0)
		return -1001;
	if (!w->root && !(mode & 0001))
		return -EACCES;
	snprintf(path, sizeof path, "%s/C/D/E/F/file", base);
	return truth(admin, path, false);
}

int main(void)
{
	fs = uvfs_create(NULL);
	struct uvfs_proc *admin = uvfs_proc_create(fs, 0, 0);
	CHECK(uvfs_mkdirat(admin, AT_FDCWD, "/r", 0755) == 0, "");
	CHECK(uvfs_mkdirat(admin, AT_FDCWD, "/r/A", 0755) == 0, "");
	mktree(admin, "/r/A/B", &ino_x);
	mktree(admin, "/r/A/B2", &ino_y);
	CHECK(uvfs_symlinkat(admin, "A/B", AT_FDCWD, "/r/L") == 0, "");
	CHECK(ino_x && ino_y && ino_x != ino_y, "");
	CHECK(uvfs_mkdirat(admin, AT_FDCWD, "/r/U", 0755) == 0, "");
	static const char *const u[] = { "/r/U/keep", "/r/U/keep/K", "/r/U/d1", "/r/U/d1/K" };
	for (int i = 0; i < 4; i++)
		CHECK(uvfs_mkdirat(admin, AT_FDCWD, u[i], 0755) == 0, "%s", u[i]);
	static const char *const f[] = { "/r/U/keep/K/file", "/r/U/d1/K/file" };
	for (int i = 0; i < 2; i++) {
		int fd = uvfs_openat(admin, AT_FDCWD, f[i], O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0, "%s", f[i]);
		uvfs_close(admin, fd);
	}
	ino_k = ino_of(admin, f[0]);
	ino_m = ino_of(admin, f[1]);
	CHECK(ino_k && ino_m && ino_k != ino_m, "");
	CHECK(uvfs_mkdirat(admin, AT_FDCWD, "/r/T", 0755) == 0 && make_t(admin) == 0, "");

	struct walker w[2] = { { .p = uvfs_proc_create(fs, 0, 0), .root = true },
			       { .p = uvfs_proc_create(fs, 1000, 1000), .root = false } };
	for (int i = 0; i < 2; i++)
		CHECK(uvfs_chdir(w[i].p, "/r/A") == 0, "");
	struct uvfs_proc *changers[5] = { uvfs_proc_create(fs, 0, 0), uvfs_proc_create(fs, 0, 0),
					  uvfs_proc_create(fs, 0, 0), uvfs_proc_create(fs, 0, 0),
					  uvfs_proc_create(fs, 0, 0) };
	unsigned long quiet_checks = 0, quiet_bad = 0;
	for (int round = 0; round < ROUNDS; round++) {
		__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
		pthread_t ct[5];
		for (int i = 0; i < 2; i++) {
			w[i].done = 0;
			pthread_create(&w[i].t, NULL, walk, &w[i]);
		}
		/* each round a different set of changers races the walkers */
		bool on[5] = { round % 2 == 0 || round % 3 == 2, round % 3 != 0, round % 4 != 1, round % 4 != 2,
			       round % 3 != 1 };
		void *(*fn[5])(void *) = { exchanger, chmoder, linker, renamer, remover };
		for (int i = 0; i < 5; i++)
			if (on[i])
				pthread_create(&ct[i], NULL, fn[i], changers[i]);
		while (__atomic_load_n(&w[0].done, __ATOMIC_RELAXED) < LOOKUPS ||
		       __atomic_load_n(&w[1].done, __ATOMIC_RELAXED) < LOOKUPS)
			sched_yield();
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < 2; i++)
			pthread_join(w[i].t, NULL);
		for (int i = 0; i < 5; i++)
			if (on[i])
				pthread_join(ct[i], NULL);
		/* everything still: each answer exactly the tree's, twice (the
		 * second from whatever the first left cached) */
		for (int k = 0; k < 2; k++)
			for (int wi = 0; wi < 2; wi++)
				for (int i = 0; i < NPATHS; i++) {
					long want = expected(admin, &w[wi], i), got = look(w[wi].p, paths[i]);
					quiet_checks++;
					if (got != want && quiet_bad++ < 5)
						printf("FAIL round %d quiet %s: %s -> %ld, tree says %ld\n", round,
						       w[wi].root ? "root" : "1000", paths[i], got, want);
				}
	}
	CHECK(bad == 0, "%lu answers outside the invariant", bad);
	CHECK(quiet_bad == 0, "%lu of %lu quiescent answers not the tree's", quiet_bad, quiet_checks);
	for (int i = 0; i < 5; i++)
		uvfs_proc_destroy(changers[i]);
	for (int i = 0; i < 2; i++)
		uvfs_proc_destroy(w[i].p);
	uvfs_proc_destroy(admin);
	uvfs_destroy(fs);
	return check_done();
}
