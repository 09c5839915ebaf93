// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for net/sunrpc/xprtrdma/cm_private.c, which is built
 * unmodified against the headers in include/ next to this file.
 *
 * Each input is treated as received RDMA-CM Private Data.  It is copied
 * into a heap buffer of exactly its length, so that the address
 * sanitizer reports any read past the end, and the result of
 * rpcrdma_cm_private_parse() is checked against an independent,
 * deliberately naive model of the search policy and against the
 * message format.  The first four octets of the input also drive the
 * size encoder, and the parsed properties are negotiated against a few
 * local configurations in both roles.  Any violated invariant aborts.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/sunrpc/rpcrdma_cm.h>

static const u8 magic[4] = { 0xf6, 0xab, 0x0e, 0x18 };

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

struct model {
	enum rpcrdma_cm_parse_status status;
	size_t offset;
	u8 version;
	u8 flags;
};

/* RFC 8797 5.2 search, restated as plainly as possible */
static struct model model_parse(const u8 *buf, size_t len)
{
	struct model m = { .status = RPCRDMA_CM_ABSENT };
	size_t bad = SIZE_MAX, trunc = SIZE_MAX;
	size_t off;

	for (off = 0; buf && off + 4 <= len; off++) {
		if (memcmp(buf + off, magic, sizeof(magic)) != 0)
			continue;
		if (off + 8 > len) {
			if (trunc == SIZE_MAX)
				trunc = off;
			continue;
		}
		if (buf[off + 4] == 1) {
			m.status = RPCRDMA_CM_FOUND;
			m.offset = off;
			m.version = 1;
			m.flags = buf[off + 5];
			return m;
		}
		if (bad == SIZE_MAX)
			bad = off;
	}
	if (bad != SIZE_MAX) {
		m.status = RPCRDMA_CM_BAD_VERSION;
		m.offset = bad;
		m.version = buf[bad + 4];
	} else if (trunc != SIZE_MAX) {
		m.status = RPCRDMA_CM_TRUNCATED;
		m.offset = trunc;
		m.version = trunc + 4 < len ? buf[trunc + 4] : 0;
	}
	return m;
}

static u32 model_representable(u32 size)
{
	if (size < 1024)
		return 1024;
	if (size > 262144)
		return 262144;
	return size / 1024 * 1024;
}

static void check_size(u32 size)
{
	CHECK(size >= RPCRDMA_CM_SIZE_MIN && size <= RPCRDMA_CM_SIZE_MAX);
	CHECK(size % 1024 == 0);
}

static void check_encode(u32 size)
{
	u8 enc = rpcrdma_cm_encode_size(size);
	u32 dec = rpcrdma_cm_decode_size(enc);

	CHECK(dec == model_representable(size));
	CHECK(rpcrdma_cm_encode_size(dec) == enc);
	CHECK(size < 1024 || dec <= size);
}

static const struct rpcrdma_cm_props locals[] = {
	{ .send_size = 1024, .recv_size = 1024, .remote_inv = false },
	{ .send_size = 4096, .recv_size = 4096, .remote_inv = true },
	{ .send_size = 8192, .recv_size = 16384, .remote_inv = true },
	{ .send_size = 262144, .recv_size = 262144, .remote_inv = false },
	{ .send_size = 0, .recv_size = UINT32_MAX, .remote_inv = true },
	{ .send_size = 5000, .recv_size = 1500, .remote_inv = false },
};

static void check_negotiate(const struct rpcrdma_cm_props *client,
			    const struct rpcrdma_cm_props *server)
{
	struct rpcrdma_cm_negotiated n;
	u32 cs = model_representable(client->send_size);
	u32 cr = model_representable(client->recv_size);
	u32 ss = model_representable(server->send_size);
	u32 sr = model_representable(server->recv_size);

	memset(&n, 0xa5, sizeof(n));
	rpcrdma_cm_negotiate(client, server, &n);
	check_size(n.c2s_inline);
	check_size(n.s2c_inline);
	/* Never more than either side can do ... */
	CHECK(n.c2s_inline <= cs && n.c2s_inline <= sr);
	CHECK(n.s2c_inline <= ss && n.s2c_inline <= cr);
	/* ... and exactly the smaller of the two */
	CHECK(n.c2s_inline == cs || n.c2s_inline == sr);
	CHECK(n.s2c_inline == ss || n.s2c_inline == cr);
	CHECK(n.remote_inv == (client->remote_inv && server->remote_inv));
}

static void check_parse(const u8 *buf, size_t len)
{
	struct rpcrdma_cm_parse_result res;
	struct rpcrdma_cm_private msg;
	enum rpcrdma_cm_parse_status ret;
	struct model m = model_parse(buf, len);
	const char *name;
	size_t i;

	memset(&res, 0x5a, sizeof(res));
	ret = rpcrdma_cm_private_parse(buf, len, &res);

	CHECK(ret == res.status);
	CHECK(res.status == RPCRDMA_CM_FOUND ||
	      res.status == RPCRDMA_CM_ABSENT ||
	      res.status == RPCRDMA_CM_TRUNCATED ||
	      res.status == RPCRDMA_CM_BAD_VERSION);
	name = rpcrdma_cm_status_name(res.status);
	CHECK(name && strcmp(name, "unknown") != 0);

	CHECK(res.status == m.status);
	CHECK(res.offset == m.offset);
	CHECK(res.version == m.version);
	CHECK(res.flags == m.flags);

	check_size(res.props.send_size);
	check_size(res.props.recv_size);

	if (res.status == RPCRDMA_CM_FOUND) {
		const u8 *p = buf + res.offset;

		CHECK((size_t)res.offset + RPCRDMA_CM_PRIVATE_LEN <= len);
		CHECK(memcmp(p, magic, sizeof(magic)) == 0);
		CHECK(p[4] == RPCRDMA_CM_VERSION && res.version == p[4]);
		CHECK(res.flags == p[5]);
		CHECK(res.props.remote_inv == !!(p[5] & RPCRDMA_CM_F_REMOTE_INV));
		/* The earliest usable occurrence was chosen */
		for (i = 0; i < res.offset; i++)
			CHECK(memcmp(buf + i, magic, sizeof(magic)) != 0 ||
			      buf[i + 4] != RPCRDMA_CM_VERSION);

		/* Re-encoding the result reproduces the octets */
		memset(&msg, 0, sizeof(msg));
		rpcrdma_cm_private_build(&msg, &res.props);
		CHECK(sizeof(msg) == RPCRDMA_CM_PRIVATE_LEN);
		CHECK(memcmp(&msg.cp_magic, p, 4) == 0);
		CHECK(msg.cp_version == p[4]);
		CHECK((msg.cp_flags & ~RPCRDMA_CM_F_REMOTE_INV) == 0);
		CHECK((msg.cp_flags & RPCRDMA_CM_F_REMOTE_INV) ==
		      (p[5] & RPCRDMA_CM_F_REMOTE_INV));
		CHECK(msg.cp_send_size == p[6]);
		CHECK(msg.cp_recv_size == p[7]);
	} else {
		CHECK(res.flags == 0);
		CHECK(res.props.send_size == RPCRDMA_CM_SIZE_DEFAULT);
		CHECK(res.props.recv_size == RPCRDMA_CM_SIZE_DEFAULT);
		CHECK(!res.props.remote_inv);
		if (res.status == RPCRDMA_CM_ABSENT)
			CHECK(res.offset == 0 && res.version == 0);
		else
			CHECK(memcmp(buf + res.offset, magic,
				     sizeof(magic)) == 0);
		if (res.status == RPCRDMA_CM_TRUNCATED)
			CHECK((size_t)res.offset + RPCRDMA_CM_PRIVATE_LEN > len);
		if (res.status == RPCRDMA_CM_BAD_VERSION)
			CHECK(res.version != RPCRDMA_CM_VERSION &&
			      (size_t)res.offset + RPCRDMA_CM_PRIVATE_LEN <= len);
	}

	/* The peer's result against each local configuration, both roles */
	for (i = 0; i < ARRAY_SIZE(locals); i++) {
		check_negotiate(&res.props, &locals[i]);
		check_negotiate(&locals[i], &res.props);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 *buf = NULL;

	if (size) {
		buf = malloc(size);
		if (!buf)
			return 0;
		memcpy(buf, data, size);
	}
	check_parse(buf, size);
	if (!size) {
		u8 *empty = malloc(1);

		/* a valid pointer with no data must not be read either */
		if (empty) {
			check_parse(empty, 0);
			free(empty);
		}
	}

	if (size >= 4) {
		u32 v = (u32)data[0] << 24 | (u32)data[1] << 16 |
			(u32)data[2] << 8 | data[3];

		check_encode(v);
		check_encode(v >> 8);
		check_encode(v >> 16);
	}
	if (size >= 1)
		CHECK(rpcrdma_cm_encode_size(rpcrdma_cm_decode_size(data[0])) ==
		      data[0]);

	free(buf);
	return 0;
}
