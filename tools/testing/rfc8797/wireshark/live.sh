#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The live-capture test of the RFC 8797 Wireshark dissector
# (tools/testing/rfc8797/wireshark/rpcrdma_cm.lua): two guests, a
# capture of the link between them, and tshark's decoding of every
# RPC-over-RDMA connection in it compared with what both peers reported
# for that connection while it was up.
#
#   live.sh [--results DIR] [--timeout SEC] [--again] [CASE...]
#
# Cases (default: the first three):
#   ours-ours                 our server and client, the kernels' default
#                             sizes (8 KiB)
#   stock-server-ours-client  Debian's stock 6.12 server, our client
#   ours-server-stock-client  our server, Debian's stock 6.12 client
#                             (any SERVER-server-CLIENT-client: two
#                             kernels of data/kernels/, e.g.
#                             stock-7.3-server-ours-client)
#   ours-ours-siw             as ours-ours over soft-iWARP (MPA, DDP/RDMAP);
#                             its second mount fails in about one run of
#                             three (see README.rst), so not by default
#   ours-ours-4k-16k          our client with rdma_max_inline_write 4096
#                             and rdma_max_inline_read 16384: c2s != s2c
#
# Each case is one "two-guest.sh --dump --client guest/capture-client.sh"
# (SEC: the client guest's time limit, default 300).  capture-client.sh
# reads both peers' views of each connection in the guests while it is
# up and writes them to client/views.txt: the server's
# connection line (conns, our server), our client's
# sysfs xprt_info rdma_* keys, the client's xprtrdma_inline_thresh
# tracepoint (both kernels), and before the unmount the client's count
# of replies that invalidated an MR remotely (xprtrdma_mr_reminv, both
# kernels) and of those with R not negotiated (mountstats, ours).  From
# them this script writes DIR/CASE/expected.txt, one assertion per view
# in check-fixtures.sh's format, with the frame numbers of the
# connection's REQ and REP (MPA Request and Reply) in the capture, and
# runs check-fixtures.sh on it:
#   REQ: the client's advertised R, Send and Receive (server view,
#        client view), the parse outcome, offset, version, flags
#        (server view), no warning;
#   REP: the server's advertised R, Send and Receive (both views; a
#        stock server advertises its max_req_size 4096 both ways and no
#        R), the negotiated c2s, s2c and R (both views, and the client's
#        tracepoint), the outcome the client reports, no warning;
#   the Sends of the connection: none over the threshold of its
#        direction, none with invalidation from the client, as many Send
#        With Invalidate as the client counted invalidating replies, as
#        many of them flagged "R not negotiated" as our client counted
#        (0 where no client counter exists: our server never sends one
#        without R), and the thresholds shown are the negotiated ones.
# Also: the guests passed, and the capture holds as many connections as
# the client recorded views.
#
# --again: no guests; decode the captures and views an earlier run left
# in DIR once more (after a change to the dissector).
#
# Prints KTAP ("CASE: NAME" results) on stdout for check.sh; exits
# non-zero when a result failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
resolve_base || exit 1	# once, for every guest this run starts
results=$CACHE/runs/wireshark-live-$(date +%Y%m%d-%H%M%S)-$$ timeout_s=300
PORT=20049	# NFS/RDMA
again=0
while [ $# -gt 0 ]; do
	case "$1" in
	--results) results=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--again) again=1; shift ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(ours-ours stock-server-ours-client ours-server-stock-client)
mkdir -p "$results"
results=$(cd "$results" && pwd)
ktap_print_header


# cm_status_name N: the dissector's name of the parse outcome the client
# reports in its sysfs xprt_info as rdma_cm_status, a number (rpcctl
# reads every value there with int())
cm_status_name() {
	case "$1" in
	0) echo found ;;
	1) echo absent ;;
	2) echo truncated ;;
	3) echo bad-version ;;
	*) echo "$1" ;;
	esac
}

# connections PCAP: "REQ REP" frame numbers of every RPC-over-RDMA
# connection (a CM REQ or MPA Request to the NFS/RDMA port that a REP or
# MPA Reply answered), in the order of the requests; then one line
# "rejected N": the requests nothing but a REJ answered (a server not
# listening yet: the client tries again).  A retransmitted REQ (same
# Local Communication ID) is not a new one.
connections() {
	HOME=$tmp XDG_CONFIG_HOME=$tmp tshark -n -r "$1" -Y "(infiniband.mad.attributeid == 0x0010 &&
			infiniband.cm.req.serviceid.dport == $PORT) || infiniband.mad.attributeid == 0x0013 ||
			(iwarp_mpa.req && tcp.dstport == $PORT) || iwarp_mpa.rep" \
		-T fields -e frame.number -e infiniband.mad.attributeid -e infiniband.cm.req \
		-e infiniband.cm.rep.remotecommid -e iwarp_mpa.key.req -e iwarp_mpa.key.rep \
		-e tcp.stream 2>/dev/null |
	awk -F'\t' '
		function request(id) {
			if (id in open) return
			n++; req[n] = $1; rep[n] = "-"; open[id] = n
		}
		function reply(id) {
			if ((id in open) && rep[open[id]] == "-") { rep[open[id]] = $1; delete open[id] }
		}
		$2 == "0x0010" { request("ib/" $3) }
		$2 == "0x0013" { reply("ib/" $4) }
		$5 != "" { request("tcp/" $7) }
		$6 != "" { reply("tcp/" $7) }
		END {
			for (i = 1; i <= n; i++)
				if (rep[i] != "-") print req[i], rep[i]; else rej++
			print "rejected", rej + 0
		}'
}

# expectations DIR SERVER_KERNEL CLIENT_KERNEL: DIR/expected.txt from
# DIR/client/views.txt and the connections of DIR/link.pcap; prints how
# many connections, views and rejected connection requests there are,
# and the views that should be there and are not in $tmp/missing
expectations() {
	local dir=$1 skern=$2 ckern=$3 views=$1/client/views.txt out=$1/expected.txt
	local -a conns tags
	local i q p t s c tr k u thr neg rej sviews=0 cviews=0
	# whether each side's views must be there (data/kernels/), once a case
	! has_views "$skern" || sviews=1
	! has_views "$ckern" || cviews=1
	mapfile -t conns < <(connections "$dir/link.pcap")
	rej=${conns[-1]#rejected }
	unset 'conns[-1]'
	mapfile -t tags < <(awk '!seen[$1]++ { print $1 }' "$views" 2>/dev/null)
	echo "${#conns[@]} ${#tags[@]} $rej"
	: >"$tmp/missing"
	{
		echo "# written by live.sh from client/views.txt (what both peers"
		echo "# reported in the guests) and the frames of link.pcap"
		for i in "${!tags[@]}"; do
			[ "$i" -lt "${#conns[@]}" ] || break
			t=${tags[$i]}
			read -r q p <<<"${conns[$i]}"
			s=$(sed -n "s/^$t server: //p" "$views" | head -n 1)
			c=$(sed -n "s/^$t client: //p" "$views" | head -n 1)
			tr=$(sed -n "s/^$t trace: //p" "$views" | head -n 1)
			k=$(sed -n "s/^$t counters: //p" "$views" | head -n 1)
			echo
			echo "# connection $((i + 1)), $t: REQ frame $q, REP frame $p"
			neg=$(echo "$tr" | sed -n 's/.* neg send\/recv=\([0-9]*\)\/\([0-9]*\).*/\1 \2/p')
			# a view that is not there would leave its checks out
			[ "$sviews" = 0 ] || [ -n "$(field status "$s")" ] || echo "$t server" >>"$tmp/missing"
			[ "$cviews" = 0 ] || [ -n "$(field rdma_cm_status "$c")" ] || echo "$t client" >>"$tmp/missing"
			[ -n "$neg" ] || echo "$t trace" >>"$tmp/missing"
			[ -n "$(field reminv "$k")" ] || echo "$t counters" >>"$tmp/missing"
			thr=""
			if [ -n "$(field status "$s")" ]; then
				if [ "$(field status "$s")" = found ]; then
					echo "link.pcap $q outcome=found offset=$(field offset "$s") version=$(field version "$s") flags=$(field flags "$s") r=$(field client_r "$s") send=$(field client_send "$s") recv=$(field client_recv "$s") warnings= # server's view"
				else
					echo "link.pcap $q outcome=$(field status "$s") offset=$(field offset "$s") # server's view"
				fi
				echo "link.pcap $p outcome=found r=$(field server_r "$s") send=$(field server_send "$s") recv=$(field server_recv "$s") c2s=$(field c2s "$s") s2c=$(field s2c "$s") rneg=$(field r "$s") warnings= # server's view"
				thr="thr-c2s=$(field c2s "$s") thr-s2c=$(field s2c "$s")"
			elif kernel_is "$skern" rpcrdma=stock; then
				echo "link.pcap $p outcome=found flags=0x00 r=0 send=4096 recv=4096 warnings= # stock server: max_req_size 4096 both ways, no R"
			fi
			if [ -n "$(field rdma_cm_status "$c")" ]; then
				echo "link.pcap $q r=$(field rdma_client_r "$c") send=$(field rdma_client_send "$c") recv=$(field rdma_client_recv "$c") # client's view"
				echo "link.pcap $p outcome=$(cm_status_name "$(field rdma_cm_status "$c")") offset=$(field rdma_cm_offset "$c") r=$(field rdma_server_r "$c") send=$(field rdma_server_send "$c") recv=$(field rdma_server_recv "$c") c2s=$(field rdma_c2s "$c") s2c=$(field rdma_s2c "$c") rneg=$(field rdma_r "$c") # client's view"
				thr=${thr:-"thr-c2s=$(field rdma_c2s "$c") thr-s2c=$(field rdma_s2c "$c")"}
			fi
			if [ -n "$neg" ]; then
				echo "link.pcap $p c2s=${neg% *} s2c=${neg#* } # client's xprtrdma_inline_thresh"
				thr=${thr:-"thr-c2s=${neg% *} thr-s2c=${neg#* }"}
			fi
			u=$(field unneg "$k")
			case "$u" in ''|na) u=0 ;; esac
			echo "link.pcap sends@$p send-too-large=0 inv-from-client=0 swi=$(field reminv "$k") inv-not-negotiated=$u $thr # counts: the client's"
		done
	} >"$out"
}

# has_views KERNEL: KERNEL runs the whole series, whose views of each
# connection (the server's connection list, the client's sysfs
# xprt_info) the guests read; a DKMS module alone lacks the client's
# (its sunrpc is Debian's)
has_views() { kernel_is "$1" rpcrdma=ours && kernel_is "$1" root=9p; }
# two_guest_kernel KERNEL: a kernel of data/kernels/ that two-guest.sh
# can boot (the host's userland: not the trixie roots)
two_guest_kernel() { kernel_info "$1" && [ "$K_ROOT" != debootstrap ]; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in "${cases[@]}"; do
	cargs=(--write default --read default) sargs="" skern=ours ckern=ours
	case "$name" in
	ours-ours) ;;
	*-server-*-client)
		skern=${name%%-server-*} ckern=${name#*-server-} ckern=${ckern%-client}
		if ! two_guest_kernel "$skern" || ! two_guest_kernel "$ckern"; then
			ktap_test_fail "$name: capture" "no kernel of data/kernels/ that boots the host's userland"
			continue
		fi ;;
	ours-ours-siw) cargs+=(--transport siw) sargs="--transport siw" ;;
	ours-ours-4k-16k) cargs=(--write 4096 --read 16384) ;;
	*) ktap_test_fail "$name: capture" "unknown case"; continue ;;
	esac
	ktap_subtest_begin "$name"
	dir=$results/$name
	if [ "$again" = 1 ]; then
		rc=$(cat "$dir.rc" 2>/dev/null || echo "?")
	else
		rm -rf "$dir"
		start=$SECONDS
		"$RFC_HARNESS/two-guest.sh" --results "$dir" --timeout "$timeout_s" --dump \
			--client "$RFC_HARNESS/guest/capture-client.sh" "$skern" "$ckern" \
			${sargs:+--server-args "$sargs"} "${cargs[@]}" >"$dir.log" 2>&1
		rc=$?
		echo "$rc" >"$dir.rc"
		msg "wireshark-live $name: guests exit $rc in $((SECONDS - start)) s"
	fi
	if [ "$rc" = 0 ] && [ -s "$dir/link.pcap" ]; then
		ktap_test_pass "capture ($skern server, $ckern client)"
	else
		why=$(ktap_failures "$dir"/*/tests.ktap | head -n 1)
		for role in server client; do
			c=$(guest_trouble "$dir" "$role")
			[ -z "$c" ] || why="the $role guest $c"
		done
		ktap_test_fail "capture ($skern server, $ckern client)" "guests exit $rc${why:+, $why}, see $dir"
		[ -s "$dir/link.pcap" ] || { ktap_subtest_end; continue; }
	fi
	expectations "$dir" "$skern" "$ckern" >"$tmp/counts"
	read -r nconn nviews nrej <"$tmp/counts"
	if [ "$nrej" = 0 ]; then nrej=""; else nrej=" (and $nrej requests the server rejected)"; fi
	if [ "$nconn" = "$nviews" ] && [ "$nconn" -gt 0 ]; then
		ktap_test_pass "$nconn connections, each with the peers' views$nrej"
	else
		ktap_test_fail "connections" "$nconn in the capture$nrej, views of $nviews in $dir/client/views.txt"
	fi
	[ "$nconn" -gt 0 ] || { ktap_subtest_end; continue; }
	if [ -s "$tmp/missing" ]; then
		ktap_test_fail "views" "missing or empty in client/views.txt: $(paste -sd, "$tmp/missing")"
	else
		ktap_test_pass "every view read (server, client, trace, counters)"
	fi
	# the dissector on this capture: check-fixtures.sh's own results, a
	# subtest of this case
	ktap_subtest_cmd dissector "$here/check-fixtures.sh" "$dir/expected.txt"
	ktap_subtest_end
done
ktap_finished
