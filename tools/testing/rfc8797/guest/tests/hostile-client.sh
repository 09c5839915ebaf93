#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: hostile CM Private Data against OUR client.
#
#   hostile-client.sh [--quick]
#
# No NFS server runs during the rows: cm-peer (tools/testing/rfc8797/
# cm-peer) listens on the NFS/RDMA port and accepts our client's
# connection with exactly the row's octets of hostile-table.sh as
# Private Data; the mount then fails (nobody answers its RPCs) and is
# cleaned up.  Each row asserts:
#   NAME-sent        what our client sent, as cm-peer printed it: one valid
#                    RFC 8797 message with the configured R and sizes (on
#                    rxe the zero-padded 56-octet connect-request field, on
#                    siw exactly 8 octets);
#   NAME-parse       one rpcrdma:xprtrdma_cm_private event: the length the CM
#                    delivered, parse status, offset, version, flags and
#                    the peer's R and sizes as parsed;
#   NAME-negotiated  rpcrdma:xprtrdma_inline_thresh: c2s = min(client send,
#                    server recv), s2c = min(server send, client recv), R
#                    only when both set it;
#   NAME-cleanup     cm-peer accepted and disconnected, the mount attempt
#                    ended within its time limit and nothing is mounted.
# Then the remote-invalidation cases (see reminv() below): a hostile
# server's Send With Invalidate of the call's own rkey, of an rkey
# under a stray xid, of another key of the same MR, and of no MR; the
# client must honour, report or refuse each as its policy says.  Last,
# an ordinary NFS server is started and the same client mounts it and
# reads back what it wrote, and the kernel log is clean.  --quick runs
# only the rows and cases marked q.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../hostile-table.sh"

ktap_begin hostile-client
hostile_start client "${1:-}"
MNT=/mnt/hostile
mkdir -p $MNT

# The client's settings for this test: distinct Send and Receive sizes
CLI_R=1 CLI_SEND=16384 CLI_RECV=8192
CLI_MSG=$(hex_of_message $CLI_R $CLI_SEND $CLI_RECV)

setup_rdma "$TRANSPORT" || { fail hostile-client-setup "rdma link add failed"; exit 1; }
modprobe rpcrdma 2>/dev/null
client_set max_inline_write $CLI_SEND && client_set max_inline_read $CLI_RECV &&
	client_set remote_invalidation 1 ||
	{ fail hostile-client-params "cannot configure the client"; exit 1; }
trace_on rpcrdma/xprtrdma_cm_private
# what cm-peer must print for our client's connect request
CLI_SENT="event=RDMA_CM_EVENT_CONNECT_REQUEST status=0 len=$OURLEN"
CLI_SENT="$CLI_SENT data=$CLI_MSG$(zeros $((OURLEN - 8)))"

log "transport $TRANSPORT ($VIEW view), max Private Data $MAXLEN," \
	"client R=$CLI_R send=$CLI_SEND recv=$CLI_RECV"

row() {
	local name hex=$3 st off ver fl r snd rcv c2s s2c nr pid mpid rc mrc len
	local out=$OUT/peer.out err=$OUT/peer.err mout=$OUT/mount.out
	local want ev w
	local -a L C

	row_expect "$1" "$2" "$4" "${5:-$4}" $CLI_R $CLI_SEND $CLI_RECV || return
	# the length of Private Data the CM hands our client
	len=$MAXLEN
	[ "$VIEW" = padded ] || len=$((${#hex} / 2))

	echo >$T/trace
	log "$name: $((${#hex} / 2)) octets: $hex"
	listen_and_mount "$name-cleanup" 10 --data "$hex" --hold 30 || return
	# the client's tracepoints fire when its connection is established
	slowwait 30 has_line $T/trace 'xprtrdma_inline_thresh'
	kill -TERM $pid 2>/dev/null
	wait $pid
	rc=$?
	wait $mpid
	mrc=$?
	show $out $err $mout
	mapfile -t L <$out
	lines_matching $T/trace 'xprtrdma_(cm_private|inline_thresh): '
	C=("${MATCHED[@]#*xprtrdma_}")
	C=("${C[@]/#/xprtrdma_}")

	# what our client sent
	want=$CLI_SENT
	ev=""
	for w in "${L[@]}"; do
		[ "${w#event=RDMA_CM_EVENT_CONNECT_REQUEST }" != "$w" ] && ev=$w
	done
	if [ "$ev" = "$want" ]; then
		pass "$name-sent"
	else
		fail "$name-sent" "want '$want', got '${L[*]}'"
	fi

	# what it made of the peer's Private Data, on its first connection
	want="len=$len status=$st offset=$off version=$ver flags=$fl R=$r send=$snd recv=$rcv"
	ev=""
	for w in "${C[@]}"; do
		[ "${w#xprtrdma_cm_private: }" != "$w" ] && { ev=${w#* -> * }; break; }
	done
	if [ "$ev" = "$want" ]; then
		pass "$name-parse"
	else
		fail "$name-parse" "want '$want', got '$ev' (${#C[@]} events)"
	fi

	# and what it negotiated
	want="neg send/recv=$c2s/$s2c,* R=$nr"
	ev=""
	for w in "${C[@]}"; do
		[ "${w#xprtrdma_inline_thresh: }" != "$w" ] && { ev=$w; break; }
	done
	# shellcheck disable=SC2053
	if [[ "$ev" == *" neg send/recv=$c2s/$s2c, "*", neg R=$nr" ]]; then
		pass "$name-negotiated"
	else
		fail "$name-negotiated" "want '$want', got '$ev'"
	fi

	# the connection was accepted with the row's octets and went away;
	# the mount failed (nobody answered) within its time limit
	if [ "${L[2]:-}" != "event=RDMA_CM_EVENT_ESTABLISHED status=0 len=0 data=" ]; then
		fail "$name-cleanup" "cm-peer did not get ESTABLISHED: ${L[*]} $(tr '\n' ' ' <$err)"
	elif [ "$rc" != 0 ] && [ "$rc" != 6 ]; then
		fail "$name-cleanup" "cm-peer exit $rc: ${L[*]} $(tr '\n' ' ' <$err)"
	elif [ "$mrc" = 0 ] || [ "$mrc" = 124 ] || [ "$mrc" = 137 ]; then
		fail "$name-cleanup" "mount exit $mrc: $(tr '\n' ' ' <$mout)"
	elif is_mounted $MNT; then
		fail "$name-cleanup" "$MNT is mounted"
	else
		pass "$name-cleanup"
	fi
	if is_mounted $MNT; then
		umount -f -l $MNT
	fi
}

run_rows

# Remote invalidation from a hostile server.  cm-peer answers the
# client's NULL ping by plain Send and its next call, the first with a
# Reply chunk (a 1024-octet server Send size forces one), by Send With
# Invalidate (cm-peer --reply-inv):
#   own        the call's own Reply chunk rkey: that MR needs no LOCAL_INV
#              (xprtrdma_mr_reminv); with R not negotiated this is also
#              reported by xprtrdma_reply_reminv_err "matched, R not
#              negotiated";
#   stray      that rkey in a reply to an xid no call used, while the
#              call's MR is still registered, then a plain reply to the
#              call: a stray invalidation of an MR in use, traced as
#              such, and the connection is kept (the call's reply is
#              handled on it), as on a stock client;
#   other      the call's rkey with another key octet: siw invalidates
#              by MR index alone, so the client gets an rkey that is none
#              of the request's but names its MR, which is in use: it is
#              traced as stray, every MR of the request is invalidated
#              locally, the reply is handled and the connection kept;
#              rxe checks the key and fails the Receive (REM_INV_REQ_ERR)
#              so the reply never reaches xprtrdma;
#   0x12345678 an rkey of no MR at all, answering the NULL ping: the
#              device fails the Receive on both transports.
# In the stray cases the request's MR, which the peer invalidated, gets
# the client's own LOCAL_INV as well: it must complete without error
# (invalidating an MR twice is harmless).  Each case: the expected
# events in the client's trace, none of the others, and a disconnect by
# the end (the mount fails on a reply without results).  Whether a stray rkey names an MR in use (the
# trace's words) is also covered by the KUnit suite rpcrdma_reminv
# (frwr_rkey_in_use()), with MRs released and never registered.
trace_has() { grep -qE "$1" $T/trace; }
INUSE="stray, MR in use"
# kept XID: the reply to XID was handled, and no disconnect was asked
# for (xprt_disconnect_force) or done before it
kept() {
	awk -v r="xprtrdma_reply: .* xid=$1 " '
		$0 ~ r { ok = 1; exit }
		/xprt_disconnect_force|xprtrdma_disconnect/ { exit }
		END { exit !ok }' $T/trace
}
reminv() {
	local name=reminv-$1 quick=$2 data=$3 mode=$4 expect=$5
	local out=$OUT/peer.out err=$OUT/peer.err mout=$OUT/mount.out
	local pid mpid rc handle xid cxid rkey id why=""

	[ "$QUICK" = 1 ] && [ "$quick" != q ] && return
	trace_on rpcrdma/xprtrdma_cm_private rpcrdma/xprtrdma_reply \
		rpcrdma/xprtrdma_reply_reminv_err rpcrdma/xprtrdma_mr_reminv \
		rpcrdma/xprtrdma_mr_localinv rpcrdma/xprtrdma_wc_receive \
		rpcrdma/xprtrdma_disconnect sunrpc/xprt_disconnect_force \
		rpcrdma/xprtrdma_wc_li rpcrdma/xprtrdma_wc_li_wake rpcrdma/xprtrdma_wc_li_done
	log "$name: --data $data --reply-inv $mode"
	listen_and_mount "$name" 20 --data "$data" --reply-inv "$mode" --hold 20 || return
	# every case ends with the client dropping the connection (a call
	# answered without results fails the mount)
	slowwait 30 has_line $out '^reply .*SEND_WITH_INV' &&
		slowwait 20 has_line $T/trace 'xprtrdma_disconnect'
	kill -TERM $pid 2>/dev/null
	wait $pid
	rc=$?
	wait $mpid
	show $out $err $mout
	grep -o 'xprtrdma_\(reply\|reply_reminv_err\|mr_reminv\|mr_localinv\|disconnect\): .*' $T/trace |
		head -n 8 | sed 's/^/    /'
	grep -o 'xprtrdma_wc_receive: .*' $T/trace | grep -v FLUSH | sed 's/^/    /'

	handle=$(sed -n 's/^call .*reply_chunk=yes handle=\(0x[0-9a-f]*\).*/\1/p' $out | head -n 1)
	xid=$(sed -n 's/^reply xid=\(0x[0-9a-f]*\) send=SEND_WITH_INV.*/\1/p' $out)
	cxid=$(sed -n 's/^call xid=\(0x[0-9a-f]*\) .*reply_chunk=yes.*/\1/p' $out | head -n 1)
	rkey=$(sed -n 's/^reply .*SEND_WITH_INV inv_rkey=\(0x[0-9a-f]*\) .*/\1/p' $out)
	if [ -z "$xid" ] || [ -z "$rkey" ]; then
		why="cm-peer sent no Send With Invalidate (exit $rc):"
		fail "$name" "$why $(tr '\n' ' ' <$out) $(tr '\n' ' ' <$err)"
		return
	fi
	case "$expect" in
	matched-negotiated)
		trace_has "xprtrdma_reply: .* xid=$xid " || why="$why; no reply xid=$xid"
		trace_has "xprtrdma_mr_reminv: .*:$handle " || why="$why; no mr_reminv of $handle"
		! trace_has xprtrdma_reply_reminv_err || why="$why; unexpected reply_reminv_err"
		;;
	matched-unnegotiated)
		trace_has "xprtrdma_mr_reminv: .*:$handle " || why="$why; no mr_reminv of $handle"
		trace_has "xprtrdma_reply_reminv_err: .* xid=$xid rkey=$rkey matched, R not negotiated" ||
			why="$why; no reply_reminv_err 'matched, R not negotiated'"
		;;
	stray-in-use)
		trace_has "reply_reminv_err: .* xid=$xid rkey=$rkey $INUSE, R negotiated" ||
			why="$why; no reply_reminv_err '$INUSE' for xid=$xid rkey=$rkey"
		! trace_has xprtrdma_mr_reminv || why="$why; an MR was taken as remotely invalidated"
		kept "$cxid" ||
			why="$why; the connection was not kept: no reply xid=$cxid handled before a disconnect"
		# the request's MR, invalidated by the peer, is invalidated
		# again by the client: that must complete without error
		id=$(sed -n "s/.*xprtrdma_mr_localinv: .* mr.id=\([0-9]*\) .*:$handle .*/\1/p" $T/trace | head -n 1)
		if [ -z "$id" ]; then
			why="$why; no LOCAL_INV of the request's MR $handle"
		elif ! slowwait 10 grep -qE "xprtrdma_wc_li(_wake|_done)?: .* mr.id=$id status=" $T/trace; then
			why="$why; the LOCAL_INV of the request's MR $handle (mr.id=$id) did not complete"
		elif grep -E "xprtrdma_wc_li(_wake|_done)?: .* mr.id=$id status=" $T/trace | grep -qv 'status=SUCCESS'; then
			why="$why; the LOCAL_INV of the request's MR $handle (mr.id=$id) failed"
		fi
		;;
	receive-error)
		trace_has "xprtrdma_wc_receive: .* status=REM_INV_REQ_ERR" ||
			why="$why; no Receive completed with REM_INV_REQ_ERR"
		! trace_has 'xprtrdma_reply_reminv_err|xprtrdma_mr_reminv' ||
			why="$why; a failed Receive was taken as an invalidation"
		;;
	esac
	trace_has xprtrdma_disconnect || why="$why; the client did not disconnect"
	if grep -q " $MNT " /proc/mounts; then
		why="$why; $MNT is mounted"
		umount -f -l $MNT
	fi
	if [ -z "$why" ]; then
		pass "$name"
	else
		fail "$name" "${why#; }"
	fi
}

NOPD_R=$(cm_msg 01 01 00 00)	# R, 1024-octet sizes: EXCHANGE_ID needs a Reply chunk
NOPD_NOR=$(cm_msg 01 00 00 00)	# the same without R
reminv own-negotiated   -  $NOPD_R   own   matched-negotiated
reminv own-unnegotiated q  $NOPD_NOR own   matched-unnegotiated
reminv stray            q  $NOPD_R   stray stray-in-use
if [ "$TRANSPORT" = siw ]; then
	reminv other-siw - $NOPD_R other stray-in-use
else
	reminv other-rxe - $NOPD_R other receive-error
fi
reminv no-such-rkey     -  $NOPD_R   0x12345678 receive-error

# the same client still mounts an ordinary server and moves data
client_view() {
	local got want
	# the server advertises its max_req_size both ways (max_send_size
	# is 0) and R by default
	local srv
	srv=$(cat /proc/sys/sunrpc/svc_rdma/max_req_size)
	got="$(xprt_info c2s) $(xprt_info s2c) $(xprt_info r) $(xprt_info cm_status)"
	want="$(smaller $CLI_SEND "$srv") $(smaller "$srv" $CLI_RECV) 1 found"
	if [ "$got" = "$want" ]; then
		pass nfs-after-negotiated
	else
		fail nfs-after-negotiated "c2s s2c R status: want '$want', got '$got'"
	fi
}
if start_nfsd; then
	nfs_after client_view
else
	fail nfs-after-negotiated "nfsd did not start"
fi

check_dmesg dmesg-clean
ktap_finished
