/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small user-space stand-in for <kunit/test.h>: enough of the API to
 * compile and run net/sunrpc/xprtrdma/cm_private_test.c unmodified
 * under the address and undefined-behaviour sanitizers (see
 * ../../kunit_main.c).  It is a convenience for quick iteration, not a
 * substitute for running the suite in a kernel.
 */
#ifndef _SHIM_KUNIT_TEST_H
#define _SHIM_KUNIT_TEST_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#define KUNIT_PARAM_DESC_SIZE 128

struct kunit {
	const void	*param_value;
	const char	*param_desc;
	int		failures;
	jmp_buf		abort;
	void		*allocs[64];
	int		nallocs;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(fn)		{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_PARAM(fn, gen) \
	{ .run_case = fn, .name = #fn, .generate_params = gen }

#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof((array)[0]) *__next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
		void (*__get_desc)(typeof(__next), char *) = get_desc;	\
									\
		if ((size_t)(__next - (array)) >= ARRAY_SIZE(array))	\
			return NULL;					\
		if (__get_desc)						\
			__get_desc(__next, desc);			\
		return __next;						\
	}

extern struct kunit_suite *shim_kunit_suite;
#define kunit_test_suite(s)	struct kunit_suite *shim_kunit_suite = &(s)

#define MODULE_IMPORT_NS(ns)	extern int shim_module_import_ns
#define MODULE_DESCRIPTION(d)	extern int shim_module_description
#define MODULE_LICENSE(l)	extern int shim_module_license

void *shim_kunit_kmalloc(struct kunit *test, size_t size, int zero);
void shim_kunit_fail(struct kunit *test, int fatal, const char *file,
		     int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#define kunit_kmalloc(test, size, gfp)	shim_kunit_kmalloc(test, size, 0)
#define kunit_kzalloc(test, size, gfp)	shim_kunit_kmalloc(test, size, 1)

#define SHIM_CHECK(test, fatal, cond, text, fmt, ...)			\
	do {								\
		if (!(cond))						\
			shim_kunit_fail(test, fatal, __FILE__, __LINE__, \
					text, fmt, ##__VA_ARGS__);	\
	} while (0)

#define SHIM_BIN(test, fatal, l, op, r, fmt, ...)			\
	do {								\
		typeof(l) __l = (l);					\
		typeof(r) __r = (r);					\
									\
		if (!(__l op __r)) {					\
			fprintf(stderr, "    %s == %lld, %s == %lld\n",	\
				#l, (long long)__l, #r, (long long)__r); \
			shim_kunit_fail(test, fatal, __FILE__, __LINE__, \
					#l " " #op " " #r, fmt,		\
					##__VA_ARGS__);			\
		}							\
	} while (0)

#define KUNIT_EXPECT_EQ_MSG(t, l, r, fmt, ...) SHIM_BIN(t, 0, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, fmt, ...) SHIM_BIN(t, 0, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, fmt, ...) SHIM_BIN(t, 0, l, >=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(t, l, r, fmt, ...) SHIM_BIN(t, 1, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(t, l, r, fmt, ...) SHIM_BIN(t, 1, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(t, l, r, fmt, ...) SHIM_BIN(t, 1, l, >=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_EQ(t, l, r)	KUNIT_EXPECT_EQ_MSG(t, l, r, "%s", "")
#define KUNIT_ASSERT_EQ(t, l, r)	KUNIT_ASSERT_EQ_MSG(t, l, r, "%s", "")
#define KUNIT_ASSERT_LE(t, l, r)	KUNIT_ASSERT_LE_MSG(t, l, r, "%s", "")

#define KUNIT_EXPECT_TRUE_MSG(t, c, fmt, ...) \
	SHIM_CHECK(t, 0, (c), #c, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, fmt, ...) \
	SHIM_CHECK(t, 0, !(c), "!(" #c ")", fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ_MSG(t, l, r, fmt, ...) \
	SHIM_CHECK(t, 0, !strcmp((l), (r)), #l " == " #r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ(t, l, r)	KUNIT_EXPECT_STREQ_MSG(t, l, r, "%s", "")
#define KUNIT_EXPECT_MEMEQ_MSG(t, l, r, n, fmt, ...) \
	SHIM_CHECK(t, 0, !memcmp((l), (r), (n)), "memeq " #l ", " #r, \
		   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p) \
	SHIM_CHECK(t, 1, (p) != NULL, #p " != NULL", "%s", "")

#endif
