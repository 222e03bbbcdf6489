/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * testcases.c - the testcase registry (the bench_testcases section the
 * linker collects from bench/tests/), its order, -T's selection and --list,
 * and the helpers bench.h offers testcases.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

extern const struct testcase *const __start_bench_testcases[];
extern const struct testcase *const __stop_bench_testcases[];

static int tc_order(const void *a, const void *b)
{
	const struct testcase *x = *(const struct testcase *const *)a;
	const struct testcase *y = *(const struct testcase *const *)b;

	/* the seeds' testcases first, in seed order; then by name */
	if (!x->seed != !y->seed)
		return x->seed ? -1 : 1;
	if (x->seed && strcmp(x->seed, y->seed))
		return strcmp(x->seed, y->seed);
	return strcmp(x->name, y->name);
}

const struct testcase **testcases_all(int *n)
{
	static const struct testcase *v[256];
	size_t cnt = __stop_bench_testcases - __start_bench_testcases;

	if (cnt > sizeof(v) / sizeof(v[0]))
		cnt = sizeof(v) / sizeof(v[0]);
	memcpy(v, __start_bench_testcases, cnt * sizeof(*v));
	qsort(v, cnt, sizeof(*v), tc_order);
	*n = cnt;
	return v;
}

void testcases_list(const struct testcase **tcs, int ntc)
{
	int i;

	for (i = 0; i < ntc; i++)
		printf("%-12s seed %-4s %s%s\n", tcs[i]->name, tcs[i]->seed ? tcs[i]->seed : "-",
		       tcs[i]->description, tcs[i]->job ? " [job: threads mode, W = groups]" : "");
}

/* Keeps those of tcs[0..*ntc) that LIST (-T, a comma list; NULL: all)
 * names, in their order; -1 (after a message) if it names one that does not
 * exist. */
int testcases_select(const struct testcase **tcs, int *ntc, const char *list)
{
	char *dup, *tok, *save = NULL;
	int i, j;

	if (!list)
		return 0;
	dup = strdup(list);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < *ntc && strcmp(tcs[i]->name, tok); i++)
			;
		if (i == *ntc) {
			fprintf(stderr, "uvfs-bench: no testcase %s (--list shows them)\n", tok);
			free(dup);
			return -1;
		}
	}
	free(dup);
	for (i = j = 0; i < *ntc; i++)
		if (in_list(list, tcs[i]->name))
			tcs[j++] = tcs[i];
	*ntc = j;
	return 0;
}

int bench_make_file(struct ctx *c, const char *name, size_t size)
{
	static const char data[65536] = { [0 ... 65535] = 'x' };
	int fd;
	ssize_t n;

	fd = c->ops->openat(c->p, c->dirfd, name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		bench_fail(c, "create %s: %s", name, strerror(-fd));
		return fd;
	}
	while (size) {
		n = c->ops->write(c->p, fd, data, size < sizeof(data) ? size : sizeof(data));
		if (n <= 0) {
			bench_fail(c, "write %s: %s", name, n < 0 ? strerror(-n) : "0 bytes");
			c->ops->close(c->p, fd);
			return n < 0 ? n : -EIO;
		}
		size -= n;
	}
	c->ops->close(c->p, fd);
	return 0;
}
