// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sweep.c - out-of-memory injection over the conformance scenarios.
 *
 *   fault [-v] [-l] [-a] [-k K] [-r RUNS] [-s SEED] [-j JOBS] [PATTERN...]
 *
 * For each scenario selected (PATTERN as for conformance: a glob, or else a
 * substring), a clean run on uvfs counts the library's allocations, A, and
 * logs every operation's result and every check.  Then for N in 1..A the
 * scenario runs again, in a child of its own, with allocation N failing
 * (fault_alloc.h): from uvfs_create through the scenario to uvfs_destroy.
 * Each such run passes when
 * - the child ends normally (no crash, no hang: 60 s);
 * - it repeats the clean run in lockstep (lockstep.h): the operation in which
 *   the allocation failed answers its clean result or -ENOMEM, and in the
 *   latter case, made again, its clean result (the failure changed
 *   nothing); every other operation and check is the clean run's (a short
 *   write, as Linux may give, ends the comparison);
 * - with the scenario's procs gone, the tree is consistent (treewalk.h);
 * - after uvfs_destroy every allocation of the library has been freed.
 * The clean run itself must pass the last two.
 *
 * -a sweeps every N (by hand: see tests/fault/README.md for how long);
 * without it, N runs over every K-th allocation (-k, default 8) from an
 * offset drawn per scenario from SEED (-s, default: the time; printed), plus
 * always the first 4 and the last, so CI meets every scenario's setup and
 * teardown and a new slice of the middle on every run; K grows for a
 * scenario that would get more than RUNS runs (-r, default 64; 0: no
 * limit), such as inotify_overflow's 16384 events.  -l lists the
 * scenarios.  -j runs that many
 * children at once.  -v prints each scenario's counts.  The last line is
 * "N passed, N failed": one test per run.
 *
 * This is the default build: ASan owns malloc, and the allocator here sits
 * behind the library's references to it only (meson.build).
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <urcu/urcu-memb.h>
#include "conf.h"
#include "fault_alloc.h"
#include "lockstep.h"
#include "symbols.h"
#include "treewalk.h"
#include "uvfs.h"

extern const struct backend fault_backend;
/* file_table.c: the calling thread's cache of free files, which outlives
 * an instance (a thread's exit hands it back) */
void file_cache_drain(void);
void rcu_cache_thread_exit(void); /* lib/rcu_cache.h: the thread's cached dentries and inodes */
extern bool rcu_cache_disabled;
int fault_selftest(int *passed);

extern const struct scenario files_scenarios[], names_scenarios[], attrs_scenarios[],
	dirs_scenarios[], dirs_renames_scenarios[], perms_scenarios[], mounts_scenarios[], openat2_scenarios[],
	inotify_scenarios[], pipes_scenarios[], fuzzfound_scenarios[], xattr_scenarios[], acl_scenarios[],
	space_scenarios[], space_events_scenarios[], copy_scenarios[],
	epoll_scenarios[], locks_scenarios[], memfd_scenarios[];
static const struct scenario *const groups[] = {
	inotify_scenarios, files_scenarios, names_scenarios, attrs_scenarios, dirs_scenarios,
	dirs_renames_scenarios, perms_scenarios, mounts_scenarios, openat2_scenarios, pipes_scenarios,
	fuzzfound_scenarios, xattr_scenarios, acl_scenarios, space_scenarios, space_events_scenarios, copy_scenarios,
	epoll_scenarios, locks_scenarios, memfd_scenarios,
};

#define MAXJOBS 8

static struct clean_run *clean;
static struct run_result *results; /* one per job */
static int verbose;

static void child(const struct scenario *sc, long fail_at, struct run_result *res)
{
	bool is_clean = fail_at == 0;
	lockstep_start(clean, res, is_clean);
	alarm(60);
	/* writes to a pipe without readers answer EPIPE, no signal */
	signal(SIGPIPE, SIG_IGN);
	B = &fault_backend;
	fault_arm(fail_at);
	int r = uvfs_backend.setup(&BX, "");
	if (r < 0) {
		fault_disarm();
		if (r != -ENOMEM || !fault_fired())
			lockstep_fail("setup gives %d", r);
		res->enomem = true;
		res->op = "setup";
		lockstep_where();
	} else {
		sc->fn();
		lockstep_end();
		uvfs_backend_end_procs(BX);
		fault_disarm();
		char msg[1024];
		if (tree_check(uvfs_backend_instance(BX), msg, sizeof msg))
			lockstep_fail("the tree: %s", msg);
		fault_arm(fail_at);
		uvfs_backend.teardown(BX);
		fault_disarm();
	}
	if (is_clean)
		clean->nalloc = fault_count();
	else if (!fault_fired())
		lockstep_fail("allocation %ld did not happen (%ld in this run, %ld in the clean run)", fail_at,
			      fault_count(), clean->nalloc);
	file_cache_drain();
	rcu_cache_thread_exit();
	urcu_memb_barrier();
	if (fault_live() != 0)
		lockstep_fail("%ld allocations of the library left after uvfs_destroy", fault_live());
	res->done = true;
	_exit(0);
}

static const char *status_str(int st, char *b, size_t len)
{
	if (WIFSIGNALED(st))
		snprintf(b, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(b, len, "exit status %d", WEXITSTATUS(st));
	return b;
}

static pid_t start(const struct scenario *sc, long fail_at, struct run_result *res)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0)
		child(sc, fail_at, res);
	return pid;
}

/* Whether the run passed; prints why not. */
static bool judge(const struct scenario *sc, long n, int st, const struct run_result *res)
{
	char sb[96];
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && res->done && !res->failed)
		return true;
	if (n)
		printf("FAIL %s alloc %ld/%ld", sc->name, n, clean->nalloc);
	else
		printf("FAIL %s clean run", sc->name);
	if (res->op)
		printf(" (in %s, operation #%ld: %s)", res->op, res->call, res->where);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !res->done)
		printf(": %s%s%s", status_str(st, sb, sizeof sb), res->failed ? "; " : "",
		       res->failed ? res->msg : "");
	else
		printf(": %s", res->msg);
	printf("\n");
	return false;
}

static int npass, nfail;
static long max_runs = 64;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static void sweep(const struct scenario *sc, bool all, long k, uint64_t seed, int jobs)
{
	int st = 0;
	pid_t pid = start(sc, 0, &results[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!judge(sc, 0, st, &results[0])) {
		nfail++;
		return;
	}
	if (clean->overflow) {
		printf("FAIL %s: more than %d operations or %d checks\n", sc->name, MAXCALLS, MAXCHECKS);
		nfail++;
		return;
	}
	npass++;
	long a = clean->nalloc;
	/* a scenario of many allocations gets as many runs as -r allows */
	if (!all && max_runs && a / k > max_runs)
		k = (a + max_runs - 1) / max_runs;
	long off = (long)(mix(seed ^ name_hash(sc->name)) % (uint64_t)k);
	long runs = 0, enomem = 0, partial = 0, overflow = 0, fails = 0;
	pid_t pids[MAXJOBS] = { 0 };
	long ns[MAXJOBS];
	long n = 1;
	for (;;) {
		/* fill the free slots, then reap one */
		for (int j = 0; j < jobs; j++) {
			if (pids[j])
				continue;
			while (n <= a && !(all || n <= 4 || n == a || n % k == off))
				n++;
			if (n > a)
				break;
			ns[j] = n;
			pids[j] = start(sc, n, &results[j]);
			n++;
		}
		int busy = 0;
		for (int j = 0; j < jobs; j++)
			busy += pids[j] != 0;
		if (!busy)
			break;
		pid_t w = wait(&st);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			perror("wait");
			exit(2);
		}
		for (int j = 0; j < jobs; j++) {
			if (pids[j] != w)
				continue;
			pids[j] = 0;
			runs++;
			enomem += results[j].enomem;
			partial += results[j].partial;
			overflow += results[j].overflow;
			if (judge(sc, ns[j], st, &results[j])) {
				npass++;
			} else {
				nfail++;
				fails++;
			}
		}
	}
	if (verbose)
		printf("%-40s %5ld allocations, %5ld runs (every %ld-th): %ld -ENOMEM, %ld short writes, %ld inotify overflows, "
		       "%ld failed\n", sc->name, a, runs, all ? 1 : k, enomem, partial, overflow, fails);
}


static void usage(void)
{
	fprintf(stderr, "usage: fault [-v] [-l] [-a] [-k K] [-r RUNS] [-s SEED] [-j JOBS] [PATTERN...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool all = false, list = false;
	long k = 8;
	int opt;
	/* every run is a child of its own and the selection does not depend on
	 * the order they end in, so one per CPU by default */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = cpus < 1 ? 1 : cpus > MAXJOBS ? MAXJOBS : (int)cpus;
	uint64_t seed = (uint64_t)time(NULL);

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a reuse of a cached dentry or inode depends on when a grace period
	 * ends: the allocations would not be numbered alike in every run */
	rcu_cache_disabled = true;
	while ((opt = getopt(argc, argv, "valk:r:s:j:h")) != -1) {
		switch (opt) {
		case 'v': verbose = 1; break;
		case 'a': all = true; break;
		case 'l': list = true; break;
		case 'k': k = atol(optarg); break;
		case 'r': max_runs = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'j': jobs = atoi(optarg); break;
		default: usage();
		}
	}
	if (k < 1 || max_runs < 0 || jobs < 1 || jobs > MAXJOBS)
		usage();
	clean = mmap(NULL, sizeof(*clean), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
		     -1, 0);
	results = mmap(NULL, MAXJOBS * sizeof(*results), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		       0);
	symbols_load();
	if (clean == MAP_FAILED || results == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	if (!list)
		printf("fault sweep: %s, seed %llu\n", all ? "every allocation" : fmt("every %ld-th allocation", k),
		       (unsigned long long)seed);
	if (!list) {
		/* the checks see what they are for (selftest.c); in a child, as
		 * the parent must not start liburcu's threads before it forks */
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			int passed = 0;
			int failed = fault_selftest(&passed);
			results[0].done = true;
			results[0].call = passed;
			_exit(failed ? 1 : 0);
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && results[0].done) {
			npass += (int)results[0].call;
		} else {
			printf("FAIL selftest: the walk or the leak count does not see what it should\n");
			nfail++;
		}
	}
	int nsel = 0;
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		for (const struct scenario *sc = groups[g]; sc->name; sc++) {
			if (!scenario_selected(sc->name, argc - optind, argv + optind))
				continue;
			nsel++;
			if (list)
				printf("%s\n", sc->name);
			else
				sweep(sc, all, k, seed, jobs);
		}
	}
	if (list)
		return 0;
	if (!nsel) {
		printf("no scenario matches\n");
		usage();
	}
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
