# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The one KTAP writer of the rfc8797 harness, for host scripts and guest
# tests alike, after tools/testing/selftests/kselftest/ktap_helpers.sh.
# Sourcing it defines the functions below and zeroes the counters;
# nothing is written until one is called.  ktap.py is the one reader.
#
#   ktap_open [FILE]            results go to stdout and, with FILE, are
#                               appended to FILE as well
#   ktap_print_header           "KTAP version 1" (in FILE only when FILE
#                               is still empty: several scripts may
#                               write one file)
#   ktap_set_plan N             "1..N": the results this script gives
#   ktap_test_pass NAME
#   ktap_test_fail NAME [REASON]
#   ktap_test_skip NAME REASON  a skip, never counted as a pass
#   ktap_test_xfail NAME REASON a failure that the producer's list of
#                               expected failures names, REASON the
#                               list's: "ok N NAME # XFAIL REASON",
#                               counted as neither pass nor failure
#   ktap_test_result NAME CMD...
#                               pass when CMD succeeds, else fail
#   ktap_test_listed NAME FAILURE LISTED [LIST]
#                               one result of a suite that keeps a list
#                               of its known failures (nfstest's expected
#                               lists, fstests' expunge lists): FAILURE
#                               is empty when NAME passed, else why it
#                               failed; LISTED the list's reason for
#                               NAME, empty when the list does not name
#                               it (ktap_list_reason); LIST names the
#                               list in messages.  A line whose reason
#                               says "flaky" after its category, upstream,
#                               env or nfs ("upstream, flaky: ...") lists a test
#                               that fails only now and then: it may
#                               pass too, and the pass says so
#   ktap_list_reason FILE KEY   the reason that FILE, a list of lines
#                               "KEY # REASON", gives for KEY, nothing
#                               when it does not name KEY
#   ktap_subtest_begin NAME [N] a nested block: its own version line,
#                               name, plan (with N) and counters, its
#                               results indented; blocks nest
#   ktap_subtest_end [STATUS]   the block's result line one level up, "ok"
#                               when nothing in it failed, the plan (if
#                               any) was met and STATUS (default 0) is 0,
#                               and then its return status (1: "not ok",
#                               which a caller under set -e must test);
#                               a script that exits closes its open
#                               blocks (an exit trap) with its status
#   ktap_subtest_cmd NAME CMD...
#                               CMD's own KTAP output (on its stdout) as
#                               the nested block NAME, its result CMD's
#                               exit status: sub-results travel as they
#                               are, nobody parses them but ktap.py
#   ktap_subtest_file NAME FILE [STATUS [LABEL]]
#                               FILE's KTAP (a guest's results, another
#                               run's, a kernel log: from its first
#                               version line on, with what precedes
#                               "KTAP version" there, such as printk's
#                               time stamps, cut from every line) as the
#                               nested block NAME; its result "not ok"
#                               when a result at FILE's top level failed
#                               or STATUS (a producer's exit status,
#                               default 0) is not 0.  With NAME "" the
#                               block has no name (ktap.py names its
#                               results as FILE does) and its result line
#                               is named LABEL (default: FILE's name).  A
#                               FILE that is missing, without a version
#                               line or without any result gives a
#                               failed result "results" in the block.
#   ktap_print_totals           "# totals: pass:P fail:F skip:S", and
#                               " xfail:X" when X is not 0
#   ktap_finished               totals, then exit 0 when nothing failed
#                               and the plan (if any) was met, else 1
#
# The result line of an outermost block in FILE is numbered after the
# result lines FILE already holds at that level (other scripts' blocks:
# a guest's scripts share /results/tests.ktap).  A block that is never
# ended (the guest crashed, the script was killed) has no result line:
# ktap.py reports it as a test that stopped early, and a plan as the
# results missing from it.
# Counters: KTAP_TESTNUM (results so far), KTAP_CNT_PASS, KTAP_CNT_FAIL,
# KTAP_CNT_SKIP, KTAP_CNT_XFAIL; KTAP_PLAN.

KTAP_FILE="" KTAP_INDENT="" KTAP_PLAN="" KTAP_SUBTEST=""
KTAP_TESTNUM=0 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0 KTAP_CNT_XFAIL=0
KTAP_STACK=()	# the enclosing levels' state, one word each
KTAP_SAVED_TRAP=""	# the EXIT trap the script had before its first block
KTAP_TRAPPED=0		# 1 while ktap_exit_trap is the EXIT trap

ktap_open() { KTAP_FILE=${1:-}; }

# ktap_line LINE: LINE, indented to the current block, on stdout and in
# KTAP_FILE
ktap_line() {
	echo "$KTAP_INDENT$1"
	[ -z "$KTAP_FILE" ] || echo "$KTAP_INDENT$1" >>"$KTAP_FILE"
}

ktap_print_header() {
	echo "KTAP version 1"
	[ -z "$KTAP_FILE" ] || [ -s "$KTAP_FILE" ] || echo "KTAP version 1" >>"$KTAP_FILE"
}

ktap_set_plan() {
	KTAP_PLAN=$1
	ktap_line "1..$1"
}

# ktap_result ok|"not ok" NAME [DIRECTIVE]
ktap_result() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	ktap_line "$1 $KTAP_TESTNUM $2${3:+ # ${3//$'\n'/ }}"
}
ktap_test_pass() {
	KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
	ktap_result ok "$1"
}
ktap_test_fail() {
	KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
	ktap_result "not ok" "$1" "${2:-failed}"
}
ktap_test_skip() {
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
	ktap_result ok "$1" "SKIP ${2:-skipped}"
}
ktap_test_xfail() {
	KTAP_CNT_XFAIL=$((KTAP_CNT_XFAIL + 1))
	ktap_result ok "$1" "XFAIL $2"
}

# a listed failure is expected (XFAIL); an unlisted one fails; a listed
# test that passes fails too, since its line is stale, unless the line
# calls it flaky (upstream, env or nfs only: never ours)
ktap_test_listed() {
	local name=$1 failure=${2//#/} listed=$3 list=${4:-the list of known failures}
	if [ -z "$failure" ] && [ -z "$listed" ]; then
		ktap_test_pass "$name"
	elif [ -z "$failure" ] && [[ "$listed" =~ ^(upstream|env|nfs),\ flaky: ]]; then
		ktap_line "# $name: listed as flaky, passed this time"
		ktap_test_pass "$name"
	elif [ -z "$failure" ]; then
		ktap_test_fail "$name" "passes, but $list lists it: $listed"
	elif [ -n "$listed" ]; then
		ktap_test_xfail "$name" "$listed ($failure)"
	else
		ktap_test_fail "$name" "$failure"
	fi
}
ktap_list_reason() {
	[ -f "$1" ] || return 0
	awk -v k="$2" '$1 == k { sub(/^[^#]*#[ \t]*/, ""); print; exit }' "$1"
}

ktap_test_result() {
	local name=$1
	shift
	if "$@"; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "'$*' failed"
	fi
}

# ktap_ok: nothing failed and the plan, if any, was met
ktap_ok() {
	[ "$KTAP_CNT_FAIL" = 0 ] && { [ -z "$KTAP_PLAN" ] || [ "$KTAP_PLAN" = "$KTAP_TESTNUM" ]; }
}

ktap_print_totals() {
	local x=""
	[ "$KTAP_CNT_XFAIL" = 0 ] || x=" xfail:$KTAP_CNT_XFAIL"
	ktap_line "# totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL skip:$KTAP_CNT_SKIP$x"
}

# ktap_push NAME: one level down, into the block NAME, with counters of
# its own (ktap_pop restores the enclosing level's)
ktap_push() {
	KTAP_STACK+=("$KTAP_TESTNUM:$KTAP_CNT_PASS:$KTAP_CNT_FAIL:$KTAP_CNT_SKIP:$KTAP_CNT_XFAIL:$KTAP_PLAN:$KTAP_SUBTEST")
	KTAP_INDENT="$KTAP_INDENT    "
	KTAP_TESTNUM=0 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0 KTAP_CNT_XFAIL=0 KTAP_PLAN="" KTAP_SUBTEST=$1
}

ktap_subtest_begin() {
	[ -n "$KTAP_INDENT" ] || ktap_print_header >/dev/null
	ktap_push "$1"
	ktap_line "KTAP version 1"
	ktap_line "# Subtest: $1"
	[ -z "${2:-}" ] || ktap_set_plan "$2"
	if [ ${#KTAP_STACK[@]} = 1 ]; then
		KTAP_SAVED_TRAP=$(trap -p EXIT) KTAP_TRAPPED=1
		trap 'ktap_exit_trap $?' EXIT
	fi
}

ktap_subtest_end() {
	local status=${1:-0}
	[ ${#KTAP_STACK[@]} -gt 0 ] || return "$status"
	ktap_print_totals
	if ! ktap_ok; then
		ktap_pop "$KTAP_CNT_FAIL failed, $KTAP_TESTNUM results${KTAP_PLAN:+ of a plan of $KTAP_PLAN}"
	elif [ "$status" != 0 ]; then
		ktap_pop "exit $status"
	else
		ktap_pop ""
	fi
}

# ktap_pop [REASON]: back to the enclosing level, with the block's result
# line there: "ok" without a REASON, else "not ok" for REASON
ktap_pop() {
	local name=$KTAP_SUBTEST n l
	local -a lines
	# the enclosing level's state, its name last: it may hold ":"
	IFS=: read -r KTAP_TESTNUM KTAP_CNT_PASS KTAP_CNT_FAIL KTAP_CNT_SKIP KTAP_CNT_XFAIL KTAP_PLAN \
		KTAP_SUBTEST <<<"${KTAP_STACK[-1]}"
	unset 'KTAP_STACK[-1]'
	KTAP_INDENT=${KTAP_INDENT%    }
	if [ -z "$KTAP_INDENT" ] && [ -n "$KTAP_FILE" ]; then
		n=0
		mapfile -t lines <"$KTAP_FILE"
		for l in "${lines[@]}"; do
			case "$l" in "ok "*|"not ok "*) n=$((n + 1)) ;; esac
		done
		KTAP_TESTNUM=$n
	fi
	if [ ${#KTAP_STACK[@]} = 0 ] && [ "$KTAP_TRAPPED" = 1 ]; then
		KTAP_TRAPPED=0
		eval "${KTAP_SAVED_TRAP:-trap - EXIT}"
	fi
	if [ -z "$1" ]; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "$1"
		return 1
	fi
}

# ktap_close_all STATUS: every open block ended; false when one failed
ktap_close_all() {
	local rc=0
	while [ ${#KTAP_STACK[@]} -gt 0 ]; do
		ktap_subtest_end "$1" || rc=1
	done
	return $rc
}
# the exit trap: a script that exits with blocks open ends them, and
# exits non-zero when one of them failed; then the script's own exit
# trap, if it had one
ktap_exit_trap() {
	local status=$1 saved=$KTAP_SAVED_TRAP
	ktap_close_all "$status" || [ "$status" != 0 ] || status=1
	trap - EXIT
	if [ -n "$saved" ]; then
		eval "set -- $saved"
		eval "$3"
	fi
	exit "$status"
}

ktap_subtest_cmd() {
	local name=$1 rc out
	shift
	out=$(mktemp) || return 1
	"$@" >"$out" && rc=0 || rc=$?
	ktap_subtest_file "$name" "$out" "$rc"
	rc=$?
	rm -f "$out"
	return "$rc"
}

# ktap_extract FILE: FILE's KTAP lines (versions, plans, results,
# diagnostics) from its first version line on, what precedes "KTAP
# version" on that line cut from every line: a kernel log's other
# messages are left out
ktap_extract() {
	awk '!cut { if (!match($0, /K?TAP version [0-9]+[ \t\r]*$/)) next; cut = RSTART }
		{ sub(/\r$/, ""); l = substr($0, cut) }
		l ~ /^ *(K?TAP version |1\.\.[0-9]|ok |not ok |#)/ { print l }' "$1" 2>/dev/null
}

ktap_subtest_file() {
	local name=$1 file=$2 status=${3:-0} label=${4:-${2##*/}} line why="" nlines=0 n=0 bad=0
	ktap_push "${name:-$label}"
	[ -z "$name" ] || ktap_line "# Subtest: $name"
	# the file's own lines, as they are: only ktap.py parses them; this
	# level counts the top-level results for the block's result line
	while IFS= read -r line; do
		ktap_line "$line"
		nlines=$((nlines + 1))
		case "$line" in
		"not ok "*" # SKIP"* | "not ok "*" # skip"*) ;;
		"not ok "*) bad=$((bad + 1)) ;;
		esac
		[[ ! "$line" =~ ^\ *(not\ )?ok\  ]] || n=$((n + 1))
	done < <(ktap_extract "$file")
	if [ ! -f "$file" ]; then
		why="no KTAP results: $file"
	elif [ "$nlines" = 0 ]; then
		# ktap_extract starts at the first version line
		why="no KTAP version line in $file"
	elif [ "$n" = 0 ]; then
		why="no test result in $file"
	fi
	if [ -n "$why" ]; then
		# a block of its own, so that "results" is not read as FILE's
		[ -n "$name" ] || ktap_line "KTAP version 1"
		ktap_test_fail results "$why"
		bad=$((bad + 1))
	fi
	# its results are its own (ktap.py reads them): this level says
	# only whether one failed and how the producer ended
	if [ "$bad" != 0 ]; then
		ktap_pop "$bad failed"
	elif [ "$status" != 0 ]; then
		ktap_pop "exit $status"
	else
		ktap_pop ""
	fi
}

ktap_finished() {
	if [ ${#KTAP_STACK[@]} -gt 0 ]; then
		ktap_close_all 0
		exit $?
	fi
	ktap_print_totals
	ktap_ok
	exit $?
}
