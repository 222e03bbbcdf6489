/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* open1: open and close a per-worker file, as will-it-scale's open1.
 * Reproduces seed 001 (close(2) releasing the file synchronously). */
#include "bench.h"

static void open1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64];
	int fd;

	bench_name(c, name, sizeof(name), "open1");
	if (bench_make_file(c, name, 0) < 0)
		return;
	while (bench_running(c, *iterations)) {
		fd = c->ops->openat(c->p, c->dirfd, name, O_RDWR, 0);
		if (fd < 0) {
			bench_fail(c, "open %s: %s", name, strerror(-fd));
			break;
		}
		c->ops->close(c->p, fd);
		(*iterations)++;
	}
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(open1, .name = "open1", .seed = "001", .fn = open1,
	       .description = "open(O_RDWR) and close a per-worker file");
