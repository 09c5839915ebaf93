#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest capture for the Wireshark dissector
# (tools/testing/rfc8797/wireshark/rpcrdma_cm.lua); the server half is
# interop/interop-server.sh, the link is dumped by "interop.sh --dump".
#
#   capture-client.sh [--write N] [--read N] [--hostile]
#
# 1. One NFSv3 mount over soft-RoCE with client sizes that differ
#    (rdma_max_inline_write N, default 8192: Send 8192;
#    rdma_max_inline_read N, default 16384: Receive 16384), a few small
#    files (1200 octets up to 9000) written and read back, so that
#    the capture holds REQ/REP and RDMA Sends of a real connection.
#    What this client negotiated (sysfs xprt_info, the rdma_* lines) and
#    what the server saw (its first svc_rdma_connections line, asked
#    for over plain TCP as interop-client.sh does) go to
#    /results/views.txt under the tag "mount".
# 2. With --hostile, cm-peer connects with crafted Private Data, one
#    connection per row below, each held while the server's view of it
#    is recorded in /results/views.txt under the row's name.
. "$(dirname "$0")/../guest-lib.sh"
FAILED=0 SNAP_PORT=7799
PEER=$(cd "$(dirname "$0")/../cm-peer" && pwd)/cm-peer
M=f6ab0e18

# server_view TAG: the server's snapshot line (see interop-server.sh)
server_view() {
	local ans="" i
	for ((i = 0; i < 30; i++)); do
		{ exec 3<>"/dev/tcp/$SERVER_ADDR/$SNAP_PORT"; } 2>/dev/null && break
		sleep 1
	done
	echo "$1" >&3
	read -t 90 -r ans <&3
	exec 3<&-
	echo "$1 server: ${ans#*| }" | tee -a /results/views.txt
}

wsize=8192 rsize=16384 hostile=0
while [ $# -gt 0 ]; do
	case "$1" in
	--write) wsize=$2; shift 2 ;;
	--read) rsize=$2; shift 2 ;;
	--hostile) hostile=1; shift ;;
	*) fail capture-args "unknown argument $1"; exit 1 ;;
	esac
done

nic=$(nic_up) || { fail capture-setup "no NIC"; exit 1; }
setup_rdma rxe "$nic" 192.0.2.2/24 || { fail capture-setup "rdma link add failed"; exit 1; }
for ((i = 0; i < 120; i++)); do
	timeout 5 rpcinfo -p "$SERVER_ADDR" >/dev/null 2>&1 && break
	sleep 2
done

# the sysctls exist once rpcrdma is loaded (a module on the stock kernel)
modprobe rpcrdma 2>/dev/null
echo "$wsize" >/proc/sys/sunrpc/rdma_max_inline_write &&
	echo "$rsize" >/proc/sys/sunrpc/rdma_max_inline_read ||
	{ fail capture-sizes "cannot set the client's inline sizes"; exit 1; }
if mount_nfs 3 /mnt/nfs; then
	pass capture-mount
	head -c 1200 /dev/urandom >/mnt/nfs/cap0
	for i in 1 2 3; do head -c $((i * 3000)) /dev/urandom >/mnt/nfs/cap$i; done
	sync
	server_view mount
	# the client's own view of the connection
	for f in /sys/kernel/sunrpc/xprt-switches/*/xprt-*/xprt_info; do
		[ "$(cat "${f%/*}/dstaddr" 2>/dev/null)" = "$SERVER_ADDR" ] || continue
		echo "mount client: $(grep '^rdma_' "$f" | paste -sd ' ')" | tee -a /results/views.txt
	done
	cat /mnt/nfs/cap* >/dev/null
	umount_nfs /mnt/nfs
else
	fail capture-mount "mount -o vers=3,proto=rdma failed"
fi

# row NAME HEX: cm-peer connects with HEX as Private Data and holds the
# connection while the server's view is taken
row() {
	local name=$1 hex=$2 pid i
	timeout 40 "$PEER" connect "$SERVER_ADDR" "$RDMA_PORT" --data "$hex" \
		--hold 20 --timeout 15 >/tmp/peer.out 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '^event=' /tmp/peer.out && break
		sleep 0.1
	done
	echo "$name peer: $(grep -m1 '^event=' /tmp/peer.out | cut -c1-80)" | tee -a /results/views.txt
	server_view "$name"
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

mount_nfs 3 /mnt/done && { touch /mnt/done/DONE; umount_nfs /mnt/done; }
exit $FAILED
