#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# N removals of the RDMA device, each under its own NFS I/O (copies and
# O_DIRECT reads of 4 MiB files): every I/O must succeed.  Not
# part of make check (test-client-reconnect runs 8 such removals over
# siw): it reproduces, on the base, the client's EINVAL from
# rdma_resolve_route() during a removal (about 1 in 25 over siw) and,
# there too, rpcrdma_remove_one()'s race with a transport unregistering.
#
#   guest.sh [--kernel base] --append rfc8797.transport=siw \
#           tools/testing/rfc8797/guest/relink-loop.sh [N [VERSION]]
. "$(dirname "$0")/lib.sh"
N=${1:-25} V=${2:-4.2}
ktap_begin relink-loop 3	# the transport, the loop, dmesg
setup_nfs_rdma relink- || exit 1
trace_on sunrpc/rpc_connect_status sunrpc/rpc_call_rpcerror rpcrdma/xprtrdma_connect
dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
mnt=/mnt/rl
mount_nfs "$V" $mnt || { fail relink-loop "mount failed"; exit 1; }
# one removal's I/O: copies and O_DIRECT reads of /tmp/f
io() {
	local j
	for j in 1 2 3 4 5 6 7 8; do
		cp /tmp/f $mnt/f$j || return 1
		dd if=$mnt/f$j of=/dev/null bs=16k iflag=direct status=none || return 1
	done
}
errs=$(relinks_under_io "$N" io) || { fail relink-loop "a relink failed or its I/O did not end (see above)"; exit 1; }
log "I/O failures: $errs of $N"
trace_dump | grep -E 'rpc_call_rpcerror|xprtrdma_connect' | grep -vE ' (status|rc)=0( |$)' | tail -n 10
[ "$errs" = 0 ] && pass relink-loop ||
	fail relink-loop "I/O failed after $errs of $N device removals"
check_dmesg dmesg-clean
ktap_finished
