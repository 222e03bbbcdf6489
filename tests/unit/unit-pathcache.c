// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-pathcache: the path cache's bound (uvfs_options.path_cache_max).
 *
 *   - two instances built the same way, one with a bound of 4 paths (one
 *     bucket) and one with the default, answer the same lookups of 200
 *     deep paths (existing, missing, through a symlink, after a rename and
 *     a chmod) identically: eviction changes the cost, never a result;
 *   - the small one never holds more than its bound and evicts, the default
 *     one holds every prefix; the bytes per cached path are printed (the
 *     figure docs/BENCHMARKS.md gives).
 */
#include "vfs.h"
#include "pathcache.h"
#include "check.h"
#include <fcntl.h>
#include <stdio.h>

#define TREES 50

static struct uvfs_proc *build(struct uvfs *fs)
{
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	char path[256];
	for (int t = 0; t < TREES; t++) {
		int len = snprintf(path, sizeof path, "/tree%02d", t);
		CHECK(uvfs_mkdirat(p, AT_FDCWD, path, 0755) == 0, "%s", path);
		for (int d = 0; d < 6; d++) {
			len += snprintf(path + len, sizeof path - len, "/sub%d", d);
			CHECK(uvfs_mkdirat(p, AT_FDCWD, path, 0755) == 0, "%s", path);
		}
		snprintf(path + len, sizeof path - len, "/file");
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0, "%s", path);
		uvfs_close(p, fd);
	}
	CHECK(uvfs_symlinkat(p, "/tree07/sub0/sub1", AT_FDCWD, "/link") == 0, "");
	return p;
}

/* One lookup's answer: the inode number, or -errno. */
static long answer(struct uvfs_proc *p, const char *path)
{
	struct stat st;
	int r = uvfs_fstatat(p, AT_FDCWD, path, &st, 0);
	return r ? r : (long)st.st_ino;
}

#define ROUNDS 4
#define PER_ROUND (TREES * 4 + 1)

static void run(struct uvfs_proc *p, long *out)
{
	char path[256];
	int n = 0;
	for (int round = 0; round < ROUNDS; round++) {
		if (round == 2) {
			/* a prefix moved and one closed: the answers change */
			CHECK(uvfs_renameat2(p, AT_FDCWD, "/tree03/sub0", AT_FDCWD, "/tree03/moved", 0) == 0, "");
			CHECK(uvfs_fchmodat(p, AT_FDCWD, "/tree05/sub0/sub1", 0700, 0) == 0, "");
			CHECK(uvfs_proc_setcred(p, 1000, 1000) == 0, "");
		}
		for (int i = 0; i < TREES; i++) {
			/* a different order each round, so the one bucket churns */
			int t = (i * (2 * round + 1) + round) % TREES;
			snprintf(path, sizeof path, "/tree%02d/sub0/sub1/sub2/sub3/sub4/sub5/file", t);
			out[n++] = answer(p, path);
			snprintf(path, sizeof path, "/tree%02d/sub0/sub1/sub2/sub3/sub4/sub5/none", t);
			out[n++] = answer(p, path);
			snprintf(path, sizeof path, "/tree%02d/sub0/sub1/sub2/sub3/sub4/sub5", t);
			out[n++] = answer(p, path);
			snprintf(path, sizeof path, "tree%02d/sub0/sub1/sub2/../sub2/sub3/sub4/sub5/file", t);
			out[n++] = answer(p, path);
		}
		out[n++] = answer(p, "/link/sub2/sub3/sub4/sub5/file");
	}
}

int main(void)
{
	struct uvfs_options small = { .path_cache_max = 4 };
	struct uvfs *fs_small = uvfs_create(&small);
	struct uvfs *fs_big = uvfs_create(NULL);
	CHECK(fs_small && fs_big, "");
	struct uvfs_proc *ps = build(fs_small), *pb = build(fs_big);
	static long a[ROUNDS * PER_ROUND], b[ROUNDS * PER_ROUND];
	run(ps, a);
	run(pb, b);
	int differ = 0, errors = 0;
	for (int i = 0; i < ROUNDS * PER_ROUND; i++) {
		if (a[i] != b[i] && differ++ < 5)
			printf("answer %d: bound 4 %ld, default %ld\n", i, a[i], b[i]);
		errors += a[i] < 0;
	}
	CHECK(differ == 0, "%d answers differ", differ);
	/* the rounds after the rename and chmod have failures of each kind */
	CHECK(errors > ROUNDS * TREES, "%d errors", errors);
	CHECK(answer(ps, "/tree03/sub0/sub1/sub2/sub3/sub4/sub5/file") == -ENOENT, "moved prefix");
	CHECK(answer(ps, "/tree03/moved/sub1/sub2/sub3/sub4/sub5/file") > 0, "moved prefix");
	CHECK(answer(ps, "/tree05/sub0/sub1/sub2/sub3/sub4/sub5/file") == -EACCES, "closed prefix");

	unsigned long ne, bytes, ev;
	pathcache_stats(fs_small, &ne, &bytes, &ev);
#ifndef UVFS_NO_PATH_CACHE
	CHECK(ne <= 4 && ne > 0, "small: %lu entries", ne);
	CHECK(ev > 0, "small: no eviction");
	printf("bound 4: %lu entries, %lu evictions\n", ne, ev);
	pathcache_stats(fs_big, &ne, &bytes, &ev);
	CHECK(ev == 0, "default: %lu evictions", ev);
	CHECK(ne >= TREES, "default: %lu entries", ne);
	printf("default: %lu entries, %lu bytes, %lu bytes per cached path\n", ne, bytes, ne ? bytes / ne : 0);
#else
	CHECK(ne == 0 && ev == 0, "no cache built: %lu entries", ne);
#endif
	uvfs_proc_destroy(ps);
	uvfs_proc_destroy(pb);
	uvfs_destroy(fs_small);
	uvfs_destroy(fs_big);
	return check_done();
}
