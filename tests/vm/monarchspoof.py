#!/usr/bin/python3
"""A host that forges Monarch's answers (case_monarch_spoof), run on the
router (mo-rtr), which sees the probes go by and can send packets with the
remote's address.

  monarchspoof.py PROBE PORT AFTER OUT [N]
      Once the file AFTER exists (the flow's trace.txt: the probes of the
      check before it are left alone), for each of the first N (default
      60) PROBE probes (tcp, udp, echo) from 10.63.1.1 to 10.63.2.2 that
      come in on mor0, send 10.63.1.1 answers from 10.63.2.2 that are each
      wrong in one way: everything copied from the probe seen (its key,
      ports, ICMP id, size) but one field; and one blind guess as an
      attacker who does not see the probes would make it against the old
      proxy (keys counted from 1, the ICMP id the proxy's pid, the source
      port PORT - 1). Each is sent with TTL 7, which nothing else on the
      path has: the host's nftables counts them as they arrive. On SIGTERM
      it writes OUT (JSON: the probes seen, the forgeries sent by kind)
      and exits 0.

The forgeries to 10.255.77.1 (the gateway address magnet-exp monarch
gives its veths on the host) need a route on the router to it.
"""
import json
import os
import select
import signal
import socket
import struct
import sys
import time

HOST, REMOTE, OTHER_LOCAL = "10.63.1.1", "10.63.2.2", "10.255.77.1"
TTL = 7
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip_packet(proto, l4, dst=HOST):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4),
                    int.from_bytes(os.urandom(2), "big"), 0, TTL, proto, 0,
                    socket.inet_aton(REMOTE), socket.inet_aton(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + l4


def tcp_seg(sport, dport, seq, flags, dst=HOST):
    t = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 0,
                    0, 0)
    ph = socket.inet_aton(REMOTE) + socket.inet_aton(dst) + \
        struct.pack("!BBH", 0, 6, len(t))
    c = csum(ph + t)
    return ip_packet(6, t[:16] + struct.pack("!H", c) + t[18:], dst)


def icmp(typ, code, rest, dst=HOST):
    m = struct.pack("!BBH", typ, code, 0) + rest
    m = m[:2] + struct.pack("!H", csum(m)) + m[4:]
    return ip_packet(1, m, dst)


def forgeries(kind, probe, n, pid, port):
    """(name, packet) for the probe seen (its IP packet), the n-th"""
    hl = (probe[0] & 15) * 4
    l4 = probe[hl:]
    out = []
    if kind == "tcp":
        sp, dp = struct.unpack("!HH", l4[:4])
        key = struct.unpack("!I", l4[8:12])[0]
        RST, ACK = 0x04, 0x10
        out = [("key", tcp_seg(dp, sp, key ^ 0x80000000, RST)),
               ("from_port", tcp_seg(dp ^ 1, sp, key, RST)),
               ("to_port", tcp_seg(dp, sp ^ 1, key, RST)),
               ("no_rst", tcp_seg(dp, sp, key, ACK)),
               ("to_addr", tcp_seg(dp, sp, key, RST, OTHER_LOCAL)),
               ("blind", tcp_seg(port, port - 1, n, RST))]
    elif kind == "udp":
        q = bytearray(probe[:hl + 8])   # the IP header and the UDP header

        def quote(**kw):
            b = bytearray(q)
            if "ipid" in kw:
                b[4:6] = struct.pack("!H", kw["ipid"])
            if "src" in kw:
                b[12:16] = socket.inet_aton(kw["src"])
            if "dst" in kw:
                b[16:20] = socket.inet_aton(kw["dst"])
            if "sport" in kw:
                b[hl:hl + 2] = struct.pack("!H", kw["sport"])
            if "dport" in kw:
                b[hl + 2:hl + 4] = struct.pack("!H", kw["dport"])
            return b"\0\0\0\0" + bytes(b)
        ipid = struct.unpack("!H", q[4:6])[0]
        sp, dp = struct.unpack("!HH", q[hl:hl + 4])
        out = [("key", icmp(3, 3, quote(ipid=ipid ^ 0x8000))),
               ("quoted_sport", icmp(3, 3, quote(sport=sp ^ 1))),
               ("quoted_dport", icmp(3, 3, quote(dport=dp ^ 1))),
               ("quoted_src", icmp(3, 3, quote(src="10.63.1.99"))),
               ("quoted_dst", icmp(3, 3, quote(dst="10.63.2.99"))),
               ("code", icmp(3, 1, quote())),
               ("to_addr", icmp(3, 3, quote(), OTHER_LOCAL)),
               ("blind", icmp(3, 3, quote(ipid=n & 0xffff or 1,
                                          sport=port - 1)))]
    else:
        ident, seq = struct.unpack("!HH", l4[4:8])
        data = l4[8:]

        def reply(i, s, d=data, code=0, dst=HOST):
            return icmp(0, code, struct.pack("!HH", i, s) + d, dst)
        out = [("icmp_id", reply(ident ^ 0x8000, seq)),
               ("key", reply(ident, seq ^ 0x8000)),
               ("size", reply(ident, seq, data[:8])),
               ("code", reply(ident, seq, code=1)),
               ("to_addr", reply(ident, seq, dst=OTHER_LOCAL)),
               ("blind", reply(pid & 0xffff, n & 0xffff or 1))]
    return out


def proxy_pid():
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                c = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
            except OSError:
                continue
            if c and c[0].endswith(b"magnet-monarch-proxy") and b"-q" in c:
                return int(p)
    return 0


def main(argv):
    if len(argv) not in (5, 6) or argv[1] not in ("tcp", "udp", "echo"):
        print(__doc__)
        return 2
    kind, port, after, out = argv[1], int(argv[2]), argv[3], argv[4]
    limit = int(argv[5]) if len(argv) == 6 else 60
    stop = []
    signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))
    proto = {"tcp": 6, "udp": 17, "echo": 1}[kind]
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                          socket.htons(ETH_P_IP))
    sniff.bind(("mor0", ETH_P_IP))
    sniff.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sent, seen, pid = {}, 0, 0
    open(out + ".ready", "w").close()
    while not stop:
        r, _, _ = select.select([sniff], [], [], 0.2)
        if not r:
            continue
        try:
            pkt, addr = sniff.recvfrom(65535)
        except InterruptedError:
            continue
        if addr[2] == PACKET_OUTGOING or seen >= limit or \
                not os.path.exists(after):
            continue
        if len(pkt) < 28 or pkt[9] != proto or \
                pkt[12:16] != socket.inet_aton(HOST) or \
                pkt[16:20] != socket.inet_aton(REMOTE):
            continue
        if kind == "echo" and pkt[(pkt[0] & 15) * 4] != 8:
            continue
        seen += 1
        if not pid:
            pid = proxy_pid()
        for name, f in forgeries(kind, pkt, seen, pid, port):
            tx.sendto(f, (socket.inet_ntoa(f[16:20]), 0))
            sent[name] = sent.get(name, 0) + 1
    with open(out, "w") as f:
        json.dump({"probes_seen": seen, "sent": sent,
                   "total": sum(sent.values()), "proxy_pid": pid,
                   "time": time.time()}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
