#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reconnect storm: forced disconnects while fio writes and verifies data,
# small random writes and 1 MiB writes at iodepth 16 in turn.
#
#   storm.sh [DISCONNECTS]        (default 10; make check-debug asks 50)
#
# One NFSv4.2 mount over RDMA; fio rounds (random writes, crc32c verify,
# O_DIRECT) run back to back while the faults below take turns until
# DISCONNECTS of them have each been followed by a reconnect:
#   client   fail_sunrpc makes the client drop its connection
#            (xprt->ops->inject_disconnect, i.e. rdma_disconnect)
#   server   fail_sunrpc makes nfsd close the connection
#   link     the RDMA device is removed and added again (rdma link
#            del/add: a netdev going down does not break a connection
#            whose peer is local); nfsd's listener is re-created
#   sizes    the client advertises other inline sizes, then reconnects;
#            the renegotiated values must show in mountstats
#   restart  nfsd stops and starts again (listener gone and back)
# Every fault must be followed by a reconnect (connect count in
# mountstats).  Afterwards every fio round must have verified, a file
# written before the storm must read back intact, and once unmounted the
# RDMA resources (QP, CQ, MR, PD, cm_id) must be back to where they were
# before the mount; no hung task, oops or sanitizer report; on a
# kmemleak kernel, no leak from the RPC/RDMA code.
. "$(dirname "$0")/../lib.sh"
ktap_begin storm
want=${1:-10}
F=/sys/kernel/debug/fail_sunrpc
mnt=/mnt/storm
slow=1
grep -qE 'rfc8797-(debug|kcsan)' /proc/version && slow=3	# sanitizer kernels

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
echo 60 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
setup_nfs_rdma storm-
echo 16384 >/proc/sys/sunrpc/svc_rdma/max_req_size
[ -d $F ] || { fail storm-fail-sunrpc "no $F: kernel without FAIL_SUNRPC"; exit 1; }

# resources RESOURCE: how many of them the RDMA device holds now
resources() {
	rdma resource show 2>/dev/null | grep -o " $1 [0-9]*" | awk '{s += $2} END {print s + 0}'
}
RES="qp cq mr pd cm_id"
declare -A base
for r in $RES; do base[$r]=$(resources "$r"); done
log "resources before mount: $(rdma resource show 2>&1 | tr -s ' ')"

mount_nfs 4.2 $mnt || { fail storm-mount "mount failed"; exit 1; }
dd if=/dev/urandom of=/tmp/keep bs=1M count=4 status=none
keep_sum=$(file_sum /tmp/keep)
cp /tmp/keep $mnt/keep && sync

# fio rounds until /tmp/stop appears; one line per round in /tmp/rounds.
# Odd rounds: 32 KiB random writes, one at a time; even rounds: 1 MiB
# sequential writes with 16 in flight, so that faults also hit a server
# whose Send Queue is full of RDMA Writes.  Every round verifies.
fio_loop() {
	local i=0 rc
	while [ ! -e /tmp/stop ]; do
		i=$((i + 1))
		if [ $((i % 2)) = 1 ]; then
			set -- --rw=randwrite --bs=32k --size=8M --ioengine=psync
		else
			set -- --rw=write --bs=1m --size=16M --ioengine=libaio --iodepth=16
		fi
		timeout $((300 * slow)) fio --name=storm$i --filename=$mnt/fio-$((i % 2)) \
			"$@" --direct=1 --verify=crc32c --verify_fatal=1 --do_verify=1 \
			--randrepeat=0 --output=/tmp/fio-$i.log >/dev/null 2>&1
		rc=$?
		echo "$i $rc" >>/tmp/rounds
	done
}
: >/tmp/rounds
rm -f /tmp/stop
fio_loop &
fio_pid=$!

client_connects() { mstat $mnt connects; }
inject() {	# inject client|server: arm fail_sunrpc for one fault
	echo 0 >$F/probability
	if [ "$1" = client ]; then
		echo N >$F/ignore-client-disconnect
		echo Y >$F/ignore-server-disconnect
	else
		echo Y >$F/ignore-client-disconnect
		echo N >$F/ignore-server-disconnect
	fi
	echo Y >$F/ignore-cache-wait
	echo 0 >$F/verbose	# no stack dump: dmesg must stay clean
	echo 1 >$F/interval
	echo 1 >$F/times
	echo 0 >$F/space
	echo 100 >$F/probability
}
disarm() { echo 0 >$F/probability; echo 0 >$F/times 2>/dev/null; }

# wait_reconnect OLD: until the connect count exceeds OLD and the
# transport carries traffic again
# shellcheck disable=SC2317 # run by slowwait
reconnected() { [ "$(client_connects)" -gt "$1" ] 2>/dev/null; }
wait_reconnect() { SLOWWAIT_INTERVAL=0.5 slowwait $((60 * slow)) reconnected "$1"; }

sizes=(4096 65536 1024 16384 8192)
n=0 tries=0 kinds=""
declare -A done_kind
while [ "$n" -lt "$want" ] && [ "$tries" -lt $((want * 2)) ]; do
	tries=$((tries + 1))
	case $((tries % 5)) in
	1) kind=client ;;
	2) kind=server ;;
	3) kind=link ;;
	4) kind=sizes ;;
	0) kind=restart ;;
	esac
	before=$(client_connects)
	case "$kind" in
	client|server)
		inject "$kind" ;;
	link)
		nfsd_relink ;;
	sizes)
		s=${sizes[$((tries % ${#sizes[@]}))]}
		client_set max_inline_write "$s"
		client_set max_inline_read "$s"
		inject client ;;
	restart)
		rpc.nfsd 0
		sleep 1
		rpc.nfsd 4 && echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist ;;
	esac
	if wait_reconnect "$before"; then
		n=$((n + 1))
		done_kind[$kind]=$((${done_kind[$kind]:-0} + 1))
		log "fault $tries ($kind): reconnected, connect count $before -> $(client_connects)"
		if [ "$kind" = sizes ]; then
			got="$(xprt_info c2s) $(xprt_info s2c)"
			exp="$((s < 16384 ? s : 16384)) $s"
			[ "$got" = "$exp" ] || fail "storm-renegotiate-$tries" \
				"client advertised $s/$s to a 16384/16384 server: c2s s2c '$got', expected '$exp'"
		fi
	else
		fail "storm-fault-$tries-$kind" "no reconnect within $((60 * slow)) s (connect count still $(client_connects))"
	fi
	disarm
	sleep 1
done
touch /tmp/stop
wait $fio_pid
disarm

for k in client server link sizes restart; do kinds="$kinds $k=${done_kind[$k]:-0}"; done
[ "$n" -ge "$want" ] && pass "storm-disconnects-$want" ||
	fail "storm-disconnects-$want" "only $n of $want faults were followed by a reconnect ($tries tried)"
log "disconnects survived: $n (${kinds# }), connect count $(client_connects)"
echo "disconnects=$n$kinds" >/results/storm.txt

rounds=$(grep -c . /tmp/rounds)
bad=$(awk '$2 != 0' /tmp/rounds | wc -l)
# each round writes 8 MiB and reads all of it back for verification
verified=$(awk '$2 == 0 { b += ($1 % 2 ? 8 : 16) * 1048576 } END { print b + 0 }' /tmp/rounds)
echo "fio_rounds=$rounds fio_failed=$bad verified_bytes=$verified" >>/results/storm.txt
if [ "$rounds" -gt 0 ] && [ "$bad" = 0 ]; then
	pass storm-fio-verify
else
	fail storm-fio-verify "$bad of $rounds fio rounds failed: $(awk '$2 != 0 {print "round " $1 " exit " $2}' /tmp/rounds | head -n 3 | tr '\n' ';') $(grep -hE 'err=|verify' /tmp/fio-*.log | head -n 3 | tr '\n' ' ')"
fi
sum_is $mnt/keep "$keep_sum" && pass storm-keep-checksum ||
	fail storm-keep-checksum "the file written before the storm reads back different"
umount_nfs $mnt || fail storm-umount "umount failed"

# the client's resources go away asynchronously after umount
# shellcheck disable=SC2317 # run by slowwait
nothing_leaked() {
	local r
	leaked=""
	for r in $RES; do
		[ "$(resources "$r")" -le "${base[$r]}" ] || leaked="$leaked $r $(resources "$r")>${base[$r]}"
	done
	[ -z "$leaked" ]
}
SLOWWAIT_INTERVAL=0.5 slowwait $((30 * slow)) nothing_leaked && pass storm-no-leaked-rdma-resources ||
	fail storm-no-leaked-rdma-resources "still held after umount:$leaked ($(rdma resource show 2>&1 | tr -s ' '))"
log "resources after umount: $(rdma resource show 2>&1 | tr -s ' ')"

if leaks=$(kmemleak_scan /results/kmemleak.txt); then
	if [ "${leaks#* }" = 0 ]; then
		pass storm-kmemleak
	else
		fail storm-kmemleak "leaks from the RPC/RDMA code: ${leaks#* } (see /results/kmemleak.txt; off: kmemleak turned itself off)"
	fi
	log "kmemleak: ${leaks% *} unreferenced objects in all"
fi
check_dmesg storm-dmesg-clean
ktap_finished
