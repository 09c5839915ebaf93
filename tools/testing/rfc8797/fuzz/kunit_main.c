// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the KUnit suite of net/sunrpc/xprtrdma/cm_private_test.c in user
 * space against the shim in include/kunit/test.h, with sanitizers.  It
 * prints one line per case and parameter and exits nonzero on failure.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <kunit/test.h>

void *shim_kunit_kmalloc(struct kunit *test, size_t size, int zero)
{
	/* malloc(0) is fine here: the suite never dereferences it */
	void *p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);

	if (p && test->nallocs < (int)ARRAY_SIZE(test->allocs))
		test->allocs[test->nallocs++] = p;
	return p;
}

void shim_kunit_fail(struct kunit *test, int fatal, const char *file,
		     int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    %s:%d: %s failed: %s\n    ", file, line,
		fatal ? "assertion" : "expectation", cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	test->failures++;
	if (fatal)
		longjmp(test->abort, 1);
}

static int run_one(struct kunit_case *c, const void *param, const char *desc)
{
	struct kunit test = { .param_value = param, .param_desc = desc };
	int i;

	if (!setjmp(test.abort))
		c->run_case(&test);
	for (i = 0; i < test.nallocs; i++)
		free(test.allocs[i]);
	printf("%s %s%s%s\n", test.failures ? "not ok" : "ok", c->name,
	       desc ? " # " : "", desc ? desc : "");
	return test.failures != 0;
}

int main(void)
{
	struct kunit_case *c;
	int failed = 0, total = 0;

	printf("# suite %s\n", shim_kunit_suite->name);
	for (c = shim_kunit_suite->test_cases; c->run_case; c++) {
		char desc[KUNIT_PARAM_DESC_SIZE];
		const void *param;

		if (!c->generate_params) {
			failed += run_one(c, NULL, NULL);
			total++;
			continue;
		}
		desc[0] = '\0';
		for (param = c->generate_params(NULL, desc); param;
		     param = c->generate_params(param, desc)) {
			failed += run_one(c, param, desc);
			total++;
			desc[0] = '\0';
		}
	}
	printf("# %d of %d failed\n", failed, total);
	return failed != 0;
}
