#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of make bench BENCH=cost (bench.sh runs it through
# two-guest.sh --count; the server half is guest/interop-server.sh
# --still).  Both guests run under the insn-count plugin
# (bench/insn-plugin): every marker this guest executes (insn-mark)
# dumps this guest's instruction counts and, through the plugins' FIFO,
# the server guest's at the same point.
#
# Fixed work, not time: each workload is a fio job of NUMBER_IOS I/Os
# (fio --number_ios, O_DIRECT, libaio at a fixed iodepth, a fixed random
# seed: the same offsets every boot) on one file the server wrote, after
# a warm-up run of the same job (random writes: in WRITE_ROUNDS windows
# of a share of the I/Os each); metadata is FILES files created,
# stat'ed, listed, read and removed, in META_ROUNDS windows after a
# warm-up of a quarter of FILES.  Markers bracket the measured run
# only: fio's exec_prerun and exec_postrun run insn-mark after fio has
# started and once its I/O is done.  Before the window the client asks
# the server for its counters (RPCs from nfsd's statistics) and then
# waits a second, so that the server is idle when the window opens.
#
# Two calibration windows per boot, on both sides:
#   idle   insn-mark N SEC N+1: what an idle guest executes per second
#   fixed  sh -c "insn-mark N"; sh -c "insn-mark N+1": what the markers
#          themselves cost (a shell started, a process ended), as fio's
#          prerun and postrun do
# The host (bench/cost.py) subtracts both from each window.
#
# The server grants no NFSv4 delegation (lib-setup.sh no_delegations,
# here or in interop-server.sh --still).  nfsd grants none while a
# grace period lasts (locks_in_grace; lockd's is 50 s by default), so
# which window gets them follows the guest's clock: Debian's 6.12 began
# in the third NFSv4.2 meta round of every boot, with a DELEGRETURN per
# file (7004 RPCs against 6004 in the first two rounds, and per-RPC
# figures 2.7% apart), the other kernels in none.  Without delegations
# every round of every kernel has the same RPCs (the base's NFSv4.2
# meta moved by 0.3%).
#
# One JSON line per window in /results/cost.jsonl:
#   {"kind":"cost-window","wl":W,"vers":V,"a":MARK,"b":MARK,"th":N,"rpcs":N,
#    "srpcs":N,"retrans":N,"rc_hits":N,"ios":N,"round":N,...}
# (several windows of one workload in a boot: "round" 1, 2, ...; the
# host takes each figure's median over them)
#
# --loop: one guest is client and server (an NFS server over rxe on a
# dummy netdev, mounted from the same kernel), no server guest: the
# whole exchange runs in one QEMU thread, and with guest.sh --icount in
# instruction-driven time, so that the same work executes the same
# instructions even where batching and wake-ups decide ("topology":
# "loop" in the JSON lines; the client's and the server's layers stay
# apart by layer, nfs and nfsd, the rest is shared).
#
#   cost-client.sh --kernel NAME --boot N [--versions "3 4.2"]
#       [--workloads "WL..."] [--iodepth N] [--files N] [--idle SEC] [--loop]
#       [--thresholds "1024 4096 16384"] [--meta-rounds N] [--write-rounds N]
#
# --meta-rounds (default 3): the metadata workload's windows per NFS
# version.  Its scheduler work moves from one window to the next, in
# one boot as much as across boots: the base's NFSv4.2 "rest" was
# 70,400-72,220 instructions per RPC over four windows in each of three
# boots (mainline), and one window per boot spread its total by 2.2%.
#
# --write-rounds (default 3): the random writes' windows, each of a
# third of the I/Os (667 of 2000), after one warm-up.  Now and then one
# window of writes through a Read chunk runs 9-13% low, all of it in
# the scheduler's and the workqueues' share (HARNESS.rst): our 6.12
# kernel's NFSv4.2 8 KiB writes, one window in one boot, between
# windows that were not (bench 20261128-131656, 7.51%).  The median of
# three rounds outvotes one such window.
#
# --thresholds (--loop only): after the workloads, 4 KiB random reads
# and writes again over the first NFS version with client and server
# set to each of these inline thresholds (the client's
# rdma_max_inline_read/write, the server's max_req_size, its
# max_send_size following it), a mount each; windows "WL@N".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
ktap_begin cost-client
kernel=ours boot=1 versions="3 4.2" iodepth=16 files=1000 idle=4 loop=0 thresholds="" meta_rounds=3
write_rounds=3
workloads="randread-4k randwrite-4k randread-8k randwrite-8k read-1m write-1m meta"
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--boot) boot=$2; shift 2 ;;
	--versions) versions=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	--iodepth) iodepth=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--idle) idle=$2; shift 2 ;;
	--loop) loop=1; shift ;;
	--thresholds) thresholds=$2; shift 2 ;;
	--meta-rounds) meta_rounds=$2; shift 2 ;;
	--write-rounds) write_rounds=$2; shift 2 ;;
	*) fail cost-args "unknown argument $1"; exit 1 ;;
	esac
done
[ -z "$thresholds" ] || [ "$loop" = 1 ] || { fail cost-args "--thresholds needs --loop"; exit 1; }
[[ "$meta_rounds" =~ ^[1-9]$ ]] || { fail cost-args "--meta-rounds $meta_rounds: 1 to 9"; exit 1; }
[[ "$write_rounds" =~ ^[1-9]$ ]] || { fail cost-args "--write-rounds $write_rounds: 1 to 9"; exit 1; }
OUT=/results/cost.jsonl
# no trace event enabled while counting (guest/lib.sh cm_trace_start)
CM_TRACE_OFF=1
MARK=$RFC_CACHE/insn-plugin/insn-mark
[ -x "$MARK" ] || { fail cost-setup "no $MARK"; exit 1; }
# the data file: large enough for every workload's I/Os
DATA_MB=96

# fixed work per workload: "NUMBER_IOS WARMUP_IOS"
ios_of() {
	case "$1" in
	rand*-4k | rand*-8k) echo "2000 100" ;;
	rand*) echo "1000 100" ;;
	read-1m | write-1m) echo "64 4" ;;
	esac
}

# next_mark: the next free pair of marker numbers, in MA and MB
next=10
next_mark() { MA=$next MB=$((next + 1)) next=$((next + 2)); }
# the round of the next window (rounds; 1 outside them)
ROUND=1

# mount_rpcs MNT: "RPCS RETRANS" of MNT: the RPCs the mount sent (the
# per-operation counts added) and its retransmissions (transmissions
# beyond one per operation, timeouts included), from /proc/self/mountstats
mount_rpcs() {
	awk -v m=" $1 " '
		/^device / { if (cur) exit; cur = index($0, "mounted on" m) > 0; next }
		cur && /per-op statistics/ { po = 1; next }
		cur && po && $1 ~ /:$/ && NF >= 4 { ops += $2; tx += $3 }
		END { printf "%d %d\n", ops, tx - ops }
	' /proc/self/mountstats
}

# server_counts: "RPCS RC_HITS" of the server's nfsd
server_counts() {
	local s k a _ rpcs=na hits=na
	if [ "$loop" = 1 ]; then
		while read -r k a _; do
			case "$k" in rpc) rpcs=$a ;; rc) hits=$a ;; esac
		done </proc/net/rpc/nfsd
		echo "$rpcs $hits"
		return
	fi
	s=$(server_ask nfsd-counts) || { echo "na na"; return; }
	echo "$(field nfsd_rpcs "$s" na) $(field nfsd_rc_hits "$s" na)"
}

# window WL VERS IOS CMD...: runs CMD, which must execute markers $MA
# and $MB around the work, between two readings of both sides'
# counters; writes one JSON line
window() {
	local wl=$1 v=$2 ios=$3 c0 c1 s0 s1 rc
	shift 3
	c0=$(mount_rpcs "$mnt") s0=$(server_counts)
	# the server's answer is written; let its listener finish
	read -r -t 1 -u 8
	"$@"
	rc=$?
	c1=$(mount_rpcs "$mnt") s1=$(server_counts)
	local -a a b x y
	read -ra a <<<"$c0"
	read -ra b <<<"$c1"
	read -ra x <<<"$s0"
	read -ra y <<<"$s1"
	num() { [[ "$1" =~ ^[0-9]+$ && "$2" =~ ^[0-9]+$ ]] && echo $(($2 - $1)) || echo '"na"'; }
	# the client's inline read threshold (a stock client without
	# CONFIG_SUNRPC_DEBUG has no such sysctl: "na")
	local th='"na"'
	read -r th 2>/dev/null </proc/sys/sunrpc/rdma_max_inline_read
	printf '{"kind":"cost-window","topology":"%s","kernel":"%s","boot":%s,"wl":"%s","vers":"%s","a":%s,"b":%s,"rc":%s,"ios":%s,"iodepth":%s,"th":%s,"rpcs":%s,"retrans":%s,"srpcs":%s,"rc_hits":%s,"round":%s}\n' \
		"$topo" "$kernel" "$boot" "$wl" "$v" "$MA" "$MB" "$rc" "$ios" "$iodepth" "$th" \
		"$(num "${a[0]}" "${b[0]}")" "$(num "${a[1]}" "${b[1]}")" \
		"$(num "${x[0]}" "${y[0]}")" "$(num "${x[1]}" "${y[1]}")" "$ROUND" >>$OUT
	return $rc
}

# fio_job DIR WL NUMBER_IOS [PRERUN POSTRUN]: the workload's fio job
fio_job() {
	local bs=${2#*-} rw=${2%-*} extra=()
	[ $# -lt 5 ] || extra=(--exec_prerun="$4" --exec_postrun="$5")
	timeout -k 10 600 fio --name="$2" --filename="$1/data" --rw="$rw" --bs="$bs" \
		--size=${DATA_MB}m --number_ios="$3" --ioengine=libaio --iodepth="$iodepth" \
		--direct=1 --randrepeat=1 --randseed=8797 --norandommap \
		--output-format=json --output=/tmp/fio.json "${extra[@]}" >/dev/null 2>&1 &&
		python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
n = j["read"]["total_ios"] + j["write"]["total_ios"]
sys.exit(0 if n == int(sys.argv[2]) and not j.get("error") else 1)' /tmp/fio.json "$3"
}

# run_meta DIR N [MARK_A MARK_B]: N files created, stat'ed, listed,
# read back and removed, markers around it (python started already)
run_meta() {
	timeout 600 python3 "$(dirname "$0")/meta-workload.py" "$1/meta" "$2" \
		"$MARK" "${3:-}" "${4:-}" >/dev/null
}

# fio_window TEST WL VERS NAME: a warm-up of workload WL, then its
# measured run between two markers, a window named NAME
# (random writes: --write-rounds windows of a share of the I/Os each)
fio_window() {
	local n w r=1
	read -r n w <<<"$(ios_of "$2")"
	[ -n "$n" ] || { fail "$1-$4" "no such workload"; return 1; }
	[[ "$2" != randwrite-* ]] || r=$write_rounds n=$(((n + write_rounds - 1) / write_rounds))
	fio_job "$mnt/cost" "$2" "$w" || { fail "$1-$4" "warm-up failed"; return 1; }
	if rounds "$r" "$4" "$3" "$n" fio_marked "$2" "$n"; then
		pass "$1-$4"
	else
		fail "$1-$4" "fio failed in round $?: $(head -c 300 /tmp/fio.json 2>/dev/null | tr '\n' ' ')"
	fi
}

# rounds N WL VERS IOS CMD...: N windows of CMD (window), each between
# markers of its own, which CMD takes from MA and MB, JSON "round" 1
# to N; stops at the first that fails.  Status: 0, or the failed round
rounds() {
	local n=$1 rc=0
	shift
	for ((ROUND = 1; ROUND <= n; ROUND++)); do
		next_mark
		window "$@" || { rc=$ROUND; break; }
	done
	ROUND=1
	return $rc
}

# the commands of rounds: fio_marked WL N, N I/Os of fio workload WL;
# meta_marked, the metadata workload of FILES files
fio_marked() { fio_job "$mnt/cost" "$1" "$2" "$MARK $MA" "$MARK $MB"; }
meta_marked() { run_meta "$mnt/cost" "$files" "$MA" "$MB"; }
marks_fixed() { sh -c "$MARK $MA" && sh -c "$MARK $MB"; }
marks_idle() { "$MARK" "$MA" "$idle" "$MB"; }

modprobe rpcrdma 2>/dev/null
echo "client kernel: $(uname -r)"
# module load addresses (Debian's kernel: the layers are modules)
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
if [ "$loop" = 1 ]; then
	topo=loop
	setup_nfs_rdma cost-
	no_delegations || { fail cost-setup "fs.leases-enable refused 0"; exit 1; }
else
	topo=pair
	nic=$(nic_up) || { fail cost-setup "no NIC"; exit 1; }
	setup_rdma rxe "$nic" 192.0.2.2/24 || { fail cost-setup "rdma link add failed"; exit 1; }
	wait_server
fi
# a FIFO nobody writes: "read -t" waits without starting a process
mkfifo /tmp/still && exec 8<>/tmp/still
mnt=/mnt/cost
first=1
for v in $versions; do
	t=cost-$kernel-nfs$v
	mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
	if [ "$first" = 1 ]; then
		# the file every fio workload reads or overwrites, written
		# by the server at memory speed (interop-server.sh "prep")
		if [ "$loop" = 1 ]; then
			mkdir -p "$EXPORT/cost" &&
				timeout 120 fio --name=prep --filename="$EXPORT/cost/data" --rw=write --bs=1m \
					--size=${DATA_MB}m --output=/dev/null >/dev/null 2>&1 ||
				{ fail "$t-prep" "writing the data file failed"; exit 1; }
		else
			[ "$(server_ask "prep cost/data ${DATA_MB}m")" = "prep ok" ] ||
				{ fail "$t-prep" "the server did not write the data file"; exit 1; }
		fi
		echo 2 >/proc/sys/vm/drop_caches
		# the calibration windows, once a boot, with the mount up
		next_mark
		window fixed - 0 marks_fixed || fail "$t-fixed" "the markers failed"
		next_mark
		window idle - 0 marks_idle || fail "$t-idle" "the idle window failed"
		first=0
	fi
	for wl in $workloads; do
		case "$wl" in
		meta)
			run_meta "$mnt/cost" $(((files + 3) / 4)) || { fail "$t-$wl" "warm-up failed"; continue; }
			if rounds "$meta_rounds" "$wl" "$v" "$files" meta_marked; then
				pass "$t-$wl"
			else
				fail "$t-$wl" "metadata round $? failed"
			fi ;;
		*) fio_window "$t" "$wl" "$v" "$wl" ;;
		esac
	done
	umount_nfs "$mnt"
done
# the 4 KiB workloads at other inline thresholds, both ends set alike
if [ -n "$thresholds" ]; then
	v=${versions%% *} svc=/proc/sys/sunrpc/svc_rdma
	read -r read0 </proc/sys/sunrpc/rdma_max_inline_read
	read -r write0 </proc/sys/sunrpc/rdma_max_inline_write
	read -r req0 <$svc/max_req_size
	for th in $thresholds; do
		t=cost-$kernel-nfs$v-th$th
		client_set max_inline_read "$th" && client_set max_inline_write "$th" &&
			echo "$th" >$svc/max_req_size && { [ ! -e $svc/max_send_size ] || echo 0 >$svc/max_send_size; } ||
			{ fail "$t-set" "a knob refused $th"; continue; }
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		for wl in randread-4k randwrite-4k; do
			fio_window "$t" "$wl" "$v" "$wl@$th"
		done
		umount_nfs "$mnt"
	done
	client_set max_inline_read "$read0"
	client_set max_inline_write "$write0"
	echo "$req0" >$svc/max_req_size
fi
# where the modules of a modular kernel were (Debian's): name, .text
for m in /sys/module/*/sections/.text; do
	[ -r "$m" ] && echo "$(basename "$(dirname "$(dirname "$m")")") $(cat "$m")"
done >/results/modules-text.txt 2>/dev/null
# and its text symbols (Debian's System.map is a placeholder; the
# modules' symbols carry their module's name)
# (/proc files have no size: read one line)
! read -r _ </proc/modules || grep -E '^[0-9a-f]+ [tTwW] ' /proc/kallsyms >/results/kallsyms.txt
if [ "$loop" = 0 ]; then
	mount_nfs 3 /mnt/done && { touch "/mnt/done/DONE"; umount_nfs /mnt/done; }
	# the server waits on a FIFO (interop-server.sh --still): wake it
	server_ask wake >/dev/null
fi
check_dmesg "cost-$kernel-client-dmesg-clean"
ktap_finished
