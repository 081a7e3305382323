/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lraid array geometry: where a logical sector lives, and where P and Q sit.
 *
 * Layouts are md's defaults, so that an md array of the same geometry over
 * the same data area reads the same bytes:
 *   RAID5 left-symmetric (md ALGORITHM_LEFT_SYMMETRIC, layout 2)
 *   RAID6 left-symmetric with P then Q (md "left-symmetric", layout 2)
 *
 * Terms: a "chunk" is chunk_sectors contiguous sectors on one member. A
 * "stripe" is one row of chunks, one per member, at the same member offset
 * (stripe * chunk_sectors). A stripe holds nr_data data chunks, whose
 * "data index" 0..nr_data-1 is their logical order; the RAID6 Q syndrome
 * weights data index i with g^i (generator g = 2), exactly as md does.
 *
 * Pure arithmetic: no allocation, no locking, callable from any context,
 * and compiled unchanged in userspace (see lraid_user.h).
 */
#ifndef LRAID_GEOM_H
#define LRAID_GEOM_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

#define LRAID_MIN_CHUNK_BYTES	4096u
#define LRAID_MAX_CHUNK_BYTES	(1024u * 1024u)
#define LRAID_MAX_MEMBERS	32u
#define LRAID_NO_MEMBER		0xffu
/* The largest block device: its size in bytes must fit a loff_t. */
#define LRAID_MAX_ARRAY_SECTORS	((~0ULL >> 1) >> 9)

struct lraid_geom {
	u8 level;		/* 5 or 6 */
	u8 nr_members;		/* RAID5: 3..32, RAID6: 4..32 */
	u8 nr_data;		/* nr_members - 1 (RAID5) or - 2 (RAID6) */
	u8 chunk_shift;		/* log2(chunk_sectors) */
	u32 chunk_sectors;	/* 8..2048, power of two */
	u64 member_sectors;	/* data-area sectors used per member: n * chunk */
	u64 nr_stripes;		/* member_sectors / chunk_sectors */
	u64 array_sectors;	/* nr_data * member_sectors */
};

/* Where one logical sector of the array lives. */
struct lraid_map {
	u64 stripe;		/* stripe (chunk row) number */
	u64 member_sector;	/* sector inside the member's data area */
	u32 chunk_offset;	/* sector offset inside the chunk */
	u8 member;		/* member (role) holding the sector */
	u8 data_index;		/* 0..nr_data-1: logical position in stripe */
	u8 p_member;		/* member holding P for this stripe */
	u8 q_member;		/* member holding Q, LRAID_NO_MEMBER for RAID5 */
};

/*
 * Fill @g. @member_data_sectors is the usable size of the smallest member's
 * data area; it is rounded down to whole chunks. Returns 0, -EINVAL when
 * level, member count or chunk size is out of range, or no stripe fits, or
 * -EFBIG when the array would be larger than LRAID_MAX_ARRAY_SECTORS.
 */
int lraid_geom_init(struct lraid_geom *g, unsigned int level,
		    unsigned int nr_members, u32 chunk_bytes,
		    u64 member_data_sectors);

/* Map logical array sector @sector (< g->array_sectors). */
void lraid_geom_map(const struct lraid_geom *g, u64 sector,
		    struct lraid_map *m);

/* Member holding P / Q (LRAID_NO_MEMBER on RAID5) of @stripe. */
unsigned int lraid_geom_p_member(const struct lraid_geom *g, u64 stripe);
unsigned int lraid_geom_q_member(const struct lraid_geom *g, u64 stripe);

/* Member holding data index @di (0..nr_data-1) of @stripe. */
unsigned int lraid_geom_data_member(const struct lraid_geom *g, u64 stripe,
				    unsigned int di);

/*
 * Inverse: data index held by @member in @stripe, or -1 when @member holds
 * P or Q there.
 */
int lraid_geom_data_index(const struct lraid_geom *g, u64 stripe,
			  unsigned int member);

/* First logical sector of @stripe's data index @di. */
u64 lraid_geom_logical(const struct lraid_geom *g, u64 stripe,
		       unsigned int di);

#endif /* LRAID_GEOM_H */
