// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fhandle.c - name_to_handle_at(2) and open_by_handle_at(2).
 *
 * A handle names an inode by its number and generation within its
 * superblock, in tmpfs's layout (Linux's shmem_encode_fh: type 1, three
 * 32-bit words: the generation, then the inode number's low and high
 * halves).  uvfs never reuses an inode number within an instance, so the
 * generation is 0: a handle whose generation is not 0 names nothing.
 *
 * A superblock with SB_EXPORT (tmpfs) keeps every inode that has a name in
 * its dentry tree, so a handle is decoded by looking for the number there,
 * each directory's children under its i_rwsem (shared), parents before
 * children as every walk takes them.  That costs a walk of the tree per
 * decode and nothing at all on create and unlink, which keep no map of
 * numbers (decoding is rare; creating and unlinking are not).  An inode with
 * no name left (unlinked, still open) is not found: ESTALE, where Linux's
 * tmpfs finds it in its inode cache and opens it.
 *
 * A filesystem with handles of its own (super_operations encode_fh and
 * fh_to_ino: hostfs, the host's) makes and decodes the bytes itself; the
 * inode it names is then looked for in the dentry tree the same way.
 */
#include "vfs.h"
#include "api.h"
#include <fcntl.h>

#define FH_MAX_BYTES 128 /* Linux's MAX_HANDLE_SZ */
#define FH_TYPE      1   /* FILEID_INO32_GEN, as shmem answers */
#define FH_INVALID   255 /* FILEID_INVALID: the type an EOVERFLOW answer carries */
#define FH_BYTES     12
/* the flags a handle's type may carry (FILEID_IS_CONNECTABLE, FILEID_IS_DIR) */
#define FH_USER_FLAGS      0xffff0000u
#define FH_VALID_USER_FLAGS 0x00030000u

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif

/* As statx's STATX_MNT_ID (stat.c): uvfs has no mount table with ids. */
static int fh_mount_id(const struct mount *m)
{
	return (int)(((uintptr_t)m >> 6) & 0x7fffffff);
}

/*
 * name_to_handle_at: EINVAL (flags); the walk's; EOPNOTSUPP (a filesystem
 * without handles, unless AT_HANDLE_FID); EFAULT (no handle); EINVAL
 * (handle_bytes above 128); EOVERFLOW with handle_bytes set to the size
 * needed (and the mount id stored); EFAULT (no mount_id).
 */
UVFS_API int uvfs_name_to_handle_at(struct uvfs_proc *p, int dfd, const char *pathname,
				    struct file_handle *handle, int *mount_id, int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH | AT_HANDLE_FID))
		API_RETURN(-EINVAL);
	unsigned lf = (flags & AT_SYMLINK_FOLLOW ? LOOKUP_FOLLOW : 0) | (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	if (!pathname && (flags & AT_EMPTY_PATH))
		pathname = "";
	struct filename name;
	int err = getname(pathname, &name, lf);
	if (err)
		API_RETURN(err);
	struct path path;
	err = filename_lookup(p, dfd, &name, lf, &path);
	if (err)
		API_RETURN(err);
	struct inode *inode = path.dentry->d_inode;
	const struct super_operations *op = inode->i_sb->s_op;
	unsigned n = handle ? handle->handle_bytes : 0;
	int t;
	if (!(READ_ONCE(inode->i_sb->s_flags) & SB_EXPORT) && !op->encode_fh && !(flags & AT_HANDLE_FID))
		err = -EOPNOTSUPP;
	else if (!handle)
		err = -EFAULT;
	else if (handle->handle_bytes > FH_MAX_BYTES)
		err = -EINVAL;
	else if (op->encode_fh && (t = op->encode_fh(inode, handle->f_handle, &n)) != -EOPNOTSUPP) {
		if (t == -EOVERFLOW) {
			handle->handle_bytes = n;
			handle->handle_type = FH_INVALID;
		} else if (t >= 0) {
			handle->handle_bytes = n;
			handle->handle_type = t;
		}
		err = t < 0 ? t : 0;
	} else if (op->encode_fh && !(READ_ONCE(inode->i_sb->s_flags) & SB_EXPORT) && !(flags & AT_HANDLE_FID)) {
		err = -EOPNOTSUPP; /* the filesystem makes none now (hostfs not as root) */
	} else if (handle->handle_bytes < FH_BYTES) {
		handle->handle_bytes = FH_BYTES;
		handle->handle_type = FH_INVALID;
		err = -EOVERFLOW;
	} else {
		uint32_t w[3] = { 0, (uint32_t)inode->i_ino, (uint32_t)((uint64_t)inode->i_ino >> 32) };
		memcpy(handle->f_handle, w, sizeof(w));
		handle->handle_bytes = FH_BYTES;
		handle->handle_type = FH_TYPE;
	}
	if (err == 0 || err == -EOVERFLOW) {
		if (mount_id)
			*mount_id = fh_mount_id(path.mnt);
		else
			err = -EFAULT;
	}
	path_put(&path);
	API_RETURN(err);
}

/* The dentry of inode number ino below dir (a reference), or NULL. */
static struct dentry *find_ino(struct dentry *dir, uint64_t ino)
{
	struct inode *di = dir->d_inode;
	struct dentry *found = NULL;
	struct list_head *pos;

	down_read(&di->i_rwsem);
	list_for_each(pos, &dir->d_subdirs) {
		struct dentry *c = list_entry(pos, struct dentry, d_child);
		struct inode *ci = READ_ONCE(c->d_inode);

		if (!ci || d_unhashed(c))
			continue;
		if (ci->i_ino == ino) {
			if (dget_not_dead(c))
				found = c;
			break;
		}
		if (S_ISDIR(READ_ONCE(ci->i_mode)) && (found = find_ino(c, ino)))
			break;
	}
	up_read(&di->i_rwsem);
	return found;
}

/* The dentry a handle names on sb, or NULL with *errp. */
static struct dentry *fh_decode(struct super_block *sb, const struct file_handle *h, int *errp)
{
	uint32_t w[3];
	uint64_t ino;

	*errp = -ESTALE;
	if (sb->s_op->fh_to_ino) {
		*errp = sb->s_op->fh_to_ino(sb, h->f_handle, h->handle_bytes, h->handle_type, &ino);
		if (*errp)
			return NULL;
		*errp = -ESTALE;
	} else {
		if (h->handle_bytes < FH_BYTES)
			return NULL;
		memcpy(w, h->f_handle, sizeof(w));
		if (w[0] != 0) /* the generation: see the top */
			return NULL;
		ino = w[1] | (uint64_t)w[2] << 32;
	}
	struct dentry *root = sb->s_root;
	if (root->d_inode->i_ino == ino)
		return dget(root);
	return find_ino(root, ino);
}

/*
 * open_by_handle_at: EBADF (mount_fd); EFAULT (no handle); EINVAL
 * (handle_bytes 0 or above 128, a negative type or unknown type flags);
 * EPERM without privilege (Linux's CAP_DAC_READ_SEARCH: fsuid 0 here);
 * ESTALE (a filesystem without handles, a handle too short, a generation
 * that is not the inode's, no such inode); EEXIST for O_CREAT|O_EXCL; then
 * the open's (ENOTDIR for O_DIRECTORY, the permission check, ...).
 */
UVFS_API int uvfs_open_by_handle_at(struct uvfs_proc *p, int mount_fd, struct file_handle *handle, int flags)
{
	API_ENTER_PROC(p);
	/* Linux's handle_to_path: the handle's header, then the mount fd (an
	 * O_PATH fd is EBADF there: fdget), then the permission */
	if (!handle)
		API_RETURN(-EFAULT);
	if (handle->handle_bytes == 0 || handle->handle_bytes > FH_MAX_BYTES || handle->handle_type < 0 ||
	    ((unsigned)handle->handle_type & FH_USER_FLAGS & ~FH_VALID_USER_FLAGS))
		API_RETURN(-EINVAL);
	struct path mp;
	if (mount_fd == AT_FDCWD) {
		pthread_mutex_lock(&p->fs->lock);
		mp = p->fs->pwd;
		path_get(&mp);
		pthread_mutex_unlock(&p->fs->lock);
	} else {
		struct file *f = fget(p, mount_fd);
		if (!f)
			API_RETURN(-EBADF);
		mp = f->f_path;
		path_get(&mp);
		fput(f);
	}
	int err = 0;
	if (!cred_is_root(current_cred())) {
		path_put(&mp);
		API_RETURN(-EPERM);
	}
	/* a pseudo file (a pipe, a memfd) has no mount: its superblock */
	struct super_block *sb = mp.dentry->d_sb;
	err = -ESTALE;
	struct dentry *d = (READ_ONCE(sb->s_flags) & SB_EXPORT) || sb->s_op->fh_to_ino ? fh_decode(sb, handle, &err) :
											 NULL;
	if (!d) {
		path_put(&mp);
		API_RETURN(err);
	}
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		dput(d);
		path_put(&mp);
		API_RETURN(-EEXIST);
	}
	struct path path = { mp.mnt, d };
	path_get(&path);
	dput(d);
	path_put(&mp);
	/* a symlink's handle opens only as O_PATH: ELOOP before O_DIRECTORY's
	 * ENOTDIR (a reopen by fd, as /proc's, gives ENOTDIR first) */
	if (S_ISLNK(READ_ONCE(path.dentry->d_inode->i_mode)) && !(flags & O_PATH)) {
		path_put(&path);
		API_RETURN(-ELOOP);
	}
	API_RETURN(open_path_fd(p, &path, flags));
}
