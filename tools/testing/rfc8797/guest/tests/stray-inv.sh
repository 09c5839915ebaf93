#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: what a client does when a late or stray reply's Send With
# Invalidate names the Reply chunk of a call that is still pending, and
# the server then answers that call through the chunk.  Runs on any
# kernel with rpcrdma: ours, and Debian's stock ones (guest.sh --kernel
# stock, stock-7.3), to compare our client (which traces "stray, MR in
# use" and keeps the connection) with stock.
#
#   stray-inv.sh
#
# cm-peer listens on the NFS/RDMA port with R set and 1024-octet sizes,
# so that the mount's EXCHANGE_ID carries a Reply chunk; it answers the
# NULL ping by Send, then (--reply-inv stray-write) sends a reply to an
# xid no call used by Send With Invalidate of that call's Reply chunk
# rkey, RDMA Writes 64 octets to the chunk as a server answering through
# it would, and, if that Write succeeds, replies to the call.  Results:
#   stray-inv-sent         cm-peer sent the stray Send With Invalidate of
#                          the pending call's rkey
#   stray-inv-write        the Write to the chunk after it: its status is
#                          logged; it must not succeed, since the MR the
#                          client still holds for the call was invalidated
#                          (a success would place data in memory the
#                          client no longer described to this peer); on
#                          siw, whose Write completes when it is sent, the
#                          client's device must answer it with a DDP
#                          TERMINATE "invalid STag" instead (siw logs it)
#   stray-inv-disconnect   the client dropped the connection (at the
#                          failed Write at the latest)
#   stray-inv-unmounted    nothing stays mounted
#   dmesg-clean
# and, as information, the client's view of the stray reply (its
# rpcrdma trace events) and the order of events.
# shellcheck disable=SC2154	# pid and mpid: listen_and_mount's (hostile-table.sh)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../hostile-table.sh"

ktap_begin stray-inv
hostile_start client
MNT=/mnt/stray
mkdir -p $MNT

setup_rdma "$TRANSPORT" || { fail stray-inv-setup "rdma link add failed"; exit 1; }
modprobe rpcrdma 2>/dev/null
# the events every kernel since 6.x has, and ours' own where there
events="rpcrdma/xprtrdma_reply rpcrdma/xprtrdma_reply_rqst_err rpcrdma/xprtrdma_mr_reminv"
events="$events rpcrdma/xprtrdma_mr_localinv rpcrdma/xprtrdma_wc_receive rpcrdma/xprtrdma_disconnect"
[ ! -d $T/events/rpcrdma/xprtrdma_reply_reminv_err ] ||
	events="$events rpcrdma/xprtrdma_reply_reminv_err"
# shellcheck disable=SC2086	# one word per event
trace_on $events
log "kernel $(uname -r), transport $TRANSPORT"

out=$OUT/peer.out err=$OUT/peer.err
listen_and_mount stray-inv-setup 20 --hold 20 --data "$(cm_msg 01 01 00 00)" \
	--reply-inv stray-write || exit 1
slowwait 40 has_line $out '^write ' && slowwait 20 has_line $T/trace xprtrdma_disconnect
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
wait $mpid
log "cm-peer exit $rc; its output, then the client's trace:"
sed 's/^/    /' $out $err
grep -o 'xprtrdma_[a-z_]*: .*' $T/trace | grep -v 'FLUSH' | head -n 20 | sed 's/^/    /'

handle=$(sed -n 's/^call .*reply_chunk=yes handle=\(0x[0-9a-f]*\).*/\1/p' $out | head -n 1)
rkey=$(sed -n 's/^reply .*SEND_WITH_INV inv_rkey=\(0x[0-9a-f]*\) .*/\1/p' $out)
if [ -n "$handle" ] && [ "$rkey" = "$handle" ]; then
	pass stray-inv-sent
else
	fail stray-inv-sent "no Send With Invalidate of the call's rkey (call handle '$handle', invalidated '$rkey')"
fi
# siw completes an RDMA Write when it has sent it (iWARP's Write has no
# response): the responder's verdict then shows in the Send after it,
# which fails once the responder has torn the connection down
wstatus=$(sed -n 's/^write .* status=\(.*\)/\1/p' $out)
rstatus=$(sed -n '/^write /,$ s/^reply .* send=SEND inv_rkey=0x00000000 status=\(.*\)/\1/p' $out)
# (an iWARP TERMINATE of DDP, layer 1, "tagged buffer", type 1, "invalid
# STag", code 0: only the client's device can send it here, in answer to
# the Write, which it did not place)
term="siw: got TERMINATE. layer 1, type 1, code 0"
case "$TRANSPORT/$wstatus" in
*/) fail stray-inv-write "cm-peer wrote nothing to the chunk (exit $rc)" ;;
siw/success)
	log "the Write to the chunk completed at the sender; the reply after it: ${rstatus:-none}"
	if kernel_log | grep -q "$term"; then
		log "the client's device answered the Write: $term"
		pass stray-inv-write
	else
		fail stray-inv-write "the client's device did not reject the Write to the invalidated chunk (no '$term')"
	fi ;;
*/success) fail stray-inv-write "the Write to the invalidated chunk succeeded" ;;
*) log "the Write to the chunk: $wstatus"; pass stray-inv-write ;;
esac
if has_line $T/trace xprtrdma_disconnect; then
	pass stray-inv-disconnect
else
	fail stray-inv-disconnect "no xprtrdma_disconnect in the client's trace"
fi
if grep -q " $MNT " /proc/mounts; then
	fail stray-inv-unmounted "$MNT is mounted"
	umount -f -l $MNT
else
	pass stray-inv-unmounted
fi
check_dmesg dmesg-clean
ktap_finished
