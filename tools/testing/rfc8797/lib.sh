# SPDX-License-Identifier: GPL-2.0
# Common settings for the rfc8797 harness scripts.  Sourced, not run.

RFC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
RFC_HARNESS=$RFC_TOP/tools/testing/rfc8797

# The pinned base: Debian's linux-source-6.12 package.
BASE_PKG_VERSION=6.12.117-1~deb12u1
BASE_TAG=base-6.12.117-1_deb12u1
STOCK_KREL=6.12.117+deb12-amd64
STOCK_IMAGE_PKG=linux-image-$STOCK_KREL-unsigned

CACHE=${RFC8797_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rfc8797}
TREE=$CACHE/tree
# One compiler cache for every tree; paths are made relative so that a
# second tree laid out like the first ($X/tree + $X/build/main) hits it.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rfc8797-ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
JOBS=${JOBS:-$(nproc)}
# Debian's tools first (the kernel scripts want its python3-ply and -git)
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

# kmake OUTDIR MAKE-ARGS...: make in the prepared tree with its output in
# OUTDIR, through ccache, with fixed build identity (reproducible images)
kmake() {
	local out=$1
	shift
	make -C "$TREE" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="rfc8797" KBUILD_BUILD_USER=rfc8797 \
		KBUILD_BUILD_HOST=rfc8797 "$@"
}

msg() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
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

# wait_timeout PID SECONDS: true when PID ended within SECONDS
wait_timeout() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$1" 2>/dev/null
}
