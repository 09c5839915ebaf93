#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Server half of a two-guest run: soft-RoCE on the NIC linked to the
# client guest, an NFS server over RDMA, then wait until the client leaves
# the file DONE in the export (or the time limit).  Reports what this
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
# first line of /proc/net/rpc/svc_rdma_connections ("n/a (stock)" on a
# kernel without it), N its number of lines.  Every 0.5 s the server also
# keeps the last non-empty svc_rdma_connections in /results/server-view.txt.
#
#   interop-server.sh [--no-private-data] [--wait SEC]
#   interop-server.sh --snapshot TAG   (run by the snapshot listener)
SNAP_PORT=7799
SYS=/proc/sys/sunrpc/svc_rdma
CONNS=/proc/net/rpc/svc_rdma_connections
T=/sys/kernel/tracing

if [ "${1:-}" = --snapshot ]; then
	tag=${2//[^A-Za-z0-9.-]/_}
	inv=na plain=na swi=na tplain=na n=na line="n/a (stock)"
	[ -r $SYS/rdma_stat_send_inv ] && inv=$(cat $SYS/rdma_stat_send_inv)
	[ -r $SYS/rdma_stat_send_plain ] && plain=$(cat $SYS/rdma_stat_send_plain)
	# a ring buffer that overflowed would undercount
	if ! grep -qE '^overrun: [1-9]' $T/per_cpu/cpu*/stats 2>/dev/null; then
		grep svcrdma_post_send $T/trace >/tmp/posts
		swi=$(grep -vc 'inv_rkey=0x00000000' /tmp/posts)
		tplain=$(grep -c 'inv_rkey=0x00000000' /tmp/posts)
	fi
	if [ -r $CONNS ]; then
		cat $CONNS >/tmp/conns
		n=$(grep -c . /tmp/conns)
		line=$(head -n 1 /tmp/conns)
	fi
	echo "tag=$tag nconn=$n send_inv=$inv send_plain=$plain trace_swi=$swi trace_plain=$tplain | $line" |
		tee -a /results/server-snaps.txt
	exit 0
fi

. "$(dirname "$0")/../guest-lib.sh"
FAILED=0 wait_s=600
while [ $# -gt 0 ]; do
	case "$1" in
	--no-private-data) echo 0 >$SYS/cm_private_data 2>/dev/null ||
		{ fail server-knob "this kernel has no switch for its private data"; exit 1; }
		shift ;;
	--wait) wait_s=$2; shift 2 ;;
	*) break ;;
	esac
done
echo "server kernel: $(uname -r)"
nic=$(nic_up) || { fail server-setup "no NIC"; exit 1; }
setup_rdma rxe "$nic" "$SERVER_ADDR/24" || { fail server-setup "rdma link add failed"; exit 1; }
start_nfsd || { fail server-nfsd "nfsd did not start"; exit 1; }
echo 8192 >$T/buffer_size_kb 2>/dev/null
trace_on rpcrdma/svcrdma_post_send

# the snapshot listener: one request at a time, each answered by
# "$0 --snapshot TAG" within 60 s
python3 -c '
import socket, subprocess, sys
srv = socket.create_server(("", int(sys.argv[2])))
while True:
    conn, _ = srv.accept()
    with conn:
        conn.settimeout(60)
        try:
            tag = conn.makefile().readline().strip()
            out = subprocess.run(["bash", sys.argv[1], "--snapshot", tag],
                                 capture_output=True, text=True, timeout=60).stdout
            conn.sendall(out.encode())
        except Exception as e:
            print("snapshot listener:", e, flush=True)
' "$0" "$SNAP_PORT" &
lpid=$!
echo ready >/results/ready

for ((i = 0; i < wait_s * 2; i++)); do
	[ -e "$EXPORT/DONE" ] && break
	conns=""
	[ -r "$CONNS" ] && conns=$(cat "$CONNS")
	[ -n "$conns" ] && echo "$conns" >/results/server-view.txt
	sleep 0.5
done
kill "$lpid" 2>/dev/null
[ -e "$EXPORT/DONE" ] || fail server-wait "the client never finished"
echo "== server view (last seen while connected)"
cat /results/server-view.txt 2>/dev/null || echo "no $CONNS (stock kernel)"
echo "== server counters"
grep . $SYS/rdma_stat_* 2>/dev/null
check_dmesg server-dmesg-clean
exit $FAILED
