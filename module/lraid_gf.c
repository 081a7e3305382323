// SPDX-License-Identifier: GPL-2.0
/*
 * lraid parity dispatcher: picks one implementation at load (CPU features,
 * then a short gen_pq benchmark, or the "parity=" module parameter) and
 * routes the lraid_gf_* calls of lraid_gf.h to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <kunit/visibility.h>
#endif

#include "lraid_gf.h"

const struct lraid_gf_impl *const lraid_gf_impls[] = {
	&lraid_gf_impl_c,
	&lraid_gf_impl_avx2,
	&lraid_gf_impl_avx512,
	&lraid_gf_impl_gfni,
	NULL
};
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impls);

static const struct lraid_gf_impl *gf_cur = &lraid_gf_impl_c;

#ifdef __KERNEL__
static bool cpu_avx2(void)
{
	return boot_cpu_has(X86_FEATURE_AVX) &&
	       boot_cpu_has(X86_FEATURE_AVX2) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
}

static bool cpu_avx512(void)
{
	return cpu_avx2() && boot_cpu_has(X86_FEATURE_AVX512F) &&
	       boot_cpu_has(X86_FEATURE_AVX512BW) &&
	       boot_cpu_has(X86_FEATURE_AVX512VL) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
				 XFEATURE_MASK_AVX512, NULL);
}

static bool cpu_gfni(void)
{
	return cpu_avx512() && boot_cpu_has(X86_FEATURE_GFNI);
}
#else
/* GCC's checks include the OS (XGETBV) state for AVX and AVX-512. */
static bool cpu_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}

static bool cpu_avx512(void)
{
	return cpu_avx2() && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl");
}

static bool cpu_gfni(void)
{
	return cpu_avx512() && __builtin_cpu_supports("gfni");
}
#endif

bool lraid_gf_impl_supported(const struct lraid_gf_impl *impl,
			     const char **why)
{
	const char *need = NULL;

	if (impl == &lraid_gf_impl_avx2 && !cpu_avx2())
		need = "CPU or OS lacks AVX2";
	else if (impl == &lraid_gf_impl_avx512 && !cpu_avx512())
		need = "CPU or OS lacks AVX-512 F/BW/VL";
	else if (impl == &lraid_gf_impl_gfni && !cpu_gfni())
		need = "CPU or OS lacks GFNI with AVX-512 F/BW/VL";
	if (need && why)
		*why = need;
	return !need;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_supported);

const struct lraid_gf_impl *lraid_gf_current(void)
{
	return gf_cur;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_current);

void lraid_gf_impl_begin(const struct lraid_gf_impl *impl)
{
#ifdef __KERNEL__
	if (impl->simd)
		kernel_fpu_begin();
#endif
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_begin);

void lraid_gf_impl_end(const struct lraid_gf_impl *impl)
{
#ifdef __KERNEL__
	if (impl->simd)
		kernel_fpu_end();
#endif
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_end);

void lraid_gf_impl_gen_p(const struct lraid_gf_impl *impl, unsigned int k,
			 size_t len, void *const *data, void *p)
{
	impl->xor_gen(k, len, data, p);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_gen_p);

void lraid_gf_impl_update_pq(const struct lraid_gf_impl *impl,
			     unsigned int first, unsigned int n, size_t len,
			     void *const *old, void *const *new,
			     void *p, void *q)
{
	void *src[2 * 32 + 1];
	unsigned int j;

	if (!n)
		return;
	if (q) {
		impl->update_pq(first, n, len, old, new, p, q);
		return;
	}
	/* RAID5: P ^= old ^ new for every changed block, in one pass. */
	src[0] = p;
	for (j = 0; j < n; j++) {
		src[1 + 2 * j] = old[j];
		src[2 + 2 * j] = new[j];
	}
	impl->xor_gen(2 * n + 1, len, src, p);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_update_pq);

void lraid_gf_impl_recov_data_p(const struct lraid_gf_impl *impl,
				unsigned int k, size_t len, void *const *data,
				unsigned int fa, const void *p)
{
	void *src[32];
	unsigned int i, n = 0;

	for (i = 0; i < k; i++)
		if (i != fa)
			src[n++] = data[i];
	src[n++] = (void *)p;
	impl->xor_gen(n, len, src, data[fa]);
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_impl_recov_data_p);

/* The lraid_gf.h API, on the selected implementation. */

const char *lraid_gf_name(void)
{
	return gf_cur->name;
}

void lraid_gf_begin(void)
{
	lraid_gf_impl_begin(gf_cur);
}

void lraid_gf_end(void)
{
	lraid_gf_impl_end(gf_cur);
}

void lraid_gf_gen_p(unsigned int k, size_t len, void *const *data, void *p)
{
	gf_cur->xor_gen(k, len, data, p);
}

void lraid_gf_gen_pq(unsigned int k, size_t len, void *const *data,
		     void *p, void *q)
{
	gf_cur->gen_pq(k, len, data, p, q);
}

void lraid_gf_update_pq(unsigned int first, unsigned int n, size_t len,
			void *const *old, void *const *new, void *p, void *q)
{
	lraid_gf_impl_update_pq(gf_cur, first, n, len, old, new, p, q);
}

void lraid_gf_recov_data_p(unsigned int k, size_t len, void *const *data,
			   unsigned int fa, const void *p)
{
	lraid_gf_impl_recov_data_p(gf_cur, k, len, data, fa, p);
}

void lraid_gf_recov_2data(unsigned int k, size_t len, void *const *data,
			  unsigned int fa, unsigned int fb,
			  const void *p, const void *q)
{
	gf_cur->recov_2data(k, len, data, fa, fb, p, q);
}

void lraid_gf_recov_data_q(unsigned int k, size_t len, void *const *data,
			   unsigned int fa, void *p, const void *q)
{
	gf_cur->recov_data_q(k, len, data, fa, p, q);
}

/* Selection. */

#define BENCH_K		8
#define BENCH_LEN	4096
#define BENCH_NS	(4 * 1000 * 1000)

/*
 * gen_pq throughput of @impl in MB/s of data, on @buf (BENCH_K + 2 blocks).
 * Rated by its fastest batch, not the average: a batch that a stolen CPU
 * (a busy hypervisor, an interrupt storm) stretched says nothing about the
 * implementation, and an average over BENCH_NS let such noise pick the C
 * baseline over SIMD.
 */
static unsigned long gf_bench(const struct lraid_gf_impl *impl, u8 *buf)
{
	void *data[BENCH_K];
	u64 start, t0, t, best = U64_MAX;
	unsigned int i;

	for (i = 0; i < BENCH_K; i++)
		data[i] = buf + i * BENCH_LEN;
	start = ktime_get_ns();
	do {
		t0 = ktime_get_ns();
		lraid_gf_impl_begin(impl);
		for (i = 0; i < 4; i++)
			impl->gen_pq(BENCH_K, BENCH_LEN, data,
				     buf + BENCH_K * BENCH_LEN,
				     buf + (BENCH_K + 1) * BENCH_LEN);
		lraid_gf_impl_end(impl);
		t = ktime_get_ns();
		if (t - t0 < best)
			best = t - t0;
	} while (t - start < BENCH_NS);
	if (!best)
		best = 1;
	/* bytes / ns * 1000 = MB/s */
	return (unsigned long)(4ULL * BENCH_K * BENCH_LEN * 1000 / best);
}

const struct lraid_gf_impl *lraid_gf_choose(const char *force,
					    unsigned long *mbs)
{
	const struct lraid_gf_impl *best = NULL, *impl;
	unsigned long m, best_mbs = 0;
	unsigned int i;
	u8 *buf;

	if (force && *force) {
		for (i = 0; lraid_gf_impls[i]; i++)
			if (!strcmp(lraid_gf_impls[i]->name, force))
				best = lraid_gf_impls[i];
		if (!best || !lraid_gf_impl_supported(best, NULL))
			return NULL;
	}

	buf = kmalloc((BENCH_K + 2) * BENCH_LEN, GFP_KERNEL);
	if (!buf) {
		*mbs = 0;
		return best ? best : &lraid_gf_impl_c;
	}
	for (i = 0; i < (BENCH_K + 2) * BENCH_LEN; i++)
		buf[i] = i * 131 + (i >> 9);

	if (best) {
		best_mbs = gf_bench(best, buf);
	} else {
		for (i = 0; lraid_gf_impls[i]; i++) {
			impl = lraid_gf_impls[i];
			if (!lraid_gf_impl_supported(impl, NULL))
				continue;
			m = gf_bench(impl, buf);
			if (!best || m > best_mbs) {
				best = impl;
				best_mbs = m;
			}
		}
	}
	kfree(buf);
	*mbs = best_mbs;
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(lraid_gf_choose);

static unsigned long gf_cur_mbs;

/*
 * Only while no array can be running (module init, userspace tests):
 * lraid_gf_begin() and the operations after it read gf_cur separately.
 */
int lraid_gf_init(const char *force)
{
	const struct lraid_gf_impl *impl;
	unsigned long mbs;

	impl = lraid_gf_choose(force, &mbs);
	if (!impl)
		return -ENODEV;
	gf_cur = impl;
	gf_cur_mbs = mbs;
	return 0;
}

#ifdef __KERNEL__
static char gf_param[16];

static int gf_param_set(const char *val, const struct kernel_param *kp)
{
	if (strlen(val) >= sizeof(gf_param))
		return -EINVAL;
	strscpy(gf_param, val, sizeof(gf_param));
	strim(gf_param);
	return 0;
}

/* Reads back the implementation in use, not what was asked for. */
static int gf_param_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", gf_cur->name);
}

static const struct kernel_param_ops gf_param_ops = {
	.set = gf_param_set,
	.get = gf_param_get,
};

module_param_cb(parity, &gf_param_ops, NULL, 0444);
MODULE_PARM_DESC(parity,
		 "parity implementation: c, avx2, avx512, gfni (default: fastest; reads back the one in use)");
#else
static const char gf_param[] = "";
#endif

int lraid_gf_module_init(void)
{
	int ret = 0;

	if (gf_param[0]) {
		ret = lraid_gf_init(gf_param);
		if (ret)
			pr_warn("parity: \"%s\" unknown or not supported by this CPU, choosing automatically\n",
				gf_param);
	}
	if (!gf_param[0] || ret)
		ret = lraid_gf_init(NULL);
	if (ret)
		return ret;
	pr_info("parity: %s (gen_pq %lu.%lu GB/s)\n", gf_cur->name,
		gf_cur_mbs / 1000, gf_cur_mbs % 1000 / 100);
	return 0;
}
