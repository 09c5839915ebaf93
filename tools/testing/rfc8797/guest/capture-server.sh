#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Server half of a two-guest capture whose server is not an NFS server
# but cm-peer (tools/testing/rfc8797/guest/cm-peer) listening on the NFS/RDMA
# port: "two-guest.sh --dump --server guest/capture-server.sh
# --client guest/capture-client.sh ... --server-args '...'".
#
#   capture-server.sh [--transport rxe|siw] CM-PEER-LISTEN-ARGS...
#   e.g. capture-server.sh --data f6ab0e1801000000 --reply-inv own --hold 20
#
# cm-peer's output goes to /results/peer.out (its "call" and "reply"
# lines name the rkey it invalidated).  rpcbind runs once cm-peer
# listens, so that the client half's wait for the server (rpcinfo -p)
# ends.  Passes when cm-peer sent a Send With Invalidate.
. "$(dirname "$0")/lib.sh"
ktap_begin capture-server
PEER=$CM_PEER
transport=rxe
if [ "${1:-}" = --transport ]; then transport=$2; shift 2; fi

nic=$(nic_up) || { fail capture-server-setup "no NIC"; exit 1; }
setup_rdma "$transport" "$nic" "$SERVER_ADDR/24" ||
	{ fail capture-server-setup "rdma link add failed"; exit 1; }
modprobe rdma_ucm 2>/dev/null
timeout 150 "$PEER" listen "$SERVER_ADDR" "$RDMA_PORT" --timeout 120 "$@" \
	>/results/peer.out 2>/results/peer.err &
pid=$!
slowwait 20 grep -q '^listening' /results/peer.out
mkdir -p /run/rpcbind
rpcbind -w
wait $pid
rc=$?
cat /results/peer.out /results/peer.err
if grep -q '^reply .* send=SEND_WITH_INV ' /results/peer.out; then
	pass capture-server-swi
else
	fail capture-server-swi "cm-peer exit $rc sent no Send With Invalidate"
fi
ktap_finished
