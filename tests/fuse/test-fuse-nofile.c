// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-fuse-nofile: uvfs-fuse run with a low fd limit (RLIMIT_NOFILE 512,
 * without CAP_SYS_RESOURCE, so it cannot raise it) serves more files than
 * the limit, through -o lowerdir= over host directories and through -o
 * hostdir=.  With default_permissions the kernel opens files without
 * asking (no-open) and reads and writes go through one file per node, which
 * on hostfs holds a host fd: kept until the kernel forgot the node, they ran
 * the server out of fds (tar -x after 20,000 copy-ups in one mount).
 *
 *   - lowerdir=: 1000 lower files appended to (copied up), 1000 new files
 *     created and written, every byte checked in the upper layer;
 *   - hostdir=: 1000 files created and written, appended to again (their
 *     files were closed meanwhile), read back through the mount and on the
 *     host;
 *   - both: a file unlinked while open for writing, written before and after
 *     1000 other files went through the mount, reads back what was written;
 *   - both: the server holds at most a quarter of its fd limit in files of
 *     the tree open for reading or writing (O_PATH fds aside).
 *
 * Skips (never passes) when not root, without /dev/fuse or uvfs-fuse.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../unit/check.h"
#include "../unit/hostfile.h"
#include "mount.h"

#define NOFILE 512
#define NFILES 1000

static char host[64], mnt[64];

static bool mounted(void) { return fuse_mounted(mnt); }

/* uvfs-fuse in the background (it detaches once mounted), with the fd
 * limit NOFILE that as root it could otherwise raise: its status */
static int run_server(const char *opts) { return fuse_run_detached_limited(UVFS_FUSE_BIN, opts, mnt, NOFILE, true); }

static void umount_it(void) { fuse_unmount(mnt, 5); }

/* data written to path opened with flags | O_WRONLY (mode 0644): 0, or
 * -errno of the open, the write or the close (what put_file does not
 * tell) */
static int put(const char *path, const char *data, int flags)
{
	int fd = open(path, flags | O_WRONLY, 0644);
	if (fd < 0)
		return -errno;
	ssize_t w = write(fd, data, strlen(data));
	int e = w == (ssize_t)strlen(data) ? 0 : w < 0 ? -errno : -EIO;
	if (close(fd) && !e)
		e = -errno;
	return e;
}

/* The server's fds on regular files below host that are open for reading
 * or writing (not O_PATH), or -1. */
static int server_file_fds(void)
{
	pid_t pid = fuse_server_pid(UVFS_FUSE_BIN, mnt);
	char path[64];
	struct dirent *f;
	int n = 0;
	if (pid < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	while ((f = readdir(d))) {
		char l[400], t[600], line[128];
		unsigned flags = 0;
		struct stat st;
		snprintf(l, sizeof(l), "%s/%s", path, f->d_name);
		ssize_t k = readlink(l, t, sizeof(t) - 1);
		t[k > 0 ? k : 0] = 0;
		if (strncmp(t, host, strlen(host)) || stat(l, &st) || !S_ISREG(st.st_mode))
			continue;
		snprintf(l, sizeof(l), "/proc/%d/fdinfo/%s", (int)pid, f->d_name);
		FILE *fi = fopen(l, "r");
		while (fi && fgets(line, sizeof(line), fi))
			if (sscanf(line, "flags: %o", &flags) == 1)
				break;
		if (fi)
			fclose(fi);
		if (!(flags & O_PATH))
			n++;
	}
	closedir(d);
	return n;
}

/* A file unlinked while open for writing, written before and after NFILES
 * others went through the mount (its node's file closed meanwhile). */
static void unlinked_open_file(const char *what)
{
	char q[300], buf[16] = "";
	snprintf(q, sizeof(q), "%s/unlinked", mnt);
	int fd = open(q, O_CREAT | O_EXCL | O_RDWR, 0644);
	CHECK(fd >= 0 && write(fd, "before", 6) == 6 && unlink(q) == 0, "%s", what);
	int bad = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(q, sizeof(q), "%s/more%d", mnt, i);
		if (put(q, "x", O_CREAT | O_TRUNC))
			bad++;
	}
	CHECK(bad == 0, "other files written meanwhile");
	CHECK(fd >= 0 && pwrite(fd, "+after", 6, 6) == 6, "the unlinked file written again");
	CHECK(fd >= 0 && pread(fd, buf, sizeof(buf) - 1, 0) == 12 && !strcmp(buf, "before+after"),
	      "the unlinked file reads back both writes");
	if (fd >= 0)
		close(fd);
}

static void bounded(void)
{
	int n = server_file_fds();
	/* the frontend's files (a quarter of the limit) and hostfs's host fds
	 * (one quarter for every mount made without fds=, its shared read fds
	 * among them: hostfs_node.c) */
	CHECK(n >= 0 && n <= NOFILE / 2, "the server keeps at most half its fd limit in files");
	if (n > NOFILE / 2)
		printf("   %d files open\n", n);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fuse_unavailable(UVFS_FUSE_BIN)) {
		printf("SKIP test-fuse-nofile: needs root, /dev/fuse and uvfs-fuse\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	strcpy(host, "/dev/shm/uvfs-fuse-nofile-XXXXXX");
	strcpy(mnt, "/tmp/uvfs-fuse-nofile-mnt-XXXXXX");
	if (!mkdtemp(host) || !mkdtemp(mnt))
		return 1;
	char p[300], q[300], buf[64], opt[600], want[64];
	const char *dirs[] = { "l", "u", "w", "h" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", host, dirs[i]);
		mkdir(p, 0755);
	}
	for (int i = 0; i < NFILES; i++) {
		snprintf(p, sizeof(p), "%s/l/f%d", host, i);
		put_file(p, "lower");
	}

	/* an overlay of host directories: copy-ups, then new files */
	snprintf(opt, sizeof(opt), "default_permissions,lowerdir=%s/l,upperdir=%s/u,workdir=%s/w", host, host,
		 host);
	CHECK(run_server(opt) == 0 && mounted(), "mount lowerdir= with an fd limit of 512");
	int bad = 0, first = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(q, sizeof(q), "%s/f%d", mnt, i);
		int r = put(q, "+up", O_APPEND);
		if (r && !bad++)
			first = r;
	}
	CHECK(bad == 0, "1000 lower files appended to through the mount");
	if (bad)
		printf("   %d failed, the first with %s\n", bad, strerror(-first));
	bad = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(q, sizeof(q), "%s/n%d", mnt, i);
		snprintf(want, sizeof(want), "new %d", i);
		if (put(q, want, O_CREAT | O_EXCL))
			bad++;
	}
	CHECK(bad == 0, "1000 new files written through the mount");
	bounded();
	bad = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(p, sizeof(p), "%s/u/f%d", host, i);
		if (get_file(p, buf, sizeof(buf)) != 8 || strcmp(buf, "lower+up"))
			bad++;
		snprintf(p, sizeof(p), "%s/u/n%d", host, i);
		snprintf(want, sizeof(want), "new %d", i);
		if (get_file(p, buf, sizeof(buf)) != (int)strlen(want) || strcmp(buf, want))
			bad++;
	}
	CHECK(bad == 0, "every copied-up and new file is right in the upper layer");
	unlinked_open_file("lowerdir=: a file open for writing, unlinked");
	bounded();
	umount_it();
	CHECK(!mounted(), "unmounted");

	/* a host directory: new files, appended to again, read back */
	snprintf(opt, sizeof(opt), "default_permissions,hostdir=%s/h", host);
	CHECK(run_server(opt) == 0 && mounted(), "mount hostdir= with an fd limit of 512");
	bad = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(q, sizeof(q), "%s/f%d", mnt, i);
		snprintf(want, sizeof(want), "file %d", i);
		if (put(q, want, O_CREAT | O_EXCL))
			bad++;
	}
	CHECK(bad == 0, "1000 files created and written through the mount");
	bad = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(q, sizeof(q), "%s/f%d", mnt, i);
		if (put(q, ".", O_APPEND))
			bad++;
	}
	CHECK(bad == 0, "each appended to again");
	bad = 0;
	for (int i = 0; i < NFILES; i++) {
		snprintf(want, sizeof(want), "file %d.", i);
		snprintf(q, sizeof(q), "%s/f%d", mnt, i);
		if (get_file(q, buf, sizeof(buf)) != (int)strlen(want) || strcmp(buf, want))
			bad++;
		snprintf(p, sizeof(p), "%s/h/f%d", host, i);
		if (get_file(p, buf, sizeof(buf)) != (int)strlen(want) || strcmp(buf, want))
			bad++;
	}
	CHECK(bad == 0, "every file reads back through the mount and on the host");
	unlinked_open_file("hostdir=: a file open for writing, unlinked");
	bounded();
	umount_it();
	CHECK(!mounted(), "unmounted");

	rmdir(mnt);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", host);
	if (system(cmd))
		printf("cannot remove %s\n", host);
	return check_done();
}
