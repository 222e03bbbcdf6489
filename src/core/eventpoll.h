/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * eventpoll.h - what the VFS calls into epoll (eventpoll.c) for: the
 * release of a file that epoll instances watch.
 */
#ifndef UVFS_CORE_EVENTPOLL_H
#define UVFS_CORE_EVENTPOLL_H

#include "vfs.h"

void eventpoll_release_file(struct file *f);

/*
 * Linux's eventpoll_release, from __fput before ->release: the items on the
 * file go with it.  One load when nothing watches it: nobody can add an item
 * now (that needs a reference), and a removal racing this load leaves the
 * head NULL with its last store, after which it touches the file no more.
 */
static inline void eventpoll_release(struct file *f)
{
	if (unlikely(__atomic_load_n(&f->f_ep, __ATOMIC_ACQUIRE)))
		eventpoll_release_file(f);
}

#endif /* UVFS_CORE_EVENTPOLL_H */
