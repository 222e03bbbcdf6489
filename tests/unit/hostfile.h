/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostfile.h - the host side of the tests that put uvfs over host files
 * (hostfs, its overlays, uvfs-fuse -o hostdir=): a small file written and
 * read back whole by path, and the fds this process holds below a host
 * directory.
 */
#ifndef UVFS_TESTS_HOSTFILE_H
#define UVFS_TESTS_HOSTFILE_H
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* path made or truncated to hold data; a failure is printed, and left to
 * the checks that read it */
static inline void put_file(const char *path, const char *data)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		perror(path);
	close(fd);
}

/* up to n - 1 bytes of path into buf, NUL-terminated: the byte count, or
 * -errno of the open */
static inline int get_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, buf, n - 1);
	buf[r > 0 ? r : 0] = 0;
	close(fd);
	return (int)r;
}

/* The fds of this process on files below prefix: hostfs's (a sanitizer's
 * own fds on /proc or libraries come and go, and are not counted). */
static inline int host_fds_under(const char *prefix)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char l[300], t[300];
		snprintf(l, sizeof(l), "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(l, t, sizeof(t) - 1);
		t[k > 0 ? k : 0] = 0;
		if (!strncmp(t, prefix, strlen(prefix)))
			n++;
	}
	closedir(d);
	return n;
}
#endif
