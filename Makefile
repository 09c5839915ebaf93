# SPDX-License-Identifier: GPL-2.0
#
# RFC 8797 for Linux NFS/RDMA: patch set, test kernel and test harness.
#
#   make            install what is missing, prepare the tree, build the
#                   kernel, boot it, mount NFS over soft-RoCE, show the
#                   negotiated values
#   make check      every test (KUnit, sparse, postings, fuzz, guests) on
#                   both bases but the long stages; ends with "N passed, N failed"
#   make check-long the stages make check leaves out for CI's time (mainline:
#                   scale, trixie; 6.12: fstests and nfstest on its DKMS kernel)
#
#   make tree       prepare (or update) the patched tree as a git repository
#   make refresh    write the tree's commits back to patches/ and overlays
#   make export     the postings by tree, From: and Signed-off-by: your git identity
#   make bisect-check  build net/sunrpc at every commit of the series (W=1;
#                   a source tree that built cleanly before is not built again,
#                   BISECT_REBUILD=1 builds all) and record the clean ones in
#                   tools/testing/rfc8797/data/bisect/BASE.clean, committed
#                   with the series (make check builds only what it lacks)
#   make build      build the kernel only
#   make build-base the pinned base without the series, same .config
#                   (guest.sh --kernel base), to compare with upstream
#   make check-debug   the crafted-peer table, the e2e tests, the parallel
#                   exercisers and 50 forced disconnects on a sanitizer
#                   kernel (KASAN, UBSAN, lockdep, kmemleak, DEBUG_LIST),
#                   then e2e and the parallel exercisers on a data-race
#                   one (KCSAN), two vCPUs with a thread each;
#                   DEBUG_KERNELS=debug or kcsan: one of the two
#   make kunit      run the KUnit suites only
#   make kunit-upstream  the same suites the upstream way:
#                   kunit.py run --arch=x86_64 --kunitconfig=net/sunrpc/xprtrdma
#   make interop    the full matrix against Debian's stock kernel, two guests
#   make nfstest    Debian's nfstest over NFS/RDMA, two guests: nfstest_rdma's
#                   chunk checks (NFSv3 and v4.2, our inline defaults and
#                   stock's 4 KiB) and the functional scripts, on our kernel
#                   and on Debian's kernel of the base's version, each
#                   against its list of expected failures
#   make fstests    fstests over NFS/RDMA in one guest (VERS=3|4.1|4.2,
#                   TRANSPORT=rxe|siw, KERNEL=ours|base, GROUP=quick,
#                   quick+rw (in both) or a list of tests,
#                   FSTESTS_BUDGET=seconds, FSTESTS_PER_TEST=seconds,
#                   FSTESTS_RETRY_HANGS=1): resumes where the last run of
#                   the same code stopped, on this machine or, through the
#                   record it keeps in data/fstests/records/, another;
#                   checks the failures against data/fstests/expunges/
#                   (fstests.sh)
#   make bench      counters, memory, timed ratios against the base (the
#                   series' own effect) and the stock kernel, and each workload
#                   as a fraction of the link's perftest limit (BENCH=quick:
#                   about 25 minutes, full under 60; BENCH=sweep: counters and
#                   memory only; BENCH=link: perftest only; BENCH=scale: the
#                   server's memory per connection at N connections, bench/scale.sh;
#                   see bench/bench.sh)
#   make fuzz       fuzz the CM Private Data parser (FUZZ_SECONDS, default 600)
#   make shell      an interactive shell in a guest running our kernel
#   make wireshark  install the RFC 8797 dissector into
#                   ~/.local/lib/wireshark/plugins
#   make wireshark-check  the dissector on its capture fixtures (tshark)
#   make wireshark-live   the dissector on new two-guest captures, checked
#                   against what both peers reported (about 3 minutes)
#   make dkms       the patched rpcrdma.ko as a DKMS package for Debian's
#                   6.12 kernels, Debian 12 and 13; make dkms BASE=mainline:
#                   for Debian 13's backports 7.3 (tools/testing/rfc8797/dkms/README.rst)
#   make docs       README.md's tables of bases and stages written again from
#                   tools/testing/rfc8797/data/bases (make check fails while they differ)
#   make help       these targets and the variables that tune them
#
# Caches (tree, build, ccache, stock kernel, runs) live in
# $(CACHE), outside this repository.

H := tools/testing/rfc8797
# The base every target works on, a file of $(H)/data/bases: mainline
# (Debian's linux-source-7.3, the tree upstream reviews) or 6.12 (the
# stable line, the DKMS package).  make check runs the bases of
# CHECK_BASES.
# (BASE= on the command line, or RFC8797_BASE in the environment; a
# variable named BASE in the environment is not taken for it.)
BASE_SET := $(or $(filter command line,$(origin BASE)),$(RFC8797_BASE))
override BASE := $(if $(filter command line,$(origin BASE)),$(BASE),$(or $(RFC8797_BASE),mainline))
export RFC8797_BASE := $(BASE)
# Every base whose file sets MAKE_CHECK by default, in that order, each
# with its MAKE_CHECK_STAGES: mainline in full, 6.12 its DKMS package on
# Debian's 6.12; BASE=6.12 runs the stable line alone, in full.  Given
# to make check's check.sh runs alone: the other targets that run
# check.sh (kunit, nfstest, wireshark-live, check-debug, ...) work on BASE.
CHECK_BASES ?= $(if $(BASE_SET),$(BASE),$(shell bash -c '. $(H)/lib.sh && base_names check'))
# RFC8797_CACHE is the cache directory itself, as in lib.sh
CACHE ?= $(or $(RFC8797_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rfc8797)
FUZZ_SECONDS ?= 600
# check-debug's kernels, either alone: debug (KASAN, UBSAN, lockdep,
# kmemleak) runs DEBUG_STAGES with the e2e tests of DEBUG_E2E_TESTS,
# kcsan KCSAN_STAGES with those of KCSAN_E2E_TESTS
DEBUG_KERNELS ?= debug kcsan
DEBUG_STAGES ?= kunit kunit_upstream hostile sendqueue e2e parallel storm
DEBUG_E2E_TESTS ?= agree client-reminv server-remote-inv
KCSAN_STAGES ?= e2e parallel
KCSAN_E2E_TESTS ?= agree client-reconnect client-reminv server-remote-inv
# build-debug's first check: a kernel named in DEBUG_KERNELS that is not
# one of the two, no kernel at all, or a chosen kernel without a stage
# (check.sh without one runs every stage of make check)
debug_vars_check = $(strip \
	$(if $(filter-out debug kcsan,$(DEBUG_KERNELS)),$(error DEBUG_KERNELS: "$(filter-out debug kcsan,$(DEBUG_KERNELS))" is not debug or kcsan)) \
	$(if $(strip $(DEBUG_KERNELS)),,$(error DEBUG_KERNELS is empty)) \
	$(if $(and $(filter debug,$(DEBUG_KERNELS)),$(if $(strip $(DEBUG_STAGES)),,x)),$(error DEBUG_STAGES is empty)) \
	$(if $(and $(filter kcsan,$(DEBUG_KERNELS)),$(if $(strip $(KCSAN_STAGES)),,x)),$(error KCSAN_STAGES is empty)))
export RFC8797_CACHE := $(CACHE)

.PHONY: docs all demo deps tree build build-base build-debug check check-long check-debug kunit kunit-upstream interop nfstest fstests bench wireshark wireshark-check wireshark-live bisect-check refresh export fuzz shell dkms help

all: demo

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/tree.sh prepare

build: tree
	@$(H)/build.sh >/dev/null

demo: build
	@$(H)/demo.sh

# every base of CHECK_BASES prepared first, and its test kernel built
# when its stages need it; check.sh runs each one's stages.  check-long:
# each base's LONG_CHECK_STAGES, those make check leaves out to stay
# within CI's 90 minutes on a cold cache (mainline: scale, trixie; 6.12:
# fstests and nfstest on its DKMS kernel, after the dkms stage)
check-long: export CHECK_LONG := 1
check check-long: deps
	@for b in $(CHECK_BASES); do \
		RFC8797_BASE=$$b $(H)/tree.sh prepare || exit 1; \
		RFC8797_BASE=$$b CHECK_BASES="$(CHECK_BASES)" $(H)/check.sh --needs-kernel || continue; \
		RFC8797_BASE=$$b $(H)/build.sh >/dev/null || exit 1; \
	done
	@CHECK_BASES="$(CHECK_BASES)" $(H)/check.sh

build-base: build
	@$(H)/tree.sh base >/dev/null

build-debug: tree
	@$(debug_vars_check)for k in $(DEBUG_KERNELS); do \
		$(H)/build.sh --variant $$k $(H)/data/$$k.config >/dev/null || exit 1; \
	done

# KCSAN cannot share a kernel with KASAN: its own kernel, whose vCPUs
# run in parallel (a TCG thread each); both runs go on when one fails.
# In parallel-open.sh's 600 s the NFSv4.2 exercisers reached 1600-1800
# of their 2000 operations on the KCSAN kernel (run 20261130-013558-441);
# on the KASAN kernel six of eight finished 500 and two reached 450
check-debug: build-debug
	@s=0; \
	if [ -n "$(filter debug,$(DEBUG_KERNELS))" ]; then \
		RFC8797_KERNEL=debug E2E_TIMEOUT=3600 STORM_DISCONNECTS=50 HOSTILE_TABLE=full \
		PARALLEL_ARGS="--ops 500 --limit 1200" \
		E2E_TESTS="$(DEBUG_E2E_TESTS)" $(H)/check.sh $(DEBUG_STAGES) || s=1; \
	fi; \
	if [ -n "$(filter kcsan,$(DEBUG_KERNELS))" ]; then \
		RFC8797_KERNEL=kcsan RFC8797_TCG_THREAD=multi E2E_TIMEOUT=3600 PARALLEL_ARGS="--limit 1200" \
		E2E_TESTS="$(KCSAN_E2E_TESTS)" $(H)/check.sh $(KCSAN_STAGES) || s=1; \
	fi; \
	exit $$s

# README.md's generated blocks written again from data/bases/ (check.sh's
# ktap stage fails while they differ)
docs:
	@python3 $(H)/selftests/docs.py write

kunit: build
	@$(H)/check.sh kunit

kunit-upstream: tree
	@$(H)/check.sh kunit_upstream

bisect-check: build
	@$(H)/tree.sh bisect --record

interop: build
	@$(H)/interop-matrix.sh

nfstest: build
	@$(H)/check.sh nfstest_full

VERS ?= 4.2
TRANSPORT ?= rxe
KERNEL ?= ours
GROUP ?= quick
FSTESTS_KTAP = $(CACHE)/$(BASE)/fstests/$(KERNEL)-nfs$(VERS)-$(TRANSPORT).ktap
fstests: $(if $(filter base,$(KERNEL)),build-base,build)
	@rm -f $(FSTESTS_KTAP)
	@$(H)/fstests.sh run --vers $(VERS) --transport $(TRANSPORT) --kernel $(KERNEL) \
		$(if $(findstring /,$(GROUP)),--tests "$(GROUP)",--group $(GROUP)) \
		$(if $(FSTESTS_BUDGET),--budget $(FSTESTS_BUDGET)) \
		$(if $(FSTESTS_PER_TEST),--per-test $(FSTESTS_PER_TEST)) \
		$(if $(FSTESTS_RETRY_HANGS),--retry-hangs) \
		--results-file $(FSTESTS_KTAP)

bench: build-base
	@$(H)/bench/bench.sh

refresh:
	@$(H)/tree.sh refresh

export: deps
	@$(H)/tree.sh export

fuzz: deps
	@$(MAKE) --no-print-directory -C $(H)/fuzz run SECONDS=$(FUZZ_SECONDS)

shell: build
	@$(H)/guest.sh --shell

WIRESHARK_PLUGINS ?= $(HOME)/.local/lib/wireshark/plugins

wireshark: deps
	@install -D -m 0644 $(H)/wireshark/rpcrdma_cm.lua $(WIRESHARK_PLUGINS)/rpcrdma_cm.lua
	@echo "installed $(WIRESHARK_PLUGINS)/rpcrdma_cm.lua"

wireshark-check: deps
	@$(H)/check.sh wireshark

# the DKMS package of BASE= (when not given, the base whose package
# Debian 12's kernel loads, DKMS_STOCK_KERNEL: 6.12's
# rpcrdma-rfc8797-dkms; mainline: rpcrdma-rfc8797-7.3-dkms)
dkms: export RFC8797_BASE := $(if $(BASE_SET),$(BASE),$(shell bash -c '. $(H)/lib.sh && base_with DKMS_STOCK_KERNEL dkms'))
dkms: tree
	@$(H)/deps.sh dkms
	@$(H)/dkms.sh package >/dev/null

wireshark-live: build
	@$(H)/check.sh wireshark_live

help:
	@sed -n 's/^#   make/  make/p; s/^#                   /                   /p' $(firstword $(MAKEFILE_LIST))
	@echo
	@echo "Variables (make check VAR=value ..., or in the environment):"
	@echo "  BASE               the base of every target, a file of $(H)/data/bases:"
	@echo "                     $$(bash -c '. $(H)/lib.sh && base_names' | tr '\n' ' ')(default: mainline)"
	@echo "  CHECK_BASES        bases make check runs (default: \"$(CHECK_BASES)\"; BASE=6.12: 6.12 alone)"
	@echo "  MAKE_CHECK_STAGES  stages of every base when make check runs more than one (default, or"
	@echo "                     empty: each base's own, data/bases/BASE)"
	@echo "  E2E_TRANSPORTS     transports of the e2e, hostile and sendqueue stages (default: rxe siw)"
	@echo "  E2E_TESTS          only these guest/tests/test-NAME.sh, e.g. \"agree large-io\" (default: all)"
	@echo "  E2E_VERSIONS       NFS versions of the basic e2e guest (default: 3 4.0 4.1 4.2; siw: 3 4.2)"
	@echo "  E2E_SIW_TESTS      tests also run over siw, or \"all\" (default: the base's, data/bases/)"
	@echo "  E2E_BASIC_ONLY     set: only the basic e2e guest per transport"
	@echo "  E2E_TIMEOUT        time limit of each e2e guest, seconds (default 900)"
	@echo "  HOSTILE_TABLE      full: the whole hostile table (default: quick, its quick subset)"
	@echo "  STORM_DISCONNECTS  forced disconnects of the storm stage (default 5)"
	@echo "  DEBUG_KERNELS      make check-debug, build-debug: these kernels only, debug (KASAN,"
	@echo "                     lockdep, kmemleak) or kcsan or both (default: $(DEBUG_KERNELS))"
	@echo "  DEBUG_STAGES       make check-debug: the debug kernel's stages, not empty (default:"
	@echo "                     $(DEBUG_STAGES))"
	@echo "  KCSAN_STAGES       make check-debug: the KCSAN kernel's stages (default: $(KCSAN_STAGES))"
	@echo "  DEBUG_E2E_TESTS, KCSAN_E2E_TESTS  make check-debug: each kernel's e2e tests"
	@echo "                     (defaults: $(DEBUG_E2E_TESTS);"
	@echo "                     $(KCSAN_E2E_TESTS))"
	@echo "  PARALLEL_TRANSPORTS, STORM_TRANSPORTS"
	@echo "                     transports of the parallel and storm stages (default: rxe)"
	@echo "  INTEROP_CELLS      make interop: only the cells whose name matches this regex"
	@echo "  DKMS_TESTS         dkms stage: guest/tests/test-NAME.sh also run on the stock kernel with"
	@echo "                     the DKMS module, e.g. \"agree client-negotiate\" (default: agree)"
	@echo "  DKMS_KRELS         dkms stage: also build the module against the headers of these"
	@echo "                     kernels, installed on demand, e.g. 6.12.115+deb12-amd64"
	@echo "  DKMS_INSTALL       dkms stage, set: also dpkg -i and apt purge the package in a"
	@echo "                     stock guest (about 15 minutes)"
	@echo "  TRIXIE_TESTS       trixie stage: guest/tests/test-NAME.sh run on Debian 13's kernel with"
	@echo "                     the module DKMS built there (6.12: trixie's 6.12; mainline: the"
	@echo "                     backports 7.3) (default: the base's DKMS_TRIXIE_TESTS)"
	@echo "  TRIXIE_INTEROP_CELLS  trixie stage: these interop cells, a regex, e.g. trixie-7.3"
	@echo "                     (default: the base's DKMS_TRIXIE_CELLS; mainline none, for time)"
	@echo "  TRIXIE_REFRESH     set: debootstrap the cached trixie root again"
	@echo "  INTEROP_VERSIONS   make interop: only these NFS versions, e.g. 4.2 (default: 3 4.2)"
	@echo "  NFSTEST_RUNS       make nfstest, check's nfstest stage: these runs instead of the set,"
	@echo "                     SCRIPT:VERSION:INLINE:TESTS each (guest/nfstest-client.sh), e.g."
	@echo "                     nfstest_rdma:4.2:default:all nfstest_posix:4.2:8192/8192:read,write"
	@echo "  NFSTEST_CHECK_SCRIPTS, NFSTEST_FULL_SCRIPTS  the functional scripts' runs of the check"
	@echo "                     and full sets (default: see nfstest.sh)"
	@echo "  NFSTEST_PAIR_TIMEOUT  seconds a pair of nfstest guests may take (default 1800, full set 7200)"
	@echo "  VERS, TRANSPORT, KERNEL, GROUP  make fstests: NFS version (4.2), rxe or siw, ours or"
	@echo "                     base, a group (quick; quick+rw: in both) or a list of tests"
	@echo "                     (\"generic/001 generic/013\")"
	@echo "  FSTESTS_BUDGET     make fstests: seconds after which no guest starts more tests"
	@echo "  FSTESTS_PER_TEST   make fstests: seconds without a result after which a test is a hang (1800)"
	@echo "  FSTESTS_RETRY_HANGS make fstests: 1 runs the recorded hangs once more"
	@echo "  FSTESTS_SRC        fstests' source, a checkout or tarball (default: the snapshot in"
	@echo "                     ../shared/third-party, else a clone of upstream)"
	@echo "  FSTESTS_SMOKE      check's fstests stage: its tests (default: the base's, data/bases/BASE)"
	@echo "  DEBIAN_RETRIES     how often a guest (pair) that Debian's kernel crashed, ours not,"
	@echo "                     runs again; DEBIAN_RUN_RETRIES: per script run (defaults: $$(grep -h '^DEBIAN_' $(H)/data/harness.conf | paste -sd' '))"
	@echo "  BENCH              make bench: full (default, under 60 minutes), quick (about 25),"
	@echo "                     sweep (counters and memory only), link (perftest only), cost"
	@echo "                     (instructions per RPC) or scale (memory at N connections)"
	@echo "  SCALE_RUNS         BENCH=scale: client types and counts, e.g. \"ours:1,20,40 stock:1,20\""
	@echo "                     (types: ours stock none 1k 16k; default each at 1 10 50 100)"
	@echo "  SCALE_SERVER_MEM   BENCH=scale: the server guest's memory, MB (default 2048)"
	@echo "  SCALE_PRESSURE     BENCH=scale: TYPE:MAX, the memory-pressure run instead (bench/scale.sh)"
	@echo "  SCALE_MOUNTS       BENCH=scale: \"T:K,K...\", what a mount costs the client at threshold T, nconnect K instead"
	@echo "  SCALE_SLAB         BENCH=scale: 1, the server's slab caches per connection too (slab.md; boots it with slab_nomerge)"
	@echo "  SCALE_COUNT        BENCH=scale: 1, the server's instructions per connection made too (the insn-count plugin)"
	@echo "  SCALE_TRANSPORT    BENCH=scale: rxe (default) or siw, both guests'"
	@echo "  BENCH_ROUNDS       make bench: interleaved rounds (default: full 3, quick 3, link 1)"
	@echo "  BENCH_4K           make bench, set to 1: also ours at stock's 4 KiB thresholds in the rounds"
	@echo "  BENCH_WORKLOADS, BENCH_VERSIONS, BENCH_RUNTIME, BENCH_KERNELS"
	@echo "                     make bench: only these timed workloads, NFS versions, window (s),"
	@echo "                     kernels (default: ours base stock); see HARNESS.rst"
	@echo "  BENCH_BASE         make bench, set to N: the base carries the series' first N patches"
	@echo "                     (what the later ones do, one step of a bisection)"
	@echo "  FUZZ_SECONDS       libFuzzer time of make fuzz (default 600; the check stage runs 60)"
	@echo "  WIRESHARK_LIVE_CASES  make wireshark-live: these cases of wireshark/live.sh (default: its first three)"
	@echo "  RFC8797_KERNEL     kernel of every guest (default ours), a file of $(H)/data/kernels:"
	@echo "                     $$(ls $(H)/data/kernels | tr '\n' ' ')or ours-BASE, or a path"
	@echo "  RFC8797_INJECT     break a run on purpose, to see a test turn red:"
	@awk -F'\t' '!/^#/ { printf "                     %-17s %s\n", $$1, $$2 }' $(H)/data/inject.list
	@echo "  RFC8797_CACHE      where the tree, builds and runs live (default ~/.cache/rfc8797)"
	@echo "  RFC8797_BASE_VERSION  the base's linux-source version instead of the pin, e.g. 6.12.115"
	@echo "                     or 6.12.115-2~deb12u1 (default: the pin, else the newest apt offers)"
	@echo "  RFC8797_BASE_PIN   the tested base instead of the base's BASE_PIN, to try the fallback"
	@echo "                     ($$(bash -c '. $(H)/lib.sh && for b in $$(base_names); do printf "%s %s " $$b $$(base_value $$b BASE_PIN); done'))"
	@echo "  JOBS               parallel build jobs (default: nproc)"
	@echo "  FORCE=1            make tree discards tree commits not written back"
	@echo "Stages of check.sh, and what make check runs of them (check.sh --plan):"
	@CHECK_BASES="$(CHECK_BASES)" $(H)/check.sh --plan 2>/dev/null | sed 's/^/  /'
	@echo "  make check-long:"
	@CHECK_LONG=1 CHECK_BASES="$(CHECK_BASES)" $(H)/check.sh --plan 2>/dev/null | sed 's/^/  /'
	@echo "  and on request: kunit_upstream wireshark_live nfstest_full"
