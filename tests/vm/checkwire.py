#!/usr/bin/env python3
"""case_qdisc's checks of the wire_out events (events=wire: a device hands
a packet to its driver, after its qdisc) at a router's tbf, in
ttpb2ascii's magnet text, against tbf's own counters and against tcpdump
on the same device.

  checkwire.py TEXT NETNS IFINDEX SENT_PKTS SENT_BYTES PCAP

TEXT: the router's log; NETNS, IFINDEX: the router's namespace and the
device tbf is on; SENT_PKTS, SENT_BYTES: `tc -s qdisc`'s numbers; PCAP:
tcpdump's capture of the TCP packets leaving that device (-Q out, with
nanosecond stamps), taken while magnet recorded.

- The router's wire_out events on that device are tbf's sent packets, and
  their bytes (the IP packet and the 14-byte Ethernet header tbf counts)
  its sent bytes: what left, not what came (the dev_out events are what
  came, tbf's drops among them).
- Each of those packets' qdisc event (tbf let it go) comes before its
  wire_out (matched by sequence range, IP id and ports, in order), and the
  wire_out before tbf's next dequeue on the device, of another batch: the
  driver gets the packets of one dequeue in the same call
  (qdisc_restart(), sch_direct_xmit()), and one CPU at a time runs a
  qdisc. A batch is what one dequeue_skb() took (several where the device
  has BQL: veth on 7.2): dequeue events in a row, no enqueue between, with
  one qlen. Times on magnet's one clock.
- tcpdump saw leave exactly the packets of the wire_out events, in the
  same order, and each wire_out is between tcpdump's stamp of its packet
  and of the next one (xmit_one(): the taps, then the tracepoint, and the
  next packet after), for one offset between tcpdump's wall clock and
  magnet's: offset-free, as the order is; that offset (the header's
  conversion's error) within SKEW.
These are orders, not durations: under the emulator the guest's CPU can
stop for milliseconds anywhere (tests/vm/checkqdisc.py's stalls), more so
on a loaded host, so how long it took is printed (from the dequeue, and
from tcpdump's stamp; the dev_out times, before tbf, beside), not held to
a bound.
"""
import statistics
import struct
import sys

import magnettext

SKEW = 0.001        # s, the two clocks' (wall and magnet's) conversion


def pct(xs, p):
    """the p-th percentile (nearest rank) of xs, sorted"""
    return xs[min(len(xs) - 1, max(0, -(-len(xs) * p // 100) - 1))]


def pcap_packets(path):
    """(time, sport, dport, seq, ip_id) of each TCP/IPv4 frame of a classic
    pcap file with nanosecond (or microsecond) stamps, Ethernet frames"""
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < 24:
        raise SystemExit("checkwire: FAIL: %s: not a pcap file" % path)
    magic = struct.unpack_from("<I", b, 0)[0]
    if magic == 0xa1b23c4d:
        div = 1e9
    elif magic == 0xa1b2c3d4:
        div = 1e6
    else:
        raise SystemExit("checkwire: FAIL: %s: magic 0x%08x" % (path, magic))
    link = struct.unpack_from("<I", b, 20)[0]
    if link != 1:
        raise SystemExit("checkwire: FAIL: %s: link type %d, not Ethernet" %
                         (path, link))
    out, off = [], 24
    while off + 16 <= len(b):
        sec, frac, caplen, _ = struct.unpack_from("<IIII", b, off)
        fr = b[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if len(fr) < 14 + 20 + 20 or fr[12:14] != b"\x08\x00":
            continue
        ip = fr[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6:
            continue
        ip_id = struct.unpack_from(">H", ip, 4)[0]
        sport, dport, seq = struct.unpack_from(">HHI", ip, ihl)
        out.append((sec + frac / div, sport, dport, seq, ip_id))
    return out


def main(text, netns, ifindex, pkts, nbytes, pcap):
    pkts, nbytes = int(pkts), int(nbytes)
    rows = magnettext.rows(text)
    bad = []
    if any(r["event"] == "lost" for r in rows):
        bad.append("LOST records")
    dev = [r for r in rows if r["netns"] == netns and r["ifindex"] == ifindex]
    w = [r for r in dev if r["event"] == "wire_out"]
    came = [r for r in dev if r["event"] == "dev_out"]
    wbytes = sum(int(r["len"]) + 14 for r in w)
    print("tbf: sent %d packets, %d bytes; magnet on the device: %d wire_out "
          "(%d bytes), %d qdisc, %d dev_out" % (pkts, nbytes, len(w), wbytes,
                                               sum(r["event"] == "qdisc"
                                                   for r in dev),
                                               len(came)))
    if len(w) != pkts:
        bad.append("%d wire_out events, tbf sent %d packets" % (len(w), pkts))
    if wbytes != nbytes:
        bad.append("%d bytes in wire_out events, tbf sent %d" % (wbytes,
                                                                nbytes))
    t = lambda r: float(r["time"])
    key = lambda r: (r["lport"], r["rport"], r["seq"], r["ip_id"])
    # each dequeue, then its packet's wire_out, then the next dequeue of
    # another batch: a qdisc may hand the driver several packets at once
    # (dequeue_skb()'s bulk dequeue, where the device has BQL: veth on
    # 7.2), their dequeue events in a row with the qlen after them all,
    # then their wire_outs. A batch: dequeues in a row (no enqueue between)
    # with one qlen
    qe = sorted((r for r in dev if r["event"] in ("qdisc", "qdisc_enq")),
                key=t)
    q, batch, prev = [], [], None
    for r in qe:
        if r["event"] != "qdisc":
            prev = None
            continue
        if prev is None or r["qdisc_qlen"] != prev["qdisc_qlen"]:
            batch.append(len(q))
        else:
            batch.append(batch[-1])
        q.append(r)
        prev = r
    # the index of the first dequeue after each one's batch
    after_batch = [len(q)] * len(q)
    for i in range(len(q) - 2, -1, -1):
        after_batch[i] = i + 1 if batch[i + 1] != batch[i] else \
            after_batch[i + 1]
    pend = {}
    for i, r in enumerate(q):
        pend.setdefault(key(r), []).append(i)
    late, unmatched, early, after = [], 0, 0, 0
    for r in w:
        l = pend.get(key(r))
        if not l:
            unmatched += 1
            continue
        i = l.pop(0)
        late.append(t(r) - t(q[i]))
        if t(r) < t(q[i]):
            early += 1
        elif after_batch[i] < len(q) and t(r) > t(q[after_batch[i]]):
            after += 1
    if unmatched:
        bad.append("%d wire_out events with no qdisc event before" %
                   unmatched)
    if late:
        late.sort()
        print("from each packet's dequeue to its wire_out: median %.1f us, "
              "p99 %.1f us, longest %.1f us, earliest %.1f us; %d before "
              "their dequeue, %d after the next batch's; %d dequeues in "
              "%d batches" % (
                  pct(late, 50) * 1e6, pct(late, 99) * 1e6, late[-1] * 1e6,
                  late[0] * 1e6, early, after, len(q), len(set(batch))))
        if early:
            bad.append("%d wire_out events before their dequeue" % early)
        if after:
            bad.append("%d wire_out events after tbf's next dequeue (of "
                       "another batch)" % after)
    else:
        bad.append("no wire_out matched to a dequeue")
    # tcpdump's packets, each to its wire_out and to its dev_out
    cap = pcap_packets(pcap)
    print("tcpdump: %d TCP packets left the device" % len(cap))
    if len(cap) != len(w):
        bad.append("tcpdump saw %d packets leave, %d wire_out events" %
                   (len(cap), len(w)))
    ck = lambda c: (str(c[1]), str(c[2]), str(c[3]), str(c[4]))
    diffs, nexts, order = [], [], 0
    for j, (c, r) in enumerate(zip(cap, w)):
        if ck(c) != key(r):
            order += 1
            continue
        diffs.append(t(r) - c[0])
        if j + 1 < len(cap):
            nexts.append(t(r) - cap[j + 1][0])
    if order:
        bad.append("%d of tcpdump's packets are not the wire_out at their "
                   "place" % order)
    byk = {}
    for r in came:
        byk.setdefault(key(r), []).append(t(r))
    waits = [c[0] - byk[ck(c)].pop(0) for c in cap if byk.get(ck(c))]
    if diffs:
        far = sorted(abs(d) for d in diffs)
        # an offset c with stamp <= wire_out - c <= next stamp for all:
        # max(wire_out - next stamp) <= c <= min(wire_out - stamp)
        lo, hi = max(nexts, default=-SKEW), min(diffs)
        print("wire_out minus tcpdump's time, %d packets: median %+.1f us, "
              "p99 %.1f us away, farthest %.1f us, earliest %+.1f us; "
              "minus the next packet's: at most %+.1f us (dev_out, before "
              "tbf: %.2f ms before tcpdump's at the median, %.2f ms at "
              "most)" % (
                  len(diffs), statistics.median(diffs) * 1e6,
                  pct(far, 99) * 1e6, far[-1] * 1e6, min(diffs) * 1e6,
                  lo * 1e6, statistics.median(waits) * 1e3 if waits else 0,
                  max(waits) * 1e3 if waits else 0))
        if lo > hi:
            bad.append("no clock offset puts every wire_out between "
                       "tcpdump's stamps of its packet and the next "
                       "(%+.1f us > %+.1f us)" % (lo * 1e6, hi * 1e6))
        elif hi < -SKEW or lo > SKEW:
            bad.append("wire_out between tcpdump's stamps only with the "
                       "clocks %+.1f..%+.1f us apart" % (lo * 1e6, hi * 1e6))
    else:
        bad.append("no packet of tcpdump's matched")
    for b in bad[:8]:
        print("FAIL: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    main(*sys.argv[1:])
