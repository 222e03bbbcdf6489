/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* readlink1: readlink of a per-worker symlink, as the seed's will-it-scale
 * testcase (readlink("/initrd.img") in a loop; the body below is the kind of
 * target /initrd.img has).  Reproduces seed 004 (readlink copies the cached
 * body by its stored length, no strlen). */
#include "bench.h"

#define LINK_BODY "boot/initrd.img-6.11.0-9-generic"

static void readlink1(struct ctx *c, unsigned long long *iterations, unsigned long nr)
{
	char name[64], buf[1024];
	ssize_t n;
	int ret;

	bench_name(c, name, sizeof(name), "readlink1");
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
	ret = c->ops->symlinkat(c->p, LINK_BODY, c->dirfd, name);
	if (ret < 0) {
		bench_fail(c, "symlink %s: %s", name, strerror(-ret));
		return;
	}
	while (bench_running(c, *iterations)) {
		n = c->ops->readlinkat(c->p, c->dirfd, name, buf, sizeof(buf));
		if (n != sizeof(LINK_BODY) - 1) {
			bench_fail(c, "readlink %s: got %zd, expected %zu", name, n,
				   sizeof(LINK_BODY) - 1);
			break;
		}
		(*iterations)++;
	}
	if (!c->failed && memcmp(buf, LINK_BODY, sizeof(LINK_BODY) - 1))
		bench_fail(c, "readlink %s: wrong body \"%.*s\"", name, (int)n, buf);
	c->ops->unlinkat(c->p, c->dirfd, name, 0);
}

BENCH_TESTCASE(readlink1, .name = "readlink1", .seed = "004", .fn = readlink1,
	       .description = "readlink of a per-worker symlink (32-byte body)");
