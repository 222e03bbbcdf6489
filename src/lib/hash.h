/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hashes for the dentry cache: names are hashed a word at a time while the
 * path walk scans them, then mixed with the parent's address. */
#ifndef UVFS_LIB_HASH_H
#define UVFS_LIB_HASH_H
#include "compiler.h"

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static inline uint32_t hash_64(uint64_t v, unsigned bits) { return (uint32_t)((v * GOLDEN_RATIO_64) >> (64 - bits)); }

#define NAME_HASH_SEED 0x9E3779B97F4A7C15ull

static inline uint64_t name_hash_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

static inline uint32_t name_hash_fold(uint64_t h, unsigned len)
{
	h = (h ^ len) * 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* Hash of len bytes of name: whole 8-byte words, then the zero-padded tail
 * word if any, then the length.  hash_component() computes the same value
 * while it scans a path. */
static inline uint32_t name_hash(const char *name, unsigned len)
{
	uint64_t h = NAME_HASH_SEED;
	unsigned n = len;
	while (n >= 8) {
		uint64_t w;
		__builtin_memcpy(&w, name, 8);
		h = name_hash_mix(h, w);
		name += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		__builtin_memcpy(&w, name, n);
		h = name_hash_mix(h, w);
	}
	return name_hash_fold(h, len);
}

#define ONES_ 0x0101010101010101ull
#define HIGHS_ 0x8080808080808080ull
#define SLASHES_ 0x2f2f2f2f2f2f2f2full

/* A word of the string at p.  The wide load may read past the NUL but never
 * past the end of p's page, so it never faults; the bytes beyond the NUL are
 * masked off by the caller.  Those bytes are someone else's: the caller's
 * other data, or the next heap chunk (a symlink body, a long dentry name),
 * which another thread may be freeing or filling.  A sanitizer sees the
 * load and not the mask (AddressSanitizer calls it an overflow,
 * ThreadSanitizer a race or a use after free: tests/unit/unit-pathbounds),
 * so under either the word is read a byte at a time up to the NUL. */
static inline uint64_t load_word_zeropad(const char *p)
{
	uint64_t w = 0;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	if (likely(((uintptr_t)p & 4095) <= 4096 - 8)) {
		__builtin_memcpy(&w, p, 8);
		return w;
	}
#endif
	for (unsigned i = 0; i < 8 && p[i]; i++)
		w |= (uint64_t)(unsigned char)p[i] << (8 * i);
	return w;
}

/* Length of the path component at s (up to '/' or NUL) and its name_hash,
 * a word at a time, as Linux's hash_name. */
static inline unsigned hash_component(const char *s, uint32_t *hashp)
{
	uint64_t h = NAME_HASH_SEED;
	unsigned len = 0;
	for (;;) {
		uint64_t w = load_word_zeropad(s + len);
		uint64_t sl = w ^ SLASHES_;
		uint64_t stop = ((w - ONES_) & ~w & HIGHS_) | ((sl - ONES_) & ~sl & HIGHS_);
		if (stop) {
			unsigned n = (unsigned)__builtin_ctzll(stop) / 8;
			if (n) {
				w &= (1ull << (8 * n)) - 1;
				h = name_hash_mix(h, w);
			}
			len += n;
			break;
		}
		h = name_hash_mix(h, w);
		len += 8;
	}
	*hashp = name_hash_fold(h, len);
	return len;
}

/* As hash_component, for a whole name that is usually a single component:
 * the scan gives up once more than max bytes are behind it (the caller then
 * measures the string another way), so that it never reads further into an
 * unterminated string than a bounded strnlen would.  Returns the length
 * scanned; the hash is set only when the scan stopped at '/' or NUL within
 * max bytes.  (The same loop as hash_component plus the bound: written as a
 * wrapper around this one, with max = ~0u, stat1 cost 4 more instructions
 * per call under callgrind, 346 -> 350, so the two stay apart.) */
static inline unsigned hash_component_max(const char *s, uint32_t *hashp, unsigned max)
{
	uint64_t h = NAME_HASH_SEED;
	unsigned len = 0;
	for (;;) {
		uint64_t w = load_word_zeropad(s + len);
		uint64_t sl = w ^ SLASHES_;
		uint64_t stop = ((w - ONES_) & ~w & HIGHS_) | ((sl - ONES_) & ~sl & HIGHS_);
		if (stop) {
			unsigned n = (unsigned)__builtin_ctzll(stop) / 8;
			if (n) {
				w &= (1ull << (8 * n)) - 1;
				h = name_hash_mix(h, w);
			}
			len += n;
			break;
		}
		h = name_hash_mix(h, w);
		len += 8;
		if (unlikely(len > max))
			return len;
	}
	*hashp = name_hash_fold(h, len);
	return len;
}

/* Bucket of (parent, name hash): the hash in both halves of the word
 * xored into the parent's address, then two multiplications around one
 * xor-shift, whose top bits are the bucket.  The walk pays it per
 * component: the full splitmix finaliser before it cost 6 instructions
 * more, and parents allocated at regular strides spread as well under
 * both (unit-hash). */
static inline uint32_t d_hash_bucket(const void *parent, uint32_t hash, unsigned bits)
{
	uint64_t x = ((uint64_t)(uintptr_t)parent ^ (uint64_t)hash << 32 ^ hash) * 0xBF58476D1CE4E5B9ull;
	x ^= x >> 29;
	x *= 0x94D049BB133111EBull;
	return (uint32_t)(x >> (64 - bits));
}
#endif
