/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rw2.c - preadv, pwritev, preadv2 and pwritev2 with their RWF_* flags,
 * posix_fadvise, readahead, syncfs and sync_file_range: what LTP's
 * syscalls tests of those calls assert (preadv0*, preadv20*, pwritev0*,
 * pwritev20*, posix_fadvise0*, readahead01, syncfs01, sync_file_range01),
 * errors in the host's order when several apply, and positions, sizes and
 * contents after each call.
 *
 * Only calls that cannot wait: pipes are non-blocking or given data first.
 */
#include "conf.h"
#include "events.h"
#include <sys/inotify.h>
#include <sys/ioctl.h>

#define preadv(fd, v, n, o) B->preadv(BX, fd, v, n, o)
#define pwritev(fd, v, n, o) B->pwritev(BX, fd, v, n, o)
#define preadv2(fd, v, n, o, f) B->preadv2(BX, fd, v, n, o, f)
#define pwritev2(fd, v, n, o, f) B->pwritev2(BX, fd, v, n, o, f)
#define fadvise(fd, o, l, a) B->fadvise(BX, fd, o, l, a)
#define readahead(fd, o, n) B->readahead(BX, fd, o, n)
#define syncfs(fd) B->syncfs(BX, fd)
#define sync_file_range(fd, o, n, f) B->sync_file_range(BX, fd, o, n, f)
#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define IINIT(f) B->inotify_init1(BX, f)
#define IADD(fd, p, m) B->inotify_add_watch(BX, fd, p, m)

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x1
#define RWF_DSYNC 0x2
#define RWF_SYNC 0x4
#define RWF_NOWAIT 0x8
#define RWF_APPEND 0x10
#endif
#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x20
#endif
#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x40
#endif
#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x80
#endif
#ifndef SYNC_FILE_RANGE_WAIT_BEFORE
#define SYNC_FILE_RANGE_WAIT_BEFORE 1
#define SYNC_FILE_RANGE_WRITE 2
#define SYNC_FILE_RANGE_WAIT_AFTER 4
#endif

static char rbuf[4][64];
static struct iovec riov[4];

/* Reads into four 8-byte segments, then records what came (escaped). */
static void rd_setup(void)
{
	memset(rbuf, 0, sizeof rbuf);
	for (int i = 0; i < 4; i++) {
		riov[i].iov_base = rbuf[i];
		riov[i].iov_len = 8;
	}
}

static void rd_record(void)
{
	CS("segments", fmt("%s|%s|%s|%s", rbuf[0], rbuf[1], rbuf[2], rbuf[3]));
}

/* preadv/pwritev: data at the offset, the position unchanged, the LTP
 * preadv01/pwritev01 facts, then the errors of preadv02/pwritev02 */
static void preadv_pwritev_basic(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "0123456789abcdefghijklmnopqrstuvwxyz"));
	C(lseek(fd, 3, SEEK_SET));
	rd_setup();
	C(preadv(fd, riov, 4, 5));
	rd_record();
	C(lseek(fd, 0, SEEK_CUR));
	rd_setup();
	C(preadv(fd, riov, 4, 30));
	rd_record();
	C(preadv(fd, riov, 4, 36));
	C(preadv(fd, riov, 4, 1000));
	C(preadv(fd, riov, 0, 0));
	struct iovec w[3] = { { "AB", 2 }, { "", 0 }, { "CDE", 3 } };
	C(pwritev(fd, w, 3, 40));
	C(lseek(fd, 0, SEEK_CUR));
	SIZEOF("/f");
	CAT("/f");
	C(pwritev(fd, w, 3, 2));
	CAT("/f");
	C(pwritev(fd, w, 0, 2));
	/* errors */
	C(preadv(fd, riov, -1, 0));
	C(preadv(fd, riov, 1025, 0));
	C(preadv(fd, riov, 1, -1));
	C(preadv(fd, riov, 1, -2));
	C(pwritev(fd, w, 1, -1));
	C(pwritev(fd, w, -1, 0));
	C(preadv(fd, NULL, 1, 0));
	C(preadv(99, riov, 1, 0));
	C(preadv(-1, riov, 1, -1));
	struct iovec bad[1] = { { rbuf[0], (size_t)-1 } };
	C(preadv(fd, bad, 1, 0));
	C(pwritev(fd, bad, 1, 0));
	/* Linux caps a transfer at MAX_RW_COUNT; a segment past the user
	 * address space is EFAULT when there are several */
	struct iovec huge[2] = { { rbuf[0], (size_t)LLONG_MAX }, { rbuf[1], (size_t)LLONG_MAX } };
	C(preadv(fd, huge, 2, 0));
	C(preadv(fd, huge, 1, 0));
	C(preadv(fd, huge, 1, 30));
	struct iovec neg2[2] = { { rbuf[0], (size_t)LLONG_MAX }, { rbuf[1], (size_t)-5 } };
	C(preadv(fd, neg2, 2, 0));
	/* the end of the range past the largest offset */
	C(preadv(fd, riov, 1, LLONG_MAX));
	C(preadv(fd, riov, 1, LLONG_MAX - 4));
	C(pwritev(fd, w, 3, LLONG_MAX - 2));
	cl(fd);
	int ro = F(OPEN("/f", O_RDONLY));
	C(pwritev(ro, w, 1, 0));
	C(pwritev(ro, w, 0, 0));
	cl(ro);
	int wo = F(OPEN("/f", O_WRONLY));
	rd_setup();
	C(preadv(wo, riov, 1, 0));
	C(preadv(wo, riov, 0, 0));
	cl(wo);
	int pa = F(OPEN("/f", O_PATH));
	C(preadv(pa, riov, 1, 0));
	C(pwritev(pa, w, 1, 0));
	cl(pa);
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(preadv(d, riov, 1, 0));
	C(preadv(d, riov, 0, 0));
	C(preadv(d, riov, 1, -1));
	cl(d);
	int p[2];
	C(pipe2(p, O_NONBLOCK));
	C(wr(p[1], "pipe"));
	C(preadv(p[0], riov, 1, 0));
	C(pwritev(p[1], w, 1, 0));
	C(preadv(p[0], riov, 1, -1));
	C(preadv(p[1], riov, 1, 0));
	cl(p[0]);
	cl(p[1]);
}

/* O_APPEND: pwritev writes at the end whatever the offset (Linux's
 * documented deviation from POSIX); RWF_APPEND and RWF_NOAPPEND per call */
static void pwritev2_append_flags(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "0123456789"));
	struct iovec w[2] = { { "ab", 2 }, { "c", 1 } };
	C(pwritev2(fd, w, 2, 2, RWF_APPEND));
	CAT("/f");
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, 1, SEEK_SET));
	C(pwritev2(fd, w, 2, -1, RWF_APPEND));
	C(lseek(fd, 0, SEEK_CUR));
	CAT("/f");
	C(pwritev2(fd, w, 2, -1, 0));
	C(lseek(fd, 0, SEEK_CUR));
	CAT("/f");
	/* RWF_NOAPPEND on a file not opened O_APPEND changes nothing */
	C_SINCE(6, 9, pwritev2(fd, w, 1, 0, RWF_NOAPPEND));
	CAT("/f");
	C(pwritev2(fd, w, 1, 0, RWF_APPEND | RWF_NOAPPEND));
	cl(fd);
	int ap = F(OPEN("/f", O_WRONLY | O_APPEND));
	C(pwritev(ap, w, 1, 0));
	CAT("/f");
	C(pwritev2(ap, w, 1, 0, 0));
	CAT("/f");
	C_SINCE(6, 9, pwritev2(ap, w, 1, 0, RWF_NOAPPEND));
	CAT("/f");
	C_SINCE(6, 9, pwritev2(ap, w, 2, 4, RWF_NOAPPEND | RWF_DSYNC));
	CAT("/f");
	C(lseek(ap, 0, SEEK_CUR));
	C_SINCE(6, 9, pwritev2(ap, w, 1, -1, RWF_NOAPPEND));
	C(lseek(ap, 0, SEEK_CUR));
	CAT("/f");
	/* the O_APPEND of the open file stays */
	C(fcntl(ap, F_GETFL, 0) & O_APPEND);
	C(wr(ap, "Z"));
	CAT("/f");
	cl(ap);
}

/* preadv2/pwritev2 offset -1: the file position, which moves; other
 * offsets leave it; the flags' errors in the host's order */
static void preadv2_flags(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "0123456789abcdefghijklmnopqrstuvwxyz"));
	C(lseek(fd, 4, SEEK_SET));
	rd_setup();
	C(preadv2(fd, riov, 2, -1, 0));
	rd_record();
	C(lseek(fd, 0, SEEK_CUR));
	rd_setup();
	C(preadv2(fd, riov, 2, 1, 0));
	rd_record();
	C(lseek(fd, 0, SEEK_CUR));
	C(preadv2(fd, riov, 2, -2, 0));
	C(preadv2(fd, riov, 2, LLONG_MIN, 0));
	static const int flags[] = { RWF_HIPRI, RWF_DSYNC, RWF_SYNC, RWF_NOWAIT, RWF_APPEND };
	for (unsigned i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		rd_setup();
		C(preadv2(fd, riov, 1, 0, flags[i]));
		rd_record();
	}
	C_SINCE(6, 9, preadv2(fd, riov, 1, 0, RWF_NOAPPEND));
	C_SINCE(6, 11, preadv2(fd, riov, 1, 0, RWF_ATOMIC));
	C_SINCE(6, 14, preadv2(fd, riov, 1, 0, RWF_DONTCACHE));
	C_SINCE(6, 11, pwritev2(fd, riov, 1, 0, RWF_ATOMIC));
	C_SINCE(6, 14, pwritev2(fd, riov, 1, 0, RWF_DONTCACHE));
	C(preadv2(fd, riov, 1, 0, 0x200));
	C(preadv2(fd, riov, 1, 0, 0x20000));
	C(preadv2(fd, riov, 1, 0, -1));
	C(pwritev2(fd, riov, 1, 0, 0x200));
	/* which check comes first */
	C(preadv2(fd, riov, 0, 0, 0x200));
	C(pwritev2(fd, riov, 0, 0, 0x200));
	C(preadv2(fd, riov, -1, 0, 0x200));
	C(preadv2(fd, riov, 1, -2, 0x200));
	C(preadv2(99, riov, 1, 0, 0x200));
	C(preadv2(fd, riov, 1, LLONG_MAX, 0x200));
	C(pwritev2(fd, riov, 1, 0, RWF_APPEND | RWF_NOAPPEND | 0x200));
	C(pwritev2(fd, riov, 0, 0, RWF_APPEND | RWF_NOAPPEND));
	struct iovec nul[1] = { { NULL, 4 } };
	C(preadv2(fd, nul, 1, 0, 0));
	C(pwritev2(fd, nul, 1, 0, 0));
	C(preadv2(fd, nul, 1, 0, 0x200));
	int wo = F(OPEN("/f", O_WRONLY));
	C(preadv2(wo, riov, 1, 0, 0x200));
	C(preadv2(wo, riov, 1, -1, 0));
	cl(wo);
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(preadv2(d, riov, 1, -1, 0));
	C(preadv2(d, riov, 1, 0, RWF_NOWAIT));
	C(preadv2(d, riov, 1, 0, RWF_HIPRI));
	C(preadv2(d, riov, 1, 0, 0x200));
	C(preadv2(d, riov, 0, 0, 0));
	C(readv(d, riov, 0));
	C(readv(d, riov, 1));
	C(readv(d, riov, -1));
	cl(d);
	cl(fd);
	SIZEOF("/f");
	CAT("/f");
}

/* pipes: preadv2/pwritev2 at -1 work, other offsets are ESPIPE;
 * RWF_NOWAIT on a blocking pipe is EAGAIN where it would wait */
static void rw2_pipes(void)
{
	int p[2];
	C(pipe2(p, 0));
	struct iovec w[2] = { { "he", 2 }, { "llo", 3 } };
	C(pwritev2(p[1], w, 2, -1, 0));
	C(pwritev2(p[1], w, 2, 0, 0));
	C(pwritev(p[1], w, 2, 0));
	rd_setup();
	C(preadv2(p[0], riov, 1, -1, 0));
	rd_record();
	C(preadv2(p[0], riov, 1, 0, 0));
	C(preadv2(p[0], riov, 1, -1, RWF_NOWAIT));
	rd_setup();
	C(preadv2(p[0], riov, 1, -1, RWF_NOWAIT));
	rd_record();
	C(preadv2(p[0], riov, 1, -1, 0x200));
	C(pwritev2(p[1], w, 2, -1, RWF_APPEND | RWF_DSYNC | RWF_HIPRI));
	C(pwritev2(p[1], w, 2, -1, RWF_NOWAIT));
	C(preadv2(p[0], riov, 1, -1, RWF_APPEND));
	C_SINCE(6, 11, pwritev2(p[1], w, 2, -1, RWF_ATOMIC));
	rd_setup();
	C(preadv2(p[0], riov, 4, -1, RWF_NOWAIT));
	rd_record();
	C(preadv2(p[0], riov, 4, -1, RWF_NOWAIT));
	/* fill it with RWF_NOWAIT: EAGAIN when full, never a wait */
	static char blk[4096];
	memset(blk, 'x', sizeof blk);
	struct iovec bw[1] = { { blk, sizeof blk } };
	long total = 0;
	ssize_t n;
	while ((n = pwritev2(p[1], bw, 1, -1, RWF_NOWAIT)) > 0)
		total += n;
	C(total);
	C(n);
	C(fcntl(p[1], F_GETFL, 0) & O_NONBLOCK);
	cl(p[0]);
	/* an empty vector returns before the pipe's EPIPE */
	C(writev(p[1], w, 0));
	C(pwritev2(p[1], w, 0, -1, 0));
	C(writev(p[1], w, 1));
	cl(p[1]);
}

/* inotify: preadv2 on it (a file with ->read only), and the events of the
 * vectored positioned calls */
static void rw2_events(void)
{
	int in = F(IINIT(IN_NONBLOCK));
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(IADD(in, "/f", IN_ALL_EVENTS));
	struct iovec w[1] = { { "abc", 3 } };
	C(pwritev(fd, w, 1, 0));
	C(pwritev2(fd, w, 0, 0, 0));
	rd_setup();
	C(preadv(fd, riov, 1, 0));
	C(preadv(fd, riov, 0, 0));
	C(preadv2(fd, riov, 1, 100, 0));
	C(pwritev2(fd, w, 1, 1, RWF_APPEND));
	EV(in);
	char evbuf[256];
	struct iovec ev[1] = { { evbuf, sizeof evbuf } };
	C(preadv2(in, ev, 1, -1, 0x200));
	C(preadv2(in, ev, 1, -1, RWF_NOWAIT));
	C(preadv2(in, ev, 1, -1, RWF_HIPRI));
	C(preadv2(in, ev, 1, 0, 0));
	cl(fd);
	cl(in);
	AGE("/f");
	fd = F(OPEN("/f", O_RDWR));
	C(pwritev2(fd, w, 1, 0, RWF_SYNC));
	TS("/f");
	cl(fd);
}

/* posix_fadvise (posix_fadvise01-04): every advice on a file, the invalid
 * ones, EBADF, ESPIPE on pipes and FIFOs, negative lengths and offsets */
static void fadvise_calls(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "data"));
	for (int a = -2; a <= 8; a++)
		C(fadvise(fd, 0, 0, a));
	C(fadvise(fd, 0, 100, POSIX_FADV_DONTNEED));
	C(fadvise(fd, -1, 100, POSIX_FADV_NORMAL));
	C(fadvise(fd, 0, -1, POSIX_FADV_NORMAL));
	C(fadvise(fd, 0, -1, 99));
	C(fadvise(fd, LLONG_MAX, LLONG_MAX, POSIX_FADV_WILLNEED));
	C(fadvise(99, 0, 0, POSIX_FADV_NORMAL));
	C(fadvise(99, 0, -1, 99));
	cl(fd);
	int ro = F(OPEN("/f", O_RDONLY));
	C(fadvise(ro, 0, 0, POSIX_FADV_SEQUENTIAL));
	cl(ro);
	int wo = F(OPEN("/f", O_WRONLY));
	C(fadvise(wo, 0, 0, POSIX_FADV_RANDOM));
	cl(wo);
	int pa = F(OPEN("/f", O_PATH));
	C(fadvise(pa, 0, 0, POSIX_FADV_NORMAL));
	cl(pa);
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY));
	C(fadvise(d, 0, 0, POSIX_FADV_NORMAL));
	C(fadvise(d, 0, 0, 99));
	cl(d);
	int p[2];
	C(pipe2(p, O_NONBLOCK));
	C(fadvise(p[0], 0, 0, POSIX_FADV_NORMAL));
	C(fadvise(p[1], 0, -1, 99));
	cl(p[0]);
	cl(p[1]);
	C(MKNOD("/fifo", S_IFIFO | 0644, 0));
	int ff = F(OPEN("/fifo", O_RDONLY | O_NONBLOCK));
	C(fadvise(ff, 0, 0, POSIX_FADV_NORMAL));
	cl(ff);
	int in = F(IINIT(0));
	C(fadvise(in, 0, 0, POSIX_FADV_NORMAL));
	C(fadvise(in, 0, 0, 99));
	cl(in);
	/* it changes nothing a reader can see */
	CAT("/f");
	STAT("/f");
}

/* readahead (readahead01): EBADF, the file must be open for reading,
 * EINVAL for what is not a regular file */
static void readahead_calls(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "data"));
	C(readahead(fd, 0, 4096));
	C(readahead(fd, 0, 0));
	C(readahead(fd, 1 << 20, 4096));
	C(readahead(fd, -1, 4096));
	C(readahead(fd, 0, (size_t)-1));
	C(readahead(fd, 0, (size_t)LLONG_MAX));
	C(readahead(99, 0, 4096));
	cl(fd);
	int wo = F(OPEN("/f", O_WRONLY));
	C(readahead(wo, 0, 4096));
	cl(wo);
	int pa = F(OPEN("/f", O_PATH));
	C(readahead(pa, 0, 4096));
	cl(pa);
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY));
	C(readahead(d, 0, 4096));
	cl(d);
	int p[2];
	C(pipe2(p, O_NONBLOCK));
	C(readahead(p[0], 0, 4096));
	C(readahead(p[1], 0, 4096));
	cl(p[0]);
	cl(p[1]);
	int in = F(IINIT(0));
	C(readahead(in, 0, 4096));
	cl(in);
	CAT("/f");
}

/* syncfs (syncfs01) and sync_file_range (sync_file_range01): EBADF,
 * ESPIPE for what is not a file, directory or symlink, the flags and the
 * range's EINVALs in the host's order */
static void sync_calls(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "data"));
	C(syncfs(fd));
	C(syncfs(99));
	C(syncfs(-1));
	for (unsigned f = 0; f <= 8; f++)
		C(sync_file_range(fd, 0, 0, f));
	C(sync_file_range(fd, 0, 4096, SYNC_FILE_RANGE_WRITE));
	C(sync_file_range(fd, -1, 0, 0));
	C(sync_file_range(fd, 0, -1, 0));
	C(sync_file_range(fd, 1, -1, 0));
	C(sync_file_range(fd, LLONG_MAX, 1, 0));
	C(sync_file_range(fd, LLONG_MAX, 0, 0));
	C(sync_file_range(fd, -1, 0, 8));
	C(sync_file_range(fd, 0, 0, 0x80000000u));
	C(sync_file_range(99, -1, 0, 8));
	cl(fd);
	int ro = F(OPEN("/f", O_RDONLY));
	C(sync_file_range(ro, 0, 0, SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER));
	C(syncfs(ro));
	cl(ro);
	int pa = F(OPEN("/f", O_PATH));
	C(syncfs(pa));
	C(sync_file_range(pa, 0, 0, 0));
	cl(pa);
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY));
	C(syncfs(d));
	C(sync_file_range(d, 0, 0, SYNC_FILE_RANGE_WRITE));
	cl(d);
	int p[2];
	C(pipe2(p, O_NONBLOCK));
	C(syncfs(p[0]));
	C(sync_file_range(p[0], 0, 0, 0));
	C(sync_file_range(p[1], -1, 0, 0));
	cl(p[0]);
	cl(p[1]);
	int in = F(IINIT(0));
	C(syncfs(in));
	C(sync_file_range(in, 0, 0, 0));
	cl(in);
	CAT("/f");
}

const struct scenario rw2_scenarios[] = {
	{ "preadv_pwritev_basic", preadv_pwritev_basic },
	{ "pwritev2_append_flags", pwritev2_append_flags },
	{ "preadv2_flags", preadv2_flags },
	{ "rw2_pipes", rw2_pipes },
	{ "rw2_events", rw2_events },
	{ "fadvise_calls", fadvise_calls },
	{ "readahead_calls", readahead_calls },
	{ "sync_calls", sync_calls },
	{ NULL, NULL },
};
