/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * memfd.c - memfd_create(2) and the seals of fcntl(2) (F_ADD_SEALS,
 * F_GET_SEALS): the flags and name checks and their order, what a memfd is
 * (a regular file of mode 0777 with no link, open O_RDWR|O_LARGEFILE), the
 * seals each kind starts with (F_SEAL_SEAL without MFD_ALLOW_SEALING, as
 * every tmpfs file; F_SEAL_EXEC with MFD_NOEXEC_SEAL), and what each seal
 * refuses (EPERM): writes that would grow the file, page by page as tmpfs's
 * write_begin sees them, truncates, fallocate and punching holes, writes,
 * changes of the x bits, more seals: what LTP's memfd_create01-04 and
 * fcntl F_ADD_SEALS tests assert.
 *
 * MFD_HUGETLB is not compared: uvfs has no huge pages and answers ENODEV
 * (include/uvfs.h).  memfd_seals_path_file seals files made by name, which
 * only tmpfs has: it is left out where the scenarios' root is not a tmpfs
 * (on_hostfs.c, on_overlay.c, on_testfs.c, tests/fuse); the others need
 * no root at all (a memfd lives on an internal tmpfs whatever the root is).
 */
#include "conf.h"
#include <linux/falloc.h>
#include <linux/memfd.h>


#define memfd_create(n, f) B->memfd_create(BX, n, f)
#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define copy_file_range(a, oa, b, ob, n, f) B->copy_file_range(BX, a, oa, b, ob, n, f)
#define sendfile(o, i, off, n) B->sendfile(BX, o, i, off, n)
#define GET_SEALS(fd) fcntl(fd, F_GET_SEALS, 0)
#define ADD_SEALS(fd, s) fcntl(fd, F_ADD_SEALS, s)
#define PUNCH (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

/* "N bytes, fnv X" of what pread reads from fd, or -errno: larger contents
 * than FCAT's record keeps */
static const char *fsum(int fd)
{
	static char buf[16384];
	uint32_t h = 2166136261u;
	size_t n = 0;
	ssize_t r;
	while ((r = pread(fd, buf, sizeof buf, (off_t)n)) > 0) {
		for (ssize_t i = 0; i < r; i++)
			h = (h ^ (unsigned char)buf[i]) * 16777619u;
		n += (size_t)r;
	}
	if (r < 0)
		return fmt("%zd", r);
	return fmt("%zu bytes, fnv %08x", n, h);
}
#define SUM(fd) CS("contents " #fd, fsum(fd))

/* the bytes written by the page-boundary scenarios: no two pages alike */
static const char *big(void)
{
	static char b[8192];
	if (!b[0])
		for (size_t i = 0; i < sizeof b; i++)
			b[i] = (char)('A' + (i * 7 + i / 4096) % 53);
	return b;
}

static long long ino_of(int fd)
{
	struct stat st;
	int r = fstat(fd, &st);
	return r < 0 ? r : (long long)st.st_ino;
}

/* the name and flags checks, their order (flags, then the name, then the fd
 * table), fd numbers, MFD_CLOEXEC */
static void memfd_create_args(void)
{
	/* the lowest free fd, whatever failed in between */
	C(memfd_create(rep('a', 249), 0));
	C(memfd_create(rep('a', 250), 0));
	C(memfd_create(rep('a', 4000), 0));
	C(memfd_create(NULL, 0));
	C(memfd_create("", 0));
	C(memfd_create("a/b", 0));
	C(memfd_create("x", 0x100));
	C(memfd_create("x", 0x20));
	C(memfd_create("x", 0x80000000U));
	C(memfd_create("x", MFD_EXEC | MFD_NOEXEC_SEAL));
	C(memfd_create("x", MFD_EXEC | MFD_NOEXEC_SEAL | MFD_ALLOW_SEALING));
	C(memfd_create("x", 21U << MFD_HUGE_SHIFT));
	C(memfd_create("x", MFD_HUGE_2MB | MFD_ALLOW_SEALING));
	/* flags before the name */
	C(memfd_create(NULL, 0x100));
	C(memfd_create(rep('a', 250), 0x100));
	C(memfd_create(NULL, MFD_EXEC | MFD_NOEXEC_SEAL));
	C(memfd_create(rep('a', 250), 21U << MFD_HUGE_SHIFT));
	C(memfd_create("x", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC));
	/* the name before the fd table */
	C(set_nofile(4));
	C(memfd_create("full", 0));
	C(memfd_create(NULL, 0));
	C(memfd_create(rep('a', 250), 0));
	C(memfd_create("full", 0x100));
	C(close(3));
	C(memfd_create(rep('b', 249), MFD_CLOEXEC));
	C(memfd_create("full", 0));
	C(set_nofile(1024));
	/* MFD_CLOEXEC is the fd's; the file's flags are the same */
	C(fcntl(0, F_GETFD, 0));
	C(fcntl(3, F_GETFD, 0));
	C(fcntl(0, F_GETFL, 0));
	C(fcntl(3, F_GETFL, 0));
	int c = C(memfd_create("c", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	C(fcntl(c, F_GETFD, 0));
	C(GET_SEALS(c));
	int d = C(dup(c));
	C(fcntl(d, F_GETFD, 0));
	C(GET_SEALS(d));
	/* each call makes a new file, whatever its name */
	C(ino_of(1) != ino_of(2));
	C(wr(1, "one"));
	FCAT(1);
	FCAT(2);
	FSTAT(0);
	FSTAT(3);
	FSTAT(4);
	C(close_range(0, ~0U, 0));
	C(memfd_create("again", 0));
}

/* a memfd without seals: what kind of file it is, its mode whatever the
 * umask, its owner, I/O, no name to reach it by */
static void memfd_plain_file(void)
{
	C(umask(077));
	int m = F(memfd_create("plain", 0));
	C(umask(022));
	FSTAT(m);
	STATAT(m, "", AT_EMPTY_PATH);
	C(GET_SEALS(m));
	C(ADD_SEALS(m, F_SEAL_WRITE));
	C(ADD_SEALS(m, 0));
	C(ADD_SEALS(m, 0x40));
	C(GET_SEALS(m));
	C(fcntl(m, F_GETFL, 0));
	C(fcntl(m, F_GETFD, 0));
	C(wr(m, "hello world"));
	FSTAT(m);
	C(lseek(m, 0, SEEK_CUR));
	C(lseek(m, 0, SEEK_END));
	C(lseek(m, 3, SEEK_SET));
	char b[32] = "";
	C(read(m, b, 4));
	CS("read", b);
	FCAT(m);
	C(ftruncate(m, 5));
	FCAT(m);
	C(ftruncate(m, 100000));
	FSTAT(m);
	C(lseek(m, 0, SEEK_DATA));
	C(lseek(m, 10, SEEK_HOLE));
	C(lseek(m, 5000, SEEK_DATA));
	C(fallocate(m, PUNCH, 0, 4096));
	C(lseek(m, 0, SEEK_DATA));
	SUM(m);
	C(ftruncate(m, 5));
	C(fallocate(m, FALLOC_FL_KEEP_SIZE, 0, 9000));
	C(fallocate(m, 0, 0, 9000));
	FSTAT(m);
	C(ftruncate(m, 5));
	C(fcntl(m, F_SETFL, O_APPEND));
	C(fcntl(m, F_GETFL, 0));
	C(pwrite(m, "!", 1, 0));
	FCAT(m);
	C(fsync(m));
	C(fdatasync(m));
	C(fchmod(m, 0600));
	FSTAT(m);
	C(fchown(m, 1000, 2000));
	FSTAT(m);
	/* no name: not linkable, not a directory */
	C(linkat(m, "", AT_FDCWD, "/lnk", AT_EMPTY_PATH));
	LS("/");
	C(fchdir(m));
	C(openat(m, "x", O_RDONLY, 0));
	C(mkdirat(m, "x", 0755));
	char db[256];
	C(getdents64(m, db, sizeof db));
	struct statfs sfs;
	memset(&sfs, 0, sizeof sfs);
	C(fstatfs(m, &sfs));
	C(sfs.f_type == TMPFS_MAGIC);
	/* another one of the same name is another file */
	int m2 = F(memfd_create("plain", 0));
	C(ino_of(m) != ino_of(m2));
	C(wr(m2, "other"));
	FCAT(m);
	FCAT(m2);
	/* reopened (open of /proc/self/fd/N on Linux): the same file */
	int r = F(fd_reopen(m2, O_RDONLY));
	C(ino_of(r) == ino_of(m2));
	FCAT(r);
	C(wr(r, "x"));
	C(fcntl(r, F_GETFL, 0));
	int w = F(fd_reopen(m2, O_RDWR | O_TRUNC));
	FSTAT(m2);
	C(wr(w, "new"));
	FCAT(m2);
	/* made by a user: the owner is the fsuid and fsgid */
	C(setcred(1000, 1001));
	int u = F(memfd_create("user", MFD_ALLOW_SEALING));
	FSTAT(u);
	C(fchmod(u, 0640));
	C(fchmod(m2, 0640));
	C(ADD_SEALS(u, F_SEAL_GROW));
	C(GET_SEALS(u));
	C(GET_SEALS(m2));
	C(wr(u, "x"));
	C(setcred(0, 0));
	FSTAT(u);
	C(ADD_SEALS(u, F_SEAL_SHRINK));
	C(GET_SEALS(u));
	cl(u);
	cl(w);
	cl(r);
	cl(m2);
	cl(m);
}

/* the seals one after another on one memfd (MFD_ALLOW_SEALING): grow,
 * shrink, write, seal */
static void memfd_seals_sequence(void)
{
	int s = F(memfd_create("s", MFD_ALLOW_SEALING));
	FSTAT(s);
	C(GET_SEALS(s));
	C(ADD_SEALS(s, 0x40));
	C(ADD_SEALS(s, 0x41));
	C(ADD_SEALS(s, 0));
	C(GET_SEALS(s));
	C(write(s, "0123456789", 10));
	/* F_SEAL_GROW: nothing past the size, by any call */
	C(ADD_SEALS(s, F_SEAL_GROW));
	C(GET_SEALS(s));
	C(ADD_SEALS(s, F_SEAL_GROW));
	C(GET_SEALS(s));
	C(pwrite(s, "abc", 3, 8));
	C(pwrite(s, "abc", 3, 7));
	C(pwrite(s, "abc", 3, 10));
	C(pwrite(s, "abc", 3, 100));
	FCAT(s);
	FSTAT(s);
	C(lseek(s, 0, SEEK_END));
	C(write(s, "x", 1));
	C(lseek(s, 0, SEEK_CUR));
	C(lseek(s, 9, SEEK_SET));
	C(write(s, "yz", 2));
	C(write(s, "y", 1));
	C(lseek(s, 0, SEEK_CUR));
	FCAT(s);
	C(ftruncate(s, 11));
	C(ftruncate(s, 10));
	C(ftruncate(s, 5));
	FSTAT(s);
	FCAT(s);
	C(fallocate(s, 0, 0, 5));
	C(fallocate(s, 0, 0, 6));
	C(fallocate(s, FALLOC_FL_KEEP_SIZE, 0, 6));
	C(fallocate(s, FALLOC_FL_KEEP_SIZE, 4096, 1));
	C(fallocate(s, PUNCH, 0, 2));
	C(fallocate(s, PUNCH, 3, 100));
	FCAT(s);
	FSTAT(s);
	C(fallocate(s, FALLOC_FL_COLLAPSE_RANGE, 0, 4096));
	C(fallocate(s, FALLOC_FL_ZERO_RANGE, 0, 2));
	C(fallocate(s, FALLOC_FL_INSERT_RANGE, 0, 4096));
	/* F_SEAL_SHRINK */
	C(ADD_SEALS(s, F_SEAL_SHRINK));
	C(GET_SEALS(s));
	C(ftruncate(s, 4));
	C(ftruncate(s, 0));
	C(ftruncate(s, 5));
	C(ftruncate(s, 6));
	FSTAT(s);
	/* F_SEAL_WRITE: no write, no hole; allocating what is there is no write */
	C(lseek(s, 0, SEEK_SET));
	C(wr(s, "Z"));
	C(ADD_SEALS(s, F_SEAL_WRITE));
	C(GET_SEALS(s));
	C(write(s, "x", 1));
	C(pwrite(s, "x", 1, 0));
	C(pwrite(s, "x", 0, 0));
	C(write(s, "", 0));
	struct iovec v = { "x", 1 };
	C(writev(s, &v, 1));
	C(fallocate(s, PUNCH, 0, 2));
	C(fallocate(s, 0, 0, 2));
	C(fallocate(s, FALLOC_FL_KEEP_SIZE, 0, 5));
	FCAT(s);
	/* the seals are the file's: a dup, and the fchmod that W^X leaves alone */
	int d = F(dup(s));
	C(GET_SEALS(d));
	C(write(d, "x", 1));
	C(fchmod(s, 0644));
	FSTAT(s);
	C(ADD_SEALS(s, F_SEAL_SEAL));
	C(GET_SEALS(d));
	C(ADD_SEALS(s, 0));
	C(ADD_SEALS(s, F_SEAL_SEAL));
	C(ADD_SEALS(d, F_SEAL_FUTURE_WRITE));
	C(ADD_SEALS(s, 0x40));
	C(GET_SEALS(s));
	C(ftruncate(s, 5));
	C(fchmod(s, 0755));
	FSTAT(s);
	cl(d);
	cl(s);
}

/* F_SEAL_FUTURE_WRITE: no more writes, but the size may change */
static void memfd_seal_future_write(void)
{
	int fw = F(memfd_create("fw", MFD_ALLOW_SEALING));
	C(wr(fw, "abc"));
	C(ADD_SEALS(fw, F_SEAL_FUTURE_WRITE));
	C(GET_SEALS(fw));
	C(wr(fw, "d"));
	C(pwrite(fw, "d", 1, 0));
	C(write(fw, "", 0));
	C(ftruncate(fw, 1));
	C(ftruncate(fw, 10));
	FSTAT(fw);
	FCAT(fw);
	C(fallocate(fw, PUNCH, 0, 1));
	C(fallocate(fw, 0, 0, 20));
	FSTAT(fw);
	C(ADD_SEALS(fw, F_SEAL_WRITE));
	C(GET_SEALS(fw));
	C(ftruncate(fw, 2));
	FCAT(fw);
	cl(fw);
}

/* F_SEAL_GROW counted as tmpfs's write_begin sees it: one page at a time
 * (a chunk of generic_perform_write: up to the end of the page, across the
 * iovecs), so a write stops short at the last whole page below the size.
 * The host's shmem has no huge pages (shmem_enabled "never", Linux's
 * default): with large folios its chunks, and these answers, would be
 * larger. */
static void memfd_seal_grow_pages(void)
{
	const char *bg = big();
	int g = F(memfd_create("g", MFD_ALLOW_SEALING));
	C(ftruncate(g, 5000));
	C(ADD_SEALS(g, F_SEAL_GROW));
	C(pwrite(g, bg, 6000, 0));
	C(pwrite(g, bg + 1, 6000, 100));
	C(pwrite(g, bg + 2, 6000, 4096));
	C(pwrite(g, bg + 3, 100, 4000));
	C(pwrite(g, bg + 4, 904, 4096));
	C(pwrite(g, bg + 5, 905, 4096));
	C(pwrite(g, bg + 6, 8192, 0));
	FSTAT(g);
	SUM(g);
	/* writev: the pages cross the iovecs */
	struct iovec v1[2] = { { (char *)bg + 7, 4096 }, { (char *)bg + 8, 2000 } };
	C(lseek(g, 0, SEEK_SET));
	C(writev(g, v1, 2));
	C(lseek(g, 0, SEEK_CUR));
	struct iovec v2[2] = { { (char *)bg + 9, 3000 }, { (char *)bg + 10, 3000 } };
	C(lseek(g, 0, SEEK_SET));
	C(writev(g, v2, 2));
	C(lseek(g, 0, SEEK_CUR));
	struct iovec v3[2] = { { "ab", 2 }, { "cdefgh", 6 } };
	C(lseek(g, 4995, SEEK_SET));
	C(writev(g, v3, 2));
	C(lseek(g, 0, SEEK_CUR));
	struct iovec v4[2] = { { "ab", 2 }, { "cd", 2 } };
	C(lseek(g, 4990, SEEK_SET));
	C(writev(g, v4, 2));
	C(lseek(g, 0, SEEK_CUR));
	struct iovec v5[3] = { { "12", 2 }, { (char *)bg, 0 }, { "34", 2 } };
	C(lseek(g, 4094, SEEK_SET));
	C(writev(g, v5, 3));
	FSTAT(g);
	SUM(g);
	/* O_APPEND: at the end, which may not move */
	C(fcntl(g, F_SETFL, O_APPEND));
	C(wr(g, "x"));
	C(pwrite(g, "x", 1, 0));
	C(write(g, "", 0));
	C(fcntl(g, F_SETFL, 0));
	/* a file that may not grow, on a page boundary */
	int h = F(memfd_create("h", MFD_ALLOW_SEALING));
	C(ftruncate(h, 8192));
	C(ADD_SEALS(h, F_SEAL_GROW | F_SEAL_SHRINK));
	C(GET_SEALS(h));
	C(pwrite(h, bg, 8192, 1));
	C(pwrite(h, bg, 8192, 0));
	C(pwrite(h, bg, 1, 8192));
	C(ftruncate(h, 8192));
	C(ftruncate(h, 8191));
	C(ftruncate(h, 8193));
	FSTAT(h);
	SUM(h);
	/* an empty one: nothing at all */
	int e = F(memfd_create("e", MFD_ALLOW_SEALING));
	C(ADD_SEALS(e, F_SEAL_GROW));
	C(wr(e, "x"));
	C(pwrite(e, "x", 0, 100));
	C(fallocate(e, FALLOC_FL_KEEP_SIZE, 0, 1));
	C(ftruncate(e, 0));
	FSTAT(e);
	cl(e);
	cl(h);
	cl(g);
}

/* copies into a sealed memfd: they are writes */
static void memfd_seal_transfers(void)
{
	int src = F(memfd_create("src", 0));
	C(wr(src, "0123456789abcdef"));
	int w = F(memfd_create("w", MFD_ALLOW_SEALING));
	C(wr(w, "........"));
	C(ADD_SEALS(w, F_SEAL_WRITE));
	off_t oi = 0, oo = 0;
	C(copy_file_range(src, &oi, w, &oo, 4, 0));
	C(oi);
	C(oo);
	oi = 0;
	C(sendfile(w, src, &oi, 4));
	C(oi);
	FCAT(w);
	/* reading from one is allowed */
	int dst = F(memfd_create("dst", 0));
	oi = 2;
	oo = 0;
	C(copy_file_range(w, &oi, dst, &oo, 100, 0));
	FCAT(dst);
	int g = F(memfd_create("g", MFD_ALLOW_SEALING));
	C(wr(g, "........"));
	C(ADD_SEALS(g, F_SEAL_GROW));
	oi = 0;
	oo = 6;
	C(copy_file_range(src, &oi, g, &oo, 2, 0));
	oi = 0;
	oo = 6;
	C(copy_file_range(src, &oi, g, &oo, 3, 0));
	FCAT(g);
	cl(g);
	cl(dst);
	cl(w);
	cl(src);
}

/* MFD_NOEXEC_SEAL, MFD_EXEC and F_SEAL_EXEC (Linux 6.3) */
static void memfd_seal_exec(void)
{
	int ne = F(memfd_create("ne", MFD_NOEXEC_SEAL));
	FSTAT(ne);
	C(GET_SEALS(ne));
	C(fchmod(ne, 0755));
	C(fchmod(ne, 0601));
	C(fchmod(ne, 0600));
	FSTAT(ne);
	C(wr(ne, "x"));
	C(ADD_SEALS(ne, F_SEAL_GROW));
	C(GET_SEALS(ne));
	C(ftruncate(ne, 100));
	C(fchmod(ne, 0666));
	FSTAT(ne);
	int ne2 = F(memfd_create("ne2", MFD_NOEXEC_SEAL | MFD_ALLOW_SEALING | MFD_CLOEXEC));
	C(GET_SEALS(ne2));
	C(fcntl(ne2, F_GETFD, 0));
	C(ADD_SEALS(ne2, F_SEAL_SEAL));
	C(GET_SEALS(ne2));
	C(ADD_SEALS(ne2, F_SEAL_EXEC));
	int ex = F(memfd_create("ex", MFD_EXEC));
	FSTAT(ex);
	C(GET_SEALS(ex));
	C(ADD_SEALS(ex, F_SEAL_EXEC));
	C(fchmod(ex, 0644));
	/* the exec seal on a file with x bits: W^X, so it cannot be written */
	int ex2 = F(memfd_create("ex2", MFD_EXEC | MFD_ALLOW_SEALING));
	C(GET_SEALS(ex2));
	C(wr(ex2, "abc"));
	C(ADD_SEALS(ex2, F_SEAL_EXEC));
	C(GET_SEALS(ex2));
	C(fchmod(ex2, 0666));
	C(fchmod(ex2, 0777));
	C(wr(ex2, "x"));
	C(ftruncate(ex2, 1));
	C(ftruncate(ex2, 10));
	C(fallocate(ex2, PUNCH, 0, 1));
	FSTAT(ex2);
	FCAT(ex2);
	/* on one without: only the x bits stay as they are */
	int ex3 = F(memfd_create("ex3", MFD_ALLOW_SEALING));
	C(fchmod(ex3, 0666));
	C(ADD_SEALS(ex3, F_SEAL_EXEC));
	C(GET_SEALS(ex3));
	C(wr(ex3, "x"));
	C(fchmod(ex3, 0644));
	C(fchmod(ex3, 0655));
	C(fchmod(ex3, 0744));
	FSTAT(ex3);
	C(ADD_SEALS(ex3, F_SEAL_EXEC));
	C(GET_SEALS(ex3));
	/* one x bit is enough for W^X */
	int ex4 = F(memfd_create("ex4", MFD_ALLOW_SEALING));
	C(fchmod(ex4, 0601));
	C(ADD_SEALS(ex4, F_SEAL_EXEC | F_SEAL_SEAL));
	C(GET_SEALS(ex4));
	C(fchmod(ex4, 0600));
	C(fchmod(ex4, 0701));
	FSTAT(ex4);
	cl(ex4);
	cl(ex3);
	cl(ex2);
	cl(ex);
	cl(ne2);
	cl(ne);
}

/* F_GET_SEALS and F_ADD_SEALS on what is not a memfd, and on memfds
 * reached through other fds: write access first, then the seals' bits,
 * then whether the file has seals at all */
static void memfd_seal_fd_kinds(void)
{
	C(MKDIR("/d", 0755));
	int d = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(GET_SEALS(d));
	C(ADD_SEALS(d, F_SEAL_SEAL));
	C(ADD_SEALS(d, 0x40));
	int p[2] = { -1, -1 };
	C(pipe2(p, 0));
	C(GET_SEALS(p[0]));
	C(GET_SEALS(p[1]));
	C(ADD_SEALS(p[0], F_SEAL_SEAL));
	C(ADD_SEALS(p[1], F_SEAL_SEAL));
	C(ADD_SEALS(p[1], 0x40));
	int op = F(OPEN("/d", O_PATH));
	C(GET_SEALS(op));
	C(ADD_SEALS(op, F_SEAL_SEAL));
	C(GET_SEALS(999));
	C(GET_SEALS(-1));
	C(ADD_SEALS(999, 0));
	cl(op);
	cl(p[0]);
	cl(p[1]);
	cl(d);
	/* one memfd through several fds */
	int m = F(memfd_create("m", MFD_ALLOW_SEALING));
	C(wr(m, "data"));
	C(ADD_SEALS(m, F_SEAL_SHRINK));
	int ro = F(fd_reopen(m, O_RDONLY));
	C(GET_SEALS(ro));
	C(ADD_SEALS(ro, 0));
	C(ADD_SEALS(ro, 0x40));
	C(ADD_SEALS(ro, F_SEAL_GROW));
	FSTAT(ro);
	FCAT(ro);
	int rw = F(fd_reopen(m, O_RDWR));
	C(ADD_SEALS(rw, F_SEAL_GROW));
	C(GET_SEALS(m));
	C(GET_SEALS(ro));
	C(ftruncate(m, 100));
	int wo = F(fd_reopen(m, O_WRONLY));
	C(GET_SEALS(wo));
	C(ADD_SEALS(wo, F_SEAL_WRITE));
	C(GET_SEALS(ro));
	C(wr(rw, "x"));
	int pa = F(fd_reopen(m, O_PATH));
	C(GET_SEALS(pa));
	C(ADD_SEALS(pa, 0));
	int dd = F(dup3(m, 100, O_CLOEXEC));
	C(dd);
	C(GET_SEALS(dd));
	cl(m);
	cl(rw);
	cl(wo);
	C(GET_SEALS(dd));
	C(ADD_SEALS(dd, F_SEAL_SEAL));
	C(GET_SEALS(ro));
	cl(pa);
	cl(ro);
	cl(dd);
	/* the argument is an unsigned int: the upper bits are not looked at */
	int t = F(memfd_create("t", MFD_ALLOW_SEALING));
	C(fcntl(t, F_ADD_SEALS, 0xffffffff00000001UL));
	C(GET_SEALS(t));
	int t2 = F(memfd_create("t2", MFD_ALLOW_SEALING));
	C(fcntl(t2, F_ADD_SEALS, 0x100000004UL));
	C(GET_SEALS(t2));
	C(fcntl(t2, F_ADD_SEALS, 0xffffffffUL));
	C(fcntl(t2, F_ADD_SEALS, 0x80000000UL));
	C(fcntl(t2, F_GET_SEALS, 12345));
	C(fcntl(t2, F_ADD_SEALS, 0x3f));
	C(GET_SEALS(t2));
	/* no name links a memfd */
	C(linkat(t2, "", AT_FDCWD, "/lnk", AT_EMPTY_PATH));
	C(linkat(t2, "", AT_FDCWD, "/d/lnk", AT_EMPTY_PATH));
	LS("/d");
	cl(t2);
	cl(t);
}

/* another process shares the memfd (fork's copy of the fd table): its
 * seals are the file's; its own memfds belong to its credentials */
static void memfd_procs(void)
{
	int m = F(memfd_create("shared", MFD_ALLOW_SEALING));
	C(wr(m, "abc"));
	int p1 = C(proc_clone(0));
	C(proc_use(p1));
	C(ADD_SEALS(m, F_SEAL_GROW));
	C(wr(m, "x"));
	C(pwrite(m, "X", 1, 0));
	C(setcred(1000, 1000));
	int u = F(memfd_create("u", 0));
	FSTAT(u);
	C(GET_SEALS(u));
	C(proc_use(0));
	C(GET_SEALS(m));
	C(wr(m, "x"));
	C(lseek(m, 0, SEEK_CUR));
	FCAT(m);
	FSTAT(m);
	C(proc_destroy(p1));
	C(ADD_SEALS(m, F_SEAL_SEAL));
	C(GET_SEALS(m));
	cl(m);
}

/* tmpfs files made by name have seals too, sealed (F_SEAL_SEAL) from the
 * start: what the fcntl answers on them (only on a tmpfs root) */
static void memfd_seals_path_file(void)
{
	C(mkfile("/f", "data"));
	int f = F(OPEN("/f", O_RDWR));
	C(GET_SEALS(f));
	C(ADD_SEALS(f, F_SEAL_WRITE));
	C(ADD_SEALS(f, 0));
	C(ADD_SEALS(f, 0x40));
	C(wr(f, "x"));
	int r = F(OPEN("/f", O_RDONLY));
	C(GET_SEALS(r));
	C(ADD_SEALS(r, 0x40));
	C(ADD_SEALS(r, F_SEAL_WRITE));
	int w = F(OPEN("/f", O_WRONLY));
	C(GET_SEALS(w));
	C(ADD_SEALS(w, 0));
	int ap = F(OPEN("/f", O_WRONLY | O_APPEND));
	C(GET_SEALS(ap));
	C(ADD_SEALS(ap, F_SEAL_GROW));
	cl(ap);
	cl(w);
	cl(r);
	cl(f);
	/* an O_TMPFILE file is the same */
	int t = F(OPEN("/", O_TMPFILE | O_RDWR));
	C(GET_SEALS(t));
	C(ADD_SEALS(t, F_SEAL_GROW));
	cl(t);
	/* a FIFO: not a regular file */
	C(MKNOD("/fifo", S_IFIFO | 0666, 0));
	int fi = F(OPEN("/fifo", O_RDWR | O_NONBLOCK));
	C(GET_SEALS(fi));
	C(ADD_SEALS(fi, F_SEAL_SEAL));
	cl(fi);
	/* a tmpfs mounted below */
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/g", "g"));
	int g = F(OPEN("/m/g", O_RDWR));
	C(GET_SEALS(g));
	C(ADD_SEALS(g, F_SEAL_SEAL));
	cl(g);
	C(umount2("/m", 0));
	LS("/");
}

/* Every call that takes an fd and acts on its file, on the pseudo files
 * (no name, no mount in uvfs): an inotify and an epoll instance (Linux's
 * anon_inodefs), both ends of a pipe (pipefs) and a memfd (an internal
 * tmpfs).  uvfs crashed on fstatfs of the first two (their superblock had
 * no statfs) and gave a pipe's f_frsize and f_flags as 0. */
static void pseudo_fd_calls(void)
{
	int p[2] = { -1, -1 };
	C(pipe2(p, 0));
	int fds[5] = { F(B->inotify_init1(BX, 0)), F(B->epoll_create1(BX, 0)), p[0], p[1],
		       F(memfd_create("m", MFD_ALLOW_SEALING)) };
	for (int i = 0; i < 5; i++) {
		int fd = fds[i];
		struct statfs s;
		memset(&s, 0, sizeof s);
		C(fstatfs(fd, &s));
		C(s.f_type);
		C(s.f_bsize);
		C(s.f_frsize);
		C(s.f_namelen);
		C(s.f_flags);
		C(s.f_blocks);
		C(s.f_files);
		C(fsync(fd));
		C(B->syncfs(BX, fd));
		C(B->fadvise(BX, fd, 0, 0, POSIX_FADV_DONTNEED));
		C(B->readahead(BX, fd, 0, 10));
		C(fallocate(fd, 0, 0, 10));
		C(ftruncate(fd, 0));
		C(faccessat(fd, "", W_OK, AT_EMPTY_PATH));
		C(utimensat(fd, "", NULL, AT_EMPTY_PATH));
		C(B->fsetxattr(BX, fd, "user.a", "1", 1, 0));
		C(linkat(fd, "", AT_FDCWD, "/l", AT_EMPTY_PATH));
		C(fchmod(fd, 0640));
		C(fchown(fd, 1, 2));
		C(fchmod(fd, 0600));
		struct stat st;
		C(fstatat(fd, "", &st, AT_EMPTY_PATH));
		C(st.st_mode);
		C(st.st_nlink);
		C(st.st_uid);
	}
	for (int i = 0; i < 5; i++)
		cl(fds[i]);
}

const struct scenario memfd_scenarios[] = {
	{ "pseudo_fd_calls", pseudo_fd_calls },
	{ "memfd_create_args", memfd_create_args },
	{ "memfd_plain_file", memfd_plain_file },
	{ "memfd_seals_sequence", memfd_seals_sequence },
	{ "memfd_seal_future_write", memfd_seal_future_write },
	{ "memfd_seal_grow_pages", memfd_seal_grow_pages },
	{ "memfd_seal_transfers", memfd_seal_transfers },
	{ "memfd_seal_exec", memfd_seal_exec },
	{ "memfd_seal_fd_kinds", memfd_seal_fd_kinds },
	{ "memfd_procs", memfd_procs, NEEDS_PROCS },
	{ "memfd_seals_path_file", memfd_seals_path_file },
	{ NULL, NULL },
};
