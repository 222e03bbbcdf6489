// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * metacost - the cost of the name changes besides unlink1, for
 * bench/metacost.sh to count under callgrind (issue 12, item 3).
 *
 * usage: metacost KIND N
 *   KIND: mkdir (mkdirat and rmdir of one name), rename (a file renamed
 *   to another name in its directory and back), link (linkat of a file
 *   and unlinkat of the new name), noop (the tree, then nothing).
 * All relative to a directory fd, as the bench's one-name testcases.  Runs
 * the pair N times; every result is checked, so a change that went wrong
 * stops the count (exit 1).
 */
#include <uvfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: metacost mkdir|rename|link|noop N\n");
		return 2;
	}
	const char *kind = argv[1];
	long n = atol(argv[2]);
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = fs ? uvfs_proc_create(fs, 0, 0) : NULL;
	if (!p || uvfs_mkdirat(p, AT_FDCWD, "/d", 0755))
		return 1;
	int d = uvfs_openat(p, AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0);
	int fd = d < 0 ? d : uvfs_openat(p, d, "f", O_CREAT | O_RDWR, 0644);
	if (fd < 0 || uvfs_close(p, fd))
		return 1;
	for (long i = 0; i < n; i++) {
		int r = 0;
		if (!strcmp(kind, "mkdir")) {
			r |= uvfs_mkdirat(p, d, "x", 0755);
			r |= uvfs_unlinkat(p, d, "x", AT_REMOVEDIR);
		} else if (!strcmp(kind, "rename")) {
			r |= uvfs_renameat2(p, d, "f", d, "g", 0);
			r |= uvfs_renameat2(p, d, "g", d, "f", 0);
		} else if (!strcmp(kind, "link")) {
			r |= uvfs_linkat(p, d, "f", d, "h", 0);
			r |= uvfs_unlinkat(p, d, "h", 0);
		} else if (strcmp(kind, "noop")) {
			fprintf(stderr, "metacost: unknown kind %s\n", kind);
			return 2;
		}
		if (r) {
			fprintf(stderr, "metacost: %s failed at round %ld\n", kind, i);
			return 1;
		}
	}
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return 0;
}
