#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cut a fixture for check-fixtures.sh out of a link capture
# (two-guest.sh --dump): frames FIRST..LAST, of which only the CM MADs
# and the RC Send packets (RoCE opcodes 0-5, 22, 23), at most MAXSENDS
# of the latter, from frame SENDS_FROM on (default FIRST); over iWARP
# the MPA Request and Reply and the TCP segments with RDMAP Sends
# (opcodes 3-6).  No RDMA Read or Write payloads, no other TCP: a few KB.
#
#   trim.sh IN.pcap OUT.pcap FIRST LAST [MAXSENDS [SENDS_FROM]]   (default 40)
set -euo pipefail
in=$1 out=$2 first=$3 last=$4 max=${5:-40} from=${6:-$3}
range="frame.number >= $first && frame.number <= $last"
sends="infiniband.bth.opcode <= 5 || infiniband.bth.opcode == 22 || infiniband.bth.opcode == 23 ||
	(iwarp_rdma.opcode >= 3 && iwarp_rdma.opcode <= 6)"
cm="infiniband.mad.mgmtclass == 7 || iwarp_mpa.req || iwarp_mpa.rep"
keep=$(tshark -n -r "$in" -Y "$range && ($cm || $sends)" \
	-T fields -e frame.number -e infiniband.mad.mgmtclass -e iwarp_mpa.pdlength 2>/dev/null |
	awk -F'\t' -v max="$max" -v from="$from" '$2 != "" || $3 != "" || ($1 >= from && ++n <= max) { printf "%sframe.number == %s", sep, $1; sep = " || " }')
[ -n "$keep" ] || { echo "trim.sh: nothing to keep in $first..$last" >&2; exit 1; }
tshark -n -r "$in" -Y "$keep" -w "$out" 2>/dev/null
echo "$out: $(capinfos -c -M "$out" | awk '/Number of packets/ { print $NF }') frames, $(stat -c %s "$out") octets"
