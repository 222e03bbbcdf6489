/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz.h - what the sequences of the fuzzer (tests/fuzz) use beyond conf.h:
 * the fuzzer itself and the scenarios it found (fuzzfound.c) include it.
 */
#ifndef CONF_FUZZ_H
#define CONF_FUZZ_H

#include <sys/xattr.h>
#include <linux/fs.h>
#include <linux/falloc.h>

/* names of NAME_MAX bytes and one more */
#define N255 "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
#define N256 N255 "n"

/* What sequences write (PAT: FUZZ_BUF bytes of a fixed text, common.c)
 * and read into (buf[FUZZ_BUF]): no size the generator makes is larger. */
#define FUZZ_BUF 131072
const char *pattern(void);
#define PAT pattern()
/* A valid file capability of 20 bytes (revision 2, effective) or 24
 * (revision 3 rooted at uid 0, read back as revision 2), common.c */
const char *capability_value(long long size);
#define CAPV(size) capability_value(size)
/* POSIX ACLs in Linux's xattr format, k < ACLV_N: minimal ones, with named
 * entries for uid and gid 1000, and one without its mask (EINVAL); common.c */
#define ACLV_N 6
const char *acl_value(long long k);
size_t acl_value_size(int k);
#define ACLV(k) acl_value(k)

/* docs/ARCHITECTURE.md, "Deliberate differences from Linux" */
#define FUZZ_DOC_EMPTY_PATH "linkat(AT_EMPTY_PATH) by non-root: uvfs compares fs ids, Linux the cred object"
/* docs/ARCHITECTURE.md, "File handles" (and conformance fh_stale) */
#define FUZZ_DOC_NAMELESS_HANDLE "open_by_handle_at of an object with no name: uvfs finds a handle's inode in the dentry tree"
/* in the fuzzer's hostfs runs, against the host's tmpfs (tests/fuzz/README.md) */
#define FUZZ_DOC_SEALS "seals of a hostfs file: none (EINVAL), where the host's tmpfs file has F_SEAL_SEAL"
#define FUZZ_DOC_SEALS_ON 2

#define pipe2(f, fl) B->pipe2(BX, f, fl)
#define ioctl(fd, r, a) B->ioctl(BX, fd, r, a)
#define inotify_init1(f) B->inotify_init1(BX, f)
#define inotify_add_watch(fd, p, m) B->inotify_add_watch(BX, fd, p, m)
#define inotify_rm_watch(fd, wd) B->inotify_rm_watch(BX, fd, wd)
#define pwritev2(fd, v, n, o, f) B->pwritev2(BX, fd, v, n, o, f)
#define preadv2(fd, v, n, o, f) B->preadv2(BX, fd, v, n, o, f)
#define fallocate(fd, m, o, l) B->fallocate(BX, fd, m, o, l)
#define setxattr(p, n, v, s, f) B->setxattr(BX, p, n, v, s, f)
#define removexattr(p, n) B->removexattr(BX, p, n)
#define memfd_create(n, f) B->memfd_create(BX, n, f)
/* session 15: calls on an fd's file, whatever the fd holds */
#define syncfs(fd) B->syncfs(BX, fd)
#define posix_fadvise(fd, o, l, a) B->fadvise(BX, fd, o, l, a)
#define flock(fd, op) B->flock(BX, fd, op)
#define sendfile(o, i, off, n) B->sendfile(BX, o, i, off, n)
#define copy_file_range(a, oa, b, ob, n, f) B->copy_file_range(BX, a, oa, b, ob, n, f)
#define fgetxattr(fd, n, v, s) B->fgetxattr(BX, fd, n, v, s)
/* session 16: the xattr calls' l and f forms, and the listings */
#define lsetxattr(p, n, v, s, f) B->lsetxattr(BX, p, n, v, s, f)
#define fsetxattr(fd, n, v, s, f) B->fsetxattr(BX, fd, n, v, s, f)
#define getxattr(p, n, v, s) B->getxattr(BX, p, n, v, s)
#define lgetxattr(p, n, v, s) B->lgetxattr(BX, p, n, v, s)
#define listxattr(p, l, s) B->listxattr(BX, p, l, s)
#define llistxattr(p, l, s) B->llistxattr(BX, p, l, s)
#define flistxattr(fd, l, s) B->flistxattr(BX, fd, l, s)
#define splice(a, oa, b, ob, n, f) B->splice(BX, a, oa, b, ob, n, f)
#define tee(a, b, n, f) B->tee(BX, a, b, n, f)
#define name_to_handle_at(d, p, h, m, f) B->name_to_handle_at(BX, d, p, h, m, f)
#define open_by_handle_at(m, h, f) B->open_by_handle_at(BX, m, h, f)
/* an open_how with room behind it that is zero, for openat2's larger sizes */
struct open_how_ext {
	struct open_how how;
	char zero[16];
};
#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x20
#endif

#endif
