/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * splice.h - what splice.c needs of the pipes (pipe.c): moving data between
 * a pipe's buffers and a file without the caller's buffer, and between two
 * pipes, with the waiting rules of Linux's fs/splice.c.
 */
#ifndef UVFS_CORE_SPLICE_H
#define UVFS_CORE_SPLICE_H
#include "vfs.h"

#ifndef SPLICE_F_MOVE
#define SPLICE_F_MOVE 0x01
#define SPLICE_F_NONBLOCK 0x02
#define SPLICE_F_MORE 0x04
#define SPLICE_F_GIFT 0x08
#endif
#define SPLICE_F_ALL (SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT)

/* true for a pipe or an open FIFO (Linux's get_pipe_info) */
bool file_is_pipe(const struct file *f);

/* Moves at most n bytes between data and a file; returns bytes moved (0:
 * the end of the file), or -errno. */
typedef ssize_t (*splice_actor)(void *ctx, char *data, size_t n);

/* File to pipe (splice_file_to_pipe): EPIPE with no reader; waits for a
 * free slot unless SPLICE_F_NONBLOCK (EAGAIN); then fills free slots, one
 * buffer per call of fill, until len, a short fill or a full ring. */
ssize_t pipe_fill(struct file *pf, size_t len, unsigned flags, splice_actor fill, void *ctx);
/* Pipe to file (iter_file_splice_write): 0 when empty with no writer;
 * waits for data unless SPLICE_F_NONBLOCK (EAGAIN); then hands what is
 * buffered, up to len, to drain, consuming what it took. */
ssize_t pipe_drain(struct file *pf, size_t len, unsigned flags, splice_actor drain, void *ctx);
/* Pipe to pipe: splice (moves buffers) or, with tee, copies them and
 * consumes nothing.  The two files are different pipes. */
ssize_t pipe_to_pipe(struct file *in, struct file *out, size_t len, unsigned flags, bool tee);

#endif
