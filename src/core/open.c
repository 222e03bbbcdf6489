// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * open.c - open, close, truncate, access, chdir, chroot and the fd calls
 * (Linux's fs/open.c, fs/file.c's syscalls and fs/fcntl.c).
 *
 * The open path walks first and builds a file only once the name resolved
 * and every check passed (the design's answer to seed 000: a failed open
 * allocates nothing).  The baseline build allocates the file before the walk
 * and releases it on failure the way Linux did before seed 000.
 */
#include "vfs.h"
#include "xattr.h"
#include "notify/fsnotify.h"
#include "locks.h"
#include "namei.h"
#include <limits.h>

#ifndef __O_SYNC
#define __O_SYNC 04000000
#endif
/* glibc folds O_DIRECTORY into O_TMPFILE_BIT; this is the bit alone */
#define O_TMPFILE_BIT 020000000

#define VALID_OPEN_FLAGS                                                                                      \
	(O_RDONLY | O_WRONLY | O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK |       \
	 O_DSYNC | FASYNC | O_DIRECT | O_LARGEFILE_KERNEL | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC |       \
	 O_PATH | O_TMPFILE_BIT | __O_SYNC)
#define O_PATH_FLAGS (O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC)
#define VALID_RESOLVE_FLAGS                                                                                   \
	(RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_IN_ROOT |  \
	 RESOLVE_CACHED)

struct open_flags {
	int open_flag;
	umode_t mode;
	int acc_mode;
	unsigned lookup_flags;
};

/* Linux's build_open_flags, errors in its order. */
static int build_open_flags_slow(const struct open_how *how, struct open_flags *op);

/* The four results of an open's flags when none of the checks of
 * build_open_flags_slow can fail or change the lookup: mode is the new
 * file's (0 without O_CREAT), acc_extra MAY_WRITE for O_TRUNC and
 * MAY_APPEND for O_APPEND; with_dir where O_DIRECTORY may be set (the
 * other callers' constant false folds its test away). */
static __always_inline void open_flags_fill(struct open_flags *op, uint64_t flags, umode_t mode, int acc_extra,
					    bool with_dir)
{
	op->open_flag = (int)flags;
	op->mode = mode;
	op->acc_mode = MAY_OPEN | ("\004\002\006\006"[flags & O_ACCMODE]) | acc_extra;
	op->lookup_flags = (with_dir ? ((flags & O_DIRECTORY) ? LOOKUP_DIRECTORY : 0) : 0) |
			   ((flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW);
}

/* The common open: no creation, no O_PATH, no resolve flags; and the
 * common create (O_CREAT, maybe O_EXCL or O_NOFOLLOW, a mode within
 * S_IALLUGO), which creat() and unlink1 make on every call: the results of
 * build_open_flags_slow's first test, without its call. */
static inline int build_open_flags(const struct open_how *how, struct open_flags *op)
{
	uint64_t flags = how->flags;
	if (unlikely((flags & (O_CREAT | O_TMPFILE_BIT | O_PATH | O_TRUNC | O_APPEND | __O_SYNC |
			       ~(uint64_t)VALID_OPEN_FLAGS)) || how->resolve || how->mode)) {
		if ((flags & (O_CREAT | O_DIRECTORY | O_TMPFILE_BIT | O_PATH | O_TRUNC | O_APPEND | __O_SYNC |
			      ~(uint64_t)VALID_OPEN_FLAGS)) != O_CREAT || how->resolve || (how->mode & ~(uint64_t)S_IALLUGO))
			return build_open_flags_slow(how, op);
		open_flags_fill(op, flags, (umode_t)how->mode | S_IFREG, 0, false);
		return 0;
	}
	open_flags_fill(op, flags, 0, 0, true);
	return 0;
}

static int build_open_flags_slow(const struct open_how *how, struct open_flags *op)
{
	uint64_t flags = how->flags;
	int acc_mode;
	/* The common create (and O_TRUNC, O_APPEND): none of the flags whose
	 * checks below can fail or change the lookup, so their result in a
	 * few instructions (creat() and unlink1 come here every call) */
	if (likely(!(flags & (O_DIRECTORY | O_TMPFILE_BIT | O_PATH | __O_SYNC | ~(uint64_t)VALID_OPEN_FLAGS)) &&
		   !how->resolve && !(how->mode & ~(uint64_t)((flags & O_CREAT) ? S_IALLUGO : 0)))) {
		open_flags_fill(op, flags, (flags & O_CREAT) ? (umode_t)how->mode | S_IFREG : 0,
				((flags & O_TRUNC) ? MAY_WRITE : 0) | ((flags & O_APPEND) ? MAY_APPEND : 0), false);
		return 0;
	}
	if (flags & ~(uint64_t)VALID_OPEN_FLAGS)
		return -EINVAL;
	if (how->resolve & ~(uint64_t)VALID_RESOLVE_FLAGS)
		return -EINVAL;
	if ((how->resolve & RESOLVE_BENEATH) && (how->resolve & RESOLVE_IN_ROOT))
		return -EINVAL;
	if ((flags & O_CREAT) || (flags & O_TMPFILE_BIT)) {
		if (how->mode & ~(uint64_t)S_IALLUGO)
			return -EINVAL;
		op->mode = (umode_t)how->mode | S_IFREG;
	} else {
		if (how->mode != 0)
			return -EINVAL;
		op->mode = 0;
	}
	/* O_CREAT | O_DIRECTORY is refused since Linux 6.4 */
	if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL;
	if (flags & __O_SYNC)
		flags |= O_DSYNC;
	if (flags & O_TMPFILE_BIT) {
		if ((flags & (O_TMPFILE_BIT | O_DIRECTORY)) != (O_TMPFILE_BIT | O_DIRECTORY))
			return -EINVAL;
		/* any access mode that includes writing: 3 does, as on Linux */
		if (!("\004\002\006\006"[flags & O_ACCMODE] & MAY_WRITE))
			return -EINVAL;
	}
	if (flags & O_PATH) {
		/* O_PATH permits only a few other flags (openat masked them
		 * already), O_TMPFILE's own bit not among them */
		if (flags & ~(uint64_t)O_PATH_FLAGS)
			return -EINVAL;
	}
	if (flags & O_PATH)
		acc_mode = 0;
	else
		acc_mode = MAY_OPEN | ("\004\002\006\006"[flags & O_ACCMODE]);
	op->open_flag = (int)flags;
	if (flags & O_TRUNC)
		acc_mode |= MAY_WRITE;
	if (flags & O_APPEND)
		acc_mode |= MAY_APPEND;
	op->acc_mode = acc_mode;

	unsigned lf = 0;
	if (flags & O_DIRECTORY)
		lf |= LOOKUP_DIRECTORY;
	if (!(flags & O_NOFOLLOW))
		lf |= LOOKUP_FOLLOW;
	if (how->resolve & RESOLVE_NO_XDEV)
		lf |= LOOKUP_NO_XDEV;
	if (how->resolve & RESOLVE_NO_MAGICLINKS)
		lf |= LOOKUP_NO_MAGICLINKS;
	if (how->resolve & RESOLVE_NO_SYMLINKS)
		lf |= LOOKUP_NO_SYMLINKS;
	if (how->resolve & RESOLVE_BENEATH)
		lf |= LOOKUP_BENEATH;
	if (how->resolve & RESOLVE_IN_ROOT)
		lf |= LOOKUP_IN_ROOT;
	if (how->resolve & RESOLVE_CACHED) {
		if (flags & (O_TRUNC | O_CREAT | O_TMPFILE_BIT))
			return -EAGAIN;
		lf |= LOOKUP_CACHED;
	}
	op->lookup_flags = lf;
	return 0;
}

static inline unsigned open_fmode(int flags)
{
	if (flags & O_PATH)
		return FMODE_PATH;
	switch (flags & O_ACCMODE) {
	case O_RDONLY: return FMODE_READ | FMODE_LSEEK;
	case O_WRONLY: return FMODE_WRITE | FMODE_LSEEK;
	case O_RDWR: return FMODE_READ | FMODE_WRITE | FMODE_LSEEK;
	default: return FMODE_LSEEK; /* 3: ioctl-only, neither read nor write */
	}
}

/* Linux's may_open: type rules, permission, O_NOATIME ownership. */
static int may_open(struct uvfs_proc *p, const struct path *path, int acc_mode, int flag)
{
	struct inode *inode = path->dentry->d_inode;
	/* the type only: a chmod or a hostfs refresh may store the mode */
	switch (READ_ONCE(inode->i_mode) & S_IFMT) {
	case S_IFLNK:
		return -ELOOP;
	case S_IFDIR:
		if (acc_mode & MAY_WRITE)
			return -EISDIR;
		if (acc_mode & MAY_EXEC)
			return -EACCES;
		break;
	case S_IFBLK:
	case S_IFCHR:
		if (path->mnt->m_flags & MNT_NODEV)
			return -EACCES;
		/* fallthrough */
	case S_IFIFO:
	case S_IFSOCK:
		/* write permission is checked as for any file; only the
		 * read-only-filesystem rule spares them (inode_permission) */
		if (acc_mode & MAY_EXEC)
			return -EACCES;
		break;
	case S_IFREG:
		break;
	}
	int err = inode_permission(current_cred(), inode, acc_mode & (MAY_READ | MAY_WRITE | MAY_EXEC));
	if (err)
		return err;
	/* an append-only file is opened for writing only with O_APPEND, and
	 * never truncated */
	if (IS_APPEND(inode) && ((((flag & O_ACCMODE) != O_RDONLY) && !(flag & O_APPEND)) || (flag & O_TRUNC)))
		return -EPERM;
	/* a read-only mount refuses a writer later, when the file takes write
	 * access to it (finish_open), as Linux's do_dentry_open: access mode 3
	 * checks both permissions but opens neither for reading nor writing */
	if ((flag & O_NOATIME) && !inode_owner_or_capable(current_cred(), inode))
		return -EPERM;
	return 0;
}

/* Character and block devices, sockets: uvfs has no drivers behind them. */
static int special_open(struct inode *inode, struct file *f)
{
	return -ENXIO;
}
static const struct file_operations special_fops = { .open = special_open };

/* Linux's do_truncate: ftruncate and O_TRUNC move mtime and ctime always,
 * truncate(2) only when the size changes (tmpfs); a caller without
 * CAP_FSETID drops setuid/setgid.  filp: the open file of an ftruncate or
 * an O_TRUNC open, which the filesystem may truncate through (ATTR_FILE). */
static int do_truncate(struct uvfs_proc *p, const struct cred *c, struct dentry *d, loff_t length,
		       unsigned time_attrs, struct file *filp)
{
	struct iattr ia = { .ia_valid = ATTR_SIZE | ATTR_FORCE | time_attrs | (filp ? ATTR_FILE : 0),
			    .ia_size = length, .ia_file = filp };
	ia.ia_valid |= should_remove_suid(c, d->d_inode) | ATTR_KILL_PRIV;
	return notify_change(p, c, d, d->d_inode, &ia);
}

/* The file of an open path: built only now, when nothing can fail but
 * allocation and the filesystem's open. */
/* As open_path_file, but the file takes over the caller's references of
 * *path on success (path->dentry is cleared); on failure they stay the
 * caller's.  Saves a get and a put of the dentry and the mount per open.
 * Inlined at each call: since O_CREAT passes the file it allocated before
 * the name, pre is no longer NULL at every call, and the out-of-line copy
 * cost open1 6 instructions more (callgrind). */
static __always_inline struct file *__open_path_file(struct uvfs_proc *p, const struct path *path, int flags, int *errp,
				     struct file *pre, bool take_refs);

static struct file *open_path_file(struct uvfs_proc *p, const struct path *path, int flags, int *errp,
				   struct file *pre)
{
	return __open_path_file(p, path, flags, errp, pre, true);
}

static struct file *open_path_file_consume(struct uvfs_proc *p, struct path *path, int flags, int *errp,
					   struct file *pre)
{
	struct file *f = __open_path_file(p, path, flags, errp, pre, false);
	if (f)
		path->dentry = NULL;
	return f;
}

static __always_inline struct file *__open_path_file(struct uvfs_proc *p, const struct path *path, int flags, int *errp,
				     struct file *pre, bool take_refs)
{
	struct inode *inode = path->dentry->d_inode;
	struct file *f = pre ? pre : alloc_empty_file(p->vfs, flags);
	if (!f) {
		*errp = alloc_file_errno(p->vfs);
		return NULL;
	}
	/* Linux forces O_LARGEFILE before O_PATH drops the other flags */
	f->f_flags = (flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC)) |
		     ((flags & O_PATH) ? 0 : O_LARGEFILE_KERNEL);
	unsigned mode = open_fmode(flags);
	struct path held = *path;
	if (take_refs)
		path_get(&held);
	int err = __finish_open(f, &held, inode, mode);
	umode_t type = READ_ONCE(inode->i_mode) & S_IFMT;
	if (!err && !(mode & FMODE_PATH) && !S_ISREG(type) && !S_ISDIR(type)) {
		/* FIFOs go to the pipe code (it may wait for a partner there);
		 * devices and sockets have no driver behind them */
		if (S_ISFIFO(type)) {
			err = fifo_open(inode, f);
			/* Linux's FIFOs have no FMODE_CAN_ODIRECT after their
			 * open (F_SETFL gives them O_DIRECT all the same) */
			if (!err && (f->f_flags & O_DIRECT)) {
				f->f_op->release(inode, f);
				err = -EINVAL;
			}
		} else if (S_ISCHR(type) || S_ISBLK(type) || S_ISSOCK(type)) {
			err = special_open(inode, f);
		} else if (!type) {
			/* an anon inode (inotify, epoll) reopened by its fd:
			 * Linux's anon_inode_fops has no open */
			err = -ENXIO;
		}
		if (err) {
			f->f_mode &= ~FMODE_OPENED;
			if (mode & FMODE_WRITE)
				__atomic_fetch_sub(&inode->i_writecount, 1, __ATOMIC_RELAXED);
			if (f->f_mode & FMODE_WRITER)
				mnt_put_write_access(f->f_path.mnt);
			f->f_mode &= ~FMODE_WRITER;
			f->f_path.dentry = NULL;
			f->f_path.mnt = NULL;
		}
	}
	if (err) {
		if (take_refs)
			path_put(&held);
		file_free_unopened(f);
		*errp = err;
		return NULL;
	}
	if (f->f_op == NULL && !(mode & FMODE_PATH))
		f->f_op = &special_fops;
	/* regular files and directories never make a call sleep on a peer:
	 * single-thread mode may use them without a reference (fdtable.c) */
	if (S_ISREG(READ_ONCE(inode->i_mode))) {
		f->f_mode |= FMODE_ATOMIC_POS | FMODE_LIGHT;
	} else if (S_ISDIR(READ_ONCE(inode->i_mode))) {
		if (unlikely(flags & O_DIRECT) && !(mode & FMODE_PATH)) {
			/* Linux's FMODE_CAN_ODIRECT, checked after ->open: a
			 * tmpfs directory has none.  The open file is released,
			 * so a watcher sees it close (and no IN_OPEN); on
			 * failure the caller keeps its own references. */
			if (!take_refs)
				path_get(&held);
			fput_close(f);
			*errp = -EINVAL;
			return NULL;
		}
		f->f_mode |= FMODE_ATOMIC_POS | FMODE_LIGHT;
	} else if (mode & FMODE_PATH) {
		f->f_mode |= FMODE_LIGHT;
	}
	/* Linux's vfs_open: IN_OPEN once the file is open, before O_TRUNC */
	fsnotify_open(f);
	return f;
}

/* O_TMPFILE: an unnamed inode in a directory; linkable unless O_EXCL. */
static int do_tmpfile(struct uvfs_proc *p, int dfd, const struct filename *name, const struct open_flags *op,
		      struct file **out)
{
	struct path path;
	int err = filename_lookup(p, dfd, name, op->lookup_flags | LOOKUP_DIRECTORY, &path);
	if (err)
		return err;
	struct inode *dir = path.dentry->d_inode;
	err = mnt_want_write(path.mnt);
	if (!err)
		err = inode_permission(current_cred(), dir, MAY_WRITE | MAY_EXEC);
	if (!err && !dir->i_op->tmpfile)
		err = -EOPNOTSUPP;
	struct inode *inode = NULL;
	if (!err)
		err = dir->i_op->tmpfile(dir, &inode, vfs_prepare_mode(dir, op->mode, p->fs->umask, current_cred()), current_cred());
	if (err) {
		path_put(&path);
		return err;
	}
	if (!(op->open_flag & O_EXCL))
		inode_flags_set(inode, S_LINKABLE);
	struct dentry *d = d_alloc_pseudo(dir->i_sb, inode);
	if (!d) {
		iput(inode);
		path_put(&path);
		return -ENOMEM;
	}
	d_clear_flags(d, DCACHE_DISCONNECTED);
	d->d_parent = dget(path.dentry);
	struct path fpath = { .mnt = path.mnt, .dentry = d };
	struct file *f = open_path_file(p, &fpath, op->open_flag, &err, NULL);
	dput(d);
	path_put(&path);
	if (!f)
		return err;
	*out = f;
	return 0;
}

/*
 * O_CREAT, the last component (filename_open_walk, namei.h, walks the rest,
 * symlink bodies included): the parent is locked and the name looked up (or
 * made) under the lock.  Errors: EEXIST with O_EXCL (a symlink is never
 * followed then); the may_create ones (EROFS, ENOENT in a removed
 * directory, EACCES); ENOMEM or ENFILE for the file, which is allocated
 * into *pre before the name is made; the filesystem's (ENOSPC).  A symlink
 * found without O_EXCL and O_NOFOLLOW goes back to the walk (returns 1),
 * which follows it and comes here again at its target, creating it there if
 * it does not exist (as Linux does).
 */
struct open_create_args {
	struct uvfs_proc *p;
	const struct open_flags *op;
	bool *created;
	struct file **pre;
};

/* inline in open_create, whose one-name case calls it directly (as a call
 * it cost unlink1 10 instructions); the nameidata walk takes its address */
static __always_inline int open_create_last(const struct path *parent, const struct qstr *last, void *arg,
					    struct path *res)
{
	struct open_create_args *a = arg;
	struct uvfs_proc *p = a->p;
	const struct open_flags *op = a->op;
	struct inode *dir = parent->dentry->d_inode;
	int err;
	inode_lock_spin(&dir->i_rwsem);
	struct dentry *d = __d_lookup_or_alloc(parent->dentry, last, &err, false);
	if (!d) {
		up_write(&dir->i_rwsem);
		return err;
	}
	if (!d->d_inode) {
		err = __mnt_want_write(parent->mnt);
		if (!err)
			err = READ_ONCE(dir->i_flags) & S_DEAD_DIR ? -ENOENT : __inode_permission(current_cred(), dir, MAY_WRITE | MAY_EXEC);
		/* the file before the name: once the name is made, the open
		 * must not fail for want of memory */
		if (!err && !*a->pre) {
			*a->pre = alloc_empty_file(p->vfs, op->open_flag);
			if (!*a->pre)
				err = alloc_file_errno(p->vfs);
		}
		if (!err)
			err = dir->i_op->create ? dir->i_op->create(dir, d, vfs_prepare_mode(dir, op->mode, p->fs->umask, current_cred()), current_cred()) : -EACCES;
		up_write(&dir->i_rwsem);
		if (err) {
			dput(d);
			return err;
		}
		*a->created = true;
		fsnotify_create(p, dir, d);
		res->mnt = mntget(parent->mnt);
		res->dentry = d;
		return 0;
	}
	up_write(&dir->i_rwsem);
	struct inode *inode = d->d_inode;
	struct mount *m = parent->mnt;
	struct dentry *md = d;
	bool mnt_held = false;
	if (READ_ONCE(d->d_flags) & DCACHE_MOUNTED) {
		/* a mountpoint: what is open is the root of the mount on it;
		 * crossed under seq_lock so that no umount frees it before our
		 * references are taken (see namei.c) */
		struct mount *c;
		pthread_mutex_lock(&p->vfs->seq_lock);
		while ((READ_ONCE(md->d_flags) & DCACHE_MOUNTED) && (c = lookup_mnt(m, md)) != NULL) {
			if (unlikely(op->lookup_flags & LOOKUP_NO_XDEV)) {
				/* RESOLVE_NO_XDEV: no crossing, the last name's neither */
				pthread_mutex_unlock(&p->vfs->seq_lock);
				dput(d);
				return -EXDEV;
			}
			m = c;
			md = c->m_root;
		}
		mntget(m);
		if (md != d)
			dget(md);
		pthread_mutex_unlock(&p->vfs->seq_lock);
		mnt_held = true;
		if (md != d) {
			dput(d);
			d = md;
			inode = d->d_inode;
		}
	}
	/* after the mounts are crossed, as Linux's step_into before do_open
	 * (RESOLVE_NO_XDEV's EXDEV comes first) */
	if (op->open_flag & O_EXCL) {
		if (mnt_held)
			mntput(m);
		dput(d);
		return -EEXIST;
	}
	bool follow = S_ISLNK(READ_ONCE(inode->i_mode)) && !(op->open_flag & O_NOFOLLOW);
	/* Linux's may_create_in_sticky with protected_regular and
	 * protected_fifos at 0, the kernel's default: O_CREAT that finds
	 * another's special file or symlink in a world-writable sticky
	 * directory of a third owner is EACCES, even for root */
	if (!follow && !S_ISREG(READ_ONCE(inode->i_mode)) && !S_ISFIFO(READ_ONCE(inode->i_mode)) && !S_ISDIR(READ_ONCE(inode->i_mode)) &&
	    (READ_ONCE(dir->i_mode) & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) && READ_ONCE(inode->i_uid) != READ_ONCE(dir->i_uid) &&
	    READ_ONCE(inode->i_uid) != current_cred()->fsuid) {
		if (mnt_held)
			mntput(m);
		dput(d);
		return -EACCES;
	}
	res->mnt = mnt_held ? m : mntget(m);
	res->dentry = d;
	return follow ? 1 : 0;
}

/* Out of line: with it and filename_open_walk inline in do_filp_open,
 * open1 and open_enoent cost 6 and 3 instructions more (callgrind),
 * paying for the create's registers. */
static __attribute__((noinline)) int open_create(struct uvfs_proc *p, int dfd, const struct filename *name,
						 struct open_flags *op, struct path *out, bool *created,
						 struct file **pre)
{
	struct open_create_args a = { p, op, created, pre };
	unsigned lf = op->lookup_flags | ((op->open_flag & O_EXCL) ? LOOKUP_EXCL : 0);
	return filename_open_walk(p, dfd, name, lf, open_create_last, &a, out);
}

static int do_filp_open(struct uvfs_proc *p, int dfd, const struct filename *name, struct open_flags *op,
			struct file **out)
{
	int flag = op->open_flag;
	struct path path;
	bool created = false;
	int err;
	struct file *pre = NULL;

#ifdef UVFS_BASELINE_FAILED_OPEN
	/* before seed 000: the file exists before the walk and a failed open
	 * releases it through fput -> task_work -> call_rcu */
	pre = alloc_empty_file(p->vfs, flag);
	if (!pre)
		return alloc_file_errno(p->vfs);
#endif
	if (flag & O_TMPFILE_BIT) {
		err = do_tmpfile(p, dfd, name, op, out);
		goto done;
	}
	if (flag & O_PATH) {
		err = filename_lookup(p, dfd, name, op->lookup_flags, &path);
		if (err)
			goto done;
		*out = open_path_file_consume(p, &path, flag, &err, pre);
		pre = NULL;
		if (path.dentry)
			path_put(&path);
		goto done;
	}
	if (flag & O_CREAT) {
		struct file *made = pre;
		err = open_create(p, dfd, name, op, &path, &created, &made);
		if (created) {
			/* a file we just made, with the struct file allocated
			 * before its name: no permission check, no truncate.  Its
			 * own call, so that the lookup's open below keeps a
			 * constant NULL for pre in the default build. */
			pre = NULL;
			if (op->lookup_flags & LOOKUP_DIRECTORY) {
				file_free_unopened(made);
				err = -ENOTDIR;
				goto put;
			}
			*out = open_path_file_consume(p, &path, flag & ~O_TRUNC, &err, made);
			goto put;
		}
		if (made != pre)
			file_free_unopened(made); /* allocated, then the create failed */
		if (err)
			goto done;
		if (S_ISDIR(READ_ONCE(path.dentry->d_inode->i_mode))) {
			path_put(&path);
			err = -EISDIR;
			goto done;
		}
	} else {
		err = filename_lookup(p, dfd, name, op->lookup_flags, &path);
		if (err)
			goto done;
	}
	struct inode *inode = path.dentry->d_inode;
	if ((op->lookup_flags & LOOKUP_DIRECTORY) && !S_ISDIR(READ_ONCE(inode->i_mode))) {
		err = -ENOTDIR;
		goto put;
	}
	int acc_mode = op->acc_mode;
	/* Linux's do_open: a truncation's read-only check comes first */
	if (!S_ISREG(READ_ONCE(inode->i_mode)))
		flag &= ~O_TRUNC;
	if (flag & O_TRUNC) {
		err = mnt_want_write(path.mnt);
		if (err)
			goto put;
	}
	err = may_open(p, &path, acc_mode, flag);
	if (err)
		goto put;
	*out = open_path_file_consume(p, &path, flag, &err, pre);
	pre = NULL;
	if (*out && (flag & O_TRUNC)) {
		err = do_truncate(p, current_cred(), (*out)->f_path.dentry, 0, ATTR_MTIME | ATTR_CTIME, *out);
		if (err) {
			fput_close(*out);
			*out = NULL;
		}
	}
put:
	if (path.dentry)
		path_put(&path);
done:
	if (pre)
		file_free_unopened(pre);
	return *out ? 0 : err;
}

/* Inline in uvfs_openat and uvfs_openat2: uvfs_openat's resolve is a
 * constant 0 there, and neither pays a call (open1 and open_enoent cost 13
 * and 14 instructions less, callgrind). */
static __always_inline long do_sys_openat2(struct uvfs_proc *p, int dfd, const char *pathname, const struct open_how *how)
{
	struct open_flags op;
	int err = build_open_flags(how, &op);
	if (err)
		return err;
	struct filename name;
	err = getname(pathname, &name, 0);
	if (err)
		return err;
	/* EMFILE comes before the walk, as Linux reserves the fd first.  An
	 * open that may create reserves it for real; the others only check
	 * that a free fd exists and take it when the file is ready. */
	unsigned cloexec = (unsigned)how->flags & O_CLOEXEC;
	struct file *f = NULL;
	if (unlikely(op.open_flag & (O_CREAT | O_TMPFILE_BIT))) {
		int fd = get_unused_fd_flags(p, cloexec);
		if (fd < 0)
			return fd;
		err = do_filp_open(p, dfd, &name, &op, &f);
		if (err) {
			put_unused_fd(p, fd);
			return err;
		}
		fd_install(p, fd, f);
		return fd;
	}
	if (unlikely(fd_table_full(p)))
		return -EMFILE;
	err = do_filp_open(p, dfd, &name, &op, &f);
	if (err)
		return err;
	int fd = fd_alloc_install(p, f, cloexec);
	if (unlikely(fd < 0))
		fput_close(f);
	return fd;
}

UVFS_API int uvfs_openat(struct uvfs_proc *p, int dfd, const char *pathname, int flags, mode_t mode)
{
	API_ENTER_PROC(p);
	struct open_how how = { .flags = (uint64_t)(unsigned)flags & VALID_OPEN_FLAGS };
	/* Linux's build_open_how: O_PATH drops the other flags first, so an
	 * O_CREAT it dropped takes no mode with it */
	if (how.flags & O_PATH)
		how.flags &= O_PATH_FLAGS;
	how.mode = (how.flags & (O_CREAT | O_TMPFILE_BIT)) ? (mode & S_IALLUGO) : 0;
	API_RETURN(do_sys_openat2(p, dfd, pathname, &how));
}

UVFS_API int uvfs_openat2(struct uvfs_proc *p, int dfd, const char *pathname, const struct open_how *uhow,
			  size_t usize)
{
	API_ENTER_PROC(p);
	struct open_how how = { 0 };
	if (usize < sizeof(struct open_how))
		API_RETURN(-EINVAL);
	if (usize > 4096)
		API_RETURN(-E2BIG);
	if (!uhow)
		API_RETURN(-EFAULT);
	/* larger structs from newer callers: the extra bytes must be zero */
	for (size_t i = sizeof(how); i < usize; i++)
		if (((const unsigned char *)uhow)[i])
			API_RETURN(-E2BIG);
	memcpy(&how, uhow, sizeof(how));
	API_RETURN(do_sys_openat2(p, dfd, pathname, &how));
}

/* An open of path, as uvfs_fd_reopen's and open_by_handle_at's (fhandle.c):
 * the caller's references of path are consumed. */
int open_path_fd(struct uvfs_proc *p, struct path *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)(unsigned)flags & VALID_OPEN_FLAGS & ~(O_CREAT | O_EXCL) };
	/* open(2)'s build_open_how: O_PATH drops what it does not take */
	if (how.flags & O_PATH)
		how.flags &= O_PATH_FLAGS;
	struct open_flags op;
	int err = build_open_flags(&how, &op);
	struct file *f = NULL;
	if (!err && (op.lookup_flags & LOOKUP_DIRECTORY) && !S_ISDIR(READ_ONCE(path->dentry->d_inode->i_mode)))
		err = -ENOTDIR;
	if (!err && !(op.open_flag & O_PATH))
		err = may_open(p, path, op.acc_mode, op.open_flag);
	if (!err) {
		f = open_path_file(p, path, op.open_flag, &err, NULL);
		if (f && (op.open_flag & O_TRUNC) && S_ISREG(READ_ONCE(path->dentry->d_inode->i_mode))) {
			err = do_truncate(p, current_cred(), path->dentry, 0, ATTR_MTIME | ATTR_CTIME, f);
			if (err) {
				fput_close(f);
				f = NULL;
			}
		}
	}
	path_put(path);
	if (!f)
		return err;
	int nfd = get_unused_fd_flags(p, flags & O_CLOEXEC);
	if (nfd < 0) {
		fput_close(f);
		return nfd;
	}
	fd_install(p, nfd, f);
	return nfd;
}

UVFS_API int uvfs_fd_reopen(struct uvfs_proc *p, int fd, int flags)
{
	API_ENTER_PROC(p);
	struct file *old = fget_raw(p, fd);
	if (!old)
		API_RETURN(-EBADF);
	struct path path = old->f_path;
	path_get(&path);
	fput(old);
	/* /proc/self/fd/N is a symlink: O_NOFOLLOW refuses it but for an
	 * O_PATH open (which Linux makes of the link itself: here, of the
	 * file) */
	if ((flags & O_NOFOLLOW) && !(flags & O_PATH)) {
		path_put(&path);
		API_RETURN(-ELOOP);
	}
	API_RETURN(open_path_fd(p, &path, flags));
}

/* close(2): EBADF, else the last reference is released synchronously
 * (seed 001). */
UVFS_API int uvfs_close(struct uvfs_proc *p, int fd)
{
	API_ENTER_PROC(p);
	struct file *f = file_close_fd(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	filp_close(f, p->files);
	API_RETURN(0);
}

UVFS_API int uvfs_close_range(struct uvfs_proc *p, unsigned first, unsigned last, unsigned flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE))
		API_RETURN(-EINVAL);
	if (first > last)
		API_RETURN(-EINVAL);
	if (flags & CLOSE_RANGE_UNSHARE) {
		struct files_struct *files = p->files;
		if (__atomic_load_n(&files->count, __ATOMIC_ACQUIRE) > 1) {
			int err;
			struct files_struct *nf = files_dup(files, &err);
			if (!nf)
				API_RETURN(err);
			p->files = nf;
			files_put(files);
		}
	}
	API_RETURN(close_range_fds(p, first, last, flags));
}

/* ---- truncate ---- */

UVFS_API int uvfs_ftruncate(struct uvfs_proc *p, int fd, off_t length)
{
	API_ENTER_PROC(p);
	if (length < 0)
		API_RETURN(-EINVAL);
	struct file *f = fget(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	int err;
	struct inode *inode = f->f_inode;
	if (!(f->f_mode & FMODE_WRITE))
		err = -EINVAL;
	else if (S_ISDIR(READ_ONCE(inode->i_mode)))
		err = -EISDIR;
	else if (!S_ISREG(READ_ONCE(inode->i_mode)))
		err = -EINVAL;
	else if (IS_APPEND(inode))
		err = -EPERM;
	else
		err = do_truncate(p, current_cred(), f->f_path.dentry, length, ATTR_MTIME | ATTR_CTIME, f);
	fput(f);
	API_RETURN(err);
}

/* truncate(2): the walk's errors; EISDIR; EINVAL (not regular); EROFS (a
 * read-only superblock), EACCES without write permission; EROFS (a
 * read-only mount). */
UVFS_API int uvfs_truncate(struct uvfs_proc *p, const char *pathname, off_t length)
{
	API_ENTER_PROC(p);
	if (length < 0)
		API_RETURN(-EINVAL);
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, LOOKUP_FOLLOW, &path);
	if (err)
		API_RETURN(err);
	struct inode *inode = path.dentry->d_inode;
	if (S_ISDIR(READ_ONCE(inode->i_mode)))
		err = -EISDIR;
	else if (!S_ISREG(READ_ONCE(inode->i_mode)))
		err = -EINVAL;
	/* Linux 6.x's vfs_truncate: permission (a read-only superblock's EROFS
	 * among it), then the mount's read-only flag */
	else if ((err = inode_permission(current_cred(), inode, MAY_WRITE)) != 0)
		;
	else if ((err = mnt_want_write(path.mnt)) != 0)
		;
	else if (IS_APPEND(inode))
		err = -EPERM;
	else
		err = do_truncate(p, current_cred(), path.dentry, length, 0, NULL);
	path_put(&path);
	API_RETURN(err);
}

/* ---- access ---- */

struct access_args {
	const struct cred *cred;
	int mode;
};

static long access_fn(struct inode *inode, struct dentry *d, struct mount *m, void *arg)
{
	struct access_args *a = arg;
	if (a->mode == F_OK)
		return 0;
	int mask = (a->mode & R_OK ? MAY_READ : 0) | (a->mode & W_OK ? MAY_WRITE : 0) |
		   (a->mode & X_OK ? MAY_EXEC : 0);
	/* m is NULL for a pseudo file (a pipe's AT_EMPTY_PATH) */
	if ((mask & MAY_EXEC) && S_ISREG(READ_ONCE(inode->i_mode)) && m && (m->m_flags & MNT_NOEXEC))
		return -EACCES;
	if ((mask & MAY_WRITE) && (S_ISREG(READ_ONCE(inode->i_mode)) || S_ISDIR(READ_ONCE(inode->i_mode)) || S_ISLNK(READ_ONCE(inode->i_mode))) &&
	    (inode->i_sb->s_flags & SB_RDONLY))
		return -EROFS;
	if ((mask & MAY_WRITE) && IS_IMMUTABLE(inode))
		return -EPERM; /* inode_permission's */
	int err = generic_permission(a->cred, inode, mask);
	if (err)
		return err;
	/* Linux's do_faccessat: a read-only mount only after the permission
	 * check passed, and not for special files */
	if ((mask & MAY_WRITE) && m && (m->m_flags & MNT_RDONLY) && !S_ISCHR(READ_ONCE(inode->i_mode)) && !S_ISBLK(READ_ONCE(inode->i_mode)) &&
	    !S_ISFIFO(READ_ONCE(inode->i_mode)) && !S_ISSOCK(READ_ONCE(inode->i_mode)))
		return -EROFS;
	return 0;
}

/* faccessat2: EINVAL (mode or flags); the walk's; EROFS; EACCES. */
UVFS_API int uvfs_faccessat(struct uvfs_proc *p, int dfd, const char *pathname, int mode, int flags)
{
	API_ENTER_PROC(p);
	if (mode & ~(R_OK | W_OK | X_OK))
		API_RETURN(-EINVAL);
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		API_RETURN(-EINVAL);
	unsigned lf = at_lookup_flags(flags);
	struct filename name;
	int err = getname(pathname, &name, lf);
	if (err)
		API_RETURN(err);
	/* Linux's access_override_creds: without AT_EACCESS the check runs
	 * with the real ids as fs ids, and so with uid 0's capabilities
	 * exactly when the real uid is 0 */
	const struct cred *c = current_cred();
	struct cred override;
	if (!(flags & AT_EACCESS) && (c->uid != c->fsuid || c->gid != c->fsgid)) {
		override.fsuid = c->uid;
		override.fsgid = c->gid;
		override.ngroups = c->ngroups;
		memcpy(override.groups, c->groups, sizeof(gid_t) * (size_t)c->ngroups);
		c = &override;
	}
	struct access_args a = { .cred = c, .mode = mode };
	API_RETURN(filename_lookup_fn(p, dfd, &name, lf, access_fn, &a));
}

/* ---- cwd and root ---- */

/*
 * Replaces a path of the proc's fs_struct.  Lockless walkers read the
 * (mount, dentry) pair under fs->seq, this fs_struct's own count (Linux's
 * fs->seq): the global rename_seq stays still, so no other proc's walk
 * starts over.  A walk that read the old path goes on from it, as if it had
 * run before the change; what it lands on is validated as ever (the old
 * mount, if this was its last reference, moves rename_seq when it goes).
 */
static void set_fs_path(struct uvfs_proc *p, struct path *slot, const struct path *np)
{
	struct fs_struct *fs = p->fs;
	pthread_mutex_lock(&fs->lock);
	write_seqcount_begin(&fs->seq);
	struct path old = *slot;
	WRITE_ONCE(slot->mnt, np->mnt);
	WRITE_ONCE(slot->dentry, np->dentry);
	write_seqcount_end(&fs->seq);
	pthread_mutex_unlock(&fs->lock);
	path_put(&old); /* freed after a grace period */
}

static int chdir_path(struct uvfs_proc *p, struct path *path)
{
	if (!S_ISDIR(READ_ONCE(path->dentry->d_inode->i_mode)))
		return -ENOTDIR;
	int err = inode_permission(current_cred(), path->dentry->d_inode, MAY_EXEC);
	if (err)
		return err;
	set_fs_path(p, &p->fs->pwd, path);
	return 0;
}

UVFS_API int uvfs_chdir(struct uvfs_proc *p, const char *pathname)
{
	API_ENTER_PROC(p);
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err)
		API_RETURN(err);
	err = chdir_path(p, &path);
	if (err)
		path_put(&path);
	API_RETURN(err);
}

UVFS_API int uvfs_fchdir(struct uvfs_proc *p, int fd)
{
	API_ENTER_PROC(p);
	struct file *f = fget_raw(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	struct path path = f->f_path;
	path_get(&path);
	fput(f);
	int err = chdir_path(p, &path);
	if (err)
		path_put(&path);
	API_RETURN(err);
}

/* chroot: the walk's; ENOTDIR; EACCES (search); EPERM without privilege. */
UVFS_API int uvfs_chroot(struct uvfs_proc *p, const char *pathname)
{
	API_ENTER_PROC(p);
	struct filename name;
	int err = getname(pathname, &name, 0);
	if (err)
		API_RETURN(err);
	struct path path;
	err = filename_lookup(p, AT_FDCWD, &name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err)
		API_RETURN(err);
	err = inode_permission(current_cred(), path.dentry->d_inode, MAY_EXEC);
	if (!err && !cred_is_root(current_cred()))
		err = -EPERM;
	if (err) {
		path_put(&path);
		API_RETURN(err);
	}
	set_fs_path(p, &p->fs->root, &path);
	API_RETURN(0);
}

/*
 * getcwd: the path from the proc's root, "(unreachable)" prefixed when the
 * cwd is outside it, ENOENT when the cwd was removed, ERANGE when it does not
 * fit.  Returns the length with the NUL, as the system call.
 */
UVFS_API int uvfs_getcwd(struct uvfs_proc *p, char *buf, size_t size)
{
	API_ENTER_PROC(p);
	char tmp[PATH_MAX];
	size_t pos = sizeof(tmp);
	tmp[--pos] = 0;
	struct uvfs *vfs = p->vfs;
	struct path pwd, root;
	pthread_mutex_lock(&p->fs->lock);
	pwd = p->fs->pwd;
	root = p->fs->root;
	path_get(&pwd);
	path_get(&root);
	pthread_mutex_unlock(&p->fs->lock);
	int err = 0;
	pthread_mutex_lock(&vfs->seq_lock); /* names and parents hold still */
	struct mount *m = pwd.mnt;
	struct dentry *d = pwd.dentry;
	bool unreachable = false;
	if (d_unlinked(d) && !(READ_ONCE(d->d_flags) & DCACHE_DISCONNECTED)) {
		err = -ENOENT;
	} else {
		while (!(m == root.mnt && d == root.dentry)) {
			if (d == m->m_root) {
				if (m->m_parent == m) {
					unreachable = true;
					break;
				}
				d = m->m_mountpoint;
				m = m->m_parent;
				continue;
			}
			const struct dname *n = d->d_name;
			if (pos < n->len + 1) {
				err = -ENAMETOOLONG;
				break;
			}
			pos -= n->len;
			memcpy(tmp + pos, n->name, n->len);
			tmp[--pos] = '/';
			d = d->d_parent;
		}
	}
	pthread_mutex_unlock(&vfs->seq_lock);
	path_put(&pwd);
	path_put(&root);
	if (err)
		API_RETURN(err);
	if (pos == sizeof(tmp) - 1)
		tmp[--pos] = '/';
	if (unreachable) {
		static const char pre[] = "(unreachable)";
		if (pos < sizeof(pre) - 1)
			API_RETURN(-ENAMETOOLONG);
		pos -= sizeof(pre) - 1;
		memcpy(tmp + pos, pre, sizeof(pre) - 1);
	}
	size_t len = sizeof(tmp) - pos;
	if (len > size)
		API_RETURN(-ERANGE);
	if (!buf)
		API_RETURN(-EFAULT);
	memcpy(buf, tmp + pos, len);
	API_RETURN((int)len);
}

UVFS_API mode_t uvfs_umask(struct uvfs_proc *p, mode_t mask)
{
	API_ENTER_PROC(p);
	API_RETURN(__atomic_exchange_n(&p->fs->umask, mask & 0777, __ATOMIC_RELAXED));
}

/* ---- dup and fcntl ---- */

UVFS_API int uvfs_dup(struct uvfs_proc *p, int fd)
{
	API_ENTER_PROC(p);
	struct fd fd_ = fdget_raw(p, fd);
	if (!fd_.file)
		API_RETURN(-EBADF);
	struct file *f = get_file(fd_.file); /* the new slot's own reference */
	int nfd = fd_alloc_install(p, f, 0);
	if (nfd < 0)
		fput(f);
	fdput(p, fd_);
	API_RETURN(nfd);
}

UVFS_API int uvfs_dup3(struct uvfs_proc *p, int oldfd, int newfd, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~O_CLOEXEC)
		API_RETURN(-EINVAL);
	if (oldfd == newfd)
		API_RETURN(-EINVAL);
	if (newfd < 0)
		API_RETURN(-EBADF);
	struct file *f = fget_raw(p, oldfd);
	if (!f)
		API_RETURN(-EBADF);
	int err = do_dup2(p, f, (unsigned)newfd, (unsigned)flags);
	fput(f);
	API_RETURN(err);
}

UVFS_API int uvfs_dup2(struct uvfs_proc *p, int oldfd, int newfd)
{
	API_ENTER_PROC(p);
	if (oldfd == newfd) {
		struct file *f = fget_raw(p, oldfd);
		if (!f)
			API_RETURN(-EBADF);
		fput(f);
		API_RETURN(newfd);
	}
	if (newfd < 0)
		API_RETURN(-EBADF);
	struct file *f = fget_raw(p, oldfd);
	if (!f)
		API_RETURN(-EBADF);
	int err = do_dup2(p, f, (unsigned)newfd, 0);
	fput(f);
	API_RETURN(err);
}

/* FASYNC is set by a file's ->fasync, which no uvfs file has */
#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_NDELAY | O_DIRECT | O_NOATIME)

UVFS_API int uvfs_fcntl(struct uvfs_proc *p, int fd, int cmd, unsigned long arg)
{
	API_ENTER_PROC(p);
	struct file *f = fget_raw(p, fd);
	if (!f)
		API_RETURN(-EBADF);
	long err;
	if ((f->f_mode & FMODE_PATH) && cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC && cmd != F_GETFD &&
	    cmd != F_SETFD && cmd != F_GETFL) {
		fput(f);
		API_RETURN(-EBADF);
	}
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* the kernel reads the argument as an int */
		if ((int)arg < 0 || (unsigned)(int)arg >= p->nofile) {
			err = -EINVAL;
			break;
		}
		err = alloc_fd_from(p, (unsigned)(int)arg, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0);
		if (err >= 0)
			fd_install(p, (int)err, get_file(f));
		break;
	case F_GETFD:
		err = get_close_on_exec(p, fd) ? FD_CLOEXEC : 0;
		break;
	case F_SETFD:
		set_close_on_exec(p, fd, arg & FD_CLOEXEC);
		err = 0;
		break;
	case F_GETFL: {
		int fl = (int)f->f_flags;
		if (f->f_mode & FMODE_PATH)
			fl = (fl & ~O_ACCMODE) | O_PATH;
		err = fl;
		break;
	}
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		err = fcntl_lock(p, fd, f, cmd, (struct flock *)arg);
		break;
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		err = pipe_fcntl(f, (unsigned)cmd, arg, current_cred());
		break;
	case F_ADD_SEALS:
	case F_GET_SEALS:
		err = memfd_fcntl(f, (unsigned)cmd, (unsigned)arg);
		break;
	case F_SETFL:
		/* O_APPEND of an append-only file cannot change */
		if (((arg ^ f->f_flags) & O_APPEND) && IS_APPEND(f->f_inode)) {
			err = -EPERM;
			break;
		}
		if ((arg & O_NOATIME) && !(f->f_flags & O_NOATIME) && !inode_owner_or_capable(current_cred(), f->f_inode)) {
			err = -EPERM;
			break;
		}
		/* then FMODE_CAN_ODIRECT: pipes (packet mode) and regular
		 * files have it, directories, the inotify anon inode and a
		 * memfd's own file (FMODE_NO_ODIRECT) not */
		if ((arg & O_DIRECT) && !S_ISFIFO(READ_ONCE(f->f_inode->i_mode)) &&
		    (!S_ISREG(READ_ONCE(f->f_inode->i_mode)) || (f->f_mode & FMODE_NO_ODIRECT))) {
			err = -EINVAL;
			break;
		}
		f->f_flags = (unsigned)((arg & SETFL_MASK) | (f->f_flags & ~(unsigned)SETFL_MASK));
		err = 0;
		break;
	default:
		err = -EINVAL;
		break;
	}
	fput(f);
	API_RETURN(err);
}
