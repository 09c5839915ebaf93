/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RPC-over-RDMA version 1 CM Private Data (RFC 8797)
 *
 * Both peers of an RPC-over-RDMA version 1 connection may place an
 * eight-octet message in the RDMA-CM Private Data field to advertise
 * their inline thresholds and whether they support remote
 * invalidation.  These helpers build, find and parse that message and
 * compute the per-direction results.  They are pure functions: no
 * allocation, no locking, no RDMA verbs.
 */

#ifndef _LINUX_SUNRPC_RPCRDMA_CM_H
#define _LINUX_SUNRPC_RPCRDMA_CM_H

#include <linux/bits.h>
#include <linux/types.h>

/* Format Identifier, RFC 8797 section 4, in host byte order */
#define RPCRDMA_CM_MAGIC		0xf6ab0e18
/* The only message format version this implementation recognizes */
#define RPCRDMA_CM_VERSION		1
/* R: the sender supports remote invalidation (section 4.1) */
#define RPCRDMA_CM_F_REMOTE_INV		BIT(0)

/* Smallest and largest inline thresholds the Size fields can carry */
#define RPCRDMA_CM_SIZE_MIN		1024U
#define RPCRDMA_CM_SIZE_MAX		262144U
/* RFC 8166 section 3.3.3: threshold of a peer that sent no message */
#define RPCRDMA_CM_SIZE_DEFAULT		RPCRDMA_CM_SIZE_MIN

/**
 * struct rpcrdma_cm_private - the message as it appears on the wire
 * @cp_magic: Format Identifier, %RPCRDMA_CM_MAGIC in network byte order
 * @cp_version: message format version, %RPCRDMA_CM_VERSION
 * @cp_flags: seven reserved bits and the R bit (%RPCRDMA_CM_F_REMOTE_INV)
 * @cp_send_size: encoded largest Send this peer will transmit
 * @cp_recv_size: encoded largest Receive this peer can accept
 */
struct rpcrdma_cm_private {
	__be32	cp_magic;
	u8	cp_version;
	u8	cp_flags;
	u8	cp_send_size;
	u8	cp_recv_size;
} __packed;

#define RPCRDMA_CM_PRIVATE_LEN		sizeof(struct rpcrdma_cm_private)

/**
 * struct rpcrdma_cm_props - one peer's advertised transport properties
 * @send_size: largest RDMA Send this peer transmits, in octets
 * @recv_size: largest RDMA Receive this peer accepts, in octets
 * @remote_inv: this peer supports remote invalidation (the R bit)
 */
struct rpcrdma_cm_props {
	u32	send_size;
	u32	recv_size;
	bool	remote_inv;
};

/**
 * enum rpcrdma_cm_parse_status - what a search of received data found
 * @RPCRDMA_CM_FOUND: a complete version 1 message was found and used
 * @RPCRDMA_CM_ABSENT: no Format Identifier in the data (or no data)
 * @RPCRDMA_CM_TRUNCATED: the only occurrence ran past the end of the data
 * @RPCRDMA_CM_BAD_VERSION: complete occurrences were found, none had
 *	version 1
 *
 * The search policy is described at rpcrdma_cm_private_parse().
 */
enum rpcrdma_cm_parse_status {
	RPCRDMA_CM_FOUND,
	RPCRDMA_CM_ABSENT,
	RPCRDMA_CM_TRUNCATED,
	RPCRDMA_CM_BAD_VERSION,
};

/**
 * struct rpcrdma_cm_parse_result - outcome of rpcrdma_cm_private_parse()
 * @status: which case happened
 * @offset: octet offset of the message used (%RPCRDMA_CM_FOUND) or of the
 *	first rejected occurrence (%RPCRDMA_CM_TRUNCATED,
 *	%RPCRDMA_CM_BAD_VERSION); 0 for %RPCRDMA_CM_ABSENT
 * @version: version octet of the occurrence at @offset; 0 for
 *	%RPCRDMA_CM_ABSENT, or when a truncated occurrence ends before it
 * @flags: raw flags octet of the message used, reserved bits included;
 *	0 unless @status is %RPCRDMA_CM_FOUND
 * @props: the peer's properties, or the RFC 8166 defaults (R clear, both
 *	sizes %RPCRDMA_CM_SIZE_DEFAULT) unless @status is %RPCRDMA_CM_FOUND
 */
struct rpcrdma_cm_parse_result {
	enum rpcrdma_cm_parse_status	status;
	unsigned int			offset;
	u8				version;
	u8				flags;
	struct rpcrdma_cm_props		props;
};

/**
 * struct rpcrdma_cm_negotiated - per-direction result of the exchange
 * @c2s_inline: client-to-server inline threshold: the largest Send the
 *	client may post and so the Receive size the server needs
 * @s2c_inline: server-to-client inline threshold: the largest Send the
 *	server may post and so the Receive size the client needs
 * @remote_inv: both peers set R: the server may reply with Send With
 *	Invalidate
 */
struct rpcrdma_cm_negotiated {
	u32	c2s_inline;
	u32	s2c_inline;
	bool	remote_inv;
};

u8 rpcrdma_cm_encode_size(u32 size);
u32 rpcrdma_cm_decode_size(u8 val);
u32 rpcrdma_cm_round_size(u32 size);
void rpcrdma_cm_private_build(struct rpcrdma_cm_private *msg,
			      const struct rpcrdma_cm_props *local);
enum rpcrdma_cm_parse_status
rpcrdma_cm_private_parse(const void *buf, size_t len,
			 struct rpcrdma_cm_parse_result *res);
void rpcrdma_cm_negotiate(const struct rpcrdma_cm_props *client,
			  const struct rpcrdma_cm_props *server,
			  struct rpcrdma_cm_negotiated *res);
const char *rpcrdma_cm_status_name(enum rpcrdma_cm_parse_status status);

#endif /* _LINUX_SUNRPC_RPCRDMA_CM_H */
