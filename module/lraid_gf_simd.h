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

typedef u8 gfv_u __attribute__((vector_size(GF_VW), may_alias)) __aligned(1);

/*
 * Software prefetch for large blocks, where it measured faster: the
 * Horner loops (one source after the other) and XOR of 12+ sources. Hot
 * 4 KiB blocks go without (@pref false), where it only costs issue slots.
 */
#define GF_PF		512
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

/*
 * Load for a value used twice (XOR and multiply): the empty asm pins it in
 * a register. Without it GCC folds the load into both instructions as a
 * memory operand and loads every source twice, which made the loops
 * load-bound (GFNI recovery at k = 8: 1.35x slower).
 */
static __always_inline gfv ldv1(const void *base, size_t off)
{
	gfv v = ldv(base, off);

	asm("" : "+v" (v));
	return v;
}

static __always_inline void stv(void *base, size_t off, gfv v)
{
	*(gfv_u *)((u8 *)base + off) = v;
}

/*
 * Non-temporal store of one vector to a GF_VW-aligned address: parity of
 * large blocks is written once and not read back by the CPU (it goes to
 * disk), so it bypasses the caches instead of evicting the data being
 * read and paying a read-for-ownership per line. The caller ends the
 * operation with nt_fence(), so the stores are globally visible before
 * the buffer is handed on (e.g. to a DMA engine).
 */
static __always_inline void stv_nt(void *base, size_t off, gfv v)
{
	asm volatile("vmovntdq %1, %0"
		     : "=m" (*(gfv_u *)((u8 *)base + off)) : "v" (v));
}

static __always_inline void nt_fence(void)
{
	asm volatile("sfence" : : : "memory");
}

/* Large blocks with the destinations aligned get non-temporal stores. */
static __always_inline bool use_nt(size_t len, const void *a, const void *b)
{
	return len >= GF_PF_MIN &&
	       !(((unsigned long)a | (unsigned long)b) & (GF_VW - 1));
}

static __always_inline void xor_step(unsigned int n, void *const *src,
				     void *dst, size_t off, unsigned int nv,
				     bool nt)
{
	/* only 12+ streams from DRAM gain from software prefetch here */
	bool pref = nt && nv == GF_NV && n >= 12;
	gfv w[GF_NV];
	unsigned int i, j;

#pragma GCC unroll 8
	for (j = 0; j < nv; j++)
		w[j] = ldv(src[0], off + j * GF_VW);
	pf(src[0], off, pref);
	/*
	 * Two sources per iteration, their loads interleaved: from DRAM this
	 * runs 1.4x faster than one source after the other at k = 8 (the
	 * hardware prefetchers keep more streams busy), and up to 8 sources
	 * software prefetch only slows it down.
	 */
	for (i = 1; i + 1 < n; i += 2) {
		const void *s0 = src[i], *s1 = src[i + 1];

		pf(s0, off, pref);
		pf(s1, off, pref);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++)
			w[j] ^= ldv(s0, off + j * GF_VW) ^
				ldv(s1, off + j * GF_VW);
	}
	if (i < n) {
		pf(src[i], off, pref);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++)
			w[j] ^= ldv(src[i], off + j * GF_VW);
	}
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		if (nt)
			stv_nt(dst, off + j * GF_VW, w[j]);
		else
			stv(dst, off + j * GF_VW, w[j]);
	}
}

static void simd_xor_gen(unsigned int n, size_t len, void *const *src,
			 void *dst)
{
	size_t off = 0;

	if (use_nt(len, dst, dst)) {
		for (; off + GF_BLK <= len; off += GF_BLK)
			xor_step(n, src, dst, off, GF_NV, true);
		for (; off < len; off += 64)
			xor_step(n, src, dst, off, GF_NV1, true);
		nt_fence();
		return;
	}
	for (; off + GF_BLK <= len; off += GF_BLK)
		xor_step(n, src, dst, off, GF_NV, false);
	for (; off < len; off += 64)
		xor_step(n, src, dst, off, GF_NV1, false);
}

static __always_inline void pq_step(unsigned int k, void *const *data,
				    void *p, void *q, size_t off,
				    unsigned int nv, bool pref, bool nt)
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
		if (nt) {
			stv_nt(p, off + j * GF_VW, wp[j]);
			stv_nt(q, off + j * GF_VW, wq[j]);
		} else {
			stv(p, off + j * GF_VW, wp[j]);
			stv(q, off + j * GF_VW, wq[j]);
		}
	}
}

#ifndef GF_HAVE_MULM
static void simd_gen_pq(unsigned int k, size_t len, void *const *data,
			void *p, void *q)
{
	size_t off = 0;

	if (use_nt(len, p, q)) {
		for (; off + GF_BLK <= len; off += GF_BLK)
			pq_step(k, data, p, q, off, GF_NV, true, true);
		for (; off < len; off += 64)
			pq_step(k, data, p, q, off, GF_NV1, false, true);
		nt_fence();
		return;
	}
	if (len >= GF_PF_MIN)
		for (; off + GF_BLK <= len; off += GF_BLK)
			pq_step(k, data, p, q, off, GF_NV, true, false);
	for (; off + GF_BLK <= len; off += GF_BLK)
		pq_step(k, data, p, q, off, GF_NV, false, false);
	for (; off < len; off += 64)
		pq_step(k, data, p, q, off, GF_NV1, false, false);
}
#endif

/* P ^= sum(old ^ new), Q ^= g^first * sum g^j (old_j ^ new_j). */
static __always_inline void upd_step(unsigned int first, unsigned int n,
				     void *const *old, void *const *new,
				     void *p, void *q, size_t off,
				     const struct gf_mulc *scale,
				     unsigned int nv)
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
	for (i = n - 2; i >= 0; i--) {
		const void *o = old[i], *nw = new[i];

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
	for (; off + GF_BLK <= len; off += GF_BLK)
		upd_step(first, n, old, new, p, q, off, &scale, GF_NV);
	for (; off < len; off += 64)
		upd_step(first, n, old, new, p, q, off, &scale, GF_NV1);
}

#ifndef GF_HAVE_MULM
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

#define GF_GEN_PQ	simd_gen_pq
#define GF_RECOV_2DATA	simd_recov_2data
#define GF_RECOV_DATA_Q	simd_recov_data_q
#else
/*
 * Recovery as one linear combination per output, for implementations where
 * a multiply by any constant costs as little as a multiply by 2 (GFNI: one
 * GF2P8AFFINEQB with the constant's matrix). Instead of Horner's rule,
 * whose multiply-then-add chain runs through every source, each source is
 * multiplied by its own coefficient, so the multiplies are independent and
 * only XORs are chained:
 *
 *   x = t[0].s ^ ... ^ t[n - 1].s
 *   y = t[0].m * t[0].s ^ ... ^ t[n - 1].m * t[n - 1].s ^ lm * ls
 *   out1 = y, out2 = y ^ x
 *
 * Two data lost (a, b): t = survivors (m = ca ^ cb * g^i) and P (m = ca),
 * ls = Q (lm = cb); out1 = Da, out2 = Db. Data a and P lost: t = survivors
 * (m = g^(i - a)), ls = Q (lm = g^-a); out1 = Da, out2 = P.
 */
struct gf_term {
	const void *s;
	u64 m;
};

static __always_inline void lin_step(unsigned int n,
				     const struct gf_term *__restrict t,
				     const void *ls, gfv lm, void *out1,
				     void *out2, size_t off, unsigned int nv,
				     bool nt, bool gen)
{
	gfv x[GF_NV], y[GF_NV], m;
	unsigned int i, j;

	m = gf_splatm(t[0].m);
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		x[j] = ldv1(t[0].s, off + j * GF_VW);
		y[j] = gf_mulm(m, x[j]);
		if (!gen)
			y[j] ^= gf_mulm(lm, ldv(ls, off + j * GF_VW));
	}
	/*
	 * Two sources per iteration: the two XORs into each accumulator
	 * become one three-input VPTERNLOG, which keeps the vector ALUs from
	 * being the limit.
	 */
	for (i = 1; i + 1 < n; i += 2) {
		const void *s0 = t[i].s, *s1 = t[i + 1].s;
		gfv m1 = gf_splatm(t[i + 1].m);

		m = gf_splatm(t[i].m);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++) {
			gfv d0 = ldv1(s0, off + j * GF_VW);
			gfv d1 = ldv1(s1, off + j * GF_VW);

			x[j] ^= d0 ^ d1;
			y[j] ^= gf_mulm(m, d0) ^ gf_mulm(m1, d1);
		}
	}
	if (i < n) {
		const void *s = t[i].s;

		m = gf_splatm(t[i].m);
#pragma GCC unroll 8
		for (j = 0; j < nv; j++) {
			gfv d = ldv1(s, off + j * GF_VW);

			x[j] ^= d;
			y[j] ^= gf_mulm(m, d);
		}
	}
#pragma GCC unroll 8
	for (j = 0; j < nv; j++) {
		if (!gen)
			x[j] ^= y[j];
		if (nt) {
			stv_nt(out1, off + j * GF_VW, y[j]);
			stv_nt(out2, off + j * GF_VW, x[j]);
		} else {
			stv(out1, off + j * GF_VW, y[j]);
			stv(out2, off + j * GF_VW, x[j]);
		}
	}
}

static __always_inline void lin_range(unsigned int n,
				      const struct gf_term *__restrict t,
				      const void *ls, gfv lm, void *out1,
				      void *out2, size_t len, bool nt,
				      bool gen)
{
	size_t off = 0;

	for (; off + GF_BLK <= len; off += GF_BLK)
		lin_step(n, t, ls, lm, out1, out2, off, GF_NV, nt, gen);
	for (; off < len; off += 64)
		lin_step(n, t, ls, lm, out1, out2, off, GF_NV1, nt, gen);
}

static __always_inline void lin_all(unsigned int n, size_t len,
				    const struct gf_term *__restrict t,
				    const void *ls, u64 lm, void *out1,
				    void *out2, bool gen)
{
	gfv m = gf_splatm(lm);

	/*
	 * No software prefetch from DRAM either: the two sources per step
	 * already keep the hardware prefetchers busy, and prefetching 256 B
	 * or more ahead measured up to 1.4x slower (k = 8, 1 MiB).
	 */
	if (use_nt(len, out1, out2)) {
		lin_range(n, t, ls, m, out1, out2, len, true, gen);
		nt_fence();
		return;
	}

	/*
	 * Few sources (small arrays, where the blocks stay in L1): a copy of
	 * the loop per count, so the source loop is unrolled and the
	 * pointers and matrices stay in registers.
	 */
	switch (n) {
	case 1:
		lin_range(1, t, ls, m, out1, out2, len, false, gen);
		break;
	case 2:
		lin_range(2, t, ls, m, out1, out2, len, false, gen);
		break;
	case 3:
		lin_range(3, t, ls, m, out1, out2, len, false, gen);
		break;
	case 4:
		lin_range(4, t, ls, m, out1, out2, len, false, gen);
		break;
	case 5:
		lin_range(5, t, ls, m, out1, out2, len, false, gen);
		break;
	case 6:
		lin_range(6, t, ls, m, out1, out2, len, false, gen);
		break;
	case 7:
		lin_range(7, t, ls, m, out1, out2, len, false, gen);
		break;
	case 8:
		lin_range(8, t, ls, m, out1, out2, len, false, gen);
		break;
	default:
		lin_range(n, t, ls, m, out1, out2, len, false, gen);
		break;
	}
}

/* Recovery: out1 = y, out2 = y ^ x, with the extra source @ls. */
static void simd_lin(unsigned int n, size_t len,
		     const struct gf_term *__restrict t, const void *ls,
		     u64 lm, void *out1, void *out2)
{
	lin_all(n, len, t, ls, lm, out1, out2, false);
}

static void simd_lin_gen_pq(unsigned int k, size_t len, void *const *data,
			    void *p, void *q)
{
	struct gf_term t[LRAID_GF_MAX_K];
	unsigned int i;

	for (i = 0; i < k; i++) {
		t[i].s = data[i];
		t[i].m = lraid_gf_affine_tbl[lraid_gf_exp[i]];
	}
	lin_all(k, len, t, NULL, 0, q, p, true);
}

static void simd_lin_recov_2data(unsigned int k, size_t len,
				 void *const *data, unsigned int fa,
				 unsigned int fb, const void *p,
				 const void *q)
{
	struct gf_term t[LRAID_GF_MAX_K];
	unsigned int i, n = 0;
	unsigned int lcb, e;
	u8 ca, cb;

	/*
	 * lraid_gf_2data_coef() in the log domain, inline: at 4 KiB and small
	 * k the chain of table look-ups is a measurable part of the call.
	 * cb = 1 / (g^fa ^ g^fb) = g^lcb, ca = g^fb * cb; lcb is 1..255 and
	 * exp[255] = 1. cb * g^i = g^(lcb + i); k <= 31 keeps the exponents
	 * below 2 * 255.
	 */
	lcb = 255 - lraid_gf_log[lraid_gf_exp[fa] ^ lraid_gf_exp[fb]];
	cb = lraid_gf_exp[lcb];
	e = lcb + fb;
	ca = lraid_gf_exp[e < 255 ? e : e - 255];
	for (i = 0; i < k; i++) {
		e = lcb + i;
		if (i == fa || i == fb)
			continue;
		t[n].s = data[i];
		t[n++].m = lraid_gf_affine_tbl[ca ^ lraid_gf_exp[e < 255 ? e : e - 255]];
	}
	t[n].s = p;
	t[n++].m = lraid_gf_affine_tbl[ca];
	simd_lin(n, len, t, q, lraid_gf_affine_tbl[cb], data[fa], data[fb]);
}

static void simd_lin_recov_data_q(unsigned int k, size_t len,
				  void *const *data, unsigned int fa,
				  void *p, const void *q)
{
	struct gf_term t[LRAID_GF_MAX_K];
	unsigned int i, n = 0;

	for (i = 0; i < k; i++) {
		/* g^(i - fa), i and fa < 255 */
		unsigned int e = i + 255 - fa;

		if (i == fa)
			continue;
		t[n].s = data[i];
		t[n++].m = lraid_gf_affine_tbl[lraid_gf_exp[e < 255 ? e : e - 255]];
	}
	simd_lin(n, len, t, q, lraid_gf_affine_tbl[lraid_gf_pow2(-(int)fa)],
		 data[fa], p);
}

#define GF_GEN_PQ	simd_lin_gen_pq
#define GF_RECOV_2DATA	simd_lin_recov_2data
#define GF_RECOV_DATA_Q	simd_lin_recov_data_q
#endif /* GF_HAVE_MULM */

#define LRAID_GF_SIMD_OPS			\
	.simd = true,				\
	.xor_gen = simd_xor_gen,		\
	.gen_pq = GF_GEN_PQ,			\
	.update_pq = simd_update_pq,		\
	.recov_2data = GF_RECOV_2DATA,		\
	.recov_data_q = GF_RECOV_DATA_Q

#endif /* LRAID_GF_SIMD_H */
