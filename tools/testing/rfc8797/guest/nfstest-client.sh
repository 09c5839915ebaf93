#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest nfstest run (make nfstest, check.sh's
# nfstest stage): Debian's nfstest (deps.sh installs the pinned package
# on the host, which the guests share) run in the client guest against
# the server guest (guest/interop-server.sh), its packet traces taken on
# this guest's NIC, the one linked to the server: in one guest, rxe
# loops a local peer's packets back without a netdev, so a trace there
# sees no RDMA traffic.  Leaves DONE in the export at the end.
#
#   nfstest-client.sh [--transport rxe|siw] [--expected FILE] [--large SIZE]
#                     RUN...
#   RUN = SCRIPT:VERSION:INLINE:TESTS
#     SCRIPT   nfstest_rdma, nfstest_posix, ... (/usr/bin/SCRIPT)
#     VERSION  3, 4.1 or 4.2
#     INLINE   default (the kernel's thresholds) or W/R, the client's
#              rdma_max_inline_write and rdma_max_inline_read for this run
#     TESTS    nfstest's --runtest list, "," between names (e.g.
#              basic,read,write)
#   e.g. nfstest-client.sh nfstest_rdma:4.2:default:all
# (nfstest 3.2's --runtest expands only the first of two groups, e.g.
# "basic,read,write": "Invalid test name: write")
# --large: nfstest_rdma's --large-filesize (default 1m: read04 and
# write04, 3 to 4 minutes each under TCG, where nfstest decodes their
# traces).  tcpdump's buffer is 32 MiB (--tbsize; nfstest's 192 MiB
# per tcpdump ran this 2 GiB guest out of memory), and nfstest starts it
# as "exec tcpdump": nfstest 3.2 run as root (no sudo) stops a command
# it started by killing the shell that runs it (Popen with shell=True,
# and dash forks), so every tcpdump ran on, its trace of one test took
# the next test's traffic (nfstest_rdma's write tests then counted the
# NFS over TCP of their own read-back), and they ran the guest out of
# memory.  rpcbind and rpc.statd run here for NFSv3 (nfstest mounts
# without nolock).  Every script is told --proto rdma: only nfstest_rdma
# mounts over RDMA by default.
#
# Results: one KTAP block per RUN, named SCRIPT-vVERSION-INLINE, with one
# result per nfstest test it ran (nfstest's "TEST: Running test 'NAME'"
# up to the next), "not ok" with nfstest's first FAIL line as the reason.
# A test that FILE (--expected) lists for this block (lines "BLOCK/NAME
# # reason", as fstests' expunge lists) fails as expected: "ok NAME #
# XFAIL reason"; listed and passed: "not ok" (the list is out of
# date).  nfstest's own output of each RUN goes to
# /results/nfstest/BLOCK.out, its log and the packet traces of a RUN that
# failed to /results/nfstest/BLOCK/.  A RUN still running after
# RUN_LIMIT seconds (1800; nfstest_alloc's alloc and dealloc, the longest
# measured, took 859) is killed: a hang is a failure ("timeout").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-counters.sh"
ktap_begin nfstest-client
RUN_LIMIT=1800
transport=rxe expected="" large=()
while [ $# -gt 0 ]; do
	case "$1" in
	--transport) transport=$2; shift 2 ;;
	--expected) expected=$2; shift 2 ;;
	--large) large=(--large-filesize "$2"); shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { fail nfstest-args "no RUN given"; exit 1; }
echo "client kernel: $(uname -r)"
nic=$(nic_up) || { fail nfstest-setup "no NIC"; exit 1; }
setup_rdma "$transport" "$nic" 192.0.2.2/24 || { fail nfstest-setup "rdma link add failed"; exit 1; }
# nfstest finds its own address by routing to a public one (no packet
# is sent): a default route through the server guest gives it this one
ip route add default via "$SERVER_ADDR" dev "$nic"
modprobe rpcrdma 2>/dev/null	# the client's sysctls come with it
mkdir -p /run/rpcbind /var/lib/nfs/statd/sm
rpcbind -w && rpc.statd || log "rpcbind or rpc.statd did not start: NFSv3 mounts will fail"
boot_inline=$(cat /proc/sys/sunrpc/rdma_max_inline_write)/$(cat /proc/sys/sunrpc/rdma_max_inline_read)
wait_server
mkdir -p /results/nfstest

# nfstest_blocks OUT BLOCK: OUT (nfstest's stdout) as one KTAP result
# per nfstest test, see above
nfstest_blocks() {
	local out=$1 block=$2 name="" first="" line
	while IFS= read -r line; do
		case "$line" in
		*"TEST: Running test '"*"'")
			[ -z "$name" ] || nfstest_result "$block" "$name" "$first"
			name=${line#*TEST: Running test \'} name=${name%\'} first="" ;;
		"    FAIL: "*)
			[ -n "$first" ] || first=${line#    FAIL: } ;;
		esac
	done < <(sed 's/\x1b\[[0-9;]*m//g' "$out")
	[ -z "$name" ] || nfstest_result "$block" "$name" "$first"
}

# nfstest_way OUT TEST OP THRESHOLD: the result "TEST OP 4096 in a Send"
# or "TEST OP 4096 through a chunk", as THRESHOLD (the client's for
# that direction) says it must go, from nfstest's own lines in OUT: for
# a READ its verdict on the reply ("no DDP (using SEND opcodes)" or
# "DDP"); for a WRITE which it found first, the call's RPC-over-RDMA
# header with a Read list or the NFS call itself in Sends (over NFSv3
# nfstest 3.2 names no procedure and gives no DDP verdict for a WRITE);
# nothing when the run left TEST out
nfstest_way() {
	local out=$1 t=$2 op=$3 want=chunk got how
	grep -q "TEST: Running test '$t'" "$out" || return 0
	[ "$4" -le 4096 ] || want=Send
	got=$(awk -v t="'$t'" -v op="$op" '
		/TEST: Running test / { cur = ($NF == t) }
		!cur { next }
		op == "READ" && /PASS: NFS READ reply should be sent with no DDP/ { print "Send"; exit }
		op == "READ" && /PASS: NFS READ reply should be sent with DDP/ { print "chunk"; exit }
		op == "WRITE" && /Found RPC-over-RDMA packet with .* read chunk list/ { print "chunk"; exit }
		op == "WRITE" && /Found NFS (WRITE)? *call/ { print "Send"; exit }' "$out")
	how="through a chunk"
	[ "$want" = chunk ] || how="in a Send"
	if [ "$got" = "$want" ]; then
		pass "$t $op 4096 $how"
	else
		fail "$t $op 4096 $how" "threshold $4: nfstest saw ${got:-no such I/O}"
	fi
}

# nfstest_result BLOCK NAME FIRST_FAIL: one result, against the list
nfstest_result() {
	ktap_test_listed "$2" "$3" "$(ktap_list_reason "${expected:-/dev/null}" "$1/$2")" "$expected"
}

for run in "$@"; do
	IFS=: read -r script vers inline tests <<<"$run"
	block=$script-v$vers-${inline/\//-}
	export_dir=/
	[ "$vers" != 3 ] || export_dir=$EXPORT
	ktap_subtest_begin "$block"
	if [ "$inline" != default ]; then
		client_set max_inline_write "${inline%/*}" && client_set max_inline_read "${inline#*/}" ||
			{ fail "$block-inline" "rdma_max_inline_write/read refused $inline"; ktap_subtest_end; continue; }
	fi
	read -r w </proc/sys/sunrpc/rdma_max_inline_write
	read -r r </proc/sys/sunrpc/rdma_max_inline_read
	log "$block: client inline thresholds write $w read $r"
	tmp=/tmp/nfstest/$block
	mkdir -p "$tmp"
	args=()
	[ "$script" != nfstest_rdma ] || args=("${large[@]}")
	start=$SECONDS
	timeout -k 10 "$RUN_LIMIT" "/usr/bin/$script" --server "$SERVER_ADDR" \
		--export "$export_dir" --nfsversion "$vers" --proto rdma --port "$RDMA_PORT" \
		--interface "$nic" --mtpoint /mnt/t --tmpdir "$tmp" --createlog \
		--tbsize 32k --tcpdump "exec /usr/bin/tcpdump" "${args[@]}" --runtest "$tests" \
		>"/results/nfstest/$block.out" 2>&1
	rc=$?
	log "$block: exit $rc after $((SECONDS - start)) s"
	n=$KTAP_TESTNUM
	nfstest_blocks "/results/nfstest/$block.out" "$block"
	if [ "$script" = nfstest_rdma ]; then
		nfstest_way "/results/nfstest/$block.out" write02 WRITE "$w"
		nfstest_way "/results/nfstest/$block.out" read02 READ "$r"
	fi
	case $rc in
	0 | 1) [ "$KTAP_TESTNUM" -gt "$n" ] ||
		fail "$block-run" "$script exit $rc and ran no test (see /results/nfstest/$block.out)" ;;
	124 | 137) fail "$block-run" "timeout: still running after $RUN_LIMIT s" ;;
	*) fail "$block-run" "$script exit $rc (see /results/nfstest/$block.out)" ;;
	esac
	[ "$rc" = 0 ] || cp -a "$tmp" "/results/nfstest/$block" 2>/dev/null
	mountpoint -q /mnt/t && umount_nfs /mnt/t
	ktap_subtest_end
	client_set max_inline_write "${boot_inline%/*}"
	client_set max_inline_read "${boot_inline#*/}"
done
mount_nfs 4.2 /mnt/done && { touch /mnt/done/DONE; umount_nfs /mnt/done; }
ktap_finished
