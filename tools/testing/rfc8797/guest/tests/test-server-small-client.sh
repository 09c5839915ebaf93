#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: a client that advertises a 1 KiB Receive size
# (rdma_max_inline_read=1024) against a server configured for 16 KiB.
# The server must negotiate s2c=1024 and never Send more: no Receive
# length error on the client (tracepoints, dmesg), large READDIR
# (ls -l of 600 files: READDIR replies of tens of KiB) and GETATTR-heavy workloads work, checksums pass,
# for NFSv3 and NFSv4.2.
. "$(dirname "$0")/../lib.sh"

vers=(3 4.2)
# the transport, nine results per version, the two dmesg checks
ktap_begin server-small-client $((1 + ${#vers[@]} * 9 + 2))
SYS=/proc/sys/sunrpc/svc_rdma
NFILES=${NFILES:-600}

setup_nfs_rdma srv-small-
# read at each accept
echo 16384 >$SYS/max_req_size
echo 16384 >$SYS/max_send_size
echo 1024 >/proc/sys/sunrpc/rdma_max_inline_read
echo 16384 >/proc/sys/sunrpc/rdma_max_inline_write


# the files, made on the server's side of the export
mkdir -p $EXPORT/many
for i in $(seq 1 $NFILES); do
	echo "file $i $(head -c $((i % 97)) /dev/zero | tr '\0' x)" >$EXPORT/many/entry-with-a-long-name-$i
done
dd if=/dev/urandom of=$EXPORT/blob bs=1k count=777 status=none
(cd $EXPORT/many && ls -l --time-style=+ | sort) >/tmp/ls.expect
blob_sum=$(file_sum $EXPORT/blob)

for v in "${vers[@]}"; do
	t=srv-small-nfs$v
	mnt=/mnt/small$v
	rm -f /tmp/ls.got /tmp/ls.err /tmp/ls.diff /tmp/st1	# not the last version's
	trace_on rpcrdma/xprtrdma_wc_receive rpcrdma/xprtrdma_reply_rqst_err \
		 rpcrdma/xprtrdma_err_chunk rpcrdma/svcrdma_cm_private \
		 rpcrdma/svcrdma_err_chunk
	if ! mount_nfs $v $mnt; then
		fail "$t-mount" "mount failed"
		continue
	fi
	line=$(conns | grep . | tail -1)
	log "$t: $line"
	[ "$(field s2c "$line")" = 1024 ] && [ "$(field c2s "$line")" = 16384 ] &&
		pass "$t-negotiated" ||
		fail "$t-negotiated" "want c2s=16384 s2c=1024: $line"
	d=$mnt

	# large READDIR(PLUS) through ls -l
	if (cd $d/many && timeout 300 ls -l --time-style=+ | sort) >/tmp/ls.got 2>/tmp/ls.err &&
	   diff /tmp/ls.expect /tmp/ls.got >/tmp/ls.diff; then
		pass "$t-ls-l-$NFILES"
	else
		fail "$t-ls-l-$NFILES" "$(head -c 300 /tmp/ls.err /tmp/ls.diff)"
	fi
	# GETATTR-heavy: stat every file, twice, without the attribute cache
	if timeout 300 find $d/many -type f -exec stat -c '%s %n' {} + >/tmp/st1 &&
	   [ "$(wc -l </tmp/st1)" = $NFILES ]; then
		pass "$t-stat-all"
	else
		fail "$t-stat-all" "$(wc -l </tmp/st1) lines"
	fi
	# contents
	if same_tree $EXPORT/many $d/many >/tmp/many.diff; then
		pass "$t-small-checksums"
	else
		fail "$t-small-checksums" "$(head -c 300 /tmp/many.diff)"
	fi
	sum_is $d/blob "$blob_sum" && pass "$t-read-checksum" ||
		fail "$t-read-checksum" "read back differs"
	# a name of its own: the guest's /tmp is the host's under an overlay
	w=$(mktemp)
	dd if=/dev/urandom of="$w" bs=1k count=300 status=none
	cp "$w" $d/w$v && sync
	sum_is $EXPORT/w$v "$(file_sum "$w")" &&
		pass "$t-write-checksum" || fail "$t-write-checksum" "mismatch"
	umount_nfs $mnt || fail "$t-umount" "umount failed"

	# no Receive on the client completed with an error, no ERR_CHUNK
	if trace_dump | grep -E 'xprtrdma_wc_receive' | grep -Ev 'status=SUCCESS|FLUSHED|WR_FLUSH' >/tmp/rerr; [ -s /tmp/rerr ]; then
		fail "$t-no-recv-error" "$(head -c 400 /tmp/rerr)"
	else
		pass "$t-no-recv-error"
	fi
	# and no Receive carried more than the client's 1 KiB buffer
	max=$(trace_dump | grep -o 'xprtrdma_wc_receive.*received=[0-9]*' |
	      sed 's/.*received=//' | sort -n | tail -1)
	log "$t: largest message the client received: ${max:-none} octets"
	[ -n "$max" ] && [ "$max" -le 1024 ] && pass "$t-recv-le-1k" ||
		fail "$t-recv-le-1k" "largest Receive ${max:-none} > 1024"
	n=$(trace_dump | grep -c 'xprtrdma_wc_receive')
	log "$t: $n client Receive completions traced"
	[ "$n" -gt 100 ] || fail "$t-traced" "only $n Receive completions traced"
	if trace_dump | grep -E 'err_chunk|reply_rqst_err' >/tmp/echunk; then
		fail "$t-no-err-chunk" "$(head -c 400 /tmp/echunk)"
	else
		pass "$t-no-err-chunk"
	fi
done

if kernel_log | grep -Ei 'length error|LOC_LEN|rpcrdma.*(error|fail)' >/tmp/derr; then
	fail srv-small-dmesg-rdma "$(head -c 400 /tmp/derr)"
else
	pass srv-small-dmesg-rdma
fi
check_dmesg srv-small-dmesg-clean
ktap_finished
