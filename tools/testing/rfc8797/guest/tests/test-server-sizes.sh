#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of the server side of RFC 8797: for several client and
# server configurations, the thresholds the server negotiated (read from
# the server's connection list, conns) must equal the min() rules
#   c2s = min(client send, server receive)
#   s2c = min(server send, client receive)
# and must agree with what the client negotiated (xprtrdma_inline_thresh).
# Also: out-of-range knob values are refused (EINVAL, value unchanged,
# as every proc_douintvec_minmax() sysctl does), and when fault
# injection (cm_omit server) leaves out the server's message, both peers
# use the RFC 8166 defaults for the server, and its svcrdma_cm_private
# event says it sent none.
. "$(dirname "$0")/../lib.sh"

# run_case's arguments
#        name       c.read c.write s.req  s.send priv
cases=("1k         1024   1024    4096   0"
       "4k         4096   4096    4096   0"
       "16k        16384  16384   16384  0"
       "64k        65536  65536   65536  0"
       "asym-a     1024   16384   8192   32768"
       "asym-b     65536  2048    65536  4096"
       "srv-1k     16384  16384   1024   1024"
       "nopriv     16384  16384   16384  0     0")
# out-of-range values, which must be refused and change nothing
refused=(max_req_size=512 max_req_size=70000 max_send_size=1000
	 max_send_size=70000 remote_invalidation=2)
# the transport, the connection list, three results per case, the
# pull-up and memory cases, one per refused value, two more, dmesg
ktap_begin server-sizes $((2 + ${#cases[@]} * 3 + 2 + ${#refused[@]} + 3))
MNT=/mnt/sz
SYS=/proc/sys/sunrpc/svc_rdma

setup_nfs_rdma srv-sizes-
has_conns && pass srv-sizes-procfile || { fail srv-sizes-procfile "no connection list (conns)"; exit 1; }



# run_case NAME CLIENT_READ CLIENT_WRITE SERVER_REQ SERVER_SEND PRIVDATA
run_case() {
	local name=srv-sizes-$1 cr=$2 cw=$3 sreq=$4 ssend=$5 priv=${6:-1}
	local line want_c2s want_s2c sr ss out
	wait_no_conns || fail "$name-idle" "old connection still listed: $(conns)"
	client_set max_inline_read "$cr" && client_set max_inline_write "$cw" ||
		{ fail "$name" "cannot set the client's sizes $cr/$cw"; return; }
	echo "$sreq" >$SYS/max_req_size || { fail "$name" "cannot set max_req_size=$sreq"; return; }
	echo "$ssend" >$SYS/max_send_size || { fail "$name" "cannot set max_send_size=$ssend"; return; }
	{ [ "$priv" = 1 ] && cm_omit none || cm_omit server; } ||
		{ fail "$name" "cannot make the server's message sent=$priv"; return; }
	trace_on rpcrdma/svcrdma_cm_private
	if ! mount_nfs 3 $MNT; then
		fail "$name" "mount failed"
		return
	fi
	# a little traffic through the negotiated thresholds
	out=$(ls -la $MNT/ 2>&1 >/dev/null; dd if=/dev/urandom of=$MNT/f-$1 bs=64k count=4 status=none 2>&1)
	[ -z "$out" ] || fail "$name-io" "$out"
	line=$(conns)
	log "$name: $line"
	if [ "$(echo "$line" | grep -c .)" != 1 ]; then
		fail "$name" "expected one connection, got: $line"
		umount_nfs $MNT
		return
	fi
	if [ "$priv" = 1 ]; then
		sr=$sreq
		ss=$ssend; [ "$ss" = 0 ] && ss=$sreq
	else
		sr=1024 ss=1024
	fi
	want_c2s=$(smaller "$cw" "$sr")
	want_s2c=$(smaller "$ss" "$cr")
	if [ "$(field status "$line")" = found ] &&
	   [ "$(field client_send "$line")" = "$cw" ] &&
	   [ "$(field client_recv "$line")" = "$cr" ] &&
	   [ "$(field server_send "$line")" = "$ss" ] &&
	   [ "$(field server_recv "$line")" = "$sr" ] &&
	   [ "$(field c2s "$line")" = "$want_c2s" ] &&
	   [ "$(field s2c "$line")" = "$want_s2c" ]; then
		pass "$name"
	else
		fail "$name" "want c2s=$want_c2s s2c=$want_s2c server $ss/$sr client $cw/$cr; got $line"
	fi
	# the client's view must agree (send = c2s, recv = s2c)
	if trace_dump | grep -q "xprtrdma_inline_thresh.*neg send/recv=$want_c2s/$want_s2c,"; then
		pass "$name-client-agrees"
	else
		fail "$name-client-agrees" "$(trace_dump | grep -o 'xprtrdma_inline_thresh.*' | head -2)"
	fi
	# the event says whether the server sent its message: without it,
	# a server that sent none and one that advertised 1 KiB look alike
	if trace_dump | grep -q "svcrdma_cm_private.*status=found .* server sent=$priv R=.*c2s=$want_c2s s2c=$want_s2c"; then
		pass "$name-tracepoint"
	else
		fail "$name-tracepoint" "$(trace_dump | grep -o 'svcrdma_cm_private.*' | head -2)"
	fi
	umount_nfs $MNT || fail "$name-umount" "umount failed"
}

for c in "${cases[@]}"; do
	# shellcheck disable=SC2086	# the case's words are its arguments
	run_case $c
done
cm_omit none

# Send SGEs follow max_send_size too: with max_send_size above
# max_req_size, a reply sent inline is mapped page by page, not copied
# (pulled up) into the Send buffer, wherever the device offers the SGEs.
# A 32 KiB READ reply is the transport header, the RPC head, 8 pages and
# perhaps a tail: 11 SGEs, which rxe offers and siw (6) does not.
pullup_case() {
	local name=srv-sizes-send-sges f=$MNT/sges segs n
	wait_no_conns || fail "$name-idle" "old connection still listed: $(conns)"
	client_set max_inline_read 65536 && client_set max_inline_write 4096 &&
		echo 4096 >$SYS/max_req_size && echo 65536 >$SYS/max_send_size ||
		{ fail "$name" "cannot configure 64 KiB Sends with 4 KiB max_req_size"; return; }
	mount_nfs 3 $MNT || { fail "$name" "mount failed"; return; }
	dd if=/dev/urandom of=/tmp/sges bs=32k count=8 status=none
	cp /tmp/sges $f && sync
	segs=$(mstat $MNT chunk_segs)
	trace_on rpcrdma/svcrdma_send_pullup
	dd if=$f of=/tmp/sges.back bs=32k iflag=direct status=none
	n=$(trace_dump | awk '/svcrdma_send_pullup:/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^msg=/ && substr($i, 5) + 0 >= 32768) n++
	} END { print n + 0 }')
	segs=$(($(mstat $MNT chunk_segs) - segs))
	if ! cmp -s /tmp/sges /tmp/sges.back; then
		fail "$name" "data read back differs"
	elif [ "$segs" != 0 ]; then
		fail "$name" "$segs chunk segments: the 32 KiB replies were not sent inline"
	elif [ "$TR_SEND_SGE" -ge 11 ] && [ "$n" != 0 ]; then
		fail "$name" "$n of 8 inline 32 KiB replies copied into the Send buffer, with $TR_SEND_SGE Send SGEs on $TRANSPORT"
	elif [ "$TR_SEND_SGE" -lt 11 ] && [ "$n" != 8 ]; then
		fail "$name" "$n of 8 inline 32 KiB replies copied, but $TRANSPORT offers $TR_SEND_SGE Send SGEs: all must be"
	else
		pass "$name"
	fi
	umount_nfs $MNT || fail "$name-umount" "umount failed"
	echo 0 >$SYS/max_send_size
}
pullup_case

# Buffer memory follows the bytes: a client that advertises 4096 (every
# Linux client without RFC 8797 negotiation does) to a server whose
# max_req_size is 8192 gets Receive buffers of 4096 + 1023 octets, the
# slack for clients whose settings are not multiples of 1024.  They must
# not take kmalloc's 8 KiB class: at most 1.25 times the memory of
# 4096-octet buffers, counted at connect (2 * max_requests + 7 of them).
memory_case() {
	local name=srv-sizes-recv-memory size=$((4096 + 1023)) want got octets
	wait_no_conns || fail "$name-idle" "old connection still listed: $(conns)"
	client_set max_inline_read 4096 && client_set max_inline_write 4096 &&
		echo 8192 >$SYS/max_req_size && echo 0 >$SYS/max_send_size ||
		{ fail "$name" "cannot configure a 4096 client and an 8192 server"; return; }
	kmalloc_mark $size || { fail "$name" "cannot trace kmalloc"; return; }
	mount_nfs 3 $MNT || { fail "$name" "mount failed"; return; }
	# shellcheck disable=SC2046
	set -- $(kmalloc_count 'svc_rdma_[a-z_]*recv' $size)
	got=$1 octets=$2
	want=$((2 * $(cat $SYS/max_requests) + 7))
	log "$name: $got Receive buffers of $size octets took $octets octets; $(conns)"
	if [ "$got" != "$want" ]; then
		fail "$name" "$got Receive buffers of $size octets counted, want $want"
	elif [ "$octets" -gt $((want * 4096 * 5 / 4)) ]; then
		fail "$name" "$want buffers of $size octets took $octets octets: $((octets / want)) each, over 1.25 x 4096"
	else
		pass "$name"
	fi
	umount_nfs $MNT || fail "$name-umount" "umount failed"
}
memory_case

# out-of-range values are refused and change nothing
echo 4096 >$SYS/max_req_size
for kv in "${refused[@]}"; do
	k=${kv%=*} v=${kv#*=}
	# a knob that cannot be read (or is missing) refuses nothing
	if ! old=$(cat $SYS/$k) || [ -z "$old" ]; then
		fail "srv-sizes-refuse-$k-$v" "cannot read $SYS/$k"
	elif echo "$v" >$SYS/$k 2>/dev/null; then
		fail "srv-sizes-refuse-$k-$v" "value accepted"
	elif [ "$(cat $SYS/$k)" != "$old" ]; then
		fail "srv-sizes-refuse-$k-$v" "value changed to $(cat $SYS/$k)"
	else
		pass "srv-sizes-refuse-$k-$v"
	fi
done
[ ! -e $SYS/cm_private_data ] && pass srv-sizes-no-cm-private-data-sysctl ||
	fail srv-sizes-no-cm-private-data-sysctl "a sysctl turns the message off: a test hook in the ABI"
echo 0 >$SYS/max_send_size && pass srv-sizes-send-size-zero-ok ||
	fail srv-sizes-send-size-zero-ok "0 refused"

check_dmesg srv-sizes-dmesg-clean
ktap_finished
