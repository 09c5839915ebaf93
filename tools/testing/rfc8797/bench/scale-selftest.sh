#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/scale.py on made-up scale.txt lines whose numbers are known (host
# only, a second): KiB per connection from MemAvailable, the fit's
# slope, fixed part and residual, a row with fewer connections made
# than asked (shown, left out of the fit), what fits in 1, 16 and 256
# GiB, the seconds shown as information, a missing file, the plot
# (--plot: a PNG, and the same table), and the client's table (--mounts:
# per mount, per transport, kept; a missing file), and each slab
# cache's growth per connection (--slab), and the server's instructions
# per connection (--count).  Prints KTAP on
# stdout.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
harness_env || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_print_header
ktap_set_plan 15

# line TYPE N MADE USED_KIB: a scale.txt line whose server lost USED_KIB
# of MemAvailable while the N connections (MADE of them made) were held,
# and got all of it back after
line() {
	echo "type=$1 n=$2 connected=$3 seconds=$(($2 / 10)).5 recv=$(($3 * 263)):$(($3 * 263 * 8192))" \
		"send=$3:$(($3 * 8192)) max_requests=128 size=8192 queues=1:2:3 sq_depth=4" \
		"before: MemAvailable=4000000 Slab=100000 VmallocUsed=5000" \
		"held: MemAvailable=$((4000000 - $4)) Slab=$((100000 + $4 / 2)) VmallocUsed=$((5000 + $3 * 704))" \
		"after: MemAvailable=4000000 Slab=100000 VmallocUsed=5000"
}
# ours: 3000 KiB a connection and 500 fixed, exactly; 16k: 5000 a
# connection, 300 KiB above 5000 a connection at N = 10; ours at 1000 made 600
{
	for n in 1 10 100; do line ours $n $n $((n * 3000 + 500)); done
	line ours 1000 600 $((600 * 3000 + 500))
	line 16k 1 1 5000
	line 16k 10 10 50300
	line 16k 100 100 500000
} >"$tmp/scale.txt"
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" ours="$tmp/scale.txt" >"$tmp/table.md"
rc=$?
# is NAME DETAIL CMD...: one result, DETAIL the reason of a failure
is() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then ktap_test_pass "$name"; else ktap_test_fail "$name" "$detail"; fi
}
row() { grep -F "| ours | $1 |" "$tmp/table.md" | tr '\n' ' '; }
is "KiB per connection: MemAvailable lost over N; none kept" "$(row "ours | 100")" \
	grep -qF "| ours | ours | 100 | 3005 | 1502 | 704 | 2104 KiB/conn (26300x8192) | 8 KiB/conn | 0 | 10.5 |" \
	"$tmp/table.md"
is "a row with fewer made than asked says so, per connection made" "$(row "ours | 1000")" \
	grep -qF "| ours | ours | 1000 (600 made) | 3001 |" "$tmp/table.md"
is "the fit: slope, fixed part, residual 0, without the short row" "$(row "ours | 1,10,100")" \
	grep -qF "| ours | ours | 1,10,100 | 3000 | 500 | 0 |" "$tmp/table.md"
# 16k: points (1, 5000), (10, 50300), (100, 500000): slope 89885700 /
# 17982 = 4998.65, fixed 150.0, residuals -148.6, 163.5, -14.9
is "the fit's largest residual" "$(grep -F "| ours | 16k | 1,10,100 |" "$tmp/table.md")" \
	grep -qF "| ours | 16k | 1,10,100 | 4999 | 150 | 164 |" "$tmp/table.md"
# 1 GiB = 1048576 KiB: 349 of ours at 3000, 5592 in 16 GiB, 89478 in 256
is "connections that fit in 1, 16 and 256 GiB" "$(grep -F '| 8 KiB |' "$tmp/table.md")" \
	grep -qF "| ours | 8 KiB | 3000 | 349 | 5,592 | 89,478 |" "$tmp/table.md"
is "a complete file: exit 0" "rc $rc" test "$rc" = 0
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" ours="$tmp/missing.txt" >"$tmp/missing.md"
rc=$?
is "a missing file: no results, exit 1" "rc $rc: $(head -c 300 "$tmp/missing.md")" \
	test "$rc" = 1 -a -n "$(grep -F "| ours | no results in $tmp/missing.txt |" "$tmp/missing.md")"
# --plot: the same table on stdout, and a PNG
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --plot "$tmp/scale.png" ours="$tmp/scale.txt" \
	>"$tmp/plotted.md" 2>"$tmp/plot.err"
rc=$?
is "--plot: a PNG beside the same table" "rc $rc: $(head -c 300 "$tmp/plot.err")" \
	test "$rc" = 0 -a "$(head -c 4 "$tmp/scale.png" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 89504e47 \
	-a -z "$(diff "$tmp/table.md" "$tmp/plotted.md")"
# --mounts: a mount with 4 transports that took 10000 KiB while held,
# 4000 of it slab, 700 buffers of 4096 octets, 100 KiB not back
echo "inline=4096 nconnect=4 xprts=4 connects=4 buffers=700:2867200" \
	"before: MemAvailable=1900000 Slab=10000 held: MemAvailable=1890000 Slab=14000" \
	"after: MemAvailable=1899900 Slab=10050" >"$tmp/mounts.txt"
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --mounts ours="$tmp/mounts.txt" >"$tmp/mounts.md"
rc=$?
is "--mounts: KiB per mount and per transport, slab, buffers, kept" "rc $rc: $(grep -F '| ours |' "$tmp/mounts.md")" \
	test "$rc" = 0 -a -n "$(grep -xF '| ours | 4096 | 4 | 4 | 10000 | 2500 | 4000 | 700 (2800 KiB) | 100 |' "$tmp/mounts.md")"
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --mounts ours="$tmp/missing.txt" >"$tmp/mounts-missing.md"
rc=$?
is "--mounts: a missing file: no results, exit 1" "rc $rc" \
	test "$rc" = 1 -a -n "$(grep -F "| ours | no results in $tmp/missing.txt |" "$tmp/mounts-missing.md")"
# --check-recv: 263 buffers of 8192 octets a connection at 128 credits;
# the short row, 600 connections of the 1000 asked, has too few
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --check-recv "$tmp/scale.txt" >"$tmp/recv.ktap"
rc=$?
is "check-recv: N * (2 * max_requests + 7) buffers of the size passes" "$(head -c 300 "$tmp/recv.ktap")" \
	grep -qx "ok 3 ours at N=100: 26300 Receive buffers of 8192 octets" "$tmp/recv.ktap"
is "check-recv: fewer buffers fail, and the exit status says so" "rc $rc: $(grep 'not ok' "$tmp/recv.ktap")" \
	test "$rc" = 1 -a "$(grep -c '^not ok' "$tmp/recv.ktap")" = 1 -a \
	-n "$(grep -x 'not ok 4 ours at N=1000: 263000 Receive buffers of 8192 octets # got 157800, 1292697600 octets' "$tmp/recv.ktap")"
# --slab: slabinfo lines (name, objects, objsize, objects and pages a
# slab, ..., slabdata ACTIVE NUM 0); at 10 connections ours grew
# buf_5k by 12 slabs of 8 pages (38.4 KiB a connection), the base
# kmalloc-4k by 9 (28.8); dentry moved by under 0.5 KiB a connection
slab() {
	echo "slabinfo - version: 2.1"
	echo "# name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>"
	echo "$1 0 0 $2 6 8 : tunables 0 0 0 : slabdata $3 $3 0"
	echo "dentry 0 0 192 21 1 : tunables 0 0 0 : slabdata $4 $4 0"
}
mkdir -p "$tmp/ours" "$tmp/base"
slab svcrdma_buf_5k 5120 2 10 >"$tmp/ours/stock-10-before"
slab svcrdma_buf_5k 5120 14 11 >"$tmp/ours/stock-10-held"
slab kmalloc-4k 4096 1 10 >"$tmp/base/stock-10-before"
slab kmalloc-4k 4096 10 10 >"$tmp/base/stock-10-held"
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" --slab stock-10 ours="$tmp/ours" base="$tmp/base" >"$tmp/slab.md"
rc=$?
is "--slab: each cache's KiB per connection, the difference, all caches" "rc $rc: $(tr '\n' ' ' <"$tmp/slab.md")" \
	test "$rc" = 0 -a -n "$(grep -xF '| svcrdma_buf_5k | 38.4 | 0.0 | -38.4 |' "$tmp/slab.md")" \
	-a -n "$(grep -xF '| kmalloc-4k | 0.0 | 28.8 | +28.8 |' "$tmp/slab.md")" \
	-a -n "$(grep -xF '| all caches | 38.8 | 28.8 | -10.0 |' "$tmp/slab.md")" \
	-a -z "$(grep -F '| dentry |' "$tmp/slab.md")"
# the server's instructions (--count): server.insn beside client/; idle
# windows (marks 1-2 and 7-8) of 2 s and 200,000 kernel instructions,
# so 100,000 a second; 10 connections (marks 3-4, 1 s) took 900,000
# kernel instructions, 800,000 net of the idle's 100,000 (and 200,000
# in user space), 100 (marks 5-6, 2 s) 7,480,000, 7,280,000 net
# (1,820,000): 72,000 a connection and 80,000 fixed in the net fit
mkdir -p "$tmp/run/client" "$tmp/run2/client"
{
	line ours 10 10 30500 | sed 's/ recv=/ idle=1:2 marks=3:4 recv=/'
	line ours 100 100 300500 | sed 's/ recv=/ idle=7:8 marks=5:6 recv=/'
} >"$tmp/run/client/scale.txt"
printf 'dump seq=%s mark=%s cause=fifo ns=%s vcpus=2 user=%s kernel=%s\n' \
	1 1 1000000000 0 0 2 2 3000000000 0 200000 \
	3 3 4000000000 50 100 4 4 5000000000 200050 900100 \
	5 5 6000000000 300000 900000 6 6 8000000000 2120000 8380000 \
	7 7 9000000000 2120000 8380000 8 8 11000000000 2120000 8580000 >"$tmp/run/server.insn"
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" ours="$tmp/run/client/scale.txt" >"$tmp/insn.md"
rc=$?
is "--count: the server's kernel instructions per connection, net of idle, and their fit" \
	"rc $rc: $(grep -F 'instructions' -A 8 "$tmp/insn.md" | tr '\n' ' ')" \
	test "$rc" = 0 -a -n "$(grep -xF '| ours | ours | 10 | 80,000 | 10,000 | 20,000 |' "$tmp/insn.md")" \
	-a -n "$(grep -xF '| ours | ours | 100 | 72,800 | 2,000 | 18,200 |' "$tmp/insn.md")" \
	-a -n "$(grep -xF '| ours | ours | 10,100 | 72,000 | 80,000 | 0 |' "$tmp/insn.md")"
# the same dumps, a line without marks: counted for nothing, exit 1
cp "$tmp/run/server.insn" "$tmp/run2/"
line ours 10 10 30500 | sed 's/ recv=/ idle=1:2 recv=/' >"$tmp/run2/client/scale.txt"
/usr/bin/python3 "$RFC_HARNESS/bench/scale.py" ours="$tmp/run2/client/scale.txt" >"$tmp/insn2.md"
rc=$?
is "--count: a line without marks fails" "rc $rc: $(grep -F '| ours | ours | 10 |' "$tmp/insn2.md" | tail -n 1)" \
	test "$rc" = 1 -a -n "$(grep -xF '| ours | ours | 10 | na | na | na |' "$tmp/insn2.md")"
ktap_print_totals
ktap_ok
