// SPDX-License-Identifier: GPL-2.0
/*
 * lraid module init/exit: block major, parity library, control device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

#include "lraid.h"
#include "lraid_gf.h"

/* guards the array tables (lraid_array.c); never held across I/O */
DEFINE_MUTEX(lraid_ctl_mutex);
int lraid_major;

static int __init lraid_init(void)
{
	int ret;

	lraid_array_module_init();
	ret = lraid_gf_module_init();
	if (ret)
		return ret;
	ret = lraid_io_module_init();
	if (ret)
		return ret;
	ret = lraid_stripe_module_init();
	if (ret)
		goto out_io;

	lraid_major = register_blkdev(0, "lraid");
	if (lraid_major < 0) {
		ret = lraid_major;
		goto out_stripe;
	}

	ret = lraid_ctl_init();
	if (ret)
		goto out_blkdev;
	pr_info("loaded, parity %s\n", lraid_gf_name());
	return 0;

out_blkdev:
	unregister_blkdev(lraid_major, "lraid");
out_stripe:
	lraid_stripe_module_exit();
out_io:
	lraid_io_module_exit();
	return ret;
}

static void __exit lraid_exit(void)
{
	lraid_ctl_exit();
	lraid_array_stop_all();
	unregister_blkdev(lraid_major, "lraid");
	lraid_stripe_module_exit();
	lraid_io_module_exit();
}

module_init(lraid_init);
module_exit(lraid_exit);

MODULE_DESCRIPTION("lraid: RAID5/RAID6 block driver");
MODULE_LICENSE("GPL");
