// SPDX-License-Identifier: GPL-2.0
/*
 * Write-intent bitmap: one bit per region of the data area (a power of two
 * of member sectors, at least a chunk), kept in the gap between the
 * superblock and the data area of every member (bitmap_offset,
 * bitmap_sectors; Documentation/on-disk-format.rst). A bit set on disk
 * says that stripes of its region may hold parity that disagrees with
 * their data; a bit clear says they do not. So after an unclean stop the
 * resync reads only the regions whose bit is set on some fresh member.
 *
 * Per region, one atomic count (bm->count[r]):
 *   0       the bit may be clear on disk;
 *   n >= 1  the bit is set on every working member, and n - 1 writes
 *           into the region are in flight.
 * A write piece takes the count with atomic_inc_not_zero() before it is
 * queued (lraid_bitmap_start()) and drops it once its member writes have
 * ended (lraid_bitmap_end()): one atomic each way, no lock, as long as the
 * bit is set. Only the first write into a region whose bit is clear takes
 * bm->lock, sets the bit and waits for its 4 KiB block to be written (FUA)
 * to every working member before the count becomes 2: nothing is written
 * into a region before its bit is on disk. The submitter may be inside
 * submit_bio(), where bios it submits are only queued until it returns,
 * so the block is written by a work item (bm->wq) while it waits.
 *
 * Bits are cleared lazily (lraid_bitmap_clear_fn(), every bitmap_delay
 * seconds): a region not written since the last pass (bm->touched) whose
 * count is exactly 1 goes to 0 by cmpxchg, so no write slips in between,
 * and its bit is then cleared and the block written (no FUA: a bit left
 * set only costs a resync of the region). A write that comes meanwhile
 * finds the count 0 and waits for bm->lock, which the pass holds until
 * the block is written, then sets the bit again. Nothing is cleared while
 * a role is failed (so that the bits cover every write a returning member
 * missed) or while parity is not known in sync (an unclean start, until
 * its resync has gone over every dirty region).
 *
 * Full-stripe discards and write-zeroes take the counts of their regions
 * as writes do. Passes (check, repair, resync, rebuild) do not: what they
 * write agrees with the other members whatever happens to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/bitops.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "lraid.h"
#include "lraid_sb.h"

#define LRAID_BM_BLOCK		4096u
#define LRAID_BM_BLOCK_BITS	(LRAID_BM_BLOCK * 8)
#define LRAID_BM_BLOCK_SECTORS	(LRAID_BM_BLOCK >> SECTOR_SHIFT)
#define LRAID_BM_DELAY_MAX	3600u

static unsigned int bitmap_delay = 5;

static int bitmap_delay_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < 1 || v > LRAID_BM_DELAY_MAX)
		return -EINVAL;
	WRITE_ONCE(bitmap_delay, v);
	/* as md's daemon_sleep: the next pass comes after the new delay */
	lraid_array_for_each(lraid_bitmap_delay_changed);
	return 0;
}

static const struct kernel_param_ops bitmap_delay_ops = {
	.set = bitmap_delay_set,
	.get = param_get_uint,
};
module_param_cb(bitmap_delay, &bitmap_delay_ops, &bitmap_delay, 0644);
MODULE_PARM_DESC(bitmap_delay,
		 "seconds (1-3600) between passes that clear the write-intent bits of regions not written since the last pass");

struct lraid_bitmap {
	struct lraid_array *a;
	u32 nr_regions;
	u32 stripe_shift;		/* log2 of stripes per region */
	u32 nr_blocks;			/* 4 KiB blocks the bits take */
	/*
	 * The bits do not cover what the array's parity missed (members
	 * --force took back): a resync goes over every region.
	 */
	bool full;
	atomic_t *count;		/* per region, see above */
	unsigned long *touched;		/* written since the last clear pass */
	struct page **blocks;		/* the bits as on disk */
	struct mutex lock;		/* bit changes and block I/O */
	/* block I/O, under lock */
	struct bio *bios[LRAID_MAX_MEMBERS];
	atomic_t pending;
	struct completion done;
	blk_status_t status[LRAID_MAX_MEMBERS];
	/* a submitter's block write, carried out by write_work */
	struct workqueue_struct *wq;
	struct work_struct write_work;
	u32 write_block;
	struct completion written;
	struct delayed_work clear_work;
};

/* A running array's next clear pass, after the delay now set. */
void lraid_bitmap_delay_changed(struct lraid_array *a)
{
	if (a->bm)
		mod_delayed_work(system_wq, &a->bm->clear_work,
				 READ_ONCE(bitmap_delay) * HZ);
}

static inline u32 lraid_bm_region(const struct lraid_bitmap *bm, u64 stripe)
{
	return stripe >> bm->stripe_shift;
}

static inline void *lraid_bm_addr(const struct lraid_bitmap *bm, u32 r)
{
	return page_address(bm->blocks[r / LRAID_BM_BLOCK_BITS]);
}

static inline bool lraid_bm_test(const struct lraid_bitmap *bm, u32 r)
{
	return test_bit_le(r % LRAID_BM_BLOCK_BITS, lraid_bm_addr(bm, r));
}

static void lraid_bm_endio(struct bio *bio)
{
	struct lraid_bitmap *bm = bio->bi_private;
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(bm->bios); m++)
		if (bm->bios[m] == bio)
			bm->status[m] = bio->bi_status;
	if (atomic_dec_and_test(&bm->pending))
		complete(&bm->done);
}

/*
 * Read or write block @blk of the bitmap area on the members of @mask at
 * once (@page: the buffer, NULL for the block's own); the status of each
 * in bm->status[]. Under bm->lock, held by the caller or, for write_work,
 * by the submitter waiting for it.
 */
static void lraid_bm_io(struct lraid_bitmap *bm, u32 blk, u32 mask,
			struct page *page, blk_opf_t opf)
{
	struct lraid_array *a = bm->a;
	unsigned long todo = mask;
	unsigned int m;

	atomic_set(&bm->pending, 1);
	reinit_completion(&bm->done);
	for_each_set_bit(m, &todo, a->geom.nr_members) {
		struct bio *bio = bm->bios[m];

		bm->status[m] = BLK_STS_OK;
		bio_reset(bio, a->members[m].b.bdev, opf);
		bio->bi_iter.bi_sector = a->bitmap_offset +
					 (u64)blk * LRAID_BM_BLOCK_SECTORS;
		__bio_add_page(bio, page ?: bm->blocks[blk], LRAID_BM_BLOCK, 0);
		bio->bi_private = bm;
		bio->bi_end_io = lraid_bm_endio;
		atomic_inc(&bm->pending);
		submit_bio(bio);
	}
	if (!atomic_dec_and_test(&bm->pending))
		wait_for_completion_io(&bm->done);
}

/* Members the bits go to: every one that is written. */
static u32 lraid_bm_members(const struct lraid_array *a)
{
	return GENMASK(a->geom.nr_members - 1, 0) & ~lraid_unwritten(a);
}

/*
 * Write block @blk to every working member (a running array); a member
 * that fails it is failed, as for a failed superblock write.
 */
static void lraid_bm_write(struct lraid_bitmap *bm, u32 blk, blk_opf_t flags)
{
	struct lraid_array *a = bm->a;
	u32 mask = lraid_bm_members(a);
	unsigned long done = mask;
	unsigned int m;

	lraid_bm_io(bm, blk, mask, NULL, REQ_OP_WRITE | REQ_SYNC | flags);
	for_each_set_bit(m, &done, a->geom.nr_members)
		if (bm->status[m])
			lraid_member_write_error(a, m, bm->status[m]);
}

static void lraid_bm_write_fn(struct work_struct *work)
{
	struct lraid_bitmap *bm = container_of(work, struct lraid_bitmap,
					       write_work);

	lraid_bm_write(bm, bm->write_block, REQ_FUA);
	complete(&bm->written);
}

/* Slow path of lraid_bitmap_start(): set bit @r on disk, take its count. */
static void lraid_bm_set(struct lraid_bitmap *bm, u32 r)
{
	mutex_lock(&bm->lock);
	if (!atomic_inc_not_zero(&bm->count[r])) {
		set_bit_le(r % LRAID_BM_BLOCK_BITS, lraid_bm_addr(bm, r));
		bm->write_block = r / LRAID_BM_BLOCK_BITS;
		reinit_completion(&bm->written);
		queue_work(bm->wq, &bm->write_work);
		wait_for_completion_io(&bm->written);
		atomic_set(&bm->count[r], 2);
	}
	mutex_unlock(&bm->lock);
}

/*
 * A write, discard or write-zeroes to stripes [@s0, @s1) is about to be
 * queued: take the counts of their regions, the bits on disk first. May
 * sleep (task context; see lraid_bitmap_ready() for REQ_NOWAIT).
 */
void __lraid_bitmap_start(struct lraid_array *a, u64 s0, u64 s1)
{
	struct lraid_bitmap *bm = a->bm;
	u32 r, r1;

	r1 = lraid_bm_region(bm, s1 - 1);
	for (r = lraid_bm_region(bm, s0); r <= r1; r++) {
		if (!test_bit(r, bm->touched))
			set_bit(r, bm->touched);
		if (!atomic_inc_not_zero(&bm->count[r]))
			lraid_bm_set(bm, r);
	}
}

/* Its member I/O has ended: drop what lraid_bitmap_start() took. */
void __lraid_bitmap_end(struct lraid_array *a, u64 s0, u64 s1)
{
	struct lraid_bitmap *bm = a->bm;
	u32 r, r1;

	r1 = lraid_bm_region(bm, s1 - 1);
	for (r = lraid_bm_region(bm, s0); r <= r1; r++)
		atomic_dec(&bm->count[r]);
}

/*
 * Would lraid_bitmap_start() for stripes [@s0, @s1) go without sleeping?
 * (For REQ_NOWAIT; racy, but a bit cleared meanwhile only costs a wait.)
 */
bool lraid_bitmap_ready(struct lraid_array *a, u64 s0, u64 s1)
{
	struct lraid_bitmap *bm = a->bm;
	u32 r, r1;

	if (!bm)
		return true;
	r1 = lraid_bm_region(bm, s1 - 1);
	for (r = lraid_bm_region(bm, s0); r <= r1; r++)
		if (!atomic_read(&bm->count[r]))
			return false;
	return true;
}

/*
 * Must a resync or re-add go over @stripe (lraid_bitmap_scope() said the
 * bitmap applies)? If the region's bit is set. *@next: the first stripe
 * of the next region.
 */
bool lraid_bitmap_dirty(struct lraid_array *a, u64 stripe, u64 *next)
{
	struct lraid_bitmap *bm = a->bm;
	u32 r;

	*next = stripe + 1;
	if (!bm)
		return true;
	r = lraid_bm_region(bm, stripe);
	*next = (u64)(r + 1) << bm->stripe_shift;
	return lraid_bm_test(bm, r);
}

static u32 lraid_bm_weight(const struct lraid_bitmap *bm)
{
	u32 blk, n = 0;

	for (blk = 0; blk < bm->nr_blocks; blk++)
		n += bitmap_weight(page_address(bm->blocks[blk]),
				   LRAID_BM_BLOCK_BITS);
	return n;
}

/*
 * May a pass go over the dirty regions only? Not without a bitmap, nor
 * for a @resync when the bits do not cover what parity missed. If so,
 * "N of M regions dirty" in *@dirty, *@all.
 */
bool lraid_bitmap_scope(struct lraid_array *a, bool resync, u32 *dirty,
			u32 *all)
{
	struct lraid_bitmap *bm = a->bm;

	if (!bm || (resync && bm->full))
		return false;
	*dirty = lraid_bm_weight(bm);
	*all = bm->nr_regions;
	return true;
}

static void lraid_bitmap_clear_fn(struct work_struct *work)
{
	struct lraid_bitmap *bm = container_of(to_delayed_work(work),
					       struct lraid_bitmap, clear_work);
	struct lraid_array *a = bm->a;
	u32 blk, r, base;

	mutex_lock(&bm->lock);
	for (blk = 0; blk < bm->nr_blocks; blk++) {
		void *addr = page_address(bm->blocks[blk]);
		u32 bits = min(bm->nr_regions - blk * LRAID_BM_BLOCK_BITS,
			       LRAID_BM_BLOCK_BITS);
		bool cleared = false;

		base = blk * LRAID_BM_BLOCK_BITS;
		for (r = find_next_bit_le(addr, bits, 0); r < bits;
		     r = find_next_bit_le(addr, bits, r + 1)) {
			/* each time: a member may fail, a start set it */
			if (READ_ONCE(a->failed) || READ_ONCE(a->unsynced))
				break;
			if (test_and_clear_bit(base + r, bm->touched))
				continue;
			if (atomic_cmpxchg(&bm->count[base + r], 1, 0) != 1)
				continue;
			clear_bit_le(r, addr);
			cleared = true;
		}
		if (cleared)
			lraid_bm_write(bm, blk, 0);
	}
	mutex_unlock(&bm->lock);
	queue_delayed_work(system_wq, &bm->clear_work,
			   READ_ONCE(bitmap_delay) * HZ);
}

void lraid_bitmap_info(struct lraid_array *a, u64 *region_sectors,
		       u32 *regions, u32 *dirty)
{
	struct lraid_bitmap *bm = a->bm;

	*region_sectors = bm ? a->bitmap_region_sectors : 0;
	*regions = bm ? bm->nr_regions : 0;
	*dirty = bm ? lraid_bm_weight(bm) : 0;
}

void lraid_bitmap_free(struct lraid_array *a)
{
	struct lraid_bitmap *bm = a->bm;
	unsigned int i;

	if (!bm)
		return;
	a->bm = NULL;
	if (bm->wq)
		destroy_workqueue(bm->wq);
	for (i = 0; i < ARRAY_SIZE(bm->bios); i++) {
		if (!bm->bios[i])
			continue;
		bio_uninit(bm->bios[i]);
		kfree(bm->bios[i]);
	}
	if (bm->blocks)
		for (i = 0; i < bm->nr_blocks; i++)
			if (bm->blocks[i])
				__free_page(bm->blocks[i]);
	kfree(bm->blocks);
	bitmap_free(bm->touched);
	kvfree(bm->count);
	mutex_destroy(&bm->lock);
	kfree(bm);
}

/*
 * Set up the bitmap the superblock fields in @a describe (nothing without
 * one), its bits all clear. Before the array runs.
 */
static int lraid_bitmap_alloc(struct lraid_array *a)
{
	const struct lraid_geom *g = &a->geom;
	struct lraid_bitmap *bm;
	u64 regions;
	unsigned int i;

	if (!a->bitmap_sectors)
		return 0;
	regions = DIV_ROUND_UP_ULL((u64)g->member_sectors,
				   a->bitmap_region_sectors);
	/* lraid_sb_check() has checked that the area holds them */
	if (WARN_ON_ONCE(regions > (a->bitmap_sectors << 12) ||
			 regions > U32_MAX / 2))
		return -EINVAL;
	bm = kzalloc(sizeof(*bm), GFP_KERNEL);
	if (!bm)
		return -ENOMEM;
	a->bm = bm;
	bm->a = a;
	mutex_init(&bm->lock);
	init_completion(&bm->done);
	init_completion(&bm->written);
	INIT_WORK(&bm->write_work, lraid_bm_write_fn);
	INIT_DELAYED_WORK(&bm->clear_work, lraid_bitmap_clear_fn);
	bm->nr_regions = regions;
	bm->stripe_shift = ilog2(a->bitmap_region_sectors) - g->chunk_shift;
	bm->nr_blocks = DIV_ROUND_UP(bm->nr_regions, LRAID_BM_BLOCK_BITS);
	bm->count = kvcalloc(bm->nr_regions, sizeof(*bm->count), GFP_KERNEL);
	bm->touched = bitmap_zalloc(bm->nr_regions, GFP_KERNEL);
	bm->blocks = kcalloc(bm->nr_blocks, sizeof(*bm->blocks), GFP_KERNEL);
	if (!bm->count || !bm->touched || !bm->blocks)
		goto nomem;
	for (i = 0; i < bm->nr_blocks; i++) {
		bm->blocks[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!bm->blocks[i])
			goto nomem;
	}
	for (i = 0; i < g->nr_members; i++) {
		bm->bios[i] = bio_kmalloc(1, GFP_KERNEL);
		if (!bm->bios[i])
			goto nomem;
		bio_init(bm->bios[i], NULL, bm->bios[i]->bi_inline_vecs, 1,
			 REQ_OP_READ);
	}
	bm->wq = alloc_workqueue("lraid%d_bitmap", WQ_MEM_RECLAIM, 1,
				 a->index);
	if (!bm->wq)
		goto nomem;
	return 0;

nomem:
	lraid_bitmap_free(a);
	return -ENOMEM;
}

/* Create: a bitmap with every bit clear, written to every member. */
int lraid_bitmap_create(struct lraid_array *a)
{
	struct lraid_bitmap *bm;
	u32 blk, mask = GENMASK(a->geom.nr_members - 1, 0);
	unsigned long todo;
	unsigned int m;
	int ret;

	ret = lraid_bitmap_alloc(a);
	if (ret || !a->bm)
		return ret;
	bm = a->bm;
	mutex_lock(&bm->lock);
	for (blk = 0; blk < bm->nr_blocks && !ret; blk++) {
		lraid_bm_io(bm, blk, mask, NULL, REQ_OP_WRITE | REQ_SYNC);
		todo = mask;
		for_each_set_bit(m, &todo, a->geom.nr_members) {
			if (!bm->status[m])
				continue;
			pr_warn_ratelimited("create: writing the bitmap to %pg failed\n",
					    a->members[m].b.bdev);
			ret = blk_status_to_errno(bm->status[m]);
		}
	}
	mutex_unlock(&bm->lock);
	if (ret)
		lraid_bitmap_free(a);
	return ret;
}

/*
 * Assemble: the bits set on any member that serves the array (fresh, not
 * failed). @full: the bits do not cover what parity missed (members --force
 * took back), a resync goes over everything. A member that cannot be read
 * fails the assembly, as its superblock's would.
 */
int lraid_bitmap_load(struct lraid_array *a, bool full)
{
	struct lraid_bitmap *bm;
	struct page *page;
	u32 blk, mask = 0, r;
	unsigned long todo;
	unsigned int m, i;
	int ret;

	ret = lraid_bitmap_alloc(a);
	if (ret || !a->bm)
		return ret;
	bm = a->bm;
	bm->full = full;
	for (m = 0; m < a->geom.nr_members; m++)
		if (a->members[m].b.bdev && !(a->failed & BIT(m)))
			mask |= BIT(m);
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		lraid_bitmap_free(a);
		return -ENOMEM;
	}
	mutex_lock(&bm->lock);
	todo = mask;
	for_each_set_bit(m, &todo, a->geom.nr_members) {
		for (blk = 0; blk < bm->nr_blocks && !ret; blk++) {
			unsigned long *dst = page_address(bm->blocks[blk]);
			unsigned long *src = page_address(page);

			lraid_bm_io(bm, blk, BIT(m), page,
				    REQ_OP_READ | REQ_SYNC);
			if (bm->status[m]) {
				pr_warn_ratelimited("assemble: cannot read the bitmap of %pg\n",
						    a->members[m].b.bdev);
				ret = blk_status_to_errno(bm->status[m]);
				break;
			}
			for (i = 0; i < LRAID_BM_BLOCK / sizeof(long); i++)
				dst[i] |= src[i];
		}
	}
	/* bits past the last region mean nothing: keep them clear */
	if (!ret && bm->nr_regions % LRAID_BM_BLOCK_BITS) {
		void *last = page_address(bm->blocks[bm->nr_blocks - 1]);

		for (r = bm->nr_regions % LRAID_BM_BLOCK_BITS;
		     r < LRAID_BM_BLOCK_BITS; r++)
			clear_bit_le(r, last);
	}
	/* the bits set on disk: counts of 1, no write in flight */
	for (r = 0; !ret && r < bm->nr_regions; r++)
		if (lraid_bm_test(bm, r))
			atomic_set(&bm->count[r], 1);
	mutex_unlock(&bm->lock);
	__free_page(page);
	if (ret)
		lraid_bitmap_free(a);
	return ret;
}

/*
 * The array runs: start clearing bits, say what the bitmap holds. The
 * blocks on disk are brought in line with the bits in memory (the OR of
 * the members') on every working member first.
 */
void lraid_bitmap_run(struct lraid_array *a)
{
	struct lraid_bitmap *bm = a->bm;
	u32 blk;

	if (!bm)
		return;
	mutex_lock(&bm->lock);
	for (blk = 0; blk < bm->nr_blocks; blk++)
		lraid_bm_write(bm, blk, REQ_FUA);
	mutex_unlock(&bm->lock);
	pr_info("%s: write-intent bitmap: %u regions of %llu KiB, %u dirty\n",
		a->disk->disk_name, bm->nr_regions,
		(unsigned long long)a->bitmap_region_sectors >> 1,
		lraid_bm_weight(bm));
	queue_delayed_work(system_wq, &bm->clear_work,
			   READ_ONCE(bitmap_delay) * HZ);
}

/*
 * A rebuilt member is about to be marked working: give it the bits (its
 * area holds whatever it held before). Every stripe is held, no write in
 * flight.
 */
void lraid_bitmap_sync_member(struct lraid_array *a, unsigned int role)
{
	struct lraid_bitmap *bm = a->bm;
	u32 blk;

	if (!bm)
		return;
	mutex_lock(&bm->lock);
	for (blk = 0; blk < bm->nr_blocks; blk++) {
		lraid_bm_io(bm, blk, BIT(role), NULL,
			    REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
		if (bm->status[role]) {
			lraid_member_write_error(a, role, bm->status[role]);
			break;
		}
	}
	mutex_unlock(&bm->lock);
}

/*
 * A failed member's device is about to be closed: wait for bitmap block
 * I/O in flight, which may have chosen its members before the member
 * failed (the next one leaves it out).
 */
void lraid_bitmap_quiesce(struct lraid_array *a)
{
	if (!a->bm)
		return;
	mutex_lock(&a->bm->lock);
	mutex_unlock(&a->bm->lock);
}

/*
 * The array stops, no I/O in flight: no more clear passes. As md flushes
 * its bitmap at a clean stop, every bit is cleared when nothing needs it
 * (no role failed, parity known in sync), so that the next run starts
 * with none set; otherwise they stay for the resync or a returning member.
 */
void lraid_bitmap_stop(struct lraid_array *a)
{
	struct lraid_bitmap *bm = a->bm;
	u32 blk, r;

	if (!bm)
		return;
	cancel_delayed_work_sync(&bm->clear_work);
	if (READ_ONCE(a->failed) || READ_ONCE(a->unsynced) ||
	    !lraid_bm_weight(bm))
		return;
	mutex_lock(&bm->lock);
	for (r = 0; r < bm->nr_regions; r++)
		atomic_set(&bm->count[r], 0);
	for (blk = 0; blk < bm->nr_blocks; blk++) {
		memset(page_address(bm->blocks[blk]), 0, LRAID_BM_BLOCK);
		lraid_bm_write(bm, blk, 0);
	}
	mutex_unlock(&bm->lock);
}
