// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * selftest.c - the sweep's own checks must see what they are for: the walk
 * a wrong link count, a wrong directory size, and an inode or a page the
 * tmpfs counts that the tree does not hold, all made behind the API's back;
 * the live count an allocation never freed.  Run once, in a child, before
 * the sweep.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include "vfs.h"
#include "fs/tmpfs/tmpfs.h"
#include "fault_alloc.h"
#include "treewalk.h"

void *fault_malloc(size_t n);
void fault_free(void *p);
void file_cache_drain(void);
void rcu_cache_thread_exit(void); /* lib/rcu_cache.h: the thread's cached dentries and inodes */

static int npass, nfail;

static void expect(bool ok, const char *what, const char *msg)
{
	if (ok) {
		npass++;
	} else {
		nfail++;
		printf("FAIL selftest: %s (walk: %s)\n", what, msg[0] ? msg : "nothing found");
	}
}

/* Returns the failures; adds the passes to *passed. */
int fault_selftest(int *passed)
{
	char msg[1024];
	struct uvfs *fs = uvfs_create(NULL);
	struct uvfs_proc *p = fs ? uvfs_proc_create(fs, 0, 0) : NULL;
	if (!p) {
		printf("FAIL selftest: no instance\n");
		return 1;
	}
	uvfs_mkdirat(p, AT_FDCWD, "/d", 0755);
	int fd = uvfs_openat(p, AT_FDCWD, "/d/f", O_CREAT | O_RDWR, 0644);
	int dfd = uvfs_openat(p, AT_FDCWD, "/d", O_RDONLY | O_DIRECTORY, 0);
	expect(fd >= 0 && dfd >= 0 && tree_check(fs, msg, sizeof msg) == 0, "a sound tree passes", msg);

	struct file *f = fget(p, fd);
	inc_nlink(f->f_inode);
	expect(tree_check(fs, msg, sizeof msg) > 0 && strstr(msg, "nlink 2, 1 names"), "an extra link count is seen",
	       msg);
	drop_nlink(f->f_inode);
	struct tmpfs_sb_info *sbi = TMPFS_SB(f->f_inode->i_sb);
	sbi->used_inodes++;
	expect(tree_check(fs, msg, sizeof msg) > 0 && strstr(msg, "counts 4 inodes in use, the walk found 3"),
	       "an inode counted but not found is seen", msg);
	sbi->used_inodes--;
	sbi->used_blocks++;
	expect(tree_check(fs, msg, sizeof msg) > 0 && strstr(msg, "counts 1 pages in use, the files found hold 0"),
	       "a page counted but not held is seen", msg);
	sbi->used_blocks--;
	fput(f);

	struct file *d = fget(p, dfd);
	d->f_inode->i_size += 20;
	expect(tree_check(fs, msg, sizeof msg) > 0 && strstr(msg, "size 80 with 1 entries"),
	       "a directory size off by one entry is seen", msg);
	d->f_inode->i_size -= 20;
	fput(d);
	expect(tree_check(fs, msg, sizeof msg) == 0, "the repaired tree passes", msg);
	uvfs_close(p, fd);
	uvfs_close(p, dfd);
	uvfs_proc_destroy(p);
	uvfs_destroy(fs);
	file_cache_drain();
	rcu_cache_thread_exit();
	urcu_memb_barrier();
	msg[0] = 0;
	expect(fault_live() == 0, "nothing live after uvfs_destroy", msg);
	void *x = fault_malloc(16);
	expect(fault_live() == 1, "an allocation not freed is counted", msg);
	fault_free(x);
	*passed += npass;
	return nfail;
}
