/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * epoll.c - epoll scenarios: instances, epoll_ctl's errors and their order,
 * level- and edge-triggered and one-shot reports on pipes, FIFOs and inotify
 * fds, EPOLLHUP/EPOLLERR, watches that go with their file (not their fd),
 * nested instances and the loop check.
 *
 * Only waits that end at once (timeout 0, or something ready): a scenario is
 * one thread.  Blocking waits, EPOLLEXCLUSIVE wake-ups and close races are
 * in tests/stress/epoll.c.  Each wait is recorded as its result and then
 * every event as "events data" (data.u64), in the order reported.
 */
#include "conf.h"
#include <poll.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>

#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define ioctl(fd, r, a) B->ioctl(BX, fd, r, a)
#define poll(p, n, t) B->poll(BX, p, n, t)
#define epoll_create1(f) B->epoll_create1(BX, f)
#define epoll_ctl(e, o, fd, ev) B->epoll_ctl(BX, e, o, fd, ev)
#define epoll_wait(e, evs, n, t) B->epoll_wait(BX, e, evs, n, t)
#define epoll_pwait(e, evs, n, t, m) B->epoll_pwait(BX, e, evs, n, t, m)

/* epoll_ctl with an event built in place */
static int ctl(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };
	return epoll_ctl(ep, op, fd, &ev);
}
#define ADD(ep, fd, ev, d) ctl(ep, EPOLL_CTL_ADD, fd, ev, d)
#define MOD(ep, fd, ev, d) ctl(ep, EPOLL_CTL_MOD, fd, ev, d)
#define DEL(ep, fd) epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL)

/* a wait of at most max events that ends at once, every event recorded */
static void waitrec(const char *what, int ep, int max)
{
	struct epoll_event evs[16];
	memset(evs, 0x55, sizeof evs);
	int n = epoll_wait(ep, evs, max, 0);
	chk(fmt("epoll_wait(%s, %d)", what, max), n);
	for (int i = 0; i < n && i < 16; i++)
		CS(fmt("event %d of %s", i, what),
		   fmt("%#x %llu", evs[i].events, (unsigned long long)evs[i].data.u64));
}
#define WAIT(ep, max) waitrec(#ep, ep, max)

#define POLL1(fd, ev)                                                                                  \
	do {                                                                                           \
		struct pollfd q_ = { fd, ev, 0x7777 };                                                   \
		C(poll(&q_, 1, 0));                                                                    \
		chk(fmt("revents of poll(%s, %s)", #fd, #ev), q_.revents);                             \
	} while (0)

static void mkpipe(int p[2])
{
	C(pipe2(p, O_NONBLOCK));
}

/* ---- the instance ---- */

static void epoll_create_flags(void)
{
	C(epoll_create1(1));
	C(epoll_create1(-1));
	C(epoll_create1(O_NONBLOCK));
	C(epoll_create1(EPOLL_CLOEXEC | 1));
	int a = F(epoll_create1(0));
	int b = F(epoll_create1(EPOLL_CLOEXEC));
	C(a == 0 && b == 1);
	C(fcntl(a, F_GETFD, 0));
	C(fcntl(b, F_GETFD, 0));
	C(fcntl(a, F_GETFL, 0));
	C(fcntl(b, F_GETFL, 0));
	struct stat st, st2;
	C(fstat(a, &st));
	C(st.st_mode);
	C(st.st_nlink);
	C(st.st_size);
	C(st.st_uid);
	/* the anonymous inode every epoll and inotify instance shares */
	C(fstat(b, &st2));
	C(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev);
	int in = F(B->inotify_init1(BX, 0));
	C(fstat(in, &st2));
	C(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev);
	char buf[16];
	C(read(a, buf, sizeof buf));
	C(write(a, "x", 1));
	C(pread(a, buf, sizeof buf, 0));
	C(lseek(a, 0, SEEK_CUR));
	C(lseek(a, 10, SEEK_SET));
	int n = -1;
	C(ioctl(a, FIONREAD, &n));
	C(fsync(a));
	C(ftruncate(a, 0));
	C(getdents64(a, buf, sizeof buf));
	C(fchmod(a, 0644));
	C(fcntl(a, F_SETFL, O_NONBLOCK));
	C(fcntl(a, F_GETFL, 0));
	C(close(a));
	C(close(b));
	C(close(in));
}

/* ---- epoll_ctl's errors, in Linux's order ---- */

static void epoll_ctl_errors(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(mkfile("/f", "data"));
	int f = F(OPEN("/f", O_RDWR));
	int d = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	int path = F(OPEN("/f", O_PATH));
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 1 };
	/* EFAULT first: the event is read before the fds are looked at */
	C(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], NULL));
	C(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], NULL));
	C(epoll_ctl(-1, EPOLL_CTL_ADD, -1, NULL));
	C(epoll_ctl(ep, 99, p[0], NULL));
	C(epoll_ctl(ep, 0, p[0], NULL));
	C(epoll_ctl(-1, EPOLL_CTL_DEL, p[0], NULL));
	/* EBADF: epfd, then fd; O_PATH fds are not open for this */
	C(epoll_ctl(-1, EPOLL_CTL_ADD, p[0], &ev));
	C(epoll_ctl(100, EPOLL_CTL_ADD, -1, &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, -1, &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, 100, &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, path, &ev));
	C(epoll_ctl(path, EPOLL_CTL_ADD, p[0], &ev));
	C(epoll_ctl(ep, 99, -1, &ev));
	/* EPERM: targets without poll, before the epfd's own checks */
	C(epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, d, &ev));
	C(epoll_ctl(ep, EPOLL_CTL_DEL, f, NULL));
	C(epoll_ctl(ep, EPOLL_CTL_MOD, d, &ev));
	C(epoll_ctl(f, EPOLL_CTL_ADD, f, &ev));
	C(epoll_ctl(p[0], EPOLL_CTL_ADD, d, &ev));
	C(epoll_ctl(ep, 99, f, &ev));
	/* EINVAL: epfd not an epoll, or the target is epfd's own file */
	C(epoll_ctl(f, EPOLL_CTL_ADD, p[0], &ev));
	C(epoll_ctl(p[1], EPOLL_CTL_ADD, p[0], &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
	int ep2 = F(dup(ep));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, ep2, &ev));
	C(epoll_ctl(ep2, EPOLL_CTL_DEL, ep, NULL));
	/* ENOENT and EEXIST */
	C(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	C(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	C(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	C(epoll_ctl(ep2, EPOLL_CTL_ADD, p[0], &ev));
	/* an unknown op: EINVAL once the fds passed */
	C(epoll_ctl(ep, 99, p[0], &ev));
	C(epoll_ctl(ep, 0, p[1], &ev));
	C(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
	C(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], &ev));
	C(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], &ev));
	/* events with every bit: accepted */
	C(ADD(ep, p[1], ~0u & ~EPOLLEXCLUSIVE, 2));
	WAIT(ep, 4);
	C(close(ep2));
	cl(ep);
	cl(p[0]);
	cl(p[1]);
	cl(f);
	cl(d);
	cl(path);
}

static void epoll_exclusive_rules(void)
{
	int ep = F(epoll_create1(0));
	int inner = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT, 1));
	C(ADD(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLRDHUP, 1));
	C(ADD(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLRDNORM, 1));
	C(ADD(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLPRI, 1));
	C(ADD(ep, inner, EPOLLIN | EPOLLEXCLUSIVE, 1));
	C(ADD(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLET | EPOLLERR | EPOLLHUP | EPOLLWAKEUP, 1));
	C(ADD(ep, p[1], EPOLLEXCLUSIVE, 2));
	/* exclusive items cannot be modified at all */
	C(MOD(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE, 3));
	C(MOD(ep, p[0], EPOLLIN, 3));
	C(MOD(ep, p[1], EPOLLOUT, 3));
	C(MOD(ep, inner, EPOLLIN | EPOLLEXCLUSIVE, 3));
	C(MOD(ep, inner, EPOLLIN, 3));
	C(wr(p[1], "x"));
	WAIT(ep, 4);
	C(DEL(ep, p[0]));
	C(DEL(ep, p[1]));
	C(DEL(ep, p[0]));
	WAIT(ep, 4);
	cl(inner);
	cl(ep);
	cl(p[0]);
	cl(p[1]);
}

/* ---- epoll_wait's arguments ---- */

static void epoll_wait_errors(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	struct epoll_event evs[4];
	C(epoll_wait(ep, evs, 0, 0));
	C(epoll_wait(ep, evs, -1, 0));
	C(epoll_wait(ep, evs, INT_MAX, 0));
	C(epoll_wait(ep, evs, INT_MAX / (int)sizeof(struct epoll_event) + 1, 0));
	C(epoll_wait(-1, evs, 0, 0));
	C(epoll_wait(-1, evs, 1, 0));
	C(epoll_wait(p[0], evs, 1, 0));
	C(epoll_wait(p[0], evs, 0, 0));
	C(epoll_wait(ep, evs, 4, 0));
	C(epoll_wait(ep, evs, 4, 1));
	C(epoll_wait(ep, evs, 4, 20));
	/* a NULL array is only a fault once there is something to put in it */
	C(epoll_wait(ep, NULL, 4, 0));
	C(ADD(ep, p[1], EPOLLOUT, 5));
	C(epoll_wait(ep, NULL, 4, 0));
	C(epoll_wait(ep, NULL, 4, 10));
	WAIT(ep, 4);
	/* pwait: the same, with and without a mask */
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	C(epoll_pwait(ep, evs, 0, 0, &m));
	C(epoll_pwait(-1, evs, 4, 0, &m));
	C(epoll_pwait(ep, evs, 4, 0, NULL));
	C(evs[0].events);
	C(evs[0].data.u64);
	C(epoll_pwait(ep, evs, 4, 0, &m));
	C(epoll_pwait(ep, NULL, 4, 0, &m));
	C(DEL(ep, p[1]));
	C(epoll_pwait(ep, evs, 4, 5, &m));
	cl(ep);
	cl(p[0]);
	cl(p[1]);
}

/* ---- level-triggered, edge-triggered, one-shot ---- */

static void epoll_lt_pipe(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN, 10));
	WAIT(ep, 4);
	C(wr(p[1], "abc"));
	WAIT(ep, 4);
	WAIT(ep, 4); /* still readable: reported again */
	char b[8];
	C(read(p[0], b, 1));
	WAIT(ep, 4);
	C(read(p[0], b, sizeof b));
	WAIT(ep, 4);
	/* the write end as well: both report, in the order they became ready */
	C(ADD(ep, p[1], EPOLLOUT, 11));
	C(wr(p[1], "d"));
	WAIT(ep, 4);
	WAIT(ep, 1);
	WAIT(ep, 1);
	WAIT(ep, 1);
	/* a full pipe is not writable */
	static char big[65536];
	C(write(p[1], big, sizeof big));
	WAIT(ep, 4);
	C(read(p[0], b, sizeof b));
	WAIT(ep, 4);
	C(read(p[0], big, sizeof big));
	WAIT(ep, 4);
	/* events 0: only EPOLLERR and EPOLLHUP */
	C(MOD(ep, p[0], 0, 12));
	C(MOD(ep, p[1], 0, 13));
	C(wr(p[1], "e"));
	WAIT(ep, 4);
	C(MOD(ep, p[0], EPOLLIN | EPOLLOUT | EPOLLPRI | EPOLLRDNORM | EPOLLRDBAND, 14));
	WAIT(ep, 4);
	cl(ep);
	cl(p[0]);
	cl(p[1]);
}

static void epoll_et_pipe(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN | EPOLLET, 20));
	WAIT(ep, 4);
	C(wr(p[1], "abc"));
	WAIT(ep, 4);
	WAIT(ep, 4); /* no new edge */
	char b[8];
	C(read(p[0], b, 1));
	WAIT(ep, 4);
	C(wr(p[1], "d")); /* a new edge, with data still there */
	WAIT(ep, 4);
	WAIT(ep, 4);
	C(read(p[0], b, sizeof b));
	WAIT(ep, 4);
	/* the write end: writable from the start, once */
	C(ADD(ep, p[1], EPOLLOUT | EPOLLET, 21));
	WAIT(ep, 4);
	WAIT(ep, 4);
	/* a read makes room: a new edge for the writer */
	C(wr(p[1], "x"));
	WAIT(ep, 4);
	C(read(p[0], b, sizeof b));
	WAIT(ep, 4);
	/* MOD re-arms an edge-triggered item that is ready */
	C(MOD(ep, p[1], EPOLLOUT | EPOLLET, 22));
	WAIT(ep, 4);
	WAIT(ep, 4);
	/* the writer goes: a hang-up edge on the read side */
	cl(p[1]);
	WAIT(ep, 4);
	WAIT(ep, 4);
	cl(ep);
	cl(p[0]);
}

static void epoll_oneshot(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN | EPOLLONESHOT, 30));
	C(wr(p[1], "a"));
	WAIT(ep, 4);
	WAIT(ep, 4); /* disabled */
	C(wr(p[1], "b"));
	WAIT(ep, 4);
	/* still watched: ADD says it exists */
	C(ADD(ep, p[0], EPOLLIN, 31));
	C(MOD(ep, p[0], EPOLLIN | EPOLLONESHOT, 32));
	WAIT(ep, 4);
	WAIT(ep, 4);
	/* a disabled item does not report a hang-up either */
	cl(p[1]);
	WAIT(ep, 4);
	C(MOD(ep, p[0], EPOLLIN | EPOLLONESHOT | EPOLLET, 33));
	WAIT(ep, 4);
	WAIT(ep, 4);
	C(MOD(ep, p[0], EPOLLIN, 34));
	WAIT(ep, 4);
	WAIT(ep, 4);
	C(DEL(ep, p[0]));
	WAIT(ep, 4);
	cl(ep);
	cl(p[0]);
}

/* EPOLLHUP and EPOLLERR, asked for or not; EPOLLRDHUP is a socket's, and a
 * pipe never reports it */
static void epoll_hup_err(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN | EPOLLRDHUP, 40));
	C(wr(p[1], "a"));
	cl(p[1]);
	WAIT(ep, 4);
	char b[4];
	C(read(p[0], b, sizeof b));
	WAIT(ep, 4);
	C(MOD(ep, p[0], EPOLLRDHUP, 41));
	WAIT(ep, 4);
	C(MOD(ep, p[0], 0, 42));
	WAIT(ep, 4);
	cl(p[0]);
	mkpipe(p);
	C(ADD(ep, p[1], 0, 43));
	WAIT(ep, 4);
	cl(p[0]);
	WAIT(ep, 4);
	C(MOD(ep, p[1], EPOLLOUT, 44));
	WAIT(ep, 4);
	C(MOD(ep, p[1], EPOLLIN | EPOLLET, 45));
	WAIT(ep, 4);
	WAIT(ep, 4);
	cl(p[1]);
	WAIT(ep, 4);
	cl(ep);
}

/* several ready items, fewer slots: the rest wait their turn in order */
static void epoll_order(void)
{
	int ep = F(epoll_create1(0));
	int a[2], b[2], c[2];
	mkpipe(a);
	mkpipe(b);
	mkpipe(c);
	C(ADD(ep, a[0], EPOLLIN, 1));
	C(ADD(ep, b[0], EPOLLIN, 2));
	C(ADD(ep, c[0], EPOLLIN, 3));
	C(wr(b[1], "b"));
	C(wr(c[1], "c"));
	C(wr(a[1], "a"));
	WAIT(ep, 1);
	WAIT(ep, 1);
	WAIT(ep, 2);
	WAIT(ep, 8);
	char buf[4];
	C(read(c[0], buf, sizeof buf));
	WAIT(ep, 8);
	C(MOD(ep, c[0], EPOLLIN | EPOLLET, 4));
	C(wr(c[1], "c"));
	WAIT(ep, 2);
	WAIT(ep, 8);
	WAIT(ep, 8);
	cl(ep);
	cl(a[0]);
	cl(a[1]);
	cl(b[0]);
	cl(b[1]);
	cl(c[0]);
	cl(c[1]);
}

/* ---- a watch goes with its file, not with its fd ---- */

static void epoll_release(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN, 50));
	int d = F(dup(p[0]));
	C(close(p[0]));
	C(wr(p[1], "x"));
	WAIT(ep, 4); /* the file lives on in d: still reported, with its data */
	C(DEL(ep, p[0]));
	C(DEL(ep, d)); /* watched as (file, closed fd), not (file, d) */
	C(MOD(ep, d, EPOLLIN, 51));
	C(ADD(ep, d, EPOLLIN, 52));
	WAIT(ep, 4);
	/* a new file at the old number is a new key */
	int q[2];
	mkpipe(q);
	C(q[0] == p[0]);
	C(ADD(ep, q[0], EPOLLIN, 53));
	C(wr(q[1], "y"));
	WAIT(ep, 4);
	C(DEL(ep, q[0]));
	C(DEL(ep, d));
	WAIT(ep, 4);
	/* both fds of the file closed: its watch goes */
	C(close(q[0]));
	C(close(q[1]));
	C(close(d));
	WAIT(ep, 4);
	/* the write end watched through two epolls, then closed */
	int ep2 = F(epoll_create1(0));
	int r[2];
	mkpipe(r);
	C(ADD(ep, r[1], EPOLLOUT, 54));
	C(ADD(ep2, r[1], EPOLLOUT, 55));
	C(ADD(ep2, r[0], EPOLLIN, 56));
	int d1 = F(dup(r[1]));
	C(close(r[1]));
	WAIT(ep, 4);
	WAIT(ep2, 4);
	C(close(d1));
	WAIT(ep, 4);
	WAIT(ep2, 4);
	/* the epoll closed first: its watches go with it */
	C(close(ep2));
	C(wr(p[1], "z"));
	C(close(r[0]));
	WAIT(ep, 4);
	cl(ep);
	cl(p[1]);
}

/* ---- FIFOs and inotify ---- */

static void epoll_fifo(void)
{
	C(MKNOD("/fifo", S_IFIFO | 0666, 0));
	int ep = F(epoll_create1(0));
	int r = F(OPEN("/fifo", O_RDONLY | O_NONBLOCK));
	C(ADD(ep, r, EPOLLIN, 60));
	WAIT(ep, 4); /* no writer yet, none ever: no hang-up */
	int w = F(OPEN("/fifo", O_WRONLY | O_NONBLOCK));
	C(ADD(ep, w, EPOLLOUT | EPOLLET, 61));
	WAIT(ep, 4);
	C(wr(w, "fifo"));
	WAIT(ep, 4);
	char b[8];
	C(read(r, b, sizeof b));
	WAIT(ep, 4);
	C(close(w));
	WAIT(ep, 4); /* the writer went: hang-up */
	WAIT(ep, 4);
	/* one file open both ways */
	int rw = F(OPEN("/fifo", O_RDWR | O_NONBLOCK));
	C(ADD(ep, rw, EPOLLIN | EPOLLOUT, 62));
	WAIT(ep, 4);
	C(wr(rw, "z"));
	WAIT(ep, 4);
	C(close(rw));
	WAIT(ep, 4);
	cl(r);
	cl(ep);
}

static void epoll_inotify(void)
{
	int ep = F(epoll_create1(0));
	int in = F(B->inotify_init1(BX, IN_NONBLOCK));
	C(B->inotify_add_watch(BX, in, "/", IN_CREATE | IN_DELETE));
	C(ADD(ep, in, EPOLLIN, 70));
	WAIT(ep, 4);
	C(mkfile("/a", ""));
	WAIT(ep, 4);
	WAIT(ep, 4);
	char buf[4096];
	C(read(in, buf, sizeof buf) > 0);
	WAIT(ep, 4);
	C(MOD(ep, in, EPOLLIN | EPOLLET, 71));
	C(UNLINK("/a"));
	WAIT(ep, 4);
	WAIT(ep, 4);
	C(mkfile("/b", ""));
	WAIT(ep, 4);
	C(MOD(ep, in, EPOLLOUT, 72));
	WAIT(ep, 4);
	C(MOD(ep, in, EPOLLIN | EPOLLOUT | EPOLLONESHOT, 73));
	WAIT(ep, 4);
	WAIT(ep, 4);
	C(close(in));
	WAIT(ep, 4);
	cl(ep);
}

/* ---- epoll watching epoll, and the loop check ---- */

static void epoll_nested(void)
{
	int outer = F(epoll_create1(0));
	int inner = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(inner, p[0], EPOLLIN, 80));
	C(ADD(outer, inner, EPOLLIN, 81));
	WAIT(outer, 4);
	POLL1(inner, POLLIN | POLLOUT);
	POLL1(outer, POLLIN);
	C(wr(p[1], "x"));
	POLL1(inner, POLLIN | POLLOUT | POLLPRI);
	POLL1(outer, POLLIN);
	WAIT(outer, 4);
	WAIT(outer, 4);
	WAIT(inner, 4);
	char b[4];
	C(read(p[0], b, sizeof b));
	WAIT(outer, 4); /* the inner one's item is stale: nothing */
	POLL1(inner, POLLIN);
	/* edge-triggered on the inner instance */
	C(MOD(outer, inner, EPOLLIN | EPOLLET, 82));
	C(wr(p[1], "y"));
	WAIT(outer, 4);
	WAIT(outer, 4);
	WAIT(inner, 4);
	WAIT(outer, 4);
	/* an epoll is never writable, and never hangs up */
	C(MOD(outer, inner, EPOLLOUT, 83));
	WAIT(outer, 4);
	/* the pipe goes: the inner instance loses its item */
	cl(p[1]);
	C(read(p[0], b, sizeof b));
	cl(p[0]);
	WAIT(inner, 4);
	C(MOD(outer, inner, EPOLLIN, 84));
	WAIT(outer, 4);
	/* cycles */
	C(ADD(inner, outer, EPOLLIN, 85));
	int third = F(epoll_create1(0));
	C(ADD(third, outer, EPOLLIN, 86));
	C(ADD(inner, third, EPOLLIN, 87));
	C(ADD(third, inner, EPOLLIN, 88));
	C(ADD(outer, third, EPOLLIN, 89));
	C(DEL(outer, inner));
	C(ADD(inner, outer, EPOLLIN, 90));
	cl(third);
	cl(inner);
	cl(outer);
}

static void epoll_nest_depth(void)
{
	int e[10], f[10];
	for (int i = 0; i < 10; i++)
		e[i] = F(epoll_create1(0));
	/* a chain grown at the top */
	for (int i = 0; i < 8; i++)
		chk(fmt("ADD(e%d, e%d)", i + 1, i), ADD(e[i + 1], e[i], EPOLLIN, i));
	for (int i = 0; i < 10; i++)
		f[i] = F(epoll_create1(0));
	/* a chain grown at the bottom */
	for (int i = 8; i >= 0; i--)
		chk(fmt("ADD(f%d, f%d)", i + 1, i), ADD(f[i + 1], f[i], EPOLLIN, i));
	/* joining two chains: the sum counts */
	C(DEL(e[5], e[4]));
	C(ADD(f[2], e[2], EPOLLIN, 100));
	C(ADD(f[1], e[2], EPOLLIN, 101));
	C(ADD(f[0], e[1], EPOLLIN, 102));
	C(ADD(f[0], e[0], EPOLLIN, 103));
	C(ADD(e[9], f[3], EPOLLIN, 104));
	C(ADD(e[6], f[4], EPOLLIN, 105));
	/* a readiness travels up the whole chain */
	int p[2];
	mkpipe(p);
	C(ADD(e[0], p[1], EPOLLOUT, 106));
	WAIT(e[4], 4);
	POLL1(e[4], POLLIN);
	POLL1(e[3], POLLIN);
	WAIT(e[1], 4);
	cl(p[0]);
	cl(p[1]);
	for (int i = 0; i < 10; i++) {
		cl(e[i]);
		cl(f[i]);
	}
}

/* ---- uvfs_poll on an epoll fd ---- */

static void epoll_polled(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	POLL1(ep, POLLIN | POLLOUT);
	C(ADD(ep, p[0], EPOLLIN, 1));
	POLL1(ep, POLLIN);
	C(wr(p[1], "x"));
	POLL1(ep, POLLIN | POLLOUT);
	POLL1(ep, POLLOUT);
	POLL1(ep, 0);
	char b[4];
	C(read(p[0], b, sizeof b));
	POLL1(ep, POLLIN);
	WAIT(ep, 4);
	/* a polled (not waited) edge stays for the wait */
	C(MOD(ep, p[0], EPOLLIN | EPOLLET, 2));
	C(wr(p[1], "y"));
	POLL1(ep, POLLIN);
	POLL1(ep, POLLIN);
	WAIT(ep, 4);
	POLL1(ep, POLLIN);
	cl(p[0]);
	cl(p[1]);
	cl(ep);
}

/* ---- across processes ---- */

/* A forked proc's copy of the epoll fd is the same instance, and its copy of
 * a watched fd the same file: closing it there removes nothing, closing the
 * last one anywhere does. */
static void epoll_fork(void)
{
	int ep = F(epoll_create1(0));
	int p[2];
	mkpipe(p);
	C(ADD(ep, p[0], EPOLLIN, 1));
	int k = C(proc_clone(0));
	C(proc_use(k));
	C(close(p[0]));
	C(wr(p[1], "x"));
	WAIT(ep, 4);
	C(DEL(ep, p[0]));
	C(proc_use(0));
	WAIT(ep, 4);
	C(close(p[0]));
	C(proc_use(k));
	WAIT(ep, 4); /* the file is gone from both tables: so is its item */
	/* a watch added in the child is seen by the parent */
	int q[2];
	mkpipe(q);
	C(ADD(ep, q[1], EPOLLOUT, 2));
	C(proc_use(0));
	WAIT(ep, 4);
	C(proc_destroy(k)); /* the child's files go: q's only fds */
	WAIT(ep, 4);
	cl(p[1]);
	cl(ep);
}

const struct scenario epoll_scenarios[] = {
	{ "epoll_create_flags", epoll_create_flags },
	{ "epoll_ctl_errors", epoll_ctl_errors },
	{ "epoll_exclusive_rules", epoll_exclusive_rules },
	{ "epoll_wait_errors", epoll_wait_errors },
	{ "epoll_lt_pipe", epoll_lt_pipe },
	{ "epoll_et_pipe", epoll_et_pipe },
	{ "epoll_oneshot", epoll_oneshot },
	{ "epoll_hup_err", epoll_hup_err },
	{ "epoll_order", epoll_order },
	{ "epoll_release", epoll_release },
	{ "epoll_fifo", epoll_fifo },
	{ "epoll_inotify", epoll_inotify },
	{ "epoll_nested", epoll_nested },
	{ "epoll_nest_depth", epoll_nest_depth },
	{ "epoll_polled", epoll_polled },
	{ "epoll_fork", epoll_fork, NEEDS_PROCS },
	{ NULL, NULL },
};
