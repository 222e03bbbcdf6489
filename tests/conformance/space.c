/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * space.c - scenarios for fallocate, SEEK_DATA/SEEK_HOLE and st_blocks:
 * the modes tmpfs takes and the errors of the others in Linux's order,
 * pages reserved but not written (counted, zeros, holes to SEEK_DATA),
 * punched holes, the size limit, times and set-id bits (the inotify
 * events are in space_events.c).  Only the operations the FUSE backend has
 * too: a FIFO stands in for a pipe.  ENODEV (fallocate on a character
 * device) is not reachable: uvfs opens no device.
 */
#include "conf.h"
#include <linux/falloc.h>

#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define copy_file_range(a, oa, b, ob, n, f) B->copy_file_range(BX, a, oa, b, ob, n, f)

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif
#define KEEP FALLOC_FL_KEEP_SIZE
#define PUNCH (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define PG 4096L

static char buf[4 * 4096];

/* Every position SEEK_DATA and SEEK_HOLE give, from each page boundary,
 * each boundary's neighbours and past the end. */
static void seeks(int fd, off_t size)
{
	for (off_t o = 0; o <= size + PG; o += PG) {
		C(lseek(fd, o, SEEK_DATA));
		C(lseek(fd, o, SEEK_HOLE));
		if (o) {
			C(lseek(fd, o - 1, SEEK_DATA));
			C(lseek(fd, o - 1, SEEK_HOLE));
		}
		C(lseek(fd, o + 1, SEEK_DATA));
		C(lseek(fd, o + 1, SEEK_HOLE));
	}
}

static void fallocate_errors(void)
{
	C(mkfile("/f", "abc"));
	C(MKDIR("/d", 0755));
	C(MKNOD("/fifo", S_IFIFO | 0644, 0));
	int fd = F(OPEN("/f", O_RDWR));
	int ro = F(OPEN("/f", O_RDONLY));
	int wo = F(OPEN("/f", O_WRONLY | O_APPEND));
	int pf = F(OPEN("/f", O_PATH));
	int d = F(OPEN("/d", O_RDONLY));
	int ff = F(OPEN("/fifo", O_RDWR | O_NONBLOCK));
	int p[2] = { F(OPEN("/fifo", O_RDONLY | O_NONBLOCK)), F(OPEN("/fifo", O_WRONLY | O_NONBLOCK)) };
	/* range before mode, mode before the fd's modes */
	C(fallocate(fd, 0, 0, 0));
	C(fallocate(fd, 0, -1, 0));
	C(fallocate(fd, 0, -1, 10));
	C(fallocate(fd, 0, 0, -5));
	C(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 0));
	C(fallocate(ro, 0, 0, 0));
	C(fallocate(ro, 0x100, 0, 0));
	C(fallocate(99, 0, 0, 0));
	C(fallocate(-1, 0, 0, 1));
	C(fallocate(pf, 0, 0, 1));
	/* every mode shape, on a writable file and on a read-only fd */
	static const int modes[] = {
		0, KEEP, FALLOC_FL_PUNCH_HOLE, PUNCH, FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | KEEP,
		FALLOC_FL_COLLAPSE_RANGE, FALLOC_FL_COLLAPSE_RANGE | KEEP, FALLOC_FL_INSERT_RANGE,
		FALLOC_FL_INSERT_RANGE | KEEP, FALLOC_FL_UNSHARE_RANGE, FALLOC_FL_UNSHARE_RANGE | KEEP,
		FALLOC_FL_WRITE_ZEROES, FALLOC_FL_WRITE_ZEROES | KEEP, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | KEEP,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE, 0x100, 0x4, 0x40000000, -1,
	};
	for (unsigned i = 0; i < sizeof modes / sizeof *modes; i++) {
		note("mode %#x", modes[i]);
		C(fallocate(ro, modes[i], 0, 1));
		C(fallocate(fd, modes[i], 0, 1));
		C(fallocate(fd, modes[i], LLONG_MAX, 1));
		C(fallocate(d, modes[i], 0, 1));
		C(fallocate(p[1], modes[i], 0, 1));
		C(fallocate(p[0], modes[i], 0, 1));
		C(fallocate(ff, modes[i], 0, 1));
		C(fallocate(ff, modes[i], -1, 1));
	}
	/* past the largest size */
	C(fallocate(fd, 0, LLONG_MAX, 1));
	C(fallocate(fd, 0, LLONG_MAX - 10, 11));
	C(fallocate(fd, 0, 1, LLONG_MAX));
	C(fallocate(fd, PUNCH, LLONG_MAX - 10, 20));
	C(fallocate(fd, KEEP, LLONG_MAX - 10, 10));
	FSTAT(fd);
	/* O_APPEND is no obstacle (only the inode's append-only flag is) */
	C(fallocate(wo, 0, 0, 100));
	C(fallocate(wo, PUNCH, 0, 1));
	FSTAT(fd);
	CAT("/f");
	C(fallocate(fd, PUNCH, 0, 1));
	CAT("/f");
	cl(fd);
	cl(ro);
	cl(wo);
	cl(pf);
	cl(d);
	cl(ff);
	cl(p[0]);
	cl(p[1]);
}

static void fallocate_allocate(void)
{
	int fd = F(OPEN("/f", O_RDWR | O_CREAT));
	C(fallocate(fd, 0, 0, 1));
	FSTAT(fd);
	BLOCKSOF("/f");
	C(fallocate(fd, 0, 100, 8000));
	SIZEOF("/f");
	BLOCKSOF("/f");
	/* reserved pages are holes to SEEK_DATA, zeros to read */
	seeks(fd, 8100);
	C(pread(fd, buf, sizeof buf, 0));
	C(memcmp(buf, rep(0, 8100), 8100));
	/* a second allocation over reserved pages makes them data */
	C(fallocate(fd, KEEP, 4096, 12288));
	SIZEOF("/f");
	BLOCKSOF("/f");
	seeks(fd, 8100);
	/* beyond the end, keeping the size */
	C(fallocate(fd, KEEP, 40000, 5000));
	SIZEOF("/f");
	BLOCKSOF("/f");
	seeks(fd, 8100);
	/* a write into a reserved page makes that page data */
	C(pwrite(fd, "xy", 2, 2000));
	seeks(fd, 8100);
	BLOCKSOF("/f");
	C(pread(fd, buf, 4096, 0));
	C(buf[2000] == 'x' && buf[2001] == 'y' && buf[0] == 0 && buf[4095] == 0);
	/* growing the size over reserved pages beyond it */
	C(fallocate(fd, 0, 36000, 6000));
	SIZEOF("/f");
	BLOCKSOF("/f");
	seeks(fd, 46000);
	/* the largest offset */
	C(fallocate(fd, KEEP, LLONG_MAX - 10, 10));
	SIZEOF("/f");
	BLOCKSOF("/f");
	C(fallocate(fd, 0, LLONG_MAX - 10, 10));
	SIZEOF("/f");
	BLOCKSOF("/f");
	/* no SEEK_DATA/SEEK_HOLE here: Linux 6.18 answers ENXIO and LLONG_MIN
	 * from the last page (its page arithmetic overflows) */
	/* truncate drops reserved pages too */
	C(ftruncate(fd, 5000));
	BLOCKSOF("/f");
	seeks(fd, 5000);
	C(ftruncate(fd, 0));
	BLOCKSOF("/f");
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, 0, SEEK_HOLE));
	cl(fd);
}

static void fallocate_punch(void)
{
	int fd = F(OPEN("/f", O_RDWR | O_CREAT));
	memset(buf, 'a', sizeof buf);
	C(pwrite(fd, buf, sizeof buf, 0));
	C(pwrite(fd, buf, sizeof buf, 8 * PG));
	BLOCKSOF("/f");
	/* within one page: zeros, the page stays */
	C(fallocate(fd, PUNCH, 100, 200));
	BLOCKSOF("/f");
	/* across two partial pages */
	C(fallocate(fd, PUNCH, PG - 10, 20));
	BLOCKSOF("/f");
	/* one whole page and parts of its neighbours */
	C(fallocate(fd, PUNCH, 2 * PG - 1, PG + 2));
	BLOCKSOF("/f");
	SIZEOF("/f");
	CAT("/f");
	seeks(fd, 12 * PG);
	/* whole pages exactly */
	C(fallocate(fd, PUNCH, 8 * PG, 2 * PG));
	BLOCKSOF("/f");
	seeks(fd, 12 * PG);
	/* a hole already there, beyond the end, over the end */
	C(fallocate(fd, PUNCH, 4 * PG, 3 * PG));
	C(fallocate(fd, PUNCH, 100 * PG, PG));
	C(fallocate(fd, PUNCH, 11 * PG, 100 * PG));
	SIZEOF("/f");
	BLOCKSOF("/f");
	CAT("/f");
	seeks(fd, 12 * PG);
	/* reserved pages beyond the end are punched too */
	C(fallocate(fd, KEEP, 20 * PG, 4 * PG));
	BLOCKSOF("/f");
	C(fallocate(fd, PUNCH, 21 * PG, PG + 1));
	BLOCKSOF("/f");
	C(fallocate(fd, PUNCH, 0, LLONG_MAX));
	BLOCKSOF("/f");
	SIZEOF("/f");
	seeks(fd, 12 * PG);
	cl(fd);
}

/* The size limit: a range larger than it fails at once, a range the free
 * pages cannot hold fails and leaves nothing of its own allocated. */
static void fallocate_nospace(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, "size=64k"));
	int f = F(OPEN("/m/f", O_RDWR | O_CREAT));
	int g = F(OPEN("/m/g", O_RDWR | O_CREAT));
	C(fallocate(f, 0, 0, 1 << 20));
	C(fallocate(f, 0, 0, 65536 + 1));
	C(fallocate(f, KEEP, 0, 8192));
	C(fallocate(f, 0, 0, 65536));
	BLOCKSOF("/m/f");
	SIZEOF("/m/f");
	C(lseek(f, 0, SEEK_DATA));
	C(ftruncate(f, 0));
	C(fallocate(f, 0, 4096, 4096));
	C(fallocate(g, 0, 0, 65536));
	BLOCKSOF("/m/g");
	SIZEOF("/m/g");
	C(fallocate(g, 0, 0, 61440));
	BLOCKSOF("/m/g");
	SIZEOF("/m/g");
	C(fallocate(g, 0, 0, 32768));
	BLOCKSOF("/m/g");
	C(fallocate(g, PUNCH, 0, 65536));
	C(fallocate(g, 0, 0, 61440));
	BLOCKSOF("/m/g");
	/* a write over reserved pages needs no more space */
	C(pwrite(g, buf, 8192, 0));
	C(pwrite(f, buf, 4096, 8192));
	BLOCKSOF("/m/g");
	BLOCKSOF("/m/f");
	/* writes fail when every page is reserved */
	C(fallocate(f, KEEP, 0, 4096));
	C(pwrite(f, buf, 1, 40000));
	cl(f);
	cl(g);
	C(UNLINK("/m/g"));
	C(UNLINK("/m/f"));
	C(umount2("/m", 0));
}

/* Times and set-id bits; the same calls' events are in space_events.c. */
static void fallocate_times(void)
{
	C(mkfile("/f", "hello"));
	C(MKDIR("/d", 0777));
	C(mkfile("/d/g", "hello"));
	int fd = F(OPEN("/f", O_RDWR));
	int gd = F(OPEN("/d/g", O_RDWR));
	AGE("/f");
	C(fallocate(fd, 0, 0, 4096));
	TS("/f");
	AGE("/f");
	C(fallocate(fd, 0, 0, 100));
	TS("/f");
	AGE("/f");
	C(fallocate(fd, KEEP, 8192, 100));
	TS("/f");
	AGE("/f");
	C(fallocate(fd, PUNCH, 0, 10));
	TS("/f");
	AGE("/f");
	C(fallocate(fd, PUNCH, 100000, 10));
	TS("/f");
	/* failures change nothing */
	AGE("/f");
	C(fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 10));
	C(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 10));
	C(fallocate(fd, 0, LLONG_MAX, 10));
	TS("/f");
	/* a caller that is not root loses set-id bits */
	C(CHMOD("/f", 06777));
	C(CHMOD("/d/g", 02777));
	C(setcred(1000, 1000));
	C(fallocate(fd, PUNCH, 0, 1));
	STAT("/f");
	C(fallocate(gd, 0, 0, 1));
	STAT("/d/g");
	C(CHMOD("/d/g", 02767));
	C(setcred(0, 0));
	C(CHMOD("/d/g", 02767));
	C(setcred(1000, 1000));
	C(fallocate(gd, 0, 0, 1));
	STAT("/d/g");
	C(setcred(0, 0));
	C(CHMOD("/f", 06777));
	C(fallocate(fd, 0, 0, 1));
	STAT("/f");
	cl(fd);
	cl(gd);
}

/* SEEK_DATA/SEEK_HOLE and st_blocks over sparse writes and truncation. */
static void seek_data_hole(void)
{
	int fd = F(OPEN("/f", O_RDWR | O_CREAT));
	int d = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	/* empty: ENXIO everywhere */
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, 0, SEEK_HOLE));
	C(lseek(fd, -1, SEEK_DATA));
	C(lseek(fd, -1, SEEK_HOLE));
	C(lseek(d, 0, SEEK_DATA));
	C(lseek(d, 0, SEEK_HOLE));
	C(pwrite(fd, "a", 1, 5 * PG + 7));
	BLOCKSOF("/f");
	seeks(fd, 6 * PG);
	C(pwrite(fd, "b", 1, 2 * PG - 1));
	C(pwrite(fd, "c", 1, 2 * PG));
	BLOCKSOF("/f");
	seeks(fd, 6 * PG);
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, 3 * PG, SEEK_DATA));
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, 7 * PG, SEEK_DATA));
	C(lseek(fd, 0, SEEK_CUR));
	/* growing the size adds a hole at the end */
	C(ftruncate(fd, 20 * PG + 3));
	BLOCKSOF("/f");
	seeks(fd, 21 * PG);
	/* shrinking into a page keeps it, its tail zeroed */
	C(ftruncate(fd, 2 * PG + 1));
	BLOCKSOF("/f");
	seeks(fd, 3 * PG);
	C(ftruncate(fd, 2 * PG));
	BLOCKSOF("/f");
	seeks(fd, 3 * PG);
	C(ftruncate(fd, 6 * PG));
	CAT("/f");
	C(ftruncate(fd, PG - 1));
	BLOCKSOF("/f");
	cl(fd);
	cl(d);
}

/*
 * An fsx-like run: a fixed pseudo-random sequence of writes, truncations,
 * allocations, punched holes, copies within and between two files, reads
 * (checksummed), SEEK_DATA/SEEK_HOLE and st_blocks, every result recorded.
 * The parameters come from the generator alone, never from a result, so
 * both backends make the same calls.
 */
static unsigned long long fsx_state;
static unsigned long fsx_rand(unsigned long n)
{
	fsx_state = fsx_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned long)(fsx_state >> 33) % n;
}

static unsigned long sum(const char *b, size_t n)
{
	unsigned long h = 5381;
	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)b[i];
	return h;
}

static void fsx_run(unsigned long long seed, int ops)
{
	static char wbuf[32768], rbuf[65536];
	int fds[2] = { F(OPEN("/x", O_RDWR | O_CREAT)), F(OPEN("/y", O_RDWR | O_CREAT)) };
	const long max = 256 * 1024;
	fsx_state = seed;
	for (int op = 0; op < ops; op++) {
		int fd = fds[fsx_rand(2)], other = fds[fsx_rand(2)];
		off_t off = (off_t)fsx_rand((unsigned long)max), len = (off_t)fsx_rand(32768) + 1;
		off_t o2 = (off_t)fsx_rand((unsigned long)max);
		struct stat st;
		note("op %d", op);
		switch (fsx_rand(10)) {
		case 0:
		case 1:
			for (off_t i = 0; i < len; i++)
				wbuf[i] = (char)(op + i);
			C(pwrite(fd, wbuf, (size_t)len, off));
			break;
		case 2:
			C(ftruncate(fd, off));
			break;
		case 3:
			C(fallocate(fd, 0, off, len));
			break;
		case 4:
			C(fallocate(fd, KEEP, off, len));
			break;
		case 5:
			C(fallocate(fd, PUNCH, off, len));
			break;
		case 6: {
			off_t a = off, b = o2;
			C(copy_file_range(fd, &a, other, &b, (size_t)len, 0));
			C(a);
			C(b);
			break;
		}
		case 7: {
			ssize_t n = pread(fd, rbuf, (size_t)len * 2, off);
			C(n);
			if (n > 0)
				C(sum(rbuf, (size_t)n));
			break;
		}
		case 8:
			C(lseek(fd, off, SEEK_DATA));
			C(lseek(fd, off, SEEK_HOLE));
			break;
		case 9:
			C(fstat(fd, &st));
			C(st.st_size);
			C(st.st_blocks);
			break;
		}
	}
	cl(fds[0]);
	cl(fds[1]);
}

/* six runs of 600 operations: a scenario records at most 2000 checks */
static void fallocate_fsx_1(void) { fsx_run(11, 600); }
static void fallocate_fsx_2(void) { fsx_run(12, 600); }
static void fallocate_fsx_3(void) { fsx_run(13, 600); }
static void fallocate_fsx_4(void) { fsx_run(14, 600); }
static void fallocate_fsx_5(void) { fsx_run(15, 600); }
static void fallocate_fsx_6(void) { fsx_run(16, 600); }

const struct scenario space_scenarios[] = {
	{ "fallocate_fsx_1", fallocate_fsx_1 },
	{ "fallocate_fsx_2", fallocate_fsx_2 },
	{ "fallocate_fsx_3", fallocate_fsx_3 },
	{ "fallocate_fsx_4", fallocate_fsx_4 },
	{ "fallocate_fsx_5", fallocate_fsx_5 },
	{ "fallocate_fsx_6", fallocate_fsx_6 },
	{ "fallocate_errors", fallocate_errors },
	{ "fallocate_allocate", fallocate_allocate },
	{ "fallocate_punch", fallocate_punch },
	{ "fallocate_nospace", fallocate_nospace },
	{ "fallocate_times", fallocate_times },
	{ "seek_data_hole", seek_data_hole },
	{ NULL, NULL },
};
