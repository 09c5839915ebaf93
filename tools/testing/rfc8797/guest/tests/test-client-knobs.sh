#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client knobs: the sysctls /proc/sys/sunrpc/rdma_max_inline_read,
# rdma_max_inline_write and rdma_remote_invalidation exist on every
# kernel (not only with CONFIG_SUNRPC_DEBUG), refuse out-of-range values
# and keep the old value; no module parameter duplicates them, and no
# sysctl turns the CM Private Data off.  With rdma_remote_invalidation=0
# the R bit is not offered.
#
# Peers before RFC 8797, played with fault injection (cm_omit): a
# client that sends no CM Private Data makes the server fall back to the
# RFC 8166 defaults, the client assumes them for itself (1 KiB both
# ways, no R) and NFS still works; against a server that sends none the
# client must see status absent and 1 KiB both ways.  The client's view
# is its transport's sysfs xprt_info; its xprtrdma_inline_thresh event
# must say, as sysfs does, whether it sent its message.
. "$(dirname "$0")/../lib.sh"

knobs=(max_inline_read max_inline_write remote_invalidation)
# values the two thresholds refuse and accept; values R refuses
th_bad=(0 1023 65537 262144 4294967296 -1 abc) th_good=(1024 65536 1500 4096)
r_bad=(2 -1 maybe)
vers=(3 4.2)
ncases=4	# run_case: default, no-remote-inv, (server-)no-private-data
# the defaults; two results per knob and the missing sysctl; the
# refusals and acceptances; the transport; three results per case and
# version; xprt_info's integers; dmesg
ktap_begin client-knobs $((1 + 2 * ${#knobs[@]} + 1 +
	2 * (${#th_bad[@]} + ${#th_good[@]}) + ${#r_bad[@]} + 1 +
	ncases * ${#vers[@]} * 3 + 2))

modprobe rpcrdma 2>/dev/null
# the shipped defaults, read before anything sets them: 8 KiB inline
# thresholds on the client and the server
got="$(cat /proc/sys/sunrpc/rdma_max_inline_read) $(cat /proc/sys/sunrpc/rdma_max_inline_write)"
got="$got $(cat /proc/sys/sunrpc/svc_rdma/max_req_size)"
[ "$got" = "8192 8192 8192" ] && pass default-thresholds ||
	fail default-thresholds "client read/write, server max_req_size: '$got', want 8192 each"
for k in "${knobs[@]}"; do
	[ -e /proc/sys/sunrpc/rdma_$k ] && pass "sysctl-$k-exists" ||
		fail "sysctl-$k-exists" "no /proc/sys/sunrpc/rdma_$k"
	[ ! -e /sys/module/rpcrdma/parameters/$k ] && pass "no-second-interface-$k" ||
		fail "no-second-interface-$k" "module parameter $k duplicates the sysctl"
done
[ ! -e /proc/sys/sunrpc/rdma_cm_private_data ] && pass no-cm-private-data-sysctl ||
	fail no-cm-private-data-sysctl "a sysctl turns the message off: a test hook in the ABI"
# refusals: the write fails and the value is unchanged
refuses() {	# refuses SETTING GOOD BAD...
	local k=$1 good=$2 bad f=/proc/sys/sunrpc/rdma_$1
	shift 2
	echo "$good" >"$f" || { fail "sysctl-$k-accepts-$good" "refused"; return; }
	for bad in "$@"; do
		if echo "$bad" >"$f" 2>/dev/null; then
			fail "sysctl-$k-refuses-'$bad'" "accepted"
		elif [ "$(cat "$f")" != "$good" ]; then
			fail "sysctl-$k-refuses-'$bad'" "value changed to $(cat "$f")"
		else
			pass "sysctl-$k-refuses-'$bad'"
		fi
	done
}
for k in max_inline_read max_inline_write; do
	refuses $k 8192 "${th_bad[@]}"
	for good in "${th_good[@]}"; do
		client_set $k $good && [ "$(cat /proc/sys/sunrpc/rdma_$k)" = $good ] &&
			pass "sysctl-$k-accepts-$good" || fail "sysctl-$k-accepts-$good" "refused"
	done
done
refuses remote_invalidation 1 "${r_bad[@]}"

setup_nfs_rdma
client_set max_inline_read 16384
client_set max_inline_write 16384
dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
want=$(file_sum /tmp/f)

# case: expected "c2s s2c offered negotiated status sent"
run_case() {
	local t=$1 exp=$2 v got mnt=/mnt/k
	for v in "${vers[@]}"; do
		mount_nfs "$v" "$mnt" || { fail "$t-nfs$v-mount" "mount failed"; continue; }
		got="$(xprt_info c2s) $(xprt_info s2c) $(xprt_info client_r) $(xprt_info r) $(xprt_info cm_status)"
		[ "$got" = "${exp% *}" ] && pass "$t-nfs$v-negotiated" ||
			fail "$t-nfs$v-negotiated" "got '$got', expected '${exp% *}'"
		# whether the client sent its message: only its
		# xprtrdma_inline_thresh event says (no file: without fault
		# injection it always does)
		got=$(xprt_info_traced client_sent "$SERVER_ADDR")
		[ "$got" = "${exp##* }" ] && pass "$t-nfs$v-traced-sent" ||
			fail "$t-nfs$v-traced-sent" "event: sent='$got', expected ${exp##* }"
		cp /tmp/f $mnt/f-$t-$v && sync
		umount_nfs $mnt
		remount_nfs "$v" "$mnt" || { fail "$t-nfs$v-checksum" "remount failed"; continue; }
		sum_is $mnt/f-$t-$v "$want" 8k && sum_is $mnt/f-$t-$v "$want" &&
			pass "$t-nfs$v-checksum" || fail "$t-nfs$v-checksum" "data differs"
		umount_nfs $mnt
	done
}

trace_on rpcrdma/xprtrdma_cm_private
# the shipped defaults: 8 KiB both ways on both sides; R is offered and
# negotiated where the device allows (TR_REMOTE_INV); the client asks for
# 16 KiB, so the server's default decides
run_case default "8192 8192 $TR_REMOTE_INV $TR_REMOTE_INV found 1"
# every value of an RDMA transport's xprt_info is an integer: nfs-utils'
# rpcctl reads each one with int(), and one that is not makes it show
# every field of the transport as 0
mount_nfs 3 /mnt/k || fail xprt-info-integers "mount failed"
bad=$(cat /sys/kernel/sunrpc/xprt-switches/*/xprt-*/xprt_info 2>/dev/null |
	grep '=' | grep -v '^[a-z_0-9]*=[0-9][0-9]*$')
if [ -z "$(xprt_info c2s | grep -v none)" ]; then
	fail xprt-info-integers "no connected transport reports rdma_c2s"
elif [ -n "$bad" ]; then
	fail xprt-info-integers "not integers: $(echo $bad)"
else
	pass xprt-info-integers
fi
umount_nfs /mnt/k
client_set remote_invalidation 0
run_case no-remote-inv "8192 8192 0 0 found 1"
client_set remote_invalidation 1
if cm_omit client; then
	run_case no-private-data "1024 1024 0 0 found 0"
else
	fail no-private-data "no fault injection (fail_rpcrdma)"
fi
if cm_omit server; then
	run_case server-no-private-data "1024 1024 $TR_REMOTE_INV 0 absent 1"
else
	fail server-no-private-data "no fault injection (fail_rpcrdma)"
fi
cm_omit none
trace_dump | grep -o 'xprtrdma_\(cm_private\|inline_thresh\).*' | sort | uniq -c

check_dmesg dmesg-clean
ktap_finished
