/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lraid compatibility layer: every difference between the supported kernel
 * APIs (Linux 6.1 LTS and 6.12 LTS) lives here and nowhere else.
 *
 * Supported: 6.1 .. 6.4 ("old": blkdev_get_by_dev + FMODE_EXCL, blk_queue_*
 * setters, queue flags) and 6.11 .. 6.12 ("new": bdev_file_open_by_dev,
 * queue_limits passed to blk_alloc_disk, BLK_FEAT_* features). Kernels in
 * between changed these APIs several times and are rejected at build time.
 */
#ifndef LRAID_COMPAT_H
#define LRAID_COMPAT_H

#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>

/*
 * Told apart by what the headers define, not by version number:
 * BLK_FEAT_* arrived in 6.11, BLK_OPEN_* in 6.5.
 */
#if defined(BLK_FEAT_WRITE_CACHE)
#define LRAID_NEW_BLOCK_API 1
#elif !defined(BLK_OPEN_READ)
#define LRAID_NEW_BLOCK_API 0
#else
#error "lraid supports Linux 6.1..6.4 and 6.11..6.12"
#endif

/* Block pages are reached through their direct-map address. */
#ifdef CONFIG_HIGHMEM
#error "lraid needs a 64-bit kernel without HIGHMEM"
#endif

/* An opened member block device. */
struct lraid_bdev {
	struct block_device *bdev;
#if LRAID_NEW_BLOCK_API
	struct file *file;
#else
	fmode_t mode;
#endif
};

/*
 * Open @dev read-write; exclusively with @holder when @holder is non-NULL,
 * read-only and shared otherwise.
 */
static inline int lraid_compat_open(dev_t dev, void *holder,
				    struct lraid_bdev *b)
{
#if LRAID_NEW_BLOCK_API
	blk_mode_t mode = holder ? BLK_OPEN_READ | BLK_OPEN_WRITE : BLK_OPEN_READ;
	struct file *f = bdev_file_open_by_dev(dev, mode, holder, NULL);

	if (IS_ERR(f))
		return PTR_ERR(f);
	b->file = f;
	b->bdev = file_bdev(f);
#else
	fmode_t mode = holder ? FMODE_READ | FMODE_WRITE | FMODE_EXCL : FMODE_READ;
	struct block_device *bdev = blkdev_get_by_dev(dev, mode, holder);

	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	b->bdev = bdev;
	b->mode = mode;
#endif
	return 0;
}

static inline void lraid_compat_close(struct lraid_bdev *b)
{
	if (!b->bdev)
		return;
#if LRAID_NEW_BLOCK_API
	bdev_fput(b->file);
	b->file = NULL;
#else
	blkdev_put(b->bdev, b->mode);
#endif
	b->bdev = NULL;
}

/* What lraid asks of its queue; applied by lraid_compat_alloc_disk(). */
struct lraid_limits {
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_hw_sectors;
	unsigned int max_discard_sectors;	/* 0: no discard */
	unsigned int discard_granularity;
	unsigned int max_write_zeroes_sectors;	/* 0: no write zeroes */
	unsigned int dma_alignment;		/* mask, as the block layer's */
	bool write_cache;
	bool fua;
	bool nowait;				/* takes REQ_NOWAIT */
	bool stable_writes;
};

static inline struct gendisk *
lraid_compat_alloc_disk(const struct lraid_limits *l, int node)
{
#if LRAID_NEW_BLOCK_API
	struct queue_limits lim = {
		.logical_block_size = l->logical_block_size,
		.physical_block_size = l->physical_block_size,
		.io_min = l->io_min,
		.io_opt = l->io_opt,
		.max_hw_sectors = l->max_hw_sectors,
		.max_hw_discard_sectors = l->max_discard_sectors,
		.discard_granularity = l->discard_granularity,
		.max_write_zeroes_sectors = l->max_write_zeroes_sectors,
		.dma_alignment = l->dma_alignment,
		.features = BLK_FEAT_IO_STAT,
	};

	if (l->stable_writes)
		lim.features |= BLK_FEAT_STABLE_WRITES;
	if (l->write_cache)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (l->fua)
		lim.features |= BLK_FEAT_FUA;
	if (l->nowait)
		lim.features |= BLK_FEAT_NOWAIT;
	return blk_alloc_disk(&lim, node);
#else
	struct gendisk *disk = blk_alloc_disk(node);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_logical_block_size(q, l->logical_block_size);
	blk_queue_physical_block_size(q, l->physical_block_size);
	blk_queue_io_min(q, l->io_min);
	blk_queue_io_opt(q, l->io_opt);
	blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	blk_queue_max_discard_sectors(q, l->max_discard_sectors);
	q->limits.discard_granularity = l->discard_granularity;
	blk_queue_max_write_zeroes_sectors(q, l->max_write_zeroes_sectors);
	blk_queue_dma_alignment(q, l->dma_alignment);
	if (l->stable_writes)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	blk_queue_write_cache(q, l->write_cache, l->fua);
	if (l->nowait)
		blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	return disk;
#endif
}

/*
 * Stop offering discard (@discard) and write-zeroes (@wzeroes) on a live
 * disk, as sd does when a disk turns out to reject one; from process
 * context. Bios already past the block layer's check still arrive.
 */
static inline int lraid_compat_drop_limits(struct gendisk *disk,
					   bool discard, bool wzeroes)
{
#if LRAID_NEW_BLOCK_API
	struct queue_limits lim = queue_limits_start_update(disk->queue);

	if (discard)
		lim.max_hw_discard_sectors = 0;
	if (wzeroes)
		lim.max_write_zeroes_sectors = 0;
	return queue_limits_commit_update(disk->queue, &lim);
#else
	if (discard)
		blk_queue_max_discard_sectors(disk->queue, 0);
	if (wzeroes)
		blk_queue_max_write_zeroes_sectors(disk->queue, 0);
	return 0;
#endif
}

/*
 * End the accounting of an I/O of @sectors on the lraid disk @bdev that
 * bio_start_io_acct() started at @start (6.1 counted the sectors then).
 */
static inline void lraid_compat_acct_end(struct block_device *bdev,
					 enum req_op op, unsigned int sectors,
					 unsigned long start)
{
#if LRAID_NEW_BLOCK_API
	bdev_end_io_acct(bdev, op, sectors, start);
#else
	bdev_end_io_acct(bdev, op, start);
#endif
}

/*
 * The disk's ->open (under disk->open_mutex), whose arguments changed in
 * 6.5; it calls lraid_disk_open() with the disk.
 */
int lraid_disk_open(struct gendisk *disk);

#if LRAID_NEW_BLOCK_API
static inline int lraid_compat_open_op(struct gendisk *disk, blk_mode_t mode)
{
	return lraid_disk_open(disk);
}
#else
static inline int lraid_compat_open_op(struct block_device *bdev,
				       fmode_t mode)
{
	return lraid_disk_open(bdev->bd_disk);
}
#endif

static inline void lraid_compat_put_disk(struct gendisk *disk)
{
	put_disk(disk);
}

#endif /* LRAID_COMPAT_H */
