#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest capture for the Wireshark dissector
# (tools/testing/rfc8797/wireshark/rpcrdma_cm.lua); the server half is
# guest/interop-server.sh (or, for --swi-peer, capture-server.sh), the
# link is dumped by "two-guest.sh --dump".
#
#   capture-client.sh [--transport rxe|siw] [--write N|default]
#                     [--read N|default] [--hostile] [--oversize]
#   capture-client.sh [--transport rxe|siw] --swi-peer
#
# Every RDMA connection this script makes is recorded in
# /results/views.txt, read while it is up, one line per source:
#   TAG server: ...   the server's first svc_rdma_connections line, asked
#                     for over plain TCP as interop-client.sh does ("n/a
#                     (stock)" from a stock server)
#   TAG client: ...   this client's sysfs xprt_info, its rdma_* keys
#                     (nothing on a stock kernel)
#   TAG trace: ...    its xprtrdma_inline_thresh tracepoint (both kernels)
#   TAG counters: ... just before the unmount: reminv = xprtrdma_mr_reminv
#                     tracepoints of this connection (replies that
#                     invalidated an MR remotely; both kernels), ri and
#                     unneg = mountstats fields 30 and 31 (the same
#                     count, and those of them with R not negotiated;
#                     "na" on a stock kernel)
#   TAG peer: ...     cm-peer's first event (the crafted rows)
# The TAGs come in the order of the connections: "mount", the crafted
# rows, "done".
#
# 1. One NFSv3 mount (tag "mount") over soft-RoCE (--transport siw:
#    soft-iWARP) with client sizes that differ (rdma_max_inline_write
#    N, default 8192: Send 8192; rdma_max_inline_read N, default 16384:
#    Receive 16384; "default" leaves the kernel's value), a few small
#    files (1200 octets up to 9000) written and read back, so that the
#    capture holds REQ/REP and RDMA Sends of a real connection.
# 2. With --hostile, cm-peer connects with crafted Private Data, one
#    connection per row below, each held while the server's view of it
#    is recorded.
# 3. With --oversize, cm-peer connects and Sends one call larger than
#    the client-to-server threshold its own Private Data set (the
#    server must still answer it, see guest/tests/hostile-server.sh
#    send_case): a real RDMA Send over the negotiated threshold.
# 4. A last mount (tag "done") leaves the file DONE in the export, which
#    ends the server half.
#
# --swi-peer: the server guest runs capture-server.sh, a cm-peer that
# advertises R=0 and 1024/1024 and answers the first call with a Reply
# chunk by Send With Invalidate of that chunk's rkey (cm-peer
# --reply-inv own), as guest/tests/hostile-client.sh's reminv-own-unnegotiated
# row does in one guest.  One soft NFSv4.2 mount attempt (EXCHANGE_ID
# needs a Reply chunk at 1024 octets) is made, expected to fail; the
# client's tracepoints of that connection go to views.txt, tag "swi".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
ktap_begin capture-client
PEER=$CM_PEER
M=f6ab0e18
T=/sys/kernel/tracing

# server_snapshot TAG: the server's snapshot line (see interop-server.sh),
# asked for again when no answer came (a TCG guest's clock can leap
# past the read's time limit on a busy host)
server_snapshot() {
	local ans="" try
	for ((try = 0; try < 3; try++)); do
		ans=$(server_ask "$1") && break
		log "server_snapshot $1: no answer, asking again"
	done
	[ -n "$ans" ] || fail "capture-view-$1" "no answer from the server guest"
	echo "$1 server: ${ans#*| }" | tee -a /results/views.txt
}

# views TAG: both peers' views of the connection that is up now
views() {
	local f
	server_snapshot "$1"
	for f in /sys/kernel/sunrpc/xprt-switches/*/xprt-*/xprt_info; do
		[ "$(cat "${f%/*}/dstaddr" 2>/dev/null)" = "$SERVER_ADDR" ] || continue
		echo "$1 client: $(grep '^rdma_' "$f" | paste -sd ' ')" | tee -a /results/views.txt
	done
	echo "$1 trace: $(trace_dump | grep -m1 -o 'xprtrdma_inline_thresh: .*')" |
		tee -a /results/views.txt
}

# counters TAG MNT: the invalidations this connection saw (before its
# unmount; the tracepoints count from the trace_on before its mount)
counters() {
	local ri un
	ri=$(mstat "$2" reminv) un=$(mstat "$2" reminv_unneg)
	echo "$1 counters: reminv=$(trace_dump | grep -c 'xprtrdma_mr_reminv:') ri=${ri:-na} unneg=${un:-na}" |
		tee -a /results/views.txt
}

wsize=8192 rsize=16384 hostile=0 oversize=0 swi=0 transport=rxe
while [ $# -gt 0 ]; do
	case "$1" in
	--write) wsize=$2; shift 2 ;;
	--read) rsize=$2; shift 2 ;;
	--hostile) hostile=1; shift ;;
	--oversize) oversize=1; shift ;;
	--swi-peer) swi=1; shift ;;
	--transport) transport=$2; shift 2 ;;
	*) fail capture-args "unknown argument $1"; exit 1 ;;
	esac
done

nic=$(nic_up) || { fail capture-setup "no NIC"; exit 1; }
setup_rdma "$transport" "$nic" 192.0.2.2/24 || { fail capture-setup "rdma link add failed"; exit 1; }
wait_server

# the sysctls exist once rpcrdma is loaded (a module on the stock kernel)
modprobe rpcrdma 2>/dev/null
echo 8192 >$T/buffer_size_kb 2>/dev/null

if [ "$swi" = 1 ]; then
	trace_on rpcrdma/xprtrdma_cm_private rpcrdma/xprtrdma_reply_reminv_err \
		rpcrdma/xprtrdma_mr_reminv rpcrdma/xprtrdma_disconnect
	mkdir -p /mnt/nfs
	timeout -s KILL 60 mount -t nfs -o \
		vers=4.2,proto=rdma,port=$RDMA_PORT,soft,timeo=20,retrans=1,retry=0 \
		"$SERVER_ADDR:/" /mnt/nfs >/tmp/mount.out 2>&1 &
	mpid=$!
	slowwait 60 grep -q 'xprtrdma_disconnect:' $T/trace
	wait $mpid
	grep -q ' /mnt/nfs ' /proc/mounts && umount -f -l /mnt/nfs
	trace_dump | grep -oE 'xprtrdma_(inline_thresh|cm_private|reply_reminv_err|mr_reminv|disconnect): .*' |
		sed 's/^/swi trace: /' | tee -a /results/views.txt
	if trace_dump | grep -q 'xprtrdma_reply_reminv_err: .* matched, R not negotiated'; then
		pass capture-swi-unnegotiated
	else
		fail capture-swi-unnegotiated "no Send With Invalidate reached the client: $(head -c 200 /tmp/mount.out)"
	fi
	ktap_finished
fi

for kv in "write:$wsize" "read:$rsize"; do
	[ "${kv#*:}" = default ] || client_set "max_inline_${kv%%:*}" "${kv#*:}" ||
		{ fail capture-sizes "cannot set the client's inline sizes"; exit 1; }
done
trace_on rpcrdma/xprtrdma_mr_reminv
if mount_nfs 3 /mnt/nfs; then
	pass capture-mount
	head -c 1200 /dev/urandom >/mnt/nfs/cap0
	for i in 1 2 3; do head -c $((i * 3000)) /dev/urandom >/mnt/nfs/cap$i; done
	sync
	views mount
	cat /mnt/nfs/cap* >/dev/null
	counters mount /mnt/nfs
	umount_nfs /mnt/nfs
else
	fail capture-mount "mount -o vers=3,proto=rdma failed"
fi

# row NAME HEX [CM-PEER ARGS]: cm-peer connects with HEX as Private Data
# and holds the connection while the server's view is taken
row() {
	local name=$1 hex=$2 pid
	shift 2
	: >/tmp/peer.out	# not the last row's
	timeout 40 "$PEER" connect "$SERVER_ADDR" "$RDMA_PORT" --data "$hex" \
		--hold 20 --timeout 15 "$@" >/tmp/peer.out 2>&1 &
	pid=$!
	slowwait 20 grep -q '^event=' /tmp/peer.out
	if [ $# -gt 0 ]; then	# a call: wait for its answer
		slowwait 20 grep -q '^rpc-reply' /tmp/peer.out
		echo "$name peer: $(grep -m1 '^rpc-reply' /tmp/peer.out)" | tee -a /results/views.txt
		result_of "capture-$name-answered" grep -q '^rpc-reply .* proc=RDMA_MSG ' /tmp/peer.out
	else
		echo "$name peer: $(grep -m1 '^event=' /tmp/peer.out | cut -c1-80)" | tee -a /results/views.txt
	fi
	server_snapshot "$name"
	kill -TERM $pid 2>/dev/null
	wait $pid
	sleep 1
}
if [ "$hostile" = 1 ]; then
	# reserved bits set, and a second (valid) message after the first
	row reserved-second "${M}01ff0204${M}01000506"
	# a version 2 message first, then the version 1 one the RFC's
	# search must go on to
	row badver-then-v1 "${M}02010303${M}01010204"
	# only an unknown version, at an odd offset
	row bad-version "a5a5a5${M}07010303"
	# the identifier 6 octets before the end of the 56-octet REQ field
	row truncated "$(printf 'a5%.0s' $(seq 50))${M}0101"
	# no Private Data at all: the server takes the RFC 8166 defaults
	row absent ""
fi
if [ "$oversize" = 1 ]; then
	# Send 1024 advertised (R=0, Receive 4096), a 1500-octet call: what
	# a Linux client with rdma_max_inline_write=1500 may do, as it
	# advertises the size rounded down
	row send-1500-over-1024 "${M}01000003" --call null:1500
	# no Private Data (RFC 8166: 1024 octets), a 4096-octet call
	row send-4096-no-pd "" --call null:4096
fi

trace_on rpcrdma/xprtrdma_mr_reminv
if mount_nfs 3 /mnt/done; then
	views "done"
	touch /mnt/done/DONE
	counters "done" /mnt/done
	umount_nfs /mnt/done
else
	fail capture-done "the last mount failed"
fi
ktap_finished
