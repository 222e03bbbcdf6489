/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs-fuse - mount a fresh uvfs tree through FUSE.
 *
 *   uvfs-fuse [-f] [-d] [-s] [-o opt,...] MOUNTPOINT
 *
 * See uvfs_fuse.h and `uvfs-fuse --help` for the options.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <uvfs.h>
#include "uvfs_fuse.h"

/*
 * hostfs holds host fds (an LRU bounded by a quarter of this limit, at most
 * 1024 per mount, plus one per open file; with no-open the nodes' files,
 * bounded by another quarter, node_files.c): raise the soft limit to the hard
 * one, and as root both to fs.nr_open, as other FUSE servers of host trees
 * do.
 */
static void raise_nofile(void)
{
	struct rlimit rl;
	unsigned long nr = 0;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	f = fopen("/proc/sys/fs/nr_open", "re");
	if (f) {
		if (fscanf(f, "%lu", &nr) != 1)
			nr = 0;
		fclose(f);
	}
	if (nr > rl.rlim_max) {
		struct rlimit up = { nr, nr };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int main(int argc, char **argv)
{
	struct uvfs_fuse *uf;
	int i, r, err = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0) {
			i++; /* an option list, not a flag */
			continue;
		}
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			uvfs_fuse_print_help();
			return 0;
		}
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
			printf("uvfs-fuse %s (uvfs API %d.%d)\n", UVFS_FUSE_VERSION,
			       UVFS_VERSION_MAJOR, UVFS_VERSION_MINOR);
			return 0;
		}
	}

	raise_nofile();
	uf = uvfs_fuse_new(NULL, NULL, argc, argv, &err);
	if (!uf)
		return 1; /* the reason went to stderr */
	if (uvfs_fuse_set_signal_handlers(uf) != 0 || uvfs_fuse_daemonize(uf) != 0) {
		uvfs_fuse_destroy(uf);
		return 1;
	}
	r = uvfs_fuse_loop(uf);
	uvfs_fuse_remove_signal_handlers(uf);
	uvfs_fuse_destroy(uf);
	return r < 0 ? 1 : 0;
}
