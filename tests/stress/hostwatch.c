/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostwatch.c - hostfs cache=watch under a host that keeps changing.
 *
 * A host thread creates, writes, chmods, renames and removes files and
 * directories in the source directory with plain syscalls; three uvfs
 * threads walk it (stat, open and read, listings) while a fourth makes its
 * own changes beside the host's and a fifth reads a uvfs inotify watch of
 * the mount's root with poll and read.  The events read must be well formed
 * (a name for every entry event).  When the host thread stops, every name
 * of the tree must stat in uvfs as on the host (same inode, size and mode,
 * and the same bytes) and every name that is gone must be ENOENT, and each directory must list
 * the host's names (uvfs lists from memory): nothing stale survives.  Then
 * the umount (which joins the watch thread) with the uvfs threads' files
 * closed.  The last line is "N passed, N failed".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "uvfs.h"
#include "check.h"
#include "clock.h"

/* Each thread runs for RUN_MS and until it has done MIN_OPS (a loaded
 * machine or TSan slows some far more than others), at most MAX_MS. */
enum { DIRS = 4, NAMES = 8, RUN_MS = 1500, MIN_OPS = 200, MAX_MS = 60000 };

static char src[64];
static struct uvfs *fs;
static struct uvfs_proc *main_proc;
static int stop;
static unsigned long host_ops, walks, own_ops, events, bad_events;

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void *host_main(void *arg)
{
	(void)arg;
	unsigned s = 1;
	char a[160], b[160];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned d = rnd(&s) % DIRS, n = rnd(&s) % NAMES, m = rnd(&s) % NAMES;
		snprintf(a, sizeof(a), "%s/d%u/h%u", src, d, n);
		snprintf(b, sizeof(b), "%s/d%u/h%u", src, (d + 1) % DIRS, m);
		switch (rnd(&s) % 7) {
		case 0: {
			int fd = open(a, O_CREAT | O_WRONLY | O_APPEND, 0644);
			if (fd >= 0) {
				if (write(fd, "data", 4) < 0)
					perror("write");
				close(fd);
			}
			break;
		}
		case 1:
			chmod(a, rnd(&s) & 1 ? 0600 : 0644);
			break;
		case 2:
			rename(a, b);
			break;
		case 3:
			unlink(a);
			break;
		case 4:
			truncate(a, rnd(&s) % 16);
			break;
		case 5:
			mkdir(a, 0755);
			break;
		case 6:
			rmdir(a);
			break;
		}
		__atomic_fetch_add(&host_ops, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *walker_main(void *arg)
{
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	unsigned s = (unsigned)(uintptr_t)arg;
	char path[64], buf[4096];
	unsigned n = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned d = rnd(&s) % DIRS;
		snprintf(path, sizeof(path), "/w/d%u/h%u", d, rnd(&s) % NAMES);
		struct stat st;
		switch (rnd(&s) % 3) {
		case 0:
			uvfs_fstatat(p, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
			break;
		case 1: {
			int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY, 0);
			if (fd >= 0) {
				uvfs_read(p, fd, buf, sizeof(buf));
				uvfs_fstat(p, fd, &st);
				uvfs_close(p, fd);
			}
			break;
		}
		case 2: {
			snprintf(path, sizeof(path), "/w/d%u", d);
			int fd = uvfs_openat(p, AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0);
			if (fd >= 0) {
				while (uvfs_getdents64(p, fd, buf, sizeof(buf)) > 0)
					;
				uvfs_close(p, fd);
			}
			break;
		}
		}
		if (++n % 16 == 0)
			__atomic_fetch_add(&walks, 16, __ATOMIC_RELAXED);
	}
	uvfs_proc_destroy(p);
	return NULL;
}

static void *own_main(void *arg)
{
	(void)arg;
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	unsigned s = 7;
	char a[64], b[64];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned d = rnd(&s) % DIRS;
		snprintf(a, sizeof(a), "/w/d%u/u%u", d, rnd(&s) % NAMES);
		snprintf(b, sizeof(b), "/w/d%u/u%u", (d + 1) % DIRS, rnd(&s) % NAMES);
		switch (rnd(&s) % 4) {
		case 0: {
			int fd = uvfs_openat(p, AT_FDCWD, a, O_CREAT | O_WRONLY, 0644);
			if (fd >= 0) {
				uvfs_write(p, fd, "own", 3);
				uvfs_close(p, fd);
			}
			break;
		}
		case 1:
			uvfs_fchmodat(p, AT_FDCWD, a, rnd(&s) & 1 ? 0600 : 0644, 0);
			break;
		case 2:
			uvfs_renameat2(p, AT_FDCWD, a, AT_FDCWD, b, 0);
			break;
		case 3:
			uvfs_unlinkat(p, AT_FDCWD, a, 0);
			break;
		}
		__atomic_fetch_add(&own_ops, 1, __ATOMIC_RELAXED);
	}
	uvfs_proc_destroy(p);
	return NULL;
}

static void *reader_main(void *arg)
{
	int ifd = *(int *)arg;
	struct uvfs_proc *p = main_proc; /* the fd is its */
	char buf[4096] __attribute__((aligned(8)));
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct pollfd pf = { .fd = ifd, .events = POLLIN };
		if (uvfs_poll(p, &pf, 1, 20) <= 0)
			continue;
		long r = uvfs_read(p, ifd, buf, sizeof(buf));
		for (long off = 0; r > 0 && off < r;) {
			struct inotify_event *e = (struct inotify_event *)(buf + off);
			uint32_t entry = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;
			if ((e->mask & entry) && (!e->len || !e->name[0]))
				bad_events++;
			if ((e->mask & (IN_MOVED_FROM | IN_MOVED_TO)) && !e->cookie)
				bad_events++;
			__atomic_fetch_add(&events, 1, __ATOMIC_RELAXED);
			off += (long)sizeof(*e) + e->len;
		}
	}
	return NULL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's names, sorted, joined by spaces: uvfs's (upath) or the
 * host's (hpath). */
static void listing(struct uvfs_proc *p, const char *upath, const char *hpath, char *out, size_t n)
{
	char *v[DIRS * NAMES * 2 + 8];
	size_t k = 0, max = sizeof(v) / sizeof(v[0]);
	if (upath) {
		char buf[4096] __attribute__((aligned(8)));
		int fd = uvfs_openat(p, AT_FDCWD, upath, O_RDONLY | O_DIRECTORY, 0);
		long r;
		while (fd >= 0 && (r = uvfs_getdents64(p, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < r;) {
				struct dirent64 *e = (struct dirent64 *)(buf + off);
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && k < max)
					v[k++] = strdup(e->d_name);
				off += e->d_reclen;
			}
		if (fd >= 0)
			uvfs_close(p, fd);
	} else {
		DIR *d = opendir(hpath);
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && k < max)
				v[k++] = strdup(e->d_name);
		if (d)
			closedir(d);
	}
	qsort(v, k, sizeof(v[0]), cmp_name);
	out[0] = 0;
	for (size_t i = 0; i < k; i++) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
}

/* The file's bytes in uvfs (upath) and on the host (hpath) are the same. */
static bool same_data(struct uvfs_proc *p, const char *upath, const char *hpath)
{
	char ub[8192], hb[8192];
	long un = -1, hn = -1;
	int fd = uvfs_openat(p, AT_FDCWD, upath, O_RDONLY, 0);
	if (fd >= 0) {
		un = uvfs_read(p, fd, ub, sizeof(ub));
		uvfs_close(p, fd);
	}
	int hfd = open(hpath, O_RDONLY);
	if (hfd >= 0) {
		hn = read(hfd, hb, sizeof(hb));
		close(hfd);
	}
	bool ok = un >= 0 && un == hn && !memcmp(ub, hb, (size_t)un);
	if (!ok)
		printf("  %s: uvfs read %ld bytes, host %ld, %s\n", upath, un, hn, un == hn ? "different" : "");
	return ok;
}

/* Every name the host has, and every name it could have had, as in uvfs:
 * stat, and a file's data. */
static void final_compare(struct uvfs_proc *p)
{
	unsigned long same = 0, differ = 0;
	for (unsigned d = 0; d < DIRS; d++) {
		for (unsigned n = 0; n < NAMES; n++) {
			for (int own = 0; own < 2; own++) {
				char h[160], up[64];
				snprintf(h, sizeof(h), "%s/d%u/%c%u", src, d, own ? 'u' : 'h', n);
				snprintf(up, sizeof(up), "/w/d%u/%c%u", d, own ? 'u' : 'h', n);
				struct stat hs, us;
				int hr = lstat(h, &hs) ? -errno : 0;
				int ur = uvfs_fstatat(p, AT_FDCWD, up, &us, AT_SYMLINK_NOFOLLOW);
				bool ok = hr == ur && (hr || (hs.st_ino == us.st_ino && hs.st_size == us.st_size &&
							      hs.st_mode == us.st_mode));
				/* and a file's data (hostfs's page cache, read by the
				 * walkers meanwhile) is the host's */
				if (ok && !hr && S_ISREG(hs.st_mode))
					ok = same_data(p, up, h);
				if (ok) {
					same++;
				} else {
					differ++;
					if (differ < 5)
						printf("  %s: host %d ino %lu size %ld mode %o, uvfs %d ino %lu size %ld mode %o\n",
						       up, hr, hr ? 0 : (unsigned long)hs.st_ino, hr ? 0 : (long)hs.st_size,
						       hr ? 0 : hs.st_mode, ur, ur ? 0 : (unsigned long)us.st_ino,
						       ur ? 0 : (long)us.st_size, ur ? 0 : us.st_mode);
				}
			}
		}
	}
	CHECK_EQ(differ, 0);
	CHECK_EQ(same, DIRS * NAMES * 2);
	/* and each directory's listing (from memory: made stale by the host's
	 * events) names what the host's does, each name once */
	for (unsigned d = 0; d < DIRS; d++) {
		char h[160], up[32], hl[1024], ul[1024];
		snprintf(h, sizeof(h), "%s/d%u", src, d);
		snprintf(up, sizeof(up), "/w/d%u", d);
		listing(p, NULL, h, hl, sizeof(hl));
		listing(p, up, NULL, ul, sizeof(ul));
		CHECK(!strcmp(hl, ul), "%s: host [%s], uvfs [%s]", up, hl, ul);
	}
}

int main(void)
{
	strcpy(src, "/dev/shm/uvfs-stress-hostwatch-XXXXXX");
	if (!mkdtemp(src))
		return 1;
	for (unsigned d = 0; d < DIRS; d++) {
		char path[160];
		snprintf(path, sizeof(path), "%s/d%u", src, d);
		mkdir(path, 0755);
	}
	fs = uvfs_create(NULL);
	struct uvfs_proc *p = main_proc = uvfs_proc_create(fs, 0, 0);
	uvfs_mkdirat(p, AT_FDCWD, "/w", 0755);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch,fds=16"), 0);
	int ifd = uvfs_inotify_init1(p, IN_NONBLOCK);
	CHECK(uvfs_inotify_add_watch(p, ifd, "/w", IN_ALL_EVENTS) >= 0);
	for (unsigned d = 0; d < DIRS; d++) {
		char path[32];
		snprintf(path, sizeof(path), "/w/d%u", d);
		CHECK(uvfs_inotify_add_watch(p, ifd, path, IN_ALL_EVENTS) >= 0);
	}
	pthread_t host, walkers[3], own, reader;
	pthread_create(&host, NULL, host_main, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&walkers[i], NULL, walker_main, (void *)(uintptr_t)(i + 11));
	pthread_create(&own, NULL, own_main, NULL);
	pthread_create(&reader, NULL, reader_main, &ifd);
	double t0 = now_s();
	for (;;) {
		msleep(50);
		double ms = (now_s() - t0) * 1000;
		if (ms >= MAX_MS)
			break;
		if (ms >= RUN_MS && __atomic_load_n(&host_ops, __ATOMIC_RELAXED) >= MIN_OPS &&
		    __atomic_load_n(&walks, __ATOMIC_RELAXED) >= MIN_OPS &&
		    __atomic_load_n(&own_ops, __ATOMIC_RELAXED) >= MIN_OPS && __atomic_load_n(&events, __ATOMIC_RELAXED))
			break;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(host, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(walkers[i], NULL);
	pthread_join(own, NULL);
	pthread_join(reader, NULL);
	printf("host changes %lu, uvfs walks %lu, uvfs changes %lu, events read %lu\n", host_ops, walks, own_ops,
	       events);
	CHECK(host_ops >= MIN_OPS && walks >= MIN_OPS && own_ops >= MIN_OPS && events > 0);
	CHECK_EQ(bad_events, 0);
	final_compare(p);
	uvfs_close(p, ifd);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", src);
	if (system(cmd))
		printf("could not remove %s\n", src);
	return check_done();
}
