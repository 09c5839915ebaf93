#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Server half of a two-guest run: soft-RoCE on the NIC linked to the
# client guest, an NFS server over RDMA, then wait until the client leaves
# the file DONE in the export and has unmounted (or the time limit).  Reports what this
# kernel exposes about the connections while the client is connected.
#
# Snapshots: the client asks for one over plain TCP (port $SNAP_PORT, one
# line with a tag; no RDMA traffic, and the client sends no RPC while it
# waits for the answer), and gets back, also appended to
# /results/server-snaps.txt:
#   tag=T nconn=N send_inv=A send_plain=B trace_swi=C trace_plain=D | CONNECTION
# A, B: the global rdma_stat_send_inv and rdma_stat_send_plain ("na" on a
# stock kernel); C, D: svcrdma_post_send tracepoints (both kernels have
# it) with and without an inv_rkey since nfsd started; CONNECTION: the
# first line of the server's connection list (conns) ("n/a (stock)" on a
# kernel without it), N its number of lines.  Every 0.5 s the server also
# keeps the last non-empty connection list in /results/server-view.txt.
# SQ=S in the answer counts the times a Send or an RDMA Read/Write chain
# found the Send Queue full: svcrdma_sq_full tracepoints in a trace
# instance of their own (entries plus overruns: both kernels have the
# event, and stock 6.12's rdma_stat_sq_starve cannot be read once it is
# large).
#
# The same listener takes two more requests (make bench):
#   set NAME=VALUE...  write /proc/sys/sunrpc/svc_rdma/NAME (VALUE
#                      "default": the value at boot; a NAME this kernel
#                      lacks is skipped): answers "set ok" or "set failed"
#   mem-mark SIZE...   start counting the kmallocs of these sizes
#   mem SIZE           "mem recv=N:OCTETS send=N:OCTETS max_requests=M":
#                      the Receive and Send buffers of SIZE octets svcrdma
#                      allocated since the mark (lib-nfs.sh kmalloc_*)
#   meminfo [TAG]      "meminfo MemAvailable=KiB Slab=KiB SUnreclaim=KiB
#                      VmallocUsed=KiB PageTables=KiB Percpu=KiB
#                      max_req_size=N conns=N" from /proc/meminfo after
#                      dropping the page cache, dentries and inodes, the
#                      server's max_req_size, and its RDMA-CM IDs on the
#                      NFS/RDMA port but the listener, whatever their
#                      state (rdma res show cm_id: any kernel): make
#                      bench BENCH=scale (scale-client.sh); with TAG
#                      (a-z, 0-9, ".", "-"), /proc/slabinfo of that moment
#                      in /results/slabinfo/TAG (scale.py --slab)
#   kmemleak           "kmemleak ALL OURS": a kmemleak scan's unreferenced
#                      objects, all and the RPC/RDMA code's (lib-results.sh
#                      kmemleak_scan; its report in /results/kmemleak.txt),
#                      "kmemleak na" on a kernel without kmemleak
#   counters           "counters send_inv=A send_plain=B SQ=S" as in a
#                      snapshot, once they have stopped moving (svcrdma
#                      counts a Send when it completes, a little after
#                      the client has the reply), without the rest of a
#                      snapshot, then the server's link counters
#                      (lib-counters.sh link_counts) and its CPU time, read
#                      when asked (cpu_counts), and nfsd's RPC count and
#                      its reply cache hits (retransmissions), "nfsd_rpcs=N
#                      nfsd_rc_hits=N": make bench asks before and after
#                      each workload
#   prep PATH SIZE     the file make bench's reads read, PATH in the
#                      export, SIZE (e.g. 384m) of 1 MiB fio writes whose
#                      every 4 KiB carries its checksum and offset
#                      (--verify_interval=4k), written here at memory
#                      speed unless it exists: "prep ok" or "prep failed"
#   nfsd-counts        "nfsd-counts nfsd_rpcs=N nfsd_rc_hits=N" alone
#   wake               with --still: look for DONE now ("wake ok")
#   perftest TOOL PORT ARGS...
#                      the server side of one perftest run (TOOL one of
#                      ib_send_lat, ib_send_bw, ib_read_bw, ib_write_bw;
#                      ARGS what the client passes too) over rdma_cm on
#                      PORT, in the background for at most 120 s, its
#                      output in /results/perftest/; answers "perftest
#                      listening" once its listener is up (rdma res
#                      show cm_id), "perftest failed" otherwise: make
#                      bench's measure of what the link can carry
#
#   interop-server.sh [--no-private-data] [--no-trace] [--still] [--wait SEC] [--transport rxe|siw]
#
# --still: wait for the client without starting a process (no cat, no
# sleep: a fork-free read of a FIFO, with a time limit of 30 s, which
# the request "wake" ends at once) and without
# keeping server-view.txt, so that an idle server executes nothing but
# its timer ticks, and with no NFSv4 delegation (no_delegations): make
# bench BENCH=cost counts its instructions; it
# also lists where each module's code was, /results/modules-text.txt
# ("NAME ADDRESS" of /sys/module/NAME/sections/.text) and its text
# symbols (/results/kallsyms.txt, a modular kernel's only), by which the
# host attributes a modular kernel's (Debian's) instructions to layers
#   interop-server.sh --request LINE   (run by the listener)
SYS=/proc/sys/sunrpc/svc_rdma
T=/sys/kernel/tracing
SQ_TRACE=$T/instances/rfc8797-sq
# svcrdma_accept_nomem: the connections our server refused for want of
# memory (the "refusals" request; the pressure run)
NOMEM_TRACE=$T/instances/rfc8797-nomem

request() {
	local kv k v out=ok
	case "$1" in
	"set "*)
		for kv in ${1#set }; do
			k=${kv%%=*} v=${kv#*=}
			[[ "$k" =~ ^[a-z_]+$ ]] || { out=failed; continue; }
			[ -e "$SYS/$k" ] || continue
			[ "$v" = default ] && v=$(cat "/tmp/knob-defaults/$k")
			echo "$v" >"$SYS/$k" || out=failed
		done
		echo "set $out"
		return ;;
	"mem-mark "*)
		. "$(dirname "$0")/lib.sh"
		. "$(dirname "$0")/lib-counters.sh"	# qmem_mark
		# shellcheck disable=SC2086
		kmalloc_mark ${1#mem-mark } && qmem_mark && echo "mem-mark ok" || echo "mem-mark failed"
		return ;;
	"mem "*)
		. "$(dirname "$0")/lib.sh"
		. "$(dirname "$0")/lib-counters.sh"	# qmem_count
		# the Receive buffers' size: what our server lists for the
		# connection (a stock client's 4096 becomes 5119), else SIZE
		local size=${1#mem } l
		l=$(conns 2>/dev/null | head -n 1)
		[ -n "$(field recv_buf "$l")" ] && size=$(field recv_buf "$l")
		# shellcheck disable=SC2046
		set -- $(kmalloc_count 'svc_rdma_[a-z_]*recv' "$size") \
			$(kmalloc_count 'svc_rdma_[a-z_]*send' "$size")
		echo "mem recv=$1:$2 send=$3:$4 max_requests=$(cat $SYS/max_requests) size=$size" \
			"queues=$(qmem_count) sq_depth=$(field sq_depth "$l" na)"
		return ;;
	meminfo | "meminfo "*)
		. "$(dirname "$0")/lib.sh"	# RDMA_PORT
		. "$(dirname "$0")/lib-counters.sh"	# meminfo_kib
		local c m tag=${1#meminfo}
		c=$(rdma res show cm_id 2>/dev/null | grep -v LISTEN | grep -c ":$RDMA_PORT\b")
		m=$(meminfo_kib)
		tag=${tag# }
		if [[ "$tag" =~ ^[a-z0-9][a-z0-9.-]*$ ]]; then
			mkdir -p /results/slabinfo
			cat /proc/slabinfo >"/results/slabinfo/$tag" 2>/dev/null
		fi
		echo "meminfo $m max_req_size=$(cat $SYS/max_req_size) conns=$c"
		return ;;
	kmemleak)
		. "$(dirname "$0")/lib.sh"	# kmemleak_scan
		local k
		k=$(kmemleak_scan /results/kmemleak.txt) || k=na
		echo "kmemleak $k"
		return ;;
	counters)
		# lib-counters.sh alone (cpu_counts, link_counts): sourcing
		# lib.sh too cost 270 ms a request under TCG, and make bench
		# asks twice a workload
		. "$(dirname "$0")/lib-counters.sh"
		counters
		return ;;
	refusals)
		# the connections refused for want of memory, and the last
		# refusal's event: "refusals N LAST" ("na": no such tracepoint)
		local n=na last=""
		if [ -r $NOMEM_TRACE/trace ]; then
			n=$(grep -c 'svcrdma_accept_nomem:' $NOMEM_TRACE/trace)
			last=$(grep 'svcrdma_accept_nomem:' $NOMEM_TRACE/trace | tail -n 1)
		fi
		echo "refusals $n ${last#*svcrdma_accept_nomem: }"
		return ;;
	nfsd-counts)
		# make bench BENCH=cost: nfsd's counts alone, quickly
		echo "nfsd-counts $(nfsd_counts)"
		return ;;
	wake)
		# --still: the waiting server looks for DONE now
		[ -p /tmp/still ] && echo wake >/tmp/still
		echo "wake ok"
		return ;;
	"prep "*)
		. "$(dirname "$0")/lib.sh"
		# shellcheck disable=SC2086
		prep_file ${1#prep }
		return ;;
	"perftest "*)
		. "$(dirname "$0")/lib.sh"
		# shellcheck disable=SC2086
		perftest_server ${1#perftest }
		return ;;
	esac
	# conns (the server's connection list) is guest/lib.sh's
	. "$(dirname "$0")/lib.sh"
	snapshot "$1"
}

# send_counts VAR: sets the caller's variable VAR to the Send and Send
# Queue full counters as "send_inv=N send_plain=N SQ=N" ("na" where this
# kernel has none); read without a process of their own (in a TCG guest
# each costs tens of milliseconds, and make bench reads them twice a
# workload)
send_counts() {
	local f k v inv=na plain=na sq=na
	[ -r $SYS/rdma_stat_send_inv ] && read -r inv <$SYS/rdma_stat_send_inv
	[ -r $SYS/rdma_stat_send_plain ] && read -r plain <$SYS/rdma_stat_send_plain
	if [ -d $SQ_TRACE ]; then
		sq=0
		for f in $SQ_TRACE/per_cpu/cpu*/stats; do
			while read -r k v; do
				case "$k" in entries: | overrun:) sq=$((sq + v)) ;; esac
			done <"$f"
		done
	fi
	printf -v "$1" 'send_inv=%s send_plain=%s SQ=%s' "$inv" "$plain" "$sq"
}

# counters: the counters once two readings 0.3 s apart agree (at most
# about 6 s; then the last reading)
counters() {
	local i prev counts lk cpu
	# the CPUs first: the waiting below is not the workload's
	cpu_counts cpu
	send_counts counts
	for ((i = 0; i < 20; i++)); do
		prev=$counts
		sleep 0.3
		send_counts counts
		[ "$counts" = "$prev" ] && break
	done
	link_counts lk
	echo "counters $counts $lk $cpu $(nfsd_counts)"
}

# nfsd_counts: "nfsd_rpcs=CALLS nfsd_rc_hits=HITS" from nfsd's statistics
# (the RPCs it answered; the requests its reply cache had seen before:
# retransmissions), "na" without them
nfsd_counts() {
	local k a _ rpcs=na hits=na
	while read -r k a _; do
		case "$k" in rpc) rpcs=$a ;; rc) hits=$a ;; esac
	done </proc/net/rpc/nfsd 2>/dev/null
	echo "nfsd_rpcs=$rpcs nfsd_rc_hits=$hits"
}

# prep_file PATH SIZE: see "prep" above; written under another name and
# renamed when complete, within the listener's time limit
prep_file() {
	local f=$EXPORT/$1
	[[ "$1" =~ ^[A-Za-z0-9_/.-]+$ && "$1" != *..* && "$2" =~ ^[0-9]+m$ ]] ||
		{ echo "prep failed"; return; }
	[ -s "$f" ] && { echo "prep ok"; return; }
	mkdir -p "${f%/*}"
	if timeout 50 fio --name=prep --filename="$f.part" --rw=write --bs=1m --size="$2" \
			--verify=crc32c --verify_interval=4k --do_verify=0 \
			--output=/dev/null >/dev/null 2>&1 && mv "$f.part" "$f"; then
		echo "prep ok"
	else
		rm -f "$f.part"
		echo "prep failed"
	fi
}

# perftest_server TOOL PORT ARGS...: see "perftest" above; the client
# connects once this answers
perftest_server() {
	local tool=$1 port=$2 out
	shift 2
	case "$tool" in ib_send_lat|ib_send_bw|ib_read_bw|ib_write_bw) ;; *) echo "perftest failed"; return ;; esac
	[[ "$port" =~ ^[0-9]+$ && "$*" =~ ^[-A-Za-z0-9_\ ]*$ ]] || { echo "perftest failed"; return; }
	mkdir -p /results/perftest
	out=/results/perftest/$tool-$port.server.txt
	# its own session, every descriptor away from the listener's pipes
	setsid timeout -k 5 120 stdbuf -oL "$tool" -R -F -p "$port" "$@" >"$out" 2>&1 </dev/null &
	PT_GONE=0
	if SLOWWAIT_INTERVAL=0.2 slowwait 20 perftest_listening "$port" "$!" && [ "$PT_GONE" = 0 ]; then
		echo "perftest listening"
	else
		echo "perftest failed"
	fi
}
# perftest_listening PORT PID: an rdma_cm listener on PORT is up, or PID
# has ended (PT_GONE=1: no need to wait longer)
perftest_listening() {
	kill -0 "$2" 2>/dev/null || { PT_GONE=1; return 0; }
	rdma res show cm_id 2>/dev/null | grep -q "LISTEN.*:$1\b"
}

# cm_trace_line: the last svcrdma_cm_private event in the fields of a
# connection list line, "source=trace status=... c2s=N s2c=N r=N", for
# our rpcrdma on a server that lists no connections: the mainline
# series lists them through nfsd's netlink family, which the DKMS
# package on Debian's 7.3 cannot replace (nothing when no event)
cm_trace_line() {
	awk '/svcrdma_cm_private: / { line = $0 }
	END {
		if (line == "") exit
		sub(/.*svcrdma_cm_private: /, "", line)
		n = split(line, w, " "); pre = ""; out = "source=trace"
		for (i = 1; i <= n; i++) {
			if (w[i] == "client" || w[i] == "server") { pre = w[i] "_"; continue }
			if (w[i] == "negotiated") { pre = ""; continue }
			split(w[i], kv, "=")
			if (kv[1] == "addr") continue
			if (kv[1] == "R") out = out " " pre "r=" kv[2]
			else if (kv[1] == "send/recv") {
				split(kv[2], sr, "/")
				out = out " " pre "send=" sr[1] " " pre "recv=" sr[2]
			} else out = out " " pre kv[1] "=" kv[2]
		}
		print out
	}' $T/trace 2>/dev/null
}

snapshot() {
	local tag=${1//[^A-Za-z0-9.-]/_} counts swi tplain n line
	swi=na tplain=na n=na line="n/a (stock)"
	send_counts counts
	# a ring buffer that overflowed would undercount
	if ! grep -qE '^overrun: [1-9]' $T/per_cpu/cpu*/stats 2>/dev/null; then
		grep svcrdma_post_send $T/trace >/tmp/posts
		swi=$(grep -vc 'inv_rkey=0x00000000' /tmp/posts)
		tplain=$(grep -c 'inv_rkey=0x00000000' /tmp/posts)
	fi
	if conns >/tmp/conns 2>/dev/null; then
		n=$(grep -c . /tmp/conns)
		line=$(head -n 1 /tmp/conns)
	elif [ -n "$(cm_trace_line)" ]; then
		line=$(cm_trace_line)
	fi
	echo "tag=$tag nconn=$n ${counts% SQ=*} trace_swi=$swi trace_plain=$tplain SQ=${counts##* SQ=} | $line" |
		tee -a /results/server-snaps.txt
}

if [ "${1:-}" = --request ]; then
	request "$2"
	exit 0
fi

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
wait_s=600 trace=1 transport=rxe still=0
ktap_begin interop-server
while [ $# -gt 0 ]; do
	case "$1" in
	--no-private-data) cm_omit server ||
		{ fail server-knob "this kernel cannot leave out its private data (fail_rpcrdma)"; exit 1; }
		shift ;;
	--wait) wait_s=$2; shift 2 ;;
	--no-trace) trace=0; shift ;;
	--still) still=1; shift ;;
	--transport) transport=$2; shift 2 ;;
	*) break ;;
	esac
done
echo "server kernel: $(uname -r)"
nic=$(nic_up) || { fail server-setup "no NIC"; exit 1; }
setup_rdma "$transport" "$nic" "$SERVER_ADDR/24" || { fail server-setup "rdma link add failed"; exit 1; }
start_nfsd || { fail server-nfsd "nfsd did not start"; exit 1; }
# BENCH=cost: the same RPCs in every window (cost-client.sh)
[ "$still" = 0 ] || no_delegations || { fail server-setup "fs.leases-enable refused 0"; exit 1; }
echo 8192 >$T/buffer_size_kb 2>/dev/null
# svcrdma_cm_private: what our server negotiated, one event per
# connection (only our rpcrdma has it), for a server without a
# connection list (cm_trace_line)
[ "$trace" = 0 ] || trace_on rpcrdma/svcrdma_post_send rpcrdma/svcrdma_cm_private
mkdir -p $NOMEM_TRACE && echo 16 >$NOMEM_TRACE/buffer_size_kb &&
	echo 1 >$NOMEM_TRACE/events/rpcrdma/svcrdma_accept_nomem/enable 2>/dev/null ||
	rmdir $NOMEM_TRACE 2>/dev/null
mkdir -p $SQ_TRACE && echo 64 >$SQ_TRACE/buffer_size_kb &&
	echo 1 >$SQ_TRACE/events/rpcrdma/svcrdma_sq_full/enable ||
	log "no svcrdma_sq_full tracepoint: SQ=na"
mkdir -p /tmp/knob-defaults
for f in $SYS/*; do
	[ -f "$f" ] && [ -r "$f" ] && cat "$f" >"/tmp/knob-defaults/${f##*/}" 2>/dev/null
done

# the snapshot listener: one request at a time, each answered by
# "$0 --request LINE" within 60 s
python3 -c '
import socket, subprocess, sys
srv = socket.create_server(("", int(sys.argv[2])))
while True:
    conn, _ = srv.accept()
    with conn:
        conn.settimeout(60)
        try:
            tag = conn.makefile().readline().strip()
            # a kmemleak scan of a debug kernel under TCG takes minutes
            limit = 600 if tag == "kmemleak" else 60
            out = subprocess.run(["bash", sys.argv[1], "--request", tag],
                                 capture_output=True, text=True, timeout=limit).stdout
            conn.sendall(out.encode())
        except Exception as e:
            print("snapshot listener:", e, flush=True)
' "$0" "$SNAP_PORT" &
lpid=$!
echo ready >/results/ready

# client_done: the client left DONE; until then, keeps the last
# connections seen in server-view.txt
# shellcheck disable=SC2317 # run by slowwait
client_done() {
	local conns=""
	[ -e "$EXPORT/DONE" ] && return 0
	conns=$(conns 2>/dev/null)
	[ -n "$conns" ] && echo "$conns" >/results/server-view.txt
	return 1
}
# client_gone: no RDMA connection to the NFS port is left (the client
# writes DONE over NFS and then unmounts: a server that went away before
# that unmount ended would leave the client's umount waiting for ever)
# shellcheck disable=SC2317 # run by slowwait
client_gone() {
	! rdma res show cm_id 2>/dev/null | grep -v LISTEN | grep -q ":$RDMA_PORT\b"
}
if [ "$still" = 1 ]; then
	echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
	# a FIFO nobody writes: read -t waits without a process
	mkfifo /tmp/still && exec 8<>/tmp/still
	# shellcheck disable=SC2317 # run by slowwait
	still_done() { [ -e "$EXPORT/DONE" ] || { read -r -t 30 -u 8; false; }; }
	loopy_wait : $((wait_s * 1000)) still_done
else
	SLOWWAIT_INTERVAL=0.5 slowwait "$wait_s" client_done
fi
[ ! -e "$EXPORT/DONE" ] || SLOWWAIT_INTERVAL=0.5 slowwait 60 client_gone ||
	log "a connection to port $RDMA_PORT is still up 60 s after DONE: $(rdma res show cm_id | grep -v LISTEN | head -n 2)"
kill "$lpid" 2>/dev/null
[ -e "$EXPORT/DONE" ] || fail server-wait "the client never finished"
if [ "$still" = 1 ]; then
	for m in /sys/module/*/sections/.text; do
		[ -r "$m" ] && echo "$(basename "$(dirname "$(dirname "$m")")") $(cat "$m")"
	done >/results/modules-text.txt 2>/dev/null
	# (/proc files have no size: read one line)
	! read -r _ </proc/modules || grep -E '^[0-9a-f]+ [tTwW] ' /proc/kallsyms >/results/kallsyms.txt
fi
echo "== server view (last seen while connected)"
cat /results/server-view.txt 2>/dev/null || echo "no connection list (stock kernel)"
echo "== server counters"
grep . $SYS/rdma_stat_* 2>/dev/null
check_dmesg server-dmesg-clean
ktap_finished
