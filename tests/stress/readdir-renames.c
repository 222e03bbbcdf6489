// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * readdir-renames: directory reads that race renames in, out of and within
 * the directory they read (issue 9; xfstests' generic/736).
 *
 *   readdir-renames [-d SECONDS] [-s SEED] [-v]
 *
 * First, single-threaded, generic/736's pattern: a reader of a 5000-entry
 * directory renames every entry it is given to a new name in the same
 * directory; the read must end, having returned each original entry once
 * and none of the new names.
 *
 * Then, for -d seconds (default 2): /d holds NDIR entries and /o NOUT.  One
 * thread reads /d to the end again and again (lseek to 0, small getdents64
 * buffers, now and then through a fresh fd); the others rename their own
 * entries within /d, from /d to /o and back, exchange two of them
 * (RENAME_EXCHANGE, within /d and across) and rename one over another (the
 * first name is then made again in /d).  A quarter of /d is never
 * touched.  Every read must end (it may not return more records than there
 * are names), return no name twice and no entry (a name's id) twice, and
 * return every entry that no rename touched during that read exactly once
 * under its name, and no entry of /o that no rename touched.  Whether a rename
 * touched an entry during a read comes from a per-entry sequence count the
 * renamer makes odd around its rename.
 */
#include <uvfs.h>
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NDIR 3000
#define NOUT 500
#define NENT (NDIR + NOUT)
#define NRENAMERS 2
#define BIG 5000 /* the single-threaded generic/736 directory */

struct dent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* An entry: its name is "n<id>.<gen>", in /d when in_d.  seq is odd while
 * a rename changes it (or exchanges its inode); only its renamer writes. */
struct ent {
	unsigned seq;
	unsigned gen;
	bool in_d;
};

static struct uvfs *vfs;
static struct ent ents[NENT];
static int stop; /* the threads poll it: atomic loads and stores */
static int verbose;
static const char *volatile phase = "setup";

static void on_alarm(int sig)
{
	(void)sig;
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "FAIL readdir-renames: still in phase \"%s\" at the watchdog's limit\n"
			 "%lu passed, %lu failed\n", phase, check_passed, check_failed + 1);
	if (write(1, msg, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}

static bool is_static(unsigned id)
{
	return id < NDIR && id % 4 == 0;
}

static const char *ent_path(char *buf, size_t size, unsigned id, unsigned gen, bool in_d)
{
	snprintf(buf, size, "/%c/n%u.%u", in_d ? 'd' : 'o', id, gen);
	return buf;
}

/* "n<id>.<gen>" -> id and gen, or false */
static bool parse_name(const char *s, unsigned *id, unsigned *gen)
{
	char *end;
	if (s[0] != 'n')
		return false;
	unsigned long a = strtoul(s + 1, &end, 10);
	if (end == s + 1 || *end != '.')
		return false;
	const char *g = end + 1;
	unsigned long b = strtoul(g, &end, 10);
	if (end == g || *end || a >= NENT)
		return false;
	*id = (unsigned)a;
	*gen = (unsigned)b;
	return true;
}

/* ---- phase 1: generic/736, single-threaded ---- */

static void rename_each_read(void)
{
	phase = "generic/736";
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	char path[64], to[64], buf[256];
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/big", 0755), 0);
	for (int i = 0; i < BIG; i++) {
		snprintf(path, sizeof(path), "/big/f%d", i);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0, "create %s: %d", path, fd);
		uvfs_close(p, fd);
	}
	int dfd = uvfs_openat(p, AT_FDCWD, "/big", O_RDONLY | O_DIRECTORY, 0);
	CHECK(dfd >= 0);
	static unsigned char seen[BIG];
	memset(seen, 0, sizeof(seen));
	long records = 0, originals = 0, renamed_names = 0, twice = 0, bad = 0;
	ssize_t r;
	while ((r = uvfs_getdents64(p, dfd, buf, sizeof(buf))) > 0 && records <= 2 * BIG) {
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			off += d->d_reclen;
			records++;
			int i;
			char tail;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (d->d_name[0] == 'r') {
				renamed_names++;
				continue;
			}
			if (sscanf(d->d_name, "f%d%c", &i, &tail) != 1 || i < 0 || i >= BIG) {
				bad++;
				continue;
			}
			twice += seen[i]++ != 0;
			originals++;
			snprintf(path, sizeof(path), "/big/%s", d->d_name);
			snprintf(to, sizeof(to), "/big/r%d", i);
			if (uvfs_renameat2(p, AT_FDCWD, path, AT_FDCWD, to, 0) != 0)
				bad++;
		}
	}
	CHECK_EQ(r, 0);
	CHECK(records <= 2 * BIG, "the read did not end: %ld records and counting", records);
	CHECK_EQ(originals, BIG);
	CHECK_EQ(twice, 0);
	CHECK_EQ(renamed_names, 0);
	CHECK_EQ(bad, 0);
	/* a read from the start sees every entry under its new name */
	CHECK_EQ(uvfs_lseek(p, dfd, 0, SEEK_SET), 0);
	long again = 0;
	while ((r = uvfs_getdents64(p, dfd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < r; off += ((struct dent *)(buf + off))->d_reclen)
			again += ((struct dent *)(buf + off))->d_name[0] == 'r';
	CHECK_EQ(again, BIG);
	uvfs_close(p, dfd);
	uvfs_proc_destroy(p);
	printf("   generic/736: %ld records, %ld originals, %ld new names\n", records, originals, renamed_names);
}

/* ---- phase 2: one reader, NRENAMERS renamers ---- */

struct renamer {
	pthread_t th;
	unsigned idx;
	unsigned seed;
	unsigned long renames, moves, exchanges, replaces, errors;
};

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static unsigned load_seq(unsigned id)
{
	return __atomic_load_n(&ents[id].seq, __ATOMIC_ACQUIRE);
}

static void seq_bump(unsigned id)
{
	__atomic_fetch_add(&ents[id].seq, 1, __ATOMIC_SEQ_CST);
}

/* A random entry of this renamer's, not a static one. */
static unsigned pick(struct renamer *rn)
{
	for (;;) {
		unsigned id = rnd(&rn->seed) % NENT;
		if (id % NRENAMERS == rn->idx && !is_static(id))
			return id;
	}
}

static void *renamer_main(void *arg)
{
	struct renamer *rn = arg;
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	char a[64], b[64];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned id = pick(rn), op = rnd(&rn->seed) % 9;
		struct ent *e = &ents[id];
		int err;
		if (op < 6) {
			/* within /d or /o (a new name), or to the other directory */
			bool to_d = op < 4 ? e->in_d : !e->in_d;
			seq_bump(id);
			err = uvfs_renameat2(p, AT_FDCWD, ent_path(a, sizeof(a), id, e->gen, e->in_d), AT_FDCWD,
					     ent_path(b, sizeof(b), id, e->gen + 1, to_d), RENAME_NOREPLACE);
			if (!err) {
				__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELAXED);
				__atomic_store_n(&e->in_d, to_d, __ATOMIC_RELAXED);
				rn->renames++;
				if (op >= 4)
					rn->moves++;
			}
			seq_bump(id);
		} else if (op == 8) {
			/* over another name, which stays (with this inode); this
			 * name is made again, new and empty, in /d */
			unsigned id2 = pick(rn);
			if (id2 == id)
				continue;
			struct ent *f = &ents[id2];
			seq_bump(id);
			seq_bump(id2);
			err = uvfs_renameat2(p, AT_FDCWD, ent_path(a, sizeof(a), id, e->gen, e->in_d), AT_FDCWD,
					     ent_path(b, sizeof(b), id2, f->gen, f->in_d), 0);
			if (!err) {
				int fd = uvfs_openat(p, AT_FDCWD, ent_path(a, sizeof(a), id, e->gen + 1, true),
						     O_CREAT | O_EXCL | O_WRONLY, 0644);
				err = fd < 0 ? fd : uvfs_close(p, fd);
				__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELAXED);
				__atomic_store_n(&e->in_d, true, __ATOMIC_RELAXED);
				rn->replaces++;
			}
			seq_bump(id2);
			seq_bump(id);
		} else {
			/* the names stay where they are; their inodes change places */
			unsigned id2 = pick(rn);
			if (id2 == id)
				continue;
			struct ent *f = &ents[id2];
			seq_bump(id);
			seq_bump(id2);
			err = uvfs_renameat2(p, AT_FDCWD, ent_path(a, sizeof(a), id, e->gen, e->in_d), AT_FDCWD,
					     ent_path(b, sizeof(b), id2, f->gen, f->in_d), RENAME_EXCHANGE);
			if (!err)
				rn->exchanges++;
			seq_bump(id2);
			seq_bump(id);
		}
		if (err) {
			if (rn->errors++ < 5)
				printf("FAIL renamer %u: rename of entry %u: %d\n", rn->idx, id, err);
		}
	}
	uvfs_proc_destroy(p);
	return NULL;
}

struct snap {
	unsigned seq, gen;
	bool in_d;
};

static void reader(double seconds)
{
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	static struct snap snap[NENT];
	static unsigned seen[NENT], seen_gen[NENT];
	char buf[160]; /* 4 or 5 records a call */
	unsigned long reads = 0, records_total = 0, bad_end = 0, bad_dup = 0, bad_missing = 0, bad_ghost = 0,
		      bad_name = 0, bad_dots = 0, bad_err = 0, checked = 0;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int fd = -1;
	do {
		if (fd < 0 || reads % 16 == 0) {
			if (fd >= 0)
				uvfs_close(p, fd);
			fd = uvfs_openat(p, AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0);
		} else {
			uvfs_lseek(p, fd, 0, SEEK_SET);
		}
		for (unsigned id = 0; id < NENT; id++) {
			snap[id].seq = load_seq(id);
			snap[id].gen = __atomic_load_n(&ents[id].gen, __ATOMIC_RELAXED);
			snap[id].in_d = __atomic_load_n(&ents[id].in_d, __ATOMIC_RELAXED);
			seen[id] = 0;
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		long records = 0, dots = 0;
		ssize_t r;
		/* more records than there are names: a read that does not end */
		while ((r = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0 && records <= NENT + 2) {
			for (ssize_t off = 0; off < r;) {
				struct dent *d = (void *)(buf + off);
				off += d->d_reclen;
				records++;
				unsigned id, gen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) {
					dots++;
					continue;
				}
				if (!parse_name(d->d_name, &id, &gen)) {
					if (bad_name++ < 5)
						printf("FAIL read %lu: unexpected name \"%s\"\n", reads, d->d_name);
					continue;
				}
				seen_gen[id] = gen;
				if (seen[id]++ && bad_dup++ < 5)
					printf("FAIL read %lu: entry %u returned twice (now as %s)\n", reads, id,
					       d->d_name);
			}
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (r < 0 && bad_err++ < 5)
			printf("FAIL read %lu: getdents64 %zd\n", reads, r);
		if (r > 0 && bad_end++ < 5)
			printf("FAIL read %lu: did not end after %ld records\n", reads, records);
		if (dots != 2 && r == 0 && bad_dots++ < 5)
			printf("FAIL read %lu: %ld records for \".\" and \"..\"\n", reads, dots);
		for (unsigned id = 0; id < NENT; id++) {
			unsigned s = load_seq(id);
			if (s != snap[id].seq || (s & 1))
				continue; /* a rename touched it during the read */
			checked++;
			if (snap[id].in_d && r == 0 && (seen[id] != 1 || seen_gen[id] != snap[id].gen) &&
			    bad_missing++ < 5)
				printf("FAIL read %lu: untouched entry n%u.%u returned %u times (as n%u.%u)\n", reads,
				       id, snap[id].gen, seen[id], id, seen_gen[id]);
			if (!snap[id].in_d && seen[id] && bad_ghost++ < 5)
				printf("FAIL read %lu: entry n%u.%u of /o returned\n", reads, id, snap[id].gen);
		}
		records_total += (unsigned long)records;
		reads++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	uvfs_close(p, fd);
	uvfs_proc_destroy(p);
	printf("   %lu reads, %lu records, %lu untouched entries checked\n", reads, records_total, checked);
	CHECK(reads > 0);
	CHECK(bad_end == 0, "%lu reads did not end", bad_end);
	CHECK(bad_dup == 0, "%lu entries returned twice in one read", bad_dup);
	CHECK(bad_missing == 0, "%lu untouched entries of /d not returned exactly once", bad_missing);
	CHECK(bad_ghost == 0, "%lu untouched entries of /o returned", bad_ghost);
	CHECK(bad_name == 0 && bad_dots == 0 && bad_err == 0, "%lu bad names, %lu bad dots, %lu errors", bad_name,
	      bad_dots, bad_err);
}

int main(int argc, char **argv)
{
	double seconds = 2;
	unsigned seed = (unsigned)time(NULL);
	int c;
	while ((c = getopt(argc, argv, "d:s:v")) != -1) {
		switch (c) {
		case 'd':
			seconds = atof(optarg);
			break;
		case 's':
			seed = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-d SECONDS] [-s SEED] [-v]\n", argv[0]);
			return 2;
		}
	}
	printf("   seed %u, %.1f s\n", seed, seconds);
	signal(SIGALRM, on_alarm);
	alarm((unsigned)seconds + 60);
	vfs = uvfs_create(NULL);
	CHECK(vfs != NULL);
	if (!vfs)
		return check_done();

	SECTION("generic/736: rename every entry as it is read");
	rename_each_read();

	SECTION("one reader, renames within, into and out of the directory");
	phase = "setup";
	struct uvfs_proc *p = uvfs_proc_create(vfs, 0, 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/o", 0755), 0);
	char path[64];
	unsigned long bad_create = 0;
	for (unsigned id = 0; id < NENT; id++) {
		ents[id].in_d = id < NDIR;
		int fd = uvfs_openat(p, AT_FDCWD, ent_path(path, sizeof(path), id, 0, ents[id].in_d),
				     O_CREAT | O_EXCL | O_WRONLY, 0644);
		bad_create += fd < 0;
		uvfs_close(p, fd);
	}
	CHECK_EQ(bad_create, 0);
	uvfs_proc_destroy(p);

	phase = "readers and renamers";
	struct renamer rn[NRENAMERS];
	for (unsigned i = 0; i < NRENAMERS; i++) {
		rn[i] = (struct renamer){ .idx = i, .seed = seed * 2654435761u + i };
		pthread_create(&rn[i].th, NULL, renamer_main, &rn[i]);
	}
	reader(seconds);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	unsigned long renames = 0, moves = 0, exchanges = 0, replaces = 0, errors = 0;
	for (unsigned i = 0; i < NRENAMERS; i++) {
		pthread_join(rn[i].th, NULL);
		renames += rn[i].renames;
		moves += rn[i].moves;
		exchanges += rn[i].exchanges;
		replaces += rn[i].replaces;
		errors += rn[i].errors;
	}
	printf("   %lu renames, %lu of them between /d and /o, %lu exchanges, %lu over another name\n", renames,
	       moves, exchanges, replaces);
	CHECK(errors == 0, "%lu renames failed", errors);
	CHECK(renames > 0 && moves > 0 && exchanges > 0 && replaces > 0, "the renamers did not run");

	phase = "uvfs_destroy";
	uvfs_destroy(vfs);
	CHECK(1, "uvfs_destroy returned"); /* LeakSanitizer reports at exit */
	return check_done();
}
