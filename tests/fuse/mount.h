/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mount.h - the FUSE test programs' uvfs-fuse: whether it can run here, a
 * server started and its mount waited for, the mount taken down and the
 * server reaped.  Each program keeps its own checks; what they share is how
 * a mount comes and goes.
 *
 * Every wait has a time limit, so that a hung server fails a test instead of
 * hanging the suite.
 */
#ifndef UVFS_TESTS_FUSE_MOUNT_H
#define UVFS_TESTS_FUSE_MOUNT_H
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#ifndef UVFS_FUSE_BIN
#define UVFS_FUSE_BIN "uvfs-fuse"
#endif

static inline double fuse_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* $UVFS_FUSE, else the uvfs-fuse built with the tests */
static inline const char *fuse_program(void)
{
	return getenv("UVFS_FUSE") ? getenv("UVFS_FUSE") : UVFS_FUSE_BIN;
}

/* Why a mount cannot be made here, or NULL: the programs skip, never pass. */
static inline const char *fuse_unavailable(const char *bin)
{
	int fd = open("/dev/fuse", O_RDWR);

	if (fd >= 0)
		close(fd);
	if (geteuid() != 0)
		return "not root";
	if (fd < 0)
		return "no /dev/fuse";
	if (access(bin, X_OK) != 0)
		return "uvfs-fuse not built";
	return NULL;
}

/* A uvfs-fuse mount on exactly path (not one below or beside it). */
static inline bool fuse_mounted(const char *path)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char line[8192], dev[1024], mp[4096], type[256];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%1023s %4095s %255s", dev, mp, type) == 3 && strcmp(mp, path) == 0 &&
		    strcmp(type, "fuse.uvfs") == 0)
			found = true;
	fclose(f);
	return found;
}

/* pid's wait status; -1 when it has not ended within secs (it is left
 * running), -2 when it cannot be waited for */
static inline int fuse_wait_pid(pid_t pid, double secs)
{
	double end = fuse_mono() + secs;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return -2;
		if (fuse_mono() > end)
			return -1;
		usleep(2000);
	}
}

/* pid waited for up to secs, then killed: its wait status, or < 0 */
static inline int fuse_reap(pid_t pid, double secs)
{
	int st = fuse_wait_pid(pid, secs);

	if (st == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return st;
}

/* argv[0] in a child: its stdout and stderr appended to log (when not
 * NULL), its fd limit nofile (when not 0); with fixed, a limit it cannot
 * raise (CAP_SYS_RESOURCE dropped from its bounding set: uvfs-fuse raises
 * its limit where it may, and root may raise the hard one).  The child's
 * pid, or -1. */
static inline pid_t fuse_spawn_limited(char *const argv[], const char *log, rlim_t nofile, bool fixed)
{
	fflush(stdout);
	pid_t pid = fork();

	if (pid == 0) {
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		if (nofile) {
			struct rlimit rl = { nofile, nofile };

			if (fixed && prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0))
				_exit(126);
			if (setrlimit(RLIMIT_NOFILE, &rl))
				_exit(126);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static inline pid_t fuse_spawn(char *const argv[], const char *log, rlim_t nofile)
{
	return fuse_spawn_limited(argv, log, nofile, false);
}

/* Up to secs for server's mount on path: 0, or -EIO when the server ended
 * first (reaped), -ETIMEDOUT (the server left running). */
static inline int fuse_wait_mounted(pid_t server, const char *path, double secs)
{
	for (double end = fuse_mono() + secs; fuse_mono() < end; usleep(2000)) {
		if (fuse_mounted(path))
			return 0;
		if (waitpid(server, NULL, WNOHANG) == server)
			return -EIO;
	}
	return fuse_mounted(path) ? 0 : -ETIMEDOUT;
}

/* uvfs-fuse -f ARGS... (argv, ending with the mount point) in the
 * background: its pid once the mount stands, else -1 (the server gone). */
static inline pid_t fuse_start(char *const argv[], const char *path, const char *log)
{
	pid_t pid = fuse_spawn(argv, log, 0);
	int r;

	if (pid < 0)
		return -1;
	r = fuse_wait_mounted(pid, path, 10);
	if (r == 0)
		return pid;
	if (r == -ETIMEDOUT) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

/* uvfs-fuse -o opts path without -f: it detaches once mounted (its
 * stderr to /dev/null), with the fd limit nofile as fuse_spawn_limited's.
 * Its exit status (1: refused before mounting; 126: the limit could not
 * be set), 128 when it did not exit. */
static inline int fuse_run_detached_limited(const char *bin, const char *opts, const char *path, rlim_t nofile,
					    bool fixed)
{
	char *argv[] = { (char *)bin, "-o", (char *)opts, (char *)path, NULL };
	pid_t pid = fuse_spawn_limited(argv, "/dev/null", nofile, fixed);
	int st = -1;

	if (pid < 0)
		return 128;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static inline int fuse_run_detached(const char *bin, const char *opts, const char *path, rlim_t nofile)
{
	return fuse_run_detached_limited(bin, opts, path, nofile, false);
}

/* The pid of the server mounted on path: the process of bin whose command
 * line names path (a detached server is not our child), or -1. */
static inline pid_t fuse_server_pid(const char *bin, const char *path)
{
	DIR *pd = opendir("/proc");
	struct dirent *e;
	pid_t pid = -1;

	while (pd && pid < 0 && (e = readdir(pd))) {
		char p[300], cmd[4096] = "";
		int fd;
		ssize_t len;

		snprintf(p, sizeof(p), "/proc/%s/cmdline", e->d_name);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		cmd[len > 0 ? len : 0] = 0;
		for (ssize_t i = 0; i < len; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (strstr(cmd, bin) && strstr(cmd, path))
			pid = atoi(e->d_name);
	}
	if (pd)
		closedir(pd);
	return pid;
}

/* fusermount3 -u path (at most 10 s), then up to secs for the mount to go
 * (a detached server's unmount completes after fusermount3 returns).  True
 * when it is gone. */
static inline bool fuse_unmount(const char *path, double secs)
{
	char *argv[] = { "fusermount3", "-u", (char *)path, NULL };
	fflush(stdout);
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		fuse_reap(pid, 10);
	for (double end = fuse_mono() + secs; fuse_mounted(path) && fuse_mono() < end;)
		usleep(10000);
	return !fuse_mounted(path);
}
#endif
