/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lseek1: lseek(fd, 0, SEEK_SET) on a per-worker file, as will-it-scale's
 * lseek1. */
#include "bench.h"

static void lseek1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64];
	off_t off;
	int fd;

	bench_name(c, name, sizeof(name), "lseek1");
	if (bench_make_file(c, name, 4096) < 0)
		return;
	fd = c->ops->openat(c->p, c->dirfd, name, O_RDWR, 0);
	if (fd < 0) {
		bench_fail(c, "open %s: %s", name, strerror(-fd));
		return;
	}
	while (bench_running(c, *iterations)) {
		off = c->ops->lseek(c->p, fd, 0, SEEK_SET);
		if (off != 0) {
			bench_fail(c, "lseek: %lld", (long long)off);
			break;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, fd);
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(lseek1, .name = "lseek1", .fn = lseek1,
	       .description = "lseek(fd, 0, SEEK_SET) on a per-worker fd");
