/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bitmaps of unsigned long words. */
#ifndef UVFS_LIB_BITMAP_H
#define UVFS_LIB_BITMAP_H
#include "compiler.h"
#include <limits.h>

#define BITS_PER_LONG (sizeof(unsigned long) * CHAR_BIT)
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)

/* One writer at a time (the table's lock, or its only thread); the word is
 * stored whole, since lock-free readers scan it (find_next_bit_). */
static inline void set_bit_(unsigned long nr, unsigned long *map)
{
	unsigned long *w = &map[nr / BITS_PER_LONG];
	WRITE_ONCE(*w, *w | 1UL << (nr % BITS_PER_LONG));
}
static inline void clear_bit_(unsigned long nr, unsigned long *map)
{
	unsigned long *w = &map[nr / BITS_PER_LONG];
	WRITE_ONCE(*w, *w & ~(1UL << (nr % BITS_PER_LONG)));
}
static inline bool test_bit_(unsigned long nr, const unsigned long *map) { return (map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1; }

/* First zero bit at or after start, or size when there is none. */
static inline unsigned long find_next_zero_bit_(const unsigned long *map, unsigned long size, unsigned long start)
{
	if (start >= size)
		return size;
	unsigned long i = start / BITS_PER_LONG;
	unsigned long w = ~map[i] & (~0UL << (start % BITS_PER_LONG));
	for (;;) {
		if (w) {
			unsigned long r = i * BITS_PER_LONG + __builtin_ctzl(w);
			return r < size ? r : size;
		}
		if (++i >= BITS_TO_LONGS(size))
			return size;
		w = ~map[i];
	}
}
/* First set bit at or after start, or size.  Each word is read once: its
 * caller (close_range) scans a shared table without the lock. */
static inline unsigned long find_next_bit_(const unsigned long *map, unsigned long size, unsigned long start)
{
	if (start >= size)
		return size;
	unsigned long i = start / BITS_PER_LONG;
	unsigned long w = READ_ONCE(map[i]) & (~0UL << (start % BITS_PER_LONG));
	for (;;) {
		if (w) {
			unsigned long r = i * BITS_PER_LONG + __builtin_ctzl(w);
			return r < size ? r : size;
		}
		if (++i >= BITS_TO_LONGS(size))
			return size;
		w = READ_ONCE(map[i]);
	}
}

#endif
