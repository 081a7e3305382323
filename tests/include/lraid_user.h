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

typedef int8_t s8;
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
#define U64_MAX UINT64_MAX
#define U32_MAX UINT32_MAX

#define ilog2(n) (63 - __builtin_clzll((unsigned long long)(n)))

#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#ifndef __aligned
#define __aligned(x)	__attribute__((aligned(x)))
#endif

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

/* Byte order (<asm/byteorder.h>); on-disk formats are little-endian. */
#include <assert.h>
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define cpu_to_le16(x)	((__le16)(x))
#define cpu_to_le32(x)	((__le32)(x))
#define cpu_to_le64(x)	((__le64)(x))
#else
#define cpu_to_le16(x)	((__le16)__builtin_bswap16(x))
#define cpu_to_le32(x)	((__le32)__builtin_bswap32(x))
#define cpu_to_le64(x)	((__le64)__builtin_bswap64(x))
#endif
#define le16_to_cpu(x)	((u16)cpu_to_le16(x))
#define le32_to_cpu(x)	((u32)cpu_to_le32(x))
#define le64_to_cpu(x)	((u64)cpu_to_le64(x))
#define hweight32(x)	((unsigned int)__builtin_popcount(x))

/*
 * crc32c() as <linux/crc32c.h> has it: Castagnoli polynomial, reflected,
 * no initial or final inversion (callers pass ~0 and invert). Nibble table.
 */
static inline u32 crc32c(u32 crc, const void *buf, unsigned int len)
{
	static const u32 t[16] = {
		0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1,
		0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
		0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
		0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
	};
	const u8 *p = buf;

	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ t[crc & 15];
		crc = (crc >> 4) ^ t[crc & 15];
	}
	return crc;
}

#endif /* !__KERNEL__ */
#endif /* LRAID_USER_H */
