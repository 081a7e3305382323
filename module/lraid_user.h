/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shims: lets the pure parts of lraid (geometry, superblock codec,
 * parity) compile unchanged outside the kernel for tests and benchmarks.
 * Kernel code never includes this; userspace builds add -include of it.
 */
#ifndef LRAID_USER_H
#define LRAID_USER_H
#ifndef __KERNEL__

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;

#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#define VISIBLE_IF_KUNIT

#endif /* !__KERNEL__ */
#endif /* LRAID_USER_H */
