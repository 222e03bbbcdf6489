// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uvfs.c - instances and processes: uvfs_create/destroy, the proc calls.
 */
#include "vfs.h"
#include "notify/fsnotify.h"
#include "pathcache.h"
#include <signal.h>

#define NOFILE_DEFAULT 1024
#define NR_OPEN_MAX (1u << 20)

void file_cache_drain(void);

/*
 * liburcu makes its call_rcu thread at the first call_rcu, from whichever
 * thread that is, with that thread's signal mask (liburcu 0.13 blocks
 * nothing in it).  A process-directed signal may then run its handler in
 * that thread, where it wakes nothing the embedder waits on (uvfs-fuse -s
 * sleeps in ppoll for its SIGTERM).  So the thread is made here, with every
 * signal blocked: the library's threads take none of the embedder's
 * signals.  (hostfs's watch thread is made by uvfs_mount with its caller's
 * mask, as pthread_create does: docs/ARCHITECTURE.md, "Signals".)
 */
static void call_rcu_thread_init(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	(void)urcu_memb_get_default_call_rcu_data();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

UVFS_API struct uvfs *uvfs_create(const struct uvfs_options *opts)
{
	API_ENTER();
	membarrier_init(); /* before any walk: see smp_mb_light */
	call_rcu_thread_init();
	/* aligned as its type is: its counters' shards and the negative
	 * count's total are on lines of their own (lib/counter.h) */
	size_t size = (sizeof(struct uvfs) + 63) & ~(size_t)63;
	struct uvfs *vfs = aligned_alloc(64, size);
	if (!vfs)
		API_RETURN(NULL);
	memset(vfs, 0, size);
	if (opts)
		vfs->opts = *opts;
	vfs->max_files = vfs->opts.max_files ? vfs->opts.max_files : ~0UL;
	inode_ino_init(vfs);
	pthread_mutex_init(&vfs->rename_mutex, NULL);
	pthread_mutex_init(&vfs->seq_lock, NULL);
	pthread_mutex_init(&vfs->ns_lock, NULL);
	pthread_mutex_init(&vfs->procs_lock, NULL);
	INIT_LIST_HEAD(&vfs->mounts);
	INIT_LIST_HEAD(&vfs->supers);
	INIT_LIST_HEAD(&vfs->procs);
	if (dcache_init(vfs)) {
		free(vfs);
		API_RETURN(NULL);
	}
#ifndef UVFS_NO_PATH_CACHE
	if (pathcache_init(vfs, vfs->opts.path_cache_max)) {
		dcache_fini(vfs);
		free(vfs);
		API_RETURN(NULL);
	}
#endif
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
		urcu_memb_barrier();
		pathcache_fini(vfs);
		dcache_fini(vfs);
		free(vfs);
		API_RETURN(NULL);
	}
	API_RETURN(vfs);
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
	proc_cred_release(p);
	pthread_mutex_destroy(&p->cred_lock);
	free(p);
}

UVFS_API unsigned uvfs_version(void)
{
	API_ENTER();
	API_RETURN(UVFS_VERSION_MAJOR << 16 | UVFS_VERSION_MINOR);
}

/* The proc's id in its instance (1, 2, ... in order of creation): what
 * F_GETLK reports as l_pid. */
UVFS_API pid_t uvfs_getpid(struct uvfs_proc *p)
{
	API_ENTER_PROC(p);
	API_RETURN(p->pid);
}

UVFS_API void uvfs_destroy(struct uvfs *vfs)
{
	if (!vfs)
		return;
	API_ENTER();
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
	if (vfs->shm_sb)
		deactivate_super(vfs->shm_sb);
	fsnotify_instance_fini(vfs); /* inotify's anon_inodefs; every instance closed above */
	fsnotify_change_fini(vfs);
	namespace_fini(vfs);
	urcu_memb_barrier();
	pathcache_fini(vfs);
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
	/* and so is the pin on the cred of the thread's last call */
	cred_unpin();
	urcu_memb_barrier();
	API_RETURN_VOID();
}

static void proc_register(struct uvfs *vfs, struct uvfs_proc *p)
{
	pthread_mutex_lock(&vfs->procs_lock);
	p->pid = ++vfs->last_pid;
	list_add(&p->p_list, &vfs->procs);
	pthread_mutex_unlock(&vfs->procs_lock);
}

UVFS_API struct uvfs_proc *uvfs_proc_create(struct uvfs *vfs, uid_t uid, gid_t gid)
{
	API_ENTER();
	struct uvfs_proc *p = calloc(1, sizeof(*p));
	if (!p)
		API_RETURN(NULL);
	p->vfs = vfs;
	p->files = files_alloc();
	p->fs = calloc(1, sizeof(*p->fs));
	p->cred_rcu = cred_new(uid, gid);
	if (!p->files || !p->fs || !p->cred_rcu) {
		if (p->files)
			files_put(p->files);
		free(p->fs);
		free(p->cred_rcu);
		free(p);
		API_RETURN(NULL);
	}
	pthread_mutex_init(&p->cred_lock, NULL);
	struct fs_struct *fs = p->fs;
	fs->users = 1;
	pthread_mutex_init(&fs->lock, NULL);
	fs->umask = 022;
	p->nofile = NOFILE_DEFAULT;
	/* the tree's root and the registration in one ns_lock section: a
	 * pivot_root (which changes the root and moves every registered proc)
	 * comes wholly before or after */
	pthread_mutex_lock(&vfs->ns_lock);
	fs->root.mnt = mntget(vfs->root_mnt);
	fs->root.dentry = dget(vfs->root_mnt->m_root);
	fs->pwd = fs->root;
	path_get(&fs->pwd);
	proc_register(vfs, p);
	pthread_mutex_unlock(&vfs->ns_lock);
	API_RETURN(p);
}

UVFS_API struct uvfs_proc *uvfs_proc_clone(struct uvfs_proc *parent, unsigned flags)
{
	if (!parent)
		return NULL;
	API_ENTER_PROC(parent);
	struct uvfs_proc *p = calloc(1, sizeof(*p));
	if (!p)
		API_RETURN(NULL);
	p->vfs = parent->vfs;
	p->cred_rcu = cred_dup(parent);
	if (!p->cred_rcu) {
		free(p);
		API_RETURN(NULL);
	}
	pthread_mutex_init(&p->cred_lock, NULL);
	p->nofile = parent->nofile;
	if (flags & UVFS_CLONE_FILES) {
		files_mark_shared(parent->files);
		p->files = parent->files;
		__atomic_add_fetch(&p->files->count, 1, __ATOMIC_ACQ_REL);
	} else {
		int err;
		p->files = files_dup(parent->files, &err);
		if (!p->files) {
			put_cred(p->cred_rcu);
			pthread_mutex_destroy(&p->cred_lock);
			free(p);
			API_RETURN(NULL);
		}
	}
	/* the parent's root and cwd, copied and registered in one ns_lock
	 * section, as uvfs_proc_create */
	pthread_mutex_lock(&p->vfs->ns_lock);
	if (flags & UVFS_CLONE_FS) {
		p->fs = parent->fs;
		__atomic_add_fetch(&p->fs->users, 1, __ATOMIC_ACQ_REL);
	} else {
		struct fs_struct *fs = calloc(1, sizeof(*fs));
		if (!fs) {
			pthread_mutex_unlock(&p->vfs->ns_lock);
			files_put(p->files);
			put_cred(p->cred_rcu);
			pthread_mutex_destroy(&p->cred_lock);
			free(p);
			API_RETURN(NULL);
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
	pthread_mutex_unlock(&p->vfs->ns_lock);
	API_RETURN(p);
}

UVFS_API void uvfs_proc_destroy(struct uvfs_proc *p)
{
	if (!p)
		return;
	API_ENTER_PROC(p);
	struct uvfs *vfs = p->vfs;
	pthread_mutex_lock(&vfs->procs_lock);
	list_del_init(&p->p_list);
	pthread_mutex_unlock(&vfs->procs_lock);
	proc_free(p);
	API_RETURN_VOID();
}

UVFS_API int uvfs_proc_set_nofile(struct uvfs_proc *p, unsigned long limit)
{
	API_ENTER_PROC(p);
	if (limit == 0 || limit > NR_OPEN_MAX)
		API_RETURN(-EINVAL);
	WRITE_ONCE(p->nofile, limit);
	API_RETURN(0);
}
