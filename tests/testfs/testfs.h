/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * testfs - a memory filesystem defined only through include/uvfs_fs.h, the
 * worked example of the filesystem boundary (docs/ARCHITECTURE.md).
 *
 * Besides what it is given, a directory has names that appear when looked
 * up: "auto-NAME" is a regular file whose contents are "NAME GEN\n", GEN
 * being the filesystem's generation when the name was looked up, and
 * "link-NAME" a symlink to "auto-NAME".  testfs_bump_generation makes every
 * such name stale: revalidate says so, and the next lookup makes it afresh
 * (a new inode number, the new generation in its contents).  Names can also
 * be changed behind the cache (testfs_remove, testfs_set_size), as another
 * client of a network filesystem would; a node removed so is stale when a
 * walk ends on it without a lookup (".": weak_revalidate, ESTALE).
 */
#ifndef UVFS_TESTS_TESTFS_H
#define UVFS_TESTS_TESTFS_H
#include "uvfs.h"
#include "uvfs_fs.h"

struct testfs;

/* Registers "testfs" with the instance (uvfs_register_filesystem's
 * errors). */
int testfs_register(struct uvfs *u);

/* The filesystem of the latest mount of testfs in any instance, or NULL;
 * the hooks below act on it. */
struct testfs *testfs_last(void);
void testfs_bump_generation(struct testfs *t);
/* Lookups slow down by usec each: threads that miss at once overlap. */
void testfs_set_lookup_delay(struct testfs *t, unsigned usec);
/* Lookup calls for name in the root directory, since the mount. */
unsigned long testfs_lookups(struct testfs *t, const char *name);
/* Lookups of one name in the root that overlapped in time: the VFS's
 * exclusion (d_alloc_parallel) keeps this 0. */
unsigned long testfs_overlaps(struct testfs *t);
unsigned long testfs_getattrs(struct testfs *t);
unsigned long testfs_readlinks(struct testfs *t);
/* weak_revalidate calls: walks that ended on ".", "..", "/" or the root */
unsigned long testfs_weak_revalidates(struct testfs *t);
/* Behind the cache: the name goes from the root directory / a root file's
 * size changes.  -ENOENT if there is no such name. */
int testfs_remove(struct testfs *t, const char *name);
int testfs_set_size(struct testfs *t, const char *name, long long size);

/* Nodes the VFS held and has not forgotten, over every testfs that went
 * (kill checks its own: a nonzero count there is a leak or an extra
 * forget). */
long testfs_unbalanced(void);

#endif
