/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events.c - inotify events read and recorded for comparison (events.h).
 */
#include <sys/inotify.h>
#include "conf.h"
#include "events.h"

const char *mask_str(uint32_t m)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ IN_ACCESS, "ACCESS" }, { IN_MODIFY, "MODIFY" }, { IN_ATTRIB, "ATTRIB" },
		{ IN_CLOSE_WRITE, "CLOSE_WRITE" }, { IN_CLOSE_NOWRITE, "CLOSE_NOWRITE" },
		{ IN_OPEN, "OPEN" }, { IN_MOVED_FROM, "MOVED_FROM" }, { IN_MOVED_TO, "MOVED_TO" },
		{ IN_CREATE, "CREATE" }, { IN_DELETE, "DELETE" }, { IN_DELETE_SELF, "DELETE_SELF" },
		{ IN_MOVE_SELF, "MOVE_SELF" }, { IN_UNMOUNT, "UNMOUNT" }, { IN_Q_OVERFLOW, "Q_OVERFLOW" },
		{ IN_IGNORED, "IGNORED" }, { IN_ISDIR, "ISDIR" },
	};
	static char buf[4][160];
	static int k;
	char *b = buf[k++ & 3];
	b[0] = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (m & names[i].bit) {
			if (b[0])
				strcat(b, "|");
			strcat(b, names[i].name);
			m &= ~names[i].bit;
		}
	}
	if (m)
		sprintf(b + strlen(b), "%s0x%x", b[0] ? "|" : "", m);
	return b;
}

struct ev evs[MAXEV];
int nev;
static unsigned char rbuf[65536];

/* Appends the events in rbuf[0, n) to evs.  A record that does not fit in
 * what was read ends the parse: inotify returns whole events only, so that is
 * another kind of fd. */
static void parse(ssize_t n)
{
	for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
		struct inotify_event *e = (struct inotify_event *)(rbuf + off);
		if (e->len > n - off - sizeof(*e))
			return;
		if (nev < MAXEV) {
			struct ev *v = &evs[nev];
			v->wd = e->wd;
			v->mask = e->mask;
			v->cookie = e->cookie;
			v->len = e->len;
			snprintf(v->name, sizeof v->name, "%.*s", (int)e->len, e->len ? e->name : "");
		}
		nev++;
		off += (ssize_t)sizeof(*e) + e->len;
	}
}

int drain(int ifd)
{
	int reads = 0;
	nev = 0;
	for (;;) {
		ssize_t n = read(ifd, rbuf, sizeof rbuf);
		if (n < 0)
			return n == -EAGAIN ? nev : (nev ? nev : (int)n);
		if (n == 0)
			return nev;
		parse(n);
		/* not an inotify fd (the fuzzer aims this at any fd): a file
		 * never ends with EAGAIN, so stop it at a bound */
		if (++reads == 256)
			return nev;
	}
}

const char *ev_str(const struct ev *v, uint32_t *cookies, int *ncookies)
{
	char ck[16] = "0";
	if (v->cookie) {
		int i;
		for (i = 0; i < *ncookies && cookies[i] != v->cookie; i++)
			;
		if (i == *ncookies && *ncookies < 64)
			cookies[(*ncookies)++] = v->cookie;
		snprintf(ck, sizeof ck, "c%d", i + 1);
	}
	return fmt("wd%d %s '%s' len%u cookie %s", v->wd, mask_str(v->mask), v->name, v->len, ck);
}

void ev_check(int ifd, const char *where)
{
	int n = drain(ifd);
	chk(fmt("events %s", where), n);
	uint32_t cookies[64];
	int nc = 0;
	for (int i = 0; i < n && i < MAXEV; i++)
		chk_str(fmt("event %s #%d", where, i), ev_str(&evs[i], cookies, &nc));
}

void ev_read_check(int fd, size_t len, int max, const char *where)
{
	ssize_t n = read(fd, rbuf, len < sizeof rbuf ? len : sizeof rbuf);
	chk(fmt("read events %s", where), n);
	nev = 0;
	if (n <= 0)
		return;
	parse(n);
	uint32_t cookies[64];
	int nc = 0;
	for (int i = 0; i < nev && i < max && i < MAXEV; i++)
		chk_str(fmt("event %s #%d", where, i), ev_str(&evs[i], cookies, &nc));
}
