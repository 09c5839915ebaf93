#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of make bench (bench.sh runs it through two-guest.sh
# --client; the server half is guest/interop-server.sh, whose knobs and
# memory counts this script asks for over plain TCP).
#
# For every configuration CFG it sets both peers' inline thresholds
# (and R), mounts each NFS version over RDMA and runs the workloads, one
# mount each, every one verified: fio O_DIRECT libaio iodepth 16 random
# reads and writes of 4, 8 and 16 KiB (randread-4k ... randwrite-16k),
# 1 MiB sequential reads and writes (read-1m, write-1m) and a metadata
# phase (meta: create, stat, list, read back and remove FILES small
# files).  Reads check every block against prep's checksum and offset;
# every block a write wrote is read back afterwards (write_check).  Each
# workload adds one JSON line to /results/bench.jsonl with its rate
# (iops: fio's I/O rate of the measured direction, or metadata
# operations per second), the blocks checked, and the counters of its
# mount over the measured phase: RPCs, chunk segments
# (one memory registration each), LOCAL_INVs, replies with remote
# invalidation (ours), the server's Sends with and without invalidate
# (ours) and its Send Queue full waits.  A workload that fails its
# verification is a KTAP failure and has no rate.
#
# With --memory RPCRDMA (whose rpcrdma.ko the server runs, ours or stock:
# data/kernels/), after each mount and again after the last workload the
# Receive (and the server's Send) buffers that both sides allocated for
# the connection are counted (kmem:kmalloc) and written as "mem" lines;
# our server's count at connect must equal what its settings give:
# (2 * max_requests + 7) Receives of the kmalloc size of recv_buf.
#
#   bench-client.sh --kind timed|sweep --round N --kernel NAME
#       [--configs "CFG..."] [--versions "3 4.2"] [--workloads "WL..."]
#       [--runtime SEC] [--files N] [--memory RPCRDMA]
# CFG: def (the values each side booted with), 4k (4096 both ways, stock
# 6.12's defaults), or th=N,r=R (N octets both ways, R offered or not).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
ktap_begin bench-client
kind=timed round=0 kernel=ours configs=def versions="3 4.2" runtime=5 files=1000 memory=0
server_rpcrdma=ours
perftest="" ptsec=3
workloads="randread-4k randwrite-4k randread-8k randwrite-8k randread-16k randwrite-16k read-1m write-1m meta"
while [ $# -gt 0 ]; do
	case "$1" in
	--kind) kind=$2; shift 2 ;;
	--round) round=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--versions) versions=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--memory) memory=1 server_rpcrdma=$2; shift 2 ;;
	--perftest) perftest=$2; shift 2 ;;
	--perftest-seconds) ptsec=$2; shift 2 ;;
	*) fail bench-args "unknown argument $1"; exit 1 ;;
	esac
done
OUT=/results/bench.jsonl
SYS=/proc/sys/sunrpc

# ask LINE: the server's answer to one request (interop-server.sh)
ask() { server_ask "$1"; }


# counters MNT: the client's and the server's counters, one line of
# key=value (na where this kernel has no such counter): the fields of
# the rdma xprt line of MNT in /proc/self/mountstats that mstat
# (guest/lib.sh) names sends, chunk_segs (13 + 14 + 15), local_inv and
# reminv, read in one pass; and the server's Send counters, once they
# have stopped moving (interop-server.sh "counters")
counters() {
	local s cpu
	cpu_counts cpu
	s=$(ask counters)
	awk -v m=" $1 " '
		function f(n) { return n <= NF ? $n : "na" }
		/^device / { if (cur) exit; cur = index($0, "mounted on" m) > 0 }
		cur && $1 == "xprt:" && $2 == "rdma" {
			segs = NF >= 15 ? $13 + $14 + $15 : "na"
			printf "rpcs=%s segs=%s linv=%s rinv=%s", f(8), segs, f(27), f(30)
			ok = 1
		}
		# per-op: ops transmissions timeouts sent received queue rtt
		# execute (milliseconds, summed over the ops)
		cur && ($1 == "READ:" || $1 == "WRITE:") && NF >= 9 {
			o = tolower(substr($1, 1, 2))
			op = op sprintf(" %s_ops=%s %s_q=%s %s_rtt=%s %s_exe=%s", o, $2, o, $7, o, $8, o, $9)
		}
		END {
			if (!ok) printf "rpcs=na segs=na linv=na rinv=na"
			printf "%s", op
		}
	' /proc/self/mountstats
	echo -n " swi=$(field send_inv "$s" na) splain=$(field send_plain "$s" na) sq=$(field SQ "$s" na)"
	# the link and the CPU time, both sides (guest/lib.sh link_counts,
	# cpu_counts; each side's CPUs read first, when asked): the
	# server's prefixed s_, the client's c_ (no process per field:
	# each costs tens of milliseconds under TCG)
	local w lk
	link_counts lk
	for w in $s; do [[ "$w" = lk_* ]] && echo -n " s_${w#lk_}"; done
	for w in $lk $cpu; do echo -n " c_${w#lk_}"; done
	echo
}

# server_counted LINE: LINE (counters) has the server's link and CPU
# counters, s_pk and s_cpu
server_counted() { [[ " $1" = *" s_pk="* && " $1" = *" s_cpu="* ]]; }

# delta KEY BEFORE AFTER: AFTER's KEY minus BEFORE's, "na" unless both
# are numbers
delta() {
	local a b
	a=$(field "$1" "$2" na) b=$(field "$1" "$3" na)
	[[ "$a" =~ ^[0-9]+$ && "$b" =~ ^[0-9]+$ ]] && echo $((b - a)) || echo '"na"'
}

# link_json BEFORE AFTER: the deltas of both sides' link counters and
# CPU times (the s_ and c_ keys counters prints, named by guest/lib.sh
# link_counts and cpu_counts) as JSON members (,"s_pk":N,...), "na"
# unless both readings are numbers
link_json() {
	local -A x
	local w k v out=""
	for w in $1; do x[${w%%=*}]=${w#*=}; done
	for w in $2; do
		k=${w%%=*} v=${w#*=}
		[[ "$k" = [sc]_* ]] || continue
		[[ "${x[$k]:-}" =~ ^[0-9]+$ && "$v" =~ ^[0-9]+$ ]] && v=$((v - x[$k])) || v='"na"'
		out+=",\"$k\":$v"
	done
	echo "$out"
}

# configure CFG: both peers' settings for CFG; prints the threshold the
# configuration asks for (0 for def: whatever each side booted with)
configure() {
	local th r
	case "$1" in
	def)
		client_set max_inline_read "$(cat /tmp/boot-read)" &&
			client_set max_inline_write "$(cat /tmp/boot-write)" || return 1
		[ ! -e $SYS/rdma_remote_invalidation ] || client_set remote_invalidation 1 || return 1
		[ "$(ask "set max_req_size=default max_send_size=default remote_invalidation=default")" = "set ok" ] ||
			return 1
		echo 0
		return ;;
	4k) th=4096 r=1 ;;
	th=*,r=*) th=${1#th=}; th=${th%%,*}; r=${1##*r=} ;;
	*) return 1 ;;
	esac
	client_set max_inline_read "$th" && client_set max_inline_write "$th" || return 1
	if [ -e $SYS/rdma_remote_invalidation ]; then
		client_set remote_invalidation "$r" || return 1
	elif [ "$r" != 1 ]; then
		return 1	# a stock client always offers R
	fi
	[ "$(ask "set max_req_size=$th max_send_size=0 remote_invalidation=$r")" = "set ok" ] || return 1
	echo "$th"
}

# fio_ios JSONFILE read|write: "IOS RATE MS", how many I/Os of that
# direction fio did, its rate of them and the milliseconds they took;
# fails when the job reported an error (fio counts an I/O when it is
# submitted, not when it passed its check)
fio_ios() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j[sys.argv[2]]["total_ios"], "%.1f" % j[sys.argv[2]]["iops"], j[sys.argv[2]]["runtime"])
sys.exit(1 if j.get("error") else 0)' "$1" "$2" 2>/dev/null
}

# prep FILE SIZE: the file the reads read (not measured), written by
# the server guest into its export at memory speed (interop-server.sh
# "prep": 1 MiB writes whose every 4 KiB carries its checksum and offset,
# --verify_interval), so that reads of any size check each 4 KiB they
# read.  Writing it over NFS took longer than the workloads that read
# it.  This client never looks FILE up before the server has made it
# (no negative dentry to trust), and drops its dentries after all the
# same.
prep() {
	[ "$(ask "prep ${1#"$mnt"/} $2")" = "prep ok" ] || return 1
	echo 2 >/proc/sys/vm/drop_caches
	[ -s "$1" ]
}

# wl_args DIR WL: the file, block size and file size of fio workload WL.
# A workload goes over its file once at most (fio does not go over a
# file again when it checks what it reads, time_based or not, and
# write_check replays one pass of a write), so every file is larger than
# a window of the fastest workload under TCG can cover: 64 MiB per
# second of window (twice the 1 MiB reads seen), so that each rate
# covers its whole window; run_fio fails a workload that ended before
# it all the same.  The reads share one file, written once per boot by
# prep; each write has a file of its own, sparse (1 GiB: no write
# window under TCG fills it) and removed after its check: the export is
# a 768 MiB tmpfs.
wl_args() {
	local bs=${2#*-} rw=${2%%-*}
	rw=${rw#rand}
	case "$rw" in
	write) echo "$1/$rw-$bs $bs 1g" ;;
	*) echo "$1/read-data $bs $((runtime > 1 ? runtime * 64 : 64))m" ;;
	esac
}

# fio_prep DIR WL: the file WL reads or overwrites, written before the
# counters' first snapshot (so that no workload's counts include it); a
# write workload's file only has to exist and to hold anything but the
# pattern that workload will write: a hole
fio_prep() {
	local f bs size
	read -r f bs size <<<"$(wl_args "$1" "$2")"
	case "$2" in
	*write*) rm -f "$f" && timeout 60 truncate -s "$size" "$f" ;;
	*) prep "$f" "$size" ;;
	esac
}

# A write workload writes a pattern of its own (a token new for each run
# followed by each block's offset, --verify_pattern=0xTOKEN%o) with a
# random seed it keeps (--randseed) and saves fio's verify state in
# $AUX.  fio's own read-back after a write phase stops at --runtime, so
# a write phase that runs until its time limit would never be read back:
# write_check reads every written block afterwards, outside the counted
# phase.  wseed and wtoken are set by the caller for each write run.
AUX=/tmp/fio-state
write_args() {
	echo "--verify=pattern --verify_pattern=0x$wtoken%o --randseed=$wseed --aux-path=$AUX"
}

# run_fio DIR WL: one fio workload on the file fio_prep wrote; prints
# "IOS RATE MS" (fio_ios), fails when fio or its job failed or ended
# before 95% of its window.  Reads check every 4 KiB they read against
# the checksum and offset prep wrote; writes are checked by write_check.
run_fio() {
	local rw=${2%-*} f bs size v
	read -r f bs size <<<"$(wl_args "$1" "$2")"
	case "$rw" in
	*write) rm -rf "$AUX" && mkdir -p "$AUX" && v="$(write_args) --do_verify=0" || return 1 ;;
	*) v="--verify=crc32c --verify_interval=4k --do_verify=1 --randrepeat=0" ;;
	esac
	# shellcheck disable=SC2086
	timeout -k 10 $((runtime * 4 + 120)) fio --name="$2" --filename="$f" --rw="$rw" \
		--bs="$bs" --size="$size" --runtime="$runtime" --ioengine=libaio --iodepth=16 \
		--direct=1 $v --verify_fatal=1 \
		--output-format=json --output=/tmp/fio.json >/dev/null 2>&1 || return 1
	local out ms
	case "$rw" in *write) out=$(fio_ios /tmp/fio.json write) ;; *) out=$(fio_ios /tmp/fio.json read) ;; esac || return 1
	echo "$out"
	# the rate must cover the window: 95% of it at least
	ms=${out##* }
	[[ "$ms" =~ ^[0-9]+$ ]] && ((ms * 100 >= runtime * 1000 * 95)) || {
		echo "$2 ended after $ms ms of its $runtime s window" >/tmp/fio-window
		return 1
	}
}

# write_check DIR WL WRITTEN: fio replays write workload WL from its saved state
# (same seed, as many blocks as it wrote) and reads each block back: one
# that does not hold this run's token and its own offset (a lost,
# misplaced or corrupted write) fails.  Prints "checked written rc": the
# blocks read back, WRITTEN (the blocks the workload wrote, as fio
# counted them) and fio's exit status
# (the count alone misses a bad block among the last ones read back:
# they were all submitted when fio stopped).
# RFC8797_INJECT=bench-write zeroes part of the file first, as if those
# writes had been lost, to show the check failing: the first 64 MiB of a
# random workload's 1 GiB file (a sixteenth: a window of a thousand
# writes or more leaves some there; the read-back stops short of the
# count), the last MiB write-1m wrote (only fio's status says so).
write_check() {
	local rw=${2%-*} w=$3 f bs size rc=0 c out off=0 n=64
	read -r f bs size <<<"$(wl_args "$1" "$2")"
	[ -s "$AUX/local-$2-0-verify.state" ] || { echo "- ${w:--} 1"; return 1; }
	if [ "$INJECT" = bench-write ]; then
		[ "$2" = write-1m ] && [ -n "$w" ] && off=$((w - 1)) n=1
		log "RFC8797_INJECT=bench-write: zeroing $n MiB from MiB $off of $f" >&2
		dd if=/dev/zero of="$f" bs=1M count="$n" seek="$off" conv=notrunc oflag=direct status=none
	fi
	# shellcheck disable=SC2046
	timeout -k 10 600 fio --name="$2" --filename="$f" --rw="$rw" --bs="$bs" --size="$size" \
		--ioengine=libaio --iodepth=16 --direct=1 $(write_args) --verify_fatal=1 \
		--verify_only --verify_state_load=1 \
		--output-format=json --output=/tmp/fio-check.json >/dev/null 2>/tmp/fio-check.err || rc=1
	out=$(fio_ios /tmp/fio-check.json read) || rc=1
	read -r c _ <<<"$out"
	echo "${c:--} ${w:--} $rc"
	return $rc
}

# run_meta MNT: create, stat, list, read back and remove $files files;
# prints operations per second
run_meta() {
	timeout 600 python3 "$(dirname "$0")/meta-workload.py" "$1/meta" "$files"
}

# perftest_one TEST SIZE DEPTH PORT ITERS: one perftest run over the
# rxe link, server side first (interop-server.sh "perftest"), rdma_cm on
# PORT, ITERS messages; prints "RATE SECONDS": messages per second and
# the window they took.  DEPTH 0 leaves perftest's own depth.  Output
# kept in /results/perftest/.
# Both sides wait for completions on events (-e), as the kernel's NFS
# does, except in write_bw, where perftest has no events: its default
# busy polling takes the vCPU from rxe's own work under TCG (ib_send_lat
# polling measured the 250 Hz tick, 259 round trips/s, and hangs with
# -e), so depth 1 is send_bw with one Send outstanding (-t 1).
# perftest's own rates were useless here while our test kernels kept
# time on jiffies (no HPET or ACPI PM timer before 2026-11-29: "tsc:
# Marking TSC unstable"): it times itself with the TSC at a frequency
# it calibrates against gettimeofday(), the calibration failed and it
# printed 0 or inf; its duration mode, which would count in real time,
# refuses -e.  So the window is timed here, from the line perftest
# prints just before its measured loop (the column header) to the
# result line after it, in the guest's real time.
perftest_one() {
	local tool=ib_$1 args out
	args="-s $2 -n $5"
	[ "$1" = write_bw ] || args="$args -e"
	[ "$3" = 0 ] || args="$args -t $3"
	out=/results/perftest/$1-$2-$3.txt
	mkdir -p /results/perftest
	[ "$(ask "perftest $tool $4 $args")" = "perftest listening" ] || {
		echo "the server side of $tool $args did not start" >>"$out"
		return 1
	}
	# shellcheck disable=SC2086
	timeout -k 5 $((ptsec * 10 + 60)) stdbuf -oL "$tool" -R -F -p "$4" $args "$SERVER_ADDR" 2>&1 |
		while IFS= read -r l; do echo "${EPOCHREALTIME/,/.} $l"; done >>"$out"
	[ "${PIPESTATUS[0]}" = 0 ] || return 1
	# header: " #bytes #iterations ..."; result: SIZE ITERS ...
	awk -v s="$2" -v n="$5" '
		$2 == "#bytes" { t0 = $1 }
		t0 && $2 == s && $3 == n { w = $1 - t0; ok = w > 0; exit }
		END { if (!ok) exit 1; printf "%.1f %.3f\n", n / w, w }' "$out"
}

# link_limit: every perftest of --perftest ("TEST:SIZE:DEPTH ..."), one
# "link" line each
link_limit() {
	local spec t sz d port=18515 r rate win try n
	for spec in $perftest; do
		IFS=: read -r t sz d <<<"$spec"
		# messages for about PTSEC seconds at the rates seen under
		# TCG (per second, depth 1 and 16: 4 KiB 580 and 1960, 8 KiB
		# 440 and 1140, 16 KiB 350 and 970; 1 MiB 16 to 20)
		case "$t:$d" in
		send_bw:1) n=$((ptsec * (sz > 8192 ? 350 : sz > 4096 ? 440 : 580))) ;;
		send_bw:*) n=$((ptsec * (sz > 8192 ? 970 : sz > 4096 ? 1140 : 1960))) ;;
		*) n=$((ptsec * 18)) ;;
		esac
		# a connection perftest failed to make (seen: a REJECT of
		# rdma_cm under TCG) is tried once more, on a new port
		for try in 1 2; do
			port=$((port + 1))
			r=$(perftest_one "$t" "$sz" "$d" "$port" "$n") && read -r rate win <<<"$r" &&
				[[ "$rate" =~ ^[0-9.]+$ ]] && break
			r=''
			log "perftest $t $sz depth $d, try $try failed: $(tail -n 2 "/results/perftest/$t-$sz-$d.txt" | tr '\n' ' ')"
		done
		if [ -n "$r" ]; then
			pass "link-$kernel-$t-$sz-d$d"
		else
			fail "link-$kernel-$t-$sz-d$d" "$(tail -n 3 "/results/perftest/$t-$sz-$d.txt" 2>/dev/null | tr '\n' ' ')"
			rate='"na"' win='"na"'
		fi
		printf '{"kind":"link","round":%s,"kernel":"%s","test":"%s","size":%s,"depth":%s,"rate":%s,"iters":%s,"seconds":%s,"tries":%s}\n' \
			"$round" "$kernel" "$t" "$sz" "$d" "$rate" "$n" "$win" "$try" >>$OUT
	done
}

# stamp VAR: sets VAR to the time in milliseconds (the phase times in
# the log)
stamp() {
	local t=${EPOCHREALTIME/[.,]/}
	printf -v "$1" %s $((t / 1000))
}

# memory WHEN CFG VERS MNT SIZE: one "mem" line of both sides' buffers
memory() {
	local s srv cli calc n b o q
	s=$(ask "mem $5")
	cli=$(kmalloc_count 'rpcrdma_(rep_create|regbuf_alloc)' "$5")
	srv=$(field recv "$s" na)
	# what the server's settings give at connect: 2 * max_requests + 7
	# Receives of recv_buf (SIZE, or SIZE + 1023 for a client without
	# the series), each taking its kmalloc size class when that is a
	# power of two, else its own slab cache of the size rounded up to
	# 1 KiB (our server; the stock and base servers use powers of two)
	n=$(( 2 * $(field max_requests "$s" na) + 7 ))
	b=$(field size "$s" na)
	[ "$b" = na ] && b=$5
	o=$b
	((b & (b - 1))) && o=$(kib_up "$b")
	calc="$n:$((n * o))"
	# the server's queue rings (qmem_count: N:OCTETS:LARGEST)
	q=$(field queues "$s" na)
	# connects: the client's connections since the mount (mountstats);
	# the counts cover all of them, so a reconnect adds a set of buffers
	printf '{"kind":"mem","when":"%s","round":%s,"kernel":"%s","cfg":"%s","vers":"%s","size":%s,"server_recv":"%s","server_send":"%s","client_recv":"%s","server_recv_calc":"%s","connects":"%s","server_queues":"%s","sq_depth":"%s"}\n' \
		"$1" "$round" "$kernel" "$2" "$3" "$5" "$srv" "$(field send "$s" na)" "${cli/ /:}" "$calc" \
		"$(mstat "$4" connects)" "$q" "$(field sq_depth "$s" na)" >>$OUT
	# the queue rings on every kernel: the report's "server queues"
	if [[ "$q" =~ ^[0-9]+:[0-9]+:[0-9]+$ ]]; then
		pass "mem-$1-$2-nfs$3-server-queues"
	else
		fail "mem-$1-$2-nfs$3-server-queues" "the server's answer had no queue rings: ${s:0:200}"
	fi
	# the series' server allocates what its settings give
	if [ "$1" = connect ] && [ "$server_rpcrdma" = ours ]; then
		if [ "$srv" = "$calc" ]; then
			pass "mem-$2-nfs$3-server-recv"
		else
			fail "mem-$2-nfs$3-server-recv" "allocated $srv (count:octets), settings give $calc"
		fi
	fi
}

modprobe rpcrdma 2>/dev/null	# the stock kernel's sysctls come with it
cat $SYS/rdma_max_inline_read >/tmp/boot-read
cat $SYS/rdma_max_inline_write >/tmp/boot-write
echo "client kernel: $(uname -r)"
nic=$(nic_up) || { fail bench-setup "no NIC"; exit 1; }
setup_rdma rxe "$nic" 192.0.2.2/24 || { fail bench-setup "rdma link add failed"; exit 1; }
wait_server
echo 16384 >/sys/kernel/tracing/buffer_size_kb 2>/dev/null
if [ -n "$perftest" ]; then
	stamp t0
	link_limit
	stamp t1
	# shellcheck disable=SC2154 # stamp sets t0 and t1
	log "link limit (perftest) ms: $((t1 - t0))"
fi

for cfg in $configs; do
	for v in $versions; do
		# the files are the same for every mount of this boot (fio_prep
		# writes them once): NFSv3 and v4.2 see the same export
		t=$kind-$kernel-$cfg-nfs$v mnt=/mnt/bench dir=/mnt/bench/b
		th=$(configure "$cfg") || { fail "$t-configure" "a knob refused $cfg"; continue; }
		size=$th
		[ "$size" = 0 ] && size=$(cat /tmp/boot-read)
		# the server: SIZE, or SIZE + 1023 for a client without the
		# series (its advertised size rounded down loses up to 1023)
		[ "$memory" = 0 ] || { kmalloc_mark "$size" &&
			[ "$(ask "mem-mark $size $((size + 1023))")" = "mem-mark ok" ]; } ||
			fail "$t-mem-mark" "kmem:kmalloc tracing"
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		mkdir -p "$dir"
		# rsize and wsize: how many READs or WRITEs one 1 MiB I/O takes
		log "$t: $(awk -v m="$mnt" '$2 == m { n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] ~ /^[rw]size=/) printf "%s ", o[i] }' /proc/mounts)"
		[ "$memory" = 0 ] || memory connect "$cfg" "$v" "$mnt" "$size"
		neg="c2s=$(xprt_info c2s) s2c=$(xprt_info s2c) r=$(xprt_info r)"
		for wl in $workloads; do
			stamp t0
			if [ "$wl" != meta ] && ! fio_prep "$dir" "$wl"; then
				fail "$t-$wl" "writing the file to $wl failed"
				continue
			fi
			stamp t1
			before=$(counters "$mnt")
			stamp t2
			rm -f /tmp/fio.json /tmp/fio-check.json /tmp/fio-check.err	# a failure's reason is this workload's
			wseed=$((RANDOM << 15 | RANDOM)) wtoken=$(printf '%04x%04x' $RANDOM $RANDOM)
			ios=''
			rm -f /tmp/fio-window
			case "$wl" in
			meta) rate=$(run_meta "$dir") ;;
			*) rate=$(run_fio "$dir" "$wl") && read -r ios rate _ <<<"$rate" ;;
			esac
			ok=$?
			stamp t3
			after=$(counters "$mnt")
			stamp t4
			# blocks checked: every block a read read, every block a
			# write wrote (read back by write_check); none for meta
			why='' checked='"na"'
			case "$wl" in
			meta) ;;
			*write*)
				[ "$ok" = 0 ] && read -r checked written wrc <<<"$(write_check "$dir" "$wl" "$ios")"
				if [ "$ok" = 0 ] && ! [[ "$wrc" = 0 && "$checked" =~ ^[1-9][0-9]*$ && "$checked" = "$written" ]]; then
					ok=1 why="read-back of the written blocks: $checked of $written checked, fio exit ${wrc:-?}: $(head -n 2 /tmp/fio-check.err 2>/dev/null | tr '\n' ' ')"
				fi
				# the export is small: a write's file goes once checked
				rm -f "$(wl_args "$dir" "$wl" | cut -d' ' -f1)" ;;
			*) checked=$ios ;;
			esac
			[[ "$checked" =~ ^[0-9]+$ ]] || checked='"na"'
			# the server's link and CPU counters, in both readings
			# ("na" where it has none): without them the report
			# leaves out both sides' tables of the link and the CPUs
			if [ "$ok" = 0 ] && ! { server_counted "$before" && server_counted "$after"; }; then
				ok=1 why="the server's counters came without its link and CPU counters: $(ask counters | head -c 200)"
			fi
			stamp t5
			# where a workload's time goes (the workload itself: run)
			# shellcheck disable=SC2154 # stamp sets t0..t5
			log "$t-$wl ms: prep $((t1 - t0)) counters $((t2 - t1)) run $((t3 - t2))" \
				"counters $((t4 - t3)) check $((t5 - t4))"
			if [ "$ok" = 0 ] && [ -n "$rate" ]; then
				pass "$t-$wl"
			else
				[ -s /tmp/fio-window ] && why=$(cat /tmp/fio-window)
				fail "$t-$wl" "${why:-$(head -c 300 /tmp/fio.json 2>/dev/null | tr '\n' ' ')}"
				rate='"na"'
			fi
			# where an RPC's time goes: the measured direction's NFS
			# operation (READ or WRITE; none for meta) from the
			# mount's per-op statistics: queued before it was sent,
			# its round trip, and all of it (milliseconds summed)
			case "$wl" in *read*) o=re ;; *write*) o=wr ;; *) o=none ;; esac
			printf '{"kind":"%s","round":%s,"kernel":"%s","cfg":"%s","th":%s,"vers":"%s","wl":"%s","rate":%s,"checked":%s,"op_ops":%s,"op_q":%s,"op_rtt":%s,"op_exe":%s,"rpcs":%s,"segs":%s,"linv":%s,"rinv":%s,"swi":%s,"splain":%s,"sq":%s,"c2s":"%s","s2c":"%s","r":"%s"%s}\n' \
				"$kind" "$round" "$kernel" "$cfg" "$th" "$v" "$wl" "$rate" "$checked" \
				"$(delta ${o}_ops "$before" "$after")" "$(delta ${o}_q "$before" "$after")" \
				"$(delta ${o}_rtt "$before" "$after")" "$(delta ${o}_exe "$before" "$after")" \
				"$(delta rpcs "$before" "$after")" "$(delta segs "$before" "$after")" \
				"$(delta linv "$before" "$after")" "$(delta rinv "$before" "$after")" \
				"$(delta swi "$before" "$after")" "$(delta splain "$before" "$after")" \
				"$(delta sq "$before" "$after")" "$(field c2s "$neg" na)" "$(field s2c "$neg" na)" \
				"$(field r "$neg" na)" "$(link_json "$before" "$after")" >>$OUT
		done
		[ "$memory" = 0 ] || memory after-io "$cfg" "$v" "$mnt" "$size"
		umount_nfs "$mnt"
	done
done
mount_nfs 3 /mnt/done && { touch "/mnt/done/DONE"; umount_nfs /mnt/done; }
# the client's dmesg, clean but for perftest's own faults in user space
# (after a failed rdma_cm connect its error path has crashed in
# librdmacm: "traps: ib_send_bw[N] general protection fault"), which are
# logged: not a fault of the kernel
PT_TRAP='traps: ib_(send|read|write)_(lat|bw)\[[0-9]+\] '
dmesg_clean >/tmp/bad
grep -E "$PT_TRAP" /tmp/bad | while read -r l; do log "perftest crashed in user space: $l"; done
if grep -vqE "$PT_TRAP" /tmp/bad; then
	fail "$kind-$kernel-client-dmesg-clean" "$(grep -vE "$PT_TRAP" /tmp/bad | head -c 500)"
else
	pass "$kind-$kernel-client-dmesg-clean"
fi
ktap_finished
