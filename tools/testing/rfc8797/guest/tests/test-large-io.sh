#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Large concurrent I/O: 1 MiB and 256 KiB O_DIRECT sequential writes and
# reads at iodepth 16, NFSv3 and NFSv4.2, every block verified (fio
# crc32c), at 1 KiB, 4 KiB and 64 KiB inline thresholds.  Each READ
# reply carries a Write chunk of up to 1 MiB that the server posts as
# one Send WR chain of dozens of RDMA Writes, so 16 in flight fill its
# Send Queue: this is the path that spun without sleeping when the
# queue was full (svc_rdma_post_send() waited for one free entry, not
# for room for the whole chain).
#
#   test-large-io.sh [--quick]    --quick: the 4 KiB threshold only
#
# A guest that stops making progress does not wait out a time limit: the
# soft lockup detector panics it with every CPU's stack on the console,
# and each fio run has its own limit after which the stacks of blocked
# tasks are dumped (sysrq w) and the step fails.
. "$(dirname "$0")/../lib.sh"
S=/proc/sys/sunrpc/svc_rdma

thresholds=(1024 4096 65536)
[ "${1:-}" = --quick ] && thresholds=(4096)
# the transport, a write and a read of 2 block sizes per threshold and
# version, dmesg
ktap_begin large-io $((2 + ${#thresholds[@]} * 2 * 4))

setup_nfs_rdma
log "preemption: $(dmesg | grep -o "Dynamic Preempt: .*" | tail -n 1)"

# fio_step NAME FIO-ARGS...: one verified fio run, at most 240 s
fio_step() {
	local name=$1 rc
	shift
	rm -f /tmp/fio.txt	# the reason below is this step's, not the last one's
	timeout -k 10 240 fio --name="$name" --ioengine=libaio --iodepth=16 --direct=1 \
		--verify=crc32c --output=/tmp/fio.txt "$@" >/dev/null 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		pass "$name"
		return 0
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo w >/proc/sysrq-trigger
		fail "$name" "no progress in 240 s (blocked tasks dumped to the console)"
	else
		fail "$name" "fio exit $rc: $(grep -iE 'err|verify' /tmp/fio.txt | head -c 300)"
	fi
	return 1
}

for th in "${thresholds[@]}"; do
	echo "$th" >/proc/sys/sunrpc/rdma_max_inline_read &&
		echo "$th" >/proc/sys/sunrpc/rdma_max_inline_write &&
		echo "$th" >$S/max_req_size ||
		{ fail "inline-$th" "a knob refused $th"; continue; }
	for v in 3 4.2; do
		mnt=/mnt/large
		t=inline$th-nfs$v
		echo 0 >$S/rdma_stat_sq_starve
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		for bs in 1m 256k; do
			f=$mnt/large-$bs
			# write the file with checksummed blocks, then read it back
			fio_step "$t-write-$bs" --filename="$f" --rw=write --bs="$bs" \
				--size=32m --do_verify=0 &&
			fio_step "$t-read-$bs" --filename="$f" --rw=read --bs="$bs" --size=32m
			rm -f "$f"
		done
		starve=$(cat $S/rdma_stat_sq_starve) ||
			fail "$t-sq-starve-readable" "rdma_stat_sq_starve cannot be read"
		log "$t: send queue full $starve times"
		umount_nfs "$mnt" || fail "$t-umount" "umount failed"
	done
done
check_dmesg dmesg-clean
ktap_finished
