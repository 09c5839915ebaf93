#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client knobs: the rpcrdma module parameters refuse out-of-range values
# with a message and share their variables with the SUNRPC_DEBUG
# sysctls; with cm_private_data=N the client sends no CM Private Data,
# the server falls back to RFC 8166 defaults, the client assumes them
# for itself (1 KiB both ways, no R) and NFS still works; with
# remote_invalidation=N the R bit is not offered.
#
# With the server's CM Private Data turned off (svc_rdma sysctl
# cm_private_data=0) the client must see status 1 = absent and 1 KiB
# both ways.
. "$(dirname "$0")/../guest-lib.sh"

P=/sys/module/rpcrdma/parameters
FAILED=0
SVC_PRIVATE_KNOB=/proc/sys/sunrpc/svc_rdma/cm_private_data

modprobe rpcrdma 2>/dev/null
for k in max_inline_read max_inline_write remote_invalidation cm_private_data; do
	[ -e $P/$k ] && pass "param-$k-exists" || fail "param-$k-exists" "no $P/$k"
done
# refusals: value unchanged, write fails, a message in the log
for k in max_inline_read max_inline_write; do
	old=$(cat $P/$k)
	for bad in 0 1023 262145 4294967296 -1 abc ""; do
		dmesg -C
		if echo "$bad" >$P/$k 2>/dev/null; then
			fail "param-$k-refuses-'$bad'" "accepted"
		elif [ "$(cat $P/$k)" != "$old" ]; then
			fail "param-$k-refuses-'$bad'" "value changed to $(cat $P/$k)"
		elif ! dmesg | grep -q "rpcrdma.$k must be between 1024 and 262144"; then
			fail "param-$k-refuses-'$bad'" "no message: $(dmesg | tail -n 2)"
		else
			pass "param-$k-refuses-'$bad'"
		fi
	done
	for good in 1024 262144 8192; do
		echo $good >$P/$k && [ "$(cat $P/$k)" = $good ] &&
			pass "param-$k-accepts-$good" || fail "param-$k-accepts-$good" "refused"
	done
	s=/proc/sys/sunrpc/rdma_${k}
	if [ -e $s ]; then
		echo 12288 >$s && [ "$(cat $P/$k)" = 12288 ] && echo 6144 >$P/$k &&
			[ "$(cat $s)" = 6144 ] && pass "param-$k-shares-sysctl" ||
			fail "param-$k-shares-sysctl" "sysctl $(cat $s) param $(cat $P/$k)"
	fi
done
for k in remote_invalidation cm_private_data; do
	dmesg -C
	! echo maybe >$P/$k 2>/dev/null && [ "$(cat $P/$k)" = Y ] &&
		dmesg | grep -q "rpcrdma.$k must be a boolean" &&
		pass "param-$k-refuses-junk" || fail "param-$k-refuses-junk" "accepted or silent"
done

setup_rdma || { fail setup "rdma link add failed"; exit 1; }
check_transport transport
start_nfsd || { fail nfsd "nfsd did not start"; exit 1; }
echo 16384 >$P/max_inline_read
echo 16384 >$P/max_inline_write
dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
want=$(sha256sum </tmp/f)

# case: expected "c2s s2c offered negotiated status"
run_case() {
	local t=$1 exp=$2 v got mnt=/mnt/k
	for v in 3 4.2; do
		mount_nfs "$v" "$mnt" || { fail "$t-nfs$v-mount" "mount failed"; continue; }
		got="$(xs $mnt 33) $(xs $mnt 34) $(xs $mnt 35) $(xs $mnt 36) $(xs $mnt 37)"
		[ "$got" = "$exp" ] && pass "$t-nfs$v-negotiated" ||
			fail "$t-nfs$v-negotiated" "got '$got', expected '$exp'"
		cp /tmp/f $mnt/f-$t-$v && sync
		umount_nfs $mnt
		mount_nfs "$v" "$mnt" || { fail "$t-nfs$v-remount" "mount failed"; continue; }
		[ "$(timeout 120 dd if=$mnt/f-$t-$v iflag=direct bs=8k status=none | sha256sum)" = "$want" ] &&
		[ "$(sha256sum <$mnt/f-$t-$v)" = "$want" ] &&
			pass "$t-nfs$v-checksum" || fail "$t-nfs$v-checksum" "data differs"
		umount_nfs $mnt
	done
}

trace_on rpcrdma/xprtrdma_cm_private
# R is offered and negotiated where the device allows (TR_REMOTE_INV)
run_case default "4096 4096 $TR_REMOTE_INV $TR_REMOTE_INV 0"
echo N >$P/remote_invalidation
run_case no-remote-inv "4096 4096 0 0 0"
echo Y >$P/remote_invalidation
echo N >$P/cm_private_data
run_case no-private-data "1024 1024 0 0 0"
echo Y >$P/cm_private_data
if echo 0 >"$SVC_PRIVATE_KNOB"; then
	run_case server-no-private-data "1024 1024 $TR_REMOTE_INV 0 1"
	echo 1 >"$SVC_PRIVATE_KNOB"
else
	fail server-no-private-data "cannot write $SVC_PRIVATE_KNOB"
fi
trace_dump | grep -o 'xprtrdma_\(cm_private\|inline_thresh\).*' | sort | uniq -c

check_dmesg dmesg-clean
exit $FAILED
