// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-counter: sharded counters (src/lib/counter.h).
 *
 *   - each shard has a cache line of its own;
 *   - adds from any slot (slots wrap onto the shards) sum exactly, with
 *     negative adds too;
 *   - threads adding at once, some sharing a shard, lose no update, and a
 *     reader summing meanwhile never sees more than was added;
 *   - through the API: the instance's open-file count (max_files, ENFILE)
 *     stays exact after threads opened and closed files on their own slots.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>

static struct pcounter pc;
static volatile int stop;
enum { NT = 6, ADDS = 200000 };

static void *adder(void *arg)
{
	/* two threads on each of shards 0..2: slots 0, 16, 1, 17, 2, 18 */
	long i = (long)arg;
	uvfs_thread_slot = (unsigned)((i / 2) + (i % 2) * COUNTER_SHARDS);
	for (int k = 0; k < ADDS; k++) {
		pcounter_add(&pc, 3);
		pcounter_add(&pc, -2);
	}
	return NULL;
}

/* threads that call in and wait: each reports the slot it holds */
enum { NSLOT = COUNTER_SHARDS + 4 };
static unsigned held_slot[NSLOT];
static int slots_in, slots_go;
static struct uvfs *slot_vfs;
static struct uvfs_proc *slot_proc;

static void *slot_holder(void *arg)
{
	long i = (long)arg;
	struct stat st;
	uvfs_fstat(slot_proc, -1, &st); /* the first call registers the thread */
	held_slot[i] = uvfs_thread_slot;
	__atomic_add_fetch(&slots_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&slots_go, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
}

static void *summer(void *arg)
{
	unsigned long *over = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		long s = pcounter_sum(&pc);
		/* a shard only grows but for the -2 that follows each +3: read
		 * shard by shard, the sum stays within [0, final + 3 per thread] */
		if (s < 0 || s > (long)NT * ADDS + 3 * NT)
			(*over)++;
	}
	return NULL;
}

static struct uvfs *vfs;
static struct uvfs_proc *proc;
static void *opener(void *arg)
{
	for (int k = 0; k < 2000; k++) {
		int fd = uvfs_openat(proc, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0);
		if (fd >= 0)
			uvfs_close(proc, fd);
	}
	return arg;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	SECTION("layout");
	CHECK_EQ(sizeof(struct counter_shard), 64);
	CHECK_EQ(_Alignof(struct counter_shard), 64);
	CHECK_EQ(sizeof(struct pcounter), 64 * COUNTER_SHARDS);

	SECTION("one thread, every slot");
	unsigned mine = uvfs_thread_slot; /* put back before the API calls below */
	struct pcounter c;
	memset(&c, 0, sizeof(c));
	long want = 0;
	for (unsigned slot = 0; slot < 3 * COUNTER_SHARDS + 5; slot++) {
		uvfs_thread_slot = slot;
		pcounter_add(&c, (long)slot + 1);
		want += (long)slot + 1;
		if (slot % 3 == 0) {
			pcounter_add(&c, -7);
			want -= 7;
		}
	}
	CHECK_EQ(pcounter_sum(&c), want);
	/* every shard got something: slots spread over all of them */
	int used = 0;
	for (int i = 0; i < COUNTER_SHARDS; i++)
		used += c.s[i].v != 0;
	CHECK_EQ(used, COUNTER_SHARDS);
	uvfs_thread_slot = 5;
	pcounter_add(&c, -want);
	CHECK_EQ(pcounter_sum(&c), 0);

	SECTION("threads");
	pthread_t th[NT], sum;
	unsigned long over = 0;
	pthread_create(&sum, NULL, summer, &over);
	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, adder, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(sum, NULL);
	CHECK_EQ(pcounter_sum(&pc), (long)NT * ADDS);
	CHECK_EQ(over, 0);
	CHECK_EQ(pc.s[0].v, 2L * ADDS); /* slots 0 and 16 */
	CHECK_EQ(pc.s[3].v, 0);

	SECTION("slots held by one thread each");
	uvfs_thread_slot = mine;
	/* a thread that calls in holds a slot no other live thread holds:
	 * the open-file count's plain adds rely on it */
	slot_vfs = uvfs_create(NULL);
	slot_proc = uvfs_proc_create(slot_vfs, 0, 0);
	struct stat st0;
	uvfs_fstat(slot_proc, -1, &st0); /* this thread holds one too */
	pthread_t sl[NSLOT];
	for (long i = 0; i < NSLOT; i++)
		pthread_create(&sl[i], NULL, slot_holder, (void *)i);
	while (__atomic_load_n(&slots_in, __ATOMIC_ACQUIRE) < NSLOT)
		sched_yield();
	unsigned seen[COUNTER_SHARDS] = { 0 };
	for (int i = 0; i < NSLOT; i++)
		seen[held_slot[i]]++;
	int dup = 0;
	for (int i = 0; i < COUNTER_SHARED; i++)
		dup += seen[i] > 1;
	CHECK_EQ(dup, 0);
	if (uvfs_thread_slot < COUNTER_SHARED)
		CHECK_EQ(seen[uvfs_thread_slot], 0);
	/* the rest share the atomic shard */
	CHECK_EQ(seen[COUNTER_SHARED], NSLOT - COUNTER_SHARED + (uvfs_thread_slot < COUNTER_SHARED));
	__atomic_store_n(&slots_go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NSLOT; i++)
		pthread_join(sl[i], NULL);
	uvfs_proc_destroy(slot_proc);
	uvfs_destroy(slot_vfs);

	SECTION("the open-file count through the API");
	struct uvfs_options o = { .max_files = 3 };
	vfs = uvfs_create(&o);
	proc = uvfs_proc_create(vfs, 0, 0);
	pthread_t op[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&op[i], NULL, opener, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(op[i], NULL);
	/* every file was closed: exactly max_files can be open again */
	int fds[4], n = 0;
	for (int i = 0; i < 4; i++)
		if ((fds[n] = uvfs_openat(proc, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0)) >= 0)
			n++;
	CHECK_EQ(n, 3);
	CHECK_ERR(uvfs_openat(proc, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0), ENFILE);
	for (int i = 0; i < n; i++)
		uvfs_close(proc, fds[i]);
	uvfs_destroy(vfs);
	return check_done();
}
