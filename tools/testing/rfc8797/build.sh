#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test kernel from the prepared tree.
#
#   build.sh [--variant NAME] [FRAGMENT...]
#
# The configuration is "make allnoconfig" plus the fragments
# tools/testing/rfc8797/data/config and config.BASE (RFC8797_BASE) plus any
# extra FRAGMENT.  The build output lives in
# $CACHE/build/NAME (default "main"); the bzImage path is printed last.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
harness_env || exit 1

variant=main
if [ "${1:-}" = --variant ]; then
	variant=$2
	shift 2
fi
frags=("$RFC_HARNESS/data/config" "$RFC_HARNESS/data/$BASE_CONFIG" "$@")
out=$CACHE/build/$variant
logdir=$CACHE/logs
mkdir -p "$out" "$logdir" "$CCACHE_DIR"
[ -d "$TREE/.git" ] || die "no prepared tree in $TREE: run 'make tree'"

# Every "config" entry of the top-level Kconfig (the entries the series
# adds) must be in the prepared tree's net/sunrpc/Kconfig word for word.
kconfig_entries_in_tree() {
	python3 - "$RFC_TOP/Kconfig" "$TREE/net/sunrpc/Kconfig" <<'PY'
import re, sys
ours = open(sys.argv[1]).read()
tree = open(sys.argv[2]).read()
entries = re.findall(r'^config \S+\n(?:(?:\t.*|)\n)*?(?=^\S|\Z)', ours + '\n', re.M)
if not entries:
    sys.exit('no config entry in ' + sys.argv[1])
for e in entries:
    e = e.rstrip('\n') + '\n'
    if e not in tree:
        sys.exit('%s: "%s" differs from %s' % (sys.argv[1], e.split('\n')[0], sys.argv[2]))
PY
}
kconfig_entries_in_tree || die "the top-level Kconfig does not match the series"

# Every symbol the fragments ask for must be in .config as asked (a later
# fragment overrides an earlier one).
frag_satisfied() {
	local line sym ok=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) sym=${line%%=*}
			if grep -q "^$sym=" "$out/.config"; then
				echo "fragment wants $line, got $(grep "^$sym=" "$out/.config")" >&2
				ok=1
			fi ;;
		CONFIG_*=*)
			grep -qxF "$line" "$out/.config" || {
				echo "fragment wants $line, got: $(grep "^${line%%=*}=" "$out/.config" || echo unset)" >&2
				ok=1
			} ;;
		esac
	done < <(cat "${frags[@]}" | awk -F= '/^CONFIG_/ { v[$1] = $0; if (!($1 in o)) o[$1] = n++ }
		END { for (k in v) print o[k] "\t" v[k] }' | sort -n | cut -f2-)
	return $ok
}

# Reconfigure only when a fragment changed or .config no longer
# satisfies it (something else configured this output directory), so
# that incremental builds stay incremental.
sum=$(cat "${frags[@]}" | sha256sum | cut -c1-16)
if [ ! -f "$out/.config" ] ||
		[ "$(cat "$out/.config.frag-sum" 2>/dev/null)" != "$sum" ] ||
		! frag_satisfied 2>"$logdir/config-$variant.check"; then
	msg "configuring $variant (allnoconfig + ${frags[*]##*/})"
	kmake "$out" allnoconfig >"$logdir/config-$variant.log" 2>&1
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" \
		>>"$logdir/config-$variant.log" 2>&1
	kmake "$out" olddefconfig >>"$logdir/config-$variant.log" 2>&1
	frag_satisfied || die "config fragment not satisfied (see $logdir/config-$variant.log)"
	echo "$sum" >"$out/.config.frag-sum"
fi

run_logged "$logdir/build-$variant.log" "building kernel ($variant, -j$JOBS)" \
	kmake "$out" -j"$JOBS" bzImage
echo "$out/arch/x86/boot/bzImage"
