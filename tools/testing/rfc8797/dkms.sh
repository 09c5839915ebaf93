#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The patched rpcrdma.ko as a DKMS package for Debian's stock kernels of
# the base's line: BASE=6.12 rpcrdma-rfc8797-dkms for Debian 12 and 13's
# 6.12, BASE=mainline rpcrdma-rfc8797-7.3-dkms for Debian 13's backports
# 7.3 (data/bases/BASE: DKMS_NAME, DKMS_LINE, DKMS_MIN_SUBLEVEL).
#
#   dkms.sh package          build rpcrdma-rfc8797-dkms_VERSION_all.deb from
#                            the prepared tree (tree.sh prepare); prints its path
#   dkms.sh select           only show which commits of the series go into
#                            the module and why the others are left out
#   dkms.sh build DEB KREL   build the module from DEB exactly as DKMS does
#                            (dkms add/build in a scratch DKMS tree, against
#                            /usr/src/linux-headers-KREL); prints the .ko path
#   dkms.sh modules DEB KREL a modules directory for guest.sh --kernel dkms:
#                            Debian's stock modules of KREL plus the module
#                            built from DEB in updates/dkms/, depmod'ed
#
# Which commits go into the module.  The module is loaded into a stock
# kernel whose sunrpc.ko, nfs.ko and nfsd.ko stay stock, so a commit can
# only go in when every file it changes is
#   - under net/sunrpc/xprtrdma/ (built into rpcrdma.ko only), or
#   - a header under include/ (not uapi) that, directly or through other
#     headers, only files under net/sunrpc/xprtrdma/ include (checked
#     with git grep in the prepared tree): the module may carry its own
#     copy, e.g. trace/events/rpcrdma.h or linux/sunrpc/svc_rdma.h, or
#   - a header that other files include too, when every line the commit
#     changes in it defines a constant (#define NAME VALUE, or an enum
#     constant NAME = VALUE) whose name no file outside the module uses
#     in the base, the code the stock modules were built from: the
#     module's copy then differs from theirs only where they do not
#     look, e.g. RPCRDMA_DEF_INLINE in linux/sunrpc/xprtrdma.h, which
#     fs/nfs includes for XPRT_TRANSPORT_RDMA alone, or
#   - not compiled at all: Documentation/, MAINTAINERS, Kconfig files,
#     .kunitconfig, tools/ (a new Kconfig symbol is simply unset in
#     Debian's .config).
# Any other file (net/sunrpc outside xprtrdma, include/linux/sunrpc/xprt.h,
# a header another module includes) would change code or a struct layout
# that sunrpc.ko or nfsd.ko was built with: such a commit is left out.
# A later commit is left out too when its added code uses an identifier
# that a left-out commit introduced (one that does not occur in the tree
# before it).  The commits that go in are applied, in order, to the base; one
# that does not apply without the left-out ones stops the build with its
# name.  The build against the headers then catches what the identifier
# check cannot see.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
resolve_base || exit 1

NAME=$DKMS_NAME
PKG=$DKMS_PKG
OUT=$CACHE/dkms
MODDIR=net/sunrpc/xprtrdma

g() { git -C "$TREE" "$@"; }

# The oldest 6.12 the module is built for.  Its sources are the base's
# rpcrdma, which uses what the base's shared headers declare: 6.12.107's
# include/linux/sunrpc/svc.h has no svc_serv_maxpages() (the build fails
# there, and dpkg then leaves the package half-configured); from
# 6.12.111 to 6.12.117, the headers the module shares with sunrpc.ko,
# nfs.ko and ib_core.ko (include/linux/sunrpc, include/linux/nfs*,
# include/rdma) are the same as the base's, bar svc_rdma.h, which the
# package carries (compared in Debian's linux-headers-*-common).  DKMS
# skips an older kernel like any kernel that is not 6.12.  The number,
# DKMS_MIN_SUBLEVEL, is set in data/bases/6.12: the dkms stage also builds the
# module against that kernel's headers (DKMS_KRELS).
#
# The oldest 7.3 (mainline's package), worked out the same way: the
# Debian 7.3 kernels the mirror offers are 7.3.4+deb13 (trixie-backports,
# the base) and 7.3~rc7-1~exp1 (experimental, release "7.3-amd64", built
# with gcc-16); Debian never shipped 7.3.1 to 7.3.3.  Their
# linux-headers-*-common hold the same include/linux/sunrpc,
# include/linux/nfs* and include/rdma as each other and as the base
# (compared file by file, 2026-11-26), so the module's sources match
# both; the range starts at 7.3.4, the oldest 7.3 release Debian built:
# the pattern matches 7.3.N only, and an rc's release has no sublevel
# (an experimental prerelease is not what the package is for).  Later
# 7.3.N are accepted as later 6.12.N are: a stable update that changed
# those headers would break the build, which DKMS then reports.

# sublevel_regex X.Y MIN: an extended regular expression for the kernel
# releases X.Y.N with N >= MIN, for BUILD_EXCLUSIVE_KERNEL (the
# BUILD_EXCLUSIVE_KERNEL_MIN of dkms 3.1 is unknown to bookworm's 3.0.10)
sublevel_regex() {
	local m=$2 l=${#2} i j d alt=$2 any
	for ((i = 0; i < l; i++)); do
		d=${m:i:1}
		[ "$d" -lt 9 ] || continue
		any=""
		for ((j = i + 1; j < l; j++)); do any="${any}[0-9]"; done
		alt="$alt|${m:0:i}[$((d + 1))-9]$any"
	done
	echo "^${1//./\\.}\\.($alt|[1-9][0-9]{$l,})([^0-9]|\$)"
}

# includers_ok HEADER: true when HEADER (a path under include/) is
# included, directly or through other headers, only by files under
# net/sunrpc/xprtrdma/; the offending includer goes to stdout otherwise.
# The include graph is the base's: the stock modules that stay loaded
# were built from it, and an #include that a commit adds outside the
# module directory is in a commit that is left out anyway (nfsd's
# netlink dump, which reads svc_rdma.h, on mainline).  One git grep per
# header, remembered.
declare -A INCLUDERS_OK=()
includers_ok() {
	local todo=("${1#include/}") seen=" " h f
	if [ -n "${INCLUDERS_OK[$1]:-}" ]; then
		[ "${INCLUDERS_OK[$1]}" = ok ] && return 0
		echo "${INCLUDERS_OK[$1]}"
		return 1
	fi
	while [ ${#todo[@]} -gt 0 ]; do
		h=${todo[0]}
		todo=("${todo[@]:1}")
		case "$seen" in *" $h "*) continue ;; esac
		seen="$seen$h "
		while read -r f; do
			case "$f" in
			$MODDIR/*) ;;
			include/uapi/*|include/*.h) todo+=("${f#include/}") ;;
			Documentation/*|tools/*) ;;
			*) INCLUDERS_OK[$1]=$f; echo "$f"; return 1 ;;
			esac
		done < <(g grep -F -e "$h" "$BASE_TAG" -- '*.c' '*.h' '*.S' |
			sed "s|^$BASE_TAG:||" |
			grep -E "^[^:]*:[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]${h//./\\.}[>\"]" |
			cut -d: -f1 | sort -u)
	done
	INCLUDERS_OK[$1]=ok
	return 0
}

# consts_only COMMIT HEADER: true when every line COMMIT changes in
# HEADER defines a constant (#define NAME VALUE, or an enum constant
# NAME = VALUE,) and no file outside the module directory uses one of
# those names in the base; a header counts as outside unless only module
# files include it, and HEADER itself counts when it uses the name on
# more lines than its definition.  Prints why not otherwise.
consts_only() {
	local c=$1 h=$2 names n f uses
	names=$(g diff -U0 "$c^" "$c" -- "$h" | sed -e '/^[-+][-+][-+] /d' -n -e 's/^[-+]//p' |
		sed -E -n -e '/^[[:space:]]*$/d' \
			-e 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)[[:space:]].*/\1/p' -e t \
			-e 's/^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*=[^;{}()]*,?[[:space:]]*(\/\*.*\*\/)?[[:space:]]*$/\1/p' -e t \
			-e 's/.*/!/p' | sort -u)
	case "$names" in
	"") echo "it changes $h"; return 1 ;;
	*'!'*) echo "it changes more than constants in $h"; return 1 ;;
	esac
	for n in $names; do
		while read -r f; do
			f=${f#*:}
			if [ "$f" = "$h" ]; then
				uses=$(g grep -c -w -F -e "$n" "$BASE_TAG" -- "$h" | cut -d: -f3)
				[ "${uses:-0}" -le 1 ] && continue
			elif [[ "$f" == include/*.h ]] && includers_ok "$f" >/dev/null; then
				continue
			fi
			echo "it changes $n in $h, which $f uses"
			return 1
		done < <(g grep -l -w -F -e "$n" "$BASE_TAG" -- . ":(exclude)$MODDIR/" 2>/dev/null)
	done
	return 0
}

# file_class COMMIT FILE VAR: sets the caller's variable VAR to module,
# neutral, or "shared REASON" (not in a subshell: includers_ok
# remembers its answers)
file_class() {
	local f=$2 why
	local -n _fc=$3
	case "$f" in
	$MODDIR/*) _fc=module ;;
	Documentation/*|MAINTAINERS|Kconfig|*/Kconfig|*/Kconfig.*|*/.kunitconfig|tools/*) _fc=neutral ;;
	include/uapi/*) _fc="shared $f is user-space ABI" ;;
	include/*.h)
		if includers_ok "$f" >/dev/null; then
			_fc=module
		elif why=$(consts_only "$1" "$f"); then
			_fc=module
		else
			_fc="shared $f is also included by ${INCLUDERS_OK[$f]}: $why"
		fi ;;
	*) _fc="shared $f is built into another module or the kernel" ;;
	esac
}

# idents_added COMMIT: identifiers on the code lines the commit adds
# (C sources and headers: words of documentation do not depend on code)
idents_added() {
	g diff "$1^" "$1" -- '*.c' '*.h' | sed -n -e '/^+++ /d' -e 's/^+//p' |
		grep -vE '^[[:space:]]*(\*|/\*|//)' |
		grep -oE '\b[A-Za-z_][A-Za-z0-9_]{3,}\b' | sort -u || true	# none
}

# select_commits: for each commit of the series a line
#   in|out SHA SUBJECT [-- REASON]
# into $sel (selected counts them)
select_commits() {
	local c subj f cls reason tok tmp
	[ "$(g rev-parse HEAD)" = "$(g rev-parse work)" ] ||
		die "$TREE is not at the tip of its work branch: run 'make tree'"
	tmp=$(mktemp -d)
	: >"$tmp/left-idents"	# "ident subject" of left-out commits
	: >"$sel"
	for c in $(g rev-list --reverse "$BASE_TAG..work"); do
		subj=$(g log -1 --format=%s "$c")
		reason=""
		while read -r f; do
			file_class "$c" "$f" cls
			case "$cls" in shared*) reason=${cls#shared }; break ;; esac
		done < <(g diff --name-only --no-renames "$c^" "$c")
		if [ -z "$reason" ] && [ -s "$tmp/left-idents" ]; then
			idents_added "$c" >"$tmp/mine"
			tok=$(awk 'NR == FNR { w[$1] = 1; next } ($1 in w) { print; exit }' \
				"$tmp/mine" "$tmp/left-idents")
			[ -z "$tok" ] || reason="uses ${tok%% *}, added by the left-out \"${tok#* }\""
		fi
		if [ -z "$reason" ]; then
			echo "in $c $subj" >>"$sel"
			continue
		fi
		echo "out $c $subj -- $reason" >>"$sel"
		# its new identifiers: added here, absent from the tree before
		# it.  The files it changes already hold most words it adds
		# (struct, return, ...); only the rest is looked up in the whole
		# tree, where printing every match of a common word would take
		# minutes.
		idents_added "$c" >"$tmp/added"
		g diff --name-only --no-renames "$c^" "$c" -- '*.c' '*.h' | while read -r f; do
			g show "$c^:$f" 2>/dev/null || true	# a file it adds
		done | { grep -oE '\b[A-Za-z_][A-Za-z0-9_]{3,}\b' || true; } | sort -u >"$tmp/pre"
		comm -23 "$tmp/added" "$tmp/pre" >"$tmp/new"
		if [ -s "$tmp/new" ]; then
			g grep -h -o -w -F -f "$tmp/new" "$c^" -- '*.c' '*.h' 2>/dev/null |
				sort -u >"$tmp/old" || true
			comm -23 "$tmp/new" "$tmp/old" | sed "s|\$| $subj|" >>"$tmp/left-idents"
		fi
	done
	rm -rf "$tmp"
}

# selected in|out: how many commits select_commits put in the module,
# or left out
selected() { grep -c "^$1 " "$sel" || true; }	# "0" is a count, not a failure

# module_tree: the tree object of the base plus the selected commits
module_tree() {
	local c idx tmp subj
	if [ "$(selected out)" = 0 ]; then
		g rev-parse "work^{tree}"
		return
	fi
	tmp=$(mktemp -d)
	idx=$tmp/index
	GIT_INDEX_FILE=$idx g read-tree "$BASE_TAG"
	while read -r what c subj; do
		[ "$what" = in ] || continue
		if ! g diff --binary "$c^" "$c" | GIT_INDEX_FILE=$idx g apply --cached --3way \
				>"$tmp/apply.log" 2>&1; then
			cat "$tmp/apply.log" >&2
			rm -rf "$tmp"
			die "\"$subj\" does not apply without the commits left out of the module ($(selected out) left out: see 'dkms.sh select'); leave it out too or make it independent"
		fi
	done <"$sel"
	GIT_INDEX_FILE=$idx g write-tree
	rm -rf "$tmp"
}

print_selection() {
	local what c rest
	while read -r what c rest; do
		if [ "$what" = in ]; then
			printf '  in   %s\n' "${rest}"
		else
			printf '  OUT  %s\n         (%s)\n' "${rest%% -- *}" "${rest#* -- }"
		fi
	done <"$sel"
}

# rel_includes TREE FILE: the files outside the module directory that
# FILE includes with #include "..." (relative to FILE), recursively
rel_includes() {
	local t=$1 todo=("$2") seen=" " f dir inc p
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		dir=$(dirname "$f")
		while read -r inc; do
			p=$(realpath -m --relative-to=/ "/$dir/$inc")
			case "$seen" in *" $p "*) continue ;; esac
			g cat-file -e "$t:$p" 2>/dev/null || continue
			seen="$seen$p "
			case "$p" in $MODDIR/*) ;; *) echo "$p" ;; esac
			todo+=("$p")
		done < <(g show "$t:$f" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
	done
}

# holders FILE...: the copyright holders FILEs name, one per line
holders() {
	grep -hoiE 'Copyright \(c\) [0-9][^.]*\.?' -- "$@" | sed -E 's/^Copyright \([cC]\) //' | sort -u || true
}

# copyright SRC: debian/copyright (DEP-5) of the package's sources in
# SRC: GPL-2 for every file, GPL-2 or BSD-3-clause for those whose
# SPDX-License-Identifier says "GPL-2.0 OR BSD-3-Clause"; the holders
# their notices name, and the BSD text as those files carry it
copyright() {
	local src=$1 f spdx dual=() gpl=() bare=0 one
	while read -r f; do
		spdx=$(sed -n '1,3s/.*SPDX-License-Identifier: *\([^*]*[^* ]\).*/\1/p' "$src/$f" | head -n 1)
		case "$spdx" in
		"GPL-2.0 OR BSD-3-Clause") dual+=("$f") ;;
		*) gpl+=("$f") ;;
		esac
		grep -qi 'Copyright (c)' "$src/$f" || bare=1
	done < <(cd "$src" && find . -type f -name '*.[ch]' | sed 's|^\./||' | sort)
	[ ${#dual[@]} -gt 0 ] || die "no dual-licensed source in $src"
	echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	echo "Upstream-Name: Linux, net/sunrpc/xprtrdma (rpcrdma.ko)"
	echo "Source: Debian's $BASE_SRC $BASE_PKG_VERSION with the RFC 8797 series"
	echo
	echo "Files: *"
	{
		(cd "$src" && holders "${gpl[@]}")
		[ "$bare" = 0 ] || echo "the authors of the Linux kernel (files without a notice of their own)"
	} | sed -e '1s/^/Copyright: /' -e '1!s/^/ /'
	echo "License: GPL-2"
	echo
	echo "Files: ${dual[0]}"
	printf ' %s\n' "${dual[@]:1}"
	(cd "$src" && holders "${dual[@]}") | sed -e '1s/^/Copyright: /' -e '1!s/^/ /'
	echo "License: GPL-2 or BSD-3-clause"
	echo
	echo "License: GPL-2"
	echo " On Debian systems, the complete text of the GNU General Public License"
	echo " version 2 can be found in /usr/share/common-licenses/GPL-2."
	echo
	echo "License: BSD-3-clause"
	# the text as the first of those files has it
	one=$src/${dual[0]}
	sed -n '/Redistribution and use in source and binary forms/,/SUCH DAMAGE\./p' "$one" |
		sed -E 's/^ \*( {0,6})?//; s/^$/./; s/^/ /; s/^ $/ ./'
}

# c_string TEXT: TEXT as a C string literal (a subject may quote words;
# "?" escaped too, so that no "??=" reads as a trigraph)
c_string() {
	local t=${1//\\/\\\\}
	t=${t//\"/\\\"}
	printf '"%s"' "${t//\?/\\?}"
}

# modinfo_compiles FILE LEFT: the generated rfc8797_dkms.c compiles with
# the host's compiler (module.h's macros as plain arrays) and its
# rfc8797_left_out string reads LEFT.  Otherwise DKMS fails on every
# kernel, but only once the package is installed.
modinfo_compiles() {
	local file=$1 want=$2 dir got
	dir=$(mktemp -d)
	mkdir -p "$dir/linux"
	printf '%s\n' '#include <stdio.h>' \
		'#define MODULE_VERSION(v) static const char version[] = v' \
		'#define MODULE_INFO(tag, v) static const char tag[] = v' >"$dir/linux/module.h"
	{
		cat "$file"
		echo 'int main(void) { (void)version; (void)rfc8797_series; fputs(rfc8797_left_out, stdout); return 0; }'
	} >"$dir/t.c"
	if ! gcc -Wall -Werror -I"$dir" -o "$dir/t" "$dir/t.c" >"$dir/err" 2>&1; then
		got=$(grep -m 1 error "$dir/err" || head -n 1 "$dir/err")
		rm -rf "$dir"
		die "the generated $(basename "$file") does not compile: $got"
	fi
	got=$("$dir/t")
	rm -rf "$dir"
	[ "$got" = "$want" ] || die "rfc8797_left_out reads '$got', not '$want'"
}

cmd_select() {
	sel=$(mktemp)
	select_commits
	echo "base $BASE_TAG, $(selected in) commits in the module, $(selected out) left out:"
	print_selection
	rm -f "$sel"
}

cmd_package() {
	local tip tree ver stage src f hdrs=() priv=() left n_in n_out n_all desc date maint
	[ -d "$TREE/.git" ] || die "no prepared tree in $TREE: run 'make tree'"
	g diff --quiet HEAD -- || die "$TREE has uncommitted edits; the package is built from committed work only"
	mkdir -p "$OUT"
	rm -f "$OUT/${PKG}_"*.deb "$OUT/${PKG}_"*.buildinfo "$OUT/${PKG}_"*.changes
	sel=$OUT/selection.txt
	select_commits
	print_selection >&2
	tree=$(module_tree)
	# 8 hex digits keep the .deb's name within lintian's 80 characters
	tip=$(g rev-parse --short=8 work)
	n_in=$(selected in) n_out=$(selected out)
	n_all=$((n_in + n_out))
	# VERSION: the base's upstream version, the number of commits in the
	# module and the prepared tree's tip (reproducible: tree.sh commits
	# with fixed identities and dates, so it names the series' content)
	ver="${BASE_PKG_VERSION%%-*}+rfc8797.$n_in.g$tip"
	[ "$n_out" = 0 ] || ver="$ver.partial"
	left=$(sed -n 's/^out [0-9a-f]* \(.*\) -- .*/\1/p' "$sel" | paste -sd ';' - | sed 's/;/; /g')
	stage=$OUT/stage
	rm -rf "$stage"
	src=$stage/src
	mkdir -p "$src"

	# the module directory, and every include/ file a selected commit changes
	g archive "$tree" "$MODDIR" | tar -C "$src" -xf -
	rm -f "$src/$MODDIR/.kunitconfig"
	mapfile -t hdrs < <(while read -r what c rest; do
		[ "$what" = in ] && g diff --name-only --diff-filter=AM "$c^" "$c" -- include/
	done <"$sel" | sort -u)
	# private headers included with a relative path, e.g. ../netns.h
	mapfile -t priv < <(for f in $(g ls-tree -r --name-only "$tree" -- "$MODDIR/"); do
		case "$f" in *.c|*.h) rel_includes "$tree" "$f" ;; esac
	done | sort -u)
	for f in "${hdrs[@]}" "${priv[@]}"; do
		mkdir -p "$src/$(dirname "$f")"
		g show "$tree:$f" >"$src/$f"
	done

	# what this module is, for modinfo
	desc="$n_in of $n_all commits of the series on $BASE_SRC $BASE_PKG_VERSION, tree $tip"
	cat >"$src/$MODDIR/rfc8797_dkms.c" <<EOF
// SPDX-License-Identifier: GPL-2.0
/* Generated by tools/testing/rfc8797/dkms.sh: the identity of this
 * out-of-tree rpcrdma.ko (DKMS package $PKG).
 */
#include <linux/module.h>

MODULE_VERSION($(c_string "rfc8797-$ver"));
MODULE_INFO(rfc8797_series, $(c_string "$desc"));
MODULE_INFO(rfc8797_left_out, $(c_string "${left:-none}"));
EOF
	modinfo_compiles "$src/$MODDIR/rfc8797_dkms.c" "${left:-none}"
	cat >"$src/$MODDIR/Kbuild" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# Generated by tools/testing/rfc8797/dkms.sh.  The series' own Makefile,
# plus the object that names this build in modinfo; the headers this
# package carries (include/) come before the kernel headers' stock copies.
include $(src)/Makefile
rpcrdma-y += rfc8797_dkms.o
NOSTDINC_FLAGS += -I$(abspath $(src)/../../../include)
EOF
	cat >"$src/dkms.conf" <<EOF
# Generated by tools/testing/rfc8797/dkms.sh from the RFC 8797 series.
PACKAGE_NAME="$NAME"
PACKAGE_VERSION="$ver"
BUILT_MODULE_NAME[0]="rpcrdma"
BUILT_MODULE_LOCATION[0]="$MODDIR/"
# Debian's dkms installs into /lib/modules/KREL/updates/dkms whatever this
# says; depmod prefers updates/ to the in-tree kernel/ module.
DEST_MODULE_LOCATION[0]="/updates"
MAKE[0]="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build/$MODDIR KERNELRELEASE=\${kernelver} modules"
CLEAN="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build/$MODDIR clean"
AUTOINSTALL="yes"
# The sources are the base's $DKMS_LINE code: Debian's $DKMS_LINE kernels from
# $DKMS_LINE.$DKMS_MIN_SUBLEVEL on (their shared sunrpc headers are the base's),
# with rpcrdma as a module (so that ours can replace it)
BUILD_EXCLUSIVE_KERNEL="$(sublevel_regex "$DKMS_LINE" "$DKMS_MIN_SUBLEVEL")"
BUILD_EXCLUSIVE_CONFIG="CONFIG_SUNRPC_XPRT_RDMA CONFIG_INFINIBAND"
EOF
	{
		echo "# $PKG $ver: where every file comes from (sha256, path)"
		echo "# base: $BASE_SRC $BASE_PKG_VERSION ($BASE_TAG); prepared tree tip $(g rev-parse work)"
		echo "# module tree: $tree"
		echo "# commits:"
		sed -e 's/^in \([0-9a-f]\{12\}\)[0-9a-f]* /#   in  \1 /' \
		    -e 's/^out \([0-9a-f]\{12\}\)[0-9a-f]* /#   OUT \1 /' "$sel"
		echo "# headers carried because the module's commits change them: ${hdrs[*]:-none}"
		echo "# private headers included by relative path (same base as the sources): ${priv[*]:-none}"
		(cd "$src" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
	} >"$src/MANIFEST"

	# the Debian package (debhelper + dh_dkms: postinst builds and installs,
	# with bookworm's dkms 3.0 for the running and the newest kernel, with
	# trixie's 3.2 for every kernel whose headers are installed; prerm
	# removes every build)
	date=$(g log -1 --format=%aD work)
	# who built it: DEBFULLNAME and DEBEMAIL, as for dch
	case "${DEBEMAIL:-}" in
	*"<"*) maint=$DEBEMAIL ;;	# dch's "Name <address>" form
	*) maint="${DEBFULLNAME:-RFC 8797 NFS/RDMA package builder} <${DEBEMAIL:-rfc8797@example.org}>" ;;
	esac
	mkdir -p "$stage/debian/source"
	echo "3.0 (native)" >"$stage/debian/source/format"
	cat >"$stage/debian/control" <<EOF
Source: $PKG
Section: kernel
Priority: optional
Maintainer: $maint
Build-Depends: debhelper-compat (= 13), dh-sequence-dkms
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: $PKG
Architecture: all
Depends: \${misc:Depends}
Recommends: linux-headers-amd64
Description: NFS/RDMA transport (rpcrdma) with RFC 8797 CM Private Data, DKMS$DKMS_SYNOPSIS
 The Linux $DKMS_LINE rpcrdma module (NFS/RDMA client xprtrdma and server
 svcrdma) with the RFC 8797 patch series, built by DKMS for Debian's
$(echo "$DKMS_LINE kernels$DKMS_KERNELS and installed in updates/dkms, where it takes precedence over the kernel's own rpcrdma.ko.$DKMS_OTHER" | fold -s -w 72 | sed -e 's/ *$//' -e 's/^/ /')
 .
$(echo "Series: $desc. Left out of this build: ${left:-nothing}." | fold -s -w 72 | sed 's/^/ /')
EOF
	cat >"$stage/debian/changelog" <<EOF
$PKG ($ver) unstable; urgency=medium

$(echo "$desc." | fold -s -w 74 | sed -e 's/ *$//' -e '1s/^/  * /' -e '1!s/^/    /')

 -- $maint  $date
EOF
	copyright "$src" >"$stage/debian/copyright"
	cat >"$stage/debian/rules" <<'EOF'
#!/usr/bin/make -f
%:
	dh $@
EOF
	chmod +x "$stage/debian/rules"
	echo "src/* usr/src/$NAME-$ver/" >"$stage/debian/install"
	echo "src/dkms.conf" >"$stage/debian/$PKG.dkms"
	(cd "$stage" && dpkg-buildpackage -b -uc -us -tc) >"$OUT/dpkg-buildpackage.log" 2>&1 ||
		{ tail -n 30 "$OUT/dpkg-buildpackage.log" >&2; die "dpkg-buildpackage failed, see $OUT/dpkg-buildpackage.log"; }
	[ -f "$OUT/${PKG}_${ver}_all.deb" ] || die "no package written"
	msg "$OUT/${PKG}_${ver}_all.deb: $desc; left out: ${left:-nothing}"
	echo "$OUT/${PKG}_${ver}_all.deb"
}

# scratch_dkms DEB KREL DIR: dkms add + build of DEB's source against
# /usr/src/linux-headers-KREL in a DKMS tree of its own under DIR (the
# host's /var/lib/dkms and /lib/modules stay untouched); prints the .ko
scratch_dkms() {
	local deb=$1 krel=$2 d=$3 ver hdr ko
	hdr=/usr/src/linux-headers-$krel
	[ -d "$hdr" ] || die "no $hdr (apt-get install linux-headers-$krel)"
	rm -rf "$d"
	mkdir -p "$d/root" "$d/dkms" "$d/source" "$d/install" "$d/key"
	dpkg-deb -x "$deb" "$d/root"
	ver=$(dpkg-deb -f "$deb" Version)
	cp -a "$d/root/usr/src/$NAME-$ver" "$d/source/"
	# signing as dkms does it on Debian, with a throw-away key
	export mok_signing_key=$d/key/mok.key mok_certificate=$d/key/mok.pub
	if ! dkms --dkmstree "$d/dkms" --sourcetree "$d/source" --installtree "$d/install" \
			add -m "$NAME" -v "$ver" >"$d/dkms.log" 2>&1 ||
	   ! dkms --dkmstree "$d/dkms" --sourcetree "$d/source" --installtree "$d/install" \
			build -m "$NAME" -v "$ver" -k "$krel" --kernelsourcedir "$hdr" >>"$d/dkms.log" 2>&1; then
		cat "$d/dkms/$NAME/$ver/build/make.log" "$d/dkms.log" 2>/dev/null | tail -n 40 >&2
		die "dkms build of $NAME $ver for $krel failed, see $d/dkms.log"
	fi
	ko=$(find "$d/dkms/$NAME/$ver/$krel" -name 'rpcrdma.ko*' | head -n 1)
	[ -n "$ko" ] || die "dkms built no rpcrdma.ko for $krel"
	echo "$ko"
}

cmd_build() {
	local deb=$1 krel=$2 ko start=$SECONDS
	ko=$(scratch_dkms "$deb" "$krel" "$OUT/scratch-$krel")
	msg "dkms build for $krel: $((SECONDS - start)) s, $ko"
	echo "$ko"
}

# cmd_modules DEB KREL: $OUT/modules-KREL/lib/modules/KREL, Debian's
# stock modules (hard links into the extracted package) plus ours in
# updates/dkms, as dkms install puts it, and depmod run over it
cmd_modules() {
	local deb=$1 krel=$2 ko stock root m
	[ "$krel" = "$STOCK_KREL" ] || die "guests boot $STOCK_KREL only"
	stock=$("$RFC_HARNESS/stock.sh" >/dev/null && kernel_info stock && echo "$K_MODULES")
	ko=$(scratch_dkms "$deb" "$krel" "$OUT/scratch-$krel")
	root=$OUT/modules-$krel
	rm -rf "$root"
	mkdir -p "$root/lib/modules"
	cp -al "$stock" "$root/lib/modules/$krel"
	rm -f "$root/lib/modules/$krel"/modules.*
	cp "$stock"/modules.order "$stock"/modules.builtin* "$root/lib/modules/$krel/"
	m=$root/lib/modules/$krel/updates/dkms
	mkdir -p "$m"
	cp "$ko" "$m/"
	depmod -b "$root" "$krel"
	modinfo -b "$root" -k "$krel" -n rpcrdma | grep -q '/updates/dkms/' ||
		die "depmod does not prefer updates/dkms: $(modinfo -b "$root" -k "$krel" -n rpcrdma)"
	msg "modules for $krel with ours in updates/dkms: $root/lib/modules/$krel ($(modinfo -b "$root" -k "$krel" -F version rpcrdma))"
	echo "$root/lib/modules/$krel"
}

case "${1:-}" in
package|select) "cmd_$1" ;;
build|modules) [ $# = 3 ] || die "usage: $0 $1 DEB KREL"; "cmd_$1" "$2" "$3" ;;
*) echo "usage: $0 package|select|build DEB KREL|modules DEB KREL" >&2; exit 2 ;;
esac
