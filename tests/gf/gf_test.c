// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace test of the lraid parity library (module/lraid_gf*.c, built
 * unchanged with -include lraid_user.h): every implementation this CPU
 * supports against a byte-at-a-time reference, against ISA-L and against
 * the C baseline, on random k, lengths, buffer offsets and data, covering
 * every recovery case, and through the lraid_gf_*() calls the driver
 * makes on each selected implementation. Buffers carry guard bytes of
 * their own random pattern to catch overruns (one fixed byte would
 * survive an overrun that XORs an odd number of such guards, or old and
 * new data that agree past the end).
 *
 * The data are random from a seed printed first: LRAID_GF_SEED=N repeats
 * a run, by default each run takes a new one from the clock.
 *
 * An implementation is skipped only if this CPU lacks it: the flags the
 * kernel shows in /proc/cpuinfo are read on their own, so a feature check
 * that wrongly turned an implementation down fails rather than skips (the
 * userspace check, __builtin_cpu_supports(); the kernel's own is held to
 * the same by kunit.sh), and so does a SIMD implementation missing from
 * impl_needs[] here.
 *
 * Output: one "PASS: name", "FAIL: name" or "SKIP: name (reason)" per case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>

#include "lraid_gf.h"

#define MAXK	31
#define GUARD	64

static unsigned int failures;

/* ---- independent reference: GF(2^8) mod 0x11D by shift-and-add ---- */

static u8 ref_mul_tbl[256][256];

static u8 ref_mul_slow(u8 a, u8 b)
{
	unsigned int r = 0, x = a;

	while (b) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
		b >>= 1;
	}
	return r;
}

static u8 ref_g[32];	/* 2^i */

static void ref_pq(unsigned int k, size_t len, u8 *const *d, u8 *p, u8 *q)
{
	size_t b;
	unsigned int i;

	for (b = 0; b < len; b++) {
		u8 wp = 0, wq = 0;

		for (i = 0; i < k; i++) {
			wp ^= d[i][b];
			wq ^= ref_mul_tbl[ref_g[i]][d[i][b]];
		}
		if (p)
			p[b] = wp;
		if (q)
			q[b] = wq;
	}
}

/* ---- buffers with guards and random offsets ---- */

struct tbuf {
	u8 *raw;
	u8 *pat;	/* what raw held when allocated: the guards' pattern */
	u8 *p;
	size_t len;
};

static unsigned long long seed;	/* printed first, and with each FAIL */
static unsigned long long rng;	/* xorshift64 from the seed: never 0 */

static u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (u32)(rng >> 16);
}

static unsigned int rnd_range(unsigned int lo, unsigned int hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static void tbuf_alloc(struct tbuf *b, size_t len, unsigned int off)
{
	size_t i, total = len + 2 * GUARD + 64;

	/* 64-byte aligned: the offset alone decides the alignment */
	if (posix_memalign((void **)&b->raw, 64, total))
		b->raw = NULL;
	b->pat = malloc(total);
	if (!b->raw || !b->pat) {
		perror("malloc");
		exit(2);
	}
	for (i = 0; i < total; i++)
		b->pat[i] = rnd();
	memcpy(b->raw, b->pat, total);
	b->p = b->raw + GUARD + off;
	b->len = len;
}

static void tbuf_fill(struct tbuf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		b->p[i] = rnd();
}

static bool tbuf_guards_ok(const struct tbuf *b)
{
	size_t i, total = b->len + 2 * GUARD + 64;

	for (i = 0; i < total; i++) {
		if (b->raw + i >= b->p && b->raw + i < b->p + b->len)
			continue;
		if (b->raw[i] != b->pat[i])
			return false;
	}
	return true;
}

static void tbuf_free(struct tbuf *b)
{
	free(b->raw);
	free(b->pat);
}

/* One random stripe: k data blocks + P + Q + spares, each at its own offset. */
struct stripe {
	unsigned int k;
	size_t len;
	struct tbuf d[MAXK], p, q, x[MAXK + 2];
	void *dp[MAXK];
};

/* Set while building stripes that must take the aligned-only paths. */
static bool aligned_only;

static unsigned int rnd_off(void)
{
	if (aligned_only)
		return 64 * (rnd() % 2);
	/* Mostly aligned (the kernel case), sometimes any byte offset. */
	switch (rnd() % 4) {
	case 0:
		return 0;
	case 1:
		return 64 * (rnd() % 2);
	case 2:
		return 8 * (rnd() % 8);
	default:
		return rnd() % 64;
	}
}

static void stripe_init(struct stripe *s, unsigned int k, size_t len)
{
	unsigned int i;

	s->k = k;
	s->len = len;
	for (i = 0; i < k; i++) {
		tbuf_alloc(&s->d[i], len, rnd_off());
		tbuf_fill(&s->d[i]);
		s->dp[i] = s->d[i].p;
	}
	tbuf_alloc(&s->p, len, rnd_off());
	tbuf_alloc(&s->q, len, rnd_off());
	for (i = 0; i < k + 2; i++)
		tbuf_alloc(&s->x[i], len, rnd_off());
}

static bool stripe_guards_ok(const struct stripe *s)
{
	unsigned int i;
	bool ok = tbuf_guards_ok(&s->p) && tbuf_guards_ok(&s->q);

	for (i = 0; i < s->k; i++)
		ok = ok && tbuf_guards_ok(&s->d[i]);
	for (i = 0; i < s->k + 2; i++)
		ok = ok && tbuf_guards_ok(&s->x[i]);
	return ok;
}

static void stripe_free(struct stripe *s)
{
	unsigned int i;

	for (i = 0; i < s->k; i++)
		tbuf_free(&s->d[i]);
	for (i = 0; i < s->k + 2; i++)
		tbuf_free(&s->x[i]);
	tbuf_free(&s->p);
	tbuf_free(&s->q);
}

static size_t rnd_len(size_t max)
{
	return 64 * rnd_range(512 / 64, max / 64);
}

/* ---- ISA-L references (needs 32-byte aligned copies) ---- */

static void isal_pq(unsigned int k, size_t len, void *const *d, u8 *p, u8 *q)
{
	void *arr[MAXK + 2];
	unsigned int i;

	for (i = 0; i < k + 2; i++)
		if (posix_memalign(&arr[i], 64, len))
			exit(2);
	for (i = 0; i < k; i++)
		memcpy(arr[i], d[i], len);
	if (k >= 2 && q) {
		if (pq_gen(k + 2, len, arr))
			exit(2);
	} else if (xor_gen(k + 1, len, arr)) {
		exit(2);
	}
	memcpy(p, arr[k], len);
	if (q)
		memcpy(q, arr[k + 1], len);
	for (i = 0; i < k + 2; i++)
		free(arr[i]);
}

/* ---- the cases ---- */

static void report(bool ok, const char *impl, const char *what)
{
	if (ok) {
		printf("PASS: gf %s %s\n", impl, what);
		return;
	}
	printf("FAIL: gf %s %s (LRAID_GF_SEED=%llu)\n", impl, what, seed);
	failures++;
}

/* gen_pq (k <= 30) and gen_p (k <= 31) of one random stripe */
static bool gen_case(const struct lraid_gf_impl *im, unsigned int k, size_t len)
{
	struct stripe s;
	u8 *rp = malloc(len), *rq = malloc(len);
	u8 *ip = malloc(len), *iq = malloc(len);
	bool ok = true, pq = k <= 30;

	stripe_init(&s, k, len);
	ref_pq(k, len, (u8 *const *)s.dp, rp, rq);
	isal_pq(k, len, s.dp, ip, pq ? iq : NULL);
	if (memcmp(rp, ip, len) || (pq && memcmp(rq, iq, len))) {
		fprintf(stderr, "reference and ISA-L disagree k=%u\n", k);
		ok = false;
	}

	if (pq) {
		lraid_gf_impl_begin(im);
		im->gen_pq(k, len, s.dp, s.p.p, s.q.p);
		lraid_gf_impl_end(im);
		if (memcmp(s.p.p, rp, len) || memcmp(s.q.p, iq, len)) {
			fprintf(stderr, "%s gen_pq k=%u len=%zu wrong\n",
				im->name, k, len);
			ok = false;
		}
	}

	/* gen_p, up to 31 sources: over old bytes, which it must not keep */
	memset(s.x[0].p, 0x77, len);
	lraid_gf_impl_begin(im);
	lraid_gf_impl_gen_p(im, k, len, s.dp, s.x[0].p);
	lraid_gf_impl_end(im);
	if (memcmp(s.x[0].p, ip, len)) {
		fprintf(stderr, "%s gen_p k=%u len=%zu wrong\n",
			im->name, k, len);
		ok = false;
	}
	ok = ok && stripe_guards_ok(&s);
	stripe_free(&s);
	free(rp);
	free(rq);
	free(ip);
	free(iq);
	return ok;
}

static bool check_gen(const struct lraid_gf_impl *im, unsigned int trials)
{
	bool ok = true;

	while (trials--) {
		unsigned int k = rnd_range(2, 31);
		/* every 8th: 64 KiB or more, the prefetch and streaming-store
		 * paths (taken when the outputs are 64-byte aligned)
		 */
		size_t len = trials % 8 ? rnd_len(8192) :
			     65536 + rnd_len(196608);

		aligned_only = trials % 16 == 0;
		ok = gen_case(im, k, len) && ok;
		aligned_only = false;
	}
	return ok;
}

/*
 * Update of data blocks first..first+n-1 of one random stripe: P and Q, or
 * P alone (@raid5, k up to 31), against ISA-L on the new data.
 */
static bool update_case(const struct lraid_gf_impl *im, unsigned int k,
			size_t len, unsigned int first, unsigned int n,
			bool raid5)
{
	struct stripe s;
	void *old[MAXK], *new[MAXK];
	u8 *ip = malloc(len), *iq = malloc(len);
	unsigned int j;
	bool ok = true;

	stripe_init(&s, k, len);
	isal_pq(k, len, s.dp, s.p.p, raid5 ? NULL : s.q.p);
	for (j = 0; j < n; j++) {
		tbuf_fill(&s.x[j]);
		old[j] = s.dp[first + j];
		new[j] = s.x[j].p;
	}
	lraid_gf_impl_begin(im);
	lraid_gf_impl_update_pq(im, first, n, len, old, new, s.p.p,
				raid5 ? NULL : s.q.p);
	lraid_gf_impl_end(im);
	for (j = 0; j < n; j++)
		s.dp[first + j] = new[j];
	isal_pq(k, len, s.dp, ip, raid5 ? NULL : iq);
	if (memcmp(s.p.p, ip, len) || (!raid5 && memcmp(s.q.p, iq, len))) {
		fprintf(stderr, "%s update_pq k=%u first=%u n=%u len=%zu%s wrong\n",
			im->name, k, first, n, len, raid5 ? " raid5" : "");
		ok = false;
	}
	for (j = 0; j < n; j++)
		s.dp[first + j] = old[j];
	ok = ok && stripe_guards_ok(&s);
	stripe_free(&s);
	free(ip);
	free(iq);
	return ok;
}

static bool check_update(const struct lraid_gf_impl *im, unsigned int trials)
{
	bool ok = true;

	while (trials--) {
		bool raid5 = !(trials % 5);
		unsigned int k = rnd_range(2, raid5 ? 31 : 30), first, n;
		size_t len = rnd_len(8192);

		first = rnd_range(0, k - 1);
		n = rnd_range(1, k - first);
		ok = update_case(im, k, len, first, n, raid5) && ok;
		if (trials % 20)
			continue;
		/*
		 * large aligned blocks, as the driver updates a chunk: the
		 * streaming-store paths (RAID5's in-place XOR among them)
		 */
		aligned_only = true;
		raid5 = rnd() & 1;
		k = rnd_range(2, raid5 ? 31 : 30);
		len = 65536 + rnd_len(65536);
		first = rnd_range(0, k - 1);
		ok = update_case(im, k, len, first, rnd_range(1, k - first),
				 raid5) && ok;
		aligned_only = false;
	}
	return ok;
}

/* Copy of the data pointers with @fa (and @fb) pointing at scratch. */
static void lose(struct stripe *s, void **d, unsigned int fa, unsigned int fb)
{
	unsigned int i;

	for (i = 0; i < s->k; i++)
		d[i] = s->dp[i];
	d[fa] = s->x[0].p;
	memset(d[fa], 0x5a, s->len);
	if (fb < s->k) {
		d[fb] = s->x[1].p;
		memset(d[fb], 0xc3, s->len);
	}
}

/*
 * Every failure combination for one random stripe: one data block (from P),
 * data + P (from Q), two data, data + Q (recov_data_p, then gen_pq), P + Q.
 */
static bool check_recov_stripe(const struct lraid_gf_impl *im,
			       unsigned int k, size_t len)
{
	struct stripe s;
	void *d[MAXK];
	unsigned int fa, fb;
	bool ok = true;

	stripe_init(&s, k, len);
	isal_pq(k, len, s.dp, s.p.p, k <= 30 ? s.q.p : NULL);
	lraid_gf_impl_begin(im);
	for (fa = 0; fa < k; fa++) {
		/* one data, from P */
		lose(&s, d, fa, k);
		lraid_gf_impl_recov_data_p(im, k, len, d, fa, s.p.p);
		if (memcmp(d[fa], s.dp[fa], len)) {
			fprintf(stderr, "%s recov_data_p k=%u fa=%u len=%zu\n",
				im->name, k, fa, len);
			ok = false;
		}
		if (k > 30)	/* RAID5 on 32 members: P only */
			continue;
		/* data + P, from Q; P regenerated */
		lose(&s, d, fa, k);
		memset(s.x[2].p, 0x77, len);
		im->recov_data_q(k, len, d, fa, s.x[2].p, s.q.p);
		if (memcmp(d[fa], s.dp[fa], len) ||
		    memcmp(s.x[2].p, s.p.p, len)) {
			fprintf(stderr, "%s recov_data_q k=%u fa=%u len=%zu\n",
				im->name, k, fa, len);
			ok = false;
		}
		/* data + Q: from P, then regenerate Q */
		lose(&s, d, fa, k);
		lraid_gf_impl_recov_data_p(im, k, len, d, fa, s.p.p);
		memset(s.x[2].p, 0x77, len);
		memset(s.x[3].p, 0x99, len);
		im->gen_pq(k, len, d, s.x[2].p, s.x[3].p);
		if (memcmp(d[fa], s.dp[fa], len) ||
		    memcmp(s.x[3].p, s.q.p, len)) {
			fprintf(stderr, "%s data+Q k=%u fa=%u len=%zu\n",
				im->name, k, fa, len);
			ok = false;
		}
		/* two data, both orders */
		for (fb = 0; fb < k; fb++) {
			if (fb == fa)
				continue;
			lose(&s, d, fa, fb);
			im->recov_2data(k, len, d, fa, fb, s.p.p, s.q.p);
			if (memcmp(d[fa], s.dp[fa], len) ||
			    memcmp(d[fb], s.dp[fb], len)) {
				fprintf(stderr, "%s recov_2data k=%u fa=%u fb=%u len=%zu\n",
					im->name, k, fa, fb, len);
				ok = false;
			}
		}
	}
	/* P + Q */
	if (k <= 30) {
		memset(s.x[2].p, 0x77, len);
		memset(s.x[3].p, 0x99, len);
		im->gen_pq(k, len, s.dp, s.x[2].p, s.x[3].p);
		if (memcmp(s.x[2].p, s.p.p, len) ||
		    memcmp(s.x[3].p, s.q.p, len)) {
			fprintf(stderr, "%s P+Q k=%u len=%zu\n", im->name, k,
				len);
			ok = false;
		}
	}
	lraid_gf_impl_end(im);
	ok = ok && stripe_guards_ok(&s);
	stripe_free(&s);
	return ok;
}

static bool check_recov(const struct lraid_gf_impl *im, unsigned int trials)
{
	bool ok = true;
	unsigned int k;

	/* every k with a short block, then random k and lengths */
	for (k = 2; k <= 31; k++)
		ok = check_recov_stripe(im, k, 512) && ok;
	while (trials--) {
		ok = check_recov_stripe(im, rnd_range(2, 31), rnd_len(4096)) && ok;
		/* large aligned blocks: prefetch and streaming-store paths */
		aligned_only = true;
		ok = check_recov_stripe(im, rnd_range(2, 8),
					65536 + rnd_len(131072)) && ok;
		/* and with many sources (RAID6 on 11 or more members) */
		ok = check_recov_stripe(im, rnd_range(9, 30), 65536) && ok;
		aligned_only = false;
	}
	return ok;
}

/*
 * The edges, every time rather than by chance: the fewest and most data
 * blocks, at lengths that leave each unrolled loop (128 B for AVX2, 256 B
 * for AVX-512 and GFNI) a 64 B tail of every size, every operation,
 * every failed pair, updates of none, the first, the last and all blocks.
 */
static bool check_edges(const struct lraid_gf_impl *im)
{
	static const unsigned int ks[] = { 2, 3, 29, 30, 31 };
	static const size_t lens[] = { 512, 576, 640, 704, 832, 4160 };
	unsigned int i, j, k;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		k = ks[i];
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			size_t len = lens[j];

			ok = gen_case(im, k, len) && ok;
			ok = check_recov_stripe(im, k, len) && ok;
			ok = update_case(im, k, len, 0, 0, true) && ok;
			ok = update_case(im, k, len, 0, 1, true) && ok;
			ok = update_case(im, k, len, k - 1, 1, true) && ok;
			ok = update_case(im, k, len, 0, k, true) && ok;
			if (k > 30)
				continue;
			ok = update_case(im, k, len, 0, 0, false) && ok;
			ok = update_case(im, k, len, 0, 1, false) && ok;
			ok = update_case(im, k, len, k - 1, 1, false) && ok;
			ok = update_case(im, k, len, 0, k, false) && ok;
		}
	}
	return ok;
}

static bool check_tables(void)
{
	unsigned int a, b;
	bool ok = true;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			ref_mul_tbl[a][b] = ref_mul_slow(a, b);
			if (ref_mul_tbl[a][b] != gf_mul(a, b) ||
			    lraid_gf_mul(a, b) != ref_mul_tbl[a][b])
				ok = false;
		}
	ref_g[0] = 1;
	for (a = 1; a < 32; a++)
		ref_g[a] = ref_mul_slow(ref_g[a - 1], 2);
	for (a = 1; a < 256; a++)
		if (lraid_gf_inv(a) != gf_inv(a))
			ok = false;
	for (a = 0; a < 256; a++) {
		u8 t[32];

		lraid_gf_nibble_tbl(a, t);
		if (memcmp(t, lraid_gf_nibble[a], 32) ||
		    lraid_gf_affine(a) != lraid_gf_affine_tbl[a])
			ok = false;
	}
	return ok;
}

static void check_select(void)
{
	unsigned int i;
	bool ok = true;

	for (i = 0; lraid_gf_impls[i]; i++) {
		const struct lraid_gf_impl *im = lraid_gf_impls[i];
		bool sup = lraid_gf_impl_supported(im, NULL);
		int ret = lraid_gf_init(im->name);

		if (sup ? ret || strcmp(lraid_gf_name(), im->name) :
			  ret != -ENODEV)
			ok = false;
	}
	if (lraid_gf_init("nosuch") != -ENODEV)
		ok = false;
	if (lraid_gf_init(NULL) || lraid_gf_module_init())
		ok = false;
	report(ok, "dispatch", "init/select");
}

/*
 * The calls the driver makes (lraid_gf_*(), on the implementation
 * lraid_gf_init() selected), once each on one random stripe: the
 * dispatch from them to the implementation is code of its own.
 */
static bool check_calls(const struct lraid_gf_impl *im)
{
	unsigned int k = rnd_range(4, 30), fa, fb, first, n, j;
	size_t len = rnd_len(8192);
	void *d[MAXK], *old[MAXK], *new[MAXK];
	struct stripe s;
	u8 *rp, *rq;
	bool ok;

	if (lraid_gf_init(im->name) || strcmp(lraid_gf_name(), im->name))
		return false;
	rp = malloc(len);
	rq = malloc(len);
	stripe_init(&s, k, len);
	ref_pq(k, len, (u8 *const *)s.dp, rp, rq);
	fa = rnd_range(0, k - 1);
	fb = (fa + rnd_range(1, k - 1)) % k;
	first = rnd_range(0, k - 1);
	n = rnd_range(1, k - first);

	lraid_gf_begin();
	lraid_gf_gen_p(k, len, s.dp, s.p.p);
	ok = !memcmp(s.p.p, rp, len);
	memset(s.p.p, 0x77, len);
	lraid_gf_gen_pq(k, len, s.dp, s.p.p, s.q.p);
	ok = ok && !memcmp(s.p.p, rp, len) && !memcmp(s.q.p, rq, len);

	lose(&s, d, fa, k);
	lraid_gf_recov_data_p(k, len, d, fa, s.p.p);
	ok = ok && !memcmp(d[fa], s.dp[fa], len);
	lose(&s, d, fa, fb);
	lraid_gf_recov_2data(k, len, d, fa, fb, s.p.p, s.q.p);
	ok = ok && !memcmp(d[fa], s.dp[fa], len) &&
	     !memcmp(d[fb], s.dp[fb], len);
	lose(&s, d, fa, k);
	memset(s.x[2].p, 0x77, len);
	lraid_gf_recov_data_q(k, len, d, fa, s.x[2].p, s.q.p);
	ok = ok && !memcmp(d[fa], s.dp[fa], len) &&
	     !memcmp(s.x[2].p, rp, len);

	/* RAID6 update, then RAID5's (P alone) of the same blocks back */
	for (j = 0; j < n; j++) {
		tbuf_fill(&s.x[2 + j]);
		old[j] = s.dp[first + j];
		new[j] = s.x[2 + j].p;
	}
	lraid_gf_update_pq(first, n, len, old, new, s.p.p, s.q.p);
	for (j = 0; j < n; j++)
		d[first + j] = new[j];
	for (j = 0; j < k; j++)
		if (j < first || j >= first + n)
			d[j] = s.dp[j];
	ref_pq(k, len, (u8 *const *)d, rp, rq);
	ok = ok && !memcmp(s.p.p, rp, len) && !memcmp(s.q.p, rq, len);
	lraid_gf_update_pq(first, n, len, new, old, s.p.p, NULL);
	ref_pq(k, len, (u8 *const *)s.dp, rp, NULL);
	ok = ok && !memcmp(s.p.p, rp, len);
	lraid_gf_end();

	if (!ok)
		fprintf(stderr, "%s lraid_gf_*() k=%u len=%zu fa=%u fb=%u first=%u n=%u wrong\n",
			im->name, k, len, fa, fb, first, n);
	ok = ok && stripe_guards_ok(&s);
	stripe_free(&s);
	free(rp);
	free(rq);
	return ok;
}

/*
 * Whether the "flags" line of /proc/cpuinfo names every flag of @need
 * (space separated); -1 if it cannot be read.
 */
static int cpuinfo_has(const char *need)
{
	static char flags[8192];
	char want[64], *line = NULL;
	const char *n = need;
	size_t cap = 0;
	int len;
	FILE *f;

	if (!flags[0]) {
		f = fopen("/proc/cpuinfo", "r");
		if (!f)
			return -1;
		while (getline(&line, &cap, f) > 0) {
			if (strncmp(line, "flags", 5))
				continue;
			/* " flag flag ... flag " for whole-word matches */
			snprintf(flags, sizeof(flags), " %s",
				 strchr(line, ':') ? strchr(line, ':') + 1 : "");
			flags[strcspn(flags, "\n")] = '\0';
			strncat(flags, " ", sizeof(flags) - strlen(flags) - 1);
			break;
		}
		free(line);
		fclose(f);
		if (!flags[0])
			return -1;
	}
	while (sscanf(n, "%61s%n", want + 1, &len) == 1) {
		want[0] = ' ';
		strcat(want, " ");
		if (!strstr(flags, want))
			return 0;
		n += len;
	}
	return 1;
}

/*
 * What each SIMD implementation needs: flags in /proc/cpuinfo, and state
 * the OS enabled in XCR0 (SSE and YMM; AVX-512 adds opmask, ZMM_Hi256
 * and Hi16_ZMM).
 */
static const struct impl_need {
	const char *name, *flags;
	unsigned long long xcr0;
} impl_needs[] = {
	{ "avx2", "xsave avx avx2", 0x06 },
	{ "avx512", "xsave avx avx2 avx512f avx512bw avx512vl", 0xe6 },
	{ "gfni", "xsave avx avx2 avx512f avx512bw avx512vl gfni", 0xe6 },
};

static unsigned long long xcr0(void)
{
	unsigned int lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (unsigned long long)hi << 32 | lo;
}

/*
 * 1 if this CPU and OS have all that SIMD implementation @im needs, 0 if
 * not, -1 if that cannot be told (no /proc/cpuinfo), -2 if @im is not
 * listed in impl_needs[].
 */
static int cpu_has_impl(const struct lraid_gf_impl *im)
{
	unsigned int i;
	int has;

	for (i = 0; i < ARRAY_SIZE(impl_needs); i++) {
		if (strcmp(im->name, impl_needs[i].name))
			continue;
		has = cpuinfo_has(impl_needs[i].flags);
		/* XGETBV once cpuinfo says XSAVE: the kernel set OSXSAVE */
		if (has > 0 &&
		    (xcr0() & impl_needs[i].xcr0) != impl_needs[i].xcr0)
			has = 0;
		return has;
	}
	return -2;
}

int main(int argc, char **argv)
{
	unsigned int i, scale = 1;
	const char *env = getenv("LRAID_GF_SEED");

	if (argc > 1)
		scale = atoi(argv[1]) ? atoi(argv[1]) : 1;
	setvbuf(stdout, NULL, _IOLBF, 0);	/* the seed before any crash */
	if (env && *env) {
		char *end;

		errno = 0;
		seed = strtoull(env, &end, 0);
		if (errno || *end) {
			fprintf(stderr, "LRAID_GF_SEED=%s is not a number\n", env);
			return 2;
		}
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000000007ULL ^
		       (unsigned long long)ts.tv_nsec;
	}
	seed &= 0xffffffffffffULL;	/* short enough to retype */
	rng = seed ^ 0x9e3779b97f4a7c15ULL;
	printf("gf_test: seed %llu (LRAID_GF_SEED=%llu repeats this run, with the same arguments)\n",
	       seed, seed);
	report(check_tables(), "tables", "vs ISA-L gf_mul/gf_inv");
	check_select();
	for (i = 0; lraid_gf_impls[i]; i++) {
		const struct lraid_gf_impl *im = lraid_gf_impls[i];
		const char *why = "unsupported";

		/* each its own stream: a seed repeats one implementation */
		rng = (seed + i + 1) * 0x9e3779b97f4a7c15ULL | 1;
		if (!lraid_gf_impl_supported(im, &why)) {
			int has = im->simd ? cpu_has_impl(im) : 1;

			if (has > 0) {
				/* the C baseline, or a CPU and OS with it all */
				printf("FAIL: gf %s turned down (%s) on a CPU whose /proc/cpuinfo flags and XCR0 have all it needs\n",
				       im->name, why);
				failures++;
			} else if (has == -2) {
				printf("FAIL: gf %s turned down (%s), and what it needs is not listed in gf_test.c's impl_needs[]\n",
				       im->name, why);
				failures++;
			} else {
				printf("SKIP: gf %s (%s%s)\n", im->name, why,
				       has < 0 ? "; what it needs is not known here" :
				       "");
			}
			continue;
		}
		report(check_gen(im, 200 * scale), im->name,
		       "gen_p/gen_pq vs reference and ISA-L");
		report(check_update(im, 200 * scale), im->name,
		       "update_pq (RAID5 and RAID6) vs ISA-L");
		report(check_recov(im, 4 * scale), im->name,
		       "recovery: data, data+P, data+Q, 2 data, P+Q");
		report(check_edges(im), im->name,
		       "k 2, 3, 29, 30, 31 at every tail length, all operations");
		report(check_calls(im), im->name,
		       "the driver's lraid_gf_*() calls, selected by lraid_gf_init()");
	}
	return failures ? 1 : 0;
}
