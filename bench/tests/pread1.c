/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pread1: pread one byte at offset 0 of a per-worker file. */
#include "bench.h"

static void pread1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64], buf[1];
	ssize_t n;
	int fd;

	bench_name(c, name, sizeof(name), "pread1");
	if (bench_make_file(c, name, 4096) < 0)
		return;
	fd = c->ops->openat(c->p, c->dirfd, name, O_RDONLY, 0);
	if (fd < 0) {
		bench_fail(c, "open %s: %s", name, strerror(-fd));
		return;
	}
	while (bench_running(c, *iterations)) {
		n = c->ops->pread(c->p, fd, buf, 1, 0);
		if (n != 1) {
			bench_fail(c, "pread %s: %zd", name, n);
			break;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, fd);
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(pread1, .name = "pread1", .fn = pread1,
	       .description = "pread 1 byte at offset 0 of a per-worker 4 KiB file");
