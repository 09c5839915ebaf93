#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make": boot the built kernel, mount NFS over soft-RoCE, check a file,
# show what each peer negotiated.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
harness_env || exit 1
r=$CACHE/runs/demo-$(date +%Y%m%d-%H%M%S)
msg "booting the test kernel in QEMU (TCG), guest output follows"
"$RFC_HARNESS/guest.sh" --results "$r" --name guest --timeout 600 "$RFC_HARNESS/guest/show-negotiated.sh" "$@"
rc=$?
[ "$rc" = 0 ] && msg "main job passed" || msg "main job FAILED (exit $rc)"
exit "$rc"
