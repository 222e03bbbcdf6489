// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs_parser.c - mount options split and matched against a filesystem's
 * table (Linux's fs/fs_parser.c and the sb flag words of
 * fs/fs_context.c).
 */
#include "fs_parser.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the flag words mount(8) may pass along; the VFS has taken them from the
 * flags already (Linux's vfs_parse_sb_flag) */
static const char *const sb_words[] = { "rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec",
					"defaults" };

static bool is_sb_word(const char *opt)
{
	for (size_t i = 0; i < sizeof(sb_words) / sizeof(sb_words[0]); i++)
		if (!strcmp(opt, sb_words[i]))
			return true;
	return false;
}

static int parse_one(const struct fs_parser *fp, char *opt, void *ctx)
{
	char *val = strchr(opt, '=');
	if (val)
		*val++ = 0;
	if (fp->sb_words && is_sb_word(opt))
		return 0;
	if (!val)
		return -EINVAL;
	for (const struct fs_parameter_spec *s = fp->specs; s->name; s++)
		if (!strcmp(opt, s->name))
			return fp->param(ctx, s->opt, val);
	return -EINVAL;
}

int fs_parse_options(const struct fs_parser *fp, const char *data, void *ctx)
{
	if (!data)
		return 0;
	if (fp->max_len && strnlen(data, fp->max_len) >= fp->max_len)
		return -EINVAL;
	char *copy = strdup(data), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int err = 0;
	for (char *opt = strtok_r(copy, ",", &save); opt && !err; opt = strtok_r(NULL, ",", &save))
		err = parse_one(fp, opt, ctx);
	free(copy);
	return err;
}
