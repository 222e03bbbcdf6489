/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * options.c - options: the -o options of the frontend, the tmpfs options of an
 * instance the frontend makes, --help.
 */
#include "internal.h"

enum { KEY_DEFAULT_PERMISSIONS };

#define UF_OPT(t, p) { t, offsetof(struct uf_opts, p), 1 }
const struct fuse_opt uf_optspec[] = {
	UF_OPT("size=%s", size),
	UF_OPT("nr_inodes=%s", nr_inodes),
	UF_OPT("uid=%s", uid),
	UF_OPT("gid=%s", gid),
	UF_OPT("mode=%s", mode),
	UF_OPT("entry_timeout=%lf", entry_timeout),
	UF_OPT("attr_timeout=%lf", attr_timeout),
	UF_OPT("negative_timeout=%lf", negative_timeout),
	UF_OPT("keep_cache", keep_cache),
	UF_OPT("watch", watch),
	{ "nowatch", offsetof(struct uf_opts, watch), 0 },
	FUSE_OPT_KEY("default_permissions", KEY_DEFAULT_PERMISSIONS),
	FUSE_OPT_END
};

int uf_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct uf_opts *o = data;

	if (key == KEY_DEFAULT_PERMISSIONS)
		o->default_permissions = 1;
	return 1; /* keep it for libfuse */
}

/* "123", "64k", "1g", "50%" (of physical memory, as tmpfs). */
static int parse_size(const char *s, bool percent_ok, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	case 't': case 'T': v <<= 40; end++; break;
	case '%':
		if (!percent_ok || v > 100)
			return -1;
		v = (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE) / 100 * v;
		end++;
		break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int parse_id(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v >= (unsigned long)UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* Parse the tmpfs options; with create, make the instance from them. */
int uf_make_instance(struct uvfs_fuse *uf, bool create)
{
	struct uvfs_options opts;
	unsigned long long v;
	unsigned id;

	memset(&opts, 0, sizeof(opts));
	opts.root_mode = 01777;
	if (uf->o.size) {
		if (parse_size(uf->o.size, true, &v) < 0)
			goto bad;
		opts.tmpfs_size = v;
	}
	if (uf->o.nr_inodes) {
		if (parse_size(uf->o.nr_inodes, false, &v) < 0)
			goto bad;
		opts.tmpfs_nr_inodes = (unsigned long)v;
	}
	if (uf->o.uid) {
		if (parse_id(uf->o.uid, &id) < 0)
			goto bad;
		opts.root_uid = id;
	}
	if (uf->o.gid) {
		if (parse_id(uf->o.gid, &id) < 0)
			goto bad;
		opts.root_gid = id;
	}
	if (uf->o.mode) {
		char *end;
		unsigned long m = strtoul(uf->o.mode, &end, 8);

		if (end == uf->o.mode || *end || m > 07777)
			goto bad;
		opts.root_mode = (mode_t)m;
	}
	if (create) {
		uf->fs = uvfs_create(&opts);
		if (!uf->fs)
			return -ENOMEM;
	}
	return 0;
bad:
	fprintf(stderr, "uvfs-fuse: bad value in -o size=/nr_inodes=/uid=/gid=/mode=\n");
	return -EINVAL;
}

void uvfs_fuse_print_help(void)
{
	printf("usage: uvfs-fuse [options] MOUNTPOINT\n"
	       "\n"
	       "Mount a fresh uvfs tree (the Linux VFS in user space, over an in-memory\n"
	       "tmpfs) on MOUNTPOINT through FUSE.\n"
	       "\n"
	       "uvfs options:\n"
	       "    -o size=BYTES[k|m|g|%%]  bytes of file data in the tmpfs (default unlimited)\n"
	       "    -o nr_inodes=N[k|m|g]   inodes in the tmpfs (default unlimited)\n"
	       "    -o uid=N,gid=N          owner of the root directory (default 0, 0)\n"
	       "    -o mode=OCTAL           mode of the root directory (default 1777)\n"
	       "    -o entry_timeout=S      seconds the kernel caches names (default 1)\n"
	       "    -o attr_timeout=S       seconds the kernel caches attributes (default 1)\n"
	       "    -o negative_timeout=S   seconds the kernel caches failed lookups (default 1)\n"
	       "    -o keep_cache           keep file data cached across opens (default: dropped\n"
	       "                            at each open)\n"
	       "    -o watch, -o nowatch    invalidate the kernel's caches when another proc of\n"
	       "                            the instance changes the tree (default: on when\n"
	       "                            embedding an instance, off for uvfs-fuse's own)\n"
	       "\n"
	       "FUSE options:\n"
	       "    -h   --help             print this help and exit\n"
	       "    -V   --version          print the version and exit\n"
	       "    -d   -o debug           print each request (implies -f)\n"
	       "    -f                      stay in the foreground\n"
	       "    -s                      single-threaded (default: multi-threaded)\n"
	       "    -o allow_other          let every user use the mount (not only its owner)\n"
	       "    -o default_permissions  the kernel checks modes too (from its cached\n"
	       "                            attributes); without it uvfs alone decides\n"
	       "    -o max_threads=N        at most N worker threads (default 10)\n"
	       "    -o max_idle_threads=N   keep at most N idle worker threads\n"
	       "    -o clone_fd             one /dev/fuse fd per worker thread\n"
	       "    -o fsname=NAME,subtype=NAME   names in /proc/mounts (default uvfs)\n"
	       "\n"
	       "Stop with Ctrl-C, SIGTERM or `fusermount3 -u MOUNTPOINT`.\n");
}
