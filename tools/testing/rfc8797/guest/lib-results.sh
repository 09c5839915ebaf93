# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Guest library, results: a test's KTAP block (ktap_begin, pass, fail,
# skip, result_of), checksums, and the kernel log's verdict.  Sourced by
# lib.sh; sourcing only defines.

# ktap_begin NAME [PLAN]: this script's results, a block of their own in
# /results/tests.ktap (KTAP_RESULTS: another file, for ktap-selftest.sh)
ktap_begin() {
	guest_settings
	ktap_open "${KTAP_RESULTS:-/results/tests.ktap}"
	ktap_subtest_begin "$@"
}
# (RFC8797_INJECT=die: the test is killed after its third result, as a
# guest crash would stop it)
pass() {
	ktap_test_pass "$1"
	[ "$INJECT" != die ] || [ "$KTAP_TESTNUM" -lt 3 ] || kill -9 $$
}
fail() { ktap_test_fail "$1" "${2:-failed}"; }
skip() { ktap_test_skip "$1" "$2"; }
log() { echo "--- $*"; }

# result_of NAME CMD...: one test result from a command's exit status
result_of() { ktap_test_result "$@"; }

# Checksums, SHA-256 in hex.  A read that fails or takes more than 120 s
# prints nothing and fails: it never compares equal to an earlier sum.
#   file_sum FILE [BS]     FILE's; with BS, read with O_DIRECT in BS blocks
#   sum_is FILE SUM [BS]   file_sum FILE [BS] is SUM, and SUM is not empty
#   tree_sums DIR          "SUM  ./NAME" of every file under DIR, by name;
#                          fails when DIR cannot be read or holds no file
#   same_tree DIR COPY     COPY holds the files of DIR with the same sums;
#                          else prints what differs (diff of tree_sums)
file_sum() {
	local - s
	set -o pipefail
	if [ -n "${2:-}" ]; then
		s=$(timeout 120 dd if="$1" iflag=direct bs="$2" status=none | sha256sum) || return 1
	else
		s=$(timeout 120 sha256sum <"$1") || return 1
	fi
	echo "${s%% *}"
}
sum_is() {
	local got
	[ -n "$2" ] && got=$(file_sum "$1" "${3:-}") && [ "$got" = "$2" ]
}
tree_sums() {
	local - s
	set -o pipefail
	s=$(cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r timeout 300 sha256sum) &&
		[ -n "$s" ] && echo "$s"
}
same_tree() {
	local a b
	a=$(tree_sums "$1") || { echo "cannot read the files under $1"; return 1; }
	b=$(tree_sums "$2") || { echo "cannot read the files under $2"; return 1; }
	[ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b"); return 1; }
}

# KCSAN_KNOWN: the data races of upstream code that the KCSAN kernel
# (make check-debug) reports with or without the series, one line each
# "FUNCTION[/FUNCTION] # reason", as kcsan_races names them
KCSAN_KNOWN=${KCSAN_KNOWN:-${BASH_SOURCE[0]%/*}/../data/kcsan-known.txt}

# KMSG_LOG: every line of the kernel log since init.sh started its
# follower (dmesg --follow, from the first line of the boot).  The ring
# buffer alone is not the log: 128 KiB on our kernels, which eight
# exercisers' "drop_caches: 3" lines fill in minutes, and dmesg -C
# (hostile-server.sh) empties it
KMSG_LOG=${KMSG_LOG:-/run/rfc8797-kmsg.log}

# kernel_log: the kernel log since boot, each line once: the follower's
# file, then what the ring buffer holds that the follower has not
# written yet (the ring buffer alone where no follower ran)
kernel_log() {
	{ [ ! -f "$KMSG_LOG" ] || cat "$KMSG_LOG"; dmesg 2>/dev/null; } | awk '!seen[$0]++'
}

# dmesg_clean: no crash, WARNING, lockup, sanitizer or lockdep report
# so far (DMESG_BAD, common.sh), KCSAN's reports aside (kcsan_races)
dmesg_clean() {
	! kernel_log | grep -v 'BUG: KCSAN: ' | grep -E "$DMESG_BAD"
}

# kcsan_races: each KCSAN report in the kernel log so far, once, as the
# functions its title names without their offsets, joined by "/"
# ("data-race in desc_read / prb_reserve": desc_read/prb_reserve)
kcsan_races() {
	kernel_log | sed -n 's/.*BUG: KCSAN: [a-z-]* in //p' |
		sed 's/+0x[0-9a-f]*\/0x[0-9a-f]*//g; s/ \/ /\//g; s/ *$//' | sort -u
}

# check_dmesg NAME: test NAME passes when dmesg_clean holds and every
# KCSAN report is one of KCSAN_KNOWN's (each logged), else fails with
# the start of the offending lines or the races not on the list
check_dmesg() {
	local r why unknown=""
	for r in $(kcsan_races); do
		why=$(ktap_list_reason "$KCSAN_KNOWN" "$r")
		if [ -n "$why" ]; then
			log "KCSAN: data race in $r, known: $why"
		else
			unknown+=" $r"
		fi
	done
	if ! dmesg_clean >/tmp/bad; then
		fail "$1" "$(head -c 500 /tmp/bad)"
	elif [ -n "$unknown" ]; then
		fail "$1" "KCSAN data races that $KCSAN_KNOWN does not list:$unknown"
	else
		pass "$1"
	fi
}

# KMEMLEAK_RE: a kmemleak report whose backtrace names the RPC/RDMA code
# (or the RDMA core and the soft devices it runs on) is a leak of ours
KMEMLEAK_RE='rpcrdma|svc_rdma|xprt_rdma|frwr|rxe_|siw_|ib_|rdma_|sunrpc|svc_|xprt|nfs'

# kmemleak_scan FILE: on a kmemleak kernel (make check-debug's), scan
# twice 5 s apart, so that an object in flight at the first scan is not
# reported, and keep the report in FILE (debugfs mounted first where
# nothing else mounted it, as in a scale run's server guest); prints
# "ALL OURS", the unreferenced objects in all and those whose report
# matches KMEMLEAK_RE, or "off off" when kmemleak has turned itself off
# (no scan, no report: never read as no leak).  Fails on a kernel
# without kmemleak.
kmemleak_scan() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -w /sys/kernel/debug/kmemleak ] || return 1
	if ! { echo scan >/sys/kernel/debug/kmemleak && sleep 5 &&
		echo scan >/sys/kernel/debug/kmemleak &&
		cat /sys/kernel/debug/kmemleak >"$1"; } 2>/dev/null; then
		echo "off off"
		return 0
	fi
	awk -v re="$KMEMLEAK_RE" '/^unreferenced object/ { n++; if (hit) ours++; hit = 0 }
		$0 ~ re { hit = 1 }
		END { if (hit) ours++; print n + 0, ours + 0 }' "$1"
}
