#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The server's NFS/RDMA connections from nfsd's netlink dump rdma-conn-get,
read with the kernel's own YNL library, printed one line of key=value fields
per connection in the form of the 6.12 series' /proc/net/rpc/svc_rdma_connections
(so that tests read both alike).

    conns.py TREE             TREE: a kernel tree with the series (its YNL and nfsd spec)
    conns.py TREE --serve PORT

Exit status 0 with no output: no connection; 2: the kernel has no such dump.
With --serve, the same for every TCP connection to 127.0.0.1:PORT, the
first line "#error REASON" where the dump fails: one Python start (over a
second of a TCG guest's time) for all of a test's listings (guest/lib.sh).
"""
import ipaddress
import os
import socket
import sys

tree = sys.argv[1]
sys.path.insert(0, os.path.join(tree, "tools/net/ynl/pyynl"))
from lib import YnlFamily, YnlException, NlError  # noqa: E402

# the dump's attributes in the procfs file's order, and the procfs
# file's names of the four that the dump prefixes with client-
KEYS = ["client-status", "client-offset", "client-version", "client-flags", "client-r",
        "client-send", "client-recv", "server-r", "server-send", "server-recv", "c2s", "s2c",
        "r", "send-inv", "send-plain", "recv-buf", "send-buf", "over-limit",
        "sq-depth", "sq-avail"]
PROCFS_NAME = {"client-status": "status", "client-offset": "offset",
               "client-version": "version", "client-flags": "flags"}


def addr(m, side, port=True):
    """The dump's address of SIDE ("s" the client, "d" the server, in the
    style of rpc-status-get) as ADDR[:PORT] (the procfs file's %pISpc)."""
    # YNL gives the address as text (display-hint), or else as an int
    # (IPv4) or bytes (IPv6)
    if side + "addr4" in m:
        s = str(ipaddress.ip_address(m[side + "addr4"]))
    elif side + "addr6" in m:
        v = m[side + "addr6"]
        s = "[%s]" % ipaddress.ip_address(v if isinstance(v, str) else bytes(v))
    else:
        return "none"
    return "%s:%d" % (s, m.get(side + "port", 0)) if port else s.strip("[]")


YNL = None


def listing():
    """The connections' lines, or raises ConnsError."""
    global YNL
    try:
        if YNL is None:
            YNL = YnlFamily(os.path.join(tree, "Documentation/netlink/specs/nfsd.yaml"),
                            schema="")
        msgs = YNL.dump("rdma-conn-get", {})
    except (YnlException, NlError, KeyError) as e:
        YNL = None  # a socket left in the middle of a dump is not used again
        raise ConnsError("no rdma-conn-get dump: %s" % e) from e
    out = []
    for m in msgs:
        f = ["local=" + addr(m, "d"), "remote=" + addr(m, "s", False)]
        for k in KEYS:
            v = m.get(k)
            if k == "client-flags":
                v = "0x%02x" % v
            f.append("%s=%s" % (PROCFS_NAME.get(k, k).replace("-", "_"), v))
        out.append(" ".join(f) + "\n")
    return "".join(out)


class ConnsError(Exception):
    pass


def serve(port):
    """A listing for every connection, until killed; the caller's
    descriptors beyond stdio are closed, so that no pipe it reads from
    waits for this process."""
    os.closerange(3, 1024)
    srv = socket.create_server(("127.0.0.1", port))
    while True:
        c, _ = srv.accept()
        try:
            text = listing()
        except ConnsError as e:
            text = "#error %s\n" % e
        with c:
            c.sendall(text.encode())


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--serve":
        serve(int(sys.argv[3]))
    try:
        sys.stdout.write(listing())
    except ConnsError as e:
        print("conns.py: %s" % e, file=sys.stderr)
        return 2
    return 0


sys.exit(main())
