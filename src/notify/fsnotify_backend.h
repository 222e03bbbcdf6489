/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsnotify_backend.h - groups, marks and events (Linux's
 * include/linux/fsnotify_backend.h), shared by fsnotify.c and inotify.c.
 *
 * A group is one listener (an inotify instance); a mark ties a group to an
 * inode with a mask of events; an event waits in its group's queue until it
 * is read.
 *
 * Locks, in order (a lock may be taken while holding the ones above it):
 *
 *   group->mark_mutex    the group's marks (g_list), their wd table and
 *                        mark->alive; creating, updating and destroying marks
 *   fsnotify_obj_lock(i) inode->i_fsnotify_marks (i_list), mark->mask and
 *                        mark->flags, sb->s_fsnotify_watchers changes; a
 *                        striped table of mutexes keyed by inode address
 *   group->notification_lock  the event queue, q_len, shutdown
 *   group->notification_waitq.lock  (wait.h) readers and pollers
 *
 * Delivery holds no lock while it calls a group: it takes the object lock
 * only to collect the interested marks (each with a reference), as Linux's
 * SRCU walk of the mark list does.
 *
 * References: a mark is held by its attachment (the "alive" reference,
 * dropped by fsnotify_destroy_mark) and by deliveries in flight; it holds
 * its group and its inode.  A group is held by its file and by its marks.
 */
#ifndef UVFS_NOTIFY_BACKEND_H
#define UVFS_NOTIFY_BACKEND_H

#include "fsnotify.h"

struct fsnotify_group;
struct fsnotify_mark;

/* One queued event, in the shape inotify reads it out. */
struct fsnotify_event {
	struct list_head list;
	uint32_t mask; /* with FS_EVENT_ON_CHILD kept: merging compares it */
	int wd;
	uint32_t cookie;
	uint32_t name_len; /* without the NUL; 0: no name */
	char name[];
};

struct fsnotify_ops {
	/* An event for mark; name is NULL unless the event names an entry of
	 * the marked directory.  No lock held. */
	void (*handle_event)(struct fsnotify_mark *m, uint32_t mask, const char *name, unsigned name_len,
			     uint32_t cookie);
	/* The mark was detached (its group's mark_mutex held): IN_IGNORED. */
	void (*freeing_mark)(struct fsnotify_mark *m);
	/* The group's last reference went. */
	void (*free_group_priv)(struct fsnotify_group *g);
};

#define INOTIFY_WD_HASH 64

struct fsnotify_group {
	long refcnt; /* atomic */
	const struct fsnotify_ops *ops;
	struct uvfs *vfs;

	pthread_mutex_t mark_mutex;
	struct list_head marks;

	pthread_mutex_t notification_lock;
	struct wait_queue_head notification_waitq; /* readers sleep here, pollers wait here */
	struct list_head notification_list;
	unsigned long q_len, max_events;
	bool shutdown;
	struct fsnotify_event *overflow_event; /* preallocated; queued at most once */

	/* inotify's (Linux's inotify_group_private_data) */
	struct fsnotify_mark *wd_hash[INOTIFY_WD_HASH];
	int last_wd;
	uid_t uid; /* whose watch and instance counts it charges */
	void *priv;
};

#define FSN_MARK_EXCL_UNLINK  0x1u /* IN_EXCL_UNLINK */
#define FSN_MARK_ONESHOT      0x2u /* IN_ONESHOT */
#define FSN_MARK_FIRED        0x4u /* a oneshot mark took its event; it is about to go */

struct fsnotify_mark {
	long refcnt; /* atomic */
	uint32_t mask;  /* FS_* events, FS_EVENT_ON_CHILD for directories; under the object lock */
	unsigned flags; /* FSN_MARK_*; under the object lock */
	bool alive;     /* attached; under the group's mark_mutex */
	struct fsnotify_group *group;
	struct inode *inode;
	struct list_head i_list; /* inode->i_fsnotify_marks */
	struct list_head g_list; /* group->marks */
	int wd;
	struct fsnotify_mark *wd_next;
};

pthread_mutex_t *fsnotify_obj_lock(const struct inode *inode);

struct fsnotify_group *fsnotify_alloc_group(struct uvfs *vfs, const struct fsnotify_ops *ops,
					    unsigned long max_events);
void fsnotify_get_group(struct fsnotify_group *g);
void fsnotify_put_group(struct fsnotify_group *g);
/* The listener goes: no event is queued from now on, every mark goes. */
void fsnotify_destroy_group(struct fsnotify_group *g);

/* Queue an event: 0 queued, 1 merged into the last one (caller frees ev),
 * 2 not queued (overflow or shutdown; caller frees ev).  Passing the group's
 * overflow_event queues IN_Q_OVERFLOW unless it is queued already. */
int fsnotify_add_event(struct fsnotify_group *g, struct fsnotify_event *ev,
		       bool (*merge)(const struct fsnotify_event *last, const struct fsnotify_event *ev));

/* Mark life: attach to inode with the group's mark_mutex held; the mark
 * then holds the inode and the group. */
struct fsnotify_mark *fsnotify_alloc_mark(struct fsnotify_group *g);
void fsnotify_attach_mark_locked(struct fsnotify_mark *m, struct inode *inode);
/* The group's mark of inode, or NULL; mark_mutex held. */
struct fsnotify_mark *fsnotify_find_mark_locked(struct fsnotify_group *g, struct inode *inode);
void fsnotify_get_mark(struct fsnotify_mark *m);
void fsnotify_put_mark(struct fsnotify_mark *m);
void fsnotify_destroy_mark(struct fsnotify_mark *m);

#endif
