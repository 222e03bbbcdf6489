/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fs_parser.h - a filesystem's mount options as a table (Linux's
 * fs_parameter_spec, fs/fs_parser.c): the option string is split and
 * matched here, the filesystem only takes each value.
 */
#ifndef UVFS_FS_PARSER_H
#define UVFS_FS_PARSER_H

#include <stdbool.h>
#include <stddef.h>

/* an option "name=value"; one without a value is unknown */
struct fs_parameter_spec {
	const char *name;
	int opt; /* the filesystem's number for it */
};

struct fs_parser {
	const struct fs_parameter_spec *specs; /* ends with a NULL name */
	/* one option, in the order given: 0 or -errno, which ends the parse */
	int (*param)(void *ctx, int opt, char *value);
	size_t max_len; /* an option string this long or longer: EINVAL (0: any) */
	bool sb_words;  /* rw, ro, noatime, ... are accepted and left to the VFS */
};

/* EINVAL for an unknown option (or one without its value), else param's
 * answer; ENOMEM.  NULL data: no options. */
int fs_parse_options(const struct fs_parser *fp, const char *data, void *ctx);

#endif
