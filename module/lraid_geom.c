// SPDX-License-Identifier: GPL-2.0
/*
 * lraid array geometry: md's left-symmetric RAID5 and RAID6 layouts.
 *
 * A logical sector s of the array sits in chunk c = s / chunk_sectors at
 * offset s % chunk_sectors. Chunk c belongs to stripe c / nr_data, where it
 * has data index c % nr_data. Every member holds one chunk of each stripe,
 * at member sector stripe * chunk_sectors.
 *
 * Left-symmetric: parity starts on the last member and moves one member to
 * the left per stripe; the data chunks follow parity (RAID6: follow Q,
 * which follows P), wrapping around. See Documentation/layout.rst.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#endif

#include "lraid_geom.h"

int lraid_geom_init(struct lraid_geom *g, unsigned int level,
		    unsigned int nr_members, u32 chunk_bytes,
		    u64 member_data_sectors)
{
	unsigned int nr_parity, min_members;
	u32 chunk_sectors;

	memset(g, 0, sizeof(*g));
	switch (level) {
	case 5:
		nr_parity = 1;
		min_members = 3;
		break;
	case 6:
		nr_parity = 2;
		min_members = 4;
		break;
	default:
		return -EINVAL;
	}
	if (nr_members < min_members || nr_members > LRAID_MAX_MEMBERS)
		return -EINVAL;
	if (chunk_bytes < LRAID_MIN_CHUNK_BYTES ||
	    chunk_bytes > LRAID_MAX_CHUNK_BYTES ||
	    !is_power_of_2(chunk_bytes))
		return -EINVAL;

	chunk_sectors = chunk_bytes >> 9;
	g->level = level;
	g->nr_members = nr_members;
	g->nr_data = nr_members - nr_parity;
	g->chunk_shift = ilog2(chunk_sectors);
	g->chunk_sectors = chunk_sectors;
	g->nr_stripes = member_data_sectors >> g->chunk_shift;
	if (!g->nr_stripes)
		return -EINVAL;
	g->member_sectors = g->nr_stripes << g->chunk_shift;
	if (g->member_sectors > div_u64(LRAID_MAX_ARRAY_SECTORS, g->nr_data))
		return -EFBIG;
	g->array_sectors = g->member_sectors * g->nr_data;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_init);

/* Member holding P of @stripe: the last member for stripe 0, moving left. */
unsigned int lraid_geom_p_member(const struct lraid_geom *g, u64 stripe)
{
	u32 rot;

	div_u64_rem(stripe, g->nr_members, &rot);
	return g->nr_members - 1 - rot;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_p_member);

static inline unsigned int lraid_geom_wrap(const struct lraid_geom *g,
					   unsigned int member)
{
	/* member < 2 * nr_members at every caller */
	return member >= g->nr_members ? member - g->nr_members : member;
}

unsigned int lraid_geom_q_member(const struct lraid_geom *g, u64 stripe)
{
	if (g->level != 6)
		return LRAID_NO_MEMBER;
	return lraid_geom_wrap(g, lraid_geom_p_member(g, stripe) + 1);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_q_member);

/* Data index 0 sits right after P (RAID5) or after P and Q (RAID6). */
static inline unsigned int lraid_geom_member_of(const struct lraid_geom *g,
						unsigned int p,
						unsigned int di)
{
	unsigned int nr_parity = g->nr_members - g->nr_data;

	return lraid_geom_wrap(g, p + nr_parity + di);
}

unsigned int lraid_geom_data_member(const struct lraid_geom *g, u64 stripe,
				    unsigned int di)
{
	return lraid_geom_member_of(g, lraid_geom_p_member(g, stripe), di);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_data_member);

int lraid_geom_data_index(const struct lraid_geom *g, u64 stripe,
			  unsigned int member)
{
	unsigned int p = lraid_geom_p_member(g, stripe);
	unsigned int nr_parity = g->nr_members - g->nr_data;
	unsigned int dist;

	/* distance from P going right, wrapping: 0 is P, 1 is Q on RAID6 */
	dist = member >= p ? member - p : member + g->nr_members - p;
	if (dist < nr_parity)
		return -1;
	return dist - nr_parity;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_data_index);

u64 lraid_geom_logical(const struct lraid_geom *g, u64 stripe,
		       unsigned int di)
{
	return (stripe * g->nr_data + di) << g->chunk_shift;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_logical);

void lraid_geom_map(const struct lraid_geom *g, u64 sector,
		    struct lraid_map *m)
{
	u64 chunk = sector >> g->chunk_shift;
	unsigned int p;
	u32 di;

	m->chunk_offset = sector & (g->chunk_sectors - 1);
	m->stripe = div_u64_rem(chunk, g->nr_data, &di);
	m->data_index = di;
	m->member_sector = (m->stripe << g->chunk_shift) + m->chunk_offset;
	p = lraid_geom_p_member(g, m->stripe);
	m->p_member = p;
	m->q_member = g->level == 6 ? lraid_geom_wrap(g, p + 1) :
				      LRAID_NO_MEMBER;
	m->member = lraid_geom_member_of(g, p, di);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_geom_map);
