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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Arithmetic helpers the kernel has in <linux/math64.h> and <linux/log2.h>. */
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define ilog2(n) (63 - __builtin_clzll((unsigned long long)(n)))

/* Logging, allocation and time for code shared with the kernel. */
#define pr_info(...)	printf(__VA_ARGS__)
#define pr_warn(...)	fprintf(stderr, __VA_ARGS__)
#define GFP_KERNEL	0
#define kmalloc(size, gfp)	malloc(size)
#define kfree(ptr)	free(ptr)

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* !__KERNEL__ */
#endif /* LRAID_USER_H */
