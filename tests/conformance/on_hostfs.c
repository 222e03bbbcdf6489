// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance-hostfs: the conformance scenarios with their root on a
 * hostfs mount (backend_uvfs.c, UVFS_CONF_FS=hostfs) of a fresh directory
 * of the host's tmpfs, against the host's own tmpfs: the same calls made on
 * the host directory through uvfs and directly must agree.  The
 * directories live under one made here in /dev/shm and removed at the end.
 * Every scenario runs but the ones below.
 *
 * Left out, and why (4 of the scenarios): chroot_jail, proc_fs_state,
 * mount_pivot_root_jailed: they
 * read a cwd outside the proc's root, which uvfs names by its path in the
 * instance, and the scenario's root here is a chroot into the hostfs mount
 * ("/.hostfs"), where the host side's is its namespace's own root
 * (conformance-testfs leaves them out for the same reason).
 * memfd_seals_path_file: the seals of files made by name, which only tmpfs
 * has (F_GET_SEALS is EINVAL on a hostfs file, as on any filesystem but
 * tmpfs and hugetlbfs on Linux), against the host's tmpfs; the other memfd_
 * scenarios run (a memfd lives on the instance's internal tmpfs).
 */
#include "on_fs.h"

static const char *const excluded[] = { "chroot_jail", "proc_fs_state", "mount_pivot_root_jailed",
					 "memfd_seals_path_file" };

const struct on_fs on_fs = { .fs = "hostfs", .excluded = ON_FS_LIST(excluded), .host_dir = true };
