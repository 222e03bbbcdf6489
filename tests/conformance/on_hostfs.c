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
 * Left out, and why (2 of the scenarios):
 *   - chroot_jail, proc_fs_state: they read a cwd outside the proc's root,
 *     which uvfs names by its path in the instance, and the scenario's root
 *     here is a chroot into the hostfs mount ("/.hostfs"), where the host
 *     side's is its namespace's own root (conformance-testfs leaves them
 *     out for the same reason).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const excluded[] = { "chroot_jail", "proc_fs_state" };

static bool is_excluded(const char *name)
{
	for (size_t i = 0; i < sizeof(excluded) / sizeof(excluded[0]); i++)
		if (!strcmp(name, excluded[i]))
			return true;
	return false;
}

/* Every scenario but the excluded ones, each as a glob of itself alone
 * (its last letter bracketed: a plain name selects by substring). */
static int add_selection(const char *prog, char ***args, int *k, size_t *cap)
{
	char cmd[PATH_MAX + 8];
	snprintf(cmd, sizeof(cmd), "%s -l", prog);
	FILE *l = popen(cmd, "r");
	if (!l)
		return -1;
	char line[256];
	while (fgets(line, sizeof(line), l)) {
		line[strcspn(line, "\n")] = 0;
		size_t n = strlen(line);
		if (!n || is_excluded(line))
			continue;
		if ((size_t)*k + 2 >= *cap) {
			*cap *= 2;
			char **a = realloc(*args, *cap * sizeof(**args));
			if (!a)
				return -1;
			*args = a;
		}
		char *g = malloc(n + 3);
		if (!g)
			return -1;
		snprintf(g, n + 3, "%.*s[%c]", (int)(n - 1), line, line[n - 1]);
		(*args)[(*k)++] = g;
	}
	(*args)[*k] = NULL;
	return pclose(l) ? -1 : 0;
}

/* Removes name in dfd and all below it, one name at a time (a scenario
 * leaves trees deeper than PATH_MAX, which nftw cannot reach). */
static void rm_tree(int dfd, const char *name)
{
	if (!unlinkat(dfd, name, 0) || errno != EISDIR)
		return;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rm_tree(fd, e->d_name);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
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
	size_t cap = (size_t)argc + 512;
	char **args = calloc(cap, sizeof(*args));
	if (!args)
		return 1;
	int k = 0;
	args[k++] = prog;
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			args[k++] = argv[i];
	} else if (add_selection(prog, &args, &k, &cap)) {
		fprintf(stderr, "conformance-hostfs: cannot list the scenarios\n");
		rmdir(base);
		for (int i = 1; i < k; i++)
			free(args[i]);
		free(args);
		return 1;
	}
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
	rm_tree(AT_FDCWD, base);
	if (argc <= 1)
		for (int i = 1; i < k; i++)
			free(args[i]);
	free(args);
	return pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
