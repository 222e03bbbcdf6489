/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check.h - the counting assertions shared by the unit and stress tests.
 *
 * Every CHECK counts one check; a failure prints a line starting with "FAIL"
 * (tests/run.sh shows those) and the run goes on.  A test's main() ends with
 * `return check_done();`, which prints "N passed, N failed" as its last line
 * and returns non-zero when anything failed.
 */
#ifndef UVFS_TESTS_CHECK_H
#define UVFS_TESTS_CHECK_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* counted from any thread of a test: atomic adds */
static unsigned long check_passed, check_failed;

static inline void check_fail_(const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void check_fail_(const char *file, int line, const char *what, const char *fmt, ...)
{
	__atomic_fetch_add(&check_failed, 1, __ATOMIC_RELAXED);
	printf("FAIL %s:%d: %s", file, line, what);
	if (fmt && *fmt) {
		va_list ap;
		va_start(ap, fmt);
		printf(": ");
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
}

/* CHECK(cond, "format", ...): the message is printed only on failure. */
#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (cond)                                                       \
			__atomic_fetch_add(&check_passed, 1, __ATOMIC_RELAXED); \
		else                                                            \
			check_fail_(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
	} while (0)

/* Integer equality, both values printed on failure. */
#define CHECK_EQ(a, b)                                                                          \
	do {                                                                                    \
		long long a_ = (long long)(a), b_ = (long long)(b);                              \
		if (a_ == b_)                                                                   \
			__atomic_fetch_add(&check_passed, 1, __ATOMIC_RELAXED);                 \
		else                                                                            \
			check_fail_(__FILE__, __LINE__, #a " == " #b, "%lld != %lld", a_, b_); \
	} while (0)

/* A return value that must be an errno: prints the name-less numbers. */
#define CHECK_ERR(expr, err) CHECK_EQ(expr, -(err))

/* Section headers make a failure easy to place. */
#define SECTION(name) printf("-- %s\n", name)

static inline int check_done(void)
{
	printf("%lu passed, %lu failed\n", check_passed, check_failed);
	fflush(stdout);
	return check_failed ? 1 : 0;
}
#endif
