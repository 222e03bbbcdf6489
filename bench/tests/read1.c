/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* read1: read one byte at a time from a per-worker 1 MiB file, rewinding at
 * end of file (one lseek per 2^20 reads). */
#include "bench.h"

#define FILE_SIZE (1u << 20)

static void read1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64], buf[1];
	ssize_t n;
	int fd;

	bench_name(c, name, sizeof(name), "read1");
	if (bench_make_file(c, name, FILE_SIZE) < 0)
		return;
	fd = c->ops->openat(c->p, c->dirfd, name, O_RDONLY, 0);
	if (fd < 0) {
		bench_fail(c, "open %s: %s", name, strerror(-fd));
		return;
	}
	while (bench_running(c, *iterations)) {
		n = c->ops->read(c->p, fd, buf, 1);
		if (n != 1) {
			if (n == 0) {
				c->ops->lseek(c->p, fd, 0, SEEK_SET);
				continue;
			}
			bench_fail(c, "read %s: %zd", name, n);
			break;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, fd);
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(read1, .name = "read1", .fn = read1,
	       .description = "read 1 byte from a per-worker 1 MiB file, sequentially");
