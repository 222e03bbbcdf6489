/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dirs.c - getdents64, directory offsets, link counts, cwd, chroot. */
#include "conf.h"


/* Reads the whole directory through fd; returns the number of entries, fills
 * names (sorted not) and checks record sanity. */
static int read_all(int fd, size_t bufsz, char names[][64], int max, int *sane)
{
	char buf[8192];
	int n = 0;
	*sane = 1;
	for (;;) {
		ssize_t r = getdents64(fd, buf, bufsz);
		if (r < 0)
			return (int)r;
		if (r == 0)
			break;
		for (ssize_t off = 0; off < r;) {
			struct dent *d = (void *)(buf + off);
			if (d->d_reclen == 0 || d->d_reclen % 8 || off + d->d_reclen > r) {
				*sane = 0;
				break;
			}
			if (n < max)
				snprintf(names[n], 64, "%s", d->d_name);
			n++;
			off += d->d_reclen;
		}
	}
	return n;
}

static int count_name(char names[][64], int n, const char *name)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		c += !strcmp(names[i], name);
	return c;
}

static void getdents_basic(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/file", "x"));
	C(MKDIR("/d/sub", 0755));
	C(SYMLINK("file", "/d/link"));
	C(MKNOD("/d/fifo", S_IFIFO | 0644, 0));
	C(MKNOD("/d/chr", S_IFCHR | 0644, makedev(1, 3)));
	C(MKNOD("/d/sock", S_IFSOCK | 0644, 0));
	LS("/d");
	LS("/");
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	char buf[4096];
	long r = C(getdents64(fd, buf, sizeof buf));
	C(getdents64(fd, buf, sizeof buf));
	/* every record's d_ino is the inode of the name; d_reclen is 8-aligned */
	int ino_ok = 1, align_ok = 1, n = 0;
	for (long off = 0; off < r;) {
		struct dent *d = (void *)(buf + off);
		struct stat st;
		if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ino != d->d_ino)
			ino_ok = 0;
		if (d->d_reclen % 8)
			align_ok = 0;
		n++;
		off += d->d_reclen;
	}
	C(ino_ok);
	C(align_ok);
	C(n);
	C(lseek(fd, 0, SEEK_SET));
	C(getdents64(fd, buf, sizeof buf) == r);
	cl(fd);
	fd = F(OPEN("/d/file", O_RDONLY));
	C(getdents64(fd, buf, sizeof buf));
	cl(fd);
	C(getdents64(-1, buf, sizeof buf));
	C(getdents64(42, buf, sizeof buf));
	fd = F(OPEN("/d", O_PATH));
	C(getdents64(fd, buf, sizeof buf));
	cl(fd);
	/* an empty directory has . and .. only */
	C(MKDIR("/e", 0755));
	LS("/e");
	/* contents follow creates and unlinks */
	C(UNLINK("/d/file"));
	C(RMDIR("/d/sub"));
	C(RENAME("/d/link", "/d/link2"));
	LS("/d");
}

static void getdents_small_buffer(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/abcdefghijklmnop", ""));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	char buf[4096];
	C(getdents64(fd, buf, 0));
	C(getdents64(fd, buf, 1));
	C(getdents64(fd, buf, 23));
	/* 24 bytes hold one record with a name of up to 4 characters */
	long r = C(getdents64(fd, buf, 24));
	C(r > 0 ? (long)((struct dent *)buf)->d_reclen : r);
	C(getdents64(fd, buf, 24));
	C(getdents64(fd, buf, 24));
	/* the long name needs 40 bytes: 24 is too small, and nothing is skipped */
	int got = 0;
	for (int i = 0; i < 4; i++) {
		r = getdents64(fd, buf, 24);
		if (r > 0 && strcmp(((struct dent *)buf)->d_name, "abcdefghijklmnop") == 0)
			got++;
	}
	C(got);
	r = C(getdents64(fd, buf, 40));
	C(r > 0 && strcmp(((struct dent *)buf)->d_name, "abcdefghijklmnop") == 0);
	C(getdents64(fd, buf, sizeof buf));
	cl(fd);
	/* a buffer for exactly two records */
	fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	C(getdents64(fd, buf, 48));
	cl(fd);
}

static void getdents_offsets_stable(void)
{
	C(MKDIR("/d", 0755));
	for (int i = 0; i < 20; i++)
		mkfile(fmt("/d/f%02d", i), "");
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	char buf[4096];
	/* read the first 5 entries one record at a time (32 bytes fits "fNN") */
	char first[8][64];
	int64_t offs[8];
	int k = 0;
	for (int i = 0; i < 5; i++) {
		ssize_t r = getdents64(fd, buf, 32);
		if (r <= 0)
			break;
		struct dent *d = (void *)buf;
		snprintf(first[k], 64, "%.63s", d->d_name);
		offs[k++] = d->d_off;
	}
	C(k);
	/* remove every name not yet returned with an odd number, add new ones */
	int removed = 0;
	for (int i = 1; i < 20; i += 2) {
		const char *n = fmt("f%02d", i);
		int seen = 0;
		for (int j = 0; j < k; j++)
			seen |= !strcmp(first[j], n);
		if (!seen && UNLINK(fmt("/d/%s", n)) == 0)
			removed++;
	}
	/* (how many were removed depends on the order entries come in) */
	for (int i = 0; i < 5; i++)
		mkfile(fmt("/d/new%d", i), "");
	/* the rest: no name twice, every survivor once, nothing removed */
	char rest[64][64];
	int sane;
	int n = read_all(fd, 64, rest, 64, &sane);
	int dup = 0, missing = 0, ghost = 0;
	for (int i = 0; i < 20; i++) {
		const char *nm = fmt("f%02d", i);
		int before = 0;
		for (int j = 0; j < k; j++)
			before += !strcmp(first[j], nm);
		int after = count_name(rest, n, nm);
		int exists = same_ino(fmt("/d/%s", nm), fmt("/d/%s", nm)) == 1;
		if (before + after > 1)
			dup++;
		if (exists && before + after == 0)
			missing++;
		if (!exists && after)
			ghost++;
	}
	C(sane);
	C(dup);
	C(missing);
	C(ghost);
	C(count_name(rest, n, ".") + count_name(rest, n, ".."));
	/* seeking back to a returned d_off resumes right after that entry */
	C(lseek(fd, offs[1], SEEK_SET) == offs[1]);
	ssize_t r = getdents64(fd, buf, 32);
	C(r > 0);
	/* stable directory offsets on tmpfs: Linux 6.6 */
	C_SINCE(6, 6, r > 0 && !strcmp(((struct dent *)buf)->d_name, first[2]));
	C(lseek(fd, 0, SEEK_SET));
	char all[64][64];
	n = read_all(fd, sizeof buf, all, 64, &sane);
	C(n == 20 - removed + 5 + 2);
	C(count_name(all, n, "new3"));
	C(count_name(all, n, "f00") + count_name(all, n, "f02"));
	cl(fd);
}

static void getdents_removed_dir(void)
{
	C(MKDIR("/d", 0755));
	C(mkfile("/d/a", ""));
	int fd = F(OPEN("/d", O_RDONLY | O_DIRECTORY));
	char buf[256];
	C(getdents64(fd, buf, 24));
	C(UNLINK("/d/a"));
	C(RMDIR("/d"));
	C(getdents64(fd, buf, sizeof buf));
	C(lseek(fd, 0, SEEK_SET));
	C(getdents64(fd, buf, sizeof buf));
	FSTAT(fd);
	cl(fd);
}

static void dir_nlink(void)
{
	NLINKS("/");
	C(MKDIR("/a", 0755));
	NLINKS("/");
	NLINKS("/a");
	C(MKDIR("/a/b", 0755));
	C(MKDIR("/a/c", 0755));
	NLINKS("/a");
	C(mkfile("/a/f", ""));
	NLINKS("/a");
	C(RMDIR("/a/b"));
	NLINKS("/a");
	C(RENAME("/a/c", "/c"));
	NLINKS("/a");
	NLINKS("/");
	C(MKDIR("/x", 0755));
	C(RENAME("/c", "/x"));
	NLINKS("/");
	C(RMDIR("/x"));
	NLINKS("/");
	int fd = F(OPEN("/a", O_RDONLY));
	C(RMDIR("/a"));
	C(UNLINK("/a/f"));
	C(RMDIR("/a"));
	FSTAT(fd);
	NLINKS("/");
	cl(fd);
}

static void chdir_getcwd(void)
{
	char b[256];
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(MKDIR("/d", 0755));
	C(MKDIR("/d/e", 0755));
	C(mkfile("/f", "x"));
	C(SYMLINK("d/e", "/le"));
	C(chdir("/d"));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(chdir("e"));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(getcwd(b, 6));
	C(getcwd(b, 7));
	C(getcwd(b, 1));
	C(getcwd(b, 0));
	C(chdir("/le"));
	C(getcwd(b, sizeof b));
	CS("cwd via symlink", b);
	C(chdir("/f"));
	C(chdir("/missing"));
	C(chdir(""));
	C(chdir("/f/"));
	C(getcwd(b, sizeof b));
	CS("cwd unchanged", b);
	int fd = F(OPEN("/d", O_RDONLY));
	C(fchdir(fd));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	cl(fd);
	fd = F(OPEN("/f", O_RDONLY));
	C(fchdir(fd));
	cl(fd);
	C(fchdir(99));
	C(chdir("/"));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	/* relative names resolve from the cwd; absolute ones do not */
	C(chdir("/d"));
	C(mkfile("rel", "r"));
	CAT("/d/rel");
	C(MKDIR("e/g", 0755));
	STAT("/d/e/g");
	fd = F(openat(AT_FDCWD, "/f", O_RDONLY, 0));
	cl(fd);
	/* renaming the cwd's parent shows in getcwd */
	C(RENAME("/d", "/dd"));
	C(getcwd(b, sizeof b));
	CS("cwd after rename", b);
	C(chdir("e/g"));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	C(chdir("../../.."));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
}

static void chroot_jail(void)
{
	char b[256];
	C(MKDIR("/jail", 0755));
	C(MKDIR("/jail/in", 0755));
	C(mkfile("/jail/f", "inside"));
	C(mkfile("/f", "outside"));
	C(SYMLINK("/f", "/jail/abs"));
	C(MKDIR("/out", 0755));
	int outfd = F(OPEN("/out", O_RDONLY | O_DIRECTORY));
	C(chroot("/missing"));
	C(chroot("/f"));
	C(chroot(""));
	C(chroot("/jail"));
	/* the cwd is outside the new root until we move it */
	C(getcwd(b, sizeof b));
	CS("cwd outside root", b);
	CAT("f");
	C(chdir("/"));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	CAT("/f");
	CAT("/abs");
	CAT("/../f");
	CAT("/in/../../f");
	SAME("/..", "/");
	LS("/");
	C(chdir("/in"));
	C(getcwd(b, sizeof b));
	CS("cwd", b);
	/* an fd from outside still reaches outside */
	C(fchdir(outfd));
	C(getcwd(b, sizeof b));
	CS("cwd via fd from outside", b);
	CAT("../f");
	C(chdir("/"));
	/* chroot again, relative to the current root */
	C(chroot("in"));
	C(chdir("/"));
	LS("/");
	cl(outfd);
}

static void chroot_perm(void)
{
	C(MKDIR("/j", 0755));
	C(setcred(1000, 1000));
	C(chroot("/j"));
	C(setcred(0, 0));
	C(CHMOD("/j", 0));
	C(chroot("/j"));
	C(setcred(1000, 1000));
	C(chdir("/j"));
	C(setcred(0, 0));
	C(chdir("/j"));
}

static void proc_fs_state(void)
{
	char b[64];
	C(MKDIR("/d", 0755));
	C(MKDIR("/j", 0755));
	C(mkfile("/j/f", "in jail"));
	/* without CLONE_FS: cwd, umask and root are copies */
	int k = C(proc_clone(0));
	C(proc_use(k));
	C(chdir("/d"));
	C(umask(077));
	C(chroot("/j"));
	CAT("/f");
	C(getcwd(b, sizeof b));
	CS("child cwd", b);
	C(proc_use(0));
	C(getcwd(b, sizeof b));
	CS("parent cwd", b);
	C(umask(022));
	CAT("/j/f");
	C(proc_destroy(k));
	/* with CLONE_FS they are shared */
	k = C(proc_clone(0x2));
	C(proc_use(k));
	C(chdir("/d"));
	C(umask(077));
	C(proc_use(0));
	C(getcwd(b, sizeof b));
	CS("parent cwd", b);
	C(umask(022));
	C(proc_use(k));
	C(umask(022));
	C(chroot("/j"));
	C(proc_use(0));
	CAT("/f");
	C(getcwd(b, sizeof b));
	CS("parent cwd after shared chroot", b);
	C(proc_destroy(k));
	CAT("/f");
}

static void proc_creds(void)
{
	C(MKDIR("/d", 0777));
	C(CHMOD("/d", 0777));
	int k = C(proc_clone(0x1 | 0x2));
	C(proc_use(k));
	C(setcred(1000, 1000));
	C(mkfile("/d/by_child", "c"));
	int fd = F(OPEN("/d/by_child", O_RDWR));
	C(proc_use(0));
	C(mkfile("/d/by_parent", "p"));
	STAT("/d/by_child");
	STAT("/d/by_parent");
	/* the fd opened by the unprivileged proc works for us, and vice versa */
	C(wr(fd, "X"));
	C(CHMOD("/d/by_parent", 0600));
	int g = F(OPEN("/d/by_parent", O_RDONLY));
	C(proc_use(k));
	char b[4] = { 0 };
	C(pread(g, b, 1, 0));
	F(OPEN("/d/by_parent", O_RDONLY));
	C(proc_use(0));
	C(proc_destroy(k));
	CAT("/d/by_child");
	cl(fd);
	cl(g);
}

const struct scenario dirs_scenarios[] = {
	{ "getdents_basic", getdents_basic },
	{ "getdents_small_buffer", getdents_small_buffer },
	{ "getdents_offsets_stable", getdents_offsets_stable },
	{ "getdents_removed_dir", getdents_removed_dir },
	{ "dir_nlink", dir_nlink },
	{ "chdir_getcwd", chdir_getcwd },
	{ "chroot_jail", chroot_jail },
	{ "chroot_perm", chroot_perm },
	{ "proc_fs_state", proc_fs_state, NEEDS_PROCS },
	{ "proc_creds", proc_creds, NEEDS_PROCS },
	{ NULL, NULL },
};
