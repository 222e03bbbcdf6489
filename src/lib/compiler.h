/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small compiler and atomic helpers in the kernel's spelling. */
#ifndef UVFS_LIB_COMPILER_H
#define UVFS_LIB_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define __cold __attribute__((cold, noinline))
#define __hidden __attribute__((visibility("hidden")))
#define UVFS_API __attribute__((visibility("default")))
#define ____cacheline_aligned __attribute__((aligned(64)))

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define barrier() __asm__ __volatile__("" ::: "memory")

typedef struct { long counter; } atomic_long_t;

static inline long atomic_long_read(const atomic_long_t *a) { return __atomic_load_n(&a->counter, __ATOMIC_RELAXED); }
static inline void atomic_long_set(atomic_long_t *a, long v) { __atomic_store_n(&a->counter, v, __ATOMIC_RELAXED); }
static inline void atomic_long_inc(atomic_long_t *a) { __atomic_fetch_add(&a->counter, 1, __ATOMIC_RELAXED); }
static inline long atomic_long_add_return(atomic_long_t *a, long v) { return __atomic_add_fetch(&a->counter, v, __ATOMIC_ACQ_REL); }
static inline bool atomic_long_dec_and_test(atomic_long_t *a) { return __atomic_sub_fetch(&a->counter, 1, __ATOMIC_ACQ_REL) == 0; }
static inline bool atomic_long_cmpxchg(atomic_long_t *a, long old, long new_)
{
	return __atomic_compare_exchange_n(&a->counter, &old, new_, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}
/* Increment unless the count is zero (the object is dying); true on success. */
static inline bool atomic_long_inc_not_zero(atomic_long_t *a)
{
	long c = atomic_long_read(a);
	do {
		if (c <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&a->counter, &c, c + 1, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/* Fetch a cache line for writing (exclusive), ahead of an atomic on it.
 * PREFETCHW runs as a no-op on x86-64 CPUs without it. */
static inline void prefetchw(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1);
#endif
}
#endif
