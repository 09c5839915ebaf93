#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Removing the RDMA device ($TRANSPORT) under NFS I/O, as
# test-client-reconnect.sh does, reduced to what any kernel has: no
# RFC 8797 value is read, so the same script runs on our kernel and on
# the pinned base without the series (guest.sh --kernel base), to tell
# whether a hang in device removal is ours or upstream's.
#
#   device-removal.sh [--rounds N] [--restarts N] [--vers V] [--inline SIZE] [--trace]
#
# --trace records the rdma_cma events (every CM ID's attach, events and
# destroy) and the transports' connect and disconnect tracepoints, and
# saves them with the other evidence: the CM ID that removal waits for is
# the one attached and never destroyed.
#
# --inline sets the client's rdma_max_inline_read/write and the server's
# max_req_size (upstream sysctls) before the first mount.  Each round
# mounts NFS over RDMA, starts copies in and O_DIRECT reads, restarts the
# server --restarts times (rpc.nfsd 0, then 4 threads), then removes the
# device with "rdma link del" and waits up to 120 s for it to return.  A
# removal that does not return is the finding: the blocked tasks' stacks,
# the RDMA resources and the CM IDs still open go to /results, test
# "removal-N" fails and the guest stops (the task is in D state for good).
# Otherwise the device is added back, the reads must end, and the next
# round runs.
. "$(dirname "$0")/lib.sh"

rounds=3 restarts=2 vers=4.2 inline="" trace=0
ktap_begin device-removal
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--restarts) restarts=$2; shift 2 ;;
	--vers) vers=$2; shift 2 ;;
	--inline) inline=$2; shift 2 ;;
	--trace) trace=1; shift ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
done

echo 60 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
setup_nfs_rdma
if [ -n "$inline" ]; then
	# svcrdma reads max_req_size at each accept; the upstream client
	# sysctls (CONFIG_SUNRPC_DEBUG), which our series keeps, at mount
	echo "$inline" >/proc/sys/sunrpc/svc_rdma/max_req_size
	echo "$inline" >/proc/sys/sunrpc/rdma_max_inline_read
	echo "$inline" >/proc/sys/sunrpc/rdma_max_inline_write
fi
if [ "$trace" = 1 ]; then
	echo 4096 >/sys/kernel/tracing/buffer_size_kb
	trace_on rdma_cma rpcrdma/xprtrdma_connect rpcrdma/xprtrdma_disconnect \
		rpcrdma/xprtrdma_op_connect rpcrdma/xprtrdma_op_close \
		rpcrdma/xprtrdma_op_inject_dsc rpcrdma/xprtrdma_device_removal \
		rpcrdma/svcrdma_device_removal rpcrdma/svcrdma_qp_error \
		rpcrdma/rpcrdma_client_remove_one rpcrdma/rpcrdma_client_remove_one_done \
		rpcrdma/rpcrdma_client_wait_on rpcrdma/rpcrdma_client_register \
		rpcrdma/rpcrdma_client_unregister rpcrdma/rpcrdma_client_completion
fi
log "kernel $(uname -r) $(uname -v), transport $TRANSPORT, NFS $vers, inline ${inline:-default}, $rounds rounds, $restarts server restarts each"
dd if=/dev/urandom of=/tmp/f bs=1M count=8 status=none
want=$(file_sum /tmp/f)
MNT=/mnt/dr

reads() {	# copy in, read back O_DIRECT, until told to stop; failures logged
	local n=0
	while [ ! -e /tmp/stop-reads ]; do
		n=$((n + 1))
		cp /tmp/f $MNT/f$n 2>/dev/null || echo "copy $n failed" >>/tmp/read-errors
		sum_is $MNT/f$n "$want" 16k || echo "read $n differs or failed" >>/tmp/read-errors
		rm -f $MNT/f$n
	done
}

evidence() {
	for p in $(ps -eo pid,stat | awk '$2 ~ /D/ {print $1}'); do
		echo "== $p $(cat /proc/"$p"/comm)"
		cat /proc/"$p"/stack
	done >/results/dstate-stacks.txt 2>&1
	timeout 10 rdma res show >/results/rdma-res.txt 2>&1
	conns >/results/svc-conns.txt 2>&1
	grep -h 'xprt:.*rdma' /proc/self/mountstats >/results/mountstats.txt 2>&1
	dmesg >/results/dmesg-live.txt
	[ "$trace" = 1 ] && cat /sys/kernel/tracing/trace >/results/trace.txt
}

for ((r = 1; r <= rounds; r++)); do
	mount_nfs "$vers" $MNT || { fail "mount-$r" "mount failed"; break; }
	rm -f /tmp/stop-reads /tmp/read-errors
	reads &
	rpid=$!
	sleep 3
	for ((i = 1; i <= restarts; i++)); do
		rpc.nfsd 0
		sleep 1
		rpc.nfsd 4 && echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist
		sleep 5
	done
	rdma link del "$RDMA_LINK" &
	dpid=$!
	if ! SLOWWAIT_INTERVAL=1 slowwait 120 pid_ended $dpid; then
		evidence
		fail "removal-$r" "rdma link del $RDMA_LINK blocked for 120 s: $(grep -A3 '^== .* rdma$' /results/dstate-stacks.txt | tr '\n' ' ' | head -c 300)"
		sync
		exit 1
	fi
	pass "removal-$r"
	rdma_link_again || { fail "relink-$r" "rdma link add failed"; break; }
	nfsd_listen_again
	touch /tmp/stop-reads
	if ! SLOWWAIT_INTERVAL=1 slowwait 180 pid_ended $rpid; then
		kill $rpid
		fail "reads-$r" "reads did not end in 180 s after the relink"
	else
		pass "reads-$r"
	fi
	[ -e /tmp/read-errors ] && log "round $r: $(wc -l </tmp/read-errors) reads failed around the removal"
	umount_nfs $MNT || { fail "umount-$r" "umount failed"; break; }
done
if [ "$trace" = 1 ]; then
	cat /sys/kernel/tracing/trace >/results/trace.txt
	# server-side CM IDs that got a connection request but were never
	# established: each must have been destroyed
	# (cm.id=0: the listener's own events)
	awk '{ split($6, a, "="); id = a[2] } id == 0 { next }
	     /cm_event_handler: .*CONNECT_REQUEST/ { req[id] = 1 }
	     /cm_event_handler: .*ESTABLISHED/ { delete req[id] }
	     /cm_id_destroy: / { if (id in req) { gone++; delete req[id] } }
	     END { n = 0; for (k in req) n++
		   printf "unaccepted connection requests: %d destroyed, %d left\n", gone, n }' \
		/results/trace.txt | tee /results/unaccepted.txt
fi
check_dmesg dmesg-clean
ktap_finished
