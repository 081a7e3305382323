// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the lraid parity library (module/lraid_gf*.c).
 *
 *  - known answers: GF(2^8) products and P/Q of fixed patterns, generated
 *    once in userspace with ISA-L (pq_gen, gf_mul) and pasted here; checked
 *    for every implementation the CPU supports, for generation and RMW;
 *  - every supported implementation against the C baseline on
 *    pseudo-random k, lengths, buffer offsets and data, for gen_p, gen_pq,
 *    update_pq (RAID5 and RAID6) and every recovery case.
 *
 * The random cases start from a seed drawn at load and named in every
 * failure: "insmod gf_kunit.ko seed=N" repeats a run. Every buffer
 * sits between guard bytes of its own pattern, checked after each case, so
 * a write past either end of a block fails too.
 *
 * Implementations the CPU lacks are reported as skipped with the reason
 * (scripts/guest/kunit.sh fails a skip the CPU's flags do not explain).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "lraid_gf.h"

#define KMAX	30
#define LMAX	8192
#define GUARD	64	/* bytes checked on each side of a block at least */

static unsigned long gf_seed;
module_param_named(seed, gf_seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the random cases (default: drawn at load)");

/* The random cases' state: the load's seed, then one stream per case. */
static void gf_seed_state(struct rnd_state *rs, u64 salt)
{
	prandom_seed_state(rs, (u64)gf_seed ^ salt);
}

/* Drawn and logged before any case runs: a crash still names it. */
static int gf_suite_init(struct kunit_suite *suite)
{
	if (!gf_seed)
		gf_seed = get_random_u32() | 1;
	pr_info("%s: seed=%lu (insmod gf_kunit.ko seed=%lu repeats it)\n",
		suite->name, gf_seed, gf_seed);
	return 0;
}

/* ---- known answers (ISA-L 2.30, see Documentation/parity.rst) ---- */

static u8 kat_fill(unsigned int i, unsigned int b)
{
	return (u8)((b * 7 + i * 29 + (b >> 5) * 3 + 1) ^ (i << 4));
}

static u32 fnv1a(const u8 *p, size_t n)
{
	u32 h = 2166136261u;

	while (n--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

/*
 * Data block i byte b is kat_fill(i, b); blocks first..first+n-1 are then
 * rewritten with kat_fill(i + 100, b) by RMW (n = 0: plain generation).
 */
struct gf_kat {
	unsigned int k, len, first, n;
	u32 p_fnv, q_fnv;
	u8 p16[16], q16[16];
};

static const struct gf_kat gf_kats[] = {
	{ 4, 512, 0, 0, 0x931b2945, 0x6d4c3525,
	  { 0x7c, 0x30, 0x0c, 0x18, 0x04, 0x40, 0x84, 0x98,
	    0x8c, 0xf0, 0x3c, 0x08, 0x04, 0x00, 0xc4, 0x88 },
	  { 0x16, 0xa8, 0x44, 0x5f, 0x92, 0x01, 0x6b, 0x00,
	    0x8d, 0xfe, 0x08, 0xfe, 0x83, 0x00, 0xb4, 0xa8 } },
	{ 13, 4096, 0, 0, 0x6a828cc5, 0xc31686c5,
	  { 0xe9, 0x84, 0x7f, 0x2a, 0xe5, 0x10, 0xcb, 0xa6,
	    0x61, 0x5c, 0x57, 0x02, 0xfd, 0xa8, 0xa3, 0x9e },
	  { 0xd2, 0x61, 0x14, 0x42, 0x19, 0x9b, 0xe5, 0x25,
	    0xc2, 0x99, 0x00, 0xaf, 0x65, 0xd9, 0x1e, 0x5d } },
	{ 30, 1024, 0, 0, 0xd9416305, 0x5272aec1,
	  { 0x53, 0x75, 0x17, 0xf5, 0x53, 0x7d, 0x4f, 0xbd,
	    0xd3, 0x35, 0x17, 0x35, 0x53, 0xcd, 0x9f, 0xad },
	  { 0xc8, 0x7d, 0xf4, 0x4f, 0xb1, 0x73, 0x3e, 0x25,
	    0x4d, 0x00, 0x8a, 0xf5, 0x56, 0x55, 0xea, 0xd8 } },
	{ 13, 4096, 2, 3, 0xe5d481c5, 0x40e43d3d,
	  { 0xd5, 0xd0, 0xe3, 0xe6, 0x11, 0xfc, 0xef, 0xc2,
	    0xcd, 0xe8, 0x1b, 0x1e, 0x29, 0x54, 0x47, 0x3a },
	  { 0x7f, 0x8c, 0x5f, 0x2e, 0xef, 0x6d, 0x1d, 0x27,
	    0x06, 0x00, 0x3e, 0x42, 0xbb, 0xbd, 0xba, 0x03 } },
	{ 30, 1024, 29, 1, 0xe59e9d05, 0x6ba61175,
	  { 0x47, 0x41, 0x23, 0xd9, 0x4f, 0x11, 0x33, 0xc9,
	    0x47, 0xa1, 0xa3, 0x89, 0xff, 0x51, 0xf3, 0xd9 },
	  { 0x2f, 0xd4, 0x5d, 0x5c, 0xcb, 0xfc, 0x96, 0x10,
	    0x8f, 0xc2, 0x06, 0xe4, 0x60, 0x0a, 0x65, 0xed } },
	{ 4, 512, 0, 4, 0x3ee4fd45, 0x51162099,
	  { 0x04, 0x00, 0xc4, 0x88, 0x9c, 0x90, 0x8c, 0x38,
	    0x04, 0x00, 0x04, 0x38, 0x8c, 0x90, 0x9c, 0x88 },
	  { 0x64, 0xe7, 0x53, 0x4f, 0x32, 0x51, 0xa0, 0x86,
	    0x56, 0x25, 0x9c, 0xd7, 0x49, 0x5a, 0x4b, 0xa0 } },
};

static void gf_kat_mul(struct kunit *test)
{
	/* ISA-L gf_mul / gf_inv */
	KUNIT_EXPECT_EQ(test, lraid_gf_mul(0x53, 0xca), 0x8f);
	KUNIT_EXPECT_EQ(test, lraid_gf_mul(0x80, 2), 0x1d);
	KUNIT_EXPECT_EQ(test, lraid_gf_mul(0xff, 0xff), 0xe2);
	KUNIT_EXPECT_EQ(test, lraid_gf_mul(0x1d, 0x8e), 0x80);
	KUNIT_EXPECT_EQ(test, lraid_gf_inv(0x53), 0x8c);
	KUNIT_EXPECT_EQ(test, lraid_gf_pow2(8), 0x1d);
	KUNIT_EXPECT_EQ(test, lraid_gf_pow2(-1), 0x8e);
	KUNIT_EXPECT_EQ(test, lraid_gf_pow2(255), 1);
}

/* ---- buffers ---- */

/* Offset of the first byte where @a and @b differ, -1 if none. */
static long first_diff(const void *a, const void *b, size_t len)
{
	const u8 *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return i;
	return -1;
}

#define GF_EXPECT_BUF(test, a, b, len, fmt, ...)			\
	KUNIT_EXPECT_EQ_MSG(test, first_diff(a, b, len), -1L,		\
			    "buffers differ at that offset (seed=%lu): "	\
			    fmt, gf_seed, ##__VA_ARGS__)

/*
 * Blocks of up to LMAX bytes at @b, each at a random offset into its
 * allocation @mem with at least GUARD bytes free on either side.
 */
#define GF_MEM	(GUARD + 64 + LMAX + GUARD)

struct gf_bufs {
	u8 *mem[2 * KMAX + 6];
	u8 *b[2 * KMAX + 6];	/* mem + GUARD + random offset */
	unsigned int nr;
};

static int gf_bufs_alloc(struct kunit *test, struct gf_bufs *s,
			 struct rnd_state *rs)
{
	unsigned int i;

	s->nr = ARRAY_SIZE(s->mem);
	for (i = 0; i < s->nr; i++) {
		s->mem[i] = kunit_kmalloc(test, GF_MEM, GFP_KERNEL);
		if (!s->mem[i])
			return -ENOMEM;
		/* 64-byte aligned mostly, any 8-byte offset sometimes */
		s->b[i] = s->mem[i] + GUARD +
			  (rs && prandom_u32_state(rs) % 2 ?
			   8 * (prandom_u32_state(rs) % 8) : 0);
	}
	return 0;
}

/*
 * Guard byte @j of allocation @i: a pattern of its own per allocation, so
 * an overrun that copies or XORs other blocks' guards shows too.
 */
static u8 guard_byte(unsigned int i, size_t j)
{
	return (u8)(i * 73 + j * 151 + (j >> 8) + 0x3c);
}

/* Fill the bytes of @mem (@size) outside [@b, @b + @len) with guards. */
static void guard_set(u8 *mem, size_t size, const u8 *b, size_t len,
		      unsigned int i)
{
	size_t j;

	for (j = 0; j < size; j++)
		if (mem + j < b || mem + j >= b + len)
			mem[j] = guard_byte(i, j);
}

/* Offset from @b of the first guard byte changed, 0 if none. */
static long guard_bad(const u8 *mem, size_t size, const u8 *b, size_t len,
		      unsigned int i)
{
	size_t j;

	for (j = 0; j < size; j++)
		if ((mem + j < b || mem + j >= b + len) &&
		    mem[j] != guard_byte(i, j))
			return (long)(mem + j - b);
	return 0;
}

static void gf_guards_set(struct gf_bufs *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		guard_set(s->mem[i], GF_MEM, s->b[i], len, i);
}

static __printf(4, 5) void gf_expect_guards(struct kunit *test,
					    const struct gf_bufs *s,
					    size_t len, const char *fmt, ...)
{
	unsigned int i;
	long off;
	va_list ap;
	char what[64];

	for (i = 0; i < s->nr; i++) {
		off = guard_bad(s->mem[i], GF_MEM, s->b[i], len, i);
		if (!off)
			continue;
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		KUNIT_FAIL(test,
			   "%s: block %u written at %ld, outside its %zu bytes (seed=%lu)",
			   what, i, off, len, gf_seed);
		return;
	}
}

static void fill_rand(struct rnd_state *rs, u8 *p, size_t len)
{
	prandom_bytes_state(rs, p, len);
}

/*
 * P and Q of @d, a byte at a time through lraid_gf_mul() (checked by
 * gf_kat_mul): the reference the C baseline is checked against too.
 */
static void ref_pq(unsigned int k, size_t len, void *const *d, u8 *p, u8 *q)
{
	unsigned int i;
	size_t b;

	for (b = 0; b < len; b++) {
		u8 wp = 0, wq = 0;

		for (i = 0; i < k; i++) {
			u8 v = ((const u8 *)d[i])[b];

			wp ^= v;
			wq ^= lraid_gf_mul(lraid_gf_pow2(i), v);
		}
		p[b] = wp;
		q[b] = wq;
	}
}

/* ---- parameterised over implementations ---- */

static const void *gf_impl_gen(const void *prev, char *desc)
{
	const struct lraid_gf_impl *const *it = prev;

	it = it ? it + 1 : lraid_gf_impls;
	if (!*it)
		return NULL;
	strscpy(desc, (*it)->name, KUNIT_PARAM_DESC_SIZE);
	return it;
}

static const struct lraid_gf_impl *gf_param_impl(struct kunit *test)
{
	const struct lraid_gf_impl *const *it = test->param_value;
	const char *why = "unsupported";

	if (!lraid_gf_impl_supported(*it, &why))
		kunit_skip(test, "%s: %s", (*it)->name, why);
	return *it;
}

static void gf_kat_pq(struct kunit *test)
{
	const struct lraid_gf_impl *im = gf_param_impl(test);
	struct gf_bufs *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	void *d[KMAX], *old[KMAX], *new[KMAX];
	unsigned int t, i, b;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, gf_bufs_alloc(test, s, NULL), 0);
	for (t = 0; t < ARRAY_SIZE(gf_kats); t++) {
		const struct gf_kat *v = &gf_kats[t];
		u8 *p = s->b[2 * KMAX], *q = s->b[2 * KMAX + 1];

		for (i = 0; i < v->k; i++) {
			d[i] = s->b[i];
			for (b = 0; b < v->len; b++)
				s->b[i][b] = kat_fill(i, b);
		}
		for (i = 0; i < v->n; i++) {
			old[i] = d[v->first + i];
			new[i] = s->b[KMAX + i];
			for (b = 0; b < v->len; b++)
				s->b[KMAX + i][b] = kat_fill(v->first + i + 100, b);
		}
		gf_guards_set(s, v->len);
		lraid_gf_impl_begin(im);
		im->gen_pq(v->k, v->len, d, p, q);
		lraid_gf_impl_end(im);
		if (v->n) {
			lraid_gf_impl_begin(im);
			lraid_gf_impl_update_pq(im, v->first, v->n, v->len,
						old, new, p, q);
			lraid_gf_impl_end(im);
		}
		GF_EXPECT_BUF(test, p, v->p16, 16, "kat %u P", t);
		GF_EXPECT_BUF(test, q, v->q16, 16, "kat %u Q", t);
		KUNIT_EXPECT_EQ_MSG(test, fnv1a(p, v->len), v->p_fnv,
				    "kat %u P", t);
		KUNIT_EXPECT_EQ_MSG(test, fnv1a(q, v->len), v->q_fnv,
				    "kat %u Q", t);
		gf_expect_guards(test, s, v->len, "kat %u", t);
	}
}

/*
 * Random stripes: gen_p, gen_pq and RMW against the byte-at-a-time
 * reference; the first two with the fewest and the most data blocks.
 */
static void gf_random_gen(struct kunit *test)
{
	const struct lraid_gf_impl *im = gf_param_impl(test);
	struct gf_bufs *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct rnd_state rs;
	void *d[KMAX], *old[KMAX], *new[KMAX];
	unsigned int t, i, k, first, n;
	size_t len;
	u8 *p, *q, *cp, *cq;

	gf_seed_state(&rs, 0x6c72616964ULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, gf_bufs_alloc(test, s, &rs), 0);
	p = s->b[2 * KMAX];
	q = s->b[2 * KMAX + 1];
	cp = s->b[2 * KMAX + 2];
	cq = s->b[2 * KMAX + 3];
	for (t = 0; t < 40; t++) {
		k = 2 + prandom_u32_state(&rs) % (KMAX - 1);
		len = 64 * (8 + prandom_u32_state(&rs) % (LMAX / 64 - 7));
		if (t < 2) {	/* 7 * 128 + 64 = 3 * 256 + 192: long tails */
			k = t ? KMAX : 2;
			len = 960;
		}
		for (i = 0; i < k; i++) {
			d[i] = s->b[i];
			fill_rand(&rs, s->b[i], len);
		}
		gf_guards_set(s, len);
		memset(p, 0x77, len);
		memset(q, 0x99, len);
		lraid_gf_impl_begin(im);
		im->gen_pq(k, len, d, p, q);
		lraid_gf_impl_end(im);
		ref_pq(k, len, d, cp, cq);
		GF_EXPECT_BUF(test, p, cp, len, "gen_pq P k=%u len=%zu", k, len);
		GF_EXPECT_BUF(test, q, cq, len, "gen_pq Q k=%u len=%zu", k, len);

		memset(p, 0x77, len);
		lraid_gf_impl_begin(im);
		lraid_gf_impl_gen_p(im, k, len, d, p);
		lraid_gf_impl_end(im);
		GF_EXPECT_BUF(test, p, cp, len, "gen_p k=%u len=%zu", k, len);

		/* RMW of a random sub-range; RAID5 on every third trial */
		first = prandom_u32_state(&rs) % k;
		n = 1 + prandom_u32_state(&rs) % (k - first);
		memcpy(p, cp, len);
		memcpy(q, cq, len);
		for (i = 0; i < n; i++) {
			old[i] = d[first + i];
			new[i] = s->b[KMAX + i];
			fill_rand(&rs, s->b[KMAX + i], len);
		}
		lraid_gf_impl_begin(im);
		lraid_gf_impl_update_pq(im, first, n, len, old, new, p,
					t % 3 ? q : NULL);
		lraid_gf_impl_end(im);
		for (i = 0; i < n; i++)
			d[first + i] = new[i];
		ref_pq(k, len, d, cp, cq);
		GF_EXPECT_BUF(test, p, cp, len,
			      "update P k=%u first=%u n=%u", k, first, n);
		if (t % 3)
			GF_EXPECT_BUF(test, q, cq, len,
				      "update Q k=%u first=%u n=%u",
				      k, first, n);
		gf_expect_guards(test, s, len, "gen/update k=%u first=%u n=%u",
				 k, first, n);
	}
}

/* Lose data block @fa of @d (@w: the copy, @x: its scratch), rebuild from P. */
static void gf_expect_data_p(struct kunit *test, const struct lraid_gf_impl *im,
			     unsigned int k, size_t len, void **d, void **w,
			     u8 *x, const u8 *p, unsigned int fa)
{
	memcpy(w, d, k * sizeof(*w));
	w[fa] = x;
	memset(x, 0x5a, len);
	lraid_gf_impl_begin(im);
	lraid_gf_impl_recov_data_p(im, k, len, w, fa, p);
	lraid_gf_impl_end(im);
	GF_EXPECT_BUF(test, x, d[fa], len, "data+P k=%u fa=%u", k, fa);
}

/* Every recovery case of a few random stripes, against the original data. */
static void gf_random_recov(struct kunit *test)
{
	const struct lraid_gf_impl *im = gf_param_impl(test);
	struct gf_bufs *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct rnd_state rs;
	void *d[KMAX + 1], *w[KMAX + 1];
	unsigned int t, i, k, fa, fb;
	size_t len;
	u8 *p, *q, *x, *y, *xp;

	gf_seed_state(&rs, 0x7265636f76ULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, gf_bufs_alloc(test, s, &rs), 0);
	p = s->b[2 * KMAX];
	q = s->b[2 * KMAX + 1];
	x = s->b[2 * KMAX + 2];
	y = s->b[2 * KMAX + 3];
	xp = s->b[2 * KMAX + 4];
	for (t = 0; t < 6; t++) {
		k = 2 + prandom_u32_state(&rs) % (KMAX - 1);
		len = 64 * (8 + prandom_u32_state(&rs) % 9);
		if (!t) {	/* 6 * 128 + 64 = 3 * 256 + 64: every SIMD tail */
			k = KMAX;
			len = 832;
		} else if (t < 3) {	/* 4 and 5 members, 192-byte tails */
			k = t + 1;
			len = 960;
		}
		for (i = 0; i < k; i++) {
			d[i] = s->b[i];
			fill_rand(&rs, s->b[i], len);
		}
		lraid_gf_impl_c.gen_pq(k, len, d, p, q);
		gf_guards_set(s, len);
		for (fa = 0; fa < k; fa++) {
			gf_expect_data_p(test, im, k, len, d, w, x, p, fa);

			memset(x, 0x5a, len);
			memset(xp, 0x77, len);
			lraid_gf_impl_begin(im);
			im->recov_data_q(k, len, w, fa, xp, q);
			lraid_gf_impl_end(im);
			GF_EXPECT_BUF(test, x, d[fa], len,
				      "data_q k=%u fa=%u", k, fa);
			GF_EXPECT_BUF(test, xp, p, len,
				      "data_q P k=%u fa=%u", k, fa);

			for (fb = 0; fb < k; fb++) {
				if (fb == fa)
					continue;
				memcpy(w, d, sizeof(w));
				w[fa] = x;
				w[fb] = y;
				memset(x, 0x5a, len);
				memset(y, 0xc3, len);
				lraid_gf_impl_begin(im);
				im->recov_2data(k, len, w, fa, fb, p, q);
				lraid_gf_impl_end(im);
				GF_EXPECT_BUF(test, x, d[fa], len,
					      "2data k=%u fa=%u fb=%u",
					      k, fa, fb);
				GF_EXPECT_BUF(test, y, d[fb], len,
					      "2data k=%u fa=%u fb=%u",
					      k, fa, fb);
			}
		}
		gf_expect_guards(test, s, len, "recovery k=%u", k);
	}
	/* RAID5 on 32 members: 31 data blocks, P only (b[30] is free here) */
	k = KMAX + 1;
	len = 832;
	for (i = 0; i < k; i++) {
		d[i] = s->b[i];
		fill_rand(&rs, s->b[i], len);
	}
	lraid_gf_impl_c.xor_gen(k, len, d, p);
	gf_guards_set(s, len);
	memset(xp, 0x77, len);
	lraid_gf_impl_begin(im);
	lraid_gf_impl_gen_p(im, k, len, d, xp);
	lraid_gf_impl_end(im);
	GF_EXPECT_BUF(test, xp, p, len, "gen_p k=%u", k);
	for (fa = 0; fa < k; fa++)
		gf_expect_data_p(test, im, k, len, d, w, x, p, fa);
	gf_expect_guards(test, s, len, "RAID5 k=%u", k);
}

/*
 * Large page-aligned blocks take the prefetching and streaming-store
 * (VMOVNTDQ + SFENCE) paths: generation and recovery against the C
 * baseline. The length is not a multiple of the unrolled step, so the
 * 64-byte tail runs with streaming stores too.
 */
#define GF_LARGE_K	5
#define GF_LARGE_LEN	(64 * 1024 + 192)

static void gf_large(struct kunit *test)
{
	const struct lraid_gf_impl *im = gf_param_impl(test);
	const size_t len = GF_LARGE_LEN;
	const size_t size = PAGE_SIZE + len + GUARD;
	void *d[GF_LARGE_K], *w[GF_LARGE_K];
	u8 *mem[GF_LARGE_K + 6], *b[GF_LARGE_K + 6];
	u8 *p, *q, *cp, *cq, *x, *y;
	struct rnd_state rs;
	unsigned int i;

	gf_seed_state(&rs, 0x6c61726765ULL);
	for (i = 0; i < ARRAY_SIZE(b); i++) {
		/*
		 * page-aligned blocks, the streaming-store paths' case; the
		 * data blocks end where their allocation does, so that KASAN
		 * sees a read past them, the others have guards after them
		 */
		size_t sz = i < GF_LARGE_K ? PAGE_SIZE + len : size;

		mem[i] = kunit_kmalloc(test, sz, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mem[i]);
		b[i] = mem[i] + sz - len - (i < GF_LARGE_K ? 0 : GUARD);
		KUNIT_ASSERT_TRUE(test,
				  IS_ALIGNED((unsigned long)b[i], PAGE_SIZE));
		fill_rand(&rs, b[i], len);
		guard_set(mem[i], sz, b[i], len, i);
	}
	for (i = 0; i < GF_LARGE_K; i++)
		d[i] = b[i];
	p = b[GF_LARGE_K];
	q = b[GF_LARGE_K + 1];
	cp = b[GF_LARGE_K + 2];
	cq = b[GF_LARGE_K + 3];
	x = b[GF_LARGE_K + 4];
	y = b[GF_LARGE_K + 5];

	ref_pq(GF_LARGE_K, len, d, cp, cq);
	lraid_gf_impl_begin(im);
	im->gen_pq(GF_LARGE_K, len, d, p, q);
	lraid_gf_impl_end(im);
	GF_EXPECT_BUF(test, p, cp, len, "gen_pq P");
	GF_EXPECT_BUF(test, q, cq, len, "gen_pq Q");

	memset(p, 0x77, len);
	lraid_gf_impl_begin(im);
	lraid_gf_impl_gen_p(im, GF_LARGE_K, len, d, p);
	lraid_gf_impl_end(im);
	GF_EXPECT_BUF(test, p, cp, len, "gen_p");

	memcpy(w, d, sizeof(w));
	w[1] = x;
	w[3] = y;
	lraid_gf_impl_begin(im);
	im->recov_2data(GF_LARGE_K, len, w, 1, 3, cp, cq);
	lraid_gf_impl_end(im);
	GF_EXPECT_BUF(test, x, d[1], len, "2data a");
	GF_EXPECT_BUF(test, y, d[3], len, "2data b");

	memset(x, 0, len);
	memset(p, 0x77, len);
	lraid_gf_impl_begin(im);
	im->recov_data_q(GF_LARGE_K, len, w, 1, p, cq);
	lraid_gf_impl_end(im);
	GF_EXPECT_BUF(test, x, d[1], len, "data+P data");
	GF_EXPECT_BUF(test, p, cp, len, "data+P P");
	for (i = 0; i < ARRAY_SIZE(b); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    guard_bad(mem[i], i < GF_LARGE_K ?
					      PAGE_SIZE + len : size,
					      b[i], len, i),
				    0L,
				    "block %u written outside its %zu bytes at that offset (seed=%lu)",
				    i, len, gf_seed);
}

/*
 * The dispatcher's choice: forced, refused, automatic. Never through
 * lraid_gf_init(): arrays may be running while this suite is loaded, and
 * switching the implementation under them would break their FPU sections.
 */
static void gf_select(struct kunit *test)
{
	const struct lraid_gf_impl *keep = lraid_gf_current(), *got;
	unsigned long mbs = 1;
	unsigned int i;

	for (i = 0; lraid_gf_impls[i]; i++) {
		const struct lraid_gf_impl *im = lraid_gf_impls[i];

		got = lraid_gf_choose(im->name, &mbs);
		if (lraid_gf_impl_supported(im, NULL))
			KUNIT_EXPECT_PTR_EQ(test, got, im);
		else
			KUNIT_EXPECT_NULL(test, got);
	}
	KUNIT_EXPECT_NULL(test, lraid_gf_choose("nosuch", &mbs));
	got = lraid_gf_choose(NULL, &mbs);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_TRUE(test, lraid_gf_impl_supported(got, NULL));
	KUNIT_EXPECT_PTR_EQ(test, lraid_gf_current(), keep);
}

static struct kunit_case lraid_gf_cases[] = {
	KUNIT_CASE(gf_kat_mul),
	KUNIT_CASE_PARAM(gf_kat_pq, gf_impl_gen),
	KUNIT_CASE_PARAM(gf_random_gen, gf_impl_gen),
	KUNIT_CASE_PARAM(gf_random_recov, gf_impl_gen),
	KUNIT_CASE_PARAM(gf_large, gf_impl_gen),
	KUNIT_CASE(gf_select),
	{}
};

static struct kunit_suite lraid_gf_suite = {
	.name = "lraid_gf",
	.suite_init = gf_suite_init,
	.test_cases = lraid_gf_cases,
};

kunit_test_suite(lraid_gf_suite);

MODULE_DESCRIPTION("KUnit tests for the lraid parity library");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
