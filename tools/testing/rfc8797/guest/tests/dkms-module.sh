#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In a guest booted with guest.sh --kernel dkms (Debian's stock kernel,
# our rpcrdma.ko from the DKMS package in updates/dkms): modprobe must
# load the DKMS module and not the kernel's own (the file depmod picks,
# the loaded version and srcversion), our views and settings must be
# there with the series' 8 KiB defaults, and the kernel must say that an
# out-of-tree module is loaded.  Then SCRIPT [ARGS...] runs, a test that
# needs nothing but a stock kernel and this module (e.g. nfs-basic.sh);
# its results join this guest's.
#
#   dkms-module.sh [--view FILE]... [SCRIPT [ARGS...]]
#
# --view FILE: a file the package's module adds on this base beyond the
# sysctls every base's has (the base's DKMS_VIEWS)
. "$(dirname "$0")/../lib.sh"
# our views and settings: the server's Send counters and settings, the
# client's sysctls (all in rpcrdma.ko on every base), and the base's own
views=(/proc/sys/sunrpc/svc_rdma/rdma_stat_send_inv
	/proc/sys/sunrpc/svc_rdma/max_send_size /proc/sys/sunrpc/rdma_remote_invalidation)
while [ "${1:-}" = --view ]; do
	[ $# -ge 2 ] || { ktap_begin dkms-module 1; fail dkms-args "--view needs a FILE"; exit 1; }
	views+=("$2")
	shift 2
done
ktap_begin dkms-module $((5 + ${#views[@]}))
log "kernel $(uname -r), userland $(. /etc/os-release && echo "$PRETTY_NAME")"
file=$(modinfo -n rpcrdma 2>&1)
case "$file" in
*/updates/dkms/rpcrdma.ko*) pass "dkms-modinfo-path" ;;
*) fail "dkms-modinfo-path" "modinfo -n rpcrdma gives $file, not updates/dkms" ;;
esac
modprobe rpcrdma || fail "dkms-modprobe" "modprobe rpcrdma failed"
ver=$(cat /sys/module/rpcrdma/version 2>/dev/null)
log "rpcrdma loaded: version '$ver', srcversion $(cat /sys/module/rpcrdma/srcversion 2>/dev/null)," \
	"modinfo srcversion $(modinfo -F srcversion rpcrdma)"
log "modinfo: $(modinfo rpcrdma | grep -E '^(filename|version|rfc8797_|vermagic|signer)' | tr '\n' ';')"
# what an administrator sees: dkms status where the userland has dkms
# (the trixie roots), and modinfo in full
if command -v dkms >/dev/null; then
	dkms status 2>&1 | while read -r l; do log "dkms status: $l"; done
fi
modinfo rpcrdma 2>&1 | grep -vE '^(sig_key|sig_hashalgo|sig_id|signature):|^[[:space:]]' |
	while read -r l; do log "modinfo rpcrdma: $l"; done
case "$ver" in
rfc8797-*) pass "dkms-loaded-version" ;;
*) fail "dkms-loaded-version" "/sys/module/rpcrdma/version is '$ver'" ;;
esac
# the module in memory is the file depmod chose
if [ "$(cat /sys/module/rpcrdma/srcversion 2>/dev/null)" = "$(modinfo -F srcversion rpcrdma)" ]; then
	pass "dkms-loaded-srcversion"
else
	fail "dkms-loaded-srcversion" "loaded $(cat /sys/module/rpcrdma/srcversion 2>/dev/null) != $(modinfo -F srcversion rpcrdma)"
fi
for f in "${views[@]}"; do
	result_of "dkms-view-${f##*/}" test -e "$f"
done
# the series' defaults: 8 KiB inline thresholds on both sides (Debian's
# own module has 4 KiB)
d="$(cat /proc/sys/sunrpc/rdma_max_inline_read /proc/sys/sunrpc/rdma_max_inline_write \
	/proc/sys/sunrpc/svc_rdma/max_req_size 2>/dev/null | tr '\n' ' ')"
if [ "$d" = "8192 8192 8192 " ]; then
	pass "dkms-default-inline-8k"
else
	fail "dkms-default-inline-8k" "client read/write, server max_req_size: '$d', want 8192 each"
fi
# Debian's kernel trusts only its own key: an out-of-tree module signed
# by DKMS's own key (or unsigned) loads with taint E (unsigned module)
# and O (out of tree) and says so once
log "taint $(cat /proc/sys/kernel/tainted), $(dmesg | grep -m1 'module verification failed' || echo 'no verification message')"
if [ $(( $(cat /proc/sys/kernel/tainted) & 4096 )) -ne 0 ]; then
	pass "dkms-taint-out-of-tree"
else
	fail "dkms-taint-out-of-tree" "taint $(cat /proc/sys/kernel/tainted) lacks O (4096)"
fi
# this script's block ends before SCRIPT's begins
ktap_subtest_end
rc=$?
if [ $# -gt 0 ]; then
	"$@" || rc=1
fi
exit $rc
