#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RFC 8797 client negotiation: for several client-side inline settings
# (sysctls rdma_max_inline_read/write) against our
# server with svc_rdma max_req_size=$SRV (it advertises send=recv=$SRV and R),
# the client's sysfs xprt_info must show the negotiated min() values
#   c2s = min(write, SRV), s2c = min(SRV, read)
# and NFSv3 and NFSv4.2 data must survive with checksums.  The client
# must have found the server's message in Private Data of the length
# the transport delivers (TR_PD_LEN_REP: 8 on iWARP, 196 on RoCE) and R
# is negotiated where the device allows it (TR_REMOTE_INV).
#
#   test-client-negotiate.sh [SRV]
. "$(dirname "$0")/../lib.sh"

SRV=${1:-32768}
# write:read pairs the client advertises; the last one is asymmetric
cfgs=(1024:1024 4096:4096 16384:16384 65536:65536 2048:65536 5000:3000)
vers=(3 4.2)
# the transport, three results per configuration and version, dmesg
ktap_begin client-negotiate $((2 + ${#cfgs[@]} * ${#vers[@]} * 3))

kround() { echo $(($1 / 1024 * 1024)); }

setup_nfs_rdma
# svcrdma reads max_req_size at each accept
echo "$SRV" >/proc/sys/sunrpc/svc_rdma/max_req_size ||
	{ fail srv-size "cannot set max_req_size=$SRV"; exit 1; }

src=/tmp/src
mkdir -p $src/small
dd if=/dev/urandom of=$src/big bs=1M count=4 status=none
big_sum=$(file_sum $src/big)
for i in $(seq 1 40); do
	head -c $(( (i * 7919) % 70000 )) /dev/urandom >$src/small/f$i
done

for cfg in "${cfgs[@]}"; do
	w=${cfg%:*} r=${cfg#*:}
	client_set max_inline_write "$w" && client_set max_inline_read "$r" ||
		{ fail "cfg-$cfg" "sysctl refused"; continue; }
	exp_c2s=$(smaller "$(kround "$w")" "$SRV")
	exp_s2c=$(smaller "$SRV" "$(kround "$r")")
	for v in "${vers[@]}"; do
		t=srv$SRV-w$w-r$r-nfs$v
		mnt=/mnt/n$v
		trace_on rpcrdma/xprtrdma_cm_private
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		d=$mnt/$t
		mkdir -p "$d"
		cp $src/big "$d/big" && cp -r $src/small "$d/small" && sync
		# the client's own sizes as it sent them: rounded down
		got="$(xprt_info c2s) $(xprt_info s2c) R=$(xprt_info client_r)/$(xprt_info r) st=$(xprt_info cm_status) sent=$(xprt_info client_send)/$(xprt_info client_recv)"
		want="$exp_c2s $exp_s2c R=$TR_REMOTE_INV/$TR_REMOTE_INV st=found sent=$(kround "$w")/$(kround "$r")"
		[ "$got" = "$want" ] && pass "$t-negotiated" ||
			fail "$t-negotiated" "xprt_info c2s s2c R st sent: '$got', expected '$want'"
		trace_dump | grep -o 'xprtrdma_\(cm_private\|inline_thresh\).*' | sort -u
		pd=$(trace_dump | grep -o 'xprtrdma_cm_private: .* len=[0-9]* status=[a-z_]*' |
		     sed 's/.* len=//' | sort -u | tr '\n' ';')
		[ "$pd" = "$TR_PD_LEN_REP status=found;" ] && pass "$t-private-data-len" ||
			fail "$t-private-data-len" "client got len/status '$pd', expected '$TR_PD_LEN_REP status=found'"
		umount_nfs "$mnt" || fail "$t-umount" "umount failed"
		remount_nfs "$v" "$mnt" || { fail "$t-checksums" "remount failed"; continue; }
		sum_is "$d/big" "$big_sum" && same_tree $src/small "$d/small" >/dev/null &&
			pass "$t-checksums" || fail "$t-checksums" "data differs"
		got="$(xprt_info c2s) $(xprt_info s2c)"
		[ "$got" = "$exp_c2s $exp_s2c" ] || fail "$t-renegotiated" "got '$got'"
		umount_nfs "$mnt" || fail "$t-umount2" "umount failed"
	done
done

check_dmesg dmesg-clean
ktap_finished
