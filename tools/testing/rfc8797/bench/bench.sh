#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what RFC 8797 buys, measured between two guests linked only
# to each other (two-guest.sh: an NFS server guest and a client guest over
# soft-RoCE), with bench-client.sh as the client half.
#
# 1. The sweep (deterministic counters and memory; no timing), NFSv3:
#    our kernel on both sides at 1, 4, 8, 16, 32 and 64 KiB thresholds
#    with R on, and at 1, 4 and 8 KiB with R off (above 8 KiB, R off
#    changes only what 8 KiB shows: one LOCAL_INV per chunk), Debian's
#    stock 6.12 on both sides at its
#    defaults, and the base (the pinned source without the series, built
#    with our test configuration: "make build-base"), so that what the
#    series changes is seen apart from what Debian's configuration does;
#    one pass each of 4 KiB random reads and writes, 16 KiB random reads,
#    1 MiB reads and writes: counters per RPC and the buffers each
#    connection allocated.
# 2. Timed comparisons, interleaved: ROUNDS rounds, each one boot of our
#    kernel, of the base and of Debian's stock kernel on both sides, in
#    an order that changes from round to round, ours and the base always
#    next to each other (below).  Each round gives one pair
#    ours/base (the series' own effect: the headline) and one pair
#    ours/stock (Debian's kernel to ours, configuration included) per
#    workload; report.py gives the median ratio and a bootstrap 95%
#    interval over the pairs.  Under TCG a rate alone means nothing: only
#    ratios of runs that alternated are reported.  NFSv3 and v4.2; fio
#    random reads and writes of 4 and 8 KiB (on both sides of the
#    default threshold; 16 KiB, above it, is the sweep's), 1 MiB reads
#    and writes,
#    each over a window of RUNTIME seconds that its rate covers (on
#    files no window can go over entirely under TCG), the metadata
#    phase (200 files).  BENCH_4K=1 adds ours at stock's 4 KiB
#    thresholds to each of our boots (ours/ours-4k).
# 3. The link's limit, in the same boots of ours and of the base: before
#    its NFS workloads the client runs Debian's perftest against the
#    server guest over the same rxe link, at the sizes and depths the
#    workloads use (Sends of 4 and 8 KiB at depth 1 and 16, 1 MiB RDMA
#    Writes for 1 MiB reads, RDMA Reads for 1 MiB writes); report.py
#    gives each workload as a fraction of its floor, and the per-RPC
#    queue, round trip and total time of ours and the base.
#
# Full: 3 rounds, 4 s windows, then the cost (4), under 60 minutes.
# Each round boots every kernel for three minutes or more under TCG
# (9.65 minutes a round on 2026-11-28): with the cost's 18 minutes, 4
# rounds took 66 minutes.  The timed ratios are information, and 3
# rounds are the fewest that give an interval (report.py MIN_PAIRS),
# as in quick.
# BENCH=quick: the timed rounds alone (no sweep: the chunk and Send
# Queue counters come from the timed runs, the memory per connection is
# the sweep's), 3 rounds, NFSv3, 4 KiB random reads and writes and
# 1 MiB reads over 4 s windows, the link at depth 16 only: meant for
# 15 minutes, it took 25 min 27 s on 6.12 on 2026-11-30 (two-vCPU
# guests with a real clock).
# Full and sweep also run Debian's stock client against our server at
# the defaults ("stock-client"): the buffer memory a client without the
# series costs our server.
# BENCH=sweep: the sweep alone, NFSv3, our kernel at 1, 4, 8 and 16 KiB
# with R on, and the base at its defaults: the deterministic counters and
# memory per connection of a base, without timing (about 5 minutes:
# 282 s on mainline).
# BENCH=link: perftest alone, every test of the full bench, in one boot
# of our kernel (about 3 minutes): to look at the link, or at perftest.
# BENCH=cost: instructions per RPC (below), alone: 3 boots each of ours,
# the base and Debian's stock kernel, NFSv3 and v4.2, seven workloads,
# two boots at a time (under 20 minutes).
# BENCH=scale: the server's memory with N connections of each client
# type held at once, on ours and the base (bench/scale.sh, SCALE_RUNS).
# BENCH_ROUNDS overrides the number of rounds.  Results: $CACHE/bench/
# STAMP/ (bench.md, the plots, every guest's output), never in the
# source tree: the numbers come from TCG and are stale after the next
# change; the targets are report.py's and cost.py's assertions on
# deterministic figures (chunks, LOCAL_INVs, Send Queue waits, memory,
# instructions per RPC), and make bench fails when one is missed; the
# ratios of timed rates are information, with their intervals (one
# boot's rate moves 15-30% from the next one's under TCG).
# Run it with nothing else on the machine: other guests slow one side
# of a timed pair, and move BENCH=cost's counts by up to 3%.
#
# 4. The cost (BENCH=cost, and after the timed rounds of quick and
#    full): guests counted by the insn-count QEMU plugin (bench/insn-
#    plugin; one TCG thread per guest), fixed work per workload
#    (guest/cost-client.sh: fio --number_ios after a warm-up, the
#    markers around the measured run), BOOTS boots of each kernel.
#    bench/cost.py gives the instructions per RPC, user and kernel, the
#    kernel split by layer (from System.map; a modular kernel's layers
#    from its kallsyms and its modules' load addresses: svcrdma and
#    xprtrdma, the server's and the client's transport, nfsd and nfs),
#    net of the idle rate and of the markers' own cost, the same without
#    the soft provider and the packet path under it (the adapter
#    estimate), and the spread of every figure over the boots (max/min
#    - 1).  quick: ours and the base, NFSv3, 4 KiB random reads and
#    writes and 1 MiB reads; full and cost: every kernel, both NFS
#    versions, the seven workloads, and our kernel's 4 KiB random reads
#    and writes at 1, 4 and 16 KiB inline thresholds as well
#    (BENCH_THRESHOLDS).  BENCH_BOOTS overrides the boots.
#    The topology (BENCH_COST_TOPOLOGY, default "loop"): "loop", one
#    guest that is client and server over rxe on a local route, one
#    vCPU (BENCH_COST_CPUS, default 1) in one QEMU thread with
#    instruction-driven time (guest.sh --icount): its figures repeat
#    within 2% (metadata and random writes in three rounds a boot, their
#    median taken: a rare window whose scheduler settles apart,
#    HARNESS.rst, is outvoted), with
#    two such guests on the two cores (BENCH_COST_JOBS, default 2, boots
#    at once; under a heavier load, up to 3%: a guest's idle time passes
#    in real time); "pair" (on request:
#    about 50 minutes for three kernels), two guests, client and server
#    apart, whose scheduler and packet path vary with the guests'
#    relative speed (the RPC stack's own layers repeat within 2%, the
#    totals by up to 30% on Debian's kernel): information only, one
#    pair at a time after the loops.
#    Every I/O at depth 1 (BENCH_IODEPTH): at depth 16 how many requests
#    one wake-up, one interrupt or one poll serves depends on the two
#    guests' relative speed, that is on the host's load; the scheduler's
#    and the packet path's instructions per RPC then moved by up to 50%
#    and the server's total by 8% between two boots.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
resolve_base || exit 1	# once, for every guest this run starts
check_inject
mode=${BENCH:-full}
# BENCH=scale: what each connection costs the server, a runner of its own
[ "$mode" != scale ] || exec "$RFC_HARNESS/bench/scale.sh"
# the cost's settings: none but where a mode sets them
cost_kernels="" cost_versions="" cost_workloads="" cost_topo="" cost_th=""
# runtime: each timed workload's window, seconds; sweep: the
# configurations of sweep-ours (empty: no sweep)
case "$mode" in
quick)
	rounds=${BENCH_ROUNDS:-3} versions="3" runtime=4 files=200
	workloads="randread-4k randwrite-4k read-1m"
	sweep="" sweep_wl=""
	boots=${BENCH_BOOTS:-3} cost_versions="3" cost_workloads="randread-4k randwrite-4k read-1m"
	cost_kernels="ours base" cost_topo=loop cost_th=""
	;;
full)
	rounds=${BENCH_ROUNDS:-3} versions="3 4.2" runtime=4 files=200
	workloads="randread-4k randwrite-4k randread-8k randwrite-8k read-1m write-1m meta"
	sweep="th=1024,r=1 th=1024,r=0 th=4096,r=1 th=4096,r=0 th=8192,r=1 th=8192,r=0"
	sweep="$sweep th=16384,r=1 th=32768,r=1 th=65536,r=1"
	sweep_wl="randread-4k randwrite-4k randread-16k read-1m write-1m"
	boots=${BENCH_BOOTS:-3} cost_versions="3 4.2" cost_workloads=$workloads cost_kernels="ours base stock"
	cost_topo=loop cost_th=${BENCH_THRESHOLDS-"1024 4096 16384"}
	;;
cost)
	rounds=0 versions="" runtime=0 files=0 workloads="" sweep="" sweep_wl=""
	boots=${BENCH_BOOTS:-3} cost_versions=${BENCH_VERSIONS:-"3 4.2"}
	cost_workloads=${BENCH_WORKLOADS:-"randread-4k randwrite-4k randread-8k randwrite-8k read-1m write-1m meta"}
	cost_kernels="ours base stock" cost_topo=loop cost_th=${BENCH_THRESHOLDS-"1024 4096 16384"}
	;;
sweep)
	rounds=0 versions="3" runtime=2 files=200 workloads=""
	sweep="th=1024,r=1 th=4096,r=1 th=8192,r=1 th=16384,r=1"
	sweep_wl="randread-4k randwrite-4k read-1m write-1m"
	boots=0
	;;
link)
	rounds=${BENCH_ROUNDS:-1} versions="" runtime=0 files=0 workloads="" sweep="" sweep_wl=""
	boots=0
	;;
*) die "BENCH=$mode: quick, full, sweep, link, cost or scale" ;;
esac
# To look closer at one gap (BENCH=quick or full): BENCH_WORKLOADS,
# BENCH_VERSIONS and BENCH_RUNTIME (1 to 8 s: the reads' file, 64 MiB a
# second of window, and the writes' data must fit the server guest's
# tmpfs) replace the timed rounds' workloads, NFS versions and window;
# BENCH_KERNELS the kernels of each round (ours, base and a Debian kernel of
# data/kernels/ with the host's userland, such as stock; three at most):
# the Debian kernel, whichever it is, is "stock" in the results and the
# reports' ours / stock, and the report's legend names it.
# The report lists a target whose kernels or workloads were left out as
# not checked.  BENCH_BASE=N: the base carries the series' first N
# patches (tree.sh base N), so that ours / base is what the later
# patches do: to find which patch a difference comes from, one run per
# step of a bisection.
chosen=${BENCH_WORKLOADS:-}${BENCH_VERSIONS:-}${BENCH_RUNTIME:-}${BENCH_KERNELS:-}${BENCH_BASE:-}
case "$mode" in
quick | full | cost) ;;
*) [ -z "$chosen" ] || die "BENCH_WORKLOADS, BENCH_VERSIONS, BENCH_RUNTIME, BENCH_KERNELS, BENCH_BASE: BENCH=quick, full or cost only" ;;
esac
[[ "$boots" =~ ^[0-9]+$ ]] || die "BENCH_BOOTS=$BENCH_BOOTS: a number of boots"
iodepth=${BENCH_IODEPTH:-1}
topologies=${BENCH_COST_TOPOLOGY:-${cost_topo:-loop pair}}
for t in $topologies; do
	case "$t" in loop | pair) ;; *) die "BENCH_COST_TOPOLOGY=$BENCH_COST_TOPOLOGY: loop, pair" ;; esac
done
[[ "$iodepth" =~ ^[1-9][0-9]*$ ]] || die "BENCH_IODEPTH=$BENCH_IODEPTH: a depth of 1 or more"
for th in ${cost_th:-}; do
	[[ "$th" =~ ^[0-9]+$ ]] && ((th >= 1024 && th <= 65536)) ||
		die "BENCH_THRESHOLDS=$BENCH_THRESHOLDS: inline thresholds of 1024 to 65536 octets"
done
# base_part: BENCH_BASE, 0 for the base without the series
base_part=${BENCH_BASE:-0}
[[ "$base_part" =~ ^[0-9]+$ ]] || die "BENCH_BASE=$BENCH_BASE: a number of patches"
base_part=$((10#$base_part))
workloads=${BENCH_WORKLOADS:-$workloads}
versions=${BENCH_VERSIONS:-$versions}
runtime=${BENCH_RUNTIME:-$runtime}
read -ra kernels <<<"${BENCH_KERNELS:-ours base stock}"
[ "$(printf '%s\n' "${kernels[@]}" | sort -u | wc -l)" = ${#kernels[@]} ] ||
	die "BENCH_KERNELS=$BENCH_KERNELS: each kernel once"
# stock_k: the kernel in the part of "stock" (report.py's ours / stock,
# cost.py's), the Debian kernel BENCH_KERNELS names; stock by default
stock_k=
for k in "${kernels[@]}"; do
	# ours, base (BENCH_BASE), and Debian's kernels that stock.sh fetches
	# and that boot under the host's userland: what run_pair and
	# run_loop boot, and what bench.sh knows how to fetch
	kernel_info "$k" && { [ "$K_ROOT" = 9p ] || [ "$K_FETCH" = stock.sh ]; } ||
		die "BENCH_KERNELS=$BENCH_KERNELS: $k is neither ours, base nor a Debian kernel of stock.sh"
	if [ "$K_ROOT" = 9p ]; then
		[ "$k" = ours ] || [ "$k" = base ] ||
			die "BENCH_KERNELS=$BENCH_KERNELS: of our builds, ours and base"
	else
		[ -z "$stock_k" ] ||
			die "BENCH_KERNELS=$BENCH_KERNELS: one Debian kernel, in the part of stock"
		stock_k=$k
	fi
done
stock_k=${stock_k:-stock}
[ ${#kernels[@]} -le 3 ] || die "BENCH_KERNELS=$BENCH_KERNELS: three kernels at most (the rounds' orders)"
# role_of KERNEL: its part in the results (bench.jsonl's "kernel", the
# reports' columns): ours, base or stock
role_of() { if [ "$1" = "$stock_k" ]; then echo stock; else echo "$1"; fi; }
# kernel_of PART: the kernel guest.sh boots in it
kernel_of() {
	case "$1" in
	base) echo "$base_k" ;;
	stock) echo "$stock_k" ;;
	*) echo "$1" ;;
	esac
}
roles=()
for k in "${kernels[@]}"; do roles+=("$(role_of "$k")"); done
# the cost's kernels (parts): its set's, of those chosen
ck=()
for k in $cost_kernels; do
	[[ " ${roles[*]} " != *" $k "* ]] || ck+=("$k")
done
cost_kernels=${ck[*]}
if [ "$mode" = cost ]; then
	kc=()
	for k in "${kernels[@]}"; do
		[[ " ${ck[*]} " != *" $(role_of "$k") "* ]] || kc+=("$k")
	done
	kernels=("${kc[@]}")
fi
for wl in $workloads $cost_workloads; do
	case "$wl" in randread-*k | randwrite-*k | read-1m | write-1m | meta) ;;
	*) die "BENCH_WORKLOADS: $wl is none of randread-Nk, randwrite-Nk, read-1m, write-1m, meta" ;;
	esac
done
[ "$mode" = link ] || [ "$mode" = cost ] || [[ "$runtime" =~ ^[1-8]$ ]] || die "BENCH_RUNTIME=$runtime: 1 to 8 seconds"
# the perftest runs that bound the workloads (TEST:SIZE:DEPTH): the
# Send/Receive message rate at each random I/O size at depth 16 (fio's
# iodepth) and, but in BENCH=quick (whose workloads all run at depth
# 16: seven seconds a boot saved), at depth 1; RDMA Write for 1 MiB
# reads (the server writes the data into the client), RDMA Read for
# 1 MiB writes, 4 KiB Sends at depth 1 for meta (one small RPC at a
# time); BENCH=link: every one
link_of() {
	local wl n
	for wl in "$@"; do
		case "$wl" in
		rand*-*k) n=${wl##*-}; n=$((${n%k} * 1024))
			[ "$mode" = quick ] || echo "send_bw:$n:1"
			echo "send_bw:$n:16" ;;
		read-1m) echo "write_bw:1048576:0" ;;
		write-1m) echo "read_bw:1048576:0" ;;
		meta) echo "send_bw:4096:1" ;;
		esac
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' '
}
if [ "$mode" = link ]; then
	link=$(link_of randread-4k randread-8k read-1m write-1m)
else
	# shellcheck disable=SC2086
	link=$(link_of $workloads)
fi
# each perftest run's window, seconds
ptsec=2
# the configurations of our kernel in the timed rounds: its defaults,
# and with BENCH_4K=1 also stock's 4 KiB thresholds (ours-4k)
ours_cfgs="def"
[ "${BENCH_4K:-0}" = 0 ] || ours_cfgs="def 4k"
# BENCH=link: ours alone, the link alone
[ "$mode" != link ] || kernels=(ours)
# BENCH_PLAN=1: what this mode and these settings would run, one
# KEY=VALUE a line, and nothing run (bench/plan-selftest.sh reads it)
if [ "${BENCH_PLAN:-0}" = 1 ]; then
	printf '%s\n' "mode=$mode" "rounds=$rounds" "kernels=${kernels[*]}" "stock_kernel=$stock_k" \
		"versions=$versions" \
		"workloads=$workloads" "sweep=$sweep" "boots=$boots" "cost_kernels=$cost_kernels" \
		"cost_versions=$cost_versions" "cost_workloads=$cost_workloads" "cost_th=$cost_th" \
		"link=$link"
	exit 0
fi
# Debian packages the bench needs on the host, which the guests see
# through 9p: perftest (the link's limit); matplotlib (the plots) is in
# every install
"$RFC_HARNESS/deps.sh" bench || die "deps.sh bench failed"
# base_k: the base's kernel for guest.sh; base_src: its source
base_k=base base_src=$CACHE/src/base
if [ "$mode" != link ]; then
	for k in "${kernels[@]}" ${sweep:+stock}; do
		! kernel_is "$k" fetch=stock.sh || "$RFC_HARNESS/stock.sh" "$k" >/dev/null ||
			die "Debian's kernel $k is not available"
	done
	if [ "$base_part" != 0 ]; then
		[[ " ${kernels[*]} " = *" base "* ]] || die "BENCH_BASE=$BENCH_BASE: the rounds have no base"
		base_k=$("$RFC_HARNESS/tree.sh" base "$base_part") ||
			die "the base with the series' first $base_part patches (tree.sh base $base_part) did not build"
		base_src=$CACHE/src/base-part
	else
		[ -f "$CACHE/build/base/arch/x86/boot/bzImage" ] || "$RFC_HARNESS/tree.sh" base >/dev/null ||
			die "the base kernel (tree.sh base) did not build"
	fi
fi
out=$CACHE/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
debian_budget "$out"	# its retries of spoiled pairs (lib.sh retry_spoiled)
cost_maps=()
if [ "$boots" != 0 ] && [ -n "$cost_kernels" ]; then
	# the plugin, and each kernel's layers (from its System.map and
	# objects; Debian's stock kernel's come from its modules, in cost.py)
	"$RFC_HARNESS/bench/insn-plugin/build.sh" >/dev/null || die "the insn-count plugin did not build"
	for k in $cost_kernels; do
		case "$k" in
		ours) kb=$CACHE/build/main ;;
		base) kb=$CACHE/build/base
			[ "$base_part" = 0 ] || kb=${base_k%/arch/x86/boot/bzImage} ;;
		*) continue ;;
		esac
		/usr/bin/python3 "$RFC_HARNESS/bench/cost.py" layers "$kb" "$out/layers-$k.txt" >/dev/null ||
			die "no layers for $k from $kb"
		cost_maps+=(--map "$k=$kb/System.map")
	done
fi
msg "make bench ($mode): $out"
start=$SECONDS failed=0

# run NAME SERVER_KERNEL CLIENT_KERNEL CLIENT-ARGS...: one guest pair.
# Debian's stock kernel has crashed under TCG between two stock guests
# (list corruption in rxe_receiver, a double fault) and killed a shell of
# its own (a general protection fault in libc): a pair in which a stock
# guest did either is run again as lib.sh's retry_spoiled allows, and
# said so in the report; a crash of our kernel is never retried.
# RUN_KIND=cost in front of the call: a cost pair (guest/cost-client.sh,
# both guests counted, the server --still), RUN_LAYERS the plugin's
# layers file
retries=()
run() {
	local name=$1 sk=$2 ck=$3 line rc=0
	shift 3
	rm -f "$out/$name.retry"
	RETRY_LOG=$out/$name.retry RETRY_KEEP=$out/crashed \
		retry_spoiled "$out/$name" "stock_trouble_of $sk $ck" "$name" run_pair "$@" || rc=$?
	if [ -f "$out/$name.retry" ]; then
		while IFS= read -r line; do retries+=("${line#\# RETRY }"); done <"$out/$name.retry"
	fi
	[ "$rc" != 0 ] || return 0
	failed=1
	msg "$name failed: $(tail -n 1 "$out/$name.log")"
	ktap_failures "$out/$name"/*/tests.ktap | head -n 5
}

# run_pair ARGS...: one attempt of run's guest pair $name ($sk, $ck)
run_pair() {
	local dir=$out/$name client=$RFC_HARNESS/guest/bench-client.sh
	local sargs="--no-trace --wait 2400" count=() lay=""
	[ "$RETRY_ATTEMPT" = 1 ] || msg "$name: again"
	msg "$name"
	if [ "${RUN_KIND:-}" = cost ]; then
		mkdir -p "$dir"
		client=$RFC_HARNESS/guest/cost-client.sh sargs="--no-trace --still --wait 2400"
		[ -z "${RUN_LAYERS:-}" ] || lay=",layers=$RUN_LAYERS"
		count=(--count "out=$dir/server.insn,fifo=$dir/insn.fifo,blocks=on$lay"
			"out=$dir/client.insn,peer=$dir/insn.fifo,blocks=on$lay")
	fi
	"$RFC_HARNESS/two-guest.sh" --results "$dir" --timeout 2400 \
		--client "$client" "${count[@]}" "$sk" "$ck" \
		--server-args "$sargs" "$@" >"$dir.log" 2>&1
}

# rpcrdma_of KERNEL: whose rpcrdma.ko KERNEL runs (data/kernels/:
# ours or stock), for the Receive buffers a server's settings give
rpcrdma_of() { kernel_info "$1" && echo "$K_RPCRDMA"; }

if [ -n "$sweep" ]; then
	# counters do not depend on the NFS version much: the sweep runs NFSv3
	run sweep-ours ours ours --kind sweep --kernel ours --memory "$(rpcrdma_of ours)" \
		--configs "$sweep" --versions 3 --workloads "$sweep_wl" --runtime 2
	[ "$mode" = sweep ] ||
		run sweep-stock "$stock_k" "$stock_k" --kind sweep --kernel stock \
			--memory "$(rpcrdma_of "$stock_k")" --configs def --versions 3 \
			--workloads "$sweep_wl" --runtime 2
	run sweep-base "$base_k" "$base_k" --kind sweep --kernel base --memory "$(rpcrdma_of base)" \
		--configs def --versions 3 --workloads "$sweep_wl" --runtime 2
	# what a client without the series costs our server (the mem lines'
	# "stock-client"): Debian's stock client at its defaults against ours
	run sweep-stockclient ours "$stock_k" --kind sweep --kernel stock-client \
		--memory "$(rpcrdma_of ours)" --configs def --versions 3 --workloads "$sweep_wl" --runtime 2
fi
# The timed rounds: one boot of each kernel on both sides per round, in
# an order that changes from round to round so that a drift of the
# machine during the run weighs on each kernel alike, and that keeps
# ours and the base next to each other: ours / base, the headline, is a
# pair of boots a few minutes apart, never two boots of stock apart (a
# machine that slowed down threefold between two boots of a round made
# such a pair 0.3x).  The orders, by place in BENCH_KERNELS (ours base
# stock), round after round: 1 2 3 (ours base stock); 3 2 1; 2 1 3;
# 3 1 2: the first two are next to each other in every round.
orders=("0 1 2" "2 1 0" "1 0 2" "2 0 1")
# round_run ROUND KERNEL: KERNEL's boot of the round, on both sides: the
# series at its defaults (and 4 KiB with BENCH_4K), another kernel at
# its defaults; our builds (the host's userland over 9p) measure the
# link first
round_run() {
	local gk=$2 cfgs=def pt=()
	[ "$2" != base ] || gk=$base_k
	! kernel_is "$2" rpcrdma=ours || cfgs=$ours_cfgs
	! kernel_is "$2" root=9p || pt=(--perftest "$link")
	run "round$1-$2" "$gk" "$gk" "${common[@]}" --kernel "$(role_of "$2")" "${pt[@]}" \
		--configs "$cfgs"
}
for ((i = 1; i <= rounds; i++)); do
	common=(--kind timed --round "$i" --versions "$versions" --workloads "$workloads"
		--runtime "$runtime" --files "$files" --perftest-seconds "$ptsec")
	for p in ${orders[$(((i - 1) % ${#orders[@]}))]}; do
		[ -n "${kernels[p]:-}" ] || continue
		round_run "$i" "${kernels[p]}"
	done
done
# The cost: BOOTS boots of each kernel, in turn (a drift of the machine
# changes no count, but a boot of each kernel stays next to the others)
# run_loop NAME KERNEL GUEST_KERNEL LAYERS BOOT [THRESHOLDS]: one loop boot
# (cost-client.sh --thresholds THRESHOLDS when given), in the
# background (its status in NAME.rc): its counts follow the instructions
# alone, so BENCH_COST_JOBS (default 2, one per host core) boot at once
run_loop() {
	local dir=$out/$1 lay="" rc=0 inject
	[ -z "$4" ] || lay=",layers=$4"
	inject=$(boot_inject is_debian_stock "$3")
	mkdir -p "$dir"
	msg "$1"
	"$RFC_HARNESS/guest.sh" --quiet --kernel "$3" --name cost --results "$dir/client" --timeout 2400 \
		--cpus "$cost_cpus" --count "out=$dir/client.insn,blocks=on$lay" --icount --append "rfc8797.inject=$inject" \
		"$RFC_HARNESS/guest/cost-client.sh" --loop --kernel "$2" --boot "$5" \
		--versions "$cost_versions" --workloads "$cost_workloads" --iodepth "$iodepth" \
		${6:+--thresholds "$6"} >"$dir.log" 2>&1 || rc=$?
	echo "$rc" >"$dir.rc"
	echo "$rc" >"$dir/client.exit"	# for guest_trouble
	[ "$rc" = 0 ] && return 0
	msg "$1 failed: $(tail -n 1 "$dir.log")"
	ktap_failures "$dir"/client/tests.ktap | head -n 5
	return 1
}
cost_jobs=${BENCH_COST_JOBS:-2}
[[ "$cost_jobs" =~ ^[1-9]$ ]] || die "BENCH_COST_JOBS=$cost_jobs: 1 to 9 loop boots at once"
# a loop guest's vCPUs: with one, every figure repeated within 1.54%
# (mainline) and 1.15% (6.12) with meta and random writes in three
# rounds (cost-client.sh), where one window's scheduler work in rest had
# spread meta by 2.47% and a low window of writes through a Read chunk
# by 7.51% (HARNESS.rst); with two, where Debian's wake-ups landed moved its
# context switches per RPC, and its figures by 2.7-9.3%, from boot to
# boot
cost_cpus=${BENCH_COST_CPUS:-1}
[[ "$cost_cpus" =~ ^[1-8]$ ]] || die "BENCH_COST_CPUS=$cost_cpus: 1 to 8 vCPUs per loop guest"
# cost_guest KERNEL: gk, the kernel guest.sh boots for it, and lf, its
# layers file (empty when there is none: Debian's kernel)
cost_guest() {
	gk=$(kernel_of "$1")
	lf=$out/layers-$1.txt
	[ -f "$lf" ] || lf=""
}
# the loop boots first, COST_JOBS at a time; then the pairs, one at a
# time (a pair's scheduler and packet path follow the host's load)
loops=()
for ((b = 1; b <= boots; b++)); do
	for k in $cost_kernels; do
		[[ " $topologies " = *" loop "* ]] || continue
		cost_guest "$k"
		wait_for_slot "$cost_jobs" "${loops[@]}"
		th=""
		[ "$k" != ours ] || th=${cost_th:-}
		# Debian's kernel gets the Debian retry policy, as in the pairs
		RETRY_LOG=$out/cost$b-$k-loop.retry RETRY_KEEP=$out/crashed \
			retry_spoiled "$out/cost$b-$k-loop" "loop_trouble_of $gk" "cost$b-$k-loop" \
			run_loop "cost$b-$k-loop" "$k" "$gk" "$lf" "$b" "$th" &
		loops+=($!)
	done
done
[ ${#loops[@]} = 0 ] || wait "${loops[@]}"
for f in "$out"/cost*-loop.rc; do
	[ ! -f "$f" ] || [ "$(cat "$f")" = 0 ] || failed=1
done
for f in "$out"/cost*-loop.retry; do
	[ -f "$f" ] || continue
	while IFS= read -r line; do retries+=("${line#\# RETRY }"); done <"$f"
done
for ((b = 1; b <= boots; b++)); do
	for k in $cost_kernels; do
		[[ " $topologies " = *" pair "* ]] || continue
		cost_guest "$k"
		RUN_KIND=cost RUN_LAYERS=$lf run "cost$b-$k" "$gk" "$gk" --kernel "$k" --boot "$b" \
			--versions "$cost_versions" --workloads "$cost_workloads" --iodepth "$iodepth"
	done
done
# only the runs that completed (a retried pair's crashed run is renamed)
cat "$out"/*/client/bench.jsonl >"$out/bench.jsonl" 2>/dev/null
printf '%s\n' "${retries[@]}" >"$out/retries.txt"
cost_report() {
	local stock_map="" k
	[ -z "$(ls -d "$out"/cost*-* 2>/dev/null)" ] && return 0
	# Debian's kernel's symbols (the first of the cost's kernels)
	for k in $cost_kernels; do
		kernel_is "$(kernel_of "$k")" debian=yes || continue
		stock_map=$(kernel_info "$(kernel_of "$k")" && echo "$K_DIR/boot/System.map-$K_KREL")
		break
	done
	/usr/bin/python3 "$RFC_HARNESS/bench/cost.py" cases --stock-map "$stock_map" "${cost_maps[@]}" "$out"/cost[0-9]*-*/ \
		>"$out/cost.jsonl" &&
		/usr/bin/python3 "$RFC_HARNESS/bench/cost.py" report --kernels "$cost_kernels" --base "$RFC_BASE" \
			--seconds $((SECONDS - start)) "$out/cost.jsonl" "$out/cost.md"
}
if [ "$mode" = cost ]; then
	cost_report || failed=1
	cp "$out/cost.md" "$out/bench.md" 2>/dev/null
	# the boots Debian's kernel spoiled and that ran again
	if grep -q . "$out/retries.txt" 2>/dev/null; then
		printf '\n### Runs again\n\n' >>"$out/bench.md"
		grep . "$out/retries.txt" | sed "s/^/- /" >>"$out/bench.md"
	fi
	msg "bench: $out/bench.md"
	msg "bench ($mode): $((SECONDS - start)) s"
	exit $failed
fi
report_args=(--kernels "${roles[*]}" --stock-kernel "$stock_k")
[ -z "${BENCH_WORKLOADS:-}" ] || report_args+=(--workloads "$workloads")
# a base whose Send Queue waiters queue (upstream's svc_rdma_sq_wait, in
# mainline) does not retry a full Send Queue, which the 1 MiB read
# target counts on (Debian's 6.12 does)
! grep -qs svc_rdma_sq_wait "$base_src/net/sunrpc/xprtrdma/svc_rdma_sendto.c" ||
	report_args+=(--base-sq-queued)
[ "$base_part" = 0 ] ||
	report_args+=(--base-part "$(grep -v '^#' "$PATCHES/series" | sed -n "${base_part}{s/ .*//;p}")")
/usr/bin/python3 "$RFC_HARNESS/bench/report.py" --mode "$mode" --seconds $((SECONDS - start)) "${report_args[@]}" \
	--retries "$out/retries.txt" "$out/bench.jsonl" "$out" || failed=1
if [ "$boots" != 0 ]; then
	cost_report || failed=1
	cat "$out/cost.md" >>"$out/bench.md" 2>/dev/null
fi
if [ "$failed" = 0 ]; then
	msg "bench: $out/bench.md"
else
	msg "bench: a run or a target failed, see $out/bench.md"
fi
msg "bench ($mode): $((SECONDS - start)) s"
exit $failed
