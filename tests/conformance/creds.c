/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* creds.c - real against effective ids: setresuid/setresgid and their rules,
 * faccessat with and without AT_EACCESS (access(2) checks the real ids, with
 * uid 0's capabilities exactly when the real uid is 0), and the fs ids that
 * opens and new files follow.  On the host every call is the raw system
 * call in the scenario's (sandboxed) child. */
#include "conf.h"

#define setresuid(r, e, s) B->setresuid(BX, r, e, s)
#define setresgid(r, e, s) B->setresgid(BX, r, e, s)
#define KEEP ((uid_t)-1)

static void mk(const char *p, uid_t u, gid_t g, mode_t m)
{
	mkfile(p, "data");
	CHOWN(p, u, g);
	CHMOD(p, m);
}

/* real 1000, effective 2000 */
static void cred_access_real_uid(void)
{
	mk("/u1", 1000, 1000, 0600);
	mk("/u2", 2000, 2000, 0600);
	mk("/x1", 1000, 1000, 0700);
	C(setresuid(1000, 2000, KEEP));
	C(ACCESS("/u1", R_OK | W_OK));
	C(faccessat(AT_FDCWD, "/u1", R_OK | W_OK, AT_EACCESS));
	C(ACCESS("/u2", R_OK));
	C(faccessat(AT_FDCWD, "/u2", R_OK, AT_EACCESS));
	C(ACCESS("/x1", X_OK));
	C(faccessat(AT_FDCWD, "/x1", X_OK, AT_EACCESS));
	/* opens check the fs id, which follows the effective one */
	int fd = F(OPEN("/u2", O_RDONLY));
	F(OPEN("/u1", O_RDONLY));
	C(mkfile("/new", "n"));
	STAT("/new");
	cl(fd);
	/* the saved uid is still 0 */
	C(setresuid(0, 0, KEEP));
	STAT("/u1");
}

/* real 0, effective 1000: access(2) has root's overrides, AT_EACCESS not */
static void cred_access_real_root(void)
{
	mk("/w", 0, 0, 0600);
	mk("/n", 0, 0, 0644);
	mk("/none", 0, 0, 0000);
	C(setresuid(0, 1000, KEEP));
	C(ACCESS("/w", R_OK | W_OK));
	C(faccessat(AT_FDCWD, "/w", R_OK | W_OK, AT_EACCESS));
	C(ACCESS("/none", R_OK | W_OK));
	C(faccessat(AT_FDCWD, "/none", R_OK, AT_EACCESS));
	/* root's X_OK needs an execute bit somewhere */
	C(ACCESS("/n", X_OK));
	C(ACCESS("/none", X_OK));
	F(OPEN("/w", O_RDONLY));
	C(ACCESS("/", W_OK));
	C(faccessat(AT_FDCWD, "/", W_OK, AT_EACCESS));
	/* and the other way round: real 1000, effective 0 */
	C(setresuid(1000, 0, KEEP));
	C(ACCESS("/w", R_OK));
	C(faccessat(AT_FDCWD, "/w", R_OK, AT_EACCESS));
	F(OPEN("/w", O_RDONLY));
}

/* real gid 1000, effective gid 2000, as a non-root uid */
static void cred_access_real_gid(void)
{
	mk("/g1", 0, 1000, 0060);
	mk("/g2", 0, 2000, 0060);
	C(setresgid(1000, 2000, KEEP));
	C(setresuid(3000, 3000, KEEP));
	C(ACCESS("/g1", R_OK | W_OK));
	C(faccessat(AT_FDCWD, "/g1", R_OK | W_OK, AT_EACCESS));
	C(ACCESS("/g2", R_OK));
	C(faccessat(AT_FDCWD, "/g2", R_OK, AT_EACCESS));
	F(OPEN("/g2", O_RDWR));
	F(OPEN("/g1", O_RDONLY));
	C(mkfile("/new", "n"));
	STAT("/new");
}

/* Unprivileged (euid != 0) moves only between the ids it has. */
static void cred_setres_rules(void)
{
	C(setresuid(1000, 1000, KEEP)); /* saved uid 0 */
	C(setresuid(KEEP, 2000, KEEP));
	C(setresuid(2000, KEEP, KEEP));
	C(setresgid(5, KEEP, KEEP));
	C(setresgid(KEEP, KEEP, KEEP));
	C(setresuid(KEEP, 0, KEEP)); /* to the saved one: privileged again */
	C(setresgid(5, 6, 7));
	C(setresuid(1000, 2000, 3000));
	C(setresgid(7, 5, 6)); /* a permutation of the gids it has */
	C(setresgid(8, KEEP, KEEP));
	C(setresuid(3000, 1000, 2000));
	C(setresuid(KEEP, 0, KEEP)); /* 0 is gone */
	C(mkfile("/f", "f"));
	STAT("/f");
}

const struct scenario creds_scenarios[] = {
	{ "cred_access_real_uid", cred_access_real_uid },
	{ "cred_access_real_root", cred_access_real_root },
	{ "cred_access_real_gid", cred_access_real_gid },
	{ "cred_setres_rules", cred_setres_rules },
	{ NULL, NULL },
};
