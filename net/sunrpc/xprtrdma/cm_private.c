// SPDX-License-Identifier: GPL-2.0
/*
 * RPC-over-RDMA version 1 CM Private Data (RFC 8797)
 *
 * Encoding and decoding of the eight-octet message that each peer may
 * place in the RDMA-CM Private Data field, the search for that message
 * in the Private Data received from the peer, and the computation of
 * the per-direction inline thresholds from the two peers' properties.
 *
 * Everything here is a pure function of its arguments so that it can
 * be exercised by KUnit and, unmodified, by a user-space fuzzer.
 */

#include <linux/bits.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <linux/unaligned.h>

#include <asm/byteorder.h>

#include <kunit/visibility.h>

#include <linux/sunrpc/rpcrdma_cm.h>

/* Octet offsets of the fields that follow the Format Identifier */
#define RPCRDMA_CM_OFF_VERSION		4
#define RPCRDMA_CM_OFF_FLAGS		5
#define RPCRDMA_CM_OFF_SEND_SIZE	6
#define RPCRDMA_CM_OFF_RECV_SIZE	7

/* Each unit of an encoded Size field stands for 1024 octets */
#define RPCRDMA_CM_SIZE_SHIFT		10

/**
 * rpcrdma_cm_encode_size - Encode an inline threshold for the wire
 * @size: inline threshold, in octets
 *
 * RFC 8797 section 4.2 encodes a size as (size / 1024) - 1, which can
 * only represent multiples of 1024 from 1024 to 262144.  Any other
 * @size is first clamped to that range and then rounded down to a
 * multiple of 1024, so that a peer is never promised more than
 * @size: 0 through 2047 encode as 0 (1024 octets), 262144 and every
 * larger value (up to U32_MAX) encode as 255 (262144 octets).
 *
 * Return: the encoded Size octet, 0 through 255.
 */
u8 rpcrdma_cm_encode_size(u32 size)
{
	size = clamp(size, RPCRDMA_CM_SIZE_MIN, RPCRDMA_CM_SIZE_MAX);
	return (u8)((size >> RPCRDMA_CM_SIZE_SHIFT) - 1);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_encode_size);

/**
 * rpcrdma_cm_decode_size - Decode an inline threshold received on the wire
 * @val: encoded Size octet
 *
 * Inverse of rpcrdma_cm_encode_size() (RFC 8797 section 4.2): every
 * octet value is valid and decodes to (@val + 1) * 1024.
 *
 * Return: the inline threshold, in octets, 1024 through 262144.
 */
u32 rpcrdma_cm_decode_size(u8 val)
{
	return ((u32)val + 1) << RPCRDMA_CM_SIZE_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_decode_size);

/**
 * rpcrdma_cm_round_size - The inline threshold a peer learns from a size
 * @size: inline threshold, in octets
 *
 * What a peer decodes when @size is advertised: @size clamped and
 * rounded down as rpcrdma_cm_encode_size() does.  Use it for the local
 * properties of an endpoint, so that they are what went on the wire.
 *
 * Return: a multiple of 1024, 1024 through 262144.
 */
u32 rpcrdma_cm_round_size(u32 size)
{
	return rpcrdma_cm_decode_size(rpcrdma_cm_encode_size(size));
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_round_size);

/**
 * rpcrdma_cm_private_build - Construct the local CM Private Data message
 * @msg: buffer for the eight-octet message
 * @local: properties to advertise to the peer
 *
 * Fills in @msg as RFC 8797 section 4 specifies: the Format Identifier
 * in network byte order, version 1, the R bit set when @local supports
 * remote invalidation with the seven reserved bits zero, and both
 * sizes encoded by rpcrdma_cm_encode_size().
 */
void rpcrdma_cm_private_build(struct rpcrdma_cm_private *msg,
			      const struct rpcrdma_cm_props *local)
{
	msg->cp_magic = cpu_to_be32(RPCRDMA_CM_MAGIC);
	msg->cp_version = RPCRDMA_CM_VERSION;
	msg->cp_flags = local->remote_inv ? RPCRDMA_CM_F_REMOTE_INV : 0;
	msg->cp_send_size = rpcrdma_cm_encode_size(local->send_size);
	msg->cp_recv_size = rpcrdma_cm_encode_size(local->recv_size);
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_private_build);

static void rpcrdma_cm_set_defaults(struct rpcrdma_cm_props *props)
{
	props->send_size = RPCRDMA_CM_SIZE_DEFAULT;
	props->recv_size = RPCRDMA_CM_SIZE_DEFAULT;
	props->remote_inv = false;
}

/**
 * rpcrdma_cm_private_parse - Find and decode the peer's CM Private Data
 * @buf: Private Data received from the peer; may be NULL
 * @len: length of @buf in octets; may be zero
 * @res: OUT: what was found
 *
 * RFC 8797 section 5.2 requires a search of the received Private Data
 * for the Format Identifier at any octet offset, since other layers
 * (MPAv2, RFC 6581, for instance) may place their own data in front
 * of it.  Only octets @buf[0] through @buf[@len - 1] are ever read, one
 * at a time or with unaligned accessors.
 *
 * Offsets 0 through @len - 4 are examined in increasing order for the
 * four octets of the Format Identifier.  An occurrence whose Version
 * octet is 1 and whose eight octets all lie within @buf is used: the
 * result is %RPCRDMA_CM_FOUND, and @res carries its offset, version,
 * raw flags octet (reserved bits included, as received) and decoded
 * properties, in which the reserved flag bits play no part.  An
 * occurrence with any other Version is skipped, because a later format
 * (RFC 8797 section 6) may be followed by a version 1 message, and the
 * search goes on at the next offset.
 *
 * When no occurrence can be used, @res->props are the RFC 8166
 * defaults (R clear, both sizes %RPCRDMA_CM_SIZE_DEFAULT; RFC 8797
 * section 5.1), @res->flags is zero, and @res->status is:
 *
 * %RPCRDMA_CM_BAD_VERSION if a complete occurrence with another
 * Version was seen; @res->offset and @res->version describe the
 * first one.
 *
 * %RPCRDMA_CM_TRUNCATED otherwise, if a complete four-octet Format
 * Identifier was seen with fewer than eight octets left in @buf;
 * @res->offset is its offset and @res->version its Version octet, or
 * zero when @buf ends before the Version octet.  A Format Identifier
 * cut short by the end of @buf is indistinguishable from other data
 * and is not counted.
 *
 * %RPCRDMA_CM_ABSENT otherwise, including when @buf is NULL or @len is
 * less than four; @res->offset and @res->version are zero.
 *
 * Only the first U32_MAX octets of @buf are searched, so that an offset
 * always fits in @res->offset; RDMA-CM Private Data is far shorter.
 *
 * Return: @res->status.
 */
enum rpcrdma_cm_parse_status
rpcrdma_cm_private_parse(const void *buf, size_t len,
			 struct rpcrdma_cm_parse_result *res)
{
	const u8 *data = buf;
	bool bad_version = false;
	unsigned int i;

	res->status = RPCRDMA_CM_ABSENT;
	res->offset = 0;
	res->version = 0;
	res->flags = 0;
	rpcrdma_cm_set_defaults(&res->props);

	if (!data)
		return res->status;
	/* RDMA-CM Private Data is at most 255 octets; @offset is 32 bits */
	len = min_t(size_t, len, U32_MAX);

	for (i = 0; len - i >= sizeof(__be32); i++) {
		const u8 *p = data + i;

		if (get_unaligned_be32(p) != RPCRDMA_CM_MAGIC)
			continue;

		if (len - i < RPCRDMA_CM_PRIVATE_LEN) {
			/*
			 * Every later occurrence would overrun too, and
			 * a complete bad-version one takes precedence.
			 */
			if (bad_version)
				break;
			res->status = RPCRDMA_CM_TRUNCATED;
			res->offset = i;
			if (len - i > RPCRDMA_CM_OFF_VERSION)
				res->version = p[RPCRDMA_CM_OFF_VERSION];
			break;
		}

		if (p[RPCRDMA_CM_OFF_VERSION] != RPCRDMA_CM_VERSION) {
			if (!bad_version) {
				bad_version = true;
				res->status = RPCRDMA_CM_BAD_VERSION;
				res->offset = i;
				res->version = p[RPCRDMA_CM_OFF_VERSION];
			}
			continue;
		}

		res->status = RPCRDMA_CM_FOUND;
		res->offset = i;
		res->version = p[RPCRDMA_CM_OFF_VERSION];
		res->flags = p[RPCRDMA_CM_OFF_FLAGS];
		res->props.remote_inv = !!(res->flags & RPCRDMA_CM_F_REMOTE_INV);
		res->props.send_size =
			rpcrdma_cm_decode_size(p[RPCRDMA_CM_OFF_SEND_SIZE]);
		res->props.recv_size =
			rpcrdma_cm_decode_size(p[RPCRDMA_CM_OFF_RECV_SIZE]);
		break;
	}
	return res->status;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_private_parse);

/**
 * rpcrdma_cm_negotiate - Compute the inline thresholds of a connection
 * @client: the client's (active side's) properties
 * @server: the server's (passive side's) properties
 * @res: OUT: per-direction inline thresholds and remote invalidation
 *
 * RFC 8797 section 4.2: the client-to-server threshold is the smaller
 * of the client's Send size and the server's Receive size, the
 * server-to-client threshold the smaller of the server's Send size and
 * the client's Receive size.  Section 4.1: the server may use Send With
 * Invalidate only when both peers set R.
 *
 * Each side's properties are either decoded from the peer's message
 * (or the defaults when there was none) or local settings.  Local
 * sizes are first clamped and rounded down exactly as
 * rpcrdma_cm_encode_size() does, so both peers compute the same result
 * from what was actually advertised, and every result lies within
 * %RPCRDMA_CM_SIZE_MIN..%RPCRDMA_CM_SIZE_MAX and is a multiple of 1024.
 */
void rpcrdma_cm_negotiate(const struct rpcrdma_cm_props *client,
			  const struct rpcrdma_cm_props *server,
			  struct rpcrdma_cm_negotiated *res)
{
	res->c2s_inline = min(rpcrdma_cm_round_size(client->send_size),
			      rpcrdma_cm_round_size(server->recv_size));
	res->s2c_inline = min(rpcrdma_cm_round_size(server->send_size),
			      rpcrdma_cm_round_size(client->recv_size));
	res->remote_inv = client->remote_inv && server->remote_inv;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_negotiate);

/**
 * rpcrdma_cm_status_name - Name a parse result, for logs and traces
 * @status: value returned by rpcrdma_cm_private_parse()
 *
 * Return: a static string: "found", "absent", "truncated",
 * "bad-version", or "unknown" for a value outside the enum.
 */
const char *rpcrdma_cm_status_name(enum rpcrdma_cm_parse_status status)
{
	switch (status) {
	case RPCRDMA_CM_FOUND:
		return "found";
	case RPCRDMA_CM_ABSENT:
		return "absent";
	case RPCRDMA_CM_TRUNCATED:
		return "truncated";
	case RPCRDMA_CM_BAD_VERSION:
		return "bad-version";
	}
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_cm_status_name);
