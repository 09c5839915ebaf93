#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Parallel file exercisers (guest/exerciser, fsx-style): eight processes,
# each on a file of its own, write, read, truncate, mmap, punch holes,
# allocate and copy within the file and flush their caches after every
# operation; one operation in two they close the file, drop caches (as
# xfstests' fsx -c does) and open it again.  Every read is checked
# against a model of the file.  NFSv4.2 with buffered I/O is the case
# that hung 7.3-rc clients: an OPEN, holding its session slot, waited in
# __wait_on_freeing_inode() for an inode whose eviction waited for a
# DELEGRETURN that needed that slot, once nfsd's slot shrinker (run by
# drop_caches) had lowered the session to one slot.
#
#   parallel-open.sh [--proto rdma|tcp] [--ops N] [--limit SEC] [--args "ARGS"]
#                    [VERSION...]
#
#   --ops    operations of each process in the NFSv4.2 buffered case
#            (default 2000), a quarter of them in the others
#   --limit  time limit of each case (default 600 s)
#   --args   the exercisers' options instead of the default ones (each
#            case adds -n and, for VERSION-direct, -d)
#
# Default: over RDMA ($TRANSPORT), NFSv4.2 buffered and O_DIRECT and
# NFSv3 buffered.  A task blocked for HUNG_SEC seconds is a hang: the
# hung-task detector reports every blocked task (it does not panic
# here), the stacks of all blocked tasks are dumped (sysrq w), the case
# fails and the test stops, since a hung mount cannot be unmounted.
. "$(dirname "$0")/../lib.sh"
guest_settings	# TRANSPORT or RFC_CACHE before ktap_begin

proto=rdma ops=2000 LIMIT=600 versions=() ex_args="-p 8 -f -D -c 2 -l 262144 -o 32768"
while [ $# -gt 0 ]; do
	case "$1" in
	--proto) proto=$2; shift 2 ;;
	--ops) ops=$2; shift 2 ;;
	--limit) LIMIT=$2; shift 2 ;;
	--args) ex_args=$2; shift 2 ;;
	*) versions+=("$1"); shift ;;
	esac
done
[ ${#versions[@]} -gt 0 ] || versions=(4.2 4.2-direct 3)
EXERCISER=${RFC_CACHE:-/nonexistent}/exerciser/exerciser
HUNG_SEC=60

# the transport, then a mount, the run and the umount per
# case, dmesg
ktap_begin "parallel-open-$proto" $((2 + ${#versions[@]} * 3))

setup_nfs_rdma
[ -x "$EXERCISER" ] || { fail exerciser "$EXERCISER is not built (check.sh builds it)"; exit 1; }
# every blocked task reported, none panics the guest: the dump below
# needs the guest alive
sysctl -q kernel.hung_task_panic=0 kernel.hung_task_warnings=-1 \
	kernel.hung_task_timeout_secs=$HUNG_SEC

# server_slots: each NFSv4.1+ session's slot table on the server (its
# size and its target, which nfsd's slot shrinker lowers under memory
# pressure and drop_caches)
server_slots() {
	local f
	for f in /proc/fs/nfsd/clients/*/info; do
		[ -f "$f" ] && log "server session slots: $(grep -iE 'session|slot' "$f" | tr '\n' ' ')"
	done
}

# note_target: the lowest target slot count of the server's sessions
# seen so far, in MIN_TARGET (the deadlock needs it low)
note_target() {
	local t
	for t in $(sed -n 's/.*session target slots: *//p' /proc/fs/nfsd/clients/*/info 2>/dev/null); do
		[ -n "$MIN_TARGET" ] && [ "$MIN_TARGET" -le "$t" ] || MIN_TARGET=$t
	done
}

# hung: the hung-task detector reported a blocked task
hung() { dmesg | grep -q "blocked for more than"; }
# ended_or_hung PID: PID ended, or something hung (and the server's
# target slot count noted on the way)
ended_or_hung() {
	note_target
	pid_ended "$1" || hung
}

# ex_output: the exercisers' output without their progress lines, but
# for the last one of each process that did not finish (how far it got
# when it was stopped)
ex_output() {
	awk '/^exerciser [0-9]+: at [0-9]+ of / { last[$2] = $0; next }
		/^exerciser [0-9]+: [0-9]+ operations/ { done[$2] = 1 }
		{ print }
		END { for (p in last) if (!(p in done)) print last[p] }' /tmp/ex.out
}

# exercise NAME ARGS...: the exercisers with ARGS, at most LIMIT s; a hang
# or the limit dumps every blocked task and ends the test
exercise() {
	local name=$1 pid rc
	shift
	MIN_TARGET=""
	"$EXERCISER" "$@" >/tmp/ex.out 2>&1 &
	pid=$!
	SLOWWAIT_INTERVAL=2 slowwait "$LIMIT" ended_or_hung "$pid"
	if ! pid_ended "$pid"; then
		echo w >/proc/sysrq-trigger
		sleep 2
		server_slots
		log "lowest target slot count of the server's sessions during the run: ${MIN_TARGET:-not reported}"
		log "blocked tasks dumped to the console (sysrq w)"
		if hung; then
			fail "$name" "hung: a task blocked for ${HUNG_SEC} s ($(dmesg | grep -m 1 -o 'task .* blocked for more than [0-9]* seconds'))"
		else
			fail "$name" "not finished in $LIMIT s"
		fi
		ex_output
		ktap_finished	# exits: a hung mount cannot be unmounted
	fi
	wait "$pid"
	rc=$?
	ex_output
	server_slots
	log "lowest target slot count of the server's sessions during the run: ${MIN_TARGET:-not reported (NFSv3, or a server without the slot shrinker)}"
	if [ "$rc" = 0 ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(grep -v -E '^exerciser [0-9]+: (at )?[0-9]+ (of [0-9]+ )?operations' /tmp/ex.out | head -c 300)"
	fi
}

mnt=/mnt/px
for c in "${versions[@]}"; do
	v=${c%-direct}
	# the case that hung gets N operations; O_DIRECT and NFSv3, there
	# for their data checks, a quarter of them
	n=$ops
	[ "$c" = 4.2 ] || n=$(((ops + 3) / 4))
	read -r -a args <<<"$ex_args -n $n"
	[ "$c" = "$v" ] || args+=(-d)
	# RFC8797_INJECT=parallel-corrupt: a file changed behind a model
	[ "$INJECT" != parallel-corrupt ] || args+=(-X)
	t=nfs$c-$proto
	NFS_PROTO=$proto mount_nfs "$v" $mnt || { fail "$t-mount" "mount failed"; continue; }
	pass "$t-mount"
	mkdir -p $mnt/px
	exercise "$t-exercisers" "${args[@]}" $mnt/px
	rm -rf $mnt/px
	result_of "$t-umount" umount_nfs $mnt
done
check_dmesg dmesg-clean
ktap_finished
