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
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UVFS_FUSE_BIN
#define UVFS_FUSE_BIN "uvfs-fuse"
#endif

#define NOFILE 512
#define NFILES 1000

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

/* uvfs-fuse in the background (it detaches once mounted), with the fd
 * limit NOFILE that as root it could otherwise raise: its status */
static int run_server(const char *opts)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		struct rlimit rl = { NOFILE, NOFILE };
		prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0);
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(126);
		dup2(fd, 2);
		execl(UVFS_FUSE_BIN, UVFS_FUSE_BIN, "-o", opts, mnt, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void umount_it(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		execlp("fusermount3", "fusermount3", "-u", mnt, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	for (int i = 0; i < 500 && mounted(); i++)
		usleep(10000);
}

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

static pid_t server_pid(void)
{
	DIR *pd = opendir("/proc");
	struct dirent *e;
	pid_t pid = -1;
	while (pd && pid < 0 && (e = readdir(pd))) {
		char path[300], cmd[4096] = "";
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		cmd[len > 0 ? len : 0] = 0;
		for (ssize_t i = 0; i < len; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (strstr(cmd, UVFS_FUSE_BIN) && strstr(cmd, mnt))
			pid = atoi(e->d_name);
	}
	if (pd)
		closedir(pd);
	return pid;
}

/* The server's fds on regular files below host that are open for reading
 * or writing (not O_PATH), or -1. */
static int server_file_fds(void)
{
	pid_t pid = server_pid();
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
	CHECK(fd >= 0 && write(fd, "before", 6) == 6 && unlink(q) == 0, what);
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
	int dfd = open("/dev/fuse", O_RDWR);
	if (geteuid() != 0 || dfd < 0 || access(UVFS_FUSE_BIN, X_OK)) {
		printf("SKIP test-fuse-nofile: needs root, /dev/fuse and uvfs-fuse\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	close(dfd);
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
		put(p, "lower", O_CREAT | O_TRUNC);
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
		if (get(p, buf, sizeof(buf)) != 8 || strcmp(buf, "lower+up"))
			bad++;
		snprintf(p, sizeof(p), "%s/u/n%d", host, i);
		snprintf(want, sizeof(want), "new %d", i);
		if (get(p, buf, sizeof(buf)) != (int)strlen(want) || strcmp(buf, want))
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
		if (get(q, buf, sizeof(buf)) != (int)strlen(want) || strcmp(buf, want))
			bad++;
		snprintf(p, sizeof(p), "%s/h/f%d", host, i);
		if (get(p, buf, sizeof(buf)) != (int)strlen(want) || strcmp(buf, want))
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
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
