#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write a small deterministic seed corpus for fuzz_cm_private into $1.
set -euo pipefail
dir=$1
mkdir -p "$dir"

# seed NAME PRINTF-FORMAT: one file from printf octal/hex escapes
seed() {
	printf "$2" >"$dir/$1"
}
msg='\xf6\xab\x0e\x18\x01\x01\x03\x03'	# v1, R, 4 KiB both ways

seed empty ''
seed v1 "$msg"
seed v1-unaligned "\\x00\\x11\\x22$msg"
seed v2-then-v1 "\\xf6\\xab\\x0e\\x18\\x02\\x00\\x00\\x00\\x00$msg"
seed truncated '\x00\x00\xf6\xab\x0e\x18\x01'
seed reserved-bits '\xf6\xab\x0e\x18\x01\xff\x00\xff'
# IB CM REQ as delivered by the RDMA-CM: 36-octet CMA header, then ours
{ head -c 36 /dev/zero; printf "$msg"; head -c 12 /dev/zero; } >"$dir/cm-req-56"
# IB CM REP: the full 196 octets with ours at the start
{ printf "$msg"; head -c 188 /dev/zero; } >"$dir/cm-rep-196"
