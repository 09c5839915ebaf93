#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""meta-workload.py DIR N [MARK MARK_A MARK_B]: the metadata workload of
bench-client.sh and cost-client.sh.  N files are created, stat'ed,
listed, read back and removed in DIR; a file that is missing or reads
back wrong fails it.  With MARK, the instruction-count marker program is
run with MARK_A before the work and MARK_B after it.  Prints the
operations per second (five per file)."""
import os
import subprocess
import sys
import time

d, n = sys.argv[1], int(sys.argv[2])
mark, a, b = (sys.argv[3:6] + ["", "", ""])[:3]
os.makedirs(d, exist_ok=True)
names = ["f%05d" % i for i in range(n)]
if mark and a:
    subprocess.run([mark, a], check=True)
t = time.monotonic()
for x in names:
    with open(os.path.join(d, x), "w") as f:
        f.write(x * 7)
for x in names:
    os.stat(os.path.join(d, x))
if sorted(os.listdir(d)) != names:
    sys.exit("readdir does not list the files created")
for x in names:
    with open(os.path.join(d, x)) as f:
        if f.read() != x * 7:
            sys.exit("%s reads back wrong" % x)
for x in names:
    os.unlink(os.path.join(d, x))
elapsed = time.monotonic() - t
if mark and b:
    subprocess.run([mark, b], check=True)
print("%.1f" % (5 * n / elapsed))
