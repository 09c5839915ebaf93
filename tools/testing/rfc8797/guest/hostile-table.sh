# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The hostile-input table of the RFC 8797 CM Private Data tests, shared
# by hostile-server.sh (cm-peer connects to our server) and
# hostile-client.sh (our client connects to cm-peer).  Sourced.
#
# Each row is the exact Private Data that cm-peer sends and what our
# parser (net/sunrpc/xprtrdma/cm_private.c) must make of it:
#
#   row NAME QUICK HEX EXACT [PADDED]
#
# EXACT is the expected parse when the receiver gets exactly HEX (iWARP:
# siw, where MPA delivers the peer's length); PADDED when it gets HEX
# followed by zeros up to the whole CM field (RoCE: rxe, 56 octets on a
# connect request, 196 on a reply).  PADDED defaults to EXACT; rows
# whose two expectations differ are reported as NAME-exact or
# NAME-padded so that the name says which view was tested.  An
# expectation is "status offset version flags R send recv", the
# peer's message as parsed: status found|absent|truncated|bad-version,
# offset and version of the occurrence used or first rejected, the raw
# flags octet, the peer's R and its Send and Receive sizes in octets
# (the RFC 8166 defaults 0 1024 1024 unless found).
#
# The rules the expectations come from (RFC 8797 section 5.2, the
# kernel-doc of rpcrdma_cm_private_parse()): the identifier is looked
# for at every octet offset of the received length, in order; the
# first occurrence with version 1 whose eight octets all lie within the
# data is used; occurrences with another version are skipped; reserved
# flag bits are kept in flags but play no part; an identifier with
# fewer than eight octets left is "truncated" unless a complete
# bad-version occurrence came first; a cut-short identifier (fewer than
# four octets left) is not an occurrence at all.
#
# QUICK=q marks the rows of --quick (about one of each kind).
#
# The caller sets MAXLEN, the largest Private Data the sending side can
# carry on this transport and in this direction (rows use it to place
# data at the very end), and defines row(), which starts with row_expect
# below; run_rows runs the table.

MAGIC=f6ab0e18
# the valid message most rows carry: version 1, R, Send 3072, Recv 5120
V=${MAGIC}01010204
V_EXP="1 0x01 1 3072 5120"	# version flags R send recv
# a second valid message: R clear, Send 6144, Recv 7168
W=${MAGIC}01000506
DEFAULTS="0 1024 1024"		# R send recv of an RFC 8166 peer
ABSENT="absent 0 0 0x00 $DEFAULTS"

# cm_msg VERSION FLAGS SEND RECV: an RFC 8797 message, every field two hex digits
cm_msg() { echo "$MAGIC$1$2$3$4"; }

# fill N [OCTET]: N filler octets (default a5, which never starts the
# identifier)
fill() {
	local n=$1 o=${2:-a5} s=""
	while [ "$n" -gt 0 ]; do s=$s$o; n=$((n - 1)); done
	echo "$s"
}

# rnd N SEED: N pseudo-random octets, the same for the same SEED; every
# 0xf6 octet is replaced by 0x00 so that the identifier cannot occur by
# chance and the expectation "absent" holds for every seed
rnd() {
	local n=$1 s="" h=$2
	while [ ${#s} -lt $((2 * n)) ]; do
		h=$(printf '%s' "$h" | sha256sum | cut -c1-64)
		s=$s$h
	done
	s=${s:0:$((2 * n))}
	echo "$s" | sed 's/../&\n/g' | sed 's/^f6$/00/' | tr -d '\n'
}

hostile_rows() {
	local M=$MAXLEN

	# --- no data, and fewer than eight octets
	row empty              q ""                      "$ABSENT"
	row len1               - f6                      "$ABSENT"
	row len2               - f6ab                    "$ABSENT"
	row len3-magic-cut     - f6ab0e                  "$ABSENT"
	row len4-magic         - $MAGIC                  "truncated 0 0 0x00 $DEFAULTS" \
							 "bad-version 0 0 0x00 $DEFAULTS"
	row len5-magic-v1      q ${MAGIC}01              "truncated 0 1 0x00 $DEFAULTS" \
							 "found 0 1 0x00 0 1024 1024"
	row len6               - ${MAGIC}0101            "truncated 0 1 0x00 $DEFAULTS" \
							 "found 0 1 0x01 1 1024 1024"
	row len7               - ${MAGIC}010102          "truncated 0 1 0x00 $DEFAULTS" \
							 "found 0 1 0x01 1 3072 1024"

	# --- one valid message at many offsets, aligned or not
	row off0               - "$V"                    "found 0 $V_EXP"
	row off1               - "$(fill 1)$V"           "found 1 $V_EXP"
	row off2               - "$(fill 2)$V"           "found 2 $V_EXP"
	row off3               - "$(fill 3 00)$V"        "found 3 $V_EXP"
	row off4               - "$(fill 4 00)$V"        "found 4 $V_EXP"
	row off7               q "$(fill 7)$V"           "found 7 $V_EXP"
	row off8               - "$(fill 8 ff)$V"        "found 8 $V_EXP"
	row off13              - "$(fill 13)$V"          "found 13 $V_EXP"
	row off-last           - "$(fill $((M - 8)))$V"  "found $((M - 8)) $V_EXP"

	# --- the identifier at the very end: truncated in both views, as
	# the data fills the whole field; a cut-short identifier is no
	# occurrence; short data is truncated only where the exact length
	# arrives
	row trunc-end4         q "$(fill $((M - 4)))$MAGIC" \
						 "truncated $((M - 4)) 0 0x00 $DEFAULTS"
	row trunc-end5         - "$(fill $((M - 5)))${MAGIC}01" \
						 "truncated $((M - 5)) 1 0x00 $DEFAULTS"
	row trunc-end7         - "$(fill $((M - 7)))${MAGIC}010102" \
						 "truncated $((M - 7)) 1 0x00 $DEFAULTS"
	row magic-cut-end      - "$(fill $((M - 3)))f6ab0e" "$ABSENT"
	row trunc-short        - "$(fill 10)${MAGIC}0101" \
						 "truncated 10 1 0x00 $DEFAULTS" \
						 "found 10 1 0x01 1 1024 1024"

	# --- versions other than 1
	row version0           - "$(cm_msg 00 01 02 04)"    "bad-version 0 0 0x00 $DEFAULTS"
	row version2           q "$(cm_msg 02 01 02 04)"    "bad-version 0 2 0x00 $DEFAULTS"
	row version255         - "$(cm_msg ff 01 02 04)"    "bad-version 0 255 0x00 $DEFAULTS"

	# --- reserved flag bits: kept in flags, ignored otherwise
	row reserved-fe        - "$(cm_msg 01 fe 02 04)"    "found 0 1 0xfe 0 3072 5120"
	row reserved-ff        - "$(cm_msg 01 ff 02 04)"    "found 0 1 0xff 1 3072 5120"
	row reserved-80        - "$(cm_msg 01 80 02 04)"    "found 0 1 0x80 0 3072 5120"

	# --- extreme Size octets
	row sizes-00-00        - "$(cm_msg 01 01 00 00)"    "found 0 1 0x01 1 1024 1024"
	row sizes-ff-ff        q "$(cm_msg 01 01 ff ff)"    "found 0 1 0x01 1 262144 262144"
	row sizes-00-ff        - "$(cm_msg 01 00 00 ff)"    "found 0 1 0x00 0 1024 262144"
	row sizes-ff-00        - "$(cm_msg 01 00 ff 00)"    "found 0 1 0x00 0 262144 1024"

	# --- the largest Private Data the CM allows
	row random-max         q "$(rnd "$M" max)"       "$ABSENT"
	row random-max-tail    - "$(rnd $((M - 8)) tail)$V" "found $((M - 8)) $V_EXP"

	# --- several occurrences
	row badver-then-valid  q "$(cm_msg 02 01 ff ff)$V"  "found 8 $V_EXP"
	row valid-then-valid   - "$V$W"                  "found 0 $V_EXP"
	row magic-overlap      - "$MAGIC$V"              "found 4 $V_EXP"
	row badver-badver      - "$(cm_msg 00 01 02 04)$(cm_msg 03 01 02 04)" \
						 "bad-version 0 0 0x00 $DEFAULTS"
	row badver-unaligned-valid - "$(fill 3)$(cm_msg ff 01 02 04)$(fill 2)$V" \
						 "found 13 $V_EXP"
	row badver-then-trunc  - "$(cm_msg 02 01 02 04)$(fill $((M - 13)))${MAGIC}01" \
						 "bad-version 0 2 0x00 $DEFAULTS"
	row valid-then-trunc   - "$V$(fill $((M - 12)))$MAGIC" "found 0 $V_EXP"

	# --- other protocols' data around or containing the identifier
	# RFC 6581-like IRD/ORD (MPA v2) header in front of the message
	row mpav2-like         - "80010001$V"            "found 4 $V_EXP"
	# NVMe-oF-like 32-octet connect data (recfmt, qid, hrqsize, hsqsize,
	# cntlid, reserved) with the message inside its reserved field
	row nvmeof-like        q "00000001008000""7fffff00000000$V$(fill 10 00)" \
						 "found 14 $V_EXP"
	# iSER-like header whose vendor field happens to hold the
	# identifier, followed by a zero version: not ours
	row iser-like-badver   - "80000000${MAGIC}0000ffff" \
						 "bad-version 4 0 0x00 $DEFAULTS"

	# --- lengths that are not a multiple of four
	row len9               - "${V}a5"                "found 0 $V_EXP"
	row len13              - "$V$(fill 5 00)"        "found 0 $V_EXP"
	row len23              - "$(fill 6)$V$(fill 9 0e)" "found 6 $V_EXP"
}

# run_rows: every row of the table (of --quick: those marked q), timed;
# result rows-run-N
run_rows() {
	local start=$SECONDS
	hostile_rows
	log "$rows_run rows in $((SECONDS - start)) s"
	[ "$rows_run" -gt 0 ] && pass "rows-run-$rows_run" || fail rows-run "no row ran"
}

# row_expect NAME QUICK EXACT PADDED OUR_R OUR_SEND OUR_RECV: the start
# of both halves' row(), with row's arguments and our side's settings.
# Fails when --quick leaves the row out.  Else counts it in rows_run and
# sets row's locals: name (NAME, or NAME-exact or NAME-padded when the
# two views differ); st off ver fl r snd rcv, the peer's message as our
# side must parse it in this transport's VIEW; and c2s s2c nr, what the
# negotiation must give (RFC 8797 section 4.2: c2s = min(client send,
# server recv), s2c = min(server send, client recv), R only when both
# set it), our side being the ROLE of hostile_start.
# shellcheck disable=SC2034 # it sets row()'s locals
row_expect() {
	local exp=$3 cs cr ss sr
	[ "$QUICK" = 1 ] && [ "$2" != q ] && return 1
	[ "$VIEW" = padded ] && exp=$4
	name=$1
	[ "$3" = "$4" ] || name=$1-$VIEW
	rows_run=$((rows_run + 1))
	read -r st off ver fl r snd rcv <<<"$exp"
	if [ "$ROLE" = server ]; then
		cs=$snd cr=$rcv ss=$6 sr=$7
	else
		cs=$6 cr=$7 ss=$snd sr=$rcv
	fi
	c2s=$((cs < sr ? cs : sr))
	s2c=$((ss < cr ? ss : cr))
	nr=$((r && $5))
}

# hostile_start ROLE ["--quick"]: what both halves share.  Sets ROLE,
# QUICK, PEER (cm-peer, which must be built), T, OUT, rows_run, and what
# the CM carries on $TRANSPORT, seen from our ROLE (server or client):
# MAXLEN, the largest Private Data the peer can send us; VIEW, whether
# it reaches our kernel zero-padded to the whole CM field (padded) or
# exactly as sent (exact); OURLEN, the length of the field in which our
# own message reaches the peer.  On RoCE the IB CM REQ carries 92 octets
# of which the RDMA-CM header takes 36, and the REP 196.  On siw, MPA
# carries the exact length; librdmacm allows 255 octets, but siw sends
# 252..255 with a corrupt MPA header (its u8 pd_len wraps when the
# 4-octet MPA v2 IRD/ORD field is added), so 251 is the largest that
# arrives intact.
hostile_start() {
	local role=$1
	ROLE=$1 QUICK=0 rows_run=0
	[ "${2:-}" = --quick ] && QUICK=1
	PEER=$CM_PEER
	T=/sys/kernel/tracing
	OUT=/tmp/hostile
	mkdir -p $OUT
	case "$TRANSPORT/$role" in
	rxe/server) MAXLEN=56 VIEW=padded OURLEN=196 ;;
	rxe/client) MAXLEN=196 VIEW=padded OURLEN=56 ;;
	siw/*) MAXLEN=251 VIEW=exact OURLEN=8 ;;
	*) fail "hostile-$role-transport" "unknown transport $TRANSPORT"; exit 1 ;;
	esac
	if [ ! -x "$PEER" ]; then
		fail "hostile-$role-peer" "$PEER not built (make -C tools/testing/rfc8797/guest/cm-peer)"
		exit 1
	fi
}

# hex_of_message R SEND RECV: the eight octets a peer with these
# settings sends (sizes are multiples of 1024, 1024..262144)
hex_of_message() {
	printf '%s01%02x%02x%02x' $MAGIC "$1" $(($2 / 1024 - 1)) $(($3 / 1024 - 1))
}

# type_hex TYPE: the Private Data of a client of TYPE (the scale and
# pressure runs' types), hex: ours (R, 8 KiB each way: our defaults),
# stock (R, 4 KiB each way: what a stock Linux client sends), none (no
# Private Data), 1k and 16k (R, that size each way)
type_hex() {
	case "$1" in
	ours) hex_of_message 1 8192 8192 ;;
	stock) hex_of_message 1 4096 4096 ;;
	none) echo "" ;;
	1k) hex_of_message 1 1024 1024 ;;
	16k) hex_of_message 1 16384 16384 ;;
	*) return 1 ;;
	esac
}

# zeros N: N zero octets, hex
zeros() { fill "$1" 00; }

# Helpers of both scripts, fork-free where they run per row: a process
# costs tens of milliseconds in a TCG guest and there are 40+ rows.

# listen_and_mount NAME TIMEO PEER-ARGS...: cm-peer listening with
# PEER-ARGS ($OUT/peer.out, peer.err), then in the background a soft
# NFSv4.2 mount against it with timeo=TIMEO (deciseconds) and one try, so
# that it gives up soon after the listener is gone (KILL is the
# backstop): hostile-client.sh and stray-inv.sh, as our client against
# cm-peer (MNT, OUT, PEER).  Sets pid and mpid; fails test NAME and
# returns 1 when cm-peer does not listen.
listen_and_mount() {
	local name=$1 timeo=$2
	shift 2
	: >$OUT/peer.out; : >$OUT/peer.err; : >$OUT/mount.out	# not the last row's
	timeout 90 "$PEER" listen "$SERVER_ADDR" $RDMA_PORT --timeout 30 "$@" \
		>$OUT/peer.out 2>$OUT/peer.err &
	pid=$!
	if ! slowwait 20 has_line $OUT/peer.out '^listening'; then
		fail "$name" "cm-peer did not listen: $(tr '\n' ' ' <$OUT/peer.err)"
		kill -TERM $pid 2>/dev/null
		wait $pid
		return 1
	fi
	timeout -s KILL 40 mount -t nfs -o \
		vers=4.2,proto=rdma,port=$RDMA_PORT,soft,timeo=$timeo,retrans=1,retry=0 \
		"$SERVER_ADDR:/" $MNT >$OUT/mount.out 2>&1 &
	# shellcheck disable=SC2034	# the caller's
	mpid=$!
}

# has_line FILE REGEX: a line of FILE matches REGEX (slowwait 30
# has_line FILE REGEX waits for one)
has_line() {
	local l
	local -a A
	[ -r "$1" ] || return 1
	mapfile -t A <"$1"
	for l in "${A[@]}"; do
		[[ $l =~ $2 ]] && return 0
	done
	return 1
}

# show FILE...: the files' lines, indented and cut short, for the log
show() {
	local f l
	local -a A
	for f in "$@"; do
		mapfile -t A <"$f"
		for l in "${A[@]}"; do echo "    ${l:0:200}"; done
	done
}

# lines_matching FILE REGEX: the lines of FILE that match, into MATCHED
lines_matching() {
	local l
	local -a A
	MATCHED=()
	mapfile -t A <"$1"
	for l in "${A[@]}"; do
		[[ $l =~ $2 ]] && MATCHED+=("$l")
	done
	return 0
}

# is_mounted DIR: DIR is a mount point now
is_mounted() {
	local l
	local -a A
	mapfile -t A </proc/mounts
	for l in "${A[@]}"; do
		[[ $l == *" $1 "* ]] && return 0
	done
	return 1
}

# nfs_after CHECK: after the rows, an ordinary NFSv4.2 mount over RDMA on
# $MNT still works.  CHECK (a function run while mounted) reports
# nfs-after-negotiated from what the peer under test exposes; then 4 MiB
# are written, remounted and read back by SHA-256 (nfs-after-checksum).
nfs_after() {
	local check=$1 sum
	dd if=/dev/urandom of=/tmp/hostile-f bs=1M count=4 status=none
	sum=$(file_sum /tmp/hostile-f)
	if ! mount_nfs 4.2 "$MNT"; then
		fail nfs-after-negotiated "mount failed after the hostile rows"
		return
	fi
	"$check"
	cp /tmp/hostile-f "$MNT/f" && sync
	umount_nfs "$MNT"
	if mount_nfs 4.2 "$MNT"; then
		if sum_is "$MNT/f" "$sum"; then
			pass nfs-after-checksum
		else
			fail nfs-after-checksum "data read back differs"
		fi
		umount_nfs "$MNT" || fail nfs-after-umount "umount failed"
	else
		fail nfs-after-checksum "remount failed"
	fi
}
