// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uvfs.c - instances and processes: uvfs_create/destroy, the proc calls.
 */
#include "vfs.h"
#include "notify/fsnotify.h"

#define NOFILE_DEFAULT 1024
#define NR_OPEN_MAX (1u << 20)

void file_cache_drain(void);

UVFS_API struct uvfs *uvfs_create(const struct uvfs_options *opts)
{
	task_enter();
	membarrier_init(); /* before any walk: see smp_mb_light */
	struct uvfs *vfs = calloc(1, sizeof(*vfs));
	if (!vfs)
		return NULL;
	if (opts)
		vfs->opts = *opts;
	vfs->max_files = vfs->opts.max_files ? vfs->opts.max_files : ~0UL;
	pthread_mutex_init(&vfs->rename_mutex, NULL);
	pthread_mutex_init(&vfs->seq_lock, NULL);
	pthread_mutex_init(&vfs->ns_lock, NULL);
	pthread_mutex_init(&vfs->procs_lock, NULL);
	INIT_LIST_HEAD(&vfs->mounts);
	INIT_LIST_HEAD(&vfs->supers);
	INIT_LIST_HEAD(&vfs->procs);
	if (dcache_init(vfs)) {
		free(vfs);
		return NULL;
	}
	/* the root is a tmpfs mounted through the registry like any other,
	 * with the instance's options for it */
	char data[160];
	snprintf(data, sizeof(data), "mode=%o,uid=%u,gid=%u%s%llu%s%lu",
		 vfs->opts.root_mode ? vfs->opts.root_mode & 07777 : 01777, (unsigned)vfs->opts.root_uid,
		 (unsigned)vfs->opts.root_gid, ",size=", vfs->opts.tmpfs_size, ",nr_inodes=",
		 vfs->opts.tmpfs_nr_inodes);
	struct super_block *sb = NULL;
	const struct file_system_type *rootfs;
	if (filesystems_init(vfs) || !(rootfs = get_fs_type(vfs, "tmpfs")) ||
	    rootfs->mount(rootfs, vfs, "rootfs", 0, data, &sb) || namespace_init(vfs, sb)) {
		if (sb)
			deactivate_super(sb);
		filesystems_fini(vfs);
		dcache_fini(vfs);
		free(vfs);
		return NULL;
	}
	return vfs;
}

static void fs_put(struct fs_struct *fs)
{
	if (__atomic_sub_fetch(&fs->users, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	path_put(&fs->root);
	path_put(&fs->pwd);
	pthread_mutex_destroy(&fs->lock);
	free(fs);
}

static void proc_free(struct uvfs_proc *p)
{
	files_put(p->files);
	fs_put(p->fs);
	free(p);
}

UVFS_API unsigned uvfs_version(void)
{
	return UVFS_VERSION_MAJOR << 16 | UVFS_VERSION_MINOR;
}

UVFS_API void uvfs_destroy(struct uvfs *vfs)
{
	if (!vfs)
		return;
	task_enter();
	pthread_mutex_lock(&vfs->procs_lock);
	while (!list_empty(&vfs->procs)) {
		struct uvfs_proc *p = list_entry(vfs->procs.next, struct uvfs_proc, p_list);
		list_del_init(&p->p_list);
		pthread_mutex_unlock(&vfs->procs_lock);
		proc_free(p);
		pthread_mutex_lock(&vfs->procs_lock);
	}
	pthread_mutex_unlock(&vfs->procs_lock);
	task_work_run();
	/* every deferred free that may touch the instance runs before it goes */
	urcu_memb_barrier();
	if (vfs->pipe_sb)
		deactivate_super(vfs->pipe_sb);
	fsnotify_instance_fini(vfs); /* inotify's anon_inodefs; every instance closed above */
	fsnotify_change_fini(vfs);
	namespace_fini(vfs);
	urcu_memb_barrier();
	dcache_fini(vfs);
	filesystems_fini(vfs);
	pthread_mutex_destroy(&vfs->rename_mutex);
	pthread_mutex_destroy(&vfs->seq_lock);
	pthread_mutex_destroy(&vfs->ns_lock);
	pthread_mutex_destroy(&vfs->procs_lock);
	free(vfs);
	/* files cached by this thread are type-stable memory of no instance;
	 * hand them back so that a leak checker sees nothing held */
	file_cache_drain();
	urcu_memb_barrier();
}

static void proc_register(struct uvfs *vfs, struct uvfs_proc *p)
{
	pthread_mutex_lock(&vfs->procs_lock);
	list_add(&p->p_list, &vfs->procs);
	pthread_mutex_unlock(&vfs->procs_lock);
}

UVFS_API struct uvfs_proc *uvfs_proc_create(struct uvfs *vfs, uid_t uid, gid_t gid)
{
	task_enter();
	struct uvfs_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->vfs = vfs;
	p->files = files_alloc();
	p->fs = calloc(1, sizeof(*p->fs));
	if (!p->files || !p->fs) {
		if (p->files)
			files_put(p->files);
		free(p->fs);
		free(p);
		return NULL;
	}
	struct fs_struct *fs = p->fs;
	fs->users = 1;
	pthread_mutex_init(&fs->lock, NULL);
	fs->umask = 022;
	fs->root.mnt = mntget(vfs->root_mnt);
	fs->root.dentry = dget(vfs->root_mnt->m_root);
	fs->pwd = fs->root;
	path_get(&fs->pwd);
	p->cred.fsuid = uid;
	p->cred.fsgid = gid;
	p->nofile = NOFILE_DEFAULT;
	proc_register(vfs, p);
	return p;
}

UVFS_API struct uvfs_proc *uvfs_proc_clone(struct uvfs_proc *parent, unsigned flags)
{
	task_enter();
	if (!parent)
		return NULL;
	struct uvfs_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->vfs = parent->vfs;
	p->cred = parent->cred;
	p->nofile = parent->nofile;
	if (flags & UVFS_CLONE_FILES) {
		files_mark_shared(parent->files);
		p->files = parent->files;
		__atomic_add_fetch(&p->files->count, 1, __ATOMIC_ACQ_REL);
	} else {
		int err;
		p->files = files_dup(parent->files, &err);
		if (!p->files) {
			free(p);
			return NULL;
		}
	}
	if (flags & UVFS_CLONE_FS) {
		p->fs = parent->fs;
		__atomic_add_fetch(&p->fs->users, 1, __ATOMIC_ACQ_REL);
	} else {
		struct fs_struct *fs = calloc(1, sizeof(*fs));
		if (!fs) {
			files_put(p->files);
			free(p);
			return NULL;
		}
		fs->users = 1;
		pthread_mutex_init(&fs->lock, NULL);
		pthread_mutex_lock(&parent->fs->lock);
		fs->root = parent->fs->root;
		fs->pwd = parent->fs->pwd;
		fs->umask = parent->fs->umask;
		path_get(&fs->root);
		path_get(&fs->pwd);
		pthread_mutex_unlock(&parent->fs->lock);
		p->fs = fs;
	}
	proc_register(p->vfs, p);
	return p;
}

UVFS_API void uvfs_proc_destroy(struct uvfs_proc *p)
{
	if (!p)
		return;
	task_enter();
	struct uvfs *vfs = p->vfs;
	pthread_mutex_lock(&vfs->procs_lock);
	list_del_init(&p->p_list);
	pthread_mutex_unlock(&vfs->procs_lock);
	proc_free(p);
	task_work_run();
}

UVFS_API int uvfs_proc_set_nofile(struct uvfs_proc *p, unsigned long limit)
{
	if (limit == 0 || limit > NR_OPEN_MAX)
		return -EINVAL;
	p->nofile = limit;
	return 0;
}

UVFS_API int uvfs_proc_setgroups(struct uvfs_proc *p, size_t n, const gid_t *groups)
{
	if (n > UVFS_NGROUPS_MAX)
		return -EINVAL;
	if (n && !groups)
		return -EFAULT;
	for (size_t i = 0; i < n; i++)
		p->cred.groups[i] = groups[i];
	p->cred.ngroups = (int)n;
	return 0;
}

UVFS_API int uvfs_proc_setcred(struct uvfs_proc *p, uid_t uid, gid_t gid)
{
	p->cred.fsuid = uid;
	p->cred.fsgid = gid;
	return 0;
}
