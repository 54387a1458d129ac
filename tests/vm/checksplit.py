#!/usr/bin/env python3
"""case_qdisc_gso's and case_qdisc_kept's checks of a router's QDISC and
QDISC_ENQ events, in ttpb2ascii's magnet text, against the qdisc's own
counters (tc -s) and what the senders sent.

  checksplit.py TEXT NETNS IFINDEX KIND SENT_PKTS SENT_BYTES DROPPED ENQ
                [PROTO:PORT:COUNT:SEGS ...]

TEXT: the log; NETNS, IFINDEX: the router's namespace and the device the
qdisc KIND (tbf, netem, prio; "tbf+4": its frames carry a 4-byte VLAN
tag, which the qdisc counts from 6.1 on, 5.10's not) is the root of; SENT_PKTS, SENT_BYTES,
DROPPED: its `tc -s qdisc` numbers. ENQ 1: the kernel writes QDISC_ENQ
events (6.1 on).

A qdisc counts a GSO packet it lets go whole as its segments, and its
bytes as the segments' frames (qdisc_pkt_len: the headers again for each
segment). So each QDISC event of KIND on that device counts as its
segments: one for a packet of up to 1500 bytes, else its payload over the
segment size (UDP: 1400, the senders' UDP_SEGMENT; TCP: 1448, the MSS),
and its frame's bytes as the qdisc counts them. Their sums must be
SENT_PKTS and SENT_BYTES, and the drop events at the device (the
qdisc's: nothing else drops there) must be DROPPED.

With ENQ: every dequeued packet must lie within one QDISC_ENQ event of
KIND before it, of its flow (the earliest that still has a segment not
dequeued: a qdisc lets a flow's packets go in order) (TCP: its sequence range within the
enqueued one's; UDP: its IP ids within the enqueued packet's first id and
its segments), and each enqueued packet's segments must all be dequeued,
once: a GSO packet the qdisc split (tbf beyond its burst, netem
corrupting it) is one QDISC_ENQ event and a QDISC event for each segment.
Every wait (dequeue minus enqueue) is at least 0.

The events counted are those to the ports the truths name (a device's
qdiscs one after the other, each with its own traffic). PORT:P names a
port with no truth of its own. CORRUPT: the qdisc corrupts packets (netem corrupt), a byte of a
segment's headers as often as not (a split segment's linear part is its
headers): the dequeued packets' headers are not the truth, and are not
checked. Instead the QDISC_ENQ events (the packet read at the enqueue's
entry, before netem touched it) must count as many segments as the qdisc
sent and dropped, and there must be more QDISC events than QDISC_ENQ
ones (some packet was split). PROTO:PORT:COUNT:SEGS: a sender's truth: COUNT packets of SEGS segments
each sent to PORT (udp) crossed the qdisc; with ENQ, that many QDISC_ENQ
events of that port, and COUNT*SEGS segments dequeued. KEPT:PORT:N: the
packets the qdisc kept of that port's must be N (QDISC_ENQ events, with
ENQ); NONE:PORT: no QDISC or QDISC_ENQ event of that port at all (a
classifier dropped every one: DROPPED says how many).
"""
import collections
import sys

import magnettext

SEG = {"17": 1400, "6": 1448}
HDR = {"17": 8, "6": 32}        # the transport header as the senders send it


def segs(r):
    n = int(r["len"])
    if n <= 1500:
        return 1
    pay = n - 20 - HDR[r["ip_proto"]]
    return -(-pay // SEG[r["ip_proto"]])


def wire(r, l2):
    """the bytes the qdisc counts: the frame (a link header of l2 bytes),
    and each further segment's link, IP and transport headers"""
    return int(r["len"]) + l2 + (segs(r) - 1) * (l2 + 20 + HDR[r["ip_proto"]])


def flow(r):
    return (r["ip_proto"], r["laddr"], r["lport"], r["raddr"], r["rport"])


def covers(en, de):
    """the dequeued packet de lies within the enqueued packet en"""
    if en["ip_proto"] == "6":
        s0, e0 = int(en["seq"]), int(en["end_seq"])
        s, e = int(de["seq"]), int(de["end_seq"])
        span = (e0 - s0) % 2**32
        return (s - s0) % 2**32 <= span and (e - s0) % 2**32 <= span and \
            (s - s0) % 2**32 <= (e - s0) % 2**32
    return (int(de["ip_id"]) - int(en["ip_id"])) % 65536 < segs(en)


def main(text, netns, ifindex, kind, pkts, nbytes, dropped, enq, *truths):
    pkts, nbytes, dropped, enq = int(pkts), int(nbytes), int(dropped), enq == "1"
    kind, _, tag = kind.partition("+")
    l2 = 14 + int(tag or 0)
    rows = magnettext.rows(text)
    bad = []
    if any(r["event"] == "lost" for r in rows):
        bad.append("LOST records")
    here = [r for r in rows if r["netns"] == netns and r["ifindex"] == ifindex]
    # the ports the truths name are the qdisc's traffic (a device's
    # qdiscs in turn): only their events count
    ports = {t.split(":")[1] for t in truths if t != "CORRUPT"}
    if ports:
        here = [r for r in here if r["rport"] in ports]
    deq = [r for r in here if r["event"] == "qdisc" and r["qdisc"] == kind]
    ens = [r for r in here if r["event"] == "qdisc_enq" and r["qdisc"] == kind]
    drops = [r for r in here if r["event"].startswith("drop_")]
    corrupt = "CORRUPT" in truths
    truths = [t for t in truths if t != "CORRUPT"]
    nseg = sum(segs(r) for r in deq)
    nwire = sum(wire(r, l2) for r in deq)
    print("%s: sent %d packets, %d bytes, dropped %d; magnet: %d qdisc "
          "events (%d segments, %d bytes), %d qdisc_enq events (%d of more "
          "than one segment), %d drops" % (
              kind, pkts, nbytes, dropped, len(deq), nseg, nwire, len(ens),
              sum(segs(r) > 1 for r in ens), len(drops)))
    if corrupt:
        ne = sum(segs(r) for r in ens)
        print("corrupting: %d segments enqueued, %s sent and dropped %d; "
              "%d qdisc events, %d qdisc_enq" % (ne, kind, pkts + dropped,
                                                 len(deq), len(ens)))
        if enq and ne != pkts + dropped:
            bad.append("%d segments enqueued, %s sent and dropped %d" % (
                ne, kind, pkts + dropped))
        if enq and len(deq) <= len(ens):
            bad.append("no packet split: %d qdisc events, %d qdisc_enq" % (
                len(deq), len(ens)))
    if not corrupt and nseg != pkts:
        bad.append("%d segments in qdisc events, %s sent %d" % (nseg, kind, pkts))
    if not corrupt and nwire != nbytes:
        # a tag in the data: 6.1 on, the qdisc counts its bytes; 5.10's
        # counts the frame as if untagged
        if tag and sum(wire(r, 14) for r in deq) == nbytes:
            print("%s counted the frames without their tags" % kind)
        else:
            bad.append("%d bytes in qdisc events, %s sent %d" % (
                nwire, kind, nbytes))
    if len(drops) != dropped:
        bad.append("%d drops, %s dropped %d" % (len(drops), kind, dropped))
    if enq and not corrupt:
        # each dequeued packet, in time order: the earliest enqueue before
        # it that holds it and still has a segment not dequeued (a qdisc
        # lets its packets go in order; a segment sent again while the
        # first copy still waited is a second enqueue of the same range)
        t = lambda r: float(r["time"])
        taken = collections.Counter()
        byflow = collections.defaultdict(list)
        for e in sorted(ens, key=t):
            byflow[flow(e)].append(e)
        waits = []
        for d in sorted(deq, key=t):
            c = [e for e in byflow[flow(d)] if t(e) <= t(d) and covers(e, d)
                 and taken[id(e)] < segs(e)]
            if not c:
                bad.append("a dequeue at %s (%s %s-%s id %s) within no "
                           "earlier enqueue" % (d["time"], d["lport"],
                                                d["seq"], d["end_seq"],
                                                d["ip_id"]))
                continue
            e = c[0]
            taken[id(e)] += segs(d)
            waits.append(t(d) - t(e))
        for e in ens:
            if taken[id(e)] != segs(e):
                bad.append("the enqueue at %s (%s, %d segments) had %d "
                           "dequeued" % (e["time"], e["lport"], segs(e),
                                         taken[id(e)]))
        if waits:
            print("waits: %d, from %.6f to %.6f s" % (len(waits), min(waits),
                                                     max(waits)))
        if not ens and pkts:
            bad.append("no qdisc_enq events")
    for tr in truths:
        f = tr.split(":")
        if f[0] == "PORT":
            continue
        if f[0] == "SPLIT":
            n = sum(r["rport"] == f[1] and segs(r) > 1 for r in ens)
            print("port %s: %d qdisc_enq events of more than one segment" % (
                f[1], n))
            if enq and not n:
                bad.append("no qdisc_enq event of port %s of more than one "
                           "segment (GRO merged none)" % f[1])
            continue
        if f[0] == "NONE":
            n = sum(r["rport"] == f[1] or r["lport"] == f[1]
                    for r in deq + ens)
            print("port %s: %d qdisc and qdisc_enq events" % (f[1], n))
            if n:
                bad.append("%d qdisc events of port %s, whose every packet "
                           "the classifier dropped" % (n, f[1]))
            continue
        if f[0] == "KEPT":
            n = sum(r["rport"] == f[1] for r in ens)
            print("port %s: %d qdisc_enq events, the qdisc kept %s" % (
                f[1], n, f[2]))
            if enq and n != int(f[2]):
                bad.append("%d qdisc_enq events of port %s, the qdisc kept "
                           "%s" % (n, f[1], f[2]))
            continue
        proto, port, count, nsg = f[0], f[1], int(f[2]), int(f[3])
        e = [r for r in ens if r["rport"] == port]
        d = sum(segs(r) for r in deq if r["rport"] == port)
        print("port %s: sent %d packets of %d segments; %d qdisc_enq "
              "events, %d segments dequeued" % (port, count, nsg, len(e), d))
        if enq and any(segs(r) != nsg for r in e):
            bad.append("qdisc_enq events of port %s not of %d segments" % (
                port, nsg))
        if not corrupt and d != count * nsg:
            bad.append("%d segments of port %s dequeued, %d sent" % (
                d, port, count * nsg))
        if enq and len(e) != count:
            bad.append("%d qdisc_enq events of port %s, %d packets sent" % (
                len(e), port, count))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 9:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
