/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unlink1_dirs: unlink1 with each worker in a directory of its own, the
 * scaling case of issue 12 (two workers must not share a directory's lock
 * or lines, only what the instance shares). */
#include "bench.h"
#include <errno.h>

static void unlink1_dirs(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char dir[64];
	int dfd, fd, ret;

	bench_name(c, dir, sizeof(dir), "unlink1_dirs");
	ret = c->ops->mkdirat(c->p, c->dirfd, dir, 0700);
	if (ret < 0 && ret != -EEXIST) {
		bench_fail(c, "mkdir %s: %s", dir, strerror(-ret));
		return;
	}
	dfd = c->ops->openat(c->p, c->dirfd, dir, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0) {
		bench_fail(c, "open %s: %s", dir, strerror(-dfd));
		return;
	}
	c->ops->unlinkat(c->p, dfd, "f", 0);
	while (bench_running(c, *iterations)) {
		fd = c->ops->openat(c->p, dfd, "f", O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			bench_fail(c, "create %s/f: %s", dir, strerror(-fd));
			break;
		}
		c->ops->close(c->p, fd);
		ret = c->ops->unlinkat(c->p, dfd, "f", 0);
		if (ret < 0) {
			bench_fail(c, "unlink %s/f: %s", dir, strerror(-ret));
			break;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, dfd);
}

BENCH_TESTCASE(unlink1_dirs, .name = "unlink1_dirs", .fn = unlink1_dirs,
	       .description = "unlink1 with a directory per worker");
