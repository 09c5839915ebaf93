# SPDX-License-Identifier: GPL-2.0
# Common settings for the rfc8797 harness scripts.  Sourced, not run:
# sourcing defines functions and the data files' schemas, then runs the
# one loader, harness_load (at the end), which reads the data (the
# base's file of data/bases/, harness.conf); a script then calls harness_env
# (resolve_base calls it), which checks RFC8797_BASE and exports what
# the tools it runs need.

RFC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
RFC_HARNESS=$RFC_TOP/tools/testing/rfc8797

# A base is a file of data/bases/ (KEY=value, HARNESS.rst "Bases"):
# Debian's kernel source package it starts from, the series and config
# fragment applied to it, its DKMS package, its stages and interop
# cells.  The keys a variable of the environment overrides (HARNESS.rst)
BASE_ENV_KEYS="MAKE_CHECK_STAGES FSTESTS_SMOKE E2E_SIW_TESTS"
BASE_KEYS="BASE_PURPOSE BASE_SRC BASE_PIN BASE_SUITES BASE_FAMILY BASE_SERIES BASE_CONFIG BASE_OVERLAY
	BASE_DEBIAN_KERNEL STOCK_BASE DKMS_NAME DKMS_LINE DKMS_MIN_SUBLEVEL DKMS_OLDEST_FLAVOUR
	DKMS_SYNOPSIS DKMS_KERNELS DKMS_OTHER DKMS_STOCK_KERNEL DKMS_TRIXIE_KERNEL
	DKMS_TRIXIE_INSTALL DKMS_TRIXIE_TESTS DKMS_TRIXIE_CELLS DKMS_VIEWS CHECK_STAGES
	MAKE_CHECK MAKE_CHECK_STAGES LONG_CHECK_STAGES E2E_SIW_TESTS SCALE_SIW_RUNS FSTESTS_KERNEL FSTESTS_SMOKE NFSTEST_KERNEL
	INTEROP_QUICK_CELLS INTEROP_FULL_CELLS BENCH_SQ_SPIN"

# base_file NAME: the file of the base NAME; fails when there is none
base_file() {
	case "$1" in
	"" | */* | .*) return 1 ;;
	esac
	[ -f "$BASES_DIR/$1" ] && echo "$BASES_DIR/$1"
}

# base_value NAME KEY: KEY of the base NAME as its file says
base_value() {
	local f
	f=$(base_file "$1") || return 1
	# (none of the current base's values: a key NAME lacks stays empty)
	# shellcheck disable=SC2086,SC1090	# BASE_KEYS is a list of words
	(unset $BASE_KEYS; . "$f" && printf '%s\n' "${!2-}")
}

# base_with KEY VALUE: the first base whose KEY is VALUE
base_with() {
	local b
	for b in $(base_names); do
		[ "$(base_value "$b" "$1")" != "$2" ] || { echo "$b"; return 0; }
	done
	return 1
}

# base_names [check]: every base, or with "check" those of make check's
# default (MAKE_CHECK set), in that order
# shellcheck disable=SC2120	# the Makefile passes "check"
base_names() {
	local f n
	for f in "$BASES_DIR"/*; do
		n=${f##*/}
		base_file "$n" >/dev/null || continue
		if [ "${1:-}" = check ]; then
			n="$(base_value "$n" MAKE_CHECK) $n"
			[ "${n%% *}" != "" ] || continue
		else
			n="0 $n"
		fi
		echo "$n"
	done | sort -k1,1n -k2 | cut -d' ' -f2
}

# load_base: the settings of RFC_BASE's file, where BASE_ENV_KEYS keep a
# value set, and not empty, in the environment (BASE_FROM_ENV lists
# those keys); BASE_SRC stays empty (harness_env then refuses) when the
# file is missing or lacks a key
load_base() {
	local f k v
	local -a keep=()
	BASE_SRC="" BASE_FROM_ENV=" "
	f=$(base_file "$RFC_BASE") || return 0
	for k in $BASE_ENV_KEYS; do
		[ -z "${!k:-}" ] || { keep+=("$k=${!k}"); BASE_FROM_ENV+="$k "; }
	done
	# (a key the file lacks is missing, whatever the environment holds)
	# shellcheck disable=SC2086	# a list of words
	unset $BASE_KEYS
	# shellcheck source=/dev/null
	. "$f"
	for v in "${keep[@]}"; do
		printf -v "${v%%=*}" '%s' "${v#*=}"
		export "${v%%=*}"
	done
	for k in $BASE_KEYS; do
		[ -n "${!k+x}" ] || { BASE_MISSING=$k BASE_SRC=""; return 0; }
	done
	BASE_PIN=${RFC8797_BASE_PIN:-$BASE_PIN}
	# the headers the dkms stage also builds the package against: the
	# oldest kernel it accepts, of the flavour the base names
	DKMS_KRELS=${DKMS_KRELS-${DKMS_OLDEST_FLAVOUR:+$DKMS_LINE.$DKMS_MIN_SUBLEVEL$DKMS_OLDEST_FLAVOUR}}
	DKMS_PKG=$DKMS_NAME-dkms
}
# the harness's own pins and budgets (nfstest's, the Debian retries):
# harness.conf's plain KEY=value lines, unless the environment sets the
# key to something
load_conf() {
	local k v
	while IFS='=' read -r k v; do
		[[ "$k" =~ ^[A-Z][A-Z_0-9]*$ ]] || continue
		[ -n "${!k:-}" ] || printf -v "$k" '%s' "$v"
	done <"$RFC_HARNESS/data/harness.conf"
}

# The kernels a guest boots (guest.sh --kernel NAME) are the files of
# data/kernels/, one each, in the way kunit.py's qemu_configs describes its
# machines (KEY=value lines, HARNESS.rst "Kernels"); ours-BASE is every
# base's test kernel; any other NAME is the path of a kernel image
# booted like "ours".
KERNELS_DIR=$RFC_HARNESS/data/kernels
K_KEYS="ROOT RPCRDMA DEBIAN FETCH IMAGE INITRD MODULES MAKE TREE ON DIR DEB_VERSION KREL PKGS SUITES SUFFIX"

# kernel_row NAME: sets K_KEY for every KEY of K_KEYS to NAME's value as
# its file writes it (empty when it has none; the value of the kernel it
# boots ON, when it names one); fails for a NAME that is not there
kernel_row() {
	local k def f=$KERNELS_DIR/$1
	for k in $K_KEYS; do
		printf -v "K_$k" '%s' ""
	done
	if [[ "$1" == ours-* ]] && base_file "${1#ours-}" >/dev/null; then
		kernel_row ours || return 1
		# shellcheck disable=SC2034	# the caller's
		K_IMAGE="\$CACHE_ROOT/${1#ours-}/build/main/arch/x86/boot/bzImage" \
			K_MAKE="make build BASE=${1#ours-}" K_TREE="\$CACHE_ROOT/${1#ours-}/tree"
		return 0
	fi
	case "$1" in
	"" | */* | .*) return 1 ;;
	esac
	[ -f "$f" ] || return 1
	def=$(sed -n 's/^\([A-Z][A-Z_0-9]*\)=/K_\1=/p' "$f")
	eval "$def"
	# a kernel ON another: that one's values, under its own
	if [ -n "$K_ON" ]; then
		kernel_row "$K_ON" || return 1
		eval "$def"
	fi
}

# kernel_info NAME: kernel_row, with the variables of its values
# expanded (they need resolve_base's STOCK_KREL)
kernel_info() {
	local k
	kernel_row "$1" || return 1
	# the values the others may name ($K_DIR, $K_KREL) first
	for k in DIR DEB_VERSION KREL $K_KEYS; do
		k=K_$k
		eval "$k=\"${!k}\""
	done
}

# kernel_is NAME KEY=VALUE: NAME's file of data/kernels/ has that value, as
# written (kernel_is K rpcrdma=ours, kernel_is K debian=yes, kernel_is
# K fetch=dkms); an image path is one of ours, not Debian's
kernel_is() {
	# every K_ variable kernel_row sets stays local
	# shellcheck disable=SC2046,SC2086	# a list of names
	local k $(printf 'K_%s ' $K_KEYS)
	k=${2%%=*}
	k=K_${k^^}
	[[ " $K_KEYS " == *" ${k#K_} "* ]] || die "kernel_is: no key ${2%%=*}"
	kernel_row "$1" || kernel_row ours
	[ "${!k}" = "${2#*=}" ]
}

# debian_mirror: the URI of the Debian mirror the machine's apt
# configuration uses for its own suite (the registry's host name is
# never written into the repository)
debian_mirror() {
	local codename uri
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
		awk -v c="$codename" '$2 == c { print $1; exit }')
	[ -n "$uri" ] || { echo "error: no Debian mirror for suite '$codename' in the apt configuration" >&2; return 1; }
	echo "$uri"
}

# apt_private DIR TYPE SUITES apt-get|apt-cache ARGS: apt with a private
# source list of TYPE (deb or deb-src) lines for SUITES on the machine's
# own Debian mirror (read from its apt configuration) and private lists
# in DIR: the machine's apt configuration is not changed.  The list is
# written again when TYPE or SUITES change; the lists are read once a day.
apt_private() {
	local d=$1 type=$2 suites=$3 tool=$4 uri s
	shift 4
	if [ ! -f "$d/sources.list" ] || [ "$(cat "$d/suites" 2>/dev/null)" != "$type $suites" ]; then
		uri=$(debian_mirror) || return 1
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
		for s in $suites; do
			echo "$type [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
		done >"$d/sources.list.tmp"
		mv "$d/sources.list.tmp" "$d/sources.list"
		echo "$type $suites" >"$d/suites"
		rm -f "$d/updated"
	fi
	local o=(-o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=-
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o APT::Sandbox::User=root)
	if [ -z "$(find "$d/updated" -mmin -1440 2>/dev/null)" ]; then
		timeout 600 apt-get -q "${o[@]}" update >/dev/null 2>&1 ||
			{ echo "error: apt-get update of $type $suites failed" >&2; return 1; }
		touch "$d/updated"
	fi
	timeout 1800 "$tool" "${o[@]}" "$@"
}

# sapt apt-get|apt-cache ARGS: apt with the machine's own sources, or,
# for a base from other suites, with a private source list of those
# suites (apt_private, lists in $CACHE_ROOT/apt).
sapt() {
	local tool=$1
	shift
	if [ -z "$BASE_SUITES" ]; then
		timeout 1800 "$tool" -o APT::Sandbox::User=root "$@"
		return
	fi
	apt_private "$CACHE_ROOT/apt" deb "$BASE_SUITES" "$tool" "$@"
}

# offered PKG: the versions of PKG apt offers, newest first
offered() {
	sapt apt-cache madison "$1" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u -V -r
}

# resolve_base: the base actually used, resolved once per run (and
# passed on to the scripts the run starts through RFC8797_BASE_RESOLVED,
# as "package=version"); scripts that need it call it (it may ask apt):
#  1. RFC8797_BASE_VERSION, when set: a full Debian version, or an
#     upstream one such as 6.12.115 that apt resolves to its build;
#  2. else the pin, when it is installed, already downloaded, or offered;
#  3. else the newest package of the base's family that apt offers
#     (linux-source-6.12; on mainline the newest linux-source-7.N of
#     trixie-backports, experimental and sid), which base_note reports loudly.
# Sets BASE_SRC, BASE_PKG_VERSION, BASE_TAG and the stock kernel's
# STOCK_PKG_VERSION and STOCK_KREL.
resolve_base() {
	harness_env || return 1
	local v p
	if [ -z "${RFC8797_BASE_RESOLVED:-}" ] || [ "${RFC8797_BASE_RESOLVED_FOR:-}" != "$RFC_BASE" ]; then
		if [ -n "${RFC8797_BASE_VERSION:-}" ]; then
			case "$RFC8797_BASE_VERSION" in
			*-*) v=$RFC8797_BASE_VERSION ;;
			*) v=$(offered "$BASE_SRC" |
				awk -v v="$RFC8797_BASE_VERSION-" 'index($0, v) == 1 { print; exit }') ;;
			esac
			[ -n "$v" ] || {
				echo "error: RFC8797_BASE_VERSION=$RFC8797_BASE_VERSION: apt offers no such $BASE_SRC" >&2
				return 1
			}
			RFC8797_BASE_RESOLVED=$BASE_SRC=$v
		elif [ "$(dpkg-query -W -f='${Version}' "$BASE_SRC" 2>/dev/null)" = "$BASE_PIN" ] ||
				[ -f "$CACHE/src/${BASE_SRC}_$BASE_PIN.tar.xz" ] ||
				offered "$BASE_SRC" | grep -qxF "$BASE_PIN"; then
			RFC8797_BASE_RESOLVED=$BASE_SRC=$BASE_PIN
		else
			p=$(sapt apt-cache pkgnames linux-source- 2>/dev/null | grep -xE "$BASE_FAMILY" | sort -V -r | head -n 1)
			v=$([ -z "$p" ] || offered "$p" | head -n 1)
			[ -n "$v" ] || {
				echo "error: the pinned $BASE_SRC=$BASE_PIN is gone and apt offers no other (apt-get update?)" >&2
				return 1
			}
			RFC8797_BASE_RESOLVED=$p=$v
		fi
		RFC8797_BASE_RESOLVED_FOR=$RFC_BASE
		export RFC8797_BASE_RESOLVED RFC8797_BASE_RESOLVED_FOR
	fi
	BASE_SRC=${RFC8797_BASE_RESOLVED%%=*}
	BASE_PKG_VERSION=${RFC8797_BASE_RESOLVED#*=}
	BASE_TAG=base-${BASE_PKG_VERSION//\~/_}
	# the upstream release Debian packaged (7.3.4-1~bpo13+1 -> v7.3.4,
	# 7.3~rc7-1~exp1 -> v7.3-rc7): the postings' base.  Debian's source
	# carries no commit ID; BASE_UPSTREAM_COMMIT, when set, is written
	# as the postings' base-commit.
	BASE_UPSTREAM=${BASE_PKG_VERSION%%-*}
	BASE_UPSTREAM=v${BASE_UPSTREAM/\~/-}
	# The stock kernel: Debian's build of STOCK_BASE at its pin, or of
	# this base as resolved when it is STOCK_BASE
	# (6.12.115-2~deb12u1 -> 6.12.115+deb12-amd64)
	STOCK_PKG_VERSION=$STOCK_PIN
	[ "$STOCK_BASE" != "$RFC_BASE" ] || STOCK_PKG_VERSION=$BASE_PKG_VERSION
	STOCK_KREL=${STOCK_PKG_VERSION%%-*}+$(echo "$STOCK_PKG_VERSION" | sed -n 's/.*~\(deb[0-9]*\)u[0-9]*$/\1/p')-amd64
}

# base_tarball: the linux-source tarball of the base: the installed
# package's when it is that version, else one downloaded into $CACHE/src
# with apt-get download (never installed: the host's package stays)
base_tarball() {
	local t=$CACHE/src/${BASE_SRC}_$BASE_PKG_VERSION.tar.xz d
	if [ "$(dpkg-query -W -f='${Version}' "$BASE_SRC" 2>/dev/null)" = "$BASE_PKG_VERSION" ] &&
			[ -f "/usr/src/$BASE_SRC.tar.xz" ]; then
		echo "/usr/src/$BASE_SRC.tar.xz"
		return
	fi
	if [ ! -f "$t" ]; then
		mkdir -p "$CACHE/src"
		d=$(mktemp -d "$CACHE/src/dl.XXXXXX")
		msg "downloading $BASE_SRC=$BASE_PKG_VERSION (not installed; kept in $CACHE/src)"
		(cd "$d" && sapt apt-get download -q "$BASE_SRC=$BASE_PKG_VERSION" >/dev/null) ||
			{ rm -rf "$d"; die "apt-get download $BASE_SRC=$BASE_PKG_VERSION failed"; }
		dpkg-deb --fsys-tarfile "$d/${BASE_SRC}"_*.deb |
			tar -xO "./usr/src/$BASE_SRC.tar.xz" >"$d/src.tar.xz" ||
			{ rm -rf "$d"; die "no $BASE_SRC.tar.xz in the downloaded package"; }
		mv "$d/src.tar.xz" "$t"
		rm -rf "$d"
	fi
	echo "$t"
}

# base_note: one line saying which base this run uses and whether it is
# the tested one
base_note() {
	local b="base $RFC_BASE: $BASE_SRC $BASE_PKG_VERSION"
	if [ "$BASE_PKG_VERSION" = "$BASE_PIN" ]; then
		echo "$b (the pinned, tested base)"
	elif [ -n "${RFC8797_BASE_VERSION:-}" ]; then
		echo "$b (RFC8797_BASE_VERSION; NOT the tested base $BASE_PIN)"
	else
		echo "$b (FALLBACK: the pinned $BASE_PIN is no longer offered; NOT the tested base)"
	fi
}

# harness_env: fails on an RFC8797_BASE that is neither base; exports
# the base for the scripts this one runs, one compiler cache for every
# tree (paths made relative, so that a second tree laid out like the
# first, $X/tree + $X/build/main, hits it), and a PATH with Debian's
# tools first (the kernel scripts want its python3-ply and -git)
harness_env() {
	if [ -z "$BASE_SRC" ]; then
		if [ -n "${BASE_MISSING:-}" ]; then
			echo "error: $BASES_DIR/$RFC_BASE has no $BASE_MISSING" >&2
		else
			echo "error: RFC8797_BASE=$RFC_BASE: no such base; bases: $(base_names | tr '\n' ' ')" >&2
		fi
		return 1
	fi
	# the per-base variables that the files of data/bases/ replaced
	[ -z "${CHECK_STAGES_6_12+x}${FSTESTS_SMOKE_6_12+x}${TRIXIE73_INTEROP_CELLS+x}${DKMS_MIN_SUBLEVEL_7_3+x}" ] || {
		echo "error: CHECK_STAGES_6_12, FSTESTS_SMOKE_6_12, TRIXIE73_INTEROP_CELLS and DKMS_MIN_SUBLEVEL_7_3 are gone: MAKE_CHECK_STAGES, FSTESTS_SMOKE and TRIXIE_INTEROP_CELLS (with BASE=), or the base's file, data/bases/BASE (make help)" >&2
		return 1
	}
	export RFC8797_BASE=$RFC_BASE
	export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rfc8797-ccache}
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	case ":$PATH:" in
	:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:*) ;;
	*) export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH ;;
	esac
}

# kmake OUTDIR MAKE-ARGS...: make in the prepared tree (KSRC=DIR: in
# that source instead) with its output in OUTDIR, through ccache, with
# fixed build identity (reproducible images)
kmake() {
	local out=$1
	shift
	make -C "${KSRC:-$TREE}" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="rfc8797" KBUILD_BUILD_USER=rfc8797 \
		KBUILD_BUILD_HOST=rfc8797 "$@"
}

msg() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# what the guests' library shares: the KTAP writer (ktap.sh), slowwait,
# wait_timeout, field, the crash detector
. "$RFC_HARNESS/common.sh"
# ktap_flat FILE...: the results of KTAP files as the one reader, ktap.py,
# reads them: "ok NAME", "ok NAME # SKIP WHY", "not ok NAME # WHY" (a
# missing file, a test that stopped early or missed its plan: "not ok")
ktap_flat() { python3 "$RFC_HARNESS/ktap.py" "$@"; }
# ktap_failures FILE...: the failed ones, "NAME # WHY"
ktap_failures() { ktap_flat "$@" | sed -n 's/^not ok //p'; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# run_logged LOG DESC CMD...: run CMD with its output in LOG, print the
# elapsed time every 30 s and the last line of the log, fail with the
# log's tail if CMD fails.
run_logged() {
	local log=$1 desc=$2 start pid rc
	shift 2
	start=$SECONDS
	msg "$desc (log: $log)"
	"$@" >"$log" 2>&1 &
	pid=$!
	while ! wait_timeout "$pid" 30; do
		msg "  ... $desc: $((SECONDS - start)) s, $(tail -n 1 "$log" | cut -c1-100)"
	done
	wait "$pid"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		die "$desc failed (exit $rc), full log: $log"
	fi
	msg "$desc: done in $((SECONDS - start)) s"
}


# ninep_initramfs ROOT KREL OUT: the initramfs of a Debian kernel for the
# guest runner, written to OUT: busybox, the 9p and overlay modules of
# ROOT/lib/modules/KREL (decompressed: busybox insmod reads no .ko.xz)
# in dependency order, and guest/initramfs-init as its /init
ninep_initramfs() {
	local root=$1 krel=$2 ird m n=0 out a
	ird=$(mktemp -d)
	mkdir -p "$ird/bin" "$ird/mods" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/newroot" &&
		cp /bin/busybox "$ird/bin/busybox" || { rm -rf "$ird"; return 1; }
	for a in sh mount insmod mkdir switch_root sleep cat; do
		ln -s busybox "$ird/bin/$a"
	done
	: >"$ird/mods/order"
	for m in $(modprobe -S "$krel" -d "$root" --show-depends -a 9pnet_virtio 9p overlay |
			awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		n=$((n + 1))
		out=$(printf '%02d-%s' "$n" "$(basename "${m%.*}")")
		case "$m" in
		*.ko.xz) xz -dc "$m" ;;
		*.ko.zst) zstd -q -dc "$m" ;;
		*) cat "$m" ;;
		esac >"$ird/mods/${out%.ko}.ko" || { rm -rf "$ird"; return 1; }
		echo "${out%.ko}.ko" >>"$ird/mods/order"
	done
	[ "$n" -gt 0 ] || { rm -rf "$ird"; echo "error: no 9p modules for $krel in $root" >&2; return 1; }
	cp "$RFC_HARNESS/guest/initramfs-init" "$ird/init"
	chmod +x "$ird/init"
	(set -o pipefail; cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$3.tmp" &&
		mv "$3.tmp" "$3"
	a=$?
	rm -rf "$ird" "$3.tmp"
	return $a
}

# check_inject: die unless RFC8797_INJECT is empty or a value of
# inject.list (a misspelt value would otherwise break nothing and
# prove nothing)
check_inject() {
	local v=${RFC8797_INJECT:-}
	[ -z "$v" ] && return 0
	awk -F'\t' -v v="$v" '!/^#/ && $1 == v { found = 1 } END { exit !found }' \
		"$RFC_HARNESS/data/inject.list" ||
		die "RFC8797_INJECT=$v: not one of $(awk -F'\t' '!/^#/ { printf "%s ", $1 }' "$RFC_HARNESS/data/inject.list")(see make help)"
}

# crash_of DIR ROLE: the first crash line on the console of the guest
# ROLE of a two-guest.sh run in DIR (nothing when it did not crash, or
# when it reached its time limit: the panic on its console is then the
# NMI guest.sh sent it to learn where it was, hang_dump)
crash_of() {
	[ ! -e "$1/$2/time-limit" ] || return 0
	grep -a -m1 -E "$CRASH_RE" \
		"$1/$2/console.log" 2>/dev/null | sed 's/^\[ *[0-9.]*\] //' | tr -d '\r'
}

# guest_trouble DIR ROLE: what went wrong with the guest ROLE of an
# two-guest.sh run in DIR other than a failed test, nothing when nothing
# did: a crash on its console, a process of it killed by a fault, a
# debug exception in kernel mode (QEMU's, see below), or a
# guest that ended without an exit status (QEMU gone: a triple fault
# prints nothing) or at its time limit (two-guest.sh keeps guest.sh's exit
# code in DIR/ROLE.exit, and leaves DIR/ROLE.stopped when it stopped the
# guest because the other one had ended: that is not this guest's fault)
guest_trouble() {
	local c
	c=$(crash_of "$1" "$2")
	[ -n "$c" ] || c=$(grep -a -h -m1 -o 'traps: .*general protection fault.*' \
		"$1/$2/console.log" "$1/$2/tests.ktap" 2>/dev/null | head -n 1)
	if [ -n "$c" ]; then
		echo "crashed: $c"
		return
	fi
	# a #DB in kernel mode with the trap flag set, which QEMU's TCG
	# delivers to Debian's kernel now and then (twice in two full
	# benches, in rxe's work items): WARNING in exc_debug_kernel
	c=$(grep -a -h -m1 -o 'WARNING: .* exc_debug_kernel[^ ]*' \
		"$1/$2/dmesg.txt" "$1/$2/tests.ktap" 2>/dev/null | head -n 1)
	if [ -n "$c" ]; then
		echo "a debug exception in kernel mode: $c"
		return
	fi
	[ -e "$1/$2.stopped" ] && return
	case "$(cat "$1/$2.exit" 2>/dev/null)" in
	125) echo "died without an exit status and without a crash on its console" \
		"(last line: $(tr -d '\r' <"$1/$2/console.log" 2>/dev/null | grep -a . | tail -n 1 | head -c 160))" ;;
	124) echo "reached its time limit" ;;
	esac
}

# is_debian_stock KERNEL: KERNEL (a guest.sh --kernel) is one of
# Debian's own kernels with nothing of ours (data/kernels/): stock (6.12) or
# stock-7.3
is_debian_stock() { kernel_is "$1" debian=yes && kernel_is "$1" rpcrdma=stock; }

# debian_boot_crash GUEST_DIR KERNEL: prints the crash (crash_of) of the
# guest whose folder is GUEST_DIR, and succeeds, when KERNEL is one of
# Debian's own (data/kernels/: DEBIAN=yes, with our DKMS module or without),
# the guest crashed before its job wrote a result and no crash report on
# its console lists our rpcrdma.ko among the loaded modules.  Debian's
# 6.12 has double-faulted under TCG in an initcall 0.8 s into its boot
# (kmem_cache_alloc_node_noprof), and taken an int3 it had just patched
# away 1.4 s into it (sched_clock_cpu, a static key), before any test.
debian_boot_crash() {
	local c
	kernel_is "$2" debian=yes || return 1
	[ ! -s "$1/tests.ktap" ] || return 1
	c=$(crash_of "${1%/*}" "${1##*/}")
	[ -n "$c" ] || return 1
	! grep -a -q -E 'Modules linked in:.*rpcrdma' "$1/console.log" || return 1
	echo "$c"
}

# stock_trouble DIR SERVER_KERNEL CLIENT_KERNEL: prints "ROLE: TROUBLE"
# and succeeds when a guest of a two-guest.sh run in DIR on Debian's
# kernel had trouble that was not ours and the other guest had none.
# Such a run may be repeated (debian_retry): Debian's stock kernel
# crashes under TCG with two guests busy (rxe list corruption, a double
# fault, a triple fault, a GPF in libc, a debug exception in kernel
# mode), and Debian's kernel with our DKMS module (dkms, trixie) at boot
# as debian_boot_crash says.  Any other trouble of a guest running our
# rpcrdma.ko is never retried.  Debian's 7.3 (stock-7.3) gets the same
# policy as its 6.12: the same configuration style (modules, hardening,
# mitigations) under the same TCG.
stock_trouble() {
	local role k t c ours="" found=""
	for role in server client; do
		[ "$role" = server ] && k=$2 || k=$3
		t=$(guest_trouble "$1" "$role")
		[ -n "$t" ] || continue
		if is_debian_stock "$k"; then
			found="$role: $t"
		elif c=$(debian_boot_crash "$1/$role" "$k"); then
			found="$role: crashed at boot with no module of ours loaded: $c"
		else
			ours=$role
		fi
	done
	[ -n "$found" ] && [ -z "$ours" ] && echo "$found"
}

# loop_trouble_of KERNEL DIR: what spoiled the loop boot (one guest both
# client and server, the bench's cost rounds) of Debian's KERNEL in DIR
# (guest_trouble), in the form retry_spoiled calls; nothing for our
# kernels, which are never run again
loop_trouble_of() {
	local t
	is_debian_stock "$1" || return 1
	t=$(guest_trouble "$2" client)
	[ -n "$t" ] && echo "the stock loop guest $t"
}

# boot_trouble_of KERNEL DIR: debian_boot_crash, in the form
# retry_spoiled calls, for a single guest whose folder is DIR on KERNEL
# (check.sh's guests on Debian's kernel: dkms, trixie)
boot_trouble_of() {
	local c
	c=$(debian_boot_crash "$2" "$1") || return 1
	echo "Debian's kernel crashed with no module of ours loaded ($c)"
}

# stock_trouble_of SERVER_KERNEL CLIENT_KERNEL DIR: stock_trouble, in
# the form retry_spoiled calls: "the ROLE guest on Debian's kernel
# TROUBLE; the other guest had no trouble"
stock_trouble_of() {
	local t
	t=$(stock_trouble "$3" "$1" "$2") || return
	echo "the ${t%%: *} guest on Debian's kernel ${t#*: }; the other guest had no trouble"
}

# The one retry policy for runs that Debian's kernel spoiled (check.sh's
# guests on Debian's kernel, the interop matrix's and the bench's guest
# pairs; what counts as spoiled is boot_trouble_of's, loop_trouble_of's
# and stock_trouble's): a guest or guest pair runs again at most
# DEBIAN_RETRIES times, and one run retries at most DEBIAN_RUN_RETRIES
# times in all (harness.conf).  A run is every script
# that shares the file DEBIAN_BUDGET_FILE (debian_budget: check.sh makes
# one for all its stages, bases and guests, which run side by side).

# debian_budget DIR: the run's budget of retries, a file in DIR holding
# DEBIAN_RUN_RETRIES, unless a calling script made one already
debian_budget() {
	[ -z "${DEBIAN_BUDGET_FILE:-}" ] || return 0
	export DEBIAN_BUDGET_FILE=$1/debian-retries
	echo "$DEBIAN_RUN_RETRIES" >"$DEBIAN_BUDGET_FILE"
}

# debian_retry ATTEMPT: true when the run whose attempt ATTEMPT was
# spoiled may run again (and counts the retry against the run's budget)
debian_retry() {
	[ "$1" -le "$DEBIAN_RETRIES" ] || return 1
	(
		flock 9
		n=$(cat "$DEBIAN_BUDGET_FILE" 2>/dev/null) || n=0
		[ "${n:-0}" -gt 0 ] || exit 1
		echo $((n - 1)) >"$DEBIAN_BUDGET_FILE"
	) 9>>"$DEBIAN_BUDGET_FILE.lock"
}

# boot_inject CMD...: RFC8797_INJECT for one boot of retry_spoiled's:
# stock-boot-crash only on the first attempt and only where CMD (is the
# kernel Debian's?) succeeds; any other value as it is
boot_inject() {
	local inject=${RFC8797_INJECT:-}
	if [ "$inject" = stock-boot-crash ] && ! { [ "${RETRY_ATTEMPT:-1}" = 1 ] && "$@"; }; then
		inject=""
	fi
	echo "$inject"
}

# wait_for_slot N PID...: wait until fewer than N of the background
# jobs PID... still run
wait_for_slot() {
	local n=$1 p live
	shift
	while :; do
		live=()
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null && live+=("$p")
		done
		[ ${#live[@]} -ge "$n" ] || return 0
		wait -n "${live[@]}"
	done
}

# retry_spoiled DIR TROUBLE LABEL COMMAND...: run COMMAND, which writes
# its results into DIR (and may log to DIR.log), again as long as
# debian_retry allows and Debian's kernel spoiled the attempt: TROUBLE
# (a command, with DIR appended: boot_trouble_of, stock_trouble_of)
# prints what happened and succeeds only for such trouble.  Each
# spoiled attempt N is kept as DIR.attemptN (and DIR.attemptN.log) in
# RETRY_KEEP (default: beside DIR), and said in one line "# RETRY
# LABEL: ...", on stderr and appended to RETRY_LOG when set.  COMMAND
# sees its attempt's number in RETRY_ATTEMPT.  Returns COMMAND's last
# status.
retry_spoiled() {
	local dir=$1 trouble=$2 label=$3 attempt rc c keep line
	local -a tcmd
	shift 3
	read -r -a tcmd <<<"$trouble"
	for ((attempt = 1; ; attempt++)); do
		RETRY_ATTEMPT=$attempt "$@"
		rc=$?
		[ "$rc" != 0 ] || return 0
		c=$("${tcmd[@]}" "$dir") && debian_retry "$attempt" || return "$rc"
		keep=${RETRY_KEEP:-${dir%/*}}/${dir##*/}.attempt$attempt
		mkdir -p "${keep%/*}"
		mv "$dir" "$keep"
		[ ! -e "$dir.log" ] || mv "$dir.log" "$keep.log"
		line="# RETRY $label: $c; attempt $attempt kept in $keep"
		echo "$line" >&2
		[ -z "${RETRY_LOG:-}" ] || echo "$line" >>"$RETRY_LOG"
	done
}

# harness_load: the one loader, which sourcing this file runs last.
# RFC8797_BASE names the base's file (mainline by default;
# RFC8797_BASES_DIR: another folder of them, for ktap-selftest.sh);
# load_base reads it and load_conf harness.conf.  Then where the base's
# work goes: CACHE, its tree, builds, runs and logs, under CACHE_ROOT.
harness_load() {
	RFC_BASE=${RFC8797_BASE:-mainline}
	BASES_DIR=${RFC8797_BASES_DIR:-$RFC_HARNESS/data/bases}
	load_base
	# the stock kernel the guests boot as a peer (--kernel stock):
	# Debian's kernel of STOCK_BASE's pin (resolve_base: STOCK_KREL);
	# empty for a bad base, which harness_env then refuses by name
	STOCK_PIN=$(base_value "${STOCK_BASE:-}" BASE_PIN 2>/dev/null) || STOCK_PIN=""
	load_conf
	CACHE_ROOT=${RFC8797_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rfc8797}
	CACHE=$CACHE_ROOT/$RFC_BASE
	PATCHES=$RFC_TOP/patches/${BASE_SERIES:-$RFC_BASE}
	TREE=$CACHE/tree
	JOBS=${JOBS:-$(nproc)}
}
harness_load
