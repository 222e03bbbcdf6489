// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-hash: the dentry-cache hashes (src/lib/hash.h).
 *
 *   - name_hash depends on exactly the len bytes it is given: the same bytes
 *     at any alignment give the same hash, bytes past len change nothing, a
 *     different length or any one changed byte gives a different hash;
 *   - d_hash_bucket stays in range for every table size;
 *   - buckets are spread evenly (chi-square bound) for name sets that defeat
 *     weak hashes: sequential numbers, long common prefixes, one-byte
 *     differences, many parents with the same names;
 *   - the same name under different parents lands in different buckets;
 *   - hash_component (the path walk's word-at-a-time scan) finds the same
 *     length and hash as name_hash for components ending in '/' or NUL, at
 *     every alignment, whatever bytes follow, and never reads into the next
 *     page when the string ends at a page's end.
 */
#include "vfs.h"
#include "lib/hash.h"
#include "dcache.h"
#include "check.h"
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Pearson's statistic of counts against a uniform expectation. */
static double chi_square(const unsigned *counts, unsigned nbuckets, unsigned long n)
{
	double e = (double)n / nbuckets, s = 0;
	for (unsigned i = 0; i < nbuckets; i++) {
		double d = counts[i] - e;
		s += d * d / e;
	}
	return s;
}

/* A uniform hash gives about df = nbuckets - 1 with standard deviation
 * sqrt(2 df); six deviations is a bound a good hash never crosses by chance
 * and a bad one crosses by orders of magnitude. */
static void check_uniform(const char *what, const unsigned *counts, unsigned nbuckets, unsigned long n)
{
	double chi = chi_square(counts, nbuckets, n);
	double df = nbuckets - 1;
	double bound = df + 6 * sqrt(2 * df);
	unsigned max = 0, empty = 0;
	for (unsigned i = 0; i < nbuckets; i++) {
		if (counts[i] > max)
			max = counts[i];
		empty += !counts[i];
	}
	double e = (double)n / nbuckets;
	printf("   %-44s chi2 %.0f (df %.0f, bound %.0f), max %u (mean %.1f), empty %u\n", what, chi, df, bound,
	       max, e, empty);
	CHECK(chi < bound, "%s: chi-square %.1f over bound %.1f", what, chi, bound);
	/* The longest chain: Poisson(e) tails stay far below e + 10 sqrt(e) + 10. */
	CHECK(max < e + 10 * sqrt(e) + 10, "%s: a bucket holds %u (mean %.2f)", what, max, e);
}

static void test_name_hash_determinism(void)
{
	SECTION("name_hash determinism");
	static const char *names[] = { "", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "file0001",
				       "a-rather-long-name-that-spans-several-words.txt", "\xff\xfe\x01", "..." };
	char buf[128 + 16];
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		unsigned len = (unsigned)strlen(names[i]);
		uint32_t h = name_hash(names[i], len);
		int same_aligned = 1, same_tail = 1;
		for (unsigned off = 0; off < 16; off++) {
			/* the same bytes at every alignment, with junk after them */
			memset(buf, 0x5a + (int)off, sizeof(buf));
			memcpy(buf + off, names[i], len);
			if (name_hash(buf + off, len) != h)
				same_aligned = 0;
			memset(buf + off + len, 0xa5 ^ (int)off, 8);
			if (name_hash(buf + off, len) != h)
				same_tail = 0;
		}
		CHECK(same_aligned, "\"%s\": hash differs with alignment", names[i]);
		CHECK(same_tail, "\"%s\": bytes past len change the hash", names[i]);
		CHECK_EQ(name_hash(names[i], len), h);
	}

	/* The length is part of the name: "a" and "a\0" differ, so do the
	 * empty name and one NUL byte. */
	CHECK(name_hash("a", 1) != name_hash("a\0", 2));
	CHECK(name_hash("", 0) != name_hash("\0", 1));
	CHECK(name_hash("abcdefgh", 8) != name_hash("abcdefgh\0", 9));
	/* Word order matters. */
	CHECK(name_hash("AAAAAAAABBBBBBBB", 16) != name_hash("BBBBBBBBAAAAAAAA", 16));

	/* Any one byte changed, at any position of names of 1..40 bytes
	 * (whole words and the tail), to any value: no collision with the
	 * original among the 255 variants of each position. */
	unsigned collisions = 0, tried = 0;
	for (unsigned len = 1; len <= 40; len++) {
		char base[40];
		for (unsigned i = 0; i < len; i++)
			base[i] = (char)('a' + (i * 7) % 26);
		uint32_t h0 = name_hash(base, len);
		for (unsigned pos = 0; pos < len; pos++) {
			for (unsigned v = 0; v < 256; v++) {
				if ((char)v == base[pos])
					continue;
				char n[40];
				memcpy(n, base, len);
				n[pos] = (char)v;
				tried++;
				collisions += name_hash(n, len) == h0;
			}
		}
	}
	CHECK(collisions == 0, "%u of %u one-byte changes collide", collisions, tried);
}

static void test_bucket_range(void)
{
	SECTION("d_hash_bucket range");
	static const unsigned bits[] = { 1, 4, 8, 12, 16, 20, 24, 31 };
	struct dentry *parents = calloc(64, sizeof(*parents));
	for (unsigned b = 0; b < ARRAY_SIZE(bits); b++) {
		int ok = 1;
		for (unsigned p = 0; p < 64; p++)
			for (uint32_t h = 0; h < 2000; h++) {
				uint32_t x = h * 2654435761u;
				if (d_hash_bucket(&parents[p], x, bits[b]) >= (1ull << bits[b]))
					ok = 0;
			}
		CHECK(ok, "a bucket beyond 1 << %u", bits[b]);
		/* determinism */
		CHECK_EQ(d_hash_bucket(&parents[3], 12345, bits[b]), d_hash_bucket(&parents[3], 12345, bits[b]));
	}
	free(parents);
}

/* Bucket occupancy of n names under one parent. */
static void spread_one_parent(const char *what, const void *parent, unsigned bits, unsigned long n,
			      void (*make)(char *buf, unsigned long i))
{
	unsigned nb = 1u << bits;
	unsigned *counts = calloc(nb, sizeof(*counts));
	char name[300];
	for (unsigned long i = 0; i < n; i++) {
		make(name, i);
		counts[d_hash_bucket(parent, name_hash(name, (unsigned)strlen(name)), bits)]++;
	}
	check_uniform(what, counts, nb, n);
	free(counts);
}

static void mk_seq(char *b, unsigned long i) { sprintf(b, "file%lu", i); }
static void mk_bare(char *b, unsigned long i) { sprintf(b, "%lu", i); }
static void mk_long_prefix(char *b, unsigned long i)
{
	sprintf(b, "%s%08lu", "a-shared-prefix-that-is-longer-than-several-machine-words-and-then-some-more-x", i);
}
static void mk_suffix(char *b, unsigned long i) { sprintf(b, "%lu.o", i); }
static void mk_eight(char *b, unsigned long i)
{
	/* exactly one word: every byte a digit, no tail */
	sprintf(b, "%08lu", i);
}

static void test_distribution(void)
{
	SECTION("bucket distribution");
	struct dentry *parent = malloc(sizeof(*parent));
	spread_one_parent("\"file%lu\", 2^16 buckets, 4/bucket", parent, 16, 1ul << 18, mk_seq);
	spread_one_parent("\"file%lu\", 2^10 buckets, 256/bucket", parent, 10, 1ul << 18, mk_seq);
	spread_one_parent("\"%lu\", 2^16 buckets", parent, 16, 1ul << 18, mk_bare);
	spread_one_parent("78-byte prefix + 8 digits, 2^12 buckets", parent, 12, 1ul << 17, mk_long_prefix);
	spread_one_parent("\"%lu.o\", 2^14 buckets", parent, 14, 1ul << 17, mk_suffix);
	spread_one_parent("8 digits (one whole word), 2^16 buckets", parent, 16, 1ul << 18, mk_eight);

	/* Two-byte names: every value of the two bytes. */
	{
		unsigned nb = 1u << 12;
		unsigned *counts = calloc(nb, sizeof(*counts));
		for (unsigned v = 0; v < 65536; v++) {
			char n[2] = { (char)(v & 0xff), (char)(v >> 8) };
			counts[d_hash_bucket(parent, name_hash(n, 2), 12)]++;
		}
		check_uniform("all 65536 two-byte names, 2^12 buckets", counts, nb, 65536);
		free(counts);
	}
	free(parent);
}

static void test_parents(void)
{
	SECTION("different parents");
	/* Parents as the dcache has them: dentries in one array (addresses a
	 * dentry apart) and dentries from separate allocations. */
	enum { NP = 4096, NN = 64 };
	struct dentry *arr = calloc(NP, sizeof(*arr));
	struct dentry **sep = calloc(NP, sizeof(*sep));
	for (unsigned i = 0; i < NP; i++)
		sep[i] = malloc(sizeof(struct dentry));
	uint32_t hashes[NN];
	char name[32];
	for (unsigned j = 0; j < NN; j++) {
		sprintf(name, "n%u", j);
		hashes[j] = name_hash(name, (unsigned)strlen(name));
	}
	/* The array: dentries a sizeof(struct dentry) apart, wherever the
	 * allocator put the array. */
	{
		unsigned nb = 1u << D_HASH_BITS;
		unsigned *counts = calloc(nb, sizeof(*counts));
		for (unsigned i = 0; i < NP; i++)
			for (unsigned j = 0; j < NN; j++)
				counts[d_hash_bucket(&arr[i], hashes[j], D_HASH_BITS)]++;
		check_uniform("4096 array parents x 64 names", counts, nb, (unsigned long)NP * NN);
		free(counts);
	}

	/* Separate allocations are 192 bytes apart with glibc's malloc (the
	 * size of struct dentry rounded to its chunk size), 256 with ASan's;
	 * where the run starts depends on ASLR.  So the spread is measured
	 * for those strides at 16 fixed start addresses: a run's result must
	 * not depend on where the heap landed.
	 * (These checks found the first d_hash_bucket, which combined
	 * (parent >> 4) ^ (hash << 17) ^ hash with one multiplication, far
	 * over the bound at strides 192, 256 and 512: chi-square up to 157838
	 * where a uniform spread stays under 67707.) */
	static const unsigned lattice[] = { 192, 240, 256, 512 };
	for (unsigned s = 0; s < ARRAY_SIZE(lattice); s++) {
		unsigned nb = 1u << D_HASH_BITS, over = 0, longest = 0;
		double worst = 0;
		unsigned *counts = calloc(nb, sizeof(*counts));
		uint64_t x = 0x243f6a8885a308d3ull;
		for (unsigned base = 0; base < 16; base++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			/* a user-space heap address, 16-byte aligned */
			uintptr_t start = (uintptr_t)(0x550000000000ull + ((x >> 20) & 0xfffffffff0ull));
			memset(counts, 0, nb * sizeof(*counts));
			for (unsigned i = 0; i < NP; i++)
				for (unsigned j = 0; j < NN; j++)
					counts[d_hash_bucket((const void *)(start + (uintptr_t)i * lattice[s]), hashes[j],
							     D_HASH_BITS)]++;
			double chi = chi_square(counts, nb, (unsigned long)NP * NN);
			double df = nb - 1;
			if (chi > worst)
				worst = chi;
			if (chi >= df + 6 * sqrt(2 * df))
				over++;
			for (unsigned k = 0; k < nb; k++)
				if (counts[k] > longest)
					longest = counts[k];
		}
		printf("   stride %3u, 16 start addresses x 4096 parents x 64 names: %u over the bound, worst chi2 %.0f, "
		       "longest chain %u\n", lattice[s], over, worst, longest);
		CHECK(over == 0, "stride %u: %u of 16 start addresses give a chi-square over the bound (worst %.0f)",
		      lattice[s], over, worst);
		free(counts);
	}

	for (int kind = 0; kind < 2; kind++) {
		/* The same name under neighbouring parents: the buckets agree
		 * about as often as chance says (1 in 65536), never routinely. */
		unsigned same = 0, pairs = 0;
		for (unsigned i = 0; i + 1 < NP; i++) {
			const void *a = kind ? (void *)sep[i] : (void *)&arr[i];
			const void *b = kind ? (void *)sep[i + 1] : (void *)&arr[i + 1];
			for (unsigned j = 0; j < NN; j++) {
				pairs++;
				same += d_hash_bucket(a, hashes[j], D_HASH_BITS) == d_hash_bucket(b, hashes[j], D_HASH_BITS);
			}
		}
		/* expected pairs / 65536 = 4; a bound of 40 is ten times that */
		CHECK(same <= 40, "%s: %u of %u neighbour pairs share a bucket", kind ? "malloc'd" : "array", same,
		      pairs);

		/* One name, every parent: no bucket collects it more than a
		 * few times (the chain a lookup of that name walks).  4096
		 * names thrown at random into 65536 buckets put 6 in one with
		 * a probability of about 5e-6, 5 with about 5e-4. */
		unsigned *seen = calloc(1u << D_HASH_BITS, sizeof(*seen));
		unsigned distinct = 0, longest = 0;
		for (unsigned i = 0; i < NP; i++) {
			const void *p = kind ? (void *)sep[i] : (void *)&arr[i];
			uint32_t bkt = d_hash_bucket(p, hashes[7], D_HASH_BITS);
			distinct += !seen[bkt]++;
			if (seen[bkt] > longest)
				longest = seen[bkt];
		}
		CHECK(longest <= 6 && distinct >= NP / 2, "%s: one name under %u parents: %u buckets, longest %u",
		      kind ? "malloc'd" : "array", NP, distinct, longest);
		free(seen);
	}
	/* Parents at the fixed strides slab-like allocators give (the
	 * addresses of real dentries depend on the allocator: ASan's, for
	 * one, puts them 256 bytes apart).  Such lattices give more pairs in
	 * a bucket than chance would, but never long chains. */
	static const unsigned strides[] = { 64, 192, 240, 256, 320, 384, 512, 1024, 4096, 65536 };
	static const char *const one[] = { "Makefile", "a", "index.html", ".git", "n7" };
	unsigned worst = 0;
	for (unsigned s = 0; s < ARRAY_SIZE(strides); s++)
		for (unsigned j = 0; j < ARRAY_SIZE(one); j++) {
			unsigned nb = 1u << D_HASH_BITS;
			unsigned *seen = calloc(nb, sizeof(*seen));
			uint32_t h = name_hash(one[j], (unsigned)strlen(one[j]));
			unsigned longest = 0, distinct = 0;
			for (unsigned i = 0; i < NP; i++) {
				uintptr_t a = (uintptr_t)0x7f3a51200000ull + (uintptr_t)i * strides[s];
				uint32_t bkt = d_hash_bucket((const void *)a, h, D_HASH_BITS);
				distinct += !seen[bkt]++;
				if (seen[bkt] > longest)
					longest = seen[bkt];
			}
			if (longest > worst)
				worst = longest;
			CHECK(longest <= 6 && distinct >= NP / 2, "stride %u, \"%s\": %u buckets, longest %u",
			      strides[s], one[j], distinct, longest);
			free(seen);
		}
	printf("   one name under 4096 parents at 10 strides: longest chain %u\n", worst);
	for (unsigned i = 0; i < NP; i++)
		free(sep[i]);
	free(sep);
	free(arr);
}

static uint64_t hrng = 0x853c49e6748fea9bull;
static unsigned hrnd(void)
{
	hrng = hrng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(hrng >> 33);
}

/* A byte a name may hold: anything but NUL and '/', with the bytes that
 * the zero- and slash-detection tricks are touchy about made common. */
static char name_byte(void)
{
	static const unsigned char touchy[] = { 0x01, 0x2e, 0x2f ^ 0x80, 0x30, 0x7f, 0x80, 0x81, 0xaf, 0xfe, 0xff, 0x2e };
	unsigned c = hrnd() % 3 ? 1 + hrnd() % 255 : touchy[hrnd() % sizeof(touchy)];
	if (c == '/')
		c = 'x';
	return (char)c;
}

static void test_hash_component(void)
{
	SECTION("hash_component against name_hash");
	static char buf[512 + 64];
	unsigned bad_len = 0, bad_hash = 0, cases = 0;
	for (unsigned len = 0; len <= 300; len++) {
		for (unsigned align = 0; align < 16; align++) {
			for (int term = 0; term < 3; term++) {
				char *s = buf + align;
				for (unsigned i = 0; i < len; i++)
					s[i] = name_byte();
				/* junk after the terminator, in the same word and beyond */
				for (unsigned i = len; i < len + 24; i++)
					s[i] = name_byte();
				if (term == 0) {
					s[len] = 0;
				} else if (term == 1) {
					s[len] = '/';
					s[len + 1 + hrnd() % 8] = 0;
				} else {
					s[len] = 0;
					for (unsigned i = len + 1; i < len + 24; i++)
						s[i] = (i & 1) ? '/' : 0; /* terminators after the end */
				}
				uint32_t h = 0;
				unsigned got = hash_component(s, &h);
				cases++;
				if (got != len && bad_len++ < 5)
					printf("   len %u align %u term %d: length %u\n", len, align, term, got);
				else if (got == len && h != name_hash(s, len) && bad_hash++ < 5)
					printf("   len %u align %u term %d: hash differs\n", len, align, term);
			}
		}
	}
	CHECK(bad_len == 0, "%u of %u components measured wrong", bad_len, cases);
	CHECK(bad_hash == 0, "%u of %u components hashed unlike name_hash", bad_hash, cases);
	/* a path of several components, scanned one after the other */
	const char *path = "usr/lib/x86_64-linux-gnu/libc.so.6";
	const char *q = path;
	static const char *const parts[] = { "usr", "lib", "x86_64-linux-gnu", "libc.so.6" };
	for (unsigned i = 0; i < ARRAY_SIZE(parts); i++) {
		uint32_t h;
		unsigned n = hash_component(q, &h);
		CHECK_EQ(n, strlen(parts[i]));
		CHECK(h == name_hash(parts[i], (unsigned)strlen(parts[i])), "component %s", parts[i]);
		q += n + (q[n] == '/');
	}
	uint32_t h0;
	CHECK_EQ(hash_component("", &h0), 0);
	CHECK(h0 == name_hash("", 0));
	CHECK_EQ(hash_component("/abc", &h0), 0);

	SECTION("hash_component_max (getname's scan)");
	/* the same length and hash as hash_component up to max bytes; past
	 * them it stops within a word of max and sets no hash */
	unsigned bad_max = 0;
	for (unsigned len = 0; len <= 300; len++) {
		for (unsigned align = 0; align < 8; align++) {
			char *s = buf + align;
			for (unsigned i = 0; i < len; i++)
				s[i] = name_byte();
			s[len] = (len & 1) ? '/' : 0;
			s[len + 1] = 0;
			uint32_t hw = 0, hm = 0xdeadbeef;
			unsigned want = hash_component(s, &hw);
			unsigned got = hash_component_max(s, &hm, 255);
			if (want <= 255 ? (got != want || hm != hw) : (got <= 255 || got > 255 + 8 || hm != 0xdeadbeef))
				if (bad_max++ < 5)
					printf("   len %u align %u: hash_component_max gave %u\n", len, align, got);
		}
	}
	CHECK(bad_max == 0, "%u names scanned wrong by hash_component_max", bad_max);

	SECTION("d_name_eq: every length, a difference at every byte, junk after the names");
	{
		static union {
			struct dname d;
			char raw[sizeof(struct dname) + 64];
		} u;
		static char path[128];
		unsigned bad_eq = 0;
		for (unsigned len = 0; len <= 40; len++) {
			for (unsigned i = 0; i < len; i++)
				u.d.name[i] = name_byte();
			u.d.name[len] = 0;
			u.d.len = len;
			u.d.hash = name_hash(u.d.name, len);
			for (unsigned align = 0; align < 8; align++) {
				char *q = path + align;
				memcpy(q, u.d.name, len);
				q[len] = '/'; /* a component inside a path */
				for (unsigned i = len + 1; i < len + 16; i++)
					q[i] = name_byte();
				struct qstr qs = { .name = q, .len = len, .hash = u.d.hash };
				if (!d_name_eq(&u.d, &qs) && bad_eq++ < 5)
					printf("   len %u align %u: equal names differ\n", len, align);
				for (unsigned i = 0; i < len; i++) {
					char c = q[i];
					q[i] = (char)(c ^ 0x20);
					if (d_name_eq(&u.d, &qs) && bad_eq++ < 5)
						printf("   len %u align %u: byte %u differs, names equal\n", len, align, i);
					q[i] = c;
				}
			}
		}
		CHECK(bad_eq == 0, "%u d_name_eq answers wrong", bad_eq);
	}

	SECTION("hash_component at a page's end");
	long pg = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return;
	CHECK_EQ(mprotect(map + pg, (size_t)pg, PROT_NONE), 0); /* a read past the page faults */
	unsigned bad = 0;
	for (unsigned len = 0; len <= 40; len++) {
		/* the NUL is the page's last byte, so the string starts at every
		 * alignment as len goes */
		char *s = map + pg - 1 - len;
		for (unsigned i = 0; i < len; i++)
			s[i] = name_byte();
		s[len] = 0;
		uint32_t h;
		unsigned got = hash_component(s, &h);
		if ((got != len || h != name_hash(s, len)) && bad++ < 5)
			printf("   at the page end, len %u: length %u\n", len, got);
		/* and the same ended by a '/' one byte before the NUL */
		if (len >= 1) {
			s[len - 1] = '/';
			got = hash_component(s, &h);
			if ((got != len - 1 || h != name_hash(s, len - 1)) && bad++ < 5)
				printf("   at the page end, len %u then '/': length %u\n", len - 1, got);
		}
	}
	CHECK(bad == 0, "%u components at a page's end measured or hashed wrong", bad);
	munmap(map, 2 * (size_t)pg);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name_hash_determinism();
	test_bucket_range();
	test_distribution();
	test_parents();
	test_hash_component();
	return check_done();
}
