#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reconnect renegotiates: the server is restarted during client I/O with
# a different svc_rdma max_req_size (larger, then smaller again), and the
# RDMA device ($TRANSPORT: rxe or siw) is removed and re-added under I/O.  After each event
# the client's mountstats must show the new min() values and a higher
# connect count, no I/O may fail (the mount is hard), the data written
# during the events must checksum, and dmesg must stay clean.  The client
# advertises 16 KiB both ways.
#
# Then, over siw, RELINKS (8) more device removals under NFSv4.2 I/O.
# Each may catch the client's reconnect between address and route
# resolution, where rdma_resolve_route() fails with -EINVAL (seen in 1 to
# 3 removals in 25 over siw, never over rxe, where the window is
# narrower); before "xprtrdma: Retry a connection whose device goes away
# during route resolution" that RPC failed and so did the application's
# read (EINVAL).
. "$(dirname "$0")/../lib.sh"
guest_settings	# TRANSPORT or RFC_CACHE before ktap_begin

RELINKS=0
[ "$TRANSPORT" != siw ] || RELINKS=8
ktap_begin client-reconnect $((22 + (RELINKS > 0 ? 2 : 0)))

setup_nfs_rdma
echo 4096 >/proc/sys/sunrpc/svc_rdma/max_req_size	# read at each accept
client_set max_inline_read 16384
client_set max_inline_write 16384
dd if=/dev/urandom of=/tmp/f bs=1M count=8 status=none
want=$(file_sum /tmp/f)
# with the RPC layer's connect results and the errors it gives an RPC,
# which tell where an I/O error during a relink comes from
trace_on rpcrdma/xprtrdma_cm_private rpcrdma/xprtrdma_connect \
	sunrpc/rpc_connect_status sunrpc/rpc_call_rpcerror

# io MNT TAG [ROUNDS]: copy /tmp/f in and read it back O_DIRECT, ROUNDS
# (default 6) times; fails at the first copy or read that fails or
# differs
io() {
	local i
	for i in $(seq "${3:-6}"); do
		cp /tmp/f "$1/io-$2-$i" || return 1
		sum_is "$1/io-$2-$i" "$want" 16k || return 1
	done
}

# io_failed: what the RPC layer said about the failure, from the trace
io_failed() {
	trace_dump | grep -E 'rpc_call_rpcerror|rpc_connect_status|xprtrdma_connect' |
		grep -vE ' (status|rc)=0( |$)' | tail -n 6 | sed 's/^ */    trace: /'
}

restart_server() {	# SIZE; fails when SIZE did not take, after the restart
	local rc=0
	rpc.nfsd 0
	echo "$1" >/proc/sys/sunrpc/svc_rdma/max_req_size || rc=1
	sleep 1
	rpc.nfsd 4 && echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist && return "$rc"
}

relink() { nfsd_relink; }

# event NAME ACTION ARG EXPECTED_SIZE
event() {
	local t=$1 act=$2 arg=$3 exp=$4 mnt=$5 c0 pid rc got
	c0=$(mstat "$mnt" connects)
	io "$mnt" "$t" &
	pid=$!
	sleep 3
	$act "$arg" || fail "$t-action" "$act $arg failed"
	# I/O must finish (bounded) and be correct
	if ! SLOWWAIT_INTERVAL=1 slowwait 240 pid_ended $pid; then
		kill $pid
		fail "$t-io" "I/O did not finish in 240 s"
		return
	fi
	if wait $pid; then
		pass "$t-io-checksums"
	else
		io_failed
		fail "$t-io-checksums" "data differs or I/O failed (see above)"
	fi
	# one more RPC to make sure we are on the new connection
	stat "$mnt/." >/dev/null
	got="$(xprt_info c2s) $(xprt_info s2c)"
	[ "$got" = "$exp $exp" ] && pass "$t-renegotiated" ||
		fail "$t-renegotiated" "c2s s2c '$got', expected '$exp $exp'"
	[ "$(mstat "$mnt" connects)" -gt "$c0" ] && pass "$t-reconnected" ||
		fail "$t-reconnected" "connect count stayed $c0"
	log "$t: $(grep 'xprt:.*rdma' /proc/self/mountstats)"
}

# relinks MNT: RELINKS device removals, each under its own I/O
relinks() {
	local bad t=nfs4.2-relinks
	bad=$(relinks_under_io "$RELINKS" io "$1" "$t" 2) ||
		{ fail "$t-io" "a relink failed or its I/O did not end (see above)"; return; }
	[ "$bad" = 0 ] && pass "$t-io-checksums" ||
		{ io_failed; fail "$t-io-checksums" "I/O failed or differs after $bad of $RELINKS relinks"; }
	stat "$1/." >/dev/null
	[ "$(xprt_info c2s) $(xprt_info s2c)" = "8192 8192" ] && pass "$t-renegotiated" ||
		fail "$t-renegotiated" "c2s s2c '$(xprt_info c2s) $(xprt_info s2c)', expected 8192 8192"
}

for v in 3 4.2; do
	mnt=/mnt/c$v
	mount_nfs "$v" "$mnt" || { fail "nfs$v-mount" "mount failed"; continue; }
	got="$(xprt_info c2s) $(xprt_info s2c)"
	[ "$got" = "4096 4096" ] && pass "nfs$v-initial" || fail "nfs$v-initial" "got '$got'"
	event "nfs$v-server-grows" restart_server 16384 16384 "$mnt"
	event "nfs$v-server-shrinks" restart_server 8192 8192 "$mnt"
	event "nfs$v-relink" relink x 8192 "$mnt"
	[ "$v" != 4.2 ] || [ "$RELINKS" = 0 ] || relinks "$mnt"
	umount_nfs "$mnt" || fail "nfs$v-umount" "umount failed"
	echo 4096 >/proc/sys/sunrpc/svc_rdma/max_req_size
done
trace_dump | grep -o 'xprtrdma_\(cm_private\|inline_thresh\|connect\).*' | tail -n 40

check_dmesg dmesg-clean
ktap_finished
