// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs.c - a host directory inside the tree: mount and its options, the
 * superblock, attributes, chattr flags, and the operation tables (the names are
 * hostfs_namei.c's, data hostfs_file.c's, xattrs hostfs_xattr.c's).
 *
 * Each operation is one host call with one name relative to the O_PATH fd
 * of the directory it acts in (hostfs_node.c): *at() calls with
 * AT_SYMLINK_NOFOLLOW or O_NOFOLLOW, or on the node's own fd with
 * AT_EMPTY_PATH, so the host never follows a symlink or ".." for uvfs.
 * Symlinks are uvfs symlinks whose bodies are read with readlinkat and
 * followed by uvfs's own walk; ".." at the mount root is the VFS's.
 *
 * cache=exclusive (the default): uvfs is the only writer of the directory,
 * so names and attributes are cached as tmpfs's are: no d_revalidate, no
 * getattr, and a cached stat or open costs what it costs on tmpfs; the
 * attributes are read back from the host after every change uvfs makes,
 * and file data read once is kept (hostfs_pages.c, pagecache=BYTES).
 * cache=revalidate: every walk asks the host whether a cached name still
 * names the same object (fstatat relative to the parent's fd), and stat
 * reads the host's attributes, close-to-open as NFS; file data is the
 * host's at every read.
 */
#include "hostfs.h"
#include "core/xattr.h"
#include "core/fs_parser.h"
#include "core/attr.h"
#include <sys/syscall.h>
#include <sys/statfs.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

static struct inode *hostfs_alloc_inode(struct super_block *sb)
{
	struct hostfs_inode *hi = calloc(1, sizeof(*hi));
	return hi ? &hi->vfs_inode : NULL;
}

static void hostfs_destroy_inode(struct inode *inode)
{
	hostfs_dir_listing_free(inode);
	free((void *)inode->i_link);
	free(HOSTFS_I(inode));
}

static void hostfs_evict_inode(struct inode *inode)
{
	hostfs_pages_evict(inode);
	hostfs_node_evict(inode);
}

static int hostfs_statfs(struct super_block *sb, struct statfs *buf)
{
	struct hostfs_sb *hsb = HOSTFS_SB(sb);
	if (fstatfs(hsb->root->fd, buf))
		return -errno;
	buf->f_fsid.__val[0] = (int)sb->s_dev;
	buf->f_fsid.__val[1] = 0;
	buf->f_flags = ST_VALID_ | ((READ_ONCE(sb->s_flags) & SB_RDONLY) ? ST_RDONLY : 0);
	return 0;
}

static void hostfs_kill_sb(struct super_block *sb)
{
	hostfs_sb_fini(HOSTFS_SB(sb));
	hostfs_watch_fini(HOSTFS_SB(sb));
}

static void hostfs_put_super(struct super_block *sb)
{
	if (sb->s_fs_info)
		hostfs_pc_free(HOSTFS_SB(sb)->pc);
	free(sb->s_fs_info);
}

struct hostfs_params;
static int hostfs_parse_options(const char *data, struct hostfs_params *p);
static int hostfs_remount(struct super_block *sb, const char *data);

static const struct super_operations hostfs_super_operations = {
	.remount = hostfs_remount,
	.alloc_inode = hostfs_alloc_inode,
	.destroy_inode = hostfs_destroy_inode,
	.evict_inode = hostfs_evict_inode,
	.statfs = hostfs_statfs,
	.put_super = hostfs_put_super,
	.kill_sb = hostfs_kill_sb,
	.shutdown = hostfs_watch_shutdown,
	.encode_fh = hostfs_encode_fh,
	.fh_to_ino = hostfs_fh_to_ino,
};

/* ---- attributes ---- */

/* A field is stored only when it changed: lockless readers (the walk's
 * mode check) see a store only where tmpfs would make one too. */
#define SET_IF_CHANGED(field, v)                          \
	do {                                              \
		__typeof__(field) v_ = (v);               \
		if (READ_ONCE(field) != v_)               \
			WRITE_ONCE(field, v_);            \
	} while (0)

static bool ts_differ(const struct timespec *a, const struct timespec *b)
{
	return READ_ONCE(a->tv_sec) != b->tv_sec || READ_ONCE(a->tv_nsec) != b->tv_nsec;
}

void hostfs_fill_inode(struct inode *inode, const struct stat *st)
{
	bool mode_changed = READ_ONCE(inode->i_mode) != st->st_mode;
	SET_IF_CHANGED(inode->i_ino, (uint64_t)st->st_ino);
	SET_IF_CHANGED(inode->i_mode, st->st_mode);
	SET_IF_CHANGED(inode->i_nlink, (unsigned)st->st_nlink);
	SET_IF_CHANGED(inode->i_uid, st->st_uid);
	SET_IF_CHANGED(inode->i_gid, st->st_gid);
	SET_IF_CHANGED(inode->i_rdev, st->st_rdev);
	SET_IF_CHANGED(inode->i_size, st->st_size);
	SET_IF_CHANGED(inode->i_blocks, (uint64_t)st->st_blocks);
	if (ts_differ(&inode->i_atime, &st->st_atim) || ts_differ(&inode->i_mtime, &st->st_mtim) ||
	    ts_differ(&inode->i_ctime, &st->st_ctim))
		inode_set_times(inode, &st->st_atim, &st->st_mtim, &st->st_ctim);
	if (mode_changed)
		inode_fastperm_changed(inode);
}

/* The chattr flags the host reported (known: the ones it reports at all)
 * into the inode's, the others kept (noatime, which statx does not tell). */
static void take_fsflags(struct inode *inode, unsigned fl, unsigned known)
{
	unsigned cur = inode_fsflags(inode);
	unsigned next = (cur & ~known) | (fl & known);
	if (next != cur)
		inode_set_fsflags(inode, next);
}

/* The host's attributes of the inode (after a change uvfs made to it, or
 * for a stat that asks the host), and its immutable, append-only and nodump
 * flags, which the host may have changed behind uvfs. */
int hostfs_refresh(struct inode *inode)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	struct hnode *hn = HN(inode);
	int fd = hostfs_fd_get(hsb, hn);
	if (fd < 0)
		return fd;
	struct stat st;
	unsigned fl, known;
	int err = hostfs_stat_fd(fd, &st, &fl, &known);
	hostfs_fd_put(hsb, hn);
	if (!err) {
		hostfs_fill_inode(inode, &st);
		take_fsflags(inode, fl, known);
	}
	return err;
}

static int hostfs_getattr(struct inode *inode, struct kstat *k)
{
	int err = hostfs_refresh(inode);
	if (err)
		return err;
	k->ino = inode->i_ino;
	k->mode = READ_ONCE(inode->i_mode);
	k->nlink = READ_ONCE(inode->i_nlink);
	k->uid = READ_ONCE(inode->i_uid);
	k->gid = READ_ONCE(inode->i_gid);
	k->rdev = READ_ONCE(inode->i_rdev);
	k->size = READ_ONCE(inode->i_size);
	k->blocks = READ_ONCE(inode->i_blocks);
	inode_read_times(inode, &k->atime, &k->mtime, &k->ctime, NULL);
	return 0;
}

/* chmod, chown, utimensat on the host's object, through its own fd. */
static int hostfs_host_setattr(struct inode *inode, const struct iattr *ia)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	struct hnode *hn = HN(inode);
	unsigned v = ia->ia_valid;
	int fd = hostfs_fd_get(hsb, hn);
	if (fd < 0)
		return fd;
	int err = 0;
	/* A mode change that only drops the set-id bits of an immutable or
	 * append-only object is notify_change's ATTR_KILL_SUID/SGID, which
	 * Linux applies past the flags (a chown to -1, -1 of a setgid file):
	 * the host's chown to -1, -1 drops them by the same rule, where its
	 * chmod would be refused. */
	if ((v & ATTR_MODE) && !(v & (ATTR_UID | ATTR_GID)) && (IS_IMMUTABLE(inode) || IS_APPEND(inode)) &&
	    !((READ_ONCE(inode->i_mode) ^ ia->ia_mode) & S_IALLUGO & ~(umode_t)(S_ISUID | S_ISGID)))
		v &= ~ATTR_MODE;
	/* a change of nothing but ctime (chown to -1, -1) is a chown to -1, -1
	 * on the host too, which moves its ctime */
	if (((v & (ATTR_UID | ATTR_GID)) || !(v & (ATTR_MODE | ATTR_ATIME | ATTR_MTIME))) &&
	    fchownat(fd, "", (v & ATTR_UID) ? ia->ia_uid : (uid_t)-1, (v & ATTR_GID) ? ia->ia_gid : (gid_t)-1,
		     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		err = -errno;
	if (!err && (v & ATTR_MODE) && syscall(SYS_fchmodat2, fd, "", ia->ia_mode & S_IALLUGO, AT_EMPTY_PATH))
		err = -errno;
	if (!err && (v & (ATTR_ATIME | ATTR_MTIME))) {
		struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };
		if (v & ATTR_ATIME)
			ts[0] = (v & ATTR_ATIME_SET) ? ia->ia_atime : (struct timespec){ .tv_nsec = UTIME_NOW };
		if (v & ATTR_MTIME)
			ts[1] = (v & ATTR_MTIME_SET) ? ia->ia_mtime : (struct timespec){ .tv_nsec = UTIME_NOW };
		if (utimensat(fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			err = -errno;
	}
	hostfs_fd_put(hsb, hn);
	return err;
}

/* The host's object takes the change first (the size, then the rest); the
 * inode follows only what the host accepted.  An ftruncate or an O_TRUNC
 * open (ATTR_FILE) is the host's ftruncate whatever the size, as the same
 * call on the host would be: it stamps mtime and ctime itself (on the
 * host's tmpfs, through an fd opened before an immutable flag too);
 * truncate(2) to the size the file has is the host's truncate(2), which
 * stamps nothing but may drop what lies past the end (tmpfs's reserved
 * pages). */
static int hostfs_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	(void)d;
	unsigned v = ia->ia_valid;
	struct file *f = (v & ATTR_FILE) ? ia->ia_file : NULL;
	bool resized = setattr_resizes(inode, ia);
	bool sized = resized || ((v & ATTR_SIZE) && f);
	int err = sized ? hostfs_setsize(inode, ia->ia_size, f)
			: (v & ATTR_SIZE) ? hostfs_truncate_same(inode, ia->ia_size) : 0;
	struct iattr rest = *ia;
	if (sized && !(v & (ATTR_ATIME_SET | ATTR_MTIME_SET)))
		rest.ia_valid &= ~(ATTR_ATIME | ATTR_MTIME); /* the truncate's own stamps */
	/* (a resize has moved the host's ctime already) */
	bool to_host = (rest.ia_valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_ATIME | ATTR_MTIME)) ||
		       ((v & ATTR_CTIME) && !sized);
	if (!err && to_host)
		err = hostfs_host_setattr(inode, &rest);
	if (err)
		return err;
	/* The host stamped the change with its clock, under its multigrain
	 * rule: the inode takes the host's times (and the rest) rather than a
	 * stamp of uvfs's clock, which could be older than the host's stamp
	 * of an earlier change (a fine one) and would differ from what the
	 * host keeps.  The fstat also marks the host's ctime as seen.  A
	 * truncate alone needs none: hostfs_setsize took the host's attributes. */
	if ((to_host || !sized) && hostfs_refresh(inode))
		setattr_copy(inode, ia, resized);
	return 0;
}

/* ---- chattr flags (FS_IOC_GETFLAGS, FS_IOC_SETFLAGS): the host's own ---- */

/*
 * The host keeps the flags and enforces them on its object; the inode takes
 * the ones the VFS checks itself (immutable, append-only, noatime: ioctl.c's
 * contract, inode_set_fsflags) each time they are read or set here.  An
 * inode read from the host starts without them: until its flags are first
 * asked for, the host's own refusal (EPERM) is what a change of an
 * immutable or append-only object meets.  Regular files and directories
 * carry flags, as tmpfs's; the ioctls need an fd that is not O_PATH: a
 * file's shared read fd, a directory opened for reading.
 */
static int hostfs_flags_fd(struct inode *inode)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	if (S_ISREG(READ_ONCE(inode->i_mode)))
		return hostfs_rfd_get(hsb, HN(inode));
	return hostfs_open_node(hsb, HN(inode), O_RDONLY | O_DIRECTORY);
}

static void hostfs_flags_fd_put(struct inode *inode, int fd)
{
	if (S_ISREG(READ_ONCE(inode->i_mode)))
		hostfs_rfd_put(HOSTFS_SB(inode->i_sb), HN(inode));
	else
		close(fd);
}

static int hostfs_fileattr_get(struct inode *inode, unsigned *flags)
{
	int fd = hostfs_flags_fd(inode);
	if (fd < 0)
		return fd;
	int v = 0;
	int err = ioctl(fd, FS_IOC_GETFLAGS, &v) ? -errno : 0;
	hostfs_flags_fd_put(inode, fd);
	if (err)
		return err; /* ENOTTY: a host filesystem without flags */
	*flags = (unsigned)v;
	inode_set_fsflags(inode, *flags);
	return 0;
}

/* The host decides (its EOPNOTSUPP for a flag it does not keep, its EPERM
 * without CAP_LINUX_IMMUTABLE); the inode takes what it then keeps, and the
 * host's ctime. */
static int hostfs_fileattr_set(struct inode *inode, unsigned flags)
{
	/* files open for writing keep writing after the flag, as the host's
	 * fds opened before it do (hostfs_file.c) */
	unsigned locks = UVFS_FS_IMMUTABLE_FL | UVFS_FS_APPEND_FL;
	unsigned had = inode_fsflags(inode) & locks;
	if ((flags & locks & ~had) && S_ISREG(READ_ONCE(inode->i_mode)) &&
	    __atomic_load_n(&inode->i_writecount, __ATOMIC_RELAXED) > 0)
		hostfs_wfd_keep(HOSTFS_SB(inode->i_sb), HN(inode));
	int fd = hostfs_flags_fd(inode);
	if (fd < 0)
		return fd;
	int v = (int)flags;
	int err = ioctl(fd, FS_IOC_SETFLAGS, &v) ? -errno : 0;
	if (!err && ioctl(fd, FS_IOC_GETFLAGS, &v) == 0)
		inode_set_fsflags(inode, (unsigned)v);
	hostfs_flags_fd_put(inode, fd);
	if (!err)
		hostfs_refresh(inode);
	return err;
}

/* ---- operation tables: [0] cache=exclusive, [1] cache=revalidate ---- */

/* symlinks have no ACLs (EOPNOTSUPP, as Linux) */
#define HOSTFS_LINK_OPS .getxattr = hostfs_getxattr, .setxattr = hostfs_setxattr, .listxattr = hostfs_listxattr, \
	.setattr = hostfs_setattr
#define HOSTFS_XATTR_OPS HOSTFS_LINK_OPS, .set_acl = hostfs_set_acl

#define HOSTFS_DIR_OPS                                                                                          \
	.lookup = hostfs_lookup, .create = hostfs_create, .mkdir = hostfs_mkdir, .mknod = hostfs_mknod,          \
	.symlink = hostfs_symlink, .link = hostfs_link, .unlink = hostfs_unlink, .rmdir = hostfs_rmdir,           \
	.rename = hostfs_rename, .tmpfile = hostfs_tmpfile, HOSTFS_XATTR_OPS

#define HOSTFS_FLAGS_OPS .fileattr_get = hostfs_fileattr_get, .fileattr_set = hostfs_fileattr_set

static const struct inode_operations hostfs_dir_iops[2] = {
	{ HOSTFS_DIR_OPS, HOSTFS_FLAGS_OPS },
	{ HOSTFS_DIR_OPS, HOSTFS_FLAGS_OPS, .getattr = hostfs_getattr },
};
static const struct inode_operations hostfs_file_iops[2] = {
	{ HOSTFS_XATTR_OPS, HOSTFS_FLAGS_OPS },
	{ HOSTFS_XATTR_OPS, HOSTFS_FLAGS_OPS, .getattr = hostfs_getattr },
};
static const struct inode_operations hostfs_link_iops[2] = {
	{ .get_link = hostfs_get_link, HOSTFS_LINK_OPS },
	{ .get_link = hostfs_get_link, HOSTFS_LINK_OPS, .getattr = hostfs_getattr },
};
static const struct inode_operations hostfs_special_iops[2] = {
	{ HOSTFS_XATTR_OPS },
	{ HOSTFS_XATTR_OPS, .getattr = hostfs_getattr },
};

void hostfs_set_ops(struct inode *inode)
{
	int rv = HOSTFS_SB(inode->i_sb)->cache == HOSTFS_CACHE_REVALIDATE;
	switch (READ_ONCE(inode->i_mode) & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &hostfs_dir_iops[rv];
		inode->i_fop = &hostfs_dir_operations;
		break;
	case S_IFREG:
		inode->i_op = &hostfs_file_iops[rv];
		inode->i_fop = &hostfs_file_operations;
		break;
	case S_IFLNK:
		inode->i_op = &hostfs_link_iops[rv];
		break;
	default:
		inode->i_op = &hostfs_special_iops[rv];
		break;
	}
	if (HOSTFS_SB(inode->i_sb)->cache == HOSTFS_CACHE_WATCH)
		hostfs_watch_set_ops(inode);
}

/* ---- mount ---- */

struct hostfs_params {
	enum hostfs_cache cache;
	bool has_cache;
	unsigned long fds;
	size_t pagecache;
	bool has_pagecache;
};

enum { OPT_CACHE, OPT_FDS, OPT_PAGECACHE };

static const struct fs_parameter_spec hostfs_param_specs[] = {
	{ "cache", OPT_CACHE },
	{ "fds", OPT_FDS },
	{ "pagecache", OPT_PAGECACHE },
	{ NULL, 0 },
};

/* pagecache=N[k|m|g]: bytes (binary units), 0 off, at most 1 TiB */
static int parse_bytes(const char *val, size_t *out)
{
	char *end;
	errno = 0;
	if (*val < '0' || *val > '9')
		return -EINVAL;
	unsigned long long n = strtoull(val, &end, 10);
	if (end == val || errno)
		return -EINVAL;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end || n > (1ull << 40) >> shift)
		return -EINVAL;
	*out = (size_t)(n << shift);
	return 0;
}

/* "cache=exclusive|revalidate|watch,fds=N,pagecache=BYTES".  An option
 * given twice with different values conflicts. */
static int hostfs_param(void *ctx, int opt, char *val)
{
	struct hostfs_params *p = ctx;
	if (opt == OPT_CACHE) {
		enum hostfs_cache c;
		if (!strcmp(val, "exclusive"))
			c = HOSTFS_CACHE_EXCLUSIVE;
		else if (!strcmp(val, "revalidate"))
			c = HOSTFS_CACHE_REVALIDATE;
		else if (!strcmp(val, "watch"))
			c = HOSTFS_CACHE_WATCH;
		else
			return -EINVAL;
		if (p->has_cache && p->cache != c)
			return -EINVAL;
		p->cache = c;
		p->has_cache = true;
		return 0;
	}
	if (opt == OPT_PAGECACHE) {
		size_t n;
		if (parse_bytes(val, &n) || (p->has_pagecache && p->pagecache != n))
			return -EINVAL;
		p->pagecache = n;
		p->has_pagecache = true;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long n = strtoul(val, &end, 10);
	if (end == val || *end || errno || n < 4 || n > (1ul << 24) || *val == '-')
		return -EINVAL;
	if (p->fds && p->fds != n)
		return -EINVAL;
	p->fds = n;
	return 0;
}

static const struct fs_parser hostfs_parser = {
	.specs = hostfs_param_specs, .param = hostfs_param, .max_len = 4096, .sb_words = true,
};

static int hostfs_parse_options(const char *data, struct hostfs_params *p)
{
	memset(p, 0, sizeof(*p));
	return fs_parse_options(&hostfs_parser, data, p);
}

/* The options once more: the cache mode cannot change under the cached
 * names (EINVAL); the fd bound and the page cache's budget can. */
static int hostfs_remount(struct super_block *sb, const char *data)
{
	struct hostfs_params p;
	int err = hostfs_parse_options(data, &p);
	if (err)
		return err;
	struct hostfs_sb *hsb = HOSTFS_SB(sb);
	if (p.has_cache && p.cache != hsb->cache)
		return -EINVAL;
	if (p.fds)
		hostfs_set_max_fds(hsb, (unsigned)p.fds);
	if (p.has_pagecache && hsb->cache != HOSTFS_CACHE_REVALIDATE) {
		struct hostfs_pagecache *pc = __atomic_load_n(&hsb->pc, __ATOMIC_ACQUIRE);
		if (pc != hostfs_pc_shared()) {
			hostfs_pc_resize(pc, p.pagecache);
			return 0;
		}
		/* a budget of its own from now on, as fds= (hostfs_pages.c) */
		struct hostfs_pagecache *own = hostfs_pc_new(p.pagecache);
		if (!own)
			return -ENOMEM;
		if (!__atomic_compare_exchange_n(&hsb->pc, &pc, own, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			hostfs_pc_free(own); /* another remount gave it one */
			hostfs_pc_resize(pc, p.pagecache);
			return 0;
		}
		hostfs_pc_leave(pc, sb);
	}
	return 0;
}

/* a quarter of the fd limit, at most 1024 */
static unsigned default_max_fds(void)
{
	struct rlimit rl;
	unsigned long n = 1024;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < n)
		n = rl.rlim_cur / 4;
	return n < 16 ? 16 : (unsigned)n;
}

static int hostfs_mount(const struct file_system_type *type, struct uvfs *vfs, const char *source,
			unsigned long ms_flags, const void *data, struct super_block **sbp)
{
	(void)type;
	(void)ms_flags;
	struct hostfs_params params;
	int err = hostfs_parse_options(data, &params);
	if (err)
		return err;
	if (!source)
		return -EINVAL;
	/* read access to the directory itself, as a bind mount's source
	 * must be reachable: ENOENT, ENOTDIR, EACCES, ELOOP as the host says */
	int fd = open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	struct hostfs_sb *hsb = calloc(1, sizeof(*hsb));
	if (!hsb) {
		close(fd);
		return -ENOMEM;
	}
	hsb->cache = params.cache;
	/* cache=watch: a host event in a directory makes its listing stale
	 * (hostfs_watch.c) */
	hsb->listings = params.cache != HOSTFS_CACHE_REVALIDATE;
	hsb->as_root = geteuid() == 0;
	hsb->shared_budget = !params.fds;
	/* the page cache: cache=revalidate caches no data; without
	 * pagecache=, one budget for every such mount (hostfs_pages.c) */
	if (params.cache == HOSTFS_CACHE_REVALIDATE || params.has_pagecache)
		hsb->pc = hostfs_pc_new(params.cache == HOSTFS_CACHE_REVALIDATE ? 0 : params.pagecache);
	else
		hsb->pc = hostfs_pc_shared();
	err = hsb->pc ? hostfs_sb_init(hsb, fd, &st, params.fds ? (unsigned)params.fds : default_max_fds())
		      : -ENOMEM;
	if (err) {
		if (!hsb->root)
			close(fd);
		hostfs_sb_fini(hsb);
		hostfs_pc_free(hsb->pc);
		free(hsb);
		return err;
	}
	struct super_block *sb = sget(vfs, &hostfs_super_operations, HOSTFS_MAGIC);
	if (!sb) {
		hostfs_sb_fini(hsb);
		hostfs_pc_free(hsb->pc);
		free(hsb);
		return -ENOMEM;
	}
	sb->s_fs_info = hsb;
	if (hsb->cache == HOSTFS_CACHE_REVALIDATE)
		sb->s_d_op = &hostfs_dentry_operations;
	else if (hsb->cache == HOSTFS_CACHE_WATCH)
		sb->s_d_op = &hostfs_watch_dentry_operations;
	else
		sb->s_flags |= SB_DCACHE_EXACT; /* uvfs is the only writer */
	/* A multigrain host filesystem (tmpfs and ext4 since Linux 6.13) leaves
	 * mtime and ctime out of a statx that asks for neither: the one sign
	 * of it a process can read.  Its inodes' statx answers the same. */
	struct statx hx;
	if (!statx(hsb->root->fd, "", AT_EMPTY_PATH, STATX_SIZE, &hx) && !(hx.stx_mask & (STATX_MTIME | STATX_CTIME)))
		sb->s_flags |= SB_MGTIME;
	/* from here the superblock's teardown (kill_sb) undoes it all */
	err = hsb->cache == HOSTFS_CACHE_WATCH ? hostfs_watch_init(sb) : 0;
	struct inode *root = err ? NULL : new_inode(sb);
	if (root) {
		pthread_mutex_lock(&hsb->lock);
		hsb->root->refs++;
		hsb->root->inode = root;
		HOSTFS_I(root)->hn = hsb->root;
		hostfs_fill_inode(root, &st);
		hostfs_set_ops(root);
		if (hsb->watch)
			hostfs_watch_add_locked(hsb, hsb->root, root, hsb->root->fd);
		pthread_mutex_unlock(&hsb->lock);
		sb->s_root = d_alloc_root(sb, root);
		if (sb->s_root) {
			*sbp = sb;
			return 0;
		}
		iput(root);
	}
	deactivate_super(sb);
	return err ? err : -ENOMEM;
}

const struct file_system_type hostfs_fs_type = {
	.name = "hostfs",
	.mount = hostfs_mount,
};
