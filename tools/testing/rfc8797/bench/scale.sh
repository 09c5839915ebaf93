#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What each connection costs the server (make bench BENCH=scale): for
# each server KERNEL, two linked guests (two-guest.sh), the server
# guest/interop-server.sh on KERNEL, the client guest/scale-client.sh on
# ours, which opens N connections of each client type at once and has
# the server report its memory while they are held and after they
# close; then bench/scale.py's table and least-squares fit.
#
#   scale.sh [--kernels "ours base"] [--timeout SEC] [--server-mem MB]
#            [--transport rxe|siw] [--slab] [--count] [TYPE:N[,N...]...]
#   scale.sh [--kernels ...] [--timeout SEC] [--server-mem MB] --pressure TYPE:MAX
#
#   scale.sh [--kernels ...] [--timeout SEC] --mounts "T:K[,K...]..."
#
# --results DIR: the results there instead of $CACHE/bench/scale-DATE/
#
# TYPEs (scale-client.sh): ours (8 KiB, R), stock (4 KiB, R: what a stock
# Linux client sends), none (no Private Data), 1k, 16k.  Default
# SCALE_RUNS, or every type at 1, 10, 50 and 100.  One cm-peer in the
# client guest makes a run's N connections (--count).  --server-mem
# (SCALE_SERVER_MEM, default 2048) is the server guest's memory: at
# 8 KiB each connection takes some 3 MiB of the server's memory.
# --transport (SCALE_TRANSPORT, default rxe) is both guests'; the
# table's server column then reads KERNEL-siw.
# --count (SCALE_COUNT=1) runs both guests under the insn-count plugin
# (bench/insn-plugin, as BENCH=cost does): the client marks the start
# and the end of each run's connecting, after an idle window of 1 s, and
# the table then gives the kernel instructions the server guest executed
# meanwhile, less the idle server's in as many seconds, per connection
# made, and their fit over N (the one NFSv4 call each connection makes
# is in them; the server waits --still, so no process of the harness
# runs in them).
# --slab (SCALE_SLAB=1) boots the server with slab_nomerge, so that /proc/slabinfo
# names every cache on its own, and adds slab.md: for each TYPE at its
# largest N, each cache's KiB per connection on each kernel and the
# difference from the first (scale.py --slab).  --kernels debug runs
# on the debug kernel, whose kmemleak must find nothing of the RPC/RDMA
# code once every connection has closed (scale-client.sh).
# Results: $CACHE/bench/scale-DATE/ (KERNEL/ the guests' folders,
# table.md, and its plot scale.png); exit status 0 when every run passed and the table has a
# line for each.
#
# --pressure TYPE:MAX (SCALE_PRESSURE; guest/pressure-client.sh): with
# an NFS mount in use, connections of TYPE until the server refuses one
# (at most MAX); the server must refuse the new one cleanly, keep those
# it holds and the mount's, and get its memory back, without an oops, a
# warning or the OOM killer in its kernel log (its server-dmesg-clean).
# Give the server little memory (--server-mem 1024) and the client time
# (--timeout: 120 + 2 * MAX s for the connections, then the mount's
# I/O).  Results: $CACHE/bench/scale-DATE/KERNEL/ (the client's
# pressure.txt), no table.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
resolve_base || exit 1
check_inject
kernels="ours base" timeout=1800 smem=${SCALE_SERVER_MEM:-2048} pressure=${SCALE_PRESSURE:-} transport=${SCALE_TRANSPORT:-rxe} out=""
mounts=${SCALE_MOUNTS:-} sappend=()
[ "${SCALE_SLAB:-0}" = 0 ] || sappend=(--server-append slab_nomerge)
count=${SCALE_COUNT:-0}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) kernels=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--server-mem) smem=$2; shift 2 ;;
	--pressure) pressure=$2; shift 2 ;;
	--mounts) mounts=$2; shift 2 ;;
	--transport) transport=$2; shift 2 ;;
	--slab) sappend=(--server-append slab_nomerge); shift ;;
	--count) count=1; shift ;;
	--results) out=$2; shift 2 ;;
	--*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ -z "$pressure" ] || [ $# = 0 ] || die "--pressure $pressure: no TYPE:N runs beside it"
[ -z "$mounts" ] || { [ $# = 0 ] && [ -z "$pressure" ]; } || die "--mounts: no TYPE:N runs or --pressure beside it"
[ "$count" = 0 ] || { [ -z "$mounts" ] && [ -z "$pressure" ]; } || die "--count: with TYPE:N runs only"
case "$transport" in
rxe) tsuf="" ;;
siw) tsuf=-siw
	[ -z "$pressure" ] || die "--pressure runs over rxe only"
	[ -z "$mounts" ] || die "--mounts runs over rxe only" ;;
*) die "--transport $transport: rxe or siw" ;;
esac
# --mounts "T:K[,K...]..." (SCALE_MOUNTS; guest/mounts-client.sh): what
# an NFSv4.2 mount costs the client instead, for each client KERNEL
# against our server: at each inline threshold T, one mount with
# nconnect=K after the other, with 10 s of 4 KiB reads at depth 64 on
# it.  Results: $CACHE/bench/scale-DATE/mounts-KERNEL/ and mounts.md,
# scale.py --mounts's table.
# shellcheck disable=SC2086	# a list of words
[ $# -gt 0 ] || [ -n "$pressure" ] || set -- ${SCALE_RUNS:-ours:1,10,50,100 stock:1,10,50,100 none:1,10,50,100 1k:1,10,50,100 16k:1,10,50,100}
[ -n "$out" ] || out=$CACHE/bench/scale-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
make -C "$RFC_HARNESS/guest/cm-peer" OUT="$CACHE_ROOT/cm-peer" >"$out/cm-peer-build.log" 2>&1 ||
	die "cm-peer did not build, see $out/cm-peer-build.log"
rc=0 files=()
if [ -n "$mounts" ]; then
	for k in $kernels; do
		msg "mounts: client $k, server ours: $mounts"
		# shellcheck disable=SC2086	# a list of runs
		"$RFC_HARNESS/two-guest.sh" --results "$out/mounts-$k" --timeout "$timeout" \
			--client "$RFC_HARNESS/guest/mounts-client.sh" ours "$k" \
			--server-args "--no-trace --wait $((timeout + 60))" \
			--prefix "mounts-$k" $mounts >"$out/mounts-$k.log" 2>&1 || rc=1
		grep -E '^ *(not )?ok ' "$out/mounts-$k/client/tests.ktap" 2>/dev/null | sed "s/^ */[mounts-$k] /"
		files+=("$k=$out/mounts-$k/client/mounts.txt")
	done
	/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --mounts "${files[@]}" >"$out/mounts.md" || rc=1
	cat "$out/mounts.md"
	msg "mounts: $out"
	exit $rc
fi
if [ -n "$pressure" ]; then
	for k in $kernels; do
		msg "pressure: server $k ($smem MB), client ours: $pressure"
		"$RFC_HARNESS/two-guest.sh" --results "$out/$k" --timeout "$timeout" --server-mem "$smem" \
			--client "$RFC_HARNESS/guest/pressure-client.sh" "$k" ours \
			--server-args "--no-trace --wait $((timeout + 60))" "$pressure" >"$out/$k.log" 2>&1 || rc=1
		for role in client server; do
			grep -E '^ *(not )?ok ' "$out/$k/$role/tests.ktap" 2>/dev/null | sed "s/^ */[$k $role] /"
		done
		cat "$out/$k/client/pressure.txt" 2>/dev/null
	done
	msg "pressure: $out"
	exit $rc
fi
[ "$count" = 0 ] || "$RFC_HARNESS/bench/insn-plugin/build.sh" >"$out/insn-plugin-build.log" 2>&1 ||
	die "the insn-count plugin did not build, see $out/insn-plugin-build.log"
for k in $kernels; do
	msg "scale: server $k ($smem MB, $transport), client ours: $*"
	counting=() marks=() still=""
	if [ "$count" != 0 ]; then
		# the server starts no process while it waits (interop-server.sh
		# --still): no instruction of the harness's own in the windows
		still=" --still"
		mkdir -p "$out/$k$tsuf"
		counting=(--count "out=$out/$k$tsuf/server.insn,fifo=$out/$k$tsuf/insn.fifo"
			"out=$out/$k$tsuf/client.insn,peer=$out/$k$tsuf/insn.fifo")
		marks=(--marks)
	fi
	# the server waits for the client as long as the client may run
	# (interop-server.sh's own limit is 600 s), without tracing
	"$RFC_HARNESS/two-guest.sh" --results "$out/$k$tsuf" --timeout "$timeout" --server-mem "$smem" \
		"${sappend[@]}" "${counting[@]}" --client "$RFC_HARNESS/guest/scale-client.sh" "$k" ours \
		--server-args "--no-trace$still --wait $((timeout + 60)) --transport $transport" \
		--prefix "scale-$k$tsuf" --transport "$transport" "${marks[@]}" "$@" >"$out/$k$tsuf.log" 2>&1 || rc=1
	grep -E '^ *(not )?ok ' "$out/$k$tsuf/client/tests.ktap" 2>/dev/null | sed "s/^ */[$k$tsuf] /"
	files+=("$k$tsuf=$out/$k$tsuf/client/scale.txt")
done
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --plot "$out/scale.png" "${files[@]}" >"$out/table.md" || rc=1
cat "$out/table.md"
if [ ${#sappend[@]} -gt 0 ]; then
	for spec in "$@"; do
		# the largest N of the spec
		last=$(tr ',' '\n' <<<"${spec#*:}" | sort -n | tail -n 1)
		slabs=()
		for k in $kernels; do slabs+=("$k$tsuf=$out/$k$tsuf/server/slabinfo"); done
		/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --slab "${spec%%:*}-$last" "${slabs[@]}" || rc=1
		echo
	done >"$out/slab.md"
	cat "$out/slab.md"
fi
msg "scale: $out"
exit $rc
