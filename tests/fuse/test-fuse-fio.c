// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-fuse-fio: fio's data verification through uvfs-fuse, against the
 * host's tmpfs.  One job file (below) runs on a directory of the host's
 * tmpfs (/dev/shm) first, then through four mounts: uvfs's tmpfs
 * (-o default_permissions, and with -o writeback: the data reaches uvfs at
 * writeback), -o hostdir= of a tmpfs directory, and an overlay
 * (-o lowerdir=,upperdir=,workdir=) whose lower layer holds the file one
 * job overwrites (a copy-up under I/O).  Every job writes its files, reads
 * them back and checks a checksum of every block (verify=, verify_fatal),
 * through I/O paths the other FUSE tests do not take: libaio with O_DIRECT,
 * io_uring, mmap, splice, pvsync2, sync_file_range, fallocate (native, keep
 * size), three jobs writing separate regions of one file at once, sixteen
 * files served four open at a time, appends, files unlinked between loops.
 *
 * A job that passes on the host must pass on every mount (fio's exit
 * status, the job's error in its terse line, as many lines as on the host);
 * a job the host kernel refuses (no io_uring, no O_DIRECT on an older
 * tmpfs) is skipped, said so.  The server must print nothing (a sanitizer
 * report, an error) and end with status 0 at the unmount.  Sizes are small:
 * the whole program takes seconds.
 *
 * fio found nothing in session 8 (every job passed through every mount
 * kind, also as uid 1000 and with the ASan server); this keeps those I/O
 * paths checked.  Skips (never passes) when not root, without /dev/fuse,
 * uvfs-fuse or fio (Debian package fio).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../unit/check.h"
#include "../unit/hostfile.h"
#include "mount.h"

/* ${FIO_DIR}: the directory under test (fio expands the environment) */
static const char jobs[] = "[global]\n"
			   "directory=${FIO_DIR}\n"
			   "size=256k\n"
			   "verify_fatal=1\n"
			   "verify_dump=0\n"
			   "[psync]\n"
			   "ioengine=psync\nrw=randwrite\nbs=4k\nverify=crc32c\n"
			   "[pvsync2]\n"
			   "ioengine=pvsync2\nrw=write\nbsrange=512-64k\nverify=md5\nfsync=7\n"
			   "[fallocate]\n"
			   "ioengine=psync\nfallocate=native\nrw=randwrite\nbs=16k\nverify=sha256\nend_fsync=1\n"
			   "[keepsize]\n"
			   "ioengine=psync\nfallocate=keep\nrw=randwrite\nbs=8k\nverify=crc32c\n"
			   "[shared]\n"
			   "ioengine=psync\nfilename=shared.dat\nrw=randwrite\nbs=4k\nnumjobs=3\n"
			   "offset_increment=128k\nsize=128k\nverify=crc32c\n"
			   "[mmap]\n"
			   "ioengine=mmap\nrw=randwrite\nbs=8k\nverify=md5\n"
			   "[libaio-direct]\n"
			   "ioengine=libaio\ndirect=1\niodepth=8\nrw=randwrite\nbs=4k\nverify=crc32c\n"
			   "[io_uring]\n"
			   "ioengine=io_uring\niodepth=8\nrw=randwrite\nbs=8k\nverify=md5\n"
			   "[splice]\n"
			   "ioengine=splice\nrw=randwrite\nbs=4k\nverify=crc32c\n"
			   "[sync_file_range]\n"
			   "ioengine=psync\nrw=randwrite\nbs=4k\nsync_file_range=write:4\nverify=md5\n"
			   "[many-files]\n"
			   "ioengine=psync\nrw=randwrite\nnrfiles=16\nopenfiles=4\nfile_service_type=random\n"
			   "bs=2k\nsize=256k\nverify=crc32c\n"
			   "[backlog]\n"
			   "ioengine=psync\nrw=randwrite\nbs=4k\nverify=crc32c\nverify_backlog=16\n"
			   "[randrw]\n"
			   "ioengine=psync\nrw=randrw\nbs=4k\nverify=crc32c\n"
			   "[append]\n"
			   "ioengine=psync\nrw=write\nbs=3k\nfile_append=1\nverify=crc32c\n"
			   "[unlink-each]\n"
			   "ioengine=psync\nrw=write\nbs=4k\nsize=256k\nnrfiles=2\nunlink_each_loop=1\nloops=2\n"
			   "verify=crc32c\n"
			   "[copy-up]\n"
			   "ioengine=psync\nfilename=lower.dat\nrw=randwrite\nbs=4k\nsize=256k\noverwrite=1\n"
			   "verify=crc32c\n";

static char work[64], jobfile[128];

/* lower.dat, 256 KiB of a pattern, in dir */
static void put_lower(const char *dir)
{
	char p[300], buf[4096];
	snprintf(p, sizeof(p), "%s/lower.dat", dir);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	for (int i = 0; fd >= 0 && i < 64; i++) {
		memset(buf, 'a' + i % 26, sizeof(buf));
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
	}
	if (fd >= 0)
		close(fd);
}

struct result {
	int status;	 /* fio's exit status, -1: not run */
	int n;		 /* terse lines */
	char name[40][32];
	int err[40];
};

/* fio on dir: its terse lines into r */
static void run_fio(const char *dir, const char *tag, struct result *r)
{
	char out[160], env[400];
	memset(r, 0, sizeof(*r));
	r->status = -1;
	snprintf(out, sizeof(out), "%s/fio-%s.out", work, tag);
	snprintf(env, sizeof(env), "FIO_DIR=%s", dir);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		putenv(env);
		if (chdir(dir))
			_exit(126);
		execlp("fio", "fio", "--output-format=terse", "--terse-version=3", "--output", out, jobfile,
		       (char *)NULL);
		_exit(127);
	}
	int st = fuse_reap(pid, 240);
	r->status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	FILE *f = fopen(out, "r");
	char line[8192];
	while (f && fgets(line, sizeof(line), f) && r->n < 40) {
		/* 3;fio-3.33;NAME;GROUPID;ERROR;... */
		char *save, *fld[5];
		int k = 0;
		for (char *t = strtok_r(line, ";", &save); t && k < 5; t = strtok_r(NULL, ";", &save))
			fld[k++] = t;
		if (k < 5 || strcmp(fld[0], "3"))
			continue;
		snprintf(r->name[r->n], sizeof(r->name[0]), "%s", fld[2]);
		r->err[r->n++] = atoi(fld[4]);
	}
	if (f)
		fclose(f);
}

/* the host's result of job name: 1 passed, 0 failed there */
static int host_passed(const struct result *h, const char *name)
{
	int found = 0;
	for (int i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name)) {
			if (h->err[i])
				return 0;
			found = 1;
		}
	return found;
}

static int count_of(const struct result *r, const char *name)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		n += !strcmp(r->name[i], name);
	return n;
}

/* one mount: uvfs-fuse -f -o opts, fio in it, compared with the host's */
static void on_mount(const char *what, const char *opts, const char *backing, const struct result *host)
{
	char mnt[128], log[160], dir[200];
	struct result r;

	SECTION(what);
	snprintf(mnt, sizeof(mnt), "%s/mnt", work);
	snprintf(log, sizeof(log), "%s/server-%s.log", work, what);
	mkdir(mnt, 0755);
	char *argv[] = { (char *)fuse_program(), "-f", "-o", (char *)opts, mnt, NULL };
	char *argv_plain[] = { (char *)fuse_program(), "-f", mnt, NULL };
	if (backing) {
		/* the overlay's lower layer: t/lower.dat, t a merged directory */
		snprintf(dir, sizeof(dir), "%s/t", backing);
		mkdir(dir, 0777);
		chmod(dir, 0777);
		put_lower(dir);
	}
	pid_t srv = fuse_start(*opts ? argv : argv_plain, mnt, log);
	CHECK(srv > 0, "%s: uvfs-fuse mounted", what);
	if (srv <= 0)
		return;
	snprintf(dir, sizeof(dir), "%s/t", mnt);
	if (!backing) {
		CHECK(mkdir(dir, 0777) == 0, "%s: mkdir: %s", what, strerror(errno));
		put_lower(dir);
	}
	run_fio(dir, what, &r);
	CHECK(r.status == host->status, "%s: fio's exit status %d, the host's %d", what, r.status, host->status);
	for (int i = 0; i < host->n; i++) {
		const char *name = host->name[i];
		if (i && !strcmp(name, host->name[i - 1]))
			continue;
		if (!host_passed(host, name))
			continue;
		int ok = count_of(&r, name) == count_of(host, name);
		for (int j = 0; j < r.n; j++)
			if (!strcmp(r.name[j], name) && r.err[j])
				ok = 0;
		CHECK(ok, "%s: job %s failed or did not run (see %s)", what, name, log);
	}
	CHECK(fuse_unmount(mnt, 10), "%s: unmounted", what);
	int st = fuse_reap(srv, 30);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: server's exit status 0 (%d)", what, st);
	struct stat sb;
	CHECK(stat(log, &sb) == 0 && sb.st_size == 0, "%s: the server printed nothing (see %s)", what, log);
	rmdir(mnt);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *why = fuse_unavailable(fuse_program());
	if (!why && system("fio --version >/dev/null 2>&1") != 0)
		why = "no fio";
	if (why) {
		printf("SKIP test-fuse-fio: %s\n0 passed, 0 failed, 1 skipped\n", why);
		return 0;
	}
	strcpy(work, "/dev/shm/uvfs-fuse-fio-XXXXXX");
	if (!mkdtemp(work))
		return 1;
	chmod(work, 0755);
	snprintf(jobfile, sizeof(jobfile), "%s/jobs.fio", work);
	put_file(jobfile, jobs);

	/* the reference: a directory of the host's tmpfs (/dev/shm) */
	struct result host;
	char dir[300], back[200], opts[800];
	SECTION("host tmpfs");
	snprintf(dir, sizeof(dir), "%s/host", work);
	mkdir(dir, 0777);
	put_lower(dir);
	run_fio(dir, "host", &host);
	CHECK(host.n > 0, "fio ran on the host (status %d)", host.status);
	for (int i = 0; i < host.n; i++)
		if (host.err[i] && (!i || strcmp(host.name[i], host.name[i - 1])))
			printf("SKIP job %s: error %d on the host's tmpfs\n", host.name[i], host.err[i]);

	on_mount("default_permissions", "default_permissions", NULL, &host);
	on_mount("writeback", "default_permissions,writeback", NULL, &host);
	snprintf(back, sizeof(back), "%s/hostdir", work);
	mkdir(back, 0755);
	snprintf(opts, sizeof(opts), "default_permissions,hostdir=%s", back);
	on_mount("hostdir", opts, NULL, &host);
	snprintf(back, sizeof(back), "%s/layers", work);
	mkdir(back, 0755);
	snprintf(dir, sizeof(dir), "%s/lower", back);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/upper", back);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/work", back);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/lower", back);
	snprintf(opts, sizeof(opts), "default_permissions,lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work", back,
		 back, back);
	on_mount("overlay", opts, dir, &host);

	if (check_failed == 0) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
		if (system(cmd))
			printf("cannot remove %s\n", work);
	} else {
		printf("kept %s (the jobs, fio's output, the servers' logs)\n", work);
	}
	return check_done();
}
