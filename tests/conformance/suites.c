/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suites.c - facts of xfstests' generic tests and pjdfstest that the other
 * scenario files did not state on their own: which error wins on a
 * read-only filesystem when the name exists (generic/294), and the errors
 * of each namespace call on a read-only mount against ENOENT, ENOTDIR,
 * EEXIST and ENAMETOOLONG (the EROFS cases of pjdfstest, one test file per
 * call).
 */
#include "conf.h"

/* bind: a read-only bind mount (the mount's flag) instead of a read-only
 * superblock */
static void ro_checks(int bind)
{
	C(MKDIR("/m", 0777));
	if (!bind)
		C(TMPFS("/m", 0, NULL));
	C(MKDIR("/m/t", 0755));
	C(MKNOD("/m/t/node", S_IFCHR | 0644, makedev(1, 3)));
	C(MKDIR("/m/t/dir", 0755));
	C(mkfile("/m/t/target", ""));
	C(SYMLINK("/m/t/target", "/m/t/link"));
	if (bind) {
		C(mount("/m", "/m", NULL, MS_BIND, NULL));
		C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	} else {
		C(mount(NULL, "/m", NULL, MS_REMOUNT | MS_RDONLY, NULL));
	}
	/* generic/294: EEXIST, not EROFS, for what exists */
	C(MKNOD("/m/t/node", S_IFCHR | 0644, makedev(1, 3)));
	C(MKDIR("/m/t/dir", 0755));
	C(OPEN("/m/t/target", O_CREAT | O_WRONLY | O_NOCTTY | O_NONBLOCK));
	C(OPEN("/m/t/target", O_CREAT | O_EXCL | O_WRONLY));
	C(SYMLINK("/m/t/target", "/m/t/link"));
	C(LINK("/m/t/target", "/m/t/link"));
	C(utimensat(AT_FDCWD, "/m/t/target", NULL, 0));
	/* and what does not exist, or cannot be looked up */
	C(MKNOD("/m/t/new", S_IFIFO | 0644, 0));
	C(MKDIR("/m/t/newdir", 0755));
	C(OPEN("/m/t/new", O_CREAT | O_WRONLY));
	C(SYMLINK("x", "/m/t/newlink"));
	C(LINK("/m/t/target", "/m/t/newlink"));
	C(MKDIR("/m/none/d", 0755));
	C(MKDIR("/m/t/target/d", 0755));
	C(MKDIR(fmt("/m/t/%s", rep('n', 256)), 0755));
	C(UNLINK("/m/t/none"));
	C(UNLINK("/m/t/target"));
	C(RMDIR("/m/t/dir"));
	C(RMDIR("/m/t/none"));
	C(RENAME("/m/t/none", "/m/t/x"));
	C(RENAME("/m/t/target", "/m/t/x"));
	C(RENAME("/m/t/target", "/m/none/x"));
	C(CHMOD("/m/t/target", 0600));
	C(CHMOD("/m/t/none", 0600));
	C(CHOWN("/m/t/target", 1, 1));
	C(truncate("/m/t/target", 0));
	C(truncate("/m/t/none", 0));
	C(OPEN("/m/t/target", O_RDONLY | O_TRUNC));
	C(ACCESS("/m/t/target", W_OK));
	C(ACCESS("/m/t/node", W_OK));
	C(setcred(1000, 1000));
	C(MKDIR("/m/t/dir", 0755));
	C(MKDIR("/m/t/new2", 0755));
	C(UNLINK("/m/t/target"));
	C(CHMOD("/m/t/target", 0600));
	C(setcred(0, 0));
	LS("/m/t");
	C(umount2("/m", 0));
}

static void rofs_create_existing(void)
{
	ro_checks(0);
}

static void robind_create_existing(void)
{
	ro_checks(1);
}

const struct scenario suites_scenarios[] = {
	{ "rofs_create_existing", rofs_create_existing },
	{ "robind_create_existing", robind_create_existing },
	{ NULL, NULL },
};
