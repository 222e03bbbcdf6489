// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-xattr: extended attributes and ACLs changed while other threads read
 * them (TSan and ASan stage material; the behaviour itself is in
 * tests/conformance/xattr.c and acl.c, against the host).
 *
 *   - a writer replaces and removes a user.* value while readers get and
 *     list it: every read is one whole value or ENODATA, never a mix;
 *   - a writer swaps a file's access ACL and a directory's between granting
 *     and denying a named user while that user reads the file and walks
 *     through the directory: each check is 0 or EACCES, and the ACLs the
 *     readers were using are freed only after them (ASan).  The mode the
 *     ACLs imply stays the same: a mode change during a walk is chmod's
 *     race (the walk reads the type bits plainly), not the ACLs';
 *   - a writer swaps a directory's default ACL while another thread creates
 *     files in it with open(O_CREAT) and O_TMPFILE, which does not hold the
 *     directory's lock: each new file has the mode of one of the two ACLs.
 */
#include "vfs.h"
#include "check.h"
#include <pthread.h>
#include <sys/xattr.h>

#define ROUNDS 3000

static struct uvfs *fs;
static int stop;

static size_t acl_value(unsigned char *b, unsigned named_perm, unsigned mask)
{
	/* u::rwx u:1000:named g::r-x m::mask o::--- */
	static const unsigned e[][3] = { { 1, 7, 0 }, { 2, 0, 1000 }, { 4, 5, 0 }, { 0x10, 0, 0 }, { 0x20, 0, 0 } };
	b[0] = 2;
	b[1] = b[2] = b[3] = 0;
	for (int i = 0; i < 5; i++) {
		unsigned perm = i == 1 ? named_perm : i == 3 ? mask : e[i][1];
		unsigned char *p = b + 4 + 8 * i;
		p[0] = (unsigned char)e[i][0];
		p[1] = 0;
		p[2] = (unsigned char)perm;
		p[3] = 0;
		p[4] = (unsigned char)e[i][2];
		p[5] = (unsigned char)(e[i][2] >> 8);
		p[6] = p[7] = 0;
	}
	return 4 + 5 * 8;
}

static void *value_writer(void *arg)
{
	struct uvfs_proc *p = arg;
	static char a[300], b[7];
	memset(a, 'a', sizeof a);
	memset(b, 'b', sizeof b);
	for (int i = 0; i < ROUNDS; i++) {
		int r = i % 3 == 2 ? uvfs_removexattr(p, "/f", "user.v")
				   : uvfs_setxattr(p, "/f", "user.v", i % 3 ? b : a, i % 3 ? sizeof b : sizeof a, 0);
		CHECK(r == 0 || r == -ENODATA, "writer: %d", r);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *value_reader(void *arg)
{
	struct uvfs_proc *p = arg;
	char buf[512], list[512];
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		ssize_t n = uvfs_getxattr(p, "/f", "user.v", buf, sizeof buf);
		if (n == -ENODATA)
			continue;
		bool whole = (n == 300 || n == 7) && n > 0;
		for (ssize_t i = 1; whole && i < n; i++)
			whole = buf[i] == buf[0];
		CHECK(whole && buf[0] == (n == 300 ? 'a' : 'b'), "a torn value: %zd bytes", n);
		ssize_t l = uvfs_listxattr(p, "/f", list, sizeof list);
		CHECK(l == 0 || (l == 7 && !memcmp(list, "user.v", 7)), "list: %zd", l);
	}
	return NULL;
}

static void test_values(void)
{
	SECTION("values replaced while read");
	fs = uvfs_create(NULL);
	struct uvfs_proc *w = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *r1 = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *r2 = uvfs_proc_create(fs, 0, 0);
	int fd = uvfs_openat(w, AT_FDCWD, "/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	uvfs_close(w, fd);
	stop = 0;
	pthread_t t[3];
	pthread_create(&t[1], NULL, value_reader, r1);
	pthread_create(&t[2], NULL, value_reader, r2);
	pthread_create(&t[0], NULL, value_writer, w);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	uvfs_destroy(fs);
}

static void *acl_writer(void *arg)
{
	struct uvfs_proc *p = arg;
	unsigned char v[64];
	for (int i = 0; i < ROUNDS; i++) {
		size_t n = acl_value(v, (i & 1) ? 5 : 0, 5);
		CHECK_EQ(uvfs_setxattr(p, "/d/f", "system.posix_acl_access", v, n, 0), 0);
		CHECK_EQ(uvfs_setxattr(p, "/d", "system.posix_acl_access", v, n, 0), 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *acl_reader(void *arg)
{
	struct uvfs_proc *p = arg;
	struct stat st;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int r = uvfs_faccessat(p, AT_FDCWD, "/d/f", R_OK, 0);
		CHECK(r == 0 || r == -EACCES, "access: %d", r);
		r = uvfs_fstatat(p, AT_FDCWD, "/d/f", &st, 0);
		CHECK(r == 0 || r == -EACCES, "stat: %d", r);
		int fd = uvfs_openat(p, AT_FDCWD, "/d/f", O_RDONLY, 0);
		CHECK(fd >= 0 || fd == -EACCES, "open: %d", fd);
		if (fd >= 0)
			uvfs_close(p, fd);
	}
	return NULL;
}

static void test_acls(void)
{
	SECTION("ACLs swapped while checked");
	fs = uvfs_create(NULL);
	struct uvfs_proc *w = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *r1 = uvfs_proc_create(fs, 1000, 1000);
	struct uvfs_proc *r2 = uvfs_proc_create(fs, 1000, 1000);
	CHECK_EQ(uvfs_mkdirat(w, AT_FDCWD, "/d", 0755), 0);
	int fd = uvfs_openat(w, AT_FDCWD, "/d/f", O_CREAT | O_RDWR, 0640);
	CHECK(fd >= 0);
	uvfs_close(w, fd);
	/* the mode the ACLs imply, before the readers start */
	CHECK_EQ(uvfs_fchmodat(w, AT_FDCWD, "/d/f", 0750, 0), 0);
	CHECK_EQ(uvfs_fchmodat(w, AT_FDCWD, "/d", 0750, 0), 0);
	stop = 0;
	pthread_t t[3];
	pthread_create(&t[1], NULL, acl_reader, r1);
	pthread_create(&t[2], NULL, acl_reader, r2);
	pthread_create(&t[0], NULL, acl_writer, w);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* the last ACL granted r-x through a mask of r-x */
	CHECK_EQ(uvfs_faccessat(r1, AT_FDCWD, "/d/f", R_OK, 0), 0);
	uvfs_destroy(fs);
}

static void *default_writer(void *arg)
{
	struct uvfs_proc *p = arg;
	unsigned char v[64];
	for (int i = 0; i < ROUNDS; i++) {
		size_t n = acl_value(v, 5, (i & 1) ? 7 : 4);
		CHECK_EQ(uvfs_setxattr(p, "/d", "system.posix_acl_default", v, n, 0), 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *creator(void *arg)
{
	struct uvfs_proc *p = arg;
	struct stat st;
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
		int fd = (i & 1) ? uvfs_openat(p, AT_FDCWD, "/d", O_TMPFILE | O_RDWR, 0777)
				 : uvfs_openat(p, AT_FDCWD, "/d/n", O_CREAT | O_EXCL | O_RDWR, 0777);
		CHECK(fd >= 0, "create: %d", fd);
		if (fd < 0)
			break;
		CHECK_EQ(uvfs_fstat(p, fd, &st), 0);
		/* group class = the mask, rwx or r--; no umask */
		CHECK((st.st_mode & 0777) == 0770 || (st.st_mode & 0777) == 0740, "mode %o", st.st_mode & 0777);
		uvfs_close(p, fd);
		if (!(i & 1))
			CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/d/n", 0), 0);
	}
	return NULL;
}

static void test_default_acls(void)
{
	SECTION("default ACLs swapped while files are made");
	fs = uvfs_create(NULL);
	struct uvfs_proc *w = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *c = uvfs_proc_create(fs, 0, 0);
	CHECK_EQ(uvfs_mkdirat(w, AT_FDCWD, "/d", 0777), 0);
	unsigned char v[64];
	size_t n = acl_value(v, 5, 7);
	CHECK_EQ(uvfs_setxattr(w, "/d", "system.posix_acl_default", v, n, 0), 0);
	stop = 0;
	pthread_t t[2];
	pthread_create(&t[1], NULL, creator, c);
	pthread_create(&t[0], NULL, default_writer, w);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	uvfs_destroy(fs);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_values();
	test_acls();
	test_default_acls();
	return check_done();
}
