#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of a harness guest.  Stage 1 runs on the read-only 9p root: it
# builds an overlay with a tmpfs upper layer and chroots into it.  Stage 2
# sets up the system, runs the job from /results/cmd and reboots (QEMU
# runs with -no-reboot, so that ends the guest).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=${TERM:-linux}

# cmdline_arg, with the guests' other helpers (sourcing only defines)
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" != stage2 ]; then
	mount -t proc proc /proc
	mount -t tmpfs -o mode=0755 tmpfs /run
	mkdir -p /run/ov/upper /run/ov/work /run/ov/root
	mount -t overlay overlay \
		-o lowerdir=/,upperdir=/run/ov/upper,workdir=/run/ov/work /run/ov/root
	umount /proc
	exec chroot /run/ov/root "$0" stage2
fi

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
ln -sf /proc/self/fd /dev/fd; ln -sf fd/0 /dev/stdin; ln -sf fd/1 /dev/stdout; ln -sf fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
# /tmp and /var/tmp stay on the overlay (writable, backed by tmpfs): a
# tmpfs mounted there would hide a checkout of this harness under /tmp.
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /results
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 results /results

# the kernel log, line by line from the first, kept whole in KMSG_LOG
# (lib-results.sh) for check_dmesg and dmesg.txt: the ring buffer
# overwrites its oldest lines and dmesg -C empties it
stdbuf -oL dmesg --follow >"$KMSG_LOG" 2>/dev/null &

name=$(cmdline_arg rfc8797.name)
hostname "${name:-guest}"
echo "127.0.0.1 localhost ${name:-guest}" >/etc/hosts
ip link set lo up

# A stock Debian kernel: its modules come from the extracted package.
mods=$(cmdline_arg rfc8797.modules)
if [ -n "$mods" ]; then
	mkdir -p "/lib/modules/$(uname -r)"
	mount --bind "$mods" "/lib/modules/$(uname -r)"
fi

# machine_fault [cpus]: why this guest is not the machine guest.sh asked
# for, nothing when it is (with "cpus": as far as its CPUs and its race
# detector go).  It must run on every vCPU QEMU gave it (rfc8797.cpus=,
# guest.sh's --cpus), its data-race detector, if it has one, must pass
# its self-test, and it must keep time on a clock that follows QEMU's
# (the TSC, the HPET or the ACPI PM timer), not on jiffies, which count
# timer interrupts and run several times too fast in a busy guest on a
# loaded host.
machine_fault() {
	local want n cs kc
	want=$(cmdline_arg rfc8797.cpus)
	n=$(nproc)
	if [ -n "$want" ] && [ "$n" != "$want" ]; then
		echo "the guest runs on $n CPUs, guest.sh gave it $want (--cpus)"
	fi
	# a data-race detector (make check-debug's kcsan kernel) that failed
	# its own boot test would let every race pass unseen
	kc=$(dmesg | sed -n 's/.*kcsan: selftest: \([0-9]*\/[0-9]*\) tests passed.*/\1/p')
	if dmesg | grep -q 'kcsan: enabled' && { [ -z "$kc" ] || [ "${kc%/*}" != "${kc#*/}" ]; }; then
		echo "KCSAN is on, but its self-test did not pass (${kc:-no result})"
	fi
	[ "${1:-}" != cpus ] || return 0
	read -r cs </sys/devices/system/clocksource/clocksource0/current_clocksource ||
		cs=unknown
	case "$cs" in
	*jiffies|unknown) echo "the guest keeps time on $cs, not on a clock that follows the host's" ;;
	esac
}

# machine_refused FAULT: FAULT on the console and in /results/machine-fault
machine_refused() {
	echo "rfc8797: $1" | tee /results/machine-fault >/dev/kmsg
}

# finish STATUS: the guest's view of itself in /results/machine, its
# exit status (126 for a job that passed on the wrong machine), reboot
finish() {
	local fault cs
	read -r cs </sys/devices/system/clocksource/clocksource0/current_clocksource
	echo "cpus $(nproc) clocksource ${cs:-unknown}" >/results/machine
	fault=$(machine_fault)
	if [ -n "$fault" ] && [ "$1" = 0 ]; then
		machine_refused "$fault"
		set -- 126
	fi
	kernel_log >/results/dmesg.txt
	echo "$1" >/results/rc
	sync
	busybox reboot -f
	sleep 10
}

# A guest that stops making progress must leave its stacks behind: 20 s
# before the host's time limit, dump every blocked task and every CPU's
# backtrace to the console and save dmesg.  (A CPU that stops
# scheduling is caught earlier by the soft lockup detector.)
limit=$(cmdline_arg rfc8797.timeout)
if [ -n "$limit" ] && [ "$limit" -gt 40 ]; then
	(
		sleep $((limit - 20))
		echo "rfc8797: $((limit - 20)) s without the job ending: dumping stacks" >/dev/kmsg
		echo 1 >/proc/sys/kernel/sysrq
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
		kernel_log >/results/dmesg-timeout.txt
	) </dev/null >/dev/null 2>&1 &
fi

read -r cmd </results/cmd
if [ "$cmd" = shell ]; then
	echo "rfc8797 guest shell: /results is the host's run folder; exit to power off"
	setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	finish 0
fi
cd /results || finish 125
# a guest on fewer CPUs than asked for runs no job: its results would
# say nothing of what they claim.  (One on jiffies runs it, so that the
# clock test shows what that clock does, and fails when it ends.)
fault=$(machine_fault cpus)
if [ -n "$fault" ]; then
	machine_refused "$fault"
	finish 126
fi
# RFC8797_INJECT=stock-boot-crash (check.sh passes it to the first boot
# of a guest on Debian's kernel only): crash before the job runs and
# before any module of ours is loaded, as Debian's kernel sometimes does
# under TCG, to show check.sh booting such a guest again
if [ "$(cmdline_arg rfc8797.inject)" = stock-boot-crash ]; then
	echo c >/proc/sysrq-trigger
fi
# RFC8797_INJECT=warning: a WARNING in dmesg, which every test's
# check_dmesg must report
if [ "$(cmdline_arg rfc8797.inject)" = warning ]; then
	echo "WARNING: CPU: 0 PID: 1 at injected by RFC8797_INJECT=warning" >/dev/kmsg
fi
# RFC8797_INJECT=log-wrap: the same WARNING, then 8192 lines (over
# 512 KiB, twice the largest ring buffer we boot) that push it out of
# the ring buffer, then dmesg -C: check_dmesg must still report it.
# (One open of /dev/kmsg a line: each open may write 10 lines in 5 s.)
if [ "$(cmdline_arg rfc8797.inject)" = log-wrap ]; then
	echo "WARNING: CPU: 0 PID: 1 at injected by RFC8797_INJECT=log-wrap" >/dev/kmsg
	for ((i = 0; i < 8192; i++)); do
		echo "<6>rfc8797: RFC8797_INJECT=log-wrap pushes the WARNING out, line $i" >/dev/kmsg
	done
	dmesg -C
fi
eval "set -- $cmd"
"$@" </dev/null
finish $?
