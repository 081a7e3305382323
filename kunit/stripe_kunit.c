// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for lraid stripe planning (module/lraid_plan.c): which rows
 * of which members a write piece reads and writes, and the choice between
 * full-stripe write, read-modify-write and reconstruct-write.
 *
 * Hand-worked cases first, then invariants over many geometries and
 * ranges: windows tile the write exactly, the chosen mode reads the least,
 * reads and writes are counted the way the write path issues them.
 *
 * The same file builds in userspace (tests/stripe) against the KUnit shim
 * of tests/geom.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "lraid_geom.h"
#include "lraid_plan.h"

static void plan_geom(struct kunit *test, struct lraid_geom *g,
		      unsigned int level, unsigned int n, u32 chunk)
{
	KUNIT_ASSERT_EQ(test, lraid_geom_init(g, level, n, chunk,
					      64 * (chunk >> 9)), 0);
}

/* Every data row of a stripe written: no reads, data + parity written. */
static void plan_full_stripe(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;
	unsigned int di;

	plan_geom(test, &g, 5, 4, 65536);
	KUNIT_EXPECT_EQ(test, lraid_win_sectors(&g), 128u);
	lraid_plan_window(&g, 0, 0, 3 * 128, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_FULL);
	KUNIT_EXPECT_EQ(test, p.reads, 0u);
	KUNIT_EXPECT_EQ(test, p.written, 384u);
	KUNIT_EXPECT_EQ(test, p.writes, 384u + 128u);
	KUNIT_EXPECT_EQ(test, p.r0, 0u);
	KUNIT_EXPECT_EQ(test, p.r1, 128u);
	for (di = 0; di < 3; di++) {
		KUNIT_EXPECT_EQ(test, p.s[di], 0u);
		KUNIT_EXPECT_EQ(test, p.e[di], 128u);
	}

	plan_geom(test, &g, 6, 6, 4096);
	lraid_plan_window(&g, 0, 0, 4 * 8, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_FULL);
	KUNIT_EXPECT_EQ(test, p.nr_parity, 2);
	KUNIT_EXPECT_EQ(test, p.writes, 32u + 16u);
}

/* One 4 KiB block: wide arrays read old data + parity (RMW). */
static void plan_small_wide_rmw(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;

	plan_geom(test, &g, 5, 8, 65536);
	lraid_plan_window(&g, 0, 128 * 2 + 16, 128 * 2 + 24, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RMW);
	KUNIT_EXPECT_EQ(test, p.rmw_reads, 16u);
	KUNIT_EXPECT_EQ(test, p.rcw_reads, 7u * 8 - 8);
	KUNIT_EXPECT_EQ(test, p.reads, 16u);
	KUNIT_EXPECT_EQ(test, p.s[2], 16u);
	KUNIT_EXPECT_EQ(test, p.e[2], 24u);
	KUNIT_EXPECT_EQ(test, p.s[1], p.e[1]);
	KUNIT_EXPECT_EQ(test, p.r0, 16u);
	KUNIT_EXPECT_EQ(test, p.r1, 24u);
	KUNIT_EXPECT_EQ(test, p.writes, 16u);

	plan_geom(test, &g, 6, 8, 65536);
	lraid_plan_window(&g, 0, 8, 16, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RMW);
	KUNIT_EXPECT_EQ(test, p.reads, 8u + 16u);
	KUNIT_EXPECT_EQ(test, p.rcw_reads, 6u * 8 - 8);
	KUNIT_EXPECT_EQ(test, p.writes, 8u + 16u);
}

/* One 4 KiB block: narrow arrays read the other data (RCW). */
static void plan_small_narrow_rcw(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;

	plan_geom(test, &g, 5, 3, 65536);
	lraid_plan_window(&g, 0, 0, 8, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p.reads, 8u);
	KUNIT_EXPECT_EQ(test, p.rmw_reads, 16u);

	plan_geom(test, &g, 6, 4, 65536);
	lraid_plan_window(&g, 0, 128 + 64, 128 + 72, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p.reads, 8u);
	KUNIT_EXPECT_EQ(test, p.rmw_reads, 24u);
	KUNIT_EXPECT_EQ(test, p.r0, 64u);
	KUNIT_EXPECT_EQ(test, p.r1, 72u);
}

/* Equal reads: reconstruct-write (it leaves no old-parity dependency). */
static void plan_tie_prefers_rcw(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;

	plan_geom(test, &g, 5, 4, 65536);
	lraid_plan_window(&g, 0, 0, 8, &p);
	KUNIT_EXPECT_EQ(test, p.rmw_reads, 16u);
	KUNIT_EXPECT_EQ(test, p.rcw_reads, 16u);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RCW);
}

/* A single 512-byte sector. */
static void plan_one_sector(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;

	plan_geom(test, &g, 5, 5, 4096);
	lraid_plan_window(&g, 0, 8 + 3, 8 + 4, &p);
	KUNIT_EXPECT_EQ(test, p.written, 1u);
	KUNIT_EXPECT_EQ(test, p.s[1], 3u);
	KUNIT_EXPECT_EQ(test, p.e[1], 4u);
	KUNIT_EXPECT_EQ(test, p.rmw_reads, 2u);
	KUNIT_EXPECT_EQ(test, p.rcw_reads, 3u);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RMW);
	KUNIT_EXPECT_EQ(test, p.writes, 2u);
}

/*
 * A write across a chunk boundary touches the tail of one data chunk and
 * the head of the next: the touched rows are their union.
 */
static void plan_cross_chunk(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;

	plan_geom(test, &g, 5, 5, 4096);
	lraid_plan_window(&g, 0, 4, 12, &p);
	KUNIT_EXPECT_EQ(test, p.s[0], 4u);
	KUNIT_EXPECT_EQ(test, p.e[0], 8u);
	KUNIT_EXPECT_EQ(test, p.s[1], 0u);
	KUNIT_EXPECT_EQ(test, p.e[1], 4u);
	KUNIT_EXPECT_EQ(test, p.r0, 0u);
	KUNIT_EXPECT_EQ(test, p.r1, 8u);
	KUNIT_EXPECT_EQ(test, p.written, 8u);
	KUNIT_EXPECT_EQ(test, p.rmw_reads, 8u + 8u);
	KUNIT_EXPECT_EQ(test, p.rcw_reads, 4u * 8 - 8);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RMW);
}

/* Big chunks are cut into 64 KiB windows. */
static void plan_windows(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;

	plan_geom(test, &g, 6, 5, 512 * 1024);
	KUNIT_EXPECT_EQ(test, lraid_win_sectors(&g), 128u);
	lraid_plan_window(&g, 0, 100, 300, &p);
	KUNIT_EXPECT_EQ(test, p.s[0], 100u);
	KUNIT_EXPECT_EQ(test, p.e[0], 128u);
	lraid_plan_window(&g, 1, 100, 300, &p);
	KUNIT_EXPECT_EQ(test, p.s[0], 128u);
	KUNIT_EXPECT_EQ(test, p.e[0], 256u);
	/* 128 rows of one data index on 3 data: RCW reads 256, RMW 384 */
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_RCW);
	lraid_plan_window(&g, 2, 100, 300, &p);
	KUNIT_EXPECT_EQ(test, p.s[0], 256u);
	KUNIT_EXPECT_EQ(test, p.e[0], 300u);
	lraid_plan_window(&g, 3, 100, 300, &p);
	KUNIT_EXPECT_EQ(test, p.written, 0u);
	KUNIT_EXPECT_EQ(test, p.reads, 0u);
	KUNIT_EXPECT_EQ(test, p.writes, 0u);

	/* all of a 3-data stripe, window 5 only */
	lraid_plan_window(&g, 5, 0, 3 * 1024, &p);
	KUNIT_EXPECT_EQ(test, p.mode, LRAID_PLAN_FULL);
	KUNIT_EXPECT_EQ(test, p.w0, 640u);
	KUNIT_EXPECT_EQ(test, p.w1, 768u);
	KUNIT_EXPECT_EQ(test, p.written, 3u * 128);
}

static u32 plan_rand(u32 *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* Invariants over many geometries and write ranges. */
static void plan_invariants(struct kunit *test)
{
	static const u32 chunks[] = { 4096, 8192, 65536, 262144, 1048576 };
	u32 seed = 1, iter;

	for (iter = 0; iter < 3000; iter++) {
		unsigned int level = plan_rand(&seed) & 1 ? 6 : 5;
		unsigned int n = (level == 6 ? 4 : 3) +
				 plan_rand(&seed) % (level == 6 ? 29 : 30);
		u32 chunk = chunks[plan_rand(&seed) % ARRAY_SIZE(chunks)];
		struct lraid_geom g;
		struct lraid_plan p;
		u32 sdata, lo, hi, w, nwin, wsec, total = 0;

		plan_geom(test, &g, level, n, chunk);
		sdata = g.nr_data * g.chunk_sectors;
		lo = plan_rand(&seed) % sdata;
		hi = lo + 1 + plan_rand(&seed) % (sdata - lo);
		if (iter % 5 == 0) {
			/* small writes, down to one sector */
			hi = lo + 1 + plan_rand(&seed) % 16;
			if (hi > sdata)
				hi = sdata;
		}
		wsec = lraid_win_sectors(&g);
		nwin = g.chunk_sectors / wsec;
		for (w = 0; w < nwin; w++) {
			unsigned int di, rows;

			lraid_plan_window(&g, w, lo, hi, &p);
			total += p.written;
			if (!p.written)
				continue;
			rows = p.r1 - p.r0;
			KUNIT_ASSERT_TRUE(test, p.w0 <= p.r0 && p.r0 < p.r1 &&
					  p.r1 <= p.w1);
			for (di = 0; di < g.nr_data; di++) {
				u32 base = di * g.chunk_sectors;

				if (p.s[di] >= p.e[di])
					continue;
				KUNIT_ASSERT_TRUE(test, p.s[di] >= p.r0 &&
						  p.e[di] <= p.r1);
				/* written rows are exactly [lo, hi) here */
				KUNIT_ASSERT_TRUE(test, base + p.s[di] >= lo &&
						  base + p.e[di] <= hi);
				KUNIT_ASSERT_TRUE(test, p.s[di] == p.w0 ||
						  base + p.s[di] == lo);
				KUNIT_ASSERT_TRUE(test, p.e[di] == p.w1 ||
						  base + p.e[di] == hi);
			}
			KUNIT_ASSERT_EQ(test, p.rmw_reads,
					p.written + p.nr_parity * rows);
			KUNIT_ASSERT_EQ(test, p.rcw_reads,
					g.nr_data * rows - p.written);
			KUNIT_ASSERT_EQ(test, p.writes,
					p.written + p.nr_parity * rows);
			if (p.mode == LRAID_PLAN_FULL) {
				KUNIT_ASSERT_EQ(test, p.rcw_reads, 0u);
				KUNIT_ASSERT_EQ(test, p.reads, 0u);
			} else {
				KUNIT_ASSERT_NE(test, p.rcw_reads, 0u);
				KUNIT_ASSERT_EQ(test, p.reads,
						p.rmw_reads < p.rcw_reads ?
						p.rmw_reads : p.rcw_reads);
				KUNIT_ASSERT_EQ(test, p.mode,
						p.rmw_reads < p.rcw_reads ?
						LRAID_PLAN_RMW : LRAID_PLAN_RCW);
			}
		}
		/* the windows tile the write exactly */
		KUNIT_ASSERT_EQ_MSG(test, total, hi - lo,
				    "raid%u n %u chunk %u [%u, %u)", level, n,
				    chunk, lo, hi);
	}
}

/*
 * Degraded writes: RMW may stand in for the degraded reconstruct-write
 * only when no failed member holds P, Q or a block being written.
 */
static void plan_degraded_rmw(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_plan p;
	unsigned int level, stripe, di, m;

	for (level = 5; level <= 6; level++) {
		plan_geom(test, &g, level, 6, 65536);
		for (stripe = 0; stripe < 6; stripe++) {
			unsigned int pm = lraid_geom_p_member(&g, stripe);
			unsigned int qm = lraid_geom_q_member(&g, stripe);
			unsigned int w = lraid_geom_data_member(&g, stripe, 1);

			/* 4 KiB into data index 1 */
			lraid_plan_window(&g, 0, 128 + 8, 128 + 16, &p);
			KUNIT_ASSERT_NE(test, p.mode, LRAID_PLAN_FULL);
			KUNIT_EXPECT_TRUE(test, lraid_plan_rmw_avoids(&g, stripe,
								      &p, 0));
			KUNIT_EXPECT_FALSE(test, lraid_plan_rmw_avoids(&g, stripe,
								       &p, 1u << pm));
			KUNIT_EXPECT_FALSE(test, lraid_plan_rmw_avoids(&g, stripe,
								       &p, 1u << w));
			if (level == 6)
				KUNIT_EXPECT_FALSE(test,
						   lraid_plan_rmw_avoids(&g, stripe, &p,
									 1u << qm));
			for (di = 0; di < g.nr_data; di++) {
				if (di == 1)
					continue;
				m = lraid_geom_data_member(&g, stripe, di);
				KUNIT_EXPECT_TRUE(test,
						  lraid_plan_rmw_avoids(&g, stripe, &p,
									1u << m));
			}
			/* a full-stripe write has nothing to read anyway */
			lraid_plan_window(&g, 0, 0, g.nr_data * 128, &p);
			KUNIT_EXPECT_FALSE(test, lraid_plan_rmw_avoids(&g, stripe,
								       &p, 0));
		}
	}
}

/* md's pacing: min runs flat out, max waits, between yields when busy */
static void sync_pace(struct kunit *test)
{
	static const struct {
		u64 kib;
		u32 secs, min, max;
		bool busy;
		enum lraid_pace want;
	} c[] = {
		/* 1000 KiB in the first second: speed 1000 / 1 + 1 = 1001 */
		{ 1000, 0, 1001, 2000, true, LRAID_PACE_GO },
		{ 1000, 0, 1000, 2000, true, LRAID_PACE_YIELD },
		{ 1000, 0, 1000, 2000, false, LRAID_PACE_GO },
		{ 1000, 0, 500, 1000, false, LRAID_PACE_WAIT },
		{ 1000, 0, 500, 1001, false, LRAID_PACE_GO },
		/* the same KiB over a longer window is slower */
		{ 6000, 5, 500, 1000, true, LRAID_PACE_WAIT },
		{ 6000, 5, 500, 1001, true, LRAID_PACE_YIELD },
		{ 6000, 5, 1001, 1001, true, LRAID_PACE_GO },
		/* min above max: min wins, as in md */
		{ 1000, 0, 5000, 100, true, LRAID_PACE_GO },
		/* nothing done yet: speed 1, never a division by zero */
		{ 0, 0, 0, 0, true, LRAID_PACE_WAIT },
		{ 0, U32_MAX, 1, 1, true, LRAID_PACE_GO },
		{ U64_MAX, U32_MAX, 1, U32_MAX, false, LRAID_PACE_WAIT },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, lraid_sync_pace(c[i].kib, c[i].secs,
							  c[i].min, c[i].max,
							  c[i].busy),
				    c[i].want, "case %u", i);
}

static struct kunit_case lraid_stripe_cases[] = {
	KUNIT_CASE(plan_full_stripe),
	KUNIT_CASE(plan_small_wide_rmw),
	KUNIT_CASE(plan_small_narrow_rcw),
	KUNIT_CASE(plan_tie_prefers_rcw),
	KUNIT_CASE(plan_one_sector),
	KUNIT_CASE(plan_cross_chunk),
	KUNIT_CASE(plan_windows),
	KUNIT_CASE(plan_invariants),
	KUNIT_CASE(plan_degraded_rmw),
	KUNIT_CASE(sync_pace),
	{}
};

static struct kunit_suite lraid_stripe_suite = {
	.name = "lraid_stripe",
	.test_cases = lraid_stripe_cases,
};

kunit_test_suite(lraid_stripe_suite);

MODULE_DESCRIPTION("KUnit tests for lraid stripe planning");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
