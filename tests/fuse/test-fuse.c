/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-fuse - uvfs through FUSE: mount a fresh tree with uvfs-fuse and use it
 * with ordinary system calls and real programs.
 *
 *   - mount and unmount (fusermount3 -u, SIGTERM), bad and busy mount points;
 *   - differential scenarios: the same calls on a host tmpfs directory and on
 *     the mount, as root and as an unprivileged user (fork + setresuid), and
 *     every result compared (the host is the expected value);
 *   - permission changes: chmod 0700 of a directory and renames into a closed
 *     one, each followed at once by a stat as uid 1000 of names cached below
 *     (found and missing), against host tmpfs, on the mount and on a
 *     -o noepoch one;
 *   - tar extract + diff -r against the same extraction on /dev/shm, git,
 *     make, sqlite3 in the mount;
 *   - several processes creating and renaming at once, then a consistency
 *     check;
 *   - statfs of a mount without size= shows tmpfs's defaults; no-open and
 *     -o writeback mounts of their own (with default_permissions).
 *
 * Every section runs in a child process with a time limit, so that a hung
 * server fails one section instead of hanging the suite; the mount is always
 * taken down at the end (fusermount3 -u, then a lazy unmount and SIGKILL if
 * that did not work).  Without root, /dev/fuse or the uvfs-fuse program, every
 * check is reported as SKIP.  The last line is "N passed, N failed, N skipped".
 *
 * Environment: UVFS_FUSE (path of the program), UVFS_FUSE_ARGS (extra
 * options, e.g. "-o default_permissions" or "-s").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include "mount.h"
#include "../sigthreads.h"

#define USER_UID 1000
#define USER_GID 1000
#define OTHER_GID 1234

/* ------------------------------------------------------------------ */
/* results                                                             */

struct counts {
	int passed, failed, skipped;
};
static struct counts *cnt; /* shared with the section children */

static void pass(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("PASS ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	__atomic_add_fetch(&cnt->passed, 1, __ATOMIC_SEQ_CST);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	__atomic_add_fetch(&cnt->failed, 1, __ATOMIC_SEQ_CST);
}

static void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("SKIP ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	__atomic_add_fetch(&cnt->skipped, 1, __ATOMIC_SEQ_CST);
}

static void check(bool ok, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ok)
		pass("%s", buf);
	else
		fail("%s", buf);
}

/* ------------------------------------------------------------------ */
/* processes                                                           */

static char fuse_bin[PATH_MAX];
static char workdir[PATH_MAX]; /* /tmp/uvfs-fuse-test.XXXXXX */
static char mnt[PATH_MAX];     /* workdir/mnt */
static char hostdir[PATH_MAX]; /* /dev/shm/uvfs-fuse-test.PID */
static pid_t server = -1;
static char extra_args[512];
static pid_t main_pid;
static bool host_tmpfs_mounted;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run argv with a time limit; returns the exit status, or -1 (timeout, then
 * killed) or -2. */
static int run_argv(char *const argv[], double secs, bool quiet)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -2;
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			dup2(fd, 2);
		}
		setpgid(0, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	st = fuse_wait_pid(pid, secs);
	if (st == -1) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (st < 0)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* sh -c cmd in dir, output to a log file that is shown on failure. */
static int sh(const char *dir, double secs, const char *fmt, ...)
{
	char cmd[4096], full[8192], log[PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(log, sizeof(log), "%s/sh.log", workdir);
	snprintf(full, sizeof(full), "cd '%s' && { %s ; } >'%s' 2>&1", dir, cmd, log);
	{
		char *argv[] = { "sh", "-c", full, NULL };

		r = run_argv(argv, secs, false);
	}
	if (r != 0) {
		char tail[8192];

		printf("   command (in %s): %s\n   -> %s %d; output:\n", dir, cmd,
		       r == -1 ? "timed out" : "exit", r);
		snprintf(tail, sizeof(tail), "tail -n 15 '%s' | sed 's/^/      /'", log);
		if (system(tail) != 0)
			printf("      (no output)\n");
		fflush(stdout);
	}
	return r;
}

static bool have_prog(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

static bool is_mounted(const char *path)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char line[4096], dev[1024], mp[PATH_MAX], type[256];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%1023s %4095s %255s", dev, mp, type) == 3 && strcmp(mp, path) == 0)
			found = true;
	fclose(f);
	return found;
}

/* Start uvfs-fuse in the foreground on path; wait until it is mounted. */
static pid_t start_server(const char *path, const char *more)
{
	char *argv[32];
	char buf[1024];
	int argc = 0;
	char *tok, *save;
	pid_t pid;
	double end;

	snprintf(buf, sizeof(buf), "%s %s", extra_args, more ? more : "");
	argv[argc++] = fuse_bin;
	argv[argc++] = "-f";
	argv[argc++] = "-o";
	argv[argc++] = "allow_other";
	for (tok = strtok_r(buf, " ", &save); tok && argc < 28; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc++] = (char *)path;
	argv[argc] = NULL;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char log[PATH_MAX];
		int fd;

		snprintf(log, sizeof(log), "%s/server.log", workdir);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setpgid(0, 0);
		execv(fuse_bin, argv);
		_exit(127);
	}
	end = now() + 10;
	while (now() < end) {
		if (fuse_mounted(path))
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* Take a mount down whatever state it is in.  Returns the server's exit
 * status when it ended by itself after fusermount3 -u, else -1. */
static int stop_server(pid_t pid, const char *path)
{
	char *argv[] = { "fusermount3", "-u", (char *)path, NULL };
	int st = -1;

	if (is_mounted(path))
		run_argv(argv, 10, true);
	if (pid > 0) {
		st = fuse_wait_pid(pid, 10);
		if (st == -1) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	if (is_mounted(path)) {
		/* last resort: a hung server */
		umount2(path, MNT_DETACH);
	}
	return st;
}

static void cleanup(void)
{
	static bool done;

	if (done || getpid() != main_pid)
		return;
	done = true;
	if (mnt[0])
		stop_server(server, mnt);
	server = -1;
	if (host_tmpfs_mounted) {
		umount2(hostdir, MNT_DETACH);
		host_tmpfs_mounted = false;
	} else if (hostdir[0]) {
		char cmd[PATH_MAX + 32];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", hostdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", hostdir);
	}
	if (workdir[0] && !is_mounted(mnt)) {
		char cmd[PATH_MAX + 32];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", workdir);
	}
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Run fn in a child with a time limit; a timeout or crash is one failure. */
static void section(const char *name, double secs, void (*fn)(void))
{
	pid_t pid;
	int st;

	printf("-- %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fail("%s: fork: %s", name, strerror(errno));
		return;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		setpgid(0, 0);
		fn();
		fflush(stdout);
		_exit(0);
	}
	st = fuse_wait_pid(pid, secs);
	if (st == -1) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail("%s: timed out after %.0f s", name, secs);
	} else if (st >= 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		fail("%s: section process died (status 0x%x)", name, st);
	}
}

/* ------------------------------------------------------------------ */
/* differential scenarios                                              */

/*
 * A scenario runs in a directory (a fresh one on each side) and writes one
 * line per result into a log; the logs of the host and the mount must be
 * equal.  Values that legitimately differ between two file systems (inode and
 * device numbers, directory sizes, fd numbers) are never logged.
 */
struct xlog {
	size_t len;
	char buf[1 << 18];
};
static struct xlog *xl; /* the log being written (shared memory) */

static void L(const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(xl->buf) - xl->len;
	int n;

	if (room < 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(xl->buf + xl->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		xl->len += (size_t)n < room ? (size_t)n : room - 1;
	if (xl->len < sizeof(xl->buf) - 1)
		xl->buf[xl->len++] = '\n';
}

static const char *res(long r)
{
	static char b[8][64];
	static int i;
	char *s = b[i++ & 7];

	if (r < 0)
		snprintf(s, 64, "-%s", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
	else
		snprintf(s, 64, "%ld", r);
	return s;
}

/* syscall result: >= 0 as is (fds as "fd"), < 0 as the errno name */
#define R(name, expr) L("%s = %s", name, res((long)(expr)))
#define RFD(name, expr)                                                 \
	({                                                              \
		int _fd = (expr);                                       \
		L("%s = %s", name, _fd >= 0 ? "fd" : res(_fd));         \
		_fd;                                                    \
	})

static void S(const char *what, const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		L("stat %s (%s) = %s", path, what, res(-1));
		return;
	}
	L("stat %s (%s) = mode %o nlink %lu uid %u gid %u size %lld rdev %u:%u", path, what,
	  st.st_mode, (unsigned long)(S_ISDIR(st.st_mode) ? 0 : st.st_nlink), st.st_uid, st.st_gid,
	  S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size, major(st.st_rdev), minor(st.st_rdev));
}

static void content(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		L("content %s = %s", path, res(-1));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		L("content %s = %s", path, res(-1));
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = '@';
	buf[n] = 0;
	L("content %s = [%s] (%zd)", path, buf, n);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void listing(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char *names[4096];
	int n = 0;
	char line[16384];
	size_t len = 0;

	if (!d) {
		L("ls %s = %s", path, res(-1));
		return;
	}
	while ((de = readdir(d)) && n < 4096) {
		char b[300];

		snprintf(b, sizeof(b), "%s/%d", de->d_name, de->d_type);
		names[n++] = strdup(b);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmpstr);
	line[0] = 0;
	for (int i = 0; i < n; i++) {
		if (len < sizeof(line) - 300)
			len += snprintf(line + len, sizeof(line) - len, "%s ", names[i]);
		free(names[i]);
	}
	L("ls %s = %d: %s", path, n, line);
}

static void writes(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			L("write %s failed", path);
		close(fd);
	}
}

/* -- as root -- */

static void sc_files(void)
{
	char buf[64];
	int fd, fd2;

	fd = RFD("creat f", open("f", O_CREAT | O_RDWR, 0644));
	R("write 5", write(fd, "hello", 5));
	R("pwrite at 10", pwrite(fd, "XY", 2, 10));
	S("after pwrite", "f");
	memset(buf, 0, sizeof(buf));
	R("pread 64 at 0", pread(fd, buf, 64, 0));
	L("bytes = %c%c%c%c%c|%d|%c%c", buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[10], buf[11]);
	R("lseek end", lseek(fd, 0, SEEK_END));
	R("lseek cur -3", lseek(fd, -3, SEEK_CUR));
	R("read at 9", read(fd, buf, 64));
	R("lseek data 0", lseek(fd, 0, SEEK_DATA));
	R("lseek hole 0", lseek(fd, 0, SEEK_HOLE));
	R("lseek data past end", lseek(fd, 100, SEEK_DATA));
	R("ftruncate 3", ftruncate(fd, 3));
	S("after ftruncate", "f");
	R("pwrite at 1M", pwrite(fd, "Z", 1, 1 << 20));
	R("lseek hole 0", lseek(fd, 0, SEEK_HOLE));
	R("lseek data 4096", lseek(fd, 4096, SEEK_DATA));
	R("lseek hole 1M", lseek(fd, 1 << 20, SEEK_HOLE));
	R("fsync", fsync(fd));
	R("fdatasync", fdatasync(fd));
	R("close", close(fd));
	S("sparse", "f");

	R("creat excl existing", open("f", O_CREAT | O_EXCL | O_RDWR, 0644));
	R("open missing", open("nofile", O_RDONLY));
	R("open under file", open("f/x", O_RDONLY));
	R("open dir for writing", open(".", O_WRONLY));
	R("open O_DIRECTORY on file", open("f", O_RDONLY | O_DIRECTORY));
	fd = RFD("open trunc", open("f", O_WRONLY | O_TRUNC));
	close(fd);
	S("after O_TRUNC", "f");

	fd = RFD("open append 1", open("f", O_WRONLY | O_APPEND));
	fd2 = RFD("open append 2", open("f", O_WRONLY | O_APPEND));
	R("append a", write(fd, "aaa", 3));
	R("append b", write(fd2, "bb", 2));
	R("append c", write(fd, "c", 1));
	R("pwrite on append fd", pwrite(fd, "P", 1, 0)); /* Linux: appends */
	close(fd);
	close(fd2);
	content("f");

	R("truncate 100", truncate("f", 100));
	S("after truncate", "f");
	R("truncate dir", truncate(".", 0));
	R("truncate negative", truncate("f", -1));
	fd = RFD("open rdonly", open("f", O_RDONLY));
	R("ftruncate rdonly", ftruncate(fd, 0));
	R("write rdonly", write(fd, "x", 1));
	close(fd);

	{
		char longname[300];

		memset(longname, 'n', 299);
		longname[299] = 0;
		R("creat 299-byte name", open(longname, O_CREAT | O_RDWR, 0644));
		longname[255] = 0;
		fd = RFD("creat 255-byte name", open(longname, O_CREAT | O_RDWR, 0644));
		close(fd);
		R("unlink 255-byte name", unlink(longname));
	}
	/* a file bigger than one FUSE request */
	{
		static char big[1 << 20];
		unsigned sum = 0, sum2 = 0;

		for (size_t i = 0; i < sizeof(big); i++)
			big[i] = (char)(i * 7 + i / 4096);
		for (size_t i = 0; i < sizeof(big); i++)
			sum = sum * 31 + (unsigned char)big[i];
		fd = RFD("creat big", open("big", O_CREAT | O_RDWR, 0600));
		R("write 1M", write(fd, big, sizeof(big)));
		R("write 1M more", write(fd, big, sizeof(big)));
		memset(big, 0, sizeof(big));
		R("pread 1M at 1M", pread(fd, big, sizeof(big), 1 << 20));
		for (size_t i = 0; i < sizeof(big); i++)
			sum2 = sum2 * 31 + (unsigned char)big[i];
		L("checksum equal = %d", sum == sum2);
		close(fd);
		S("big", "big");
	}
}

static void sc_names(void)
{
	int fd;

	R("mkdir d", mkdir("d", 0755));
	R("mkdir d again", mkdir("d", 0755));
	R("mkdir d/e", mkdir("d/e", 0700));
	S("d/e", "d/e");
	R("rmdir non-empty", rmdir("d"));
	R("unlink dir", unlink("d"));
	writes("f", "file f");
	writes("g", "file g");
	R("rmdir file", rmdir("f"));
	R("mkdir under file", mkdir("f/x", 0755));
	R("rmdir .", rmdir("d/."));
	R("rmdir missing", rmdir("nodir"));

	R("rename d/e e2", rename("d/e", "e2"));
	R("mkdir d/x", mkdir("d/x", 0755));
	R("rename dir over non-empty dir", rename("e2", "d"));
	R("rename file over dir", rename("f", "d"));
	R("rename dir over file", rename("e2", "f"));
	R("rename dir into itself", rename("d", "d/x/y"));
	R("rename missing", rename("nope", "nope2"));
	R("rename f over g", rename("f", "g"));
	content("g");
	R("f gone", access("f", F_OK));
	writes("f", "file f again");
	R("noreplace over existing", renameat2(AT_FDCWD, "f", AT_FDCWD, "g", RENAME_NOREPLACE));
	R("noreplace to new", renameat2(AT_FDCWD, "f", AT_FDCWD, "h", RENAME_NOREPLACE));
	R("exchange h g", renameat2(AT_FDCWD, "h", AT_FDCWD, "g", RENAME_EXCHANGE));
	content("g");
	content("h");
	R("exchange with missing", renameat2(AT_FDCWD, "h", AT_FDCWD, "zz", RENAME_EXCHANGE));
	R("exchange dir and file", renameat2(AT_FDCWD, "d", AT_FDCWD, "h", RENAME_EXCHANGE));
	S("h after exchange", "h");
	S("d after exchange", "d");
	R("exchange back", renameat2(AT_FDCWD, "d", AT_FDCWD, "h", RENAME_EXCHANGE));
	R("rename to same", rename("g", "g"));

	R("link g l", link("g", "l"));
	S("g with 2 links", "g");
	R("link over existing", link("g", "h"));
	R("link dir", link("d", "dl"));
	R("unlink l", unlink("l"));
	S("g with 1 link", "g");
	fd = RFD("open g", open("g", O_RDWR));
	R("unlink open g", unlink("g"));
	R("write unlinked", write(fd, "!", 1));
	{
		struct stat st;

		R("fstat unlinked", fstat(fd, &st));
		L("unlinked nlink %lu size %lld", (unsigned long)st.st_nlink, (long long)st.st_size);
	}
	close(fd);

	R("symlink", symlink("target/x", "sl"));
	S("symlink", "sl");
	{
		char b[64];
		ssize_t n = readlink("sl", b, sizeof(b));

		L("readlink = %s %.*s", res(n), n > 0 ? (int)n : 0, b);
		R("readlink of file", readlink("h", b, sizeof(b)));
		R("readlink short buffer", readlink("sl", b, 3));
	}
	R("stat dangling", access("sl", F_OK));
	R("symlink loop 1", symlink("loop2", "loop1"));
	R("symlink loop 2", symlink("loop1", "loop2"));
	R("open loop", open("loop1", O_RDONLY));
	R("open O_NOFOLLOW on symlink", open("sl", O_RDONLY | O_NOFOLLOW));
	R("symlink to dir", symlink("d", "sd"));
	R("mkdir through symlink", mkdir("sd/viasl", 0755));
	S("through symlink", "d/viasl");
	R("symlink existing", symlink("x", "h"));

	R("mkfifo", mkfifo("fifo", 0640));
	S("fifo", "fifo");
	R("mknod reg", mknod("nreg", S_IFREG | 0600, 0));
	S("mknod reg", "nreg");
	R("mknod chr", mknod("nchr", S_IFCHR | 0600, makedev(1, 3)));
	S("mknod chr", "nchr");
	R("mknod sock", mknod("nsock", S_IFSOCK | 0600, 0));
	S("mknod sock", "nsock");
	listing(".");
	listing("d");
	R("unlink fifo", unlink("fifo"));
	R("rmdir d/x", rmdir("d/x"));
	R("rmdir d/viasl", rmdir("d/viasl"));
	listing("d");
}

static void sc_attrs(void)
{
	struct stat st, st2;
	struct timespec ts[2];
	int fd;

	writes("f", "attrs");
	R("chmod 4755", chmod("f", 04755));
	S("4755", "f");
	R("chmod 0600", chmod("f", 0600));
	R("chown 1000:1000", chown("f", 1000, 1000));
	S("chowned", "f");
	R("chown -1:2000", chown("f", -1, 2000));
	S("chgrp", "f");
	R("chmod 6755", chmod("f", 06755));
	R("chown to root", chown("f", 0, 0)); /* root: Linux clears suid/sgid on chown of an executable */
	S("suid after chown", "f");
	R("lchown symlink", (symlink("f", "sl"), lchown("sl", 5, 5)));
	S("lchown", "sl");

	ts[0].tv_sec = 1000000000;
	ts[0].tv_nsec = 123456789;
	ts[1].tv_sec = 2000000000;
	ts[1].tv_nsec = 500000000;
	R("utimensat exact", utimensat(AT_FDCWD, "f", ts, 0));
	stat("f", &st);
	L("times = %ld.%09ld %ld.%09ld", (long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	  (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = 1500000000;
	ts[1].tv_nsec = 0;
	R("utimensat omit atime", utimensat(AT_FDCWD, "f", ts, 0));
	stat("f", &st);
	L("times = %ld.%09ld %ld.%09ld", (long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	  (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	R("utimensat now", utimensat(AT_FDCWD, "f", NULL, 0));
	stat("f", &st);
	L("mtime recent = %d", labs((long)(time(NULL) - st.st_mtim.tv_sec)) <= 2);
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	R("utimensat symlink nofollow", utimensat(AT_FDCWD, "sl", ts, AT_SYMLINK_NOFOLLOW));
	lstat("sl", &st);
	L("symlink mtime = %ld", (long)st.st_mtim.tv_sec);

	stat("f", &st);
	usleep(20000);
	fd = RFD("open f", open("f", O_WRONLY));
	R("write", write(fd, "x", 1));
	fstat(fd, &st2);
	L("write moved mtime = %d, ctime = %d",
	  st2.st_mtim.tv_sec * 1000000000LL + st2.st_mtim.tv_nsec > st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
	  st2.st_ctim.tv_sec * 1000000000LL + st2.st_ctim.tv_nsec > st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);
	ts[0].tv_sec = 1234;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	R("futimens", futimens(fd, ts));
	R("fchmod", fchmod(fd, 0640));
	R("fchown", fchown(fd, 7, 8));
	R("ftruncate", ftruncate(fd, 2));
	close(fd);
	stat("f", &st);
	L("after f* calls: mode %o uid %u gid %u size %lld mtime %s", st.st_mode, st.st_uid, st.st_gid,
	  (long long)st.st_size, st.st_mtim.tv_sec == 1234 ? "as set by futimens" : "moved by ftruncate");

	R("access f R_OK", access("f", R_OK));
	R("access f X_OK", access("f", X_OK)); /* root needs one x bit */
	R("access missing", access("nope", F_OK));
	{
		struct statfs sf;

		R("statfs", statfs(".", &sf));
		L("statfs namelen %ld", (long)sf.f_namelen);
	}
	R("mkdir d", mkdir("d", 0755));
	stat("d", &st);
	usleep(20000);
	writes("d/x", "x");
	stat("d", &st2);
	L("create moved dir mtime = %d",
	  st2.st_mtim.tv_sec * 1000000000LL + st2.st_mtim.tv_nsec > st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
	S("d nlink", "d");
	/* through a directory fd: the kernel passes the directory's handle */
	fd = RFD("open dir", open("d", O_RDONLY | O_DIRECTORY));
	ts[0].tv_sec = 111;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = 222;
	ts[1].tv_nsec = 5;
	R("fchmod dir fd", fchmod(fd, 0711));
	R("fchown dir fd", fchown(fd, 5, 6));
	R("futimens dir fd", futimens(fd, ts));
	R("fsync dir fd", fsync(fd));
	R("fstat dir fd", fstat(fd, &st));
	L("dir via fd: mode %o uid %u gid %u times %ld %ld.%09ld", st.st_mode, st.st_uid, st.st_gid,
	  (long)st.st_atim.tv_sec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	close(fd);
	R("chmod d back", chmod("d", 0755));
	{
		struct stat sd;

		R("mkdir d/sub", mkdir("d/sub", 0755));
		stat("d", &sd);
		L("dir nlink with a subdir = %lu", (unsigned long)sd.st_nlink);
	}
	{
		/* cp -p sets the mode as a minimal ACL (user rw, group r, other
		 * r), which Linux stores as the mode bits 0644; stat -c %a then
		 * asks statx for the mode only */
		static const unsigned char acl[] = { 2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
						     4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, 0x20, 0, 4, 0,
						     0xff, 0xff, 0xff, 0xff };
		struct statx sx;

		writes("acl", "acl");
		chmod("acl", 0600);
		stat("acl", &st); /* the mode 0600 cached */
		R("setxattr system.posix_acl_access (0644)",
		  setxattr("acl", "system.posix_acl_access", acl, sizeof(acl), 0));
		R("statx STATX_MODE", statx(AT_FDCWD, "acl", 0, STATX_MODE, &sx));
		L("mode after the ACL = %o", sx.stx_mode & 07777);
	}
}

static void sc_readdir(void)
{
	DIR *d;
	struct dirent *de;
	long pos = -1;
	int i, n = 0, m = 0;
	char name[64];
	char first[64][64];

	R("mkdir big", mkdir("big", 0755));
	for (i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "big/entry-with-a-longish-name-%04d", i);
		int fd = open(name, O_CREAT | O_WRONLY, 0644);

		if (fd < 0) {
			L("creat %s = %s", name, res(-1));
			return;
		}
		close(fd);
	}
	listing("big");
	d = opendir("big");
	if (!d) {
		L("opendir = %s", res(-1));
		return;
	}
	/* telldir in the middle, read on, seekdir back: the same names again */
	while ((de = readdir(d))) {
		if (++n == 700)
			pos = telldir(d);
		if (n > 700 && n <= 764)
			snprintf(first[n - 701], 64, "%s", de->d_name);
	}
	seekdir(d, pos);
	while ((de = readdir(d)) && m < 64) {
		if (strcmp(first[m], de->d_name) != 0)
			break;
		m++;
	}
	L("entries %d, after seekdir %d of 64 equal", n, m);
	rewinddir(d);
	n = 0;
	while ((de = readdir(d)))
		n++;
	L("after rewinddir %d", n);
	closedir(d);
	/* unlink everything while reading */
	d = opendir("big");
	n = 0;
	while ((de = readdir(d))) {
		char p[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "big/%s", de->d_name);
		if (unlink(p) == 0)
			n++;
	}
	closedir(d);
	L("unlinked while reading %d", n);
	listing("big");
	R("rmdir big", rmdir("big"));
}

/* -- as an unprivileged user (the root part sets up, the user part runs) -- */

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0) {
		fchmod(out, mode);
		close(out);
	}
}

static void perm_setup(void)
{
	struct stat st;

	mkdir("priv", 0700);
	writes("priv/secret", "secret");
	stat("priv/secret", &st); /* the kernel now caches the name */
	writes("ro", "ro");
	chmod("ro", 0644);
	writes("rw", "rw");
	chmod("rw", 0666);
	writes("grp", "grp");
	chown("grp", 0, OTHER_GID);
	chmod("grp", 0640);
	copy_file("/bin/true", "exe", 0711);
	copy_file("/bin/true", "noexec", 0644);
	mkdir("sticky", 01777);
	chmod("sticky", 01777);
	writes("sticky/rootfile", "r");
	chmod("sticky/rootfile", 0666);
	mkdir("closed", 0755);
	mkdir("sgid", 0777);
	chown("sgid", 0, OTHER_GID);
	chmod("sgid", 02777);
	mkdir("wasopen", 0755);
	writes("wasopen/f", "f");
	writes("suid", "suid");
	chmod("suid", 04666);
	mkdir("groupdir", 0770);
	chown("groupdir", 0, OTHER_GID);
	writes("groupdir/f", "g");
	chmod("groupdir/f", 0644);
	mkdir("mine", 0755);
	chown("mine", USER_UID, USER_GID);
	writes("mine/f", "mine");
	chown("mine/f", USER_UID, USER_GID);
}

/* As the user: groups are set by the caller. */
static void perm_user(void)
{
	struct stat st;
	struct timespec ts[2] = { { 5, 0 }, { 6, 0 } };
	int fd;

	R("stat cached name in 0700 dir", stat("priv/secret", &st));
	R("open in 0700 dir", open("priv/secret", O_RDONLY));
	R("opendir 0700", (long)(intptr_t)opendir("priv") ? 0 : -1);
	R("access 0700 dir X_OK", access("priv", X_OK));
	R("chdir 0700 dir", chdir("priv"));
	fd = RFD("open ro rdonly", open("ro", O_RDONLY));
	if (fd >= 0)
		close(fd);
	R("open ro wronly", open("ro", O_WRONLY));
	R("open ro rdwr trunc", open("ro", O_RDWR | O_TRUNC));
	fd = RFD("open rw rdwr", open("rw", O_RDWR));
	if (fd >= 0)
		close(fd);
	R("open grp", open("grp", O_RDONLY));
	R("access ro W_OK", access("ro", W_OK));
	R("access ro R_OK", access("ro", R_OK));
	R("access exe X_OK", access("exe", X_OK));
	R("access noexec X_OK", access("noexec", X_OK));
	{
		pid_t pid = fork();
		int status = 0;

		if (pid == 0) {
			char *argv[] = { "exe", NULL };

			execv("./exe", argv);
			_exit(errno == EACCES ? 200 : 201);
		}
		waitpid(pid, &status, 0);
		L("exec 0711 file = %d", WEXITSTATUS(status));
		pid = fork();
		if (pid == 0) {
			char *argv[] = { "noexec", NULL };

			execv("./noexec", argv);
			_exit(errno == EACCES ? 200 : 201);
		}
		waitpid(pid, &status, 0);
		L("exec 0644 file = %d", WEXITSTATUS(status));
	}
	R("creat in closed dir", open("closed/x", O_CREAT | O_WRONLY, 0644));
	R("mkdir in closed dir", mkdir("closed/y", 0755));
	R("symlink in closed dir", symlink("x", "closed/z"));
	R("unlink other's file in sticky", unlink("sticky/rootfile"));
	R("rename other's file in sticky", rename("sticky/rootfile", "sticky/moved"));
	fd = RFD("creat own in sticky", open("sticky/mine", O_CREAT | O_WRONLY, 0666));
	if (fd >= 0)
		close(fd);
	S("own file in sticky (umask 022)", "sticky/mine");
	R("unlink own in sticky", unlink("sticky/mine"));
	R("chmod other's", chmod("ro", 0777));
	R("chown other's", chown("ro", USER_UID, -1));
	R("chown own to other user", chown("mine/f", 0, -1));
	R("chgrp own to foreign group", chown("mine/f", -1, OTHER_GID));
	R("chgrp own to own group", chown("mine/f", -1, USER_GID));
	R("utimes NULL on writable", utimensat(AT_FDCWD, "rw", NULL, 0));
	R("utimes explicit on writable", utimensat(AT_FDCWD, "rw", ts, 0));
	R("utimes NULL on read-only", utimensat(AT_FDCWD, "ro", NULL, 0));
	R("utimes explicit on own", utimensat(AT_FDCWD, "mine/f", ts, 0));
	R("truncate ro", truncate("ro", 0));
	R("truncate rw", truncate("rw", 1));
	R("unlink in root's dir", unlink("ro"));
	R("rename in root's dir", rename("rw", "rw2"));
	R("link in mine", link("mine/f", "mine/f2"));
	/* fs.protected_hardlinks: "ro" is gone by now (the scenario's directory
	 * is 0777), "noexec" is root's 0644 file, neither readable and writable
	 * nor owned by the user: EPERM */
	R("link other's read-only file into mine", link("noexec", "mine/noexec"));
	R("link other's file into mine", link("ro", "mine/ro")); /* fs.protected_hardlinks */
	R("link into closed dir", link("mine/f", "closed/l"));
	R("link onto existing name in closed dir", link("mine/f", "closed/.."));
	R("link onto existing name", link("mine/f", "ro"));
	umask(077);
	fd = RFD("creat with umask 077", open("mine/u", O_CREAT | O_WRONLY, 0666));
	if (fd >= 0)
		close(fd);
	S("umask 077", "mine/u");
	R("mkdir with umask 077", mkdir("mine/ud", 0777));
	S("umask 077 dir", "mine/ud");
	umask(022);
	fd = RFD("creat in sgid dir", open("sgid/f", O_CREAT | O_WRONLY, 0666));
	if (fd >= 0)
		close(fd);
	S("file in sgid dir", "sgid/f");
	R("mkdir in sgid dir", mkdir("sgid/d", 0777));
	S("dir in sgid dir", "sgid/d");
	R("chmod g+s own file", chmod("mine/f", 02755));
	S("g+s own file", "mine/f");
	R("chmod g+s on file of foreign group", chmod("sgid/f", 02755));
	S("g+s foreign group", "sgid/f");
	fd = RFD("open suid file", open("suid", O_WRONLY));
	R("write suid file", write(fd, "x", 1));
	if (fd >= 0)
		close(fd);
	S("suid after write by other", "suid");
	R("stat in group dir", stat("groupdir/f", &st));
	R("open in group dir", open("groupdir/f", O_RDONLY));
	R("readlink own", (symlink("target", "mine/sl"), readlink("mine/sl", (char[64]){ 0 }, 64)));
	R("rmdir other's", rmdir("closed"));
}

static void perm_after_chmod(void)
{
	struct stat st;

	R("stat wasopen/f (open dir)", stat("wasopen/f", &st));
}

/* ------------------------------------------------------------------ */

struct scenario {
	const char *name;
	void (*setup)(void); /* as root, may be NULL */
	void (*run)(void);
	uid_t uid; /* 0: root */
	int ngroups;
	gid_t groups[4];
	void (*root_between)(void); /* as root after run, then run2 */
	void (*run2)(void);
};

static void root_chmod_wasopen(void)
{
	chmod("wasopen", 0700);
}

static const struct scenario scenarios[] = {
	{ "files", NULL, sc_files, 0 },
	{ "names", NULL, sc_names, 0 },
	{ "attributes", NULL, sc_attrs, 0 },
	{ "readdir", NULL, sc_readdir, 0 },
	{ "permissions (user 1000, no groups)", perm_setup, perm_user, USER_UID, 0, { 0 },
	  root_chmod_wasopen, perm_after_chmod },
	{ "permissions (user 1000, groups 1234)", perm_setup, perm_user, USER_UID, 1, { OTHER_GID },
	  root_chmod_wasopen, perm_after_chmod },
};

static void become(const struct scenario *s)
{
	if (!s->uid)
		return;
	if (setgroups(s->ngroups, s->groups) < 0 || setresgid(USER_GID, USER_GID, USER_GID) < 0 ||
	    setresuid(s->uid, s->uid, s->uid) < 0) {
		L("cannot become user: %s", strerror(errno));
		_exit(1);
	}
}

/* Run step (as the scenario's user or root) in a child, in dir. */
static void run_step(const char *dir, const struct scenario *s, void (*step)(void), bool as_user)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (chdir(dir) < 0) {
			L("chdir %s: %s", dir, strerror(errno));
			_exit(1);
		}
		umask(022);
		if (as_user) {
			/* stat as the user first: the kernel caches what root saw */
			become(s);
		}
		step();
		_exit(0);
	}
	if (fuse_wait_pid(pid, 60) == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		L("step timed out");
	}
}

static void run_scenario_in(const char *base, const struct scenario *s, int idx)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/s%d", base, idx);
	if (mkdir(dir, 0777) < 0 || chmod(dir, 0777) < 0) {
		L("mkdir %s: %s", dir, strerror(errno));
		return;
	}
	if (s->setup)
		run_step(dir, s, s->setup, false);
	run_step(dir, s, s->run, s->uid != 0);
	if (s->root_between) {
		run_step(dir, s, s->root_between, false);
		run_step(dir, s, s->run2, s->uid != 0);
	}
}

static void differential(void)
{
	static struct xlog *logs[2];
	char mbase[PATH_MAX];

	for (int i = 0; i < 2; i++)
		if (!logs[i])
			logs[i] = mmap(NULL, sizeof(struct xlog), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(mbase, sizeof(mbase), "%s/diff", mnt);
	mkdir(mbase, 0755);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		const struct scenario *s = &scenarios[i];
		const char *bases[2] = { hostdir, mbase };
		char *a, *b, *sa, *sb;
		int lines = 0, diffs = 0;

		for (int k = 0; k < 2; k++) {
			xl = logs[k];
			xl->len = 0;
			run_scenario_in(bases[k], s, (int)i);
			xl->buf[xl->len] = 0;
		}
		a = strtok_r(logs[0]->buf, "\n", &sa);
		b = strtok_r(logs[1]->buf, "\n", &sb);
		while (a || b) {
			lines++;
			if (!a || !b || strcmp(a, b) != 0) {
				if (diffs < 12)
					printf("   %s: host  | %s\n   %*s  mount | %s\n", s->name, a ? a : "(end)",
					       (int)strlen(s->name), "", b ? b : "(end)");
				diffs++;
			}
			a = a ? strtok_r(NULL, "\n", &sa) : NULL;
			b = b ? strtok_r(NULL, "\n", &sb) : NULL;
		}
		check(diffs == 0 && lines > 5, "differential %s: %d results, %d differ from host tmpfs", s->name,
		      lines, diffs);
	}
}

/* ------------------------------------------------------------------ */
/* permission changes and the kernel's name cache                      */

/*
 * Without default_permissions the kernel checks nothing on a walk through
 * names it has cached, so a change that takes search permission away must
 * have reached its cache when the call that made it returns.  Each round the
 * user caches names below an open directory (a file, a missing name, a
 * directory with a file), then root closes the directory with chmod, or moves
 * a cached name (a file, a directory) into a closed one, and the user looks
 * again at once.  The user is the same process with fsuid/fsgid switched
 * (which also drops root's file capabilities), so that nothing comes between
 * root's call and the user's look: the race this excludes is microseconds
 * wide.
 */
#define PC_ROUNDS 150

static void pc_cred(bool user)
{
	if (user) {
		setfsgid(USER_GID);
		setfsuid(USER_UID);
	} else {
		setfsuid(0);
		setfsgid(0);
	}
}

static int pc_stat(const char *base, const char *fmt, int i)
{
	char rel[128], p[PATH_MAX];
	struct stat st;
	int r;

	snprintf(rel, sizeof(rel), fmt, i);
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	pc_cred(true);
	r = stat(p, &st) < 0 ? -errno : 0;
	pc_cred(false);
	return r;
}

static void pc_path(char *p, const char *base, const char *fmt, int i)
{
	char rel[128];

	snprintf(rel, sizeof(rel), fmt, i);
	snprintf(p, PATH_MAX, "%s/%s", base, rel);
}

/* One round on one side; its results as a line. */
static void pc_round(const char *base, int i, char *out, size_t len)
{
	char p[PATH_MAX], q[PATH_MAX];
	int fd, r[10];

	pc_path(p, base, "d%d", i);
	mkdir(p, 0755);
	pc_path(p, base, "d%d/f", i);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	pc_path(p, base, "o%d", i);
	mkdir(p, 0755);
	pc_path(p, base, "o%d/x", i);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	pc_path(p, base, "o%d/sub", i);
	mkdir(p, 0755);
	pc_path(p, base, "o%d/sub/y", i);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);

	r[0] = pc_stat(base, "d%d/f", i);
	r[1] = pc_stat(base, "d%d/none", i);
	r[2] = pc_stat(base, "o%d/x", i);
	r[3] = pc_stat(base, "o%d/sub/y", i);
	pc_path(p, base, "d%d", i);
	chmod(p, 0700);
	r[4] = pc_stat(base, "d%d/f", i);
	r[5] = pc_stat(base, "d%d/none", i);
	pc_path(p, base, "o%d/x", i);
	pc_path(q, base, "closed/x%d", i);
	rename(p, q);
	r[6] = pc_stat(base, "closed/x%d", i);
	pc_path(p, base, "o%d/sub", i);
	pc_path(q, base, "closed/sub%d", i);
	rename(p, q);
	r[7] = pc_stat(base, "closed/sub%d/y", i);
	/* and open again: the names come back */
	pc_path(p, base, "d%d", i);
	chmod(p, 0755);
	r[8] = pc_stat(base, "d%d/f", i);
	r[9] = pc_stat(base, "d%d/none", i);
	out[0] = 0;
	for (int k = 0; k < 10; k++) {
		static const char *const sep[10] = { "", " ", " ", " ", " | chmod 0700: ", " ",
						     " | moved into closed: ", " ", " | chmod 0755: ", " " };
		size_t l = strlen(out);

		snprintf(out + l, len - l, "%s%s%s", sep[k], r[k] ? "-" : "0",
			 r[k] ? (strerrorname_np(-r[k]) ? strerrorname_np(-r[k]) : "?") : "");
	}
}

/* Rounds on the host under hostdir/NAME and on the mount under mbase/NAME. */
static void pc_rounds(const char *mbase, const char *name, const char *what)
{
	char bases[2][PATH_MAX], line[2][512];
	int diffs = 0;

	snprintf(bases[0], PATH_MAX, "%s/%s", hostdir, name);
	snprintf(bases[1], PATH_MAX, "%s/%s", mbase, name);
	for (int k = 0; k < 2; k++) {
		char p[PATH_MAX];

		mkdir(bases[k], 0755);
		snprintf(p, sizeof(p), "%s/closed", bases[k]);
		mkdir(p, 0700);
	}
	for (int i = 0; i < PC_ROUNDS; i++) {
		for (int k = 0; k < 2; k++)
			pc_round(bases[k], i, line[k], sizeof(line[k]));
		if (strcmp(line[0], line[1]) != 0) {
			if (diffs < 6)
				printf("   round %d: host  | %s\n   %*s mount | %s\n", i, line[0],
				       (int)(snprintf(NULL, 0, "%d", i) + 6), "", line[1]);
			diffs++;
		}
	}
	check(diffs == 0 && strstr(line[0], "chmod 0700: -EACCES -EACCES | moved into closed: -EACCES -EACCES"),
	      "%s: %d rounds, %d differ from host tmpfs (host: %s)", what, PC_ROUNDS, diffs, line[0]);
}

static void sec_permchange(void)
{
	char p[PATH_MAX];
	pid_t pid;

	if (setgroups(0, NULL) < 0) {
		fail("permission change: setgroups: %s", strerror(errno));
		return;
	}
	umask(022);
	pc_rounds(mnt, "pc", "permission change vs the kernel's name cache");
	/* the way without the kernel's epoch: no name cached */
	snprintf(p, sizeof(p), "%s/mnt5", workdir);
	mkdir(p, 0755);
	pid = start_server(p, "-o noepoch,mode=0755");
	if (pid < 0) {
		fail("permission change (-o noepoch): the mount did not come up");
		return;
	}
	pc_rounds(p, "pc-noepoch", "permission change vs the kernel's name cache (-o noepoch)");
	stop_server(pid, p);
	rmdir(p);
}

/* ------------------------------------------------------------------ */
/* real programs                                                       */

static void sec_tar(void)
{
	char src[PATH_MAX], tarball[PATH_MAX], out_m[PATH_MAX], out_h[PATH_MAX];

	if (!have_prog("tar") || !have_prog("diff")) {
		skip("tar: tar or diff not installed");
		return;
	}
	/* A tree with what archives hold: nested dirs, empty dirs and files,
	 * symlinks, hard links, modes, odd names, a big file, headers. */
	snprintf(src, sizeof(src), "%s/tarsrc", workdir);
	snprintf(tarball, sizeof(tarball), "%s/t.tar", workdir);
	if (sh(workdir, 120,
	       "mkdir -p tarsrc/a/b/c tarsrc/empty tarsrc/modes && cd tarsrc && "
	       "cp -a /usr/include/linux inc && "
	       "echo hi > a/b/c/f && : > a/empty && ln -s b/c/f a/link && ln -s ../nowhere a/dangling && "
	       "ln a/b/c/f a/hard && printf 'x%%.0s' $(seq 1 2000) > 'a/name with spaces' && "
	       "for m in 600 640 700 755 1777 2755 4755; do echo $m > modes/$m; chmod $m modes/$m; done && "
	       "mkdir modes/d700 && chmod 700 modes/d700 && "
	       "head -c 5000000 /dev/urandom > big && mkfifo fifo && "
	       "touch -d '2001-02-03 04:05:06' a/empty && "
	       "tar -cf '%s' .", tarball) != 0) {
		fail("tar: building the source tree");
		return;
	}
	snprintf(out_m, sizeof(out_m), "%s/tar", mnt);
	snprintf(out_h, sizeof(out_h), "%s/tar", hostdir);
	check(sh(workdir, 120, "mkdir '%s' && tar -C '%s' -xpf '%s'", out_m, out_m, tarball) == 0,
	      "tar: extract into the mount");
	check(sh(workdir, 120, "mkdir '%s' && tar -C '%s' -xpf '%s'", out_h, out_h, tarball) == 0,
	      "tar: extract into /dev/shm");
	check(sh(workdir, 120, "diff -r --no-dereference -x fifo '%s' '%s'", out_h, out_m) == 0,
	      "tar: diff -r mount vs /dev/shm");
	/* what diff does not look at: types, modes, owners, link counts,
	 * symlink targets, sizes, mtimes */
	check(sh(workdir, 120,
		 "(cd '%s' && find . -printf '%%p %%y %%m %%U %%G %%n %%l %%s %%T@\\n' | sort) > ls.h && "
		 "(cd '%s' && find . -printf '%%p %%y %%m %%U %%G %%n %%l %%s %%T@\\n' | grep -v '^\\. ' | sort) > ls.m0 && "
		 "grep -v '^\\. ' ls.h > ls.h0 && diff ls.h0 ls.m0",
		 out_h, out_m) == 0,
	      "tar: types, modes, owners, links, sizes and mtimes equal");
	check(sh(workdir, 120, "tar --sort=name -C '%s' -cf m.tar . && tar -tvf m.tar | sort > tv.m && "
		 "tar --sort=name -C '%s' -cf h.tar . && tar -tvf h.tar | sort > tv.h && diff tv.h tv.m", out_m, out_h) == 0,
	      "tar: archiving the mount lists like archiving /dev/shm");
	check(sh(workdir, 120, "rm -rf '%s' && test ! -e '%s'", out_m, out_m) == 0, "tar: rm -rf the tree");
}

static void sec_git(void)
{
	char dir[PATH_MAX];

	if (!have_prog("git")) {
		skip("git: not installed");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/git", mnt);
	mkdir(dir, 0755);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", workdir, 1);
	setenv("GIT_AUTHOR_NAME", "t", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "t", 1);
	setenv("GIT_COMMITTER_EMAIL", "t@example.org", 1);
	check(sh(dir, 60, "git init -q -b main . && git config core.fileMode true") == 0, "git: init");
	check(sh(dir, 60, "cp -r /usr/include/linux/*.h . && mkdir sub && echo one > sub/file && "
		 "chmod 755 sub/file && ln -s sub/file link && git add -A && git commit -q -m first") == 0,
	      "git: add and commit");
	check(sh(dir, 60, "git checkout -q -b topic && echo two >> sub/file && git rm -q fuse.h && "
		 "git mv link link2 && echo new > new && git add -A && git commit -q -m second") == 0,
	      "git: branch and commit on it");
	check(sh(dir, 60, "test \"$(git log --format=%%s | tr '\\n' ' ')\" = 'second first '") == 0,
	      "git: log shows both commits");
	check(sh(dir, 60, "git checkout -q main && test ! -e new && test -e fuse.h && test -L link && "
		 "test \"$(cat sub/file)\" = one && git status --porcelain | wc -l | grep -qx 0") == 0,
	      "git: checkout main restores the tree");
	check(sh(dir, 60, "git checkout -q topic && test -e new && test ! -e fuse.h && "
		 "test \"$(tail -n1 sub/file)\" = two && git diff --stat main topic | tail -n1 | grep -q changed") == 0,
	      "git: checkout topic, diff between branches");
	check(sh(dir, 120, "git fsck --strict --no-progress && git gc -q && git fsck --no-progress") == 0,
	      "git: fsck, gc, fsck");
}

static void sec_make(void)
{
	char dir[PATH_MAX];

	if (!have_prog("make") || !have_prog("cc")) {
		skip("make: make or cc not installed");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/make", mnt);
	mkdir(dir, 0755);
	check(sh(dir, 60,
		 "printf '#include \"hello.h\"\\nint main(void){ return greet(); }\\n' > main.c && "
		 "printf 'int greet(void);\\n' > hello.h && "
		 "printf '#include <stdio.h>\\n#include \"hello.h\"\\nint greet(void){ puts(\"hello from uvfs\"); return 0; }\\n' > greet.c && "
		 "printf 'hello: main.o greet.o\\n\\t$(CC) -o $@ $^\\n%%.o: %%.c hello.h\\n\\t$(CC) -O2 -c -o $@ $<\\n' > Makefile && "
		 "make -s") == 0,
	      "make: build a small C program");
	check(sh(dir, 30, "./hello | grep -qx 'hello from uvfs'") == 0, "make: run the program from the mount");
	check(sh(dir, 30, "make -q") == 0, "make: up to date (mtimes)");
	check(sh(dir, 60, "sleep 1.1 && touch greet.c && ! make -q && make -s 2>&1 && make -q && ./hello >/dev/null") == 0,
	      "make: rebuild after touch");
	check(sh(dir, 60, "make -s -j4 -B && ./hello >/dev/null") == 0, "make: parallel rebuild");
}

/* The same sqlite3 session in the mount and on the host tmpfs: outputs equal. */
static void sec_sqlite(void)
{
	static const char *steps[][2] = {
		{ "create, insert 2000 rows in a transaction, query (rollback journal)",
		  "sqlite3 db 'CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);' && "
		  "(echo 'BEGIN;'; for i in $(seq 1 2000); do echo \"INSERT INTO t(name, v) VALUES('n$i', $i.5);\"; done; "
		  "echo 'COMMIT;') | sqlite3 db && sqlite3 db 'SELECT count(*), sum(v) FROM t;'" },
		{ "index, update, delete, vacuum, integrity_check",
		  "sqlite3 db 'CREATE INDEX i ON t(name); UPDATE t SET v = v * 2 WHERE id % 2 = 0; "
		  "DELETE FROM t WHERE id > 1500; VACUUM;' && "
		  "sqlite3 db 'SELECT count(*), sum(v) FROM t WHERE name LIKE \"n1%\"; PRAGMA integrity_check;'" },
		{ "WAL mode (mmap'ed -shm), four concurrent writers",
		  "sqlite3 w.db 'PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3);' && "
		  "(for i in 1 2 3 4; do sqlite3 -cmd '.timeout 20000' w.db 'INSERT INTO t SELECT x FROM t LIMIT 3;' & done; wait) && "
		  "sqlite3 w.db 'SELECT count(*), sum(x) FROM t; PRAGMA integrity_check;'" },
	};
	char dm[PATH_MAX], dh[PATH_MAX];

	if (!have_prog("sqlite3")) {
		skip("sqlite3: not installed (apt-get install sqlite3)");
		return;
	}
	snprintf(dm, sizeof(dm), "%s/sqlite", mnt);
	snprintf(dh, sizeof(dh), "%s/sqlite", hostdir);
	mkdir(dm, 0755);
	mkdir(dh, 0755);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int rm = sh(dm, 120, "{ %s ; } > ../sql.out.m", steps[i][1]);
		int rh = sh(dh, 120, "{ %s ; } > ../sql.out.h", steps[i][1]);

		check(rm == 0 && rh == 0 && sh(workdir, 10, "diff '%s/sql.out.h' '%s/sql.out.m'", hostdir, mnt) == 0,
		      "sqlite3: %s: same output as on tmpfs", steps[i][0]);
	}
	sh(workdir, 10, "rm -f '%s/sql.out.h' '%s/sql.out.m'", hostdir, mnt);
}

/* ------------------------------------------------------------------ */
/* concurrency                                                         */

#define CW 8    /* workers */
#define CI 300  /* iterations each */
#define CS 40   /* shared target names */

static void conc_worker(int w)
{
	char a[PATH_MAX], b[PATH_MAX], data[64];

	for (int k = 0; k < CI; k++) {
		int fd, len;

		/* a private name renamed into the shared directory */
		snprintf(a, sizeof(a), "%s/conc/w%d/tmp.%d", mnt, w, k);
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			printf("   worker %d: creat %s: %s\n", w, a, strerror(errno));
			_exit(1);
		}
		len = snprintf(data, sizeof(data), "w%d k%d", w, k);
		if (write(fd, data, len) != len)
			_exit(2);
		close(fd);
		snprintf(b, sizeof(b), "%s/conc/shared/v.%d.%d", mnt, w, k);
		if (rename(a, b) < 0) {
			printf("   worker %d: rename %s: %s\n", w, b, strerror(errno));
			_exit(3);
		}
		/* contended: everybody renames over the same few names */
		snprintf(a, sizeof(a), "%s/conc/w%d/c.%d", mnt, w, k);
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			_exit(4);
		len = snprintf(data, sizeof(data), "slot %d w%d k%d", k % CS, w, k);
		if (write(fd, data, len) != len)
			_exit(5);
		close(fd);
		snprintf(b, sizeof(b), "%s/conc/shared/slot.%d", mnt, k % CS);
		if (rename(a, b) < 0)
			_exit(6);
		/* every third private file goes again */
		if (k % 3 == 0) {
			snprintf(b, sizeof(b), "%s/conc/shared/v.%d.%d", mnt, w, k);
			if (unlink(b) < 0)
				_exit(7);
		}
		/* racing mkdir/rmdir of the same names */
		snprintf(b, sizeof(b), "%s/conc/shared/dir.%d", mnt, k % 4);
		if (mkdir(b, 0755) == 0)
			rmdir(b);
		else if (errno != EEXIST)
			_exit(8);
		/* lookups of names others are renaming */
		snprintf(b, sizeof(b), "%s/conc/shared/slot.%d", mnt, (k + w) % CS);
		struct stat st;
		if (stat(b, &st) < 0 && errno != ENOENT)
			_exit(9);
	}
	_exit(0);
}

static void sec_concurrency(void)
{
	char p[PATH_MAX];
	pid_t pids[CW];
	int bad = 0, nfiles = 0, nslots = 0, nother = 0;
	double t0;
	DIR *d;
	struct dirent *de;
	ino_t inos[CW * CI + CS + 16];
	int ninos = 0;

	snprintf(p, sizeof(p), "%s/conc", mnt);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/conc/shared", mnt);
	mkdir(p, 0755);
	for (int w = 0; w < CW; w++) {
		snprintf(p, sizeof(p), "%s/conc/w%d", mnt, w);
		mkdir(p, 0755);
	}
	t0 = now();
	for (int w = 0; w < CW; w++) {
		pids[w] = fork();
		if (pids[w] == 0)
			conc_worker(w);
	}
	for (int w = 0; w < CW; w++) {
		int st = fuse_wait_pid(pids[w], 120);

		if (st == -1) {
			kill(pids[w], SIGKILL);
			waitpid(pids[w], NULL, 0);
		}
		if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			printf("   worker %d: status %d\n", w, st);
			bad++;
		}
	}
	check(bad == 0, "concurrency: %d processes x %d iterations of create/rename/unlink/mkdir (%.2f s)",
	      CW, CI, now() - t0);

	/* consistency: exactly the expected names, each with its own content */
	snprintf(p, sizeof(p), "%s/conc/shared", mnt);
	d = opendir(p);
	if (!d) {
		fail("concurrency: opendir shared: %s", strerror(errno));
		return;
	}
	bad = 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX], data[64], want[64];
		int w, k, fd;
		ssize_t n;
		struct stat st;

		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", p, de->d_name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_ino != de->d_ino) {
			printf("   bad entry %s\n", de->d_name);
			bad++;
			continue;
		}
		if (ninos < (int)(sizeof(inos) / sizeof(inos[0])))
			inos[ninos++] = st.st_ino;
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, data, sizeof(data) - 1) : -1;
		if (fd >= 0)
			close(fd);
		data[n > 0 ? n : 0] = 0;
		if (sscanf(de->d_name, "v.%d.%d", &w, &k) == 2) {
			snprintf(want, sizeof(want), "w%d k%d", w, k);
			if (strcmp(data, want) != 0 || k % 3 == 0) {
				printf("   %s holds [%s]\n", de->d_name, data);
				bad++;
			}
			nfiles++;
		} else if (sscanf(de->d_name, "slot.%d", &k) == 1) {
			int s2, w2, k2;

			if (sscanf(data, "slot %d w%d k%d", &s2, &w2, &k2) != 3 || s2 != k || k2 % CS != k) {
				printf("   %s holds [%s]\n", de->d_name, data);
				bad++;
			}
			nslots++;
		} else {
			nother++;
			printf("   unexpected %s\n", de->d_name);
		}
	}
	closedir(d);
	for (int i = 0; i < ninos; i++)
		for (int j = i + 1; j < ninos; j++)
			if (inos[i] == inos[j])
				bad++;
	{
		int want_files = CW * (CI - (CI + 2) / 3);

		check(bad == 0 && nfiles == want_files && nslots == CS && nother == 0,
		      "concurrency: %d/%d renamed files, %d/%d contended slots, %d stray names, %d bad, inode numbers unique",
		      nfiles, want_files, nslots, CS, nother, bad);
	}
	/* the private directories hold nothing any more */
	bad = 0;
	for (int w = 0; w < CW; w++) {
		snprintf(p, sizeof(p), "%s/conc/w%d", mnt, w);
		d = opendir(p);
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				bad++;
		if (d)
			closedir(d);
		if (rmdir(p) < 0)
			bad++;
	}
	{
		struct stat st;
		int sr;

		snprintf(p, sizeof(p), "%s/conc", mnt);
		memset(&st, 0, sizeof(st));
		sr = stat(p, &st);
		check(bad == 0 && sr == 0 && st.st_nlink == 3,
		      "concurrency: private dirs empty and removable, parent nlink %lu",
		      (unsigned long)st.st_nlink);
	}
	check(sh(mnt, 60, "rm -rf conc && test ! -e conc") == 0, "concurrency: rm -rf");
}

/* ------------------------------------------------------------------ */
/* mount and unmount                                                   */

static void sec_mount_errors(void)
{
	char p[PATH_MAX];
	int r;

	snprintf(p, sizeof(p), "%s/does-not-exist", workdir);
	{
		char *argv[] = { fuse_bin, "-f", p, NULL };

		r = run_argv(argv, 10, true);
		check(r != 0 && r > 0, "mount: non-existent mount point refused (exit %d)", r);
	}
	snprintf(p, sizeof(p), "%s/afile", workdir);
	close(open(p, O_CREAT | O_WRONLY, 0644));
	{
		char *argv[] = { fuse_bin, "-f", p, NULL };

		r = run_argv(argv, 10, true);
		check(r > 0, "mount: a regular file as mount point refused (exit %d)", r);
	}
	{
		char *argv[] = { fuse_bin, "-f", mnt, NULL };

		r = run_argv(argv, 10, true);
		check(r > 0 && fuse_mounted(mnt), "mount: busy mount point refused (exit %d)", r);
	}
	{
		char *argv[] = { fuse_bin, "-f", "-o", "no_such_option", workdir, NULL };

		r = run_argv(argv, 10, true);
		check(r > 0, "mount: unknown option refused (exit %d)", r);
	}
	{
		char *argv[] = { fuse_bin, "--version", NULL };

		r = run_argv(argv, 10, true);
		check(r == 0, "--version");
	}
	{
		char *argv[] = { fuse_bin, "--help", NULL };

		r = run_argv(argv, 10, true);
		check(r == 0, "--help");
	}
}

static void sec_sigterm(void)
{
	char p[PATH_MAX];
	pid_t pid;
	int st;

	snprintf(p, sizeof(p), "%s/mnt2", workdir);
	mkdir(p, 0755);
	pid = start_server(p, "-s -o size=1m,nr_inodes=100,mode=0750,uid=12,gid=34");
	if (pid < 0) {
		fail("second mount (-s, size=1m): did not come up");
		return;
	}
	{
		struct stat sb;
		char f[PATH_MAX];
		int fd, n = 0, sr;
		static char buf[65536];

		memset(&sb, 0, sizeof(sb));
		sr = stat(p, &sb);
		check(sr == 0 && sb.st_uid == 12 && sb.st_gid == 34 && (sb.st_mode & 07777) == 0750,
		      "mount options uid=, gid=, mode= give the root %o %u:%u", sb.st_mode & 07777, sb.st_uid,
		      sb.st_gid);
		snprintf(f, sizeof(f), "%s/fill", p);
		fd = open(f, O_CREAT | O_WRONLY, 0644);
		errno = 0;
		while (fd >= 0 && n < 64 && write(fd, buf, sizeof(buf)) == sizeof(buf))
			n++;
		sr = errno;
		check(n < 64 && sr == ENOSPC, "size=1m: writing 4 MiB stops with ENOSPC after %d KiB (%s)",
		      n * 64, strerror(sr));
		if (fd >= 0)
			close(fd);
	}
	kill(pid, SIGTERM);
	st = fuse_wait_pid(pid, 10);
	check(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && !is_mounted(p),
	      "SIGTERM: server exits 0 and the mount is gone");
	if (st < 0)
		stop_server(pid, p);
	else if (is_mounted(p))
		stop_server(-1, p);
	rmdir(p);
}

/*
 * A server with nothing to do ends on SIGTERM, in libfuse's single-threaded
 * loop (-s) and in the frontend's own: its workers sleep in poll(2) once
 * their spin is over, and a signal that came during the spin or the sleep
 * must still end the read.  Before the fix the -s server slept on in poll
 * after the handler had run, on every run.
 */
static void sec_sigterm_idle(void)
{
	static const char *const modes[] = { "-s", "", "-s -o spin=1000000" };
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/mnt3", workdir);
	mkdir(p, 0755);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct stat sb;
		pid_t pid = start_server(p, modes[i]);
		int st;

		if (pid < 0) {
			fail("idle SIGTERM (%s): the server did not come up", modes[i]);
			continue;
		}
		/* a request, then idle for longer than the default spin (the
		 * last mode is still spinning: its 1 s spin is not over) */
		stat(p, &sb);
		usleep(200 * 1000);
		/* in -s, only the thread that reads may run the handler: had
		 * the notifier thread taken a SIGTERM, the reader would sleep on */
		if (!strncmp(modes[i], "-s", 2)) {
			int n = sigthreads_taking(pid, SIGTERM);

			check(n == 1, "idle SIGTERM (uvfs-fuse %s): one thread takes SIGTERM (%d do)", modes[i], n);
		}
		kill(pid, SIGTERM);
		st = fuse_wait_pid(pid, 10);
		check(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && !is_mounted(p),
		      "idle SIGTERM (uvfs-fuse %s): the server exits 0 within 10 s and the mount is gone", modes[i]);
		if (st < 0)
			stop_server(pid, p);
		else if (is_mounted(p))
			stop_server(-1, p);
	}
	rmdir(p);
}

/*
 * No-open (with default_permissions): the kernel opens and closes files
 * without a request, and what an open does is still done: O_TRUNC truncates,
 * O_APPEND appends, ftruncate works on an fd open for writing, write
 * permission is refused on open, a file that may be executed but not read
 * runs, O_NOATIME keeps atime.  The server's debug log shows one OPEN at
 * most (the first, answered ENOSYS).
 */
static int as_user(int (*fn)(const char *), const char *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(USER_GID, USER_GID, USER_GID) < 0 ||
		    setresuid(USER_UID, USER_UID, USER_UID) < 0)
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int open_wr_errno(const char *path)
{
	int fd = open(path, O_WRONLY);

	return fd >= 0 ? 0 : errno;
}

static int run_prog(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execv(path, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static ssize_t slurp(const char *path, char *buf, size_t len, int flags)
{
	int fd = open(path, O_RDONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static void sec_noopen(void)
{
	char p[PATH_MAX], f[PATH_MAX], x[PATH_MAX], log[PATH_MAX], buf[256], line[512];
	struct stat st, st2;
	long start = 0;
	int fd, opens = 0;
	pid_t pid;
	FILE *lf;

	snprintf(log, sizeof(log), "%s/server.log", workdir);
	if (stat(log, &st) == 0)
		start = (long)st.st_size;
	snprintf(p, sizeof(p), "%s/mnt3", workdir);
	mkdir(p, 0755);
	pid = start_server(p, "-d -o default_permissions,mode=0755");
	if (pid < 0) {
		fail("no-open mount (-o default_permissions): did not come up");
		return;
	}
	snprintf(f, sizeof(f), "%s/f", p);
	fd = open(f, O_CREAT | O_WRONLY, 0644);
	check(fd >= 0 && write(fd, "hello", 5) == 5 && close(fd) == 0, "no-open: create and write");
	check(slurp(f, buf, sizeof(buf), 0) == 5 && strcmp(buf, "hello") == 0, "no-open: read back");
	fd = open(f, O_WRONLY | O_TRUNC);
	check(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0, "no-open: O_TRUNC truncates (size %lld)",
	      fd >= 0 ? (long long)st.st_size : -1LL);
	check(fd >= 0 && write(fd, "abc", 3) == 3 && close(fd) == 0, "no-open: write after O_TRUNC");
	fd = open(f, O_WRONLY | O_APPEND);
	check(fd >= 0 && write(fd, "de", 2) == 2 && close(fd) == 0, "no-open: O_APPEND write");
	check(slurp(f, buf, sizeof(buf), 0) == 5 && strcmp(buf, "abcde") == 0, "no-open: O_APPEND wrote at the end (%s)",
	      buf);
	fd = open(f, O_RDWR);
	check(fd >= 0 && ftruncate(fd, 2) == 0 && fstat(fd, &st) == 0 && st.st_size == 2,
	      "no-open: ftruncate on an fd open for writing");
	if (fd >= 0)
		close(fd);
	check(as_user(open_wr_errno, f) == EACCES, "no-open: opening 0644 root's file for writing as a user: EACCES");
	snprintf(x, sizeof(x), "%s/true", p);
	copy_file("/bin/true", x, 0711);
	check(as_user(run_prog, x) == 0, "no-open: a file mode 0711 runs as a user (exec without read permission)");
	{
		struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };

		utimensat(AT_FDCWD, f, ts, 0);
		/* drop the page cache, so that the read reaches uvfs */
		fd = open(f, O_RDONLY);
		if (fd >= 0) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
		stat(f, &st);
		check(slurp(f, buf, sizeof(buf), O_NOATIME) == 2 && stat(f, &st2) == 0 &&
		      st2.st_atime == st.st_atime, "no-open: an O_NOATIME read keeps atime");
	}
	{
		/* chattr flags: the kernel opens without asking and cannot see
		 * them, so the open for writing succeeds; the write must not
		 * (it went into an immutable file before the fix) */
		char c[PATH_MAX];
		int fl, w, e;

		snprintf(c, sizeof(c), "%s/chattr", p);
		fd = open(c, O_CREAT | O_WRONLY, 0644);
		check(fd >= 0 && write(fd, "keep", 4) == 4 && close(fd) == 0, "no-open: a file for chattr");
		fd = open(c, O_RDONLY);
		fl = FS_IMMUTABLE_FL;
		check(fd >= 0 && ioctl(fd, FS_IOC_SETFLAGS, &fl) == 0, "no-open: chattr +i");
		if (fd >= 0)
			close(fd);
		fd = open(c, O_WRONLY);
		errno = 0;
		w = fd >= 0 ? (int)write(fd, "XX", 2) : -1;
		e = errno;
		check(fd >= 0 && w == -1 && e == EPERM, "no-open: a write into an immutable file is EPERM (%d, %s)", w,
		      strerror(e));
		if (fd >= 0)
			close(fd);
		fd = open(c, O_WRONLY | O_APPEND);
		errno = 0;
		w = fd >= 0 ? (int)write(fd, "XX", 2) : -1;
		e = errno;
		check(w == -1 && e == EPERM, "no-open: an O_APPEND write into an immutable file is EPERM (%d)", w);
		if (fd >= 0)
			close(fd);
		fd = open(c, O_RDONLY);
		fl = FS_APPEND_FL;
		check(fd >= 0 && ioctl(fd, FS_IOC_SETFLAGS, &fl) == 0, "no-open: chattr -i +a");
		if (fd >= 0)
			close(fd);
		fd = open(c, O_WRONLY | O_APPEND);
		check(fd >= 0 && write(fd, "+a", 2) == 2, "no-open: an O_APPEND write into an append-only file");
		if (fd >= 0)
			close(fd);
		fd = open(c, O_WRONLY);
		errno = 0;
		w = fd >= 0 ? (int)pwrite(fd, "XX", 2, 0) : -1;
		e = errno;
		check(w == -1 && e == EPERM, "no-open: a write not O_APPEND into an append-only file is EPERM (%d)", w);
		if (fd >= 0)
			close(fd);
		check(slurp(c, buf, sizeof(buf), 0) == 6 && strcmp(buf, "keep+a") == 0,
		      "no-open: the flagged file holds what it may (%s)", buf);
		fd = open(c, O_RDONLY);
		fl = 0;
		if (fd >= 0) {
			ioctl(fd, FS_IOC_SETFLAGS, &fl);
			close(fd);
		}
		unlink(c);
	}
	stop_server(pid, p);
	rmdir(p);
	lf = fopen(log, "r");
	if (lf) {
		fseek(lf, start, SEEK_SET);
		while (fgets(line, sizeof(line), lf))
			if (strstr(line, "opcode: OPEN (14)"))
				opens++;
		fclose(lf);
	}
	check(lf && opens <= 1, "no-open: %d OPEN requests reached the server for 9 opens", opens);
}

/*
 * -o writeback (with default_permissions): small writes land in the kernel's
 * page cache and reach uvfs later; what a program sees stays right (data,
 * size, a reopen, after fsync and unmount), and ENOSPC, which comes late,
 * is reported by fsync.
 */
static void sec_writeback(void)
{
	char p[PATH_MAX], f[PATH_MAX], buf[64], log[PATH_MAX], line[512];
	static char big[65536];
	struct stat st;
	int fd, i, ok = 1, n = 0, r, writes = 0;
	long start = 0;
	pid_t pid;
	FILE *lf;

	snprintf(log, sizeof(log), "%s/server.log", workdir);
	if (stat(log, &st) == 0)
		start = (long)st.st_size;
	snprintf(p, sizeof(p), "%s/mnt4", workdir);
	mkdir(p, 0755);
	pid = start_server(p, "-d -o default_permissions,writeback,size=1m");
	if (pid < 0) {
		fail("writeback mount: did not come up");
		return;
	}
	snprintf(f, sizeof(f), "%s/w", p);
	fd = open(f, O_CREAT | O_WRONLY, 0644);
	for (i = 0; fd >= 0 && i < 1000; i++)
		if (pwrite(fd, "0123456789", 10, (off_t)i * 10) != 10)
			ok = 0;
	check(fd >= 0 && ok && fstat(fd, &st) == 0 && st.st_size == 10000,
	      "writeback: 1000 small writes, size 10000 at once");
	if (fd >= 0)
		close(fd);
	fd = open(f, O_RDONLY);
	check(fd >= 0 && pread(fd, buf, 10, 9990) == 10 && memcmp(buf, "0123456789", 10) == 0,
	      "writeback: a reopen reads the last write");
	if (fd >= 0)
		close(fd);
	snprintf(f, sizeof(f), "%s/fill", p);
	fd = open(f, O_CREAT | O_WRONLY, 0644);
	while (fd >= 0 && n < 32 && write(fd, big, sizeof(big)) == sizeof(big))
		n++;
	errno = 0;
	r = fd >= 0 ? fsync(fd) : -1;
	check(r < 0 && errno == ENOSPC, "writeback: 2 MiB into size=1m: fsync reports ENOSPC (%s)", strerror(errno));
	if (fd >= 0)
		close(fd);
	stop_server(pid, p);
	rmdir(p);
	lf = fopen(log, "r");
	if (lf) {
		fseek(lf, start, SEEK_SET);
		while (fgets(line, sizeof(line), lf))
			if (strstr(line, "opcode: WRITE (16)"))
				writes++;
		fclose(lf);
	}
	check(lf && writes > 0 && writes < 100, "writeback: %d WRITE requests for 1032 writes", writes);
}

/*
 * The atime options given to the mount, against a host tmpfs mounted with
 * the same ones: whether a first read (readdir) and a second one just
 * after move a file's (directory's) atime, and the atime flags statfs shows.
 * Every access reaches the server: the kernel's caches are dropped before
 * each (reads served from the page cache never do, a FUSE difference).
 */
static void atime_round(const char *dir, bool drop, char *out, size_t len)
{
	struct timespec old[2] = { { 1577836800, 0 }, { 1577836800, 0 } };
	char f[PATH_MAX], d[PATH_MAX], buf[16];
	struct stat a1 = { 0 }, a2 = { 0 }, b1 = { 0 }, b2 = { 0 };
	struct statfs sf = { 0 };
	DIR *dp;
	int fd, i;

	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(d, sizeof(d), "%s/d", dir);
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, "data\n", 5) != 5)
			buf[0] = 0; /* the read below shows it */
		close(fd);
	}
	mkdir(d, 0755);
	utimensat(AT_FDCWD, f, old, 0);
	utimensat(AT_FDCWD, d, old, 0);
	for (i = 0; i < 2; i++) {
		/* past a tick of the host's coarse clock: the first access
		 * comes after the ctime of utimensat, the second after the
		 * atime of the first (relatime's "not newer than ctime") */
		usleep(50000);
		if (drop)
			sh("/", 10, "echo 3 > /proc/sys/vm/drop_caches");
		fd = open(f, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				buf[0] = 0; /* the stat below shows it */
			close(fd);
		}
		dp = opendir(d);
		if (dp) {
			while (readdir(dp))
				;
			closedir(dp);
		}
		stat(f, i ? &a2 : &a1);
		stat(d, i ? &b2 : &b1);
	}
	statfs(dir, &sf);
	snprintf(out, len, "file %d %d dir %d %d flags%s%s%s", a1.st_atime != old[0].tv_sec,
		 a2.st_atim.tv_sec != a1.st_atim.tv_sec || a2.st_atim.tv_nsec != a1.st_atim.tv_nsec,
		 b1.st_atime != old[0].tv_sec,
		 b2.st_atim.tv_sec != b1.st_atim.tv_sec || b2.st_atim.tv_nsec != b1.st_atim.tv_nsec,
		 sf.f_flags & ST_NOATIME ? " noatime" : "", sf.f_flags & ST_NODIRATIME ? " nodiratime" : "",
		 sf.f_flags & ST_RELATIME ? " relatime" : "");
	unlink(f);
	rmdir(d);
}

static void sec_atime(void)
{
	static const char *opts[] = { "relatime", "noatime", "strictatime", "nodiratime",
				      "strictatime,nodiratime", "noatime,strictatime", "atime" };
	char p[PATH_MAX], h[PATH_MAX], more[128], hr[128], mr[128];
	size_t i;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/mnt5", workdir);
	snprintf(h, sizeof(h), "%s/host5", workdir);
	mkdir(p, 0755);
	mkdir(h, 0755);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (sh("/", 10, "mount -t tmpfs -o %s tmpfs %s", opts[i], h) != 0) {
			fail("atime: host tmpfs -o %s did not mount", opts[i]);
			continue;
		}
		atime_round(h, false, hr, sizeof(hr));
		umount2(h, MNT_DETACH);
		snprintf(more, sizeof(more), "-o %s", opts[i]);
		pid = start_server(p, more);
		if (pid < 0) {
			fail("atime: mount -o %s did not come up", opts[i]);
			continue;
		}
		atime_round(p, true, mr, sizeof(mr));
		stop_server(pid, p);
		check(!strcmp(hr, mr), "atime: -o %s: host tmpfs \"%s\", the mount \"%s\"", opts[i], hr, mr);
	}
	rmdir(p);
	rmdir(h);
}

/*
 * File handles after the kernel dropped its caches (echo 2 >
 * /proc/sys/vm/drop_caches: dentries and inodes, so every node is
 * forgotten): open_by_handle_at must find the file, directory, subdirectory
 * and symlink again (the server's lookup of "." by inode number), and a
 * handle of a removed file must be stale, as on the host's tmpfs.
 */
struct fh128 {
	struct file_handle h;
	unsigned char buf[128];
};

static void sec_fhandle(void)
{
	static const char *names[] = { "fh/file", "fh/dir", "fh/dir/sub", "fh/link", "fh/gone" };
	struct fh128 fh[5];
	char p[PATH_MAX], buf[64];
	struct stat st[5], st2;
	int i, mid, fd, mfd, round;

	for (round = 0; round < 2; round++) {
		snprintf(p, sizeof(p), "%s/fh", mnt);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/fh/dir/sub", mnt);
		sh("/", 10, "mkdir -p '%s' && echo hello > '%s/fh/file' && echo x > '%s/fh/gone' && ln -s file '%s/fh/link'",
		   p, mnt, mnt, mnt);
		for (i = 0; i < 5; i++) {
			snprintf(p, sizeof(p), "%s/%s", mnt, names[i]);
			fh[i].h.handle_bytes = 128;
			errno = 0;
			check(name_to_handle_at(AT_FDCWD, p, &fh[i].h, &mid, 0) == 0 && lstat(p, &st[i]) == 0,
			      "file handles: name_to_handle_at %s (%s)", names[i], strerror(errno));
		}
		snprintf(p, sizeof(p), "%s/fh/gone", mnt);
		unlink(p);
		mfd = open(mnt, O_RDONLY | O_DIRECTORY);
		/* the second round keeps the kernel's caches: the same answers */
		if (round == 0)
			sh("/", 10, "sync; echo 2 > /proc/sys/vm/drop_caches");
		for (i = 0; i < 4; i++) {
			errno = 0;
			fd = open_by_handle_at(mfd, &fh[i].h, i == 3 ? O_PATH | O_NOFOLLOW : O_RDONLY);
			memset(buf, 0, sizeof(buf));
			check(fd >= 0 && fstat(fd, &st2) == 0 && st2.st_ino == st[i].st_ino &&
			      st2.st_mode == st[i].st_mode && (i != 0 || (read(fd, buf, sizeof(buf) - 1) == 6 &&
								     !strcmp(buf, "hello\n"))),
			      "file handles: %s open_by_handle_at %s (%s)", round ? "with caches" : "after drop_caches",
			      names[i], fd < 0 ? strerror(errno) : "the same inode");
			if (fd >= 0)
				close(fd);
		}
		fd = open_by_handle_at(mfd, &fh[4].h, O_RDONLY);
		check(fd < 0 && errno == ESTALE, "file handles: %s a removed file's handle is stale (%s)",
		      round ? "with caches" : "after drop_caches", fd < 0 ? strerror(errno) : "opened");
		if (fd >= 0)
			close(fd);
		close(mfd);
		sh("/", 10, "rm -rf '%s/fh'", mnt);
	}
}

/* ------------------------------------------------------------------ */

static const char *checks_when_skipped[] = {
	"mount", "mount errors", "differential files", "differential names", "differential attributes",
	"differential readdir", "differential permissions", "differential permissions (groups)",
	"permission change vs the kernel's name cache",
	"permission change vs the kernel's name cache (-o noepoch)",
	"tar", "git", "make", "sqlite3", "concurrency", "SIGTERM", "no-open", "writeback", "atime", "file handles", "unmount",
};

static void skip_all(const char *why)
{
	for (size_t i = 0; i < sizeof(checks_when_skipped) / sizeof(checks_when_skipped[0]); i++)
		skip("%s: %s", checks_when_skipped[i], why);
}

static bool fuse_usable(char *why, size_t len)
{
	int fd;

	if (geteuid() != 0) {
		snprintf(why, len, "not root (the tests mount with allow_other and switch users)");
		return false;
	}
	fd = open("/dev/fuse", O_RDWR);
	if (fd < 0) {
		snprintf(why, len, "/dev/fuse cannot be opened: %s", strerror(errno));
		return false;
	}
	close(fd);
	if (access(fuse_bin, X_OK) != 0) {
		snprintf(why, len, "%s not built (libfuse3-dev missing?)", fuse_bin);
		return false;
	}
	if (!have_prog("fusermount3")) {
		snprintf(why, len, "fusermount3 not installed (package fuse3)");
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	char why[256];
	int st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	main_pid = getpid();
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cnt == MAP_FAILED)
		return 2;
	snprintf(fuse_bin, sizeof(fuse_bin), "%s", fuse_program());
	if (getenv("UVFS_FUSE_ARGS"))
		snprintf(extra_args, sizeof(extra_args), "%s", getenv("UVFS_FUSE_ARGS"));

	if (!fuse_usable(why, sizeof(why))) {
		skip_all(why);
		goto out;
	}

	snprintf(workdir, sizeof(workdir), "/tmp/uvfs-fuse-test.XXXXXX");
	if (!mkdtemp(workdir)) {
		fail("mkdtemp: %s", strerror(errno));
		goto out;
	}
	chmod(workdir, 0755);
	snprintf(mnt, sizeof(mnt), "%s/mnt", workdir);
	mkdir(mnt, 0755);
	/* The host side: a private tmpfs (the reference), else /dev/shm. */
	snprintf(hostdir, sizeof(hostdir), "%s/host", workdir);
	mkdir(hostdir, 0755);
	if (mount("tmpfs", hostdir, "tmpfs", 0, "mode=0755") == 0) {
		host_tmpfs_mounted = true;
	} else {
		rmdir(hostdir);
		snprintf(hostdir, sizeof(hostdir), "/dev/shm/uvfs-fuse-test.%d", getpid());
		mkdir(hostdir, 0755);
		chmod(hostdir, 0755);
	}
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);

	printf("-- mount %s (%s %s)\n", mnt, fuse_bin, extra_args);
	server = start_server(mnt, NULL);
	if (server < 0) {
		char cmd[PATH_MAX + 64];

		fail("mount: uvfs-fuse did not come up; its log:");
		snprintf(cmd, sizeof(cmd), "tail -n 20 '%s/server.log'", workdir);
		if (system(cmd) != 0)
			printf("   (no log)\n");
		goto out;
	}
	{
		struct statfs sf;

		check(statfs(mnt, &sf) == 0 && sf.f_type == 0x65735546 /* FUSE_SUPER_MAGIC */,
		      "mount: %s is a fuse.uvfs mount", mnt);
		/* tmpfs's defaults without size= and nr_inodes=: half of the
		 * memory's pages, in blocks and in inodes (df shows the mount) */
		if (!strstr(extra_args, "size=") && !strstr(extra_args, "nr_inodes="))
			check(statfs(mnt, &sf) == 0 && sf.f_bsize == 4096 &&
			      sf.f_blocks == (unsigned long)sysconf(_SC_PHYS_PAGES) / 2 &&
			      sf.f_files == (unsigned long)sysconf(_SC_PHYS_PAGES) / 2,
			      "mount: statfs without size=, nr_inodes= shows tmpfs's defaults (%llu blocks, %llu inodes)",
			      (unsigned long long)sf.f_blocks, (unsigned long long)sf.f_files);
	}

	section("mount errors", 60, sec_mount_errors);
	section("differential scenarios", 600, differential);
	section("permission changes", 300, sec_permchange);
	section("tar", 300, sec_tar);
	section("git", 300, sec_git);
	section("make", 300, sec_make);
	section("sqlite3", 300, sec_sqlite);
	section("concurrency", 300, sec_concurrency);
	section("second mount, SIGTERM", 60, sec_sigterm);
	section("idle server, SIGTERM", 120, sec_sigterm_idle);
	section("no-open", 60, sec_noopen);
	section("writeback", 60, sec_writeback);
	section("atime options", 120, sec_atime);
	section("file handles", 60, sec_fhandle);

	printf("-- unmount\n");
	if (waitpid(server, &st, WNOHANG) == server) {
		fail("unmount: the server died during the tests (status 0x%x)", st);
		server = -1;
	} else {
		st = stop_server(server, mnt);
		server = -1;
		check(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && !is_mounted(mnt),
		      "unmount: fusermount3 -u, server exits 0, nothing left mounted");
	}
	{
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "grep -v '^$' '%s/server.log' 2>/dev/null | tail -n 20 | sed 's/^/   server: /'",
			 workdir);
		if (system(cmd) != 0)
			(void)0;
	}
	cleanup();
out:
	printf("%d passed, %d failed, %d skipped\n", cnt->passed, cnt->failed, cnt->skipped);
	return cnt->failed ? 1 : 0;
}
