#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a memory-pressure run (scale.sh --pressure): what the
# server does when it cannot afford one more connection.  Soft-RoCE on
# the NIC linked to the server guest (guest/interop-server.sh, given
# little memory), then:
#   1. an NFSv4.2 mount over RDMA, and a file of 4 MiB written to it;
#   2. one cm-peer --count MAX makes connections of TYPE one after the
#      other (each with PUTROOTFH, READDIR) until one fails, and holds
#      those it made;
#   3. while they are held, the file is read back through the mount
#      with O_DIRECT, and a second one written and read;
#   4. the peers close, and the server must count only the mount's
#      connection again, with its memory back.
#
#   pressure-client.sh TYPE:MAX
#
# TYPE: type_hex's (hostile-table.sh).  Results:
#   pressure-TYPE-mount       the mount and its first file
#   pressure-TYPE-refused     a connection failed before MAX, and the
#                             failure came from the server at connect:
#                             rejected (cm-peer's exit 3), an unexpected
#                             CM event (5) or a close before the reply (6)
#   pressure-TYPE-traced      the server's svcrdma_accept_nomem
#                             tracepoint recorded the refusal, with the
#                             memory available under what the connection
#                             takes and the reserve
#   pressure-TYPE-held        the server then counted the K connections
#                             made and the mount's
#   pressure-TYPE-mount-serves  the mount's data read back, and a new
#                             file written and read, while they were held
#   pressure-TYPE-none-lost   cm-peer closed all K itself ("done count=K
#                             lost=0"): the server dropped none
#   pressure-TYPE-released    the server counted the mount's connection
#                             alone within 120 s of their close
#   pressure-TYPE-memory-back  its MemAvailable within 64 MiB of before
# and /results/pressure.txt: "type=T max=MAX connected=K failed=EXIT
# seconds=S lost=L before: KEY=KiB... held: ... after: ...".  The
# server guest's own results say whether its kernel logged an oops, a
# warning or the OOM killer (server-dmesg-clean).  Every wait has a
# limit: MAX connections take up to 120 + 2 * MAX s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
. "$(dirname "$0")/hostile-table.sh"	# type_hex
ktap_begin pressure-client
echo "client kernel: $(uname -r)"
spec=${1:-ours:1000}
type=${spec%%:*} max=${spec#*:}
name=pressure-$type before="" held=""
nic=$(nic_up) || { fail "$name-setup" "no NIC"; exit 1; }
setup_rdma rxe "$nic" 192.0.2.2/24 || { fail "$name-setup" "rdma link add failed"; exit 1; }
[ -x "$CM_PEER" ] || { fail "$name-setup" "no $CM_PEER"; exit 1; }
[[ "$max" =~ ^[1-9][0-9]*$ ]] || { fail "$name-setup" "'$spec' is not TYPE:MAX"; exit 1; }
hex=$(type_hex "$type") || { fail "$name-setup" "unknown client type $type"; exit 1; }
wait_server
# cm-peer's output goes straight to the host's results folder, so that a
# guest stopped after its server died keeps how far the connections got
OUT=/results/pressure
mkdir -p $OUT

# readback FILE SUM: FILE read with O_DIRECT (from the server, not the
# client's page cache) has the SHA-256 SUM
readback() {
	[ "$(timeout -k 5 120 dd if="$1" iflag=direct bs=1M 2>/dev/null | sha256sum | cut -d' ' -f1)" = "$2" ]
}
# kib VAR-VALUE: a MemAvailable read, or nothing when the server gave none
kib() { local v; v=$(field MemAvailable "$1" ""); [[ "$v" =~ ^[1-9][0-9]*$ ]] && echo "$v"; }

head -c 4M /dev/urandom >$OUT/a
sum_a=$(sha256sum <$OUT/a | cut -d' ' -f1)
if ! mount_nfs 4.2 /mnt/p || ! timeout -k 5 120 cp $OUT/a /mnt/p/a || ! readback /mnt/p/a "$sum_a"; then
	fail "$name-mount" "NFSv4.2 over RDMA did not mount, or its first file did not read back"
	ktap_finished
	exit 1
fi
pass "$name-mount"
SLOWWAIT_INTERVAL=2 slowwait 60 server_lists 1 || log "the server counts $CONNS connections with the mount alone"
server_meminfo before

peers_start "$max" "$hex" "$RDMA_PORT" $OUT/peers $((120 + 2 * max))
line=$(grep '^count connected=' $OUT/peers.out)
made=$(field connected "$line" 0) failed=$(field failed "$line" "")
log "cm-peer: ${line:-no count line}; its last lines: $(grep -v '^event=ESTABLISHED\|^rpc-' $OUT/peers.out | tail -n 4 | tr '\n' ' ')"
if [ -z "$failed" ]; then
	fail "$name-refused" "no connection failed: ${line:-cm-peer gave no count line} (the server's memory did not run out)"
elif [ "$failed" = 3 ] || [ "$failed" = 5 ] || [ "$failed" = 6 ]; then
	pass "$name-refused"
else
	fail "$name-refused" "connection $((made + 1)) failed with cm-peer's exit $failed: $(tail -n 3 $OUT/peers.out | tr '\n' ' ')"
fi
refusal=$(server_ask refusals) || refusal=""
log "the server's refusals: ${refusal:-no answer}"
read -r _ n_ref ev <<<"$refusal"
avail=$(field avail "$ev") need=$(field need "$ev") reserve=$(field reserve "$ev")
avail=${avail%KiB} need=${need%KiB} reserve=${reserve%KiB}
if [[ "$n_ref" =~ ^[1-9][0-9]*$ && "$avail" =~ ^[0-9]+$ && "$need" =~ ^[0-9]+$ &&
	"$reserve" =~ ^[0-9]+$ ]] && [ "$avail" -lt $((need + reserve)) ]; then
	pass "$name-traced"
else
	fail "$name-traced" "no svcrdma_accept_nomem event that says why: '${refusal:-no answer}'"
fi
if SLOWWAIT_INTERVAL=2 slowwait 60 server_lists $((made + 1)); then
	pass "$name-held"
else
	fail "$name-held" "the server counts $CONNS connections, not the $made made and the mount's"
fi
held=$MEM_NOW
head -c 1M /dev/urandom >$OUT/b
sum_b=$(sha256sum <$OUT/b | cut -d' ' -f1)
if readback /mnt/p/a "$sum_a" && timeout -k 5 120 cp $OUT/b /mnt/p/b && readback /mnt/p/b "$sum_b"; then
	pass "$name-mount-serves"
else
	fail "$name-mount-serves" "the mount's file did not read back, or a new one was not written and read"
fi
kill -TERM "$PEERS_PID" 2>/dev/null
wait "$PEERS_PID"
rc=$?
done_line=$(grep '^done count=' $OUT/peers.out)
if [ "$(field lost "$done_line" "")" = 0 ] && grep -q "^done count=$made " $OUT/peers.out; then
	pass "$name-none-lost"
else
	fail "$name-none-lost" "cm-peer's exit $rc, '${done_line:-no done line}': $(grep '^lost ' $OUT/peers.out | head -n 3 | tr '\n' ' ')"
fi
if SLOWWAIT_INTERVAL=2 slowwait 120 server_lists 1; then
	pass "$name-released"
else
	fail "$name-released" "the server counts $CONNS connections 120 s after the peers closed, not the mount's 1"
fi
b=$(kib "$before") a=$(kib "$MEM_NOW")
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -ge $((b - 65536)) ]; then
	pass "$name-memory-back"
else
	fail "$name-memory-back" "MemAvailable '${a:-none}' KiB after, '${b:-none}' before"
fi
echo "type=$type max=$max connected=$made failed=${failed:-none} seconds=$(field seconds "$line" na)" \
	"lost=$(field lost "$done_line" na) before: $before held: $held after: $MEM_NOW" |
	tee /results/pressure.txt
timeout -k 5 60 touch /mnt/p/DONE
umount_nfs /mnt/p
check_dmesg "$name-client-dmesg-clean"
ktap_finished
