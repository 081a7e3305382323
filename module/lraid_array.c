// SPDX-License-Identifier: GPL-2.0
/*
 * lraid arrays: create, assemble, stop and fail; members; superblock I/O;
 * the gendisk. Everything here runs in process context, each command under
 * the lock of its array's index, except lraid_array_record_failed() from
 * a->fail_work; superblock writes take a->sb_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/raid/md_p.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "lraid.h"
#include "lraid_sb.h"
#include "uapi/lraid.h"

/* running arrays, guarded by lraid_ctl_mutex */
static struct lraid_array *lraid_arrays[LRAID_MAX_ARRAYS];

/*
 * Arrays being created or assembled, from before their members are opened
 * until they run (and move to lraid_arrays[]) or give up: their index
 * answers -EBUSY (lraid_array_find()). Guarded by lraid_ctl_mutex.
 */
static struct lraid_array *lraid_starting[LRAID_MAX_ARRAYS];

/*
 * One lock per index, held across a whole create, assemble, stop or fail
 * there, member I/O included. lraid_ctl_mutex is only ever held for a few
 * loads and stores, never across I/O: a member whose I/O does not complete
 * (dm-multipath with queue_if_no_path, NVMe-oF waiting for its path) stalls
 * the commands on its own array, not those on the others, nor info. Lock
 * order: index lock, then lraid_ctl_mutex; two index locks are never held
 * at once.
 */
static struct mutex lraid_index_mutex[LRAID_MAX_ARRAYS];
/* woken when an index lock is released or an index starts */
static DECLARE_WAIT_QUEUE_HEAD(lraid_index_wq);

void lraid_array_module_init(void)
{
	int i;

	for (i = 0; i < LRAID_MAX_ARRAYS; i++)
		mutex_init(&lraid_index_mutex[i]);
}

/*
 * Whether a wait for the lock of @index is over: *@ret is -EBUSY when a
 * create or assemble holds it (only the holder sets lraid_starting[] and
 * clears it before letting go), 0 when this task now holds it.
 */
static bool lraid_index_try(int index, int *ret)
{
	if (READ_ONCE(lraid_starting[index]))
		*ret = -EBUSY;
	else if (mutex_trylock(&lraid_index_mutex[index]))
		*ret = 0;
	else
		return false;
	return true;
}

/*
 * Take the lock of @index for a command there: -EBUSY as soon as the
 * index is being created or assembled (a create may zero its members for
 * hours), else wait, killably, for the command holding it (a stop whose
 * member does not answer).
 */
static int lraid_index_lock(int index)
{
	int ret = 0;

	if (wait_event_killable(lraid_index_wq, lraid_index_try(index, &ret)))
		return -EINTR;
	if (ret)
		pr_warn_ratelimited("lraid%d is being created or assembled\n",
				    index);
	return ret;
}

static void lraid_index_unlock(int index)
{
	mutex_unlock(&lraid_index_mutex[index]);
	wake_up_all(&lraid_index_wq);
}

static int lraid_spare_of(struct lraid_array *a, dev_t dev);
static unsigned int lraid_spares(const struct lraid_array *a);
static void lraid_spare_work(struct work_struct *work);

/*
 * Parity over a discarded stripe stays right only if every member reads
 * zeroes there afterwards. Without this promise (md's parameter of the same
 * name), full stripes are discarded with write-zeroes, which guarantees the
 * zeroes and lets members that can deallocate; arrays whose members lack
 * write-zeroes offer no discard. Read when an array starts.
 */
static bool devices_handle_discard_safely;
module_param(devices_handle_discard_safely, bool, 0644);
MODULE_PARM_DESC(devices_handle_discard_safely,
		 "Y if every member reads zeroes from discarded ranges: discard full stripes with discard, not write-zeroes");

/*
 * The running array at @index in *@ap; -EBUSY while a create or assemble
 * of that index is under way, -ENODEV when there is none.
 */
int lraid_array_find(int index, struct lraid_array **ap)
{
	lockdep_assert_held(&lraid_ctl_mutex);
	*ap = NULL;
	if (index < 0 || index >= LRAID_MAX_ARRAYS)
		return -ENODEV;
	if (lraid_starting[index])
		return -EBUSY;
	*ap = lraid_arrays[index];
	return *ap ? 0 : -ENODEV;
}

/*
 * Opens and stop are serialised by disk->open_mutex: once stop has seen
 * no opener and set a->stopping, no open succeeds (as md's MD_CLOSING),
 * so nothing can open the disk between that check and del_gendisk().
 */
int lraid_disk_open(struct gendisk *disk)
{
	struct lraid_array *a = disk->private_data;

	lockdep_assert_held(&disk->open_mutex);
	if (a->stopping)
		return -ENXIO;
	/* a mount or a device stacked now takes the flag as it is now */
	lraid_check_stable(a);
	return 0;
}

static const struct block_device_operations lraid_fops = {
	.owner = THIS_MODULE,
	.open = lraid_compat_open_op,
	.submit_bio = lraid_submit_bio,
};

/* Synchronous I/O of the 4 KiB block at @sector of @bdev. */
static int lraid_block_io(struct block_device *bdev, sector_t sector,
			  struct page *page, blk_opf_t opf)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, bdev, &bvec, 1, opf);
	bio.bi_iter.bi_sector = sector;
	__bio_add_page(&bio, page, LRAID_SB_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

/* The same for the superblock block, at sector 0. */
static int lraid_sb_io(struct block_device *bdev, struct page *page,
		       blk_opf_t opf)
{
	return lraid_block_io(bdev, 0, page, opf);
}

/* Close every open member; slots never opened (or missing) are skipped. */
static void lraid_members_close(struct lraid_array *a)
{
	unsigned int i;

	for (i = 0; i < LRAID_MAX_MEMBERS; i++)
		lraid_compat_close(&a->members[i].b);
}

/* Whether @b and @c share sectors: a disk and its own partition, say. */
static bool lraid_bdev_overlap(struct block_device *b, struct block_device *c)
{
	sector_t bs, cs;

	if (b->bd_disk != c->bd_disk)
		return false;
	if (!bdev_is_partition(b) || !bdev_is_partition(c))
		return true;
	bs = get_start_sect(b);
	cs = get_start_sect(c);
	return bs < cs + bdev_nr_sectors(c) && cs < bs + bdev_nr_sectors(b);
}

/* Index of an open member in @a->members[0..nr-1] overlapping @b, or -1. */
static int lraid_members_overlap(struct lraid_array *a, unsigned int nr,
				 struct block_device *b)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (lraid_bdev_overlap(a->members[i].b.bdev, b))
			return i;
	return -1;
}

/*
 * The exclusive open of @dev failed with -EBUSY: our own claim on an
 * overlapping member (a whole disk and one of its partitions) is one cause.
 * Look through a shared read-only open; -EINVAL when that is the reason.
 */
static int lraid_member_busy(struct lraid_array *a, unsigned int nr,
			     dev_t dev)
{
	struct lraid_bdev probe = {};
	int j;

	if (lraid_compat_open(dev, NULL, &probe))
		return -EBUSY;
	j = lraid_members_overlap(a, nr, probe.bdev);
	if (j >= 0)
		pr_warn_ratelimited("member %pg overlaps member %pg (a disk and its own partition): refused\n",
				    probe.bdev, a->members[j].b.bdev);
	lraid_compat_close(&probe);
	return j >= 0 ? -EINVAL : -EBUSY;
}

/*
 * Open @nr members exclusively with @a as holder, in the order given, into
 * a->members[0..nr-1]. Refuses duplicates, overlapping devices, lraid's own
 * disks and anything in use; on failure nothing stays open.
 */
static int lraid_members_open(struct lraid_array *a, unsigned int nr,
			      const dev_t *devs)
{
	unsigned int i, j;
	int ret;

	for (i = 0; i < nr; i++) {
		if (MAJOR(devs[i]) == lraid_major) {
			pr_warn_ratelimited("member %u:%u is an lraid array\n",
					    MAJOR(devs[i]), MINOR(devs[i]));
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (devs[i] == devs[j]) {
				pr_warn_ratelimited("member %u:%u given twice\n",
						    MAJOR(devs[i]),
						    MINOR(devs[i]));
				return -EINVAL;
			}
		}
	}
	for (i = 0; i < nr; i++) {
		struct lraid_member *m = &a->members[i];
		int k;

		ret = lraid_compat_open(devs[i], a, &m->b);
		if (ret == -EBUSY)
			ret = lraid_member_busy(a, i, devs[i]);
		if (ret == -EBUSY || (ret && ret != -EINVAL))
			pr_warn_ratelimited("cannot open member %u:%u exclusively: %d\n",
					    MAJOR(devs[i]), MINOR(devs[i]), ret);
		if (ret)
			goto out_close;
		k = lraid_members_overlap(a, i, m->b.bdev);
		if (k >= 0) {
			pr_warn_ratelimited("member %pg overlaps member %pg: refused\n",
					    m->b.bdev, a->members[k].b.bdev);
			ret = -EINVAL;
			goto out_close;
		}
		m->dev = devs[i];
		m->sectors = bdev_nr_sectors(m->b.bdev);
	}
	return 0;

out_close:
	lraid_members_close(a);
	return ret;
}

/* The superblock of slot @role: a member's, or past the roles a spare's. */
static void lraid_sb_fill(const struct lraid_array *a, struct lraid_sb_info *sb,
			  unsigned int role, u32 failed)
{
	const struct lraid_geom *g = &a->geom;

	memset(sb, 0, sizeof(*sb));
	memcpy(sb->uuid, a->uuid, sizeof(sb->uuid));
	strscpy(sb->name, a->name, sizeof(sb->name));
	sb->ctime = a->ctime;
	sb->utime = ktime_get_real_seconds();
	sb->events = a->events;
	sb->level = g->level;
	sb->layout = LRAID_LAYOUT_LEFT_SYMMETRIC;
	sb->chunk_sectors = g->chunk_sectors;
	sb->nr_members = g->nr_members;
	/* a slot past the roles holds a spare */
	sb->role = role < g->nr_members ? role : LRAID_SB_ROLE_SPARE;
	sb->state = a->clean ? LRAID_SB_STATE_CLEAN : 0;
	sb->data_offset = a->data_offset;
	sb->data_size = g->member_sectors;
	sb->dev_sectors = a->members[role].sectors;
	sb->recovery_offset = role < g->nr_members ? LRAID_SB_IN_SYNC : 0;
	sb->bitmap_offset = a->bitmap_offset;
	sb->bitmap_sectors = a->bitmap_sectors;
	sb->bitmap_region_sectors = a->bitmap_region_sectors;
	sb->failed_mask = failed;
	sb->feature_compat = a->feature_compat &
			     ~(LRAID_SB_FEAT_COMPAT_RESYNC |
			       LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS);
	if (a->bitmap_sectors && a->bitmap_events != U64_MAX) {
		sb->feature_compat |= LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS;
		sb->bitmap_events = a->bitmap_events;
	}
	/*
	 * Where a resync left off, kept only across a stop: written while
	 * the array runs, it would outlive a crash that left stripes below
	 * it out of sync.
	 */
	if (!a->clean && a->unsynced && a->at_rest &&
	    READ_ONCE(a->synced_stripes)) {
		sb->feature_compat |= LRAID_SB_FEAT_COMPAT_RESYNC;
		sb->resync_offset = READ_ONCE(a->synced_stripes) <<
				    g->chunk_shift;
	}
}

/*
 * Write the spares' superblocks at the count and with the failed set of
 * the pass that just wrote the members: a spare that cannot take it is
 * marked faulty (a->spare_bad), never used, and stays until removed, as
 * md's faulty spares. A spare is not a member: its errors never fail the
 * pass.
 */
static void lraid_spares_write(struct lraid_array *a, u32 failed)
{
	struct page *page = a->sb_page;
	unsigned int i;
	int err;

	lockdep_assert_held(&a->sb_mutex);
	for (i = a->geom.nr_members; i < LRAID_MAX_MEMBERS; i++) {
		if (!a->members[i].b.bdev || (a->spare_bad & BIT(i)))
			continue;
		lraid_sb_fill(a, a->sb_buf, i, failed);
		lraid_sb_encode(a->sb_buf, page_address(page));
		err = lraid_sb_io(a->members[i].b.bdev, page,
				  REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH |
				  REQ_FUA);
		if (!err)
			continue;
		pr_err("lraid%d: superblock write to spare %pg failed: %d; the spare is marked faulty\n",
		       a->index, a->members[i].b.bdev, err);
		WRITE_ONCE(a->spare_bad, a->spare_bad | BIT(i));
	}
}

/*
 * Write every surviving member's superblock from the array state (FUA).
 * @strict (create, assemble): an error fails the pass, but the other
 * members are still written, so that they stay one event apart at most
 * from the one that failed (which assembly then takes as fresh) instead
 * of a first part of the members moving on alone. Otherwise a member
 * that fails the write is marked failed, as md does (a member that cannot
 * record the array state cannot be trusted to hold it), and the others
 * are written again with that recorded: one bad member must not leave the
 * rest behind. Then it fails only if no member took the superblock.
 * Writes held for an unrecorded failed member (lraid_hold()) complete
 * once a pass records it. The superblocks record the failed set, or
 * *@record if given (lraid_array_start() undoing a start).
 */
static int lraid_sb_write_all(struct lraid_array *a, bool strict,
			      const u32 *record)
{
	struct lraid_sb_info *sb = a->sb_buf;
	struct page *page = a->sb_page;
	unsigned int i, written;
	u32 failed;
	bool again;
	int ret = 0, err;

	lockdep_assert_held(&a->sb_mutex);
	for (;;) {
		again = false;
		written = 0;
		failed = READ_ONCE(a->failed);
		/* bits may be cleared from now on (lraid_bitmap.c) */
		if (!(record ? *record : failed))
			a->bitmap_events = a->events;
		for (i = 0; i < a->geom.nr_members; i++) {
			if (failed & BIT(i))
				continue;
			lraid_sb_fill(a, sb, i, record ? *record : failed);
			lraid_sb_encode(sb, page_address(page));
			err = lraid_sb_io(a->members[i].b.bdev, page,
					  REQ_OP_WRITE | REQ_SYNC |
					  REQ_PREFLUSH | REQ_FUA);
			if (!err) {
				written++;
				continue;
			}
			pr_err("lraid%d: superblock write to %pg failed: %d\n",
			       a->index, a->members[i].b.bdev, err);
			if (strict) {
				ret = ret ?: err;
				continue;
			}
			ret = err;
			if (lraid_fail_member(a, i, true) > 0) {
				pr_crit("lraid%d: %pg (role %u) marked failed: its superblock cannot be written\n",
					a->index, a->members[i].b.bdev, i);
				again = true;
			}
		}
		if (!again)
			break;
		/*
		 * Only now: every member of one pass gets the same count, so
		 * a crash before the next pass ends leaves none two behind.
		 */
		a->events++;
	}
	lraid_spares_write(a, record ? *record : failed);
	if (strict && ret)
		return ret;
	if (written)
		ret = 0;
	else if (!ret)
		ret = -EIO;	/* no member left to take it */
	lraid_held_release(a, failed, written);
	return ret;
}

static int lraid_disk_add(struct lraid_array *a)
{
	const struct lraid_geom *g = &a->geom;
	u64 sdata = (u64)g->nr_data * g->chunk_sectors;
	struct lraid_limits l = {
		.logical_block_size = SECTOR_SIZE,
		.physical_block_size = SECTOR_SIZE,
		.io_min = g->chunk_sectors << SECTOR_SHIFT,
		.io_opt = (u32)sdata << SECTOR_SHIFT,
		.max_hw_sectors = 16384,
		.dma_alignment = SECTOR_SIZE - 1,
		/*
		 * Always, as md: a member may turn its cache on after the
		 * array starts (hdparm -W1, a dm table reload), and the
		 * block layer would strip flush and FUA before lraid saw
		 * them. A member without a cache completes them at once.
		 */
		.write_cache = true,
		.fua = true,
		.nowait = true,
		.stable_writes = lraid_stripe_stable_writes(a),
	};
	bool discard = true, wzeroes = true;
	struct gendisk *disk;
	unsigned int i;
	int ret;

	for (i = 0; i < g->nr_members; i++) {
		struct block_device *b = a->members[i].b.bdev;

		if (!b)		/* missing: assembled degraded */
			continue;
		l.logical_block_size = max(l.logical_block_size,
					   bdev_logical_block_size(b));
		l.physical_block_size = max(l.physical_block_size,
					    bdev_physical_block_size(b));
		/*
		 * Reads and zero-copy writes hand the caller's pages to the
		 * members: the block layer checks O_DIRECT buffers against
		 * lraid's alignment only (a 4Kn disk behind libata, dm-crypt
		 * with 4 KiB sectors: 4095).
		 */
		l.dma_alignment = max(l.dma_alignment, bdev_dma_alignment(b));
		if (!bdev_max_discard_sectors(b))
			discard = false;
		if (!bdev_write_zeroes_sectors(b))
			wzeroes = false;
		/* as md: REQ_NOWAIT (lraid_submit_gfp()) if all take it */
		if (!bdev_nowait(b))
			l.nowait = false;
	}
	l.physical_block_size = max(l.physical_block_size,
				    l.logical_block_size);
	if (discard && READ_ONCE(devices_handle_discard_safely))
		a->discard_op = REQ_OP_DISCARD;
	else if (wzeroes)
		a->discard_op = REQ_OP_WRITE_ZEROES;
	else
		a->discard_op = 0;
	if (discard && !a->discard_op)
		pr_info("lraid%d: no discard: members lack write-zeroes and devices_handle_discard_safely is N\n",
			a->index);
	if (a->discard_op) {
		l.max_discard_sectors = rounddown(UINT_MAX >> SECTOR_SHIFT, sdata);
		/*
		 * The block layer cuts a discard at the first multiple of
		 * the granularity (which must be a power of two) after its
		 * start. The largest power of two that divides the stripe
		 * width puts that cut on a stripe boundary, or before the
		 * first whole stripe, so no whole stripe is lost to it; md's
		 * stripe width rounded up would cut inside one when the
		 * number of data members is not a power of two.
		 */
		l.discard_granularity = (g->chunk_sectors << SECTOR_SHIFT) <<
					__ffs(g->nr_data);
	}
	if (wzeroes)
		l.max_write_zeroes_sectors =
			rounddown(UINT_MAX >> SECTOR_SHIFT, sdata);

	disk = lraid_compat_alloc_disk(&l, NUMA_NO_NODE);
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->major = lraid_major;
	disk->first_minor = a->index;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &lraid_fops;
	disk->private_data = a;
	snprintf(disk->disk_name, DISK_NAME_LEN, "lraid%d", a->index);
	set_capacity(disk, g->array_sectors);
	a->disk = disk;

	ret = device_add_disk(NULL, disk, lraid_attr_groups);
	if (ret) {
		a->disk = NULL;
		put_disk(disk);
		return ret;
	}
	lraid_sysfs_add(a);
	return 0;
}

/* Undo lraid_holders_link(). */
static void lraid_holders_unlink(struct lraid_array *a)
{
	unsigned long linked = a->linked;
	unsigned int i;

	for_each_set_bit(i, &linked, LRAID_MAX_MEMBERS)
		bd_unlink_disk_holder(a->members[i].b.bdev, a->disk);
	a->linked = 0;
}

/*
 * Show the stacking in sysfs as md and dm do: /sys/block/lraidN/slaves/
 * lists the present members and spares, and each one's holders/ names
 * lraidN, which is what lsblk draws its tree from. The API is kept for
 * md, dm, bcache and drbd, with no successor; without
 * CONFIG_BLOCK_HOLDER_DEPRECATED it is a stub and the links are absent.
 * Needs the disk added (its slaves directory exists from add_disk to
 * del_gendisk), so the disk is live by then and may have taken writes,
 * which a missing member of a degraded start did not get: a link that
 * cannot be made (no memory, a member's disk removed meanwhile) is only
 * logged, and the start goes on. The members are held open exclusively
 * either way.
 */
static void lraid_holders_link(struct lraid_array *a)
{
	unsigned int i;
	int ret;

	for (i = 0; i < LRAID_MAX_MEMBERS; i++) {
		struct block_device *b = a->members[i].b.bdev;

		if (!b)
			continue;
		ret = bd_link_disk_holder(b, a->disk);
		if (ret)
			pr_warn("lraid%d: cannot link holder of %pg: %d (sysfs will not show it under lraid%d)\n",
				a->index, b, ret, a->index);
		else
			a->linked |= BIT(i);
	}
}

/* Bring up the I/O machinery and the disk; members are open. */
static int lraid_array_run(struct lraid_array *a)
{
	int ret;

	a->win_sectors = lraid_win_sectors(&a->geom);
	ret = lraid_io_init(a);
	if (ret)
		return ret;
	ret = lraid_stripe_init(a);
	if (ret)
		goto out_io;
	ret = lraid_disk_add(a);
	if (ret)
		goto out_stripe;
	/* live from here on: nothing may fail the start any more */
	lraid_holders_link(a);
	lraid_bitmap_run(a);
	mutex_lock(&lraid_ctl_mutex);
	WRITE_ONCE(lraid_starting[a->index], NULL);
	lraid_arrays[a->index] = a;
	mutex_unlock(&lraid_ctl_mutex);
	return 0;

out_stripe:
	lraid_stripe_exit(a);
out_io:
	lraid_io_exit(a);
	return ret;
}

static void lraid_array_free(struct lraid_array *a)
{
	lraid_bitmap_free(a);
	mutex_destroy(&a->sb_mutex);
	mutex_destroy(&a->sync_mutex);
	if (a->sb_page)
		__free_page(a->sb_page);
	kfree(a->sb_buf);
	kfree(a);
}

/* Undo lraid_array_prepare(): the array never ran. */
static void lraid_array_abort(struct lraid_array *a)
{
	lraid_members_close(a);
	mutex_lock(&lraid_ctl_mutex);
	WRITE_ONCE(lraid_starting[a->index], NULL);
	mutex_unlock(&lraid_ctl_mutex);
	lraid_array_free(a);
}

/*
 * First step of create and assemble, under the index lock: refuse an index
 * in use, allocate the array, enter it in lraid_starting[] and open
 * @devs[0..nr-1] exclusively into a->members[0..nr-1]. Returns the array
 * or an ERR_PTR. Undo with lraid_array_abort().
 */
static struct lraid_array *lraid_array_prepare(int index, unsigned int nr,
					       const dev_t *devs)
{
	struct lraid_array *a;
	int ret = 0;

	lockdep_assert_held(&lraid_index_mutex[index]);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&lraid_ctl_mutex);
	if (lraid_arrays[index])
		ret = -EEXIST;
	else
		WRITE_ONCE(lraid_starting[index], a);
	mutex_unlock(&lraid_ctl_mutex);
	if (ret) {
		kfree(a);
		return ERR_PTR(ret);
	}
	/* commands waiting for this index now answer -EBUSY */
	wake_up_all(&lraid_index_wq);
	a->index = index;
	spin_lock_init(&a->held_lock);
	INIT_LIST_HEAD(&a->held);
	INIT_LIST_HEAD(&a->held_dranges);
	INIT_LIST_HEAD(&a->held_flushes);
	mutex_init(&a->sb_mutex);
	INIT_DELAYED_WORK(&a->spare_work, lraid_spare_work);
	lraid_sysfs_init(a);
	lraid_sync_init(a);
	/*
	 * Allocated up front: the pass that records a failed member releases
	 * the writes held for it, and reclaim could wait on those.
	 */
	a->sb_page = alloc_page(GFP_KERNEL);
	a->sb_buf = kmalloc(sizeof(*a->sb_buf), GFP_KERNEL);
	ret = a->sb_page && a->sb_buf ? 0 : -ENOMEM;
	if (!ret)
		ret = lraid_members_open(a, nr, devs);
	if (ret) {
		lraid_array_abort(a);
		return ERR_PTR(ret);
	}
	return a;
}

/*
 * Last step of create and assemble: record the array state (active) on
 * every usable member and bring the disk up; on failure undo everything
 * with lraid_array_abort(). @was_clean: the members' state before (true
 * for create). A failure after the active state was written writes
 * @was_clean back: lraid_array_run() fails only before the disk goes
 * live, so nothing was written through the array, parity is no staler
 * than it was, and a clean array does not become one that is refused
 * when assembled degraded. The failed set recorded is @undo_failed (the
 * roles recorded failed before, and those --force took back: not usable
 * without it) and the members that failed during the start (the first
 * superblock pass), but not the roles the start left out: a member
 * missing from a degraded start that never ran missed nothing, and must
 * not lose its place for good. The event count stays: a member that
 * could not take the first pass stays one event behind, not two (stale),
 * and the array assembles whole once it takes writes again.
 */
static int lraid_array_start(struct lraid_array *a, bool was_clean,
			     u32 undo_failed)
{
	u32 left_out = READ_ONCE(a->failed) & ~undo_failed, record;
	int ret;

	mutex_lock(&a->sb_mutex);
	ret = lraid_sb_write_all(a, true, NULL);
	mutex_unlock(&a->sb_mutex);
	if (!ret)
		ret = lraid_array_run(a);
	if (!ret)
		return 0;
	mutex_lock(&a->sb_mutex);
	a->clean = was_clean;
	a->at_rest = true;	/* nothing was written: keep resync_offset */
	record = (READ_ONCE(a->failed) & ~left_out) | undo_failed;
	if (lraid_sb_write_all(a, true, &record))
		pr_err("lraid%d: could not restore the superblocks after a failed start\n",
		       a->index);
	mutex_unlock(&a->sb_mutex);
	lraid_array_abort(a);
	return ret;
}

static int lraid_create_check(const struct lraid_create_args *args)
{
	unsigned int min_members = args->level == 6 ? 4 : 3;

	if ((args->level != 5 && args->level != 6) ||
	    args->nr_members < min_members ||
	    args->nr_members > LRAID_MAX_MEMBERS) {
		pr_warn_ratelimited("create: RAID%u with %u members is not supported\n",
				    args->level, args->nr_members);
		return -EINVAL;
	}
	if (!is_power_of_2(args->chunk_bytes) ||
	    args->chunk_bytes < LRAID_MIN_CHUNK_BYTES ||
	    args->chunk_bytes > LRAID_MAX_CHUNK_BYTES) {
		pr_warn_ratelimited("create: chunk %u is not a power of two in 4K..1M\n",
				    args->chunk_bytes);
		return -EINVAL;
	}
	if (args->data_offset && (args->data_offset & 7 ||
				  args->data_offset < 2 * LRAID_SB_SECTORS ||
				  args->data_offset > (1ULL << 32))) {
		pr_warn_ratelimited("create: data offset %llu is not 0 (default) or a multiple of 8 sectors in 16..2^32\n",
				    args->data_offset);
		return -EINVAL;
	}
	if (args->bitmap_region_bytes &&
	    (!is_power_of_2(args->bitmap_region_bytes) ||
	     args->bitmap_region_bytes < args->chunk_bytes ||
	     args->bitmap_region_bytes > LRAID_BITMAP_REGION_MAX)) {
		pr_warn_ratelimited("create: bitmap chunk %llu is not a power of two from the chunk (%u) to 2^40 bytes\n",
				    args->bitmap_region_bytes,
				    args->chunk_bytes);
		return -EINVAL;
	}
	return 0;
}

/*
 * Creating without --assume-clean zeroes every member's data area (all-zero
 * data has all-zero P and Q). One work item per member, so the members are
 * written at once; each goes in pieces of LRAID_ZERO_PIECE sectors and stops
 * between two pieces once asked to (the creator was killed, or another
 * member failed). Only the index lock is held meanwhile: on a large array
 * without write-zeroes offload this takes hours, and the other arrays must
 * stay manageable.
 */
#define LRAID_ZERO_PIECE	(SZ_128M >> SECTOR_SHIFT)

/*
 * Every create also clears what lies outside the data area where other
 * metadata keeps itself, as mdadm's create erases older md superblocks:
 * the first LRAID_WIPE_SECTORS behind the superblock (md 1.2, btrfs,
 * bcache, a GPT's entries, ZFS labels; lraid's own bitmap room) and the
 * last LRAID_WIPE_SECTORS of the member past the data area (md 0.90 and
 * 1.0, a backup GPT, ZFS and DDF at the end). Left there, blkid and
 * udev's mdadm rules would take the member for the older thing: md would
 * assemble it and resync over lraid's data. The data area itself is
 * zeroed or, with --assume-clean, left as it is but for md superblocks
 * (lraid_zero_md_ends()).
 */
#define LRAID_WIPE_SECTORS	(SZ_1M >> SECTOR_SHIFT)

struct lraid_zero;

struct lraid_zero_range {
	sector_t start, len;
};

struct lraid_zero_work {
	struct work_struct work;
	struct lraid_zero *z;
	struct block_device *bdev;
	unsigned int nr;			/* ranges in r[] */
	struct lraid_zero_range r[3];		/* head, tail, data area */
};

struct lraid_zero {
	struct lraid_array *a;
	bool data;			/* the data areas too */
	bool stop;			/* READ_ONCE: workers leave after a piece */
	int error;			/* first error, cmpxchg */
	atomic_t pending;		/* work items not finished */
	struct completion done;		/* pending reached zero */
	struct lraid_zero_work w[LRAID_MAX_MEMBERS];
};

/* Zero @r on @w's member; *@flags carries what the member taught. */
static int lraid_zero_range(struct lraid_zero_work *w,
			    const struct lraid_zero_range *r,
			    unsigned int *flags)
{
	sector_t done = 0;
	int ret;

	while (done < r->len && !READ_ONCE(w->z->stop)) {
		sector_t n = min_t(sector_t, r->len - done, LRAID_ZERO_PIECE);

		ret = blkdev_issue_zeroout(w->bdev, r->start + done, n,
					   GFP_KERNEL, *flags);
		/*
		 * Write-zeroes first, so that a failed one is seen (6.1 falls
		 * back to zero pages on any error). BLK_STS_TARGET with
		 * write-zeroes still offered is sd's answer for a disk that
		 * rejects the WRITE SAME with UNMAP it claimed (see
		 * lraid_unmap_refused()): ask it not to unmap, from now on.
		 * No write-zeroes (any more): zero pages.
		 */
		if (ret == -EREMOTEIO && !(*flags & BLKDEV_ZERO_NOUNMAP) &&
		    bdev_write_zeroes_sectors(w->bdev)) {
			*flags |= BLKDEV_ZERO_NOUNMAP;
			continue;
		}
		if (ret == -EOPNOTSUPP && (*flags & BLKDEV_ZERO_NOFALLBACK)) {
			*flags &= ~BLKDEV_ZERO_NOFALLBACK;
			continue;
		}
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

/*
 * Whether @p, read at @sector of a member, is an md superblock that blkid
 * and mdadm would take: metadata 0.90 (@v1 false) or 1.0 (its own offset
 * recorded in it).
 */
static bool lraid_md_sb(const void *p, bool v1, sector_t sector)
{
	const struct mdp_superblock_1 *sb1 = p;
	const mdp_super_t *sb0 = p;

	if (v1)
		return le32_to_cpu(sb1->magic) == MD_SB_MAGIC &&
		       le32_to_cpu(sb1->major_version) == 1 &&
		       le64_to_cpu(sb1->super_offset) == sector;
	return sb0->md_magic == MD_SB_MAGIC && sb0->major_version == 0;
}

/*
 * Without the zeroing of the data area (--assume-clean), md's superblocks
 * at the end of a member (0.90 and 1.0) lie inside the data area on every
 * member whose data area reaches its last chunk: erase each one found
 * there, as mdadm's create does. Its stripe then disagrees with parity
 * until it is written, which --assume-clean takes on anyway.
 */
static int lraid_zero_md_ends(struct lraid_zero_work *w)
{
	struct lraid_array *a = w->z->a;
	sector_t dev = bdev_nr_sectors(w->bdev);
	sector_t end = a->data_offset + a->geom.member_sectors;
	sector_t at[2] = { lraid_md090_sector(dev), lraid_md10_sector(dev) };
	struct page *page;
	unsigned int i;
	int ret = 0;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(at) && !ret; i++) {
		if (dev < LRAID_MD_END_MIN_SECTORS || at[i] < a->data_offset ||
		    at[i] + LRAID_SB_SECTORS > end)
			continue;
		ret = lraid_block_io(w->bdev, at[i], page,
				     REQ_OP_READ | REQ_SYNC);
		if (ret || !lraid_md_sb(page_address(page), i, at[i]))
			continue;
		memset(page_address(page), 0, LRAID_SB_SIZE);
		ret = lraid_block_io(w->bdev, at[i], page,
				     REQ_OP_WRITE | REQ_SYNC);
		if (!ret)
			pr_info("lraid%d: erased an md %s superblock in %pg's data area\n",
				a->index, i ? "1.0" : "0.90", w->bdev);
	}
	__free_page(page);
	return ret;
}

static void lraid_zero_fn(struct work_struct *work)
{
	struct lraid_zero_work *w = container_of(work, struct lraid_zero_work,
						 work);
	struct lraid_zero *z = w->z;
	unsigned int flags = BLKDEV_ZERO_NOFALLBACK, i;
	int ret = 0;

	for (i = 0; i < w->nr && !ret; i++)
		ret = lraid_zero_range(w, &w->r[i], &flags);
	if (!ret && !z->data && !READ_ONCE(z->stop))
		ret = lraid_zero_md_ends(w);
	if (ret) {
		pr_err("create: writing zeroes to %pg failed: %d\n", w->bdev,
		       ret);
		cmpxchg(&z->error, 0, ret);
		WRITE_ONCE(z->stop, true);
	}
	if (atomic_dec_and_test(&z->pending))
		complete(&z->done);
}

/*
 * The ranges @w's member gets zeroed by lraid_create_zero(): the metadata
 * places outside the data area (LRAID_WIPE_SECTORS), and the data area if
 * the create zeroes it.
 */
static void lraid_zero_ranges(struct lraid_zero_work *w)
{
	struct lraid_array *a = w->z->a;
	sector_t head = LRAID_SB_SECTORS;
	sector_t end = a->data_offset + a->geom.member_sectors;
	sector_t dev = bdev_nr_sectors(w->bdev);
	sector_t tail = max(end, dev > LRAID_WIPE_SECTORS ?
				 dev - LRAID_WIPE_SECTORS : 0);

	w->nr = 0;
	w->r[w->nr++] = (struct lraid_zero_range){
		head, min_t(sector_t, a->data_offset, LRAID_WIPE_SECTORS) - head
	};
	if (dev > tail)
		w->r[w->nr++] = (struct lraid_zero_range){ tail, dev - tail };
	if (w->z->data)
		w->r[w->nr++] = (struct lraid_zero_range){
			a->data_offset, a->geom.member_sectors
		};
}

/* What lraid_create_probe() writes where a member's superblock goes. */
struct lraid_probe {
	u8 tag[16];
	__le32 role;
};

/*
 * Two names for one storage (two loop devices on one file, two paths to
 * one LUN, two device-mapper maps of one range) pass every check made on
 * the devices, and their roles would overwrite each other from the first
 * write on. Each member gets a block naming its role where its superblock
 * goes (create writes that block anyway), then every block is read back:
 * a member that reads another role's block shares its storage.
 */
static int lraid_create_probe(struct lraid_array *a)
{
	unsigned int i, r, nr = a->geom.nr_members;
	struct block_device *b;
	struct lraid_probe *p;
	struct page *page;
	u8 tag[16];
	bool ours;
	int ret = 0;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	p = page_address(page);
	get_random_bytes(tag, sizeof(tag));
	memcpy(p->tag, tag, sizeof(tag));
	for (i = 0; i < nr && !ret; i++) {
		b = a->members[i].b.bdev;
		p->role = cpu_to_le32(i);
		ret = lraid_sb_io(b, page, REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
		if (ret)
			pr_err("create: writing the first block of %pg failed: %d\n",
			       b, ret);
	}
	for (i = 0; i < nr && !ret; i++) {
		b = a->members[i].b.bdev;
		ret = lraid_sb_io(b, page, REQ_OP_READ | REQ_SYNC);
		if (ret) {
			pr_err("create: reading the first block of %pg failed: %d\n",
			       b, ret);
			break;
		}
		r = le32_to_cpu(p->role);
		ours = !memcmp(p->tag, tag, sizeof(tag));
		if (ours && r == i)
			continue;
		if (ours && r < nr)
			pr_warn_ratelimited("create: %pg and %pg are the same storage: role %u reads what was written to role %u\n",
					    b, a->members[r].b.bdev, i, r);
		else
			pr_warn_ratelimited("create: %pg does not read back what was written to it\n",
					    b);
		ret = -EINVAL;
	}
	__free_page(page);
	return ret;
}

/*
 * Erase every member's superblock block, then zero, on all members in
 * parallel, the places of other metadata around the data area and, with
 * @data, the data area (lraid_zero_ranges()). The erase comes first so
 * that an interrupted or failed create does not leave an older superblock
 * describing data now partly zeroed. Returns -EINTR if the caller is
 * killed while it waits.
 */
static int lraid_create_zero(struct lraid_array *a, bool data)
{
	unsigned int i, nr = a->geom.nr_members;
	struct workqueue_struct *wq;
	struct lraid_zero *z;
	struct page *page;
	u64 t0 = ktime_get_ns();
	int ret = 0;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	for (i = 0; i < nr && !ret; i++) {
		ret = lraid_sb_io(a->members[i].b.bdev, page,
				  REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
		if (ret)
			pr_err("create: erasing the superblock of %pg failed: %d\n",
			       a->members[i].b.bdev, ret);
	}
	__free_page(page);
	if (ret)
		return ret;

	z = kzalloc(sizeof(*z), GFP_KERNEL);
	wq = alloc_workqueue("lraid%d_zero", WQ_UNBOUND, nr, a->index);
	if (!z || !wq) {
		ret = -ENOMEM;
		goto out;
	}
	z->a = a;
	z->data = data;
	atomic_set(&z->pending, nr);
	init_completion(&z->done);
	if (data)
		pr_info("lraid%d: zeroing %u members, %llu MiB each (interrupt to abort)\n",
			a->index, nr,
			(u64)a->geom.member_sectors >> (20 - SECTOR_SHIFT));
	for (i = 0; i < nr; i++) {
		z->w[i].z = z;
		z->w[i].bdev = a->members[i].b.bdev;
		lraid_zero_ranges(&z->w[i]);
		INIT_WORK(&z->w[i].work, lraid_zero_fn);
		queue_work(wq, &z->w[i].work);
	}
	if (wait_for_completion_killable(&z->done)) {
		WRITE_ONCE(z->stop, true);
		wait_for_completion(&z->done);
		cmpxchg(&z->error, 0, -EINTR);
	}
	ret = z->error;
	if (ret == -EINTR)
		pr_info("lraid%d: create interrupted while zeroing members\n",
			a->index);
	else if (!ret && data)
		pr_info("lraid%d: members zeroed in %llu s\n", a->index,
			div_u64(ktime_get_ns() - t0, NSEC_PER_SEC));
out:
	if (wq)
		destroy_workqueue(wq);
	kfree(z);
	return ret;
}

static int __lraid_array_create(const struct lraid_create_args *args)
{
	struct lraid_sb_info sb = {};
	struct lraid_array *a;
	u64 min_sectors = U64_MAX;
	unsigned int i;
	int ret;

	a = lraid_array_prepare(args->index, args->nr_members, args->devs);
	if (IS_ERR(a))
		return PTR_ERR(a);
	for (i = 0; i < args->nr_members; i++)
		min_sectors = min_t(u64, min_sectors, a->members[i].sectors);

	sb.level = args->level;
	sb.nr_members = args->nr_members;
	sb.chunk_sectors = args->chunk_bytes >> SECTOR_SHIFT;
	sb.layout = LRAID_LAYOUT_LEFT_SYMMETRIC;
	sb.data_offset = args->data_offset;
	sb.bitmap_region_sectors = args->bitmap_region_bytes >> SECTOR_SHIFT;
	ret = lraid_sb_plan(&sb, min_sectors, args->bitmap);
	if (ret == -ENOSPC && args->bitmap && min_sectors >= sb.data_offset &&
	    sb.data_size) {
		pr_warn_ratelimited("create: a bitmap chunk of %llu bytes needs more bits than the %llu sectors before the data offset hold\n",
				    args->bitmap_region_bytes,
				    sb.data_offset - LRAID_SB_SECTORS);
		goto out_abort;
	}
	if (!ret)
		ret = lraid_geom_init(&a->geom, args->level, args->nr_members,
				      args->chunk_bytes, sb.data_size);
	if (ret == -EFBIG) {
		pr_warn_ratelimited("create: members too large (%llu sectors): the array would exceed %llu sectors\n",
				    min_sectors, LRAID_MAX_ARRAY_SECTORS);
		goto out_abort;
	}
	if (ret) {
		pr_warn_ratelimited("create: members too small (%llu sectors) for the layout: %d\n",
				    min_sectors, ret);
		goto out_abort;
	}
	a->data_offset = sb.data_offset;
	a->bitmap_offset = sb.bitmap_offset;
	a->bitmap_sectors = sb.bitmap_sectors;
	a->bitmap_region_sectors = sb.bitmap_region_sectors;
	snprintf(a->name, sizeof(a->name), "lraid%d", a->index);
	generate_random_uuid(a->uuid);
	a->ctime = ktime_get_real_seconds();
	a->events = 1;
	a->clean = false;

	/*
	 * Parity must match the data before the array is used. Only the
	 * index lock is held meanwhile: the index answers -EBUSY, everything
	 * else stays usable, and the members are ours already (opened
	 * exclusively). An initial background resync instead of zeroing is
	 * future work.
	 */
	ret = lraid_create_probe(a);
	if (ret)
		goto out_abort;
	ret = lraid_create_zero(a, !args->assume_clean);
	if (!ret)
		ret = lraid_bitmap_create(a);
	if (ret)
		goto out_abort;
	ret = lraid_array_start(a, true, 0);
	if (ret)
		return ret;
	pr_info("lraid%d: created RAID%u, %u members, chunk %u KiB, %llu sectors\n",
		args->index, args->level, args->nr_members,
		args->chunk_bytes >> 10, (u64)a->geom.array_sectors);
	return 0;

out_abort:
	lraid_array_abort(a);
	return ret;
}

int lraid_array_create(const struct lraid_create_args *args)
{
	int ret;

	ret = lraid_create_check(args);
	if (ret)
		return ret;
	ret = lraid_index_lock(args->index);
	if (ret)
		return ret;
	ret = __lraid_array_create(args);
	lraid_index_unlock(args->index);
	return ret;
}

/* Read, decode and size-check the superblocks of the members as opened. */
static int lraid_assemble_read(struct lraid_array *a, unsigned int nr,
			       struct lraid_sb_info *sbs)
{
	struct page *page = alloc_page(GFP_KERNEL);
	const char *why = "";
	unsigned int i;
	int ret = 0;

	if (!page)
		return -ENOMEM;
	for (i = 0; i < nr && !ret; i++) {
		struct block_device *b = a->members[i].b.bdev;

		ret = lraid_sb_io(b, page, REQ_OP_READ | REQ_SYNC);
		if (ret) {
			pr_warn_ratelimited("assemble: cannot read superblock of %pg: %d\n",
					    b, ret);
			break;
		}
		ret = lraid_sb_decode(page_address(page), &sbs[i], &why);
		if (ret) {
			pr_warn_ratelimited("assemble: %pg: %s\n", b, why);
		} else if (sbs[i].ro_only) {
			pr_warn_ratelimited("assemble: %pg needs read-only use, not supported\n",
					    b);
			ret = -EOPNOTSUPP;
		} else if (sbs[i].dev_sectors > a->members[i].sectors ||
			   sbs[i].data_offset + sbs[i].data_size >
			   a->members[i].sectors) {
			pr_warn_ratelimited("assemble: %pg is smaller than its superblock says\n",
					    b);
			ret = -EINVAL;
		}
	}
	__free_page(page);
	return ret;
}

/*
 * Put the spares among the @nr devices offered (read into a->members[] and
 * @sbs) last, in both, keeping the order otherwise; returns how many.
 */
static unsigned int lraid_assemble_split(struct lraid_array *a,
					 unsigned int nr,
					 struct lraid_sb_info *sbs)
{
	unsigned int i, m = 0, ns = 0;
	struct lraid_sb_info sb;
	struct lraid_member mb;

	for (i = 0; i < nr; i++)
		ns += lraid_sb_is_spare(&sbs[i]);
	/* a stable partition by rotation: members move up to slot m */
	for (i = 0; i < nr; i++) {
		if (lraid_sb_is_spare(&sbs[i]))
			continue;
		if (i != m) {
			sb = sbs[i];
			mb = a->members[i];
			memmove(&sbs[m + 1], &sbs[m], (i - m) * sizeof(sb));
			memmove(&a->members[m + 1], &a->members[m],
				(i - m) * sizeof(mb));
			sbs[m] = sb;
			a->members[m] = mb;
		}
		m++;
	}
	return ns;
}

/*
 * The spares in @sbs[@nr..@nr+@ns-1] must belong with the members, whose
 * newest superblock is @ref (lraid_sb_spare_mismatch()): a spare of
 * another array offered here is a mistake to report, not to skip.
 */
static int lraid_assemble_spares_check(struct lraid_array *a, unsigned int nr,
				       unsigned int ns,
				       const struct lraid_sb_info *sbs,
				       const struct lraid_sb_info *ref)
{
	const char *why;
	unsigned int i;

	for (i = nr; i < nr + ns; i++) {
		why = lraid_sb_spare_mismatch(&sbs[i], ref);
		if (!why)
			continue;
		pr_warn_ratelimited("assemble: spare %pg: %s\n",
				    a->members[i].b.bdev, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * Give the @ns spares in @sp their slots past the @nr_members roles; one
 * that finds no slot left (the ioctl's limit of members and spares) is
 * closed.
 */
static void lraid_assemble_spares_place(struct lraid_array *a,
					struct lraid_member *sp,
					unsigned int ns,
					unsigned int nr_members)
{
	unsigned int i;

	for (i = 0; i < ns; i++) {
		if (nr_members + i < LRAID_MAX_MEMBERS) {
			a->members[nr_members + i] = sp[i];
			continue;
		}
		pr_warn("lraid%d: no room for spare %pg: %u members and %u spares at most\n",
			a->index, sp[i].b.bdev, nr_members,
			LRAID_MAX_MEMBERS - nr_members);
		lraid_compat_close(&sp[i].b);
	}
}

/*
 * Decide which offered members serve the array (lraid_sb_check_set()):
 * members left behind, members more than one event behind the newest of
 * the others (they missed writes) and roles recorded failed are not used,
 * their devices are released; parts that ran apart are refused.
 * Refuses when more roles are unusable than the level survives, unless
 * @force: then, as mdadm --assemble --force, the freshest of those are used
 * too until the level can run. Leaves a->members[] in role order, the
 * unusable roles in a->failed and those --force took back in *@forced.
 */
static int lraid_assemble_roles(struct lraid_array *a, unsigned int nr,
				unsigned int ns,
				const struct lraid_sb_info *sbs,
				unsigned int newest, bool force, u32 *forced)
{
	unsigned int i, other, fresh, strict, resume, readd = nr;
	struct lraid_member *tmp;
	struct lraid_sb_roles r;
	const char *why = "";
	u32 recorded;
	int ret;

	ret = lraid_sb_check_set(sbs, nr, &fresh, &why);
	if (ret && ret != -ENODEV) {
		pr_warn_ratelimited("assemble: %s\n", why);
		if (!strcmp(why, LRAID_SB_WHY_SPLIT) &&
		    lraid_sb_split(sbs, nr, &i, &other))
			pr_warn_ratelimited("assemble: %pg (role %u) and %pg (role %u) record each other failed, both at events %llu\n",
					    a->members[i].b.bdev, sbs[i].role,
					    a->members[other].b.bdev,
					    sbs[other].role, sbs[i].events);
		return ret;
	}
	strict = fresh;
	if (ret && force)
		lraid_sb_force(sbs, nr, &fresh);
	lraid_sb_roles(sbs, nr, fresh, &r);
	/* -ENODEV means too many unusable roles: only --force changes that */
	if (ret && hweight32(r.unusable) <= r.tolerate)
		ret = 0;
	recorded = lraid_sb_failed(sbs, nr);
	resume = ret ? nr : lraid_sb_resumable(sbs, nr, r.failed, force);
	if (!ret && resume == nr)
		readd = lraid_sb_readdable(sbs, nr, r.unusable, force);
	for (i = 0; i < nr; i++) {
		if (i == resume)
			pr_info("lraid%d: %pg (role %u) was being rebuilt when the array stopped, up to sector %llu of %llu: the rebuild goes on from there\n",
				a->index, a->members[i].b.bdev, sbs[i].role,
				sbs[i].recovery_offset, sbs[i].data_size);
		else if (i == readd)
			pr_info("lraid%d: %pg (role %u) left the array at events %llu, since the write-intent bits were last cleared (%llu): re-added, rebuilding the regions written while it was out\n",
				a->index, a->members[i].b.bdev, sbs[i].role,
				sbs[i].events, sbs[newest].bitmap_events);
		else if (!ret && ((fresh & ~strict) & BIT(i)))
			pr_warn("lraid%d: --force: using %pg (role %u), events %llu, array at %llu%s; blocks written while it was out read back old\n",
				a->index, a->members[i].b.bdev, sbs[i].role,
				sbs[i].events, sbs[newest].events,
				recorded & BIT(sbs[i].role) ?
				", recorded failed" : "");
		else if ((r.stale & BIT(sbs[i].role)) &&
			 !lraid_sb_in_sync(&sbs[i]))
			pr_warn_ratelimited("lraid%d: %pg (role %u) is stale: rebuilt only up to sector %llu; not used\n",
					    a->index, a->members[i].b.bdev,
					    sbs[i].role, sbs[i].recovery_offset);
		else if (r.stale & BIT(sbs[i].role))
			pr_warn_ratelimited("lraid%d: %pg (role %u) is stale (not fresh): events %llu, array at %llu; not used\n",
					    a->index, a->members[i].b.bdev,
					    sbs[i].role, sbs[i].events,
					    sbs[newest].events);
		else if (r.failed & BIT(sbs[i].role))
			pr_warn_ratelimited("lraid%d: %pg (role %u) is stale: recorded failed; not used\n",
					    a->index, a->members[i].b.bdev,
					    sbs[i].role);
	}
	if (ret) {
		pr_warn_ratelimited("lraid%d: not assembled: RAID%u with %u members has %u missing, %u failed and %u stale roles; it survives at most %u\n",
				    a->index, sbs[newest].level,
				    sbs[newest].nr_members, hweight32(r.missing),
				    hweight32(r.failed), hweight32(r.stale),
				    r.tolerate);
		return ret;
	}

	tmp = kmemdup(a->members, sizeof(a->members), GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	memset(a->members, 0, sizeof(a->members));
	lraid_assemble_spares_place(a, tmp + nr, ns, sbs[newest].nr_members);
	*forced = 0;
	for (i = 0; i < nr; i++) {
		if (i == resume || i == readd) {
			/*
			 * In its slot, the role failed until rebuilt, and
			 * written from the first write of the run on, as a
			 * member being rebuilt: the part below
			 * recovery_offset, or outside the dirty regions, is
			 * not rebuilt again.
			 */
			a->members[sbs[i].role] = tmp[i];
			a->resume_role = sbs[i].role;
			a->resume_readd = i == readd;
			a->resume_sector = i == readd ? 0 :
					   sbs[i].recovery_offset;
			set_bit(sbs[i].role, &a->added);
			set_bit(sbs[i].role, &a->rebuilding);
			continue;
		}
		if (!(fresh & BIT(i))) {
			lraid_compat_close(&tmp[i].b);
			continue;
		}
		a->members[sbs[i].role] = tmp[i];
		if (!(strict & BIT(i)))
			*forced |= BIT(sbs[i].role);
	}
	kfree(tmp);
	a->failed = r.unusable;
	return 0;
}

/*
 * Claim the UUID of superblock @ref for @a: -EBUSY when that array already
 * runs or another assemble has claimed it (as md, which refuses an array
 * whose UUID is active): with RAID6 on four members, two disjoint pairs
 * would each start degraded and go their own ways. Until @a runs or gives
 * up, other assembles see the claim in lraid_starting[].
 */
static int lraid_assemble_claim(struct lraid_array *a,
				const struct lraid_sb_info *ref)
{
	const struct lraid_array *b;
	int i, ret = 0;

	mutex_lock(&lraid_ctl_mutex);
	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		b = lraid_arrays[i];
		if (!b && lraid_starting[i] && lraid_starting[i]->uuid_claimed)
			b = lraid_starting[i];
		if (!b || memcmp(b->uuid, ref->uuid, sizeof(ref->uuid)))
			continue;
		pr_warn_ratelimited("lraid%d: array %pU already %s lraid%d\n",
				    a->index, ref->uuid,
				    b == lraid_arrays[i] ? "runs as" :
				    "is being assembled as", i);
		ret = -EBUSY;
		break;
	}
	if (!ret) {
		memcpy(a->uuid, ref->uuid, sizeof(a->uuid));
		a->uuid_claimed = true;
	}
	mutex_unlock(&lraid_ctl_mutex);
	return ret;
}

/*
 * Go on with the rebuild a stop interrupted (lraid_sb_resumable()), or
 * re-add a member the bitmap covers (lraid_sb_readdable()): the member is
 * in its slot, its role failed and marked rebuilding since before the
 * disk went live (lraid_assemble_roles()), so every write of this run
 * reached it, as an added member's (lraid_array_add()).
 */
static void lraid_array_resume(struct lraid_array *a)
{
	unsigned int role = a->resume_role;

	mutex_lock(&a->sync_mutex);
	a->resume_role = U8_MAX;
	mutex_unlock(&a->sync_mutex);
	if (lraid_sync_recover(a, role, a->resume_readd, a->resume_sector)) {
		clear_bit(role, &a->rebuilding);
		pr_warn("lraid%d: the rebuild of role %u could not go on (a pass runs): lraidctl add rebuilds it\n",
			a->index, role);
	}
}

static int __lraid_array_assemble(int index, unsigned int nr,
				  const dev_t *devs, bool force)
{
	struct lraid_sb_info *sbs, *ref;
	struct lraid_array *a;
	unsigned int newest, ns;
	u32 forced;
	bool clean, unsynced;
	int ret;

	sbs = kcalloc(nr, sizeof(*sbs), GFP_KERNEL);
	if (!sbs)
		return -ENOMEM;
	a = lraid_array_prepare(index, nr, devs);
	if (IS_ERR(a)) {
		kfree(sbs);
		return PTR_ERR(a);
	}
	ret = lraid_assemble_read(a, nr, sbs);
	if (ret)
		goto out_abort;
	ns = lraid_assemble_split(a, nr, sbs);
	nr -= ns;
	if (!nr) {
		pr_warn_ratelimited("assemble: only spares offered, no member\n");
		ret = -EINVAL;
		goto out_abort;
	}
	newest = lraid_sb_newest(sbs, nr);
	ref = &sbs[newest];
	ret = lraid_assemble_spares_check(a, nr, ns, sbs, ref);
	if (ret)
		goto out_abort;
	/*
	 * A run adds far fewer than 2^32 events; starting closer than that
	 * to the limit could write superblocks that no longer decode.
	 */
	if (ref->events > LRAID_SB_EVENTS_MAX - U32_MAX) {
		pr_warn_ratelimited("assemble: event count %llu too close to its limit\n",
				    ref->events);
		ret = -EINVAL;
		goto out_abort;
	}
	ret = lraid_assemble_claim(a, ref);
	if (ret)
		goto out_abort;
	ret = lraid_assemble_roles(a, nr, ns, sbs, newest, force, &forced);
	if (ret)
		goto out_abort;
	clean = ref->state & LRAID_SB_STATE_CLEAN;
	if (!clean && a->failed && !force) {
		pr_warn_ratelimited("lraid%d: not starting: not stopped cleanly and degraded (failed roles %#x): parity of stripes written at the time may be stale, so the blocks of the failed roles could be rebuilt wrong; --force starts it\n",
				    index, a->failed);
		ret = -EUCLEAN;
		goto out_abort;
	}
	ret = lraid_sb_geom(ref, &a->geom);
	if (ret == -EFBIG) {
		pr_warn_ratelimited("assemble: the array would exceed %llu sectors\n",
				    LRAID_MAX_ARRAY_SECTORS);
		goto out_abort;
	}
	if (ret) {
		pr_warn_ratelimited("assemble: bad geometry\n");
		goto out_abort;
	}
	a->ctime = ref->ctime;
	a->data_offset = ref->data_offset;
	a->bitmap_offset = ref->bitmap_offset;
	a->bitmap_sectors = ref->bitmap_sectors;
	a->bitmap_region_sectors = ref->bitmap_region_sectors;
	/* 0: written by an lraid that kept the bit but not the field */
	a->bitmap_events = (ref->feature_compat &
			    LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS) &&
			   ref->bitmap_events ? ref->bitmap_events : U64_MAX;
	a->feature_compat = ref->feature_compat;
	strscpy(a->name, ref->name, sizeof(a->name));
	a->events = ref->events + 1;
	if (!clean && a->failed)
		pr_warn("lraid%d: --force: starting not stopped cleanly and degraded; blocks of failed roles %#x in stripes written at the time may read back wrong\n",
			index, a->failed);
	else if (!clean)
		pr_warn("lraid%d: array was not stopped cleanly (or not resynced since): parity of stripes written at the time may be stale until a resync\n",
			index);
	a->clean = false;
	/*
	 * Members --force took back missed writes that parity holds: their
	 * stripes disagree with it as after a crash.
	 */
	a->unsynced = !clean || forced;
	/* a resync stopped there at the last stop; not past members --force took */
	if (!clean && !forced &&
	    (ref->feature_compat & LRAID_SB_FEAT_COMPAT_RESYNC))
		a->synced_stripes = ref->resync_offset >> a->geom.chunk_shift;
	/* the bits cover what a crash left stale, not what --force took */
	ret = lraid_bitmap_load(a, forced);
	if (ret)
		goto out_abort;
	ret = lraid_array_start(a, clean, lraid_sb_failed(sbs, nr) | forced);
	if (ret)
		goto out_free;
	if (a->failed)
		pr_warn("lraid%d: assembled RAID%u degraded, %u of %u members, failed roles %#x, events %llu\n",
			index, a->geom.level,
			a->geom.nr_members - hweight32(a->failed),
			a->geom.nr_members, a->failed, a->events);
	else
		pr_info("lraid%d: assembled RAID%u, %u members, events %llu\n",
			index, a->geom.level, nr, a->events);
	if (ns)
		pr_info("lraid%d: %u spare%s\n", index, lraid_spares(a),
			lraid_spares(a) == 1 ? "" : "s");
	mutex_lock(&a->sb_mutex);
	unsynced = a->unsynced;
	mutex_unlock(&a->sb_mutex);
	if (unsynced && !READ_ONCE(a->failed))
		lraid_sync_resync(a);
	if (a->resume_role != U8_MAX)
		lraid_array_resume(a);
	else
		lraid_spare_kick(a);
	kfree(sbs);
	return 0;

out_abort:
	lraid_array_abort(a);
out_free:
	kfree(sbs);
	return ret;
}

int lraid_array_assemble(int index, unsigned int nr, const dev_t *devs,
			 bool force)
{
	int ret;

	ret = lraid_index_lock(index);
	if (ret)
		return ret;
	ret = __lraid_array_assemble(index, nr, devs, force);
	lraid_index_unlock(index);
	return ret;
}

/*
 * Before the clean state is written anywhere, every surviving member's
 * write cache holds nothing of the run: the superblocks go one member
 * after the other, and a power cut between two of them must not leave a
 * clean superblock on one member while another loses cached data or
 * parity (the array would then be trusted clean when assembled degraded).
 * A member that fails its flush may have lost cached writes: it is
 * marked failed, as for a failed write, and the superblock pass that
 * follows records it.
 */
static void lraid_members_flush(struct lraid_array *a)
{
	unsigned int i;
	int err;

	for (i = 0; i < a->geom.nr_members; i++) {
		struct block_device *b = a->members[i].b.bdev;

		if (!b || (READ_ONCE(a->failed) & BIT(i)))
			continue;
		err = blkdev_issue_flush(b);
		if (err && lraid_fail_member(a, i, true) > 0)
			pr_crit("lraid%d: %pg (role %u) marked failed: its write cache could not be flushed (%d)\n",
				a->index, b, i, err);
	}
	if (lraid_array_lost(a))
		pr_crit("lraid%d: more members failed than parity covers: the array has failed\n",
			a->index);
}

/*
 * The stop ended a full rebuild (a->resume_role, lraid_sync.c): the new
 * member's superblock records its role failed, as the others do, how far
 * the rebuild got (recovery_offset) and the count the others now hold,
 * after a flush of what the rebuild wrote to it. Only when the stop marks
 * the array clean: the next assemble with it goes on from there
 * (lraid_sb_resumable()). After a crash the member holds no superblock
 * of this run and is added again.
 */
static void lraid_sb_write_resume(struct lraid_array *a)
{
	const struct lraid_geom *g = &a->geom;
	unsigned int role = a->resume_role;
	u32 failed = READ_ONCE(a->failed);
	struct block_device *b;
	int err;

	lockdep_assert_held(&a->sb_mutex);
	if (role >= g->nr_members || !a->clean || !(failed & BIT(role)) ||
	    !a->members[role].b.bdev)
		return;
	b = a->members[role].b.bdev;
	lraid_sb_fill(a, a->sb_buf, role, failed);
	a->sb_buf->recovery_offset = a->resume_sector;
	lraid_sb_encode(a->sb_buf, page_address(a->sb_page));
	err = lraid_sb_io(b, a->sb_page, REQ_OP_WRITE | REQ_SYNC |
			  REQ_PREFLUSH | REQ_FUA);
	if (err)
		pr_warn("lraid%d: cannot record on %pg how far the rebuild of role %u got (%d): the next add rebuilds it from the start\n",
			a->index, b, role, err);
	else
		pr_info("lraid%d: rebuild of role %u onto %pg stopped at sector %llu of %llu: assembled with it, the array goes on from there\n",
			a->index, role, b, a->resume_sector,
			(unsigned long long)g->member_sectors);
}

static void lraid_array_teardown(struct lraid_array *a)
{
	lraid_holders_unlink(a);
	lraid_sysfs_remove(a);
	lraid_sync_stop(a);
	/* sync_dead is set: the work is not queued again */
	cancel_delayed_work_sync(&a->spare_work);
	del_gendisk(a->disk);
	lraid_io_quiesce(a);
	lraid_bitmap_stop(a);
	lraid_stripe_exit(a);
	lraid_io_exit(a);
	lraid_members_flush(a);
	mutex_lock(&a->sb_mutex);
	a->events++;
	a->clean = !a->unsynced;
	a->at_rest = true;
	if (lraid_sb_write_all(a, false, NULL))
		pr_err("lraid%d: could not mark the array clean\n", a->index);
	lraid_sb_write_resume(a);
	mutex_unlock(&a->sb_mutex);
	if (a->unsynced)
		pr_warn("lraid%d: left marked not clean: no complete repair pass resynced parity after the unclean shutdown or the --force start\n",
			a->index);
	lraid_members_close(a);
	put_disk(a->disk);
	pr_info("lraid%d: stopped\n", a->index);
	lraid_array_free(a);
}

/*
 * Call @fn for every running array, under lraid_ctl_mutex: an array is
 * taken off the list before its teardown starts, so @fn sees none being
 * torn down. @fn must not sleep long, nor take an index lock.
 */
void lraid_array_for_each(void (*fn)(struct lraid_array *a))
{
	int i;

	mutex_lock(&lraid_ctl_mutex);
	for (i = 0; i < LRAID_MAX_ARRAYS; i++)
		if (lraid_arrays[i])
			fn(lraid_arrays[i]);
	mutex_unlock(&lraid_ctl_mutex);
}

/*
 * Take the lock of @index and find its running array in *@ap: 0 with the
 * lock held (lraid_index_unlock() when done), or an error with it let go.
 */
static int lraid_array_lock(int index, struct lraid_array **ap)
{
	int ret = lraid_index_lock(index);

	if (ret)
		return ret;
	mutex_lock(&lraid_ctl_mutex);
	ret = lraid_array_find(index, ap);
	mutex_unlock(&lraid_ctl_mutex);
	if (ret)
		lraid_index_unlock(index);
	return ret;
}

/*
 * Stop: the array leaves lraid_arrays[] (info says -ENODEV) before the
 * teardown, which writes the superblocks and may wait on members for long;
 * the index lock keeps the index until the members are closed.
 */
int lraid_array_stop(int index)
{
	struct lraid_array *a;
	int ret;

	ret = lraid_array_lock(index, &a);
	if (ret)
		return ret;
	/*
	 * Not under lraid_ctl_mutex: the last close of the disk syncs it
	 * under open_mutex, which can wait on a member for long.
	 */
	mutex_lock(&a->disk->open_mutex);
	if (disk_openers(a->disk))
		ret = -EBUSY;
	else
		a->stopping = true;
	mutex_unlock(&a->disk->open_mutex);
	if (ret) {
		pr_warn_ratelimited("lraid%d: in use, not stopping\n", index);
		goto out;
	}
	mutex_lock(&lraid_ctl_mutex);
	lraid_arrays[index] = NULL;
	mutex_unlock(&lraid_ctl_mutex);
	lraid_array_teardown(a);
out:
	lraid_index_unlock(index);
	return ret;
}

/*
 * The role of the open member @dev of @a, or -ENODEV (logged for @cmd);
 * -EBUSY for a spare.
 */
static int lraid_member_of(struct lraid_array *a, dev_t dev, const char *cmd)
{
	unsigned int i;
	int slot;

	for (i = 0; i < a->geom.nr_members; i++)
		if (a->members[i].b.bdev && a->members[i].dev == dev)
			return i;
	slot = lraid_spare_of(a, dev);
	if (slot >= 0) {
		pr_warn_ratelimited("lraid%d: %s: %pg is a spare, not a member: remove takes it out\n",
				    a->index, cmd, a->members[slot].b.bdev);
		return -EBUSY;
	}
	pr_warn_ratelimited("lraid%d: %s: %u:%u is not a member\n", a->index,
			    cmd, MAJOR(dev), MINOR(dev));
	return -ENODEV;
}

/*
 * Mark the member @dev failed. The new mask is published with WRITE_ONCE:
 * bios and ops that sampled the old mask may still send I/O to the member,
 * which is harmless (an administrative fail leaves the device working, and
 * windows are serialized, so an op started later sees every earlier write
 * in the survivors' parity). The survivors' superblocks record the set.
 */
int lraid_array_fail(int index, dev_t dev)
{
	struct lraid_array *a;
	unsigned int i, tolerate;
	int ret;

	ret = lraid_array_lock(index, &a);
	if (ret)
		return ret;
	ret = lraid_member_of(a, dev, "fail");
	if (ret < 0)
		goto out;
	i = ret;
	ret = lraid_fail_member(a, i, false);
	if (ret == 0)
		goto out;
	if (ret < 0) {
		tolerate = a->geom.level == 6 ? 2 : 1;
		pr_warn_ratelimited("lraid%d: not failing %pg: RAID%u survives at most %u failed member%s\n",
				    index, a->members[i].b.bdev, a->geom.level,
				    tolerate, tolerate > 1 ? "s" : "");
		goto out;
	}
	pr_warn("lraid%d: member %pg (role %u) marked failed, array degraded\n",
		index, a->members[i].b.bdev, i);
	ret = lraid_array_record_failed(a);
out:
	lraid_index_unlock(index);
	return ret;
}

/* Module exit: the control device is gone, so no command is under way. */
void lraid_array_stop_all(void)
{
	struct lraid_array *a;
	int i;

	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		mutex_lock(&lraid_index_mutex[i]);
		mutex_lock(&lraid_ctl_mutex);
		a = lraid_arrays[i];
		lraid_arrays[i] = NULL;
		mutex_unlock(&lraid_ctl_mutex);
		if (a)
			lraid_array_teardown(a);
		mutex_unlock(&lraid_index_mutex[i]);
	}
}

/*
 * Write the failed set to the surviving members' superblocks: after
 * lraid_array_fail() and from a->fail_work (a member error in the I/O
 * path). Not under the index lock from a->fail_work: stop holds that
 * while it waits for the writes this releases (lraid_hold()).
 */
int lraid_array_record_failed(struct lraid_array *a)
{
	int ret;

	mutex_lock(&a->sb_mutex);
	a->events++;
	ret = lraid_sb_write_all(a, false, NULL);
	if (ret)
		pr_err("lraid%d: could not record the failed member\n", a->index);
	lraid_sysfs_changed(a);
	mutex_unlock(&a->sb_mutex);
	lraid_spare_kick(a);
	return ret;
}

/*
 * Hold every stripe of @a with @d (lraid_drange_begin()): once it returns,
 * no write piece, degraded read or full-stripe discard is in flight, and
 * those that come wait until lraid_drange_end().
 */
static void lraid_hold_all(struct lraid_array *a, struct lraid_drange *d)
{
	memset(d, 0, sizeof(*d));
	d->a = a;
	d->s0 = 0;
	d->s1 = a->geom.nr_stripes;
	lraid_drange_begin(a, d);
}

/*
 * Before a failed role's slot changes device (add, remove): no read
 * sampled a->failed before the role failed and may still send a piece to
 * the slot (lraid_read() samples it once per bio and may sleep before it
 * sends, but always inside lraid's submit_bio, which a frozen queue
 * waits out and holds off), and nothing that takes windows or ranges is
 * in flight (lraid_hold_all()). Frozen first: a submitter may wait for
 * write pieces that the range would park. lraid_unquiesce() undoes it.
 */
static void lraid_quiesce(struct lraid_array *a, struct lraid_drange *d)
{
	blk_mq_freeze_queue(a->disk->queue);
	lraid_hold_all(a, d);
}

static void lraid_unquiesce(struct lraid_array *a, struct lraid_drange *d)
{
	lraid_drange_end(a, d);
	blk_mq_unfreeze_queue(a->disk->queue);
}

/*
 * Close the device in @role's slot, if any, and its holder link; the slot
 * is then empty, as a member missing at assembly. Quiesced.
 */
static void lraid_slot_empty(struct lraid_array *a, unsigned int role)
{
	struct lraid_member *mb = &a->members[role];

	/* bitmap block I/O that chose its members before the role failed */
	lraid_bitmap_quiesce(a);
	if (a->linked & BIT(role)) {
		bd_unlink_disk_holder(mb->b.bdev, a->disk);
		a->linked &= ~BIT(role);
	}
	lraid_compat_close(&mb->b);
	mb->dev = 0;
	mb->sectors = 0;
	clear_bit(role, &a->added);
}

/*
 * Can @b take a role of @a: is it large enough, and does it take what the
 * array sends its members (the array's limits were set from the members
 * it started with)? 0, or a negative errno with the reason logged.
 */
static int lraid_add_fits(struct lraid_array *a, struct block_device *b)
{
	struct block_device *self = a->disk->part0;
	const char *why = NULL;

	if (bdev_nr_sectors(b) < a->data_offset + a->geom.member_sectors) {
		pr_warn_ratelimited("lraid%d: add: %pg has %llu sectors, the data area needs %llu\n",
				    a->index, b, (u64)bdev_nr_sectors(b),
				    a->data_offset + a->geom.member_sectors);
		return -ENOSPC;
	}
	if (bdev_logical_block_size(b) > bdev_logical_block_size(self))
		why = "has larger logical blocks than the array";
	else if (bdev_dma_alignment(b) > bdev_dma_alignment(self))
		why = "needs a stricter buffer alignment than the array";
	else if (bdev_nowait(self) && !bdev_nowait(b))
		why = "does not take REQ_NOWAIT, which the array passes on";
	else if (bdev_write_zeroes_sectors(self) &&
		 !bdev_write_zeroes_sectors(b))
		why = "does not take write-zeroes, which the array offers";
	else if (a->discard_op == REQ_OP_DISCARD &&
		 !test_bit(LRAID_REFUSED_DISCARD, &a->refused) &&
		 !bdev_max_discard_sectors(b))
		why = "does not take discard, which the array passes on";
	if (!why)
		return 0;
	pr_warn_ratelimited("lraid%d: add: %pg %s\n", a->index, b, why);
	return -EINVAL;
}

/*
 * Is @b another name for the storage of a present member other than
 * @role (two loop devices on one file, say)? A tag goes where @b's
 * superblock goes, and every other member's superblock block is read:
 * one that reads the tag was overwritten by it, and gets its superblock
 * back at once. 0, -EINVAL if so, or an I/O error.
 */
static int lraid_add_probe(struct lraid_array *a, unsigned int role,
			   struct block_device *b)
{
	struct page *page;
	u8 tag[16];
	unsigned int i;
	int ret, hit = -1;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	get_random_bytes(tag, sizeof(tag));
	memcpy(page_address(page), tag, sizeof(tag));
	ret = lraid_sb_io(b, page, REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
	for (i = 0; i < LRAID_MAX_MEMBERS && !ret && hit < 0; i++) {
		struct block_device *m = a->members[i].b.bdev;

		/* failed roles and faulty spares need not answer */
		if (i == role || !m || ((READ_ONCE(a->failed) |
					 READ_ONCE(a->spare_bad)) & BIT(i)))
			continue;
		ret = lraid_sb_io(m, page, REQ_OP_READ | REQ_SYNC);
		if (!ret && !memcmp(page_address(page), tag, sizeof(tag)))
			hit = i;
	}
	__free_page(page);
	if (hit < 0)
		return ret;
	if ((unsigned int)hit >= a->geom.nr_members)
		pr_warn_ratelimited("lraid%d: add: %pg is the same storage as spare %pg: refused\n",
				    a->index, b, a->members[hit].b.bdev);
	else
		pr_warn_ratelimited("lraid%d: add: %pg is the same storage as member %pg (role %u): refused\n",
				    a->index, b, a->members[hit].b.bdev, hit);
	mutex_lock(&a->sb_mutex);
	a->events++;
	if (lraid_sb_write_all(a, false, NULL))
		pr_err("lraid%d: could not write the superblocks back\n",
		       a->index);
	mutex_unlock(&a->sb_mutex);
	return -EINVAL;
}

/*
 * Erase @b's superblock block and the places of other metadata outside
 * the data area, as create does: until its rebuild ends the new member
 * carries no superblock, so an assemble after a crash or stop meanwhile
 * leaves it out; and no older array is assembled from it by udev.
 */
static int lraid_add_wipe(struct lraid_array *a, struct block_device *b)
{
	struct lraid_zero *z;
	struct page *page;
	int ret;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	z = kzalloc(sizeof(*z), GFP_KERNEL);
	if (!page || !z) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lraid_sb_io(b, page, REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
	if (ret) {
		pr_err("lraid%d: add: erasing the superblock of %pg failed: %d\n",
		       a->index, b, ret);
		goto out;
	}
	z->a = a;
	atomic_set(&z->pending, 1);
	init_completion(&z->done);
	z->w[0].z = z;
	z->w[0].bdev = b;
	lraid_zero_ranges(&z->w[0]);
	lraid_zero_fn(&z->w[0].work);
	ret = z->error;
out:
	kfree(z);
	if (page)
		__free_page(page);
	return ret;
}

/*
 * The role @dev is to take: the failed role it is the device of, or the
 * lowest failed role. -EBUSY if it is an active member, or if no role is
 * failed.
 */
static int lraid_add_role(struct lraid_array *a, dev_t dev)
{
	u32 failed = READ_ONCE(a->failed);
	unsigned int i;

	for (i = 0; i < a->geom.nr_members; i++) {
		if (!a->members[i].b.bdev || a->members[i].dev != dev)
			continue;
		if (failed & BIT(i))
			return i;
		pr_warn_ratelimited("lraid%d: add: %pg is an active member (role %u)\n",
				    a->index, a->members[i].b.bdev, i);
		return -EBUSY;
	}
	if (!failed) {
		pr_warn_ratelimited("lraid%d: add: the array is not degraded: no role to rebuild\n",
				    a->index);
		return -EBUSY;
	}
	return __ffs(failed);
}

/*
 * Open @dev for @role of @a into *@nb, exclusively with @a as holder,
 * unless it is the failed device already in that slot (*@nb stays
 * empty). Refuses lraid's own disks and a device overlapping a member.
 */
static int lraid_add_open(struct lraid_array *a, unsigned int role, dev_t dev,
			  struct lraid_bdev *nb)
{
	unsigned int i;
	int ret;

	if (a->members[role].b.bdev && a->members[role].dev == dev)
		return 0;
	if (MAJOR(dev) == lraid_major) {
		pr_warn_ratelimited("lraid%d: add: %u:%u is an lraid array\n",
				    a->index, MAJOR(dev), MINOR(dev));
		return -EINVAL;
	}
	ret = lraid_compat_open(dev, a, nb);
	if (ret) {
		pr_warn_ratelimited("lraid%d: add: cannot open %u:%u exclusively: %d\n",
				    a->index, MAJOR(dev), MINOR(dev), ret);
		return ret;
	}
	for (i = 0; i < LRAID_MAX_MEMBERS; i++) {
		struct block_device *m = a->members[i].b.bdev;

		if (i == role || !m || !lraid_bdev_overlap(m, nb->bdev))
			continue;
		if (i >= a->geom.nr_members)
			pr_warn_ratelimited("lraid%d: add: %pg overlaps spare %pg: refused\n",
					    a->index, nb->bdev, m);
		else
			pr_warn_ratelimited("lraid%d: add: %pg overlaps member %pg (role %u): refused\n",
					    a->index, nb->bdev, m, i);
		lraid_compat_close(nb);
		return -EINVAL;
	}
	return 0;
}

/*
 * Is @b a member of @a that left it in sync at or after the last pass with
 * every role working (a->bitmap_events), so that the write-intent bitmap
 * records every write it missed? Its superblock in @info (decoded, or
 * info->events 0), read into @page. *@role: the role to give it, changed
 * only for a re-add (true): if @move, to the one its superblock names when
 * that is failed, has no device and the old one's device (if any) does not
 * overlap @b. A plain add keeps the role lraid_add_role() chose, whose
 * slot the caller fills.
 */
#define LRAID_WHY_RAN_APART \
	"it records roles failed that the array has working: it ran apart from it"

static bool lraid_add_readd(struct lraid_array *a, struct block_device *b,
			    struct page *page, struct lraid_sb_info *info,
			    unsigned int *role, bool move)
{
	struct block_device *old = a->members[*role].b.bdev;
	const struct lraid_geom *g = &a->geom;
	unsigned int to = *role;
	const char *why = "";

	memset(info, 0, sizeof(*info));
	if (lraid_sb_io(b, page, REQ_OP_READ | REQ_SYNC) ||
	    lraid_sb_decode(page_address(page), info, &why) ||
	    memcmp(info->uuid, a->uuid, sizeof(a->uuid))) {
		info->events = 0;
		return false;
	}
	if (move && info->role != *role && info->role < g->nr_members &&
	    (READ_ONCE(a->failed) & BIT(info->role)) &&
	    !test_bit(info->role, &a->rebuilding) &&
	    !a->members[info->role].b.bdev &&
	    (!old || !lraid_bdev_overlap(old, b)))
		to = info->role;
	if (!a->bm || info->role != to || !lraid_sb_in_sync(info) ||
	    info->level != g->level || info->nr_members != g->nr_members ||
	    info->chunk_sectors != g->chunk_sectors ||
	    info->data_offset != a->data_offset ||
	    info->data_size != g->member_sectors)
		return false;
	/*
	 * It ran apart from the array (started degraded without roles the
	 * array has working, e.g. half of a RAID6 started alone): it took
	 * writes the array's bitmap does not record.
	 */
	if (info->failed_mask & ~READ_ONCE(a->failed))
		return false;
	mutex_lock(&a->sb_mutex);
	why = info->events < a->bitmap_events || info->events > a->events ?
	      "" : NULL;
	mutex_unlock(&a->sb_mutex);
	if (why)
		return false;
	*role = to;
	return true;
}

static int __lraid_array_add(struct lraid_array *a, dev_t dev,
			     bool readd_only);

/* The spare slot holding @dev, or -ENODEV. */
static int lraid_spare_of(struct lraid_array *a, dev_t dev)
{
	unsigned int i;

	for (i = a->geom.nr_members; i < LRAID_MAX_MEMBERS; i++)
		if (a->members[i].b.bdev && a->members[i].dev == dev)
			return i;
	return -ENODEV;
}

/* How many spares @a holds, faulty ones included. */
static unsigned int lraid_spares(const struct lraid_array *a)
{
	unsigned int i, n = 0;

	for (i = a->geom.nr_members; i < LRAID_MAX_MEMBERS; i++)
		n += !!a->members[i].b.bdev;
	return n;
}

/*
 * Does an add of @dev make a spare? When no role waits for a device (none
 * failed, or every failed one is being rebuilt), or a pass runs: as md,
 * which keeps such a device as a spare. Not the device of a failed role
 * (adding it back rebuilds it, once the pass is over) nor an active
 * member's (refused by lraid_add_role()).
 */
static bool lraid_add_spare_wanted(struct lraid_array *a, dev_t dev)
{
	unsigned int i;

	for (i = 0; i < a->geom.nr_members; i++)
		if (a->members[i].b.bdev && a->members[i].dev == dev)
			return false;
	return lraid_sync_busy(a) ||
	       !(READ_ONCE(a->failed) & ~(u32)READ_ONCE(a->rebuilding));
}

/*
 * Keep @dev as a spare of @a: checked as an added member is (size, limits,
 * not the same storage as a member or spare), cleared of old metadata,
 * then given a superblock that names the array and no role. A role that
 * fails later is rebuilt onto it (a->spare_work). -ENOSPC when the slots
 * past the roles are all taken (the info ioctl lists LRAID_MAX_MEMBERS
 * devices at most).
 */
static int lraid_spare_add(struct lraid_array *a, dev_t dev)
{
	struct lraid_bdev nb = {};
	struct lraid_member *mb;
	struct block_device *b;
	unsigned int slot;
	int ret;

	for (slot = a->geom.nr_members; slot < LRAID_MAX_MEMBERS; slot++)
		if (!a->members[slot].b.bdev)
			break;
	if (slot == LRAID_MAX_MEMBERS) {
		pr_warn_ratelimited("lraid%d: add: no room for another spare: %u members and %u spares at most\n",
				    a->index, a->geom.nr_members,
				    LRAID_MAX_MEMBERS - a->geom.nr_members);
		return -ENOSPC;
	}
	ret = lraid_add_open(a, slot, dev, &nb);
	if (ret)
		return ret;
	b = nb.bdev;
	ret = lraid_add_fits(a, b);
	if (!ret)
		ret = lraid_add_probe(a, slot, b);
	if (!ret)
		ret = lraid_add_wipe(a, b);
	if (ret)
		goto out_close;
	mutex_lock(&a->sb_mutex);
	mb = &a->members[slot];
	mb->b = nb;
	mb->dev = dev;
	mb->sectors = bdev_nr_sectors(b);
	atomic_set(&mb->read_errors, 0);
	WRITE_ONCE(a->spare_bad, a->spare_bad & ~BIT(slot));
	lraid_sb_fill(a, a->sb_buf, slot, READ_ONCE(a->failed));
	lraid_sb_encode(a->sb_buf, page_address(a->sb_page));
	ret = lraid_sb_io(b, a->sb_page, REQ_OP_WRITE | REQ_SYNC |
			  REQ_PREFLUSH | REQ_FUA);
	if (ret)
		memset(mb, 0, sizeof(*mb));
	else
		lraid_sysfs_changed(a);
	mutex_unlock(&a->sb_mutex);
	if (ret) {
		pr_err("lraid%d: add: superblock write to %pg failed: %d; not kept as a spare\n",
		       a->index, b, ret);
		goto out_close;
	}
	if (!bd_link_disk_holder(b, a->disk))
		a->linked |= BIT(slot);
	pr_info("lraid%d: %pg added as a spare\n", a->index, b);
	/* a role failed while a pass ran: once the pass ends */
	lraid_spare_kick(a);
	return 0;

out_close:
	lraid_compat_close(&nb);
	return ret;
}

/*
 * Take the spare in @slot out of @a, its holder link and superblock
 * (zeroed, so that no later assemble takes it back) with it, and close
 * it, as mdadm --remove of a spare. Under the index lock.
 */
static void lraid_spare_remove(struct lraid_array *a, unsigned int slot)
{
	struct lraid_member sp;
	struct page *page;
	int ret = -ENOMEM;

	mutex_lock(&a->sb_mutex);
	sp = a->members[slot];
	memset(&a->members[slot], 0, sizeof(sp));
	WRITE_ONCE(a->spare_bad, a->spare_bad & ~BIT(slot));
	lraid_sysfs_changed(a);
	mutex_unlock(&a->sb_mutex);
	if (a->linked & BIT(slot)) {
		bd_unlink_disk_holder(sp.b.bdev, a->disk);
		a->linked &= ~BIT(slot);
	}
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (page) {
		ret = lraid_sb_io(sp.b.bdev, page,
				  REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
		__free_page(page);
	}
	if (ret)
		pr_warn("lraid%d: spare %pg removed; erasing its superblock failed: %d\n",
			a->index, sp.b.bdev, ret);
	else
		pr_info("lraid%d: spare %pg removed, its superblock erased\n",
			a->index, sp.b.bdev);
	lraid_compat_close(&sp.b);
}

/*
 * Give @role's slot the device @nm (its holder link made if @linked), or
 * keep the one there if @nm is NULL, and start rebuilding the role onto
 * it (a re-add if @readd): quiesced (lraid_quiesce()), so that no read
 * that sampled a->failed before the role failed reaches the device,
 * which holds nothing yet, and every write piece or discard that starts
 * afterwards sees a->rebuilding. 0, or lraid_sync_recover()'s error with
 * the role left failed. Under the index lock.
 */
static int lraid_slot_rebuild(struct lraid_array *a, unsigned int role,
			      const struct lraid_member *nm, bool linked,
			      bool readd)
{
	struct lraid_member *mb = &a->members[role];
	struct lraid_drange all;
	int ret;

	lraid_quiesce(a, &all);
	if (nm) {
		lraid_slot_empty(a, role);
		*mb = *nm;
		if (linked)
			a->linked |= BIT(role);
	}
	atomic_set(&mb->read_errors, 0);
	set_bit(role, &a->added);
	set_bit(role, &a->rebuilding);
	lraid_unquiesce(a, &all);
	ret = lraid_sync_recover(a, role, readd, 0);
	if (ret)
		clear_bit(role, &a->rebuilding);
	return ret;
}

/*
 * Give the lowest failed role that no rebuild serves a device, as md does
 * when a member fails or a pass ends: the device added for it, if one
 * sits in its slot (its rebuild stopped when another member failed:
 * lraid_array_add() starts it again, from the start), else the first
 * working spare, which replaces the failed device in the slot (closed: it
 * is no longer part of the array). Under the index lock; nothing while a
 * pass runs (the end of the pass kicks a->spare_work again).
 */
static void lraid_spare_take(struct lraid_array *a)
{
	struct lraid_member sp, *mb;
	struct block_device *old;
	unsigned int role, slot;
	bool linked;
	u32 todo;
	int ret;

again:
	if (lraid_array_lost(a) || lraid_sync_busy(a))
		return;
	todo = READ_ONCE(a->failed) & ~(u32)READ_ONCE(a->rebuilding);
	if (!todo)
		return;
	role = __ffs(todo);
	mb = &a->members[role];
	if (test_bit(role, &a->added) && mb->b.bdev) {
		pr_info("lraid%d: rebuilding role %u onto %pg again\n",
			a->index, role, mb->b.bdev);
		if (__lraid_array_add(a, mb->dev, false)) {
			clear_bit(role, &a->added);
			goto again;
		}
		return;
	}
	for (slot = a->geom.nr_members; slot < LRAID_MAX_MEMBERS; slot++)
		if (a->members[slot].b.bdev &&
		    !(READ_ONCE(a->spare_bad) & BIT(slot)))
			break;
	if (slot == LRAID_MAX_MEMBERS)
		return;
	ret = lraid_add_wipe(a, a->members[slot].b.bdev);
	if (ret) {
		pr_err("lraid%d: spare %pg marked faulty\n", a->index,
		       a->members[slot].b.bdev);
		mutex_lock(&a->sb_mutex);
		WRITE_ONCE(a->spare_bad, a->spare_bad | BIT(slot));
		mutex_unlock(&a->sb_mutex);
		goto again;
	}
	mutex_lock(&a->sb_mutex);
	sp = a->members[slot];
	memset(&a->members[slot], 0, sizeof(sp));
	lraid_sysfs_changed(a);
	mutex_unlock(&a->sb_mutex);
	linked = a->linked & BIT(slot);
	a->linked &= ~BIT(slot);

	/* the slot changes only under the index lock, which is held */
	old = mb->b.bdev;
	if (old)
		pr_info("lraid%d: %pg (role %u) released: spare %pg takes its role\n",
			a->index, old, role, sp.b.bdev);
	if (!lraid_slot_rebuild(a, role, &sp, linked, false))
		pr_info("lraid%d: spare %pg takes role %u, rebuilding it from the other members\n",
			a->index, mb->b.bdev, role);
}

static void lraid_spare_work(struct work_struct *work)
{
	struct lraid_array *a = container_of(to_delayed_work(work),
					     struct lraid_array, spare_work);

	/*
	 * A command holds the index (stop among them, which waits for this
	 * work with it held): try again shortly, unless a stop has begun.
	 */
	if (!mutex_trylock(&lraid_index_mutex[a->index])) {
		mutex_lock(&a->sync_mutex);
		if (!a->sync_dead)
			queue_delayed_work(system_long_wq, &a->spare_work,
					   HZ / 10);
		mutex_unlock(&a->sync_mutex);
		return;
	}
	lraid_spare_take(a);
	lraid_index_unlock(a->index);
}

/*
 * A member failed, a pass ended, a spare came or the array started: let
 * a->spare_work see whether a failed role can be rebuilt. Under
 * sync_mutex, which orders it against the stop (sync_dead, then the work
 * is cancelled).
 */
void __lraid_spare_kick(struct lraid_array *a)
{
	lockdep_assert_held(&a->sync_mutex);
	if (!a->sync_dead &&
	    (READ_ONCE(a->failed) & ~(u32)READ_ONCE(a->rebuilding)))
		queue_delayed_work(system_long_wq, &a->spare_work, 0);
}

void lraid_spare_kick(struct lraid_array *a)
{
	mutex_lock(&a->sync_mutex);
	__lraid_spare_kick(a);
	mutex_unlock(&a->sync_mutex);
}

/*
 * Add @dev to the degraded array @a, as mdadm --add: it takes a failed
 * or missing role (lraid_add_role()) and a rebuild pass writes the role's
 * blocks to it from the other members (lraid_sync_recover()) while the
 * array serves I/O; lraid_array_recovered() marks the role working at the
 * end. The slot is given the device quiesced (lraid_quiesce()): no read
 * that sampled a->failed before the role failed can reach the new device,
 * which holds nothing yet, and every write piece or discard that starts
 * afterwards sees a->rebuilding.
 *
 * A member of this array that left it recently enough (lraid_add_readd())
 * is re-added, as mdadm --add and --re-add do with a bitmap: its
 * superblock and bitmap area are kept as they are, and the rebuild goes
 * over the regions whose write-intent bit is set only. Interrupted, it is
 * still such a member (the bits stay set while the role is failed), and
 * the next add of it goes on from the bits. @readd_only: refuse any other
 * device with -ESTALE.
 *
 * Added to an array with no role to rebuild, or while a pass runs, the
 * device becomes a spare (lraid_spare_add()), as with mdadm --add. Under
 * the index lock.
 */
static int __lraid_array_add(struct lraid_array *a, dev_t dev,
			     bool readd_only)
{
	struct lraid_sb_info *info = NULL;
	struct page *page = NULL;
	bool readd = false;
	struct lraid_bdev nb = {};
	struct lraid_member nm = {};
	struct lraid_member *mb;
	struct block_device *b;
	int index = a->index;
	unsigned int role;
	int ret;

	if (lraid_array_lost(a)) {
		pr_warn_ratelimited("lraid%d: add: more members failed than parity covers: nothing to rebuild from\n",
				    index);
		return -EIO;
	}
	ret = lraid_spare_of(a, dev);
	if (ret >= 0) {
		pr_warn_ratelimited("lraid%d: add: %pg is a spare of the array already\n",
				    index, a->members[ret].b.bdev);
		return -EBUSY;
	}
	if (!readd_only && lraid_add_spare_wanted(a, dev))
		return lraid_spare_add(a, dev);
	if (lraid_sync_busy(a)) {
		pr_warn_ratelimited("lraid%d: add: a %s pass runs (sync_action): wait for it, or write idle\n",
				    index, READ_ONCE(a->sync_action) ==
				    LRAID_SYNC_RECOVER ? "recover" : "parity");
		return -EBUSY;
	}
	ret = lraid_add_role(a, dev);
	if (ret < 0)
		return ret;
	role = ret;
	mb = &a->members[role];
	ret = lraid_add_open(a, role, dev, &nb);
	if (ret)
		return ret;
	b = nb.bdev ?: mb->b.bdev;
	info = kmalloc(sizeof(*info), GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	if (!info || !page) {
		ret = -ENOMEM;
		goto out_close;
	}
	if (lraid_add_readd(a, b, page, info, &role, nb.bdev)) {
		readd = true;
		mb = &a->members[role];
	} else if (readd_only) {
		pr_warn_ratelimited("lraid%d: re-add: %pg is not a member that left the array recently enough for its bitmap (%s)\n",
				    index, b,
				    !info->events ? "no superblock of the array" :
				    !a->bm ? "the array has no bitmap" :
				    !lraid_sb_in_sync(info) ? "it was not in sync" :
				    info->role != role ? "its role is not free" :
				    info->failed_mask & ~READ_ONCE(a->failed) ?
				    LRAID_WHY_RAN_APART :
				    "it left before the bits were last cleared");
		ret = -ESTALE;
		goto out_close;
	}
	ret = lraid_add_fits(a, b);
	if (!ret && nb.bdev)
		ret = lraid_add_probe(a, role, b);
	/* the probe wrote over the superblock block: put it back */
	if (!ret && readd && nb.bdev)
		ret = lraid_sb_io(b, page, REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
	if (!ret && !readd)
		ret = lraid_add_wipe(a, b);
	if (ret)
		goto out_close;

	if (nb.bdev) {
		nm.b = nb;
		nm.dev = dev;
		nm.sectors = bdev_nr_sectors(b);
	}
	ret = lraid_slot_rebuild(a, role, nb.bdev ? &nm : NULL,
				 nb.bdev && !bd_link_disk_holder(b, a->disk),
				 readd);
	if (!ret && readd)
		pr_info("lraid%d: %pg re-added as role %u (events %llu, array at %llu): rebuilding what the bitmap records it missed\n",
			index, b, role, info->events, a->events);
	else if (!ret)
		pr_info("lraid%d: %pg added as role %u, rebuilding it from the other members\n",
			index, b, role);
	goto out;

out_close:
	lraid_compat_close(&nb);
out:
	kfree(info);
	if (page)
		__free_page(page);
	return ret;
}

int lraid_array_add(int index, dev_t dev, bool readd_only)
{
	struct lraid_array *a;
	int ret;

	ret = lraid_array_lock(index, &a);
	if (ret)
		return ret;
	ret = __lraid_array_add(a, dev, readd_only);
	lraid_index_unlock(index);
	return ret;
}

/*
 * The rebuild pass has written every stripe of @role, with the members of
 * @failed failed throughout: flush the new member, mark the role working
 * and record it in every superblock, the new member's included. Under a
 * range over every stripe, so that no write, discard or degraded read is
 * in flight while a->failed loses the bit: a write error on the new
 * member, which clears its a->rebuilding bit (lraid_fail_member()), came
 * before, or comes to a working member and fails it as any other. NULL,
 * or why the role stays failed.
 */
const char *lraid_array_recovered(struct lraid_array *a, unsigned int role,
				  u32 failed)
{
	struct block_device *b;
	const char *why = NULL;
	struct lraid_drange all;
	u32 old;
	int ret;

	lraid_hold_all(a, &all);
	/* failed, the member may be removed already: the bit says */
	if (!test_bit(role, &a->rebuilding)) {
		lraid_drange_end(a, &all);
		return "the new member failed";
	}
	b = a->members[role].b.bdev;
	lraid_bitmap_sync_member(a, role);
	ret = blkdev_issue_flush(b);
	if (ret) {
		lraid_member_write_error(a, role, errno_to_blk_status(ret));
		why = "the new member failed a flush";
	}
	mutex_lock(&a->sb_mutex);
	if (why) {
		/* as reported */
	} else if (!test_bit(role, &a->rebuilding)) {
		why = "the new member failed";
	} else if (READ_ONCE(a->failed) != failed) {
		why = LRAID_WHY_OTHER_FAILED;
	} else {
		clear_bit(role, &a->rebuilding);
		clear_bit(role, &a->added);
		spin_lock_irq(&a->held_lock);
		WRITE_ONCE(a->failed_recorded, a->failed_recorded & ~BIT(role));
		old = READ_ONCE(a->failed);
		while (!try_cmpxchg(&a->failed, &old, old & ~BIT(role)))
			;
		spin_unlock_irq(&a->held_lock);
		a->events++;
		if (lraid_sb_write_all(a, false, NULL))
			pr_err("lraid%d: could not record role %u in sync\n",
			       a->index, role);
		lraid_sysfs_changed(a);
		pr_info("lraid%d: recover done: %pg (role %u) is in sync\n",
			a->index, b, role);
	}
	mutex_unlock(&a->sb_mutex);
	lraid_drange_end(a, &all);
	return why;
}

/*
 * Close the failed member @dev of array @index, as mdadm --remove: its
 * role stays failed, as missing, and the device is free. Quiesced
 * (lraid_quiesce()): no submitter still holds a sample of a->failed from
 * before the member failed, which would send a read piece to the slot.
 * Bios already sent to it complete as they will; the device stays valid
 * while they are in flight.
 */
int lraid_array_remove(int index, dev_t dev)
{
	struct lraid_drange all;
	struct lraid_member *mb;
	struct lraid_array *a;
	unsigned int role;
	int ret;

	ret = lraid_array_lock(index, &a);
	if (ret)
		return ret;
	ret = lraid_spare_of(a, dev);
	if (ret >= 0) {
		lraid_spare_remove(a, ret);
		ret = 0;
		goto out;
	}
	ret = lraid_member_of(a, dev, "remove");
	if (ret < 0)
		goto out;
	role = ret;
	mb = &a->members[role];
	ret = -EBUSY;
	if (!(READ_ONCE(a->failed) & BIT(role))) {
		pr_warn_ratelimited("lraid%d: remove: %pg (role %u) is active: fail it first\n",
				    index, mb->b.bdev, role);
		goto out;
	}
	if (test_bit(role, &a->rebuilding)) {
		pr_warn_ratelimited("lraid%d: remove: %pg (role %u) is being rebuilt: write idle to sync_action first\n",
				    index, mb->b.bdev, role);
		goto out;
	}
	pr_info("lraid%d: %pg (role %u) removed\n", index, mb->b.bdev, role);
	lraid_quiesce(a, &all);
	lraid_slot_empty(a, role);
	lraid_unquiesce(a, &all);
	ret = 0;
out:
	lraid_index_unlock(index);
	return ret;
}
