#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests linked only to each other (a unix-socket netdev), one NFS
# server and one NFS client over soft-RoCE, each booting our kernel or
# Debian's stock one.
#
#   two-guest.sh [--results DIR] [--timeout SEC] [--dump] [--client SCRIPT] [--server SCRIPT] [--count SERVER_ARGS CLIENT_ARGS] [--server-mem MB] [--server-append ARGS] SERVER_KERNEL CLIENT_KERNEL [--server-args "..."] [CLIENT ARGS...]
#   e.g. two-guest.sh stock ours --prefix ours-vs-stock 3 4.2
#
# --dump writes every frame between the two guests to DIR/link.pcap
# (guest.sh --dump on the server's NIC), for tshark and
# wireshark/rpcrdma_cm.lua.  --client runs SCRIPT in the client guest
# instead of guest/interop-client.sh (the CLIENT ARGS go to it), e.g.
# guest/capture-client.sh; --server runs SCRIPT in the server guest
# instead of guest/interop-server.sh (the --server-args go to it), e.g.
# guest/capture-server.sh.  --timeout is the client guest's time
# limit (default 800 s; the server's is 100 s longer).  --count counts
# both guests' instructions (guest.sh --count, with these insn-count
# plugin arguments: make bench BENCH=cost).  --server-mem gives the
# server guest MB of memory (guest.sh --mem; default its 2048).
# --server-append adds ARGS to the server kernel's command line
# (guest.sh --append), e.g. slab_nomerge for scale.sh --slab.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1	# once, for both guests
# Two guests that work together take both cores: each with all its
# vCPUs on one host thread (guest.sh's RFC8797_TCG_THREAD=single),
# unless told otherwise.  Since our kernels bring up both vCPUs of a
# guest (ACPI), a thread per vCPU puts four busy threads on two cores,
# and vCPUs spin against descheduled ones: the ours/ours interop cell
# took 135 s so, 96 s with one thread per guest (2026-11-29, nothing
# else running).  (When a guest brought up one vCPU, a thread per vCPU
# was the faster: HARNESS.rst, "CPUs and clocks".)
export RFC8797_TCG_THREAD=${RFC8797_TCG_THREAD:-single}
usage() { sed -n '7,8s/^#   //p' "$0"; }
results=$CACHE/runs/interop-$(date +%Y%m%d-%H%M%S)-$$ ctimeout=800 dump=0
client=$RFC_HARNESS/guest/interop-client.sh server=$RFC_HARNESS/guest/interop-server.sh
scount=() ccount=() smem=() sappend=()
while [ $# -gt 0 ]; do
	case "$1" in
	--results) results=$2; shift 2 ;;
	--timeout) ctimeout=$2; shift 2 ;;
	--dump) dump=1; shift ;;
	--client) client=$(realpath "$2"); shift 2 ;;
	--server) server=$(realpath "$2"); shift 2 ;;
	--count) scount=(--count "$2") ccount=(--count "$3"); shift 3 ;;
	--server-mem) smem=(--mem "$2"); shift 2 ;;
	--server-append) sappend=(--append "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--*) usage >&2; die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { usage >&2; die "a server kernel and a client kernel"; }
[[ "$ctimeout" =~ ^[1-9][0-9]*$ ]] || die "--timeout $ctimeout: seconds"
skern=$1 ckern=$2
shift 2
sargs=""
if [ "${1:-}" = --server-args ]; then sargs=$2; shift 2; fi
mkdir -p "$results"
results=$(cd "$results" && pwd)
dumpargs=()
[ "$dump" = 0 ] || dumpargs=(--dump "$results/link.pcap")
sock=$results/link.sock
rm -f "$sock" "$results"/*.exit "$results"/*.stopped
# shellcheck disable=SC2086
"$RFC_HARNESS/guest.sh" --quiet --kernel "$skern" --name server --results "$results/server" \
	--net "unix:$sock:server" --mac 52:54:00:12:34:01 --timeout $((ctimeout + 100)) "${dumpargs[@]}" "${scount[@]}" \
	"${smem[@]}" "${sappend[@]}" "$server" $sargs &
spid=$!
slowwait 60 test -S "$sock"
"$RFC_HARNESS/guest.sh" --quiet --kernel "$ckern" --name client --results "$results/client" \
	--net "unix:$sock:client" --mac 52:54:00:12:34:02 --timeout "$ctimeout" "${ccount[@]}" \
	--append "rfc8797.inject=${RFC8797_INJECT:-}" "$client" "$@" &
cpid=$!
# stop_guest ROLE: stop that guest's QEMU (guest.sh's ROLE/qemu.pid)
stop_guest() {
	local p
	read -r p 2>/dev/null <"$results/$1/qemu.pid" && kill -TERM "$p" 2>/dev/null || true
}
# A server guest that ends first (a crash, or its own time limit) leaves
# the client's NFS I/O waiting for ever: stop the client 20 s later.
while kill -0 "$cpid" 2>/dev/null; do
	if ! kill -0 "$spid" 2>/dev/null; then
		wait_timeout "$cpid" 20 && break
		echo "interop: server guest gone, stopping the client guest" >&2
		: >"$results/client.stopped"
		stop_guest client
		break
	fi
	sleep 2
done
wait "$cpid"
crc=$?
# The server now only waits for the client's DONE: give it time for its
# own checks, but do not let it sit out its time limit when the client
# died or hung (125, 124) or never got that far.
grace=180
case "$crc" in 124|125) grace=5 ;; esac
if ! wait_timeout "$spid" "$grace"; then
	echo "interop: client guest gone (exit $crc), stopping the server guest" >&2
	: >"$results/server.stopped"
	stop_guest server
fi
wait "$spid"
src=$?
# for guest_trouble (lib.sh): each guest's exit code, and ROLE.stopped
# when this script stopped that guest because the other one had ended
echo "$src" >"$results/server.exit"
echo "$crc" >"$results/client.exit"
echo "interop $skern server (exit $src) / $ckern client (exit $crc): $results"
[ "$src" = 0 ] && [ "$crc" = 0 ]
