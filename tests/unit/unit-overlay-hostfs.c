// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-overlay-hostfs: uvfs's overlay over hostfs layers, as uvfs-fuse
 * -o lowerdir= mounts them (a read-only hostfs mount per lower layer, one
 * hostfs mount holding upperdir and workdir).
 *
 *   - bounded fds: 3000 lower files appended to through the overlay (each
 *     one copied up) with fds=64 on both hostfs mounts hold at most the
 *     two mounts' 64 O_PATH fds each, plus the one file open at a time;
 *     everything still reads back as written, through the overlay and on
 *     the host, and the umounts give every fd back.
 */
#include "uvfs.h"
#include "check.h"
#include "hostfile.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES 3000
#define MAXFDS 64

static char top[64]; /* /dev/shm/uvfs-unit-ovlhost-XXXXXX */
static struct uvfs *u;
static struct uvfs_proc *p;

static void test_copy_up_fds(void)
{
	SECTION("fds=64 over 3000 copy-ups");
	char h[200];
	snprintf(h, sizeof(h), "%s/lower", top);
	mkdir(h, 0755);
	for (int i = 0; i < NFILES / 100; i++) {
		char d[240];
		snprintf(d, sizeof(d), "%s/lower/d%02d", top, i);
		mkdir(d, 0755);
		for (int j = 0; j < 100; j++) {
			char f[260], data[16];
			snprintf(f, sizeof(f), "%s/f%02d", d, j);
			snprintf(data, sizeof(data), "%d.%d", i, j);
			put_file(f, data);
		}
	}
	snprintf(h, sizeof(h), "%s/uw", top);
	mkdir(h, 0755);
	snprintf(h, sizeof(h), "%s/uw/u", top);
	mkdir(h, 0755);
	snprintf(h, sizeof(h), "%s/uw/w", top);
	mkdir(h, 0755);

	int before = host_fds_under(top);
	char opts[64];
	snprintf(opts, sizeof(opts), "fds=%d", MAXFDS);
	uvfs_mkdirat(p, AT_FDCWD, "/l", 0755);
	uvfs_mkdirat(p, AT_FDCWD, "/uw", 0755);
	uvfs_mkdirat(p, AT_FDCWD, "/m", 0755);
	snprintf(h, sizeof(h), "%s/lower", top);
	CHECK_EQ(uvfs_mount(p, h, "/l", "hostfs", MS_RDONLY, opts), 0);
	snprintf(h, sizeof(h), "%s/uw", top);
	CHECK_EQ(uvfs_mount(p, h, "/uw", "hostfs", 0, opts), 0);
	CHECK_EQ(uvfs_mount(p, "overlay", "/m", "overlay", 0, "lowerdir=/l,upperdir=/uw/u,workdir=/uw/w"), 0);

	int most = 0, bad = 0;
	for (int i = 0; i < NFILES / 100; i++)
		for (int j = 0; j < 100; j++) {
			char path[64], data[16];
			snprintf(path, sizeof(path), "/m/d%02d/f%02d", i, j);
			snprintf(data, sizeof(data), "+%d", j);
			int fd = uvfs_openat(p, AT_FDCWD, path, O_WRONLY | O_APPEND, 0);
			if (fd < 0 || uvfs_write(p, fd, data, strlen(data)) != (long)strlen(data))
				bad++;
			if (fd >= 0)
				uvfs_close(p, fd);
			int n = host_fds_under(top) - before;
			if (n > most)
				most = n;
		}
	CHECK_EQ(bad, 0);
	/* each mount's O_PATH fds, and the one file open for the write */
	CHECK(most <= 2 * MAXFDS + 1, "%d host fds held", most);
	printf("   host fds held at most: %d\n", most);

	/* what was written, through the overlay and on the host's upper dir */
	int wrong = 0;
	for (int i = 0; i < NFILES / 100; i++)
		for (int j = 0; j < 100; j++) {
			char path[300], want[32], buf[32];
			snprintf(want, sizeof(want), "%d.%d+%d", i, j, j);
			snprintf(path, sizeof(path), "/m/d%02d/f%02d", i, j);
			int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
			long r = fd < 0 ? fd : uvfs_read(p, fd, buf, sizeof(buf) - 1);
			buf[r > 0 ? r : 0] = 0;
			if (fd >= 0)
				uvfs_close(p, fd);
			if (strcmp(buf, want))
				wrong++;
			snprintf(path, sizeof(path), "%s/uw/u/d%02d/f%02d", top, i, j);
			fd = open(path, O_RDONLY);
			r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
			buf[r > 0 ? r : 0] = 0;
			if (fd >= 0)
				close(fd);
			if (strcmp(buf, want))
				wrong++;
			int n = host_fds_under(top) - before;
			if (n > most)
				most = n;
		}
	CHECK_EQ(wrong, 0);
	CHECK(most <= 2 * MAXFDS + 1, "%d host fds held", most);
	/* new names beside the copies, as tar -x makes them */
	bad = 0;
	for (int i = 0; i < NFILES / 100; i++)
		for (int j = 0; j < 100; j++) {
			char path[64], data[16];
			snprintf(path, sizeof(path), "/m/d%02d/n%02d", i, j);
			snprintf(data, sizeof(data), "n%d", j);
			int fd = uvfs_openat(p, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0 || uvfs_write(p, fd, data, strlen(data)) != (long)strlen(data))
				bad++;
			if (fd >= 0)
				uvfs_close(p, fd);
			int n = host_fds_under(top) - before;
			if (n > most)
				most = n;
		}
	CHECK_EQ(bad, 0);
	CHECK(most <= 2 * MAXFDS + 1, "%d host fds held", most);
	printf("   host fds held at most: %d\n", most);
	CHECK_EQ(uvfs_umount2(p, "/m", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/uw", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/l", 0), 0);
	CHECK_EQ(host_fds_under(top), before);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP unit-overlay-hostfs: needs root (trusted.overlay.* xattrs on the host)\n"
		       "0 passed, 0 failed\n");
		return 0;
	}
	strcpy(top, "/dev/shm/uvfs-unit-ovlhost-XXXXXX");
	if (!mkdtemp(top))
		return 1;
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	test_copy_up_fds();
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		printf("could not remove %s\n", top);
	return check_done();
}
