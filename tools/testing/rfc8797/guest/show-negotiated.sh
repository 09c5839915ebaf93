#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest main job of "make": NFS server and client over soft-RoCE in one
# guest, a file written and read back with a checksum, and what each peer
# negotiated, as far as the running kernel exposes it.
. "$(dirname "$0")/lib.sh"
ktap_begin show-negotiated
vers=${1:-4.2}

echo "kernel: $(uname -r)"
setup_nfs_rdma
trace_on rpcrdma/xprtrdma_cm_private rpcrdma/svcrdma_cm_private
mount_nfs "$vers" /mnt || { fail mount "mount -o vers=$vers,proto=rdma failed"; exit 1; }
echo "mounted: $(grep ' /mnt ' /proc/mounts)"
dd if=/dev/urandom of=/tmp/file bs=1M count=8 status=none
cp /tmp/file /mnt/file && sync
umount_nfs /mnt
mount_nfs "$vers" /mnt || { fail remount "second mount failed"; exit 1; }
want=$(file_sum /tmp/file)
got=$(file_sum /mnt/file)
echo "checksum written:   $want"
echo "checksum read back: $got"
[ -n "$want" ] && [ "$want" = "$got" ] && pass "nfs$vers-rdma-checksum" || fail "nfs$vers-rdma-checksum" "mismatch"

echo
echo "== negotiated, client side (sysfs xprt_info; counters of the rdma line of /proc/self/mountstats)"
echo "  c2s inline $(xprt_info c2s), s2c inline $(xprt_info s2c), R offered $(xprt_info client_r), R negotiated $(xprt_info r), server data: $(xprt_info cm_status)"
echo "  replies with remote invalidation $(mstat /mnt reminv) (not negotiated $(mstat /mnt reminv_unneg)," \
	"stray $(mstat /mnt reminv_stray)), LOCAL_INV posted $(mstat /mnt local_inv)"
echo "== client tracepoints"
trace_dump | grep -oE 'xprtrdma_(cm_private|inline_thresh).*' | sort -u | sed 's/^/  /'
echo "== negotiated, server side (nfsd's netlink dump rdma-conn-get, or 6.12's /proc/net/rpc/svc_rdma_connections)"
if has_conns; then
	conns | sed 's/^/  /'
else
	echo "  (this kernel does not expose the server's values)"
fi
echo "== server tracepoint"
trace_dump | grep -oE 'svcrdma_cm_private.*' | sort -u | sed 's/^/  /'
umount_nfs /mnt
check_dmesg dmesg-clean
ktap_finished
