#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fstests over NFS/RDMA (make fstests; check.sh's fstests stage runs the
# smoke selection): one guest that is NFS server and client at once
# (guest/fstests-client.sh), TEST and SCRATCH two tmpfs exports mounted
# with proto=rdma.
#
#   fstests.sh source
#   fstests.sh build
#   fstests.sh run [--vers 3|4.1|4.2] [--transport rxe|siw] [--kernel ours|base|dkms]
#                  [--group GROUP | --tests "TEST..."] [--budget SEC]
#                  [--per-test SEC] [--retry-hangs] [--record DIR] [--results-file FILE]
#   fstests.sh merge FILE...
#
# source: where fstests comes from, in this order: FSTESTS_SRC (a
# checkout or a tarball); ../shared/third-party/xfstests-*.tar.xz beside
# this repository (a snapshot of kdave/xfstests; the newest by name);
# a clone of upstream (FSTESTS_GIT) when the machine reaches it.  Prints
# the source, or fails with the reason none is reachable (status 2: the
# FSTESTS_SRC named does not exist, which run reports as a failure, not
# a skip).
# build: builds the source once into $CACHE_ROOT/fstests/ID (ID: the
# tarball's hash, or the checkout's commit), after "deps.sh fstests";
# prints the built tree.
# run: the tests of GROUP (default quick: generic/ and nfs/ tests of
# that group in fstests' group lists; quick+rw: those in both) or the
# TESTs on KERNEL (ours, the series; base, the same source without it:
# tree.sh base; dkms, Debian's stock kernel with the DKMS package's
# rpcrdma.ko, laid out by the dkms stage) over NFS version VERS and TRANSPORT (default 4.2 over rxe).
# Every result is recorded as it comes (each guest's results.txt in
# the folder DIR, merged into DIR/results.txt; default
# $CACHE/fstests/ID/KERNEL-CODE-nfsVERS-TRANSPORT; CODE: a hash of the
# prepared tree the kernel was built from, Documentation/ left out, and
# of its .config (of Debian's image itself, for dkms), so that a result
# never outlives the
# code that gave it, and a changelog's edit does not throw the record
# away), and a later run with that folder
# skips what is recorded: a group finishes over several runs.  Without
# --record (make fstests) and without RFC8797_INJECT, the merged record
# is also kept in the repository,
# data/fstests/records/BASE/ID/KERNEL-CODE-nfsVERS-TRANSPORT.txt (one
# line per test: TEST RESULT SECONDS REASON; written every minute while
# a guest runs), and read back with the cache's: a cache does not
# outlive its machine, and a group takes longer than a session.  Guests are
# booted until every test has a result or --budget seconds (default: no
# limit) are spent; a guest in which a test hangs (no result for
# --per-test seconds, default 1800) stops and the next one goes on after
# that test.  A test recorded as hung is not run again unless
# --retry-hangs is given: then it runs once more in this run, and a
# result it gives takes the hang's place in the record, which keeps the
# hang as that result's note ("after a hang: REASON").
# One progress line per test on stderr.
# merge: the record made of FILEs, by the rule run records with: a
# test's first line, or its first line that is not a hang, noted so.
# Results: KTAP on stdout (and appended to FILE), one block "fstests
# KERNEL nfsVERS TRANSPORT" with one result per test: pass, fail
# (fstests' reason), a skip for "not run" (fstests' reason) and for a
# test not run yet (budget); a failure that the expunge list
# data/fstests/expunges/BASE/nfs_rdma/VERS/TRANSPORT.txt names ("generic/NNN #
# reason", kdevops's layout) is an XFAIL, a listed test that passes
# fails (the list is out of date) unless the list calls it flaky, and a
# hang always fails.  Each guest's folder, with fstests'
# results folder, is kept in the record's folder.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1
check_inject
. "$RFC_HARNESS/ktap.sh"

FSTESTS_GIT=${FSTESTS_GIT:-https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git}

usage() { sed -n '8,13p' "$0" | sed 's/^#   //'; }

# fstests_source: FSTESTS_SRC, the shared snapshot, or a fresh clone
fstests_source() {
	local snap
	if [ -n "${FSTESTS_SRC:-}" ]; then
		[ -e "$FSTESTS_SRC" ] || { echo "FSTESTS_SRC=$FSTESTS_SRC does not exist" >&2; return 2; }
		realpath "$FSTESTS_SRC"
		return
	fi
	snap=$(find "$RFC_TOP/../shared/third-party" -maxdepth 1 -name 'xfstests-*.tar.*' 2>/dev/null |
		sort | tail -n 1)
	if [ -n "$snap" ]; then
		realpath "$snap"
		return
	fi
	local clone=$CACHE_ROOT/fstests/upstream
	if [ -d "$clone/.git" ]; then
		echo "$clone"
		return
	fi
	if timeout 30 git ls-remote "$FSTESTS_GIT" HEAD >/dev/null 2>&1; then
		mkdir -p "${clone%/*}"
		git clone -q --depth 1 "$FSTESTS_GIT" "$clone" >&2 && echo "$clone" && return
	fi
	echo "no fstests source: FSTESTS_SRC is unset, no ../shared/third-party/xfstests-*.tar.* beside $RFC_TOP, and $FSTESTS_GIT is not reachable" >&2
	return 1
}

# fstests_id SOURCE: what names its build: a tarball's hash, a
# checkout's commit
fstests_id() {
	if [ -f "$1" ]; then
		echo "tar-$(sha256sum "$1" | cut -c1-12)"
	elif git -C "$1" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		echo "git-$(git -C "$1" rev-parse --short=12 HEAD)$(git -C "$1" diff --quiet HEAD || echo -dirty)"
	else
		echo "dir-$(find "$1" -type f -newer "$1" -printf . 2>/dev/null | wc -c)-$(stat -c %Y "$1")"
	fi
}

# fstests_build [SOURCE]: the built tree of SOURCE (default: the one
# fstests_source finds), built once
fstests_build() {
	local src=${1:-} id dst tmp
	[ -n "$src" ] || src=$(fstests_source) || return 1
	id=$(fstests_id "$src")
	dst=$CACHE_ROOT/fstests/$id
	if [ ! -f "$dst/.built" ]; then
		"$RFC_HARNESS/deps.sh" fstests >&2 || return 1
		msg "building fstests from $src into $dst"
		tmp=$dst.tmp
		rm -rf "$tmp" "$dst"
		mkdir -p "$tmp"
		if [ -f "$src" ]; then
			tar -xf "$src" -C "$tmp" --strip-components=1 || return 1
		else
			cp -a "$src/." "$tmp/" || return 1
		fi
		make -C "$tmp" -j"$JOBS" >"$tmp.log" 2>&1 ||
			{ echo "fstests did not build, see $tmp.log" >&2; return 1; }
		echo "$src" >"$tmp/.built"
		mv "$tmp" "$dst"
	fi
	echo "$dst"
}

# group_tests TREE GROUP: the generic/ and nfs/ tests of GROUP; GROUP
# may name several groups joined by "+" (quick+rw): the tests in all
group_tests() {
	local d
	for d in generic nfs; do
		[ -f "$1/tests/$d/group.list" ] || continue
		awk -v g="$2" -v d="$d" '
			BEGIN { n = split(g, want, "+") }
			!/^#/ {
				k = 0
				for (j = 1; j <= n; j++)
					for (i = 2; i <= NF; i++)
						if ($i == want[j]) { k++; break }
				if (k == n)
					print d "/" $1
			}' "$1/tests/$d/group.list"
	done
}

# code_id REV IMAGE: what names the kernel's code: every file of the
# prepared tree at REV but Documentation/ (a changelog or a guide does
# not change what runs), the tree's uncommitted edits when REV is HEAD
# (the build uses them), and the .config IMAGE was built with, where it
# has one beside it; else (Debian's kernel, which the DKMS package's
# module runs in) IMAGE itself, so that another stock kernel starts
# another record
code_id() {
	{
		# the top level's entries name every file below them
		git -C "$TREE" ls-tree "$1" | grep -v $'\tDocumentation$'
		[ "${PIPESTATUS[0]}" = 0 ] || return 1
		[ "$1" != HEAD ] || git -C "$TREE" diff HEAD -- . ':!Documentation' || return 1
		if [ -f "${2%/arch/*}/.config" ]; then
			grep -v '^#' "${2%/arch/*}/.config"
		else
			sha256sum <"$2" || return 1
		fi
	} | sha256sum | cut -c1-12
	[ "${PIPESTATUS[0]}" = 0 ]
}

# merge_results: lines "TEST RESULT SECONDS REASON" on stdin, one per
# test out, in the order tests first appear: a test's first line that
# is not a hang, else its first line.  A result that replaces a hang
# keeps it in its reason ("after a hang: REASON"), once, so that a
# record merged again, or read back from the ledger, says it the same.
merge_results() {
	awk '
	!($1 in line) { order[++n] = $1 }
	$2 == "hang" { if (!($1 in hung)) hung[$1] = $0; if (!($1 in line)) line[$1] = $0; next }
	!($1 in done) { done[$1] = 1; line[$1] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			t = order[i]; l = line[t]
			if ((t in done) && (t in hung) && l !~ /after a hang: /) {
				r = hung[t]
				sub(/^[^ ]+ +[^ ]+ +[^ ]+ */, "", r)
				l = l " (after a hang: " r ")"
			}
			print l
		}
	}'
}

# whole_lines FILE...: the FILEs' lines but a last one that is still
# being written (no newline yet); FILEs that do not exist are left out
whole_lines() {
	local f
	for f; do
		[ -f "$f" ] || continue
		if [ -z "$(tail -c 1 "$f")" ]; then
			cat "$f"
		else
			sed '$d' "$f"
		fi
	done
}

cmd_run() {
	local vers=4.2 transport=rxe kernel=ours group=quick tests="" budget=0 per_test=1800 file="" dir="" retry_hangs=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--vers) vers=$2; shift 2 ;;
		--transport) transport=$2; shift 2 ;;
		--kernel) kernel=$2; shift 2 ;;
		--group) group=$2; shift 2 ;;
		--tests) tests=$2; shift 2 ;;
		--budget) budget=$2; shift 2 ;;
		--per-test) per_test=$2; shift 2 ;;
		--retry-hangs) retry_hangs=1; shift ;;
		--record) dir=$2; shift 2 ;;
		--results-file) file=$2; shift 2 ;;
		*) usage >&2; die "unknown argument $1" ;;
		esac
	done
	case "$vers" in 3 | 4.1 | 4.2) ;; *) die "--vers 3, 4.1 or 4.2, not $vers" ;; esac
	case "$transport" in rxe | siw) ;; *) die "--transport rxe or siw, not $transport" ;; esac
	local tree_id
	# the tree the kernel's rpcrdma comes from, this base's (data/kernels/:
	# built into $CACHE, or the DKMS package's module): the series' (our
	# rpcrdma), or the base tag's
	kernel_info "$kernel" || die "--kernel: no kernel $kernel"
	if ! { [ "$K_FETCH" = dkms ] || { [ "$K_FETCH" = build ] && [[ "$K_IMAGE" == "$CACHE/"* ]]; }; }; then
		die "--kernel $kernel: not built from this base's tree (ours, base, dkms, ...)"
	elif [ "$K_RPCRDMA" = ours ]; then
		tree_id=$(code_id HEAD "$K_IMAGE") || tree_id=""
	else
		tree_id=$(code_id "$BASE_TAG" "$K_IMAGE") || tree_id=""
	fi
	[ -n "$tree_id" ] || die "no prepared tree at $TREE (make tree)"
	local name="fstests $kernel nfs$vers $transport"
	[ -z "$file" ] || mkdir -p "$(dirname "$file")"
	ktap_open "$file"
	ktap_print_header

	# no source is a skip (the machine has none); a source that does
	# not build is a failure
	local src fst why err=$CACHE/fstests-build.err
	mkdir -p "$CACHE"
	src=$(fstests_source 2>"$err")
	case $? in
	0) ;;
	2) ktap_test_fail "$name" "$(tail -n 1 "$err")"; return 1 ;;
	*) ktap_test_skip "$name" "$(tail -n 1 "$err")"; return 0 ;;
	esac
	if ! fst=$(fstests_build "$src" 2>"$err"); then
		why=$(tail -n 1 "$err")
		ktap_test_fail "$name" "${why:-fstests did not build} (see $err)"
		return 1
	fi
	local -a list
	if [ -n "$tests" ]; then
		mapfile -t list < <(tr -s ' \t' '\n' <<<"$tests" | grep -v '^$')
	else
		mapfile -t list < <(group_tests "$fst" "$group")
	fi
	[ ${#list[@]} -gt 0 ] || die "no test in group $group of $fst"
	local state ledger=/dev/null rec=$kernel-$tree_id-nfs$vers-$transport
	if [ -z "$dir" ]; then
		dir=$CACHE/fstests/$(basename "$fst")/$rec
		# a run that breaks something on purpose records nothing for
		# others to resume from
		[ -n "${RFC8797_INJECT:-}" ] ||
			ledger=$RFC_HARNESS/data/fstests/records/$RFC_BASE/$(basename "$fst")/$rec.txt
	fi
	# the record: what every guest wrote as it went, the hangs this
	# script found (a guest that died in a test) and the ledger's lines,
	# a test's first line only, read afresh each time (and every minute
	# while a guest runs), so that a run killed midway loses no result;
	# the ledger is rewritten from it, each file replaced whole
	state=$dir/results.txt
	mkdir -p "$dir"
	touch "$dir/host.txt"
	record() {
		local tmp=$state.$BASHPID
		whole_lines "$dir"/boot-*/results.txt "$dir/host.txt" "$ledger" |
			merge_results >"$tmp" && mv "$tmp" "$state"
		[ "$ledger" = /dev/null ] || [ ! -s "$state" ] || {
			mkdir -p "${ledger%/*}" && cp "$state" "$ledger.$BASHPID" &&
				mv "$ledger.$BASHPID" "$ledger"
		}
	}
	local expunge=$RFC_HARNESS/data/fstests/expunges/$RFC_BASE/nfs_rdma/$vers/$transport.txt
	msg "$name: ${#list[@]} tests of fstests $(basename "$fst"), results in $dir$([ "$ledger" = /dev/null ] || echo " and $ledger")"

	local start=$SECONDS t boot rc todo done_n left gt syncer
	local -A have retried
	while :; do
		have=()
		record
		# a hang asked to run again (--retry-hangs) runs in this run's
		# first guest that reaches it, and only there
		while read -r t res _; do
			if [ "$res" = hang ] && [ "$retry_hangs" = 1 ] && [ -z "${retried[$t]:-}" ]; then
				retried[$t]=1
			else
				have[$t]=1
			fi
		done <"$state"
		todo=$dir/todo
		: >"$todo"
		for t in "${list[@]}"; do [ -n "${have[$t]:-}" ] || echo "$t" >>"$todo"; done
		[ -s "$todo" ] || break
		done_n=$((${#list[@]} - $(wc -l <"$todo")))
		left=0
		if [ "$budget" != 0 ]; then
			left=$((budget - (SECONDS - start)))
			[ "$left" -gt 0 ] || { msg "$name: budget of $budget s spent"; break; }
		fi
		boot=$dir/boot-$(date +%Y%m%d-%H%M%S)
		# the guest's own limit: the budget, or a day, and time for the
		# last test to end and the guest to stop
		gt=$(( (left > 0 ? left : 86400) + per_test + 300 ))
		msg "$name: booting a guest for $(wc -l <"$todo") tests ($boot)"
		# the record as the guest goes, every minute: a session or a
		# machine that ends midway keeps what it ran.  The syncer ends
		# when told (the file $dir/syncer.stop, after its merge in
		# hand) or when this script is gone, never in a merge
		rm -f "$dir/syncer.stop"
		(
			n=0
			while [ ! -e "$dir/syncer.stop" ] && kill -0 $$ 2>/dev/null; do
				sleep 5
				n=$((n + 5))
				[ $n -lt 60 ] || { n=0; record; }
			done
		) &
		syncer=$!
		"$RFC_HARNESS/guest.sh" --kernel "$kernel" --mem 4096 --timeout "$gt" --results "$boot" \
			--name fstests --append "rfc8797.transport=$transport rfc8797.inject=${RFC8797_INJECT:-}" \
			"$RFC_HARNESS/guest/fstests-client.sh" --fstests "$fst" --vers "$vers" \
			--list "$todo" --done "$done_n" --total "${#list[@]}" --budget "$left" \
			--per-test "$per_test" 2>&1 | sed -un 's/.*fstests-progress: /  /p' >&2
		rc=${PIPESTATUS[0]}
		touch "$dir/syncer.stop"
		wait "$syncer" 2>/dev/null
		record
		t=$(tail -n 1 "$boot/running" 2>/dev/null)
		if [ "$rc" != 0 ] && [ -n "$t" ] && ! grep -q "^$t " "$state"; then
			# the guest ended (time limit, crash) inside a test
			echo "$t hang 0 the guest ended in it (guest.sh exit $rc, see $boot/console.log)" >>"$dir/host.txt"
			msg "  $t: the guest ended in it (exit $rc)"
		elif [ ! -s "$boot/results.txt" ]; then
			ktap_test_fail "$name" "a guest recorded no result (guest.sh exit $rc), see $boot/console.log"
			return 1
		fi
	done

	# the report: one result per test of the list, in its order
	local res reason failure
	local -A why_of res_of
	while read -r t res _ reason; do
		res_of[$t]=$res why_of[$t]=$reason
	done <"$state"
	ktap_subtest_begin "$name" "${#list[@]}"
	for t in "${list[@]}"; do
		res=${res_of[$t]:-}
		reason=${why_of[$t]:-}
		case "$res" in
		notrun) ktap_test_skip "$t" "not run: $reason" ;;
		"") ktap_test_skip "$t" "no result yet (budget spent)" ;;
		hang)
			# never expected, whatever the list says of the test
			ktap_test_fail "$t" "hang: $reason" ;;
		*)
			[ "$res" = pass ] && failure="" || failure="$res: $reason"
			ktap_test_listed "$t" "$failure" "$(ktap_list_reason "$expunge" "$t")" "$expunge" ;;
		esac
	done
	ktap_subtest_end
}

case "${1:-}" in
source) fstests_source ;;
build) fstests_build ;;
run) shift; cmd_run "$@" ;;
merge) shift; whole_lines "$@" | merge_results ;;
-h | --help) usage ;;
*) usage >&2; exit 2 ;;
esac
