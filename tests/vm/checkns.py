#!/usr/bin/python3
"""Assertions on a capture of one TCP connection seen from three network
namespaces in one kernel: a sender, a router forwarding it, a receiver
(case_netns). The truth is the kernel's: each namespace's inode number
(stat -L -c %i /run/netns/NAME) and nftables counters of the connection's
packets at each device's prerouting and postrouting hooks.

  checkns.py text LOG FACTS     LOG: `ttpb2ascii -f magnet` of the capture
                                (port=5201, events=all). FACTS, a line each:
                                  ns NAME INODE
                                  count NAME EVENT IFINDEX KIND PACKETS
                                (EVENT dev_out or dev_in, KIND data: to port
                                5201, or ack: from it; each namespace
                                counted both kinds). Every event line has
                                one of the three namespaces; each count
                                equals the device events of that namespace,
                                event, ifindex and kind, and there are no
                                others; the TCP and app events are the
                                sender's (its socket) or the receiver's
                                (port 5201), none the router's
  checkns.py pcap FILE PACKETS  a classic pcap file of PACKETS packets

Exits non-zero with a reason on the first failed assertion; prints a
summary when all pass.
"""
import struct
import sys


def fail(msg):
    print("checkns: FAIL: " + msg)
    sys.exit(1)


def rows_of(path):
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def cmd_text(log, facts):
    ns, counts = {}, []
    for line in open(facts):
        w = line.split()
        if w[0] == "ns":
            ns[w[1]] = w[2]
        elif w[0] == "count":
            counts.append((w[1], w[2], w[3], w[4], int(w[5])))
    name_of = {v: k for k, v in ns.items()}
    if len(name_of) != 3:
        fail("three namespaces with three inodes: %r" % ns)
    got = {}
    tcp = {}
    for r in rows_of(log):
        ev = r["event"]
        if ev in ("lost", "reset"):
            fail("a %s line: the capture is not complete" % ev)
        who = name_of.get(r["netns"])
        if who is None:
            fail("%s line of netns %r, not one of %r" % (ev, r["netns"], ns))
        if ev in ("dev_out", "dev_in"):
            # the packet's destination port: the remote one of a packet
            # sent, the local one of a packet received
            dport = r["rport"] if ev == "dev_out" else r["lport"]
            kind = "data" if dport == "5201" else "ack"
            k = (who, ev, r["ifindex"], kind)
            got[k] = got.get(k, 0) + 1
        elif ev[:4] in ("tcp_", "app_"):
            want = "rcv" if r["lport"] == "5201" else "snd"
            if who != want:
                fail("%s line of local port %s in %s's namespace, not %s's"
                     % (ev, r["lport"], who, want))
            tcp[who] = tcp.get(who, 0) + 1
    bad = []
    # the connection passed every namespace both ways (a direction a
    # device does not carry, such as data into the sender, counts 0)
    for who in ns:
        for kind in ("data", "ack"):
            if not sum(c[4] for c in counts if c[0] == who and c[3] == kind):
                bad.append("nftables counted no %s packet in %s"
                           % (kind, who))
    for who, ev, idx, kind, n in counts:
        m = got.pop((who, ev, idx, kind), 0)
        if m != n:
            bad.append("%s %s ifindex %s %s: %d records, nftables %d"
                       % (who, ev, idx, kind, m, n))
    for k, m in sorted(got.items()):
        bad.append("%s %s ifindex %s %s: %d records that no counter saw"
                   % (k + (m,)))
    if bad:
        fail("; ".join(bad))
    if set(tcp) != {"snd", "rcv"}:
        fail("TCP and app events of %s, not of both ends" % sorted(tcp))
    print("netns ok: %d device counts equal nftables' (%d packets), TCP "
          "events %s, none the router's"
          % (len(counts), sum(c[4] for c in counts),
             ", ".join("%s %d" % kv for kv in sorted(tcp.items()))))


def cmd_pcap(path, want):
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < 24 or struct.unpack_from("<I", b, 0)[0] != 0xa1b2c3d4:
        fail("%s: not a classic pcap file" % path)
    off, n = 24, 0
    while off + 16 <= len(b):
        caplen = struct.unpack_from("<I", b, off + 8)[0]
        off += 16 + caplen
        n += 1
    if off != len(b):
        fail("%s: ends inside a packet" % path)
    if n != int(want):
        fail("%s: %d packets, nftables %s" % (path, n, want))
    print("pcap ok: %d packets" % n)


def main(argv):
    if len(argv) == 4 and argv[1] == "text":
        cmd_text(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "pcap":
        cmd_pcap(argv[2], argv[3])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
