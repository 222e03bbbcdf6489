// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * inode.c - inode lifetime and the attribute helpers (Linux's fs/inode.c).
 *
 * An inode is referenced by its dentries and by in-flight users; i_nlink
 * counts its names.  When the last reference goes, the filesystem evicts it
 * (tmpfs frees the data of an inode with no links left) and the memory is
 * freed after a grace period, since lockless path walkers read its fields.
 */
#include "vfs.h"
#include "xattr.h"
#include "locks.h"

/*
 * Inode numbers: each thread takes a run of INO_BATCH from the instance's
 * counter and hands them out itself, as Linux's get_next_ino does per CPU,
 * so that creates on different cores do not write one shared line.  Numbers
 * stay unique in the instance (64 bits do not wrap).  A thread's run names
 * its instance by ino_id, which no later instance reuses (a pointer could
 * be, after uvfs_destroy).
 */
#define INO_BATCH 1024
static uint64_t last_ino_id;
static __thread struct {
	uint64_t id, next, end;
} ino_run;

void inode_ino_init(struct uvfs *vfs)
{
	vfs->ino_id = __atomic_add_fetch(&last_ino_id, 1, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) uint64_t ino_refill(struct uvfs *vfs)
{
	uint64_t first = __atomic_fetch_add(&vfs->next_ino, INO_BATCH, __ATOMIC_RELAXED) + 1;
	ino_run.id = vfs->ino_id;
	ino_run.next = first + 1;
	ino_run.end = first + INO_BATCH;
	return first;
}

static inline uint64_t next_ino(struct uvfs *vfs)
{
	if (likely(ino_run.id == vfs->ino_id && ino_run.next < ino_run.end))
		return ino_run.next++;
	return ino_refill(vfs);
}

/*
 * The superblock's inodes, for its teardown and the rare walks (remount
 * read-only, fsnotify at umount): one list per counter slot, so that the
 * create and evict paths of threads on different cores do not share a
 * lock or a line (Linux has one list and lock per sb, s_inode_list_lock,
 * and pays the bounce).  An inode stays on the list of the thread that
 * made it; its evict takes that list's lock from wherever it runs.
 */
void inode_sb_list_init(struct super_block *sb)
{
	for (unsigned s = 0; s < COUNTER_SHARDS; s++) {
		spin_lock_init(&sb->s_inode_shards[s].lock);
		INIT_LIST_HEAD(&sb->s_inode_shards[s].inodes);
	}
}

static void inode_sb_list_add(struct super_block *sb, struct inode *inode)
{
	unsigned s = uvfs_thread_slot % COUNTER_SHARDS;
	struct inode_sb_shard *sh = &sb->s_inode_shards[s];
	inode->i_sb_shard = s;
	spin_lock(&sh->lock);
	list_add(&inode->i_sb_list, &sh->inodes);
	spin_unlock(&sh->lock);
}

static void inode_sb_list_del(struct super_block *sb, struct inode *inode)
{
	struct inode_sb_shard *sh = &sb->s_inode_shards[inode->i_sb_shard];
	spin_lock(&sh->lock);
	list_del_init(&inode->i_sb_list);
	spin_unlock(&sh->lock);
}

/* Held across a walk, so only for walks that do not block. */
void inode_sb_list_lock_all(struct super_block *sb)
{
	for (unsigned s = 0; s < COUNTER_SHARDS; s++)
		spin_lock(&sb->s_inode_shards[s].lock);
}

void inode_sb_list_unlock_all(struct super_block *sb)
{
	for (unsigned s = COUNTER_SHARDS; s-- > 0;)
		spin_unlock(&sb->s_inode_shards[s].lock);
}

struct inode *inode_sb_list_find(struct super_block *sb, bool (*match)(struct inode *))
{
	for (unsigned s = 0; s < COUNTER_SHARDS; s++) {
		struct list_head *pos;
		list_for_each(pos, &sb->s_inode_shards[s].inodes) {
			struct inode *inode = list_entry(pos, struct inode, i_sb_list);
			if (match(inode))
				return inode;
		}
	}
	return NULL;
}

struct inode *new_inode(struct super_block *sb)
{
	struct inode *inode = sb->s_op->alloc_inode(sb);
	if (!inode)
		return NULL;
	inode->i_sb = sb;
	inode->i_sop = sb->s_op;
	inode->i_count = 1;
	inode->i_nlink = 1;
	inode->i_ino = next_ino(sb->s_uvfs);
	init_rwsem(&inode->i_rwsem);
	spin_lock_init(&inode->i_lock);
	INIT_LIST_HEAD(&inode->i_fsnotify_marks);
	inode->i_flctx = NULL;
	struct timespec now = current_time();
	inode->i_atime = inode->i_mtime = inode->i_ctime = inode->i_btime = now;
	inode_sb_list_add(sb, inode);
	return inode;
}

struct inode *ihold(struct inode *inode)
{
	__atomic_fetch_add(&inode->i_count, 1, __ATOMIC_RELAXED);
	return inode;
}

static void inode_free_rcu(struct rcu_head *h)
{
	struct inode *inode = container_of(h, struct inode, i_rcu);
	posix_acl_free_inode(inode);
	locks_free_lock_context(inode);
	inode->i_sop->destroy_inode(inode);
}

static void evict(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	inode_sb_list_del(sb, inode);
	if (sb->s_op->evict_inode)
		sb->s_op->evict_inode(inode);
	/* the common inode has nothing of its own for the grace period to
	 * free: its memory alone waits, in a cache with others' */
	if (sb->s_op->recycle_inode && !inode->i_acl && !inode->i_default_acl && !inode->i_flctx &&
	    !inode->i_link)
		sb->s_op->recycle_inode(inode);
	else
		urcu_memb_call_rcu(&inode->i_rcu, inode_free_rcu);
}

void iput(struct inode *inode)
{
	if (!inode)
		return;
	if (__atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL) == 0)
		evict(inode);
}

/* Teardown of an unmounted superblock: every inode left goes now.  Nothing
 * else adds or removes inodes of it any more; each is taken off its list
 * under the list's lock and evicted outside it (a spinlock). */
void evict_all_inodes(struct super_block *sb)
{
	for (unsigned s = 0; s < COUNTER_SHARDS; s++) {
		struct inode_sb_shard *sh = &sb->s_inode_shards[s];
		for (;;) {
			spin_lock(&sh->lock);
			struct inode *inode = list_empty(&sh->inodes) ? NULL :
					      list_entry(sh->inodes.next, struct inode, i_sb_list);
			if (inode)
				list_del_init(&inode->i_sb_list);
			spin_unlock(&sh->lock);
			if (!inode)
				break;
			/* d_genocide took the dentries' references: any left is held
			 * by someone who will read a freed inode */
			LIFETIME_CHECK(__atomic_load_n(&inode->i_count, __ATOMIC_ACQUIRE) == 0,
				       "inode %lu of a superblock being torn down has %ld references left",
				       (unsigned long)inode->i_ino, (long)inode->i_count);
			if (sb->s_op->evict_inode)
				sb->s_op->evict_inode(inode);
			/* lockless walkers may still hold it: free after a grace period */
			urcu_memb_call_rcu(&inode->i_rcu, inode_free_rcu);
		}
	}
}

void inc_nlink(struct inode *inode) { WRITE_ONCE(inode->i_nlink, inode->i_nlink + 1); }
void set_nlink(struct inode *inode, unsigned n) { WRITE_ONCE(inode->i_nlink, n); }

static inline void set_time(struct timespec *t, const struct timespec *v)
{
	WRITE_ONCE(t->tv_sec, v->tv_sec);
	WRITE_ONCE(t->tv_nsec, v->tv_nsec);
}

/*
 * Every change of a published inode's times goes through here.  Their
 * writers hold different locks (the inode's i_rwsem, its directory's for a
 * rename's victim and mover, a pipe's mutex, none for a symlink's atime), so
 * i_time_seq is their lock as well as the readers' check: a stat never
 * returns seconds of one update with nanoseconds of another.
 */
__attribute__((noinline)) void inode_set_times(struct inode *inode, const struct timespec *atime,
						 const struct timespec *mtime, const struct timespec *ctime)
{
	write_seqcount_lock(&inode->i_time_seq);
	if (atime)
		set_time(&inode->i_atime, atime);
	if (mtime)
		set_time(&inode->i_mtime, mtime);
	if (ctime)
		set_time(&inode->i_ctime, ctime);
	write_seqcount_unlock(&inode->i_time_seq);
}

/* ---- multigrain timestamps (vfs.h, "time") ---- */

int64_t uvfs_time_floor;

/* The floor is ahead of the coarse clock by less than a tick, unless the
 * clock was set back since the floor's fine stamp: Linux keeps its floor
 * on the monotonic clock, which a clock change does not move, so that its
 * stamps follow the clock back at once.  Here the floor is on the real
 * clock (no user-space call reads both clocks at one instant), and one
 * further ahead than this is taken for a clock set back and ignored. */
#define FLOOR_AHEAD_MAX (NSEC_PER_SEC / 10)

static inline struct timespec ns_to_ts(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

struct timespec current_time_floor(struct timespec coarse, int64_t floor)
{
	if (floor - (coarse.tv_sec * NSEC_PER_SEC + coarse.tv_nsec) > FLOOR_AHEAD_MAX)
		return coarse;
	return ns_to_ts(floor);
}

/* Linux's ktime_get_real_ts64_mg: the fine clock, made the floor; when
 * another thread has raised the floor past it meanwhile, the floor (a
 * stamp handed out already, so later than this call's start). */
struct timespec current_time_fine(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	int64_t old = __atomic_load_n(&uvfs_time_floor, __ATOMIC_RELAXED);
	do {
		if (old >= ns)
			return old - ns > FLOOR_AHEAD_MAX ? ts : ns_to_ts(old);
	} while (!__atomic_compare_exchange_n(&uvfs_time_floor, &old, ns, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return ts;
}

static inline bool ts_after(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

/* Linux's inode_set_ctime_current with setattr_copy_mgtime's atime and
 * mtime.  The mark is read with the lock held: the lock's compare-and-swap
 * and this load against inode_query_times's store and check. */
__attribute__((noinline)) struct timespec inode_stamp(struct inode *inode, struct timespec now, unsigned now_mask,
						     const struct timespec *atime, const struct timespec *mtime)
{
	write_seqcount_lock(&inode->i_time_seq);
	if (__atomic_load_n(&inode->i_ctime_queried, __ATOMIC_SEQ_CST)) {
		if (!(now_mask & INODE_NOW_GIVEN) && (inode->i_sb->s_flags & SB_MGTIME) && !ts_after(now, inode->i_ctime))
			now = current_time_fine();
		__atomic_store_n(&inode->i_ctime_queried, 0, __ATOMIC_RELAXED);
	}
	if (atime)
		set_time(&inode->i_atime, atime);
	else if (now_mask & INODE_NOW_A)
		set_time(&inode->i_atime, &now);
	if (mtime)
		set_time(&inode->i_mtime, mtime);
	else if (now_mask & INODE_NOW_M)
		set_time(&inode->i_mtime, &now);
	set_time(&inode->i_ctime, &now);
	write_seqcount_unlock(&inode->i_time_seq);
	return now;
}

/* inode_touch_mc_at and inode_touch_c_at (vfs.h) at the coarse clock's now */
void inode_touch_mc(struct inode *inode)
{
	inode_touch_mc_at(inode, current_time());
}

void inode_touch_c(struct inode *inode)
{
	inode_touch_c_at(inode, current_time());
}

/* For the lockless relatime check, where a torn value is harmless (see
 * inode_touch_atime): a plain copy, word by word for TSan (vfs.h). */
static inline struct timespec load_time(const struct timespec *t)
{
	struct timespec v;
	seq_copy_time(&v, t);
	return v;
}

static inline bool ts_le(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec);
}


/* Linux's relatime_need_update: atime not newer than mtime or ctime, or a
 * day old. */
static inline bool relatime_need_update(const struct inode *inode, struct timespec at, struct timespec now)
{
	return ts_le(at, load_time(&inode->i_mtime)) || ts_le(at, load_time(&inode->i_ctime)) ||
	       now.tv_sec - at.tv_sec >= 24 * 3600;
}

/* The update itself, decided again in the writers' section, where no time
 * moves: out of line, so that the common read, which updates nothing, saves
 * no registers for it. */
static __attribute__((noinline)) void inode_update_atime(struct inode *inode, struct timespec now)
{
	write_seqcount_lock(&inode->i_time_seq);
	struct timespec at = inode->i_atime;
	if (relatime_need_update(inode, at, now) && (at.tv_sec != now.tv_sec || at.tv_nsec != now.tv_nsec))
		set_time(&inode->i_atime, &now);
	write_seqcount_unlock(&inode->i_time_seq);
}

/*
 * Linux's atime_needs_update, then the update.  The clock is read on every
 * call, as Linux reads it: the day rule needs "now", and no cheaper bound on
 * it exists (CLOCK_REALTIME can be set forward at any time, and any time can
 * pass between two calls), so even an atime that is newer than mtime and
 * ctime cannot be judged without it.
 */
void inode_touch_atime(struct inode *inode, struct mount *m)
{
	if ((m && (READ_ONCE(m->m_flags) & (MNT_NOATIME | MNT_RDONLY | MNT_NODIRATIME | MNT_STRICTATIME)) && mnt_touch_atime(inode, READ_ONCE(m->m_flags))) || (READ_ONCE(inode->i_sb->s_flags) & (SB_NOATIME | SB_RDONLY)))
		return;
	struct timespec now = current_time();
	struct timespec at = load_time(&inode->i_atime);
	/* Checked without the lock first (a value torn by a racing writer only
	 * sends us to the section that decides again): after the first read that follows a
	 * change, atime is newer than mtime and ctime and reads take no lock;
	 * nor do they when atime is already now (Linux's atime_needs_update),
	 * as for a pipe whose writes keep mtime at the coarse clock's now. */
	if (likely(!relatime_need_update(inode, at, now)))
		return;
	if (at.tv_sec == now.tv_sec && at.tv_nsec == now.tv_nsec)
		return;
	/* FS_NOATIME_FL (ioctl.c); asked only when atime would move */
	if (READ_ONCE(inode->i_flags) & S_NOATIME)
		return;
	inode_update_atime(inode, now);
}
