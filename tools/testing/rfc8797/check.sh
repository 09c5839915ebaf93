#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make check": every test of the project, then one summary line
# "N passed, N failed".  Each stage below adds named results; a stage
# that cannot run counts as failed, never as skipped.
#
#   check.sh [STAGE...]   stages: ktap bench kunit sparse postings fuzz wireshark
#                         clock e2e hostile sendqueue parallel storm interop scale pressure nfstest fstests dkms trixie (default:
#                         the base's CHECK_STAGES, data/bases/BASE; trixie is
#                         the base's DKMS package on Debian 13), and
#                         kunit_upstream (make kunit-upstream, check-debug),
#                         wireshark_live (make wireshark-live),
#                         nfstest_full (make nfstest)
#
# CHECK_BASES="mainline 6.12" (make check's default: the bases with
# MAKE_CHECK) runs the stages on each base in turn, each in a run of its
# own, and names its results "BASE: ..."; with no STAGE, each base runs
# its MAKE_CHECK_STAGES (empty: CHECK_STAGES).  CHECK_LONG=1 (make
# check-long): with no STAGE, each base runs its LONG_CHECK_STAGES, the
# stages make check leaves out for CI's time, alone or beside others.
# check.sh --needs-kernel [STAGE...] runs nothing: its exit status says
# whether the base's stages need its test kernel built (make check).
# check.sh --plan runs nothing: it prints "BASE: STAGE..." for each base
# of CHECK_BASES, the stages this run would give it.
#
# RFC8797_KERNEL=debug (make check-debug) boots the sanitizer kernel in
# every guest; E2E_TRANSPORTS (default "rxe siw") picks the transports
# of the e2e and hostile stages; the hostile table runs its quick subset
# unless HOSTILE_TABLE=full (make check-debug); STORM_DISCONNECTS sets the storm's target;
# PARALLEL_TRANSPORTS and STORM_TRANSPORTS (default rxe) those of the
# parallel and storm stages; PARALLEL_ARGS, parallel-open.sh's options
# (make check-debug: fewer operations, a longer limit);
# E2E_TESTS="agree ..." restricts the e2e stage to those guest/tests/test-*.sh.
#
# RFC8797_INJECT=checksum|warning makes the end-to-end guest corrupt a
# file or log a WARNING, to show that the run turns red;
# RFC8797_INJECT=stock-boot-crash crashes the first boot of each guest on
# Debian's kernel (the dkms and trixie stages) before its job, to show
# the retry.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
harness_env || exit 1

# shellcheck disable=SC2206	# a list of words
ALL_STAGES=($CHECK_STAGES)
# make check-long (CHECK_LONG=1): the stages make check leaves out,
# also for a base alone
# shellcheck disable=SC2206	# a list of words
[ -z "${CHECK_LONG:-}" ] || ALL_STAGES=($LONG_CHECK_STAGES)
read -r -a bases <<<"${CHECK_BASES:-$RFC_BASE}"
# make_check_stages BASE: the stages make check gives BASE when it runs
# more than one base: MAKE_CHECK_STAGES of the environment, else BASE's
# own (empty: all of its CHECK_STAGES); with CHECK_LONG=1 (make
# check-long) BASE's LONG_CHECK_STAGES, those make check leaves out
make_check_stages() {
	local st
	if [ -n "${CHECK_LONG:-}" ]; then
		base_value "$1" LONG_CHECK_STAGES
		return
	fi
	st=$(base_value "$1" MAKE_CHECK_STAGES) || return 1
	[[ "$BASE_FROM_ENV" != *" MAKE_CHECK_STAGES "* ]] || st=$MAKE_CHECK_STAGES
	[ -n "$st" ] || st=$(base_value "$1" CHECK_STAGES)
	echo "$st"
}
# The stages that boot or build in the base's own test kernel
# ($CACHE/build/main): make check builds a base's kernel only when one
# of that base's stages is here
KERNEL_STAGES=(kunit sparse postings clock e2e hostile sendqueue parallel storm interop scale pressure
	kunit_upstream wireshark_live nfstest_full)
# (fstests and nfstest boot the base's FSTESTS_KERNEL and NFSTEST_KERNEL:
# not always its own)
[ "$FSTESTS_KERNEL" != ours ] || KERNEL_STAGES+=(fstests)
[ "$NFSTEST_KERNEL" != ours ] || KERNEL_STAGES+=(nfstest)
# check.sh --needs-kernel [STAGE...]: exit 0 when the stages make check
# gives this base (RFC8797_BASE; or the STAGEs) need its test kernel
if [ "${1:-}" = --needs-kernel ]; then
	shift
	st=("$@")
	if [ ${#st[@]} -eq 0 ]; then
		st=("${ALL_STAGES[@]}")
		# shellcheck disable=SC2207	# a list of words
		[ ${#bases[@]} -lt 2 ] || st=($(make_check_stages "$RFC_BASE"))
	fi
	for s in "${st[@]}"; do
		[[ " ${KERNEL_STAGES[*]} " != *" $s "* ]] || exit 0
	done
	exit 1
fi
if [ "${1:-}" = --plan ]; then
	shift
	for b in "${bases[@]}"; do
		if [ $# -gt 0 ]; then
			plan="$*"
		elif [ ${#bases[@]} -gt 1 ] || [ -n "${CHECK_LONG:-}" ]; then
			plan=$(make_check_stages "$b") || die "CHECK_BASES: no base $b"
		else
			plan=$(base_value "$b" CHECK_STAGES) || die "CHECK_BASES: no base $b"
		fi
		echo "$b: $plan"
	done
	exit 0
fi
# (the options above need no apt: make help runs --plan)
resolve_base || exit 1
check_inject
stages=("$@")
transports=${E2E_TRANSPORTS:-rxe siw}
HOSTILE_TABLE=${HOSTILE_TABLE:-quick}	# quick or full
[ -z "${HOSTILE_QUICK+x}" ] || die "HOSTILE_QUICK is gone: HOSTILE_TABLE=full or quick (make help)"
if [ ${#bases[@]} -gt 1 ]; then
	run=$CACHE_ROOT/check/$(date +%Y%m%d-%H%M%S)-$$
else
	run=${RFC8797_CHECK_RUN:-$CACHE/check/$(date +%Y%m%d-%H%M%S)-$$}
fi
mkdir -p "$run"
# one budget of Debian retries (lib.sh's debian_retry) for every stage,
# base and guest of this make check
debian_budget "$run"
results=$run/results.ktap
: >"$results"
ktap_open "$results"
ktap_print_header >/dev/null
msg "check run folder: $run"
if [ ${#bases[@]} -eq 1 ]; then
	[ ${#stages[@]} -gt 0 ] || stages=("${ALL_STAGES[@]}")
	# which base this run is on, and whether it is the tested one
	msg "$(base_note)"
	echo "# $(base_note)" >>"$results"
fi

# result NAME pass|fail|skip [REASON]: one KTAP result of the run, in
# $results and on stdout (ktap.sh)
result() {
	case "$2" in
	pass) ktap_test_pass "$1" ;;
	skip) ktap_test_skip "$1" "${3:-skipped}" ;;
	*) ktap_test_fail "$1" "${3:-failed}" ;;
	esac
}

# import_ktap FILE [PREFIX] [STATUS]: a KTAP file (a guest's tests.ktap,
# the interop matrix's results, a kernel log with KUnit's KTAP) nested in
# the run's results as the block PREFIX (ktap.sh ktap_subtest_file;
# without PREFIX a block without a name), so that ktap.py, reading the
# run's results once at the end, names its results "PREFIX: NAME".  A
# file that is missing, has no KTAP version line or no result, a plan
# that does not match, or a producer's STATUS other than 0 with no
# failed result to explain it, is a failure.
import_ktap() {
	local prefix=${2:-}
	ktap_subtest_file "${prefix%: }" "$1" "${3:-0}"
}

stage_kunit() {
	local r=$run/kunit
	if ! "$RFC_HARNESS/guest.sh" --quiet --results "$r" --name kunit --timeout 300 \
			--append "kunit.enable=1" "$RFC_HARNESS/guest/noop.sh"; then
		result kunit-boot fail "guest failed, see $r/console.log"
		return
	fi
	# every case of every suite, parametrised cases one by one; a
	# skipped case is not a pass here: every case must run
	import_ktap "$r/dmesg.txt" "kunit: "
	if ktap_extract "$r/dmesg.txt" | grep -q -E '^ *ok [0-9]+ .*# SKIP'; then
		result kunit-no-skips fail "a KUnit case was skipped, see $r/dmesg.txt"
	fi
}

# The harness's KTAP writer and reader, tested together (a few seconds)
stage_ktap() {
	"$RFC_HARNESS/selftests/ktap-selftest.sh" >"$run/ktap-selftest.ktap" 2>"$run/ktap-selftest.log"
	import_ktap "$run/ktap-selftest.ktap" "ktap: "
	# postings.py's stable rules on a table of made-up patches
	python3 "$RFC_HARNESS/postings.py" selftest >"$run/postings-selftest.ktap" 2>"$run/postings-selftest.log"
	import_ktap "$run/postings-selftest.ktap" "ktap: postings: " $?
	# the documents' facts against their one source (make docs)
	python3 "$RFC_HARNESS/selftests/docs.py" check >"$run/docs.ktap" 2>"$run/docs.log"
	import_ktap "$run/docs.ktap" "" $?
}

# make bench's targets (bench/report.py) and BENCH=cost's (bench/cost.py)
# on made-up results whose numbers are known: what fails the bench, what
# it lists as not checked; the insn-count plugin on a program whose
# instructions are known (a second or two each, host only; the plugin's
# first build fetches a header from Debian's qemu source package, 4 s);
# every mode's plan (bench.sh BENCH_PLAN=1)
stage_bench() {
	"$RFC_HARNESS/bench/report-selftest.sh" >"$run/bench-report.ktap" 2>"$run/bench-report.log"
	import_ktap "$run/bench-report.ktap" "bench: "
	"$RFC_HARNESS/bench/cost-selftest.sh" >"$run/bench-cost.ktap" 2>"$run/bench-cost.log"
	import_ktap "$run/bench-cost.ktap" "bench cost: "
	"$RFC_HARNESS/bench/insn-selftest.sh" >"$run/bench-insn.ktap" 2>"$run/bench-insn.log"
	import_ktap "$run/bench-insn.ktap" "bench insn: "
	"$RFC_HARNESS/bench/plan-selftest.sh" >"$run/bench-plan.ktap" 2>"$run/bench-plan.log"
	import_ktap "$run/bench-plan.ktap" "bench plan: "
	"$RFC_HARNESS/bench/scale-selftest.sh" >"$run/bench-scale.ktap" 2>"$run/bench-scale.log"
	import_ktap "$run/bench-scale.ktap" "bench scale: "
}

# import (not in ALL_STAGES): the results of the KTAP file KTAP_IMPORT,
# as a stage imports a guest's (ktap-selftest.sh tests this script's
# accounting with it)
stage_import() {
	import_ktap "${KTAP_IMPORT:?}"
}

# The Wireshark dissector (tools/testing/rfc8797/wireshark/rpcrdma_cm.lua)
# on the captures kept in tools/testing/rfc8797/wireshark/fixtures:
# tshark only, no guest, seconds
stage_wireshark() {
	local f=$run/wireshark.ktap
	"$RFC_HARNESS/wireshark/check-fixtures.sh" >"$f" 2>"$run/wireshark.log"
	import_ktap "$f"
}

# The dissector on live two-guest captures, compared with what both
# peers of each connection reported (wireshark/live.sh; make
# wireshark-live; WIRESHARK_LIVE_CASES picks its cases)
stage_wireshark_live() {
	local f=$run/wireshark-live.ktap
	# shellcheck disable=SC2086
	"$RFC_HARNESS/wireshark/live.sh" --results "$run/wireshark-live" ${WIRESHARK_LIVE_CASES:-} \
		>"$f" 2>"$run/wireshark-live.log"
	import_ktap "$f" "wireshark-live: "
}

# The suites the way upstream runs them: kunit.py builds its own x86_64
# kernel from net/sunrpc/xprtrdma/.kunitconfig (UML has no INFINIBAND)
# and boots it in QEMU; its KTAP log is read like every other stage's.
# kunit.py's QEMU tries -accel kvm first; where /dev/kvm exists but
# cannot run a guest (a paravirtual KVM: QEMU then hangs until kunit.py's
# 300 s timeout), it runs in a mount namespace whose /dev/kvm is
# /dev/null, so that QEMU falls back to TCG as every guest here does.
stage_kunit_upstream() {
	local out=$CACHE/build/kunit-x86_64 log=$run/kunit-upstream.log
	local -a ns=()
	[ -e /dev/kvm ] && ns=(unshare --mount sh -c 'mount --bind /dev/null /dev/kvm && exec "$@"' sh)
	(cd "$TREE" && "${ns[@]}" python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig=net/sunrpc/xprtrdma --build_dir="$out" \
		--make_options CC="ccache gcc" --jobs "$JOBS" --raw_output=kunit) \
		>"$log" 2>&1
	local rc=$?
	import_ktap "$log" "kunit.py: "
	[ "$rc" = 0 ] || result kunit-upstream-run fail "kunit.py exit $rc, see $log"
}

# sparse_checker: prints a sparse that the base's kernel accepts.  7.3
# probes the checker with __typeof_unqual__ (scripts/checker-valid.sh),
# which bookworm's sparse 0.6.4 fails, and then builds without running
# it.  Then sparse is built from Debian sid's source package into the
# cache, once (about 10 s).
sparse_checker() {
	local d=$CACHE_ROOT/sparse s
	# a kernel without the probe (6.12) takes the system's
	[ -f "$TREE/scripts/checker-valid.sh" ] || { echo sparse; return 0; }
	for s in sparse "$d"/src/sparse-*/sparse; do
		[ -x "$(command -v "$s")" ] || continue
		[ "$(sh "$TREE/scripts/checker-valid.sh" "$s" -m64 2>/dev/null)" != 1 ] || { echo "$s"; return 0; }
	done
	rm -rf "$d/src" && mkdir -p "$d/src" || return 1
	{ (cd "$d/src" && apt_private "$d/apt" deb-src sid apt-get -q source --download-only sparse) &&
		tar -C "$d/src" -xf "$(ls "$d"/src/sparse_*.orig.tar.* | head -n 1)" &&
		make -C "$(ls -d "$d"/src/sparse-*/ | head -n 1)" -j"$JOBS" sparse; } >"$d/log" 2>&1 || return 1
	s=$(ls "$d"/src/sparse-*/sparse 2>/dev/null | head -n 1)
	[ -n "$s" ] && [ "$(sh "$TREE/scripts/checker-valid.sh" "$s" -m64 2>/dev/null)" = 1 ] || return 1
	echo "$s"
}

stage_sparse() {
	local log=$run/sparse-w1.log n chk
	chk=$(sparse_checker) ||
		{ result sparse-w1-xprtrdma fail "no sparse that this kernel accepts, see $CACHE_ROOT/sparse/log"; return; }
	# C=2 checks every file of the directory, W=1 adds the extra warnings
	kmake "$CACHE/build/main" C=2 W=1 CHECK="$chk" net/sunrpc/xprtrdma/ >"$log" 2>&1
	local rc=$?
	n=$(grep -cE '(warning|error):' "$log")
	if [ "$rc" -ne 0 ]; then
		result sparse-w1-xprtrdma fail "build failed, see $log"
	elif ! grep -q '^ *CHECK ' "$log"; then
		result sparse-w1-xprtrdma fail "the build ran no sparse ($chk), see $log"
	elif [ "$n" -ne 0 ]; then
		grep -E '(warning|error):' "$log" | head -n 10
		result sparse-w1-xprtrdma fail "$n warnings, see $log"
	else
		result sparse-w1-xprtrdma pass
	fi
	# rebuild the directory without W=1 so the next build is quiet
	kmake "$CACHE/build/main" net/sunrpc/xprtrdma/ >/dev/null 2>&1
}

stage_postings() {
	local dir=$run/postings ktap=$run/postings.ktap f
	# The postings go out From: the exporting user; a machine without a
	# git identity (CI) checks them under a stand-in that says so
	if [ -z "$(git config user.email)" ] && [ -z "${RFC8797_EXPORT_IDENT:-}" ]; then
		echo "# no git identity here: the postings are checked From: a stand-in" | tee -a "$results"
		export RFC8797_EXPORT_IDENT="make check <make-check@invalid>"
	fi
	"$RFC_HARNESS/tree.sh" export "$dir" >"$run/postings-export.log" 2>&1 ||
		{ result postings-export fail "tree.sh export failed, see $run/postings-export.log"; return; }
	if [ "${RFC8797_INJECT:-}" = postings-trailers ]; then
		# the first patch of the first fixes posting loses its Fixes:
		# and its Signed-off-by:
		f=$(ls "$dir"/*-fixes/0001-*.patch | head -n 1)
		sed -i -e '/^Fixes: /d' -e '/^Signed-off-by: /d' "$f"
		echo "# RFC8797_INJECT=postings-trailers: no Fixes: or Signed-off-by: in $f"
	fi
	if [ "${RFC8797_INJECT:-}" = postings-stable ]; then
		# the first patch of the NFSD posting asks stable in a trailer
		f=$(ls "$dir"/*-nfsd-fixes/0001-*.patch | head -n 1)
		sed -i -e '/^Fixes: /a Cc: stable@vger.kernel.org' "$f"
		echo "# RFC8797_INJECT=postings-stable: Cc: stable in $f"
	fi
	# every commit built on its own (W=1), recorded by tree ID; the
	# commits data/bisect/BASE.clean names are not built again
	"$RFC_HARNESS/tree.sh" bisect >"$run/bisect.log" 2>&1 || true
	grep '^# ' "$run/bisect.log" | sed 's/^# /# postings: bisect: /' | tee -a "$results"
	python3 "$RFC_HARNESS/postings.py" check --tree "$TREE" --base-tag "$BASE_TAG" \
		--patches "$PATCHES" --out "$dir" --bisect-trees "$CACHE/logs/bisect.trees" \
		--work "$CACHE/src/postings" >"$ktap" 2>"$run/postings-check.log"
	grep '^# ' "$ktap" | grep -v '^# postings:' | head -n 40
	import_ktap "$ktap" "postings: "
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
	# the KUnit suite, unmodified, in user space under ASan and UBSan
	# (fuzz/kunit_main.c and its <kunit/test.h> stand-in): the kernel
	# runs it without sanitizers
	if make -C "$RFC_HARNESS/fuzz" kunit >"$run/fuzz-kunit.log" 2>&1 &&
	   grep -q '^# 0 of [1-9][0-9]* failed' "$run/fuzz-kunit.log"; then
		result "KUnit suite rpcrdma_cm_private in user space under ASan and UBSan ($(sed -n 's/^# 0 of \([0-9]*\) failed/\1/p' "$run/fuzz-kunit.log") cases)" pass
	else
		tail -n 20 "$run/fuzz-kunit.log"
		result "KUnit suite rpcrdma_cm_private in user space under ASan and UBSan" fail "see $run/fuzz-kunit.log"
	fi
}

# on_debian_kernel: the guests boot one of Debian's own kernels
# (RFC8797_KERNEL=dkms, stock or trixie; data/kernels/: DEBIAN=yes), not one
# built here
on_debian_kernel() { kernel_is "${RFC8797_KERNEL:-ours}" debian=yes; }

# Guests run GUEST_JOBS at a time (default: one per host core, at most
# 2): each is one QEMU thread (guest.sh, thread=single) and waits much
# of its time, so two of them on two cores take little longer than one.
# Their results are imported in the order the guests were started, when
# a stage (or anything that needs them) calls e2e_wait.
GUEST_JOBS=${GUEST_JOBS:-$(n=$(nproc); echo $((n < 2 ? n : 2)))}
e2e_names=() e2e_pids=()

# e2e_guest NAME TRANSPORT SCRIPT ARGS...: start SCRIPT in a guest whose
# tests use TRANSPORT (rxe or siw), once fewer than GUEST_JOBS guests
# run; e2e_wait imports its results.  A guest on Debian's kernel
# (RFC8797_KERNEL=dkms, stock or trixie) that crashed with no module of
# ours loaded (lib.sh's boot_trouble_of) is booted again as lib.sh's
# retry_spoiled allows, and every retry reported.  A crash of our
# kernel, or with our rpcrdma.ko loaded, is never retried.
e2e_guest() {
	wait_for_slot "$GUEST_JOBS" "${e2e_pids[@]}"
	e2e_names+=("$1")
	RETRY_LOG=$run/$1.retry retry_spoiled "$run/$1" "boot_trouble_of ${RFC8797_KERNEL:-ours}" "$1" e2e_boot "$@" &
	e2e_pids+=($!)
}

# dkms_guest KERNEL NAME SCRIPT [ARGS...]: e2e_guest NAME over rxe on
# KERNEL, a Debian kernel with the DKMS package's module, where
# guest/tests/dkms-module.sh checks the module and the base's DKMS_VIEWS
# before SCRIPT runs
dkms_guest() {
	local k=$1 name=$2 v views=()
	shift 2
	for v in $DKMS_VIEWS; do views+=(--view "$v"); done
	RFC8797_KERNEL=$k e2e_guest "$name" rxe "$RFC_HARNESS/guest/tests/dkms-module.sh" "${views[@]}" "$@"
}

# e2e_alone NAME TRANSPORT SCRIPT ARGS...: e2e_guest with a host thread
# per vCPU (RFC8797_TCG_THREAD=multi), alone on the host: it starts once
# the pool's guests have ended, and no other starts before it ends.
# For the tests whose point is code running on two CPUs at the same
# moment; with a single-thread guest beside it, its vCPU threads would
# spin against descheduled ones (HARNESS.rst, "CPUs and clocks").
e2e_alone() {
	wait_for_slot 1 "${e2e_pids[@]}"
	RFC8797_TCG_THREAD=multi e2e_guest "$@"
	wait_for_slot 1 "${e2e_pids[@]}"
}

# e2e_boot NAME TRANSPORT SCRIPT ARGS...: one boot of e2e_guest's; its
# exit status goes to NAME.rc beside the guest's folder
e2e_boot() {
	local name=$1 tr=$2 r=$run/$1 inject rc
	shift 2
	inject=$(boot_inject on_debian_kernel)
	mkdir -p "$r"
	"$RFC_HARNESS/guest.sh" --quiet --results "$r" --name "$name" \
		--timeout "${E2E_TIMEOUT:-900}" \
		--append "rfc8797.inject=$inject rfc8797.transport=$tr" "$@"
	rc=$?
	echo "$rc" >"$r.rc"
	return "$rc"
}

# e2e_wait: wait for every guest e2e_guest started, import their
# results in the order they started
e2e_wait() {
	local name rc
	[ ${#e2e_pids[@]} -eq 0 ] || wait "${e2e_pids[@]}"
	for name in "${e2e_names[@]}"; do
		rc=$(cat "$run/$name.rc" 2>/dev/null) || rc="none (no status)"
		[ ! -f "$run/$name.retry" ] || cat "$run/$name.retry" >>"$results"
		# the guest's block: its own results (a block without a name,
		# read as they are) and whether it ended well
		ktap_subtest_begin "$name"
		ktap_subtest_file "" "$run/$name/tests.ktap" 0 tests
		if [ "$rc" = 0 ]; then
			result guest pass
		else
			result guest fail "exit $rc, console: $run/$name/console.log"
		fi
		ktap_subtest_end
	done
	e2e_names=() e2e_pids=()
}

# The guests' clock against the host's (guest/tests/clock.sh: 62 s of
# guest time with every vCPU busy) in two guests at once, one with its
# two vCPUs on one host thread as the single-guest stages run them, one
# with a thread each as the linked guests run them, while the host
# builds a kernel beside them (allnoconfig, without ccache; stopped when
# the guests end).  Nothing else may run then: the build must load the
# host from the guests' first mark to their last.
stage_clock() {
	local b=$run/clock-build th bpid loaded=1
	rm -rf "$b"
	mkdir -p "$b"
	# a session of its own, so that the whole build stops at once
	setsid bash -c 'make -C "$1" O="$2" ARCH=x86_64 allnoconfig &&
		exec make -C "$1" O="$2" ARCH=x86_64 -j"$3" vmlinux' _ \
		"$TREE" "$b" "$(nproc)" >"$b.log" 2>&1 &
	bpid=$!
	for th in single multi; do
		RFC8797_TCG_THREAD=$th e2e_guest "clock-$th" rxe "$RFC_HARNESS/guest/tests/clock.sh"
	done
	wait "${e2e_pids[@]}"
	kill -0 "$bpid" 2>/dev/null || loaded=0
	kill -- -"$bpid" 2>/dev/null
	wait "$bpid" 2>/dev/null
	if [ "$loaded" = 1 ]; then
		result "clock: a kernel build loaded the host throughout" pass
	else
		result "clock: a kernel build loaded the host throughout" fail \
			"it ended before the guests did, see $b.log"
	fi
	rm -rf "$b"
}

# scale_stage NAME SCALE_ARGS...: bench/scale.sh SCALE_ARGS on this
# base's test kernel (ours), its guests' folders in $run/NAME, and their
# results as "NAME: client: " and "NAME: server: "
scale_stage() {
	local name=$1 out=$run/$1 rc k=ours
	shift
	rm -rf "$out"
	# make bench's settings (the environment of a make command line)
	# are not the stage's
	env -u SCALE_RUNS -u SCALE_MOUNTS -u SCALE_PRESSURE -u SCALE_TRANSPORT -u SCALE_SERVER_MEM \
		"$RFC_HARNESS/bench/scale.sh" --kernels ours --results "$out" "$@" >"$run/$name.log" 2>&1
	rc=$?
	# over siw scale.sh names the server's folder ours-siw
	[[ " $* " != *" --transport siw "* ]] || k=ours-siw
	import_ktap "$out/$k/client/tests.ktap" "$name: client: " "$rc"
	import_ktap "$out/$k/server/tests.ktap" "$name: server: "
}

# A server short of memory (bench/scale.sh --pressure,
# guest/pressure-client.sh): a server guest of 1 GiB on this base's
# test kernel, and a client that opens 8 KiB clients' connections until
# the server refuses one.  The refusal must come at connect, the
# connections held and an NFSv4.2 mount served meanwhile, the server's
# memory back after they close, and neither kernel's log show the OOM
# killer, an oops or a warning.  About 80 s here (mainline held 290
# connections, 6.12 578: 2026-11-30).
stage_pressure() {
	scale_stage pressure --server-mem 1024 --timeout 1200 --pressure ours:1000
}

# The server's memory at a few connections (bench/scale.sh,
# guest/scale-client.sh; make bench BENCH=scale goes to 1000): on a
# 2 GiB server guest of the base's test kernel, our client's Private
# Data (8 KiB) and a stock client's (4 KiB) at N = 1 and 10.  Every
# connection must be accepted, answered, counted and released, scale.py
# must give its table and fits, and svcrdma must have allocated for each
# connection 2 * max_requests + 7 Receive buffers, each of its size
# rounded up to 1 KiB (scale.py --check-recv).  Then the base's
# SCALE_SIW_RUNS over soft-iWARP, where one process's connections were
# capped at 48 by siw's mmap keys (scale-siw).
stage_scale() {
	scale_stage scale --timeout 900 ours:1,10 stock:1,10
	python3 "$RFC_HARNESS/bench/scale.py" --check-recv "$run/scale/ours/client/scale.txt" \
		>"$run/scale/recv.ktap" 2>&1
	import_ktap "$run/scale/recv.ktap" "scale: "
	# shellcheck disable=SC2086	# a list of runs
	[ -z "$SCALE_SIW_RUNS" ] || scale_stage scale-siw --timeout 900 --transport siw $SCALE_SIW_RUNS
}

stage_e2e() {
	local t tr versions tests only
	for tr in $transports; do
		versions=${E2E_VERSIONS:-3 4.0 4.1 4.2}
		tests=${E2E_TESTS:-}
		if [ "$tr" = siw ] && [ "$E2E_SIW_TESTS" != all ]; then
			# the base's subset (E2E_SIW_TESTS in data/bases/)
			versions=${E2E_VERSIONS:-3 4.2}
			tests=${E2E_TESTS:-$E2E_SIW_TESTS}
		fi
		# shellcheck disable=SC2086
		e2e_guest "e2e-$tr" "$tr" "$RFC_HARNESS/guest/tests/nfs-basic.sh" --transport "$tr" $versions
		[ -z "${E2E_BASIC_ONLY:-}" ] || continue
		# every further in-guest test: guest/tests/test-NAME.sh, one guest each
		for t in "$RFC_HARNESS"/guest/tests/test-*.sh; do
			[ -f "$t" ] || continue
			# a test whose header names its transports
			# ("# transports: siw") runs over those alone
			only=$(sed -n 's/^# transports: //p' "$t")
			case " ${only:-$tr} " in *" $tr "*) ;; *) continue ;; esac
			t=${t##*/test-}
			t=${t%.sh}
			case " ${tests:-$t} " in *" $t "*) ;; *) continue ;; esac
			e2e_guest "e2e-$tr-$t" "$tr" "$RFC_HARNESS/guest/tests/test-$t.sh"
		done
	done
}

# guest_tool_build TOOL STAGE: build guest/TOOL (cm-peer, exerciser) into
# the cache, where guests find it (rfc8797.cache=); a failure is
# STAGE-build's result
guest_tool_build() {
	make -C "$RFC_HARNESS/guest/$1" OUT="$CACHE_ROOT/$1" >"$run/$1-build.log" 2>&1 && return
	result "$2-build" fail "$1 did not build, see $run/$1-build.log"
	return 1
}

# The hostile-input table: crafted RDMA-CM peers (tools/testing/rfc8797/
# cm-peer) against our server and our client, over each transport.
stage_hostile() {
	local tr role quick=--quick
	[ "$HOSTILE_TABLE" != full ] || quick=""
	guest_tool_build cm-peer hostile || return
	for tr in $transports; do
		for role in server client; do
			e2e_guest "hostile-$tr-$role" "$tr" "$RFC_HARNESS/guest/tests/hostile-$role.sh" \
				${quick:+"$quick"}
		done
	done
}

# Crafted clients whose Read and Write lists need as many Send Queue
# entries as the connection has, or more, and servers with many credits
# (guest/tests/send-queue.sh)
stage_sendqueue() {
	local tr
	guest_tool_build cm-peer sendqueue || return
	for tr in $transports; do
		e2e_guest "sendqueue-$tr" "$tr" "$RFC_HARNESS/guest/tests/send-queue.sh"
	done
}

# Parallel fsx-style exercisers that close, drop caches and reopen their
# files, on NFSv4.2 (buffered and O_DIRECT) and NFSv3
# (guest/tests/parallel-open.sh): the NFSv4.2 OPEN that waited forever
# for an inode being evicted.  Over rxe alone: the hang does not need
# RDMA (parallel-open.sh --proto tcp shows it over TCP too).
stage_parallel() {
	local tr
	guest_tool_build exerciser parallel || return
	for tr in ${PARALLEL_TRANSPORTS:-rxe}; do
		# shellcheck disable=SC2086	# options, split into words
		e2e_alone "parallel-$tr" "$tr" "$RFC_HARNESS/guest/tests/parallel-open.sh" \
			${PARALLEL_ARGS:-}
	done
}

# Forced disconnects during verified I/O, the CM handlers on one vCPU
# while I/O and the connect worker run on the other
stage_storm() {
	local tr
	for tr in ${STORM_TRANSPORTS:-rxe}; do
		e2e_alone "storm-$tr" "$tr" "$RFC_HARNESS/guest/tests/storm.sh" "${STORM_DISCONNECTS:-5}"
	done
}

stage_interop() {
	local f=$run/interop-results.ktap
	rm -f "$f"
	"$RFC_HARNESS/interop-matrix.sh" --quick --results-file "$f" >"$run/interop.log" 2>&1
	import_ktap "$f"
}

# Debian's nfstest over NFS/RDMA (nfstest.sh): nfstest_rdma's chunk and
# wire checks and the functional scripts of the set, our kernel and
# Debian's own kernel of the base's version, each against its list of
# expected failures (data/nfstest/expected/BASE/); nfstest_full (make
# nfstest) runs the full set
# dkms_laid_out STAGE KERNEL: true unless KERNEL boots the DKMS package's
# modules and the dkms stage has not laid them out (a failed result of
# STAGE says so)
dkms_laid_out() {
	! kernel_is "$2" fetch=dkms || [ -d "$CACHE/dkms/modules-$STOCK_KREL" ] ||
		{ result "$1: dkms" fail "no DKMS modules for $STOCK_KREL: the dkms stage lays them out, run it first"; return 1; }
}

stage_nfstest() {
	local f=$run/nfstest-${1:-check}.ktap
	"$RFC_HARNESS/deps.sh" nfstest >"$run/nfstest-deps.log" 2>&1 ||
		{ result "nfstest: deps" fail "deps.sh nfstest failed, see $run/nfstest-deps.log"; return; }
	# the check set boots NFSTEST_KERNEL (nfstest.sh's default for it)
	[ -n "${1:-}" ] || dkms_laid_out nfstest "$NFSTEST_KERNEL" || return
	rm -f "$f"
	"$RFC_HARNESS/nfstest.sh" --set "${1:-check}" --results-file "$f" >"$run/nfstest.log" 2>&1
	import_ktap "$f" "" $?
}
stage_nfstest_full() { stage_nfstest full; }

# fstests' smoke selection over NFSv4.2/rxe (fstests.sh; make fstests
# runs whole groups), the base's FSTESTS_SMOKE on its FSTESTS_KERNEL:
# data paths through the RDMA transport, from the quick group.  On
# mainline: mmap with truncate and msync (029, 030, 080), fsx (075),
# locks (131, and OFD locks 504), AIO with O_DIRECT (207, 240),
# copy_file_range, NFSv4.2's server-side COPY (430).  Alone on the
# machine (2026-11-29, run 20261129-214117-14533) these took 16, 18,
# 12, 63, 10, 11, 11, 10 and 15 s, and the stage's guest 80 s more; the
# fourteen tests it first had took 761 s, too much for CI's 90 minutes
# beside the rest: fsstress (013, 248 s), fsx O_DIRECT (091, 193 s) and
# AIO (112, 72 s), truncate (014, 49 s) and 431 left it.  On 6.12
# Debian's stock 6.12 with the DKMS package's rpcrdma.ko ("dkms"), what
# 6.12's users install (the dkms stage lays it out).  Fresh results in
# the run folder: make check never reports a recorded one.
stage_fstests() {
	local f=$run/fstests.ktap k=$FSTESTS_KERNEL
	dkms_laid_out fstests "$k" || return
	rm -f "$f"
	# a hang costs ten minutes, not fstests.sh's thirty
	"$RFC_HARNESS/fstests.sh" run --kernel "$k" --tests "$FSTESTS_SMOKE" --per-test 600 \
		--record "$run/fstests" --results-file "$f" >"$run/fstests.log" 2>&1
	import_ktap "$f" "" $?
}

# Debian's stock kernel with our rpcrdma.ko from the DKMS package (make
# dkms): the package, built from the prepared tree; a dkms build from it
# in a scratch DKMS tree against linux-headers-$STOCK_KREL (and against
# the headers of DKMS_KRELS, other 6.12 kernels, by default the oldest
# the package accepts, 6.12.$DKMS_MIN_SUBLEVEL: build only);
# then one guest that boots the stock kernel with ours in updates/dkms:
# modprobe loads ours (guest/tests/dkms-module.sh), NFSv3 and v4.2 over rxe
# with checksums (guest/tests/nfs-basic.sh), then test-agree (both peers'
# views and checksums over the grid of settings).  DKMS_TESTS="agree
# client-negotiate ..." sets the guest/tests/test-NAME.sh run there instead,
# one guest each; the client's values come from its tracepoints there
# (xprt_info in guest/lib-nfs.sh), as its sysfs xprt_info keys cannot be in the
# module (see dkms/README.rst).
# Measured: 390 s (package 50 s, dkms build 86 s, guest 254 s) on the
# two shared cores at load 7.
stage_dkms() {
	local deb k t
	kernel_is "$DKMS_STOCK_KERNEL" fetch=dkms ||
		{ result "dkms: kernel" fail "data/bases/$RFC_BASE names no DKMS_STOCK_KERNEL of data/kernels/ with FETCH=dkms"; return; }
	"$RFC_HARNESS/deps.sh" dkms >"$run/dkms-deps.log" 2>&1 ||
		{ result "dkms: deps" fail "deps.sh dkms failed, see $run/dkms-deps.log"; return; }
	if ! deb=$("$RFC_HARNESS/dkms.sh" package 2>"$run/dkms-package.log"); then
		result "dkms: package" fail "see $run/dkms-package.log"
		return
	fi
	echo "# dkms package: $deb" >>"$results"
	sed -n 's/^out [0-9a-f]* \(.*\) -- \(.*\)/# dkms: left out: \1 (\2)/p' "$CACHE/dkms/selection.txt" |
		tee -a "$results"
	result "dkms: package" pass
	for k in ${DKMS_KRELS:-}; do
		if "$RFC_HARNESS/dkms.sh" build "$deb" "$k" >"$run/dkms-build-$k.log" 2>&1; then
			result "dkms: build for $k" pass
		else
			result "dkms: build for $k" fail "see $run/dkms-build-$k.log"
		fi
	done
	if ! "$RFC_HARNESS/dkms.sh" modules "$deb" "$STOCK_KREL" >"$run/dkms-build-$STOCK_KREL.log" 2>&1; then
		result "dkms: build for $STOCK_KREL" fail "see $run/dkms-build-$STOCK_KREL.log"
		return
	fi
	result "dkms: build for $STOCK_KREL" pass
	dkms_guest "$DKMS_STOCK_KERNEL" dkms-rxe "$RFC_HARNESS/guest/tests/nfs-basic.sh" \
		--transport rxe 3 4.2
	for t in ${DKMS_TESTS-agree}; do
		dkms_guest "$DKMS_STOCK_KERNEL" "dkms-rxe-$t" "$RFC_HARNESS/guest/tests/test-$t.sh"
	done
	# DKMS_INSTALL=1: the package's own postinst and apt purge in a stock
	# guest (guest/tests/dkms-install.sh: dpkg -i, a dkms build under TCG and
	# two depmod runs; 846 s when last measured, so not by default)
	if [ -n "${DKMS_INSTALL:-}" ]; then
		kernel_info "$DKMS_STOCK_KERNEL" || die "no kernel $DKMS_STOCK_KERNEL"
		RFC8797_KERNEL=$K_ON E2E_TIMEOUT=1800 e2e_guest dkms-install rxe \
			"$RFC_HARNESS/guest/tests/dkms-install.sh" "$deb"
	fi
}

# The DKMS package on Debian 13 (trixie.sh): a trixie root made by
# debootstrap (cached), the package installed there with trixie's dkms,
# headers and gcc-14 through a kernel upgrade within 6.12, refused for an
# older 6.12 and a 7.x kernel, purged; then Debian 13's kernel booted on
# that root with the module DKMS built: guest/tests/dkms-module.sh with
# nfs-basic (NFSv3 and v4.2), the tests of TRIXIE_TESTS (default "agree
# server-remote-inv", one guest each; client-negotiate's guest took
# 440 s here for a client, all of xprtrdma, that e2e tests on our
# kernel), both interop
# roles against Debian 12's stock kernel and against Debian 13's
# backports 7.3 as Debian ships it (NFSv4.2; INTEROP_CELLS=trixie make
# interop runs both versions), and the purge, after which the root
# must hold what it held before the install.
# On mainline the same for its package, rpcrdma-rfc8797-7.3-dkms, on a
# work root of its own: refused on trixie's 6.12, built by the kernel
# upgrade to trixie-backports' 7.3, purged, installed again; the
# backports kernel booted (guest.sh --kernel trixie-7.3) with nfs-basic
# (TRIXIE_TESTS only when set, below); its interop cells (trixie-7.3,
# against Debian's 6.12 in both roles) only in make interop, for time.
stage_trixie() {
	local deb k t f=$run/trixie-matrix.ktap kern=$DKMS_TRIXIE_KERNEL suf="" cells tests
	[ -n "$kern" ] || { result "trixie: kernel" fail "data/bases/$RFC_BASE names no DKMS_TRIXIE_KERNEL"; return; }
	"$RFC_HARNESS/deps.sh" trixie >"$run/trixie-deps.log" 2>&1 ||
		{ result "trixie: deps" fail "deps.sh trixie failed, see $run/trixie-deps.log"; return; }
	if ! deb=$("$RFC_HARNESS/dkms.sh" package 2>"$run/trixie-package.log"); then
		result "trixie: package" fail "see $run/trixie-package.log"
		return
	fi
	if ! "$RFC_HARNESS/trixie.sh" root >/dev/null 2>"$run/trixie-root.log"; then
		result "trixie: root" fail "see $run/trixie-root.log"
		return
	fi
	"$RFC_HARNESS/trixie.sh" install "$deb" >"$run/trixie-install.ktap" 2>"$run/trixie-install.log"
	# a trixie.sh that stopped half-way: its exit status with no failed
	# result to explain it
	import_ktap "$run/trixie-install.ktap" "trixie: " $?
	kernel_row "$kern" && suf=$K_SUFFIX
	if [ ! -f "$CACHE_ROOT/trixie/work$suf.krel" ]; then
		result "trixie: guests" fail "no trixie kernel to boot, see $run/trixie-install.log"
		return
	fi
	k=$(cat "$CACHE_ROOT/trixie/work$suf.krel")
	dkms_guest "$kern" "trixie-$k" "$RFC_HARNESS/guest/tests/nfs-basic.sh" --transport rxe 3 4.2
	# the base's DKMS_TRIXIE_TESTS, unless TRIXIE_TESTS names others
	tests=${TRIXIE_TESTS-$DKMS_TRIXIE_TESTS}
	for t in $tests; do
		dkms_guest "$kern" "trixie-$k-$t" "$RFC_HARNESS/guest/tests/test-$t.sh"
	done
	e2e_wait
	# the base's DKMS_TRIXIE_CELLS, unless TRIXIE_INTEROP_CELLS names others
	cells=${TRIXIE_INTEROP_CELLS-$DKMS_TRIXIE_CELLS}
	if [ -n "$cells" ]; then
		TRIXIE_PREPARED=1 INTEROP_CELLS=$cells INTEROP_VERSIONS=${INTEROP_VERSIONS:-4.2} \
			"$RFC_HARNESS/interop-matrix.sh" --results-file "$f" >"$run/trixie-interop.log" 2>&1
		import_ktap "$f"
	fi
	"$RFC_HARNESS/trixie.sh" purge >"$run/trixie-purge.ktap" 2>"$run/trixie-purge.log"
	import_ktap "$run/trixie-purge.ktap" "trixie: " $?
}

# check_base BASE: this script's stages on BASE, in a run of its own
# (lib.sh's settings are the base's) whose results become results of
# this run named "BASE: ..."
check_base() {
	local b=$1 st=("${stages[@]}") t=$SECONDS
	if [ ${#st[@]} -eq 0 ]; then
		# shellcheck disable=SC2207	# a list of words
		st=($(make_check_stages "$b")) || die "CHECK_BASES: no base $b"
	fi
	msg "=== base $b: ${st[*]}"
	RFC8797_BASE=$b RFC8797_BASE_RESOLVED="" CHECK_BASES=$b RFC8797_CHECK_RUN=$run/$b \
		"$0" "${st[@]}" 2>&1 | sed -u "s/^/[$b] /"
	# the base's run as a block of this one (its lines were on stdout
	# already, with "[$b] " before them)
	import_ktap "$run/$b/results.ktap" "$b: " "${PIPESTATUS[0]}" >/dev/null
	msg "=== base $b: $((SECONDS - t)) s"
}

start=$SECONDS
if [ ${#bases[@]} -gt 1 ]; then
	for b in "${bases[@]}"; do
		check_base "$b"
	done
else
	# the guests of consecutive single-guest stages share e2e_guest's
	# pool: a stage whose guests still run lets the next start its own
	guest_stages=" e2e hostile sendqueue parallel storm "
	for ((i = 0; i < ${#stages[@]}; i++)); do
		s=${stages[i]} next=${stages[i + 1]:-none}
		t=$SECONDS
		msg "=== $s"
		"stage_$s"
		if [[ "$guest_stages" == *" $s "* && "$guest_stages" == *" $next "* ]]; then
			msg "=== $s: its last guests run on beside $next"
			continue
		fi
		e2e_wait
		msg "=== $s: $((SECONDS - t)) s"
	done
fi
echo "1..$KTAP_TESTNUM" >>"$results"
msg "all results: $results ($((SECONDS - start)) s)"
# the verdict is the reader's: ktap.py on the run's results
ktap_flat "$results" >"$run/results.flat"
verdict=$?
passed=$(grep -c '^ok ' "$run/results.flat")
skipped=$(grep -c '^ok .* # SKIP' "$run/results.flat")
xfailed=$(grep -c '^ok .* # XFAIL' "$run/results.flat")
failed=$(grep -c '^not ok ' "$run/results.flat")
if [ "$failed" -ne 0 ]; then
	echo "failed tests:"
	grep '^not ok ' "$run/results.flat" | sed 's/^/  /'
fi
[ "$skipped" -eq 0 ] || echo "$skipped skipped (not counted as passed)"
[ "$xfailed" -eq 0 ] || echo "$xfailed failed as their lists of expected failures say (not counted as passed)"
# what ktap.py reports besides results: the runs Debian's kernel spoiled
# and that ran again, the sources tested
grep '^# RETRY ' "$run/results.flat" | sed 's/^# /retried: /'
grep '^# base ' "$run/results.flat" | sed 's/^# //'
echo "$((passed - skipped - xfailed)) passed, $failed failed"
[ "$verdict" = 0 ] && [ "$failed" -eq 0 ] && [ "$((passed - skipped - xfailed))" -gt 0 ]
