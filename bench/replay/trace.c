/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.c - reading a replay file.  Strict: anything that is not exactly the
 * format (bench/replay/FORMAT.md) is rejected with its line and what was
 * expected there, and a file cut short anywhere (no `end` line, fewer calls
 * than `calls N` announced, a last line without its newline) is reported as
 * truncated, so a broken trace never replays as a shorter one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static const char *const names[R_NOPS] = {
	[R_OPEN] = "open", [R_STAT] = "stat", [R_FSTAT] = "fstat", [R_STATX] = "statx",
	[R_ACCESS] = "access", [R_READLINK] = "readlink", [R_GETDENTS] = "getdents",
	[R_CLOSE] = "close", [R_READ] = "read", [R_PREAD] = "pread", [R_LSEEK] = "lseek",
	[R_CHDIR] = "chdir", [R_FCHDIR] = "fchdir", [R_GETCWD] = "getcwd", [R_EXEC] = "exec",
};

#define MAX_SLOTS (1 << 22)

const char *rop_name(int op)
{
	return op >= 0 && op < R_NOPS ? names[op] : "?";
}

unsigned long long hash_str(const char *s, size_t n)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/* One line being read; on an error, what was expected where. */
struct cur {
	char *p;
	const char *want;
};

static int fail(struct cur *c, const char *want)
{
	c->want = want;
	return -1;
}

static int at_end(struct cur *c)
{
	return !*c->p;
}

/* The next token and the single space after it (none at the end). */
static char *word(struct cur *c)
{
	char *s = c->p, *e;

	if (!*s || *s == ' ')
		return NULL;
	e = strchr(s, ' ');
	if (e) {
		*e = 0;
		c->p = e + 1;
		if (!*c->p)        /* a trailing space */
			return NULL;
	} else {
		c->p = s + strlen(s);
	}
	return s;
}

static int integer(struct cur *c, long long *v, const char *want)
{
	char *w = word(c), *end;

	if (!w)
		return fail(c, want);
	errno = 0;
	*v = strtoll(w, &end, 0);
	if (*end || errno || end == w)
		return fail(c, want);
	return 0;
}

static int slot(struct cur *c, int *v, int dash_ok, const char *want)
{
	long long x;
	char *save = c->p;

	if (dash_ok && c->p[0] == '-' && (c->p[1] == ' ' || !c->p[1])) {
		word(c);
		*v = -1;
		return 0;
	}
	c->p = save;
	if (integer(c, &x, want) < 0 || x < 0 || x >= MAX_SLOTS)
		return fail(c, want);
	*v = x;
	return 0;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "..." with \xHH escapes, decoded in place; *len gets its length. */
static int string(struct cur *c, char **out, size_t *len, const char *want)
{
	char *s = c->p, *d;

	if (*s != '"')
		return fail(c, want);
	*out = d = ++s;
	for (;;) {
		if (!*s)
			return fail(c, want);
		if (*s == '"')
			break;
		if (*s == '\\') {
			int h, l;

			if (s[1] != 'x' || (h = hexval(s[2])) < 0 || (l = hexval(s[3])) < 0 ||
			    (h << 4 | l) == 0)
				return fail(c, want);
			*d++ = h << 4 | l;
			s += 4;
			continue;
		}
		*d++ = *s++;
	}
	*d = 0;
	if (len)
		*len = d - *out;
	s++;
	if (*s == ' ')
		s++;
	else if (*s)
		return fail(c, want);
	c->p = s;
	return 0;
}

static int errno_of(const char *name)
{
	int e;

	for (e = 1; e < 256; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return 0;
}

/* "= R": a number, or -ENAME */
static int result(struct cur *c, long long *v)
{
	char *w = word(c), *end;

	if (!w || strcmp(w, "="))
		return fail(c, "'=' and the recorded result");
	w = word(c);
	if (!w)
		return fail(c, "the recorded result (a number or -ENAME)");
	if (w[0] == '-' && w[1] == 'E') {
		int e = errno_of(w + 1);

		if (!e)
			return fail(c, "an errno name after '-' (as -ENOENT)");
		*v = -e;
		return 0;
	}
	errno = 0;
	*v = strtoll(w, &end, 10);
	if (*end || errno || end == w)
		return fail(c, "the recorded result (a number or -ENAME)");
	return 0;
}

/* "MODE SIZE" after a stat that succeeded: st_mode in octal (no leading 0) */
static int stat_fields(struct cur *c, struct rcall *k)
{
	long long size;
	char *w, *end;

	if (k->rec.ret != 0)
		return 0;
	w = word(c);
	if (!w)
		return fail(c, "the recorded st_mode (octal)");
	errno = 0;
	k->rec.mode = strtoul(w, &end, 8);
	if (*end || errno || end == w)
		return fail(c, "the recorded st_mode (octal)");
	if (integer(c, &size, "the recorded st_size") < 0)
		return -1;
	k->rec.size = size;
	return 0;
}

static int body(struct cur *c, struct rcall *k)
{
	size_t n;

	if (k->rec.ret < 0)
		return 0;
	if (string(c, &k->body, &n, "the recorded string in quotes") < 0)
		return -1;
	k->rec.hash = hash_str(k->body, n);
	if (k->op == R_READLINK && (long long)n != k->rec.ret)
		return fail(c, "a readlink body as long as the recorded result");
	return 0;
}

static int op_of(const char *w)
{
	int i;

	for (i = 0; i < R_NOPS; i++)
		if (!strcmp(w, names[i]))
			return i;
	return -1;
}

/* "LINE OP ARGS... = R [EXTRA]" */
static int call_line(struct cur *c, struct rcall *k)
{
	long long line, x;
	size_t n;
	char *w;

	memset(k, 0, sizeof(*k));
	k->slot = k->dir = -1;
	if (integer(c, &line, "a call: its strace line number, the call's name, its arguments") < 0 ||
	    line < 1)
		return fail(c, "a call: its strace line number, the call's name, its arguments");
	k->line = line;
	w = word(c);
	if (!w || (k->op = op_of(w), op_of(w) < 0))
		return fail(c, "a call name (open stat fstat statx access readlink getdents close "
			    "read pread lseek chdir fchdir getcwd exec)");
	switch (k->op) {
	case R_OPEN:
		if (slot(c, &k->slot, 1, "open's slot (a number, or - if it failed)") < 0 ||
		    slot(c, &k->dir, 1, "open's directory slot (or - for AT_FDCWD)") < 0 ||
		    string(c, &k->path, NULL, "open's path in quotes") < 0 ||
		    integer(c, &x, "open's flags") < 0 || result(c, &k->rec.ret) < 0)
			return -1;
		k->flags = x;
		if ((k->slot >= 0) != (k->rec.ret >= 0))
			return fail(c, "a slot exactly when the open succeeded");
		if (k->flags & (03 | 0100 | 01000 | 02000))
			return fail(c, "read-only open flags (no O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, "
				    "O_APPEND)");
		break;
	case R_STAT:
	case R_STATX:
		if (slot(c, &k->dir, 1, "the directory slot (or - for AT_FDCWD)") < 0 ||
		    string(c, &k->path, NULL, "the path in quotes") < 0 ||
		    integer(c, &x, "the flags") < 0)
			return -1;
		k->flags = x;
		if (k->op == R_STATX) {
			if (integer(c, &x, "statx's mask") < 0)
				return -1;
			k->mask = x;
		}
		if (result(c, &k->rec.ret) < 0 || stat_fields(c, k) < 0)
			return -1;
		break;
	case R_FSTAT:
		if (slot(c, &k->slot, 0, "fstat's slot") < 0 || result(c, &k->rec.ret) < 0 ||
		    stat_fields(c, k) < 0)
			return -1;
		break;
	case R_ACCESS:
		if (slot(c, &k->dir, 1, "the directory slot (or - for AT_FDCWD)") < 0 ||
		    string(c, &k->path, NULL, "the path in quotes") < 0 ||
		    integer(c, &k->a, "access's mode") < 0 || integer(c, &x, "access's flags") < 0 ||
		    result(c, &k->rec.ret) < 0)
			return -1;
		k->flags = x;
		break;
	case R_READLINK:
		if (slot(c, &k->dir, 1, "the directory slot (or - for AT_FDCWD)") < 0 ||
		    string(c, &k->path, NULL, "the path in quotes") < 0 ||
		    integer(c, &k->a, "readlink's buffer size") < 0 || k->a < 0 || k->a > 65536 ||
		    result(c, &k->rec.ret) < 0 || body(c, k) < 0)
			return fail(c, c->want ? c->want : "readlink's buffer size (0 to 65536)");
		break;
	case R_GETDENTS:
	case R_CLOSE:
	case R_FCHDIR:
		if (slot(c, &k->slot, 0, "the slot") < 0 || result(c, &k->rec.ret) < 0)
			return -1;
		break;
	case R_READ:
	case R_PREAD:
		if (slot(c, &k->slot, 0, "the slot") < 0 ||
		    integer(c, &k->a, "the byte count") < 0 || k->a < 0 || k->a > (1 << 26) ||
		    (k->op == R_PREAD && integer(c, &k->b, "pread's offset") < 0) ||
		    result(c, &k->rec.ret) < 0)
			return fail(c, c->want ? c->want : "a byte count up to 64 MiB");
		break;
	case R_LSEEK:
		if (slot(c, &k->slot, 0, "the slot") < 0 || integer(c, &k->a, "lseek's offset") < 0 ||
		    integer(c, &k->b, "lseek's whence") < 0 || result(c, &k->rec.ret) < 0)
			return -1;
		break;
	case R_CHDIR:
		if (string(c, &k->path, NULL, "chdir's path in quotes") < 0 ||
		    result(c, &k->rec.ret) < 0)
			return -1;
		break;
	case R_GETCWD:
		if (integer(c, &k->a, "getcwd's buffer size") < 0 || k->a < 0 || k->a > 65536 ||
		    result(c, &k->rec.ret) < 0 || body(c, k) < 0)
			return fail(c, c->want ? c->want : "getcwd's buffer size (0 to 65536)");
		break;
	case R_EXEC:
		if (string(c, &k->path, &n, "exec's path in quotes") < 0)
			return -1;
		break;
	}
	if (!at_end(c))
		return fail(c, "the end of the line");
	if (k->op == R_OPEN && k->rec.ret >= 0)
		k->rec.ret = 0;      /* any fd: compared as success */
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->m);
	free(t->c);
	free(t->skips);
	free(t->text);   /* every string points into it */
	memset(t, 0, sizeof(*t));
}

#define GROW(v, n, cap) do {                                                     \
	if ((n) == (cap)) {                                                      \
		void *nv_ = realloc((v), ((cap) = (cap) ? (cap) * 2 : 64) * sizeof(*(v))); \
		if (!nv_)                                                        \
			goto nomem;                                              \
		(v) = nv_;                                                       \
	}                                                                        \
} while (0)

int trace_load(const char *file, struct trace *t, char *err, size_t errlen)
{
	FILE *f = fopen(file, "r");
	char *text = NULL, *line, *next, *cwd = NULL;
	size_t len = 0, cap = 0, mcap = 0, ccap = 0, scap = 0;
	long long ncalls = -1;
	int lineno = 0, ended = 0, i;
	struct cur c;
	char buf[65536];
	size_t n;

	memset(t, 0, sizeof(*t));
	t->file = file;
	if (!f) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (len + n + 1 > cap) {
			char *nt = realloc(text, cap = (len + n + 1) * 2);

			if (!nt) {
				fclose(f);
				free(text);
				snprintf(err, errlen, "%s: out of memory", file);
				return -1;
			}
			text = nt;
		}
		memcpy(text + len, buf, n);
		len += n;
	}
	fclose(f);
	if (!text) {
		snprintf(err, errlen, "%s:1: expected 'uvfs-replay 1', found an empty file", file);
		return -1;
	}
	text[len] = 0;
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: expected text, found a NUL byte", file);
		free(text);
		return -1;
	}
	t->text = text;

	for (line = text; *line; line = next) {
		char *nl = strchr(line, '\n');

		lineno++;
		if (!nl) {
			snprintf(err, errlen, "%s:%d: expected a complete line, found one without its "
				 "newline (truncated trace?)", file, lineno);
			goto bad;
		}
		*nl = 0;
		next = nl + 1;
		c.p = line;
		c.want = NULL;
		if (lineno == 1) {
			if (strcmp(line, "uvfs-replay 1")) {
				snprintf(err, errlen, "%s:1: expected 'uvfs-replay 1' (a replay file of "
					 "format 1)", file);
				goto bad;
			}
			continue;
		}
		if (ended) {
			snprintf(err, errlen, "%s:%d: expected the end of the file after 'end'", file,
				 lineno);
			goto bad;
		}
		if (ncalls >= 0) {
			if (!strcmp(line, "end")) {
				if (t->nc < ncalls) {
					snprintf(err, errlen, "%s:%d: expected call %d of the %lld announced, "
						 "found 'end'", file, lineno, t->nc + 1, ncalls);
					goto bad;
				}
				ended = 1;
				continue;
			}
			if (t->nc == ncalls) {
				snprintf(err, errlen, "%s:%d: expected 'end' after the %lld calls announced",
					 file, lineno, ncalls);
				goto bad;
			}
			GROW(t->c, t->nc, ccap);
			if (call_line(&c, &t->c[t->nc]) < 0) {
				snprintf(err, errlen, "%s:%d: expected %s", file, lineno, c.want);
				goto bad;
			}
			t->c[t->nc].fline = lineno;
			t->nc++;
			continue;
		}
		if (line[0] == '#')
			continue;
		if (!strncmp(line, "cwd ", 4)) {
			c.p = line + 4;
			if (string(&c, &cwd, NULL, "cwd's path in quotes") < 0 || !at_end(&c) ||
			    cwd[0] != '/') {
				snprintf(err, errlen, "%s:%d: expected an absolute path in quotes after cwd",
					 file, lineno);
				goto bad;
			}
		} else if (!strncmp(line, "skip ", 5)) {
			long long v;
			char *w;

			c.p = line + 5;
			w = word(&c);
			if (!w || integer(&c, &v, "") < 0 || v < 0 || !at_end(&c)) {
				snprintf(err, errlen, "%s:%d: expected 'skip REASON COUNT'", file, lineno);
				goto bad;
			}
			GROW(t->skips, t->nskips, scap);
			t->skips[t->nskips].why = w;
			t->skips[t->nskips++].n = v;
			t->skipped += v;
		} else if ((line[0] == 'd' || line[0] == 'f' || line[0] == 'l') && line[1] == ' ') {
			struct mentry *m;
			long long v;

			GROW(t->m, t->nm, mcap);
			m = &t->m[t->nm];
			memset(m, 0, sizeof(*m));
			m->type = line[0];
			c.p = line + 2;
			if (m->type != 'l') {
				char *w = word(&c), *end;

				m->mode = w ? strtoul(w, &end, 8) : 0;
				if (!w || *end || m->mode > 07777) {
					snprintf(err, errlen, "%s:%d: expected a mode in octal after '%c'",
						 file, lineno, m->type);
					goto bad;
				}
			}
			if (m->type == 'f' && (integer(&c, &v, "") < 0 || v < 0)) {
				snprintf(err, errlen, "%s:%d: expected a file size after the mode", file,
					 lineno);
				goto bad;
			}
			m->size = m->type == 'f' ? v : 0;
			if (string(&c, &m->path, NULL, "") < 0 || m->path[0] != '/' ||
			    (m->type == 'l' && string(&c, &m->body, NULL, "") < 0) || !at_end(&c)) {
				snprintf(err, errlen, "%s:%d: expected %s", file, lineno,
					 m->type == 'l' ? "an absolute path and the symlink's body, in quotes" :
					 "an absolute path in quotes at the end of the line");
				goto bad;
			}
			t->nm++;
		} else if (!strncmp(line, "calls ", 6)) {
			c.p = line + 6;
			if (integer(&c, &ncalls, "") < 0 || ncalls < 0 || ncalls > 100000000 ||
			    !at_end(&c)) {
				snprintf(err, errlen, "%s:%d: expected 'calls N' (the number of calls)",
					 file, lineno);
				goto bad;
			}
			if (!cwd) {
				snprintf(err, errlen, "%s:%d: expected a 'cwd' line before 'calls'", file,
					 lineno);
				goto bad;
			}
		} else {
			snprintf(err, errlen, "%s:%d: expected cwd, skip, d, f, l, calls or a # comment",
				 file, lineno);
			goto bad;
		}
	}
	if (lineno == 0 || ncalls < 0) {
		snprintf(err, errlen, "%s:%d: expected %s, found the end of the file (truncated trace?)",
			 file, lineno + 1, lineno ? "'calls N' and the calls" : "'uvfs-replay 1'");
		goto bad;
	}
	if (!ended) {
		if (t->nc < ncalls)
			snprintf(err, errlen, "%s:%d: expected call %d of the %lld announced, found the "
				 "end of the file (truncated trace?)", file, lineno + 1, t->nc + 1, ncalls);
		else
			snprintf(err, errlen, "%s:%d: expected 'end', found the end of the file "
				 "(truncated trace?)", file, lineno + 1);
		goto bad;
	}
	for (i = 0; i < t->nc; i++) {
		struct rcall *k = &t->c[i];

		if (k->slot >= t->nslots)
			t->nslots = k->slot + 1;
		if (k->dir >= t->nslots)
			t->nslots = k->dir + 1;
		t->replayed += k->op != R_EXEC;
	}
	t->cwd = cwd;
	return 0;
nomem:
	snprintf(err, errlen, "%s:%d: out of memory", file, lineno);
bad:
	trace_free(t);
	return -1;
}
