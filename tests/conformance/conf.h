/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * conf.h - what a scenario sees.
 *
 * A scenario is a function that runs once per backend, in a child process, on
 * a fresh file system.  It calls the backend's operations under their system
 * call names (openat, read, renameat2, ...: macros below; the libc functions
 * of the same names are not reachable from scenario files) and records checks:
 *
 *   C(expr)         the value of expr (a return value or -errno)
 *   F(expr)         an fd-returning call: "an fd" or -errno, never the number
 *   CS(desc, str)   a string (stat summaries, listings, contents)
 *   DOC(expr, why)  as C(), but a mismatch is a documented, deliberate
 *                   difference of uvfs: printed, not counted as a failure
 *   C_SINCE(5, 10, expr)  a behaviour that changed in that Linux release:
 *                   skipped when the host kernel is older
 * A host result of -ENOSYS (a call the host kernel lacks) is skipped too.
 *
 * The parent compares the host's records with the other backend's, one by one.
 * The expression text is the check's name, so a scenario must not branch on
 * backend-specific values before recording.
 */
#ifndef CONF_H
#define CONF_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <linux/openat2.h>
#include <linux/magic.h>
#include <sys/mman.h> /* MFD_*, and memfd_create's declaration before fuzz.h's macro */
/* memfd's flags and seals newer than Debian 12's glibc 2.36 */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif
/* statx's unique mount id (Linux 6.8), newer than Debian 12's headers */
#define STATX_MNT_ID_UNIQUE_ 0x4000U
#include "backend.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif
#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif

struct scenario {
	const char *name;
	void (*fn)(void);
	unsigned needs;	/* NEEDS_*: skipped on a backend without them */
};
#define NEEDS_PROCS 0x1

/* The backend the current child runs on. */
extern const struct backend *B;
extern void *BX;

/* ---- recording ---- */
long long chk(const char *op, long long v);
int chk_fd(const char *op, long long v);
long long chk_doc(const char *op, long long v, const char *why);
long long chk_doc_state(const char *op, long long v, const char *why);
void chk_str(const char *op, const char *s);
long long chk_since(const char *op, long long v, int major, int minor);
int chk_fd_since(const char *op, long long v, int major, int minor);
void chk_str_since(const char *op, const char *s, int major, int minor);
void note(const char *fmt, ...);

#define C(e) chk(#e, (long long)(e))
#define F(e) chk_fd(#e, (long long)(e))
#define CS(desc, s) chk_str(desc, s)
#define DOC(e, why) chk_doc(#e, (long long)(e), why)
/* As DOC(), for a call whose documented difference, when it shows, leaves
 * the two sides' trees different (one made a name the other did not): the
 * checks after it are not compared (counted as skipped). */
#define DOC_STATE(e, why) chk_doc_state(#e, (long long)(e), why)
/* As C() and F(), for a behaviour Linux adopted in version ma.mi: on an older
 * host kernel the check is skipped, not compared. */
#define C_SINCE(ma, mi, e) chk_since(#e, (long long)(e), ma, mi)
#define F_SINCE(ma, mi, e) chk_fd_since(#e, (long long)(e), ma, mi)

/*
 * Symlink counts in scenarios: Linux does not reset its link count when an
 * RCU walk restarts in ref-walk mode (any mount, umount or rename in the
 * system can make it restart), so a walk through 21 to 40 links may end in
 * ELOOP on the host or succeed.  At most 20 (twice 20 is still 40) or more
 * than 40 the answer cannot change: scenarios compare only those counts, and
 * tests/unit/unit-linklimit.c checks 40 against 41.
 */

/* ---- for drivers other than the suite's own main (tests/fuzz) ----
 * Runs sc on the host and on uvfs (each in a child, as the suite does) and
 * compares; with quiet set, prints nothing.  Returns the number of failed
 * checks; out gets the counts and the name of the first mismatching check.
 * Such a driver builds harness.c with -DCONF_NO_MAIN. */
struct conf_outcome {
	int pass, fail, skip;
	char first_fail[216];
};
int conf_compare(const struct scenario *sc, int quiet, struct conf_outcome *out);

/* ---- the operations, under their system call names ---- */
#define openat(d, p, f, m) B->openat(BX, d, p, f, m)
#define openat2(d, p, h, s) B->openat2(BX, d, p, h, s)
#define close(fd) B->close(BX, fd)
#define close_range(a, b, f) B->close_range(BX, a, b, f)
#define fd_reopen(fd, f) B->fd_reopen(BX, fd, f)
#define read(fd, b, n) B->read(BX, fd, b, n)
#define write(fd, b, n) B->write(BX, fd, b, n)
#define pread(fd, b, n, o) B->pread(BX, fd, b, n, o)
#define pwrite(fd, b, n, o) B->pwrite(BX, fd, b, n, o)
#define readv(fd, v, n) B->readv(BX, fd, v, n)
#define writev(fd, v, n) B->writev(BX, fd, v, n)
#define lseek(fd, o, w) B->lseek(BX, fd, o, w)
#define ftruncate(fd, l) B->ftruncate(BX, fd, l)
#define truncate(p, l) B->truncate(BX, p, l)
#define fsync(fd) B->fsync(BX, fd)
#define fdatasync(fd) B->fdatasync(BX, fd)
#define dup(fd) B->dup(BX, fd)
#define dup2(a, b) B->dup2(BX, a, b)
#define dup3(a, b, f) B->dup3(BX, a, b, f)
#define fcntl(fd, c, a) B->fcntl(BX, fd, c, a)
#define mkdirat(d, p, m) B->mkdirat(BX, d, p, m)
#define mknodat(d, p, m, dev) B->mknodat(BX, d, p, m, dev)
#define unlinkat(d, p, f) B->unlinkat(BX, d, p, f)
#define renameat2(od, op, nd, np, f) B->renameat2(BX, od, op, nd, np, f)
#define linkat(od, op, nd, np, f) B->linkat(BX, od, op, nd, np, f)
#define symlinkat(t, d, l) B->symlinkat(BX, t, d, l)
#define readlinkat(d, p, b, n) B->readlinkat(BX, d, p, b, n)
#define getdents64(fd, b, n) B->getdents64(BX, fd, b, n)
#define fstat(fd, st) B->fstat(BX, fd, st)
#define fstatat(d, p, st, f) B->fstatat(BX, d, p, st, f)
#define statx(d, p, f, m, s) B->statx(BX, d, p, f, m, s)
#define fchmod(fd, m) B->fchmod(BX, fd, m)
#define fchmodat(d, p, m, f) B->fchmodat(BX, d, p, m, f)
#define fchown(fd, u, g) B->fchown(BX, fd, u, g)
#define fchownat(d, p, u, g, f) B->fchownat(BX, d, p, u, g, f)
#define utimensat(d, p, t, f) B->utimensat(BX, d, p, t, f)
#define faccessat(d, p, m, f) B->faccessat(BX, d, p, m, f)
#define umask(m) B->umask(BX, m)
#define fstatfs(fd, b) B->fstatfs(BX, fd, b)
#define statfs(p, b) B->statfs(BX, p, b)
#define chdir(p) B->chdir(BX, p)
#define fchdir(fd) B->fchdir(BX, fd)
#define getcwd(b, n) B->getcwd(BX, b, n)
#define chroot(p) B->chroot(BX, p)
#define setcred(u, g) B->setcred(BX, u, g)
#define setgroups(n, g) B->setgroups(BX, n, g)
#define set_nofile(n) B->set_nofile(BX, n)
#define mount(s, t, f, fl, d) B->mount(BX, s, t, f, fl, d)
#define umount2(t, f) B->umount2(BX, t, f)
#define pivot_root(n, o) B->pivot_root(BX, n, o)
#define proc_clone(f) B->proc_clone(BX, f)
#define proc_use(i) B->proc_use(BX, i)
#define proc_destroy(i) B->proc_destroy(BX, i)

/* ---- shorthands (the expression text stays readable in FAIL lines) ---- */
#define OPEN(p, f) openat(AT_FDCWD, p, f, 0644)
#define MKDIR(p, m) mkdirat(AT_FDCWD, p, m)
#define UNLINK(p) unlinkat(AT_FDCWD, p, 0)
#define RMDIR(p) unlinkat(AT_FDCWD, p, AT_REMOVEDIR)
#define RENAME(a, b) renameat2(AT_FDCWD, a, AT_FDCWD, b, 0)
#define RENAME2(a, b, f) renameat2(AT_FDCWD, a, AT_FDCWD, b, f)
#define LINK(a, b) linkat(AT_FDCWD, a, AT_FDCWD, b, 0)
#define SYMLINK(t, l) symlinkat(t, AT_FDCWD, l)
#define CHMOD(p, m) fchmodat(AT_FDCWD, p, m, 0)
#define CHOWN(p, u, g) fchownat(AT_FDCWD, p, u, g, 0)
#define LCHOWN(p, u, g) fchownat(AT_FDCWD, p, u, g, AT_SYMLINK_NOFOLLOW)
#define ACCESS(p, m) faccessat(AT_FDCWD, p, m, 0)
#define MKNOD(p, m, d) mknodat(AT_FDCWD, p, m, d)
#define TMPFS(t, fl, data) mount("tmpfs", t, "tmpfs", fl, data)

/* ---- helpers (common.c); they go through the backend too ---- */
/* Create path with contents s (O_CREAT|O_TRUNC, mode 0644 before umask).
 * Not recorded: returns 0 or -errno. */
int mkfile(const char *path, const char *s);
int scenario_selected(const char *name, int npat, char **pat);
/* a record of getdents64 */
struct dent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};
/* write(fd, s, strlen(s)) */
ssize_t wr(int fd, const char *s);
/* Closes fd if >= 0, not recorded. */
void cl(int fd);

/* "reg 0644 n1 s5 u0 g0" (no size for dirs), or "-ENOENT". */
const char *stat_str(const char *path, int flags);
const char *fstatat_str(int dirfd, const char *path, int flags);
const char *fstat_str(int fd);
struct statx;
const char *statx_str(const struct statx *stx);
const char *xattr_names(const char *list, long long n);
/* sorted "name:t" list of the directory (t: f d l p c b s ?), or "-errno" */
const char *ls_str(const char *path);
/* contents of the file (escaped) or "-errno" */
const char *cat_str(const char *path);
const char *fcat_str(int fd);
/* readlink as a string or "-errno" */
const char *rl_str(const char *path);

#define STAT_SINCE(ma, mi, p) chk_str_since(fmt("stat %s", p), stat_str(p, AT_SYMLINK_NOFOLLOW), ma, mi)
#define LS_SINCE(ma, mi, p) chk_str_since(fmt("ls %s", p), ls_str(p), ma, mi)
#define FSTAT_SINCE(ma, mi, fd) chk_str_since("fstat " #fd, fstat_str(fd), ma, mi)
#define STAT(p) chk_str(fmt("stat %s", p), stat_str(p, AT_SYMLINK_NOFOLLOW))
#define STATF(p) chk_str(fmt("stat-follow %s", p), stat_str(p, 0))
#define STATAT(d, p, fl) chk_str(fmt("statat %s %s", #d, p), fstatat_str(d, p, fl))
#define FSTAT(fd) chk_str("fstat " #fd, fstat_str(fd))
#define STATX_CHECK(stx) chk_str("statx " #stx, statx_str(&(stx)))
#define LS(p) chk_str(fmt("ls %s", p), ls_str(p))
#define CAT(p) chk_str(fmt("cat %s", p), cat_str(p))
#define FCAT(fd) chk_str("fcat " #fd, fcat_str(fd))
#define READLINK(p) chk_str(fmt("readlink %s", p), rl_str(p))
/* 1 if both names exist and are the same inode, 0 if different, -errno */
int same_ino(const char *a, const char *b);
/* 1 if path, followed or not, is the root directory itself, else 0: a
 * guard before umount2(), whose documented difference at the root mount
 * (docs/ARCHITECTURE.md) would end the host sandbox's root. */
/* path is the proc's root, or the scenario's first root (noted by
 * at_root_mark(): the tree's root mount, which uvfs never unmounts) */
int at_root(const char *path);
void at_root_mark(void);
/* POSIX ACLs in Linux's xattr format (common.c; fuzz.h's ACLV) */
const char *acl_value(long long k);
size_t acl_value_size(int k);
#define SAME(a, b) chk(fmt("same_ino(%s, %s)", a, b), same_ino(a, b))
long long st_field(const char *path, int which);
enum { NLINK, MODE, SIZE, UID, GID, BLOCKS, INO_SET, TYPE };
#define NLINKS(p) chk(fmt("nlink %s", p), st_field(p, NLINK))
#define SIZEOF(p) chk(fmt("size %s", p), st_field(p, SIZE))
#define BLOCKSOF(p) chk(fmt("blocks %s", p), st_field(p, BLOCKS))
#define MODEOF(p) chk(fmt("mode %s", p), st_field(p, MODE))

/* Timestamps: AGE sets atime and mtime of path (not following symlinks) to a
 * fixed old time, remembers its ctime and sleeps past the clock's grain; TS
 * then records which of atime, mtime and ctime moved since, as "a1 m0 c1".
 * The fd variants do the same through an fd. */
void age(const char *path);
const char *ts_str(const char *path);
#define AGE(p) age(p)
#define TS(p) chk_str(fmt("times moved %s", p), ts_str(p))
void tick(void);

/* A fixed timestamp pair for utimensat. */
extern const struct timespec T_OLD[2];

/* A string of n copies of c (static, rotating). */
const char *rep(char c, int n);
/* printf into a rotating static buffer */
const char *fmt(const char *f, ...);

#endif
