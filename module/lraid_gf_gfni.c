// SPDX-License-Identifier: GPL-2.0
/*
 * GFNI parity on 64-byte vectors: every GF(2^8) multiply by a constant,
 * including the x2 of Horner's rule, is one GF2P8AFFINEQB with the bit
 * matrix of that constant for polynomial 0x11D (GF2P8MULB reduces modulo
 * 0x11B and cannot be used for RAID6). Built with -mgfni -mavx512bw; only
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

#define GF_VW	64
#define GF_QI(x)	((char __attribute__((vector_size(GF_VW))))(x))
#define GF_BLK	256

/*
 * GCC's x86 builtins are typed on vectors: gfv* name ours, GF_QI() casts to
 * the plain-char vector the byte builtins take.
 */
typedef u8 gfv __attribute__((vector_size(GF_VW)));
typedef u64 gfv_di __attribute__((vector_size(GF_VW)));

/* lraid_gf_affine(2) */
#define GF_AFFINE_2	0x8001828488102040ULL

static __always_inline gfv affine(gfv x, gfv m)
{
	return (gfv)__builtin_ia32_vgf2p8affineqb_v64qi(GF_QI(x),
							GF_QI(m), 0);
}

/* The 8x8 matrix @m in every 64-bit lane. */
static __always_inline gfv splat64(u64 m)
{
	const gfv_di zero = { 0 };

	return (gfv)(zero + m);
}

static __always_inline gfv gf_mul2(gfv x)
{
	return affine(x, splat64(GF_AFFINE_2));
}

struct gf_mulc {
	gfv m;
};

static inline void gf_mulc_init(struct gf_mulc *m, u8 c)
{
	m->m = splat64(lraid_gf_affine_tbl[c]);
}

static __always_inline gfv gf_mulc(const struct gf_mulc *m, gfv x)
{
	return affine(x, m->m);
}

/* Multiply by any constant: its matrix in every lane (lraid_gf_simd.h). */
#define GF_HAVE_MULM

static __always_inline gfv gf_splatm(u64 m)
{
	return splat64(m);
}

static __always_inline gfv gf_mulm(gfv m, gfv x)
{
	return affine(x, m);
}

#include "lraid_gf_simd.h"

const struct lraid_gf_impl lraid_gf_impl_gfni = {
	.name = "gfni",
	LRAID_GF_SIMD_OPS,
};
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_gfni);

#endif /* !__CHECKER__ */
