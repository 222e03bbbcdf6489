/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sigthreads.h - which threads of a process may run the handler of a
 * process-directed signal, read from /proc/PID/task/TID/status (SigBlk):
 * tests/unit/unit-signals.c (the library's threads) and
 * tests/fuse/test-fuse.c (uvfs-fuse's).
 */
#ifndef UVFS_TESTS_SIGTHREADS_H
#define UVFS_TESTS_SIGTHREADS_H
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

/* glibc's pthread_create blocks every signal, its own included, until the
 * new thread has set the mask it inherits: the kernel shows all but
 * SIGKILL and SIGSTOP blocked. */
#define SIGTHREADS_MASK_STARTING 0xfffffffffffbfeffull

/* How many threads of pid (0: this process) leave sig unblocked; -2 while
 * one is still starting, -1 if the process cannot be read. */
static inline int sigthreads_count(pid_t pid, int sig)
{
	char dir[64], path[64 + 256 + 16], line[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (pid)
		snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	else
		snprintf(dir, sizeof(dir), "/proc/self/task");
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		unsigned long long blk = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "SigBlk: %llx", &blk) == 1)
				break;
		fclose(f);
		if (blk == SIGTHREADS_MASK_STARTING) {
			closedir(d);
			return -2;
		}
		if (!(blk & (1ull << (sig - 1))))
			n++;
	}
	closedir(d);
	return n;
}

/* sigthreads_count once no thread is starting (bounded: 10 s; -1 after). */
static inline int sigthreads_taking(pid_t pid, int sig)
{
	for (int tries = 0; tries < 10000; tries++) {
		int n = sigthreads_count(pid, sig);
		if (n != -2)
			return n;
		usleep(1000);
	}
	return -1;
}
#endif
