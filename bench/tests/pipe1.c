/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pipe1: write one byte into a per-worker pipe and read it back.  The
 * pipe's files are pseudo files: seed 003 (no fsnotify check on them). */
#include "bench.h"

static void pipe1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char buf[1] = { 'p' };
	int fds[2], ret;
	ssize_t n;

	ret = c->ops->pipe2(c->p, fds, 0);
	if (ret < 0) {
		bench_fail(c, "pipe2: %s", strerror(-ret));
		return;
	}
	while (bench_running(c, *iterations)) {
		n = c->ops->write(c->p, fds[1], buf, 1);
		if (n != 1) {
			bench_fail(c, "write to pipe: %zd", n);
			break;
		}
		n = c->ops->read(c->p, fds[0], buf, 1);
		if (n != 1) {
			bench_fail(c, "read from pipe: %zd", n);
			break;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, fds[0]);
	c->ops->close(c->p, fds[1]);
}

BENCH_TESTCASE(pipe1, .name = "pipe1", .seed = "003", .needs = BENCH_NEED_PIPE2, .fn = pipe1,
	       .description = "write 1 byte into a per-worker pipe and read it back");
