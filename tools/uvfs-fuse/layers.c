/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * layers.c - -o lowerdir=A:B,upperdir=U,workdir=W: the tree is uvfs's overlay
 * of host directories, each layer a hostfs mount inside the fresh instance.
 *
 * The overlay takes layers that are paths in the uvfs tree, so every host
 * directory is first mounted through hostfs on a hidden directory of the
 * instance (/.layers/...), then the overlay on /.layers/merged, and the
 * frontend's procs are chrooted into it, as for -o hostdir.  Lower layers are
 * read-only hostfs mounts.  The upper and work directories must be on one
 * mount (Linux's rule, which uvfs's overlay checks), so their deepest common
 * host ancestor is mounted once and both are named beneath it.
 */
#include "internal.h"
#include <sys/mount.h>

/* The host directories, resolved once: realpath, and each one must open as a
 * directory, so that a bad layer is a message before the mount. */
static char *host_dir(const char *opt, const char *path)
{
	char *r = realpath(path, NULL);
	int fd;

	if (!r) {
		fprintf(stderr, "uvfs-fuse: %s=%s: %s\n", opt, path, strerror(errno));
		return NULL;
	}
	fd = open(r, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "uvfs-fuse: %s=%s: %s\n", opt, path, strerror(errno));
		free(r);
		return NULL;
	}
	close(fd);
	return r;
}

/* The length of the deepest common ancestor of two absolute, resolved paths. */
static size_t common_dir(const char *a, const char *b)
{
	size_t i, last = 0;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	if ((!a[i] || a[i] == '/') && (!b[i] || b[i] == '/'))
		last = i; /* one is the other, or its ancestor */
	return last;
}

int uf_check_layers(struct uvfs_fuse *uf)
{
	struct uf_opts *o = &uf->o;
	char *copy, *tok, *save = NULL, *d;

	if (!o->lowerdir && !o->upperdir && !o->workdir)
		return 0;
	if (!uf->own_fs || o->hostdir) {
		fprintf(stderr, "uvfs-fuse: lowerdir= only applies to an instance the frontend makes, "
			"and not with hostdir=\n");
		return -EINVAL;
	}
	if (o->size || o->nr_inodes || o->uid || o->gid || o->mode) {
		fprintf(stderr, "uvfs-fuse: size=, nr_inodes=, uid=, gid= and mode= are the tmpfs root's, "
			"not the overlay's\n");
		return -EINVAL;
	}
	if (!o->lowerdir || !*o->lowerdir || !o->upperdir != !o->workdir) {
		fprintf(stderr, "uvfs-fuse: an overlay needs lowerdir=, and upperdir= and workdir= "
			"together or neither\n");
		return -EINVAL;
	}
	if (strstr(o->lowerdir, "::")) {
		fprintf(stderr, "uvfs-fuse: lowerdir=: data-only layers (\"::\") are not served\n");
		return -EINVAL;
	}
	copy = strdup(o->lowerdir);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		d = host_dir("lowerdir", tok);
		if (!d) {
			free(copy);
			return -EINVAL;
		}
		free(d);
	}
	free(copy);
	if (o->upperdir) {
		char *w;
		size_t c;

		d = host_dir("upperdir", o->upperdir);
		if (!d)
			return -EINVAL;
		w = host_dir("workdir", o->workdir);
		if (!w) {
			free(d);
			return -EINVAL;
		}
		/* Linux's "workdir and upperdir must be separate subtrees",
		 * here so that it is a message and status 1 before the mount */
		c = common_dir(d, w);
		if (!d[c] || !w[c]) {
			fprintf(stderr, "uvfs-fuse: upperdir= and workdir= must be separate subtrees\n");
			c = 0;
		} else {
			c = 1;
		}
		free(d);
		free(w);
		if (!c)
			return -EINVAL;
	}
	return 0;
}

static int mkdir_mount(struct uvfs_fuse *uf, const char *host, const char *at, unsigned long flags)
{
	int r = uvfs_mkdirat(uf->base, AT_FDCWD, at, 0755);

	if (!r)
		r = uvfs_mount(uf->base, host, at, "hostfs", flags, NULL);
	if (r < 0)
		fprintf(stderr, "uvfs-fuse: hostfs of %s: %s\n", host, strerror(-r));
	return r;
}

int uf_mount_layers(struct uvfs_fuse *uf)
{
	struct uf_opts *o = &uf->o;
	char *copy = NULL, *tok, *save = NULL, *up = NULL, *work = NULL, *opts = NULL, *lowers = NULL;
	size_t len = 0, n = 0, c;
	int r;

	r = uvfs_mkdirat(uf->base, AT_FDCWD, "/.layers", 0755);
	if (r < 0)
		goto out;
	copy = strdup(o->lowerdir);
	lowers = calloc(1, strlen(o->lowerdir) * 2 + 32 * (strlen(o->lowerdir) + 1) + 1);
	if (!copy || !lowers) {
		r = -ENOMEM;
		goto out;
	}
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save), n++) {
		char at[48], *d = realpath(tok, NULL);

		if (!d) {
			r = -errno;
			fprintf(stderr, "uvfs-fuse: lowerdir=%s: %s\n", tok, strerror(errno));
			goto out;
		}
		snprintf(at, sizeof(at), "/.layers/lower%zu", n);
		r = mkdir_mount(uf, d, at, MS_RDONLY);
		free(d);
		if (r < 0)
			goto out;
		len += (size_t)sprintf(lowers + len, "%s%s", n ? ":" : "", at);
	}
	if (o->upperdir) {
		up = realpath(o->upperdir, NULL);
		work = realpath(o->workdir, NULL);
		if (!up || !work) {
			r = -errno;
			fprintf(stderr, "uvfs-fuse: upperdir=/workdir=: %s\n", strerror(errno));
			goto out;
		}
		c = common_dir(up, work);
		{
			char top[PATH_MAX];

			snprintf(top, sizeof(top), "%.*s", (int)(c ? c : 1), up);
			r = mkdir_mount(uf, top, "/.layers/upper", 0);
		}
		if (r < 0)
			goto out;
		r = asprintf(&opts, "lowerdir=%s,upperdir=/.layers/upper%s,workdir=/.layers/upper%s", lowers,
			     up + c, work + c);
	} else {
		r = asprintf(&opts, "lowerdir=%s", lowers);
	}
	if (r < 0) {
		opts = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = uvfs_mkdirat(uf->base, AT_FDCWD, "/.layers/merged", 0755);
	if (!r)
		r = uvfs_mount(uf->base, "overlay", "/.layers/merged", "overlay", 0, opts);
	if (r < 0) {
		fprintf(stderr, "uvfs-fuse: overlay %s: %s\n", opts, strerror(-r));
		goto out;
	}
	r = uvfs_chroot(uf->base, "/.layers/merged");
	if (!r)
		r = uvfs_chdir(uf->base, "/");
out:
	free(copy);
	free(lowers);
	free(up);
	free(work);
	free(opts);
	return r;
}
