#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The DKMS package on Debian 13 (trixie), installed the way a trixie
# user installs it: with trixie's dkms, its kernel headers and gcc-14, in
# a trixie root filesystem (chroot; the host is not touched), whose
# kernel the guests then boot (guest.sh --kernel trixie, with that root
# as their userland: the closest thing to a trixie machine here).
#
#   trixie.sh root         the cached trixie root, $CACHE_ROOT/trixie/root:
#                          debootstrap (minbase) from the machine's own
#                          Debian mirror, the tools the guests' tests use,
#                          dkms, openssl and lintian, the oldest 6.12 kernel trixie
#                          offers (image and headers), and, downloaded
#                          only, the newest (linux-image-amd64,
#                          linux-headers-amd64) and trixie-backports'
#                          linux-headers-amd64 (not 6.12); prints its path
#   trixie.sh install DEB  a fresh copy of the root ($CACHE_ROOT/trixie/work),
#                          then, KTAP on stdout: trixie's lintian on DEB,
#                          and as an administrator would:
#                           1. apt-get install ./DEB while the oldest
#                              6.12 is the only kernel: DKMS refuses it
#                              (older than the module's sources), the
#                              package is configured anyway;
#                           2. the kernel upgrade (apt-get install
#                              linux-image-amd64 linux-headers-amd64):
#                              DKMS's kernel hook builds and installs
#                              the module for the new 6.12 (gcc-14);
#                           3. trixie-backports' headers (not 6.12):
#                              DKMS refuses them, apt succeeds;
#                           4. apt-get purge: nothing of the module left
#                              for any kernel;
#                           5. dpkg -i DEB, now that the new kernel is the
#                              newest (its postinst builds);
#                          then the 9p initramfs of the new kernel for
#                          the guests
#   trixie.sh purge        after the guests: apt-get purge, and the root
#                          must hold what it held before step 5 (KTAP)
#
# That is the 6.12 package (BASE=6.12).  With BASE=mainline the package
# is rpcrdma-rfc8797-7.3-dkms, for Debian 13's backports kernel, in a
# work root of its own ($CACHE_ROOT/trixie/work-7.3; guest.sh --kernel
# trixie-7.3 boots it), and install goes:
#                           1. apt-get install ./DEB while the oldest
#                              6.12 is the only kernel: DKMS refuses it
#                              (not 7.3), the package is configured;
#                           2. the kernel upgrade to backports
#                              (apt-get install -t trixie-backports
#                              linux-image-amd64 linux-headers-amd64):
#                              DKMS's hook builds and installs the
#                              module for 7.3 (gcc-14), nothing for 6.12;
#                           3. apt-get purge: nothing left for any kernel;
#                           4. dpkg -i DEB: its postinst builds for 7.3;
#                          then the 9p initramfs of the 7.3 kernel
#
# Set TRIXIE_REFRESH=1 to debootstrap the root again (it is otherwise
# kept until RECIPE below changes).
set -euo pipefail
# under set -e a failed command ends the script: say which one (a cold
# trixie.sh root once ended so after its apt-get update, saying
# nothing).  An EXIT trap, not ERR: ERR does not reach the functions,
# where all the work is, without -E, and with -E it fires for failures
# that a caller handles
trap 'rc=$?; [ "$rc" = 0 ] || echo "error: trixie.sh: exit $rc after: $BASH_COMMAND" >&2' EXIT
. "$(dirname "$0")/lib.sh"
harness_env || exit 1

DIR=$CACHE_ROOT/trixie
ROOT=$DIR/root
# the package of this base (lib.sh), and its own work root and files
PKG=$DKMS_PKG
NAME=$DKMS_NAME
# (the suffix of the kernel that boots it: data/kernels/$DKMS_TRIXIE_KERNEL)
kernel_row "$DKMS_TRIXIE_KERNEL" || die "data/bases/$RFC_BASE: no kernel $DKMS_TRIXIE_KERNEL"
SUF=$K_SUFFIX
WORK=$DIR/work$SUF
# What the guests' scripts run (everything under guest/,
# besides trixie's minbase)
TOOLS="bash coreutils mount util-linux hostname diffutils findutils procps kmod iproute2
	busybox fio nfs-kernel-server nfs-common rpcbind python3 xz-utils"
# Bump when the root's recipe changes (the cached root is rebuilt)
RECIPE="4 ${TOOLS//$'\n\t'/ } dkms openssl lintian"

# in_root DIR CMD...: CMD chrooted in DIR with /proc, /sys and /dev, in
# a mount namespace of its own (nothing stays mounted on the host), for
# 30 minutes at most
in_root() {
	local r=$1
	shift
	unshare --mount --propagation private -- /bin/bash -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" &&
			mount --rbind /dev "$r/dev" || exit 99
		exec timeout 1800 chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' in_root "$r" "$@"
}

# krel_of PKGVERSION-LINE: 6.12.117-1 -> the release of its -amd64 flavour
krel_of() { echo "${1%%-*}+deb13-amd64"; }

# bpo_image ROOT KREL: the backports kernel KREL (image and headers,
# through the metapackages as an administrator installs them) downloaded
# into ROOT's apt cache, for the 7.3 package's kernel upgrade; a root
# made before this step gets it once ("bpo_image=" in its stamp)
bpo_image() {
	[ -n "$2" ] || return 0
	in_root "$1" apt-get install -y -q --download-only -t trixie-backports \
		linux-image-amd64 linux-headers-amd64 >>"$DIR/root.log" 2>&1 ||
		die "downloading the backports kernel $2 failed, see $DIR/root.log"
	[ ! -f "$DIR/root.stamp" ] || echo "bpo_image=$2" >>"$DIR/root.stamp"
}

cmd_root() {
	local mirror sec old new bpo v tmp=$ROOT.tmp
	if [ -f "$DIR/root.stamp" ] && [ "$(head -n 1 "$DIR/root.stamp")" = "$RECIPE" ] &&
			[ -z "${TRIXIE_REFRESH:-}" ]; then
		if ! grep -q '^bpo_image=' "$DIR/root.stamp"; then
			exec 9>"$DIR/lock"
			flock -w 3600 9 || die "another trixie.sh holds $DIR/lock"
			msg "trixie root: downloading the backports kernel $(stamp bpo)"
			bpo_image "$ROOT" "$(stamp bpo)"
		fi
		echo "$ROOT"
		return
	fi
	command -v debootstrap >/dev/null || die "no debootstrap (deps.sh trixie installs it)"
	mirror=$(debian_mirror)
	# the security archive, where the machine's own apt configuration has one
	sec=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
		awk -v c="$(. /etc/os-release && echo "$VERSION_CODENAME")-security" '$2 == c && !f { print $1; f = 1 }')
	rm -rf --one-file-system "$ROOT" "$tmp" "$DIR/root.stamp"
	mkdir -p "$DIR"
	msg "debootstrap trixie (minbase) into $tmp"
	# in a mount namespace of its own: nothing of it stays mounted
	timeout 1800 unshare --mount --propagation private -- debootstrap --variant=minbase --components=main \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		trixie "$tmp" "$mirror" >"$DIR/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$DIR/debootstrap.log" >&2; die "debootstrap failed, see $DIR/debootstrap.log"; }
	# as a trixie machine has them: updates and security; and backports,
	# for a kernel that is not 6.12
	{
		echo "deb $mirror trixie-updates main"
		[ -z "$sec" ] || echo "deb $sec trixie-security main"
	} >"$tmp/etc/apt/sources.list.d/trixie-updates.list"
	echo "deb $mirror trixie-backports main" >"$tmp/etc/apt/sources.list.d/trixie-backports.list"
	# apt keeps what it downloads (the later steps run from its cache)
	rm -f "$tmp/etc/apt/apt.conf.d/docker-clean"
	in_root "$tmp" apt-get -q update >"$DIR/root.log" 2>&1 ||
		{ tail -n 20 "$DIR/root.log" >&2; die "apt-get update in the trixie root failed"; }
	# the 6.12 kernels of trixie: the newest is linux-headers-amd64's
	# newest version outside backports (trixie-security's, when it has
	# one), the oldest the oldest linux-headers-6.12.*+deb13-amd64
	new=$(in_root "$tmp" apt-cache madison linux-headers-amd64 |
		awk -F' *[|] *' '$3 !~ /backports/ { print $2 }' | sort -V | tail -n 1)
	old=$(in_root "$tmp" apt-cache pkgnames linux-headers-6.12. |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb13-amd64\)$/\1/p' | sort -V | sed -n 1p)
	bpo=$(in_root "$tmp" apt-cache madison linux-headers-amd64 |
		awk -F' *[|] *' '$3 ~ /trixie-backports\/main / && !f { print $2; f = 1 }')
	[ -n "$new" ] && [ -n "$old" ] || die "trixie offers no linux-headers-amd64 or no linux-headers-6.12.*+deb13-amd64"
	new=$(krel_of "$new")
	[ -z "$bpo" ] || bpo=$(krel_of "$bpo")
	# (none when it is of the line of trixie's own kernel)
	case "$bpo" in "${new%.*}".*) bpo="" ;; esac
	msg "trixie root: kernel $old installed, $new (upgrade) and ${bpo:-no} backports headers downloaded"
	# shellcheck disable=SC2086	# word lists
	in_root "$tmp" apt-get install -y -q --no-install-recommends $TOOLS dkms openssl lintian \
		"linux-image-$old" "linux-headers-$old" >>"$DIR/root.log" 2>&1 ||
		{ tail -n 20 "$DIR/root.log" >&2; die "installing trixie's tools and kernel $old failed, see $DIR/root.log"; }
	if [ "$old" != "$new" ]; then
		in_root "$tmp" apt-get install -y -q --download-only linux-image-amd64 linux-headers-amd64 \
			>>"$DIR/root.log" 2>&1 || die "downloading trixie's kernel $new failed, see $DIR/root.log"
	fi
	if [ -n "$bpo" ]; then
		in_root "$tmp" apt-get install -y -q --download-only -t trixie-backports \
			"linux-headers-$bpo" >>"$DIR/root.log" 2>&1 ||
			die "downloading the backports headers $bpo failed, see $DIR/root.log"
	fi
	bpo_image "$tmp" "$bpo"
	v=$(in_root "$tmp" dpkg-query -W -f='${Version}' dkms)
	mv "$tmp" "$ROOT"
	echo "sources: trixie trixie-updates ${sec:+trixie-security }trixie-backports" >>"$DIR/root.log"
	printf '%s\nold=%s\nnew=%s\nbpo=%s\ndkms=%s\nbpo_image=%s\n' "$RECIPE" "$old" "$new" "$bpo" "$v" "$bpo" >"$DIR/root.stamp"
	echo "$ROOT"
}

stamp() { sed -n "s/^$1=//p" "$DIR/root.stamp"; }

# t NAME CMD...: one KTAP result from CMD's exit status, CMD's output in
# the log
t() {
	local name=$1
	shift
	if "$@" >>"$log" 2>&1; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "'$*' failed, see $log"
	fi
}

# lintian_ok DEB: trixie's lintian finds no error and no warning in DEB
# (every tag it finds, pedantic and info included, goes to the log)
lintian_ok() {
	local out rc
	out=$(in_root "$WORK" lintian --fail-on error,warning -I -E --pedantic "$1" 2>&1)
	rc=$?
	echo "lintian $(in_root "$WORK" dpkg-query -W -f='${Version}' lintian), exit $rc:"
	echo "${out:-no tags}"
	[ "$rc" = 0 ]
}

# dkms_state KREL: what "dkms status" says of the module for KREL
# (installed, built, ... or none)
dkms_state() {
	in_root "$WORK" dkms status -m "$NAME" -k "$1" 2>/dev/null |
		sed -n 's/.*: \([a-z-]*\).*/\1/p' | head -n 1 | grep . || echo none
}

# expect_state KREL STATE: dkms status says STATE for KREL
expect_state() {
	local s
	s=$(dkms_state "$1")
	echo "dkms status for $1: $s"
	[ "$s" = "$2" ]
}

# module_of KREL: the rpcrdma.ko modprobe would load for KREL in $WORK
module_of() { modinfo -b "$WORK" -k "$1" -n rpcrdma 2>/dev/null; }

# ours_for KREL: the module of KREL is ours, in updates/dkms, for KREL,
# built by trixie's gcc-14
ours_for() {
	local f v vm c
	f=$(module_of "$1")
	echo "modinfo -n rpcrdma for $1: $f"
	case "$f" in */updates/dkms/rpcrdma.ko*) ;; *) return 1 ;; esac
	v=$(modinfo -b "$WORK" -k "$1" -F version rpcrdma)
	vm=$(modinfo -b "$WORK" -k "$1" -F vermagic rpcrdma)
	echo "version $v, vermagic $vm"
	[ "$v" = "rfc8797-$ver" ] && [ "${vm%% *}" = "$1" ] || return 1
	c=$(xz -dc -f "$f" | strings | grep -m1 '^GCC: (Debian 14' || true)
	echo "compiler: ${c:-not gcc-14}"
	[ -n "$c" ]
}

# no_module KREL: nothing of ours for KREL
no_module() {
	local f
	f=$(find "$WORK/lib/modules/$1" -path '*/updates/*' -name 'rpcrdma*' 2>/dev/null)
	echo "modules of ours for $1: ${f:-none}"
	[ -z "$f" ]
}

# refused LOG KREL: DKMS said why it did not build for KREL
# (BUILD_EXCLUSIVE: its dkms.conf path names the kernel)
refused() { grep -A2 -F "/$2/" "$1" | grep -q "includes a BUILD_EXCLUSIVE directive"; }

# accepts KREL: the package's dkms.conf lets DKMS build for KREL
accepts() {
	local re
	re=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards '*/dkms.conf' |
		sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p')
	[ -n "$re" ] && [[ $1 =~ $re ]]
}

# logged_in LOGNAME CMD...: CMD in the work root, its output in
# $DIR/LOGNAME.log and appended to the log
logged_in() {
	local l=$DIR/$1$SUF.log rc
	shift
	in_root "$WORK" "$@" >"$l" 2>&1
	rc=$?
	cat "$l" >>"$log"
	return $rc
}
apt_in() { logged_in "$1" apt-get -q -y "${@:2}"; }

configured() { [ "$(in_root "$WORK" dpkg-query -W -f='${db:Status-Abbrev}' "$PKG" 2>/dev/null)" = "ii " ]; }
# not_installed: dpkg knows nothing of the package, or that it is purged
not_installed() {
	local st
	st=$(in_root "$WORK" dpkg-query -W -f='${db:Status-Abbrev}' "$PKG" 2>/dev/null)
	case "$st" in "" | "un "* | "pn "*) true ;; *) echo "dpkg status '$st'"; false ;; esac
}

# purged: apt-get purge removed every trace of the module, for every
# kernel, and modprobe finds the kernel's own rpcrdma again
purged() {
	local k f
	apt_in "$1" purge "$PKG" || return 1
	not_installed || { echo "$PKG still installed"; return 1; }
	f=$(in_root "$WORK" dkms status -m "$NAME") || { echo "dkms status failed"; return 1; }
	[ -z "$f" ] || { echo "dkms status: $f"; return 1; }
	f=$(find "$WORK/lib/modules" -path '*/updates/*' -name 'rpcrdma*')
	[ -z "$f" ] || { echo "left: $f"; return 1; }
	for f in "$WORK/usr/src/$NAME-$ver" "$WORK/var/lib/dkms/$NAME"; do
		[ ! -e "$f" ] || { echo "left: $f"; return 1; }
	done
	for k in "$WORK"/lib/modules/*/kernel; do
		k=${k%/kernel}
		k=${k##*/}
		f=$(module_of "$k")
		echo "modinfo -n rpcrdma for $k: $f"
		case "$f" in */kernel/net/sunrpc/xprtrdma/rpcrdma.ko*) ;; *) return 1 ;; esac
	done
}

# snapshot FILE: every path of the work root but the state apt, dpkg and
# the logs keep of any package operation
snapshot() {
	(cd "$WORK" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
		-o -path ./tmp -o -path ./var/log -o -path ./var/cache -o -path ./var/lib/apt \
		-o -path ./var/lib/dpkg \) -prune -o -print) | sort >"$1"
}

cmd_install() {
	local deb=$1 old new bpo boot start=$SECONDS
	log=$DIR/install$SUF.log
	: >"$log"
	[ -f "$DIR/root.stamp" ] || die "no trixie root: trixie.sh root"
	old=$(stamp old) new=$(stamp new) bpo=$(stamp bpo)
	ver=$(dpkg-deb -f "$deb" Version)
	[ "$(dpkg-deb -f "$deb" Package)" = "$PKG" ] || die "$deb is not $PKG (BASE=$RFC_BASE)"
	exec 9>"$DIR/lock"
	flock -w 3600 9 || die "another trixie.sh holds $DIR/lock"
	rm -rf --one-file-system "$WORK" "$WORK.krel" "$DIR/before$SUF.list" "$DIR/after$SUF.list"
	cp -a "$ROOT" "$WORK"
	cp "$deb" "$WORK/tmp/"
	echo "# trixie: $PKG $ver, dkms $(stamp dkms), kernels $old (installed first), $new (upgrade), backports ${bpo:-none}"

	t "lintian (trixie's): no error, no warning" lintian_ok "/tmp/${deb##*/}"
	# how the base's package meets its kernel (DKMS_TRIXIE_INSTALL)
	case "$DKMS_TRIXIE_INSTALL" in
	upgrade) install_upgrade; boot=$new ;;
	backports) install_backports; boot=$bpo ;;
	*) die "data/bases/$RFC_BASE: DKMS_TRIXIE_INSTALL=$DKMS_TRIXIE_INSTALL: upgrade or backports" ;;
	esac
	[ -n "$boot" ] || { ktap_test_fail "a kernel for the guests" "trixie offers none for $PKG"; ktap_ok; return; }

	# 5. the package again, with dpkg this time, on the machine whose
	# newest kernel is the one it is for: its postinst builds; the
	# guests boot this root
	rm -rf "${WORK:?}$RFC_HARNESS"
	mkdir -p "$WORK$(dirname "$RFC_HARNESS")"
	cp -a "$RFC_HARNESS" "$WORK$RFC_HARNESS"
	snapshot "$DIR/before$SUF.list"
	t "install on $boot: dpkg -i succeeds" logged_in install-new dpkg -i "/tmp/${deb##*/}"
	t "install on $boot: package configured" configured
	t "install on $boot: dkms status installed" expect_state "$boot" installed
	t "install on $boot: modprobe finds ours, built by gcc-14" ours_for "$boot"
	rm -f "$DIR/initramfs$SUF.cpio.gz"
	if ninep_initramfs "$WORK" "$boot" "$DIR/initramfs$SUF.cpio.gz" >>"$log" 2>&1 &&
			[ "$(zcat "$DIR/initramfs$SUF.cpio.gz" | cpio -t --quiet 2>/dev/null | grep -c '^mods/.*\.ko$')" -ge 3 ]; then
		echo "$boot" >"$WORK.krel"
		ktap_test_pass "initramfs of $boot for the guests"
	else
		ktap_test_fail "initramfs of $boot for the guests" "see $log"
	fi
	in_root "$WORK" dkms status | sed 's/^/# trixie dkms status: /'
	modinfo -b "$WORK" -k "$boot" rpcrdma 2>&1 | grep -E '^(filename|version|rfc8797_[a-z_]*|vermagic|srcversion):' |
		sed "s/^/# trixie modinfo rpcrdma ($boot): /"
	echo "# trixie install: $((SECONDS - start)) s"
	ktap_ok
}

# install_upgrade: steps 1 to 4 of a package that trixie's kernel
# accepts (6.12's; above), DKMS_TRIXIE_INSTALL=upgrade
install_upgrade() {

	# 1. the package on a machine that runs the oldest 6.12: the module's
	# sources are newer than that kernel's sunrpc, DKMS refuses
	if [ "$old" != "$new" ]; then
		t "install on $old: apt-get install succeeds" apt_in install-old install \
			--no-install-recommends "/tmp/${deb##*/}"
		t "install on $old: package configured" configured
		if accepts "$old"; then
			# trixie's oldest 6.12 is new enough for the module
			t "install on $old: dkms status installed" expect_state "$old" installed
		else
			t "install on $old: DKMS says why it does not build" \
				refused "$DIR/install-old.log" "$old"
			t "install on $old: no module" no_module "$old"
		fi
		# 2. the kernel upgrade: DKMS's hook builds for the new kernel
		t "upgrade to $new: apt-get install linux-image-amd64 linux-headers-amd64" \
			apt_in upgrade install linux-image-amd64 linux-headers-amd64
		t "upgrade to $new: dkms status installed" expect_state "$new" installed
		t "upgrade to $new: modprobe finds ours, built by gcc-14" ours_for "$new"
		accepts "$old" || t "upgrade to $new: still nothing for $old" no_module "$old"
	else
		ktap_test_skip "install on an older 6.12" "trixie offers one 6.12 ($new)"
		ktap_test_skip "upgrade within 6.12" "trixie offers one 6.12 ($new)"
	fi
	# 3. a kernel that is not 6.12
	if [ -n "$bpo" ]; then
		t "headers of $bpo (backports): apt-get install succeeds" \
			apt_in bpo install -t trixie-backports "linux-headers-$bpo"
		t "headers of $bpo: DKMS says why it does not build" refused "$DIR/bpo.log" "$bpo"
		t "headers of $bpo: no module" no_module "$bpo"
	else
		ktap_test_skip "a kernel that is not 6.12" "trixie-backports offers none"
	fi
	# 4. purge after the upgrade
	t "purge after the upgrade: nothing left for any kernel" purged purge-upgrade
}

# install_backports: steps 1 to 3 of a package for the backports
# kernel (7.3's; above), DKMS_TRIXIE_INSTALL=backports
install_backports() {
	if [ -z "$bpo" ]; then
		ktap_test_fail "a backports kernel" "trixie-backports offers no kernel that is not 6.12"
		return
	fi
	# 1. the package on a machine that runs trixie's 6.12: not 7.3,
	# DKMS refuses, the package is configured all the same
	t "install on $old: apt-get install succeeds" apt_in install-old install \
		--no-install-recommends "/tmp/${deb##*/}"
	t "install on $old: package configured" configured
	t "install on $old: DKMS says why it does not build" refused "$DIR/install-old$SUF.log" "$old"
	t "install on $old: no module" no_module "$old"
	# 2. the kernel upgrade to backports: DKMS's hook builds for it
	t "upgrade to $bpo: apt-get install -t trixie-backports linux-image-amd64 linux-headers-amd64" \
		apt_in upgrade install -t trixie-backports linux-image-amd64 linux-headers-amd64
	t "upgrade to $bpo: dkms status installed" expect_state "$bpo" installed
	t "upgrade to $bpo: modprobe finds ours, built by gcc-14" ours_for "$bpo"
	t "upgrade to $bpo: still nothing for $old" no_module "$old"
	# 3. purge after the upgrade
	t "purge after the upgrade: nothing left for any kernel" purged purge-upgrade
}

# Files the purge may leave, with the reason: DKMS's module signing key
# (made at its first build, kept for every later module: it is the key
# an administrator enrols as a Machine Owner Key)
KEEP='^\./var/lib/dkms(/mok\.(key|pub))?$'

cmd_purge() {
	local left
	log=$DIR/purge$SUF.log
	: >"$log"
	exec 9>"$DIR/lock"
	flock -w 3600 9 || die "another trixie.sh holds $DIR/lock"
	[ -f "$DIR/before$SUF.list" ] || die "no installed work root: trixie.sh install DEB"
	ver=$(in_root "$WORK" dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) ||
		die "$PKG is not installed in $WORK"
	t "purge: nothing of the module left for any kernel" purged purge
	snapshot "$DIR/after$SUF.list"
	left=$(comm -13 "$DIR/before$SUF.list" "$DIR/after$SUF.list" | grep -vE "$KEEP" || true)
	if [ -z "$left" ]; then
		ktap_test_pass "purge: the root holds what it held before the install"
	else
		ktap_test_fail "purge: the root holds what it held before the install" \
			"left: $(echo "$left" | head -n 5 | tr '\n' ' ')"
	fi
	left=$(comm -23 "$DIR/before$SUF.list" "$DIR/after$SUF.list" || true)
	if [ -z "$left" ]; then
		ktap_test_pass "purge: nothing of the machine's own removed"
	else
		ktap_test_fail "purge: nothing of the machine's own removed" \
			"gone: $(echo "$left" | head -n 5 | tr '\n' ' ')"
	fi
	ktap_ok
}

case "${1:-}" in
root) cmd_root ;;
install) [ $# = 2 ] || die "usage: $0 install DEB"; ktap_print_header; cmd_install "$(realpath "$2")" ;;
purge) ktap_print_header; cmd_purge ;;
*) echo "usage: $0 root|install DEB|purge" >&2; exit 2 ;;
esac
