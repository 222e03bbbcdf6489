/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs-bench - will-it-scale for uvfs: every testcase against uvfs,
 * uvfs-baseline (every seed's fast path switched off) and the host kernel
 * (and, with --fuse-dir, the host's calls into a uvfs-fuse mount), in
 * threads and processes mode, for 1..nproc workers.
 *
 * One measurement = one testcase, one target, one mode, one worker count.
 * Each runs in a child process of its own (forked from this one, which has
 * loaded the libraries but never called them), so a crash or a hang in the
 * library is reported for that measurement and the run goes on, and no state
 * leaks from one measurement into the next.  In the child:
 *
 *   workers: threads (uvfs: sharing one proc, or with a proc each; host
 *            threads mode) or forked processes (host processes mode), each
 *            pinned to a CPU, each running the testcase with a counter of
 *            its own (a cache line pair in MAP_SHARED memory);
 *   sampler: the child's main thread.  It waits until every worker counts,
 *            lets the warm-up pass, then reads the counters every interval
 *            and records ops/s for each interval; then sets the stop flag,
 *            joins the workers and tears the target down.
 *
 * The parent reports the median of the samples and their spread.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#ifndef UVFS_BENCH_DEFAULT_LIB
#define UVFS_BENCH_DEFAULT_LIB NULL
#endif
#ifndef UVFS_BENCH_DEFAULT_BASELINE_LIB
#define UVFS_BENCH_DEFAULT_BASELINE_LIB NULL
#endif

/* ---- shared memory between the harness, the measurement child and host
 * worker processes ---- */
struct slot {
	unsigned long long v;
} __attribute__((aligned(128)));   /* two cache lines: no false sharing, no
				      adjacent-line prefetch between workers */

enum phase { PH_SETUP, PH_RUN, PH_STOP, PH_TEARDOWN, PH_DONE };

struct shared {
	volatile int stop;
	int err_set;
	char err[256];
	volatile int phase;
	volatile int ready;      /* every worker is counting: the parent may sample */
	int go, done;            /* jobs: runs asked for by the parent, runs done */
	int nsamples;
	double samples[MAX_SAMPLES];
	struct slot count[MAX_WORKERS];
	int tid[MAX_WORKERS];    /* each worker's thread id, for /proc/TID/schedstat */
};

static struct shared *shm;   /* this process's: a measurement child's own */
static struct shared *shms;  /* the parent's: one per target of a configuration */

/* ---- options ---- */
static struct {
	const char *lib, *baseline_lib, *out, *json, *hostbase;
	const char *fuse_dir;    /* target uvfs-fuse: a uvfs-fuse mount, or NULL */
	int fuse_modes;          /* the modes uvfs-fuse runs in (0: -m's) */
	int fuse_workers[MAX_WORKERS], nfuse_workers;  /* its worker counts (0: -t's) */
	double warmup, duration, interval;
	unsigned long long seed;
	int seed_given;
	int workers[MAX_WORKERS], nworkers;
	int modes;               /* 1 threads, 2 processes */
	char *tests;             /* comma list or NULL */
	char *targets;
	unsigned long long iterations;  /* fixed-iteration mode */
	int affinity;
	int groups[MAX_WORKERS], ngroups;
	int rate_run;            /* --rate run: ops/s over the time not taken by other work */
	int list;
} opt = {
	.out = "bench-results",
	.hostbase = "/dev/shm",
	.warmup = 0.25,
	.duration = 3,
	.interval = 0.25,
	.modes = 3,
	.affinity = 1,
};

static int cpus[1024], ncpus;

/* ---- testcases ---- */
extern const struct testcase *const __start_bench_testcases[];
extern const struct testcase *const __stop_bench_testcases[];

static int tc_order(const void *a, const void *b)
{
	const struct testcase *x = *(const struct testcase *const *)a;
	const struct testcase *y = *(const struct testcase *const *)b;

	/* the seeds' testcases first, in seed order; then by name */
	if (!x->seed != !y->seed)
		return x->seed ? -1 : 1;
	if (x->seed && strcmp(x->seed, y->seed))
		return strcmp(x->seed, y->seed);
	return strcmp(x->name, y->name);
}

static const struct testcase **all_testcases(int *n)
{
	static const struct testcase *v[256];
	size_t cnt = __stop_bench_testcases - __start_bench_testcases;

	if (cnt > sizeof(v) / sizeof(v[0]))
		cnt = sizeof(v) / sizeof(v[0]);
	memcpy(v, __start_bench_testcases, cnt * sizeof(*v));
	qsort(v, cnt, sizeof(*v), tc_order);
	*n = cnt;
	return v;
}

/* ---- helpers for testcases ---- */
void bench_fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	c->failed = 1;
	if (!__atomic_exchange_n(&shm->err_set, 1, __ATOMIC_SEQ_CST)) {
		n = snprintf(shm->err, sizeof(shm->err), "worker %lu: ", c->nr);
		va_start(ap, fmt);
		vsnprintf(shm->err + n, sizeof(shm->err) - n, fmt, ap);
		va_end(ap);
	}
	__atomic_store_n(&shm->stop, 1, __ATOMIC_SEQ_CST);
}

int bench_make_file(struct ctx *c, const char *name, size_t size)
{
	static const char data[65536] = { [0 ... 65535] = 'x' };
	int fd;
	ssize_t n;

	fd = c->ops->openat(c->p, c->dirfd, name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		bench_fail(c, "create %s: %s", name, strerror(-fd));
		return fd;
	}
	while (size) {
		n = c->ops->write(c->p, fd, data, size < sizeof(data) ? size : sizeof(data));
		if (n <= 0) {
			bench_fail(c, "write %s: %s", name, n < 0 ? strerror(-n) : "0 bytes");
			c->ops->close(c->p, fd);
			return n < 0 ? n : -EIO;
		}
		size -= n;
	}
	c->ops->close(c->p, fd);
	return 0;
}

/* ---- futexes on the shared memory (jobs take turns run by run) ---- */
static void futex_wait(int *addr, int val)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };  /* recheck stop every 100 ms */

	syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* ---- time and randomness ---- */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static unsigned long long rng_state;
static unsigned long long rng(void)
{
	unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* order[0..n) = a random permutation of 0..n-1 (the targets' turn order) */
static void shuffle(int *order, int n)
{
	int k;

	for (k = 0; k < n; k++)
		order[k] = k;
	for (k = n - 1; k > 0; k--) {
		int j = rng() % (k + 1), tmp = order[k];

		order[k] = order[j];
		order[j] = tmp;
	}
}

/* ---- one measurement, in its child process ---- */
struct worker {
	pthread_t tid;
	struct ctx c;
	struct env *e;
	const struct testcase *tc;
	char err[256];
	int attach_ret;
};

static void pin(unsigned long nr)
{
	cpu_set_t set;

	if (!opt.affinity || !ncpus)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpus[nr % ncpus], &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void worker_body(struct worker *w)
{
	shm->tid[w->c.nr] = gettid();
	pin(w->c.nr);
	w->attach_ret = env_worker_attach(w->e, &w->c, w->err, sizeof(w->err));
	if (w->attach_ret < 0) {
		bench_fail(&w->c, "%s", w->err);
		return;
	}
	w->tc->fn(&w->c, &shm->count[w->c.nr].v, w->c.nr);
	env_worker_detach(w->e, &w->c);
}

static void *worker_thread(void *arg)
{
	worker_body(arg);
	return NULL;
}

static void child_fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&shm->err_set, 1, __ATOMIC_SEQ_CST))
		return;
	va_start(ap, fmt);
	vsnprintf(shm->err, sizeof(shm->err), fmt, ap);
	va_end(ap);
}

/* A job testcase in the measurement child: one warm-up run, then one run
 * per sample; a sample is the run's operations per second. */
static void __attribute__((noreturn))
job_child(const struct testcase *tc, struct target *t, unsigned long param, const char *hostdir)
{
	struct worker w = { 0 };
	struct env e;
	char err[256];
	unsigned long long ops;
	double secs;
	int i;

	shm->phase = PH_SETUP;
	if (env_open(&e, t, 0, hostdir, err, sizeof(err)) < 0) {
		child_fail("%s", err);
		shm->phase = PH_TEARDOWN;
		env_close(&e);
		_exit(0);
	}
	w.c.nr = 0;
	w.c.stop = &shm->stop;
	w.c.limit = ~0ull;
	w.e = &e;
	if (env_worker_attach(&e, &w.c, err, sizeof(err)) < 0) {
		child_fail("%s", err);
		_exit(0);
	}
	/* One warm-up run, then ready; then one run each time the parent
	 * raises shm->go (the targets take turns run by run), until stop. */
	if (tc->job(&w.c, param, tc->job_loops, &secs, &ops) == 0) {
		shm->phase = PH_RUN;
		__atomic_store_n(&shm->ready, 1, __ATOMIC_SEQ_CST);
		for (i = 0;;) {
			int go = __atomic_load_n(&shm->go, __ATOMIC_SEQ_CST);

			if (__atomic_load_n(&shm->stop, __ATOMIC_SEQ_CST))
				break;
			if (go == i) {
				futex_wait(&shm->go, go);
				continue;
			}
			if (tc->job(&w.c, param, tc->job_loops, &secs, &ops) < 0)
				break;
			if (i < MAX_SAMPLES) {
				shm->samples[i] = secs > 0 ? ops / secs : 0;
				shm->nsamples = i + 1;
			}
			shm->count[0].v = ops;
			i++;
			__atomic_store_n(&shm->done, i, __ATOMIC_SEQ_CST);
			futex_wake(&shm->done);
		}
	}
	__atomic_store_n(&shm->done, -1, __ATOMIC_SEQ_CST);  /* no more runs */
	futex_wake(&shm->done);
	shm->phase = PH_TEARDOWN;
	env_worker_detach(&e, &w.c);
	env_close(&e);
	shm->phase = PH_DONE;
	_exit(0);
}

/* Runs in the measurement child of a loop testcase; exits.  Exit status 0:
 * finished (shm holds an error if there was one); 3: workers did not stop
 * (hang). */
static void __attribute__((noreturn))
measure_child(const struct testcase *tc, struct target *t, int processes, int nw,
	      const char *hostdir)
{
	struct worker *w = calloc(nw, sizeof(*w));
	pid_t pids[MAX_WORKERS];
	int host_procs = processes && t->kind == TARGET_HOST;
	struct env e;
	char err[256];
	double deadline;
	int i, started;

	shm->phase = PH_SETUP;
	if (env_open(&e, t, processes, hostdir, err, sizeof(err)) < 0) {
		child_fail("%s", err);
		shm->phase = PH_TEARDOWN;
		env_close(&e);
		shm->phase = PH_DONE;
		_exit(0);
	}
	for (i = 0; i < nw; i++) {
		w[i].c.nr = i;
		w[i].c.stop = &shm->stop;
		w[i].c.limit = ~0ull;
		w[i].e = &e;
		w[i].tc = tc;
		if (host_procs) {
			pids[i] = fork();
			if (pids[i] == 0) {
				worker_body(&w[i]);
				_exit(0);
			}
			if (pids[i] < 0) {
				child_fail("fork: %s", strerror(errno));
				nw = i;
				break;
			}
		} else if (pthread_create(&w[i].tid, NULL, worker_thread, &w[i])) {
			child_fail("pthread_create failed");
			nw = i;
			break;
		}
	}

	/* Wait until every worker is in its loop. */
	deadline = now() + 10;
	for (;;) {
		for (started = 0, i = 0; i < nw; i++)
			started += !!__atomic_load_n(&shm->count[i].v, __ATOMIC_RELAXED);
		if (started == nw || shm->err_set)
			break;
		if (now() > deadline) {
			child_fail("%d of %d workers did not start within 10 s", nw - started, nw);
			break;
		}
		usleep(1000);
	}
	/* Running: the parent samples the counters, stopping and continuing
	 * this process group to give the targets turns, and sets shm->stop
	 * when it is done (or a worker does, through bench_fail). */
	shm->phase = PH_RUN;
	if (!shm->err_set) {
		__atomic_store_n(&shm->ready, 1, __ATOMIC_SEQ_CST);
		while (!__atomic_load_n(&shm->stop, __ATOMIC_SEQ_CST))
			usleep(5000);
	}

	shm->phase = PH_STOP;
	__atomic_store_n(&shm->stop, 1, __ATOMIC_SEQ_CST);
	deadline = now() + 10;
	for (i = 0; i < nw; i++) {
		if (host_procs) {
			int st;

			while (waitpid(pids[i], &st, WNOHANG) == 0) {
				if (now() > deadline) {
					kill(pids[i], SIGKILL);
					child_fail("worker %d did not stop within 10 s", i);
				}
				usleep(1000);
			}
			if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
				child_fail("worker %d killed by signal %d (%s)", i, WTERMSIG(st),
					   strsignal(WTERMSIG(st)));
		} else {
			/* pthread_timedjoin_np takes a CLOCK_REALTIME deadline */
			struct timespec ts;
			double d;

			clock_gettime(CLOCK_REALTIME, &ts);
			d = ts.tv_sec + ts.tv_nsec * 1e-9 + (deadline - now());
			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
			if (pthread_timedjoin_np(w[i].tid, NULL, &ts)) {
				child_fail("worker %d did not stop within 10 s (hang in the library?)", i);
				_exit(3);
			}
		}
	}
	shm->phase = PH_TEARDOWN;
	env_close(&e);
	shm->phase = PH_DONE;
	_exit(0);
}

/* ---- the parent ---- */
static volatile sig_atomic_t interrupted;
static pid_t active[MAX_TARGETS];   /* measurement children alive now: killed on ^C */

static void on_sigint(int sig)
{
	int i;

	interrupted = 1;
	for (i = 0; i < MAX_TARGETS; i++)
		if (active[i] > 0)
			kill(-active[i], SIGKILL);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static const char *phase_name(int ph)
{
	static const char *names[] = { "start (setup or first iterations)", "run", "stop",
				       "teardown", "done" };

	return ph >= 0 && ph <= PH_DONE ? names[ph] : "?";
}

static void stats(struct result *r)
{
	double v[MAX_SAMPLES], sum = 0, sq = 0;
	int i, j, n = r->nsamples;

	if (!n)
		return;
	memcpy(v, r->samples, n * sizeof(double));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	r->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	r->min = v[0];
	r->max = v[n - 1];
	for (i = 0; i < n; i++)
		sum += v[i];
	r->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - r->mean) * (v[i] - r->mean);
	r->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

/* One target's measurement child, seen from the parent. */
struct run {
	struct target *t;
	struct result *r;
	struct shared *s;       /* its shared memory */
	int slot;               /* index in active[] */
	pid_t pid;
	int reaped, st;         /* wait status once reaped */
	int hung;               /* killed at a deadline */
	int sampling;           /* ready, and not yet failed */
	char hostdir[PATH_MAX];
};

static int run_start(struct run *x, const struct testcase *tc, int processes, int nw)
{
	memset(x->s, 0, sizeof(*x->s));
	x->hostdir[0] = 0;
	x->reaped = x->hung = x->sampling = 0;
	if (x->t->kind == TARGET_HOST) {
		snprintf(x->hostdir, sizeof(x->hostdir), "%s/uvfs-bench.XXXXXX", x->t->dirbase);
		if (!mkdtemp(x->hostdir)) {
			x->r->status = ST_FAIL;
			snprintf(x->r->msg, sizeof(x->r->msg), "mkdtemp in %s: %s", x->t->dirbase,
				 strerror(errno));
			x->hostdir[0] = 0;
			return -1;
		}
	}
	fflush(NULL);
	x->pid = fork();
	if (x->pid == 0) {
		shm = x->s;
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (tc->job)
			job_child(tc, x->t, nw, x->hostdir);
		measure_child(tc, x->t, processes, nw, x->hostdir);
	}
	if (x->pid < 0) {
		x->r->status = ST_FAIL;
		snprintf(x->r->msg, sizeof(x->r->msg), "fork: %s", strerror(errno));
		return -1;
	}
	setpgid(x->pid, x->pid);
	active[x->slot] = x->pid;
	return 0;
}

/* Reaps the child if it has exited; with a deadline, waits for it until
 * then and kills it after.  Returns 1 once reaped. */
static int run_reap(struct run *x, double deadline)
{
	if (x->reaped || x->pid <= 0)
		return 1;
	for (;;) {
		if (waitpid(x->pid, &x->st, WNOHANG) == x->pid)
			break;
		if (!deadline)
			return 0;
		if (now() > deadline || interrupted) {
			kill(-x->pid, SIGKILL);
			waitpid(x->pid, &x->st, 0);
			x->hung = 1;
			break;
		}
		usleep(2000);
	}
	x->reaped = 1;
	active[x->slot] = 0;
	kill(-x->pid, SIGKILL);  /* leftover host worker processes, if any */
	return 1;
}

/* The verdict on a finished child; its samples are already in x->r (loop
 * testcases, sampled by the parent) or in x->s (jobs). */
static void run_finish(struct run *x, const struct testcase *tc)
{
	struct result *r = x->r;
	struct shared *sh = x->s;

	if (tc->job) {
		r->nsamples = sh->nsamples;
		memcpy(r->samples, sh->samples, sizeof(r->samples));
		r->ops_per_run = sh->count[0].v;
	}
	stats(r);
	r->msg[0] = 0;
	if (x->hung) {
		r->status = interrupted ? ST_SKIP : ST_HANG;
		snprintf(r->msg, sizeof(r->msg), "%s: no exit within the deadline (phase %s)%s%s",
			 interrupted ? "interrupted" : "hang", phase_name(sh->phase),
			 sh->err_set ? "; " : "", sh->err_set ? sh->err : "");
	} else if (WIFSIGNALED(x->st) && WTERMSIG(x->st) == SIGKILL && interrupted) {
		r->status = ST_SKIP;
		snprintf(r->msg, sizeof(r->msg), "interrupted");
	} else if (WIFSIGNALED(x->st)) {
		r->status = ST_CRASH;
		snprintf(r->msg, sizeof(r->msg), "crashed: signal %d (%s) during %s", WTERMSIG(x->st),
			 strsignal(WTERMSIG(x->st)), phase_name(sh->phase));
		/* a crash at teardown leaves the rates valid; keep them, say so */
		if (sh->phase >= PH_TEARDOWN && r->nsamples)
			r->status = ST_OK;
	} else if (WEXITSTATUS(x->st) == 3) {
		r->status = ST_HANG;
		snprintf(r->msg, sizeof(r->msg), "%s", sh->err);
	} else if (sh->err_set) {
		r->status = ST_FAIL;
		r->nsamples = 0;
		snprintf(r->msg, sizeof(r->msg), "%s", sh->err);
	} else if (WEXITSTATUS(x->st) != 0 || !r->nsamples) {
		r->status = ST_FAIL;
		snprintf(r->msg, sizeof(r->msg), "measurement exited with status %d%s",
			 WEXITSTATUS(x->st), r->nsamples ? "" : ", no samples");
	} else {
		r->status = ST_OK;
	}
	if (x->hostdir[0])
		nftw(x->hostdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	x->hostdir[0] = 0;
}

/* Seconds thread TID has spent runnable but waiting for a CPU (the second
 * field of /proc/TID/schedstat), or -1. */
static double run_delay(int tid)
{
	char path[64], buf[128];
	unsigned long long on, wait;
	ssize_t n;
	int fd;

	if (tid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &on, &wait) != 2)
		return -1;
	return wait * 1e-9;
}

static unsigned long long __attribute__((unused)) sum_of(struct shared *sh, int n)
{
	unsigned long long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += __atomic_load_n(&sh->count[i].v, __ATOMIC_RELAXED);
	return s;
}

/*
 * A job on every target: each target's child sets up and does one warm-up
 * run, then waits.  The targets then take turns run by run, in an order
 * drawn from the seed for each round, until two thirds of -d per target have
 * passed (at least 3 rounds): each run is one sample.
 */
static void measure_jobs(struct run *xs, int nx, const struct testcase *tc, int param)
{
	double start, end, deadline;
	int k, i, round, active_runs;

	for (k = 0; k < nx && !interrupted; k++) {
		struct run *x = &xs[k];

		if (run_start(x, tc, 0, param) < 0)
			continue;
		deadline = now() + 120;
		while (!__atomic_load_n(&x->s->ready, __ATOMIC_SEQ_CST) && !x->s->err_set &&
		       !run_reap(x, 0) && now() < deadline && !interrupted)
			usleep(1000);
		x->sampling = __atomic_load_n(&x->s->ready, __ATOMIC_SEQ_CST) && !x->s->err_set &&
			      !x->reaped;
	}
	start = now();
	end = start + nx * opt.duration * 2 / 3;
	for (round = 0; !interrupted && (round < 3 || now() < end) && round < MAX_SAMPLES; round++) {
		int order[MAX_TARGETS];

		shuffle(order, nx);
		for (active_runs = 0, i = 0; i < nx && !interrupted; i++) {
			struct run *x = &xs[order[i]];
			int want;

			if (!x->sampling)
				continue;
			want = __atomic_add_fetch(&x->s->go, 1, __ATOMIC_SEQ_CST);
			futex_wake(&x->s->go);
			deadline = now() + 60;
			for (;;) {
				int d = __atomic_load_n(&x->s->done, __ATOMIC_SEQ_CST);

				if (d == want)
					break;
				if (d < 0 || x->s->err_set || run_reap(x, 0) || now() > deadline ||
				    interrupted) {
					x->sampling = 0;
					break;
				}
				futex_wait(&x->s->done, d);
			}
			active_runs += x->sampling;
		}
		if (!active_runs)
			break;
	}
	for (k = 0; k < nx; k++) {
		struct run *x = &xs[k];

		if (x->pid <= 0 || x->reaped)
			continue;
		__atomic_store_n(&x->s->stop, 1, __ATOMIC_SEQ_CST);
		futex_wake(&x->s->go);
	}
	deadline = now() + 60;
	for (k = 0; k < nx; k++) {
		struct run *x = &xs[k];

		if (x->pid <= 0)
			continue;
		run_reap(x, deadline);
		run_finish(x, tc);
	}
}

/*
 * A loop testcase on every target at once: each target's child sets up and
 * starts its workers, then is stopped (SIGSTOP to its process group).  The
 * targets then take turns: for each sample, in an order drawn from the seed,
 * each child is continued, warmed for SLICE_WARM (the other targets just ran
 * on these CPUs), counted over one interval, and stopped again.  So every
 * target's samples are spread over the same minute, and a slow phase of the
 * machine falls on all of them alike.
 */
#define SLICE_WARM 0.05

static void measure_loops(struct run *xs, int nx, const struct testcase *tc, int processes,
			  int nw)
{
	int nsamples = (int)(opt.duration / opt.interval + 0.5), i, k, sidx;
	double deadline;

	if (nsamples < 1)
		nsamples = 1;
	if (nsamples > MAX_SAMPLES)
		nsamples = MAX_SAMPLES;

	/* start the targets one at a time; each stops once it counts */
	for (k = 0; k < nx && !interrupted; k++) {
		struct run *x = &xs[k];

		if (run_start(x, tc, processes, nw) < 0)
			continue;
		deadline = now() + 30;
		while (!__atomic_load_n(&x->s->ready, __ATOMIC_SEQ_CST) && !x->s->err_set &&
		       !run_reap(x, 0) && now() < deadline && !interrupted)
			usleep(1000);
		if (__atomic_load_n(&x->s->ready, __ATOMIC_SEQ_CST) && !x->s->err_set && !x->reaped) {
			kill(-x->pid, SIGSTOP);
			x->sampling = 1;
		}
	}

	for (sidx = 0; sidx < nsamples && !interrupted; sidx++) {
		int order[MAX_TARGETS];

		shuffle(order, nx);
		for (i = 0; i < nx && !interrupted; i++) {
			struct run *x = &xs[order[i]];
			unsigned long long c0[MAX_WORKERS], c1[MAX_WORKERS];
			double t0, t1, w0[MAX_WORKERS], w1[MAX_WORKERS], wall, run;
			int q;

			if (!x->sampling)
				continue;
			kill(-x->pid, SIGCONT);
			sleep_until(now() + (sidx ? SLICE_WARM : fmax(opt.warmup, SLICE_WARM)));
			for (q = 0; q < nw; q++) {
				w0[q] = run_delay(x->s->tid[q]);
				c0[q] = __atomic_load_n(&x->s->count[q].v, __ATOMIC_RELAXED);
			}
			t0 = now();
			sleep_until(t0 + opt.interval);
			t1 = now();
			for (q = 0; q < nw; q++) {
				c1[q] = __atomic_load_n(&x->s->count[q].v, __ATOMIC_RELAXED);
				w1[q] = run_delay(x->s->tid[q]);
			}
			kill(-x->pid, SIGSTOP);
			if (x->s->err_set || run_reap(x, 0)) {
				x->sampling = 0;
				continue;
			}
			/* wall: will-it-scale's ops/s.  run: each worker's count over
			 * the time it was not kept off its CPU by other runnable work
			 * (the run-queue delay of /proc/TID/schedstat), summed */
			for (wall = run = 0, q = 0; q < nw; q++) {
				double avail = (t1 - t0) - (w1[q] - w0[q]);

				wall += (c1[q] - c0[q]) / (t1 - t0);
				if (w0[q] < 0 || w1[q] < 0 || avail < 0.02 * (t1 - t0))
					avail = t1 - t0;
				run += (c1[q] - c0[q]) / avail;
			}
			if (x->r->nsamples < MAX_SAMPLES) {
				x->r->samples[x->r->nsamples] = opt.rate_run ? run : wall;
				x->r->samples_alt[x->r->nsamples] = opt.rate_run ? wall : run;
				x->r->nsamples++;
			}
		}
	}

	/* stop: every child sees the flag once continued */
	for (k = 0; k < nx; k++) {
		struct run *x = &xs[k];

		if (x->pid <= 0 || x->reaped)
			continue;
		__atomic_store_n(&x->s->stop, 1, __ATOMIC_SEQ_CST);
		kill(-x->pid, SIGCONT);
	}
	deadline = now() + 30;
	for (k = 0; k < nx; k++) {
		struct run *x = &xs[k];

		if (x->pid <= 0)
			continue;
		run_reap(x, deadline);
		run_finish(x, tc);
	}
}

/* Fixed-iteration mode, for callgrind: one worker, in this process, no
 * sampler, no fork. */
static int run_fixed(const struct testcase *tc, struct target *t, int threads)
{
	char hostdir[PATH_MAX] = "", err[256];
	struct worker w = { 0 };
	struct env e;
	double t0, t1;
	int ret = 0;

	memset(shm, 0, sizeof(*shm));
	if (t->kind == TARGET_HOST) {
		snprintf(hostdir, sizeof(hostdir), "%s/uvfs-bench.XXXXXX", t->dirbase);
		if (!mkdtemp(hostdir)) {
			fprintf(stderr, "mkdtemp %s: %s\n", hostdir, strerror(errno));
			return 1;
		}
	}
	/* -m threads: the worker is a thread of its own sharing the proc the
	 * main thread set up, as in a timed threads run (a shared fd table);
	 * otherwise, as in processes mode, the worker makes its own proc and is
	 * the only thread to use it. */
	if (env_open(&e, t, !threads, hostdir, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s %s: %s\n", tc->name, t->name, err);
		ret = 1;
		goto out;
	}
	w.c.nr = 0;
	w.c.stop = &shm->stop;
	w.c.limit = opt.iterations;
	w.e = &e;
	w.tc = tc;
	t0 = now();
	if (tc->job) {
		/* the first param (1 group), with loops making about N operations */
		unsigned long per = tc->ops_per_loop * tc->params[0];
		unsigned long loops = (opt.iterations + per - 1) / per;
		unsigned long long ops = 0;
		double secs;

		if (env_worker_attach(&e, &w.c, err, sizeof(err)) < 0)
			bench_fail(&w.c, "%s", err);
		else if (tc->job(&w.c, tc->params[0], loops, &secs, &ops) == 0)
			shm->count[0].v = ops;
		env_worker_detach(&e, &w.c);
	} else if (threads) {
		pthread_t th;
		if (pthread_create(&th, NULL, worker_thread, &w) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			ret = 1;
		} else {
			pthread_join(th, NULL);
		}
	} else {
		worker_body(&w);
	}
	t1 = now();
	env_close(&e);
	if (shm->err_set) {
		fprintf(stderr, "%s %s: %s\n", tc->name, t->name, shm->err);
		ret = 1;
	} else {
		printf("%s %s iterations %llu seconds %.3f\n", tc->name, t->name,
		       shm->count[0].v, t1 - t0);
	}
out:
	if (hostdir[0])
		nftw(hostdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}

/* The worker counts a testcase runs with in mode m (1 threads, 2
 * processes): -t's list; for a job, its params (or --groups), threads only. */
static int counts_for(const struct testcase *tc, int m, int *out)
{
	int n = 0, i;

	if (!tc->job) {
		memcpy(out, opt.workers, opt.nworkers * sizeof(int));
		return opt.nworkers;
	}
	if (m != 1)
		return 0;
	if (opt.ngroups) {
		memcpy(out, opt.groups, opt.ngroups * sizeof(int));
		return opt.ngroups;
	}
	for (i = 0; i < 8 && tc->params[i]; i++)
		out[n++] = tc->params[i];
	return n;
}

/* Whether target uvfs-fuse takes part in mode m (1 threads, 2 processes)
 * with W workers: --fuse-mode and --fuse-workers narrow -m and -t for it (a
 * job's W is its groups: only the mode applies). */
static int fuse_in(const struct testcase *tc, int m, int w)
{
	int i;

	if (opt.fuse_modes && !(opt.fuse_modes & m))
		return 0;
	if (tc->job || !opt.nfuse_workers)
		return 1;
	for (i = 0; i < opt.nfuse_workers; i++)
		if (opt.fuse_workers[i] == w)
			return 1;
	return 0;
}

/* ---- main ---- */
static void usage(FILE *f)
{
	fprintf(f,
"usage: uvfs-bench [options]\n"
"  --lib PATH            libuvfs.so (target uvfs)\n"
"  --baseline-lib PATH   libuvfs-baseline.so (target uvfs-baseline)\n"
"  --targets LIST        comma list of uvfs,uvfs-baseline,host,uvfs-fuse (default:\n"
"                        all; uvfs-fuse only with --fuse-dir)\n"
"  -T, --test LIST       comma list of testcases (default: all; --list shows them)\n"
"  -m, --mode MODE       threads, processes or both (default both)\n"
"  -t, --workers LIST    worker counts, e.g. 1 or 1,2 or 1-4 (default 1..nproc)\n"
"  -d, --duration SEC    measured seconds per target and configuration: that\n"
"                        many samples, the targets taking turns (default 3)\n"
"  -w, --warmup SEC      warm-up before a target's first sample (default 0.25;\n"
"                        50 ms before each later one)\n"
"  -i, --interval SEC    sampling interval (default 0.25: 12 samples in\n"
"                        the default 3 s, rounds of paired samples)\n"
"  -s, --seed N          seed for the random target order (default: from the clock)\n"
"  -o, --out DIR         results.json, table.txt and SVG plots (default bench-results)\n"
"  -j, --json FILE       also write the JSON here\n"
"      --hostdir DIR     where host-target directories are made (default /dev/shm)\n"
"      --fuse-dir DIR    a uvfs-fuse mount: target uvfs-fuse makes its directories\n"
"                        there (the host's system calls into the mount; default\n"
"                        none: the target is unavailable)\n"
"      --fuse-mode MODE  the modes uvfs-fuse runs in (default: those of -m)\n"
"      --fuse-workers LIST  its worker counts (default: those of -t; 'all')\n"
"  -g, --groups LIST     group counts of job testcases (messaging; default 1,2,4)\n"
"      --rate wall|run   the table's rate: wall = ops per second (default);\n"
"                        run = ops per second the workers were not kept off\n"
"                        their CPUs by other work (for a busy machine)\n"
"      --no-affinity     do not pin workers to CPUs\n"
"      --iterations N    fixed-iteration mode for callgrind: one testcase, one\n"
"                        target, one worker, N iterations, in this process;\n"
"                        with -m threads the worker is a second thread sharing\n"
"                        the set-up proc (a shared fd table), else it has a\n"
"                        proc of its own\n"
"  -l, --list            list the testcases\n"
"  -h, --help\n");
}

static int parse_list(const char *s, int *out, int *nout)
{
	char *dup = strdup(s), *tok, *save = NULL;

	*nout = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long a = strtol(tok, &end, 10), b = a;

		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end || a < 1 || b < a || b > MAX_WORKERS)
			return -1;
		for (; a <= b && *nout < MAX_WORKERS; a++)
			out[(*nout)++] = a;
	}
	free(dup);
	return *nout ? 0 : -1;
}

static int parse_workers(const char *s)
{
	return parse_list(s, opt.workers, &opt.nworkers);
}

/* -m's and --fuse-mode's argument: 1 threads, 2 processes, 3 both, -1 */
static int parse_mode(const char *s)
{
	return !strcmp(s, "threads") ? 1 : !strcmp(s, "processes") ? 2 :
	       !strcmp(s, "both") ? 3 : -1;
}

static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!list)
		return 1;
	while (*p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			c++;
			while (isspace((unsigned char)*c))
				c++;
			c[strcspn(c, "\n")] = 0;
			snprintf(buf, len, "%s", c);
			break;
		}
	}
	fclose(f);
}

/* dlopen of a library with initial-exec TLS fails when glibc's static TLS
 * surplus is used up (two such libraries in one process).  The tunable
 * that enlarges it must be set before the program starts: re-exec once. */
static void reexec_for_tls(char **argv)
{
	const char *tun = getenv("GLIBC_TUNABLES");
	char buf[1024];

	if (tun && strstr(tun, "optional_static_tls"))
		return;
	snprintf(buf, sizeof(buf), "%s%sglibc.rtld.optional_static_tls=65536",
		 tun ? tun : "", tun ? ":" : "");
	setenv("GLIBC_TUNABLES", buf, 1);
	execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, 0, 'L' },
		{ "baseline-lib", required_argument, 0, 'B' },
		{ "targets", required_argument, 0, 'G' },
		{ "test", required_argument, 0, 'T' },
		{ "mode", required_argument, 0, 'm' },
		{ "workers", required_argument, 0, 't' },
		{ "duration", required_argument, 0, 'd' },
		{ "warmup", required_argument, 0, 'w' },
		{ "interval", required_argument, 0, 'i' },
		{ "seed", required_argument, 0, 's' },
		{ "out", required_argument, 0, 'o' },
		{ "json", required_argument, 0, 'j' },
		{ "hostdir", required_argument, 0, 'H' },
		{ "fuse-dir", required_argument, 0, 'F' },
		{ "fuse-mode", required_argument, 0, 'M' },
		{ "fuse-workers", required_argument, 0, 'W' },
		{ "no-affinity", no_argument, 0, 'A' },
		{ "groups", required_argument, 0, 'g' },
		{ "rate", required_argument, 0, 'R' },
		{ "iterations", required_argument, 0, 'I' },
		{ "list", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ 0 }
	};
	struct target targets[MAX_TARGETS] = {
		{ .name = "uvfs", .kind = TARGET_UVFS },
		{ .name = "uvfs-baseline", .kind = TARGET_UVFS },
		{ .name = "host", .kind = TARGET_HOST },
		{ .name = "uvfs-fuse", .kind = TARGET_HOST },  /* host calls into --fuse-dir */
	};
	const struct testcase **tcs;
	struct target *sel[MAX_TARGETS];
	struct result *res;
	struct run_info ri = { 0 };
	struct utsname un;
	cpu_set_t set;
	int ntc, nsel = 0, nres = 0, total, nmeas = 0, nfuse = 0, done = 0, c, i, j, k, m;
	char files[64][PATH_MAX];
	char path[PATH_MAX];
	FILE *f;

	opt.lib = UVFS_BENCH_DEFAULT_LIB;
	opt.baseline_lib = UVFS_BENCH_DEFAULT_BASELINE_LIB;
	while ((c = getopt_long(argc, argv, "T:m:t:d:w:i:s:o:j:g:lh", longopts, NULL)) != -1) {
		switch (c) {
		case 'L': opt.lib = optarg; break;
		case 'B': opt.baseline_lib = optarg; break;
		case 'G': opt.targets = optarg; break;
		case 'T': opt.tests = optarg; break;
		case 'm':
		case 'M':
			if (parse_mode(optarg) < 0) {
				fprintf(stderr, "uvfs-bench: bad mode %s\n", optarg);
				return 2;
			}
			*(c == 'm' ? &opt.modes : &opt.fuse_modes) = parse_mode(optarg);
			break;
		case 'W':
			if (!strcmp(optarg, "all"))
				opt.nfuse_workers = 0;
			else if (parse_list(optarg, opt.fuse_workers, &opt.nfuse_workers) < 0) {
				fprintf(stderr, "uvfs-bench: bad worker list %s\n", optarg);
				return 2;
			}
			break;
		case 'F': opt.fuse_dir = optarg; break;
		case 't':
			if (parse_workers(optarg) < 0) {
				fprintf(stderr, "uvfs-bench: bad worker list %s\n", optarg);
				return 2;
			}
			break;
		case 'd': opt.duration = atof(optarg); break;
		case 'w': opt.warmup = atof(optarg); break;
		case 'i': opt.interval = atof(optarg); break;
		case 's': opt.seed = strtoull(optarg, NULL, 0); opt.seed_given = 1; break;
		case 'o': opt.out = optarg; break;
		case 'j': opt.json = optarg; break;
		case 'H': opt.hostbase = optarg; break;
		case 'A': opt.affinity = 0; break;
		case 'R':
			if (!strcmp(optarg, "run"))
				opt.rate_run = 1;
			else if (!strcmp(optarg, "wall"))
				opt.rate_run = 0;
			else {
				fprintf(stderr, "uvfs-bench: --rate wall or run\n");
				return 2;
			}
			break;
		case 'g': {
			int save[MAX_WORKERS], nsave = opt.nworkers;

			memcpy(save, opt.workers, sizeof(save));
			if (parse_workers(optarg) < 0) {
				fprintf(stderr, "uvfs-bench: bad group list %s\n", optarg);
				return 2;
			}
			memcpy(opt.groups, opt.workers, sizeof(opt.groups));
			opt.ngroups = opt.nworkers;
			memcpy(opt.workers, save, sizeof(save));
			opt.nworkers = nsave;
			break;
		}
		case 'I': opt.iterations = strtoull(optarg, NULL, 0); break;
		case 'l': opt.list = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (opt.interval <= 0 || opt.duration <= 0 || opt.warmup < 0) {
		fprintf(stderr, "uvfs-bench: durations must be positive\n");
		return 2;
	}

	tcs = all_testcases(&ntc);
	if (opt.list) {
		for (i = 0; i < ntc; i++)
			printf("%-12s seed %-4s %s%s\n", tcs[i]->name, tcs[i]->seed ? tcs[i]->seed : "-",
			       tcs[i]->description, tcs[i]->job ? " [job: threads mode, W = groups]" : "");
		return 0;
	}
	if (opt.tests) {
		char *dup = strdup(opt.tests), *tok, *save = NULL;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < ntc && strcmp(tcs[i]->name, tok); i++)
				;
			if (i == ntc) {
				fprintf(stderr, "uvfs-bench: no testcase %s (--list shows them)\n", tok);
				return 2;
			}
		}
		free(dup);
		for (i = j = 0; i < ntc; i++)
			if (in_list(opt.tests, tcs[i]->name))
				tcs[j++] = tcs[i];
		ntc = j;
	}
	if (opt.targets) {
		char *dup = strdup(opt.targets), *tok, *save = NULL;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < MAX_TARGETS && strcmp(targets[i].name, tok); i++)
				;
			if (i == MAX_TARGETS) {
				fprintf(stderr, "uvfs-bench: no target %s (uvfs, uvfs-baseline, host, "
					"uvfs-fuse)\n", tok);
				return 2;
			}
		}
		free(dup);
	}
	targets[0].lib = opt.lib;
	targets[1].lib = opt.baseline_lib;
	targets[2].dirbase = opt.hostbase;
	targets[3].dirbase = opt.fuse_dir;
	for (i = 0; i < MAX_TARGETS; i++) {
		if (!in_list(opt.targets, targets[i].name))
			continue;
		if (target_load(&targets[i]) < 0) {
			if (strstr(targets[i].why, "static TLS"))
				reexec_for_tls(argv);
			fprintf(stderr, "uvfs-bench: target %s unavailable: %s\n", targets[i].name,
				targets[i].why);
			if (opt.targets) /* asked for by name: an error */
				return 1;
			continue;
		}
		sel[nsel++] = &targets[i];
	}
	if (!nsel) {
		fprintf(stderr, "uvfs-bench: no target to run\n");
		return 1;
	}

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE && ncpus < 1024; i++)
			if (CPU_ISSET(i, &set))
				cpus[ncpus++] = i;
	if (!ncpus)
		ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!opt.nworkers)
		for (i = 1; i <= ncpus && i <= MAX_WORKERS; i++)
			opt.workers[opt.nworkers++] = i;

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	if (opt.iterations) {
		if (ntc != 1 || nsel != 1) {
			fprintf(stderr, "uvfs-bench: --iterations needs one testcase (-T) and one "
				"target (--targets)\n");
			return 2;
		}
		if ((tcs[0]->needs & target_has(sel[0])) != tcs[0]->needs) {
			fprintf(stderr, "uvfs-bench: %s: target %s lacks what the testcase needs\n",
				tcs[0]->name, sel[0]->name);
			return 4;
		}
		return run_fixed(tcs[0], sel[0], opt.modes == 1);
	}

	if (!opt.seed_given)
		opt.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	rng_state = opt.seed;

	/* header */
	ri.seed = opt.seed;
	{
		time_t tt = time(NULL);
		strftime(ri.date, sizeof(ri.date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
	}
	uname(&un);
	snprintf(ri.host, sizeof(ri.host), "%s", un.nodename);
	snprintf(ri.kernel, sizeof(ri.kernel), "%s %s %s", un.sysname, un.release, un.machine);
	read_cpu_model(ri.cpu, sizeof(ri.cpu));
	ri.ncpus = ncpus;
	ri.warmup = opt.warmup;
	ri.interval = opt.interval;
	ri.nsamples = (int)(opt.duration / opt.interval + 0.5);
	if (ri.nsamples < 1)
		ri.nsamples = 1;
	ri.lib = in_list(opt.targets, "uvfs") ? opt.lib : NULL;
	ri.baseline_lib = in_list(opt.targets, "uvfs-baseline") ? opt.baseline_lib : NULL;
	ri.hostbase = opt.hostbase;
	for (i = 0; i < nsel; i++)
		if (sel[i] == &targets[3])
			ri.fuse_dir = opt.fuse_dir;
	ri.rate_run = opt.rate_run;
	ri.affinity = opt.affinity;
	for (i = 0; i < nsel; i++)
		snprintf(ri.targets + strlen(ri.targets), sizeof(ri.targets) - strlen(ri.targets),
			 "%s%s", i ? "," : "", sel[i]->name);
	snprintf(ri.modes, sizeof(ri.modes), "%s", opt.modes == 3 ? "threads,processes" :
		 opt.modes == 1 ? "threads" : "processes");
	for (i = 0; i < opt.nworkers; i++)
		snprintf(ri.workers + strlen(ri.workers), sizeof(ri.workers) - strlen(ri.workers),
			 "%s%d", i ? "," : "", opt.workers[i]);

	if (getloadavg(ri.load_start, 1) < 1)
		ri.load_start[0] = -1;
	printf("uvfs-bench  seed %llu  %s  %s  %s  %d cpus (%s)\n", ri.seed, ri.date, ri.host,
	       ri.kernel, ri.ncpus, ri.cpu);
	if (ri.load_start[0] > ri.ncpus)
		printf("warning: load average %.1f on %d cpus: other work is running, the figures "
		       "will be noisy%s\n", ri.load_start[0], ri.ncpus,
		       opt.rate_run ? "" : " (--rate run discounts the time taken by it)");
	printf("targets %s; modes %s; workers %s; warm-up %.2f s, %d samples of %.3g s%s\n",
	       ri.targets, ri.modes, ri.workers, ri.warmup, ri.nsamples, ri.interval,
	       opt.affinity ? "; workers pinned" : "");
	for (i = 0; i < nsel; i++)
		if (sel[i]->kind == TARGET_UVFS)
			printf("  %-14s %s%s\n", sel[i]->name, sel[i]->lib,
			       sel[i]->ops.pipe2 ? "" : "  (no uvfs_pipe2: pipe testcases n/a)");
		else if (sel[i] == &targets[3]) {
			static const char *mn[] = { "none", "threads", "processes",
						    "threads,processes" };
			int fm = (opt.fuse_modes ? opt.fuse_modes : 3) & opt.modes;
			struct statfs sf;

			printf("  %-14s system calls under %s%s; modes %s; workers ", sel[i]->name,
			       opt.fuse_dir, statfs(opt.fuse_dir, &sf) == 0 &&
			       sf.f_type == 0x65735546 /* FUSE_SUPER_MAGIC */ ? "" :
			       " (warning: not a FUSE mount)", mn[fm]);
			if (!opt.nfuse_workers)
				printf("%s", ri.workers);
			for (j = 0; j < opt.nfuse_workers; j++)
				printf("%s%d", j ? "," : "", opt.fuse_workers[j]);
			printf("; pipe testcases n/a\n");
		}
	printf("\n");
	fflush(stdout);

	for (total = 0, i = 0; i < ntc; i++)
		for (m = 1; m <= 2; m++)
			if (opt.modes & m) {
				int cnt[MAX_WORKERS], ncnt = counts_for(tcs[i], m, cnt);

				total += ncnt;
				nmeas += ncnt * nsel;
				for (j = 0; j < ncnt; j++)
					for (k = 0; k < nsel; k++)
						if (sel[k] != &targets[3])
							continue;
						else if (!fuse_in(tcs[i], m, cnt[j]) ||
							 (tcs[i]->needs & target_has(sel[k])) != tcs[i]->needs)
							nmeas--;   /* not run, or n/a */
						else
							nfuse++;
			}
	res = calloc(total * nsel + 1, sizeof(*res));
	shms = mmap(NULL, MAX_TARGETS * sizeof(*shms), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	if (shms == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	{
		double start = now();
		double per = 0.3 + ri.nsamples * (opt.interval + SLICE_WARM);

		fprintf(stderr, "uvfs-bench: %d configurations x %d targets", total, nsel);
		if (ri.fuse_dir)
			fprintf(stderr, " (uvfs-fuse in %d)", nfuse);
		fprintf(stderr, ", about %.0f s\n", nmeas * per + total * opt.warmup);
		for (i = 0; i < ntc && !interrupted; i++)
			for (m = 1; m <= 2 && !interrupted; m++) {
				int cnt[MAX_WORKERS], ncnt;

				if (!(opt.modes & m))
					continue;
				ncnt = counts_for(tcs[i], m, cnt);
				for (j = 0; j < ncnt && !interrupted; j++) {
					struct run xs[MAX_TARGETS];
					int nx = 0, r0 = nres;

					done++;
					fprintf(stderr, "[%3d/%d %4.0fs] %-12s %-9s %3d %-7s", done, total,
						now() - start, tcs[i]->name, m == 1 ? "threads" : "processes",
						cnt[j], tcs[i]->job ? tcs[i]->param_name :
						cnt[j] > 1 ? "workers" : "worker");
					for (k = 0; k < nsel; k++) {
						struct result *r;

						if (sel[k] == &targets[3] && !fuse_in(tcs[i], m, cnt[j]))
							continue;
						r = &res[nres++];
						r->tc = tcs[i];
						r->target = sel[k]->name;
						r->mode = m == 1 ? "threads" : "processes";
						r->workers = cnt[j];
						r->status = ST_SKIP;  /* until measured */
						snprintf(r->msg, sizeof(r->msg), "not run (interrupted)");
						if ((tcs[i]->needs & target_has(sel[k])) != tcs[i]->needs) {
							r->status = ST_NA;
							snprintf(r->msg, sizeof(r->msg), sel[k] == &targets[3] ?
								 "pipes are not on the mount" :
								 "target lacks uvfs_pipe2");
							continue;
						}
						memset(&xs[nx], 0, sizeof(xs[nx]));
						xs[nx].t = sel[k];
						xs[nx].r = r;
						xs[nx].s = &shms[nx];
						xs[nx].slot = nx;
						nx++;
					}
					if (tcs[i]->job) {
						measure_jobs(xs, nx, tcs[i], cnt[j]);
					} else {
						measure_loops(xs, nx, tcs[i], m == 2, cnt[j]);
					}
					for (k = r0; k < nres; k++) {
						struct result *r = &res[k];

						if (r->status == ST_OK)
							fprintf(stderr, "  %s %.0f", r->target, r->median);
						else
							fprintf(stderr, "  %s %s", r->target, status_name(r->status));
					}
					fprintf(stderr, "\n");
				}
			}
		fprintf(stderr, "uvfs-bench: done in %.0f s\n", now() - start);
		if (getloadavg(ri.load_end, 1) < 1)
			ri.load_end[0] = -1;
	}

	report_table(stdout, &ri, res, nres);
	fflush(stdout);

	if (mkdir(opt.out, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "uvfs-bench: mkdir %s: %s\n", opt.out, strerror(errno));
		free(res);
		return 1;
	}
	printf("\nresults:\n");
	snprintf(path, sizeof(path), "%s/results.json", opt.out);
	if (report_json(path, &ri, res, nres) == 0)
		printf("  %s\n", path);
	if (opt.json && report_json(opt.json, &ri, res, nres) == 0)
		printf("  %s\n", opt.json);
	snprintf(path, sizeof(path), "%s/table.txt", opt.out);
	f = fopen(path, "w");
	if (f) {
		report_table(f, &ri, res, nres);
		fclose(f);
		printf("  %s\n", path);
	}
	k = report_svg(opt.out, &ri, res, nres, files, 64);
	for (i = 0; i < k; i++)
		printf("  %s\n", files[i]);
	free(res);
	return interrupted ? 130 : 0;
}
