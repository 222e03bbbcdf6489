/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostfs_watch.h - what the two halves of cache=watch share: the host's
 * events and the thread that reads them (hostfs_watch.c), and the wrapped
 * operations uvfs's own changes and checks go through (hostfs_watch_ops.c).
 * Private to src/fs/hostfs/.
 */
#ifndef UVFS_HOSTFS_WATCH_H
#define UVFS_HOSTFS_WATCH_H
#include "hostfs.h"
#include "notify/fsnotify.h"

#define WD_HASH 256
#define COOKIES 8

/* One per cache=watch superblock (hsb->watch); its lock is "the watch
 * mutex" of hostfs_watch.c's comment. */
struct hostfs_watch {
	int fd;      /* the host inotify, non-blocking */
	int stop_fd; /* eventfd: tells the thread to leave */
	pthread_t thread;
	bool thread_started, source_added;
	pthread_mutex_t lock;
	struct super_block *sb;
	struct fsnotify_source source;
	/* under hsb->lock */
	struct hnode *table[WD_HASH];
	uint64_t clock;
	/* under lock: host cookie -> uvfs cookie, the last few renames */
	struct {
		uint32_t host, uvfs;
	} cookies[COOKIES];
	unsigned next_cookie;
	/* under lock: the object of a host rename, between its events */
	struct inode *moved;
	uint32_t moved_cookie;
};

/* What a change uvfs makes will be reported as: names in directories, and
 * the objects changed (a directory's own watch reports it without a name). */
struct hw_self {
	struct hnode *dir[2];
	const char *name[2];
	struct hnode *target[2];
};

/* a directory's generation (0: not watched) */
static inline uint64_t gen_of(struct inode *dir)
{
	return __atomic_load_n(&HOSTFS_I(dir)->gen, __ATOMIC_ACQUIRE);
}

/* the inode's attributes are read from the host at its next stat */
static inline void mark_stale(struct inode *inode)
{
	__atomic_store_n(&HOSTFS_I(inode)->stale, 1, __ATOMIC_RELEASE);
}

/* Reads and applies what the host queued; the events that self names are
 * uvfs's own and are not passed on (w->lock held). */
void hostfs_watch_drain_locked(struct hostfs_sb *hsb, const struct hw_self *self);
/* The same, taking w->lock: what the host did before this call is applied. */
void hostfs_watch_sync(struct hostfs_sb *hsb);

#endif
