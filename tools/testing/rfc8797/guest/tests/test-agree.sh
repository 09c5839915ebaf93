#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Both peers ours: for each size configuration the client's view
# (sysfs xprt_info) and the server's view (conns: nfsd's netlink dump, or 6.12's procfs file;
# where neither exists, the server's svcrdma_cm_private event)
# of the connection must agree with each other and with RFC 8797:
#   c2s = min(client send, server recv), s2c = min(server send, client recv)
#   R = client R && server R (&& the device can: TR_REMOTE_INV)
# and NFSv3 and NFSv4.2 data must survive with checksums.  Runs over
# $TRANSPORT (rxe or siw).
. "$(dirname "$0")/../lib.sh"
S=/proc/sys/sunrpc/svc_rdma
# client-write client-read client-R server-recv server-send server-R
cfgs=("1024 1024 1 1024 0 1" "4096 4096 1 4096 0 1" "16384 16384 1 16384 0 1"
	"65536 65536 1 65536 0 1" "65536 4096 1 16384 8192 1" "4096 65536 0 65536 65536 1"
	"8192 8192 1 8192 0 0")
# the transport, three results per configuration and version, dmesg
ktap_begin agree $((2 + ${#cfgs[@]} * 2 * 3))

# kv KEY: KEY's value on the last line of the server's list
kv() { field "$1" "$(conns | tail -n 1)"; }

setup_nfs_rdma
# the server's view: its connection list, or where nothing lists them
# (Debian's nfsd with the DKMS package's rpcrdma.ko) its
# svcrdma_cm_private event of each connection
server_view
dd if=/dev/urandom of=/tmp/big bs=1M count=2 status=none
want_sum=$(file_sum /tmp/big)

for cfg in "${cfgs[@]}"; do
	read -r cw cr cR sr ss sR <<<"$cfg"
	client_set max_inline_write "$cw" && client_set max_inline_read "$cr" &&
		client_set remote_invalidation "$cR" && echo "$sr" >$S/max_req_size &&
		echo "$ss" >$S/max_send_size && echo "$sR" >$S/remote_invalidation ||
		{ fail "cfg-${cfg// /-}" "a knob refused its value"; continue; }
	[ "$ss" = 0 ] && ss=$sr
	exp_c2s=$(smaller "$cw" "$sr") exp_s2c=$(smaller "$ss" "$cr")
	exp_r=0
	[ "$cR" = 1 ] && [ "$sR" = 1 ] && exp_r=$TR_REMOTE_INV
	for v in 3 4.2; do
		t=c${cw}-${cr}-${cR}_s${sr}-${ss}-${sR}_nfs$v mnt=/mnt/a
		# one connection at a time, so the server's line is this one's
		why=$(server_view_fresh) || fail "$t-idle" "$why"
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		cp /tmp/big "$mnt/big-$t" && sync
		client="$(xprt_info c2s) $(xprt_info s2c) $(xprt_info r)"
		if [ "$SERVER_VIEW" = conns ]; then
			server="$(kv c2s) $(kv s2c) $(kv r)" detail=$(conns | tail -n 1)
			[ "$(conns | grep -c .)" = 1 ] || server="$(conns | grep -c .) connections listed"
		else
			server=$(srv_traced) detail="svcrdma_cm_private"
		fi
		want="$exp_c2s $exp_s2c $exp_r"
		[ "$client" = "$want" ] && pass "$t-client-view" ||
			fail "$t-client-view" "client c2s s2c R '$client', expected '$want'"
		[ "$server" = "$want" ] && pass "$t-server-view" ||
			fail "$t-server-view" "server c2s s2c r '$server', expected '$want' ($detail)"
		umount_nfs "$mnt" || fail "$t-umount" "umount failed"
		# a fresh mount reads the file back; every step's own failure
		# is the result, never a checksum left from an earlier round
		got=""
		if ! remount_nfs "$v" "$mnt"; then
			fail "$t-checksum" "remount failed"
		elif ! got=$(file_sum "$mnt/big-$t"); then
			fail "$t-checksum" "read back failed"
		elif [ "$got" != "$want_sum" ]; then
			fail "$t-checksum" "read back differs"
		else
			pass "$t-checksum"
		fi
		umount_nfs "$mnt"
	done
done
check_dmesg dmesg-clean
ktap_finished
