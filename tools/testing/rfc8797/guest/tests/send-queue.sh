#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the server's Send Queue at its limits: crafted clients
# whose chunk lists need as many Send Queue entries as the connection
# has, or more, and servers with many credits.
#
#   send-queue.sh
#
# One RPC call can make the server post a chain of Work Requests as
# long as the client likes: every segment of a Read chunk costs at least
# one RDMA Read, every segment of a Write chunk one RDMA Write.  cm-peer
# (tools/testing/rfc8797/guest/cm-peer) registers memory and sends calls with
# hand-built chunk lists of 4-octet segments to our NFS server, whose
# Send Queue is made small (max_requests 4) so that one call can fill
# it.  The connection's depth (sq_depth) and Receive size are read from
# the server's connection list (conns), and the Send Queue entries one
# Read segment costs on this transport from the svcrdma_post_read_chunk
# tracepoint of a 10-segment call.  Cases:
#   read-exact   a NULL call behind a Read chunk whose RDMA Reads take
#                exactly sq_depth entries: answered (RDMA_MSG).  A wait
#                for more than sq_depth free entries never ends;
#   read-over    one segment more: answered RDMA_ERROR ERR_CHUNK, or
#                the connection closed (svcrdma closes it after a
#                failed Read list, so the error may not get out first);
#                on iWARP (siw) both read cases end with the server's
#                close: their Read segments need more registrations
#                than its pool holds.  A close is one the server's trace
#                shows: it decoded the call and closed the transport;
#   write-exact  an NFSv4.0 READ into a Write chunk whose RDMA Writes and
#                the reply's Send take exactly sq_depth entries: answered,
#                and the octets written are the file's;
#   write-over   one segment more: answered ERR_CHUNK, and the
#                connection stays up (it used to be dropped, and a
#                client that retries reconnects in a loop);
# then: no nfsd thread is left blocked (state D) and no connection is
# left listed, and an ordinary NFSv4.2 mount still reads back what it
# wrote.  Last, credits-128 and credits-256: with max_requests at 128
# (mainline's default) and 256 the server accepts an NFSv3 mount, whose
# Send Queue is then deeper, and serves 1 MiB reads and writes of 8 MiB
# that read back the same.  The kernel log must stay clean.  Every
# cm-peer run is bounded in time.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../hostile-table.sh"

credits=(128 256)	# max_requests of the last results
# the transport, probe and calibration; read-exact, read-over,
# write-exact, write-over; no nfsd blocked, no connection left, the
# mount after; one per credits value; dmesg
ktap_begin send-queue $((3 + 4 + 3 + ${#credits[@]} + 1))
hostile_start server
SYS=/proc/sys/sunrpc/svc_rdma
MNT=/mnt/chunks
SRV_RECV=16384

setup_nfs_rdma chunks-
# in nfsd's grace period (NFSD_GRACE_END), an NFSv4 READ with the
# anonymous stateid gets NFS4ERR_GRACE
# a Send Queue that one call can fill; Receive buffers that hold the
# Read list of such a call (24 octets per segment)
echo 4 >$SYS/max_requests && echo $SRV_RECV >$SYS/max_req_size ||
	{ fail chunks-sysctl "cannot configure the server"; exit 1; }
has_conns || { fail chunks-procfile "no connection list (conns)"; exit 1; }
# cm-peer's Private Data: it may Send 16 KiB and Receive 4 KiB
MSG=$(hex_of_message 0 16384 4096)
# the file the Write chunk calls READ, 16 octets repeated
FILE=chunks-file
for ((i = 0; i < 1024; i++)); do printf '0123456789abcdef'; done >"$EXPORT/$FILE"
PATTERN=$(printf '0123456789abcdef0123456789abcdef' | od -An -v -tx1 | tr -d ' \n')

# peer OUT ARGS...: cm-peer connect with ARGS, at most 60 s; exit code
peer() {
	local out=$1
	shift
	timeout 60 "$PEER" connect "$SERVER_ADDR" $RDMA_PORT --data "$MSG" \
		"$@" >"$out" 2>"$out.err"
	local rc=$?
	show "$out" "$out.err"
	return $rc
}

# conn_line: the one connection listed, into LINE
conn_line() {
	local -a L
	mapfile -t L < <(conns)
	[ ${#L[@]} = 1 ] && LINE=${L[0]}
}

# the connection's depth and Receive size, from a connection that holds
log "probe: the Send Queue depth of a connection with max_requests 4"
LINE=""
timeout 60 "$PEER" connect "$SERVER_ADDR" $RDMA_PORT --data "$MSG" \
	--hold 30 --timeout 15 >$OUT/probe.out 2>&1 &
pid=$!
slowwait 20 conn_line
kill -TERM $pid 2>/dev/null
wait $pid
DEPTH=$(field sq_depth "$LINE")
RECV=$(field recv_buf "$LINE")
log "connection: $LINE"
if [ -z "$DEPTH" ] || [ -z "$RECV" ]; then
	fail chunks-probe "no sq_depth or recv_buf listed: '${LINE:-no connection}'"
	exit 1
fi
pass chunks-probe
wait_no_conns

# Send Queue entries per 4-octet Read segment: one RDMA Read on RoCE,
# a registration and a Read on iWARP (RDMA Read targets must be MRs)
# and what the server did with each crafted Read list (its decode, its
# registrations running out, its Reads and their errors, its close):
# shown after each case, so that a connection that ended otherwise than
# the case wants says from which side
trace_on rpcrdma/svcrdma_post_read_chunk rpcrdma/svcrdma_sq_full rpcrdma/svcrdma_err_chunk \
	rpcrdma/svcrdma_decode_rqst rpcrdma/svcrdma_dma_map_rw_err rpcrdma/svcrdma_rwctx_empty \
	rpcrdma/svcrdma_wc_read_err rpcrdma/svcrdma_wc_read_flush rpcrdma/svcrdma_qp_error \
	rpcrdma/svcrdma_wc_send_err rpcrdma/svcrdma_sq_post_err sunrpc/svc_xprt_close
peer $OUT/calib.out --call readlist:10 --hold 1 --timeout 20
n=$(sed -n 's/.*svcrdma_post_read_chunk:.* sqecount=\([0-9]*\).*/\1/p' /sys/kernel/tracing/trace | head -n 1)
if [ -z "$n" ] || [ $((n % 10)) != 0 ]; then
	fail chunks-calibrate "a 10-segment Read chunk: sqecount '${n:-none}'"
	exit 1
fi
PER=$((n / 10))
pass chunks-calibrate
log "sq_depth $DEPTH, Receive $RECV octets, $PER Send Queue entries per Read segment"

# reply_is OUT PROC VAR: cm-peer printed an rpc-reply of PROC (RDMA_MSG,
# or "RDMA_ERROR err=ERR_CHUNK"); sets the caller's variable VAR to the
# reply line
reply_is() {
	local -n _ri_reply=$3
	_ri_reply=$(grep -m1 '^rpc-reply' "$1")
	[[ "$_ri_reply" == "rpc-reply xid="*" proc=$2 "* ]]
}

# server_closed TRACE: the server's trace of one case shows that it
# decoded the call, then closed the transport itself after its Read
# list failed (svcrdma_err_chunk: a chain longer than the Send Queue;
# svcrdma_dma_map_rw_err: the registrations ran out; or its Reads'
# errors), not after a disconnect of the client's
server_closed() {
	awk '/svcrdma_decode_rqst:/ { d = 1 }
		d && /svcrdma_(err_chunk|dma_map_rw_err|rwctx_empty|wc_read_err|qp_error):/ { e = 1 }
		e && /svc_xprt_close:/ { c = 1 }
		END { exit !c }' "$1"
}

# read_case NAME SEGMENTS PROC: "PROC|closed", that or the server's
# close (server_closed)
read_case() {
	local name=$1 n=$2 want=$3 rc reply call
	if [ $((40 + 24 * n)) -gt "$RECV" ] || [ "$n" -gt 2048 ]; then
		skip "$name" "$n Read segments do not fit in one $RECV-octet call on $TRANSPORT"
		return
	fi
	log "$name: a NULL call behind $n Read segments ($((n * PER)) WRs, depth $DEPTH)"
	: >/sys/kernel/tracing/trace
	peer $OUT/$name.out --call "readlist:$n" --hold 1 --timeout 20
	rc=$?
	grep -v '^#' /sys/kernel/tracing/trace >$OUT/$name.trace
	grep -v svcrdma_post_read_chunk $OUT/$name.trace | head -n 12 | sed 's/^ */    server: /'
	call=$(grep -m1 '^rpc-call error=' $OUT/$name.out)
	if reply_is $OUT/$name.out "${want%|closed}" reply; then
		pass "$name"
	elif [ "${want%|closed}" != "$want" ] && [[ "$reply" == "rpc-reply disconnected" || -n "$call" ]]; then
		# a close: the server's, as its trace says; siw may complete
		# the call's own Send in error ("local QP operation error")
		# when the server's close overtakes its completion
		if ! server_closed $OUT/$name.trace; then
			fail "$name" "the connection ended ('${call:-$reply}', cm-peer exit $rc), but the server's trace shows no close of its own after this call"
		else
			pass "$name"
		fi
	else
		fail "$name" "want $want within 20 s, got '${call:-${reply:-no reply}}' (cm-peer exit $rc)"
	fi
}

# write_case NAME SEGMENTS PROC
write_case() {
	local name=$1 n=$2 want=$3 rc reply
	log "$name: an NFSv4.0 READ into $n Write segments (+1 Send, depth $DEPTH)"
	peer $OUT/$name.out --call "writelist:$n:$FILE" --hold 1 --timeout 20
	rc=$?
	if ! reply_is $OUT/$name.out "$want" reply; then
		fail "$name" "want $want within 20 s, got '${reply:-no reply}' (cm-peer exit $rc)"
	elif [ "$want" = RDMA_MSG ] && [ "$(field nfs_status "$reply")" != 0 ]; then
		fail "$name" "the NFS READ failed: $reply"
	elif [ "$want" = RDMA_MSG ] && [ "$(field data "$reply")" != "$PATTERN" ]; then
		fail "$name" "the server wrote '$(field data "$reply")', the file starts with '$PATTERN'"
	elif [ "$rc" != 0 ]; then
		fail "$name" "the connection did not end cleanly after the reply (cm-peer exit $rc)"
	else
		pass "$name"
	fi
}

if [ "$PER" = 1 ]; then
	read_case read-exact "$DEPTH" RDMA_MSG
elif [ $((DEPTH % PER)) = 0 ]; then
	# iWARP: each segment takes a registration from a pool of
	# 3 * max_requests MRs, fewer than such a chain needs, and the
	# server closes the connection when it runs out
	read_case read-exact $((DEPTH / PER)) "RDMA_MSG|closed"
else
	skip read-exact "$DEPTH entries are not a whole number of $PER-entry segments"
fi
read_case read-over $((DEPTH / PER + 1)) "RDMA_ERROR err=ERR_CHUNK|closed"
while [ $SECONDS -lt "$NFSD_GRACE_END" ]; do sleep 1; done
write_case write-exact $((DEPTH - 1)) RDMA_MSG
write_case write-over "$DEPTH" "RDMA_ERROR err=ERR_CHUNK"

# nfsd_blocked: the nfsd threads in state D, with where they wait
nfsd_blocked() {
	local p s
	BLOCKED=""
	for p in /proc/[0-9]*; do
		[ "$(cat $p/comm 2>/dev/null)" = nfsd ] || continue
		s=$(cut -d' ' -f3 $p/stat 2>/dev/null)
		[ "$s" = D ] && BLOCKED="$BLOCKED ${p#/proc/}:$(cat $p/wchan 2>/dev/null)"
	done
	[ -n "$BLOCKED" ]
}
# an nfsd thread may be in D for a moment (I/O); one that stays there
# for 10 s is stuck
stuck=""
for ((i = 0; i < 10; i++)); do
	nfsd_blocked || { stuck=""; break; }
	stuck=$BLOCKED
	sleep 1
done
if [ -n "$stuck" ]; then
	fail nfsd-not-blocked "nfsd threads blocked for 10 s:$stuck"
	for p in $stuck; do cat /proc/${p%%:*}/stack 2>/dev/null | head -n 12; done
else
	pass nfsd-not-blocked
fi
if wait_no_conns; then
	pass no-connection-left
else
	fail no-connection-left "still listed: $(conns)"
fi
grep -E 'svcrdma_(sq_full|err_chunk)' /sys/kernel/tracing/trace | tail -n 5

# another client still gets its I/O done
after_check() { :; }
nfs_after after_check

# many credits: a deeper Send Queue must still be created and used
dd if=/dev/urandom of=/tmp/sq-f bs=1M count=8 status=none
sum=$(file_sum /tmp/sq-f)
for credits in "${credits[@]}"; do
	echo $credits >$SYS/max_requests
	wait_no_conns
	if ! mount_nfs 3 $MNT; then
		fail credits-$credits "no NFSv3 mount with max_requests $credits"
		continue
	fi
	conn_line
	log "max_requests $credits: $LINE"
	timeout 120 dd if=/tmp/sq-f of=$MNT/sq-f bs=1M oflag=direct status=none && sync
	umount_nfs $MNT
	if ! mount_nfs 3 $MNT; then
		fail credits-$credits "remount failed"
	elif ! sum_is $MNT/sq-f "$sum" 1M; then
		fail credits-$credits "data read back differs"
	elif [ "$(field sq_depth "$LINE")" -le "$DEPTH" ] 2>/dev/null; then
		fail credits-$credits "sq_depth '$(field sq_depth "$LINE")' is not above the $DEPTH of max_requests 4"
	else
		pass credits-$credits
	fi
	rm -f $MNT/sq-f
	umount_nfs $MNT
done
check_dmesg dmesg-clean
ktap_finished
