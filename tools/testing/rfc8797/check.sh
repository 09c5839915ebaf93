#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make check": every test of the project, then one summary line
# "N passed, N failed".  Each stage below adds named results; a stage
# that cannot run counts as failed, never as skipped.
#
#   check.sh [STAGE...]   stages: kunit sparse checkpatch fuzz e2e hostile
#                         storm interop (default: all, in that order)
#
# RFC8797_KERNEL=debug (make check-debug) boots the sanitizer kernel in
# every guest; E2E_TRANSPORTS (default "rxe siw") picks the transports
# of the e2e and hostile stages; the hostile table runs its quick subset
# unless HOSTILE_QUICK is set and empty (make check-debug); STORM_DISCONNECTS sets the storm's target;
# E2E_TESTS="agree ..." restricts the e2e stage to those e2e/test-*.sh.
#
# RFC8797_INJECT=checksum|warning makes the end-to-end guest corrupt a
# file or log a WARNING, to show that the run turns red.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(kunit sparse checkpatch fuzz e2e hostile storm interop)
transports=${E2E_TRANSPORTS:-rxe siw}
HOSTILE_QUICK=${HOSTILE_QUICK-1}	# set and empty: the full table
run=$CACHE/check/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"
results=$run/results.txt
: >"$results"
msg "check run folder: $run"

result() {	# result NAME pass|fail [REASON]
	local name=$1 verdict=$2 reason=${3:-}
	if [ "$verdict" = pass ]; then
		echo "PASS $name" >>"$results"
		echo "PASS $name"
	else
		echo "FAIL $name${reason:+: $reason}" >>"$results"
		echo "FAIL $name${reason:+: $reason}"
	fi
}

stage_kunit() {
	local r=$run/kunit out line
	if ! "$RFC_HARNESS/guest.sh" --quiet --results "$r" --name kunit --timeout 300 \
			--append "kunit.enable=1" "$RFC_HARNESS/e2e/noop.sh"; then
		result kunit-boot fail "guest failed, see $r/console.log"
		return
	fi
	out=$run/kunit-parse.txt
	python3 "$TREE/tools/testing/kunit/kunit.py" parse "$r/dmesg.txt" >"$out" 2>&1
	# one result per case; the suite lines ("name =====") only summarise
	sed -n 's/.*\[\(PASSED\|FAILED\|CRASHED\|SKIPPED\)\] \(.*\)$/\1 \2/p' "$out" |
	grep -v '=$' |
	while read -r verdict name; do
		case "$verdict" in
		PASSED) result "kunit: $name" pass ;;
		SKIPPED) result "kunit: $name" fail "skipped (a skipped case is not a pass)" ;;
		*) result "kunit: $name" fail "$verdict, see $out" ;;
		esac
	done
	line=$(grep -o 'Ran [0-9]* tests.*' "$out" | tail -n 1)
	msg "kunit: ${line:-no summary}"
	case "$line" in
	"Ran 0 tests"*|"") result kunit-ran-tests fail "no KUnit test executed (see $out)" ;;
	*errors:*) result kunit-ran-tests fail "KTAP errors: $line" ;;
	*) result kunit-ran-tests pass ;;
	esac
}

stage_sparse() {
	local log=$run/sparse-w1.log n
	# C=2 checks every file of the directory, W=1 adds the extra warnings
	kmake "$CACHE/build/main" C=2 W=1 net/sunrpc/xprtrdma/ >"$log" 2>&1
	local rc=$?
	n=$(grep -cE '(warning|error):' "$log")
	if [ "$rc" -ne 0 ]; then
		result sparse-w1-xprtrdma fail "build failed, see $log"
	elif [ "$n" -ne 0 ]; then
		grep -E '(warning|error):' "$log" | head -n 10
		result sparse-w1-xprtrdma fail "$n warnings, see $log"
	else
		result sparse-w1-xprtrdma pass
	fi
	# rebuild the directory without W=1 so the next build is quiet
	kmake "$CACHE/build/main" net/sunrpc/xprtrdma/ >/dev/null 2>&1
}

stage_checkpatch() {
	local dir=$run/series p out f
	"$RFC_HARNESS/tree.sh" export "$dir" 2>/dev/null ||
		{ result checkpatch-export fail "tree.sh export failed"; return; }
	for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
		case "$p" in *0000-cover-letter.patch) continue ;; esac
		out=$( (cd "$TREE" && ./scripts/checkpatch.pl --strict --no-signoff -q \
			--ignore FILE_PATH_CHANGES "$p") 2>&1)
		if [ -z "$out" ]; then
			result "checkpatch: ${p##*/}" pass
		else
			echo "$out" | head -n 20
			result "checkpatch: ${p##*/}" fail "$(echo "$out" | grep -cE '^(ERROR|WARNING|CHECK)') findings"
		fi
	done
	# kernel-doc on every new kernel source file
	while read -r f; do
		case "$f" in *.c|*.h) ;; *) continue ;; esac
		out=$("$TREE/scripts/kernel-doc" -Wall -none "$RFC_TOP/$f" 2>&1)
		if [ -z "$out" ]; then
			result "kernel-doc: $f" pass
		else
			echo "$out" | head -n 10
			result "kernel-doc: $f" fail "$(echo "$out" | wc -l) warnings"
		fi
	done < <(sed -e 's/#.*//' "$RFC_TOP/patches/series" | awk '{for (i = 2; i <= NF; i++) print $i}')
}

stage_fuzz() {
	local log=$run/fuzz.log
	if make -C "$RFC_HARNESS/fuzz" run SECONDS="${FUZZ_SECONDS:-60}" >"$log" 2>&1; then
		result "fuzz: cm_private ${FUZZ_SECONDS:-60} s ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}') execs)" pass
	else
		tail -n 20 "$log"
		result "fuzz: cm_private" fail "see $log"
	fi
	if make -C "$RFC_HARNESS/fuzz" check >"$run/fuzz-compile.log" 2>&1; then
		result "userspace build of cm_private.c (gcc, clang, -Wall -Wextra -Wconversion)" pass
	else
		result "userspace build of cm_private.c" fail "see $run/fuzz-compile.log"
	fi
}

# import_results FILE [PREFIX]: the "PASS name" / "FAIL name: reason"
# lines a guest or the interop matrix wrote
import_results() {
	local verdict rest
	[ -f "$1" ] || return 0
	while read -r verdict rest; do
		case "$verdict" in
		PASS) result "${2:-}$rest" pass ;;
		FAIL) result "${2:-}${rest%%:*}" fail "${rest#*: }" ;;
		RETRY) echo "RETRY ${2:-}$rest" | tee -a "$results" ;;
		esac
	done <"$1"
}

# e2e_guest NAME TRANSPORT SCRIPT ARGS...: run SCRIPT in a guest whose
# tests use TRANSPORT (rxe or siw), import its results
e2e_guest() {
	local name=$1 tr=$2 r=$run/$1 rc
	shift 2
	mkdir -p "$r"
	"$RFC_HARNESS/guest.sh" --quiet --results "$r" --name "$name" --timeout "${E2E_TIMEOUT:-900}" \
		--append "rfc8797.inject=${RFC8797_INJECT:-} rfc8797.transport=$tr" "$@"
	rc=$?
	import_results "$r/tests.txt" "$name: "
	if [ "$rc" = 0 ]; then
		result "$name: guest" pass
	else
		result "$name: guest" fail "exit $rc, console: $r/console.log"
	fi
}

# Over siw, plain make check runs the tests that check data, the
# negotiated values of both peers and renegotiation on reconnect (about
# two thirds of the time of the full set); E2E_SIW_TESTS=all runs every
# test over siw as over rxe.
E2E_SIW_TESTS=${E2E_SIW_TESTS:-agree client-negotiate client-reconnect server-sizes server-remote-inv large-io}

stage_e2e() {
	local t tr versions tests
	for tr in $transports; do
		versions=${E2E_VERSIONS:-3 4.0 4.1 4.2}
		tests=${E2E_TESTS:-}
		if [ "$tr" = siw ] && [ "$E2E_SIW_TESTS" != all ]; then
			versions=${E2E_VERSIONS:-3 4.2}
			tests=${E2E_TESTS:-$E2E_SIW_TESTS}
		fi
		# shellcheck disable=SC2086
		e2e_guest "e2e-$tr" "$tr" "$RFC_HARNESS/e2e/nfs-basic.sh" --transport "$tr" $versions
		[ -z "${E2E_BASIC_ONLY:-}" ] || continue
		# every further in-guest test: e2e/test-NAME.sh, one guest each
		for t in "$RFC_HARNESS"/e2e/test-*.sh; do
			[ -f "$t" ] || continue
			t=${t##*/test-}
			t=${t%.sh}
			case " ${tests:-$t} " in *" $t "*) ;; *) continue ;; esac
			e2e_guest "e2e-$tr-$t" "$tr" "$RFC_HARNESS/e2e/test-$t.sh"
		done
	done
}

# The hostile-input table: crafted RDMA-CM peers (tools/testing/rfc8797/
# cm-peer) against our server and our client, over each transport.
stage_hostile() {
	local tr role
	make -C "$RFC_HARNESS/cm-peer" >"$run/cm-peer-build.log" 2>&1 ||
		{ result hostile-build fail "cm-peer did not build, see $run/cm-peer-build.log"; return; }
	for tr in $transports; do
		for role in server client; do
			e2e_guest "hostile-$tr-$role" "$tr" "$RFC_HARNESS/e2e/hostile-$role.sh" \
				${HOSTILE_QUICK:+--quick}
		done
	done
}

# Forced disconnects during verified I/O
stage_storm() {
	e2e_guest storm-rxe rxe "$RFC_HARNESS/e2e/storm.sh" "${STORM_DISCONNECTS:-5}"
}

stage_interop() {
	local f=$run/interop-results.txt
	: >"$f"
	"$RFC_HARNESS/interop-matrix.sh" --quick --results-file "$f" >"$run/interop.log" 2>&1
	import_results "$f"
	[ -s "$f" ] || result interop fail "the matrix ran no cell, see $run/interop.log"
}

start=$SECONDS
for s in "${stages[@]}"; do
	t=$SECONDS
	msg "=== $s"
	"stage_$s"
	msg "=== $s: $((SECONDS - t)) s"
done
passed=$(grep -c '^PASS' "$results")
failed=$(grep -c '^FAIL' "$results")
msg "all results: $results ($((SECONDS - start)) s)"
if [ "$failed" -ne 0 ]; then
	echo "failed tests:"
	grep '^FAIL' "$results" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
