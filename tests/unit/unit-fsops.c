// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-fsops: the boundary operations that no filesystem of the tree uses
 * yet, on a tmpfs directory whose operation table the test replaces.
 *
 *   - i_op->permission: asked for search by the walk (the one-name fast
 *     path declines to RCU mode's general walk, which asks with
 *     MAY_NOT_BLOCK and may be told -ECHILD, then REF mode), and by
 *     inode_permission for open and for a change of the directory; its
 *     answer stands even for root, whom generic_permission lets through.
 *   - i_op->get_link on a tmpfs symlink whose cached body the test takes
 *     away: the walk and readlink ask for it once and cache it again.
 *   - i_op->setattr, the one attribute hook: asked only after the VFS's
 *     checks passed, for chmod, chown, utimensat, ftruncate and the setuid
 *     bit a write drops (with no dentry); its refusal changes nothing.
 */
#include "vfs.h"
#include "check.h"

static int deny_search, deny_write;
static int calls_rcu, calls_ref;

static int test_permission(const struct cred *c, struct inode *inode, int mask)
{
	if (mask & MAY_NOT_BLOCK) {
		calls_rcu++;
		return -ECHILD; /* as a filesystem that must sleep to answer */
	}
	calls_ref++;
	if ((deny_search && (mask & MAY_EXEC)) || (deny_write && (mask & MAY_WRITE)))
		return -EACCES;
	return generic_permission(c, inode, mask);
}

static int link_calls;
static int test_get_link(struct inode *inode, char **body, unsigned *len)
{
	link_calls++;
	*body = strdup("f");
	if (!*body)
		return -ENOMEM;
	*len = 1;
	return 0;
}

static int setattr_calls, setattr_refuse, setattr_with_dentry;
static unsigned setattr_valid;
static const struct inode_operations *setattr_orig;

static int test_setattr(struct dentry *d, struct inode *inode, const struct iattr *ia)
{
	setattr_calls++;
	setattr_valid = ia->ia_valid;
	setattr_with_dentry = d != NULL;
	if (setattr_refuse)
		return -EIO; /* as a filesystem whose store failed */
	return setattr_orig->setattr(d, inode, ia);
}

static struct inode *inode_of(struct uvfs_proc *p, const char *path)
{
	struct path pt;
	if (user_path_at(p, AT_FDCWD, path, 0, &pt))
		return NULL;
	struct inode *inode = pt.dentry->d_inode;
	path_put(&pt);
	return inode;
}

static void test_permission_hook(void)
{
	SECTION("i_op->permission");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	struct stat st;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d", 0755), 0);
	int fd = uvfs_openat(p, AT_FDCWD, "/d/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	struct inode *dir = inode_of(p, "/d");
	CHECK(dir != NULL);
	const struct inode_operations *orig = dir->i_op;
	struct inode_operations ops = *orig;
	ops.permission = test_permission;
	dir->i_op = &ops;
	/* a filesystem sets i_op before the inode is seen, so nothing is cached
	 * from the old table yet: the swap must forget what the walk cached */
	__atomic_store_n(&dir->i_opflags, 0, __ATOMIC_RELAXED);

	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/d/f", &st, 0), 0);
	CHECK(calls_rcu > 0 && calls_ref > 0, "rcu %d ref %d", calls_rcu, calls_ref);
	deny_search = 1;
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "/d/f", &st, 0), EACCES); /* root, whom the mode lets through */
	CHECK_ERR(uvfs_openat(p, AT_FDCWD, "/d/f", O_RDONLY, 0), EACCES);
	CHECK_EQ(uvfs_chdir(p, "/"), 0);
	deny_search = 0;
	CHECK_EQ(uvfs_chdir(p, "/d"), 0);
	deny_search = 1;
	calls_ref = 0;
	/* one name from the cwd: the fast path declines, the walk asks */
	CHECK_ERR(uvfs_fstatat(p, AT_FDCWD, "f", &st, 0), EACCES);
	CHECK(calls_ref > 0);
	deny_search = 0;
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "f", &st, 0), 0);
	/* inode_permission: a change of the directory needs MAY_WRITE */
	deny_write = 1;
	CHECK_ERR(uvfs_mkdirat(p, AT_FDCWD, "/d/x", 0755), EACCES);
	CHECK_ERR(uvfs_unlinkat(p, AT_FDCWD, "/d/f", 0), EACCES);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/d/f", &st, 0), 0);
	/* opening the directory for reading asks it too */
	fd = uvfs_openat(p, AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	deny_write = 0;
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/d/x", 0755), 0);
	CHECK_EQ(uvfs_chdir(p, "/"), 0);
	dir->i_op = orig;
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

static void test_get_link_hook(void)
{
	SECTION("i_op->get_link");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	struct stat st;
	int fd = uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "abc", 3), 3);
	uvfs_close(p, fd);
	CHECK_EQ(uvfs_symlinkat(p, "f", AT_FDCWD, "/l"), 0);
	struct path pt;
	CHECK_EQ(user_path_at(p, AT_FDCWD, "/l", 0, &pt), 0);
	struct inode *link = pt.dentry->d_inode;
	path_put(&pt);
	/* a body the filesystem did not cache: the old one goes after a
	 * grace period (lockless walkers may read it) */
	const struct inode_operations *orig = link->i_op;
	struct inode_operations ops = *orig;
	ops.get_link = test_get_link;
	char *old = (char *)link->i_link;
	link->i_op = &ops;
	WRITE_ONCE(link->i_link, NULL);
	urcu_memb_synchronize_rcu();
	free(old);

	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/l", &st, 0), 0); /* followed */
	CHECK_EQ(st.st_size, 3);
	CHECK_EQ(link_calls, 1);
	char buf[8];
	CHECK_EQ(uvfs_readlinkat(p, AT_FDCWD, "/l", buf, sizeof(buf)), 1);
	CHECK_EQ(buf[0], 'f');
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/l", &st, 0), 0);
	CHECK_EQ(link_calls, 1); /* cached in i_link from the first on */
	/* O_CREAT through it: the open walk reads the body the same way */
	fd = uvfs_openat(p, AT_FDCWD, "/l", O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0);
	uvfs_close(p, fd);
	link->i_op = orig;
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

static void test_setattr_hook(void)
{
	SECTION("i_op->setattr");
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = uvfs_proc_create(fs, 0, 0);
	struct uvfs_proc *u = uvfs_proc_create(fs, 1000, 1000);
	struct stat st, before;
	int fd = uvfs_openat(p, AT_FDCWD, "/f", O_CREAT | O_RDWR, 0666);
	CHECK(fd >= 0);
	CHECK_EQ(uvfs_write(p, fd, "abc", 3), 3);
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/f", 0644, 0), 0);
	struct inode *inode = inode_of(p, "/f");
	CHECK(inode != NULL);
	setattr_orig = inode->i_op;
	CHECK(setattr_orig->setattr != NULL);
	struct inode_operations ops = *setattr_orig;
	ops.setattr = test_setattr;
	inode->i_op = &ops;

	/* the VFS's checks come first: a refused caller never reaches it */
	CHECK_ERR(uvfs_fchmodat(u, AT_FDCWD, "/f", 0600, 0), EPERM);
	CHECK_ERR(uvfs_fchownat(u, AT_FDCWD, "/f", 1000, -1, 0), EPERM);
	CHECK_ERR(uvfs_utimensat(u, AT_FDCWD, "/f", NULL, 0), EACCES);
	CHECK_EQ(setattr_calls, 0);

	/* its refusal is the call's answer, and nothing changed */
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/f", &before, 0), 0);
	setattr_refuse = 1;
	CHECK_ERR(uvfs_fchmodat(p, AT_FDCWD, "/f", 0600, 0), EIO);
	CHECK_ERR(uvfs_fchownat(p, AT_FDCWD, "/f", 1000, 1000, 0), EIO);
	CHECK_ERR(uvfs_ftruncate(p, fd, 0), EIO);
	CHECK_ERR(uvfs_utimensat(p, AT_FDCWD, "/f", NULL, 0), EIO);
	CHECK_EQ(setattr_calls, 4);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/f", &st, 0), 0);
	CHECK_EQ(st.st_mode, before.st_mode);
	CHECK_EQ(st.st_uid, 0);
	CHECK_EQ(st.st_size, 3);
	CHECK_EQ(st.st_ctim.tv_sec, before.st_ctim.tv_sec);
	CHECK_EQ(st.st_ctim.tv_nsec, before.st_ctim.tv_nsec);
	CHECK_EQ(st.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	setattr_refuse = 0;

	/* accepted: the checked change, through the dentry it came by */
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/f", 0600, 0), 0);
	CHECK(setattr_valid & ATTR_MODE);
	CHECK(setattr_valid & ATTR_CTIME);
	CHECK_EQ(setattr_with_dentry, 1);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/f", &st, 0), 0);
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(uvfs_ftruncate(p, fd, 1), 0);
	CHECK(setattr_valid & ATTR_SIZE);
	struct timespec t[2] = { { 100, 0 }, { 200, 0 } };
	CHECK_EQ(uvfs_utimensat(p, AT_FDCWD, "/f", t, 0), 0);
	CHECK(setattr_valid & ATTR_MTIME_SET);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/f", &st, 0), 0);
	CHECK_EQ(st.st_size, 1);
	CHECK_EQ(st.st_mtim.tv_sec, 200);

	/* a write without CAP_FSETID drops setuid through it too */
	CHECK_EQ(uvfs_fchmodat(p, AT_FDCWD, "/f", 04666, 0), 0);
	int calls = setattr_calls;
	int ufd = uvfs_openat(u, AT_FDCWD, "/f", O_WRONLY, 0);
	CHECK(ufd >= 0);
	CHECK_EQ(uvfs_write(u, ufd, "x", 1), 1);
	CHECK_EQ(setattr_calls, calls + 1);
	CHECK(setattr_valid & ATTR_MODE);
	CHECK_EQ(setattr_with_dentry, 0);
	CHECK_EQ(uvfs_fstatat(p, AT_FDCWD, "/f", &st, 0), 0);
	CHECK_EQ(st.st_mode & 07777, 0666);
	uvfs_close(u, ufd);

	uvfs_close(p, fd);
	inode->i_op = setattr_orig;
	uvfs_proc_destroy(u);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_permission_hook();
	test_get_link_hook();
	test_setattr_hook();
	return check_done();
}
