/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mirror.h - building a trace's manifest in a target, and the host's private
 * root to build it in. */
#ifndef UVFS_BENCH_REPLAY_MIRROR_H
#define UVFS_BENCH_REPLAY_MIRROR_H

#include <stddef.h>

struct replay_ops;
struct trace;
struct uvfs_proc;

/* Every directory, file (of its size, sparse) and symlink of t's manifest,
 * with its mode, under the target's root; 0 or -1 with a message. */
int mirror_build(const struct replay_ops *o, struct uvfs_proc *p, const struct trace *t,
		 char *err, size_t errlen);
/* In this (child) process: a mount namespace of its own, a fresh tmpfs on
 * MNT (an empty directory) and chroot into it, so absolute paths resolve in
 * the mirror and nothing outside it can be reached; 0 or -1 with a
 * message. */
int mirror_host_root(const char *mnt, char *err, size_t errlen);
/* In this (child) process: a mount namespace of its own and a fresh tmpfs
 * on MNT, as mirror_host_root, but no chroot: the uvfs library DL mounts
 * hostfs of MNT in p's instance (cache=exclusive) and makes it p's root, so
 * the mirror is built, and the trace replayed, through hostfs onto the
 * host's tmpfs; 0 or -1 with a message. */
int mirror_hostfs_root(void *dl, struct uvfs_proc *p, const char *mnt, char *err, size_t errlen);

#endif
