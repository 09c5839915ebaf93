#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest run: soft-RoCE on the NIC linked to the
# server guest, then for each NFS version a mount over RDMA, checksummed
# I/O (fio with verify, many small files), and what this kernel reports
# about the negotiation.  Leaves DONE in the export at the end.
#
# Counters: before each mount and before each unmount (after fio, after
# the read-back) the client has the server guest take a snapshot of its
# counters (over plain TCP, see interop-server.sh), then appends its own
# to /results/counters.txt:
#   tag=nfs3-fio li=N ri=N un=N mm=N c2s=N s2c=N roff=N rneg=N st=NAME
#   reminv=N
# (tags nfsV-fio-start, nfsV-fio, nfsV-read-start, nfsV-read; from the
# rdma xprt line of the mount's mountstats: li = LOCAL_INVs posted, ri =
# replies with remote invalidation, un = of those not negotiated, mm =
# stray invalidations; from the transport's sysfs xprt_info: the
# negotiated c2s and s2c, R offered and negotiated, the parse status;
# "na" without a mount or where the kernel has no such value, e.g.
# stock 6.12; reminv = the
# xprtrdma_mr_reminv tracepoints of this NFS version so far, which both
# kernels have).  Between a start snapshot and the next one, the server's
# Send With Invalidate count must grow by exactly what the client counted.
#
# RFC8797_INJECT=checksum (rfc8797.inject= on the command line) corrupts
# one of the small files on the server, so that the small-files check
# must fail; RFC8797_INJECT=crash crashes this guest's kernel after the
# first mount through sysrq (the stock kernel has it, our test kernel
# not), to show that interop-matrix.sh stops the server at once and
# retries a crashed stock guest at most twice; RFC8797_INJECT=reboot
# reboots this guest there instead (QEMU runs with -no-reboot, so it
# ends), leaving neither an exit status nor a crash on the console, as a
# triple fault does: retried the same way for a stock guest, never for
# ours, and named in the result.
#   interop-client.sh [--prefix NAME] [--no-private-data] [--inline=W:R] VERSION...
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
prefix=interop
ktap_begin interop-client
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) prefix=$2; shift 2 ;;
	--no-private-data) cm_omit client ||
		{ fail "$prefix-client-knob" "this kernel cannot leave out its private data (fail_rpcrdma)"; exit 1; }
		shift ;;
	--inline=*)	# WRITE:READ, rdma_max_inline_write and _read (any kernel)
		wr=${1#--inline=}
		modprobe rpcrdma 2>/dev/null	# the stock kernel's sysctls come with it
		client_set max_inline_write "${wr%:*}" && client_set max_inline_read "${wr#*:}" ||
			{ fail "$prefix-client-knob" "rdma_max_inline_write/read refused $wr"; exit 1; }
		log "client inline thresholds: write ${wr%:*}, read ${wr#*:}"
		shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 4.2
echo "client kernel: $(uname -r)"
nic=$(nic_up) || { fail "$prefix-client-setup" "no NIC"; exit 1; }
setup_rdma rxe "$nic" 192.0.2.2/24 || { fail "$prefix-client-setup" "rdma link add failed"; exit 1; }
wait_server
mkdir -p /tmp/small
for i in $(seq 1 100); do head -c $(( (i * 7919) % 9000 )) /dev/urandom >/tmp/small/f$i; done

# xline MNT: the whole rdma xprt line of MNT in /proc/self/mountstats
xline() {
	awk -v m=" $1 " '
		/^device / { cur = index($0, "mounted on" m) > 0 }
		cur && $1 == "xprt:" && $2 == "rdma" { print; exit }
	' /proc/self/mountstats
}

# snap TAG [MNT]: the server snapshots its counters (interop-server.sh,
# asked over plain TCP, so that no RPC runs meanwhile), then this side
# records its own: the mountstats of MNT when given, and the count of
# xprtrdma_mr_reminv tracepoints since trace_on
snap() {
	local tag=$1 mnt=${2:-} ans line=""
	ans=$(server_ask "$tag") || log "snap $tag: no answer from the server"
	[ -n "$mnt" ] && line=$(xline "$mnt")
	log "snap $tag: server: $ans"
	log "snap $tag: client: $line"
	echo "$line" | awk -v tag="$tag" -v reminv="$(trace_count xprtrdma_mr_reminv)" \
		-v cm="$(cm_view "$mnt")" '
		function f(n) { return n <= NF ? $n : "na" }
		{ printf "tag=%s li=%s ri=%s un=%s mm=%s %s reminv=%s\n",
			tag, f(27), f(30), f(31), f(32), cm, reminv }
	' >>/results/counters.txt
}

# cm_view MNT: the negotiated values from sysfs, "na" where this kernel
# has none (stock 6.12) or nothing is mounted
cm_view() {
	local k v out=""
	for k in c2s:c2s s2c:s2c roff:client_r rneg:r st:cm_status; do
		v=na
		[ -n "$1" ] && v=$(xprt_info "${k#*:}")
		[ "$v" = none ] && v=na
		out="$out ${k%%:*}=$v"
	done
	echo "${out# }"
}

# trace_count PATTERN: trace lines matching PATTERN, "na" when the ring
# buffer overflowed (the count would be short)
trace_count() {
	if grep -qE '^overrun: [1-9]' /sys/kernel/tracing/per_cpu/cpu*/stats 2>/dev/null; then
		echo na
	else
		trace_dump | grep -c "$1"
	fi
}
echo 8192 >/sys/kernel/tracing/buffer_size_kb 2>/dev/null

for v in "$@"; do
	t=$prefix-nfs$v mnt=/mnt/nfs$v
	trace_on rpcrdma/xprtrdma_mr_reminv
	snap "nfs$v-fio-start"
	if ! mount_nfs "$v" "$mnt"; then
		fail "$t-mount" "mount -o vers=$v,proto=rdma failed"
		continue
	fi
	pass "$t-mount"
	if [ "$INJECT" = crash ]; then
		log "RFC8797_INJECT=crash: crashing this kernel"
		echo c >/proc/sysrq-trigger
	elif [ "$INJECT" = reboot ]; then
		log "RFC8797_INJECT=reboot: rebooting this guest"
		busybox reboot -f
	fi
	d=$mnt/c$v
	mkdir -p "$d"
	rm -f /tmp/fio.txt	# a failure's reason is this fio's output
	if timeout 300 fio --name=verify --directory="$d" --rw=randwrite --bs=4k --size=8m \
			--ioengine=psync --verify=crc32c --verify_fatal=1 --do_verify=1 \
			--direct=1 --output=/tmp/fio.txt >/dev/null 2>&1; then
		pass "$t-fio-verify"
	else
		fail "$t-fio-verify" "$(grep -iE 'err|verify' /tmp/fio.txt | head -c 300)"
	fi
	cp -r /tmp/small "$d/small" && sync
	if [ "$INJECT" = checksum ]; then
		log "RFC8797_INJECT=checksum: corrupting $d/small/f1 on the server"
		printf 'X' | dd of="$d/small/f1" bs=1 seek=100 conv=notrunc,fsync status=none
	fi
	snap "nfs$v-fio" "$mnt"
	umount_nfs "$mnt"
	snap "nfs$v-read-start"
	if mount_nfs "$v" "$mnt"; then
		if same_tree /tmp/small "$d/small" >/tmp/diff; then
			pass "$t-small-files"
		elif grep -q '^[<>]' /tmp/diff; then
			fail "$t-small-files" "SHA-256 differs for $(awk '/^[<>]/ { print $3 }' /tmp/diff |
				sort -u | head -n 10 | paste -sd ' ')"
		else
			fail "$t-small-files" "$(head -n 1 /tmp/diff)"
		fi
		snap "nfs$v-read" "$mnt"
		echo "== client view, nfs $v" | tee -a /results/client-view.txt
		trace_dump | grep -oE 'xprtrdma_(inline_thresh|cm_private):.*' | sort -u | tee -a /results/client-view.txt
		grep -A2 'xprt:.*rdma' /proc/self/mountstats | head -n 6 | tee -a /results/client-view.txt
		umount_nfs "$mnt"
	else
		fail "$t-remount" "second mount failed"
	fi
	# Large concurrent I/O on a mount of its own, outside the counted
	# phases (its 1 MiB READs use Write chunks of several MRs, which
	# are invalidated locally): 16 requests of 1 MiB and 256 KiB in
	# flight, every block verified; the server's Send Queue fills.
	if mount_nfs "$v" "$mnt"; then
		for bs in 1m 256k; do
			rm -f /tmp/fio.txt
			if timeout -k 10 300 fio --name=large --filename="$d/large-$bs" \
					--rw=write --bs=$bs --size=16m --ioengine=libaio --iodepth=16 \
					--direct=1 --verify=crc32c --do_verify=0 \
					--output=/tmp/fio.txt >/dev/null 2>&1 &&
			   timeout -k 10 300 fio --name=large --filename="$d/large-$bs" \
					--rw=read --bs=$bs --size=16m --ioengine=libaio --iodepth=16 \
					--direct=1 --verify=crc32c --output=/tmp/fio.txt >/dev/null 2>&1; then
				pass "$t-large-io-$bs"
			else
				fail "$t-large-io-$bs" "$(grep -iE 'err|verify' /tmp/fio.txt | head -c 300)"
			fi
			rm -f "$d/large-$bs"
		done
		umount_nfs "$mnt"
	else
		fail "$t-large-io-1m" "mount failed"
	fi
done
mount_nfs "${1}" /mnt/done && { touch "/mnt/done/DONE"; umount_nfs /mnt/done; }
check_dmesg "$prefix-client-dmesg-clean"
ktap_finished
