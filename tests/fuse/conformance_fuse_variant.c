// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance-fuse-hostfs, conformance-fuse-dp: conformance-fuse (the
 * conformance suite through a uvfs-fuse mount, against the host's own
 * tmpfs) with one setting of backend_fuse.c's environment, VARIANT_VAR set
 * to VARIANT_VALUE (meson.build):
 *   - hostfs: UVFS_FUSE_HOSTDIR, the server showing a fresh directory of
 *     the host's tmpfs (uvfs-fuse -o hostdir);
 *   - dp: UVFS_FUSE_ARGS "-o default_permissions", the setting the
 *     frontend's README recommends (the kernel checks modes too, and opens
 *     files without a request).
 * Their skips and documented differences are conformance-fuse's.
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
		perror("conformance-fuse variant: /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	char prog[PATH_MAX];
	snprintf(prog, sizeof(prog), "%s/conformance-fuse", dirname(self));
	setenv(VARIANT_VAR, VARIANT_VALUE, 1);
	argv[0] = prog;
	(void)argc;
	execv(prog, argv);
	perror(prog);
	return 1;
}
