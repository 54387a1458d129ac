#!/usr/bin/env python3
"""case_qdisc's checks of the QDISC events (events=qdisc) at a router's
tbf, in ttpb2ascii's magnet text, against tbf's own counters and its
configuration.

  checkqdisc.py TEXT NETNS IFINDEX SENT_PKTS SENT_BYTES DROPPED RATE BURST ENQ

TEXT: the router's log; NETNS, IFINDEX: the router's namespace and the
device tbf is on; SENT_PKTS, SENT_BYTES, DROPPED: `tc -s qdisc`'s numbers;
RATE, BURST: tbf's, bytes per second and bytes. The router's QDISC events
on that device must be tbf's sent packets, their bytes (the IP packet and
the 14-byte Ethernet header tbf counts) its sent bytes, its drop events
tbf's drops; each must name tbf. And every packet's wait (its QDISC
event's time minus its dev_out event's, matched by sequence range and IP
id) must agree with tbf's rate: a token bucket of rate R and depth B lets
go, while a packet waits a time w, between R*w - B and R*w + B bytes (the
packets that left after it came, itself included), give or take two
packets (the one being sent when it came, the one taking the last
tokens). And while tbf holds packets (its qlen after a dequeue above
0) it lets them go at its rate: over the runs of such dequeues longer
than 0.2 s, the bytes over the time must be its rate within 1%.
A stall, no dequeue for longer than the bucket takes to fill while tbf
held packets (since the dequeue before, if it left some, else since the
next packet's dev_out: one that comes to an empty queue needs at most
its own length of tokens), is the emulator not running the guest (tbf's
timer never waits so long): tbf loses the tokens beyond its bucket there, so the
runs are cut at stalls and a wait across one is held to the upper bound
only; stalls may take at most 10% of the time tbf held packets.

ENQ 1: the kernel has qdisc:qdisc_enqueue (6.1 on), and the QDISC_ENQ
events are checked too: as many as tbf's sent packets, each naming tbf;
for each packet, the packets ahead of it at its enqueue (its event's
qlen, less itself) must be exactly the dequeues between its enqueue and
its own (tbf's child is a FIFO, and only the flow crosses it); and its
sojourn (dequeue minus enqueue) must be what tbf's backlog then (its
event's, bytes, itself included) takes at its rate, less the tokens it
held (0 to the bucket): R*s at least backlog - bucket, give or take two
packets, for every packet. The upper bound, R*s at most backlog, holds
only as far as tbf's timer fires on time: the guest's does not always
(one packet in twenty was later by more than two packets' time on 6.1,
by 9.5 ms at most): 90% of the packets must be within it, give or take
two packets, and every one within it plus the bucket (a later timer is
a stall, not held to it).
"""
import bisect
import collections
import sys

import magnettext


def main(text, netns, ifindex, pkts, nbytes, dropped, rate, burst, enq):
    pkts, nbytes, dropped = int(pkts), int(nbytes), int(dropped)
    rate, burst = float(rate), float(burst)
    rows = magnettext.rows(text)
    bad = []
    if any(r["event"] == "lost" for r in rows):
        bad.append("LOST records")
    here = [r for r in rows if r["netns"] == netns]
    q = [r for r in here if r["event"] == "qdisc" and r["ifindex"] == ifindex]
    d = [r for r in here if r["event"].startswith("drop_")]
    wire = sum(int(r["len"]) + 14 for r in q)
    kinds = collections.Counter((r["qdisc"], r["qdisc_handle"]) for r in q)
    print("tbf: sent %d packets, %d bytes, dropped %d; magnet: %d qdisc "
          "events, %d bytes, %d drops; qdiscs named %s" % (
              pkts, nbytes, dropped, len(q), wire, len(d), dict(kinds)))
    if len(q) != pkts:
        bad.append("%d qdisc events, tbf sent %d packets" % (len(q), pkts))
    if wire != nbytes:
        bad.append("%d bytes in qdisc events, tbf sent %d" % (wire, nbytes))
    if len(d) != dropped:
        bad.append("%d drops, tbf dropped %d" % (len(d), dropped))
    if set(kinds) != {("tbf", "1:0")}:
        bad.append("qdiscs named %s, not tbf 1:0" % dict(kinds))
    # the waits: each dequeue after its dev_out, in order
    t = lambda r: float(r["time"])
    pending = collections.defaultdict(collections.deque)
    for r in here:
        if r["ifindex"] != ifindex or not r["seq"]:
            continue
        k = (r["seq"], r["end_seq"], r["ip_id"], r["lport"], r["rport"])
        if r["event"] == "dev_out":
            pending[k].append(t(r))
    times = [t(r) for r in q]
    # each dequeue's packet's dev_out (None: not matched)
    t0s = []
    for r in q:
        k = (r["seq"], r["end_seq"], r["ip_id"], r["lport"], r["rport"])
        t0s.append(pending[k].popleft() if r["seq"] and pending[k] else None)
    # stalls: no dequeue for longer than the bucket takes to fill while
    # tbf held packets: since the dequeue before if its qlen after was
    # above 0, else since this packet's dev_out (it came to an empty queue
    # after that dequeue). With its timer on time tbf never waits so long
    # (a packet needs 1514 bytes of tokens); a longer gap is a guest the
    # emulator did not run, whose tbf lost the tokens beyond its bucket:
    # no lower bound holds across it (a packet that came to an empty
    # queue and waited 28 ms on 5.10, the queue's only dequeue 16 KB
    # short of the rate, was one)
    drain = burst / rate
    stalls = []
    for i in range(1, len(q)):
        a, b = q[i - 1], q[i]
        if a["qdisc_qlen"] != "0":
            since = t(a)
        elif t0s[i] is not None and t0s[i] > t(a):
            since = t0s[i]
        else:
            continue
        if t(b) - since > drain:
            stalls.append((since, t(b)))
    held = sum(t(b) - t(a) for a, b in zip(q, q[1:])
               if a["qdisc_qlen"] != "0")
    stalled = sum(e - b for b, e in stalls)
    print("tbf held packets for %.2f s; stalls (no dequeue for over %.1f ms "
          "while it held some): %d, %.3f s" % (held, drain * 1e3,
                                               len(stalls), stalled))
    if stalled > 0.1 * held:
        bad.append("stalls for %.3f s of the %.2f s tbf held packets" % (
            stalled, held))
    ends = [b for _, b in stalls]
    cum = [0]
    for r in q:
        cum.append(cum[-1] + int(r["len"]) + 14)
    waits, worst, matched = [], 0.0, 0
    for i, r in enumerate(q):
        t0 = t0s[i]
        if t0 is None:
            continue
        w = t(r) - t0
        if w < 0:
            bad.append("a dequeue before its dev_out: %s" % r)
            continue
        matched += 1
        waits.append(w)
        # the bytes dequeued in (t0, t(r)]
        j = bisect.bisect_right(times, t0)
        left = cum[i + 1] - cum[j]
        # never more than the rate and the bucket allow; not less either,
        # unless a stall came in between
        dev = left - rate * w
        # (a stall that overlaps the wait: the first to end after t0)
        k = bisect.bisect_right(ends, t0)
        if k == len(stalls) or stalls[k][0] >= t(r):
            dev = abs(dev)
        worst = max(worst, dev - burst)
    waits.sort()
    if not waits:
        bad.append("no packet's wait")
    else:
        p50, p90 = waits[len(waits) // 2], waits[len(waits) * 9 // 10]
        print("waits of %d packets matched to their dev_out: median %.2f ms, "
              "p90 %.2f ms, longest %.2f ms; the bytes that left while each "
              "waited against tbf's rate: at most %.0f bytes beyond the "
              "bucket's %d" % (matched, p50 * 1e3, p90 * 1e3, waits[-1] * 1e3,
                               max(worst, 0), burst))
        if matched < len(q) * 0.9:
            bad.append("only %d of %d dequeues matched" % (matched, len(q)))
        if p90 < 0.005:
            bad.append("no queue: p90 wait %.2f ms" % (p90 * 1e3))
        if worst > 2 * 1514:
            bad.append("a wait that tbf's rate does not explain: %.0f bytes "
                       "beyond its bucket" % worst)
    # the rate tbf let packets go at while it held some (its qlen after a
    # dequeue above 0): over each run of such dequeues longer than 0.2 s,
    # cut at the stalls, the bytes after the run's first over the run's time
    runs, cur = [], []
    for r in q:
        if cur and cur[-1]["qdisc_qlen"] != "0" and t(r) - t(cur[-1]) > drain:
            runs.append(cur)
            cur = []
        cur.append(r)
        if r["qdisc_qlen"] == "0":
            runs.append(cur)
            cur = []
    runs.append(cur)
    left = span = 0.0
    for run in runs:
        if len(run) > 1 and t(run[-1]) - t(run[0]) > 0.2:
            left += sum(int(r["len"]) + 14 for r in run[1:])
            span += t(run[-1]) - t(run[0])
    if not span:
        bad.append("tbf never held packets for 0.2 s")
    else:
        got = left / span
        print("while tbf held packets (%.2f s): %.0f bytes/s, its rate %.0f "
              "(%+.2f%%)" % (span, got, rate, (got / rate - 1) * 100))
        if abs(got / rate - 1) > 0.01:
            bad.append("tbf let %.0f bytes/s go while it held packets, its "
                       "rate is %.0f" % (got, rate))
    e = [r for r in here if r["event"] == "qdisc_enq" and
         r["ifindex"] == ifindex]
    if enq == "1":
        bad += check_enqueues(e, q, pkts, rate, burst, stalls)
    elif e:
        bad.append("%d qdisc_enq events where the kernel has none" % len(e))
    for b in bad[:8]:
        print("FAIL: " + b)
    sys.exit(1 if bad else 0)


def check_enqueues(e, q, pkts, rate, burst, stalls):
    """ENQ's checks (the module's doc): e, q: tbf's QDISC_ENQ and QDISC
    events, in time order"""
    bad = []
    t = lambda r: float(r["time"])
    kinds = collections.Counter((r["qdisc"], r["qdisc_handle"]) for r in e)
    print("tbf: enqueued %d packets (qdisc_enq events), named %s" % (
        len(e), dict(kinds)))
    if len(e) != pkts:
        bad.append("%d qdisc_enq events, tbf sent %d packets" % (len(e), pkts))
    if set(kinds) != {("tbf", "1:0")}:
        bad.append("qdisc_enq events naming %s, not tbf 1:0" % dict(kinds))
    key = lambda r: (r["seq"], r["end_seq"], r["ip_id"], r["lport"],
                     r["rport"])
    pending = collections.defaultdict(collections.deque)
    for r in e:
        pending[key(r)].append(r)
    times = [t(r) for r in q]
    ends = [b for _, b in stalls]
    matched = ahead_bad = 0
    under = 0.0
    overs = []
    sojourns = []
    for i, r in enumerate(q):
        if not pending[key(r)]:
            continue
        en = pending[key(r)].popleft()
        s = t(r) - t(en)
        if s < 0:
            bad.append("a dequeue before its enqueue: %s" % r)
            continue
        matched += 1
        sojourns.append(s)
        # the dequeues between its enqueue and its own
        between = i - bisect.bisect_right(times, t(en))
        if int(en["qdisc_qlen"]) - 1 != between:
            ahead_bad += 1
            if ahead_bad <= 3:
                bad.append("%s packets ahead at the enqueue at %s, %d "
                           "dequeues before its own" % (
                               int(en["qdisc_qlen"]) - 1, en["time"],
                               between))
        backlog = int(en["qdisc_backlog"])
        under = max(under, backlog - burst - rate * s)
        k = bisect.bisect_right(ends, t(en))
        if k == len(stalls) or stalls[k][0] >= t(r):
            overs.append(rate * s - backlog)
    if matched != len(q):
        bad.append("%d of %d dequeues matched to an enqueue" % (matched,
                                                                len(q)))
    sojourns.sort()
    overs.sort()
    if not sojourns or not overs:
        return bad + ["no sojourn"]
    p90 = overs[len(overs) * 9 // 10]
    print("sojourns of %d packets (enqueue to dequeue): median %.2f ms, "
          "longest %.2f ms; packets ahead at the enqueue = the dequeues "
          "before its own: %d differ; the rate times the sojourn against "
          "the backlog at the enqueue: at most %.0f bytes short of it less "
          "the bucket; beyond it by %.0f bytes at the 90th percentile, "
          "%.0f at most" % (matched, sojourns[len(sojourns) // 2] * 1e3,
                            sojourns[-1] * 1e3, ahead_bad, max(under, 0),
                            p90, overs[-1]))
    if under > 2 * 1514:
        bad.append("a sojourn shorter than tbf's backlog and rate allow "
                   "(%.0f bytes short)" % under)
    if p90 > 2 * 1514 or overs[-1] > burst + 2 * 1514:
        bad.append("sojourns longer than tbf's backlog and rate explain "
                   "(90th percentile %.0f bytes over, most %.0f)" % (
                       p90, overs[-1]))
    return bad


if __name__ == "__main__":
    main(*sys.argv[1:])
