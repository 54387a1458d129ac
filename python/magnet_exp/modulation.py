"""How the stack reshapes what the application asked for (MAGNeT's
Table II), and how long a segment takes from one layer to the next.

Both are computed in the analysis pass with memory that does not grow with
the log: the statistics keep counts, sums and a histogram with bins 1%
wide (so a percentile is exact to within 1%), and the latency matching
keeps only the segments between two layers.
"""
import math
from collections import Counter

LAYERS = ("app", "tcp", "ip", "dev")
PCTS = (10, 50, 90, 99)
_BASE = math.log(1.01)


class Stat:
    """count, mean, min, max and percentiles of non-negative numbers"""
    __slots__ = ("n", "sum", "lo", "hi", "bins")

    def __init__(self):
        self.n = 0
        self.sum = 0
        self.lo = None
        self.hi = None
        self.bins = Counter()

    def add(self, v):
        self.n += 1
        self.sum += v
        self.lo = v if self.lo is None or v < self.lo else self.lo
        self.hi = v if self.hi is None or v > self.hi else self.hi
        self.bins[-1 if v <= 0 else int(math.log(v) / _BASE)] += 1

    def mean(self):
        return self.sum / self.n if self.n else None

    def pct(self, p):
        """the p-th percentile, to within 1% (the bin's geometric middle,
        clamped to the exact minimum and maximum)"""
        if not self.n:
            return None
        want = math.ceil(self.n * p / 100)
        seen = 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            if seen >= want:
                if b < 0:
                    return 0
                v = math.exp((b + 0.5) * _BASE)
                return min(max(v, self.lo), self.hi)
        return self.hi

    def cdf(self):
        """the cumulative distribution, from the bins (no list of the
        values): [(value, fraction of the values at most it)], a point per
        occupied bin in increasing order; the value as pct() gives it (the
        bin's geometric middle clamped to the exact minimum and maximum, 0
        for the bin of values <= 0), so exact to within 1%; the last
        fraction is 1.0"""
        out = []
        seen = 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            v = 0 if b < 0 else min(max(math.exp((b + 0.5) * _BASE),
                                        self.lo), self.hi)
            out.append((v, seen / self.n))
        return out


def _dir(ev):
    return "out" if ev in ("app_send", "tcp_out", "ip_out", "dev_out") \
        else "in"


class Modulation:
    """Per connection end, direction and layer: the size of each event
    that carries data (application: bytes the call moved; TCP, IP and
    device: the segment's sequence range), and the time between
    consecutive ones."""

    def __init__(self):
        self.size = {}
        self.gap = {}
        self.last = {}
        self.asked = {}     # app: the size the call asked for

    def add(self, flow, ev, layer, t, r):
        # bytes of sequence space (a SYN or a FIN counts one, as TCP
        # counts it); a pure ACK carries none and is left out
        if layer == "app":
            size = max(0, r.int_("ret"))
        elif r["seq"]:
            size = (r.int_("end_seq") - r.int_("seq")) % 2 ** 32
        else:
            size = 0
        if not size:
            return
        k = (flow.key, _dir(ev), layer)
        st = self.size.get(k)
        if st is None:
            st = self.size[k] = Stat()
            self.gap[k] = Stat()
        st.add(size)
        if layer == "app":
            self.asked.setdefault(k, Stat()).add(r.int_("req"))
        if k in self.last:
            self.gap[k].add(t - self.last[k])
        self.last[k] = t

    def senders(self, share=10, keep=None):
        """the connection ends that sent data, busiest first, those that
        sent at least @share % of the busiest's bytes (TCP's sequence
        space, or the layer that saw most where TCP's is not in the log):
        [(flow key, {layer: (size Stat, spacing Stat)})]; @keep(key): the
        flows that are connection ends (not a router's packets)"""
        ends = {}
        for (key, d, layer), st in self.size.items():
            if d == "out" and (keep is None or keep(key)):
                ends.setdefault(key, {})[layer] = (st, self.gap[(key, d,
                                                                 layer)])

        def sent(layers):
            if "tcp" in layers:
                return layers["tcp"][0].sum
            return max(st.sum for st, _ in layers.values())
        out = sorted(ends.items(), key=lambda e: (-sent(e[1]), e[0]))
        top = sent(out[0][1]) if out else 0
        return [e for e in out if sent(e[1]) * 100 >= top * share]

    def rows(self, label_of, keep=None):
        """one dict per (connection end, direction, layer); @keep(key):
        the flows that are connection ends"""
        out = []
        for k in sorted(self.size, key=lambda k: (k[0], k[1],
                                                  LAYERS.index(k[2]))):
            if keep is not None and not keep(k[0]):
                continue
            st, gp = self.size[k], self.gap[k]
            row = {"flow": label_of(k[0]), "direction": k[1],
                   "layer": k[2], "count": st.n,
                   "size_mean": round(st.mean(), 1),
                   "size_min": st.lo, "size_max": st.hi}
            a = self.asked.get(k)
            # an application call may move less than it asked for (a
            # non-blocking write into a full buffer): what it asked too
            row["asked_mean"] = round(a.mean(), 1) if a else None
            row["asked_max"] = a.hi if a else None
            for p in PCTS:
                row["size_p%d" % p] = round(st.pct(p))
            row["spacing_mean_us"] = round(gp.mean() / 1e3, 3) \
                if gp.n else None
            for p in PCTS:
                v = gp.pct(p)
                row["spacing_p%d_us" % p] = round(v / 1e3, 3) \
                    if v is not None else None
            out.append(row)
        return out


# the layers a segment crosses, in order, per direction
_PATH = {"out": ("tcp_out", "ip_out", "dev_out"),
         "in": ("dev_in", "ip_in", "tcp_in")}


# the rows of the latency table, in order
_ORDER = (("out", "tcp_out", "ip_out"), ("out", "ip_out", "dev_out"),
          ("in", "dev_in", "ip_in"), ("in", "ip_in", "tcp_in"),
          ("in", "tcp_in", "app_recv"))


class Latency:
    """Per host (network namespace) and direction, the time a segment
    takes from one layer to the next (matched by connection and sequence
    range), and on receive from TCP to the application's read of its last
    byte."""

    PENDING = 65536     # segments awaiting their next layer, at most

    def __init__(self):
        self.pending = {}       # (key, dir, seq, end) -> (index, time)
        self.stats = {}         # (netns, dir, from, to) -> Stat
        self.reads = {}         # key -> [(end_seq, time)] awaiting a read

    def _stat(self, k):
        st = self.stats.get(k)
        if st is None:
            st = self.stats[k] = Stat()
        return st

    def add(self, flow, ev, t, r):
        if ev == "app_recv":
            # every received segment whose end this read passed
            end = r.int_("end_seq")
            waiting = self.reads.get(flow.key, [])
            keep = []
            for seg_end, t_in in waiting:
                if (end - seg_end) % 2 ** 32 < 2 ** 31:
                    self._stat((flow.netns, "in", "tcp_in",
                                "app_recv")).add(t - t_in)
                else:
                    keep.append((seg_end, t_in))
            if keep:
                self.reads[flow.key] = keep
            else:
                self.reads.pop(flow.key, None)
            return
        d = _dir(ev)
        path = _PATH[d]
        if ev not in path or not r["seq"]:
            return
        seq, end = r.int_("seq"), r.int_("end_seq")
        if seq == end:
            return      # no data: ACKs are not matched
        i = path.index(ev)
        k = (flow.key, d, seq, end)
        prev = self.pending.pop(k, None)
        if prev is not None and prev[0] == i - 1:
            self._stat((flow.netns, d, path[i - 1], ev)).add(t - prev[1])
        if i < len(path) - 1:
            self.pending[k] = (i, t)
        elif d == "in" and ev == "tcp_in":
            # bounded: a connection's unread data
            self.reads.setdefault(flow.key, []).append((end, t))
            if len(self.reads[flow.key]) > 4096:
                del self.reads[flow.key][0]
        if len(self.pending) > self.PENDING:
            # segments that never reached the next layer: drop the oldest
            for old in list(self.pending)[:4096]:
                del self.pending[old]

    def items(self, hosts=None):
        """[((netns, direction, from, to), Stat)], in the order of rows():
        by namespace, then layer; @hosts: the namespaces kept (the
        connections' ends': a router's forwarding is no host's stack)"""
        nss = sorted({k[0] for k in self.stats
                      if hosts is None or k[0] in hosts})
        return [((ns,) + k, self.stats[(ns,) + k]) for ns in nss
                for k in _ORDER if self.stats.get((ns,) + k)]

    def rows(self, hosts=None, name_of=None):
        """a dict per (host, direction, from, to); @name_of(netns): the
        host's name"""
        out = []
        for k, st in self.items(hosts):
            row = {"host": name_of(k[0]) if name_of else k[0],
                   "direction": k[1], "from": k[2], "to": k[3],
                   "count": st.n, "mean_us": round(st.mean() / 1e3, 3)}
            for p in PCTS:
                row["p%d_us" % p] = round(st.pct(p) / 1e3, 3)
            out.append(row)
        return out
