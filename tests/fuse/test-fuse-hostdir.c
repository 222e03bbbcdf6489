// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-fuse-hostdir: uvfs-fuse -o hostdir=DIR, the tree being a host
 * directory (hostfs).
 *
 *   - a hostdir that does not exist or is not a directory, and tmpfs
 *     options given with hostdir=, are a message and exit status 1 before
 *     anything is mounted;
 *   - names made on the host before the mount show through it; what is
 *     written through the mount is on the host, byte for byte; a hard link
 *     made through the mount is one inode on both sides (the host's
 *     st_ino); a rename and a removal through the mount happen on the host.
 *
 * Skips (never passes) when not root, without /dev/fuse or uvfs-fuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef UVFS_FUSE_BIN
#define UVFS_FUSE_BIN "uvfs-fuse"
#endif

static int passed, failed;
#define CHECK(c, what)                                                   \
	do {                                                             \
		if (c)                                                   \
			passed++;                                        \
		else {                                                   \
			failed++;                                        \
			printf("FAIL %s (line %d)\n", what, __LINE__);   \
		}                                                        \
	} while (0)

static char host[64], mnt[64];

static int mounted(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[1024];
	int found = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, mnt) && strstr(line, "fuse.uvfs"))
			found = 1;
	if (f)
		fclose(f);
	return found;
}

/* uvfs-fuse in the background (it detaches once mounted): its status */
static int run_server(const char *opts)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		execl(UVFS_FUSE_BIN, UVFS_FUSE_BIN, "-o", opts, mnt, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void put(const char *path, const char *data)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		perror(path);
	close(fd);
}

static int get(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, buf, n - 1);
	buf[r > 0 ? r : 0] = 0;
	close(fd);
	return (int)r;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	int dfd = open("/dev/fuse", O_RDWR);
	if (geteuid() != 0 || dfd < 0 || access(UVFS_FUSE_BIN, X_OK)) {
		printf("SKIP test-fuse-hostdir: needs root, /dev/fuse and uvfs-fuse\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	close(dfd);
	strcpy(host, "/dev/shm/uvfs-fuse-hostdir-XXXXXX");
	strcpy(mnt, "/tmp/uvfs-fuse-hostdir-mnt-XXXXXX");
	if (!mkdtemp(host) || !mkdtemp(mnt))
		return 1;
	char p[300], q[300], buf[64], opt[400];

	snprintf(opt, sizeof(opt), "hostdir=%s/none", host);
	CHECK(run_server(opt) == 1 && !mounted(), "a hostdir that does not exist: status 1, nothing mounted");
	snprintf(p, sizeof(p), "%s/file", host);
	put(p, "before");
	snprintf(opt, sizeof(opt), "hostdir=%s", p);
	CHECK(run_server(opt) == 1 && !mounted(), "a hostdir that is a file: status 1");
	snprintf(opt, sizeof(opt), "hostdir=%s,size=1m", host);
	CHECK(run_server(opt) == 1 && !mounted(), "tmpfs options with hostdir=: status 1");

	snprintf(opt, sizeof(opt), "hostdir=%s,default_permissions", host);
	CHECK(run_server(opt) == 0 && mounted(), "mount with hostdir=");
	snprintf(q, sizeof(q), "%s/file", mnt);
	CHECK(get(q, buf, sizeof(buf)) == 6 && !strcmp(buf, "before"), "a host file shows through the mount");
	snprintf(q, sizeof(q), "%s/new", mnt);
	put(q, "through the mount");
	snprintf(p, sizeof(p), "%s/new", host);
	CHECK(get(p, buf, sizeof(buf)) == 17 && !strcmp(buf, "through the mount"), "written through the mount, on the host");
	char q2[300];
	snprintf(q2, sizeof(q2), "%s/link", mnt);
	CHECK(link(q, q2) == 0, "link through the mount");
	struct stat a, b, h;
	snprintf(p, sizeof(p), "%s/link", host);
	CHECK(stat(q, &a) == 0 && stat(q2, &b) == 0 && stat(p, &h) == 0 && a.st_ino == b.st_ino &&
	      a.st_ino == h.st_ino && h.st_nlink == 2, "a hard link is one inode, the host's");
	snprintf(q2, sizeof(q2), "%s/renamed", mnt);
	CHECK(rename(q, q2) == 0, "rename through the mount");
	snprintf(p, sizeof(p), "%s/renamed", host);
	CHECK(get(p, buf, sizeof(buf)) == 17, "renamed on the host");
	snprintf(q, sizeof(q), "%s/link", mnt);
	CHECK(unlink(q) == 0, "unlink through the mount");
	snprintf(p, sizeof(p), "%s/link", host);
	CHECK(access(p, F_OK) && errno == ENOENT, "removed on the host");

	pid_t pid = fork();
	if (pid == 0) {
		execlp("fusermount3", "fusermount3", "-u", mnt, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	for (int i = 0; i < 500 && mounted(); i++)
		usleep(10000);
	CHECK(!mounted(), "unmounted");
	rmdir(mnt);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", host);
	if (system(cmd))
		printf("cannot remove %s\n", host);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
