// SPDX-License-Identifier: GPL-2.0
/*
 * lraid superblock codec: encode, decode with complete validation, and the
 * assembly check across a set of members. See lraid_sb.h and
 * Documentation/on-disk-format.rst.
 *
 * Decoding never trusts a field before checking it: a corrupt or foreign
 * block yields an errno and a reason string, never a crash or an overflow.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#endif

#include "lraid_sb.h"

#define LRAID_SB_CRC_OFFSET	offsetof(struct lraid_sb_disk, crc)

u32 lraid_sb_crc(const void *block)
{
	static const u8 zero[sizeof(__le32)];
	u32 crc;

	crc = crc32c(~0U, block, LRAID_SB_CRC_OFFSET);
	crc = crc32c(crc, zero, sizeof(zero));
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_crc);

void lraid_sb_encode(const struct lraid_sb_info *info, void *block)
{
	struct lraid_sb_disk *sb = block;

	memset(sb, 0, sizeof(*sb));
	sb->magic = cpu_to_le64(LRAID_SB_MAGIC);
	sb->version = cpu_to_le32(LRAID_SB_VERSION);
	sb->feature_incompat = cpu_to_le32(info->feature_incompat);
	sb->feature_ro_compat = cpu_to_le32(info->feature_ro_compat);
	sb->feature_compat = cpu_to_le32(info->feature_compat);
	memcpy(sb->uuid, info->uuid, sizeof(sb->uuid));
	memcpy(sb->name, info->name, strnlen(info->name, sizeof(sb->name)));
	sb->ctime = cpu_to_le64(info->ctime);
	sb->utime = cpu_to_le64(info->utime);
	sb->events = cpu_to_le64(info->events);
	sb->level = cpu_to_le32(info->level);
	sb->layout = cpu_to_le32(info->layout);
	sb->chunk_sectors = cpu_to_le32(info->chunk_sectors);
	sb->nr_members = cpu_to_le32(info->nr_members);
	sb->role = cpu_to_le32(info->role);
	sb->state = cpu_to_le32(info->state);
	sb->failed_mask = cpu_to_le32(info->failed_mask);
	sb->data_offset = cpu_to_le64(info->data_offset);
	sb->data_size = cpu_to_le64(info->data_size);
	sb->dev_sectors = cpu_to_le64(info->dev_sectors);
	sb->recovery_offset = cpu_to_le64(info->recovery_offset);
	sb->bitmap_offset = cpu_to_le64(info->bitmap_offset);
	sb->bitmap_sectors = cpu_to_le64(info->bitmap_sectors);
	sb->bitmap_region_sectors = cpu_to_le64(info->bitmap_region_sectors);
	sb->resync_offset = cpu_to_le64(info->resync_offset);
	sb->bitmap_events = cpu_to_le64(info->bitmap_events);
	sb->crc = cpu_to_le32(lraid_sb_crc(sb));
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_encode);

static int lraid_sb_fail(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return err;
}

/* Names are printable ASCII without '/', NUL padded. */
static bool lraid_sb_name_ok(const u8 *name, size_t len)
{
	size_t i = 0;

	while (i < len && name[i]) {
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '/')
			return false;
		i++;
	}
	if (i == len)		/* no terminating NUL */
		return false;
	while (i < len)
		if (name[i++])
			return false;
	return true;
}

static bool lraid_sb_all_zero(const u8 *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/* Compat or ro_compat bits unknown to this code (incompat ones refuse). */
static bool lraid_sb_unknown_features(const struct lraid_sb_disk *sb)
{
	return (le32_to_cpu(sb->feature_compat) & ~LRAID_SB_FEAT_COMPAT_SUPP) ||
	       (le32_to_cpu(sb->feature_ro_compat) &
		~LRAID_SB_FEAT_RO_COMPAT_SUPP);
}

/* Bits of bitmap that @sectors of data need with @region_sectors per bit. */
static u64 lraid_sb_bitmap_bits(u64 sectors, u64 region_sectors)
{
	return (sectors >> ilog2(region_sectors)) +
	       !!(sectors & (region_sectors - 1));
}

int lraid_sb_validate(const struct lraid_sb_info *info, const char **why)
{
	unsigned int min_members = info->level == 6 ? 4 : 3;

	if ((info->feature_incompat & ~LRAID_SB_FEAT_INCOMPAT_SUPP) != 0)
		return lraid_sb_fail(why, "unknown incompatible feature",
				     -EOPNOTSUPP);
	if (info->level != 5 && info->level != 6)
		return lraid_sb_fail(why, "level is not 5 or 6", -EINVAL);
	if (info->layout != LRAID_LAYOUT_LEFT_SYMMETRIC)
		return lraid_sb_fail(why, "unknown layout", -EINVAL);
	if (info->nr_members < min_members ||
	    info->nr_members > LRAID_MAX_MEMBERS)
		return lraid_sb_fail(why, "member count out of range",
				     -EINVAL);
	if (info->role >= info->nr_members &&
	    info->role != LRAID_SB_ROLE_SPARE)
		return lraid_sb_fail(why, "member role out of range", -EINVAL);
	if (info->role == LRAID_SB_ROLE_SPARE && info->recovery_offset)
		return lraid_sb_fail(why, "spare with a recovery offset",
				     -EINVAL);
	if (info->chunk_sectors < (LRAID_MIN_CHUNK_BYTES >> 9) ||
	    info->chunk_sectors > (LRAID_MAX_CHUNK_BYTES >> 9) ||
	    !is_power_of_2(info->chunk_sectors))
		return lraid_sb_fail(why,
				     "chunk size not a power of two in 4KiB..1MiB",
				     -EINVAL);
	if (info->events > LRAID_SB_EVENTS_MAX)
		return lraid_sb_fail(why, "event count at its limit", -EINVAL);
	if (info->state & ~LRAID_SB_STATE_KNOWN)
		return lraid_sb_fail(why, "unknown state bits", -EINVAL);
	if (info->nr_members < 32 && (info->failed_mask >> info->nr_members))
		return lraid_sb_fail(why, "failed-member set names no member",
				     -EINVAL);
	if (info->name[LRAID_SB_NAME_LEN] != '\0' ||
	    !lraid_sb_name_ok((const u8 *)info->name, LRAID_SB_NAME_LEN))
		return lraid_sb_fail(why, "array name not printable or not NUL padded",
				     -EINVAL);

	/* member layout: superblock, bitmap, data, all in the device */
	if (info->data_offset < LRAID_SB_SECTORS ||
	    (info->data_offset & (LRAID_SB_SECTORS - 1)))
		return lraid_sb_fail(why, "data offset not 4KiB aligned behind the superblock",
				     -EINVAL);
	if (!info->data_size || (info->data_size & (info->chunk_sectors - 1)))
		return lraid_sb_fail(why, "data size not a non-zero multiple of the chunk",
				     -EINVAL);
	if (info->data_offset > info->dev_sectors ||
	    info->data_size > info->dev_sectors - info->data_offset)
		return lraid_sb_fail(why, "data area beyond the end of the member",
				     -EINVAL);
	if (info->recovery_offset != LRAID_SB_IN_SYNC &&
	    info->recovery_offset > info->data_size)
		return lraid_sb_fail(why, "recovery offset beyond the data area",
				     -EINVAL);
	if (!(info->feature_compat & LRAID_SB_FEAT_COMPAT_RESYNC) &&
	    info->resync_offset)
		return lraid_sb_fail(why, "resync offset set without its feature bit",
				     -EINVAL);
	if (info->resync_offset > info->data_size ||
	    (info->resync_offset & (info->chunk_sectors - 1)))
		return lraid_sb_fail(why, "resync offset not a chunk multiple within the data area",
				     -EINVAL);
	if (!(info->feature_compat & LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS) &&
	    info->bitmap_events)
		return lraid_sb_fail(why, "bitmap events set without their feature bit",
				     -EINVAL);
	if ((info->feature_compat & LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS) &&
	    (!info->bitmap_sectors || info->bitmap_events > info->events))
		return lraid_sb_fail(why, "bitmap events without a bitmap or past the event count",
				     -EINVAL);
	/* without a bitmap, bitmap_offset may still say where it would go */
	if (info->bitmap_offset &&
	    (info->bitmap_offset < LRAID_SB_SECTORS ||
	     info->bitmap_offset > info->data_offset))
		return lraid_sb_fail(why, "bitmap overlaps superblock or data",
				     -EINVAL);
	if (!info->bitmap_sectors) {
		if (info->bitmap_region_sectors)
			return lraid_sb_fail(why, "bitmap region set without a bitmap",
					     -EINVAL);
		return 0;
	}
	if (!info->bitmap_offset)
		return lraid_sb_fail(why, "bitmap overlaps superblock or data",
				     -EINVAL);
	/* bitmap_offset <= data_offset here: no sum that could wrap */
	if (info->bitmap_sectors > info->data_offset - info->bitmap_offset)
		return lraid_sb_fail(why, "bitmap overlaps superblock or data",
				     -EINVAL);
	if (info->bitmap_region_sectors < info->chunk_sectors ||
	    !is_power_of_2(info->bitmap_region_sectors))
		return lraid_sb_fail(why,
				     "bitmap region not a power of two of at least one chunk",
				     -EINVAL);
	/* beyond 2^52 sectors the bitmap has room for any data size */
	if (info->bitmap_sectors <= (U64_MAX >> 12) &&
	    lraid_sb_bitmap_bits(info->data_size, info->bitmap_region_sectors) >
	    info->bitmap_sectors << 12)
		return lraid_sb_fail(why, "bitmap too small for the data area",
				     -EINVAL);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_validate);

int lraid_sb_decode(const void *block, struct lraid_sb_info *info,
		    const char **why)
{
	const struct lraid_sb_disk *sb = block;

	if (le64_to_cpu(sb->magic) != LRAID_SB_MAGIC)
		return lraid_sb_fail(why, "not an lraid superblock", -EINVAL);
	if (le32_to_cpu(sb->crc) != lraid_sb_crc(sb))
		return lraid_sb_fail(why, "superblock checksum mismatch",
				     -EBADMSG);
	if (le32_to_cpu(sb->version) != LRAID_SB_VERSION)
		return lraid_sb_fail(why, "unsupported superblock version",
				     -EOPNOTSUPP);
	if (le32_to_cpu(sb->feature_incompat) & ~LRAID_SB_FEAT_INCOMPAT_SUPP)
		return lraid_sb_fail(why, "unknown incompatible feature",
				     -EOPNOTSUPP);
	/* a feature this code does not know may have carved a field from it */
	if (!lraid_sb_unknown_features(sb) &&
	    (sb->reserved0 || !lraid_sb_all_zero(sb->reserved,
						 sizeof(sb->reserved))))
		return lraid_sb_fail(why, "reserved superblock space not zero",
				     -EINVAL);

	memset(info, 0, sizeof(*info));
	info->version = le32_to_cpu(sb->version);
	info->feature_incompat = le32_to_cpu(sb->feature_incompat);
	info->feature_ro_compat = le32_to_cpu(sb->feature_ro_compat);
	info->feature_compat = le32_to_cpu(sb->feature_compat);
	info->ro_only = info->feature_ro_compat & ~LRAID_SB_FEAT_RO_COMPAT_SUPP;
	memcpy(info->uuid, sb->uuid, sizeof(info->uuid));
	memcpy(info->name, sb->name, sizeof(sb->name));
	info->name[LRAID_SB_NAME_LEN] = '\0';
	info->ctime = le64_to_cpu(sb->ctime);
	info->utime = le64_to_cpu(sb->utime);
	info->events = le64_to_cpu(sb->events);
	info->level = le32_to_cpu(sb->level);
	info->layout = le32_to_cpu(sb->layout);
	info->chunk_sectors = le32_to_cpu(sb->chunk_sectors);
	info->nr_members = le32_to_cpu(sb->nr_members);
	info->role = le32_to_cpu(sb->role);
	info->state = le32_to_cpu(sb->state);
	info->failed_mask = le32_to_cpu(sb->failed_mask);
	info->data_offset = le64_to_cpu(sb->data_offset);
	info->data_size = le64_to_cpu(sb->data_size);
	info->dev_sectors = le64_to_cpu(sb->dev_sectors);
	info->recovery_offset = le64_to_cpu(sb->recovery_offset);
	info->bitmap_offset = le64_to_cpu(sb->bitmap_offset);
	info->bitmap_sectors = le64_to_cpu(sb->bitmap_sectors);
	info->bitmap_region_sectors = le64_to_cpu(sb->bitmap_region_sectors);
	info->resync_offset = le64_to_cpu(sb->resync_offset);
	info->bitmap_events = le64_to_cpu(sb->bitmap_events);

	return lraid_sb_validate(info, why);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_decode);

/*
 * Whether @sb records @other failed while it does not record itself so.
 * Only a start undone (lraid_array_start()) writes a member with its own
 * role recorded failed: the members --force took back, which that write
 * records unusable again; they and the members writing it agree.
 */
static bool lraid_sb_names(const struct lraid_sb_info *sb,
			   const struct lraid_sb_info *other)
{
	return sb->role < 32 && other->role < 32 &&
	       (sb->failed_mask & (1U << other->role)) &&
	       !(sb->failed_mask & (1U << sb->role));
}

/*
 * Whether @sbs[x] was left behind: another member, one @x records
 * working, records @x failed. That member went on without @x, which
 * missed whatever was written from then on. In one history that is what
 * a failed member looks like, one that stayed behind in event count too;
 * but a pass cut short, then a start without the members it reached,
 * can leave them at the count of the members that went on or above it.
 */
static bool lraid_sb_left_behind(const struct lraid_sb_info *sbs,
				 unsigned int n, unsigned int x)
{
	unsigned int z;

	for (z = 0; z < n; z++)
		if (z != x && lraid_sb_names(&sbs[z], &sbs[x]) &&
		    !(sbs[x].failed_mask & (1U << sbs[z].role)))
			return true;
	return false;
}

/*
 * What the set @sbs[0..n-1] says: bit i of @behind for each member left
 * behind; bit i of @speak for each member that speaks for the array, at
 * the highest event count (@top) among those not left behind. Should
 * every member be left behind by another (no history of one array writes
 * that), none counts as left behind.
 */
struct lraid_sb_view {
	u32 behind, speak;
	u64 top;
};

static void lraid_sb_view(const struct lraid_sb_info *sbs, unsigned int n,
			  struct lraid_sb_view *v)
{
	unsigned int i;

	if (n > 32)
		n = 32;
	v->behind = 0;
	v->speak = 0;
	v->top = 0;
	for (i = 0; i < n; i++)
		if (lraid_sb_left_behind(sbs, n, i))
			v->behind |= 1U << i;
	if (n && hweight32(v->behind) == n)
		v->behind = 0;
	for (i = 0; i < n; i++)
		if (!(v->behind & (1U << i)) && sbs[i].events > v->top)
			v->top = sbs[i].events;
	for (i = 0; i < n; i++)
		if (!(v->behind & (1U << i)) && sbs[i].events == v->top)
			v->speak |= 1U << i;
}

/* The newest superblock of the view @v: see lraid_sb_newest(). */
static unsigned int lraid_sb_view_newest(const struct lraid_sb_info *sbs,
					 unsigned int n,
					 const struct lraid_sb_view *v)
{
	unsigned int i, best = n, w, best_w = 0;

	for (i = 0; i < n && i < 32; i++) {
		if (!(v->speak & (1U << i)))
			continue;
		w = hweight32(sbs[i].failed_mask);
		if (best == n || w > best_w ||
		    (w == best_w && sbs[i].role < sbs[best].role)) {
			best = i;
			best_w = w;
		}
	}
	return best == n ? 0 : best;
}

/* The failed roles of the view @v: see lraid_sb_failed(). */
static u32 lraid_sb_view_failed(const struct lraid_sb_info *sbs,
				unsigned int n, const struct lraid_sb_view *v)
{
	unsigned int i;
	u32 failed = 0;

	for (i = 0; i < n && i < 32; i++) {
		if (v->speak & (1U << i))
			failed |= sbs[i].failed_mask;
		if ((v->behind & (1U << i)) && sbs[i].role < 32)
			failed |= 1U << sbs[i].role;
	}
	return failed;
}

/* Two members of the view @v that ran apart: see lraid_sb_split(). */
static bool lraid_sb_view_split(const struct lraid_sb_info *sbs,
				unsigned int n, const struct lraid_sb_view *v,
				unsigned int *x, unsigned int *y)
{
	unsigned int i, j;

	for (i = 0; i < n && i < 32; i++) {
		if (!(v->speak & (1U << i)))
			continue;
		for (j = i + 1; j < n && j < 32; j++) {
			if (!(v->speak & (1U << j)))
				continue;
			if (lraid_sb_names(&sbs[i], &sbs[j]) &&
			    lraid_sb_names(&sbs[j], &sbs[i])) {
				*x = i;
				*y = j;
				return true;
			}
		}
	}
	return false;
}

unsigned int lraid_sb_newest(const struct lraid_sb_info *sbs, unsigned int n)
{
	struct lraid_sb_view v;

	lraid_sb_view(sbs, n, &v);
	return lraid_sb_view_newest(sbs, n, &v);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_newest);

u32 lraid_sb_failed(const struct lraid_sb_info *sbs, unsigned int n)
{
	struct lraid_sb_view v;

	lraid_sb_view(sbs, n, &v);
	return lraid_sb_view_failed(sbs, n, &v);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_failed);

bool lraid_sb_split(const struct lraid_sb_info *sbs, unsigned int n,
		    unsigned int *x, unsigned int *y)
{
	struct lraid_sb_view v;

	lraid_sb_view(sbs, n, &v);
	return lraid_sb_view_split(sbs, n, &v, x, y);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_split);

/*
 * The first of @sbs[0..n-1] that @pick takes back to be rebuilt, given
 * the newest superblock and the roles the set cannot use (@failed): only
 * when the array was stopped clean and without --force. Its index, or @n.
 */
static unsigned int lraid_sb_pick(const struct lraid_sb_info *sbs,
				  unsigned int n, u32 failed, bool force,
				  bool (*pick)(const struct lraid_sb_info *sb,
					       const struct lraid_sb_info *ref,
					       u32 failed))
{
	const struct lraid_sb_info *ref;
	unsigned int i;

	if (!n || force)
		return n;
	ref = &sbs[lraid_sb_newest(sbs, n)];
	if (!(ref->state & LRAID_SB_STATE_CLEAN))
		return n;
	for (i = 0; i < n; i++)
		if (sbs[i].role < 32 && (failed & (1U << sbs[i].role)) &&
		    pick(&sbs[i], ref, failed))
			return i;
	return n;
}

/* Part rebuilt, and written by the stop: see lraid_sb_resumable(). */
static bool lraid_sb_part_rebuilt(const struct lraid_sb_info *sb,
				  const struct lraid_sb_info *ref, u32 failed)
{
	return !lraid_sb_in_sync(sb) && sb->events == ref->events &&
	       (sb->state & LRAID_SB_STATE_CLEAN) &&
	       sb->failed_mask == ref->failed_mask &&
	       (sb->failed_mask & (1U << sb->role));
}

unsigned int lraid_sb_resumable(const struct lraid_sb_info *sbs,
				unsigned int n, u32 failed, bool force)
{
	return lraid_sb_pick(sbs, n, failed, force, lraid_sb_part_rebuilt);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_resumable);

/* In the bitmap's range: see lraid_sb_readdable(). */
static bool lraid_sb_bitmap_covers(const struct lraid_sb_info *sb,
				   const struct lraid_sb_info *ref, u32 failed)
{
	return ref->bitmap_sectors && ref->bitmap_events &&
	       (ref->feature_compat & LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS) &&
	       lraid_sb_in_sync(sb) &&
	       !(sb->failed_mask & ((1U << sb->role) | ~failed)) &&
	       sb->events >= ref->bitmap_events && sb->events <= ref->events &&
	       sb->bitmap_offset == ref->bitmap_offset &&
	       sb->bitmap_sectors == ref->bitmap_sectors &&
	       sb->bitmap_region_sectors == ref->bitmap_region_sectors;
}

unsigned int lraid_sb_readdable(const struct lraid_sb_info *sbs,
				unsigned int n, u32 failed, bool force)
{
	return lraid_sb_pick(sbs, n, failed, force, lraid_sb_bitmap_covers);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_readdable);

/*
 * Whether @sb serves the array @ref (the newest superblock) describes.
 * One event behind is fresh, as in md and mdadm: every superblock pass
 * writes the members one after another, so a crash or a write error in
 * the middle of a pass leaves some members one event behind, and they
 * missed nothing. A member that did miss writes is out of the array by
 * then: the pass that took it out recorded it in failed_mask, and the
 * members that pass reached are the newest (@failed, what they record,
 * with the members left behind). A member rebuilt only up to
 * recovery_offset holds stale data above it and is never fresh.
 */
static bool lraid_sb_fresh(const struct lraid_sb_info *sb,
			   const struct lraid_sb_info *ref, u32 failed)
{
	return sb->events + 1 >= ref->events &&
	       lraid_sb_in_sync(sb) && !(failed & (1U << sb->role));
}

const char *lraid_sb_spare_mismatch(const struct lraid_sb_info *sp,
				    const struct lraid_sb_info *ref)
{
	if (memcmp(sp->uuid, ref->uuid, sizeof(sp->uuid)))
		return "it is a spare of another array (UUID)";
	if (strcmp(sp->name, ref->name))
		return "it disagrees with the members on the array name";
	if (sp->level != ref->level || sp->layout != ref->layout ||
	    sp->chunk_sectors != ref->chunk_sectors ||
	    sp->nr_members != ref->nr_members)
		return "it disagrees with the members on the geometry";
	if (sp->data_size != ref->data_size ||
	    sp->data_offset != ref->data_offset ||
	    sp->bitmap_offset != ref->bitmap_offset ||
	    sp->bitmap_sectors != ref->bitmap_sectors ||
	    sp->bitmap_region_sectors != ref->bitmap_region_sectors)
		return "it disagrees with the members on the data or bitmap area";
	if (sp->feature_incompat != ref->feature_incompat)
		return "it disagrees with the members on incompatible features";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_spare_mismatch);

int lraid_sb_check_set(const struct lraid_sb_info *sbs, unsigned int n,
		       unsigned int *fresh_mask, const char **why)
{
	const struct lraid_sb_info *ref;
	unsigned int i, x, y, nr_parity, fresh = 0;
	struct lraid_sb_view v;
	u32 failed, roles = 0;

	*fresh_mask = 0;
	if (!n)
		return lraid_sb_fail(why, "no members", -EINVAL);
	lraid_sb_view(sbs, n, &v);
	ref = &sbs[lraid_sb_view_newest(sbs, n, &v)];
	if (ref->nr_members > LRAID_MAX_MEMBERS)
		return lraid_sb_fail(why, "member count out of range", -EINVAL);
	if (n > ref->nr_members)
		return lraid_sb_fail(why, "more members offered than the array has",
				     -EINVAL);
	for (i = 0; i < n; i++) {
		const struct lraid_sb_info *sb = &sbs[i];

		if (memcmp(sb->uuid, ref->uuid, sizeof(sb->uuid)))
			return lraid_sb_fail(why, "members belong to different arrays (UUID)",
					     -EINVAL);
		if (strcmp(sb->name, ref->name))
			return lraid_sb_fail(why, "members disagree on the array name",
					     -EINVAL);
		if (sb->level != ref->level || sb->layout != ref->layout ||
		    sb->chunk_sectors != ref->chunk_sectors ||
		    sb->nr_members != ref->nr_members)
			return lraid_sb_fail(why, "members disagree on the geometry",
					     -EINVAL);
		if (sb->data_size != ref->data_size ||
		    sb->data_offset != ref->data_offset)
			return lraid_sb_fail(why, "members disagree on the data area",
					     -EINVAL);
		if (sb->feature_incompat != ref->feature_incompat)
			return lraid_sb_fail(why, "members disagree on incompatible features",
					     -EINVAL);
		if (sb->role >= ref->nr_members)
			return lraid_sb_fail(why, "member role out of range",
					     -EINVAL);
		if (roles & (1U << sb->role))
			return lraid_sb_fail(why, "two members claim the same role",
					     -EINVAL);
		roles |= 1U << sb->role;
	}
	/*
	 * Parts that ran apart to the same count: whichever came first
	 * would be taken for the array and the other part's writes lost,
	 * or worse, members of both mixed. Only the user knows which part
	 * to keep; assembling that part's members alone is consistent.
	 */
	if (lraid_sb_view_split(sbs, n, &v, &x, &y))
		return lraid_sb_fail(why, LRAID_SB_WHY_SPLIT, -EINVAL);
	failed = lraid_sb_view_failed(sbs, n, &v);
	for (i = 0; i < n; i++)
		if (lraid_sb_fresh(&sbs[i], ref, failed))
			*fresh_mask |= 1U << i;
	fresh = hweight32(*fresh_mask);
	nr_parity = ref->level == 6 ? 2 : 1;
	if (fresh < ref->nr_members - nr_parity)
		return lraid_sb_fail(why, "too many members missing, failed or stale to assemble",
				     -ENODEV);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_check_set);

/*
 * Which of two members --force takes first: the newer one, and on a tie
 * one whose role the newest superblocks (@failed) do not record failed. A
 * member that was failed missed writes from the moment it failed; one
 * that only fell behind in a superblock pass (a crash, a write error)
 * missed none.
 */
static bool lraid_sb_force_before(u32 failed, const struct lraid_sb_info *a,
				  const struct lraid_sb_info *b)
{
	if (a->events != b->events)
		return a->events > b->events;
	return (failed & (1U << b->role)) && !(failed & (1U << a->role));
}

unsigned int lraid_sb_force(const struct lraid_sb_info *sbs, unsigned int n,
			    unsigned int *fresh_mask)
{
	const struct lraid_sb_info *ref;
	unsigned int i, best, need, added = 0;
	struct lraid_sb_view v;
	u32 failed;

	lraid_sb_view(sbs, n, &v);
	ref = &sbs[lraid_sb_view_newest(sbs, n, &v)];
	need = ref->nr_members - (ref->level == 6 ? 2 : 1);
	failed = lraid_sb_view_failed(sbs, n, &v);

	while (hweight32(*fresh_mask) < need) {
		best = n;
		for (i = 0; i < n; i++)
			if (!(*fresh_mask & (1U << i)) &&
			    lraid_sb_in_sync(&sbs[i]) &&
			    (best == n ||
			     lraid_sb_force_before(failed, &sbs[i],
						   &sbs[best])))
				best = i;
		if (best == n)
			break;
		*fresh_mask |= 1U << best;
		added++;
	}
	return added;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_force);

void lraid_sb_roles(const struct lraid_sb_info *sbs, unsigned int n,
		    unsigned int fresh_mask, struct lraid_sb_roles *roles)
{
	const struct lraid_sb_info *ref;
	struct lraid_sb_view v;
	u32 all, offered = 0;
	unsigned int i;

	lraid_sb_view(sbs, n, &v);
	ref = &sbs[lraid_sb_view_newest(sbs, n, &v)];
	all = ref->nr_members >= 32 ? ~0U : (1U << ref->nr_members) - 1;
	memset(roles, 0, sizeof(*roles));
	for (i = 0; i < n; i++) {
		if (sbs[i].role >= 32)
			continue;
		offered |= 1U << sbs[i].role;
		if (fresh_mask & (1U << i))
			roles->fresh |= 1U << sbs[i].role;
	}
	roles->failed = lraid_sb_view_failed(sbs, n, &v) & all & ~roles->fresh;
	roles->stale = offered & ~roles->fresh & ~roles->failed;
	roles->missing = all & ~offered & ~roles->failed;
	roles->unusable = all & ~roles->fresh;
	roles->tolerate = ref->level == 6 ? 2 : 1;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_roles);

/* Level, member count and chunk size within what lraid_geom supports. */
static int lraid_sb_geom_params_ok(const struct lraid_sb_info *info)
{
	struct lraid_geom g;

	if (info->chunk_sectors > (LRAID_MAX_CHUNK_BYTES >> 9))
		return -EINVAL;
	return lraid_geom_init(&g, info->level, info->nr_members,
			       info->chunk_sectors << 9, info->chunk_sectors);
}

int lraid_sb_plan(struct lraid_sb_info *info, u64 dev_sectors, bool bitmap)
{
	u64 region, room;
	int err;

	err = lraid_sb_geom_params_ok(info);
	if (err)
		return err;
	if (!info->data_offset)
		info->data_offset = LRAID_SB_DEF_DATA_OFFSET;
	if (info->data_offset < 2 * LRAID_SB_SECTORS ||
	    (info->data_offset & (LRAID_SB_SECTORS - 1)))
		return -EINVAL;
	if (dev_sectors < info->data_offset)
		return -ENOSPC;
	info->dev_sectors = dev_sectors;
	info->data_size = (dev_sectors - info->data_offset) &
			  ~((u64)info->chunk_sectors - 1);
	if (!info->data_size)
		return -ENOSPC;
	if (info->recovery_offset == 0)
		info->recovery_offset = LRAID_SB_IN_SYNC;

	if (!bitmap) {
		info->bitmap_offset = 0;
		info->bitmap_sectors = 0;
		info->bitmap_region_sectors = 0;
		return 0;
	}
	/* the bitmap takes the whole gap between superblock and data */
	info->bitmap_offset = LRAID_SB_DEF_BITMAP_OFFSET;
	info->bitmap_sectors = info->data_offset - info->bitmap_offset;
	room = info->bitmap_sectors * 512 * 8;
	region = info->bitmap_region_sectors;
	if (region) {
		if (!is_power_of_2(region) || region < info->chunk_sectors)
			return -EINVAL;
		if (lraid_sb_bitmap_bits(info->data_size, region) > room)
			return -ENOSPC;
	} else {
		region = LRAID_SB_DEF_REGION_SECTORS;
		if (region < info->chunk_sectors)
			region = info->chunk_sectors;
		while (lraid_sb_bitmap_bits(info->data_size, region) > room)
			region <<= 1;
		info->bitmap_region_sectors = region;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_plan);

int lraid_sb_geom(const struct lraid_sb_info *info, struct lraid_geom *g)
{
	if (info->chunk_sectors > (LRAID_MAX_CHUNK_BYTES >> 9))
		return -EINVAL;
	return lraid_geom_init(g, info->level, info->nr_members,
			       info->chunk_sectors << 9, info->data_size);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sb_geom);
