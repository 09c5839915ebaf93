#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh's modes and settings, without a guest (the "bench" stage of
# check.sh, host only, a second): BENCH_PLAN=1 prints what a mode would
# run and exits before it installs, builds or boots anything.  Every
# mode's settings must be complete (BENCH=sweep and BENCH=link died on
# the cost's unset variables for two days without a test noticing),
# and the full bench's shape is what its hour was measured with.
# Prints KTAP on stdout.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
harness_env || exit 1
ktap_print_header
ktap_set_plan 11

# plan ENV...: bench.sh's plan under the settings ENV (NAME=VALUE), in
# $out; its status
plan() {
	out=$(env -u BENCH_ROUNDS -u BENCH_KERNELS -u BENCH_WORKLOADS -u BENCH_VERSIONS \
		-u BENCH_BOOTS -u BENCH_THRESHOLDS -u BENCH_RUNTIME -u BENCH_BASE -u BENCH_4K \
		BENCH_PLAN=1 "$@" "$RFC_HARNESS/bench/bench.sh" 2>&1)
}
# has NAME LINE...: one result: the last plan has every LINE
has() {
	local name=$1 l miss=""
	shift
	for l in "$@"; do
		grep -qxF -- "$l" <<<"$out" || miss+="${miss:+, }$l"
	done
	if [ -z "$miss" ]; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "missing $miss in: $(tr '\n' ' ' <<<"$out" | head -c 300)"
	fi
}

for m in full quick cost sweep link; do
	plan BENCH=$m
	has "BENCH=$m: a complete plan" "mode=$m"
done
plan BENCH=full
has "full: 3 timed rounds of every kernel, the cost of every kernel at three thresholds" \
	"rounds=3" "kernels=ours base stock" "versions=3 4.2" "boots=3" \
	"cost_kernels=ours base stock" "cost_th=1024 4096 16384"
plan BENCH=full BENCH_KERNELS="ours base"
has "BENCH_KERNELS leaves a kernel out of the rounds and of the cost" \
	"kernels=ours base" "cost_kernels=ours base"
plan BENCH=full BENCH_KERNELS="ours base stock-7.3"
has "BENCH_KERNELS: another Debian kernel plays stock in the rounds and the cost" \
	"kernels=ours base stock-7.3" "stock_kernel=stock-7.3" "cost_kernels=ours base stock"
plan BENCH=link
has "link: our kernel alone" "kernels=ours" "boots=0"
if plan BENCH=nope; then
	ktap_test_fail "an unknown mode is refused" "BENCH=nope: $out"
else
	ktap_test_pass "an unknown mode is refused"
fi
# "stock" is a kernel name, not the mark of a part not yet taken: two
# Debian kernels were both let into the part of stock
if ! plan BENCH=full BENCH_KERNELS="ours stock stock-7.3" &&
	grep -q "one Debian kernel, in the part of stock" <<<"$out"; then
	ktap_test_pass "two Debian kernels are refused"
else
	ktap_test_fail "two Debian kernels are refused" "ours stock stock-7.3: $out"
fi
ktap_print_totals
ktap_ok
