# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the host library (lib.sh) and the guests' (guest/lib.sh) share:
# the KTAP writer, polling, the one key=value field reader and the one
# crash detector.  Sourced by both; sourcing only defines.

. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

# Polling, as tools/testing/selftests/net/lib.sh does it:
#   slowwait SEC CMD [ARGS...]  CMD every 0.1 s (SLOWWAIT_INTERVAL=S in
#                               front of the call: every S seconds)
#   busywait MS CMD [ARGS...]   CMD again at once
# until CMD succeeds; once SEC seconds (MS milliseconds) have passed,
# CMD's last failure.  CMD runs at least once, and in this shell, not in
# $(...) as upstream's: a function may set the caller's variables, and
# nothing forks but the sleep (the hostile tables poll hundreds of
# times; a process costs tens of milliseconds in a TCG guest).  The
# locals start with _lw_ so that they hide none of CMD's.
loopy_wait() {
	local _lw_sleep=$1 _lw_us=$(($2 * 1000)) _lw_start=${EPOCHREALTIME/[.,]/} _lw_rc
	shift 2
	while :; do
		"$@" && return 0
		_lw_rc=$?
		((${EPOCHREALTIME/[.,]/} - _lw_start < _lw_us)) || return "$_lw_rc"
		$_lw_sleep
	done
}
busywait() {
	local _lw_ms=$1
	shift
	loopy_wait : "$_lw_ms" "$@"
}
slowwait() {
	local _lw_s=$1
	shift
	loopy_wait "sleep ${SLOWWAIT_INTERVAL:-0.1}" $((_lw_s * 1000)) "$@"
}

# pid_ended PID: the process PID has ended (slowwait 60 pid_ended $pid)
pid_ended() { ! kill -0 "$1" 2>/dev/null; }
# wait_timeout PID SECONDS: true when PID ended within SECONDS
wait_timeout() { SLOWWAIT_INTERVAL=${SLOWWAIT_INTERVAL:-0.5} slowwait "$2" pid_ended "$1"; }

# field NAME LINE [DEFAULT]: the value of the first NAME=value in LINE
# (up to the next space, comma, "=" or line end), else DEFAULT (else
# nothing); bash's own regex, no process: make bench reads a few dozen
# values per workload, and a process costs tens of milliseconds in a
# TCG guest
field() {
	local nl=$'\n'
	local re="[ ,]$1=([^ ,=$nl]*)"
	if [[ " $2" =~ $re ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo "${3:-}"
	fi
}

# The one crash detector: a kernel that crashed says one of CRASH_RE on
# its console; a test fails on any of DMESG_BAD in its kernel log (a
# crash, a warning, a lockup, a sanitizer or lockdep report).
CRASH_RE='Kernel panic - not syncing|Oops: |BUG: |kernel BUG|double fault|KASAN|UBSAN'
DMESG_BAD="$CRASH_RE|Oops|general protection fault|soft lockup|hard LOCKUP|rcu: INFO|WARNING:|possible circular locking|possible recursive locking|INFO: task .* blocked|Call Trace"
