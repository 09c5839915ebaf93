#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the late reply of an RPC killed by a fatal signal, whose
# Send With Invalidate names an MR that the client has since registered
# again for newer RPCs, while those RPCs' data is checked against a
# model.  This is the case that "xprtrdma: Trace remote invalidations
# that match no MR of the request" leaves to the device; it runs on any
# kernel built from a base's tree, ours and base (the same source
# without the series: what stock does), over rxe and siw.
#
#   test-killed-rpc.sh [--rounds N]
#
# The server exports an ext2 image on a loop device, with two nfsd
# threads; the client mounts it over NFSv4.2 with a 1024-octet inline
# write threshold.  Four readers read a 16 MiB file in 64 KiB O_DIRECT
# READs (each with a one-MR Write chunk) all along, every block compared
# with the model (guest/model-reader.py).  Each round:
#   1. fsfreeze -f on the export;
#   2. "ln -s" of a 3000-octet target: the CREATE does not fit inline,
#      the target goes in a Read chunk (one MR, rkey H); nfsd pulls it
#      and its thread blocks in sb_start_write;
#   3. SIGKILL to ln: xprt_rdma_free() LOCAL_INVs the chunk's MR
#      (xprtrdma_mrs_zap) and keeps it with its request, which goes back
#      to the head of the free list: the next READs register the same MR
#      again under new key octets; the other nfsd thread serves them;
#   4. after 3 s, fsfreeze -u: the blocked thread answers the CREATE by
#      Send With Invalidate of H.
# rxe compares the whole rkey: once the MR was registered again, H's key
# octet is stale, the client's device fails the Send (REM_INV_REQ_ERR)
# and the connection is lost; the READs in flight are sent again on the
# next.  siw looks up the MR by index alone: it invalidates the MR
# whatever it is registered for now; when a READ's Write to it is still
# to come, that Write fails (the client's siw answers it with a
# TERMINATE) and the connection is lost; else the reply is dropped as an
# unknown xid.  Either way no READ may fail or return other bytes.
# Rounds go on (at most N, default 4) until two have shown the MR
# registered again before the late reply, one of them with a newer READ
# that the server answered after it.  Whether a round gets that far is
# chance (one round in two to four here), so it is logged, not a
# result: a run where no round did proves less, and says so.  Results:
#   killed-rpc-transport, -setup, -mount
#   killed-rpc-blocked           every round: an nfsd thread blocked in the
#                                frozen export, ln still waiting
#   killed-rpc-zapped            every round: ln's RPC had one MR, its
#                                Read chunk's, which the client invalidated
#                                when ln was killed
#   killed-rpc-late-reply        every round: the blocked thread's first
#                                Send after the thaw invalidated H
#   killed-rpc-registered-again  in at least one round the MR was
#                                registered again before the late reply
#   killed-rpc-reads             every READ returned the model's bytes,
#                                none failed, READs went on in every round
#   killed-rpc-dmesg-clean
# What each late reply met is logged: the MR's registrations since,
# its state when the client received the reply, whether a newer READ's
# Write to it came later, the client's receive errors, disconnects and
# trace of the reply (an unknown xid; our kernels: the stray
# invalidation, "MR in use" when it names a registered MR).  Each
# round's trace is kept as killed-rpc-trace.N in the results.
. "$(dirname "$0")/../lib.sh"
guest_settings

rounds=4
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	*) echo "test-killed-rpc.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
# setup, transport, mount; blocked, zapped, late reply, registered
# again; reads, dmesg
ktap_begin killed-rpc 9

T=/sys/kernel/tracing
MNT=/mnt/killed
STOP=/tmp/killed-rpc.stop

EXPORT_IMAGE=/dev/shm/killed-rpc.img
if ! { truncate -s 128M $EXPORT_IMAGE && mkfs.ext2 -q -F -b 4096 $EXPORT_IMAGE; }; then
	fail killed-rpc-setup "no ext2 image: mkfs.ext2 failed"
	exit 1
fi
setup_rdma || { fail killed-rpc-setup "rdma link add failed"; exit 1; }
check_transport killed-rpc-transport
if ! start_nfsd; then
	fail killed-rpc-setup "nfsd did not start on the ext2 export (CONFIG_BLK_DEV_LOOP, CONFIG_EXT2_FS?)"
	exit 1
fi
pass killed-rpc-setup
# two nfsd threads: one blocks in the CREATE, the other serves the four
# readers, so READs wait on the server, MRs registered, when the late
# reply goes out
echo 2 >/proc/fs/nfsd/threads
log "kernel $(uname -r), transport $TRANSPORT, export: $(grep " $EXPORT " /proc/mounts)"

# the CREATE of a long symlink must not fit inline
client_set max_inline_write 1024
if ! mount_nfs 4.2 $MNT; then
	fail killed-rpc-mount "mount -o vers=4.2,proto=rdma failed"
	exit 1
fi
pass killed-rpc-mount
dd if=/dev/urandom of=/tmp/model bs=1M count=16 status=none
timeout 120 cp /tmp/model $MNT/data && timeout 60 sync
if [ "$INJECT" = checksum ]; then
	# the server's copy changes under the readers: every read of that
	# block must differ from the model
	printf 'X' | dd of="$EXPORT/data" bs=1 seek=70000 conv=notrunc status=none
	log "one octet of the server's copy changed (RFC8797_INJECT=checksum)"
fi

# the events that tell the story; a buffer that holds a round of READs
echo 16384 >$T/buffer_size_kb
events="rpcrdma/xprtrdma_mrs_zap rpcrdma/xprtrdma_chunk_read rpcrdma/xprtrdma_mr_map"
events="$events rpcrdma/xprtrdma_mr_localinv rpcrdma/xprtrdma_mr_reminv rpcrdma/xprtrdma_mr_unmap"
events="$events rpcrdma/xprtrdma_wc_receive rpcrdma/xprtrdma_disconnect rpcrdma/xprtrdma_connect"
events="$events rpcrdma/xprtrdma_reply_rqst_err rpcrdma/svcrdma_post_send"
# our kernels' trace of a stray invalidation
[ ! -d $T/events/rpcrdma/xprtrdma_reply_reminv_err ] ||
	events="$events rpcrdma/xprtrdma_reply_reminv_err"

# four readers, so that READs are always in flight and the killed
# RPC's MR is often registered for one when the late reply comes
rm -f $STOP $STOP.count.* /results/killed-rpc-trace.*
readers=()
for i in 1 2 3 4; do
	python3 "$(dirname "$0")/../model-reader.py" $MNT/data /tmp/model $STOP 900 \
		65536 $STOP.count.$i $((i * 61)) >/tmp/reader.out.$i 2>&1 &
	readers+=($!)
done
reads_now() { cat $STOP.count.* 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'; }
slowwait 60 test -s $STOP.count.4 || log "no READ done in 60 s"

# nfsd_in_freeze: an nfsd thread sleeps in the frozen file system's
# write barrier (sb_start_write: a percpu rw-semaphore); its pid in
# FROZEN
nfsd_in_freeze() {
	local p
	for p in $(pgrep -x nfsd); do
		if grep -q 'percpu_down_read\|percpu_rwsem\|sb_start_write\|mnt_want_write' \
			"/proc/$p/stack" 2>/dev/null; then
			FROZEN=$p
			return 0
		fi
	done
	return 1
}

# one_round N: one killed RPC and its late reply; counts what it saw
# in the n_* variables, logs the rest
n_blocked=0 n_zapped=0 n_late=0 n_again=0 n_live=0 n_exposed=0 n_hit=0 stuck=0 disconnects=0
one_round() {
	local r=$1 reads0 lnpid zap task li rd mr h mark late seen again state key after d exposed how
	# shellcheck disable=SC2086	# one word per event
	trace_on $events
	reads0=$(reads_now)
	fsfreeze -f "$EXPORT"
	ln -s "$target" "$MNT/link$r" 2>/dev/null &
	lnpid=$!
	FROZEN=""
	if slowwait 30 nfsd_in_freeze && kill -0 $lnpid 2>/dev/null; then
		n_blocked=$((n_blocked + 1))
	else
		log "round $r: no nfsd thread blocked in the frozen export within 30 s" \
			"(ln $(kill -0 $lnpid 2>/dev/null && echo running || echo ended))"
	fi
	sleep 1
	kill -KILL $lnpid 2>/dev/null
	if wait_timeout $lnpid 30; then
		wait $lnpid 2>/dev/null
	else
		stuck=1
		log "round $r: ln did not end in 30 s after SIGKILL"
	fi
	# the killed task's MR: xprtrdma_mrs_zap names the task, its
	# LOCAL_INV the MR and the handle, its Read chunk (the symlink's
	# target) the same handle
	zap=$(grep -m1 -o 'xprtrdma_mrs_zap: task:[0-9a-f]*@[0-9a-f]*' $T/trace)
	task=${zap##*task:}
	li="" rd="" mr="" h=""
	if [ -n "$task" ]; then
		li=$(grep -m1 "xprtrdma_mr_localinv: task:$task " $T/trace)
		rd=$(grep -m1 "xprtrdma_chunk_read: task:$task " $T/trace)
		mr=$(field mr.id "$li")
		h=$(grep -o ':0x[0-9a-f]* (' <<<"$li" | tr -d ':( ')
	fi
	if [ -n "$h" ] && [[ "$rd" == *":$h (last)"* ]]; then
		n_zapped=$((n_zapped + 1))
	else
		log "round $r: no LOCAL_INV of a one-MR Read chunk of a zapped task ('$zap', '$li', '$rd')"
	fi
	sleep 3
	echo "killed-rpc: round $r, fsfreeze -u" >$T/trace_marker
	fsfreeze -u "$EXPORT"
	# the late reply: the blocked nfsd thread's first Send after the
	# thaw (a READ's reply may invalidate the same rkey: 256
	# registrations bring its key octet round)
	late=""
	if [ -n "$h" ] && [ -n "$FROZEN" ]; then
		slowwait 30 eval "sed -n '/killed-rpc: round/,\$p' $T/trace | grep -q ' nfsd-$FROZEN .* svcrdma_post_send: '"
		sleep 2
		echo 0 >$T/tracing_on
		grep -n '' $T/trace >"/tmp/trace.$r"
		mark=$(grep -m1 'killed-rpc: round' "/tmp/trace.$r" | cut -d: -f1)
		[ -n "$mark" ] || mark=999999999	# no marker: no late reply
		late=$(awk -F: -v m="$mark" -v p=" nfsd-$FROZEN " \
			'$1 + 0 > m + 0 && index($0, p) && /svcrdma_post_send: / { print; exit }' "/tmp/trace.$r")
		[[ "$late" == *" inv_rkey=$h" ]] || { log "round $r: the thread's first Send: '$late'"; late=""; }
	fi
	cp "/tmp/trace.$r" "/results/killed-rpc-trace.$r" 2>/dev/null
	if [ -n "$late" ] && [ -n "$mr" ]; then
		n_late=$((n_late + 1))
		# the MR's registrations between the LOCAL_INV and the late
		# reply; its last event before the client's device received
		# the reply (the client's trace of it: an unknown xid, or the
		# receive's error), map: registered for a newer RPC; and
		# whether that RPC was answered, its chunk written, after it
		li=$(grep -m1 "xprtrdma_mr_localinv: task:$task " "/tmp/trace.$r" | cut -d: -f1)
		li=${li:-$mark}
		late=${late%%:*}
		seen=$(awk -F: -v b="$late" '$1 + 0 > b + 0 && (/xprtrdma_reply_rqst_err: / ||
			(/xprtrdma_wc_receive: / && !/status=(SUCCESS|WR_FLUSH_ERR)/)) { print $1; exit }' \
			"/tmp/trace.$r")
		again=$(awk -F: -v a="$li" -v b="$late" -v m="mr.id=$mr " \
			'$1 + 0 > a + 0 && $1 + 0 < b + 0 && /xprtrdma_mr_map: / && index($0, m)' "/tmp/trace.$r" | wc -l)
		state=$(awk -F: -v a="$li" -v b="${seen:-$late}" -v m="mr.id=$mr " \
			'$1 + 0 > a + 0 && $1 + 0 < b + 0 && /xprtrdma_mr_(map|localinv|reminv|unmap): / && index($0, m) { s = $0 }
			 END { print s }' "/tmp/trace.$r")
		key=$(grep -o ':0x[0-9a-f]* (' <<<"$state" | tr -d ':( ')
		state=$(sed 's/.*xprtrdma_mr_//; s/:.*//' <<<"$state")
		[ "$again" -eq 0 ] || n_again=$((n_again + 1))
		[ "$state" != map ] || n_live=$((n_live + 1))
		exposed=no
		if [ "$state" = map ] && [ -n "$key" ] && awk -F: -v b="$late" -v k="inv_rkey=$key" \
			'$1 + 0 > b + 0 && /svcrdma_post_send: / && index($0, k) { f = 1 } END { exit !f }' \
			"/tmp/trace.$r"; then
			exposed=yes
			n_exposed=$((n_exposed + 1))
		fi
		# registered now under the very rkey the reply invalidates
		[ "$state" != map ] || [ "$key" != "$h" ] || n_hit=$((n_hit + 1))
		after=$(awk -F: -v b="$late" '$1 + 0 > b + 0' "/tmp/trace.$r")
		d=$(grep -c 'xprtrdma_disconnect:' <<<"$after")
		disconnects=$((disconnects + d))
		how="(no trace of its receive) was sent"
		[ -z "$seen" ] || how=received
		log "round $r: task $task, MR $mr, rkey $h: registered again $again times;" \
			"when the client $how the late reply" \
			"${state:-not seen} under ${key:-?}" \
			"(map: registered for a newer RPC; localinv, reminv, unmap: free);" \
			"that RPC answered after it: $exposed"
		log "round $r: after the late reply: $d disconnects; receive errors:" \
			"$(grep -o 'xprtrdma_wc_receive: .*status=[A-Z_]*' <<<"$after" |
				grep -v 'status=SUCCESS\|status=WR_FLUSH_ERR' | sed 's/.*status=//' |
				sort | uniq -c | tr '\n' ' ')"
		grep -o 'xprtrdma_\(reply_rqst_err\|reply_reminv_err\|disconnect\|connect\): .*' <<<"$after" |
			head -n 6 | sed 's/^/    /'
	else
		log "round $r: no Send With Invalidate of '$h' by nfsd thread '$FROZEN' within 30 s of the thaw"
	fi
	log "round $r: $(($(reads_now) - reads0)) READs during the round;" \
		"the server holds the link: $(readlink "$EXPORT/link$r" | wc -c) octets"
	[ "$(($(reads_now) - reads0))" -gt 0 ] || stuck=1
}

target=$(head -c 3000 /dev/zero | tr '\0' t)
# until two rounds have shown the case (the MR registered again before
# the late reply), one of them with the MR registered for a newer RPC
# whose reply the server sent after the late one, or the rounds are
# spent
r=0
while [ $r -lt "$rounds" ] && { [ $n_again -lt 2 ] || [ $n_exposed -lt 1 ]; }; do
	r=$((r + 1))
	one_round $r
done
total=$r
[ $n_blocked = "$total" ] && pass killed-rpc-blocked ||
	fail killed-rpc-blocked "nfsd blocked in the frozen export in $n_blocked of $total rounds"
[ $n_zapped = "$total" ] && pass killed-rpc-zapped ||
	fail killed-rpc-zapped "the killed RPC's Read chunk MR was invalidated by the client in $n_zapped of $total rounds"
[ $n_late = "$total" ] && pass killed-rpc-late-reply ||
	fail killed-rpc-late-reply "the late reply invalidated the killed RPC's rkey in $n_late of $total rounds"
[ $n_again -gt 0 ] && pass killed-rpc-registered-again ||
	fail killed-rpc-registered-again "in none of $total rounds was the MR registered again before the late reply"
log "$total rounds: the MR registered again before the late reply in $n_again," \
	"registered for a newer RPC when it came in $n_live, and that RPC answered" \
	"after it in $n_exposed; registered under the late reply's own rkey (key" \
	"octet wrapped) in $n_hit"

touch $STOP
rc=0
for i in 1 2 3 4; do
	if wait_timeout "${readers[i - 1]}" 120; then
		wait "${readers[i - 1]}" || rc=$?
	else
		kill -KILL "${readers[i - 1]}" 2>/dev/null
		log "reader $i did not stop in 120 s"
		rc=124
	fi
	log "reader $i: $(tail -n 1 /tmp/reader.out.$i)"
done
log "$disconnects disconnects after late replies"
if [ "$rc" = 0 ] && [ "$stuck" = 0 ]; then
	pass killed-rpc-reads
else
	fail killed-rpc-reads "a reader's exit $rc, stuck=$stuck: $(head -q -n 3 /tmp/reader.out.* | tr '\n' ' ')"
fi
umount_nfs $MNT
check_dmesg killed-rpc-dmesg-clean
ktap_finished
