/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay/report.c - the replay's table, JSON and SVG, in the style of
 * bench/report.c: ns per call for each target, and the ratios as speed-ups
 * (uvfs/host = host ns per call / uvfs ns per call, so that > 1 means uvfs
 * is faster, as the testcases' ratios of ops/s); hfs/host is uvfs-hostfs's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "replay/replay.h"

static double ns(const struct replay_row *r, int j)
{
	return r->run[j] && r->run[j]->ran ? r->run[j]->ns : NAN;
}

static double ratio(const struct replay_row *r, int fast, int slow)
{
	double a = ns(r, fast), b = ns(r, slow);

	return a > 0 && b > 0 ? b / a : NAN;
}

static void cell(FILE *f, const struct replay_row *r, int j)
{
	const struct replay_run *x = r->run[j];

	if (!x)
		fprintf(f, " %16s", "-");
	else if (!x->ran)
		fprintf(f, " %16s", "FAIL");
	else
		fprintf(f, " %11.1f %3.0f%%", x->ns,
			x->ns > 0 ? 50 * (x->ns_q3 - x->ns_q1) / x->ns : 0);
}

static void rcell(FILE *f, double x)
{
	if (isnan(x))
		fprintf(f, " %10s", "-");
	else
		fprintf(f, " %9.2fx", x);
}

void replay_report_table(FILE *f, struct replay_row *rows, int n, double load0, double load1)
{
	int i, j;

	fprintf(f, "\nreplay of recorded programs (uvfs-bench replay; traces: bench/traces/)\n");
	fprintf(f, "ns/call: median over the timed replays of one trace's whole replay / its calls,\n"
		   "warm (after one replay that records the results); +-%%: half the interquartile range;\n"
		   "uvfs/host = host ns / uvfs ns, uvfs/base = uvfs-baseline ns / uvfs ns,\n"
		   "hfs/host = host ns / uvfs-hostfs ns (uvfs on hostfs of the host's mirror);\n"
		   "calls: replayed; skipped: recorded but not replayed (writes, /proc, ...);\n"
		   "diffs: calls whose result differs from the recorded one on some target");
	if (load0 >= 0)
		fprintf(f, "; load average %.1f at the start, %.1f at the end", load0, load1);
	fprintf(f, "\n\n%-14s %7s %7s", "trace", "calls", "skipped");
	for (j = 0; j < REPLAY_TARGETS; j++)
		fprintf(f, " %16s", replay_target_names[j]);
	fprintf(f, " %10s %10s %10s %6s\n", "uvfs/host", "uvfs/base", "hfs/host", "diffs");
	for (i = 0; i < n; i++) {
		struct replay_row *r = &rows[i];

		fprintf(f, "%-14s %7d %7ld", r->name, r->t.replayed, r->t.skipped);
		for (j = 0; j < REPLAY_TARGETS; j++)
			cell(f, r, j);
		rcell(f, ratio(r, 0, 2));
		rcell(f, ratio(r, 0, 1));
		rcell(f, ratio(r, 3, 2));
		fprintf(f, " %6ld\n", r->diffs);
	}
	fprintf(f, "\nnot replayed (record.py's reasons; writes-*: calls that could write):\n");
	for (i = 0; i < n; i++) {
		int k;

		fprintf(f, "  %-14s", rows[i].name);
		for (k = 0; k < rows[i].t.nskips; k++)
			fprintf(f, "%s%s %ld", k ? ", " : " ", rows[i].t.skips[k].why,
				rows[i].t.skips[k].n);
		fprintf(f, "%s\n", rows[i].t.nskips ? "" : " none");
	}
}

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
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

static void jnum(FILE *f, double x)
{
	if (isnan(x) || isinf(x))
		fprintf(f, "null");
	else
		fprintf(f, "%.6g", x);
}

int replay_report_json(const char *path, struct replay_row *rows, int n)
{
	FILE *f = fopen(path, "w");
	int i, j, k;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "{\n  \"replay\": [\n");
	for (i = 0; i < n; i++) {
		struct replay_row *r = &rows[i];

		fprintf(f, "    { \"trace\": ");
		jstr(f, r->name);
		fprintf(f, ", \"file\": ");
		jstr(f, r->t.file);
		fprintf(f, ", \"calls\": %d, \"skipped\": %ld, \"skips\": {", r->t.replayed,
			r->t.skipped);
		for (k = 0; k < r->t.nskips; k++) {
			fprintf(f, "%s", k ? ", " : "");
			jstr(f, r->t.skips[k].why);
			fprintf(f, ": %ld", r->t.skips[k].n);
		}
		fprintf(f, "},\n      \"differences\": %ld, \"uvfs/host\": ", r->diffs);
		jnum(f, ratio(r, 0, 2));
		fprintf(f, ", \"uvfs/baseline\": ");
		jnum(f, ratio(r, 0, 1));
		fprintf(f, ", \"uvfs-hostfs/host\": ");
		jnum(f, ratio(r, 3, 2));
		fprintf(f, ",\n      \"targets\": {");
		for (j = 0, k = 0; j < REPLAY_TARGETS; j++) {
			struct replay_run *x = r->run[j];

			if (!x)
				continue;
			fprintf(f, "%s\n        ", k++ ? "," : "");
			jstr(f, replay_target_names[j]);
			fprintf(f, ": { \"status\": \"%s\", \"ns_per_call\": ", x->ran ? "ok" : "FAIL");
			jnum(f, x->ran ? x->ns : NAN);
			fprintf(f, ", \"min\": ");
			jnum(f, x->ran ? x->ns_min : NAN);
			fprintf(f, ", \"max\": ");
			jnum(f, x->ran ? x->ns_max : NAN);
			fprintf(f, ", \"q1\": ");
			jnum(f, x->ran ? x->ns_q1 : NAN);
			fprintf(f, ", \"q3\": ");
			jnum(f, x->ran ? x->ns_q3 : NAN);
			fprintf(f, ", \"replays\": %d, \"differences\": %ld, \"message\": ", x->reps,
				x->diffs);
			jstr(f, x->msg);
			fprintf(f, " }");
		}
		fprintf(f, " } }%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) ? -1 : 0;
}

/* Bars of uvfs/host and uvfs/baseline per trace, on a log scale. */
int replay_report_svg(const char *path, struct replay_row *rows, int n)
{
	static const char *const color[2] = { "#1f77b4", "#ff7f0e" };
	static const char *const label[2] = { "uvfs/host", "uvfs/baseline" };
	const int left = 130, top = 40, bar = 14, group = 2 * bar + 12, width = 480;
	double hi = 10, x;
	int i, s, h = top + n * group + 40;
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (s = 0; s < 2; s++) {
			x = ratio(&rows[i], 0, s ? 1 : 2);
			if (!isnan(x) && x > hi)
				hi = x;
		}
	hi = pow(10, ceil(log10(hi)));
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"11\">\n", left + width + 40, h);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"13\">replay of recorded programs: speed-up "
		   "of uvfs (log scale; 1x = as fast)</text>\n", left);
	for (x = 0.1; x <= hi * 1.001; x *= 10) {
		double px = left + width * (log10(x) + 1) / (log10(hi) + 1);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>\n", px,
			top - 5, px, h - 35);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%gx</text>\n", px, h - 22, x);
	}
	for (i = 0; i < n; i++) {
		int y = top + i * group;

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + bar + 4);
		fprintf(f, "%s</text>\n", rows[i].name);
		for (s = 0; s < 2; s++) {
			double w;

			x = ratio(&rows[i], 0, s ? 1 : 2);
			if (isnan(x) || x <= 0)
				continue;
			w = width * (log10(x) + 1) / (log10(hi) + 1);
			if (w < 1)
				w = 1;
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				left, y + s * bar, w, bar - 2, color[s]);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.2fx</text>\n", left + w + 4,
				y + s * bar + bar - 4, x);
		}
	}
	for (s = 0; s < 2; s++)
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\">%s</text>\n", left + s * 120, h - 12, color[s],
			left + s * 120 + 14, h - 3, label[s]);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}
