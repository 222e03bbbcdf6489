// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostfs_xattr.c - extended attributes passed through to the host object.
 *
 * An O_PATH fd refuses the f*xattr calls, so they take the path form on
 * /proc/self/fd/N of the node's own O_PATH fd: that magic link names the
 * inode the fd holds and nothing else, for every file type (a symlink
 * too: the link of an O_PATH|O_NOFOLLOW fd lands on the symlink, and the
 * host answers user.* on it with EPERM as Linux does).  The VFS has checked
 * the name, the size and permission; the host adds its own refusals.
 */
#include "hostfs.h"
#include <sys/xattr.h>
#include <sys/syscall.h>
#include "core/xattr.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

static int node_path(struct inode *inode, char *path, size_t n)
{
	int fd = hostfs_fd_get(HOSTFS_SB(inode->i_sb), HN(inode));
	if (fd >= 0)
		snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

static void node_done(struct inode *inode)
{
	hostfs_fd_put(HOSTFS_SB(inode->i_sb), HN(inode));
}

/*
 * Names known absent (cache=exclusive).  The kernel asks a FUSE server for
 * security.capability at the first write to a file and at each chown
 * (file_remove_privs, notify_change: twice per file of a tar -x), and ls
 * asks for security.selinux per entry; the host's answer is nearly always
 * ENODATA, and each question costs a host getxattr through /proc.  uvfs
 * being the host object's only writer, an ENODATA stays true until uvfs
 * sets a value (a host kernel only ever removes a capability, at a write
 * or chown), and an object uvfs makes has no capability.  A set or removal
 * bumps the generation before and after its host call, and a getxattr
 * records ENODATA only if the generation it read before its host call is
 * still there, so a record never outlives a value set meanwhile.
 */
static const char *const absent_names[] = { "security.capability", "security.selinux" };
#define ABSENT_CAPS 0 /* the index of security.capability */
#define ABSENT_BITS 8u
#define ABSENT_MASK ((1u << ABSENT_BITS) - 1)

static int absent_index(const char *name)
{
	for (size_t i = 0; i < sizeof(absent_names) / sizeof(absent_names[0]); i++)
		if (!strcmp(name, absent_names[i]))
			return (int)i;
	return -1;
}

static bool absent_cached(struct inode *inode)
{
	return HOSTFS_SB(inode->i_sb)->cache == HOSTFS_CACHE_EXCLUSIVE;
}

static void absent_forget(struct inode *inode)
{
	unsigned *w = &HOSTFS_I(inode)->xattr_absent;
	unsigned old = __atomic_load_n(w, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(w, &old, (old & ~ABSENT_MASK) + (1u << ABSENT_BITS), true,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		;
}

void hostfs_xattr_new(struct inode *inode)
{
	if (absent_cached(inode))
		__atomic_fetch_or(&HOSTFS_I(inode)->xattr_absent, 1u << ABSENT_CAPS, __ATOMIC_RELEASE);
}

ssize_t hostfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size)
{
	int known = absent_cached(inode) ? absent_index(name) : -1;
	unsigned *w = &HOSTFS_I(inode)->xattr_absent;
	unsigned gen = 0;
	if (known >= 0) {
		gen = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		if (gen & (1u << known))
			return -ENODATA;
	}
	char path[32];
	int fd = node_path(inode, path, sizeof(path));
	if (fd < 0)
		return fd;
	ssize_t n = getxattr(path, name, buf, size);
	if (n < 0)
		n = -errno;
	node_done(inode);
	if (n == -ENODATA && known >= 0) {
		/* recorded only while no set or removal went by */
		unsigned cur = gen;
		while ((cur & ~ABSENT_MASK) == (gen & ~ABSENT_MASK) &&
		       !__atomic_compare_exchange_n(w, &cur, cur | (1u << known), true, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE))
			;
	}
	return n == -ENODATA ? -ENODATA : n;
}

int hostfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags)
{
	char path[32];
	int fd = node_path(inode, path, sizeof(path));
	if (fd < 0)
		return fd;
	absent_forget(inode);
	int r = value ? setxattr(path, name, value, size, flags) : removexattr(path, name);
	int err = r ? -errno : 0;
	absent_forget(inode);
	node_done(inode);
	if (!err)
		hostfs_refresh(inode); /* ctime */
	return err;
}

/* The host's list, without trusted.* unless the caller may see them. */
ssize_t hostfs_listxattr(struct inode *inode, char *buf, size_t size, bool trusted)
{
	char path[32];
	int fd = node_path(inode, path, sizeof(path));
	if (fd < 0)
		return fd;
	ssize_t n = listxattr(path, NULL, 0);
	char *all = NULL;
	while (n > 0) {
		free(all);
		all = malloc((size_t)n);
		if (!all) {
			n = -ENOMEM;
			break;
		}
		ssize_t m = listxattr(path, all, (size_t)n);
		if (m >= 0) {
			n = m;
			break;
		}
		n = errno == ERANGE ? listxattr(path, NULL, 0) : -errno;
	}
	if (n < 0 && n != -ENOMEM)
		n = -errno;
	node_done(inode);
	if (n <= 0) {
		free(all);
		return n;
	}
	size_t out = 0;
	for (ssize_t i = 0; i < n;) {
		size_t len = strlen(all + i) + 1;
		bool keep = trusted || strncmp(all + i, "trusted.", 8);
		/* the VFS lists the ACLs itself (posix_acl.c) */
		if (!strncmp(all + i, "system.posix_acl_", 17))
			keep = false;
		if (keep) {
			if (size) {
				if (out + len > size) {
					free(all);
					return -ERANGE;
				}
				memcpy(buf + out, all + i, len);
			}
			out += len;
		}
		i += (ssize_t)len;
	}
	free(all);
	return (ssize_t)out;
}

/* ACLs live in the host's system.posix_acl_* xattrs: the host applies them
 * to its own objects (and to what is made below a default ACL); uvfs's
 * checks read the copy in the inode, loaded when the inode is made. */
static const char *acl_name(int type)
{
	return type == ACL_TYPE_ACCESS ? XATTR_NAME_POSIX_ACL_ACCESS : XATTR_NAME_POSIX_ACL_DEFAULT;
}

void hostfs_load_acls(struct inode *inode, int fd)
{
	if (S_ISLNK(READ_ONCE(inode->i_mode)))
		return;
	char path[32], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (int i = 0; i < 2; i++) {
		int type = i ? ACL_TYPE_DEFAULT : ACL_TYPE_ACCESS;
		if (type == ACL_TYPE_DEFAULT && !S_ISDIR(READ_ONCE(inode->i_mode)))
			break;
		ssize_t n = getxattr(path, acl_name(type), buf, sizeof(buf));
		struct posix_acl *acl;
		if (n > 0 && !posix_acl_from_xattr(buf, (size_t)n, &acl))
			*acl_slot(inode, type) = acl; /* not yet seen by anyone */
	}
}

int hostfs_set_acl(struct inode *inode, int type, struct posix_acl *acl, umode_t mode)
{
	char path[32];
	int fd = node_path(inode, path, sizeof(path));
	if (fd < 0)
		return fd;
	int err = 0;
	if (acl) {
		size_t n = posix_acl_to_xattr(acl, NULL, 0);
		void *buf = malloc(n);
		if (!buf)
			err = -ENOMEM;
		else {
			posix_acl_to_xattr(acl, buf, n);
			err = setxattr(path, acl_name(type), buf, n, 0) ? -errno : 0;
			free(buf);
		}
	} else if (removexattr(path, acl_name(type)) && errno != ENODATA) {
		err = -errno;
	}
	struct stat st;
	/* the host set its own mode from the ACL; uvfs's rules (setgid) win */
	if (!err && type == ACL_TYPE_ACCESS && !fstat(fd, &st) && (st.st_mode & S_IALLUGO) != (mode & S_IALLUGO) &&
	    syscall(SYS_fchmodat2, fd, "", mode & S_IALLUGO, AT_EMPTY_PATH))
		err = -errno;
	node_done(inode);
	if (err)
		return err;
	simple_set_acl(inode, type, acl, mode);
	return 0;
}
