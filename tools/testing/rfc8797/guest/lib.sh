# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for scripts that run inside a harness guest (guest.sh).
# Sourced; sourcing only defines.
#
# Test results are KTAP (Documentation/dev-tools/ktap.rst), written by
# ../ktap.sh, the writer the host scripts use too.  A test script starts
# with "ktap_begin NAME [PLAN]" and ends with "ktap_finished": its
# results are a subtest block of /results/tests.ktap (several scripts of
# one guest share the file), also shown on the console:
#   ok N name
#   not ok N name # reason
#   ok N name # SKIP reason
# The host reads them with ktap.py: a skip is never a pass, and a block
# that no result line closes (the guest crashed, the script was killed)
# or that misses results of its plan is a failure.

SERVER_ADDR=${SERVER_ADDR:-192.0.2.1}	# TEST-NET-1: exists only in the guest
RDMA_PORT=20049
EXPORT=/export

# cmdline_arg NAME [VAR]: the value of NAME= on the guest's kernel
# command line (guest.sh's rfc8797.* words), empty when there is none:
# printed, or with VAR assigned to VAR; init.sh's too
cmdline_arg() {
	local w line v=""
	read -r line </proc/cmdline
	for w in $line; do
		case "$w" in "$1="*) v=${w#*=}; break ;; esac
	done
	if [ -n "${2:-}" ]; then
		printf -v "$2" %s "$v"
	elif [ -n "$v" ]; then
		echo "$v"
	fi
}

# guest_settings: what the host passed on the command line, read once;
# ktap_begin calls it, and a script that needs them before its
# ktap_begin (to count its plan) calls it first:
#   TRANSPORT  the RDMA transport the tests run on (rfc8797.transport=,
#              check.sh sets it): rxe (soft-RoCE, the default) or siw
#              (soft-iWARP); transport_expect's TR_* follow from it
#   RFC_CACHE  the host's cache (rfc8797.cache=), where cm-peer, the
#              exerciser and the marker program are built
#   CM_PEER    cm-peer in it
#   RFC_TREE   the prepared tree the kernel was built from (rfc8797.tree=,
#              data/kernels/ TREE): its YNL and nfsd's spec (conns.py)
#   INJECT     RFC8797_INJECT (rfc8797.inject=): deliberate faults, to
#              show that a test can fail (RFC8797_INJECT=warning is the
#              guest's init's: a WARNING in dmesg before the job runs)
guest_settings() {
	[ -z "${GUEST_SETTINGS:-}" ] || return 0
	cmdline_arg rfc8797.transport TRANSPORT
	cmdline_arg rfc8797.cache RFC_CACHE
	cmdline_arg rfc8797.tree RFC_TREE
	cmdline_arg rfc8797.inject INJECT
	TRANSPORT=${TRANSPORT:-rxe}
	CM_PEER=${RFC_CACHE:-/nonexistent}/cm-peer/cm-peer
	transport_expect "$TRANSPORT"
	GUEST_SETTINGS=1
}

# the KTAP writer, slowwait, field, the crash detector: shared with the host
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
# the parts (lib-counters.sh: only for the scripts that need it)
. "$(dirname "${BASH_SOURCE[0]}")/lib-results.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-setup.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-nfs.sh"
