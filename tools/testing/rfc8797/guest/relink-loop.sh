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
ktap_begin relink-loop 3
setup_nfs_rdma relink- || exit 1
trace_on sunrpc/rpc_connect_status sunrpc/rpc_call_rpcerror rpcrdma/xprtrdma_connect
dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
mnt=/mnt/rl
mount_nfs "$V" $mnt || { fail relink-loop "mount failed"; exit 1; }
errs=0
for i in $(seq "$N"); do
	(
		for j in 1 2 3 4 5 6 7 8; do
			cp /tmp/f $mnt/f$j || exit 1
			dd if=$mnt/f$j of=/dev/null bs=16k iflag=direct status=none || exit 1
		done
	) &
	pid=$!
	sleep 2
	rdma_relink || { fail relink-loop "relink $i failed"; exit 1; }
	sleep 1
	echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist 2>/dev/null
	if ! SLOWWAIT_INTERVAL=1 slowwait 240 pid_ended $pid; then
		kill $pid
		fail relink-loop "I/O did not finish in 240 s after relink $i"
		exit 1
	fi
	wait $pid || { errs=$((errs + 1)); log "relink $i: I/O failed"; }
done
trace_dump | grep -E 'rpc_call_rpcerror|xprtrdma_connect' | grep -vE ' (status|rc)=0( |$)' | tail -n 10
[ "$errs" = 0 ] && pass relink-loop ||
	fail relink-loop "I/O failed after $errs of $N device removals"
check_dmesg dmesg-clean
ktap_finished
