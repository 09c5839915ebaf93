# SPDX-License-Identifier: GPL-2.0
# Common settings for the rfc8797 harness scripts.  Sourced, not run.

RFC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
RFC_HARNESS=$RFC_TOP/tools/testing/rfc8797

# The pinned base, the one the series is tested on: Debian's
# linux-source-6.12 package.  (RFC8797_BASE_PIN only exists to test the
# fallback below with a pin that apt does not offer.)
BASE_PIN=${RFC8797_BASE_PIN:-6.12.117-1~deb12u1}

CACHE=${RFC8797_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rfc8797}

# The base actually used.  Debian drops old builds from bookworm-security
# over time, so it is resolved once per run (and passed on to the
# scripts the run starts through RFC8797_BASE_RESOLVED):
#  1. RFC8797_BASE_VERSION, when set: a full Debian version, or an
#     upstream one such as 6.12.115 that apt resolves to its build;
#  2. else the pin, when it is installed, already downloaded, or offered;
#  3. else the newest linux-source-6.12 that apt offers.
# base_offered: the linux-source-6.12 versions apt offers, newest first
base_offered() {
	apt-cache madison linux-source-6.12 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u -V -r
}
if [ -z "${RFC8797_BASE_RESOLVED:-}" ]; then
	if [ -n "${RFC8797_BASE_VERSION:-}" ]; then
		case "$RFC8797_BASE_VERSION" in
		*-*) RFC8797_BASE_RESOLVED=$RFC8797_BASE_VERSION ;;
		*) RFC8797_BASE_RESOLVED=$(base_offered |
			awk -v v="$RFC8797_BASE_VERSION-" 'index($0, v) == 1 { print; exit }') ;;
		esac
		[ -n "$RFC8797_BASE_RESOLVED" ] || {
			echo "error: RFC8797_BASE_VERSION=$RFC8797_BASE_VERSION: apt offers no such linux-source-6.12" >&2
			exit 1
		}
	elif [ "$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" = "$BASE_PIN" ] ||
			[ -f "$CACHE/src/linux-source-6.12_$BASE_PIN.tar.xz" ] ||
			base_offered | grep -qxF "$BASE_PIN"; then
		RFC8797_BASE_RESOLVED=$BASE_PIN
	else
		RFC8797_BASE_RESOLVED=$(base_offered | head -n 1)
		[ -n "$RFC8797_BASE_RESOLVED" ] || {
			echo "error: the pinned linux-source-6.12=$BASE_PIN is gone and apt offers no other (apt-get update?)" >&2
			exit 1
		}
	fi
	export RFC8797_BASE_RESOLVED
fi
BASE_PKG_VERSION=$RFC8797_BASE_RESOLVED
BASE_TAG=base-${BASE_PKG_VERSION//\~/_}
# Debian's kernel release of that build: 6.12.115-2~deb12u1 -> 6.12.115+deb12-amd64
STOCK_KREL=${BASE_PKG_VERSION%%-*}+$(echo "$BASE_PKG_VERSION" | sed -n 's/.*~\(deb[0-9]*\)u[0-9]*$/\1/p')-amd64
STOCK_IMAGE_PKG=linux-image-$STOCK_KREL-unsigned

# base_tarball: the linux-source tarball of the base: the installed
# package's when it is that version, else one downloaded into $CACHE/src
# with apt-get download (never installed: the host's package stays)
base_tarball() {
	local t=$CACHE/src/linux-source-6.12_$BASE_PKG_VERSION.tar.xz d
	if [ "$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" = "$BASE_PKG_VERSION" ] &&
			[ -f /usr/src/linux-source-6.12.tar.xz ]; then
		echo /usr/src/linux-source-6.12.tar.xz
		return
	fi
	if [ ! -f "$t" ]; then
		mkdir -p "$CACHE/src"
		d=$(mktemp -d "$CACHE/src/dl.XXXXXX")
		msg "downloading linux-source-6.12=$BASE_PKG_VERSION (not installed; kept in $CACHE/src)"
		(cd "$d" && timeout 1800 apt-get download -q -o APT::Sandbox::User=root \
			"linux-source-6.12=$BASE_PKG_VERSION" >/dev/null) ||
			{ rm -rf "$d"; die "apt-get download linux-source-6.12=$BASE_PKG_VERSION failed"; }
		dpkg-deb --fsys-tarfile "$d"/linux-source-6.12_*.deb |
			tar -xO ./usr/src/linux-source-6.12.tar.xz >"$d/src.tar.xz" ||
			{ rm -rf "$d"; die "no linux-source-6.12.tar.xz in the downloaded package"; }
		mv "$d/src.tar.xz" "$t"
		rm -rf "$d"
	fi
	echo "$t"
}

# base_note: one line saying which base this run uses and whether it is
# the tested one
base_note() {
	if [ "$BASE_PKG_VERSION" = "$BASE_PIN" ]; then
		echo "base: linux-source-6.12 $BASE_PKG_VERSION (the pinned, tested base)"
	elif [ -n "${RFC8797_BASE_VERSION:-}" ]; then
		echo "base: linux-source-6.12 $BASE_PKG_VERSION (RFC8797_BASE_VERSION; NOT the tested base $BASE_PIN)"
	else
		echo "base: linux-source-6.12 $BASE_PKG_VERSION (fallback: the pinned $BASE_PIN is no longer offered; NOT the tested base)"
	fi
}
TREE=$CACHE/tree
# One compiler cache for every tree; paths are made relative so that a
# second tree laid out like the first ($X/tree + $X/build/main) hits it.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rfc8797-ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
JOBS=${JOBS:-$(nproc)}
# Debian's tools first (the kernel scripts want its python3-ply and -git)
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

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

# ktap_emit PASS|FAIL NAME [REASON]: the next KTAP result on stdout, for
# host scripts whose output check.sh imports (import_ktap); KTAP_COUNT
# numbers them, KTAP_FAILED becomes 1 at the first failure
KTAP_COUNT=0 KTAP_FAILED=0
ktap_emit() {
	KTAP_COUNT=$((KTAP_COUNT + 1))
	if [ "$1" = PASS ]; then
		echo "ok $KTAP_COUNT $2"
	else
		echo "not ok $KTAP_COUNT $2 # ${3:-failed}"
		# shellcheck disable=SC2034	# the caller's exit status
		KTAP_FAILED=1
	fi
}
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

# slowwait SECONDS CMD [ARGS...]: CMD every second until it succeeds;
# CMD's last failure once SECONDS have passed (the guests' slowwait,
# guest-lib.sh, polls faster and without forks)
slowwait() {
	local end=$((SECONDS + $1)) rc
	shift
	until "$@"; do
		rc=$?
		[ "$SECONDS" -le "$end" ] || return "$rc"
		sleep 1
	done
}

# wait_timeout PID SECONDS: true when PID ended within SECONDS
pid_ended() { ! kill -0 "$1" 2>/dev/null; }
wait_timeout() { slowwait "$2" pid_ended "$1"; }

# crash_of DIR ROLE: the first crash line on the console of the guest
# ROLE of an interop.sh run in DIR (nothing when it did not crash)
crash_of() {
	grep -a -m1 -E 'Kernel panic - not syncing|Oops: |BUG: |kernel BUG|double fault|KASAN|UBSAN' \
		"$1/$2/console.log" 2>/dev/null | sed 's/^\[ *[0-9.]*\] //' | tr -d '\r'
}

# guest_trouble DIR ROLE: what went wrong with the guest ROLE of an
# interop.sh run in DIR other than a failed test, nothing when nothing
# did: a crash on its console, a process of it killed by a fault, or a
# guest that ended without an exit status (QEMU gone: a triple fault
# prints nothing) or at its time limit (interop.sh keeps guest.sh's exit
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
	[ -e "$1/$2.stopped" ] && return
	case "$(cat "$1/$2.exit" 2>/dev/null)" in
	125) echo "died without an exit status and without a crash on its console" \
		"(last line: $(tr -d '\r' <"$1/$2/console.log" 2>/dev/null | grep -a . | tail -n 1 | head -c 160))" ;;
	124) echo "reached its time limit" ;;
	esac
}

# stock_trouble DIR SERVER_KERNEL CLIENT_KERNEL: true when a stock guest
# of an interop.sh run in DIR had guest_trouble and our guest had none;
# sets trouble_role and trouble_line.  Such a run may be repeated (and
# the repeat reported): Debian's stock kernel crashes under TCG with two
# guests busy (rxe list corruption, a double fault, a triple fault, a
# GPF in libc), while the same trouble in our kernel is never retried.
stock_trouble() {
	local role k t ours=""
	trouble_role="" trouble_line=""
	for role in server client; do
		[ "$role" = server ] && k=$2 || k=$3
		t=$(guest_trouble "$1" "$role")
		[ -n "$t" ] || continue
		if [ "$k" = stock ]; then
			trouble_role=$role trouble_line=$t
		else
			ours=$role
		fi
	done
	[ -n "$trouble_role" ] && [ -z "$ours" ]
}
