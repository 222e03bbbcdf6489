/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pipe_write: write a 100-byte message (perf bench sched messaging's size)
 * into a per-worker pipe and read it back.  Seed 003. */
#include "bench.h"

#define MSG 100

static void pipe_write(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char buf[MSG];
	int fds[2], ret;
	ssize_t n;

	memset(buf, 'm', sizeof(buf));
	ret = c->ops->pipe2(c->p, fds, 0);
	if (ret < 0) {
		bench_fail(c, "pipe2: %s", strerror(-ret));
		return;
	}
	while (bench_running(c, *iterations)) {
		n = c->ops->write(c->p, fds[1], buf, MSG);
		if (n != MSG) {
			bench_fail(c, "write to pipe: %zd", n);
			break;
		}
		n = c->ops->read(c->p, fds[0], buf, MSG);
		if (n != MSG) {
			bench_fail(c, "read from pipe: %zd", n);
			break;
		}
		(*iterations)++;
	}
	c->ops->close(c->p, fds[0]);
	c->ops->close(c->p, fds[1]);
}

BENCH_TESTCASE(pipe_write, .name = "pipe_write", .seed = "003", .needs = BENCH_NEED_PIPE2,
	       .fn = pipe_write,
	       .description = "write 100 bytes into a per-worker pipe and read them back");
