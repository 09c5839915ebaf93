#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the harness needs on Debian bookworm (as root).  Quick
# when everything is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

# The base's source is installed when the base is the pin and the
# machine's own suites offer it (no BASE_SUITES); any other base
# (RFC8797_BASE_VERSION, the fallback when Debian no longer offers the
# pin, a base of other suites) is downloaded into the cache by tree.sh,
# never installed.
src=()
[ -n "$BASE_SUITES" ] || [ "$BASE_PKG_VERSION" != "$BASE_PIN" ] || src=("$BASE_SRC=$BASE_PKG_VERSION")
pkgs=(
	"${src[@]}"
	build-essential flex bison bc libelf-dev libssl-dev dwarves ccache sparse python3 python3-ply python3-git
	# the kernel build's awk from the first build on: fstests needs
	# gawk, and its install turns "awk" from mawk to gawk, whose
	# cpufeaturemasks.h (arch/x86/tools/cpufeaturemasks.awk) lists the
	# same masks in another order: every object that includes it was
	# then built again, ccache missing (2026-12-02: 1690 objects
	# compiled in 529 s)
	gawk
	python3-yaml	# the kernel's YNL library (guest/conns.py: nfsd's rdma-conn-get)
	qemu-system-x86 busybox-static cpio xz-utils kmod iproute2
	qemu-user	# bench/insn-selftest.sh: the insn-count plugin under qemu-x86_64
	rdma-core ibverbs-utils rdmacm-utils librdmacm-dev libibverbs-dev
	nfs-kernel-server nfs-common rpcbind fio
	clang libclang-rt-14-dev
	tshark
	python3-matplotlib	# the plots of make bench (bench/report.py, bench/scale.py)
)
# "deps.sh dkms" (make dkms, check.sh dkms): the packaging tools and
# the headers of the stock kernel the guests boot and of every kernel in
# DKMS_KRELS, besides
if [ "${1:-}" = dkms ] || [ "${1:-}" = trixie ]; then
	pkgs+=(dkms debhelper dh-dkms "linux-headers-$STOCK_KREL")
	for k in ${DKMS_KRELS:-}; do
		pkgs+=("linux-headers-$k")
	done
fi
# "deps.sh nfstest" (make nfstest, check.sh nfstest): nfstest, the
# pinned version of trixie (below), and what it runs (its traces,
# nfstest_rdma's basic05: nfs4_getfacl)
[ "${1:-}" != nfstest ] || pkgs+=("nfstest=$NFSTEST_PIN" tcpdump nfs4-acl-tools)
# "deps.sh fstests" (make fstests, check.sh fstests): fstests' build
# dependencies (its README), and the tools its tests run in the guest,
# which uses the host's userland
[ "${1:-}" != fstests ] || pkgs+=(autoconf automake libtool xfslibs-dev uuid-dev
	libacl1-dev libattr1-dev libaio-dev liburing-dev libgdbm-dev libcap-dev
	xfsprogs attr acl quota gawk psmisc indent pkg-config)
# "deps.sh bench" (make bench): perftest, for the link's limit
[ "${1:-}" != bench ] || pkgs+=(perftest)
# "deps.sh trixie" (check.sh trixie): the package's build tools, and
# debootstrap for the trixie root (trixie.sh)
[ "${1:-}" != trixie ] || pkgs+=(debootstrap)
missing=()
for p in "${pkgs[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"install ok installed $want"|"install ok installed "*)
		[ "$want" = "$p" ] || [ "${have##* }" = "$want" ] || missing+=("$p") ;;
	*) missing+=("$p") ;;
	esac
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run as root to install them"
	# nfstest is not in bookworm: trixie's, downloaded through a private
	# source list (apt_private) and installed as a file, its dependencies
	# from the machine's own suites (architecture all)
	for i in "${!missing[@]}"; do
		[ "${missing[i]}" = "nfstest=$NFSTEST_PIN" ] || continue
		d=$CACHE_ROOT/apt-$NFSTEST_SUITE/debs
		mkdir -p "$d"
		[ -f "$d/nfstest_${NFSTEST_PIN}_all.deb" ] ||
			(cd "$d" && apt_private "$CACHE_ROOT/apt-$NFSTEST_SUITE" deb "$NFSTEST_SUITE" \
				apt-get download -q "nfstest=$NFSTEST_PIN" >/dev/null) ||
			die "apt-get download nfstest=$NFSTEST_PIN from $NFSTEST_SUITE failed"
		missing[i]=$d/nfstest_${NFSTEST_PIN}_all.deb
	done
	msg "installing ${#missing[@]} packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# another apt or dpkg running: wait for it, up to 10 minutes
	apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/rfc8797-apt.log" 2>&1 ||
		{ tail -n 20 "${TMPDIR:-/tmp}/rfc8797-apt.log"; die "apt-get install failed"; }
fi
[ "$BASE_PKG_VERSION" = "$BASE_PIN" ] || msg "$(base_note)"
# The host's NFS services are not used; the guests start their own.
exit 0
