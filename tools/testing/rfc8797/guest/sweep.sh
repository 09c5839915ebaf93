#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Deterministic counters per inline threshold (the first part of issue
# 13's bench): one guest, both peers ours, NFSv3 over $TRANSPORT.  For
# each threshold (client rdma_max_inline_read/write and server
# max_req_size alike) and R on and off, fio O_DIRECT 4 KiB random reads
# and writes (iodepth 16, verified) and one 1 MiB sequential read, and
# from the client's mountstats and the server's views per RPC:
#   chunk   fraction of RPCs that carried a chunk segment (Read, Write
#           or Reply segments / RPCs; at most one segment each here)
#   linv    LOCAL_INVs posted per RPC
#   rinv    replies with remote invalidation per RPC
#   swi     server Sends with invalidate per RPC
#   sqfull  times the server's Send Queue was full
#   rbuf    the server's Receive buffer size for the connection, and the
#           client's (s2c), octets
# Prints one markdown table row per configuration to /results/sweep.md.
# No timing: under TCG only counts are repeatable.
#
#   sweep.sh [THRESHOLD...]     default 1024 4096 8192 16384 32768 65536
. "$(dirname "$0")/lib.sh"
ktap_begin sweep
S=/proc/sys/sunrpc/svc_rdma
[ $# -gt 0 ] || set -- 1024 4096 8192 16384 32768 65536

setup_nfs_rdma
mnt=/mnt/sweep
out=/results/sweep.md
{
	echo "| threshold | R | workload | RPCs | chunk/RPC | LOCAL_INV/RPC | remote inv/RPC | server SWI/RPC | SQ full | server recv buf | client recv buf |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >$out

# seg MNT: read + write + reply chunk segments so far (mountstats numbers
# 9, 10, 11 of the rdma line: awk fields 13, 14, 15)
seg() { mstat "$1" chunk_segs; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }

for th in "$@"; do
	for r in 1 0; do
		client_set max_inline_read "$th" && client_set max_inline_write "$th" &&
			client_set remote_invalidation "$r" && echo "$th" >$S/max_req_size &&
			echo "$r" >$S/remote_invalidation ||
			{ fail "sweep-$th-R$r" "a knob refused its value"; continue; }
		wait_no_conns || fail "sweep-$th-R$r-idle" "an old connection is listed"
		mount_nfs 3 "$mnt" || { fail "sweep-$th-R$r-mount" "mount failed"; continue; }
		for w in randread-4k randwrite-4k read-1m; do
			rw=${w%-*} bs=${w#*-} f=$mnt/f-$bs
			rm -f /tmp/fio.txt	# a failure's reason is this workload's
			# not counted: a file of checksummed blocks of this size
			fio --name=prep --filename=$f --rw=write --bs=$bs --size=8m \
				--ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c \
				--do_verify=0 --output=/dev/null >/dev/null 2>&1
			echo 0 >$S/rdma_stat_sq_starve
			s0=$(mstat $mnt sends) g0=$(seg $mnt) l0=$(mstat $mnt local_inv)
			i0=$(mstat $mnt reminv) v0=$(cat $S/rdma_stat_send_inv)
			# counted: reads verify every block they read; writes are
			# verified by a read pass after the counters are taken
			if ! timeout 300 fio --name=$w --filename=$f --rw=$rw --bs=$bs \
					--size=8m --ioengine=libaio --iodepth=16 --direct=1 \
					--verify=crc32c --do_verify=0 --randrepeat=0 \
					--output=/tmp/fio.txt >/dev/null 2>&1; then
				fail "sweep-$th-R$r-$w" "$(grep -iE 'err|verify' /tmp/fio.txt | head -c 200)"
				continue
			fi
			sleep 1	# the server counts Sends when they complete
			n=$(( $(mstat $mnt sends) - s0 ))
			echo "| $th | $r | $w | $n | $(ratio $(( $(seg $mnt) - g0 )) $n) |" \
				"$(ratio $(( $(mstat $mnt local_inv) - l0 )) $n) |" \
				"$(ratio $(( $(mstat $mnt reminv) - i0 )) $n) |" \
				"$(ratio $(( $(cat $S/rdma_stat_send_inv) - v0 )) $n) |" \
				"$(cat $S/rdma_stat_sq_starve) | $(field recv_buf "$(conns)") |" \
				"$(xprt_info s2c) |" >>$out
			if timeout 300 fio --name=check --filename=$f --rw=read --bs=$bs \
					--size=8m --ioengine=libaio --iodepth=16 --direct=1 \
					--verify=crc32c --output=/tmp/fio.txt >/dev/null 2>&1; then
				pass "sweep-$th-R$r-$w"
			else
				fail "sweep-$th-R$r-$w" "$(grep -iE 'err|verify' /tmp/fio.txt | head -c 200)"
			fi
		done
		umount_nfs "$mnt"
	done
done
cat $out
check_dmesg dmesg-clean
ktap_finished
