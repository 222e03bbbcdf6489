// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-rss.c - freed file pages go back to the host: a 512 MiB file is
 * written and then unlinked, truncated to zero or punched whole, and the
 * process's resident memory (/proc/self/statm) must drop back to within
 * 10% of what it was before the file was written.  Something allocated
 * after the file's pages stays live meanwhile (a small file made after it,
 * as any long-running embedder has), so freed pages cannot simply go with
 * the top of the heap.  The figures of each case (before, peak, after) are
 * printed; docs/BENCHMARKS.md lists them.
 *
 * Under AddressSanitizer the figures are not checked (the calls still are):
 * its allocator quarantines what is freed and keeps what it got, so they
 * say nothing about uvfs.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <uvfs.h>
#include "check.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define FILE_SIZE (512ul << 20)
#define CHUNK (1ul << 20)

static long rss_kib(void)
{
	char b[128];
	long size = 0, res = 0;
	int fd = open("/proc/self/statm", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	b[n] = 0;
	if (sscanf(b, "%ld %ld", &size, &res) != 2)
		return -1;
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

enum how { UNLINK, TRUNCATE, PUNCH };
static const char *const names[] = { "unlink", "truncate", "punch" };

static void one_case(struct uvfs_proc *p, enum how how, const char *chunk)
{
	long before = rss_kib();
	int fd = uvfs_openat(p, AT_FDCWD, "/big", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(fd >= 0, "open: %d", fd);
	for (size_t done = 0; done < FILE_SIZE; done += CHUNK)
		CHECK_EQ(uvfs_write(p, fd, chunk, CHUNK), (long)CHUNK);
	/* lives on past the big file */
	int keep = uvfs_openat(p, AT_FDCWD, "/after", O_CREAT | O_RDWR, 0644);
	CHECK_EQ(uvfs_write(p, keep, chunk, 100), 100);
	long peak = rss_kib();
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	switch (how) {
	case UNLINK:
		CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/big", 0), 0);
		CHECK_EQ(uvfs_close(p, fd), 0);
		break;
	case TRUNCATE:
		CHECK_EQ(uvfs_ftruncate(p, fd, 0), 0);
		break;
	case PUNCH:
		CHECK_EQ(uvfs_fallocate(p, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)FILE_SIZE), 0);
		break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long after = rss_kib();
	printf("%-8s RSS before %6ld KiB, peak %7ld KiB, after %6ld KiB; the call took %.1f ms\n", names[how], before,
	       peak, after, (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
#ifndef UNDER_ASAN
	/* the file was really resident, or the test proves nothing */
	CHECK(peak - before >= (long)(FILE_SIZE >> 10) * 9 / 10, "peak %ld KiB, before %ld KiB", peak, before);
	CHECK(after <= before + before / 10, "%s: after %ld KiB, before %ld KiB", names[how], after, before);
#else
	printf("SKIP %s: AddressSanitizer keeps freed memory in its quarantine\n", names[how]);
#endif
	if (how != UNLINK) {
		CHECK_EQ(uvfs_close(p, fd), 0);
		CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/big", 0), 0);
	}
	CHECK_EQ(uvfs_close(p, keep), 0);
	CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, "/after", 0), 0);
}

int main(void)
{
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	char *chunk = malloc(CHUNK);
	memset(chunk, 'x', CHUNK);
	/* the instance's own first allocations happen before the figure */
	int fd = uvfs_openat(p, AT_FDCWD, "/warm", O_CREAT | O_RDWR, 0644);
	uvfs_write(p, fd, chunk, 4096);
	uvfs_close(p, fd);
	uvfs_unlinkat(p, AT_FDCWD, "/warm", 0);
	for (int how = UNLINK; how <= PUNCH; how++)
		one_case(p, (enum how)how, chunk);
	free(chunk);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return check_done();
}
