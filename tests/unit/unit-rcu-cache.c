// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-rcu-cache: the per-thread caches of RCU-freed objects
 * (src/lib/rcu_cache.c), which hold dentries and tmpfs inodes.
 *
 *   - memory is handed out again only after a grace period that began after
 *     its free: while a reader that began before the free is in its
 *     read-side section, no freed object comes back, however many are
 *     allocated; once it leaves, they do;
 *   - a reused object is all zeros, like calloc's;
 *   - a thread keeps at most RCU_CACHE_MAX objects however many it frees;
 *   - a thread that allocates while its own batches wait for their grace
 *     period keeps what comes back (beyond RCU_CACHE_MAX, up to
 *     RCU_CACHE_CEIL) and its next allocations reuse it;
 *   - a thread that exits with batches in flight and a batch open leaks
 *     nothing and its late callbacks free (LeakSanitizer in the ASan build);
 *   - create+unlink through the API reuses dentries and inodes and every
 *     name still resolves as it should;
 *   - the names renames give a dentry (dcache.c's dname_cache) follow the
 *     same rule: a replaced name is not handed out again while a reader
 *     that predates the rename is in, and is once it has left.
 */
#include "vfs.h"
#include "lib/rcu_cache.h"
#include "check.h"
#include <pthread.h>
#include <uvfs.h>

struct obj {
	long head[6];
	struct rcu_head rcu;
	long tail[5];
};

/*
 * The hand-over of a freed object to its callback.  call_rcu queues the
 * callback through liburcu, which is not built with TSan, so TSan sees no
 * order between the freeing thread's last writes (a malloc's, a fill's)
 * and the free() on liburcu's call_rcu thread: a thread that existed before
 * the writes (test_bound's) makes that a reported race.  Each free of the
 * test releases this counter after its writes and the callback acquires it
 * before free(): the order liburcu's queue gives, made visible to TSan for
 * the test's own objects only (uvfs's callbacks are named in tests/tsan.supp).
 */
static unsigned long handed_over;

static void obj_free_rcu(struct rcu_head *h)
{
	(void)__atomic_load_n(&handed_over, __ATOMIC_ACQUIRE);
	free(container_of(h, struct obj, rcu));
}

static struct rcu_cache test_cache = {
	.name = "test",
	.size = sizeof(struct obj),
	.rcu_off = offsetof(struct obj, rcu),
	.free_rcu = obj_free_rcu,
	.id = RCU_CACHE_TYPES - 1,
};

static void obj_free(void *o)
{
	__atomic_fetch_add(&handed_over, 1, __ATOMIC_RELEASE);
	rcu_cache_free(&test_cache, o);
}

#if defined(__SANITIZE_THREAD__)
#define REUSE 0 /* the cache is off under TSan (rcu_cache.h) */
#else
#define REUSE 1
#endif

enum { N = RCU_CACHE_BATCH };

static bool in_set(void *p, struct obj **set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == p)
			return true;
	return false;
}

static void fill(struct obj *o)
{
	memset(o, 0xa5, sizeof(*o));
}

static bool all_zero(const struct obj *o)
{
	const unsigned char *b = (const unsigned char *)o;
	for (size_t i = 0; i < sizeof(*o); i++)
		if (b[i])
			return false;
	return true;
}

static int reader_in, reader_go;

static void *reader(void *arg)
{
	(void)arg;
	urcu_memb_register_thread();
	urcu_memb_read_lock();
	__atomic_store_n(&reader_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&reader_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
	return NULL;
}

/* fn in a thread of its own, registered with liburcu: a fresh cache (a
 * thread's bound depends on what it allocated before) */
static void *trampoline(void *fn)
{
	urcu_memb_register_thread();
	((void (*)(void))fn)();
	urcu_memb_unregister_thread();
	return NULL;
}

static void in_own_thread(void (*fn)(void))
{
	pthread_t t;
	pthread_create(&t, NULL, trampoline, (void *)fn);
	pthread_join(t, NULL);
}

static void test_reuse_after_grace_period(void)
{
	struct obj *freed[N], *got[4 * N];
	for (int i = 0; i < N; i++) {
		freed[i] = rcu_cache_zalloc(&test_cache);
		CHECK(freed[i] && all_zero(freed[i]), "fresh object %d zeroed", i);
		fill(freed[i]);
	}
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	while (!__atomic_load_n(&reader_in, __ATOMIC_ACQUIRE))
		usleep(1000);
	/* the reader began before these frees: it may still be on them */
	for (int i = 0; i < N; i++)
		obj_free(freed[i]);
	int early = 0;
	for (int round = 0; round < 4; round++) {
		usleep(20000); /* time for the call_rcu thread, were it not blocked */
		for (int i = 0; i < N; i++) {
			got[round * N + i] = rcu_cache_zalloc(&test_cache);
			if (in_set(got[round * N + i], freed, N))
				early++;
		}
	}
	CHECK(early == 0, "%d freed objects handed out while a reader that predates their free was in", early);
	__atomic_store_n(&reader_go, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	urcu_memb_barrier(); /* the batch's callback has run */
	int back = 0, zero = 0;
	for (int i = 0; i < N; i++) {
		struct obj *o = rcu_cache_zalloc(&test_cache);
		back += in_set(o, freed, N);
		zero += all_zero(o);
		free(o);
	}
	CHECK(back == (REUSE ? N : 0), "%d of %d freed objects reused after the grace period", back, N);
	CHECK(zero == N, "%d of %d reused objects zeroed", zero, N);
	for (int i = 0; i < 4 * N; i++)
		free(got[i]); /* from malloc: free() is always allowed */
}

/* A thread that never allocated keeps RCU_CACHE_MAX however many it frees. */
static void bounded(void)
{
	enum { M = 4 * RCU_CACHE_MAX };
	for (int i = 0; i < M; i++)
		obj_free(malloc(sizeof(struct obj)));
	urcu_memb_barrier();
	long ready, waiting;
	rcu_cache_stats(&test_cache, &ready, &waiting);
	CHECK(ready <= RCU_CACHE_MAX, "a thread keeps %ld objects after freeing %d (max %d)", ready, M,
	      RCU_CACHE_MAX);
	CHECK(waiting < RCU_CACHE_BATCH, "%ld objects wait in the open batch", waiting);
	if (REUSE)
		CHECK(ready >= RCU_CACHE_MAX - RCU_CACHE_BATCH, "a thread keeps %ld objects for reuse", ready);
}

/*
 * Churn, as a create+unlink loop makes it: every allocation while batches
 * of the thread's own wait for their grace period (a reader holds it here,
 * the call_rcu thread's 10 ms between passes in a real run) is a calloc,
 * and raises the thread's bound by one, so that everything that comes back
 * is kept (not freed by the call_rcu thread) and serves the next
 * allocations.  Then a churn past RCU_CACHE_CEIL: the bound stops there.
 */
enum { W = 4 * RCU_CACHE_MAX };
static struct obj *churned[W], *again[W];

static void reader_start(pthread_t *t)
{
	__atomic_store_n(&reader_in, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&reader_go, 0, __ATOMIC_RELAXED);
	pthread_create(t, NULL, reader, NULL);
	while (!__atomic_load_n(&reader_in, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static void reader_stop(pthread_t t)
{
	__atomic_store_n(&reader_go, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	urcu_memb_barrier(); /* every batch's callback has run */
}

static void churner(void)
{
	pthread_t t;
	reader_start(&t);
	for (int i = 0; i < W; i++) {
		churned[i] = rcu_cache_zalloc(&test_cache);
		fill(churned[i]);
		obj_free(churned[i]);
	}
	reader_stop(t);
	long ready, waiting;
	rcu_cache_stats(&test_cache, &ready, &waiting);
	if (REUSE)
		CHECK(ready >= W - RCU_CACHE_BATCH, "a churning thread keeps %ld of the %d objects it freed (max %d)",
		      ready, W, RCU_CACHE_MAX);
	int back = 0, zero = 0;
	for (int i = 0; i < W; i++) {
		struct obj *o = rcu_cache_zalloc(&test_cache);
		back += in_set(o, churned, W);
		zero += all_zero(o);
		again[i] = o;
	}
	CHECK(back >= (REUSE ? W - RCU_CACHE_BATCH : 0), "%d of the next %d allocations reuse", back, W);
	CHECK(zero == W, "%d of %d reused objects zeroed", zero, W);
	for (int i = 0; i < W; i++)
		free(again[i]); /* from malloc: free() is always allowed */

	/* past the ceiling */
	enum { W2 = RCU_CACHE_CEIL + 2 * RCU_CACHE_MAX };
	reader_start(&t);
	for (int i = 0; i < W2; i++)
		obj_free(rcu_cache_zalloc(&test_cache));
	reader_stop(t);
	rcu_cache_stats(&test_cache, &ready, &waiting);
	CHECK(ready <= RCU_CACHE_CEIL, "a churning thread keeps %ld objects after freeing %d (ceiling %d)", ready,
	      W2, RCU_CACHE_CEIL);
	if (REUSE)
		CHECK(ready >= RCU_CACHE_CEIL - 2 * RCU_CACHE_BATCH, "a churning thread keeps %ld objects (ceiling %d)",
		      ready, RCU_CACHE_CEIL);
}

static void *exiting(void *arg)
{
	(void)arg;
	urcu_memb_register_thread();
	struct obj *o[2 * N + 5];
	for (int i = 0; i < 2 * N + 5; i++)
		o[i] = rcu_cache_zalloc(&test_cache);
	for (int i = 0; i < 2 * N + 5; i++)
		obj_free(o[i]);
	/* two batches in flight, five waiting: the exit hands them all on */
	urcu_memb_unregister_thread();
	return NULL;
}

static void test_thread_exit(void)
{
	for (int k = 0; k < 8; k++) {
		pthread_t t;
		pthread_create(&t, NULL, exiting, NULL);
		pthread_join(t, NULL);
	}
	urcu_memb_barrier();
	urcu_memb_barrier(); /* the exit's own batch may be queued behind */
	CHECK(1, "threads exited with batches in flight");
}

static void test_api_reuse(void)
{
	struct uvfs *vfs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	CHECK(vfs && p);
	int bad = 0;
	for (int i = 0; i < 5000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%d", i % 7);
		int fd = uvfs_openat(p, AT_FDCWD, name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			bad++;
			continue;
		}
		struct stat st;
		if (uvfs_fstat(p, fd, &st) || st.st_nlink != 1 || st.st_size != 0 || st.st_mode != (S_IFREG | 0600))
			bad++;
		if (uvfs_write(p, fd, "x", 1) != 1)
			bad++;
		uvfs_close(p, fd);
		if (i % 3 == 0 && uvfs_mkdirat(p, AT_FDCWD, "d", 0700))
			bad++;
		if (uvfs_unlinkat(p, AT_FDCWD, name, 0))
			bad++;
		if (uvfs_fstatat(p, AT_FDCWD, name, &st, 0) != -ENOENT)
			bad++;
		if (i % 3 == 0 && uvfs_unlinkat(p, AT_FDCWD, "d", AT_REMOVEDIR))
			bad++;
	}
	CHECK(bad == 0, "%d wrong results in 5000 create/write/unlink rounds", bad);
	uvfs_proc_destroy(p);
	uvfs_destroy(vfs);
}

static bool in_names(const struct dname *n, const struct dname **set, int k)
{
	for (int i = 0; i < k; i++)
		if (set[i] == n)
			return true;
	return false;
}

static void test_rename_names(void)
{
	enum { R = 4 * N };
	struct uvfs *vfs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	CHECK(vfs && p);
	int fd = uvfs_openat(p, AT_FDCWD, "r0", O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0, "create r0: %d", fd);
	struct file *f = fget_raw(p, fd);
	struct dentry *d = f->f_path.dentry; /* held by the open fd */
	fput(f);
	/* "r0" is in the dentry; from here on each name is a cached one */
	CHECK(uvfs_renameat2(p, AT_FDCWD, "r0", AT_FDCWD, "r1", 0) == 0);
	const struct dname *old[R], *later[R];
	reader_in = reader_go = 0;
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	while (!__atomic_load_n(&reader_in, __ATOMIC_ACQUIRE))
		usleep(1000);
	int bad = 0, early = 0;
	char from[8] = "r1", to[8];
	for (int i = 0; i < R; i++) {
		old[i] = __atomic_load_n(&d->d_name, __ATOMIC_ACQUIRE);
		snprintf(to, sizeof(to), "r%d", i % 2 ? 1 : 2);
		struct stat st;
		if (uvfs_renameat2(p, AT_FDCWD, from, AT_FDCWD, to, 0) || uvfs_fstatat(p, AT_FDCWD, to, &st, 0) ||
		    uvfs_fstatat(p, AT_FDCWD, from, &st, 0) != -ENOENT || strcmp(d->d_name->name, to))
			bad++;
		early += in_names(__atomic_load_n(&d->d_name, __ATOMIC_ACQUIRE), old, i + 1);
		strcpy(from, to);
	}
	CHECK(bad == 0, "%d wrong results in %d renames", bad, R);
	CHECK(early == 0, "%d replaced names handed out again while a reader that predates them was in", early);
	__atomic_store_n(&reader_go, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	urcu_memb_barrier(); /* every full batch of replaced names is back */
	int back = 0;
	for (int i = 0; i < R; i++) {
		snprintf(to, sizeof(to), "r%d", i % 2 ? 1 : 2);
		if (uvfs_renameat2(p, AT_FDCWD, from, AT_FDCWD, to, 0) || strcmp(d->d_name->name, to))
			bad++;
		later[i] = __atomic_load_n(&d->d_name, __ATOMIC_ACQUIRE);
		back += in_names(later[i], old, R);
		strcpy(from, to);
	}
	CHECK(bad == 0, "%d wrong results in %d renames after the reader", bad, R);
	CHECK(REUSE ? back > 0 : back == 0, "%d of %d new names reused replaced ones after the grace period", back,
	      R);
	uvfs_close(p, fd);
	uvfs_proc_destroy(p);
	uvfs_destroy(vfs);
}

int main(void)
{
	urcu_memb_register_thread();
	test_reuse_after_grace_period();
	in_own_thread(bounded);
	in_own_thread(churner);
	test_thread_exit();
	urcu_memb_unregister_thread();
	test_api_reuse();
	test_rename_names();
	return check_done();
}
