// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay: `uvfs-bench replay` (bench/replay/) from the outside.
 *
 *   - broken traces (each a small file made here: a bad header, a call cut
 *     short, fewer calls than announced, no `end`, a last line without its
 *     newline, an open for writing, ...) are rejected with exit status 2 and
 *     "FILE:LINE: expected ..." naming the right line;
 *   - every proper prefix of a shipped trace is rejected as truncated;
 *   - a shipped trace (bench/traces/find.trace) replays on every target with
 *     0 differences and exit status 0;
 *   - a trace whose recorded results are not the mirror's (a size, an errno)
 *     shows each difference with its line, and exits 1: the comparison is
 *     not vacuous;
 *   - the host target never sees the real tree: a trace whose manifest
 *     lacks /etc/passwd gets ENOENT on the host, though the real file exists;
 *   - record.py end to end (where strace is installed): a command recorded
 *     here replays with 0 differences.
 *
 * UVFS_BENCH, UVFS_TRACES and UVFS_RECORD (meson) name the executable, the
 * traces and record.py.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static char dir[] = "/tmp/uvfs-replay-test.XXXXXX";

/* Runs uvfs-bench replay ARGS... with FILE last; its exit status, and its
 * stderr (and stdout) in out. */
static int run(char *out, size_t outlen, char *const extra[], const char *file)
{
	char *argv[16];
	int n = 0, p[2], st, i;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	argv[n++] = UVFS_BENCH;
	argv[n++] = "replay";
	for (i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n++] = (char *)file;
	argv[n] = NULL;
	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < outlen && (got = read(p[0], out + len, outlen - 1 - len)) > 0)
		len += got;
	out[len] = 0;
	while (read(p[0], &st, sizeof(st)) > 0)
		;
	close(p[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		CHECK(0, "writing %s: %s", path, strerror(errno));
	close(fd);
	return path;
}

#define HEAD "uvfs-replay 1\n# a test trace\ncwd \"/\"\nd 755 \"/\"\nd 755 \"/etc\"\n"

static const struct {
	const char *name, *text;
	int line;             /* the line the message must name */
	const char *expect;   /* and part of what it says */
} broken[] = {
	{ "empty", "", 1, "expected 'uvfs-replay 1'" },
	{ "header", "uvfs-replay 2\n", 1, "expected 'uvfs-replay 1'" },
	{ "no-newline", "uvfs-replay 1\ncwd \"/\"", 2, "without its newline (truncated" },
	{ "no-calls", "uvfs-replay 1\ncwd \"/\"\nd 755 \"/\"\n", 4, "'calls N' and the calls" },
	{ "cut-calls", HEAD "calls 3\n1 stat - \"/etc\" 0x0 = 0 40755 0\n", 8,
	  "expected call 2 of the 3 announced, found the end of the file (truncated" },
	{ "no-end", HEAD "calls 1\n1 stat - \"/etc\" 0x0 = 0 40755 0\n", 8,
	  "expected 'end', found the end of the file (truncated" },
	{ "early-end", HEAD "calls 2\n1 stat - \"/etc\" 0x0 = 0 40755 0\nend\n", 8,
	  "expected call 2 of the 2 announced, found 'end'" },
	{ "extra-call", HEAD "calls 0\n1 stat - \"/etc\" 0x0 = 0 40755 0\nend\n", 7,
	  "expected 'end' after the 0 calls announced" },
	{ "after-end", HEAD "calls 0\nend\nd 755 \"/x\"\n", 8, "expected the end of the file" },
	{ "cut-line", HEAD "calls 1\n1 stat - \"/etc\n", 7, "expected the path in quotes" },
	{ "no-result", HEAD "calls 1\n1 stat - \"/etc\" 0x0\nend\n", 7,
	  "expected '=' and the recorded result" },
	{ "no-stat-fields", HEAD "calls 1\n1 stat - \"/etc\" 0x0 = 0\nend\n", 7,
	  "expected the recorded st_mode" },
	{ "bad-mode", HEAD "calls 1\n1 stat - \"/etc\" 0x0 = 0 40758 0\nend\n", 7,
	  "expected the recorded st_mode (octal)" },
	{ "bad-errno", HEAD "calls 1\n1 stat - \"/x\" 0x0 = -ENOSUCH\nend\n", 7,
	  "expected an errno name" },
	{ "bad-call", HEAD "calls 1\n1 unlink - \"/etc\" = 0\nend\n", 7, "expected a call name" },
	{ "write-open", HEAD "calls 1\n1 open 0 - \"/etc/x\" 0x41 = 0\nend\n", 7,
	  "expected read-only open flags" },
	{ "rdwr-open", HEAD "calls 1\n1 open 0 - \"/etc/x\" 0x2 = 0\nend\n", 7,
	  "expected read-only open flags" },
	{ "slot-on-failure", HEAD "calls 1\n1 open 0 - \"/x\" 0x0 = -ENOENT\nend\n", 7,
	  "expected a slot exactly when the open succeeded" },
	{ "bad-manifest", "uvfs-replay 1\ncwd \"/\"\nf 644 \"/a\"\n", 3, "expected a file size" },
	{ "relative-entry", "uvfs-replay 1\ncwd \"/\"\nd 755 \"etc\"\n", 3,
	  "expected an absolute path in quotes" },
	{ "bad-escape", "uvfs-replay 1\ncwd \"/\\q\"\n", 2, "expected an absolute path" },
	{ "stray-line", "uvfs-replay 1\nhello\n", 2, "expected cwd, skip, d, f, l, calls" },
	{ "no-cwd", "uvfs-replay 1\ncalls 0\nend\n", 2, "expected a 'cwd' line before 'calls'" },
	{ "trailing", HEAD "calls 1\n1 close 3 = 0 x\nend\n", 7, "expected the end of the line" },
};

static void test_broken(void)
{
	char out[8192], want[512], *check[] = { "--check", NULL };
	size_t i;

	SECTION("broken traces are rejected with their line");
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		const char *path = write_file(broken[i].name, broken[i].text);
		int st = run(out, sizeof(out), check, path);

		CHECK_EQ(st, 2);
		snprintf(want, sizeof(want), "%s:%d: ", path, broken[i].line);
		CHECK(strstr(out, want), "%s: no \"%s\" in: %s", broken[i].name, want, out);
		CHECK(strstr(out, broken[i].expect), "%s: no \"%s\" in: %s", broken[i].name,
		      broken[i].expect, out);
	}
	/* without --check too: nothing is replayed before the whole file is read */
	{
		const char *path = write_file("cut-run", broken[4].text);

		CHECK_EQ(run(out, sizeof(out), NULL, path), 2);
		CHECK(strstr(out, "truncated trace"), "%s", out);
		CHECK(!strstr(out, "ns/call"), "a truncated trace was replayed: %s", out);
	}
}

/* Every proper prefix of a real trace is rejected as truncated: a cut
 * anywhere (in the header, the manifest, a call, the end line) must not
 * replay as a shorter trace. */
static void test_prefixes(void)
{
	char out[8192], *check[] = { "--check", NULL }, *text;
	const char *path = UVFS_TRACES "/find.trace", *cut;
	size_t size, len;
	FILE *f = fopen(path, "r");
	int i, fd;

	SECTION("every prefix of a shipped trace is rejected as truncated");
	CHECK(f, "%s: %s", path, strerror(errno));
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = malloc(size);
	CHECK(text && fread(text, 1, size, f) == size);
	fclose(f);
	cut = write_file("cut.trace", "");
	for (i = 1; i <= 66; i++) {
		/* 63 cuts spread over the file, then the whole file less 1, 2 and
		 * 4 bytes ("end" without its newline, "en", the last call's end) */
		len = i <= 63 ? size * i / 64 : size - (i == 64 ? 1 : i == 65 ? 2 : 4);
		fd = open(cut, O_WRONLY | O_TRUNC);
		CHECK(fd >= 0 && write(fd, text, len) == (ssize_t)len);
		close(fd);
		CHECK_EQ(run(out, sizeof(out), check, cut), 2);
		CHECK(strstr(out, "truncated trace?"), "cut at %zu of %zu: %s", len, size, out);
	}
	/* and the whole file is accepted */
	fd = open(cut, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, text, size) == (ssize_t)size);
	close(fd);
	CHECK_EQ(run(out, sizeof(out), check, cut), 0);
	free(text);
}

static void test_iterations(void)
{
	char out[8192], *one[] = { "--iterations", "3", "--targets", "uvfs", NULL },
	     *two[] = { "--iterations", "3", NULL };

	SECTION("--iterations: one trace on one uvfs target, in-process");
	CHECK_EQ(run(out, sizeof(out), one, UVFS_TRACES "/find.trace"), 0);
	CHECK(strstr(out, "find.trace uvfs iterations 3 calls "), "%s", out);
	CHECK_EQ(run(out, sizeof(out), two, UVFS_TRACES "/find.trace"), 2);
	CHECK(strstr(out, "--iterations needs one trace and one uvfs target"), "%s", out);
}

static void test_shipped(void)
{
	char out[65536], *opts[] = { "--time", "0.01", NULL };
	int st;

	SECTION("a shipped trace replays with 0 differences on every target");
	st = run(out, sizeof(out), opts, UVFS_TRACES "/find.trace");
	CHECK_EQ(st, 0);
	CHECK(strstr(out, "\nfind "), "%s", out);
	CHECK(!strstr(out, "FAIL"), "%s", out);
	CHECK(!strstr(out, "(strace line"), "differences: %s", out);
	/* every target ran: four figures and three ratios on the row */
	{
		const char *row = strstr(out, "\nfind ");
		long long calls = 0, skipped = 0, diffs = -1;
		double a, b, c, h, r1, r2, r3;
		int pa, pb, pc, ph;

		CHECK(row && sscanf(row, "\nfind %lld %lld %lf %d%% %lf %d%% %lf %d%% %lf %d%% %lfx %lfx %lfx %lld",
				    &calls, &skipped, &a, &pa, &b, &pb, &c, &pc, &h, &ph, &r1, &r2, &r3,
				    &diffs) == 14,
		      "row: %s", row ? row : out);
		CHECK(calls > 300, "%lld calls", calls);
		CHECK_EQ(diffs, 0);
		CHECK(a > 0 && b > 0 && c > 0 && h > 0, "%f %f %f %f", a, b, c, h);
	}
}

static void test_differences(void)
{
	char out[65536], *opts[] = { "--time", "0.01", NULL };
	const char *path;

	SECTION("differences are found and shown with their line");
	/* /etc/passwd exists on the real tree, not in this manifest: the host
	 * replays in the mirror, so ENOENT (as recorded) on every target.  The
	 * size of /a and the errno of /b are recorded wrong on purpose. */
	path = write_file("diff.trace", "uvfs-replay 1\ncwd \"/\"\nd 755 \"/\"\nd 755 \"/etc\"\n"
			  "f 644 6 \"/a\"\nl \"/l\" \"a\"\n"
			  "calls 6\n"
			  "11 open - - \"/etc/passwd\" 0x0 = -ENOENT\n"
			  "12 stat - \"/a\" 0x0 = 0 100644 5\n"
			  "13 stat - \"/b\" 0x0 = -EACCES\n"
			  "14 readlink - \"/l\" 100 = 1 \"a\"\n"
			  "15 open 0 - \"/l\" 0x0 = 0\n"
			  "16 read 0 100 = 6\n"
			  "end\n");
	CHECK_EQ(run(out, sizeof(out), opts, path), 1);
	CHECK(!strstr(out, "FAIL"), "a target did not run: %s", out);
	CHECK(!strstr(out, "strace line 11)"), "the host saw the real /etc/passwd: %s", out);
	CHECK(strstr(out, "diff.trace:9 (strace line 12): stat \"/a\": recorded 0 mode 100644 size 5,"
		      " uvfs 0 mode 100644 size 6"), "%s", out);
	CHECK(strstr(out, "host 0 mode 100644 size 6"), "%s", out);
	CHECK(strstr(out, "diff.trace:10 (strace line 13): stat \"/b\": recorded -EACCES, uvfs "
		      "-ENOENT, uvfs-baseline -ENOENT, host -ENOENT, uvfs-hostfs -ENOENT (the targets agree: "
		      "the recording or the mirror differs)"), "%s", out);
	CHECK(!strstr(out, "strace line 14)"), "%s", out);
	CHECK(!strstr(out, "strace line 16)"), "%s", out);
	CHECK(strstr(out, "      2\n"), "2 differences in the row: %s", out);
}

static void test_record(void)
{
	char out[65536], path[256], cmd[1024], *opts[] = { "--time", "0.01", NULL };
	int st;

	SECTION("a command recorded by record.py replays with 0 differences");
	if (system("command -v strace >/dev/null 2>&1 && test -x /usr/bin/python3") != 0) {
		printf("SKIP record.py: no strace or /usr/bin/python3\n");
		return;
	}
	/* a listing with stats, readlinks (ls -l of symlinks), a cd, opens that
	 * fail and a process that execs another */
	snprintf(path, sizeof(path), "%s/rec.trace", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -C / -- sh -c 'cd /usr/lib; ls -l /lib /usr/share/doc/bash "
		 ">/dev/null; cat /nonexistent 2>/dev/null; head -c 10 /etc/passwd >/dev/null' "
		 "2>/dev/null", UVFS_RECORD, path);
	CHECK_EQ(system(cmd), 0);
	st = run(out, sizeof(out), opts, path);
	CHECK_EQ(st, 0);
	CHECK(!strstr(out, "(strace line"), "differences: %s", out);
	CHECK(!strstr(out, "FAIL"), "%s", out);
	CHECK(strstr(out, "\nrec "), "%s", out);
}

/* Whether this process may make a mount namespace (root, and not forbidden
 * by a container's seccomp profile): the host target needs one. */
static int can_unshare(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(unshare(CLONE_NEWNS) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir)) {
		printf("mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_broken();
	test_prefixes();
	test_iterations();
	if (can_unshare()) {
		test_shipped();
		test_differences();
		test_record();
	} else {
		printf("SKIP the replays: unshare(CLONE_NEWNS) is not permitted here (the host "
		       "target needs a mount namespace: root)\n");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		CHECK(0, "removing %s", dir);
	return check_done();
}
