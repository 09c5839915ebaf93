# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Guest library, two-guest counters: the queue memory, link and CPU
# counters and the request channel between the guests that only the
# bench, the captures and the interoperability matrix use.  Sourced
# after lib.sh by those scripts; sourcing only defines.

# meminfo_kib: this guest's memory after dropping its caches, as
# "KEY=KiB ..." (MemAvailable, Slab, SUnreclaim, VmallocUsed, PageTables
# and Percpu of /proc/meminfo), what the scale runs compare before,
# while and after connections or mounts are held
meminfo_kib() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '$1 ~ /^(MemAvailable|Slab|SUnreclaim|VmallocUsed|PageTables|Percpu):$/ {
		sub(":", "", $1); printf "%s%s=%s", sep, $1, $2; sep = " " }' /proc/meminfo
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

# server_ask LINE [SEC]: the server guest's answer to the request LINE
# (its listener may still be starting: connects within 30 s), within SEC
# s (default 90); fails without an answer
server_ask() {
	local ans=""
	SLOWWAIT_INTERVAL=1 slowwait 30 snap_connect || return 1
	echo "$1" >&3
	read -t "${2:-90}" -r ans <&3
	exec 3<&-
	echo "$ans"
	[ -n "$ans" ]
}
# snap_connect: fd 3 connected to the server guest's request listener
snap_connect() { { exec 3<>"/dev/tcp/$SERVER_ADDR/$SNAP_PORT"; } 2>/dev/null; }

# server_meminfo VAR [TAG]: sets VAR to the server guest's answer to
# "meminfo" (interop-server.sh: "KEY=KiB ...") without its word
# "meminfo", its max_req_size=N and conns=N; CONNS to the connections it
# counted, MAX_REQ to its max_req_size.  With TAG, the server keeps its
# /proc/slabinfo of that moment as slabinfo/TAG in its results.
server_meminfo() {
	local a
	a=$(server_ask "meminfo${2:+ $2}") || a="meminfo max_req_size=na conns=na"
	CONNS=$(field conns "$a" na)
	# shellcheck disable=SC2034	# the caller's
	MAX_REQ=$(field max_req_size "$a" 4096)
	a=${a#meminfo }
	printf -v "$1" '%s' "${a% max_req_size=*}"
}
# server_lists N: the server counts N connections (CONNS, MEM_NOW)
# shellcheck disable=SC2317 # run by slowwait
server_lists() { server_meminfo MEM_NOW; [ "$CONNS" = "$1" ]; }

# peers_start N HEX PORT OUT LIMIT: one cm-peer (CM_PEER, --count N)
# makes N connections to the server's PORT with Private Data HEX, one
# after the other, each with an NFSv4 COMPOUND that starts with
# PUTROOTFH (not a NULL: sunrpc keeps at most 64 connections whose peer
# has presented no filehandle, XPT_MAX_TMP_CONN), and holds them until
# SIGTERM (PEERS_PID; its output in OUT.out and OUT.err); until its
# count line, or its end, at most LIMIT s, looking every PEERS_POLL s (1)
peers_start() {
	timeout -k 5 $((3600 + 2 * $1)) "$CM_PEER" connect "$SERVER_ADDR" "$3" --data "$2" \
		--count "$1" --call readdir --hold 3600 --timeout 60 >"$4.out" 2>"$4.err" &
	PEERS_PID=$!
	SLOWWAIT_INTERVAL=${PEERS_POLL:-1} slowwait "$5" peers_counted "$4.out"
}
# peers_counted FILE: peers_start's cm-peer has printed its count line
# to FILE, or has ended
# shellcheck disable=SC2317 # run by slowwait
peers_counted() { grep -q '^count connected=' "$1" || ! kill -0 "$PEERS_PID" 2>/dev/null; }
