#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the insn-count QEMU plugin and the guests' insn-mark into
# $CACHE_ROOT/insn-plugin (guest.sh --count loads the plugin from there;
# the guests run insn-mark from there, through the read-only 9p root).
#
# No Debian binary package ships qemu-plugin.h: it comes from Debian's
# "qemu" source package of the installed QEMU version (its Debian
# revision without a binNMU's "+bN"), fetched with a private deb-src
# list on the machine's own mirror (lib.sh apt_private), kept in
# $CACHE_ROOT/qemu-src.  A header of another plugin API version than the
# one the installed QEMU offers is refused: QEMU 7.2 loads version 1
# only (trixie's header is version 4).
set -euo pipefail
. "$(dirname "$0")/../../lib.sh"
harness_env || exit 1

out=$CACHE_ROOT/insn-plugin
src=$CACHE_ROOT/qemu-src
qver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed"
sver=$(echo "$qver" | sed 's/+b[0-9]*$//')
upstream=${sver#*:}
upstream=${upstream%%+*}
upstream=${upstream%%-*}
# make cannot take a ":" (the epoch) in a path
inc=$src/${sver//:/_}/include
hdr=$inc/qemu-plugin.h
if [ ! -f "$hdr" ]; then
	msg "qemu-plugin.h of qemu $sver (Debian's source package)"
	mkdir -p "$src/dl"
	(cd "$src/dl" && apt_private "$src" deb-src "$(. /etc/os-release && echo "$VERSION_CODENAME")" \
		apt-get source -q --download-only "qemu=$sver" >/dev/null) ||
		die "apt-get source --download-only qemu=$sver failed"
	orig=$(ls "$src/dl"/qemu_"${upstream}"*.orig.tar.* 2>/dev/null | head -n 1)
	[ -n "$orig" ] || die "no orig tarball of qemu $sver in $src/dl"
	mkdir -p "$inc.tmp"
	timeout 300 tar -xf "$orig" -O --wildcards '*/include/qemu/qemu-plugin.h' >"$inc.tmp/qemu-plugin.h" ||
		die "no include/qemu/qemu-plugin.h in $orig"
	# a Debian patch that touched the header would change it
	if tar -tf "$src/dl"/qemu_"$sver".debian.tar.* 2>/dev/null | grep -q 'patches/' &&
			tar -xOf "$src/dl"/qemu_"$sver".debian.tar.* --wildcards '*patches/*' 2>/dev/null |
			grep -q '^+++ .*include/qemu/qemu-plugin.h'; then
		die "a Debian patch of qemu $sver changes qemu-plugin.h: not handled"
	fi
	rm -rf "$inc"
	mv "$inc.tmp" "$inc"
	rm -rf "$src/dl"
fi
# the API version the header declares must be one the installed QEMU
# loads: 7.2 loads 1 (QEMU_PLUGIN_MIN_VERSION .. QEMU_PLUGIN_VERSION)
api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\)$/\1/p' "$hdr")
case "$upstream" in
7.2*) want=1 ;;
*) want=$api; msg "qemu $upstream: plugin API version not known here, using the header's ($api)" ;;
esac
[ "$api" = "$want" ] || die "$hdr declares plugin API $api, qemu $upstream loads $want"
command -v gcc >/dev/null && [ -f /usr/lib/x86_64-linux-gnu/libc.a ] ||
	die "gcc and a static libc (libc6-dev) are needed"
mkdir -p "$out"
timeout 300 make -s -C "$(dirname "$0")" O="$out" QEMU_INC="$inc" >&2 ||
	die "building the plugin failed"
echo "$qver api=$api" >"$out/qemu-version"
echo "$out"
