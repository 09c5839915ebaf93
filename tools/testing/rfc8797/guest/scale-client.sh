#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest scale run (scale.sh): soft-RoCE (or, with
# --transport siw, soft-iWARP) on the NIC linked to the server guest
# (guest/interop-server.sh), then, for each client TYPE and each count
# N, N RPC-over-RDMA connections to the server's NFS/RDMA port at once,
# made by one cm-peer (tools/testing/rfc8797/guest/cm-peer, --count N),
# each of which sends the CM Private Data of TYPE, sends one NFSv4 call
# (PUTROOTFH, READDIR) and holds the connection open while the server
# measures what they cost it.  Leaves DONE in the export at the end.
#
#   scale-client.sh [--prefix NAME] [--transport rxe|siw] [--marks] TYPE:N[,N...]...
#
# TYPE: ours (R, 8 KiB each way: our defaults), stock (R, 4 KiB each way:
# the Private Data a stock Linux client sends), none (no Private Data),
# 1k and 16k (R, that size each way).
#
# For each TYPE, one peer connects first, for the size of the Receive
# buffers the server gives such a client (its connection list's
# recv_buf; where it lists none, its max_req_size).  Then for each N, in
# this order: the server marks its allocations of that size ("mem-mark")
# and reports its memory ("meminfo", after dropping its caches); the N
# peers connect and call; once every one has its reply the server
# reports again ("mem": the Receive and Send buffers svcrdma allocated
# since the mark and the soft-RoCE queues made since; then "meminfo");
# the peers disconnect, and within 60 s the server must count no
# connection, when it reports a third time.  The server counts its
# RDMA-CM IDs on the NFS/RDMA port but the listener (rdma res show
# cm_id), which any kernel shows.  Results:
#   PREFIX-TYPE-N-connected  every peer was accepted and got its reply
#   PREFIX-TYPE-N-listed     the server counted N connections meanwhile
#   PREFIX-TYPE-N-released   it counted none after they closed
#   PREFIX-kmemleak          a kmemleak server kernel (the debug kernel)
#                            finds no object of the RPC/RDMA code
#                            unreferenced once all have closed
# and one line per TYPE and N in /results/scale.txt:
#   type=T n=N connected=C seconds=SECS recv=COUNT:OCTETS send=COUNT:OCTETS
#   max_requests=M size=S
#   queues=COUNT:OCTETS:MAX sq_depth=D before: KEY=KiB... held: KEY=KiB...
#   after: KEY=KiB...
# (KEY: MemAvailable, Slab, SUnreclaim, VmallocUsed, PageTables, Percpu
# of the server's /proc/meminfo), which scale.sh turns into a table and
# a fit.  One cm-peer makes all N (--count), one after the other; its
# output stays in /results/peers-TYPE-N.out.  The server keeps its
# /proc/slabinfo before and while each TYPE-N is held (its results'
# slabinfo/TYPE-N-before and -held: scale.py --slab).  --marks (scale.sh --count,
# under the insn-count plugin): before each run an idle window of 1 s
# (insn-mark I 1 J: what the idle server executes a second, "idle=I:J"
# in the run's line), then insn-mark A just before its peers start and
# B once they are all answered (looked for every 0.1 s), "marks=A:B".
# (One window at the start read 10 million kernel instructions a second:
# the server was still writing its symbol lists.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
. "$(dirname "$0")/hostile-table.sh"	# type_hex
prefix=scale
ktap_begin scale-client
transport=rxe
[ "${1:-}" = --prefix ] && { prefix=$2; shift 2; }
[ "${1:-}" = --transport ] && { transport=$2; shift 2; }
MARK="" mark=0
if [ "${1:-}" = --marks ]; then
	MARK=$RFC_CACHE/insn-plugin/insn-mark
	shift
	[ -x "$MARK" ] || { fail "$prefix-client-setup" "no $MARK"; exit 1; }
	# the end of a run within 0.1 s: the idle server's instructions
	# between the last reply and mark B are few
	PEERS_POLL=0.1
fi
[ $# -gt 0 ] || set -- ours:1,10
echo "client kernel: $(uname -r)"
nic=$(nic_up) || { fail "$prefix-client-setup" "no NIC"; exit 1; }
setup_rdma "$transport" "$nic" 192.0.2.2/24 || { fail "$prefix-client-setup" "rdma link add failed"; exit 1; }
[ -x "$CM_PEER" ] || { fail "$prefix-client-setup" "no $CM_PEER (make -C tools/testing/rfc8797/guest/cm-peer)"; exit 1; }
wait_server
OUT=/tmp/scale
mkdir -p $OUT

# peers N HEX: N connections with Private Data HEX made by one cm-peer
# (peers_start); until each has its reply, or one failed.  With
# NULL calls instead of PUTROOTFH the server held 65 of 100.  A reply
# too large for a small type is ERR_CHUNK, a reply all the same.
# RFC8797_INJECT=scale-refused: they connect to a port nothing listens
# on.
peers() {
	local port=$RDMA_PORT
	[ "$INJECT" != scale-refused ] || port=$((RDMA_PORT + 1))
	peers_start "$1" "$2" "$port" $OUT/peers $((60 + 2 * $1))
}
# peers_end: the peers disconnect; until the server lists no connection
peers_end() {
	kill -TERM "$PEERS_PID" 2>/dev/null
	wait "$PEERS_PID" 2>/dev/null
	SLOWWAIT_INTERVAL=2 slowwait 60 server_lists 0
}

# one TYPE N SIZE HEX: see above (HEX: type_hex TYPE)
one() {
	local type=$1 n=$2 size=$3 hex=$4 ok mem before held after name secs marks=""
	name=$prefix-$type-$n
	server_lists 0 || log "$name: the server still counts $CONNS connections"
	server_ask "mem-mark $size" >/dev/null
	server_meminfo before "$type-$n-before"
	if [ -n "$MARK" ]; then
		"$MARK" $((mark + 1)) 1 $((mark + 2)) >/dev/null
		"$MARK" $((mark + 3)) >/dev/null
	fi
	peers "$n" "$hex"
	if [ -n "$MARK" ]; then
		"$MARK" $((mark + 4)) >/dev/null
		marks="idle=$((mark + 1)):$((mark + 2)) marks=$((mark + 3)):$((mark + 4)) "
		mark=$((mark + 4))
	fi
	ok=$(grep -c '^rpc-reply xid=.* proc=' $OUT/peers.out)
	mem=$(server_ask "mem $size") || mem="mem na"
	server_meminfo held "$type-$n-held"
	secs=$(sed -n 's/^count connected=[0-9]* .*seconds=\([0-9.]*\)$/\1/p' $OUT/peers.out)
	if [ "$ok" = "$n" ] && grep -q "^count connected=$n seconds=" $OUT/peers.out; then
		pass "$name-connected"
	else
		fail "$name-connected" "$ok of $n replied: $(tail -n 4 $OUT/peers.out | tr '\n' ' ')$(head -c 300 $OUT/peers.err)"
	fi
	if [ "$CONNS" = "$n" ]; then
		pass "$name-listed"
	else
		fail "$name-listed" "the server counted $CONNS connections, not $n"
	fi
	if peers_end; then
		pass "$name-released"
	else
		fail "$name-released" "the server still counts $CONNS connections 60 s after they closed"
	fi
	after=$MEM_NOW
	cp $OUT/peers.out "/results/peers-$type-$n.out"
	echo "type=$type n=$n connected=$ok seconds=${secs:-na} $marks${mem#mem } before: $before held: $held after: $after" |
		tee -a /results/scale.txt
}

for spec in "$@"; do
	type=${spec%%:*}
	IFS=, read -r -a counts <<<"${spec#*:}"
	if [[ ! "$spec" =~ ^[a-z0-9]+:[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then
		fail "$prefix-$type-count" "'$spec' is not TYPE:N[,N...]"
		continue
	fi
	if ! hex=$(type_hex "$type"); then
		fail "$prefix-$type-type" "unknown client type $type"
		continue
	fi
	# the Receive buffers' size for this type: one peer, the server's
	# answer to "mem" names it (size=, its connection list's recv_buf);
	# where the server lists no connections, its max_req_size, as
	# upstream's svcrdma sizes them
	server_meminfo idle
	server_ask "mem-mark $MAX_REQ" >/dev/null
	peers 1 "$hex"
	size=$(field size "$(server_ask "mem $MAX_REQ")")
	peers_end || log "$type: the probe's connection is still counted"
	log "$type: Receive buffers of ${size:=$MAX_REQ} octets"
	for n in "${counts[@]}"; do
		one "$type" "$n" "$size" "$hex"
	done
done

# every connection closed: on a kmemleak kernel (--kernels debug) no
# object the RPC/RDMA code allocated may be left unreferenced
leaks=$(server_ask kmemleak 600) || leaks="kmemleak none"
case "$leaks" in
"kmemleak na") log "the server's kernel has no kmemleak" ;;
"kmemleak "[0-9]*" 0") pass "$prefix-kmemleak"; log "kmemleak: ${leaks#kmemleak } (all, ours)" ;;
*) fail "$prefix-kmemleak" "the server's answer: '$leaks' (all, the RPC/RDMA code's; its results' kmemleak.txt)" ;;
esac

# the server's signal to end: DONE in the export, over an NFS mount
mount_nfs 4.2 /mnt/done && { touch /mnt/done/DONE; umount_nfs /mnt/done; }
# a server that waits --still (scale.sh --count) looks for DONE now
server_ask wake >/dev/null
check_dmesg "$prefix-client-dmesg-clean"
ktap_finished
