/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stat1: stat a per-worker file by name (fstatat, following symlinks). */
#include "bench.h"

static void stat1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64];
	struct stat st;
	int ret;

	bench_name(c, name, sizeof(name), "stat1");
	if (bench_make_file(c, name, 100) < 0)
		return;
	while (bench_running(c, *iterations)) {
		ret = c->ops->fstatat(c->p, c->dirfd, name, &st, 0);
		if (ret < 0 || st.st_size != 100) {
			bench_fail(c, "stat %s: %s (size %lld)", name,
				   ret < 0 ? strerror(-ret) : "ok", (long long)st.st_size);
			break;
		}
		(*iterations)++;
	}
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(stat1, .name = "stat1", .fn = stat1,
	       .description = "fstatat of a per-worker file");
