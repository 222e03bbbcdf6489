// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-seqcount: sequence counts (src/lib/seqcount.h).
 *
 *   - single-threaded: begin returns an even count; retry is false with no
 *     writer in between and true after one; a count left odd by a writer in
 *     progress is never returned by read_seqcount_begin;
 *   - threads: writers (serialised by a mutex of their own, as the core
 *     serialises rename_seq writers with seq_lock) keep several fields equal
 *     and make them all change at once; readers that see no retry never see
 *     the fields disagree, and some of their reads do succeed;
 *   - the same with writers that hold no lock of their own and take the
 *     count itself (write_seqcount_lock, as the inode times): no write is
 *     lost (fields[0] counts them) and no read is torn.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>

enum { NFIELDS = 4 };
static seqcount_t sc;
static long fields[NFIELDS];
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static int count_is_lock; /* writers take the count itself, not wlock */
static volatile int stop;

struct reader_stats {
	unsigned long ok, retried, torn;
};

static void *writer(void *arg)
{
	unsigned long n = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (count_is_lock) {
			write_seqcount_lock(&sc);
		} else {
			pthread_mutex_lock(&wlock);
			write_seqcount_begin(&sc);
		}
		long v = READ_ONCE(fields[0]) + 1;
		for (int i = 0; i < NFIELDS; i++) {
			WRITE_ONCE(fields[i], v);
			if (i == 1)
				barrier(); /* a window between the fields */
		}
		if (count_is_lock) {
			write_seqcount_unlock(&sc);
		} else {
			write_seqcount_end(&sc);
			pthread_mutex_unlock(&wlock);
		}
		n++;
	}
	*(unsigned long *)arg = n;
	return NULL;
}

static void *reader(void *arg)
{
	struct reader_stats *s = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		long v[NFIELDS];
		unsigned seq = read_seqcount_begin(&sc);
		if (seq & 1)
			s->torn++; /* begin must never hand out an odd count */
		for (int i = 0; i < NFIELDS; i++)
			v[i] = READ_ONCE(fields[i]);
		if (read_seqcount_retry(&sc, seq)) {
			s->retried++;
			continue;
		}
		for (int i = 1; i < NFIELDS; i++)
			if (v[i] != v[0]) {
				s->torn++;
				break;
			}
		s->ok++;
	}
	return NULL;
}

enum { NW = 2, NR = 2 };

static void race(int mode)
{
	count_is_lock = mode;
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	sc.sequence = 0;
	for (int i = 0; i < NFIELDS; i++)
		fields[i] = 0;
	pthread_t wt[NW], rt[NR];
	unsigned long writes[NW];
	struct reader_stats rs[NR];
	memset(rs, 0, sizeof(rs));
	for (int i = 0; i < NW; i++)
		pthread_create(&wt[i], NULL, writer, &writes[i]);
	for (int i = 0; i < NR; i++)
		pthread_create(&rt[i], NULL, reader, &rs[i]);
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	unsigned long w = 0, ok = 0, retried = 0, torn = 0;
	for (int i = 0; i < NW; i++) {
		pthread_join(wt[i], NULL);
		w += writes[i];
	}
	for (int i = 0; i < NR; i++) {
		pthread_join(rt[i], NULL);
		ok += rs[i].ok;
		retried += rs[i].retried;
		torn += rs[i].torn;
	}
	printf("   %lu writes; reads: %lu consistent, %lu retried, %lu torn\n", w, ok, retried, torn);
	CHECK(w > 0 && ok > 0, "%lu writes, %lu reads", w, ok);
	CHECK_EQ(torn, 0);
	CHECK_EQ(raw_read_seqcount(&sc) & 1, 0);
	CHECK_EQ(raw_read_seqcount(&sc), 2 * w);
	CHECK_EQ(fields[0], (long)w);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	SECTION("single thread");
	seqcount_t s = { 0 };
	unsigned b = read_seqcount_begin(&s);
	CHECK_EQ(b & 1, 0);
	CHECK(!read_seqcount_retry(&s, b));
	write_seqcount_begin(&s);
	CHECK_EQ(raw_read_seqcount(&s) & 1, 1); /* odd while the writer is in */
	CHECK(read_seqcount_retry(&s, b));
	write_seqcount_end(&s);
	CHECK_EQ(raw_read_seqcount(&s), b + 2);
	CHECK(read_seqcount_retry(&s, b)); /* a whole write in between */
	unsigned b2 = read_seqcount_begin(&s);
	CHECK_EQ(b2, b + 2);
	CHECK(!read_seqcount_retry(&s, b2));
	/* the count wraps without turning odd */
	s.sequence = ~0u - 1;
	b = read_seqcount_begin(&s);
	write_seqcount_begin(&s);
	write_seqcount_end(&s);
	CHECK_EQ(raw_read_seqcount(&s), 0);
	CHECK(read_seqcount_retry(&s, b));

	SECTION("writers and readers");
	race(0);
	SECTION("writers that lock with the count, and readers");
	race(1);
	return check_done();
}
