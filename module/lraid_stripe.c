// SPDX-License-Identifier: GPL-2.0
/*
 * lraid write path: stripe planning (pure), the per-CPU workers, the
 * sharded table of windows in flight, and the full-stripe / RCW / RMW
 * state machine of one write piece.
 *
 * Life of a write piece (struct lraid_wreq) on worker W:
 *   incoming llist -> lraid_op_acquire(): take a free op, look the window
 *   up in its shard; if another op holds it, queue behind it (it will start
 *   us when done), else the op now holds the window -> lraid_op_start():
 *   plan, get pages, issue reads -> (reads done: done llist) ->
 *   lraid_ops_write(): parity of the ops whose reads finished, together in
 *   one lraid_gf_begin/end section, then lraid_op_write(): issue writes ->
 *   (writes done: done llist) -> lraid_op_finish(): complete the caller's
 *   bio, hand the window to the next waiter or drop it from the table.
 *
 * Degraded (a member failed, or a read piece on a failed member): the op
 * reads every surviving member over the touched rows, rebuilds the failed
 * data blocks with the gf recovery functions, then either copies the rows
 * asked for into the reader's bio, or merges the new data and regenerates
 * P/Q (reconstruct-write) and writes every surviving member it touched.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "lraid.h"
#include "lraid_gf.h"

/*
 * Y (the default): a write's data is copied into the op's pages first,
 * and parity and the member writes both come from that copy, as md does
 * unless skip_copy is set. A writer that changes its buffer while the
 * write is in flight then cannot leave parity that disagrees with the
 * data, which a later rebuild of another member would turn into wrong
 * data there: O_DIRECT from a program or a VM guest that reuses buffers
 * early, or a file system that changes a metadata buffer in place while
 * it is written (ext2's and ext4's bitmaps without a journal: stable
 * writes make only writers that wait for them wait). N: zero-copy,
 * parity straight from the caller's pages, for arrays started while it
 * is N (they declare stable writes), unless stable writes were turned off
 * in sysfs (queue/stable_writes 0) since: then the page cache may change
 * a page under writeback too, and every write is copied
 * (lraid_check_stable()).
 */
static bool copy_writes = true;
module_param(copy_writes, bool, 0644);
MODULE_PARM_DESC(copy_writes,
		 "Compute parity from, and write, a private copy of each write's data (default Y; N: from the caller's pages, for writers that never change a buffer in flight)");

/*
 * Whether a starting array declares stable writes: only if copy_writes is
 * N, as md declares them only with skip_copy. They make the page cache
 * wait for a page's write before it changes the page again, which a
 * writer of copied data need not do (with background writeback running,
 * 4 KiB buffered rewrites of a small file on ext4 lost 32-40 % of their
 * rate to that wait, and mmap writes half). Without them every write is
 * copied until the array stops, even if copy_writes is set to N later:
 * what mounted or opened the disk meanwhile would not wait.
 */
bool lraid_stripe_stable_writes(struct lraid_array *a)
{
	if (!READ_ONCE(copy_writes))
		return true;
	set_bit(0, &a->copy_all);
	return false;
}

/*
 * A file system takes the stable-writes flag at mount, the disk's own
 * page cache when the disk is added, a stacked device with its limits:
 * once the flag was off, something may go on changing pages in flight
 * after it is turned back on. Seen off once (at a write, or at an open,
 * which is where a mount or a new stacked device picks the flag up), the
 * array copies every write until it stops. Best effort: a reader of the
 * flag that neither opens nor writes lraid meanwhile is not seen.
 */
void lraid_check_stable(struct lraid_array *a)
{
	if (test_bit(0, &a->copy_all) || bdev_stable_writes(a->disk->part0) ||
	    test_and_set_bit(0, &a->copy_all))
		return;
	pr_info("lraid%d: stable writes are off: every write is copied until the array stops\n",
		a->index);
}

#define LRAID_ROWS_PER_PAGE	(PAGE_SIZE >> SECTOR_SHIFT)

/* ---- buffers ---- */

static inline u32 lraid_pg(const struct lraid_plan *p, u32 row)
{
	return (row - p->w0) / LRAID_ROWS_PER_PAGE;
}

static void lraid_op_free_pages(struct lraid_op *op, unsigned int nr_members)
{
	struct lraid_worker *w = op->w;
	unsigned int m, i;

	for (m = 0; m < nr_members; m++) {
		for (i = 0; i < LRAID_WIN_PAGES; i++) {
			struct page *page = op->pages[m][i];

			if (!page)
				continue;
			op->pages[m][i] = NULL;
			if (w->nr_free_pages < ARRAY_SIZE(w->free_pages))
				w->free_pages[w->nr_free_pages++] = page;
			else
				mempool_free(page, w->pages);
		}
	}
}

static int lraid_op_get_pages(struct lraid_op *op, unsigned int m,
			      u32 r0, u32 r1)
{
	u32 i;

	if (r0 >= r1)
		return 0;
	for (i = lraid_pg(&op->plan, r0); i <= lraid_pg(&op->plan, r1 - 1); i++) {
		if (op->pages[m][i])
			continue;
		if (op->w->nr_free_pages) {
			op->pages[m][i] =
				op->w->free_pages[--op->w->nr_free_pages];
			continue;
		}
		op->pages[m][i] = mempool_alloc(op->w->pages,
						GFP_NOWAIT | __GFP_NOWARN);
		if (!op->pages[m][i])
			return -ENOMEM;
	}
	return 0;
}

/* ---- member bios ---- */

static void lraid_op_endio(struct bio *bio)
{
	struct lraid_op *op = bio->bi_private;
	struct lraid_worker *w = op->w;

	if (bio->bi_status) {
		unsigned int m = container_of(bio, struct lraid_clone,
					      bio)->member;

		if (op->phase == LRAID_OP_REREAD) {
			/* lraid_op_reread_done() judges the member */
			atomic_or(BIT(m), &op->err_members);
		} else if (op->phase == LRAID_OP_REPAIR) {
			/* the reader has its data; the member fails, not it */
			lraid_member_write_error(w->a, m, bio->bi_status);
			atomic_or(BIT(m), &op->err_members);
		} else if (!op_is_write(bio_op(bio)) ||
			   !lraid_member_write_error(w->a, m, bio->bi_status)) {
			/* a write stands once its failing member is failed */
			WRITE_ONCE(op->status, bio->bi_status);
			atomic_or(BIT(m), &op->err_members);
		}
	}
	bio_put(bio);
	if (atomic_dec_and_test(&op->pending)) {
		/*
		 * Once the op is on the list, the worker may finish it and the
		 * array may stop before the wake-up: lraid_stripe_exit() waits
		 * for this read-side section before freeing the worker.
		 */
		rcu_read_lock();
		if (llist_add(&op->done, &w->done))
			wake_up_process(w->task);
		rcu_read_unlock();
	}
}

/* Send @bio, from a->io_bs or a->clone_bs, to member @m for @op. */
static void lraid_op_submit(struct lraid_op *op, struct bio *bio,
			    unsigned int m)
{
	container_of(bio, struct lraid_clone, bio)->member = m;
	bio->bi_private = op;
	bio->bi_end_io = lraid_op_endio;
	atomic_inc(&op->pending);
	submit_bio_noacct(bio);
}

/* Read or write rows [r0, r1) of member @m from/to the op's pages. */
static void lraid_op_page_io(struct lraid_op *op, unsigned int m, u32 r0,
			     u32 r1, blk_opf_t opf)
{
	struct lraid_array *a = op->w->a;
	const struct lraid_plan *p = &op->plan;
	unsigned int nvec = lraid_pg(p, r1 - 1) - lraid_pg(p, r0) + 1;
	struct bio *bio;
	u32 r = r0;

	if (r0 >= r1)
		return;
	bio = bio_alloc_bioset(a->members[m].b.bdev, nvec, opf, GFP_NOIO,
			       &a->io_bs);
	bio->bi_iter.bi_sector = a->data_offset +
		op->wr->stripe * a->geom.chunk_sectors + r0;
	while (r < r1) {
		u32 off = (r - p->w0) % LRAID_ROWS_PER_PAGE;
		u32 n = min(r1 - r, LRAID_ROWS_PER_PAGE - off);

		__bio_add_page(bio, op->pages[m][lraid_pg(p, r)],
			       n << SECTOR_SHIFT, off << SECTOR_SHIFT);
		r += n;
	}
	lraid_op_submit(op, bio, m);
}

/*
 * Fill @bio, allocated with DIV_ROUND_UP(@sectors, LRAID_ROWS_PER_PAGE)
 * vecs, with @sectors of the zero page.
 */
void lraid_bio_add_zeroes(struct bio *bio, u32 sectors)
{
	while (sectors) {
		u32 n = min_t(u32, sectors, LRAID_ROWS_PER_PAGE);

		__bio_add_page(bio, ZERO_PAGE(0), n << SECTOR_SHIFT, 0);
		sectors -= n;
	}
}

/* Write the new data of data index @di, rows [s, e), to member @m. */
static void lraid_op_data_write(struct lraid_op *op, unsigned int di,
				unsigned int m, u32 s, u32 e)
{
	struct lraid_array *a = op->w->a;
	struct lraid_wreq *wr = op->wr;
	sector_t msec = a->data_offset + wr->stripe * a->geom.chunk_sectors + s;
	blk_opf_t opf = REQ_OP_WRITE | wr->opf;
	struct bio *bio;

	if (wr->flags & LRAID_WREQ_ZERO) {
		bio = bio_alloc_bioset(a->members[m].b.bdev,
				       DIV_ROUND_UP(e - s, LRAID_ROWS_PER_PAGE),
				       opf, GFP_NOIO, &a->io_bs);
		lraid_bio_add_zeroes(bio, e - s);
	} else {
		u64 off = (u64)(di * a->geom.chunk_sectors + s) - wr->bio_lo;

		bio = bio_alloc_clone(a->members[m].b.bdev, wr->bio, GFP_NOIO,
				      &a->clone_bs);
		bio_trim(bio, off, e - s);
		bio->bi_opf = opf;
	}
	bio->bi_iter.bi_sector = msec;
	lraid_op_submit(op, bio, m);
}

/* ---- parity ---- */

/* A cursor over the new data of one data index. */
struct lraid_src {
	struct bvec_iter it;
	bool zero;
};

/*
 * Per-worker scratch for the parity loops: kept off the stack, which the
 * kernel may zero on every call (CONFIG_INIT_STACK_ALL_ZERO).
 */
struct lraid_scratch {
	struct lraid_src src[LRAID_MAX_MEMBERS];
	void *ptr[LRAID_MAX_MEMBERS];
	/* copy_writes RMW: the new data while the old is still needed */
	u8 data[PAGE_SIZE] __aligned(64);
};

static void lraid_src_init(struct lraid_src *src, const struct lraid_op *op,
			   unsigned int di, u32 row)
{
	const struct lraid_wreq *wr = op->wr;
	u64 off = (u64)(di * op->w->a->geom.chunk_sectors + row) - wr->bio_lo;

	src->zero = wr->flags & LRAID_WREQ_ZERO;
	if (src->zero)
		return;
	src->it = wr->bio->bi_iter;
	bio_advance_iter(wr->bio, &src->it, off << SECTOR_SHIFT);
}

/* Address and contiguous length (bytes) of the cursor's position. */
static void *lraid_src_ptr(const struct lraid_src *src, struct bio *bio,
			   u32 *len)
{
	struct bio_vec bv;

	if (src->zero) {
		*len = PAGE_SIZE;
		return page_address(ZERO_PAGE(0));
	}
	bv = bio_iter_iovec(bio, src->it);
	*len = bv.bv_len;
	return bvec_virt(&bv);
}

static void lraid_src_advance(struct lraid_src *src, struct bio *bio, u32 len)
{
	if (!src->zero)
		bio_advance_iter_single(bio, &src->it, len);
}

static void *lraid_buf(const struct lraid_op *op, unsigned int m, u32 row,
		       u32 *len)
{
	u32 off = (row - op->plan.w0) % LRAID_ROWS_PER_PAGE;

	*len = (LRAID_ROWS_PER_PAGE - off) << SECTOR_SHIFT;
	return page_address(op->pages[m][lraid_pg(&op->plan, row)]) +
	       (off << SECTOR_SHIFT);
}

static inline bool lraid_written(const struct lraid_plan *p, unsigned int di,
				 u32 row)
{
	return row >= p->s[di] && row < p->e[di];
}

/*
 * P (and Q) over the touched rows from the full data: FULL and RCW. The
 * new data comes from the caller's bio, or from the op's pages when they
 * hold a copy of it (op->copy, lraid_op_copy()).
 */
static void lraid_op_gen(struct lraid_op *op)
{
	const struct lraid_geom *g = &op->w->a->geom;
	const struct lraid_plan *p = &op->plan;
	struct bio *bio = op->wr->bio;
	u64 stripe = op->wr->stripe;
	struct lraid_src *src = op->w->scratch->src;
	void **ptr = op->w->scratch->ptr;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	bool from_bio = !op->copy;
	unsigned int di;
	u32 row = p->r0;

	for (di = 0; di < g->nr_data && from_bio; di++)
		if (lraid_written(p, di, row))
			lraid_src_init(&src[di], op, di, row);

	while (row < p->r1) {
		u32 len, l, n;
		void *pp, *qq = NULL;

		pp = lraid_buf(op, pm, row, &len);
		if (qm != LRAID_NO_MEMBER)
			qq = lraid_buf(op, qm, row, &l);
		for (di = 0; di < g->nr_data; di++) {
			unsigned int m = lraid_geom_data_member(g, stripe, di);

			if (from_bio && lraid_written(p, di, row)) {
				ptr[di] = lraid_src_ptr(&src[di], bio, &l);
				/* a written range ends inside this run? */
				l = min(l, (p->e[di] - row) << SECTOR_SHIFT);
			} else {
				ptr[di] = lraid_buf(op, m, row, &l);
				/* new data starts inside this run? */
				if (p->s[di] > row && p->s[di] < p->e[di])
					l = min(l, (p->s[di] - row) << SECTOR_SHIFT);
			}
			len = min(len, l);
		}
		len = min(len, (p->r1 - row) << SECTOR_SHIFT);
		if (qq)
			lraid_gf_gen_pq(g->nr_data, len, ptr, pp, qq);
		else
			lraid_gf_gen_p(g->nr_data, len, ptr, pp);
		n = len >> SECTOR_SHIFT;
		for (di = 0; di < g->nr_data && from_bio; di++) {
			if (!lraid_written(p, di, row))
				continue;
			if (lraid_written(p, di, row + n))
				lraid_src_advance(&src[di], bio, len);
		}
		row += n;
		for (di = 0; di < g->nr_data && from_bio; di++)
			if (row == p->s[di] && p->s[di] < p->e[di])
				lraid_src_init(&src[di], op, di, row);
	}
}

/*
 * Update P (and Q) in place from old and new data: RMW. With op->copy the
 * new data is taken once into the scratch page and then replaces the old
 * in the op's pages, which the member write is made from.
 */
static void lraid_op_update(struct lraid_op *op)
{
	const struct lraid_geom *g = &op->w->a->geom;
	const struct lraid_plan *p = &op->plan;
	struct bio *bio = op->wr->bio;
	u8 *scratch = op->w->scratch->data;
	u64 stripe = op->wr->stripe;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	unsigned int di;

	for (di = 0; di < g->nr_data; di++) {
		unsigned int m = lraid_geom_data_member(g, stripe, di);
		struct lraid_src src;
		u32 row = p->s[di];

		if (p->s[di] >= p->e[di])
			continue;
		lraid_src_init(&src, op, di, row);
		while (row < p->e[di]) {
			void *old, *new, *pp, *qq = NULL;
			u32 len, l;

			old = lraid_buf(op, m, row, &len);
			new = lraid_src_ptr(&src, bio, &l);
			len = min(len, l);
			pp = lraid_buf(op, pm, row, &l);
			len = min(len, l);
			if (qm != LRAID_NO_MEMBER) {
				qq = lraid_buf(op, qm, row, &l);
				len = min(len, l);
			}
			len = min(len, (p->e[di] - row) << SECTOR_SHIFT);
			if (op->copy) {
				/* one snapshot for parity and the member write */
				memcpy(scratch, new, len);
				new = scratch;
			}
			lraid_gf_update_pq(di, 1, len, &old, &new, pp, qq);
			if (op->copy)
				memcpy(old, scratch, len);
			lraid_src_advance(&src, bio, len);
			row += len >> SECTOR_SHIFT;
		}
	}
}

/* ---- degraded: reconstruction ---- */

/*
 * Rebuild the failed data blocks of the op's stripe over rows [r0, r1) in
 * the op's pages from the surviving members read into them. A read that
 * is to write a P or Q it could not read back (lraid_op_repair()) also
 * regenerates them there; writes regenerate P and Q anyway.
 */
static void lraid_op_recover(struct lraid_op *op)
{
	const struct lraid_geom *g = &op->w->a->geom;
	const struct lraid_plan *p = &op->plan;
	u64 stripe = op->wr->stripe;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	unsigned int fd[2], nfd = 0, di;
	void **ptr = op->w->scratch->ptr;
	bool pf = op->failed & BIT(pm);
	bool regen = false;
	u32 row = p->r0;

	if (op->wr->flags & LRAID_WREQ_READ)
		regen = (op->rewrite & BIT(pm)) ||
			(qm != LRAID_NO_MEMBER && (op->rewrite & BIT(qm)));
	for (di = 0; di < g->nr_data; di++)
		if (op->failed & BIT(lraid_geom_data_member(g, stripe, di)) &&
		    nfd < ARRAY_SIZE(fd))
			fd[nfd++] = di;
	if (!nfd && !regen)
		return;

	while (row < p->r1) {
		void *pp, *qq = NULL;
		u32 len, l;

		pp = lraid_buf(op, pm, row, &len);
		if (qm != LRAID_NO_MEMBER)
			qq = lraid_buf(op, qm, row, &l);
		for (di = 0; di < g->nr_data; di++) {
			unsigned int m = lraid_geom_data_member(g, stripe, di);

			ptr[di] = lraid_buf(op, m, row, &l);
		}
		len = min(len, (p->r1 - row) << SECTOR_SHIFT);
		if (nfd == 2)
			lraid_gf_recov_2data(g->nr_data, len, ptr, fd[0], fd[1],
					     pp, qq);
		else if (nfd && pf && qq)
			lraid_gf_recov_data_q(g->nr_data, len, ptr, fd[0], pp,
					      qq);
		else if (nfd)
			lraid_gf_recov_data_p(g->nr_data, len, ptr, fd[0], pp);
		if (regen && qq)
			lraid_gf_gen_pq(g->nr_data, len, ptr, pp, qq);
		else if (regen)
			lraid_gf_gen_p(g->nr_data, len, ptr, pp);
		row += len >> SECTOR_SHIFT;
	}
}

/*
 * Copy the piece's rows between the op's pages and the caller's bio: into
 * a degraded reader's bio (@out), or a writer's new data into the op's
 * pages (copy_writes).
 */
static void lraid_op_copy(struct lraid_op *op, bool out)
{
	const struct lraid_geom *g = &op->w->a->geom;
	const struct lraid_plan *p = &op->plan;
	struct bio *bio = op->wr->bio;
	unsigned int di;

	for (di = 0; di < g->nr_data; di++) {
		unsigned int m = lraid_geom_data_member(g, op->wr->stripe, di);
		struct lraid_src src;
		u32 row = p->s[di];

		if (p->s[di] >= p->e[di])
			continue;
		lraid_src_init(&src, op, di, row);
		while (row < p->e[di]) {
			void *buf, *ext;
			u32 len, l;

			buf = lraid_buf(op, m, row, &len);
			ext = lraid_src_ptr(&src, bio, &l);
			len = min(len, l);
			len = min(len, (p->e[di] - row) << SECTOR_SHIFT);
			if (out)
				memcpy(ext, buf, len);
			else
				memcpy(buf, ext, len);
			lraid_src_advance(&src, bio, len);
			row += len >> SECTOR_SHIFT;
		}
	}
}

/*
 * Enter @phase: rows [r0, r1) of every member in @mask to or from the
 * op's pages. True if it all completed already: the caller goes on, else
 * the last end_io hands the op back to the worker (lraid_worker_done()).
 */
static bool lraid_op_rows_io(struct lraid_op *op, u32 mask, u8 phase,
			     blk_opf_t opf)
{
	const struct lraid_plan *p = &op->plan;
	unsigned int m;

	op->phase = phase;
	atomic_set(&op->err_members, 0);
	atomic_set(&op->pending, 1);
	for (m = 0; m < op->w->a->geom.nr_members; m++)
		if (mask & BIT(m))
			lraid_op_page_io(op, m, p->r0, p->r1, opf);
	return atomic_dec_and_test(&op->pending);
}

static void lraid_op_write_now(struct lraid_op *op);

/*
 * Degraded start: buffers for every member over the touched rows, reads
 * from every surviving one. Writes become reconstruct-writes.
 */
static int lraid_op_start_degraded(struct lraid_op *op)
{
	struct lraid_array *a = op->w->a;
	const struct lraid_geom *g = &a->geom;
	struct lraid_plan *p = &op->plan;
	unsigned int m;

	if (p->mode != LRAID_PLAN_FULL || (op->wr->flags & LRAID_WREQ_READ))
		p->mode = LRAID_PLAN_RCW;
	for (m = 0; m < g->nr_members; m++) {
		if (lraid_op_get_pages(op, m, p->r0, p->r1)) {
			lraid_op_free_pages(op, g->nr_members);
			return -ENOMEM;
		}
	}
	op->status = BLK_STS_OK;
	/* a full-stripe write reads nothing: every data row is new */
	if (lraid_op_rows_io(op, p->mode == LRAID_PLAN_FULL ? 0 :
			     GENMASK(g->nr_members - 1, 0) & ~op->failed,
			     LRAID_OP_READ, REQ_OP_READ))
		lraid_op_write_now(op);
	return 0;
}

/* ---- op state machine (worker context) ---- */

static void lraid_op_release(struct lraid_op *op);
static void lraid_op_run(struct lraid_op *op, bool fresh);
static void lraid_op_written(struct lraid_op *op);
static void lraid_op_reread_done(struct lraid_op *op);

/* First member sector of rows [r0, r1) of the op's stripe. */
static u64 lraid_op_sector(const struct lraid_op *op)
{
	const struct lraid_array *a = op->w->a;

	return a->data_offset + op->wr->stripe * a->geom.chunk_sectors +
	       op->plan.r0;
}

/*
 * Reads of the op failed on members it did not yet treat as failed. As md
 * does, for reads and writes alike, the op starts again around them if
 * parity still covers them all: it rebuilds their rows from the others
 * and writes them back (lraid_op_start(), which goes degraded), so a
 * sector the drive remaps on write is good again and the member stays in
 * the array. Each such error counts against lraid.max_read_errors.
 */
static bool lraid_op_retry(struct lraid_op *op)
{
	struct lraid_array *a = op->w->a;
	const struct lraid_geom *g = &a->geom;
	u32 more = atomic_read(&op->err_members) & ~op->failed;
	unsigned int m;

	if (op->phase != LRAID_OP_READ || !more)
		return false;
	for (m = 0; m < g->nr_members; m++) {
		if (!(more & BIT(m)))
			continue;
		pr_err_ratelimited("%s: read error %d on %pg (role %u) at sector %llu, rebuilding it from the others\n",
				   a->disk->disk_name,
				   blk_status_to_errno(op->status),
				   a->members[m].b.bdev, m,
				   (unsigned long long)lraid_op_sector(op));
		lraid_count_read_error(a, m);
	}
	if (hweight32(op->failed | more) > g->nr_members - g->nr_data)
		return false;
	op->wr->avoid |= more;
	lraid_op_run(op, false);
	return true;
}

/*
 * A read rebuilt around members that failed to read it, not (yet) marked
 * failed: write the rebuilt rows back to them, as md does, data, P and Q
 * alike (lraid_op_recover() regenerated P and Q). The reader's data is
 * already copied; it completes when the rewrites do. A failing rewrite
 * marks the member failed (lraid_op_endio).
 */
static void lraid_op_repair(struct lraid_op *op)
{
	op->rewrite &= ~READ_ONCE(op->w->a->failed);
	if (lraid_op_rows_io(op, op->rewrite, LRAID_OP_REPAIR, REQ_OP_WRITE))
		lraid_op_written(op);
}

/*
 * The op's writes are done. Members it wrote back after they failed to
 * read are read back, as md does: a drive that could not remap the
 * sectors fails the read again (lraid_op_reread_done()).
 */
static void lraid_op_written(struct lraid_op *op)
{
	struct lraid_array *a = op->w->a;

	if (likely(!op->rewrite) || op->status) {
		lraid_op_release(op);
		return;
	}
	op->rewrite &= ~atomic_read(&op->err_members) & ~READ_ONCE(a->failed);
	/* into pages free to take it: every member has them (degraded) */
	if (lraid_op_rows_io(op, op->rewrite, LRAID_OP_REREAD, REQ_OP_READ))
		lraid_op_reread_done(op);
}

/* The rewritten blocks were read back, or failed to. */
static void lraid_op_reread_done(struct lraid_op *op)
{
	struct lraid_array *a = op->w->a;
	u32 bad = atomic_read(&op->err_members);
	u32 n = op->plan.r1 - op->plan.r0;
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		if (!(op->rewrite & BIT(m)))
			continue;
		if (bad & BIT(m))
			lraid_member_uncorrected(a, m, lraid_op_sector(op), n);
		else
			pr_info_ratelimited("%s: read error corrected (%u sectors at %llu on %pg)\n",
					    a->disk->disk_name, n,
					    (unsigned long long)lraid_op_sector(op),
					    a->members[m].b.bdev);
	}
	lraid_op_release(op);
}

/* Complete the caller bios collected in this pass (see lraid_worker). */
static void lraid_worker_endio(struct lraid_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nr_endio; i++) {
		bio_endio(w->endio[i]);
		percpu_ref_put(&w->a->active);
	}
	w->nr_endio = 0;
}

/*
 * The op's parity work, between lraid_gf_begin() and lraid_gf_end() opened
 * by lraid_ops_write() around a batch of ops: rebuild what failed
 * members held, then update or regenerate P and Q. A read rebuilt around
 * failed members only needs the rebuild.
 */
static void lraid_op_compute(struct lraid_op *op)
{
	const struct lraid_plan *p = &op->plan;

	if (op->status)
		return;
	/* degraded ops read every survivor (RCW); a degraded RMW needs none */
	if (op->failed && p->mode == LRAID_PLAN_RCW)
		lraid_op_recover(op);
	if (op->wr->flags & LRAID_WREQ_READ)
		return;
	if (p->mode == LRAID_PLAN_RMW) {
		lraid_op_update(op);
		return;
	}
	/* over the old data, which the rebuild above no longer needs */
	if (op->copy)
		lraid_op_copy(op, false);
	lraid_op_gen(op);
}

/*
 * Whether a FUA op writes new data for a failed member: that data then
 * exists only as parity together with the other members' rows, which the
 * op read and may have read from a volatile write cache (written there
 * plainly, not flushed since). A power cut could take them, and the FUA
 * data with them, so they are written back FUA too (lraid_op_write()).
 * md sends FUA only with the blocks a stripe writes.
 */
static bool lraid_op_fua_peers(const struct lraid_op *op)
{
	const struct lraid_geom *g = &op->w->a->geom;
	const struct lraid_plan *p = &op->plan;
	u32 unwritten = op->failed & ~op->rewrite;
	unsigned int di, m;

	if (!(op->wr->opf & REQ_FUA) || !unwritten)
		return false;
	for (di = 0; di < g->nr_data; di++) {
		m = lraid_geom_data_member(g, op->wr->stripe, di);
		if (p->s[di] < p->e[di] && (unwritten & BIT(m)))
			return true;
	}
	return false;
}

/* Its parity computed (lraid_op_compute()), the op writes. */
static void lraid_op_write(struct lraid_op *op)
{
	struct lraid_array *a = op->w->a;
	const struct lraid_geom *g = &a->geom;
	const struct lraid_plan *p = &op->plan;
	u64 stripe = op->wr->stripe;
	blk_opf_t popf = REQ_OP_WRITE | op->wr->opf;
	unsigned int pm = lraid_geom_p_member(g, stripe);
	unsigned int qm = lraid_geom_q_member(g, stripe);
	/* failed members get nothing; those read around get everything */
	u32 skip = op->failed & ~op->rewrite;
	/* members that get the rows around their new data too */
	u32 around = op->rewrite;
	unsigned int di;

	if (op->status) {
		if (!lraid_op_retry(op))
			lraid_op_release(op);
		return;
	}
	if (op->wr->flags & LRAID_WREQ_READ) {
		lraid_op_copy(op, true);
		lraid_op_repair(op);
		return;
	}

	if (lraid_op_fua_peers(op))
		around |= GENMASK(g->nr_members - 1, 0);
	op->phase = LRAID_OP_WRITE;
	atomic_set(&op->pending, 1);
	for (di = 0; di < g->nr_data; di++) {
		unsigned int m = lraid_geom_data_member(g, stripe, di);

		if (skip & BIT(m))
			continue;
		if (p->s[di] < p->e[di] && op->copy)
			lraid_op_page_io(op, m, p->s[di], p->e[di], popf);
		else if (p->s[di] < p->e[di])
			lraid_op_data_write(op, di, m, p->s[di], p->e[di]);
		if (!(around & BIT(m)))
			continue;
		/*
		 * the rows around the new data, as read or rebuilt: those it
		 * failed to read, or every row for FUA (lraid_op_fua_peers())
		 */
		if (p->s[di] < p->e[di]) {
			lraid_op_page_io(op, m, p->r0, p->s[di], popf);
			lraid_op_page_io(op, m, p->e[di], p->r1, popf);
		} else {
			lraid_op_page_io(op, m, p->r0, p->r1, popf);
		}
	}
	if (!(skip & BIT(pm)))
		lraid_op_page_io(op, pm, p->r0, p->r1, popf);
	if (qm != LRAID_NO_MEMBER && !(skip & BIT(qm)))
		lraid_op_page_io(op, qm, p->r0, p->r1, popf);
	if (atomic_dec_and_test(&op->pending))
		lraid_op_written(op);
}

/* Plan, get buffers and issue the reads. -ENOMEM: retry later. */
static int lraid_op_start(struct lraid_op *op)
{
	struct lraid_array *a = op->w->a;
	const struct lraid_geom *g = &a->geom;
	struct lraid_wreq *wr = op->wr;
	struct lraid_plan *p = &op->plan;
	u32 failed = READ_ONCE(a->failed);
	unsigned int pm, qm, di;

	lraid_plan_window(g, wr->win, wr->lo, wr->hi, p);
	atomic_set(&op->err_members, 0);
	lraid_check_stable(a);
	op->copy = (READ_ONCE(copy_writes) || test_bit(0, &a->copy_all)) &&
		   !(wr->flags & (LRAID_WREQ_ZERO | LRAID_WREQ_READ));
	op->failed = failed | wr->avoid;
	op->rewrite = wr->avoid & ~failed;
	/*
	 * A member being rebuilt is read around as failed, and written
	 * every row the op touches, as one that failed a read
	 * (lraid_op_write()); not read back (lraid_op_written()).
	 */
	if (unlikely(READ_ONCE(a->rebuilding)) &&
	    !(wr->flags & LRAID_WREQ_READ))
		op->rewrite |= failed & (u32)READ_ONCE(a->rebuilding);
	if (unlikely(hweight32(op->failed) > g->nr_members - g->nr_data)) {
		/* more members lost than parity can cover: fail it, later */
		op->status = BLK_STS_IOERR;
		op->phase = LRAID_OP_WRITE;
		llist_add(&op->done, &op->w->done);
		return 0;
	}
	if (wr->flags & LRAID_WREQ_READ)
		return lraid_op_start_degraded(op);
	/*
	 * Degraded, but the failed members hold nothing this write needs: RMW.
	 * Rows members failed to read are rebuilt to be written back: RCW.
	 */
	if (op->failed) {
		if (op->rewrite ||
		    !lraid_plan_rmw_avoids(g, wr->stripe, p, op->failed))
			return lraid_op_start_degraded(op);
		p->mode = LRAID_PLAN_RMW;
	} else if (p->mode == LRAID_PLAN_RMW &&
		   lraid_stripe_unsynced(a, wr->stripe)) {
		/* its parity may be stale: RMW would keep it so */
		p->mode = LRAID_PLAN_RCW;
		p->reads = p->rcw_reads;
	}
	pm = lraid_geom_p_member(g, wr->stripe);
	qm = lraid_geom_q_member(g, wr->stripe);
	if (lraid_op_get_pages(op, pm, p->r0, p->r1))
		goto nomem;
	if (qm != LRAID_NO_MEMBER && lraid_op_get_pages(op, qm, p->r0, p->r1))
		goto nomem;
	for (di = 0; di < g->nr_data; di++) {
		unsigned int m = lraid_geom_data_member(g, wr->stripe, di);

		/* RMW reads the old data into these, then takes the copy */
		if ((op->copy || p->mode == LRAID_PLAN_RMW) &&
		    lraid_op_get_pages(op, m, p->s[di], p->e[di]))
			goto nomem;
		if (p->mode != LRAID_PLAN_RCW)
			continue;
		if (p->s[di] >= p->e[di]) {
			if (lraid_op_get_pages(op, m, p->r0, p->r1))
				goto nomem;
			continue;
		}
		if (lraid_op_get_pages(op, m, p->r0, p->s[di]) ||
		    lraid_op_get_pages(op, m, p->e[di], p->r1))
			goto nomem;
	}

	op->status = BLK_STS_OK;
	op->phase = LRAID_OP_READ;
	atomic_set(&op->pending, 1);
	if (p->mode == LRAID_PLAN_RMW) {
		lraid_op_page_io(op, pm, p->r0, p->r1, REQ_OP_READ);
		if (qm != LRAID_NO_MEMBER)
			lraid_op_page_io(op, qm, p->r0, p->r1, REQ_OP_READ);
	}
	for (di = 0; di < g->nr_data && p->mode != LRAID_PLAN_FULL; di++) {
		unsigned int m = lraid_geom_data_member(g, wr->stripe, di);

		if (p->mode == LRAID_PLAN_RMW) {
			lraid_op_page_io(op, m, p->s[di], p->e[di], REQ_OP_READ);
		} else if (p->s[di] >= p->e[di]) {
			lraid_op_page_io(op, m, p->r0, p->r1, REQ_OP_READ);
		} else {
			lraid_op_page_io(op, m, p->r0, p->s[di], REQ_OP_READ);
			lraid_op_page_io(op, m, p->e[di], p->r1, REQ_OP_READ);
		}
	}
	if (atomic_dec_and_test(&op->pending))
		lraid_op_write_now(op);
	return 0;

nomem:
	lraid_op_free_pages(op, g->nr_members);
	return -ENOMEM;
}

static struct lraid_shard *lraid_shard_of(struct lraid_array *a, u64 key)
{
	return &a->shards[hash_64(key, a->shard_bits)];
}

/*
 * Start @op, or queue it for lraid_worker_retry() when out of pages (a
 * failed start keeps none). A new op (@fresh, holding no pages) queues
 * behind ops already waiting for pages: small ops starting meanwhile would
 * take every page freed and keep a large one (a degraded reconstruct-write)
 * waiting, its window held, for as long as they keep coming.
 */
static void lraid_op_run(struct lraid_op *op, bool fresh)
{
	if ((fresh && !list_empty(&op->w->retry)) || lraid_op_start(op))
		list_add_tail(&op->free, &op->w->retry);
}

/*
 * The piece is done: complete it, then pass the window to the next waiter
 * or drop it from the table. The next waiter is started by the worker loop
 * (lraid_worker_ready()), not from here: members that complete a bio
 * inside submit_bio (brd, null_blk irqmode=0, a dead device) would
 * otherwise nest one start per waiter on the stack.
 */
static void lraid_op_release(struct lraid_op *op)
{
	struct lraid_worker *w = op->w;
	struct lraid_array *a = w->a;
	struct lraid_wreq *wr = op->wr, *next = NULL;
	struct lraid_shard *sh = lraid_shard_of(a, op->key);
	struct bio *bio = wr->bio;

	lraid_op_free_pages(op, a->geom.nr_members);
	if (!(wr->flags & LRAID_WREQ_READ))
		lraid_bitmap_end(a, wr->stripe, wr->stripe + 1);
	if (op->status)
		WRITE_ONCE(bio->bi_status, op->status);
	else if (!(wr->flags & LRAID_WREQ_READ) && unlikely(lraid_array_lost(a)))
		WRITE_ONCE(bio->bi_status, BLK_STS_IOERR);
	if (!(wr->flags & LRAID_WREQ_READ) && lraid_hold(a, &wr->wait, &a->held)) {
		/* completes once the superblocks record the failed member */
	} else {
		mempool_free(wr, a->wreq_pool);
		/* the caller's bio completes at the end of this worker pass */
		if (w->nr_endio == ARRAY_SIZE(w->endio))
			lraid_worker_endio(w);
		w->endio[w->nr_endio++] = bio;
	}

	spin_lock(&sh->lock);
	if (list_empty(&op->waiters)) {
		hlist_del(&op->hnode);
	} else {
		next = list_first_entry(&op->waiters, struct lraid_wreq, wait);
		list_del(&next->wait);
	}
	spin_unlock(&sh->lock);

	if (next) {
		op->wr = next;
		list_add_tail(&op->free, &w->ready);
		return;
	}
	/* a discard may be waiting for this window (lraid_drange_begin()) */
	if (unlikely(READ_ONCE(a->nr_dranges)))
		wake_up(&a->drange_wait);
	op->wr = NULL;
	list_add(&op->free, &w->free_ops);
	w->in_flight--;
}

/*
 * Park @wr on a full-stripe discard in flight over its stripe, if there is
 * one. Called with @wr's shard lock held, which orders this against
 * lraid_drange_begin()'s registration and scan.
 */
static bool lraid_drange_park(struct lraid_array *a, struct lraid_wreq *wr)
{
	struct lraid_drange *d;
	unsigned long flags;
	bool parked = false;

	spin_lock_irqsave(&a->drange_lock, flags);
	list_for_each_entry(d, &a->dranges, node) {
		if (wr->stripe >= d->s0 && wr->stripe < d->s1) {
			list_add_tail(&wr->wait, &d->parked);
			parked = true;
			break;
		}
	}
	spin_unlock_irqrestore(&a->drange_lock, flags);
	return parked;
}

/* Take a window for @wr, or queue behind its holder. false: no free op. */
static bool lraid_op_acquire(struct lraid_worker *w, struct lraid_wreq *wr)
{
	struct lraid_array *a = w->a;
	u64 key = wr->stripe * (a->geom.chunk_sectors / a->win_sectors) +
		  wr->win;
	struct lraid_shard *sh = lraid_shard_of(a, key);
	struct lraid_op *op, *holder;

	if (list_empty(&w->free_ops))
		return false;
	op = list_first_entry(&w->free_ops, struct lraid_op, free);

	spin_lock(&sh->lock);
	if (unlikely(READ_ONCE(a->nr_dranges)) && lraid_drange_park(a, wr)) {
		spin_unlock(&sh->lock);
		return true;
	}
	hlist_for_each_entry(holder, &sh->head, hnode) {
		if (holder->key == key) {
			list_add_tail(&wr->wait, &holder->waiters);
			spin_unlock(&sh->lock);
			return true;
		}
	}
	list_del(&op->free);
	op->key = key;
	op->wr = wr;
	INIT_LIST_HEAD(&op->waiters);
	hlist_add_head(&op->hnode, &sh->head);
	spin_unlock(&sh->lock);

	w->in_flight++;
	lraid_op_run(op, true);
	return true;
}

void lraid_stripe_queue(struct lraid_array *a, struct lraid_wreq *wr)
{
	int cpu = READ_ONCE(a->worker_of[raw_smp_processor_id()]);
	struct lraid_worker *w = &a->workers[cpu];

	/* as in lraid_op_endio(): the wreq may be done before the wake-up */
	rcu_read_lock();
	if (llist_add(&wr->node, &w->incoming))
		wake_up_process(w->task);
	rcu_read_unlock();
}

/* Was a range over any of stripes [d->s0, d->s1) registered before @d? */
static bool lraid_drange_behind(struct lraid_array *a,
				const struct lraid_drange *d)
{
	struct lraid_drange *e;
	bool behind = false;

	spin_lock_irq(&a->drange_lock);
	list_for_each_entry(e, &a->dranges, node) {
		if (e == d)
			break;
		if (e->s0 < d->s1 && d->s0 < e->s1) {
			behind = true;
			break;
		}
	}
	spin_unlock_irq(&a->drange_lock);
	return behind;
}

/* Does an op in @sh hold a window of stripes [d->s0, d->s1)? */
static bool lraid_shard_busy(struct lraid_shard *sh,
			     const struct lraid_drange *d, u32 nwin)
{
	struct lraid_op *op;
	bool busy = false;

	spin_lock(&sh->lock);
	hlist_for_each_entry(op, &sh->head, hnode) {
		u64 stripe = div_u64(op->key, nwin);

		if (stripe >= d->s0 && stripe < d->s1) {
			busy = true;
			break;
		}
	}
	spin_unlock(&sh->lock);
	return busy;
}

/*
 * Does any op hold a window of stripes [d->s0, d->s1), or does a range
 * registered earlier cover any of them? A range of few windows (a check
 * pass takes one stripe) looks only in the shards they hash to; a long
 * discard looks in every shard.
 */
static bool lraid_drange_busy(struct lraid_array *a,
			      const struct lraid_drange *d)
{
	u32 nwin = a->geom.chunk_sectors / a->win_sectors;
	u64 key;
	unsigned int i;

	if (lraid_drange_behind(a, d))
		return true;
	if ((d->s1 - d->s0) * nwin < (1U << a->shard_bits)) {
		for (key = d->s0 * nwin; key < d->s1 * nwin; key++)
			if (lraid_shard_busy(lraid_shard_of(a, key), d, nwin))
				return true;
		return false;
	}
	for (i = 0; i < (1U << a->shard_bits); i++)
		if (lraid_shard_busy(&a->shards[i], d, nwin))
			return true;
	return false;
}

/*
 * Order a full-stripe discard (or a parity check, lraid_sync.c) of stripes
 * [d->s0, d->s1) after the write pieces already holding windows there and
 * the ranges registered before it over any of those stripes, and before
 * the pieces that come later: those are parked on @d from now on
 * (lraid_op_acquire()). Sleeps, task context. Pieces already queued
 * behind a holder run before it.
 */
void lraid_drange_begin(struct lraid_array *a, struct lraid_drange *d)
{
	INIT_LIST_HEAD(&d->parked);
	spin_lock_irq(&a->drange_lock);
	list_add_tail(&d->node, &a->dranges);
	WRITE_ONCE(a->nr_dranges, a->nr_dranges + 1);
	spin_unlock_irq(&a->drange_lock);
	wait_event(a->drange_wait, !lraid_drange_busy(a, d));
}

/* The discard is done: requeue the pieces parked on it. Any context. */
void lraid_drange_end(struct lraid_array *a, struct lraid_drange *d)
{
	struct lraid_wreq *wr, *tmp;
	unsigned long flags;
	LIST_HEAD(parked);

	spin_lock_irqsave(&a->drange_lock, flags);
	list_del(&d->node);
	WRITE_ONCE(a->nr_dranges, a->nr_dranges - 1);
	list_splice_init(&d->parked, &parked);
	spin_unlock_irqrestore(&a->drange_lock, flags);
	/* a range registered later over the same stripes may wait for @d */
	wake_up(&a->drange_wait);

	list_for_each_entry_safe(wr, tmp, &parked, wait) {
		list_del(&wr->wait);
		lraid_stripe_queue(a, wr);
	}
}

/*
 * Compute the parity of @ops, ops of worker @w on their ->free node,
 * opening the FPU once per LRAID_FPU_BATCH bytes of member blocks rather
 * than once per op (a 4 KiB RMW is one op), then issue their writes. A
 * section disables preemption, so no bio is submitted inside it; the
 * budget keeps it to tens of microseconds.
 */
static void lraid_ops_write(struct lraid_worker *w, struct list_head *ops)
{
	unsigned int nr_members = w->a->geom.nr_members;
	struct lraid_op *op, *tmp;
	size_t bytes = 0;

	if (list_empty(ops))
		return;
	lraid_gf_begin();
	list_for_each_entry(op, ops, free) {
		if (bytes >= LRAID_FPU_BATCH) {
			lraid_gf_end();
			lraid_gf_begin();
			bytes = 0;
		}
		lraid_op_compute(op);
		bytes += (size_t)(op->plan.r1 - op->plan.r0) * nr_members
			 << SECTOR_SHIFT;
	}
	lraid_gf_end();
	list_for_each_entry_safe(op, tmp, ops, free) {
		list_del(&op->free);
		lraid_op_write(op);
	}
}

/*
 * An op whose reads all finished before lraid_op_start() returned (none
 * needed, or members that complete inside submit_bio) writes at once:
 * holding it to the end of the worker pass, to batch it, cost 8 % of
 * RAID6 4 KiB random-write IOPS on null_blk (benchmarks.rst).
 */
static void lraid_op_write_now(struct lraid_op *op)
{
	LIST_HEAD(one);

	list_add(&op->free, &one);
	lraid_ops_write(op->w, &one);
}

/*
 * Ops whose member bios finished. Those whose reads did compute their
 * parity together, in as few FPU sections as lraid_ops_write() allows.
 */
static void lraid_worker_done(struct lraid_worker *w)
{
	struct llist_node *list = llist_del_all(&w->done);
	struct lraid_op *op, *tmp;
	LIST_HEAD(batch);

	llist_for_each_entry_safe(op, tmp, list, done) {
		if (op->phase == LRAID_OP_READ)
			list_add_tail(&op->free, &batch);
		else if (op->phase == LRAID_OP_REREAD)
			lraid_op_reread_done(op);
		else
			lraid_op_written(op);
	}
	lraid_ops_write(w, &batch);
}

/* Start the ops handed a window by lraid_op_release(), oldest first. */
static void lraid_worker_ready(struct lraid_worker *w)
{
	struct lraid_op *op;

	while (!list_empty(&w->ready)) {
		op = list_first_entry(&w->ready, struct lraid_op, free);
		list_del(&op->free);
		lraid_op_run(op, true);
	}
}

static void lraid_worker_retry(struct lraid_worker *w)
{
	struct lraid_wreq *wr, *wtmp;
	struct lraid_op *op;

	while (!list_empty(&w->retry)) {
		op = list_first_entry(&w->retry, struct lraid_op, free);
		list_del(&op->free);
		if (lraid_op_start(op)) {
			list_add(&op->free, &w->retry);
			return;
		}
	}
	list_for_each_entry_safe(wr, wtmp, &w->deferred, wait) {
		list_del(&wr->wait);
		if (!lraid_op_acquire(w, wr)) {
			list_add(&wr->wait, &w->deferred);
			return;
		}
	}
}

static void lraid_worker_incoming(struct lraid_worker *w)
{
	struct llist_node *list = llist_reverse_order(llist_del_all(&w->incoming));
	struct lraid_wreq *wr, *tmp;

	llist_for_each_entry_safe(wr, tmp, list, node) {
		if (!list_empty(&w->deferred) || !lraid_op_acquire(w, wr))
			list_add_tail(&wr->wait, &w->deferred);
	}
}

int lraid_worker_fn(void *data)
{
	struct lraid_worker *w = data;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (llist_empty(&w->done) && llist_empty(&w->incoming) &&
		    list_empty(&w->ready)) {
			if (kthread_should_stop()) {
				__set_current_state(TASK_RUNNING);
				break;
			}
			schedule();
		}
		__set_current_state(TASK_RUNNING);
		lraid_worker_done(w);
		lraid_worker_ready(w);
		lraid_worker_retry(w);
		lraid_worker_incoming(w);
		lraid_worker_endio(w);
		cond_resched();
	}
	return 0;
}

/* ---- setup ---- */

static int lraid_cpuhp_state = -1;

static void lraid_worker_free(struct lraid_worker *w)
{
	if (w->task)
		kthread_stop(w->task);
	while (w->nr_free_pages)
		mempool_free(w->free_pages[--w->nr_free_pages], w->pages);
	mempool_destroy(w->pages);
	kfree(w->scratch);
	kvfree(w->ops);
	memset(w, 0, sizeof(*w));
}

/* Set up and start the worker of @cpu, bound to it. */
static int lraid_worker_start(struct lraid_array *a, unsigned int cpu)
{
	struct lraid_worker *w = &a->workers[cpu];
	unsigned int pages_per_op = a->geom.nr_members *
		DIV_ROUND_UP(a->win_sectors, LRAID_ROWS_PER_PAGE);
	struct task_struct *task;
	unsigned int i;

	w->a = a;
	w->cpu = cpu;
	init_llist_head(&w->incoming);
	init_llist_head(&w->done);
	INIT_LIST_HEAD(&w->deferred);
	INIT_LIST_HEAD(&w->retry);
	INIT_LIST_HEAD(&w->ready);
	INIT_LIST_HEAD(&w->free_ops);
	w->ops = kvcalloc(LRAID_OPS_PER_WORKER, sizeof(*w->ops), GFP_KERNEL);
	w->pages = mempool_create_page_pool(pages_per_op, 0);
	w->scratch = kmalloc(sizeof(*w->scratch), GFP_KERNEL);
	if (!w->ops || !w->pages || !w->scratch)
		goto err;
	for (i = 0; i < LRAID_OPS_PER_WORKER; i++) {
		w->ops[i].w = w;
		list_add_tail(&w->ops[i].free, &w->free_ops);
	}
	task = kthread_create_on_node(lraid_worker_fn, w, cpu_to_node(cpu),
				      "lraid%d/%u", a->index, cpu);
	if (IS_ERR(task)) {
		lraid_worker_free(w);
		return PTR_ERR(task);
	}
	w->task = task;
	set_cpus_allowed_ptr(task, cpumask_of(cpu));
	wake_up_process(task);
	return 0;

err:
	lraid_worker_free(w);
	return -ENOMEM;
}

/*
 * CPU hotplug. A CPU going down lets its worker run anywhere (it still
 * owns its ops and finishes them); coming back, the worker is bound to it
 * again. A CPU that was offline when the array started gets its own
 * worker the first time it comes online; until then, and if that fails,
 * its writes go to the first worker.
 */
static int lraid_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct lraid_array *a = hlist_entry(node, struct lraid_array,
					    cpuhp_node);
	struct lraid_worker *w = &a->workers[cpu];
	int ret;

	if (w->task) {
		set_cpus_allowed_ptr(w->task, cpumask_of(cpu));
		return 0;
	}
	ret = lraid_worker_start(a, cpu);
	if (ret) {
		pr_warn("lraid%d: no worker for CPU %u (%d), its writes go to CPU %d's\n",
			a->index, cpu, ret, a->worker_of[cpu]);
		return 0;
	}
	/* the worker is set up before the I/O path can see it */
	smp_store_release(&a->worker_of[cpu], cpu);
	return 0;
}

static int lraid_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct lraid_array *a = hlist_entry(node, struct lraid_array,
					    cpuhp_node);
	struct lraid_worker *w = &a->workers[cpu];

	if (w->task)
		set_cpus_allowed_ptr(w->task, cpu_possible_mask);
	return 0;
}

int lraid_stripe_module_init(void)
{
	int ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "block/lraid:online",
					  lraid_cpu_online, lraid_cpu_offline);

	if (ret < 0)
		return ret;
	lraid_cpuhp_state = ret;
	return 0;
}

void lraid_stripe_module_exit(void)
{
	cpuhp_remove_multi_state(lraid_cpuhp_state);
}

int lraid_stripe_init(struct lraid_array *a)
{
	unsigned int nshards, i;
	int cpu, first = -1, ret = -ENOMEM;

	nshards = roundup_pow_of_two(num_possible_cpus() * LRAID_SHARDS_PER_CPU);
	a->shard_bits = ilog2(nshards);
	a->shards = kvcalloc(nshards, sizeof(*a->shards), GFP_KERNEL);
	a->workers = kcalloc(nr_cpu_ids, sizeof(*a->workers), GFP_KERNEL);
	a->worker_of = kcalloc(nr_cpu_ids, sizeof(*a->worker_of), GFP_KERNEL);
	if (!a->shards || !a->workers || !a->worker_of)
		goto err;
	for (i = 0; i < nshards; i++) {
		spin_lock_init(&a->shards[i].lock);
		INIT_HLIST_HEAD(&a->shards[i].head);
	}

	/*
	 * Hotplug callbacks first, then the workers of the CPUs online now,
	 * under the hotplug lock (which callbacks run under too): no CPU
	 * comes or goes unseen, and a CPU whose callback already started
	 * its worker keeps it.
	 */
	ret = cpuhp_state_add_instance_nocalls(lraid_cpuhp_state,
					       &a->cpuhp_node);
	if (ret)
		goto err;
	a->cpuhp_added = true;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!a->workers[cpu].task) {
			ret = lraid_worker_start(a, cpu);
			if (ret)
				goto err_unlock;
		}
		if (first < 0)
			first = cpu;
	}
	for_each_possible_cpu(cpu)
		a->worker_of[cpu] = a->workers[cpu].task ? cpu : first;
	cpus_read_unlock();
	return 0;

err_unlock:
	cpus_read_unlock();
err:
	lraid_stripe_exit(a);
	return ret;
}

void lraid_stripe_exit(struct lraid_array *a)
{
	unsigned int cpu;

	if (a->cpuhp_added)
		cpuhp_state_remove_instance_nocalls(lraid_cpuhp_state,
						    &a->cpuhp_node);
	a->cpuhp_added = false;

	/* wake-ups still running after their op or wreq was done */
	synchronize_rcu();
	if (a->workers)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			lraid_worker_free(&a->workers[cpu]);
	kfree(a->worker_of);
	kfree(a->workers);
	kvfree(a->shards);
	a->worker_of = NULL;
	a->workers = NULL;
	a->shards = NULL;
}
