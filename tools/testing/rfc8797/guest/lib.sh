# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for scripts that run inside a harness guest (guest.sh).
# Sourced; sourcing only defines.
#
# Test results are KTAP (Documentation/dev-tools/ktap.rst), written by
# ../ktap.sh, the writer the host scripts use too.  A test script starts
# with "ktap_begin NAME [PLAN]" and ends with "ktap_finished": its
# results are a subtest block of /results/tests.ktap (several scripts of
# one guest share the file), also shown on the console:
#   ok N name
#   not ok N name # reason
#   ok N name # SKIP reason
# The host reads them with ktap.py: a skip is never a pass, and a block
# that no result line closes (the guest crashed, the script was killed)
# or that misses results of its plan is a failure.

SERVER_ADDR=${SERVER_ADDR:-192.0.2.1}	# TEST-NET-1: exists only in the guest
RDMA_PORT=20049
EXPORT=/export

# cmdline_arg NAME: the value of NAME= on the guest's kernel command line
# (guest.sh's rfc8797.* words), empty when there is none; init.sh's too
cmdline_arg() {
	local w line
	read -r line </proc/cmdline || return 0
	for w in $line; do
		case "$w" in "$1="*) echo "${w#*=}"; return ;; esac
	done
}

# guest_settings: what the host passed on the command line, read once;
# ktap_begin calls it, and a script that needs them before its
# ktap_begin (to count its plan) calls it first:
#   TRANSPORT  the RDMA transport the tests run on (rfc8797.transport=,
#              check.sh sets it): rxe (soft-RoCE, the default) or siw
#              (soft-iWARP); transport_expect's TR_* follow from it
#   RFC_CACHE  the host's cache (rfc8797.cache=), where cm-peer, the
#              exerciser and the marker program are built
#   CM_PEER    cm-peer in it
#   INJECT     RFC8797_INJECT (rfc8797.inject=): deliberate faults, to
#              show that a test can fail (RFC8797_INJECT=warning is the
#              guest's init's: a WARNING in dmesg before the job runs)
guest_settings() {
	[ -z "${GUEST_SETTINGS:-}" ] || return 0
	local w line
	read -r line </proc/cmdline
	TRANSPORT="" RFC_CACHE="" INJECT=""
	for w in $line; do
		case "$w" in
		rfc8797.transport=*) TRANSPORT=${w#*=} ;;
		rfc8797.cache=*) RFC_CACHE=${w#*=} ;;
		rfc8797.inject=*) INJECT=${w#*=} ;;
		esac
	done
	TRANSPORT=${TRANSPORT:-rxe}
	CM_PEER=${RFC_CACHE:-/nonexistent}/cm-peer/cm-peer
	transport_expect "$TRANSPORT"
	GUEST_SETTINGS=1
}

# the KTAP writer, slowwait, field, the crash detector: shared with the host
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
# ktap_begin NAME [PLAN]: this script's results, a block of their own in
# /results/tests.ktap (KTAP_RESULTS: another file, for ktap-selftest.sh)
ktap_begin() {
	guest_settings
	ktap_open "${KTAP_RESULTS:-/results/tests.ktap}"
	ktap_subtest_begin "$@"
}
# (RFC8797_INJECT=die: the test is killed after its third result, as a
# guest crash would stop it)
pass() {
	ktap_test_pass "$1"
	[ "$INJECT" != die ] || [ "$KTAP_TESTNUM" -lt 3 ] || kill -9 $$
}
fail() { ktap_test_fail "$1" "${2:-failed}"; }
skip() { ktap_test_skip "$1" "$2"; }
log() { echo "--- $*"; }

# check NAME CMD...: one test result from a command's exit status
check() { ktap_test_result "$@"; }


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

# start_nfsd: an NFS server exporting a tmpfs at $EXPORT over RDMA;
# NFSD_GRACE_END: the $SECONDS at which its NFSv4 grace period has ended
# (now, when it had no client to reclaim)
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

# mount_nfs VERS MNT [extra options]: mount the export over RDMA
# (NFS_PROTO=tcp in front of the call: over TCP)
mount_nfs() {
	local vers=$1 mnt=$2 opts=${3:-} src
	mkdir -p "$mnt"
	case "$vers" in
	3) src=$SERVER_ADDR:$EXPORT; opts="vers=3,nolock${opts:+,$opts}" ;;
	*) src=$SERVER_ADDR:/; opts="vers=$vers${opts:+,$opts}" ;;
	esac
	case "${NFS_PROTO:-rdma}" in
	rdma) opts="$opts,proto=rdma,port=$RDMA_PORT"; cm_trace_start ;;
	*) opts="$opts,proto=$NFS_PROTO" ;;
	esac
	timeout 60 mount -t nfs -o "$opts" "$src" "$mnt"
}

# remount_nfs VERS MNT [options]: mount_nfs for reading data back;
# RFC8797_INJECT=remount makes it fail, to show that a read-back whose
# mount failed is a failure and never passes on an earlier value
remount_nfs() {
	if [ "$INJECT" = remount ]; then
		log "remount of $2 failed on purpose (RFC8797_INJECT=remount)"
		return 1
	fi
	mount_nfs "$@"
}

min() { echo $(($1 < $2 ? $1 : $2)); }

umount_nfs() {
	timeout 60 umount "$1" || timeout 30 umount -f "$1"
}

# Checksums, SHA-256 in hex.  A read that fails or takes more than 120 s
# prints nothing and fails: it never compares equal to an earlier sum.
#   file_sum FILE [BS]     FILE's; with BS, read with O_DIRECT in BS blocks
#   sum_is FILE SUM [BS]   file_sum FILE [BS] is SUM, and SUM is not empty
#   tree_sums DIR          "SUM  ./NAME" of every file under DIR, by name;
#                          fails when DIR cannot be read or holds no file
#   same_tree DIR COPY     COPY holds the files of DIR with the same sums;
#                          else prints what differs (diff of tree_sums)
file_sum() {
	local - s
	set -o pipefail
	if [ -n "${2:-}" ]; then
		s=$(timeout 120 dd if="$1" iflag=direct bs="$2" status=none | sha256sum) || return 1
	else
		s=$(timeout 120 sha256sum <"$1") || return 1
	fi
	echo "${s%% *}"
}
sum_is() {
	local got
	[ -n "$2" ] && got=$(file_sum "$1" "${3:-}") && [ "$got" = "$2" ]
}
tree_sums() {
	local - s
	set -o pipefail
	s=$(cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r timeout 300 sha256sum) &&
		[ -n "$s" ] && echo "$s"
}
same_tree() {
	local a b
	a=$(tree_sums "$1") || { echo "cannot read the files under $1"; return 1; }
	b=$(tree_sums "$2") || { echo "cannot read the files under $2"; return 1; }
	[ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b"); return 1; }
}

# xs MNT N: field N (awk numbering, $1 = "xprt:") of the rdma xprt line
# of MNT in /proc/self/mountstats; tests use the names below, not numbers.
# Prints nothing and fails when MNT has no such line or the line no such
# field (a stock kernel's is shorter): never a number that was not read.
xs() {
	awk -v m=" $1 " -v n="$2" '
		/^device / { cur = index($0, "mounted on" m) > 0 }
		cur && $1 == "xprt:" && $2 == "rdma" { if (n <= NF) { print $n; ok = 1 } exit }
		END { exit !ok }
	' /proc/self/mountstats
}

# mstat MNT NAME: a counter of the rdma xprt line of MNT, by name:
# connects, sends (RPCs sent), local_inv (LOCAL_INVs posted), reminv
# (replies with a remote invalidation), reminv_unneg (of those, R not
# negotiated), reminv_stray (stray: no MR of the request), chunk_segs
# (Read, Write and Reply chunk segments: one registration each), nfields
# (how many numbers the line has: stock 6.12 has 27, parsers such as
# node_exporter's accept at most 31)
mstat() {
	case "$2" in
	connects) xs "$1" 5 ;;
	sends) xs "$1" 8 ;;
	local_inv) xs "$1" 27 ;;
	reminv) xs "$1" 30 ;;
	reminv_unneg) xs "$1" 31 ;;
	reminv_stray) xs "$1" 32 ;;
	chunk_segs)	# Read + Write + Reply chunk segments (registrations)
		local r w p
		r=$(xs "$1" 13) && w=$(xs "$1" 14) && p=$(xs "$1" 15) || return 1
		echo $((r + w + p)) ;;
	nfields) awk -v m=" $1 " '
			/^device / { cur = index($0, "mounted on" m) > 0 }
			cur && $1 == "xprt:" && $2 == "rdma" { print NF - 2; ok = 1; exit }
			END { exit !ok }
		' /proc/self/mountstats ;;
	*) echo "mstat: unknown counter $2" >&2; return 1 ;;
	esac
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

# cm_omitted client|server: cm_omit has that side send no message
cm_omitted() {
	local d=$FAIL_RPCRDMA k=ignore-$1-cm-private
	[ -d $d ] && [ "$(cat $d/probability)" != 0 ] && [ "$(cat $d/$k)" = N ]
}

# cm KEY [SERVER]: what the client's connected RPC-over-RDMA transport
# to SERVER (default $SERVER_ADDR) reports as rdma_KEY in its sysfs
# xprt_info (cm_status, cm_offset, server_send, server_recv, server_r,
# client_sent, client_send, client_recv, client_r, c2s, s2c, r).
# Prints "none" when no connected transport reports it, and fails with
# "ambiguous: ..." when transports disagree.  A kernel whose sunrpc.ko
# has no such keys (Debian's stock kernel with our rpcrdma.ko from the
# DKMS package: the commits behind them change sunrpc.ko) gets the same
# values from the client's tracepoints, see cm_traced.
cm() {
	local f v line dst rdma vals=() u=() live=0 key=rdma_$1=
	# bash's own reads: a process costs tens of milliseconds in a TCG
	# guest, and tests read a key or three after every mount
	for f in /sys/kernel/sunrpc/xprt-switches/*/xprt-*/xprt_info; do
		[ -f "$f" ] || continue
		dst=""
		{ read -r dst <"${f%/*}/dstaddr"; } 2>/dev/null
		[ "$dst" = "${2:-$SERVER_ADDR}" ] || continue
		v="" rdma=0
		while IFS= read -r line; do
			case "$line" in
			"$key"*) rdma=1 v=${line#"$key"} ;;
			rdma_*) rdma=1 ;;
			esac
		done 2>/dev/null <"$f"
		[ "$rdma" = 1 ] || { live=1; continue; }
		# the status is a number there (0 found, 1 absent,
		# 2 truncated, 3 bad-version), a name in the trace
		[ "$1" != cm_status ] || case "$v" in
		0) v=found ;; 1) v=absent ;; 2) v=truncated ;; 3) v=bad-version ;;
		esac
		[ -n "$v" ] && vals+=("$v")
	done
	if [ ${#vals[@]} -eq 0 ] && [ "$live" = 1 ]; then
		# shellcheck disable=SC2207	# one word per value
		vals=($(cm_traced "$1" "${2:-$SERVER_ADDR}"))
	fi
	for v in "${vals[@]}"; do
		[[ " ${u[*]} " == *" $v "* ]] || u+=("$v")
	done
	case ${#u[@]} in
	0) echo none ;;
	1) echo "${u[0]}" ;;
	*) echo "ambiguous: $(printf '%s\n' "${u[@]}" | sort | tr '\n' ' ' | sed 's/ $//')"; return 1 ;;
	esac
}

# The client's xprtrdma_cm_private and xprtrdma_inline_thresh events,
# recorded in a trace instance of their own (trace_on and the tests'
# own tracing leave it alone) from the first mount_nfs on; not with
# CM_TRACE_OFF=1 (cost-client.sh: an enabled event makes the kernel
# record task names at every context switch, 400 instructions per RPC)
CM_TRACE=/sys/kernel/tracing/instances/rfc8797-cm
cm_trace_start() {
	[ -z "${CM_TRACE_OFF:-}" ] || return 0
	[ -d $CM_TRACE ] && return 0
	modprobe rpcrdma 2>/dev/null
	[ -d /sys/kernel/tracing/events/rpcrdma/xprtrdma_cm_private ] || return 0
	mkdir -p $CM_TRACE 2>/dev/null || return 0
	echo 1 >$CM_TRACE/events/rpcrdma/xprtrdma_cm_private/enable
	echo 1 >$CM_TRACE/events/rpcrdma/xprtrdma_inline_thresh/enable
}

# cm_traced KEY SERVER: rdma_KEY of the client's last connection to
# SERVER, from the two events of that connection in $CM_TRACE (cm only
# asks while a transport to SERVER is connected: these are its values,
# the last of several when there are several); client_sent is what
# cm_omit set, which that connection read
cm_traced() {
	local p i
	p=$(grep -v '^#' $CM_TRACE/trace 2>/dev/null | grep -F "xprtrdma_cm_private: " |
		grep -F -- "-> $2:" | tail -n 1)
	i=$(grep -v '^#' $CM_TRACE/trace 2>/dev/null | grep -F "xprtrdma_inline_thresh: " |
		grep -F -- "-> $2:" | tail -n 1)
	case "$1" in
	cm_status) field status "$p" ;;
	cm_offset) field offset "$p" ;;
	server_send) field send "$p" ;;
	server_recv) field recv "$p" ;;
	server_r) field R "$p" ;;
	client_sent) cm_omitted client && echo 0 || echo 1 ;;
	client_send) echo "$i" | sed -n 's|.* local send/recv=\([0-9]*\)/.*|\1|p' ;;
	client_recv) echo "$i" | sed -n 's|.* local send/recv=[0-9]*/\([0-9]*\) .*|\1|p' ;;
	client_r) echo "$i" | sed -n 's|.* local send/recv=[0-9/]* R=\([0-9]*\),.*|\1|p' ;;
	c2s) echo "$i" | sed -n 's|.* neg send/recv=\([0-9]*\)/.*|\1|p' ;;
	s2c) echo "$i" | sed -n 's|.* neg send/recv=[0-9]*/\([0-9]*\),.*|\1|p' ;;
	r) echo "$i" | sed -n 's|.* neg R=\([0-9]*\).*|\1|p' ;;
	esac
}

# conns: the server's open NFS/RDMA connections and their RFC 8797
# values, one line of key=value fields each (local, remote, status,
# offset, version, flags, client_r, client_send, client_recv, server_r,
# server_send, server_recv, c2s, s2c, r, send_inv, send_plain, recv_buf,
# send_buf, server_sent, sq_depth, sq_avail).  Our mainline kernel dumps
# them in nfsd's netlink family (rdma-conn-get), read here with the
# kernel's own YNL library from the prepared tree (guest/conns.py); the
# 6.12 series, whose DKMS package cannot change nfsd.ko, lists them in
# /proc/net/rpc/svc_rdma_connections in the same form.  Fails on a
# kernel that has neither (a stock server).
# conns.py runs once, as a listener on 127.0.0.1:$CONNS_PORT that
# answers each connection with a listing: a Python start costs over a
# second of a TCG guest's time, and tests list the connections hundreds
# of times.
CONNS_PROC=/proc/net/rpc/svc_rdma_connections
CONNS_PORT=7798
conns() {
	local fd out
	if [ -e $CONNS_PROC ]; then
		cat $CONNS_PROC
		return
	fi
	if ! { exec {fd}<>"/dev/tcp/127.0.0.1/$CONNS_PORT"; } 2>/dev/null; then
		python3 "$(dirname "${BASH_SOURCE[0]}")/conns.py" "${RFC_CACHE:-/nonexistent}/mainline/tree" \
			--serve $CONNS_PORT </dev/null >/dev/null 2>/results/conns.log &
		SLOWWAIT_INTERVAL=0.2 slowwait 30 conns_listening || return 2
		exec {fd}<>"/dev/tcp/127.0.0.1/$CONNS_PORT" || return 2
	fi
	IFS= read -r -d '' -u "$fd" out
	exec {fd}>&-
	case "$out" in
	"#error "*) echo "conns.py: ${out#\#error }" >&2; return 2 ;;
	esac
	printf '%s' "$out"
}
conns_listening() { { exec {_cl_fd}<>"/dev/tcp/127.0.0.1/$CONNS_PORT"; } 2>/dev/null && exec {_cl_fd}>&-; }

# has_conns: this kernel lists the server's connections (conns works)
has_conns() { [ -r $CONNS_PROC ] || conns >/dev/null 2>&1; }

# no_conns: the server lists no connection
no_conns() {
	local out
	out=$(conns 2>/dev/null) && [ -z "$out" ]
}

# wait_no_conns: until the server lists no connection (at most 20 s)
wait_no_conns() { slowwait 20 no_conns; }

# The server's rpcrdma:svcrdma_cm_private events, in a trace instance of
# their own: the server's view where nothing lists its connections
# (Debian's nfsd with our rpcrdma.ko from the DKMS package has no
# rdma-conn-get).  srv_trace_start clears it (fails without the event);
# srv_traced prints "C2S S2C R" of the one connection accepted since,
# or "N events" when that was not one.
SRV_TRACE=/sys/kernel/tracing/instances/rfc8797-srv
srv_trace_start() {
	[ -d /sys/kernel/tracing/events/rpcrdma/svcrdma_cm_private ] || return 1
	mkdir -p $SRV_TRACE 2>/dev/null
	echo 1 >$SRV_TRACE/events/rpcrdma/svcrdma_cm_private/enable || return 1
	: >$SRV_TRACE/trace
}
# server_view: SERVER_VIEW, where a test reads the server's side of a
# connection: "conns" (its connection list), or "trace" where nothing
# lists them (srv_trace_start/srv_traced, one connection at a time)
server_view() {
	SERVER_VIEW=conns
	has_conns || SERVER_VIEW=trace
	log "server's view: $SERVER_VIEW"
}
# server_view_fresh: before the next connection, no old one listed, or
# the trace of its event cleared; fails, with why, when not
server_view_fresh() {
	if [ "$SERVER_VIEW" = conns ]; then
		wait_no_conns || { echo "an old connection is still listed"; return 1; }
	else
		srv_trace_start || { echo "no svcrdma_cm_private event to trace"; return 1; }
	fi
}
srv_traced() {
	local l n
	n=$(grep -c 'svcrdma_cm_private: ' $SRV_TRACE/trace 2>/dev/null)
	[ "$n" = 1 ] || { echo "${n:-0} events"; return; }
	l=$(grep 'svcrdma_cm_private: ' $SRV_TRACE/trace)
	l=${l##*negotiated }
	echo "$(field c2s "$l") $(field s2c "$l") $(field R "$l")"
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

# Memory a connection really allocated, from the kmem:kmalloc and
# kmem:kmem_cache_alloc tracepoints: kmalloc_mark SIZE... starts
# recording the kmallocs of exactly these requested sizes, and the
# allocations from slab caches of these sizes rounded up to a multiple
# of 1024 (svcrdma takes buffers that kmalloc does not fit from such
# caches); filtered, so that the ring buffer keeps up during I/O.
# kmalloc_count PATTERN SIZE prints "N OCTETS": how many of either came
# from a call site whose symbol matches the awk regex PATTERN since the
# last mark, and what they took (bytes_alloc: the kmalloc class or cache
# object the size rounds up to); "na na" when the ring buffer overflowed
# and the count would be short.
# kib_up SIZE: SIZE rounded up to a multiple of 1024, the object size of
# the svcrdma buffer cache a SIZE-octet buffer comes from
kib_up() { echo $((($1 + 1023) / 1024 * 1024)); }
kmalloc_mark() {
	local t=/sys/kernel/tracing f="" c="" s
	for s in "$@"; do
		f="${f:+$f || }bytes_req == $s"
		c="${c:+$c || }bytes_req == $(kib_up "$s")"
	done
	echo 0 >$t/events/kmem/kmalloc/enable
	echo 0 >$t/events/kmem/kmem_cache_alloc/enable
	echo "$f" >$t/events/kmem/kmalloc/filter || return 1
	echo "$c" >$t/events/kmem/kmem_cache_alloc/filter || return 1
	echo 1 >$t/events/kmem/kmalloc/enable
	echo 1 >$t/events/kmem/kmem_cache_alloc/enable
	echo 1 >$t/tracing_on
	echo rfc8797-kmalloc-mark >$t/trace_marker
}
kmalloc_count() {
	if grep -qE '^overrun: [1-9]' /sys/kernel/tracing/per_cpu/cpu*/stats 2>/dev/null; then
		echo na na
		return
	fi
	awk -v pat="$1" -v size="$2" -v obj="$(kib_up "$2")" '
		/rfc8797-kmalloc-mark/ { n = 0; b = 0; next }
		(/ kmalloc: / && index($0, " bytes_req=" size " ") ||
		 / kmem_cache_alloc: / && index($0, " bytes_req=" obj " ")) &&
		$0 ~ (" call_site=" pat) {
			if (match($0, / bytes_alloc=[0-9]+/)) {
				n++
				b += substr($0, RSTART + 13, RLENGTH - 13)
			}
		}
		END { print n + 0, b + 0 }
	' /sys/kernel/tracing/trace
}

# RDMA queue memory: rxe and siw allocate the rings of their queues (Send
# and Receive Queues, completion queues) with vmalloc_user, which
# /proc/vmallocinfo lists one area each, with its size (a guard page
# included) and its caller.  qmem_mark records the rings allocated now;
# qmem_count prints "N:OCTETS:LARGEST": the rings allocated since the
# mark and still allocated, their size, and the largest of them (a
# connection's Send Queue: sc_sq_depth WRs against its Receive Queue's
# 2 * max_requests + 7)
QMEM_RE=' (rxe_queue_init|siw_create_qp|siw_create_cq)\+'
qmem_mark() {
	grep -E "$QMEM_RE" /proc/vmallocinfo | awk '{ print $1 }' >/tmp/qmem-mark
}
qmem_count() {
	grep -E "$QMEM_RE" /proc/vmallocinfo |
		awk 'NR == FNR { seen[$1] = 1; next }
		     !seen[$1] { n++; b += $2; if ($2 > m) m = $2 }
		     END { print n + 0 ":" b + 0 ":" m + 0 }' /tmp/qmem-mark -
}

# link_counts VAR: sets the caller's variable VAR to what this guest's
# soft-RoCE device counted (hw_counters of its port; "na" without one),
# as "lk_pk=SENT lk_retry=R lk_seq=S lk_oos=O lk_dup=D lk_rnr=N":
# packets sent, the requester's retries (completer_retry_err: a
# timeout or a NAK made it send again), sequence-error NAKs it
# received (rcvd_seq_err), the responder's out-of-sequence gaps (once
# per gap, however many packets were lost: out_of_seq_request) and
# duplicate packets (each one sent again: duplicate_request), and RNR
# NAKs it received (a Send that found no Receive posted: rcvd_rnr_err).
# Read without a process of its own.
link_counts() {
	# locals named apart from the caller's VAR, which must not be one
	[[ "$1" != _* ]] || return 1
	local _d _n _v _out=""
	for _d in /sys/class/infiniband/*/ports/1/hw_counters; do
		[ -r "$_d/sent_pkts" ] || continue
		for _n in sent_pkts:pk completer_retry_err:retry rcvd_seq_err:seq \
			out_of_seq_request:oos duplicate_request:dup rcvd_rnr_err:rnr; do
			_v=na
			[ -r "$_d/${_n%:*}" ] && read -r _v <"$_d/${_n%:*}"
			_out+=" lk_${_n#*:}=$_v"
		done
		break
	done
	[ -n "$_out" ] || _out=" lk_pk=na lk_retry=na lk_seq=na lk_oos=na lk_dup=na lk_rnr=na"
	printf -v "$1" '%s' "${_out# }"
}

# cpu_counts VAR: sets the caller's variable VAR to this guest's CPU
# time so far, all CPUs added, in /proc/stat's units (1/100 s), as
# "lk_cpu=BUSY lk_sys=KERNEL lk_idle=IDLE": busy is user, nice, system,
# irq and softirq time (rxe's packet processing and svcrdma's work run
# as system or softirq time), kernel the last three, idle the idle and
# iowait time.  Read without a process of its own.
cpu_counts() {
	[[ "$1" != _* ]] || return 1
	local _c _u _n _s _i _w _q _sq _rest
	read -r _c _u _n _s _i _w _q _sq _rest </proc/stat
	if [ "$_c" = cpu ] && [[ "$_u$_n$_s$_i$_w$_q$_sq" =~ ^[0-9]+$ ]]; then
		printf -v "$1" 'lk_cpu=%s lk_sys=%s lk_idle=%s' \
			$((_u + _n + _s + _q + _sq)) $((_s + _q + _sq)) $((_i + _w))
	else
		printf -v "$1" 'lk_cpu=na lk_sys=na lk_idle=na'
	fi
}

# dmesg_clean: no crash, WARNING, lockup, sanitizer or lockdep report
# so far (DMESG_BAD, common.sh)
dmesg_clean() {
	! dmesg | grep -E "$DMESG_BAD"
}

# check_dmesg NAME: test NAME passes when dmesg_clean holds, else fails
# with the start of the offending lines
check_dmesg() {
	if dmesg_clean >/tmp/bad; then
		pass "$1"
	else
		fail "$1" "$(head -c 500 /tmp/bad)"
	fi
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

# The server guest of a two-guest run (guest/interop-server.sh) answers
# one-line requests over plain TCP on SNAP_PORT (no RDMA traffic).
SNAP_PORT=7799

# wait_server: until the server guest's rpcbind answers (at most 240 s);
# the first step of a client half
server_up() { timeout 5 rpcinfo -p "$SERVER_ADDR" >/dev/null 2>&1; }
wait_server() {
	SLOWWAIT_INTERVAL=2 slowwait 240 server_up ||
		log "the server guest's rpcbind did not answer in 240 s"
}

# server_ask LINE: the server guest's answer to the request LINE (its
# listener may still be starting: connects within 30 s); fails without
# an answer
server_ask() {
	local ans=""
	SLOWWAIT_INTERVAL=1 slowwait 30 snap_connect || return 1
	echo "$1" >&3
	read -t 90 -r ans <&3
	exec 3<&-
	echo "$ans"
	[ -n "$ans" ]
}
# snap_connect: fd 3 connected to the server guest's request listener
snap_connect() { { exec 3<>"/dev/tcp/$SERVER_ADDR/$SNAP_PORT"; } 2>/dev/null; }

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
