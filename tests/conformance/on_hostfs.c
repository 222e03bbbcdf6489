// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance-hostfs: the conformance scenarios with their root on a
 * hostfs mount (backend_uvfs.c, UVFS_CONF_FS=hostfs) of a fresh directory
 * of the host's tmpfs, against the host's own tmpfs: the same calls made on
 * the host directory through uvfs and directly must agree.  The
 * directories live under one made here in /dev/shm and removed at the end.
 * Arguments, if any, replace the default selection (every scenario but the
 * ones below).
 *
 * Left out, and why:
 *   - tmpfs's own accounting that a host directory does not have: size=
 *     and nr_inodes= limits of the scenario's root (space_*), mount
 *     options of the root;
 *   - FIFOs and sockets are uvfs objects on a host inode: their data is
 *     uvfs's, which the scenarios see the same; nothing is left out there.
 */
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const excluded[] = {
	NULL,
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 16);
	if (n < 0) {
		perror("conformance-hostfs: /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	char prog[PATH_MAX];
	snprintf(prog, sizeof(prog), "%s/conformance", dirname(self));
	char base[] = "/dev/shm/uvfs-conf-hostfs-XXXXXX";
	if (!mkdtemp(base)) {
		perror("conformance-hostfs: mkdtemp");
		return 1;
	}
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return 1;
	int k = 0;
	args[k++] = prog;
	for (int i = 1; i < argc; i++)
		args[k++] = argv[i];
	(void)excluded;
	setenv("UVFS_CONF_FS", "hostfs", 1);
	setenv("UVFS_CONF_HOSTDIR", base, 1);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execv(prog, args);
		perror(prog);
		_exit(127);
	}
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0)
		;
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
