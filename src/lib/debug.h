/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lifetime checks: on in every build that keeps assertions (the default
 * debugoptimized build, the sanitizer builds), off with NDEBUG.  A count
 * that its owners do not account for is a reference leaked or a use after
 * free in the making; it is named with the object and the run stops there,
 * with no race needed to see it.
 */
#ifndef UVFS_LIB_DEBUG_H
#define UVFS_LIB_DEBUG_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NDEBUG
#define LIFETIME_CHECKS 1
__attribute__((noreturn, cold, format(printf, 3, 4)))
static inline void lifetime_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "uvfs: lifetime check failed at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
#define LIFETIME_CHECK(cond, ...)                                          \
	do {                                                               \
		if (__builtin_expect(!(cond), 0))                          \
			lifetime_bug(__FILE__, __LINE__, __VA_ARGS__);     \
	} while (0)
#else
#define LIFETIME_CHECKS 0
#define LIFETIME_CHECK(cond, ...) do { } while (0)
#endif

#endif
