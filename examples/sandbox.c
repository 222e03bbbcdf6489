/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sandbox.c - a program's view of the host's /usr and /etc, read-only, with
 * a private writable layer on top: what a sandbox or a test runner puts in
 * front of real files.
 *
 * The host directories are mounted with hostfs (read-only: nothing the
 * sandbox does can reach them) and each is the lower layer of an overlay
 * whose upper layer is a tmpfs of the instance.  A proc whose root is the
 * sandbox sees the host's files, may change any of them, and its changes
 * land in the upper layer only: a write copies the file up, a removal
 * leaves a whiteout.  The host tree is checked to be unchanged afterwards.
 *
 *   /                    the instance's tmpfs
 *   /host/usr, /host/etc hostfs, read-only, of the host's /usr and /etc
 *   /rw                  a tmpfs: usr/{upper,work}, etc/{upper,work}
 *   /sandbox             the proc's root: usr and etc are overlays,
 *                        lib -> usr/lib as on the host, tmp a tmpfs
 *
 * Prints "N passed, N failed" and exits non-zero when a check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uvfs.h>

static int passed, failed;

#define CHECK(cond) do { \
	if (cond) \
		passed++; \
	else { \
		failed++; \
		printf("FAIL %s:%d: %s\n", __func__, __LINE__, #cond); \
	} \
} while (0)

/* mkdir -p of an absolute path in the instance */
static int mkdirs(struct uvfs_proc *p, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = 0;
			int err = uvfs_mkdirat(p, AT_FDCWD, buf, 0755);
			if (err && err != -EEXIST)
				return err;
			if (!c)
				return 0;
			*s = c;
		}
	}
}

/* The host directory dir (e.g. "usr") as /sandbox/dir: read-only hostfs
 * below, a tmpfs upper layer above. */
static int layer(struct uvfs_proc *p, const char *dir)
{
	char host[64], lower[64], upper[64], work[64], merged[64], opts[256];
	snprintf(host, sizeof(host), "/%s", dir);
	snprintf(lower, sizeof(lower), "/host/%s", dir);
	snprintf(upper, sizeof(upper), "/rw/%s/upper", dir);
	snprintf(work, sizeof(work), "/rw/%s/work", dir);
	snprintf(merged, sizeof(merged), "/sandbox/%s", dir);
	int err;
	if ((err = mkdirs(p, lower)) || (err = mkdirs(p, upper)) || (err = mkdirs(p, work)) ||
	    (err = mkdirs(p, merged)))
		return err;
	if ((err = uvfs_mount(p, host, lower, "hostfs", MS_RDONLY, NULL)))
		return err;
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	return uvfs_mount(p, "overlay", merged, "overlay", 0, opts);
}

static int make_sandbox(struct uvfs_proc *admin)
{
	int err;
	if ((err = mkdirs(admin, "/rw")) || (err = uvfs_mount(admin, "none", "/rw", "tmpfs", 0, NULL)))
		return err;
	if ((err = layer(admin, "usr")) || (err = layer(admin, "etc")))
		return err;
	if ((err = uvfs_symlinkat(admin, "usr/lib", AT_FDCWD, "/sandbox/lib")))
		return err;
	if ((err = mkdirs(admin, "/sandbox/tmp")))
		return err;
	return uvfs_mount(admin, "none", "/sandbox/tmp", "tmpfs", 0, NULL);
}

int main(void)
{
	struct stat host_before, st;
	if (stat("/etc/hostname", &host_before) != 0 || access("/usr/local", F_OK) != 0 ||
	    access("/usr/include/stdio.h", R_OK) != 0) {
		printf("the host has no /etc/hostname, /usr/local or /usr/include/stdio.h\n0 passed, 1 failed\n");
		return 1;
	}
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *admin = uvfs_proc_create(fs, 0, 0);
	int err = make_sandbox(admin);
	CHECK(err == 0);
	if (err) {
		printf("making the sandbox: %s\n", strerror(-err));
		return 1;
	}

	/* the program: its root is the sandbox */
	struct uvfs_proc *prog = uvfs_proc_create(fs, 0, 0);
	CHECK(uvfs_chroot(prog, "/sandbox") == 0);
	CHECK(uvfs_chdir(prog, "/tmp") == 0);

	/* it sees the host's files, through the symlink too */
	CHECK(uvfs_fstatat(prog, AT_FDCWD, "/etc/hostname", &st, 0) == 0 && st.st_size == host_before.st_size);
	CHECK(uvfs_fstatat(prog, AT_FDCWD, "/lib", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
	CHECK(uvfs_fstatat(prog, AT_FDCWD, "/lib/", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK(uvfs_faccessat(prog, AT_FDCWD, "/usr/bin", X_OK, 0) == 0);
	/* a header a compiler would read: the same bytes as on the host */
	static char want[1 << 16], got[1 << 16];
	int hfd = open("/usr/include/stdio.h", O_RDONLY);
	ssize_t wn = hfd >= 0 ? read(hfd, want, sizeof(want)) : -1;
	if (hfd >= 0)
		close(hfd);
	int fd = uvfs_openat(prog, AT_FDCWD, "/usr/include/stdio.h", O_RDONLY, 0);
	ssize_t gn = fd >= 0 ? uvfs_read(prog, fd, got, sizeof(got)) : fd;
	CHECK(wn > 0 && gn == wn && memcmp(want, got, (size_t)wn) == 0);
	if (fd >= 0)
		uvfs_close(prog, fd);

	/* a change of a host file is the sandbox's own: copied up */
	char host_text[256] = "", text[256] = "";
	hfd = open("/etc/hostname", O_RDONLY);
	ssize_t hn = hfd >= 0 ? read(hfd, host_text, sizeof(host_text) - 1) : -1;
	if (hfd >= 0)
		close(hfd);
	fd = uvfs_openat(prog, AT_FDCWD, "/etc/hostname", O_WRONLY | O_APPEND, 0);
	CHECK(fd >= 0);
	CHECK(uvfs_write(prog, fd, "sandboxed\n", 10) == 10);
	uvfs_close(prog, fd);
	fd = uvfs_openat(prog, AT_FDCWD, "/etc/hostname", O_RDONLY, 0);
	CHECK(fd >= 0 && uvfs_read(prog, fd, text, sizeof(text) - 1) == hn + 10);
	CHECK(hn >= 0 && memcmp(text, host_text, (size_t)hn) == 0 && memcmp(text + hn, "sandboxed\n", 10) == 0);
	uvfs_close(prog, fd);
	CHECK(uvfs_fstatat(admin, AT_FDCWD, "/rw/etc/upper/hostname", &st, 0) == 0);

	/* new files and removals land in the upper layer only */
	fd = uvfs_openat(prog, AT_FDCWD, "/usr/local/sandbox-new-file", O_CREAT | O_EXCL | O_WRONLY, 0644);
	CHECK(fd >= 0);
	uvfs_close(prog, fd);
	CHECK(uvfs_unlinkat(prog, AT_FDCWD, "/etc/hostname", 0) == 0);
	CHECK(uvfs_fstatat(prog, AT_FDCWD, "/etc/hostname", &st, 0) == -ENOENT);
	/* the whiteout: a character device 0/0 in the upper layer */
	CHECK(uvfs_fstatat(admin, AT_FDCWD, "/rw/etc/upper/hostname", &st, 0) == 0 && S_ISCHR(st.st_mode) &&
	      st.st_rdev == 0);
	/* and the read-only host layer refuses writes of its own */
	CHECK(uvfs_openat(admin, AT_FDCWD, "/host/etc/hostname", O_WRONLY, 0) == -EROFS);

	/* the host is as it was */
	CHECK(stat("/etc/hostname", &st) == 0 && st.st_size == host_before.st_size &&
	      st.st_mtim.tv_sec == host_before.st_mtim.tv_sec && st.st_mtim.tv_nsec == host_before.st_mtim.tv_nsec);
	CHECK(access("/usr/local/sandbox-new-file", F_OK) != 0 && errno == ENOENT);

	uvfs_destroy(fs);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
