/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lraid private header: the structures shared by the control, array, read
 * and write code.
 *
 * Ownership and locking (see also Documentation/design.rst)
 * ---------------------------------------------------------
 * Global:  lraid_arrays[] (index -> running array) and lraid_starting[]
 *          (arrays being created or assembled; lraid_array_find() says
 *          -EBUSY) are guarded by lraid_ctl_mutex, which is held for a few
 *          loads and stores only, never across I/O, and never by the I/O
 *          path. Each command (create, assemble, stop, fail) holds the
 *          lock of its index throughout, member I/O included, so a member
 *          that does not answer stalls its own array's commands only.
 *
 * Array:   geometry, members and the gendisk are written once before
 *          add_disk() and are read-only afterwards, so the I/O path reads
 *          them without any lock. Superblock writes happen only from the
 *          control path (create/assemble/stop/fail) and a->fail_work.
 *          a->active (percpu_ref) counts I/O in flight; stop kills it and
 *          waits for zero after del_gendisk() has cut off new bios. A
 *          worker is woken after its list add under rcu_read_lock(): the
 *          item may be done and a->active at zero before the wake-up, so
 *          stop waits with synchronize_rcu() before freeing the workers.
 *          a->failed (roles marked failed) gains bits by cmpxchg
 *          (lraid_fail_member()): from the control path under the index
 *          lock, or from a member write's end_io; the I/O path samples it
 *          with READ_ONCE (see "Degraded mode" in design.rst). It loses
 *          one only when a rebuild onto an added member ends
 *          (lraid_array_recovered()), under a range over every stripe:
 *          no write, discard or degraded read is in flight then. The
 *          members[] slot of a failed role may be given a new device by
 *          lraid_array_add(), or emptied by lraid_array_remove(), with
 *          lraid's queue frozen (no read holds an older sample of the
 *          mask) and under the same kind of range.
 *          Superblock writes and a->events are guarded by a->sb_mutex
 *          (taken inside the index lock by the control path, alone by
 *          a->fail_work, which writes a bit the I/O path set). Until the
 *          superblocks record a failed member (a->failed_recorded),
 *          finished write pieces are held on a->held (a->held_lock) and
 *          (full-stripe discards on a->held_dranges, flushes on
 *          a->held_flushes; held_lock is taken from end_io too, so with
 *          interrupts off) and their callers not told: after a crash, a member whose failure
 *          no superblock records would be trusted again, with the blocks
 *          it missed (md holds writes the same way).
 *
 * Reads:   owned by the submitting CPU. A healthy read inside one chunk is
 *          remapped in place (its completion hooked through a small stash);
 *          a longer one is cloned per chunk piece. Either is sent to the
 *          member straight from submit_bio: no lock, no stripe state, no
 *          thread hop. Completion only drops counts, or on a member error
 *          hands the read to the array's workqueue to be reconstructed.
 *
 * Writes:  each write bio is cut into write pieces (struct lraid_wreq), one
 *          per (stripe, parity window); pieces go on the submitting CPU's
 *          lock-free llist and are owned from then on by that CPU's bound
 *          kthread (struct lraid_worker). The worker owns its ops, its page
 *          pool and its deferred list outright: none of those is touched by
 *          another context, so none has a lock.
 *
 * Stripes: two writes to one (stripe, window) must not interleave. Windows
 *          in flight are kept in a hash table of many spinlocked shards
 *          (LRAID_SHARDS_PER_CPU * CPUs); a shard lock is held only to look
 *          up, insert or remove one op or to queue one waiter: O(1), task
 *          context only (plain spin_lock). Different windows hash to
 *          different shards, so CPUs writing different stripes share no lock
 *          and no cache line; there is no array-wide lock per I/O.
 *
 * Discard: a full-stripe discard or write-zeroes goes to every member at
 *          once, outside the window table, so it is ordered against write
 *          pieces by a range (struct lraid_drange): registered on
 *          a->dranges under a->drange_lock, it waits for the windows of its
 *          stripes in flight to be released; pieces for those stripes that
 *          arrive meanwhile are parked on it and requeued when it is done.
 *          The write path only reads a->nr_dranges (0 nearly always).
 *
 * Completion: member bio end_io (any context, often hard irq) only records
 *          the status, counts down op->pending with an atomic and, at zero,
 *          hands the op back to its worker's done llist. Parity is computed
 *          only in the worker, inside lraid_gf_begin()/lraid_gf_end().
 *
 * Memory:  clone bios come from a bio_set with a rescuer, worker bios from a
 *          bio_set with bvecs, write pieces from a mempool, and every worker
 *          has a page mempool that holds one full op's buffers, so a worker
 *          with nothing in flight can always start its next op. In steady
 *          state ops take their pages from the worker's own free-page
 *          stack (worker only, no lock) and never reach the mempool.
 */
#ifndef LRAID_H
#define LRAID_H

#include <linux/bio.h>
#include <linux/bitops.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "lraid_compat.h"
#include "lraid_geom.h"
#include "lraid_plan.h"

#define LRAID_DEFAULT_DATA_OFFSET	2048	/* sectors: 1 MiB */
#define LRAID_BITMAP_REGION_MAX		BIT_ULL(40)	/* bytes per bit */
#define LRAID_SB_BYTES			4096

#define LRAID_WIN_PAGES		(LRAID_WIN_SECTORS_MAX * SECTOR_SIZE / PAGE_SIZE)
#define LRAID_SHARDS_PER_CPU	64
#define LRAID_OPS_PER_WORKER	64
#define LRAID_PAGE_CACHE	128	/* free pages a worker keeps */
#define LRAID_ENDIO_BATCH	64	/* caller bios completed per batch */
#define LRAID_FPU_BATCH		SZ_512K	/* member bytes per FPU section */

struct lraid_array;

struct lraid_member {
	struct lraid_bdev b;	/* opened exclusively, holder = array */
	dev_t dev;
	sector_t sectors;	/* whole device */
	atomic_t read_errors;	/* halved every hour, see lraid_io.c */
	unsigned long read_errors_at;	/* jiffies of the last read error */
};

/*
 * In front of every bio from a->clone_bs and a->io_bs (their front_pad):
 * the member it is for, known whatever the member's driver does to the
 * bio's bi_bdev (md and others remap a bio in place), and for a clone of
 * one chunk piece of a longer read, what a retry by reconstruction needs.
 */
struct lraid_clone {
	u64 sector;			/* read clones: logical start */
	u32 sectors;			/* read clones: length */
	u32 member;
	struct work_struct work;	/* read clones: error retry */
	struct bio bio;
};

/* lraid_wreq.flags */
#define LRAID_WREQ_ZERO		BIT(0)	/* write zeroes, no bio data */
#define LRAID_WREQ_READ		BIT(1)	/* degraded read: reconstruct */

/* lraid_array.refused: bit numbers */
#define LRAID_REFUSED_DISCARD	0	/* the array withdrew discard */
#define LRAID_REFUSED_WZEROES	1	/* the array withdrew write-zeroes */

/* One write piece: the part of @bio inside one window of one stripe. */
struct lraid_wreq {
	struct llist_node node;		/* worker incoming list */
	struct list_head wait;		/* holder op's waiters (shard lock) */
	struct bio *bio;
	u64 stripe;
	u32 win;
	u32 flags;
	u32 avoid;			/* roles to treat as failed */
	u32 lo, hi;			/* stripe-relative logical sectors */
	s64 bio_lo;			/* stripe-relative sector of bio start */
	blk_opf_t opf;			/* REQ_FUA etc. to pass on */
};

/* A full-stripe discard in flight: stripes [s0, s1), see lraid_io.c */
struct lraid_drange {
	/* on a->dranges (a->drange_lock), then maybe a->held_dranges */
	struct list_head node;
	struct list_head parked;	/* wreqs waiting, a->drange_lock */
	u64 s0, s1;
	struct lraid_array *a;
	struct bio *bio;
	atomic_t pending;		/* member bios in flight, plus one */
	atomic_t took;			/* members that carried it out */
	atomic_t refused;		/* members that refused it */
	atomic_t unmap;			/* members that refused to unmap */
	enum req_op op;			/* what the members were sent */
	struct work_struct work;	/* after a refusal, a->refused_wq */
};

struct lraid_shard {
	spinlock_t lock;		/* guards head and the ops' waiters */
	struct hlist_head head;
} ____cacheline_aligned_in_smp;

enum lraid_op_phase {
	LRAID_OP_READ,
	LRAID_OP_WRITE,
	LRAID_OP_REPAIR,	/* rewriting blocks members failed to read */
	LRAID_OP_REREAD,	/* reading the rewritten blocks back */
};

/* A write piece being carried out; owned by its worker. */
struct lraid_op {
	struct hlist_node hnode;	/* shard table, shard lock */
	struct list_head waiters;	/* wreqs queued behind us, shard lock */
	u64 key;
	struct lraid_worker *w;
	struct lraid_wreq *wr;
	struct llist_node done;		/* worker done list */
	struct list_head free;		/* worker free list, worker only */
	atomic_t pending;
	atomic_t err_members;		/* members that failed a bio */
	blk_status_t status;
	u8 phase;
	bool copy;			/* new data copied to pages (copy_writes) */
	u32 failed;			/* a->failed when the op started */
	u32 rewrite;			/* read around, written back rebuilt */
	struct lraid_plan plan;
	/* per member buffer pages over the window, NULL when unused */
	struct page *pages[LRAID_MAX_MEMBERS][LRAID_WIN_PAGES];
};

struct lraid_scratch;

struct lraid_worker {
	struct lraid_array *a;
	struct task_struct *task;
	int cpu;
	struct llist_head incoming;	/* wreqs, any CPU pushes */
	struct llist_head done;		/* ops, end_io pushes */
	/* worker-only from here */
	struct list_head deferred;	/* wreqs waiting for a free op */
	struct list_head retry;		/* ops holding a window, waiting for pages */
	struct list_head ready;		/* ops handed a window, to start */
	struct list_head free_ops;
	struct lraid_op *ops;
	mempool_t *pages;		/* reserve: one full op's buffers */
	unsigned int in_flight;
	/*
	 * Pages freed by finished ops, reused before the mempool: no page
	 * allocator call (and no init_on_alloc zeroing) per write.
	 */
	unsigned int nr_free_pages;
	struct page *free_pages[LRAID_PAGE_CACHE];
	/*
	 * Caller bios whose last piece finished in this pass of the worker
	 * loop. They are completed together at the end of the pass, so the
	 * submitter is woken once per batch and does not preempt the worker
	 * after every write.
	 */
	unsigned int nr_endio;
	struct bio *endio[LRAID_ENDIO_BATCH];
	struct lraid_scratch *scratch;	/* parity source pointers */
};

struct lraid_sb_info;
struct lraid_bitmap;

struct lraid_array {
	int index;
	struct gendisk *disk;
	struct lraid_geom geom;
	u32 win_sectors;
	u64 data_offset;		/* sectors */
	u64 events;
	u8 uuid[16];
	bool uuid_claimed;		/* lraid_ctl_mutex: assemble has set uuid */
	u64 ctime;
	bool clean;			/* on-disk state */
	/*
	 * Started from superblocks that were not clean, or with members
	 * --force took back, and parity was not resynced since (a complete
	 * repair pass, lraid_sync.c, clears it; sb_mutex): a stop leaves the
	 * superblocks not clean.
	 */
	bool unsynced;
	/*
	 * While unsynced: the stripes below this one are in sync all the
	 * same (a resync or repair pass went over them, or an earlier run's
	 * resync did, resync_offset). Writes to the others compute parity
	 * from the full data (RCW, never RMW), as md's do beyond its
	 * resync point, so that they leave their rows in sync; the next
	 * resync starts here. Read without a lock.
	 */
	u64 synced_stripes;
	/* sb_mutex: nothing in flight, the superblocks may record it */
	bool at_rest;
	bool stopping;			/* disk->open_mutex: opens refused */
	bool sysfs_live;		/* sb_mutex: the disk is in sysfs */
	struct work_struct sysfs_work;	/* lraid_sysfs_changed() */
	/*
	 * Bit 0: every write is copied until the array stops, whatever
	 * copy_writes says: it was Y when the array started, so stable
	 * writes were not declared, or they were seen off since
	 * (queue/stable_writes 0), and what opened or mounted the disk
	 * meanwhile may change a page under writeback even after they are
	 * turned back on. Only ever set (lraid_stripe_stable_writes(),
	 * lraid_check_stable()).
	 */
	unsigned long copy_all;
	u32 linked;			/* roles linked as holders in sysfs */
	char name[33];
	u64 bitmap_offset;		/* superblock fields kept as read */
	u64 bitmap_sectors;
	u64 bitmap_region_sectors;
	struct lraid_bitmap *bm;	/* NULL without a bitmap, lraid_bitmap.c */
	/*
	 * sb_mutex: the events of the last superblock pass with every role
	 * working (LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS); U64_MAX when not
	 * known (superblocks of an lraid that did not keep it): no re-add.
	 */
	u64 bitmap_events;
	u32 feature_compat;		/* kept: unknown bits stay set */
	/* superblock pass buffers (sb_mutex): a pass must not allocate */
	struct page *sb_page;
	struct lraid_sb_info *sb_buf;
	/* what a full-stripe discard sends to members (0: discard is off) */
	enum req_op discard_op;
	/*
	 * LRAID_REFUSED_* bits: operations the array stopped offering at run
	 * time, because a member refused what they send it and no longer
	 * offers that, or (discard) refused to unmap
	 * (lraid_drange_refused()).
	 */
	unsigned long refused;
	/*
	 * Roles whose write-zeroes go out with REQ_NOUNMAP: the member
	 * refused one that may unmap, and zeroed the range when asked not to
	 * (lraid_drange_refused()). Bits are only ever added.
	 */
	unsigned long nounmap;
	struct lraid_member members[LRAID_MAX_MEMBERS];
	/*
	 * Roles marked failed (bit r: role r). Bits are only ever added,
	 * with lraid_fail_member(); the I/O path reads it once per bio or op
	 * with READ_ONCE and sends nothing to a failed member.
	 */
	u32 failed;
	/*
	 * Roles being rebuilt onto a device added in their place
	 * (lraid_array_add(), lraid_sync.c): a subset of failed, so reads
	 * never use them, but writes and full-stripe discards go to them as
	 * to a working member (lraid_unwritten()), so that nothing the
	 * rebuild has passed goes stale. Set under a range over every
	 * stripe, cleared by the rebuild when it ends, and by
	 * lraid_fail_member() (any context) when the new device fails: the
	 * rebuild then stops, and never marks the role working.
	 */
	unsigned long rebuilding;
	/*
	 * Roles whose slot holds a device put there to be rebuilt (an add,
	 * a spare, assembly's resume or re-add) and not in sync yet; the
	 * bit goes when the role is recovered, the slot emptied, or the
	 * device fails (lraid_fail_member()). A spare is never taken for
	 * such a role: the array starts that device's rebuild again
	 * instead (lraid_spare_work()).
	 */
	unsigned long added;
	/*
	 * Spares: members[] slots from geom.nr_members on that hold a
	 * device (LRAID_SB_ROLE_SPARE in its superblock). The I/O path
	 * never looks there. Changed under the index lock and sb_mutex
	 * (superblock passes write them), read under either. spare_bad
	 * (sb_mutex): slots whose superblock write failed, faulty spares
	 * never used, until removed. a->spare_work (under the index lock,
	 * taken with a trylock) gives a failed role a spare, queued under
	 * sync_mutex while no stop has begun (lraid_spare_kick()).
	 */
	u32 spare_bad;
	struct delayed_work spare_work;
	/*
	 * Failed roles the superblocks record: a subset of failed, written
	 * under held_lock once a superblock pass has landed. Write pieces
	 * that finish while failed has more are parked on held.
	 */
	u32 failed_recorded;
	spinlock_t held_lock;		/* guards the held lists, failed_recorded */
	struct list_head held;		/* struct lraid_wreq, by wait */
	struct list_head held_dranges;	/* struct lraid_drange, by node */
	struct list_head held_flushes;	/* struct lraid_flush, by node */
	struct mutex sb_mutex;		/* superblock writes, events */

	struct bio_set clone_bs;	/* clones of caller bios */
	struct bio_set io_bs;		/* worker bios with bvecs */
	mempool_t *wreq_pool;
	mempool_t *flush_pool;
	mempool_t *acct_pool;		/* struct lraid_acct */
	struct workqueue_struct *wq;	/* flush continuation, retries */
	/*
	 * a->fail_work alone: work on a->wq may wait for a->wreq_pool, whose
	 * held elements only the record of a failed member lets go, and
	 * under memory pressure a->wq runs one item at a time.
	 */
	struct workqueue_struct *fail_wq;
	struct delayed_work fail_work;	/* records a->failed on disk */
	/*
	 * Ranges some member refused to discard or zero, written with zeroes
	 * there: apart from a->wq, whose work may wait for write pieces the
	 * range keeps parked.
	 */
	struct workqueue_struct *refused_wq;
	struct percpu_ref active;
	struct completion active_done;

	struct lraid_worker *workers;	/* [nr_cpu_ids], task NULL if none */
	int *worker_of;			/* cpu -> worker index (hotplug) */
	struct hlist_node cpuhp_node;	/* lraid_cpuhp_state instance */
	bool cpuhp_added;
	struct lraid_shard *shards;
	unsigned int shard_bits;

	/*
	 * Parity check and repair (lraid_sync.c). sync_action, last_sync,
	 * sync_dead: sync_mutex; sync_abort, sync_done and mismatches are
	 * read without it.
	 */
	struct mutex sync_mutex;
	struct work_struct sync_work;
	u8 sync_action;			/* LRAID_SYNC_*: the pass running */
	u8 sync_role;			/* LRAID_SYNC_RECOVER: the role rebuilt */
	bool sync_readd;		/* ... only where the bitmap has bits */
	u64 sync_from;			/* ... from this member sector on */
	/*
	 * A full rebuild the stop interrupted (sync_mutex): its role and
	 * the member sector it had rebuilt up to, or resume_role U8_MAX.
	 * Set by the pass the stop ended, for the superblock the stop
	 * writes to the new member (recovery_offset), and by an assemble
	 * that found such a member, for the pass it starts.
	 */
	u8 resume_role;
	bool resume_readd;		/* ... assemble: a re-add (bitmap) */
	u64 resume_sector;
	u8 last_sync;			/* the last pass's, LRAID_SYNC_NONE */
	bool sync_dead;			/* stopping: no pass starts */
	bool sync_abort;		/* the pass stops at its next stripe */
	u64 sync_done;			/* member sectors the pass went past */
	atomic64_t mismatches;		/* sectors, this or the last pass */
	/* KiB/s per member, as md's; 0: the module's speed_limit_min/max */
	u32 sync_speed_min;
	u32 sync_speed_max;
	unsigned long sync_mark;	/* jiffies: the speed window's start */
	u64 sync_mark_done;		/* sync_done then */
	wait_queue_head_t sync_wait;	/* a pacing pass waits for sync_abort */

	/* full-stripe discards in flight, see "Discard" above */
	spinlock_t drange_lock;
	struct list_head dranges;
	unsigned int nr_dranges;	/* written under drange_lock */
	wait_queue_head_t drange_wait;	/* a window was released */
	mempool_t *drange_pool;
};

/* lraid_main.c */
extern struct mutex lraid_ctl_mutex;
extern int lraid_major;

/* lraid_ctl.c */
int lraid_ctl_init(void);
void lraid_ctl_exit(void);

/* lraid_array.c */
struct lraid_create_args {
	int index;
	unsigned int level;
	unsigned int nr_members;
	u32 chunk_bytes;
	u64 data_offset;
	bool assume_clean;
	bool bitmap;			/* an internal write-intent bitmap */
	u64 bitmap_region_bytes;	/* with it: 0 for the default */
	dev_t devs[LRAID_MAX_MEMBERS];
};

int lraid_array_create(const struct lraid_create_args *args);
int lraid_array_assemble(int index, unsigned int nr, const dev_t *devs,
			 bool force);
int lraid_array_stop(int index);
int lraid_array_fail(int index, dev_t dev);
int lraid_array_add(int index, dev_t dev, bool readd_only);
int lraid_array_remove(int index, dev_t dev);
const char *lraid_array_recovered(struct lraid_array *a, unsigned int role,
				  u32 failed);
int lraid_array_record_failed(struct lraid_array *a);
void lraid_spare_kick(struct lraid_array *a);
void __lraid_spare_kick(struct lraid_array *a);
extern const struct attribute_group *lraid_attr_groups[];
void lraid_sysfs_init(struct lraid_array *a);
void lraid_sysfs_add(struct lraid_array *a);
void lraid_sysfs_changed(struct lraid_array *a);
void lraid_sysfs_remove(struct lraid_array *a);
int lraid_array_find(int index, struct lraid_array **ap);	/* ctl mutex held */
void lraid_array_stop_all(void);
void lraid_array_for_each(void (*fn)(struct lraid_array *a));
void lraid_array_module_init(void);

/* lraid_bitmap.c */
int lraid_bitmap_create(struct lraid_array *a);
int lraid_bitmap_load(struct lraid_array *a, bool full);
void lraid_bitmap_run(struct lraid_array *a);
void lraid_bitmap_stop(struct lraid_array *a);
void lraid_bitmap_quiesce(struct lraid_array *a);
void lraid_bitmap_delay_changed(struct lraid_array *a);
void lraid_bitmap_free(struct lraid_array *a);
void __lraid_bitmap_start(struct lraid_array *a, u64 s0, u64 s1);
void __lraid_bitmap_end(struct lraid_array *a, u64 s0, u64 s1);
bool lraid_bitmap_ready(struct lraid_array *a, u64 s0, u64 s1);
bool lraid_bitmap_dirty(struct lraid_array *a, u64 stripe, u64 *next);
bool lraid_bitmap_scope(struct lraid_array *a, bool resync, u32 *dirty,
			u32 *all);
void lraid_bitmap_sync_member(struct lraid_array *a, unsigned int role);
void lraid_bitmap_info(struct lraid_array *a, u64 *region_sectors,
		       u32 *regions, u32 *dirty);

/* lraid_io.c */
int lraid_io_module_init(void);
void lraid_io_module_exit(void);
int lraid_fail_member(struct lraid_array *a, unsigned int role, bool beyond);
bool lraid_member_write_error(struct lraid_array *a, unsigned int role,
			      blk_status_t status);
void lraid_count_read_error(struct lraid_array *a, unsigned int role);
int lraid_read_errors(const struct lraid_member *mb);
void lraid_member_uncorrected(struct lraid_array *a, unsigned int role,
			      u64 sector, u32 sectors);
bool __lraid_hold(struct lraid_array *a, struct list_head *node,
		  struct list_head *list);
void lraid_held_release(struct lraid_array *a, u32 recorded, bool ok);
void lraid_submit_bio(struct bio *bio);
int lraid_io_init(struct lraid_array *a);
void lraid_io_quiesce(struct lraid_array *a);
void lraid_io_exit(struct lraid_array *a);

/* lraid_sync.c */
#define LRAID_SYNC_NONE		0	/* no pass runs (or ran) */
#define LRAID_SYNC_CHECK	1
#define LRAID_SYNC_REPAIR	2
#define LRAID_SYNC_RESYNC	3	/* a repair started by assemble */
#define LRAID_SYNC_RECOVER	4	/* a rebuild of an added member */
/* why a rebuild stopped when the failed set changed under it */
#define LRAID_WHY_OTHER_FAILED	"another member failed"
extern struct device_attribute dev_attr_sync_action;
extern struct device_attribute dev_attr_last_sync_action;
extern struct device_attribute dev_attr_mismatch_cnt;
extern struct device_attribute dev_attr_sync_completed;
extern struct device_attribute dev_attr_sync_speed;
extern struct device_attribute dev_attr_sync_speed_min;
extern struct device_attribute dev_attr_sync_speed_max;
void lraid_sync_init(struct lraid_array *a);
void lraid_sync_resync(struct lraid_array *a);
int lraid_sync_recover(struct lraid_array *a, unsigned int role, bool readd,
		       u64 from);
bool lraid_sync_busy(struct lraid_array *a);
void lraid_sync_stop(struct lraid_array *a);

/* lraid_stripe.c */
int lraid_stripe_module_init(void);
void lraid_stripe_module_exit(void);
int lraid_stripe_init(struct lraid_array *a);
void lraid_stripe_exit(struct lraid_array *a);
bool lraid_stripe_stable_writes(struct lraid_array *a);
void lraid_check_stable(struct lraid_array *a);
void lraid_stripe_queue(struct lraid_array *a, struct lraid_wreq *wr);
void lraid_drange_begin(struct lraid_array *a, struct lraid_drange *d);
void lraid_drange_end(struct lraid_array *a, struct lraid_drange *d);
void lraid_bio_add_zeroes(struct bio *bio, u32 sectors);
int lraid_worker_fn(void *data);

/*
 * More members failed than parity covers? Writes, discards and
 * write-zeroes that finish then fail, as md fails the writes of its
 * stripes once the array has failed: what they left to parity on a failed
 * member, or wrote to one that failed meanwhile, cannot be read back.
 */
static inline bool lraid_array_lost(const struct lraid_array *a)
{
	return hweight32(READ_ONCE(a->failed)) >
	       a->geom.nr_members - a->geom.nr_data;
}

/*
 * Roles that writes, zeroes and discards do not go to: the failed ones,
 * but for those being rebuilt (a->rebuilding), which are written as if
 * they were working and read as if failed.
 */
static inline u32 lraid_unwritten(const struct lraid_array *a)
{
	return READ_ONCE(a->failed) & ~(u32)READ_ONCE(a->rebuilding);
}

/*
 * May @stripe's parity disagree with its data (a->synced_stripes)? A pass
 * that clears a->unsynced has gone over every stripe first.
 */
static inline bool lraid_stripe_unsynced(const struct lraid_array *a,
					 u64 stripe)
{
	return unlikely(READ_ONCE(a->unsynced)) &&
	       stripe >= READ_ONCE(a->synced_stripes);
}

/*
 * A write piece (worker), a full-stripe discard or a flush (any context)
 * finished: while a failed member is not recorded in the superblocks yet,
 * park it by @node on @list (a->held, a->held_dranges, a->held_flushes)
 * and complete its caller only once the record is on disk
 * (lraid_held_release()). Acknowledged first, a crash before the record
 * would let the next assemble trust the failed member again and read its
 * stale blocks where this write went to the others. True if parked; two
 * loads and a compare when nothing waits to be recorded.
 */
static inline bool lraid_hold(struct lraid_array *a, struct list_head *node,
			      struct list_head *list)
{
	if (likely(READ_ONCE(a->failed) == READ_ONCE(a->failed_recorded)))
		return false;
	return __lraid_hold(a, node, list);
}

/*
 * A write, discard or write-zeroes to stripes [@s0, @s1) is about to be
 * queued, or its member I/O has ended (lraid_bitmap.c); one load without
 * a bitmap.
 */
static inline void lraid_bitmap_start(struct lraid_array *a, u64 s0, u64 s1)
{
	if (a->bm)
		__lraid_bitmap_start(a, s0, s1);
}

static inline void lraid_bitmap_end(struct lraid_array *a, u64 s0, u64 s1)
{
	if (a->bm)
		__lraid_bitmap_end(a, s0, s1);
}

#endif /* LRAID_H */
