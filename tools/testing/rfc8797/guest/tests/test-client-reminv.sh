#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Remote invalidation: the same small O_DIRECT read workload with the
# client offering R (sysctl rdma_remote_invalidation=1) and not (0) against
# our server, which offers R.  With Y, replies carry invalidations that
# the client must honour (fewer LOCAL_INVs per RPC); with 0 none may
# arrive; no invalidation may be stray (an rkey matching no MR of the
# request).
# Over a transport whose device cannot (TR_REMOTE_INV=0) R is never
# offered and no reply may carry an invalidation, Y or N.
. "$(dirname "$0")/../lib.sh"

vers=(3 4.2)
# the transport; per version three results for R=1 and for R=0 and the
# comparison of the two; dmesg
ktap_begin client-reminv $((2 + ${#vers[@]} * (2 * 3 + 1)))

setup_nfs_rdma
client_set max_inline_read 4096
client_set max_inline_write 4096
dd if=/dev/urandom of=/tmp/f bs=1M count=4 status=none
want=$(file_sum /tmp/f)

declare -A LI RPC RI
for v in "${vers[@]}"; do
	for r in 1 0; do
		t=nfs$v-R$r
		mnt=/mnt/r
		client_set remote_invalidation $r
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		cp /tmp/f "$mnt/f-$t" && sync
		umount_nfs "$mnt"
		remount_nfs "$v" "$mnt" || { fail "$t-checksum" "remount failed"; continue; }
		[ "$(xprt_info client_r)" = $([ $r = 1 ] && echo "$TR_REMOTE_INV" || echo 0) ] ||
			fail "$t-offered" "R offered is $(xprt_info client_r)"
		# every counter is read, before and after, or the case fails:
		# an empty one would count as 0 and pass the R=0 cases
		li0=$(mstat $mnt local_inv) && s0=$(mstat $mnt sends) && ri0=$(mstat $mnt reminv) ||
			{ fail "$t-counters" "no rdma xprt line for $mnt"; umount_nfs "$mnt"; continue; }
		got="" why=""
		for bs in 4k 16k 64k 16k 4k; do
			got=$(file_sum "$mnt/f-$t" $bs) || why="the O_DIRECT read ($bs) failed or took over 120 s"
			[ "$got" = "$want" ] || break
		done
		[ -n "$got" ] && [ "$got" = "$want" ] && pass "$t-checksum" ||
			fail "$t-checksum" "${why:-the O_DIRECT read ($bs) differs}"
		li=$(mstat $mnt local_inv) && rpcs=$(mstat $mnt sends) && ri=$(mstat $mnt reminv) ||
			{ fail "$t-counters" "no rdma xprt line for $mnt"; umount_nfs "$mnt"; continue; }
		li=$((li - li0)) rpcs=$((rpcs - s0)) ri=$((ri - ri0))
		LI[$t]=$li RPC[$t]=$rpcs RI[$t]=$ri
		log "$t: RPCs=$rpcs LOCAL_INV=$li remote-inv replies=$ri" \
			"per RPC: $(awk -v a=$li -v b=$rpcs 'BEGIN { printf "%.3f", a / b }')" \
			"unnegotiated=$(mstat $mnt reminv_unneg) stray=$(mstat $mnt reminv_stray)"
		grep "xprt:.*rdma" /proc/self/mountstats
		[ "$(mstat $mnt reminv_stray)" = 0 ] && pass "$t-no-stray" ||
			fail "$t-no-stray" "stray invalidations: $(mstat $mnt reminv_stray)"
		if [ $r = 0 ] || [ "$TR_REMOTE_INV" = 0 ]; then
			[ "$ri" = 0 ] && pass "$t-no-reminv" ||
				fail "$t-no-reminv" "$ri replies carried an invalidation though R was not negotiated"
		else
			[ "$ri" -gt 0 ] && pass "$t-reminv-seen" ||
				fail "$t-reminv-seen" "no reply carried an invalidation"
		fi
		umount_nfs "$mnt"
	done
	y=nfs$v-R1 n=nfs$v-R0
	if [ "$TR_REMOTE_INV" = 0 ]; then
		# nothing invalidated remotely: the client invalidates locally
		[ -n "${LI[$y]}" ] && [ "${LI[$y]}" -gt 0 ] && pass "nfs$v-local-inv-only" ||
			fail "nfs$v-local-inv-only" "R=1 ${LI[$y]} LOCAL_INVs for ${RPC[$y]} RPCs"
	elif [ -n "${LI[$y]}" ] && [ -n "${LI[$n]}" ] &&
	   [ $(( LI[$y] * RPC[$n] )) -lt $(( LI[$n] * RPC[$y] )) ]; then
		pass "nfs$v-fewer-local-inv"
	else
		fail "nfs$v-fewer-local-inv" "R=1 ${LI[$y]}/${RPC[$y]}, R=0 ${LI[$n]}/${RPC[$n]} LOCAL_INV/RPC"
	fi
done

check_dmesg dmesg-clean
ktap_finished
