#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare one of Debian's stock kernels for the guest runner: the image
# package, extracted (never installed on the host), its modules indexed,
# and the 9p initramfs (ninep_initramfs in lib.sh).  Prints the image path.
#
#   stock.sh [6.12]   Debian 12's 6.12 (STOCK_PKG_VERSION, the unsigned
#                     image from the machine's own suites): --kernel stock
#   stock.sh 7.3      Debian 13's backports 7.3 (STOCK73_PKG_VERSION, the
#                     mainline pin; from trixie-backports through the
#                     private source list of lib.sh's apt_private):
#                     --kernel stock-7.3
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

case "${1:-6.12}" in
6.12)
	dir=$STOCK_DIR krel=$STOCK_KREL ver=$STOCK_PKG_VERSION
	pkgs=("$STOCK_IMAGE_PKG")
	dl() { apt-get download -q -o APT::Sandbox::User=root "$@"; } ;;
7.3)
	dir=$STOCK73_DIR krel=$STOCK73_KREL ver=$STOCK73_PKG_VERSION
	# 7.3's linux-image is split: the kernel (linux-binary, signed),
	# its modules and its base files are packages of their own
	pkgs=("$STOCK73_IMAGE_PKG" "linux-binary-$krel" "linux-modules-$krel" "linux-base-$krel")
	dl() { apt_private "$CACHE_ROOT/apt" deb "$MAINLINE_SUITES" apt-get download -q "$@"; } ;;
*) die "usage: $0 [6.12|7.3]" ;;
esac
image=$dir/boot/vmlinuz-$krel
# guests that start side by side prepare it once
mkdir -p "${dir%/*}"
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/initramfs.cpio.gz" ] && [ -f "$image" ]; then
	echo "$image"
	exit 0
fi
rm -rf "$dir" "$dir.tmp"
mkdir -p "$dir.tmp/deb"
msg "fetching ${pkgs[*]} ($ver)"
(cd "$dir.tmp/deb" && dl "${pkgs[@]/%/=$ver}" >/dev/null)
for d in "$dir.tmp/deb"/*.deb; do
	dpkg-deb -x "$d" "$dir.tmp"
done
rm -rf "$dir.tmp/deb"
# 7.3's packages use the merged /usr layout, the kernel beside its
# modules: laid out as 6.12's (lib/modules/KREL, boot/vmlinuz-KREL)
if [ -d "$dir.tmp/usr/lib/modules/$krel" ] && [ ! -d "$dir.tmp/lib/modules/$krel" ]; then
	mkdir -p "$dir.tmp/lib/modules"
	mv "$dir.tmp/usr/lib/modules/$krel" "$dir.tmp/lib/modules/"
fi
if [ ! -f "$dir.tmp/boot/vmlinuz-$krel" ] && [ -f "$dir.tmp/lib/modules/$krel/vmlinuz" ]; then
	mkdir -p "$dir.tmp/boot"
	ln "$dir.tmp/lib/modules/$krel/vmlinuz" "$dir.tmp/boot/vmlinuz-$krel"
fi
depmod -b "$dir.tmp" "$krel"

ninep_initramfs "$dir.tmp" "$krel" "$dir.tmp/initramfs.cpio.gz"
mv "$dir.tmp" "$dir"
echo "$image"
