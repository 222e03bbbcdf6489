/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fixture.c - the pattern for a test suite over uvfs: every test case gets a
 * fresh instance, so no case sees another's files, fds or limits, and a case
 * that fails leaves nothing behind.  An instance costs microseconds, so there
 * is no reason to share one.
 *
 * Prints "N passed, N failed" and exits non-zero when a check failed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <uvfs.h>

struct fixture {
	struct uvfs *fs;
	struct uvfs_proc *root;	/* uid 0: has the file capabilities */
	struct uvfs_proc *user;	/* uid 1000: has none */
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

static int setup(struct fixture *f, const struct uvfs_options *opts)
{
	f->fs = uvfs_create(opts);
	if (!f->fs)
		return -ENOMEM;
	f->root = uvfs_proc_create(f->fs, 0, 0);
	f->user = uvfs_proc_create(f->fs, 1000, 1000);
	if (!f->root || !f->user) {
		uvfs_destroy(f->fs);
		return -ENOMEM;
	}
	return 0;
}

/* uvfs_destroy also drops the procs and closes every fd a case left open. */
static void teardown(struct fixture *f)
{
	uvfs_destroy(f->fs);
}

static void test_write_read(struct fixture *f)
{
	char buf[16] = "";
	int fd = uvfs_openat(f->user, AT_FDCWD, "/notes", O_CREAT | O_RDWR, 0600);

	CHECK(fd >= 0);
	CHECK(uvfs_write(f->user, fd, "one two", 7) == 7);
	CHECK(uvfs_pread(f->user, fd, buf, sizeof(buf), 4) == 3);
	CHECK(strcmp(buf, "two") == 0);
	/* left open on purpose: the teardown closes it */
}

/* The previous case's file is not here: the instance is new. */
static void test_isolation(struct fixture *f)
{
	struct stat st;

	CHECK(uvfs_fstatat(f->user, AT_FDCWD, "/notes", &st, 0) == -ENOENT);
	CHECK(uvfs_openat(f->user, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0) == 0);
}

static void test_permissions(struct fixture *f)
{
	CHECK(uvfs_mkdirat(f->root, AT_FDCWD, "/etc", 0755) == 0);
	CHECK(uvfs_openat(f->user, AT_FDCWD, "/etc/passwd", O_CREAT | O_WRONLY, 0644) == -EACCES);
	CHECK(uvfs_unlinkat(f->user, AT_FDCWD, "/etc", AT_REMOVEDIR) == -EPERM);
	CHECK(uvfs_fchownat(f->root, AT_FDCWD, "/etc", 1000, 1000, 0) == 0);
	CHECK(uvfs_mkdirat(f->user, AT_FDCWD, "/etc/mine", 0700) == 0);
}

/* A case that needs other limits gets an instance made with them. */
static const struct uvfs_options small = { .tmpfs_nr_inodes = 3 };

static void test_inode_limit(struct fixture *f)
{
	/* the root directory is the first of the three inodes */
	CHECK(uvfs_mkdirat(f->user, AT_FDCWD, "/a", 0700) == 0);
	CHECK(uvfs_mkdirat(f->user, AT_FDCWD, "/b", 0700) == 0);
	CHECK(uvfs_mkdirat(f->user, AT_FDCWD, "/c", 0700) == -ENOSPC);
}

static const struct {
	const char *name;
	void (*fn)(struct fixture *f);
	const struct uvfs_options *opts;
} cases[] = {
	{ "write_read", test_write_read, NULL },
	{ "isolation", test_isolation, NULL },
	{ "permissions", test_permissions, NULL },
	{ "inode_limit", test_inode_limit, &small },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture f;

		if (setup(&f, cases[i].opts) < 0) {
			printf("FAIL %s: no instance\n", cases[i].name);
			failed++;
			continue;
		}
		cases[i].fn(&f);
		teardown(&f);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
