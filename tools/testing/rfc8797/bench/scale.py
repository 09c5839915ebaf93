#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What each connection costs the server: scale.sh's table and fit.

    scale.py KERNEL=FILE...
    scale.py --plot PNG KERNEL=FILE...
    scale.py --mounts KERNEL=FILE...
    scale.py --check-recv FILE
    scale.py --slab TYPE-N KERNEL=FOLDER...

Each FILE is a scale-client.sh /results/scale.txt from a run against a
server booting KERNEL.  Its lines:

    type=T n=N connected=C recv=C:O send=C:O max_requests=M size=S
        queues=C:O:MAX sq_depth=D before: KEY=KiB... held: KEY=KiB...
        after: KEY=KiB...

For each kernel, client type and N the table gives, per connection, what
the server's MemAvailable lost while the N connections were held (all
of its memory: slab, pages, vmalloc), of it Slab and VmallocUsed (where
soft-RoCE's queues live), and the Receive and Send buffers svcrdma
allocated (the kmalloc tracepoints: octets, count); and, for all N, what
had not come back once they closed ("kept", KiB in all).  Then per kernel
and type the least-squares line of MemAvailable lost against N: KiB per
connection (the slope), the fixed part, and the largest residual; and
from the slope, how many such connections 1, 16 and 256 GiB of the
server's memory would hold (the connections' memory alone: the GiB over
the slope).  Per connection means per connection made: C of the N asked
for (a row where they differ says so, and stays out of the fit).  The
seconds that one cm-peer took to make the N connections (seconds=) are
shown as information.  Prints markdown; exit status 1 when a FILE has
no line.

Where a FILE's run folder (FILE/../..) has the server's insn-count
dumps, server.insn (scale.sh --count), a table follows of what the
server guest executed between each line's marks=A:B (from just before
the first connection's start to within 0.1 s of the last one's reply)
per connection made: its kernel's instructions net of the idle
server's in as many seconds (the idle=I:J window just before), that
idle part, and user space's; then the fit of the net kernel
instructions over N: exit status 1 when a line has no marks or idle
window, or no dumps for them.

--plot draws the same into PNG as well (matplotlib): the server's
memory (MiB) against N, points per kernel and client type with the
fitted line dashed, and beside it KiB per connection against N; without
matplotlib it says so and draws nothing (exit status 1).

--mounts reads mounts-client.sh's /results/mounts.txt instead (what
an NFSv4.2 mount with nconnect=K at inline threshold T costs the client
KERNEL: "inline=T nconnect=K xprts=X connects=C buffers=COUNT:OCTETS
before: ... held: ... after: ..."): per mount, what MemAvailable lost
while it was mounted and had done its I/O, the same per transport, the
Slab part, the client's buffers of T octets (count and KiB) and what
had not come back after the unmount; exit status 1 when a FILE has no
line.

--slab reads the server's /proc/slabinfo before and while TYPE-N was
held (FOLDER/TYPE-N-before and -held: its results' slabinfo/, kept by
interop-server.sh's "meminfo TAG") for each KERNEL: per slab cache, the
KiB of its slabs per connection, and each kernel's difference from the
first; caches of at least 0.5 KiB per connection on one kernel, largest
first, then all caches.  Boot the server with slab_nomerge (scale.sh
--slab) to see each cache under its own name.

--check-recv prints KTAP instead, a result per line of FILE: svcrdma
allocated N * (2 * max_requests + 7) Receive buffers (svc_rdma_post_recvs:
one per credit posted, one per credit in process, and
RPCRDMA_MAX_RECV_BATCH), each of the line's size rounded up to 1 KiB;
exit status 1 when one is not, or FILE has no line.
"""

import os
import re
import sys


def parse(line):
    """One scale.txt line as (fields, {before|held|after: {KEY: KiB}})."""
    head, _, rest = line.partition(" before: ")
    fields = dict(w.split("=", 1) for w in head.split() if "=" in w)
    mem = {}
    for part in re.split(r" (?=(?:held|after): )", "before: " + rest):
        tag, _, kv = part.partition(": ")
        mem[tag] = {k: int(v) for k, v in (w.split("=", 1) for w in kv.split())
                    if v.isdigit()}
    return fields, mem


def octets(field, i=1):
    """The i-th number of a C:O[:MAX] field, None when "na" or absent."""
    parts = (field or "").split(":")
    return int(parts[i]) if len(parts) > i and parts[i].isdigit() else None


def fit(points):
    """Least squares y = a*n + b over (n, y); (a, b, largest |residual|)."""
    if len(points) < 2:
        return None
    k = len(points)
    sn = sum(n for n, _ in points)
    sy = sum(y for _, y in points)
    snn = sum(n * n for n, _ in points)
    sny = sum(n * y for n, y in points)
    den = k * snn - sn * sn
    if den == 0:
        return None
    a = (k * sny - sn * sy) / den
    b = (sy - a * sn) / k
    return a, b, max(abs(y - (a * n + b)) for n, y in points)


def delta(mem, key, a="before", b="held"):
    try:
        return mem[a][key] - mem[b][key] if key == "MemAvailable" else \
            mem[b][key] - mem[a][key]
    except KeyError:
        return None


def per(v, n):
    return "na" if v is None else f"{v / n:.0f}"


# what each client type asks for, for the table of what fits
THRESHOLDS = {"1k": "1 KiB", "stock": "4 KiB (a stock client)", "ours": "8 KiB",
              "16k": "16 KiB", "none": "no Private Data"}
GIBS = (1, 16, 256)


# RPCRDMA_MAX_RECV_BATCH: the Receive buffers a connection has beyond
# two per credit
RECV_BATCH = 7


def lines_of(path, first="type="):
    """FILE's result lines (scale.txt's, or those that start with
    first), none when it cannot be read"""
    try:
        return [l.strip() for l in open(path) if l.startswith(first)]
    except OSError:
        return []


def check_recv(path):
    """KTAP: each line's Receive buffers, as the module docstring says"""
    lines = lines_of(path)
    print("KTAP version 1")
    print(f"1..{max(len(lines), 1)}")
    if not lines:
        print(f"not ok 1 receive buffers # no line in {path}")
        return 1
    rc = 0
    for i, line in enumerate(lines, 1):
        f, _ = parse(line)
        n = int(f["n"])
        want = n * (2 * int(f["max_requests"]) + RECV_BATCH)
        each = -(-int(f["size"]) // 1024) * 1024
        count, total = octets(f.get("recv"), 0), octets(f.get("recv"))
        name = f"{f['type']} at N={n}: {want} Receive buffers of {each} octets"
        if count == want and total == want * each:
            print(f"ok {i} {name}")
        else:
            print(f"not ok {i} {name} # got {count}, {total} octets")
            rc = 1
    return rc


def plot(png, fits):
    """fits as main() collects them, drawn into png; False without matplotlib"""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scale.py: no matplotlib (python3-matplotlib), no plot", file=sys.stderr)
        return False
    fig, (tot, each) = plt.subplots(1, 2, figsize=(11, 4.5))
    for kernel, t, pts, r in fits:
        pts = sorted(p for p in pts if p[1] > 0)
        if not pts:
            continue
        label = f"{kernel}, {THRESHOLDS.get(t, t)}"
        line, = tot.plot([n for n, _ in pts], [y / 1024 for _, y in pts], marker="o",
                         linestyle="none", label=label)
        each.plot([n for n, _ in pts], [y / n for n, y in pts], marker="o",
                  color=line.get_color(), label=label)
        if r is not None and r[0] > 0:
            ns = [0, pts[-1][0]]
            tot.plot(ns, [(r[0] * n + r[1]) / 1024 for n in ns], linestyle="--",
                     color=line.get_color(), label=f"  fit: {r[0]:.0f} KiB per connection")
    tot.set_xlabel("connections held at once (N)")
    tot.set_ylabel("server memory used, MiB (MemAvailable lost)")
    tot.set_title("All N connections, and the fitted line")
    each.set_xscale("log")
    each.set_xlabel("connections held at once (N)")
    each.set_ylabel("KiB per connection")
    each.set_title("Per connection")
    for ax in (tot, each):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return True


def mounts(args):
    """--mounts: the client's cost per mount, as the docstring says"""
    rc = 0
    print("| client | inline | nconnect | transports | KiB per mount | KiB per transport"
          " | Slab KiB | buffers of the threshold | kept KiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for arg in args:
        kernel, _, path = arg.partition("=")
        lines = lines_of(path, "inline=")
        if not lines:
            print(f"| {kernel} | no results in {path} | | | | | | | |")
            rc = 1
        for line in lines:
            f, mem = parse(line)
            x = int(f.get("xprts", 0) or 0)
            used = delta(mem, "MemAvailable")
            kept = delta(mem, "MemAvailable", "before", "after")
            n, o = octets(f.get("buffers"), 0), octets(f.get("buffers"))
            buf = "na" if n is None else f"{n} ({o / 1024:.0f} KiB)"
            print(f"| {kernel} | {f['inline']} | {f['nconnect']} | {x} | {per(used, 1)}"
                  f" | {per(used, x) if x else 'na'} | {per(delta(mem, 'Slab'), 1)}"
                  f" | {buf} | {'na' if kept is None else kept} |")
    return rc


def slabinfo(path):
    """/proc/slabinfo as {cache: KiB of its slabs}"""
    caches = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            # name active num objsize objperslab pagesperslab : tunables
            # ... : slabdata active_slabs num_slabs sharedavail
            if len(w) < 16 or w[0].startswith("#") or w[-4] != "slabdata":
                continue
            caches[w[0]] = int(w[-2]) * int(w[5]) * 4
    return caches


def slab(args):
    """--slab: each cache's KiB per connection while TYPE-N was held"""
    spec, args = args[0], args[1:]
    if not re.fullmatch(r"[a-z0-9]+-[1-9][0-9]*", spec):
        print(f"--slab {spec}: TYPE-N", file=sys.stderr)
        return 1
    cols, per_cache = [], {}
    for arg in args:
        kernel, _, folder = arg.partition("=")
        try:
            a = slabinfo(f"{folder}/{spec}-before")
            b = slabinfo(f"{folder}/{spec}-held")
        except OSError as e:
            print(f"{kernel}: {e}", file=sys.stderr)
            return 1
        n = int(spec.rsplit("-", 1)[1])
        cols.append(kernel)
        for cache in set(a) | set(b):
            per_cache.setdefault(cache, {})[kernel] = (b.get(cache, 0) - a.get(cache, 0)) / n
    first = cols[0]
    rows = [(c, v) for c, v in per_cache.items()
            if any(abs(v.get(k, 0)) >= 0.5 for k in cols)]
    rows.sort(key=lambda r: (-max(abs(r[1].get(k, 0)) for k in cols), r[0]))
    diff = [f"{k} - {first}" for k in cols[1:]]
    print(f"| cache ({spec}: KiB of slabs per connection) | " + " | ".join(cols + diff) + " |")
    print("|---|" + "---:|" * (len(cols) + len(diff)))
    for cache, v in rows:
        vals = [f"{v.get(k, 0):.1f}" for k in cols]
        vals += [f"{v.get(k, 0) - v.get(first, 0):+.1f}" for k in cols[1:]]
        print(f"| {cache} | " + " | ".join(vals) + " |")
    tot = {k: sum(v.get(k, 0) for v in per_cache.values()) for k in cols}
    print("| all caches | " + " | ".join(f"{tot[k]:.1f}" for k in cols)
          + "".join(f" | {tot[k] - tot[first]:+.1f}" for k in cols[1:]) + " |")
    return 0


def fit_table(fits, heads, form):
    """a table of (kernel, type, points, fit) rows: the Ns, then the
    fit's slope, fixed part and largest residual under HEADS, in FORM"""
    print(f"| server | client | Ns | {heads} |")
    print("|---|---|---|---:|---:|---:|")
    for kernel, t, pts, r in fits:
        ns = ",".join(str(n) for n, _ in pts)
        vals = ["na"] * 3 if r is None else [form.format(v) for v in r]
        print(f"| {kernel} | {t} | {ns} | " + " | ".join(vals) + " |")


def marked(dumps, spec):
    """window() between the two marks of SPEC ("A:B", a line's marks= or
    idle=), or None when SPEC is not two marks that both have dumps"""
    a, _, b = spec.partition(":")
    if not (a.isdigit() and b.isdigit()) or int(a) not in dumps or int(b) not in dumps:
        return None
    from cost import window  # the insn-count plugin's dumps
    return window(dumps, int(a), int(b))


def insns(args):
    """the server's instructions per connection made (scale.sh --count):
    a row per kernel, type and N whose line has marks=A:B and whose run
    folder has the server's dumps (server.insn beside client/): its
    kernel's instructions net of what the idle server executes in as
    many seconds (the line's idle=I:J window), that idle part, and user
    space's; then per kernel and type the least-squares line of the net
    kernel instructions against N"""
    from cost import read_dumps  # the insn-count plugin's dumps
    rows, fits = [], []
    for arg in args:
        kernel, _, path = arg.partition("=")
        dumps_path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))),
                                  "server.insn")
        if not os.path.exists(dumps_path):
            continue
        dumps = read_dumps(dumps_path)
        series = {}
        for line in lines_of(path):
            f, _ = parse(line)
            wi = marked(dumps, f.get("idle", ""))
            idle = wi["kernel"] / wi["sec"] if wi and wi["sec"] > 0 else None
            w = marked(dumps, f.get("marks", ""))
            asked, n = f["n"], int(f.get("connected", 0))
            shown = asked if str(n) == asked else f"{asked} ({n} made)"
            if idle is None or w is None:
                rows.append((kernel, f["type"], shown, None, None, None, None))
                continue
            quiet = idle * w["sec"]
            rows.append((kernel, f["type"], shown, n, w["kernel"] - quiet, quiet, w["user"]))
            if n and str(n) == asked:
                series.setdefault(f["type"], []).append((n, w["kernel"] - quiet))
        for t, pts in series.items():
            fits.append((kernel, t, pts, fit(pts)))
    if not rows:
        return 0
    print()
    print("| server | client | N | server kernel instructions per connection"
          " | idle server's, left out | user |")
    print("|---|---|---:|---:|---:|---:|")
    for kernel, t, shown, n, net, quiet, user in rows:
        if not n:
            print(f"| {kernel} | {t} | {shown} | na | na | na |")
        else:
            print(f"| {kernel} | {t} | {shown} | {net / n:,.0f} | {quiet / n:,.0f}"
                  f" | {user / n:,.0f} |")
    if fits:
        print()
        fit_table(fits, "kernel instructions per connection (fit) | fixed | largest residual",
                  "{:,.0f}")
    # a line without counts where the server's were taken: the count failed
    return 1 if any(r[3] is None for r in rows) else 0


def main(args):
    if args[:1] == ["--check-recv"] and len(args) == 2:
        return check_recv(args[1])
    if args[:1] == ["--slab"] and len(args) > 2:
        return slab(args[1:])
    if args[:1] == ["--mounts"]:
        return mounts(args[1:])
    png = None
    if args[:1] == ["--plot"] and len(args) > 1:
        png, args = args[1], args[2:]
    rc = 0
    fits = []
    print("| server | client | N | KiB/conn | Slab KiB/conn | vmalloc KiB/conn"
          " | Receive buffers | Send buffers | kept KiB | s to connect |")
    print("|---|---|---:|---:|---:|---:|---|---|---:|---:|")
    for arg in args:
        kernel, _, path = arg.partition("=")
        lines = lines_of(path)
        if not lines:
            print(f"| {kernel} | no results in {path} | | | | | | | | |")
            rc = 1
        series = {}
        for line in lines:
            f, mem = parse(line)
            asked = int(f["n"])
            n = int(f.get("connected", asked))
            shown = str(asked) if n == asked else f"{asked} ({n} made)"
            if n == 0:
                print(f"| {kernel} | {f['type']} | {shown} | na | na | na | na | na | na"
                      f" | {f.get('seconds', 'na')} |")
                continue
            used = delta(mem, "MemAvailable")
            kept = delta(mem, "MemAvailable", "before", "after")
            recv, send = octets(f.get("recv")), octets(f.get("send"))
            rbuf = "na" if recv is None else \
                f"{recv / n / 1024:.0f} KiB/conn ({octets(f.get('recv'), 0)}x{f.get('size')})"
            sbuf = "na" if send is None else f"{send / n / 1024:.0f} KiB/conn"
            print(f"| {kernel} | {f['type']} | {shown} | {per(used, n)}"
                  f" | {per(delta(mem, 'Slab'), n)} | {per(delta(mem, 'VmallocUsed'), n)}"
                  f" | {rbuf} | {sbuf} | {'na' if kept is None else kept}"
                  f" | {f.get('seconds', 'na')} |")
            if used is not None and n == asked:
                series.setdefault(f["type"], []).append((n, used))
        for t, pts in series.items():
            fits.append((kernel, t, pts, fit(pts)))
    print()
    fit_table(fits, "KiB per connection | fixed KiB | largest residual KiB", "{:.0f}")
    print()
    print("| server | client's thresholds | KiB per connection | "
          + " | ".join(f"connections in {g} GiB" for g in GIBS) + " |")
    print("|---|---|---:|" + "---:|" * len(GIBS))
    for kernel, t, _, r in fits:
        if r is None or r[0] <= 0:
            continue
        print(f"| {kernel} | {THRESHOLDS.get(t, t)} | {r[0]:.0f} | "
              + " | ".join(f"{int(g * 1024 * 1024 // r[0]):,}" for g in GIBS) + " |")
    if png is not None and not plot(png, fits):
        rc = 1
    return rc | insns(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
