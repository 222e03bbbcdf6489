/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dup1: dup a per-worker fd and close the copy, as will-it-scale's dup1.
 * In threads mode all workers share one fd table. */
#include "bench.h"

static void dup1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64];
	int fd, fd2;

	bench_name(c, name, sizeof(name), "dup1");
	if (bench_make_file(c, name, 0) < 0)
		return;
	fd = c->ops->openat(c->p, c->dirfd, name, O_RDONLY, 0);
	if (fd < 0) {
		bench_fail(c, "open %s: %s", name, strerror(-fd));
		return;
	}
	while (bench_running(c, *iterations)) {
		fd2 = c->ops->dup(c->p, fd);
		if (fd2 < 0) {
			bench_fail(c, "dup: %s", strerror(-fd2));
			break;
		}
		c->ops->close(c->p, fd2);
		(*iterations)++;
	}
	c->ops->close(c->p, fd);
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(dup1, .name = "dup1", .fn = dup1,
	       .description = "dup a per-worker fd and close the copy");
