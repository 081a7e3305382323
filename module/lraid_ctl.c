// SPDX-License-Identifier: GPL-2.0
/*
 * lraid control device /dev/lraid-control: the versioned ioctl ABI of
 * uapi/lraid.h. Every user struct is copied once (copy_struct_from_user,
 * size from the ioctl number) and only the copy is validated and used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "lraid.h"
#include "uapi/lraid.h"

/* ABI layout; tools/lraidctl.c asserts the same */
static_assert(sizeof(struct lraid_ioc_version) == 48);
static_assert(sizeof(struct lraid_ioc_create) == 64);
static_assert(sizeof(struct lraid_ioc_assemble) == 56);
static_assert(sizeof(struct lraid_ioc_stop) == 24);
static_assert(sizeof(struct lraid_ioc_member) == 24);
static_assert(sizeof(struct lraid_ioc_fail) == 32);
static_assert(sizeof(struct lraid_ioc_add) == 32);
static_assert(sizeof(struct lraid_ioc_remove) == 32);
static_assert(sizeof(struct lraid_ioc_info) == 104 + 32 * 24);
static_assert(offsetof(struct lraid_ioc_create, member_fds) == 16);
static_assert(offsetof(struct lraid_ioc_assemble, member_fds) == 16);
static_assert(offsetof(struct lraid_ioc_info, members) == 104);
static_assert(LRAID_MAX_MEMBERS_ABI == LRAID_MAX_MEMBERS);

static bool lraid_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* Resolve the block device behind the user's file descriptor @fd. */
static int lraid_ctl_fd(s32 fd, dev_t *dev)
{
	struct file *f = fget(fd);
	struct inode *inode;

	if (!f)
		return -EBADF;
	inode = file_inode(f);
	if (!S_ISBLK(inode->i_mode)) {
		fput(f);
		pr_warn_ratelimited("member fd %d is not a block device\n", fd);
		return -ENOTBLK;
	}
	*dev = inode->i_rdev;
	fput(f);
	return 0;
}

/* Resolve the block devices behind @nr user file descriptors. */
static int lraid_ctl_fds(u64 uptr, unsigned int nr, dev_t *devs)
{
	s32 fds[LRAID_MAX_MEMBERS];
	unsigned int i;
	int ret;

	if (!nr || nr > LRAID_MAX_MEMBERS)
		return -EINVAL;
	if (copy_from_user(fds, u64_to_user_ptr(uptr), nr * sizeof(fds[0])))
		return -EFAULT;
	for (i = 0; i < nr; i++) {
		ret = lraid_ctl_fd(fds[i], &devs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static long lraid_ctl_version(void __user *arg, size_t usize)
{
	struct lraid_ioc_version v;
	int ret;

	ret = copy_struct_from_user(&v, sizeof(v), arg, usize);
	if (ret)
		return ret;
	if (!lraid_zero(v.reserved, sizeof(v.reserved)))
		return -EINVAL;
	v.major = LRAID_ABI_MAJOR;
	v.minor = LRAID_ABI_MINOR;
	v.features = LRAID_FEAT_RAID5 | LRAID_FEAT_RAID6 | LRAID_FEAT_DISCARD |
		     LRAID_FEAT_DEGRADED | LRAID_FEAT_REBUILD |
		     LRAID_FEAT_REMOVE | LRAID_FEAT_BITMAP | LRAID_FEAT_SPARES;
	if (copy_to_user(arg, &v, min(sizeof(v), usize)))
		return -EFAULT;
	return 0;
}

static long lraid_ctl_create(void __user *arg, size_t usize)
{
	struct lraid_create_args args = {};
	struct lraid_ioc_create c;
	int ret;

	ret = copy_struct_from_user(&c, sizeof(c), arg, usize);
	if (ret)
		return ret;
	if (c.flags & ~LRAID_CREATE_FLAGS || c.pad0 ||
	    !lraid_zero(c.reserved, sizeof(c.reserved)) ||
	    c.index >= LRAID_MAX_ARRAYS ||
	    (c.bitmap_region_bytes && !(c.flags & LRAID_CREATE_BITMAP)))
		return -EINVAL;
	ret = lraid_ctl_fds(c.member_fds, c.nr_members, args.devs);
	if (ret)
		return ret;
	args.index = c.index;
	args.level = c.level;
	args.nr_members = c.nr_members;
	args.chunk_bytes = c.chunk_bytes;
	args.data_offset = c.data_offset;
	args.assume_clean = c.flags & LRAID_CREATE_ASSUME_CLEAN;
	args.bitmap = c.flags & LRAID_CREATE_BITMAP;
	args.bitmap_region_bytes = c.bitmap_region_bytes;
	return lraid_array_create(&args);
}

static long lraid_ctl_assemble(void __user *arg, size_t usize)
{
	dev_t devs[LRAID_MAX_MEMBERS];
	struct lraid_ioc_assemble c;
	int ret;

	ret = copy_struct_from_user(&c, sizeof(c), arg, usize);
	if (ret)
		return ret;
	if ((c.flags & ~LRAID_ASSEMBLE_FLAGS) ||
	    !lraid_zero(c.pad0, sizeof(c.pad0)) ||
	    !lraid_zero(c.reserved, sizeof(c.reserved)) ||
	    c.index >= LRAID_MAX_ARRAYS)
		return -EINVAL;
	ret = lraid_ctl_fds(c.member_fds, c.nr_members, devs);
	if (ret)
		return ret;
	return lraid_array_assemble(c.index, c.nr_members, devs,
				    c.flags & LRAID_ASSEMBLE_FORCE);
}

static long lraid_ctl_stop(void __user *arg, size_t usize)
{
	struct lraid_ioc_stop c;
	int ret;

	ret = copy_struct_from_user(&c, sizeof(c), arg, usize);
	if (ret)
		return ret;
	if (c.flags || !lraid_zero(c.reserved, sizeof(c.reserved)) ||
	    c.index >= LRAID_MAX_ARRAYS)
		return -EINVAL;
	return lraid_array_stop(c.index);
}

/*
 * Fail and remove name a member the same way, an index and a dev_t with
 * no flags (struct lraid_ioc_remove has the fields of struct
 * lraid_ioc_fail): copy the struct once, check it, call @fn.
 */
static long lraid_ctl_member(void __user *arg, size_t usize,
			     int (*fn)(int index, dev_t dev))
{
	struct lraid_ioc_fail c;
	int ret;

	ret = copy_struct_from_user(&c, sizeof(c), arg, usize);
	if (ret)
		return ret;
	if (c.flags || !lraid_zero(c.reserved, sizeof(c.reserved)) ||
	    c.index >= LRAID_MAX_ARRAYS)
		return -EINVAL;
	if (c.major != MAJOR(MKDEV(c.major, c.minor)) ||
	    c.minor != MINOR(MKDEV(c.major, c.minor)))
		return -EINVAL;
	return fn(c.index, MKDEV(c.major, c.minor));
}

static_assert(sizeof(struct lraid_ioc_remove) ==
	      sizeof(struct lraid_ioc_fail));
static_assert(offsetof(struct lraid_ioc_remove, minor) ==
	      offsetof(struct lraid_ioc_fail, minor));

static long lraid_ctl_fail(void __user *arg, size_t usize)
{
	return lraid_ctl_member(arg, usize, lraid_array_fail);
}

static long lraid_ctl_remove(void __user *arg, size_t usize)
{
	return lraid_ctl_member(arg, usize, lraid_array_remove);
}

static long lraid_ctl_add(void __user *arg, size_t usize)
{
	struct lraid_ioc_add c;
	dev_t dev;
	int ret;

	ret = copy_struct_from_user(&c, sizeof(c), arg, usize);
	if (ret)
		return ret;
	if ((c.flags & ~LRAID_ADD_FLAGS) || c.pad0 ||
	    !lraid_zero(c.reserved, sizeof(c.reserved)) ||
	    c.index >= LRAID_MAX_ARRAYS)
		return -EINVAL;
	ret = lraid_ctl_fd(c.fd, &dev);
	if (ret)
		return ret;
	return lraid_array_add(c.index, dev, c.flags & LRAID_ADD_READD);
}

static long lraid_ctl_info(void __user *arg, size_t usize)
{
	struct lraid_ioc_info *c;
	struct lraid_array *a;
	unsigned int i, n;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = copy_struct_from_user(c, sizeof(*c), arg, usize);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (c->flags || c->index >= LRAID_MAX_ARRAYS)
		goto out;
	/* everything past index/flags is output: clear what the user sent */
	memset((u8 *)c + offsetof(struct lraid_ioc_info, level), 0,
	       sizeof(*c) - offsetof(struct lraid_ioc_info, level));

	mutex_lock(&lraid_ctl_mutex);
	ret = lraid_array_find(c->index, &a);
	if (ret) {
		mutex_unlock(&lraid_ctl_mutex);
		goto out;
	}
	c->level = a->geom.level;
	c->nr_members = a->geom.nr_members;
	c->state = a->clean ? LRAID_ARRAY_CLEAN : LRAID_ARRAY_ACTIVE;
	c->chunk_bytes = a->geom.chunk_sectors << SECTOR_SHIFT;
	c->array_sectors = a->geom.array_sectors;
	c->member_data_sectors = a->geom.member_sectors;
	c->data_offset = a->data_offset;
	c->events = READ_ONCE(a->events);	/* a->fail_work may write it */
	memcpy(c->uuid, a->uuid, sizeof(c->uuid));
	c->disk_major = a->disk->major;
	c->disk_minor = a->disk->first_minor;
	lraid_bitmap_info(a, &c->bitmap_region_sectors, &c->bitmap_regions,
			  &c->bitmap_dirty);
	for (i = 0; i < a->geom.nr_members; i++) {
		struct lraid_member *m = &a->members[i];

		c->members[i].major = MAJOR(m->dev);
		c->members[i].minor = MINOR(m->dev);
		c->members[i].role = i;	/* members[] is in role order */
		if (test_bit(i, &a->rebuilding))
			c->members[i].state = LRAID_MEMBER_REBUILDING;
		else if (READ_ONCE(a->failed) & BIT(i))
			c->members[i].state = LRAID_MEMBER_FAULTY;
		else
			c->members[i].state = LRAID_MEMBER_ACTIVE;
		c->members[i].sectors = m->sectors;
		c->members[i].read_errors = lraid_read_errors(m);
	}
	/* spares after the roles (a superblock write failed: faulty) */
	for (i = a->geom.nr_members, n = i; i < LRAID_MAX_MEMBERS; i++) {
		struct lraid_member *m = &a->members[i];

		if (!READ_ONCE(m->dev))
			continue;
		c->members[n].major = MAJOR(m->dev);
		c->members[n].minor = MINOR(m->dev);
		c->members[n].role = LRAID_ROLE_NONE;
		c->members[n].state = READ_ONCE(a->spare_bad) & BIT(i) ?
				      LRAID_MEMBER_FAULTY : LRAID_MEMBER_SPARE;
		c->members[n].sectors = m->sectors;
		n++;
	}
	c->nr_spares = n - a->geom.nr_members;
	mutex_unlock(&lraid_ctl_mutex);
	ret = 0;
	if (copy_to_user(arg, c, min(sizeof(*c), usize)))
		ret = -EFAULT;
out:
	kfree(c);
	return ret;
}

/*
 * @min_size: the size of the command's first struct (ABI 1.0). A caller
 * may pass an older or newer struct, but never one shorter than that:
 * copy_struct_from_user() would zero-fill what is missing, and a stop
 * with no struct at all would stop array 0.
 */
static const struct lraid_ctl_cmd {
	unsigned int cmd;
	long (*fn)(void __user *arg, size_t usize);
	size_t min_size;
} lraid_ctl_cmds[] = {
	{ LRAID_IOC_VERSION, lraid_ctl_version,
	  sizeof(struct lraid_ioc_version) },
	{ LRAID_IOC_CREATE, lraid_ctl_create,
	  sizeof(struct lraid_ioc_create) },
	{ LRAID_IOC_ASSEMBLE, lraid_ctl_assemble,
	  sizeof(struct lraid_ioc_assemble) },
	{ LRAID_IOC_STOP, lraid_ctl_stop, sizeof(struct lraid_ioc_stop) },
	{ LRAID_IOC_INFO, lraid_ctl_info, sizeof(struct lraid_ioc_info) },
	{ LRAID_IOC_FAIL, lraid_ctl_fail, sizeof(struct lraid_ioc_fail) },
	{ LRAID_IOC_ADD, lraid_ctl_add, sizeof(struct lraid_ioc_add) },
	{ LRAID_IOC_REMOVE, lraid_ctl_remove,
	  sizeof(struct lraid_ioc_remove) },
};

static long lraid_ctl_ioctl(struct file *file, unsigned int cmd,
			    unsigned long uarg)
{
	void __user *arg = (void __user *)uarg;
	size_t usize = _IOC_SIZE(cmd);
	unsigned int i;

	if (_IOC_TYPE(cmd) != LRAID_IOC_MAGIC)
		return -ENOTTY;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	/*
	 * Dispatch on the number and direction; the size may be that of an
	 * older or newer struct (copy_struct_from_user sorts that out).
	 */
	for (i = 0; i < ARRAY_SIZE(lraid_ctl_cmds); i++) {
		const struct lraid_ctl_cmd *c = &lraid_ctl_cmds[i];

		if (_IOC_NR(cmd) != _IOC_NR(c->cmd))
			continue;
		if (_IOC_DIR(cmd) != _IOC_DIR(c->cmd))
			return -ENOTTY;
		return usize < c->min_size ? -EINVAL : c->fn(arg, usize);
	}
	return -ENOTTY;
}

static const struct file_operations lraid_ctl_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = lraid_ctl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice lraid_ctl_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = LRAID_CONTROL_NAME,
	.fops = &lraid_ctl_fops,
	.mode = 0600,
};

int lraid_ctl_init(void)
{
	return misc_register(&lraid_ctl_dev);
}

void lraid_ctl_exit(void)
{
	misc_deregister(&lraid_ctl_dev);
}
