// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * atime.c - the atime rules a mount can ask for besides relatime (the
 * default, inode.c): noatime, nodiratime and strictatime.  inode_touch_atime
 * comes here only when one of those flags is set on the mount, so a read on
 * an ordinary mount pays nothing for them.
 */
#include "vfs.h"

/*
 * Linux's atime_needs_update, for a mount with MNT_NOATIME, MNT_RDONLY,
 * MNT_NODIRATIME or MNT_STRICTATIME: true when the mount's flags decided
 * (no update, or the update done here), false to go on with the
 * superblock's flags and relatime.
 */
bool mnt_touch_atime(struct inode *inode, unsigned mnt_flags)
{
	if (mnt_flags & (MNT_NOATIME | MNT_RDONLY))
		return true;
	if ((mnt_flags & MNT_NODIRATIME) && S_ISDIR(READ_ONCE(inode->i_mode)))
		return true;
	if (!(mnt_flags & MNT_STRICTATIME))
		return false;
	if ((READ_ONCE(inode->i_sb->s_flags) & (SB_NOATIME | SB_RDONLY)) || (READ_ONCE(inode->i_flags) & S_NOATIME))
		return true;
	/* strictatime: every access moves atime, unless it is already now */
	struct timespec now = current_time(), at, mt, ct;
	inode_read_times(inode, &at, &mt, &ct, NULL);
	if (at.tv_sec != now.tv_sec || at.tv_nsec != now.tv_nsec)
		inode_set_times(inode, &now, NULL, NULL);
	return true;
}
