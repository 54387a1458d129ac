"""Hosts on one time line: the offset between two hosts' clocks, from
packets both recorded, and the one-way delay each way.

A packet a host sent and the other received is recorded twice: at the
sender's device going out (dev_out) and at the receiver's coming in
(dev_in), each by its own host's clock. The packets are matched by their
addresses, ports and IPv4 ID (the sending socket numbers its packets), for
the first 60,000 packets of each connection and direction (IDs do not wrap
within them). In one log of several namespaces of one kernel, a router
records the same packets: a device at which a packet came in and then
went out of another (or the same), in one log, is a forwarder's, and its
records do not count. A device is its log, its namespace (the records'
netns) and its ifindex; in a log whose records do not say their namespace
(written before they did), ifindexes are only told apart if the
namespaces' devices are numbered apart, as magnet-exp run numbers them.
Of the rest, a packet's earliest dev_out and latest dev_in are taken.
Without device records, the IP layer's (ip_out, ip_in), where a namespace
that took a packet in and sent it on is a forwarder the same way; in a
log without namespaces, where the layer has no device to tell hosts
apart, a router's records make the IP layer's estimate wrong.

With theta the receiver's clock less the sender's, a packet from A to B
shows d = owd(A->B) + theta, one from B to A d = owd(B->A) - theta. One-way
delays are never negative, so theta lies between -min d(B->A) and
min d(A->B): the estimate is the middle, (min d(A->B) - min d(B->A)) / 2,
and the bound half the width, (min d(A->B) + min d(B->A)) / 2 (a round
trip's least time, halved); the true offset is within the bound of the
estimate if each direction's fastest packet took equally long. The one-way
delays are the packets' d less the estimate, each uncertain by the bound.

Except on one clock: where every packet of both ways was recorded going
out and coming in within one log, the hosts are namespaces of one kernel,
whose records all read its one clock: theta is 0 by construction, not an
estimate (the estimate there is only as good as the bound, half the least
round trip: +10 ms +- 10 ms on a path of 20 ms one way), and each one-way
delay is the packets' d exactly. The pair says so (one_clock).

Only IPv4 (IPv6 has no ID in every packet).
"""
import statistics

from magnet_exp import textlog

MAX_IDS = 60000     # per connection and direction: IDs do not wrap


class Matches:
    """first dev_out and last dev_in of each packet, per layer"""

    def __init__(self):
        # layer -> {(src, sport, dst, dport, id): [(t_ns, (log, netns,
        # ifindex))]} (log: which of the logs read, each with its own
        # clock; netns "" if the log does not say)
        self.out = {"dev": {}, "ip": {}}
        self.inn = {"dev": {}, "ip": {}}
        self.ids = {}       # (layer, src, sport, dst, dport) -> IDs taken
        self.records = 0
        self.logs = 0

    def add(self, r):
        ev = r["event"]
        if ev not in ("dev_out", "dev_in", "ip_out", "ip_in") or \
                r["family"] != "4" or r["ip_id"] in ("", "0"):
            # ID 0: no number (a SYN-ACK, a reset, a TIME_WAIT reply)
            return
        layer, way = ev.split("_")
        la, lp, ra, rp = r["laddr"], r["lport"], r["raddr"], r["rport"]
        conn = (la, lp, ra, rp) if way == "out" else (ra, rp, la, lp)
        key = conn + (r["ip_id"],)
        tab = self.out[layer] if way == "out" else self.inn[layer]
        seen = tab.get(key)
        if seen is None:
            if way == "out":
                n = self.ids.get((layer,) + conn, 0)
                if n >= MAX_IDS:
                    return
                self.ids[(layer,) + conn] = n + 1
            elif key not in self.out[layer] and \
                    self.ids.get((layer,) + conn, 0) >= MAX_IDS:
                return
            seen = tab[key] = []
        if len(seen) < 8:
            seen.append((r.time_ns(), (self.logs, r.get("netns") or "",
                                       r["ifindex"])))
        self.records += 1

    def read(self, path, ttpb2ascii=None):
        end = textlog.LogEnd()
        for r in textlog.rows(path, end, ttpb2ascii):
            self.add(r)
        if end.corrupt:
            raise ValueError("%s: %s" % (path, end.message.replace(
                "ttpb2ascii: ", "")))
        self.logs += 1
        return end


def _pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]


def estimate(m):
    """{"layer", "pairs": [...]} with per pair of hosts (addresses) A < B:
    the packets matched each way, theta (B's clock less A's, s), its
    bound, one_clock (both ends in one log: theta and bound 0 by
    construction), and the one-way delays (min, median, 90th percentile,
    s)"""
    layer = "dev" if m.out["dev"] and m.inn["dev"] else "ip"
    # the forwarders' devices: a packet in at one, then out (of any) in
    # the same namespace, on the clock of one log; at the IP layer
    # (ifindex 0) a namespace, where records say theirs
    fwd = set()
    for key, ins in m.inn[layer].items():
        outs = m.out[layer].get(key, ())
        for t, i in ins:
            if layer == "ip" and not i[1]:
                continue
            later = [j for u, j in outs if u > t and j[:2] == i[:2]]
            if later:
                fwd.add(i)
                fwd.update(later)
    d = {}          # (src host, dst host) -> [delay s]
    logs = {}       # (src host, dst host) -> the logs its records came from
    for key, outs in m.out[layer].items():
        outs = [(t, i) for t, i in outs if i not in fwd]
        ins = [(t, i) for t, i in m.inn[layer].get(key, ()) if i not in fwd]
        if outs and ins and key[0] != key[2]:
            d.setdefault((key[0], key[2]), []).append(
                (max(t for t, _ in ins) - min(t for t, _ in outs)) / 1e9)
            logs.setdefault((key[0], key[2]), set()).update(
                i[0] for _, i in outs + ins)
    pairs = []
    for (a, b) in sorted(d):
        if a > b or (b, a) not in d:
            continue
        ab, ba = d[(a, b)], d[(b, a)]
        one = logs[(a, b)] | logs[(b, a)]
        if len(one) == 1:
            # one log: one kernel's clock, theta 0 by construction
            theta = bound = 0.0
        else:
            theta = (min(ab) - min(ba)) / 2
            bound = (min(ab) + min(ba)) / 2

        def owd(v, sign):
            w = [x - sign * theta for x in v]
            return {"packets": len(w), "min_s": min(w),
                    "median_s": statistics.median(w),
                    "p90_s": _pct(w, 90)}
        pairs.append({"a": a, "b": b, "theta_s": theta, "bound_s": bound,
                      "one_clock": len(one) == 1,
                      "a_to_b": owd(ab, 1), "b_to_a": owd(ba, -1)})
    return {"layer": layer, "pairs": pairs,
            "forwarders": [_device(m, d) for d in sorted(fwd, key=lambda x: (
                x[0], len(x[1]), x[1], len(x[2]), x[2]))]}


def _device(m, dev):
    """a device (log, netns, ifindex) for people (log 2: netns 4026532
    ifindex 7102), a namespace's IP layer as netns 4026532 (IP layer)"""
    n, ns, i = dev
    return "%s%s%s" % ("log %d: " % (n + 1) if m.logs > 1 else "",
                       "netns %s " % ns if ns else "",
                       "(IP layer)" if i in ("", "0") else "ifindex " + i)


def report(est):
    """the estimate as text lines"""
    if not est["pairs"]:
        return ["no packets recorded both going out of one host and coming "
                "into another, each way (IPv4, dev or ip layer)"]
    out = []
    if est["forwarders"]:
        out.append("devices that forwarded packets, left out: %s"
                   % ", ".join(est["forwarders"]))
    for p in est["pairs"]:
        if p["one_clock"]:
            out.append("%s's clock - %s's: 0 (one clock: both recorded in "
                       "one log, namespaces of one kernel; %s layer, %d and "
                       "%d packets matched)" % (
                           p["b"], p["a"], est["layer"],
                           p["a_to_b"]["packets"], p["b_to_a"]["packets"]))
        else:
            out.append("%s's clock - %s's: %+.6f s +- %.6f s (%s layer, %d "
                       "and %d packets matched)" % (
                           p["b"], p["a"], p["theta_s"], p["bound_s"],
                           est["layer"], p["a_to_b"]["packets"],
                           p["b_to_a"]["packets"]))
        for name, src, dst in (("a_to_b", p["a"], p["b"]),
                               ("b_to_a", p["b"], p["a"])):
            o = p[name]
            out.append("  one-way delay %s -> %s: min %.6f, median %.6f, "
                       "90%% %.6f s (%s)" % (
                           src, dst, o["min_s"], o["median_s"], o["p90_s"],
                           "exact: one clock" if p["one_clock"] else
                           "each +- %.6f" % p["bound_s"]))
    return out
