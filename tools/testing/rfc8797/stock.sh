#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare Debian's stock kernel for the guest runner: the unsigned image
# package, extracted (never installed on the host), its modules indexed,
# and the 9p initramfs (ninep_initramfs in lib.sh).  Prints the image path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

dir=$STOCK_DIR
image=$dir/boot/vmlinuz-$STOCK_KREL
if [ -f "$dir/initramfs.cpio.gz" ] && [ -f "$image" ]; then
	echo "$image"
	exit 0
fi
rm -rf "$dir" "$dir.tmp"
mkdir -p "$dir.tmp/deb"
msg "fetching $STOCK_IMAGE_PKG=$STOCK_PKG_VERSION"
(cd "$dir.tmp/deb" && apt-get download -q -o APT::Sandbox::User=root "$STOCK_IMAGE_PKG=$STOCK_PKG_VERSION" >/dev/null)
dpkg-deb -x "$dir.tmp/deb"/*.deb "$dir.tmp"
rm -rf "$dir.tmp/deb"
depmod -b "$dir.tmp" "$STOCK_KREL"

ninep_initramfs "$dir.tmp" "$STOCK_KREL" "$dir.tmp/initramfs.cpio.gz"
mv "$dir.tmp" "$dir"
echo "$image"
