// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-fuse-layers: uvfs-fuse -o lowerdir=A:B,upperdir=U,workdir=W, the
 * tree being uvfs's overlay of host directories (hostfs layers).
 *
 *   - a layer that does not exist, upperdir= without workdir=, a work
 *     directory that is the upper one or inside it, a data-only layer,
 *     hostdir= or tmpfs options with lowerdir=: a message and exit status 1
 *     before anything is mounted;
 *   - through the mount: the top layer's file hides the next one's, a file
 *     only read stays in its lower layer (it was copied up when reads opened
 *     the node's file for writing), an append copies it up (the lower layer
 *     unchanged), a removal leaves a 0/0 whiteout in the upper layer, a new
 *     file is in the upper layer; without upperdir= the overlay is read-only;
 *   - 300 files created after the kernel went no-open, then removed: the
 *     server keeps no fd on them (the kernel sends no RELEASE for them);
 *   - 600 files read through a hostdir= mount whose fd limit is 512 (hostfs
 *     layers hold host fds: the nodes' read files are bounded).
 *
 * Skips (never passes) when not root, without /dev/fuse or uvfs-fuse.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "../unit/check.h"
#include "../unit/hostfile.h"
#include "mount.h"

static char host[64], mnt[64];

static bool mounted(void) { return fuse_mounted(mnt); }

static rlim_t nofile; /* an fd limit for the server, or 0 */

static int run_server(const char *opts) { return fuse_run_detached(UVFS_FUSE_BIN, opts, mnt, nofile); }

/* The fds the server (the uvfs-fuse process mounted at mnt) holds on host
 * files that are gone: what it keeps for objects removed through the
 * mount.  -1 if the server is not found. */
static int server_fds_of_removed(void)
{
	pid_t pid = fuse_server_pid(UVFS_FUSE_BIN, mnt);
	char path[64];
	struct dirent *f;
	int n = 0;

	if (pid < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *fdd = opendir(path);
	while (fdd && (f = readdir(fdd))) {
		char l[600], t[600];
		snprintf(l, sizeof(l), "%s/%s", path, f->d_name);
		ssize_t k = readlink(l, t, sizeof(t) - 1);
		t[k > 0 ? k : 0] = 0;
		if (!strncmp(t, host, strlen(host)) && strstr(t, " (deleted)"))
			n++;
	}
	if (fdd)
		closedir(fdd);
	return n;
}

static void umount_it(void) { fuse_unmount(mnt, 5); }

/* the host's copy of a name in the upper layer */
static int upper_stat(const char *name, struct stat *st)
{
	char p[300];
	snprintf(p, sizeof(p), "%s/u/%s", host, name);
	return lstat(p, st);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fuse_unavailable(UVFS_FUSE_BIN)) {
		printf("SKIP test-fuse-layers: needs root, /dev/fuse and uvfs-fuse\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	strcpy(host, "/dev/shm/uvfs-fuse-layers-XXXXXX");
	strcpy(mnt, "/tmp/uvfs-fuse-layers-mnt-XXXXXX");
	if (!mkdtemp(host) || !mkdtemp(mnt))
		return 1;
	char p[300], q[300], buf[64], opt[600];
	struct stat st;
	const char *dirs[] = { "l1", "l2", "l2/d", "u", "w" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", host, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/l1/a", host);
	put_file(p, "lower1");
	snprintf(p, sizeof(p), "%s/l2/a", host);
	put_file(p, "lower2");
	snprintf(p, sizeof(p), "%s/l2/b", host);
	put_file(p, "b2");
	snprintf(p, sizeof(p), "%s/l2/d/f", host);
	put_file(p, "f");

	/* refused before anything is mounted */
	snprintf(opt, sizeof(opt), "lowerdir=%s/none", host);
	CHECK(run_server(opt) == 1 && !mounted(), "a lower layer that does not exist: status 1");
	snprintf(opt, sizeof(opt), "lowerdir=%s/l1,upperdir=%s/u", host, host);
	CHECK(run_server(opt) == 1 && !mounted(), "upperdir= without workdir=: status 1");
	snprintf(opt, sizeof(opt), "lowerdir=%s/l1,upperdir=%s/u,workdir=%s/u", host, host, host);
	CHECK(run_server(opt) == 1 && !mounted(), "workdir= the upper layer itself: status 1");
	snprintf(opt, sizeof(opt), "lowerdir=%s/l1,upperdir=%s,workdir=%s/w", host, host, host);
	CHECK(run_server(opt) == 1 && !mounted(), "workdir= inside upperdir=: status 1");
	snprintf(opt, sizeof(opt), "lowerdir=%s/l1::%s/l2", host, host);
	CHECK(run_server(opt) == 1 && !mounted(), "a data-only layer: status 1");
	snprintf(opt, sizeof(opt), "lowerdir=%s/l1,hostdir=%s", host, host);
	CHECK(run_server(opt) == 1 && !mounted(), "lowerdir= with hostdir=: status 1");
	snprintf(opt, sizeof(opt), "lowerdir=%s/l1,size=1m", host);
	CHECK(run_server(opt) == 1 && !mounted(), "tmpfs options with lowerdir=: status 1");

	snprintf(opt, sizeof(opt), "default_permissions,lowerdir=%s/l1:%s/l2,upperdir=%s/u,workdir=%s/w", host,
		 host, host, host);
	CHECK(run_server(opt) == 0 && mounted(), "mount with lowerdir=, upperdir=, workdir=");
	snprintf(q, sizeof(q), "%s/a", mnt);
	CHECK(get_file(q, buf, sizeof(buf)) == 6 && !strcmp(buf, "lower1"), "the top lower layer's file hides the next one's");
	snprintf(q, sizeof(q), "%s/b", mnt);
	CHECK(get_file(q, buf, sizeof(buf)) == 2 && !strcmp(buf, "b2"), "a file of the second lower layer");
	CHECK(upper_stat("a", &st) < 0 && upper_stat("b", &st) < 0, "files only read are not copied up");
	int fd = open(q, O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "+", 1) == 1, "append to a lower file");
	if (fd >= 0)
		close(fd);
	CHECK(get_file(q, buf, sizeof(buf)) == 3 && !strcmp(buf, "b2+"), "the mount reads the appended file");
	snprintf(p, sizeof(p), "%s/u/b", host);
	CHECK(get_file(p, buf, sizeof(buf)) == 3 && !strcmp(buf, "b2+"), "copied up to the upper layer");
	snprintf(p, sizeof(p), "%s/l2/b", host);
	CHECK(get_file(p, buf, sizeof(buf)) == 2 && !strcmp(buf, "b2"), "the lower layer unchanged");
	snprintf(q, sizeof(q), "%s/d/f", mnt);
	CHECK(unlink(q) == 0 && access(q, F_OK) && errno == ENOENT, "remove a lower file through the mount");
	CHECK(upper_stat("d/f", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0),
	      "a whiteout (0/0) in the upper layer");
	snprintf(p, sizeof(p), "%s/l2/d/f", host);
	CHECK(access(p, F_OK) == 0, "the lower file stays");
	snprintf(q, sizeof(q), "%s/new", mnt);
	put_file(q, "new");
	CHECK(upper_stat("new", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 3, "a new file is in the upper layer");
	/* Files created after the append above made the kernel open files
	 * without asking (no-open): the kernel sent no RELEASE for them, so
	 * each kept its uvfs file and a host fd until the unmount (tar -x
	 * of /usr/include ran out of fds).  Removed, they must give every
	 * fd back once the kernel forgets them. */
	snprintf(q, sizeof(q), "%s/many", mnt);
	CHECK(mkdir(q, 0755) == 0, "mkdir through the mount");
	int bad = 0;
	for (int i = 0; i < 300; i++) {
		snprintf(q, sizeof(q), "%s/many/f%d", mnt, i);
		fd = open(q, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || write(fd, "made", 4) != 4)
			bad++;
		if (fd >= 0)
			close(fd);
	}
	CHECK(bad == 0, "300 files created and written through the mount");
	bad = 0;
	for (int i = 0; i < 300; i++) {
		snprintf(p, sizeof(p), "%s/u/many/f%d", host, i);
		if (get_file(p, buf, sizeof(buf)) != 4 || strcmp(buf, "made"))
			bad++;
	}
	CHECK(bad == 0, "the created files are in the upper layer");
	bad = 0;
	for (int i = 0; i < 300; i++) {
		snprintf(q, sizeof(q), "%s/many/f%d", mnt, i);
		if (unlink(q))
			bad++;
	}
	CHECK(bad == 0, "the created files removed through the mount");
	/* FORGET and RELEASE are asynchronous: up to 10 s for them */
	int held = -1;
	for (int i = 0; i < 200 && (held = server_fds_of_removed()) != 0; i++)
		usleep(50000);
	CHECK(held == 0, "no fd left on the removed files");
	if (held)
		printf("   %d fds left on removed files\n", held);
	umount_it();
	CHECK(!mounted(), "unmounted");

	snprintf(opt, sizeof(opt), "default_permissions,lowerdir=%s/l1:%s/l2", host, host);
	CHECK(run_server(opt) == 0 && mounted(), "mount with lowerdir= only (read-only)");
	snprintf(q, sizeof(q), "%s/a", mnt);
	CHECK(get_file(q, buf, sizeof(buf)) == 6 && !strcmp(buf, "lower1"), "read-only overlay: read");
	snprintf(q, sizeof(q), "%s/x", mnt);
	CHECK(open(q, O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS, "read-only overlay: create is EROFS");
	umount_it();
	CHECK(!mounted(), "unmounted");

	/* More files read through a hostdir= mount than its fd limit: each
	 * file the kernel knows kept a host fd for its reads, and the reads
	 * past the limit failed with EMFILE.  (Where root may raise the hard
	 * limit, uvfs-fuse does, and this only reads 600 files.) */
	snprintf(p, sizeof(p), "%s/many", host);
	mkdir(p, 0755);
	for (int i = 0; i < 600; i++) {
		snprintf(p, sizeof(p), "%s/many/f%d", host, i);
		put_file(p, "many");
	}
	nofile = 512;
	snprintf(opt, sizeof(opt), "default_permissions,hostdir=%s/many", host);
	CHECK(run_server(opt) == 0 && mounted(), "mount a hostdir= with an fd limit of 512");
	nofile = 0;
	bad = 0;
	for (int i = 0; i < 600; i++) {
		snprintf(q, sizeof(q), "%s/f%d", mnt, i);
		if (get_file(q, buf, sizeof(buf)) != 4 || strcmp(buf, "many"))
			bad++;
	}
	CHECK(bad == 0, "600 files read through it");
	umount_it();
	CHECK(!mounted(), "unmounted");

	rmdir(mnt);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", host);
	if (system(cmd))
		printf("cannot remove %s\n", host);
	return check_done();
}
