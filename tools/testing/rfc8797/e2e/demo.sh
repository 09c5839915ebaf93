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
trace_on
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
echo "== negotiated, client side (rpcrdma:xprtrdma_inline_thresh tracepoint)"
trace_dump | grep -o 'xprtrdma_inline_thresh.*' | sort -u
for f in /sys/kernel/sunrpc/xprt-switches/*/xprt-*-rdma/xprt_info; do
	[ -f "$f" ] || continue
	echo "-- $f"
	cat "$f"
done
echo "== negotiated, server side"
if [ -e /proc/fs/nfsd/rdma_connections ]; then
	cat /proc/fs/nfsd/rdma_connections
else
	echo "(this kernel does not expose the server's values)"
fi
umount_nfs /mnt
dmesg_clean >/tmp/bad && pass dmesg-clean || fail dmesg-clean "$(head -c 300 /tmp/bad)"
exit $FAILED
