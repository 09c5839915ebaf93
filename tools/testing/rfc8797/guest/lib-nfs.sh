# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Guest library, NFS: mounts, the client's mountstats counters and
# negotiated values (xprt_info), the server's connection list (conns) or
# traced view, and the memory a connection allocates.  Sourced by
# lib.sh; sourcing only defines.

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

smaller() { echo $(($1 < $2 ? $1 : $2)); }

umount_nfs() {
	timeout 60 umount "$1" || timeout 30 umount -f "$1"
}

# xprt_stat MNT N: field N (awk numbering, $1 = "xprt:") of the rdma xprt line
# of MNT in /proc/self/mountstats; tests use the names below, not numbers.
# Prints nothing and fails when MNT has no such line or the line no such
# field (a stock kernel's is shorter): never a number that was not read.
xprt_stat() {
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
	connects) xprt_stat "$1" 5 ;;
	sends) xprt_stat "$1" 8 ;;
	local_inv) xprt_stat "$1" 27 ;;
	reminv) xprt_stat "$1" 30 ;;
	reminv_unneg) xprt_stat "$1" 31 ;;
	reminv_stray) xprt_stat "$1" 32 ;;
	chunk_segs)	# Read + Write + Reply chunk segments (registrations)
		local r w p
		r=$(xprt_stat "$1" 13) && w=$(xprt_stat "$1" 14) && p=$(xprt_stat "$1" 15) || return 1
		echo $((r + w + p)) ;;
	nfields) awk -v m=" $1 " '
			/^device / { cur = index($0, "mounted on" m) > 0 }
			cur && $1 == "xprt:" && $2 == "rdma" { print NF - 2; ok = 1; exit }
			END { exit !ok }
		' /proc/self/mountstats ;;
	*) echo "mstat: unknown counter $2" >&2; return 1 ;;
	esac
}

# xprt_info KEY [SERVER]: what the client's connected RPC-over-RDMA transport
# to SERVER (default $SERVER_ADDR) reports as rdma_KEY in its sysfs
# xprt_info (cm_status, cm_offset, server_send, server_recv, server_r,
# client_send, client_recv, client_r, c2s, s2c, r).
# Prints "none" when no connected transport reports it, and fails with
# "ambiguous: ..." when transports disagree.  A kernel whose sunrpc.ko
# has no such keys (Debian's stock kernel with our rpcrdma.ko from the
# DKMS package: the commits behind them change sunrpc.ko) gets the same
# values from the client's tracepoints, see xprt_info_traced.
xprt_info() {
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
		vals=($(xprt_info_traced "$1" "${2:-$SERVER_ADDR}"))
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

# xprt_info_traced KEY SERVER: rdma_KEY of the client's last connection to
# SERVER, from the two events of that connection in $CM_TRACE (cm only
# asks while a transport to SERVER is connected: these are its values,
# the last of several when there are several)
xprt_info_traced() {
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
	client_sent) echo "$i" | sed -n 's|.* local sent=\([0-9]*\) .*|\1|p' ;;
	client_send) echo "$i" | sed -n 's|.* local sent=[0-9]* send/recv=\([0-9]*\)/.*|\1|p' ;;
	client_recv) echo "$i" | sed -n 's|.* local sent=[0-9]* send/recv=[0-9]*/\([0-9]*\) .*|\1|p' ;;
	client_r) echo "$i" | sed -n 's|.* local sent=[0-9]* send/recv=[0-9/]* R=\([0-9]*\),.*|\1|p' ;;
	c2s) echo "$i" | sed -n 's|.* neg send/recv=\([0-9]*\)/.*|\1|p' ;;
	s2c) echo "$i" | sed -n 's|.* neg send/recv=[0-9]*/\([0-9]*\),.*|\1|p' ;;
	r) echo "$i" | sed -n 's|.* neg R=\([0-9]*\).*|\1|p' ;;
	esac
}

# conns: the server's open NFS/RDMA connections and their RFC 8797
# values, one line of key=value fields each (local, remote, status,
# offset, version, flags, client_r, client_send, client_recv, server_r,
# server_send, server_recv, c2s, s2c, r, send_inv, send_plain, recv_buf,
# send_buf, sq_depth, sq_avail).  Our mainline kernel dumps
# them in nfsd's netlink family (rdma-conn-get), read here with the
# kernel's own YNL library from the prepared tree (guest/conns.py); the
# 6.12 series, whose DKMS package cannot change nfsd.ko, lists them in
# /proc/net/rpc/svc_rdma_connections in the same form.  Fails on a
# kernel that has neither (a stock server).
# conns.py runs once, as a listener on 127.0.0.1:$CONNS_PORT that
# answers each connection with a listing: a Python start costs over a
# second of a TCG guest's time, and tests list the connections hundreds
# of times.  Its start (YNL parsing nfsd's spec) gets 120 s: on a
# sanitizer kernel under host load it took over 30.
CONNS_PROC=/proc/net/rpc/svc_rdma_connections
CONNS_PORT=7798
conns() {
	local out
	if [ -e $CONNS_PROC ]; then
		cat $CONNS_PROC
		return
	fi
	if ! conns_connect; then
		guest_settings	# RFC_TREE
		# a kernel without the series' tree (Debian's, the base) has
		# no dump to read, and conns.py could not even start
		[ -n "${RFC_TREE:-}" ] || return 2
		python3 "$(dirname "${BASH_SOURCE[0]}")/conns.py" "$RFC_TREE" \
			--serve $CONNS_PORT </dev/null >/dev/null 2>/results/conns.log &
		SLOWWAIT_INTERVAL=0.2 slowwait 120 conns_connect || return 2
	fi
	IFS= read -r -d '' -u "$CONNS_FD" out
	exec {CONNS_FD}>&-
	case "$out" in
	"#error "*) echo "conns.py: ${out#\#error }" >&2; return 2 ;;
	esac
	printf '%s' "$out"
}
# conns_connect: CONNS_FD connected to the listener (conns runs in a
# command substitution's subshell: the descriptor is that call's alone)
conns_connect() { { exec {CONNS_FD}<>"/dev/tcp/127.0.0.1/$CONNS_PORT"; } 2>/dev/null; }

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
