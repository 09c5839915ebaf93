#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The server closes a connection while its RDMA Reads are outstanding:
# every Read it posted must complete (successfully or flushed) before
# svc_rdma_free() destroys the Queue Pair, or the Read's rdma_rw
# context keeps its MR: ib_destroy_qp_user() warns that MRs are still
# in use (mrs_used), and the device's removal warns again about the MR
# left in its resource tracker (rdma_restrack_clean).
#
# An NFSv3 client writes 1 MiB blocks, four files at once, which the
# server pulls with RDMA Reads.  The loopback device then goes down, at
# a moment when the server has Reads outstanding (the trace says), so
# the client's Read responses stop reaching the server and its Reads
# stay outstanding;
# the RDMA link is deleted (which closes the server's connection: the
# server disconnects, drains its Queue Pair and frees it) and, once the
# deletion is under way, loopback comes back.  Over siw, a Queue Pair
# moved from CLOSING (where rdma_disconnect() puts it) to ERROR flushed
# its Send Queue only when a WQE was in progress, never the Reads
# waiting for their responses: ib_drain_qp() then returned with those
# Reads outstanding.  Seen once in make check's client-reconnect test
# on two vCPUs (run 20261130-103244-3172), where only the short window
# of a relink or an nfsd restart catches such a Read.
#
#   test-drain-reads.sh [ATTEMPTS]   default 3: each is one close with
#                                    Reads outstanding
#
# transports: siw
# (rxe delivers a local peer's packets itself, not through loopback:
# taking loopback down stops none of its Read Responses)
. "$(dirname "$0")/../lib.sh"

ATTEMPTS=${1:-3}
# the transport; per attempt, that Reads were outstanding, that the
# link came back and that the I/O ended; the I/O's checksum; dmesg
ktap_begin drain-reads $((1 + ATTEMPTS * 3 + 2))

setup_nfs_rdma
mnt=/mnt/drain
mount_nfs 3 "$mnt" "wsize=1048576" || { fail mount "mount failed"; ktap_finished; exit; }
dd if=/dev/urandom of=/tmp/f bs=1M count=32 status=none
want=$(file_sum /tmp/f)
T=/sys/kernel/tracing
# room for every event of an attempt (KiB per CPU): a post lost to a
# full ring would hide a Read outstanding
echo 8192 >$T/buffer_size_kb
trace_on rpcrdma/svcrdma_post_read_chunk rpcrdma/svcrdma_wc_read \
	rpcrdma/svcrdma_wc_read_flush rpcrdma/svcrdma_wc_read_err
# reading the trace must not pause it (pause-on-trace): it would drop a
# post here and a completion there, and the counts below would drift
echo 0 >$T/options/pause-on-trace

# reads: "POSTED OUTSTANDING", the Read chunks the server posted and
# those of them not completed, by the trace since it was last emptied;
# both from one reading of it (the Reads go on meanwhile)
reads() {
	local snap posted completed
	snap=$(grep -oE 'svcrdma_(post_read_chunk|wc_read(_flush|_err)?):' $T/trace)
	posted=$(grep -c post <<<"$snap")
	completed=$(grep -c wc_read <<<"$snap")
	echo "$posted $((posted - completed))"
}

# writer: copy /tmp/f to the mount, O_DIRECT 1 MiB blocks, four copies
# at once, until /tmp/stop exists; fails at the first copy that fails
writer() {
	local i=0 j pids
	rm -f /tmp/stop
	while [ ! -e /tmp/stop ]; do
		pids=()
		for j in 1 2 3 4; do
			dd if=/tmp/f of="$mnt/f$j-$((i % 2))" bs=1M oflag=direct status=none &
			pids+=($!)
		done
		for j in "${pids[@]}"; do
			wait "$j" || return 1
		done
		i=$((i + 1))
	done
}

# lo_down_with_reads: take loopback down at a moment when the server has
# Reads outstanding, and see them still outstanding a second later, in
# up to 20 tries; prints how many.  Each try waits, loopback up, for the
# writes to go on first: the segments a try drops make TCP back off, and
# a try taken while the writers wait for a retransmission finds none.
lo_down_with_reads() {
	local r posted=0 n=0
	for _ in $(seq 20); do
		SLOWWAIT_INTERVAL=0.2 slowwait 10 progressed "$posted" || break
		r=$(reads)
		posted=${r% *}
		[ "${r#* }" -gt 0 ] || continue
		ip link set lo down
		sleep 1
		r=$(reads)
		n=${r#* }
		[ "$n" -gt 0 ] && break
		posted=${r% *}
		ip link set lo up
	done
	echo "$n"
	[ "$n" -gt 0 ]
}
# progressed POSTED: the server posted Reads since it had posted POSTED
progressed() { local r; r=$(reads); [ "${r% *}" -gt "$1" ]; }

for a in $(seq "$ATTEMPTS"); do
	# no Read is outstanding here (the last attempt's I/O ended): the
	# trace starts with none
	: >$T/trace
	writer &
	wpid=$!
	sleep 3
	if n=$(lo_down_with_reads); then
		pass "close$a-reads-outstanding"
	else
		fail "close$a-reads-outstanding" "no Read was outstanding in 20 tries"
	fi
	log "close $a: $n Read chunks outstanding"
	timeout 60 rdma link del "$RDMA_LINK" &
	dpid=$!
	sleep 2
	ip link set lo up
	# (timeout cannot end a deletion blocked in the kernel: wait for
	# it with a limit of our own)
	if ! SLOWWAIT_INTERVAL=1 slowwait 90 pid_ended $dpid; then
		echo w >/proc/sysrq-trigger
		fail "close$a-relinked" "the link's deletion did not end in 90 s (blocked tasks on the console)"
		touch /tmp/stop
		break
	elif wait $dpid && rdma_link_again && nfsd_listen_again; then
		pass "close$a-relinked"
	else
		fail "close$a-relinked" "the link was not deleted and added again"
	fi
	# the hard mount reconnects and the copy goes on: it must end, and
	# without an error
	touch /tmp/stop
	if ! SLOWWAIT_INTERVAL=1 slowwait 180 pid_ended $wpid; then
		echo w >/proc/sysrq-trigger
		fail "close$a-io-ended" "the copy did not end in 180 s (blocked tasks on the console)"
		# its copies too, which the next attempt's counts would see
		pkill -P $wpid dd
		kill $wpid
		break
	elif wait $wpid; then
		pass "close$a-io-ended"
	else
		fail "close$a-io-ended" "a copy failed after the close"
	fi
done
timeout 120 cp /tmp/f "$mnt/last"
result_of io-checksum sum_is "$mnt/last" "$want" 1M
umount_nfs "$mnt" || log "umount failed"
check_dmesg dmesg-clean
ktap_finished
