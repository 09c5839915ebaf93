#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a file with O_DIRECT, block by block, and check every block
against a model (a local copy of what the file holds) until told to
stop.  For guest/tests/test-killed-rpc.sh: the newer RPCs, whose data must
survive a stray invalidation.

    model-reader.py FILE MODEL STOPFILE SECONDS [BLOCK [COUNTFILE [FIRST]]]

FILE is opened before the first read and kept open.  Blocks (default
65536 octets) are read in a stride through the file, from block FIRST
(default 0), until STOPFILE exists or SECONDS have passed.  One line
per failed or differing read ("error OFFSET ERRNO TEXT", "differ OFFSET
GOT-LENGTH"), and at the end "reads=N differ=N errors=N"; the exit
status is 0 only when every read returned the model's bytes and at
least one read was made.  While it runs, COUNTFILE (default
STOPFILE.count) holds the number of reads done, so that a test can see
reads going on.
"""
import mmap
import os
import sys
import time


def main():
    path, model_path, stop, seconds = sys.argv[1:5]
    block = int(sys.argv[5]) if len(sys.argv) > 5 else 65536
    count = sys.argv[6] if len(sys.argv) > 6 else stop + '.count'
    first = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    with open(model_path, 'rb') as f:
        model = f.read()
    blocks = len(model) // block
    if blocks == 0:
        print(f"the model is shorter than one block of {block}")
        return 1
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, block)      # page-aligned, as O_DIRECT asks
    reads = differ = errors = 0
    end = time.monotonic() + float(seconds)
    i = first
    while not os.path.exists(stop) and time.monotonic() < end:
        # a stride that is prime to any number of blocks but its
        # multiples: every block comes round
        off = (i * 7919 % blocks) * block
        i += 1
        try:
            got = os.preadv(fd, [buf], off)
        except OSError as e:
            errors += 1
            print(f"error {off} {e.errno} {e.strerror}", flush=True)
            continue
        reads += 1
        if got != block or buf[:] != model[off:off + block]:
            differ += 1
            print(f"differ {off} {got}", flush=True)
        if reads % 16 == 0:
            with open(count + '.tmp', 'w') as c:
                c.write(f"{reads}\n")
            os.replace(count + '.tmp', count)   # never read half-written
    os.close(fd)
    print(f"reads={reads} differ={differ} errors={errors}")
    return 0 if reads > 0 and differ == 0 and errors == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
