#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest's clock against the host's, with every vCPU busy:
#
#   clock.sh [SECONDS]   (default 62; check.sh's clock stage runs it
#                         while the host builds a kernel)
#
# The guest notes its own time (bash's EPOCHREALTIME, the clocksource's
# time: no NTP runs here) just before and just after it creates a file
# in /results; the host's file system stamps that file with the host's
# time.  Two such marks SECONDS of guest time apart, with a CPU and
# I/O loop on every vCPU in between, give the guest's elapsed time
# against the host's.  Results:
#   clocksource  not jiffies or refined-jiffies
#   elapsed      the host saw at least 60 s pass, and the guest's
#                elapsed time is within 2% of the host's
#   dmesg        no warning, and no TSC given up as unstable or skewed
#                (guest.sh boots with tsc=nowatchdog, so the clocksource
#                watchdog does not check it: this and "elapsed" do)
. "$(dirname "$0")/../lib.sh"
secs=${1:-62}
# (init.sh runs no job in a guest whose nproc is not its --cpus)
ktap_begin clock 3
n=$(nproc)
read -r cs </sys/devices/system/clocksource/clocksource0/current_clocksource
log "clocksource $cs (available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource))"
case "$cs" in
*jiffies) fail "clocksource" "$cs counts timer interrupts, not the host's time" ;;
*) pass "clocksource" ;;
esac

# mark NAME: the guest's time (µs) just before and just after NAME is
# created in /results, "BEFORE AFTER"
mark() {
	local a=${EPOCHREALTIME/[.,]/}
	: >"/results/$1"
	echo "$a ${EPOCHREALTIME/[.,]/}"
}
# host_ns NAME: the host's time stamp of /results/NAME, in ns
host_ns() {
	local t
	t=$(stat -c %.9Y "/results/$1") || return 1
	echo "${t/./}"
}

# every vCPU busy: a shell loop and a copy through the kernel each
busy=()
for ((i = 0; i < n; i++)); do
	(while :; do :; done) &
	busy+=($!)
	(while :; do dd if=/dev/urandom of=/dev/null bs=64k count=64 status=none; done) &
	busy+=($!)
done
rm -f /results/clock-0 /results/clock-1
read -r g0a g0b < <(mark clock-0)
# sleep in steps, so that a clock that stops is seen too (the time
# limit of the guest, which runs on the host, bounds the whole)
end=$((g0b + secs * 1000000))
while [ "${EPOCHREALTIME/[.,]/}" -lt "$end" ]; do
	sleep 1
done
read -r g1a g1b < <(mark clock-1)
kill "${busy[@]}" 2>/dev/null
wait 2>/dev/null

if h0=$(host_ns clock-0) && h1=$(host_ns clock-1); then
	# the guest's interval is known to within its two marks' spans
	g=$(((g1a + g1b) / 2 - (g0a + g0b) / 2))
	h=$(((h1 - h0) / 1000))
	log "guest ${g} us, host ${h} us (marks took $((g0b - g0a)) and $((g1b - g1a)) us)"
	# ppm of the host's interval, and 2% is 20000 ppm
	d=$(((g - h) * 1000000 / (h > 0 ? h : 1)))
	if [ "$h" -lt 60000000 ]; then
		fail "elapsed" "the host saw $((h / 1000)) ms pass while the guest's clock saw $((g / 1000)) ms: under the 60 s asked for"
	elif [ "${d#-}" -gt 20000 ]; then
		fail "elapsed" "guest $((g / 1000)) ms, host $((h / 1000)) ms: off by $((d / 100))/10000, more than 2%"
	else
		log "the guest's clock is off by $d ppm of the host's"
		pass "elapsed"
	fi
else
	fail "elapsed" "no host time stamp on /results/clock-0 or clock-1"
fi
# a TSC that the kernel gives up on is replaced, and it says so
if kernel_log | grep -iE "(clocksource|tsc).*(unstable|skew)" >/tmp/skew; then
	fail "dmesg" "$(head -c 300 /tmp/skew)"
else
	check_dmesg "dmesg"
fi
ktap_finished
