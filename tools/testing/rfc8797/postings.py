#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series as the postings a maintainer takes, one folder per posting.

    postings.py export --tree T --base-tag B --patches P --out DIR
    postings.py check --tree T --base-tag B --patches P --out DIR [--bisect-trees F]
                      [--work W]

patches/BASE/postings says which commits of the prepared tree go to which
tree, in order (see its header).  "export" writes, for each posting, a
folder NN-NAME in DIR with git format-patch's output: a cover letter
from patches/BASE/cover/NAME, To:/Cc: from the base tree's
scripts/get_maintainer.pl, the upstream base and the patch IDs of the
postings it depends on, and every patch From: and Signed-off-by: the
exporting user's git identity.

"check" reads such a DIR and prints one KTAP result per posting and
check: applies in order, builds at every patch (from the bisect log of
tree.sh, matched by tree ID), checkpatch --strict, kernel-doc, ABI
documentation for new interfaces, Signed-off-by:, Fixes: on fixes, and
where stable is asked: by a Cc: stable trailer on each fix (stable =
trailer) or in the cover letter, one line per patch saying why (stable =
cover).  A posting for the NFSD tree carries no Cc: stable except on a
patch listed as an emergency: NFSD's maintainer profile says "Don't add
'Cc: stable' unless you are absolutely sure".

"selftest" runs those stable rules over a table of made-up patches
(KTAP; make check's ktap stage).
"""

import argparse
import concurrent.futures
import configparser
import os
import re
import shutil
import subprocess
import sys
import tempfile

# domains that never deliver mail (RFC 2606, RFC 6761)
RESERVED = re.compile(r"@(.*\.)?(example(\.(com|net|org))?|invalid|test|localhost)>?$", re.I)


def git(tree, *args, env=None, inp=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    r = subprocess.run(["git", "-C", tree] + list(args), input=inp, capture_output=True,
                       text=True, env=e)
    if r.returncode:
        sys.exit(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def slug(subject):
    """The name tree.sh refresh gives a patch file, without its number."""
    s = re.sub(r"[^A-Za-z0-9._]", "-", subject)
    s = re.sub(r"-+", "-", s).lstrip("-")[:52]
    return re.sub(r"[-.]*$", "", s)


def read_postings(patches):
    cp = configparser.ConfigParser(interpolation=None)
    path = os.path.join(patches, "postings")
    if not cp.read(path):
        sys.exit(f"{path}: missing")
    out = []
    for name in cp.sections():
        sec = cp[name]
        out.append({
            "name": name,
            "prefix": sec.get("prefix", "PATCH"),
            "tree": sec["tree"],
            "fixes": sec.getboolean("fixes", False),
            "stable": sec.get("stable", "trailer"),
            "not_stable": sec.get("not-stable", "").split(),
            "emergency": sec.get("emergency", "").split(),
            "after": sec.get("after", "").split(),
            "slugs": sec["patches"].split(),
            "cover": os.path.join(patches, "cover", name),
        })
    return out


def assign(tree, base, postings):
    """Each posting's commits, checked against the series: every commit
    in exactly one posting, and the postings in the series' order."""
    commits = git(tree, "rev-list", "--reverse", f"{base}..work").split()
    by_slug = {}
    for c in commits:
        by_slug[slug(git(tree, "log", "-1", "--format=%s", c).strip())] = c
    order = []
    names = [p["name"] for p in postings]
    for i, p in enumerate(postings):
        for dep in p["after"]:
            if dep not in names[:i]:
                sys.exit(f"postings: [{p['name']}] after {dep}: not a posting above it")
        p["commits"] = []
        for s in p["slugs"]:
            if s not in by_slug:
                sys.exit(f"postings: [{p['name']}] names no patch of the series: {s}")
            p["commits"].append(by_slug[s])
            order.append(by_slug[s])
    if order != commits:
        missing = [git(tree, "log", "-1", "--format=%s", c).strip()
                   for c in commits if c not in order]
        sys.exit("postings: the postings must hold every patch once, in the series' order"
                 + (f"; not in any: {missing}" if missing else ""))
    return postings


def identity():
    """The exporting user: git's identity where the export runs."""
    forced = os.environ.get("RFC8797_EXPORT_IDENT")
    if forced:
        m = re.match(r"^(.+?) <([^>]+)>$", forced)
        if not m:
            sys.exit("RFC8797_EXPORT_IDENT: 'Name <address>'")
        return m.group(1), m.group(2)
    vals = []
    for key in ("user.name", "user.email"):
        r = subprocess.run(["git", "config", key], capture_output=True, text=True)
        vals.append(r.stdout.strip())
    if not all(vals):
        sys.exit("make export: no git identity.  The patches go out From: and Signed-off-by:\n"
                 "you; set it first:\n"
                 "    git config --global user.name 'Your Name'\n"
                 "    git config --global user.email you@example.org")
    if RESERVED.search(vals[1]):
        print(f"warning: {vals[1]} is in a domain that receives no mail; "
              "a posting needs an address that can be answered", file=sys.stderr)
    return vals[0], vals[1]


WIDE = {"NETWORKING [GENERAL]", "TRACING", "THE REST"}


def maintainers(tree, files):
    """To: (maintainers) and Cc: (reviewers, lists) of patch FILES."""
    r = subprocess.run(["perl", "scripts/get_maintainer.pl", "--no-git", "--no-git-fallback",
                        "--no-tree"] + files, cwd=tree, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"get_maintainer.pl: {r.stderr.strip()}")
    to, cc = [], []
    for line in r.stdout.splitlines():
        m = re.match(r"^(.*?) \((.*)\)$", line.strip())
        who, role = (m.group(1), m.group(2)) if m else (line.strip(), "")
        # the subsystem's own maintainers; those of the wide entries that
        # also match (all of net/, trace headers) are copied
        home = role.startswith("maintainer:") and role[11:] not in WIDE
        (to if home else cc).append(who)
    return to, cc


def export(a):
    name, email = identity()
    ident = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
             "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    postings = assign(a.tree, a.base_tag, read_postings(a.patches))
    parent = git(a.tree, "rev-parse", f"{a.base_tag}^{{commit}}").strip()
    pids = {}		# each posting's patch IDs
    subjects = {}
    os.makedirs(a.out, exist_ok=True)
    for i, p in enumerate(postings, 1):
        first = parent
        for c in p["commits"]:
            msg = git(a.tree, "log", "-1", "--format=%B", c)
            parent = git(a.tree, "commit-tree", f"{c}^{{tree}}", "-p", parent, env=ident,
                         inp=msg).strip()
        d = os.path.join(a.out, f"{i:02d}-{p['name']}")
        os.makedirs(d)
        subprocess.run(["git", "-C", a.tree, "format-patch", "-q", "-s", "--cover-letter",
                        "--no-signature", f"--subject-prefix={p['prefix']}", "-o", d,
                        f"{first}..{parent}"], check=True, env={**os.environ, **ident})
        files = sorted(f for f in os.listdir(d) if not f.startswith("0000-"))
        to, cc = maintainers(a.tree, [os.path.join(d, f) for f in files])
        cover = os.path.join(d, "0000-cover-letter.patch")
        deps = closure(postings, p)
        fill_cover(cover, p, a, [subjects[n] for n in deps],
                   [x for n in deps for x in pids[n]])
        for f in ["0000-cover-letter.patch"] + files:
            add_recipients(os.path.join(d, f), to, cc)
        pids[p["name"]] = []
        for f in files:
            with open(os.path.join(d, f)) as fp:
                pid = subprocess.run(["git", "patch-id", "--stable"], stdin=fp,
                                     capture_output=True, text=True).stdout.split()
            pids[p["name"]].append(pid[0])
        subjects[p["name"]] = f"{i:02d}-{p['name']}: {subject_of(cover)}"
        print(f"{d}: {len(files)} patches, To: {', '.join(to)}", file=sys.stderr)


def closure(postings, p):
    """The postings P needs, its "after" and theirs, in posting order."""
    need = set()
    todo = list(p["after"])
    while todo:
        n = todo.pop()
        if n not in need:
            need.add(n)
            todo += next(q for q in postings if q["name"] == n)["after"]
    return [q["name"] for q in postings if q["name"] in need]


def subject_of(cover):
    with open(cover) as f:
        for line in f:
            if line.startswith("Subject: "):
                return re.sub(r"^\[[^]]*\] ", "", line[9:].strip())
    return ""


def fill_cover(cover, p, a, earlier, prereq):
    with open(p["cover"]) as f:
        subject, _, blurb = f.read().partition("\n")
    base = f"{a.upstream} ({a.base_desc})"
    blurb = blurb.strip() + f"\n\nFor {p['tree']}.\n"
    deps = ("\nIt applies to %s after:\n%s\n" % (base, "\n".join("  " + e for e in earlier))
            if earlier else f"\nIt applies to {base} on its own.\n")
    blurb = blurb + deps
    text = open(cover).read()
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    text = text.replace("*** BLURB HERE ***", blurb.strip())
    trailer = [f"base-commit: {a.upstream_commit or a.upstream}"]
    trailer += [f"prerequisite-patch-id: {x}" for x in prereq]
    text = text.rstrip("\n") + "\n\n" + "\n".join(trailer) + "\n"
    with open(cover, "w") as f:
        f.write(text)


def add_recipients(path, to, cc):
    text = open(path).read()
    head, sep, body = text.partition("\n\n")
    extra = ""
    if to:
        extra += "\nTo: " + ",\n    ".join(to)
    if cc:
        extra += "\nCc: " + ",\n    ".join(cc)
    with open(path, "w") as f:
        f.write(head + extra + sep + body)


# ---- check -----------------------------------------------------------------

class Ktap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, ok, name, why=""):
        self.n += 1
        if not ok:
            self.failed += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} {name}" + ("" if ok else f" # {why}"),
              flush=True)


ABI_PATTERNS = [
    # (what a new interface looks like in a diff, how it is named)
    (re.compile(r'^\+.*\.procname\s*=\s*"([^"]+)"'), "sysctl"),
    (re.compile(r'^\+.*proc_create[a-z_]*\(\s*"([^"]+)"'), "procfs"),
    (re.compile(r'^\+.*__ATTR[A-Z_]*\(\s*([a-z_0-9]+)'), "sysfs"),
    (re.compile(r'^\+.*module_param[a-z_]*\(\s*([a-z_0-9]+)'), "module parameter"),
]


def new_interfaces(patch):
    out = []
    for line in open(patch, errors="replace"):
        for rx, kind in ABI_PATTERNS:
            m = rx.search(line)
            if m:
                out.append((kind, m.group(1)))
    return out


def abi_documented(tree, name):
    r = subprocess.run(["grep", "-rlw", "--", name, "Documentation/ABI"], cwd=tree,
                       capture_output=True, text=True)
    return bool(r.stdout.strip())


def kerneldoc(wt, f, rev=None):
    """kernel-doc's warnings for F in the worktree, or at REV, without
    line numbers (so that a warning an earlier hunk moved is the same)."""
    path = f
    if rev:
        r = subprocess.run(["git", "-C", wt, "show", f"{rev}:{f}"], capture_output=True,
                           text=True)
        if r.returncode:
            return set()
        tmp = tempfile.NamedTemporaryFile("w", suffix=os.path.splitext(f)[1], delete=False)
        tmp.write(r.stdout)
        tmp.close()
        path = tmp.name
    r = subprocess.run(["./scripts/kernel-doc", "-Wall", "-none", path], cwd=wt,
                       capture_output=True, text=True)
    if rev:
        os.unlink(path)
    return {re.sub(r"\S+:\d+:? ", "", x) for x in (r.stdout + r.stderr).splitlines() if x.strip()}


def check(a):
    k = Ktap()
    postings = sorted(d for d in os.listdir(a.out) if re.match(r"^\d\d-", d))
    print("KTAP version 1")
    built = {}
    if a.bisect_trees and os.path.exists(a.bisect_trees):
        for line in open(a.bisect_trees):
            t, _, state = line.strip().partition(" ")
            built[t] = state == "ok"
    described = read_postings(a.patches)
    a.described = {p["name"]: p for p in described}
    after = {p["name"]: closure(described, p) for p in described}
    with tempfile.TemporaryDirectory() as tmp:
        wt, alone = (worktree(a, os.path.join(a.work or tmp, n), not a.work)
                     for n in ("in-order", "alone"))
        try:
            for d in postings:
                # on the base with only the postings it names
                need = [x for x in postings if x[3:] in after.get(d[3:], [])] + [d]
                git(alone, "reset", "-q", "--hard", a.base_tag)
                ok, why = am(alone, [p for x in need for p in patch_files(os.path.join(a.out, x))])
                k.result(ok, f"{d}: applies to the base after {' '.join(need[:-1]) or 'nothing else'}",
                         why)
                check_posting(a, k, os.path.join(a.out, d), d, wt, built)
        finally:
            if not a.work:
                for w in (wt, alone):
                    subprocess.run(["git", "-C", a.tree, "worktree", "remove", "--force", w])
    print(f"# postings: {len(postings)}, results: {k.n}, failed: {k.failed}")
    return 1 if k.failed or not postings else 0


def worktree(a, w, new):
    """A worktree of the tree at the base tag, at W: a new one, or (--work)
    the one left there by an earlier check, reset, which touches only the
    files the series changed.  Making and removing the two worktrees cost
    about 80 s of each run of make check's postings stage (160 s against
    80 s).  One that cannot be reset (an earlier run killed in the middle
    of a git command leaves its lock) is made again."""
    if not new:
        listed = git(a.tree, "worktree", "list", "--porcelain")
        if os.path.isdir(w) and f"worktree {os.path.realpath(w)}" in listed.splitlines():
            subprocess.run(["git", "-C", w, "am", "--abort"], capture_output=True)
            if all(subprocess.run(["git", "-C", w] + cmd, capture_output=True).returncode == 0
                   for cmd in (["reset", "-q", "--hard", a.base_tag], ["clean", "-q", "-fdx"])):
                return w
            subprocess.run(["git", "-C", a.tree, "worktree", "remove", "--force", w],
                           capture_output=True)
        shutil.rmtree(w, ignore_errors=True)
        subprocess.run(["git", "-C", a.tree, "worktree", "prune"], check=True)
    os.makedirs(os.path.dirname(w), exist_ok=True)
    subprocess.run(["git", "-C", a.tree, "worktree", "add", "-q", "--detach", w, a.base_tag],
                   check=True)
    return w


def patch_files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(".patch") and not f.startswith("0000-"))


def am(wt, patches):
    ident = {"GIT_COMMITTER_NAME": "check", "GIT_COMMITTER_EMAIL": "check@invalid"}
    r = subprocess.run(["git", "-C", wt, "am", "-q", "--keep-cr"] + patches,
                       capture_output=True, text=True, env={**os.environ, **ident})
    if r.returncode:
        subprocess.run(["git", "-C", wt, "am", "--abort"], capture_output=True)
        return False, " ".join(r.stderr.strip().splitlines()[-1:])
    return True, ""


def check_posting(a, k, d, name, wt, built):
    desc = a.described.get(name[3:], {})
    fixes = desc.get("fixes", False)
    nfsd = "NFSD" in desc.get("tree", "")
    patches = patch_files(d)
    ok, why = am(wt, patches)
    k.result(ok, f"{name}: applies in order after the postings above it", why)
    if not ok:
        return
    trees = git(wt, "log", "--reverse", "--format=%T", f"HEAD~{len(patches)}..HEAD").split()
    if built:
        bad = [i + 1 for i, t in enumerate(trees) if not built.get(t, False)]
        k.result(not bad, f"{name}: builds at every patch",
                 f"patches {bad} not built, or broken, by tree.sh bisect")
    else:
        k.result(False, f"{name}: builds at every patch", "no bisect record (tree.sh bisect)")
    cp_bad, kd_bad, abi_bad, sob_bad, fix_bad = [], [], [], [], []
    stable_bad, nfsd_bad = [], []
    cover = open(os.path.join(d, "0000-cover-letter.patch"), errors="replace").read()
    asked = stable_section(cover)
    # UNKNOWN_COMMIT_ID: the tree comes from Debian's tarball, without
    # the history Fixes: IDs name.  FILE_PATH_CHANGES: new files need no
    # entry of their own when an existing one reaches their list (checked
    # below with get_maintainer.pl).  One checkpatch per CPU at a time.
    with concurrent.futures.ThreadPoolExecutor(len(os.sched_getaffinity(0))) as pool:
        checked = list(pool.map(lambda p: subprocess.run(
            ["./scripts/checkpatch.pl", "--strict", "-q", "--ignore",
             "UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES", p], cwd=wt, capture_output=True, text=True),
            patches))
    for i, (p, r) in enumerate(zip(patches, checked), 1):
        if r.stdout.strip() or r.returncode:
            cp_bad.append(i)
            print("\n".join("# " + x for x in r.stdout.splitlines()[:20]))
        text = open(p, errors="replace").read()
        msg = text.split("\n---\n", 1)[0]
        if not re.search(r"^Signed-off-by: .+ <[^>]+>$", msg, re.M):
            sob_bad.append(i)
        subj = re.sub(r"^\[[^]]*\] ", "", re.search(r"^Subject: (.*(?:\n [^\n]*)*)", msg,
                                                    re.M).group(1).replace("\n", ""))
        if fixes and not re.search(r"^Fixes: [0-9a-f]{12,} \(\".*\"\)$", msg, re.M):
            fix_bad.append(i)
        stable_why, nfsd_fault = stable_faults(desc, msg, subj, asked)
        stable_bad += [f"{i}: {w}" for w in stable_why]
        if nfsd_fault:
            nfsd_bad.append(i)
        for kind, iface in new_interfaces(p):
            if not abi_documented(wt, iface):
                abi_bad.append(f"{i}: {kind} {iface}")
    # kernel-doc over every C file the posting touches, at its last patch
    touched = set()
    for p in patches:
        touched |= set(re.findall(r"^\+\+\+ b/(\S+\.[ch])$", open(p, errors="replace").read(),
                                  re.M))
    for f in sorted(touched):
        if not os.path.exists(os.path.join(wt, f)):
            continue
        new = kerneldoc(wt, f) - kerneldoc(wt, f, a.base_tag)
        if new:
            kd_bad.append(f)
            print("\n".join("# " + x for x in sorted(new)[:10]))
    # new files reach a mailing list of their subsystem without an entry
    # of their own
    for f in sorted(set(re.findall(r"^diff --git a/\S+ b/(\S+)\nnew file mode",
                                   "".join(open(p, errors="replace").read() for p in patches),
                                   re.M))):
        r = subprocess.run(["perl", "scripts/get_maintainer.pl", "--no-git", "--no-git-fallback",
                            "-f", f], cwd=wt, capture_output=True, text=True)
        lists = [x for x in r.stdout.splitlines() if "(open list:" in x and "linux-kernel@" not in x
                 and "(open list:DOCUMENTATION)" not in x]
        k.result(bool(lists), f"{name}: {f} reaches its subsystem's list", "only " +
                 ", ".join(r.stdout.split("\n")[-3:]))
    k.result(not cp_bad, f"{name}: checkpatch --strict", f"patches {cp_bad}")
    k.result(not kd_bad, f"{name}: kernel-doc", f"{kd_bad}")
    k.result(not abi_bad, f"{name}: ABI documentation for every new interface",
             "; ".join(abi_bad))
    k.result(not sob_bad, f"{name}: Signed-off-by", f"patches {sob_bad}")
    if fixes:
        k.result(not fix_bad, f"{name}: Fixes: on every fix", f"patches {fix_bad}")
        k.result(not stable_bad, f"{name}: stable asked as the posting says ({desc.get('stable')})",
                 "; ".join(stable_bad))
    if nfsd:
        k.result(not nfsd_bad, f"{name}: no Cc: stable to NFSD except on an emergency",
                 f"patches {nfsd_bad}")


def stable_faults(desc, msg, subj, asked):
    """What is wrong with how a patch asks stable: the faults by the
    posting's stable rule (a list of reasons), and whether it breaks the
    NFSD rule (no Cc: stable but on an emergency).  On a posting for the
    NFSD tree the NFSD rule alone judges a Cc: stable trailer, whichever
    the posting's rule: a trailer is one fault with one reason, an
    emergency may carry it, and no patch is asked for one."""
    cc_stable = bool(re.search(r"^Cc: stable@vger\.kernel\.org", msg, re.M))
    name_slug = slug(subj)
    nfsd = "NFSD" in desc.get("tree", "")
    why = []
    if desc.get("fixes") and desc.get("stable") == "trailer" and not nfsd:
        if cc_stable == (name_slug in desc["not_stable"]):
            why.append("Cc: stable on a not-stable patch" if cc_stable else "no Cc: stable")
    if desc.get("fixes") and desc.get("stable") == "cover":
        if cc_stable and not nfsd:
            why.append("Cc: stable, where the cover letter asks")
        if not any(subj in x for x in asked):
            why.append("not named in the cover letter's Stable: section")
    return why, nfsd and cc_stable and name_slug not in desc["emergency"]


STABLE_CASES = [
    # (name, tree, stable, not-stable, emergency, Cc: stable?, in the
    #  cover's Stable: section?, faults by the stable rule, NFSD fault?);
    # every patch a fix, and "not-a-fix" below
    ("trailer-asked", "rdma", "trailer", [], [], True, False, [], False),
    ("trailer-missing", "rdma", "trailer", [], [], False, False, ["no Cc: stable"], False),
    ("trailer-not-stable", "rdma", "trailer", ["Fix-it"], [], True, False,
     ["Cc: stable on a not-stable patch"], False),
    ("trailer-not-stable-left-out", "rdma", "trailer", ["Fix-it"], [], False, False, [], False),
    ("cover-asked", "rdma", "cover", [], [], False, True, [], False),
    ("cover-unnamed", "rdma", "cover", [], [], False, False,
     ["not named in the cover letter's Stable: section"], False),
    ("cover-and-trailer", "rdma", "cover", [], [], True, True,
     ["Cc: stable, where the cover letter asks"], False),
    ("nfsd-cover-asked", "NFSD", "cover", [], [], False, True, [], False),
    ("nfsd-trailer", "NFSD", "cover", [], [], True, True, [], True),
    ("nfsd-emergency-trailer", "NFSD", "cover", [], ["Fix-it"], True, True, [], False),
    ("nfsd-trailer-rule", "NFSD", "trailer", [], [], True, False, [], True),
    ("nfsd-trailer-rule-none", "NFSD", "trailer", [], [], False, False, [], False),
    ("nfsd-trailer-rule-not-stable", "NFSD", "trailer", ["Fix-it"], [], True, False, [], True),
]


def selftest():
    """The stable rules on a table of made-up patches, as KTAP."""
    k = Ktap()
    print("KTAP version 1")
    print(f"1..{len(STABLE_CASES) + 2}")
    for name, tree, stable, not_stable, emergency, cc, named, want, want_nfsd in STABLE_CASES:
        desc = {"tree": tree, "fixes": True, "stable": stable, "not_stable": not_stable,
                "emergency": emergency}
        msg = "Subject: [PATCH] Fix it\n\nWhy.\n\nFixes: 0123456789ab (\"x\")\n"
        if cc:
            msg += "Cc: stable@vger.kernel.org\n"
        asked = [" - \"Fix it\": yes."] if named else []
        got = stable_faults(desc, msg, "Fix it", asked)
        k.result(got == (want, want_nfsd), f"stable {name}", f"got {got}")
    # a posting that is not of fixes is asked nothing, NFSD's or not
    for tree in ("rdma", "NFSD"):
        desc = {"tree": tree, "fixes": False, "stable": "trailer", "not_stable": [],
                "emergency": []}
        got = stable_faults(desc, "Subject: [PATCH] Add it\n", "Add it", [])
        k.result(got == ([], False), f"stable not-a-fix {tree}", f"got {got}")
    return 1 if k.failed else 0


def stable_section(cover):
    """The lines of the cover letter's "Stable:" section, from that line
    to the next empty one, continuation lines joined to their item."""
    m = re.search(r"^Stable:.*\n((?:.+\n)*)", cover, re.M)
    items = []
    for line in (m.group(1).splitlines() if m else []):
        if line.startswith(" - ") or not items:
            items.append(line)
        else:
            items[-1] += " " + line.strip()
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["export", "check", "selftest"])
    if sys.argv[1:2] == ["selftest"]:
        sys.exit(selftest())
    ap.add_argument("--tree", required=True)
    ap.add_argument("--base-tag", required=True)
    ap.add_argument("--patches", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--upstream", default="")
    ap.add_argument("--upstream-commit", default="")
    ap.add_argument("--base-desc", default="")
    ap.add_argument("--bisect-trees", default="",
                    help="tree.sh bisect's record: one 'TREE ok|broken' per commit")
    ap.add_argument("--work", default="",
                    help="check: keep its two worktrees of the tree in this folder, and reuse them")
    a = ap.parse_args()
    sys.exit(export(a) if a.cmd == "export" else check(a))


if __name__ == "__main__":
    main()
