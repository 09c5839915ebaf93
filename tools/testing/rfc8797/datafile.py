# SPDX-License-Identifier: GPL-2.0
"""The harness's data files, for its Python: KEY=value lines, shell-quoted,
which lib.sh sources (data/bases/NAME, data/kernels/NAME, data/harness.conf)."""

import os
import shlex

HERE = os.path.dirname(os.path.abspath(__file__))


def read_keys(path):
    """the KEY=value lines of the data file PATH, as a dict"""
    keys = {}
    with open(path) as f:
        for tok in shlex.split(f.read(), comments=True):
            k, _, v = tok.partition("=")
            keys[k] = v
    return keys


def bases_dir():
    """the folder of base files: lib.sh's (RFC8797_BASES_DIR, else data/bases/)"""
    return os.environ.get("RFC8797_BASES_DIR") or os.path.join(HERE, "data", "bases")


def base_cache():
    """the cache folder of the base lib.sh's harness_load picks (RFC8797_BASE,
    mainline by default) under its CACHE_ROOT: lib.sh's CACHE"""
    root = os.environ.get("RFC8797_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rfc8797")
    return os.path.join(root, os.environ.get("RFC8797_BASE") or "mainline")


def base_keys(name):
    """the keys of the base NAME; None when there is no such base"""
    if not name:
        return None
    path = os.path.join(bases_dir(), name)
    return read_keys(path) if os.path.isfile(path) else None
