#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest fstests over NFS/RDMA (../fstests.sh): one guest is the NFS
# server and the client, over the RDMA device of lib-setup.sh's
# setup_rdma.  nfsd exports two tmpfs file systems, /export/test and
# /export/scratch; fstests mounts them with proto=rdma as its TEST and
# SCRATCH devices and runs the listed tests, one "check" for every 25
# (check's own start costs some 30 s under TCG).
#
#   fstests-client.sh --fstests DIR --vers 3|4.1|4.2 --list FILE
#                     [--done N] [--total N] [--budget SEC] [--per-test SEC]
#
# DIR is a built fstests tree; FILE names one test per line (generic/001).
# When check prints a test's line, the test has ended: a line "TEST RESULT
# SECONDS REASON" goes to /results/results.txt (RESULT: pass, fail,
# notrun or hang; REASON is fstests' own: its "not run" reason, or its
# verdict for a failure; SECONDS since the previous test ended, check's
# start included) and a progress line "fstests-progress: [N/TOTAL] TEST
# RESULT SECONDS s" to the console (N counts from --done).  fstests'
# results folder is /results/fstests, check's output /results/check.log.
# When no test ends for --per-test seconds (default 1800), the test that
# check announced last in the kernel log ("run fstests TEST at") is
# recorded as a hang (/results/running: the tests check started), the
# blocked tasks' stacks go to the console (sysrq w), and the script is
# killed: the mounts may be stuck, and the host boots a fresh guest for
# the rest.  No check starts after --budget seconds (default: no limit).
# RFC8797_INJECT=fstests-hang stops nfsd in the first test, to see it.
. "$(dirname "$0")/lib.sh"

FSTESTS="" VERS=4.2 LIST="" DONE=0 TOTAL=0 BUDGET=0 PER_TEST=1800 CHUNK=25
while [ $# -gt 0 ]; do
	case "$1" in
	--fstests) FSTESTS=$2; shift 2 ;;
	--vers) VERS=$2; shift 2 ;;
	--list) LIST=$2; shift 2 ;;
	--done) DONE=$2; shift 2 ;;
	--total) TOTAL=$2; shift 2 ;;
	--budget) BUDGET=$2; shift 2 ;;
	--per-test) PER_TEST=$2; shift 2 ;;
	*) echo "fstests-client.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

ktap_begin fstests-setup
[ -x "$FSTESTS/check" ] || { fail fstests-tree "no fstests tree at '$FSTESTS'"; exit 1; }
[ -r "$LIST" ] || { fail fstests-list "no test list at '$LIST'"; exit 1; }
setup_nfs_rdma fstests-
# two file systems of their own under the pseudo-root that start_nfsd
# exports: fstests "makes" SCRATCH by emptying it, and each must have
# its own free space
for fs in test scratch; do
	mkdir -p "$EXPORT/$fs" "/mnt/$fs"
	mount -t tmpfs -o size=1536M "fstests-$fs" "$EXPORT/$fs"
	chmod 1777 "$EXPORT/$fs"
done
cat >>/etc/exports <<EOF
$EXPORT/test *(rw,no_root_squash,insecure,no_subtree_check,fsid=1)
$EXPORT/scratch *(rw,no_root_squash,insecure,no_subtree_check,fsid=2)
EOF
exportfs -ra || { fail fstests-exports "exportfs failed"; exit 1; }
# NFSv3 locks need statd on both sides (one guest: one statd)
[ "$VERS" != 3 ] || rpc.statd 2>/dev/null || log "rpc.statd did not start"
# the users and groups fstests' tests switch to (README: "fsgqa")
for u in fsgqa fsgqa2 123456-fsgqa; do
	getent passwd "$u" >/dev/null || useradd -m -U "$u" 2>/dev/null ||
		log "useradd $u failed"
done
case "$VERS" in
3) tdev=$SERVER_ADDR:$EXPORT/test sdev=$SERVER_ADDR:$EXPORT/scratch ;;
*) tdev=$SERVER_ADDR:/test sdev=$SERVER_ADDR:/scratch ;;
esac
export FSTYP=nfs TEST_DEV=$tdev TEST_DIR=/mnt/test SCRATCH_DEV=$sdev SCRATCH_MNT=/mnt/scratch
export NFS_MOUNT_OPTIONS="-o vers=$VERS,proto=rdma,port=$RDMA_PORT"
export RESULT_BASE=/results/fstests
mkdir -p "$RESULT_BASE" /results/check
# shellcheck disable=SC2086	# "-o OPTIONS": two words, as fstests passes them
if timeout 60 mount -t nfs $NFS_MOUNT_OPTIONS "$TEST_DEV" "$TEST_DIR"; then
	log "TEST_DEV $TEST_DEV: $(grep " $TEST_DIR " /proc/mounts)"
	umount "$TEST_DIR"
	pass fstests-mount
else
	fail fstests-mount "mount $NFS_MOUNT_OPTIONS $TEST_DEV failed"
	exit 1
fi

# record TEST SECS LINE: TEST's result, from its line of check's output
# and the files check left in its results folder
record() {
	local t=$1 secs=$2 line=$3 res why=""
	if [ -f "$RESULT_BASE/$t.notrun" ]; then
		res=notrun why=$(head -n 1 "$RESULT_BASE/$t.notrun")
	elif [ -f "$RESULT_BASE/$t.out.bad" ] || [ -f "$RESULT_BASE/$t.dmesg" ] ||
		! [[ "$line" =~ [0-9]s$ ]]; then
		res=fail why=$(echo "${line#"$t"}" | sed 's/([^)]*)//g; s/^[ .0-9s]*//; s/  */ /g; s/ *$//')
		why=${why:-see fstests/$t.full}
	else
		res=pass
	fi
	echo "$t $res $secs${why:+ $why}" >>/results/results.txt
	n=$((n + 1))
	echo "fstests-progress: [$n/$TOTAL] $t $res $secs s${why:+ ($why)}"
}

# /results/running: the tests check started, from the line it writes to
# the kernel log before each ("run fstests TEST at"); the last is the
# one running now, for the watchdog and for the host when the guest
# never came back
dmesg -w | sed -un 's/.*run fstests \([^ ]*\) at .*/\1/p' >/results/running &
running() { tail -n 1 /results/running; }

# run_chunk TEST...: one "check" of these tests; each test's result is
# recorded when check prints its line.  A watchdog ends the guest when no
# line came for --per-test seconds: the test running then is recorded as
# a hang, the blocked tasks' stacks go to the console, and this script is
# killed (a test blocked on a hard mount cannot be, nor can the check
# that waits for it)
run_chunk() {
	local last=$SECONDS line t secs wd me=$$
	( while sleep 10; do
		[ $((SECONDS - $(cat /tmp/fstests-last))) -lt "$PER_TEST" ] && continue
		t=$(running)
		echo "$t hang $PER_TEST no result after $PER_TEST s" >>/results/results.txt
		# (this subshell's n is the chunk's start: count what is recorded,
		# the hang included)
		echo "fstests-progress: [$((DONE + $(wc -l </results/results.txt)))/$TOTAL] $t hang $PER_TEST s (no result after $PER_TEST s)"
		echo w >/proc/sysrq-trigger
		log "$t hung: ending this guest, the host boots a fresh one for the rest"
		kill -KILL "$me"
		exit
	done ) &
	wd=$!
	echo "$SECONDS" >/tmp/fstests-last
	while IFS= read -r line; do
		echo "$line" >>/results/check.log
		t=${line%% *}
		# a test's line: it has ended (fail lines are followed by
		# their diff, indented, which is in check.log)
		case " $* " in *" $t "*) ;; *) continue ;; esac
		secs=$((SECONDS - last))
		last=$SECONDS
		echo "$SECONDS" >/tmp/fstests-last
		record "$t" "$secs" "$line"
	done < <(./check "$@" 2>&1)
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
}

# RFC8797_INJECT=fstests-hang: nfsd stops once the first test has
# started, so that its I/O blocks on the hard mount: the watchdog must
# record a hang after 60 s
# shellcheck disable=SC2153	# INJECT: guest_settings' (lib.sh)
if [ "$INJECT" = fstests-hang ]; then
	PER_TEST=60
	( slowwait 600 test -s /results/running; sleep 5
	  log "stopping nfsd on purpose (RFC8797_INJECT=fstests-hang)"; rpc.nfsd 0 ) &
fi

n=$DONE
cd "$FSTESTS" || exit 1
mapfile -t todo < <(grep -v '^$' "$LIST")
for ((i = 0; i < ${#todo[@]}; i += CHUNK)); do
	if [ "$BUDGET" != 0 ] && [ "$SECONDS" -ge "$BUDGET" ]; then
		log "time budget of $BUDGET s spent: stopping before ${todo[i]}"
		break
	fi
	run_chunk "${todo[@]:i:CHUNK}"
done
# the setup block closes after the tests, which ran inside it
ktap_finished
