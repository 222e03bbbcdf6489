/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* files.c - open flags, read/write, offsets, truncation, fds. */
#include <sys/mman.h>
#include "conf.h"

static void open_creat_excl(void)
{
	int fd = F(OPEN("/a", O_CREAT | O_EXCL | O_WRONLY));
	C(close(fd));
	STAT("/a");
	F(OPEN("/a", O_CREAT | O_EXCL | O_WRONLY));
	fd = F(OPEN("/a", O_CREAT | O_WRONLY));
	cl(fd);
	fd = F(OPEN("/a", O_EXCL | O_RDONLY));
	cl(fd);
	C(SYMLINK("/target", "/dangling"));
	F(OPEN("/dangling", O_CREAT | O_EXCL | O_WRONLY));
	STAT("/target");
	fd = F(OPEN("/dangling", O_CREAT | O_WRONLY));
	cl(fd);
	STAT("/target");
	C(MKDIR("/d", 0755));
	F(OPEN("/d", O_CREAT | O_EXCL | O_WRONLY));
	F(OPEN("/d", O_CREAT | O_RDONLY));
	F(OPEN("/nodir/x", O_CREAT | O_WRONLY));
	LS("/");
}

static void open_creat_mode(void)
{
	int fd = F(openat(AT_FDCWD, "/m1", O_CREAT | O_WRONLY, 0777));
	cl(fd);
	STAT("/m1");
	fd = F(openat(AT_FDCWD, "/m2", O_CREAT | O_RDWR, 0));
	cl(fd);
	STAT("/m2");
	fd = F(openat(AT_FDCWD, "/m3", O_CREAT | O_RDWR, 07777));
	cl(fd);
	STAT("/m3");
	/* mode of an existing file is not changed by O_CREAT */
	fd = F(openat(AT_FDCWD, "/m2", O_CREAT | O_RDWR, 0777));
	cl(fd);
	STAT("/m2");
	/* a file created read-only can still be written through the creating fd */
	fd = F(openat(AT_FDCWD, "/m4", O_CREAT | O_RDWR, 0444));
	C(wr(fd, "abc"));
	cl(fd);
	CAT("/m4");
}

static void open_trunc(void)
{
	C(mkfile("/f", "hello"));
	int fd = F(OPEN("/f", O_WRONLY | O_TRUNC));
	SIZEOF("/f");
	cl(fd);
	C(mkfile("/f", "hello"));
	fd = F(OPEN("/f", O_RDONLY | O_TRUNC));
	SIZEOF("/f");
	cl(fd);
	C(mkfile("/g", "hello"));
	fd = F(OPEN("/g", O_RDWR));
	SIZEOF("/g");
	cl(fd);
	C(MKDIR("/d", 0755));
	F(OPEN("/d", O_RDONLY | O_TRUNC));
	F(OPEN("/d", O_WRONLY | O_TRUNC));
	C(mkfile("/h", "0123456789"));
	AGE("/h");
	fd = F(OPEN("/h", O_WRONLY | O_TRUNC));
	TS("/h");
	cl(fd);
	/* O_TRUNC on an empty file */
	C(mkfile("/e", ""));
	AGE("/e");
	fd = F(OPEN("/e", O_WRONLY | O_TRUNC));
	TS("/e");
	cl(fd);
}

static void open_append(void)
{
	C(mkfile("/f", "12345"));
	int fd = F(OPEN("/f", O_WRONLY | O_APPEND));
	C(lseek(fd, 0, SEEK_SET));
	C(wr(fd, "ab"));
	C(lseek(fd, 0, SEEK_CUR));
	CAT("/f");
	C(pwrite(fd, "XY", 2, 0));
	CAT("/f");
	C(lseek(fd, 0, SEEK_CUR));
	C(fcntl(fd, F_GETFL, 0) & (O_APPEND | O_ACCMODE));
	C(fcntl(fd, F_SETFL, 0));
	C(fcntl(fd, F_GETFL, 0) & (O_APPEND | O_ACCMODE));
	C(lseek(fd, 0, SEEK_SET));
	C(wr(fd, "Z"));
	CAT("/f");
	C(fcntl(fd, F_SETFL, O_APPEND));
	C(wr(fd, "!"));
	CAT("/f");
	cl(fd);
	/* O_APPEND | O_RDWR: reads from the offset, writes at the end */
	fd = F(OPEN("/f", O_RDWR | O_APPEND));
	char b[4] = { 0 };
	C(read(fd, b, 2));
	CS("read", b);
	C(wr(fd, "$"));
	C(read(fd, b, 2));
	CAT("/f");
	cl(fd);
}

static void open_directory_flag(void)
{
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	F(OPEN("/f", O_RDONLY | O_DIRECTORY));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	cl(fd);
	F(OPEN("/d", O_WRONLY));
	F(OPEN("/d", O_RDWR));
	F(OPEN("/d", O_WRONLY | O_DIRECTORY));
	/* O_CREAT | O_DIRECTORY is EINVAL since Linux 6.4 */
	F_SINCE(6, 4, OPEN("/new", O_CREAT | O_DIRECTORY | O_RDONLY));
	F_SINCE(6, 4, OPEN("/d", O_CREAT | O_DIRECTORY | O_RDONLY));
	STAT_SINCE(6, 4, "/new");
	F(OPEN("/missing", O_RDONLY | O_DIRECTORY));
	C(SYMLINK("d", "/ld"));
	C(SYMLINK("f", "/lf"));
	fd = F(OPEN("/ld", O_RDONLY | O_DIRECTORY));
	cl(fd);
	F(OPEN("/lf", O_RDONLY | O_DIRECTORY));
	F(OPEN("/ld", O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
	fd = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	cl(fd);
	fd = F(OPEN("/d", O_RDONLY));
	cl(fd);
}

static void open_nofollow(void)
{
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/g", "gg"));
	C(SYMLINK("f", "/l"));
	C(SYMLINK("d", "/ld"));
	F(OPEN("/l", O_RDONLY | O_NOFOLLOW));
	F(OPEN("/l", O_WRONLY | O_NOFOLLOW | O_CREAT));
	int fd = F(OPEN("/ld/g", O_RDONLY | O_NOFOLLOW));
	cl(fd);
	fd = F(OPEN("/l", O_PATH | O_NOFOLLOW));
	FSTAT(fd);
	char b[32];
	C(readlinkat(fd, "", b, sizeof b));
	C(fcntl(fd, F_GETFL, 0) & (O_PATH | O_NOFOLLOW | O_ACCMODE));
	cl(fd);
	fd = F(OPEN("/f", O_RDONLY | O_NOFOLLOW));
	cl(fd);
	F(OPEN("/ld", O_RDONLY | O_NOFOLLOW | O_DIRECTORY));
}

static void open_path(void)
{
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/g", "gg"));
	int fd = F(OPEN("/f", O_PATH));
	char b[8];
	struct stat st;
	struct statfs sf;
	C(read(fd, b, 4));
	C(write(fd, "x", 1));
	C(pread(fd, b, 4, 0));
	C(lseek(fd, 0, SEEK_SET));
	C(ftruncate(fd, 0));
	C(fsync(fd));
	C(fchmod(fd, 0600));
	C(fchown(fd, 0, 0));
	C(fstat(fd, &st));
	C(fstatfs(fd, &sf));
	C(fcntl(fd, F_GETFL, 0) & (O_PATH | O_ACCMODE));
	C(fcntl(fd, F_GETFD, 0));
	int d = F(dup(fd));
	C(close(d));
	C(utimensat(fd, NULL, T_OLD, 0));
	C(utimensat(fd, "", T_OLD, AT_EMPTY_PATH));
	C(fchmodat(fd, "", 0600, AT_EMPTY_PATH));
	C(fchownat(fd, "", 0, 0, AT_EMPTY_PATH));
	C(faccessat(fd, "", R_OK, AT_EMPTY_PATH));
	C(fstatat(fd, "", &st, AT_EMPTY_PATH));
	STAT("/f");
	C(close(fd));
	/* a directory O_PATH fd works as dirfd and for fchdir, not getdents */
	int dfd = F(OPEN("/d", O_PATH | O_DIRECTORY));
	char db[512];
	C(getdents64(dfd, db, sizeof db));
	fd = F(openat(dfd, "g", O_RDONLY, 0));
	C(read(fd, b, 2));
	cl(fd);
	C(fchdir(dfd));
	char cwd[64];
	C(getcwd(cwd, sizeof cwd));
	CS("cwd", cwd);
	/* O_PATH ignores other flags except O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC */
	fd = F(OPEN("/f", O_PATH | O_WRONLY | O_TRUNC));
	cl(fd);
	SIZEOF("/f");
	fd = F(OPEN("/f", O_PATH | O_CLOEXEC));
	C(fcntl(fd, F_GETFD, 0));
	cl(fd);
	F(OPEN("/f", O_PATH | O_DIRECTORY));
	F(OPEN("/missing", O_PATH));
	C(close(dfd));
}

static void open_cloexec(void)
{
	C(mkfile("/f", "x"));
	int a = F(OPEN("/f", O_RDONLY | O_CLOEXEC));
	int b = F(OPEN("/f", O_RDONLY));
	C(fcntl(a, F_GETFD, 0));
	C(fcntl(b, F_GETFD, 0));
	C(fcntl(b, F_SETFD, FD_CLOEXEC));
	C(fcntl(b, F_GETFD, 0));
	C(fcntl(a, F_SETFD, 0));
	C(fcntl(a, F_GETFD, 0));
	/* O_CLOEXEC is not a file status flag */
	C(fcntl(a, F_GETFL, 0) & O_CLOEXEC);
	int c = F(dup(b));
	C(fcntl(c, F_GETFD, 0));
	cl(a);
	cl(b);
	cl(c);
}

static void open_tmpfile(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/f", "x"));
	int fd = F(OPEN("/d", O_TMPFILE | O_RDWR));
	FSTAT(fd);
	LS("/d");
	C(wr(fd, "temp data"));
	FSTAT(fd);
	C(linkat(fd, "", AT_FDCWD, "/d/named", AT_EMPTY_PATH));
	STAT("/d/named");
	CAT("/d/named");
	FSTAT(fd);
	LS("/d");
	C(linkat(fd, "", AT_FDCWD, "/d/named", AT_EMPTY_PATH));
	cl(fd);
	fd = F(OPEN("/d", O_TMPFILE | O_RDWR | O_EXCL));
	C(linkat(fd, "", AT_FDCWD, "/d/other", AT_EMPTY_PATH));
	cl(fd);
	F(OPEN("/d", O_TMPFILE | O_RDONLY));
	F(OPEN("/f", O_TMPFILE | O_RDWR));
	F(OPEN("/nope", O_TMPFILE | O_RDWR));
	fd = F(openat(AT_FDCWD, "/d", O_TMPFILE | O_WRONLY, 0600));
	FSTAT(fd);
	cl(fd);
	/* link of a normal unlinked file is refused */
	C(mkfile("/u", "u"));
	fd = F(OPEN("/u", O_RDWR));
	C(UNLINK("/u"));
	C(linkat(fd, "", AT_FDCWD, "/u2", AT_EMPTY_PATH));
	cl(fd);
	LS("/");
}

static void open_errors(void)
{
	C(mkfile("/f", "x"));
	F(OPEN("/missing", O_RDONLY));
	F(OPEN("/missing/x", O_RDONLY));
	F(OPEN("/missing/x", O_CREAT | O_RDONLY));
	F(OPEN("/f/x", O_RDONLY));
	F(OPEN("/f/x", O_CREAT | O_RDONLY));
	F(OPEN("", O_RDONLY));
	F(OPEN("", O_CREAT | O_RDONLY));
	F(openat(-1, "f", O_RDONLY, 0));
	F(openat(99, "f", O_RDONLY, 0));
	int fd = F(OPEN("/f", O_RDONLY));
	F(openat(fd, "x", O_RDONLY, 0));
	F(openat(fd, "/f", O_RDONLY, 0));
	F(openat(-1, "/f", O_RDONLY, 0));
	cl(fd);
	fd = F(OPEN("/f", O_RDONLY | O_NONBLOCK | O_SYNC | O_DSYNC));
	C(fcntl(fd, F_GETFL, 0) & (O_NONBLOCK | O_ACCMODE));
	cl(fd);
	/* unknown flag bits are ignored by open(2) */
	fd = F(OPEN("/f", O_RDONLY | 0x40000000));
	cl(fd);
}

static void read_write_basic(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "hello world"));
	C(lseek(fd, 0, SEEK_CUR));
	SIZEOF("/f");
	char b[64] = { 0 };
	C(read(fd, b, sizeof b));
	C(lseek(fd, 0, SEEK_SET));
	C(read(fd, b, 5));
	CS("read 5", b);
	C(read(fd, b, 0));
	C(write(fd, "", 0));
	C(lseek(fd, 0, SEEK_CUR));
	C(read(fd, b, sizeof b));
	C(read(fd, b, sizeof b));
	C(lseek(fd, 20, SEEK_SET));
	C(wr(fd, "end"));
	SIZEOF("/f");
	CAT("/f");
	BLOCKSOF("/f");
	cl(fd);
}

static void rw_bad_fds(void)
{
	C(mkfile("/f", "data"));
	C(MKDIR("/d", 0755));
	char b[16];
	C(read(-1, b, 1));
	C(read(55, b, 1));
	C(write(-1, "x", 1));
	C(write(1000, "x", 1));
	int r = F(OPEN("/f", O_RDONLY));
	int w = F(OPEN("/f", O_WRONLY));
	C(write(r, "x", 1));
	C(read(w, b, 1));
	C(pwrite(r, "x", 1, 0));
	C(pread(w, b, 1, 0));
	C(ftruncate(r, 0));
	struct iovec v = { b, 1 };
	C(writev(r, &v, 1));
	C(readv(w, &v, 1));
	int d = F(OPEN("/d", O_RDONLY));
	C(read(d, b, 1));
	C(pread(d, b, 1, 0));
	C(write(d, "x", 1));
	C(ftruncate(d, 0));
	C(close(r));
	C(close(r));
	C(read(r, b, 1));
	C(close(-1));
	C(close(1 << 20));
	C(lseek(-1, 0, SEEK_SET));
	C(fsync(-1));
	C(dup(-1));
	C(fstat(-1, (struct stat *)b));
	C(fchmod(-1, 0644));
	C(fchown(-1, 0, 0));
	C(fchdir(-1));
	C(getdents64(-1, b, sizeof b));
	cl(w);
	cl(d);
	CAT("/f");
}

static void pread_pwrite(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(pwrite(fd, "abcdef", 6, 0));
	C(lseek(fd, 0, SEEK_CUR));
	char b[16] = { 0 };
	C(pread(fd, b, 3, 2));
	CS("pread", b);
	C(lseek(fd, 0, SEEK_CUR));
	C(pread(fd, b, 3, -1));
	C(pwrite(fd, "x", 1, -1));
	C(pread(fd, b, 3, 100));
	C(pread(fd, b, 10, 4));
	C(pwrite(fd, "zz", 2, 10));
	SIZEOF("/f");
	CAT("/f");
	C(pwrite(fd, "", 0, 1000));
	SIZEOF("/f");
	C(pread(fd, b, 0, 0));
	C(pwrite(fd, "q", 1, LLONG_MAX));
	C(pwrite(fd, "q", 1, LLONG_MAX - 1));
	SIZEOF("/f");
	cl(fd);
}

static void readv_writev(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	struct iovec w[3] = { { "abc", 3 }, { "", 0 }, { "defgh", 5 } };
	C(writev(fd, w, 3));
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, 1, SEEK_SET));
	char a[4] = { 0 }, b[8] = { 0 };
	struct iovec r[2] = { { a, 3 }, { b, 7 } };
	C(readv(fd, r, 2));
	CS("iov0", a);
	CS("iov1", b);
	C(readv(fd, r, 2));
	C(writev(fd, w, 0));
	C(writev(fd, w, -1));
	C(readv(fd, r, -1));
	static struct iovec many[1025];
	for (int i = 0; i < 1025; i++)
		many[i] = (struct iovec){ "x", 1 };
	C(writev(fd, many, 1025));
	C(writev(fd, many, 1024));
	SIZEOF("/f");
	cl(fd);
}

static void lseek_whence(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(wr(fd, "0123456789"));
	C(lseek(fd, 3, SEEK_SET));
	C(lseek(fd, 2, SEEK_CUR));
	C(lseek(fd, -1, SEEK_CUR));
	C(lseek(fd, -3, SEEK_END));
	C(lseek(fd, 5, SEEK_END));
	C(lseek(fd, -20, SEEK_END));
	C(lseek(fd, -1, SEEK_SET));
	C(lseek(fd, 0, 99));
	C(lseek(fd, 0, SEEK_CUR));
	C(lseek(fd, LLONG_MAX, SEEK_SET));
	C(lseek(fd, 1, SEEK_CUR));
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, 0, SEEK_HOLE));
	C(lseek(fd, 10, SEEK_DATA));
	C(lseek(fd, 10, SEEK_HOLE));
	C(lseek(fd, 11, SEEK_HOLE));
	C(lseek(fd, -1, SEEK_DATA));
	cl(fd);
	C(MKDIR("/d", 0755));
	fd = F(OPEN("/d", O_RDONLY));
	C(lseek(fd, 0, SEEK_SET));
	C(lseek(fd, -1, SEEK_SET));
	cl(fd);
}

static void sparse_file(void)
{
	int fd = F(OPEN("/s", O_CREAT | O_RDWR));
	C(pwrite(fd, "end", 3, 1 << 20));
	SIZEOF("/s");
	BLOCKSOF("/s");
	char b[8192];
	memset(b, 'x', sizeof b);
	C(pread(fd, b, sizeof b, 4096));
	int zero = 1;
	for (size_t i = 0; i < sizeof b; i++)
		zero &= b[i] == 0;
	C(zero);
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, 0, SEEK_HOLE));
	C(lseek(fd, (1 << 20) + 3, SEEK_DATA));
	C(pwrite(fd, "mid", 3, 300000));
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, 300000, SEEK_HOLE));
	BLOCKSOF("/s");
	C(pread(fd, b, 6, 299998));
	CS("around mid", fmt("%d%d%c%c%c%d", b[0], b[1], b[2], b[3], b[4], b[5]));
	C(ftruncate(fd, 100));
	BLOCKSOF("/s");
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, 0, SEEK_HOLE));
	cl(fd);
}

static void ftruncate_grow_shrink(void)
{
	C(mkfile("/f", "abcdefgh"));
	int fd = F(OPEN("/f", O_RDWR));
	C(ftruncate(fd, 3));
	CAT("/f");
	C(ftruncate(fd, 6));
	CAT("/f");
	C(lseek(fd, 0, SEEK_CUR));
	C(ftruncate(fd, -1));
	C(ftruncate(fd, 0));
	SIZEOF("/f");
	C(lseek(fd, 5, SEEK_SET));
	C(wr(fd, "Z"));
	CAT("/f");
	AGE("/f");
	C(ftruncate(fd, 6));
	TS("/f");
	AGE("/f");
	C(ftruncate(fd, 100));
	TS("/f");
	cl(fd);
	fd = F(OPEN("/f", O_RDONLY));
	C(ftruncate(fd, 1));
	cl(fd);
	fd = F(OPEN("/f", O_WRONLY | O_APPEND));
	C(ftruncate(fd, 1));
	cl(fd);
	SIZEOF("/f");
}

static void truncate_path(void)
{
	C(mkfile("/f", "abcdefgh"));
	C(MKDIR("/d", 0755));
	C(SYMLINK("f", "/l"));
	C(truncate("/f", 4));
	CAT("/f");
	C(truncate("/l", 2));
	CAT("/f");
	C(truncate("/d", 0));
	C(truncate("/missing", 0));
	C(truncate("/f", -1));
	C(truncate("/f/", 0));
	C(truncate("", 0));
	C(truncate("/f", 10));
	CAT("/f");
	AGE("/f");
	C(truncate("/f", 1));
	TS("/f");
}

static void fsync_calls(void)
{
	C(mkfile("/f", "x"));
	C(MKDIR("/d", 0755));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fsync(fd));
	C(fdatasync(fd));
	cl(fd);
	fd = F(OPEN("/d", O_RDONLY));
	C(fsync(fd));
	C(fdatasync(fd));
	cl(fd);
	C(fsync(77));
	C(fdatasync(-1));
	fd = F(OPEN("/f", O_PATH));
	C(fsync(fd));
	C(fdatasync(fd));
	cl(fd);
}

static void dup_calls(void)
{
	C(mkfile("/f", "abcdef"));
	int a = F(OPEN("/f", O_RDONLY));
	int b = F(dup(a));
	C(b == a + 1);
	char x[4] = { 0 };
	C(read(a, x, 2));
	C(lseek(b, 0, SEEK_CUR));
	C(dup3(a, a, 0));
	C(dup2(a, a));
	C(dup2(-1, -1));
	C(dup2(77, 77));
	C(dup3(a, 10, 0));
	C(fcntl(10, F_GETFD, 0));
	C(dup3(a, 11, O_CLOEXEC));
	C(fcntl(11, F_GETFD, 0));
	C(dup3(a, 12, O_RDONLY | 0x4));
	C(dup3(a, -1, 0));
	C(dup3(-1, 13, 0));
	C(dup3(a, 2000, 0));
	C(dup2(a, 1 << 21));
	/* dup2 onto an open fd replaces it; the cloexec flag is cleared */
	C(fcntl(11, F_GETFD, 0));
	C(dup2(b, 11));
	C(fcntl(11, F_GETFD, 0));
	C(lseek(11, 0, SEEK_CUR));
	C(close(a));
	C(lseek(b, 0, SEEK_CUR));
	int c = F(dup(b));
	C(c == a);
	C(close(10));
	C(close(11));
	C(close(b));
	C(close(c));
	C(close(12));
}

static void fcntl_dupfd(void)
{
	C(mkfile("/f", "x"));
	int a = F(OPEN("/f", O_RDONLY));
	C(fcntl(a, F_DUPFD, 5));
	C(fcntl(a, F_DUPFD, 5));
	C(fcntl(a, F_DUPFD, 0) == a + 1);
	C(fcntl(a, F_DUPFD_CLOEXEC, 5));
	C(fcntl(7, F_GETFD, 0));
	C(fcntl(5, F_GETFD, 0));
	C(fcntl(a, F_DUPFD, 1024));
	C(fcntl(a, F_DUPFD, 1023));
	C(fcntl(a, F_DUPFD, (unsigned long)-1));
	C(fcntl(-1, F_DUPFD, 0));
	C(fcntl(a, 9999, 0));
	C(fcntl(a, F_SETFD, 0xff));
	C(fcntl(a, F_GETFD, 0));
	C(close(1023));
	C(close(5));
	C(fcntl(a, F_DUPFD, 4));
}

/* The kernel's O_LARGEFILE bit, which it sets on every open of a 64-bit
 * process and reports in F_GETFL (glibc's O_LARGEFILE is 0 on x86-64). */
#define KO_LARGEFILE 0100000

static void fcntl_setfl(void)
{
	C(mkfile("/f", "abc"));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	C(fcntl(fd, F_GETFL, 0) & KO_LARGEFILE);
	C(fcntl(fd, F_SETFL, O_RDWR | O_APPEND | O_NONBLOCK));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	C(write(fd, "x", 1));
	C(fcntl(fd, F_SETFL, O_NOATIME));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	C(fcntl(fd, F_SETFL, O_CREAT | O_EXCL | O_TRUNC | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	SIZEOF("/f");
	C(fcntl(fd, F_SETFL, 0));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	cl(fd);
	fd = F(OPEN("/f", O_RDWR | O_APPEND));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	cl(fd);
	fd = F(OPEN("/f", O_WRONLY | O_NONBLOCK));
	C(fcntl(fd, F_GETFL, 0) & ~KO_LARGEFILE);
	cl(fd);
}

static void close_lowest_fd(void)
{
	C(mkfile("/f", "x"));
	int a = F(OPEN("/f", O_RDONLY));
	int b = F(OPEN("/f", O_RDONLY));
	int c = F(OPEN("/f", O_RDONLY));
	C(a);
	C(b - a);
	C(c - b);
	C(close(b));
	int d = F(OPEN("/f", O_RDONLY));
	C(d == b);
	C(close(a));
	C(close(a));
	int e = F(dup(c));
	C(e == a);
	F(OPEN("/nope", O_RDONLY));
	int f = F(OPEN("/f", O_RDONLY));
	C(f - c);
	C(close(c));
	C(close(d));
	C(close(e));
	C(close(f));
}

static void close_range_calls(void)
{
	C(mkfile("/f", "x"));
	for (int i = 0; i < 8; i++)
		F(OPEN("/f", O_RDONLY));
	C(close_range(2, 4, 0));
	C(fcntl(1, F_GETFD, 0));
	C(fcntl(2, F_GETFD, 0));
	C(fcntl(4, F_GETFD, 0));
	C(fcntl(5, F_GETFD, 0));
	C(close_range(5, 6, CLOSE_RANGE_CLOEXEC));
	C(fcntl(5, F_GETFD, 0));
	C(fcntl(6, F_GETFD, 0));
	C(fcntl(7, F_GETFD, 0));
	C(close_range(4, 2, 0));
	C(close_range(0, 1, 0x80));
	C(close_range(100, 200, 0));
	C(close_range(0, 0, CLOSE_RANGE_UNSHARE));
	C(fcntl(0, F_GETFD, 0));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fd);
	C(close_range(1, ~0U, 0));
	C(fcntl(7, F_GETFD, 0));
	C(fcntl(0, F_GETFD, 0));
	fd = F(OPEN("/f", O_RDONLY));
	C(fd);
}

static void emfile_limit(void)
{
	C(mkfile("/f", "x"));
	C(set_nofile(4));
	for (int i = 0; i < 5; i++)
		F(OPEN("/f", O_RDONLY));
	C(dup(0));
	C(fcntl(0, F_DUPFD, 2));
	C(fcntl(0, F_DUPFD, 4));
	C(dup2(0, 4));
	C(dup3(0, 5, 0));
	C(close(2));
	C(dup(0));
	C(set_nofile(16));
	C(dup2(0, 10));
	int fd = F(OPEN("/f", O_RDONLY));
	C(fd);
}

static void unlinked_open_file(void)
{
	C(mkfile("/f", "content"));
	int fd = F(OPEN("/f", O_RDWR));
	C(UNLINK("/f"));
	FSTAT(fd);
	LS("/");
	C(lseek(fd, 0, SEEK_END));
	C(wr(fd, "+more"));
	FCAT(fd);
	C(ftruncate(fd, 3));
	FSTAT(fd);
	C(fchmod(fd, 0600));
	FSTAT(fd);
	int g = F(OPEN("/f", O_CREAT | O_RDWR));
	struct stat s1, s2;
	fstat(fd, &s1);
	fstat(g, &s2);
	C(s1.st_ino == s2.st_ino);
	FSTAT(g);
	cl(g);
	int d = F(dup(fd));
	cl(fd);
	FCAT(d);
	cl(d);
	/* an unlinked directory still open */
	C(MKDIR("/d", 0755));
	fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(RMDIR("/d"));
	FSTAT(fd);
	F(openat(fd, "x", O_CREAT | O_RDWR, 0644));
	C(mkdirat(fd, "sub", 0755));
	char b[256];
	C(getdents64(fd, b, sizeof b));
	cl(fd);
}

static void fd_reopen_calls(void)
{
	C(mkfile("/f", "data"));
	int p = F(OPEN("/f", O_PATH));
	int r = F(fd_reopen(p, O_RDONLY));
	char b[8] = { 0 };
	C(read(r, b, 4));
	CS("read", b);
	int w = F(fd_reopen(p, O_WRONLY | O_APPEND));
	C(wr(w, "!"));
	CAT("/f");
	C(lseek(r, 0, SEEK_CUR));
	cl(r);
	cl(w);
	F(fd_reopen(99, O_RDONLY));
	F(fd_reopen(p, O_RDONLY | O_DIRECTORY));
	w = F(fd_reopen(p, O_WRONLY | O_TRUNC));
	SIZEOF("/f");
	cl(w);
	C(CHMOD("/f", 0444));
	C(setcred(1000, 1000));
	F(fd_reopen(p, O_RDWR));
	r = F(fd_reopen(p, O_RDONLY));
	cl(r);
	C(setcred(0, 0));
	/* the file is unlinked: reopening still works */
	C(UNLINK("/f"));
	r = F(fd_reopen(p, O_RDONLY));
	FSTAT(r);
	cl(r);
	cl(p);
	C(MKDIR("/d", 0755));
	p = F(OPEN("/d", O_PATH));
	r = F(fd_reopen(p, O_RDONLY | O_DIRECTORY));
	F(fd_reopen(p, O_RDWR));
	cl(r);
	cl(p);
}

static void efault_null_paths(void)
{
	struct stat st;
	C(openat(AT_FDCWD, NULL, O_RDONLY, 0));
	C(mkdirat(AT_FDCWD, NULL, 0755));
	C(unlinkat(AT_FDCWD, NULL, 0));
	C(fstatat(AT_FDCWD, NULL, &st, 0));
	C(symlinkat(NULL, AT_FDCWD, "/l"));
	C(symlinkat("x", AT_FDCWD, NULL));
	char b[16];
	C(readlinkat(AT_FDCWD, NULL, b, sizeof b));
	C(renameat2(AT_FDCWD, NULL, AT_FDCWD, "/x", 0));
	C(linkat(AT_FDCWD, NULL, AT_FDCWD, "/x", 0));
	C(chdir(NULL));
	C(truncate(NULL, 0));
	C(faccessat(AT_FDCWD, NULL, F_OK, 0));
	C(fchmodat(AT_FDCWD, NULL, 0644, 0));
	C(fchownat(AT_FDCWD, NULL, 0, 0, 0));
	C(mknodat(AT_FDCWD, NULL, S_IFIFO | 0644, 0));
	C(utimensat(AT_FDCWD, NULL, NULL, 0));
	C(chroot(NULL));
	struct open_how how = { .flags = O_RDONLY };
	C(openat2(AT_FDCWD, NULL, &how, sizeof how));
	C(openat2(AT_FDCWD, "/", NULL, sizeof how));
	LS("/");
}

static void efault_null_buffers(void)
{
	C(mkfile("/f", "data"));
	C(SYMLINK("f", "/l"));
	int fd = F(OPEN("/f", O_RDWR));
	C(read(fd, NULL, 4));
	C(write(fd, NULL, 4));
	C(pread(fd, NULL, 4, 0));
	C(pwrite(fd, NULL, 4, 0));
	C(fstat(fd, NULL));
	C(fstatat(AT_FDCWD, "/f", NULL, 0));
	C(readlinkat(AT_FDCWD, "/l", NULL, 10));
	C(getcwd(NULL, 10));
	C(readv(fd, NULL, 1));
	C(writev(fd, NULL, 1));
	C(read(fd, NULL, 0));
	CAT("/f");
	cl(fd);
}


static void large_io(void)
{
	static char buf[300000], back[300000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = 'a' + (i * 7 + i / 4096) % 26;
	int fd = F(OPEN("/big", O_CREAT | O_RDWR));
	C(write(fd, buf, sizeof buf));
	SIZEOF("/big");
	BLOCKSOF("/big");
	C(pread(fd, back, sizeof back, 0));
	C(memcmp(buf, back, sizeof buf) == 0);
	/* reads and writes across page boundaries */
	C(pwrite(fd, "XYZ", 3, 4095));
	C(pread(fd, back, 5, 4094));
	CS("across 4096", fmt("%.5s", back));
	C(pread(fd, back, 10000, 295000));
	C(lseek(fd, 8190, SEEK_SET));
	struct iovec v[3] = { { back, 1 }, { back + 1, 4 }, { back + 5, 8000 } };
	C(readv(fd, v, 3));
	C(memcmp(back + 5, buf + 8195, 100) == 0);
	/* shrink into the middle of a page, grow again: the tail reads zeros */
	C(ftruncate(fd, 5000));
	C(ftruncate(fd, 12000));
	C(pread(fd, back, 12000, 0));
	int zeros = 1;
	for (int i = 5000; i < 12000; i++)
		zeros &= back[i] == 0;
	C(zeros);
	C(memcmp(back, buf, 4095) == 0);
	BLOCKSOF("/big");
	cl(fd);
}

static void rw_edge_cases(void)
{
	C(mkfile("/f", "abc"));
	C(MKDIR("/d", 0755));
	char b[8];
	int r = F(OPEN("/f", O_RDONLY));
	C(write(r, "", 0));
	C(write(r, NULL, 0));
	int w = F(OPEN("/f", O_WRONLY));
	C(read(w, b, 0));
	cl(w);
	int d = F(OPEN("/d", O_RDONLY));
	C(read(d, b, 0));
	C(lseek(d, 0, SEEK_END));
	C(lseek(d, 0, SEEK_DATA));
	C(lseek(d, 5, SEEK_CUR));
	C(fcntl(d, F_GETFL, 0) & O_ACCMODE);
	cl(d);
	/* a read past a far lseek returns 0 and moves nothing */
	C(lseek(r, 1 << 30, SEEK_SET));
	C(read(r, b, sizeof b));
	C(lseek(r, 0, SEEK_CUR));
	cl(r);
	/* the offset is shared between dup'd fds and separate between opens */
	int a = F(OPEN("/f", O_RDONLY));
	int c = F(OPEN("/f", O_RDONLY));
	int a2 = F(dup(a));
	C(read(a, b, 1));
	C(lseek(a2, 0, SEEK_CUR));
	C(lseek(c, 0, SEEK_CUR));
	cl(a);
	C(read(a2, b, 2));
	CS("a2 read", fmt("%.2s", b));
	cl(a2);
	cl(c);
	/* O_PATH fds: which fcntl commands work */
	int p = F(OPEN("/f", O_PATH));
	C(fcntl(p, F_SETFL, O_APPEND));
	C(fcntl(p, F_GETFL, 0) & (O_PATH | O_APPEND));
	C(fcntl(p, F_SETFD, FD_CLOEXEC));
	C(fcntl(p, F_DUPFD, 10));
	C(fcntl(10, F_GETFD, 0));
	C(close(10));
	C(openat(p, "x", O_RDONLY, 0));
	C(linkat(p, "", AT_FDCWD, "/viapath", AT_EMPTY_PATH));
	STAT("/viapath");
	cl(p);
	p = F(OPEN("/d", O_PATH));
	C(linkat(p, "", AT_FDCWD, "/dlink", AT_EMPTY_PATH));
	cl(p);
}

static void fifo_io(void)
{
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	char b[16] = { 0 };
	C(read(r, b, sizeof b));
	int w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(wr(w, "hello"));
	C(read(r, b, sizeof b));
	CS("fifo data", b);
	C(read(r, b, sizeof b));
	C(lseek(r, 0, SEEK_SET));
	C(pread(r, b, 1, 0));
	C(ftruncate(w, 0));
	FSTAT(r);
	cl(w);
	C(read(r, b, sizeof b));
	cl(r);
	int rw = F(OPEN("/p", O_RDWR));
	C(wr(rw, "xy"));
	memset(b, 0, sizeof b);
	C(read(rw, b, sizeof b));
	CS("fifo rdwr", b);
	cl(rw);
	STAT("/p");
}

/* linkat(AT_EMPTY_PATH) without CAP_DAC_READ_SEARCH: allowed since Linux
 * 6.10 when the fd was opened with the caller's credentials, ENOENT before. */
static void tmpfile_user(void)
{
	C(MKDIR("/d", 0777));
	C(CHMOD("/d", 0777));
	C(setcred(1000, 1000));
	int fd = F(OPEN("/d", O_TMPFILE | O_RDWR));
	FSTAT(fd);
	C_SINCE(6, 10, linkat(fd, "", AT_FDCWD, "/d/t", AT_EMPTY_PATH));
	C(fchmod(fd, 0600));
	FSTAT_SINCE(6, 10, fd);
	cl(fd);
	fd = F(OPEN("/d/x", O_CREAT | O_RDWR));
	C_SINCE(6, 10, linkat(fd, "", AT_FDCWD, "/d/y", AT_EMPTY_PATH));
	cl(fd);
	/* an fd opened by root does not qualify */
	C(setcred(0, 0));
	fd = F(OPEN("/d/x", O_RDONLY));
	C(setcred(1000, 1000));
	C(linkat(fd, "", AT_FDCWD, "/d/z", AT_EMPTY_PATH));
	cl(fd);
	C(setcred(0, 0));
	LS_SINCE(6, 10, "/d");
}

/* Absurd sizes and flags: the checks Linux makes on the arguments. */
static void bad_arguments(void)
{
	C(mkfile("/f", "data"));
	C(SYMLINK("f", "/l"));
	char b[16];
	C(readlinkat(AT_FDCWD, "/l", b, (size_t)-1));
	C(readlinkat(AT_FDCWD, "/l", b, (size_t)1 << 31));
	C(readlinkat(AT_FDCWD, "/l", b, ((size_t)1 << 32) + 4));
	F(OPEN("/f", O_RDONLY | (O_TMPFILE & ~O_DIRECTORY)));
	F(OPEN("/", O_RDWR | (O_TMPFILE & ~O_DIRECTORY)));
	F(OPEN("/", O_TMPFILE | O_RDWR | O_CREAT));
	int fd = F(openat(AT_FDCWD, "/g", O_CREAT | O_RDWR, 0777 | 0170000));
	cl(fd);
	STAT("/g");
	fd = F(OPEN("/f", O_RDWR));
	C(lseek(fd, 0, SEEK_HOLE + 1));
	C(lseek(fd, 0, -1));
	/* every flag but O_DIRECT, which tmpfs accepts only on recent kernels */
	C(fcntl(fd, F_SETFL, ~0UL & ~(unsigned long)O_DIRECT));
	C(fcntl(fd, F_GETFL, 0) & ~0100000);
	C(fcntl(fd, F_DUPFD, 1UL << 32));
	C(ftruncate(fd, LLONG_MIN));
	C(ftruncate(fd, LLONG_MAX));
	SIZEOF("/f");
	C(ftruncate(fd, 4));
	C(pread(fd, b, 1, LLONG_MIN));
	C(dup3(fd, fd + 1, ~0));
	C(dup2(fd, -5));
	C(close_range(~0U, ~0U, 0));
	C(close_range(0, ~0U, ~0U));
	cl(fd);
	C(getcwd(b, (size_t)-1));
	C(utimensat(AT_FDCWD, "/f", T_OLD, ~0));
	C(faccessat(AT_FDCWD, "/f", ~0, 0));
	C(mount("tmpfs", "/", NULL, 0, NULL));
	C(mount(NULL, NULL, NULL, 0, NULL));
	C(umount2(NULL, 0));
	C(mkdirat(AT_FDCWD, "/m", ~0U));
	STAT("/m");
	C(mknodat(AT_FDCWD, "/p", S_IFIFO | 0644, ~0UL));
	STAT("/p");
}

/* A path that fills a page with no NUL before an unreadable page: Linux
 * stops at PATH_MAX without reading past it. */
static void unterminated_path(void)
{
	C(mkfile("/f", "x"));
	long pg = 4096;
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	mprotect(m + pg, pg, PROT_NONE);
	memset(m, 'a', pg);
	struct stat st;
	C(openat(AT_FDCWD, m, O_RDONLY, 0));
	C(fstatat(AT_FDCWD, m, &st, 0));
	C(mkdirat(AT_FDCWD, m, 0755));
	C(SYMLINK(m, "/l"));
	C(chdir(m));
	LS("/");
}

/* ---- processes: fd tables copied by fork, shared by threads ---- */
#define CLONE_FILES_F 0x1	/* UVFS_CLONE_FILES */
#define CLONE_FS_F 0x2		/* UVFS_CLONE_FS */

static void fork_fd_table(void)
{
	C(mkfile("/f", "abcdef"));
	char b[8] = { 0 };
	int a = F(OPEN("/f", O_RDONLY));
	int k = C(proc_clone(0));
	C(proc_use(k));
	C(read(a, b, 2));
	C(close(a));
	C(fcntl(a, F_GETFD, 0));
	int x = F(OPEN("/f", O_RDONLY));
	C(x == a);
	C(read(x, b, 1));
	C(proc_use(0));
	/* the open file description is shared: the child's read moved our offset */
	C(lseek(a, 0, SEEK_CUR));
	C(fcntl(a, F_GETFD, 0));
	int y = F(OPEN("/f", O_RDONLY));
	C(y - a);
	C(proc_destroy(k));
	C(proc_use(k));
	C(lseek(a, 0, SEEK_CUR));
	/* fd flags are copied */
	C(fcntl(a, F_SETFD, FD_CLOEXEC));
	k = C(proc_clone(0));
	C(proc_use(k));
	C(fcntl(a, F_GETFD, 0));
	C(fcntl(y, F_GETFD, 0));
	C(fcntl(a, F_SETFD, 0));
	C(proc_use(0));
	C(fcntl(a, F_GETFD, 0));
	/* status flags live in the shared description */
	C(proc_use(k));
	C(fcntl(y, F_SETFL, O_NONBLOCK));
	C(proc_use(0));
	C(fcntl(y, F_GETFL, 0) & O_NONBLOCK);
	C(proc_destroy(k));
	cl(a);
	cl(y);
}

static void thread_fd_table(void)
{
	C(mkfile("/f", "abcdef"));
	int a = F(OPEN("/f", O_RDONLY));
	int k = C(proc_clone(CLONE_FILES_F));
	C(proc_use(k));
	C(close(a));
	C(proc_use(0));
	C(fcntl(a, F_GETFD, 0));
	C(proc_use(k));
	int b = F(OPEN("/f", O_RDONLY));
	C(b == a);
	C(dup2(b, 5));
	C(proc_use(0));
	C(fcntl(b, F_GETFD, 0));
	C(fcntl(5, F_GETFD, 0));
	C(close(5));
	C(proc_use(k));
	C(fcntl(5, F_GETFD, 0));
	/* CLOSE_RANGE_UNSHARE: this proc gets its own table, the other keeps b */
	C(close_range(0, ~0U, CLOSE_RANGE_UNSHARE));
	C(fcntl(b, F_GETFD, 0));
	C(proc_use(0));
	C(fcntl(b, F_GETFD, 0));
	C(proc_use(k));
	int c = F(OPEN("/f", O_RDONLY));
	C(c);
	C(proc_use(0));
	int d = F(OPEN("/f", O_RDONLY));
	C(d - b);
	C(proc_destroy(k));
	C(fcntl(b, F_GETFD, 0));
	/* a thread ending leaves the shared table alone */
	k = C(proc_clone(CLONE_FILES_F));
	C(proc_use(k));
	int e = F(OPEN("/f", O_RDONLY));
	C(proc_use(0));
	C(proc_destroy(k));
	C(fcntl(e, F_GETFD, 0));
	cl(b);
	cl(d);
	cl(e);
}

/* A file only a destroyed proc had open is closed with it: an unlinked
 * file's inode is then freed, which a tmpfs with nr_inodes shows. */
static void proc_exit_closes_files(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, "nr_inodes=10"));
	C(mkfile("/m/u", "x"));
	struct statfs s;
	statfs("/m", &s);
	long free0 = s.f_ffree;
	int a = F(OPEN("/m/u", O_RDONLY));
	int k = C(proc_clone(0));
	C(close(a));
	C(UNLINK("/m/u"));
	statfs("/m", &s);
	C(s.f_ffree - free0);
	C(proc_use(k));
	FSTAT(a);
	C(proc_use(0));
	C(proc_destroy(k));
	statfs("/m", &s);
	C(s.f_ffree - free0);
	C(umount2("/m", 0));
	/* a busy mount: a fd held only by another proc keeps it busy */
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", "x"));
	a = F(OPEN("/m/f", O_RDONLY));
	k = C(proc_clone(0));
	C(close(a));
	C(umount2("/m", 0));
	C(proc_destroy(k));
	C(umount2("/m", 0));
}

static void fifo_semantics(void)
{
	static char big[100000];
	memset(big, 'p', sizeof big);
	C(MKNOD("/p", S_IFIFO | 0666, 0));
	int rw = F(OPEN("/p", O_RDWR | O_NONBLOCK));
	/* a pipe holds 64 KiB; then a non-blocking writer gets EAGAIN */
	C(write(rw, big, sizeof big));
	C(write(rw, "x", 1));
	char b[5000];
	C(read(rw, b, 1000));
	C(write(rw, big, 5000));
	C(write(rw, big, 100));
	C(read(rw, b, sizeof b));
	C(write(rw, big, 4096));
	FSTAT(rw);
	C(getdents64(rw, b, sizeof b));
	C(fsync(rw));
	cl(rw);
	/* after the last close the pipe is empty */
	int r = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	C(read(r, b, sizeof b));
	int w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(wr(w, "abc"));
	cl(w);
	C(read(r, b, 2));
	C(read(r, b, sizeof b));
	C(read(r, b, sizeof b));
	/* a writer without readers */
	w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	cl(r);
	C(wr(w, "lost"));
	struct iovec v = { "x", 1 };
	C(writev(w, &v, 1));
	cl(w);
	/* data written while a second reader is open reaches either one */
	int r1 = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	int r2 = F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	w = F(OPEN("/p", O_WRONLY | O_NONBLOCK));
	C(wr(w, "123456"));
	C(read(r1, b, 2));
	C(read(r2, b, 10));
	cl(r1);
	cl(r2);
	cl(w);
	/* timestamps: a write moves mtime and ctime, a read atime */
	rw = F(OPEN("/p", O_RDWR | O_NONBLOCK));
	AGE("/p");
	C(wr(rw, "t"));
	TS("/p");
	AGE("/p");
	C(read(rw, b, 1));
	TS("/p");
	cl(rw);
	STAT("/p");
	/* permissions apply to FIFOs as to files */
	C(CHMOD("/p", 0600));
	C(setcred(1000, 1000));
	F(OPEN("/p", O_RDONLY | O_NONBLOCK));
	C(setcred(0, 0));
}

/* The lowest free fd across bitmap word boundaries (63/64, 127/128...). */
static void fd_allocation_words(void)
{
	C(mkfile("/f", "x"));
	int n = 0;
	for (int i = 0; i < 200; i++)
		n += OPEN("/f", O_RDONLY) == i;
	C(n);
	C(close(63));
	C(close(64));
	C(close(128));
	C(close(127));
	C(close(199));
	C(F(OPEN("/f", O_RDONLY)) >= 0 ? fcntl(63, F_GETFD, 0) : -1);
	C(OPEN("/f", O_RDONLY));
	C(OPEN("/f", O_RDONLY));
	C(OPEN("/f", O_RDONLY));
	C(OPEN("/f", O_RDONLY));
	C(OPEN("/f", O_RDONLY));
	C(dup2(0, 700));
	C(OPEN("/f", O_RDONLY));
	C(fcntl(0, F_DUPFD, 130));
	C(fcntl(0, F_DUPFD, 699));
	C(fcntl(0, F_DUPFD, 700));
	C(close_range(60, 135, 0));
	C(OPEN("/f", O_RDONLY));
	C(fcntl(0, F_DUPFD, 100));
	C(close_range(64, 64, 0));
	C(dup(0));
	C(set_nofile(205));
	C(close_range(0, 63, 0));
	C(fcntl(5, F_DUPFD, 0));
	int got = 0;
	for (int i = 0; i < 200; i++)
		if (OPEN("/f", O_RDONLY) >= 0)
			got++;
	C(got);
	C(OPEN("/f", O_RDONLY));
	C(dup2(0, 204));
	C(dup2(0, 205));
	C(fcntl(0, F_DUPFD, 204));
	C(close_range(0, ~0U, 0));
	C(OPEN("/f", O_RDONLY));
	/* a grown table keeps working after a shrink of the limit */
	C(set_nofile(1024));
	C(dup2(0, 1000));
	C(set_nofile(10));
	C(fcntl(1000, F_GETFD, 0));
	C(dup(1000));
	C(close(1000));
	C(dup2(0, 9));
	C(dup2(0, 10));
}

/* Reading a big directory in small pieces while removing what was read. */
static void getdents_large_dir(void)
{
	C(MKDIR("/d", 0755));
	int made = 0;
	for (int i = 0; i < 500; i++)
		made += mkfile(fmt("/d/entry-%04d", i), "") == 0;
	C(made);
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	static char seen[500];
	memset(seen, 0, sizeof seen);
	int dots = 0, dup = 0, other = 0, calls = 0;
	char buf[256];
	for (;;) {
		long r = getdents64(fd, buf, sizeof buf);
		if (r <= 0) {
			C(r);
			break;
		}
		calls++;
		for (long off = 0; off < r;) {
			struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
				(void *)(buf + off);
			int k;
			if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
				dots++;
			else if (sscanf(d->name, "entry-%d", &k) == 1 && k >= 0 && k < 500) {
				dup += seen[k];
				seen[k] = 1;
				unlinkat(fd, d->name, 0);
			} else
				other++;
			off += d->reclen;
		}
	}
	int all = 0;
	for (int i = 0; i < 500; i++)
		all += seen[i];
	C(dots);
	C(dup);
	C(other);
	C(all);
	C(calls > 50);
	cl(fd);
	LS("/d");
	SIZEOF("/d");
	C(RMDIR("/d"));
}

static void huge_offsets(void)
{
	int fd = F(OPEN("/f", O_CREAT | O_RDWR));
	C(pwrite(fd, "4G", 2, 1LL << 32));
	C(pwrite(fd, "1T", 2, 1LL << 40));
	SIZEOF("/f");
	BLOCKSOF("/f");
	char b[4] = { 0 };
	C(pread(fd, b, 2, (1LL << 32)));
	CS("at 4G", b);
	C(pread(fd, b, 2, (1LL << 36)));
	C(b[0] == 0 && b[1] == 0);
	C(lseek(fd, 0, SEEK_DATA));
	C(lseek(fd, (1LL << 32) + 2, SEEK_HOLE));
	C(lseek(fd, (1LL << 32) + 2, SEEK_DATA));
	C(ftruncate(fd, (1LL << 40) + 1));
	SIZEOF("/f");
	BLOCKSOF("/f");
	C(ftruncate(fd, 1LL << 32));
	BLOCKSOF("/f");
	cl(fd);
}

const struct scenario files_scenarios[] = {
	{ "open_creat_excl", open_creat_excl },
	{ "open_creat_mode", open_creat_mode },
	{ "open_trunc", open_trunc },
	{ "open_append", open_append },
	{ "open_directory_flag", open_directory_flag },
	{ "open_nofollow", open_nofollow },
	{ "open_path", open_path },
	{ "open_cloexec", open_cloexec },
	{ "open_tmpfile", open_tmpfile },
	{ "open_errors", open_errors },
	{ "read_write_basic", read_write_basic },
	{ "rw_bad_fds", rw_bad_fds },
	{ "pread_pwrite", pread_pwrite },
	{ "readv_writev", readv_writev },
	{ "lseek_whence", lseek_whence },
	{ "sparse_file", sparse_file },
	{ "ftruncate_grow_shrink", ftruncate_grow_shrink },
	{ "truncate_path", truncate_path },
	{ "fsync_calls", fsync_calls },
	{ "dup_calls", dup_calls },
	{ "fcntl_dupfd", fcntl_dupfd },
	{ "fcntl_setfl", fcntl_setfl },
	{ "close_lowest_fd", close_lowest_fd },
	{ "close_range_calls", close_range_calls },
	{ "emfile_limit", emfile_limit },
	{ "unlinked_open_file", unlinked_open_file },
	{ "fd_reopen_calls", fd_reopen_calls },
	{ "efault_null_paths", efault_null_paths },
	{ "efault_null_buffers", efault_null_buffers },
	{ "large_io", large_io },
	{ "rw_edge_cases", rw_edge_cases },
	{ "fifo_io", fifo_io },
	{ "tmpfile_user", tmpfile_user },
	{ "bad_arguments", bad_arguments },
	{ "unterminated_path", unterminated_path },
	{ "fifo_semantics", fifo_semantics },
	{ "fd_allocation_words", fd_allocation_words },
	{ "getdents_large_dir", getdents_large_dir },
	{ "huge_offsets", huge_offsets },
	{ "fork_fd_table", fork_fd_table, NEEDS_PROCS },
	{ "thread_fd_table", thread_fd_table, NEEDS_PROCS },
	{ "proc_exit_closes_files", proc_exit_closes_files, NEEDS_PROCS },
	{ NULL, NULL },
};
