// SPDX-License-Identifier: GPL-2.0
/*
 * lraid I/O entry: submit_bio, healthy reads (remapped from the submitting
 * CPU), flushes, discard/write-zeroes, and cutting writes into per-window
 * pieces for the per-CPU workers (lraid_stripe.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/bitops.h>
#include <linux/blkdev.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "lraid.h"

#define LRAID_WREQ_POOL		256
#define LRAID_FLUSH_POOL	16
#define LRAID_ACCT_POOL		256
#define LRAID_DRANGE_POOL	4

/*
 * A healthy read inside one chunk is not cloned: the caller's bio itself is
 * pointed at its member, its completion hooked through this stash. On a
 * member error the bio is put back as it came and read again by
 * reconstruction from the other members (lraid_read_retry()). Not for a
 * bio other bios are chained to (see lraid_read()).
 */
struct lraid_rstash {
	struct lraid_array *a;
	bio_end_io_t *end_io;
	void *private;
	struct block_device *bdev;	/* the lraid device */
	struct bvec_iter iter;		/* as submitted to lraid */
	unsigned int member;
	bool remapped;			/* BIO_REMAPPED as submitted */
	bool acct;			/* accounted, since @start */
	unsigned long start;
	struct work_struct work;	/* error retry */
};

/*
 * I/O accounting of the lraid disk itself (/sys/block/lraidN/stat, what
 * iostat shows), which a bio-based driver must do: on by default and
 * switched by queue/iostats, as md's. An in-place read keeps its start in
 * its stash; any other bio has its completion hooked through this until
 * the last of its pieces ends.
 */
struct lraid_acct {
	bio_end_io_t *end_io;
	void *private;
	unsigned long start;
	unsigned int sectors;
};

static struct kmem_cache *lraid_rstash_cache;

/*
 * The stash is written in full before use: a constructor keeps the slab
 * from zeroing it on every allocation (init_on_alloc).
 */
static void lraid_rstash_ctor(void *p)
{
}

int lraid_io_module_init(void)
{
	lraid_rstash_cache = kmem_cache_create("lraid_rstash",
					       sizeof(struct lraid_rstash), 0,
					       0, lraid_rstash_ctor);
	return lraid_rstash_cache ? 0 : -ENOMEM;
}

void lraid_io_module_exit(void)
{
	kmem_cache_destroy(lraid_rstash_cache);
}

/* A flush in progress: empty flushes to every member, then the data. */
struct lraid_flush {
	struct lraid_array *a;
	struct bio *bio;
	atomic_t pending;
	blk_status_t status;
	struct work_struct work;
	struct list_head node;		/* on a->held_flushes */
};

static void lraid_flush_finish(struct lraid_flush *f);

static void lraid_active_release(struct percpu_ref *ref)
{
	struct lraid_array *a = container_of(ref, struct lraid_array, active);

	complete(&a->active_done);
}

/*
 * Mark @role failed, from any context. Returns 1 if it is newly failed, 0
 * if it already was, -EBUSY if the array would lose more members than its
 * parity covers: then nothing changes, unless @beyond. A member that
 * failed a write is marked failed all the same (@beyond): it no longer
 * holds what parity says it holds, so nothing may be rebuilt from it; the
 * array then fails the I/O that needs it, as md's does once it is broken.
 */
int lraid_fail_member(struct lraid_array *a, unsigned int role, bool beyond)
{
	unsigned int tolerate = a->geom.nr_members - a->geom.nr_data;
	u32 old, new;

	/*
	 * A member being rebuilt is failed already: its rebuild stops and
	 * never marks it working (lraid_array_recovered() tests the bit
	 * with no write to it in flight).
	 */
	if (unlikely(test_bit(role, &a->rebuilding)))
		clear_bit(role, &a->rebuilding);
	/* a device added for the role failed: a spare may replace it */
	if (unlikely(test_bit(role, &a->added)))
		clear_bit(role, &a->added);
	old = READ_ONCE(a->failed);
	do {
		if (old & BIT(role))
			return 0;
		new = old | BIT(role);
		if (hweight32(new) > tolerate && !beyond)
			return -EBUSY;
	} while (!try_cmpxchg(&a->failed, &old, new));
	return 1;
}

static void lraid_fail_work(struct work_struct *work)
{
	struct lraid_array *a = container_of(to_delayed_work(work),
					     struct lraid_array, fail_work);

	lraid_array_record_failed(a);
}

/* The slow half of lraid_hold(): a failed member is not recorded yet. */
bool __lraid_hold(struct lraid_array *a, struct list_head *node,
		  struct list_head *list)
{
	unsigned long flags;
	bool hold;

	spin_lock_irqsave(&a->held_lock, flags);
	hold = READ_ONCE(a->failed) & ~a->failed_recorded;
	if (hold)
		list_add_tail(node, list);
	spin_unlock_irqrestore(&a->held_lock, flags);
	return hold;
}

/* Complete the caller of a held piece; it fails unless @ok. */
static void lraid_held_endio(struct lraid_array *a, struct bio *bio, bool ok)
{
	if (!ok)
		WRITE_ONCE(bio->bi_status, BLK_STS_IOERR);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

/*
 * A superblock pass landed with the failed set @recorded (@ok), or no
 * member took it (!@ok: the array is lost, and the held writes fail).
 * Complete the held writes once no failed member is left unrecorded; a
 * member that failed during the pass keeps them until the next one, which
 * its failure has queued. Writes and discards fail too if more members
 * failed meanwhile than parity covers: a held write stood on parity for
 * the member that failed it. Flushes do not: an empty flush answers for
 * the members left, held or not (lraid_flush()). Process context,
 * a->sb_mutex held.
 */
void lraid_held_release(struct lraid_array *a, u32 recorded, bool ok)
{
	struct lraid_drange *d, *dtmp;
	struct lraid_flush *f, *ftmp;
	struct lraid_wreq *wr, *tmp;
	LIST_HEAD(dranges);
	LIST_HEAD(flushes);
	LIST_HEAD(done);
	bool lost;

	lockdep_assert_held(&a->sb_mutex);
	spin_lock_irq(&a->held_lock);
	if (!ok)
		recorded = READ_ONCE(a->failed);
	WRITE_ONCE(a->failed_recorded, a->failed_recorded | recorded);
	if (!(READ_ONCE(a->failed) & ~a->failed_recorded)) {
		list_splice_init(&a->held, &done);
		list_splice_init(&a->held_dranges, &dranges);
		list_splice_init(&a->held_flushes, &flushes);
	}
	spin_unlock_irq(&a->held_lock);
	lost = !ok || lraid_array_lost(a);

	list_for_each_entry_safe(wr, tmp, &done, wait) {
		struct bio *bio = wr->bio;

		mempool_free(wr, a->wreq_pool);
		lraid_held_endio(a, bio, !lost);
	}
	list_for_each_entry_safe(d, dtmp, &dranges, node) {
		struct bio *bio = d->bio;

		mempool_free(d, a->drange_pool);
		lraid_held_endio(a, bio, !lost);
	}
	list_for_each_entry_safe(f, ftmp, &flushes, node) {
		if (!ok)
			f->status = BLK_STS_IOERR;
		lraid_flush_finish(f);
	}
}

/*
 * Mark @role failed (past what parity covers too if @beyond, see
 * lraid_fail_member()) for the error @fmt describes, from any context.
 * True if the array still covers every failed member.
 */
static __printf(4, 5) bool lraid_member_error(struct lraid_array *a,
					      unsigned int role, bool beyond,
					      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;
	int ret = lraid_fail_member(a, role, beyond);
	bool lost = lraid_array_lost(a);

	if (ret < 0)
		return false;
	if (ret) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_crit("%s: %pV on %pg (role %u): member marked failed, %s\n",
			a->disk->disk_name, &vaf, a->members[role].b.bdev,
			role, lost ?
			"more members failed than parity covers: I/O that needs them fails" :
			"array degraded");
		va_end(args);
		queue_delayed_work(a->fail_wq, &a->fail_work, 0);
	}
	return !lost;
}

/*
 * A member failed a write, in any context. The member is marked failed, as
 * md does, so that the write stands on the other members: data and parity
 * there agree with the new data, and the failed member's stale block is
 * never read again. True if so; false if that leaves more members failed
 * than parity covers: the write then fails, and so does every later
 * write and every read that needs a failed member (never a rebuild from a
 * member whose block is stale). Reads that fail are rebuilt and written
 * back instead (lraid_count_read_error()).
 */
bool lraid_member_write_error(struct lraid_array *a, unsigned int role,
			      blk_status_t status)
{
	/* NOTSUPP too: the member skipped what the others wrote */
	return lraid_member_error(a, role, true, "write error %d",
				  blk_status_to_errno(status));
}

/*
 * Blocks @role failed to read were rebuilt and written back, and reading
 * them back failed again: the drive did not remap them. As md does, the
 * member is marked failed. If the array cannot lose it, it stays and the
 * error is counted; the blocks are rebuilt again on every read.
 */
void lraid_member_uncorrected(struct lraid_array *a, unsigned int role,
			      u64 sector, u32 sectors)
{
	if (lraid_member_error(a, role, false,
			       "read error not corrected (%u sectors at %llu)",
			       sectors, (unsigned long long)sector))
		return;
	pr_err_ratelimited("%s: read error not corrected (%u sectors at %llu on %pg, role %u); the array cannot lose the member\n",
			   a->disk->disk_name, sectors,
			   (unsigned long long)sector,
			   a->members[role].b.bdev, role);
	lraid_count_read_error(a, role);
}

/*
 * As md's max_read_errors: a member keeps serving reads after read errors
 * (the blocks are rebuilt and written back), but one that has had more
 * than this many, halved for every hour without, is marked failed.
 */
static unsigned int max_read_errors = 20;
module_param(max_read_errors, uint, 0644);
MODULE_PARM_DESC(max_read_errors,
		 "read errors (halved every hour) after which a member is marked failed; 0: never");

/* Hours from the member's last read error to @now. */
static unsigned long lraid_read_error_hours(const struct lraid_member *mb,
					    unsigned long now)
{
	return (now - READ_ONCE(mb->read_errors_at)) / (3600UL * HZ);
}

/* The member's read error count as it stands now, halvings included. */
int lraid_read_errors(const struct lraid_member *mb)
{
	unsigned long hours = lraid_read_error_hours(mb, jiffies);

	return hours < 31 ? atomic_read(&mb->read_errors) >> hours : 0;
}

/*
 * A member failed a read that was served by reconstruction; any context.
 * As md's: the count is halved for every hour since the previous error,
 * then this one is added.
 */
void lraid_count_read_error(struct lraid_array *a, unsigned int role)
{
	struct lraid_member *mb = &a->members[role];
	unsigned long now = jiffies;
	unsigned long hours = lraid_read_error_hours(mb, now);
	unsigned int max = READ_ONCE(max_read_errors);
	int n;

	/* racy by design: a lost halving or count does not matter */
	if (hours) {
		n = atomic_read(&mb->read_errors);
		atomic_set(&mb->read_errors, hours < 31 ? n >> hours : 0);
	}
	WRITE_ONCE(mb->read_errors_at, now);
	n = atomic_inc_return(&mb->read_errors);
	if (!max || n <= max || lraid_fail_member(a, role, false) <= 0)
		return;
	pr_crit("%s: %d read errors on %pg (role %u), more than max_read_errors %u: member marked failed, array degraded\n",
		a->disk->disk_name, n, mb->b.bdev, role, max);
	queue_delayed_work(a->fail_wq, &a->fail_work, 0);
}

int lraid_io_init(struct lraid_array *a)
{
	int ret;

	init_completion(&a->active_done);
	ret = percpu_ref_init(&a->active, lraid_active_release, 0, GFP_KERNEL);
	if (ret)
		return ret;
	ret = bioset_init(&a->clone_bs, BIO_POOL_SIZE * 4,
			  offsetof(struct lraid_clone, bio), BIOSET_NEED_RESCUER);
	if (ret)
		goto out_ref;
	ret = bioset_init(&a->io_bs, BIO_POOL_SIZE * 4 * LRAID_MAX_MEMBERS,
			  offsetof(struct lraid_clone, bio), BIOSET_NEED_BVECS);
	if (ret)
		goto out_clone;
	ret = -ENOMEM;
	a->wreq_pool = mempool_create_kmalloc_pool(LRAID_WREQ_POOL,
						   sizeof(struct lraid_wreq));
	if (!a->wreq_pool)
		goto out_io;
	a->flush_pool = mempool_create_kmalloc_pool(LRAID_FLUSH_POOL,
						    sizeof(struct lraid_flush));
	if (!a->flush_pool)
		goto out_wreq;
	a->drange_pool = mempool_create_kmalloc_pool(LRAID_DRANGE_POOL,
						     sizeof(struct lraid_drange));
	if (!a->drange_pool)
		goto out_flush;
	a->acct_pool = mempool_create_kmalloc_pool(LRAID_ACCT_POOL,
						   sizeof(struct lraid_acct));
	if (!a->acct_pool)
		goto out_drange;
	a->wq = alloc_workqueue("lraid%d", WQ_MEM_RECLAIM, 0, a->index);
	if (!a->wq)
		goto out_acct;
	a->fail_wq = alloc_ordered_workqueue("lraid%d_fail", WQ_MEM_RECLAIM,
					     a->index);
	if (!a->fail_wq)
		goto out_wq;
	INIT_DELAYED_WORK(&a->fail_work, lraid_fail_work);
	a->refused_wq = alloc_workqueue("lraid%d_refused", WQ_MEM_RECLAIM, 0,
					a->index);
	if (!a->refused_wq)
		goto out_fail_wq;
	spin_lock_init(&a->drange_lock);
	INIT_LIST_HEAD(&a->dranges);
	init_waitqueue_head(&a->drange_wait);
	return 0;

out_fail_wq:
	destroy_workqueue(a->fail_wq);
out_wq:
	destroy_workqueue(a->wq);
out_acct:
	mempool_destroy(a->acct_pool);
out_drange:
	mempool_destroy(a->drange_pool);
out_flush:
	mempool_destroy(a->flush_pool);
out_wreq:
	mempool_destroy(a->wreq_pool);
out_io:
	bioset_exit(&a->io_bs);
out_clone:
	bioset_exit(&a->clone_bs);
out_ref:
	percpu_ref_exit(&a->active);
	return ret;
}

/* Wait for every bio in flight; no new one can arrive (disk deleted). */
void lraid_io_quiesce(struct lraid_array *a)
{
	/* held writes finish once a->fail_work has recorded their member */
	percpu_ref_kill(&a->active);
	wait_for_completion(&a->active_done);
	flush_workqueue(a->wq);
	/* the caller (stop) writes the superblocks, failed set included */
	cancel_delayed_work_sync(&a->fail_work);
}

void lraid_io_exit(struct lraid_array *a)
{
	destroy_workqueue(a->refused_wq);
	destroy_workqueue(a->fail_wq);
	destroy_workqueue(a->wq);
	mempool_destroy(a->acct_pool);
	mempool_destroy(a->drange_pool);
	mempool_destroy(a->flush_pool);
	mempool_destroy(a->wreq_pool);
	bioset_exit(&a->io_bs);
	bioset_exit(&a->clone_bs);
	percpu_ref_exit(&a->active);
}

static inline struct lraid_array *lraid_bio_array(struct bio *bio)
{
	return bio->bi_bdev->bd_disk->private_data;
}

/* Whether to account @bio, just submitted to lraid (not an empty flush). */
static inline bool lraid_acct_on(struct bio *bio)
{
	return bio_sectors(bio) && blk_queue_io_stat(bio->bi_bdev->bd_disk->queue);
}

static void lraid_acct_endio(struct bio *bio)
{
	struct lraid_acct *ac = bio->bi_private;

	bio->bi_end_io = ac->end_io;
	bio->bi_private = ac->private;
	lraid_compat_acct_end(bio->bi_bdev, bio_op(bio), ac->sectors,
			      ac->start);
	mempool_free(ac, lraid_bio_array(bio)->acct_pool);
	bio_endio(bio);
}

/*
 * Account @bio, @sectors long and started at @start, once it ends. False
 * only when @gfp may not sleep and no element was free: the accounting is
 * then ended at once.
 */
static bool lraid_acct_hook(struct lraid_array *a, struct bio *bio,
			    unsigned long start, unsigned int sectors, gfp_t gfp)
{
	struct lraid_acct *ac = mempool_alloc(a->acct_pool, gfp);

	if (unlikely(!ac)) {
		lraid_compat_acct_end(bio->bi_bdev, bio_op(bio), sectors,
				      start);
		return false;
	}
	ac->end_io = bio->bi_end_io;
	ac->private = bio->bi_private;
	ac->start = start;
	ac->sectors = sectors;
	bio->bi_end_io = lraid_acct_endio;
	bio->bi_private = ac;
	return true;
}

/*
 * Before @bio is dispatched: account it if queue/iostats asks for it.
 * False as lraid_acct_hook().
 */
static bool lraid_acct_bio(struct lraid_array *a, struct bio *bio, gfp_t gfp)
{
	if (!lraid_acct_on(bio))
		return true;
	return lraid_acct_hook(a, bio, bio_start_io_acct(bio),
			       bio_sectors(bio), gfp);
}

/*
 * REQ_NOWAIT (io_uring; the disk offers it when every member does, as md):
 * the caller must not sleep while it submits, and io_uring submits inline
 * only to devices that take the flag, handing every I/O to a worker thread
 * otherwise. lraid either refuses such a bio at once, before any of it is
 * sent, with BLK_STS_AGAIN (the caller submits it again from where it may
 * sleep, as when a blk-mq device is out of tags), or carries it out as any
 * other bio. Refused: flush, discard and write-zeroes, and a bio for which
 * memory cannot be had without sleeping (@gfp below) before its first piece
 * is sent; what is allocated after that may sleep, as for any bio.
 *
 * Refusing part of a bio is not an option: the bio would end with
 * BLK_STS_AGAIN after its other parts, in completion context, where
 * io_uring no longer submits it again and returns -EAGAIN to the
 * application. For the same reason only a bio sent to its member as it is
 * (lraid_read_remap()) keeps REQ_NOWAIT: a member that refuses it does so
 * at once, in the caller's context. Pieces never carry the flag, nor
 * anything the workers send.
 */
static inline gfp_t lraid_submit_gfp(const struct bio *bio)
{
	return unlikely(bio->bi_opf & REQ_NOWAIT) ?
	       GFP_NOWAIT | __GFP_NOWARN : GFP_NOIO;
}

/* End of a clone or member bio whose bi_private is the caller's bio. */
static void lraid_piece_endio(struct bio *piece)
{
	struct bio *bio = piece->bi_private;
	struct lraid_array *a = lraid_bio_array(bio);

	if (piece->bi_status)
		WRITE_ONCE(bio->bi_status, piece->bi_status);
	bio_put(piece);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

static void lraid_piece_submit(struct lraid_array *a, struct bio *bio,
			       struct bio *piece, bio_end_io_t *end_io)
{
	piece->bi_private = bio;
	piece->bi_end_io = end_io;
	bio_inc_remaining(bio);
	percpu_ref_get(&a->active);
	submit_bio_noacct(piece);
}

static void lraid_queue_write(struct lraid_array *a, struct bio *bio,
			      u64 start, u64 nr, u32 flags);
static bool lraid_queue_pieces(struct lraid_array *a, struct bio *bio,
			       u64 start, u64 nr, u32 flags, u32 avoid,
			       gfp_t gfp);

/*
 * A member failed a healthy read (flags @opf) of logical @sector: true when
 * the read should be served again by reconstruction around that member.
 * Not readahead: blk-mq sends it failfast, so its error may be a transport
 * hiccup, not the medium, and must neither count against the member nor
 * write rebuilt blocks over it; the page cache reads again without
 * REQ_RAHEAD when it needs the data.
 */
static bool lraid_read_error(struct lraid_array *a, blk_status_t status,
			     blk_opf_t opf, unsigned int member,
			     sector_t sector)
{
	if (status == BLK_STS_NOTSUPP || status == BLK_STS_AGAIN ||
	    (opf & REQ_RAHEAD))
		return false;
	/*
	 * A member failed meanwhile (e.g. a write error) is read around all
	 * the same, without another message.
	 */
	if (!(READ_ONCE(a->failed) & BIT(member))) {
		pr_err_ratelimited("%s: read error %d on %pg (role %u) at array sector %llu, reconstructing\n",
				   a->disk->disk_name,
				   blk_status_to_errno(status),
				   a->members[member].b.bdev, member,
				   (unsigned long long)sector);
		lraid_count_read_error(a, member);
	}
	return true;
}

/* Process context: read the range again, around the member that failed. */
static void lraid_read_retry(struct work_struct *work)
{
	struct lraid_rstash *st = container_of(work, struct lraid_rstash, work);
	struct lraid_array *a = st->a;
	struct bio *bio = st->private;

	if (st->acct)
		lraid_acct_hook(a, bio, st->start, bio_sectors(bio), GFP_NOIO);
	lraid_queue_pieces(a, bio, bio->bi_iter.bi_sector, bio_sectors(bio),
			   LRAID_WREQ_READ, BIT(st->member), GFP_NOIO);
	kmem_cache_free(lraid_rstash_cache, st);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

static void lraid_rstash_endio(struct bio *bio)
{
	struct lraid_rstash *st = bio->bi_private;
	struct lraid_array *a = st->a;

	/* the caller's bio as it came, so its completion sees only lraid */
	bio->bi_bdev = st->bdev;
	bio->bi_end_io = st->end_io;
	bio->bi_private = st->private;
	if (st->remapped)
		bio_set_flag(bio, BIO_REMAPPED);
	else
		bio_clear_flag(bio, BIO_REMAPPED);
	if (unlikely(bio->bi_status) &&
	    lraid_read_error(a, bio->bi_status, bio->bi_opf, st->member,
			     st->iter.bi_sector)) {
		bio->bi_status = BLK_STS_OK;
		bio->bi_iter = st->iter;
		/*
		 * Ours again, with one reference: a member that split it
		 * (dm, blk-mq) chained it and left __bi_remaining at zero,
		 * so the retry's pieces would otherwise end it early.
		 */
		atomic_set(&bio->__bi_remaining, 1);
		/* the worker path allocates: not from (possibly) irq context */
		st->private = bio;
		INIT_WORK(&st->work, lraid_read_retry);
		queue_work(a->wq, &st->work);
		return;
	}
	if (st->acct)
		lraid_compat_acct_end(st->bdev, REQ_OP_READ,
				      st->iter.bi_size >> SECTOR_SHIFT,
				      st->start);
	kmem_cache_free(lraid_rstash_cache, st);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

static void lraid_piece_retry(struct work_struct *work)
{
	struct lraid_clone *c = container_of(work, struct lraid_clone, work);
	struct bio *bio = c->bio.bi_private;
	struct lraid_array *a = lraid_bio_array(bio);
	u64 sector = c->sector;
	u32 sectors = c->sectors, member = c->member;

	/* first: queueing may wait for pool elements the worker frees, and
	 * the worker's clones come from the pool this one holds
	 */
	bio_put(&c->bio);
	lraid_queue_pieces(a, bio, sector, sectors, LRAID_WREQ_READ,
			   BIT(member), GFP_NOIO);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

static void lraid_read_piece_endio(struct bio *piece)
{
	struct lraid_clone *c = container_of(piece, struct lraid_clone, bio);
	struct bio *bio = piece->bi_private;

	if (unlikely(piece->bi_status) &&
	    lraid_read_error(lraid_bio_array(bio), piece->bi_status,
			     bio->bi_opf, c->member, c->sector)) {
		INIT_WORK(&c->work, lraid_piece_retry);
		queue_work(lraid_bio_array(bio)->wq, &c->work);
		return;
	}
	lraid_piece_endio(piece);
}

/* Send @bio, all inside one chunk on healthy member @m->member, as is. */
static bool lraid_read_remap(struct lraid_array *a, struct bio *bio,
			     const struct lraid_map *m, bool acct,
			     unsigned long start)
{
	struct block_device *b = a->members[m->member].b.bdev;
	struct lraid_rstash *st;

	/*
	 * The disk takes REQ_NOWAIT only if every member did when it started;
	 * one that no longer does (a device-mapper table reloaded) would fail
	 * the bio: the clone path sends it without the flag.
	 */
	if (unlikely(bio->bi_opf & REQ_NOWAIT) && !bdev_nowait(b))
		return false;
	st = kmem_cache_alloc(lraid_rstash_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (unlikely(!st))
		return false;	/* the clone path has a mempool */
	st->a = a;
	st->end_io = bio->bi_end_io;
	st->private = bio->bi_private;
	st->bdev = bio->bi_bdev;
	st->iter = bio->bi_iter;
	st->member = m->member;
	st->remapped = bio_flagged(bio, BIO_REMAPPED);
	st->acct = acct;
	st->start = start;
	bio->bi_end_io = lraid_rstash_endio;
	bio->bi_private = st;
	percpu_ref_get(&a->active);
	bio_set_dev(bio, b);
	bio->bi_iter.bi_sector = a->data_offset + m->member_sector;
	submit_bio_noacct(bio);
	return true;
}

/*
 * Read: cut at chunk boundaries, clone each piece, point it at its member
 * and send it. Runs on the submitting CPU, takes no lock. A piece on a
 * failed member goes to the worker instead, which reads the rest of its
 * stripe and reconstructs it (lraid_stripe.c).
 */
static void lraid_read(struct lraid_array *a, struct bio *bio)
{
	const struct lraid_geom *g = &a->geom;
	sector_t sector = bio->bi_iter.bi_sector;
	u32 left = bio_sectors(bio), done = 0, n;
	u32 failed = READ_ONCE(a->failed);
	bool acct = lraid_acct_on(bio);
	unsigned long start = acct ? bio_start_io_acct(bio) : 0;
	gfp_t gfp = lraid_submit_gfp(bio);
	struct lraid_map m;

	/*
	 * In place only if no one else can end the bio: a caller that chained
	 * other bios to it (md raid0 or linear splitting a read across its
	 * members) passes their errors into bi_status, which
	 * lraid_rstash_endio() would take for its member's.
	 */
	lraid_geom_map(g, sector, &m);
	if (left && left <= g->chunk_sectors - m.chunk_offset &&
	    !(failed & BIT(m.member)) && !bio_flagged(bio, BIO_CHAIN) &&
	    lraid_read_remap(a, bio, &m, acct, start))
		return;
	if (acct && !lraid_acct_hook(a, bio, start, left, gfp)) {
		bio_wouldblock_error(bio);
		return;
	}

	/*
	 * Pieces on failed members go to the workers first: queueing may
	 * wait for a->wreq_pool, and clones made before would sit unsent on
	 * current->bio_list meanwhile, holding a->clone_bs, which the
	 * workers that free wreqs take from too.
	 */
	while (unlikely(failed) && left) {
		lraid_geom_map(g, sector + done, &m);
		n = min(left, g->chunk_sectors - m.chunk_offset);
		if (failed & BIT(m.member)) {
			if (!lraid_queue_pieces(a, bio, sector + done, n,
						LRAID_WREQ_READ, 0, gfp)) {
				bio_wouldblock_error(bio);
				return;
			}
			gfp = GFP_NOIO;
		}
		done += n;
		left -= n;
	}
	done = 0;
	left = bio_sectors(bio);
	while (left) {
		struct lraid_clone *c;
		struct bio *clone;

		lraid_geom_map(g, sector + done, &m);
		n = min(left, g->chunk_sectors - m.chunk_offset);
		if (unlikely(failed & BIT(m.member))) {
			done += n;
			left -= n;
			continue;
		}
		clone = bio_alloc_clone(a->members[m.member].b.bdev, bio,
					gfp, &a->clone_bs);
		if (unlikely(!clone)) {
			bio_wouldblock_error(bio);
			return;
		}
		gfp = GFP_NOIO;
		clone->bi_opf &= ~REQ_NOWAIT;
		bio_trim(clone, done, n);
		clone->bi_iter.bi_sector = a->data_offset + m.member_sector;
		c = container_of(clone, struct lraid_clone, bio);
		c->sector = sector + done;
		c->sectors = n;
		c->member = m.member;
		lraid_piece_submit(a, bio, clone, lraid_read_piece_endio);
		done += n;
		left -= n;
	}
	bio_endio(bio);
}

static bool lraid_win_touched(const struct lraid_geom *g, u32 wsec, u32 win,
			      u32 lo, u32 hi)
{
	u32 c = g->chunk_sectors;
	u32 di;

	for (di = lo / c; di <= (hi - 1) / c; di++) {
		u32 s = di * c + win * wsec;

		if (s < hi && s + wsec > lo)
			return true;
	}
	return false;
}

/*
 * Whether every segment of @bio is whole sectors. The workers walk a
 * bio's data sector by sector next to the parity rows, so a segment of,
 * say, 256 bytes would put data and parity out of step (or run past the
 * end of the bio). Nothing the block layer lets through from user space
 * has one (O_DIRECT is checked against the logical block size and DMA
 * alignment); an in-kernel submitter that builds such a bio gets an
 * error instead of wrong parity.
 */
static bool lraid_bio_whole_sectors(struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;

	if (!bio_has_data(bio))
		return true;
	/*
	 * Multi-page segments: one that starts and ends on sector bounds
	 * splits into pages that do too (pages are whole sectors).
	 */
	bio_for_each_bvec(bv, bio, iter)
		if ((bv.bv_offset | bv.bv_len) & (SECTOR_SIZE - 1))
			return false;
	return true;
}

/*
 * Cut logical sectors [start, start + nr) of @bio into write pieces (or
 * degraded read pieces, @flags LRAID_WREQ_READ), one per touched (stripe,
 * window), and queue them to this CPU's worker. Roles in @avoid are treated
 * as failed for these pieces (a member that just failed a read). @gfp is
 * for the first piece; false, with nothing queued, when that fails (see
 * lraid_submit_gfp()); the others may sleep. A bio with a segment that is
 * not whole sectors gets BLK_STS_IOERR and nothing is queued.
 */
static bool lraid_queue_pieces(struct lraid_array *a, struct bio *bio,
			       u64 start, u64 nr, u32 flags, u32 avoid,
			       gfp_t gfp)
{
	const struct lraid_geom *g = &a->geom;
	u64 sdata = (u64)g->nr_data * g->chunk_sectors;
	u32 nwin = g->chunk_sectors / a->win_sectors;
	u64 pos = start, end = start + nr;
	blk_opf_t opf = bio->bi_opf & (REQ_FUA | REQ_SYNC | REQ_META | REQ_PRIO);

	if (unlikely(!lraid_bio_whole_sectors(bio))) {
		pr_err_ratelimited("%s: %s of a segment that is not whole sectors refused\n",
				   a->disk->disk_name,
				   op_is_write(bio_op(bio)) ? "write" : "read");
		WRITE_ONCE(bio->bi_status, BLK_STS_IOERR);
		return true;
	}
	/* REQ_NOWAIT: refused before anything is queued, as for memory */
	if (!(flags & LRAID_WREQ_READ) && !gfpflags_allow_blocking(gfp) &&
	    !lraid_bitmap_ready(a, div64_u64(start, sdata),
				div64_u64(end - 1, sdata) + 1))
		return false;
	while (pos < end) {
		u64 stripe = div64_u64(pos, sdata);
		u64 sbase = stripe * sdata;
		u32 lo = pos - sbase;
		u32 hi = min(end, sbase + sdata) - sbase;
		u32 win;

		for (win = 0; win < nwin; win++) {
			struct lraid_wreq *wr;

			if (!lraid_win_touched(g, a->win_sectors, win, lo, hi))
				continue;
			wr = mempool_alloc(a->wreq_pool, gfp);
			if (unlikely(!wr))
				return false;
			gfp = GFP_NOIO;
			wr->bio = bio;
			wr->stripe = stripe;
			wr->win = win;
			wr->flags = flags;
			wr->avoid = avoid;
			wr->lo = lo;
			wr->hi = hi;
			wr->bio_lo = (s64)bio->bi_iter.bi_sector - (s64)sbase;
			wr->opf = opf;
			/* the region's bit on disk before anything is written */
			if (!(flags & LRAID_WREQ_READ))
				lraid_bitmap_start(a, stripe, stripe + 1);
			bio_inc_remaining(bio);
			percpu_ref_get(&a->active);
			lraid_stripe_queue(a, wr);
		}
		pos = sbase + hi;
	}
	return true;
}

/* From where lraid may sleep: queues every piece. */
static void lraid_queue_write(struct lraid_array *a, struct bio *bio,
			      u64 start, u64 nr, u32 flags)
{
	lraid_queue_pieces(a, bio, start, nr, flags, 0, GFP_NOIO);
}

/*
 * A member refused a discard or write-zeroes: it answered "not supported",
 * or, as sd does for a disk that rejects WRITE SAME it had claimed,
 * BLK_STS_TARGET after withdrawing the offer (dm's clone_endio() reads it
 * so too). It changed nothing there: not a write error.
 */
static bool lraid_op_offered(struct block_device *b, enum req_op op)
{
	if (op == REQ_OP_WRITE_ZEROES)
		return bdev_write_zeroes_sectors(b);
	return bdev_max_discard_sectors(b);
}

static bool lraid_refusal(struct block_device *b, enum req_op op,
			  blk_status_t st)
{
	if (st == BLK_STS_NOTSUPP)
		return true;
	return st == BLK_STS_TARGET && !lraid_op_offered(b, op);
}

/*
 * A write-zeroes that let the member unmap failed BLK_STS_TARGET, and the
 * member still offers write-zeroes: what sd answers when a disk rejects
 * the WRITE SAME with UNMAP it claimed (LBPWS with LBPRZ). sd then
 * withdraws discard, keeps write-zeroes, and sends UNMAP again with every
 * later write-zeroes that allows it; one with REQ_NOUNMAP goes out as a
 * plain WRITE SAME. (Not tested on the member's discard: dm over such a
 * disk keeps offering it.) Asking again without unmapping costs a genuine
 * target error one more try, and is all the parity needs if it succeeds.
 */
static bool lraid_unmap_refused(struct block_device *b, struct bio *piece)
{
	return piece->bi_status == BLK_STS_TARGET &&
	       bio_op(piece) == REQ_OP_WRITE_ZEROES &&
	       !(piece->bi_opf & REQ_NOUNMAP) && bdev_write_zeroes_sectors(b);
}

/*
 * The array stops offering discard (@discard) and write-zeroes (@wz): set
 * the a->refused bits before the caller lets its stripes go, so that later
 * requests see them (lraid_discard()). Returns the bits set first here,
 * for lraid_withdraw() once the stripes are free.
 */
static unsigned long lraid_refuse(struct lraid_array *a, bool discard,
				  bool wz)
{
	unsigned long set = 0;

	if (discard && !test_and_set_bit(LRAID_REFUSED_DISCARD, &a->refused))
		set |= BIT(LRAID_REFUSED_DISCARD);
	if (wz && !test_and_set_bit(LRAID_REFUSED_WZEROES, &a->refused))
		set |= BIT(LRAID_REFUSED_WZEROES);
	return set;
}

/*
 * Drop the queue limits of the LRAID_REFUSED_* @bits, which lraid_refuse()
 * set because @m refused @what, so that callers such as
 * blkdev_issue_zeroout() write zeroes instead. May sleep; must not hold
 * stripes (the update waits for a queue sysfs write, which may freeze
 * lraid's queue).
 */
static void lraid_withdraw(struct lraid_array *a, unsigned long bits,
			   unsigned int m, const char *what)
{
	bool discard = bits & BIT(LRAID_REFUSED_DISCARD);
	bool wz = bits & BIT(LRAID_REFUSED_WZEROES);
	int ret;

	if (!bits)
		return;
	ret = lraid_compat_drop_limits(a->disk, discard, wz);
	pr_warn("lraid%d: %pg refused %s: the array no longer offers %s%s%s\n",
		a->index, a->members[m].b.bdev, what,
		discard ? "discard" : "", discard && wz ? " or " : "",
		wz ? "write-zeroes" : "");
	if (ret)
		pr_err("lraid%d: could not update the queue limits: %d\n",
		       a->index, ret);
}

/* Zeroing writes in flight on several members, lraid_members_zero() */
struct lraid_zwait {
	atomic_t pending;		/* bios in flight, plus one */
	struct completion done;
	blk_status_t st[LRAID_MAX_MEMBERS];	/* an error of each member */
};

static void lraid_zwait_endio(struct bio *bio)
{
	struct lraid_zwait *w = bio->bi_private;
	unsigned int m = container_of(bio, struct lraid_clone, bio)->member;

	if (bio->bi_status)
		WRITE_ONCE(w->st[m], bio->bi_status);
	bio_put(bio);
	if (atomic_dec_and_test(&w->pending))
		complete(&w->done);
}

/*
 * Zero @nr sectors from @start on every member in @mask at once, and wait
 * for all of them: with @nounmap write-zeroes with REQ_NOUNMAP, else plain
 * writes of the zero page; every bio goes out as soon as it is allocated,
 * so the stripes wait for the slowest member, not for the sum of them. The
 * bios come from a->io_bs: the caller holds stripes that writes wait on,
 * so this must not wait for memory those writes may hold (fs_bio_set,
 * which blkdev_issue_zeroout() uses). Each member's status goes to @st[m].
 */
static void lraid_members_zero(struct lraid_array *a, unsigned long mask,
			       sector_t start, sector_t nr, bool nounmap,
			       blk_status_t *st)
{
	struct lraid_zwait w = { .pending = ATOMIC_INIT(1) };
	/* a write-zeroes' size fits in bi_size, kept whole chunks */
	sector_t max = nounmap ? round_down(UINT_MAX >> SECTOR_SHIFT,
					    a->geom.chunk_sectors) :
				 BIO_MAX_VECS * PAGE_SECTORS;
	sector_t done, n;
	unsigned int m;

	if (!mask)
		return;
	init_completion(&w.done);
	for (done = 0; done < nr; done += n) {
		n = min(nr - done, max);

		for_each_set_bit(m, &mask, LRAID_MAX_MEMBERS) {
			struct block_device *b = a->members[m].b.bdev;
			struct bio *bio;

			if (nounmap) {
				bio = bio_alloc_bioset(b, 0, REQ_OP_WRITE_ZEROES |
						       REQ_NOUNMAP | REQ_SYNC,
						       GFP_NOIO, &a->io_bs);
				bio->bi_iter.bi_size = (u32)(n << SECTOR_SHIFT);
			} else {
				bio = bio_alloc_bioset(b, DIV_ROUND_UP(n, PAGE_SECTORS),
						       REQ_OP_WRITE | REQ_SYNC,
						       GFP_NOIO, &a->io_bs);
				lraid_bio_add_zeroes(bio, n);
			}
			container_of(bio, struct lraid_clone, bio)->member = m;
			bio->bi_iter.bi_sector = start + done;
			bio->bi_private = &w;
			bio->bi_end_io = lraid_zwait_endio;
			atomic_inc(&w.pending);
			submit_bio(bio);
		}
	}
	/* a timed wait, so that a long zeroing is not taken for a hung task */
	if (!atomic_dec_and_test(&w.pending))
		while (!wait_for_completion_io_timeout(&w.done, 10 * HZ))
			;
	for_each_set_bit(m, &mask, LRAID_MAX_MEMBERS)
		st[m] = w.st[m];
}

/*
 * Members in d->unmap refused to unmap (lraid_unmap_refused()): each is
 * asked again not to, all at once. One that then zeroes the range took
 * it, and gets REQ_NOUNMAP from now on (a->nounmap). A discard would only
 * write zeroes over it (as write-zeroes), or be refused by it (sd
 * withdrew its discard) and written with zero pages, so the array stops
 * offering discard (the a->refused bits returned, member in *@who). One
 * that refuses that too joins d->refused; one that fails it otherwise is
 * failed.
 */
static unsigned long lraid_drange_nounmap(struct lraid_drange *d,
					  sector_t start, sector_t nr,
					  unsigned int *who)
{
	struct lraid_array *a = d->a;
	unsigned long bits = (u32)atomic_read(&d->unmap) & ~lraid_unwritten(a);
	unsigned long withdraw = 0;
	blk_status_t st[LRAID_MAX_MEMBERS];
	unsigned int m;

	lraid_members_zero(a, bits, start, nr, true, st);
	for_each_set_bit(m, &bits, LRAID_MAX_MEMBERS) {
		struct block_device *b = a->members[m].b.bdev;

		if (!st[m]) {
			atomic_inc(&d->took);
			/* later requests see it before the stripes go */
			if (!test_and_set_bit(m, &a->nounmap))
				pr_warn("lraid%d: %pg refused to unmap while zeroing: it zeroes without unmapping until the array stops\n",
					a->index, b);
			if (a->discard_op && lraid_refuse(a, true, false)) {
				withdraw = BIT(LRAID_REFUSED_DISCARD);
				*who = m;
			}
		} else if (lraid_refusal(b, REQ_OP_WRITE_ZEROES, st[m])) {
			atomic_or(BIT(m), &d->refused);
		} else if (!lraid_member_write_error(a, m, st[m])) {
			WRITE_ONCE(d->bio->bi_status, st[m]);
		}
	}
	return withdraw;
}

/* The stripes are let go (lraid_drange_end()): end the range. */
static void lraid_drange_finish(struct lraid_drange *d)
{
	struct lraid_array *a = d->a;
	struct bio *bio = d->bio;

	lraid_bitmap_end(a, d->s0, d->s1);
	if (unlikely(lraid_array_lost(a)))
		WRITE_ONCE(bio->bi_status, BLK_STS_IOERR);
	else if (lraid_hold(a, &d->node, &a->held_dranges))
		return;
	mempool_free(d, a->drange_pool);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

/*
 * Members that refused to unmap (d->unmap) are asked again without
 * unmapping first (lraid_drange_nounmap()); some may join d->refused.
 * Members in d->refused refused the range and did nothing. One that
 * no longer offers the operation takes it away from the array too; one
 * may refuse a request and still offer it (loop over tmpfs cannot zero
 * without unmapping, REQ_NOUNMAP, and 6.1's keeps offering write-zeroes).
 * If none carried the range out, nothing changed: the request fails with
 * NOTSUPP, and the caller may write zeroes instead (blkdev_issue_zeroout()
 * does). If some did, the ones that refused are written with zeroes
 * there, so that every member reads zeroes and the parity stays right:
 * the members that took it read zeroes afterwards (write-zeroes, or a
 * discard lraid was told reads zeroes), and zeroes are their own parity.
 * Only a member that fails that write is failed. The stripes are held
 * until then.
 */
static void lraid_drange_refused(struct work_struct *work)
{
	struct lraid_drange *d = container_of(work, struct lraid_drange, work);
	struct lraid_array *a = d->a;
	const struct lraid_geom *g = &a->geom;
	sector_t start = a->data_offset + d->s0 * g->chunk_sectors;
	sector_t nr = (d->s1 - d->s0) * g->chunk_sectors;
	enum req_op op = d->op;
	unsigned long bits, withdraw = 0, unmap_withdraw = 0;
	unsigned int m, who = 0, who_unmap = 0;
	blk_status_t st[LRAID_MAX_MEMBERS];

	if (atomic_read(&d->unmap))
		unmap_withdraw = lraid_drange_nounmap(d, start, nr, &who_unmap);
	bits = (u32)atomic_read(&d->refused);
	for_each_set_bit(m, &bits, BITS_PER_LONG) {
		if (lraid_unwritten(a) & BIT(m))
			continue;
		if (!lraid_op_offered(a->members[m].b.bdev, op)) {
			withdraw = lraid_refuse(a, a->discard_op == op,
						op == REQ_OP_WRITE_ZEROES);
			who = m;
			break;
		}
	}
	if (!atomic_read(&d->took)) {
		if (!READ_ONCE(d->bio->bi_status))
			WRITE_ONCE(d->bio->bi_status, BLK_STS_NOTSUPP);
		bits = 0;
	}
	bits &= ~lraid_unwritten(a);
	for_each_set_bit(m, &bits, LRAID_MAX_MEMBERS)
		pr_warn_ratelimited("lraid%d: %pg: writing zeroes to sectors %llu+%llu, which the other members %s\n",
				    a->index, a->members[m].b.bdev,
				    (u64)start, (u64)nr,
				    op == REQ_OP_DISCARD ? "discarded" :
							   "zeroed");
	lraid_members_zero(a, bits, start, nr, false, st);
	for_each_set_bit(m, &bits, LRAID_MAX_MEMBERS)
		if (st[m] && !lraid_member_write_error(a, m, st[m]))
			WRITE_ONCE(d->bio->bi_status, BLK_STS_IOERR);
	lraid_drange_end(a, d);
	/* the stripes are free, and the caller sees the new limits */
	lraid_withdraw(a, unmap_withdraw, who_unmap, "to unmap");
	lraid_withdraw(a, withdraw, who, op == REQ_OP_WRITE_ZEROES ?
					 "write-zeroes" : "discard");
	lraid_drange_finish(d);
}

static void lraid_drange_put(struct lraid_drange *d)
{
	if (!atomic_dec_and_test(&d->pending))
		return;
	/* before the stripes are let go: later I/O must see them consistent */
	if (unlikely(atomic_read(&d->refused) || atomic_read(&d->unmap))) {
		INIT_WORK(&d->work, lraid_drange_refused);
		queue_work(d->a->refused_wq, &d->work);
		return;
	}
	lraid_drange_end(d->a, d);
	lraid_drange_finish(d);
}

/*
 * A member that fails a discard or write-zeroes of whole stripes is failed
 * as for a failed write (md does the same): its blocks there no longer
 * agree with the parity the others now hold. One that refused it, or
 * refused to unmap, is judged once all have answered
 * (lraid_drange_refused()).
 */
static void lraid_drange_endio(struct bio *piece)
{
	struct lraid_drange *d = piece->bi_private;
	unsigned int m = container_of(piece, struct lraid_clone, bio)->member;
	struct block_device *b = d->a->members[m].b.bdev;

	if (!piece->bi_status)
		atomic_inc(&d->took);
	else if (lraid_unmap_refused(b, piece))
		atomic_or(BIT(m), &d->unmap);
	else if (lraid_refusal(b, bio_op(piece), piece->bi_status))
		atomic_or(BIT(m), &d->refused);
	else if (!lraid_member_write_error(d->a, m, piece->bi_status))
		WRITE_ONCE(d->bio->bi_status, piece->bi_status);
	bio_put(piece);
	lraid_drange_put(d);
}

/*
 * Discard or zero stripes [s0, s1) on every member that has not failed
 * (or is being rebuilt: lraid_unwritten()), once no write piece holds a
 * window there (lraid_drange_begin()); pieces
 * for those stripes wait until every member has finished.
 */
static void lraid_discard_stripes(struct lraid_array *a, struct bio *bio,
				  u64 s0, u64 s1, blk_opf_t opf)
{
	const struct lraid_geom *g = &a->geom;
	struct lraid_drange *d = mempool_alloc(a->drange_pool, GFP_NOIO);
	blk_opf_t nounmap = (opf & REQ_OP_MASK) == REQ_OP_WRITE_ZEROES ?
			    REQ_NOUNMAP : 0;
	u32 failed;
	unsigned int i;

	lraid_bitmap_start(a, s0, s1);
	d->a = a;
	d->bio = bio;
	d->s0 = s0;
	d->s1 = s1;
	atomic_set(&d->pending, 1);
	atomic_set(&d->took, 0);
	atomic_set(&d->refused, 0);
	atomic_set(&d->unmap, 0);
	d->op = opf & REQ_OP_MASK;
	bio_inc_remaining(bio);
	percpu_ref_get(&a->active);
	lraid_drange_begin(a, d);

	failed = lraid_unwritten(a);
	for (i = 0; i < g->nr_members; i++) {
		struct bio *piece;

		if (failed & BIT(i))
			continue;
		piece = bio_alloc_bioset(a->members[i].b.bdev, 0,
					 test_bit(i, &a->nounmap) ?
					 opf | nounmap : opf,
					 GFP_NOIO, &a->clone_bs);
		piece->bi_iter.bi_sector = a->data_offset +
					   s0 * g->chunk_sectors;
		piece->bi_iter.bi_size = (u32)((s1 - s0) *
				g->chunk_sectors) << SECTOR_SHIFT;
		container_of(piece, struct lraid_clone, bio)->member = i;
		piece->bi_private = d;
		piece->bi_end_io = lraid_drange_endio;
		atomic_inc(&d->pending);
		submit_bio_noacct(piece);
	}
	lraid_drange_put(d);
}

/*
 * Full stripes become one discard or write-zeroes per member, so that
 * every member reads zeroes there afterwards and parity stays right.
 */
static void lraid_discard(struct lraid_array *a, struct bio *bio)
{
	const struct lraid_geom *g = &a->geom;
	u64 sdata = (u64)g->nr_data * g->chunk_sectors;
	u64 start = bio->bi_iter.bi_sector;
	u64 end = bio_end_sector(bio);
	u64 s0 = div64_u64(start + sdata - 1, sdata);
	u64 s1 = div64_u64(end, sdata);
	bool zeroes = bio_op(bio) == REQ_OP_WRITE_ZEROES;
	blk_opf_t opf = bio->bi_opf;

	/* as a write: with more members failed than parity covers, the
	 * failed ones' blocks cannot be zeroed, and would read back as errors
	 */
	if (unlikely(lraid_array_lost(a))) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
		return;
	}
	/* discard may be carried out as write-zeroes, see lraid_disk_add() */
	if (!zeroes)
		opf = (opf & ~REQ_OP_MASK) | a->discard_op;
	/*
	 * The array withdrew the operation (lraid_drange_refused()), but the
	 * request passed the block layer's check of lraid's limits before
	 * they changed: discard is refused, write-zeroes are written as
	 * zeroes. (A device stacked on lraid keeps the limits it read, but
	 * its requests meet that check again at lraid's queue.)
	 */
	if (unlikely(test_bit(zeroes ? LRAID_REFUSED_WZEROES :
				       LRAID_REFUSED_DISCARD, &a->refused))) {
		if (zeroes)
			lraid_queue_write(a, bio, start, end - start,
					  LRAID_WREQ_ZERO);
		else
			bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}

	/*
	 * Partial stripes: skipped for discard, real zeroes for write-zeroes.
	 * Queued first: they lie in other stripes, and queueing may wait for
	 * a->wreq_pool, which writes parked behind the whole stripes' range
	 * hold until its member bios, unsent on current->bio_list, finish.
	 */
	if (zeroes && s0 >= s1) {
		lraid_queue_write(a, bio, start, end - start, LRAID_WREQ_ZERO);
	} else if (zeroes) {
		if (start < s0 * sdata)
			lraid_queue_write(a, bio, start, s0 * sdata - start,
					  LRAID_WREQ_ZERO);
		if (end > s1 * sdata)
			lraid_queue_write(a, bio, s1 * sdata,
					  end - s1 * sdata, LRAID_WREQ_ZERO);
	}
	if (s0 < s1)
		lraid_discard_stripes(a, bio, s0, s1, opf);
	bio_endio(bio);
}

static void lraid_flush_work(struct work_struct *work)
{
	struct lraid_flush *f = container_of(work, struct lraid_flush, work);
	struct lraid_array *a = f->a;
	struct bio *bio = f->bio;

	mempool_free(f, a->flush_pool);
	lraid_queue_write(a, bio, bio->bi_iter.bi_sector, bio_sectors(bio), 0);
	bio_endio(bio);
	percpu_ref_put(&a->active);
}

/* Fail the request, end it, or write its data. */
static void lraid_flush_finish(struct lraid_flush *f)
{
	struct lraid_array *a = f->a;
	struct bio *bio = f->bio;

	if (f->status || !bio_sectors(bio)) {
		if (f->status)
			bio->bi_status = f->status;
		mempool_free(f, a->flush_pool);
		bio_endio(bio);
		percpu_ref_put(&a->active);
		return;
	}
	/* the data part goes through the workers, from process context */
	bio->bi_opf &= ~REQ_PREFLUSH;
	queue_work(a->wq, &f->work);
}

/*
 * Every member has flushed. While a failed member is not recorded yet (one
 * whose flush failed, say), the flush waits for the record as writes do
 * (lraid_hold()): what it promises durable was written without that
 * member, and a crash before the record would let it be trusted again.
 */
static void lraid_flush_done(struct lraid_flush *f)
{
	if (f->status || !lraid_hold(f->a, &f->node, &f->a->held_flushes))
		lraid_flush_finish(f);
}

/*
 * A member that fails a flush may have lost writes it had acknowledged
 * from its cache: it is failed as for a failed write, and the flush
 * stands on the others (md only logs the error). The caller sees the
 * error only when that leaves more members failed than parity covers.
 */
static void lraid_flush_endio(struct bio *piece)
{
	struct lraid_flush *f = piece->bi_private;
	unsigned int m = container_of(piece, struct lraid_clone, bio)->member;

	if (piece->bi_status &&
	    !lraid_member_write_error(f->a, m, piece->bi_status))
		WRITE_ONCE(f->status, piece->bi_status);
	bio_put(piece);
	if (atomic_dec_and_test(&f->pending))
		lraid_flush_done(f);
}

static void lraid_flush(struct lraid_array *a, struct bio *bio)
{
	struct lraid_flush *f = mempool_alloc(a->flush_pool, GFP_NOIO);
	u32 failed = READ_ONCE(a->failed);
	unsigned int i, n = a->geom.nr_members;

	f->a = a;
	f->bio = bio;
	f->status = BLK_STS_OK;
	INIT_WORK(&f->work, lraid_flush_work);
	atomic_set(&f->pending, n - hweight32(failed));
	percpu_ref_get(&a->active);
	if (!atomic_read(&f->pending)) {
		/* every member failed (write errors past parity): no data */
		f->status = BLK_STS_IOERR;
		lraid_flush_done(f);
		return;
	}
	for (i = 0; i < n; i++) {
		struct bio *piece;

		if (failed & BIT(i))
			continue;

		piece = bio_alloc_bioset(a->members[i].b.bdev, 0,
					 REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC,
					 GFP_NOIO, &a->clone_bs);
		container_of(piece, struct lraid_clone, bio)->member = i;
		piece->bi_private = f;
		piece->bi_end_io = lraid_flush_endio;
		submit_bio_noacct(piece);
	}
}

void lraid_submit_bio(struct bio *bio)
{
	struct lraid_array *a = lraid_bio_array(bio);

	percpu_ref_get(&a->active);
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		lraid_read(a, bio);
		break;
	case REQ_OP_WRITE:
		if (unlikely(bio->bi_opf & REQ_NOWAIT) &&
		    (bio->bi_opf & REQ_PREFLUSH)) {
			bio_wouldblock_error(bio);
			break;
		}
		if (!lraid_acct_bio(a, bio, lraid_submit_gfp(bio))) {
			bio_wouldblock_error(bio);
			break;
		}
		if (bio->bi_opf & REQ_PREFLUSH) {
			lraid_flush(a, bio);
			break;
		}
		if (!lraid_queue_pieces(a, bio, bio->bi_iter.bi_sector,
					bio_sectors(bio), 0, 0,
					lraid_submit_gfp(bio)))
			bio_wouldblock_error(bio);
		else
			bio_endio(bio);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		if (unlikely(bio->bi_opf & REQ_NOWAIT)) {
			bio_wouldblock_error(bio);
			break;
		}
		lraid_acct_bio(a, bio, GFP_NOIO);
		lraid_discard(a, bio);
		break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		break;
	}
	percpu_ref_put(&a->active);
}
