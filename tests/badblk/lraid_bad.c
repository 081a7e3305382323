// SPDX-License-Identifier: GPL-2.0
/*
 * lraid-bad: a device-mapper target for lraid's scenarios, never loaded
 * in production. It passes I/O through to one device and fails reads of
 * chosen sectors, as a disk with unreadable sectors does. A write over a
 * bad sector makes it good again, as a disk that remaps the sector on
 * write does, unless the target is told the sectors stick: then writes
 * succeed and reads keep failing, as on a disk out of spare sectors.
 *
 * Discard and write-zeroes are offered when the device offers them and
 * pass through. After "discard ff", discarded sectors read as 0xff bytes
 * until they are written again, as on a disk whose discarded blocks read
 * back neither zeroes nor the old data (SCSI LBPRZ=2 allows this).
 *
 * For write errors: "fail_writes 1" fails every write, as a drive that has
 * gone read-only; "fail_flushes 1" fails every flush, as a drive that lost
 * what its write cache held; "hold" keeps writes to chosen sectors (lraid's
 * superblock, say) from the device until "release", as a slow drive
 * would, so that a scenario can look at what the array does meanwhile.
 * "refuse_zeroes 1" makes the next write-zeroes fail as sd fails one on a
 * disk that rejects the WRITE SAME it claimed: the target stops offering
 * write-zeroes, then ends the bio with BLK_STS_TARGET, having written
 * nothing (a table reload offers it again). "refuse_unmap 1" makes every
 * write-zeroes that may unmap (no REQ_NOUNMAP) fail as sd fails one on a
 * disk that rejects the WRITE SAME with UNMAP it claimed: the target stops
 * offering discard, keeps write-zeroes, and ends the bio with
 * BLK_STS_TARGET, having written nothing; one with REQ_NOUNMAP is carried
 * out (or refused as above if "refuse_zeroes" is on too).
 *
 *   table:    <device> <offset>
 *   messages: bad <sector> <count>   reads of these sectors fail
 *             clear                  every sector good again
 *             sticky <0|1>           writes leave bad sectors bad (1)
 *             discard <pass|ff>      discarded sectors read as the
 *                                    device returns them, or as 0xff
 *             fail_writes <0|1>      every write fails (1)
 *             fail_flushes <0|1>     every empty flush fails (1)
 *             hold <sector> <count>  writes there wait for "release"
 *             release                the held writes go, none waits
 *             refuse_zeroes <0|1>    write-zeroes refused as above (1)
 *             refuse_unmap <0|1>     unmapping write-zeroes refused (1)
 *   status:   <bad sectors> <failed reads> <sticky> <sectors reading 0xff>
 *             <failed writes and flushes> <writes waiting>
 *             <write-zeroes refused> <write-zeroes received>
 *             <write-zeroes refused for unmapping>
 *             <write-zeroes received with REQ_NOUNMAP>
 *
 * Sectors are those of the target. Flushes pass through unless failed.
 * Suspending the
 * device lets the held writes go.
 */
#include <linux/bio.h>
#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/device-mapper.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#define DM_MSG_PREFIX "lraid-bad"

/* sectors; one bit each: 8 GiB takes a 2 MiB bitmap */
#define LRBAD_MAX_SECTORS	SZ_16M

struct lrbad {
	struct dm_dev *dev;
	sector_t start;
	spinlock_t lock;		/* guards everything below */
	unsigned long *bad;		/* a bit per sector of the target */
	unsigned long nr_bad;
	unsigned long *ff;		/* discarded, read as 0xff */
	unsigned long nr_ff;
	unsigned long failed_reads;
	unsigned long failed_writes;
	unsigned long refused_zeroes;
	unsigned long nr_zeroes;	/* write-zeroes received */
	unsigned long refused_unmap;
	unsigned long nr_nounmap;	/* those with REQ_NOUNMAP */
	struct bio_list held;		/* writes kept back */
	unsigned long nr_held;
	sector_t hold_s, hold_e;	/* writes there are kept back */
	bool sticky;
	bool discard_ff;
	bool fail_writes;
	bool fail_flushes;
	bool refuse_zeroes;
	bool refuse_unmap;
};

static int lrbad_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned long long start;
	struct lrbad *b;
	int ret;

	if (argc != 2) {
		ti->error = "expected <device> <offset>";
		return -EINVAL;
	}
	if (kstrtoull(argv[1], 10, &start) || start != (sector_t)start) {
		ti->error = "invalid offset";
		return -EINVAL;
	}
	if (ti->len > LRBAD_MAX_SECTORS) {
		ti->error = "target longer than 8 GiB";
		return -EINVAL;
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	b->bad = kvcalloc(BITS_TO_LONGS(ti->len), sizeof(long), GFP_KERNEL);
	b->ff = kvcalloc(BITS_TO_LONGS(ti->len), sizeof(long), GFP_KERNEL);
	if (!b->bad || !b->ff) {
		ti->error = "out of memory";
		ret = -ENOMEM;
		goto free;
	}
	ret = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table),
			    &b->dev);
	if (ret) {
		ti->error = "device lookup failed";
		goto free;
	}
	spin_lock_init(&b->lock);
	bio_list_init(&b->held);
	b->start = start;
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct bvec_iter);
	ti->private = b;
	return 0;

free:
	kvfree(b->ff);
	kvfree(b->bad);
	kfree(b);
	return ret;
}

/* Set bits of @map in [s, e); caller holds b->lock. */
static unsigned long lrbad_count(unsigned long *map, sector_t s, sector_t e)
{
	unsigned long bit = s, n = 0;

	for_each_set_bit_from(bit, map, e)
		n++;
	return n;
}

/* Sectors [s, e) were written: they read what was written from now on. */
static void lrbad_written(struct lrbad *b, sector_t s, sector_t e)
{
	b->nr_ff -= lrbad_count(b->ff, s, e);
	bitmap_clear(b->ff, s, e - s);
	if (b->sticky)
		return;
	b->nr_bad -= lrbad_count(b->bad, s, e);
	bitmap_clear(b->bad, s, e - s);
}

/*
 * Stop holding writes and send the held ones on, as lrbad_map() would
 * have: failed if writes fail now, else clearing what they overwrite.
 */
static void lrbad_release(struct lrbad *b)
{
	struct bio_list list;
	struct bio *bio;
	sector_t s;
	bool fail;

	spin_lock_irq(&b->lock);
	b->hold_e = 0;
	list = b->held;
	bio_list_init(&b->held);
	b->nr_held = 0;
	spin_unlock_irq(&b->lock);
	while ((bio = bio_list_pop(&list))) {
		s = bio->bi_iter.bi_sector - b->start;
		spin_lock_irq(&b->lock);
		fail = b->fail_writes;
		if (fail)
			b->failed_writes++;
		else if (bio_op(bio) == REQ_OP_WRITE ||
			 bio_op(bio) == REQ_OP_WRITE_ZEROES)
			lrbad_written(b, s, s + bio_sectors(bio));
		spin_unlock_irq(&b->lock);
		if (fail)
			bio_io_error(bio);
		else
			submit_bio_noacct(bio);
	}
}

static void lrbad_presuspend(struct dm_target *ti)
{
	lrbad_release(ti->private);
}

static void lrbad_dtr(struct dm_target *ti)
{
	struct lrbad *b = ti->private;

	lrbad_release(b);
	dm_put_device(ti, b->dev);
	kvfree(b->ff);
	kvfree(b->bad);
	kfree(b);
}

static int lrbad_map(struct dm_target *ti, struct bio *bio)
{
	struct lrbad *b = ti->private;
	sector_t s = dm_target_offset(ti, bio->bi_iter.bi_sector);
	sector_t e = s + bio_sectors(bio);
	int ret = DM_MAPIO_REMAPPED;
	unsigned long flags;

	/* the read's data is still to be seen in lrbad_end_io() */
	*(struct bvec_iter *)dm_per_bio_data(bio, sizeof(struct bvec_iter)) =
		bio->bi_iter;
	bio_set_dev(bio, b->dev->bdev);
	bio->bi_iter.bi_sector = b->start + s;
	if (s == e && (bio->bi_opf & REQ_PREFLUSH) &&
	    READ_ONCE(b->fail_flushes)) {
		spin_lock_irqsave(&b->lock, flags);
		b->failed_writes++;
		spin_unlock_irqrestore(&b->lock, flags);
		return DM_MAPIO_KILL;
	}
	if (bio_op(bio) == REQ_OP_WRITE_ZEROES) {
		struct gendisk *disk = dm_disk(dm_table_get_md(ti->table));
		bool unmap = !(bio->bi_opf & REQ_NOUNMAP);
		unsigned long *refused = NULL;

		spin_lock_irqsave(&b->lock, flags);
		b->nr_zeroes++;
		if (!unmap)
			b->nr_nounmap++;
		/*
		 * As sd_done() and scsi_io_completion() for ILLEGAL REQUEST
		 * to a WRITE SAME: with the UNMAP bit this device withdraws
		 * discard, without it write-zeroes (dm's clone_endio() would
		 * withdraw that too, and finds it done); then the bio fails,
		 * having written nothing.
		 */
		if (unmap && b->refuse_unmap) {
			disk->queue->limits.max_discard_sectors = 0;
			refused = &b->refused_unmap;
		} else if (b->refuse_zeroes) {
			disk->queue->limits.max_write_zeroes_sectors = 0;
			refused = &b->refused_zeroes;
		}
		if (refused)
			(*refused)++;
		spin_unlock_irqrestore(&b->lock, flags);
		if (refused) {
			bio->bi_status = BLK_STS_TARGET;
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
	}
	if (s == e || (!READ_ONCE(b->nr_bad) && !READ_ONCE(b->nr_ff) &&
		       !READ_ONCE(b->discard_ff) && !READ_ONCE(b->fail_writes) &&
		       !READ_ONCE(b->hold_e)))
		return DM_MAPIO_REMAPPED;

	spin_lock_irqsave(&b->lock, flags);
	if (op_is_write(bio_op(bio)) && bio_op(bio) != REQ_OP_DISCARD) {
		if (b->fail_writes) {
			b->failed_writes++;
			spin_unlock_irqrestore(&b->lock, flags);
			return DM_MAPIO_KILL;
		}
		if (s < b->hold_e && e > b->hold_s) {
			bio_list_add(&b->held, bio);
			b->nr_held++;
			spin_unlock_irqrestore(&b->lock, flags);
			return DM_MAPIO_SUBMITTED;
		}
	}
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		if (find_next_bit(b->bad, e, s) < e) {
			b->failed_reads++;
			ret = DM_MAPIO_KILL;
		}
		break;
	case REQ_OP_WRITE:
	case REQ_OP_WRITE_ZEROES:
		lrbad_written(b, s, e);
		break;
	case REQ_OP_DISCARD:
		if (b->discard_ff) {
			b->nr_ff += e - s - lrbad_count(b->ff, s, e);
			bitmap_set(b->ff, s, e - s);
		}
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

/* A read completed: sectors discarded in "discard ff" mode read as 0xff. */
static int lrbad_end_io(struct dm_target *ti, struct bio *bio,
			blk_status_t *error)
{
	struct lrbad *b = ti->private;
	struct bvec_iter it = *(struct bvec_iter *)
		dm_per_bio_data(bio, sizeof(struct bvec_iter));
	struct bio_vec bv;
	unsigned long flags;
	sector_t s;

	if (bio_op(bio) != REQ_OP_READ || *error || !READ_ONCE(b->nr_ff))
		return DM_ENDIO_DONE;
	s = dm_target_offset(ti, it.bi_sector);
	spin_lock_irqsave(&b->lock, flags);
	__bio_for_each_segment(bv, bio, it, it) {
		unsigned int off;

		for (off = 0; off < bv.bv_len; off += SECTOR_SIZE, s++) {
			if (test_bit(s, b->ff))
				memset_page(bv.bv_page, bv.bv_offset + off,
					    0xff, SECTOR_SIZE);
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return DM_ENDIO_DONE;
}

/* "<message> <sector> <count>": a non-empty range inside the target */
static int lrbad_range(struct dm_target *ti, char **argv,
		       unsigned long long *s, unsigned long long *n)
{
	if (kstrtoull(argv[1], 10, s) || kstrtoull(argv[2], 10, n) || !*n ||
	    *s >= ti->len || *n > ti->len - *s) {
		DMERR("%s: sectors out of range", argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int lrbad_message(struct dm_target *ti, unsigned int argc,
			 char **argv, char *result, unsigned int maxlen)
{
	struct lrbad *b = ti->private;
	unsigned long long s, n;
	bool on;

	if (argc == 3 && !strcmp(argv[0], "bad")) {
		if (lrbad_range(ti, argv, &s, &n))
			return -EINVAL;
		spin_lock_irq(&b->lock);
		b->nr_bad += n - lrbad_count(b->bad, s, s + n);
		bitmap_set(b->bad, s, n);
		spin_unlock_irq(&b->lock);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "clear")) {
		spin_lock_irq(&b->lock);
		bitmap_zero(b->bad, ti->len);
		b->nr_bad = 0;
		spin_unlock_irq(&b->lock);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[0], "sticky") ||
			  !strcmp(argv[0], "fail_writes") ||
			  !strcmp(argv[0], "fail_flushes") ||
			  !strcmp(argv[0], "refuse_zeroes") ||
			  !strcmp(argv[0], "refuse_unmap"))) {
		if (kstrtobool(argv[1], &on)) {
			DMERR("%s: expected 0 or 1", argv[0]);
			return -EINVAL;
		}
		spin_lock_irq(&b->lock);
		if (!strcmp(argv[0], "sticky"))
			b->sticky = on;
		else if (!strcmp(argv[0], "fail_writes"))
			b->fail_writes = on;
		else if (!strcmp(argv[0], "refuse_zeroes"))
			b->refuse_zeroes = on;
		else if (!strcmp(argv[0], "refuse_unmap"))
			b->refuse_unmap = on;
		else
			b->fail_flushes = on;
		spin_unlock_irq(&b->lock);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[0], "hold")) {
		if (lrbad_range(ti, argv, &s, &n))
			return -EINVAL;
		spin_lock_irq(&b->lock);
		b->hold_s = s;
		b->hold_e = s + n;
		spin_unlock_irq(&b->lock);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "release")) {
		lrbad_release(b);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[0], "discard")) {
		if (strcmp(argv[1], "pass") && strcmp(argv[1], "ff")) {
			DMERR("discard: expected pass or ff");
			return -EINVAL;
		}
		spin_lock_irq(&b->lock);
		b->discard_ff = !strcmp(argv[1], "ff");
		spin_unlock_irq(&b->lock);
		return 0;
	}
	DMERR("unknown message");
	return -EINVAL;
}

static void lrbad_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result,
			 unsigned int maxlen)
{
	struct lrbad *b = ti->private;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irq(&b->lock);
		DMEMIT("%lu %lu %d %lu %lu %lu %lu %lu %lu %lu", b->nr_bad,
		       b->failed_reads, b->sticky, b->nr_ff, b->failed_writes,
		       b->nr_held, b->refused_zeroes, b->nr_zeroes,
		       b->refused_unmap, b->nr_nounmap);
		spin_unlock_irq(&b->lock);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %llu", b->dev->name, (unsigned long long)b->start);
		break;
	default:
		*result = '\0';
		break;
	}
}

static int lrbad_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct lrbad *b = ti->private;

	return fn(ti, b->dev, b->start, ti->len, data);
}

static struct target_type lrbad_target = {
	.name = "lraid-bad",
	.version = {1, 4, 0},
	.module = THIS_MODULE,
	.ctr = lrbad_ctr,
	.dtr = lrbad_dtr,
	.map = lrbad_map,
	.end_io = lrbad_end_io,
	.message = lrbad_message,
	.presuspend = lrbad_presuspend,
	.status = lrbad_status,
	.iterate_devices = lrbad_iterate_devices,
};

static int __init lrbad_init(void)
{
	return dm_register_target(&lrbad_target);
}

static void __exit lrbad_exit(void)
{
	dm_unregister_target(&lrbad_target);
}

module_init(lrbad_init);
module_exit(lrbad_exit);
MODULE_DESCRIPTION("lraid test target: unreadable sectors, failing and slow writes, discards that read 0xff, refused write-zeroes and unmapping");
MODULE_LICENSE("GPL");
