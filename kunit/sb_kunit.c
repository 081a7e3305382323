// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the lraid superblock codec (module/lraid_sb.c): round
 * trip, the on-disk byte layout, bit flips caught by the checksum, every
 * field corrupted with a valid checksum, member-set checks for assembly,
 * and create-time layout planning.
 *
 * The same file builds in userspace (tests/geom) against a small KUnit shim.
 */
#include <kunit/test.h>
#include <linux/module.h>
#ifdef __KERNEL__
#include <linux/crc32c.h>
#include <linux/slab.h>
#include <linux/string.h>
#endif

#include "lraid_sb.h"

#define SB_DEV_SECTORS	0x200000ULL	/* 1 GiB members */

static void sb_sample(struct lraid_sb_info *info, unsigned int level,
		      unsigned int n, unsigned int role)
{
	static const u8 uuid[LRAID_SB_UUID_LEN] = {
		0x6c, 0x72, 0x61, 0x69, 0x64, 0x2d, 0x74, 0x65,
		0x73, 0x74, 0x2d, 0x75, 0x75, 0x69, 0x64, 0x01,
	};

	memset(info, 0, sizeof(*info));
	memcpy(info->uuid, uuid, sizeof(uuid));
	strscpy(info->name, "test-array", sizeof(info->name));
	info->level = level;
	info->layout = LRAID_LAYOUT_LEFT_SYMMETRIC;
	info->nr_members = n;
	info->role = role;
	info->chunk_sectors = 128;
	info->ctime = 1700000000;
	info->utime = 1700000100;
	info->events = 42;
	info->state = LRAID_SB_STATE_CLEAN;
	lraid_sb_plan(info, SB_DEV_SECTORS, true);
}

static void *sb_block(struct kunit *test)
{
	void *b = kunit_kzalloc(test, LRAID_SB_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

static void sb_crc32c_vector(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ~crc32c(~0U, "123456789", 9), 0xe3069283U);
}

static void sb_round_trip(struct kunit *test)
{
	struct lraid_sb_info in, out;
	const char *why = NULL;
	u8 *b = sb_block(test), *b2 = sb_block(test);

	sb_sample(&in, 6, 5, 3);
	in.failed_mask = 0x4;
	in.recovery_offset = 4096;
	in.feature_compat = 0x80000000;	/* unknown compat: kept */
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.version, LRAID_SB_VERSION);
	KUNIT_EXPECT_EQ(test, memcmp(out.uuid, in.uuid, sizeof(in.uuid)), 0);
	KUNIT_EXPECT_STREQ(test, out.name, "test-array");
	KUNIT_EXPECT_EQ(test, out.ctime, in.ctime);
	KUNIT_EXPECT_EQ(test, out.utime, in.utime);
	KUNIT_EXPECT_EQ(test, out.events, in.events);
	KUNIT_EXPECT_EQ(test, out.level, 6U);
	KUNIT_EXPECT_EQ(test, out.layout, LRAID_LAYOUT_LEFT_SYMMETRIC);
	KUNIT_EXPECT_EQ(test, out.chunk_sectors, 128U);
	KUNIT_EXPECT_EQ(test, out.nr_members, 5U);
	KUNIT_EXPECT_EQ(test, out.role, 3U);
	KUNIT_EXPECT_EQ(test, out.state, LRAID_SB_STATE_CLEAN);
	KUNIT_EXPECT_EQ(test, out.failed_mask, 0x4U);
	KUNIT_EXPECT_EQ(test, out.data_offset, in.data_offset);
	KUNIT_EXPECT_EQ(test, out.data_size, in.data_size);
	KUNIT_EXPECT_EQ(test, out.dev_sectors, SB_DEV_SECTORS);
	KUNIT_EXPECT_EQ(test, out.recovery_offset, 4096ULL);
	KUNIT_EXPECT_EQ(test, out.bitmap_offset, in.bitmap_offset);
	KUNIT_EXPECT_EQ(test, out.bitmap_sectors, in.bitmap_sectors);
	KUNIT_EXPECT_EQ(test, out.bitmap_region_sectors,
			in.bitmap_region_sectors);
	KUNIT_EXPECT_EQ(test, out.feature_compat, 0x80000000U);
	KUNIT_EXPECT_EQ(test, out.resync_offset, 0ULL);
	KUNIT_EXPECT_FALSE(test, out.ro_only);

	/* encode(decode(x)) == x, byte for byte */
	lraid_sb_encode(&out, b2);
	KUNIT_EXPECT_EQ(test, memcmp(b, b2, LRAID_SB_SIZE), 0);

	/* the highest event count accepted (one more: sb_corrupt_fields) */
	in.events = LRAID_SB_EVENTS_MAX;
	lraid_sb_encode(&in, b);
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.events, LRAID_SB_EVENTS_MAX);
	in.events = 42;

	/* where a resync stopped: any chunk multiple up to the data size */
	in.state = 0;
	in.feature_compat = LRAID_SB_FEAT_COMPAT_RESYNC;
	in.resync_offset = in.data_size;
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.resync_offset, in.data_size);
	KUNIT_EXPECT_EQ(test, out.feature_compat, LRAID_SB_FEAT_COMPAT_RESYNC);
	in.resync_offset = 128;
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.resync_offset, 128ULL);
	/* an lraid that did not know the field wrote it zero: from the start */
	in.resync_offset = 0;
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.resync_offset, 0ULL);
	in.state = LRAID_SB_STATE_CLEAN;
	in.feature_compat = 0;

	/* bitmap events: any count up to events, with their bit */
	in.feature_compat = LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS;
	in.bitmap_events = in.events;
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.bitmap_events, in.events);
	KUNIT_EXPECT_EQ(test, b[0xc0], (u8)in.events);
	in.bitmap_events = 0;
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_EQ(test, out.bitmap_events, 0ULL);
	in.feature_compat = 0;

	/* the name may use all 31 characters */
	strscpy(in.name, "0123456789abcdefghijklmnopqrstu", sizeof(in.name));
	lraid_sb_encode(&in, b);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
	KUNIT_EXPECT_STREQ(test, out.name, in.name);
}

/* Raw bytes at the offsets Documentation/on-disk-format.rst gives. */
static void sb_byte_layout(struct kunit *test)
{
	struct lraid_sb_info in;
	u8 *b = sb_block(test);
	u32 crc;

	sb_sample(&in, 5, 4, 2);
	in.events = 0x0102030405060708ULL;
	lraid_sb_encode(&in, b);
	KUNIT_EXPECT_EQ(test, memcmp(b, "lraid-sb", 8), 0);
	KUNIT_EXPECT_EQ(test, b[0x08], 1);		/* version */
	KUNIT_EXPECT_EQ(test, memcmp(b + 0x18, in.uuid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b + 0x28, "test-array\0", 11), 0);
	KUNIT_EXPECT_EQ(test, b[0x58], 0x08);		/* events, LE */
	KUNIT_EXPECT_EQ(test, b[0x5f], 0x01);
	KUNIT_EXPECT_EQ(test, b[0x60], 5);		/* level */
	KUNIT_EXPECT_EQ(test, b[0x64], 2);		/* layout */
	KUNIT_EXPECT_EQ(test, b[0x68], 128);		/* chunk */
	KUNIT_EXPECT_EQ(test, b[0x6c], 4);		/* members */
	KUNIT_EXPECT_EQ(test, b[0x70], 2);		/* role */
	KUNIT_EXPECT_EQ(test, b[0x74], 1);		/* clean */
	KUNIT_EXPECT_EQ(test, b[0x80], 0x00);		/* data offset 2048 */
	KUNIT_EXPECT_EQ(test, b[0x81], 0x08);
	KUNIT_EXPECT_EQ(test, b[0xa0], 8);		/* bitmap offset */
	in.feature_compat = LRAID_SB_FEAT_COMPAT_RESYNC;
	in.resync_offset = 0x0a0b;
	lraid_sb_encode(&in, b);
	KUNIT_EXPECT_EQ(test, b[0x14], 1);		/* compat: resync */
	KUNIT_EXPECT_EQ(test, b[0xb8], 0x0b);		/* resync offset */
	KUNIT_EXPECT_EQ(test, b[0xb9], 0x0a);
	crc = b[0xffc] | b[0xffd] << 8 | b[0xffe] << 16 | (u32)b[0xfff] << 24;
	KUNIT_EXPECT_EQ(test, crc, lraid_sb_crc(b));
	/* crc32c over the block with the crc field zero */
	memset(b + 0xffc, 0, 4);
	KUNIT_EXPECT_EQ(test, ~crc32c(~0U, b, LRAID_SB_SIZE), crc);
}

/* Any single bit flip is caught (by the magic check or the checksum). */
static void sb_bit_flips(struct kunit *test)
{
	struct lraid_sb_info in, out;
	u8 *b = sb_block(test);
	unsigned int byte, bit, bad = 0;
	const char *why;
	int err;

	sb_sample(&in, 6, 6, 0);
	lraid_sb_encode(&in, b);
	for (byte = 0; byte < LRAID_SB_SIZE; byte++) {
		for (bit = 0; bit < 8; bit++) {
			/* every bit of the used part, one bit per other byte */
			if (byte >= 0xc0 && byte < 0xffc && bit != byte % 8)
				continue;
			b[byte] ^= 1 << bit;
			why = NULL;
			err = lraid_sb_decode(b, &out, &why);
			if (err != (byte < 8 ? -EINVAL : -EBADMSG) || !why)
				bad++;
			b[byte] ^= 1 << bit;
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(b, &out, &why), 0);
}

static void sb_foreign(struct kunit *test)
{
	struct lraid_sb_info out;
	u8 *b = sb_block(test);
	const char *why = NULL;
	unsigned int i;
	u32 x = 12345;

	KUNIT_EXPECT_EQ(test, lraid_sb_decode(b, &out, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "not an lraid superblock");
	memset(b, 0xff, LRAID_SB_SIZE);
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(b, &out, &why), -EINVAL);
	/* md v1.x magic a92b4efc */
	b[0] = 0xfc;
	b[1] = 0x4e;
	b[2] = 0x2b;
	b[3] = 0xa9;
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(b, &out, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "not an lraid superblock");
	/* garbage behind a valid magic: checksum */
	for (i = 0; i < LRAID_SB_SIZE; i++) {
		x = x * 1103515245 + 12345;
		b[i] = x >> 16;
	}
	memcpy(b, "lraid-sb", 8);
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(b, &out, &why), -EBADMSG);
	KUNIT_EXPECT_STREQ(test, why, "superblock checksum mismatch");
}

enum sb_field {
	F_VERSION_0, F_VERSION_2, F_INCOMPAT, F_LEVEL_0, F_LEVEL_4, F_LEVEL_7,
	F_LAYOUT, F_MEMBERS_2, F_MEMBERS_33, F_MEMBERS_HUGE, F_ROLE_N,
	F_ROLE_HUGE, F_CHUNK_0, F_CHUNK_4, F_CHUNK_24, F_CHUNK_2M,
	F_CHUNK_WRAP, F_EVENTS_MAX, F_EVENTS_NEAR,
	F_STATE, F_FAILED, F_RESERVED0, F_RESERVED_FIRST,
	F_RESERVED_LAST, F_NAME_SLASH, F_NAME_SPACE, F_NAME_NONUL,
	F_NAME_TAIL, F_DOFF_0, F_DOFF_4, F_DOFF_UNALIGNED, F_DOFF_HUGE,
	F_DSIZE_0, F_DSIZE_PARTIAL, F_DSIZE_BEYOND, F_DSIZE_WRAP, F_DEV_SMALL,
	F_RECOVERY, F_BM_OFF_0, F_BM_OFF_IN_DATA, F_BM_INTO_DATA,
	F_BM_SECTORS_WRAP, F_BM_REGION_0, F_BM_REGION_ODD,
	F_BM_REGION_SMALL, F_BM_TOO_SMALL, F_NO_BM_REGION, F_NO_BM_OFFSET,
	F_BM_END_WRAP, F_RESYNC_NO_BIT, F_RESYNC_BEYOND, F_RESYNC_PARTIAL,
	F_BMEV_NO_BIT, F_BMEV_PAST, F_BMEV_NO_BITMAP,
	F_NR
};

static const int sb_field_err[F_NR] = {
	[F_VERSION_0] = -EOPNOTSUPP,
	[F_VERSION_2] = -EOPNOTSUPP,
	[F_INCOMPAT] = -EOPNOTSUPP,
};

static void sb_corrupt(struct lraid_sb_disk *sb, enum sb_field f)
{
	switch (f) {
	case F_VERSION_0:
		sb->version = cpu_to_le32(0);
		break;
	case F_VERSION_2:
		sb->version = cpu_to_le32(2);
		break;
	case F_INCOMPAT:
		sb->feature_incompat = cpu_to_le32(1);
		break;
	case F_LEVEL_0:
		sb->level = cpu_to_le32(0);
		break;
	case F_LEVEL_4:
		sb->level = cpu_to_le32(4);
		break;
	case F_LEVEL_7:
		sb->level = cpu_to_le32(7);
		break;
	case F_LAYOUT:
		sb->layout = cpu_to_le32(0);
		break;
	case F_MEMBERS_2:
		sb->nr_members = cpu_to_le32(3);	/* RAID6 needs 4 */
		sb->role = cpu_to_le32(0);
		break;
	case F_MEMBERS_33:
		sb->nr_members = cpu_to_le32(33);
		break;
	case F_MEMBERS_HUGE:
		sb->nr_members = cpu_to_le32(0xffffffff);
		break;
	case F_ROLE_N:
		sb->role = sb->nr_members;
		break;
	case F_ROLE_HUGE:
		sb->role = cpu_to_le32(0x80000001);
		break;
	case F_CHUNK_0:
		sb->chunk_sectors = cpu_to_le32(0);
		break;
	case F_CHUNK_4:
		sb->chunk_sectors = cpu_to_le32(4);
		break;
	case F_CHUNK_24:
		sb->chunk_sectors = cpu_to_le32(24);
		break;
	case F_CHUNK_2M:
		sb->chunk_sectors = cpu_to_le32(4096);
		break;
	case F_CHUNK_WRAP:
		/* << 9 would wrap to 64 KiB */
		sb->chunk_sectors = cpu_to_le32((1U << 23) + 128);
		break;
	case F_EVENTS_MAX:
		sb->events = cpu_to_le64(~0ULL);
		break;
	case F_EVENTS_NEAR:
		/* 2^32 - 1 passes from wrapping: refused */
		sb->events = cpu_to_le64(LRAID_SB_EVENTS_MAX + 1);
		break;
	case F_STATE:
		sb->state = cpu_to_le32(0x3);
		break;
	case F_FAILED:
		sb->failed_mask = cpu_to_le32(1U << 6);	/* 6 members */
		break;
	case F_RESERVED0:
		sb->reserved0 = cpu_to_le32(1);
		break;
	case F_RESERVED_FIRST:
		sb->reserved[0] = 1;
		break;
	case F_RESERVED_LAST:
		sb->reserved[sizeof(sb->reserved) - 1] = 0x80;
		break;
	case F_NAME_SLASH:
		sb->name[2] = '/';
		break;
	case F_NAME_SPACE:
		sb->name[2] = ' ';
		break;
	case F_NAME_NONUL:
		memset(sb->name, 'x', sizeof(sb->name));
		break;
	case F_NAME_TAIL:
		sb->name[20] = 'x';	/* after the terminating NUL */
		break;
	case F_DOFF_0:
		sb->data_offset = cpu_to_le64(0);
		break;
	case F_DOFF_4:
		sb->data_offset = cpu_to_le64(4);
		break;
	case F_DOFF_UNALIGNED:
		sb->data_offset = cpu_to_le64(2049);
		break;
	case F_DOFF_HUGE:
		sb->data_offset = cpu_to_le64(~0ULL & ~7ULL);
		break;
	case F_DSIZE_0:
		sb->data_size = cpu_to_le64(0);
		break;
	case F_DSIZE_PARTIAL:
		sb->data_size = cpu_to_le64(le64_to_cpu(sb->data_size) - 8);
		break;
	case F_DSIZE_BEYOND:
		sb->data_size = cpu_to_le64(le64_to_cpu(sb->data_size) + 128);
		break;
	case F_DSIZE_WRAP:
		sb->data_size = cpu_to_le64(~0ULL << 7);
		break;
	case F_DEV_SMALL:
		sb->dev_sectors = cpu_to_le64(le64_to_cpu(sb->dev_sectors) -
					      (128 + 1024));
		break;
	case F_RECOVERY:
		sb->recovery_offset = cpu_to_le64(le64_to_cpu(sb->data_size) +
						  1);
		break;
	case F_BM_OFF_0:
		sb->bitmap_offset = cpu_to_le64(0);
		break;
	case F_BM_OFF_IN_DATA:
		sb->bitmap_offset = cpu_to_le64(4096);
		break;
	case F_BM_INTO_DATA:
		sb->bitmap_sectors = cpu_to_le64(2041);
		break;
	case F_BM_SECTORS_WRAP:
		sb->bitmap_sectors = cpu_to_le64(~0ULL - 4);
		break;
	case F_BM_REGION_0:
		sb->bitmap_region_sectors = cpu_to_le64(0);
		break;
	case F_BM_REGION_ODD:
		sb->bitmap_region_sectors = cpu_to_le64(3 << 16);
		break;
	case F_BM_REGION_SMALL:
		sb->bitmap_region_sectors = cpu_to_le64(64);	/* < chunk */
		break;
	case F_BM_TOO_SMALL:
		/* 1 GiB in 64 KiB regions: 16384 bits need 4 sectors */
		sb->bitmap_region_sectors = cpu_to_le64(128);
		sb->bitmap_sectors = cpu_to_le64(3);
		break;
	case F_NO_BM_REGION:
		sb->bitmap_offset = cpu_to_le64(0);
		sb->bitmap_sectors = cpu_to_le64(0);
		break;
	case F_NO_BM_OFFSET:
		sb->bitmap_offset = cpu_to_le64(4096);	/* beyond data_offset */
		sb->bitmap_sectors = cpu_to_le64(0);
		sb->bitmap_region_sectors = cpu_to_le64(0);
		break;
	case F_BM_END_WRAP:
		/* each term below data_offset, their sum wraps to 0 */
		sb->dev_sectors = cpu_to_le64(~0ULL);
		sb->data_offset = cpu_to_le64((1ULL << 63) + 4096);
		sb->bitmap_offset = cpu_to_le64(1ULL << 63);
		sb->bitmap_sectors = cpu_to_le64(1ULL << 63);
		break;
	case F_RESYNC_NO_BIT:
		sb->resync_offset = cpu_to_le64(128);
		break;
	case F_RESYNC_BEYOND:
		sb->feature_compat = cpu_to_le32(LRAID_SB_FEAT_COMPAT_RESYNC);
		sb->resync_offset = cpu_to_le64(le64_to_cpu(sb->data_size) +
						128);
		break;
	case F_RESYNC_PARTIAL:
		sb->feature_compat = cpu_to_le32(LRAID_SB_FEAT_COMPAT_RESYNC);
		sb->resync_offset = cpu_to_le64(64);	/* half a chunk */
		break;
	case F_BMEV_NO_BIT:
		sb->bitmap_events = cpu_to_le64(1);
		break;
	case F_BMEV_PAST:
		sb->feature_compat =
			cpu_to_le32(LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS);
		sb->bitmap_events = cpu_to_le64(le64_to_cpu(sb->events) + 1);
		break;
	case F_BMEV_NO_BITMAP:
		sb->feature_compat =
			cpu_to_le32(LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS);
		sb->bitmap_sectors = 0;
		sb->bitmap_region_sectors = 0;
		break;
	case F_NR:
		break;
	}
}

/* Each field made invalid, checksum recomputed: a clear error each time. */
static void sb_corrupt_fields(struct kunit *test)
{
	struct lraid_sb_disk *sb = sb_block(test);
	struct lraid_sb_info in, out;
	const char *why;
	int f, err, want;

	sb_sample(&in, 6, 6, 5);
	for (f = 0; f < F_NR; f++) {
		lraid_sb_encode(&in, sb);
		sb_corrupt(sb, f);
		sb->crc = cpu_to_le32(lraid_sb_crc(sb));
		why = NULL;
		err = lraid_sb_decode(sb, &out, &why);
		want = sb_field_err[f] ? sb_field_err[f] : -EINVAL;
		KUNIT_EXPECT_EQ_MSG(test, err, want, "field case %d", f);
		KUNIT_EXPECT_TRUE_MSG(test, why, "field case %d", f);
	}

	/* bitmap-less superblocks: no size, no region, offset 0 or valid */
	lraid_sb_encode(&in, sb);
	sb->bitmap_offset = 0;
	sb->bitmap_sectors = 0;
	sb->bitmap_region_sectors = 0;
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), 0);
	sb->bitmap_offset = cpu_to_le64(LRAID_SB_DEF_BITMAP_OFFSET);
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), 0);

	/* unknown ro_compat: readable, read-only; unknown compat: ignored */
	lraid_sb_encode(&in, sb);
	sb->feature_ro_compat = cpu_to_le32(0x10);
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), 0);
	KUNIT_EXPECT_TRUE(test, out.ro_only);
	lraid_sb_encode(&in, sb);
	sb->feature_compat = cpu_to_le32(0x10);
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), 0);
	KUNIT_EXPECT_FALSE(test, out.ro_only);
	KUNIT_EXPECT_EQ(test, out.feature_compat, 0x10U);

	/* an unknown compat or ro_compat field may live in the reserved area */
	sb->reserved[0] = 1;
	sb->reserved0 = cpu_to_le32(2);
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), 0);
	sb->feature_compat = 0;
	sb->feature_ro_compat = cpu_to_le32(0x10);
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), 0);
	KUNIT_EXPECT_TRUE(test, out.ro_only);
	sb->feature_ro_compat = 0;
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(sb, &out, &why), -EINVAL);

	/* validate() refuses the same things before an encode */
	in.level = 4;
	KUNIT_EXPECT_EQ(test, lraid_sb_validate(&in, &why), -EINVAL);
	in.level = 6;
	in.name[LRAID_SB_NAME_LEN] = 'x';
	KUNIT_EXPECT_EQ(test, lraid_sb_validate(&in, &why), -EINVAL);
}

/* One array of @n members, RAID@level, all fresh. */
static void sb_set(struct lraid_sb_info *sbs, unsigned int level,
		   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sb_sample(&sbs[i], level, n, i);
}

static void sb_check_set(struct kunit *test)
{
	struct lraid_sb_info *sbs;
	const char *why;
	unsigned int fresh, i;

	sbs = kunit_kzalloc(test, 8 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);

	/* complete, in role order and reversed */
	sb_set(sbs, 5, 4);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xfU);
	sbs[0].role = 3;
	sbs[3].role = 0;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xfU);

	/* two arrays mixed */
	sb_set(sbs, 5, 4);
	sbs[2].uuid[7] ^= 1;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, why,
			   "members belong to different arrays (UUID)");

	/* disagreement on geometry, size, name */
	sb_set(sbs, 5, 4);
	sbs[1].chunk_sectors = 256;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);
	sb_set(sbs, 5, 4);
	sbs[3].data_size -= 128;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);
	sb_set(sbs, 5, 4);
	sbs[0].name[0] = 'T';
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);
	sb_set(sbs, 5, 4);
	sbs[0].level = 6;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);

	/* duplicate roles */
	sb_set(sbs, 5, 4);
	sbs[2].role = 1;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "two members claim the same role");

	/* more members than the array has */
	sb_set(sbs, 5, 4);
	sbs[4] = sbs[0];
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 5, &fresh, &why),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 0, &fresh, &why),
			-EINVAL);

	/* missing members: RAID5 survives one, RAID6 two */
	sb_set(sbs, 5, 4);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs + 1, 3, &fresh, &why),
			0);
	KUNIT_EXPECT_EQ(test, fresh, 0x7U);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs + 2, 2, &fresh, &why),
			-ENODEV);
	sb_set(sbs, 6, 5);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs + 2, 3, &fresh, &why),
			0);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs + 3, 2, &fresh, &why),
			-ENODEV);

	/*
	 * Stale event counts: the newest wins, whatever its position. One
	 * behind is fresh (a superblock pass cut short between members),
	 * two behind missed writes.
	 */
	sb_set(sbs, 5, 4);
	sbs[1].events = 41;
	KUNIT_EXPECT_EQ(test, lraid_sb_newest(sbs, 4), 0U);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xfU);
	sbs[1].events = 40;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xdU);
	sbs[0].events = 38;
	sbs[2].events = 38;
	sbs[3].events = 38;
	KUNIT_EXPECT_EQ(test, lraid_sb_newest(sbs, 4), 1U);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-ENODEV);
	sbs[2].events = 39;
	sbs[3].events = 40;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xeU);

	/* a member rebuilt only partly is never fresh */
	sb_set(sbs, 5, 4);
	sbs[2].recovery_offset = 1024;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xbU);
	sbs[3].recovery_offset = 0;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, lraid_sb_force(sbs, 4, &fresh), 0U);
	KUNIT_EXPECT_EQ(test, fresh, 0x3U);

	/* the newest superblock's failed set overrides equal events */
	sb_set(sbs, 6, 6);
	sbs[0].failed_mask = 0x6;	/* roles 1 and 2, at event 43 */
	sbs[3].failed_mask = 0x6;
	sbs[4].failed_mask = 0x6;
	sbs[5].failed_mask = 0x6;
	sbs[0].events = 43;
	sbs[3].events = 43;
	sbs[4].events = 43;
	sbs[5].events = 43;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 6, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0x39U);
	/* as a start undone writes it: roles 1 and 2 record themselves */
	sb_set(sbs, 6, 6);
	for (i = 0; i < 6; i++)
		sbs[i].failed_mask = 0x6;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 6, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0x39U);
	for (i = 0; i < 6; i++)
		sbs[i].failed_mask = 0x7;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 6, &fresh, &why),
			-ENODEV);

	/* members disagree on where the data starts */
	sb_set(sbs, 5, 4);
	sbs[2].data_offset += 8;
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-EINVAL);
}

/*
 * A rebuild of role 2 of a RAID5 x4 that a clean stop interrupted: the
 * stop wrote the others with role 2 failed and the new member with role 2
 * failed too, recovery_offset 4096, at the same count. It goes on at
 * assembly; not once the others moved on without it, nor with --force,
 * nor after an unclean stop, nor for a member that does not record its
 * own role failed.
 */
static void sb_resumable(struct kunit *test)
{
	struct lraid_sb_info *sbs;
	struct lraid_sb_roles r;
	unsigned int fresh, i;
	const char *why;

	sbs = kunit_kzalloc(test, 4 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);
	sb_set(sbs, 5, 4);
	for (i = 0; i < 4; i++)
		sbs[i].failed_mask = 0x4;
	sbs[2].recovery_offset = 4096;
	KUNIT_ASSERT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	KUNIT_EXPECT_EQ(test, fresh, 0xbU);
	lraid_sb_roles(sbs, 4, fresh, &r);
	KUNIT_EXPECT_EQ(test, r.failed, 0x4U);
	KUNIT_EXPECT_NE(test, lraid_sb_newest(sbs, 4), 2U);
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 2U);
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, true), 4U);
	/* offered alone with two others, first: the same member */
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs + 1, 3, r.failed, false),
			1U);

	/* the others ran on: one pass (the start) and the stop's */
	for (i = 0; i < 4; i++)
		if (i != 2)
			sbs[i].events = 44;
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 4U);
	sbs[2].events = 44;

	/* not stopped clean */
	sbs[0].state = 0;
	sbs[1].state = 0;
	sbs[3].state = 0;
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 4U);
	sb_set(sbs, 5, 4);
	for (i = 0; i < 4; i++)
		sbs[i].failed_mask = 0x4;
	sbs[2].recovery_offset = 4096;

	/* in sync, or not recording its own role failed */
	sbs[2].recovery_offset = LRAID_SB_IN_SYNC;
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 4U);
	sbs[2].recovery_offset = 4096;
	sbs[2].failed_mask = 0;
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 4U);
	sbs[2].failed_mask = 0x4;
	/* the set does not record the role failed */
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, 0, false), 4U);
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 2U);
}

/*
 * RAID5 x4 with a bitmap, bits last cleared at event 40: role 1 failed at
 * 42 (the others then wrote 43 and a clean stop 44, recording it failed).
 * Assembly re-adds it: not without a bitmap or a known bitmap_events,
 * nor after an unclean stop, with --force, once it left before 40, when
 * it was not in sync, nor when it records a role failed that the set uses
 * (it ran apart).
 */
static void sb_readdable(struct kunit *test)
{
	struct lraid_sb_info *sbs;
	unsigned int fresh, i;
	struct lraid_sb_roles r;
	const char *why;

	sbs = kunit_kzalloc(test, 4 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);
	sb_set(sbs, 5, 4);
	for (i = 0; i < 4; i++) {
		sbs[i].feature_compat |= LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS;
		sbs[i].bitmap_events = 40;
		if (i != 1) {
			sbs[i].events = 44;
			sbs[i].failed_mask = 0x2;
		}
	}
	KUNIT_ASSERT_NE(test, sbs[0].bitmap_sectors, 0ULL);
	KUNIT_ASSERT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why), 0);
	lraid_sb_roles(sbs, 4, fresh, &r);
	KUNIT_EXPECT_EQ(test, r.unusable, 0x2U);
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 1U);
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, true), 4U);
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, 0, false), 4U);
	KUNIT_EXPECT_EQ(test, lraid_sb_resumable(sbs, 4, r.failed, false), 4U);

	sbs[1].events = 39;		/* left before the last clear */
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 4U);
	sbs[1].events = 40;
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 1U);
	sbs[1].recovery_offset = 1024;	/* never in sync */
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 4U);
	sbs[1].recovery_offset = LRAID_SB_IN_SYNC;
	sbs[1].failed_mask = 0x1;	/* ran apart: role 0 works here */
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 4U);
	sbs[1].failed_mask = 0;
	for (i = 0; i < 4; i++)
		sbs[i].state = 0;	/* not stopped clean */
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 4U);
	for (i = 0; i < 4; i++) {
		sbs[i].state = LRAID_SB_STATE_CLEAN;
		sbs[i].bitmap_events = 0;	/* not known */
	}
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 4U);
	for (i = 0; i < 4; i++) {
		sbs[i].bitmap_events = 40;
		sbs[i].bitmap_sectors = 0;	/* no bitmap */
	}
	KUNIT_EXPECT_EQ(test, lraid_sb_readdable(sbs, 4, r.unusable, false), 4U);
}

/*
 * Check the set @sbs[0..n-1] (lraid_sb_check_set() returns @ret) and the
 * role masks lraid_sb_roles() makes of it; unusable must be the union.
 */
static void sb_expect_roles(struct kunit *test,
			    const struct lraid_sb_info *sbs, unsigned int n,
			    int ret, u32 fresh, u32 stale, u32 failed,
			    u32 missing)
{
	struct lraid_sb_roles r;
	unsigned int mask;
	const char *why;

	KUNIT_ASSERT_EQ(test, lraid_sb_check_set(sbs, n, &mask, &why), ret);
	lraid_sb_roles(sbs, n, mask, &r);
	KUNIT_EXPECT_EQ(test, r.fresh, fresh);
	KUNIT_EXPECT_EQ(test, r.stale, stale);
	KUNIT_EXPECT_EQ(test, r.failed, failed);
	KUNIT_EXPECT_EQ(test, r.missing, missing);
	KUNIT_EXPECT_EQ(test, r.unusable, stale | failed | missing);
	KUNIT_EXPECT_EQ(test, r.tolerate, sbs[0].level == 6 ? 2U : 1U);
}

/*
 * --force: a RAID5 x4 lost role 0, then role 1 (a write error past what
 * parity covers); the survivors record both failed. The freshest of the
 * two (role 1) is taken back, role 0 stays failed.
 */
static void sb_force(struct kunit *test)
{
	struct lraid_sb_roles r;
	struct lraid_sb_info *sbs;
	unsigned int fresh, i;
	const char *why;

	sbs = kunit_kzalloc(test, 4 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);
	sb_set(sbs, 5, 4);
	sbs[0].events = 42;
	sbs[1].events = 43;
	sbs[1].failed_mask = 0x1;
	for (i = 2; i < 4; i++) {
		sbs[i].events = 44;
		sbs[i].failed_mask = 0x3;
	}
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 4, &fresh, &why),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, fresh, 0xcU);
	KUNIT_EXPECT_EQ(test, lraid_sb_force(sbs, 4, &fresh), 1U);
	KUNIT_EXPECT_EQ(test, fresh, 0xeU);
	lraid_sb_roles(sbs, 4, fresh, &r);
	KUNIT_EXPECT_EQ(test, r.fresh, 0xeU);
	KUNIT_EXPECT_EQ(test, r.failed, 0x1U);
	KUNIT_EXPECT_EQ(test, r.stale, 0U);
	KUNIT_EXPECT_EQ(test, r.unusable, 0x1U);

	/* nothing to add when enough are fresh; too few offered: no start */
	fresh = 0xeU;
	KUNIT_EXPECT_EQ(test, lraid_sb_force(sbs, 4, &fresh), 0U);
	KUNIT_EXPECT_EQ(test, fresh, 0xeU);
	KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs + 2, 2, &fresh, &why),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, lraid_sb_force(sbs + 2, 2, &fresh), 0U);
	KUNIT_EXPECT_EQ(test, fresh, 0x3U);
}

/*
 * --force on a tie: a RAID6 x5 failed role 3; the pass recording it
 * reached roles 0 and 2 only (role 1 is not offered, role 4 kept the
 * previous superblock), and a later pass moved roles 0 and 2 on again.
 * Roles 3 and 4 are both two events behind; role 3 missed writes from
 * the moment it failed, role 4 none. Role 4 must be taken, whichever of
 * the two is offered first.
 */
static void sb_force_tie(struct kunit *test)
{
	static const unsigned int roles[] = { 0, 3, 2, 4 };
	struct lraid_sb_info *sbs;
	unsigned int fresh, i, pass;
	const char *why;

	sbs = kunit_kzalloc(test, 4 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++) {
			unsigned int role = roles[pass ? 3 - i : i];

			sb_sample(&sbs[i], 6, 5, role);
			sbs[i].events = role == 3 || role == 4 ? 44 : 46;
			sbs[i].failed_mask = role == 3 || role == 4 ? 0 : 0x8;
		}
		KUNIT_EXPECT_EQ(test,
				lraid_sb_check_set(sbs, 4, &fresh, &why),
				-ENODEV);
		KUNIT_EXPECT_EQ(test, lraid_sb_force(sbs, 4, &fresh), 1U);
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_EQ(test, !!(fresh & (1U << i)),
					sbs[i].role != 3);
	}
}

/*
 * Members at the newest event count that disagree on the failed set.
 * Whatever order they are offered in, the same superblock is the newest
 * and the same members are fresh.
 */
static void sb_newest_disagree(struct kunit *test)
{
	static const unsigned int order[2][4] = { { 0, 1, 2, 3 },
						  { 3, 2, 1, 0 } };
	struct lraid_sb_info *sbs;
	unsigned int fresh, i, o, x, y, newest;
	const char *why;
	u32 mask;

	sbs = kunit_kzalloc(test, 4 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);
	for (o = 0; o < 2; o++) {
		/*
		 * RAID6 x4 ran as two halves apart, each started degraded
		 * without the other: roles 0 and 1 record 2 and 3 failed,
		 * roles 2 and 3 record 0 and 1, all at event 44.
		 */
		for (i = 0; i < 4; i++) {
			unsigned int role = order[o][i];

			sb_sample(&sbs[i], 6, 4, role);
			sbs[i].events = 44;
			sbs[i].failed_mask = role < 2 ? 0xc : 0x3;
		}
		KUNIT_EXPECT_EQ(test,
				lraid_sb_check_set(sbs, 4, &fresh, &why),
				-EINVAL);
		KUNIT_EXPECT_STREQ(test, why, LRAID_SB_WHY_SPLIT);
		KUNIT_EXPECT_STREQ(test, why,
				   "members at the newest event count record each other failed: parts of the array ran apart; assemble the members of one part by name");
		KUNIT_ASSERT_TRUE(test, lraid_sb_split(sbs, 4, &x, &y));
		KUNIT_EXPECT_NE(test, sbs[x].role < 2, sbs[y].role < 2);
		/* nothing fresh: assembly stops here, --force or not */
		KUNIT_EXPECT_EQ(test, fresh, 0U);
		/* one half alone is consistent and runs degraded */
		mask = 0;
		for (i = 0; i < 4; i++)
			if (sbs[i].role < 2)
				sbs[mask++] = sbs[i];
		KUNIT_EXPECT_FALSE(test, lraid_sb_split(sbs, 2, &x, &y));
		KUNIT_EXPECT_EQ(test,
				lraid_sb_check_set(sbs, 2, &fresh, &why), 0);
		KUNIT_EXPECT_EQ(test, fresh, 0x3U);

		/*
		 * RAID5 x4: the pass recording role 3 failed reached role 0
		 * only; roles 1-3 were then started without role 0 (recording
		 * it failed) and stopped by a crash at the same count. Role 0
		 * and role 3 record each other failed, but role 0 is left
		 * behind (roles 1 and 2, which it records working, record it
		 * failed): it missed their writes, and what it records is
		 * older. Roles 1-3 run, whatever the order.
		 */
		for (i = 0; i < 4; i++) {
			unsigned int role = order[o][i];

			sb_sample(&sbs[i], 5, 4, role);
			sbs[i].events = 44;
			sbs[i].failed_mask = role ? 0x1 : 0x8;
		}
		KUNIT_EXPECT_FALSE(test, lraid_sb_split(sbs, 4, &x, &y));
		KUNIT_EXPECT_EQ(test, lraid_sb_failed(sbs, 4), 0x1U);
		KUNIT_EXPECT_EQ(test, sbs[lraid_sb_newest(sbs, 4)].role, 1U);
		sb_expect_roles(test, sbs, 4, 0, 0xe, 0, 0x1, 0);
		/* without role 3: one role too few, role 0 still not used */
		sb_expect_roles(test, sbs + o, 3, -ENODEV, 0x6, 0, 0x1, 0x8);

		/*
		 * RAID6 x4, role 0 gone: two passes cut after role 1 (a stop,
		 * then a start) put role 1 two counts ahead of roles 2 and 3
		 * without a write; roles 2 and 3 then ran without role 1,
		 * recording it failed, and wrote. Role 1 is above them but
		 * left behind: they are the array, whatever the order.
		 */
		for (i = 0; i < 3; i++) {
			unsigned int role = order[o][i + o] + 1;

			sb_sample(&sbs[i], 6, 4, role);
			sbs[i].events = role == 1 ? 46 : 45;
			sbs[i].failed_mask = role == 1 ? 0x1 : 0x3;
		}
		newest = lraid_sb_newest(sbs, 3);
		KUNIT_EXPECT_EQ(test, sbs[newest].role, 2U);
		KUNIT_EXPECT_EQ(test, lraid_sb_failed(sbs, 3), 0x3U);
		sb_expect_roles(test, sbs, 3, 0, 0xc, 0, 0x3, 0);

		/*
		 * Each left behind by another (no history writes that):
		 * they all speak, and each is recorded failed by one.
		 */
		for (i = 0; i < 3; i++) {
			unsigned int role = order[o][i + o];

			sb_sample(&sbs[i], 5, 3, role);
			sbs[i].events = 44;
			sbs[i].failed_mask = 1U << ((role + 2) % 3);
		}
		KUNIT_EXPECT_FALSE(test, lraid_sb_split(sbs, 3, &x, &y));
		KUNIT_EXPECT_EQ(test, lraid_sb_failed(sbs, 3), 0x7U);
		KUNIT_EXPECT_EQ(test, lraid_sb_check_set(sbs, 3, &fresh, &why),
				-ENODEV);
		KUNIT_EXPECT_EQ(test, fresh, 0U);

		/*
		 * A start undone half way: the start's pass recorded the
		 * missing role 3 failed, the undo (same count) wrote role 0
		 * back without it. The newest is the one with more recorded.
		 */
		for (i = 0; i < 3; i++) {
			unsigned int role = order[o][i + o];

			sb_sample(&sbs[i], 5, 4, role);
			sbs[i].events = 44;
			sbs[i].failed_mask = role ? 0x8 : 0;
		}
		newest = lraid_sb_newest(sbs, 3);
		KUNIT_EXPECT_EQ(test, sbs[newest].role, 1U);
		KUNIT_EXPECT_EQ(test, sbs[newest].failed_mask, 0x8U);
		sb_expect_roles(test, sbs, 3, 0, 0x7, 0, 0x8, 0);
	}
}

/* The role sets degraded assembly acts on. */
static void sb_roles(struct kunit *test)
{
	struct lraid_sb_info *sbs;
	unsigned int i;

	sbs = kunit_kzalloc(test, 8 * sizeof(*sbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbs);

	/* complete and healthy */
	sb_set(sbs, 5, 4);
	sb_expect_roles(test, sbs, 4, 0, 0xf, 0, 0, 0);

	/* RAID5, role 2 missing (dead disk), offered out of order */
	sb_set(sbs, 5, 4);
	sbs[2] = sbs[3];
	sbs[0].role = 3;
	sbs[2].role = 0;
	sb_expect_roles(test, sbs, 3, 0, 0xb, 0, 0, 0x4);

	/*
	 * RAID6 of 5: role 1 was failed at event 42 (its own superblock
	 * still says 41 and nothing failed), role 4 is missing.
	 */
	sb_set(sbs, 6, 5);
	for (i = 0; i < 4; i++) {
		sbs[i].events = i == 1 ? 41 : 42;
		sbs[i].failed_mask = i == 1 ? 0 : 0x2;
	}
	sb_expect_roles(test, sbs, 4, 0, 0xd, 0, 0x2, 0x10);

	/*
	 * A member more than one event behind without a recorded failure is
	 * stale ("non-fresh"); one behind is fresh.
	 */
	sb_set(sbs, 6, 5);
	sbs[3].events = 41;
	sb_expect_roles(test, sbs, 5, 0, 0x1f, 0, 0, 0);
	sbs[3].events = 40;
	sb_expect_roles(test, sbs, 5, 0, 0x17, 0x8, 0, 0);

	/* one too many: stale + missing > RAID6's two, roles still sorted */
	sb_expect_roles(test, sbs + 1, 4, 0, 0x16, 0x8, 0, 0x1);
	sbs[2].events = 40;
	sb_expect_roles(test, sbs + 1, 4, -ENODEV, 0x12, 0xc, 0, 0x1);
}

/*
 * A spare's superblock: role LRAID_SB_ROLE_SPARE decodes, but only with
 * recovery_offset 0 (a spare holds nothing); lraid_sb_spare_mismatch()
 * takes a spare of the array at any event count and names what differs
 * for any other.
 */
static void sb_spare(struct kunit *test)
{
	struct lraid_sb_info ref, sp, out;
	void *block = sb_block(test);
	const char *why = NULL;
	unsigned int i;

	sb_sample(&ref, 6, 5, 2);
	sb_sample(&sp, 6, 5, LRAID_SB_ROLE_SPARE);
	sp.recovery_offset = 0;
	sp.events = 3;
	lraid_sb_encode(&sp, block);
	KUNIT_ASSERT_EQ(test, lraid_sb_decode(block, &out, &why), 0);
	KUNIT_EXPECT_TRUE(test, lraid_sb_is_spare(&out));
	KUNIT_EXPECT_FALSE(test, lraid_sb_is_spare(&ref));
	KUNIT_EXPECT_NULL(test, lraid_sb_spare_mismatch(&out, &ref));

	sp.recovery_offset = LRAID_SB_IN_SYNC;
	lraid_sb_encode(&sp, block);
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(block, &out, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "spare with a recovery offset");
	sp.recovery_offset = 0;
	/* one short of the spare's value is a role out of range */
	sp.role = LRAID_SB_ROLE_SPARE - 1;
	lraid_sb_encode(&sp, block);
	KUNIT_EXPECT_EQ(test, lraid_sb_decode(block, &out, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "member role out of range");
	sp.role = LRAID_SB_ROLE_SPARE;

	for (i = 0; i < 7; i++) {
		static const char *const whys[] = {
			"it is a spare of another array (UUID)",
			"it disagrees with the members on the array name",
			"it disagrees with the members on the geometry",
			"it disagrees with the members on the geometry",
			"it disagrees with the members on the data or bitmap area",
			"it disagrees with the members on the data or bitmap area",
			"it disagrees with the members on incompatible features",
		};

		out = sp;
		switch (i) {
		case 0:
			out.uuid[0] ^= 1;
			break;
		case 1:
			out.name[0] = 'X';
			break;
		case 2:
			out.nr_members = 6;
			break;
		case 3:
			out.chunk_sectors = 256;
			break;
		case 4:
			out.data_size -= 128;
			break;
		case 5:
			out.bitmap_region_sectors <<= 1;
			break;
		default:
			out.feature_incompat = 1;
			break;
		}
		KUNIT_EXPECT_STREQ(test, lraid_sb_spare_mismatch(&out, &ref),
				   whys[i]);
	}
}

static void sb_plan(struct kunit *test)
{
	struct lraid_sb_info info;
	struct lraid_geom g;
	const char *why;

	sb_sample(&info, 5, 4, 0);
	KUNIT_EXPECT_EQ(test, info.data_offset, 2048ULL);
	KUNIT_EXPECT_EQ(test, info.data_size, SB_DEV_SECTORS - 2048);
	KUNIT_EXPECT_EQ(test, info.dev_sectors, SB_DEV_SECTORS);
	KUNIT_EXPECT_EQ(test, info.recovery_offset, LRAID_SB_IN_SYNC);
	KUNIT_EXPECT_EQ(test, info.bitmap_offset, 8ULL);
	KUNIT_EXPECT_EQ(test, info.bitmap_sectors, 2040ULL);
	KUNIT_EXPECT_EQ(test, info.bitmap_region_sectors, 131072ULL);
	KUNIT_EXPECT_EQ(test, lraid_sb_validate(&info, &why), 0);
	KUNIT_ASSERT_EQ(test, lraid_sb_geom(&info, &g), 0);
	KUNIT_EXPECT_EQ(test, g.array_sectors, 3 * (SB_DEV_SECTORS - 2048));

	/* rounded down to whole chunks */
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, 2048 + 128 * 5 + 100, true),
			0);
	KUNIT_EXPECT_EQ(test, info.data_size, 640ULL);
	KUNIT_EXPECT_EQ(test, lraid_sb_validate(&info, &why), 0);

	/* too small */
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, 2048 + 127, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, 1000, true), -ENOSPC);

	/* 512 PiB members: the region grows until the bitmap fits */
	sb_sample(&info, 6, 8, 0);
	info.bitmap_region_sectors = 0;
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, 1ULL << 50, true), 0);
	KUNIT_EXPECT_GT(test, info.bitmap_region_sectors, 131072ULL);
	KUNIT_EXPECT_EQ(test, lraid_sb_validate(&info, &why), 0);

	/* explicit region, explicit data offset, no bitmap */
	sb_sample(&info, 5, 3, 0);
	info.bitmap_region_sectors = 1 << 12;
	info.data_offset = 4096;
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, true), 0);
	KUNIT_EXPECT_EQ(test, info.bitmap_region_sectors, 4096ULL);
	KUNIT_EXPECT_EQ(test, info.bitmap_sectors, 4088ULL);
	KUNIT_EXPECT_EQ(test, info.data_size, SB_DEV_SECTORS - 4096);
	info.bitmap_region_sectors = 3 << 12;
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, false), 0);
	KUNIT_EXPECT_EQ(test, info.bitmap_sectors, 0ULL);
	KUNIT_EXPECT_EQ(test, info.bitmap_region_sectors, 0ULL);
	KUNIT_EXPECT_EQ(test, lraid_sb_validate(&info, &why), 0);

	/* bad parameters */
	info.data_offset = 2049;
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, true),
			-EINVAL);
	sb_sample(&info, 5, 3, 0);
	info.level = 1;
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, true),
			-EINVAL);
	sb_sample(&info, 6, 3, 0);
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, true),
			-EINVAL);
	sb_sample(&info, 5, 3, 0);
	info.chunk_sectors = 96;
	KUNIT_EXPECT_EQ(test, lraid_sb_plan(&info, SB_DEV_SECTORS, true),
			-EINVAL);
}

static struct kunit_case lraid_sb_cases[] = {
	KUNIT_CASE(sb_crc32c_vector),
	KUNIT_CASE(sb_round_trip),
	KUNIT_CASE(sb_byte_layout),
	KUNIT_CASE(sb_bit_flips),
	KUNIT_CASE(sb_foreign),
	KUNIT_CASE(sb_corrupt_fields),
	KUNIT_CASE(sb_check_set),
	KUNIT_CASE(sb_roles),
	KUNIT_CASE(sb_force),
	KUNIT_CASE(sb_force_tie),
	KUNIT_CASE(sb_resumable),
	KUNIT_CASE(sb_readdable),
	KUNIT_CASE(sb_newest_disagree),
	KUNIT_CASE(sb_spare),
	KUNIT_CASE(sb_plan),
	{}
};

static struct kunit_suite lraid_sb_suite = {
	.name = "lraid_sb",
	.test_cases = lraid_sb_cases,
};

kunit_test_suite(lraid_sb_suite);

MODULE_DESCRIPTION("KUnit tests for the lraid superblock codec");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
