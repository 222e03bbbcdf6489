/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * overlay_root.h - UVFS_CONF_FS=overlay (on_overlay.c sets it): each
 * scenario's root is an overlay, on both backends the same one.  Its lower
 * layer holds the entries below, its upper layer starts empty (mode 01777,
 * so the root looks as the suite expects); the backends make the layers
 * on the scenario's fresh tmpfs, mount the overlay and chroot into it.
 */
#ifndef CONF_OVERLAY_ROOT_H
#define CONF_OVERLAY_ROOT_H

struct ovl_root_entry {
	char type; /* d: directory, f: file with data, l: symlink to data */
	const char *path;
	const char *data;
};

static const struct ovl_root_entry ovl_root_layers[] = {
	{ 'd', "/.ovl", NULL },
	{ 'd', "/.ovl/l", NULL },
	{ 'd', "/.ovl/u", NULL },
	{ 'd', "/.ovl/w", NULL },
	{ 'd', "/.ovl/m", NULL },
	{ 'd', "/.ovl/l/lower-dir", NULL },
	{ 'f', "/.ovl/l/lower-dir/inner", "inner\n" },
	{ 'f', "/.ovl/l/lower-file", "lower data\n" },
	{ 'l', "/.ovl/l/lower-link", "lower-file" },
};
#define OVL_ROOT_OPTS "lowerdir=/.ovl/l,upperdir=/.ovl/u,workdir=/.ovl/w"
#define OVL_ROOT_MOUNT "/.ovl/m"
#define OVL_ROOT_UPPER "/.ovl/u"

#endif
