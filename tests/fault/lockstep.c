// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lockstep.c - conf.h's recording functions for the fault sweep, and the
 * comparison of each operation and check with the clean run (lockstep.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "conf.h"
#include "fault_alloc.h"
#include "lockstep.h"
#include "symbols.h"

const struct backend *B;
void *BX;

static struct clean_run *cl_run;
static struct run_result *result;
static bool clean_mode;
static bool stopped; /* a failure or a partial write: compare no further */
static long ncalls, nchecks;
/* An event lost because fsnotify could not grow its list of marks: the
 * results may differ from the first mismatch on (pending holds it), but an
 * IN_Q_OVERFLOW the clean run did not read must show up before the end.
 * (A failed event allocation queues the overflow in the event's place, in
 * a queue that may be full or only counted: that comparison just ends.) */
static bool lost_event, awaiting;
static char pending[512];

void lockstep_start(struct clean_run *clean, struct run_result *res, bool is_clean)
{
	cl_run = clean;
	result = res;
	clean_mode = is_clean;
	stopped = false;
	lost_event = awaiting = false;
	ncalls = nchecks = 0;
	memset(res, 0, sizeof(*res));
	if (is_clean) {
		clean->ncalls = clean->nchecks = clean->nalloc = 0;
		clean->overflow = false;
	}
}

void lockstep_fail(const char *fmt, ...)
{
	stopped = true;
	if (result->failed)
		return;
	result->failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(result->msg, sizeof(result->msg), fmt, ap);
	va_end(ap);
}

static const char *val(long long v, char *buf, size_t len)
{
	const char *n = v < 0 && v > -4096 ? strerrorname_np((int)-v) : NULL;
	if (n)
		snprintf(buf, len, "-%s", n);
	else
		snprintf(buf, len, "%lld", v);
	return buf;
}

void lockstep_where(void)
{
	void *st[24];
	int n = fault_stack(st, 24);
	size_t l = 0;
	result->where[0] = 0;
	for (int i = 0, shown = 0; i < n && shown < 5; i++) {
		const char *f = symbol_name(st[i]);
		if (!strncmp(f, "fault_", 6) || !strcmp(f, "should_fail"))
			continue;
		l += snprintf(result->where + l, sizeof(result->where) - l, "%s%s", shown++ ? " < " : "", f);
		if (l >= sizeof(result->where))
			break;
	}
}

/* the first caller of the failed allocation */
static bool failed_in(const char *fn)
{
	size_t n = strlen(fn);
	return !strncmp(result->where, fn, n) && (!result->where[n] || result->where[n] == ' ');
}

/* Transfers that may stop short: what moved before the failure stays moved
 * (copy_file_range, sendfile, splice and tee too: their copies are writes) */
static bool is_write(const char *op)
{
	return !strcmp(op, "write") || !strcmp(op, "pwrite") || !strcmp(op, "writev") ||
	       !strcmp(op, "copy_file_range") || !strcmp(op, "sendfile") || !strcmp(op, "splice") ||
	       !strcmp(op, "tee");
}

bool lockstep_alloc_error(const char *op, long long r)
{
	lockstep_where();
	if (r == -ENOMEM)
		return true;
	/* a record lock that cannot be allocated is ENOLCK, as Linux's
	 * fcntl_setlk and posix_lock_inode answer */
	if (!strcmp(op, "fcntl") && r == -ENOLCK && failed_in("posix_lock_inode"))
		return true;
	/* Linux's get_pipe_inode failing gives ENFILE; its files, ENOMEM */
	return !strcmp(op, "pipe2") && r == -ENFILE && !strstr(result->where, "alloc_file_pseudo");
}

void lockstep_call(const char *op, long long r, bool here, bool failed)
{
	long k = ncalls++;
	char b1[32], b2[32], b3[32];
	if (here) {
		result->op = op;
		result->call = k;
		result->enomem = failed;
	}
	if (clean_mode) {
		if (k >= MAXCALLS) {
			cl_run->overflow = true;
			return;
		}
		cl_run->calls[k].op = op;
		cl_run->calls[k].v = r;
		cl_run->ncalls = k + 1;
		return;
	}
	if (stopped)
		return;
	if (k >= cl_run->ncalls || cl_run->calls[k].op != op) {
		lockstep_fail("operation #%ld is %s, in the clean run %s", k, op,
			      k < cl_run->ncalls ? cl_run->calls[k].op : "(none: it ended)");
		return;
	}
	long long want = cl_run->calls[k].v;
	if (r == want) {
		if (here && !failed && failed_in("inotify_handle_event")) {
			/* the event itself: queued as IN_Q_OVERFLOW instead
			 * (uvfs did so from the start, as Linux) */
			result->overflow = true;
			stopped = true;
		} else if (here && !failed && failed_in("__send_to_marks")) {
			lost_event = true;
		}
		return;
	}
	if (lost_event && !here) {
		snprintf(pending, sizeof pending, "operation #%ld %s = %s, the clean run %s", k, op,
			 val(r, b1, sizeof b1), val(want, b2, sizeof b2));
		awaiting = stopped = true;
		return;
	}
	if (here && !failed && is_write(op) && r >= 0 && r < want) {
		/* Linux's partial write: the bytes before the failure stay */
		result->partial = true;
		stopped = true;
		return;
	}
	if (failed)
		lockstep_fail("operation #%ld %s answered an allocation error, then %s when made again; the clean run %s "
			      "(the failed call changed something)", k, op, val(r, b1, sizeof b1),
			      val(want, b2, sizeof b2));
	else if (here)
		lockstep_fail("operation #%ld %s = %s with its allocation failing; the clean run %s (only "
			      "-ENOMEM may differ)", k, op, val(r, b1, sizeof b1), val(want, b2, sizeof b2));
	else
		lockstep_fail("operation #%ld %s = %s, the clean run %s%s", k, op, val(r, b1, sizeof b1),
			      val(want, b2, sizeof b2),
			      result->op ? " (after an allocation failed, handled without an error, in an earlier one)" : "");
	(void)b3;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static void check(const char *op, long long v, const char *s)
{
	long j = nchecks++;
	uint64_t h = fnv(0xcbf29ce484222325ull, op, strlen(op) + 1);
	h = s ? fnv(h, s, strlen(s) + 1) : fnv(h, &v, sizeof v);
	char vb[32];
	if (clean_mode) {
		if (j >= MAXCHECKS) {
			cl_run->overflow = true;
			return;
		}
		struct check_log *c = &cl_run->checks[j];
		c->hash = h;
		snprintf(c->op, sizeof c->op, "%s", op);
		snprintf(c->s, sizeof c->s, "%s", s ? s : val(v, vb, sizeof vb));
		cl_run->nchecks = j + 1;
		return;
	}
	if (awaiting && s && strstr(s, "Q_OVERFLOW") && (j >= cl_run->nchecks || !strstr(cl_run->checks[j].s, "Q_OVERFLOW"))) {
		/* the lost event, reported as on Linux */
		awaiting = false;
		result->overflow = true;
		return;
	}
	if (stopped)
		return;
	if (j >= cl_run->nchecks) {
		lockstep_fail("check #%ld %s: not in the clean run", j, op);
		return;
	}
	const struct check_log *c = &cl_run->checks[j];
	if (c->hash != h && lost_event) {
		snprintf(pending, sizeof pending, "check #%ld %s = %.160s; the clean run: %s", j, op,
			 s ? s : val(v, vb, sizeof vb), c->s);
		awaiting = stopped = true;
		if (s && strstr(s, "Q_OVERFLOW") && !strstr(c->s, "Q_OVERFLOW")) {
			awaiting = false;
			result->overflow = true;
		}
		return;
	}
	if (c->hash != h)
		lockstep_fail("check #%ld %s = %.160s; the clean run: %s = %s%s", j, op, s ? s : val(v, vb, sizeof vb),
			      c->op, c->s,
			      result->op ? " (after an allocation failed in an earlier operation)" : "");
}

void lockstep_end(void)
{
	if (awaiting)
		lockstep_fail("an event was lost to the failed allocation, and no IN_Q_OVERFLOW said so: %s", pending);
}

long long chk(const char *op, long long v)
{
	check(op, v, NULL);
	return v;
}

int chk_fd(const char *op, long long v)
{
	check(op, v >= 0 ? 0 : v, NULL);
	return (int)v;
}

long long chk_doc(const char *op, long long v, const char *why)
{
	return chk(op, v);
}

void chk_str(const char *op, const char *s)
{
	check(op, 0, s);
}

long long chk_since(const char *op, long long v, int major, int minor)
{
	return chk(op, v);
}

int chk_fd_since(const char *op, long long v, int major, int minor)
{
	return chk_fd(op, v);
}

void chk_str_since(const char *op, const char *s, int major, int minor)
{
	chk_str(op, s);
}

void note(const char *f, ...)
{
}
