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
 *     st_ino); a rename and a removal through the mount happen on the host;
 *   - the server's workers spin for a request before they sleep (-o spin,
 *     devio.c): after a burst of calls the server goes to sleep, and an
 *     idle mount's server uses no CPU (a spin that never ends would use
 *     the whole second this test waits).
 *
 * Skips (never passes) when not root, without /dev/fuse or uvfs-fuse.
 */
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

static char host[64], mnt[64];

static bool mounted(void) { return fuse_mounted(mnt); }

static int run_server(const char *opts) { return fuse_run_detached(UVFS_FUSE_BIN, opts, mnt, 0); }

/* utime + stime of a process, in clock ticks, or -1 */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *c = strrchr(buf, ')'); /* the name may hold spaces */
	unsigned long ut, st;
	if (!c || sscanf(c + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

static void idle_server_sleeps(void)
{
	char opt[400], q[300], buf[64];
	snprintf(opt, sizeof(opt), "hostdir=%s,default_permissions", host);
	char *argv[] = { (char *)UVFS_FUSE_BIN, "-f", "-o", opt, mnt, NULL };
	pid_t pid = fuse_start(argv, mnt, "/dev/null");
	CHECK(pid > 0, "mount with hostdir= in the foreground");
	if (pid <= 0)
		return;
	/* a burst of calls one at a time, then nothing */
	for (int i = 0; i < 200; i++) {
		snprintf(q, sizeof(q), "%s/burst", mnt);
		put_file(q, "x");
		get_file(q, buf, sizeof(buf));
	}
	unlink(q);
	usleep(100 * 1000);
	long before = cpu_ticks(pid);
	sleep(1);
	long after = cpu_ticks(pid);
	long hz = sysconf(_SC_CLK_TCK);
	CHECK(before >= 0 && after - before <= hz / 10, "an idle mount's server sleeps: %ld ticks of CPU in 1 s (at most %ld)",
	      after - before, hz / 10);
	CHECK(fuse_unmount(mnt, 5), "unmounted");
	CHECK(fuse_reap(pid, 5) == 0, "the server ends");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fuse_unavailable(UVFS_FUSE_BIN)) {
		printf("SKIP test-fuse-hostdir: needs root, /dev/fuse and uvfs-fuse\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	strcpy(host, "/dev/shm/uvfs-fuse-hostdir-XXXXXX");
	strcpy(mnt, "/tmp/uvfs-fuse-hostdir-mnt-XXXXXX");
	if (!mkdtemp(host) || !mkdtemp(mnt))
		return 1;
	char p[300], q[300], buf[64], opt[400];

	snprintf(opt, sizeof(opt), "hostdir=%s/none", host);
	CHECK(run_server(opt) == 1 && !mounted(), "a hostdir that does not exist: status 1, nothing mounted");
	snprintf(p, sizeof(p), "%s/file", host);
	put_file(p, "before");
	snprintf(opt, sizeof(opt), "hostdir=%s", p);
	CHECK(run_server(opt) == 1 && !mounted(), "a hostdir that is a file: status 1");
	snprintf(opt, sizeof(opt), "hostdir=%s,size=1m", host);
	CHECK(run_server(opt) == 1 && !mounted(), "tmpfs options with hostdir=: status 1");

	snprintf(opt, sizeof(opt), "hostdir=%s,default_permissions", host);
	CHECK(run_server(opt) == 0 && mounted(), "mount with hostdir=");
	snprintf(q, sizeof(q), "%s/file", mnt);
	CHECK(get_file(q, buf, sizeof(buf)) == 6 && !strcmp(buf, "before"), "a host file shows through the mount");
	snprintf(q, sizeof(q), "%s/new", mnt);
	put_file(q, "through the mount");
	snprintf(p, sizeof(p), "%s/new", host);
	CHECK(get_file(p, buf, sizeof(buf)) == 17 && !strcmp(buf, "through the mount"), "written through the mount, on the host");
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
	CHECK(get_file(p, buf, sizeof(buf)) == 17, "renamed on the host");
	snprintf(q, sizeof(q), "%s/link", mnt);
	CHECK(unlink(q) == 0, "unlink through the mount");
	snprintf(p, sizeof(p), "%s/link", host);
	CHECK(access(p, F_OK) && errno == ENOENT, "removed on the host");

	CHECK(fuse_unmount(mnt, 5), "unmounted");

	idle_server_sleeps();
	rmdir(mnt);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", host);
	if (system(cmd))
		printf("cannot remove %s\n", host);
	return check_done();
}
