// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read_write.c - read, write, their positioned and vectored forms, lseek,
 * fsync (Linux's fs/read_write.c and fs/sync.c).
 *
 * Errors, in order: EBADF (no fd, O_PATH, or not open for the direction);
 * EINVAL (negative offset, bad iovec); EFAULT (NULL buffer); EISDIR (read of
 * a directory); ESPIPE (positioned I/O on a pipe); then the filesystem's.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include <limits.h>

#define MAX_RW_COUNT (INT_MAX & ~4095L)

/* f_pos of a regular file or directory is updated under f_pos_lock, as
 * Linux's fdget_pos does when the file may be shared. */
static inline bool file_pos_locked(struct file *f, unsigned fdflags)
{
	/* a light (unreferenced) file in no other table: only this thread */
	if ((f->f_mode & FMODE_ATOMIC_POS) &&
	    (!(fdflags & FDPUT_LIGHT) || __atomic_load_n(&f->f_count, __ATOMIC_RELAXED) > 1)) {
		pthread_mutex_lock(&f->f_pos_lock);
		return true;
	}
	return false;
}

static inline int rw_verify(struct file *f, unsigned need, const void *buf, size_t count)
{
	if (!(f->f_mode & need))
		return -EBADF;
	if (!f->f_op || (need == FMODE_READ ? !f->f_op->read : !f->f_op->write))
		return S_ISDIR(READ_ONCE(f->f_inode->i_mode)) && need == FMODE_READ ? -EISDIR : -EINVAL;
	if (count && !buf)
		return -EFAULT;
	return 0;
}

/* A write by someone without CAP_FSETID drops setuid and group-exec setgid.
 * Out of line: the common case is the one load of file_remove_privs. */
static __attribute__((noinline, cold)) void file_remove_privs_slow(struct uvfs_proc *p, struct file *f,
								   umode_t mode, size_t count)
{
	struct inode *inode = f->f_inode;
	/* a write of nothing returns before Linux's file_remove_privs */
	if (!count)
		return;
	if (READ_ONCE(inode->i_flags) & S_KILLPRIV) {
		down_write(&inode->i_rwsem);
		inode_killpriv(inode);
		up_write(&inode->i_rwsem);
	}
	if (cred_is_root(current_cred()) || !(mode & (S_ISUID | S_ISGID)))
		return;
	inode_kill_suid(inode, current_cred());
	/* Linux drops the bits through notify_change: watchers hear IN_ATTRIB */
	if (READ_ONCE(inode->i_mode) != mode)
		fsnotify_change(p, f->f_path.dentry, ATTR_MODE);
}

static __always_inline void file_remove_privs(struct uvfs_proc *p, struct file *f, size_t count)
{
	umode_t mode = READ_ONCE(f->f_inode->i_mode);
	if (unlikely(mode & (S_ISUID | S_ISGID)) || unlikely(READ_ONCE(f->f_inode->i_flags) & S_KILLPRIV))
		file_remove_privs_slow(p, f, mode, count);
}

/* Linux's rw_verify_area: a range that runs past LLONG_MAX is EINVAL. */
static inline bool rw_range_bad(loff_t pos, size_t count)
{
	loff_t end;
	return __builtin_add_overflow(pos, (loff_t)count, &end);
}

/* One segment, no notification: readv/writev notify once per call. */
static ssize_t rw_read(struct file *f, void *buf, size_t count, loff_t *pos)
{
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	if (rw_range_bad(*pos, count))
		return -EINVAL;
	return f->f_op->read(f, buf, count, pos);
}

static __always_inline ssize_t rw_write(struct uvfs_proc *p, struct file *f, const void *buf, size_t count, loff_t *pos)
{
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	if (rw_range_bad(*pos, count))
		return -EINVAL;
	file_remove_privs(p, f, count);
	return f->f_op->write(f, buf, count, pos);
}

/* As Linux's vfs_read/vfs_write: a transfer of at least one byte is an
 * IN_ACCESS / IN_MODIFY (pipes and other pseudo files return on their
 * FMODE_NONOTIFY bit inside the hook). */
static __always_inline ssize_t vfs_read(struct file *f, void *buf, size_t count, loff_t *pos)
{
	/* before the data is read (notify/change.c); here and not in rw_read,
	 * which stays a leaf the callers inline */
	fsnotify_observe(f->f_inode);
	ssize_t ret = rw_read(f, buf, count, pos);
	if (ret > 0)
		fsnotify_access(f);
	return ret;
}

/* Inline: fsnotify_write needs the proc after the write, and the callers keep
 * it live anyway (as a function of its own, saving it cost 3 instructions
 * per write, callgrind). */
static __always_inline ssize_t vfs_write(struct uvfs_proc *p, struct file *f, const void *buf, size_t count,
					 loff_t *pos)
{
	ssize_t ret = rw_write(p, f, buf, count, pos);
	if (ret > 0)
		fsnotify_write(p, f);
	return ret;
}

UVFS_API ssize_t uvfs_read(struct uvfs_proc *p, int fd, void *buf, size_t count)
{
	API_ENTER_PROC(p);
	struct fd fd_ = fdget(p, fd);
	struct file *f = fd_.file;
	if (!f)
		API_RETURN(-EBADF);
	ssize_t ret = rw_verify(f, FMODE_READ, buf, count);
	if (!ret) {
		bool locked = file_pos_locked(f, fd_.flags);
		ret = vfs_read(f, buf, count, &f->f_pos);
		if (locked)
			pthread_mutex_unlock(&f->f_pos_lock);
	}
	fdput(p, fd_);
	API_RETURN(ret);
}

UVFS_API ssize_t uvfs_write(struct uvfs_proc *p, int fd, const void *buf, size_t count)
{
	API_ENTER_PROC(p);
	struct fd fd_ = fdget(p, fd);
	struct file *f = fd_.file;
	if (!f)
		API_RETURN(-EBADF);
	ssize_t ret = rw_verify(f, FMODE_WRITE, buf, count);
	if (!ret) {
		bool locked = file_pos_locked(f, fd_.flags);
		ret = vfs_write(p, f, buf, count, &f->f_pos);
		if (locked)
			pthread_mutex_unlock(&f->f_pos_lock);
	}
	fdput(p, fd_);
	API_RETURN(ret);
}

UVFS_API ssize_t uvfs_pread(struct uvfs_proc *p, int fd, void *buf, size_t count, off_t off)
{
	API_ENTER_PROC(p);
	if (off < 0)
		API_RETURN(-EINVAL);
	struct fd fd_ = fdget(p, fd);
	struct file *f = fd_.file;
	if (!f)
		API_RETURN(-EBADF);
	ssize_t ret;
	/* no positioned I/O on pipes: ESPIPE before the direction check */
	if (S_ISFIFO(READ_ONCE(f->f_inode->i_mode)) || !(f->f_mode & FMODE_LSEEK))
		ret = -ESPIPE;
	else if (!(ret = rw_verify(f, FMODE_READ, buf, count))) {
		loff_t pos = off;
		ret = vfs_read(f, buf, count, &pos);
	}
	fdput(p, fd_);
	API_RETURN(ret);
}

UVFS_API ssize_t uvfs_pwrite(struct uvfs_proc *p, int fd, const void *buf, size_t count, off_t off)
{
	API_ENTER_PROC(p);
	if (off < 0)
		API_RETURN(-EINVAL);
	struct fd fd_ = fdget(p, fd);
	struct file *f = fd_.file;
	if (!f)
		API_RETURN(-EBADF);
	ssize_t ret;
	if (S_ISFIFO(READ_ONCE(f->f_inode->i_mode)) || !(f->f_mode & FMODE_LSEEK))
		ret = -ESPIPE;
	else if (!(ret = rw_verify(f, FMODE_WRITE, buf, count))) {
		loff_t pos = off;
		ret = vfs_write(p, f, buf, count, &pos);
	}
	fdput(p, fd_);
	API_RETURN(ret);
}

/* The highest user address plus one on x86-64 with four-level page tables
 * (Linux's TASK_SIZE_MAX): a segment that runs past it fails access_ok. */
#if defined(__x86_64__)
#define USER_ADDR_END 0x00007ffffffff000ul
#else
#define USER_ADDR_END (~0ul)
#endif

/* The iovec rules of Linux's import_iovec: EINVAL for a count outside
 * [0, 1024] or a segment length negative as an ssize_t; EFAULT for a NULL
 * array, then (more than one segment) for a segment that runs past the
 * user address space.  The total is
 * capped at MAX_RW_COUNT, as Linux caps every transfer (not EINVAL). */
static ssize_t iov_check(const struct iovec *iov, int iovcnt)
{
	if (iovcnt < 0 || iovcnt > 1024)
		return -EINVAL;
	if (iovcnt && !iov)
		return -EFAULT;
	for (int i = 0; i < iovcnt; i++)
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
	size_t total = 0;
	for (int i = 0; i < iovcnt; i++) {
		size_t len = iov[i].iov_len;
		uintptr_t base = (uintptr_t)iov[i].iov_base, end;
		if (iovcnt > 1 && len && (__builtin_add_overflow(base, len, &end) || end > USER_ADDR_END))
			return -EFAULT;
		total += len < (size_t)MAX_RW_COUNT - total ? len : (size_t)MAX_RW_COUNT - total;
	}
	return (ssize_t)total;
}

/* The RWF_* flags Linux knows (RWF_SUPPORTED); a bit outside is EOPNOTSUPP. */
#define RWF_ALL 0x1ffu /* with RWF_NOSIGNAL 0x100 (Linux 6.16): no SIGPIPE, which uvfs never raises */
#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x40
#endif
#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x80
#endif

/*
 * Linux's kiocb_set_rw_flags, for a file that has ->read_iter/->write_iter
 * in Linux (regular files and pipes; others take do_loop_readv_writev's
 * "only RWF_HIPRI" rule).  EOPNOTSUPP for an unknown bit, EINVAL for
 * RWF_APPEND with RWF_NOAPPEND, EOPNOTSUPP for RWF_NOWAIT where Linux's
 * file has no FMODE_NOWAIT (all but pipes), for RWF_ATOMIC (tmpfs has no atomic writes, a
 * read never) and RWF_DONTCACHE (no FOP_DONTCACHE), EPERM for RWF_NOAPPEND
 * on an O_APPEND file that is append-only.  Returns the flags the call's
 * filesystem code sees (uvfs_current.rwf), or -errno.
 */
static int rwf_check(struct file *f, int flags)
{
	umode_t mode = READ_ONCE(f->f_inode->i_mode);
	if ((unsigned)flags & ~RWF_ALL)
		return -EOPNOTSUPP;
	if (!S_ISREG(mode) && !S_ISFIFO(mode))
		return flags & ~RWF_HIPRI ? -EOPNOTSUPP : 0;
	if ((flags & RWF_APPEND) && (flags & RWF_NOAPPEND))
		return -EINVAL;
	/* FMODE_NOWAIT: Linux's pipe2 files have it until a splice uses them;
	 * its tmpfs files, FIFOs and pipes opened again by name do not */
	if ((flags & RWF_NOWAIT) &&
	    (!(f->f_mode & FMODE_NOWAIT) || __atomic_load_n(&f->f_nowait_off, __ATOMIC_RELAXED)))
		return -EOPNOTSUPP;
	if (flags & (RWF_ATOMIC | RWF_DONTCACHE))
		return -EOPNOTSUPP;
	if ((flags & RWF_NOAPPEND) && (READ_ONCE(f->f_flags) & O_APPEND) && IS_APPEND(f->f_inode))
		return -EPERM;
	return flags & (RWF_NOWAIT | RWF_APPEND | RWF_NOAPPEND);
}

/*
 * readv, writev and their positioned forms: pos is NULL for the file
 * position, flags preadv2's.  Errors in Linux's order (vfs_readv): EBADF
 * (the direction), EINVAL (no ->read/->write), the vector's EINVAL and
 * EFAULT, nothing more for an empty vector, the range's EINVAL, the
 * flags' (rwf_check), then the transfer's.
 */
static ssize_t do_iter(struct uvfs_proc *p, struct file *f, unsigned fdflags, const struct iovec *iov, int iovcnt,
		       bool write, loff_t *pos, int flags)
{
	unsigned need = write ? FMODE_WRITE : FMODE_READ;
	ssize_t ret = rw_verify(f, need, (void *)1, 0);
	/* a directory has Linux's generic_read_dir: EISDIR only once read */
	if (ret && ret != -EISDIR)
		return ret;
	ssize_t isdir = ret;
	ret = iov_check(iov, iovcnt);
	if (ret < 0)
		return ret;
	size_t total = (size_t)ret;
	if (!total)
		goto notify; /* before the range, the flags and the file's ->read */
	if (pos && rw_range_bad(*pos, total))
		return -EINVAL;
	int rwf = flags ? rwf_check(f, flags) : 0;
	if (rwf < 0)
		return rwf;
	if (isdir)
		return isdir;
	/* Linux faults when it copies; here a NULL base with a length is
	 * EFAULT before anything moves */
	for (int i = 0; i < iovcnt; i++)
		if (iov[i].iov_len && !iov[i].iov_base)
			return -EFAULT;
	uvfs_current.rwf = (unsigned)rwf;
	if (!write)
		fsnotify_observe(f->f_inode); /* before the data is read */
	bool locked = !pos && file_pos_locked(f, fdflags);
	loff_t *ppos = pos ? pos : &f->f_pos;
	if (write ? f->f_op->write_iter != NULL : f->f_op->read_iter != NULL) {
		/* one call for the whole vector: a pipe keeps it atomic and waits once */
		if (write)
			file_remove_privs(p, f, total);
		ret = write ? f->f_op->write_iter(f, iov, iovcnt, ppos) : f->f_op->read_iter(f, iov, iovcnt, ppos);
	} else {
		ssize_t done = 0;
		for (int i = 0; i < iovcnt && (size_t)done < total; i++) {
			size_t len = iov[i].iov_len < total - (size_t)done ? iov[i].iov_len : total - (size_t)done;
			if (!len)
				continue;
			ssize_t n = write ? rw_write(p, f, iov[i].iov_base, len, ppos) : rw_read(f, iov[i].iov_base, len, ppos);
			if (n < 0) {
				if (!done)
					done = n;
				break;
			}
			done += n;
			if ((size_t)n < len)
				break;
		}
		ret = done;
	}
	uvfs_current.rwf = 0;
	if (locked)
		pthread_mutex_unlock(&f->f_pos_lock);
notify:
	/* as Linux's vfs_readv/vfs_writev: a readv that read nothing (EOF, an
	 * empty vector) is still an access; a writev must have written */
	if (write) {
		if (ret > 0)
			fsnotify_write(p, f);
	} else if (ret >= 0) {
		fsnotify_access(f);
	}
	return ret;
}

static ssize_t do_readv_writev(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, bool write,
			       int flags)
{
	struct fd fd_ = fdget(p, fd);
	if (!fd_.file)
		return -EBADF;
	ssize_t ret = do_iter(p, fd_.file, fd_.flags, iov, iovcnt, write, NULL, flags);
	fdput(p, fd_);
	return ret;
}

/* Linux's do_preadv/do_pwritev: EINVAL (a negative offset) before EBADF,
 * then ESPIPE for a file without positioned I/O. */
static ssize_t do_prw(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off, bool write,
		      int flags)
{
	if (off < 0)
		return -EINVAL;
	struct fd fd_ = fdget(p, fd);
	struct file *f = fd_.file;
	if (!f)
		return -EBADF;
	ssize_t ret;
	if (S_ISFIFO(READ_ONCE(f->f_inode->i_mode)) || !(f->f_mode & FMODE_LSEEK)) {
		ret = -ESPIPE;
	} else {
		loff_t pos = off;
		ret = do_iter(p, f, fd_.flags, iov, iovcnt, write, &pos, flags);
	}
	fdput(p, fd_);
	return ret;
}

UVFS_API ssize_t uvfs_readv(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt)
{
	API_ENTER_PROC(p);
	API_RETURN(do_readv_writev(p, fd, iov, iovcnt, false, 0));
}

UVFS_API ssize_t uvfs_writev(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt)
{
	API_ENTER_PROC(p);
	API_RETURN(do_readv_writev(p, fd, iov, iovcnt, true, 0));
}

UVFS_API ssize_t uvfs_preadv(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	API_ENTER_PROC(p);
	API_RETURN(do_prw(p, fd, iov, iovcnt, off, false, 0));
}

UVFS_API ssize_t uvfs_pwritev(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	API_ENTER_PROC(p);
	API_RETURN(do_prw(p, fd, iov, iovcnt, off, true, 0));
}

/* offset -1: the file position, as readv */
UVFS_API ssize_t uvfs_preadv2(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off,
			      int flags)
{
	API_ENTER_PROC(p);
	API_RETURN(off == -1 ? do_readv_writev(p, fd, iov, iovcnt, false, flags)
			     : do_prw(p, fd, iov, iovcnt, off, false, flags));
}

UVFS_API ssize_t uvfs_pwritev2(struct uvfs_proc *p, int fd, const struct iovec *iov, int iovcnt, off_t off,
			       int flags)
{
	API_ENTER_PROC(p);
	API_RETURN(off == -1 ? do_readv_writev(p, fd, iov, iovcnt, true, flags)
			     : do_prw(p, fd, iov, iovcnt, off, true, flags));
}

/* Linux's generic_file_llseek for files, and the directory rules of
 * offset_dir_llseek (SEEK_SET and SEEK_CUR only). */
/* Linux's noop_llseek: lseek succeeds and the position stays (inotify). */
loff_t noop_llseek(struct file *f, loff_t off, int whence)
{
	return f->f_pos;
}

static loff_t vfs_llseek(struct file *f, loff_t off, int whence)
{
	struct inode *inode = f->f_inode;
	loff_t base;
	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = f->f_pos;
		break;
	case SEEK_END:
		if (S_ISDIR(READ_ONCE(inode->i_mode)))
			return -EINVAL;
		fsnotify_observe(inode); /* the size is read */
		base = READ_ONCE(inode->i_size);
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		if (S_ISDIR(READ_ONCE(inode->i_mode)))
			return -EINVAL;
		fsnotify_observe(inode);
		if (f->f_op && f->f_op->llseek)
			off = f->f_op->llseek(f, off, whence);
		else if (off < 0 || off >= READ_ONCE(inode->i_size))
			off = -ENXIO;
		else if (whence == SEEK_HOLE)
			off = READ_ONCE(inode->i_size);
		if (off >= 0)
			f->f_pos = off;
		return off;
	default:
		return -EINVAL;
	}
	if (whence == SEEK_CUR && off == 0)
		return base;
	loff_t pos;
	if (__builtin_add_overflow(base, off, &pos))
		return -EINVAL;
	if (pos < 0)
		return -EINVAL;
	f->f_pos = pos;
	return pos;
}

UVFS_API off_t uvfs_lseek(struct uvfs_proc *p, int fd, off_t off, int whence)
{
	API_ENTER_PROC(p);
	struct fd fd_ = fdget(p, fd);
	struct file *f = fd_.file;
	if (!f)
		API_RETURN(-EBADF);
	loff_t ret;
	/* Linux checks whence (an unsigned) before the file can seek at all */
	if (whence < 0 || whence > SEEK_HOLE)
		ret = -EINVAL;
	else if (!(f->f_mode & FMODE_LSEEK) || S_ISFIFO(READ_ONCE(f->f_inode->i_mode)))
		/* a file that is not seekable but has noop_llseek answers its
		 * position (pread stays ESPIPE, as FMODE_PREAD is not set) */
		ret = f->f_op && f->f_op->llseek == noop_llseek ? noop_llseek(f, off, whence) : -ESPIPE;
	else {
		bool locked = file_pos_locked(f, fd_.flags);
		ret = vfs_llseek(f, off, whence);
		if (locked)
			pthread_mutex_unlock(&f->f_pos_lock);
	}
	fdput(p, fd_);
	API_RETURN(ret);
}

static int do_fsync(struct uvfs_proc *p, int fd)
{
	struct file *f = fget(p, fd);
	if (!f)
		return -EBADF;
	int err = 0;
	if (f->f_op && f->f_op->fsync)
		err = f->f_op->fsync(f);
	else if (!S_ISDIR(READ_ONCE(f->f_inode->i_mode)) && !S_ISREG(READ_ONCE(f->f_inode->i_mode)))
		err = -EINVAL;
	fput(f);
	return err;
}

UVFS_API int uvfs_fsync(struct uvfs_proc *p, int fd)
{
	API_ENTER_PROC(p);
	API_RETURN(do_fsync(p, fd));
}

UVFS_API int uvfs_fdatasync(struct uvfs_proc *p, int fd)
{
	API_ENTER_PROC(p);
	API_RETURN(do_fsync(p, fd));
}
