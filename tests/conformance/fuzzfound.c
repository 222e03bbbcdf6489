/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzzfound.c - differences the sequence fuzzer (tests/fuzz) found, each
 * kept as the scenario it minimised the failing sequence to (s[] are its fd
 * slots), sometimes with a few checks more around it.
 */
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include "conf.h"
#include "events.h"
#include "fuzz.h"

/* fuzz -s 0x2 -i 4 and -i 8: chmod, chown and utimensat of a pipe or an
 * inotify fd crashed (pseudo files have no mount); Linux changes a pipe's
 * inode and refuses every change of the anon inode with EOPNOTSUPP. */
static void fz_setattr_pseudo(void)
{
	int s[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	{
		int p[2] = { -1, -1 };
		C(pipe2(p, O_NONBLOCK | O_DIRECT | O_CLOEXEC));
		s[7] = C(p[0]);
		s[5] = C(p[1]);
	}
	C(fchmod(1, 02755));
	FSTAT(s[7]);
	C(fchown(s[5], 1000, 2000));
	FSTAT(s[7]);
	C(utimensat(s[7], NULL, NULL, 0));
	C(utimensat(s[7], NULL, T_OLD, 0));
	C(fchownat(s[7], "", 0, 0, AT_EMPTY_PATH));
	s[1] = C(inotify_init1(IN_NONBLOCK));
	C(fchmod(s[1], 0755));
	C(fchown(s[1], 1000, 1000));
	C(fchown(s[1], -1, -1));
	C(fchownat(s[1], "", 0, 0, AT_EMPTY_PATH));
	C(utimensat(s[1], NULL, NULL, 0));
	C(utimensat(s[1], NULL, T_OLD, 0));
	FSTAT(s[1]);
	C(setcred(1000, 1000));
	C(fchmod(s[7], 0700));
	C(fchown(s[7], -1, -1));
	C(utimensat(s[7], NULL, NULL, 0));
	C(fchmod(s[1], 0700));
	C(fchown(s[1], -1, -1));
}

/* fuzz -s 0x2 -i 30 and -i 81: a recursive bind onto a place below the
 * source copied the new mount into itself until the stack overflowed. */
static void fz_rbind_below_source(void)
{
	C(mkdirat(AT_FDCWD, "/a", 0644));
	C(mount("a", "/a", NULL, MS_BIND | MS_REC, NULL));
	LS("/a");
	C(mkdirat(AT_FDCWD, "l", 02755));
	C(mount("tmpfs", "/l", "tmpfs", 0, NULL));
	C(mkdirat(AT_FDCWD, "/l/in", 0755));
	C(mount("/..", "/l", NULL, MS_BIND | MS_REC, NULL));
	LS("/l");
	LS("/l/l");
	LS("/l/l/in");
	C(umount2("/l", 0));
	LS("/l");
	C(umount2("/l", 0));
	C(umount2("/a", MNT_DETACH));
	LS("/");
}

/* fuzz -s 0x1 -i 6, -s 0x2 -i 1: mount by a non-root caller looked the
 * target up only after refusing (EPERM); Linux looks it up first, then
 * refuses, then looks the bind source up. */
static void fz_mount_lookup_before_eperm(void)
{
	C(mkdirat(AT_FDCWD, "/d", 0755));
	C(setcred(1000, 1000));
	C(mount("/.", "/" N255, NULL, MS_BIND | MS_REC, NULL));
	C(mount("/.", "/" N256, NULL, MS_BIND, NULL));
	C(mount("/nowhere", "/d", NULL, MS_BIND, NULL));
	C(mount("tmpfs", "b", "tmpfs", 0, "bogus=1"));
	C(mount("tmpfs", "/d", "nosuchfs", 0, NULL));
	C(mount(NULL, "b/b/", NULL, MS_REMOUNT, NULL));
	C(mount(NULL, "/d", NULL, MS_REMOUNT, NULL));
	C(mount("tmpfs", "", "tmpfs", 0, NULL));
}

const struct scenario fuzzfound_scenarios[] = {
	{ "fz_setattr_pseudo", fz_setattr_pseudo },
	{ "fz_rbind_below_source", fz_rbind_below_source },
	{ "fz_mount_lookup_before_eperm", fz_mount_lookup_before_eperm },
	{ NULL, NULL },
};
