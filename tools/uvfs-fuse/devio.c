/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * devio.c - the session's reads and writes of /dev/fuse, through libfuse's
 * custom I/O, for the INIT flags libfuse 3.14 does not pass on.
 *
 * libfuse 3.14 accepts FUSE_CAP_HANDLE_KILLPRIV and FUSE_CAP_PARALLEL_DIROPS
 * in conn->want but never sets FUSE_HANDLE_KILLPRIV or FUSE_PARALLEL_DIROPS
 * in its INIT reply (seen in `uvfs-fuse -d`: the kernel offers both, the
 * reply has neither).  Without the first, every chown, and every write or
 * truncate of a set-id file, costs the writer a GETATTR first (the kernel
 * refreshes the mode before it computes the bits to clear: one of the nine
 * requests per file of a `tar -x` as root); without the second, lookups and
 * readdirs in one directory are serialised by the kernel.  uvfs does what
 * both promise: a write, truncate or chown through it clears S_ISUID and
 * S_ISGID as Linux's do (the caller's credentials are the request's), and
 * its lookups run in parallel.  So the reply to INIT, the one whose unique
 * the INIT request had, gets the two flags the kernel offered and
 * uf_init wanted.  Every other read and write is the plain system call.
 *
 * FUSE_HANDLE_KILLPRIV_V2 too, when xattrs are served: without it the
 * kernel asks for security.capability before every write (its
 * file_remove_privs; FUSE never sets S_NOSEC), a GETXATTR round trip per
 * write: 16-byte pwrites took 58-292 us instead of 14-18 us.  With it the
 * filesystem promises to drop the set-id bits and the capability on write,
 * truncate and chown, which uvfs does as Linux does (inode_killpriv,
 * should_remove_suid) with the request's credentials; the kernel's
 * FUSE_WRITE_KILL_SUIDGID, FATTR_KILL_SUIDGID and FUSE_OPEN_KILL_SUIDGID
 * hints then say nothing uvfs does not decide itself.
 *
 * The reads spin (-o spin=US, default UF_DEFAULT_SPIN_US): with the fd
 * non-blocking, a worker that finds no request reads again for up to US
 * microseconds before it sleeps in poll(2).  A program on the mount makes
 * its next call some 20-50 us after the reply to its last one (tar, ls,
 * find: one call at a time), and a worker asleep by then costs the call a
 * wake-up: in this project's 2-core VM, where waking an idle vCPU is an
 * exit to the hypervisor, tar -x of 34,729 entries through -o hostdir took
 * 42 s with workers that slept at once and 9.5 s with the spin, and the
 * server used less CPU (9.2 s against 17.5 s), its sleeps and wake-ups no
 * longer paid.  An idle mount costs one spin after its last request.  A
 * cloned fd (-o clone_fd) stays blocking: its reads never spin.
 */
#include "internal.h"
#include <linux/fuse.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* This worker's spins in a row that ended without a request. */
static __thread unsigned spin_misses;
#define SPIN_MISSES_MAX 4

/*
 * Asleep until the fd is readable, or until a signal: -1 and EINTR when a
 * signal's handler ended the session, before or during the sleep.  The
 * handlers libfuse sets (SIGINT, SIGTERM, SIGHUP) run in the thread that
 * reads in libfuse's own single-threaded loop (-s), and they only mark the
 * session exited: a read that is a blocking read(2) ends with EINTR, but a
 * spin does not notice, and a poll(2) entered after the handler ran sleeps
 * on (SIGTERM to an idle `uvfs-fuse -s` was lost on every run).  So the
 * signals are blocked while the session's state is looked at and unblocked
 * by ppoll(2) itself: one that came before is seen in the flag, one that
 * comes after ends the ppoll.  Two sigprocmask calls a sleep, which costs
 * a wake-up anyway.
 */
static int sleep_readable(struct uvfs_fuse *uf, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	sigset_t block, old;
	int r, err;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (fuse_session_exited(uf->se)) {
		r = -1;
		err = EINTR;
	} else {
		r = ppoll(&p, 1, NULL, &old); /* readable, or an error the read says */
		err = errno;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return r < 0 && err == EINTR ? -1 : 0;
}

/*
 * A read of a request: on the non-blocking fd, again and again for up to
 * the spin's time, then asleep until the fd is readable.  A worker whose
 * last SPIN_MISSES_MAX spins all ended in a sleep stops spinning (a build's
 * compilers make their calls in bursts, and a spin between bursts only
 * takes a CPU they could use: ninja -j2 on 2 cores took 5% longer with
 * every spin, 6% less with this), until a sleep shorter than the spin
 * shows requests coming close together again.  A signal that ended the
 * session ends the read with EINTR, as it ends a blocking read(2).
 */
static ssize_t spin_read(struct uvfs_fuse *uf, int fd, void *buf, size_t len)
{
	uint64_t start = now_ns();
	bool spin = spin_misses < SPIN_MISSES_MAX;
	ssize_t r;

	while ((r = read(fd, buf, len)) < 0 && errno == EAGAIN) {
		if (fuse_session_exited(uf->se)) {
			errno = EINTR;
			return -1;
		}
		if (!spin || now_ns() - start >= uf->spin_ns) {
			if (spin)
				spin_misses++;
			if (sleep_readable(uf, fd) < 0)
				return -1;
			if (!spin && now_ns() - start < uf->spin_ns)
				spin_misses = 0;
			spin = false;
			start = now_ns();
		}
	}
	if (spin)
		spin_misses = 0;
	return r;
}

static ssize_t dev_read(int fd, void *buf, size_t len, void *userdata)
{
	struct uvfs_fuse *uf = userdata;
	ssize_t r = uf->spin_ns ? spin_read(uf, fd, buf, len) : read(fd, buf, len);

	if (r >= (ssize_t)sizeof(struct fuse_in_header) &&
	    __builtin_expect(((struct fuse_in_header *)buf)->opcode == FUSE_TMPFILE, 0)) {
		/* O_TMPFILE (kernel 6.3+): libfuse 3.14 knows no TMPFILE and
		 * would answer ENOSYS, which the kernel turns into
		 * EOPNOTSUPP for good.  Its arguments and its reply are
		 * CREATE's (fuse_create_in and the dentry's name, "/"; an
		 * entry and an open), and no CREATE has the name "/": so it
		 * goes to uf_create as a CREATE of "/", which makes the file
		 * with O_TMPFILE in the directory (ops_files.c). */
		((struct fuse_in_header *)buf)->opcode = FUSE_CREATE;
	}
	if (__builtin_expect(!__atomic_load_n(&uf->init_seen, __ATOMIC_ACQUIRE), 0) &&
	    r >= (ssize_t)sizeof(struct fuse_in_header)) {
		const struct fuse_in_header *in = buf;

		if (in->opcode == FUSE_INIT && r >= (ssize_t)(sizeof(*in) + sizeof(struct fuse_init_in))) {
			const struct fuse_init_in *ia = (const void *)(in + 1);

			uf->init_unique = in->unique;
			uf->init_offered = ia->flags & (FUSE_HANDLE_KILLPRIV | FUSE_HANDLE_KILLPRIV_V2 | FUSE_PARALLEL_DIROPS);
			__atomic_store_n(&uf->init_seen, true, __ATOMIC_RELEASE);
		}
	}
	return r; /* -1 and errno, as read(2): libfuse looks at errno */
}

static ssize_t dev_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct uvfs_fuse *uf = userdata;
	ssize_t r;

	if (__builtin_expect(!__atomic_load_n(&uf->init_replied, __ATOMIC_ACQUIRE), 0) &&
	    __atomic_load_n(&uf->init_seen, __ATOMIC_ACQUIRE) && count >= 2 &&
	    iov[0].iov_len == sizeof(struct fuse_out_header) &&
	    ((struct fuse_out_header *)iov[0].iov_base)->unique == uf->init_unique) {
		const struct fuse_out_header *oh = iov[0].iov_base;

		__atomic_store_n(&uf->init_replied, true, __ATOMIC_RELEASE);
		/* the flags word is at the same place in every fuse_init_out */
		if (!oh->error && iov[1].iov_len >= offsetof(struct fuse_init_out, flags) + sizeof(uint32_t)) {
			struct fuse_init_out *ia = iov[1].iov_base;

			ia->flags |= uf->init_offered & uf->init_extra;
		}
	}
	r = writev(fd, iov, count);
	return r;
}

static const struct fuse_custom_io uf_devio = {
	.read = dev_read,
	.writev = dev_writev,
};

/* After fuse_session_mount: the same fd, read and written through us. */
int uf_devio_install(struct uvfs_fuse *uf)
{
	int fd = fuse_session_fd(uf->se);
	int fl = fcntl(fd, F_GETFL);

	uf->spin_ns = 0;
	if (uf->o.spin_us && fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0)
		uf->spin_ns = (uint64_t)uf->o.spin_us * 1000;
	return fuse_session_custom_io(uf->se, &uf_devio, fd);
}

/* From uf_init: which of the two flags to add, by what the session wants. */
void uf_devio_want(struct uvfs_fuse *uf, struct fuse_conn_info *conn)
{
	uf->init_extra = 0;
	if (conn->want & FUSE_CAP_HANDLE_KILLPRIV)
		uf->init_extra |= FUSE_HANDLE_KILLPRIV;
	if (conn->want & FUSE_CAP_PARALLEL_DIROPS)
		uf->init_extra |= FUSE_PARALLEL_DIROPS;
	if ((conn->want & FUSE_CAP_HANDLE_KILLPRIV) && uf->o.xattr)
		uf->init_extra |= FUSE_HANDLE_KILLPRIV_V2;
}
