#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The prepared kernel tree: a git repository under $CACHE/tree whose
# history is
#
#   base tag   Debian's linux-source-6.12 as shipped (the pinned version,
#              or the base lib.sh falls back to: see base_note)
#   work       one commit per line of patches/BASE/series: the patch applied to
#              upstream files plus the new files (overlays) that line names
#
#   tree.sh prepare   create or update the tree from this repository
#   tree.sh refresh   write the tree's commits back as patches/ + overlays
#   tree.sh export    the postings of patches/BASE/postings, one folder each
#                     (postings.py), From: and Signed-off-by: the exporting
#                     user's git identity
#   tree.sh status    show what the tree holds
#   tree.sh bisect    build net/sunrpc at every commit of the series (W=1,
#                     a warning counts as broken); a commit whose source
#                     tree built cleanly before with the same .config,
#                     compiler and directories is not built again
#                     (BISECT_REBUILD=1 builds every one); the
#                     committed record data/bisect/BASE.clean counts as
#                     built before
#   tree.sh bisect --record
#                     the same, then the lines of the series' clean
#                     commits written to data/bisect/BASE.clean (make
#                     bisect-check), for a machine whose cache is cold
#   tree.sh base      build the pinned base without the series, with the
#                     test kernel's .config, in $CACHE/build/base (guest.sh
#                     --kernel base): upstream's code with siw and our
#                     debug options, for telling our bugs from upstream's
#   tree.sh base N    the same with the series' first N patches, in
#                     $CACHE/build/base-part (make bench BENCH_BASE=N)
#
# Materialising never rewrites a file whose content did not change, so an
# incremental kernel build after "prepare" only rebuilds what changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

SERIES=$PATCHES/series
STAMP=$TREE/.git/rfc8797-prepared
# Fixed identity and dates make the prepared commits reproducible: the
# same repository content always gives the same commit IDs.  The
# identity is the tree's own, never a person's: the patches carry no
# From:, and make export gives them the exporting user's.
FIXED_DATE="2025-11-14T00:00:00Z"
TREE_IDENT=(GIT_AUTHOR_NAME=rfc8797 GIT_AUTHOR_EMAIL=rfc8797@invalid
	GIT_COMMITTER_NAME=rfc8797 GIT_COMMITTER_EMAIL=rfc8797@invalid
	GIT_AUTHOR_DATE=$FIXED_DATE GIT_COMMITTER_DATE=$FIXED_DATE)

g() { git -C "$TREE" "$@"; }

ensure_base() {
	[ -d "$TREE/.git" ] && g rev-parse -q --verify "$BASE_TAG" >/dev/null && return
	local tarball old
	if [ -d "$TREE/.git" ]; then
		# a tree on another base (the pin moved, or Debian dropped it)
		old=$(g tag -l 'base-*' | head -n 1)
		if [ -z "${FORCE:-}" ]; then
			g diff --quiet HEAD -- ||
				die "$TREE ($old) has uncommitted edits; the base is now $BASE_TAG: commit them and 'make refresh', or FORCE=1 to discard"
			[ ! -f "$STAMP" ] || [ "$(g rev-parse HEAD)" = "$(cat "$STAMP")" ] ||
				die "$TREE ($old) has commits not written back; the base is now $BASE_TAG: 'make refresh', or FORCE=1 to discard"
		fi
		msg "the tree is on $old, the base is now $BASE_TAG: recreating it"
	fi
	tarball=$(base_tarball)
	msg "creating the base tree in $TREE from $tarball (once per base, about 1 min)"
	rm -rf "$TREE" "$CACHE/tree.tmp"
	mkdir -p "$CACHE/tree.tmp"
	tar -C "$CACHE/tree.tmp" -xf "$tarball"
	mv "$CACHE/tree.tmp/$BASE_SRC" "$TREE"
	rmdir "$CACHE/tree.tmp"
	g init -q -b work
	# Debian's top-level .gitignore ignores everything: force the add.
	g add -f -A . >/dev/null
	GIT_AUTHOR_NAME="Debian kernel team" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_COMMITTER_NAME="rfc8797" GIT_COMMITTER_EMAIL="rfc8797@invalid" \
	GIT_AUTHOR_DATE=$FIXED_DATE GIT_COMMITTER_DATE=$FIXED_DATE \
		g commit -q -m "Linux $BASE_PKG_VERSION (Debian $BASE_SRC)"
	g tag "$BASE_TAG"
}

# Kernel-path files of this repository that must be named in the series.
overlay_files() {
	(cd "$RFC_TOP" && git ls-files -co --exclude-standard -- include net Documentation tools |
		grep -v '^tools/testing/rfc8797/' || true)
}

# series_lines: "patch overlay..." without comments and blank lines
series_lines() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES"
}

# Build the commits in a private index without touching the work tree;
# print the resulting tip.
build_commits() {
	local idx=$TREE/.git/rfc8797-index tmp parent line p f blob mode tree
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	export GIT_INDEX_FILE=$idx
	g read-tree "$BASE_TAG"
	parent=$(g rev-parse "$BASE_TAG^{commit}")
	local listed=" "
	while read -r p rest; do
		[ -f "$PATCHES/$p" ] || die "patches/$BASE_SERIES/series names a missing patch: $p"
		git mailinfo "$tmp/msg" "$tmp/diff" <"$PATCHES/$p" >"$tmp/info"
		for f in $rest; do
			[ -f "$RFC_TOP/$f" ] || die "patches/$BASE_SERIES/series: $p names a missing file $f"
			blob=$(g hash-object -w "$RFC_TOP/$f")
			mode=100644
			[ -x "$RFC_TOP/$f" ] && mode=100755
			g update-index --add --cacheinfo "$mode,$blob,$f"
			listed="$listed$f "
		done
		# The patch after the new files: on a base other than the one
		# that owns them, it may change them (a backport's differences)
		if grep -q "^diff --git" "$tmp/diff"; then
			# then three-way, for a base other than the one the patch
			# was made on (its context moved)
			g apply --cached --whitespace=nowarn "$tmp/diff" 2>/dev/null ||
			g apply --cached --3way --whitespace=nowarn "$tmp/diff" >&2 ||
				die "patches/$BASE_SERIES/$p does not apply to $BASE_TAG$([ "$BASE_PKG_VERSION" = "$BASE_PIN" ] ||
					echo ", which is not the tested base $BASE_PIN"): run 'make refresh' from an edited tree, or fix it"
		fi
		tree=$(g write-tree)
		{
			sed -n 's/^Subject: //p' "$tmp/info"
			if [ -s "$tmp/msg" ]; then echo; cat "$tmp/msg"; fi
		} >"$tmp/commitmsg"
		parent=$(env "${TREE_IDENT[@]}" git -C "$TREE" commit-tree "$tree" -p "$parent" -F "$tmp/commitmsg")
	done < <(series_lines)
	unset GIT_INDEX_FILE
	# every new kernel file belongs to some base's series (one that only
	# mainline's has, such as a header of the netlink dump, is not in
	# the other's tree)
	while read -r f; do
		case "$listed" in
		*" $f "*) ;;
		*)	grep -q -E "^[^#]* $f( |\$)" "$RFC_TOP"/patches/*/series ||
				die "$f is a new kernel file but no patches/*/series names it" ;;
		esac
	done < <(overlay_files)
	echo "$parent"
}

cmd_prepare() {
	local new head
	ensure_base
	new=$(build_commits)
	head=$(g rev-parse -q --verify HEAD || true)
	if [ "$head" = "$new" ]; then
		# (a refresh reproduces the same commits: record them as written back)
		echo "$new" >"$STAMP"
		msg "tree up to date: $TREE ($(g rev-list --count "$BASE_TAG..$new") patches)"
		[ "$BASE_PKG_VERSION" = "$BASE_PIN" ] || msg "$(base_note)"
		return
	fi
	if [ -z "${FORCE:-}" ]; then
		if ! g diff --quiet HEAD --; then
			die "$TREE has uncommitted edits: commit them and run 'make refresh', or FORCE=1 to discard"
		fi
		if [ -f "$STAMP" ] && [ "$head" != "$(cat "$STAMP")" ]; then
			die "$TREE has commits not written back: run 'make refresh', or FORCE=1 to discard"
		fi
	fi
	g checkout -q -f -B work "$new"
	echo "$new" >"$STAMP"
	msg "tree prepared: $TREE ($(g rev-list --count "$BASE_TAG..$new") patches on $BASE_TAG)"
	msg "$(base_note)"
}

slug() {
	printf '%s' "$1" | sed -e 's/[^A-Za-z0-9._]/-/g' -e 's/--*/-/g' -e 's/^-//' | cut -c1-52 |
		sed -e 's/[-.]*$//'
}

# The new files live in this repository in the version of one base
# (BASE_OVERLAY=yes: the one upstream reviews), as the last commit of
# its series leaves them.  The patch of the commit that adds a file
# carries its differences from that version at that commit, applied
# after the files (build_commits): a backport's on another base, and on
# any base what later commits change in it (they patch it like any other
# file).

# overlay_diff COMMIT FILE...: the diff from this repository's version
# of the new FILEs to their version in COMMIT (nothing when equal)
overlay_diff() {
	local c=$1 f blob tree
	shift
	[ $# -gt 0 ] || return 0
	GIT_INDEX_FILE=$TREE/.git/rfc8797-index-ov g read-tree "$c"
	for f in "$@"; do
		[ -f "$RFC_TOP/$f" ] || continue
		blob=$(g hash-object -w "$RFC_TOP/$f")
		GIT_INDEX_FILE=$TREE/.git/rfc8797-index-ov g update-index --cacheinfo \
			"$(g ls-tree "$c" -- "$f" | cut -c1-6),$blob,$f"
	done
	tree=$(GIT_INDEX_FILE=$TREE/.git/rfc8797-index-ov g write-tree)
	rm -f "$TREE/.git/rfc8797-index-ov"
	g diff --no-renames "$tree" "$c" -- "$@"
}

cmd_refresh() {
	local c n=0 name added excl f all_added=() out
	ensure_base
	g diff --quiet HEAD -- || die "commit your edits in $TREE first (git -C $TREE commit)"
	# patches/ holds the series against the tested base
	[ "$BASE_PKG_VERSION" = "$BASE_PIN" ] || [ -n "${FORCE:-}" ] ||
		die "$(base_note): the patches would be made against it; FORCE=1 to write them all the same"
	# Every file that did not exist in the base is an overlay: it lives at
	# its path in this repository, in its final version on the overlay
	# base, and the commit that adds it carries only its differences
	# from that version (overlay_diff)
	if [ "$BASE_OVERLAY" = yes ]; then
		mapfile -t all_added < <(g diff --name-only --diff-filter=A "$BASE_TAG" HEAD)
		for f in "${all_added[@]}"; do
			mkdir -p "$(dirname "$RFC_TOP/$f")"
			g show "HEAD:$f" >"$RFC_TOP/$f"
			if [ "$(g ls-tree HEAD -- "$f" | cut -c1-6)" = 100755 ]; then
				chmod +x "$RFC_TOP/$f"
			else
				chmod -x "$RFC_TOP/$f"
			fi
		done
	fi
	mkdir -p "$PATCHES"
	out=$(mktemp)
	{
		echo "# RFC 8797 series on Debian $BASE_SRC $BASE_PKG_VERSION."
		echo "# One line per commit: the patch to upstream files, then the new files"
		echo "# it adds (kept at their kernel paths in this repository)."
		echo "# Generated by 'make refresh'; edit the tree, not this file."
	} >"$out"
	rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
	for c in $(g rev-list --reverse --first-parent "$BASE_TAG..HEAD"); do
		n=$((n + 1))
		name=$(printf '%04d-%s.patch' "$n" "$(slug "$(g log -1 --format=%s "$c")")")
		added=$(g diff --name-only --diff-filter=A "$c^" "$c" | tr '\n' ' ')
		excl=()
		for f in $added; do
			excl+=(":(exclude)$f")
		done
		{
			g log -1 --format='Subject: [PATCH] %s%n%n%b' "$c" | sed -e '${/^$/d}'
			echo "---"
			g diff --no-renames "$c^" "$c" -- . "${excl[@]}"
			overlay_diff "$c" $added
		} >"$PATCHES/$name"
		echo "$name ${added% }" | sed -e 's/ *$//' >>"$out"
	done
	mv "$out" "$SERIES"
	msg "wrote $n patches to patches/$BASE_SERIES/ and their new files; now re-preparing the tree"
	local want have
	have=$(g rev-parse "HEAD^{tree}")
	FORCE=1 cmd_prepare
	want=$(g rev-parse "HEAD^{tree}")
	[ "$have" = "$want" ] || die "the refreshed series does not reproduce the tree (see the notes above)"
}

cmd_export() {
	local dir=${1:-$CACHE/export}
	cmd_prepare
	rm -rf "$dir"
	python3 "$RFC_HARNESS/postings.py" export --tree "$TREE" --base-tag "$BASE_TAG" \
		--patches "$PATCHES" --out "$dir" --upstream "$BASE_UPSTREAM" \
		--upstream-commit "${BASE_UPSTREAM_COMMIT:-}" \
		--base-desc "Debian $BASE_SRC $BASE_PKG_VERSION" || die "export failed"
	msg "postings written to $dir:"
	ls "$dir" >&2
}

# src_at DIR COMMIT: a detached worktree of the tree at COMMIT in DIR,
# so that building another commit never moves the shared tree (a make
# check or make dkms may be reading it at the same time)
src_at() {
	[ "$(git -C "$1" rev-parse -q --verify HEAD 2>/dev/null)" = "$(g rev-parse "$2^{commit}")" ] &&
		git -C "$1" diff --quiet HEAD -- && return
	g worktree remove --force "$1" 2>/dev/null || rm -rf "$1"
	g worktree prune
	g worktree add -q --detach "$1" "$2"
}

# Build every commit of the series on its own (net/sunrpc and
# everything the commit touches outside it): each patch must build.
# The builds use their own output directory: an older commit's
# Kconfig drops the symbols that later patches add, and doing that in
# build/main would silently disable them (the KUnit suite, for one) in
# the next incremental build of the test kernel.
cmd_bisect() {
	local c n=0 t bad=0 log=$CACHE/logs/bisect.log out=$CACHE/build/bisect src=$CACHE/src/bisect
	local trees=$CACHE/logs/bisect.trees dirs tree key done=$CACHE/logs/bisect.clean
	local record=$RFC_HARNESS/data/bisect/$RFC_BASE.clean rec line why from=0
	cmd_prepare
	: >"$log"
	: >"$trees.new"
	: >"$trees.clean"
	mkdir -p "$out"
	[ -f "$CACHE/build/main/.config" ] ||
		die "no configured test kernel: run 'make build' first"
	# What a clean build depends on besides the source tree: the
	# .config it starts from, the compiler, and (per commit, below)
	# the directories built.  Every build starts from the test
	# kernel's .config (else from what the last commit built left: a
	# commit before the one that adds a symbol drops it, and the
	# commits after it would be built without it), so a build is a
	# function of these, and a source tree that built cleanly under
	# the same key is not built again: make check's postings stage
	# spent about three minutes here on commits that had not changed.
	key=$( { cat "$CACHE/build/main/.config"; gcc --version | head -n 1; echo W=1; } |
		sha256sum | cut -c1-16)
	# The record committed with the series (data/bisect/BASE.clean,
	# written by "make bisect-check") holds the same lines, made on
	# another machine: a line names the whole source tree, the .config,
	# the compiler and the directories, so it is a clean build of this
	# commit as much as a line of this machine's own record is.  A
	# machine with a cold cache (CI's) then builds only the commits
	# the record does not name.
	rec=$record
	if [ -n "${BISECT_REBUILD:-}" ]; then
		: >"$done"
		rec=/dev/null
	fi
	for c in $(g rev-list --reverse "$BASE_TAG..work"); do
		n=$((n + 1)) t=$SECONDS
		tree=$(g rev-parse "$c^{tree}")
		# net/sunrpc/ and the directory of every C file the commit
		# touches outside it (fs/nfs/, drivers/infiniband/sw/siw/)
		dirs=$(g diff --name-only "$c^" "$c" -- '*.c' ':!net/sunrpc/*' |
			sed 's,/[^/]*$,/,' | sort -u | paste -sd' ')
		line="$tree $key${dirs:+ $dirs}"
		why=""
		if grep -sqxF "$line" "$done"; then
			why="built cleanly before"
		elif grep -sqxF "$line" "$rec"; then
			why="built cleanly, says ${rec#"$RFC_TOP"/}"
			from=$((from + 1))
		fi
		if [ -n "$why" ]; then
			echo "builds: $n $(g log -1 --format=%s "$c") ($why: tree ${tree:0:12})"
			echo "$tree ok" >>"$trees.new"
			echo "$line" >>"$trees.clean"
			continue
		fi
		git -C "$src" checkout -q "$c" 2>/dev/null || src_at "$src" "$c"
		cp "$CACHE/build/main/.config" "$out/.config"
		# shellcheck disable=SC2086 # one word per directory
		if KSRC=$src kmake "$out" -j"$JOBS" W=1 net/sunrpc/ $dirs >"$log.one" 2>&1 &&
				! grep -q 'warning:' "$log.one"; then
			cat "$log.one" >>"$log"
			echo "builds: $n $(g log -1 --format=%s "$c") ($((SECONDS - t)) s)"
			echo "$tree ok" >>"$trees.new"
			echo "$line" >>"$done"
			echo "$line" >>"$trees.clean"
		else
			cat "$log.one" >>"$log"
			echo "BROKEN: $n $(g log -1 --format=%s "$c") (build error or W=1 warning, see $log; $((SECONDS - t)) s)"
			echo "$tree broken" >>"$trees.new"
			bad=1
		fi
	done
	# what postings.py check reads: the tree each commit built
	mv "$trees.new" "$trees"
	echo "# $from of $n commits built cleanly by the record ${rec#"$RFC_TOP"/}, not here"
	if [ "${1:-}" = --record ]; then
		# the series' clean commits alone, in its order: the record
		# follows the series as the patches do
		mkdir -p "${record%/*}"
		{
			echo "# tree.sh bisect --record (make bisect-check): one line a commit of"
			echo "# patches/$BASE_SERIES that built cleanly, \"TREE KEY DIRS\" as tree.sh bisect"
			echo "# keys its record"
			cat "$trees.clean"
		} >"$record"
		echo "# recorded: $(wc -l <"$trees.clean") of $n commits in data/bisect/$RFC_BASE.clean"
	fi
	return $bad
}

# cmd_base [N]: the pinned base without the series (N empty or 0) in
# $CACHE/build/base, or with the series' first N commits in
# $CACHE/build/base-part (one directory for every N, rebuilt
# incrementally: make bench's BENCH_BASE=N, to find which patch a
# difference comes from), with the test kernel's .config
cmd_base() {
	local n=${1:-0} name=base c out src log rc=0 total
	cmd_prepare
	[ -f "$CACHE/build/main/.config" ] ||
		die "no configured test kernel: run 'make build' first"
	total=$(g rev-list --count "$BASE_TAG..work")
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -lt "$total" ] ||
		die "base N=$n: 0 to $((total - 1)) (the series has $total patches)"
	c=$BASE_TAG
	if [ "$n" != 0 ]; then
		name=base-part
		c=$(g rev-list --reverse "$BASE_TAG..work" | sed -n "${n}p")
	fi
	out=$CACHE/build/$name log=$CACHE/logs/build-$name.log src=$CACHE/src/$name
	mkdir -p "$out"
	# the same options, told apart by uname -r
	sed "s/^CONFIG_LOCALVERSION=.*/CONFIG_LOCALVERSION=\"-rfc8797-$name${n#0}\"/" \
		"$CACHE/build/main/.config" >"$out/.config"
	# base-part: moving its one worktree in place touches only the
	# files that differ, so that going from one N to another rebuilds
	# little
	if [ "$n" = 0 ] || ! git -C "$src" checkout -q -f --detach "$c" 2>/dev/null; then
		src_at "$src" "$c"
	fi
	msg "building $name ($(g log -1 --format='%h %s' "$c")) in $out from $src, log $log"
	KSRC=$src kmake "$out" olddefconfig >"$log" 2>&1 &&
		KSRC=$src kmake "$out" -j"$JOBS" bzImage >>"$log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || die "$name kernel build failed, see $log"
	echo "$out/arch/x86/boot/bzImage"
}

cmd_status() {
	ensure_base
	echo "tree:   $TREE"
	echo "base:   $BASE_TAG ($(g rev-parse --short "$BASE_TAG"))"
	g log --oneline "$BASE_TAG..HEAD"
	g diff --quiet HEAD -- || echo "(uncommitted edits)"
}

case "${1:-}" in
prepare|refresh|status) "cmd_$1" ;;
base | export | bisect) c=$1; shift; "cmd_$c" "$@" ;;
*) echo "usage: $0 prepare|refresh|export [DIR]|status|bisect [--record]|base [N]" >&2; exit 2 ;;
esac
