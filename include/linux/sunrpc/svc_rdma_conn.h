/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What svcrdma reports of one RPC-over-RDMA connection to readers
 * outside rpcrdma.ko, such as nfsd's netlink dump: the outcome of the
 * RFC 8797 CM Private Data exchange, buffer sizes and Send Queue room.
 * No RDMA verbs, so that such a reader does not depend on rpcrdma.ko.
 */

#ifndef _LINUX_SUNRPC_SVC_RDMA_CONN_H
#define _LINUX_SUNRPC_SVC_RDMA_CONN_H

#include <linux/types.h>
#include <linux/sunrpc/rpcrdma_cm.h>

/**
 * struct rpcrdma_conn_state - a server connection, as svcrdma reports it
 * @client: what the search of the client's CM Private Data found
 * @local: what the server advertised
 * @neg: the inline thresholds and remote invalidation in use
 * @send_inv: Sends completed with Send With Invalidate
 * @send_plain: other Sends completed
 * @recv_buf: size of each Receive buffer, octets
 * @send_buf: size of each Send buffer, octets
 * @sq_depth: Send Queue entries
 * @sq_avail: Send Queue entries free when read
 * @over_limit: messages not Sent because the client cannot Receive them
 *
 * Filled by the transport's xpo_rdma_conn_state method, so that a
 * reader such as nfsd's netlink dump needs neither svcrdma's private
 * structures nor rpcrdma.ko.
 */
struct rpcrdma_conn_state {
	struct rpcrdma_cm_parse_result	client;
	struct rpcrdma_cm_props		local;
	struct rpcrdma_cm_negotiated	neg;
	unsigned long			send_inv;
	unsigned long			send_plain;
	u32				recv_buf;
	u32				send_buf;
	u32				sq_depth;
	u32				sq_avail;
	unsigned long			over_limit;
};

#endif /* _LINUX_SUNRPC_SVC_RDMA_CONN_H */
