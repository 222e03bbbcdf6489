/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * loop.c - the multi-threaded request loop: one worker, and another only
 * when a request may wait.
 *
 * libfuse's loop starts a new worker whenever every worker is busy, so the
 * first request of a program that makes one call at a time (tar, rm, a
 * shell) already has a second worker: from then on the kernel hands each
 * request to whichever worker has waited longest, and the requests of one
 * program alternate between threads.  On this project's 2-core VM that made
 * `tar -x` of /usr/include three times slower than one worker (18.5 and
 * 15.9 s against 5.9 and 8.1 s, load 13-15; rm -rf 7.0 and 8.8 s against
 * 4.0 and 2.1 s).  The frontend's requests do not wait for one another:
 * uvfs answers each from memory (or a host call, for hostfs) and nothing a
 * request does waits for another request, except a lock wait (F_SETLKW, and
 * flock without LOCK_NB, which comes as SETLKW), which waits for another
 * program's unlock and must leave a worker to read it and the INTERRUPT that
 * ends the wait.  Some requests are long in themselves: an FALLOCATE of a
 * gigabyte fills a quarter of a million pages (stress-ng's dir stressor fell
 * from 800 to 24 directory operations a second beside its fallocate
 * stressor, every request queued behind the one worker), a COPY_FILE_RANGE
 * copies as much, an FSYNC on hostfs waits for the host's disk.  So a worker
 * about to serve one of those (may_be_long) makes sure another one is
 * reading first, up to max_threads; when it is done and another worker is
 * reading, it ends, so that one worker serves everything again: two that
 * both read would take a one-call-at-a-time program's requests in turn,
 * each woken in its turn.  Ended workers are joined by the loop's thread.
 *
 * -s keeps libfuse's single-threaded loop, clone_fd and max_idle_threads
 * libfuse's own multi-threaded one (a worker of this loop reads the
 * session's fd, not a clone).
 */
#include "internal.h"
#include <linux/fuse.h>
#include <signal.h>

struct uf_worker {
	struct uf_loop *l;
	pthread_t th;
	struct fuse_buf buf; /* freed after the join: a cancelled read leaves it */
	bool retired;        /* ended after a long request, to be joined (l->lock) */
	struct uf_worker *next;
};

struct uf_loop {
	struct fuse_session *se;
	pthread_mutex_t lock;
	pthread_cond_t done; /* a worker ended */
	unsigned max;        /* workers at most */
	unsigned nworkers;   /* made */
	unsigned reading;    /* in fuse_session_receive_buf, or about to be */
	unsigned running;    /* not ended */
	unsigned retired;    /* ended after a long request, not yet joined */
	int error;           /* the first error that ended a worker */
	struct uf_worker *workers;
};

static int start_worker(struct uf_loop *l);

/*
 * Requests whose service may take long: a lock wait (SETLKW, and flock
 * without LOCK_NB), an allocation or a copy of any length, a sync.
 */
static bool may_be_long(const struct fuse_in_header *in)
{
	switch (in->opcode) {
	case FUSE_SETLKW:
	case FUSE_FALLOCATE:
	case FUSE_COPY_FILE_RANGE:
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR:
		return true;
	default:
		return false;
	}
}

static void *worker_main(void *arg)
{
	struct uf_worker *w = arg;
	struct uf_loop *l = w->l;
	struct fuse_buf *buf = &w->buf;
	int r = 0;

	while (!fuse_session_exited(l->se)) {
		const struct fuse_in_header *in;

		/* a worker is cancelled (at the end) only while it reads */
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		r = fuse_session_receive_buf(l->se, buf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;
		in = buf->mem;
		if (!(buf->flags & FUSE_BUF_IS_FD) && buf->size >= sizeof(*in) && may_be_long(in)) {
			bool retire;

			pthread_mutex_lock(&l->lock);
			l->reading--;
			if (!l->reading && l->nworkers - l->retired < l->max)
				start_worker(l);
			pthread_mutex_unlock(&l->lock);
			fuse_session_process_buf(l->se, buf);
			pthread_mutex_lock(&l->lock);
			/* another reads: this one ends, and one serves again */
			retire = l->reading > 0 && !fuse_session_exited(l->se);
			if (retire) {
				w->retired = true;
				l->retired++;
				l->running--;
				pthread_cond_signal(&l->done);
			} else {
				l->reading++;
			}
			pthread_mutex_unlock(&l->lock);
			if (retire)
				return NULL;
		} else {
			fuse_session_process_buf(l->se, buf);
		}
	}
	pthread_mutex_lock(&l->lock);
	if (r < 0 && !l->error)
		l->error = r;
	l->running--;
	pthread_cond_signal(&l->done);
	pthread_mutex_unlock(&l->lock);
	/* the others may still be reading: make them stop */
	fuse_session_exit(l->se);
	return NULL;
}

/* Under l->lock: join the workers that ended after a long request. */
static void join_retired(struct uf_loop *l)
{
	struct uf_worker **pw = &l->workers, *w;

	while ((w = *pw)) {
		if (!w->retired) {
			pw = &w->next;
			continue;
		}
		*pw = w->next;
		pthread_join(w->th, NULL);
		free(w->buf.mem);
		free(w);
		l->retired--;
		l->nworkers--;
	}
}

/* Under l->lock. */
static int start_worker(struct uf_loop *l)
{
	struct uf_worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int r;

	if (!w)
		return -ENOMEM;
	w->l = l;
	/* signals go to the thread that set the handlers, as libfuse's
	 * workers leave them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&w->th, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		free(w);
		return -r;
	}
	w->next = l->workers;
	l->workers = w;
	l->nworkers++;
	l->reading++;
	l->running++;
	return 0;
}

int uf_loop_mt(struct uvfs_fuse *uf, unsigned max_threads)
{
	struct uf_loop l = { .se = uf->se, .max = max_threads ? max_threads : 1 };
	struct uf_worker *w;
	int r;

	pthread_mutex_init(&l.lock, NULL);
	pthread_cond_init(&l.done, NULL);
	pthread_mutex_lock(&l.lock);
	r = start_worker(&l);
	/* until a worker ends (the session exited, or failed), or a signal's
	 * handler ended the session */
	while (!r && l.running == l.nworkers - l.retired && !fuse_session_exited(uf->se)) {
		struct timespec ts;

		if (l.retired)
			join_retired(&l);

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&l.done, &l.lock, &ts);
	}
	pthread_mutex_unlock(&l.lock);
	/* the rest are blocked in a read that only the end of the session
	 * or a cancellation ends */
	for (w = l.workers; w; w = w->next)
		if (!w->retired)
			pthread_cancel(w->th);
	while ((w = l.workers)) {
		l.workers = w->next;
		pthread_join(w->th, NULL);
		free(w->buf.mem);
		free(w);
	}
	pthread_mutex_destroy(&l.lock);
	pthread_cond_destroy(&l.done);
	fuse_session_reset(uf->se);
	return r < 0 ? r : l.error == -ENODEV ? 0 : l.error;
}
