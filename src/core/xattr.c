// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * xattr.c - extended attributes (Linux's fs/xattr.c): setxattr, getxattr,
 * listxattr, removexattr in their path, l- and f- forms, the *xattrat
 * forms of Linux 6.13 (a dirfd, AT_ flags and struct xattr_args), and the
 * uvfs_fd_* forms: what the path forms do on /proc/self/fd/N.
 *
 * The VFS checks what Linux's system calls and vfs_*xattr check, in their
 * order: the flags, the name (ERANGE when empty or longer than 255 bytes)
 * and the size (E2BIG past 64 KiB) before the walk; then write access to the
 * mount, then xattr_permission (the namespace's rules, then the inode's mode
 * bits), then the namespace itself (EOPNOTSUPP for one Linux does not know,
 * EINVAL for a bare prefix).  The filesystem keeps the values through
 * i_op->getxattr/setxattr/listxattr (vfs.h); system.posix_acl_* are the
 * VFS's own (posix_acl.c) and live in the inode.
 *
 * Every change is IN_ATTRIB on the inode and an UVFS_CHANGE_ATTR for the
 * change hook (ctime, and the mode when an access ACL moved it).
 */
#include "xattr.h"
#include "notify/fsnotify.h"

#define XATTR_USER_PREFIX_ "user."
#define XATTR_TRUSTED_PREFIX_ "trusted."
#define XATTR_SECURITY_PREFIX_ "security."
#define XATTR_SYSTEM_PREFIX_ "system."

static bool has_prefix(const char *name, const char *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Linux's strncpy_from_user into a buffer of XATTR_NAME_MAX + 1: an empty
 * name and one that does not fit are both ERANGE. */
static int import_name(const char *uname, char kname[XATTR_NAME_MAX_ + 1])
{
	if (!uname)
		return -EFAULT;
	size_t n = strnlen(uname, XATTR_NAME_MAX_ + 1);
	if (n == 0 || n > XATTR_NAME_MAX_)
		return -ERANGE;
	memcpy(kname, uname, n + 1);
	return 0;
}

/*
 * Linux's xattr_permission: security.* and system.* are not the VFS's to
 * refuse; trusted.* is root's alone (and invisible to others); user.* lives
 * only on regular files and directories, and a sticky directory's only for
 * its owner to change; everything else then needs the mode's permission.
 */
static int xattr_permission(const struct cred *c, struct inode *inode, const char *name, int mask)
{
	/* Linux's may_write_xattr, first: no change to an immutable or
	 * append-only inode, whatever the namespace */
	if ((mask & MAY_WRITE) && (IS_IMMUTABLE(inode) || IS_APPEND(inode)))
		return -EPERM;
	if (has_prefix(name, XATTR_SECURITY_PREFIX_) || has_prefix(name, XATTR_SYSTEM_PREFIX_))
		return 0;
	if (has_prefix(name, XATTR_TRUSTED_PREFIX_)) {
		if (!cred_is_root(c))
			return (mask & MAY_WRITE) ? -EPERM : -ENODATA;
		return 0;
	}
	if (has_prefix(name, XATTR_USER_PREFIX_)) {
		umode_t mode = READ_ONCE(inode->i_mode);
		if (!S_ISREG(mode) && !S_ISDIR(mode))
			return (mask & MAY_WRITE) ? -EPERM : -ENODATA;
		if (S_ISDIR(mode) && (mode & S_ISVTX) && (mask & MAY_WRITE) && !inode_owner_or_capable(c, inode))
			return -EPERM;
	}
	return inode_permission(c, inode, mask);
}

/* Linux's xattr_resolve_name against tmpfs's handlers: the namespaces
 * with a handler, and a bare prefix is no name.  system.posix_acl_* never
 * gets here. */
static int xattr_resolve(const char *name)
{
	static const char *const prefixes[] = { XATTR_USER_PREFIX_, XATTR_TRUSTED_PREFIX_, XATTR_SECURITY_PREFIX_ };
	for (unsigned i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], n) == 0)
			return name[n] ? 0 : -EINVAL;
	}
	return -EOPNOTSUPP;
}

/* Pseudo files (pipes) have no mount in the tree: on Linux they sit on
 * internal mounts, which are never read-only. */
static int xattr_want_write(const struct path *path)
{
	return path->mnt ? mnt_want_write(path->mnt) : 0;
}

/* Linux's fsnotify_xattr, and the change hook's report. */
static void xattr_changed(struct uvfs_proc *p, struct dentry *d, unsigned ia_valid)
{
	if (fsnotify_sb_wants(d->d_sb, FSN_CHANGE_ATTR))
		__fsnotify_report(p, FSN_CHANGE_ATTR, ia_valid, NULL, NULL, d->d_inode, NULL, NULL, 0, NULL);
	if (fsnotify_sb_watched(d->d_sb))
		__fsnotify_dentry(d, FS_ATTRIB);
}

#define XATTR_NAME_CAPS "security.capability"

/*
 * A file capability's value, commoncap's struct vfs_cap_data: a
 * little-endian magic (revision and VFS_CAP_FLAGS_EFFECTIVE), then the
 * permitted and inheritable sets; revision 3 (vfs_ns_cap_data) adds the
 * uid that is root for it.  There is one user namespace here, so a
 * revision 3 whose root is 0 is a revision 2 to every reader.
 */
#define VFS_CAP_REVISION_2_ 0x02000000u
#define VFS_CAP_REVISION_3_ 0x03000000u
#define VFS_CAP_FLAGS_EFFECTIVE_ 0x000001u
#define XATTR_CAPS_SZ_2_ 20
#define XATTR_CAPS_SZ_3_ 24

static uint32_t cap_le32(const void *v, size_t at)
{
	const unsigned char *b = (const unsigned char *)v + at;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The revision of a valid value of size bytes (Linux's validheader), or 0. */
static unsigned cap_revision(const void *v, size_t size)
{
	if (size != XATTR_CAPS_SZ_2_ && size != XATTR_CAPS_SZ_3_)
		return 0; /* and the magic is not read past a short value */
	uint32_t rev = cap_le32(v, 0) & ~VFS_CAP_FLAGS_EFFECTIVE_;
	if (size == XATTR_CAPS_SZ_2_ && rev == VFS_CAP_REVISION_2_)
		return 2;
	if (size == XATTR_CAPS_SZ_3_ && rev == VFS_CAP_REVISION_3_)
		return 3;
	return 0;
}

/* Linux's cap_convert_nscap, before any other check of a set: a value that
 * is no capability is EINVAL, from anyone; setting one needs CAP_SETFCAP;
 * a revision 3's root must be a uid.  The value is stored as given. */
static int cap_setxattr_check(const struct cred *c, const void *value, size_t size)
{
	unsigned rev = cap_revision(value, size);
	if (!rev)
		return -EINVAL;
	if (!cred_is_root(c))
		return -EPERM;
	if (rev == 3 && cap_le32(value, XATTR_CAPS_SZ_2_) == (uint32_t)-1)
		return -EINVAL;
	return 0;
}

/* Linux's cap_inode_getsecurity: the stored value as a reader sees it, a
 * revision 3 rooted at uid 0 as a revision 2 (keeping the effective flag);
 * anything else stored (an empty value) is EINVAL.  buf as getxattr's. */
static ssize_t cap_getxattr(struct inode *inode, void *buf, size_t size)
{
	unsigned char v[XATTR_CAPS_SZ_3_ + 1];
	ssize_t n = inode->i_op->getxattr(inode, XATTR_NAME_CAPS, v, sizeof(v));
	if (n == -ERANGE)
		return -EINVAL;
	if (n < 0)
		return n;
	unsigned rev = cap_revision(v, (size_t)n);
	if (!rev)
		return -EINVAL;
	if (rev == 3 && cap_le32(v, XATTR_CAPS_SZ_2_) == 0) {
		uint32_t magic = VFS_CAP_REVISION_2_ | (cap_le32(v, 0) & VFS_CAP_FLAGS_EFFECTIVE_);
		for (int i = 0; i < 4; i++)
			v[i] = (unsigned char)(magic >> (8 * i));
		n = XATTR_CAPS_SZ_2_;
	}
	if (!size)
		return n;
	if (size < (size_t)n)
		return -ERANGE;
	memcpy(buf, v, (size_t)n);
	return n;
}

/* ---- setxattr, removexattr ---- */

/*
 * commoncap's inode_killpriv: a file capability goes with the contents it
 * was given for, so a write, a truncate and a chown drop it, whoever makes
 * them.  S_KILLPRIV spares the files that never had one the lookup (Linux
 * asks the filesystem for the attribute at each write, unless S_NOSEC).
 * Under the inode's i_rwsem held exclusive.
 */
/* After a successful set of name on inode to size bytes (0 for a removal
 * too), under its i_rwsem: a file capability makes the inode S_KILLPRIV,
 * an empty one or none clears it, as commoncap's cap_inode_need_killpriv
 * asks for a value longer than 0 (an empty security.capability survives a
 * write or a truncate).  Also for a filesystem that sets attributes itself
 * (overlayfs's copy-up). */
void inode_killpriv_mark(struct inode *inode, const char *name, size_t size)
{
	if (!S_ISREG(READ_ONCE(inode->i_mode)) || strcmp(name, XATTR_NAME_CAPS))
		return;
	if (size)
		inode_flags_set(inode, S_KILLPRIV);
	else
		inode_flags_clear(inode, S_KILLPRIV);
}

void inode_killpriv(struct inode *inode)
{
	if (!(READ_ONCE(inode->i_flags) & S_KILLPRIV))
		return;
	inode_flags_clear(inode, S_KILLPRIV);
	if (inode->i_op->setxattr)
		(void)inode->i_op->setxattr(inode, XATTR_NAME_CAPS, NULL, 0, XATTR_REPLACE);
}


/* value NULL: removexattr */
static int do_setxattr(struct uvfs_proc *p, const struct path *path, const char *name, const void *value,
		       size_t size, int flags)
{
	const struct cred *c = current_cred();
	struct inode *inode = path->dentry->d_inode;
	unsigned ia_valid = ATTR_CTIME;
	int err = xattr_want_write(path);
	if (err)
		return err;
	bool caps = !strcmp(name, XATTR_NAME_CAPS);
	if (caps && value && size && (err = cap_setxattr_check(c, value, size)) != 0)
		return err;
	if (is_posix_acl_xattr(name)) {
		err = posix_acl_xattr_set(c, inode, name, value, size, &ia_valid);
	} else {
		err = xattr_permission(c, inode, name, MAY_WRITE);
		/* commoncap's inode_setxattr and inode_removexattr, which
		 * security_inode_setxattr skips for a private inode; a set of
		 * security.capability was checked above (an empty one not at
		 * all), its removal needs CAP_SETFCAP */
		if (!err && has_prefix(name, XATTR_SECURITY_PREFIX_) && !cred_is_root(c) &&
		    !(READ_ONCE(inode->i_flags) & S_PRIVATE) && !(caps && value))
			err = -EPERM;
		if (!err)
			err = xattr_resolve(name);
		if (!err && !inode->i_op->setxattr)
			err = -EOPNOTSUPP;
		if (!err) {
			down_write(&inode->i_rwsem);
			err = inode->i_op->setxattr(inode, name, value, size, flags);
			if (!err)
				inode_killpriv_mark(inode, name, value ? size : 0);
			up_write(&inode->i_rwsem);
		}
	}
	if (!err)
		xattr_changed(p, path->dentry, ia_valid);
	return err;
}

/* The checks before the walk, in Linux's setxattr_copy order. */
static int setxattr_args(const char *uname, char *kname, const void *value, size_t size, int flags)
{
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	int err = import_name(uname, kname);
	if (err)
		return err;
	if (size > XATTR_SIZE_MAX_)
		return -E2BIG;
	if (size && !value)
		return -EFAULT;
	return 0;
}

static int path_setxattr(struct uvfs_proc *p, const char *pathname, unsigned lookup_flags, const char *uname,
			 const void *value, size_t size, int flags)
{
	char kname[XATTR_NAME_MAX_ + 1];
	int err = setxattr_args(uname, kname, value, size, flags);
	if (err)
		return err;
	struct path path;
	err = user_path_at(p, AT_FDCWD, pathname, lookup_flags, &path);
	if (err)
		return err;
	/* an empty value is a value, not a removal */
	err = do_setxattr(p, &path, kname, size ? value : "", size, flags);
	path_put(&path);
	return err;
}

UVFS_API int uvfs_setxattr(struct uvfs_proc *p, const char *path, const char *name, const void *value,
			   size_t size, int flags)
{
	API_ENTER_PROC(p);
	API_RETURN(path_setxattr(p, path, LOOKUP_FOLLOW, name, value, size, flags));
}

UVFS_API int uvfs_lsetxattr(struct uvfs_proc *p, const char *path, const char *name, const void *value,
			    size_t size, int flags)
{
	API_ENTER_PROC(p);
	API_RETURN(path_setxattr(p, path, 0, name, value, size, flags));
}

/* The f and fd forms: fget (no O_PATH fd) or fget_raw (any). */
typedef struct file *fd_getter(struct uvfs_proc *p, int fd);

static int fd_setxattr(struct uvfs_proc *p, fd_getter *get, int fd, const char *name, const void *value,
		       size_t size, int flags)
{
	char kname[XATTR_NAME_MAX_ + 1];
	int err = setxattr_args(name, kname, value, size, flags);
	if (err)
		return err;
	struct file *f = get(p, fd);
	if (!f)
		return -EBADF;
	err = do_setxattr(p, &f->f_path, kname, size ? value : "", size, flags);
	fput(f);
	return err;
}

UVFS_API int uvfs_fsetxattr(struct uvfs_proc *p, int fd, const char *name, const void *value, size_t size,
			    int flags)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_setxattr(p, fget, fd, name, value, size, flags));
}

static int path_removexattr(struct uvfs_proc *p, const char *pathname, unsigned lookup_flags, const char *uname)
{
	char kname[XATTR_NAME_MAX_ + 1];
	int err = import_name(uname, kname);
	if (err)
		return err;
	struct path path;
	err = user_path_at(p, AT_FDCWD, pathname, lookup_flags, &path);
	if (err)
		return err;
	err = do_setxattr(p, &path, kname, NULL, 0, XATTR_REPLACE);
	path_put(&path);
	return err;
}

UVFS_API int uvfs_removexattr(struct uvfs_proc *p, const char *path, const char *name)
{
	API_ENTER_PROC(p);
	API_RETURN(path_removexattr(p, path, LOOKUP_FOLLOW, name));
}

UVFS_API int uvfs_lremovexattr(struct uvfs_proc *p, const char *path, const char *name)
{
	API_ENTER_PROC(p);
	API_RETURN(path_removexattr(p, path, 0, name));
}

static int fd_removexattr(struct uvfs_proc *p, fd_getter *get, int fd, const char *name)
{
	char kname[XATTR_NAME_MAX_ + 1];
	int err = import_name(name, kname);
	if (err)
		return err;
	struct file *f = get(p, fd);
	if (!f)
		return -EBADF;
	err = do_setxattr(p, &f->f_path, kname, NULL, 0, XATTR_REPLACE);
	fput(f);
	return err;
}

UVFS_API int uvfs_fremovexattr(struct uvfs_proc *p, int fd, const char *name)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_removexattr(p, fget, fd, name));
}

/* ---- getxattr ---- */

static ssize_t do_getxattr(struct uvfs_proc *p, struct inode *inode, const char *name, void *buf, size_t size)
{
	if (size > XATTR_SIZE_MAX_)
		size = XATTR_SIZE_MAX_;
	/* Linux fills a buffer of its own and copies it out: the attribute's
	 * own errors and ERANGE come before EFAULT, and an empty value needs
	 * no buffer */
	size_t saved = size;
	bool nobuf = size && !buf;
	if (nobuf)
		size = 0;
	ssize_t r;
	if (is_posix_acl_xattr(name)) {
		r = posix_acl_xattr_get(inode, name, buf, size);
	} else {
		int err = xattr_permission(current_cred(), inode, name, MAY_READ);
		if (!err)
			err = xattr_resolve(name);
		if (err)
			return err;
		if (!inode->i_op->getxattr)
			return -EOPNOTSUPP;
		if (!strcmp(name, XATTR_NAME_CAPS))
			r = cap_getxattr(inode, buf, size);
		else
			r = inode->i_op->getxattr(inode, name, buf, size);
	}
	if (nobuf && r > 0)
		return (size_t)r > saved ? -ERANGE : -EFAULT;
	return r;
}

static ssize_t path_getxattr(struct uvfs_proc *p, const char *pathname, unsigned lookup_flags, const char *uname,
			     void *buf, size_t size)
{
	char kname[XATTR_NAME_MAX_ + 1];
	int err = import_name(uname, kname);
	if (err)
		return err;
	struct path path;
	err = user_path_at(p, AT_FDCWD, pathname, lookup_flags, &path);
	if (err)
		return err;
	ssize_t r = do_getxattr(p, path.dentry->d_inode, kname, buf, size);
	path_put(&path);
	return r;
}

UVFS_API ssize_t uvfs_getxattr(struct uvfs_proc *p, const char *path, const char *name, void *value, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(path_getxattr(p, path, LOOKUP_FOLLOW, name, value, size));
}

UVFS_API ssize_t uvfs_lgetxattr(struct uvfs_proc *p, const char *path, const char *name, void *value, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(path_getxattr(p, path, 0, name, value, size));
}

static ssize_t fd_getxattr(struct uvfs_proc *p, fd_getter *get, int fd, const char *name, void *value,
			   size_t size)
{
	char kname[XATTR_NAME_MAX_ + 1];
	int err = import_name(name, kname);
	if (err)
		return err;
	struct file *f = get(p, fd);
	if (!f)
		return -EBADF;
	ssize_t r = do_getxattr(p, f->f_inode, kname, value, size);
	fput(f);
	return r;
}

UVFS_API ssize_t uvfs_fgetxattr(struct uvfs_proc *p, int fd, const char *name, void *value, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_getxattr(p, fget, fd, name, value, size));
}

/* ---- listxattr ---- */

/* The ACLs' names first, then the filesystem's, as simple_xattr_list. */
static ssize_t list_names(struct uvfs_proc *p, struct inode *inode, char *buf, size_t size)
{
	ssize_t n = posix_acl_xattr_list(inode, buf, size);
	if (n < 0 || !inode->i_op->listxattr)
		return n;
	ssize_t m = inode->i_op->listxattr(inode, size ? buf + n : NULL, size ? size - (size_t)n : 0,
					   cred_is_root(current_cred()));
	return m < 0 ? m : n + m;
}

static ssize_t do_listxattr(struct uvfs_proc *p, struct inode *inode, char *buf, size_t size)
{
	if (size > XATTR_LIST_MAX_)
		size = XATTR_LIST_MAX_;
	/* as getxattr: ERANGE before EFAULT, and an empty list needs no buffer */
	size_t saved = size;
	bool nobuf = size && !buf;
	ssize_t r = list_names(p, inode, nobuf ? NULL : buf, nobuf ? 0 : size);
	if (nobuf && r > 0)
		r = (size_t)r > saved ? -ERANGE : -EFAULT;
	/* a list that no buffer could hold */
	if (r == -ERANGE && size >= XATTR_LIST_MAX_)
		r = -E2BIG;
	return r;
}

static ssize_t path_listxattr(struct uvfs_proc *p, const char *pathname, unsigned lookup_flags, char *buf,
			      size_t size)
{
	struct path path;
	int err = user_path_at(p, AT_FDCWD, pathname, lookup_flags, &path);
	if (err)
		return err;
	ssize_t r = do_listxattr(p, path.dentry->d_inode, buf, size);
	path_put(&path);
	return r;
}

UVFS_API ssize_t uvfs_listxattr(struct uvfs_proc *p, const char *path, char *list, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(path_listxattr(p, path, LOOKUP_FOLLOW, list, size));
}

UVFS_API ssize_t uvfs_llistxattr(struct uvfs_proc *p, const char *path, char *list, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(path_listxattr(p, path, 0, list, size));
}

static ssize_t fd_listxattr(struct uvfs_proc *p, fd_getter *get, int fd, char *list, size_t size)
{
	struct file *f = get(p, fd);
	if (!f)
		return -EBADF;
	ssize_t r = do_listxattr(p, f->f_inode, list, size);
	fput(f);
	return r;
}

UVFS_API ssize_t uvfs_flistxattr(struct uvfs_proc *p, int fd, char *list, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_listxattr(p, fget, fd, list, size));
}

/* ---- the /proc/self/fd/N forms ---- */

/*
 * Linux has no call for the attributes of what an O_PATH fd refers to;
 * its FUSE servers use the path /proc/self/fd/N, whose magic link takes the
 * walk to the fd's object (a symlink, a FIFO, a socket too) with nothing
 * checked on the way: after it, what getxattr(2) and the others do on a
 * path.  uvfs has no /proc; these are those calls (the frontend's, as
 * uvfs_fd_reopen is its open("/proc/self/fd/N")).  The name and value are
 * checked first, then the fd (an O_PATH one too), as the path forms check
 * them before the walk.
 */
UVFS_API int uvfs_fd_setxattr(struct uvfs_proc *p, int fd, const char *name, const void *value, size_t size,
			      int flags)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_setxattr(p, fget_raw, fd, name, value, size, flags));
}

UVFS_API ssize_t uvfs_fd_getxattr(struct uvfs_proc *p, int fd, const char *name, void *value, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_getxattr(p, fget_raw, fd, name, value, size));
}

UVFS_API ssize_t uvfs_fd_listxattr(struct uvfs_proc *p, int fd, char *list, size_t size)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_listxattr(p, fget_raw, fd, list, size));
}

UVFS_API int uvfs_fd_removexattr(struct uvfs_proc *p, int fd, const char *name)
{
	API_ENTER_PROC(p);
	API_RETURN(fd_removexattr(p, fget_raw, fd, name));
}

/* ---- the *xattrat calls (Linux 6.13) ---- */

/*
 * The file an *xattrat call acts on.  A path that is NULL or "" with
 * AT_EMPTY_PATH is Linux's getname_maybe_null: no walk, the file dfd itself
 * (fdget's: an O_PATH fd is EBADF).  setxattrat and getxattrat take that
 * branch only for dfd >= 0 and otherwise walk "" from dfd (AT_FDCWD: the
 * cwd; a bad negative dfd: EBADF), while listxattrat and removexattrat
 * always take the fd (AT_FDCWD: EBADF), as Linux 6.18 does (measured).
 */
struct xattrat_target {
	struct file *f;   /* the fd's file, or NULL: path holds references */
	struct path path;
};

static int xattrat_get(struct uvfs_proc *p, int dfd, const char *upath, unsigned at_flags, bool walk_negative,
		       struct xattrat_target *t)
{
	t->f = NULL;
	if ((at_flags & AT_EMPTY_PATH) && (!upath || !*upath) && (dfd >= 0 || !walk_negative)) {
		t->f = fget(p, dfd);
		if (!t->f)
			return -EBADF;
		t->path = t->f->f_path;
		return 0;
	}
	if (!upath && (at_flags & AT_EMPTY_PATH))
		upath = "";
	return user_path_at(p, dfd, upath, at_lookup_flags((int)at_flags), &t->path);
}

static void xattrat_put(struct xattrat_target *t)
{
	if (t->f)
		fput(t->f);
	else
		path_put(&t->path);
}

#define XATTRAT_FLAGS (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)

/* Linux's copy_struct_from_user for struct xattr_args: a newer caller's
 * larger struct is fine as long as what this version does not know is 0.
 * Then what setxattrat and getxattrat check next, in their order: the
 * struct's flags for getxattrat (no_flags: it has none yet; setxattrat's
 * are checked with the name), the at-flags. */
static int xattrat_args(const struct uvfs_xattr_args *uargs, size_t usize, bool no_flags, unsigned at_flags,
			struct uvfs_xattr_args *args)
{
	if (usize < UVFS_XATTR_ARGS_SIZE_VER0)
		return -EINVAL;
	if (usize > 4096)
		return -E2BIG;
	if (!uargs)
		return -EFAULT;
	memcpy(args, uargs, sizeof(*args));
	for (size_t i = sizeof(*args); i < usize; i++)
		if (((const unsigned char *)uargs)[i])
			return -E2BIG;
	if (no_flags && args->flags)
		return -EINVAL;
	if (at_flags & ~XATTRAT_FLAGS)
		return -EINVAL;
	return 0;
}

UVFS_API int uvfs_setxattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags, const char *name,
			     const struct uvfs_xattr_args *uargs, size_t usize)
{
	API_ENTER_PROC(p);
	struct uvfs_xattr_args args;
	int err = xattrat_args(uargs, usize, false, at_flags, &args);
	if (err)
		API_RETURN(err);
	const void *value = (const void *)(uintptr_t)args.value;
	char kname[XATTR_NAME_MAX_ + 1];
	err = setxattr_args(name, kname, value, args.size, (int)args.flags);
	if (err)
		API_RETURN(err);
	struct xattrat_target t;
	err = xattrat_get(p, dfd, path, at_flags, true, &t);
	if (err)
		API_RETURN(err);
	err = do_setxattr(p, &t.path, kname, args.size ? value : "", args.size, (int)args.flags);
	xattrat_put(&t);
	API_RETURN(err);
}

UVFS_API ssize_t uvfs_getxattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags,
				 const char *name, struct uvfs_xattr_args *uargs, size_t usize)
{
	API_ENTER_PROC(p);
	struct uvfs_xattr_args args;
	int err = xattrat_args(uargs, usize, true, at_flags, &args);
	if (err)
		API_RETURN(err);
	char kname[XATTR_NAME_MAX_ + 1];
	err = import_name(name, kname);
	if (err)
		API_RETURN(err);
	struct xattrat_target t;
	err = xattrat_get(p, dfd, path, at_flags, true, &t);
	if (err)
		API_RETURN(err);
	ssize_t r = do_getxattr(p, t.path.dentry->d_inode, kname, (void *)(uintptr_t)args.value, args.size);
	xattrat_put(&t);
	API_RETURN(r);
}

UVFS_API ssize_t uvfs_listxattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags, char *list,
				  size_t size)
{
	API_ENTER_PROC(p);
	if (at_flags & ~XATTRAT_FLAGS)
		API_RETURN(-EINVAL);
	struct xattrat_target t;
	int err = xattrat_get(p, dfd, path, at_flags, false, &t);
	if (err)
		API_RETURN(err);
	ssize_t r = do_listxattr(p, t.path.dentry->d_inode, list, size);
	xattrat_put(&t);
	API_RETURN(r);
}

UVFS_API int uvfs_removexattrat(struct uvfs_proc *p, int dfd, const char *path, unsigned at_flags,
				const char *name)
{
	API_ENTER_PROC(p);
	if (at_flags & ~XATTRAT_FLAGS)
		API_RETURN(-EINVAL);
	char kname[XATTR_NAME_MAX_ + 1];
	int err = import_name(name, kname);
	if (err)
		API_RETURN(err);
	struct xattrat_target t;
	err = xattrat_get(p, dfd, path, at_flags, false, &t);
	if (err)
		API_RETURN(err);
	err = do_setxattr(p, &t.path, kname, NULL, 0, XATTR_REPLACE);
	xattrat_put(&t);
	API_RETURN(err);
}
