/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * epoch.c - make the kernel look every cached name up again, at once and
 * without a lock: FUSE_NOTIFY_INC_EPOCH (protocol 7.44, Linux 6.16).
 *
 * Without default_permissions the kernel checks nothing on a walk through
 * names it has cached, so a change that takes search permission away must
 * have reached that cache before the call that made it returns.  Dropping
 * the names below the directory (inval_entry) needs the directory's lock,
 * which the kernel holds for the very chmod whose reply would wait for it;
 * dropping the directory's own name needs its parent's lock, which a rename
 * of the directory into another one holds while it waits for the
 * directory's, held by the chmod: both deadlock.  The epoch takes no lock:
 * the kernel stamps every name with the epoch it read before the lookup was
 * sent, and a name with an older stamp is looked up again (as the walker) at
 * its next walk.  The price is one LOOKUP per name the kernel had cached,
 * after such a change only.
 */
#include "internal.h"

#define UF_NOTIFY_INC_EPOCH 8 /* enum fuse_notify_code; libfuse 3.14 predates it */

/* struct fuse_out_header: a notification is a reply with unique 0 and the
 * code in error; this one carries nothing else. */
struct uf_notify_header {
	uint32_t len;
	int32_t error;
	uint64_t unique;
};

int uf_inc_epoch(struct uvfs_fuse *uf)
{
	struct uf_notify_header h = { sizeof(h), UF_NOTIFY_INC_EPOCH, 0 };
	ssize_t r = write(fuse_session_fd(uf->se), &h, sizeof(h));

	if (r < 0)
		return -errno;
	return r == sizeof(h) ? 0 : -EIO;
}

void uf_names_closed(struct uvfs_fuse *uf)
{
	/* Without the epoch no name is cached where this matters
	 * (uf_name_timeout); a kernel that refuses it now refused it at mount. */
	if (uf->epoch)
		(void)uf_inc_epoch(uf);
}
