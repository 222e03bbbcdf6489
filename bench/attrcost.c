// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attrcost - the cost of one attribute change through notify_change and
 * the filesystem's ->setattr, for bench/attrcost.sh to count under
 * callgrind (issue 10, item 1: one ->setattr for every filesystem).
 *
 * usage: attrcost KIND N
 *   KIND: chmod (fchmodat of "/f", the mode alternating), chown (fchown,
 *   the owner alternating), utimens (utimensat of "/f" with explicit
 *   times), truncate (ftruncate, the size alternating 0 and 4096), noop.
 * Runs the call N times on a tmpfs file; every result is checked (exit 1).
 */
#include <uvfs.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int one(struct uvfs_proc *p, int fd, const char *kind, long i)
{
	struct timespec t[2] = { { i, 0 }, { i, 1 } };
	if (!strcmp(kind, "chmod"))
		return uvfs_fchmodat(p, AT_FDCWD, "/f", (i & 1) ? 0600 : 0644, 0);
	if (!strcmp(kind, "chown"))
		return uvfs_fchown(p, fd, (uid_t)(i & 1), (gid_t)(i & 1));
	if (!strcmp(kind, "utimens"))
		return uvfs_utimensat(p, AT_FDCWD, "/f", t, 0);
	if (!strcmp(kind, "truncate"))
		return uvfs_ftruncate(p, fd, (i & 1) ? 4096 : 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: attrcost chmod|chown|utimens|truncate|noop N\n");
		return 2;
	}
	long n = atol(argv[2]);
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = fs ? uvfs_proc_create(fs, 0, 0) : NULL;
	int fd = p ? uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_RDWR, 0644) : -1;
	if (fd < 0) {
		fprintf(stderr, "attrcost: no instance or file\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		int r = one(p, fd, argv[1], i);
		if (r) {
			fprintf(stderr, "attrcost: %s #%ld: %d\n", argv[1], i, r);
			return 1;
		}
	}
	uvfs_close(p, fd);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return 0;
}
