/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lraid on-disk superblock: one 4096-byte little-endian block at byte 0 of
 * every member, and the codec that turns it into host-endian fields and
 * validates it. Documentation/on-disk-format.rst is the reference; keep
 * both in step.
 *
 * Member layout (sectors of 512 bytes from the member's start):
 *   0 .. 7                      superblock (this block)
 *   bitmap_offset ..            write-intent bitmap area (bitmap_sectors)
 *   data_offset ..              data area, data_size sectors (whole chunks)
 *
 * The codec is pure code: no allocation, no locking, no I/O; callable from
 * any context, and compiled unchanged in userspace (with the shim
 * tests/include/lraid_user.h) so that lraidctl examine and the host tests
 * use the very same validation.
 *
 * Versioning: @version changes only for a layout that old code must not
 * read at all. Everything else grows through feature bits:
 *   incompat:  code that does not know the bit must refuse the member;
 *   ro_compat: unknown bits allow read-only use only (info->ro_only);
 *   compat:    unknown bits are ignored and preserved on rewrite.
 * New fields are carved from the reserved area, which version 1 code
 * requires to be zero unless a feature bit says otherwise.
 */
#ifndef LRAID_SB_H
#define LRAID_SB_H

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#endif

#include "lraid_geom.h"

#define LRAID_SB_SIZE		4096u
#define LRAID_SB_SECTORS	(LRAID_SB_SIZE >> 9)
/* "lraid-sb" read as a little-endian 64-bit number */
#define LRAID_SB_MAGIC		0x62732d646961726cULL
#define LRAID_SB_VERSION	1u

/*
 * compat: resync_offset holds where an interrupted resync stopped. Code
 * that does not know it ignores it (and writes the field zero, which
 * means resync from the start: safe).
 */
#define LRAID_SB_FEAT_COMPAT_RESYNC	0x1u

/*
 * compat: bitmap_events holds the event count of the last superblock pass
 * made with every role working. Write-intent bits are cleared only while
 * every role works, so a member that left the array in sync at this count
 * or later missed no write its bits do not record, and can be re-added by
 * rebuilding the dirty regions only. Code that does not know it keeps
 * the bit, as it keeps every compat bit, and writes the field zero; a
 * pass never records zero (events start at 1), so zero means not known,
 * and every add is then a full rebuild. Only with a bitmap.
 */
#define LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS	0x2u

/* Feature bits known to this code. */
#define LRAID_SB_FEAT_INCOMPAT_SUPP	0u
#define LRAID_SB_FEAT_RO_COMPAT_SUPP	0u
#define LRAID_SB_FEAT_COMPAT_SUPP	(LRAID_SB_FEAT_COMPAT_RESYNC | \
					 LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS)

#define LRAID_LAYOUT_LEFT_SYMMETRIC	2u	/* md's number for it */

/* state bits */
#define LRAID_SB_STATE_CLEAN	0x1u	/* no write in flight at stop */
/*
 * Highest event count accepted: a running array bumps it once per
 * superblock pass (assembly, stop, a member failed), never 2^32 times, so
 * it cannot wrap to zero, where a stale member would look the newest.
 */
#define LRAID_SB_EVENTS_MAX	(U64_MAX - U32_MAX)
#define LRAID_SB_STATE_KNOWN	LRAID_SB_STATE_CLEAN

#define LRAID_SB_NAME_LEN	32u	/* bytes on disk, NUL padded */
#define LRAID_SB_UUID_LEN	16u

/* recovery_offset value of a member that is fully in sync */
#define LRAID_SB_IN_SYNC	(~0ULL)

/*
 * role of a spare: a device of the array that holds no role and no data,
 * written with every superblock pass, and that takes a failed role when
 * the array has one (as md's spares). recovery_offset is 0. Code older
 * than spares refuses such a superblock (role out of range), which is
 * safe: a spare holds nothing.
 */
#define LRAID_SB_ROLE_SPARE	0xffffffffu

/* Defaults used by lraid_sb_plan(). */
#define LRAID_SB_DEF_DATA_OFFSET	2048u		/* 1 MiB */
#define LRAID_SB_DEF_BITMAP_OFFSET	LRAID_SB_SECTORS /* right behind */
#define LRAID_SB_DEF_REGION_SECTORS	(64u << 11)	/* 64 MiB */

/* The block as stored on disk. All fields little-endian. */
struct lraid_sb_disk {
	__le64	magic;			/* 0x000 LRAID_SB_MAGIC */
	__le32	version;		/* 0x008 LRAID_SB_VERSION */
	__le32	feature_incompat;	/* 0x00c */
	__le32	feature_ro_compat;	/* 0x010 */
	__le32	feature_compat;		/* 0x014 */
	u8	uuid[LRAID_SB_UUID_LEN];	/* 0x018 array UUID */
	u8	name[LRAID_SB_NAME_LEN];	/* 0x028 array name, NUL padded */
	__le64	ctime;			/* 0x048 creation, seconds since epoch */
	__le64	utime;			/* 0x050 last update, seconds */
	__le64	events;			/* 0x058 event counter */
	__le32	level;			/* 0x060 5 or 6 */
	__le32	layout;			/* 0x064 LRAID_LAYOUT_LEFT_SYMMETRIC */
	__le32	chunk_sectors;		/* 0x068 power of two, 8..2048 */
	__le32	nr_members;		/* 0x06c 3..32 (RAID6 4..32) */
	__le32	role;			/* 0x070 this member, 0..nr_members-1 */
	__le32	state;			/* 0x074 LRAID_SB_STATE_* */
	__le32	failed_mask;		/* 0x078 bit r: role r failed */
	__le32	reserved0;		/* 0x07c zero */
	__le64	data_offset;		/* 0x080 sectors from member start */
	__le64	data_size;		/* 0x088 sectors used per member */
	__le64	dev_sectors;		/* 0x090 member size when written */
	__le64	recovery_offset;	/* 0x098 rebuilt up to, or IN_SYNC */
	__le64	bitmap_offset;		/* 0x0a0 sectors from member start */
	__le64	bitmap_sectors;		/* 0x0a8 bitmap area, 0 = no bitmap */
	__le64	bitmap_region_sectors;	/* 0x0b0 data per bit, power of 2 */
	__le64	resync_offset;		/* 0x0b8 parity in sync below (compat) */
	__le64	bitmap_events;		/* 0x0c0 bits kept since (compat) */
	u8	reserved[0xffc - 0xc8];	/* 0x0c8 zero */
	__le32	crc;			/* 0xffc crc32c, see lraid_sb_crc() */
};

static_assert(sizeof(struct lraid_sb_disk) == LRAID_SB_SIZE);
static_assert(offsetof(struct lraid_sb_disk, uuid) == 0x018);
static_assert(offsetof(struct lraid_sb_disk, events) == 0x058);
static_assert(offsetof(struct lraid_sb_disk, data_offset) == 0x080);
static_assert(offsetof(struct lraid_sb_disk, bitmap_region_sectors) == 0x0b0);
static_assert(offsetof(struct lraid_sb_disk, resync_offset) == 0x0b8);
static_assert(offsetof(struct lraid_sb_disk, bitmap_events) == 0x0c0);
static_assert(offsetof(struct lraid_sb_disk, reserved) == 0x0c8);
static_assert(offsetof(struct lraid_sb_disk, crc) == 0xffc);

/* Host-endian view of a superblock. */
struct lraid_sb_info {
	u32 version;		/* decode: as read; encode writes current */
	u32 feature_incompat;
	u32 feature_ro_compat;
	u32 feature_compat;
	bool ro_only;		/* decode: unknown ro_compat features */
	u8 uuid[LRAID_SB_UUID_LEN];
	char name[LRAID_SB_NAME_LEN + 1];	/* NUL terminated */
	u64 ctime;
	u64 utime;
	u64 events;
	u32 level;
	u32 layout;
	u32 chunk_sectors;
	u32 nr_members;
	u32 role;
	u32 state;
	u32 failed_mask;
	u64 data_offset;
	u64 data_size;
	u64 dev_sectors;
	u64 recovery_offset;
	u64 bitmap_offset;
	u64 bitmap_sectors;
	u64 bitmap_region_sectors;
	/*
	 * Not clean, LRAID_SB_FEAT_COMPAT_RESYNC set: a resync went over the
	 * data area below this sector (a chunk multiple, at most data_size)
	 * and no write was in flight after it; the next resync starts there.
	 * Zero without the bit.
	 */
	u64 resync_offset;
	/*
	 * LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS set (only with a bitmap): the
	 * events of the last pass with every role working, at most events.
	 * Zero without the bit.
	 */
	u64 bitmap_events;
};

/*
 * crc32c (Castagnoli, reflected 0x82F63B78, initial ~0, final inversion:
 * the usual CRC-32C) of the 4096-byte @block with its crc field taken as
 * zero. Returns the value to store in the crc field (host-endian).
 */
u32 lraid_sb_crc(const void *block);

/*
 * Write @info into the 4096-byte @block: magic, current version, every
 * field, zeroed reserved space, crc. @info is not validated here; run
 * lraid_sb_validate() first when it comes from outside.
 */
void lraid_sb_encode(const struct lraid_sb_info *info, void *block);

/*
 * Read and fully validate the 4096-byte @block. Returns 0 and fills @info,
 * or a negative errno and points *@why (if @why is not NULL) at a static
 * human-readable reason:
 *   -EINVAL      not an lraid superblock (foreign magic), or a field out of
 *                range, or non-zero reserved space;
 *   -EBADMSG     checksum mismatch;
 *   -EOPNOTSUPP  newer format version or unknown incompatible feature.
 * Nothing in @block is trusted before it is checked; any content is safe.
 */
int lraid_sb_decode(const void *block, struct lraid_sb_info *info,
		    const char **why);

/* The field checks of lraid_sb_decode() on a host-endian @info. */
int lraid_sb_validate(const struct lraid_sb_info *info, const char **why);

/*
 * Assembly check over the decoded superblocks @sbs[0..n-1] of the members
 * offered (one per device, any order; spares are not passed here, see
 * lraid_sb_spare_mismatch()). Requires: same UUID, name, level,
 * layout, chunk, member count, data size, data offset and incompat
 * features; no two with the same role; no more than nr_members offered.
 * Members whose event counter is more than one behind the newest one
 * ("not fresh": they missed writes), only partly rebuilt (recovery_offset
 * not LRAID_SB_IN_SYNC), left behind, or whose role is marked failed
 * (lraid_sb_failed()), must not be used; one behind is fresh
 * (a superblock pass cut short between members, as md and mdadm allow).
 * Sets *@fresh_mask bit i for each fresh @sbs[i].
 * Returns 0; -EINVAL with *@why set when the set is inconsistent (also
 * when parts of the array ran apart, lraid_sb_split()); -ENODEV
 * with *@why set when it is consistent but more roles are missing, failed
 * or not fresh than the level survives (lraid_sb_roles() says which).
 */
int lraid_sb_check_set(const struct lraid_sb_info *sbs, unsigned int n,
		       unsigned int *fresh_mask, const char **why);

/* What assembly makes of each role; bit r of each mask is role r. */
struct lraid_sb_roles {
	u32 fresh;	/* offered, fresh (see above), not recorded failed */
	u32 stale;	/* offered, not fresh, not recorded failed */
	u32 failed;	/* lraid_sb_failed(), not fresh */
	u32 missing;	/* neither offered nor recorded failed */
	u32 unusable;	/* stale | failed | missing: the array's failed set */
	unsigned int tolerate;	/* how many unusable roles the level survives */
};

/*
 * Sort the roles of the set @sbs[0..n-1] with the @fresh_mask that
 * lraid_sb_check_set() returned (also after -ENODEV) into @roles.
 */
void lraid_sb_roles(const struct lraid_sb_info *sbs, unsigned int n,
		    unsigned int fresh_mask, struct lraid_sb_roles *roles);

/*
 * Assembly with --force, after lraid_sb_check_set() returned -ENODEV:
 * adds offered members that are not fresh (behind the newest event count
 * or recorded failed, but not partly rebuilt ones, whose data above
 * recovery_offset was never written) to *@fresh_mask, highest event count
 * first (on a tie, roles the newest superblock does not record failed
 * first), until the level can run. Returns how many it added. Their
 * blocks written while they were out of the array read back old.
 */
unsigned int lraid_sb_force(const struct lraid_sb_info *sbs, unsigned int n,
			    unsigned int *fresh_mask);

/* Whether the superblock is a spare's (LRAID_SB_ROLE_SPARE). */
static inline bool lraid_sb_is_spare(const struct lraid_sb_info *sb)
{
	return sb->role == LRAID_SB_ROLE_SPARE;
}

/*
 * Whether the spare @sp belongs with the members whose newest superblock
 * is @ref: the same UUID, name, geometry, data area, bitmap area and
 * incompatible features. NULL, or why not (a static string). Its event
 * count does not matter: a spare holds no data.
 */
const char *lraid_sb_spare_mismatch(const struct lraid_sb_info *sp,
				    const struct lraid_sb_info *ref);

/* Whether the member holds all its data (not rebuilt only part way). */
static inline bool lraid_sb_in_sync(const struct lraid_sb_info *sb)
{
	return sb->recovery_offset == LRAID_SB_IN_SYNC;
}

/*
 * A member of @sbs[0..n-1] is left behind when another, one it records
 * working, records it failed: that one went on without it. The members
 * that speak for the array are those at the highest event count among the
 * ones not left behind. One superblock pass writes every member with the
 * same failed set, so they agree unless a start was undone half way or
 * parts of the array ran apart; and a member left behind can stand at any
 * count after passes cut short (Documentation/on-disk-format.rst).
 *
 * lraid_sb_newest(): index of the newest superblock, the one of those
 * recording the most roles failed, then the lowest role, so that the
 * choice does not depend on the order the members are offered in.
 */
unsigned int lraid_sb_newest(const struct lraid_sb_info *sbs, unsigned int n);

/*
 * The roles recorded failed by the members speaking for the array, and
 * the roles of the members left behind.
 */
u32 lraid_sb_failed(const struct lraid_sb_info *sbs, unsigned int n);

/*
 * Whether two members speaking for the array record each other failed:
 * parts of the array ran apart (each started degraded without the other)
 * and reached the same count, so neither is the newer and the parts hold
 * different data; lraid_sb_check_set() fails with LRAID_SB_WHY_SPLIT. Sets
 * *@x and *@y to the two indices. A member recording itself failed does
 * not count: a start undone writes that to the members --force took back.
 */
bool lraid_sb_split(const struct lraid_sb_info *sbs, unsigned int n,
		    unsigned int *x, unsigned int *y);

/*
 * The member of @sbs[0..n-1] a stop left part rebuilt, if the rebuild can
 * go on with it at assembly: the array was stopped clean, not --force
 * (@force), and the member got that stop's superblock pass: the count and
 * failed set of the newest, its own role among them and among @failed
 * (what the set records, lraid_sb_roles()), recovery_offset short of
 * IN_SYNC. Every write of that run below recovery_offset reached it (it
 * was rebuilding). Its index, or @n.
 */
unsigned int lraid_sb_resumable(const struct lraid_sb_info *sbs,
				unsigned int n, u32 failed, bool force);

/*
 * A member of @sbs[0..n-1] that left the array recently enough for its
 * write-intent bitmap to record every write it missed, so that assembly
 * re-adds it (md's bitmap-based recovery): the array has a bitmap whose
 * bitmap_events is known and was stopped clean, not --force (@force); the
 * member's role is among @failed (the roles the set cannot use), it was in
 * sync, its events lie from the newest's bitmap_events to its events, and
 * its failed_mask names neither its own role nor any role outside @failed
 * (a member that ran apart from the array took writes the bitmap never
 * saw). Its index, or @n.
 */
unsigned int lraid_sb_readdable(const struct lraid_sb_info *sbs,
				unsigned int n, u32 failed, bool force);

#define LRAID_SB_WHY_SPLIT \
	"members at the newest event count record each other failed: parts of the array ran apart; assemble the members of one part by name"

/*
 * Create-time layout of one member: with info->level, nr_members and
 * chunk_sectors set, fill data_offset (LRAID_SB_DEF_DATA_OFFSET when 0),
 * bitmap_offset, bitmap_sectors and bitmap_region_sectors (default region
 * when 0; @bitmap false for none), dev_sectors = @dev_sectors and
 * data_size = the data area rounded down to whole chunks. Pass the
 * smallest member's size so all members agree. Returns 0, -EINVAL for a
 * bad parameter, -ENOSPC when no chunk fits or the bitmap does not fit in
 * front of the data area.
 */
int lraid_sb_plan(struct lraid_sb_info *info, u64 dev_sectors, bool bitmap);

/* Geometry of the array described by a valid @info. */
int lraid_sb_geom(const struct lraid_sb_info *info, struct lraid_geom *g);

/*
 * Where md keeps its superblock at the end of a device of @dev_sectors:
 * metadata 0.90 in the last 64 KiB-aligned 64 KiB but one, 1.0 at least
 * 8 KiB from the end, 4 KiB aligned (mdadm's and the kernel's offsets).
 * create erases them (lraid_zero_md_ends()); lraidctl's probe looks there.
 * Valid for @dev_sectors of at least LRAID_MD_END_MIN_SECTORS.
 */
#define LRAID_MD_END_MIN_SECTORS	256
static inline u64 lraid_md090_sector(u64 dev_sectors)
{
	return (dev_sectors & ~127ULL) - 128;
}

static inline u64 lraid_md10_sector(u64 dev_sectors)
{
	return (dev_sectors - 16) & ~7ULL;
}

#endif /* LRAID_SB_H */
