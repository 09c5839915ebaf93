#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Server half of a two-guest run: soft-RoCE on the NIC linked to the
# client guest, an NFS server over RDMA, then wait until the client leaves
# the file DONE in the export (or the time limit).  Reports what this
# kernel exposes about the connections.
#   interop-server.sh [--no-private-data] [--wait SEC]
. "$(dirname "$0")/../guest-lib.sh"
FAILED=0 wait_s=600
while [ $# -gt 0 ]; do
	case "$1" in
	--no-private-data) echo 0 >/proc/sys/sunrpc/svc_rdma/cm_private_data 2>/dev/null ||
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
echo ready >/results/ready
for ((i = 0; i < wait_s; i++)); do
	[ -e "$EXPORT/DONE" ] && break
	sleep 1
done
[ -e "$EXPORT/DONE" ] || fail server-wait "the client never finished"
echo "== server view"
for f in /proc/net/rpc/svc_rdma_connections /proc/fs/nfsd/rdma_connections; do
	[ -e "$f" ] && { echo "-- $f"; cat "$f"; cp "$f" /results/server-view.txt; }
done
grep -E '^(rdma_stat|svcrdma)' /proc/net/rpc/rdma 2>/dev/null | head -n 20
dmesg_clean >/tmp/bad && pass server-dmesg-clean || fail server-dmesg-clean "$(head -c 300 /tmp/bad)"
exit $FAILED
