#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Both peers ours: for each size configuration the client's view
# (mountstats) and the server's view (/proc/net/rpc/svc_rdma_connections)
# of the connection must agree with each other and with RFC 8797:
#   c2s = min(client send, server recv), s2c = min(server send, client recv)
#   R = client R && server R (&& the device can: TR_REMOTE_INV)
# and NFSv3 and NFSv4.2 data must survive with checksums.  Runs over
# $TRANSPORT (rxe or siw).
. "$(dirname "$0")/../guest-lib.sh"
FAILED=0
P=/sys/module/rpcrdma/parameters
S=/proc/sys/sunrpc/svc_rdma

kv() {	# kv KEY: KEY's value on the last line of the server's list
	tail -n 1 "$CONNS" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
min() { echo $(($1 < $2 ? $1 : $2)); }

setup_rdma || { fail setup "rdma link add failed"; exit 1; }
check_transport transport
start_nfsd || { fail nfsd "nfsd did not start"; exit 1; }
dd if=/dev/urandom of=/tmp/big bs=1M count=2 status=none
want_sum=$(sha256sum </tmp/big)

# client-write client-read client-R server-recv server-send server-R
for cfg in "1024 1024 Y 1024 0 1" "4096 4096 Y 4096 0 1" "16384 16384 Y 16384 0 1" \
		"65536 65536 Y 65536 0 1" "65536 4096 Y 16384 8192 1" "4096 65536 N 65536 65536 1" \
		"8192 8192 Y 8192 0 0"; do
	read -r cw cr cR sr ss sR <<<"$cfg"
	echo "$cw" >$P/max_inline_write && echo "$cr" >$P/max_inline_read &&
		echo "$cR" >$P/remote_invalidation && echo "$sr" >$S/max_req_size &&
		echo "$ss" >$S/max_send_size && echo "$sR" >$S/remote_invalidation ||
		{ fail "cfg-${cfg// /-}" "a knob refused its value"; continue; }
	[ "$ss" = 0 ] && ss=$sr
	exp_c2s=$(min "$cw" "$sr") exp_s2c=$(min "$ss" "$cr")
	exp_r=0
	[ "$cR" = Y ] && [ "$sR" = 1 ] && exp_r=$TR_REMOTE_INV
	for v in 3 4.2; do
		t=c${cw}-${cr}-${cR}_s${sr}-${ss}-${sR}_nfs$v mnt=/mnt/a
		# one connection at a time, so the server's line is this one's
		wait_no_conns || fail "$t-idle" "an old connection is still listed"
		mount_nfs "$v" "$mnt" || { fail "$t-mount" "mount failed"; continue; }
		cp /tmp/big "$mnt/big-$t" && sync
		client="$(xs $mnt 33) $(xs $mnt 34) $(xs $mnt 36)"
		server="$(kv c2s) $(kv s2c) $(kv r)"
		[ "$(grep -c . $CONNS)" = 1 ] || server="$(grep -c . $CONNS) connections listed"
		want="$exp_c2s $exp_s2c $exp_r"
		[ "$client" = "$want" ] && pass "$t-client-view" ||
			fail "$t-client-view" "client c2s s2c R '$client', expected '$want'"
		[ "$server" = "$want" ] && pass "$t-server-view" ||
			fail "$t-server-view" "server c2s s2c r '$server', expected '$want' ($(tail -n 1 $CONNS))"
		umount_nfs "$mnt"
		mount_nfs "$v" "$mnt" && got=$(sha256sum <"$mnt/big-$t") && umount_nfs "$mnt"
		[ "$got" = "$want_sum" ] && pass "$t-checksum" || fail "$t-checksum" "read back differs"
	done
done
check_dmesg dmesg-clean
exit $FAILED
