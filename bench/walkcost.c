// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * walkcost - the cost of a path walk by the number of components, for
 * bench/walkcost.sh to count under callgrind (issue 12, item 2).
 *
 * usage: walkcost KIND DEPTH N
 *   KIND: abs (fstatat of "/d1/.../file.h"), rel (the same from the cwd
 *   "/", without the leading slash), enoent (open of a missing name at
 *   the end of the same directories), creat (open with O_CREAT of the
 *   existing file, and close: the create path's walk), renabs (a rename
 *   of an unrelated file in "/", t0 to t1 and back, as a compiler's -o or
 *   git's index.lock makes, then abs: what a lookup costs after a rename
 *   that concerns no cached path), rendir (an access of /w/t0/f, which
 *   caches the prefix /w/t0/, then a rename of the directory t0 to t1 and
 *   back, as a build's temporary directories, then abs: what a lookup
 *   costs after a rename that concerns another cached path), noop (builds
 *   the tree, then nothing).
 * DEPTH components in all (DEPTH - 1 directories and the final name).
 * Runs the call N times; every call's result is checked, so a walk that
 * went wrong stops the count (exit 1).
 */
#include <uvfs.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: walkcost abs|rel|enoent|creat|renabs|rendir|noop DEPTH N\n");
		return 2;
	}
	const char *kind = argv[1];
	int depth = atoi(argv[2]);
	long n = atol(argv[3]);
	if (depth < 1 || depth > 64 || n < 0) {
		fprintf(stderr, "walkcost: DEPTH 1..64, N >= 0\n");
		return 2;
	}
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = fs ? uvfs_proc_create(fs, 0, 0) : NULL;
	if (!p) {
		fprintf(stderr, "walkcost: no instance\n");
		return 1;
	}
	char path[1024] = "";
	size_t len = 0;
	/* the directories have names of a build tree's length */
	for (int i = 1; i < depth; i++) {
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/dir%02d", i);
		int r = uvfs_mkdirat(p, AT_FDCWD, path, 0755);
		if (r) {
			fprintf(stderr, "walkcost: mkdir %s: %d\n", path, r);
			return 1;
		}
	}
	char missing[1100];
	snprintf(missing, sizeof(missing), "%s/missing.h", path);
	len += (size_t)snprintf(path + len, sizeof(path) - len, "/file.h");
	int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || uvfs_close(p, fd)) {
		fprintf(stderr, "walkcost: create %s: %d\n", path, fd);
		return 1;
	}
	fd = uvfs_openat(p, AT_FDCWD, "t0", O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || uvfs_close(p, fd)) {
		fprintf(stderr, "walkcost: create t0: %d\n", fd);
		return 1;
	}
	struct stat st;
	if (!strcmp(kind, "rendir")) {
		if (uvfs_mkdirat(p, AT_FDCWD, "/w", 0755) || uvfs_mkdirat(p, AT_FDCWD, "/w/t0", 0755))
			return 1;
		fd = uvfs_openat(p, AT_FDCWD, "/w/t0/f", O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || uvfs_close(p, fd))
			return 1;
		for (long i = 0; i < n; i++) {
			if (uvfs_faccessat(p, AT_FDCWD, i & 1 ? "/w/t1/f" : "/w/t0/f", F_OK, 0) ||
			    uvfs_renameat2(p, AT_FDCWD, i & 1 ? "/w/t1" : "/w/t0", AT_FDCWD, i & 1 ? "/w/t0" : "/w/t1", 0) ||
			    uvfs_fstatat(p, AT_FDCWD, path, &st, 0))
				return 1;
		}
	} else if (!strcmp(kind, "renabs")) {
		for (long i = 0; i < n; i++) {
			if (uvfs_renameat2(p, AT_FDCWD, i & 1 ? "t1" : "t0", AT_FDCWD, i & 1 ? "t0" : "t1", 0) ||
			    uvfs_fstatat(p, AT_FDCWD, path, &st, 0))
				return 1;
		}
	} else if (!strcmp(kind, "abs")) {
		for (long i = 0; i < n; i++)
			if (uvfs_fstatat(p, AT_FDCWD, path, &st, 0))
				return 1;
	} else if (!strcmp(kind, "rel")) {
		for (long i = 0; i < n; i++)
			if (uvfs_fstatat(p, AT_FDCWD, path + 1, &st, 0))
				return 1;
	} else if (!strcmp(kind, "enoent")) {
		for (long i = 0; i < n; i++)
			if (uvfs_openat(p, AT_FDCWD, missing, O_RDONLY, 0) != -ENOENT)
				return 1;
	} else if (!strcmp(kind, "creat")) {
		for (long i = 0; i < n; i++) {
			int f = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
			if (f < 0 || uvfs_close(p, f))
				return 1;
		}
	} else if (strcmp(kind, "noop")) {
		fprintf(stderr, "walkcost: unknown kind %s\n", kind);
		return 2;
	}
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return 0;
}
