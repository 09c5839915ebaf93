#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a host script inside a QEMU guest (TCG) that uses the host's userland.
#
#   guest.sh [options] SCRIPT [ARGS...]
#   guest.sh [options] --shell
#
#   --kernel NAME|PATH
#                   kernel to boot: a file of data/kernels/ (ours, debug, kcsan,
#                   base, stock, stock-7.3, dkms, trixie, trixie-7.3: each
#                   says what it is and how it boots), ours-BASE (the
#                   test kernel of a base, make build BASE=BASE), or the
#                   path of an image booted as ours (default:
#                   $RFC8797_KERNEL, else ours)
#   --results DIR   writable folder, /results in the guest (default: new
#                   folder under $CACHE/runs); holds console.log, dmesg.txt, rc
#   --timeout SEC   hard limit for the whole guest (default 600)
#   --mem MB, --cpus N     guest size (default 2048, 2); all vCPUs run
#                   on one host thread (thread=single) unless
#                   RFC8797_TCG_THREAD=multi
#   --append ARGS   extra kernel command line
#   --net unix:PATH:server|client   a virtio NIC linked only to another
#                   guest through a unix socket; default: no NIC at all
#   --mac MAC       MAC address of that NIC
#   --dump FILE     write every frame of that link, both directions, to
#                   the pcap FILE (QEMU's filter-dump on the netdev: no
#                   tool runs in the guest); read it with tshark and
#                   tools/testing/rfc8797/wireshark/rpcrdma_cm.lua
#   --name NAME     label for the run folder and the console prefix
#   --quiet         do not copy the console to stdout
#   --count ARGS    count the guest's instructions: QEMU loads the
#                   insn-count plugin (bench/insn-plugin, built into
#                   $CACHE_ROOT/insn-plugin by its build.sh) with ARGS,
#                   e.g. "out=FILE,layers=FILE,fifo=PATH" (see
#                   insn-count.c), and runs every vCPU on one thread
#                   (-accel tcg,thread=single): the same work then
#                   executes the same instructions, boot after boot;
#                   the kernel boots with nokaslr, so that its
#                   System.map holds (Debian's kernel randomizes)
#   --icount        with --count: the guest's clock follows the
#                   instructions it executes (-icount shift=0,sleep=on),
#                   not the host's time, so that timer interrupts fall
#                   at the same instructions whatever the host's load
#
# The guest mounts the host's / (trixie: the trixie root) read-only over
# virtio-9p with a tmpfs overlay on top, so every host tool is there and nothing on the host
# changes.  The script's exit status becomes guest.sh's exit status;
# 124 means the time limit hit (hang-registers.txt and the console say
# where the guest was, see hang_dump), 125 that the guest died without one,
# 126 that the guest did not run on --cpus CPUs or kept time on jiffies
# (guest/init.sh; its view of both is in the results folder's "machine").
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

kernel=${RFC8797_KERNEL:-ours} timeout_s=600 mem=2048 cpus=2 append="" net="" mac="" dump="" name=guest
results="" quiet=0 shell=0 rootdir=/ count="" icount=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--net) net=$2; shift 2 ;;
	--mac) mac=$2; shift 2 ;;
	--dump) dump=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--count) count=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--shell) shell=1; shift ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ "$shell" = 1 ] || [ $# -ge 1 ] || die "usage: guest.sh [options] SCRIPT [ARGS...] | --shell"

if [ -z "$results" ]; then
	results=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$name-$$
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)
rm -f "$results/rc" "$results/console.log" "$results/dmesg.txt" "$results/machine" \
	"$results/machine-fault"

# What the guest runs: written to the results folder, read by guest/init.sh.
{
	if [ "$shell" = 1 ]; then
		echo "shell"
	else
		script=$(realpath "$1")
		shift
		# /run is a fresh tmpfs in the guest
		case "$script" in
		/run/*)
			cp "$script" "$results/job-script"
			script=/results/job-script ;;
		esac
		printf '%q ' "$script" "$@"
		echo
	fi
} >"$results/cmd"

# oops=panic: an oops ends the run at once instead of hanging a test;
# the lockup detectors of our kernels panic too, with every CPU's stack.
# rfc8797.timeout lets the guest dump its stacks before the time limit.
# A guest that reaches the limit without that (a hang in the boot or
# before init.sh's watch) gets an NMI from the host (hang_dump below),
# which unknown_nmi_panic makes a panic that prints every CPU's stack
# and the whole kernel log (panic_print=0x60), loglevel or not.
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=4 rfc8797.name=$name"
cmdline="$cmdline softlockup_all_cpu_backtrace=1 hardlockup_all_cpu_backtrace=1"
cmdline="$cmdline unknown_nmi_panic panic_print=0x60"
cmdline="$cmdline rfc8797.timeout=$timeout_s rfc8797.cache=$CACHE_ROOT"
# init.sh fails a guest that runs on fewer CPUs than -smp gave it, or
# keeps time on jiffies (exit 126, the reason in machine-fault);
# RFC8797_INJECT=no-acpi boots without ACPI, as our kernels did before
# they had it: one CPU, no HPET or PM timer, refined-jiffies
cmdline="$cmdline rfc8797.cpus=$cpus"
# tsc=nowatchdog: under TCG every vCPU reads one counter, the host's
# TSC (or, with --icount, the instruction count), so no vCPU's TSC can
# drift from another's; the clock stage holds its rate to the host's.
# Without it, 7.3's clocksource watchdog checks the TSC of each CPU
# against the next twice a second, both CPUs spinning with interrupts
# off; on CI's loaded host one such check outlasted the hard-lockup
# detector's 10 s (HARNESS.rst, "CPUs and clocks")
cmdline="$cmdline tsc=nowatchdog"
[ "${RFC8797_INJECT:-}" != no-acpi ] || cmdline="$cmdline acpi=off"
cmdline="$cmdline init=$RFC_HARNESS/guest/init.sh"
initrd=()
# how each kernel boots: its file of data/kernels/; another NAME is an image path
kernel_info "$kernel" || K_ROOT=9p K_FETCH=path K_IMAGE=$kernel K_TREE=$CACHE/tree
# the tree with the series the kernel was built from (conns.py's YNL)
[ -z "$K_TREE" ] || cmdline="$cmdline rfc8797.tree=$K_TREE"
case "$K_FETCH" in
path) [ -f "$K_IMAGE" ] || die "no kernel at $K_IMAGE" ;;
build) [ -f "$K_IMAGE" ] || die "no kernel at $K_IMAGE: run '$K_MAKE'" ;;
stock.sh) "$RFC_HARNESS/stock.sh" "$kernel" >/dev/null ;;
dkms)
	"$RFC_HARNESS/stock.sh" "$K_ON" >/dev/null
	[ -f "$K_MODULES/modules.dep" ] || die "no $K_MODULES: run '$K_MAKE'" ;;
esac
case "$K_ROOT" in
9p)
	image=$K_IMAGE
	cmdline="$cmdline root=hostroot rootfstype=9p"
	cmdline="$cmdline rootflags=trans=virtio,version=9p2000.L,msize=524288,cache=loose ro"
	;;
initrd)
	image=$K_IMAGE
	initrd=(-initrd "$K_INITRD")
	cmdline="$cmdline rfc8797.modules=$K_MODULES"
	;;
debootstrap)
	# Debian 13's kernel booted on the trixie root that trixie.sh
	# installed the DKMS package into: its userland, its modules (the
	# work root and initramfs of the kernel's SUFFIX)
	rootdir=$CACHE_ROOT/trixie/work$K_SUFFIX
	[ -f "$rootdir.krel" ] || die "no trixie root with the package: run '$K_MAKE'"
	krel=$(cat "$rootdir.krel")
	image=$rootdir/boot/vmlinuz-$krel
	[ -f "$image" ] || image=$rootdir/usr/lib/modules/$krel/vmlinuz
	initrd=(-initrd "$CACHE_ROOT/trixie/initramfs$K_SUFFIX.cpio.gz")
	[ -x "$rootdir$RFC_HARNESS/guest/init.sh" ] || die "no harness in $rootdir$RFC_HARNESS"
	;;
esac
cmdline="$cmdline $append"
[ -z "$count" ] || cmdline="$cmdline nokaslr"

netargs=(-nic none)
if [ -n "$net" ]; then
	IFS=: read -r _ sock role <<<"$net"
	[ "$role" = server ] && srv=on || srv=off
	netargs=(-nic none
		-netdev "stream,id=n0,server=$srv,addr.type=unix,addr.path=$sock"
		-device "virtio-net-pci,netdev=n0,romfile=${mac:+,mac=$mac}")
	[ -z "$dump" ] || netargs+=(-object "filter-dump,id=fd0,netdev=n0,file=$dump")
elif [ -n "$dump" ]; then
	die "--dump needs --net: a guest without a NIC has no frames to dump"
fi

# One host thread runs all the guest's vCPUs (-accel tcg,thread=single;
# RFC8797_TCG_THREAD=multi gives each its own).  Alone on two cores a
# guest is as fast either way, and it leaves the other core to a second
# guest: check.sh runs two at a time.  Under load, thread=multi spins
# vCPU threads against descheduled ones, and the same work's instruction
# count varies with it: counted runs (--count) always use thread=single,
# and so does two-guest.sh.  HARNESS.rst, "CPUs and clocks", gives the
# stages' choices and the figures behind them.
accel=tcg,thread=${RFC8797_TCG_THREAD:-single} plugin=()
if [ -n "$count" ]; then
	so=$CACHE_ROOT/insn-plugin/insn-count.so
	[ -f "$so" ] || die "no $so: run tools/testing/rfc8797/bench/insn-plugin/build.sh"
	accel=tcg,thread=single plugin=(-plugin "$so,$count")
	[ "$icount" = 0 ] || plugin+=(-icount shift=0,sleep=on)
elif [ "$icount" = 1 ]; then
	die "--icount needs --count"
fi
qemu=(qemu-system-x86_64 -machine q35 -accel "$accel" "${plugin[@]}" -cpu max
	-m "$mem" -smp "$cpus" -no-reboot -nographic -pidfile "$results/qemu.pid"
	-kernel "$image" "${initrd[@]}"
	-append "$cmdline"
	-virtfs "local,path=$rootdir,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$results,mount_tag=results,security_model=none,multidevs=remap"
	-device virtio-rng-pci
	"${netargs[@]}")

if [ "$shell" = 1 ]; then
	"${qemu[@]}" -serial mon:stdio
	exit 0
fi

# monitor CMD: QEMU's answer to the monitor command CMD (HMP, on the
# unix socket $mon)
monitor() {
	python3 - "$mon" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
def answer():
    buf = b""
    while not buf.endswith(b"(qemu) "):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    return buf.decode(errors="replace").replace("\r", "")
answer()
s.sendall(sys.argv[2].encode() + b"\n")
print(answer().rsplit("(qemu) ", 1)[0])
PY
}

# hang_dump: at the time limit, where the guest is: every vCPU's
# registers (hang-registers.txt, each RIP with its symbol where the
# image has a System.map beside it), then an NMI (the panic above: the
# stacks and the kernel log go to the console), then QEMU is stopped.
# The file time-limit says it happened.
hang_dump() {
	local map=${image%/arch/x86/boot/bzImage}/System.map
	: >"$results/time-limit"
	monitor "info registers -a" >"$results/hang-registers.txt" 2>&1
	if [ -f "$map" ]; then
		python3 - "$RFC_HARNESS" "$map" "$results/hang-registers.txt" <<'PY' >>"$results/hang-registers.txt"
import re, sys
sys.path.insert(0, sys.argv[1])
from ksyms import symbol_at, text_symbols
syms = text_symbols(sys.argv[2])
for cpu, rip in re.findall(r"CPU#(\d+)[\s\S]*?RIP=([0-9a-f]+)", open(sys.argv[3]).read()):
    print("CPU#%s RIP %s %s" % (cpu, rip, symbol_at(syms, int(rip, 16))))
PY
	fi
	monitor nmi >/dev/null 2>&1
	sleep 20
	monitor quit >/dev/null 2>&1
}

mon=$(mktemp -u "${TMPDIR:-/tmp}/rfc8797-mon.XXXXXX")
qemu+=(-monitor "unix:$mon,server=on,wait=off")
start=$SECONDS
set +e
# the hang dump at the limit; timeout's, 60 s later, if QEMU still runs
rm -f "$results/time-limit"
(
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	sleep "$timeout_s" &
	s=$!
	wait "$s"
	[ -S "$mon" ] && hang_dump
) &
watch=$!
if [ "$quiet" = 1 ]; then
	timeout -k 5 $((timeout_s + 60)) "${qemu[@]}" -serial stdio </dev/null \
		>"$results/console.log" 2>&1
	qrc=$?
else
	timeout -k 5 $((timeout_s + 60)) "${qemu[@]}" -serial stdio </dev/null 2>&1 |
		tee "$results/console.log" | sed -u "s/^/[$name] /"
	qrc=${PIPESTATUS[0]}
fi
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
rm -f "$mon"
set -e
if [ -f "$results/time-limit" ] || [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "guest $name: time limit of $timeout_s s reached (results: $results; where it was: hang-registers.txt, console.log)" >&2
	exit 124
fi
if [ ! -f "$results/rc" ]; then
	echo "guest $name: died without an exit status after $((SECONDS - start)) s, qemu exit $qrc (console: $results/console.log)" >&2
	exit 125
fi
rc=$(cat "$results/rc")
[ ! -f "$results/machine-fault" ] ||
	echo "guest $name: not the machine asked for: $(cat "$results/machine-fault")" >&2
echo "guest $name: exit $rc after $((SECONDS - start)) s (results: $results)" >&2
exit "$rc"
