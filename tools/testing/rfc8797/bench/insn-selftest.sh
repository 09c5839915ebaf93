#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The insn-count plugin's counting, on a program whose instructions are
# known (bench/insn-plugin/insn-rep-test.c) run under user-mode QEMU
# (qemu-x86_64, the plugin API of the installed QEMU): a REP string
# instruction counts once, as the processor's instructions-retired
# event counts it, however many times it repeats.  Builds the plugin
# (bench/insn-plugin/build.sh).  Prints KTAP on stdout.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
harness_env || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_print_header
ktap_set_plan 3

dir=$("$RFC_HARNESS/bench/insn-plugin/build.sh" 2>"$tmp/build.log")
ok=0
if [ -n "$dir" ] && command -v qemu-x86_64 >/dev/null; then
	timeout 60 qemu-x86_64 -plugin "$dir/insn-count.so,out=$tmp/rep.insn" "$dir/insn-rep-test" \
		>"$tmp/run.log" 2>&1 && ok=1
fi
[ "$ok" = 1 ] || tail -n 3 "$tmp/build.log" "$tmp/run.log" 2>&1 | sed 's/^/# /'
ktap_test_result "the plugin counts a program under qemu-x86_64" test "$ok" = 1
# w N: the user instructions between markers N and N+1
w() {
	awk -v a="mark=$1" -v b="mark=$(($1 + 1))" '
		/^dump / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			   m = "mark=" f["mark"]; if (m == a) x = f["user"]; if (m == b) y = f["user"] }
		END { if (x != "" && y != "") print y - x; else print "none" }' "$tmp/rep.insn" 2>/dev/null
}
# 1..2 and 2..3: the block of the closing marker, "mark; mov; mov; xor;
# rep stosb", whose REP instruction repeats 1 and 4096 times
ktap_test_result "a REP string instruction counts once, of 1 octet or of 4096" \
	test "$(w 1) $(w 2)" = "5 5"
# 3..4 and 4..5: 100 times "rep stosb" (its own block, the jump target)
# and "mov; mov; dec; jnz", of which the closing marker's block holds
# the first REP: 99 + 400 + 5
ktap_test_result "a REP instruction that a jump reaches counts at each execution" \
	test "$(w 3) $(w 4)" = "504 504"
ktap_print_totals
ktap_ok
