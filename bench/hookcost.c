// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hookcost - the cost of a library call with change listeners attached,
 * for bench/hookcost.sh to count under callgrind (issue 14: with the
 * frontend attached, a pwrite through the library within 5% of none).
 *
 * usage: hookcost OP MODE N [MOUNTPOINT]
 *   OP: pwrite (16 bytes at offset 0), write1 (one byte, rewinding every
 *   1 MiB, as the bench's write1), read1 (one byte, rewinding at the end),
 *   stat1 (fstat).
 *   MODE: none; hook (uvfs_set_change_hook with a function that does
 *   nothing: every write reported); listener (a listener with the
 *   frontend's mask, which takes every report); fuse (the FUSE frontend
 *   itself, embedded and mounted on MOUNTPOINT, its hook installed; built
 *   with fuse3 only).
 * Runs OP N times on a tmpfs file the mount never looked at; every result
 * is checked (exit 1).
 */
#include <uvfs.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HOOKCOST_FUSE
#include "uvfs_fuse.h"
#endif

static void hook_fn(const struct uvfs_change *c, void *arg)
{
	(void)c;
	(void)arg;
}

#ifdef UVFS_CHANGE_WRITE_FIRST /* not in a library before listeners: its figures for none and hook */
static int listener_fn(const struct uvfs_change *c, void *arg)
{
	(void)c;
	(void)arg;
	return 1;
}
#endif

#ifdef HOOKCOST_FUSE
static void *loop_main(void *arg)
{
	uvfs_fuse_loop(arg);
	return NULL;
}
#endif

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: hookcost pwrite|write1|read1|stat1 none|hook|listener|fuse N [MOUNTPOINT]\n");
		return 2;
	}
	const char *op = argv[1], *mode = argv[2];
	long n = atol(argv[3]);
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = fs ? uvfs_proc_create(fs, 0, 0) : NULL;
	int fd = p ? uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_RDWR, 0644) : -1;
	if (fd < 0) {
		fprintf(stderr, "hookcost: no instance or file\n");
		return 1;
	}
	static char mb[1 << 20];
	if (uvfs_pwrite(p, fd, mb, sizeof(mb), 0) != (ssize_t)sizeof(mb)) {
		fprintf(stderr, "hookcost: cannot fill the file\n");
		return 1;
	}
#ifdef UVFS_CHANGE_WRITE_FIRST
	struct uvfs_change_listener *l = NULL;
#endif
#ifdef HOOKCOST_FUSE
	struct uvfs_fuse *uf = NULL;
	pthread_t th;
#endif
	if (!strcmp(mode, "hook")) {
		if (uvfs_set_change_hook(fs, hook_fn, NULL))
			return 1;
#ifdef UVFS_CHANGE_WRITE_FIRST
	} else if (!strcmp(mode, "listener")) {
		unsigned mask = (UVFS_CHANGE_ALL & ~UVFS_CHANGE_BIT(UVFS_CHANGE_WRITE)) | UVFS_CHANGE_WRITE_FIRST;
		if (uvfs_add_change_listener(fs, mask, listener_fn, NULL, &l))
			return 1;
#endif
	} else if (!strcmp(mode, "fuse")) {
#ifdef HOOKCOST_FUSE
		int err = 0;
		char *fargv[] = { "hookcost", NULL };
		if (argc < 5 || !(uf = uvfs_fuse_new(fs, argv[4], 1, fargv, &err))) {
			fprintf(stderr, "hookcost: no mount (%s)\n", strerror(-err));
			return 1;
		}
		pthread_create(&th, NULL, loop_main, uf);
		/* served only once the loop runs, which installs the hook first;
		 * from another process, which valgrind does not run (a stat
		 * from this one never returned under callgrind) */
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "stat '%s' >/dev/null", argv[4]);
		if (system(cmd)) {
			fprintf(stderr, "hookcost: no stat of the mount\n");
			return 1;
		}
#else
		fprintf(stderr, "hookcost: built without fuse3\n");
		return 1;
#endif
	} else if (strcmp(mode, "none")) {
		fprintf(stderr, "hookcost: unknown mode %s\n", mode);
		return 2;
	}
	char buf[16] = "0123456789abcdef";
	struct stat st;
	long pos = 0;
	/* decoded once: the loop costs only its calls and a switch */
	int k = !strcmp(op, "pwrite") ? 0 : !strcmp(op, "write1") ? 1 : !strcmp(op, "read1") ? 2 : 3;
	for (long i = 0; i < n; i++) {
		long r;
		if (k == 0) {
			r = uvfs_pwrite(p, fd, buf, 16, 0) == 16;
		} else if (k == 1) {
			r = uvfs_write(p, fd, buf, 1) == 1;
			if (++pos == 1 << 20) {
				uvfs_lseek(p, fd, 0, SEEK_SET);
				pos = 0;
			}
		} else if (k == 2) {
			ssize_t got = uvfs_read(p, fd, buf, 1);
			if (got == 0)
				got = uvfs_lseek(p, fd, 0, SEEK_SET) == 0 && uvfs_read(p, fd, buf, 1) == 1;
			r = got == 1;
		} else {
			r = uvfs_fstat(p, fd, &st) == 0;
		}
		if (!r) {
			fprintf(stderr, "hookcost: %s failed at %ld\n", op, i);
			return 1;
		}
	}
#ifdef UVFS_CHANGE_WRITE_FIRST
	if (l && uvfs_remove_change_listener(fs, l))
		return 1;
#endif
#ifdef HOOKCOST_FUSE
	if (uf) {
		uvfs_fuse_exit(uf);
		pthread_join(th, NULL);
		uvfs_fuse_destroy(uf);
	}
#endif
	uvfs_close(p, fd);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	return 0;
}
