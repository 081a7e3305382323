/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lraid stripe planning (pure, see lraid_plan.c).
 *
 * Writes are carried out per parity window: rows [win * W, (win + 1) * W)
 * of one stripe, W = min(chunk, LRAID_WIN_SECTORS_MAX) sectors. A window is
 * the unit of write serialization and of buffering.
 */
#ifndef LRAID_PLAN_H
#define LRAID_PLAN_H

#include "lraid_geom.h"

#define LRAID_WIN_SECTORS_MAX	128u	/* 64 KiB */

/*
 * Stripe planning (pure, see lraid_plan.c): what one write piece over one
 * parity window of one stripe must read and write. Rows are sector offsets
 * inside the chunk; data index di is written over rows [s[di], e[di]).
 */
enum lraid_plan_mode {
	LRAID_PLAN_FULL,	/* every data row written: no reads */
	LRAID_PLAN_RCW,		/* read the unwritten data, regenerate P/Q */
	LRAID_PLAN_RMW,		/* read old data and P/Q, update P/Q */
};

struct lraid_plan {
	u32 w0, w1;		/* window rows */
	u32 r0, r1;		/* rows touched by the write, inside window */
	u32 s[LRAID_MAX_MEMBERS];
	u32 e[LRAID_MAX_MEMBERS];
	u32 written;		/* sectors of new data */
	u32 reads;		/* sectors read by the chosen mode */
	u32 writes;		/* sectors written (data + parity) */
	u32 rmw_reads;
	u32 rcw_reads;
	u8 mode;		/* enum lraid_plan_mode */
	u8 nr_parity;
};

u32 lraid_win_sectors(const struct lraid_geom *g);
void lraid_plan_window(const struct lraid_geom *g, u32 win, u32 lo, u32 hi,
		       struct lraid_plan *p);
bool lraid_plan_rmw_avoids(const struct lraid_geom *g, u64 stripe,
			   const struct lraid_plan *p, u32 failed);

/* What a check, repair or resync pass does before its next stripe. */
enum lraid_pace {
	LRAID_PACE_GO,		/* go on */
	LRAID_PACE_YIELD,	/* pause as long as the last stripe took */
	LRAID_PACE_WAIT,	/* too fast: wait, then ask again */
};

enum lraid_pace lraid_sync_pace(u64 kib, u32 secs, u32 min, u32 max,
				bool busy);

#endif /* LRAID_PLAN_H */
