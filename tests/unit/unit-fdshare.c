// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-fdshare: one open file used from several threads and procs at once.
 *
 * A table used by a single thread runs in a lock-free mode (fdtable.c: no
 * file reference, no f_pos lock, no table lock) that a second thread or proc
 * must end safely.  Checked here, each case started while the first thread
 * is busy in that mode:
 *   - f_pos stays atomic: two threads reading one open file (through a
 *     forked table, and through one shared proc) read every record exactly
 *     once, never a torn one;
 *   - a second thread closes and replaces the fd the owner is reading: the
 *     owner sees the old file's records, EBADF or the new file's records,
 *     nothing else, and the old (unlinked) file is freed exactly once (the
 *     tmpfs inode count comes back; ASan sees no use after free);
 *   - a table forked by another thread while the owner opens and closes:
 *     every fd of the copy works, every file is released at the end;
 *   - the owner thread exits, another thread carries on with its fds.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>
#include <sys/statfs.h>

#define REC 8
#define NREC 40000
#define CHUNK 64

static struct uvfs *vfs;

static long inodes_used(struct uvfs_proc *p)
{
	struct statfs s;
	if (uvfs_statfs(p, "/", &s))
		return -1;
	return (long)(s.f_files - s.f_ffree);
}

/* "%07u\n" records, numbered from base */
static bool write_records(struct uvfs_proc *p, const char *path, unsigned base, unsigned n)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	char *buf = malloc((size_t)n * REC + 1);
	for (unsigned i = 0; i < n; i++)
		snprintf(buf + (size_t)i * REC, REC + 1, "%07u\n", base + i);
	bool ok = uvfs_write(p, fd, buf, (size_t)n * REC) == (long)n * REC;
	free(buf);
	return uvfs_close(p, fd) == 0 && ok;
}

/* The record number in buf, or -1 if it is not a whole record. */
static long parse_record(const char *buf, long len)
{
	if (len != REC || buf[REC - 1] != '\n')
		return -1;
	long v = 0;
	for (int i = 0; i < REC - 1; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		v = v * 10 + (buf[i] - '0');
	}
	return v;
}

/* ---- f_pos atomicity ---- */

struct reader {
	struct uvfs_proc *p;
	int fd;
	unsigned char *seen; /* NREC counters shared by the readers */
	unsigned long reads, torn, errors;
	pthread_barrier_t *start;
	struct reader *other;
	int done;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	pthread_barrier_wait(r->start);
	for (;;) {
		/* one record, or a run of them: a longer read is a wider
		 * window for a race on f_pos */
		char buf[REC * CHUNK];
		unsigned want = (r->reads & 1) ? CHUNK : 1;
		long n = uvfs_read(r->p, r->fd, buf, REC * want);
		if (n == 0)
			break;
		if (n < 0 || n % REC) {
			r->errors++;
			break;
		}
		for (long off = 0; off < n; off += REC) {
			long v = parse_record(buf + off, REC);
			if (v < 0 || v >= NREC)
				r->torn++;
			else
				__atomic_fetch_add(&r->seen[v], 1, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&r->reads, r->reads + 1, __ATOMIC_RELEASE);
		/* keep within 16 reads of the other reader, so that the two
		 * really interleave even when the machine runs one at a time */
		while (r->reads > __atomic_load_n(&r->other->reads, __ATOMIC_ACQUIRE) + 16 &&
		       !__atomic_load_n(&r->other->done, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void fpos_case(const char *what, struct uvfs_proc *p, int share_mode)
{
	/* share_mode 0: the second reader uses a fork of p's table; 1: the
	 * same proc from a second thread */
	int fd = uvfs_openat(p, AT_FDCWD, "/records", O_RDONLY, 0);
	CHECK(fd >= 0);
	/* the owner works alone for a while first: the table is in its
	 * single-thread mode when the second reader arrives */
	char buf[REC];
	for (int i = 0; i < 1000; i++) {
		uvfs_pread(p, fd, buf, REC, 0);
		uvfs_lseek(p, fd, 0, SEEK_SET);
	}
	struct uvfs_proc *q = share_mode == 0 ? uvfs_proc_clone(p, 0) : p;
	unsigned char *seen = calloc(NREC, 1);
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	struct reader a = { .p = p, .fd = fd, .seen = seen, .start = &bar };
	struct reader b = { .p = q, .fd = fd, .seen = seen, .start = &bar };
	a.other = &b;
	b.other = &a;
	pthread_t tb;
	pthread_create(&tb, NULL, reader_main, &b);
	reader_main(&a);
	pthread_join(tb, NULL);
	unsigned missing = 0, twice = 0;
	for (unsigned i = 0; i < NREC; i++) {
		missing += seen[i] == 0;
		twice += seen[i] > 1;
	}
	printf("   %s: %lu + %lu reads, %u records missing, %u read twice, %lu torn\n", what, a.reads, b.reads,
	       missing, twice, a.torn + b.torn);
	CHECK(missing == 0 && twice == 0, "%s: %u records missing, %u read twice", what, missing, twice);
	CHECK(a.torn + b.torn == 0, "%s: %lu torn reads", what, a.torn + b.torn);
	CHECK(a.errors + b.errors == 0, "%s: %lu read errors", what, a.errors + b.errors);
	CHECK(a.reads > 0 && b.reads > 0, "%s: one reader read nothing (%lu, %lu)", what, a.reads, b.reads);
	pthread_barrier_destroy(&bar);
	free(seen);
	if (q != p)
		uvfs_proc_destroy(q);
	uvfs_close(p, fd);
}

struct fpos_arg {
	int share_mode;
};
static void *fpos_thread(void *arg)
{
	/* a fresh proc whose table this thread owns */
	struct fpos_arg *fa = arg;
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	fpos_case(fa->share_mode ? "one proc, two threads" : "forked table, two threads", p, fa->share_mode);
	uvfs_proc_destroy(p);
	return NULL;
}

/* ---- closing under the owner ---- */

struct owner_arg {
	struct uvfs_proc *p;
	int fd;
	volatile int go, stop, running;
	unsigned long old, new_, ebadf, other;
};

static void *owner_main(void *arg)
{
	struct owner_arg *o = arg;
	struct uvfs_proc *p = o->p;
	/* this thread opens the fd: it owns the fresh table */
	o->fd = uvfs_openat(p, AT_FDCWD, "/victim", O_RDONLY, 0);
	uvfs_unlinkat(p, AT_FDCWD, "/victim", 0); /* the fd holds the last reference */
	__atomic_store_n(&o->running, 1, __ATOMIC_RELEASE);
	char buf[REC];
	while (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)) {
		long n = uvfs_pread(p, o->fd, buf, REC, (off_t)REC * (o->old % 64));
		long v = parse_record(buf, n);
		if (n == -EBADF)
			o->ebadf++;
		else if (v >= 0 && v < 64)
			o->old++;
		else if (v >= 1000000 && v < 1000064)
			o->new_++;
		else
			o->other++;
		struct stat st;
		uvfs_fstat(p, o->fd, &st);
		uvfs_lseek(p, o->fd, 0, SEEK_SET);
	}
	return NULL;
}

static void test_close_under_owner(void)
{
	SECTION("close and replace an fd the owner is using");
	struct uvfs_proc *admin = uvfs_proc_create(vfs, 0, 0);
	long base = inodes_used(admin);
	unsigned long old = 0, new_ = 0, ebadf = 0, other = 0;
	unsigned bad_close = 0, bad_write = 0;
	for (int it = 0; it < 100; it++) {
		bad_write += !write_records(admin, "/victim", 0, 64);
		bad_write += !write_records(admin, "/replacement", 1000000, 64);
		struct owner_arg o = { .p = uvfs_proc_create(vfs, 0, 0) };
		pthread_t t;
		pthread_create(&t, NULL, owner_main, &o);
		while (!__atomic_load_n(&o.running, __ATOMIC_ACQUIRE))
			sched_yield();
		/* let it run alone a little, at a varying depth into its loop */
		for (volatile int spin = 0; spin < (it % 10) * 2000; spin++)
			;
		/* this thread is the second: the close ends the owner's mode */
		if (uvfs_close(o.p, o.fd) != 0)
			bad_close++;
		int r = uvfs_openat(o.p, AT_FDCWD, "/replacement", O_RDONLY, 0);
		if (r != o.fd)
			bad_close++; /* the lowest free fd is the one just closed */
		for (volatile int spin = 0; spin < 20000; spin++)
			;
		__atomic_store_n(&o.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		old += o.old;
		new_ += o.new_;
		ebadf += o.ebadf;
		other += o.other;
		uvfs_proc_destroy(o.p);
	}
	printf("   owner's reads: %lu of the old file, %lu EBADF, %lu of the new file, %lu other\n", old, ebadf,
	       new_, other);
	CHECK(bad_close == 0 && bad_write == 0, "%u closes or reopens went wrong, %u writes", bad_close, bad_write);
	CHECK(other == 0, "%lu reads of neither file", other);
	CHECK(old > 0 && new_ > 0, "the owner saw %lu old and %lu new records", old, new_);
	/* every victim was unlinked and its last fd closed: all freed */
	CHECK_EQ(uvfs_unlinkat(admin, AT_FDCWD, "/replacement", 0), 0);
	CHECK_EQ(inodes_used(admin), base);
	uvfs_proc_destroy(admin);
}

/* ---- a fork taken by another thread ---- */

struct churn_arg {
	struct uvfs_proc *p;
	volatile int stop, running;
	unsigned long ops;
};
static void *churn_main(void *arg)
{
	struct churn_arg *c = arg;
	int fds[32];
	for (int i = 0; i < 32; i++)
		fds[i] = uvfs_openat(c->p, AT_FDCWD, "/records", O_RDONLY, 0);
	__atomic_store_n(&c->running, 1, __ATOMIC_RELEASE);
	unsigned k = 0;
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		unsigned i = k++ % 32;
		uvfs_close(c->p, fds[i]);
		fds[i] = uvfs_openat(c->p, AT_FDCWD, (k & 1) ? "/records" : "/", O_RDONLY, 0);
		if (k % 3 == 0) {
			int d = uvfs_dup(c->p, fds[i]);
			if (d >= 0)
				uvfs_close(c->p, d);
		}
		c->ops++;
	}
	for (int i = 0; i < 32; i++)
		uvfs_close(c->p, fds[i]);
	return NULL;
}

static void test_fork_by_other(void)
{
	SECTION("a table forked by another thread while its owner works");
	struct uvfs_proc *admin = uvfs_proc_create(vfs, 0, 0);
	unsigned bad = 0, forks = 0, fds_checked = 0;
	for (int it = 0; it < 50; it++) {
		struct churn_arg c = { .p = uvfs_proc_create(vfs, 0, 0) };
		pthread_t t;
		pthread_create(&t, NULL, churn_main, &c);
		while (!__atomic_load_n(&c.running, __ATOMIC_ACQUIRE))
			sched_yield();
		for (volatile int spin = 0; spin < (it % 5) * 5000; spin++)
			;
		struct uvfs_proc *copy = uvfs_proc_clone(c.p, 0);
		forks++;
		/* every fd the copy has names a live file */
		for (int fd = 0; fd < 64; fd++) {
			int fl = uvfs_fcntl(copy, fd, F_GETFD, 0);
			if (fl == -EBADF)
				continue;
			struct stat st;
			fds_checked++;
			if (fl < 0 || uvfs_fstat(copy, fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
				bad++;
		}
		__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		uvfs_proc_destroy(copy);
		uvfs_proc_destroy(c.p);
	}
	printf("   %u forks, %u fds of the copies checked\n", forks, fds_checked);
	CHECK(fds_checked > 0);
	CHECK(bad == 0, "%u fds of a copy did not work", bad);
	uvfs_proc_destroy(admin);
	/* every file of both tables was released */
	CHECK_EQ(pcounter_sum(&vfs->nr_files), 0);
}

/* ---- several threads join a busy owner at once ---- */

enum { JOINERS = 3, JOIN_FDS = 200 };
struct join_arg {
	struct uvfs_proc *p;
	int id;
	int *owner_of; /* fd -> 1 + id of the thread holding it */
	pthread_barrier_t *bar;
	volatile int *stop;
	unsigned long dup_fds, wrong;
};

static void hold_fd(struct join_arg *a, int fd)
{
	int zero = 0;
	if (fd < 0 || fd >= 4096) {
		a->wrong++;
		return;
	}
	if (!__atomic_compare_exchange_n(&a->owner_of[fd], &zero, a->id + 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		a->dup_fds++;
}

static void *joiner_main(void *arg)
{
	struct join_arg *a = arg;
	int fds[JOIN_FDS];
	pthread_barrier_wait(a->bar);
	for (int i = 0; i < JOIN_FDS; i++) {
		fds[i] = uvfs_openat(a->p, AT_FDCWD, "/records", O_RDONLY, 0);
		hold_fd(a, fds[i]);
	}
	for (int i = 0; i < JOIN_FDS; i++) {
		if (fds[i] < 0 || fds[i] >= 4096)
			continue;
		__atomic_store_n(&a->owner_of[fds[i]], 0, __ATOMIC_SEQ_CST);
		uvfs_close(a->p, fds[i]);
	}
	return NULL;
}

static void *busy_owner_main(void *arg)
{
	/* the owner: opens and closes, the table growing past 256, 512 and
	 * 1024 under it, in its lock-free mode until the joiners arrive */
	struct join_arg *a = arg;
	int fds[1200];
	int n = 0;
	pthread_barrier_wait(a->bar);
	while (!__atomic_load_n(a->stop, __ATOMIC_RELAXED) && n < 1200) {
		fds[n] = uvfs_openat(a->p, AT_FDCWD, "/records", O_RDONLY, 0);
		hold_fd(a, fds[n]);
		n++;
	}
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0 || fds[i] >= 4096)
			continue;
		__atomic_store_n(&a->owner_of[fds[i]], 0, __ATOMIC_SEQ_CST);
		uvfs_close(a->p, fds[i]);
	}
	return NULL;
}

static void test_joiners(void)
{
	SECTION("three threads join a busy owner at once");
	/* The first thread to come after the owner ends the owner's mode
	 * and waits for it to leave its lock-free section; a thread that comes
	 * while that handshake is still going on must wait too, not take the
	 * table lock at once while the owner may still change the table. */
	unsigned long dup_fds = 0, wrong = 0;
	int *owner_of = calloc(4096, sizeof(int));
	for (int it = 0; it < 60; it++) {
		struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
		uvfs_proc_set_nofile(p, 4096);
		volatile int stop = 0;
		pthread_barrier_t owner_bar, join_bar;
		pthread_barrier_init(&owner_bar, NULL, 2);
		pthread_barrier_init(&join_bar, NULL, JOINERS + 1);
		struct join_arg o = { .p = p, .id = 0, .owner_of = owner_of, .bar = &owner_bar, .stop = &stop };
		struct join_arg j[JOINERS];
		pthread_t ot, jt[JOINERS];
		pthread_create(&ot, NULL, busy_owner_main, &o);
		for (int i = 0; i < JOINERS; i++) {
			j[i] = (struct join_arg){ .p = p, .id = 1 + i, .owner_of = owner_of, .bar = &join_bar, .stop = &stop };
			pthread_create(&jt[i], NULL, joiner_main, &j[i]);
		}
		pthread_barrier_wait(&owner_bar);
		/* let the owner get some hundreds of fds deep, a varying amount */
		for (volatile int spin = 0; spin < 20000 + (it % 8) * 15000; spin++)
			;
		pthread_barrier_wait(&join_bar);
		for (int i = 0; i < JOINERS; i++)
			pthread_join(jt[i], NULL);
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		pthread_join(ot, NULL);
		dup_fds += o.dup_fds;
		wrong += o.wrong;
		for (int i = 0; i < JOINERS; i++) {
			dup_fds += j[i].dup_fds;
			wrong += j[i].wrong;
		}
		pthread_barrier_destroy(&owner_bar);
		pthread_barrier_destroy(&join_bar);
		uvfs_proc_destroy(p);
	}
	free(owner_of);
	CHECK(dup_fds == 0, "%lu fds handed to two threads at once", dup_fds);
	CHECK(wrong == 0, "%lu opens failed", wrong);
	CHECK_EQ(pcounter_sum(&vfs->nr_files), 0);
}

/* ---- the owner leaves ---- */

static int left_fds[4];
static struct uvfs_proc *left_proc;
static void *leaver_main(void *arg)
{
	for (int i = 0; i < 4; i++)
		left_fds[i] = uvfs_openat(left_proc, AT_FDCWD, "/records", O_RDONLY, 0);
	char buf[REC];
	uvfs_read(left_proc, left_fds[0], buf, REC);
	return arg;
}

static void test_owner_leaves(void)
{
	SECTION("the owner thread exits, another carries on");
	left_proc = uvfs_proc_create(vfs, 0, 0);
	pthread_t t;
	pthread_create(&t, NULL, leaver_main, NULL);
	pthread_join(t, NULL);
	/* a new thread, perhaps on the old one's stack and TLS */
	pthread_create(&t, NULL, leaver_main, NULL);
	pthread_join(t, NULL);
	char buf[REC];
	CHECK_EQ(uvfs_read(left_proc, 0, buf, REC), REC); /* the first thread's fd 0, read once before */
	CHECK_EQ(parse_record(buf, REC), 1);
	CHECK_EQ(uvfs_lseek(left_proc, 4, 0, SEEK_CUR), REC);
	for (int fd = 0; fd < 8; fd++)
		CHECK_EQ(uvfs_close(left_proc, fd), 0);
	CHECK_ERR(uvfs_close(left_proc, 8), EBADF);
	uvfs_proc_destroy(left_proc);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct uvfs_options o = { .tmpfs_nr_inodes = 100000 };
	vfs = uvfs_create(&o);
	struct uvfs_proc *admin = uvfs_proc_create(vfs, 0, 0);
	CHECK(write_records(admin, "/records", 0, NREC));
	uvfs_proc_destroy(admin);

	SECTION("f_pos shared by two threads");
	for (int mode = 0; mode < 2; mode++)
		for (int rep = 0; rep < 3; rep++) {
			struct fpos_arg fa = { mode };
			pthread_t t;
			pthread_create(&t, NULL, fpos_thread, &fa);
			pthread_join(t, NULL);
		}
	test_close_under_owner();
	test_fork_by_other();
	test_joiners();
	test_owner_leaves();
	CHECK_EQ(pcounter_sum(&vfs->nr_files), 0); /* no file outlived its last fd */
	uvfs_destroy(vfs);
	return check_done();
}
