// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_file.c - data and directory listings through host fds.
 *
 * An open file uses a host fd opened from the node's O_PATH fd at the
 * first read, write or listing (hostfs_open_node: the object uvfs found,
 * nothing else), so a file keeps working when its name goes on the host,
 * and writes are one host call each on it; reads are served from the page
 * cache (hostfs_pages.c) where it is on, one host call each otherwise.  Positions and
 * O_APPEND are uvfs's: the host fd is used with pread/pwrite only, which is
 * why the read-only opens of a file can share one (the node's, kept while
 * the LRU allows, hostfs_rfd_get); the others hold one of their own.
 *
 * Directories list from memory in cache=exclusive (hostfs_dir.c).
 * Otherwise they list with the host's getdents64 and the host's offsets,
 * so a position uvfs hands out is one the host directory accepts again;
 * "." and ".." keep their place but ".." names uvfs's parent (at the mount
 * root, the directory the mount sits on).
 */
#include "hostfs.h"
#include <linux/falloc.h>
#include <dirent.h>
#include <sys/syscall.h>

/*
 * The host fd of an open file is opened at its first use, not by open(2):
 * a cached open and close cost no host call, as on tmpfs.  private_data
 * holds fd + 1 (0: not yet), and HOST_APPEND when the host fd had to be
 * opened with O_APPEND (an append-only object opens for writing only so);
 * two threads that race to open it keep the first and close the second.
 * A file opened for writing before chattr +i or +a meets the host's EPERM
 * at that first use, where an fd the host opened before the flag would
 * still write (its tmpfs checks nothing then): such a file takes a copy of
 * the writable fd hostfs_fileattr_set kept before setting the flag
 * (hn->wfd).  uvfs refuses every open for writing after the flag itself,
 * so only those files reach it.
 */
#define HOST_APPEND ((intptr_t)1 << 40)

static int host_flags(const struct file *f)
{
	/* a cache=watch or revalidate refresh may store the mode meanwhile
	 * (the type bits never change) */
	if (S_ISDIR(READ_ONCE(f->f_inode->i_mode)))
		return O_RDONLY | O_DIRECTORY;
	/* access mode 3 (Linux's ioctl-only open) neither reads nor writes:
	 * a read-only host fd serves its fsync, seek and ioctls, and opens
	 * where the host would refuse write access now (chattr +i since) */
	if ((f->f_flags & O_ACCMODE) == O_ACCMODE)
		return O_RDONLY;
	return (int)(f->f_flags & (O_ACCMODE | O_SYNC | O_DSYNC));
}

/* A regular file opened read-only reads through the node's shared fd. */
static bool shares_rfd(const struct file *f)
{
	return S_ISREG(READ_ONCE(f->f_inode->i_mode)) && host_flags(f) == O_RDONLY;
}

static void fd_drop(struct file *f, int fd)
{
	struct inode *inode = f->f_inode;
	if (shares_rfd(f))
		hostfs_rfd_put(HOSTFS_SB(inode->i_sb), HN(inode));
	else
		close(fd);
}

static inline int slot_fd(intptr_t v) { return (int)((v & ~HOST_APPEND) - 1); }

static int file_fd(struct file *f)
{
	intptr_t v = (intptr_t)__atomic_load_n(&f->private_data, __ATOMIC_ACQUIRE);
	if (likely(v))
		return slot_fd(v);
	struct inode *inode = f->f_inode;
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	intptr_t append = 0;
	int fd;
	if (shares_rfd(f)) {
		fd = hostfs_rfd_get(hsb, HN(inode));
	} else {
		fd = hostfs_open_node(hsb, HN(inode), host_flags(f));
		if (fd == -EPERM && (READ_ONCE(f->f_flags) & O_APPEND)) {
			fd = hostfs_open_node(hsb, HN(inode), host_flags(f) | O_APPEND);
			append = HOST_APPEND;
		}
		if (fd == -EPERM && (f->f_mode & FMODE_WRITE)) {
			fd = hostfs_wfd_dup(hsb, HN(inode));
			append = 0;
		}
	}
	if (fd < 0)
		return fd;
	void *expect = NULL;
	if (!__atomic_compare_exchange_n(&f->private_data, &expect, (void *)((intptr_t)(fd + 1) | append), false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		fd_drop(f, fd);
		return slot_fd((intptr_t)expect);
	}
	return fd;
}

static int hostfs_open(struct inode *inode, struct file *f)
{
	(void)inode;
	f->private_data = NULL;
	return 0;
}

static void hostfs_release(struct inode *inode, struct file *f)
{
	(void)inode;
	intptr_t v = (intptr_t)f->private_data;
	if (v)
		fd_drop(f, slot_fd(v));
}

/* A write at a position through a host fd opened with O_APPEND (the object
 * was append-only then, and no longer is: uvfs let the file drop O_APPEND):
 * the host fd drops it too, or the host would write at its end (i_rwsem
 * held exclusive). */
static int host_append_off(struct file *f, int fd)
{
	intptr_t v = (intptr_t)__atomic_load_n(&f->private_data, __ATOMIC_ACQUIRE);
	if (likely(!(v & HOST_APPEND)))
		return 0;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_APPEND))
		return -errno;
	__atomic_store_n(&f->private_data, (void *)(v & ~HOST_APPEND), __ATOMIC_RELEASE);
	return 0;
}

static bool atime_equal(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The host reads a byte of the file, so that its atime moves as uvfs's
 * did (a failure leaves only the host's atime behind: the data was read). */
static void host_touch(struct file *f)
{
	char byte;
	int fd = file_fd(f);
	if (fd >= 0) {
		ssize_t r = pread(fd, &byte, 1, 0);
		(void)r;
	}
}

static ssize_t hostfs_read(struct file *f, void *buf, size_t len, loff_t *ppos)
{
	bool from_host = false;
	ssize_t n = hostfs_pages_read(f, file_fd, buf, len, *ppos, &from_host);
	if (n == HOSTFS_UNCACHED) {
		int fd = file_fd(f);
		if (fd < 0)
			return fd;
		n = pread(fd, buf, len, *ppos);
		if (n < 0)
			return -errno;
		*ppos += n;
		touch_atime(f);
		return n;
	}
	if (n < 0)
		return n;
	*ppos += n;
	if (from_host) {
		touch_atime(f); /* the host read some of it: its atime moved */
		return n;
	}
	struct inode *inode = f->f_inode;
	struct timespec before, after, mt, ct;
	inode_read_times(inode, &before, &mt, &ct, NULL);
	touch_atime(f);
	inode_read_times(inode, &after, &mt, &ct, NULL);
	if (!atime_equal(&before, &after))
		host_touch(f);
	return n;
}

static ssize_t hostfs_write(struct file *f, const void *buf, size_t len, loff_t *ppos)
{
	struct inode *inode = f->f_inode;
	struct stat st;
	ssize_t n;
	if (!len)
		return 0; /* changes nothing, as Linux's write of nothing */
	int fd = file_fd(f);
	if (fd < 0)
		return fd;
	down_write(&inode->i_rwsem);
	loff_t pos = *ppos;
	if (!iocb_append(f) && (n = host_append_off(f, fd)) != 0)
		goto out;
	if (iocb_append(f)) {
		/* the host's size: another writer of the host file counts */
		if (fstat(fd, &st)) {
			n = -errno;
			goto out;
		}
		pos = st.st_size;
	}
	n = pwrite(fd, buf, len, pos);
	if (n < 0) {
		n = -errno;
		goto out;
	}
	*ppos = pos + n;
	if (!fstat(fd, &st)) {
		hostfs_fill_inode(inode, &st);
		hostfs_pages_write(inode, pos, buf, (size_t)n, st.st_size);
	} else {
		hostfs_pages_write(inode, pos, buf, (size_t)n, -1);
	}
out:
	up_write(&inode->i_rwsem);
	return n;
}

static loff_t hostfs_llseek(struct file *f, loff_t off, int whence)
{
	int fd = file_fd(f);
	if (fd < 0)
		return fd;
	loff_t r = lseek(fd, off, whence);
	return r < 0 ? -errno : r;
}

static int hostfs_fsync(struct file *f)
{
	int fd = file_fd(f);
	if (fd < 0)
		return fd;
	return fsync(fd) ? -errno : 0;
}

static long hostfs_fallocate(struct file *f, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = f->f_inode;
	int fd = file_fd(f);
	if (fd < 0)
		return fd;
	down_write(&inode->i_rwsem);
	long err = fallocate(fd, mode, offset, len) ? -errno : 0;
	/* its modes zero, move or extend ranges: the data is read again */
	hostfs_pages_drop(inode);
	struct stat st;
	if (!err && !fstat(fd, &st))
		hostfs_fill_inode(inode, &st);
	up_write(&inode->i_rwsem);
	return err;
}

/* ftruncate and an O_TRUNC open for writing: the file's own host fd, as
 * the host's ftruncate uses the fd it was given (one opened before chattr +i
 * truncates on the host's tmpfs); truncate(2) and O_RDONLY | O_TRUNC: a
 * writable fd of the object for the call. */
int hostfs_setsize(struct inode *inode, loff_t size, struct file *f)
{
	f = f && (f->f_mode & FMODE_WRITE) ? f : NULL; /* O_RDONLY | O_TRUNC: an fd of its own */
	int fd = f ? file_fd(f) : hostfs_open_node(HOSTFS_SB(inode->i_sb), HN(inode), O_WRONLY);
	if (fd < 0)
		return fd;
	int err = ftruncate(fd, size) ? -errno : 0;
	struct stat st;
	if (!err)
		hostfs_pages_truncate(inode, size);
	if (!err && !fstat(fd, &st))
		hostfs_fill_inode(inode, &st);
	if (!f)
		close(fd);
	return err;
}

/* truncate(2) to the size the file has: nothing moves, but the host's
 * filesystem may drop what lies past the end (tmpfs: the pages fallocate
 * reserved there), and stamps no time, as truncate(2) of that size on the
 * host (an ftruncate would stamp mtime and ctime).  Through the node's own
 * O_PATH fd (hostfs_node.c's confinement). */
int hostfs_truncate_same(struct inode *inode, loff_t size)
{
	struct hostfs_sb *hsb = HOSTFS_SB(inode->i_sb);
	int fd = hostfs_fd_get(hsb, HN(inode));
	if (fd < 0)
		return fd;
	char path[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int err = truncate(path, size) ? -errno : 0;
	hostfs_fd_put(hsb, HN(inode));
	if (!err)
		hostfs_pages_truncate(inode, size);
	return err;
}

struct linux_dirent64_h {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int hostfs_iterate_shared(struct file *f, struct dir_context *ctx)
{
	if (hostfs_dir_listed(f->f_inode))
		return hostfs_dir_iterate(f, ctx);
	int fd = file_fd(f);
	if (fd < 0)
		return fd;
	struct dentry *dir = f->f_path.dentry;
	char buf[8192] __attribute__((aligned(8)));
	for (;;) {
		if (lseek(fd, ctx->pos, SEEK_SET) < 0)
			return -errno;
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			struct linux_dirent64_h *e = (struct linux_dirent64_h *)(buf + off);
			off += e->d_reclen;
			uint64_t ino = e->d_ino;
			int len = (int)strlen(e->d_name);
			if (len == 2 && e->d_name[0] == '.' && e->d_name[1] == '.') {
				urcu_memb_read_lock();
				ino = READ_ONCE(READ_ONCE(dir->d_parent)->d_inode)->i_ino;
				urcu_memb_read_unlock();
			}
			if (!ctx->actor(ctx, e->d_name, len, e->d_off, ino, e->d_type))
				return 0;
			ctx->pos = e->d_off;
		}
	}
}

const struct file_operations hostfs_file_operations = {
	.open = hostfs_open,
	.release = hostfs_release,
	.read = hostfs_read,
	.write = hostfs_write,
	.llseek = hostfs_llseek,
	.fsync = hostfs_fsync,
	.fallocate = hostfs_fallocate,
};

const struct file_operations hostfs_dir_operations = {
	.open = hostfs_open,
	.release = hostfs_release,
	.iterate_shared = hostfs_iterate_shared,
	.fsync = hostfs_fsync,
};
