// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance-fuse-hostfs: conformance-fuse (the conformance suite through
 * a uvfs-fuse mount) with the server showing a fresh directory of the
 * host's tmpfs (uvfs-fuse -o hostdir, backend_fuse.c's UVFS_FUSE_HOSTDIR),
 * against the host's own tmpfs.  Its skips and documented differences are
 * conformance-fuse's.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
	if (n < 0) {
		perror("conformance-fuse-hostfs: /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	char prog[PATH_MAX];
	snprintf(prog, sizeof(prog), "%s/conformance-fuse", dirname(self));
	setenv("UVFS_FUSE_HOSTDIR", "1", 1);
	argv[0] = prog;
	(void)argc;
	execv(prog, argv);
	perror(prog);
	return 1;
}
