// SPDX-License-Identifier: GPL-2.0
/*
 * lraid-oddseg: a module for lraid's scenarios, never loaded in
 * production. Loading it sends one bio to a block device, as an in-kernel
 * submitter may build it: 512 bytes in two segments of 256 bytes, or with
 * cross=1 in one segment of 512 bytes that starts 256 bytes before the
 * end of a page (two contiguous pages), which nothing from user space
 * can send (O_DIRECT is checked against the logical block size). The
 * answer is in the parameter "result" (0 or a negative errno) until the
 * module is removed.
 *
 *   insmod lraid_oddseg.ko major=M minor=N [sector=S] [write=0|1] [cross=0|1]
 *
 * A write carries 0x5a bytes. Loading fails only when the device cannot
 * be opened or memory is short.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/module.h>

#include "../../module/lraid_compat.h"

static unsigned int major;
module_param(major, uint, 0444);
MODULE_PARM_DESC(major, "major number of the device");

static unsigned int minor;
module_param(minor, uint, 0444);
MODULE_PARM_DESC(minor, "minor number of the device");

static unsigned long long sector;
module_param(sector, ullong, 0444);
MODULE_PARM_DESC(sector, "first sector of the I/O");

static bool write = true;
module_param(write, bool, 0444);
MODULE_PARM_DESC(write, "write (Y, the default) or read (N)");

static bool cross;
module_param(cross, bool, 0444);
MODULE_PARM_DESC(cross, "one segment across a page boundary (Y) or two of 256 bytes (N, the default)");

static int result = 1;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "what the bio ended with: 0 or a negative errno");

static int __init lraid_oddseg_init(void)
{
	struct lraid_bdev b = { };
	struct page *page;
	struct bio *bio;
	int ret;

	ret = lraid_compat_open(MKDEV(major, minor), &result, &b);
	if (ret)
		return ret;
	ret = -ENOMEM;
	page = alloc_pages(GFP_KERNEL, 1);
	if (!page)
		goto out_close;
	memset(page_address(page), 0x5a, 2 * PAGE_SIZE);
	bio = bio_alloc(b.bdev, 2, write ? REQ_OP_WRITE : REQ_OP_READ,
			GFP_KERNEL);
	if (!bio)
		goto out_page;
	bio->bi_iter.bi_sector = sector;
	if (cross) {
		/* pages are whole sectors: this one segment is not */
		__bio_add_page(bio, page, 512, PAGE_SIZE - 256);
	} else if (bio_add_page(bio, page, 256, 0) != 256 ||
		   bio_add_page(bio, page, 256, 1024) != 256) {
		/* apart in the page, so that the block layer cannot merge them */
		bio_put(bio);
		goto out_page;
	}
	result = submit_bio_wait(bio);
	bio_put(bio);
	pr_info("lraid-oddseg: %s of %s at sector %llu of %u:%u: %d\n",
		write ? "write" : "read",
		cross ? "a segment across pages" : "two 256-byte segments",
		sector, major, minor, result);
	ret = 0;
out_page:
	__free_pages(page, 1);
out_close:
	lraid_compat_close(&b);
	return ret;
}

static void __exit lraid_oddseg_exit(void)
{
}

module_init(lraid_oddseg_init);
module_exit(lraid_oddseg_exit);
MODULE_DESCRIPTION("lraid test: one bio with segments of 256 bytes");
MODULE_LICENSE("GPL");
