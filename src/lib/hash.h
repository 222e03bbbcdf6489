/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hashes for the dentry cache: names are hashed a word at a time while the
 * path walk scans them, then mixed with the parent's address. */
#ifndef UVFS_LIB_HASH_H
#define UVFS_LIB_HASH_H
#include "compiler.h"

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static inline uint32_t hash_64(uint64_t v, unsigned bits) { return (uint32_t)((v * GOLDEN_RATIO_64) >> (64 - bits)); }

/* Hash of len bytes of name; the same bytes give the same hash on every call. */
static inline uint32_t name_hash(const char *name, unsigned len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
	while (len >= 8) {
		uint64_t w;
		__builtin_memcpy(&w, name, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
		name += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;
		__builtin_memcpy(&w, name, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 29;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Bucket of (parent, name hash): a splitmix-style finaliser, so that
 * parents allocated at regular strides still spread over every bucket. */
static inline uint32_t d_hash_bucket(const void *parent, uint32_t hash, unsigned bits)
{
	uint64_t x = (uint64_t)(uintptr_t)parent * 0x9E3779B97F4A7C15ull + hash;
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 32;
	return (uint32_t)(x >> (64 - bits));
}
#endif
