/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay.c - `uvfs-bench replay [options] TRACE...`: replays recorded path
 * calls (bench/replay/record.py writes the traces) on uvfs, uvfs-baseline and
 * the host kernel, and compares every call's result with the recorded one
 * and across the targets.
 *
 * A subcommand of uvfs-bench rather than a program of its own: it loads the
 * two libraries side by side exactly as the testcases do (target.c, the
 * static-TLS re-exec of main.c), and `make bench` runs it after the
 * testcases into the same results directory.
 *
 * Each trace on each target runs in a child process of its own (a crash or a
 * hang is that target's result; the host's mount namespace and chroot die
 * with the child).  The child builds the mirror (mirror.c) and replays the
 * calls once to record their results (which also warms the caches); then the
 * targets take turns --rounds times, in a rotating order, each child
 * replaying again and again for its slice of --time (at least once), timing
 * each whole replay.  The figure is the median time per call over all the
 * slices' replays.  Between two replays the child closes what the replay
 * left open and returns to the trace's cwd, outside the timed part.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "replay/mirror.h"
#include "replay/ops.h"
#include "replay/replay.h"

const char *const replay_target_names[REPLAY_TARGETS] = { "uvfs", "uvfs-baseline", "host", "uvfs-hostfs" };

static struct {
	const char *lib, *baseline_lib, *targets, *out, *hostbase;
	double time;
	int rounds, check, max_diffs;
	unsigned long iterations;
} ropt = {
	.hostbase = "/dev/shm",
	.time = 0.6,
	.rounds = 10,
	.max_diffs = 10,
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One replayer: a target's calls, its proc and the fds of the slots. */
struct player {
	const struct replay_ops *o;
	struct uvfs_proc *p;
	int *fds;
	char *buf;
	size_t buflen;
};

static int fd_of(struct player *pl, int slot)
{
	return slot < 0 ? AT_FDCWD : pl->fds[slot];
}

static long long count_dirents(struct player *pl, int fd)
{
	long long n = 0;
	ssize_t got;

	while ((got = pl->o->getdents64(pl->p, fd, pl->buf, pl->buflen)) > 0) {
		ssize_t off = 0;

		while (off < got) {
			const struct dirent64 *d = (const void *)(pl->buf + off);

			n++;
			off += d->d_reclen;
		}
	}
	return got < 0 ? got : n;
}

static void stat_outcome(struct outcome *o, unsigned mode, long long size)
{
	o->mode = mode;
	o->size = S_ISREG(mode) || S_ISLNK(mode) ? size : 0;
}

/* Replays every call of t once; with OUT, stores each call's outcome. */
static void play(struct player *pl, const struct trace *t, struct outcome *out)
{
	const struct replay_ops *o = pl->o;
	struct uvfs_proc *p = pl->p;
	int i;

	for (i = 0; i < t->nc; i++) {
		const struct rcall *k = &t->c[i];
		struct outcome r = { 0 };
		struct stat st;
		struct statx stx;
		long long v = 0;

		switch (k->op) {
		case R_OPEN:
			v = o->openat(p, fd_of(pl, k->dir), k->path, k->flags, 0);
			if (k->slot >= 0)
				pl->fds[k->slot] = v >= 0 ? v : -1;
			else if (v >= 0)
				o->close(p, v);   /* recorded as failed: nothing refers to it */
			r.ret = v >= 0 ? 0 : v;
			break;
		case R_STAT:
			v = o->fstatat(p, fd_of(pl, k->dir), k->path, &st, k->flags);
			if (v == 0)
				stat_outcome(&r, st.st_mode, st.st_size);
			r.ret = v;
			break;
		case R_FSTAT:
			v = o->fstat(p, pl->fds[k->slot], &st);
			if (v == 0)
				stat_outcome(&r, st.st_mode, st.st_size);
			r.ret = v;
			break;
		case R_STATX:
			v = o->statx(p, fd_of(pl, k->dir), k->path, k->flags, k->mask, &stx);
			if (v == 0)
				stat_outcome(&r, stx.stx_mode, stx.stx_size);
			r.ret = v;
			break;
		case R_ACCESS:
			r.ret = o->faccessat(p, fd_of(pl, k->dir), k->path, k->a, k->flags);
			break;
		case R_READLINK:
			v = o->readlinkat(p, fd_of(pl, k->dir), k->path, pl->buf, k->a);
			if (v >= 0)
				r.hash = hash_str(pl->buf, v);
			r.ret = v;
			break;
		case R_GETDENTS:
			r.ret = count_dirents(pl, pl->fds[k->slot]);
			break;
		case R_CLOSE:
			r.ret = o->close(p, pl->fds[k->slot]);
			pl->fds[k->slot] = -1;
			break;
		case R_READ:
			r.ret = o->read(p, pl->fds[k->slot], pl->buf, k->a);
			break;
		case R_PREAD:
			r.ret = o->pread(p, pl->fds[k->slot], pl->buf, k->a, k->b);
			break;
		case R_LSEEK:
			r.ret = o->lseek(p, pl->fds[k->slot], k->a, k->b);
			break;
		case R_CHDIR:
			r.ret = o->chdir(p, k->path);
			break;
		case R_FCHDIR:
			r.ret = o->fchdir(p, pl->fds[k->slot]);
			break;
		case R_GETCWD:
			v = o->getcwd(p, pl->buf, k->a);
			if (v >= 0)
				r.hash = hash_str(pl->buf, strlen(pl->buf));
			r.ret = v;
			break;
		case R_EXEC:
			break;
		}
		if (out)
			out[i] = r;
	}
}

/* What a replay left open is closed, outside the timed part. */
static void reset(struct player *pl, const struct trace *t)
{
	int s;

	for (s = 0; s < t->nslots; s++)
		if (pl->fds[s] >= 0) {
			pl->o->close(pl->p, pl->fds[s]);
			pl->fds[s] = -1;
		}
	pl->o->chdir(pl->p, t->cwd);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* In the child: the mirror and one recorded replay, then "r" on RES_FD;
 * then for each "g" on CMD_FD a slice of timed replays and "d", until "q" or
 * the end of the pipe.  Writes *run. */
static void __attribute__((noreturn))
child(struct target *tg, int host, const char *mnt, const struct trace *t, struct replay_run *run,
      double slice, int cmd_fd, int res_fd)
{
	/* host: 1 the host itself, 2 uvfs on hostfs of a host tmpfs */
	struct replay_ops ops;
	struct player pl = { 0 };
	struct uvfs *fs = NULL;
	size_t maxbuf = 65536;
	char c;
	int i;

	if (host == 1) {
		struct rlimit rl;

		if (mirror_host_root(mnt, run->msg, sizeof(run->msg)) < 0)
			_exit(0);
		pl.o = &replay_host_ops;
		/* as many open files as the uvfs procs get: a trace that keeps
		 * many open must not fail with EMFILE on the host only */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536) {
			rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	} else {
		if (replay_uvfs_ops(tg, &ops, run->msg, sizeof(run->msg)) < 0)
			_exit(0);
		pl.o = &ops;
		fs = tg->api.create(NULL);
		pl.p = fs ? tg->api.proc_create(fs, 0, 0) : NULL;
		if (!pl.p) {
			snprintf(run->msg, sizeof(run->msg), "uvfs_create or uvfs_proc_create failed");
			_exit(0);
		}
		if (tg->api.proc_set_nofile)
			tg->api.proc_set_nofile(pl.p, 65536);
		if (host == 2 && mirror_hostfs_root(tg->dl, pl.p, mnt, run->msg, sizeof(run->msg)) < 0)
			_exit(0);
	}
	for (i = 0; i < t->nc; i++)
		if ((t->c[i].op == R_READ || t->c[i].op == R_PREAD) && (size_t)t->c[i].a > maxbuf)
			maxbuf = t->c[i].a;
	pl.buflen = maxbuf;
	pl.buf = malloc(maxbuf);
	pl.fds = malloc((t->nslots + 1) * sizeof(int));
	if (!pl.buf || !pl.fds) {
		snprintf(run->msg, sizeof(run->msg), "out of memory");
		_exit(0);
	}
	for (i = 0; i < t->nslots; i++)
		pl.fds[i] = -1;
	if (mirror_build(pl.o, pl.p, t, run->msg, sizeof(run->msg)) < 0)
		_exit(0);
	if ((i = pl.o->chdir(pl.p, t->cwd)) < 0) {
		snprintf(run->msg, sizeof(run->msg), "chdir %s in the mirror: %s", t->cwd,
			 strerror(-i));
		_exit(0);
	}
	play(&pl, t, run->out);
	reset(&pl, t);
	/* ready; then one slice of timed replays per 'g', until 'q' */
	c = 'r';
	if (write(res_fd, &c, 1) != 1)
		_exit(0);
	while (read(cmd_fd, &c, 1) == 1 && c == 'g') {
		double start = mono();
		int n = 0;

		/* each slice may fill its share of the times, so that a short
		 * trace's are spread over every slice too */
		while (run->ntimes < REPLAY_MAX_TIMES && n < REPLAY_MAX_TIMES / ropt.rounds &&
		       (n < 1 || mono() - start < slice)) {
			double t0 = mono(), t1;

			play(&pl, t, NULL);
			t1 = mono();
			reset(&pl, t);
			run->times[run->ntimes++] = (t1 - t0) * 1e9 / (t->replayed ? t->replayed : 1);
			n++;
		}
		c = 'd';
		if (write(res_fd, &c, 1) != 1)
			break;
	}
	if (fs) {
		tg->api.proc_destroy(pl.p);
		tg->api.destroy(fs);
	}
	_exit(0);
}

/* --iterations N, for callgrind: one uvfs target in this process (no fork,
 * no timing threads): the mirror, one replay to warm, then N replays; the
 * instructions of N2 minus those of N1 replays are those of the calls. */
static int replay_fixed(struct target *tg, const struct trace *t, unsigned long iterations)
{
	struct replay_ops ops;
	struct player pl = { 0 };
	struct uvfs *fs;
	char err[256];
	unsigned long i;
	double t0;
	int s, ret = 1;

	if (replay_uvfs_ops(tg, &ops, err, sizeof(err)) < 0) {
		fprintf(stderr, "uvfs-bench replay: %s\n", err);
		return 1;
	}
	pl.o = &ops;
	fs = tg->api.create(NULL);
	pl.p = fs ? tg->api.proc_create(fs, 0, 0) : NULL;
	if (!pl.p) {
		fprintf(stderr, "uvfs-bench replay: uvfs_create or uvfs_proc_create failed\n");
		goto out;
	}
	if (tg->api.proc_set_nofile)
		tg->api.proc_set_nofile(pl.p, 65536);
	pl.buflen = 65536;
	for (s = 0; s < t->nc; s++)
		if ((t->c[s].op == R_READ || t->c[s].op == R_PREAD) && (size_t)t->c[s].a > pl.buflen)
			pl.buflen = t->c[s].a;
	pl.buf = malloc(pl.buflen);
	pl.fds = malloc((t->nslots + 1) * sizeof(int));
	if (!pl.buf || !pl.fds)
		goto out;
	for (s = 0; s < t->nslots; s++)
		pl.fds[s] = -1;
	if (mirror_build(pl.o, pl.p, t, err, sizeof(err)) < 0 || pl.o->chdir(pl.p, t->cwd) < 0) {
		fprintf(stderr, "uvfs-bench replay: %s\n", err[0] ? err : "chdir to the trace's cwd");
		goto out;
	}
	play(&pl, t, NULL);
	reset(&pl, t);
	t0 = mono();
	for (i = 0; i < iterations; i++) {
		play(&pl, t, NULL);
		reset(&pl, t);
	}
	printf("%s %s iterations %lu calls %d seconds %.3f\n", t->file, tg->name, iterations,
	       t->replayed, mono() - t0);
	ret = 0;
out:
	free(pl.buf);
	free(pl.fds);
	if (pl.p)
		tg->api.proc_destroy(pl.p);
	if (fs)
		tg->api.destroy(fs);
	return ret;
}

static int same(const struct rcall *k, const struct outcome *a, const struct outcome *b)
{
	if (a->ret != b->ret)
		return 0;
	switch (k->op) {
	case R_STAT:
	case R_FSTAT:
	case R_STATX:
		/* directories' sizes are the file system's own (ext4 4096,
		 * tmpfs a count): not compared */
		return a->ret || (a->mode == b->mode &&
				  (!(S_ISREG(a->mode) || S_ISLNK(a->mode)) || a->size == b->size));
	case R_READLINK:
	case R_GETCWD:
		return a->ret < 0 || a->hash == b->hash;
	}
	return 1;
}

static void outcome_str(char *buf, size_t len, const struct rcall *k, const struct outcome *o)
{
	int n;

	if (o->ret < 0) {
		const char *e = strerrorname_np(-o->ret);

		snprintf(buf, len, "-%s", e ? e : "?");
		return;
	}
	n = snprintf(buf, len, "%lld", o->ret);
	if ((k->op == R_STAT || k->op == R_FSTAT || k->op == R_STATX) && !o->ret)
		snprintf(buf + n, len - n, " mode %o size %lld", o->mode, o->size);
	else if (k->op == R_READLINK || k->op == R_GETCWD)
		snprintf(buf + n, len - n, " (string %016llx)", o->hash);
}

/* Compares every call; prints the first --max-diffs differences. */
static void compare(struct replay_row *row)
{
	const struct trace *t = &row->t;
	int i, j, shown = 0;

	for (i = 0; i < t->nc; i++) {
		const struct rcall *k = &t->c[i];
		struct outcome rec = k->rec;
		int bad = 0;

		if (k->op == R_STAT || k->op == R_FSTAT || k->op == R_STATX)
			stat_outcome(&rec, rec.mode, rec.size);
		for (j = 0; j < REPLAY_TARGETS; j++) {
			struct replay_run *r = row->run[j];

			if (!r || !r->ran)
				continue;
			if (!same(k, &rec, &r->out[i])) {
				r->diffs++;
				bad = 1;
			}
		}
		if (!bad)
			continue;
		row->diffs++;
		if (shown++ >= ropt.max_diffs)
			continue;
		{
			char a[128], b[128];

			outcome_str(a, sizeof(a), k, &rec);
			fprintf(stderr, "replay: %s:%u (strace line %u): %s %s%s%s: recorded %s", t->file,
				k->fline, k->line, rop_name(k->op), k->path ? "\"" : "",
				k->path ? k->path : "", k->path ? "\"" : "", a);
			const struct outcome *first = NULL;
			int agree = 1, nran = 0;

			for (j = 0; j < REPLAY_TARGETS; j++)
				if (row->run[j] && row->run[j]->ran) {
					outcome_str(b, sizeof(b), k, &row->run[j]->out[i]);
					fprintf(stderr, ", %s %s", replay_target_names[j], b);
					if (first && !same(k, first, &row->run[j]->out[i]))
						agree = 0;
					first = first ? first : &row->run[j]->out[i];
					nran++;
				}
			/* the targets agreeing among themselves points at the
			 * recording or the mirror, not at uvfs */
			fprintf(stderr, "%s\n", nran < 2 ? "" : agree ?
				" (the targets agree: the recording or the mirror differs)" :
				" (the targets disagree)");
		}
	}
	if (shown > ropt.max_diffs)
		fprintf(stderr, "replay: %s: %d more differences not shown\n", t->file,
			shown - ropt.max_diffs);
}

static volatile pid_t kids_alive[REPLAY_TARGETS];

static void on_signal(int sig)
{
	int j;

	for (j = 0; j < REPLAY_TARGETS; j++)
		if (kids_alive[j] > 0)
			kill(kids_alive[j], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* One target's child for one trace, seen from the parent. */
struct kid {
	pid_t pid;
	int cmd, res;            /* pipes: to it, from it */
	char mnt[PATH_MAX];      /* host: the mount point (removed at the end) */
	struct replay_run *run;
};

/* Waits up to SECS for one byte from the child: it, or 0 (and run->msg). */
static char kid_wait(struct kid *k, double secs)
{
	struct pollfd pfd = { .fd = k->res, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, secs * 1000) == 1 && read(k->res, &c, 1) == 1)
		return c;
	if (!k->run->msg[0])
		snprintf(k->run->msg, sizeof(k->run->msg), "%s", pfd.revents ?
			 "the child exited without measuring" : "HANG: no answer within the deadline");
	return 0;
}

static int kid_start(struct kid *k, struct replay_row *row, int ti, struct target *tg)
{
	int cmd[2], res[2];

	k->mnt[0] = 0;
	k->pid = -1;
	if (ti == 2 || ti == 3) {
		snprintf(k->mnt, sizeof(k->mnt), "%s/uvfs-replay.XXXXXX", ropt.hostbase);
		if (!mkdtemp(k->mnt)) {
			snprintf(k->run->msg, sizeof(k->run->msg), "mkdtemp %.200s: %s", k->mnt,
				 strerror(errno));
			k->mnt[0] = 0;
			return -1;
		}
	}
	if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(res, O_CLOEXEC) < 0) {
		snprintf(k->run->msg, sizeof(k->run->msg), "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	k->pid = fork();
	if (k->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		child(tg, ti == 2 ? 1 : ti == 3 ? 2 : 0, k->mnt, &row->t, k->run, ropt.time / ropt.rounds, cmd[0],
		      res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	k->cmd = cmd[1];
	k->res = res[0];
	if (k->pid < 0) {
		snprintf(k->run->msg, sizeof(k->run->msg), "fork: %s", strerror(errno));
		return -1;
	}
	kids_alive[ti] = k->pid;
	/* the mirror and the first replay: a deadline for a hang in the library */
	return kid_wait(k, 300) == 'r' ? 0 : -1;
}

/* One slice of timed replays. */
static int kid_turn(struct kid *k)
{
	char c = 'g';

	if (write(k->cmd, &c, 1) != 1)
		return -1;
	return kid_wait(k, 300) == 'd' ? 0 : -1;
}

static void kid_stop(struct kid *k, int ti)
{
	char c = 'q';
	int st = 0, i;

	if (k->pid > 0) {
		if (write(k->cmd, &c, 1) != 1)
			kill(k->pid, SIGKILL);
		for (i = 0; waitpid(k->pid, &st, WNOHANG) == 0; i++) {
			if (i == 5000)   /* 10 s */
				kill(k->pid, SIGKILL);
			usleep(2000);
		}
		if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
			snprintf(k->run->msg, sizeof(k->run->msg), "CRASH: signal %d (%s)",
				 WTERMSIG(st), strsignal(WTERMSIG(st)));
			k->run->failed = 1;
		}
		close(k->cmd);
		close(k->res);
	}
	kids_alive[ti] = 0;
	if (k->mnt[0])
		rmdir(k->mnt);
}

/* The median and quartiles of every round's replays. */
static void run_stats(struct replay_run *r)
{
	int n = r->ntimes;

	if (!n || r->failed)
		return;
	qsort(r->times, n, sizeof(r->times[0]), cmp_double);
	r->reps = n;
	r->ns = n % 2 ? r->times[n / 2] : (r->times[n / 2 - 1] + r->times[n / 2]) / 2;
	r->ns_min = r->times[0];
	r->ns_max = r->times[n - 1];
	r->ns_q1 = r->times[n / 4];
	r->ns_q3 = r->times[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1];
	r->ran = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: uvfs-bench replay [options] TRACE...\n"
"  Replays each trace (bench/replay/record.py writes them; bench/replay/FORMAT.md)\n"
"  on a mirror of its manifest in uvfs, uvfs-baseline and the host (a tmpfs in a\n"
"  private mount namespace, chrooted into), compares every call's result with the\n"
"  recorded one, and reports ns per call and the ratios.\n"
"  --lib PATH            libuvfs.so (target uvfs)\n"
"  --baseline-lib PATH   libuvfs-baseline.so (target uvfs-baseline)\n"
"  --targets LIST        comma list of uvfs,uvfs-baseline,host,uvfs-hostfs\n"
"                        (default all; uvfs-hostfs: uvfs with its root on hostfs\n"
"                        cache=exclusive of a host tmpfs that holds the mirror)\n"
"  --time SEC            timed replays per trace and target: SEC in all (default\n"
"                        0.6)\n"
"  --rounds N            the targets take turns N times per trace, each replaying\n"
"                        for SEC/N, at least once (default 10)\n"
"  --hostdir DIR         where the host's mount point is made (default /dev/shm)\n"
"  -o, --out DIR         also write replay.txt, replay.json and replay.svg there\n"
"  --max-diffs N         differences printed per trace (default 10)\n"
"  --check               only read the traces (exit 2 and the line of the first\n"
"                        error if one is malformed or truncated)\n"
"  --iterations N        for callgrind (bench/replay/callgrind.sh): one trace on\n"
"                        one uvfs target (--targets), in this process, N replays\n"
"                        after one to warm; no comparison\n"
"exit status: 0 every call agreed, 1 a difference or a target failed, 2 a bad trace\n"
"or usage\n");
}

int replay_main(int argc, char **argv, char **orig_argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, 0, 'L' },
		{ "baseline-lib", required_argument, 0, 'B' },
		{ "targets", required_argument, 0, 'G' },
		{ "time", required_argument, 0, 'T' },
		{ "rounds", required_argument, 0, 'R' },
		{ "hostdir", required_argument, 0, 'H' },
		{ "out", required_argument, 0, 'o' },
		{ "max-diffs", required_argument, 0, 'D' },
		{ "check", no_argument, 0, 'C' },
		{ "iterations", required_argument, 0, 'I' },
		{ "help", no_argument, 0, 'h' },
		{ 0 }
	};
	struct target tg[REPLAY_TARGETS] = {
		{ .name = "uvfs", .kind = TARGET_UVFS },
		{ .name = "uvfs-baseline", .kind = TARGET_UVFS },
		{ .name = "host", .kind = TARGET_HOST },
		{ .name = "uvfs-hostfs", .kind = TARGET_UVFS },
	};
	int use[REPLAY_TARGETS] = { 0 };
	struct replay_row *rows;
	char err[512], path[PATH_MAX];
	double load0[1] = { -1 }, load1[1] = { -1 };
	struct kid kids[REPLAY_TARGETS];
	int c, i, j, k, m, n, bad = 0, status = 0;

	ropt.lib = opt.lib;
	ropt.baseline_lib = opt.baseline_lib;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'L': ropt.lib = optarg; break;
		case 'B': ropt.baseline_lib = optarg; break;
		case 'G': ropt.targets = optarg; break;
		case 'T': ropt.time = atof(optarg); break;
		case 'R': ropt.rounds = atoi(optarg); break;
		case 'H': ropt.hostbase = optarg; break;
		case 'o': ropt.out = optarg; break;
		case 'D': ropt.max_diffs = atoi(optarg); break;
		case 'C': ropt.check = 1; break;
		case 'I': ropt.iterations = strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	n = argc - optind;
	if (n < 1 || ropt.time <= 0 || ropt.rounds < 1 || ropt.rounds > REPLAY_MAX_TIMES) {
		usage(stderr);
		return 2;
	}
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return 1;
	for (i = 0; i < n; i++) {
		const char *file = argv[optind + i], *base = strrchr(file, '/');
		char *name = strdup(base ? base + 1 : file), *dot;

		if (name && (dot = strstr(name, ".trace")) && !dot[6])
			*dot = 0;
		rows[i].name = name;
		if (trace_load(file, &rows[i].t, err, sizeof(err)) < 0) {
			fprintf(stderr, "uvfs-bench replay: %s\n", err);
			bad = 1;
		}
	}
	if (bad) {
		status = 2;
		goto out;
	}
	if (ropt.check) {
		for (i = 0; i < n; i++)
			printf("%s: %d calls (%d replayed), %ld skipped, %d manifest entries, %d slots\n",
			       rows[i].t.file, rows[i].t.nc, rows[i].t.replayed, rows[i].t.skipped,
			       rows[i].t.nm, rows[i].t.nslots);
		goto out;
	}

	tg[0].lib = ropt.lib;
	tg[1].lib = ropt.baseline_lib;
	tg[3].lib = ropt.lib;
	for (j = 0; j < REPLAY_TARGETS; j++) {
		if (!in_list(ropt.targets, tg[j].name))
			continue;
		if (tg[j].kind == TARGET_UVFS && target_load(&tg[j]) < 0) {
			if (strstr(tg[j].why, "static TLS"))
				reexec_for_tls(orig_argv);
			fprintf(stderr, "uvfs-bench replay: target %s unavailable: %s\n", tg[j].name,
				tg[j].why);
			if (ropt.targets) {
				status = 1;
				goto out;
			}
			continue;
		}
		use[j] = 1;
	}
	if (ropt.iterations) {
		for (j = k = 0; j < REPLAY_TARGETS; j++)
			k += use[j];
		if (n != 1 || k != 1 || use[2] || use[3]) {
			fprintf(stderr, "uvfs-bench replay: --iterations needs one trace and one uvfs "
				"target (--targets uvfs or uvfs-baseline)\n");
			status = 2;
			goto out;
		}
		status = replay_fixed(&tg[use[0] ? 0 : 1], &rows[0].t, ropt.iterations);
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);   /* a child that died: its write fails, it is reported */
	if (getloadavg(load0, 1) < 1)
		load0[0] = -1;
	for (i = 0; i < n; i++) {
		struct replay_row *row = &rows[i];
		size_t sz = sizeof(struct replay_run) + row->t.nc * sizeof(struct outcome);

		fprintf(stderr, "replay: %-14s %6d calls", row->name, row->t.replayed);
		for (j = 0; j < REPLAY_TARGETS; j++) {
			struct replay_run *r;

			if (!use[j])
				continue;
			r = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (r == MAP_FAILED) {
				perror("mmap");
				status = 1;
				goto out;
			}
			row->run[j] = r;
		}
		/* every target's child builds its mirror and replays once; then
		 * they take turns, slice by slice, in a rotating order: a busy
		 * spell of the machine falls on all of them alike */
		for (j = 0; j < REPLAY_TARGETS; j++) {
			kids[j].run = row->run[j];
			kids[j].pid = -1;
			kids[j].mnt[0] = 0;
			if (row->run[j] && kid_start(&kids[j], row, j, &tg[j]) < 0)
				row->run[j]->failed = 1;
		}
		for (k = 0; k < ropt.rounds; k++)
			for (m = 0; m < REPLAY_TARGETS; m++) {
				j = (m + k) % REPLAY_TARGETS;
				if (row->run[j] && !row->run[j]->failed && kid_turn(&kids[j]) < 0)
					row->run[j]->failed = 1;
			}
		for (j = 0; j < REPLAY_TARGETS; j++)
			if (row->run[j])
				kid_stop(&kids[j], j);
		for (j = 0; j < REPLAY_TARGETS; j++) {
			struct replay_run *r = row->run[j];

			if (!r)
				continue;
			run_stats(r);
			if (r->ran)
				fprintf(stderr, "  %s %.0f ns", tg[j].name, r->ns);
			else
				fprintf(stderr, "  %s FAIL", tg[j].name);
		}
		fprintf(stderr, "\n");
		for (j = 0; j < REPLAY_TARGETS; j++)
			if (row->run[j] && !row->run[j]->ran) {
				fprintf(stderr, "replay: %s on %s: %s\n", row->t.file, tg[j].name,
					row->run[j]->msg);
				status = 1;
			}
		compare(row);
		if (row->diffs)
			status = 1;
	}
	if (getloadavg(load1, 1) < 1)
		load1[0] = -1;

	replay_report_table(stdout, rows, n, load0[0], load1[0]);
	if (ropt.out) {
		FILE *f;

		if (mkdir(ropt.out, 0777) < 0 && errno != EEXIST) {
			fprintf(stderr, "uvfs-bench replay: mkdir %s: %s\n", ropt.out, strerror(errno));
			status = 1;
			goto out;
		}
		printf("\nreplay results:\n");
		snprintf(path, sizeof(path), "%s/replay.txt", ropt.out);
		f = fopen(path, "w");
		if (f) {
			replay_report_table(f, rows, n, load0[0], load1[0]);
			fclose(f);
			printf("  %s\n", path);
		}
		snprintf(path, sizeof(path), "%s/replay.json", ropt.out);
		if (replay_report_json(path, rows, n) == 0)
			printf("  %s\n", path);
		snprintf(path, sizeof(path), "%s/replay.svg", ropt.out);
		if (replay_report_svg(path, rows, n) == 0)
			printf("  %s\n", path);
	}
out:
	for (i = 0; i < n; i++) {
		size_t sz = sizeof(struct replay_run) + rows[i].t.nc * sizeof(struct outcome);

		for (j = 0; j < REPLAY_TARGETS; j++)
			if (rows[i].run[j])
				munmap(rows[i].run[j], sz);
		trace_free(&rows[i].t);
		free((char *)rows[i].name);
	}
	free(rows);
	return status;
}
