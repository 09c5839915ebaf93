// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RPC-over-RDMA version 1 CM Private Data helpers
 * (RFC 8797) in cm_private.c: size encoding, message construction, the
 * search of received Private Data, and inline threshold negotiation.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <linux/sunrpc/rpcrdma_cm.h>

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

/* The Format Identifier as it appears on the wire */
static const u8 cm_magic[4] = { 0xf6, 0xab, 0x0e, 0x18 };

/*
 * Private Data lengths an RDMA-CM consumer sees on InfiniBand: an IB CM
 * REQ carries 92 octets, of which the RDMA-CM's own header takes 36;
 * an IB CM REP carries 196.
 */
#define TEST_IB_REQ_LEN		56
#define TEST_IB_REP_LEN		196

/*
 * Fill @buf with octets that cannot contain the Format Identifier:
 * all of them are printable ASCII, so none is 0xf6.
 */
static void fill_pattern(u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = 0x20 + (i * 37) % 0x5f;
}

/* Write a message octet by octet; only the octets below @end are written */
static void put_msg(u8 *buf, size_t off, size_t end, u8 version, u8 flags,
		    u8 send, u8 recv)
{
	const u8 msg[RPCRDMA_CM_PRIVATE_LEN] = {
		cm_magic[0], cm_magic[1], cm_magic[2], cm_magic[3],
		version, flags, send, recv,
	};
	size_t i;

	for (i = 0; i < sizeof(msg) && off + i < end; i++)
		buf[off + i] = msg[i];
}

static void expect_defaults(struct kunit *test, const char *what,
			    const struct rpcrdma_cm_parse_result *res)
{
	KUNIT_EXPECT_EQ_MSG(test, res->flags, 0,
			    "%s: flags must be 0 when no message was used",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, res->props.send_size, 1024,
			    "%s: send size must be the RFC 8166 default 1024",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, res->props.recv_size, 1024,
			    "%s: receive size must be the RFC 8166 default 1024",
			    what);
	KUNIT_EXPECT_FALSE_MSG(test, res->props.remote_inv,
			       "%s: R must be clear without a peer message",
			       what);
}

/* Compare a parse result with the expected one, field by field */
static void expect_result(struct kunit *test, const char *what,
			  enum rpcrdma_cm_parse_status ret,
			  const struct rpcrdma_cm_parse_result *got,
			  const struct rpcrdma_cm_parse_result *want)
{
	KUNIT_EXPECT_EQ_MSG(test, ret, got->status,
			    "%s: return value must equal res->status", what);
	KUNIT_EXPECT_EQ_MSG(test, got->status, want->status,
			    "%s: status %s, expected %s", what,
			    rpcrdma_cm_status_name(got->status),
			    rpcrdma_cm_status_name(want->status));
	KUNIT_EXPECT_EQ_MSG(test, got->offset, want->offset,
			    "%s: wrong offset of the occurrence reported",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, got->version, want->version,
			    "%s: wrong version octet reported", what);
	if (want->status != RPCRDMA_CM_FOUND) {
		expect_defaults(test, what, got);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, got->flags, want->flags,
			    "%s: flags must be reported raw, as received",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, got->props.send_size, want->props.send_size,
			    "%s: send size must decode as (val + 1) * 1024",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, got->props.recv_size, want->props.recv_size,
			    "%s: receive size must decode as (val + 1) * 1024",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, got->props.remote_inv,
			    want->props.remote_inv,
			    "%s: remote_inv must follow the R bit alone", what);
}

/*
 * Size encoding (RFC 8797 section 4.2), including sizes the field
 * cannot represent: they are clamped to 1024..262144 and rounded down.
 */

struct cm_encode_case {
	u32	size;
	u8	expected;
};

static const struct cm_encode_case cm_encode_cases[] = {
	{ .size = 0,		.expected = 0 },
	{ .size = 1,		.expected = 0 },
	{ .size = 1023,		.expected = 0 },
	{ .size = 1024,		.expected = 0 },
	{ .size = 1025,		.expected = 0 },
	{ .size = 2047,		.expected = 0 },
	{ .size = 2048,		.expected = 1 },
	{ .size = 4096,		.expected = 3 },
	{ .size = 65536,	.expected = 63 },
	{ .size = 261120,	.expected = 254 },
	{ .size = 262143,	.expected = 254 },
	{ .size = 262144,	.expected = 255 },
	{ .size = 262145,	.expected = 255 },
	{ .size = UINT_MAX,	.expected = 255 },
};

static void cm_encode_case_desc(const struct cm_encode_case *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "size %u", t->size);
}

KUNIT_ARRAY_PARAM(cm_encode, cm_encode_cases, cm_encode_case_desc);

static void rpcrdma_cm_encode_size_test(struct kunit *test)
{
	const struct cm_encode_case *t = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, rpcrdma_cm_encode_size(t->size), t->expected,
			    "size %u must clamp to 1024..262144, round down to a multiple of 1024, and encode as size / 1024 - 1",
			    t->size);
	KUNIT_EXPECT_EQ_MSG(test, rpcrdma_cm_round_size(t->size),
			    ((u32)t->expected + 1) * 1024,
			    "size %u must round to what a peer decodes from its encoding",
			    t->size);
}

/* Every octet value decodes into range and encodes back to itself */
static void rpcrdma_cm_size_round_trip_test(struct kunit *test)
{
	unsigned int val;

	KUNIT_EXPECT_EQ_MSG(test, rpcrdma_cm_decode_size(0), 1024,
			    "encoded 0 means no octets beyond the first 1024");
	KUNIT_EXPECT_EQ_MSG(test, rpcrdma_cm_decode_size(3), 4096,
			    "encoded 3 means (3 + 1) * 1024 octets");
	KUNIT_EXPECT_EQ_MSG(test, rpcrdma_cm_decode_size(255), 262144,
			    "encoded 255 is the largest size, 256 KiB");

	/* Assertions: one broken octet value is enough to report */
	for (val = 0; val <= U8_MAX; val++) {
		u32 size = rpcrdma_cm_decode_size(val);

		KUNIT_ASSERT_EQ_MSG(test, size, (val + 1) * 1024,
				    "octet %u must decode as (val + 1) * 1024",
				    val);
		KUNIT_ASSERT_GE_MSG(test, size, RPCRDMA_CM_SIZE_MIN,
				    "octet %u decodes below the minimum", val);
		KUNIT_ASSERT_LE_MSG(test, size, RPCRDMA_CM_SIZE_MAX,
				    "octet %u decodes above the maximum", val);
		KUNIT_ASSERT_EQ_MSG(test, rpcrdma_cm_encode_size(size), val,
				    "octet %u decodes to %u, which must encode back to %u",
				    val, size, val);
	}
}

/* Message construction (RFC 8797 section 4) */

struct cm_build_case {
	const char			*desc;
	struct rpcrdma_cm_props		props;
	u8				expected[RPCRDMA_CM_PRIVATE_LEN];
};

static const struct cm_build_case cm_build_cases[] = {
	{
		.desc		= "RFC 8166 defaults",
		.props		= { .send_size = 1024, .recv_size = 1024 },
		.expected	= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00,
				    0x00, 0x00 },
	},
	{
		.desc		= "4 KiB both ways with R",
		.props		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.expected	= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01,
				    0x03, 0x03 },
	},
	{
		.desc		= "asymmetric 8 KiB send, 64 KiB receive, R",
		.props		= { .send_size = 8192, .recv_size = 65536,
				    .remote_inv = true },
		.expected	= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01,
				    0x07, 0x3f },
	},
	{
		.desc		= "unaligned sizes round down",
		.props		= { .send_size = 5000, .recv_size = 1500 },
		.expected	= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00,
				    0x03, 0x00 },
	},
	{
		.desc		= "out-of-range sizes clamp",
		.props		= { .send_size = 0, .recv_size = UINT_MAX,
				    .remote_inv = true },
		.expected	= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01,
				    0x00, 0xff },
	},
};

static void cm_build_case_desc(const struct cm_build_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_build, cm_build_cases, cm_build_case_desc);

static void rpcrdma_cm_private_build_test(struct kunit *test)
{
	const struct cm_build_case *t = test->param_value;
	struct rpcrdma_cm_private msg;

	KUNIT_ASSERT_EQ(test, sizeof(msg), 8);

	/* Stale contents must not leak into the reserved bits */
	memset(&msg, 0xff, sizeof(msg));
	rpcrdma_cm_private_build(&msg, &t->props);
	KUNIT_EXPECT_MEMEQ_MSG(test, &msg, t->expected, sizeof(msg),
			       "%s: expected the identifier in network byte order, version 1, only R in flags, encoded sizes",
			       t->desc);
}

/*
 * The identifier at every offset of buffers of the sizes the RDMA-CM
 * delivers.  Octets outside the message follow fill_pattern().  Where
 * all eight octets fit, the message must be found; where only the
 * identifier fits, it is truncated; a partial identifier at the very
 * end is not an occurrence.
 */

struct cm_offset_case {
	const char	*desc;
	size_t		len;
};

static const struct cm_offset_case cm_offset_cases[] = {
	{ .desc = "8 octets, just the message",		.len = 8 },
	{ .desc = "56 octets, IB CM REQ after the CMA header",
	  .len = TEST_IB_REQ_LEN },
	{ .desc = "196 octets, IB CM REP",		.len = TEST_IB_REP_LEN },
	{ .desc = "512 octets",				.len = 512 },
};

static void cm_offset_case_desc(const struct cm_offset_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_offset, cm_offset_cases, cm_offset_case_desc);

static void rpcrdma_cm_parse_every_offset_test(struct kunit *test)
{
	const struct cm_offset_case *t = test->param_value;
	struct rpcrdma_cm_parse_result res, want;
	enum rpcrdma_cm_parse_status ret;
	char what[64];
	size_t off;
	u8 *buf;

	/* Exactly sized, so that KASAN reports any read past the end */
	buf = kunit_kmalloc(test, t->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);

	for (off = 0; off < t->len; off++) {
		u8 flags = off & 1 ? RPCRDMA_CM_F_REMOTE_INV : 0;
		u8 send = off & 0xff;
		u8 recv = 0xff - send;

		fill_pattern(buf, t->len);
		put_msg(buf, off, t->len, RPCRDMA_CM_VERSION, flags, send,
			recv);

		memset(&want, 0, sizeof(want));
		if (off + RPCRDMA_CM_PRIVATE_LEN <= t->len) {
			want.status = RPCRDMA_CM_FOUND;
			want.offset = off;
			want.version = RPCRDMA_CM_VERSION;
			want.flags = flags;
			want.props.send_size = (send + 1) * 1024;
			want.props.recv_size = (recv + 1) * 1024;
			want.props.remote_inv = flags;
		} else if (off + sizeof(cm_magic) <= t->len) {
			want.status = RPCRDMA_CM_TRUNCATED;
			want.offset = off;
			if (off + 4 < t->len)
				want.version = RPCRDMA_CM_VERSION;
		} else {
			want.status = RPCRDMA_CM_ABSENT;
		}

		snprintf(what, sizeof(what), "%zu-octet buffer, message at %zu",
			 t->len, off);
		memset(&res, 0x5a, sizeof(res));
		ret = rpcrdma_cm_private_parse(buf, t->len, &res);
		/* Stop at the first broken offset rather than flood the log */
		KUNIT_ASSERT_EQ_MSG(test, res.status, want.status,
				    "%s: status %s, expected %s", what,
				    rpcrdma_cm_status_name(res.status),
				    rpcrdma_cm_status_name(want.status));
		expect_result(test, what, ret, &res, &want);
	}
}

/*
 * Short buffers: a complete message sits in a larger backing buffer, so
 * a search that read past @len would find it.
 */
static void rpcrdma_cm_parse_short_test(struct kunit *test)
{
	struct rpcrdma_cm_parse_result res, want;
	enum rpcrdma_cm_parse_status ret;
	u8 backing[16];
	char what[64];
	size_t len;
	u8 *exact;

	fill_pattern(backing, sizeof(backing));
	put_msg(backing, 0, sizeof(backing), RPCRDMA_CM_VERSION,
		RPCRDMA_CM_F_REMOTE_INV, 3, 3);

	for (len = 0; len < RPCRDMA_CM_PRIVATE_LEN; len++) {
		memset(&want, 0, sizeof(want));
		if (len < sizeof(cm_magic)) {
			want.status = RPCRDMA_CM_ABSENT;
		} else {
			want.status = RPCRDMA_CM_TRUNCATED;
			if (len > 4)
				want.version = RPCRDMA_CM_VERSION;
		}

		snprintf(what, sizeof(what), "length %zu of a complete message",
			 len);
		memset(&res, 0x5a, sizeof(res));
		ret = rpcrdma_cm_private_parse(backing, len, &res);
		expect_result(test, what, ret, &res, &want);

		if (!len)
			continue;
		exact = kunit_kmalloc(test, len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, exact);
		memcpy(exact, backing, len);
		snprintf(what, sizeof(what), "exactly sized copy of length %zu",
			 len);
		memset(&res, 0x5a, sizeof(res));
		ret = rpcrdma_cm_private_parse(exact, len, &res);
		expect_result(test, what, ret, &res, &want);
	}
}

/* Hand-made buffers for the search policy */

struct cm_parse_case {
	const char			*desc;
	bool				null_buf;
	size_t				len;
	u8				data[24];
	struct rpcrdma_cm_parse_result	expected;
};

static const struct cm_parse_case cm_parse_cases[] = {
	{
		.desc		= "NULL buffer",
		.null_buf	= true,
		.len		= 8,
		.expected	= { .status = RPCRDMA_CM_ABSENT },
	},
	{
		.desc		= "empty buffer",
		.len		= 0,
		.expected	= { .status = RPCRDMA_CM_ABSENT },
	},
	{
		.desc		= "identifier in little-endian byte order",
		.len		= 8,
		.data		= { 0x18, 0x0e, 0xab, 0xf6, 0x01, 0x01,
				    0x03, 0x03 },
		.expected	= { .status = RPCRDMA_CM_ABSENT },
	},
	{
		.desc		= "partial identifier at the end",
		.len		= 4,
		.data		= { 0x00, 0xf6, 0xab, 0x0e },
		.expected	= { .status = RPCRDMA_CM_ABSENT },
	},
	{
		.desc		= "truncated after the version octet",
		.len		= 16,
		.data		= { 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
				    0x48, 0x49, 0x4a, 0xf6, 0xab, 0x0e, 0x18,
				    0x01, 0x01 },
		.expected	= { .status = RPCRDMA_CM_TRUNCATED,
				    .offset = 10, .version = 1 },
	},
	{
		.desc		= "truncated after the identifier",
		.len		= 6,
		.data		= { 0x00, 0x00, 0xf6, 0xab, 0x0e, 0x18 },
		.expected	= { .status = RPCRDMA_CM_TRUNCATED,
				    .offset = 2 },
	},
	{
		.desc		= "two messages, the first is used",
		.len		= 16,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03,
				    0x03, 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00,
				    0x07, 0x07 },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 0,
				    .version = 1, .flags = 0x01,
				    .props = { .send_size = 4096,
					       .recv_size = 4096,
					       .remote_inv = true } },
	},
	{
		.desc		= "two unaligned messages, the first is used",
		.len		= 21,
		.data		= { 0x00, 0x00, 0x00, 0xf6, 0xab, 0x0e, 0x18,
				    0x01, 0x00, 0x07, 0x0f, 0x00, 0x00, 0xf6,
				    0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x03 },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 3,
				    .version = 1, .flags = 0x00,
				    .props = { .send_size = 8192,
					       .recv_size = 16384 } },
	},
	{
		.desc		= "version 2 then version 1: version 1 is used",
		.len		= 17,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00,
				    0x00, 0x00, 0xf6, 0xab, 0x0e, 0x18, 0x01,
				    0x01, 0x1f, 0x0f },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 9,
				    .version = 1, .flags = 0x01,
				    .props = { .send_size = 32768,
					       .recv_size = 16384,
					       .remote_inv = true } },
	},
	{
		.desc		= "version 1 inside an unknown version's octets",
		.len		= 12,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0xf6, 0xab, 0x0e,
				    0x18, 0x01, 0x00, 0x01, 0x01 },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 4,
				    .version = 1, .flags = 0x00,
				    .props = { .send_size = 2048,
					       .recv_size = 2048 } },
	},
	{
		.desc		= "version 0 alone",
		.len		= 10,
		.data		= { 0x00, 0x00, 0xf6, 0xab, 0x0e, 0x18, 0x00,
				    0x01, 0x03, 0x03 },
		.expected	= { .status = RPCRDMA_CM_BAD_VERSION,
				    .offset = 2, .version = 0 },
	},
	{
		.desc		= "version 2 alone",
		.len		= 8,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x01, 0x03,
				    0x03 },
		.expected	= { .status = RPCRDMA_CM_BAD_VERSION,
				    .offset = 0, .version = 2 },
	},
	{
		.desc		= "version 255 alone",
		.len		= 9,
		.data		= { 0x00, 0xf6, 0xab, 0x0e, 0x18, 0xff, 0x01,
				    0x03, 0x03 },
		.expected	= { .status = RPCRDMA_CM_BAD_VERSION,
				    .offset = 1, .version = 255 },
	},
	{
		.desc		= "versions 2 then 3: the first is reported",
		.len		= 16,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00,
				    0x00, 0xf6, 0xab, 0x0e, 0x18, 0x03, 0x00,
				    0x00, 0x00 },
		.expected	= { .status = RPCRDMA_CM_BAD_VERSION,
				    .offset = 0, .version = 2 },
	},
	{
		.desc		= "version 2, then a truncated version 1",
		.len		= 14,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00,
				    0x00, 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01 },
		.expected	= { .status = RPCRDMA_CM_BAD_VERSION,
				    .offset = 0, .version = 2 },
	},
	{
		.desc		= "reserved bits set, R set",
		.len		= 8,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0xff, 0x03,
				    0x03 },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 0,
				    .version = 1, .flags = 0xff,
				    .props = { .send_size = 4096,
					       .recv_size = 4096,
					       .remote_inv = true } },
	},
	{
		.desc		= "reserved bits set, R clear",
		.len		= 8,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0xfe, 0x03,
				    0x03 },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 0,
				    .version = 1, .flags = 0xfe,
				    .props = { .send_size = 4096,
					       .recv_size = 4096 } },
	},
	{
		.desc		= "sizes 0x00 and 0xff",
		.len		= 8,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x00,
				    0xff },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 0,
				    .version = 1,
				    .props = { .send_size = 1024,
					       .recv_size = 262144 } },
	},
	{
		.desc		= "sizes 0xff and 0x00",
		.len		= 8,
		.data		= { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0xff,
				    0x00 },
		.expected	= { .status = RPCRDMA_CM_FOUND, .offset = 0,
				    .version = 1,
				    .props = { .send_size = 262144,
					       .recv_size = 1024 } },
	},
	{
		.desc		= "zeroed Private Data",
		.len		= 24,
		.expected	= { .status = RPCRDMA_CM_ABSENT },
	},
};

static void cm_parse_case_desc(const struct cm_parse_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_parse, cm_parse_cases, cm_parse_case_desc);

static void rpcrdma_cm_private_parse_test(struct kunit *test)
{
	const struct cm_parse_case *t = test->param_value;
	struct rpcrdma_cm_parse_result res;
	enum rpcrdma_cm_parse_status ret;
	const u8 *buf = NULL;
	u8 *copy;

	KUNIT_ASSERT_LE(test, t->len, sizeof(t->data));
	if (!t->null_buf && t->len) {
		/* Exactly sized, so that KASAN reports any over-read */
		copy = kunit_kmalloc(test, t->len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);
		memcpy(copy, t->data, t->len);
		buf = copy;
	} else if (!t->null_buf) {
		buf = t->data;
	}

	memset(&res, 0x5a, sizeof(res));
	ret = rpcrdma_cm_private_parse(buf, t->len, &res);
	expect_result(test, t->desc, ret, &res, &t->expected);
}

/*
 * Negotiation (RFC 8797 sections 4.1 and 4.2), computed the way each
 * side does it: from its own local properties and what it parsed from
 * the peer's Private Data.  A side that sends nothing is a legacy
 * implementation; only the other side computes anything, and it sees
 * the RFC 8166 defaults.  Both computations must give the same result.
 * These cases test rpcrdma_cm_negotiate() alone: of a result computed
 * without the client's message, svcrdma applies R only and keeps its
 * buffer sizes (svc_rdma_negotiate()).
 */

struct cm_negotiate_case {
	const char			*desc;
	struct rpcrdma_cm_props		client;
	struct rpcrdma_cm_props		server;
	bool				client_sends;
	bool				server_sends;
	struct rpcrdma_cm_negotiated	expected;
};

static const struct cm_negotiate_case cm_negotiate_cases[] = {
	{
		.desc		= "defaults on both sides",
		.client		= { .send_size = 1024, .recv_size = 1024 },
		.server		= { .send_size = 1024, .recv_size = 1024 },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 1024, .s2c_inline = 1024 },
	},
	{
		.desc		= "4 KiB and R on both sides",
		.client		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.server		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 4096, .s2c_inline = 4096,
				    .remote_inv = true },
	},
	{
		.desc		= "server sends no Private Data",
		.client		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.server		= { .send_size = 65536, .recv_size = 65536,
				    .remote_inv = true },
		.client_sends	= true,
		.server_sends	= false,
		.expected	= { .c2s_inline = 1024, .s2c_inline = 1024 },
	},
	{
		.desc		= "client sends no Private Data",
		.client		= { .send_size = 65536, .recv_size = 65536,
				    .remote_inv = true },
		.server		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.client_sends	= false,
		.server_sends	= true,
		.expected	= { .c2s_inline = 1024, .s2c_inline = 1024 },
	},
	{
		.desc		= "asymmetric: client limits its receives",
		.client		= { .send_size = 8192, .recv_size = 4096,
				    .remote_inv = true },
		.server		= { .send_size = 65536, .recv_size = 16384,
				    .remote_inv = true },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 8192, .s2c_inline = 4096,
				    .remote_inv = true },
	},
	{
		.desc		= "asymmetric: server limits both directions",
		.client		= { .send_size = 65536, .recv_size = 262144 },
		.server		= { .send_size = 16384, .recv_size = 32768 },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 32768, .s2c_inline = 16384 },
	},
	{
		.desc		= "R from the client only",
		.client		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.server		= { .send_size = 4096, .recv_size = 4096 },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 4096, .s2c_inline = 4096 },
	},
	{
		.desc		= "R from the server only",
		.client		= { .send_size = 4096, .recv_size = 4096 },
		.server		= { .send_size = 4096, .recv_size = 4096,
				    .remote_inv = true },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 4096, .s2c_inline = 4096 },
	},
	{
		.desc		= "largest sizes on both sides",
		.client		= { .send_size = 262144, .recv_size = 262144,
				    .remote_inv = true },
		.server		= { .send_size = 262144, .recv_size = 262144,
				    .remote_inv = true },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 262144, .s2c_inline = 262144,
				    .remote_inv = true },
	},
	{
		.desc		= "unrepresentable local sizes",
		.client		= { .send_size = 5000, .recv_size = 0 },
		.server		= { .send_size = UINT_MAX,
				    .recv_size = 300000 },
		.client_sends	= true,
		.server_sends	= true,
		.expected	= { .c2s_inline = 4096, .s2c_inline = 1024 },
	},
};

static void cm_negotiate_case_desc(const struct cm_negotiate_case *t,
				   char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_negotiate, cm_negotiate_cases, cm_negotiate_case_desc);

/*
 * What a side learns of its peer: build the peer's message into
 * Private Data of the given length at the given offset and parse it,
 * or parse nothing when the peer sends nothing.
 */
static void learn_peer(struct kunit *test, const char *what,
		       const struct rpcrdma_cm_props *peer, bool sends,
		       size_t len, size_t off, struct rpcrdma_cm_props *learned)
{
	struct rpcrdma_cm_parse_result res;
	struct rpcrdma_cm_private msg;
	u8 *buf = NULL;

	if (sends) {
		buf = kunit_kzalloc(test, len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		rpcrdma_cm_private_build(&msg, peer);
		memcpy(buf + off, &msg, sizeof(msg));
	} else {
		len = 0;
	}
	rpcrdma_cm_private_parse(buf, len, &res);
	KUNIT_ASSERT_EQ_MSG(test, res.status,
			    sends ? RPCRDMA_CM_FOUND : RPCRDMA_CM_ABSENT,
			    "%s: unexpected parse status %s", what,
			    rpcrdma_cm_status_name(res.status));
	*learned = res.props;
}

static void expect_negotiated(struct kunit *test, const char *role,
			      const struct rpcrdma_cm_negotiated *got,
			      const struct rpcrdma_cm_negotiated *want)
{
	KUNIT_EXPECT_EQ_MSG(test, got->c2s_inline, want->c2s_inline,
			    "as %s: c2s must be min(client send, server receive)",
			    role);
	KUNIT_EXPECT_EQ_MSG(test, got->s2c_inline, want->s2c_inline,
			    "as %s: s2c must be min(server send, client receive)",
			    role);
	KUNIT_EXPECT_EQ_MSG(test, got->remote_inv, want->remote_inv,
			    "as %s: remote invalidation needs R from both peers",
			    role);
}

static void rpcrdma_cm_negotiate_test(struct kunit *test)
{
	const struct cm_negotiate_case *t = test->param_value;
	struct rpcrdma_cm_negotiated got;
	struct rpcrdma_cm_props peer;

	if (t->client_sends) {
		/* As the client: the server's message arrives in a CM REP */
		learn_peer(test, "client", &t->server, t->server_sends,
			   TEST_IB_REP_LEN, 0, &peer);
		memset(&got, 0x5a, sizeof(got));
		rpcrdma_cm_negotiate(&t->client, &peer, &got);
		expect_negotiated(test, "client", &got, &t->expected);
	}
	if (t->server_sends) {
		/* As the server: the client's message arrives in a CM REQ */
		learn_peer(test, "server", &t->client, t->client_sends,
			   TEST_IB_REQ_LEN, 0, &peer);
		memset(&got, 0x5a, sizeof(got));
		rpcrdma_cm_negotiate(&peer, &t->server, &got);
		expect_negotiated(test, "server", &got, &t->expected);
	}
}

static void rpcrdma_cm_status_name_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, rpcrdma_cm_status_name(RPCRDMA_CM_FOUND),
			   "found");
	KUNIT_EXPECT_STREQ(test, rpcrdma_cm_status_name(RPCRDMA_CM_ABSENT),
			   "absent");
	KUNIT_EXPECT_STREQ(test, rpcrdma_cm_status_name(RPCRDMA_CM_TRUNCATED),
			   "truncated");
	KUNIT_EXPECT_STREQ(test,
			   rpcrdma_cm_status_name(RPCRDMA_CM_BAD_VERSION),
			   "bad-version");
	KUNIT_EXPECT_STREQ_MSG(test,
			       rpcrdma_cm_status_name((enum rpcrdma_cm_parse_status)42),
			       "unknown",
			       "a value outside the enum must still be named");
}

static struct kunit_case rpcrdma_cm_private_test_cases[] = {
	KUNIT_CASE_PARAM(rpcrdma_cm_encode_size_test, cm_encode_gen_params),
	KUNIT_CASE(rpcrdma_cm_size_round_trip_test),
	KUNIT_CASE_PARAM(rpcrdma_cm_private_build_test, cm_build_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_cm_parse_every_offset_test,
			 cm_offset_gen_params),
	KUNIT_CASE(rpcrdma_cm_parse_short_test),
	KUNIT_CASE_PARAM(rpcrdma_cm_private_parse_test, cm_parse_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_cm_negotiate_test, cm_negotiate_gen_params),
	KUNIT_CASE(rpcrdma_cm_status_name_test),
	{}
};

static struct kunit_suite rpcrdma_cm_private_test_suite = {
	.name = "rpcrdma_cm_private",
	.test_cases = rpcrdma_cm_private_test_cases,
};

kunit_test_suite(rpcrdma_cm_private_test_suite);

MODULE_DESCRIPTION("KUnit tests for RPC-over-RDMA CM Private Data (RFC 8797)");
MODULE_LICENSE("GPL");
