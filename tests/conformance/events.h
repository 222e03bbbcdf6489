/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events.h - reading and recording inotify events (inotify.c, tests/fuzz).
 *
 * EV(fd) drains fd and records how many events were queued, then each one as
 * "wd MASK 'name' len cookie".  Cookies are never compared raw: each is
 * recorded as 0 or as "c<n>", n counting distinct non-zero cookies in order
 * of appearance, so a MOVED_FROM/MOVED_TO pair shows the same tag.
 */
#ifndef CONF_EVENTS_H
#define CONF_EVENTS_H

#include <stdint.h>

#define MAXEV 20000
struct ev {
	int wd;
	uint32_t mask, cookie, len;
	char name[64];
};
/* What the last drain() read. */
extern struct ev evs[MAXEV];
extern int nev;

const char *mask_str(uint32_t m);
/* Reads every queued event; returns the number, or -errno of the first read
 * when it is not EAGAIN. */
int drain(int ifd);
const char *ev_str(const struct ev *v, uint32_t *cookies, int *ncookies);
/* Drain ifd and record the count, then every event. */
void ev_check(int ifd, const char *where);
/* One read(fd, len) recorded as its value, then the first max events it
 * returned (fd may be any fd: what is not whole events is not parsed). */
void ev_read_check(int fd, size_t len, int max, const char *where);

#define EV(ifd) ev_check(ifd, #ifd " @" __FILE__ ":" XSTR(__LINE__))
#define XSTR(x) STR(x)
#define STR(x) #x

#endif
