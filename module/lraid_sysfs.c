// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/lraidN/lraid/: a running array's state, read-only. Where md's
 * /sys/block/mdN/md/ has the same value, the file has md's name and format
 * (level, layout, chunk_size, raid_disks, component_size, degraded, uuid),
 * so that scripts written for md read lraid the same way; name and failed
 * are lraid's own. The group comes and goes with the disk (add_disk() to
 * del_gendisk(), which waits for readers in show()), and the array outlives
 * the disk's sysfs, so show() needs no reference of its own.
 *
 * When a member fails, degraded and failed are notified (poll(2) on them
 * wakes, as on md's degraded) and the disk sends a "change" uevent once
 * the superblocks record it, as md does on a state change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/kobject.h>
#include <linux/sched/mm.h>
#include <linux/sysfs.h>

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

/* those roles as a list ("1,3"; an empty line when none) */
static ssize_t failed_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct lraid_array *a = lraid_dev_array(dev);
	unsigned long failed = READ_ONCE(a->failed);

	return sysfs_emit(buf, "%*pbl\n", a->geom.nr_members, &failed);
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
 * The failed set changed and the superblocks were written: wake pollers of
 * degraded and failed, and send the disk's "change" uevent. Under
 * a->sb_mutex, which orders this against the teardown taking the disk out
 * of sysfs (a->sysfs_live); the uevent allocates, and no allocation under
 * sb_mutex may wait for I/O to the array.
 */
void lraid_sysfs_changed(struct lraid_array *a)
{
	struct kobject *kobj;
	unsigned int noio;

	lockdep_assert_held(&a->sb_mutex);
	if (!a->sysfs_live)
		return;
	kobj = &disk_to_dev(a->disk)->kobj;
	sysfs_notify(kobj, lraid_attr_group.name, "degraded");
	sysfs_notify(kobj, lraid_attr_group.name, "failed");
	noio = memalloc_noio_save();
	kobject_uevent(kobj, KOBJ_CHANGE);
	memalloc_noio_restore(noio);
}
