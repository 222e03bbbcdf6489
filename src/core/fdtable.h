/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fdtable.h - the fd table: struct files_struct and struct fdtable.
 *
 * One of the object headers vfs.h includes, in the order of their
 * definitions (an object refers only to those before it): include
 * vfs.h.  Each structure says who owns it and which lock guards each
 * field; the lock order is at the top of vfs.h.
 */
#ifndef UVFS_CORE_FDTABLE_H
#define UVFS_CORE_FDTABLE_H
#ifndef UVFS_CORE_VFS_H
#error "include vfs.h, which includes this header after the objects it refers to"
#endif

/* ---- fd table (files_struct + fdtable) ---- */
struct fdtable {
	unsigned max_fds;
	struct file **fd;            /* RCU readable slots */
	unsigned long *open_fds;     /* bit per fd: allocated (possibly not yet installed) */
	unsigned long *close_on_exec;
	unsigned long *full_fds_bits; /* bit per word of open_fds: that word is full */
	struct rcu_head rcu;
};

#define NR_OPEN_DEFAULT 64
/* The slot of an fd: its bits 3-5 flipped by its bits 0-2, so that of 8
 * neighbouring fds (which threads sharing a table open and close at the
 * same time) each falls on its own cache line of 8 slots, and a long-lived
 * dirfd's slot is not on the line of the fds churned next to it.  The map
 * stays within each block of 64 (a table holds whole blocks) and is its own
 * inverse. */
static inline struct file **fdt_slot(struct fdtable *fdt, unsigned fd)
{
	return &fdt->fd[fd ^ (fd & 7u) << 3];
}
/* The slot of an fd reserved by an open in progress (get_unused_fd_flags
 * until fd_install or put_unused_fd): marked, so that an empty slot whose
 * bit is set is never a reservation, only a change under way on another
 * thread (fdtable.c).  Not an address: a reader that takes it for a file
 * faults at once. */
#define FD_RESERVED ((struct file *)1)
static inline bool slot_has_file(const struct file *f)
{
	return (uintptr_t)f > (uintptr_t)FD_RESERVED;
}
struct files_struct {
	/* read by every call, written (almost) never: a line of its own, so
	 * that threads allocating and closing fds do not take it from readers */
	long count; /* procs sharing the table (atomic) */
	/* Single-thread mode (see fdtable.c): while only the owner thread has
	 * ever used the table, its calls take no fd reference and no lock. */
	void *owner;      /* the thread (its &uvfs_current), or NULL */
	int shared;       /* sticky: a second thread or proc came (0, 1: handshake, 2) */
	struct fdtable *fdt; /* RCU */
	struct fdtable fdtab;
	int owner_active ____cacheline_aligned; /* light sections the owner is inside (nesting count) */
	/* written under the lock */
	spinlock_t file_lock ____cacheline_aligned;
	unsigned next_fd;            /* single-thread mode only: no free fd below it */
	unsigned resize_in_progress; /* resizes under way: the lock-free fd ops stand aside */
	/* the first word of each bitmap: changed by lock-free fd ops in shared
	 * mode.  open_fds' alone on its line: every open and close writes it,
	 * while close-on-exec is only read unless an fd has the flag. */
	unsigned long open_fds_init[1] ____cacheline_aligned;
	unsigned long close_on_exec_init[1] ____cacheline_aligned;
	unsigned long full_fds_bits_init[1];
	struct file *fd_array[NR_OPEN_DEFAULT] ____cacheline_aligned;
};

#endif
