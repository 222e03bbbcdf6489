/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-fuse-locks.c - file locks through a uvfs-fuse mount made with
 * -o locks (uvfs keeps them: tools/uvfs-fuse/ops_locks.c), with two (and
 * three) processes and two threads, compared line by line with the same
 * sequence on a directory of the host's tmpfs (the oracle).
 *
 * POSIX record locks: conflicts between processes, F_GETLK's answer (but
 * l_pid: the mount names no holder), a thread of the holder, release by the
 * close of any of the owner's fds, a blocked F_SETLKW granted when the lock
 * goes, one ended by a signal (EINTR), a fork's child owning nothing.
 * flock: two open files conflict, a dup and a fork share one, the last close
 * releases, a blocked LOCK_EX is granted.  Skips when not root or without
 * /dev/fuse.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mount.h"

/* results, one line each, in a shared page so that children can add to it */
static char *out;
static size_t *outlen;

static void rec(const char *f, ...)
{
	va_list ap;
	char line[256];
	va_start(ap, f);
	vsnprintf(line, sizeof(line), f, ap);
	va_end(ap);
	size_t n = strlen(line);
	if (getenv("LOCKS_VERBOSE"))
		fprintf(stderr, "%d: %s\n", getpid(), line);
	size_t at = __atomic_fetch_add(outlen, n + 1, __ATOMIC_SEQ_CST);
	if (at + n + 1 < (1 << 20) - sizeof(size_t)) {
		memcpy(out + at, line, n);
		out[at + n] = '\n';
	}
}

static const char *err(int r) { return r < 0 ? strerrorname_np(errno) : "0"; }

static int lk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, &f);
}

static void getlk(const char *who, int fd, short type, off_t start, off_t len)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	if (fcntl(fd, F_GETLK, &f) < 0)
		rec("%s getlk %s", who, strerrorname_np(errno));
	else
		rec("%s getlk type %s start %jd len %jd", who, f.l_type == F_UNLCK ? "unlck" : f.l_type == F_RDLCK ?
		    "rd" : "wr", (intmax_t)f.l_start, (intmax_t)f.l_len);
}

static void on_alarm(int sig) { (void)sig; }

struct thr { int fd; int r; int e; };
static void *thread_lock(void *a)
{
	struct thr *t = a;
	t->r = lk(t->fd, F_SETLK, F_WRLCK, 0, 10);
	t->e = errno;
	return NULL;
}

/* a pipe's byte as a go-ahead between the processes */
static void post(int *p) { if (write(p[1], "x", 1) != 1) _exit(3); }
static void await(int *p) { char c; if (read(p[0], &c, 1) != 1) _exit(3); }

static void sequence(const char *dir)
{
	char f[4096];
	int go[2], back[2], st;
	snprintf(f, sizeof(f), "%s/lockfile", dir);
	int fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pipe(go) < 0 || pipe(back) < 0) {
		rec("setup %s", strerrorname_np(errno));
		return;
	}
	rec("P setlk wr 0+10 %s", err(lk(fd, F_SETLK, F_WRLCK, 0, 10)));
	/* a thread of the holder: the same owner */
	struct thr th = { fd, 0, 0 };
	pthread_t tid;
	pthread_create(&tid, NULL, thread_lock, &th);
	pthread_join(tid, NULL);
	rec("P thread setlk wr 0+10 %s", th.r < 0 ? strerrorname_np(th.e) : "0");
	int dupfd = dup(fd);
	pid_t c = fork();
	if (c == 0) {
		int cfd = open(f, O_RDWR);
		/* a fork's child owns none of the parent's locks, inherited fd or not */
		rec("C setlk wr 5+1 inherited fd %s", err(lk(fd, F_SETLK, F_WRLCK, 5, 1)));
		rec("C setlk wr 5+1 %s", err(lk(cfd, F_SETLK, F_WRLCK, 5, 1)));
		rec("C setlk rd 9+2 %s", err(lk(cfd, F_SETLK, F_RDLCK, 9, 2)));
		getlk("C", cfd, F_WRLCK, 5, 1);
		getlk("C", cfd, F_RDLCK, 20, 5);
		rec("C setlk wr 20+5 %s", err(lk(cfd, F_SETLK, F_WRLCK, 20, 5)));
		rec("C setlk rd 30+5 %s", err(lk(cfd, F_SETLK, F_RDLCK, 30, 5)));
		post(back);
		await(go);
		/* a wait that the parent's close of a dup ends */
		double t0 = fuse_mono();
		int r = lk(cfd, F_SETLKW, F_WRLCK, 0, 5);
		rec("C setlkw wr 0+5 %s after the close (%s)", err(r), fuse_mono() - t0 > 0.05 ? "waited" : "did not wait");
		post(back);
		await(go);
		/* a wait that a signal ends */
		struct sigaction sa = { .sa_handler = on_alarm };
		sigaction(SIGALRM, &sa, NULL);
		alarm(1);
		r = lk(cfd, F_SETLKW, F_WRLCK, 50, 1);
		rec("C setlkw wr 50+1 with a signal %s", err(r));
		getlk("C", cfd, F_WRLCK, 50, 1);
		_exit(0);
	}
	await(back);
	getlk("P", fd, F_WRLCK, 0, 100);
	getlk("P", fd, F_WRLCK, 25, 100);
	rec("P setlk rd 30+5 %s", err(lk(fd, F_SETLK, F_RDLCK, 30, 5)));
	rec("P setlk wr 22+1 %s", err(lk(fd, F_SETLK, F_WRLCK, 22, 1)));
	post(go);
	usleep(200 * 1000);
	/* any close of the owner's fds releases all its locks on the file */
	close(dupfd);
	await(back);
	getlk("P", fd, F_WRLCK, 0, 5);
	rec("P setlk wr 50+1 %s", err(lk(fd, F_SETLK, F_WRLCK, 50, 1)));
	post(go);
	waitpid(c, &st, 0);
	rec("C exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128);
	/* the child is gone: its locks too */
	getlk("P", fd, F_WRLCK, 0, 100);
	close(fd);

	/* flock */
	int a = open(f, O_RDWR), b = open(f, O_RDWR);
	rec("flock a ex %s", err(flock(a, LOCK_EX)));
	rec("flock b ex|nb %s", err(flock(b, LOCK_EX | LOCK_NB)));
	rec("flock b sh|nb %s", err(flock(b, LOCK_SH | LOCK_NB)));
	int a2 = dup(a);
	rec("flock dup ex|nb %s", err(flock(a2, LOCK_EX | LOCK_NB)));
	close(a);
	rec("flock b ex|nb after a close with a dup left %s", err(flock(b, LOCK_EX | LOCK_NB)));
	c = fork();
	if (c == 0) {
		/* the inherited open file is the same description: it holds the lock */
		rec("C flock inherited ex|nb %s", err(flock(a2, LOCK_EX | LOCK_NB)));
		int cb = open(f, O_RDWR);
		post(back);
		await(go);
		close(a2); /* the last reference: the lock goes */
		double t0 = fuse_mono();
		int r = flock(cb, LOCK_EX);
		rec("C flock ex %s after the last close", err(r));
		(void)t0;
		_exit(0);
	}
	await(back);
	close(a2); /* the child's copy of a2 is still open: the lock stays */
	rec("flock b ex|nb with the child's copy open %s", err(flock(b, LOCK_EX | LOCK_NB)));
	post(go);
	waitpid(c, &st, 0);
	rec("C exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128);
	rec("flock b ex|nb after the child %s", err(flock(b, LOCK_EX | LOCK_NB)));
	close(b);
	unlink(f);
}

/* the sequence in a child process (its own lock owner), results in buf */
static void run_on(const char *dir, char *buf, size_t len)
{
	*outlen = 0;
	pid_t p = fork();
	if (p == 0) {
		sequence(dir);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	size_t n = *outlen < len - 1 ? *outlen : len - 1;
	memcpy(buf, out, n);
	buf[n] = 0;
}

/* The number of threads of process pid. */
static int nthreads(pid_t pid)
{
	char path[64], line[256];
	int n = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

int main(void)
{
	static char host[1 << 16], fuse[1 << 16];
	const char *bin = fuse_program(), *why = fuse_unavailable(bin);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (why) {
		printf("SKIP locks through FUSE: %s\n0 passed, 0 failed, 1 skipped\n", why);
		return 0;
	}
	void *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	outlen = m;
	out = (char *)m + sizeof(size_t);

	char hdir[] = "/dev/shm/uvfs-locks-host.XXXXXX", scratch[] = "/tmp/uvfs-locks.XXXXXX", mnt[64];
	if (!mkdtemp(hdir) || !mkdtemp(scratch))
		return 1;
	run_on(hdir, host, sizeof(host));
	rmdir(hdir);

	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	mkdir(mnt, 0755);
	char *argv[] = { (char *)bin, "-f", "-o", "locks", mnt, NULL };
	pid_t srv = fuse_start(argv, mnt, NULL);
	int mounted = srv > 0, before = 0, after = 0;
	if (mounted) {
		struct stat st;
		stat(mnt, &st); /* the server's threads are all made by now */
		before = nthreads(srv);
		run_on(mnt, fuse, sizeof(fuse));
		/* the workers a lock wait made end once it is served (loop.c):
		 * one worker reads again (the loop's thread joins them within
		 * 0.1 s; 10 s only bound a broken build) */
		for (int i = 0; i < 1000 && (after = nthreads(srv)) != before; i++)
			usleep(10000);
		fuse_unmount(mnt, 0);
		fuse_reap(srv, 10);
	}
	rmdir(mnt);
	rmdir(scratch);
	if (!mounted) {
		printf("FAIL uvfs-fuse did not mount\n0 passed, 1 failed\n");
		return 1;
	}
	/* line by line: the children's lines come in a fixed order (each
	 * waits for the other through the pipes) */
	int pass = 0, fail = 0;
	char *hs, *fs, *h = strtok_r(host, "\n", &hs), *f = strtok_r(fuse, "\n", &fs);
	for (; h || f; h = strtok_r(NULL, "\n", &hs), f = strtok_r(NULL, "\n", &fs)) {
		if (h && f && !strcmp(h, f)) {
			printf("ok   %s\n", h);
			pass++;
		} else {
			printf("FAIL host: %s | uvfs-fuse: %s\n", h ? h : "(nothing)", f ? f : "(nothing)");
			fail++;
		}
	}
	if (before > 0 && after == before) {
		printf("ok   the lock waits' workers ended: the server has its %d threads again\n", before);
		pass++;
	} else {
		printf("FAIL the server had %d threads before the lock waits, %d after\n", before, after);
		fail++;
	}
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
