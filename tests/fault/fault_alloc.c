// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_alloc.c - the allocator the fault build's copy of the library calls
 * (see fault_alloc.h).  Each function counts, may fail, then calls glibc.
 */
#include <errno.h>
#include <execinfo.h>
#include <stdlib.h>
#include <string.h>
#include "fault_alloc.h"

static __thread bool armed;
static long numbered; /* only the armed thread writes these */
static long fail_at;
static bool fired;
static long live;
static void *stack[24];
static int depth;

void fault_arm(long n)
{
	fail_at = n;
	armed = true;
}

void fault_disarm(void)
{
	armed = false;
}

long fault_count(void)
{
	return numbered;
}

bool fault_fired(void)
{
	return fired;
}

long fault_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

int fault_stack(void **out, int max)
{
	int n = depth < max ? depth : max;
	memcpy(out, stack, n * sizeof(*out));
	return n;
}

static bool should_fail(void)
{
	if (!armed)
		return false;
	if (++numbered != fail_at)
		return false;
	fired = true;
	depth = backtrace(stack, 24);
	return true;
}

static void *counted(void *p)
{
	if (p)
		__atomic_fetch_add(&live, 1, __ATOMIC_RELAXED);
	return p;
}

void *fault_malloc(size_t n);
void *fault_calloc(size_t n, size_t size);
void *fault_realloc(void *p, size_t n);
void fault_free(void *p);
void *fault_aligned_alloc(size_t align, size_t n);
int fault_posix_memalign(void **out, size_t align, size_t n);
char *fault_strdup(const char *s);
char *fault_strndup(const char *s, size_t n);

void *fault_malloc(size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return counted(malloc(n));
}

void *fault_calloc(size_t n, size_t size)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return counted(calloc(n, size));
}

void *fault_realloc(void *p, size_t n)
{
	if (!p)
		return fault_malloc(n);
	if (!n) {
		fault_free(p);
		return NULL;
	}
	/* a failed realloc leaves p as it was, and live */
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n);
}

void fault_free(void *p)
{
	if (p)
		__atomic_fetch_sub(&live, 1, __ATOMIC_RELAXED);
	free(p);
}

void *fault_aligned_alloc(size_t align, size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return counted(aligned_alloc(align, n));
}

int fault_posix_memalign(void **out, size_t align, size_t n)
{
	if (should_fail())
		return ENOMEM;
	int r = posix_memalign(out, align, n);
	if (!r)
		counted(*out);
	return r;
}

/* glibc's own would allocate with the real malloc, behind the counter */
char *fault_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = fault_malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = 0;
	}
	return d;
}

char *fault_strdup(const char *s)
{
	return fault_strndup(s, strlen(s));
}
