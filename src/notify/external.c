// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * external.c - changes a filesystem learns of from outside uvfs (hostfs
 * with cache=watch: the host's inotify), told to uvfs's watchers.
 *
 * Such a filesystem reads its news asynchronously, so an inotify read that
 * came right after the outside change could miss it.  A source registers
 * here and every inotify read, poll and FIONREAD of the instance first has
 * each source read in what is pending: a change that happened before the
 * read started is queued by the time it looks.  With no source registered
 * that costs one load.
 */
#include "fsnotify.h"
#include "fsnotify_backend.h"

static pthread_mutex_t sources_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(sources);

void fsnotify_source_add(struct fsnotify_source *s)
{
	pthread_mutex_lock(&sources_lock);
	list_add_tail(&s->list, &sources);
	__atomic_fetch_add(&s->vfs->nr_fsnotify_sources, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sources_lock);
}

/* After this returns no sync of s runs or will run. */
void fsnotify_source_del(struct fsnotify_source *s)
{
	pthread_mutex_lock(&sources_lock);
	list_del_init(&s->list);
	__atomic_fetch_sub(&s->vfs->nr_fsnotify_sources, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sources_lock);
}

void __fsnotify_sources_sync(struct uvfs *vfs)
{
	pthread_mutex_lock(&sources_lock);
	struct list_head *pos;
	list_for_each(pos, &sources) {
		struct fsnotify_source *s = list_entry(pos, struct fsnotify_source, list);
		if (s->vfs == vfs)
			s->sync(s);
	}
	pthread_mutex_unlock(&sources_lock);
}
