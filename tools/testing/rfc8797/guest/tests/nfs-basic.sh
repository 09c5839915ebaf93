#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest end-to-end test: an NFS server and client in one guest, linked
# by soft-RoCE (rxe) or soft-iWARP (siw) on a dummy netdev.  For each NFS
# version: mount over RDMA, write and read back files with checksums (a
# large file, an fsync'd overwrite, a directory of many small files),
# unmount.  The client must have found the server's RFC 8797 message in
# CM Private Data of the length this transport delivers (8 octets over
# iWARP, 196 zero-padded over RoCE).
#
#   nfs-basic.sh [--transport rxe|siw] [--prefix NAME] [VERSION...]
# The transport defaults to rfc8797.transport= on the guest command line.
. "$(dirname "$0")/../lib.sh"
guest_settings	# TRANSPORT or RFC_CACHE before ktap_begin

transport=$TRANSPORT prefix=""
while [ $# -gt 0 ]; do
	case "$1" in
	--transport) transport=$2; shift 2 ;;
	--prefix) prefix=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 3 4.0 4.1 4.2
prefix=${prefix:-$transport}
# the transport, nine results per version, dmesg
ktap_begin nfs-basic $((2 + 9 * $#))
TRANSPORT=$transport
transport_expect "$transport"

setup_nfs_rdma "$prefix-"

src=/tmp/src
mkdir -p $src/small
dd if=/dev/urandom of=$src/big bs=1M count=16 status=none
dd if=/dev/urandom of=$src/patch bs=4k count=37 status=none
for i in $(seq 1 300); do
	head -c $(( (i * 7919) % 9000 )) /dev/urandom >$src/small/f$i
done

for v in "$@"; do
	t=$prefix-nfs$v
	mnt=/mnt/nfs$v
	trace_on rpcrdma/xprtrdma_cm_private
	if ! mount_nfs "$v" "$mnt"; then
		fail "$t-mount" "mount -o vers=$v,proto=rdma failed"
		continue
	fi
	pass "$t-mount"
	grep -q " $mnt nfs.*proto=rdma" /proc/mounts ||
		fail "$t-proto" "$mnt is not an RDMA mount: $(grep " $mnt " /proc/mounts)"
	d=$mnt/v$v
	mkdir -p "$d"

	# 0. what reads mountstats keeps working: the rdma xprt line has at
	# most the 31 numbers node_exporter's parser (Prometheus procfs)
	# allocates, and nfs-utils' mountstats and nfsiostat run cleanly
	n=$(mstat "$mnt" nfields)
	[ -n "$n" ] && [ "$n" -le 31 ] && pass "$t-mountstats-31-numbers" ||
		fail "$t-mountstats-31-numbers" "the rdma xprt line has ${n:-no} numbers"
	for tool in mountstats:"mountstats $mnt" mountstats-rpc:"mountstats --rpc $mnt" \
			nfsiostat:"nfsiostat 1 1 $mnt"; do
		# shellcheck disable=SC2086
		if out=$(timeout 60 ${tool#*:} 2>&1) && [[ "$out" != *Traceback* ]] &&
		   [[ "$out" == *"$mnt"* ]]; then
			pass "$t-${tool%%:*}"
		else
			fail "$t-${tool%%:*}" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
		fi
	done

	# 1. a large file, written then read back after a remount
	cp $src/big "$d/big" && sync
	# 2. an fsync'd overwrite in the middle of it
	dd if=$src/patch of="$d/big" bs=4k seek=100 conv=notrunc,fsync status=none
	cp $src/big /tmp/expect
	dd if=$src/patch of=/tmp/expect bs=4k seek=100 conv=notrunc status=none
	# 3. many small files
	cp -r $src/small "$d/small" && sync

	umount_nfs "$mnt" || fail "$t-umount" "umount failed"
	if [ "$INJECT" = checksum ]; then
		printf 'X' | dd of="$EXPORT/v$v/big" bs=1 seek=12345 conv=notrunc status=none
	fi
	# what the server stored
	want=$(file_sum /tmp/expect)
	got=$(file_sum "$EXPORT/v$v/big")
	[ -n "$got" ] && [ "$want" = "$got" ] && pass "$t-write-checksum" ||
		fail "$t-write-checksum" "server copy $got, expected $want"
	# what the client reads back through a fresh mount
	if mount_nfs "$v" "$mnt"; then
		got=$(file_sum "$d/big")
		[ -n "$got" ] && [ "$want" = "$got" ] && pass "$t-read-checksum" ||
			fail "$t-read-checksum" "read back $got, expected $want"
		if same_tree $src/small "$d/small" >/tmp/diff; then
			pass "$t-small-files"
		else
			fail "$t-small-files" "$(head -c 300 /tmp/diff)"
		fi
		umount_nfs "$mnt"
	else
		fail "$t-remount" "second mount failed"
	fi
	log "nfs $v done at ${SECONDS} s; negotiated (client tracepoints):"
	trace_dump | grep -o 'xprtrdma_\(cm_private\|inline_thresh\).*' | sort -u
	# every connection: the server's message, in Private Data of the
	# length this transport delivers
	pd=$(trace_dump | grep -o 'xprtrdma_cm_private: .* len=[0-9]* status=[a-z_]*' |
	     sed 's/.* len=//' | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
	if [ -n "$pd" ] && [ "${pd#* }" = "$TR_PD_LEN_REP status=found;" ]; then
		pass "$t-private-data"
	else
		fail "$t-private-data" "connections by len/status: '$pd', expected all len=$TR_PD_LEN_REP status=found"
	fi
done

check_dmesg "$prefix-dmesg-clean"
ktap_finished
