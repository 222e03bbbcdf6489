// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_acl.c - POSIX ACLs as tmpfs has them (Linux's fs/posix_acl.c):
 * system.posix_acl_access and system.posix_acl_default in Linux's xattr
 * format (a little-endian version 2 header, then 8-byte entries), the
 * permission check, chmod and inheritance at create.
 *
 * An ACL is immutable once made and hangs off the inode (i_acl,
 * i_default_acl); a change makes a new one, stores it under the inode's
 * i_rwsem and frees the old one after a grace period, so the permission
 * check (which may run inside the RCU walk) reads without a lock.
 */
#include "xattr.h"
#include "pathcache.h"
#include <endian.h>

#define ACL_XATTR_VERSION 2
#define ACL_XATTR_HEADER 4
#define ACL_XATTR_ENTRY 8

static struct posix_acl *acl_alloc(unsigned count)
{
	struct posix_acl *acl = malloc(sizeof(*acl) + count * sizeof(acl->a_entries[0]));
	if (acl)
		acl->a_count = count;
	return acl;
}

struct posix_acl *posix_acl_dup(const struct posix_acl *acl)
{
	struct posix_acl *n = acl_alloc(acl->a_count);
	if (n)
		memcpy(n->a_entries, acl->a_entries, acl->a_count * sizeof(acl->a_entries[0]));
	return n;
}

static void acl_free_rcu(struct rcu_head *h)
{
	free(container_of(h, struct posix_acl, a_rcu));
}

static void acl_free_deferred(struct posix_acl *acl)
{
	if (acl)
		urcu_memb_call_rcu(&acl->a_rcu, acl_free_rcu);
}

void __posix_acl_free_inode(struct inode *inode)
{
	free(inode->i_acl);
	free(inode->i_default_acl);
}

/* ---- the permission check ---- */

/* The mask entry limits every entry of the group class. */
static unsigned acl_mask_perm(const struct posix_acl *acl)
{
	for (unsigned i = acl->a_count; i-- > 0;)
		if (acl->a_entries[i].e_tag == ACL_MASK)
			return acl->a_entries[i].e_perm;
	return 7;
}

static int granted(unsigned perm, unsigned want)
{
	return (perm & want) == want ? 0 : -EACCES;
}

/* Whether some group-class entry, were the caller in its group, would make
 * the answer a refusal (a caller with groups_unknown in no known group). */
static bool group_may_refuse(const struct posix_acl *acl, unsigned mask, unsigned want)
{
	for (unsigned i = 0; i < acl->a_count; i++) {
		const struct posix_acl_entry *pe = &acl->a_entries[i];
		if ((pe->e_tag == ACL_GROUP_OBJ || pe->e_tag == ACL_GROUP) && granted(pe->e_perm & mask, want))
			return true;
	}
	return false;
}

/*
 * Linux's posix_acl_permission for a caller who is not the owner (the mode's
 * owner bits, which the ACL's user entry equals, decide for the owner): a
 * named user entry decides alone, through the mask; of the group class, the
 * first matching entry that grants all of want decides, through the mask;
 * a caller in some group that none of them grants is refused; other decides
 * the rest.
 */
static int acl_permission(const struct cred *c, const struct inode *inode, const struct posix_acl *acl,
			  unsigned want)
{
	unsigned mask = acl_mask_perm(acl);
	bool in_a_group = false;
	for (unsigned i = 0; i < acl->a_count; i++) {
		const struct posix_acl_entry *pe = &acl->a_entries[i];
		switch (pe->e_tag) {
		case ACL_USER_OBJ:
			if (c->fsuid == READ_ONCE(inode->i_uid))
				return granted(pe->e_perm, want);
			break;
		case ACL_USER:
			if (c->fsuid == pe->e_id)
				return granted(pe->e_perm & mask, want);
			break;
		case ACL_GROUP_OBJ:
		case ACL_GROUP: {
			gid_t gid = pe->e_tag == ACL_GROUP ? pe->e_id : READ_ONCE(inode->i_gid);
			if (in_group_p(c, gid)) {
				in_a_group = true;
				if ((pe->e_perm & want) == want)
					return granted(pe->e_perm & mask, want);
			}
			break;
		}
		case ACL_MASK:
			break;
		case ACL_OTHER:
			if (in_a_group)
				return -EACCES;
			if (unlikely(c->groups_unknown) && !cred_is_root(c) && !granted(pe->e_perm, want) &&
			    group_may_refuse(acl, mask, want))
				return -EACCES; /* the caller may be in that group */
			return granted(pe->e_perm, want);
		}
	}
	return -EIO;
}

int check_acl(const struct cred *c, struct inode *inode, int mask)
{
	urcu_memb_read_lock();
	const struct posix_acl *acl = smp_load_acquire(&inode->i_acl);
	int r = acl ? acl_permission(c, inode, acl, (unsigned)mask & (MAY_READ | MAY_WRITE | MAY_EXEC)) : -EAGAIN;
	urcu_memb_read_unlock();
	return r;
}

/* ---- mode and ACL ---- */

/* Linux's posix_acl_equiv_mode: the mode the ACL implies, and whether the
 * ACL says more than a mode can (a named entry or a mask). */
static bool acl_equiv_mode(const struct posix_acl *acl, umode_t *mode_p)
{
	umode_t mode = 0;
	bool more = false;
	for (unsigned i = 0; i < acl->a_count; i++) {
		const struct posix_acl_entry *pe = &acl->a_entries[i];
		switch (pe->e_tag) {
		case ACL_USER_OBJ:
			mode |= (umode_t)(pe->e_perm & 7) << 6;
			break;
		case ACL_GROUP_OBJ:
			mode |= (umode_t)(pe->e_perm & 7) << 3;
			break;
		case ACL_OTHER:
			mode |= pe->e_perm & 7;
			break;
		case ACL_MASK:
			mode = (mode & ~(umode_t)S_IRWXG) | (umode_t)(pe->e_perm & 7) << 3;
			more = true;
			break;
		default:
			more = true;
			break;
		}
	}
	*mode_p = (*mode_p & ~(umode_t)S_IRWXUGO) | mode;
	return more;
}

/* Linux's posix_acl_create_masq: the inherited ACL and the requested mode
 * limit each other; the group class goes through the mask if there is one. */
static bool acl_create_masq(struct posix_acl *acl, umode_t *mode_p)
{
	umode_t mode = *mode_p;
	struct posix_acl_entry *group_obj = NULL, *mask_obj = NULL;
	bool more = false;
	for (unsigned i = 0; i < acl->a_count; i++) {
		struct posix_acl_entry *pe = &acl->a_entries[i];
		switch (pe->e_tag) {
		case ACL_USER_OBJ:
			pe->e_perm &= (mode >> 6) & 7;
			mode &= (umode_t)(pe->e_perm << 6) | ~(umode_t)S_IRWXU;
			break;
		case ACL_USER:
		case ACL_GROUP:
			more = true;
			break;
		case ACL_GROUP_OBJ:
			group_obj = pe;
			break;
		case ACL_OTHER:
			pe->e_perm &= mode & 7;
			mode &= (umode_t)pe->e_perm | ~(umode_t)S_IRWXO;
			break;
		case ACL_MASK:
			mask_obj = pe;
			more = true;
			break;
		}
	}
	struct posix_acl_entry *g = mask_obj ? mask_obj : group_obj;
	if (g) {
		g->e_perm &= (mode >> 3) & 7;
		mode &= (umode_t)(g->e_perm << 3) | ~(umode_t)S_IRWXG;
	}
	*mode_p = (*mode_p & ~(umode_t)S_IRWXUGO) | (mode & S_IRWXUGO);
	return more;
}

/* Linux's __posix_acl_chmod: the mode's classes become the owner, mask (or
 * owning group) and other entries. */
static void acl_apply_mode(struct posix_acl *acl, umode_t mode)
{
	struct posix_acl_entry *group_obj = NULL, *mask_obj = NULL;
	for (unsigned i = 0; i < acl->a_count; i++) {
		struct posix_acl_entry *pe = &acl->a_entries[i];
		switch (pe->e_tag) {
		case ACL_USER_OBJ:
			pe->e_perm = (mode >> 6) & 7;
			break;
		case ACL_GROUP_OBJ:
			group_obj = pe;
			break;
		case ACL_MASK:
			mask_obj = pe;
			break;
		case ACL_OTHER:
			pe->e_perm = mode & 7;
			break;
		}
	}
	struct posix_acl_entry *g = mask_obj ? mask_obj : group_obj;
	if (g)
		g->e_perm = (mode >> 3) & 7;
}

int posix_acl_chmod_prepare(struct inode *inode, umode_t mode, struct posix_acl **out)
{
	*out = NULL;
	if (!inode->i_acl)
		return 0;
	struct posix_acl *acl = posix_acl_dup(inode->i_acl);
	if (!acl)
		return -ENOMEM;
	acl_apply_mode(acl, mode);
	*out = acl;
	return 0;
}

void posix_acl_chmod_commit(struct inode *inode, struct posix_acl *acl)
{
	if (!acl)
		return;
	struct posix_acl *old = inode->i_acl;
	smp_store_release(&inode->i_acl, acl);
	acl_free_deferred(old);
}

int __posix_acl_create(struct inode *dir, struct inode *inode)
{
	if (S_ISLNK(READ_ONCE(inode->i_mode)))
		return 0;
	/* O_TMPFILE does not hold the directory's i_rwsem: the default ACL
	 * may be replaced meanwhile, and is only kept alive by RCU */
	struct posix_acl *acl = NULL, *dacl = NULL;
	urcu_memb_read_lock();
	const struct posix_acl *def = smp_load_acquire(&dir->i_default_acl);
	if (def) {
		acl = posix_acl_dup(def);
		if (S_ISDIR(READ_ONCE(inode->i_mode)))
			dacl = posix_acl_dup(def);
	}
	urcu_memb_read_unlock();
	if (!def)
		return 0;
	if (!acl || (S_ISDIR(READ_ONCE(inode->i_mode)) && !dacl)) {
		free(acl);
		free(dacl);
		return -ENOMEM;
	}
	umode_t mode = inode->i_mode;
	if (!acl_create_masq(acl, &mode)) {
		free(acl);
		acl = NULL;
	}
	inode->i_mode = mode;
	inode->i_acl = acl;
	inode->i_default_acl = dacl;
	return 0;
}

int simple_set_acl(struct inode *inode, int type, struct posix_acl *acl, umode_t mode)
{
	struct posix_acl **slot = acl_slot(inode, type);
	struct posix_acl *old = *slot;
	pathcache_perm_change(inode);
	if (type == ACL_TYPE_ACCESS && mode != inode->i_mode)
		WRITE_ONCE(inode->i_mode, mode);
	smp_store_release(slot, acl);
	if (type == ACL_TYPE_ACCESS)
		inode_fastperm_changed(inode);
	pathcache_perm_change(inode);
	inode_touch_c(inode);
	acl_free_deferred(old);
	return 0;
}

/* ---- the xattr format ---- */

bool is_posix_acl_xattr(const char *name)
{
	return !strcmp(name, XATTR_NAME_POSIX_ACL_ACCESS) || !strcmp(name, XATTR_NAME_POSIX_ACL_DEFAULT);
}

static int acl_type(const char *name)
{
	return !strcmp(name, XATTR_NAME_POSIX_ACL_ACCESS) ? ACL_TYPE_ACCESS : ACL_TYPE_DEFAULT;
}

/* Linux's posix_acl_from_xattr: EINVAL for a size that is not a header and
 * whole entries, an unknown tag or a named entry without an id (-1);
 * EOPNOTSUPP for another version.  No entries: *out NULL (no ACL). */
static int acl_from_xattr(const void *value, size_t size, struct posix_acl **out)
{
	*out = NULL;
	if (size < ACL_XATTR_HEADER)
		return -EINVAL;
	const unsigned char *v = value;
	uint32_t version;
	memcpy(&version, v, 4);
	if (le32toh(version) != ACL_XATTR_VERSION)
		return -EOPNOTSUPP;
	if ((size - ACL_XATTR_HEADER) % ACL_XATTR_ENTRY)
		return -EINVAL;
	unsigned count = (unsigned)((size - ACL_XATTR_HEADER) / ACL_XATTR_ENTRY);
	if (!count)
		return 0;
	struct posix_acl *acl = acl_alloc(count);
	if (!acl)
		return -ENOMEM;
	for (unsigned i = 0; i < count; i++) {
		const unsigned char *e = v + ACL_XATTR_HEADER + i * ACL_XATTR_ENTRY;
		uint16_t tag, perm;
		uint32_t id;
		memcpy(&tag, e, 2);
		memcpy(&perm, e + 2, 2);
		memcpy(&id, e + 4, 4);
		struct posix_acl_entry *pe = &acl->a_entries[i];
		pe->e_tag = le16toh(tag);
		pe->e_perm = le16toh(perm);
		pe->e_id = ACL_UNDEFINED_ID;
		switch (pe->e_tag) {
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			break;
		case ACL_USER:
		case ACL_GROUP:
			pe->e_id = le32toh(id);
			if (pe->e_id == ACL_UNDEFINED_ID)
				goto invalid;
			break;
		default:
			goto invalid;
		}
	}
	*out = acl;
	return 0;
invalid:
	free(acl);
	return -EINVAL;
}

/* Linux's posix_acl_valid: one owner, named users, one owning group, named
 * groups, a mask (required with any named entry), one other, in that
 * order; permissions within rwx.  Ids may repeat and come in any order. */
static int acl_valid(const struct posix_acl *acl)
{
	enum { S_UO, S_U, S_G, S_O, S_DONE } state = S_UO;
	bool needs_mask = false;
	for (unsigned i = 0; i < acl->a_count; i++) {
		const struct posix_acl_entry *pe = &acl->a_entries[i];
		if (pe->e_perm & ~7u)
			return -EINVAL;
		switch (pe->e_tag) {
		case ACL_USER_OBJ:
			if (state != S_UO)
				return -EINVAL;
			state = S_U;
			break;
		case ACL_USER:
			if (state != S_U)
				return -EINVAL;
			needs_mask = true;
			break;
		case ACL_GROUP_OBJ:
			if (state != S_U)
				return -EINVAL;
			state = S_G;
			break;
		case ACL_GROUP:
			if (state != S_G)
				return -EINVAL;
			needs_mask = true;
			break;
		case ACL_MASK:
			if (state != S_G)
				return -EINVAL;
			state = S_O;
			break;
		case ACL_OTHER:
			if (state == S_O || (state == S_G && !needs_mask)) {
				state = S_DONE;
				break;
			}
			return -EINVAL;
		default:
			return -EINVAL;
		}
	}
	return state == S_DONE ? 0 : -EINVAL;
}

static size_t acl_xattr_size(const struct posix_acl *acl)
{
	return ACL_XATTR_HEADER + (size_t)acl->a_count * ACL_XATTR_ENTRY;
}

static void acl_to_xattr(const struct posix_acl *acl, unsigned char *buf)
{
	uint32_t version = htole32(ACL_XATTR_VERSION);
	memcpy(buf, &version, 4);
	for (unsigned i = 0; i < acl->a_count; i++) {
		const struct posix_acl_entry *pe = &acl->a_entries[i];
		unsigned char *e = buf + ACL_XATTR_HEADER + i * ACL_XATTR_ENTRY;
		uint16_t tag = htole16(pe->e_tag), perm = htole16(pe->e_perm);
		uint32_t id = htole32(pe->e_id);
		memcpy(e, &tag, 2);
		memcpy(e + 2, &perm, 2);
		memcpy(e + 4, &id, 4);
	}
}

/* Linux's vfs_get_acl through getxattr: no permission needed; EOPNOTSUPP
 * where the filesystem keeps none (tmpfs symlinks), ENODATA for none. */
ssize_t posix_acl_xattr_get(struct inode *inode, const char *name, void *buf, size_t size)
{
	if (!inode->i_op->set_acl)
		return -EOPNOTSUPP;
	ssize_t r;
	urcu_memb_read_lock();
	const struct posix_acl *acl = smp_load_acquire(acl_slot(inode, acl_type(name)));
	if (!acl) {
		r = -ENODATA;
	} else {
		r = (ssize_t)acl_xattr_size(acl);
		if (size && (size_t)r > size)
			r = -ERANGE;
		else if (size)
			acl_to_xattr(acl, buf);
	}
	urcu_memb_read_unlock();
	return r;
}

/*
 * Linux's do_set_acl, vfs_set_acl and set_posix_acl: the value is parsed
 * first (its format: posix_acl_from_xattr); then no change to an immutable
 * or append-only inode (EPERM), an inode without ACLs (EOPNOTSUPP); a
 * default ACL is for directories only (EACCES, though removing none is
 * fine); only the owner or root may change an ACL (EPERM); and only then
 * are the entries checked (posix_acl_valid: EINVAL).  An access ACL that
 * a mode says as well is not stored: the mode alone says it.  value NULL
 * or no entries: no ACL.  XATTR_CREATE and XATTR_REPLACE do not apply.
 */
int posix_acl_xattr_set(const struct cred *c, struct inode *inode, const char *name, const void *value,
			size_t size, unsigned *ia_valid)
{
	int type = acl_type(name);
	struct posix_acl *acl = NULL;
	int err = 0;
	if (value && size) {
		err = acl_from_xattr(value, size, &acl);
		if (err)
			goto out;
	}
	down_write(&inode->i_rwsem);
	/* may_write_xattr, then set_posix_acl's checks in its order */
	if (IS_IMMUTABLE(inode) || IS_APPEND(inode)) {
		err = -EPERM;
		goto unlock;
	}
	if (!inode->i_op->set_acl) {
		err = -EOPNOTSUPP;
		goto unlock;
	}
	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(READ_ONCE(inode->i_mode))) {
		err = acl ? -EACCES : 0;
		goto unlock;
	}
	if (!inode_owner_or_capable(c, inode)) {
		err = -EPERM;
		goto unlock;
	}
	if (acl && (err = acl_valid(acl)) != 0)
		goto unlock;
	umode_t old_mode = inode->i_mode, mode = old_mode;
	if (type == ACL_TYPE_ACCESS && acl) {
		if (!acl_equiv_mode(acl, &mode)) {
			free(acl);
			acl = NULL;
		}
		if (!in_group_p(c, READ_ONCE(inode->i_gid)) && !cred_is_root(c))
			mode &= ~(umode_t)S_ISGID;
	}
	err = inode->i_op->set_acl(inode, type, acl, mode);
	if (!err) {
		acl = NULL; /* the inode's now */
		if (mode != old_mode)
			*ia_valid |= ATTR_MODE;
	}
unlock:
	up_write(&inode->i_rwsem);
out:
	free(acl);
	return err;
}

static ssize_t put_name(char *buf, size_t size, size_t at, const char *name)
{
	size_t len = strlen(name) + 1;
	if (size) {
		if (at + len > size)
			return -ERANGE;
		memcpy(buf + at, name, len);
	}
	return (ssize_t)len;
}

ssize_t posix_acl_xattr_list(struct inode *inode, char *buf, size_t size)
{
	size_t n = 0;
	if (READ_ONCE(inode->i_acl)) {
		ssize_t r = put_name(buf, size, n, XATTR_NAME_POSIX_ACL_ACCESS);
		if (r < 0)
			return r;
		n += (size_t)r;
	}
	if (READ_ONCE(inode->i_default_acl)) {
		ssize_t r = put_name(buf, size, n, XATTR_NAME_POSIX_ACL_DEFAULT);
		if (r < 0)
			return r;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

/* For a filesystem that stores ACLs as the xattrs they travel as
 * (hostfs): the two conversions, with the VFS's checks of the format. */
int posix_acl_from_xattr(const void *value, size_t size, struct posix_acl **out)
{
	return acl_from_xattr(value, size, out);
}

size_t posix_acl_to_xattr(const struct posix_acl *acl, void *buf, size_t size)
{
	size_t n = acl_xattr_size(acl);
	if (buf && n <= size)
		acl_to_xattr(acl, buf);
	return n;
}
