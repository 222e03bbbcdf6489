// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tmpfs_count.c - what a tmpfs counts as in use, read from the superblock:
 * statfs shows it only for a tmpfs with limits, and the scenarios' have
 * none.  The walk (treewalk.c) compares it with what it found.
 */
#include "vfs.h"
#include "fs/tmpfs/tmpfs.h"
#include "treewalk.h"

bool tree_tmpfs_usage(struct uvfs *fs, dev_t dev, long *inodes, long *pages)
{
	bool found = false;
	pthread_mutex_lock(&fs->ns_lock);
	struct list_head *pos;
	list_for_each(pos, &fs->supers) {
		struct super_block *sb = list_entry(pos, struct super_block, s_list);
		if (sb->s_dev != dev || sb->s_magic != TMPFS_MAGIC_)
			continue;
		*inodes = tmpfs_inodes_used(TMPFS_SB(sb));
		*pages = __atomic_load_n(&TMPFS_SB(sb)->used_blocks, __ATOMIC_RELAXED);
		found = true;
		break;
	}
	pthread_mutex_unlock(&fs->ns_lock);
	return found;
}
