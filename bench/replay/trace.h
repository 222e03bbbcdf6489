/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.h - a replay file (bench/replay/FORMAT.md) in memory: the manifest
 * the mirror is built from and the calls in order, each with its recorded
 * result.
 */
#ifndef UVFS_BENCH_REPLAY_TRACE_H
#define UVFS_BENCH_REPLAY_TRACE_H

#include <stddef.h>

enum rop {
	R_OPEN, R_STAT, R_FSTAT, R_STATX, R_ACCESS, R_READLINK, R_GETDENTS, R_CLOSE,
	R_READ, R_PREAD, R_LSEEK, R_CHDIR, R_FCHDIR, R_GETCWD, R_EXEC, R_NOPS
};

/* What a call returned: compared between the recording and every target. */
struct outcome {
	long long ret;           /* value or -errno (open: 0 for any fd) */
	unsigned mode;           /* stat family: st_mode */
	long long size;          /* stat family: st_size (regular files, symlinks) */
	unsigned long long hash; /* readlink, getcwd: of the string */
};

struct rcall {
	unsigned line;           /* the strace line it came from */
	unsigned fline;          /* its line in the replay file */
	unsigned char op;
	int slot;                /* open: the slot it fills (-1: failed); fd calls: the slot */
	int dir;                 /* path calls: -1 AT_FDCWD, else the slot */
	int flags;
	unsigned mask;           /* statx */
	long long a, b;          /* read: count; pread: count, off; lseek: off, whence;
				    access: mode; readlink, getcwd: size */
	char *path;
	struct outcome rec;      /* recorded */
	char *body;              /* readlink, getcwd: the recorded string (for messages) */
};

struct mentry {
	char type;               /* d, f, l */
	unsigned mode;
	long long size;
	char *path, *body;       /* body: a symlink's */
};

struct skip {
	char *why;
	long n;
};

struct trace {
	const char *file;
	char *text;               /* the file; every string points into it */
	char *cwd;
	struct mentry *m;
	int nm;
	struct rcall *c;
	int nc;
	int nslots;
	struct skip *skips;
	int nskips;
	long skipped;            /* the sum of the skip lines */
	int replayed;            /* calls that are replayed (all but exec markers) */
};

/* Reads FILE; 0, or -1 with "FILE:LINE: expected ..." in err. */
int trace_load(const char *file, struct trace *t, char *err, size_t errlen);
void trace_free(struct trace *t);
const char *rop_name(int op);
unsigned long long hash_str(const char *s, size_t n);

#endif
