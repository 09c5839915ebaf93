# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside a harness guest (guest.sh).  Sourced.
#
# Test results are lines "PASS name" / "FAIL name: reason" on stdout and in
# /results/tests.txt, which the host side counts.

SERVER_ADDR=${SERVER_ADDR:-192.0.2.1}	# TEST-NET-1: exists only in the guest
RDMA_PORT=20049
EXPORT=/export
TESTS_TXT=/results/tests.txt
# The RDMA transport the tests run on: rfc8797.transport= on the guest's
# command line (check.sh sets it), rxe (soft-RoCE) or siw (soft-iWARP)
TRANSPORT=$(sed -n 's/.*rfc8797\.transport=\([^ ]*\).*/\1/p' /proc/cmdline)
TRANSPORT=${TRANSPORT:-rxe}

pass() { echo "PASS $1" | tee -a "$TESTS_TXT"; }
fail() { echo "FAIL $1: $2" | tee -a "$TESTS_TXT"; FAILED=1; }
log() { echo "--- $*"; }

# check NAME CMD...: one test result from a command's exit status
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "'$*' failed"; fi
}

# setup_rdma TRANSPORT [NETDEV [ADDR/PREFIX]]: soft-RoCE (rxe) or
# soft-iWARP (siw) on NETDEV; with no NETDEV a dummy netdev is made.
setup_rdma() {
	local transport=${1:-rxe} dev=${2:-} addr=${3:-$SERVER_ADDR/24}
	if [ -z "$dev" ]; then
		dev=dummy0
		modprobe dummy 2>/dev/null
		ip link add "$dev" type dummy
	fi
	ip addr add "$addr" dev "$dev"
	ip link set "$dev" up
	modprobe "rdma_$transport" 2>/dev/null || modprobe "$transport" 2>/dev/null
	modprobe rdma_ucm 2>/dev/null
	rdma link add "${transport}0" type "$transport" netdev "$dev" || return 1
	log "rdma link: $(rdma link show 2>&1 | tr '\n' ' ')"
}

# start_nfsd: an NFS server exporting a tmpfs at $EXPORT over RDMA
start_nfsd() {
	modprobe nfsd 2>/dev/null
	modprobe rpcrdma 2>/dev/null
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p /var/lib/nfs/rpc_pipefs /run/rpcbind "$EXPORT" /var/lib/nfs/v4recovery
	mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs 2>/dev/null
	mount -t tmpfs -o size=768M tmpfs "$EXPORT"
	chmod 1777 "$EXPORT"
	echo "$EXPORT *(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	rpcbind -w || return 1
	rpc.mountd || return 1
	exportfs -ra || return 1
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	rpc.nfsd 4 || return 1
	echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist || return 1
	log "nfsd portlist: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

# mount_nfs VERS MNT [extra options]: mount the export over RDMA
mount_nfs() {
	local vers=$1 mnt=$2 opts=${3:-} src
	mkdir -p "$mnt"
	case "$vers" in
	3) src=$SERVER_ADDR:$EXPORT; opts="vers=3,nolock${opts:+,$opts}" ;;
	*) src=$SERVER_ADDR:/; opts="vers=$vers${opts:+,$opts}" ;;
	esac
	timeout 60 mount -t nfs -o "$opts,proto=rdma,port=$RDMA_PORT" "$src" "$mnt"
}

umount_nfs() {
	timeout 60 umount "$1" || timeout 30 umount -f "$1"
}

# xs MNT N: field N (awk numbering, $1 = "xprt:") of the rdma xprt line
# of MNT in /proc/self/mountstats.  Fields 30-37 are RFC 8797's: replies
# with remote invalidation, of those not negotiated, rkey mismatches,
# c2s, s2c, R offered, R negotiated, parse status; 27 is LOCAL_INVs.
xs() {
	awk -v m=" $1 " -v n="$2" '
		/^device / { cur = index($0, "mounted on" m) > 0 }
		cur && $1 == "xprt:" && $2 == "rdma" { print $n; exit }
	' /proc/self/mountstats
}

# The server's per-connection RFC 8797 values, one line per connection
CONNS=/proc/net/rpc/svc_rdma_connections

# field NAME LINE: the value of NAME=value in LINE
field() { echo " $2" | grep -o " $1=[^ ]*" | head -1 | cut -d= -f2; }

# wait_no_conns: until the server lists no connection (at most 20 s)
wait_no_conns() {
	local i
	for i in $(seq 1 40); do
		[ -z "$(cat $CONNS)" ] && return 0
		sleep 0.5
	done
	return 1
}

# The client's RPC-over-RDMA tracepoints, to record what was negotiated
trace_on() {
	local t=/sys/kernel/tracing
	modprobe rpcrdma 2>/dev/null
	[ -d $t/events/rpcrdma ] || return 0
	echo 0 >$t/tracing_on
	: >$t/trace
	echo 1 >$t/events/rpcrdma/xprtrdma_inline_thresh/enable 2>/dev/null
	for e in "$@"; do
		echo 1 >"$t/events/$e/enable" 2>/dev/null
	done
	echo 1 >$t/tracing_on
}

trace_dump() {
	grep -v '^#' /sys/kernel/tracing/trace 2>/dev/null
}

# dmesg_clean: no BUG, WARNING, Oops, sanitizer or lockdep report so far
DMESG_BAD='BUG:|WARNING:|Oops|KASAN|UBSAN|kernel BUG|possible circular locking|possible recursive locking|INFO: task .* blocked|general protection fault|Call Trace'
dmesg_clean() {
	! dmesg | grep -E "$DMESG_BAD"
}

# Deliberate faults, to show that a test can fail: make check passes
# RFC8797_INJECT as rfc8797.inject= on the guest's command line.
INJECT=$(sed -n 's/.*rfc8797\.inject=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ "$INJECT" = warning ]; then
	echo "WARNING: CPU: 0 PID: 1 at injected by RFC8797_INJECT=warning" >/dev/kmsg
fi

# nic_up: the virtio NIC linked to the other guest (stock kernels have
# virtio_net as a module); prints its name
nic_up() {
	local i dev
	modprobe virtio_net 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		dev=$(ls /sys/class/net | grep -vE '^(lo|dummy.*)$' | head -n 1)
		[ -n "$dev" ] && break
		sleep 0.2
	done
	[ -n "$dev" ] || return 1
	ip link set "$dev" up
	echo "$dev"
}
