/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target.c - the targets a testcase runs against.
 *
 * uvfs and uvfs-baseline: a shared library loaded with dlopen(RTLD_NOW |
 * RTLD_LOCAL), so both builds of the same symbols live side by side in one
 * process; the testcases call the library's functions through the pointers
 * dlsym returned.  host: glibc's system call wrappers on a fresh directory of
 * a host tmpfs.  uvfs-fuse: the host's calls, on a fresh directory under
 * --fuse-dir (a uvfs-fuse mount): every call that reaches uvfs is a FUSE
 * round trip.  It has no pipes (a pipe is not on a mount).
 *
 * Threads mode: for uvfs every worker calls into one proc (one fd table);
 * for the host, every worker is a thread of one process.  Processes mode:
 * for uvfs each worker is a thread with its own proc from uvfs_proc_create
 * (its own fd table, cwd, credentials) in the one instance; for the host each
 * worker is a real process (main.c forks them).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- host: system calls, errno returned as -errno ---- */
#define RET(x) do { long r_ = (x); return r_ < 0 ? -errno : r_; } while (0)

static int h_openat(struct uvfs_proc *p, int d, const char *path, int flags, mode_t mode)
{ RET(openat(d, path, flags, mode)); }
static int h_close(struct uvfs_proc *p, int fd)
{ RET(close(fd)); }
static ssize_t h_read(struct uvfs_proc *p, int fd, void *buf, size_t n)
{ RET(read(fd, buf, n)); }
static ssize_t h_write(struct uvfs_proc *p, int fd, const void *buf, size_t n)
{ RET(write(fd, buf, n)); }
static ssize_t h_pread(struct uvfs_proc *p, int fd, void *buf, size_t n, off_t off)
{ RET(pread(fd, buf, n, off)); }
static ssize_t h_pwrite(struct uvfs_proc *p, int fd, const void *buf, size_t n, off_t off)
{ RET(pwrite(fd, buf, n, off)); }
static off_t h_lseek(struct uvfs_proc *p, int fd, off_t off, int whence)
{ RET(lseek(fd, off, whence)); }
static int h_ftruncate(struct uvfs_proc *p, int fd, off_t len)
{ RET(ftruncate(fd, len)); }
static int h_dup(struct uvfs_proc *p, int fd)
{ RET(dup(fd)); }
static int h_fstat(struct uvfs_proc *p, int fd, struct stat *st)
{ RET(fstat(fd, st)); }
static int h_fstatat(struct uvfs_proc *p, int d, const char *path, struct stat *st, int flags)
{ RET(fstatat(d, path, st, flags)); }
static int h_mkdirat(struct uvfs_proc *p, int d, const char *path, mode_t mode)
{ RET(mkdirat(d, path, mode)); }
static int h_unlinkat(struct uvfs_proc *p, int d, const char *path, int flags)
{ RET(unlinkat(d, path, flags)); }
static int h_symlinkat(struct uvfs_proc *p, const char *target, int d, const char *path)
{ RET(symlinkat(target, d, path)); }
static ssize_t h_readlinkat(struct uvfs_proc *p, int d, const char *path, char *buf, size_t n)
{ RET(readlinkat(d, path, buf, n)); }
static int h_pipe2(struct uvfs_proc *p, int fds[2], int flags)
{ RET(pipe2(fds, flags)); }

static const struct bench_ops host_ops = {
	.openat = h_openat, .close = h_close, .read = h_read, .write = h_write,
	.pread = h_pread, .pwrite = h_pwrite, .lseek = h_lseek, .ftruncate = h_ftruncate,
	.dup = h_dup, .fstat = h_fstat, .fstatat = h_fstatat, .mkdirat = h_mkdirat,
	.unlinkat = h_unlinkat, .symlinkat = h_symlinkat, .readlinkat = h_readlinkat,
	.pipe2 = h_pipe2,
};

/* ---- uvfs: dlopen and dlsym ---- */
struct sym {
	const char *name;
	size_t off;     /* offset of the pointer in struct target */
	int optional;
};
#define OP(f, s) { "uvfs_" #s, offsetof(struct target, ops.f), 0 }
#define OPT(f, s) { "uvfs_" #s, offsetof(struct target, ops.f), 1 }
static const struct sym syms[] = {
	{ "uvfs_create", offsetof(struct target, api.create), 0 },
	{ "uvfs_destroy", offsetof(struct target, api.destroy), 0 },
	{ "uvfs_proc_create", offsetof(struct target, api.proc_create), 0 },
	{ "uvfs_proc_destroy", offsetof(struct target, api.proc_destroy), 0 },
	{ "uvfs_proc_set_nofile", offsetof(struct target, api.proc_set_nofile), 1 },
	OP(openat, openat), OP(close, close), OP(read, read), OP(write, write),
	OP(pread, pread), OP(pwrite, pwrite), OP(lseek, lseek), OP(ftruncate, ftruncate),
	OP(dup, dup), OP(fstat, fstat), OP(fstatat, fstatat), OP(mkdirat, mkdirat),
	OP(unlinkat, unlinkat), OP(symlinkat, symlinkat), OP(readlinkat, readlinkat),
	OPT(pipe2, pipe2),
};

/* The signatures the harness calls through must be the library's own: this
 * fails to compile if uvfs.h and struct bench_ops ever disagree. */
#define SAME(f, s) _Static_assert(__builtin_types_compatible_p(typeof(&uvfs_##s), \
					typeof(((struct bench_ops *)0)->f)), "uvfs_" #s)
SAME(openat, openat); SAME(close, close); SAME(read, read); SAME(write, write);
SAME(pread, pread); SAME(pwrite, pwrite); SAME(lseek, lseek); SAME(ftruncate, ftruncate);
SAME(dup, dup); SAME(fstat, fstat); SAME(fstatat, fstatat); SAME(mkdirat, mkdirat);
SAME(unlinkat, unlinkat); SAME(symlinkat, symlinkat); SAME(readlinkat, readlinkat);
_Static_assert(__builtin_types_compatible_p(typeof(&uvfs_create),
	typeof(((struct uvfs_api *)0)->create)), "uvfs_create");
_Static_assert(__builtin_types_compatible_p(typeof(&uvfs_proc_create),
	typeof(((struct uvfs_api *)0)->proc_create)), "uvfs_proc_create");

#ifdef UVFS_BENCH_PRELOAD_URCU
/* Linked, never called.  liburcu-memb keeps its reader state in
 * initial-exec TLS: loaded with the program, that TLS is part of the static
 * block; loaded later by dlopen (as a dependency of libuvfs.so) it needs
 * glibc's spare static TLS, which a sanitizer runtime uses up ("cannot
 * allocate memory in static TLS block").  One reference keeps the linker's
 * --as-needed from dropping the library. */
extern void urcu_memb_synchronize_rcu(void);
void (*const uvfs_bench_keep_urcu)(void) __attribute__((used)) = urcu_memb_synchronize_rcu;
#endif

int target_load(struct target *t)
{
	const char *err;
	size_t i;

	if (t->kind == TARGET_HOST) {
		struct stat st;

		if (!t->dirbase) {
			snprintf(t->why, sizeof(t->why), "no --fuse-dir given");
			return -1;
		}
		if (stat(t->dirbase, &st) < 0) {
			snprintf(t->why, sizeof(t->why), "%s: %s", t->dirbase, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(t->why, sizeof(t->why), "%s: not a directory", t->dirbase);
			return -1;
		}
		t->ops = host_ops;
		if (strcmp(t->name, "host"))
			t->ops.pipe2 = NULL;   /* uvfs-fuse: pipes are not on the mount */
		t->loaded = 1;
		return 0;
	}
	if (!t->lib) {
		snprintf(t->why, sizeof(t->why), "no library given");
		return -1;
	}
	t->dl = dlopen(t->lib, RTLD_NOW | RTLD_LOCAL);
	if (!t->dl) {
		err = dlerror();
		snprintf(t->why, sizeof(t->why), "%s", err ? err : "dlopen failed");
		return -1;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f;

		dlerror();
		f = dlsym(t->dl, syms[i].name);
		if (!f && !syms[i].optional) {
			snprintf(t->why, sizeof(t->why), "%s: no symbol %s", t->lib, syms[i].name);
			return -1;
		}
		memcpy((char *)t + syms[i].off, &f, sizeof(f));
	}
	t->loaded = 1;
	return 0;
}

unsigned target_has(const struct target *t)
{
	return t->ops.pipe2 ? BENCH_NEED_PIPE2 : 0;
}

int env_open(struct env *e, struct target *t, int processes, const char *hostdir,
	     char *err, size_t errlen)
{
	int ret;

	memset(e, 0, sizeof(*e));
	e->t = t;
	e->processes = processes;
	e->dirfd = -1;
	if (t->kind == TARGET_HOST) {
		e->hostdir = hostdir;
		e->dirfd = open(hostdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (e->dirfd < 0) {
			snprintf(err, errlen, "open %s: %s", hostdir, strerror(errno));
			return -errno;
		}
		return 0;
	}
	e->fs = t->api.create(NULL);
	if (!e->fs) {
		snprintf(err, errlen, "uvfs_create failed");
		return -ENOMEM;
	}
	e->proc = t->api.proc_create(e->fs, 0, 0);
	if (!e->proc) {
		snprintf(err, errlen, "uvfs_proc_create failed");
		return -ENOMEM;
	}
	ret = t->ops.mkdirat(e->proc, AT_FDCWD, "/bench", 0777);
	if (ret < 0) {
		snprintf(err, errlen, "uvfs mkdir /bench: %s", strerror(-ret));
		return ret;
	}
	if (!processes) {
		e->dirfd = t->ops.openat(e->proc, AT_FDCWD, "/bench", O_RDONLY | O_DIRECTORY, 0);
		if (e->dirfd < 0) {
			snprintf(err, errlen, "uvfs open /bench: %s", strerror(-e->dirfd));
			return e->dirfd;
		}
	}
	return 0;
}

int env_worker_attach(struct env *e, struct ctx *c, char *err, size_t errlen)
{
	struct target *t = e->t;

	c->ops = &t->ops;
	c->target = t->name;
	if (t->kind == TARGET_HOST) {
		c->p = NULL;
		c->dirfd = e->dirfd;
		return 0;
	}
	if (!e->processes) {
		c->p = e->proc;
		c->dirfd = e->dirfd;
		return 0;
	}
	c->p = t->api.proc_create(e->fs, 0, 0);
	if (!c->p) {
		snprintf(err, errlen, "uvfs_proc_create for worker %lu failed", c->nr);
		return -ENOMEM;
	}
	c->dirfd = t->ops.openat(c->p, AT_FDCWD, "/bench", O_RDONLY | O_DIRECTORY, 0);
	if (c->dirfd < 0) {
		snprintf(err, errlen, "worker %lu: uvfs open /bench: %s", c->nr, strerror(-c->dirfd));
		return c->dirfd;
	}
	return 0;
}

void env_worker_detach(struct env *e, struct ctx *c)
{
	if (e->t->kind == TARGET_UVFS && e->processes && c->p) {
		if (c->dirfd >= 0)
			e->t->ops.close(c->p, c->dirfd);
		e->t->api.proc_destroy(c->p);
		c->p = NULL;
	}
}

void env_close(struct env *e)
{
	if (e->t->kind == TARGET_HOST) {
		if (e->dirfd >= 0)
			close(e->dirfd);
		return;
	}
	if (e->proc) {
		if (e->dirfd >= 0)
			e->t->ops.close(e->proc, e->dirfd);
		e->t->api.proc_destroy(e->proc);
	}
	if (e->fs)
		e->t->api.destroy(e->fs);
}
