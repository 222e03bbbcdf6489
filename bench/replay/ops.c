/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ops.c - the replay's calls on each target.  The host's are the system
 * calls themselves (faccessat2 and getcwd through syscall(2), so glibc's
 * emulations are not what is measured); uvfs's are the library's functions,
 * resolved in the handle target.c opened, so a call is one indirect call.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "replay/ops.h"

#define RET(x) do { long r_ = (x); return r_ < 0 ? -errno : r_; } while (0)

static int h_openat(struct uvfs_proc *p, int d, const char *path, int flags, mode_t mode)
{ RET(openat(d, path, flags, mode)); }
static int h_close(struct uvfs_proc *p, int fd)
{ RET(close(fd)); }
static ssize_t h_read(struct uvfs_proc *p, int fd, void *buf, size_t n)
{ RET(read(fd, buf, n)); }
static ssize_t h_pread(struct uvfs_proc *p, int fd, void *buf, size_t n, off_t off)
{ RET(pread(fd, buf, n, off)); }
static off_t h_lseek(struct uvfs_proc *p, int fd, off_t off, int whence)
{ RET(lseek(fd, off, whence)); }
static int h_ftruncate(struct uvfs_proc *p, int fd, off_t len)
{ RET(ftruncate(fd, len)); }
static int h_fstat(struct uvfs_proc *p, int fd, struct stat *st)
{ RET(fstat(fd, st)); }
static int h_fstatat(struct uvfs_proc *p, int d, const char *path, struct stat *st, int flags)
{ RET(fstatat(d, path, st, flags)); }
static int h_statx(struct uvfs_proc *p, int d, const char *path, int flags, unsigned mask,
		   struct statx *stx)
{ RET(statx(d, path, flags, mask, stx)); }
static int h_faccessat(struct uvfs_proc *p, int d, const char *path, int mode, int flags)
{ RET(syscall(SYS_faccessat2, d, path, mode, flags)); }
static ssize_t h_readlinkat(struct uvfs_proc *p, int d, const char *path, char *buf, size_t n)
{ RET(readlinkat(d, path, buf, n)); }
static ssize_t h_getdents64(struct uvfs_proc *p, int fd, void *buf, size_t n)
{ RET(getdents64(fd, buf, n)); }
static int h_chdir(struct uvfs_proc *p, const char *path)
{ RET(chdir(path)); }
static int h_fchdir(struct uvfs_proc *p, int fd)
{ RET(fchdir(fd)); }
static int h_getcwd(struct uvfs_proc *p, char *buf, size_t n)
{ RET(syscall(SYS_getcwd, buf, n)); }
static int h_mkdirat(struct uvfs_proc *p, int d, const char *path, mode_t mode)
{ RET(mkdirat(d, path, mode)); }
static int h_symlinkat(struct uvfs_proc *p, const char *target, int d, const char *path)
{ RET(symlinkat(target, d, path)); }
static int h_fchmodat(struct uvfs_proc *p, int d, const char *path, mode_t mode, int flags)
{ RET(fchmodat(d, path, mode, flags)); }

const struct replay_ops replay_host_ops = {
	.openat = h_openat, .close = h_close, .read = h_read, .pread = h_pread,
	.lseek = h_lseek, .ftruncate = h_ftruncate, .fstat = h_fstat, .fstatat = h_fstatat,
	.statx = h_statx, .faccessat = h_faccessat, .readlinkat = h_readlinkat,
	.getdents64 = h_getdents64, .chdir = h_chdir, .fchdir = h_fchdir, .getcwd = h_getcwd,
	.mkdirat = h_mkdirat, .symlinkat = h_symlinkat, .fchmodat = h_fchmodat,
};

#define SYM(f) { "uvfs_" #f, offsetof(struct replay_ops, f) }
static const struct {
	const char *name;
	size_t off;
} syms[] = {
	SYM(openat), SYM(close), SYM(read), SYM(pread), SYM(lseek), SYM(ftruncate),
	SYM(fstat), SYM(fstatat), SYM(statx), SYM(faccessat), SYM(readlinkat),
	SYM(getdents64), SYM(chdir), SYM(fchdir), SYM(getcwd), SYM(mkdirat), SYM(symlinkat),
	SYM(fchmodat),
};

/* The table's types must be the library's own. */
#define SAME(f) _Static_assert(__builtin_types_compatible_p(typeof(&uvfs_##f), \
				typeof(((struct replay_ops *)0)->f)), "uvfs_" #f)
SAME(openat); SAME(close); SAME(read); SAME(pread); SAME(lseek); SAME(ftruncate);
SAME(fstat); SAME(fstatat); SAME(statx); SAME(faccessat); SAME(readlinkat);
SAME(getdents64); SAME(chdir); SAME(fchdir); SAME(getcwd); SAME(mkdirat); SAME(symlinkat);
SAME(fchmodat);

int replay_uvfs_ops(struct target *t, struct replay_ops *ops, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(t->dl, syms[i].name);

		if (!f) {
			snprintf(err, errlen, "%s: no symbol %s", t->lib, syms[i].name);
			return -1;
		}
		memcpy((char *)ops + syms[i].off, &f, sizeof(f));
	}
	return 0;
}
