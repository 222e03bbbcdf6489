/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * on_fs.h - what one conformance-on-a-filesystem program (on_fs.c's main)
 * is told by its filesystem's file (on_testfs.c, on_hostfs.c,
 * on_overlay.c): which filesystem the scenarios' roots are on and which
 * scenarios make sense there.
 */
#ifndef UVFS_CONF_ON_FS_H
#define UVFS_CONF_ON_FS_H

#include <stdbool.h>
#include <stddef.h>

struct on_fs {
	const char *fs; /* UVFS_CONF_FS */
	/* Either the scenarios to run, each a glob of its name alone (its last
	 * letter bracketed: a plain name selects by substring) ... */
	const char *const *selection;
	size_t nselection;
	/* ... or the ones to leave out of the whole list (exact names). */
	const char *const *excluded;
	size_t nexcluded;
	/* the uvfs side mounts a host directory: one made under /dev/shm
	 * (UVFS_CONF_HOSTDIR), removed at the end */
	bool host_dir;
};

extern const struct on_fs on_fs;

#define ON_FS_LIST(a) (a), (sizeof(a) / sizeof((a)[0]))

#endif
