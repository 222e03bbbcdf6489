/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fhandle.c - scenarios for name_to_handle_at and open_by_handle_at: the
 * errors in Linux's order (flags, the walk, the handle's size, EOVERFLOW
 * with the size needed; the mount fd, the handle, privilege, a stale
 * handle), handles that survive renames and the loss of one of two names,
 * what the opened file is (a file, a directory, a symlink with and without
 * AT_SYMLINK_FOLLOW), the open flags, another superblock's mount fd.
 *
 * The handle's bytes are not compared (the host's tmpfs has a random
 * generation; uvfs's is 0), only their number and type, and what opening
 * them gives.
 */
#include "conf.h"

#define N2H(d, p, h, m, f) B->name_to_handle_at(BX, d, p, h, m, f)
#define OBH(m, h, f) B->open_by_handle_at(BX, m, h, f)
#define setresuid(r, e, s) B->setresuid(BX, r, e, s)
#define KEEP ((uid_t)-1)

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif

struct fh {
	struct file_handle h;
	unsigned char buf[128];
};

static struct fh *fh_new(unsigned bytes)
{
	static struct fh pool[8];
	static unsigned next;
	struct fh *f = &pool[next++ % 8];

	memset(f, 0, sizeof(*f));
	f->h.handle_bytes = bytes;
	return f;
}

static void fh_name_errors(void)
{
	int mid = 0;
	struct fh *f = fh_new(128);

	C(mkfile("/a", "abc"));
	C(MKDIR("/d", 0755));
	C(N2H(AT_FDCWD, "/a", &f->h, &mid, 0x4));
	C(N2H(AT_FDCWD, "/nonexistent", &f->h, &mid, 0x4));
	C(N2H(AT_FDCWD, "/nonexistent", &f->h, &mid, 0));
	C(N2H(AT_FDCWD, "/a/x", &f->h, &mid, 0));
	C(N2H(AT_FDCWD, "", &f->h, &mid, 0));
	f->h.handle_bytes = 129;
	C(N2H(AT_FDCWD, "/nonexistent", &f->h, &mid, 0));
	C(N2H(AT_FDCWD, "/a", &f->h, &mid, 0));
	f->h.handle_bytes = 0;
	C(N2H(AT_FDCWD, "/a", &f->h, &mid, 0));
	C(f->h.handle_bytes);
	C(f->h.handle_type);
	f->h.handle_bytes = 11;
	C(N2H(AT_FDCWD, "/a", &f->h, &mid, 0));
	C(f->h.handle_bytes);
	f->h.handle_bytes = 12;
	C(N2H(AT_FDCWD, "/a", &f->h, &mid, 0));
	C(f->h.handle_bytes);
	C(f->h.handle_type);
	f->h.handle_bytes = 128;
	C(N2H(AT_FDCWD, "/d", &f->h, &mid, 0));
	C(f->h.handle_bytes);
	C(f->h.handle_type);
	int fd = F(OPEN("/a", O_RDONLY));
	f->h.handle_bytes = 128;
	C(N2H(fd, "", &f->h, &mid, 0));
	C(N2H(fd, "", &f->h, &mid, AT_EMPTY_PATH));
	C(N2H(fd, "x", &f->h, &mid, AT_EMPTY_PATH));
	C(N2H(AT_FDCWD, "/d", &f->h, &mid, AT_HANDLE_FID));
	C(f->h.handle_bytes);
	cl(fd);
}

static void fh_open(void)
{
	int mid = 0;
	struct fh *fa = fh_new(128), *fd_ = fh_new(128), *fl = fh_new(128), *ft = fh_new(128);

	C(mkfile("/a", "abc"));
	C(MKDIR("/d", 0755));
	C(mkfile("/d/b", "in d"));
	C(SYMLINK("a", "/l"));
	int root = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	C(N2H(AT_FDCWD, "/a", &fa->h, &mid, 0));
	C(N2H(AT_FDCWD, "/d", &fd_->h, &mid, 0));
	C(N2H(AT_FDCWD, "/l", &fl->h, &mid, 0));
	C(N2H(AT_FDCWD, "/l", &ft->h, &mid, AT_SYMLINK_FOLLOW));
	int x = F(OBH(root, &fa->h, O_RDONLY));
	FSTAT(x);
	FCAT(x);
	cl(x);
	x = F(OBH(root, &fa->h, O_RDWR));
	C(write(x, "xyz", 3));
	cl(x);
	CAT("/a");
	x = F(OBH(root, &fd_->h, O_RDONLY | O_DIRECTORY));
	FSTAT(x);
	C(openat(x, "b", O_RDONLY, 0) >= 0);
	cl(x);
	x = F(OBH(root, &fl->h, O_PATH));
	FSTAT(x);
	cl(x);
	C(OBH(root, &fl->h, O_RDONLY));
	x = F(OBH(root, &ft->h, O_RDONLY));
	FSTAT(x);
	cl(x);
	x = F(OBH(root, &fa->h, O_PATH));
	FSTAT(x);
	cl(x);
	C(OBH(root, &fa->h, O_RDONLY | O_DIRECTORY));
	C(OBH(root, &fa->h, O_WRONLY | O_CREAT | O_EXCL));
	x = F(OBH(root, &fa->h, O_WRONLY | O_CREAT));
	cl(x);
	C(OBH(root, &fd_->h, O_WRONLY));
	x = F(OBH(AT_FDCWD, &fa->h, O_RDONLY));
	cl(x);
	x = F(OBH(root, &fa->h, O_RDONLY | O_TRUNC));
	cl(x);
	CAT("/a");
	cl(root);
}

static void fh_stale(void)
{
	int mid = 0;
	struct fh *fa = fh_new(128), *fb = fh_new(128), *fc = fh_new(128);

	C(mkfile("/a", "abc"));
	C(mkfile("/b", "b"));
	C(MKDIR("/d", 0755));
	C(MKDIR("/m", 0755));
	int root = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	C(N2H(AT_FDCWD, "/a", &fa->h, &mid, 0));
	C(N2H(AT_FDCWD, "/b", &fb->h, &mid, 0));
	C(N2H(AT_FDCWD, "/d", &fc->h, &mid, 0));
	/* renamed, and one of two names gone: the same inode */
	C(RENAME("/a", "/d/a2"));
	C(LINK("/d/a2", "/a3"));
	C(UNLINK("/d/a2"));
	int x = F(OBH(root, &fa->h, O_RDONLY));
	FCAT(x);
	cl(x);
	C(RENAME("/d", "/d2"));
	x = F(OBH(root, &fc->h, O_RDONLY | O_DIRECTORY));
	FSTAT(x);
	cl(x);
	/* no name left, still open */
	int o = F(OPEN("/a3", O_RDONLY));
	C(UNLINK("/a3"));
	x = OBH(root, &fa->h, O_RDONLY);
	DOC(x >= 0, "uvfs finds a handle's inode in its superblock's dentry tree (no map of numbers is kept on "
		    "create and unlink): an unlinked file still open is ESTALE, Linux's tmpfs opens it");
	if (x >= 0)
		cl(x);
	cl(o);
	C(OBH(root, &fa->h, O_RDONLY));
	/* gone */
	C(UNLINK("/b"));
	C(OBH(root, &fb->h, O_RDONLY));
	C(OBH(root, &fb->h, O_PATH));
	/* the generation, the number, a short handle */
	C(mkfile("/a", "new"));
	C(N2H(AT_FDCWD, "/a", &fa->h, &mid, 0));
	fa->buf[0] ^= 1;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->buf[0] ^= 1;
	fa->buf[4] ^= 0x80;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->buf[4] ^= 0x80;
	fa->h.handle_bytes = 8;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->h.handle_bytes = 12;
	/* the type is not looked at, unless negative or with unknown flags */
	fa->h.handle_type = 99;
	x = F(OBH(root, &fa->h, O_RDONLY));
	cl(x);
	fa->h.handle_type = -1;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->h.handle_type = 0x40001;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->h.handle_type = 1;
	fa->h.handle_bytes = 0;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->h.handle_bytes = 129;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->h.handle_bytes = 12;
	C(OBH(-1, &fa->h, O_RDONLY));
	C(OBH(99, &fa->h, O_RDONLY));
	/* another superblock's mount fd */
	C(TMPFS("/m", 0, NULL));
	int m = F(OPEN("/m", O_RDONLY | O_DIRECTORY));
	C(OBH(m, &fa->h, O_RDONLY));
	cl(m);
	C(umount2("/m", 0));
	cl(root);
}

static void fh_unprivileged(void)
{
	int mid = 0;
	struct fh *fa = fh_new(128);

	C(mkfile("/a", "abc"));
	C(CHMOD("/a", 0644));
	int root = F(OPEN("/", O_RDONLY | O_DIRECTORY));
	C(setresuid(KEEP, 1000, KEEP));
	C(N2H(AT_FDCWD, "/a", &fa->h, &mid, 0));
	C(OBH(root, &fa->h, O_RDONLY));
	C(OBH(-1, &fa->h, O_RDONLY));
	fa->h.handle_bytes = 0;
	C(OBH(root, &fa->h, O_RDONLY));
	fa->h.handle_bytes = 12;
	C(setresuid(KEEP, 0, KEEP));
	int x = F(OBH(root, &fa->h, O_RDONLY));
	FCAT(x);
	cl(x);
	cl(root);
}

/* Handles and pseudo files, which have no mount in uvfs: a pipe has no
 * handle (EOPNOTSUPP) and, as mount_fd, no handle opens through it
 * (ESTALE; uvfs read the missing mount and crashed); a memfd has a tmpfs
 * handle.  (Its own handle opened through it is a documented difference:
 * an inode with no name is not found, docs/ARCHITECTURE.md.) */
static void fh_pseudo_files(void)
{
	int mid = 0;
	struct fh *f = fh_new(128);
	int p[2] = { -1, -1 };
	C(B->pipe2(BX, p, 0));
	C(N2H(p[0], "", &f->h, &mid, AT_EMPTY_PATH));
	C(mkfile("/a", "abc"));
	f->h.handle_bytes = 128;
	C(N2H(AT_FDCWD, "/a", &f->h, &mid, 0));
	C(OBH(p[0], &f->h, O_RDONLY));
	C(OBH(p[1], &f->h, O_RDONLY));
	int m = F(B->memfd_create(BX, "m", 0));
	C(OBH(m, &f->h, O_RDONLY));
	struct fh *g = fh_new(128);
	C(N2H(m, "", &g->h, &mid, AT_EMPTY_PATH));
	C(g->h.handle_bytes);
	C(g->h.handle_type);
	C(OBH(p[0], &g->h, O_RDONLY));
	cl(m);
	cl(p[0]);
	cl(p[1]);
}

const struct scenario fhandle_scenarios[] = {
	{ "fh_name_errors", fh_name_errors },
	{ "fh_open", fh_open },
	{ "fh_stale", fh_stale },
	{ "fh_unprivileged", fh_unprivileged },
	{ "fh_pseudo_files", fh_pseudo_files },
	{ NULL, NULL },
};
