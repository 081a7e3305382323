// SPDX-License-Identifier: GPL-2.0
/*
 * AVX2 parity: 32-byte vectors, multiply-by-2 with a signed compare,
 * constant multiplies with VPSHUFB nibble tables. Built with -mavx2; only
 * ever called between lraid_gf_begin() and lraid_gf_end().
 */
#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/types.h>
#include <kunit/visibility.h>
#endif

#include "lraid_gf.h"

/*
 * sparse models neither GCC vector types nor x86 builtins: it checks the
 * portable files only.
 */
#ifndef __CHECKER__

#define GF_VW	32
#define GF_QI(x)	((char __attribute__((vector_size(GF_VW))))(x))
#define GF_BLK	128

/*
 * GCC's x86 builtins are typed on vectors: gfv* name ours, GF_QI() casts to
 * the plain-char vector the byte builtins take.
 */
typedef u8 gfv __attribute__((vector_size(GF_VW)));
typedef s8 gfv_s __attribute__((vector_size(GF_VW)));
typedef u16 gfv_hi __attribute__((vector_size(GF_VW)));

static __always_inline gfv gf_mul2(gfv x)
{
	const gfv_s zero = { 0 };
	gfv hi = (gfv)((gfv_s)x < zero);

	return (x + x) ^ (hi & 0x1d);
}

struct gf_mulc {
	gfv lo, hi;
};

static inline void gf_mulc_init(struct gf_mulc *m, u8 c)
{
	const u8 *t = lraid_gf_nibble[c];
	unsigned int i;

	for (i = 0; i < GF_VW; i += 16) {
		__builtin_memcpy((u8 *)&m->lo + i, t, 16);
		__builtin_memcpy((u8 *)&m->hi + i, t + 16, 16);
	}
}

static __always_inline gfv gf_mulc(const struct gf_mulc *m, gfv x)
{
	gfv lo = x & 0x0f, hi = (gfv)((gfv_hi)x >> 4) & 0x0f;

	return (gfv)__builtin_ia32_pshufb256(GF_QI(m->lo), GF_QI(lo)) ^
	       (gfv)__builtin_ia32_pshufb256(GF_QI(m->hi), GF_QI(hi));
}

#include "lraid_gf_simd.h"

const struct lraid_gf_impl lraid_gf_impl_avx2 = {
	.name = "avx2",
	LRAID_GF_SIMD_OPS,
};
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_avx2);

#endif /* !__CHECKER__ */
