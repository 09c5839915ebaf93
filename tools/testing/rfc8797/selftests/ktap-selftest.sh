#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness's KTAP writer and reader, tested together on the host (the
# "ktap" stage of check.sh, a few seconds): small test scripts written the
# way the guests' tests are (guest/lib.sh: ktap_begin, pass, fail, skip,
# ktap_finished; one results file for all of them, as a guest has), read
# by ktap.py, and then by check.sh itself (its hidden "import" stage), to
# show that
#   - a test that dies halfway (killed, as by a guest crash) is a failure
#     ("stopped early"), whatever results it gave before;
#   - a test that ends before its plan is complete is a failure;
#   - a skip is reported as a skip and never counted as a pass: a run of
#     skips only fails;
#   - blocks of several scripts in one file, nested blocks and a
#     command's own KTAP embedded as a subtest keep their results apart;
#   - files nested whole, as check.sh nests a guest's results, a kernel
#     log and a base's run, are read once, by ktap.py: a block cut off
#     inside one is a failure, and so is a producer that ended badly
#     with every result "ok"; a "# RETRY" line inside is reported;
#   - retry_spoiled (lib.sh) runs a spoiled attempt again only as the
#     retry budget allows, keeps each one, and says so once per retry.
# Prints KTAP on stdout.
set -uo pipefail
# (make check-long exports CHECK_LONG; the cases below set it where they mean it)
unset CHECK_LONG
. "$(dirname "$0")/../lib.sh"
resolve_base || exit 1	# once, for the check.sh runs below
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_print_header

# fixture FILE NAME BODY: a guest-style test script NAME (BODY after
# sourcing guest/lib.sh) writing its results to FILE; prints its exit
# status
fixture() {
	printf '#!/bin/bash\nKTAP_RESULTS=%q\n. %q\n%s\n' "$1" "$RFC_HARNESS/guest/lib.sh" "$3" \
		>"$tmp/$2.sh"
	# (the compound's stderr: the shell's "Killed" line for the killed one)
	{ bash "$tmp/$2.sh" >"$tmp/$2.out" 2>&1; echo $? >"$tmp/$2.rc"; } 2>/dev/null
	cat "$tmp/$2.rc"
}

# expect NAME WANT GOT: one result, WANT and GOT compared
expect() {
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "want '$2', got '$3'"
	fi
}

# flat FILE: ktap.py's reading of FILE, one line per result, "|" between
flat() { ktap_flat "$1" | paste -sd'|'; }

f=$tmp/guest.ktap
expect "complete test exits 0" 0 "$(fixture "$f" complete \
	'ktap_begin complete 3; pass a; skip b "no device"; result_of c true; ktap_finished')"
expect "failing test exits 1" 1 "$(fixture "$f" failing \
	'ktap_begin failing; pass a; fail b "b is wrong"; ktap_finished')"
expect "test short of its plan exits 1" 1 "$(fixture "$f" short \
	'ktap_begin short 3; pass a; exit 0')"
expect "test that exits early after a failure keeps its status" 1 "$(fixture "$f" setup \
	'ktap_begin setup; fail setup "rdma link add failed"; exit 1')"
expect "killed test" 137 "$(fixture "$f" killed \
	'ktap_begin killed 4; pass a; pass b; kill -9 $$')"
expect "ktap.py reads the shared file" \
	"ok complete: a|ok complete: b # SKIP no device|ok complete: c|ok failing: a|not ok failing: b # b is wrong|ok short: a|not ok short: plan # 1 results, plan 1..3|not ok setup: setup # rdma link add failed|ok killed: a|ok killed: b|not ok killed: finished # stopped early: no result line closes it (2 results, the last 'b')|not ok killed: plan # 2 results, plan 1..4" \
	"$(flat "$f")"

f=$tmp/nested.ktap
expect "nested blocks and an embedded command" 1 "$(fixture "$f" nested \
	'ktap_begin outer; ktap_subtest_begin inner 1; pass x; ktap_subtest_end
	 ktap_subtest_cmd embedded bash -c "echo KTAP version 1; echo ok 1 e1; echo not ok 2 e2 \# why; exit 1"
	 pass after; ktap_finished')"
expect "ktap.py reads nested blocks" \
	"ok outer: inner: x|ok outer: embedded: e1|not ok outer: embedded: e2 # why|ok outer: after" \
	"$(flat "$f")"

# Files nested whole (ktap_subtest_file, as check.sh nests each guest's
# results and each base's run): ktap.py reads them once, at the end
f=$tmp/run.ktap
: >"$f"
# (a script of its own: a subshell would run this script's EXIT trap,
# which ktap_subtest_begin saves and restores)
cat >"$tmp/nest.sh" <<EOF_NEST
. "$RFC_HARNESS/ktap.sh"
tmp=$tmp f=$f
$(cat <<'EOF_BODY'
	ktap_open "$f"
	ktap_print_header
	# a guest as check.sh's e2e_wait nests it: its file unnamed, then
	# whether the guest ended well; this one crashed inside its block
	printf '%s\n' 'KTAP version 1' '    KTAP version 1' '    # Subtest: nfs-basic' '    1..3' \
		'    ok 1 mount' '    ok 2 read' >"$tmp/crashed.ktap"
	ktap_subtest_begin guest-a
	ktap_subtest_file "" "$tmp/crashed.ktap" 0 tests
	ktap_test_fail guest "exit 125"
	ktap_subtest_end
	# a producer that ended badly with every result "ok"
	printf '%s\n' 'KTAP version 1' '1..1' 'ok 1 lintian' '# trixie install: 3 s' >"$tmp/half.ktap"
	ktap_subtest_file trixie "$tmp/half.ktap" 3
	# a kernel log with KUnit's KTAP behind printk's time stamps, and a
	# retried run's diagnostic in a file without a name
	printf '%s\n' '[    0.5] Linux version 7.3' '[    1.0] KTAP version 1' '[    1.0] 1..1' \
		'[    1.0]     KTAP version 1' '[    1.0]     # Subtest: suite' '[    1.0]     1..1' \
		'[    1.0]     ok 1 case' '[    1.0] ok 1 suite' >"$tmp/dmesg.txt"
	ktap_subtest_file kunit "$tmp/dmesg.txt"
	printf '%s\n' 'KTAP version 1' 'ok 1 interop a nfs4.2' \
		'# RETRY interop a: the client guest on Debian'"'"'s kernel crashed' >"$tmp/interop.ktap"
	ktap_subtest_file "" "$tmp/interop.ktap"
	ktap_subtest_file none "$tmp/missing.ktap"
	echo "1..$KTAP_TESTNUM" >>"$f"
EOF_BODY
)
EOF_NEST
bash "$tmp/nest.sh" >/dev/null
expect "nested files: one reading by ktap.py" \
	"ok guest-a: nfs-basic: mount|ok guest-a: nfs-basic: read|not ok guest-a: nfs-basic: finished # stopped early: no result line closes it (2 results, the last 'read')|not ok guest-a: nfs-basic: plan # 2 results, plan 1..3|not ok guest-a: guest # exit 125|ok trixie: lintian|not ok trixie # exit 3|ok kunit: suite: case|ok interop a nfs4.2|# RETRY interop a: the client guest on Debian's kernel crashed|not ok none: results # no KTAP results: $tmp/missing.ktap" \
	"$(flat "$f")"
expect "... the run's own plan counts its top-level results" 5 "$(sed -n 's/^1\.\.//p' "$f")"

# retry_spoiled: a fake run that writes DIR and fails until its attempt
# GOOD, and a fake TROUBLE that blames Debian's kernel when TROUBLE_OK
fake_run() {
	mkdir -p "$dir" && echo "$RETRY_ATTEMPT" >"$dir/attempt"
	[ "$RETRY_ATTEMPT" -ge "$good" ]
}
fake_trouble() { [ -n "$trouble_ok" ] && echo "stock guest double fault ($1)"; }
# spoiled NAME GOOD TROUBLE_OK BUDGET: retry_spoiled's exit status, the
# attempts it kept, its RETRY lines and the budget left, on one line
spoiled() {
	local rc left
	dir=$tmp/retry-$1 good=$2 trouble_ok=$3
	echo "$4" >"$tmp/budget-$1"
	DEBIAN_BUDGET_FILE=$tmp/budget-$1 RETRY_LOG=$tmp/retry-$1.retry \
		retry_spoiled "$dir" fake_trouble "cell $1" fake_run 2>/dev/null
	rc=$?
	left=$(cat "$tmp/budget-$1")
	echo "exit $rc kept $(cd "$tmp" && echo retry-"$1".attempt* | sed "s/retry-$1.//g")" \
		"lines $(cat "$tmp/retry-$1.retry" 2>/dev/null | grep -c "^# RETRY cell $1: stock guest double fault ($dir); attempt")" \
		"last $(cat "$dir/attempt") budget $left"
}
expect "retry_spoiled: two spoiled attempts, then a good one" \
	"exit 0 kept attempt1 attempt2 lines 2 last 3 budget 1" "$(spoiled twice 3 y 3)"
expect "retry_spoiled: a failure that is not Debian's is not retried" \
	"exit 1 kept attempt* lines 0 last 1 budget 3" "$(spoiled ours 9 "" 3)"
expect "retry_spoiled: at most DEBIAN_RETRIES retries per run" \
	"exit 1 kept attempt1 attempt2 lines 2 last 3 budget 1" "$(spoiled capped 9 y 3)"
expect "retry_spoiled: no retry once the run's budget is spent" \
	"exit 1 kept attempt1 lines 1 last 2 budget 0" "$(spoiled budget 9 y 1)"
# boot_trouble_of: a guest of Debian's kernel that crashed before any
# result with no module of ours loaded is spoiled; ours, or with our
# rpcrdma.ko in the crash's module list, or after a result, is not
boot_guest() {
	mkdir -p "$tmp/boot-$1/g"
	printf '[    0.8] BUG: unable to handle page fault\n%s\n' "$2" >"$tmp/boot-$1/g/console.log"
	printf '%s' "$3" >"$tmp/boot-$1/g/tests.ktap"
	boot_trouble_of "$4" "$tmp/boot-$1/g" >/dev/null && echo spoiled || echo ours
}
expect "boot_trouble_of: Debian's kernel at boot; ours; our module loaded; after a result" \
	"spoiled ours ours ours" \
	"$(boot_guest a "" "" dkms) $(boot_guest b "" "" ours) $(boot_guest c "Modules linked in: rpcrdma" "" trixie) $(boot_guest d "" "ok 1 x" dkms)"
# a guest that reached its time limit (guest.sh's hang_dump: the file
# time-limit, and the panic of the NMI it sent on the console) did not
# crash: no retry, and guest_trouble says so
mkdir -p "$tmp/hang/client"
printf '[  900.1] Kernel panic - not syncing: NMI: Not continuing\n' >"$tmp/hang/client/console.log"
: >"$tmp/hang/client/time-limit"
echo 124 >"$tmp/hang/client.exit"
expect "guest_trouble: a guest at its time limit did not crash, whatever its console says" \
	"reached its time limit|ours" \
	"$(guest_trouble "$tmp/hang" client)|$(boot_trouble_of dkms "$tmp/hang/client" >/dev/null && echo spoiled || echo ours)"

# the one crash detector (common.sh DMESG_BAD) knows each sanitizer's
# report, and none of their boot lines
bad_of() { grep -c -E "$DMESG_BAD" <<<"$1"; }
for line in \
	"BUG: KASAN: slab-out-of-bounds in rpcrdma_cm_private_parse+0x1c/0x80" \
	"UBSAN: array-index-out-of-bounds in net/sunrpc/xprtrdma/verbs.c:123:4" \
	"WARNING: possible circular locking dependency detected" \
	"BUG: KCSAN: data-race in rpcrdma_reply_handler / xprt_rdma_close"; do
	expect "DMESG_BAD: a report: ${line%% in *}" 1 "$(bad_of "$line")"
done
for line in "kcsan: enabled early" "kcsan: selftest: 3/3 tests passed" \
	"kmemleak: Kernel memory leak detector initialized (mem pool available: 65536)"; do
	expect "DMESG_BAD: not a report: $line" 0 "$(bad_of "$line")"
done

# check_dmesg reads the whole log that init.sh's follower kept, not
# the ring buffer alone: a WARNING that 8 exercisers' drop_caches lines
# pushed out of the ring buffer (or dmesg -C cleared) still fails it,
# and a KCSAN race seen only there is still named
printf '%s\n' '[    0.000000] Linux version 7.3.4' '[   45.900000] BUG: KCSAN: data-race in rxe_receiver / skb_queue_tail' \
	'[   46.000000] WARNING: CPU: 1 PID: 9 at net/sunrpc/xprtrdma/verbs.c:1' >"$tmp/kmsg.log"
follow_fixture() {
	fixture "$tmp/follow-$1.ktap" "follow-$1" "KMSG_LOG=$2
dmesg() { printf '%s\\n' '[  463.574947] exerciser (755): drop_caches: 3'; }
kernel_log >$tmp/follow-$1.log
ktap_begin follow; check_dmesg dmesg-clean; ktap_finished" >/dev/null
	flat "$tmp/follow-$1.ktap"
}
expect "check_dmesg: a WARNING gone from the ring buffer but in the follower's log fails" \
	"not ok follow: dmesg-clean # [   46.000000] WARNING: CPU: 1 PID: 9 at net/sunrpc/xprtrdma/verbs.c:1" \
	"$(follow_fixture gone "$tmp/kmsg.log")"
expect "kernel_log: the follower's lines, then the ring buffer's it does not have" \
	"4 [    0.000000] Linux version 7.3.4|[  463.574947] exerciser (755): drop_caches: 3" \
	"$(echo "$(wc -l <"$tmp/follow-gone.log") $(sed -n '1p;$p' "$tmp/follow-gone.log" | paste -sd'|')")"
expect "check_dmesg: without a follower, the ring buffer" "ok follow: dmesg-clean" \
	"$(follow_fixture none "$tmp/no-such-kmsg.log")"

# check_dmesg on a KCSAN kernel: a report whose race the list of
# upstream races names is logged, any other fails
kcsan_fixture() {
	fixture "$tmp/kcsan-$1.ktap" "kcsan-$1" "dmesg() { printf '%s\\n' \"kcsan: enabled early\" $2; }
KCSAN_KNOWN=$tmp/kcsan-known.txt
ktap_begin kcsan; check_dmesg dmesg-clean; ktap_finished" >/dev/null
	flat "$tmp/kcsan-$1.ktap"
}
printf 'desc_read/prb_reserve # upstream: printk\nsvc_process_common # upstream: rpccnt\n' >"$tmp/kcsan-known.txt"
expect "check_dmesg: known KCSAN races pass" "ok kcsan: dmesg-clean" \
	"$(kcsan_fixture known "'BUG: KCSAN: data-race in desc_read / prb_reserve' 'BUG: KCSAN: data-race in svc_process_common+0x6ca/0xc10'")"
expect "check_dmesg: an unlisted KCSAN race fails" \
	"not ok kcsan: dmesg-clean # KCSAN data races that $tmp/kcsan-known.txt does not list: rpcrdma_reply_handler/xprt_rdma_close" \
	"$(kcsan_fixture new "'BUG: KCSAN: data-race in desc_read / prb_reserve' 'BUG: KCSAN: data-race in rpcrdma_reply_handler / xprt_rdma_close'")"
expect "check_dmesg: a WARNING beside known races fails" \
	"not ok kcsan: dmesg-clean # WARNING: CPU: 1 PID: 9 at net/sunrpc/xprtrdma/verbs.c:1" \
	"$(kcsan_fixture warn "'BUG: KCSAN: data-race in svc_process_common+0x6ca/0xc10' 'WARNING: CPU: 1 PID: 9 at net/sunrpc/xprtrdma/verbs.c:1'")"

# check.sh's own accounting of what ktap.py reads
imported() {
	local out
	out=$(RFC8797_CHECK_RUN=$tmp/run-$2 KTAP_IMPORT=$1 "$RFC_HARNESS/check.sh" import 2>/dev/null)
	echo "exit $? $(echo "$out" | grep -E 'skipped|passed' | paste -sd' ')"
}
f=$tmp/skips.ktap
fixture "$f" skips 'ktap_begin skips; skip a "no device"; skip b "no device"; ktap_finished' >/dev/null
expect "check.sh: skips only are no pass" "exit 1 2 skipped (not counted as passed) 0 passed, 0 failed" \
	"$(imported "$f" skips)"
f=$tmp/mixed.ktap
fixture "$f" mixed 'ktap_begin mixed; pass a; skip b "no device"; ktap_finished' >/dev/null
expect "check.sh: a pass and a skip" "exit 0 1 skipped (not counted as passed) 1 passed, 0 failed" \
	"$(imported "$f" mixed)"
f=$tmp/xfail.ktap
fixture "$f" xfail 'ktap_begin xfail; pass a; ktap_test_xfail b "listed: NFS semantics"; ktap_finished' >/dev/null
expect "ktap.py keeps an expected failure's directive" \
	"ok xfail: a|ok xfail: b # XFAIL listed: NFS semantics" "$(flat "$f")"
expect "check.sh: an expected failure is neither a pass nor a failure" \
	"exit 0 1 failed as their lists of expected failures say (not counted as passed) 1 passed, 0 failed" \
	"$(imported "$f" xfail)"
f=$tmp/xfails.ktap
fixture "$f" xfails 'ktap_begin xfails; ktap_test_xfail b "listed"; ktap_finished' >/dev/null
expect "check.sh: expected failures only are no pass" \
	"exit 1 1 failed as their lists of expected failures say (not counted as passed) 0 passed, 0 failed" \
	"$(imported "$f" xfails)"
# the rule of a list of known failures (nfstest's expected lists,
# fstests' expunge lists), in one helper that both suites use
printf 'generic/001 # NFS semantics: no such thing\n# generic/002 # a comment\nblk/t2 #reason two\n' >"$tmp/known.txt"
expect "ktap_list_reason: a listed key, a commented one, an absent one" \
	"NFS semantics: no such thing||reason two||" \
	"$(for k in generic/001 generic/002 blk/t2 generic/003; do ktap_list_reason "$tmp/known.txt" "$k"; echo "|"; done | paste -sd'\0')"
# fstests' record (fstests.sh merge): a test's first line, or its first
# that is not a hang, which then keeps the hang as its note, once
printf 'generic/001 pass 10\ngeneric/615 hang 1800 no result after 1800 s\ngeneric/003 hang 1800 no result after 1800 s\n' >"$tmp/rec1"
printf 'generic/615 pass 900\ngeneric/001 fail 3 broke\ngeneric/003 hang 0 the guest ended in it\n' >"$tmp/rec2"
want='generic/001 pass 10|generic/615 pass 900 (after a hang: no result after 1800 s)|generic/003 hang 1800 no result after 1800 s'
expect "fstests merge: first result kept, a hang replaced by a later result and noted" "$want" \
	"$("$RFC_HARNESS/fstests.sh" merge "$tmp/rec1" "$tmp/rec2" | paste -sd'|')"
"$RFC_HARNESS/fstests.sh" merge "$tmp/rec1" "$tmp/rec2" >"$tmp/ledger"
expect "fstests merge: the ledger read back, before or after the guests', gives the same record" "$want|$want" \
	"$("$RFC_HARNESS/fstests.sh" merge "$tmp/rec1" "$tmp/ledger" | paste -sd'|')|$(
		"$RFC_HARNESS/fstests.sh" merge "$tmp/ledger" "$tmp/rec1" "$tmp/rec2" | paste -sd'|')"
f=$tmp/listed.ktap
fixture "$f" listed 'ktap_begin listed
ktap_test_listed a "" ""
ktap_test_listed b "" "stale reason" L
ktap_test_listed c "FAIL: x # y" "known"
ktap_test_listed d "FAIL: z" ""
ktap_test_listed e "" "upstream, flaky: now and then" L
ktap_test_listed f "FAIL: w" "upstream, flaky: now and then" L
ktap_test_listed g "" "upstream: flaky named later is no flag" L
ktap_test_listed h "" "ours, flaky: never a category of a list" L
ktap_finished' >/dev/null
expect "ktap_test_listed: pass, stale line, listed failure, new failure, flaky pass and failure" \
	"ok listed: a|not ok listed: b # passes, but L lists it: stale reason|ok listed: c # XFAIL known (FAIL: x  y)|not ok listed: d # FAIL: z|ok listed: e|ok listed: f # XFAIL upstream, flaky: now and then (FAIL: w)|not ok listed: g # passes, but L lists it: upstream: flaky named later is no flag|not ok listed: h # passes, but L lists it: ours, flaky: never a category of a list" \
	"$(flat "$f")"
expect "check.sh: a flaky pass counts as passed, and says so" "2 passed, 4 failed|1" \
	"$(imported "$f" listed | grep -o '[0-9]* passed, [0-9]* failed')|$(grep -c '^ *# e: listed as flaky, passed this time$' "$f")"
f=$tmp/died.ktap
fixture "$f" died 'ktap_begin died; pass a; kill -9 $$' >/dev/null
expect "check.sh: a test that died is a failure" "exit 1 1 passed, 1 failed" \
	"$(imported "$f" died)"
expect "check.sh: a missing results file is a failure" "exit 1 0 passed, 1 failed" \
	"$(imported "$tmp/none.ktap" none)"

# make check builds a base's test kernel only when check.sh --needs-kernel
# says that base's stages need it
# (MAKE_CHECK_STAGES=$3 when given, else the bases' own)
needs() {
	local e=()
	[ -z "${3:-}" ] || e=(MAKE_CHECK_STAGES="$3")
	env -u MAKE_CHECK_STAGES "${e[@]}" RFC8797_BASE="$1" RFC8797_BASE_RESOLVED="" CHECK_BASES="$2" \
		"$RFC_HARNESS/check.sh" --needs-kernel "${@:4}" >/dev/null 2>&1
	echo $?
}
expect "check.sh --needs-kernel: mainline beside 6.12" 0 "$(needs mainline "mainline 6.12")"
expect "check.sh --needs-kernel: 6.12 beside mainline, dkms alone" 1 "$(needs 6.12 "mainline 6.12")"
expect "check.sh --needs-kernel: 6.12 beside mainline, with sparse" 0 \
	"$(needs 6.12 "mainline 6.12" "dkms sparse")"
expect "check.sh --needs-kernel: 6.12 alone, every stage" 0 "$(needs 6.12 6.12)"
expect "check.sh --needs-kernel: stages named, none boots ours" 1 \
	"$(needs 6.12 6.12 dkms dkms trixie fuzz)"
expect "check.sh --needs-kernel: 6.12's fstests and nfstest boot Debian's 6.12" 1 \
	"$(needs 6.12 "mainline 6.12" "dkms fstests nfstest")"
expect "check.sh --needs-kernel: make check-long builds mainline's kernel (scale)" 0 \
	"$(CHECK_LONG=1 needs mainline "mainline 6.12")"
expect "check.sh --needs-kernel: make check-long builds no 6.12 kernel" 1 \
	"$(CHECK_LONG=1 needs 6.12 "mainline 6.12")"
expect "check.sh --needs-kernel: mainline's nfstest boots ours" 0 \
	"$(needs mainline mainline "" nfstest)"
expect "check.sh --needs-kernel: mainline's fstests boots ours" 0 \
	"$(needs mainline mainline "" fstests)"

# A base is one file of data/bases/: a throwaway third one (mainline's package
# under another name, in make check after the others, kunit alone there)
# in a copy of the folder (RFC8797_BASES_DIR) is a base everywhere
mkdir "$tmp/bases"
cp "$BASES_DIR"/* "$tmp/bases/"
sed -e 's/^MAKE_CHECK=.*/MAKE_CHECK=9/' -e 's/^MAKE_CHECK_STAGES=.*/MAKE_CHECK_STAGES=kunit/' \
	"$BASES_DIR/mainline" >"$tmp/bases/third"
grep -v '^FSTESTS_KERNEL=' "$tmp/bases/third" >"$tmp/bases/lacking"
sed -i 's/^MAKE_CHECK=.*/MAKE_CHECK=/' "$tmp/bases/lacking"
# shellcheck disable=SC2016	# $2 is a command for the child shell
third() { RFC8797_BASES_DIR=$tmp/bases RFC8797_BASE=$1 bash -c ". $RFC_HARNESS/lib.sh; $2" 2>&1; }
expect "bases: a third base joins make check's default, in its place" "mainline 6.12 third" \
	"$(third mainline 'base_names check | paste -sd" "')"
expect "bases: the third base's series, cache, kernel and stock peer" \
	"$RFC_TOP/patches/mainline $CACHE_ROOT/third $CACHE_ROOT/third/build/main/arch/x86/boot/bzImage 6.12" \
	"$(third third 'harness_env && kernel_info ours-third && echo $PATCHES $CACHE $K_IMAGE $STOCK_BASE')"
plan() {
	env -u MAKE_CHECK_STAGES RFC8797_BASES_DIR="$tmp/bases" RFC8797_BASE="$1" RFC8797_BASE_RESOLVED="" \
		CHECK_BASES="$2" "${@:3}" "$RFC_HARNESS/check.sh" --plan 2>&1 | paste -sd'|'
}
expect "check.sh --plan: make check's stages of each base, from mainline's run" \
	"mainline: $(base_value mainline MAKE_CHECK_STAGES)|6.12: dkms|third: kunit" \
	"$(plan mainline "mainline 6.12 third")"
expect "check.sh --plan: make check leaves out each base's long stages" "" \
	"$(for b in mainline 6.12; do for s in $(base_value $b LONG_CHECK_STAGES); do
		[ "$b/$s" = 6.12/dkms ] || [[ " $(base_value $b MAKE_CHECK_STAGES) " != *" $s "* ]] ||
			echo "$b/$s"; done; done)"
expect "check.sh --plan: make check-long, each base's long stages" \
	"mainline: scale trixie|6.12: dkms fstests nfstest" \
	"$(plan mainline "mainline 6.12" env CHECK_LONG=1)"
expect "check.sh --plan: make check-long on one base" \
	"6.12: dkms fstests nfstest" "$(plan 6.12 6.12 env CHECK_LONG=1)"
expect "check.sh --plan: MAKE_CHECK_STAGES in the environment, for every base" \
	"mainline: sparse|6.12: sparse" "$(plan mainline "mainline 6.12" env MAKE_CHECK_STAGES=sparse)"
expect "check.sh --plan: one base runs all its stages" \
	"6.12: $(base_value 6.12 CHECK_STAGES)" "$(plan 6.12 6.12)"
expect "bases: make check over three bases builds the third one's kernel for kunit" 0 \
	"$(RFC8797_BASES_DIR=$tmp/bases needs third "mainline 6.12 third")"
expect "bases: a file without a key is refused, by name" \
	"error: $tmp/bases/lacking has no FSTESTS_KERNEL" "$(third lacking harness_env)"
expect "bases: a base with no file is refused" \
	"error: RFC8797_BASE=none: no such base; bases: 6.12 lacking mainline third " "$(third none harness_env)"
cells() { RFC8797_BASES_DIR=$tmp/bases RFC8797_BASE=$1 RFC8797_BASE_RESOLVED="" \
	"$RFC_HARNESS/interop-matrix.sh" --quick --list 2>&1 | paste -sd'|'; }
expect "bases: make check's interop cells on mainline, its own last" \
	"ours-client/stock-server|stock-client-w1500-r3000/ours-server|ours-6.12-client/ours-server" \
	"$(cells mainline)"
expect "bases: make check's interop cells on 6.12, none of its own" \
	"ours-client/stock-server|stock-client-w1500-r3000/ours-server" "$(cells 6.12)"
# Every kernel of data/kernels/ is well formed, and what the scripts ask of
# them holds
kernels_ok() {
	local k bad=""
	for k in "$KERNELS_DIR"/*; do
		k=${k##*/}
		kernel_info "$k" || { bad+=" $k:unreadable"; continue; }
		[[ "$K_ROOT" =~ ^(9p|initrd|debootstrap)$ && "$K_RPCRDMA" =~ ^(ours|stock)$ &&
			"$K_DEBIAN" =~ ^(yes|no)$ && "$K_FETCH" =~ ^(build|stock.sh|dkms|trixie.sh)$ ]] ||
			bad+=" $k:$K_ROOT/$K_RPCRDMA/$K_DEBIAN/$K_FETCH"
		[ "$K_ROOT" = debootstrap ] || [ -n "$K_IMAGE" ] || bad+=" $k:no-image"
		[ "$K_FETCH" != build ] || [ -n "$K_MAKE" ] || bad+=" $k:no-make"
	done
	echo "${bad:-ok}"
}
expect "kernels: every file has a root, rpcrdma, debian and fetch of the known values" ok "$(kernels_ok)"
expect "kernels: upstream's rpcrdma runs on base, stock and stock-7.3; Debian's kernels" \
	"base stock stock-7.3|dkms stock stock-7.3 trixie trixie-7.3" \
	"$(for k in "$KERNELS_DIR"/*; do kernel_is "${k##*/}" rpcrdma=stock && printf '%s ' "${k##*/}"; done | sed 's/ $//')|$(
		for k in "$KERNELS_DIR"/*; do kernel_is "${k##*/}" debian=yes && printf '%s ' "${k##*/}"; done | sed 's/ $//')"
expect "kernels: dkms boots stock's image, with its own modules" \
	"$(kernel_info stock && echo "$K_IMAGE $K_INITRD")|$CACHE_ROOT/6.12/dkms/modules-$STOCK_KREL/lib/modules/$STOCK_KREL" \
	"$(kernel_info dkms && echo "$K_IMAGE $K_INITRD|$K_MODULES")"
expect "kernels: an image path boots as ours" "yes no" \
	"$(kernel_is /x/bzImage rpcrdma=ours && echo yes) $(kernel_is /x/bzImage debian=yes || echo no)"
# make help is shell echo lines: one unbalanced quote breaks it all
expect "make help runs to its end" 0 \
	"$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$RFC_TOP" help >/dev/null 2>&1; echo $?)"
expect "bases: make check's default CHECK_BASES is the files'" "mainline 6.12 third" \
	"$(env -u RFC8797_BASE -u CHECK_BASES -u MAKEFLAGS -u MFLAGS -u MAKELEVEL RFC8797_BASES_DIR="$tmp/bases" make -s -C "$RFC_TOP" -n check | sed -n 's/^for b in \(.*\); do.*/\1/p')"
# make check-debug with stub scripts: DEBUG_KERNELS picks the kernels
# built and run, and a red debug half does not keep the KCSAN one from
# running but does fail the target
stub=$tmp/debug-stub
mkdir -p "$stub"
for f in deps tree build check; do
	printf '#!/bin/bash\necho "%s ${RFC8797_KERNEL:-} $*" >>"%s/log"\n%s\n' \
		"$f" "$stub" '[ "$0 ${RFC8797_KERNEL:-}" != "${0%/*}/check.sh debug" ] || exit 1' \
		>"$stub/$f.sh"
	chmod +x "$stub/$f.sh"
done
debug_make() {
	rm -f "$stub/log"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEBUG_KERNELS -u DEBUG_STAGES -u KCSAN_STAGES \
		-u DEBUG_E2E_TESTS -u KCSAN_E2E_TESTS -u RFC8797_KERNEL \
		make -s -C "$RFC_TOP" H="$stub" check-debug "$@" >/dev/null 2>&1
	echo "$? $(sed "s|$stub/||g" "$stub/log" | tr -s ' ' | paste -sd'|')"
}
expect "check-debug: DEBUG_KERNELS=kcsan builds and runs the KCSAN kernel alone" \
	"0 deps |tree prepare|build --variant kcsan data/kcsan.config|check kcsan e2e parallel" \
	"$(debug_make DEBUG_KERNELS=kcsan)"
expect "check-debug: a red debug half fails the target after the KCSAN half ran" \
	"2 deps |tree prepare|build --variant debug data/debug.config|build --variant kcsan data/kcsan.config|check debug e2e|check kcsan parallel" \
	"$(debug_make DEBUG_STAGES=e2e KCSAN_STAGES=parallel)"
expect "check-debug: a kernel it does not know, or none, builds and runs nothing" \
	"2 deps |tree prepare|2 deps |tree prepare|2 deps |tree prepare" \
	"$(debug_make DEBUG_KERNELS="debug kasan")|$(debug_make DEBUG_KERNELS=)|$(debug_make DEBUG_KERNELS=kcsan KCSAN_STAGES=)"
# make check-long with a stub check.sh that logs CHECK_LONG: exported to
# every check.sh call of check-long, to none of make check's
long_stub=$tmp/long-stub
mkdir -p "$long_stub"
for f in deps tree build check; do
	printf '#!/bin/bash\necho "%s ${CHECK_LONG:-no} $*" >>"%s/log"\n' "$f" "$long_stub" \
		>"$long_stub/$f.sh"
	chmod +x "$long_stub/$f.sh"
done
long_make() {
	rm -f "$long_stub/log"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CHECK_LONG \
		make -s -C "$RFC_TOP" H="$long_stub" CHECK_BASES=mainline "$1" >/dev/null 2>&1
	grep '^check ' "$long_stub/log" | tr -s ' ' | paste -sd'|'
}
expect "check-long: CHECK_LONG=1 reaches check.sh, make check's does not get it" \
	"check 1 --needs-kernel|check 1 |check no --needs-kernel|check no " \
	"$(long_make check-long)|$(long_make check)"
ktap_finished
