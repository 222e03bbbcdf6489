/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uvfs_fuse.h - expose a uvfs tree through FUSE, so that every program (not
 * only those linked with libuvfs) can use it.
 *
 * The frontend speaks libfuse3's low-level protocol and maps each request onto
 * the public uvfs API (include/uvfs.h), with the credentials and umask of the
 * process that made the request, so that uvfs makes the permission decisions.
 *
 * Two ways to use it:
 *
 *   - all in one call, from a thread that may block until the file system is
 *     unmounted (SIGINT, SIGTERM, SIGHUP or `fusermount3 -u` end it):
 *
 *         uvfs_fuse_serve(fs, "/mnt/x", argc, argv);
 *
 *   - in steps, to run the loop in a thread of one's own and stop it from
 *     another one:
 *
 *         struct uvfs_fuse *uf = uvfs_fuse_new(fs, "/mnt/x", argc, argv, &err);
 *         ... thread A: uvfs_fuse_loop(uf);
 *         ... thread B: uvfs_fuse_exit(uf);   (A's loop returns)
 *         uvfs_fuse_destroy(uf);               (unmounts, frees)
 *
 * argv holds options in libfuse's conventions; argv[0] is a program name and
 * is ignored:
 *   -d              debug output (implies -f)
 *   -f              foreground (only meaningful to uvfs_fuse_daemonize)
 *   -s              single-threaded loop (the default is multi-threaded)
 *   -o OPT[,OPT...] allow_other, default_permissions, max_threads=N,
 *                   max_idle_threads=N, clone_fd, fsname=, subtype=, ... (any
 *                   option of libfuse's fuse_session_new), and these:
 *                   entry_timeout=S, attr_timeout=S, negative_timeout=S
 *                     (seconds the kernel may cache names, attributes and
 *                     failed lookups; default 86400 each when every change
 *                     reaches the frontend: the instance is its own, or the
 *                     change hook is installed; else 1.0)
 *                   keep_cache, nokeep_cache (file data stays cached across
 *                     opens, or is dropped at each; default as above: kept
 *                     when every change reaches the frontend)
 *                   watch, nowatch (exact invalidation through the change
 *                     hook, see below; default: watch when fs is the caller's,
 *                     nowatch when the frontend makes the instance)
 *                   size=BYTES[kmg%], nr_inodes=N[kmg], uid=N, gid=N, mode=OCTAL
 *                     (the tmpfs root; only when fs is NULL and the frontend
 *                     makes the uvfs instance itself)
 * A mount point in argv (a non-option argument) is used when mountpoint is
 * NULL.
 *
 * Changes made through the uvfs API by other procs while the tree is mounted
 * (the embedding application's): with watch (the default for an instance of
 * the caller's) the frontend adds a uvfs change listener
 * (uvfs_add_change_listener; the embedder may have its own) and, for
 * every change made by a proc that is not one of its own, invalidates the
 * names and attributes the kernel cached (fuse_lowlevel_notify_inval_entry/
 * _inode, sent by the frontend's notifier thread) before the library call
 * returns.  The hook is installed by uvfs_fuse_loop() before it serves the
 * first request, does nothing once uvfs_fuse_exit() was called, and is
 * removed by uvfs_fuse_destroy().  With nowatch the kernel learns about
 * such changes when its timeouts expire or a file is reopened, or at once
 * when the embedder calls uvfs_fuse_notify_*() below (the seam).
 */
#ifndef UVFS_FUSE_H
#define UVFS_FUSE_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UVFS_FUSE_VERSION "0.1.0"

struct uvfs;
struct uvfs_fuse;

/*
 * Parse the options and mount.  fs is the instance to expose; NULL makes a
 * new one (with the size=, nr_inodes=, uid=, gid=, mode= options) when the loop
 * starts, owned and destroyed by the frontend.  The caller keeps ownership of
 * a non-NULL fs and must not destroy it before uvfs_fuse_destroy().
 * On failure returns NULL with *err (if err is not NULL) set to a negative
 * errno: -EINVAL (bad options; a message went to stderr), -ENODEV (/dev/fuse
 * cannot be used), -ENOENT/-ENOTDIR (bad mount point), -EBUSY (the mount point
 * is already a mount point), -ENOTCONN (a stale FUSE mount is in the way),
 * -ENOMEM, or -EIO (the mount itself failed).
 */
struct uvfs_fuse *uvfs_fuse_new(struct uvfs *fs, const char *mountpoint, int argc, char **argv,
				int *err);

/* Detach from the terminal unless -f or -d was given (fuse_daemonize).  For a
 * program whose only job is to serve; an embedding application does not call
 * it.  Returns 0 or -1. */
int uvfs_fuse_daemonize(struct uvfs_fuse *uf);

/* Install handlers for SIGINT, SIGTERM and SIGHUP that end the loop, and
 * ignore SIGPIPE.  Process-wide: for programs, not libraries.  Returns 0 or -1. */
int uvfs_fuse_set_signal_handlers(struct uvfs_fuse *uf);
void uvfs_fuse_remove_signal_handlers(struct uvfs_fuse *uf);

/* Serve requests until the file system is unmounted or uvfs_fuse_exit() is
 * called.  Returns 0, or a negative errno if the loop could not start or
 * failed. */
int uvfs_fuse_loop(struct uvfs_fuse *uf);

/* Ask a running loop to return (from another thread; a signal handler should
 * use the handlers of uvfs_fuse_set_signal_handlers instead).  The loop is
 * woken by a lookup in the mount, made by the frontend's notifier thread. */
void uvfs_fuse_exit(struct uvfs_fuse *uf);

/* Unmount (if still mounted) and free everything, including the instance if
 * the frontend made it. */
void uvfs_fuse_destroy(struct uvfs_fuse *uf);

/* new + signal handlers + loop + destroy.  Returns 0 after a clean unmount or
 * a negative errno. */
int uvfs_fuse_serve(struct uvfs *fs, const char *mountpoint, int argc, char **argv);

/* The usage text of the options above, to stdout. */
void uvfs_fuse_print_help(void);

/*
 * Invalidation seam.  Tell the kernel that something changed behind its back
 * (through the uvfs API rather than through the mount):
 *   - the name `name` in directory `dir_ino` appeared, vanished or now points
 *     elsewhere (fuse_lowlevel_notify_inval_entry);
 *   - the attributes or the data of inode `ino` changed
 *     (fuse_lowlevel_notify_inval_inode; the page cache is dropped).
 * Inodes are uvfs inode numbers (st_ino) of the root mount's superblock.  An
 * inode the kernel does not know (never looked up, or forgotten) needs no
 * invalidation: returns 0.  Must not be called from inside a request handler
 * of the same mount.  Returns 0 or a negative errno.
 */
int uvfs_fuse_notify_inval_entry(struct uvfs_fuse *uf, ino_t dir_ino, const char *name);
int uvfs_fuse_notify_inval_inode(struct uvfs_fuse *uf, ino_t ino);

#ifdef __cplusplus
}
#endif
#endif /* UVFS_FUSE_H */
