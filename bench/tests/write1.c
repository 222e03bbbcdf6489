/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* write1: write one byte at a time to a per-worker file, rewinding every
 * 1 MiB so the file stays 1 MiB and, after the first pass, every write
 * lands on data that already exists. */
#include "bench.h"

#define FILE_SIZE (1u << 20)

static void write1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64], buf[1] = { 'w' };
	unsigned long pos = 0;
	ssize_t n;
	int fd;

	bench_name(c, name, sizeof(name), "write1");
	if (bench_make_file(c, name, FILE_SIZE) < 0)
		return;
	fd = c->ops->openat(c->p, c->dirfd, name, O_WRONLY, 0);
	if (fd < 0) {
		bench_fail(c, "open %s: %s", name, strerror(-fd));
		return;
	}
	while (bench_running(c, *iterations)) {
		n = c->ops->write(c->p, fd, buf, 1);
		if (n != 1) {
			bench_fail(c, "write %s: %zd", name, n);
			break;
		}
		if (++pos == FILE_SIZE) {
			c->ops->lseek(c->p, fd, 0, SEEK_SET);
			pos = 0;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, fd);
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(write1, .name = "write1", .fn = write1,
	       .description = "write 1 byte to a per-worker 1 MiB file, sequentially");
