// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filesystems.c - the registry of filesystem types (Linux's
 * fs/filesystems.c).
 *
 * Locks: vfs->fs_types_lock guards the list (vfs->fs_types) and the entries'
 * use counts.  Lookups are rare (mount) and take it too.  An entry goes at
 * unregister_filesystem, only while nothing uses its type, or with the
 * instance.
 */
#include "vfs.h"
#include "filesystems.h"

/* Every instance starts with these, as a kernel with them built in. */
static const struct file_system_type *const builtin_filesystems[] = {
	&tmpfs_fs_type,
	&pipefs_fs_type,
	&overlay_fs_type,
	&hostfs_fs_type,
};

static struct filesystem_entry **find_filesystem(struct uvfs *vfs, const char *name)
{
	struct filesystem_entry **p;
	for (p = &vfs->fs_types; *p; p = &(*p)->next)
		if (strcmp((*p)->type->name, name) == 0)
			break;
	return p;
}

int register_filesystem(struct uvfs *vfs, const struct file_system_type *type,
			void (*release)(const struct file_system_type *type))
{
	if (!type || !type->name || (!type->mount && !type->mount_proc))
		return -EINVAL;
	struct filesystem_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->type = type;
	e->next = NULL;
	e->users = 0;
	e->release = release;
	pthread_mutex_lock(&vfs->fs_types_lock);
	struct filesystem_entry **p = find_filesystem(vfs, type->name);
	int err = 0;
	if (*p)
		err = -EBUSY;
	else
		*p = e;
	pthread_mutex_unlock(&vfs->fs_types_lock);
	if (err)
		free(e);
	return err;
}

int unregister_filesystem(struct uvfs *vfs, const char *name)
{
	pthread_mutex_lock(&vfs->fs_types_lock);
	struct filesystem_entry **p = find_filesystem(vfs, name), *e = *p;
	int err = 0;
	if (!e)
		err = -ENOENT;
	else if (e->users || !e->release)
		err = -EBUSY; /* in use, or built in (nothing to release it) */
	else
		*p = e->next;
	pthread_mutex_unlock(&vfs->fs_types_lock);
	if (err)
		return err;
	if (e->release)
		e->release(e->type);
	free(e);
	return 0;
}

static struct filesystem_entry *find_type(struct uvfs *vfs, const struct file_system_type *type)
{
	struct filesystem_entry *e;
	for (e = vfs->fs_types; e; e = e->next)
		if (e->type == type)
			break;
	return e;
}

const struct file_system_type *get_fs_type(struct uvfs *vfs, const char *name)
{
	pthread_mutex_lock(&vfs->fs_types_lock);
	struct filesystem_entry *e = *find_filesystem(vfs, name);
	if (e)
		e->users++;
	pthread_mutex_unlock(&vfs->fs_types_lock);
	return e ? e->type : NULL;
}

void get_filesystem(struct uvfs *vfs, const struct file_system_type *type)
{
	pthread_mutex_lock(&vfs->fs_types_lock);
	find_type(vfs, type)->users++;
	pthread_mutex_unlock(&vfs->fs_types_lock);
}

void put_filesystem(struct uvfs *vfs, const struct file_system_type *type)
{
	pthread_mutex_lock(&vfs->fs_types_lock);
	find_type(vfs, type)->users--;
	pthread_mutex_unlock(&vfs->fs_types_lock);
}

struct super_block *kern_mount_once(struct uvfs *vfs, struct super_block **slot, const char *name,
				    const char *source)
{
	struct super_block *sb = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (likely(sb))
		return sb;
	const struct file_system_type *type = get_fs_type(vfs, name);
	if (!type)
		return NULL;
	int err = type->mount(type, vfs, source, 0, NULL, &sb);
	put_filesystem(vfs, type);
	if (err)
		return NULL;
	sb->s_flags |= SB_KERNMOUNT;
	struct super_block *cur = NULL;
	if (!__atomic_compare_exchange_n(slot, &cur, sb, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		deactivate_super(sb); /* another thread's won; ours is empty */
		return cur;
	}
	return sb;
}

int filesystems_init(struct uvfs *vfs)
{
	pthread_mutex_init(&vfs->fs_types_lock, NULL);
	/* on failure the caller's filesystems_fini frees what was made */
	for (size_t i = 0; i < ARRAY_SIZE(builtin_filesystems); i++) {
		int err = register_filesystem(vfs, builtin_filesystems[i], NULL);
		if (err)
			return err;
	}
	return 0;
}

void filesystems_fini(struct uvfs *vfs)
{
	while (vfs->fs_types) {
		struct filesystem_entry *e = vfs->fs_types;
		vfs->fs_types = e->next;
		if (e->release)
			e->release(e->type);
		free(e);
	}
	pthread_mutex_destroy(&vfs->fs_types_lock);
}
