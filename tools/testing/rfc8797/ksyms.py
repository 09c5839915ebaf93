# SPDX-License-Identifier: GPL-2.0
"""Kernel text symbols, for the harness's Python: a System.map or a
/proc/kallsyms read once, and the function an address falls in
(bench/cost.py's layers and attribution, guest.sh's hang dump)."""

import bisect


def text_symbols(system_map, with_module=False):
    """[(addr, name)] of the text symbols of a System.map or of a
    /proc/kallsyms, sorted by address; with_module: (addr, name,
    module or None)"""
    syms = []
    with open(system_map) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                mod = p[3].strip("[]") if len(p) >= 4 else None
                syms.append((int(p[0], 16), p[2], mod) if with_module else (int(p[0], 16), p[2]))
    syms.sort()
    return syms


def symbol_at(syms, addr):
    """"name+0xOFF" of the text symbol of SYMS (text_symbols) that ADDR
    falls in; "?" below the first"""
    i = bisect.bisect_right(syms, (addr, "\uffff")) - 1
    return "%s+0x%x" % (syms[i][1], addr - syms[i][0]) if i >= 0 else "?"
