/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * customfs.c - a filesystem of the program's own, defined only through
 * <uvfs_fs.h>: a read-only tree served from a static table in memory,
 * registered with an instance, mounted, used through the ordinary calls,
 * then unmounted and unregistered.  Start here to serve files from a
 * database, an archive or a network source: replace the table.
 *
 * Prints "N passed, N failed" and exits non-zero when a check failed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <uvfs.h>
#include <uvfs_fs.h>

/*
 * The whole filesystem.  A node is a pointer to its row; the VFS treats it
 * as opaque and hands it back in every call.  The rows never change or go,
 * so there is nothing to count: no forget or kill is needed (a filesystem
 * that allocates its nodes frees them in forget).
 */
struct row {
	const char *name;
	int parent;		/* index of the directory holding it */
	mode_t mode;
	const char *data;	/* a file's contents, a symlink's target */
};

static const struct row table[] = {
	{ "", 0, S_IFDIR | 0555, NULL },	/* 0: the root */
	{ "hello.txt", 0, S_IFREG | 0444, "Hello from a table in memory.\n" },
	{ "etc", 0, S_IFDIR | 0555, NULL },
	{ "motd", 2, S_IFREG | 0444, "Nothing here can be changed.\n" },
	{ "greeting", 0, S_IFLNK | 0777, "hello.txt" },
};
#define NROWS (sizeof(table) / sizeof(table[0]))

static int row_of(const void *node)
{
	return (int)((const struct row *)node - table);
}

/* The VFS caches these attributes with the node; with no getattr op they
 * are what stat reports from then on, which is right for a tree that never
 * changes. */
static void fill_entry(int i, struct uvfs_fs_entry *out)
{
	const struct row *r = &table[i];
	const struct timespec t = { .tv_sec = 1700000000 };

	memset(out, 0, sizeof(*out));
	out->node = (void *)r;
	out->attr.ino = i + 1;	/* stable numbers; 0 would let the VFS choose */
	out->attr.mode = r->mode;
	out->attr.nlink = 1;
	if (S_ISDIR(r->mode)) {
		/* "." and the parent's entry, and each subdirectory's ".." */
		out->attr.nlink = 2;
		for (size_t j = 1; j < NROWS; j++)
			if (table[j].parent == i && S_ISDIR(table[j].mode))
				out->attr.nlink++;
	}
	out->attr.size = r->data ? (int64_t)strlen(r->data) : 0;
	out->attr.atime = out->attr.mtime = out->attr.ctime = out->attr.btime = t;
}

/*
 * Read-only by refusing a writable mount, as a write-protected medium does:
 * on a MS_RDONLY mount the VFS answers every write, create, unlink or chmod
 * with EROFS before it reaches this filesystem, which is what a program
 * expects of a read-only tree.  On a writable mount the ops left NULL would
 * refuse too, but with EPERM or EACCES, and an open for writing would
 * succeed and its write(2) fail with EINVAL.
 */
static int table_mount(void *type_data, const char *source, unsigned long flags, const void *data,
		       void **fsp, struct uvfs_fs_entry *root)
{
	if (!(flags & MS_RDONLY))
		return -EROFS;
	*fsp = type_data;
	fill_entry(0, root);
	return 0;
}

/* Called only for a name the VFS has not cached; a name that is not there
 * is asked again next time, so a tree that grows needs nothing more. */
static int table_lookup(void *fs, void *dir, const char *name, struct uvfs_fs_entry *out)
{
	for (size_t i = 1; i < NROWS; i++) {
		if (table[i].parent == row_of(dir) && !strcmp(table[i].name, name)) {
			fill_entry(i, out);
			return 0;
		}
	}
	return -ENOENT;
}

/* Positions are ours to choose (from 2 on): row index + 2, so a reader that
 * stops when its buffer fills resumes at the row it did not get. */
static int table_readdir(void *fs, void *dir, uint64_t pos, uvfs_fs_filldir_t fill, void *ctx)
{
	for (size_t i = pos - 2; i < NROWS; i++) {
		if (i == 0 || table[i].parent != row_of(dir))
			continue;
		if (!fill(ctx, table[i].name, i + 1, IFTODT(table[i].mode), i + 3))
			break;
	}
	return 0;
}

static ssize_t table_read(void *fs, void *node, void *fh, void *buf, size_t len, int64_t off)
{
	const char *data = ((const struct row *)node)->data;
	size_t size = strlen(data);

	if ((uint64_t)off >= size)
		return 0;
	if (len > size - off)
		len = size - off;
	memcpy(buf, data + off, len);
	return len;
}

static ssize_t table_readlink(void *fs, void *node, char *buf, size_t size)
{
	const char *target = ((const struct row *)node)->data;
	size_t len = strlen(target);

	if (len > size)
		len = size;
	memcpy(buf, target, len);
	return len;
}

/* Every op not given is refused by the VFS (see uvfs_fs.h). */
static const struct uvfs_fs_type table_fs = {
	.size = sizeof(struct uvfs_fs_type),
	.version = UVFS_FS_VERSION,
	.name = "tablefs",
	.data = (void *)table,
	.ops = {
		.mount = table_mount,
		.lookup = table_lookup,
		.readdir = table_readdir,
		.read = table_read,
		.readlink = table_readlink,
	},
};

static int passed, failed;

#define CHECK(cond) do { \
	if (cond) \
		passed++; \
	else { \
		failed++; \
		printf("FAIL %s:%d: %s\n", __func__, __LINE__, #cond); \
	} \
} while (0)

/* getdents64(2)'s record; glibc does not declare it */
struct dirent64_rec {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The names of dir, as a bit per row seen.  The buffer is small so that
 * the listing takes several calls, each resumed from readdir's positions. */
static unsigned list_dir(struct uvfs_proc *p, const char *dir)
{
	char buf[64];
	unsigned seen = 0;
	ssize_t n;
	int fd = uvfs_openat(p, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);

	CHECK(fd >= 0);
	while ((n = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64_rec *d = (void *)(buf + off);

			for (size_t i = 1; i < NROWS; i++)
				if (!strcmp(d->d_name, table[i].name))
					seen |= 1u << i;
			if (!strcmp(d->d_name, "greeting"))
				CHECK(d->d_type == DT_LNK && d->d_ino == 5);
			off += d->d_reclen;
		}
	}
	CHECK(n == 0);
	CHECK(uvfs_close(p, fd) == 0);
	return seen;
}

int main(void)
{
	struct uvfs *u = uvfs_create(NULL);
	struct uvfs_proc *root = u ? uvfs_proc_create(u, 0, 0) : NULL;
	struct uvfs_proc *user = u ? uvfs_proc_create(u, 1000, 1000) : NULL;
	char buf[64] = "";
	struct stat st;
	int fd;

	if (!root || !user) {
		if (u)
			uvfs_destroy(u);
		printf("FAIL no instance\n0 passed, 1 failed\n");
		return 1;
	}
	/* The type is known to this instance only; the library copies it. */
	CHECK(uvfs_register_filesystem(u, &table_fs) == 0);
	CHECK(uvfs_register_filesystem(u, &table_fs) == -EEXIST);

	/* Only root mounts, as on Linux; everyone may then read. */
	CHECK(uvfs_mkdirat(root, AT_FDCWD, "/data", 0755) == 0);
	CHECK(uvfs_mount(root, "table", "/data", "tablefs", 0, NULL) == -EROFS);
	CHECK(uvfs_mount(root, "table", "/data", "tablefs", MS_RDONLY, NULL) == 0);

	/* From here on these are the calls a program makes on any tree. */
	fd = uvfs_openat(user, AT_FDCWD, "/data/hello.txt", O_RDONLY, 0);
	CHECK(fd >= 0);
	CHECK(uvfs_read(user, fd, buf, sizeof(buf) - 1) == (ssize_t)strlen(table[1].data));
	CHECK(strcmp(buf, table[1].data) == 0);
	CHECK(uvfs_read(user, fd, buf, sizeof(buf)) == 0);
	CHECK(uvfs_close(user, fd) == 0);

	CHECK(uvfs_fstatat(user, AT_FDCWD, "/data/etc/motd", &st, 0) == 0);
	CHECK(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0444);
	CHECK(st.st_ino == 4 && st.st_size == (off_t)strlen(table[3].data));
	CHECK(uvfs_fstatat(user, AT_FDCWD, "/data/etc", &st, 0) == 0);
	CHECK(S_ISDIR(st.st_mode) && st.st_nlink == 2);
	CHECK(uvfs_fstatat(user, AT_FDCWD, "/data/nothing", &st, 0) == -ENOENT);

	memset(buf, 0, sizeof(buf));
	CHECK(uvfs_readlinkat(user, AT_FDCWD, "/data/greeting", buf, sizeof(buf)) == 9);
	CHECK(strcmp(buf, "hello.txt") == 0);
	/* the VFS follows the link itself: the filesystem only gave the body */
	CHECK(uvfs_fstatat(user, AT_FDCWD, "/data/greeting", &st, 0) == 0 && st.st_ino == 2);

	CHECK(list_dir(user, "/data") == (1u << 1 | 1u << 2 | 1u << 4));
	CHECK(list_dir(user, "/data/etc") == 1u << 3);

	/* Refused by the read-only mount, even to root. */
	CHECK(uvfs_openat(root, AT_FDCWD, "/data/hello.txt", O_WRONLY, 0) == -EROFS);
	CHECK(uvfs_openat(root, AT_FDCWD, "/data/new", O_CREAT | O_WRONLY, 0644) == -EROFS);
	CHECK(uvfs_mkdirat(root, AT_FDCWD, "/data/etc/dir", 0755) == -EROFS);
	CHECK(uvfs_unlinkat(root, AT_FDCWD, "/data/etc/motd", 0) == -EROFS);
	CHECK(uvfs_fchmodat(root, AT_FDCWD, "/data/hello.txt", 0666, 0) == -EROFS);

	/* A type cannot go while a mount uses it; after the unmount it can,
	 * and the name is then unknown to mount. */
	CHECK(uvfs_unregister_filesystem(u, "tablefs") == -EBUSY);
	CHECK(uvfs_umount2(root, "/data", 0) == 0);
	CHECK(uvfs_unregister_filesystem(u, "tablefs") == 0);
	CHECK(uvfs_mount(root, "table", "/data", "tablefs", MS_RDONLY, NULL) == -ENODEV);

	uvfs_destroy(u);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
