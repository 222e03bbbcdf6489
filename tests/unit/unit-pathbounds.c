// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-pathbounds: the walk reads a name no further than its NUL in a
 * sanitizer build (issue 9, the TSan report of stress/lifetimes -c link).
 *
 * The walk hashes and compares names a word at a time (lib/hash.h's
 * load_word_zeropad, as Linux's load_unaligned_zeropad): the last word of a
 * name may take bytes after its NUL, which are masked off, and never crosses
 * into the next page, so it cannot fault.  Those bytes belong to whatever
 * lies beyond the string: the caller's other data, or the next heap chunk
 * when the name is a symlink body or a long dentry name.  A sanitizer sees
 * the load, not the mask, so a sanitized build reads such a word a byte at
 * a time up to the NUL.  stress/lifetimes' body of 2045 bytes ends its last
 * component 2 bytes before the end of a 2048-byte heap chunk; the wide load
 * of it read the next chunk, a body another thread had just freed, and
 * ThreadSanitizer reported a heap-use-after-free in scan_component.
 *
 * Here each path is copied to the end of a heap chunk, its NUL the chunk's
 * last byte, and another thread frees the chunk right after it, with nothing
 * that orders the free before the walk (the walk starts when it sees a
 * relaxed flag): a walk that loads a byte past the NUL reads freed memory,
 * which a ThreadSanitizer build reports as a heap-use-after-free (the TSan
 * stage runs this test; the same report as the one in stress/lifetimes, on
 * every run).  Where the allocator gives no two adjacent chunks (AddressSanitizer
 * puts redzones between them) the path ends its own allocation instead, so
 * AddressSanitizer flags any load past it.  Every shape of the walk is
 * covered: the one-name fast path, one name after the root, a
 * multi-component walk, a dentry name longer than the inline buffer
 * (compared a word at a time), a symlink, a failed lookup, and the names
 * of mkdir, open(O_CREAT) and unlink.  In every
 * build the results are checked against the tree.
 */
#include "uvfs.h"
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

enum { CHUNK = 2048, POOL = 256 };

static char *pool[POOL];
static int pairs_used;
static int next_pair; /* the next pool index to look for an adjacent pair from */
static char *to_free;
static int freed; /* relaxed: the free is not ordered before the walk */

static void *freer(void *a)
{
	(void)a;
	free(to_free);
	__atomic_store_n(&freed, 1, __ATOMIC_RELAXED);
	return NULL;
}

static pthread_t freer_thread;
static char *own; /* place()'s allocation when there was no pair */

/*
 * Copies path to the end of a chunk whose next neighbour another thread has
 * just freed, or to the end of an allocation of its own size; done() ends
 * what place() started, after the call that walked the path.
 */
static const char *place(const char *path)
{
	size_t n = strlen(path);
	while (next_pair + 1 < POOL && pool[next_pair + 1] != pool[next_pair] + CHUNK)
		next_pair++;
	if (next_pair + 1 < POOL) {
		char *s = pool[next_pair] + CHUNK - 1 - n;
		memcpy(s, path, n + 1);
		to_free = pool[next_pair + 1];
		pool[next_pair + 1] = NULL;
		next_pair += 2;
		pairs_used++;
		__atomic_store_n(&freed, 0, __ATOMIC_RELAXED);
		pthread_create(&freer_thread, NULL, freer, NULL);
		while (!__atomic_load_n(&freed, __ATOMIC_RELAXED))
			;
		return s;
	}
	own = malloc(n + 1);
	memcpy(own, path, n + 1);
	return own;
}

static void done(void)
{
	if (own) {
		free(own);
		own = NULL;
	} else {
		pthread_join(freer_thread, NULL);
	}
}

/* The call, with its path placed, then done(). */
#define PLACED(call_with_s, path)                    \
	({                                            \
		const char *s = place(path);          \
		long r_ = (call_with_s);              \
		done();                               \
		r_;                                   \
	})

int main(void)
{
	/* chunks of one size class in a row: the allocator often hands out
	 * neighbours, which place() looks for */
	for (int i = 0; i < POOL; i++)
		pool[i] = malloc(CHUNK);
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	/* a long name (past the dentry's inline buffer) and short ones */
	static const char longname[] = "a-name-longer-than-the-inline-name-buffer-of-a-dentry";
	char dir[128], deep[192], via_link[192];
	snprintf(dir, sizeof(dir), "/d/e/%s", longname);
	snprintf(deep, sizeof(deep), "%s/f", dir);
	snprintf(via_link, sizeof(via_link), "/d/l/%s", longname);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/e", 0755), 0);
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, dir, 0755), 0);
	int fd = uvfs_openat(p, AT_FDCWD, deep, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "create %s: %d", deep, fd);
	if (fd >= 0)
		uvfs_close(p, fd);
	int dfd = uvfs_openat(p, AT_FDCWD, "/d/e", O_DIRECTORY | O_RDONLY, 0);
	CHECK(dfd >= 0);
	CHECK_EQ(uvfs_symlinkat(p, "e", AT_FDCWD, "/d/l"), 0);

	struct stat st;
	SECTION("one name, relative to a directory fd");
	CHECK_EQ(PLACED(uvfs_fstatat(p, dfd, s, &st, 0), longname), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(PLACED(uvfs_fstatat(p, dfd, s, &st, 0), "nx"), -ENOENT);
	SECTION("one name after the root (getname hashes it)");
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), "/d"), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), "/nx-at-the-root"), -ENOENT);
	SECTION("a walk of several components, the last a long name");
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), dir), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), deep), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), "/d/e/nx"), -ENOENT);
	SECTION("through a symlink");
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), via_link), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(PLACED(uvfs_fstatat(p, AT_FDCWD, s, &st, 0), "/d/l/f-not-there"), -ENOENT);
	SECTION("names that change the tree");
	CHECK_EQ(PLACED(uvfs_mkdirat(p, AT_FDCWD, s, 0755), "/d/e/new-dir"), 0);
	fd = PLACED(uvfs_openat(p, AT_FDCWD, s, O_CREAT | O_EXCL | O_WRONLY, 0644), "/d/e/new-file");
	CHECK(fd >= 0, "%d", fd);
	if (fd >= 0)
		uvfs_close(p, fd);
	CHECK_EQ(PLACED(uvfs_unlinkat(p, AT_FDCWD, s, 0), "/d/e/new-file"), 0);
	CHECK_EQ(PLACED(uvfs_unlinkat(p, AT_FDCWD, s, AT_REMOVEDIR), "/d/e/new-dir"), 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/d/e/new-dir", &st, 0), -ENOENT);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/d/e/new-file", &st, 0), -ENOENT);
	printf("%d of the paths ended right before a chunk freed by another thread\n", pairs_used);

	uvfs_close(p, dfd);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	for (int i = 0; i < POOL; i++)
		free(pool[i]);
	return check_done();
}
