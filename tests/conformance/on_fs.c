// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * on_fs.c - the conformance program run with its scenarios' roots on
 * another filesystem (UVFS_CONF_FS, backend_uvfs.c), with the selection
 * the filesystem's own file (on_fs.h) gives.  Arguments, if any, replace
 * the selection.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "on_fs.h"

static bool is_excluded(const char *name)
{
	for (size_t i = 0; i < on_fs.nexcluded; i++)
		if (!strcmp(name, on_fs.excluded[i]))
			return true;
	return false;
}

static int add_arg(char ***args, int *k, size_t *cap, char *arg)
{
	if ((size_t)*k + 2 >= *cap) {
		char **a = realloc(*args, *cap * 2 * sizeof(**args));
		if (!a)
			return -1;
		*args = a;
		*cap *= 2;
	}
	(*args)[(*k)++] = arg;
	(*args)[*k] = NULL;
	return 0;
}

/* Every scenario but the excluded ones, each as a glob of itself alone. */
static int add_all_but_excluded(const char *prog, char ***args, int *k, size_t *cap)
{
	char cmd[PATH_MAX + 8];
	snprintf(cmd, sizeof(cmd), "%s -l", prog);
	FILE *l = popen(cmd, "r");
	if (!l)
		return -1;
	char line[256];
	int err = 0;
	while (!err && fgets(line, sizeof(line), l)) {
		line[strcspn(line, "\n")] = 0;
		size_t n = strlen(line);
		if (!n || is_excluded(line))
			continue;
		char *g = malloc(n + 3);
		if (!g || add_arg(args, k, cap, g)) {
			free(g);
			err = -1;
			break;
		}
		snprintf(g, n + 3, "%.*s[%c]", (int)(n - 1), line, line[n - 1]);
	}
	return pclose(l) || err ? -1 : 0;
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
		fprintf(stderr, "conformance-%s: /proc/self/exe: %s\n", on_fs.fs, strerror(errno));
		return 1;
	}
	self[n] = 0;
	char prog[PATH_MAX];
	snprintf(prog, sizeof(prog), "%s/conformance", dirname(self));
	size_t cap = (size_t)argc + on_fs.nselection + 16;
	char **args = calloc(cap, sizeof(*args));
	if (!args)
		return 1;
	int k = 0, err = add_arg(&args, &k, &cap, prog);
	bool owned = false;
	if (argc > 1) {
		for (int i = 1; !err && i < argc; i++)
			err = add_arg(&args, &k, &cap, argv[i]);
	} else if (on_fs.excluded) {
		owned = true;
		err = add_all_but_excluded(prog, &args, &k, &cap);
	} else {
		for (size_t i = 0; !err && i < on_fs.nselection; i++)
			err = add_arg(&args, &k, &cap, (char *)on_fs.selection[i]);
	}
	char base[64];
	snprintf(base, sizeof(base), "/dev/shm/uvfs-conf-%s-XXXXXX", on_fs.fs);
	if (!err && on_fs.host_dir && !mkdtemp(base)) {
		fprintf(stderr, "conformance-%s: mkdtemp: %s\n", on_fs.fs, strerror(errno));
		err = -1;
	}
	int st = 0;
	pid_t pid = -1;
	if (!err) {
		setenv("UVFS_CONF_FS", on_fs.fs, 1);
		if (on_fs.host_dir)
			setenv("UVFS_CONF_HOSTDIR", base, 1);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execv(prog, args);
			perror(prog);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, &st, 0) < 0)
			;
		if (on_fs.host_dir)
			rm_tree(AT_FDCWD, base);
	} else {
		fprintf(stderr, "conformance-%s: cannot make the selection\n", on_fs.fs);
	}
	if (owned)
		for (int i = 1; i < k; i++)
			free(args[i]);
	free(args);
	return pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
