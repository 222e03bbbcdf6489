/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * run.c - the run loop of uvfs-bench: every configuration (testcase, mode,
 * worker count) on every selected target, the measurement children and
 * their workers, and the fixed-iteration mode.
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
#include <errno.h>
#include <ftw.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

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

int cpus[1024], ncpus;

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
/* ---- time and randomness ---- */
double now(void)
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
volatile sig_atomic_t interrupted;
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
int run_fixed(const struct testcase *tc, struct target *t, int threads)
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

static int is_fuse(const struct target *t)
{
	return !strcmp(t->name, "uvfs-fuse");
}

/* The machine's CPUs (workers are pinned to them in turn), -t's default and
 * the shared memory of fixed-iteration mode; 0 or -1. */
int run_init(void)
{
	cpu_set_t set;
	int i;

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
		return -1;
	}
	return 0;
}

/* Every configuration of tcs[0..ntc) on sel[0..nsel): the results, in
 * *resp (calloc'ed); returns how many, or -1. */
int run_all(const struct testcase **tcs, int ntc, struct target **sel, int nsel,
	    struct run_info *ri, struct result **resp)
{
	struct result *res;
	int nres = 0, total, nmeas = 0, nfuse = 0, done = 0, i, j, k, m;

	rng_state = opt.seed;
	for (total = 0, i = 0; i < ntc; i++)
		for (m = 1; m <= 2; m++)
			if (opt.modes & m) {
				int cnt[MAX_WORKERS], ncnt = counts_for(tcs[i], m, cnt);

				total += ncnt;
				nmeas += ncnt * nsel;
				for (j = 0; j < ncnt; j++)
					for (k = 0; k < nsel; k++)
						if (!is_fuse(sel[k]))
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
		free(res);
		return -1;
	}
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	{
		double start = now();
		double per = 0.3 + ri->nsamples * (opt.interval + SLICE_WARM);

		fprintf(stderr, "uvfs-bench: %d configurations x %d targets", total, nsel);
		if (ri->fuse_dir)
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

						if (is_fuse(sel[k]) && !fuse_in(tcs[i], m, cnt[j]))
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
							snprintf(r->msg, sizeof(r->msg), is_fuse(sel[k]) ?
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
		if (getloadavg(ri->load_end, 1) < 1)
			ri->load_end[0] = -1;
	}
	*resp = res;
	return nres;
}
