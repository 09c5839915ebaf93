#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read KTAP (Documentation/dev-tools/ktap.rst) and flatten it.

    ktap.py [--prefix PREFIX] FILE...

Every FILE is KTAP output: a guest test's results file, the results of
the interoperability matrix, or a kernel log with KUnit's nested KTAP
(any prefix before "KTAP version", such as printk timestamps, is
stripped from the lines that follow it).  For every leaf test, one line
is printed:

    ok NAME
    not ok NAME # REASON
    ok NAME # SKIP REASON
    ok NAME # XFAIL REASON

NAME is PREFIX followed by the names of the enclosing subtests and the
test's own, joined by ": ".  A result line that closes a subtest of the
same name only summarises it and is not printed.  Problems are printed
as failed tests of their own: no KTAP version line, no test at all, a
plan ("1..N") that does not match the number of results, a subtest that
no result line closes (its test stopped early: the guest crashed, the
script was killed), named after its last result, also when a line
further out ends it together with the block around it.  Lines before
the first KTAP version line are ignored.  A result "ok NAME # XFAIL
REASON" (kselftest's directive: a failure its producer's list of
expected failures names, with that list's reason) is printed with its
directive: neither a pass nor a failure.  Diagnostics that a producer
puts in the run's summary ("# RETRY ...": a run that was repeated,
"# base ...": which source a run tested) are printed as they are, at
any depth, in their order among the results.  The exit status is 0
when every result line printed is "ok".
"""

import re
import sys

VERSION = re.compile(r'^(.*?)(?:KTAP|TAP) version \d+\s*$')
RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)(?: - )?([^#]*?)\s*(?:#\s*(.*))?$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (.*?)\s*$')
SUMMARY = re.compile(r'^\s*(# (?:RETRY|base) .*?)\s*$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')


class Frame:
    """A test that has subtests: its indentation, name, plan, results."""

    def __init__(self, indent, name=None):
        self.indent = indent
        self.name = name
        self.plan = None
        self.count = 0
        self.failed = False
        self.last = None


def parse(lines, prefix, out):
    """Flatten one KTAP stream; append (ok, name, directive) to out."""
    strip = None
    stack = []

    def path(extra):
        names = [f.name for f in stack if f.name] + [extra]
        return ': '.join(n for n in [prefix] + names if n)

    def close(frame):
        if frame.plan is not None and frame.plan != frame.count:
            frame.failed = True
            out.append((False, path(frame.name and frame.name + ': plan' or 'plan'),
                        '%d results, plan 1..%d' % (frame.count, frame.plan)))

    def unclosed(frame):
        """frame, just popped, ended without its result line"""
        for f in stack:
            f.failed = True
        out.append((False, path(frame.name and frame.name + ': finished' or 'finished'),
                    'stopped early: no result line closes it (%d results%s)' %
                    (frame.count, frame.last and ", the last '%s'" % frame.last or '')))
        close(frame)

    for raw in lines:
        raw = raw.rstrip('\n')
        if strip is None:
            m = VERSION.match(raw)
            if m:
                strip = len(m.group(1))
                stack = [Frame(0)]
            continue
        line = raw[strip:]
        m = VERSION.match(line)
        if m:
            indent = len(m.group(1))
            if indent > stack[-1].indent:
                stack.append(Frame(indent))
            continue
        m = SUBTEST.match(line)
        if m:
            indent = len(m.group(1))
            if stack[-1].indent == indent and stack[-1].name is None and indent:
                stack[-1].name = m.group(2)
            elif indent > stack[-1].indent:
                stack.append(Frame(indent, m.group(2)))
            continue
        m = SUMMARY.match(line)
        if m:
            out.append((None, m.group(1), ''))
            continue
        m = PLAN.match(line)
        if m:
            if stack[-1].indent == len(m.group(1)):
                stack[-1].plan = int(m.group(2))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        ok = m.group(2) == 'ok'
        name = m.group(4).strip()
        directive = (m.group(5) or '').strip()
        summary = None
        while len(stack) > 1 and stack[-1].indent > indent:
            frame = stack.pop()
            if len(stack) > 1 and stack[-1].indent > indent:
                # the block around it ends on this line as well: its
                # own result line never came
                unclosed(frame)
            else:
                summary = frame
                close(summary)
        if stack[-1].indent < indent:
            stack.append(Frame(indent))	# results without a header
        stack[-1].count += 1
        stack[-1].last = name
        if summary is not None:
            # the result line of a subtest: a failure it reports that
            # none of its own results showed is a failure of its own
            if not ok and not summary.failed and \
                    not directive.upper().startswith('SKIP'):
                out.append((False, path(name), directive or 'failed'))
                for f in stack:
                    f.failed = True
            continue
        if not ok and not directive.upper().startswith('SKIP'):
            for f in stack:
                f.failed = True
        out.append((ok, path(name), directive))
    if strip is None:
        out.append((False, prefix or 'ktap', 'no KTAP version line'))
        return
    while len(stack) > 1:
        unclosed(stack.pop())
    close(stack.pop())


def main(argv):
    prefix = ''
    if len(argv) >= 2 and argv[0] == '--prefix':
        prefix = argv[1]
        argv = argv[2:]
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    out = []
    for f in argv:
        try:
            with open(f, errors='backslashreplace') as fh:
                parse(fh, prefix, out)
        except OSError as e:
            out.append((False, prefix or f, 'cannot read %s: %s' % (f, e.strerror)))
    if not [r for r in out if r[0] is not None]:
        out.append((False, prefix or 'ktap', 'no test result'))
    bad = 0
    for ok, name, directive in out:
        if ok is None:
            print(name)
        elif directive.upper().startswith(('SKIP', 'XFAIL')):
            print('ok %s # %s' % (name, directive))
        elif ok:
            print('ok %s' % name)
        else:
            bad = 1
            print('not ok %s # %s' % (name, directive or 'failed'))
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
