// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-cred: credentials swapped under RCU, and the fs_struct's own seq.
 *
 *   - threads of one proc switch its cred between 1000:1000 and 2000:2000
 *     while others create, open and stat: each new file's owner is one of
 *     the two pairs, never the uid of one with the gid of the other, and an
 *     fd keeps the cred it was opened with (f_cred);
 *   - a chdir or chroot of one proc leaves the global rename_seq alone, so
 *     another proc's lockless walk that sampled it before still validates
 *     (before: every chdir restarted every proc's walks), while the proc's
 *     own fs->seq moves;
 *   - threads sharing one fs_struct chdir and chroot between two trees
 *     while others walk relative and absolute paths: every walk lands in one
 *     of the trees, whole (ASan, TSan: no torn root or cwd).
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>

#define CREATORS 2
#define SWITCHERS 2
#define CREATES 1500
#define SWITCHES 3000

struct cred_race {
	struct uvfs_proc *p;
	int id;
	int stop;
	unsigned long mixed, bad, done;
};

static void *switcher(void *arg)
{
	struct cred_race *r = arg;
	for (int i = 0; i < SWITCHES; i++) {
		unsigned id = (i + r->id) & 1 ? 2000 : 1000;
		if (uvfs_proc_setcred(r->p, id, id) != 0)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		if (i % 64 == 0) {
			gid_t g[2] = { id + 1, id + 2 };
			if (uvfs_proc_setgroups(r->p, 2, g) != 0)
				__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void *creator(void *arg)
{
	struct cred_race *r = arg;
	char name[64];
	for (int i = 0; i < CREATES; i++) {
		snprintf(name, sizeof(name), "/d/f%d.%d", r->id, i);
		int fd = uvfs_openat(r->p, AT_FDCWD, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
			continue;
		}
		struct stat st;
		if (uvfs_fstat(r->p, fd, &st) != 0 || !((st.st_uid == 1000 && st.st_gid == 1000) ||
							(st.st_uid == 2000 && st.st_gid == 2000)))
			__atomic_fetch_add(&r->mixed, 1, __ATOMIC_RELAXED);
		/* the writer's cred is the one it opened with: the file's owner
		 * may write whatever the proc's cred is now */
		if (uvfs_write(r->p, fd, "x", 1) != 1)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		uvfs_close(r->p, fd);
		if (uvfs_fstatat(r->p, AT_FDCWD, name, &st, 0) != 0 || st.st_size != 1)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->done, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_setcred_race(void)
{
	SECTION("setcred against creates in the same proc");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d", 0777), 0);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/d", 0777, 0), 0);
	CHECK_EQ(uvfs_proc_setcred(p, 1000, 1000), 0);
	struct cred_race r[CREATORS + SWITCHERS];
	pthread_t t[CREATORS + SWITCHERS];
	for (int i = 0; i < CREATORS + SWITCHERS; i++) {
		r[i] = (struct cred_race){ .p = p, .id = i };
		pthread_create(&t[i], NULL, i < CREATORS ? creator : switcher, &r[i]);
	}
	unsigned long mixed = 0, bad = 0, done = 0;
	for (int i = 0; i < CREATORS + SWITCHERS; i++) {
		pthread_join(t[i], NULL);
		mixed += r[i].mixed;
		bad += r[i].bad;
		done += r[i].done;
	}
	CHECK(mixed == 0, "%lu files with the uid of one cred and the gid of the other", mixed);
	CHECK(bad == 0, "%lu calls failed", bad);
	CHECK(done == CREATORS * CREATES, "%lu of %d creates", done, CREATORS * CREATES);
	/* an fd opened as 1000 keeps 1000's cred: another thread's setcred
	 * meanwhile does not change what the file was opened with */
	CHECK_EQ(uvfs_proc_setcred(p, 1000, 1000), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/d/mine", O_CREAT | O_RDWR, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_proc_setcred(p, 2000, 2000), 0);
	CHECK_EQ(uvfs_write(p, fd, "y", 1), 1);
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, "/d/mine", O_RDONLY, 0), EACCES);
	CHECK_EQ(uvfs_close(p, fd), 0);
	uvfs_destroy(fs);
}

static void test_chdir_keeps_rename_seq(void)
{
	SECTION("a chdir or chroot of one proc leaves other procs' walks valid");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *a = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *b = uvfs_proc_create(fs, 0, 0);
	CHECK_EQ(uvfs_mkdirat(a, AT_FDCWD, "/x", 0755), 0);
	/* what an RCU walk of b samples at its start and checks at its end */
	unsigned seq = read_seqcount_begin(&fs->rename_seq);
	unsigned aseq = read_seqcount_begin(&a->fs->seq);
	CHECK_EQ(uvfs_chdir(a, "/x"), 0);
	CHECK_EQ(uvfs_chroot(a, "/x"), 0);
	CHECK_EQ(uvfs_chdir(a, "/"), 0);
	CHECK(!read_seqcount_retry(&fs->rename_seq, seq), "chdir/chroot moved the global rename_seq");
	CHECK(read_seqcount_retry(&a->fs->seq, aseq), "chdir/chroot did not move the proc's fs->seq");
	/* b's walks and a's, after: each in its own root */
	struct stat st;
	CHECK_EQ(uvfs_fstatat(b, AT_FDCWD, "x", &st, 0), 0);
	CHECK_ERR(uvfs_fstatat(a, AT_FDCWD, "x", &st, 0), ENOENT);
	/* a rename still moves it */
	CHECK_EQ(uvfs_renameat2(b, AT_FDCWD, "/x", AT_FDCWD, "/y", 0), 0);
	CHECK(read_seqcount_retry(&fs->rename_seq, seq), "rename did not move rename_seq");
	uvfs_destroy(fs);
}

#define WALKERS 2
#define FLIPS 3000
/* the flips go on until the walkers have walked this much beside them (on a
 * loaded machine the flipper may otherwise finish before a walker starts) */
#define MIN_WALKS 200

struct fs_race {
	struct uvfs_proc *p;
	int stop;
	unsigned long bad, walks;
};

/* /t1 and /t2 each hold a file "f" of size 1 or 2 and a directory "t1"
 * with a file "f" (so "/../t1/f" resolves inside a chroot as outside); "/f"
 * (size 3) is there for the moment between fchdir to the instance's root
 * and the chdir back into a tree. */
static void *flipper(void *arg)
{
	struct fs_race *r = arg;
	for (int i = 0; i < FLIPS || (__atomic_load_n(&r->walks, __ATOMIC_RELAXED) < MIN_WALKS && i < 1000 * FLIPS);
	     i++) {
		const char *t = i & 1 ? "/t2" : "/t1";
		if (uvfs_chdir(r->p, t) != 0)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		if (i % 16 == 0) {
			/* into a tree and back out through the instance's root,
			 * which the chroot hides: fchdir of a kept fd */
			int root = uvfs_openat(r->p, AT_FDCWD, "/", O_PATH | O_DIRECTORY, 0);
			if (root < 0 || uvfs_chroot(r->p, t) != 0 || uvfs_fchdir(r->p, root) != 0 ||
			    uvfs_chroot(r->p, ".") != 0)
				__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
			if (root >= 0)
				uvfs_close(r->p, root);
		}
	}
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *walker(void *arg)
{
	struct fs_race *r = arg;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		struct stat st;
		/* relative: the cwd is one of the trees */
		int err = uvfs_fstatat(r->p, AT_FDCWD, "f", &st, 0);
		if (err != 0 || st.st_size < 1 || st.st_size > 3)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		int fd = uvfs_openat(r->p, AT_FDCWD, "f", O_RDONLY, 0);
		if (fd < 0)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		else
			uvfs_close(r->p, fd);
		/* absolute, through "..": the root is the instance's or a tree,
		 * and ".." at the root stays there */
		err = uvfs_fstatat(r->p, AT_FDCWD, "/../t1/f", &st, 0);
		if (err != 0)
			__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->walks, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_chdir_chroot_race(void)
{
	SECTION("chdir and chroot against walks of the same fs_struct");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	const char *trees[] = { "/t1", "/t2" };
	for (int i = 0; i < 2; i++) {
		char path[32];
		CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, trees[i], 0755), 0);
		snprintf(path, sizeof(path), "%s/f", trees[i]);
		int fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0);
		CHECK_EQ(uvfs_write(p, fd, "ab", (size_t)i + 1), i + 1);
		uvfs_close(p, fd);
		snprintf(path, sizeof(path), "%s/t1", trees[i]);
		CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, path, 0755), 0);
		snprintf(path, sizeof(path), "%s/t1/f", trees[i]);
		fd = uvfs_openat(p, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0);
		uvfs_close(p, fd);
	}
	int fd = uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "abc", 3), 3);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_chdir(p, "/t1"), 0);
	struct fs_race r = { .p = p };
	/* threads of one proc: one fd table and one fs_struct */
	pthread_t fl, w[WALKERS];
	for (int i = 0; i < WALKERS; i++)
		pthread_create(&w[i], NULL, walker, &r);
	pthread_create(&fl, NULL, flipper, &r);
	pthread_join(fl, NULL);
	for (int i = 0; i < WALKERS; i++)
		pthread_join(w[i], NULL);
	CHECK(r.bad == 0, "%lu calls failed or landed outside the trees", r.bad);
	CHECK(r.walks >= MIN_WALKS, "only %lu walks ran", r.walks);
	uvfs_destroy(fs);
}

/* One ACL entry of the xattr's binary form (Linux's posix_acl_xattr_entry). */
struct acl_ent {
	uint16_t tag, perm;
	uint32_t id;
};

/*
 * UVFS_GROUPS_UNKNOWN: a grant that a supplementary group could turn into a
 * refusal is refused (EACCES) until the groups are known; then Linux's
 * answer.  A file 0604 of group 50 refuses a member of 50 (the group
 * class), grants others; an ACL's named group entry 60 with no permission
 * refuses its members where other grants.
 */
static void test_groups_unknown(void)
{
	struct uvfs *u = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(u, 0, 0);
	gid_t g50 = 50, g60 = 60;
	int fd = uvfs_openat(p, AT_FDCWD, "/m", O_CREAT | O_WRONLY, 0604);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_fchownat(p, AT_FDCWD, "/m", 0, 50, 0), 0);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/m", 0604, 0), 0);
	fd = uvfs_openat(p, AT_FDCWD, "/a", O_CREAT | O_WRONLY, 0644);
	uvfs_close(p, fd);
	struct {
		uint32_t version;
		struct acl_ent e[5];
	} acl = { 2, { { 0x01, 6, (uint32_t)-1 }, { 0x04, 4, (uint32_t)-1 }, { 0x08, 0, 60 },
		       { 0x10, 4, (uint32_t)-1 }, { 0x20, 4, (uint32_t)-1 } } };
	CHECK_EQ(uvfs_setxattr(p, "/a", "system.posix_acl_access", &acl, sizeof(acl), 0), 0);
	/* the root directory (1777) lets everybody search: the files decide */

	struct uvfs_proc *q = uvfs_proc_create(u, 1000, 1000);
	/* known, none: other decides */
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", R_OK, 0), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/a", R_OK, 0), 0);
	/* unknown: the group could refuse */
	CHECK_EQ(uvfs_proc_setgroups(q, UVFS_GROUPS_UNKNOWN, NULL), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", R_OK, 0), -EACCES);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/a", R_OK, 0), -EACCES);
	fd = uvfs_openat(q, AT_FDCWD, "/m", O_RDONLY, 0);
	CHECK_EQ(fd, -EACCES);
	/* a refusal by other stays one */
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", W_OK, 0), -EACCES);
	/* a member of 50, of 60: Linux's refusals */
	CHECK_EQ(uvfs_proc_setgroups(q, 1, &g50), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", R_OK, 0), -EACCES);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/a", R_OK, 0), 0);
	CHECK_EQ(uvfs_proc_setgroups(q, 1, &g60), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", R_OK, 0), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/a", R_OK, 0), -EACCES);
	/* known again, none */
	CHECK_EQ(uvfs_proc_setgroups(q, 0, NULL), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", R_OK, 0), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/a", R_OK, 0), 0);
	/* root is not asked about groups, nor is the owner */
	CHECK_EQ(uvfs_proc_setgroups(p, UVFS_GROUPS_UNKNOWN, NULL), 0);
	CHECK_EQ(uvfs_faccessat(p, AT_FDCWD, "/m", R_OK, 0), 0);
	CHECK_EQ(uvfs_fchownat(p, AT_FDCWD, "/m", 1000, -1, 0), 0);
	CHECK_EQ(uvfs_proc_setgroups(q, UVFS_GROUPS_UNKNOWN, NULL), 0);
	CHECK_EQ(uvfs_faccessat(q, AT_FDCWD, "/m", R_OK, 0), 0);
	/* bad sizes are still refused */
	CHECK_EQ(uvfs_proc_setgroups(q, 65, &g50), -EINVAL);
	uvfs_proc_destroy(q);
	uvfs_proc_destroy(p);
	uvfs_destroy(u);
}

int main(void)
{
	test_groups_unknown();
	test_setcred_race();
	test_chdir_keeps_rename_seq();
	test_chdir_chroot_race();
	return check_done();
}
