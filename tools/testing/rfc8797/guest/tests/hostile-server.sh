#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: hostile CM Private Data against OUR server.
#
#   hostile-server.sh [--quick]
#
# For every row of hostile-table.sh, cm-peer (tools/testing/rfc8797/
# cm-peer) connects to our NFS server's RDMA listener with exactly the
# row's octets as Private Data and holds the connection while this
# script reads what the server made of it.  Each row asserts:
#   NAME-parse  the connection's line in the server's connection list (conns):
#               parse status, offset, version, flags, the client's R and
#               sizes as parsed, the server's own settings, the negotiated
#               c2s = min(client send, server recv), s2c = min(server send,
#               client recv) and R, and that the server sent its message;
#   NAME-trace  one rpcrdma:svcrdma_cm_private event with the same values;
#   NAME-reply  what the server answered in its accept: a valid RFC 8797
#               message with the configured sizes (on rxe the whole
#               zero-padded 196-octet REP field, on siw exactly 8 octets),
#               and cm-peer got through its hold and disconnect cleanly.
# Then two calls whose reply does or does not fit in what cm-peer
# advertised it can receive (call-recv-1k: ERR_CHUNK, call-recv-4k: an
# inline reply; see call_case), and one from a peer that sent no
# Private Data, whose reply is larger than the server's Send buffers
# and is Sent all the same, as before RFC 8797 (call-no-private-data),
# and one from such a peer whose reply is pulled up into Send buffers
# of max_req_size octets, as before (call-no-private-data-pullup).
# Then: no connection is left listed, an
# ordinary NFSv4.2 mount still
# negotiates as usual and reads back what it wrote, and the kernel log
# is clean.  --quick runs only the rows marked q in the table.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../hostile-table.sh"

ktap_begin hostile-server
hostile_start server "${1:-}"
SYS=/proc/sys/sunrpc/svc_rdma

# The server's settings for this test: distinct Send and Receive sizes,
# so that a swapped or unparsed value shows
SRV_R=1 SRV_SEND=8192 SRV_RECV=16384
SRV_MSG=$(hex_of_message $SRV_R $SRV_SEND $SRV_RECV)

setup_nfs_rdma hostile-server-
echo $SRV_RECV >$SYS/max_req_size && echo $SRV_SEND >$SYS/max_send_size &&
	echo $SRV_R >$SYS/remote_invalidation ||
	{ fail hostile-server-sysctl "cannot configure the server"; exit 1; }
trace_on rpcrdma/svcrdma_cm_private
has_conns || { fail hostile-server-procfile "no connection list (conns)"; exit 1; }
# what cm-peer must print for the server's accept
SRV_REPLY="event=RDMA_CM_EVENT_ESTABLISHED status=0 len=$OURLEN"
SRV_REPLY="$SRV_REPLY data=$SRV_MSG$(zeros $((OURLEN - 8)))"

log "transport $TRANSPORT ($VIEW view), max Private Data $MAXLEN," \
	"server R=$SRV_R send=$SRV_SEND recv=$SRV_RECV"

# conns_listed LINES LINE: the server lists a connection; sets the
# caller's array LINES to the lines and its variable LINE to them joined
# by newlines (in this shell, without a fork: slowwait polls it)
# shellcheck disable=SC2317 # run by slowwait
conns_listed() {
	local -n _cl_lines=$1 _cl_line=$2
	mapfile -t _cl_lines < <(conns)
	printf -v _cl_line '%s\n' "${_cl_lines[@]}"
	_cl_line=${_cl_line%$'\n'}
	[ ${#_cl_lines[@]} != 0 ]
}

row() {
	local name hex=$3 st off ver fl r snd rcv c2s s2c nr pid rc line got want
	local out=$OUT/peer.out err=$OUT/peer.err ev tr f w
	local -A F
	local -a L

	row_expect "$1" "$2" "$4" "${5:-$4}" $SRV_R $SRV_SEND $SRV_RECV || return

	wait_no_conns || fail "$name-idle" "a connection is still listed: $(conns)"
	echo >$T/trace
	log "$name: $((${#hex} / 2)) octets: $hex"
	# the hold ends when this script has read the server's state
	: >$out; : >$err	# not the last row's lines
	timeout 60 "$PEER" connect "$SERVER_ADDR" $RDMA_PORT --data "$hex" \
		--hold 30 --timeout 15 >$out 2>$err &
	pid=$!
	slowwait 30 has_line $out '^(event=|done)'
	line=""
	# the server lists the connection once it has accepted it
	has_line $out '^event=RDMA_CM_EVENT_ESTABLISHED' && slowwait 5 conns_listed L line
	kill -TERM $pid 2>/dev/null
	wait $pid
	rc=$?
	show $out $err

	# what the server parsed and negotiated
	want="status=$st offset=$off version=$ver flags=$fl client_r=$r"
	want="$want client_send=$snd client_recv=$rcv server_r=$SRV_R"
	want="$want server_send=$SRV_SEND server_recv=$SRV_RECV c2s=$c2s s2c=$s2c r=$nr"
	for w in $line; do F[${w%%=*}]=${w#*=}; done
	got=""
	for f in status offset version flags client_r client_send client_recv \
		 server_r server_send server_recv c2s s2c r; do
		got="$got $f=${F[$f]:-}"
	done
	got=${got# }
	if [ -z "$line" ]; then
		got="$(tr '\n' ' ' <$out) $(tr '\n' ' ' <$err)"
		fail "$name-parse" "no connection listed (cm-peer exit $rc: $got)"
	elif [ ${#L[@]} != 1 ]; then
		fail "$name-parse" "expected one connection, got: $line"
	elif [ "$got" != "$want" ]; then
		fail "$name-parse" "want '$want', got '$got'"
	else
		pass "$name-parse"
	fi

	# the tracepoint reports the same, once for this connection
	want="status=$st offset=$off version=$ver flags=$fl client R=$r"
	want="$want send/recv=$snd/$rcv server sent=1 R=$SRV_R send/recv=$SRV_SEND/$SRV_RECV"
	want="$want negotiated c2s=$c2s s2c=$s2c R=$nr"
	lines_matching $T/trace 'svcrdma_cm_private: '
	tr=${MATCHED[0]:-}
	tr=${tr#*svcrdma_cm_private: addr=* }
	if [ ${#MATCHED[@]} != 1 ]; then
		fail "$name-trace" "expected one svcrdma_cm_private event, got ${#MATCHED[@]}: ${MATCHED[*]}"
	elif [ "$tr" != "$want" ]; then
		fail "$name-trace" "want '$want', got '$tr'"
	else
		pass "$name-trace"
	fi

	# the server's answer and a clean end of the connection
	want=$SRV_REPLY
	mapfile -t L <$out
	ev=""
	for w in "${L[@]}"; do
		[ "${w#event=RDMA_CM_EVENT_ESTABLISHED }" != "$w" ] && ev=$w
	done
	if [ "$ev" != "$want" ]; then
		fail "$name-reply" "want '$want', got '${L[*]}'"
	elif [ "$rc" != 0 ] || [ "${L[-1]:-}" != "done" ]; then
		got="${L[*]} $(tr '\n' ' ' <$err)"
		fail "$name-reply" "cm-peer exit $rc, not a clean hold and disconnect: $got"
	else
		pass "$name-reply"
	fi
}

run_rows

if wait_no_conns; then
	pass no-connection-left
else
	fail no-connection-left "still listed: $(conns)"
fi

# call_case NAME RECV EXPECT: cm-peer connects advertising R=0, Send
# 1024 and Receive RECV octets, and sends one NFSv4.0 READDIR of the
# export root inline without any chunk, whose reply (about 3000 octets)
# fits in what the peer can receive or not.  A Linux client advertises
# its rdma_max_inline_read rounded down to a multiple of 1024 and posts
# Receives of the unrounded value, so the server may Send a peer that
# advertised RECV up to RECV + 1023 octets.  EXPECT "err_chunk": the
# reply is larger, and with no Reply chunk to use the server must
# answer RDMA_ERROR ERR_CHUNK (one svcrdma_err_chunk event), trace the
# cause (svcrdma_send_over_limit: the reply's size, the limit and the
# advertised Receive size) and count it in the connection's over_limit;
# "msg": it fits, an RDMA_MSG of more than 1024 octets, nothing counted.
# Either way the server never Sends more than RECV + 1023, and writes
# no log line (NFSD's profile: no printk that a remote user can repeat).
# Sets LEN to the length of the reply.
call_case() {
	local name=call-$1 recv=$2 expect=$3 want rc line n pid limit cl=""
	local out=$OUT/call.out err=$OUT/call.err
	local -a L
	trace_on rpcrdma/svcrdma_err_chunk rpcrdma/svcrdma_send_over_limit
	dmesg -C
	log "$name: Receive size $recv, NFSv4.0 READDIR without a Reply chunk"
	: >$out; : >$err
	# the hold ends when this script has read the connection's count
	timeout 60 "$PEER" connect "$SERVER_ADDR" $RDMA_PORT \
		--data "${CALL_DATA-$(hex_of_message 0 1024 "$recv")}" --call readdir \
		--hold 30 --timeout 20 >$out 2>$err &
	pid=$!
	slowwait 30 has_line $out '^rpc-reply ' && slowwait 5 conns_listed L cl
	kill -TERM $pid 2>/dev/null
	wait $pid
	rc=$?
	show $out $err
	line=$(grep '^rpc-reply ' $out)
	LEN=$(field len "$line")
	n=$(grep -c 'svcrdma_err_chunk:' $T/trace)
	limit=$(smaller $SRV_SEND $((recv + 1023)))
	case $expect in
	err_chunk) want="proc=RDMA_ERROR err=ERR_CHUNK" ;;
	*) want="proc=RDMA_MSG" ;;
	esac
	if [ "$rc" != 0 ]; then
		fail "$name" "cm-peer exit $rc: $(tr '\n' ' ' <$out) $(tr '\n' ' ' <$err)"
	elif [[ "$line" != *" $want "* ]]; then
		fail "$name" "want '$want', got '$line'"
	elif [ -z "$LEN" ] || [ "$LEN" -gt $((recv + 1023)) ]; then
		fail "$name" "the server Sent ${LEN:-?} octets to a peer that advertised $recv"
	elif [ "$expect" = msg ] && [ "$LEN" -le "${CALL_MIN:-1024}" ]; then
		fail "$name" "a reply of $LEN octets proves nothing: the directory is too small"
	elif [ "$expect" = err_chunk ] && [ "$n" != 1 ]; then
		fail "$name" "$n svcrdma_err_chunk events, want 1"
	elif [ "$expect" = err_chunk ] &&
	     ! grep -q "svcrdma_send_over_limit: addr=[^ ]* reply without a Reply chunk of [0-9]* octets over the limit of $limit (advertised Receive size $recv): replying ERR_CHUNK" $T/trace; then
		fail "$name" "no svcrdma_send_over_limit event names the cause: $(grep -o 'svcrdma_send_over_limit: .*' $T/trace | tail -1)"
	elif [ "$(field over_limit "$cl")" != "$([ "$expect" = err_chunk ] && echo 1 || echo 0)" ]; then
		fail "$name" "the connection counts over_limit='$(field over_limit "$cl")' (listed: ${cl:-nothing})"
	elif [ "$expect" = msg ] && [ "$n" != 0 ]; then
		fail "$name" "$n svcrdma_err_chunk events, want 0"
	elif dmesg | grep -q 'svcrdma:.*ERR_CHUNK'; then
		fail "$name" "a log line a client can repeat: $(dmesg | grep 'svcrdma:.*ERR_CHUNK' | tail -n 1)"
	else
		pass "$name"
	fi
}

# a directory whose READDIR reply needs more than 2048 octets
for ((i = 1; i <= 60; i++)); do
	: >"$EXPORT/readdir-entry-with-a-rather-long-name-$i"
done
call_case recv-4k 4096 msg
reply=$LEN
call_case recv-1k 1024 err_chunk
# A stock client whose rdma_max_inline_read is not a multiple of 1024
# (say 3000) advertises it rounded down (2048) and omits the Reply
# chunk for replies that fit its real buffers: the server must Send
# such a reply, a little larger than advertised, as a server without
# RFC 8797 negotiation did, never fail it with ERR_CHUNK.
if [ -n "$reply" ] && [ $((reply % 1024)) != 0 ] && [ "$reply" -gt 2048 ]; then
	call_case recv-rounded-down $((reply / 1024 * 1024)) msg
else
	fail call-recv-rounded-down "READDIR reply of '${reply:-?}' octets: no rounded-down size to test with"
fi
# A peer that sent no CM Private Data (an RFC 8166 client) was never
# held to a reply size: a server without RFC 8797 negotiation Sends its
# reply inline whatever its size, beyond its Send buffers when no
# pull-up is needed.  With max_send_size at 2048 the READDIR reply is
# larger than the Send buffers, and must still be Sent (RDMA_MSG).
if echo 2048 >$SYS/max_send_size; then
	CALL_DATA="" CALL_MIN=2048 call_case no-private-data 65536 msg
	echo $SRV_SEND >$SYS/max_send_size ||
		fail call-no-private-data-restore "cannot set max_send_size back to $SRV_SEND"
else
	fail call-no-private-data "cannot set max_send_size to 2048"
fi
# A peer that sent no CM Private Data has its replies pulled up into
# Send buffers of max_req_size octets, as a server without RFC 8797
# negotiation did: an administrator who raised max_req_size to 16 KiB
# got replies of up to 16 KiB pulled up for such a peer.  An NFSv4.0
# READ of 12291 octets at offset 4095, without chunks, spreads its
# reply over five pages: with the transport header, the RPC head and
# the XDR pad that is 8 Send SGEs, as many as a 16 KiB max_req_size
# gives the connection on rxe (siw has 6), so the reply is pulled up.
# It must be Sent with the file's data, never answered ERR_CHUNK.
pullup_case() {
	local name=call-no-private-data-pullup off=4095 len=12291 rc line want
	local out=$OUT/call.out err=$OUT/call.err
	dd if=/dev/urandom of=$EXPORT/pullup-file bs=32k count=1 status=none
	want=$(dd if=$EXPORT/pullup-file bs=$len skip=$off count=1 \
		  iflag=skip_bytes status=none | od -An -v -tx1 | tr -d ' \n')
	# RFC8797_INJECT=pullup-v2: Send buffers of 4096 octets, as v2 gave
	# such a peer (min(max_send_size, 4096)); the reply must then fail
	local send=0
	# shellcheck disable=SC2153	# INJECT: guest_settings' (lib.sh)
	if [ "$INJECT" = pullup-v2 ]; then
		send=4096
		log "$name: max_send_size $send on purpose (RFC8797_INJECT=pullup-v2)"
	fi
	if ! echo $SRV_RECV >$SYS/max_req_size || ! echo $send >$SYS/max_send_size; then
		fail "$name" "cannot set max_req_size $SRV_RECV, max_send_size $send"
		return
	fi
	trace_on rpcrdma/svcrdma_err_chunk rpcrdma/svcrdma_send_pullup
	log "$name: max_req_size $SRV_RECV, an NFSv4.0 READ of $len octets at $off without chunks"
	timeout 60 "$PEER" connect "$SERVER_ADDR" $RDMA_PORT --data "" \
		--call "read:$off:$len:pullup-file" --hold 1 --timeout 20 >$out 2>$err
	rc=$?
	grep -v '^rpc-data ' $out >$out.show
	show $out.show $err
	line=$(grep '^rpc-reply ' $out)
	if [[ "$line" != *" proc=RDMA_MSG "* ]]; then
		fail "$name" "want an RDMA_MSG, got '$line' (cm-peer exit $rc)"
	elif [ "$(field nfs_status "$line")" != 0 ]; then
		fail "$name" "the NFS READ failed: $line"
	elif [ "$(grep '^rpc-data ' $out | cut -d' ' -f2)" != "$want" ]; then
		fail "$name" "the data differs from the file's $len octets at $off"
	elif ! grep -q "svcrdma_send_pullup: .*(total $(field len "$line"))" $T/trace; then
		fail "$name" "the reply was not pulled up: the case tests nothing ($(grep -o 'svcrdma_send_pullup: .*' $T/trace | tail -1))"
	elif [ "$rc" != 0 ]; then
		fail "$name" "the connection did not end cleanly (cm-peer exit $rc)"
	else
		pass "$name"
	fi
	echo $SRV_SEND >$SYS/max_send_size ||
		fail "$name-restore" "cannot set max_send_size back to $SRV_SEND"
}
pullup_case

# send_case NAME DATA SIZE: cm-peer connects with CM Private Data DATA
# and Sends one NFSv4 NULL call of SIZE octets, which the server must
# receive and answer.  A peer that sent no Private Data may Send as
# much as a server without RFC 8797 negotiation received (max_req_size,
# 4096 by default in Linux 6.12), whatever RFC 8166 says it should assume; a Linux
# client whose rdma_max_inline_write is not a multiple of 1024 (1500)
# advertises it rounded down (1024) and Sends up to the unrounded value.
# Receive buffers smaller than that make the Receive fail and the
# connection drop, and the call is never answered.
send_case() {
	local name=send-$1 data=$2 size=$3 rc line
	local out=$OUT/call.out err=$OUT/call.err
	log "$name: a $size-octet call after Private Data '$data'"
	timeout 60 "$PEER" connect "$SERVER_ADDR" $RDMA_PORT \
		--data "$data" --call "null:$size" --hold 1 --timeout 20 >$out 2>$err
	rc=$?
	show $out $err
	line=$(grep '^rpc-reply ' $out)
	if [ "$rc" != 0 ] || [[ "$line" != *" proc=RDMA_MSG "* ]]; then
		fail "$name" "no reply to a $size-octet call (exit $rc): $(tr '\n' ' ' <$out)"
	else
		pass "$name"
	fi
}
send_case no-private-data-4k "" 4096
send_case rounded-down-1500 "$(hex_of_message 0 1024 4096)" 1500
wait_no_conns || fail call-no-connection-left "still listed: $(conns)"

# the server still serves an ordinary client, with the usual negotiation
MNT=/mnt/hostile
negotiated_after() {
	local line cw cr
	line=$(conns)
	# our client advertises its rdma_max_inline_write/_read and R
	cw=$(cat /proc/sys/sunrpc/rdma_max_inline_write)
	cr=$(cat /proc/sys/sunrpc/rdma_max_inline_read)
	if [ "$(field status "$line") $(field c2s "$line") $(field s2c "$line") $(field r "$line")" = \
	     "found $(smaller "$cw" $SRV_RECV) $(smaller $SRV_SEND "$cr") 1" ]; then
		pass nfs-after-negotiated
	else
		fail nfs-after-negotiated "$line"
	fi
}
nfs_after negotiated_after

check_dmesg dmesg-clean
ktap_finished
