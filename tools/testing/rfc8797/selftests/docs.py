#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The documents' facts against their one source (make docs, and the
"docs" results of check.sh's ktap stage).

    docs.py check   KTAP: one result per fact below; exit 1 on drift
    docs.py write   rewrite README.md's generated blocks from their source

Each fact has one home, and the documents show it from there:
  - the bases (package, pin, suites, upstream tag, what each is for) and
    the stages make check gives each: data/bases/NAME.  README.md shows them
    in blocks between "<!-- docs.py: NAME -->" and "<!-- /docs.py -->",
    which "write" generates and "check" compares;
  - every Debian version the documents name (a package's, a kernel
    release, nfstest's) is a pin's, of data/bases/ or data/harness.conf, or one
    of OTHER_VERSIONS and OTHER_RELEASES below, each with why it is
    named: a pin that moved leaves no stale copy behind in them;
  - so is every bare kernel version of the bases' lines (7.3.N, 6.12.N):
    a pin's upstream version, the oldest a DKMS package accepts, or one
    of OTHER_KERNELS;
  - the stages: every stage of a base's CHECK_STAGES has a function in
    check.sh and a row in HARNESS.rst's table of stages, and that table
    names no other;
  - the times: README.md's table of run times is their one place; a
    figure of it (e.g. "3132 s") in HARNESS.rst or the Makefile is a
    copy that will drift.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from datafile import bases_dir, read_keys  # noqa: E402  (the harness's data files)

# the harness's folder (this file is in its selftests/)
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
README = os.path.join(TOP, "README.md")
HARNESS = os.path.join(HERE, "HARNESS.rst")
# The documents whose Debian versions are checked
VERSION_DOCS = ["README.md", "Makefile", "tools/testing/rfc8797/HARNESS.rst",
                "tools/testing/rfc8797/dkms/README.rst"]
# Debian versions the documents may name that are no pin, and why
OTHER_VERSIONS = {
    "6.12.115-2~deb12u1": "the example of RFC8797_BASE_VERSION, an older 6.12 build",
    "7.3~rc7-1~exp1": "experimental's 7.3 build, which the DKMS package does not serve",
}
# Debian kernel releases they may name that are no pin's, and why
OTHER_RELEASES = {
    "6.12.115+deb12-amd64": "the example of DKMS_KRELS",
    "6.12.107+deb13-amd64": "trixie's own 6.12 as trixie.sh found it (dkms/README.rst's record)",
    "6.12.117+deb13-amd64": "trixie's own 6.12 as trixie.sh found it (dkms/README.rst's record)",
    "6.12.118+deb13-amd64": "trixie's own 6.12 as trixie.sh found it (dkms/README.rst's record)",
}
# Upstream kernel versions of the bases' lines (6.12.N, 7.3.N) they may
# name that are no pin's, nor the oldest a DKMS package accepts, and why
OTHER_KERNELS = {
    "6.12.115": "the example of RFC8797_BASE_VERSION, an older 6.12 build",
    "6.12.107": "trixie's own 6.12, which the DKMS package refuses (dkms/README.rst's record)",
    "6.12.118": "trixie-security's 6.12 as trixie.sh found it (dkms/README.rst's record)",
    "7.3.1": "the first of the 7.3 builds the DKMS package never served (dkms/README.rst)",
    "7.3.3": "the last of them",
}
DEB_VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?(?:~rc\d+)?-\d+~(?:bpo|deb|exp)[0-9a-z+]*")
KREL = re.compile(r"\b\d+\.\d+\.\d+\+deb\d+-amd64")
NFSTEST = re.compile(r"nfstest[^0-9]{0,40}?\b(\d+\.\d+-\d+)\b")
TIME = re.compile(r"\b\d{2,5} s\b")


def bases():
    """every base, make check's first, in make check's order, then the others"""
    d = bases_dir()
    out = [(n, read_keys(os.path.join(d, n))) for n in sorted(os.listdir(d))]
    return sorted(out, key=lambda b: (int(b[1].get("MAKE_CHECK") or 99), b[0]))


def default_base():
    """lib.sh's base when RFC8797_BASE is not set"""
    env = {k: v for k, v in os.environ.items() if k != "RFC8797_BASE"}
    return subprocess.run(["bash", "-c", '. "$0"/lib.sh && echo "$RFC_BASE"', HERE],
                          env=env, capture_output=True, text=True, check=True).stdout.strip()


def upstream(pin):
    """the upstream release Debian packaged (lib.sh's BASE_UPSTREAM)"""
    v = pin.split("-")[0]
    return "v" + v.replace("~", "-")


def block_bases():
    rows = ["| base (`BASE=`) | Debian package | what it is for |", "| --- | --- | --- |"]
    dflt = default_base()
    for name, k in bases():
        suites = k["BASE_SUITES"].split()
        where = ("suite " + suites[0]) if suites else "the machine's own suites"
        rows.append("| `%s`%s | `%s` **%s** (%s; upstream %s) | %s |" % (
            name, " (default)" if name == dflt else "", k["BASE_SRC"], k["BASE_PIN"], where,
            upstream(k["BASE_PIN"]), k["BASE_PURPOSE"]))
    return "\n".join(rows)


def block_stages():
    lines = []
    for name, k in bases():
        if not k.get("MAKE_CHECK"):
            continue
        st = k["MAKE_CHECK_STAGES"] or k["CHECK_STAGES"]
        line = "- `%s`: %s" % (name, " ".join("`%s`" % s for s in st.split()))
        if k.get("LONG_CHECK_STAGES"):
            line += "; `make check-long`: %s" % " ".join(
                "`%s`" % s for s in k["LONG_CHECK_STAGES"].split())
        lines.append(line)
    return "\n".join(lines)


BLOCKS = {"bases": block_bases, "stages": block_stages}
BLOCK = re.compile(r"(<!-- docs\.py: (\w+) -->\n)(.*?)(<!-- /docs\.py -->)", re.S)


def generated(text):
    """README's text with every block generated afresh"""
    return BLOCK.sub(lambda m: m.group(1) + BLOCKS[m.group(2)]() + "\n" + m.group(4), text)


def nfstest_pin():
    return read_keys(os.path.join(HERE, "data", "harness.conf"))["NFSTEST_PIN"]


def releases():
    """the kernel releases of the pins (6.12.117-1~deb12u1 ->
    6.12.117+deb12-amd64, 7.3.4-1~bpo13+1 -> 7.3.4+deb13-amd64), and of
    the oldest kernel each DKMS package is built against"""
    r = set()
    for _, k in bases():
        pin = k["BASE_PIN"]
        m = re.search(r"~(?:deb|bpo)(\d+)", pin)
        if m:
            r.add("%s+deb%s-amd64" % (pin.split("-")[0], m.group(1)))
        if k["DKMS_OLDEST_FLAVOUR"]:
            r.add("%s.%s%s" % (k["DKMS_LINE"], k["DKMS_MIN_SUBLEVEL"], k["DKMS_OLDEST_FLAVOUR"]))
    return r


def kernels():
    """the upstream kernel versions the documents may name: the pins'
    (7.3.4-1~bpo13+1 -> 7.3.4), the oldest of each DKMS package's line,
    and OTHER_KERNELS; and the bases' lines (DKMS_LINE: 6.12, 7.3)"""
    v, lines = set(OTHER_KERNELS), set()
    for _, k in bases():
        v.add(k["BASE_PIN"].split("-")[0])
        lines.add(k["DKMS_LINE"])
        v.add("%s.%s" % (k["DKMS_LINE"], k["DKMS_MIN_SUBLEVEL"]))
    return v, lines


def pins():
    p = {k["BASE_PIN"] for _, k in bases()}
    p.add(nfstest_pin())
    return p


def harness_stages():
    """the stages HARNESS.rst's table of stages has rows for (not its
    header, "stage")"""
    text = open(HARNESS).read()
    part = text.split("What ``make check`` runs", 1)[1].split("Every result is KTAP", 1)[0]
    return re.findall(r"^   \* - ([a-z0-9_]+)\n     - ", part, re.M)[1:]


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("check", "write"):
        sys.exit(__doc__)
    readme = open(README).read()
    if sys.argv[1] == "write":
        new = generated(readme)
        if new != readme:
            open(README, "w").write(new)
            print("wrote %s" % README)
        return 0

    results = []

    def result(name, why):
        results.append((name, why))

    names = {m.group(2) for m in BLOCK.finditer(readme)}
    result("docs: README.md has the blocks %s" % " ".join(sorted(BLOCKS)),
           "" if names == set(BLOCKS) else "it has %s" % (" ".join(sorted(names)) or "none"))
    for m in BLOCK.finditer(readme):
        if m.group(2) in BLOCKS:
            want = BLOCKS[m.group(2)]()
            result("docs: README.md's %s block is data/bases/'s" % m.group(2),
                   "" if m.group(3).rstrip("\n") == want else "stale: make docs writes it again")
    allowed = pins() | set(OTHER_VERSIONS)
    rels = releases() | set(OTHER_RELEASES)
    for doc in VERSION_DOCS:
        text = open(os.path.join(TOP, doc)).read()
        stale = sorted({v for v in DEB_VERSION.findall(text) if v not in allowed} |
                       {v for v in KREL.findall(text) if v not in rels} |
                       {v for v in NFSTEST.findall(text) if v != nfstest_pin()})
        result("docs: %s names no Debian version or kernel release but the pins'" % doc,
               "" if not stale else "not a pin's: %s" % " ".join(stale))
    known, lines = kernels()
    bare = re.compile(r"(?<![\w.~+-])((?:%s)\.\d+)(?![\w.~+]|-\d)" %
                      "|".join(re.escape(x) for x in sorted(lines)))
    for doc in VERSION_DOCS:
        text = open(os.path.join(TOP, doc)).read()
        stale = sorted({v for v in bare.findall(text) if v not in known})
        result("docs: %s names no kernel version of the bases' lines but the pins'" % doc,
               "" if not stale else "not a pin's: %s" % " ".join(stale))
    check_sh = open(os.path.join(HERE, "check.sh")).read()
    every = []
    for _, k in bases():
        every += [s for s in k["CHECK_STAGES"].split() if s not in every]
    rows = harness_stages()
    missing = [s for s in every if not re.search(r"^stage_%s\(\) \{" % s, check_sh, re.M)]
    result("docs: check.sh runs every stage of data/bases/", " ".join(missing))
    result("docs: HARNESS.rst's table of stages has every stage of data/bases/, once",
           " ".join(["no row: %s" % s for s in every if s not in rows] +
                    ["twice: %s" % s for s in set(rows) if rows.count(s) > 1]))
    result("docs: HARNESS.rst's table of stages names no other",
           " ".join(s for s in rows if s not in every))
    times = re.search(r"## Run times\n(.*?)\n## ", readme, re.S)
    figures = set(TIME.findall(times.group(1))) if times else set()
    result("docs: README.md has its table of run times", "" if figures else "no figure found")
    for doc in ("tools/testing/rfc8797/HARNESS.rst", "Makefile"):
        text = open(os.path.join(TOP, doc)).read()
        copies = sorted(f for f in figures if re.search(r"\b%s\b" % re.escape(f), text))
        result("docs: %s repeats no figure of README.md's run times" % doc,
               "" if not copies else "repeats %s" % ", ".join(copies))

    print("KTAP version 1")
    print("1..%d" % len(results))
    bad = 0
    for i, (name, why) in enumerate(results, 1):
        if why:
            bad += 1
            print("not ok %d %s # %s" % (i, name, why))
        else:
            print("ok %d %s" % (i, name))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
