// SPDX-License-Identifier: GPL-2.0
/*
 * Portable C parity baseline: 64 bits at a time, multiply-by-2 as a SWAR
 * operation, constant multiplies through a 256-entry product table. The
 * reference every other implementation is tested against.
 */
#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/types.h>
#include <kunit/visibility.h>
#endif

#include "lraid_gf.h"

#define GF_HI 0x8080808080808080ULL
#define GF_LO 0xfefefefefefefefeULL
#define GF_PP 0x1d1d1d1d1d1d1d1dULL

static inline u64 ld64(const void *base, size_t off)
{
	u64 v;

	__builtin_memcpy(&v, (const u8 *)base + off, sizeof(v));
	return v;
}

static inline void st64(void *base, size_t off, u64 v)
{
	__builtin_memcpy((u8 *)base + off, &v, sizeof(v));
}

/* Multiply each of the 8 bytes by 2 modulo 0x11D. */
static inline u64 mul2(u64 v)
{
	u64 m = v & GF_HI;

	m = (m << 1) - (m >> 7);
	return ((v << 1) & GF_LO) ^ (m & GF_PP);
}

static void mul_table(u8 c, u8 tbl[256])
{
	unsigned int i;

	for (i = 0; i < 256; i++)
		tbl[i] = lraid_gf_mul(c, i);
}

static inline u64 mul_const(const u8 tbl[256], u64 v)
{
	u64 r = 0;
	unsigned int s;

	for (s = 0; s < 64; s += 8)
		r |= (u64)tbl[(v >> s) & 0xff] << s;
	return r;
}

static void c_xor_gen(unsigned int n, size_t len, void *const *src, void *dst)
{
	size_t off;
	unsigned int i;

	for (off = 0; off < len; off += 8) {
		u64 x = ld64(src[0], off);

		for (i = 1; i < n; i++)
			x ^= ld64(src[i], off);
		st64(dst, off, x);
	}
}

static void c_gen_pq(unsigned int k, size_t len, void *const *data,
		     void *p, void *q)
{
	size_t off;
	int i;

	for (off = 0; off < len; off += 8) {
		u64 d = ld64(data[k - 1], off);
		u64 wp = d, wq = d;

		for (i = k - 2; i >= 0; i--) {
			d = ld64(data[i], off);
			wp ^= d;
			wq = mul2(wq) ^ d;
		}
		st64(p, off, wp);
		st64(q, off, wq);
	}
}

static void c_update_pq(unsigned int first, unsigned int n, size_t len,
			void *const *old, void *const *new, void *p, void *q)
{
	size_t off;
	unsigned int s;
	int j;

	for (off = 0; off < len; off += 8) {
		u64 wp = 0, wq = 0;

		for (j = n - 1; j >= 0; j--) {
			u64 d = ld64(old[j], off) ^ ld64(new[j], off);

			wp ^= d;
			wq = mul2(wq) ^ d;
		}
		for (s = 0; s < first; s++)
			wq = mul2(wq);
		st64(p, off, ld64(p, off) ^ wp);
		st64(q, off, ld64(q, off) ^ wq);
	}
}

static void c_recov_2data(unsigned int k, size_t len, void *const *data,
			  unsigned int fa, unsigned int fb,
			  const void *p, const void *q)
{
	u8 ta[256], tb[256], ca, cb;
	size_t off;
	int i;

	lraid_gf_2data_coef(fa, fb, &ca, &cb);
	mul_table(ca, ta);
	mul_table(cb, tb);
	for (off = 0; off < len; off += 8) {
		u64 wp = ld64(p, off), wq = 0, da;

		for (i = k - 1; i >= 0; i--) {
			u64 d = 0;

			if (i != fa && i != fb) {
				d = ld64(data[i], off);
				wp ^= d;
			}
			wq = mul2(wq) ^ d;
		}
		wq ^= ld64(q, off);
		da = mul_const(ta, wp) ^ mul_const(tb, wq);
		st64(data[fa], off, da);
		st64(data[fb], off, da ^ wp);
	}
}

static void c_recov_data_q(unsigned int k, size_t len, void *const *data,
			   unsigned int fa, void *p, const void *q)
{
	u8 t[256];
	size_t off;
	int i;

	mul_table(lraid_gf_pow2(-(int)fa), t);
	for (off = 0; off < len; off += 8) {
		u64 wp = 0, wq = 0, da;

		for (i = k - 1; i >= 0; i--) {
			u64 d = 0;

			if (i != fa) {
				d = ld64(data[i], off);
				wp ^= d;
			}
			wq = mul2(wq) ^ d;
		}
		da = mul_const(t, wq ^ ld64(q, off));
		st64(data[fa], off, da);
		st64(p, off, wp ^ da);
	}
}

const struct lraid_gf_impl lraid_gf_impl_c = {
	.name = "c",
	.simd = false,
	.xor_gen = c_xor_gen,
	.gen_pq = c_gen_pq,
	.update_pq = c_update_pq,
	.recov_2data = c_recov_2data,
	.recov_data_q = c_recov_data_q,
};
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_c);
