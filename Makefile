# SPDX-License-Identifier: GPL-2.0
#
# RFC 8797 for Linux NFS/RDMA: patch set, test kernel and test harness.
#
#   make            install what is missing, prepare the tree, build the
#                   kernel, boot it, mount NFS over soft-RoCE, show the
#                   negotiated values
#   make check      every test (KUnit, sparse, checkpatch, fuzz, guests);
#                   ends with "N passed, N failed"
#
#   make tree       prepare (or update) the patched tree as a git repository
#   make refresh    write the tree's commits back to patches/ and overlays
#   make export     git format-patch -s --cover-letter of the series
#   make bisect-check  build net/sunrpc at every commit of the series (W=1)
#   make build      build the kernel only
#   make build-base the pinned base without the series, same .config
#                   (guest.sh --kernel base), to compare with upstream
#   make check-debug   the crafted-peer table, the e2e tests and 50 forced
#                   disconnects on a sanitizer kernel (KASAN, UBSAN,
#                   lockdep, kmemleak, DEBUG_LIST)
#   make kunit      run the KUnit suites only
#   make interop    the full matrix against Debian's stock kernel, two guests
#   make fuzz       fuzz the CM Private Data parser (FUZZ_SECONDS, default 600)
#   make shell      an interactive shell in a guest running our kernel
#
# Caches (tree, build, ccache, stock kernel, runs) live in
# $(CACHE), outside this repository.

H := tools/testing/rfc8797
CACHE ?= $(or $(RFC8797_CACHE),$(XDG_CACHE_HOME),$(HOME)/.cache)/rfc8797
FUZZ_SECONDS ?= 600
export RFC8797_CACHE := $(CACHE)

.PHONY: all demo deps tree build build-base build-debug check check-debug kunit interop bisect-check refresh export fuzz shell

all: demo

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/tree.sh prepare

build: tree
	@$(H)/build.sh >/dev/null

demo: build
	@$(H)/demo.sh

check: build
	@$(H)/check.sh

build-base: build
	@$(H)/tree.sh base >/dev/null

build-debug: tree
	@$(H)/build.sh --variant debug $(H)/debug.config >/dev/null

check-debug: build-debug
	@RFC8797_KERNEL=debug E2E_TIMEOUT=3600 STORM_DISCONNECTS=50 HOSTILE_QUICK= \
		E2E_TESTS="agree client-reminv server-remote-inv" $(H)/check.sh kunit hostile e2e storm

kunit: build
	@$(H)/check.sh kunit

bisect-check: build
	@$(H)/tree.sh bisect

interop: build
	@$(H)/interop-matrix.sh

refresh:
	@$(H)/tree.sh refresh

export: deps
	@$(H)/tree.sh export

fuzz: deps
	@$(MAKE) --no-print-directory -C $(H)/fuzz run SECONDS=$(FUZZ_SECONDS)

shell: build
	@$(H)/guest.sh --shell
