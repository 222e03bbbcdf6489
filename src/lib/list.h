/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Intrusive lists: a doubly linked circular list, and an hlist whose
 * forward links may be walked under RCU while writers (holding a lock)
 * add and remove. */
#ifndef UVFS_LIB_LIST_H
#define UVFS_LIB_LIST_H
#include "compiler.h"

struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
/* next is written with WRITE_ONCE so that list_empty may be asked without
 * the list's lock (an unlocked "anything there?" before taking it). */
static inline void INIT_LIST_HEAD(struct list_head *l) { WRITE_ONCE(l->next, l); l->prev = l; }
static inline bool list_empty(const struct list_head *l) { return READ_ONCE(l->next) == l; }
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n; n->next = next; n->prev = prev; WRITE_ONCE(prev->next, n);
}
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev; WRITE_ONCE(e->prev->next, e->next); INIT_LIST_HEAD(e);
}
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	e->next->prev = e->prev; WRITE_ONCE(e->prev->next, e->next); __list_add(e, h->prev, h);
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head) \
	for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)

struct hlist_node { struct hlist_node *next, **pprev; };
struct hlist_head { struct hlist_node *first; };
/* pprev is written with WRITE_ONCE: whether a node is hashed may be asked
 * without the lock that orders its changes. */
static inline bool hlist_unhashed(const struct hlist_node *n) { return !READ_ONCE(n->pprev); }
static inline void hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;
	WRITE_ONCE(n->next, first); /* a reader may stand on n: rename re-adds it */
	WRITE_ONCE(n->pprev, &h->first);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
	smp_store_release(&h->first, n);
}
/* Unlinks n; n->next stays valid so that a reader standing on n goes on. */
static inline void hlist_del_rcu(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	smp_store_release(n->pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, n->pprev);
	WRITE_ONCE(n->pprev, NULL);
}
#endif
