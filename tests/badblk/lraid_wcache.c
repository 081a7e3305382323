// SPDX-License-Identifier: GPL-2.0
/*
 * lraid-wcache: a device-mapper target for lraid's scenarios, never loaded
 * in production. It puts a volatile write cache in front of one device,
 * as a drive with a write-back cache and no power-loss protection has. A
 * plain write completes once it is in the cache, and reaches the device
 * only when a flush (REQ_PREFLUSH) writes the whole cache back, or when
 * the cache is full (then the whole cache is written back, without a
 * flush). A FUA write goes to the device before it completes. Reads see
 * the cache. Discard and write-zeroes go to the device at once and drop
 * what the cache held there.
 *
 * Destroying the table (a reload, "dmsetup remove") throws away what the
 * cache holds, as losing power does: a scenario suspends the device (the
 * writes it has taken complete, into the cache), loads another table and
 * resumes it, and the device below then holds what a power cut leaves.
 *
 *   table:   <device> <cache MiB, 1 to 1024>
 *
 * Sectors are those of the target, at the same sector of the device. One
 * worker serves every bio in order, synchronously: slow, simple, and
 * enough for the scenarios.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#define DM_MSG_PREFIX "lraid-wcache"

#define LRWC_SECTORS_PER_PAGE	(PAGE_SIZE >> SECTOR_SHIFT)

/* What the cache holds of one page of the device. */
struct lrwc_page {
	struct page *page;
	unsigned long valid;	/* a bit per sector held */
};

/* valid has a bit for each sector of a page */
static_assert(LRWC_SECTORS_PER_PAGE <= BITS_PER_LONG);

struct lrwc {
	struct dm_dev *dev;
	struct bio_set bs;
	struct workqueue_struct *wq;
	struct work_struct work;
	spinlock_t lock;		/* guards bios */
	struct bio_list bios;		/* waiting for the worker */
	/* the worker's alone */
	struct xarray cache;		/* page index -> struct lrwc_page */
	unsigned long nr_pages;
	unsigned long max_pages;
};

static void lrwc_free_page(struct lrwc *c, unsigned long idx,
			   struct lrwc_page *p)
{
	xa_erase(&c->cache, idx);
	__free_page(p->page);
	kfree(p);
	c->nr_pages--;
}

/* Write back every sector the cache holds; no flush of the device. */
static int lrwc_writeback(struct lrwc *c)
{
	struct lrwc_page *p;
	unsigned long idx;

	xa_for_each(&c->cache, idx, p) {
		unsigned int a = 0, b;
		int ret;

		while (a < LRWC_SECTORS_PER_PAGE) {
			struct bio *bio;

			a = find_next_bit(&p->valid, LRWC_SECTORS_PER_PAGE, a);
			if (a >= LRWC_SECTORS_PER_PAGE)
				break;
			b = find_next_zero_bit(&p->valid,
					       LRWC_SECTORS_PER_PAGE, a);
			bio = bio_alloc_bioset(c->dev->bdev, 1,
					       REQ_OP_WRITE | REQ_SYNC,
					       GFP_NOIO, &c->bs);
			bio->bi_iter.bi_sector =
				(sector_t)idx * LRWC_SECTORS_PER_PAGE + a;
			__bio_add_page(bio, p->page, (b - a) << SECTOR_SHIFT,
				       a << SECTOR_SHIFT);
			ret = submit_bio_wait(bio);
			bio_put(bio);
			if (ret)
				return ret;
			a = b;
		}
		lrwc_free_page(c, idx, p);
	}
	return 0;
}

/* Forget what the cache holds of sectors [s, e). */
static void lrwc_drop(struct lrwc *c, sector_t s, sector_t e)
{
	while (s < e) {
		unsigned long idx = s / LRWC_SECTORS_PER_PAGE;
		unsigned int a = s % LRWC_SECTORS_PER_PAGE;
		unsigned int n = min_t(sector_t, e - s,
				       LRWC_SECTORS_PER_PAGE - a);
		struct lrwc_page *p = xa_load(&c->cache, idx);

		if (p) {
			p->valid &= ~GENMASK(a + n - 1, a);
			if (!p->valid)
				lrwc_free_page(c, idx, p);
		}
		s += n;
	}
}

/* @bio, cloned, to the device; waits for it. */
static int lrwc_pass(struct lrwc *c, struct bio *bio)
{
	struct bio *clone = bio_alloc_clone(c->dev->bdev, bio, GFP_NOIO,
					    &c->bs);
	int ret;

	ret = submit_bio_wait(clone);
	bio_put(clone);
	return ret;
}

static int lrwc_read(struct lrwc *c, struct bio *bio)
{
	sector_t s = bio->bi_iter.bi_sector;
	struct bvec_iter it;
	struct bio_vec bv;
	int ret;

	ret = lrwc_pass(c, bio);
	if (ret || !c->nr_pages)
		return ret;
	bio_for_each_segment(bv, bio, it) {
		unsigned int off;

		for (off = 0; off < bv.bv_len; off += SECTOR_SIZE, s++) {
			struct lrwc_page *p;
			unsigned int i = s % LRWC_SECTORS_PER_PAGE;

			p = xa_load(&c->cache, s / LRWC_SECTORS_PER_PAGE);
			if (p && test_bit(i, &p->valid))
				memcpy_page(bv.bv_page, bv.bv_offset + off,
					    p->page, i << SECTOR_SHIFT,
					    SECTOR_SIZE);
		}
	}
	return 0;
}

/* The cache's page @idx, added if missing; the cache written back if full */
static struct lrwc_page *lrwc_get(struct lrwc *c, unsigned long idx)
{
	struct lrwc_page *p = xa_load(&c->cache, idx);
	int ret;

	if (p)
		return p;
	if (c->nr_pages >= c->max_pages) {
		ret = lrwc_writeback(c);
		if (ret)
			return ERR_PTR(ret);
	}
	p = kzalloc(sizeof(*p), GFP_NOIO);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->page = alloc_page(GFP_NOIO);
	ret = p->page ? xa_insert(&c->cache, idx, p, GFP_NOIO) : -ENOMEM;
	if (ret) {
		if (p->page)
			__free_page(p->page);
		kfree(p);
		return ERR_PTR(ret);
	}
	c->nr_pages++;
	return p;
}

static int lrwc_write(struct lrwc *c, struct bio *bio)
{
	sector_t s = bio->bi_iter.bi_sector;
	struct bvec_iter it;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, it) {
		unsigned int off;

		for (off = 0; off < bv.bv_len; off += SECTOR_SIZE, s++) {
			unsigned int i = s % LRWC_SECTORS_PER_PAGE;
			struct lrwc_page *p;

			p = lrwc_get(c, s / LRWC_SECTORS_PER_PAGE);
			if (IS_ERR(p))
				return PTR_ERR(p);
			memcpy_page(p->page, i << SECTOR_SHIFT, bv.bv_page,
				    bv.bv_offset + off, SECTOR_SIZE);
			__set_bit(i, &p->valid);
		}
	}
	return 0;
}

static void lrwc_serve(struct lrwc *c, struct bio *bio)
{
	sector_t s = bio->bi_iter.bi_sector;
	int ret = 0;

	if (bio->bi_opf & REQ_PREFLUSH) {
		ret = lrwc_writeback(c);
		if (!ret)
			ret = blkdev_issue_flush(c->dev->bdev);
	}
	if (ret || !bio_sectors(bio))
		goto out;
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		ret = lrwc_read(c, bio);
		break;
	case REQ_OP_WRITE:
		if (!(bio->bi_opf & REQ_FUA)) {
			ret = lrwc_write(c, bio);
			break;
		}
		fallthrough;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		/* to the device: what the cache held there is older */
		ret = lrwc_pass(c, bio);
		if (!ret)
			lrwc_drop(c, s, s + bio_sectors(bio));
		break;
	default:
		ret = -EOPNOTSUPP;
		break;
	}
out:
	bio->bi_status = errno_to_blk_status(ret);
	bio_endio(bio);
}

static void lrwc_work(struct work_struct *work)
{
	struct lrwc *c = container_of(work, struct lrwc, work);
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&c->lock);
	list = c->bios;
	bio_list_init(&c->bios);
	spin_unlock_irq(&c->lock);
	while ((bio = bio_list_pop(&list)))
		lrwc_serve(c, bio);
}

static int lrwc_map(struct dm_target *ti, struct bio *bio)
{
	struct lrwc *c = ti->private;
	unsigned long flags;

	bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	spin_lock_irqsave(&c->lock, flags);
	bio_list_add(&c->bios, bio);
	spin_unlock_irqrestore(&c->lock, flags);
	queue_work(c->wq, &c->work);
	return DM_MAPIO_SUBMITTED;
}

static void lrwc_free(struct lrwc *c)
{
	struct lrwc_page *p;
	unsigned long idx;

	if (c->wq)
		destroy_workqueue(c->wq);
	/* what the cache held is lost, as at a power cut */
	xa_for_each(&c->cache, idx, p)
		lrwc_free_page(c, idx, p);
	xa_destroy(&c->cache);
	bioset_exit(&c->bs);
	kfree(c);
}

static int lrwc_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned int mib;
	struct lrwc *c;
	int ret;

	if (argc != 2) {
		ti->error = "expected <device> <cache MiB>";
		return -EINVAL;
	}
	if (kstrtouint(argv[1], 10, &mib) || !mib || mib > 1024) {
		ti->error = "cache size: 1 to 1024 MiB";
		return -EINVAL;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	c->max_pages = (unsigned long)mib << (20 - PAGE_SHIFT);
	spin_lock_init(&c->lock);
	bio_list_init(&c->bios);
	xa_init(&c->cache);
	INIT_WORK(&c->work, lrwc_work);
	ret = bioset_init(&c->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS);
	if (ret) {
		ti->error = "out of memory";
		goto free;
	}
	c->wq = alloc_ordered_workqueue("lraid-wcache", WQ_MEM_RECLAIM);
	if (!c->wq) {
		ti->error = "out of memory";
		ret = -ENOMEM;
		goto free;
	}
	ret = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table),
			    &c->dev);
	if (ret) {
		ti->error = "device lookup failed";
		goto free;
	}
	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->private = c;
	return 0;

free:
	lrwc_free(c);
	return ret;
}

static void lrwc_dtr(struct dm_target *ti)
{
	struct lrwc *c = ti->private;

	/* suspended: every bio mapped has completed, the worker is idle */
	dm_put_device(ti, c->dev);
	lrwc_free(c);
}

static void lrwc_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result,
			unsigned int maxlen)
{
	struct lrwc *c = ti->private;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_TABLE:
		DMEMIT("%s %lu", c->dev->name,
		       c->max_pages >> (20 - PAGE_SHIFT));
		break;
	default:
		*result = '\0';
		break;
	}
}

static int lrwc_iterate_devices(struct dm_target *ti,
				iterate_devices_callout_fn fn, void *data)
{
	struct lrwc *c = ti->private;

	return fn(ti, c->dev, 0, ti->len, data);
}

static struct target_type lrwc_target = {
	.name = "lraid-wcache",
	.version = {1, 0, 0},
	.module = THIS_MODULE,
	.ctr = lrwc_ctr,
	.dtr = lrwc_dtr,
	.map = lrwc_map,
	.status = lrwc_status,
	.iterate_devices = lrwc_iterate_devices,
};

static int __init lrwc_init(void)
{
	return dm_register_target(&lrwc_target);
}

static void __exit lrwc_exit(void)
{
	dm_unregister_target(&lrwc_target);
}

module_init(lrwc_init);
module_exit(lrwc_exit);
MODULE_DESCRIPTION("lraid test target: a volatile write cache lost when the table goes");
MODULE_LICENSE("GPL");
