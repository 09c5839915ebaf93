#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/cost.py on made-up plugin dumps whose numbers are known (host
# only, a second): a window's counts net of the idle rate and of the
# markers' cost, per RPC; the spread over boots; the ours/base targets
# met and missed; a modular kernel's blocks attributed by module load
# address; the lines of one block address summed; a boot's rounds of one
# workload reduced to their median.  Prints KTAP on stdout.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
harness_env || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_print_header
ktap_set_plan 8

# run KERNEL BOOT KERNEL_PER_RPC[,KERNEL_PER_RPC...]: a run folder with
# both guests' dumps: fixed window 0.1 s of 20000 kernel instructions
# (100 of them idle), idle window 2 s of 2000 (1000/s), a randread-4k
# window of 4 s and 1000 RPCs, KERNEL_PER_RPC each: 4000 idle and 19900
# marker on top; a window a round for several KERNEL_PER_RPC
run() {
	local d=$tmp/$1/cost$2-$1
	mkdir -p "$d/client"
	/usr/bin/python3 - "$d" "$1" "$2" "$3" <<'PY'
import json, os, sys
d, k, b = sys.argv[1], sys.argv[2], int(sys.argv[3])
wins = [("fixed", 10, 11, 0.1, 20000, 0, 1), ("idle", 12, 13, 2.0, 2000, 0, 1)]
for i, per in enumerate(sys.argv[4].split(",")):
    wins.append(("randread-4k", 14 + 2 * i, 15 + 2 * i, 4.0, 4000 + 19900 + int(per) * 1000,
                 1000, i + 1))
with open(os.path.join(d, "client", "cost.jsonl"), "w") as f:
    for wl, a, bb, _, _, rpcs, rnd in wins:
        f.write(json.dumps({"kind": "cost-window", "kernel": k, "boot": b, "wl": wl,
                            "vers": "3", "a": a, "b": bb, "rc": 0, "ios": rpcs,
                            "iodepth": 1, "rpcs": rpcs, "retrans": 0, "srpcs": rpcs,
                            "rc_hits": 0, "round": rnd}) + "\n")
for side in ("client", "server"):
    with open(os.path.join(d, side + ".insn"), "w") as f:
        ns, kern, seq = 10**9, 10**6, 0
        for wl, a, bb, sec, n, _, _ in wins:
            for m, add, dt in ((a, 0, 1.0), (bb, n, sec)):
                seq += 1
                ns += int(dt * 1e9)
                kern += add
                f.write("dump seq=%d mark=%d cause=marker ns=%d vcpus=1 user=0 kernel=%d "
                        "k.provider=%d k.xprtrdma=%d k.rest=%d cpu0=%d\n"
                        % (seq, m, ns, kern, kern // 4, kern // 10,
                           kern - kern // 4 - kern // 10, kern))
PY
	: >"$tmp/$1/layers-$1.txt"
}
# against PER_RPC NAME: two boots of the base at PER_RPC beside ours's,
# through cost.py into $tmp/NAME.md; the report's status in rc
against() {
	run base 1 "$1"
	run base 2 "$1"
	cp -r "$tmp"/ours/* "$tmp/base/"
	/usr/bin/python3 "$RFC_HARNESS/bench/cost.py" cases "$tmp"/base/cost*/ >"$tmp/$2.jsonl" \
		2>>"$tmp/err"
	/usr/bin/python3 "$RFC_HARNESS/bench/cost.py" report --kernels "ours base" "$tmp/$2.jsonl" \
		"$tmp/$2.md" >/dev/null
	rc=$?
}
run ours 1 60000
run ours 2 61000
against 80000 cost
# row KERNEL [NAME]: KERNEL's randread-4k row of NAME.md (default cost)
row() { grep -F "| v3 | randread-4k | $1 |" "$tmp/${2:-cost}.md"; }
# is NAME DETAIL CMD...: one result, DETAIL the reason of a failure
is() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then ktap_test_pass "$name"; else ktap_test_fail "$name" "$detail"; fi
}
# ours: 60000 and 61000 per RPC on each side: client and server medians
# 60500, sum 121000, spread 61/60-1 = 1.67%; base 80000: 121/160 = 0.756
is "the idle rate and the markers' cost are subtracted, per RPC" "$(row ours)" \
	grep -qF "| ours | 0 | 60,500 | 0 | 60,500 | 121,000 |" "$tmp/cost.md"
is "spread is max/min-1 over boots" "$(row ours)" grep -qF "| 1.67% |" <(row ours)
is "ours/base of the sum and of the adapter estimate" "$(row base)" grep -qF "| 0.756 | 0.756 |" <(row base)
is "a 4 KiB target met, report exits 0" "rc $rc: $(grep -i target -A3 "$tmp/cost.md" | tr '\n' ' ')" \
	test "$rc" = 0 -a -n "$(grep -F "randread-4k ours/base c+s <= 0.85: 0.756 met" "$tmp/cost.md")"
# a base at 62000 per RPC: ours/base 121000/124000 = 0.976 misses 0.85;
# ours's xprtrdma is a tenth of its count (6050 per side, 12100 both):
# (121000 - 12100) / 124000 = 0.878, above 0.85 even at zero
against 62000 cost2
floor="randread-4k ours/base c+s: 0.878 with our kernel's xprtrdma, svcrdma, rdma at zero"
is "a missed ratio gets the transport's reach" "$(grep -A8 'reach$' "$tmp/cost2.md" | tr '\n' ' ')" \
	grep -qF "$floor (12,100 per RPC): out of the transport's reach" "$tmp/cost2.md"
/usr/bin/python3 - "$RFC_HARNESS/bench" "$tmp" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
import cost
t = sys.argv[2]
with open(os.path.join(t, "map"), "w") as f:
    f.write("ffffffff81000000 T _text\nffffffff81001000 T foo\nffffffff82000000 B _end\n")
with open(os.path.join(t, "mods"), "w") as f:
    f.write("rdma_rxe 0xffffffffc0100000\nnfsd 0xffffffffc0200000\n")
a = cost.Attributor(os.path.join(t, "map"), [("nfs", {"foo"})], os.path.join(t, "mods"))
ok = (a.layer(0xffffffffc0100010) == "provider" and a.layer(0xffffffffc0200010) == "nfsd"
      and a.layer(0xffffffff81001010) == "nfs" and a.layer(0xffffffff81000010) == "rest"
      and a.function(0xffffffffc0100010) == "[rdma_rxe]")
sys.exit(0 if ok else 1)
PY
is "a modular kernel's blocks by module load address and built-in symbol" "wrong layer" test $? = 0
# one address heading blocks of two lengths (TCG translated it again,
# shorter): a line each, both counted
printf '%s\n' "dump seq=1 mark=14 cause=marker ns=1 vcpus=1 user=0 kernel=0" \
	"dump seq=2 mark=15 cause=marker ns=2 vcpus=1 user=0 kernel=700" \
	"b ffffffff81001000 500" "b ffffffff81001000 200" end >"$tmp/dup.insn"
got=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import cost
print(sum(cost.window_blocks(cost.read_dumps(sys.argv[2], blocks=True), 14, 15).values()))' \
	"$RFC_HARNESS/bench" "$tmp/dup.insn")
is "the lines of one block address are summed" "700 expected, $got" test "$got" = 700
# three rounds in each boot, one of them far off (the last in boot 1,
# the first in boot 2): each boot's figure is its rounds' median, 60000
# and 61000 per side, as with one window each (121000 c+s, 1.67%)
rm -rf "$tmp/ours"
run ours 1 59900,60000,75000
run ours 2 50000,61000,61100
against 80000 rounds
is "a boot's rounds of a workload give their median" "$(row ours rounds)" \
	grep -qF "| ours | 0 | 60,500 | 0 | 60,500 | 121,000 | 90,750 | 1.67% |" "$tmp/rounds.md"
ktap_print_totals
ktap_ok
