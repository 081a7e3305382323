/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/module.h> in host builds of KUnit suites. */
#ifndef LRAID_KUNIT_USER_MODULE_H
#define LRAID_KUNIT_USER_MODULE_H

#define MODULE_DESCRIPTION(s) extern int kunit_user_unused
#define MODULE_LICENSE(s) extern int kunit_user_unused
#define MODULE_IMPORT_NS(ns) extern int kunit_user_unused

#endif
