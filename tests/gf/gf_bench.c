// SPDX-License-Identifier: GPL-2.0
/*
 * Single-core throughput of lraid's parity implementations next to ISA-L
 * and Linux's lib/raid6 (built in userspace from linux-source; a build-time
 * comparison only) and memcpy.
 *
 * GB/s counts stripe data bytes (k * block) per operation, except rmw1
 * which counts the one rewritten block. 4 KiB cases reuse one stripe (hot
 * in cache); the 1 MiB case cycles through a 240+ MiB pool (DRAM).
 *
 *   gf_bench [seconds-per-cell [cases]]   cases: any of 4 8 6 D (k=4, 8,
 *   16 at 4 KiB, k=8 from DRAM; the default), E, F (k=16, k=4 from DRAM);
 *   built with -D_GNU_SOURCE
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>

#include "lraid_gf.h"

#ifdef HAVE_RAID6
/* lib/raid6's userspace interface (include/linux/raid/pq.h), redeclared. */
struct raid6_calls {
	void (*gen_syndrome)(int, size_t, void **);
	void (*xor_syndrome)(int, int, int, size_t, void **);
	int (*valid)(void);
	const char *name;
	int priority;
};

struct raid6_recov_calls {
	void (*data2)(int, size_t, int, int, void **);
	void (*datap)(int, size_t, int, void **);
	int (*valid)(void);
	const char *name;
	int priority;
};

/* The test harness defines this zero page (lib/raid6/test/test.c). */
const char raid6_empty_zero_page[4096] __attribute__((aligned(4096)));

extern struct raid6_calls raid6_call;
extern const struct raid6_calls *const raid6_algos[];
extern const struct raid6_recov_calls *const raid6_recov_algos[];
#endif

#define MAXK	16
#define NOPS	7

enum { OP_GEN_P, OP_GEN_PQ, OP_RMW1, OP_REC_D, OP_REC_DP, OP_REC_DQ, OP_REC_2D };
static const char *const op_names[NOPS] = {
	"gen_p", "gen_pq", "rmw1", "recov data (P)", "recov data+P",
	"recov data+Q", "recov 2 data",
};

struct stripe {
	void *d[MAXK], *p, *q, *nw, *x, *y, *xp, *xq;
	void *c[MAXK];		/* memcpy destinations (DRAM case only) */
	void *ptrs[MAXK + 2];	/* lib/raid6 and ISA-L layout: data, P, Q */
};

static unsigned int k;
static size_t blk;
static struct stripe *pool;
static unsigned int npool, cur;
static double cell_secs = 0.2;

static double now(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine is shared, wall time is not */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *balloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		exit(2);
	memset(p, 0x5a, len);
	return p;
}

static void pool_init(unsigned int kk, size_t b, size_t pool_bytes)
{
	unsigned int s, i;

	k = kk;
	blk = b;
	npool = pool_bytes / ((k + 7) * b);
	if (!npool)
		npool = 1;
	pool = calloc(npool, sizeof(*pool));
	for (s = 0; s < npool; s++) {
		struct stripe *st = &pool[s];

		for (i = 0; i < k; i++) {
			st->d[i] = balloc(b);
			for (size_t o = 0; o < b; o++)
				((u8 *)st->d[i])[o] = rand();
			st->ptrs[i] = st->d[i];
		}
		st->p = balloc(b);
		st->q = balloc(b);
		st->nw = balloc(b);
		st->x = balloc(b);
		st->y = balloc(b);
		st->xp = balloc(b);
		st->xq = balloc(b);
		if (npool > 1)
			for (i = 0; i < k; i++)
				st->c[i] = balloc(b);
		st->ptrs[k] = st->p;
		st->ptrs[k + 1] = st->q;
		pq_gen(k + 2, b, st->ptrs);
	}
	cur = 0;
}

static void pool_free(void)
{
	unsigned int s, i;

	for (s = 0; s < npool; s++) {
		for (i = 0; i < k; i++) {
			free(pool[s].d[i]);
			free(pool[s].c[i]);
		}
		free(pool[s].p);
		free(pool[s].q);
		free(pool[s].nw);
		free(pool[s].x);
		free(pool[s].y);
		free(pool[s].xp);
		free(pool[s].xq);
	}
	free(pool);
}

static struct stripe *next(void)
{
	struct stripe *s = &pool[cur];

	if (++cur == npool)
		cur = 0;
	return s;
}

/* Failed blocks: 1 and k - 2 (so survivors lie on both sides). */
#define FA	1
#define FB	(k - 2)

static void lost(struct stripe *s, void **w, bool two)
{
	memcpy(w, s->d, k * sizeof(void *));
	w[FA] = s->x;
	if (two)
		w[FB] = s->y;
}

/* ---- our implementations ---- */

static const struct lraid_gf_impl *im;

static void run_ours(int op)
{
	struct stripe *s = next();
	void *w[MAXK];

	switch (op) {
	case OP_GEN_P:
		lraid_gf_impl_gen_p(im, k, blk, s->d, s->xp);
		break;
	case OP_GEN_PQ:
		im->gen_pq(k, blk, s->d, s->xp, s->xq);
		break;
	case OP_RMW1:
		/* rewrite block 2 with the same bytes: parity stays valid */
		lraid_gf_impl_update_pq(im, 2, 1, blk, &s->d[2], &s->d[2],
					s->p, s->q);
		break;
	case OP_REC_D:
		lost(s, w, false);
		lraid_gf_impl_recov_data_p(im, k, blk, w, FA, s->p);
		break;
	case OP_REC_DP:
		lost(s, w, false);
		im->recov_data_q(k, blk, w, FA, s->xp, s->q);
		break;
	case OP_REC_DQ:
		lost(s, w, false);
		lraid_gf_impl_recov_data_p(im, k, blk, w, FA, s->p);
		im->gen_pq(k, blk, w, s->xp, s->xq);
		break;
	case OP_REC_2D:
		lost(s, w, true);
		im->recov_2data(k, blk, w, FA, FB, s->p, s->q);
		break;
	}
}

/* ---- ISA-L ---- */

static u8 isal_tbl[3][32 * 2 * MAXK];

static void isal_prepare(void)
{
	u8 m[2 * MAXK], ca, cb, c;
	unsigned int i, j, n;

	/* 2 data lost: sources = survivors, P, Q; rows Da, Db */
	lraid_gf_2data_coef(FA, FB, &ca, &cb);
	n = 0;
	for (i = 0; i < k; i++) {
		if (i == FA || i == FB)
			continue;
		c = ca ^ gf_mul(cb, lraid_gf_pow2(i));	/* Da coefficient */
		m[n] = c;
		m[k + n] = c ^ 1;			/* Db = Da ^ pd */
		n++;
	}
	m[n] = ca;
	m[k + n] = ca ^ 1;
	n++;
	m[n] = cb;
	m[k + n] = cb;
	n++;
	/* pack rows of length n */
	{
		u8 a[2 * MAXK];

		for (j = 0; j < n; j++) {
			a[j] = m[j];
			a[n + j] = m[k + j];
		}
		ec_init_tables(n, 2, a, isal_tbl[0]);
	}
	/* data + P lost: sources = survivors, Q; rows Da, P */
	c = lraid_gf_pow2(-FA);
	n = 0;
	for (i = 0; i < k; i++) {
		if (i == FA)
			continue;
		m[n] = gf_mul(c, lraid_gf_pow2(i));
		m[k + n] = 1 ^ m[n];
		n++;
	}
	m[n] = c;
	m[k + n] = c;
	n++;
	{
		u8 a[2 * MAXK];

		for (j = 0; j < n; j++) {
			a[j] = m[j];
			a[n + j] = m[k + j];
		}
		ec_init_tables(n, 2, a, isal_tbl[1]);
	}
	/* RMW of block 2: coding rows P, Q weighted 1, g^2 */
	m[0] = 1;
	m[1] = lraid_gf_pow2(2);
	ec_init_tables(1, 2, m, isal_tbl[2]);
}

static void run_isal(int op)
{
	struct stripe *s = next();
	void *w[MAXK + 2];
	u8 *src[MAXK + 2], *dst[2];
	unsigned int i, n = 0;

	switch (op) {
	case OP_GEN_P:
		memcpy(w, s->d, k * sizeof(void *));
		w[k] = s->xp;
		xor_gen(k + 1, blk, w);
		break;
	case OP_GEN_PQ:
		memcpy(w, s->d, k * sizeof(void *));
		w[k] = s->xp;
		w[k + 1] = s->xq;
		pq_gen(k + 2, blk, w);
		break;
	case OP_RMW1:
		dst[0] = s->p;
		dst[1] = s->q;
		ec_encode_data_update(blk, 1, 2, 0, isal_tbl[2], s->d[2], dst);
		ec_encode_data_update(blk, 1, 2, 0, isal_tbl[2], s->d[2], dst);
		break;
	case OP_REC_D:
	case OP_REC_DQ:
		for (i = 0; i < k; i++)
			if (i != FA)
				w[n++] = s->d[i];
		w[n++] = s->p;
		w[n++] = s->x;
		xor_gen(n, blk, w);
		if (op == OP_REC_DQ) {
			memcpy(w, s->d, k * sizeof(void *));
			w[FA] = s->x;
			w[k] = s->xp;
			w[k + 1] = s->xq;
			pq_gen(k + 2, blk, w);
		}
		break;
	case OP_REC_DP:
		for (i = 0; i < k; i++)
			if (i != FA)
				src[n++] = s->d[i];
		src[n++] = s->q;
		dst[0] = s->x;
		dst[1] = s->xp;
		ec_encode_data(blk, n, 2, isal_tbl[1], src, dst);
		break;
	case OP_REC_2D:
		for (i = 0; i < k; i++)
			if (i != FA && i != FB)
				src[n++] = s->d[i];
		src[n++] = s->p;
		src[n++] = s->q;
		dst[0] = s->x;
		dst[1] = s->y;
		ec_encode_data(blk, n, 2, isal_tbl[0], src, dst);
		break;
	}
}

/* ---- lib/raid6 ---- */

#ifdef HAVE_RAID6
static const struct raid6_calls *r6;
/*
 * r6r: the recovery routine lib/raid6 selects (highest priority valid,
 * avx512x2 here; what the kernel and lib/raid6/test's raid6test use), the
 * headline reference. r6int: its portable table-lookup fallback (intx1),
 * shown in a separate column for comparison with scalar figures.
 */
static const struct raid6_recov_calls *r6r, *r6int, *r6cur;

/*
 * lib/raid6 recovery works on at most one page per call, like md. It has
 * no XOR-only routines (md uses its xor_blocks for those): not measured.
 */
static bool raid6_has(int op)
{
	return op == OP_GEN_PQ || op == OP_RMW1 || op == OP_REC_DP ||
	       op == OP_REC_2D;
}

static void run_raid6(int op)
{
	struct stripe *s = next();
	void *w[MAXK + 2];
	size_t off;
	unsigned int i;

	for (off = 0; off < blk; off += 4096) {
		for (i = 0; i < k + 2; i++)
			w[i] = (u8 *)s->ptrs[i] + off;
		switch (op) {
		case OP_GEN_PQ:
			w[k] = (u8 *)s->xp + off;
			w[k + 1] = (u8 *)s->xq + off;
			r6->gen_syndrome(k + 2, 4096, w);
			break;
		case OP_RMW1:
			/* md: xor out the old block, xor in the new one */
			r6->xor_syndrome(k + 2, 2, 2, 4096, w);
			r6->xor_syndrome(k + 2, 2, 2, 4096, w);
			break;
		case OP_REC_DP:
			w[FA] = (u8 *)s->x + off;
			w[k] = (u8 *)s->xp + off;
			r6cur->datap(k + 2, 4096, FA, w);
			break;
		case OP_REC_2D:
			w[FA] = (u8 *)s->x + off;
			w[FB] = (u8 *)s->y + off;
			r6cur->data2(k + 2, 4096, FA, FB, w);
			break;
		}
	}
}
#endif

/*
 * Best of 8 runs (the machine is shared); the clock is read once per batch
 * of about 1 MiB of work as reading it costs more than a 4 KiB operation.
 */
static double measure(void (*fn)(int), int op, size_t bytes_per_op)
{
	unsigned long batch = (1 << 20) / bytes_per_op + 1, i;
	double best = 0;
	int rep;

	for (rep = 0; rep < 8; rep++) {
		double t0 = now(), t;
		unsigned long n = 0;

		do {
			for (i = 0; i < batch; i++)
				fn(op);
			n += batch;
			t = now() - t0;
		} while (t < cell_secs / 8);
		if (n * bytes_per_op / t > best)
			best = n * bytes_per_op / t;
	}
	return best / 1e9;
}

static double memcpy_gbs(size_t b)
{
	double best = 0;
	int rep;

	for (rep = 0; rep < 8; rep++) {
		double t0 = now(), t;
		unsigned long n = 0;

		do {
			unsigned long i;

			for (i = 0; i < (1 << 20) / b + 1; i++) {
				struct stripe *s = next();

				memcpy(s->x, s->d[0], b);
				/* keep the copy from being optimised out */
				__asm__ volatile("" : : "r"(s->x) : "memory");
			}
			n += (1 << 20) / b + 1;
			t = now() - t0;
		} while (t < cell_secs / 8);
		if (n * b / t > best)
			best = n * b / t;
	}
	return best / 1e9;
}

/*
 * memcpy of every data block of each stripe into its own destination
 * (k * block bytes per stripe, counted as k * block), cycling through the
 * whole pool: the same bytes read from the same DRAM-resident buffers as
 * gen_pq, written to a DRAM-sized destination pool.
 */
static double memcpy_all_gbs(void)
{
	double best = 0;
	int rep;

	for (rep = 0; rep < 8; rep++) {
		double t0 = now(), t;
		unsigned long n = 0;

		do {
			struct stripe *s = next();
			unsigned int i;

			for (i = 0; i < k; i++) {
				memcpy(s->c[i], s->d[i], blk);
				__asm__ volatile("" : : "r"(s->c[i]) : "memory");
			}
			n++;
			t = now() - t0;
		} while (t < cell_secs / 8);
		if (n * k * blk / t > best)
			best = n * k * blk / t;
	}
	return best / 1e9;
}

/* The recovered blocks must equal the originals, for every family. */
static void verify(const char *who, void (*fn)(int))
{
	static const int ops[] = { OP_REC_D, OP_REC_DP, OP_REC_DQ, OP_REC_2D };
	unsigned int j;

	for (j = 0; j < sizeof(ops) / sizeof(ops[0]); j++) {
		struct stripe *s = &pool[0];

#ifdef HAVE_RAID6
		if (fn == run_raid6 && !raid6_has(ops[j]))
			continue;
#endif
		memset(s->x, 0, blk);
		memset(s->y, 0, blk);
		memset(s->xp, 0, blk);
		cur = 0;
		fn(ops[j]);
		if (memcmp(s->x, s->d[FA], blk) ||
		    (ops[j] == OP_REC_2D && memcmp(s->y, s->d[FB], blk)) ||
		    (ops[j] == OP_REC_DP && memcmp(s->xp, s->p, blk))) {
			printf("# BAD: %s %s gives wrong data\n", who,
			       op_names[ops[j]]);
			exit(1);
		}
	}
}

/*
 * Optional filters for quick runs: GF_BENCH_COLS (names of columns to
 * measure, e.g. "gfni raid6"), GF_BENCH_OPS (op numbers 0-6, e.g. "46").
 * Cells left out print "-".
 */
static bool want_col(const char *name)
{
	const char *f = getenv("GF_BENCH_COLS");

	return !f || strstr(f, name);
}

static bool want_op(unsigned int op)
{
	const char *f = getenv("GF_BENCH_OPS");

	return !f || strchr(f, '0' + op);
}

static void bench_case(unsigned int kk, size_t b, size_t pool_bytes)
{
	unsigned int i, op;

	pool_init(kk, b, pool_bytes);
	isal_prepare();
	for (i = 0; lraid_gf_impls[i]; i++) {
		im = lraid_gf_impls[i];
		if (!lraid_gf_impl_supported(im, NULL))
			continue;
		lraid_gf_impl_begin(im);
		verify(im->name, run_ours);
		lraid_gf_impl_end(im);
	}
	verify("isa-l", run_isal);
#ifdef HAVE_RAID6
	r6cur = r6int;
	verify("raid6 intx1", run_raid6);
	r6cur = r6r;
	verify("raid6", run_raid6);
#endif
	printf("\n## k=%u, %zu KiB blocks, %s; memcpy %.1f GB/s\n", k,
	       b / 1024, npool > 1 ? "DRAM (pool of stripes)" : "hot in cache",
	       memcpy_gbs(b));
	if (npool > 1)
		printf("# memcpy of all k data blocks per stripe (%u stripes, "
		       "%zu MiB read + %zu MiB written): %.1f GB/s\n", npool,
		       npool * k * b >> 20, npool * k * b >> 20,
		       memcpy_all_gbs());
	printf("%-15s", "op \\ GB/s");
	for (i = 0; lraid_gf_impls[i]; i++)
		if (lraid_gf_impl_supported(lraid_gf_impls[i], NULL))
			printf(" %8s", lraid_gf_impls[i]->name);
	printf(" %8s", "isa-l");
#ifdef HAVE_RAID6
	printf(" %8s %8s  %s", "raid6", "r6-intx1", "(raid6 algorithm)");
#endif
	printf("\n");
	for (op = 0; op < NOPS; op++) {
		size_t bytes = op == OP_RMW1 ? b : k * b;

		if (!want_op(op))
			continue;
		printf("%-15s", op_names[op]);
		for (i = 0; lraid_gf_impls[i]; i++) {
			im = lraid_gf_impls[i];
			if (!lraid_gf_impl_supported(im, NULL))
				continue;
			if (!want_col(im->name)) {
				printf(" %8s", "-");
				continue;
			}
			lraid_gf_impl_begin(im);
			printf(" %8.1f", measure(run_ours, op, bytes));
			lraid_gf_impl_end(im);
			fflush(stdout);
		}
		if (want_col("isa-l"))
			printf(" %8.1f", measure(run_isal, op, bytes));
		else
			printf(" %8s", "-");
#ifdef HAVE_RAID6
		if (raid6_has(op) && want_col("raid6"))
			printf(" %8.1f", measure(run_raid6, op, bytes));
		else
			printf(" %8s", "-");
		if (op > OP_RMW1 && raid6_has(op) && want_col("intx1")) {
			r6cur = r6int;
			printf(" %8.1f", measure(run_raid6, op, bytes));
			r6cur = r6r;
		} else {
			printf(" %8s", "-");
		}
		if (raid6_has(op))
			printf("  (%s)", op <= OP_RMW1 ? r6->name : r6r->name);
#endif
		printf("\n");
	}
	pool_free();
}

int main(int argc, char **argv)
{
	unsigned int i;
	cpu_set_t set;

	if (argc > 1)
		cell_secs = atof(argv[1]);
	CPU_ZERO(&set);
	CPU_SET(getenv("GF_BENCH_CPU") ? atoi(getenv("GF_BENCH_CPU")) : 0,
		&set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; lraid_gf_impls[i]; i++) {
		const char *why = "";

		if (!lraid_gf_impl_supported(lraid_gf_impls[i], &why))
			printf("# %s not measured: %s\n",
			       lraid_gf_impls[i]->name, why);
	}
#ifdef HAVE_RAID6
	/* The highest-priority valid lib/raid6 routines, as the kernel picks
	 * them (its load-time benchmark aside).
	 */
	for (i = 0; raid6_algos[i]; i++)
		if ((!raid6_algos[i]->valid || raid6_algos[i]->valid()) &&
		    (!r6 || raid6_algos[i]->priority > r6->priority))
			r6 = raid6_algos[i];
	for (i = 0; raid6_recov_algos[i]; i++)
		if ((!raid6_recov_algos[i]->valid ||
		     raid6_recov_algos[i]->valid()) &&
		    (!r6r || raid6_recov_algos[i]->priority > r6r->priority))
			r6r = raid6_recov_algos[i];
	for (i = 0; raid6_recov_algos[i]; i++)
		if (!strcmp(raid6_recov_algos[i]->name, "intx1"))
			r6int = raid6_recov_algos[i];
	if (!r6int)
		r6int = r6r;
	r6cur = r6r;
	raid6_call = *r6;
	printf("# lib/raid6 (linux-source-6.12, userspace): %s, %s; "
	       "r6-intx1 column: its %s recovery\n",
	       r6->name, r6r->name, r6int->name);
#else
	printf("# lib/raid6 not built (no /usr/src/linux-source-6.12)\n");
#endif
	if (argc < 3 || strchr(argv[2], '4'))
		bench_case(4, 4096, 0);
	if (argc < 3 || strchr(argv[2], '8'))
		bench_case(8, 4096, 0);
	if (argc < 3 || strchr(argv[2], '6'))
		bench_case(16, 4096, 0);
	if (argc < 3 || strchr(argv[2], 'D'))
		bench_case(8, 1 << 20, 256 << 20);
	/* optional: k = 16 and k = 4 from DRAM */
	if (argc >= 3 && strchr(argv[2], 'E'))
		bench_case(16, 1 << 20, 256 << 20);
	if (argc >= 3 && strchr(argv[2], 'F'))
		bench_case(4, 1 << 20, 256 << 20);
	return 0;
}
