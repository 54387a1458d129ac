#!/usr/bin/env python3
"""Frames a NIC delivers but a veth never makes, for the IP and device
probes' header parser (module/shared/pktparse.h), sent from a packet socket.

  rawframes.py send IFACE DSTMAC   send the frames below out of IFACE
  rawframes.py check LOG           check magnet's text log of them

The frames, all from 10.200.1.2 / fd00:200::2 port 5301 to the other end
(port 40123, where no socket listens):
  1. an IPv4 pure ACK (40 bytes) padded to Ethernet's 60-byte minimum, as a
     real NIC delivers it: len must be 40 and end_seq = seq, not 46 and
     seq + 6 (the padding that ip_rcv_core trims later);
  2. an IPv6 segment with 10 bytes of data behind a destination-options
     header: parsed through the extension header (ports, len 78, end_seq =
     seq + 10), not dropped as non-TCP;
  3. an IPv6 packet whose extension header runs past its end: not recorded,
     counted as unparsed.
"""
import socket
import struct
import sys

SEQ4 = 0x10000000
SEQ6 = 0x20000000
SPORT, DPORT = 5301, 40123


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp(src, dst, seq, payload, pseudo):
    hdr = struct.pack("!HHIIBBHHH", SPORT, DPORT, seq, 1, 5 << 4, 0x10,
                      65535, 0, 0)
    c = csum(pseudo(len(hdr) + len(payload)) + hdr + payload)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + payload


def frame4():
    src, dst = socket.inet_aton("10.200.1.2"), socket.inet_aton("10.200.1.1")
    seg = tcp(src, dst, SEQ4, b"",
              lambda n: src + dst + struct.pack("!BBH", 0, 6, n))
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), 7, 0x4000, 64,
                     6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + seg, 0x0800


def frame6(broken=False):
    src = socket.inet_pton(socket.AF_INET6, "fd00:200::2")
    dst = socket.inet_pton(socket.AF_INET6, "fd00:200::1")
    seg = tcp(src, dst, SEQ6, b"0123456789",
              lambda n: src + dst + struct.pack("!IxxxB", n, 6))
    dstopts = bytes([6, 0, 1, 4, 0, 0, 0, 0])     # next TCP, PadN
    if broken:
        dstopts = bytes([6, 200]) + dstopts[2:]   # 1608 bytes long
    payload = dstopts + seg
    ip = struct.pack("!IHBB", 0x60000000, len(payload), 60, 64) + src + dst
    return ip + payload, 0x86DD


def send(iface, dstmac):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    smac = s.getsockname()[4]
    dmac = bytes.fromhex(dstmac.replace(":", ""))
    for pkt, proto in (frame4(), frame6(), frame6(broken=True)):
        f = dmac + smac + struct.pack("!H", proto) + pkt
        f += b"\0" * max(0, 60 - len(f))         # Ethernet's minimum
        s.send(f)
    print("sent 3 frames on %s (IPv4 ACK padded to 60 bytes, IPv6 with "
          "destination options, IPv6 with a broken extension header)" % iface)


def fail(msg):
    print("rawframes: FAIL: " + msg)
    sys.exit(1)


def check(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f]
    rows = [r for r in rows if r["event"] in ("ip_in", "dev_in")
            and r["rport"] == str(SPORT)]
    want = {
        ("4", "ip_in"): (40, SEQ4, SEQ4), ("4", "dev_in"): (40, SEQ4, SEQ4),
        ("6", "ip_in"): (78, SEQ6, SEQ6 + 10),
        ("6", "dev_in"): (78, SEQ6, SEQ6 + 10),
    }
    got = {}
    for r in rows:
        k = (r["family"], r["event"])
        if k not in want:
            fail("unexpected record %r" % r)
        if k in got:
            fail("two %s records for IPv%s" % (k[1], k[0]))
        got[k] = (int(r["len"]), int(r["seq"]), int(r["end_seq"]))
        if r["lport"] != str(DPORT) or r["ip_proto"] != "6":
            fail("%s IPv%s: lport %s, ip_proto %s" % (k[1], k[0], r["lport"],
                                                     r["ip_proto"]))
    for k, v in want.items():
        if k not in got:
            fail("no %s record of the IPv%s frame" % (k[1], k[0]))
        if got[k] != v:
            fail("%s IPv%s: len, seq, end_seq = %s, want %s"
                 % (k[1], k[0], got[k], v))
    print("rawframes ok: padded IPv4 ACK len 40, end_seq = seq; IPv6 behind "
          "destination options len 78, 10 data bytes; at both layers")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "send":
        send(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)
