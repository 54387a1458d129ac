"""Throughput as the data a connection delivered, in windows no shorter
than the path's round trip.

A sending connection end's throughput over time is counted, by
preference, from:
  1. the data arriving at the receiver's TCP, when the log has the
     receiver's end: every data segment's payload, out of order and
     repeated ones too (what the path delivered to it);
  2. else the sender's rate part: the packets it learnt were delivered
     (SACKed or acknowledged; tcp_sock's delivered) times the MSS;
  3. else the bytes acknowledged at the sender, which jump when a loss is
     repaired (a whole window acknowledged at once): said so.
A receiving end whose sender is not in the log (one host's log) gets the
data arriving at its own TCP, as in 1.
Each count is cumulative; a window's throughput is the count at its end
less the count at its start, over its length. A window is the longest
of: the path's round trip (the larger of the two ends' smallest RTT
samples: shorter windows show the ACK clock's bursts as rates), a
hundredth of the transfer, and 100 ms (shorter windows show when a
host's softirqs and timers ran as rate: on an emulated host, whose vCPU
stalls for milliseconds at a time, 20 ms windows of a 20 Mbit/s netem
bottleneck gave up to 37 Mbit/s, 100 ms ones at most 19.11: 165 full
segments in 100 ms, the bottleneck's rate in payload). Only whole
windows are counted.

A receiver that stalls (an emulated vCPU; on real hosts, interrupt
coalescing) takes in late what arrived during the stall: data moves from
one window into the next, which then shows more than the path carried
(make check on 5.10, 2026-11-28: 15.64 then 22.01 Mbit/s in two 100 ms
windows of a 20 Mbit/s netem bottleneck). The rate over two adjacent
windows (max2_mbps, their mean) shows half of what a stall moved into
the later one (when the earlier one is the one it moved from, none); to
compare a window with a path's rate, take off what the receiver took in
late at its start: the segments that arrived back to back, faster than
the path carries them (tests/vm/checkexp.py, taken_late).

The figures' series are decimated (plots.Series), so a window's edges fall
on the nearest recorded points before them: the largest step between two
such points, over a window, is the measurement's granularity, reported
with the numbers.
"""

NWINDOWS = 100      # at least the transfer's duration over this
MIN_WINDOW = 0.1    # s


def path_rtt_s(res, f):
    """the path's round trip, s: the larger of the smallest RTT samples
    of @f and its peer (the one with data out has samples), or None"""
    peer = res.peer(f)
    v = [x.min_rtt_us for x in (f, peer) if x and x.min_rtt_us]
    return max(v) / 1e6 if v else None


def _arrivals(g):
    """the receiving end @g's payload arrived at its TCP, cumulative, from
    0 before the first segment arrived: [(t s, bytes)]"""
    pts = g.series.pts
    return [(pts[0][0], 0)] + [(p[0], p[5]) for p in pts]


def source(res, f):
    """(points [(t s, cumulative bytes)], how) for the sending end @f, or
    a receiving end whose sender is not in the log"""
    peer = res.peer(f)
    if peer and peer.arrived:
        return (_arrivals(peer),
                "data arriving at the receiver's TCP (%s), every data "
                "segment's payload" % peer.label())
    pts = f.series.pts
    if pts and pts[-1][3] <= 0 and f.arrived:
        # a receiving end whose sender is not in the log
        return (_arrivals(f),
                "data arriving at this end's TCP (its peer, the sender, is "
                "not in the log), every data segment's payload")
    if pts and pts[-1][6] is not None:
        return ([(p[0], p[6]) for p in pts if p[6] is not None],
                "packets the sender learnt were delivered (SACKed or "
                "acknowledged: the rate part's delivered) times the MSS")
    return ([(p[0], p[3]) for p in pts],
            "bytes acknowledged at the sender (no receiver and no rate part "
            "in the log: they jump when a loss is repaired)")


def windows(points, width):
    """[(start s, bytes)] of the whole windows of @width s, from the first
    time the count moves; and the largest count step between two points
    (the granularity, bytes)"""
    i = next((k for k in range(1, len(points))
              if points[k][1] != points[0][1]), None)
    if i is None or width <= 0:
        return [], 0
    step = max(points[k][1] - points[k - 1][1]
               for k in range(i, len(points)))
    t0, last = points[i][0], points[-1][0]
    out = []
    j, prev = i, points[i - 1][1]
    n = 1
    while t0 + n * width <= last:
        edge = t0 + n * width
        cur = prev
        while j < len(points) and points[j][0] <= edge:
            cur = points[j][1]
            j += 1
        out.append((edge - width, cur - prev))
        prev = cur
        n += 1
    return out, step


def throughput(res, f):
    """the sending end @f's throughput over time: {"how", "window_s",
    "rtt_s", "windows": [(start s, Mbit/s)], "max_mbps", "mean_mbps",
    "granularity_mbps"}, or None with less than one window of data"""
    pts, how = source(res, f)
    if len(pts) < 2:
        return None
    rtt = path_rtt_s(res, f)
    span = pts[-1][0] - pts[0][0]
    width = max(rtt or 0, span / NWINDOWS, MIN_WINDOW)
    if width <= 0:
        return None
    ws, step = windows(pts, width)
    if not ws:
        return None
    mbps = [(t, b * 8 / width / 1e6) for t, b in ws]
    return {"how": how, "window_s": round(width, 6),
            "rtt_s": rtt, "windows": mbps,
            "max_mbps": max(v for _, v in mbps),
            "max2_mbps": max((a + b) / 2 for (_, a), (_, b) in
                             zip(mbps, mbps[1:])) if len(mbps) > 1 else
            mbps[0][1],
            "mean_mbps": sum(v for _, v in mbps) / len(mbps),
            "granularity_mbps": step * 8 / width / 1e6}
