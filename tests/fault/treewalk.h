/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * treewalk.h - the invariants of a uvfs tree, checked by walking it with a
 * proc of its own (uid 0) after a scenario's procs are gone.
 */
#ifndef FAULT_TREEWALK_H
#define FAULT_TREEWALK_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct uvfs;

/* Returns the number of violations; the first few are described in msg. */
unsigned long tree_check(struct uvfs *fs, char *msg, size_t len);

/* tmpfs_count.c: the inodes and pages the tmpfs of device dev counts in
 * use; false if there is none. */
bool tree_tmpfs_usage(struct uvfs *fs, dev_t dev, long *inodes, long *pages);

#endif
