#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of Send With Invalidate on the server (RFC 8797 4.1):
#  - R on both sides: small O_DIRECT reads (4k..64k, each with one Write
#    chunk) and writes get replies posted with Send With Invalidate;
#    the global and per-connection counters grow and agree with the
#    server's svcrdma_post_send tracepoint (inv_rkey != 0).  Where no
#    connection list exists (Debian's nfsd with the DKMS package), the
#    connection's R comes from its svcrdma_cm_private event and its
#    counts from the global counters, one connection at a time.
#  - R off on the server (remote_invalidation=0), and no server private
#    data at all (fault injection, cm_omit server): zero Send With
#    Invalidate posted.
#  - R off on the client (rpcrdma.remote_invalidation=N): none either.
#  - The client's count of replies that carried an invalidation (the
#    30th field of its mountstats xprt line) equals the server's send_inv.
# R on both sides needs a device that can (TR_REMOTE_INV, guest/lib.sh):
# rxe and siw both can; on one that could not, "both on" expects none.
. "$(dirname "$0")/../lib.sh"
guest_settings	# TR_REMOTE_INV before ktap_begin

# NAME REMOTE_INV PRIVDATA EXPECT [CLIENT_KNOB=VAL]: run_case's arguments
on=none
[ "$TR_REMOTE_INV" = 1 ] && on=inv
cases=("both-on 1 1 $on" "server-off 0 1 none" "no-privdata 1 0 none"
	"both-on-again 1 1 $on" "client-off 1 1 none /proc/sys/sunrpc/rdma_remote_invalidation=0")
# the transport, three results per case, the counter read in pieces, dmesg
ktap_begin server-remote-inv $((3 + ${#cases[@]} * 3))
SYS=/proc/sys/sunrpc/svc_rdma
MNT=/mnt/ri

setup_nfs_rdma srv-rinv-
# the server's per-connection view: its connection list, or where
# nothing lists them (Debian's nfsd with the DKMS package's rpcrdma.ko)
# the negotiated R of the svcrdma_cm_private event and the global Send
# counters, one connection at a time
server_view
echo 4096 >/proc/sys/sunrpc/rdma_max_inline_read
echo 4096 >/proc/sys/sunrpc/rdma_max_inline_write
dd if=/dev/urandom of=$EXPORT/data bs=64k count=16 status=none
want=$(file_sum $EXPORT/data)


# workload: O_DIRECT reads and writes of 4k..64k, then a checksum
workload() {
	local bs
	for bs in 4k 8k 16k 32k 64k; do
		timeout 120 dd if=$MNT/data of=/dev/null bs=$bs count=8 iflag=direct status=none || return 1
		timeout 120 dd if=/dev/zero of=$MNT/w-$bs bs=$bs count=4 oflag=direct status=none || return 1
	done
	sum_is $MNT/data "$want" 16k
}

# run_case NAME REMOTE_INV PRIVDATA EXPECT(inv|none) [CLIENT_KNOB=VAL]
run_case() {
	local t=srv-rinv-$1 rinv=$2 priv=$3 expect=$4 knob=${5:-}
	local g0 g1 p0 p1 line inv plain tinv cinv r why
	why=$(server_view_fresh) || fail "$t-idle" "$why"
	# a server that sends no Private Data is played by fault injection,
	# which Debian's kernels (the DKMS package's) are built without
	if [ "$priv" = 0 ] && ! has_cm_omit; then
		skip "$t-io" "no fault injection (fail_rpcrdma) to leave out the server's Private Data"
		skip "$t-no-send-inv" "no fault injection (fail_rpcrdma)"
		skip "$t-client-agrees" "no fault injection (fail_rpcrdma)"
		return
	fi
	# a setting that did not take would leave the last case's in place
	echo "$rinv" >$SYS/remote_invalidation &&
		{ [ "$priv" = 1 ] && cm_omit none || cm_omit server; } &&
		{ [ -z "$knob" ] || echo "${knob#*=}" >"${knob%=*}"; } ||
		{ fail "$t" "a setting was refused"; return; }
	trace_on rpcrdma/svcrdma_post_send rpcrdma/svcrdma_cm_private
	g0=$(cat $SYS/rdma_stat_send_inv) && p0=$(cat $SYS/rdma_stat_send_plain) ||
		{ fail "$t" "cannot read the global Send counters"; return; }
	mount_nfs 3 $MNT || { fail "$t" "mount failed"; return; }
	workload && pass "$t-io" || fail "$t-io" "O_DIRECT I/O or checksum failed"
	# the server counts a Send when it completes: let the last ones
	sleep 1
	[ "$SERVER_VIEW" != conns ] || line=$(conns)
	cinv=$(mstat $MNT reminv)
	umount_nfs $MNT || fail "$t-umount" "umount failed"
	g1=$(cat $SYS/rdma_stat_send_inv) && p1=$(cat $SYS/rdma_stat_send_plain) ||
		{ fail "$t" "cannot read the global Send counters"; return; }
	if [ "$SERVER_VIEW" = trace ]; then
		read -r _ _ r <<<"$(srv_traced)"
		line="r=$r send_inv=$((g1 - g0)) send_plain=$((p1 - p0)) (the global counters)"
	fi
	inv=$(field send_inv "$line") plain=$(field send_plain "$line")
	tinv=$(trace_dump | grep svcrdma_post_send | grep -vc 'inv_rkey=0x00000000')
	log "$t: $line"
	log "$t: global send_inv +$((g1 - g0)) send_plain +$((p1 - p0)), traced SWI $tinv"
	case $expect in
	inv)
		if [ "$(field r "$line")" = 1 ] && [ "$inv" -gt 0 ] &&
		   [ $((g1 - g0)) -ge "$inv" ] && [ "$tinv" -ge "$inv" ]; then
			pass "$t-send-inv-used"
		else
			fail "$t-send-inv-used" "r=$(field r "$line") conn send_inv=$inv global +$((g1 - g0)) traced $tinv"
		fi
		;;
	none)
		if [ "$(field r "$line")" = 0 ] && [ "$inv" = 0 ] &&
		   [ $((g1 - g0)) = 0 ] && [ "$tinv" = 0 ] && [ "$plain" -gt 0 ]; then
			pass "$t-no-send-inv"
		else
			fail "$t-no-send-inv" "r=$(field r "$line") conn send_inv=$inv plain=$plain global +$((g1 - g0)) traced $tinv"
		fi
		;;
	esac
	# both counts read: two empty ones are no agreement
	[ -n "$inv" ] && [ "$cinv" = "$inv" ] && pass "$t-client-agrees" ||
		fail "$t-client-agrees" "client saw $cinv invalidating replies, server sent $inv"
}

for c in "${cases[@]}"; do
	# shellcheck disable=SC2086	# the case's words are its arguments
	run_case $c
done
client_set remote_invalidation 1
echo 1 >$SYS/remote_invalidation
cm_omit none 2>/dev/null

# A statistics counter read in pieces reads as in one go: each read goes
# on from the file position (one octet at a time, and from the second
# octet on).  Nothing is mounted, so the count stands still.
f=$SYS/rdma_stat_recv
v=$(cat $f)
if ! [[ "$v" =~ ^[0-9][0-9]+$ ]]; then
	fail srv-rinv-counter-pieces "rdma_stat_recv is '$v': too short to show a position"
else
	dd if=$f of=/tmp/pieces bs=1 status=none
	bytes=$(cat /tmp/pieces) n=$(wc -c </tmp/pieces)
	rest=$(dd if=$f bs=1 skip=1 status=none)
	[ "$bytes" = "$v" ] && [ "$n" = $((${#v} + 1)) ] && [ "$rest" = "${v:1}" ] &&
		pass srv-rinv-counter-pieces ||
		fail srv-rinv-counter-pieces "cat: '$v'; one octet at a time: '$bytes' ($n octets); from octet 2: '$rest'"
fi

check_dmesg srv-rinv-dmesg-clean
ktap_finished
