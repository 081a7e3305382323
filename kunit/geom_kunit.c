// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for lraid array geometry (module/lraid_geom.c).
 *
 * Three kinds of checks:
 *  - hand-worked tables of md's left-symmetric layouts (RAID5 on 3 and 4
 *    members, RAID6 on 4 and 5, two full parity rotations each);
 *  - an independent formulation: the layout is rebuilt by walking stripes
 *    and members one at a time (parity steps one member left per stripe,
 *    data fills the members to the right of parity in order) and compared
 *    with lraid_geom_map() for every chunk of small arrays, 3..32 members,
 *    chunks 4 KiB..1 MiB; plus md's own RAID6 syndrome slot walk
 *    (raid6_d0/raid6_idx_to_slot) to prove that Q weights data index i
 *    with g^i;
 *  - parameter validation.
 *
 * The same file builds in userspace (tests/geom) against a small KUnit shim.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "lraid_geom.h"

#define P (-1)
#define Q (-2)

/*
 * Check one layout table: @rows stripes of @n members; entry is the
 * logical chunk number stored there, or P / Q.
 */
static void geom_check_table(struct kunit *test, unsigned int level,
			     unsigned int n, unsigned int rows,
			     const int *table)
{
	struct lraid_geom g;
	struct lraid_map m;
	unsigned int s, mem;

	KUNIT_ASSERT_EQ(test, lraid_geom_init(&g, level, n, 4096,
					      rows * 8), 0);
	KUNIT_EXPECT_EQ(test, g.nr_stripes, (u64)rows);
	for (s = 0; s < rows; s++) {
		for (mem = 0; mem < n; mem++) {
			int c = table[s * n + mem];
			int di = lraid_geom_data_index(&g, s, mem);

			if (c == P) {
				unsigned int pm = lraid_geom_p_member(&g, s);

				KUNIT_EXPECT_EQ_MSG(test, pm, mem, "stripe %u", s);
				KUNIT_EXPECT_EQ(test, di, -1);
				continue;
			}
			if (c == Q) {
				unsigned int pm = lraid_geom_q_member(&g, s);

				KUNIT_EXPECT_EQ_MSG(test, pm, mem, "stripe %u", s);
				KUNIT_EXPECT_EQ(test, di, -1);
				continue;
			}
			/* sector 3 of chunk c */
			lraid_geom_map(&g, (u64)c * 8 + 3, &m);
			KUNIT_EXPECT_EQ_MSG(test, m.member, mem,
					    "chunk %d", c);
			KUNIT_EXPECT_EQ_MSG(test, m.stripe, (u64)s,
					    "chunk %d", c);
			KUNIT_EXPECT_EQ_MSG(test, m.member_sector,
					    (u64)s * 8 + 3, "chunk %d", c);
			KUNIT_EXPECT_EQ(test, m.chunk_offset, 3u);
			KUNIT_EXPECT_EQ(test, di, (int)m.data_index);
			KUNIT_EXPECT_EQ(test, lraid_geom_logical(&g, s, di),
					(u64)c * 8);
		}
	}
}

static void geom_raid5_3_table(struct kunit *test)
{
	static const int t[] = {
		 0,  1,  P,
		 3,  P,  2,
		 P,  4,  5,
		 6,  7,  P,
		 9,  P,  8,
		 P, 10, 11,
	};

	geom_check_table(test, 5, 3, 6, t);
}

static void geom_raid5_4_table(struct kunit *test)
{
	static const int t[] = {
		 0,  1,  2,  P,
		 4,  5,  P,  3,
		 8,  P,  6,  7,
		 P,  9, 10, 11,
		12, 13, 14,  P,
		16, 17,  P, 15,
		20,  P, 18, 19,
		 P, 21, 22, 23,
	};

	geom_check_table(test, 5, 4, 8, t);
}

static void geom_raid6_4_table(struct kunit *test)
{
	static const int t[] = {
		 Q,  0,  1,  P,
		 2,  3,  P,  Q,
		 5,  P,  Q,  4,
		 P,  Q,  6,  7,
		 Q,  8,  9,  P,
		10, 11,  P,  Q,
		13,  P,  Q, 12,
		 P,  Q, 14, 15,
	};

	geom_check_table(test, 6, 4, 8, t);
}

static void geom_raid6_5_table(struct kunit *test)
{
	static const int t[] = {
		 Q,  0,  1,  2,  P,
		 3,  4,  5,  P,  Q,
		 7,  8,  P,  Q,  6,
		11,  P,  Q,  9, 10,
		 P,  Q, 12, 13, 14,
		 Q, 15, 16, 17,  P,
		18, 19, 20,  P,  Q,
		22, 23,  P,  Q, 21,
		26,  P,  Q, 24, 25,
		 P,  Q, 27, 28, 29,
	};

	geom_check_table(test, 6, 5, 10, t);
}

/* A few sectors worked by hand with a 64 KiB chunk (128 sectors). */
static void geom_chunk64k_examples(struct kunit *test)
{
	struct lraid_geom g;
	struct lraid_map m;

	KUNIT_ASSERT_EQ(test, lraid_geom_init(&g, 5, 4, 65536, 1 << 20), 0);
	KUNIT_EXPECT_EQ(test, g.chunk_sectors, 128u);
	KUNIT_EXPECT_EQ(test, g.chunk_shift, 7);
	KUNIT_EXPECT_EQ(test, g.array_sectors, 3ull << 20);
	/* sector 1000: chunk 7 offset 104, stripe 2, data index 1 */
	lraid_geom_map(&g, 1000, &m);
	KUNIT_EXPECT_EQ(test, m.stripe, 2ull);
	KUNIT_EXPECT_EQ(test, m.data_index, 1);
	KUNIT_EXPECT_EQ(test, m.chunk_offset, 104u);
	KUNIT_EXPECT_EQ(test, m.p_member, 1);
	KUNIT_EXPECT_EQ(test, m.q_member, LRAID_NO_MEMBER);
	KUNIT_EXPECT_EQ(test, m.member, 3);
	KUNIT_EXPECT_EQ(test, m.member_sector, 360ull);

	/* RAID6 on 6 members: sector 5 * 128 * 4 + 17 = chunk 20, stripe 5 */
	KUNIT_ASSERT_EQ(test, lraid_geom_init(&g, 6, 6, 65536, 1 << 20), 0);
	lraid_geom_map(&g, 2577, &m);
	KUNIT_EXPECT_EQ(test, m.stripe, 5ull);
	KUNIT_EXPECT_EQ(test, m.data_index, 0);
	KUNIT_EXPECT_EQ(test, m.p_member, 0);
	KUNIT_EXPECT_EQ(test, m.q_member, 1);
	KUNIT_EXPECT_EQ(test, m.member, 2);
	KUNIT_EXPECT_EQ(test, m.member_sector, 5ull * 128 + 17);

	/* the last sector of the array */
	lraid_geom_map(&g, g.array_sectors - 1, &m);
	KUNIT_EXPECT_EQ(test, m.stripe, g.nr_stripes - 1);
	KUNIT_EXPECT_EQ(test, m.member_sector, g.member_sectors - 1);
	KUNIT_EXPECT_EQ(test, m.data_index, 3);
}

/*
 * md's RAID6 syndrome order: start at the member after Q (member 0 when Q
 * is the last member), walk members upwards with wrap-around, and number
 * the ones that are neither P nor Q 0, 1, 2, ... That number is the power
 * of g that weights the chunk in Q. Returns the slot of @member, -1 for P/Q.
 */
static int md_raid6_slot(unsigned int n, unsigned int p, unsigned int q,
			 unsigned int member)
{
	unsigned int d = q == n - 1 ? 0 : q + 1;
	unsigned int i;
	int slot = 0;

	for (i = 0; i < n; i++) {
		if (d == member)
			return (d == p || d == q) ? -1 : slot;
		if (d != p && d != q)
			slot++;
		d = d + 1 == n ? 0 : d + 1;
	}
	return -2;
}

/*
 * Independent formulation: walk the stripes one by one, stepping parity one
 * member to the left each time, and hand out logical chunks to the members
 * that follow parity (and Q) in order. Every chunk must map where the walk
 * puts it; the inverse functions must agree.
 */
static void geom_walk_one(struct kunit *test, unsigned int level,
			  unsigned int n, u32 chunk_bytes)
{
	unsigned int nr_parity = level == 6 ? 2 : 1;
	unsigned int rows = 2 * n + 3, spc = chunk_bytes >> 9;
	unsigned int p = n - 1, s, k, bad = 0;
	u64 chunk = 0;
	struct lraid_geom g;
	struct lraid_map m;

	KUNIT_ASSERT_EQ(test, lraid_geom_init(&g, level, n, chunk_bytes,
					      (u64)rows * spc + spc - 1), 0);
	KUNIT_ASSERT_EQ(test, g.nr_stripes, (u64)rows);
	KUNIT_ASSERT_EQ(test, g.nr_data, n - nr_parity);
	KUNIT_ASSERT_EQ(test, g.array_sectors,
			(u64)rows * spc * (n - nr_parity));

	for (s = 0; s < rows; s++) {
		unsigned int q = p + 1 == n ? 0 : p + 1;
		unsigned int mem = nr_parity == 2 ? q : p;

		if (lraid_geom_p_member(&g, s) != p)
			bad++;
		if (lraid_geom_q_member(&g, s) !=
		    (level == 6 ? q : LRAID_NO_MEMBER))
			bad++;
		if (lraid_geom_data_index(&g, s, p) != -1)
			bad++;
		if (level == 6 && lraid_geom_data_index(&g, s, q) != -1)
			bad++;

		for (k = 0; k < n - nr_parity; k++, chunk++) {
			static const unsigned int offs[] = { 0, 1, 5, 7 };
			unsigned int o, j, nr_offs;

			mem = mem + 1 == n ? 0 : mem + 1;
			if (lraid_geom_data_member(&g, s, k) != mem)
				bad++;
			if (lraid_geom_data_index(&g, s, mem) != (int)k)
				bad++;
			if (lraid_geom_logical(&g, s, k) != chunk * spc)
				bad++;
			if (level == 6 && md_raid6_slot(n, p, q, mem) != (int)k)
				bad++;

			/* every sector of 4 KiB chunks, some offsets of others */
			nr_offs = spc == 8 ? 8 : ARRAY_SIZE(offs) + 2;
			for (j = 0; j < nr_offs; j++) {
				if (spc == 8)
					o = j;
				else if (j < ARRAY_SIZE(offs))
					o = offs[j];
				else if (j == ARRAY_SIZE(offs))
					o = spc / 2;
				else
					o = spc - 1;
				lraid_geom_map(&g, chunk * spc + o, &m);
				if (m.member != mem || m.stripe != s ||
				    m.data_index != k || m.chunk_offset != o ||
				    m.member_sector != (u64)s * spc + o ||
				    m.p_member != p ||
				    m.q_member != (level == 6 ? q :
						   LRAID_NO_MEMBER))
					bad++;
			}
		}
		p = p == 0 ? n - 1 : p - 1;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0u, "RAID%u n=%u chunk=%u",
			    level, n, chunk_bytes);
	KUNIT_EXPECT_EQ(test, chunk * spc, g.array_sectors);
}

static void geom_walk_raid5(struct kunit *test)
{
	unsigned int n;
	u32 c;

	for (n = 3; n <= LRAID_MAX_MEMBERS; n++)
		for (c = LRAID_MIN_CHUNK_BYTES; c <= LRAID_MAX_CHUNK_BYTES;
		     c <<= 1)
			geom_walk_one(test, 5, n, c);
}

static void geom_walk_raid6(struct kunit *test)
{
	unsigned int n;
	u32 c;

	for (n = 4; n <= LRAID_MAX_MEMBERS; n++)
		for (c = LRAID_MIN_CHUNK_BYTES; c <= LRAID_MAX_CHUNK_BYTES;
		     c <<= 1)
			geom_walk_one(test, 6, n, c);
}

/*
 * Big arrays: stripe numbers beyond 32 bits. Compare with the closed form
 * computed here with plain 64-bit arithmetic (the test knows nr_data).
 */
static void geom_large(struct kunit *test)
{
	static const u64 sectors[] = {
		0, 1, 8191, 8192, 123456789012ull, (1ull << 40) + 77,
	};
	struct lraid_geom g;
	struct lraid_map m;
	unsigned int i;

	/* 7 members, RAID6: nr_data 5; 2^44 sectors (8 PiB) per member */
	KUNIT_ASSERT_EQ(test, lraid_geom_init(&g, 6, 7, 4096, 1ull << 44), 0);
	KUNIT_EXPECT_EQ(test, g.nr_stripes, 1ull << 41);
	KUNIT_EXPECT_EQ(test, g.array_sectors, 5ull << 44);
	for (i = 0; i < ARRAY_SIZE(sectors) + 1; i++) {
		u64 sec = i < ARRAY_SIZE(sectors) ? sectors[i] :
			  g.array_sectors - 1;
		u64 chunk = sec >> 3, stripe = 0;
		unsigned int di, p;

		/* stripe = chunk / 5 without a 64-bit divide */
		while (chunk >= 5ull << 40) {
			chunk -= 5ull << 40;
			stripe += 1ull << 40;
		}
		while (chunk >= 5ull << 20) {
			chunk -= 5ull << 20;
			stripe += 1ull << 20;
		}
		while (chunk >= 5) {
			chunk -= 5;
			stripe++;
		}
		di = chunk;
		/* stripe % 7: 2^3 == 1 (mod 7), so sum base-8 digits */
		p = 0;
		{
			u64 t = stripe;

			while (t) {
				p += t & 7;
				t >>= 3;
			}
			while (p >= 7)
				p -= 7;
		}
		p = 6 - p;
		lraid_geom_map(&g, sec, &m);
		KUNIT_EXPECT_EQ(test, m.stripe, stripe);
		KUNIT_EXPECT_EQ(test, m.data_index, di);
		KUNIT_EXPECT_EQ(test, m.p_member, p);
		KUNIT_EXPECT_EQ(test, m.q_member, (p + 1) % 7);
		KUNIT_EXPECT_EQ(test, m.member, (p + 2 + di) % 7);
		KUNIT_EXPECT_EQ(test, m.member_sector,
				(stripe << 3) + (sec & 7));
	}
}

static void geom_invalid(struct kunit *test)
{
	static const unsigned int levels[] = { 0, 1, 4, 7, 10, 255 };
	static const u32 chunks[] = {
		0, 512, 2048, 4095, 4097, 6144, 12288, 65535,
		3 * 65536, (1u << 20) + 4096, 1u << 21, 0x80000000u,
	};
	struct lraid_geom g;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(levels); i++)
		KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, levels[i], 4, 65536,
						      1 << 20), -EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 0, 65536, 1 << 20),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 2, 65536, 1 << 20),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 33, 65536, 1 << 20),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 6, 3, 65536, 1 << 20),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 6, 33, 65536, 1 << 20),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 6, 256, 65536, 1 << 20),
			-EINVAL);
	for (i = 0; i < ARRAY_SIZE(chunks); i++)
		KUNIT_EXPECT_EQ_MSG(test, lraid_geom_init(&g, 5, 4, chunks[i],
							  1 << 20),
				    -EINVAL, "chunk %u", chunks[i]);

	/* members too small for one chunk */
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 4, 65536, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 4, 65536, 127), -EINVAL);

	/* an array whose size in bytes would not fit a loff_t: 2^54 sectors */
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 3, 4096, 1ull << 53),
			-EFBIG);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 6, 32, 4096, ~0ull), -EFBIG);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 32, 1 << 20,
					      (1ull << 54) / 31 + 2048), -EFBIG);

	/* limits that are fine */
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 3, 4096, 8), 0);
	KUNIT_EXPECT_EQ(test, g.array_sectors, 16ull);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 3, 4096,
					      (1ull << 53) - 1), 0);
	KUNIT_EXPECT_EQ(test, g.array_sectors, (1ull << 54) - 16);
	KUNIT_EXPECT_EQ(test, g.array_sectors, LRAID_MAX_ARRAY_SECTORS - 15);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 6, 4, 4096, 8), 0);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 32, 1 << 20, 2048), 0);
	KUNIT_EXPECT_EQ(test, g.nr_data, 31);
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 6, 32, 1 << 20, 2048), 0);
	KUNIT_EXPECT_EQ(test, g.nr_data, 30);

	/* member size rounds down to whole chunks */
	KUNIT_EXPECT_EQ(test, lraid_geom_init(&g, 5, 4, 65536, 128 * 3 + 127),
			0);
	KUNIT_EXPECT_EQ(test, g.member_sectors, 384ull);
	KUNIT_EXPECT_EQ(test, g.nr_stripes, 3ull);
	KUNIT_EXPECT_EQ(test, g.array_sectors, 1152ull);
}

static struct kunit_case lraid_geom_cases[] = {
	KUNIT_CASE(geom_raid5_3_table),
	KUNIT_CASE(geom_raid5_4_table),
	KUNIT_CASE(geom_raid6_4_table),
	KUNIT_CASE(geom_raid6_5_table),
	KUNIT_CASE(geom_chunk64k_examples),
	KUNIT_CASE(geom_walk_raid5),
	KUNIT_CASE(geom_walk_raid6),
	KUNIT_CASE(geom_large),
	KUNIT_CASE(geom_invalid),
	{}
};

static struct kunit_suite lraid_geom_suite = {
	.name = "lraid_geom",
	.test_cases = lraid_geom_cases,
};

kunit_test_suite(lraid_geom_suite);

MODULE_DESCRIPTION("KUnit tests for lraid array geometry");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
