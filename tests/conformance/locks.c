/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * locks.c - scenarios for file locks: flock(2), POSIX record locks and OFD
 * locks through fcntl.
 *
 * Only what never waits: a scenario is one thread, and a proc's call on the
 * host is answered before the next one is made, so a blocking F_SETLKW or
 * flock would hang either backend.  Waits, wake-up order and EDEADLK are
 * in tests/unit/unit-locks.c.  Another owner's view of the locks is read
 * with F_GETLK from a second proc (the host backend forks: two procs are two
 * processes); l_pid is compared only as "which proc".
 */
#include "conf.h"
#include <sys/file.h>

#define flock(fd, op) B->flock(BX, fd, op)
#define getpid() B->getpid(BX)
#define pipe2(f, fl) B->pipe2(BX, f, fl)

static int lk(int fd, int cmd, short type, short whence, off_t start, off_t len)
{
	struct flock f = { .l_type = type, .l_whence = whence, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, (unsigned long)&f);
}

/* The same with l_pid set, for the F_OFD_* rule. */
static int lk_pid(int fd, int cmd, short type, pid_t pid)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0, .l_pid = pid };
	return fcntl(fd, cmd, (unsigned long)&f);
}

static pid_t pids[8];

static pid_t pid_of(int k)
{
	proc_use(k);
	pid_t p = getpid();
	proc_use(0);
	return p;
}

/* "W3+2 p1": what a GETLK-style command on fd answers for the range, the
 * holder named by proc number (pids[] filled by the scenario) or "ofd" for
 * -1; "-" when nothing conflicts; "-errno" on error.  l_len 0: "+0". */
static const char *getlk_str(int fd, int cmd, short type, off_t start, off_t len)
{
	static char buf[8][64];
	static int n;
	char *b = buf[n++ % 8];
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int r = fcntl(fd, cmd, (unsigned long)&f);
	if (r < 0) {
		snprintf(b, 64, "-%s", strerrorname_np(-r));
		return b;
	}
	if (f.l_type == F_UNLCK) {
		snprintf(b, 64, "- %lld+%lld", (long long)f.l_start, (long long)f.l_len);
		return b;
	}
	char who[16];
	if (f.l_pid == -1) {
		snprintf(who, sizeof who, "ofd");
	} else {
		int k;
		for (k = 0; k < 8 && (pids[k] == 0 || pids[k] != f.l_pid); k++)
			;
		snprintf(who, sizeof who, k < 8 ? "p%d" : "p?", k);
	}
	snprintf(b, 64, "%c%lld+%lld w%d %s", f.l_type == F_RDLCK ? 'R' : f.l_type == F_WRLCK ? 'W' : '?',
		 (long long)f.l_start, (long long)f.l_len, f.l_whence, who);
	return b;
}

/* The locks another owner sees on bytes [0, n), probed byte by byte from
 * proc k with F_GETLK for a write lock: one token per run of equal answers
 * ("." and the first byte where none conflicts). */
static const char *layout(int k, int fd, int n)
{
	static char out[1024];
	char prev[64] = "";
	size_t l = 0;
	out[0] = 0;
	proc_use(k);
	for (int i = 0; i < n; i++) {
		struct flock f = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = i, .l_len = 1 };
		char tok[64];
		int r = fcntl(fd, F_GETLK, (unsigned long)&f);
		if (r < 0)
			snprintf(tok, sizeof tok, "-%s", strerrorname_np(-r));
		else if (f.l_type == F_UNLCK)
			snprintf(tok, sizeof tok, ".");
		else
			snprintf(tok, sizeof tok, "%c%lld+%lld", f.l_type == F_RDLCK ? 'R' : 'W',
				 (long long)f.l_start, (long long)f.l_len);
		if (strcmp(tok, prev)) {
			l += (size_t)snprintf(out + l, sizeof out - l, "%s%s", l ? " " : "", tok);
			if (!strcmp(tok, "."))
				l += (size_t)snprintf(out + l, sizeof out - l, "%d", i);
			snprintf(prev, sizeof prev, "%s", tok);
		}
	}
	proc_use(0);
	return out;
}

/* ---- flock ---- */

static void flock_errors(void)
{
	C(mkfile("/f", "abc"));
	int a = F(OPEN("/f", O_RDWR));
	int op = F(OPEN("/f", O_PATH));
	/* the operation is checked before the fd */
	C(flock(99, 0));
	C(flock(99, LOCK_SH));
	C(flock(a, 0));
	C(flock(a, LOCK_SH | LOCK_EX));
	C(flock(a, LOCK_NB));
	C(flock(a, 8 | LOCK_SH));
	C(flock(a, -1));
	/* LOCK_MAND is ignored before anything is checked */
	C(flock(a, LOCK_MAND));
	C(flock(99, LOCK_MAND | LOCK_SH));
	C(flock(op, LOCK_SH));
	C(flock(op, LOCK_UN));
	C(flock(op, 0));
	C(flock(a, LOCK_UN));
	C(flock(a, LOCK_UN | LOCK_NB));
	/* open for neither reading nor writing (O_ACCMODE 3) */
	int n = F(OPEN("/f", 3));
	C(flock(n, LOCK_SH));
	C(flock(n, LOCK_UN));
	C(lk(n, F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	C(lk(n, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	C(lk(n, F_GETLK, F_WRLCK, SEEK_SET, 0, 0));
	cl(n);
	cl(a);
	cl(op);
}

static void flock_open_file(void)
{
	C(mkfile("/f", "abc"));
	int a = F(OPEN("/f", O_RDONLY));
	int b = F(OPEN("/f", O_WRONLY));
	/* either access mode may take either lock */
	C(flock(a, LOCK_EX | LOCK_NB));
	C(flock(b, LOCK_SH | LOCK_NB));
	C(flock(b, LOCK_EX | LOCK_NB));
	/* a dup shares the open file, and its lock */
	int d = F(dup(a));
	C(flock(d, LOCK_EX | LOCK_NB));
	C(flock(d, LOCK_SH | LOCK_NB));
	C(flock(b, LOCK_SH | LOCK_NB));
	C(flock(b, LOCK_EX | LOCK_NB));
	/* closing one fd of it keeps it */
	C(close(a));
	C(flock(b, LOCK_SH | LOCK_NB));
	/* the last close releases it */
	C(close(d));
	C(flock(b, LOCK_EX | LOCK_NB));
	int e = F(OPEN("/f", O_RDONLY));
	C(flock(e, LOCK_SH | LOCK_NB));
	C(flock(b, LOCK_UN));
	C(flock(e, LOCK_SH | LOCK_NB));
	C(flock(b, LOCK_SH | LOCK_NB));
	C(flock(e, LOCK_EX | LOCK_NB));
	cl(b);
	cl(e);
}

static void flock_convert(void)
{
	C(mkfile("/f", "abc"));
	int a = F(OPEN("/f", O_RDONLY));
	int b = F(OPEN("/f", O_RDONLY));
	C(flock(a, LOCK_SH));
	C(flock(b, LOCK_SH));
	/* the conversion drops a's shared lock before it fails */
	C(flock(a, LOCK_EX | LOCK_NB));
	C(flock(b, LOCK_EX | LOCK_NB));
	C(flock(a, LOCK_SH | LOCK_NB));
	/* b downgrades; a may share again */
	C(flock(b, LOCK_SH));
	C(flock(a, LOCK_SH | LOCK_NB));
	C(flock(b, LOCK_EX | LOCK_NB));
	C(flock(a, LOCK_UN));
	C(flock(b, LOCK_EX | LOCK_NB));
	C(flock(b, LOCK_EX | LOCK_NB));
	cl(a);
	cl(b);
}

static void flock_types(void)
{
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	int d2 = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(flock(d, LOCK_EX | LOCK_NB));
	C(flock(d2, LOCK_SH | LOCK_NB));
	int p[2];
	C(pipe2(p, 0));
	C(flock(p[0], LOCK_EX | LOCK_NB));
	C(flock(p[1], LOCK_EX | LOCK_NB));
	C(flock(p[0], LOCK_UN));
	C(flock(p[1], LOCK_EX | LOCK_NB));
	C(SYMLINK("/d", "/l"));
	int l = F(OPEN("/l", O_RDONLY));
	C(flock(l, LOCK_SH | LOCK_NB));
	cl(d);
	cl(d2);
	cl(l);
	cl(p[0]);
	cl(p[1]);
}

static void flock_procs(void)
{
	C(mkfile("/f", "abc"));
	int a = F(OPEN("/f", O_RDWR));
	C(flock(a, LOCK_EX));
	int k = C(proc_clone(0));
	C(proc_use(k));
	/* the fork's copy of the fd is the same open file: it holds the lock */
	C(flock(a, LOCK_EX | LOCK_NB));
	int b = F(OPEN("/f", O_RDONLY));
	C(flock(b, LOCK_SH | LOCK_NB));
	/* its close is not the file's last */
	C(close(a));
	C(flock(b, LOCK_SH | LOCK_NB));
	C(proc_use(0));
	/* fcntl locks are another family */
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(flock(a, LOCK_UN));
	C(proc_use(k));
	C(flock(b, LOCK_SH | LOCK_NB));
	C(proc_use(0));
	C(flock(a, LOCK_SH | LOCK_NB));
	C(flock(a, LOCK_EX | LOCK_NB));
	/* the other proc's lock goes with it */
	C(proc_destroy(k));
	C(flock(a, LOCK_EX | LOCK_NB));
	cl(a);
}

/* ---- POSIX locks ---- */

static void posix_errors(void)
{
	C(mkfile("/f", "abc"));
	int rw = F(OPEN("/f", O_RDWR));
	int ro = F(OPEN("/f", O_RDONLY));
	int wo = F(OPEN("/f", O_WRONLY));
	int op = F(OPEN("/f", O_PATH));
	C(lk(ro, F_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	C(lk(wo, F_SETLK, F_RDLCK, SEEK_SET, 0, 10));
	C(lk(wo, F_SETLKW, F_RDLCK, SEEK_SET, 0, 10));
	C(lk(ro, F_SETLK, F_UNLCK, SEEK_SET, 0, 10));
	C(lk(wo, F_SETLK, F_UNLCK, SEEK_SET, 0, 10));
	/* the range and type are checked before the open mode */
	C(lk(ro, F_SETLK, F_WRLCK, 7, 0, 10));
	C(lk(ro, F_SETLK, 7, SEEK_SET, 0, 10));
	C(lk(ro, F_SETLK, F_WRLCK, SEEK_SET, -1, 10));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 5, -6));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 5, -5));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 0x7fffffffffffffffLL, 2));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 0x7fffffffffffffffLL, 1));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_END, 0x7fffffffffffffffLL, 0));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_END, 0x7fffffffffffffffLL - 2, 0));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_END, -4, 1));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_END, -3, 1));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 1, 0x7fffffffffffffffLL));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 0, 0x7fffffffffffffffLL));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 0, -0x7fffffffffffffffLL - 1));
	C(lk(ro, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	/* GETLK takes only a lock type */
	C(lk(rw, F_GETLK, F_UNLCK, SEEK_SET, 0, 0));
	C(lk(rw, F_GETLK, 9, SEEK_SET, 0, 0));
	C(lk(rw, F_GETLK, F_RDLCK, 9, 0, 0));
	C(lk(ro, F_GETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(lk(op, F_GETLK, F_RDLCK, SEEK_SET, 0, 0));
	C(lk(op, F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	C(lk(op, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	C(lk(99, F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	C(lk(99, F_GETLK, 9, 9, 0, 0));
	/* l_pid is ignored by the POSIX commands */
	C(lk_pid(rw, F_SETLK, F_WRLCK, 12345));
	C(lk_pid(rw, F_GETLK, F_WRLCK, 12345));
	C(lk(rw, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	cl(rw);
	cl(ro);
	cl(wo);
	cl(op);
}

static void posix_split_merge(void)
{
	C(mkfile("/f", "0123456789abcdefghij"));
	int a = F(OPEN("/f", O_RDWR));
	int k = C(proc_clone(0));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	CS("w0-9", layout(k, a, 24));
	/* a read lock inside splits the write lock in three */
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 3, 2));
	CS("r3-4", layout(k, a, 24));
	C(lk(a, F_SETLK, F_UNLCK, SEEK_SET, 7, 1));
	CS("u7", layout(k, a, 24));
	/* touching, another type: not merged */
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 10, 5));
	CS("r10-14", layout(k, a, 24));
	/* touching, the same type: merged */
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 10, 2));
	CS("w10-11", layout(k, a, 24));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 7, 1));
	CS("w7", layout(k, a, 24));
	/* a read lock over read, write and nothing */
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 2, 16));
	CS("r2-17", layout(k, a, 24));
	/* negative length: the bytes before the start */
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 20, -3));
	CS("w17-19", layout(k, a, 24));
	/* from the position, and from the end */
	C(lseek(a, 5, SEEK_SET));
	C(lk(a, F_SETLK, F_UNLCK, SEEK_CUR, -1, 3));
	CS("u4-6", layout(k, a, 24));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_END, 2, 0));
	CS("w22-", layout(k, a, 24));
	C(lk(a, F_SETLK, F_UNLCK, SEEK_END, 0, -1));
	CS("u19", layout(k, a, 24));
	/* unlock to EOF; then everything */
	C(lk(a, F_SETLK, F_UNLCK, SEEK_SET, 12, 0));
	CS("u12-", layout(k, a, 24));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	CS("r0-", layout(k, a, 24));
	C(lk(a, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	CS("u0-", layout(k, a, 24));
	C(proc_destroy(k));
	cl(a);
}

static void posix_conflicts(void)
{
	C(mkfile("/f", "0123456789"));
	int a = F(OPEN("/f", O_RDWR));
	int k = C(proc_clone(0));
	pids[0] = pid_of(0);
	pids[k] = pid_of(k);
	C(pids[0] != pids[k]);
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 0, 5));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 8, 2));
	/* the owner never conflicts with itself */
	CS("own", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	C(proc_use(k));
	CS("k w", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	CS("k r", getlk_str(a, F_GETLK, F_RDLCK, 0, 0));
	CS("k r5", getlk_str(a, F_GETLK, F_RDLCK, 5, 3));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 2, 2));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 2, 2));
	C(lk(a, F_SETLKW, F_RDLCK, SEEK_SET, 5, 3));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 5, 4));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 5, 3));
	C(proc_use(0));
	CS("0 w", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	CS("0 w5", getlk_str(a, F_GETLK, F_WRLCK, 5, 3));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(proc_use(k));
	/* an unlock of what it does not hold changes nothing */
	C(lk(a, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	C(proc_use(0));
	CS("0 w again", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	/* the holder's end releases its locks */
	C(proc_destroy(k));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	cl(a);
}

/* F_GETLK answers the first conflicting lock in Linux's list order: one
 * owner's locks together, sorted, and owners in the order they came. */
static void posix_getlk_order(void)
{
	C(mkfile("/f", ""));
	int a = F(OPEN("/f", O_RDWR));
	int k1 = C(proc_clone(0));
	int k2 = C(proc_clone(0));
	pids[0] = pid_of(0);
	pids[k1] = pid_of(k1);
	pids[k2] = pid_of(k2);
	C(proc_use(k1));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 50, 10));
	C(proc_use(0));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 40, 10));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 10, 10));
	C(proc_use(k1));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 30, 5));
	C(proc_use(k2));
	CS("k2 all", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	CS("k2 40-", getlk_str(a, F_GETLK, F_WRLCK, 40, 0));
	CS("k2 r", getlk_str(a, F_GETLK, F_RDLCK, 0, 0));
	C(proc_use(k1));
	CS("k1 all", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	C(lk(a, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	/* k1 comes again: after proc 0 now */
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 0, 5));
	C(proc_use(k2));
	CS("k2 all again", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	C(proc_use(0));
	C(proc_destroy(k1));
	C(proc_destroy(k2));
	cl(a);
}

/* Any close of any fd of the file by the owner drops all its locks there. */
static void posix_close_releases(void)
{
	C(mkfile("/f", "0123456789"));
	C(mkfile("/g", "0123456789"));
	int a = F(OPEN("/f", O_RDWR));
	int k = C(proc_clone(0));
	int g = F(OPEN("/g", O_RDWR));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(lk(g, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	int d = F(dup(a));
	C(close(d));
	CS("dup closed", layout(k, a, 2));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	int b = F(OPEN("/f", O_RDONLY));
	C(close(b));
	CS("other fd closed", layout(k, a, 2));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	/* dup2 over an fd of the file closes it */
	b = F(OPEN("/f", O_RDONLY));
	C(dup2(g, b));
	CS("dup2 over", layout(k, a, 2));
	CS("g kept", layout(k, g, 2));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(close_range(b, b, 0));
	CS("g closed", layout(k, g, 2));
	CS("f kept", layout(k, a, 2));
	/* the other proc's copies are not ours */
	C(proc_use(k));
	C(close(a));
	C(proc_use(0));
	CS("k closed", layout(k, a, 2));
	C(proc_destroy(k));
	cl(a);
	cl(g);
}

static void posix_threads(void)
{
	C(mkfile("/f", "0123456789"));
	int a = F(OPEN("/f", O_RDWR));
	int k = C(proc_clone(0));
	int t = C(proc_clone(0x1));
	pids[0] = pid_of(0);
	pids[k] = pid_of(k);
	pids[t] = pid_of(t);
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 0, 5));
	/* one fd table, one owner: no conflict, and the same locks */
	C(proc_use(t));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 3, 5));
	CS("t own", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	C(proc_use(0));
	CS("layout", layout(k, a, 10));
	C(proc_use(k));
	/* l_pid: whoever set the lock */
	CS("k sees", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	CS("k sees 3", getlk_str(a, F_GETLK, F_WRLCK, 3, 0));
	C(proc_use(t));
	int b = F(OPEN("/f", O_RDONLY));
	C(close(b));
	C(proc_use(0));
	CS("t closed", layout(k, a, 10));
	C(proc_destroy(t));
	C(proc_destroy(k));
	cl(a);
}

static void posix_types(void)
{
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(lk(d, F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	C(lk(d, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(lk(d, F_SETLK, F_RDLCK, SEEK_END, -1, 0));
	int p[2];
	C(pipe2(p, 0));
	C(lk(p[0], F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	C(lk(p[0], F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(lk(p[1], F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(lk(p[1], F_GETLK, F_WRLCK, SEEK_SET, 0, 0));
	C(lk(p[0], F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	cl(d);
	cl(p[0]);
	cl(p[1]);
}

/* ---- OFD locks ---- */

static void ofd_basic(void)
{
	C(mkfile("/f", "0123456789"));
	int a = F(OPEN("/f", O_RDWR));
	int b = F(OPEN("/f", O_RDWR));
	int ro = F(OPEN("/f", O_RDONLY));
	pids[0] = pid_of(0);
	C(lk_pid(a, F_OFD_SETLK, F_WRLCK, 1));
	C(lk_pid(a, F_OFD_SETLKW, F_WRLCK, -1));
	C(lk_pid(a, F_OFD_GETLK, F_WRLCK, 1));
	C(lk(ro, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 0));
	/* the open mode before l_pid */
	C(lk_pid(ro, F_OFD_SETLK, F_WRLCK, 1));
	C(lk_pid(ro, F_OFD_GETLK, F_WRLCK, 1));
	C(lk(a, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 5));
	/* two open files of one proc are two owners */
	C(lk(b, F_OFD_SETLK, F_RDLCK, SEEK_SET, 4, 1));
	C(lk(b, F_OFD_SETLKW, F_RDLCK, SEEK_SET, 5, 1));
	CS("b sees", getlk_str(b, F_OFD_GETLK, F_RDLCK, 0, 0));
	CS("a own", getlk_str(a, F_OFD_GETLK, F_WRLCK, 0, 0));
	CS("a sees b", getlk_str(a, F_OFD_GETLK, F_WRLCK, 5, 0));
	/* and the proc's POSIX locks a third */
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 0, 1));
	C(lk(a, F_SETLK, F_RDLCK, SEEK_SET, 5, 1));
	C(lk(a, F_SETLK, F_WRLCK, SEEK_SET, 5, 1));
	CS("posix sees", getlk_str(a, F_GETLK, F_WRLCK, 0, 0));
	C(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 6, 2));
	CS("ofd sees posix", getlk_str(b, F_OFD_GETLK, F_WRLCK, 6, 0));
	/* F_UNLCK asks for the file's own locks (Linux 6.10) */
	C_SINCE(6, 10, lk(b, F_OFD_GETLK, F_UNLCK, SEEK_SET, 0, 0));
	chk_str_since("b own", getlk_str(b, F_OFD_GETLK, F_UNLCK, 0, 0), 6, 10);
	/* a close of another fd of the file, even a dup of a, keeps them */
	int d = F(dup(a));
	C(close(d));
	C(close(ro));
	CS("after closes", getlk_str(b, F_OFD_GETLK, F_WRLCK, 0, 0));
	C(lk(b, F_OFD_SETLK, F_UNLCK, SEEK_SET, 4, 1));
	C(lk(b, F_OFD_SETLK, F_UNLCK, SEEK_SET, 5, 1));
	C(close(a));
	CS("a closed", getlk_str(b, F_OFD_GETLK, F_WRLCK, 0, 0));
	cl(b);
}

static void ofd_procs(void)
{
	C(mkfile("/f", "0123456789"));
	int a = F(OPEN("/f", O_RDWR));
	C(lk(a, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 3));
	int k = C(proc_clone(0));
	C(proc_use(k));
	/* the fork's fd is the same open file: the same owner */
	C(lk(a, F_OFD_SETLK, F_WRLCK, SEEK_SET, 2, 2));
	CS("k posix sees", getlk_str(a, F_GETLK, F_RDLCK, 0, 0));
	int b = F(OPEN("/f", O_RDWR));
	CS("k other file", getlk_str(b, F_OFD_GETLK, F_RDLCK, 0, 0));
	C(close(a));
	CS("k closed its copy", getlk_str(b, F_OFD_GETLK, F_RDLCK, 0, 0));
	C(proc_use(0));
	C(close(a));
	C(proc_use(k));
	CS("last close", getlk_str(b, F_OFD_GETLK, F_RDLCK, 0, 0));
	C(proc_use(0));
	C(proc_destroy(k));
}

const struct scenario locks_scenarios[] = {
	{ "flock_errors", flock_errors },
	{ "flock_open_file", flock_open_file },
	{ "flock_convert", flock_convert },
	{ "flock_types", flock_types },
	{ "flock_procs", flock_procs, NEEDS_PROCS },
	{ "posix_lock_errors", posix_errors },
	{ "posix_lock_split_merge", posix_split_merge, NEEDS_PROCS },
	{ "posix_lock_conflicts", posix_conflicts, NEEDS_PROCS },
	{ "posix_lock_getlk_order", posix_getlk_order, NEEDS_PROCS },
	{ "posix_lock_close_releases", posix_close_releases, NEEDS_PROCS },
	{ "posix_lock_threads", posix_threads, NEEDS_PROCS },
	{ "posix_lock_types", posix_types },
	{ "ofd_lock_basic", ofd_basic },
	{ "ofd_lock_procs", ofd_procs, NEEDS_PROCS },
	{ NULL, NULL },
};
