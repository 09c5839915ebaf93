#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The interoperability matrix: our kernel against Debian's stock 6.12 in
# two linked guests, both roles, with RFC 8797 private data on and off.
# Each cell runs mount, fio with verify, small files and a dmesg check
# for NFSv3 and NFSv4.2, and asserts what the Send With Invalidate and
# LOCAL_INV counters of both sides must show for that pairing (see the
# legend written under the table).  Prints a markdown table and saves it
# as $CACHE/interop/matrix.md (--quick: matrix-quick.md; not copied when
# RFC8797_INJECT is set).  Exit status 0 only when every cell passed.
#
#   interop-matrix.sh [--quick] [--results-file FILE]
#   interop-matrix.sh [--quick] --list   the cells' names, and nothing run
#   --quick: make check's subset, NFSv4.2: our client against the stock
#            server (which advertises R=0 at 4 KiB and still sends Send
#            With Invalidate) and the stock client at 1500/3000 inline
#            against ours (it advertises its sizes rounded down to
#            1024/2048 and sends up to 1500); on mainline also our 6.12
#            client against our server
#   INTEROP_CELLS=REGEX in the environment runs only the matching cells,
#   e.g. INTEROP_CELLS=dkms: the cells of "dkms", Debian's stock kernel
#   with our rpcrdma.ko from the DKMS package (make dkms), against a fully
#   stock peer in both roles; INTEROP_CELLS=trixie: Debian 13's kernel
#   with the module DKMS built on a trixie root (trixie.sh), both roles,
#   against Debian's 6.12 and 7.3 (trixie-7.3: the 7.3 package on the
#   backports kernel); INTEROP_CELLS=stock-7.3: Debian 13's backports
#   7.3 as Debian ships it (stock.sh stock-7.3) against ours;
#   INTEROP_VERSIONS="4.2" runs only those NFS versions
#
# Each cell adds KTAP results "interop CELL nfsV" (mount, I/O, dmesg)
# and "interop CELL nfsV counters" to FILE (for check.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1
check_inject
[ -z "${INTEROP_CELL_RETRIES+x}${INTEROP_RUN_RETRIES+x}" ] ||
	die "INTEROP_CELL_RETRIES and INTEROP_RUN_RETRIES are gone: DEBIAN_RETRIES, DEBIAN_RUN_RETRIES (make help)"

quick=0 rfile="" list=0
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; shift ;;
	--list) list=1; shift ;;
	--results-file) rfile=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done
if [ -n "$rfile" ]; then
	: >"$rfile"
	ktap_open "$rfile"
	ktap_print_header >/dev/null
fi
out=$CACHE/interop/$(date +%Y%m%d-%H%M%S)
[ "$list" = 1 ] || mkdir -p "$out"
vers=(3 4.2)
# name server-kernel client-kernel server-args client-args expect
# expect: swi = the server must use Send With Invalidate (our server with
# R negotiated, or the stock server, which uses it whenever the client
# set R although it answers R=0); none = it must not (private data off
# on either side: R is not negotiated, and the stock server sees no R);
# swi-mixed = swi, but the client's Receive size is so small that its
# NFSv4.2 READs carry a Reply chunk next to the Write chunk: two rkeys,
# so those replies go by plain Send and the client invalidates locally;
# inline = both peers at the 8 KiB defaults: 4 KiB I/O needs no chunk, so
# fio's 4096 RPCs register (and invalidate) no memory: fewer than 200
# invalidations of either kind in the counted phases (only small files
# over 8 KiB carry a chunk), R negotiated
# make check's (--quick) first: each pairing below costs it about three
# minutes on CI's two cores.  The stock client at its defaults, ours/ours
# and the cells of Debian's 7.3 are in the full matrix only: the stock
# client at 1500/3000 takes our server through a stock client's message
# and past its rounded-down sizes, and Debian's 7.3 server answers our
# client as Debian's 6.12 does (upstream's server changed little there).
# The cells whose peer sends no private data at all (-no-pd) are the
# full matrix's.
cells=(
	"ours-client/stock-server stock ours - - swi"
	"stock-client-w1500-r3000/ours-server ours stock - --inline=1500:3000 swi"
)
[ "$quick" = 1 ] || cells+=("stock-client/ours-server ours stock - - swi")
# ours/ours in the full matrix only: make check's e2e and nfstest stages
# pair our kernel with itself throughout
[ "$quick" = 1 ] || cells+=("ours/ours ours ours - - inline")
# The base's own cells (data/bases/BASE: INTEROP_QUICK_CELLS, and in the full
# matrix INTEROP_FULL_CELLS), e.g. mainline's across versions
mapfile -t -O ${#cells[@]} cells < <(printf '%s\n' "$INTEROP_QUICK_CELLS" | grep .)
[ "$quick" = 1 ] || mapfile -t -O ${#cells[@]} cells < <(printf '%s\n' "$INTEROP_FULL_CELLS" | grep .)
# --quick runs NFSv4.2 alone (Debian's own 7.3 with NFSv3 too until
# 2026-11-29: make check's nfstest stage now runs NFSv3 over RDMA with
# nfstest_rdma's wire checks, and the time went to it)
if [ "$quick" = 1 ]; then
	vers=(4.2)
fi
# shellcheck disable=SC2206	# a list of words
[ -z "${INTEROP_VERSIONS:-}" ] || vers=($INTEROP_VERSIONS)
if [ "$quick" != 1 ]; then
	cells+=(
		"stock-client-w1500-r1500/ours-server ours stock - --inline=1500:1500 swi-mixed"
		"stock-client-w5000-r5000/ours-server ours stock - --inline=5000:5000 swi"
		"ours/ours-client-4k ours ours - --inline=4096:4096 swi"
		"ours-client/ours-server-no-pd ours ours --no-private-data - none"
		"ours-client-no-pd/ours-server ours ours - --no-private-data none"
		"ours-client-no-pd/stock-server stock ours - --no-private-data none"
		"stock-client/ours-server-no-pd ours stock --no-private-data - none"
		"dkms-client/stock-server stock dkms - - swi"
		"stock-client/dkms-server dkms stock - - swi"
		"trixie-client/stock-server stock trixie - - swi"
		"stock-client/trixie-server trixie stock - - swi"
		"trixie-client/stock-7.3-server stock-7.3 trixie - - swi"
		"stock-7.3-client/trixie-server trixie stock-7.3 - - swi"
		"trixie-7.3-client/stock-server stock trixie-7.3 - - swi"
		"stock-client/trixie-7.3-server trixie-7.3 stock - - swi"
	)
fi
inject=${RFC8797_INJECT:-}
if [ "$list" = 1 ]; then
	for cell in "${cells[@]}"; do
		read -r name _ <<<"$cell"
		[[ ! "$name" =~ ${INTEROP_CELLS:-.} ]] || echo "$name"
	done
	exit 0
fi

# is_ours KERNEL: our rpcrdma runs there (data/kernels/: RPCRDMA=ours): our
# kernel, or "dkms", the stock kernel with our module from the DKMS
# package.  A dkms client has every view of ours but the sysfs xprt_info
# fields, whose commits cannot be in a module (see dkms/README.rst).
is_ours() { kernel_is "$1" rpcrdma=ours; }

# "dkms" (FETCH=dkms) boots the stock kernel with updates/dkms/rpcrdma.ko
# built from the package: when a selected cell has it, build the package and lay the
# modules out first; if that fails, those cells fail and the others run
dkms_err=""
for cell in "${cells[@]}"; do
	read -r name skern ckern _ <<<"$cell"
	[[ "$name" =~ ${INTEROP_CELLS:-.} ]] || continue
	kernel_is "$skern" fetch=dkms || kernel_is "$ckern" fetch=dkms || continue
	msg "building the DKMS package and its module for $STOCK_KREL (log: $out/dkms.log)"
	# the package is that of the base whose DKMS_STOCK_KERNEL is dkms,
	# whichever base this run is on
	b=$(base_with DKMS_STOCK_KERNEL dkms)
	if ! (export RFC8797_BASE=$b RFC8797_BASE_RESOLVED=""
	      "$RFC_HARNESS/deps.sh" dkms && deb=$("$RFC_HARNESS/dkms.sh" package) &&
	      "$RFC_HARNESS/dkms.sh" modules "$deb" "$STOCK_KREL") >"$out/dkms.log" 2>&1; then
		dkms_err="the DKMS package or its module for $STOCK_KREL failed, see $out/dkms.log"
		msg "$dkms_err"
	fi
	break
done
# "trixie" boots Debian 13's kernel on the trixie root with the package
# installed by DKMS there (trixie.sh; check.sh's trixie stage has done
# it when it sets TRIXIE_PREPARED); "trixie-7.3" the same with the 7.3
# package (mainline's) on the backports kernel, a work root of its own
declare -A trixie_err=()
for tb in $(base_names); do
	tk=$(base_value "$tb" DKMS_TRIXIE_KERNEL)
	[ -n "$tk" ] || continue
	for cell in "${cells[@]}"; do
		read -r name skern ckern _ <<<"$cell"
		[[ "$name" =~ ${INTEROP_CELLS:-.} ]] || continue
		[ "$skern" = "$tk" ] || [ "$ckern" = "$tk" ] || continue
		[ -z "${TRIXIE_PREPARED:-}" ] || break
		msg "installing the $tb DKMS package on the trixie root (log: $out/$tk.log)"
		if ! (export RFC8797_BASE=$tb RFC8797_BASE_RESOLVED=""
		      "$RFC_HARNESS/deps.sh" trixie && deb=$("$RFC_HARNESS/dkms.sh" package) &&
		      "$RFC_HARNESS/trixie.sh" root && "$RFC_HARNESS/trixie.sh" install "$deb" &&
		      grep -q '^# trixie install: ' "$out/$tk.log") >"$out/$tk.log" 2>&1; then
			trixie_err[$tk]="the $tb DKMS package on the trixie root failed, see $out/$tk.log"
			msg "${trixie_err[$tk]}"
		fi
		break
	done
done

table=$out/matrix.md
{
	echo "Interoperability matrix, $(date -u +%Y-%m-%d), base $BASE_PKG_VERSION, stock kernel $STOCK_KREL (dkms: that kernel with our rpcrdma.ko from the DKMS package), soft-RoCE (rxe), two linked QEMU guests${inject:+ (RFC8797_INJECT=$inject: broken on purpose)}"
	echo
	echo "| cell | NFS | mount | fio verify | large I/O | small files | dmesg (both) | client view | server view | client LOCAL_INV / RI / unexp / stray | server SWI / plain | counters |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$table"

# add A B: the sum, "na" if either is
add() { case "$1$2" in *na*) echo na ;; *) echo $(($1 + $2)) ;; esac; }
known() { [ "$1" != na ]; }
status_name() {
	case "$1" in
	0) echo found ;; 1) echo absent ;; 2) echo truncated ;; 3) echo bad-version ;; *) echo "$1" ;;
	esac
}

# sub A B: A - B, "na" if either is
sub() { case "$1$2" in *na*) echo na ;; *) echo $(($1 - $2)) ;; esac; }

# counters OUT DIR V EXPECT CLIENT_KERNEL SERVER_KERNEL: for one NFS
# version of one cell, from the snapshots both guests took before each
# mount and before each unmount (guest/interop-client.sh,
# guest/interop-server.sh), fills the caller's associative array named
# OUT: ccol and scol (the table's counter columns), sview (the server
# view), clast (the client's last counters line) and verdict ("pass" or
# why it fails).  Client
# mountstats counters are per mount (a fresh transport each time), the
# server's and the tracepoint counts are differences from the snapshot
# taken before that mount.
counters() {
	local -n _out=$1
	local dir=$2 v=$3 expect=$4 ckern=$5 skern=$6 tag c c0 s s0 miss x
	local li=0 ri=0 un=0 mm=0 reminv=0 inv=0 plain=0 tswi=0 tplain=0
	local pri pinv ptswi prem pswi swi why=() clast="" sline="" ccol scol sview
	_out=()
	for tag in fio read; do
		c=$(grep "^tag=nfs$v-$tag " "$dir/client/counters.txt" 2>/dev/null | tail -n 1)
		c0=$(grep "^tag=nfs$v-$tag-start " "$dir/client/counters.txt" 2>/dev/null | tail -n 1)
		s=$(grep "^tag=nfs$v-$tag " "$dir/server/server-snaps.txt" 2>/dev/null | tail -n 1)
		s0=$(grep "^tag=nfs$v-$tag-start " "$dir/server/server-snaps.txt" 2>/dev/null | tail -n 1)
		if [ -z "$c" ] || [ -z "$c0" ] || [ -z "$s" ] || [ -z "$s0" ]; then
			miss=""
			for x in c c0 s s0; do
				[ -n "${!x}" ] && continue
				case $x in
				c) miss+=" client:nfs$v-$tag" ;; c0) miss+=" client:nfs$v-$tag-start" ;;
				s) miss+=" server:nfs$v-$tag" ;; s0) miss+=" server:nfs$v-$tag-start" ;;
				esac
			done
			why+=("snapshots missing:$miss")
			li=na ri=na un=na mm=na reminv=na inv=na plain=na tswi=na tplain=na
			continue
		fi
		pri=$(field ri "$c" na)
		pinv=$(sub "$(field send_inv "$s" na)" "$(field send_inv "$s0" na)")
		ptswi=$(sub "$(field trace_swi "$s" na)" "$(field trace_swi "$s0" na)")
		prem=$(sub "$(field reminv "$c" na)" "$(field reminv "$c0" na)")
		li=$(add "$li" "$(field li "$c" na)") ri=$(add "$ri" "$pri")
		un=$(add "$un" "$(field un "$c" na)") mm=$(add "$mm" "$(field mm "$c" na)")
		inv=$(add "$inv" "$pinv") tswi=$(add "$tswi" "$ptswi") reminv=$(add "$reminv" "$prem")
		plain=$(add "$plain" "$(sub "$(field send_plain "$s" na)" "$(field send_plain "$s0" na)")")
		tplain=$(add "$tplain" "$(sub "$(field trace_plain "$s" na)" "$(field trace_plain "$s0" na)")")
		# exact per mount: the client sent no RPC while the server counted
		if known "$pinv" && known "$ptswi" && [ "$pinv" != "$ptswi" ]; then
			why+=("$tag: server counter send_inv +$pinv but $ptswi svcrdma_post_send with an inv_rkey")
		fi
		pswi=$pinv
		known "$pswi" || pswi=$ptswi
		if known "$pswi" && known "$pri" && [ "$pri" != "$pswi" ]; then
			why+=("$tag: client counted $pri invalidating replies, server sent $pswi")
		fi
		if known "$pswi" && known "$prem" && [ "$prem" != "$pswi" ]; then
			why+=("$tag: client traced $prem remote invalidations, server sent $pswi")
		fi
		clast=$c sline=${s#*| }
	done
	# the server's Send With Invalidate count: its counter where it has
	# one (ours), else its svcrdma_post_send tracepoints (stock)
	swi=$inv
	known "$swi" || swi=$tswi
	if known "$ri" || ! known "$reminv"; then
		ccol="$li / $ri / $un / $mm"
	else
		ccol="$li / $reminv (trace) / n/a / n/a"
	fi
	if known "$inv"; then scol="$inv / $plain"; else scol="$tswi / $tplain (trace)"; fi
	sview="n/a (stock)"
	if is_ours "$skern"; then
		if [ -n "$sline" ] && [ "$sline" != "n/a (stock)" ]; then
			sview="$(field status "$sline" na) client_r=$(field client_r "$sline" na) server_r=$(field server_r "$sline" na) c2s/s2c=$(field c2s "$sline" na)/$(field s2c "$sline" na) r=$(field r "$sline" na)"
		else
			sview=n/a
			why+=("our server listed no connection while the client was connected")
		fi
	fi

	# what must hold in every cell
	if known "$mm" && [ "$mm" != 0 ]; then why+=("$mm stray invalidations"); fi
	case "$expect" in
	swi|swi-mixed)
		known "$swi" && [ "$swi" -gt 0 ] || why+=("no Send With Invalidate ($swi)")
		# remote invalidation replaces LOCAL_INV: at most one per
		# hundred, unless the client's small Receive size makes it ask
		# for Reply chunks next to data chunks (swi-mixed): the server
		# then sees two rkeys and leaves both to the client
		if [ "$expect" = swi ] && known "$li" && known "$swi" &&
		   [ $((li * 100)) -gt "$swi" ]; then
			why+=("$li LOCAL_INVs for $swi remotely invalidated replies")
		fi
		if known "$un" && kernel_is "$skern" rpcrdma=stock; then
			# stock, and the base (upstream without the series),
			# answer R=0 and invalidate all the same
			[ "$un" = "$ri" ] || why+=("$un of $ri invalidations counted as not negotiated, want all")
		elif known "$un"; then
			[ "$un" = 0 ] || why+=("$un invalidations counted as not negotiated, want 0")
		fi
		if is_ours "$skern" && [ "$(field r "$sline" na)" != 1 ]; then
			why+=("server r=$(field r "$sline" na), want 1")
		fi
		;;
	inline)
		if known "$li" && known "$ri"; then
			[ $((li + ri)) -lt 200 ] ||
				why+=("$li LOCAL_INVs and $ri remote invalidations: 4 KiB I/O was not inline")
		else
			why+=("the client's invalidation counters are missing")
		fi
		[ "$(field r "$sline" na)" = 1 ] || why+=("server r=$(field r "$sline" na), want 1")
		;;
	none)
		[ "$swi" = 0 ] || why+=("Send With Invalidate used ($swi) without R")
		if known "$ri" && [ "$ri" != 0 ]; then why+=("client saw $ri invalidating replies"); fi
		# fio alone registers memory for 2048 4 KiB writes and as many
		# verify reads, none of which fits inline at these thresholds
		known "$li" && [ "$li" -ge 2048 ] || why+=("client posted only $li LOCAL_INVs, want >= 2048")
		if is_ours "$skern" && [ "$(field r "$sline" na)" != 0 ]; then
			why+=("server r=$(field r "$sline" na), want 0")
		fi
		;;
	esac
	# ours on both sides: both views of the negotiation agree (a dkms
	# client has no sysfs view to compare)
	if is_ours "$skern" && [ "$ckern" = ours ] && [ -n "$clast" ] && [ -n "$sline" ]; then
		c="$(field c2s "$clast" na)/$(field s2c "$clast" na)/$(field rneg "$clast" na)"
		s="$(field c2s "$sline" na)/$(field s2c "$sline" na)/$(field r "$sline" na)"
		[ "$c" = "$s" ] || why+=("client c2s/s2c/R $c, server $s")
	fi
	_out[ccol]=$ccol _out[scol]=$scol _out[sview]=$sview _out[clast]=$clast
	if [ ${#why[@]} = 0 ]; then
		_out[verdict]=pass
	else
		_out[verdict]=$(IFS=';'; echo "${why[*]}")
		_out[verdict]=${_out[verdict]//;/; }
	fi
}

# A cell whose stock guest had trouble and ours none (stock_trouble in
# lib.sh) runs again as lib.sh's retry_spoiled allows, and every retry is
# reported; a crash in our kernel is never retried.
retried=() nrun=0

# cell_run: one attempt of the cell $name (the loop's variables) in $dir
cell_run() {
	local t=$SECONDS rc
	msg "interop cell $name (${vers[*]})$([ "$RETRY_ATTEMPT" = 1 ] || echo ", attempt $RETRY_ATTEMPT")"
	# RFC8797_INJECT=stock-boot-crash: only the first boot of a client on
	# Debian's kernel crashes (two-guest.sh gives the client the inject)
	# shellcheck disable=SC2086
	RFC8797_INJECT=$(boot_inject kernel_is "$ckern" debian=yes) \
		"$RFC_HARNESS/two-guest.sh" --results "$dir" "$skern" "$ckern" ${sargs:+--server-args "$sargs"} \
		--prefix x $cargs "${vers[@]}" >"$dir.log" 2>&1
	rc=$?
	msg "  $name: exit $rc in $((SECONDS - t)) s"
	return "$rc"
}

# not_run FAIL|SKIP WHY: the cell $name did not run: a table row and a
# result (a failure, or a skip, which check.sh does not count as
# passed) for each version
not_run() {
	local v
	for v in "${vers[@]}"; do
		echo "| $name | $v | not run | | | | | | | | | $1: $2 |" >>"$table"
		if [ "$1" = SKIP ]; then
			ktap_test_skip "interop $name nfs$v" "$2" >&2
		else
			ktap_test_fail "interop $name nfs$v" "$2" >&2
		fi
	done
}

# cell_setup CELL: the cell's variables (name, skern, ckern, sargs,
# cargs, expect, dir); fails when INTEROP_CELLS leaves it out;
# sets perr and missing when it cannot run (not_run's FAIL and SKIP)
cell_setup() {
	local k
	read -r name skern ckern sargs cargs expect <<<"$1"
	# INTEROP_CELLS=REGEX: only the cells whose name matches
	[[ "$name" =~ ${INTEROP_CELLS:-.} ]] || return 1
	[ "$sargs" = - ] && sargs=""
	[ "$cargs" = - ] && cargs=""
	dir=$out/${name//\//_}
	perr="" missing=""
	for k in "$skern" "$ckern"; do
		! kernel_is "$k" fetch=dkms || perr=$dkms_err
		[ -z "${trixie_err[$k]:-}" ] || perr=${trixie_err[$k]}
		# a kernel of another base that was not built: skipped, which
		# check.sh does not count as passed
		if [[ "$k" == ours-* ]] && base_file "${k#ours-}" >/dev/null; then
			kernel_info "$k" && [ -f "$K_IMAGE" ] ||
				missing="no $k kernel: make build BASE=${k#ours-}"
		fi
	done
}

# The cells run INTEROP_JOBS at a time (default 1), each retried as
# retry_spoiled allows, its exit status in DIR.rc; the table and the
# results then follow the cells' order.  Two at a time is no faster on
# two cores: the quick mainline matrix took 790 s so, 754 s one by one
# (four guests on two cores; Debian's 7.3 cells 335 s each instead of
# 117 and 160).
INTEROP_JOBS=${INTEROP_JOBS:-1}
debian_budget "$out"
start=$SECONDS pids=()
for cell in "${cells[@]}"; do
	cell_setup "$cell" || continue
	[ -z "$perr" ] && [ -z "$missing" ] || continue
	rm -f "$dir.retry" "$dir.rc"
	wait_for_slot "$INTEROP_JOBS" "${pids[@]}"
	(
		RETRY_LOG=$dir.retry retry_spoiled "$dir" "stock_trouble_of $skern $ckern" \
			"interop $name" cell_run
		echo $? >"$dir.rc"
	) &
	pids+=($!)
done
[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"
for cell in "${cells[@]}"; do
	cell_setup "$cell" || continue
	nrun=$((nrun + 1))
	if [ -n "$perr" ]; then
		not_run FAIL "$perr"
		continue
	fi
	if [ -n "$missing" ]; then
		not_run SKIP "$missing"
		continue
	fi
	rc=$(cat "$dir.rc" 2>/dev/null) || rc=125
	if [ -f "$dir.retry" ]; then
		[ -z "$rfile" ] || cat "$dir.retry" >>"$rfile"
		while IFS= read -r line; do retried+=("${line#\# }"); done <"$dir.retry"
	fi
	# both guests' results as ktap.py reads them: "ok NAME", "not ok NAME
	# # REASON" (a guest that stopped early: "not ok SCRIPT: finished")
	for role in server client; do
		ktap_flat "$dir/$role/tests.ktap" >"$dir/$role.results"
	done
	for v in "${vers[@]}"; do
		col() {	# col TEST...: pass when every x-nfsV-TEST passed
			local t st=pass
			for t in "$@"; do
				if grep -qE "^not ok ([^#]*: )?x-nfs$v-$t( #|\$)" "$dir/client.results"; then
					st=FAIL
				elif ! grep -qE "^ok ([^#]*: )?x-nfs$v-$t\$" "$dir/client.results"; then
					[ "$st" = FAIL ] || st="not run"
				fi
			done
			echo "$st"
		}
		dm=pass
		grep -q '^not ok' "$dir/server.results" && dm=FAIL
		grep -qE '^not ok ([^#]*: )?x-client-dmesg' "$dir/client.results" && dm=FAIL
		[ -f "$dir/server/rc" ] && [ -f "$dir/client/rc" ] || dm="guest died"
		declare -A cnt
		counters cnt "$dir" "$v" "$expect" "$ckern" "$skern"
		# the client's view: its xprtrdma_inline_thresh tracepoint and,
		# for our client, R offered/negotiated and the parse status
		cview=$(awk -v v="$v" '/^== client view, nfs / { on = ($5 == v) } on' \
			"$dir/client/client-view.txt" 2>/dev/null | grep -m1 -oE 'neg send/recv=[0-9]+/[0-9]+')
		clast=${cnt[clast]}
		if [ -n "$clast" ] && [ "$(field roff "$clast" na)" != na ]; then
			cview="${cview:-n/a}, R offered/neg=$(field roff "$clast" na)/$(field rneg "$clast" na), $(status_name "$(field st "$clast" na)")"
		fi
		cv=pass
		[ "${cnt[verdict]}" = pass ] || cv="FAIL: ${cnt[verdict]}"
		row="| $name | $v | $(col mount) | $(col fio-verify) | $(col large-io-1m large-io-256k) | $(col small-files) | $dm | ${cview:-n/a} | ${cnt[sview]} | ${cnt[ccol]} | ${cnt[scol]} | $cv |"
		echo "$row" >>"$table"
		verdict=pass
		case "$(col mount fio-verify large-io-1m large-io-256k small-files) $dm" in
		*FAIL*|*"not run"*|*"guest died"*) verdict=fail ;;
		esac
		grep -qE "^not ok ([^#]*: )?(x-nfs$v-|x-client|finished)" "$dir/client.results" &&
			verdict=fail
		[ "$rc" = 0 ] || verdict=fail
		if [ "$verdict" = pass ]; then
			ktap_test_pass "interop $name nfs$v" >&2
		else
			# the first failed test of this version (or of the guests)
			first=$(grep -h -m1 -E "^not ok ([^#]*: )?(x-nfs$v-|x-client|server|finished)" \
				"$dir/client.results" "$dir/server.results" | head -n 1)
			first=$(echo "$first" | sed -E 's/^not ok //; s/ # /: /')
			for role in server client; do
				c=$(guest_trouble "$dir" "$role")
				[ -z "$c" ] || first="the $role guest $c"
			done
			[ -n "$first" ] || first="server guest exit $(cat "$dir/server.exit" 2>/dev/null)"\
", client guest exit $(cat "$dir/client.exit" 2>/dev/null), no failed test"
			ktap_test_fail "interop $name nfs$v" "$first, see $dir" >&2
		fi
		if [ "${cnt[verdict]}" = pass ]; then
			ktap_test_pass "interop $name nfs$v counters" >&2
		else
			ktap_test_fail "interop $name nfs$v counters" "${cnt[verdict]}" >&2
		fi
	done
done
cat >>"$table" <<EOF

Wall time: $((SECONDS - start)) s for $nrun of ${#cells[@]} cells.
$(for l in "${retried[@]}"; do printf '\n%s\n' "$l"; done)

"client view": the client's \`xprtrdma_inline_thresh\` tracepoint, and for
our client R offered/negotiated and the parse status (its sysfs xprt_info);
"server view": our server's connection line (nfsd's netlink dump rdma-conn-get, or 6.12's procfs file), read while the
client was connected (the stock server has no such file).  Counters are
summed over the fio mount and the read-back mount of each NFS version,
from snapshots both sides take before each mount and before each unmount
(the server's on request over plain TCP, while no RPC runs):
LOCAL_INV = mountstats field 27 (both kernels); RI / unexp / stray =
fields 30 / 31 / 32, replies with a remote invalidation, of those not
negotiated, stray invalidations (our client; for the stock client RI is its
\`xprtrdma_mr_reminv\` tracepoint count); server SWI / plain = replies
by Send With Invalidate and by plain Send: our server's
\`rdma_stat_send_inv\` / \`rdma_stat_send_plain\`, for the stock server
its \`svcrdma_post_send\` tracepoint (inv_rkey set or not).  "counters"
asserts: SWI > 0 where the cell expects it (R on both sides, or a stock
server and a client that set R) with at most one LOCAL_INV per hundred
invalidated replies; where it expects none, no SWI and at least 2048
LOCAL_INVs; "inline" (ours at the 8 KiB defaults on both sides): fewer
than 200 invalidations of either kind, fio's 4 KiB I/O needing none; per
mount, the client counts (field 30 and its tracepoint) exactly the
invalidations the server sent, and our server's counter equals its
tracepoint; no stray invalidation; a stock server's invalidations all counted
as not negotiated, ours none; our two peers agree on c2s, s2c and R.
"dkms" is Debian's stock kernel with our rpcrdma.ko from the DKMS package
in updates/dkms: its server is checked as ours; its client has no sysfs
xprt_info fields (their commits cannot be in a module), so its R and
status come from its xprtrdma_cm_private and xprtrdma_inline_thresh
events instead (xprt_info in guest/lib-nfs.sh).  "trixie" is Debian 13's 6.12 kernel
with the module DKMS built on a trixie root (trixie.sh), that root's
userland in the guest; checked as "dkms" is; "trixie-7.3" is Debian 13's
backports 7.3 with the module of the 7.3 package (the mainline series)
built the same way.  "stock-7.3" is Debian 13's backports 7.3 as Debian
ships it (linux-image-$(kernel_info stock-7.3 && echo "$K_KREL")), checked as "stock" is.
EOF
if [ -n "$inject" ]; then
	msg "RFC8797_INJECT=$inject: the table is not copied to $CACHE/interop/"
elif [ -n "${INTEROP_CELLS:-}${INTEROP_VERSIONS:-}" ]; then
	msg "a part of the matrix: the table is not copied to $CACHE/interop/"
elif [ "$quick" = 1 ]; then
	cp "$table" "$CACHE/interop/matrix-quick.md"
else
	cp "$table" "$CACHE/interop/matrix.md"
fi
cat "$table"
# every cell's verdict is a result: the run passes when none failed and
# none was skipped (a kernel of the other base not built)
[ "$KTAP_CNT_FAIL" = 0 ] && [ "$KTAP_CNT_SKIP" = 0 ]
