#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Client half of a two-guest run: soft-RoCE on the NIC linked to the
# server guest, then for each NFS version a mount over RDMA, checksummed
# I/O (fio with verify, many small files), and what this kernel reports
# about the negotiation.  Leaves DONE in the export at the end.
#   interop-client.sh [--prefix NAME] [--no-private-data] VERSION...
. "$(dirname "$0")/../guest-lib.sh"
FAILED=0 prefix=interop
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) prefix=$2; shift 2 ;;
	--no-private-data) echo 0 >/sys/module/rpcrdma/parameters/cm_private_data 2>/dev/null ||
		{ fail "$prefix-client-knob" "this kernel has no switch for its private data"; exit 1; }
		shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 4.2
echo "client kernel: $(uname -r)"
nic=$(nic_up) || { fail "$prefix-client-setup" "no NIC"; exit 1; }
setup_rdma rxe "$nic" 192.0.2.2/24 || { fail "$prefix-client-setup" "rdma link add failed"; exit 1; }
# wait for the server guest to listen
for ((i = 0; i < 120; i++)); do
	timeout 5 rpcinfo -p "$SERVER_ADDR" >/dev/null 2>&1 && break
	sleep 2
done
mkdir -p /tmp/small
for i in $(seq 1 100); do head -c $(( (i * 7919) % 9000 )) /dev/urandom >/tmp/small/f$i; done
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

for v in "$@"; do
	t=$prefix-nfs$v mnt=/mnt/nfs$v
	trace_on
	if ! mount_nfs "$v" "$mnt"; then
		fail "$t-mount" "mount -o vers=$v,proto=rdma failed"
		continue
	fi
	pass "$t-mount"
	d=$mnt/c$v
	mkdir -p "$d"
	if timeout 300 fio --name=verify --directory="$d" --rw=randwrite --bs=4k --size=8m \
			--ioengine=psync --verify=crc32c --verify_fatal=1 --do_verify=1 \
			--direct=1 --output=/tmp/fio.txt >/dev/null 2>&1; then
		pass "$t-fio-verify"
	else
		fail "$t-fio-verify" "$(grep -iE 'err|verify' /tmp/fio.txt | head -c 300)"
	fi
	cp -r /tmp/small "$d/small" && sync
	umount_nfs "$mnt"
	if mount_nfs "$v" "$mnt"; then
		if diff <(sums /tmp/small) <(sums "$d/small") >/tmp/diff; then
			pass "$t-small-files"
		else
			fail "$t-small-files" "$(head -c 300 /tmp/diff)"
		fi
		echo "== client view, nfs $v"
		trace_dump | grep -oE 'xprtrdma_(inline_thresh|cm_private).*' | sort -u | tee -a /results/client-view.txt
		grep -A2 'xprt:.*rdma' /proc/self/mountstats | head -n 6 | tee -a /results/client-view.txt
		umount_nfs "$mnt"
	else
		fail "$t-remount" "second mount failed"
	fi
done
mount_nfs "${1}" /mnt/done && { touch "/mnt/done/DONE"; umount_nfs /mnt/done; }
dmesg_clean >/tmp/bad && pass "$prefix-client-dmesg-clean" ||
	fail "$prefix-client-dmesg-clean" "$(head -c 300 /tmp/bad)"
exit $FAILED
