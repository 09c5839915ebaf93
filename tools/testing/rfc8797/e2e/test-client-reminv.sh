#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Remote invalidation: the same small O_DIRECT read workload with the
# client offering R (rpcrdma.remote_invalidation=Y) and not (N) against
# our server, which offers R.  With Y, replies carry invalidations that
# the client must honour (fewer LOCAL_INVs per RPC); with N none may
# arrive; an rkey matching no MR of the request must never be seen.
# Over a transport whose device cannot (TR_REMOTE_INV=0) R is never
# offered and no reply may carry an invalidation, Y or N.
. "$(dirname "$0")/../guest-lib.sh"

P=/sys/module/rpcrdma/parameters
FAILED=0

setup_rdma || { fail setup "rdma link add failed"; exit 1; }
check_transport transport
start_nfsd || { fail nfsd "nfsd did not start"; exit 1; }
echo 4096 >$P/max_inline_read
echo 4096 >$P/max_inline_write
dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
want=$(sha256sum </tmp/f)

declare -A LI RPC RI
for v in 3 4.2; do
	for r in Y N; do
		t=nfs$v-R$r
		mnt=/mnt/r
		echo $r >$P/remote_invalidation
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		cp /tmp/f "$mnt/f-$t" && sync
		umount_nfs "$mnt"
		mount_nfs "$v" "$mnt" || { fail "$t-remount" "mount failed"; continue; }
		[ "$(xs $mnt 35)" = $([ $r = Y ] && echo "$TR_REMOTE_INV" || echo 0) ] ||
			fail "$t-offered" "R offered field is $(xs $mnt 35)"
		li0=$(xs $mnt 27) s0=$(xs $mnt 8) ri0=$(xs $mnt 30)
		got=""
		for bs in 4k 16k 64k 16k 4k; do
			got=$(timeout 120 dd if="$mnt/f-$t" iflag=direct bs=$bs status=none | sha256sum)
			[ "$got" = "$want" ] || break
		done
		[ "$got" = "$want" ] && pass "$t-checksum" || fail "$t-checksum" "O_DIRECT read differs"
		li=$(( $(xs $mnt 27) - li0 )) rpcs=$(( $(xs $mnt 8) - s0 ))
		ri=$(( $(xs $mnt 30) - ri0 ))
		LI[$t]=$li RPC[$t]=$rpcs RI[$t]=$ri
		log "$t: RPCs=$rpcs LOCAL_INV=$li remote-inv replies=$ri" \
			"per RPC: $(awk -v a=$li -v b=$rpcs 'BEGIN { printf "%.3f", a / b }')" \
			"unnegotiated=$(xs $mnt 31) mismatch=$(xs $mnt 32)"
		grep "xprt:.*rdma" /proc/self/mountstats
		[ "$(xs $mnt 32)" = 0 ] && pass "$t-no-mismatch" ||
			fail "$t-no-mismatch" "mismatched rkeys: $(xs $mnt 32)"
		if [ $r = N ] || [ "$TR_REMOTE_INV" = 0 ]; then
			[ "$ri" = 0 ] && pass "$t-no-reminv" ||
				fail "$t-no-reminv" "$ri replies carried an invalidation though R was not negotiated"
		else
			[ "$ri" -gt 0 ] && pass "$t-reminv-seen" ||
				fail "$t-reminv-seen" "no reply carried an invalidation"
		fi
		umount_nfs "$mnt"
	done
	y=nfs$v-RY n=nfs$v-RN
	if [ "$TR_REMOTE_INV" = 0 ]; then
		# nothing invalidated remotely: the client invalidates locally
		[ -n "${LI[$y]}" ] && [ "${LI[$y]}" -gt 0 ] && pass "nfs$v-local-inv-only" ||
			fail "nfs$v-local-inv-only" "R=Y ${LI[$y]} LOCAL_INVs for ${RPC[$y]} RPCs"
	elif [ -n "${LI[$y]}" ] && [ -n "${LI[$n]}" ] &&
	   [ $(( LI[$y] * RPC[$n] )) -lt $(( LI[$n] * RPC[$y] )) ]; then
		pass "nfs$v-fewer-local-inv"
	else
		fail "nfs$v-fewer-local-inv" "R=Y ${LI[$y]}/${RPC[$y]}, R=N ${LI[$n]}/${RPC[$n]} LOCAL_INV/RPC"
	fi
done

check_dmesg dmesg-clean
exit $FAILED
