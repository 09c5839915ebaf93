#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The server's NFS/RDMA connections from nfsd's netlink dump rdma-conn-get,
read with the kernel's own YNL library, printed one line of key=value fields
per connection in the form of the 6.12 series' /proc/net/rpc/svc_rdma_connections
(so that tests read both alike).

    conns.py TREE     TREE: a kernel tree with the series (its YNL and nfsd spec)

Exit status 0 with no output: no connection; 2: the kernel has no such dump.
"""
import ipaddress
import os
import socket
import struct
import sys

tree = sys.argv[1]
sys.path.insert(0, os.path.join(tree, "tools/net/ynl/pyynl"))
from lib import YnlFamily, YnlException, NlError  # noqa: E402

# the dump's attributes in the procfs file's order, and the procfs
# file's names of the four that the dump prefixes with client-
KEYS = ["client-status", "client-offset", "client-version", "client-flags", "client-r",
        "client-send", "client-recv", "server-r", "server-send", "server-recv", "c2s", "s2c",
        "r", "send-inv", "send-plain", "recv-buf", "send-buf", "server-sent",
        "sq-depth", "sq-avail"]
PROCFS_NAME = {"client-status": "status", "client-offset": "offset",
               "client-version": "version", "client-flags": "flags"}


def addr(raw, port=True):
    """A struct sockaddr_storage as ADDR[:PORT] (the procfs file's %pISpc)."""
    fam = struct.unpack_from("=H", raw)[0]
    if fam == socket.AF_INET:
        p, a = struct.unpack_from("!H4s", raw, 2)
        s = str(ipaddress.IPv4Address(a))
    elif fam == socket.AF_INET6:
        p, a = struct.unpack_from("!H4x16s", raw, 2)
        s = "[%s]" % ipaddress.IPv6Address(a)
    else:
        return "family%d" % fam
    return "%s:%d" % (s, p) if port else s.strip("[]")


def main():
    spec = os.path.join(tree, "Documentation/netlink/specs/nfsd.yaml")
    try:
        ynl = YnlFamily(spec, schema="")
        msgs = ynl.dump("rdma-conn-get", {})
    except (YnlException, NlError, KeyError) as e:
        print("conns.py: no rdma-conn-get dump: %s" % e, file=sys.stderr)
        return 2
    for m in msgs:
        f = ["local=" + addr(m["local"]), "remote=" + addr(m["remote"], False)]
        for k in KEYS:
            v = m.get(k)
            if k == "client-flags":
                v = "0x%02x" % v
            f.append("%s=%s" % (PROCFS_NAME.get(k, k).replace("-", "_"), v))
        print(" ".join(f))
    return 0


sys.exit(main())
