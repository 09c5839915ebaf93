#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The interoperability matrix: our kernel against Debian's stock 6.12 in
# two linked guests, both roles, with RFC 8797 private data on and off.
# Prints a markdown table and saves it as $CACHE/interop/matrix.md.
#
#   interop-matrix.sh [--quick] [--results-file FILE]
#   --quick: only ours<->stock both ways, NFSv4.2 (the make check subset)
#
# Each cell appends PASS/FAIL lines to FILE (for check.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

quick=0 rfile=""
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; shift ;;
	--results-file) rfile=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done
out=$CACHE/interop/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
vers=(3 4.2)
# name server-kernel client-kernel server-args client-args
cells=(
	"ours-client/stock-server stock ours - -"
	"stock-client/ours-server ours stock - -"
)
if [ "$quick" = 1 ]; then
	vers=(4.2)
else
	cells+=(
		"ours/ours ours ours - -"
		"ours-client/ours-server-no-pd ours ours --no-private-data -"
		"ours-client-no-pd/ours-server ours ours - --no-private-data"
		"ours-client-no-pd/stock-server stock ours - --no-private-data"
		"stock-client/ours-server-no-pd ours stock --no-private-data -"
	)
fi

table=$out/matrix.md
{
	echo "Interoperability matrix, $(date -u +%Y-%m-%d), base $BASE_PKG_VERSION, stock kernel $STOCK_KREL, soft-RoCE (rxe), two linked QEMU guests"
	echo
	echo "| cell | NFS | mount | fio verify | small files | dmesg (both) | client view | server view |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$table"

start=$SECONDS
for cell in "${cells[@]}"; do
	read -r name skern ckern sargs cargs <<<"$cell"
	[ "$sargs" = - ] && sargs=""
	[ "$cargs" = - ] && cargs=""
	dir=$out/${name//\//_}
	t=$SECONDS
	msg "interop cell $name (${vers[*]})"
	# shellcheck disable=SC2086
	"$RFC_HARNESS/interop.sh" --results "$dir" "$skern" "$ckern" ${sargs:+--server-args "$sargs"} \
		--prefix x $cargs "${vers[@]}" >"$dir.log" 2>&1
	rc=$?
	msg "  $name: exit $rc in $((SECONDS - t)) s"
	for v in "${vers[@]}"; do
		col() {
			grep -q "^PASS x-nfs$v-$1\$" "$dir/client/tests.txt" 2>/dev/null && echo pass && return
			grep -q "^FAIL x-nfs$v-$1" "$dir/client/tests.txt" 2>/dev/null && echo FAIL && return
			echo "not run"
		}
		dm=pass
		grep -q '^FAIL' "$dir/server/tests.txt" 2>/dev/null && dm=FAIL
		grep -q '^FAIL x-client-dmesg' "$dir/client/tests.txt" 2>/dev/null && dm=FAIL
		[ -f "$dir/server/rc" ] && [ -f "$dir/client/rc" ] || dm="guest died"
		cview=$(grep -m1 -oE '(neg send/recv=[0-9]+/[0-9]+|c2s=[^ ]+ s2c=[^ ]+( [a-z_]+=[^ ]+)*)' \
			"$dir/client/client-view.txt" 2>/dev/null | head -n 1)
		sview=$(grep -m1 -vE '^#' "$dir/server/server-view.txt" 2>/dev/null | cut -c1-80)
		row="| $name | $v | $(col mount) | $(col fio-verify) | $(col small-files) | $dm | ${cview:-n/a} | ${sview:-n/a} |"
		echo "$row" >>"$table"
		verdict=pass
		case "$row" in *FAIL*|*"not run"*|*"guest died"*) verdict=fail ;; esac
		[ "$rc" = 0 ] || verdict=fail
		if [ -n "$rfile" ]; then
			if [ "$verdict" = pass ]; then echo "PASS interop $name nfs$v" >>"$rfile"
			else echo "FAIL interop $name nfs$v: see $dir" >>"$rfile"; fi
		fi
	done
done
echo >>"$table"
echo "Wall time: $((SECONDS - start)) s for ${#cells[@]} cells." >>"$table"
cp "$table" "$CACHE/interop/matrix.md"
cat "$table"
! grep -qE 'FAIL|not run|guest died' "$table"
