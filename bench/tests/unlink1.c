/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unlink1: create, close and unlink a per-worker name, as will-it-scale's
 * unlink1. */
#include "bench.h"

static void unlink1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64];
	int fd, ret;

	bench_name(c, name, sizeof(name), "unlink1");
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
	while (bench_running(c, *iterations)) {
		fd = c->ops->openat(c->p, c->dirfd, name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			bench_fail(c, "create %s: %s", name, strerror(-fd));
			break;
		}
		c->ops->close(c->p, fd);
		ret = c->ops->unlinkat(c->p, c->dirfd, name, 0);
		if (ret < 0) {
			bench_fail(c, "unlink %s: %s", name, strerror(-ret));
			break;
		}
		(*iterations)++;
	}
}

BENCH_TESTCASE(unlink1, .name = "unlink1", .fn = unlink1,
	       .description = "open(O_CREAT|O_EXCL), close and unlink a per-worker name");
