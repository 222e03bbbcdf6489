// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-hostfs: a host directory mounted with hostfs (src/fs/hostfs).
 *
 *   - mount errors: a source that does not exist (ENOENT), is not a
 *     directory (ENOTDIR), cannot be opened (EACCES, as an unprivileged
 *     library), unknown and conflicting options (EINVAL);
 *   - confinement: every known way out of the source directory is tried
 *     (absolute and relative symlinks out, ".." chains, a directory
 *     swapped for a symlink between two calls in both cache modes and
 *     with its fd given up by the LRU, a hard link to an outside file that
 *     the host already had, a host mount inside the source, symlinks to
 *     /proc magic links, a procfs mounted inside the source); none reaches
 *     outside.  The check needs no tracing: the outside file's inode number
 *     never appears (but through the hard link, which is that inode, as on
 *     the host), its atime (set to the past) never moves, its directory
 *     gains no name, and what uvfs reads is never its contents;
 *   - identity: hard links are one inode, st_ino is the host's;
 *   - bounded fds: fds=16 over a tree of 2000 files holds at most 16 host
 *     O_PATH fds however much of it is cached, and everything still opens;
 *     nodes whose fds are in use (100 files open, one unlinked, one made
 *     by O_TMPFILE and linked in) leave the fd LRU and come back, so the
 *     bound holds again once they are closed;
 *   - host errors: a file removed on the host while open keeps working,
 *     ENOSPC of a full host filesystem comes back as ENOSPC, EIO of a host
 *     file (/proc/PID/mem where nothing is mapped) as EIO, EDQUOT of an
 *     ext4 image with a user quota (the library as that user) as EDQUOT;
 *   - xattrs cache=exclusive knows absent (security.capability of a file it
 *     made, an ENODATA of security.selinux) show once set through uvfs and
 *     go once removed; cache=watch sees a host's set;
 *   - cache=revalidate sees the host's changes, cache=exclusive keeps its
 *     cache (failed lookups too); a walk that ends on "." or ".." takes the
 *     host's attributes too (d_weak_revalidate);
 *   - four threads over fds=8: stat, read, create, remove, failed lookups;
 *   - file handles: the host's bytes; an outside file's handle and one of
 *     an object uvfs has not met are ESTALE;
 *   - the cost of a cached stat on hostfs beside tmpfs (printed).
 */
#include "uvfs.h"
#include "check.h"
#include "hostfile.h"
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <sys/quota.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char top[64];           /* /dev/shm/uvfs-unit-hostfs-XXXXXX */
static char src[128], out[128]; /* top/src (the source), top/out (outside) */
static char secret[160];       /* out/secret */
static ino_t secret_ino;

static void hpath(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", src, rel);
}

/* uvfs read of a whole small file into buf: the byte count or -errno */
static long u_cat(struct uvfs_proc *p, const char *path, char *buf, size_t n)
{
	int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	long r = uvfs_read(p, fd, buf, n - 1);
	buf[r > 0 ? r : 0] = 0;
	uvfs_close(p, fd);
	return r;
}

static struct uvfs *u;
static struct uvfs_proc *p;

static int mount_at(const char *target, const char *source, const char *opts)
{
	uvfs_mkdirat(p, AT_FDCWD, target, 0755);
	return uvfs_mount(p, source, target, "hostfs", 0, opts);
}

static void test_mount_errors(void)
{
	SECTION("mount errors");
	char path[200];
	uvfs_mkdirat(p, AT_FDCWD, "/e", 0755);
	snprintf(path, sizeof(path), "%s/nonexistent", top);
	CHECK_ERR(uvfs_mount(p, path, "/e", "hostfs", 0, NULL), ENOENT);
	CHECK_ERR(uvfs_mount(p, secret, "/e", "hostfs", 0, NULL), ENOTDIR);
	CHECK_ERR(uvfs_mount(p, NULL, "/e", "hostfs", 0, NULL), EINVAL);
	CHECK_ERR(uvfs_mount(p, src, "/e", "hostfs", 0, "bogus"), EINVAL);
	CHECK_ERR(uvfs_mount(p, src, "/e", "hostfs", 0, "cache=exclusive,cache=revalidate"), EINVAL);
	CHECK_ERR(uvfs_mount(p, src, "/e", "hostfs", 0, "cache=bogus"), EINVAL);
	CHECK_ERR(uvfs_mount(p, src, "/e", "hostfs", 0, "cache=watch,cache=exclusive"), EINVAL);
	CHECK_ERR(uvfs_mount(p, src, "/e", "hostfs", 0, "fds=abc"), EINVAL);
	CHECK_ERR(uvfs_mount(p, src, "/e", "hostfs", 0, "fds=1"), EINVAL);
	CHECK_EQ(uvfs_mount(p, src, "/e", "hostfs", 0, "cache=exclusive,cache=exclusive,fds=64"), 0);
	CHECK_EQ(uvfs_umount2(p, "/e", 0), 0);
	/* EACCES: the library as an unprivileged process, a directory it
	 * may not open */
	snprintf(path, sizeof(path), "%s/closed", top);
	mkdir(path, 0700);
	pid_t pid = fork();
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(uvfs_mount(p, path, "/e", "hostfs", 0, NULL) == -EACCES ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}

/* The outside file was not reached: no read moved its atime, its
 * directory gained nothing. */
static struct timespec secret_atime = { 1000000, 0 };
static void check_outside_untouched(const char *when)
{
	struct stat st;
	CHECK(stat(secret, &st) == 0 && st.st_atim.tv_sec == secret_atime.tv_sec, "%s: atime %ld", when,
	      (long)st.st_atim.tv_sec);
	DIR *d = opendir(out);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n++;
	if (d)
		closedir(d);
	CHECK(n == 3, "%s: %d names outside", when, n); /* ".", "..", secret */
}

/* An attempt to reach the secret through path: whatever it returns, it is
 * not the secret's inode or contents. */
static void try_path(const char *path)
{
	struct stat st;
	char buf[64];
	int r = uvfs_fstatat(p, AT_FDCWD, path, &st, 0);
	CHECK(r < 0 || st.st_ino != secret_ino, "%s: stat reached the outside inode", path);
	long n = u_cat(p, path, buf, sizeof(buf));
	CHECK(n < 0 || strcmp(buf, "SECRET"), "%s: read the outside data", path);
	int fd = uvfs_openat(p, AT_FDCWD, path, O_WRONLY | O_TRUNC, 0);
	if (fd >= 0)
		uvfs_close(p, fd);
	r = uvfs_lgetxattr(p, path, "user.secret", buf, sizeof(buf));
	CHECK(r < 0, "%s: read the outside xattr", path);
}

static void test_escapes(void)
{
	SECTION("confinement");
	char h[300], b[400];
	/* symlinks out: their bodies are uvfs paths */
	snprintf(b, sizeof(b), "%s", secret);
	hpath(h, sizeof(h), "abs");
	CHECK_EQ(symlink(b, h), 0);
	hpath(h, sizeof(h), "rel");
	CHECK_EQ(symlink("../out/secret", h), 0);
	hpath(h, sizeof(h), "reldir");
	CHECK_EQ(symlink("../out", h), 0);
	hpath(h, sizeof(h), "deep");
	CHECK_EQ(symlink("../../../../../../../../../../out/secret", h), 0);
	snprintf(b, sizeof(b), "/proc/self/root%s", secret);
	hpath(h, sizeof(h), "procroot");
	CHECK_EQ(symlink(b, h), 0);
	hpath(h, sizeof(h), "procfd");
	CHECK_EQ(symlink("/proc/self/fd/3", h), 0);
	/* a hard link the host already had */
	hpath(h, sizeof(h), "hard");
	CHECK_EQ(link(secret, h), 0);
	/* a host mount inside the source, and a procfs there */
	hpath(h, sizeof(h), "mnt");
	mkdir(h, 0755);
	CHECK_EQ(mount("tmpfs", h, "tmpfs", 0, "size=64k"), 0);
	snprintf(b, sizeof(b), "%s/inside-mount", h);
	put_file(b, "MOUNTED");
	hpath(h, sizeof(h), "proc");
	mkdir(h, 0755);
	CHECK_EQ(mount("proc", h, "proc", 0, NULL), 0);
	hpath(h, sizeof(h), "sw");
	mkdir(h, 0755);
	hpath(h, sizeof(h), "sw/file");
	put_file(h, "inside");
	setxattr(secret, "user.secret", "S", 1, 0);
	struct timespec ts[2] = { secret_atime, secret_atime };
	utimensat(AT_FDCWD, secret, ts, 0);
	struct stat st;
	stat(secret, &st);
	secret_ino = st.st_ino;

	CHECK_EQ(mount_at("/x", src, "cache=exclusive"), 0);
	CHECK_EQ(mount_at("/r", src, "cache=revalidate,fds=4"), 0);
	const char *const roots[] = { "/x", "/r" };
	for (int i = 0; i < 2; i++) {
		const char *m = roots[i];
		char path[128];
		const char *const tries[] = { "abs", "rel", "reldir/secret", "deep", "procroot", "procfd", "..",
					      "../out/secret", "../../../../../out/secret", "./../../out/secret",
					      "mnt/inside-mount", "proc/self/root", "proc/self/cwd/secret",
					      "sw/../../out/secret" };
		for (size_t k = 0; k < sizeof(tries) / sizeof(tries[0]); k++) {
			snprintf(path, sizeof(path), "%s/%s", m, tries[k]);
			try_path(path);
		}
		/* the symlinks are uvfs symlinks: their bodies as the host has them */
		char body[256];
		snprintf(path, sizeof(path), "%s/rel", m);
		long n = uvfs_readlinkat(p, AT_FDCWD, path, body, sizeof(body));
		CHECK(n == 13 && !memcmp(body, "../out/secret", 13), "readlink %ld", n);
		/* ".." of the mount root is the uvfs parent, not the host's */
		struct stat a, r0;
		snprintf(path, sizeof(path), "%s/..", m);
		CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, path, &a, 0), 0);
		CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/", &r0, 0), 0);
		CHECK(a.st_ino == r0.st_ino && a.st_dev == r0.st_dev, "%s/.. is not /", m);
		/* a host mount inside the source is not crossed */
		snprintf(path, sizeof(path), "%s/mnt", m);
		CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, path, &a, 0), EXDEV);
		snprintf(path, sizeof(path), "%s/proc", m);
		CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, path, &a, 0), EXDEV);
		/* creating through a symlink out creates in the uvfs tree or fails */
		snprintf(path, sizeof(path), "%s/reldir/new", m);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		CHECK(fd < 0, "created through %s", path);
		snprintf(path, sizeof(path), "%s/reldir", m);
		CHECK(uvfs_mkdirat(p, AT_FDCWD, path, 0755) == -EEXIST, "mkdir over the link");
		/* the hard link is the outside inode itself, as on the host */
		snprintf(path, sizeof(path), "%s/hard", m);
		CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, path, &a, 0), 0);
		CHECK_EQ(a.st_ino, secret_ino);
		CHECK_EQ(a.st_nlink, 2);
	}
	check_outside_untouched("after the symlink, dotdot and mount tries");

	/* a directory swapped for a symlink out between two calls */
	char path[128];
	struct stat a;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/x/sw/file", &a, 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/r/sw/file", &a, 0), 0);
	char h2[300];
	hpath(h, sizeof(h), "sw");
	hpath(h2, sizeof(h2), "sw.old");
	CHECK_EQ(rename(h, h2), 0);
	CHECK_EQ(symlink("../out", h), 0);
	/* exclusive: the cached directory is the old one, still inside */
	char buf[64];
	CHECK_EQ(u_cat(p, "/x/sw/file", buf, sizeof(buf)), 6);
	CHECK(!strcmp(buf, "inside"), "read %s", buf);
	try_path("/x/sw/secret");
	/* revalidate: the walk sees the symlink, a uvfs one */
	try_path("/r/sw/secret");
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/r/sw/file", &a, 0), ENOENT);
	struct stat lst;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/r/sw", &lst, AT_SYMLINK_NOFOLLOW), 0);
	CHECK(S_ISLNK(lst.st_mode), "mode %o", lst.st_mode);
	/* with its fd given up by the LRU, a cached directory is opened again
	 * by its name, which now names the symlink: stale, never followed */
	CHECK_EQ(mount_at("/l", src, "fds=4"), 0);
	hpath(h, sizeof(h), "sw");
	unlink(h);
	CHECK_EQ(rename(h2, h), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/l/sw/file", &a, 0), 0);
	for (int i = 0; i < 8; i++) {
		char hd[200];
		snprintf(hd, sizeof(hd), "%s/d%d", src, i);
		mkdir(hd, 0755);
		snprintf(path, sizeof(path), "/l/d%d/none", i);
		uvfs_fstatat(p, AT_FDCWD, path, &a, 0);
	}
	CHECK_EQ(rename(h, h2), 0);
	CHECK_EQ(symlink("../out", h), 0);
	int r = uvfs_fstatat(p, AT_FDCWD, "/l/sw/secret", &a, 0);
	CHECK(r == -ESTALE || r == -ENOENT, "stat through a swapped name: %d", r);
	try_path("/l/sw/secret");
	int fd = uvfs_openat(p, AT_FDCWD, "/l/sw/new", O_CREAT | O_WRONLY, 0644);
	CHECK(fd < 0, "created through the swapped name");
	check_outside_untouched("after the swaps");
	CHECK_EQ(uvfs_umount2(p, "/l", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/x", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/r", 0), 0);
	hpath(h, sizeof(h), "mnt");
	umount(h);
	hpath(h, sizeof(h), "proc");
	umount(h);
}

static void test_identity_and_data(void)
{
	SECTION("identity, data, xattrs, host errors");
	CHECK_EQ(mount_at("/m", src, NULL), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/m/a", O_CREAT | O_RDWR, 0640);
	CHECK(fd >= 0, "create %d", fd);
	CHECK_EQ(uvfs_write(p, fd, "hello", 5), 5);
	CHECK_EQ(uvfs_linkat(p, AT_FDCWD, "/m/a", AT_FDCWD, "/m/b", 0), 0);
	struct stat ua, ub, ha;
	char h[300];
	hpath(h, sizeof(h), "a");
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/m/a", &ua, 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/m/b", &ub, 0), 0);
	CHECK_EQ(stat(h, &ha), 0);
	CHECK_EQ(ua.st_ino, ha.st_ino);
	CHECK_EQ(ub.st_ino, ha.st_ino);
	CHECK_EQ(ua.st_nlink, 2);
	CHECK_EQ(ha.st_nlink, 2);
	CHECK_EQ(ha.st_mode & 07777, 0640);
	CHECK_EQ(ha.st_size, 5);
	/* xattrs reach the host object */
	CHECK_EQ(uvfs_setxattr(p, "/m/a", "user.k", "v1", 2, 0), 0);
	char v[8] = "";
	CHECK_EQ(getxattr(h, "user.k", v, sizeof(v)), 2);
	CHECK(!memcmp(v, "v1", 2), "host xattr %s", v);
	CHECK_ERR(uvfs_lsetxattr(p, "/m/rel", "user.k", "v", 1, 0), EPERM);
	/* removed on the host while open: the fd keeps working */
	CHECK_EQ(unlink(h), 0);
	hpath(h, sizeof(h), "b");
	CHECK_EQ(unlink(h), 0);
	CHECK_EQ(uvfs_pwrite(p, fd, "HE", 2, 0), 2);
	char buf[16] = "";
	CHECK_EQ(uvfs_pread(p, fd, buf, sizeof(buf), 0), 5);
	CHECK(!memcmp(buf, "HEllo", 5), "read %s", buf);
	CHECK_EQ(uvfs_close(p, fd), 0);
	/* ENOSPC from a full host filesystem */
	hpath(h, sizeof(h), "small");
	mkdir(h, 0755);
	CHECK_EQ(mount("tmpfs", h, "tmpfs", 0, "size=64k"), 0);
	CHECK_EQ(mount_at("/s", h, NULL), 0);
	fd = uvfs_openat(p, AT_FDCWD, "/s/big", O_CREAT | O_WRONLY, 0644);
	static char chunk[65536];
	long w, total = 0;
	while ((w = uvfs_write(p, fd, chunk, sizeof(chunk))) > 0)
		total += w;
	CHECK_ERR(w, ENOSPC);
	CHECK(total <= 65536, "wrote %ld", total);
	struct statfs sf;
	CHECK_EQ(uvfs_statfs(p, "/s", &sf), 0);
	CHECK_EQ(sf.f_blocks, 16);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_umount2(p, "/s", 0), 0);
	umount(h);
	CHECK_EQ(uvfs_umount2(p, "/m", 0), 0);
}

static void test_fd_bound(void)
{
	SECTION("fds=16 over 2000 files");
	char h[300];
	hpath(h, sizeof(h), "tree");
	mkdir(h, 0755);
	for (int i = 0; i < 50; i++) {
		char d[320];
		snprintf(d, sizeof(d), "%s/d%02d", h, i);
		mkdir(d, 0755);
		for (int j = 0; j < 40; j++) {
			char f[340], data[16];
			snprintf(f, sizeof(f), "%s/f%02d", d, j);
			snprintf(data, sizeof(data), "%d.%d", i, j);
			put_file(f, data);
		}
	}
	int before = host_fds_under(top);
	CHECK_EQ(uvfs_mount(p, h, "/e", "hostfs", 0, "fds=16"), 0);
	int most = 0, bad = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 50; i++)
			for (int j = 0; j < 40; j++) {
				char path[64], buf[16], want[16];
				snprintf(path, sizeof(path), "/e/d%02d/f%02d", i, j);
				snprintf(want, sizeof(want), "%d.%d", i, j);
				struct stat st;
				if (uvfs_fstatat(p, AT_FDCWD, path, &st, 0) || u_cat(p, path, buf, sizeof(buf)) < 0 ||
				    strcmp(buf, want))
					bad++;
				int n = host_fds_under(top) - before;
				if (n > most)
					most = n;
			}
	CHECK_EQ(bad, 0);
	/* 16 O_PATH fds, at most one more per file open for the read */
	CHECK(most <= 17, "%d host fds held", most);
	printf("   host fds held at most: %d\n", most);
	CHECK_EQ(uvfs_umount2(p, "/e", 0), 0);
	CHECK_EQ(host_fds_under(top), before);
}

/* cache=exclusive remembers that a file has no security.capability (the
 * kernel asks a FUSE server at every first write and chown) and no
 * security.selinux (ls asks per entry), hostfs_xattr.c: a value uvfs sets
 * afterwards, and its removal, show at once.  cache=watch asks the host
 * each time, so a capability set on the host behind it shows too. */
static void test_xattr_absent(void)
{
	SECTION("xattrs known absent: set and removed through uvfs, set on the host");
	/* VFS_CAP_REVISION_2, no flags; permitted CAP_NET_RAW (13) */
	static const unsigned char cap[20] = { 0x00, 0x00, 0x00, 0x02, 0x00, 0x20 };
	static const char *const modes[] = { "cache=exclusive", "cache=watch" };
	static const char *const names[] = { "security.capability", "security.selinux" };
	for (int m = 0; m < 2; m++) {
		CHECK_EQ(mount_at("/xa", src, modes[m]), 0);
		for (int n = 0; n < 2; n++) {
			char path[32], h[300], v[64];
			snprintf(path, sizeof(path), "/xa/xa%d", n);
			int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, 0755);
			CHECK(fd >= 0);
			/* twice: the second answer is the remembered one */
			for (int i = 0; i < 2; i++)
				CHECK_ERR(uvfs_getxattr(p, path, names[n], v, sizeof(v)), ENODATA);
			CHECK_EQ(uvfs_write(p, fd, "x", 1), 1);
			CHECK_EQ(uvfs_setxattr(p, path, names[n], cap, sizeof(cap), 0), 0);
			CHECK_EQ(uvfs_getxattr(p, path, names[n], v, sizeof(v)), (long)sizeof(cap));
			CHECK(!memcmp(v, cap, sizeof(cap)), "%s: the value set", names[n]);
			CHECK_EQ(uvfs_removexattr(p, path, names[n]), 0);
			CHECK_ERR(uvfs_getxattr(p, path, names[n], v, sizeof(v)), ENODATA);
			CHECK_ERR(uvfs_getxattr(p, path, names[n], v, sizeof(v)), ENODATA);
			uvfs_close(p, fd);
			snprintf(h, sizeof(h), "%s/xa%d", src, n);
			if (m == 1) {
				/* set on the host: cache=watch asks the host */
				CHECK_EQ(setxattr(h, names[n], cap, sizeof(cap), 0), 0);
				CHECK_EQ(uvfs_getxattr(p, path, names[n], v, sizeof(v)), (long)sizeof(cap));
			}
			unlink(h);
		}
		CHECK_EQ(uvfs_umount2(p, "/xa", 0), 0);
	}
}

/* chattr flags on the host object (the host's FS_IOC_SETFLAGS). */
static int host_setflags(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = ioctl(fd, FS_IOC_SETFLAGS, &flags) ? -errno : 0;
	close(fd);
	return r;
}

/*
 * Flags the host set before uvfs met the object: the inode takes them from
 * the lookup's statx (stx_attributes), so the VFS refuses at open, as Linux
 * does, not at the first write, and statx shows them.  Through uvfs's own
 * FS_IOC_SETFLAGS they reach the host.
 */
static void test_host_flags(void)
{
	SECTION("chattr flags: set on the host before the lookup, and through uvfs");
	char hi[300], ha[300];
	hpath(hi, sizeof(hi), "imm");
	hpath(ha, sizeof(ha), "app");
	put_file(hi, "i");
	put_file(ha, "a");
	if (host_setflags(hi, FS_IMMUTABLE_FL) || host_setflags(ha, FS_APPEND_FL)) {
		CHECK(false, "the host's tmpfs takes chattr flags (Linux 6.0 and later)");
		return;
	}
	CHECK_EQ(mount_at("/fl", src, "cache=exclusive"), 0);
	struct statx x;
	CHECK_EQ(uvfs_statx(p, AT_FDCWD, "/fl/imm", 0, STATX_BASIC_STATS, &x), 0);
	CHECK(x.stx_attributes & STATX_ATTR_IMMUTABLE, "statx: immutable");
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, "/fl/imm", O_WRONLY, 0), EPERM);
	CHECK_ERR(uvfs_unlinkat(p, AT_FDCWD, "/fl/imm", 0), EPERM);
	CHECK_ERR(uvfs_fchmodat(p, AT_FDCWD, "/fl/imm", 0600, 0), EPERM);
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, "/fl/app", O_WRONLY, 0), EPERM);
	int fd = uvfs_openat(p, AT_FDCWD, "/fl/app", O_WRONLY | O_APPEND, 0);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "b", 1), 1);
	CHECK_ERR(uvfs_fcntl(p, fd, F_SETFL, 0), EPERM);
	uvfs_close(p, fd);
	char buf[16];
	CHECK_EQ(u_cat(p, "/fl/app", buf, sizeof(buf)), 2);
	CHECK(!strcmp(buf, "ab"), "appended: %s", buf);
	/* uvfs clears them; the host has none left */
	int flags = 0;
	fd = uvfs_openat(p, AT_FDCWD, "/fl/imm", O_RDONLY, 0);
	CHECK_EQ(uvfs_ioctl(p, fd, FS_IOC_SETFLAGS, &flags), 0);
	uvfs_close(p, fd);
	fd = uvfs_openat(p, AT_FDCWD, "/fl/app", O_RDONLY, 0);
	CHECK_EQ(uvfs_ioctl(p, fd, FS_IOC_SETFLAGS, &flags), 0);
	uvfs_close(p, fd);
	int hfd = open(hi, O_RDONLY | O_CLOEXEC);
	flags = -1;
	CHECK_EQ(ioctl(hfd, FS_IOC_GETFLAGS, &flags), 0);
	CHECK_EQ(flags & (FS_IMMUTABLE_FL | FS_APPEND_FL), 0);
	close(hfd);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/fl/imm", 0), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/fl/app", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/fl", 0), 0);

	/* cache=revalidate: a flag the host sets after the lookup shows at the
	 * next stat, which asks the host, and the VFS then refuses at open;
	 * cleared on the host, it goes the same way */
	put_file(hi, "i");
	CHECK_EQ(mount_at("/fl", src, "cache=revalidate"), 0);
	fd = uvfs_openat(p, AT_FDCWD, "/fl/imm", O_WRONLY, 0);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	CHECK_EQ(host_setflags(hi, FS_IMMUTABLE_FL), 0);
	CHECK_EQ(uvfs_statx(p, AT_FDCWD, "/fl/imm", 0, STATX_BASIC_STATS, &x), 0);
	CHECK(x.stx_attributes & STATX_ATTR_IMMUTABLE, "statx after the host's chattr +i: immutable");
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, "/fl/imm", O_WRONLY, 0), EPERM);
	CHECK_EQ(host_setflags(hi, 0), 0);
	CHECK_EQ(uvfs_statx(p, AT_FDCWD, "/fl/imm", 0, STATX_BASIC_STATS, &x), 0);
	CHECK(!(x.stx_attributes & STATX_ATTR_IMMUTABLE), "statx after the host's chattr -i: not immutable");
	fd = uvfs_openat(p, AT_FDCWD, "/fl/imm", O_WRONLY, 0);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_umount2(p, "/fl", 0), 0);
	host_setflags(hi, 0);
	host_setflags(ha, 0);
	unlink(hi);
	unlink(ha);
}

/* Nodes in use are off the fd LRU (hostfs_node.c) and must come back to it
 * when their last user goes, or the fds they hold stay past the bound. */
static void test_fd_busy(void)
{
	SECTION("fds=16: nodes in use leave the fd LRU and come back");
	char h[300];
	hpath(h, sizeof(h), "busy");
	mkdir(h, 0755);
	for (int i = 0; i < 200; i++) {
		char f[340], data[16];
		snprintf(f, sizeof(f), "%s/f%03d", h, i);
		snprintf(data, sizeof(data), "b%d", i);
		put_file(f, data);
	}
	int before = host_fds_under(top);
	CHECK_EQ(uvfs_mount(p, h, "/e", "hostfs", 0, "fds=16"), 0);
	/* 100 files open and read: their shared read fds are in use */
	int fds[100], bad = 0;
	for (int i = 0; i < 100; i++) {
		char path[64], buf[16], want[16];
		snprintf(path, sizeof(path), "/e/f%03d", i);
		snprintf(want, sizeof(want), "b%d", i);
		fds[i] = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
		ssize_t n = fds[i] < 0 ? -1 : uvfs_read(p, fds[i], buf, sizeof(buf) - 1);
		bad += n < 0 || (buf[n] = 0, strcmp(buf, want));
	}
	CHECK_EQ(bad, 0);
	int n = host_fds_under(top) - before;
	CHECK(n >= 100 && n <= 116, "%d host fds held with 100 in use", n);
	/* one of them unlinked while open: its node keeps its O_PATH fd (the
	 * only way back) through all that follows, and reads on */
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/e/f000", 0), 0);
	/* the others read while the 100 are open, then closed: their fds are
	 * closable again and the next takes trim back to the bound */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 100; i < 200; i++) {
			char path[64], buf[16];
			snprintf(path, sizeof(path), "/e/f%03d", i);
			bad += u_cat(p, path, buf, sizeof(buf)) < 0;
		}
		if (pass == 0)
			for (int i = 1; i < 100; i++)
				uvfs_close(p, fds[i]);
	}
	CHECK_EQ(bad, 0);
	n = host_fds_under(top) - before;
	/* 16, and f000's O_PATH fd and shared read fd */
	CHECK(n <= 18, "%d host fds held after the 100 closed", n);
	char buf[16];
	CHECK_EQ(uvfs_pread(p, fds[0], buf, 2, 0), 2);
	CHECK(!memcmp(buf, "b0", 2), "%.2s", buf);
	uvfs_close(p, fds[0]);
	/* a file made without a name, then linked in: closable once named */
	int t = uvfs_openat(p, AT_FDCWD, "/e", O_TMPFILE | O_RDWR, 0644);
	CHECK(t >= 0, "O_TMPFILE: %d", t);
	CHECK_EQ(uvfs_write(p, t, "tmp", 3), 3);
	CHECK_EQ(uvfs_linkat(p, t, "", AT_FDCWD, "/e/linked", AT_EMPTY_PATH), 0);
	uvfs_close(p, t);
	for (int i = 100; i < 200; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/e/f%03d", i);
		bad += u_cat(p, path, buf, sizeof(buf)) < 0;
	}
	CHECK_EQ(bad, 0);
	n = host_fds_under(top) - before;
	CHECK(n <= 17, "%d host fds held at the end", n);
	CHECK_EQ(u_cat(p, "/e/linked", buf, sizeof(buf)), 3);
	CHECK_EQ(uvfs_umount2(p, "/e", 0), 0);
	CHECK_EQ(host_fds_under(top), before);
}

static void test_revalidate(void)
{
	SECTION("cache modes");
	char h[300];
	hpath(h, sizeof(h), "cv");
	put_file(h, "one");
	CHECK_EQ(mount_at("/cx", src, NULL), 0);
	CHECK_EQ(mount_at("/cr", src, "cache=revalidate"), 0);
	struct stat x1, r1, x2, r2;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cx/cv", &x1, 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cr/cv", &r1, 0), 0);
	/* replaced on the host: a new inode under the name */
	char h2[300];
	hpath(h2, sizeof(h2), "cv.new");
	put_file(h2, "second");
	CHECK_EQ(rename(h2, h), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cx/cv", &x2, 0), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cr/cv", &r2, 0), 0);
	CHECK_EQ(x2.st_ino, x1.st_ino); /* exclusive: the cache is uvfs's */
	CHECK(r2.st_ino != r1.st_ino && r2.st_size == 6, "revalidate: ino %lu size %ld", (unsigned long)r2.st_ino,
	      (long)r2.st_size);
	char buf[16];
	CHECK_EQ(u_cat(p, "/cr/cv", buf, sizeof(buf)), 6);
	/* a name made on the host: revalidate finds it; exclusive cached the
	 * failed lookup (no host call for it again) */
	hpath(h2, sizeof(h2), "cv.later");
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/cx/cv.later", &x2, 0), ENOENT);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/cr/cv.later", &r2, 0), ENOENT);
	put_file(h2, "x");
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cr/cv.later", &r2, 0), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/cx/cv.later", &x2, 0), ENOENT);
	/* a cached negative name made by uvfs itself, then removed */
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/cx/neg", &x2, 0), ENOENT);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/cx/neg", 0755), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/cx/neg/in", &x2, 0), ENOENT);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cx/neg", &x2, 0), 0);
	CHECK(S_ISDIR(x2.st_mode), "mode %o", x2.st_mode);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/cx/neg", AT_REMOVEDIR), 0);
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/cx/neg", &x2, 0), ENOENT);
	char hn[300];
	hpath(hn, sizeof(hn), "neg");
	CHECK_ERR(stat(hn, &x2) ? -errno : 0, ENOENT);
	/* attributes changed on the host show through revalidate's stat */
	chmod(h2, 0600);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/cr/cv.later", &r2, 0), 0);
	CHECK_EQ(r2.st_mode & 07777, 0600);
	CHECK_EQ(uvfs_umount2(p, "/cx", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/cr", 0), 0);
}

/* A walk that ends on "." or ".." (no name looked up, nothing for
 * d_revalidate to ask) still takes the host's attributes with
 * cache=revalidate (d_weak_revalidate): a directory the host made
 * unreadable cannot be opened by a caller the new mode shuts out.  With
 * cache=exclusive the cached mode stands. */
static void test_weak_revalidate(void)
{
	SECTION("d_weak_revalidate");
	char h[300];
	hpath(h, sizeof(h), "wk");
	CHECK_EQ(mkdir(h, 0755), 0);
	CHECK_EQ(mkdir(strcat(strcpy((char[320]){ 0 }, h), "/in"), 0755), 0);
	CHECK_EQ(mount_at("/wr", src, "cache=revalidate"), 0);
	CHECK_EQ(mount_at("/wx", src, NULL), 0);
	struct uvfs_proc *q = uvfs_proc_create(u, 1000, 1000);
	CHECK(q != NULL);
	int fd = uvfs_openat(q, AT_FDCWD, "/wr/wk/in/..", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0, "fd %d", fd);
	uvfs_close(q, fd);
	fd = uvfs_openat(q, AT_FDCWD, "/wx/wk", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0, "fd %d", fd);
	uvfs_close(q, fd);
	CHECK_EQ(uvfs_chdir(q, "/wr/wk"), 0);
	fd = uvfs_openat(q, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0, "fd %d", fd);
	uvfs_close(q, fd);
	CHECK_EQ(chmod(h, 0711), 0);
	CHECK_ERR(uvfs_openat(q, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0), EACCES);
	CHECK_ERR(uvfs_openat(q, AT_FDCWD, "in/..", O_RDONLY | O_DIRECTORY, 0), EACCES);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(q, AT_FDCWD, "..", &st, 0), 0);
	CHECK_EQ(uvfs_chdir(q, "/wx/wk"), 0);
	fd = uvfs_openat(q, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0, "exclusive: the cached mode stands (fd %d)", fd);
	uvfs_close(q, fd);
	CHECK_EQ(chmod(h, 0755), 0);
	CHECK_EQ(uvfs_chdir(q, "/wr/wk"), 0);
	fd = uvfs_openat(q, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0, "fd %d", fd);
	uvfs_close(q, fd);
	uvfs_proc_destroy(q);
	CHECK_EQ(uvfs_umount2(p, "/wr", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/wx", 0), 0);
}

/* Threads of one proc each stat, read, create and remove names in a shared
 * tree with fds=8, so that the fd LRU closes and reopens under them. */
struct worker {
	struct uvfs_proc *p;
	int id;
	long bad;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	for (int it = 0; it < 200; it++) {
		char path[64], buf[16];
		struct stat st;
		snprintf(path, sizeof(path), "/w/d%d/f%d", it % 10, (it * 7 + w->id) % 10);
		if (uvfs_fstatat(w->p, AT_FDCWD, path, &st, 0) || u_cat(w->p, path, buf, sizeof(buf)) != 1)
			w->bad++;
		snprintf(path, sizeof(path), "/w/d%d/t%d", it % 10, w->id);
		int fd = uvfs_openat(w->p, AT_FDCWD, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || uvfs_write(w->p, fd, "x", 1) != 1 || uvfs_close(w->p, fd) ||
		    uvfs_unlinkat(w->p, AT_FDCWD, path, 0))
			w->bad++;
		snprintf(path, sizeof(path), "/w/d%d/none%d", it % 10, it);
		if (uvfs_fstatat(w->p, AT_FDCWD, path, &st, 0) != -ENOENT)
			w->bad++;
	}
	return NULL;
}

static void test_threads(void)
{
	SECTION("threads over a small fd bound");
	char h[300];
	hpath(h, sizeof(h), "w");
	mkdir(h, 0755);
	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 10; j++) {
			char f[340];
			snprintf(f, sizeof(f), "%s/d%d", h, i);
			mkdir(f, 0755);
			snprintf(f, sizeof(f), "%s/d%d/f%d", h, i, j);
			put_file(f, "1");
		}
	CHECK_EQ(mount_at("/w", h, "fds=8"), 0);
	pthread_t t[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .p = p, .id = i };
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(w[i].bad, 0);
	}
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
}

static double ns_per_stat(const char *path)
{
	struct stat st;
	struct timespec a, b;
	uvfs_fstatat(p, AT_FDCWD, path, &st, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 200000; i++)
		uvfs_fstatat(p, AT_FDCWD, path, &st, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 200000;
}

/* EIO: /proc/PID/mem read where nothing is mapped (page 0) is the host's
 * EIO, from a real host file through hostfs. */
static void test_eio(void)
{
	SECTION("host errors: EIO comes back as it is");
	char dir[64], buf[8];
	snprintf(dir, sizeof(dir), "/proc/%d", (int)getpid());
	snprintf(buf, sizeof(buf), "x");
	int hfd = open("/proc/self/mem", O_RDONLY);
	CHECK(hfd >= 0 && pread(hfd, buf, 1, 0) < 0 && errno == EIO, "the host's own");
	close(hfd);
	CHECK_EQ(mount_at("/pe", dir, "cache=revalidate"), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/pe/mem", O_RDONLY, 0);
	CHECK(fd >= 0);
	CHECK_ERR(uvfs_pread(p, fd, buf, 1, 0), EIO);
	CHECK_ERR(uvfs_read(p, fd, buf, 1), EIO);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_umount2(p, "/pe", 0), 0);
}

/* EDQUOT: an ext4 image with quotas (mkfs.ext4 -O quota), uid 1000 limited
 * to 64 KiB, written through hostfs by a library running as uid 1000 (a
 * child: root is not held to quotas).  Skipped (said so) without
 * mkfs.ext4 or loop devices. */
static void test_edquot(void)
{
	SECTION("host errors: EDQUOT comes back as it is");
	char img[200], dir[200], cmd[1024];
	snprintf(img, sizeof(img), "%s/q.img", top);
	snprintf(dir, sizeof(dir), "%s/q", top);
	mkdir(dir, 0755);
	int ifd = open(img, O_CREAT | O_RDWR, 0600);
	if (ifd < 0 || ftruncate(ifd, 16 << 20)) {
		perror(img);
		CHECK(0, "image");
		return;
	}
	close(ifd);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -O quota -E quotatype=usrquota %s >/dev/null 2>&1 && "
				   "mount -o loop,usrquota %s %s",
		 img, img, dir);
	if (system(cmd)) {
		printf("SKIP EDQUOT: no ext4 with quotas here (mkfs.ext4, a loop device and a kernel with CONFIG_QUOTA)\n");
		unlink(img);
		return;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct if_dqblk dq = { .dqb_bhardlimit = 64, .dqb_bsoftlimit = 64, .dqb_valid = QIF_BLIMITS };
	CHECK_EQ(syscall(SYS_quotactl_fd, dfd, QCMD(Q_SETQUOTA, USRQUOTA), 1000, &dq), 0);
	close(dfd);
	CHECK_EQ(chown(dir, 1000, 1000), 0);
	pid_t pid = fork();
	if (pid == 0) {
		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(2);
		/* the host's own answer first, then uvfs's on the same quota */
		char hp[260];
		snprintf(hp, sizeof(hp), "%s/host", dir);
		static char chunk[4096];
		int fd = open(hp, O_CREAT | O_WRONLY, 0644);
		long w;
		while ((w = write(fd, chunk, sizeof(chunk))) > 0)
			;
		int host_err = errno;
		close(fd);
		unlink(hp);
		struct uvfs *cu = uvfs_create(NULL);
		struct uvfs_proc *cp = uvfs_proc_create(cu, 0, 0);
		uvfs_mkdirat(cp, AT_FDCWD, "/q", 0755);
		if (uvfs_mount(cp, dir, "/q", "hostfs", 0, NULL))
			_exit(3);
		fd = uvfs_openat(cp, AT_FDCWD, "/q/big", O_CREAT | O_WRONLY, 0644);
		long total = 0;
		while ((w = uvfs_write(cp, fd, chunk, sizeof(chunk))) > 0)
			total += w;
		uvfs_close(cp, fd);
		uvfs_umount2(cp, "/q", 0);
		uvfs_proc_destroy(cp);
		uvfs_destroy(cu);
		printf("   host %s, uvfs %s after %ld bytes\n", strerror(host_err), strerror((int)-w), total);
		fflush(stdout);
		_exit(host_err == EDQUOT && w == -EDQUOT && total <= 65536 ? 0 : 1);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	CHECK_EQ(umount(dir), 0);
	unlink(img);
}

struct fh128 {
	struct file_handle h;
	unsigned char buf[128];
};

/* File handles are the host's: the same bytes; one of an object outside
 * the source, or one uvfs has not met, names nothing here. */
static void test_handles(void)
{
	SECTION("file handles: the host's, confined to the source");
	char a[200], b[200], buf[16];
	hpath(a, sizeof(a), "fh-a");
	hpath(b, sizeof(b), "fh-b");
	put_file(a, "abc");
	CHECK_EQ(mount_at("/fh", src, NULL), 0);
	struct fh128 u_fh = { .h.handle_bytes = 128 }, h_fh = { .h.handle_bytes = 128 };
	int mid, hmid;
	CHECK_EQ(uvfs_name_to_handle_at(p, AT_FDCWD, "/fh/fh-a", &u_fh.h, &mid, 0), 0);
	CHECK_EQ(name_to_handle_at(AT_FDCWD, a, &h_fh.h, &hmid, 0), 0);
	CHECK_EQ(u_fh.h.handle_bytes, h_fh.h.handle_bytes);
	CHECK_EQ(u_fh.h.handle_type, h_fh.h.handle_type);
	CHECK(!memcmp(u_fh.buf, h_fh.buf, h_fh.h.handle_bytes));
	int root = uvfs_openat(p, AT_FDCWD, "/fh", O_RDONLY | O_DIRECTORY, 0);
	CHECK(root >= 0);
	int fd = uvfs_open_by_handle_at(p, root, &u_fh.h, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 3);
	uvfs_close(p, fd);
	/* the host opens the outside file by its handle; uvfs does not */
	h_fh.h.handle_bytes = 128;
	CHECK_EQ(name_to_handle_at(AT_FDCWD, secret, &h_fh.h, &hmid, 0), 0);
	CHECK_ERR(uvfs_open_by_handle_at(p, root, &h_fh.h, O_RDONLY), ESTALE);
	CHECK_ERR(uvfs_open_by_handle_at(p, root, &h_fh.h, O_PATH), ESTALE);
	/* a host object uvfs has not met yet, then once it has */
	put_file(b, "b");
	h_fh.h.handle_bytes = 128;
	CHECK_EQ(name_to_handle_at(AT_FDCWD, b, &h_fh.h, &hmid, 0), 0);
	CHECK_ERR(uvfs_open_by_handle_at(p, root, &h_fh.h, O_RDONLY), ESTALE);
	struct stat st;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/fh/fh-b", &st, 0), 0);
	fd = uvfs_open_by_handle_at(p, root, &h_fh.h, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_read(p, fd, buf, sizeof(buf)), 1);
	uvfs_close(p, fd);
	/* gone on the host: the host's ESTALE */
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/fh/fh-b", 0), 0);
	CHECK_ERR(uvfs_open_by_handle_at(p, root, &h_fh.h, O_RDONLY), ESTALE);
	uvfs_close(p, root);
	CHECK_EQ(uvfs_umount2(p, "/fh", 0), 0);
	unlink(a);
}

static void test_cost(void)
{
	SECTION("cached stat: hostfs beside tmpfs");
	char h[300];
	hpath(h, sizeof(h), "cost");
	mkdir(h, 0755);
	hpath(h, sizeof(h), "cost/f");
	put_file(h, "x");
	CHECK_EQ(mount_at("/ch", src, NULL), 0);
	/* both behind a mount, so the walks cross the same mount points */
	uvfs_mkdirat(p, AT_FDCWD, "/ct", 0755);
	CHECK_EQ(uvfs_mount(p, "none", "/ct", "tmpfs", 0, NULL), 0);
	uvfs_mkdirat(p, AT_FDCWD, "/ct/cost", 0755);
	int fd = uvfs_openat(p, AT_FDCWD, "/ct/cost/f", O_CREAT | O_WRONLY, 0644);
	uvfs_close(p, fd);
	double t = ns_per_stat("/ct/cost/f"), hs = ns_per_stat("/ch/cost/f");
	printf("   stat: tmpfs %.0f ns, hostfs cache=exclusive %.0f ns (%.2fx)\n", t, hs, hs / t);
	CHECK_EQ(uvfs_umount2(p, "/ch", 0), 0);
	CHECK_EQ(uvfs_umount2(p, "/ct", 0), 0);
}

/* unit-hostfs cost hostfs N busy: N utimensats (a take and a put of the
 * node's host fd each) on a mount of fds=64 while 1000 other files are
 * open and read (their shared read fds in use, which the fd LRU may not
 * close): the LRU's cost per take and put. */
#define BUSY_FILES 1000
static int cost_busy(long n)
{
	char h[300];
	uvfs_mkdirat(p, AT_FDCWD, "/c", 0755);
	hpath(h, sizeof(h), "busy");
	mkdir(h, 0755);
	for (int i = 0; i < BUSY_FILES; i++) {
		snprintf(h, sizeof(h), "%s/busy/%d", src, i);
		put_file(h, "x");
	}
	hpath(h, sizeof(h), "f");
	put_file(h, "x");
	if (uvfs_mount(p, src, "/c", "hostfs", 0, "fds=64"))
		return 1;
	static int fds[BUSY_FILES];
	for (int i = 0; i < BUSY_FILES; i++) {
		char c, path[64];
		snprintf(path, sizeof(path), "/c/busy/%d", i);
		fds[i] = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
		if (fds[i] < 0 || uvfs_read(p, fds[i], &c, 1) != 1)
			return 1;
	}
	for (long i = 0; i < n; i++) {
		struct timespec ts[2] = { { i, 0 }, { i, 0 } };
		if (uvfs_utimensat(p, AT_FDCWD, "/c/f", ts, 0))
			return 1;
	}
	for (int i = 0; i < BUSY_FILES; i++)
		uvfs_close(p, fds[i]);
	uvfs_umount2(p, "/c", 0);
	return 0;
}

/* unit-hostfs cost tmpfs|hostfs N [open|read]: N cached stats (or opens
 * and closes, or opens, one-byte reads and closes) of one file on that
 * filesystem and nothing else, for callgrind's instruction counts (run it
 * with two N and divide the difference). */
static int cost_only(const char *fs, long n, bool open_close, bool read1)
{
	char h[300];
	hpath(h, sizeof(h), "f");
	put_file(h, "x");
	uvfs_mkdirat(p, AT_FDCWD, "/c", 0755);
	bool host = !strcmp(fs, "hostfs");
	if (host ? uvfs_mount(p, src, "/c", "hostfs", 0, NULL) : uvfs_mount(p, "none", "/c", "tmpfs", 0, NULL))
		return 1;
	if (!host) {
		int fd = uvfs_openat(p, AT_FDCWD, "/c/f", O_CREAT | O_WRONLY, 0644);
		if (uvfs_write(p, fd, "x", 1) != 1)
			return 1;
		uvfs_close(p, fd);
	}
	struct stat st;
	for (long i = 0; i < n; i++) {
		if (open_close) {
			char c;
			int fd = uvfs_openat(p, AT_FDCWD, "/c/f", O_RDONLY, 0);
			if (fd < 0 || (read1 && uvfs_read(p, fd, &c, 1) != 1) || uvfs_close(p, fd))
				return 1;
		} else if (uvfs_fstatat(p, AT_FDCWD, "/c/f", &st, 0)) {
			return 1;
		}
	}
	uvfs_umount2(p, "/c", 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (geteuid() != 0) {
		printf("SKIP unit-hostfs: needs root (host mounts inside the source)\n0 passed, 0 failed\n");
		return 0;
	}
	/* host mounts made here stay in a namespace of our own */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		perror("unshare");
		return 1;
	}
	strcpy(top, "/dev/shm/uvfs-unit-hostfs-XXXXXX");
	if (!mkdtemp(top))
		return 1;
	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(out, sizeof(out), "%s/out", top);
	snprintf(secret, sizeof(secret), "%s/secret", out);
	mkdir(src, 0755);
	mkdir(out, 0755);
	put_file(secret, "SECRET");
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	if (argc >= 4 && !strcmp(argv[1], "cost")) {
		bool rd = argc > 4 && !strcmp(argv[4], "read");
		int r = argc > 4 && !strcmp(argv[4], "busy")
				? cost_busy(atol(argv[3]))
				: cost_only(argv[2], atol(argv[3]), rd || (argc > 4 && !strcmp(argv[4], "open")), rd);
		uvfs_proc_destroy(p);
		uvfs_destroy(u);
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
		return system(cmd) || r;
	}
	test_mount_errors();
	test_escapes();
	test_identity_and_data();
	test_fd_bound();
	test_fd_busy();
	test_xattr_absent();
	test_host_flags();
	test_revalidate();
	test_weak_revalidate();
	test_threads();
	test_handles();
	test_eio();
	test_edquot();
	test_cost();
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		printf("could not remove %s\n", top);
	return check_done();
}
