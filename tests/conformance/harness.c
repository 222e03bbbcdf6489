/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness.c - runs every scenario on the host kernel (the expected values)
 * and on the backend under test, each in its own child process, and compares
 * the checks they recorded one by one.
 *
 *   conformance [-v] [-l] [-b BACKEND] [PATTERN...]
 *
 * PATTERN selects scenarios by name: a glob (fnmatch) or, without wildcard
 * characters, a substring.  -v prints every check, -l lists the scenarios,
 * -b host compares the host with itself (a self test of the suite), -x runs
 * the selected scenarios on the tested backend only, in this process (no
 * fork, no comparison: for a debugger), printing every check.
 * The last line is "N passed, N failed[, N skipped]", where skipped counts the
 * documented differences that did differ and the checks the host kernel could
 * not answer (ENOSYS, or a behaviour newer than the running kernel).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "backend.h"
#include "conf.h"

#define MAXREC 2000
#define REC_OP 200
#define REC_STR 600

enum { K_INT, K_FD, K_STR };

struct rec {
	int kind;
	int doc;
	int since;	/* the host kernel predates the behaviour checked: skip */
	long long v;
	char op[REC_OP];
	char s[REC_STR];
	char why[120];
};

struct recbuf {
	int n;
	int done;
	int overflow;
	char note[512];
	struct rec r[MAXREC];
};

const struct backend *B;
void *BX;
static struct recbuf *cur;

static struct recbuf *add(const char *op, int kind)
{
	if (cur->n >= MAXREC) {
		cur->overflow = 1;
		return NULL;
	}
	struct rec *r = &cur->r[cur->n++];
	memset(r, 0, offsetof(struct rec, s));
	r->s[0] = 0;
	r->why[0] = 0;
	r->kind = kind;
	snprintf(r->op, sizeof r->op, "%s", op);
	return cur;
}

static struct rec *last(void)
{
	return &cur->r[cur->n - 1];
}

long long chk(const char *op, long long v)
{
	if (add(op, K_INT))
		last()->v = v;
	return v;
}

int chk_fd(const char *op, long long v)
{
	if (add(op, K_FD))
		last()->v = v >= 0 ? 0 : v;
	return v;
}

static long long doc_rec(const char *op, long long v, const char *why, int doc)
{
	if (add(op, K_INT)) {
		last()->v = v;
		last()->doc = doc;
		snprintf(last()->why, sizeof last()->why, "%s", why);
	}
	return v;
}

long long chk_doc(const char *op, long long v, const char *why)
{
	return doc_rec(op, v, why, 1);
}

long long chk_doc_state(const char *op, long long v, const char *why)
{
	return doc_rec(op, v, why, 2);
}

void chk_str(const char *op, const char *s)
{
	if (add(op, K_STR))
		snprintf(last()->s, sizeof last()->s, "%s", s);
}

/* Linux version of the host kernel, as major * 1000 + minor. */
static int host_version(void)
{
	static int v = -1;
	if (v < 0) {
		struct utsname u;
		int ma = 0, mi = 0;
		if (uname(&u) == 0)
			sscanf(u.release, "%d.%d", &ma, &mi);
		v = ma * 1000 + mi;
	}
	return v;
}

long long chk_since(const char *op, long long v, int major, int minor)
{
	if (add(op, K_INT)) {
		last()->v = v;
		last()->since = host_version() < major * 1000 + minor;
		snprintf(last()->why, sizeof last()->why, "Linux %d.%d behaviour", major, minor);
	}
	return v;
}

int chk_fd_since(const char *op, long long v, int major, int minor)
{
	chk_since(op, v >= 0 ? 0 : v, major, minor);
	if (cur->n > 0 && !strcmp(last()->op, op))
		last()->kind = K_FD;
	return (int)v;
}

void chk_str_since(const char *op, const char *s, int major, int minor)
{
	if (add(op, K_STR)) {
		snprintf(last()->s, sizeof last()->s, "%s", s);
		last()->since = host_version() < major * 1000 + minor;
		snprintf(last()->why, sizeof last()->why, "Linux %d.%d behaviour", major, minor);
	}
}

void note(const char *f, ...)
{
	va_list ap;
	size_t l = strlen(cur->note);
	va_start(ap, f);
	vsnprintf(cur->note + l, sizeof cur->note - l, f, ap);
	va_end(ap);
}

/* ---- scenarios ---- */
#ifndef CONF_NO_MAIN
extern const struct scenario files_scenarios[], names_scenarios[], attrs_scenarios[],
	dirs_scenarios[], dirs_renames_scenarios[], perms_scenarios[], mounts_scenarios[], openat2_scenarios[];
/* Weak: a runner built without inotify.c or pipes.c (conformance-fuse) has none. */
extern const struct scenario inotify_scenarios[] __attribute__((weak)), pipes_scenarios[] __attribute__((weak)),
	fuzzfound_scenarios[] __attribute__((weak)), creds_scenarios[] __attribute__((weak));
extern const struct scenario xattr_scenarios[] __attribute__((weak)), acl_scenarios[] __attribute__((weak));
/* issue 11's areas, one file each */
extern const struct scenario space_scenarios[] __attribute__((weak));
extern const struct scenario space_events_scenarios[] __attribute__((weak));
extern const struct scenario copy_scenarios[] __attribute__((weak));
extern const struct scenario epoll_scenarios[] __attribute__((weak));
extern const struct scenario locks_scenarios[] __attribute__((weak));
extern const struct scenario fhandle_scenarios[] __attribute__((weak));
extern const struct scenario overlay_scenarios[] __attribute__((weak));
extern const struct scenario pathcache_scenarios[] __attribute__((weak)); /* issue 12 */
extern const struct scenario xattrat_scenarios[] __attribute__((weak));
extern const struct scenario onename_scenarios[] __attribute__((weak)); /* issue 12: one-name creates */
extern const struct scenario rw2_scenarios[] __attribute__((weak)); /* session 8: preadv2, fadvise, sync */
extern const struct scenario fsflags_scenarios[] __attribute__((weak)); /* session 8: FS_IOC_SETFLAGS */
extern const struct scenario suites_scenarios[] __attribute__((weak)); /* session 8: xfstests/pjdfstest facts */
extern const struct scenario memfd_scenarios[] __attribute__((weak)); /* session 15: memfd_create, seals */
static const struct scenario *const groups[] = {
	inotify_scenarios,
	files_scenarios, names_scenarios, attrs_scenarios, dirs_scenarios, dirs_renames_scenarios,
	perms_scenarios, mounts_scenarios, openat2_scenarios, pipes_scenarios,
	fuzzfound_scenarios, creds_scenarios,
	xattr_scenarios, acl_scenarios,
	space_scenarios,
	space_events_scenarios,
	copy_scenarios,
	epoll_scenarios,
	locks_scenarios,
	fhandle_scenarios,
	overlay_scenarios,
	pathcache_scenarios,
	xattrat_scenarios,
	onename_scenarios,
	rw2_scenarios,
	fsflags_scenarios,
	suites_scenarios,
	memfd_scenarios,
};
#endif

static int verbose;
/* Set by drivers (conf_compare): no FAIL, SKIP or DOC lines. */
static int quiet;
#define say(...) (quiet ? 0 : printf(__VA_ARGS__))
static int npass, nfail, nskip;
/* The first mismatching check of the last scenario run, for conf_compare. */
static char first_fail[REC_OP + 16];
static char failed_names[8192];

static void fail_at(const char *what)
{
	if (!first_fail[0])
		snprintf(first_fail, sizeof first_fail, "%s", what);
}

static const char *val_str(const struct rec *r, char *buf, size_t len)
{
	if (r->kind == K_STR)
		return r->s;
	if (r->v < 0 && r->v > -4096) {
		const char *n = strerrorname_np((int)-r->v);
		if (n) {
			snprintf(buf, len, "-%s", n);
			return buf;
		}
	}
	if (r->kind == K_FD && r->v == 0)
		return "fd";
	snprintf(buf, len, "%lld", r->v);
	return buf;
}

static int same(const struct rec *a, const struct rec *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == K_STR)
		return strcmp(a->s, b->s) == 0;
	return a->v == b->v;
}

/* Runs sc on be in a child; returns the wait status. */
/* What the last child wrote to stderr (sanitizer reports). */
static char child_err[8192];

/* A sanitizer report in the child's stderr: a failure even when the child's
 * exit status missed it (a report from another thread racing exit). */
static const char *sanitizer_report(void)
{
	static const char *const marks[] = { "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
					     "runtime error:", "WARNING: ThreadSanitizer" };
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		const char *p = strstr(child_err, marks[i]);
		if (p)
			return p;
	}
	return NULL;
}

static int run_one(const struct backend *be, const struct scenario *sc, struct recbuf *buf)
{
	char scratch[256] = "";
	child_err[0] = 0;
	int efd = memfd_create("conformance-stderr", MFD_CLOEXEC);
	memset(buf, 0, offsetof(struct recbuf, r));
	if (be->prepare && be->prepare(scratch, sizeof scratch) < 0) {
		snprintf(buf->note, sizeof buf->note, "prepare failed: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		if (efd >= 0)
			(dup2)(efd, 2);	/* the libc call, not conf.h's macro */
		alarm(30);
		/* writes to a pipe without readers answer EPIPE, no signal */
		signal(SIGPIPE, SIG_IGN);
		cur = buf;
		B = be;
		int r = be->setup(&BX, scratch);
		if (r < 0) {
			note("setup failed: %s", strerror(-r));
			_exit(3);
		}
		sc->fn();
		be->teardown(BX);
		buf->done = 1;
		/* exit(), not _exit(), where LeakSanitizer should run at exit and
		 * fail the child if the backend leaked (backend.h: leak_check).
		 * Not for the host child: it lives in a root without /proc, where
		 * the leak checker cannot run. */
		if (!be->leak_check)
			_exit(0);
		exit(0);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (efd >= 0) {
		ssize_t n = (pread)(efd, child_err, sizeof child_err - 1, 0);
		child_err[n > 0 ? n : 0] = 0;
		(close)(efd);
	}
	if (be->cleanup)
		be->cleanup(scratch);
	return st;
}

static const char *status_str(int st, char *b, size_t len)
{
	if (st == -1)
		snprintf(b, len, "not started");
	else if (WIFSIGNALED(st))
		snprintf(b, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(b, len, "exit status %d", WEXITSTATUS(st));
	return b;
}

static void run_scenario(const struct scenario *sc, const struct backend *test,
			 struct recbuf *hb, struct recbuf *tb)
{
	char b1[64], b2[64], sb[128];
	if ((sc->needs & NEEDS_PROCS) && !test->proc_clone) {
		say("SKIP %s: %s has no processes (proc_clone)\n", sc->name, test->name);
		nskip++;
		return;
	}
	int hs = run_one(&host_backend, sc, hb);
	int ts = run_one(test, sc, tb);
	int ok = 1;

	if (!hb->done || hs != 0) {
		say("FAIL %s: host run did not finish (%s) %s\n", sc->name, status_str(hs, sb, sizeof sb),
		    hb->note);
		nfail++;
		fail_at("host run did not finish");
		return;
	}
	if (hb->overflow || tb->overflow) {
		say("FAIL %s: more than %d checks in one scenario\n", sc->name, MAXREC);
		nfail++;
		fail_at("too many checks");
	}
	int n = hb->n > tb->n ? hb->n : tb->n;
	for (int i = 0; i < n; i++) {
		const struct rec *h = &hb->r[i], *t = &tb->r[i];
		if (i >= tb->n) {
			if (!tb->done) {
				say("FAIL %s #%d %s: %s stopped (%s) before this check; "
				    "%d checks not run; host=%s\n", sc->name, i, h->op, test->name,
				    status_str(ts, sb, sizeof sb), hb->n - i, val_str(h, b1, sizeof b1));
			} else {
				say("FAIL %s #%d %s: missing on %s (%d checks); host=%s\n", sc->name, i,
				    h->op, test->name, tb->n, val_str(h, b1, sizeof b1));
			}
			nfail += hb->n - i;
			ok = 0;
			fail_at(h->op);
			break;
		}
		if (i >= hb->n) {
			say("FAIL %s #%d %s: extra check on %s\n", sc->name, i, t->op, test->name);
			nfail++;
			ok = 0;
			fail_at(t->op);
			break;
		}
		if (strcmp(h->op, t->op) != 0) {
			say("FAIL %s #%d: scenario diverged: host did %s, %s did %s\n", sc->name, i,
			    h->op, test->name, t->op);
			nfail += hb->n - i;
			ok = 0;
			fail_at(h->op);
			break;
		}
		if (h->since || (h->kind != K_STR && h->v == -ENOSYS)) {
			/* the host kernel cannot give the expected value */
			nskip++;
			say("SKIP %s #%d %s: host=%s %s=%s (%s)\n", sc->name, i, h->op,
			    val_str(h, b1, sizeof b1), test->name, val_str(t, b2, sizeof b2),
			    h->since ? h->why : "host kernel lacks the call");
		} else if (same(h, t)) {
			npass++;
			if (verbose)
				say("ok   %s #%d %s = %s\n", sc->name, i, h->op, val_str(h, b1, sizeof b1));
		} else if (h->doc) {
			nskip++;
			say("DOC  %s #%d %s: host=%s %s=%s (documented difference: %s)\n", sc->name, i,
			    h->op, val_str(h, b1, sizeof b1), test->name, val_str(t, b2, sizeof b2),
			    h->why);
			if (h->doc == 2 && i + 1 < n) {
				/* the trees differ from here: nothing after compares */
				say("SKIP %s: %d checks after #%d, whose documented difference left "
				    "the two trees different\n", sc->name, n - i - 1, i);
				nskip += n - i - 1;
				break;
			}
		} else {
			nfail++;
			ok = 0;
			fail_at(h->op);
			say("FAIL %s #%d %s: host=%s %s=%s\n", sc->name, i, h->op,
			    val_str(h, b1, sizeof b1), test->name, val_str(t, b2, sizeof b2));
		}
	}
	const char *rep = sanitizer_report();
	if (rep) {
		const char *eol = strchr(rep, '\n');
		say("FAIL %s: %s child: %.*s\n", sc->name, test->name,
		    eol ? (int)(eol - rep) : 200, rep);
		if (!quiet)
			fputs(child_err, stdout);
		nfail++;
		ok = 0;
		fail_at("sanitizer report");
	} else if (verbose && child_err[0]) {
		say("     %s: %s stderr:\n%s", sc->name, test->name, child_err);
	}
	if (tb->done && ts != 0) {
		say("FAIL %s: %s child ended with %s after all checks (leak or crash at teardown?)\n",
		    sc->name, test->name, status_str(ts, sb, sizeof sb));
		nfail++;
		ok = 0;
		fail_at("child ended badly");
	}
	if (hb->note[0] && verbose)
		say("     %s: host note: %s\n", sc->name, hb->note);
	if (tb->note[0] && (verbose || !ok))
		say("     %s: %s note: %s\n", sc->name, test->name, tb->note);
	if (!ok && strlen(failed_names) + strlen(sc->name) + 2 < sizeof failed_names) {
		strcat(failed_names, " ");
		strcat(failed_names, sc->name);
	}
	if (verbose)
		say("%s %s (%d checks)\n", ok ? "PASS" : "FAIL", sc->name, hb->n);
}

/* A buffer pair shared with the children, made on first use. */
static struct recbuf *shared_bufs(void)
{
	static struct recbuf *m;
	if (!m) {
		m = mmap(NULL, 2 * sizeof(struct recbuf), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
	}
	return m;
}

int conf_compare(const struct scenario *sc, int be_quiet, struct conf_outcome *out)
{
	int p0 = npass, f0 = nfail, s0 = nskip;
	struct recbuf *m = shared_bufs();
	quiet = be_quiet;
	first_fail[0] = 0;
	run_scenario(sc, &uvfs_backend ? &uvfs_backend : &host_backend, &m[0], &m[1]);
	quiet = 0;
	out->pass = npass - p0;
	out->fail = nfail - f0;
	out->skip = nskip - s0;
	snprintf(out->first_fail, sizeof out->first_fail, "%s", first_fail);
	return out->fail;
}

#ifndef CONF_NO_MAIN
/* -x: one scenario on one backend in this process, every check printed. */
static void run_inproc(const struct scenario *sc, const struct backend *be, struct recbuf *buf)
{
	char b1[64];
	memset(buf, 0, offsetof(struct recbuf, r));
	cur = buf;
	B = be;
	if (be == &host_backend) {
		printf("-x needs a backend that runs in this process (-b uvfs)\n");
		exit(2);
	}
	int r = be->setup(&BX, "");
	if (r < 0) {
		printf("%s: setup failed: %s\n", sc->name, strerror(-r));
		return;
	}
	sc->fn();
	be->teardown(BX);
	for (int i = 0; i < buf->n; i++)
		printf("%s #%d %s = %s\n", sc->name, i, buf->r[i].op, val_str(&buf->r[i], b1, sizeof b1));
	npass += buf->n;
}


static void usage(void)
{
	fprintf(stderr, "usage: conformance [-v] [-l] [-x] [-b host|uvfs] [PATTERN...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const struct backend *test = &uvfs_backend ? &uvfs_backend : NULL;
	int list = 0, inproc = 0, opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "vlxb:h")) != -1) {
		switch (opt) {
		case 'v': verbose = 1; break;
		case 'x': inproc = 1; break;
		case 'l': list = 1; break;
		case 'b':
			if (!strcmp(optarg, "host"))
				test = &host_backend;
			else if (!strcmp(optarg, "uvfs") && &uvfs_backend)
				test = &uvfs_backend;
			else
				usage();
			break;
		default: usage();
		}
	}
	if (!test) {
		printf("note: built without the uvfs backend; comparing the host with itself\n");
		test = &host_backend;
	}
	if (!list && geteuid() != 0) {
		printf("SKIP conformance: the host backend needs root (chroot, mount)\n");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	struct recbuf *m = shared_bufs();
	int nsel = 0;
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		for (const struct scenario *sc = groups[g]; sc && sc->name; sc++) {
			if (!scenario_selected(sc->name, argc - optind, argv + optind))
				continue;
			nsel++;
			if (list) {
				printf("%s\n", sc->name);
				continue;
			}
			if (inproc) {
				run_inproc(sc, test, &m[1]);
				continue;
			}
			run_scenario(sc, test, &m[0], &m[1]);
		}
	}
	if (list)
		return 0;
	if (!nsel) {
		printf("no scenario matches\n");
		usage();
	}
	if (failed_names[0])
		printf("scenarios with failures:%s\n", failed_names);
	if (nskip)
		printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
	else
		printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
#endif
