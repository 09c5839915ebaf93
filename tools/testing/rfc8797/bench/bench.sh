#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what RFC 8797 buys, measured between two guests linked only
# to each other (interop.sh: an NFS server guest and a client guest over
# soft-RoCE), with bench-client.sh as the client half.
#
# 1. The sweep (deterministic counters and memory; no timing), NFSv3:
#    our kernel on both sides at 1, 4, 8, 16, 32 and 64 KiB thresholds
#    with R on and off, Debian's stock 6.12 on both sides at its
#    defaults, and the base (the pinned source without the series, built
#    with our test configuration: "make build-base"), so that what the
#    series changes is seen apart from what Debian's configuration does;
#    one pass each of 4 KiB random reads and writes, 16 KiB random reads,
#    1 MiB reads and writes: counters per RPC and the buffers each
#    connection allocated.
# 2. Timed comparisons, interleaved: ROUNDS rounds, each one boot of our
#    kernel on both sides (our defaults and stock's 4 KiB thresholds,
#    alternating which goes first) and one boot of the stock kernel on
#    both sides.  Each round gives one pair ours/stock and one pair
#    ours/ours-4k per workload; report.py gives the median ratio and a
#    bootstrap 95% interval over the pairs.  Under TCG a rate alone means
#    nothing: only ratios of runs that alternated are reported.  NFSv3
#    and v4.2; fio random reads and writes of 4, 8 and 16 KiB, 1 MiB
#    reads and writes (3 s each), the metadata phase (200 files).
#
# BENCH=quick: 3 rounds, NFSv3, 4 KiB random reads and writes and 1 MiB
# reads, a sweep at 4, 8 and 16 KiB with R on: about 11 minutes, against
# about 50 for the full bench.
# Every mode also runs Debian's stock client against our server at the
# defaults ("stock-client"): the buffer memory a client without the
# series costs our server.
# BENCH=sweep: the sweep alone, NFSv3, our kernel at 1, 4, 8 and 16 KiB
# with R on, and the base at its defaults: the deterministic counters and
# memory per connection of a base, without timing (about 5 minutes:
# 282 s on mainline).
# BENCH_ROUNDS overrides the number of rounds.  Results: $CACHE/bench/
# STAMP/ (bench.md, the plots, every guest's output), never in the
# source tree: the numbers come from TCG and are stale after the next
# change; the targets are report.py's assertions, and make bench fails
# when one is missed.
# Run it with nothing else on the machine: other guests slow one side.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
check_inject
mode=${BENCH:-full}
case "$mode" in
quick)
	rounds=${BENCH_ROUNDS:-3} versions="3" runtime=4 files=200
	workloads="randread-4k randwrite-4k read-1m"
	sweep="4096 8192 16384" sweep_r="1" sweep_wl="randread-4k randwrite-4k read-1m"
	;;
full)
	rounds=${BENCH_ROUNDS:-5} versions="3 4.2" runtime=3 files=200
	workloads="randread-4k randwrite-4k randread-8k randwrite-8k randread-16k randwrite-16k read-1m write-1m meta"
	sweep="1024 4096 8192 16384 32768 65536" sweep_r="1 0"
	sweep_wl="randread-4k randwrite-4k randread-16k read-1m write-1m"
	;;
sweep)
	rounds=0 versions="3" runtime=2 files=200 workloads=""
	sweep="1024 4096 8192 16384" sweep_r="1"
	sweep_wl="randread-4k randwrite-4k read-1m write-1m"
	;;
*) die "BENCH=$mode: quick, full or sweep" ;;
esac
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	[ "$(id -u)" = 0 ] || die "python3-matplotlib is missing (for the plots); run as root to install it"
	msg "installing python3-matplotlib (the plots)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		python3-matplotlib >"${TMPDIR:-/tmp}/rfc8797-apt.log" 2>&1 ||
		die "apt-get install python3-matplotlib failed"
fi
"$RFC_HARNESS/stock.sh" >/dev/null || die "Debian's stock kernel is not available"
[ -f "$CACHE/build/base/arch/x86/boot/bzImage" ] || "$RFC_HARNESS/tree.sh" base >/dev/null ||
	die "the base kernel (tree.sh base) did not build"
out=$CACHE/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
msg "make bench ($mode): $out"
start=$SECONDS failed=0

# run NAME SERVER_KERNEL CLIENT_KERNEL CLIENT-ARGS...: one guest pair.
# Debian's stock kernel has crashed under TCG between two stock guests
# (list corruption in rxe_receiver, a double fault) and killed a shell of
# its own (a general protection fault in libc): a pair in which a stock
# guest did either is run again, at most twice, and said so in the
# report; a crash of our kernel is never retried.
retries=()
run() {
	local name=$1 sk=$2 ck=$3 try c dir
	shift 3
	for try in 1 2 3; do
		dir=$out/$name
		if [ "$try" != 1 ]; then
			mkdir -p "$out/crashed"
			mv "$dir" "$out/crashed/$name.$try"
			msg "$name: again ($c)"
		fi
		msg "$name"
		"$RFC_HARNESS/interop.sh" --results "$dir" --timeout 2400 \
			--client "$RFC_HARNESS/bench/bench-client.sh" "$sk" "$ck" \
			--server-args "--no-trace --wait 2400" "$@" >"$dir.log" 2>&1 && return 0
		c=""
		stock_trouble "$dir" "$sk" "$ck" && c="stock $trouble_role: $trouble_line"
		[ -n "$c" ] && [ "$try" -lt 3 ] || break
		retries+=("$name: $c")
	done
	failed=1
	msg "$name failed: $(tail -n 1 "$dir.log")"
	grep -h '^not ok' "$dir"/*/tests.ktap 2>/dev/null | head -n 5
	[ -z "$c" ] || msg "$name: $c"
}

cfgs=()
for th in $sweep; do
	for r in $sweep_r; do cfgs+=("th=$th,r=$r"); done
done
# counters do not depend on the NFS version much: the sweep runs NFSv3
run sweep-ours ours ours --kind sweep --kernel ours --memory --configs "${cfgs[*]}" \
	--versions 3 --workloads "$sweep_wl" --runtime 2
[ "$mode" = sweep ] ||
	run sweep-stock stock stock --kind sweep --kernel stock --memory --configs def \
		--versions 3 --workloads "$sweep_wl" --runtime 2
run sweep-base base base --kind sweep --kernel base --memory --configs def \
	--versions 3 --workloads "$sweep_wl" --runtime 2
# what a client without the series costs our server (the mem lines'
# "stock-client"): Debian's stock client at its defaults against ours
run sweep-stockclient ours stock --kind sweep --kernel stock-client --memory --configs def \
	--versions 3 --workloads "$sweep_wl" --runtime 2
for ((i = 1; i <= rounds; i++)); do
	order="def 4k"
	[ $((i % 2)) = 0 ] && order="4k def"
	common=(--kind timed --round "$i" --versions "$versions" --workloads "$workloads"
		--runtime "$runtime" --files "$files")
	if [ $((i % 2)) = 1 ]; then
		run "round$i-ours" ours ours "${common[@]}" --kernel ours --configs "$order"
		run "round$i-stock" stock stock "${common[@]}" --kernel stock --configs def
	else
		run "round$i-stock" stock stock "${common[@]}" --kernel stock --configs def
		run "round$i-ours" ours ours "${common[@]}" --kernel ours --configs "$order"
	fi
done
# only the runs that completed (a retried pair's crashed run is renamed)
cat "$out"/*/client/bench.jsonl >"$out/bench.jsonl" 2>/dev/null
printf '%s\n' "${retries[@]}" >"$out/retries.txt"
/usr/bin/python3 "$RFC_HARNESS/bench/report.py" --mode "$mode" --seconds $((SECONDS - start)) \
	--retries "$out/retries.txt" "$out/bench.jsonl" "$out" || failed=1
if [ "$failed" = 0 ]; then
	msg "bench: $out/bench.md"
else
	msg "bench: a run or a target failed, see $out/bench.md"
fi
msg "bench ($mode): $((SECONDS - start)) s"
exit $failed
