/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal userspace stand-in for <kunit/test.h>: lets kunit/<area>_kunit.c
 * files build and run on the host unchanged. Each case prints one line,
 * "PASS: suite.case" or "FAIL: suite.case"; the program exits 1 on any
 * failure. Only the macros lraid's suites use are provided.
 */
#ifndef LRAID_KUNIT_USER_TEST_H
#define LRAID_KUNIT_USER_TEST_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kunit {
	const char *name;
	int failed;
	jmp_buf abort;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(fn) { .run_case = fn, .name = #fn }

#ifndef GFP_KERNEL
#define GFP_KERNEL 0
#endif
static inline void *kunit_kzalloc(struct kunit *test, size_t size, int gfp)
{
	(void)test;
	(void)gfp;
	return calloc(1, size);
}

/* <linux/string.h> helpers the suites use */
static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (len == size) {
		if (size)
			dst[--len] = '\0';
		memcpy(dst, src, len);
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

#define kunit_info(test, fmt, ...) printf("# " fmt, ##__VA_ARGS__)

#define KUNIT_U_REPORT(test, fatal, ...) do {				\
	printf("# %s:%d: ", __FILE__, __LINE__);			\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	(test)->failed = 1;						\
	if (fatal)							\
		longjmp((test)->abort, 1);				\
} while (0)

#define KUNIT_U_CMP(test, fatal, l, op, r, fmt, ...) do {		\
	__typeof__(l) _l = (l);						\
	__typeof__(r) _r = (r);						\
	if (!(_l op _r)) {						\
		KUNIT_U_REPORT(test, 0, "expected %s %s %s: %lld vs %lld",\
			       #l, #op, #r, (long long)_l, (long long)_r);\
		KUNIT_U_REPORT(test, fatal, fmt, ##__VA_ARGS__);	\
	}								\
} while (0)

#define KUNIT_U_BOOL(test, fatal, cond, fmt, ...) do {			\
	if (!(cond)) {							\
		KUNIT_U_REPORT(test, 0, "expected %s", #cond);		\
		KUNIT_U_REPORT(test, fatal, fmt, ##__VA_ARGS__);	\
	}								\
} while (0)

#define KUNIT_EXPECT_EQ_MSG(t, l, r, ...) KUNIT_U_CMP(t, 0, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, l, r, ...) KUNIT_U_CMP(t, 0, l, !=, r, __VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, l, r, ...) KUNIT_U_CMP(t, 0, l, <, r, __VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, ...) KUNIT_U_CMP(t, 0, l, <=, r, __VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, l, r, ...) KUNIT_U_CMP(t, 0, l, >, r, __VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, ...) KUNIT_U_CMP(t, 0, l, >=, r, __VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(t, l, r, ...) KUNIT_U_CMP(t, 1, l, ==, r, __VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(t, l, r, ...) KUNIT_U_CMP(t, 1, l, !=, r, __VA_ARGS__)
#define KUNIT_EXPECT_TRUE_MSG(t, c, ...) KUNIT_U_BOOL(t, 0, c, __VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, ...) KUNIT_U_BOOL(t, 0, !(c), __VA_ARGS__)
#define KUNIT_ASSERT_TRUE_MSG(t, c, ...) KUNIT_U_BOOL(t, 1, c, __VA_ARGS__)

#define KUNIT_EXPECT_EQ(t, l, r) KUNIT_EXPECT_EQ_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_NE(t, l, r) KUNIT_EXPECT_NE_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_LT(t, l, r) KUNIT_EXPECT_LT_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_LE(t, l, r) KUNIT_EXPECT_LE_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_GT(t, l, r) KUNIT_EXPECT_GT_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_GE(t, l, r) KUNIT_EXPECT_GE_MSG(t, l, r, "%s", "")
#define KUNIT_ASSERT_EQ(t, l, r) KUNIT_ASSERT_EQ_MSG(t, l, r, "%s", "")
#define KUNIT_ASSERT_NE(t, l, r) KUNIT_ASSERT_NE_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_TRUE(t, c) KUNIT_EXPECT_TRUE_MSG(t, c, "%s", "")
#define KUNIT_EXPECT_FALSE(t, c) KUNIT_EXPECT_FALSE_MSG(t, c, "%s", "")
#define KUNIT_ASSERT_TRUE(t, c) KUNIT_ASSERT_TRUE_MSG(t, c, "%s", "")
#define KUNIT_ASSERT_NOT_NULL(t, p) KUNIT_ASSERT_TRUE(t, (p) != NULL)
#define KUNIT_EXPECT_NULL(t, p) KUNIT_EXPECT_TRUE(t, (p) == NULL)
#define KUNIT_EXPECT_NOT_NULL(t, p) KUNIT_EXPECT_TRUE(t, (p) != NULL)
#define KUNIT_EXPECT_STREQ(t, a, b) KUNIT_EXPECT_TRUE_MSG(t,		\
	strcmp((a), (b)) == 0, "\"%s\" vs \"%s\"", (a), (b))

static inline int kunit_user_case(const struct kunit_case *c)
{
	struct kunit test = { .name = c->name };

	if (!setjmp(test.abort))
		c->run_case(&test);
	return test.failed;
}

static inline int kunit_user_run(const struct kunit_suite *suite)
{
	const struct kunit_case *c;
	int failed = 0, f;

	for (c = suite->test_cases; c->run_case; c++) {
		f = kunit_user_case(c);
		printf("%s: %s.%s\n", f ? "FAIL" : "PASS", suite->name,
		       c->name);
		failed |= f;
	}
	return failed;
}

#define kunit_test_suite(suite)						\
	int main(void)							\
	{								\
		return kunit_user_run(&(suite));			\
	}								\
	extern int kunit_user_unused

#endif /* LRAID_KUNIT_USER_TEST_H */
