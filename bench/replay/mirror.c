/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mirror.c - the tree a replay runs in.  The manifest lists every path the
 * recorded calls reached, parents first (record.py sorts it); the mirror is
 * made from it alone, so a trace replays on any machine.  Files are made
 * with ftruncate: the replay reads only sizes, and a sparse file costs no
 * memory.
 *
 * The host's mirror is a tmpfs in a mount namespace of the replaying child
 * only, with the child chrooted into it: the recorded absolute paths then
 * name the mirror and never the real tree, by construction, and the tmpfs
 * goes away with the namespace when the child exits.
 *
 * uvfs-hostfs's mirror is such a tmpfs too, seen by uvfs through hostfs:
 * the proc's root is a hostfs mount of it, so every call of the replay is a
 * hostfs call that reaches the host's tmpfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <dlfcn.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "replay/mirror.h"
#include "replay/ops.h"
#include "replay/trace.h"

int mirror_build(const struct replay_ops *o, struct uvfs_proc *p, const struct trace *t,
		 char *err, size_t errlen)
{
	int i, r = 0, fd;

	for (i = 0; i < t->nm; i++) {
		const struct mentry *m = &t->m[i];

		switch (m->type) {
		case 'd':
			r = o->mkdirat(p, AT_FDCWD, m->path, 0755);
			if (r == -EEXIST)
				r = 0;
			break;
		case 'f':
			fd = o->openat(p, AT_FDCWD, m->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				       0644);
			if (fd < 0) {
				r = fd;
				break;
			}
			r = o->ftruncate(p, fd, m->size);
			o->close(p, fd);
			break;
		case 'l':
			r = o->symlinkat(p, m->body, AT_FDCWD, m->path);
			if (r == -EEXIST)
				r = 0;
			break;
		}
		if (r < 0) {
			snprintf(err, errlen, "mirror: making %s (%c): %s", m->path, m->type,
				 strerror(-r));
			return -1;
		}
	}
	/* modes last, children first: a directory without write permission
	 * is filled before it gets its mode */
	for (i = t->nm - 1; i >= 0; i--) {
		const struct mentry *m = &t->m[i];

		if (m->type == 'l')
			continue;
		r = o->fchmodat(p, AT_FDCWD, m->path, m->mode, 0);
		if (r < 0) {
			snprintf(err, errlen, "mirror: chmod %o %s: %s", m->mode, m->path,
				 strerror(-r));
			return -1;
		}
	}
	return 0;
}

static int host_tmpfs(const char *mnt, char *err, size_t errlen)
{
	if (unshare(CLONE_NEWNS) < 0) {
		snprintf(err, errlen, "unshare(CLONE_NEWNS): %s (the host target needs root)",
			 strerror(errno));
		return -1;
	}
	/* nothing mounted here propagates back to the real tree */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(err, errlen, "making / private: %s", strerror(errno));
		return -1;
	}
	if (mount("uvfs-replay", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755") < 0) {
		snprintf(err, errlen, "mount tmpfs on %s: %s", mnt, strerror(errno));
		return -1;
	}
	return 0;
}

int mirror_host_root(const char *mnt, char *err, size_t errlen)
{
	if (host_tmpfs(mnt, err, errlen) < 0)
		return -1;
	if (chroot(mnt) < 0 || chdir("/") < 0) {
		snprintf(err, errlen, "chroot %s: %s", mnt, strerror(errno));
		return -1;
	}
	return 0;
}

int mirror_hostfs_root(void *dl, struct uvfs_proc *p, const char *mnt, char *err, size_t errlen)
{
	int (*mkdirat_)(struct uvfs_proc *, int, const char *, mode_t) = dlsym(dl, "uvfs_mkdirat");
	int (*mount_)(struct uvfs_proc *, const char *, const char *, const char *, unsigned long,
		      const void *) = dlsym(dl, "uvfs_mount");
	int (*chroot_)(struct uvfs_proc *, const char *) = dlsym(dl, "uvfs_chroot");
	int (*chdir_)(struct uvfs_proc *, const char *) = dlsym(dl, "uvfs_chdir");
	struct rlimit rl;
	int r;

	if (!mkdirat_ || !mount_ || !chroot_ || !chdir_) {
		snprintf(err, errlen, "the library has no uvfs_mount, uvfs_chroot or uvfs_chdir");
		return -1;
	}
	if (host_tmpfs(mnt, err, errlen) < 0)
		return -1;
	/* hostfs holds a host fd per open file and an LRU of a quarter of the
	 * limit: as many as the host target gets */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536) {
		rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	r = mkdirat_(p, AT_FDCWD, "/.hostfs", 0755);
	if (r == 0)
		r = mount_(p, mnt, "/.hostfs", "hostfs", 0, "cache=exclusive");
	if (r == 0)
		r = chroot_(p, "/.hostfs");
	if (r == 0)
		r = chdir_(p, "/");
	if (r < 0) {
		snprintf(err, errlen, "hostfs of %s as the proc's root: %s", mnt, strerror(-r));
		return -1;
	}
	return 0;
}
