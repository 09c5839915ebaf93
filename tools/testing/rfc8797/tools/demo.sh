#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest main job of "make": NFS server and client over soft-RoCE in one
# guest, a file written and read back with a checksum, and what each peer
# negotiated, as far as the running kernel exposes it.
. "$(dirname "$0")/../guest-lib.sh"
FAILED=0
vers=${1:-4.2}

echo "kernel: $(uname -r)"
setup_rdma rxe || { fail setup "rdma link add failed"; exit 1; }
start_nfsd || { fail nfsd "nfsd did not start"; exit 1; }
trace_on rpcrdma/xprtrdma_cm_private rpcrdma/svcrdma_cm_private
mount_nfs "$vers" /mnt || { fail mount "mount -o vers=$vers,proto=rdma failed"; exit 1; }
echo "mounted: $(grep ' /mnt ' /proc/mounts)"
dd if=/dev/urandom of=/tmp/file bs=1M count=8 status=none
cp /tmp/file /mnt/file && sync
umount_nfs /mnt
mount_nfs "$vers" /mnt || { fail remount "second mount failed"; exit 1; }
want=$(sha256sum </tmp/file | cut -c1-64)
got=$(sha256sum </mnt/file | cut -c1-64)
echo "checksum written:   $want"
echo "checksum read back: $got"
[ "$want" = "$got" ] && pass "nfs$vers-rdma-checksum" || fail "nfs$vers-rdma-checksum" "mismatch"

echo
echo "== negotiated, client side (/proc/self/mountstats, fields appended to the xprt: rdma line)"
awk '/^device / { cur = index($0, "mounted on /mnt ") > 0 }
	cur && $1 == "xprt:" && $2 == "rdma" {
		st[0] = "found"; st[1] = "absent"; st[2] = "truncated"; st[3] = "bad-version"
		printf "  c2s inline %s, s2c inline %s, R offered %s, R negotiated %s, server data: %s\n", $33, $34, $35, $36, st[$37]
		printf "  replies with remote invalidation %s (not negotiated %s, rkey mismatch %s), LOCAL_INV posted %s\n", $30, $31, $32, $27
	}' /proc/self/mountstats
echo "== client tracepoints"
trace_dump | grep -oE 'xprtrdma_(cm_private|inline_thresh).*' | sort -u | sed 's/^/  /'
echo "== negotiated, server side (/proc/net/rpc/svc_rdma_connections)"
if [ -e /proc/net/rpc/svc_rdma_connections ]; then
	sed 's/^/  /' /proc/net/rpc/svc_rdma_connections
else
	echo "  (this kernel does not expose the server's values)"
fi
echo "== server tracepoint"
trace_dump | grep -oE 'svcrdma_cm_private.*' | sort -u | sed 's/^/  /'
umount_nfs /mnt
check_dmesg dmesg-clean
exit $FAILED
