// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-rwsem: the read-write semaphore of every inode (src/lib/rwsem.h).
 *
 *   - one thread: zeroed memory is an unlocked semaphore; the trylocks
 *     follow the mode held (readers share, a writer excludes everyone) and
 *     every release leaves count at zero;
 *   - sharing: a second reader enters, blocking down_read, while a first
 *     one holds it;
 *   - order, each step waited for by watching the waiter asleep in the
 *     kernel (its /proc state), never by a timer:
 *       a reader arriving while a writer waits for readers queues behind it
 *       (no writer starvation); after a writer's release with readers and a
 *       writer asleep, the readers go first (no reader starvation), and the
 *       last of them lets the writer in;
 *   - contention: writers and readers on a few semaphores in a loop.  Inside
 *     a write section no one else is inside and the two halves of a pair
 *     written with a window between them agree; inside a read section no
 *     writer is; no increment is lost.  Every thread finishing is the proof
 *     of no lost wake-up: a lost one hangs, and the alarm reports it.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

static void watchdog(int sig)
{
	(void)sig;
	static const char m[] = "FAIL unit-rwsem: a waiter was never woken (watchdog)\n";
	ssize_t r = write(1, m, sizeof(m) - 1);
	(void)r;
	_exit(1);
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* true once thread tid sleeps in futex_wait on word: /proc's syscall file
 * names the call a blocked thread is in and its arguments, so a thread
 * asleep anywhere else (a sanitizer's own lock, the dynamic linker) does
 * not count, as a plain "state S" would let it */
static bool asleep_on(pid_t tid, const void *word)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	long nr;
	unsigned long addr;
	return sscanf(buf, "%ld 0x%lx", &nr, &addr) == 2 && nr == SYS_futex && addr == (unsigned long)(uintptr_t)word;
}

static void wait_asleep(const pid_t *tid, const void *word)
{
	pid_t t;
	while (!(t = __atomic_load_n(tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	while (!asleep_on(t, word))
		sched_yield();
}

/* the word itself, read as the semaphore's own code reads it */
static uint32_t count_of(struct rw_semaphore *s)
{
	return __atomic_load_n(&s->count, __ATOMIC_RELAXED);
}

static void single_thread(void)
{
	SECTION("one thread");
	struct rw_semaphore s;
	memset(&s, 0, sizeof(s));
	down_write(&s);
	CHECK(rwsem_is_write_locked(&s));
	CHECK(!down_read_trylock(&s));
	CHECK(!down_write_trylock(&s));
	up_write(&s);
	CHECK_EQ(count_of(&s), 0);
	down_read(&s);
	CHECK(down_read_trylock(&s));
	CHECK(!down_write_trylock(&s));
	CHECK(rwsem_is_locked(&s) && !rwsem_is_write_locked(&s));
	up_read(&s);
	up_read(&s);
	CHECK_EQ(count_of(&s), 0);
	CHECK(down_write_trylock(&s));
	up_write(&s);
	CHECK_EQ(count_of(&s), 0);
	/* the spinning trylock: gives up on a holder that stays, takes a
	 * free semaphore, and leaves the count as it found it otherwise */
	down_write(&s);
	CHECK(!down_write_trylock_spin(&s));
	CHECK(rwsem_is_write_locked(&s));
	up_write(&s);
	down_read(&s);
	CHECK(!down_write_trylock_spin(&s));
	CHECK_EQ(count_of(&s), 1);
	up_read(&s);
	CHECK(down_write_trylock_spin(&s));
	CHECK(rwsem_is_write_locked(&s));
	up_write(&s);
	CHECK_EQ(count_of(&s), 0);
}

/* ---- sharing and order ---- */
static struct rw_semaphore os;
static int order[8], norder;
static pid_t tids[4];
static int readers_together; /* order_reader leaves once this many readers are in */

static void note(int who)
{
	order[__atomic_fetch_add(&norder, 1, __ATOMIC_ACQ_REL)] = who;
}

static void *second_reader(void *arg)
{
	down_read(&os);
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	up_read(&os);
	return NULL;
}

static void sharing(void)
{
	SECTION("readers share");
	init_rwsem(&os);
	int in = 0;
	pthread_t t;
	down_read(&os);
	pthread_create(&t, NULL, second_reader, &in);
	/* the first reader holds it until the second has been inside */
	while (!__atomic_load_n(&in, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK(in);
	up_read(&os);
	pthread_join(t, NULL);
	CHECK_EQ(count_of(&os), 0);
}

static void *order_writer(void *arg)
{
	int who = (int)(long)arg;
	__atomic_store_n(&tids[who], my_tid(), __ATOMIC_RELEASE);
	down_write(&os);
	note(who);
	up_write(&os);
	return NULL;
}

static void *order_reader(void *arg)
{
	int who = (int)(long)arg;
	__atomic_store_n(&tids[who], my_tid(), __ATOMIC_RELEASE);
	down_read(&os);
	note(who);
	while (__atomic_load_n(&norder, __ATOMIC_ACQUIRE) < readers_together)
		sched_yield();
	up_read(&os);
	return NULL;
}

static void writer_not_starved(void)
{
	SECTION("a waiting writer goes before a reader that came after it");
	init_rwsem(&os);
	norder = 0;
	readers_together = 0;
	memset(tids, 0, sizeof(tids));
	pthread_t w, r;
	down_read(&os);
	pthread_create(&w, NULL, order_writer, (void *)1L);
	wait_asleep(&tids[1], &os.writer_seq);
	CHECK(count_of(&os) & RWSEM_WRITERS_WAITING);
	CHECK(!down_read_trylock(&os)); /* a fresh reader may not pass it */
	pthread_create(&r, NULL, order_reader, (void *)2L);
	wait_asleep(&tids[2], &os.count);
	up_read(&os);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	CHECK_EQ(norder, 2);
	CHECK_EQ(order[0], 1);
	CHECK_EQ(order[1], 2);
	CHECK_EQ(count_of(&os), 0);
}

static void reader_not_starved(void)
{
	SECTION("after a writer, sleeping readers go before a sleeping writer");
	init_rwsem(&os);
	norder = 0;
	readers_together = 2; /* both readers are inside before either leaves */
	memset(tids, 0, sizeof(tids));
	pthread_t r1, r2, w;
	down_write(&os);
	pthread_create(&r1, NULL, order_reader, (void *)1L);
	wait_asleep(&tids[1], &os.count);
	pthread_create(&w, NULL, order_writer, (void *)3L);
	wait_asleep(&tids[3], &os.writer_seq);
	pthread_create(&r2, NULL, order_reader, (void *)2L);
	wait_asleep(&tids[2], &os.count);
	CHECK((count_of(&os) & (RWSEM_READERS_WAITING | RWSEM_WRITERS_WAITING)) ==
	      (RWSEM_READERS_WAITING | RWSEM_WRITERS_WAITING));
	up_write(&os);
	pthread_join(r1, NULL);
	pthread_join(r2, NULL);
	pthread_join(w, NULL);
	CHECK_EQ(norder, 3);
	CHECK(order[0] != 3 && order[1] != 3);
	CHECK_EQ(order[2], 3);
	CHECK_EQ(count_of(&os), 0);
}

/*
 * A writer's release that finds both waiting bits while no reader sleeps:
 * the readers' bit can outlive its readers, since a reader whose futex_wait
 * returns because the count changed counts as woken and enters with the
 * bit still set (rwsem.c).  Then it was the readers' turn, nobody woke, and
 * the writers' bit stayed with no holder: the sleeping writer was never
 * woken, and any fresh reader slept for good behind the bit.  CI's baseline
 * stage hung here once (the watchdog); the state is made directly below.
 */
static void *stale_writer(void *arg)
{
	(void)arg;
	__atomic_store_n(&tids[1], my_tid(), __ATOMIC_RELEASE);
	down_write(&os);
	note(1);
	up_write(&os);
	return NULL;
}

static void stale_readers_bit(void)
{
	SECTION("a writer's release with the readers' bit set and no reader asleep wakes the writer");
	init_rwsem(&os);
	norder = 0;
	memset(tids, 0, sizeof(tids));
	down_write(&os);
	/* the bit of readers that all entered already */
	__atomic_fetch_or(&os.count, RWSEM_READERS_WAITING, __ATOMIC_RELAXED);
	pthread_t w;
	pthread_create(&w, NULL, stale_writer, NULL);
	wait_asleep(&tids[1], &os.writer_seq);
	CHECK(count_of(&os) & RWSEM_WRITERS_WAITING);
	up_write(&os);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	int err = pthread_timedjoin_np(w, NULL, &until);
	CHECK_EQ(err, 0);
	if (err) {
		/* not woken: a release of our own wakes it, so the run goes on */
		down_write(&os);
		up_write(&os);
		pthread_join(w, NULL);
	}
	CHECK_EQ(norder, 1);
	/* and the semaphore is free for a fresh reader */
	CHECK_EQ(count_of(&os), 0);
	CHECK(down_read_trylock(&os));
	up_read(&os);
}

/* ---- contention ---- */
enum { NSEM = 3, ROUNDS = 20000 };
static struct {
	struct rw_semaphore sem;
	int writers_in, readers_in; /* atomic */
	long a, b;                  /* a pair the writers keep equal */
	long writes;
} cs[NSEM];
static unsigned long bad_write, bad_read;
static pthread_barrier_t start;

/* a holder that gives up its CPU now and then outlasts the waiters' spin,
 * so they sleep and the wake-ups are exercised */
static void maybe_yield(unsigned seed)
{
	if (((seed >> 4) & 15) == 0)
		sched_yield();
}

static void *contender(void *arg)
{
	unsigned seed = (unsigned)(long)arg * 2654435761u;
	bool writer_mostly = (long)arg & 1;
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned k = (seed >> 16) % NSEM;
		bool w = ((seed >> 8) & 3) < (writer_mostly ? 3u : 1u);
		if (w) {
			switch ((seed >> 20) % 3) {
			case 0:
				down_write(&cs[k].sem);
				break;
			case 1:
				while (!down_write_trylock(&cs[k].sem))
					sched_yield();
				break;
			default: /* as inode_lock_spin */
				if (!down_write_trylock(&cs[k].sem) && !down_write_trylock_spin(&cs[k].sem))
					down_write(&cs[k].sem);
			}
			if (__atomic_add_fetch(&cs[k].writers_in, 1, __ATOMIC_RELAXED) != 1 ||
			    __atomic_load_n(&cs[k].readers_in, __ATOMIC_RELAXED))
				__atomic_fetch_add(&bad_write, 1, __ATOMIC_RELAXED);
			long v = cs[k].a + 1;
			cs[k].a = v;
			maybe_yield(seed);
			cs[k].b = v;
			cs[k].writes++;
			__atomic_sub_fetch(&cs[k].writers_in, 1, __ATOMIC_RELAXED);
			up_write(&cs[k].sem);
		} else {
			down_read(&cs[k].sem);
			__atomic_add_fetch(&cs[k].readers_in, 1, __ATOMIC_RELAXED);
			if (__atomic_load_n(&cs[k].writers_in, __ATOMIC_RELAXED) || cs[k].a != cs[k].b)
				__atomic_fetch_add(&bad_read, 1, __ATOMIC_RELAXED);
			maybe_yield(seed);
			__atomic_sub_fetch(&cs[k].readers_in, 1, __ATOMIC_RELAXED);
			up_read(&cs[k].sem);
		}
	}
	return NULL;
}

static void contention(void)
{
	SECTION("contention: exclusion, sharing, no lost wake-up");
	enum { NT = 6 };
	pthread_t t[NT];
	pthread_barrier_init(&start, NULL, NT);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, contender, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(bad_write, 0);
	CHECK_EQ(bad_read, 0);
	long writes = 0;
	for (int k = 0; k < NSEM; k++) {
		CHECK_EQ(cs[k].a, cs[k].writes);
		CHECK_EQ(cs[k].b, cs[k].writes);
		CHECK_EQ(count_of(&cs[k].sem), 0);
		writes += cs[k].writes;
	}
	CHECK(writes > 0);
	pthread_barrier_destroy(&start);
}

int main(void)
{
	signal(SIGALRM, watchdog);
	alarm(60);
	single_thread();
	sharing();
	writer_not_starved();
	reader_not_starved();
	stale_readers_bit();
	contention();
	return check_done();
}
