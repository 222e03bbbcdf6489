/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mounts.c - tmpfs mounts, bind mounts, read-only mounts and remounts, EXDEV,
 * EBUSY, umount flags, mount options. */
#include "conf.h"


static void mount_basic(void)
{
	C(MKDIR("/m", 0755));
	C(mkfile("/m/hidden", "under"));
	C(TMPFS("/m", 0, NULL));
	STAT("/m");
	LS("/m");
	SAME("/m", "/");
	SAME("/m/..", "/");
	SAME("/m/../m", "/m");
	C(mkfile("/m/f", "on tmpfs"));
	CAT("/m/f");
	NLINKS("/");
	C(MKDIR("/m/sub", 0755));
	NLINKS("/m");
	C(chdir("/m/sub"));
	char b[64];
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	SAME("../..", "/");
	C(chdir("/"));
	C(umount2("/m", 0));
	LS("/m");
	CAT("/m/hidden");
	C(umount2("/m", 0));
	/* a second instance is a different file system */
	C(TMPFS("/m", 0, NULL));
	LS("/m");
	C(umount2("/m", MNT_DETACH));
}

static void mount_errors(void)
{
	C(MKDIR("/m", 0755));
	C(mkfile("/f", "x"));
	C(TMPFS("/missing", 0, NULL));
	C(TMPFS("/f", 0, NULL));
	C(TMPFS("/f/x", 0, NULL));
	C(mount("none", "/m", "nosuchfs", 0, NULL));
	C(TMPFS("/m", 0, "size=bogus"));
	C(TMPFS("/m", 0, "nosuchoption=1"));
	/* which error comes first: the type, then its options, then the target */
	C(mount("none", "/f", "nosuchfs", 0, NULL));
	C(TMPFS("/f", 0, "size=bogus"));
	C(mount("none", "/f", NULL, 0, NULL));
	/* pipefs is registered but internal (Linux's SB_NOUSER): EINVAL, on a
	 * directory or a file; anon_inodefs is no type at all */
	C(mount("none", "/m", "pipefs", 0, NULL));
	C(mount("none", "/f", "pipefs", 0, NULL));
	C(mount("none", "/m", "anon_inodefs", 0, NULL));
	C(umount2("/m", 0));
	C(umount2("/missing", 0));
	C(umount2("/f", 0));
	C(umount2("/m", 0x80));
	C(umount2("/m", MNT_EXPIRE | MNT_DETACH));
	C(umount2("", 0));
	C(setcred(1000, 1000));
	C(TMPFS("/m", 0, NULL));
	C(setcred(0, 0));
	C(TMPFS("/m", 0, NULL));
	C(setcred(1000, 1000));
	C(umount2("/m", 0));
	C(umount2("/m", MNT_DETACH));
	C(setcred(0, 0));
	C(umount2("/m", UMOUNT_NOFOLLOW));
	C(SYMLINK("m", "/lm"));
	C(TMPFS("/lm", 0, NULL));
	C(umount2("/lm", UMOUNT_NOFOLLOW));
	C(umount2("/lm", 0));
	LS("/m");
}

/* A bind remount read-only is EBUSY while a file is open for writing
 * through that mount (Linux's mnt_make_readonly counts its writers); other
 * mounts of the same tree, readers and O_PATH files do not count. */
static void remount_ro_writers(void)
{
	C(MKDIR("/m", 0755));
	C(MKDIR("/b", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mount("/m", "/b", NULL, MS_BIND, NULL));
	int fd = F(OPEN("/b/f", O_CREAT | O_WRONLY));
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	C(write(fd, "x", 1));
	cl(fd);
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	F(OPEN("/b/f", O_WRONLY));
	F(OPEN("/b/g", O_CREAT | O_WRONLY));
	/* access mode 3 checks both permissions but is no writer */
	fd = F(OPEN("/b/f", O_WRONLY | O_RDWR));
	cl(fd);
	F(OPEN("/b/f", O_RDONLY | O_TRUNC));
	F(OPEN("/b/f", O_RDWR | O_NOATIME));
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND, NULL));
	fd = F(OPEN("/b/f", O_RDWR));
	C(write(fd, "y", 1));
	cl(fd);
	int r = F(OPEN("/b/f", O_RDONLY));
	int pf = F(OPEN("/b/f", O_PATH));
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	cl(r);
	cl(pf);
	CAT("/b/f");
	C(umount2("/b", 0));
	C(umount2("/m", 0));
}

/* umount2(MNT_EXPIRE): busy first, then EAGAIN and a mark the first time;
 * a second call with no use of the mount between unmounts it. */
static void umount_expire(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", MNT_EXPIRE));
	C(TMPFS("/m", 0, NULL));
	C(umount2("/m", MNT_EXPIRE));
	/* an open and close of the mount's root is a use: the mark goes */
	int fd = F(OPEN("/m", O_RDONLY | O_DIRECTORY));
	cl(fd);
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", MNT_EXPIRE));
	C(TMPFS("/m", 0, NULL));
	fd = F(OPEN("/m", O_RDONLY | O_DIRECTORY));
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", MNT_EXPIRE | MNT_FORCE));
	cl(fd);
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", MNT_EXPIRE));
	/* the lookup comes before the privilege check */
	C(TMPFS("/m", 0, NULL));
	C(setcred(1000, 1000));
	C(umount2("/missing", 0));
	C(umount2("", 0));
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", 0));
	C(setcred(0, 0));
	C(umount2("/m", MNT_EXPIRE));
	C(umount2("/m", 0));
}

static void mount_exdev(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/a", "a"));
	C(mkfile("/m/b", "b"));
	C(MKDIR("/m/d", 0755));
	C(RENAME("/a", "/m/a"));
	C(RENAME("/m/b", "/b"));
	C(RENAME2("/a", "/m/b", RENAME_EXCHANGE));
	C(LINK("/a", "/m/a"));
	C(LINK("/m/b", "/b"));
	C(RENAME("/m/b", "/m/d/b"));
	C(LINK("/m/d/b", "/m/b2"));
	C(RENAME("/m", "/m2"));
	C(RENAME("/a", "/m"));
	C(RMDIR("/m"));
	C(UNLINK("/m"));
	C(MKDIR("/e", 0755));
	C(RENAME("/e", "/m"));
	C(SYMLINK("/a", "/m/abs"));
	CAT("/m/abs");
	LS("/m");
	C(umount2("/m", 0));
}

static void umount_busy(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", "data"));
	C(MKDIR("/m/d", 0755));
	C(chdir("/m/d"));
	C(umount2("/m", 0));
	C(chdir("/"));
	int fd = F(OPEN("/m/f", O_RDONLY));
	C(umount2("/m", 0));
	C(umount2("/m", MNT_FORCE));
	cl(fd);
	C(umount2("/m", 0));
	/* lazy: detach now, files stay usable through their fds */
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/f", "still here"));
	fd = F(OPEN("/m/f", O_RDWR));
	int dfd = F(OPEN("/m", O_RDONLY | O_DIRECTORY));
	C(umount2("/m", MNT_DETACH));
	LS("/m");
	FCAT(fd);
	C(wr(fd, "++"));
	FCAT(fd);
	int g = F(openat(dfd, "f", O_RDONLY, 0));
	FCAT(g);
	cl(g);
	C(mkdirat(dfd, "newdir", 0755));
	C(umount2("/m", 0));
	cl(fd);
	cl(dfd);
	/* nested mounts: the parent is busy while the child is mounted */
	C(TMPFS("/m", 0, NULL));
	C(MKDIR("/m/n", 0755));
	C(TMPFS("/m/n", 0, NULL));
	C(umount2("/m", 0));
	C(umount2("/m/n", 0));
	C(umount2("/m", 0));
}

static void mount_rdonly(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", MS_RDONLY, NULL));
	C(mkfile("/m/f", "x"));
	C(MKDIR("/m/d", 0755));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, NULL));
	C(mkfile("/m/f", "data"));
	C(MKDIR("/m/d", 0755));
	C(SYMLINK("f", "/m/l"));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	int fd = F(OPEN("/m/f", O_RDONLY));
	cl(fd);
	F(OPEN("/m/f", O_WRONLY));
	F(OPEN("/m/f", O_RDWR));
	F(OPEN("/m/new", O_CREAT | O_RDWR));
	F(OPEN("/m/f", O_RDONLY | O_TRUNC));
	F(OPEN("/m", O_TMPFILE | O_RDWR));
	C(MKDIR("/m/d2", 0755));
	C(MKDIR("/m/d", 0755));
	C(UNLINK("/m/f"));
	C(UNLINK("/m/missing"));
	C(RMDIR("/m/d"));
	C(RENAME("/m/f", "/m/g"));
	C(LINK("/m/f", "/m/g"));
	C(SYMLINK("x", "/m/s"));
	C(MKNOD("/m/p", S_IFIFO | 0644, 0));
	C(CHMOD("/m/f", 0600));
	C(CHOWN("/m/f", 1, 1));
	C(utimensat(AT_FDCWD, "/m/f", NULL, 0));
	C(truncate("/m/f", 0));
	C(ACCESS("/m/f", W_OK));
	C(ACCESS("/m/f", R_OK));
	C(ACCESS("/m/d", W_OK));
	C(LCHOWN("/m/l", 1, 1));
	CAT("/m/l");
	STAT("/m/f");
	/* read does not update atime on a read-only mount */
	fd = F(OPEN("/m/f", O_RDONLY));
	char b[8];
	C(read(fd, b, sizeof b));
	C(fchmod(fd, 0600));
	C(fchown(fd, 0, 0));
	cl(fd);
	C(mount(NULL, "/m", NULL, MS_REMOUNT, NULL));
	fd = F(OPEN("/m/f", O_WRONLY));
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	C(wr(fd, "W"));
	cl(fd);
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	CAT("/m/f");
	C(mount(NULL, "/nowhere", NULL, MS_REMOUNT, NULL));
	C(mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	C(mkfile("/x", "x"));
	C(mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL));
	C(mkfile("/x", "x"));
}

static void bind_mounts(void)
{
	C(MKDIR("/a", 0755));
	C(MKDIR("/b", 0755));
	C(mkfile("/a/f", "in a"));
	C(mkfile("/file", "file"));
	C(mkfile("/target", "target"));
	C(mount("/a", "/b", NULL, MS_BIND, NULL));
	CAT("/b/f");
	SAME("/a/f", "/b/f");
	SAME("/a", "/b");
	C(mkfile("/b/g", "via b"));
	CAT("/a/g");
	C(RENAME("/a/f", "/b/f2"));
	C(LINK("/a/f", "/b/f2"));
	C(RENAME("/b/f", "/b/f3"));
	LS("/a");
	SAME("/b/..", "/");
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	C(mkfile("/b/h", "x"));
	C(mkfile("/a/h", "x"));
	CAT("/b/h");
	C(UNLINK("/b/h"));
	C(ACCESS("/b/h", W_OK));
	C(ACCESS("/a/h", W_OK));
	C(mount("/file", "/target", NULL, MS_BIND, NULL));
	CAT("/target");
	SAME("/file", "/target");
	C(UNLINK("/target"));
	C(RENAME("/target", "/t2"));
	C(mount("/missing", "/b", NULL, MS_BIND, NULL));
	C(mount("/a", "/file", NULL, MS_BIND, NULL));
	C(mount("/file", "/a", NULL, MS_BIND, NULL));
	C(umount2("/target", 0));
	CAT("/target");
	/* a bind of a subdirectory; MS_REC takes the mounts below along */
	C(MKDIR("/a/sub", 0755));
	C(TMPFS("/a/sub", 0, NULL));
	C(mkfile("/a/sub/deep", "deep"));
	C(MKDIR("/c", 0755));
	C(MKDIR("/r", 0755));
	C(mount("/a", "/c", NULL, MS_BIND, NULL));
	C(mount("/a", "/r", NULL, MS_BIND | MS_REC, NULL));
	CAT("/c/sub/deep");
	CAT("/r/sub/deep");
	C(umount2("/b", 0));
	C(umount2("/c", 0));
	C(umount2("/r", MNT_DETACH));
	C(umount2("/a/sub", 0));
	LS("/b");
}

/* MS_BIND|MS_REC onto a directory below the source: the copy is made
 * before it is attached, so it holds the source's mounts once and not
 * itself (Linux's copy_tree runs before attach_recursive_mnt). */
static void bind_rec_below_itself(void)
{
	C(MKDIR("/a", 0755));
	C(MKDIR("/a/m", 0755));
	C(MKDIR("/a/x", 0755));
	C(TMPFS("/a/m", 0, NULL));
	C(mkfile("/a/m/f", "m"));
	C(mount("/a", "/a/x", NULL, MS_BIND | MS_REC, NULL));
	LS("/a/x");
	LS("/a/x/m");
	LS("/a/x/x");
	CAT("/a/x/m/f");
	SAME("/a/m/f", "/a/x/m/f");
	C(umount2("/a/x/m", 0));
	LS("/a/x/m");
	LS("/a/m");
	C(umount2("/a/x", 0));
	C(umount2("/a/x", 0));
	LS("/a/x");
}

static void mount_stacking(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, NULL));
	C(mkfile("/m/first", "1"));
	C(TMPFS("/m", 0, NULL));
	LS("/m");
	C(mkfile("/m/second", "2"));
	C(umount2("/m", 0));
	LS("/m");
	C(umount2("/m", 0));
	LS("/m");
	/* an fd to the mount point taken before the mount sees the old dir */
	C(mkfile("/m/under", "u"));
	int fd = F(OPEN("/m", O_RDONLY | O_DIRECTORY));
	C(TMPFS("/m", 0, NULL));
	int g = F(openat(fd, "under", O_RDONLY, 0));
	cl(g);
	C(fchdir(fd));
	CAT("under");
	CAT("./under");
	C(chdir("/"));
	cl(fd);
	C(umount2("/m", 0));
}

static void mount_options(void)
{
	C(MKDIR("/s", 0755));
	C(MKDIR("/i", 0755));
	C(MKDIR("/o", 0755));
	C(TMPFS("/s", 0, "size=8k"));
	int fd = F(OPEN("/s/f", O_CREAT | O_RDWR));
	static char big[16384];
	memset(big, 'x', sizeof big);
	C(write(fd, big, sizeof big));
	C(write(fd, big, sizeof big));
	SIZEOF("/s/f");
	C(ftruncate(fd, 0));
	C(write(fd, big, 4096));
	C(pwrite(fd, big, 1, 1 << 20));
	C(ftruncate(fd, 1 << 30));
	SIZEOF("/s/f");
	cl(fd);
	C(TMPFS("/i", 0, "nr_inodes=3"));
	C(mkfile("/i/a", ""));
	C(mkfile("/i/b", ""));
	C(mkfile("/i/c", ""));
	C(MKDIR("/i/d", 0755));
	C(SYMLINK("x", "/i/l"));
	C(UNLINK("/i/a"));
	C(mkfile("/i/c2", ""));
	C(LINK("/i/b", "/i/b2"));
	LS("/i");
	C(TMPFS("/o", 0, "mode=0700,uid=1000,gid=2000"));
	STAT("/o");
	C(umount2("/o", 0));
	C(TMPFS("/o", 0, "mode=1777"));
	STAT("/o");
	C(umount2("/o", 0));
	C(TMPFS("/o", 0, "mode=755,size=1M,nr_inodes=10"));
	STAT("/o");
}

static void mount_flags(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", MS_NOEXEC, NULL));
	C(mkfile("/m/x", "#!/bin/sh\n"));
	C(CHMOD("/m/x", 0755));
	C(ACCESS("/m/x", X_OK));
	C(ACCESS("/m/x", R_OK));
	C(MKDIR("/m/d", 0755));
	C(ACCESS("/m/d", X_OK));
	C(umount2("/m", 0));
	C(TMPFS("/m", MS_NOATIME, NULL));
	C(mkfile("/m/f", "data"));
	AGE("/m/f");
	CAT("/m/f");
	TS("/m/f");
	C(umount2("/m", 0));
	C(TMPFS("/m", MS_NOSUID | MS_NODEV, NULL));
	C(MKNOD("/m/null", S_IFCHR | 0666, makedev(1, 3)));
	STAT("/m/null");
	C(umount2("/m", 0));
	/* remount of a bind mount changes that mount only */
	C(TMPFS("/m", 0, NULL));
	C(MKDIR("/b", 0755));
	C(mount("/m", "/b", NULL, MS_BIND, NULL));
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND | MS_NOEXEC, NULL));
	C(mkfile("/m/x", "x"));
	C(CHMOD("/m/x", 0755));
	C(ACCESS("/m/x", X_OK));
	C(ACCESS("/b/x", X_OK));
}

static void mount_over_root(void)
{
	C(mkfile("/old", "old"));
	C(TMPFS("/", 0, NULL));
	/* our root is still the covered directory: "/" does not cross into the
	 * new mount, paths below it neither */
	LS("/");
	CAT("/old");
	C(mkfile("/new", "n"));
	LS("/");
	SAME("/..", "/");
	C(umount2("/", 0));
	DOC(umount2("/", MNT_DETACH), "uvfs's root mount is the instance's rootfs and has no parent: EINVAL; "
				      "the host's root here is a pivot_root'ed mount that Linux detaches lazily");
	LS("/");
}

static void mountpoint_identity(void)
{
	C(MKDIR("/m", 0755));
	struct stat before, after;
	fstatat(AT_FDCWD, "/m", &before, 0);
	C(TMPFS("/m", 0, "mode=0700"));
	fstatat(AT_FDCWD, "/m", &after, 0);
	C(before.st_ino == after.st_ino && before.st_dev == after.st_dev);
	C(before.st_dev == after.st_dev);
	/* getdents of the parent reports the covered directory, not the mount's root */
	int fd = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	char buf[1024];
	long r = C(getdents64(fd, buf, sizeof buf));
	int covered = -1;
	for (long off = 0; off < r;) {
		struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
			(void *)(buf + off);
		if (!strcmp(d->name, "m"))
			covered = d->ino == before.st_ino ? 1 : d->ino == after.st_ino ? 2 : 0;
		off += d->reclen;
	}
	C(covered);
	cl(fd);
	struct statx sx;
	memset(&sx, 0, sizeof sx);
	C(statx(AT_FDCWD, "/m", 0, STATX_BASIC_STATS, &sx));
	C(!!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT));
	C(!!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT));
	C(statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx));
	C(!!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT));
	C(MKDIR("/m/sub", 0755));
	C(statx(AT_FDCWD, "/m/sub", 0, STATX_BASIC_STATS, &sx));
	C(!!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT));
	unsigned long long id1, id2, id3;
	C(statx(AT_FDCWD, "/m", 0, STATX_MNT_ID, &sx));
	C(!!(sx.stx_mask & STATX_MNT_ID));
	id1 = sx.stx_mnt_id;
	statx(AT_FDCWD, "/m/sub", 0, STATX_MNT_ID, &sx);
	id2 = sx.stx_mnt_id;
	statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &sx);
	id3 = sx.stx_mnt_id;
	C(id1 == id2);
	C(id1 == id3);
	STAT("/m");
}

static void remount_options(void)
{
	C(MKDIR("/m", 0755));
	C(TMPFS("/m", 0, "size=1M,nr_inodes=10"));
	struct statfs s;
	C(statfs("/m", &s));
	C(s.f_blocks);
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "size=2M"));
	C(statfs("/m", &s));
	C(s.f_blocks);
	C(s.f_files);
	C(mkfile("/m/a", ""));
	C(mkfile("/m/b", ""));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "nr_inodes=2"));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "nr_inodes=5"));
	C(statfs("/m", &s));
	C(s.f_files);
	C(s.f_ffree);
	C(mount(NULL, "/m", NULL, MS_REMOUNT, "mode=0700"));
	STAT("/m");
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, "size=4M"));
	C(statfs("/m", &s));
	C(s.f_blocks);
	C(s.f_flags & MS_RDONLY);
	C(mount(NULL, "/", NULL, MS_REMOUNT, "size=bogus"));
}

/* MS_PRIVATE, MS_SLAVE and MS_UNBINDABLE (Linux's do_change_type): every
 * mount of the sandbox is private, as every uvfs mount is; unbindable
 * refuses a bind from its mount and is left out of an MS_REC bind. */
static void mount_propagation(void)
{
	C(MKDIR("/m", 0755));
	C(MKDIR("/b", 0755));
	C(MKDIR("/r", 0755));
	C(TMPFS("/m", 0, NULL));
	C(MKDIR("/m/sub", 0755));
	C(mkfile("/m/f", "m"));
	C(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	C(mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL));
	C(mount(NULL, "/m", NULL, MS_SLAVE | MS_SILENT, NULL));
	C(mount(NULL, "/m", NULL, MS_PRIVATE, NULL));
	/* not a mount's root, two types, another flag, no such name */
	C(mount(NULL, "/m/sub", NULL, MS_PRIVATE, NULL));
	C(mount(NULL, "/b", NULL, MS_PRIVATE, NULL));
	C(mount(NULL, "/m", NULL, MS_PRIVATE | MS_SLAVE, NULL));
	C(mount(NULL, "/m", NULL, MS_PRIVATE | MS_UNBINDABLE, NULL));
	C(mount(NULL, "/m", NULL, MS_PRIVATE | MS_RDONLY, NULL));
	C(mount(NULL, "/m", NULL, MS_PRIVATE | MS_NOSUID | MS_REC, NULL));
	C(mount(NULL, "/missing", NULL, MS_PRIVATE, NULL));
	C(mount(NULL, "/m/sub", NULL, MS_PRIVATE | MS_SLAVE, NULL));
	/* a remount or a bind is taken before the propagation flags */
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_PRIVATE, NULL));
	C(mount("/m", "/b", NULL, MS_BIND | MS_PRIVATE, NULL));
	C(umount2("/b", 0));
	C(setcred(1000, 1000));
	C(mount(NULL, "/m", NULL, MS_PRIVATE, NULL));
	C(mount(NULL, "/m/sub", NULL, MS_PRIVATE, NULL));
	C(setcred(0, 0));
	C(mount(NULL, "/m", NULL, MS_UNBINDABLE, NULL));
	C(mount("/m", "/b", NULL, MS_BIND, NULL));
	C(mount("/m/sub", "/b", NULL, MS_BIND, NULL));
	C(mount("/m/f", "/b", NULL, MS_BIND, NULL));
	C(mount("/m", "/missing", NULL, MS_BIND, NULL));
	/* a recursive bind from above leaves it out, with what it covers */
	C(TMPFS("/m/sub", 0, NULL));
	C(mkfile("/m/sub/deep", "deep"));
	C(mount("/", "/r", NULL, MS_BIND | MS_REC, NULL));
	LS("/r/m");
	CAT("/r/m/f");
	C(umount2("/r", MNT_DETACH));
	/* the mount above it is bindable */
	C(mount("/m/sub", "/b", NULL, MS_BIND, NULL));
	CAT("/b/deep");
	C(umount2("/b", 0));
	/* a remount keeps it */
	C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	C(mount("/m", "/b", NULL, MS_BIND, NULL));
	C(mount(NULL, "/m", NULL, MS_REMOUNT, NULL));
	C(mount("/m", "/b", NULL, MS_BIND, NULL));
	/* private again, recursively from the root */
	C(mount(NULL, "/", NULL, MS_REC | MS_UNBINDABLE, NULL));
	C(mount("/m/sub", "/b", NULL, MS_BIND, NULL));
	C(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	C(mount("/m", "/b", NULL, MS_BIND | MS_REC, NULL));
	CAT("/b/sub/deep");
	C(umount2("/b", MNT_DETACH));
	/* a detached mount has no propagation to change */
	C(MKDIR("/d", 0755));
	C(TMPFS("/d", 0, NULL));
	C(chdir("/d"));
	C(umount2("/d", MNT_DETACH));
	C(mount(NULL, ".", NULL, MS_PRIVATE, NULL));
	C(mount(NULL, ".", NULL, MS_UNBINDABLE, NULL));
	C(chdir("/"));
	DOC(mount(NULL, "/m", NULL, MS_SHARED, NULL), "uvfs models no propagation (one mount namespace, every mount "
						    "private): MS_SHARED is EINVAL");
}

/* MS_MOVE (Linux's do_move_mount_old): a mount and the mounts above it
 * move onto the top of the target; cwds and open files inside go along. */
static void mount_move(void)
{
	char b[128];
	C(MKDIR("/a", 0755));
	C(MKDIR("/b", 0755));
	C(MKDIR("/c", 0755));
	C(mkfile("/a/under", "under a"));
	C(TMPFS("/a", 0, NULL));
	C(mkfile("/a/f", "on a"));
	C(MKDIR("/a/s", 0755));
	C(TMPFS("/a/s", 0, NULL));
	C(mkfile("/a/s/g", "on s"));
	C(MKDIR("/a/dir", 0755));
	C(chdir("/a/s"));
	int fd = F(OPEN("/a/f", O_RDONLY));
	C(mount("/a", "/b", NULL, MS_MOVE, NULL));
	LS("/a");
	CAT("/a/under");
	CAT("/b/f");
	CAT("/b/s/g");
	SAME("/b/..", "/");
	SAME("/b/s/..", "/b");
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	SAME(".", "/b/s");
	C(chdir("/"));
	cl(fd);
	/* the old place is no mount now; the new one is */
	C(umount2("/a", 0));
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	C(mkfile("/b/x", "x"));
	C(mount(NULL, "/b", NULL, MS_REMOUNT | MS_BIND, NULL));
	/* errors: the source, then the target, then the pair */
	C(mount("", "/c", NULL, MS_MOVE, NULL));
	C(mount(NULL, "/c", NULL, MS_MOVE, NULL));
	C(mount("/missing", "/c", NULL, MS_MOVE, NULL));
	C(mount("/missing", "/missing2", NULL, MS_MOVE, NULL));
	C(mount("/b", "/missing", NULL, MS_MOVE, NULL));
	C(mount("/b/dir", "/c", NULL, MS_MOVE, NULL));
	C(mount("/c", "/a", NULL, MS_MOVE, NULL));
	C(mount("/b", "/b/f", NULL, MS_MOVE, NULL));
	C(mount("/b", "/b/dir", NULL, MS_MOVE, NULL));
	C(mount("/b", "/b/s", NULL, MS_MOVE, NULL));
	C(mount("/b", "/b", NULL, MS_MOVE, NULL));
	C(mount("/b/s", "/b/s", NULL, MS_MOVE, NULL));
	C(mount("/", "/c", NULL, MS_MOVE, NULL));
	C(mkfile("/file", "file"));
	C(mkfile("/t", "t"));
	C(mount("/b", "/file", NULL, MS_MOVE, NULL));
	C(setcred(1000, 1000));
	C(mount("/b", "/c", NULL, MS_MOVE, NULL));
	C(setcred(0, 0));
	/* a submount moves out of its parent, and back */
	C(mount("/b/s", "/c", NULL, MS_MOVE, NULL));
	LS("/b/s");
	CAT("/c/g");
	C(umount2("/c", MNT_EXPIRE));
	C(mount("/c", "/b/s", NULL, MS_MOVE, NULL));
	CAT("/b/s/g");
	C(umount2("/b", 0));
	/* onto the top of its own parent's root */
	C(mount("/b/s", "/b/dir/../s/..", NULL, MS_MOVE, NULL));
	LS("/b");
	C(umount2("/b", 0));
	LS("/b");
	/* a file's bind mount moves onto a file */
	C(mount("/file", "/t", NULL, MS_BIND, NULL));
	C(mkfile("/t2", "t2"));
	C(mount("/t", "/t2", NULL, MS_MOVE, NULL));
	CAT("/t");
	CAT("/t2");
	C(mount("/t2", "/c", NULL, MS_MOVE, NULL));
	C(umount2("/t2", 0));
	/* onto a stack: on its top */
	C(TMPFS("/c", 0, NULL));
	C(mkfile("/c/one", "1"));
	C(TMPFS("/c", 0, NULL));
	C(mkfile("/c/two", "2"));
	C(mount("/b", "/c", NULL, MS_MOVE, NULL));
	LS("/c");
	C(umount2("/c", 0));
	LS("/c");
	C(umount2("/c", 0));
	LS("/c");
	C(umount2("/c", 0));
	LS("/c");
	C(umount2("/b", 0));
	/* a detached tree neither gives nor takes a mount */
	C(MKDIR("/d", 0755));
	C(TMPFS("/d", 0, NULL));
	C(MKDIR("/d/in", 0755));
	C(TMPFS("/a", 0, NULL));
	C(chdir("/d"));
	C(umount2("/d", MNT_DETACH));
	C(mount("/a", ".", NULL, MS_MOVE, NULL));
	C(mount("/a", "in", NULL, MS_MOVE, NULL));
	C(mount(".", "/c", NULL, MS_MOVE, NULL));
	C(chdir("/"));
	/* nor a removed directory */
	C(MKDIR("/gone", 0755));
	C(chdir("/gone"));
	C(RMDIR("/gone"));
	C(mount("/a", ".", NULL, MS_MOVE, NULL));
	/* which comes first: a source that is no mount's root, or of the
	 * other type, before the target's ENOENT; a detached source after
	 * (fuzz -s 0xa06f45b7c3669bdb -i 8970) */
	C(MKDIR("/plain", 0755));
	C(mount("/plain", ".", NULL, MS_MOVE, NULL));
	C(mkfile("/ff", "f"));
	C(mount("/ff", ".", NULL, MS_MOVE, NULL));
	C(MKDIR("/e", 0755));
	C(TMPFS("/e", 0, NULL));
	C(MKDIR("/e/in", 0755));
	int efd = F(OPEN("/e", O_RDONLY | O_DIRECTORY));
	C(umount2("/e", MNT_DETACH));
	C(fchdir(efd));
	C(mount(".", "/gone2", NULL, MS_MOVE, NULL));
	C(mount("/plain", "in", NULL, MS_MOVE, NULL));
	C(mount("/ff", "in", NULL, MS_MOVE, NULL));
	C(mount("/a", "in", NULL, MS_MOVE, NULL));
	cl(efd);
	C(chdir("/"));
	C(umount2("/a", 0));
}

/* pivot_root (Linux's): new_root's mount takes the root mount's place,
 * which goes onto put_old; a proc whose root or cwd was the old root moves
 * to the new one, others keep theirs.  Then the idiom of container
 * runtimes: pivot_root(".", ".") and umount2(".", MNT_DETACH). */
static void mount_pivot_root(void)
{
	char b[128];
	C(MKDIR("/new", 0755));
	C(MKDIR("/plain", 0755));
	C(mkfile("/oldfile", "old root"));
	C(mkfile("/file", "f"));
	C(pivot_root("/missing", "/plain"));
	C(pivot_root("/file", "/plain"));
	C(pivot_root("/new", "/file"));
	C(pivot_root("/new", "/missing"));
	C(pivot_root("/plain", "/plain"));
	C(pivot_root("/", "/plain"));
	C(pivot_root("", "/plain"));
	C(TMPFS("/new", 0, NULL));
	C(MKDIR("/new/old", 0755));
	C(MKDIR("/new/sub", 0755));
	C(mkfile("/new/f", "new root"));
	C(pivot_root("/new", "/plain"));
	C(pivot_root("/new/sub", "/new/old"));
	C(pivot_root("/new", "/new/missing"));
	C(pivot_root("/new", "/new/f"));
	C(setcred(1000, 1000));
	C(pivot_root("/new", "/new/old"));
	C(pivot_root("/missing", "/missing"));
	C(setcred(0, 0));
	/* a proc at the old root, one elsewhere */
	int at_root = C(proc_clone(0));
	int in_dir = C(proc_clone(0));
	C(proc_use(in_dir));
	C(chdir("/plain"));
	C(proc_use(0));
	int fd = F(OPEN("/oldfile", O_RDONLY));
	C(chdir("/plain"));
	C(pivot_root("/new", "/new/old"));
	LS("/");
	CAT("/f");
	LS("/old");
	CAT("/old/oldfile");
	FCAT(fd);
	cl(fd);
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	SAME("/old/..", "/");
	SAME("/..", "/");
	SAME(".", "/old/plain");
	C(proc_use(at_root));
	C(getcwd(b, sizeof b));
	CS("cwd of a proc at the old root", b);
	LS("/");
	C(proc_use(in_dir));
	C(getcwd(b, sizeof b));
	CS("cwd of a proc elsewhere", b);
	C(proc_use(0));
	C(proc_destroy(at_root));
	C(proc_destroy(in_dir));
	/* the new root is no mount's root any more where it was; again is EBUSY */
	C(pivot_root("/", "/old"));
	C(chdir("/"));
	C(umount2("/old", MNT_DETACH));
	LS("/old");
	C(pivot_root("/sub", "/old"));
	/* pivot_root(".", ".") stacks the old root on the new one: umount2(".")
	 * takes it off */
	C(MKDIR("/n2", 0755));
	C(TMPFS("/n2", 0, NULL));
	C(mkfile("/n2/g", "g"));
	C(chdir("/n2"));
	C(pivot_root(".", "."));
	LS(".");
	C(umount2(".", MNT_DETACH));
	LS(".");
	C(chdir("/"));
	LS("/");
	CAT("/g");
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(MKDIR("/n3", 0755));
	C(chdir("/n3"));
	C(RMDIR("/n3"));
	C(pivot_root("/", "."));
	/* put_old in a detached tree: ENOENT, before the other checks */
	C(MKDIR("/dt", 0755));
	C(TMPFS("/dt", 0, NULL));
	C(chdir("/dt"));
	C(umount2("/dt", MNT_DETACH));
	C(pivot_root("/", "."));
	C(chdir("/"));
}

/* pivot_root and a proc chrooted elsewhere: it keeps its root, and its cwd
 * is now outside the tree its root is in. */
static void mount_pivot_root_jailed(void)
{
	char b[128];
	C(MKDIR("/new", 0755));
	C(MKDIR("/plain", 0755));
	C(TMPFS("/new", 0, NULL));
	C(MKDIR("/new/old", 0755));
	int jailed = C(proc_clone(0));
	C(proc_use(jailed));
	C(chroot("/plain"));
	C(proc_use(0));
	C(pivot_root("/new", "/new/old"));
	C(proc_use(jailed));
	C(getcwd(b, sizeof b));
	CS("cwd of a jailed proc", b);
	LS("/");
	C(chdir("/"));
	C(getcwd(b, sizeof b));
	CS("its root", b);
	C(proc_use(0));
	C(proc_destroy(jailed));
}

const struct scenario mounts_scenarios[] = {
	{ "mount_basic", mount_basic },
	{ "mount_errors", mount_errors },
	{ "remount_ro_writers", remount_ro_writers },
	{ "umount_expire", umount_expire },
	{ "mount_exdev", mount_exdev },
	{ "umount_busy", umount_busy },
	{ "mount_rdonly", mount_rdonly },
	{ "bind_mounts", bind_mounts },
	{ "bind_rec_below_itself", bind_rec_below_itself },
	{ "mount_stacking", mount_stacking },
	{ "mount_options", mount_options },
	{ "mount_flags", mount_flags },
	{ "mount_over_root", mount_over_root },
	{ "mountpoint_identity", mountpoint_identity },
	{ "remount_options", remount_options },
	{ "mount_propagation", mount_propagation },
	{ "mount_move", mount_move },
	{ "mount_pivot_root", mount_pivot_root },
	{ "mount_pivot_root_jailed", mount_pivot_root_jailed },
	{ NULL, NULL },
};
