// SPDX-License-Identifier: GPL-2.0
/*
 * Parity check and repair: md's "check" and "repair" sync actions, started
 * and stopped by writing sync_action in /sys/block/lraidN/lraid/, with md's
 * mismatch_cnt, sync_completed and last_sync_action beside it.
 *
 * A pass walks the stripes in order, in a work item on system_long_wq.
 * Each stripe is taken as a range (struct lraid_drange, as a full-stripe
 * discard takes one): the write pieces holding windows there finish first,
 * those that arrive meanwhile are parked until the stripe is done, and
 * healthy reads, which never use parity, go on. The stripe is read from
 * every member a slice at a time, and P (and Q) are computed from its data
 * and compared with the members' page by page. "check" counts the pages
 * that differ; "repair" also writes the computed P or Q over them (data
 * wins, as in md). mismatch_cnt counts 512-byte sectors, a page's worth
 * per page that differs, as md counts them.
 *
 * A check, repair or resync needs every member: it is refused on a
 * degraded array and stops when a member fails. A rebuild ("recover", as
 * md calls it) runs on a degraded array: it reads the members that have
 * not failed, rebuilds from them the role given to an added device
 * (lraid_array_add()) and writes it there, a stripe at a time under the
 * same range; writes meanwhile go to the new member too (a->rebuilding).
 * At the end lraid_array_recovered() marks the role working, and an array
 * whose parity was not known to be in sync goes on to a resync. It stops
 * if another member fails, a member fails a read where parity has no room
 * left (RAID5; RAID6 reads around one survivor's error and writes its
 * blocks back), or the new device fails a write; the role then stays
 * failed and a new add starts over.
 *
 * A member read error in a check, repair or resync is counted against the
 * member (max_read_errors) and its blocks are rebuilt from the others,
 * written back and read back, as a read through the array would do it,
 * before the slice is compared; one that does not read back fails the
 * member when the array can lose it. A slice two members fail to read is
 * skipped.
 *
 * A repair pass that went over every stripe leaves parity agreeing with
 * the data everywhere but where writes are in flight, as on an array that
 * was always clean: the array no longer needs a resync after an unclean
 * shutdown or a --force start, and the next stop marks it clean.
 *
 * Every buffer and bio of a pass is allocated before its first stripe is
 * taken: while one is, writes to it wait, and memory reclaim may be
 * waiting for them.
 *
 * A pass is paced as md paces a resync (lraid_sync_pace()): speeds in
 * KiB/s of member data, measured over the last 3 to 6 seconds; up to
 * sync_speed_min it runs flat out, above sync_speed_max it waits, and
 * between the two it pauses after each stripe for as long as it held
 * the stripe whenever the array served other I/O meanwhile (the disk's
 * I/O statistics moved), as md's waits when its members are not idle.
 * The limits are per array in sysfs ("system": the module parameters
 * speed_limit_min and speed_limit_max, md's defaults).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/part_stat.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "lraid.h"
#include "lraid_gf.h"
#include "lraid_plan.h"

#define LRAID_SYNC_PAGES	16	/* slice: pages read per member */
#define LRAID_SYNC_MARK_STEP	(3 * HZ)	/* speed window step */

struct lraid_sync {
	struct lraid_array *a;
	u8 action;
	u8 role;			/* LRAID_SYNC_RECOVER: rebuilt */
	u32 failed;			/* LRAID_SYNC_RECOVER: a->failed then */
	u32 slice_pages;
	struct lraid_drange range;
	atomic_t pending;
	struct completion done;
	blk_status_t status[LRAID_MAX_MEMBERS];
	struct bio *bios[LRAID_MAX_MEMBERS];
	/* the members' pages, then computed P and Q */
	struct page *pages[LRAID_MAX_MEMBERS + 2][LRAID_SYNC_PAGES];
	void *data[LRAID_MAX_MEMBERS];
	u64 skipped;			/* slices not checked: read errors */
	u64 corrected;			/* slices with a read error rewritten */
	/* pacing: the speed window (t0, d0) to now, moved every step */
	unsigned long t0, t1;
	u64 d0, d1;
	u64 io;				/* the disk's sectors at the last stripe */
};

static const char *const lraid_sync_names[] = {
	[LRAID_SYNC_NONE] = "none",
	[LRAID_SYNC_CHECK] = "check",
	[LRAID_SYNC_REPAIR] = "repair",
	[LRAID_SYNC_RESYNC] = "resync",
	[LRAID_SYNC_RECOVER] = "recover",
};

static bool auto_resync = true;
module_param(auto_resync, bool, 0644);
MODULE_PARM_DESC(auto_resync,
		 "resync (a repair pass) an array assembled with every member after an unclean shutdown or a --force start");

/* md's /proc/sys/dev/raid/speed_limit_min and _max, and their defaults */
static unsigned int speed_limit_min = 1000;
module_param(speed_limit_min, uint, 0644);
MODULE_PARM_DESC(speed_limit_min,
		 "KiB/s per member up to which a check, repair or resync pass does not yield to other I/O (arrays whose sync_speed_min is \"system\")");
static unsigned int speed_limit_max = 200000;
module_param(speed_limit_max, uint, 0644);
MODULE_PARM_DESC(speed_limit_max,
		 "KiB/s per member above which a check, repair or resync pass waits (arrays whose sync_speed_max is \"system\")");

static u32 lraid_speed_min(const struct lraid_array *a)
{
	return READ_ONCE(a->sync_speed_min) ?: READ_ONCE(speed_limit_min);
}

static u32 lraid_speed_max(const struct lraid_array *a)
{
	return READ_ONCE(a->sync_speed_max) ?: READ_ONCE(speed_limit_max);
}

/* Does @action write parity that differs? */
static bool lraid_sync_writes(u8 action)
{
	return action == LRAID_SYNC_REPAIR || action == LRAID_SYNC_RESYNC;
}

static void lraid_sync_free(struct lraid_sync *s)
{
	unsigned int m, i;

	for (m = 0; m < ARRAY_SIZE(s->bios); m++) {
		if (!s->bios[m])
			continue;
		bio_uninit(s->bios[m]);
		kfree(s->bios[m]);
	}
	for (m = 0; m < ARRAY_SIZE(s->pages); m++)
		for (i = 0; i < LRAID_SYNC_PAGES; i++)
			if (s->pages[m][i])
				__free_page(s->pages[m][i]);
	kfree(s);
}

static struct lraid_sync *lraid_sync_alloc(struct lraid_array *a, u8 action)
{
	const struct lraid_geom *g = &a->geom;
	unsigned int nr = g->nr_members, m, i;
	struct lraid_sync *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->a = a;
	s->action = action;
	s->slice_pages = min_t(u32, LRAID_SYNC_PAGES,
			       (g->chunk_sectors << SECTOR_SHIFT) >> PAGE_SHIFT);
	s->range.a = a;
	init_completion(&s->done);
	for (m = 0; m < nr; m++) {
		s->bios[m] = bio_kmalloc(s->slice_pages, GFP_KERNEL);
		if (!s->bios[m])
			goto fail;
		/* lraid_sync_bio() points it at the member's device each time */
		bio_init(s->bios[m], NULL, s->bios[m]->bi_inline_vecs,
			 s->slice_pages, REQ_OP_READ);
	}
	for (m = 0; m < nr + 2; m++) {
		if (m == nr + 1 && g->level != 6)
			break;
		for (i = 0; i < s->slice_pages; i++) {
			s->pages[m][i] = alloc_page(GFP_KERNEL);
			if (!s->pages[m][i])
				goto fail;
		}
	}
	return s;
fail:
	lraid_sync_free(s);
	return NULL;
}

static void lraid_sync_endio(struct bio *bio)
{
	struct lraid_sync *s = bio->bi_private;
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(s->bios); m++)
		if (s->bios[m] == bio)
			s->status[m] = bio->bi_status;
	if (atomic_dec_and_test(&s->pending))
		complete(&s->done);
}

/* Member @m's bio, idle, set for @opf of @n of @pages at @sector. */
static struct bio *lraid_sync_bio(struct lraid_sync *s, unsigned int m,
				  blk_opf_t opf, u64 sector,
				  struct page **pages, u32 n)
{
	struct bio *bio = s->bios[m];
	u32 i;

	bio_reset(bio, s->a->members[m].b.bdev, opf);
	bio->bi_iter.bi_sector = sector;
	for (i = 0; i < n; i++)
		__bio_add_page(bio, pages[i], PAGE_SIZE, 0);
	return bio;
}

/* Read @pages pages at member sector @sector of the members in @mask. */
static void lraid_sync_read(struct lraid_sync *s, u32 mask, u64 sector,
			    u32 pages)
{
	unsigned int nr = s->a->geom.nr_members, m;

	reinit_completion(&s->done);
	atomic_set(&s->pending, hweight32(mask) + 1);
	for (m = 0; m < nr; m++) {
		struct bio *bio;

		if (!(mask & BIT(m)))
			continue;
		bio = lraid_sync_bio(s, m, REQ_OP_READ, sector, s->pages[m],
				     pages);

		bio->bi_private = s;
		bio->bi_end_io = lraid_sync_endio;
		s->status[m] = BLK_STS_OK;
		submit_bio(bio);
	}
	if (atomic_dec_and_test(&s->pending))
		complete(&s->done);
	wait_for_completion_io(&s->done);
}

/* Write computed page @page (P: @which 0, Q: 1) over member @m's. */
static int lraid_sync_rewrite(struct lraid_sync *s, unsigned int m,
			      unsigned int which, u64 sector, u32 page)
{
	struct bio *bio;
	int ret;

	bio = lraid_sync_bio(s, m, REQ_OP_WRITE | REQ_SYNC,
			     sector + ((u64)page << (PAGE_SHIFT - SECTOR_SHIFT)),
			     &s->pages[s->a->geom.nr_members + which][page], 1);
	ret = submit_bio_wait(bio);
	if (ret)
		lraid_member_write_error(s->a, m, bio->bi_status);
	return ret;
}

/*
 * Member @m's @pages pages at @sector, rebuilt from the others after it
 * failed to read them: write them back and read them back (into the
 * computed-P pages, free here), as a read through the array would. 0: they
 * read back, the error is corrected; 1: they did not (counted by
 * lraid_member_uncorrected(), which may fail the member); -EIO: the write
 * failed, and so did the member.
 */
static int lraid_sync_write_back(struct lraid_sync *s, unsigned int m,
				 u64 sector, u32 pages)
{
	struct lraid_array *a = s->a;
	struct page **back = s->pages[a->geom.nr_members];
	struct bio *bio;
	int ret;
	u32 i;

	bio = lraid_sync_bio(s, m, REQ_OP_WRITE | REQ_SYNC, sector,
			     s->pages[m], pages);
	if (submit_bio_wait(bio)) {
		lraid_member_write_error(a, m, bio->bi_status);
		return -EIO;
	}
	ret = submit_bio_wait(lraid_sync_bio(s, m, REQ_OP_READ, sector, back,
					     pages));
	for (i = 0; !ret && i < pages; i++)
		if (memcmp(page_address(back[i]), page_address(s->pages[m][i]),
			   PAGE_SIZE))
			ret = -EIO;
	if (ret) {
		lraid_member_uncorrected(a, m, sector,
					 pages << (PAGE_SHIFT - SECTOR_SHIFT));
		return 1;
	}
	pr_info_ratelimited("%s: %s: read error corrected (%u sectors at %llu on %pg, role %u)\n",
			    a->disk->disk_name, lraid_sync_names[s->action],
			    pages << (PAGE_SHIFT - SECTOR_SHIFT),
			    (unsigned long long)sector, a->members[m].b.bdev, m);
	s->corrected++;
	return 0;
}

/*
 * Member @bad failed to read its @pages pages at @sector: rebuild them from
 * the others (P or Q computed from the data, a data block from the other
 * data and P), write them back and read them back, as a read through the
 * array would (md's check and repair do the same). 0: the member's pages
 * now hold what it has on disk, and the slice can be compared; 1: the
 * rewrite did not read back, the slice is skipped; -EIO: a member failed.
 */
static int lraid_sync_rebuild(struct lraid_sync *s, u64 stripe,
			      unsigned int bad, u64 sector, u32 pages)
{
	struct lraid_array *a = s->a;
	const struct lraid_geom *g = &a->geom;
	unsigned int nr = g->nr_members, k = g->nr_data, di, m, i;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	int ret;

	for (i = 0; i < pages; i++) {
		void *out = page_address(s->pages[bad][i]);

		for (di = 0; di < k; di++) {
			m = lraid_geom_data_member(g, stripe, di);
			s->data[di] = page_address(s->pages[m == bad ? pm : m][i]);
		}
		lraid_gf_begin();
		if (bad == qm)
			lraid_gf_gen_pq(k, PAGE_SIZE, s->data,
					page_address(s->pages[nr][i]), out);
		else
			/* P from the data, or a data block from P and the rest */
			lraid_gf_gen_p(k, PAGE_SIZE, s->data, out);
		lraid_gf_end();
	}

	/* the computed-P pages it reads back into, the compare refills */
	ret = lraid_sync_write_back(s, bad, sector, pages);
	if (ret > 0) {
		s->skipped++;
		return READ_ONCE(a->failed) ? -EIO : 1;
	}
	return ret;
}

/*
 * Check (and repair) @pages pages at sector @off of @stripe's chunks;
 * the stripe is taken. NULL, or why the pass stops.
 */
static const char *lraid_sync_slice(struct lraid_sync *s, u64 stripe,
				    u32 off, u32 pages)
{
	struct lraid_array *a = s->a;
	const struct lraid_geom *g = &a->geom;
	unsigned int nr = g->nr_members, k = g->nr_data, m, di, i;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	u64 sector = a->data_offset + (stripe << g->chunk_shift) + off;
	u32 bad_p = 0, bad_q = 0, unread = 0;
	int ret;

	lraid_sync_read(s, GENMASK(nr - 1, 0), sector, pages);
	if (READ_ONCE(a->failed))
		return "a member failed";
	for (m = 0; m < nr; m++) {
		if (s->status[m] == BLK_STS_OK)
			continue;
		pr_warn_ratelimited("%s: %s: read error %d on %pg (role %u), %u sectors at %llu\n",
				    a->disk->disk_name,
				    lraid_sync_names[s->action],
				    blk_status_to_errno(s->status[m]),
				    a->members[m].b.bdev, m,
				    pages << (PAGE_SHIFT - SECTOR_SHIFT),
				    (unsigned long long)sector);
		lraid_count_read_error(a, m);
		unread |= BIT(m);
	}
	if (READ_ONCE(a->failed))
		return "a member failed";
	if (hweight32(unread) > 1) {
		s->skipped++;
		return NULL;
	}
	if (unread) {
		ret = lraid_sync_rebuild(s, stripe, __ffs(unread), sector, pages);
		if (ret)
			return ret < 0 ? "a member failed" : NULL;
	}

	for (i = 0; i < pages; i++) {
		void *p = page_address(s->pages[nr][i]);

		for (di = 0; di < k; di++) {
			m = lraid_geom_data_member(g, stripe, di);
			s->data[di] = page_address(s->pages[m][i]);
		}
		/* one page per member: a short FPU section */
		lraid_gf_begin();
		if (g->level == 6)
			lraid_gf_gen_pq(k, PAGE_SIZE, s->data, p,
					page_address(s->pages[nr + 1][i]));
		else
			lraid_gf_gen_p(k, PAGE_SIZE, s->data, p);
		lraid_gf_end();
		if (memcmp(p, page_address(s->pages[pm][i]), PAGE_SIZE))
			bad_p |= BIT(i);
		if (g->level == 6 &&
		    memcmp(page_address(s->pages[nr + 1][i]),
			   page_address(s->pages[qm][i]), PAGE_SIZE))
			bad_q |= BIT(i);
		cond_resched();
	}
	if (!(bad_p | bad_q))
		return NULL;
	atomic64_add((u64)hweight32(bad_p | bad_q) <<
		     (PAGE_SHIFT - SECTOR_SHIFT), &a->mismatches);
	if (!lraid_sync_writes(s->action))
		return NULL;
	for (i = 0; i < pages; i++) {
		if (READ_ONCE(a->failed))
			return "a member failed";
		if ((bad_p & BIT(i)) && lraid_sync_rewrite(s, pm, 0, sector, i))
			return "a member failed";
		if ((bad_q & BIT(i)) && lraid_sync_rewrite(s, qm, 1, sector, i))
			return "a member failed";
	}
	return NULL;
}

/*
 * Rebuild @pages pages at sector @off of @stripe's chunk on the role
 * being recovered, from every member that has not failed, and write them
 * to it; the stripe is taken. A survivor that fails to read is rebuilt
 * too where parity has room for it (RAID6 with one role lost: from the
 * rest, as md reads around it) and written back; otherwise the rebuild
 * stops there. NULL, or why the rebuild stops.
 */
static const char *lraid_sync_recover_slice(struct lraid_sync *s, u64 stripe,
					    u32 off, u32 pages)
{
	struct lraid_array *a = s->a;
	const struct lraid_geom *g = &a->geom;
	unsigned int nr = g->nr_members, k = g->nr_data, m, di, i, nfd = 0;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	u64 sector = a->data_offset + (stripe << g->chunk_shift) + off;
	u32 lost = s->failed, have = GENMASK(nr - 1, 0) & ~lost, unread = 0;
	unsigned int fd[2] = {};
	struct bio *bio;

	lraid_sync_read(s, have, sector, pages);
	for (m = 0; m < nr; m++)
		if ((have & BIT(m)) && s->status[m] != BLK_STS_OK)
			unread |= BIT(m);
	for (m = 0; unread && m < nr; m++) {
		if (!(unread & BIT(m)))
			continue;
		if (hweight32(lost | unread) > nr - k)
			pr_err_ratelimited("%s: recover: read error %d on %pg (role %u), %u sectors at %llu: role %u cannot be rebuilt there\n",
					   a->disk->disk_name,
					   blk_status_to_errno(s->status[m]),
					   a->members[m].b.bdev, m,
					   pages << (PAGE_SHIFT - SECTOR_SHIFT),
					   (unsigned long long)sector, s->role);
		else
			pr_warn_ratelimited("%s: recover: read error %d on %pg (role %u), %u sectors at %llu: rebuilt from the others\n",
					    a->disk->disk_name,
					    blk_status_to_errno(s->status[m]),
					    a->members[m].b.bdev, m,
					    pages << (PAGE_SHIFT - SECTOR_SHIFT),
					    (unsigned long long)sector);
		lraid_count_read_error(a, m);
	}
	if (unread) {
		if (hweight32(lost | unread) > nr - k)
			return "a member failed a read";
		/* max_read_errors reached: the member is failed now */
		if (READ_ONCE(a->failed) != s->failed)
			return LRAID_WHY_OTHER_FAILED;
		lost |= unread;
	}
	for (di = 0; di < k && nfd < ARRAY_SIZE(fd); di++)
		if (lost & BIT(lraid_geom_data_member(g, stripe, di)))
			fd[nfd++] = di;
	for (i = 0; i < pages; i++) {
		void *pp = page_address(s->pages[pm][i]);
		void *qq = qm == LRAID_NO_MEMBER ? NULL :
			   page_address(s->pages[qm][i]);

		for (di = 0; di < k; di++) {
			m = lraid_geom_data_member(g, stripe, di);
			s->data[di] = page_address(s->pages[m][i]);
		}
		lraid_gf_begin();
		if (nfd == 2)
			lraid_gf_recov_2data(k, PAGE_SIZE, s->data, fd[0], fd[1],
					     pp, qq);
		else if (nfd && (lost & BIT(pm)))
			/* data and P lost: data from Q, P regenerated */
			lraid_gf_recov_data_q(k, PAGE_SIZE, s->data, fd[0], pp,
					      qq);
		else if (nfd)
			lraid_gf_recov_data_p(k, PAGE_SIZE, s->data, fd[0], pp);
		/* P or Q lost beside no data, or Q beside one data block */
		if (qq && (!nfd || (nfd == 1 && (lost & BIT(qm)))))
			lraid_gf_gen_pq(k, PAGE_SIZE, s->data, pp, qq);
		else if (!nfd)
			lraid_gf_gen_p(k, PAGE_SIZE, s->data, pp);
		lraid_gf_end();
		cond_resched();
	}
	bio = lraid_sync_bio(s, s->role, REQ_OP_WRITE, sector,
			     s->pages[s->role], pages);
	if (submit_bio_wait(bio)) {
		lraid_member_write_error(a, s->role, bio->bi_status);
		return "the new member failed a write";
	}
	/* a survivor's pages rebuilt beside it: written back */
	if (unread && lraid_sync_write_back(s, __ffs(unread), sector, pages) &&
	    READ_ONCE(a->failed) != s->failed)
		return LRAID_WHY_OTHER_FAILED;
	return NULL;
}

/* The disk's sectors read, written and discarded so far. */
static u64 lraid_sync_disk_io(struct lraid_array *a)
{
	return part_stat_read_accum(a->disk->part0, sectors);
}

/*
 * The pass starts at member sector @done: the speed window opens there.
 * The mark moves first: sync_speed reads sync_done before it, and never
 * counts the stripes a resumed resync skips.
 */
static void lraid_sync_pace_start(struct lraid_sync *s, u64 done)
{
	struct lraid_array *a = s->a;

	s->t0 = jiffies;
	s->t1 = s->t0;
	s->d0 = done;
	s->d1 = done;
	s->io = lraid_sync_disk_io(a);
	WRITE_ONCE(a->sync_mark, s->t0);
	WRITE_ONCE(a->sync_mark_done, done);
	WRITE_ONCE(a->sync_done, done);
}

/*
 * After a stripe the pass held for @held_us: go on, pause or wait as
 * lraid_sync_pace() says. Writing idle or a stop ends a wait at once.
 */
static void lraid_sync_throttle(struct lraid_sync *s, u64 held_us)
{
	struct lraid_array *a = s->a;
	u64 io = lraid_sync_disk_io(a);
	bool busy = io != s->io;

	s->io = io;
	while (!READ_ONCE(a->sync_abort)) {
		unsigned long now = jiffies;
		u64 done = READ_ONCE(a->sync_done);

		if (time_after_eq(now, s->t1 + LRAID_SYNC_MARK_STEP)) {
			s->t0 = s->t1;
			s->d0 = s->d1;
			s->t1 = now;
			s->d1 = done;
			WRITE_ONCE(a->sync_mark, s->t0);
			WRITE_ONCE(a->sync_mark_done, s->d0);
		}
		switch (lraid_sync_pace((done - s->d0) >> 1,
					(now - s->t0) / HZ, lraid_speed_min(a),
					lraid_speed_max(a), busy)) {
		case LRAID_PACE_GO:
			return;
		case LRAID_PACE_YIELD:
			fsleep(clamp_t(u64, held_us, 100, USEC_PER_SEC / 2));
			return;
		case LRAID_PACE_WAIT:
			wait_event_idle_timeout(a->sync_wait,
						READ_ONCE(a->sync_abort), HZ / 2);
			break;
		}
	}
}

/* Why the pass cannot go on with the members it has, or NULL. */
static const char *lraid_sync_lost(struct lraid_sync *s)
{
	struct lraid_array *a = s->a;

	if (s->action != LRAID_SYNC_RECOVER)
		return READ_ONCE(a->failed) ? "a member failed" : NULL;
	if (!test_bit(s->role, &a->rebuilding))
		return "the new member failed";
	if (READ_ONCE(a->failed) != s->failed)
		return LRAID_WHY_OTHER_FAILED;
	/* failed after the add checked it, before the pass sampled it */
	if (lraid_array_lost(a))
		return "more members failed than parity covers";
	return NULL;
}

static int lraid_sync_start_locked(struct lraid_array *a, u8 action,
				   unsigned int role);

static void lraid_sync_work(struct work_struct *work)
{
	struct lraid_array *a = container_of(work, struct lraid_array,
					     sync_work);
	const struct lraid_geom *g = &a->geom;
	const char *why = NULL, *name;
	struct lraid_sync *s;
	bool resynced = false, resync = false, by_bitmap = false, readd;
	bool kick = true;
	u8 action;
	u64 stripe;
	u32 off, dirty, regions;

	mutex_lock(&a->sync_mutex);
	action = a->sync_action;
	readd = action == LRAID_SYNC_RECOVER && a->sync_readd;
	/* a rebuild a stop interrupted goes on where it got to */
	stripe = 0;
	if (action == LRAID_SYNC_RECOVER && !readd)
		stripe = a->sync_from >> g->chunk_shift;
	mutex_unlock(&a->sync_mutex);
	name = lraid_sync_names[action];

	s = lraid_sync_alloc(a, action);
	if (!s) {
		why = "out of memory";
		goto out;
	}
	s->role = READ_ONCE(a->sync_role);
	s->failed = READ_ONCE(a->failed);
	/* a resync goes on where the last one stopped (resync_offset) */
	if (action == LRAID_SYNC_RESYNC)
		stripe = READ_ONCE(a->synced_stripes);
	lraid_sync_pace_start(s, stripe << g->chunk_shift);
	if (stripe && action == LRAID_SYNC_RECOVER)
		pr_info("%s: recover started: rebuilding role %u from sector %llu of %llu (a stop interrupted the rebuild there)\n",
			a->disk->disk_name, s->role,
			(unsigned long long)stripe << g->chunk_shift,
			(unsigned long long)g->member_sectors);
	else if (stripe)
		pr_info("%s: %s started at sector %llu of %llu (the last one stopped there)\n",
			a->disk->disk_name, name,
			(unsigned long long)stripe << g->chunk_shift,
			(unsigned long long)g->member_sectors);
	else if (readd && lraid_bitmap_scope(a, false, &dirty, &regions))
		pr_info("%s: recover started: re-adding role %u, rebuilding the %u of %u bitmap regions written while it was out\n",
			a->disk->disk_name, s->role, dirty, regions);
	else if (action == LRAID_SYNC_RECOVER)
		pr_info("%s: recover started: rebuilding role %u\n",
			a->disk->disk_name, s->role);
	else
		pr_info("%s: %s started\n", a->disk->disk_name, name);
	if (action == LRAID_SYNC_RESYNC &&
	    lraid_bitmap_scope(a, true, &dirty, &regions))
		pr_info("%s: resync: %u of %u bitmap regions dirty\n",
			a->disk->disk_name, dirty, regions);
	/* as md: pollers of sync_action wake when a pass starts (monitor) */
	sysfs_notify(&disk_to_dev(a->disk)->kobj, "lraid", "sync_action");
	/*
	 * A region whose bit is clear had no write in flight at the crash,
	 * and none while a re-added member was out (lraid_bitmap.c).
	 */
	by_bitmap = readd ? lraid_bitmap_scope(a, false, &dirty, &regions) :
		    action == LRAID_SYNC_RESYNC &&
		    lraid_bitmap_scope(a, true, &dirty, &regions);
	for (; stripe < g->nr_stripes; stripe++) {
		ktime_t held;
		u64 next;

		if (READ_ONCE(a->sync_abort)) {
			why = "interrupted";
			break;
		}
		if (by_bitmap && !lraid_bitmap_dirty(a, stripe, &next)) {
			u64 skip;

			next = min(next, g->nr_stripes);
			/* not done at any speed: out of the pacing window */
			skip = (next - stripe) << g->chunk_shift;
			s->d0 += skip;
			s->d1 += skip;
			WRITE_ONCE(a->sync_mark_done, s->d0);
			WRITE_ONCE(a->sync_done, next << g->chunk_shift);
			if (!s->skipped && next > READ_ONCE(a->synced_stripes))
				WRITE_ONCE(a->synced_stripes, next);
			stripe = next - 1;
			continue;
		}
		s->range.s0 = stripe;
		s->range.s1 = stripe + 1;
		lraid_drange_begin(a, &s->range);
		held = ktime_get();
		/*
		 * Under the range: a member that failed since may have been
		 * removed (lraid_array_remove() closes a failed member, not
		 * being rebuilt, under a range over every stripe).
		 */
		why = lraid_sync_lost(s);
		for (off = 0; off < g->chunk_sectors && !why;
		     off += s->slice_pages << (PAGE_SHIFT - SECTOR_SHIFT))
			why = action == LRAID_SYNC_RECOVER ?
			      lraid_sync_recover_slice(s, stripe, off,
						       s->slice_pages) :
			      lraid_sync_slice(s, stripe, off, s->slice_pages);
		lraid_drange_end(a, &s->range);
		if (why)
			break;
		held = ktime_sub(ktime_get(), held);
		WRITE_ONCE(a->sync_done, (stripe + 1) << g->chunk_shift);
		/* writes there may update parity in place (RMW) again */
		if (lraid_sync_writes(action) && !s->skipped &&
		    stripe + 1 > READ_ONCE(a->synced_stripes))
			WRITE_ONCE(a->synced_stripes, stripe + 1);
		lraid_sync_throttle(s, ktime_to_us(held));
		cond_resched();
	}
	if (!why && action == LRAID_SYNC_RECOVER)
		why = lraid_array_recovered(a, s->role, s->failed);
out:
	if (why && action == LRAID_SYNC_RECOVER) {
		/*
		 * Stopped by the array's stop, not by a failure: the stop
		 * records how far it got in the new member's superblock
		 * (lraid_array_teardown()), and the next assemble goes on
		 * from there. Everything below was written, and every write
		 * since reached the member (it was rebuilding).
		 */
		mutex_lock(&a->sync_mutex);
		if (s && !readd && a->sync_dead && !lraid_sync_lost(s)) {
			a->resume_role = a->sync_role;
			a->resume_sector = stripe << g->chunk_shift;
		}
		mutex_unlock(&a->sync_mutex);
		clear_bit(a->sync_role, &a->rebuilding);
		/*
		 * What a->spare_work may do next: a rebuild the failed set
		 * changed under goes on from the start onto the same
		 * device, one whose device failed gets a spare; after
		 * anything else (a survivor's unreadable block, no memory)
		 * a new pass would stop where this one did (md's
		 * recovery_disabled): the role waits for lraidctl add.
		 */
		kick = !strcmp(why, LRAID_WHY_OTHER_FAILED) ||
		       !test_bit(a->sync_role, &a->added);
		pr_warn("%s: recover stopped at stripe %llu of %llu: %s; role %u stays failed\n",
			a->disk->disk_name, (unsigned long long)stripe,
			(unsigned long long)g->nr_stripes, why, a->sync_role);
	} else if (why) {
		pr_warn("%s: %s stopped at stripe %llu of %llu: %s; %llu mismatched sectors until then\n",
			a->disk->disk_name, name, (unsigned long long)stripe,
			(unsigned long long)g->nr_stripes, why,
			(unsigned long long)atomic64_read(&a->mismatches));
	} else if (action == LRAID_SYNC_RECOVER) {
		/* lraid_array_recovered() said which device */
		if (s->corrected)
			pr_info("%s: recover corrected read errors in %llu slices\n",
				a->disk->disk_name,
				(unsigned long long)s->corrected);
		/*
		 * Parity not known to be in sync (an unclean or forced start):
		 * the rebuild made the role agree with P, or with Q, not
		 * always with both. With every member back, resync, as md
		 * follows a recovery with the resync it could not run.
		 */
		resync = READ_ONCE(a->unsynced) && !READ_ONCE(a->failed) &&
			 READ_ONCE(auto_resync);
	} else {
		if (lraid_sync_writes(action) && !s->skipped) {
			mutex_lock(&a->sb_mutex);
			resynced = a->unsynced;
			WRITE_ONCE(a->unsynced, false);	/* writes read it */
			mutex_unlock(&a->sb_mutex);
		}
		pr_info("%s: %s done: %llu mismatched sectors%s%s\n",
			a->disk->disk_name, name,
			(unsigned long long)atomic64_read(&a->mismatches),
			lraid_sync_writes(action) ? " rewritten" : "",
			resynced ? "; parity resynced, the next stop marks the array clean" : "");
		if (s->corrected)
			pr_info("%s: %s corrected read errors in %llu slices\n",
				a->disk->disk_name, name,
				(unsigned long long)s->corrected);
		if (s->skipped)
			pr_warn("%s: %s skipped %llu slices for read errors it could not correct\n",
				a->disk->disk_name, name,
				(unsigned long long)s->skipped);
	}
	if (s)
		lraid_sync_free(s);
	mutex_lock(&a->sync_mutex);
	WRITE_ONCE(a->sync_action, LRAID_SYNC_NONE);
	/*
	 * Straight from recover to resync, so no one waiting for the pass
	 * sees idle in between. A stop or idle request that came first
	 * (sync_dead, sync_abort) keeps it from starting; one that comes
	 * after finds this work queued again and waits for it too.
	 */
	if (resync && !a->sync_abort &&
	    !lraid_sync_start_locked(a, LRAID_SYNC_RESYNC, 0))
		pr_info("%s: resync after the rebuild: parity was not known to be in sync\n",
			a->disk->disk_name);
	/*
	 * A role still failed (another failed meanwhile, or this rebuild's
	 * device did) gets a spare now; not after idle, which asked for no
	 * pass, nor after a rebuild that would stop again (kick).
	 */
	if (!a->sync_abort && kick)
		__lraid_spare_kick(a);
	mutex_unlock(&a->sync_mutex);
	/* as md: pollers of sync_action wake when a pass ends */
	sysfs_notify(&disk_to_dev(a->disk)->kobj, "lraid", "sync_action");
}

void lraid_sync_init(struct lraid_array *a)
{
	mutex_init(&a->sync_mutex);
	INIT_WORK(&a->sync_work, lraid_sync_work);
	init_waitqueue_head(&a->sync_wait);
	atomic64_set(&a->mismatches, 0);
	a->resume_role = U8_MAX;
}

/* Start a pass, under sync_mutex. */
static int lraid_sync_start_locked(struct lraid_array *a, u8 action,
				   unsigned int role)
{
	unsigned long failed;
	int ret = 0;

	lockdep_assert_held(&a->sync_mutex);
	failed = READ_ONCE(a->failed);
	if (a->sync_dead) {
		ret = -ENODEV;
	} else if (a->sync_action) {
		ret = -EBUSY;
	} else if (failed && action != LRAID_SYNC_RECOVER) {
		pr_warn("%s: %s refused: the array is degraded (roles %*pbl failed or missing), a pass needs every member\n",
			a->disk->disk_name, lraid_sync_names[action],
			LRAID_MAX_MEMBERS, &failed);
		ret = -EBUSY;
	} else {
		WRITE_ONCE(a->sync_action, action);
		WRITE_ONCE(a->sync_role, role);
		a->sync_readd = false;
		a->sync_from = 0;
		WRITE_ONCE(a->last_sync, action);	/* as md: at the start */
		WRITE_ONCE(a->sync_abort, false);
		WRITE_ONCE(a->sync_done, 0);
		WRITE_ONCE(a->sync_mark_done, 0);
		WRITE_ONCE(a->sync_mark, jiffies);
		atomic64_set(&a->mismatches, 0);
		queue_work(system_long_wq, &a->sync_work);
	}
	return ret;
}

static int lraid_sync_start(struct lraid_array *a, u8 action,
			    unsigned int role)
{
	int ret;

	mutex_lock(&a->sync_mutex);
	ret = lraid_sync_start_locked(a, action, role);
	mutex_unlock(&a->sync_mutex);
	return ret;
}

/*
 * Assemble started an array that was not stopped cleanly (or that --force
 * started with members it took back), with every member: resync it, as md
 * does, unless auto_resync is N. Under the index lock, the disk live.
 */
void lraid_sync_resync(struct lraid_array *a)
{
	if (!READ_ONCE(auto_resync)) {
		pr_warn("%s: not resynced (auto_resync is N): run a repair pass (echo repair > /sys/block/%s/lraid/sync_action)\n",
			a->disk->disk_name, a->disk->disk_name);
		return;
	}
	if (lraid_sync_start(a, LRAID_SYNC_RESYNC, 0))
		pr_warn("%s: resync not started: run a repair pass\n",
			a->disk->disk_name);
}

/*
 * Rebuild @role, given to an added device (lraid_array_add(), which set
 * its bit in a->rebuilding), from the other members: where the bitmap
 * has bits if @readd, else from member sector @from (a chunk boundary:
 * 0, or where a stop interrupted it) to the end. Under the index lock,
 * the disk live.
 */
int lraid_sync_recover(struct lraid_array *a, unsigned int role, bool readd,
		       u64 from)
{
	int ret;

	mutex_lock(&a->sync_mutex);
	ret = lraid_sync_start_locked(a, LRAID_SYNC_RECOVER, role);
	/* the pass reads them under sync_mutex */
	if (!ret) {
		a->sync_readd = readd;
		a->sync_from = from;
	}
	mutex_unlock(&a->sync_mutex);
	return ret;
}

/* Does a pass run? (Under the index lock: only sysfs starts one without.) */
bool lraid_sync_busy(struct lraid_array *a)
{
	return READ_ONCE(a->sync_action) != LRAID_SYNC_NONE;
}

/* Interrupt the pass, if one runs, and wait for it to end. */
static void lraid_sync_interrupt(struct lraid_array *a, bool dead)
{
	mutex_lock(&a->sync_mutex);
	if (dead)
		a->sync_dead = true;
	WRITE_ONCE(a->sync_abort, true);
	mutex_unlock(&a->sync_mutex);
	wake_up(&a->sync_wait);
	flush_work(&a->sync_work);
}

/* Before the disk leaves sysfs: no pass runs or starts after this. */
void lraid_sync_stop(struct lraid_array *a)
{
	lraid_sync_interrupt(a, true);
}

static struct lraid_array *lraid_sync_array(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t sync_action_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct lraid_array *a = lraid_sync_array(dev);
	u8 action = READ_ONCE(a->sync_action);

	return sysfs_emit(buf, "%s\n",
			  action ? lraid_sync_names[action] : "idle");
}

static ssize_t sync_action_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	struct lraid_array *a = lraid_sync_array(dev);
	int ret;

	if (sysfs_streq(buf, "idle") || sysfs_streq(buf, "frozen")) {
		lraid_sync_interrupt(a, false);
		return len;
	}
	if (sysfs_streq(buf, "check"))
		ret = lraid_sync_start(a, LRAID_SYNC_CHECK, 0);
	else if (sysfs_streq(buf, "repair"))
		ret = lraid_sync_start(a, LRAID_SYNC_REPAIR, 0);
	else
		ret = -EINVAL;
	return ret ? ret : len;
}
DEVICE_ATTR_RW(sync_action);

static ssize_t last_sync_action_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  lraid_sync_names[READ_ONCE(lraid_sync_array(dev)->last_sync)]);
}
DEVICE_ATTR_RO(last_sync_action);

static ssize_t mismatch_cnt_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  (unsigned long long)atomic64_read(&lraid_sync_array(dev)->mismatches));
}
DEVICE_ATTR_RO(mismatch_cnt);

/* as md's: member sectors done and in all, or "none" */
static ssize_t sync_completed_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct lraid_array *a = lraid_sync_array(dev);

	if (!READ_ONCE(a->sync_action))
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%llu / %llu\n",
			  (unsigned long long)READ_ONCE(a->sync_done),
			  (unsigned long long)a->geom.member_sectors);
}
DEVICE_ATTR_RO(sync_completed);

/* as md's: KiB/s per member over the last 3 to 6 seconds, or "none" */
static ssize_t sync_speed_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct lraid_array *a = lraid_sync_array(dev);
	unsigned long secs;
	u64 done, mark;

	if (!READ_ONCE(a->sync_action))
		return sysfs_emit(buf, "none\n");
	secs = (jiffies - READ_ONCE(a->sync_mark)) / HZ ?: 1;
	/* done before the mark, which the pass moves first */
	done = READ_ONCE(a->sync_done);
	mark = READ_ONCE(a->sync_mark_done);
	/* read apart from the mark: never a wrapped speed */
	done = done > mark ? done - mark : 0;
	return sysfs_emit(buf, "%llu\n",
			  (unsigned long long)div_u64(done >> 1, secs));
}
DEVICE_ATTR_RO(sync_speed);

/* as md's: "N (system)" or "N (local)"; take N > 0, or "system" */
static ssize_t lraid_speed_show(char *buf, u32 local, u32 system)
{
	return sysfs_emit(buf, "%u (%s)\n", local ?: system,
			  local ? "local" : "system");
}

static int lraid_speed_store(const char *buf, u32 *limit)
{
	u32 v;
	int ret;

	if (sysfs_streq(buf, "system")) {
		WRITE_ONCE(*limit, 0);
		return 0;
	}
	ret = kstrtou32(buf, 10, &v);
	if (ret)
		return ret;
	if (!v)
		return -EINVAL;
	WRITE_ONCE(*limit, v);
	return 0;
}

static ssize_t sync_speed_min_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct lraid_array *a = lraid_sync_array(dev);

	return lraid_speed_show(buf, READ_ONCE(a->sync_speed_min),
				READ_ONCE(speed_limit_min));
}

static ssize_t sync_speed_min_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	int ret = lraid_speed_store(buf, &lraid_sync_array(dev)->sync_speed_min);

	return ret ? ret : len;
}
DEVICE_ATTR_RW(sync_speed_min);

static ssize_t sync_speed_max_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct lraid_array *a = lraid_sync_array(dev);

	return lraid_speed_show(buf, READ_ONCE(a->sync_speed_max),
				READ_ONCE(speed_limit_max));
}

static ssize_t sync_speed_max_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	int ret = lraid_speed_store(buf, &lraid_sync_array(dev)->sync_speed_max);

	return ret ? ret : len;
}
DEVICE_ATTR_RW(sync_speed_max);
