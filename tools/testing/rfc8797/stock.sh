#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare one of Debian's stock kernels for the guest runner: the image
# package, extracted (never installed on the host), its modules indexed,
# and the 9p initramfs (ninep_initramfs in lib.sh).  Prints the image path.
#
#   stock.sh [KERNEL]  the kernel KERNEL of data/kernels/ (default: stock)
#                      whose FETCH is stock.sh: its packages (PKGS) at
#                      DEB_VERSION, from the machine's own suites, or from
#                      SUITES through the private source list of lib.sh's
#                      apt_private, unpacked into DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

kernel=${1:-stock}
kernel_info "$kernel" && [ "$K_FETCH" = stock.sh ] ||
	die "usage: $0 [KERNEL]: a kernel of $KERNELS_DIR that stock.sh fetches"
dir=$K_DIR krel=$K_KREL ver=$K_DEB_VERSION
read -r -a pkgs <<<"$K_PKGS"
dl() {
	if [ -z "$K_SUITES" ]; then
		apt-get download -q -o APT::Sandbox::User=root "$@"
	else
		apt_private "$CACHE_ROOT/apt" deb "$K_SUITES" apt-get download -q "$@"
	fi
}
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
