// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stress-overlay: threads of one proc race on an overlay whose lower
 * layer holds the files they change, so that copy-ups meet each other and
 * meet readers:
 *   - every writer opens the same lower files for appending (each copies
 *     them up, or finds them copied): every record lands once, in the one
 *     upper copy, and the lower file is never written;
 *   - readers read and stat the same files meanwhile (a short read is
 *     one of the two versions, never a mix), and read the merged root;
 *   - each writer also makes, renames and removes names of its own in a
 *     merged directory (whiteouts come and go beside the copy-ups).
 * At the end the merged view and the upper layer agree with what the
 * threads did.
 */
#include "uvfs.h"
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITERS 4
#define READERS 2
#define ROUNDS 200
#define FILES 8

static struct uvfs_proc *P;
static int stop_readers;

static void put(const char *path, const char *s)
{
	int fd = uvfs_openat(P, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0, "%s: %d", path, fd);
	if (fd >= 0) {
		CHECK(uvfs_write(P, fd, s, strlen(s)) == (ssize_t)strlen(s));
		uvfs_close(P, fd);
	}
}

static void *writer(void *arg)
{
	int id = (int)(long)arg;
	char rec[16], path[64], other[64];
	snprintf(rec, sizeof rec, "<w%d>", id);
	for (int r = 0; r < ROUNDS; r++) {
		snprintf(path, sizeof path, "/m/f%d", r % FILES);
		int fd = uvfs_openat(P, AT_FDCWD, path, O_WRONLY | O_APPEND, 0);
		CHECK(fd >= 0, "open %s: %d", path, fd);
		if (fd >= 0) {
			CHECK(uvfs_write(P, fd, rec, strlen(rec)) == (ssize_t)strlen(rec));
			uvfs_close(P, fd);
		}
		snprintf(path, sizeof path, "/m/d/t%d-%d", id, r);
		snprintf(other, sizeof other, "/m/d/u%d-%d", id, r);
		int err = uvfs_mknodat(P, AT_FDCWD, path, S_IFREG | 0644, 0);
		CHECK(err == 0, "mknod %s: %d", path, err);
		err = uvfs_renameat2(P, AT_FDCWD, path, AT_FDCWD, other, 0);
		CHECK(err == 0, "rename %s: %d", path, err);
		err = uvfs_unlinkat(P, AT_FDCWD, other, 0);
		CHECK(err == 0, "unlink %s: %d", other, err);
		/* a lower name of its own, hidden for good */
		if (r == 0) {
			snprintf(path, sizeof path, "/m/d/low%d", id);
			err = uvfs_unlinkat(P, AT_FDCWD, path, 0);
			CHECK(err == 0, "unlink %s: %d", path, err);
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	char buf[8192], path[64];
	int k = 0;
	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		snprintf(path, sizeof path, "/m/f%d", k++ % FILES);
		int fd = uvfs_openat(P, AT_FDCWD, path, O_RDONLY, 0);
		CHECK(fd >= 0, "open %s: %d", path, fd);
		if (fd >= 0) {
			ssize_t n = uvfs_read(P, fd, buf, sizeof buf - 1);
			CHECK(n >= 5 && !memcmp(buf, "lower", 5), "read %s: %zd", path, n);
			uvfs_close(P, fd);
		}
		struct stat st;
		CHECK(uvfs_fstatat(P, AT_FDCWD, path, &st, 0) == 0);
		int dfd = uvfs_openat(P, AT_FDCWD, "/m/d", O_RDONLY | O_DIRECTORY, 0);
		CHECK(dfd >= 0);
		if (dfd >= 0) {
			while (uvfs_getdents64(P, dfd, buf, sizeof buf) > 0)
				;
			uvfs_close(P, dfd);
		}
	}
	return NULL;
}

int main(void)
{
	struct uvfs *fs = uvfs_create(NULL);
	P = uvfs_proc_create(fs, 0, 0);
	const char *dirs[] = { "/l1", "/l2", "/u", "/w", "/m", "/l1/d", "/l2/d" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		CHECK(uvfs_mkdirat(P, AT_FDCWD, dirs[i], 0755) == 0);
	char path[64];
	for (int i = 0; i < FILES; i++) {
		snprintf(path, sizeof path, "/l%d/f%d", 1 + i % 2, i);
		put(path, "lower");
	}
	for (int i = 0; i < WRITERS; i++) {
		snprintf(path, sizeof path, "/l2/d/low%d", i);
		put(path, "low");
	}
	CHECK(uvfs_mount(P, "overlay", "/m", "overlay", 0, "lowerdir=/l1:/l2,upperdir=/u,workdir=/w") == 0);

	pthread_t w[WRITERS], r[READERS];
	for (long i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)i);
	for (long i = 0; i < WRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)i);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);

	/* every record once, in the one copy; the lower files untouched */
	char buf[16384];
	for (int i = 0; i < FILES; i++) {
		snprintf(path, sizeof path, "/m/f%d", i);
		int fd = uvfs_openat(P, AT_FDCWD, path, O_RDONLY, 0);
		ssize_t n = fd >= 0 ? uvfs_read(P, fd, buf, sizeof buf - 1) : fd;
		if (fd >= 0)
			uvfs_close(P, fd);
		buf[n > 0 ? n : 0] = 0;
		int per = ROUNDS / FILES;
		CHECK(n == (ssize_t)(5 + WRITERS * per * 4), "%s: %zd bytes", path, n);
		for (int id = 0; id < WRITERS; id++) {
			char rec[16];
			snprintf(rec, sizeof rec, "<w%d>", id);
			int count = 0;
			for (char *s = buf; (s = strstr(s, rec)); s++)
				count++;
			CHECK(count == per, "%s: %d records of writer %d", path, count, id);
		}
		snprintf(path, sizeof path, "/l%d/f%d", 1 + i % 2, i);
		fd = uvfs_openat(P, AT_FDCWD, path, O_RDONLY, 0);
		n = fd >= 0 ? uvfs_read(P, fd, buf, sizeof buf) : fd;
		if (fd >= 0)
			uvfs_close(P, fd);
		CHECK(n == 5, "%s: the lower file changed (%zd)", path, n);
	}
	/* the merged directory shows nothing of the writers' names, and its
	 * lower names are whited out in the upper layer */
	int dfd = uvfs_openat(P, AT_FDCWD, "/m/d", O_RDONLY | O_DIRECTORY, 0);
	ssize_t n = uvfs_getdents64(P, dfd, buf, sizeof buf);
	CHECK(n > 0);
	int names = 0;
	for (ssize_t off = 0; off < n;) {
		unsigned short reclen;
		memcpy(&reclen, buf + off + 16, sizeof reclen);
		names++;
		off += reclen;
	}
	CHECK(names == 2, "/m/d shows %d entries", names);
	uvfs_close(P, dfd);
	for (int i = 0; i < WRITERS; i++) {
		struct stat st;
		snprintf(path, sizeof path, "/u/d/low%d", i);
		CHECK(uvfs_fstatat(P, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
			      st.st_rdev == 0,
		      "%s is not a whiteout", path);
	}
	CHECK(uvfs_umount2(P, "/m", 0) == 0);
	uvfs_proc_destroy(P);
	uvfs_destroy(fs);
	return check_done();
}
