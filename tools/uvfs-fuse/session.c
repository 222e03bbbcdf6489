/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session.c - the session: mount, setup, the loop, exit, teardown, and the calls of
 * uvfs_fuse.h that drive them.
 */
#include "internal.h"
#include <signal.h>

/* A clear word about a mount point before libfuse tries it. */
static int check_mountpoint(const char *mp)
{
	struct statx stx;
	int r;

	/* AT_STATX_DONT_SYNC: a FUSE mount there whose server does not answer
	 * (yet) must not hang us */
	r = statx(AT_FDCWD, mp, AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &stx);
	if (r < 0) {
		int e = errno;

		if (e == ENOTCONN)
			fprintf(stderr,
				"uvfs-fuse: %s: a stale FUSE mount is in the way (Transport endpoint is "
				"not connected); run `fusermount3 -u %s`\n", mp, mp);
		else
			fprintf(stderr, "uvfs-fuse: bad mount point %s: %s\n", mp, strerror(e));
		return -e;
	}
	if (!S_ISDIR(stx.stx_mode)) {
		fprintf(stderr, "uvfs-fuse: bad mount point %s: not a directory\n", mp);
		return -ENOTDIR;
	}
	if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		fprintf(stderr, "uvfs-fuse: mount point %s is busy: something is already mounted there "
			"(a dead FUSE mount? then `fusermount3 -u %s`)\n", mp, mp);
		return -EBUSY;
	}
	return 0;
}

static int check_dev_fuse(void)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	int e = errno;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	/* libfuse opens /dev/fuse itself before it falls back to the set-uid
	 * fusermount3, so an unprivileged user needs it readable and writable
	 * too (Debian makes it 0666). */
	if (e == EACCES || e == EPERM)
		fprintf(stderr, "uvfs-fuse: cannot use /dev/fuse: %s (run as root, or give users access "
			"to /dev/fuse, mode 0666 as most distributions do)\n", strerror(e));
	else
		fprintf(stderr, "uvfs-fuse: cannot use /dev/fuse: %s (is the fuse module loaded, and is "
			"/dev/fuse available in this container?)\n", strerror(e));
	return -ENODEV;
}

struct uvfs_fuse *uvfs_fuse_new(struct uvfs *fs, const char *mountpoint, int argc, char **argv, int *errp)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct uvfs_fuse *uf;
	int err = -EINVAL, i;

	uf = calloc(1, sizeof(*uf));
	if (!uf) {
		err = -ENOMEM;
		goto fail_nouf;
	}
	uf->fs = fs;
	uf->own_fs = fs == NULL;
	pthread_mutex_init(&uf->nlock, NULL);
	pthread_mutex_init(&uf->flock, NULL);
	pthread_mutex_init(&uf->tlock, NULL);
	pthread_mutex_init(&uf->qlock, NULL);
	pthread_cond_init(&uf->qcond, NULL);
	pthread_cond_init(&uf->qdone, NULL);
	uf->o.watch = -1; /* not given: on for an instance of the caller's */
	uf->o.epoch = -1;
	uf->o.locks = -1; /* not given: on for an instance of the caller's */
	uf->o.xattr = 1;
	uf->o.spin_us = UF_DEFAULT_SPIN_US;
	uf->qtail = &uf->qhead;

	if (fuse_opt_add_arg(&args, argc > 0 && argv && argv[0] ? argv[0] : "uvfs-fuse") < 0)
		goto nomem;
	/* Defaults first, so that the caller's own options win. */
	if (fuse_opt_add_arg(&args, "-ofsname=uvfs,subtype=uvfs") < 0)
		goto nomem;
	for (i = 1; i < argc; i++)
		if (fuse_opt_add_arg(&args, argv[i]) < 0)
			goto nomem;
	if (fuse_parse_cmdline(&args, &uf->cmd) != 0)
		goto fail;
	if (uf->cmd.show_help || uf->cmd.show_version) {
		fprintf(stderr, "uvfs-fuse: --help and --version are for the program\n");
		goto fail;
	}
	if (fuse_opt_parse(&args, &uf->o, uf_optspec, uf_opt_proc) != 0)
		goto fail;
	if (!uf->own_fs && (uf->o.size || uf->o.nr_inodes || uf->o.uid || uf->o.gid || uf->o.mode)) {
		fprintf(stderr, "uvfs-fuse: size=, nr_inodes=, uid=, gid= and mode= only apply to an "
			"instance the frontend makes\n");
		goto fail;
	}
	if (uf->own_fs) {
		err = uf_make_instance(uf, false); /* validate now; the fs is made by the loop */
		if (err < 0)
			goto fail;
	}
	if (uf->o.hostdir && !uf->own_fs) {
		fprintf(stderr, "uvfs-fuse: hostdir= only applies to an instance the frontend makes\n");
		goto fail;
	}
	if (uf->o.hostdir && (uf->o.size || uf->o.nr_inodes || uf->o.uid || uf->o.gid || uf->o.mode)) {
		fprintf(stderr, "uvfs-fuse: size=, nr_inodes=, uid=, gid= and mode= are the tmpfs root's, not "
			"hostdir='s (its limits, owner and mode are the host directory's)\n");
		goto fail;
	}
	if (uf->o.hostdir) {
		/* before the mount, so that a bad directory is a message and
		 * status 1, as a bad mount point is (hostfs opens it so too) */
		int hfd = open(uf->o.hostdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (hfd < 0) {
			fprintf(stderr, "uvfs-fuse: hostdir=%s: %s\n", uf->o.hostdir, strerror(errno));
			goto fail;
		}
		close(hfd);
	}
	err = uf_check_layers(uf);
	if (err < 0)
		goto fail;
	err = -EINVAL;
	if (uf->o.writeback && (!uf->own_fs || !uf->o.default_permissions)) {
		fprintf(stderr, "uvfs-fuse: -o writeback needs default_permissions and an instance the "
			"frontend makes (the kernel would ignore sizes and times changed through the "
			"library)\n");
		err = -EINVAL;
		goto fail;
	}
	if (uf->o.watch < 0)
		uf->o.watch = !uf->own_fs; /* only another proc's changes need it */
	if (mountpoint && uf->cmd.mountpoint) {
		fprintf(stderr, "uvfs-fuse: two mount points given\n");
		err = -EINVAL;
		goto fail;
	}
	if (!mountpoint)
		mountpoint = uf->cmd.mountpoint;
	if (!mountpoint) {
		fprintf(stderr, "uvfs-fuse: no mount point given (see --help)\n");
		err = -EINVAL;
		goto fail;
	}
	uf->mountpoint = realpath(mountpoint, NULL);
	err = check_mountpoint(uf->mountpoint ? uf->mountpoint : mountpoint);
	if (err < 0)
		goto fail;
	err = check_dev_fuse();
	if (err < 0)
		goto fail;

	uf->se = fuse_session_new(&args, &uf_ops, sizeof(uf_ops), uf);
	if (!uf->se) {
		err = -EINVAL;
		goto fail;
	}
	if (fuse_session_mount(uf->se, uf->mountpoint) != 0) {
		fprintf(stderr, "uvfs-fuse: mounting on %s failed\n", uf->mountpoint);
		err = -EIO;
		goto fail;
	}
	uf->mounted = true;
	if (uf_devio_install(uf) < 0) {
		fprintf(stderr, "uvfs-fuse: cannot set the session's I/O\n");
		err = -ENOMEM;
		goto fail;
	}
	uf_apply_host_atime(uf);
	/* Before any request: nothing is cached yet, and no other thread reads
	 * the answer until the loop runs. */
	uf->epoch = uf->o.epoch != 0 && uf_inc_epoch(uf) == 0;
	if (uf->o.epoch > 0 && !uf->epoch && !uf->o.default_permissions)
		fprintf(stderr, "uvfs-fuse: the kernel has no FUSE_NOTIFY_INC_EPOCH; -o epoch ignored, no name is "
			"cached\n");
	if (asprintf(&uf->wakeup, "%s/.uvfs-fuse-exit-%d-%p", uf->mountpoint, (int)getpid(), (void *)uf) < 0)
		uf->wakeup = NULL;
	fuse_opt_free_args(&args);
	return uf;

nomem:
	err = -ENOMEM;
fail:
	fuse_opt_free_args(&args);
	uvfs_fuse_destroy(uf);
fail_nouf:
	if (errp)
		*errp = err;
	return NULL;
}

int uvfs_fuse_daemonize(struct uvfs_fuse *uf)
{
	return fuse_daemonize(uf->cmd.foreground || uf->cmd.debug);
}

int uvfs_fuse_set_signal_handlers(struct uvfs_fuse *uf)
{
	return fuse_set_signal_handlers(uf->se);
}

void uvfs_fuse_remove_signal_handlers(struct uvfs_fuse *uf)
{
	fuse_remove_signal_handlers(uf->se);
}

/* -o hostdir=DIR: hostfs of DIR on a directory of the fresh tree, and
 * every proc of the frontend (clones of base, made after this) chrooted
 * into it, so that the mount's root is DIR. */
static int uf_mount_hostdir(struct uvfs_fuse *uf)
{
	int r = uvfs_mkdirat(uf->base, AT_FDCWD, "/.hostdir", 0755);
	if (!r)
		r = uvfs_mount(uf->base, uf->o.hostdir, "/.hostdir", "hostfs", 0, NULL);
	if (!r)
		r = uvfs_chroot(uf->base, "/.hostdir");
	if (!r)
		r = uvfs_chdir(uf->base, "/");
	if (r < 0)
		fprintf(stderr, "uvfs-fuse: hostdir=%s: %s\n", uf->o.hostdir, strerror(-r));
	return r;
}

static int setup(struct uvfs_fuse *uf)
{
	struct stat st;
	int fd, r;

	if (uf->own_fs && !uf->fs) {
		r = uf_make_instance(uf, true);
		if (r < 0)
			return r;
	}
	uf->base = uvfs_proc_create(uf->fs, 0, 0);
	if (!uf->base)
		return -ENOMEM;
	/* the nodes' files, which on hostfs hold host fds (node_files.c) */
	uf->max_files = uf_node_files_bound(uf);
	/* Every node holds an fd: allow as many as uvfs does. */
	uvfs_proc_set_nofile(uf->base, 1UL << 20);
	uvfs_umask(uf->base, 0);
	if (uf->o.hostdir) {
		r = uf_mount_hostdir(uf);
		if (r < 0)
			return r;
	}
	if (uf->o.lowerdir) {
		r = uf_mount_layers(uf);
		if (r < 0)
			return r;
	}
	r = uf_apply_atime(uf);
	if (r < 0)
		return r;
	uf->qproc = uvfs_proc_clone(uf->base, UVFS_CLONE_FILES);
	if (!uf->qproc)
		return -ENOMEM;

	uf->hsize = 1024;
	uf->htab = calloc(uf->hsize, sizeof(*uf->htab));
	if (!uf->htab)
		return -ENOMEM;
	fd = uvfs_openat(uf->base, AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r = uf_stat_fd(uf->base, fd, &st);
	if (r < 0) {
		uvfs_close(uf->base, fd);
		return r;
	}
	uf->root = calloc(1, sizeof(*uf->root));
	if (!uf->root) {
		uvfs_close(uf->base, fd);
		return -ENOMEM;
	}
	uf->root->fd = fd;
	uf->root->iofd = -1;
	uf->root->rdfd = -1;
	uf->root->dev = st.st_dev;
	uf->root->ino = st.st_ino;
	uf->root->nlookup = 1;
	uf->root->is_root = true;
	uf_hash_insert(uf, uf->root);

	r = pthread_key_create(&uf->key, uf_thread_key_dtor);
	if (r)
		return -r;
	uf->key_made = true;

	uf->qthread_running = true;
	r = pthread_create(&uf->qthread, NULL, uf_notifier_main, uf);
	if (r) {
		uf->qthread_running = false;
		return -r;
	}
	uf->set_up = true;
	if (uf->o.watch) {
		r = uf_hook_install(uf);
		if (r < 0) {
			fprintf(stderr, "uvfs-fuse: cannot install the change hook (%s); changes made through "
				"the library show when the timeouts expire\n", strerror(-r));
		} else {
			uf->hooked = true;
		}
	}
	uf_cache_defaults(uf);
	return 0;
}

static void teardown(struct uvfs_fuse *uf)
{
	struct uf_thread *t;
	struct uf_qitem *q;
	size_t i;

	uf_hook_remove(uf);
	uf_notifier_stop(uf);
	uf_locks_free(uf);
	while ((q = uf->qhead)) {
		uf->qhead = q->next;
		uf_item_done(uf, q);
	}
	uf->qtail = &uf->qhead;
	uf->set_up = false;

	if (uf->key_made) {
		/* Workers are gone (joined by the loop); what is left belongs to
		 * threads that called the loop. */
		pthread_setspecific(uf->key, NULL);
		pthread_mutex_lock(&uf->tlock);
		while ((t = uf->threads)) {
			uf->threads = t->next;
			uf_thread_free(t);
		}
		pthread_mutex_unlock(&uf->tlock);
		pthread_key_delete(uf->key);
		uf->key_made = false;
	}
	if (uf->htab) {
		for (i = 0; i < uf->hsize; i++) {
			struct uf_node *n, *next;

			for (n = uf->htab[i]; n; n = next) {
				next = n->hnext;
				uf_node_free(uf, uf->base, n);
			}
		}
		free(uf->htab);
		uf->htab = NULL;
		uf->root = NULL;
	}
	if (uf->qproc)
		uvfs_proc_destroy(uf->qproc);
	uf->qproc = NULL;
	if (uf->base)
		uvfs_proc_destroy(uf->base);
	uf->base = NULL;
	if (uf->own_fs && uf->fs) {
		uvfs_destroy(uf->fs);
		uf->fs = NULL;
	}
}

int uvfs_fuse_loop(struct uvfs_fuse *uf)
{
	int r;

	if (!uf->set_up) {
		sigset_t all, old;

		/* every thread made here (the notifier, hostfs's watch thread)
		 * takes no signal: the stop signals' handlers must run in the
		 * thread that reads requests, or one that came as it was about
		 * to sleep would end its sleep nowhere (devio.c) */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		r = setup(uf);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (r < 0) {
			fprintf(stderr, "uvfs-fuse: cannot start: %s\n", strerror(-r));
			return r;
		}
	}
	if (uf->cmd.singlethread) {
		r = fuse_session_loop(uf->se);
	} else if (!uf->cmd.clone_fd && uf->cmd.max_idle_threads == UINT_MAX) {
		r = uf_loop_mt(uf, uf->cmd.max_threads); /* loop.c */
	} else {
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();

		if (!cfg)
			return -ENOMEM;
		fuse_loop_cfg_set_clone_fd(cfg, (unsigned)uf->cmd.clone_fd);
		if (uf->cmd.max_idle_threads != UINT_MAX) /* UINT_MAX: not given */
			fuse_loop_cfg_set_idle_threads(cfg, uf->cmd.max_idle_threads);
		fuse_loop_cfg_set_max_threads(cfg, uf->cmd.max_threads);
		r = fuse_session_loop_mt(uf->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	/* > 0: the number of the signal that ended it; a clean stop */
	return r > 0 ? 0 : r;
}

void uvfs_fuse_exit(struct uvfs_fuse *uf)
{
	/* the loop stops serving: a hook that waited for the notifier, queued
	 * behind the wakeup below, could wait for the unmount */
	__atomic_store_n(&uf->exiting, true, __ATOMIC_RELEASE);
	fuse_session_exit(uf->se);
	/* The loop notices only when a request arrives: the notifier thread
	 * makes one (a lookup of a name nobody uses). */
	if (uf->set_up)
		uf_queue_push(uf, UF_Q_WAKEUP, 0, 0, NULL);
}

void uvfs_fuse_destroy(struct uvfs_fuse *uf)
{
	if (!uf)
		return;
	/* Unmount first: that closes the device, which fails any request still
	 * waiting (the notifier's wakeup lookup); then no thread of ours uses the
	 * session any more when it is destroyed. */
	if (uf->se && uf->mounted)
		fuse_session_unmount(uf->se);
	uf->mounted = false;
	uf_hook_remove(uf);
	uf_notifier_stop(uf);
	if (uf->se)
		fuse_session_destroy(uf->se);
	uf->se = NULL;
	teardown(uf);
	free(uf->cmd.mountpoint);
	free(uf->mountpoint);
	free(uf->wakeup);
	free(uf->o.size);
	free(uf->o.nr_inodes);
	free(uf->o.uid);
	free(uf->o.gid);
	free(uf->o.mode);
	free(uf->o.hostdir);
	free(uf->o.lowerdir);
	free(uf->o.upperdir);
	free(uf->o.workdir);
	pthread_mutex_destroy(&uf->nlock);
	pthread_mutex_destroy(&uf->flock);
	pthread_mutex_destroy(&uf->tlock);
	pthread_mutex_destroy(&uf->qlock);
	pthread_cond_destroy(&uf->qcond);
	pthread_cond_destroy(&uf->qdone);
	free(uf);
}

int uvfs_fuse_serve(struct uvfs *fs, const char *mountpoint, int argc, char **argv)
{
	struct uvfs_fuse *uf;
	int err = 0, r;

	uf = uvfs_fuse_new(fs, mountpoint, argc, argv, &err);
	if (!uf)
		return err;
	if (uvfs_fuse_set_signal_handlers(uf) != 0) {
		uvfs_fuse_destroy(uf);
		return -EIO;
	}
	r = uvfs_fuse_loop(uf);
	uvfs_fuse_remove_signal_handlers(uf);
	uvfs_fuse_destroy(uf);
	return r;
}
