/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.c - the table on stdout, results.json, and SVG plots drawn here
 * (no plotting tool needed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

const char *status_name(enum status s)
{
	switch (s) {
	case ST_OK: return "ok";
	case ST_NA: return "n/a";
	case ST_FAIL: return "FAIL";
	case ST_CRASH: return "CRASH";
	case ST_HANG: return "HANG";
	case ST_SKIP: return "skipped";
	}
	return "?";
}

/* What the seed's own thread measured in the kernel (uvfs/baseline there). */
static const struct {
	const char *seed;
	double gain;
	const char *what;
} seed_figures[] = {
	{ "000", 1.49, "kernel +49% (open ENOENT, 1 worker)" },
	{ "001", 1.145, "kernel +14.5% (+7% without rseq; open1, 1 worker)" },
	{ "003", 1.02, "kernel about +2% (perf messaging, pipes)" },
	{ "004", 1.015, "kernel +1.5% (readlink)" },
};


static const char *seed_what(const char *seed, double *gain)
{
	size_t i;

	for (i = 0; seed && i < sizeof(seed_figures) / sizeof(seed_figures[0]); i++)
		if (!strcmp(seed, seed_figures[i].seed)) {
			if (gain)
				*gain = seed_figures[i].gain;
			return seed_figures[i].what;
		}
	return NULL;
}

static struct result *find(struct result *r, int n, const struct testcase *tc, const char *mode,
			   int workers, const char *target)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i].tc == tc && r[i].workers == workers && !strcmp(r[i].mode, mode) &&
		    !strcmp(r[i].target, target))
			return &r[i];
	return NULL;
}

static int ok(const struct result *r)
{
	return r && r->status == ST_OK && r->nsamples;
}

static double ratio(const struct result *a, const struct result *b)
{
	return ok(a) && ok(b) && b->median > 0 ? a->median / b->median : NAN;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/*
 * Two targets at the same configuration: the median of the per-round
 * ratios.  The targets take turns, so a round's two samples are adjacent in
 * time and share whatever the machine did then (another VM's load, a
 * frequency change); a ratio of two medians does not cancel that.  In A/A
 * runs (one library against a copy of itself, 12 samples of 0.25 s) the
 * ratio of medians moved 0.85-1.08 and the paired median 0.97-1.03
 * (BENCHMARKS.md, "Noise").  When a
 * target missed rounds the samples do not pair: the ratio of the medians.
 */
static double pair_ratio(const struct result *a, const struct result *b)
{
	double q[MAX_SAMPLES];
	int k;

	if (!ok(a) || !ok(b))
		return NAN;
	if (a->nsamples != b->nsamples || a->nsamples < 3)
		return ratio(a, b);
	for (k = 0; k < a->nsamples; k++) {
		if (!(b->samples[k] > 0))
			return ratio(a, b);
		q[k] = a->samples[k] / b->samples[k];
	}
	qsort(q, k, sizeof(q[0]), cmp_double);
	return k % 2 ? q[k / 2] : (q[k / 2 - 1] + q[k / 2]) / 2;
}

static void cell(FILE *f, const struct result *r)
{
	if (!r)
		fprintf(f, " %11s %4s", "-", "");
	else if (!ok(r))
		fprintf(f, " %11s %4s", status_name(r->status), "");
	else {
		double sp = r->median > 0 ? (r->max - r->min) / 2 / r->median * 100 : 0;

		if (sp < 999.5)
			fprintf(f, " %11.0f %3.0f%%", r->median, sp);
		else
			fprintf(f, " %11.0f >999", r->median);
	}
}

static void rcell(FILE *f, double x)
{
	if (isnan(x))
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %8.2fx", x);
}

/* Distinct values, in order of first appearance. */
static int testcases_of(struct result *r, int n, const struct testcase **out)
{
	int i, j, k = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k && out[j] != r[i].tc; j++)
			;
		if (j == k)
			out[k++] = r[i].tc;
	}
	return k;
}

static int workers_of(struct result *r, int n, int *out)
{
	int i, j, k = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k && out[j] != r[i].workers; j++)
			;
		if (j == k)
			out[k++] = r[i].workers;
	}
	/* ascending */
	for (i = 1; i < k; i++)
		for (j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int x = out[j];
			out[j] = out[j - 1];
			out[j - 1] = x;
		}
	return k;
}

static const char *modes[] = { "threads", "processes" };

/* Whether the run has the uvfs-fuse target: its column, ratio and plot
 * lines appear only then, so a run without it looks as it always did. */
static int has_fuse(struct result *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(r[i].target, "uvfs-fuse"))
			return 1;
	return 0;
}

/* The figures the issues ask for ("Done when"), checked against this run.
 * Each goal is uvfs over another target at the same configuration (the
 * median of the per-round ratios, pair_ratio), or uvfs at W workers over uvfs
 * at 1 worker (a ratio of two medians: different runs do not pair). */
static const struct goal {
	const char *tc, *mode;
	int workers;
	const char *against;     /* "uvfs-baseline", "host", or NULL: uvfs at 1 worker */
	double min;
	const char *source;
} goals[] = {
	{ "open_enoent", "threads", 1, "uvfs-baseline", 1.3, "#4 seed 000" },
	{ "open1", "threads", 1, "uvfs-baseline", 1.07, "#4 seed 001" },
	{ "pipe1", "threads", 1, "uvfs-baseline", 1.0, "#4 seed 003" },
	{ "readlink1", "threads", 1, "uvfs-baseline", 1.01, "#4 seed 004" },
	{ "open_enoent", "threads", 1, "host", 10, "#2 #4" },
	{ "readlink1", "threads", 1, "host", 10, "#4 (#2: 5)" },
	{ "open1", "threads", 1, "host", 5, "#2 #4" },
	{ "stat1", "threads", 1, "host", 5, "#4" },
	{ "pipe1", "threads", 1, "host", 5, "#3 #4" },
	{ "open1", "processes", 2, NULL, 1.8, "#2 #4" },
	{ "open_enoent", "processes", 2, NULL, 1.8, "#4" },
	{ "open1", "threads", 2, NULL, 1.5, "#4" },
	{ "open_enoent", "threads", 2, NULL, 1.5, "#4" },
	{ "messaging", "threads", 0, "uvfs-baseline", 1.0, "#4: every group count" },
	{ "messaging", "threads", 0, "host", 1.0, "#3: every group count" },
};

static void report_goals(FILE *f, struct result *r, int n)
{
	size_t g;
	int i, shown = 0;

	for (g = 0; g < sizeof(goals) / sizeof(goals[0]); g++) {
		const struct goal *x = &goals[g];

		for (i = 0; i < n; i++) {
			struct result *u = &r[i], *o;
			char what[96];
			double v;

			if (strcmp(u->tc->name, x->tc) || strcmp(u->target, "uvfs") ||
			    strcmp(u->mode, x->mode) || (x->workers && u->workers != x->workers))
				continue;
			o = x->against ? find(r, n, u->tc, u->mode, u->workers, x->against)
				       : find(r, n, u->tc, u->mode, 1, "uvfs");
			if (!o)
				continue;
			v = x->against ? pair_ratio(u, o) : ratio(u, o);
			if (!shown++)
				fprintf(f, "\ngoals of the issues, 1 worker unless said (a shared 2-core "
					"machine: read with the spread above)\n");
			if (x->against)
				snprintf(what, sizeof(what), "%s %s W=%d uvfs/%s", x->tc, x->mode,
					 u->workers, strcmp(x->against, "host") ? "base" : "host");
			else
				snprintf(what, sizeof(what), "%s %s uvfs W=%d / W=1", x->tc, x->mode,
					 u->workers);
			fprintf(f, "  %-44s >= %5.2f  measured ", what, x->min);
			if (isnan(v))
				fprintf(f, "%6s  %-8s", "-", "no data");
			else
				fprintf(f, "%6.2f  %-8s", v, v >= x->min ? "met" : "NOT MET");
			fprintf(f, " (%s)\n", x->source);
		}
	}
}

void report_table(FILE *f, const struct run_info *ri, struct result *r, int n)
{
	const struct testcase **tcs = calloc(n + 1, sizeof(*tcs));
	int *ws = calloc(n + 1, sizeof(*ws));
	int ntc = testcases_of(r, n, tcs), nw = workers_of(r, n, ws);
	int i, j, m, problems = 0, fuse = has_fuse(r, n);

	if (ri->rate_run)
		fprintf(f, "rate run: each worker's ops over the part of the sample it was not kept "
			"off its CPU by other work\n(run-queue delay from /proc/TID/schedstat); jobs "
			"(messaging) stay in wall time\n");
	fprintf(f, "ops/s: median of %d samples of %.3g s; the targets take turns for every sample "
		"(order from seed %llu);\n+-%%: half the min-max range of the samples; load average "
		"%.1f at the start, %.1f at the end (%d cpus)\n", ri->nsamples, ri->interval, ri->seed,
		ri->load_start[0], ri->load_end[0], ri->ncpus);
	fprintf(f, "uvfs/base = uvfs / uvfs-baseline; uvfs/host = uvfs / host kernel (each the median of "
		"the per-round ratios);\nuvfs xW1 = uvfs at W workers / uvfs at 1 worker (ratio of medians);\nW = workers (for a job such as messaging: groups, "
		"and ops = messages;\na job takes one sample per run, repeated for the measured time)\n");
	if (fuse)
		fprintf(f, "uvfs-fuse = the host's system calls into a uvfs-fuse mount (%s), each call that "
			"reaches uvfs a FUSE round trip;\nfuse/host = uvfs-fuse / host; - = not run for "
			"uvfs-fuse\n", ri->fuse_dir ? ri->fuse_dir : "?");
	fprintf(f, "\n");
	fprintf(f, "%-12s %-4s %-9s %3s %16s %16s %16s", "testcase", "seed", "mode", "W", "uvfs",
		"uvfs-baseline", "host");
	if (fuse)
		fprintf(f, " %16s", "uvfs-fuse");
	fprintf(f, " %10s %10s", "uvfs/base", "uvfs/host");
	if (fuse)
		fprintf(f, " %10s", "fuse/host");
	fprintf(f, " %9s\n", "uvfs xW1");
	for (i = 0; i < ntc; i++) {
		for (m = 0; m < 2; m++)
			for (j = 0; j < nw; j++) {
				struct result *u = find(r, n, tcs[i], modes[m], ws[j], "uvfs");
				struct result *b = find(r, n, tcs[i], modes[m], ws[j], "uvfs-baseline");
				struct result *h = find(r, n, tcs[i], modes[m], ws[j], "host");
				struct result *fu = find(r, n, tcs[i], modes[m], ws[j], "uvfs-fuse");
				struct result *u1 = find(r, n, tcs[i], modes[m], 1, "uvfs");

				if (!u && !b && !h && !fu)
					continue;
				fprintf(f, "%-12s %-4s %-9s %3d", tcs[i]->name,
					tcs[i]->seed ? tcs[i]->seed : "-", modes[m], ws[j]);
				cell(f, u);
				cell(f, b);
				cell(f, h);
				if (fuse)
					cell(f, fu);
				rcell(f, pair_ratio(u, b));
				fprintf(f, " ");
				rcell(f, pair_ratio(u, h));
				fprintf(f, " ");
				if (fuse) {
					rcell(f, pair_ratio(fu, h));
					fprintf(f, " ");
				}
				rcell(f, ws[j] != 1 ? ratio(u, u1) : NAN);
				fprintf(f, "\n");
			}
	}
	/* jobs: the time of one run, as perf bench reports it */
	for (i = 0; i < ntc; i++) {
		if (!tcs[i]->job)
			continue;
		fprintf(f, "\n%s: time of one run (median), %lu loops; lower is better\n",
			tcs[i]->name, tcs[i]->job_loops);
		fprintf(f, "%-8s %14s %14s %14s %10s %10s\n", tcs[i]->param_name, "uvfs",
			"uvfs-baseline", "host", "base/uvfs", "host/uvfs");
		for (j = 0; j < nw; j++) {
			struct result *x[3];
			double tm[3];
			int t;

			for (t = 0; t < 3; t++) {
				x[t] = find(r, n, tcs[i], "threads", ws[j], t == 0 ? "uvfs" :
					    t == 1 ? "uvfs-baseline" : "host");
				tm[t] = ok(x[t]) && x[t]->median > 0 && x[t]->ops_per_run ?
					x[t]->ops_per_run / x[t]->median : NAN;
			}
			if (!x[0] && !x[1] && !x[2])
				continue;
			fprintf(f, "%-8d", ws[j]);
			for (t = 0; t < 3; t++) {
				if (isnan(tm[t]))
					fprintf(f, " %14s", x[t] ? status_name(x[t]->status) : "-");
				else
					fprintf(f, " %11.3f ms", tm[t] * 1e3);
			}
			/* time ratios from the paired rate ratios: t_b / t_u =
			 * (rate_u / rate_b) * (ops_per_run_b / ops_per_run_u) */
			rcell(f, isnan(tm[0]) || isnan(tm[1]) ? NAN :
				 pair_ratio(x[0], x[1]) * x[1]->ops_per_run / x[0]->ops_per_run);
			fprintf(f, " ");
			rcell(f, isnan(tm[0]) || isnan(tm[2]) ? NAN :
				 pair_ratio(x[0], x[2]) * x[2]->ops_per_run / x[0]->ops_per_run);
			fprintf(f, "\n");
		}
	}
	for (i = 0; i < n; i++)
		if (r[i].msg[0] && r[i].status != ST_NA) {
			if (!problems++)
				fprintf(f, "\nproblems:\n");
			fprintf(f, "  %s %s %s W=%d: %s: %s\n", r[i].tc->name, r[i].target, r[i].mode,
				r[i].workers, status_name(r[i].status), r[i].msg);
		}
	for (i = 0, j = 0, m = 0; i < n; i++)
		if (r[i].status == ST_NA) {
			if (strcmp(r[i].target, "uvfs-fuse"))
				j++;
			else
				m++;
		}
	if (j || m)
		fprintf(f, "\n");
	if (j)
		fprintf(f, "n/a: %d measurements whose target lacks a call the testcase needs "
			"(uvfs_pipe2)\n", j);
	if (m)
		fprintf(f, "n/a: %d uvfs-fuse measurements of pipe testcases (a pipe is not on the "
			"mount)\n", m);
	report_goals(f, r, n);
	free(tcs);
	free(ws);
}

/* ---- JSON ---- */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jstr_or_null(FILE *f, const char *s)
{
	if (s)
		jstr(f, s);
	else
		fprintf(f, "null");
}

static void jnum(FILE *f, double x)
{
	if (isnan(x) || isinf(x))
		fprintf(f, "null");
	else
		fprintf(f, "%.10g", x);
}

int report_json(const char *path, const struct run_info *ri, struct result *r, int n)
{
	FILE *f = fopen(path, "w");
	int i, j;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "{\n  \"header\": {\n    \"tool\": \"uvfs-bench\",\n    \"seed\": %llu,\n",
		ri->seed);
	fprintf(f, "    \"date\": ");
	jstr(f, ri->date);
	fprintf(f, ",\n    \"host\": ");
	jstr(f, ri->host);
	fprintf(f, ",\n    \"kernel\": ");
	jstr(f, ri->kernel);
	fprintf(f, ",\n    \"cpu\": ");
	jstr(f, ri->cpu);
	fprintf(f, ",\n    \"ncpus\": %d,\n    \"warmup_s\": %g,\n    \"interval_s\": %g,\n"
		"    \"samples\": %d,\n    \"rate\": \"%s\",\n    \"pinned\": %s,\n", ri->ncpus,
		ri->warmup, ri->interval, ri->nsamples, ri->rate_run ? "run" : "wall", ri->affinity ? "true" : "false");
	fprintf(f, "    \"loadavg_start\": %.2f,\n    \"loadavg_end\": %.2f,\n", ri->load_start[0],
		ri->load_end[0]);
	fprintf(f, "    \"lib\": ");
	jstr_or_null(f, ri->lib);
	fprintf(f, ",\n    \"baseline_lib\": ");
	jstr_or_null(f, ri->baseline_lib);
	fprintf(f, ",\n    \"hostdir\": ");
	jstr(f, ri->hostbase);
	if (ri->fuse_dir) {
		fprintf(f, ",\n    \"fuse_dir\": ");
		jstr(f, ri->fuse_dir);
	}
	fprintf(f, ",\n    \"targets\": ");
	jstr(f, ri->targets);
	fprintf(f, ",\n    \"modes\": ");
	jstr(f, ri->modes);
	fprintf(f, ",\n    \"workers\": ");
	jstr(f, ri->workers);
	fprintf(f, "\n  },\n  \"results\": [\n");
	for (i = 0; i < n; i++) {
		struct result *x = &r[i];
		struct result *u = find(r, n, x->tc, x->mode, x->workers, "uvfs");
		struct result *b = find(r, n, x->tc, x->mode, x->workers, "uvfs-baseline");
		struct result *h = find(r, n, x->tc, x->mode, x->workers, "host");

		fprintf(f, "    {\"testcase\": ");
		jstr(f, x->tc->name);
		fprintf(f, ", \"seed\": ");
		if (x->tc->seed)
			jstr(f, x->tc->seed);
		else
			fprintf(f, "null");
		fprintf(f, ", \"target\": ");
		jstr(f, x->target);
		fprintf(f, ", \"mode\": ");
		jstr(f, x->mode);
		fprintf(f, ", \"workers\": %d, \"status\": ", x->workers);
		jstr(f, status_name(x->status));
		fprintf(f, ", \"message\": ");
		jstr(f, x->msg);
		fprintf(f, ",\n     \"ops_per_s\": {\"median\": ");
		jnum(f, ok(x) ? x->median : NAN);
		fprintf(f, ", \"min\": ");
		jnum(f, ok(x) ? x->min : NAN);
		fprintf(f, ", \"max\": ");
		jnum(f, ok(x) ? x->max : NAN);
		fprintf(f, ", \"mean\": ");
		jnum(f, ok(x) ? x->mean : NAN);
		fprintf(f, ", \"stddev\": ");
		jnum(f, ok(x) ? x->stddev : NAN);
		if (x->tc->job && ok(x) && x->ops_per_run)
			fprintf(f, ", \"ops_per_run\": %llu, \"seconds_per_run_median\": %.6f",
				x->ops_per_run, x->ops_per_run / x->median);
		fprintf(f, ", \"samples\": [");
		for (j = 0; j < x->nsamples; j++) {
			fprintf(f, j ? ", " : "");
			jnum(f, x->samples[j]);
		}
		fprintf(f, "]");
		if (!x->tc->job) {
			fprintf(f, ", \"samples_%s\": [", ri->rate_run ? "wall" : "run");
			for (j = 0; j < x->nsamples; j++) {
				fprintf(f, j ? ", " : "");
				jnum(f, x->samples_alt[j]);
			}
			fprintf(f, "]");
		}
		fprintf(f, "}");
		if (!strcmp(x->target, "uvfs")) {
			fprintf(f, ",\n     \"uvfs_over_baseline\": ");
			jnum(f, pair_ratio(u, b));
			fprintf(f, ", \"uvfs_over_host\": ");
			jnum(f, pair_ratio(u, h));
		}
		if (!strcmp(x->target, "uvfs-fuse")) {
			fprintf(f, ",\n     \"fuse_over_host\": ");
			jnum(f, pair_ratio(x, h));
		}
		fprintf(f, "}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	fclose(f);
	return 0;
}

/* ---- SVG ---- */
static const char *target_names[] = { "uvfs", "uvfs-baseline", "host", "uvfs-fuse" };
static const char *target_colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd" };

static FILE *svg_open(const char *path, int w, int h)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return NULL;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h);
	return f;
}

static void fmt_ops(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%gG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%gM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%gk", v / 1e3);
	else
		snprintf(buf, len, "%g", v);
}

/* ops/s against workers, log scale, one line per target and mode. */
static int svg_scaling(const char *path, const struct run_info *ri, const struct testcase *tc,
		       struct result *r, int n, const int *ws, int nw)
{
	const int W = 740, H = 440, L = 80, R = 210, T = 40, B = 50;
	double lo = INFINITY, hi = 0, ylo, yhi;
	int i, m, t, j, nt = has_fuse(r, n) ? 4 : 3;
	FILE *f;

	for (i = 0; i < n; i++)
		if (r[i].tc == tc && ok(&r[i]) && r[i].median > 0) {
			if (r[i].min > 0 && r[i].min < lo)
				lo = r[i].min;
			if (r[i].median < lo)
				lo = r[i].median;
			if (r[i].max > hi)
				hi = r[i].max;
		}
	if (!(hi > 0))
		return -1;
	ylo = floor(log10(lo));
	yhi = ceil(log10(hi));
	if (yhi <= ylo)
		yhi = ylo + 1;
	f = svg_open(path, W, H);
	if (!f)
		return -1;
#define X(w) (nw > 1 ? L + 30 + (double)((w) - ws[0]) / (ws[nw - 1] - ws[0]) * (W - L - R - 60) \
		     : L + (W - L - R) / 2.0)
#define Y(v) (T + (yhi - log10(v)) / (yhi - ylo) * (H - T - B))
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s: %s</text>\n",
		L, tc->name, tc->description);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
		L + (W - L - R) / 2, H - 12, tc->job ? tc->param_name : "workers");
	fprintf(f, "<text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">"
		"ops/s (log scale)</text>\n", T + (H - T - B) / 2);
	/* grid: decades and 2x, 5x */
	for (i = (int)ylo; i <= (int)yhi; i++) {
		static const int mult[] = { 1, 2, 5 };
		for (j = 0; j < 3; j++) {
			double v = mult[j] * pow(10, i);
			char lab[32];

			if (log10(v) > yhi + 1e-9)
				break;
			fmt_ops(lab, sizeof(lab), v);
			fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				L, W - R, Y(v), Y(v), j ? "#eee" : "#ccc");
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s"
				"</text>\n", L - 6, Y(v) + 4, lab);
		}
	}
	for (j = 0; j < nw; j++) {
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#eee\"/>\n",
			X(ws[j]), X(ws[j]), T, H - B);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", X(ws[j]),
			H - B + 16, ws[j]);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#888\"/>\n", L, T, W - L - R, H - T - B);
	for (t = 0; t < nt; t++)
		for (m = 0; m < 2; m++) {
			int any = 0;

			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
				target_colors[t], m ? " stroke-dasharray=\"6,4\"" : "");
			for (j = 0; j < nw; j++) {
				struct result *x = find(r, n, tc, modes[m], ws[j], target_names[t]);

				if (ok(x) && x->median > 0) {
					fprintf(f, "%.1f,%.1f ", X(ws[j]), Y(x->median));
					any = 1;
				}
			}
			fprintf(f, "\"/>\n");
			for (j = 0; j < nw; j++) {
				struct result *x = find(r, n, tc, modes[m], ws[j], target_names[t]);

				if (!ok(x) || x->median <= 0)
					continue;
				/* spread of the samples, then the median */
				if (x->min > 0)
					fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
						"stroke=\"%s\"/>\n", X(ws[j]) + (m ? 4 : -4),
						X(ws[j]) + (m ? 4 : -4), Y(x->min), Y(x->max),
						target_colors[t]);
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">"
					"<title>%s %s %d: %.0f ops/s</title></circle>\n", X(ws[j]),
					Y(x->median), m ? "white" : target_colors[t], target_names[t],
					modes[m], ws[j], x->median);
				if (m)
					fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" "
						"stroke=\"%s\" stroke-width=\"2\"/>\n", X(ws[j]),
						Y(x->median), target_colors[t]);
			}
			if (!any)
				continue;
		}
	/* legend */
	for (t = 0, i = 0; t < nt; t++)
		for (m = 0; m < 2; m++, i++) {
			int y = T + 10 + i * 20;

			fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
				"stroke-width=\"2\"%s/>\n", W - R + 12, W - R + 42, y, y, target_colors[t],
				m ? " stroke-dasharray=\"6,4\"" : "");
			fprintf(f, "<text x=\"%d\" y=\"%d\">%s, %s</text>\n", W - R + 48, y + 4,
				target_names[t], modes[m]);
		}
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\" font-size=\"10\">seed %llu, %s</text>\n",
		W - R + 12, T + 10 + 2 * nt * 20 + 10, ri->seed, ri->date);
	if (tc->seed)
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\" font-size=\"10\">reproduces seed %s"
			"</text>\n", W - R + 12, T + 10 + (2 * nt + 1) * 20 + 10, tc->seed);
#undef X
#undef Y
	fprintf(f, "</svg>\n");
	fclose(f);
	return 0;
}

/* Bars of <num>/<against> (num: uvfs or uvfs-fuse) per testcase (seeds only if seeds_only), threads
 * and processes, at the smallest worker count; a line at 1.0 and, for the
 * baseline chart, a tick at the gain the seed measured in the kernel. */
static int svg_ratio(const char *path, const struct run_info *ri, struct result *r, int n,
		     const char *num, const char *against, int seeds_only, int w1)
{
	const struct testcase **tcs = calloc(n + 1, sizeof(*tcs));
	const struct testcase *sel[64];
	int ntc = testcases_of(r, n, tcs), ns = 0, i, m;
	const int H = 420, L = 70, R = 170, T = 46, B = 80;
	int W = 760;
	double hi = 1.2, v[64][2];
	FILE *f;

	for (i = 0; i < ntc && ns < 64; i++) {
		if (seeds_only && !tcs[i]->seed)
			continue;
		for (m = 0; m < 2; m++) {
			v[ns][m] = pair_ratio(find(r, n, tcs[i], modes[m], w1, num),
					 find(r, n, tcs[i], modes[m], w1, against));
			if (!isnan(v[ns][m]) && v[ns][m] > hi)
				hi = v[ns][m];
		}
		sel[ns++] = tcs[i];
	}
	free(tcs);
	for (i = 0, m = 0; i < ns; i++)
		m += !isnan(v[i][0]) || !isnan(v[i][1]);
	if (!m)
		return -1;
	hi *= 1.1;
	if (W < L + R + ns * 84)
		W = L + R + ns * 84;
	f = svg_open(path, W, H);
	if (!f)
		return -1;
#define Y(x) (T + (1 - (x) / hi) * (H - T - B))
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s / %s, "
		"%d worker%s%s</text>\n", L, num, against, w1, w1 > 1 ? "s" : "",
		seeds_only ? ", per seed testcase" : "");
	{
		double step = hi > 20 ? 5 : hi > 8 ? 2 : hi > 3 ? 0.5 : hi > 1.6 ? 0.2 : 0.1, y;

		for (y = 0; y <= hi + 1e-9; y += step) {
			fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
				L, W - R, Y(y), Y(y));
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%.1f"
				"</text>\n", L - 6, Y(y) + 4, y);
		}
	}
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
		"stroke-dasharray=\"4,3\"/>\n", L, W - R, Y(1.0), Y(1.0));
	for (i = 0; i < ns; i++) {
		double slot = (double)(W - L - R) / ns, x0 = L + i * slot + slot * 0.15;
		double bw = slot * 0.7 / 2, gain = 0;
		const char *what = seed_what(sel[i]->seed, &gain);

		for (m = 0; m < 2; m++) {
			double x = x0 + m * bw;

			if (isnan(v[i][m])) {
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
					"fill=\"#999\">n/a</text>\n", x + bw / 2, Y(0) - 4);
				continue;
			}
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\"><title>%s %s: %.3f</title></rect>\n", x, Y(v[i][m]),
				bw - 2, Y(0) - Y(v[i][m]), m ? "#9ecae1" : "#1f77b4", sel[i]->name,
				modes[m], v[i][m]);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
				"font-size=\"9\">%.*f</text>\n", x + bw / 2 - 1, Y(v[i][m]) - 3,
				v[i][m] >= 10 ? 1 : 2, v[i][m]);
		}
		if (!strcmp(against, "uvfs-baseline") && what)
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#d62728\" stroke-width=\"3\"><title>%s</title></line>\n",
				x0 - 3, x0 + 2 * bw + 1, Y(gain), Y(gain), what);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x0 + bw, H - B + 16, sel[i]->name);
		if (sel[i]->seed)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">"
				"seed %s</text>\n", x0 + bw, H - B + 30, sel[i]->seed);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#1f77b4\"/>"
		"<text x=\"%d\" y=\"%d\">threads</text>\n", W - R + 12, T + 4, W - R + 30, T + 14);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#9ecae1\"/>"
		"<text x=\"%d\" y=\"%d\">processes</text>\n", W - R + 12, T + 24, W - R + 30, T + 34);
	if (!strcmp(against, "uvfs-baseline"))
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#d62728\" "
			"stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">the seed's kernel gain</text>\n",
			W - R + 12, W - R + 24, T + 50, T + 50, W - R + 30, T + 54);
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\" font-size=\"10\">seed %llu, %s</text>\n",
		L, H - 12, ri->seed, ri->date);
#undef Y
	fprintf(f, "</svg>\n");
	fclose(f);
	return 0;
}

int report_svg(const char *dir, const struct run_info *ri, struct result *r, int n,
	       char files[][PATH_MAX], int maxfiles)
{
	const struct testcase **tcs = calloc(n + 1, sizeof(*tcs));
	int *ws = calloc(n + 1, sizeof(*ws));
	int ntc = testcases_of(r, n, tcs), nw = workers_of(r, n, ws), i, k = 0;

	for (i = 0; i < ntc && k < maxfiles; i++) {
		struct result *sub = calloc(n, sizeof(*sub));
		int *tws = calloc(n + 1, sizeof(*tws)), ns = 0, ntw, j;

		for (j = 0; j < n; j++)
			if (r[j].tc == tcs[i])
				sub[ns++] = r[j];
		ntw = workers_of(sub, ns, tws);
		snprintf(files[k], PATH_MAX, "%s/%s.svg", dir, tcs[i]->name);
		if (svg_scaling(files[k], ri, tcs[i], sub, ns, tws, ntw) == 0)
			k++;
		free(sub);
		free(tws);
	}
	if (nw && k < maxfiles) {
		snprintf(files[k], PATH_MAX, "%s/ratio-baseline.svg", dir);
		if (svg_ratio(files[k], ri, r, n, "uvfs", "uvfs-baseline", 1, ws[0]) == 0)
			k++;
	}
	if (nw && k < maxfiles) {
		snprintf(files[k], PATH_MAX, "%s/ratio-host.svg", dir);
		if (svg_ratio(files[k], ri, r, n, "uvfs", "host", 0, ws[0]) == 0)
			k++;
	}
	if (nw && k < maxfiles && has_fuse(r, n)) {
		snprintf(files[k], PATH_MAX, "%s/ratio-fuse-host.svg", dir);
		if (svg_ratio(files[k], ri, r, n, "uvfs-fuse", "host", 0, ws[0]) == 0)
			k++;
	}
	free(tcs);
	free(ws);
	return k;
}
