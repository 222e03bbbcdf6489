// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unit-signals: which of the process's threads may run the handler of a
 * process-directed signal once the library has made its threads.
 *
 * An embedder that waits for a signal in one thread (uvfs-fuse -s sleeps in
 * ppoll for its SIGTERM) needs the handler to run in that thread: one run
 * in a thread of the library wakes nothing.  The rule (ARCHITECTURE.md,
 * "Signals"): the thread liburcu makes for call_rcu blocks every signal
 * (uvfs_create makes it so; made lazily by liburcu at the first call_rcu,
 * it took the mask of whichever thread that was); hostfs's watch thread is
 * made by uvfs_mount with its caller's mask, as pthread_create does, so an
 * embedder decides by what it blocks around the mount.
 */
#include "vfs.h"
#include "check.h"
#include "../sigthreads.h"
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char src[64] = "/dev/shm/uvfs-unit-signals-XXXXXX";
	sigset_t term, old;
	struct uvfs *u;
	struct uvfs_proc *p;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	CHECK_EQ(sigthreads_taking(0, SIGTERM), 1);

	/* the call_rcu thread: made by uvfs_create, every signal blocked,
	 * although this thread blocks none; names freed after a grace period
	 * keep it busy */
	u = uvfs_create(NULL);
	p = uvfs_proc_create(u, 0, 0);
	for (int i = 0; i < 200; i++) {
		char name[32];
		snprintf(name, sizeof(name), "/f%d", i);
		int fd = uvfs_openat(p, AT_FDCWD, name, O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0, "%s: %d", name, fd);
		uvfs_close(p, fd);
		CHECK_EQ(uvfs_unlinkat(p, AT_FDCWD, name, 0), 0);
	}
	urcu_memb_barrier();
	CHECK(sigthreads_taking(0, SIGTERM) == 1, "%d threads take SIGTERM after call_rcu's thread started",
	      sigthreads_taking(0, SIGTERM));

	/* hostfs's watch thread has its mounter's mask */
	if (!mkdtemp(src)) {
		CHECK(0, "mkdtemp");
		return check_done();
	}
	CHECK_EQ(uvfs_mkdirat(p, AT_FDCWD, "/w", 0755), 0);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	CHECK_EQ(sigthreads_taking(0, SIGTERM), 2);
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);
	pthread_sigmask(SIG_BLOCK, &term, &old);
	CHECK_EQ(uvfs_mount(p, src, "/w", "hostfs", 0, "cache=watch"), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	CHECK(sigthreads_taking(0, SIGTERM) == 1, "%d threads take SIGTERM with the mount made with it blocked",
	      sigthreads_taking(0, SIGTERM));
	CHECK_EQ(uvfs_umount2(p, "/w", 0), 0);

	uvfs_proc_destroy(p);
	uvfs_destroy(u);
	rmdir(src);
	return check_done();
}
