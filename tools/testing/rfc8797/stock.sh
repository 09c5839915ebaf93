#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare Debian's stock kernel for the guest runner: the unsigned image
# package, extracted (never installed on the host), its modules indexed,
# and a small busybox initramfs that loads 9p and overlayfs and hands
# over to guest-init.sh on the 9p root.  Prints the image path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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

# initramfs: busybox, the 9p and overlay modules (decompressed: busybox
# insmod cannot read .ko.xz) in dependency order, and /init.
ird=$dir.tmp/initramfs
mkdir -p "$ird/bin" "$ird/mods" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/newroot"
cp /bin/busybox "$ird/bin/busybox"
for a in sh mount insmod mkdir switch_root sleep cat; do
	ln -s busybox "$ird/bin/$a"
done
n=0
: >"$ird/mods/order"
for m in $(modprobe -S "$STOCK_KREL" -d "$dir.tmp" --show-depends -a \
		9pnet_virtio 9p overlay | awk '$1 == "insmod" && !seen[$2]++ {print $2}'); do
	n=$((n + 1))
	out=$(printf '%02d-%s' "$n" "$(basename "${m%.xz}")")
	xz -dc "$m" >"$ird/mods/$out"
	echo "$out" >>"$ird/mods/order"
done
cat >"$ird/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do
	insmod /mods/$m || echo "initramfs: insmod $m failed"
done
init=
for w in $(cat /proc/cmdline); do
	case "$w" in init=*) init=${w#init=} ;; esac
done
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=524288,cache=loose hostroot /newroot ||
	{ echo "initramfs: cannot mount the 9p root"; sleep 2; exit 1; }
umount /proc
exec switch_root /newroot "$init"
INIT
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$dir.tmp/initramfs.cpio.gz"
rm -rf "$ird"
mv "$dir.tmp" "$dir"
echo "$image"
