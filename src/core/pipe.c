// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pipe.c - pipes and FIFOs (Linux's fs/pipe.c).
 *
 * A pipe is a ring of buffers of one page each (struct pipe_inode_info).
 * head and tail run freely (unsigned wrap-around); slot i is bufs[i & mask].
 * The default ring has 16 slots (65536 bytes); F_SETPIPE_SZ makes it any
 * power-of-two number of pages.  Writes append to the last buffer when the
 * whole remainder fits ("merging"), else take a fresh slot, so a write of at
 * most PIPE_BUF (one page) always lands in one buffer: it is atomic.
 *
 * Anonymous pipes (uvfs_pipe2) live on pipefs, an internal superblock that
 * no path reaches (vfs->pipe_sb, SB_KERNMOUNT, made through the registry on
 * first use and torn down by uvfs_destroy); their two files come from alloc_file_pseudo() and
 * carry FMODE_NONOTIFY (seed 003).  A FIFO is a tmpfs inode whose
 * pipe_inode_info hangs off i_pipe from its first open to its last close.
 *
 * Locks:
 *   inode->i_lock   i_pipe, pipe->files
 *   pipe->mutex     everything else in the pipe: ring, head, tail, counts,
 *                   sizes
 *   pipe->rd_wait.lock, wr_wait.lock   the wait queues (inside pipe->mutex)
 * Order: pipe->mutex > wait queue locks; i_lock is never held with the mutex.
 *
 * Waking: a sleeper queues itself (prepare_to_wait) while it holds
 * pipe->mutex, and a poller queues itself before pipe_poll takes the mutex;
 * the side that changes the state looks at waitqueue_active() under the
 * mutex.  The mutex orders the two, so the hot path needs no barrier: a
 * write with nobody waiting costs one load of the reader queue's count.
 * Sleepers queue exclusively (one is woken per event); whoever is woken and
 * leaves the pipe still readable (or writable) wakes the next one, as Linux.
 *
 * Blocking: real sleeps on a futex (wait.c); nothing spins.  There are no
 * signals in a library, so a blocked read, write or FIFO open waits until
 * the peer acts; O_NONBLOCK is the way not to wait.
 */
#include "vfs.h"
#include "filesystems.h"
#include <linux/fs.h>
#include <sys/ioctl.h>

#define PIPE_PAGE 4096u            /* PAGE_SIZE: one buffer */
#define PIPE_DEF_BUFFERS 16u       /* 65536 bytes */
#define PIPE_MAX_SIZE 1048576u     /* /proc/sys/fs/pipe-max-size */
#define PIPEFS_MAGIC_ 0x50495045

#define PIPE_BUF_FLAG_CAN_MERGE 0x1u /* a plain write's buffer: later small writes may append */
#define PIPE_BUF_FLAG_PACKET 0x2u    /* O_DIRECT: one write, one read */

/* Linux's struct pipe_buffer, for pages of our own. */
struct pipe_buffer {
	char *page;
	unsigned offset, len;
	unsigned flags;
};

/* Linux's struct pipe_inode_info. */
struct pipe_inode_info {
	struct umutex mutex; /* a futex lock: held across copies, never while asleep */
	struct wait_queue_head rd_wait, wr_wait;
	unsigned head, tail;
	unsigned max_usage; /* slots a writer may fill */
	unsigned ring_size; /* slots in bufs, a power of two */
	unsigned readers, writers;
	unsigned files;     /* files referring to it; under the inode's i_lock */
	unsigned r_counter, w_counter; /* opens for read / write ever: FIFO open and POLLHUP */
	char *tmp_page;     /* one spare page, so a steady stream does not malloc */
	struct pipe_buffer *bufs;
};

static inline bool pipe_empty(unsigned head, unsigned tail) { return head == tail; }
static inline unsigned pipe_occupancy(unsigned head, unsigned tail) { return head - tail; }
static inline bool pipe_full(unsigned head, unsigned tail, unsigned limit)
{
	return pipe_occupancy(head, tail) >= limit;
}

/* ---- the caller's buffers (Linux's iov_iter, reduced to user iovecs) ---- */
struct iov_iter {
	const struct iovec *iov;
	int nr;
	size_t off;   /* into iov[0] */
	size_t count; /* bytes left */
};

static void iov_iter_init(struct iov_iter *it, const struct iovec *iov, int nr)
{
	it->iov = iov;
	it->nr = nr;
	it->off = 0;
	it->count = 0;
	for (int i = 0; i < nr; i++)
		it->count += iov[i].iov_len;
}

static void copy_iter_slow(struct iov_iter *it, char *mem, size_t n, bool to_iter)
{
	while (n) {
		size_t seg = it->iov->iov_len - it->off;
		if (!seg) {
			it->iov++;
			it->nr--;
			it->off = 0;
			continue;
		}
		size_t c = MIN(seg, n);
		char *u = (char *)it->iov->iov_base + it->off;
		if (to_iter)
			memcpy(u, mem, c);
		else
			memcpy(mem, u, c);
		mem += c;
		n -= c;
		it->off += c;
	}
}

/* n bytes between the caller's buffers and mem; n <= it->count */
static inline void copy_iter(struct iov_iter *it, char *mem, size_t n, bool to_iter)
{
	it->count -= n;
	if (likely(n <= it->iov->iov_len - it->off)) { /* read(2), write(2): one segment */
		char *u = (char *)it->iov->iov_base + it->off;
		it->off += n;
		if (to_iter)
			memcpy(u, mem, n);
		else
			memcpy(mem, u, n);
		return;
	}
	copy_iter_slow(it, mem, n, to_iter);
}

/* ---- pipe_inode_info ---- */

static struct pipe_inode_info *alloc_pipe_info(void)
{
	struct pipe_inode_info *pipe = calloc(1, sizeof(*pipe));
	if (!pipe)
		return NULL;
	pipe->bufs = calloc(PIPE_DEF_BUFFERS, sizeof(struct pipe_buffer));
	if (!pipe->bufs) {
		free(pipe);
		return NULL;
	}
	init_waitqueue_head(&pipe->rd_wait);
	init_waitqueue_head(&pipe->wr_wait);
	pipe->max_usage = pipe->ring_size = PIPE_DEF_BUFFERS;
	pipe->r_counter = pipe->w_counter = 1;
	return pipe;
}

static void free_pipe_info(struct pipe_inode_info *pipe)
{
	unsigned mask = pipe->ring_size - 1;
	for (unsigned i = pipe->tail; i != pipe->head; i++)
		free(pipe->bufs[i & mask].page);
	free(pipe->tmp_page);
	free(pipe->bufs);
	destroy_waitqueue_head(&pipe->rd_wait);
	destroy_waitqueue_head(&pipe->wr_wait);
	free(pipe);
}

/* A file lets go of the pipe; the last one frees it (and a FIFO's buffered
 * data goes with it, as on Linux). */
static void put_pipe_info(struct inode *inode, struct pipe_inode_info *pipe)
{
	bool kill = false;
	spin_lock(&inode->i_lock);
	if (!--pipe->files) {
		inode->i_pipe = NULL;
		kill = true;
	}
	spin_unlock(&inode->i_lock);
	if (kill)
		free_pipe_info(pipe);
}

static void pipe_buf_release(struct pipe_inode_info *pipe, struct pipe_buffer *buf)
{
	if (!pipe->tmp_page)
		pipe->tmp_page = buf->page;
	else
		free(buf->page);
	buf->page = NULL;
}

/* mtime and ctime move on a write, as file_update_time; written only when
 * the coarse clock moved, so a stream of writes stays off the cache line. */
static void pipe_update_time(struct inode *inode)
{
	struct timespec now = current_time();
	if (READ_ONCE(inode->i_mtime.tv_nsec) != now.tv_nsec || READ_ONCE(inode->i_mtime.tv_sec) != now.tv_sec)
		inode_set_times(inode, NULL, &now, &now);
}

/* ---- read ---- */

/*
 * pipe_read: 0 for a null read; the data there is, up to len, without
 * waiting for more once some was read; 0 (EOF) when empty with no writer;
 * EAGAIN when empty with O_NONBLOCK; else sleeps until data or EOF.  In
 * packet mode (a buffer written through O_DIRECT) a read returns at most one
 * packet and what of it does not fit is discarded.
 */
static __always_inline ssize_t pipe_read_iter(struct file *f, struct iov_iter *to)
{
	struct pipe_inode_info *pipe = f->private_data;
	ssize_t ret = 0;
	if (unlikely(to->count == 0))
		return 0;
	struct wait_queue_entry w; /* set up on the first sleep */
	bool slept = false, freed_full = false;
	umutex_lock(&pipe->mutex);
	for (;;) {
		unsigned head = pipe->head, tail = pipe->tail, mask = pipe->ring_size - 1;
		if (!pipe_empty(head, tail)) {
			struct pipe_buffer *buf = &pipe->bufs[tail & mask];
			size_t chars = MIN((size_t)buf->len, to->count);
			copy_iter(to, buf->page + buf->offset, chars, true);
			ret += chars;
			buf->offset += chars;
			buf->len -= chars;
			bool packet = buf->flags & PIPE_BUF_FLAG_PACKET;
			if (packet)
				buf->len = 0; /* the rest of the packet is dropped */
			if (!buf->len) {
				freed_full |= pipe_full(head, tail, pipe->max_usage);
				pipe_buf_release(pipe, buf);
				pipe->tail = ++tail;
			}
			if (packet || !to->count)
				break;
			if (!pipe_empty(head, tail))
				continue;
		}
		if (!pipe->writers)
			break;
		if (ret)
			break;
		if (iocb_nowait(f)) {
			ret = -EAGAIN;
			break;
		}
		/* Writers sleeping on a full ring must learn that it drained
		 * (they cannot have been, with nothing to read, but a poller on
		 * the write side may); then sleep until data or EOF. */
		bool wake_w = waitqueue_active(&pipe->wr_wait) &&
			      !pipe_full(pipe->head, pipe->tail, pipe->max_usage);
		fd_unlight(f);
		if (!slept)
			init_wait(&w);
		prepare_to_wait_exclusive(&pipe->rd_wait, &w);
		slept = true;
		umutex_unlock(&pipe->mutex);
		if (wake_w)
			__wake_up(&pipe->wr_wait, POLLOUT | POLLWRNORM, 1);
		wait_woken(&w, NULL);
		umutex_lock(&pipe->mutex);
	}
	/* One slot freed in a full ring is what a sleeping writer waits for;
	 * a reader woken alone who leaves data passes the wake-up on.  Only
	 * those, as Linux: an edge-triggered epoll sees every wake-up. */
	bool wake_w = freed_full && waitqueue_active(&pipe->wr_wait) &&
		      !pipe_full(pipe->head, pipe->tail, pipe->max_usage);
	bool wake_r = slept && !pipe_empty(pipe->head, pipe->tail) && waitqueue_active(&pipe->rd_wait);
	umutex_unlock(&pipe->mutex);
	if (slept)
		finish_wait(&pipe->rd_wait, &w);
	if (wake_w)
		__wake_up(&pipe->wr_wait, POLLOUT | POLLWRNORM, 1);
	if (wake_r)
		__wake_up(&pipe->rd_wait, POLLIN | POLLRDNORM, 1);
	if (ret > 0) {
		touch_atime(f);
		/* IN_ACCESS: vfs_read/vfs_readv report it for every file after
		 * this returns; a pipe's FMODE_NONOTIFY ends it at one test
		 * (seed 003), a FIFO's goes on to its tmpfs superblock */
	}
	return ret;
}

/* ---- write ---- */

/*
 * pipe_write: 0 for a null write; EPIPE when no reader is left (no SIGPIPE:
 * a library raises no signal in its host); a write of at most PIPE_BUF
 * bytes goes in whole or waits (O_NONBLOCK: EAGAIN); a larger one fills
 * what room there is and, blocking, waits for more until done, while with
 * O_NONBLOCK it returns what it wrote (EAGAIN if nothing).
 */
static __always_inline ssize_t pipe_write_iter(struct file *f, struct iov_iter *from)
{
	struct pipe_inode_info *pipe = f->private_data;
	size_t total_len = from->count;
	ssize_t ret = 0;
	if (unlikely(total_len == 0))
		return 0;
	struct wait_queue_entry w; /* set up on the first sleep */
	bool slept = false;
	umutex_lock(&pipe->mutex);
	if (!pipe->readers) {
		ret = -EPIPE;
		goto out;
	}
	/* The part that is not a whole number of pages may go into the last
	 * buffer, if it fits there whole (so small writes stay atomic). */
	unsigned head = pipe->head;
	size_t chars = total_len & (PIPE_PAGE - 1);
	if (chars && !pipe_empty(head, pipe->tail)) {
		struct pipe_buffer *buf = &pipe->bufs[(head - 1) & (pipe->ring_size - 1)];
		if ((buf->flags & PIPE_BUF_FLAG_CAN_MERGE) && buf->offset + buf->len + chars <= PIPE_PAGE) {
			copy_iter(from, buf->page + buf->offset + buf->len, chars, false);
			buf->len += chars;
			ret = chars;
			if (!from->count)
				goto out;
		}
	}
	for (;;) {
		if (!pipe->readers) {
			if (!ret)
				ret = -EPIPE;
			break;
		}
		head = pipe->head;
		if (!pipe_full(head, pipe->tail, pipe->max_usage)) {
			char *page = pipe->tmp_page;
			if (page)
				pipe->tmp_page = NULL;
			else if (!(page = malloc(PIPE_PAGE))) {
				if (!ret)
					ret = -ENOMEM;
				break;
			}
			size_t n = MIN((size_t)PIPE_PAGE, from->count);
			copy_iter(from, page, n, false);
			struct pipe_buffer *buf = &pipe->bufs[head & (pipe->ring_size - 1)];
			buf->page = page;
			buf->offset = 0;
			buf->len = (unsigned)n;
			buf->flags = (f->f_flags & O_DIRECT) ? PIPE_BUF_FLAG_PACKET : PIPE_BUF_FLAG_CAN_MERGE;
			pipe->head = head + 1;
			ret += n;
			if (!from->count)
				break;
			if (!pipe_full(head + 1, pipe->tail, pipe->max_usage))
				continue;
		}
		if (iocb_nowait(f)) {
			if (!ret)
				ret = -EAGAIN;
			break;
		}
		/* Full: let the readers at what is there, then sleep for room. */
		bool wake_r = waitqueue_active(&pipe->rd_wait) && !pipe_empty(pipe->head, pipe->tail);
		fd_unlight(f);
		if (!slept)
			init_wait(&w);
		prepare_to_wait_exclusive(&pipe->wr_wait, &w);
		slept = true;
		umutex_unlock(&pipe->mutex);
		if (wake_r)
			__wake_up(&pipe->rd_wait, POLLIN | POLLRDNORM, 1);
		wait_woken(&w, NULL);
		umutex_lock(&pipe->mutex);
	}
out:;
	bool wake_r = ret > 0 && waitqueue_active(&pipe->rd_wait);
	/* a writer woken alone who leaves room passes the wake-up on */
	bool wake_w = slept && waitqueue_active(&pipe->wr_wait) && pipe->readers &&
		      !pipe_full(pipe->head, pipe->tail, pipe->max_usage);
	if (ret > 0)
		pipe_update_time(f->f_inode);
	umutex_unlock(&pipe->mutex);
	if (slept)
		finish_wait(&pipe->wr_wait, &w);
	if (wake_r)
		__wake_up(&pipe->rd_wait, POLLIN | POLLRDNORM, 1);
	if (wake_w)
		__wake_up(&pipe->wr_wait, POLLOUT | POLLWRNORM, 1);
	/* IN_MODIFY: reported by vfs_write/vfs_writev, as IN_ACCESS above */
	return ret;
}

static ssize_t pipe_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	struct iovec iov = { buf, len };
	struct iov_iter it = { &iov, 1, 0, len };
	return pipe_read_iter(f, &it);
}

static ssize_t pipe_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct iovec iov = { (void *)buf, len };
	struct iov_iter it = { &iov, 1, 0, len };
	return pipe_write_iter(f, &it);
}

static ssize_t pipe_readv(struct file *f, const struct iovec *iov, int n, loff_t *pos)
{
	struct iov_iter it;
	iov_iter_init(&it, iov, n);
	return pipe_read_iter(f, &it);
}

static ssize_t pipe_writev(struct file *f, const struct iovec *iov, int n, loff_t *pos)
{
	struct iov_iter it;
	iov_iter_init(&it, iov, n);
	return pipe_write_iter(f, &it);
}

/* ---- poll, ioctl, release ---- */

/*
 * Linux's pipe_poll: readable when not empty; POLLHUP on the read side when
 * no writer is left, except on a FIFO opened O_RDONLY|O_NONBLOCK that has
 * seen no writer since (f_pos keeps the writer count of that open: a pipe
 * has no position, and Linux keeps the same number in f_version); writable
 * when a slot is free; POLLERR on the write side when no reader is left.
 */
static unsigned pipe_poll(struct file *f, struct poll_table *pt)
{
	struct pipe_inode_info *pipe = f->private_data;
	if (f->f_mode & FMODE_READ)
		poll_wait(f, &pipe->rd_wait, pt);
	if (f->f_mode & FMODE_WRITE)
		poll_wait(f, &pipe->wr_wait, pt);
	unsigned mask = 0;
	umutex_lock(&pipe->mutex);
	if (f->f_mode & FMODE_READ) {
		if (!pipe_empty(pipe->head, pipe->tail))
			mask |= POLLIN | POLLRDNORM;
		if (!pipe->writers && (unsigned)f->f_pos != pipe->w_counter)
			mask |= POLLHUP;
	}
	if (f->f_mode & FMODE_WRITE) {
		if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
			mask |= POLLOUT | POLLWRNORM;
		if (!pipe->readers)
			mask |= POLLERR;
	}
	umutex_unlock(&pipe->mutex);
	return mask;
}

/* FIONREAD: the bytes buffered.  Other requests: ENOTTY. */
static long pipe_ioctl(struct file *f, unsigned long req, void *arg)
{
	struct pipe_inode_info *pipe = f->private_data;
	if (req != FIONREAD)
		return -ENOTTY;
	unsigned count = 0;
	umutex_lock(&pipe->mutex);
	unsigned mask = pipe->ring_size - 1;
	for (unsigned i = pipe->tail; i != pipe->head; i++)
		count += pipe->bufs[i & mask].len;
	umutex_unlock(&pipe->mutex);
	if (!arg)
		return -EFAULT;
	*(int *)arg = (int)count;
	return 0;
}

static void pipe_release(struct inode *inode, struct file *f)
{
	struct pipe_inode_info *pipe = f->private_data;
	umutex_lock(&pipe->mutex);
	if (f->f_mode & FMODE_READ)
		pipe->readers--;
	if (f->f_mode & FMODE_WRITE)
		pipe->writers--;
	/* the last of one side: the other side's sleepers and pollers see EOF,
	 * EPIPE, POLLHUP or POLLERR */
	bool wake = !pipe->readers != !pipe->writers;
	umutex_unlock(&pipe->mutex);
	if (wake) {
		wake_up_all(&pipe->rd_wait);
		wake_up_all(&pipe->wr_wait);
	}
	put_pipe_info(inode, pipe);
}

static const struct file_operations pipefifo_fops = {
	.read = pipe_read,
	.write = pipe_write,
	.read_iter = pipe_readv,
	.write_iter = pipe_writev,
	.release = pipe_release,
	.poll = pipe_poll,
	.unlocked_ioctl = pipe_ioctl,
};

/* ---- F_GETPIPE_SZ, F_SETPIPE_SZ ---- */

/* Linux's round_pipe_size: at least a page, a power of two, at most 2^31. */
static unsigned round_pipe_size(unsigned size)
{
	if (size > (1u << 31))
		return 0;
	if (size < PIPE_PAGE)
		return PIPE_PAGE;
	return 1u << (32 - __builtin_clz(size - 1));
}

/* A new ring of nr_slots; the buffers held move to its start.  EBUSY when
 * they would not fit; pipe->mutex held. */
static long pipe_resize_ring(struct pipe_inode_info *pipe, unsigned nr_slots)
{
	unsigned head = pipe->head, tail = pipe->tail, n = pipe_occupancy(head, tail);
	if (nr_slots < n)
		return -EBUSY;
	struct pipe_buffer *bufs = calloc(nr_slots, sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	unsigned mask = pipe->ring_size - 1;
	for (unsigned i = 0; i < n; i++)
		bufs[i] = pipe->bufs[(tail + i) & mask];
	free(pipe->bufs);
	pipe->bufs = bufs;
	pipe->tail = 0;
	pipe->head = n;
	pipe->ring_size = pipe->max_usage = nr_slots;
	return 0;
}

/*
 * F_SETPIPE_SZ: EINVAL above 2^31; EPERM to grow beyond pipe-max-size
 * (1048576), for every caller: that takes CAP_SYS_RESOURCE, which uvfs's
 * uid 0 does not have (uvfs.h lists its capabilities); EBUSY when
 * the data held needs more slots than asked; returns the size set, the
 * request rounded up to a power-of-two number of pages.  F_GETPIPE_SZ: the
 * size.  EBADF on a file that is not a pipe or FIFO.  Linux's per-user
 * pipe-user-pages limits are not modelled.
 */
long pipe_fcntl(struct file *f, unsigned cmd, unsigned long arg, const struct cred *c)
{
	if (f->f_op != &pipefifo_fops)
		return -EBADF;
	struct pipe_inode_info *pipe = f->private_data;
	long ret;
	umutex_lock(&pipe->mutex);
	if (cmd == F_GETPIPE_SZ) {
		ret = (long)pipe->max_usage * PIPE_PAGE;
	} else {
		unsigned size = round_pipe_size((unsigned)arg); /* fcntl passes an unsigned int */
		unsigned nr_slots = size / PIPE_PAGE;
		if (!nr_slots)
			ret = -EINVAL;
		else if (nr_slots > pipe->max_usage && size > PIPE_MAX_SIZE)
			ret = -EPERM;
		else if (!(ret = pipe_resize_ring(pipe, nr_slots)))
			ret = (long)pipe->max_usage * PIPE_PAGE;
	}
	bool wake_w = ret > 0 && waitqueue_active(&pipe->wr_wait);
	umutex_unlock(&pipe->mutex);
	if (wake_w)
		__wake_up(&pipe->wr_wait, POLLOUT | POLLWRNORM, 0);
	return ret;
}

/* ---- FIFOs ---- */

/* Sleep until *cnt moves past what it was (a partner opened); pipe->mutex
 * held, dropped while asleep. */
static void wait_for_partner(struct pipe_inode_info *pipe, unsigned *cnt)
{
	DEFINE_WAIT(w);
	unsigned cur = *cnt;
	while (cur == *cnt) {
		prepare_to_wait(&pipe->rd_wait, &w);
		umutex_unlock(&pipe->mutex);
		wait_woken(&w, NULL);
		umutex_lock(&pipe->mutex);
	}
	finish_wait(&pipe->rd_wait, &w);
}

/*
 * open(2) of a FIFO, after the permission checks (Linux's fifo_open):
 *   O_RDONLY             waits for a writer, unless one is there;
 *   O_RDONLY|O_NONBLOCK  succeeds at once (no POLLHUP until a writer came);
 *   O_WRONLY             waits for a reader, unless one is there;
 *   O_WRONLY|O_NONBLOCK  ENXIO without a reader;
 *   O_RDWR               never waits;
 *   neither (O_ACCMODE 3) EINVAL.
 */
int fifo_open(struct inode *inode, struct file *f)
{
	struct pipe_inode_info *pipe, *fresh = NULL;
	spin_lock(&inode->i_lock);
	pipe = inode->i_pipe;
	if (!pipe) {
		/* the first opener makes it; not under i_lock, so check again */
		spin_unlock(&inode->i_lock);
		fresh = alloc_pipe_info();
		if (!fresh)
			return -ENOMEM;
		spin_lock(&inode->i_lock);
		pipe = inode->i_pipe;
		if (!pipe) {
			inode->i_pipe = pipe = fresh;
			fresh = NULL;
		}
	}
	pipe->files++;
	spin_unlock(&inode->i_lock);
	if (fresh) /* another opener made it first */
		free_pipe_info(fresh);

	f->private_data = pipe;
	f->f_op = &pipefifo_fops;
	f->f_mode &= ~(FMODE_LSEEK | FMODE_ATOMIC_POS); /* a stream */
	f->f_mode |= FMODE_LIGHT; /* see create_pipe_files */
	f->f_pos = 0;
	int ret = 0;
	/* an anonymous pipe opened again by its fd (uvfs_fd_reopen, Linux's
	 * /proc/self/fd/N) waits for no partner and has no ENXIO */
	bool is_pipe = inode->i_sb->s_magic == PIPEFS_MAGIC_;
	umutex_lock(&pipe->mutex);
	/* wake_up_partner: a partner blocked in open, or a poller, learns we
	 * came.  Under the mutex, so that no opener can come between the wake
	 * and our own wait_for_partner (it would be missed). */
	switch (f->f_mode & (FMODE_READ | FMODE_WRITE)) {
	case FMODE_READ:
		pipe->r_counter++;
		if (pipe->readers++ == 0)
			wake_up_all(&pipe->rd_wait);
		if (!is_pipe && !pipe->writers) {
			if (f->f_flags & O_NONBLOCK)
				f->f_pos = pipe->w_counter; /* no POLLHUP before a writer */
			else
				wait_for_partner(pipe, &pipe->w_counter);
		}
		break;
	case FMODE_WRITE:
		if (!is_pipe && (f->f_flags & O_NONBLOCK) && !pipe->readers) {
			ret = -ENXIO;
			break;
		}
		pipe->w_counter++;
		if (pipe->writers++ == 0)
			wake_up_all(&pipe->rd_wait);
		if (!is_pipe && !pipe->readers)
			wait_for_partner(pipe, &pipe->r_counter);
		break;
	case FMODE_READ | FMODE_WRITE:
		pipe->readers++;
		pipe->writers++;
		pipe->r_counter++;
		pipe->w_counter++;
		if (pipe->readers == 1 || pipe->writers == 1)
			wake_up_all(&pipe->rd_wait);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	umutex_unlock(&pipe->mutex);
	if (ret) {
		f->private_data = NULL;
		put_pipe_info(inode, pipe);
	}
	return ret;
}

/* ---- pipefs and pipe2 ---- */

static struct inode *pipefs_alloc_inode(struct super_block *sb)
{
	return calloc(1, sizeof(struct inode));
}

static void pipefs_destroy_inode(struct inode *inode)
{
	free(inode);
}

static int pipefs_statfs(struct super_block *sb, struct statfs *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->f_type = PIPEFS_MAGIC_;
	buf->f_bsize = PIPE_PAGE;
	buf->f_namelen = 255;
	return 0;
}

static const struct super_operations pipefs_ops = {
	.alloc_inode = pipefs_alloc_inode,
	.destroy_inode = pipefs_destroy_inode,
	.statfs = pipefs_statfs,
};
static const struct inode_operations pipefs_inode_operations = { 0 };

static int pipefs_mount(const struct file_system_type *type, struct uvfs *vfs, const char *source,
			unsigned long ms_flags, const void *data, struct super_block **sbp)
{
	struct super_block *sb = sget(vfs, &pipefs_ops, PIPEFS_MAGIC_);
	if (!sb)
		return -ENOMEM;
	sb->s_flags |= SB_KERNMOUNT | SB_PSEUDO;
	*sbp = sb;
	return 0;
}

/* Registered as every filesystem is, so it shows as one; FS_NOUSER keeps
 * uvfs_mount from making one (Linux: EINVAL). */
const struct file_system_type pipefs_fs_type = {
	.name = "pipefs",
	.fs_flags = FS_NOUSER,
	.mount = pipefs_mount,
};

/* The instance's pipefs, made on the first pipe (most instances never make
 * one), as Linux's kern_mount of pipe_fs_type; uvfs_destroy tears it down. */
static struct super_block *pipefs_sb(struct uvfs *vfs)
{
	return kern_mount_once(vfs, &vfs->pipe_sb, "pipefs", "pipefs");
}

/* Linux's create_pipe_files: an inode on pipefs and two pseudo files,
 * res[0] to read, res[1] to write.  ENFILE when the inode cannot be made,
 * as Linux's get_pipe_inode; a file's error (ENFILE or ENOMEM) otherwise. */
static int create_pipe_files(struct uvfs_proc *p, struct file **res, int flags)
{
	struct uvfs *vfs = p->vfs;
	struct super_block *sb = pipefs_sb(vfs);
	if (!sb)
		return -ENFILE;
	struct inode *inode = new_inode(sb);
	if (!inode)
		return -ENFILE;
	struct pipe_inode_info *pipe = alloc_pipe_info();
	if (!pipe) {
		iput(inode);
		return -ENFILE;
	}
	inode->i_mode = S_IFIFO | S_IRUSR | S_IWUSR;
	inode->i_uid = current_cred()->fsuid;
	inode->i_gid = current_cred()->fsgid;
	inode->i_op = &pipefs_inode_operations;
	inode->i_pipe = pipe;
	pipe->readers = pipe->writers = 1;
	pipe->files = 2;

	struct file *fw = alloc_file_pseudo(vfs, sb, inode, O_WRONLY | (flags & (O_NONBLOCK | O_DIRECT)),
					    &pipefifo_fops);
	if (!fw) {
		inode->i_pipe = NULL;
		free_pipe_info(pipe);
		iput(inode);
		return alloc_file_errno(vfs);
	}
	fw->private_data = pipe;
	ihold(inode);
	struct file *fr = alloc_file_pseudo(vfs, sb, inode, O_RDONLY | (flags & O_NONBLOCK), &pipefifo_fops);
	if (!fr) {
		iput(inode);
		put_pipe_info(inode, pipe); /* the read side's share */
		fput_close(fw);
		return alloc_file_errno(vfs);
	}
	fr->private_data = pipe;
	/* single-thread mode may use them without a reference: the calls that
	 * sleep take one first (fd_unlight) */
	fr->f_mode |= FMODE_LIGHT | FMODE_NOWAIT;
	fw->f_mode |= FMODE_LIGHT | FMODE_NOWAIT;
	fr->f_nowait_off = 0;
	fw->f_nowait_off = 0;
	res[0] = fr;
	res[1] = fw;
	return 0;
}

/*
 * pipe2(2): EINVAL for flags other than O_NONBLOCK, O_CLOEXEC and O_DIRECT
 * (O_NOTIFICATION_PIPE is not supported); ENFILE; EMFILE; EFAULT for a NULL
 * fds, found last as Linux finds it when it copies the fds out.
 */
UVFS_API int uvfs_pipe2(struct uvfs_proc *p, int fds[2], int flags)
{
	API_ENTER_PROC(p);
	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		API_RETURN(-EINVAL);
	struct file *files[2] = { NULL, NULL }; /* for the compiler: alloc_file_errno is never 0 */
	int err = create_pipe_files(p, files, flags);
	if (err)
		API_RETURN(err);
	int fdr = get_unused_fd_flags(p, flags & O_CLOEXEC);
	int fdw = fdr < 0 ? fdr : get_unused_fd_flags(p, flags & O_CLOEXEC);
	if (fdw < 0 || !fds) {
		if (fdr >= 0)
			put_unused_fd(p, fdr);
		if (fdw >= 0)
			put_unused_fd(p, fdw);
		fput_close(files[0]);
		fput_close(files[1]);
		API_RETURN(fdw < 0 ? fdw : -EFAULT);
	}
	fds[0] = fdr;
	fds[1] = fdw;
	fd_install(p, fdr, files[0]);
	fd_install(p, fdw, files[1]);
	API_RETURN(0);
}

/* ---- splice and tee (splice.c; Linux's fs/splice.c for pipes) ---- */

#include "splice.h"

bool file_is_pipe(const struct file *f)
{
	return f->f_op == &pipefifo_fops;
}

/* Sleeps until woken, pipe->mutex held on entry and on return.  Linux's
 * pipe_wait_readable/writable: a plain (not exclusive) wait, so that any
 * change of the pipe wakes it. */
static void pipe_wait(struct pipe_inode_info *pipe, struct wait_queue_head *wq, struct file *f)
{
	struct wait_queue_entry w;
	fd_unlight(f);
	init_wait(&w);
	prepare_to_wait(wq, &w);
	umutex_unlock(&pipe->mutex);
	wait_woken(&w, NULL);
	umutex_lock(&pipe->mutex);
	finish_wait(wq, &w);
}

static char *pipe_page_get(struct pipe_inode_info *pipe)
{
	char *page = pipe->tmp_page;
	if (page)
		pipe->tmp_page = NULL;
	else
		page = malloc(PIPE_PAGE);
	return page;
}

/* After a change under the mutex: whom to wake once it is dropped. */
static void pipe_wake_after(struct pipe_inode_info *pipe, bool added, bool removed)
{
	bool wake_r = added && waitqueue_active(&pipe->rd_wait);
	bool wake_w = removed && waitqueue_active(&pipe->wr_wait);
	umutex_unlock(&pipe->mutex);
	if (wake_r)
		__wake_up(&pipe->rd_wait, POLLIN | POLLRDNORM, 1);
	if (wake_w)
		__wake_up(&pipe->wr_wait, POLLOUT | POLLWRNORM, 1);
}

ssize_t pipe_fill(struct file *pf, size_t len, unsigned flags, splice_actor fill, void *ctx)
{
	struct pipe_inode_info *pipe = pf->private_data;
	ssize_t ret = 0;
	umutex_lock(&pipe->mutex);
	for (;;) {
		if (!pipe->readers) {
			ret = -EPIPE;
			goto out;
		}
		if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
			break;
		if (flags & SPLICE_F_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		pipe_wait(pipe, &pipe->wr_wait, pf);
	}
	while (len && !pipe_full(pipe->head, pipe->tail, pipe->max_usage)) {
		char *page = pipe_page_get(pipe);
		if (!page) {
			if (!ret)
				ret = -ENOMEM;
			break;
		}
		ssize_t n = fill(ctx, page, MIN((size_t)PIPE_PAGE, len));
		if (n <= 0) {
			pipe_buf_release(pipe, &(struct pipe_buffer){ .page = page });
			if (!ret)
				ret = n;
			break;
		}
		/* a spliced page is not a plain write's: nothing merges into it */
		pipe->bufs[pipe->head & (pipe->ring_size - 1)] =
			(struct pipe_buffer){ .page = page, .offset = 0, .len = (unsigned)n, .flags = 0 };
		pipe->head++;
		ret += n;
		len -= (size_t)n;
	}
out:
	pipe_wake_after(pipe, ret > 0, false);
	return ret;
}

ssize_t pipe_drain(struct file *pf, size_t len, unsigned flags, splice_actor drain, void *ctx)
{
	struct pipe_inode_info *pipe = pf->private_data;
	ssize_t ret = 0;
	umutex_lock(&pipe->mutex);
	while (pipe_empty(pipe->head, pipe->tail)) {
		if (!pipe->writers)
			goto out;
		if (flags & SPLICE_F_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		pipe_wait(pipe, &pipe->rd_wait, pf);
	}
	while (len && !pipe_empty(pipe->head, pipe->tail)) {
		struct pipe_buffer *buf = &pipe->bufs[pipe->tail & (pipe->ring_size - 1)];
		size_t want = MIN((size_t)buf->len, len);
		ssize_t n = drain(ctx, buf->page + buf->offset, want);
		if (n <= 0) {
			if (!ret)
				ret = n;
			break;
		}
		buf->offset += (unsigned)n;
		buf->len -= (unsigned)n;
		ret += n;
		len -= (size_t)n;
		if (!buf->len) {
			pipe_buf_release(pipe, buf);
			pipe->tail++;
		}
		if ((size_t)n < want)
			break;
	}
out:
	pipe_wake_after(pipe, false, ret > 0);
	return ret;
}

/* Linux's ipipe_prep: wait for data in the input, unless it has no
 * writer (then 0, and the caller finds nothing) or SPLICE_F_NONBLOCK. */
static int ipipe_prep(struct file *in, unsigned flags)
{
	struct pipe_inode_info *pipe = in->private_data;
	int ret = 0;
	umutex_lock(&pipe->mutex);
	while (pipe_empty(pipe->head, pipe->tail)) {
		if (!pipe->writers)
			break;
		if (flags & SPLICE_F_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		pipe_wait(pipe, &pipe->rd_wait, in);
	}
	umutex_unlock(&pipe->mutex);
	return ret;
}

/* Linux's opipe_prep: wait for room in the output (EPIPE with no reader). */
static int opipe_prep(struct file *out, unsigned flags)
{
	struct pipe_inode_info *pipe = out->private_data;
	int ret = 0;
	umutex_lock(&pipe->mutex);
	while (pipe_full(pipe->head, pipe->tail, pipe->max_usage)) {
		if (!pipe->readers) {
			ret = -EPIPE;
			break;
		}
		if (flags & SPLICE_F_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		pipe_wait(pipe, &pipe->wr_wait, out);
	}
	umutex_unlock(&pipe->mutex);
	return ret;
}

/* Linux's pipe_double_lock: by address, so two splices in opposite
 * directions cannot deadlock. */
static void pipe_double_lock(struct pipe_inode_info *a, struct pipe_inode_info *b)
{
	if (a < b) {
		umutex_lock(&a->mutex);
		umutex_lock(&b->mutex);
	} else {
		umutex_lock(&b->mutex);
		umutex_lock(&a->mutex);
	}
}

/*
 * splice_pipe_to_pipe and link_pipe (tee).  A whole buffer moves as it is
 * (a plain write's may still take merges at its new place, as on Linux);
 * part of one, and every buffer tee passes on, is copied into a page of
 * the output that nothing merges into (Linux shares the page and clears
 * CAN_MERGE; uvfs's pages have no reference counts, so it copies).
 */
ssize_t pipe_to_pipe(struct file *in, struct file *out, size_t len, unsigned flags, bool tee)
{
	struct pipe_inode_info *ipipe = in->private_data, *opipe = out->private_data;
	ssize_t ret;
retry:
	ret = ipipe_prep(in, flags);
	if (ret)
		return ret;
	ret = opipe_prep(out, flags);
	if (ret)
		return ret;
	pipe_double_lock(ipipe, opipe);
	unsigned i_tail = ipipe->tail, i_mask = ipipe->ring_size - 1, o_mask = opipe->ring_size - 1;
	bool input_wakeup = false;
	do {
		if (!opipe->readers) {
			if (!ret)
				ret = -EPIPE;
			break;
		}
		unsigned i_head = ipipe->head, o_head = opipe->head;
		if (pipe_empty(i_head, i_tail) && !ipipe->writers)
			break;
		if (pipe_empty(i_head, i_tail) || pipe_full(o_head, opipe->tail, opipe->max_usage)) {
			if (ret || tee)
				break;
			if (flags & SPLICE_F_NONBLOCK) {
				ret = -EAGAIN;
				break;
			}
			/* another reader or writer got there first: wait again */
			umutex_unlock(&ipipe->mutex);
			umutex_unlock(&opipe->mutex);
			goto retry;
		}
		struct pipe_buffer *ibuf = &ipipe->bufs[i_tail & i_mask];
		struct pipe_buffer *obuf = &opipe->bufs[o_head & o_mask];
		size_t n = MIN((size_t)ibuf->len, len);
		if (!tee && n == ibuf->len) {
			*obuf = *ibuf;
			ibuf->page = NULL;
			ibuf->len = 0;
			ipipe->tail = ++i_tail;
			input_wakeup = true;
		} else {
			char *page = pipe_page_get(opipe);
			if (!page) {
				if (!ret)
					ret = -ENOMEM;
				break;
			}
			memcpy(page, ibuf->page + ibuf->offset, n);
			*obuf = (struct pipe_buffer){ .page = page, .offset = 0, .len = (unsigned)n,
						      .flags = ibuf->flags & ~PIPE_BUF_FLAG_CAN_MERGE };
			if (tee) {
				i_tail++;
			} else {
				ibuf->offset += (unsigned)n;
				ibuf->len -= (unsigned)n;
			}
		}
		opipe->head = o_head + 1;
		ret += (ssize_t)n;
		len -= n;
	} while (len);
	bool wake_r = ret > 0 && waitqueue_active(&opipe->rd_wait);
	bool wake_w = input_wakeup && waitqueue_active(&ipipe->wr_wait);
	umutex_unlock(&ipipe->mutex);
	umutex_unlock(&opipe->mutex);
	if (wake_r)
		__wake_up(&opipe->rd_wait, POLLIN | POLLRDNORM, 1);
	if (wake_w)
		__wake_up(&ipipe->wr_wait, POLLOUT | POLLWRNORM, 1);
	return ret;
}
