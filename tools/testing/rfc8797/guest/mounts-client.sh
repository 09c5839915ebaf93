#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest run of what an NFS/RDMA mount costs the
# client (scale.sh --mounts): soft-RoCE on the NIC linked to the server
# guest (guest/interop-server.sh), then for each inline threshold T and
# each nconnect K one NFSv4.2 mount with nconnect=K, its client set to
# T both ways (rdma_max_inline_read and rdma_max_inline_write; the
# server's own defaults are 8 KiB, so the connection negotiates T up to
# 8192).
# Leaves DONE in the export at the end.
#
#   mounts-client.sh [--prefix NAME] T:K[,K...]...
#
# For each T and K, in this order: this guest's memory (/proc/meminfo
# after dropping its caches: "before"); the kmalloc tracepoints marked
# for T-octet buffers; the mount; 4 KiB O_DIRECT random reads of a 16
# MiB file at depth 64 for 10 s, so that every connection carries RPCs
# and gathers the buffers its credits call for; the memory again
# ("held", the file's pages dropped), and the buffers of T octets the
# client's RPC-over-RDMA code allocated since the mark; the unmount,
# and the memory a third time ("after").  Results:
#   PREFIX-T-K-mounted      the mount worked, with K RDMA transports
#                           (mountstats' xprt lines) that each connected
#   PREFIX-T-K-negotiated   every transport's client-to-server and
#                           server-to-client thresholds are T, where the
#                           kernel reports them (sysfs xprt_info)
#   PREFIX-T-K-released     the unmount worked
# (and PREFIX-T-K-workload when writing or reading the file failed,
# PREFIX-T-K-set when the client refused T)
# and one line per T and K in /results/mounts.txt:
#   inline=T nconnect=K xprts=X connects=C buffers=COUNT:OCTETS
#   before: KEY=KiB... held: KEY=KiB... after: KEY=KiB...
# (KEY: MemAvailable, Slab, SUnreclaim, VmallocUsed, PageTables, Percpu
# of this guest's /proc/meminfo), which scale.py --mounts turns into a
# table.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
prefix=mounts
SYS=/proc/sys/sunrpc
ktap_begin mounts-client
[ "${1:-}" = --prefix ] && { prefix=$2; shift 2; }
[ $# -gt 0 ] || set -- 4096:1,4,16 8192:1,4,16
modprobe rpcrdma 2>/dev/null	# the sysctls come with it
echo "client kernel: $(uname -r)"
nic=$(nic_up) || { fail "$prefix-client-setup" "no NIC"; exit 1; }
setup_rdma rxe "$nic" 192.0.2.2/24 || { fail "$prefix-client-setup" "rdma link add failed"; exit 1; }
wait_server
echo 16384 >/sys/kernel/tracing/buffer_size_kb 2>/dev/null
MNT=/mnt/mounts

# xprt_counts: "X C", the rdma transports of the mount (mountstats'
# xprt lines) and the connections they made (their field 5)
xprt_counts() {
	awk -v m=" $MNT " '/^device / { cur = index($0, "mounted on" m) > 0 }
		cur && $1 == "xprt:" && $2 == "rdma" { n++; c += $5 }
		END { print n + 0, c + 0 }' /proc/self/mountstats
}

# one T K: see above
one() {
	local t=$1 k=$2 name=$prefix-$1-$2 before held after x c buf c2s s2c
	if ! { echo "$t" >"$SYS/rdma_max_inline_read" && echo "$t" >"$SYS/rdma_max_inline_write"; }; then
		fail "$name-set" "the client refused rdma_max_inline_read or _write = $t"
		return
	fi
	before=$(meminfo_kib)
	kmalloc_mark "$t" || log "$name: no kmalloc tracing"
	if ! mount_nfs 4.2 "$MNT" "nconnect=$k"; then
		fail "$name-mounted" "mount -o nconnect=$k failed"
		return
	fi
	if ! { dd if=/dev/urandom of="$MNT/f" bs=1M count=16 status=none &&
		fio --name=m --filename="$MNT/f" --rw=randread --bs=4k --iodepth=64 --direct=1 \
			--ioengine=libaio --runtime=10 --time_based --output=/dev/null; }; then
		fail "$name-workload" "writing or reading $MNT/f failed"
	fi
	read -r x c < <(xprt_counts)
	if [ "$x" = "$k" ] && [ "$c" -ge "$k" ]; then
		pass "$name-mounted"
	else
		fail "$name-mounted" "$x transports and $c connections for nconnect=$k"
	fi
	# every transport to the server: c2s and s2c are T (xprt_info
	# fails when the transports disagree; "none" from a kernel that
	# reports neither, which is no result)
	c2s=$(xprt_info c2s) s2c=$(xprt_info s2c)
	if [ "$c2s" = none ] && [ "$s2c" = none ]; then
		log "$name: the kernel reports no negotiated thresholds"
	elif [ "$c2s" = "$t" ] && [ "$s2c" = "$t" ]; then
		pass "$name-negotiated"
	else
		fail "$name-negotiated" "c2s $c2s, s2c $s2c"
	fi
	buf=$(kmalloc_count 'rpcrdma_[a-z_]*' "$t")
	rm -f "$MNT/f"
	held=$(meminfo_kib)
	if umount_nfs "$MNT"; then
		pass "$name-released"
	else
		fail "$name-released" "umount failed"
	fi
	sleep 2
	after=$(meminfo_kib)
	echo "inline=$t nconnect=$k xprts=$x connects=$c buffers=${buf/ /:} before: $before held: $held after: $after" |
		tee -a /results/mounts.txt
}

for spec in "$@"; do
	if [[ ! "$spec" =~ ^[1-9][0-9]*:[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then
		fail "$prefix-spec" "'$spec' is not T:K[,K...]"
		continue
	fi
	IFS=, read -r -a ks <<<"${spec#*:}"
	for k in "${ks[@]}"; do
		one "${spec%%:*}" "$k"
	done
done

# the server's signal to end: DONE in the export, over an NFS mount
mount_nfs 4.2 /mnt/done && { touch /mnt/done/DONE; umount_nfs /mnt/done; }
check_dmesg "$prefix-client-dmesg-clean"
ktap_finished
