// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memfd.c - memfd_create(2) and file seals (Linux's mm/memfd.c).
 *
 * A memfd is a regular file of a tmpfs that no path reaches: the instance's
 * vfs->shm_sb (Linux's shm_mnt), mounted through the registry on the first
 * memfd, SB_KERNMOUNT, with no size or inode limit, torn down by
 * uvfs_destroy.  The file is the filesystem's own tmpfile (i_op->tmpfile:
 * no link) behind a pseudo file of that superblock, so everything but a
 * name works on it as on any tmpfs file: read, write, truncate, fallocate,
 * chmod, xattrs, locks.
 *
 * Seals belong to the filesystem (f_op->file_seals: a word per inode, tmpfs's
 * regular files only) and so does their enforcement (tmpfs's write,
 * fallocate and setattr).  This file adds them (F_ADD_SEALS, under the
 * inode's i_rwsem, the lock those checks run under) and reads them
 * (F_GET_SEALS).  Linux's F_SEAL_WRITE also waits for and refuses writable
 * shared mappings; uvfs maps nothing, so there are none.
 */
#include "vfs.h"
#include "filesystems.h"

#define MFD_NAME_MAX_LEN 249 /* NAME_MAX less "memfd:" */
#define MFD_HUGE_MASK (0x3fu << 26)
#define MFD_ALL_FLAGS (MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB | MFD_NOEXEC_SEAL | MFD_EXEC)
#define F_ALL_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE | F_SEAL_EXEC)

/* The instance's internal tmpfs, made on the first memfd. */
static struct super_block *shm_sb(struct uvfs *vfs)
{
	return kern_mount_once(vfs, &vfs->shm_sb, "tmpfs", "shm");
}

/* Linux's memfd_create: the flags' errors, then the name's, then the fd's,
 * then the file's.  MFD_HUGETLB gets ENODEV, as a kernel with no huge page
 * of the size asked for (uvfs has none). */
UVFS_API int uvfs_memfd_create(struct uvfs_proc *p, const char *name, unsigned int flags)
{
	API_ENTER_PROC(p);
	unsigned allowed = (flags & MFD_HUGETLB) ? MFD_ALL_FLAGS | MFD_HUGE_MASK : MFD_ALL_FLAGS;
	if ((flags & ~allowed) || ((flags & MFD_EXEC) && (flags & MFD_NOEXEC_SEAL)))
		API_RETURN(-EINVAL);
	if (!name)
		API_RETURN(-EFAULT);
	if (strnlen(name, MFD_NAME_MAX_LEN + 1) > MFD_NAME_MAX_LEN)
		API_RETURN(-EINVAL);
	int fd = get_unused_fd_flags(p, (flags & MFD_CLOEXEC) ? O_CLOEXEC : 0);
	if (fd < 0)
		API_RETURN(fd);
	int err = -ENODEV;
	if (flags & MFD_HUGETLB)
		goto out_fd;
	struct uvfs *vfs = p->vfs;
	struct super_block *sb = shm_sb(vfs);
	err = -ENOMEM;
	if (!sb)
		goto out_fd;
	/* shmem_get_inode's mode: no umask; the owner is the caller's fsuid and
	 * fsgid (the root directory has no setgid bit or default ACL) */
	struct inode *dir = sb->s_root->d_inode;
	struct inode *inode = NULL;
	umode_t mode = (flags & MFD_NOEXEC_SEAL) ? 0666 : 0777;
	err = dir->i_op->tmpfile(dir, &inode, S_IFREG | mode, current_cred());
	if (err)
		goto out_fd;
	struct file *f = alloc_file_pseudo(vfs, sb, inode, O_RDWR | O_LARGEFILE_KERNEL, inode->i_fop);
	if (!f) {
		err = alloc_file_errno(vfs);
		iput(inode);
		goto out_fd;
	}
	/* positioned I/O and lseek, as memfd_alloc_file's; no O_DIRECT */
	f->f_mode |= FMODE_LSEEK | FMODE_NO_ODIRECT;
	unsigned *seals = f->f_op->file_seals(f);
	if (flags & MFD_NOEXEC_SEAL)
		*seals = F_SEAL_EXEC;
	else if (flags & MFD_ALLOW_SEALING)
		*seals = 0;
	fd_install(p, fd, f);
	API_RETURN(fd);
out_fd:
	put_unused_fd(p, fd);
	API_RETURN(err);
}

static unsigned *file_seals(struct file *f)
{
	return f->f_op->file_seals ? f->f_op->file_seals(f) : NULL;
}

/* fcntl's F_ADD_SEALS and F_GET_SEALS (memfd_fcntl; the argument is an
 * unsigned int there, so its high bits are dropped). */
long memfd_fcntl(struct file *f, unsigned cmd, unsigned arg)
{
	if (cmd == F_GET_SEALS) {
		unsigned *seals = file_seals(f);
		return seals ? (long)__atomic_load_n(seals, __ATOMIC_RELAXED) : -EINVAL;
	}
	/* F_ADD_SEALS: a writable file first, then the bits, then the file */
	if (!(f->f_mode & FMODE_WRITE))
		return -EPERM;
	if (arg & ~(unsigned)F_ALL_SEALS)
		return -EINVAL;
	unsigned *seals = file_seals(f);
	if (!seals)
		return -EINVAL;
	struct inode *inode = f->f_inode;
	long err = 0;
	down_write(&inode->i_rwsem);
	if (*seals & F_SEAL_SEAL) {
		err = -EPERM;
	} else {
		/* exec sealed on an executable file: its contents stay as well */
		if ((arg & F_SEAL_EXEC) && (inode->i_mode & 0111))
			arg |= F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE;
		__atomic_store_n(seals, *seals | arg, __ATOMIC_RELAXED);
	}
	up_write(&inode->i_rwsem);
	return err;
}
