#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression test of the RFC 8797 Wireshark dissector
# (tools/testing/rfc8797/wireshark/rpcrdma_cm.lua) on the captures kept in
# fixtures/: tshark alone, no guest, a few seconds.
#
#   check-fixtures.sh [EXPECTATIONS]   (default: fixtures/expected.txt)
#
# Prints KTAP, one result per assertion ("ok N name" or "not ok N name #
# reason", what check.sh's ktap.py reads), and exits non-zero when any
# assertion failed.
#
# EXPECTATIONS holds one assertion per line (# starts a comment):
#
#   FIXTURE FRAME KEY=VALUE...   the CM message in frame FRAME of
#                                fixtures/FIXTURE decodes to these values
#   FIXTURE sends KEY=VALUE...   the RDMA Sends of FIXTURE, counted
#   FIXTURE sends@FRAME KEY=VALUE...   only the Sends of the connection
#                                whose REP (MPA Reply) is frame FRAME
#
# FIXTURE is relative to the folder of EXPECTATIONS.  A " # TEXT" after
# the values is a label, shown in the result's name (e.g. whose view of
# the connection the values are).
#
# Keys of a frame line (the dissector's field; several values of one
# field are joined with ","; an empty VALUE means the field is absent):
#   role outcome offset version flags r reserved send recv count others
#   c2s s2c rneg warnings
# Keys of a sends line: c2s s2c (Sends checked per direction), swi (Send
# With Invalidate), max-c2s max-s2c (largest message), thr-c2s thr-s2c
# (the thresholds shown), and the number of Sends with each warning:
# send-too-large inv-not-negotiated inv-from-client; all of these count
# each message once, and rexmit counts the retransmitted packets that
# were left out.  A frame with several Sends (iWARP FPDUs) counts each;
# the warnings of such a frame count unless all its Sends are
# retransmissions.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
harness_env || exit 1
lua=$here/rpcrdma_cm.lua
expect=${1:-$here/fixtures/expected.txt}
fixtures=$(dirname "$expect")
ktap_print_header


command -v tshark >/dev/null || { ktap_test_fail wireshark-tshark "tshark is not installed (make deps)"; exit 1; }

# the -e list and the short names the expectations use, in one order
keys=(frame role outcome offset version flags r reserved send recv count others
	c2s s2c rneg warnings dir len thr inv rexmit cm)
fields=(frame.number rpcrdma_cm.role rpcrdma_cm.outcome rpcrdma_cm.offset
	rpcrdma_cm.version rpcrdma_cm.flags rpcrdma_cm.r rpcrdma_cm.reserved
	rpcrdma_cm.send_size rpcrdma_cm.recv_size rpcrdma_cm.occurrences
	rpcrdma_cm.other_offset rpcrdma_cm.c2s rpcrdma_cm.s2c rpcrdma_cm.remote_inv
	rpcrdma_cm.warning rpcrdma_cm.send.direction rpcrdma_cm.send.length
	rpcrdma_cm.send.threshold rpcrdma_cm.send.invalidate
	rpcrdma_cm.send.retransmission rpcrdma_cm.send.cm_frame)

# decode FIXTURE: the dissector's fields, one tab-separated line per
# frame it annotated, into $tmp/FIXTURE.tsv; Lua errors fail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
decode() {
	local fx=$1 out=$tmp/$1.tsv e=() f
	for f in "${fields[@]}"; do e+=(-e "$f"); done
	# HOME and XDG_CONFIG_HOME elsewhere: this file, not a copy that
	# "make wireshark" put in the personal plugin folder (loading both
	# fails), and no personal preferences
	HOME=$tmp XDG_CONFIG_HOME=$tmp tshark -n -X "lua_script:$lua" -r "$fixtures/$fx" -Y rpcrdma_cm \
		-T fields -E separator=/t -E occurrence=a -E aggregator=, "${e[@]}" \
		>"$out" 2>"$tmp/$fx.err"
	local rc=$?
	grep -v 'Running as user' "$tmp/$fx.err" >"$tmp/$fx.err2"
	if [ "$rc" -ne 0 ] || [ -s "$tmp/$fx.err2" ]; then
		ktap_test_fail "wireshark: $fx: decode" "tshark exit $rc: $(head -c 300 "$tmp/$fx.err2")"
		return 1
	fi
	[ -s "$out" ] || { ktap_test_fail "wireshark: $fx: decode" "the dissector annotated no frame"; return 1; }
	return 0
}

# value KEY LINE: the column of KEY in a decoded line
value() {
	local i
	for i in "${!keys[@]}"; do
		[ "${keys[$i]}" = "$1" ] && { cut -f $((i + 1)) <<<"$2"; return; }
	done
	echo "?unknown key $1"
}

# check_frame FIXTURE FRAME KEY=VALUE...  ($label: see the main loop)
check_frame() {
	local fx=$1 fr=$2 line kv k want got bad=""
	shift 2
	line=$(awk -F'\t' -v f="$fr" '$1 == f' "$tmp/$fx.tsv")
	if [ -z "$line" ]; then
		ktap_test_fail "wireshark: $fx: frame $fr" "not decoded"
		return
	fi
	for kv in "$@"; do
		k=${kv%%=*} want=${kv#*=}
		got=$(value "$k" "$line")
		[ "$got" = "$want" ] || bad="$bad $k=$got (expected $want)"
	done
	if [ -z "$bad" ]; then
		ktap_test_pass "wireshark: $fx: frame $fr $(value role "$line" | cut -d' ' -f1) $*${label:+ ($label)}"
	else
		ktap_test_fail "wireshark: $fx: frame $fr${label:+ ($label)}" "${bad# }"
	fi
}

# check_sends FIXTURE [REPFRAME] KEY=VALUE...  (REPFRAME empty: all)
check_sends() {
	local fx=$1 rep=$2 kv k want got bad="" summary
	shift 2
	summary=$(awk -F'\t' -v dcol=17 -v lcol=18 -v tcol=19 -v icol=20 -v wcol=16 -v rcol=21 \
			-v ccol=22 -v rep="$rep" '
		$dcol == "" { next }
		{
			ns = split($dcol, d, ","); split($lcol, l, ","); split($tcol, t, ",")
			split($icol, v, ","); split($rcol, x, ","); split($ccol, c, ",")
			fresh = 0
			for (j = 1; j <= ns; j++) {
				if (rep != "" && c[j] != rep) continue
				if (x[j] == "1" || x[j] == "True") { rexmit++; continue }
				fresh++
				n[d[j]]++
				if (l[j] + 0 > max[d[j]]) max[d[j]] = l[j] + 0
				thr[d[j]] = thr[d[j]] == "" || thr[d[j]] == t[j] ? t[j] : "mixed"
				if (v[j] == "1" || v[j] == "True") swi++
			}
			if (fresh == 0) next
			k = split($wcol, w, ",")
			for (i = 1; i <= k; i++) warn[w[i]]++
		}
		END {
			printf "c2s=%d s2c=%d swi=%d max-c2s=%d max-s2c=%d thr-c2s=%s thr-s2c=%s",
				n["c2s"], n["s2c"], swi, max["c2s"], max["s2c"], thr["c2s"], thr["s2c"]
			printf " send-too-large=%d inv-not-negotiated=%d inv-from-client=%d rexmit=%d\n",
				warn["send-too-large"], warn["inv-not-negotiated"], warn["inv-from-client"], rexmit
		}' "$tmp/$fx.tsv")
	for kv in "$@"; do
		k=${kv%%=*} want=${kv#*=}
		got=$(tr ' ' '\n' <<<"$summary" | sed -n "s/^$k=//p")
		[ "$got" = "$want" ] || bad="$bad $k=${got:-?} (expected $want)"
	done
	local what="sends${rep:+ of the connection of frame $rep}"
	if [ -z "$bad" ]; then
		ktap_test_pass "wireshark: $fx: $what $*${label:+ ($label)}"
	else
		ktap_test_fail "wireshark: $fx: $what${label:+ ($label)}" "${bad# }"
	fi
}

declare -A decoded=()
while read -r fx what rest; do
	case "$fx" in ''|'#'*) continue ;; esac
	if [ -z "${decoded[$fx]:-}" ]; then
		decoded[$fx]=ok
		decode "$fx" || decoded[$fx]=bad
	fi
	[ "${decoded[$fx]}" = ok ] || continue
	label=""
	if [[ "$rest" == *"#"* ]]; then
		label=${rest#*#} rest=${rest%%#*}
		label=${label# }
	fi
	# shellcheck disable=SC2086
	case "$what" in
	sends) check_sends "$fx" "" $rest ;;
	sends@*) check_sends "$fx" "${what#sends@}" $rest ;;
	*) check_frame "$fx" "$what" $rest ;;
	esac
done <"$expect"
[ ${#decoded[@]} -gt 0 ] || ktap_test_fail "wireshark: fixtures" "no expectation in $expect"
ktap_finished
