// SPDX-License-Identifier: GPL-2.0
/*
 * lraid arrays: create, assemble and stop; members; superblock I/O; the
 * gendisk. Everything here runs under lraid_ctl_mutex, in process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "lraid.h"
#include "lraid_sb.h"
#include "uapi/lraid.h"

static struct lraid_array *lraid_arrays[LRAID_MAX_ARRAYS];

struct lraid_array *lraid_array_get(int index)
{
	lockdep_assert_held(&lraid_ctl_mutex);
	if (index < 0 || index >= LRAID_MAX_ARRAYS)
		return NULL;
	return lraid_arrays[index];
}

static const struct block_device_operations lraid_fops = {
	.owner = THIS_MODULE,
	.submit_bio = lraid_submit_bio,
};

/* Synchronous I/O of the superblock block at sector 0 of @bdev. */
static int lraid_sb_io(struct block_device *bdev, struct page *page,
		       blk_opf_t opf)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, bdev, &bvec, 1, opf);
	bio.bi_iter.bi_sector = 0;
	__bio_add_page(&bio, page, LRAID_SB_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

static void lraid_members_close(struct lraid_array *a, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		lraid_compat_close(&a->members[i].b);
}

/*
 * Open @nr members exclusively with @a as holder, in the order given.
 * Refuses duplicates, lraid's own disks and anything in use.
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

		ret = lraid_compat_open(devs[i], a, &m->b);
		if (ret) {
			pr_warn_ratelimited("cannot open member %u:%u exclusively: %d\n",
					    MAJOR(devs[i]), MINOR(devs[i]), ret);
			lraid_members_close(a, i);
			return ret;
		}
		m->dev = devs[i];
		m->sectors = bdev_nr_sectors(m->b.bdev);
	}
	return 0;
}

static void lraid_sb_fill(const struct lraid_array *a, struct lraid_sb_info *sb,
			  unsigned int role)
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
	sb->role = role;
	sb->state = a->clean ? LRAID_SB_STATE_CLEAN : 0;
	sb->data_offset = a->data_offset;
	sb->data_size = g->member_sectors;
	sb->dev_sectors = a->members[role].sectors;
	sb->recovery_offset = LRAID_SB_IN_SYNC;
	sb->bitmap_offset = a->bitmap_offset;
	sb->bitmap_sectors = a->bitmap_sectors;
	sb->bitmap_region_sectors = a->bitmap_region_sectors;
	sb->failed_mask = a->failed;
}

/* Write every surviving member's superblock from the array state (FUA). */
static int lraid_sb_write_all(struct lraid_array *a)
{
	struct lraid_sb_info *sb;
	struct page *page;
	unsigned int i;
	int ret = 0;

	sb = kmalloc(sizeof(*sb), GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	if (!sb || !page) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < a->geom.nr_members; i++) {
		if (a->failed & BIT(i))
			continue;
		lraid_sb_fill(a, sb, i);
		lraid_sb_encode(sb, page_address(page));
		ret = lraid_sb_io(a->members[i].b.bdev, page,
				  REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH |
				  REQ_FUA);
		if (ret) {
			pr_err("lraid%d: superblock write to %pg failed: %d\n",
			       a->index, a->members[i].b.bdev, ret);
			break;
		}
	}
out:
	if (page)
		__free_page(page);
	kfree(sb);
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
		.fua = true,
	};
	bool discard = true, wzeroes = true;
	struct gendisk *disk;
	unsigned int i;
	int ret;

	for (i = 0; i < g->nr_members; i++) {
		struct block_device *b = a->members[i].b.bdev;

		l.logical_block_size = max(l.logical_block_size,
					   bdev_logical_block_size(b));
		l.physical_block_size = max(l.physical_block_size,
					    bdev_physical_block_size(b));
		if (bdev_write_cache(b))
			l.write_cache = true;
		if (!bdev_max_discard_sectors(b))
			discard = false;
		if (!bdev_write_zeroes_sectors(b))
			wzeroes = false;
	}
	l.physical_block_size = max(l.physical_block_size,
				    l.logical_block_size);
	if (discard) {
		l.max_discard_sectors = rounddown(UINT_MAX >> SECTOR_SHIFT, sdata);
		l.discard_granularity =
			roundup_pow_of_two((u32)sdata << SECTOR_SHIFT);
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

	ret = add_disk(disk);
	if (ret) {
		a->disk = NULL;
		put_disk(disk);
	}
	return ret;
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
	lraid_arrays[a->index] = a;
	return 0;

out_stripe:
	lraid_stripe_exit(a);
out_io:
	lraid_io_exit(a);
	return ret;
}

static struct lraid_array *lraid_array_alloc(int index)
{
	struct lraid_array *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (a)
		a->index = index;
	return a;
}

int lraid_array_create(const struct lraid_create_args *args)
{
	struct lraid_sb_info *sb = NULL;
	struct lraid_array *a;
	unsigned int i, min_data;
	u64 min_sectors = U64_MAX;
	const char *why = NULL;
	int ret;

	min_data = args->level == 6 ? 4 : 3;
	if ((args->level != 5 && args->level != 6) ||
	    args->nr_members < min_data ||
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
	if (args->data_offset & 7 || args->data_offset > (1ULL << 32)) {
		pr_warn_ratelimited("create: bad data offset %llu\n",
				    args->data_offset);
		return -EINVAL;
	}

	mutex_lock(&lraid_ctl_mutex);
	if (lraid_arrays[args->index]) {
		ret = -EEXIST;
		goto out_unlock;
	}
	ret = -ENOMEM;
	a = lraid_array_alloc(args->index);
	sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!a || !sb)
		goto out_free;

	ret = lraid_members_open(a, args->nr_members, args->devs);
	if (ret)
		goto out_free;
	for (i = 0; i < args->nr_members; i++)
		min_sectors = min_t(u64, min_sectors, a->members[i].sectors);

	sb->level = args->level;
	sb->nr_members = args->nr_members;
	sb->chunk_sectors = args->chunk_bytes >> SECTOR_SHIFT;
	sb->layout = LRAID_LAYOUT_LEFT_SYMMETRIC;
	sb->data_offset = args->data_offset;
	ret = lraid_sb_plan(sb, min_sectors, false);
	if (ret) {
		pr_warn_ratelimited("create: members too small (%llu sectors) for the layout: %d\n",
				    min_sectors, ret);
		goto out_close;
	}
	ret = lraid_geom_init(&a->geom, args->level, args->nr_members,
			      args->chunk_bytes, sb->data_size);
	if (ret) {
		pr_warn_ratelimited("create: members too small (%llu sectors)\n",
				    min_sectors);
		goto out_close;
	}
	a->data_offset = sb->data_offset;
	a->bitmap_offset = sb->bitmap_offset;
	a->bitmap_sectors = sb->bitmap_sectors;
	a->bitmap_region_sectors = sb->bitmap_region_sectors;
	snprintf(a->name, sizeof(a->name), "lraid%d", a->index);
	for (i = 0; i < args->nr_members; i++)
		a->members[i].role = i;
	generate_random_uuid(a->uuid);
	a->ctime = ktime_get_real_seconds();
	a->events = 1;
	a->clean = false;

	/*
	 * Parity must match the data before the array is used: zero every
	 * member's data area (all-zero data has all-zero P and Q). An initial
	 * background resync instead of this is future work.
	 */
	if (!args->assume_clean) {
		for (i = 0; i < args->nr_members; i++) {
			ret = blkdev_issue_zeroout(a->members[i].b.bdev,
						   a->data_offset,
						   a->geom.member_sectors,
						   GFP_KERNEL, 0);
			if (ret) {
				pr_err("create: zeroing %pg failed: %d\n",
				       a->members[i].b.bdev, ret);
				goto out_close;
			}
		}
	}
	ret = lraid_sb_write_all(a);
	if (ret)
		goto out_close;
	ret = lraid_array_run(a);
	if (ret)
		goto out_close;
	pr_info("lraid%d: created RAID%u, %u members, chunk %u KiB, %llu sectors\n",
		a->index, a->geom.level, a->geom.nr_members,
		args->chunk_bytes >> 10, a->geom.array_sectors);
	mutex_unlock(&lraid_ctl_mutex);
	kfree(sb);
	return 0;

out_close:
	if (why)
		pr_warn_ratelimited("create: %s\n", why);
	lraid_members_close(a, args->nr_members);
out_free:
	kfree(sb);
	kfree(a);
out_unlock:
	mutex_unlock(&lraid_ctl_mutex);
	return ret;
}

int lraid_array_assemble(int index, unsigned int nr, const dev_t *devs)
{
	struct lraid_member tmp[LRAID_MAX_MEMBERS];
	struct lraid_sb_info *sbs = NULL;
	unsigned int i, fresh = 0, newest;
	struct page *page = NULL;
	const char *why = "";
	struct lraid_array *a;
	int ret;

	mutex_lock(&lraid_ctl_mutex);
	if (lraid_arrays[index]) {
		ret = -EEXIST;
		goto out_unlock;
	}
	ret = -ENOMEM;
	a = lraid_array_alloc(index);
	sbs = kcalloc(nr, sizeof(*sbs), GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	if (!a || !sbs || !page)
		goto out_free;

	ret = lraid_members_open(a, nr, devs);
	if (ret)
		goto out_free;
	for (i = 0; i < nr; i++) {
		struct block_device *b = a->members[i].b.bdev;

		ret = lraid_sb_io(b, page, REQ_OP_READ | REQ_SYNC);
		if (ret) {
			pr_warn_ratelimited("assemble: cannot read superblock of %pg: %d\n",
					    b, ret);
			goto out_close;
		}
		ret = lraid_sb_decode(page_address(page), &sbs[i], &why);
		if (ret) {
			pr_warn_ratelimited("assemble: %pg: %s\n", b, why);
			goto out_close;
		}
		if (sbs[i].ro_only) {
			pr_warn_ratelimited("assemble: %pg needs read-only use, not supported\n",
					    b);
			ret = -EOPNOTSUPP;
			goto out_close;
		}
		if (sbs[i].dev_sectors > a->members[i].sectors ||
		    sbs[i].data_offset + sbs[i].data_size > a->members[i].sectors) {
			pr_warn_ratelimited("assemble: %pg is smaller than its superblock says\n",
					    b);
			ret = -EINVAL;
			goto out_close;
		}
	}
	ret = lraid_sb_check_set(sbs, nr, &fresh, &why);
	if (ret) {
		pr_warn_ratelimited("assemble: %s\n", why);
		goto out_close;
	}
	newest = lraid_sb_newest(sbs, nr);
	if (nr != sbs[newest].nr_members || fresh != (u32)GENMASK(nr - 1, 0) ||
	    sbs[newest].failed_mask) {
		pr_warn_ratelimited("assemble: %u of %u members present and in sync; degraded assembly is not supported yet\n",
				    hweight32(fresh), sbs[newest].nr_members);
		ret = -ENODEV;
		goto out_close;
	}
	ret = lraid_sb_geom(&sbs[newest], &a->geom);
	if (ret) {
		pr_warn_ratelimited("assemble: bad geometry\n");
		goto out_close;
	}

	/* order members by role */
	memcpy(tmp, a->members, sizeof(tmp));
	for (i = 0; i < nr; i++) {
		a->members[sbs[i].role] = tmp[i];
		a->members[sbs[i].role].role = sbs[i].role;
	}
	memcpy(a->uuid, sbs[newest].uuid, sizeof(a->uuid));
	a->ctime = sbs[newest].ctime;
	a->data_offset = sbs[newest].data_offset;
	a->bitmap_offset = sbs[newest].bitmap_offset;
	a->bitmap_sectors = sbs[newest].bitmap_sectors;
	a->bitmap_region_sectors = sbs[newest].bitmap_region_sectors;
	strscpy(a->name, sbs[newest].name, sizeof(a->name));
	a->events = sbs[newest].events + 1;
	if (!(sbs[newest].state & LRAID_SB_STATE_CLEAN))
		pr_warn("lraid%d: array was not stopped cleanly; parity of stripes written at the time may be stale (resync is future work)\n",
			index);
	for (i = 0; i < nr; i++) {
		if (sbs[i].data_offset != a->data_offset) {
			pr_warn_ratelimited("assemble: members disagree on data offset\n");
			ret = -EINVAL;
			goto out_close;
		}
	}
	a->clean = false;
	ret = lraid_sb_write_all(a);
	if (ret)
		goto out_close;
	ret = lraid_array_run(a);
	if (ret)
		goto out_close;
	pr_info("lraid%d: assembled RAID%u, %u members, events %llu\n",
		index, a->geom.level, nr, a->events);
	mutex_unlock(&lraid_ctl_mutex);
	__free_page(page);
	kfree(sbs);
	return 0;

out_close:
	lraid_members_close(a, nr);
out_free:
	if (page)
		__free_page(page);
	kfree(sbs);
	kfree(a);
out_unlock:
	mutex_unlock(&lraid_ctl_mutex);
	return ret;
}

static void lraid_array_teardown(struct lraid_array *a)
{
	del_gendisk(a->disk);
	lraid_io_quiesce(a);
	lraid_stripe_exit(a);
	lraid_io_exit(a);
	a->events++;
	a->clean = true;
	if (lraid_sb_write_all(a))
		pr_err("lraid%d: could not mark the array clean\n", a->index);
	lraid_members_close(a, a->geom.nr_members);
	put_disk(a->disk);
	lraid_arrays[a->index] = NULL;
	pr_info("lraid%d: stopped\n", a->index);
	kfree(a);
}

int lraid_array_stop(int index)
{
	struct lraid_array *a;
	int ret = 0;

	mutex_lock(&lraid_ctl_mutex);
	a = lraid_arrays[index];
	if (!a) {
		ret = -ENODEV;
	} else if (disk_openers(a->disk)) {
		pr_warn_ratelimited("lraid%d: in use, not stopping\n", index);
		ret = -EBUSY;
	} else {
		lraid_array_teardown(a);
	}
	mutex_unlock(&lraid_ctl_mutex);
	return ret;
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
	u32 mask;
	int ret = 0;

	mutex_lock(&lraid_ctl_mutex);
	a = lraid_arrays[index];
	if (!a) {
		ret = -ENODEV;
		goto out;
	}
	for (i = 0; i < a->geom.nr_members; i++)
		if (a->members[i].dev == dev)
			break;
	if (i == a->geom.nr_members) {
		pr_warn_ratelimited("lraid%d: fail: %u:%u is not a member\n",
				    index, MAJOR(dev), MINOR(dev));
		ret = -ENODEV;
		goto out;
	}
	if (a->failed & BIT(i))
		goto out;
	tolerate = a->geom.level == 6 ? 2 : 1;
	mask = a->failed | BIT(i);
	if (hweight32(mask) > tolerate) {
		pr_warn_ratelimited("lraid%d: not failing %pg: RAID%u survives at most %u failed member%s\n",
				    index, a->members[i].b.bdev, a->geom.level,
				    tolerate, tolerate > 1 ? "s" : "");
		ret = -EBUSY;
		goto out;
	}
	WRITE_ONCE(a->failed, mask);
	a->events++;
	pr_warn("lraid%d: member %pg (role %u) marked failed, array degraded\n",
		index, a->members[i].b.bdev, i);
	ret = lraid_sb_write_all(a);
	if (ret)
		pr_err("lraid%d: could not record the failed member\n", index);
out:
	mutex_unlock(&lraid_ctl_mutex);
	return ret;
}

void lraid_array_stop_all(void)
{
	int i;

	mutex_lock(&lraid_ctl_mutex);
	for (i = 0; i < LRAID_MAX_ARRAYS; i++)
		if (lraid_arrays[i])
			lraid_array_teardown(lraid_arrays[i]);
	mutex_unlock(&lraid_ctl_mutex);
}
