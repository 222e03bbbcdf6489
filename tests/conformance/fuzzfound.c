/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzzfound.c - differences the sequence fuzzer (tests/fuzz) found, each
 * kept as the scenario it minimised the failing sequence to (s[] are its fd
 * slots), sometimes with a few checks more around it.
 */
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include "conf.h"
#include "events.h"
#include "fuzz.h"

/* fuzz -s 0x2 -i 4 and -i 8: chmod, chown and utimensat of a pipe or an
 * inotify fd crashed (pseudo files have no mount); Linux changes a pipe's
 * inode and refuses every change of the anon inode with EOPNOTSUPP. */
static void fz_setattr_pseudo(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK | O_DIRECT | O_CLOEXEC));
		s[7] = C(p[0]);
		s[5] = C(p[1]);
	}
	C(fchmod(1, 02755));
	FSTAT(s[7]);
	C(fchown(s[5], 1000, 2000));
	FSTAT(s[7]);
	C(utimensat(s[7], NULL, NULL, 0));
	C(utimensat(s[7], NULL, T_OLD, 0));
	C(fchownat(s[7], "", 0, 0, AT_EMPTY_PATH));
	s[1] = C(inotify_init1(IN_NONBLOCK));
	C(fchmod(s[1], 0755));
	C(fchown(s[1], 1000, 1000));
	C(fchown(s[1], -1, -1));
	C(fchownat(s[1], "", 0, 0, AT_EMPTY_PATH));
	C(utimensat(s[1], NULL, NULL, 0));
	C(utimensat(s[1], NULL, T_OLD, 0));
	FSTAT(s[1]);
	C(setcred(1000, 1000));
	C(fchmod(s[7], 0700));
	C(fchown(s[7], -1, -1));
	C(utimensat(s[7], NULL, NULL, 0));
	C(fchmod(s[1], 0700));
	C(fchown(s[1], -1, -1));
}

/* Beside fz_setattr_pseudo, not from the fuzzer (and not in perms.c: the
 * FUSE runner has no inotify or epoll).  The anon inode (inotify's, epoll's: root's, mode 0600) refuses every
 * change with EOPNOTSUPP, but "now" without write access is EACCES first:
 * Linux checks it in notify_change (may_setattr), before the filesystem's
 * ->setattr refuses; explicit times, mode and owner are the filesystem's
 * to check, and it refuses them without looking. */
static void setattr_anon_perms(void)
{
	int in = F(inotify_init1(0));
	int ep = F(B->epoll_create1(BX, 0));
	struct timespec now2[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	C(setcred(1000, 1000));
	C(utimensat(in, NULL, NULL, 0));
	C(utimensat(in, NULL, now2, 0));
	C(utimensat(in, NULL, T_OLD, 0));
	C(fchmod(in, 0644));
	C(fchown(in, 1000, 1000));
	C(fchown(in, -1, -1));
	C(utimensat(ep, NULL, NULL, 0));
	C(utimensat(ep, NULL, T_OLD, 0));
	C(fchmod(ep, 0644));
	C(setcred(0, 0));
	C(utimensat(in, NULL, NULL, 0));
	C(utimensat(ep, NULL, now2, 0));
	FSTAT(in);
	cl(in);
	cl(ep);
}

/* fuzz -s 0x2 -i 30 and -i 81: a recursive bind onto a place below the
 * source copied the new mount into itself until the stack overflowed. */
static void fz_rbind_below_source(void)
{
	C(mkdirat(AT_FDCWD, "/a", 0644));
	C(mount("a", "/a", NULL, MS_BIND | MS_REC, NULL));
	LS("/a");
	C(mkdirat(AT_FDCWD, "l", 02755));
	C(mount("tmpfs", "/l", "tmpfs", 0, NULL));
	C(mkdirat(AT_FDCWD, "/l/in", 0755));
	C(mount("/..", "/l", NULL, MS_BIND | MS_REC, NULL));
	LS("/l");
	LS("/l/l");
	LS("/l/l/in");
	C(umount2("/l", 0));
	LS("/l");
	C(umount2("/l", 0));
	C(umount2("/a", MNT_DETACH));
	LS("/");
}

/* fuzz -s 0x1 -i 6, -s 0x2 -i 1: mount by a non-root caller looked the
 * target up only after refusing (EPERM); Linux looks it up first, then
 * refuses, then looks the bind source up. */
static void fz_mount_lookup_before_eperm(void)
{
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(setcred(1000, 1000));
	C(mount("/.", "/" N255, NULL, MS_BIND | MS_REC, NULL));
	C(mount("/.", "/" N256, NULL, MS_BIND, NULL));
	C(mount("/nowhere", "/d", NULL, MS_BIND, NULL));
	C(mount("tmpfs", "b", "tmpfs", 0, "bogus=1"));
	C(mount("tmpfs", "/d", "nosuchfs", 0, NULL));
	C(mount(NULL, "b/b/", NULL, MS_REMOUNT, NULL));
	C(mount(NULL, "/d", NULL, MS_REMOUNT, NULL));
	C(mount("tmpfs", "", "tmpfs", 0, NULL));
}

/* fuzz -s 0x1 -i 5, -s 0x2 -i 5, 9, 32, 82: O_PATH drops O_CREAT, but
 * uvfs kept its mode and refused the open (EINVAL); O_TMPFILE refused
 * access mode 3, which includes writing on Linux; an O_PATH fd showed
 * O_LARGEFILE, which Linux adds before O_PATH drops it. */
static void fz_open_path_flags(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	s[5] = C(openat(5, "b", O_WRONLY | O_CREAT | O_APPEND | O_PATH, 0644));
	s[7] = C(openat(AT_FDCWD, "/b/y", O_SYNC | O_WRONLY | O_CREAT | O_NOCTTY | O_NOATIME | O_CLOEXEC | O_PATH, 0644));
	s[4] = C(openat(AT_FDCWD, "l", O_RDWR | O_CREAT | O_TRUNC | O_PATH, 0644));
	s[3] = C(openat(AT_FDCWD, "..", O_CREAT | O_EXCL | O_NOCTTY | O_DSYNC | O_PATH | 0x8000, 0644));
	C(fcntl(s[3], F_GETFL, 0));
	s[2] = C(openat(AT_FDCWD, "/", O_PATH | O_NOFOLLOW | O_DIRECTORY, 0));
	C(fcntl(s[2], F_GETFL, 0));
	s[6] = C(openat(AT_FDCWD, "/", O_TMPFILE | O_WRONLY | O_RDWR, 0644));
	C(fcntl(s[6], F_GETFL, 0));
	FSTAT(s[6]);
	C(write(s[6], "abc", 3));
	C(openat(AT_FDCWD, "/", O_TMPFILE | O_RDONLY, 0644));
	C(openat(s[5], "x/b", O_TMPFILE | O_WRONLY | O_RDWR | O_NOCTTY | O_DSYNC, 0644));
	C(openat(AT_FDCWD, "/../a", O_TMPFILE | O_SYNC | O_WRONLY | O_RDWR, 0644));
}

/* fuzz -s 0x2: O_CREAT | O_EXCL of "." or ".." is EEXIST on Linux (they
 * exist), EISDIR without O_EXCL; uvfs said EISDIR for both. */
static void fz_creat_excl_dots(void)
{
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(openat(AT_FDCWD, "/.", O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_NOFOLLOW | O_NOATIME | 0x8000, 0644));
	C(openat(AT_FDCWD, "/d/..", O_CREAT | O_EXCL, 0644));
	C(openat(AT_FDCWD, "/d/.", O_CREAT | O_RDWR, 0644));
	C(openat(AT_FDCWD, "/d/", O_CREAT | O_EXCL, 0644));
	C(openat(AT_FDCWD, "/d", O_CREAT | O_EXCL, 0644));
	C(openat(AT_FDCWD, "/d/", O_CREAT, 0644));
	C(openat(AT_FDCWD, "/nowhere/.", O_CREAT | O_EXCL, 0644));
	C(mkfile("/f", "x"));
	C(openat(AT_FDCWD, "/f/.", O_CREAT | O_EXCL, 0644));
	C(openat(AT_FDCWD, "/f/..", O_CREAT, 0644));
}

/* fuzz -s 0x1 -i 7: lseek with a bad whence on a pipe is EINVAL on Linux,
 * which checks whence before the file; uvfs said ESPIPE. */
static void fz_lseek_whence_first(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK | O_CLOEXEC));
		s[0] = C(p[0]);
		s[6] = C(p[1]);
	}
	C(lseek(s[6], 0, 5));
	C(lseek(s[0], -1, 5));
	C(lseek(s[0], 0, -1));
	C(lseek(s[0], 0, SEEK_DATA));
	C(lseek(s[0], 0, SEEK_CUR));
	s[1] = C(inotify_init1(IN_NONBLOCK));
	C(lseek(s[1], 0, 5));
	C(lseek(s[1], 0, SEEK_CUR));
	C(lseek(99, 0, 5));
}

/* fuzz -s 0x3: renameat2 looked at the new name ("" is ENOENT) before the
 * old walk (EBADF for a bad dirfd), and NOREPLACE onto "." or ".." was
 * EBUSY, where Linux says EEXIST (they exist) after the old name's EBUSY. */
static void fz_rename_order(void)
{
	C(mkfile("/a", "x"));
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(renameat2(99, "a", AT_FDCWD, "", 0));
	C(renameat2(99, "l", 99, "", 0));
	C(renameat2(AT_FDCWD, "a", 99, "", 0));
	C(renameat2(AT_FDCWD, "a", AT_FDCWD, "", RENAME_WHITEOUT));
	C(renameat2(AT_FDCWD, "", 99, "a", 0));
	C(renameat2(AT_FDCWD, N255, AT_FDCWD, "/.", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "/a", AT_FDCWD, "/d/..", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "/a", AT_FDCWD, "/d/..", 0));
	C(renameat2(AT_FDCWD, "/d/.", AT_FDCWD, "/d/..", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "/d/.", AT_FDCWD, "/b", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "/a", AT_FDCWD, "/", RENAME_NOREPLACE));
	LS("/");
}

/* fuzz -s 0x3: F_SETFL took O_DIRECT on anything; Linux refuses it where
 * the file cannot do direct I/O (a directory, the inotify anon inode), as
 * it refuses open(O_DIRECT) of a directory, and allows it on tmpfs files
 * and pipes. */
static void fz_odirect(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	C(mkdirat(AT_FDCWD, "/d", 0755));
	s[0] = C(openat(AT_FDCWD, "/f", O_RDWR | O_CREAT | O_DIRECT, 0644));
	C(fcntl(s[0], F_GETFL, 0));
	C(write(s[0], "abc", 3));
	C(openat(AT_FDCWD, "/d", O_RDONLY | O_DIRECT, 0));
	C(openat(AT_FDCWD, "/d", O_WRONLY | O_DIRECT, 0));
	s[1] = C(openat(AT_FDCWD, "/d", O_PATH | O_DIRECT, 0));
	C(fcntl(s[1], F_GETFL, 0));
	s[2] = C(openat(AT_FDCWD, "/d", O_RDONLY, 0));
	C(fcntl(s[2], F_SETFL, O_NONBLOCK | O_DIRECT));
	C(fcntl(s[2], F_GETFL, 0));
	C(fcntl(s[0], F_SETFL, O_NONBLOCK));
	C(fcntl(s[0], F_SETFL, O_DIRECT));
	C(fcntl(s[0], F_GETFL, 0));
	s[3] = C(inotify_init1(IN_NONBLOCK));
	C(fcntl(s[3], F_SETFL, O_NONBLOCK | O_DIRECT));
	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK));
		s[4] = C(p[0]);
		s[5] = C(p[1]);
	}
	C(fcntl(s[4], F_SETFL, O_NONBLOCK | O_DIRECT));
	C(fcntl(s[5], F_SETFL, O_NONBLOCK | O_DIRECT));
	C(fcntl(s[5], F_GETFL, 0));
	C(setcred(1000, 1000));
	C(fcntl(s[2], F_SETFL, O_DIRECT | O_NOATIME));
}

/* fuzz -s 0x3: a bind mount with an empty source is EINVAL on Linux
 * (do_loopback), not the walk's ENOENT. */
static void fz_bind_empty_source(void)
{
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mount("", "..", NULL, MS_BIND | MS_REC, NULL));
	C(mount("", "x", NULL, MS_BIND, NULL));
	C(mount(NULL, "x", NULL, MS_BIND, NULL));
	C(mount("", "/nowhere", NULL, MS_BIND, NULL));
	LS("/x");
}

/* fuzz -s 0x1234567 -i 1766: a write of 0 bytes by uid 1000 dropped the
 * setgid bit; Linux returns before file_remove_privs. */
static void fz_write_zero_keeps_sgid(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	s[0] = C(openat(AT_FDCWD, "a", O_RDWR | O_CREAT | O_DSYNC, 02755));
	s[1] = C(openat(AT_FDCWD, "b", O_RDWR | O_CREAT, 04755));
	C(setcred(1000, 1000));
	C(write(s[0], "", 0));
	FSTAT(s[0]);
	C(pwrite(s[1], "", 0, 5));
	FSTAT(s[1]);
	{
		struct iovec v = { (void *)"", 0 };
		C(writev(s[1], &v, 1));
	}
	FSTAT(s[1]);
	C(write(s[1], "x", 1));
	FSTAT(s[1]);
}

/* fuzz -s 0x1234567 -i 1908, 2510: O_CREAT | O_NOFOLLOW of uid 1000's
 * symlink in the root (01777, owned by 0) is EACCES on Linux, even for
 * root (may_create_in_sticky: a symlink is neither a regular file nor a
 * FIFO, which protected_regular/protected_fifos at 0 let through); uvfs
 * went on to ELOOP. */
static void fz_creat_sticky_symlink(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	C(mkdirat(AT_FDCWD, "/open", 0777));
	C(setcred(1000, 1000));
	C(symlinkat("..", AT_FDCWD, "./y"));
	C(symlinkat("..", AT_FDCWD, "/open/y"));
	C(mknodat(AT_FDCWD, "/sock", S_IFSOCK | 0644, 0));
	C(setcred(0, 0));
	s[7] = C(openat(s[4], "/y", O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644));
	C(openat(AT_FDCWD, "/y", O_RDONLY | O_CREAT | O_NOFOLLOW, 0644));
	C(openat(AT_FDCWD, "/y", O_RDONLY | O_NOFOLLOW, 0644));
	C(openat(AT_FDCWD, "/y", O_RDONLY | O_CREAT | O_EXCL, 0644));
	C(openat(AT_FDCWD, "/open/y", O_RDONLY | O_CREAT | O_NOFOLLOW, 0644));
	C(openat(AT_FDCWD, "/sock", O_RDONLY | O_CREAT, 0644));
	C(setcred(1000, 1000));
	C(openat(AT_FDCWD, "/y", O_RDONLY | O_CREAT | O_NOFOLLOW, 0644));
	C(openat(AT_FDCWD, "/sock", O_RDONLY | O_CREAT, 0644));
	C(setcred(2000, 2000));
	C(openat(AT_FDCWD, "/y", O_RDONLY | O_CREAT | O_NOFOLLOW, 0644));
	C(openat(AT_FDCWD, "/y", O_RDONLY | O_CREAT, 0644));
}

/* fuzz -s 0x7 -i 0: linkat(AT_FDCWD, "", ..., AT_EMPTY_PATH) by non-root
 * was ENOENT; Linux 6.10 checks the credentials of an fd only, the cwd goes
 * on to the new name's errors and to EPERM (a directory). */
static void fz_linkat_empty_cwd(void)
{
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mkfile("/a", "a"));
	C(setcred(1000, 1000));
	C(linkat(AT_FDCWD, "", 99, "b/l", AT_EMPTY_PATH));
	C(linkat(AT_FDCWD, "", AT_FDCWD, "/./x", AT_EMPTY_PATH));
	C(linkat(AT_FDCWD, "", AT_FDCWD, "/new", AT_EMPTY_PATH));
	C(linkat(99, "", AT_FDCWD, "/new", AT_EMPTY_PATH));
	C(chdir("/x"));
	C(linkat(AT_FDCWD, "", AT_FDCWD, "/new", AT_EMPTY_PATH));
	C(setcred(0, 0));
	C(linkat(AT_FDCWD, "", AT_FDCWD, "/new", AT_EMPTY_PATH));
	C(linkat(AT_FDCWD, "", 99, "/new", AT_EMPTY_PATH));
	LS("/");
}

/* fuzz -s 0x1234567 -i 8917: SEEK_DATA in a file truncated to 1 << 62
 * scanned every page index of the hole (the child was killed by its alarm);
 * Linux answers ENXIO at once. */
static void fz_seek_data_huge_hole(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	s[0] = C(openat(AT_FDCWD, "../a", O_WRONLY | O_CREAT, 0644));
	C(ftruncate(s[0], 1LL << 62));
	C(lseek(s[0], 10000, SEEK_DATA));
	C(lseek(s[0], 10000, SEEK_HOLE));
	C(pwrite(s[0], "abc", 3, 1LL << 40));
	C(pwrite(s[0], "abc", 3, 5000));
	C(lseek(s[0], 0, SEEK_DATA));
	C(lseek(s[0], 5000, SEEK_DATA));
	C(lseek(s[0], 8192, SEEK_DATA));
	C(lseek(s[0], (1LL << 40) + 4095, SEEK_DATA));
	C(lseek(s[0], (1LL << 40) + 4096, SEEK_DATA));
	C(lseek(s[0], 5000, SEEK_HOLE));
	C(lseek(s[0], 1LL << 40, SEEK_HOLE));
	C(lseek(s[0], (1LL << 62) - 1, SEEK_HOLE));
	C(lseek(s[0], 1LL << 62, SEEK_HOLE));
	C(ftruncate(s[0], 1LL << 41));
	C(lseek(s[0], 9000, SEEK_DATA));
}

/* fuzz -s 0x200 -l 200 -i 69: linkat(fd, "..", ..., AT_EMPTY_PATH) by
 * non-root from an fd root opened: Linux 6.10 checks the fd's credentials
 * for any walk that starts at it (ENOENT), not only for the empty name;
 * uvfs went on to ENOTDIR.  An absolute name does not start at the fd. */
static void fz_linkat_empty_path_relative(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(mkfile("/d/f", "f"));
	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK | O_CLOEXEC));
		s[6] = C(p[0]);
		s[4] = C(p[1]);
	}
	s[1] = C(openat(AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0));
	C(setcred(1000, 1000));
	C(linkat(s[6], "..", AT_FDCWD, "b", AT_EMPTY_PATH));
	C(linkat(s[1], "f", AT_FDCWD, "/b", AT_EMPTY_PATH));
	C(linkat(s[1], "f", AT_FDCWD, "/b", 0));
	C(linkat(s[1], "/d/f", AT_FDCWD, "/c", AT_EMPTY_PATH));
	C(linkat(s[1], "/d/f", AT_FDCWD, "/c", AT_EMPTY_PATH | AT_SYMLINK_FOLLOW));
	C(linkat(99, "f", AT_FDCWD, "/e", AT_EMPTY_PATH));
	LS("/");
}

/* fuzz -s 0xc0ffee -i 2629: a mount on "." or "/" (which a walk does not
 * cross) went beside the mount already there; Linux puts it on top of it,
 * so the lower mount's root (here /x, bound over the root) becomes a
 * mountpoint and cannot be renamed (EBUSY). */
static void fz_mount_on_top(void)
{
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mkfile("/x/in-x", "x"));
	C(mount("/x", "/..", NULL, MS_BIND | MS_REC, NULL));
	C(mount("/x/", ".", NULL, MS_RDONLY | MS_BIND, NULL));
	LS("/");
	C(renameat2(AT_FDCWD, "x", AT_FDCWD, "y", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "x", AT_FDCWD, "y", 0));
	C(mount("tmpfs", "/", "tmpfs", 0, NULL));
	LS("/");
	C(umount2("/x", 0));
	C(mkdirat(AT_FDCWD, "/m", 0755));
	C(mount("tmpfs", "/m", "tmpfs", 0, NULL));
	C(chdir("/m"));
	C(mount("tmpfs", ".", "tmpfs", 0, NULL));
	C(mkfile("/m/f", "f"));
	LS("/m");
	C(chdir("/"));
	C(umount2("/m", 0));
	LS("/m");
	C(umount2("/m", 0));
	LS("/m");
}

/* fuzz -s 0xfeed -i 2744: a read-only remount while a removed inode is
 * still held (a directory fd after rmdir, an unlinked open file, an
 * O_TMPFILE file) is EBUSY on Linux (s_remove_count); uvfs allowed it. */
static void fz_remount_ro_removed_held(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	C(mkdirat(AT_FDCWD, "y", 0755));
	s[0] = C(openat(AT_FDCWD, "y", O_APPEND | O_DIRECTORY | O_NOATIME, 0644));
	C(unlinkat(AT_FDCWD, "/y", AT_REMOVEDIR));
	C(mount(NULL, "..", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(close(s[0]));
	C(mkdirat(AT_FDCWD, "/m", 0755));
	C(mount("tmpfs", "/m", "tmpfs", 0, NULL));
	C(mkfile("/m/f", "f"));
	s[1] = C(openat(AT_FDCWD, "/m/f", O_RDONLY, 0));
	C(unlinkat(AT_FDCWD, "/m/f", 0));
	C(mount(NULL, "/m", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(close(s[1]));
	s[2] = C(openat(AT_FDCWD, "/m", O_TMPFILE | O_RDWR, 0600));
	C(mount(NULL, "/m", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(close(s[2]));
	C(mkdirat(AT_FDCWD, "/m/d", 0755));
	C(chdir("/m/d"));
	C(unlinkat(AT_FDCWD, "/m/d", AT_REMOVEDIR));
	C(mount(NULL, "/m", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(chdir("/"));
	C(mount(NULL, "/m", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(mkfile("/m/g", "g"));
	C(umount2("/m", 0));
}

/* fuzz -s 0xabcdef -i 1767: access(W_OK) on a read-only bind mount is
 * EROFS only after the permission check passed (Linux's do_faccessat),
 * and not for special files; uvfs said EROFS first. */
static void fz_access_rdonly_mount_order(void)
{
	C(mkdirat(AT_FDCWD, "/a", 0755));
	C(mkfile("/f", "f"));
	C(mknodat(AT_FDCWD, "/sock", S_IFSOCK | 0666, 0));
	C(mount(NULL, "/..", NULL, MS_RDONLY | MS_REMOUNT | MS_BIND, NULL));
	C(faccessat(AT_FDCWD, "/sock", W_OK, 0));
	C(faccessat(AT_FDCWD, "/f", W_OK, 0));
	C(setcred(1000, 1000));
	C(faccessat(AT_FDCWD, "a", R_OK | W_OK | X_OK, AT_SYMLINK_NOFOLLOW));
	C(faccessat(AT_FDCWD, "/f", W_OK, 0));
	C(faccessat(AT_FDCWD, "/", W_OK, 0));
	C(faccessat(AT_FDCWD, "/sock", W_OK, 0));
	C(faccessat(AT_FDCWD, "/f", R_OK, 0));
}

/* fuzz -s 0xabcdef -i 4530: a plain MS_REMOUNT sets the mount's flags as
 * well as the superblock's on Linux, so it makes a read-only bind remount
 * writable again; uvfs kept the mount read-only. */
static void fz_remount_resets_mount_flags(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	C(mount(NULL, "/.", NULL, MS_RDONLY | MS_REMOUNT | MS_BIND, NULL));
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(mount(NULL, ".", NULL, MS_REMOUNT, NULL));
	s[5] = C(openat(s[0], "/b", O_CREAT | O_TRUNC | O_NONBLOCK | O_DIRECT, 0644));
	C(mount(NULL, "/", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(close(s[5]));
	C(mount(NULL, "/", NULL, MS_RDONLY | MS_REMOUNT, NULL));
	C(mkdirat(AT_FDCWD, "/e", 0755));
	C(mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL));
	C(mkdirat(AT_FDCWD, "/e", 0755));
	C(mount(NULL, "/", NULL, MS_REMOUNT, NULL));
	C(mkdirat(AT_FDCWD, "/e", 0755));
	LS("/");
}

/* RENAME_WHITEOUT's whiteout is a new inode of the caller's, owned as any
 * inode it makes, not by the renamed file's owner; without the capability to
 * make devices the rename is refused. */
static void fz_whiteout_owner(void)
{
	C(mkdirat(AT_FDCWD, "y", 0755));
	C(mkdirat(AT_FDCWD, "b", 0755));
	C(fchownat(AT_FDCWD, "/y", 1000, 1000, AT_SYMLINK_NOFOLLOW));
	C(renameat2(AT_FDCWD, "/y", AT_FDCWD, "b/", RENAME_WHITEOUT));
	STAT("/y");
	C(setcred(1000, 1000));
	C(fchmodat(AT_FDCWD, "y", 04755, 0));
	C(setcred(0, 0));
	C(mkdirat(AT_FDCWD, "/g", 02777));
	C(fchownat(AT_FDCWD, "/g", 0, 4242, 0));
	C(mkfile("/g/f", "f"));
	C(renameat2(AT_FDCWD, "/g/f", AT_FDCWD, "/g/h", RENAME_WHITEOUT));
	STAT("/g/f");
	/* without the capability to make devices: refused */
	C(mkfile("/g/f2", "f"));
	C(setcred(1000, 1000));
	C(renameat2(AT_FDCWD, "/g/f2", AT_FDCWD, "/g/h2", RENAME_WHITEOUT));
	C(setcred(0, 0));
}

/* O_DIRECT on a directory fails after the open (Linux's FMODE_CAN_ODIRECT
 * check follows ->open): a watcher sees the directory close. */
static void fz_odirect_dir_close_event(void)
{
	int in = F(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
	C(MKDIR("/d", 0755));
	C(inotify_add_watch(in, "/d", IN_ALL_EVENTS));
	F(openat(AT_FDCWD, "/d", O_RDONLY | O_DIRECT | O_DIRECTORY, 0));
	F(openat(AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0));
	EV(in);
	cl(in);
}

/* A mount on a name that is gone: ENOENT before the type check (Linux's
 * lock_mount, then graft_tree's ENOTDIR).  Here the top of b's mounts is a
 * bind of x, unlinked since, for a new mount and for binds onto it. */
static void fz_mount_on_unlinked(void)
{
	C(openat(AT_FDCWD, "b", O_WRONLY | O_CREAT, 01777));
	C(openat(AT_FDCWD, "x", O_WRONLY | O_CREAT, 0644));
	C(mount("x", "b", NULL, MS_BIND, NULL));
	C(unlinkat(AT_FDCWD, "/x", 0));
	C(mount("tmpfs", "b", "tmpfs", 0, "size=1m"));
	C(mount("/b", "b", NULL, MS_BIND, NULL));
	C(mkfile("/y", "y"));
	C(mount("/y", "b", NULL, MS_BIND, NULL));
	C(umount2("/b", MNT_DETACH));
}

/* fuzz -s 0x2222 -i 1237: truncate(2) checks write permission before the
 * mount's read-only flag (Linux 6.x vfs_truncate: inode_permission, then
 * mnt_want_write); a read-only superblock is EROFS first all the same */
static void fz_truncate_perm_before_rofs(void)
{
	C(mknodat(AT_FDCWD, "/a", S_IFREG | 0644, 0));
	C(MKDIR("/m", 0777));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", "x"));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	C(mount(NULL, ".", NULL, MS_RDONLY | MS_REMOUNT | MS_BIND, NULL));
	C(truncate("a", 70000));
	C(truncate("/m/f", 0));
	C(setcred(1000, 1000));
	C(truncate("a", 70000));
	C(truncate("/m/f", 0));
}

/* fuzz -s 0x4444 -i 1149: a lookup that ends in a mount is a use of it
 * (Linux's path_put after stat, access or readlink drops the mount, and
 * mntput clears MNT_EXPIRE's mark): umount2(MNT_EXPIRE) must ask twice
 * again */
static void fz_expire_mark_cleared_by_stat(void)
{
	C(symlinkat("/l", AT_FDCWD, "/a"));
	C(mkfile("/l", ""));
	C(mkfile("/x", ""));
	C(mount("/x", "a", NULL, MS_BIND, NULL));
	C(umount2("l", MNT_EXPIRE));
	STATF("/a");
	C(umount2("a", MNT_EXPIRE));
	C(ACCESS("/l", R_OK));
	C(umount2("/l", MNT_EXPIRE));
	STAT("/l");
	C(umount2("/l", MNT_EXPIRE));
	C(umount2("/l", MNT_EXPIRE));
	C(mount("/x", "/l", NULL, MS_BIND, NULL));
	C(umount2("/l", MNT_EXPIRE));
	/* a failed lookup below it, and a stat that does not end in it */
	STAT("/l/x");
	STAT("/a");
	C(umount2("/l", MNT_EXPIRE));
	LS("/");
}

/* fuzz -s 0xa1 -i 70: a rename into a removed directory (the cwd) is ENOENT
 * before the sticky directory's EPERM: Linux makes no child of a dead
 * directory in its lookup of the new name */
static void fz_rename_into_dead_dir(void)
{
	C(mkdirat(AT_FDCWD, "y", 0755));
	C(symlinkat("/y/.", AT_FDCWD, "/./a"));
	C(chdir("/a/"));
	C(unlinkat(AT_FDCWD, "/y", AT_REMOVEDIR));
	C(symlinkat("/a/" N255 "/", AT_FDCWD, "/x"));
	C(mkfile("/own", "o"));
	C(setcred(1000, 1000));
	C(renameat2(AT_FDCWD, "/x", AT_FDCWD, "b", 0));
	C(renameat2(AT_FDCWD, "/own", AT_FDCWD, "b", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "/own", AT_FDCWD, "b", RENAME_EXCHANGE));
	C(renameat2(AT_FDCWD, "/none", AT_FDCWD, "b", 0));
	C(setcred(0, 0));
	C(renameat2(AT_FDCWD, "/own", AT_FDCWD, "b", 0));
	C(linkat(AT_FDCWD, "/own", AT_FDCWD, "b", 0));
	C(mkdirat(AT_FDCWD, "b", 0755));
	LS("/");
}

/* fuzz -s 0x5555 -i 91 and -i 2038: AT_EMPTY_PATH lookups of pseudo files
 * (no mount) crashed after the MNT_EXPIRE change above */
static void fz_empty_path_pseudo(void)
{
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK | O_CLOEXEC));
	STATAT(p[0], "", AT_EMPTY_PATH);
	int in = F(inotify_init1(IN_NONBLOCK));
	static char buf[16];
	C(readlinkat(in, "", buf, 1));
	C(faccessat(p[1], "", W_OK, AT_EMPTY_PATH));
	STATAT(in, "", AT_EMPTY_PATH);
	cl(p[0]);
	cl(p[1]);
	cl(in);
}

/* fuzz -s 0x838493ccc070f136 -i 2569 (session 15): a memfd is a regular
 * file made by alloc_file_pseudo, which sets no FMODE_CAN_ODIRECT, so
 * F_SETFL O_DIRECT is EINVAL on it; uvfs took any regular file. */
static void fz_memfd_odirect(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	s[3] = C(memfd_create("m", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	C(fcntl(s[3], F_SETFL, O_NONBLOCK | O_DIRECT));
	C(fcntl(s[3], F_GETFL, 0));
	/* opened again by name (/proc/self/fd), it is an ordinary open */
	s[4] = C(fd_reopen(s[3], O_RDWR | O_DIRECT));
	C(fcntl(s[4], F_GETFL, 0));
	C(fcntl(s[4], F_SETFL, O_DIRECT));
}

/* fuzz -s 0xaed6a57b67143c81 -i 430 (session 15): sendfile of 0 bytes into
 * a file checks what it would check for more (Linux's splice_direct_to_actor:
 * the input regular, the output not O_APPEND); uvfs returned 0 first */
static void fz_sendfile_zero_checks(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	s[0] = C(openat(AT_FDCWD, "b", O_WRONLY | O_CREAT, 0644));
	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK | O_DIRECT | O_CLOEXEC));
		s[5] = C(p[0]);
		s[4] = C(p[1]);
	}
	C(sendfile(0, 1, NULL, 0));
	s[1] = C(openat(AT_FDCWD, "a", O_RDWR | O_CREAT | O_APPEND, 0644));
	s[2] = C(openat(AT_FDCWD, "c", O_RDWR | O_CREAT, 0644));
	C(sendfile(s[1], s[2], NULL, 0));
	C(sendfile(s[0], s[2], NULL, 0));
	C(copy_file_range(s[2], NULL, s[1], NULL, 0, 0));
	/* fuzz -s 0x7017a95cc307a69b -i 671: an inotify fd's inode is
	 * S_IFREG inside Linux (since 6.15: "anon_inode: use a proper mode
	 * internally"), so 0 bytes from it are 0, and more EINVAL */
	s[3] = C(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
	C_SINCE(6, 15, sendfile(s[0], s[3], NULL, 0));
	C(sendfile(s[0], s[3], NULL, 10));
	C(sendfile(s[0], 1, NULL, 10));
	/* CI run 50, fuzz -s 0x6928934d8f1cc60f -i 27: 0 bytes from a
	 * directory are 0 too; more are EINVAL */
	s[6] = C(openat(AT_FDCWD, "/", O_RDONLY, 0));
	C(sendfile(s[0], s[6], NULL, 0));
	C(sendfile(s[0], s[6], NULL, 10));
}

/* fuzz -s 0xcfeef8c66e6053dc -i 2123 (session 15): a link into a removed
 * cwd is ENOENT before the EXDEV of an old name on another mount (Linux's
 * filename_create makes no child of a dead directory); uvfs made the child
 * and compared the mounts first.  Also mkdir, symlink and mknod there. */
static void fz_link_into_dead_cwd(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	C(mkdirat(s[0], "/x", 0755));
	C(chdir("/x"));
	C(mount("tmpfs", "/..", "tmpfs", MS_NODEV, "uid=1000,gid=1000"));
	C(unlinkat(AT_FDCWD, "/x", AT_REMOVEDIR));
	C(linkat(AT_FDCWD, "../.", AT_FDCWD, "a", AT_SYMLINK_FOLLOW));
	C(mkdirat(AT_FDCWD, "d", 0755));
	C(symlinkat("t", AT_FDCWD, "s"));
	C(mknodat(AT_FDCWD, "n", S_IFIFO | 0644, 0));
	C(linkat(AT_FDCWD, "../.", AT_FDCWD, "a/", 0));
}

/* fuzz -s 0x57c304cafed74d52 (sequences 11, 15, 36, 99; session 15):
 * uvfs_fd_reopen against Linux's open of /proc/self/fd/N.  O_PATH drops
 * the flags it does not take, as open(2) does (uvfs took them as
 * openat2's EINVAL); O_NOFOLLOW refuses the magic link (ELOOP); an
 * inotify or epoll fd's anon inode has no open (ENXIO); a pipe or FIFO
 * does not open with O_DIRECT (EINVAL: no FMODE_CAN_ODIRECT after its
 * open), though F_SETFL gives a pipe O_DIRECT. */
static void fz_reopen_like_proc(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	s[0] = C(openat(AT_FDCWD, "/b", O_WRONLY | O_CREAT, 0755));
	s[1] = C(fd_reopen(s[0], O_NONBLOCK | O_PATH));
	s[2] = C(fd_reopen(s[0], O_RDWR | O_PATH | O_TRUNC | O_APPEND));
	C(fcntl(s[2], F_GETFL, 0));
	C(fd_reopen(s[0], O_RDONLY | O_NOFOLLOW));
	s[3] = C(fd_reopen(s[0], O_PATH | O_NOFOLLOW));
	s[4] = C(inotify_init1(IN_NONBLOCK));
	C(fd_reopen(s[4], O_RDONLY));
	C(fd_reopen(s[4], O_RDWR | O_TRUNC | O_NONBLOCK));
	s[5] = C(fd_reopen(s[4], O_PATH));
	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK | O_CLOEXEC));
		s[6] = C(p[0]);
		s[7] = C(p[1]);
	}
	C(fd_reopen(s[7], O_RDWR | O_NONBLOCK | O_DIRECT));
	C(fd_reopen(s[6], O_RDONLY | O_NONBLOCK | O_DIRECT));
	C(MKNOD("/ff", S_IFIFO | 0644, 0));
	C(OPEN("/ff", O_RDWR | O_DIRECT));
	C(OPEN("/ff", O_RDONLY | O_NONBLOCK | O_DIRECT));
	int f = F(OPEN("/ff", O_RDWR));
	C(fcntl(f, F_SETFL, O_DIRECT));
	cl(f);
	/* fuzz -s 0x37cd7da9d5c25852 -i 988: an anonymous pipe's write end
	 * opened again with its read end closed (a named FIFO: ENXIO) */
	C(close(s[6]));
	s[6] = C(fd_reopen(s[7], O_WRONLY | O_NONBLOCK));
	C(fd_reopen(s[7], O_RDONLY));
	/* -i 564, 717: open_by_handle_at's mount fd may not be O_PATH
	 * (EBADF), checked after the handle's own errors */
	struct { struct file_handle h; unsigned char b[128]; } fh = { .h.handle_bytes = 128 };
	int mid = 0;
	C(name_to_handle_at(AT_FDCWD, "/b", &fh.h, &mid, 0));
	C(open_by_handle_at(s[1], &fh.h, O_RDONLY));
	C(open_by_handle_at(s[1], NULL, O_RDONLY));
	C(open_by_handle_at(900, &fh.h, O_RDONLY));
	C(open_by_handle_at(s[0], &fh.h, O_RDWR));
	/* -s 0xdbfddd3fae76fc11 -i 2725: a symlink's handle opens only with
	 * O_PATH; otherwise ELOOP, before O_DIRECTORY's ENOTDIR */
	C(SYMLINK("/.", "/sl"));
	fh.h.handle_bytes = 128;
	C(name_to_handle_at(AT_FDCWD, "/sl", &fh.h, &mid, 0));
	C(open_by_handle_at(s[0], &fh.h, O_RDONLY));
	C(open_by_handle_at(s[0], &fh.h, O_DIRECTORY));
	C(open_by_handle_at(s[0], &fh.h, O_PATH | O_DIRECTORY));
	int sl = C(open_by_handle_at(s[0], &fh.h, O_PATH));
	C(fstatat(sl, "", &(struct stat){ 0 }, AT_EMPTY_PATH));
	/* -s 0xacd933cd036764ca -i 4066: by fd (/proc) the order is the other
	 * way: ENOTDIR before the symlink's ELOOP */
	C(fd_reopen(sl, O_NONBLOCK | O_DIRECTORY));
	C(fd_reopen(sl, O_RDONLY));
	/* -s 0x7eba36d6680bb56f -i 1367: RWF_NOWAIT is pipe2's files' alone
	 * (FMODE_NOWAIT), not a pipe opened again nor a FIFO's */
	char b[16];
	struct iovec v = { b, sizeof b };
	int q[2] = { -1, -1 };
	C(pipe2(q, O_NONBLOCK));
	C(preadv2(q[0], &v, 1, -1, RWF_NOWAIT));
	int r = C(fd_reopen(q[0], O_RDWR | O_NONBLOCK));
	C(preadv2(r, &v, 1, -1, RWF_NOWAIT));
	int ff = C(OPEN("/ff", O_RDWR | O_NONBLOCK));
	C(preadv2(ff, &v, 1, -1, RWF_NOWAIT));
}

/* fuzz -s 0xacd933cd036764ca -i 8176 (session 15): the cwd on the root of
 * a bind mount whose source directory was removed is removed too (getcwd
 * ENOENT, Linux's d_unlinked: the root of a bind mount is no tree's root);
 * uvfs took every mount's root for reachable.  The fuzzer's way there is
 * ".." at the root landing on a bind mount over it. */
static void fz_getcwd_removed_bind_root(void)
{
	static char buf[FUZZ_BUF];

	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mkdirat(AT_FDCWD, "/y", 0755));
	C(mount("/x", "/y", NULL, MS_BIND, NULL));
	int y = C(openat(AT_FDCWD, "/y", O_RDONLY | O_DIRECTORY, 0));
	C(unlinkat(AT_FDCWD, "/x", AT_REMOVEDIR));
	C(chdir("/y"));
	if (C(getcwd(buf, 4096)) > 0)
		CS("cwd", buf);
	C(chdir("/"));
	C(fchdir(y));
	if (C(getcwd(buf, 4096)) > 0)
		CS("cwd", buf);
	C(mkdirat(AT_FDCWD, "n", 0755));
	C(chdir("/"));
	C(umount2("/y", MNT_DETACH));
	C(symlinkat("..", AT_FDCWD, "/a"));
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mount("/x", "/a", NULL, MS_RDONLY | MS_BIND, NULL));
	C(unlinkat(AT_FDCWD, "/x", AT_REMOVEDIR));
	C(chdir("/a"));
	if (C(getcwd(buf, 4096)) > 0)
		CS("cwd", buf);
	C(chdir("/"));
	C(umount2("/a", MNT_DETACH));
}

/* The fuzzer's statx (session 16), on every kind of fd and with every
 * mask: the attributes' mask always has AUTOMOUNT and DAX (Linux's
 * vfs_getattr_nosec); a pipe's, inotify's or epoll's inode has no birth
 * time and no chattr attributes; a mask asking for the unique mount id
 * gets it instead of the old one.  uvfs had the chattr bits everywhere,
 * a birth time on pseudo files and no unique id. */
static void fz_statx_masks_pseudo(void)
{
	static const unsigned masks[] = { 0, STATX_BASIC_STATS, STATX_BASIC_STATS | STATX_BTIME, STATX_BTIME,
					  STATX_MNT_ID_UNIQUE_, STATX_DIOALIGN, 0x7fffffff };
	int fds[8], n = 0;
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	fds[n++] = p[0];
	fds[n++] = p[1];
	fds[n++] = C(inotify_init1(IN_NONBLOCK));
	fds[n++] = C(B->epoll_create1(BX, 0));
	fds[n++] = C(memfd_create("m", MFD_ALLOW_SEALING));
	C(mkdirat(AT_FDCWD, "/d", 0755));
	fds[n++] = C(openat(AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0));
	fds[n++] = C(openat(AT_FDCWD, "/d/f", O_RDWR | O_CREAT, 0644));
	fds[n++] = C(openat(AT_FDCWD, "/d/f", O_PATH, 0));
	C(write(p[1], "abc", 3));
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < sizeof masks / sizeof masks[0]; j++) {
			struct statx stx;
			memset(&stx, 0, sizeof stx);
			if (C(statx(fds[i], "", AT_EMPTY_PATH, masks[j], &stx)) == 0)
				STATX_CHECK(stx);
		}
	struct statx stx;
	memset(&stx, 0, sizeof stx);
	if (C(statx(AT_FDCWD, "/", 0, STATX_MNT_ID_UNIQUE_, &stx)) == 0) {
		STATX_CHECK(stx);
		C(stx.stx_mnt_id > 0x80000000ull);
	}
	/* a unique id is never given again: a new mount at the same place,
	 * after the first went, has another */
	C(mkdirat(AT_FDCWD, "/u", 0755));
	unsigned long long ids[2] = { 0, 0 };
	for (int i = 0; i < 2; i++) {
		C(mount("tmpfs", "/u", "tmpfs", 0, NULL));
		memset(&stx, 0, sizeof stx);
		if (C(statx(AT_FDCWD, "/u", 0, STATX_MNT_ID_UNIQUE_, &stx)) == 0)
			ids[i] = stx.stx_mnt_id;
		C(!!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT));
		C(umount2("/u", 0));
	}
	C(ids[0] > 0x80000000ull && ids[1] > 0x80000000ull && ids[0] != ids[1]);
	for (int i = 0; i < n; i++)
		C(close(fds[i]));
}

/* fuzz -s 0x3bc82ec779b8f8b2 -i 4429 (session 16): a splice takes
 * RWF_NOWAIT away from each pipe file it is given, for good (Linux's
 * pipe_clear_nowait, since 6.5), once the pipe's offset is checked and
 * before the file's mode is: a failed splice clears it too, but not one
 * refused for its length, flags, fds or the pipe's offset.  tee and a
 * regular file's side leave it. */
static void fz_splice_clears_nowait(void)
{
	static char buf[FUZZ_BUF];
	struct iovec v = { buf, 1 };
	int p[2] = { -1, -1 }, q[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	C(pipe2(q, O_NONBLOCK));
	C(tee(p[0], q[1], 10, SPLICE_F_NONBLOCK));
	C(preadv2(p[0], &v, 1, -1, RWF_NOWAIT));
	C(preadv2(q[0], &v, 1, -1, RWF_NOWAIT));
	C(splice(p[0], NULL, q[1], NULL, 0, 0));
	C(splice(p[0], NULL, q[1], NULL, 10, 0x100));
	C(splice(p[0], NULL, 999, NULL, 10, 0));
	C(preadv2(p[0], &v, 1, -1, RWF_NOWAIT));
	int f = C(openat(AT_FDCWD, "/f", O_RDWR | O_CREAT, 0644));
	C(write(f, "abcdef", 6));
	off_t off = 0;
	C(splice(p[0], &off, f, NULL, 10, 0));
	C(preadv2(p[0], &v, 1, -1, RWF_NOWAIT));
	/* to itself (EINVAL): both ends lose it, and a dup shares the file */
	C(splice(p[0], NULL, p[1], NULL, 10, SPLICE_F_NONBLOCK));
	int d = C(fcntl(p[0], F_DUPFD, 100));
	C(preadv2(d, &v, 1, -1, RWF_NOWAIT));
	C(pwritev2(p[1], &v, 1, -1, RWF_NOWAIT));
	/* a file into a pipe: the pipe's side only */
	C(splice(f, &off, q[1], NULL, 3, 0));
	C(pwritev2(q[1], &v, 1, -1, RWF_NOWAIT));
	C(preadv2(q[0], &v, 1, -1, RWF_NOWAIT));
	/* a write end as the input: EBADF after the clearing */
	int r[2] = { -1, -1 };
	C(pipe2(r, O_NONBLOCK));
	C(splice(r[1], NULL, f, NULL, 10, 0));
	C(pwritev2(r[1], &v, 1, -1, RWF_NOWAIT));
	C(preadv2(r[0], &v, 1, -1, RWF_NOWAIT));
}

/* fuzz -s 0x5589d435a3aa30f3 -i 5, an overlay run (session 16): a rename
 * between two names of one object is 0 whatever the flags and the
 * permissions (Linux's vfs_rename returns before it checks either); uvfs's
 * overlay, with an inode per name, refused RENAME_WHITEOUT and checked the
 * sticky directory first. */
static void fz_rename_same_object_flags(void)
{
	C(mknodat(AT_FDCWD, "/y", 0644, 0));
	C(linkat(AT_FDCWD, "/y", AT_FDCWD, "/a", 0));
	C(renameat2(AT_FDCWD, "/y", AT_FDCWD, "/a", RENAME_WHITEOUT));
	C(renameat2(AT_FDCWD, "/y", AT_FDCWD, "/a", RENAME_NOREPLACE));
	C(renameat2(AT_FDCWD, "/y", AT_FDCWD, "/a", RENAME_EXCHANGE));
	C(renameat2(AT_FDCWD, "/a", AT_FDCWD, "/y", 0));
	LS("/");
	/* -s 0xbd42a83484a6ceb4 -i 352, an overlay run: before any permission
	 * check too (another's names in a sticky directory) */
	C(symlinkat("x/y", AT_FDCWD, "/l"));
	C(linkat(AT_FDCWD, "/l", AT_FDCWD, "/b", 0));
	C(setcred(1000, 1000));
	C(renameat2(AT_FDCWD, "/l", AT_FDCWD, "b", 0));
	C(renameat2(AT_FDCWD, "/l", AT_FDCWD, "/y", 0));
	C(setcred(0, 0));
	LS("/");
}

/* openat2 in the fuzzer (session 16), seed 0xbc10fb81b38e746f and later
 * runs: each open_how below differed. */
static int how2(const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	struct open_how_ext h = { { .flags = flags, .mode = mode, .resolve = resolve } };
	return openat2(AT_FDCWD, path, &h.how, sizeof(struct open_how));
}

static void fz_openat2_flags_and_scope(void)
{
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mkdirat(AT_FDCWD, "/m", 0755));
	C(mount("tmpfs", "/m", "tmpfs", 0, NULL));
	C(symlinkat("/x", AT_FDCWD, "/y"));
	C(symlinkat("/", AT_FDCWD, "/r"));
	/* O_LARGEFILE (0100000, which glibc calls 0 here) is a valid flag */
	int fd = C(how2("/x", O_RDONLY | 0100000, 0, 0));
	C(fcntl(fd, F_GETFL, 0));
	C(close(fd));
	C(how2("/x", O_PATH | 0100000, 0, 0));
	/* O_TMPFILE with O_PATH: O_PATH's own check still applies */
	C(how2("/x", O_TMPFILE | O_WRONLY | O_PATH, 0644, 0));
	C(how2("/x", O_TMPFILE | O_RDWR | O_PATH, 0644, RESOLVE_CACHED));
	/* RESOLVE_NO_XDEV: an absolute symlink is EXDEV until the walk used
	 * its root (an absolute start or a ".."), even on one mount */
	C(how2("y", O_RDONLY, 0, RESOLVE_NO_XDEV));
	C(how2("./y", O_RDONLY, 0, RESOLVE_NO_XDEV));
	C(how2("y/", O_RDONLY, 0, RESOLVE_NO_XDEV));
	C(how2("r", O_RDWR | O_CREAT | O_TRUNC, 0644, RESOLVE_NO_XDEV));
	C(how2("/y", O_RDONLY, 0, RESOLVE_NO_XDEV));
	C(how2("x/../y", O_RDONLY, 0, RESOLVE_NO_XDEV));
	C(how2("../y", O_RDONLY, 0, RESOLVE_NO_XDEV));
	C(how2("y", O_RDONLY, 0, RESOLVE_NO_XDEV | RESOLVE_IN_ROOT));
	C(how2("y", O_RDONLY, 0, RESOLVE_NO_XDEV | RESOLVE_BENEATH));
	/* ...and the last name of an O_CREAT open crosses no mount either */
	C(how2("/m", O_RDWR | O_CREAT, 0644, RESOLVE_NO_XDEV));
	C(how2("/m", O_RDONLY | O_CREAT, 0644, 0));
	/* -s 0xc3774f93a0adb40d -i 3333: O_EXCL's EEXIST comes after the
	 * crossing's EXDEV */
	C(how2("/m", O_RDWR | O_CREAT | O_EXCL, 0644, RESOLVE_NO_XDEV));
	C(how2("/../m", O_RDWR | O_CREAT | O_EXCL, 0, RESOLVE_NO_XDEV));
	C(how2("/m", O_RDWR | O_CREAT | O_EXCL, 0644, 0));
	/* a last ".." is walked before O_CREAT's EISDIR: out of the scope */
	C(how2("..", O_RDWR | O_CREAT, 0644, RESOLVE_BENEATH));
	C(how2("..", O_RDWR | O_CREAT, 0644, RESOLVE_IN_ROOT));
	C(how2("x/..", O_RDWR | O_CREAT, 0644, RESOLVE_BENEATH));
	C(how2("..", O_RDWR | O_CREAT | O_EXCL, 0644, RESOLVE_BENEATH));
	C(how2("/m/..", O_RDWR | O_CREAT, 0644, RESOLVE_NO_XDEV));
	C(umount2("/m", MNT_DETACH));
}

/* fuzz -s 0xc3774f93a0adb40d -i 4240 (and an overlay run's -s
 * 0xde6d49087684ff42 -i 2425), session 16: a bind mount's source that was
 * removed (a removed cwd, or the root of a bind mount whose directory was
 * removed) is ENOENT, after the type check's ENOTDIR (Linux 6.18,
 * measured); uvfs bound it. */
static void fz_bind_removed_source(void)
{
	C(mkdirat(AT_FDCWD, "/a", 0755));
	C(mkdirat(AT_FDCWD, "/t", 0755));
	C(mkfile("/f", "x"));
	C(chdir("/a"));
	C(unlinkat(AT_FDCWD, "/a", AT_REMOVEDIR));
	C(mount(".", "/f", NULL, MS_BIND, NULL));
	C(mount(".", "/t", NULL, MS_BIND, NULL));
	C(mount(".", "/t", NULL, MS_BIND | MS_REC, NULL));
	C(mount(".", "/..", NULL, MS_BIND | MS_REC, NULL));
	C(chdir("/"));
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mkdirat(AT_FDCWD, "/y", 0755));
	C(mount("/x", "/y", NULL, MS_BIND, NULL));
	C(unlinkat(AT_FDCWD, "/x", AT_REMOVEDIR));
	C(mount("/y", "/t", NULL, MS_BIND, NULL));
	C(mount("/y", "/t", NULL, MS_RDONLY | MS_BIND, NULL));
	LS("/t");
	C(umount2("/y", MNT_DETACH));
}

/* fuzz -s 0x44108a6a58ea228b -i 2121 (session 16): a mount on a detached
 * tree is ENOENT (Linux's lock_mount: the target is not mounted), after
 * the filesystem's own errors; a bind from one onto a mounted target is
 * EINVAL (check_mnt).  uvfs gave EINVAL for both. */
static void fz_mount_on_detached(void)
{
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(mkdirat(AT_FDCWD, "/s", 0755));
	C(mkfile("/f", "x"));
	C(mount("tmpfs", "/x", "tmpfs", MS_NODEV, NULL));
	C(chdir("/x"));
	if (!C(at_root("/x")))
		C(umount2("/x", MNT_DETACH));
	C(mkdirat(AT_FDCWD, "a", 0755));
	C(mkdirat(AT_FDCWD, "b", 0755));
	C(mount("tmpfs", "a", "tmpfs", 0, NULL));
	C(mount("tmpfs", "a", "tmpfs", 0, "size=1m"));
	C(mount("tmpfs", "a", "tmpfs", 0, "bogus=1"));
	C(mount("tmpfs", "a", "nosuchfs", 0, NULL));
	C(mount("/s", "a", NULL, MS_BIND, NULL));
	C(mount("b", "a", NULL, MS_BIND, NULL));
	C(mount("b", "/s", NULL, MS_BIND, NULL));
	C(mount("b", "/f", NULL, MS_BIND, NULL));
	C(mount("b", "/gone", NULL, MS_BIND, NULL));
	C(chdir("/"));
	LS("/s");
}

/* fuzz -s 0x480e963ba58fb6e7 (sequences 526, 2956, 3130 and four more;
 * session 16): an inotify or epoll fd's inode is private (Linux's
 * S_PRIVATE), so no security module is asked and a security.* change by
 * non-root is the filesystem's EOPNOTSUPP, where a pipe's or a memfd's is
 * commoncap's EPERM; uvfs gave EPERM everywhere. */
static void fz_xattr_private_inodes(void)
{
	static char buf[FUZZ_BUF];
	int fds[4], n = 0;
	int p[2] = { -1, -1 };
	C(pipe2(p, O_NONBLOCK));
	fds[n++] = p[0];
	fds[n++] = C(inotify_init1(IN_NONBLOCK));
	fds[n++] = C(B->epoll_create1(BX, 0));
	fds[n++] = C(memfd_create("m", 0));
	C(setcred(1000, 1000));
	for (int i = 0; i < n; i++) {
		C(fsetxattr(fds[i], "security.s", "v", 1, 0));
		C(fsetxattr(fds[i], "trusted.t", "v", 1, 0));
		C(fsetxattr(fds[i], "user.a", "v", 1, 0));
		C(fgetxattr(fds[i], "security.s", buf, 64));
		C(B->fremovexattr(BX, fds[i], "security.s"));
		C(flistxattr(fds[i], buf, 64));
	}
	C(setcred(0, 0));
	for (int i = 0; i < n; i++) {
		C(fsetxattr(fds[i], "security.s", "v", 1, 0));
		C(fgetxattr(fds[i], "security.s", buf, 64));
	}
}

/* fuzz -s 0xb30645d7a51cf08f -i 4654, an overlay run (session 16): a
 * fallocate by another uid drops the set-id bits on an overlay before the
 * real filesystem refuses the mode (Linux's ovl_fallocate calls
 * file_remove_privs first), where tmpfs refuses first and drops nothing. */
static void fz_fallocate_privs_order(void)
{
	C(mkdirat(AT_FDCWD, "/a", 0755));
	int fd = C(openat(AT_FDCWD, "/a/l", O_RDWR | O_CREAT | O_EXCL, 02755));
	int fd2 = C(openat(AT_FDCWD, "/a/m", O_RDWR | O_CREAT | O_EXCL, 04755));
	C(setcred(1000, 1000));
	C(fallocate(fd, FALLOC_FL_INSERT_RANGE, 4096, 4096));
	FSTAT(fd);
	C(fallocate(fd2, FALLOC_FL_COLLAPSE_RANGE, 0, 4096));
	FSTAT(fd2);
	C(fallocate(fd2, 0, 0, 10));
	FSTAT(fd2);
	C(setcred(0, 0));
}

/* fuzz -s 0x554e30ebd37ce431 (-i 74, 520, 633 and others): an ACL's
 * entries are checked last (Linux's set_posix_acl calls posix_acl_valid
 * after the checks of the inode, the type and the owner), its format
 * first; an immutable inode refuses an ACL as any xattr. */
static void fz_acl_set_order(void)
{
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(close(C(openat(AT_FDCWD, "/f", O_WRONLY | O_CREAT, 0644))));
	C(symlinkat("f", AT_FDCWD, "/l"));
	/* a named user without the mask: invalid */
	C(setxattr("/f", "system.posix_acl_default", ACLV(5), acl_value_size(5), 0));
	C(lsetxattr("/l", "system.posix_acl_access", ACLV(5), acl_value_size(5), 0));
	C(setxattr("/d", "system.posix_acl_default", ACLV(5), acl_value_size(5), 0));
	/* a size that is no header and entries: before anything */
	C(setxattr("/f", "system.posix_acl_default", ACLV(5), 7, 0));
	C(lsetxattr("/l", "system.posix_acl_access", ACLV(5), 7, 0));
	C(setcred(1000, 1000));
	C(setxattr("/f", "system.posix_acl_access", ACLV(5), acl_value_size(5), 0));
	C(setxattr("/d", "system.posix_acl_default", ACLV(2), 7, 0));
	C(setcred(0, 0));
	int fd = C(openat(AT_FDCWD, "/f", O_RDONLY, 0));
	int fl = FS_IMMUTABLE_FL;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(setxattr("/f", "system.posix_acl_access", ACLV(5), acl_value_size(5), 0));
	C(setxattr("/f", "system.posix_acl_access", ACLV(2), acl_value_size(2), 0));
	C(setxattr("/f", "system.posix_acl_access", ACLV(2), 7, 0));
	fl = 0;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(close(fd));
	C(setxattr("/f", "system.posix_acl_access", ACLV(2), acl_value_size(2), 0));
	STAT("/f");
}

/* fuzz -s 0x554e30ebd37ce431 -i 1628: copy_file_range between two
 * superblocks is EXDEV before the immutable target's EPERM
 * (generic_copy_file_checks). */
static void fz_copy_range_xdev_first(void)
{
	int fd = C(openat(AT_FDCWD, "/x", O_WRONLY | O_CREAT, 0644));
	int m = C(memfd_create("m", MFD_CLOEXEC));
	C(write(m, "abc", 3));
	int fl = FS_IMMUTABLE_FL;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(copy_file_range(m, NULL, fd, NULL, 1, 0));
	fl = 0;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(copy_file_range(m, NULL, fd, NULL, 1, 0));
	C(close(fd));
	C(close(m));
}

static int how2at(int dfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how_ext h = { { .flags = flags, .resolve = resolve } };
	return openat2(dfd, path, &h.how, sizeof(struct open_how));
}

/* fuzz -s 0xd1fcbd06ae916f40 -i 1059: ".." from the root of a mount whose
 * mountpoint is the walk's root stays where it is (Linux's follow_dotdot
 * goes "in_root" when choose_mountpoint finds nothing below the root), so
 * RESOLVE_NO_XDEV has no mount to refuse; from a mount with a mountpoint to
 * go up to, it does. */
static void fz_dotdot_in_root_no_xdev(void)
{
	C(mkdirat(AT_FDCWD, "/a", 0755));
	C(mount("tmpfs", "/a", "tmpfs", 0, NULL));
	C(mount("tmpfs", "/a", "tmpfs", 0, NULL));
	C(mkdirat(AT_FDCWD, "/a/top", 0755));
	int top = C(openat(AT_FDCWD, "/a", O_RDONLY | O_DIRECTORY, 0));
	C(mount("tmpfs", "/", "tmpfs", 0, "mode=0700"));
	C(chdir("/.."));
	C(mkdirat(AT_FDCWD, "here", 0755));
	C(how2at(AT_FDCWD, "..", O_RDWR, RESOLVE_NO_XDEV));
	int fd = C(how2at(AT_FDCWD, "..", O_RDONLY | O_DIRECTORY, RESOLVE_NO_XDEV));
	C(close(fd));
	fd = C(how2at(AT_FDCWD, "../here", O_RDONLY | O_DIRECTORY, RESOLVE_NO_XDEV));
	C(close(fd));
	C(how2at(AT_FDCWD, "..", O_RDONLY | O_DIRECTORY, RESOLVE_BENEATH));
	/* from the top of two mounts stacked on /a: a mount is left */
	C(how2at(top, "..", O_RDONLY | O_DIRECTORY, RESOLVE_NO_XDEV));
	C(how2at(top, "top/..", O_RDONLY | O_DIRECTORY, RESOLVE_NO_XDEV) >= 0);
	fd = C(how2at(top, "..", O_RDONLY | O_DIRECTORY, 0));
	C(faccessat(fd, "a", F_OK, 0));
	C(close(fd));
	C(close(top));
}

/* fuzz -s 0x05a6fd368a7f75fd -i 573: umount2 without MNT_DETACH of the
 * mount that holds the caller's root remounts its filesystem read-only and
 * answers 0 (Linux's do_umount_root, what "umount /" does at shutdown); the
 * mount stays.  A mount that merely holds the cwd is busy as before. */
static void fz_umount_own_root(void)
{
	C(mkdirat(AT_FDCWD, "/m", 0755));
	C(mount("tmpfs", "/m", "tmpfs", 0, NULL));
	C(mkdirat(AT_FDCWD, "/m/in", 0755));
	C(mkdirat(AT_FDCWD, "/n", 0755));
	C(mount("tmpfs", "/n", "tmpfs", 0, NULL));
	int keep = C(openat(AT_FDCWD, "/m/w", O_WRONLY | O_CREAT, 0644));
	C(chdir("/n"));
	C(chroot("/m"));
	/* the cwd's mount, not the root's: busy */
	C(umount2(".", 0));
	/* the root's: a file open for writing keeps it writable */
	C(umount2("/", 0));
	C(close(keep));
	C(umount2("/", MNT_EXPIRE));
	C(umount2("/", 0));
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(openat(AT_FDCWD, "/f", O_WRONLY | O_CREAT, 0644));
	STAT("/");
	C(umount2("/", 0));
	C(mount(NULL, "/", NULL, MS_REMOUNT, NULL));
	C(mkdirat(AT_FDCWD, "/d", 0755));
	STAT("/d");
}

/* fuzz -s 0x25a6dab2889f1f73 -i 1150 (hostfs): the whiteout a
 * RENAME_WHITEOUT leaves is the caller's, as any new object (Linux's
 * vfs_whiteout); hostfs's host made it as the library's process. */
static void fz_whiteout_owner_hostfs(void)
{
	C(mkdirat(AT_FDCWD, "/g", 0777));
	C(fchownat(AT_FDCWD, "/g", 0, 100, 0));
	C(fchmodat(AT_FDCWD, "/g", 02777, 0));
	C(setcred(1000, 1000));
	C(mkdirat(AT_FDCWD, "/x", 0755));
	C(renameat2(AT_FDCWD, "/x", AT_FDCWD, "/a", RENAME_WHITEOUT));
	STAT("/x");
	C(mkdirat(AT_FDCWD, "/g/y", 0755));
	C(renameat2(AT_FDCWD, "/g/y", AT_FDCWD, "/g/z", RENAME_WHITEOUT));
	STAT("/g/y");
	C(setcred(0, 0));
}

/* fuzz -s 0x25a6dab2889f1f73 -i 2479 (hostfs): an fd of access mode 3
 * (ioctl only) syncs after chattr +i; hostfs opened its host fd for
 * writing at that first use, which the host refused. */
static void fz_fsync_mode3_immutable(void)
{
	int fd = C(openat(AT_FDCWD, "/l", O_WRONLY | O_RDWR | O_CREAT | O_DSYNC | O_NOFOLLOW, 00));
	int fl = FS_IMMUTABLE_FL;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(fsync(fd));
	C(fdatasync(fd));
	C(lseek(fd, 0, SEEK_END));
	fl = 0;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(write(fd, "x", 1));
	C(close(fd));
}

/* fuzz -s 0x1cec298609617b16 -i 2750 (hostfs): chown to -1, -1 drops the
 * setgid bit of an append-only file (notify_change applies
 * ATTR_KILL_SGID past the flags); hostfs's host chmod was refused. */
static void fz_chown_kills_sgid_append(void)
{
	int fd = C(openat(AT_FDCWD, "/x", O_WRONLY | O_CREAT, 0600));
	C(fchmod(fd, 02755));
	int fd2 = C(openat(AT_FDCWD, "/y", O_WRONLY | O_CREAT, 0600));
	C(fchmod(fd2, 04755));
	int fl = FS_APPEND_FL;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(ioctl(fd2, FS_IOC_SETFLAGS, &fl));
	C(fchownat(AT_FDCWD, "/x", -1, -1, 0));
	STAT("/x");
	C(fchownat(AT_FDCWD, "/y", -1, -1, 0));
	STAT("/y");
	C(fchmodat(AT_FDCWD, "/x", 0755, 0));
	C(fchownat(AT_FDCWD, "/x", 0, -1, 0));
	/* a write by another uid drops them too */
	C(fchmodat(AT_FDCWD, "/y", 06777, 0));
	C(setcred(1000, 1000));
	int w = C(openat(AT_FDCWD, "/y", O_WRONLY | O_APPEND, 0));
	C(write(w, "x", 1));
	STAT("/y");
	C(close(w));
	C(setcred(0, 0));
	fl = 0;
	C(ioctl(fd, FS_IOC_SETFLAGS, &fl));
	C(ioctl(fd2, FS_IOC_SETFLAGS, &fl));
	C(close(fd));
	C(close(fd2));
}

/* fuzz -s 0x8aed12add1bc5b30 -i 8270: a setgid file asked for in a setgid
 * directory by a caller outside its group loses S_ISGID on the mode as
 * asked, before the umask (Linux's vfs_prepare_mode: 02755 under umask 077
 * is 0700); uvfs looked after the umask, where S_IXGRP was gone. */
static void fz_sgid_strip_before_umask(void)
{
	C(fchmodat(AT_FDCWD, "/", 07777, 0));
	C(umask(077));
	C(setcred(1000, 1000));
	C(close(C(openat(AT_FDCWD, "/a", O_WRONLY | O_CREAT, 02755))));
	STAT("/a");
	C(mknodat(AT_FDCWD, "/b", S_IFREG | 02751, 0));
	STAT("/b");
	C(umask(0));
	C(close(C(openat(AT_FDCWD, "/c", O_WRONLY | O_CREAT, 02745))));
	STAT("/c");
	C(close(C(openat(AT_FDCWD, "/", O_TMPFILE | O_WRONLY, 02711))));
	C(mkdirat(AT_FDCWD, "/d", 02777));
	STAT("/d");
	C(setcred(0, 0));
}

/* fuzz -s 0xad7c3cc966930788 -i 735: a truncate to the size a file has
 * (O_TRUNC of an empty file too) drops the pages fallocate reserved past
 * its end, as shmem_setattr's truncate of everything from the new size
 * when it is not above the old; a bigger size keeps them. */
static void fz_trunc_same_size_drops_reserved(void)
{
	int fd = C(openat(AT_FDCWD, "/f", O_RDWR | O_CREAT, 0644));
	C(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1));
	BLOCKSOF("/f");
	C(close(C(openat(AT_FDCWD, "/f", O_WRONLY | O_TRUNC, 0))));
	STAT("/f");
	BLOCKSOF("/f");
	C(pwrite(fd, "0123456789", 10, 0));
	C(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 16384));
	BLOCKSOF("/f");
	C(ftruncate(fd, 10));
	BLOCKSOF("/f");
	C(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 16384));
	C(ftruncate(fd, 5000));
	BLOCKSOF("/f");
	CAT("/f");
	C(truncate("/f", 5000));
	BLOCKSOF("/f");
	C(ftruncate(fd, 4096));
	BLOCKSOF("/f");
	C(close(fd));
}

/* fuzz -s 0x0523f07ee660594a -i 1629 (hostfs, then tmpfs and the overlay
 * on replay): an empty security.capability is no file capability, and a
 * truncate, a write or a chown keeps it (commoncap's
 * cap_inode_need_killpriv asks for a value longer than 0); a real one goes,
 * and an empty one set over a real one stays. */
static void fz_empty_capability_survives(void)
{
	static char buf[FUZZ_BUF];
	int fd = C(openat(AT_FDCWD, "/x", O_RDWR | O_CREAT, 0644));
	C(fsetxattr(fd, "security.capability", PAT, 0, 0));
	C(ftruncate(fd, 1));
	C(flistxattr(fd, buf, 0));
	C(pwrite(fd, "a", 1, 0));
	C(fchown(fd, 1000, 1000));
	C(flistxattr(fd, buf, 0));
	C(fsetxattr(fd, "security.capability", CAPV(20), 20, 0));
	C(ftruncate(fd, 2));
	C(flistxattr(fd, buf, 0));
	C(fsetxattr(fd, "security.capability", CAPV(20), 20, 0));
	C(fsetxattr(fd, "security.capability", PAT, 0, 0));
	C(pwrite(fd, "b", 1, 0));
	C(flistxattr(fd, buf, 0));
	C(removexattr("/x", "security.capability"));
	C(fsetxattr(fd, "security.capability", CAPV(20), 20, 0));
	C(fchown(fd, 0, 0));
	C(flistxattr(fd, buf, 0));
	C(close(fd));
}

const struct scenario fuzzfound_scenarios[] = {
	{ "fz_access_rdonly_mount_order", fz_access_rdonly_mount_order },
	{ "fz_remount_resets_mount_flags", fz_remount_resets_mount_flags },
	{ "fz_remount_ro_removed_held", fz_remount_ro_removed_held },
	{ "fz_mount_on_top", fz_mount_on_top },
	{ "fz_linkat_empty_path_relative", fz_linkat_empty_path_relative },
	{ "fz_seek_data_huge_hole", fz_seek_data_huge_hole },
	{ "fz_linkat_empty_cwd", fz_linkat_empty_cwd },
	{ "fz_write_zero_keeps_sgid", fz_write_zero_keeps_sgid },
	{ "fz_creat_sticky_symlink", fz_creat_sticky_symlink },
	{ "fz_rename_order", fz_rename_order },
	{ "fz_odirect", fz_odirect },
	{ "fz_bind_empty_source", fz_bind_empty_source },
	{ "fz_open_path_flags", fz_open_path_flags },
	{ "fz_creat_excl_dots", fz_creat_excl_dots },
	{ "fz_lseek_whence_first", fz_lseek_whence_first },
	{ "fz_setattr_pseudo", fz_setattr_pseudo },
	{ "setattr_anon_perms", setattr_anon_perms },
	{ "fz_rbind_below_source", fz_rbind_below_source },
	{ "fz_mount_lookup_before_eperm", fz_mount_lookup_before_eperm },
	{ "fz_whiteout_owner", fz_whiteout_owner },
	{ "fz_odirect_dir_close_event", fz_odirect_dir_close_event },
	{ "fz_mount_on_unlinked", fz_mount_on_unlinked },
	{ "fz_truncate_perm_before_rofs", fz_truncate_perm_before_rofs },
	{ "fz_expire_mark_cleared_by_stat", fz_expire_mark_cleared_by_stat },
	{ "fz_empty_path_pseudo", fz_empty_path_pseudo },
	{ "fz_rename_into_dead_dir", fz_rename_into_dead_dir },
	{ "fz_memfd_odirect", fz_memfd_odirect },
	{ "fz_sendfile_zero_checks", fz_sendfile_zero_checks },
	{ "fz_link_into_dead_cwd", fz_link_into_dead_cwd },
	{ "fz_reopen_like_proc", fz_reopen_like_proc },
	{ "fz_getcwd_removed_bind_root", fz_getcwd_removed_bind_root },
	{ "fz_statx_masks_pseudo", fz_statx_masks_pseudo },
	{ "fz_splice_clears_nowait", fz_splice_clears_nowait },
	{ "fz_rename_same_object_flags", fz_rename_same_object_flags },
	{ "fz_openat2_flags_and_scope", fz_openat2_flags_and_scope },
	{ "fz_bind_removed_source", fz_bind_removed_source },
	{ "fz_mount_on_detached", fz_mount_on_detached },
	{ "fz_xattr_private_inodes", fz_xattr_private_inodes },
	{ "fz_fallocate_privs_order", fz_fallocate_privs_order },
	{ "fz_acl_set_order", fz_acl_set_order },
	{ "fz_copy_range_xdev_first", fz_copy_range_xdev_first },
	{ "fz_dotdot_in_root_no_xdev", fz_dotdot_in_root_no_xdev },
	{ "fz_umount_own_root", fz_umount_own_root },
	{ "fz_whiteout_owner_hostfs", fz_whiteout_owner_hostfs },
	{ "fz_fsync_mode3_immutable", fz_fsync_mode3_immutable },
	{ "fz_chown_kills_sgid_append", fz_chown_kills_sgid_append },
	{ "fz_sgid_strip_before_umask", fz_sgid_strip_before_umask },
	{ "fz_trunc_same_size_drops_reserved", fz_trunc_same_size_drops_reserved },
	{ "fz_empty_capability_survives", fz_empty_capability_survives },
	{ NULL, NULL },
};
