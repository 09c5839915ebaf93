# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Guest library, setup: the RDMA device and what the transport must
# show, the NFS server, the client's knobs and fault injection, tracing,
# the NIC of a two-guest run, and removing the device under I/O.
# Sourced by lib.sh; sourcing only defines.

# setup_rdma [TRANSPORT [NETDEV [ADDR/PREFIX]]]: soft-RoCE (rxe) or
# soft-iWARP (siw, over kernel TCP sockets) on NETDEV; TRANSPORT defaults
# to $TRANSPORT; with no NETDEV a dummy netdev is made.  Both transports
# work on a dummy netdev that holds the local address: the peers of one
# guest reach each other through the local route.  Sets RDMA_LINK (the
# device, "rxe0" or "siw0") and RDMA_NETDEV for rdma_relink.
setup_rdma() {
	local transport=${1:-$TRANSPORT} dev=${2:-} addr=${3:-$SERVER_ADDR/24}
	if [ -z "$dev" ]; then
		dev=dummy0
		modprobe dummy 2>/dev/null
		# the dummy module may already have made dummy0
		ip link show "$dev" >/dev/null 2>&1 || ip link add "$dev" type dummy || return 1
	fi
	ip addr add "$addr" dev "$dev"
	ip link set "$dev" up
	modprobe "rdma_$transport" 2>/dev/null || modprobe "$transport" 2>/dev/null
	modprobe rdma_ucm 2>/dev/null
	RDMA_LINK=${transport}0 RDMA_NETDEV=$dev
	rdma link add "$RDMA_LINK" type "$transport" netdev "$dev" || return 1
	log "rdma link: $(rdma link show 2>&1 | tr '\n' ' ')"
}

# setup_nfs_rdma [PREFIX]: the usual test guest: the RDMA device on a
# dummy netdev (setup_rdma), the check that it is the expected kind
# (result PREFIXtransport) and an NFS server over it; a failure to set
# up ends the test (results PREFIXsetup, PREFIXnfsd)
setup_nfs_rdma() {
	local p=${1:-}
	setup_rdma || { fail "${p}setup" "rdma link add failed"; exit 1; }
	check_transport "${p}transport"
	start_nfsd || { fail "${p}nfsd" "nfsd did not start"; exit 1; }
}

# no_delegations: this kernel sets no file lease from now on, so its
# nfsd grants no NFSv4 delegation (fs.leases-enable); for make bench
# BENCH=cost, whose per-RPC figures need the same RPCs in every window
no_delegations() {
	echo 0 >/proc/sys/fs/leases-enable
}

# start_nfsd: an NFS server exporting a tmpfs at $EXPORT over RDMA (with
# EXPORT_IMAGE set: that file system image, mounted noatime from a loop
# device, EXPORT_DEV); NFSD_GRACE_END: the $SECONDS at which its NFSv4 grace period
# has ended (now, when it had no client to reclaim)
start_nfsd() {
	modprobe nfsd 2>/dev/null
	modprobe rpcrdma 2>/dev/null
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p /var/lib/nfs/rpc_pipefs /run/rpcbind "$EXPORT" /var/lib/nfs/v4recovery
	mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs 2>/dev/null
	if [ -n "${EXPORT_IMAGE:-}" ]; then
		# "mount -o loop" failed once with EBUSY ("Can't open
		# blockdev") just after attaching the device: attach, then
		# mount, for up to 10 s
		EXPORT_DEV=$(losetup -f --show "$EXPORT_IMAGE") || return 1
		slowwait 10 mount -o noatime "$EXPORT_DEV" "$EXPORT" || return 1
	else
		mount -t tmpfs -o size=768M tmpfs "$EXPORT"
	fi
	chmod 1777 "$EXPORT"
	echo "$EXPORT *(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	rpcbind -w || return 1
	rpc.mountd || return 1
	exportfs -ra || return 1
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	# nfsd's client tracking daemon on an empty database: a server that
	# has no client to reclaim skips the NFSv4 grace period (without it,
	# the first OPEN waited 10 s, and nfsd 1 s more for the daemon)
	if ! pgrep -x nfsdcld >/dev/null; then
		mkdir -p /run/nfsdcld
		nfsdcld -p /var/lib/nfs/rpc_pipefs -s /run/nfsdcld || log "nfsdcld did not start"
	fi
	rpc.nfsd 4 || return 1
	NFSD_GRACE_END=$SECONDS
	dmesg | grep 'grace period' | tail -n 1 | grep -q skipping ||
		NFSD_GRACE_END=$((SECONDS + 12))
	echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist || return 1
	log "nfsd portlist: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

# client_set NAME VALUE: a client setting, /proc/sys/sunrpc/rdma_NAME
# (max_inline_read, max_inline_write, remote_invalidation); read at the
# next connection attempt
client_set() { echo "$2" >"/proc/sys/sunrpc/rdma_$1"; }

# cm_omit none|client|server|both: make this kernel's client, server or
# both send no CM Private Data, as peers before RFC 8797 do, from the
# next connection on; none stops it.  This is the fault injection
# capability fail_rpcrdma (debugfs: a test facility, not ABI), set to
# fire on every connection and to log nothing.  On a kernel without it
# (CONFIG_FAIL_SUNRPC unset, e.g. Debian's) none succeeds, as nothing
# is left out there, and the others fail: ask has_cm_omit first.
FAIL_RPCRDMA=/sys/kernel/debug/fail_rpcrdma
cm_omit() {
	local d=$FAIL_RPCRDMA c=Y s=Y p=100
	if ! has_cm_omit; then
		[ "$1" = none ] && return 0
		echo "cm_omit: no $d" >&2
		return 1
	fi
	case $1 in
	none) p=0 ;;
	client) c=N ;;
	server) s=N ;;
	both) c=N s=N ;;
	*) echo "cm_omit: $1?" >&2; return 1 ;;
	esac
	echo 0 >$d/verbose && echo -1 >$d/times && echo 1 >$d/interval &&
		echo $c >$d/ignore-client-cm-private &&
		echo $s >$d/ignore-server-cm-private && echo $p >$d/probability
}

# has_cm_omit: this kernel has the fault injection cm_omit sets
has_cm_omit() {
	modprobe rpcrdma 2>/dev/null
	[ -d $FAIL_RPCRDMA ] || mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -d $FAIL_RPCRDMA ]
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

# nic_up: the virtio NIC linked to the other guest (stock kernels have
# virtio_net as a module), within 10 s; prints its name
nic_up() {
	modprobe virtio_net 2>/dev/null
	local nic
	slowwait 10 nic_found nic || return 1
	ip link set "$nic" up
	echo "$nic"
}
# nic_found VAR: sets the caller's variable VAR to the first network
# device that is neither lo nor a dummy; fails when there is none
nic_found() {
	local d
	for d in /sys/class/net/*; do
		case "${d##*/}" in lo|dummy*|'*') ;; *) printf -v "$1" %s "${d##*/}"; return 0 ;; esac
	done
	return 1
}

# rdma_relink: remove the RDMA device made by setup_rdma and add it again
# on the same netdev (ib_unregister_device: every connection and
# listener on it goes away); rdma_link_again: only the adding, after a
# removal of the caller's own
rdma_relink() {
	timeout 60 rdma link del "$RDMA_LINK" || return 1
	rdma_link_again
}
rdma_link_again() {
	sleep 2
	timeout 60 rdma link add "$RDMA_LINK" type "${RDMA_LINK%0}" netdev "$RDMA_NETDEV"
}

# nfsd_relink: rdma_relink, then nfsd's RDMA listener again (it went away
# with the device: nfsd_listen_again)
nfsd_relink() {
	rdma_relink || return 1
	nfsd_listen_again
}
nfsd_listen_again() {
	sleep 1
	echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist 2>/dev/null
	true
}

# relinks_under_io N CMD...: N times, CMD in the background and the RDMA
# device removed and re-added under it (nfsd_relink); prints the number
# of CMD runs that failed.  Fails, with what went wrong on stderr, when a
# relink fails or CMD has not ended 240 s after it.
relinks_under_io() {
	local n=$1 i pid bad=0
	shift
	for i in $(seq "$n"); do
		"$@" >&2 &
		pid=$!
		sleep 2
		nfsd_relink || { echo "relink $i failed" >&2; kill $pid; return 1; }
		if ! SLOWWAIT_INTERVAL=1 slowwait 240 pid_ended $pid; then
			kill $pid
			echo "I/O did not finish in 240 s after relink $i" >&2
			return 1
		fi
		wait $pid || { bad=$((bad + 1)); log "relink $i: I/O failed" >&2; }
	done
	echo "$bad"
}

# Expectations that depend on the transport (RFC 8797 over RoCE and
# over iWARP), set by transport_expect TRANSPORT (guest_settings calls it):
#  TR_NODE_TYPE   /sys/class/infiniband/DEV/node_type: RoCE devices are
#                 channel adapters, iWARP devices RNICs.
#  TR_PD_LEN_REP  octets of CM Private Data the client is handed with the
#                 server's acceptance: the IB CM REP that RoCE uses has a
#                 fixed 196-octet private data field that the CM pads with
#                 zeros; iWARP's MPA reply carries exactly what the server
#                 sent, our 8-octet message (siw strips its MPA v2 IRD/ORD
#                 words before it hands the data up).  The server's side
#                 (REQ: 92 - 36 octets of RDMA-CM header = 56 on RoCE, 8 on
#                 iWARP) is not visible from user space.
#  TR_REMOTE_INV  1 when both our peers offer R on this device: client
#                 (frwr_query_device) and server (svc_rdma_accept) offer it
#                 on any device with IB_DEVICE_MEM_MGT_EXTENSIONS, and rxe
#                 (RXE_DEVICE_CAP_FLAGS) and siw (siw_query_device) both
#                 have it and both post and honour IB_WR_SEND_WITH_INV.
#                 check_transport verifies the capability on the device.
#  TR_SEND_SGE    the Send SGEs the device offers a QP (max_send_sge):
#                 RXE_MAX_SGE (32) on rxe, SIW_MAX_SGE (6) on siw.
transport_expect() {
	case $1 in
	rxe) TR_NODE_TYPE="1: CA" TR_PD_LEN_REP=196 TR_REMOTE_INV=1 TR_SEND_SGE=32 ;;
	siw) TR_NODE_TYPE="4: RNIC" TR_PD_LEN_REP=8 TR_REMOTE_INV=1 TR_SEND_SGE=6 ;;
	*) TR_NODE_TYPE="" TR_PD_LEN_REP="" TR_REMOTE_INV="" TR_SEND_SGE="" ;;
	esac
}

# check_transport NAME: one result: the RDMA device setup_rdma made is
# the only one and of the expected kind (a test named siw really runs
# over iWARP), and its MEM_MGT_EXTENSIONS capability is what
# TR_REMOTE_INV assumes
check_transport() {
	local name=$1 dev=${RDMA_LINK:-none} devs node caps mm=0
	devs=$(cd /sys/class/infiniband 2>/dev/null && echo *)
	node=$(cat "/sys/class/infiniband/$dev/node_type" 2>/dev/null)
	caps=$(rdma dev show "$dev" -d 2>/dev/null | sed -n 's/.*caps: <\(.*\)>.*/\1/p')
	echo "$caps" | tr -s ', ' '\n' | grep -qx 'MEM_MGT_EXTENSIONS' && mm=1
	log "transport $TRANSPORT: device $dev node_type '$node' caps <$caps>"
	if [ -z "$TR_NODE_TYPE" ]; then
		fail "$name" "unknown transport '$TRANSPORT'"
	elif [ "$devs" != "$dev" ] || [ "$node" != "$TR_NODE_TYPE" ] ||
	     [ "$mm" != "$TR_REMOTE_INV" ]; then
		fail "$name" "devices '$devs' node_type '$node' MEM_MGT_EXTENSIONS=$mm, expected $dev '$TR_NODE_TYPE' $TR_REMOTE_INV"
	else
		pass "$name"
	fi
}
