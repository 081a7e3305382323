// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/lraidN/lraid/: a running array's state. Where md's
 * /sys/block/mdN/md/ has the same value, the file has md's name and format
 * (level, layout, chunk_size, raid_disks, component_size, degraded, uuid,
 * and lraid_sync.c's sync_action, last_sync_action, mismatch_cnt,
 * sync_completed, sync_speed, sync_speed_min and sync_speed_max), so that
 * scripts written for md read lraid the same way; name and failed are
 * lraid's own. sync_action (a parity check or repair) and the two speed
 * limits are the files written. The group comes and goes with the disk
 * (add_disk() to del_gendisk(), which waits for readers in show()), and
 * the array outlives the disk's sysfs, so show() needs no reference of
 * its own.
 *
 * When a member fails, degraded and failed are notified (poll(2) on them
 * wakes, as on md's degraded) and the disk sends a "change" uevent once
 * the superblocks record it (md sends one only when an array starts).
 */
#include <linux/blkdev.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "lraid.h"
#include "lraid_sb.h"

static struct lraid_array *lraid_dev_array(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t level_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "raid%u\n", lraid_dev_array(dev)->geom.level);
}
static DEVICE_ATTR_RO(level);

/* md's number for left-symmetric, the only layout lraid places */
static ssize_t layout_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", LRAID_LAYOUT_LEFT_SYMMETRIC);
}
static DEVICE_ATTR_RO(layout);

/* bytes, as md's */
static ssize_t chunk_size_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  lraid_dev_array(dev)->geom.chunk_sectors << SECTOR_SHIFT);
}
static DEVICE_ATTR_RO(chunk_size);

static ssize_t raid_disks_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", lraid_dev_array(dev)->geom.nr_members);
}
static DEVICE_ATTR_RO(raid_disks);

/* KiB of each member's data area that holds array data, as md's */
static ssize_t component_size_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  lraid_dev_array(dev)->geom.member_sectors >> 1);
}
static DEVICE_ATTR_RO(component_size);

/* roles failed or missing; more than parity covers: the array failed */
static ssize_t degraded_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  hweight32(READ_ONCE(lraid_dev_array(dev)->failed)));
}
static DEVICE_ATTR_RO(degraded);

/* those roles, each named ("1,2,3", not a range; an empty line when none) */
static ssize_t failed_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct lraid_array *a = lraid_dev_array(dev);
	u32 failed = READ_ONCE(a->failed);
	unsigned int role;
	int len = 0;

	for (role = 0; role < a->geom.nr_members; role++)
		if (failed & BIT(role))
			len += sysfs_emit_at(buf, len, "%s%u", len ? "," : "",
					     role);
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(failed);

/* the superblocks' array UUID, written as lraidctl detail shows it */
static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pUb\n", lraid_dev_array(dev)->uuid);
}
static DEVICE_ATTR_RO(uuid);

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", lraid_dev_array(dev)->name);
}
static DEVICE_ATTR_RO(name);

/*
 * The write-intent bitmap (lraid_bitmap.c): data per bit in KiB (0 without
 * a bitmap), bits in use, bits set now.
 */
enum lraid_bm_field { LRAID_BM_REGION_KB, LRAID_BM_REGIONS, LRAID_BM_DIRTY };

static ssize_t lraid_bitmap_show(struct device *dev, char *buf,
				 enum lraid_bm_field f)
{
	u64 region;
	u32 regions, dirty;

	lraid_bitmap_info(lraid_dev_array(dev), &region, &regions, &dirty);
	return sysfs_emit(buf, "%llu\n", f == LRAID_BM_REGION_KB ?
			  (unsigned long long)region >> 1 :
			  f == LRAID_BM_REGIONS ? regions : dirty);
}

static ssize_t bitmap_region_kb_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return lraid_bitmap_show(dev, buf, LRAID_BM_REGION_KB);
}
static DEVICE_ATTR_RO(bitmap_region_kb);

static ssize_t bitmap_regions_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return lraid_bitmap_show(dev, buf, LRAID_BM_REGIONS);
}
static DEVICE_ATTR_RO(bitmap_regions);

static ssize_t bitmap_dirty_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return lraid_bitmap_show(dev, buf, LRAID_BM_DIRTY);
}
static DEVICE_ATTR_RO(bitmap_dirty);

static struct attribute *lraid_attrs[] = {
	&dev_attr_level.attr,
	&dev_attr_layout.attr,
	&dev_attr_chunk_size.attr,
	&dev_attr_raid_disks.attr,
	&dev_attr_component_size.attr,
	&dev_attr_degraded.attr,
	&dev_attr_failed.attr,
	&dev_attr_uuid.attr,
	&dev_attr_name.attr,
	&dev_attr_sync_action.attr,
	&dev_attr_last_sync_action.attr,
	&dev_attr_mismatch_cnt.attr,
	&dev_attr_sync_completed.attr,
	&dev_attr_sync_speed.attr,
	&dev_attr_sync_speed_min.attr,
	&dev_attr_sync_speed_max.attr,
	&dev_attr_bitmap_region_kb.attr,
	&dev_attr_bitmap_regions.attr,
	&dev_attr_bitmap_dirty.attr,
	NULL,
};

static const struct attribute_group lraid_attr_group = {
	.name = "lraid",
	.attrs = lraid_attrs,
};

const struct attribute_group *lraid_attr_groups[] = {
	&lraid_attr_group,
	NULL,
};

/*
 * Wake pollers of degraded and failed and send the disk's "change" uevent
 * (LRAID_DEGRADED=<degraded> in its environment). On system_wq, holding
 * nothing of the array's: sysfs_notify() takes kernfs's lock and the
 * uevent a global mutex and allocates, and whoever holds those may be in
 * reclaim waiting for writes to this array, which a->sb_mutex or
 * a->fail_work held here would stop.
 */
static void lraid_sysfs_work(struct work_struct *work)
{
	struct lraid_array *a = container_of(work, struct lraid_array,
					     sysfs_work);
	struct kobject *kobj = &disk_to_dev(a->disk)->kobj;
	char degraded[32], *envp[2];

	snprintf(degraded, sizeof(degraded), "LRAID_DEGRADED=%u",
		 hweight32(READ_ONCE(a->failed)));
	envp[0] = degraded;
	envp[1] = NULL;
	sysfs_notify(kobj, lraid_attr_group.name, "degraded");
	sysfs_notify(kobj, lraid_attr_group.name, "failed");
	kobject_uevent_env(kobj, KOBJ_CHANGE, envp);
}

void lraid_sysfs_init(struct lraid_array *a)
{
	INIT_WORK(&a->sysfs_work, lraid_sysfs_work);
}

/*
 * The failed set changed and the superblocks were written: queue the
 * notification. Under a->sb_mutex, which orders this against
 * lraid_sysfs_remove().
 */
void lraid_sysfs_changed(struct lraid_array *a)
{
	lockdep_assert_held(&a->sb_mutex);
	if (a->sysfs_live)
		queue_work(system_wq, &a->sysfs_work);
}

/* The disk is in sysfs now: notifications may go out. */
void lraid_sysfs_add(struct lraid_array *a)
{
	mutex_lock(&a->sb_mutex);
	a->sysfs_live = true;
	mutex_unlock(&a->sb_mutex);
}

/* Before del_gendisk(): no notification is queued or runs after this. */
void lraid_sysfs_remove(struct lraid_array *a)
{
	mutex_lock(&a->sb_mutex);
	a->sysfs_live = false;
	mutex_unlock(&a->sb_mutex);
	cancel_work_sync(&a->sysfs_work);
}
