/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * messaging: the shape of `perf bench sched messaging --pipe --thread`.
 *
 * G groups; in each, 20 receivers and 20 senders, all threads of one
 * process (for uvfs: of one proc, sharing its fd table).  Every receiver
 * owns a pipe; every sender writes L 100-byte messages to every receiver of
 * its group, then the receivers have read 20 * L messages each.  All threads
 * start together from a barrier; the run's time is from the start until the
 * last thread is done.  Reads and writes block: the pipe's capacity (64 KiB)
 * is far below one receiver's 200 KB.  Seed 003: pipe files are pseudo files
 * and skip the fsnotify checks.
 *
 * The harness runs this as a job: one warm-up run, then a run per sample,
 * and reports messages per second (G * 20 * 20 * L / time) and the time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "bench.h"

#define NUM_FDS 20
#define DATASIZE 100

struct msg_group;

struct msg_thread {
	pthread_t tid;
	struct ctx *c;
	struct msg_group *g;
	int idx;              /* receiver: its pipe; sender: unused */
	int receiver;
};

struct msg_group {
	int rfd[NUM_FDS], wfd[NUM_FDS];
	unsigned long loops;
	pthread_barrier_t *start;
	struct msg_thread th[2 * NUM_FDS];
};

static void *sender(void *arg)
{
	struct msg_thread *t = arg;
	struct ctx *c = t->c;
	char data[DATASIZE];
	unsigned long i;
	int j;
	ssize_t n;

	memset(data, 's', sizeof(data));
	pthread_barrier_wait(t->g->start);
	for (i = 0; i < t->g->loops; i++)
		for (j = 0; j < NUM_FDS; j++) {
			size_t done = 0;

			while (done < DATASIZE) {
				n = c->ops->write(c->p, t->g->wfd[j], data + done, DATASIZE - done);
				if (n <= 0) {
					bench_fail(c, "messaging: write to pipe: %zd", n);
					return NULL;
				}
				done += n;
			}
		}
	return NULL;
}

static void *receiver(void *arg)
{
	struct msg_thread *t = arg;
	struct ctx *c = t->c;
	unsigned long want = t->g->loops * NUM_FDS;
	char data[DATASIZE];
	ssize_t n;

	pthread_barrier_wait(t->g->start);
	while (want) {
		size_t done = 0;

		while (done < DATASIZE) {
			n = c->ops->read(c->p, t->g->rfd[t->idx], data + done, DATASIZE - done);
			if (n <= 0) {
				bench_fail(c, "messaging: read from pipe: %zd", n);
				return NULL;
			}
			done += n;
		}
		want--;
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One run with `groups` groups and `loops` loops; returns 0 or -1. */
static int messaging(struct ctx *c, unsigned long groups, unsigned long loops, double *seconds,
		     unsigned long long *messages)
{
	struct msg_group *g = calloc(groups, sizeof(*g));
	pthread_barrier_t start;
	unsigned long i;
	int j, ret = 0, created = 0;
	double t0;

	if (!g)
		return -1;
	for (i = 0; i < groups; i++)
		for (j = 0; j < NUM_FDS; j++)
			g[i].rfd[j] = g[i].wfd[j] = -1;
	pthread_barrier_init(&start, NULL, groups * 2 * NUM_FDS + 1);
	for (i = 0; i < groups && !ret; i++) {
		g[i].loops = loops;
		g[i].start = &start;
		for (j = 0; j < NUM_FDS; j++) {
			int fds[2], r = c->ops->pipe2(c->p, fds, 0);

			if (r < 0) {
				bench_fail(c, "messaging: pipe2: %s", strerror(-r));
				ret = -1;
				break;
			}
			g[i].rfd[j] = fds[0];
			g[i].wfd[j] = fds[1];
		}
	}
	if (ret) {
		/* nobody waits at the barrier yet: just undo */
		goto out;
	}
	for (i = 0; i < groups; i++)
		for (j = 0; j < 2 * NUM_FDS; j++) {
			struct msg_thread *t = &g[i].th[j];

			t->c = c;
			t->g = &g[i];
			t->receiver = j < NUM_FDS;
			t->idx = j % NUM_FDS;
			if (pthread_create(&t->tid, NULL, t->receiver ? receiver : sender, t)) {
				/* cannot recover the barrier's count: fail hard */
				fprintf(stderr, "messaging: pthread_create failed\n");
				abort();
			}
			created++;
		}
	/* the last to arrive: the run starts now (taking the time after the
	 * wait could be late if this thread is not scheduled at once) */
	t0 = now();
	pthread_barrier_wait(&start);
	for (i = 0; i < groups; i++)
		for (j = 0; j < 2 * NUM_FDS; j++)
			pthread_join(g[i].th[j].tid, NULL);
	*seconds = now() - t0;
	*messages = (unsigned long long)groups * NUM_FDS * NUM_FDS * loops;
	ret = c->failed ? -1 : 0;
out:
	for (i = 0; i < groups; i++)
		for (j = 0; j < NUM_FDS; j++) {
			if (g[i].rfd[j] >= 0)
				c->ops->close(c->p, g[i].rfd[j]);
			if (g[i].wfd[j] >= 0)
				c->ops->close(c->p, g[i].wfd[j]);
		}
	pthread_barrier_destroy(&start);
	free(g);
	(void)created;
	return ret;
}

BENCH_JOB(messaging, .name = "messaging", .seed = "003", .needs = BENCH_NEED_PIPE2,
	  .job = messaging, .params = { 1, 2, 4 }, .param_name = "groups",
	  .job_loops = 100, .ops_per_loop = NUM_FDS * NUM_FDS,
	  .description = "perf bench sched messaging --pipe --thread: G groups of 20 senders "
			 "and 20 receivers, 100-byte messages");
