// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-fuse-writeback: uvfs-fuse -o default_permissions,writeback (and
 * allow_other, mode=0777) against the host's tmpfs, for a writer who is not the owner of a file mode 0666.
 * The mount's workers do not spin (spin=0): the one FUSE test whose reads
 * sleep at once, as every read did before -o spin.
 * With the writeback cache the kernel keeps mtime and ctime itself and sends
 * them as given times with a truncate, with the data it writes back and in
 * place of a utimensat(NULL); uvfs refused given times to one who is not
 * the owner, so truncate(2), open(O_TRUNC) and utimensat(NULL) by such a
 * writer failed with EPERM through the mount (and a truncate that failed
 * so had been made).  Given times stay refused (the kernel checks them).
 *
 * Skips (never passes) when not root, without /dev/fuse or uvfs-fuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../unit/check.h"
#include "../unit/hostfile.h"
#include "mount.h"

static char mnt[64], host[64];

/* SEEK_DATA and SEEK_HOLE on dir/s while written data is in the kernel's
 * cache (no fsync): a file of 8 KiB written at once, then extended by a
 * write at 16 KiB (no hole: the gap written too), each result as the
 * offset or -errno.  stress-ng's seek stressor found that with -o writeback
 * the mount answered ENXIO from uvfs's stale size (session 8). */
static long long seek_result(int fd, off_t off, int whence)
{
	off_t r = lseek(fd, off, whence);
	return r < 0 ? -errno : (long long)r;
}

static void seeker(const char *dir, char *res, size_t n)
{
	char p[128], buf[8192];
	long long r[8];
	snprintf(p, sizeof(p), "%s/s", dir);
	memset(buf, 'x', sizeof(buf));
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		snprintf(res, n, "open/write: %s", strerror(errno));
		return;
	}
	r[0] = seek_result(fd, 0, SEEK_DATA);
	r[1] = seek_result(fd, 0, SEEK_HOLE);
	r[2] = seek_result(fd, 4096, SEEK_DATA);
	r[3] = seek_result(fd, 8192, SEEK_DATA);
	if (pwrite(fd, buf, sizeof(buf), 8192) != (ssize_t)sizeof(buf) ||
	    pwrite(fd, buf, 100, 16384) != 100) {
		snprintf(res, n, "pwrite: %s", strerror(errno));
		close(fd);
		return;
	}
	r[4] = seek_result(fd, 12000, SEEK_DATA);
	r[5] = seek_result(fd, 12000, SEEK_HOLE);
	r[6] = seek_result(fd, 16484, SEEK_DATA);
	r[7] = seek_result(fd, 16483, SEEK_HOLE);
	close(fd);
	unlink(p);
	snprintf(res, n, "%lld %lld %lld %lld %lld %lld %lld %lld", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
}

/* The writer's calls on dir/w (root's, 0666), as uid 1000, into res:
 * each result as 0 or -errno, then the size and the content. */
static void writer(const char *dir, char *res, size_t n)
{
	char p[128];
	int fd[2];
	snprintf(p, sizeof(p), "%s/w", dir);
	put_file(p, "hello world");
	chmod(p, 0666);
	if (pipe(fd))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char out[512];
		struct timespec given[2] = { { 1000, 0 }, { 2000, 0 } };
		struct stat st = { 0 };
		int r[5], len = 0;
		if (setgid(1000) || setuid(1000))
			_exit(1);
		r[0] = truncate(p, 5) ? -errno : 0;
		int g = open(p, O_WRONLY | O_TRUNC);
		r[1] = g < 0 ? -errno : 0;
		if (g >= 0) {
			r[2] = write(g, "abc", 3) == 3 && fsync(g) == 0 ? 0 : -errno;
			close(g);
		} else {
			r[2] = -EBADF;
		}
		r[3] = utimensat(AT_FDCWD, p, NULL, 0) ? -errno : 0;
		r[4] = utimensat(AT_FDCWD, p, given, 0) ? -errno : 0;
		char data[32] = "";
		g = open(p, O_RDONLY);
		if (g >= 0) {
			ssize_t k = read(g, data, sizeof(data) - 1);
			data[k > 0 ? k : 0] = 0;
			close(g);
		}
		stat(p, &st);
		len = snprintf(out, sizeof(out),
			       "truncate %d, open O_TRUNC %d, write+fsync %d, utimensat(NULL) %d, "
			       "utimensat(given) %d, size %lld, data \"%s\"",
			       r[0], r[1], r[2], r[3], r[4], (long long)st.st_size, data);
		if (write(fd[1], out, (size_t)len) != len)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	ssize_t k = read(fd[0], res, n - 1);
	res[k > 0 ? k : 0] = 0;
	close(fd[0]);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fuse_unavailable(UVFS_FUSE_BIN)) {
		printf("SKIP test-fuse-writeback: needs root, /dev/fuse and uvfs-fuse\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	strcpy(host, "/dev/shm/uvfs-fuse-wb-XXXXXX");
	strcpy(mnt, "/tmp/uvfs-fuse-wb-mnt-XXXXXX");
	if (!mkdtemp(host) || !mkdtemp(mnt))
		return 1;
	chmod(host, 0777);
	if (fuse_run_detached(UVFS_FUSE_BIN, "default_permissions,writeback,allow_other,mode=0777,spin=0", mnt, 0) != 0 ||
	    !fuse_mounted(mnt)) {
		printf("FAIL mount -o default_permissions,writeback,spin=0\n0 passed, 1 failed\n");
		return 1;
	}
	char want[512], got[512];
	writer(host, want, sizeof(want));
	writer(mnt, got, sizeof(got));
	CHECK(!strcmp(want, got) && *want, "a writer who is not the owner, through -o writeback:\n   host:  %s\n   mount: %s",
	      want, got);
	seeker(host, want, sizeof(want));
	seeker(mnt, got, sizeof(got));
	CHECK(!strcmp(want, got) && *want,
	      "SEEK_DATA/SEEK_HOLE on data not yet written back:\n   host:  %s\n   mount: %s", want, got);
	fuse_unmount(mnt, 5);
	rmdir(mnt);
	char p[128];
	snprintf(p, sizeof(p), "%s/w", host);
	unlink(p);
	rmdir(host);
	return check_done();
}
