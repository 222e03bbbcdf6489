/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * space_events.c - the inotify events of fallocate (and its times and
 * set-id bits along with them): IN_MODIFY for every successful call, a
 * punched hole and one beyond the end included, through the file's watch
 * and its directory's; IN_ATTRIB first when a caller that is not root
 * loses set-id bits; nothing for a failure.
 */
#include "conf.h"
#include "events.h"
#include <linux/falloc.h>
#include <sys/inotify.h>

#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define IINIT(f) B->inotify_init1(BX, f)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)
#define KEEP FALLOC_FL_KEEP_SIZE
#define PUNCH (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

static void fallocate_events(void)
{
	int in = F(IINIT(IN_NONBLOCK));
	C(mkfile("/f", "hello"));
	C(MKDIR("/d", 0777));
	C(mkfile("/d/g", "hello"));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	C(IADD(in, "/d", IN_ALL_EVENTS));
	int fd = F(OPEN("/f", O_RDWR));
	int gd = F(OPEN("/d/g", O_RDWR));
	EV(in);
	AGE("/f");
	C(fallocate(fd, 0, 0, 4096));
	TS("/f");
	EV(in);
	AGE("/f");
	C(fallocate(fd, 0, 0, 100));
	TS("/f");
	EV(in);
	AGE("/f");
	C(fallocate(fd, KEEP, 8192, 100));
	TS("/f");
	EV(in);
	AGE("/f");
	C(fallocate(fd, PUNCH, 0, 10));
	TS("/f");
	EV(in);
	AGE("/f");
	C(fallocate(fd, PUNCH, 100000, 10));
	TS("/f");
	EV(in);
	/* failures change nothing */
	AGE("/f");
	C(fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 10));
	C(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 10));
	C(fallocate(fd, 0, LLONG_MAX, 10));
	TS("/f");
	EV(in);
	/* through the parent's watch */
	AGE("/d/g");
	C(fallocate(gd, 0, 0, 10000));
	TS("/d/g");
	EV(in);
	/* a caller that is not root loses set-id bits */
	C(CHMOD("/f", 06777));
	C(CHMOD("/d/g", 02777));
	EV(in);
	C(setcred(1000, 1000));
	C(fallocate(fd, PUNCH, 0, 1));
	STAT("/f");
	C(fallocate(gd, 0, 0, 1));
	STAT("/d/g");
	EV(in);
	C(setcred(0, 0));
	C(CHMOD("/f", 06777));
	C(fallocate(fd, 0, 0, 1));
	STAT("/f");
	EV(in);
	cl(fd);
	cl(gd);
	cl(in);
}

const struct scenario space_events_scenarios[] = {
	{ "fallocate_events", fallocate_events },
	{ NULL, NULL },
};
