/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * options.c - options: the -o options of the frontend, the tmpfs options of an
 * instance the frontend makes, --help.
 */
#include "internal.h"
#include <sys/mount.h>

enum {
	KEY_DEFAULT_PERMISSIONS,
	KEY_ENTRY_TIMEOUT,
	KEY_ATTR_TIMEOUT,
	KEY_NEGATIVE_TIMEOUT,
	KEY_KEEP_CACHE,
	KEY_NOKEEP_CACHE,
	KEY_ATIME,
	KEY_SPIN,
};

#define UF_OPT(t, p) { t, offsetof(struct uf_opts, p), 1 }
const struct fuse_opt uf_optspec[] = {
	UF_OPT("size=%s", size),
	UF_OPT("nr_inodes=%s", nr_inodes),
	UF_OPT("uid=%s", uid),
	UF_OPT("gid=%s", gid),
	UF_OPT("mode=%s", mode),
	FUSE_OPT_KEY("entry_timeout=", KEY_ENTRY_TIMEOUT),
	FUSE_OPT_KEY("attr_timeout=", KEY_ATTR_TIMEOUT),
	FUSE_OPT_KEY("negative_timeout=", KEY_NEGATIVE_TIMEOUT),
	FUSE_OPT_KEY("keep_cache", KEY_KEEP_CACHE),
	FUSE_OPT_KEY("nokeep_cache", KEY_NOKEEP_CACHE),
	FUSE_OPT_KEY("spin=", KEY_SPIN),
	UF_OPT("watch", watch),
	UF_OPT("writeback", writeback),
	{ "nowatch", offsetof(struct uf_opts, watch), 0 },
	UF_OPT("xattr", xattr),
	{ "noxattr", offsetof(struct uf_opts, xattr), 0 },
	UF_OPT("locks", locks),
	{ "nolocks", offsetof(struct uf_opts, locks), 0 },
	UF_OPT("epoch", epoch),
	{ "noepoch", offsetof(struct uf_opts, epoch), 0 },
	FUSE_OPT_KEY("default_permissions", KEY_DEFAULT_PERMISSIONS),
	FUSE_OPT_KEY("atime", KEY_ATIME),
	FUSE_OPT_KEY("noatime", KEY_ATIME),
	FUSE_OPT_KEY("diratime", KEY_ATIME),
	FUSE_OPT_KEY("nodiratime", KEY_ATIME),
	FUSE_OPT_KEY("relatime", KEY_ATIME),
	FUSE_OPT_KEY("norelatime", KEY_ATIME),
	FUSE_OPT_KEY("strictatime", KEY_ATIME),
	FUSE_OPT_KEY("nostrictatime", KEY_ATIME),
	UF_OPT("hostdir=%s", hostdir),
	UF_OPT("lowerdir=%s", lowerdir),
	UF_OPT("upperdir=%s", upperdir),
	UF_OPT("workdir=%s", workdir),
	FUSE_OPT_END
};

/* "entry_timeout=S": seconds, not negative. */
static int parse_timeout(const char *arg, double *out)
{
	const char *v = strchr(arg, '=') + 1;
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= 0) || d > UF_MAX_TIMEOUT) {
		fprintf(stderr, "uvfs-fuse: bad timeout in -o %s (seconds, 0 to %d)\n", arg, UF_MAX_TIMEOUT);
		return -1;
	}
	*out = d;
	return 0;
}

/* "spin=US": microseconds, 0 to UF_MAX_SPIN_US. */
static int parse_spin(const char *arg, unsigned *out)
{
	const char *v = strchr(arg, '=') + 1;
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || n > UF_MAX_SPIN_US) {
		fprintf(stderr, "uvfs-fuse: bad -o %s (microseconds, 0 to %d)\n", arg, UF_MAX_SPIN_US);
		return -1;
	}
	*out = (unsigned)n;
	return 0;
}

/*
 * The atime options, as mount(8) turns them into mount flags, one after the
 * other (the last of "atime" and "noatime" wins).  The kernel keeps them on
 * its own mount too, but a FUSE server is never told of them, and the reads
 * and readdirs that reach it move atime in uvfs: uf_apply_atime sets the
 * same flags on the uvfs mount the frontend serves.  The kernel's rules
 * (strictatime overrides noatime, relatime unless noatime) are uvfs's.
 */
static void atime_opt(struct uf_opts *o, const char *arg)
{
	static const struct { const char *name; unsigned long flag; } tab[] = {
		{ "atime", MS_NOATIME }, { "diratime", MS_NODIRATIME },
		{ "relatime", MS_RELATIME }, { "strictatime", MS_STRICTATIME },
	};
	bool no = !strncmp(arg, "no", 2);
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(no ? arg + 2 : arg, tab[i].name))
			continue;
		/* "noatime" and "nodiratime" set their flag, "norelatime" and
		 * "nostrictatime" clear theirs */
		if (no == (tab[i].flag == MS_NOATIME || tab[i].flag == MS_NODIRATIME))
			o->atime_flags |= tab[i].flag;
		else
			o->atime_flags &= ~tab[i].flag;
		o->given |= UF_GIVEN_ATIME;
	}
}

int uf_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct uf_opts *o = data;

	switch (key) {
	case KEY_DEFAULT_PERMISSIONS:
		o->default_permissions = 1;
		return 1; /* keep it for libfuse */
	case KEY_ENTRY_TIMEOUT:
		o->given |= UF_GIVEN_ENTRY;
		return parse_timeout(arg, &o->entry_timeout);
	case KEY_ATTR_TIMEOUT:
		o->given |= UF_GIVEN_ATTR;
		return parse_timeout(arg, &o->attr_timeout);
	case KEY_NEGATIVE_TIMEOUT:
		o->given |= UF_GIVEN_NEGATIVE;
		return parse_timeout(arg, &o->negative_timeout);
	case KEY_KEEP_CACHE:
	case KEY_NOKEEP_CACHE:
		o->given |= UF_GIVEN_KEEP_CACHE;
		o->keep_cache = key == KEY_KEEP_CACHE;
		return 0;
	case KEY_SPIN:
		return parse_spin(arg, &o->spin_us);
	case KEY_ATIME:
		atime_opt(o, arg);
		/* libfuse 3.14 makes "atime" and "noatime" flags of the kernel's
		 * mount and refuses the others: uf_apply_host_atime sets those */
		return !strcmp(arg, "atime") || !strcmp(arg, "noatime");
	}
	return 1;
}

/*
 * The caches' defaults, once it is known whether every change reaches the
 * frontend: for its own instance every change comes through the mount, and
 * the kernel keeps its caches right itself; an embedder's instance with the
 * change hook installed has every other change invalidated before the
 * library call returns.  Then the kernel may keep names, failed lookups,
 * attributes, file data and directory listings for as long as it likes
 * (UF_LONG_TIMEOUT).  Otherwise (an embedder's instance with -o nowatch, or
 * a hook that could not be installed) a change made through the library
 * shows only when a timeout expires: 1 s, and data dropped at each open.
 */
void uf_cache_defaults(struct uvfs_fuse *uf)
{
	struct uf_opts *o = &uf->o;
	double d;

	uf->exact = uf->own_fs || uf->hooked;
	d = uf->exact ? UF_LONG_TIMEOUT : 1.0;
	if (!(o->given & UF_GIVEN_ENTRY))
		o->entry_timeout = d;
	/* Attributes of an embedder's instance are not cached by default: under
	 * load the kernel was seen keeping a size from a LOOKUP reply answered
	 * before a library write whose inval_inode had succeeded (test-embed's
	 * "no stale size", about 1 run in 30), and the cause is not found yet.
	 * Names, failed lookups and data stay long: their checks hold. */
	if (!(o->given & UF_GIVEN_ATTR))
		o->attr_timeout = uf->hooked && !uf->own_fs ? 0 : d;
	if (!(o->given & UF_GIVEN_NEGATIVE))
		o->negative_timeout = d;
	if (!(o->given & UF_GIVEN_KEEP_CACHE))
		o->keep_cache = uf->exact;
}

/*
 * The atime options on the uvfs mount the frontend serves (the instance's
 * root), its other flags kept: the reads, readdirs and readlinks that reach
 * the frontend then move atime as they would on the kernel's mount.  On an
 * embedder's instance the library's users see the same rules.
 */
int uf_apply_atime(struct uvfs_fuse *uf)
{
	static const struct { unsigned long st, ms; } keep[] = {
		{ ST_RDONLY, MS_RDONLY }, { ST_NOSUID, MS_NOSUID },
		{ ST_NODEV, MS_NODEV }, { ST_NOEXEC, MS_NOEXEC },
	};
	unsigned long flags = MS_REMOUNT | MS_BIND | (uf->o.atime_flags & ~MS_RELATIME);
	struct statfs sf;
	size_t i;
	int r;

	if (!(uf->o.given & UF_GIVEN_ATIME))
		return 0;
	r = uvfs_statfs(uf->base, "/", &sf);
	if (r < 0)
		return r;
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (sf.f_flags & keep[i].st)
			flags |= keep[i].ms;
	return uvfs_mount(uf->base, NULL, "/", NULL, flags, NULL);
}

/*
 * The kernel's mount gets the atime flags libfuse does not pass
 * (nodiratime, relatime, strictatime): a bind remount of the mount point,
 * its other flags kept, so that /proc/mounts and statvfs show them.  Only
 * root may; otherwise the uvfs side still follows them (uf_apply_atime),
 * which is what decides the atime of every read that reaches uvfs.
 */
void uf_apply_host_atime(struct uvfs_fuse *uf)
{
	static const struct { const char *name; unsigned long ms; } keep[] = {
		{ "ro", MS_RDONLY }, { "nosuid", MS_NOSUID },
		{ "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
	};
	unsigned long flags = MS_REMOUNT | MS_BIND | uf->o.atime_flags;
	char line[4096], opts[1024], *tok, *save;
	FILE *f;
	size_t i;
	bool found = false;

	if (!(uf->o.atime_flags & (MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME)))
		return;
	/* the mount's flags from mountinfo: a statvfs would be a request to
	 * this server, whose loop does not run yet */
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char mp[PATH_MAX];

		if (sscanf(line, "%*s %*s %*s %*s %4095s %1023s", mp, opts) == 2 && !strcmp(mp, uf->mountpoint))
			found = true; /* the last one: the mount just made */
		else
			continue;
		flags = MS_REMOUNT | MS_BIND | uf->o.atime_flags;
		for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
				if (!strcmp(tok, keep[i].name))
					flags |= keep[i].ms;
	}
	fclose(f);
	if (found && mount(NULL, uf->mountpoint, NULL, flags, NULL) < 0)
		fprintf(stderr, "uvfs-fuse: the kernel's mount keeps its atime flags (%s); uvfs follows "
			"the options given\n", strerror(errno));
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
	/* tmpfs's defaults: half of physical memory, and as many inodes as that
	 * has pages, so that statfs (df) shows the mount; size=0 or
	 * nr_inodes=0 is unlimited, as on tmpfs */
	opts.tmpfs_size = (unsigned long long)sysconf(_SC_PHYS_PAGES) / 2 * (unsigned long long)sysconf(_SC_PAGESIZE);
	opts.tmpfs_nr_inodes = (unsigned long)sysconf(_SC_PHYS_PAGES) / 2;
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
	       "    -o size=BYTES[k|m|g|%%]  bytes of file data in the tmpfs (default 50%%, 0 is\n"
	       "                            unlimited, as tmpfs's)\n"
	       "    -o nr_inodes=N[k|m|g]   inodes in the tmpfs (default: half the pages of\n"
	       "                            memory, 0 is unlimited, as tmpfs's)\n"
	       "    -o uid=N,gid=N          owner of the root directory (default 0, 0)\n"
	       "    -o mode=OCTAL           mode of the root directory (default 1777)\n"
	       "    -o hostdir=DIR          the tree is the host directory DIR (hostfs,\n"
	       "                            cache=exclusive: nothing else may change DIR)\n"
	       "    -o lowerdir=A[:B...],upperdir=U,workdir=W   the tree is an overlay of the\n"
	       "                            host directories (uvfs's overlayfs over hostfs, as\n"
	       "                            Linux's overlayfs options; no upperdir: read-only)\n"
	       "    -o entry_timeout=S      seconds the kernel caches names\n"
	       "    -o attr_timeout=S       seconds the kernel caches attributes\n"
	       "    -o negative_timeout=S   seconds the kernel caches failed lookups\n"
	       "                            (default for the three: 86400 when every change\n"
	       "                            reaches the frontend, else 1)\n"
	       "    -o keep_cache, -o nokeep_cache   keep file data cached across opens, or\n"
	       "                            drop it at each open (default: kept when every\n"
	       "                            change reaches the frontend)\n"
	       "    -o writeback            the kernel's writeback cache (with default_permissions\n"
	       "                            and the frontend's own instance only; not exact:\n"
	       "                            st_blocks and SEEK_DATA/SEEK_HOLE show only what\n"
	       "                            reached uvfs, ENOSPC shows at fsync or close)\n"
	       "    -o watch, -o nowatch    invalidate the kernel's caches when another proc of\n"
	       "                            the instance changes the tree (default: on when\n"
	       "                            embedding an instance, off for uvfs-fuse's own)\n"
	       "    -o noxattr              no extended attributes through the mount (ENOSYS, so\n"
	       "                            the kernel stops asking: an inode's first write and\n"
	       "                            a chown then cost no security.capability lookup)\n"
	       "    -o locks, -o nolocks    uvfs keeps the locks of programs on the mount (POSIX,\n"
	       "                            and flock where opens reach uvfs), shared with the\n"
	       "                            library's procs, or the kernel keeps them (default:\n"
	       "                            on when embedding an instance, off for uvfs-fuse's own)\n"
	       "    -o noatime, relatime, strictatime, nodiratime (and atime, diratime,\n"
	       "       norelatime, nostrictatime)  atime rules of the reads that reach uvfs,\n"
	       "                            as on a Linux mount (default relatime)\n"
	       "    -o epoch, -o noepoch    without default_permissions: cache names below\n"
	       "                            directories open to all, and drop them all with the\n"
	       "                            kernel's epoch when one closes (default, on kernels\n"
	       "                            that have it), or cache no name\n"
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
	       "    -o spin=US              a worker that finds no request reads again for\n"
	       "                            up to US microseconds before it sleeps (default\n"
	       "                            %d; 0: it sleeps at once)\n"
	       "    -o max_idle_threads=N   keep at most N idle worker threads\n"
	       "    -o clone_fd             one /dev/fuse fd per worker thread\n"
	       "    -o fsname=NAME,subtype=NAME   names in /proc/mounts (default uvfs)\n"
	       "\n"
	       "Stop with Ctrl-C, SIGTERM or `fusermount3 -u MOUNTPOINT`.\n",
	       UF_DEFAULT_SPIN_US);
}
