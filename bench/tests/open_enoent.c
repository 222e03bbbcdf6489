/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* open_enoent: open a path that does not exist, as the seed's custom
 * will-it-scale testcase (open("/tmp/nonexistent", O_RDONLY) in a loop).
 * Reproduces seed 000 (a failed open frees its file at once). */
#include <errno.h>
#include "bench.h"

static void open_enoent(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64];
	int fd;

	bench_name(c, name, sizeof(name), "nonexistent");
	while (bench_running(c, *iterations)) {
		fd = c->ops->openat(c->p, c->dirfd, name, O_RDONLY, 0);
		if (fd != -ENOENT) {
			bench_fail(c, "open %s: got %d, expected -ENOENT", name, fd);
			if (fd >= 0)
				c->ops->close(c->p, fd);
			break;
		}
		(*iterations)++;
	}
}

BENCH_TESTCASE(open_enoent, .name = "open_enoent", .seed = "000", .fn = open_enoent,
	       .description = "open(O_RDONLY) of a nonexistent per-worker name: ENOENT");
