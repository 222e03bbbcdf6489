/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz.c - the differential sequence fuzzer.
 *
 * Random sequences of calls over a small pool of names, fds, flags, modes and
 * two uids (valid and invalid arguments alike) run as conformance scenarios:
 * each sequence in a fresh sandbox on the host kernel and on uvfs, every
 * result compared by the conformance harness (conf_compare).  A sequence that
 * differs is minimised (calls dropped while the same check still differs) and
 * printed as the C source of a conformance scenario, for fuzzfound.c.
 *
 *   fuzz [-s SEED] [-n CALLS] [-l LEN] [-i SEQ] [-M MAX] [-p] [-v]
 *
 * Sequence k of seed S is generated from S and k alone, so -s S -i k replays
 * one sequence and -p prints it as a scenario.  Without -s the seed is drawn
 * from the clock; it is printed first either way.  Only the first MAX
 * failing sequences (default 10) are minimised; later ones print their first
 * difference only, so a long run stays as fast as the comparisons.
 *
 * Results Linux defines are compared exactly: return values and errnos, fd
 * numbers (the lowest free fd; every sandbox starts with none), watch
 * descriptors, getcwd, stat summaries without times or inode numbers (STAT),
 * sorted listings, contents, event sequences (events.h).
 */
#include <inttypes.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include <time.h>
#include "conf.h"
#include "events.h"
#include "fuzz.h"

/* ---- random numbers: splitmix64, one stream per sequence ---- */
static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rnd(int n)
{
	return (int)(next() % (uint64_t)n);
}

static int chance(int percent)
{
	return rnd(100) < percent;
}

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

/* ---- a sequence ---- */
enum op {
	OP_OPENAT, OP_CLOSE, OP_DUP, OP_DUP2, OP_DUP3, OP_FCNTL_DUPFD, OP_FCNTL, OP_SETFL,
	OP_MKDIRAT, OP_MKNODAT, OP_UNLINKAT, OP_RENAMEAT2, OP_LINKAT, OP_SYMLINKAT, OP_READLINKAT,
	OP_TRUNCATE, OP_FTRUNCATE, OP_WRITE, OP_PWRITE, OP_READ, OP_PREAD, OP_LSEEK, OP_GETDENTS,
	OP_FCHMODAT, OP_FCHMOD, OP_FCHOWNAT, OP_FCHOWN, OP_FACCESSAT, OP_UTIMENSAT, OP_UMASK,
	OP_CHDIR, OP_FCHDIR, OP_GETCWD, OP_SETCRED, OP_MOUNT_TMPFS, OP_MOUNT_BIND, OP_REMOUNT,
	OP_UMOUNT, OP_PIPE2, OP_FIONREAD, OP_IN_INIT, OP_IN_ADD, OP_IN_RM, OP_IN_READ,
	OP_STAT, OP_STATF, OP_STATAT, OP_FSTAT, OP_LS, OP_CAT, OP_FCAT, OP_READLINK,
	OP_CHATTR, OP_LSATTR, OP_PWRITEV2, OP_PREADV2, OP_FALLOCATE, OP_SETXATTR, OP_MEMFD, OP_SEALS,
	OP_FSTATFS, OP_SYNCFS, OP_FADVISE, OP_FLOCK, OP_SENDFILE, OP_COPY_RANGE, OP_FGETXATTR,
	OP_REOPEN, OP_SPLICE, OP_TEE, OP_EPOLL, OP_HANDLE, OP_LOCK, OP_STATX, OP_OPENAT2, OP_PIPESZ, OP_FSYNC, OP_XSET, OP_XGET, OP_XLIST,
	OP_PCLONE, OP_PUSE, OP_PEXIT, OP_CHROOT, OP_PIVOT, NOPS
};

#define NSLOT 8
/* fd operands: a slot's value, or one of these */
enum { FD_CWD = NSLOT, FD_M1, FD_1023, FD_1024, FD_LIT0, FD_LIT_LAST = FD_LIT0 + 6, NFD };

#define PATHLEN 1024
struct call {
	int op;
	int id;		/* index in the generated sequence: names its checks */
	int fd[2];	/* fd operands */
	int slot[2];	/* where results go */
	long long n[5];	/* flags, modes, sizes, ids */
	char p[2][PATHLEN];	/* paths, as passed */
	char pc[2][128];	/* the same as C source */
	int doc;	/* a documented difference may show: see exec() */
};

#define MAXLEN 1000
static struct call seq[MAXLEN];
static int seq_len;

/* ---- operands ---- */
static const char *const comps[] = { "a", "b", "x", "y", "l", "a", "x", ".", "..", "\x01" /* N255 */,
				     "\x02" /* N256 */ };
static const char n255[] = N255;
static const char n256[] = N256;

/* Appends component c to the path p and its C source pc. */
static void put(char *p, char *pc, const char *c)
{
	if (c[0] == '\x01' || c[0] == '\x02') {
		strcat(p, c[0] == '\x01' ? n255 : n256);
		strcat(pc, c[0] == '\x01' ? "\" N255 \"" : "\" N256 \"");
	} else {
		strcat(p, c);
		strcat(pc, c);
	}
}

/* A C string literal: quote it, drop the empty literals N255 left. */
static void quote(char *pc)
{
	char t[128];
	snprintf(t, sizeof t, "\"%s\"", pc);
	char *q;
	while ((q = strstr(t, "\"\" ")))
		memmove(q, q + 3, strlen(q + 3) + 1);
	while ((q = strstr(t, " \"\"")) && (q[3] == 0))
		*q = 0;
	strcpy(pc, t);
}

static void gen_path(struct call *c, int i)
{
	char *p = c->p[i], *pc = c->pc[i];
	p[0] = pc[0] = 0;
	if (chance(3)) {
		quote(pc);
		return;
	}
	if (chance(50))
		put(p, pc, "/");
	int k = chance(65) ? 1 : chance(80) ? 2 : 3;
	for (int j = 0; j < k; j++) {
		if (j)
			put(p, pc, "/");
		put(p, pc, PICK(comps));
	}
	if (chance(8))
		put(p, pc, "/");
	quote(pc);
}

static void gen_target(struct call *c, int i)
{
	static const char *const targets[] = { "a", "x", "/x", "../a", "x/y", "nowhere", "/", "l",
					       ".", "..", "", "/x/a", "y/" };
	if (chance(50)) {
		gen_path(c, i);
		return;
	}
	const char *t = PICK(targets);
	strcpy(c->p[i], t);
	strcpy(c->pc[i], t);
	quote(c->pc[i]);
}

static int gen_fd(void)
{
	if (chance(85))
		return rnd(NSLOT);
	return FD_M1 + rnd(NFD - FD_M1);
}

static int gen_dirfd(void)
{
	if (chance(60))
		return FD_CWD;
	return gen_fd();
}

static long long bits(const long long *b, int n, int percent)
{
	long long v = 0;
	for (int i = 0; i < n; i++)
		if (chance(percent))
			v |= b[i];
	return v;
}
#define BITS(a, pc) bits(a, sizeof(a) / sizeof((a)[0]), pc)

static const long long oflag_bits[] = { O_CREAT, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY,
					O_NOFOLLOW, O_PATH, O_CLOEXEC, O_NONBLOCK, O_NOATIME,
					O_SYNC, O_DSYNC, O_NOCTTY, O_DIRECT, 0100000 /* O_LARGEFILE */ };
static const long long modes[] = { 0644, 0755, 0, 0777, 07777, 0600, 0400, 04755, 02755, 01777 };
static const long long sizes[] = { 0, 1, 5, 100, 4096, 5000, 70000 };
static const long long lens[] = { 0, 1, 5, 4095, 4096, 70000, -1, 1LL << 40, 1LL << 62 };
static const long long offs[] = { 0, 1, 3, 4096, 10000, -1, 1LL << 40 };
static const long long ids[] = { 0, 1000, 2000, -1 };

static long long gen_oflags(void)
{
	long long f = PICK(((const long long[]){ O_RDONLY, O_WRONLY, O_RDWR, O_RDWR, 3 }));
	f |= BITS(oflag_bits, 18);
	if (chance(3))
		f |= O_TMPFILE;
	if (chance(2))
		f |= 0x40000000;
	return f;
}

static uint32_t gen_inmask(void)
{
	static const long long ev[] = { IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE,
					IN_CLOSE_NOWRITE, IN_OPEN, IN_MOVED_FROM, IN_MOVED_TO,
					IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF };
	static const long long mod[] = { IN_ONLYDIR, IN_DONT_FOLLOW, IN_EXCL_UNLINK, IN_MASK_ADD,
					 IN_ONESHOT, IN_MASK_CREATE };
	if (chance(5))
		return 0;
	uint32_t m = chance(40) ? IN_ALL_EVENTS : (uint32_t)BITS(ev, 30);
	m |= (uint32_t)BITS(mod, 8);
	if (chance(3))
		m |= 0x00100000;	/* no such event */
	return m;
}

/* The uid the generated sequence runs as at each point (setcred always
 * succeeds: the saved uid is 0 on both backends). */
static int gen_uid;

/* Through a FUSE mount (fuzz-fuse) no mount is made inside the tree: that
 * is a library call (tests/fuse/backend_fuse.c answers ENOSYS). */
#ifdef FUZZ_FUSE
#define MOUNT_W(w) 0
#else
#define MOUNT_W(w) (w)
#endif
/* Nor are there processes (proc_clone) behind a FUSE mount's backend. */
#ifdef FUZZ_FUSE
#define PROC_W(w) 0
#else
#define PROC_W(w) (w)
#endif

/* The procs of the sequence as the backends number them (proc_clone takes
 * the first free number of 1..7, from proc 0 only): which are alive, the
 * uid each runs as, and the one the calls go to. */
#define GEN_PROCS 8
static int gen_live[GEN_PROCS], gen_uids[GEN_PROCS], gen_cur;

static void gen_call(struct call *c, int id, int prologue)
{
	memset(c, 0, sizeof *c);
	c->id = id;
	c->slot[0] = rnd(NSLOT);
	c->slot[1] = rnd(NSLOT);
	if (c->slot[1] == c->slot[0])
		c->slot[1] = (c->slot[0] + 1) % NSLOT;
	c->fd[0] = gen_fd();
	c->fd[1] = gen_fd();
	if (prologue) {
		/* a first few names, so that the rest finds files, dirs, links */
		static const int pro[] = { OP_MKDIRAT, OP_MKDIRAT, OP_OPENAT, OP_SYMLINKAT, OP_OPENAT };
		c->op = PICK(pro);
	} else {
		static const unsigned char w[NOPS] = {
			[OP_OPENAT] = 14, [OP_CLOSE] = 6, [OP_DUP] = 2, [OP_DUP2] = 2, [OP_DUP3] = 2,
			[OP_FCNTL_DUPFD] = 1, [OP_FCNTL] = 2, [OP_SETFL] = 1,
			[OP_MKDIRAT] = 5, [OP_MKNODAT] = 1, [OP_UNLINKAT] = 5, [OP_RENAMEAT2] = 7,
			[OP_LINKAT] = 3, [OP_SYMLINKAT] = 4, [OP_READLINKAT] = 1,
			[OP_TRUNCATE] = 2, [OP_FTRUNCATE] = 2, [OP_WRITE] = 4, [OP_PWRITE] = 2,
			[OP_READ] = 3, [OP_PREAD] = 1, [OP_LSEEK] = 2, [OP_GETDENTS] = 1,
			[OP_FCHMODAT] = 3, [OP_FCHMOD] = 1, [OP_FCHOWNAT] = 3, [OP_FCHOWN] = 1,
			[OP_FACCESSAT] = 2, [OP_UTIMENSAT] = 1, [OP_UMASK] = 1,
			[OP_CHDIR] = 3, [OP_FCHDIR] = 2, [OP_GETCWD] = 2, [OP_SETCRED] = 3,
			[OP_MOUNT_TMPFS] = MOUNT_W(2), [OP_MOUNT_BIND] = MOUNT_W(2), [OP_REMOUNT] = MOUNT_W(1),
			[OP_UMOUNT] = MOUNT_W(3),
			[OP_PIPE2] = 2, [OP_FIONREAD] = 1, [OP_IN_INIT] = 2, [OP_IN_ADD] = 4,
			[OP_IN_RM] = 1, [OP_IN_READ] = 4,
			[OP_STAT] = 4, [OP_STATF] = 2, [OP_STATAT] = 2, [OP_FSTAT] = 3, [OP_LS] = 3,
			[OP_CAT] = 2, [OP_FCAT] = 1, [OP_READLINK] = 1,
			[OP_CHATTR] = 3, [OP_LSATTR] = 1, [OP_PWRITEV2] = 2, [OP_PREADV2] = 1,
			[OP_FALLOCATE] = 2, [OP_SETXATTR] = 2, [OP_MEMFD] = 1, [OP_SEALS] = 2,
			[OP_FSTATFS] = 1, [OP_SYNCFS] = 1, [OP_FADVISE] = 1, [OP_FLOCK] = 1, [OP_SENDFILE] = 1,
			[OP_COPY_RANGE] = 1, [OP_FGETXATTR] = 1, [OP_REOPEN] = 2, [OP_SPLICE] = 1, [OP_TEE] = 1,
			[OP_EPOLL] = 1, [OP_HANDLE] = 1, [OP_LOCK] = 2, [OP_STATX] = 2, [OP_OPENAT2] = 5, [OP_PIPESZ] = 1, [OP_FSYNC] = 1, [OP_XSET] = 2, [OP_XGET] = 1, [OP_XLIST] = 2,
			[OP_PCLONE] = PROC_W(4), [OP_PUSE] = PROC_W(8), [OP_PEXIT] = PROC_W(2), [OP_CHROOT] = 1, [OP_PIVOT] = MOUNT_W(1),
		};
		int total = 0;
		for (int i = 0; i < NOPS; i++)
			total += w[i];
		int r = rnd(total);
		for (c->op = 0; r >= w[c->op]; c->op++)
			r -= w[c->op];
	}
	gen_path(c, 0);
	gen_path(c, 1);
	switch (c->op) {
	case OP_OPENAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = gen_oflags();
		c->n[1] = chance(70) ? 0644 : PICK(modes);
		if (prologue)
			c->n[0] = O_CREAT | O_WRONLY;
		break;
	case OP_DUP2:
	case OP_DUP3:
		c->n[0] = PICK(((const long long[]){ 0, O_CLOEXEC, O_CLOEXEC, 1, O_NONBLOCK }));
		break;
	case OP_FCNTL_DUPFD:
		c->n[0] = chance(50) ? F_DUPFD : F_DUPFD_CLOEXEC;
		c->n[1] = PICK(((const long long[]){ 0, 3, 7, 1023, 1024, -1 }));
		break;
	case OP_FCNTL:
		c->n[0] = PICK(((const long long[]){ F_GETFL, F_GETFD, F_SETFD, F_GETFL, 9999 }));
		c->n[1] = chance(50) ? FD_CLOEXEC : 0;
		break;
	case OP_SETFL:
		/* never clears O_NONBLOCK: a pipe read or write must never wait */
		c->n[0] = O_NONBLOCK | PICK(((const long long[]){ 0, O_APPEND, O_NOATIME, O_DIRECT }));
		break;
	case OP_MKDIRAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = chance(70) ? 0755 : PICK(modes);
		break;
	case OP_MKNODAT:
		/* no FIFOs: an open of one would wait for its peer */
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ S_IFREG | 0644, 0644, S_IFCHR | 0644, S_IFBLK | 0600,
						      S_IFSOCK | 0755, S_IFDIR | 0755, 0170000 | 0644 }));
		break;
	case OP_UNLINKAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ 0, 0, AT_REMOVEDIR, AT_REMOVEDIR, 0x100, 0x1 }));
		break;
	case OP_RENAMEAT2:
		c->fd[0] = gen_dirfd();
		c->fd[1] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ 0, 0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE,
						      RENAME_EXCHANGE, RENAME_WHITEOUT,
						      RENAME_NOREPLACE | RENAME_EXCHANGE,
						      RENAME_WHITEOUT | RENAME_EXCHANGE, 8 }));
		break;
	case OP_LINKAT:
		c->fd[0] = gen_dirfd();
		c->fd[1] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ 0, 0, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH, 0x1 }));
		if (c->n[0] == AT_EMPTY_PATH && chance(50)) {
			c->p[0][0] = 0;
			strcpy(c->pc[0], "\"\"");
		}
		/* documented: non-root AT_EMPTY_PATH from an fd compares fs
		 * ids, not cred objects (a relative name on an fd, nothing else) */
		c->doc = (c->n[0] & AT_EMPTY_PATH) && gen_uid != 0 && c->p[0][0] != '/' && c->fd[0] != FD_CWD;
		break;
	case OP_SYMLINKAT:
		gen_target(c, 1);
		c->fd[0] = gen_dirfd();
		break;
	case OP_READLINKAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ 4096, 1, 0 }));
		break;
	case OP_TRUNCATE:
	case OP_FTRUNCATE:
		c->n[0] = PICK(lens);
		break;
	case OP_WRITE:
	case OP_READ:
		c->n[0] = PICK(sizes);
		break;
	case OP_PWRITE:
	case OP_PREAD:
		c->n[0] = PICK(sizes);
		c->n[1] = PICK(offs);
		break;
	case OP_LSEEK:
		c->n[0] = PICK(offs);
		c->n[1] = PICK(((const long long[]){ SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE, 5 }));
		break;
	case OP_CHATTR:
		c->n[0] = PICK(((const long long[]){ 0, FS_IMMUTABLE_FL, FS_APPEND_FL, FS_NODUMP_FL, FS_NOATIME_FL,
						      FS_IMMUTABLE_FL | FS_APPEND_FL, FS_APPEND_FL | FS_NOATIME_FL,
						      FS_SYNC_FL, 0 }));
		break;
	case OP_PWRITEV2:
	case OP_PREADV2:
		c->n[0] = PICK(sizes);
		c->n[1] = PICK(((const long long[]){ -1, -1, 0, 3, 4096, -2 }));
		c->n[2] = PICK(((const long long[]){ 0, 0, RWF_APPEND, RWF_NOAPPEND, RWF_NOWAIT, RWF_DSYNC | RWF_HIPRI,
						      RWF_APPEND | RWF_NOAPPEND, 0x200 }));
		break;
	case OP_FALLOCATE:
		c->n[0] = PICK(((const long long[]){ 0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						      FALLOC_FL_ZERO_RANGE, FALLOC_FL_COLLAPSE_RANGE, FALLOC_FL_INSERT_RANGE,
						      FALLOC_FL_PUNCH_HOLE }));
		c->n[1] = PICK(((const long long[]){ 0, 1, 4096, 10000, -1 }));
		c->n[2] = PICK(((const long long[]){ 1, 4096, 8192, 70000, 0 }));
		break;
	case OP_MEMFD:
		c->n[0] = PICK(((const long long[]){ 0, MFD_ALLOW_SEALING, MFD_ALLOW_SEALING | MFD_CLOEXEC,
						      MFD_NOEXEC_SEAL, MFD_EXEC, MFD_EXEC | MFD_ALLOW_SEALING,
						      MFD_EXEC | MFD_NOEXEC_SEAL, 0x100 }));
		break;
	case OP_SEALS:
		c->n[0] = chance(70) ? F_ADD_SEALS : F_GET_SEALS;
		/* on hostfs the fd may be a file made by name, with no seals,
		 * where the host side's tmpfs file has F_SEAL_SEAL */
		if (getenv("UVFS_CONF_FS") && !strcmp(getenv("UVFS_CONF_FS"), "hostfs"))
			c->doc = FUZZ_DOC_SEALS_ON;
		c->n[1] = PICK(((const long long[]){ 0, F_SEAL_SEAL, F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_WRITE,
						      F_SEAL_FUTURE_WRITE, F_SEAL_EXEC, F_SEAL_GROW | F_SEAL_SHRINK,
						      0x40 }));
		break;
	case OP_FADVISE:
		c->n[0] = PICK(((const long long[]){ 0, 1, 4096, -1 }));
		c->n[1] = PICK(((const long long[]){ 0, 10, -1 }));
		c->n[2] = PICK(((const long long[]){ POSIX_FADV_NORMAL, POSIX_FADV_SEQUENTIAL, POSIX_FADV_WILLNEED,
						      POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE, 9 }));
		break;
	case OP_FLOCK:
		/* never waits: LOCK_NB with every lock asked for */
		c->n[0] = PICK(((const long long[]){ LOCK_SH | LOCK_NB, LOCK_EX | LOCK_NB, LOCK_UN, 0,
						      LOCK_SH | LOCK_EX | LOCK_NB, LOCK_UN | LOCK_NB }));
		break;
	case OP_SENDFILE:
	case OP_COPY_RANGE:
		c->n[0] = PICK(((const long long[]){ 0, 1, 100, 5000 }));
		break;
	case OP_FGETXATTR:
		c->n[0] = rnd(4);	/* the name */
		c->n[1] = PICK(((const long long[]){ 0, 1, 100 }));
		break;
	case OP_REOPEN:
		/* never O_CREAT (no name), O_NONBLOCK always: a FIFO must not wait */
		c->n[0] = O_NONBLOCK | PICK(((const long long[]){ O_RDONLY, O_WRONLY, O_RDWR, O_PATH, O_RDWR | O_TRUNC,
								  O_RDONLY | O_DIRECTORY, O_WRONLY | O_APPEND, O_RDONLY | O_NOFOLLOW,
								  O_RDWR | O_DIRECT }));
		break;
	case OP_SPLICE:
	case OP_TEE:
		c->n[0] = PICK(((const long long[]){ 0, 1, 100, 70000 }));
		c->n[1] = SPLICE_F_NONBLOCK | (chance(20) ? SPLICE_F_MOVE : 0);
		break;
	case OP_EPOLL:
		c->n[0] = PICK(((const long long[]){ EPOLL_CTL_ADD, EPOLL_CTL_ADD, EPOLL_CTL_DEL, EPOLL_CTL_MOD }));
		c->n[1] = PICK(((const long long[]){ EPOLLIN, EPOLLOUT, EPOLLIN | EPOLLET, EPOLLIN | EPOLLEXCLUSIVE, 0 }));
		break;
	case OP_LOCK:
		/* the commands that never wait */
		c->n[0] = PICK(((const long long[]){ F_SETLK, F_GETLK, F_OFD_SETLK, F_OFD_GETLK, F_SETLK, F_OFD_SETLK }));
		c->n[1] = PICK(((const long long[]){ F_RDLCK, F_WRLCK, F_UNLCK, 7 }));
		c->n[2] = PICK(((const long long[]){ SEEK_SET, SEEK_CUR, SEEK_END, 5 }));
		c->n[3] = PICK(((const long long[]){ 0, 1, 100, -1 }));
		break;
	case OP_HANDLE:
		/* a handle of the path (or the fd's file), opened through the other fd */
		c->n[0] = PICK(((const long long[]){ 0, AT_EMPTY_PATH, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH | AT_SYMLINK_FOLLOW }));
		c->n[1] = PICK(((const long long[]){ O_RDONLY, O_RDWR, O_PATH, O_WRONLY | O_APPEND, O_RDONLY | O_DIRECTORY }));
		break;
	case OP_SETXATTR:
		c->n[0] = rnd(4);	/* the name */
		c->n[1] = PICK(((const long long[]){ 0, XATTR_CREATE, XATTR_REPLACE }));
		c->n[2] = chance(20); /* remove */
		break;
	case OP_GETDENTS:
		c->n[0] = chance(80) ? 4096 : 0;
		break;
	case OP_FCHMODAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(modes);
		c->n[1] = chance(80) ? 0 : PICK(((const long long[]){ AT_SYMLINK_NOFOLLOW, 0x1, AT_EMPTY_PATH,
								 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW }));
		break;
	case OP_FCHMOD:
		c->n[0] = PICK(modes);
		break;
	case OP_FCHOWNAT:
		c->fd[0] = gen_dirfd();
		c->n[2] = PICK(((const long long[]){ 0, 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, 0x1 }));
		/* fall through */
	case OP_FCHOWN:
		c->n[0] = PICK(ids);
		c->n[1] = PICK(ids);
		break;
	case OP_FACCESSAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ F_OK, R_OK, W_OK, X_OK, R_OK | W_OK | X_OK, 8 }));
		c->n[1] = PICK(((const long long[]){ 0, 0, AT_SYMLINK_NOFOLLOW, AT_EACCESS, 0x1, AT_EMPTY_PATH,
						      AT_EMPTY_PATH | AT_EACCESS }));
		break;
	case OP_UTIMENSAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = chance(50);
		c->n[1] = PICK(((const long long[]){ 0, 0, AT_SYMLINK_NOFOLLOW, 0x1, AT_EMPTY_PATH }));
		break;
	case OP_UMASK:
		c->n[0] = PICK(((const long long[]){ 022, 0, 077, 0777 }));
		break;
	case OP_GETCWD:
		c->n[0] = PICK(((const long long[]){ 4096, 4096, 2, 0 }));
		break;
	case OP_SETCRED:
		c->n[0] = gen_uid = gen_uids[gen_cur] = gen_uid ? 0 : 1000;
		break;
	case OP_CHROOT:
		/* On hostfs and the overlay the uvfs side's root is itself a
		 * chroot into the mount, so a cwd left outside a later root
		 * reads differently in getcwd ("(unreachable)" and the mount's
		 * path): a chdir there instead. */
		if (getenv("UVFS_CONF_FS"))
			c->op = OP_CHDIR;
		break;
	case OP_PIVOT:
		/* the targets' "." and "/" too: pivot_root(".", ".") is how
		 * runtimes call it.  Not on hostfs and the overlay, whose
		 * uvfs-side root is a chroot into a mount (as OP_CHROOT) */
		gen_target(c, 0);
		gen_target(c, 1);
		if (getenv("UVFS_CONF_FS"))
			c->op = OP_CHDIR;
		break;
	case OP_PCLONE:
		/* a copy of proc 0 (another proc's clone is ENOSYS on both
		 * sides: go back to proc 0 instead), sharing nothing, its fd
		 * table (UVFS_CLONE_FILES), its root, cwd and umask
		 * (UVFS_CLONE_FS) or both */
		if (gen_cur != 0) {
			c->op = OP_PUSE;
			c->n[0] = gen_cur = 0;
			gen_uid = gen_uids[0];
			break;
		}
		c->n[0] = rnd(4);
		for (int k = 1; k < GEN_PROCS; k++)
			if (!gen_live[k]) {
				gen_live[k] = 1;
				gen_uids[k] = gen_uids[0];
				break;
			}
		break;
	case OP_PUSE: {
		/* a live proc, now and then one that is not */
		int k = rnd(GEN_PROCS);
		if (!gen_live[k] && !chance(5))
			k = 0;
		c->n[0] = k;
		if (gen_live[k]) {
			gen_cur = k;
			gen_uid = gen_uids[k];
		}
		break;
	}
	case OP_PEXIT: {
		/* a live proc but 0 (its end: fds closed, locks released) */
		int k = 1 + rnd(GEN_PROCS - 1);
		c->n[0] = k;
		if (gen_live[k]) {
			gen_live[k] = 0;
			if (gen_cur == k) {
				gen_cur = 0;
				gen_uid = gen_uids[0];
			}
		}
		break;
	}
	case OP_MOUNT_TMPFS:
		c->n[0] = PICK(((const long long[]){ 0, 0, MS_RDONLY, MS_NOEXEC | MS_NOSUID, MS_NODEV }));
		c->n[1] = rnd(5);
		break;
	case OP_MOUNT_BIND:
		c->n[0] = PICK(((const long long[]){ MS_BIND, MS_BIND | MS_REC, MS_BIND | MS_RDONLY, MS_MOVE, MS_MOVE }));
		break;
	case OP_REMOUNT:
		/* and the propagation types but MS_SHARED, which uvfs does
		 * not model (docs/ARCHITECTURE.md) */
		c->n[0] = PICK(((const long long[]){ MS_REMOUNT | MS_RDONLY, MS_REMOUNT,
						      MS_REMOUNT | MS_BIND | MS_RDONLY, MS_REMOUNT | MS_BIND,
						      MS_PRIVATE, MS_REC | MS_SLAVE, MS_UNBINDABLE,
						      MS_REC | MS_UNBINDABLE, MS_PRIVATE | MS_SLAVE }));
		break;
	case OP_UMOUNT:
		c->n[0] = PICK(((const long long[]){ 0, 0, MNT_DETACH, MNT_DETACH, UMOUNT_NOFOLLOW,
						      MNT_EXPIRE, 0x80 }));
		break;
	case OP_PIPE2:
		/* always O_NONBLOCK: nothing may wait */
		c->n[0] = O_NONBLOCK | (chance(50) ? O_CLOEXEC : 0) | (chance(20) ? O_DIRECT : 0) |
			  (chance(5) ? O_WRONLY : 0);
		break;
	case OP_IN_INIT:
		/* always IN_NONBLOCK: a read of an empty queue must not wait */
		c->n[0] = IN_NONBLOCK | (chance(50) ? IN_CLOEXEC : 0) | (chance(5) ? 0x1 : 0);
		break;
	case OP_IN_ADD:
		c->n[0] = gen_inmask();
		break;
	case OP_IN_RM:
		c->n[0] = PICK(((const long long[]){ 1, 1, 2, 3, 0, -1, 99 }));
		break;
	case OP_IN_READ:
		c->n[0] = chance(85) ? 4096 : PICK(((const long long[]){ 16, 0, 20 }));
		break;
	case OP_STATAT:
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH,
						      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0x1 }));
		break;
	case OP_OPENAT2: {
		/* RESOLVE_CACHED only where it is EAGAIN before any walk: how
		 * much the host's dcache holds is its history's, not the
		 * sequence's */
		static const long long res[] = { RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS,
						 RESOLVE_BENEATH, RESOLVE_IN_ROOT };
		c->fd[0] = gen_dirfd();
		c->n[0] = gen_oflags();
		c->n[1] = (c->n[0] & (O_CREAT | O_TMPFILE)) || chance(10) ? (chance(70) ? 0644 : PICK(modes)) : 0;
		c->n[2] = BITS(res, 30);
		if ((c->n[0] & (O_CREAT | O_TRUNC | (O_TMPFILE & ~O_DIRECTORY))) && chance(10))
			c->n[2] |= RESOLVE_CACHED;
		if (chance(2))
			c->n[2] |= 0x40; /* no such bit */
		c->n[3] = chance(94) ? (long long)sizeof(struct open_how) : PICK(((const long long[]){ 0, 23, 32 }));
		break;
	}
	case OP_XSET:
	case OP_XGET:
	case OP_XLIST:
		/* the l and f forms (0 path, 1 l, 2 f), a name, a size */
		c->n[0] = rnd(3);
		c->n[1] = rnd(8);
		c->n[2] = PICK(((const long long[]){ 0, 1, 5, 4096, 65536, 65537 }));
		/* a file capability's two valid sizes (CAPV's values) */
		if (c->n[1] == 5 && chance(60))
			c->n[2] = PICK(((const long long[]){ 20, 24 }));
		/* an ACL of ACLV's, mostly valid */
		c->n[4] = -1;
		if (c->n[1] >= 6 && chance(80)) {
			c->n[4] = rnd(ACLV_N);
			c->n[2] = (long long)acl_value_size((int)c->n[4]);
		}
		c->n[3] = PICK(((const long long[]){ 0, 0, XATTR_CREATE, XATTR_REPLACE }));
		if (c->op != OP_XSET)
			c->n[2] = PICK(((const long long[]){ 0, 3, 4096 }));
		break;
	case OP_PIPESZ:
		/* F_GETPIPE_SZ, or F_SETPIPE_SZ to a size below, at, above a
		 * page and past the limit */
		c->n[0] = chance(30) ? F_GETPIPE_SZ : F_SETPIPE_SZ;
		c->n[1] = PICK(((const long long[]){ 0, 1, 4096, 5000, 65536, 1048576, 1048577, -1 }));
		break;
	case OP_FSYNC:
		c->n[0] = chance(50);
		break;
	case OP_STATX:
		/* on every kind of fd (AT_EMPTY_PATH) and name, with every mask */
		c->fd[0] = gen_dirfd();
		c->n[0] = PICK(((const long long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_EMPTY_PATH,
						      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT,
						      AT_STATX_FORCE_SYNC, AT_STATX_DONT_SYNC, AT_STATX_SYNC_TYPE, 0x1 }));
		c->n[1] = PICK(((const long long[]){ STATX_BASIC_STATS, STATX_BASIC_STATS | STATX_BTIME, 0, STATX_TYPE,
						      STATX_BTIME, STATX_SIZE | STATX_BLOCKS, STATX_MODE | STATX_NLINK,
						      STATX_CTIME, STATX_DIOALIGN, STATX_MNT_ID, STATX_MNT_ID_UNIQUE_,
						      0xfff, 0x7fffffff, 0xffffffff }));
		break;
	}
}

static void gen_seq(uint64_t seed, int idx, int len)
{
	rng = seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)(idx + 1));
	next();
	gen_uid = 0;
	memset(gen_live, 0, sizeof gen_live);
	memset(gen_uids, 0, sizeof gen_uids);
	gen_live[0] = 1;
	gen_cur = 0;
	seq_len = len;
	for (int i = 0; i < len; i++)
		gen_call(&seq[i], i, i < 6);
}

/* ---- rendering operands as C ---- */
static char *rbuf(void)
{
	static char b[16][128];
	static int i;
	return b[i++ & 15];
}

static const char *fd_c(int code)
{
	char *b = rbuf();
	if (code < NSLOT)
		snprintf(b, 128, "s[%d]", code);
	else if (code == FD_CWD)
		return "AT_FDCWD";
	else if (code == FD_M1)
		return "-1";
	else if (code == FD_1023)
		return "1023";
	else if (code == FD_1024)
		return "1024";
	else
		snprintf(b, 128, "%d", code - FD_LIT0);
	return b;
}

struct name { long long bit; const char *name; };

/* bits as "A | B | 0x..", or zero as z */
static const char *flags_c(long long v, const struct name *t, size_t n, const char *z)
{
	char *b = rbuf();
	b[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].bit && (v & t[i].bit) == t[i].bit) {
			snprintf(b + strlen(b), 128 - strlen(b), "%s%s", b[0] ? " | " : "", t[i].name);
			v &= ~t[i].bit;
		}
	}
	if (v || !b[0]) {
		if (!v && !b[0])
			return z;
		snprintf(b + strlen(b), 128 - strlen(b), "%s%#llx", b[0] ? " | " : "", v);
	}
	return b;
}
#define FLAGS(v, t, z) flags_c(v, t, sizeof(t) / sizeof((t)[0]), z)

#define N(x) { x, #x }
static const struct name oflag_names[] = {
	N(O_TMPFILE), N(O_SYNC), N(O_WRONLY), N(O_RDWR), N(O_CREAT), N(O_EXCL), N(O_NOCTTY),
	N(O_TRUNC), N(O_APPEND), N(O_NONBLOCK), N(O_DSYNC), N(O_ASYNC), N(O_DIRECT),
	N(O_LARGEFILE), N(O_DIRECTORY), N(O_NOFOLLOW), N(O_NOATIME), N(O_CLOEXEC), N(O_PATH),
};
static const struct name at_names[] = {
	N(AT_SYMLINK_NOFOLLOW), N(AT_REMOVEDIR), N(AT_SYMLINK_FOLLOW), N(AT_EMPTY_PATH),
};
static const struct name access_names[] = { N(R_OK), N(W_OK), N(X_OK) };
static const struct name rename_names[] = { N(RENAME_NOREPLACE), N(RENAME_EXCHANGE), N(RENAME_WHITEOUT) };
static const struct name ms_names[] = {
	N(MS_RDONLY), N(MS_NOSUID), N(MS_NODEV), N(MS_NOEXEC), N(MS_REMOUNT), N(MS_BIND), N(MS_REC),
	N(MS_MOVE), N(MS_PRIVATE), N(MS_SLAVE), N(MS_UNBINDABLE),
};
static const struct name mnt_names[] = { N(MNT_FORCE), N(MNT_DETACH), N(MNT_EXPIRE), N(UMOUNT_NOFOLLOW) };
static const struct name in_names[] = {
	N(IN_ALL_EVENTS), N(IN_ACCESS), N(IN_MODIFY), N(IN_ATTRIB), N(IN_CLOSE_WRITE),
	N(IN_CLOSE_NOWRITE), N(IN_OPEN), N(IN_MOVED_FROM), N(IN_MOVED_TO), N(IN_CREATE),
	N(IN_DELETE), N(IN_DELETE_SELF), N(IN_MOVE_SELF), N(IN_ONLYDIR), N(IN_DONT_FOLLOW),
	N(IN_EXCL_UNLINK), N(IN_MASK_CREATE), N(IN_MASK_ADD), N(IN_ONESHOT),
};
static const struct name in_init_names[] = { N(IN_NONBLOCK), N(IN_CLOEXEC) };
static const struct name mode_names[] = {
	N(S_IFSOCK), N(S_IFREG), N(S_IFBLK), N(S_IFDIR), N(S_IFCHR),
};
static const struct name fcntl_names[] = {
	N(F_GETFL), N(F_GETFD), N(F_SETFD), N(F_DUPFD), N(F_DUPFD_CLOEXEC), N(F_ADD_SEALS), N(F_GET_SEALS),
	N(F_SETLK), N(F_GETLK), N(F_OFD_SETLK), N(F_OFD_GETLK),
};
static const struct name mfd_names[] = { N(MFD_CLOEXEC), N(MFD_ALLOW_SEALING), N(MFD_NOEXEC_SEAL), N(MFD_EXEC) };
static const struct name seal_names[] = { N(F_SEAL_SEAL), N(F_SEAL_SHRINK), N(F_SEAL_GROW), N(F_SEAL_WRITE),
					   N(F_SEAL_FUTURE_WRITE), N(F_SEAL_EXEC) };
static const struct name seek_names[] = { N(SEEK_CUR), N(SEEK_END), N(SEEK_DATA), N(SEEK_HOLE) };
static const struct name fsfl_names[] = { N(FS_IMMUTABLE_FL), N(FS_APPEND_FL), N(FS_NODUMP_FL), N(FS_NOATIME_FL),
					   N(FS_SYNC_FL) };
static const struct name rwf_names[] = { N(RWF_HIPRI), N(RWF_DSYNC), N(RWF_NOWAIT), N(RWF_APPEND), N(RWF_NOAPPEND) };
static const struct name falloc_names[] = { N(FALLOC_FL_KEEP_SIZE), N(FALLOC_FL_PUNCH_HOLE), N(FALLOC_FL_ZERO_RANGE),
					     N(FALLOC_FL_COLLAPSE_RANGE), N(FALLOC_FL_INSERT_RANGE) };

static const struct name resolve_names[] = {
	N(RESOLVE_NO_XDEV), N(RESOLVE_NO_MAGICLINKS), N(RESOLVE_NO_SYMLINKS), N(RESOLVE_BENEATH), N(RESOLVE_IN_ROOT),
	N(RESOLVE_CACHED),
};
static const struct name statx_at_names[] = {
	N(AT_SYMLINK_NOFOLLOW), N(AT_EMPTY_PATH), N(AT_NO_AUTOMOUNT), N(AT_STATX_FORCE_SYNC), N(AT_STATX_DONT_SYNC),
};
static const struct name statx_names[] = {
	N(STATX_BASIC_STATS), N(STATX_TYPE), N(STATX_MODE), N(STATX_NLINK), N(STATX_UID), N(STATX_GID),
	N(STATX_ATIME), N(STATX_MTIME), N(STATX_CTIME), N(STATX_INO), N(STATX_SIZE), N(STATX_BLOCKS),
	N(STATX_BTIME), N(STATX_MNT_ID), N(STATX_DIOALIGN), N(STATX__RESERVED),
};

static const char *num_c(long long v)
{
	char *b = rbuf();
	if (v == 1LL << 40)
		return "1LL << 40";
	if (v == 1LL << 62)
		return "1LL << 62";
	snprintf(b, 128, "%lld", v);
	return b;
}

static const char *mode_c(long long m)
{
	char *b = rbuf();
	const char *t = FLAGS(m & S_IFMT, mode_names, "");
	if (t[0])
		snprintf(b, 128, "%s | 0%llo", t, m & 07777);
	else
		snprintf(b, 128, "0%llo", m & 07777);
	return b;
}

static const char *cmd_c(long long v)
{
	for (size_t i = 0; i < sizeof fcntl_names / sizeof fcntl_names[0]; i++)
		if (fcntl_names[i].bit == v)
			return fcntl_names[i].name;
	return num_c(v);
}

static const char *seek_c(long long v)
{
	if (v == SEEK_SET)
		return "SEEK_SET";
	for (size_t i = 0; i < sizeof seek_names / sizeof seek_names[0]; i++)
		if (seek_names[i].bit == v)
			return seek_names[i].name;
	return num_c(v);
}

static const char *id_c(long long v)
{
	return v == -1 ? "-1" : num_c(v);
}

static const char *const tmpfs_data[] = { NULL, "size=1m", "mode=0700", "uid=1000,gid=1000", "bogus=1" };
static const char *const tmpfs_data_c[] = { "NULL", "\"size=1m\"", "\"mode=0700\"",
					    "\"uid=1000,gid=1000\"", "\"bogus=1\"" };

/* ---- running a sequence ---- */
static int s[NSLOT];
/* as large as the largest read or write the generator makes (sizes[]) */
static char buf[FUZZ_BUF];

static int fdv(int code)
{
	if (code < NSLOT)
		return s[code];
	switch (code) {
	case FD_CWD: return AT_FDCWD;
	case FD_M1: return -1;
	case FD_1023: return 1023;
	case FD_1024: return 1024;
	default: return code - FD_LIT0;
	}
}

/* The call as C source (out, one or more statements), and run (x). */
static void run_call(struct call *c, int x, char *out, size_t outlen)
{
	char e[1024];		/* the expression recorded */
	char nm[1100];		/* its check name: the call's index, then e */
	const char *lhs = "";	/* "s[k] = " where a result goes to a slot */
	char lb[32];
	const char *P0 = c->p[0], *P1 = c->p[1];
	const char *C0 = c->pc[0], *C1 = c->pc[1];
	int F0 = fdv(c->fd[0]), F1 = fdv(c->fd[1]);
	const char *f0 = fd_c(c->fd[0]), *f1 = fd_c(c->fd[1]);
	long long v = 0;
	int record = 1;	/* one C() of e, with lhs */
	out[0] = 0;
	e[0] = 0;

#define E(...) snprintf(e, sizeof e, __VA_ARGS__)
#define TO(k) (snprintf(lb, sizeof lb, "s[%d] = ", c->slot[k]), lhs = lb)
#define SAY(...) snprintf(out + strlen(out), outlen - strlen(out), __VA_ARGS__)
#define NAME() (snprintf(nm, sizeof nm, "@%d %s", c->id, e), nm)
	switch (c->op) {
	case OP_OPENAT:
		E("openat(%s, %s, %s, %s)", f0, C0, FLAGS(c->n[0], oflag_names, "O_RDONLY"), mode_c(c->n[1]));
		TO(0);
		if (x)
			v = openat(F0, P0, (int)c->n[0], (mode_t)c->n[1]);
		break;
	case OP_XSET:
	case OP_XGET:
	case OP_XLIST: {
		static const char *const xn[] = { "user.a", "user.b", "trusted.t", "security.s", "user.",
						  "security.capability", "system.posix_acl_access",
						  "system.posix_acl_default" };
		static const char *const pre[] = { "", "l", "f" };
		static char xb[65537];
		const char *n = xn[c->n[1]];
		int form = (int)c->n[0];
		const char *who = form == 2 ? f0 : C0;
		long long sz = c->n[2];
		if (c->op == OP_XSET) {
			/* a capability's valid value for its size, else the pattern */
			int capv = c->n[1] == 5 && (sz == 20 || sz == 24), aclv = c->n[1] >= 6 && c->n[4] >= 0;
			E("%ssetxattr(%s, \"%s\", %s, %lld, %s)", pre[form], who, n,
			  capv ? fmt("CAPV(%lld)", sz) : aclv ? fmt("ACLV(%lld)", c->n[4]) : "PAT", sz,
			  c->n[3] == XATTR_CREATE ? "XATTR_CREATE" : c->n[3] == XATTR_REPLACE ? "XATTR_REPLACE" : "0");
			const char *val = capv ? CAPV(sz) : aclv ? ACLV(c->n[4]) : PAT;
			if (x)
				v = form == 0 ? setxattr(P0, n, val, (size_t)sz, (int)c->n[3])
				  : form == 1 ? lsetxattr(P0, n, val, (size_t)sz, (int)c->n[3])
					      : fsetxattr(F0, n, val, (size_t)sz, (int)c->n[3]);
		} else if (c->op == OP_XGET) {
			E("%sgetxattr(%s, \"%s\", buf, %lld)", pre[form], who, n, sz);
			if (x)
				v = form == 0 ? getxattr(P0, n, xb, (size_t)sz)
				  : form == 1 ? lgetxattr(P0, n, xb, (size_t)sz) : fgetxattr(F0, n, xb, (size_t)sz);
		} else {
			/* the names, in the order given */
			E("%slistxattr(%s, buf, %lld)", pre[form], who, sz);
			record = 0;
			SAY("\t{\n\t\tlong long n = C(%s);\n\t\tif (n > 0 && %lld)\n"
			    "\t\t\tCS(\"names\", xattr_names(buf, n));\n\t}\n", e, sz);
			if (x) {
				v = form == 0 ? listxattr(P0, xb, (size_t)sz)
				  : form == 1 ? llistxattr(P0, xb, (size_t)sz) : flistxattr(F0, xb, (size_t)sz);
				chk(NAME(), v);
				/* a size of 0 asks for the size alone */
				if (v > 0 && sz > 0)
					chk_str(fmt("@%d names", c->id), xattr_names(xb, v));
			}
		}
		break;
	}
	case OP_PIPESZ:
		E("fcntl(%s, %s, %lld)", f0, c->n[0] == F_GETPIPE_SZ ? "F_GETPIPE_SZ" : "F_SETPIPE_SZ", c->n[1]);
		if (x)
			v = fcntl(F0, (int)c->n[0], (unsigned long)c->n[1]);
		break;
	case OP_FSYNC:
		E("%s(%s)", c->n[0] ? "fdatasync" : "fsync", f0);
		if (x)
			v = c->n[0] ? fdatasync(F0) : fsync(F0);
		break;
	case OP_OPENAT2: {
		/* a size past the struct: the tail is zero, as E says */
		char hs[32];
		if (c->n[3] == (long long)sizeof(struct open_how))
			snprintf(hs, sizeof hs, "sizeof(struct open_how)");
		else
			snprintf(hs, sizeof hs, "%lld", c->n[3]);
		E("openat2(%s, %s, (&(struct open_how_ext){ { .flags = %s, .mode = %s, .resolve = %s } }.how), %s)", f0, C0,
		  FLAGS(c->n[0], oflag_names, "O_RDONLY"), mode_c(c->n[1]), FLAGS(c->n[2], resolve_names, "0"), hs);
		TO(0);
		if (x) {
			struct open_how_ext h = { { .flags = (uint64_t)c->n[0], .mode = (uint64_t)c->n[1],
						    .resolve = (uint64_t)c->n[2] } };
			v = openat2(F0, P0, &h.how, (size_t)c->n[3]);
		}
		break;
	}
	case OP_CLOSE:
		E("close(%s)", f0);
		if (x)
			v = close(F0);
		break;
	case OP_DUP:
		E("dup(%s)", f0);
		TO(0);
		if (x)
			v = dup(F0);
		break;
	case OP_DUP2:
		E("dup2(%s, %s)", f0, f1);
		TO(0);
		if (x)
			v = dup2(F0, F1);
		break;
	case OP_DUP3:
		E("dup3(%s, %s, %s)", f0, f1, FLAGS(c->n[0], oflag_names, "0"));
		TO(0);
		if (x)
			v = dup3(F0, F1, (int)c->n[0]);
		break;
	case OP_FCNTL_DUPFD:
		E("fcntl(%s, %s, %s)", f0, cmd_c(c->n[0]), num_c(c->n[1]));
		TO(0);
		if (x)
			v = fcntl(F0, (int)c->n[0], (unsigned long)c->n[1]);
		break;
	case OP_FCNTL:
		E("fcntl(%s, %s, %s)", f0, cmd_c(c->n[0]), c->n[1] ? "FD_CLOEXEC" : "0");
		if (x)
			v = fcntl(F0, (int)c->n[0], (unsigned long)c->n[1]);
		break;
	case OP_SETFL:
		E("fcntl(%s, F_SETFL, %s)", f0, FLAGS(c->n[0], oflag_names, "0"));
		if (x)
			v = fcntl(F0, F_SETFL, (unsigned long)c->n[0]);
		break;
	case OP_MKDIRAT:
		E("mkdirat(%s, %s, %s)", f0, C0, mode_c(c->n[0]));
		if (x)
			v = mkdirat(F0, P0, (mode_t)c->n[0]);
		break;
	case OP_MKNODAT:
		E("mknodat(%s, %s, %s, 0)", f0, C0, mode_c(c->n[0]));
		if (x)
			v = mknodat(F0, P0, (mode_t)c->n[0], 0);
		break;
	case OP_UNLINKAT:
		E("unlinkat(%s, %s, %s)", f0, C0, FLAGS(c->n[0], at_names, "0"));
		if (x)
			v = unlinkat(F0, P0, (int)c->n[0]);
		break;
	case OP_RENAMEAT2:
		E("renameat2(%s, %s, %s, %s, %s)", f0, C0, f1, C1, FLAGS(c->n[0], rename_names, "0"));
		if (x)
			v = renameat2(F0, P0, F1, P1, (unsigned)c->n[0]);
		break;
	case OP_LINKAT:
		E("linkat(%s, %s, %s, %s, %s)", f0, C0, f1, C1, FLAGS(c->n[0], at_names, "0"));
		if (x)
			v = linkat(F0, P0, F1, P1, (int)c->n[0]);
		break;
	case OP_SYMLINKAT:
		E("symlinkat(%s, %s, %s)", C1, f0, C0);
		if (x)
			v = symlinkat(P1, F0, P0);
		break;
	case OP_READLINKAT:
		E("readlinkat(%s, %s, buf, %lld)", f0, C0, c->n[0]);
		if (x)
			v = readlinkat(F0, P0, buf, (size_t)c->n[0]);
		break;
	case OP_TRUNCATE:
		E("truncate(%s, %s)", C0, num_c(c->n[0]));
		if (x)
			v = truncate(P0, c->n[0]);
		break;
	case OP_FTRUNCATE:
		E("ftruncate(%s, %s)", f0, num_c(c->n[0]));
		if (x)
			v = ftruncate(F0, c->n[0]);
		break;
	case OP_WRITE:
		E("write(%s, PAT, %lld)", f0, c->n[0]);
		if (x)
			v = write(F0, PAT, (size_t)c->n[0]);
		break;
	case OP_PWRITE:
		E("pwrite(%s, PAT, %lld, %s)", f0, c->n[0], num_c(c->n[1]));
		if (x)
			v = pwrite(F0, PAT, (size_t)c->n[0], c->n[1]);
		break;
	case OP_READ:
		E("read(%s, buf, %lld)", f0, c->n[0]);
		if (x)
			v = read(F0, buf, (size_t)c->n[0]);
		break;
	case OP_PREAD:
		E("pread(%s, buf, %lld, %s)", f0, c->n[0], num_c(c->n[1]));
		if (x)
			v = pread(F0, buf, (size_t)c->n[0], c->n[1]);
		break;
	case OP_LSEEK:
		E("lseek(%s, %s, %s)", f0, num_c(c->n[0]), seek_c(c->n[1]));
		if (x)
			v = lseek(F0, c->n[0], (int)c->n[1]);
		break;
	case OP_GETDENTS:
		/* the byte count of a whole small directory: the order is not compared */
		E("getdents64(%s, buf, %lld)", f0, c->n[0]);
		if (x)
			v = getdents64(F0, buf, (size_t)c->n[0]);
		break;
	case OP_FCHMODAT:
		E("fchmodat(%s, %s, %s, %s)", f0, C0, mode_c(c->n[0]), FLAGS(c->n[1], at_names, "0"));
		if (x)
			v = fchmodat(F0, P0, (mode_t)c->n[0], (int)c->n[1]);
		break;
	case OP_FCHMOD:
		E("fchmod(%s, %s)", f0, mode_c(c->n[0]));
		if (x)
			v = fchmod(F0, (mode_t)c->n[0]);
		break;
	case OP_FCHOWNAT:
		E("fchownat(%s, %s, %s, %s, %s)", f0, C0, id_c(c->n[0]), id_c(c->n[1]),
		  FLAGS(c->n[2], at_names, "0"));
		if (x)
			v = fchownat(F0, P0, (uid_t)c->n[0], (gid_t)c->n[1], (int)c->n[2]);
		break;
	case OP_FCHOWN:
		E("fchown(%s, %s, %s)", f0, id_c(c->n[0]), id_c(c->n[1]));
		if (x)
			v = fchown(F0, (uid_t)c->n[0], (gid_t)c->n[1]);
		break;
	case OP_FACCESSAT:
		E("faccessat(%s, %s, %s, %s)", f0, C0, FLAGS(c->n[0], access_names, "F_OK"),
		  c->n[1] == AT_EACCESS ? "AT_EACCESS" : FLAGS(c->n[1], at_names, "0"));
		if (x)
			v = faccessat(F0, P0, (int)c->n[0], (int)c->n[1]);
		break;
	case OP_UTIMENSAT:
		E("utimensat(%s, %s, %s, %s)", f0, C0, c->n[0] ? "T_OLD" : "NULL",
		  FLAGS(c->n[1], at_names, "0"));
		if (x)
			v = utimensat(F0, P0, c->n[0] ? T_OLD : NULL, (int)c->n[1]);
		break;
	case OP_UMASK:
		E("umask(0%llo)", c->n[0]);
		if (x)
			v = umask((mode_t)c->n[0]);
		break;
	case OP_CHDIR:
		E("chdir(%s)", C0);
		if (x)
			v = chdir(P0);
		break;
	case OP_CHROOT:
		E("chroot(%s)", C0);
		if (x)
			v = chroot(P0);
		break;
	case OP_FCHDIR:
		E("fchdir(%s)", f0);
		if (x)
			v = fchdir(F0);
		break;
	case OP_GETCWD:
		E("getcwd(buf, %lld)", c->n[0]);
		record = 0;
		SAY("\tif (C(%s) > 0)\n\t\tCS(\"cwd\", buf);\n", e);
		if (x && chk(NAME(), getcwd(buf, (size_t)c->n[0])) > 0)
			chk_str(fmt("@%d cwd", c->id), buf);
		break;
	case OP_PCLONE:
		E("proc_clone(%lld)", c->n[0]);
		if (x)
			v = proc_clone((unsigned)c->n[0]);
		break;
	case OP_PUSE:
		E("proc_use(%lld)", c->n[0]);
		if (x)
			v = proc_use((int)c->n[0]);
		break;
	case OP_PEXIT:
		E("proc_destroy(%lld)", c->n[0]);
		if (x)
			v = proc_destroy((int)c->n[0]);
		break;
	case OP_SETCRED:
		E("setcred(%lld, %lld)", c->n[0], c->n[0]);
		if (x)
			v = setcred((uid_t)c->n[0], (gid_t)c->n[0]);
		break;
	case OP_MOUNT_TMPFS:
		E("mount(\"tmpfs\", %s, \"tmpfs\", %s, %s)", C0, FLAGS(c->n[0], ms_names, "0"),
		  tmpfs_data_c[c->n[1]]);
		if (x)
			v = mount("tmpfs", P0, "tmpfs", (unsigned long)c->n[0], tmpfs_data[c->n[1]]);
		break;
	case OP_MOUNT_BIND:
		E("mount(%s, %s, NULL, %s, NULL)", C1, C0, FLAGS(c->n[0], ms_names, "0"));
		if (x)
			v = mount(P1, P0, NULL, (unsigned long)c->n[0], NULL);
		break;
	case OP_PIVOT:
		E("pivot_root(%s, %s)", C0, C1);
		if (x)
			v = pivot_root(P0, P1);
		break;
	case OP_REMOUNT:
		E("mount(NULL, %s, NULL, %s, NULL)", C0, FLAGS(c->n[0], ms_names, "0"));
		if (x)
			v = mount(NULL, P0, NULL, (unsigned long)c->n[0], NULL);
		break;
	case OP_UMOUNT:
		/* Documented difference (docs/ARCHITECTURE.md): umount2 of the
		 * instance's root mount is EINVAL on uvfs, while the host would
		 * detach its sandbox's root; after a chroot the cwd or an fd may
		 * still reach it (at_root_mark).  The guard is recorded, so a
		 * disagreement about what is the root still shows. */
		E("umount2(%s, %s)", C0, FLAGS(c->n[0], mnt_names, "0"));
		record = 0;
		SAY("\tif (!C(at_root(%s)))\n\t\tC(%s);\n", C0, e);
		if (x && !chk(fmt("@%d at_root(%s)", c->id, C0), at_root(P0)))
			chk(NAME(), umount2(P0, (int)c->n[0]));
		break;
	case OP_PIPE2: {
		E("pipe2(p, %s)", FLAGS(c->n[0], oflag_names, "0"));
		record = 0;
		SAY("\t{\n\t\tint p[2] = { -1, -1 };\n\t\tC(%s);\n\t\ts[%d] = C(p[0]);\n"
		    "\t\ts[%d] = C(p[1]);\n\t}\n", e, c->slot[0], c->slot[1]);
		if (x) {
			int p[2] = { -1, -1 };
			chk(NAME(), pipe2(p, (int)c->n[0]));
			s[c->slot[0]] = (int)chk(fmt("@%d p[0]", c->id), p[0]);
			s[c->slot[1]] = (int)chk(fmt("@%d p[1]", c->id), p[1]);
		}
		break;
	}
	case OP_CHATTR: {
		E("ioctl(%s, FS_IOC_SETFLAGS, &fl)", f0);
		record = 0;
		SAY("\t{\n\t\tint fl = %s;\n\t\tC(%s);\n\t}\n", FLAGS(c->n[0], fsfl_names, "0"), e);
		if (x) {
			int fl = (int)c->n[0];
			chk(NAME(), ioctl(F0, FS_IOC_SETFLAGS, &fl));
		}
		break;
	}
	case OP_LSATTR: {
		E("ioctl(%s, FS_IOC_GETFLAGS, &fl)", f0);
		record = 0;
		SAY("\t{\n\t\tint fl = -1;\n\t\tC(%s);\n\t\tC(fl);\n\t}\n", e);
		if (x) {
			int fl = -1;
			chk(NAME(), ioctl(F0, FS_IOC_GETFLAGS, &fl));
			chk(fmt("@%d fl", c->id), fl);
		}
		break;
	}
	case OP_PWRITEV2:
		E("pwritev2(%s, (&(struct iovec){ (void *)PAT, %lld }), 1, %lld, %s)", f0, c->n[0], c->n[1],
		  FLAGS(c->n[2], rwf_names, "0"));
		if (x)
			v = pwritev2(F0, (&(struct iovec){ (void *)PAT, (size_t)c->n[0] }), 1, c->n[1], (int)c->n[2]);
		break;
	case OP_PREADV2:
		E("preadv2(%s, (&(struct iovec){ buf, %lld }), 1, %lld, %s)", f0, c->n[0], c->n[1],
		  FLAGS(c->n[2], rwf_names, "0"));
		if (x)
			v = preadv2(F0, (&(struct iovec){ buf, (size_t)c->n[0] }), 1, c->n[1], (int)c->n[2]);
		break;
	case OP_FSTATFS: {
		/* the answer and what does not depend on the tmpfs's size */
		E("fstatfs(%s, &sfs)", f0);
		record = 0;
		SAY("\t{\n\t\tstruct statfs sfs;\n\t\tmemset(&sfs, 0, sizeof sfs);\n\t\tC(%s);\n"
		    "\t\tC(sfs.f_type);\n\t\tC(sfs.f_bsize);\n\t\tC(sfs.f_frsize);\n\t\tC(sfs.f_namelen);\n"
		    "\t\tC(sfs.f_flags);\n\t}\n", e);
		if (x) {
			struct statfs sfs;
			memset(&sfs, 0, sizeof sfs);
			chk(NAME(), fstatfs(F0, &sfs));
			chk(fmt("@%d f_type", c->id), (long long)sfs.f_type);
			chk(fmt("@%d f_bsize", c->id), (long long)sfs.f_bsize);
			chk(fmt("@%d f_frsize", c->id), (long long)sfs.f_frsize);
			chk(fmt("@%d f_namelen", c->id), (long long)sfs.f_namelen);
			chk(fmt("@%d f_flags", c->id), (long long)sfs.f_flags);
		}
		break;
	}
	case OP_SYNCFS:
		E("syncfs(%s)", f0);
		if (x)
			v = syncfs(F0);
		break;
	case OP_FADVISE:
		E("posix_fadvise(%s, %lld, %lld, %lld)", f0, c->n[0], c->n[1], c->n[2]);
		if (x)
			v = posix_fadvise(F0, c->n[0], c->n[1], (int)c->n[2]);
		break;
	case OP_FLOCK:
		E("flock(%s, %lld)", f0, c->n[0]);
		if (x)
			v = flock(F0, (int)c->n[0]);
		break;
	case OP_SENDFILE:
		E("sendfile(%s, %s, NULL, %lld)", f1, f0, c->n[0]);
		if (x)
			v = sendfile(F1, F0, NULL, (size_t)c->n[0]);
		break;
	case OP_COPY_RANGE:
		E("copy_file_range(%s, NULL, %s, NULL, %lld, 0)", f0, f1, c->n[0]);
		if (x)
			v = copy_file_range(F0, NULL, F1, NULL, (size_t)c->n[0], 0);
		break;
	case OP_FGETXATTR: {
		static const char *const xn[] = { "user.a", "user.b", "trusted.t", "security.s" };
		E("fgetxattr(%s, \"%s\", buf, %lld)", f0, xn[c->n[0] % 4], c->n[1]);
		if (x) {
			char xb[128];
			v = fgetxattr(F0, xn[c->n[0] % 4], xb, (size_t)c->n[1]);
		}
		break;
	}
	case OP_REOPEN:
		E("fd_reopen(%s, %s)", f0, FLAGS(c->n[0], oflag_names, "O_RDONLY"));
		TO(0);
		if (x)
			v = fd_reopen(F0, (int)c->n[0]);
		break;
	case OP_SPLICE:
		E("splice(%s, NULL, %s, NULL, %lld, %lld)", f0, f1, c->n[0], c->n[1]);
		if (x)
			v = splice(F0, NULL, F1, NULL, (size_t)c->n[0], (unsigned)c->n[1]);
		break;
	case OP_TEE:
		E("tee(%s, %s, %lld, %lld)", f0, f1, c->n[0], c->n[1]);
		if (x)
			v = tee(F0, F1, (size_t)c->n[0], (unsigned)c->n[1]);
		break;
	case OP_EPOLL: {
		/* the fd into a fresh epoll instance, which goes at once */
		E("B->epoll_ctl(BX, ep, %lld, %s, &ev)", c->n[0], f0);
		record = 0;
		SAY("\t{\n\t\tint ep = C(B->epoll_create1(BX, 0));\n\t\tstruct epoll_event ev = { .events = %lld };\n"
		    "\t\tC(%s);\n\t\tcl(ep);\n\t}\n", c->n[1], e);
		if (x) {
			int ep = (int)chk(fmt("@%d epoll_create1(0)", c->id), B->epoll_create1(BX, 0));
			struct epoll_event ev = { .events = (uint32_t)c->n[1] };
			chk(NAME(), B->epoll_ctl(BX, ep, (int)c->n[0], F0, &ev));
			if (ep >= 0)
				close(ep);
		}
		break;
	}
	case OP_LOCK: {
		/* F_GETLK's answer without l_pid (a pid differs between the sides) */
		E("fcntl(%s, %s, &lk)", f0, cmd_c(c->n[0]));
		record = 0;
		SAY("\t{\n\t\tstruct flock lk = { .l_type = %lld, .l_whence = %lld, .l_start = %lld, .l_len = 10 };\n"
		    "\t\tC(fcntl(%s, %s, (unsigned long)&lk));\n\t\tC(lk.l_type);\n\t\tC(lk.l_start);\n\t\tC(lk.l_len);\n\t}\n",
		    c->n[1], c->n[2], c->n[3], f0, cmd_c(c->n[0]));
		if (x) {
			struct flock lk = { .l_type = (short)c->n[1], .l_whence = (short)c->n[2], .l_start = c->n[3], .l_len = 10 };
			chk(NAME(), fcntl(F0, (int)c->n[0], (unsigned long)&lk));
			chk(fmt("@%d l_type", c->id), lk.l_type);
			chk(fmt("@%d l_start", c->id), lk.l_start);
			chk(fmt("@%d l_len", c->id), lk.l_len);
		}
		break;
	}
	case OP_HANDLE: {
		E("name_to_handle_at(%s, %s, &fh.h, &mid, %s)", f0, C0, FLAGS(c->n[0], at_names, "0"));
		record = 0;
		SAY("\t{\n\t\tstruct { struct file_handle h; unsigned char b[128]; } fh = { .h.handle_bytes = 128 };\n"
		    "\t\tint mid = 0;\n\t\tif (C(%s) == 0)\n\t\t\tC(open_by_handle_at(%s, &fh.h, %s));\n\t}\n",
		    e, f1, FLAGS(c->n[1], oflag_names, "O_RDONLY"));
		if (x) {
			struct { struct file_handle h; unsigned char b[128]; } fh = { .h.handle_bytes = 128 };
			int mid = 0;
			if (chk(NAME(), name_to_handle_at(F0, P0, &fh.h, &mid, (int)c->n[0])) == 0) {
				/* an object with no name (a memfd, an O_TMPFILE or
				 * unlinked file, a removed directory) is the
				 * documented difference: uvfs finds handles in the
				 * dentry tree */
				struct stat st;
				int sf = (int)(c->n[0] & AT_EMPTY_PATH) |
					 ((c->n[0] & AT_SYMLINK_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW);
				int nameless = fstatat(F0, P0, &st, sf) == 0 && st.st_nlink == 0;
				const char *on = fmt("@%d open_by_handle_at(%s, ...)", c->id, f1);
				long long ov = open_by_handle_at(F1, &fh.h, (int)c->n[1]);
				int r = (int)(nameless ? chk_doc(on, ov, FUZZ_DOC_NAMELESS_HANDLE) : chk(on, ov));
				if (r >= 0)
					close(r);
			}
		}
		break;
	}
	case OP_MEMFD:
		E("memfd_create(\"m\", %s)", FLAGS(c->n[0], mfd_names, "0"));
		TO(0);
		if (x)
			v = memfd_create("m", (unsigned)c->n[0]);
		break;
	case OP_SEALS:
		E("fcntl(%s, %s, %s)", f0, cmd_c(c->n[0]), FLAGS(c->n[1], seal_names, "0"));
		if (x)
			v = fcntl(F0, (int)c->n[0], (unsigned long)c->n[1]);
		break;
	case OP_FALLOCATE:
		E("fallocate(%s, %s, %lld, %lld)", f0, FLAGS(c->n[0], falloc_names, "0"), c->n[1], c->n[2]);
		if (x)
			v = fallocate(F0, (int)c->n[0], c->n[1], c->n[2]);
		break;
	case OP_SETXATTR: {
		static const char *const xn[] = { "user.a", "user.b", "trusted.t", "security.s" };
		const char *n = xn[c->n[0] % 4];
		if (c->n[2])
			E("removexattr(%s, \"%s\")", C0, n);
		else
			E("setxattr(%s, \"%s\", \"v\", 1, %s)", C0, n, c->n[1] == XATTR_CREATE ? "XATTR_CREATE" :
								      c->n[1] == XATTR_REPLACE ? "XATTR_REPLACE" : "0");
		if (x)
			v = c->n[2] ? removexattr(P0, n) : setxattr(P0, n, "v", 1, (int)c->n[1]);
		break;
	}
	case OP_FIONREAD: {
		E("ioctl(%s, FIONREAD, &n)", f0);
		record = 0;
		SAY("\t{\n\t\tint n = -1;\n\t\tC(%s);\n\t\tC(n);\n\t}\n", e);
		if (x) {
			int n = -1;
			chk(NAME(), ioctl(F0, FIONREAD, &n));
			chk(fmt("@%d n", c->id), n);
		}
		break;
	}
	case OP_IN_INIT:
		E("inotify_init1(%s)", FLAGS(c->n[0], in_init_names, "0"));
		TO(0);
		if (x)
			v = inotify_init1((int)c->n[0]);
		break;
	case OP_IN_ADD:
		E("inotify_add_watch(%s, %s, %s)", f0, C0, FLAGS(c->n[0], in_names, "0"));
		if (x)
			v = inotify_add_watch(F0, P0, (uint32_t)c->n[0]);
		break;
	case OP_IN_RM:
		E("inotify_rm_watch(%s, %lld)", f0, c->n[0]);
		if (x)
			v = inotify_rm_watch(F0, (int)c->n[0]);
		break;
	case OP_IN_READ:
		record = 0;
		SAY("\tev_read_check(%s, %lld, 16, \"%s\");\n", f0, c->n[0], f0);
		if (x)
			ev_read_check(F0, (size_t)c->n[0], 16, fmt("@%d %s", c->id, f0));
		break;
	case OP_STAT:
	case OP_STATF:
		record = 0;
		SAY("\t%s(%s);\n", c->op == OP_STAT ? "STAT" : "STATF", C0);
		if (x)
			chk_str(fmt("@%d %s %s", c->id, c->op == OP_STAT ? "STAT" : "STATF", C0),
				stat_str(P0, c->op == OP_STAT ? AT_SYMLINK_NOFOLLOW : 0));
		break;
	case OP_STATAT:
		record = 0;
		SAY("\tSTATAT(%s, %s, %s);\n", f0, C0, FLAGS(c->n[0], at_names, "0"));
		if (x)
			chk_str(fmt("@%d STATAT(%s, %s, %s)", c->id, f0, C0, FLAGS(c->n[0], at_names, "0")),
				fstatat_str(F0, P0, (int)c->n[0]));
		break;
	case OP_STATX: {
		/* what does not depend on the instance: no times, numbers,
		 * devices or mount ids; a directory's size is the filesystem's */
		E("statx(%s, %s, %s, %s, &stx)", f0, C0, FLAGS(c->n[0], statx_at_names, "0"),
		  FLAGS(c->n[1], statx_names, "0"));
		record = 0;
		SAY("\t{\n\t\tstruct statx stx;\n\t\tmemset(&stx, 0, sizeof stx);\n\t\tif (C(%s) == 0)\n"
		    "\t\t\tSTATX_CHECK(stx);\n\t}\n", e);
		if (x) {
			struct statx stx;
			memset(&stx, 0, sizeof stx);
			v = statx(F0, P0, (int)c->n[0], (unsigned)c->n[1], &stx);
			chk(NAME(), v);
			if (v == 0)
				chk_str(fmt("@%d statx stx", c->id), statx_str(&stx));
		}
		break;
	}
	case OP_FSTAT:
		record = 0;
		SAY("\tFSTAT(%s);\n", f0);
		if (x)
			chk_str(fmt("@%d FSTAT(%s)", c->id, f0), fstat_str(F0));
		break;
	case OP_LS:
		record = 0;
		SAY("\tLS(%s);\n", C0);
		if (x)
			chk_str(fmt("@%d LS(%s)", c->id, C0), ls_str(P0));
		break;
	case OP_CAT:
		record = 0;
		SAY("\tCAT(%s);\n", C0);
		if (x)
			chk_str(fmt("@%d CAT(%s)", c->id, C0), cat_str(P0));
		break;
	case OP_FCAT:
		record = 0;
		SAY("\tFCAT(%s);\n", f0);
		if (x)
			chk_str(fmt("@%d FCAT(%s)", c->id, f0), fcat_str(F0));
		break;
	case OP_READLINK:
		record = 0;
		SAY("\tREADLINK(%s);\n", C0);
		if (x)
			chk_str(fmt("@%d READLINK(%s)", c->id, C0), rl_str(P0));
		break;
	}
	if (!record)
		return;
	if (c->doc == FUZZ_DOC_SEALS_ON) {
		SAY("\t%sDOC(%s, FUZZ_DOC_SEALS);\n", lhs, e);
		if (x)
			v = chk_doc(NAME(), v, FUZZ_DOC_SEALS);
	} else if (c->doc) {
		SAY("\t%sDOC_STATE(%s, FUZZ_DOC_EMPTY_PATH);\n", lhs, e);
		if (x)
			v = chk_doc_state(NAME(), v, FUZZ_DOC_EMPTY_PATH);
	} else {
		SAY("\t%sC(%s);\n", lhs, e);
		if (x)
			v = chk(NAME(), v);
	}
	if (x && lhs[0])
		s[c->slot[0]] = (int)v;
}

/* The scenario: the current sequence, run. */
static void run_seq(void)
{
	char out[4096];
	for (int i = 0; i < NSLOT; i++)
		s[i] = -1;
	at_root_mark();
	for (int i = 0; i < seq_len; i++)
		run_call(&seq[i], 1, out, sizeof out);
}

static const struct scenario fuzz_scenario = { "fuzz", run_seq, 0 };

static void print_seq(const char *name, const char *why)
{
	static char body[MAXLEN * 512];
	char out[4096];
	size_t n = 0;
	body[0] = 0;
	for (int i = 0; i < seq_len; i++) {
		run_call(&seq[i], 0, out, sizeof out);
		n += (size_t)snprintf(body + n, sizeof body - n, "%s", out);
		if (n >= sizeof body)
			n = sizeof body - 1;
	}
	printf("/* %s */\nstatic void %s(void)\n{\n", why, name);
	/* only what the calls use: a scenario file builds without warnings */
	if (strstr(body, "s["))
		printf("\tint s[%d] = { -1, -1, -1, -1, -1, -1, -1, -1 };\n", NSLOT);
	if (strstr(body, "buf"))
		printf("\tstatic char buf[FUZZ_BUF];\n");
	if (strstr(body, "at_root("))
		printf("\tat_root_mark();\n");
	printf("\n%s}\n", body);
}

/* ---- minimising ---- */
static int still_fails(const char *want)
{
	struct conf_outcome o;
	conf_compare(&fuzz_scenario, 1, &o);
	return o.fail && !strcmp(o.first_fail, want);
}

/* Drops chunks of calls, halving the chunk size, while the first mismatch
 * stays the same check (the same call: checks are named by call index). */
static void minimise(const char *want)
{
	static struct call keep[MAXLEN];
	for (int chunk = seq_len / 2; chunk >= 1; chunk /= 2) {
		for (int start = 0; start < seq_len;) {
			int n = chunk < seq_len - start ? chunk : seq_len - start;
			int len = seq_len;
			memcpy(keep, seq, sizeof seq[0] * len);
			memmove(&seq[start], &seq[start + n], sizeof seq[0] * (len - start - n));
			seq_len = len - n;
			if (seq_len > 0 && still_fails(want))
				continue;	/* dropped; try the same place again */
			memcpy(seq, keep, sizeof seq[0] * len);
			seq_len = len;
			start += n;
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz [-s SEED] [-n CALLS] [-l LEN] [-i SEQ] [-M MAX] [-p] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0;
	int have_seed = 0, only = -1, print = 0, verbose = 0, max_min = 10, opt;
	long calls = 20000, len = 100;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "s:n:l:i:M:pvh")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = 1; break;
		case 'n': calls = strtol(optarg, NULL, 0); break;
		case 'l': len = strtol(optarg, NULL, 0); break;
		case 'i': only = (int)strtol(optarg, NULL, 0); break;
		case 'M': max_min = (int)strtol(optarg, NULL, 0); break;
		case 'p': print = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (len < 1 || len > MAXLEN || calls < 1)
		usage();
	if (!have_seed) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		rng = (uint64_t)t.tv_sec * 1000000007ULL ^ (uint64_t)t.tv_nsec ^ (uint64_t)getpid() << 32;
		seed = next();
	}
	printf("fuzz: seed 0x%016" PRIx64 " (replay: fuzz -s 0x%016" PRIx64 " -l %ld -n %ld)\n", seed,
	       seed, len, calls);
	if (geteuid() != 0) {
		printf("SKIP fuzz: the host backend needs root (chroot, mount)\n");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	(void)PAT;	/* filled before any child forks */

	long done = 0;
	int pass = 0, fail = 0, skip = 0, nseq = 0, bad = 0;
	time_t t0 = time(NULL);
	for (int k = only >= 0 ? only : 0; done < calls; k++) {
		gen_seq(seed, k, (int)len);
		if (print) {
			print_seq(fmt("fz_%016" PRIx64 "_%d", seed, k), fmt("fuzz -s 0x%016" PRIx64 " -i %d", seed, k));
			if (only >= 0)
				break;
		}
		struct conf_outcome o;
		conf_compare(&fuzz_scenario, !verbose, &o);
		pass += o.pass;
		skip += o.skip;
		done += seq_len;
		nseq++;
		if (o.fail) {
			fail += o.fail;
			bad++;
			char want[sizeof o.first_fail];
			snprintf(want, sizeof want, "%s", o.first_fail);
			printf("FAIL sequence %d (-s 0x%016" PRIx64 " -i %d -l %ld): first difference at %s\n",
			       k, seed, k, len, want);
			if (bad <= max_min) {
				int orig = seq_len;
				minimise(want);
				conf_compare(&fuzz_scenario, 0, &o);
				print_seq(fmt("fz_%016" PRIx64 "_%d", seed, k),
					  fmt("fuzz -s 0x%016" PRIx64 " -i %d -l %ld: %d of %d calls", seed, k,
					      len, seq_len, orig));
			}
		}
		if (only >= 0)
			break;
	}
	printf("fuzz: %ld calls in %d sequences, %d with differences, %ld s\n", done, nseq, bad,
	       (long)(time(NULL) - t0));
	if (skip)
		printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
	else
		printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
