#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In a guest booted with guest.sh --kernel stock: install the DKMS
# package as an administrator would (its postinst runs dkms build and
# install for the running kernel, depmod included), check that modprobe
# then loads ours and an NFSv3 mount over rxe works, then purge the
# package and check that the kernel's own rpcrdma is back.  Everything
# happens on the guest's tmpfs overlay; the host is not touched.
#
#   dkms-install.sh DEB
. "$(dirname "$0")/../lib.sh"
ktap_begin dkms-install
deb=$1
krel=$(uname -r)
pkg=$(dpkg-deb -f "$deb" Package)
ver=$(dpkg-deb -f "$deb" Version)
export DEBIAN_FRONTEND=noninteractive
# the stock modules directory comes from the extracted image package:
# the headers package's build link is what DKMS looks for
[ -e "/lib/modules/$krel/build" ] || ln -s "/usr/src/linux-headers-$krel" "/lib/modules/$krel/build"

t=$SECONDS
if dpkg -i "$deb" >/tmp/install.log 2>&1; then
	pass "dkms-install-dpkg"
else
	fail "dkms-install-dpkg" "$(tail -n 5 /tmp/install.log | tr '\n' ' ')"
fi
log "dpkg -i took $((SECONDS - t)) s:"
cat /tmp/install.log
st=$(dkms status -m rpcrdma-rfc8797 -v "$ver" -k "$krel")
log "dkms status: $st"
case "$st" in
*installed*) pass "dkms-install-status" ;;
*) fail "dkms-install-status" "dkms status: '$st'" ;;
esac
f=$(modinfo -n rpcrdma)
case "$f" in
*/updates/dkms/rpcrdma.ko*) pass "dkms-install-path" ;;
*) fail "dkms-install-path" "modinfo -n rpcrdma: $f" ;;
esac
modprobe rpcrdma
v=$(cat /sys/module/rpcrdma/version 2>/dev/null)
if [ "$v" = "rfc8797-$ver" ]; then
	pass "dkms-install-loaded"
else
	fail "dkms-install-loaded" "version '$v', want rfc8797-$ver"
fi
log "modinfo: $(modinfo rpcrdma | grep -E '^(filename|version|rfc8797_|signer)' | tr '\n' ';')"

setup_nfs_rdma dkms-install-
if mount_nfs 3 /mnt/v3; then
	dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
	cp /tmp/f /mnt/v3/f && sync
	umount_nfs /mnt/v3
	if remount_nfs 3 /mnt/v3 && cmp -s /tmp/f /mnt/v3/f; then
		pass "dkms-install-nfs3-checksum"
	else
		fail "dkms-install-nfs3-checksum" "remount failed or the read-back differs"
	fi
	log "server view: $(conns | head -n 1)"
	umount_nfs /mnt/v3
else
	fail "dkms-install-nfs3-mount" "mount failed"
fi
echo "-rdma $RDMA_PORT" >/proc/fs/nfsd/portlist 2>/dev/null
rpc.nfsd 0
sleep 1

t=$SECONDS
if apt-get purge -y "$pkg" >/tmp/purge.log 2>&1; then
	pass "dkms-purge"
else
	fail "dkms-purge" "$(tail -n 5 /tmp/purge.log | tr '\n' ' ')"
fi
log "apt-get purge took $((SECONDS - t)) s:"
cat /tmp/purge.log
left=$(find "/lib/modules/$krel/updates" -name 'rpcrdma*' 2>/dev/null)
if [ -z "$left" ]; then pass "dkms-purge-no-module-left"; else fail "dkms-purge-no-module-left" "$left"; fi
st=$(dkms status -m rpcrdma-rfc8797)
if [ -z "$st" ]; then pass "dkms-purge-status"; else fail "dkms-purge-status" "dkms status: $st"; fi
if [ ! -d "/usr/src/rpcrdma-rfc8797-$ver" ]; then
	pass "dkms-purge-source"
else
	fail "dkms-purge-source" "/usr/src/rpcrdma-rfc8797-$ver left"
fi
f=$(modinfo -n rpcrdma)
case "$f" in
*/kernel/net/sunrpc/xprtrdma/rpcrdma.ko*) pass "dkms-purge-stock-path" ;;
*) fail "dkms-purge-stock-path" "modinfo -n rpcrdma: $f" ;;
esac
if modprobe -r rpcrdma && modprobe rpcrdma; then
	v=$(cat /sys/module/rpcrdma/version 2>/dev/null)
	if [ -z "$v" ]; then pass "dkms-purge-stock-loaded"; else fail "dkms-purge-stock-loaded" "version '$v' after purge"; fi
else
	fail "dkms-purge-stock-loaded" "modprobe -r/modprobe rpcrdma failed: $(lsmod | grep rpcrdma)"
fi
check_dmesg "dkms-install-dmesg-clean"
ktap_finished
