/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loop bodies shared by the SIMD parity implementations, written once with
 * GCC vector extensions. Included by lraid_gf_avx2.c, lraid_gf_avx512.c and
 * lraid_gf_gfni.c (each built with its own -m flags, see module/Kbuild),
 * which first define:
 *
 *   GF_VW              vector width in bytes (32 or 64)
 *   GF_BLK             bytes per unrolled step (multiple of 64)
 *   gfv                u8 vector of GF_VW bytes
 *   gf_mul2(x)         x * 2 in every byte
 *   struct gf_mulc, gf_mulc_init(m, c), gf_mulc(m, x): x * c in every byte
 *
 * Everything here runs between lraid_gf_begin() and lraid_gf_end() only.
 *
 * Every operation walks the blocks column by column: for each GF_BLK bytes
 * it reads each source once and keeps P and Q (Horner's rule for
 * Q = sum g^i D_i) in registers, so each byte of every buffer crosses the
 * memory bus once, also for recovery and read-modify-write.
 */
#ifndef LRAID_GF_SIMD_H
#define LRAID_GF_SIMD_H

#define GF_NV	(GF_BLK / GF_VW)	/* vectors per unrolled step */
#define GF_NV1	(64 / GF_VW)		/* vectors per 64-byte tail step */

typedef gfv gfv_u __aligned(1) __attribute__((may_alias));

/*
 * Software prefetch for large blocks: with a dozen streams the hardware
 * prefetchers alone leave DRAM bandwidth unused. Hot 4 KiB blocks go
 * without (@pref false), where it only costs issue slots.
 */
#define GF_PF		1024
#define GF_PF_MIN	(64 * 1024)

static __always_inline void pf(const void *base, size_t off, bool pref)
{
	unsigned int j;

	if (!pref)
		return;
#pragma GCC unroll 8
	for (j = 0; j < GF_BLK; j += 64)
		__builtin_prefetch((const u8 *)base + off + GF_PF + j);
}

static __always_inline gfv ldv(const void *base, size_t off)
{
	return *(const gfv_u *)((const u8 *)base + off);
}

static __always_inline void stv(void *base, size_t off, gfv v)
{
	*(gfv_u *)((u8 *)base + off) = v;
}

static __always_inline void xor_step(unsigned int n, void *const *src,
				     void *dst, size_t off, unsigned int nv,
				     bool pref)
{
	gfv w[GF_NV];
	unsigned int i, j;

#pragma GCC unroll 8
	for (j = 0; j < nv; j++)
		w[j] = ldv(src[0], off + j * GF_VW);
	pf(src[0], off, pref);
	for (i = 1; i < n; i++) {
		const void *s = src[i];

		pf(s, off, pref);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++)
			w[j] ^= ldv(s, off + j * GF_VW);
	}
#pragma GCC unroll 8
	for (j = 0; j < nv; j++)
		stv(dst, off + j * GF_VW, w[j]);
}

static void simd_xor_gen(unsigned int n, size_t len, void *const *src,
			 void *dst)
{
	size_t off = 0;

	if (len >= GF_PF_MIN)
		for (; off + GF_BLK <= len; off += GF_BLK)
			xor_step(n, src, dst, off, GF_NV, true);
	for (; off + GF_BLK <= len; off += GF_BLK)
		xor_step(n, src, dst, off, GF_NV, false);
	for (; off < len; off += 64)
		xor_step(n, src, dst, off, GF_NV1, false);
}

static __always_inline void pq_step(unsigned int k, void *const *data,
				    void *p, void *q, size_t off,
				    unsigned int nv, bool pref)
{
	gfv wp[GF_NV], wq[GF_NV], d;
	unsigned int j;
	int i;

#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		wp[j] = ldv(data[k - 1], off + j * GF_VW);
		wq[j] = wp[j];
	}
	pf(data[k - 1], off, pref);
	for (i = k - 2; i >= 0; i--) {
		const void *s = data[i];

		pf(s, off, pref);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++) {
			d = ldv(s, off + j * GF_VW);
			wp[j] ^= d;
			wq[j] = gf_mul2(wq[j]) ^ d;
		}
	}
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		stv(p, off + j * GF_VW, wp[j]);
		stv(q, off + j * GF_VW, wq[j]);
	}
}

static void simd_gen_pq(unsigned int k, size_t len, void *const *data,
			void *p, void *q)
{
	size_t off = 0;

	if (len >= GF_PF_MIN)
		for (; off + GF_BLK <= len; off += GF_BLK)
			pq_step(k, data, p, q, off, GF_NV, true);
	for (; off + GF_BLK <= len; off += GF_BLK)
		pq_step(k, data, p, q, off, GF_NV, false);
	for (; off < len; off += 64)
		pq_step(k, data, p, q, off, GF_NV1, false);
}

/* P ^= sum(old ^ new), Q ^= g^first * sum g^j (old_j ^ new_j). */
static __always_inline void upd_step(unsigned int first, unsigned int n,
				     void *const *old, void *const *new,
				     void *p, void *q, size_t off,
				     const struct gf_mulc *scale,
				     unsigned int nv, bool pref)
{
	gfv wp[GF_NV], wq[GF_NV], d;
	unsigned int j;
	int i;

#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		d = ldv(old[n - 1], off + j * GF_VW) ^
		    ldv(new[n - 1], off + j * GF_VW);
		wp[j] = d;
		wq[j] = d;
	}
	pf(old[n - 1], off, pref);
	pf(new[n - 1], off, pref);
	pf(p, off, pref);
	pf(q, off, pref);
	for (i = n - 2; i >= 0; i--) {
		const void *o = old[i], *nw = new[i];

		pf(o, off, pref);
		pf(nw, off, pref);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++) {
			d = ldv(o, off + j * GF_VW) ^ ldv(nw, off + j * GF_VW);
			wp[j] ^= d;
			wq[j] = gf_mul2(wq[j]) ^ d;
		}
	}
	if (first) {
#pragma GCC unroll 8
		for (j = 0; j < nv; j++)
			wq[j] = gf_mulc(scale, wq[j]);
	}
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		stv(p, off + j * GF_VW, ldv(p, off + j * GF_VW) ^ wp[j]);
		stv(q, off + j * GF_VW, ldv(q, off + j * GF_VW) ^ wq[j]);
	}
}

static void simd_update_pq(unsigned int first, unsigned int n, size_t len,
			   void *const *old, void *const *new, void *p,
			   void *q)
{
	struct gf_mulc scale;
	size_t off = 0;

	gf_mulc_init(&scale, lraid_gf_pow2(first));
	if (len >= GF_PF_MIN)
		for (; off + GF_BLK <= len; off += GF_BLK)
			upd_step(first, n, old, new, p, q, off, &scale, GF_NV, true);
	for (; off + GF_BLK <= len; off += GF_BLK)
		upd_step(first, n, old, new, p, q, off, &scale, GF_NV, false);
	for (; off < len; off += 64)
		upd_step(first, n, old, new, p, q, off, &scale, GF_NV1, false);
}

/*
 * Syndromes of the surviving data: wp = P ^ xor of survivors (if @p), wq =
 * sum g^i D_i over survivors (bit i of @lost set: D_i taken as zero).
 */
static __always_inline void syn_step(unsigned int k, void *const *data,
				     u32 lost, const void *p, gfv *wp,
				     gfv *wq, size_t off, unsigned int nv,
				     bool pref)
{
	const gfv zero = { 0 };
	gfv d;
	unsigned int j;
	int i;

#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		wp[j] = p ? ldv(p, off + j * GF_VW) : zero;
		wq[j] = zero;
	}
	for (i = k - 1; i >= 0; i--) {
		const void *s = data[i];

		if (lost & (1U << i)) {
#pragma GCC unroll 8
			for (j = 0; j < nv; j++)
				wq[j] = gf_mul2(wq[j]);
			continue;
		}
		pf(s, off, pref);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++) {
			d = ldv(s, off + j * GF_VW);
			wp[j] ^= d;
			wq[j] = gf_mul2(wq[j]) ^ d;
		}
	}
}

static __always_inline void r2_step(unsigned int k, void *const *data,
				    unsigned int fa, unsigned int fb,
				    const void *p, const void *q,
				    const struct gf_mulc *ca,
				    const struct gf_mulc *cb, size_t off,
				    unsigned int nv, bool pref)
{
	gfv wp[GF_NV], wq[GF_NV], da;
	unsigned int j;

	syn_step(k, data, (1U << fa) | (1U << fb), p, wp, wq, off, nv,
		 pref);
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		wq[j] ^= ldv(q, off + j * GF_VW);
		da = gf_mulc(ca, wp[j]) ^ gf_mulc(cb, wq[j]);
		stv(data[fa], off + j * GF_VW, da);
		stv(data[fb], off + j * GF_VW, da ^ wp[j]);
	}
}

static void simd_recov_2data(unsigned int k, size_t len, void *const *data,
			     unsigned int fa, unsigned int fb,
			     const void *p, const void *q)
{
	struct gf_mulc ca, cb;
	size_t off = 0;
	u8 a, b;

	lraid_gf_2data_coef(fa, fb, &a, &b);
	gf_mulc_init(&ca, a);
	gf_mulc_init(&cb, b);
	if (len >= GF_PF_MIN)
		for (; off + GF_BLK <= len; off += GF_BLK)
			r2_step(k, data, fa, fb, p, q, &ca, &cb, off, GF_NV, true);
	for (; off + GF_BLK <= len; off += GF_BLK)
		r2_step(k, data, fa, fb, p, q, &ca, &cb, off, GF_NV, false);
	for (; off < len; off += 64)
		r2_step(k, data, fa, fb, p, q, &ca, &cb, off, GF_NV1, false);
}

static __always_inline void rq_step(unsigned int k, void *const *data,
				    unsigned int fa, void *p, const void *q,
				    const struct gf_mulc *c, size_t off,
				    unsigned int nv, bool pref)
{
	gfv wp[GF_NV], wq[GF_NV], da;
	unsigned int j;

	syn_step(k, data, 1U << fa, NULL, wp, wq, off, nv, pref);
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		da = gf_mulc(c, wq[j] ^ ldv(q, off + j * GF_VW));
		stv(data[fa], off + j * GF_VW, da);
		stv(p, off + j * GF_VW, wp[j] ^ da);
	}
}

static void simd_recov_data_q(unsigned int k, size_t len, void *const *data,
			      unsigned int fa, void *p, const void *q)
{
	struct gf_mulc c;
	size_t off = 0;

	gf_mulc_init(&c, lraid_gf_pow2(-(int)fa));
	if (len >= GF_PF_MIN)
		for (; off + GF_BLK <= len; off += GF_BLK)
			rq_step(k, data, fa, p, q, &c, off, GF_NV, true);
	for (; off + GF_BLK <= len; off += GF_BLK)
		rq_step(k, data, fa, p, q, &c, off, GF_NV, false);
	for (; off < len; off += 64)
		rq_step(k, data, fa, p, q, &c, off, GF_NV1, false);
}

#define LRAID_GF_SIMD_OPS			\
	.simd = true,				\
	.xor_gen = simd_xor_gen,		\
	.gen_pq = simd_gen_pq,			\
	.update_pq = simd_update_pq,		\
	.recov_2data = simd_recov_2data,	\
	.recov_data_q = simd_recov_data_q

#endif /* LRAID_GF_SIMD_H */
