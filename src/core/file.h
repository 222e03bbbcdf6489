/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * file.h - struct file, the open file description.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_FILE_H
#define UVFS_CORE_FILE_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

/* ---- file ---- */
#define FMODE_READ      0x1u
#define FMODE_WRITE     0x2u
#define FMODE_LSEEK     0x4u
#define FMODE_PATH      0x8u
#define FMODE_OPENED    0x10u
#define FMODE_NONOTIFY  0x20u /* pseudo file: no fsnotify checks (seed 003) */
#define FMODE_ATOMIC_POS 0x40u
#define FMODE_LIGHT     0x200u /* calls never sleep on a peer: fdget may skip the reference */
#define FMODE_WRITER    0x400u /* holds write access to its mount (Linux's FMODE_WRITER) */
/* a regular file that takes no O_DIRECT: a memfd, which Linux's alloc_file_pseudo
 * leaves without FMODE_CAN_ODIRECT (opened again by name, it has it) */
#define FMODE_NO_ODIRECT 0x800u
/* RWF_NOWAIT works (Linux's FMODE_NOWAIT): pipe2's two files only, not a FIFO's
 * open nor a pipe opened again through uvfs_fd_reopen */
#define FMODE_NOWAIT    0x1000u

struct file {
	long f_count; /* atomic */
	unsigned f_gen; /* odd while a reused struct file is being set up; see fd_path_rcu */
	unsigned f_mode;
	unsigned f_flags; /* O_* status flags as open(2) and F_SETFL left them */
	/* atomic: a splice used this pipe file, so RWF_NOWAIT no longer works
	 * on it (Linux's pipe_clear_nowait takes FMODE_NOWAIT away: splice
	 * holds the pipe's lock across its I/O).  Meaningful with FMODE_NOWAIT
	 * alone: create_pipe_files zeroes it. */
	unsigned f_nowait_off;
	pthread_mutex_t f_pos_lock;
	loff_t f_pos;
	struct path f_path;
	struct inode *f_inode;
	const struct file_operations *f_op;
	struct uvfs *f_uvfs;
	struct epitem *f_ep; /* epoll items watching this file (eventpoll.c); NULL when it is freed */

	const struct cred *f_cred; /* the opener's, referenced; kept by a cached free file (api.h) */

	void *private_data;
	union {
		struct rcu_head f_rcu;
		struct callback_head f_task_work;
		struct file *f_cache_next; /* the thread's cache of free files (file_table.c) */
	};
};

#endif
