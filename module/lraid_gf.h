/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lraid parity library: RAID5 P (XOR) and RAID6 Q (GF(2^8) syndrome,
 * polynomial 0x11D, generator 2, bit-identical to lib/raid6 and md).
 *
 * Data index i (0..k-1) is weighted g^i in Q, i.e. data[0] is the first
 * data chunk of the stripe in logical order (see lraid_geom.h).
 *
 * Buffers: @len is a multiple of 64 and at least 512; buffers need no
 * particular alignment beyond what the caller naturally has (page or
 * sector aligned in the kernel). k is 2..30 for RAID6, 2..31 for RAID5.
 *
 * SIMD: every operation below must run between lraid_gf_begin() and
 * lraid_gf_end(), in task context. begin/end wrap kernel_fpu_begin/end
 * when the selected implementation uses vector registers, which disables
 * preemption. The driver opens one section per op (one window of one
 * stripe, at most 64 KiB per member): in its worker kthreads a section
 * saves no user FPU state, so begin/end cost little more than the
 * preemption toggle.
 *
 * The same sources build in userspace (lraid_user.h) for tests and bench.
 */
#ifndef LRAID_GF_H
#define LRAID_GF_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

/* Most data blocks per stripe any operation accepts (RAID5, 32 members). */
#define LRAID_GF_MAX_K	31

/* Select the implementation: @force names one ("c", "avx2", "avx512",
 * "gfni") or is NULL/"" for automatic choice. Returns 0 or -ENODEV when the
 * forced one is not supported by this CPU (or unknown). Only before any
 * array runs: the module's load, userspace tests.
 */
int lraid_gf_init(const char *force);
const char *lraid_gf_name(void);

void lraid_gf_begin(void);
void lraid_gf_end(void);

/* P = XOR of data[0..k-1]. */
void lraid_gf_gen_p(unsigned int k, size_t len, void *const *data, void *p);
/* P and Q of data[0..k-1]. */
void lraid_gf_gen_pq(unsigned int k, size_t len, void *const *data,
		     void *p, void *q);

/*
 * Read-modify-write: data indices first..first+n-1 change from old[j] to
 * new[j] (j = 0..n-1, so old[0] is data index @first). P and Q are
 * updated in place; @q may be NULL (RAID5).
 */
void lraid_gf_update_pq(unsigned int first, unsigned int n, size_t len,
			void *const *old, void *const *new, void *p, void *q);

/*
 * Recovery. @data holds k pointers; the blocks named as failed are
 * rewritten, every other one is read only.
 *   recov_data_p: data[fa] from the other data and P (RAID5 or RAID6).
 *   recov_2data:  data[fa] and data[fb] (fa != fb) from the rest, P and Q.
 *   recov_data_q: data[fa] and P lost: data[fa] from Q, then P regenerated.
 * (Data + Q lost is recov_data_p followed by lraid_gf_gen_pq.)
 */
void lraid_gf_recov_data_p(unsigned int k, size_t len, void *const *data,
			   unsigned int fa, const void *p);
void lraid_gf_recov_2data(unsigned int k, size_t len, void *const *data,
			  unsigned int fa, unsigned int fb,
			  const void *p, const void *q);
void lraid_gf_recov_data_q(unsigned int k, size_t len, void *const *data,
			   unsigned int fa, void *p, const void *q);

/* Called once from module init: reads the "parity=" module parameter,
 * selects an implementation (CPU features, then a short benchmark) and
 * prints the choice. Returns 0 or a negative errno.
 */
int lraid_gf_module_init(void);

/*
 * Internal interface between the dispatcher (lraid_gf.c) and the
 * implementations (lraid_gf_<name>.c); also used by the tests, which call
 * one implementation directly. Not for the rest of lraid.
 */
struct lraid_gf_impl {
	const char *name;
	bool simd;		/* needs lraid_gf_begin()/end() */
	/* dst = src[0] ^ ... ^ src[n - 1]; dst may be src[0]. */
	void (*xor_gen)(unsigned int n, size_t len, void *const *src,
			void *dst);
	void (*gen_pq)(unsigned int k, size_t len, void *const *data,
		       void *p, void *q);
	/* As lraid_gf_update_pq(), @q never NULL. */
	void (*update_pq)(unsigned int first, unsigned int n, size_t len,
			  void *const *old, void *const *new, void *p, void *q);
	void (*recov_2data)(unsigned int k, size_t len, void *const *data,
			    unsigned int fa, unsigned int fb,
			    const void *p, const void *q);
	void (*recov_data_q)(unsigned int k, size_t len, void *const *data,
			     unsigned int fa, void *p, const void *q);
};

extern const struct lraid_gf_impl lraid_gf_impl_c;
extern const struct lraid_gf_impl lraid_gf_impl_avx2;
extern const struct lraid_gf_impl lraid_gf_impl_avx512;
extern const struct lraid_gf_impl lraid_gf_impl_gfni;

/* Every implementation, C baseline first; NULL terminated. */
extern const struct lraid_gf_impl *const lraid_gf_impls[];
/* Is @impl usable on this CPU? If not and @why, *why says what is missing. */
bool lraid_gf_impl_supported(const struct lraid_gf_impl *impl,
			     const char **why);
/* The implementation in use. */
const struct lraid_gf_impl *lraid_gf_current(void);
/*
 * What lraid_gf_init(@force) would select, and its gen_pq rate in MB/s
 * (0 when not measured); NULL when @force is unknown or unsupported.
 * Changes nothing: safe while arrays run.
 */
const struct lraid_gf_impl *lraid_gf_choose(const char *force,
					    unsigned long *mbs);

/*
 * Run one operation of a given implementation (tests, benchmark). The
 * caller brackets SIMD implementations with lraid_gf_impl_begin/end.
 */
void lraid_gf_impl_begin(const struct lraid_gf_impl *impl);
void lraid_gf_impl_end(const struct lraid_gf_impl *impl);
void lraid_gf_impl_gen_p(const struct lraid_gf_impl *impl, unsigned int k,
			 size_t len, void *const *data, void *p);
void lraid_gf_impl_update_pq(const struct lraid_gf_impl *impl,
			     unsigned int first, unsigned int n, size_t len,
			     void *const *old, void *const *new,
			     void *p, void *q);
void lraid_gf_impl_recov_data_p(const struct lraid_gf_impl *impl,
				unsigned int k, size_t len, void *const *data,
				unsigned int fa, const void *p);

/* GF(2^8) helpers (lraid_gf_tab.c), polynomial 0x11D. */
extern const u8 lraid_gf_exp[256];	/* exp[i] = 2^i, exp[255] = 1 */
extern const u8 lraid_gf_log[256];	/* log[0] unused */
u8 lraid_gf_mul(u8 a, u8 b);
u8 lraid_gf_inv(u8 a);			/* a != 0 */
u8 lraid_gf_pow2(int e);		/* 2^e, e may be negative */
/* tbl[0..15] = c * i, tbl[16..31] = c * (i << 4) (for PSHUFB). */
void lraid_gf_nibble_tbl(u8 c, u8 tbl[32]);
/* 8x8 bit matrix multiplying by c, in GF2P8AFFINEQB layout. */
u64 lraid_gf_affine(u8 c);
/* Precomputed: lraid_gf_nibble_tbl() and lraid_gf_affine() of every c. */
extern const u8 lraid_gf_nibble[256][32];
extern const u64 lraid_gf_affine_tbl[256];
/* Coefficients for recov_2data: Dx = ca * (P ^ Pxy) ^ cb * (Q ^ Qxy). */
void lraid_gf_2data_coef(unsigned int fa, unsigned int fb, u8 *ca, u8 *cb);

#endif /* LRAID_GF_H */
