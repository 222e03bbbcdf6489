/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * eventloop.c - a host epoll loop that serves uvfs fds next to its own.
 *
 * uvfs fds are not host fds: epoll cannot watch them.  A poll set gathers
 * them behind one host eventfd (uvfs_pollset_hostfd), which goes into the
 * loop's epoll set like any other fd; when it is readable,
 * uvfs_pollset_wait(..., 0) says which uvfs fds are ready.
 *
 * Here a producer thread writes messages into a uvfs pipe and creates files
 * in a watched uvfs directory, then says "done" on a host pipe; the loop
 * reads the three sources until it has everything.  Prints
 * "N passed, N failed".
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <uvfs.h>

#define NR_MSGS 100
#define MSG_LEN 8	/* "msg0042\n" */

static struct uvfs_proc *proc;
static int pipe_wr, host_done[2];
static int passed, failed;

#define CHECK(cond) do { \
	if (cond) \
		passed++; \
	else { \
		failed++; \
		printf("FAIL %s:%d: %s\n", __func__, __LINE__, #cond); \
	} \
} while (0)

/* A thread of the same proc: it shares the fd table, as a host thread would. */
static void *producer(void *arg)
{
	char msg[MSG_LEN + 1], name[32];

	for (int i = 0; i < NR_MSGS; i++) {
		snprintf(msg, sizeof(msg), "msg%04d\n", i);
		if (uvfs_write(proc, pipe_wr, msg, MSG_LEN) != MSG_LEN)
			break;
		snprintf(name, sizeof(name), "/watched/f%d", i);
		int fd = uvfs_openat(proc, AT_FDCWD, name, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			uvfs_close(proc, fd);
	}
	if (write(host_done[1], "x", 1) != 1)
		perror("write");
	return NULL;
}

int main(void)
{
	struct uvfs *fs = uvfs_create(NULL);
	char data[NR_MSGS * MSG_LEN + 1] = "";
	size_t got = 0;
	int creates = 0, names_ok = 0, done = 0, timeouts = 0;
	int fds[2];

	proc = uvfs_proc_create(fs, 1000, 1000);
	CHECK(uvfs_pipe2(proc, fds, O_NONBLOCK | O_CLOEXEC) == 0);
	pipe_wr = fds[1];
	CHECK(uvfs_mkdirat(proc, AT_FDCWD, "/watched", 0755) == 0);
	int in = uvfs_inotify_init1(proc, IN_NONBLOCK);
	CHECK(in >= 0);
	CHECK(uvfs_inotify_add_watch(proc, in, "/watched", IN_CREATE) >= 0);

	struct uvfs_pollset *ps = uvfs_pollset_create(proc);
	CHECK(ps != NULL);
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, fds[0], POLLIN) == 0);
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_ADD, in, POLLIN) == 0);

	int ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(pipe2(host_done, O_CLOEXEC) == 0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = uvfs_pollset_hostfd(ps) };
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev) == 0);
	ev.data.fd = host_done[0];
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev) == 0);

	pthread_t th;
	CHECK(pthread_create(&th, NULL, producer, NULL) == 0);

	while (!done || got < sizeof(data) - 1 || creates < NR_MSGS) {
		struct epoll_event evs[4];
		int n = epoll_wait(ep, evs, 4, 10000);

		if (n == 0) {	/* ten seconds without an event: something is lost */
			timeouts++;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == host_done[0]) {
				char c;
				done = read(host_done[0], &c, 1) == 1;
				epoll_ctl(ep, EPOLL_CTL_DEL, host_done[0], NULL);
				continue;
			}
			struct pollfd ready[2];
			int nr = uvfs_pollset_wait(ps, ready, 2, 0);

			for (int j = 0; j < nr; j++) {
				if (ready[j].fd == fds[0]) {
					ssize_t r;
					while (got < sizeof(data) - 1 &&
					       (r = uvfs_read(proc, fds[0], data + got, sizeof(data) - 1 - got)) > 0)
						got += r;
				} else if (ready[j].fd == in) {
					char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
					ssize_t r;
					while ((r = uvfs_read(proc, in, buf, sizeof(buf))) > 0) {
						for (char *q = buf; q < buf + r;) {
							struct inotify_event *e = (struct inotify_event *)q;
							char want[32];

							snprintf(want, sizeof(want), "f%d", creates);
							names_ok += (e->mask & IN_CREATE) && strcmp(e->name, want) == 0;
							creates++;
							q += sizeof(*e) + e->len;
						}
					}
				}
			}
		}
	}
	pthread_join(th, NULL);

	CHECK(timeouts == 0);
	CHECK(done);
	CHECK(got == NR_MSGS * MSG_LEN);
	int in_order = 1;
	for (int i = 0; i < NR_MSGS; i++) {
		char msg[MSG_LEN + 1];
		snprintf(msg, sizeof(msg), "msg%04d\n", i);
		in_order &= memcmp(data + i * MSG_LEN, msg, MSG_LEN) == 0;
	}
	CHECK(in_order);
	CHECK(creates == NR_MSGS);
	CHECK(names_ok == NR_MSGS);

	/* The set holds a reference to each file: take the fds out before the
	 * instance goes, as before a close whose peer must see it. */
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_DEL, fds[0], 0) == 0);
	CHECK(uvfs_pollset_ctl(ps, UVFS_POLLSET_DEL, in, 0) == 0);
	uvfs_pollset_destroy(ps);
	close(ep);
	close(host_done[0]);
	close(host_done[1]);
	uvfs_destroy(fs);

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
