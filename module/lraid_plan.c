// SPDX-License-Identifier: GPL-2.0
/*
 * lraid stripe planning: which rows of which members one write piece must
 * read and write, and whether read-modify-write or reconstruct-write reads
 * less; and how fast a check, repair or resync pass may go. Pure
 * arithmetic, callable from any context and compiled unchanged in
 * userspace (lraid_user.h) for the host run of kunit/stripe_kunit.c.
 */
#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#endif

#include "lraid_plan.h"

static inline u32 lraid_umin(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 lraid_umax(u32 a, u32 b)
{
	return a > b ? a : b;
}

static inline u32 lraid_uclamp(u32 v, u32 lo, u32 hi)
{
	return lraid_umin(lraid_umax(v, lo), hi);
}

u32 lraid_win_sectors(const struct lraid_geom *g)
{
	return lraid_umin(g->chunk_sectors, LRAID_WIN_SECTORS_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_win_sectors);

/*
 * Plan the write of stripe-relative logical sectors [lo, hi) restricted to
 * window @win: per data index the rows written, the touched row range, the
 * reads of read-modify-write (old data + old parity over the touched rows)
 * and of reconstruct-write (the data not written over the touched rows),
 * and the cheaper of the two. All data rows written: full-stripe write.
 */
void lraid_plan_window(const struct lraid_geom *g, u32 win, u32 lo, u32 hi,
		       struct lraid_plan *p)
{
	u32 wsec = lraid_win_sectors(g);
	u32 c = g->chunk_sectors;
	u32 di, rows;

	memset(p, 0, sizeof(*p));
	p->w0 = win * wsec;
	p->w1 = p->w0 + wsec;
	p->r0 = p->w1;
	p->r1 = p->w0;
	p->nr_parity = g->level == 6 ? 2 : 1;
	for (di = 0; di < g->nr_data; di++) {
		u32 base = di * c;
		u32 s = lraid_uclamp(lo, base + p->w0, base + p->w1) - base;
		u32 e = lraid_uclamp(hi, base + p->w0, base + p->w1) - base;

		if (s >= e) {
			p->s[di] = p->w0;
			p->e[di] = p->w0;
			continue;
		}
		p->s[di] = s;
		p->e[di] = e;
		p->written += e - s;
		p->r0 = lraid_umin(p->r0, s);
		p->r1 = lraid_umax(p->r1, e);
	}
	if (!p->written) {
		p->r0 = p->w0;
		p->r1 = p->w0;
		p->mode = LRAID_PLAN_FULL;
		return;
	}
	rows = p->r1 - p->r0;
	p->rmw_reads = p->written + p->nr_parity * rows;
	p->rcw_reads = g->nr_data * rows - p->written;
	p->writes = p->written + p->nr_parity * rows;
	if (!p->rcw_reads) {
		p->mode = LRAID_PLAN_FULL;
		p->reads = 0;
	} else if (p->rmw_reads < p->rcw_reads) {
		p->mode = LRAID_PLAN_RMW;
		p->reads = p->rmw_reads;
	} else {
		p->mode = LRAID_PLAN_RCW;
		p->reads = p->rcw_reads;
	}
}
EXPORT_SYMBOL_IF_KUNIT(lraid_plan_window);

/*
 * Can a read-modify-write of @p in @stripe leave out the members in
 * @failed? Only if none of them holds P, Q or a data block it writes: RMW
 * then touches no failed member, and reads less than the degraded
 * reconstruct-write (every survivor over the touched rows) ever does.
 */
bool lraid_plan_rmw_avoids(const struct lraid_geom *g, u64 stripe,
			   const struct lraid_plan *p, u32 failed)
{
	unsigned int qm = lraid_geom_q_member(g, stripe);
	unsigned int di;

	if (p->mode == LRAID_PLAN_FULL ||
	    failed & (1u << lraid_geom_p_member(g, stripe)))
		return false;
	if (qm != LRAID_NO_MEMBER && (failed & (1u << qm)))
		return false;
	for (di = 0; di < g->nr_data; di++)
		if (p->s[di] < p->e[di] &&
		    (failed & (1u << lraid_geom_data_member(g, stripe, di))))
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_plan_rmw_avoids);

/*
 * md's pacing of a resync, in KiB of member data per second: @kib done
 * over the last @secs whole seconds makes the speed (one more second, and
 * one more KiB, as md counts: never a division by zero, never 0). Up to
 * @min it goes on whatever else the array does; above @max it waits;
 * between the two it yields to other I/O (@busy: the array served some
 * since the last stripe), as md's does when its members are not idle.
 */
enum lraid_pace lraid_sync_pace(u64 kib, u32 secs, u32 min, u32 max,
				bool busy)
{
	u64 speed = div_u64(kib, secs < U32_MAX ? secs + 1 : secs) + 1;

	if (speed <= min)
		return LRAID_PACE_GO;
	if (speed > max)
		return LRAID_PACE_WAIT;
	return busy ? LRAID_PACE_YIELD : LRAID_PACE_GO;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_sync_pace);
