// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stress: threads changing and reading the same directories at once, then a
 * walk that checks the tree they leave behind.
 *
 *   stress [-d SECONDS] [-t THREADS] [-s SEED] [-v]
 *
 * Threads 0 and 1 call into one proc (threads of one process), thread 2 into
 * a clone of it that shares the fd table (CLONE_FILES) but has its own cwd,
 * threads 3.. into procs of their own.  Each picks operations at random on
 * paths under /s/d0../s/d3, one or two levels deep, from a small pool of
 * names so that they collide: create (O_EXCL, writes a self-checking record),
 * O_TMPFILE + linkat, mkdir, symlink, link, rename (plain, NOREPLACE,
 * EXCHANGE, across directories, directories too), unlink, rmdir, and the
 * lookups stat, open+read+close, readlink, getdents, dirfd-relative and
 * cwd-relative walks; files and directories are also held open across
 * other operations and read later.  Meanwhile procs of their own mount
 * small tmpfs instances on /m/x (stacked), unmount them (EBUSY while in
 * use), detach them lazily and move the top one between /m/x and /m/y
 * (MS_MOVE), while the others create, rename, hold files
 * and look up there too.  Every result must be a success or an errno that the
 * race can explain; anything else fails.  Records and link bodies carry a
 * checksum, so a torn or misdirected read shows.
 *
 * Then, with the threads gone, the walk: every name getdents lists resolves
 * (relative to its directory and by full path) to an inode of the type
 * d_type says with the inode number d_ino says; no name is listed twice;
 * "." and ".." are right; a name from the pool that is not listed does not
 * resolve either (the dcache agrees with the listing); each non-directory's
 * nlink equals the names found for it; a directory has one name and nlink
 * 2 + its subdirectories, and its size counts its entries; file records and
 * link bodies are intact; the tmpfs's inode and page counts equal what the
 * walk found (no inode leaked or freed twice).  Last, uvfs_destroy, with
 * LeakSanitizer as the judge in the ASan build.
 */
#include "vfs.h" /* the instance's open-file count */
#include "check.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mount.h>
#include <signal.h>

#define NDIRS 4
#define NNAMES 12
#define RECLEN 18 /* "F" + 8 hex + 8 hex + "\n" */

static struct uvfs *vfs;
static volatile int stop;
static const char *volatile phase = "setup";

/* A run that never ends is a deadlock or a livelock: say where, and fail. */
static void on_alarm(int sig)
{
	(void)sig;
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "FAIL stress: still in phase \"%s\" at the watchdog's limit: deadlock or livelock?\n"
			 "%lu passed, %lu failed\n", phase, check_passed, check_failed + 1);
	if (write(1, msg, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}
static int verbose;

/* ---- self-checking contents ---- */

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	x ^= x >> 16;
	return x;
}
static void make_record(char *buf, uint32_t r)
{
	char tmp[RECLEN + 1];
	snprintf(tmp, sizeof(tmp), "F%08x%08x\n", r, mix32(r));
	memcpy(buf, tmp, RECLEN);
}
static bool record_ok(const char *buf, long len)
{
	if (len != RECLEN || buf[0] != 'F' || buf[RECLEN - 1] != '\n')
		return false;
	unsigned r, c;
	char tmp[RECLEN + 1];
	memcpy(tmp, buf, RECLEN);
	tmp[RECLEN] = 0;
	if (sscanf(tmp, "F%8x%8x", &r, &c) != 2)
		return false;
	return mix32(r) == c;
}
/* Link bodies: a shared directory (a symlink the walk follows) or a path
 * under /x, which never exists, with a checksum. */
static void make_link_body(char *buf, size_t size, uint32_t r)
{
	if (r % 3 == 0)
		snprintf(buf, size, "/s/d%u", (r >> 8) % NDIRS);
	else
		snprintf(buf, size, "/x/lnk-%08x-%08x", r, mix32(r ^ 0x5a5a5a5a));
}
static bool link_body_ok(const char *buf, long len)
{
	if (len <= 0 || len >= 64)
		return false;
	char tmp[64];
	memcpy(tmp, buf, (size_t)len);
	tmp[len] = 0;
	unsigned d, r, c;
	if (len == 5 && sscanf(tmp, "/s/d%u", &d) == 1)
		return d < NDIRS;
	if (len == 24 && sscanf(tmp, "/x/lnk-%8x-%8x", &r, &c) == 2)
		return mix32(r ^ 0x5a5a5a5a) == c;
	return false;
}

/* ---- workers ---- */

enum op {
	OP_CREATE, OP_TMPFILE, OP_MKDIR, OP_SYMLINK, OP_LINK, OP_RENAME, OP_RENAME_NOREPLACE,
	OP_RENAME_EXCHANGE, OP_UNLINK, OP_RMDIR, OP_STAT, OP_OPEN, OP_READLINK, OP_GETDENTS,
	OP_DIRFD, OP_CHDIR, OP_RELATIVE, OP_DUP, OP_HOLD, OP_MOUNT, NOPS
};
static const char *const op_names[NOPS] = {
	"create", "tmpfile+linkat", "mkdir", "symlink", "link", "rename", "rename-noreplace",
	"rename-exchange", "unlink", "rmdir", "stat", "open+read", "readlink", "getdents",
	"dirfd-stat", "chdir", "cwd-relative", "dup+close", "hold", "mount/umount",
};
/* weights out of the sum */
static unsigned op_weight[NOPS] = {
	10, 3, 6, 5, 5, 7, 3, 4, 8, 5, 12, 10, 5, 3, 4, 2, 5, 3, 6, 1,
};

struct worker {
	int id;
	struct uvfs_proc *p;
	bool own_fs; /* may chdir */
	uint64_t rng;
	pthread_t th;
	int cwd_depth; /* 0: "/", 1: /s, 2: /s/dK, 3: /s/dK/nX */
	unsigned long ops[NOPS], ok[NOPS];
	unsigned long bad, bad_content;
	int held[8]; /* fds kept open across other operations */
	unsigned nheld;
	volatile int cur_op; /* what it is doing, for a report of a hang */
};

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long printed_bad;

static uint64_t wrnd(struct worker *w)
{
	uint64_t x = w->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	w->rng = x;
	return x * 2685821657736338717ull;
}
static unsigned wrndn(struct worker *w, unsigned n) { return (unsigned)(wrnd(w) % n); }

static bool mounts_on;

static void random_path(struct worker *w, char *buf, size_t size)
{
	unsigned d = wrndn(w, NDIRS), a = wrndn(w, NNAMES);
	if (mounts_on && wrndn(w, 10) == 0) {
		/* in /m/x, where a tmpfs comes and goes */
		if (wrndn(w, 2))
			snprintf(buf, size, "/m/x/n%02u", a);
		else
			snprintf(buf, size, "/m/x/n%02u/n%02u", a, wrndn(w, NNAMES));
		return;
	}
	if (wrndn(w, 10) < 7)
		snprintf(buf, size, "/s/d%u/n%02u", d, a);
	else
		snprintf(buf, size, "/s/d%u/n%02u/n%02u", d, a, wrndn(w, NNAMES));
}

/* A result outside the errnos the race can explain. */
static void bad_result(struct worker *w, enum op op, long ret, const char *a, const char *b)
{
	w->bad++;
	pthread_mutex_lock(&print_lock);
	if (printed_bad++ < 20)
		printf("FAIL thread %d: %s(%s%s%s) = %ld\n", w->id, op_names[op], a, b ? ", " : "", b ? b : "", ret);
	pthread_mutex_unlock(&print_lock);
}
static void bad_content(struct worker *w, const char *what, const char *path, const char *buf, long len)
{
	w->bad_content++;
	pthread_mutex_lock(&print_lock);
	if (printed_bad++ < 20)
		printf("FAIL thread %d: %s of %s: %ld bytes \"%.*s\"\n", w->id, what, path, len,
		       (int)(len > 0 && len < 64 ? len : 0), buf);
	pthread_mutex_unlock(&print_lock);
}

/* Is ret a success or one of the listed errnos (a 0-terminated list)? */
static bool allowed(long ret, const int *errs)
{
	if (ret >= 0)
		return true;
	for (; *errs; errs++)
		if (ret == -*errs)
			return true;
	return false;
}
#define ALLOW(...) ((const int[]){ __VA_ARGS__, 0 })

static bool in_mnt(const char *path) { return path && !strncmp(path, "/m/", 3); }

static void check_result(struct worker *w, enum op op, long ret, const int *errs, const char *a, const char *b)
{
	/* the small tmpfs mounted on /m/x fills up (ENOSPC), and names do
	 * not move or link across it (EXDEV) */
	static const int mnt_errs[] = { ENOSPC, EXDEV, 0 };
	/* (both under /m too: a mount may come or go between the lookups) */
	if ((ret == -ENOSPC || ret == -EXDEV) && (in_mnt(a) || in_mnt(b)))
		errs = mnt_errs;
	w->ops[op]++;
	if (ret >= 0)
		w->ok[op]++;
	if (!allowed(ret, errs))
		bad_result(w, op, ret, a, b);
}

/* Reads what fd holds and checks it is empty or one intact record. */
static void check_file_fd(struct worker *w, int fd, const char *path)
{
	char buf[64];
	long n = uvfs_pread(w->p, fd, buf, sizeof(buf), 0);
	if (n < 0) {
		bad_content(w, "pread", path, buf, n);
		return;
	}
	if (n != 0 && !record_ok(buf, n))
		bad_content(w, "record", path, buf, n);
}

static const int *errs_lookup = ALLOW(ENOENT, ENOTDIR);

static void do_op(struct worker *w, enum op op)
{
	struct uvfs_proc *p = w->p;
	char a[128], b[128], body[64];
	long r;
	struct stat st;
	switch (op) {
	case OP_CREATE: {
		random_path(w, a, sizeof(a));
		int fd = uvfs_openat(p, AT_FDCWD, a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		check_result(w, op, fd, ALLOW(EEXIST, ENOENT, ENOTDIR), a, NULL);
		if (fd >= 0) {
			char rec[RECLEN];
			make_record(rec, (uint32_t)wrnd(w));
			r = uvfs_write(p, fd, rec, RECLEN);
			if (r != RECLEN)
				bad_result(w, op, r, a, "write");
			if ((r = uvfs_close(p, fd)) != 0)
				bad_result(w, op, r, a, "close");
		}
		break;
	}
	case OP_TMPFILE: {
		unsigned d = wrndn(w, NDIRS);
		snprintf(a, sizeof(a), "/s/d%u", d);
		int fd = uvfs_openat(p, AT_FDCWD, a, O_TMPFILE | O_RDWR, 0600);
		if (fd < 0) {
			check_result(w, op, fd, ALLOW(0), a, NULL);
			break;
		}
		char rec[RECLEN];
		make_record(rec, (uint32_t)wrnd(w));
		if ((r = uvfs_write(p, fd, rec, RECLEN)) != RECLEN)
			bad_result(w, op, r, a, "write");
		random_path(w, b, sizeof(b));
		r = uvfs_linkat(p, fd, "", AT_FDCWD, b, AT_EMPTY_PATH);
		check_result(w, op, r, ALLOW(EEXIST, ENOENT, ENOTDIR), a, b);
		if ((r = uvfs_close(p, fd)) != 0)
			bad_result(w, op, r, a, "close");
		break;
	}
	case OP_MKDIR:
		random_path(w, a, sizeof(a));
		r = uvfs_mkdirat(p, AT_FDCWD, a, 0755);
		check_result(w, op, r, ALLOW(EEXIST, ENOENT, ENOTDIR), a, NULL);
		break;
	case OP_SYMLINK:
		random_path(w, a, sizeof(a));
		make_link_body(body, sizeof(body), (uint32_t)wrnd(w));
		r = uvfs_symlinkat(p, body, AT_FDCWD, a);
		check_result(w, op, r, ALLOW(EEXIST, ENOENT, ENOTDIR), a, body);
		break;
	case OP_LINK: {
		random_path(w, a, sizeof(a));
		random_path(w, b, sizeof(b));
		int follow = wrndn(w, 4) == 0 ? AT_SYMLINK_FOLLOW : 0;
		r = uvfs_linkat(p, AT_FDCWD, a, AT_FDCWD, b, follow);
		check_result(w, op, r, ALLOW(EEXIST, ENOENT, ENOTDIR, EPERM), a, b);
		break;
	}
	case OP_RENAME:
	case OP_RENAME_NOREPLACE:
	case OP_RENAME_EXCHANGE: {
		random_path(w, a, sizeof(a));
		random_path(w, b, sizeof(b));
		unsigned flags = op == OP_RENAME ? 0 : op == OP_RENAME_NOREPLACE ? RENAME_NOREPLACE : RENAME_EXCHANGE;
		r = uvfs_renameat2(p, AT_FDCWD, a, AT_FDCWD, b, flags);
		check_result(w, op, r, ALLOW(ENOENT, ENOTDIR, EISDIR, ENOTEMPTY, EEXIST, EINVAL), a, b);
		break;
	}
	case OP_UNLINK:
		random_path(w, a, sizeof(a));
		r = uvfs_unlinkat(p, AT_FDCWD, a, 0);
		check_result(w, op, r, ALLOW(ENOENT, ENOTDIR, EISDIR), a, NULL);
		break;
	case OP_RMDIR:
		random_path(w, a, sizeof(a));
		r = uvfs_unlinkat(p, AT_FDCWD, a, AT_REMOVEDIR);
		check_result(w, op, r, ALLOW(ENOENT, ENOTDIR, ENOTEMPTY), a, NULL);
		break;
	case OP_STAT: {
		random_path(w, a, sizeof(a));
		int nofollow = wrndn(w, 2) ? AT_SYMLINK_NOFOLLOW : 0;
		r = uvfs_fstatat(p, AT_FDCWD, a, &st, nofollow);
		check_result(w, op, r, errs_lookup, a, NULL);
		if (r == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
			bad_result(w, op, (long)st.st_mode, a, "mode");
		if (r == 0 && S_ISLNK(st.st_mode) && !nofollow)
			bad_result(w, op, (long)st.st_mode, a, "followed to a symlink");
		break;
	}
	case OP_OPEN: {
		random_path(w, a, sizeof(a));
		int flags = O_RDONLY | (wrndn(w, 4) == 0 ? O_NOFOLLOW : 0);
		int fd = uvfs_openat(p, AT_FDCWD, a, flags, 0);
		check_result(w, op, fd, (flags & O_NOFOLLOW) ? ALLOW(ENOENT, ENOTDIR, ELOOP) : errs_lookup, a, NULL);
		if (fd >= 0) {
			if ((r = uvfs_fstat(p, fd, &st)) != 0)
				bad_result(w, op, r, a, "fstat");
			else if (S_ISREG(st.st_mode))
				check_file_fd(w, fd, a);
			else if (!S_ISDIR(st.st_mode))
				bad_result(w, op, (long)st.st_mode, a, "opened a non-file, non-directory");
			if ((r = uvfs_close(p, fd)) != 0)
				bad_result(w, op, r, a, "close");
		}
		break;
	}
	case OP_READLINK: {
		random_path(w, a, sizeof(a));
		char buf[128];
		r = uvfs_readlinkat(p, AT_FDCWD, a, buf, sizeof(buf));
		check_result(w, op, r, ALLOW(ENOENT, ENOTDIR, EINVAL), a, NULL);
		if (r >= 0 && !link_body_ok(buf, r))
			bad_content(w, "link body", a, buf, r);
		break;
	}
	case OP_GETDENTS: {
		if (wrndn(w, 2))
			snprintf(a, sizeof(a), "/s/d%u", wrndn(w, NDIRS));
		else
			snprintf(a, sizeof(a), "/s/d%u/n%02u", wrndn(w, NDIRS), wrndn(w, NNAMES));
		int fd = uvfs_openat(p, AT_FDCWD, a, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0) {
			check_result(w, op, fd, errs_lookup, a, NULL);
			break;
		}
		char buf[1024] __attribute__((aligned(8)));
		long total = 0;
		for (;;) {
			r = uvfs_getdents64(p, fd, buf, sizeof(buf));
			if (r <= 0)
				break;
			for (long off = 0; off < r;) {
				struct dirent64 *de = (struct dirent64 *)(buf + off);
				size_t nl = strnlen(de->d_name, 256);
				if (de->d_reclen < 20 || off + de->d_reclen > r || nl == 0 || nl > 255 ||
				    19 + nl + 1 > de->d_reclen) {
					bad_result(w, op, de->d_reclen, a, "record");
					r = 0;
					break;
				}
				total++;
				off += de->d_reclen;
			}
		}
		/* a directory removed meanwhile reads as ENOENT */
		check_result(w, op, r, ALLOW(ENOENT), a, NULL);
		if (r == 0 && total < 2)
			bad_result(w, op, total, a, "fewer than . and ..");
		if ((r = uvfs_close(p, fd)) != 0)
			bad_result(w, op, r, a, "close");
		break;
	}
	case OP_DIRFD: {
		unsigned d = wrndn(w, NDIRS);
		snprintf(a, sizeof(a), "/s/d%u", d);
		int fd = uvfs_openat(p, AT_FDCWD, a, O_DIRECTORY | (wrndn(w, 2) ? O_PATH : O_RDONLY), 0);
		if (fd < 0) {
			check_result(w, op, fd, ALLOW(0), a, NULL);
			break;
		}
		if (wrndn(w, 2))
			snprintf(b, sizeof(b), "n%02u", wrndn(w, NNAMES));
		else
			snprintf(b, sizeof(b), "n%02u/../n%02u/n%02u", wrndn(w, NNAMES), wrndn(w, NNAMES), wrndn(w, NNAMES));
		r = uvfs_fstatat(p, fd, b, &st, AT_SYMLINK_NOFOLLOW);
		check_result(w, op, r, errs_lookup, a, b);
		if ((r = uvfs_close(p, fd)) != 0)
			bad_result(w, op, r, a, "close");
		break;
	}
	case OP_CHDIR: {
		if (!w->own_fs)
			break;
		unsigned k = wrndn(w, 4);
		if (k == 0)
			snprintf(a, sizeof(a), "/s");
		else if (k < 3)
			snprintf(a, sizeof(a), "/s/d%u", wrndn(w, NDIRS));
		else
			snprintf(a, sizeof(a), "/s/d%u/n%02u", wrndn(w, NDIRS), wrndn(w, NNAMES));
		r = uvfs_chdir(p, a);
		check_result(w, op, r, errs_lookup, a, NULL);
		if (r == 0)
			w->cwd_depth = k == 0 ? 1 : k < 3 ? 2 : 3;
		break;
	}
	case OP_RELATIVE: {
		/* a path that leaves the cwd by ".." and comes back down; when
		 * the cwd was moved or removed meanwhile it fails cleanly */
		static const char *const up[] = { "/", "", "../", "../../" };
		char rel[64];
		if (wrndn(w, 2))
			snprintf(rel, sizeof(rel), "d%u/n%02u", wrndn(w, NDIRS), wrndn(w, NNAMES));
		else
			snprintf(rel, sizeof(rel), "d%u/n%02u/n%02u", wrndn(w, NDIRS), wrndn(w, NNAMES), wrndn(w, NNAMES));
		snprintf(a, sizeof(a), "%s%s%s", up[w->cwd_depth], w->cwd_depth == 0 ? "s/" : "", rel);
		if (wrndn(w, 3)) {
			r = uvfs_fstatat(p, AT_FDCWD, a, &st, AT_SYMLINK_NOFOLLOW);
			check_result(w, op, r, errs_lookup, a, NULL);
		} else {
			int fd = uvfs_openat(p, AT_FDCWD, a, O_CREAT | O_EXCL | O_WRONLY, 0644);
			check_result(w, op, fd, ALLOW(EEXIST, ENOENT, ENOTDIR), a, "create");
			if (fd >= 0) {
				char rec[RECLEN];
				make_record(rec, (uint32_t)wrnd(w));
				if ((r = uvfs_write(p, fd, rec, RECLEN)) != RECLEN)
					bad_result(w, op, r, a, "write");
				uvfs_close(p, fd);
			}
		}
		break;
	}
	case OP_DUP: {
		/* in the shared table: another thread's fds come and go */
		int fd = uvfs_openat(p, AT_FDCWD, "/s", O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0) {
			check_result(w, op, fd, ALLOW(0), "/s", NULL);
			break;
		}
		int d = uvfs_dup(p, fd);
		check_result(w, op, d, ALLOW(0), "/s", "dup");
		if (d >= 0) {
			if ((r = uvfs_fstat(p, d, &st)) != 0 || !S_ISDIR(st.st_mode))
				bad_result(w, op, r, "/s", "fstat of the dup");
			uvfs_close(p, d);
		}
		uvfs_close(p, fd);
		break;
	}
	case OP_HOLD: {
		/* files and directories held open while the others unlink,
		 * rename and replace them: what an fd reads must not change */
		if (w->nheld < 8 && (w->nheld == 0 || wrndn(w, 2))) {
			random_path(w, a, sizeof(a));
			int fd = uvfs_openat(p, AT_FDCWD, a, O_RDONLY, 0);
			check_result(w, op, fd, errs_lookup, a, NULL);
			if (fd >= 0)
				w->held[w->nheld++] = fd;
			break;
		}
		unsigned i = wrndn(w, w->nheld);
		int fd = w->held[i];
		w->held[i] = w->held[--w->nheld];
		r = uvfs_fstat(p, fd, &st);
		check_result(w, op, r, ALLOW(0), "held fd", "fstat");
		if (r == 0 && S_ISREG(st.st_mode)) {
			check_file_fd(w, fd, "a held file");
		} else if (r == 0 && S_ISDIR(st.st_mode)) {
			char buf[512] __attribute__((aligned(8)));
			r = uvfs_getdents64(p, fd, buf, sizeof(buf));
			/* removed meanwhile: ENOENT */
			check_result(w, op, r, ALLOW(ENOENT), "held directory", "getdents64");
		}
		if ((r = uvfs_close(p, fd)) != 0)
			bad_result(w, op, r, "held fd", "close");
		break;
	}
	case OP_MOUNT: {
		/* procs of their own only: a tmpfs on /m/x, stacked, or taken
		 * away (busy while others hold files or walk in it; lazily) */
		if (!w->own_fs || !mounts_on)
			break;
		unsigned k = wrndn(w, 6);
		if (k >= 4) {
			/* the top mount moves between /m/x and /m/y while walks
			 * cross it: EINVAL when nothing is mounted there or the
			 * mount went meanwhile; ENOENT when the target resolved
			 * to a mount detached meanwhile (as a mount's); ELOOP
			 * when the source moved onto the target meanwhile and
			 * the target is now inside it */
			const char *from = k == 4 ? "/m/x" : "/m/y", *to = k == 4 ? "/m/y" : "/m/x";
			r = uvfs_mount(p, from, to, NULL, MS_MOVE, NULL);
			check_result(w, op, r, ALLOW(EINVAL, ENOENT, ELOOP), from, "mount MS_MOVE");
		} else if (k == 0) {
			r = uvfs_mount(p, "none", "/m/x", "tmpfs", 0, "size=256k,nr_inodes=64");
			/* ENOENT: the mount it resolved to was detached meanwhile
			 * (Linux's lock_mount: the target is no longer mounted) */
			check_result(w, op, r, ALLOW(ENOENT), "/m/x", "mount");
		} else if (k == 1) {
			r = uvfs_umount2(p, "/m/x", 0);
			check_result(w, op, r, ALLOW(EBUSY, EINVAL), "/m/x", "umount");
		} else {
			r = uvfs_umount2(p, "/m/x", MNT_DETACH);
			check_result(w, op, r, ALLOW(EINVAL), "/m/x", "umount MNT_DETACH");
		}
		break;
	}
	case NOPS:
		break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned total = 0;
	for (int i = 0; i < NOPS; i++)
		total += op_weight[i];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int k = 0; k < 64; k++) {
			unsigned x = wrndn(w, total);
			enum op op = 0;
			while (x >= op_weight[op])
				x -= op_weight[op++];
			w->cur_op = (int)op;
			do_op(w, op);
		}
	}
	while (w->nheld)
		uvfs_close(w->p, w->held[--w->nheld]);
	return NULL;
}

/* ---- the walk ---- */

struct ino_rec {
	uint64_t ino;
	mode_t mode;
	unsigned long nlink;
	unsigned names;
	long long size;
	bool walked;
};
/* inode number -> record, open addressing, doubled at half full */
static struct ino_rec *inodes;
static unsigned long ino_cap, n_inodes;

static struct ino_rec *ino_slot(struct ino_rec *tab, unsigned long cap, uint64_t ino)
{
	unsigned long h = (unsigned long)((ino * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
	while (tab[h].ino != 0 && tab[h].ino != ino)
		h = (h + 1) & (cap - 1);
	return &tab[h];
}

static struct ino_rec *ino_get(uint64_t ino)
{
	if (2 * (n_inodes + 1) > ino_cap) {
		unsigned long ncap = ino_cap ? 2 * ino_cap : 1ul << 16;
		struct ino_rec *n = calloc(ncap, sizeof(*n));
		if (!n)
			abort();
		for (unsigned long i = 0; i < ino_cap; i++)
			if (inodes[i].ino)
				*ino_slot(n, ncap, inodes[i].ino) = inodes[i];
		free(inodes);
		inodes = n;
		ino_cap = ncap;
	}
	struct ino_rec *r = ino_slot(inodes, ino_cap, ino);
	if (r->ino == 0) {
		r->ino = ino;
		n_inodes++;
	}
	return r;
}

struct walk_stats {
	unsigned long dirs, files, links, entries;
	unsigned long bad_resolve, bad_fullpath, bad_type, bad_ino, bad_dup, bad_dots, bad_dirnlink,
		bad_dirsize, bad_negative, bad_content, bad_link, bad_getdents, bad_other, bad_cycle;
};
static struct walk_stats ws;

static void walk_fail(unsigned long *counter, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void walk_fail(unsigned long *counter, const char *fmt, ...)
{
	(*counter)++;
	static unsigned shown;
	if (shown++ < 30) {
		va_list ap;
		va_start(ap, fmt);
		printf("   walk: ");
		vprintf(fmt, ap);
		printf("\n");
		va_end(ap);
	}
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static unsigned dtype_of(mode_t m)
{
	return S_ISREG(m) ? DT_REG : S_ISDIR(m) ? DT_DIR : S_ISLNK(m) ? DT_LNK : DT_UNKNOWN;
}

static unsigned max_depth;
static unsigned long long_paths;

/* Walks the directory called name in the directory pdfd (path is its full
 * path, for messages and for a second lookup from the root while it is under
 * 1024 bytes: whole-path lookups of the deepest entries would cost the
 * square of the depth).  Directories are opened relative to their parent, so depth is
 * not limited by PATH_MAX: renames of directories into the pool's paths
 * build trees far deeper than two levels. */
static void walk(struct uvfs_proc *p, int pdfd, const char *name, const char *path, uint64_t parent_ino,
		 unsigned depth)
{
	if (depth > max_depth)
		max_depth = depth;
	int dfd = uvfs_openat(p, pdfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	struct stat dst;
	if (dfd < 0 || uvfs_fstat(p, dfd, &dst) != 0) {
		walk_fail(&ws.bad_other, "%s: open %d", path, dfd);
		if (dfd >= 0)
			uvfs_close(p, dfd);
		return;
	}
	ws.dirs++;
	struct ino_rec *self = ino_get(dst.st_ino);
	if (self->walked) {
		/* a directory met twice: a cycle (or a second name of it) */
		walk_fail(&ws.bad_cycle, "%s: directory inode %llu met twice", path, (unsigned long long)dst.st_ino);
		uvfs_close(p, dfd);
		return;
	}
	self->walked = true;
	self->mode = dst.st_mode;
	self->nlink = dst.st_nlink;
	self->size = dst.st_size;
	size_t cap = 64, n = 0;
	char **names = malloc(cap * sizeof(*names));
	unsigned char *types = malloc(cap);
	uint64_t *inos = malloc(cap * sizeof(*inos));
	unsigned dots = 0, dotdots = 0;
	enum { BUFSZ = 4096 };
	char *buf = aligned_alloc(8, BUFSZ);
	for (;;) {
		long r = uvfs_getdents64(p, dfd, buf, BUFSZ);
		if (r < 0)
			walk_fail(&ws.bad_getdents, "%s: getdents64 %ld", path, r);
		if (r <= 0)
			break;
		for (long off = 0; off < r;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			off += de->d_reclen;
			if (!strcmp(de->d_name, ".")) {
				dots++;
				if (de->d_ino != dst.st_ino)
					walk_fail(&ws.bad_dots, "%s: \".\" has ino %llu, the directory %llu", path,
						  (unsigned long long)de->d_ino, (unsigned long long)dst.st_ino);
				continue;
			}
			if (!strcmp(de->d_name, "..")) {
				dotdots++;
				if (parent_ino && de->d_ino != parent_ino)
					walk_fail(&ws.bad_dots, "%s: \"..\" has ino %llu, the parent %llu", path,
						  (unsigned long long)de->d_ino, (unsigned long long)parent_ino);
				continue;
			}
			if (n == cap) {
				cap *= 2;
				names = realloc(names, cap * sizeof(*names));
				types = realloc(types, cap);
				inos = realloc(inos, cap * sizeof(*inos));
			}
			names[n] = strdup(de->d_name);
			types[n] = de->d_type;
			inos[n] = de->d_ino;
			n++;
		}
	}
	free(buf);
	if (dots != 1 || dotdots != 1)
		walk_fail(&ws.bad_dots, "%s: \".\" listed %u times, \"..\" %u times", path, dots, dotdots);
	ws.entries += n;

	/* "..", looked up, is the parent */
	struct stat pst;
	if (parent_ino && (uvfs_fstatat(p, dfd, "..", &pst, 0) != 0 || pst.st_ino != parent_ino))
		walk_fail(&ws.bad_dots, "%s: lookup of \"..\" is not the parent", path);

	unsigned subdirs = 0;
	size_t plen = strlen(path);
	char *full = malloc(plen + 2 + 256);
	if (!full)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		sprintf(full, "%s/%s", plen == 1 ? "" : path, names[i]);
		int r = uvfs_fstatat(p, dfd, names[i], &st, AT_SYMLINK_NOFOLLOW);
		if (r != 0) {
			walk_fail(&ws.bad_resolve, "%s: listed but does not resolve (%d)", full, r);
			continue;
		}
		if (strlen(full) < 1024) {
			struct stat st2;
			if (uvfs_fstatat(p, AT_FDCWD, full, &st2, AT_SYMLINK_NOFOLLOW) != 0 || st2.st_ino != st.st_ino)
				walk_fail(&ws.bad_fullpath, "%s: the full path resolves elsewhere", full);
		} else {
			long_paths++;
		}
		if (inos[i] != st.st_ino)
			walk_fail(&ws.bad_ino, "%s: d_ino %llu, st_ino %llu", full, (unsigned long long)inos[i],
				  (unsigned long long)st.st_ino);
		if (types[i] != dtype_of(st.st_mode))
			walk_fail(&ws.bad_type, "%s: d_type %u, mode 0%o", full, types[i], st.st_mode);
		struct ino_rec *rec = ino_get(st.st_ino);
		rec->mode = st.st_mode;
		rec->nlink = st.st_nlink;
		rec->size = st.st_size;
		rec->names++;
		if (S_ISDIR(st.st_mode)) {
			subdirs++;
			walk(p, dfd, names[i], full, dst.st_ino, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			ws.files++;
			char c[64];
			int fd = uvfs_openat(p, dfd, names[i], O_RDONLY | O_NOFOLLOW, 0);
			long len = fd >= 0 ? uvfs_read(p, fd, c, sizeof(c)) : fd;
			if (fd >= 0)
				uvfs_close(p, fd);
			if (len < 0 || (len != 0 && !record_ok(c, len)) || len != st.st_size)
				walk_fail(&ws.bad_content, "%s: %ld bytes, size %lld", full, len, (long long)st.st_size);
		} else if (S_ISLNK(st.st_mode)) {
			ws.links++;
			char body[128];
			long len = uvfs_readlinkat(p, dfd, names[i], body, sizeof(body));
			if (!link_body_ok(body, len) || len != st.st_size)
				walk_fail(&ws.bad_link, "%s: link body of %ld bytes, size %lld", full, len,
					  (long long)st.st_size);
		} else {
			walk_fail(&ws.bad_other, "%s: mode 0%o", full, st.st_mode);
		}
	}
	free(full);
	if (dst.st_nlink != 2 + subdirs)
		walk_fail(&ws.bad_dirnlink, "%s: nlink %lu, 2 + %u subdirectories", path, (unsigned long)dst.st_nlink,
			  subdirs);
	/* tmpfs counts BOGO_DIRENT_SIZE (20) per entry, "." and ".." included */
	if (dst.st_size != (off_t)(20 * (2 + n)))
		walk_fail(&ws.bad_dirsize, "%s: size %lld with %zu entries", path, (long long)dst.st_size, n);

	/* no name twice */
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(names[i - 1], names[i]))
			walk_fail(&ws.bad_dup, "%s: \"%s\" listed twice", path, names[i]);

	/* the pool's names that are not listed do not resolve either */
	for (unsigned k = 0; k < NNAMES; k++) {
		char nm[8];
		snprintf(nm, sizeof(nm), "n%02u", k);
		if (bsearch(&(char *){ nm }, names, n, sizeof(*names), cmp_str))
			continue;
		struct stat st;
		int r = uvfs_fstatat(p, dfd, nm, &st, AT_SYMLINK_NOFOLLOW);
		if (r != -ENOENT)
			walk_fail(&ws.bad_negative, "%s/%s: not listed, but lookup gives %d", path, nm, r);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(types);
	free(inos);
	uvfs_close(p, dfd);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-d SECONDS] [-t THREADS] [-s SEED] [-o OP,OP,...] [-v]\n", argv0);
	fprintf(stderr, "operations:");
	for (int k = 0; k < NOPS; k++)
		fprintf(stderr, " %s", op_names[k]);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	double duration = 5;
	unsigned nthreads = 4;
	uint64_t seed = 0;
	int opt;
	while ((opt = getopt(argc, argv, "d:t:s:o:v")) != -1) {
		switch (opt) {
		case 'o': {
			/* only the listed operations (comma-separated names) */
			unsigned keep[NOPS] = { 0 };
			char *save = NULL, *list = strdup(optarg);
			for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				int k;
				for (k = 0; k < NOPS && strcmp(op_names[k], t); k++)
					;
				if (k == NOPS) {
					fprintf(stderr, "unknown operation %s\n", t);
					usage(argv[0]);
				}
				keep[k] = 1;
			}
			free(list);
			for (int k = 0; k < NOPS; k++)
				if (!keep[k])
					op_weight[k] = 0;
			break;
		}
		case 'd': duration = strtod(optarg, NULL); break;
		case 't': nthreads = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		default: usage(argv[0]);
		}
	}
	if (nthreads < 1)
		nthreads = 1; /* fewer than 4 only when asked, to narrow a failure down */
	if (!seed) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
	}
	printf("stress: seed 0x%llx, %u threads, %.1f s (repeat with -s 0x%llx; thread timing still varies)\n",
	       (unsigned long long)seed, nthreads, duration, (unsigned long long)seed);

	/* inode and page limits switch the tmpfs's accounting on */
	struct uvfs_options o = { .tmpfs_nr_inodes = 1u << 20, .tmpfs_size = 1ull << 32 };
	vfs = uvfs_create(&o);
	CHECK(vfs != NULL);
	if (!vfs)
		return check_done();
	struct uvfs_proc *root = uvfs_proc_create(vfs, 0, 0);
	CHECK_EQ(uvfs_mkdirat(root, AT_FDCWD, "/s", 0755), 0);
	for (int d = 0; d < NDIRS; d++) {
		char path[16];
		snprintf(path, sizeof(path), "/s/d%d", d);
		CHECK_EQ(uvfs_mkdirat(root, AT_FDCWD, path, 0755), 0);
	}
	CHECK_EQ(uvfs_mkdirat(root, AT_FDCWD, "/m", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(root, AT_FDCWD, "/m/x", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(root, AT_FDCWD, "/m/y", 0755), 0);
	mounts_on = op_weight[OP_MOUNT] != 0;

	/* the whole run, walk included, stays far under this */
	signal(SIGALRM, on_alarm);
	alarm((unsigned)duration + 180);
	struct worker *w = calloc(nthreads, sizeof(*w));
	struct uvfs_proc *shared = uvfs_proc_create(vfs, 0, 0);
	for (unsigned i = 0; i < nthreads; i++) {
		w[i].id = (int)i;
		w[i].rng = seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
		if (!w[i].rng)
			w[i].rng = 1;
		if (i < 2) {
			w[i].p = shared;
		} else if (i == 2) {
			w[i].p = uvfs_proc_clone(shared, UVFS_CLONE_FILES);
			w[i].own_fs = true;
		} else {
			w[i].p = uvfs_proc_create(vfs, 0, 0);
			w[i].own_fs = true;
		}
	}
	phase = "workers";
	for (unsigned i = 0; i < nthreads; i++)
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	struct timespec ts = { (time_t)duration, (long)((duration - (time_t)duration) * 1e9) };
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);

	/* a thread stuck in the library is a deadlock: report it and leave */
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 60;
	for (unsigned i = 0; i < nthreads; i++) {
		int err = pthread_timedjoin_np(w[i].th, NULL, &deadline);
		if (err) {
			for (unsigned k = 0; k < nthreads; k++)
				printf("   thread %u: last operation %s\n", k, op_names[w[k].cur_op]);
			CHECK(err == 0, "thread %u did not finish 60 s after the stop: deadlock or livelock?", i);
			fflush(stdout);
			check_done();
			_exit(1);
		}
	}

	unsigned long ops[NOPS] = { 0 }, oks[NOPS] = { 0 }, bad = 0, badc = 0, total = 0;
	for (unsigned i = 0; i < nthreads; i++) {
		for (int k = 0; k < NOPS; k++) {
			ops[k] += w[i].ops[k];
			oks[k] += w[i].ok[k];
			total += w[i].ops[k];
		}
		bad += w[i].bad;
		badc += w[i].bad_content;
	}
	printf("   %lu operations (%.0f/s):", total, total / duration);
	for (int k = 0; k < NOPS; k++)
		printf("%s %s %lu/%lu", k ? "," : "", op_names[k], oks[k], ops[k]);
	printf(" (succeeded/tried)\n");
	CHECK(total > 1000, "only %lu operations ran", total);
	/* Every kind of change happened, or the run proved little. */
	for (int k = 0; k < NOPS; k++)
		if (op_weight[k])
			CHECK(oks[k] > 0, "no %s succeeded", op_names[k]);
	CHECK(bad == 0, "%lu results outside the errnos the race explains", bad);
	CHECK(badc == 0, "%lu torn or wrong contents read", badc);

	phase = "proc teardown and umounts";
	/* the workers' procs go first: their cwds may pin removed directories */
	for (unsigned i = 2; i < nthreads; i++)
		uvfs_proc_destroy(w[i].p);
	uvfs_proc_destroy(shared);
	/* and the mounts on /m/x and /m/y: the walk counts the root tmpfs
	 * alone */
	for (const char *const *mp = (const char *const[]){ "/m/x", "/m/y", NULL }; *mp; mp++) {
		int unmounted = 0;
		long ur;
		while ((ur = uvfs_umount2(root, *mp, 0)) == 0 && unmounted < 100000)
			unmounted++;
		printf("   %d tmpfs mounts left on %s, all unmounted\n", unmounted, *mp);
		CHECK_ERR(ur, EINVAL); /* nothing holds them now: no EBUSY */
	}

	SECTION("walk");
	phase = "walk";
	CHECK_EQ(uvfs_proc_set_nofile(root, 1ul << 20), 0); /* an fd per level of the walk */
	struct stat rst;
	CHECK_EQ(uvfs_fstatat(root, AT_FDCWD, "/", &rst, 0), 0);
	uint64_t root_ino = rst.st_ino;
	walk(root, AT_FDCWD, "/", "/", 0, 0);
	printf("   %lu directories, %lu files, %lu symlinks, %lu names, %lu inodes, %u levels deep, "
	       "%lu paths too long to look up whole\n",
	       ws.dirs, ws.files, ws.links, ws.entries, n_inodes, max_depth, long_paths);
	CHECK(ws.bad_resolve == 0, "%lu listed names do not resolve", ws.bad_resolve);
	CHECK(ws.bad_fullpath == 0, "%lu full paths resolve elsewhere than dir-relative", ws.bad_fullpath);
	CHECK(ws.bad_ino == 0, "%lu d_ino differ from st_ino", ws.bad_ino);
	CHECK(ws.bad_type == 0, "%lu d_type differ from the inode's type", ws.bad_type);
	CHECK(ws.bad_dup == 0, "%lu names listed twice", ws.bad_dup);
	CHECK(ws.bad_dots == 0, "%lu wrong \".\" or \"..\"", ws.bad_dots);
	CHECK(ws.bad_dirnlink == 0, "%lu directories with nlink != 2 + subdirectories", ws.bad_dirnlink);
	CHECK(ws.bad_dirsize == 0, "%lu directories whose size does not count their entries", ws.bad_dirsize);
	CHECK(ws.bad_negative == 0, "%lu unlisted names that resolve", ws.bad_negative);
	CHECK(ws.bad_content == 0, "%lu files with a torn or wrong record", ws.bad_content);
	CHECK(ws.bad_link == 0, "%lu symlinks with a wrong body", ws.bad_link);
	CHECK(ws.bad_getdents == 0 && ws.bad_other == 0, "%lu getdents errors, %lu other", ws.bad_getdents,
	      ws.bad_other);
	CHECK(ws.bad_cycle == 0, "%lu directories met twice (a cycle)", ws.bad_cycle);

	/* link counts: a non-directory has as many names as nlink says; a
	 * directory has one name (the root none) */
	unsigned long bad_nlink = 0, bad_dirnames = 0, extra_links = 0, pages = 0;
	for (unsigned long h = 0; h < ino_cap; h++) {
		struct ino_rec *r = &inodes[h];
		if (!r->ino)
			continue;
		if (S_ISDIR(r->mode)) {
			/* the root has no name in any directory */
			if (r->names != (r->ino == root_ino ? 0u : 1u))
				if (bad_dirnames++ < 5)
					printf("   ino %llu: a directory with %u names\n", (unsigned long long)r->ino,
					       r->names);
		} else {
			if (r->nlink != r->names && bad_nlink++ < 10)
				printf("   ino %llu (mode 0%o): nlink %lu, %u names found\n",
				       (unsigned long long)r->ino, r->mode, r->nlink, r->names);
			extra_links += r->nlink > 1 ? r->nlink - 1 : 0;
			if (S_ISREG(r->mode))
				pages += (unsigned long)((r->size + 4095) / 4096);
		}
	}
	CHECK(bad_nlink == 0, "%lu inodes whose nlink is not their number of names", bad_nlink);
	CHECK(bad_dirnames == 0, "%lu directories without exactly one name", bad_dirnames);

	/* the tmpfs holds exactly the inodes the walk found (and charges each
	 * extra hard link as an inode, as shmem does), and their pages */
	struct statfs sf;
	CHECK_EQ(uvfs_statfs(root, "/", &sf), 0);
	unsigned long used_inodes = (unsigned long)(sf.f_files - sf.f_ffree);
	unsigned long used_pages = (unsigned long)(sf.f_blocks - sf.f_bfree);
	printf("   tmpfs: %lu inodes in use, walk found %lu + %lu extra links; %lu pages in use, walk found %lu\n",
	       used_inodes, n_inodes, extra_links, used_pages, pages);
	CHECK_EQ(used_inodes, n_inodes + extra_links);
	CHECK_EQ(used_pages, pages);
	/* every worker closed what it opened and its proc is gone: no struct
	 * file is left (a lost reference would keep one) */
	CHECK_EQ(pcounter_sum(&vfs->nr_files), 0);

	phase = "uvfs_destroy";
	uvfs_destroy(vfs);
	free(w);
	free(inodes);
	CHECK(1, "uvfs_destroy returned"); /* LeakSanitizer reports at exit */
	return check_done();
}
