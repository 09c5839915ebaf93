// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the client's remote invalidation policy: which rkeys
 * named by a stray Send With Invalidate the client traces as belonging
 * to an MR in use (frwr_rkey_in_use() in frwr_ops.c).
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

#include <linux/slab.h>

#include "xprt_rdma.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

/* frwr_rkey_in_use() only tests mr_device for NULL */
#define TEST_DEVICE	((struct ib_device *)0x1)

/* The MRs of the test transport: rkey, and whether it is registered */
static const struct {
	u32	handle;
	bool	registered;
} test_mrs[] = {
	{ 0x00001205, true },	/* a chunk of an RPC waiting for its reply */
	{ 0x00001306, false },	/* released: invalidated, on a free list */
	{ 0x00001407, true },	/* the Write-pad MR, registered for good */
	{ 0x00001500, false },	/* allocated, never registered */
};

struct reminv_case {
	const char	*desc;
	u32		rkey;
	bool		in_use;
};

static const struct reminv_case reminv_cases[] = {
	{ "registered MR", 0x00001205, true },
	{ "registered MR under another key octet", 0x000012aa, true },
	{ "Write-pad MR", 0x00001407, true },
	{ "released MR", 0x00001306, false },
	{ "released MR under another key octet", 0x00001399, false },
	{ "never registered MR", 0x00001500, false },
	{ "no MR of this transport", 0x00009905, false },
	{ "zero", 0x00000000, false },
};

static void reminv_case_desc(const struct reminv_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reminv, reminv_cases, reminv_case_desc);

static void frwr_rkey_in_use_test(struct kunit *test)
{
	const struct reminv_case *t = test->param_value;
	struct rpcrdma_xprt *r_xprt;
	struct rpcrdma_mr *mr;
	size_t i;

	r_xprt = kunit_kzalloc(test, sizeof(*r_xprt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r_xprt);
	spin_lock_init(&r_xprt->rx_buf.rb_lock);
	INIT_LIST_HEAD(&r_xprt->rx_buf.rb_all_mrs);
	for (i = 0; i < ARRAY_SIZE(test_mrs); i++) {
		mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mr);
		mr->mr_handle = test_mrs[i].handle;
		mr->mr_device = test_mrs[i].registered ? TEST_DEVICE : NULL;
		list_add_tail(&mr->mr_all, &r_xprt->rx_buf.rb_all_mrs);
	}

	KUNIT_EXPECT_EQ_MSG(test, frwr_rkey_in_use(r_xprt, t->rkey), t->in_use,
			    "rkey 0x%08x: %s in use",
			    t->rkey, t->in_use ? "must be" : "must not be");
}

static struct kunit_case reminv_test_cases[] = {
	KUNIT_CASE_PARAM(frwr_rkey_in_use_test, reminv_gen_params),
	{}
};

static struct kunit_suite reminv_test_suite = {
	.name = "rpcrdma_reminv",
	.test_cases = reminv_test_cases,
};

kunit_test_suite(reminv_test_suite);

MODULE_DESCRIPTION("KUnit tests for the RPC-over-RDMA remote invalidation policy");
MODULE_LICENSE("GPL");
