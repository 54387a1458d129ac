"""The analysis of one magnet log: a CSV per TCP flow and a verdict.

Everything is computed in one pass over the records (textlog.rows), with
state per flow and per CPU only, so memory does not grow with the log.

Verdicts, after Monarch's self-diagnosis:
  confirmed      nothing known to make the trace inaccurate happened;
  inaccurate     something that makes it so happened (each reason says what
                 and when: records lost or discarded, the log cut short or
                 corrupt, segments seen at one layer and not at the other,
                 application bytes that do not reconcile with TCP's, loss on
                 the return path seen in the peer's IP IDs);
  indeterminate  the log cannot tell (the capture ended with the connection
                 still open, so its end is not in the log).
"""
import bisect
import csv
import math
import os
import re
import sys
from array import array
from collections import Counter, OrderedDict
from itertools import islice

from magnet_exp import cpass, delivery, textlog
from magnet_exp.limits import Limits
from magnet_exp.modulation import PCTS, Latency, Modulation, Stat
from magnet_exp.plots import Series
from magnet_exp.view import MAX_MARKS, Envelope

CONFIRMED, INDETERMINATE, INACCURATE = "confirmed", "indeterminate", "inaccurate"
NOTE = "note"       # worth knowing, no doubt on the trace
_RANK = {NOTE: 0, CONFIRMED: 0, INDETERMINATE: 1, INACCURATE: 2}

# sk_state: a connection whose last state is one of these has ended, or
# its end has begun (FIN sent or received)
_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1",
           5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT",
           9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING", 12: "NEW_SYN_RECV"}
_ENDED = {4, 5, 6, 7, 8, 9, 11}
_CA_STATES = {0: "Open", 1: "Disorder", 2: "CWR", 3: "Recovery", 4: "Loss"}

CSV_COLUMNS = ["time", "epoch", "event", "state", "ca_state", "cwnd", "ssthresh",
               "srtt_us", "rttvar_us", "rto_us", "mss", "packets_out",
               "retrans_out", "total_retrans", "bytes_sent", "bytes_retrans",
               "bytes_acked", "bytes_received", "snd_una", "snd_nxt",
               "rcv_nxt", "min_rtt_us", "rtt_us", "ca_name", "pacing_rate",
               "delivery_rate", "delivered", "delivered_ce", "lost_out",
               "sacked_out", "app_limited", "bbr_bw", "bbr_min_rtt",
               "bbr_pacing_gain", "bbr_cwnd_gain"]
# the rate part's columns, as the text has them (empty in a log without it)
_RATE_COLS = CSV_COLUMNS[CSV_COLUMNS.index("ca_name") + 1:]
_TCP_INTS = ["cwnd", "ssthresh", "srtt_us", "rttvar_us", "rto_us", "mss",
             "packets_out", "retrans_out", "total_retrans", "bytes_sent",
             "bytes_retrans", "bytes_acked", "bytes_received", "snd_una",
             "snd_nxt", "rcv_nxt", "min_rtt_us", "rtt_us"]

# values the kernel keeps for "none yet", written empty in the CSVs:
# ssthresh before the first loss (TCP_INFINITE_SSTHRESH), min_rtt_us
# before the first RTT sample (the minmax filter's ~0U), pacing_rate
# before TCP computed one (sk_pacing_rate's ~0UL: unlimited)
_SENTINELS = {"ssthresh": 0x7fffffff, "min_rtt_us": 0xffffffff,
              "pacing_rate": 0xffffffffffffffff}

_MAX_OPEN_CSV = 64
# the events whose data segments OneWay (all but ip_in) and Received (all
# but dev_out) follow
_DATA_EVENTS = frozenset(("tcp_out", "dev_out", "tcp_in", "dev_in", "ip_in"))
_MAX_ONE = 32           # 1-byte application writes and reads kept per flow
_MAX_CA_CHANGES = 10000  # congestion-state changes kept per flow (figures)


def _rel(ns, t0):
    return "%.6f" % ((ns - t0) / 1e9)


def _epoch(ns):
    """wall-clock time, s since the epoch to the ns (as the text has it)"""
    return "%d.%09d" % divmod(ns, 1000000000)


def _csv_val(name, v):
    return "" if str(v) == str(_SENTINELS.get(name)) else v


class Reason:
    def __init__(self, verdict, what, t_ns=None):
        self.verdict = verdict
        self.what = what
        self.t_ns = t_ns

    def as_dict(self, t0):
        d = {"verdict": self.verdict, "reason": self.what}
        if self.t_ns is not None:
            d["time"] = round((self.t_ns - t0) / 1e9, 6)
            d["epoch"] = _epoch(self.t_ns)
        return d


class Flow:
    """One TCP connection end, as its socket sees it: its addresses and
    ports in its network namespace (key: family, local address and port,
    remote address and port, netns; netns "" when the log does not say).
    The same addresses and ports in another namespace (a router's copy of
    the packets, a second container) are another Flow."""

    def __init__(self, key, first_ns):
        self.key = key
        self.netns = key[5] if len(key) > 5 else ""
        self.host = ""              # _namespaces() names it
        self.first_ns = first_ns
        self.last_ns = first_ns
        self.tcp_records = 0
        self.state = 0
        self.last_tcp = None        # the last TCP-layer record's numbers
        self.ca_names = set()       # the congestion controls its records name
        # the bytes its tcp_out records sent, by the congestion control
        # they name: iperf3 -C sets its data connection's after its SYN
        # and its 37-byte cookie, which the host's default sent
        self.ca_bytes = Counter()
        self.app_written = 0
        self.app_read = 0
        self.app_events = 0
        # sequence ranges: + at TCP, - at the device (out); + at the
        # device, - at TCP (in): a range left > 0 (out) or < 0 (in) was
        # seen at TCP and never at the device. The device also sends and
        # receives what TCP's probes do not see (a request socket's
        # SYN-ACK, the handshake's last ACK, resets, TIME_WAIT replies), so
        # device-only ranges are no fault.
        self.out_ranges = Counter()
        # received: ranges the device saw and TCP has not (yet), by
        # start too, since TCP may coalesce segments queued in the
        # socket's backlog into one; and how many TCP saw alone. A range
        # TCP never takes (lost in the receiver's stack) goes once it is
        # _WINDOW bytes behind the highest end the device got (in_high),
        # as the windows' do: what is kept follows what is in flight, not
        # the log's length
        self.in_pending = Counter()
        self.in_starts = {}
        self.in_high = None
        self.in_tcp_only = 0
        self.seen_layers = set()
        self.sent_tcp = False
        # where retransmitted segments were lost, with both ends in the
        # log: the data ranges sent (tcp_out) and received (at the device
        # and at TCP) in the last _WINDOW bytes of sequence space, counted
        # (_Window); the ranges sent more than once, with their sends,
        # until the sender is _WINDOW / 2 past them: then their receipts
        # at the peer are counted into loss (_settle_retx)
        self.sent = _Window()
        self.got_dev = _Window()
        self.got_tcp = _Window()
        self.retx = OrderedDict()
        # segments, sends, lost between the hosts, lost in the peer's
        # stack, spurious: of the ranges settled; and the ranges settled
        # with no peer in the log yet (not placed)
        self.loss = [0, 0, 0, 0, 0]
        self.retx_unplaced = 0
        # the most bytes in flight (snd_nxt - snd_una) a tcp_out showed
        self.inflight_max = 0
        # IP IDs of the packets from the peer (IPv4), per layer, counted
        # on from the first (no wrap at 65536)
        self.peer_id = {}           # layer -> the next ID expected
        self.id_holes = {}          # layer -> {missing ID: time}
        # layer -> [holes never filled, the first one's time]: those more
        # than 256 IDs behind, which no late packet fills any more
        self.id_lost = {}
        # layer -> the peer's packets that came after one numbered later
        # (an IP ID filling a hole): reordered before this layer
        self.id_late = {}
        self.advmss = 0
        # (time s, cwnd, srtt_us, bytes_acked, bytes_received, arrived,
        # delivered) for the figures and the comparison: arrived, the
        # payload bytes of every data segment at this end's TCP (out of
        # order and repeated ones too: what the path delivered to it);
        # delivered, the rate part's packets delivered to the peer (SACKed
        # ones too) times the MSS, None without a rate part
        self.series = Series()
        # (time s, ssthresh or None, the ACK's RTT sample us or None,
        # snd_nxt, snd_una): TEACUP's plots (plots.teacup_figures)
        self.detail = Series()
        # every time bytes_acked grew, (time s, bytes_acked), not
        # decimated: the comparison's "N% acked" times (compare.py),
        # exact whatever the figures' series keep; from the TCP records
        # and the state changes (the ACK of the last data and the FIN is
        # often seen first in FIN_WAIT1 -> FIN_WAIT2's record)
        self.acked_t = array("d")
        self.acked_b = array("q")
        # the first TCP record in congestion avoidance (s from the log's
        # start): TCP's state Open, ssthresh set, cwnd at or above it;
        # None: the connection never left slow start (or recovery)
        self.ca_first = None
        # every RTT sample TCP took from an ACK (tcp_in's rtt_us, us),
        # counted by value (none left out, its size bounded by the
        # distinct values): the comparison's 95th percentile (compare.py)
        self.rtt_samples = Counter()
        self.arrived = 0
        # the bytes this end's application wrote that the peer's never
        # read (both ends' application records in the log), else None
        self.undelivered = None
        self.min_rtt_us = None      # the smallest RTT sample seen
        # for the comparison of runs
        self.srtt_sum = 0
        self.srtt_n = 0
        self.srtt_max = 0
        self.cwnd_max = 0
        self.data_in_first = None
        self.data_in_last = None
        # the time to the first byte's parts (compare.py, ns): its SYN's
        # tcp_out (its first TCP record, in state SYN_SENT), its first
        # tcp_in (a connecting end's: the SYN-ACK), its first tcp_out
        # with data
        self.syn_out = None
        self.tcp_in_first = None
        self.data_out_first = None
        # the times of the first 1-byte application writes and reads:
        # iperf3's state messages on its control connection (compare.py)
        self.app_one_sent = []
        self.app_one_read = []
        # what held its sender back (limits.py), from its records' limit
        # parts; None in a log without them
        self.limits = None
        # (ns, ca_state name) where its TCP records' ca_state changed
        # (derived from consecutive records; at most _MAX_CA_CHANGES)
        self.ca_changes = []
        self.ca_prev = None
        # the congestion states entered, as its TCP records show them
        # (every change, not only those kept above)
        self.ca_entered = Counter()

    def has_socket(self):
        """whether a socket's records (TCP or application) are in it: a
        connection end, not packets only (a router's)"""
        return bool(self.tcp_records or self.app_events)

    def listener(self):
        """whether it is a listening socket's (_listener())"""
        return _listener(self.key)

    def name(self):
        fam, la, lp, ra, rp = self.key[:5]
        return "%s_%s_%s_%s_%s%s" % (fam, la.replace(":", "."), lp,
                                     ra.replace(":", "."), rp,
                                     "_ns" + self.netns if self.netns
                                     else "")

    def label(self):
        """its addresses and ports, and the host it is in when the log
        says its namespace"""
        fam, la, lp, ra, rp = self.key[:5]
        at = " on %s" % self.host if self.host else ""
        if fam == "6":
            return "[%s]:%s -> [%s]:%s%s" % (la, lp, ra, rp, at)
        return "%s:%s -> %s:%s%s" % (la, lp, ra, rp, at)


class _Window(OrderedDict):
    """counts per sequence range (seq, end: 32-bit numbers as TCP has
    them), for the ranges within _WINDOW bytes of sequence space of the
    highest end seen (a key comes again only 4 GiB later, long after it
    left), in the order last counted; at most _WINDOW_KEYS of them: past
    that the oldest goes while still in the window, and .overflowed says
    so (the numbers taken from it may be wrong). An OrderedDict: a dict's
    first key, after many taken from its front, is found by a walk over
    their empty slots (the analysis took 1.7 times as long)"""
    __slots__ = ("high", "overflowed")

    def __init__(self):
        super().__init__()
        self.high = None
        self.overflowed = False

    def bump(self, k):
        n = self.pop(k, 0) + 1
        self[k] = n
        self.high = _raised(self.high, k[1])
        while True:
            first = next(iter(self))
            if _behind(self.high, first[1]) > _WINDOW:
                del self[first]
            elif len(self) > _WINDOW_KEYS:
                del self[first]
                self.overflowed = True
            else:
                return n


def _raised(high, end):
    """the highest end of sequence space seen, @high (None: none yet),
    with @end seen too"""
    if high is None or 0 < (end - high) & 0xffffffff < 2 ** 31:
        return end
    return high


def _behind(high, end):
    """how many bytes of sequence space @end is behind @high (0 if ahead)"""
    d = (high - end) & 0xffffffff
    return d if d < 2 ** 31 else 0


# the sequence space whose ranges a connection end's tables keep, and
# their most entries (64 MiB is 46,000 full-size segments of 1448 bytes):
# the loss places are exact while the flow has less than _WINDOW / 2 in
# flight, and said to be approximate otherwise
_WINDOW = 1 << 26
_WINDOW_KEYS = 1 << 18


class _CsvFiles:
    """A CSV per flow, at most _MAX_OPEN_CSV open at once (reopened to
    append), so a log with many connections needs no more descriptors."""

    def __init__(self, outdir):
        self.outdir = outdir
        self.open = OrderedDict()
        self.started = set()

    def writer(self, flow):
        name = flow.name()
        if name in self.open:
            self.open.move_to_end(name)
            return self.open[name][1]
        if len(self.open) >= _MAX_OPEN_CSV:
            _, (f, _) = self.open.popitem(last=False)
            f.close()
        path = os.path.join(self.outdir, name + ".csv")
        f = open(path, "a" if name in self.started else "w", newline="")
        w = csv.writer(f)
        if name not in self.started:
            w.writerow(CSV_COLUMNS)
            self.started.add(name)
        self.open[name] = (f, w)
        return w

    def close(self):
        for f, _ in self.open.values():
            f.close()
        self.open.clear()


class LogAnalysis:
    """The result: flows, log-level reasons, the verdicts."""

    def __init__(self, path, hosts=None):
        self.path = path
        # netns inode (a string) -> the host's name (magnet-exp run's
        # topology.json), for the labels
        self.hosts = hosts or {}
        self.namespaces = []
        self.flows = {}
        self.live = {}      # 5-tuple -> its flows, as the pass finds them
        self.log_reasons = []
        self.records = 0
        self.events = 0         # records of events (not LOST or RESET)
        self.t0 = None
        self.t_end = None
        self.kind = "magnet"
        self._tps = None        # throughputs(), once the pass is over
        # the rates the path's qdiscs were configured with (a run's
        # <...>_qdisc.txt beside the log: configured_rates())
        self.configured = []
        # their limits, by host (netns), device and qdisc: qdisc_limits()
        self.qdisc_limits = {}
        self.lost = 0
        self.misses = 0
        self.discarded = 0
        self.layers = set()
        self.modulation = Modulation()
        self.latency = Latency()
        self.queues = Queues()
        self.received = Received()
        self.oneway = OneWay()
        # where packets died (events=drop): (the sender's end: family,
        # address, port, the receiver's address and port), netns, layer,
        # reason, function -> packets
        self.drops = Counter()
        # TCP's decisions (events=retrans, state), by socket (cookie) ->
        # Counter of "retrans fast", "rto", "tlp new", ...; its states, in
        # order (prev_state of the first, then each state); its key
        self.decisions = {}
        # the receive buffer the last autotuning left, by socket
        # (events=rcvbuf)
        self.rcvbufs = {}
        # per socket, its time in RTO recoveries (ms) as the last
        # recovery's end left it (events=cong, Linux 6.7 on: rto_end)
        self.rto_times = {}
        self.state_paths = {}
        # the sockets with congestion-state events (events=cong): a log
        # with any has every change of every socket it records
        self.cong_socks = set()
        self.sock_keys = {}
        # the interactive view's markers (view.py): (s from the log's
        # start, kind, text) of TCP's decisions and the drops, the first
        # MAX_MARKS; and how many more there were
        self.marks = []
        self.marks_left_out = 0

    def flow_verdict(self, flow):
        return _worst(flow.reasons)

    def drop_rows(self):
        """the drops table: per packet path, host, layer, reason, function,
        qdisc and kind of loss (drop_kind()), the packets"""
        rows = Counter()
        for (k, ns, lay, why, where, dev, fill), n in self.drops.items():
            # a qdisc's drop: the qdisc of the last enqueue before it,
            # else of the device's first, else those its dequeues name
            qd = None
            if dev:
                qd = fill[2] if fill else self.queues.first.get(
                    (ns, dev)) or self.queues.qdisc_of(ns, dev)
            kind, limit = drop_kind(why, ns, dev, fill, qd, self.queues,
                                    self.qdisc_limits)
            rows[(k, ns, lay, why, where, dev, qd, kind, limit)] += n
        return [{"flow": _label(k), "host": self.host_name(ns),
                 "layer": lay, "reason": why, "where": where, "qdisc": qd,
                 "kind": kind, "limit": limit, "packets": n}
                for (k, ns, lay, why, where, dev, qd, kind, limit), n in
                sorted(rows.items(), key=lambda kv: (-kv[1], str(kv[0])))]

    def host_name(self, netns):
        """the host of the namespace @netns: its name, or netns N"""
        return self.hosts.get(netns) or ("netns " + netns if netns else "")

    def peer(self, f):
        """the other end of @f's connection in the log: the flow with
        the addresses and ports reversed that has a socket's records (in
        any namespace: the peer's host), else one that has any, else None;
        of the flows the pass has found so far"""
        fam, la, lp, ra, rp = f.key[:5]
        cand = [g for g in self.live.get((fam, ra, rp, la, lp), [])
                if g is not f and self.flows.get(g.key) is g]
        for g in cand:
            if g.has_socket():
                return g
        return cand[0] if cand else None

    def alone(self, f):
        """whether @f's peer is not in the log as a connection end (no
        flow with the addresses reversed that has a socket's records)"""
        p = self.peer(f)
        return p is None or not p.has_socket()

    def socket_netns(self):
        """the namespaces of the connections' ends (TCP or application
        records): the hosts, not a router forwarding their packets"""
        return {f.netns for f in self.tcp_flows()}

    def host_keys(self, key):
        """whether the flow @key is a connection end (for the tables and
        figures: a router's packets are not a host's, and a listening
        socket is no connection)"""
        f = self.flows.get(key)
        return f is not None and f.has_socket() and not f.listener()

    def verdict(self):
        v = _worst(self.log_reasons)
        for f in self.tcp_flows():
            v = _worst(f.reasons, v)
        return v

    def throughputs(self):
        """{flow: delivery.throughput()} of the ends that sent data, and
        of those that received data from a peer not in the log (theirs:
        delivery.source()), computed once (verdict.json, throughput.csv
        and the figures)"""
        if self._tps is None:
            self._tps = {}
            for f in self.tcp_flows():
                if not f.series.pts:
                    continue
                if f.series.pts[-1][3] <= 0 and not (f.arrived and
                                                     self.alone(f)):
                    continue
                tp = delivery.throughput(self, f)
                if tp:
                    self._tps[f] = tp
        return self._tps

    def above_rate(self):
        """{flow: (rate, [(start s, Mbit/s)])}: the throughput windows of
        each connection end above the path's smallest configured rate by
        more than the window's granularity (what its count's steps can
        add). The rate counts whole frames, the windows payload, so such a
        window shows data delivered in a burst (netem's release under an
        emulator, a stall's backlog), not the path's rate"""
        if not self.configured:
            return {}
        rate = min(c["mbit_s"] for c in self.configured)
        out = {}
        for f, tp in self.throughputs().items():
            hi = [(t, v) for t, v in tp["windows"]
                  if v > rate + tp["granularity_mbps"]]
            if hi:
                out[f] = (rate, hi)
        return out

    def caveats(self):
        """what the numbers of this log cannot be taken for, as lines: the
        peer's packets that reached a host's device out of order (IP IDs,
        Flow.id_late), and the windows above the configured rate
        (above_rate())"""
        tps = self.throughputs()
        late = ["%d packet%s from the peer of %s reached its device after "
                "one the peer numbered later (IPv4 IDs): reordered on their "
                "way or across this host's CPUs (veth under an emulator "
                "does); data reordered so can look lost to TCP (a spurious "
                "retransmission), ACKs like duplicates" % (
                    f.id_late["dev"], "s" if f.id_late["dev"] > 1 else "",
                    f.label())
                for f in self.tcp_flows() if f.id_late.get("dev")]
        return late + ["%d of %d %.0f ms windows of %s's throughput above the "
                "path's configured %g Mbit/s by more than their granularity "
                "(%.2f Mbit/s), up to %.2f Mbit/s: data delivered in bursts "
                "(an emulator's or a stall's), not the path's rate; marked "
                "in the throughput figure" % (
                    len(hi), len(tps[f]["windows"]),
                    tps[f]["window_s"] * 1e3, f.label(), rate,
                    tps[f]["granularity_mbps"], max(v for _, v in hi))
                for f, (rate, hi) in self.above_rate().items()]

    def as_dict(self):
        t0 = self.t0 or 0
        tps = self.throughputs()
        return {
            "log": self.path,
            # what the log is: "magnet" (binary or text), "ttprobe" or
            # "web10g"
            "format": self.kind,
            # the log's first record, wall clock: every "time", "start"
            # and "end" here is in s after it
            "epoch": _epoch(t0),
            "verdict": self.verdict(),
            "records": self.records,
            "lost": self.lost, "probe_misses": self.misses,
            "discarded_by_reset": self.discarded,
            "layers": sorted(self.layers),
            # the rates the path's qdiscs were configured with, from a
            # run's qdisc.txt beside the log (as the qdisc counts: whole
            # frames, headers too)
            "configured_rates": self.configured,
            "reasons": [r.as_dict(t0) for r in self.log_reasons],
            # what the numbers cannot be taken for (caveats())
            "caveats": self.caveats(),
            "flows": [{
                "flow": f.label(), "csv": f.name() + ".csv",
                # the namespace it is in ("" if the log does not say), and
                # the host's name
                "netns": f.netns, "host": f.host,
                "tcp_records": f.tcp_records,
                "start": round((f.first_ns - t0) / 1e9, 6),
                "end": round((f.last_ns - t0) / 1e9, 6),
                "start_epoch": _epoch(f.first_ns),
                "end_epoch": _epoch(f.last_ns),
                "verdict": self.flow_verdict(f),
                "reasons": [r.as_dict(t0) for r in f.reasons],
                # its data's throughput over time (delivery.py): how, the
                # window, the largest and the mean window, the granularity
                "undelivered": f.undelivered,
                "throughput": {k: v for k, v in tps[f].items()
                               if k != "windows"} if f in tps else None,
                # what held its sender back (limits.py): the kernel's
                # chronographs; None in a log without its limit parts
                "limits": f.limits.as_dict(t0) if f.limits else None,
            } for f in self.tcp_flows()],
            # per namespace: its host, events, connection ends
            "namespaces": self.namespaces,
            "modulation": self.modulation.rows(
                lambda k: self.flows[k].label(), self.host_keys),
            "latency": self.latency.rows(self.socket_netns(),
                                         self.host_name),
            # where packets waited in a qdisc (events=qdisc): per host,
            # routers too, device and qdisc, from the enqueue (or dev_out,
            # before it) to the dequeue
            "queues": self.queues.rows(self.host_name),
            "devices_out": self.queues.device_rows(self.host_name),
            # where packets died (events=drop): per packet path (its
            # sender's end first), host, layer (dev: at a device, ip: none
            # known), the kernel's reason and the function that freed it
            # and for a qdisc's drop, the device's qdisc as its qdisc
            # events name it
            # and what kind of loss (drop_kind()) and the limit that
            # told it
            "drops": self.drop_rows(),
            # TCP's decisions (events=retrans, state), per connection end
            "decisions": [{
                "flow": _label(k), "host": self.host_name(k[5] or ""),
                "retrans_fast": c["retrans fast"],
                "retrans_rto": c["retrans rto"],
                "retrans_tlp": c["retrans tlp"],
                "retrans_reached": c["retrans reached"],
                "retrans_not_reached": c["retrans not reached"],
                "rto": c["rto"],
                "tlp_new": c["tlp new"], "tlp_retrans": c["tlp retrans"],
                "tlp_none": c["tlp none"],
                "states": " ".join(TCP_STATES.get(x, str(x)) for x in
                                   self.state_paths.get(sock, [])),
                # the congestion states entered: the kernel's own changes
                # (events=cong, "events"), or without them the changes its
                # TCP records' ca_state show ("records": derived, a lower
                # bound: a state entered and left between two records is
                # not seen)
                **self.cong_entries(sock),
                # receive-buffer autotuning (events=rcvbuf): its growths
                # and the buffer the last one left (None: none recorded)
                "rcvbuf_grown": c["rcvbuf"],
                "rcvbuf_bytes": self.rcvbufs.get(sock),
                # the kernel's total_rto_time at the last RTO recovery's
                # end (events=cong, Linux 6.7 on; None: none recorded)
                "rto_time_ms": self.rto_times.get(sock),
            } for sock in sorted(set(self.decisions) | set(self.state_paths),
                                 key=lambda x: self.sock_keys[x])
                for k in [self.sock_keys[sock]]
                # (a listening socket is no connection end)
                if not _listener(k)
                for c in [self.decisions.get(sock, Counter())]],
        }

    def cong_entries(self, sock):
        """{"cong_from": "events", "records" or None, and per congestion
        state its entries: "recovery", "loss", "cwr", "disorder",
        "open"} of the socket @sock (decisions())"""
        if self.cong_socks:
            # the log has the kernel's changes (events=cong): of every
            # socket the filter kept, none for one that had none
            c = self.decisions.get(sock, Counter())
            got = {k: c["cong " + k] for k in _CA_STATES.values()}
            src = "events"
        else:
            f = self.flows.get(self.sock_keys.get(sock))
            got = dict(f.ca_entered) if f is not None and f.tcp_records \
                else None
            src = "records" if got is not None else None
        return dict({"cong_from": src},
                    **{k.lower(): (got or {}).get(k, 0) if src else None
                       for k in _CA_STATES.values()})

    def tcp_flows(self):
        """the connections: flows of TCP sockets (TCP or application
        records), listening sockets left out"""
        return [f for f in self.flows.values()
                if f.has_socket() and
                not (f.state == 10 and f.listener())]


def _worst(reasons, start=CONFIRMED):
    v = start
    for r in reasons:
        if _RANK[r.verdict] > _RANK[v]:
            v = r.verdict
    return v


def _key(r):
    return (r["family"], r["laddr"], r["lport"], r["raddr"], r["rport"],
            r.get("netns"))


def _listener(key):
    """whether the flow or socket @key (_key()) is a listening socket's:
    no peer (remote port 0, which no connection has); its records are the
    SYNs it took"""
    return key[4] == "0"


class NotALog(ValueError):
    """the file gave not one record: not a log, or one whose beginning is
    unreadable (magnet-exp exits 2 and writes no report for it)"""


def _pass(res, path, csvs, ttpb2ascii=None, progress=None, devices=None):
    """analyse()'s pass over the records of the log at @path, one at a
    time, into @res (a LogAnalysis) and the flows' CSVs (@csvs); returns
    (gaps, ns_events, end): the spans with records missing, (start_ns,
    t_ns, what); the events per netns; how the decoding ended (a
    textlog.LogEnd). userspace/magnet-pass.c is this pass in C, in the
    making (tests/unit/test_pass.py holds what it covers against this)"""
    ns_events = Counter()   # netns -> events
    end = textlog.LogEnd()
    cpu_last = {}           # CPU -> time of its last record
    gaps = []               # (start_ns, t_ns, what): records missing
    for r in textlog.rows(path, end, ttpb2ascii):
        res.records += 1
        t = r.time_ns()
        if res.t0 is None:
            res.t0 = res.queues.t0 = t
        res.t_end = t
        if progress and res.records % 100000 == 0:
            progress(res.records)
        ev = r["event"]
        cpu = r["cpu"]
        if ev == "lost":
            n, m = r.int_("lost"), r.int_("ret")
            res.lost += n
            res.misses += m
            what = "%d records lost%s on CPU %s" % (
                n, " and %d probe misses" % m if m else "", cpu)
            res.log_reasons.append(Reason(INACCURATE, what, t))
            gaps.append((cpu_last.get(cpu, res.t0), t, what))
            cpu_last[cpu] = t
            continue
        if ev == "reset":
            n = r.int_("lost")
            res.discarded += n
            what = "%d buffered records discarded by reset" % n
            res.log_reasons.append(Reason(INACCURATE, what, t))
            gaps.append((res.t0, t, what))
            continue
        cpu_last[cpu] = t
        res.events += 1
        ns_events[r.get("netns")] += 1
        # how long packets waited in their device's qdisc
        # (events=qdisc): from the enqueue (or dev_out, before it)
        # to the dequeue, on every device, routers' too (before the
        # filter of devices below)
        if ev == "dev_out":
            res.queues.dev_out(r, t)
        elif ev == "qdisc":
            res.queues.dequeued(r, t)
            continue
        elif ev == "qdisc_enq":
            res.queues.enqueued(r, t)
            continue
        elif ev == "wire_out":
            # where the device handed it to its driver, after its
            # qdisc (events=wire): its time through the device
            res.queues.wire(r, t)
            continue
        if ev in _DATA_EVENTS:
            sq, eq = r["seq"], r["end_seq"]
            if sq and sq != eq:
                # a data segment: its key and sequence numbers once
                k, sq, eq = _key(r), int(sq), int(eq)
                if ev != "ip_in":
                    # its one-way delay, host to host
                    res.oneway.event(ev, k, sq, eq, t)
                if ev != "dev_out":
                    # what each end's host got (its device, IP or
                    # TCP), and whether it had got a segment TCP
                    # sends again
                    res.received.event(ev, k, sq, eq)
        if ev == "state" and r["lport"]:
            # (a state change carries the socket's TCP state: the
            # bytes acknowledged by the ACK that made it)
            res.received.end(_key(r))
            f = res.flows.get(_key(r))
            if f is not None:
                _acked(f, (t - res.t0) / 1e9, r.int_("bytes_acked"))
        if ev in ("drop_out", "drop_in", "retrans", "rto", "tlp",
                  "state", "cong_state", "rcvbuf", "rto_end"):
            # a packet the kernel dropped (events=drop), or TCP's
            # decisions (events=retrans, state): counted apart, not in
            # the layers' modulation and latency, which count packets
            # that went on
            _decision(res, r, ev, (t - res.t0) / 1e9)
            continue
        layer = ev.split("_")[0]
        if devices is not None and layer == "dev" and \
                r["ifindex"] not in devices:
            continue
        res.layers.add(layer)
        if not r["lport"]:
            continue
        k = _key(r)
        f = res.flows.get(k)
        if f is None:
            f = res.flows[k] = Flow(k, t)
            res.live.setdefault(k[:5], []).append(f)
        f.last_ns = t
        f.seen_layers.add(layer)
        res.modulation.add(f, ev, layer, t, r)
        res.latency.add(f, ev, t, r)
        if layer == "tcp":
            _tcp(res, f, r, t, res.t0, csvs)
        elif layer == "app":
            ret = r.int_("ret")
            f.app_events += 1
            if ret > 0:
                if ev == "app_send":
                    f.app_written += ret
                else:
                    f.app_read += ret
                if ret == 1:
                    one = f.app_one_sent if ev == "app_send" else \
                        f.app_one_read
                    if len(one) < _MAX_ONE:
                        one.append(t)
        else:
            _pkt(f, r, t, ev, layer)
    return gaps, ns_events, end


def analyse(path, outdir, ttpb2ascii=None, progress=None, devices=None,
            hosts=None):
    """Analyse the log at @path, writing the flows' CSVs into @outdir.
    @devices: if given, the ifindexes (strings) whose device records
    count; the others (a router's, in an emulated path) are left out (a
    log whose records say their namespace needs none: a router's packets
    are flows of its own namespace). @hosts: {netns inode: host name}.
    Raises NotALog when ttpb2ascii finds no record in it."""
    made = not os.path.isdir(outdir)
    os.makedirs(outdir, exist_ok=True)
    res = LogAnalysis(path, hosts)
    csvs = _CsvFiles(outdir)
    try:
        if cpass.usable(path):
            # the same pass in C (userspace/magnet-pass), its state put
            # into @res as _pass() leaves it
            gaps, ns_events, end = cpass.run(sys.modules[__name__], res,
                                             path, outdir, ttpb2ascii,
                                             devices)
            if progress:
                progress(res.records)
        else:
            gaps, ns_events, end = _pass(res, path, csvs, ttpb2ascii,
                                         progress, devices)
    finally:
        csvs.close()
    if (end.corrupt or end.truncated) and not res.records:
        # nothing was written into @outdir: no flow, no CSV
        if made:
            os.rmdir(outdir)
        why = end.message.replace("ttpb2ascii: ", "").replace(
            "warning: ", "")
        if why.startswith(path + ": "):
            why = why[len(path) + 2:]
        raise NotALog("%s: %s, no report: %s" % (
            path, "not a log magnet-exp reads" if end.corrupt else
            "not one complete record", why or
            "ttpb2ascii exited %s" % end.code))
    if res.t0 is None:
        res.t0 = res.t_end = 0
    res.kind = end.kind
    _namespaces(res, ns_events)
    if end.kind == "ttprobe":
        res.log_reasons.append(Reason(
            INDETERMINATE, "a ttprobe log (its ASCII lines): it does not "
            "mark lines lost when ttprobe's buffer was full (its kernel log "
            "does), so whether lines are missing cannot be known; it has "
            "TCP's segments only (no application, IP or device layer, no "
            "sequence ranges): no modulation, latency or loss location; its "
            "bytes acknowledged and sent are snd_una's and snd_nxt's "
            "progress from each connection's first line"))
    if end.kind == "web10g":
        res.log_reasons.append(Reason(
            INDETERMINATE, "a web10g log: it does not mark lines lost (a "
            "polling logger misses what happens between its polls; magnet's "
            "omode=2 says losses in its kernel log only), so whether lines "
            "are missing cannot be known; it has TCP's state only (no "
            "application, IP or device layer, no sequence ranges): no "
            "modulation, latency or loss location; its RTTs are in whole "
            "milliseconds, and a line's direction is guessed from SegsIn"))
    if end.truncated:
        res.log_reasons.append(Reason(
            INACCURATE, "the log is cut short (%s): the end of the capture "
            "is missing" % end.message.replace("ttpb2ascii: ", ""),
            res.t_end))
    elif end.corrupt:
        res.log_reasons.append(Reason(
            INACCURATE, "the log cannot be read to its end (%s)"
            % end.message.replace("ttpb2ascii: ", ""), res.t_end))
    _finish(res, gaps, end)
    return res


class _Pending:
    """per packet (a key), the times of its earlier events, oldest first,
    at most LIMIT in all (the oldest packets forgotten past it)"""
    LIMIT = 65536

    def __init__(self):
        self.d = {}
        self.n = 0

    def add(self, k, v):
        # a list a key: almost always of one time (a deque is ten times
        # the size), taken from its front
        q = self.d.get(k)
        if q is None:
            self.d[k] = [v]
        else:
            q.append(v)
        self.n += 1
        if self.n > self.LIMIT:
            for old in list(islice(self.d, 4096)):
                self.n -= len(self.d.pop(old))

    def take(self, k):
        q = self.d.get(k)
        if not q:
            return None
        v = q.pop(0)
        self.n -= 1
        if not q:
            del self.d[k]
        return v


class Received:
    """per receiving end (its 5-tuple and namespace), the sequence ranges
    its host got (tcp_in, ip_in, dev_in events: the earliest that saw
    them), merged, as offsets from the first one's start, counted on past
    4 GiB (a range is placed within 2 GiB of the highest so far); and for
    each segment a sender's TCP sends (tcp_out), whether the peer had got it all by then, kept for its
    RETRANS event, which the kernel fires after the transmission (on one
    machine the peer may have got the copy before it)"""

    SENT = 4096         # tcp_outs whose RETRANS may come: the last ones

    def __init__(self):
        # key -> [base, sorted disjoint [start, end] lists, the highest
        # start's offset]
        self.d = {}
        self.end_ns = {}        # 5-tuple -> namespace of its tcp_in
        self.at_send = OrderedDict()    # (5-tuple, seq, end) -> bool

    def event(self, ev, key, seq, end):
        k5, ns = key[:5], key[5] or ""
        if ev == "tcp_out":
            peer = (k5[0], k5[3], k5[4], k5[1], k5[2])
            pns = self.end_ns.get(peer)
            if pns is None:
                return
            self.at_send[(k5, seq, end)] = self.covers((peer, pns), seq, end)
            self.at_send.move_to_end((k5, seq, end))
            if len(self.at_send) > self.SENT:
                self.at_send.popitem(last=False)
            return
        if ev == "tcp_in":
            self.end_ns[k5] = ns
        self.add((k5, ns), seq, end)

    def end(self, key):
        """a state change of the end @key (its 5-tuple and namespace):
        the end exists, there (on 5.10 a passive end's first tcp_in may
        be its first data: the handshake's last ACK has none)"""
        self.end_ns[key[:5]] = key[5] or ""

    @staticmethod
    def _off(seq, e):
        o = (seq - e[0] - e[2]) & 0xffffffff
        return e[2] + (o - 2 ** 32 if o >= 2 ** 31 else o)

    def add(self, k, seq, end):
        e = self.d.get(k)
        if e is None:
            e = self.d[k] = [seq, [], 0]
        s = self._off(seq, e)
        e[2] = max(e[2], s)
        t = s + ((end - seq) & 0xffffffff)
        iv = e[1]
        if iv and iv[-1][0] <= s <= iv[-1][1]:
            # in order: the usual case
            iv[-1][1] = max(iv[-1][1], t)
            return
        i = bisect.bisect_left(iv, [s, s])
        if i > 0 and iv[i - 1][1] >= s:
            i -= 1
        j = i
        while j < len(iv) and iv[j][0] <= t:
            s, t = min(s, iv[j][0]), max(t, iv[j][1])
            j += 1
        iv[i:j] = [[s, t]]

    def covers(self, k, seq, end):
        """True if the end k's host got all of [seq, end), False if not,
        None if the log has nothing it got"""
        e = self.d.get(k)
        if e is None:
            return None
        s = self._off(seq, e)
        t = s + ((end - seq) & 0xffffffff)
        iv = e[1]
        i = bisect.bisect_right(iv, [s, float("inf")]) - 1
        return i >= 0 and iv[i][0] <= s and t <= iv[i][1]


class OneWay:
    """The one-way delay of each data segment from the sender's host to
    the receiver's, on the log's one clock (a run's namespaces share one
    kernel): per layer, from the sender's dev_out (tcp_out) of the
    segment holding a byte to the receiver's dev_in (tcp_in) of a segment
    starting with it, for each arrival whose first byte had been sent
    once only by then (after a second send it is left out, counted:
    which copy arrived is not known). The sends are taken in the
    sender's namespace (the one of its first tcp_out), the arrivals in
    every other, kept per namespace: the receiving end's is chosen when
    it is known (compare.delay_samples), a router's are its own. Memory:
    the last SENDS sends a sender and layer, delays counted by value in
    microseconds. Offsets in the sequence space are counted on from the
    first send (past 2^31 and 2^32: the newest send's place is the
    reference, not the first's), so any length is exact while less than
    2^31 bytes are in flight."""

    SENDS = 65536

    def __init__(self):
        self.sender_ns = {}     # sender 5-tuple -> its namespace
        # (sender 5-tuple, layer) -> [reference seq, its offset, starts,
        # ends, times (ns), sent more than once (bytearray)]: offsets
        # from the first send, the reference the newest send's start
        self.sends = {}
        # (sender 5-tuple, layer, arrival netns) -> Counter of delays (us)
        self.delays = {}
        self.again = Counter()  # (sender 5-tuple, layer) -> arrivals left out

    @staticmethod
    def _off(base, seq):
        o = (seq - base) & 0xffffffff
        return o - 2 ** 32 if o >= 2 ** 31 else o

    def event(self, ev, key, seq, end, t):
        k5, ns = key[:5], key[5] or ""
        layer = ev.split("_")[0]
        if ev.endswith("_out"):
            if ev == "tcp_out":
                self.sender_ns.setdefault(k5, ns)
            if self.sender_ns.get(k5) != ns:
                return
            s = self.sends.get((k5, layer))
            if s is None:
                s = self.sends[(k5, layer)] = [seq, 0, array("q"),
                                               array("q"), array("q"),
                                               bytearray()]
            ref, ref_off, starts, ends, ts, again = s
            a = ref_off + self._off(ref, seq)
            b = a + ((end - seq) & 0xffffffff)
            if not starts or a >= ends[-1]:
                s[0], s[1] = seq, a
                starts.append(a)
                ends.append(b)
                ts.append(t)
                again.append(0)
                if len(starts) > 2 * self.SENDS:
                    for x in (starts, ends, ts, again):
                        del x[:self.SENDS]
                return
            # bytes sent again: every send they overlap is ambiguous
            i = max(0, bisect.bisect_right(starts, a) - 1)
            while i < len(starts) and starts[i] < b:
                if ends[i] > a:
                    again[i] = 1
                i += 1
            return
        snd = (k5[0], k5[3], k5[4], k5[1], k5[2])
        s = self.sends.get((snd, layer))
        if s is None or self.sender_ns.get(snd) == ns:
            return
        ref, ref_off, starts, ends, ts, again = s
        a = ref_off + self._off(ref, seq)
        i = bisect.bisect_right(starts, a) - 1
        if i < 0 or a >= ends[i] or ts[i] > t:
            return
        if again[i]:
            self.again[(snd, layer)] += 1
            return
        c = self.delays.get((snd, layer, ns))
        if c is None:
            c = self.delays[(snd, layer, ns)] = Counter()
        c[(t - ts[i] + 500) // 1000] += 1


class Queues:
    """Per host (network namespace), device and qdisc (events=qdisc): the
    time each packet waited in the qdisc (its sojourn), from its enqueue
    (a qdisc_enq event: Linux 6.1 on) or else its dev_out (before the
    enqueue) to its dequeue, and the packets ahead of it at its enqueue
    (the qdisc's qlen after it, less itself), matched by connection,
    sequence range and IP id, in order"""

    def __init__(self):
        self.devout = _Pending()        # packet -> dev_out times
        self.enq = _Pending()           # packet -> (time, qlen) enqueues
        self.stats = {}         # (netns, ifindex, qdisc, from) -> Stat
        self.ahead = {}         # the same -> Counter of packets ahead
        # through each device (events=wire): dev_out (it took the packet
        # in, before its qdisc) to wire_out (it handed it to its driver)
        self.toward = _Pending()        # packet -> dev_out times
        self.handed = Counter()         # (netns, ifindex) -> dev_out events
        self.left = Counter()           # the same -> wire_out events
        self.through = {}               # the same -> Stat of the times
        # each device's qdisc after its last enqueue (qdisc_enq events,
        # Linux 6.1 on): (netns, ifindex) -> (qlen, backlog, "kind
        # handle"), what a drop there found (drop_kind()); the longest
        # queue each qdisc had after an enqueue; whether the log has any
        self.fill = {}
        self.first = {}         # the same -> its first enqueue's qdisc
        self.longest = Counter()
        self.enq_seen = False
        # (netns, ifindex) -> Envelope of (s from the log's start, the
        # sojourn in ms) at each dequeue: the interactive view (view.py)
        self.sojourns = {}
        self.t0 = 0

    @staticmethod
    def _packet(r):
        return (r.get("netns"), r["ifindex"], r["laddr"], r["lport"],
                r["raddr"], r["rport"], r["seq"], r["end_seq"], r["ip_id"])

    def dev_out(self, r, t):
        k = self._packet(r)
        self.devout.add(k, t)
        self.toward.add(k, t)
        self.handed[(k[0] or "", k[1])] += 1

    def wire(self, r, t):
        k = self._packet(r)
        dk = (k[0] or "", k[1])
        self.left[dk] += 1
        t0 = self.toward.take(k)
        if t0 is not None:
            st = self.through.get(dk)
            if st is None:
                st = self.through[dk] = Stat()
            st.add(t - t0)

    def device_rows(self, name_of):
        """per device with wire_out events: the packets it took in
        (dev_out), those it handed to its driver (wire_out), and the time
        from one to the other of each packet matched by both"""
        out = []
        for dk in sorted(self.left):
            ns, dev = dk
            st = self.through.get(dk)
            row = {"host": name_of(ns), "device": dev,
                   "taken_in": self.handed.get(dk, 0),
                   "left": self.left[dk], "matched": st.n if st else 0,
                   "mean_us": round(st.mean() / 1e3, 3) if st else None}
            for p in PCTS:
                row["p%d_us" % p] = round(st.pct(p) / 1e3, 3) if st else None
            out.append(row)
        return out

    def enqueued(self, r, t):
        ql = r["qdisc_qlen"]
        k = self._packet(r)
        self.enq.add(k, (t, int(ql) if ql else None))
        if ql:
            ql = int(ql)
            dk = (k[0] or "", k[1])
            name = "%s %s" % (r["qdisc"], r["qdisc_handle"])
            self.fill[dk] = (ql, int(r["qdisc_backlog"] or 0), name)
            self.first.setdefault(dk, name)
            if ql > self.longest[dk + (name,)]:
                self.longest[dk + (name,)] = ql
        self.enq_seen = True

    def dequeued(self, r, t):
        k = self._packet(r)
        t_dev = self.devout.take(k)
        e = self.enq.take(k)
        if e is not None:
            t0, qlen, basis = e[0], e[1], "enqueue"
        elif t_dev is not None:
            t0, qlen, basis = t_dev, None, "dev_out"
        else:
            return
        key = (k[0] or "", k[1], "%s %s" % (r["qdisc"], r["qdisc_handle"]),
               basis)
        st = self.stats.get(key)
        if st is None:
            st = self.stats[key] = Stat()
        st.add(t - t0)
        if qlen:
            self.ahead.setdefault(key, Counter())[qlen - 1] += 1
        env = self.sojourns.get(key[:2])
        if env is None:
            env = self.sojourns[key[:2]] = Envelope()
        env.add((t - self.t0) / 1e9, (t - t0) / 1e6)

    def qdisc_of(self, ns, dev):
        """the qdiscs (kind and handle) whose dequeues were seen on device
        dev of namespace ns, or None"""
        names = sorted({qd for (n, d, qd, _) in self.stats
                        if n == (ns or "") and d == dev})
        return ", ".join(names) or None

    def rows(self, name_of):
        out = []
        for key, st in sorted(self.stats.items()):
            ns, dev, qd, basis = key
            row = {"host": name_of(ns), "device": dev, "qdisc": qd,
                   "from": basis, "count": st.n,
                   "mean_us": round(st.mean() / 1e3, 3)}
            for p in PCTS:
                row["p%d_us" % p] = round(st.pct(p) / 1e3, 3)
            a = self.ahead.get(key)
            n = sum(a.values()) if a else 0
            row["ahead_mean"] = round(sum(k * c for k, c in a.items()) / n,
                                      2) if n else None
            row["ahead_p50"] = count_pct(a, 50) if n else None
            row["ahead_p99"] = count_pct(a, 99) if n else None
            out.append(row)
        return out


def count_pct(c, p):
    """the p-th percentile (nearest rank) of the integers counted in c"""
    want = math.ceil(sum(c.values()) * p / 100)
    seen = 0
    for k in sorted(c):
        seen += c[k]
        if seen >= want:
            return k
    return None


def _mark(res, t, kind, text):
    """a marker of the interactive view (view.py): the first MAX_MARKS,
    the rest counted"""
    if len(res.marks) < MAX_MARKS:
        res.marks.append((t, kind, text))
    else:
        res.marks_left_out += 1


def _decision(res, r, ev, t=None):
    """a drop (counted by the packet's sender's end, where and why) or a
    TCP decision (counted by its socket's end); @t: its time, s from the
    log's start (the interactive view's markers)"""
    fam, netns = r["family"], r.get("netns") or ""
    if t is not None:
        where = "%s:%s -> %s:%s" % (r["laddr"], r["lport"], r["raddr"],
                                    r["rport"])
        if ev in ("drop_out", "drop_in"):
            # (a drop_in's laddr is the packet's destination)
            _mark(res, t, "drop", "%s, a packet %s, %s at %s, in %s" % (
                ev, where if ev == "drop_out" else "%s:%s -> %s:%s" % (
                    r["raddr"], r["rport"], r["laddr"], r["lport"]),
                r["drop_reason"], r["drop_where"],
                res.host_name(netns) or "host"))
        elif ev == "state":
            _mark(res, t, "state", "%s %s -> %s" % (
                where, _STATES.get(r.int_("prev_state"), r["prev_state"]),
                _STATES.get(r.int_("state"), r["state"])))
        elif ev == "cong_state":
            _mark(res, t, "cong_state", "%s %s -> %s" % (
                where,
                _CA_STATES.get(r.int_("prev_state"), r["prev_state"]),
                _CA_STATES.get(r.int_("ca_state"), r["ca_state"])))
        elif ev == "rcvbuf":
            _mark(res, t, "rcvbuf", "%s receive buffer %s -> %s bytes, "
                  "window clamp %s -> %s" % (
                      where, r["rcvbuf_before"], r["rcvbuf"],
                      r["window_clamp_before"], r["window_clamp"]))
        elif ev == "rto_end":
            _mark(res, t, "rto_end", "%s RTO recovery ended after %s ms "
                  "(the kernel's sum: %s ms in RTO recoveries)" % (
                      where, r["rto_recovery_ms"], r["total_rto_time"]))
        else:
            _mark(res, t, ev, "%s%s" % (
                where, " " + r["kind"] if r["kind"] else ""))
    if ev in ("drop_out", "drop_in"):
        # a drop_out's laddr is the packet's source, a drop_in's its
        # destination
        if ev == "drop_out":
            k = (fam, r["laddr"], r["lport"], r["raddr"], r["rport"])
        else:
            k = (fam, r["raddr"], r["rport"], r["laddr"], r["lport"])
        qd = ev == "drop_out" and _qdisc_drop(r)
        # a qdisc's drop: its qdisc as the last enqueue there left it
        # (drop_kind(), once the log is read), with this packet's length
        fill = res.queues.fill.get((netns, r["ifindex"])) if qd else None
        res.drops[(k, netns, "dev" if r["ifindex"] else "ip",
                   r["drop_reason"], r["drop_where"],
                   r["ifindex"] if qd else "",
                   fill + (int(r["len"] or 0),) if fill else None)] += 1
        return
    # its congestion state, as the connection's other records show it
    f = res.flows.get(_key(r))
    if f is not None and r["ca_state"]:
        _ca_seen(f, t * 1e9 + res.t0 if t is not None else f.last_ns,
                 r["ca_state"])
    # by the socket (its cookie): a connecting socket's first change
    # comes before it has its local port
    sock = r["sock"] or _key(r)
    if r["lport"] != "0" or sock not in res.sock_keys:
        res.sock_keys[sock] = _key(r)
    if ev == "state":
        path = res.state_paths.setdefault(sock, [])
        if not path:
            path.append(r.int_("prev_state"))
        path.append(r.int_("state"))
        return
    c = res.decisions.setdefault(sock, Counter())
    if ev == "rcvbuf":
        # receive-buffer autotuning grew it (events=rcvbuf): how often,
        # and the buffer the last growth left
        c["rcvbuf"] += 1
        res.rcvbufs[sock] = r.int_("rcvbuf")
        return
    if ev == "rto_end":
        # an RTO recovery ended (events=cong, 6.7 on): the kernel's sum
        # of the time in RTO recoveries (with it where it ended into Open)
        res.rto_times[sock] = r.int_("total_rto_time")
        return
    if ev == "cong_state":
        # the congestion state entered (events=cong: the kernel's own
        # changes, where it has the tracepoint)
        c["cong " + _CA_STATES.get(r.int_("ca_state"), r["ca_state"])] += 1
        res.cong_socks.add(sock)
        return
    c[ev + (" " + r["kind"] if r["kind"] else "")] += 1
    if ev == "retrans" and r["seq"]:
        # had the peer's host got the original (all its bytes) when TCP
        # sent the segment again (its tcp_out, just before)? Only where
        # the log has the peer's tcp_in or state events and the sender's
        # tcp_out
        got = res.received.at_send.pop(
            (_key(r)[:5], int(r["seq"]), int(r["end_seq"])), None)
        if got is not None:
            c["retrans reached" if got else "retrans not reached"] += 1


def _qdisc_drop(r):
    """a drop a qdisc made: its reason says so (QDISC_DROP, or 7.x's
    qdisc reasons), or without reasons (5.10) it was freed where the
    kernel frees what a qdisc refused (kfree_skb_list, from
    __dev_xmit_skb)"""
    why = r["drop_reason"]
    return why.startswith("QDISC") or (
        why == "unknown" and r["drop_where"].startswith("kfree_skb_list"))


OVERFLOW = "overflow"
RANDOM = "random loss (netem)"
BELOW = "below its limit"
AT_LONGEST = "at its longest queue (limit not known)"
BELOW_LONGEST = "below its longest queue (limit not known)"
UNTOLD = "not told apart (no qdisc_enq events: events=qdisc, Linux 6.1 on)"


def drop_kind(why, ns, dev, fill, qd, queues, limits):
    """(kind, limit) of a drop: for a qdisc's drop (@dev set) at the qdisc
    @qd ("kind handle"), by its queue as the last enqueue on that device
    (a qdisc_enq event) left it, @fill (qlen, backlog, "kind handle",
    this packet's length; None if none came before: empty), against its
    limit (@limits: qdisc_limits(),
    from the run's `tc qdisc show`; else the longest queue the log shows
    it had):
      overflow: at its limit (packets), or the backlog and this packet
        over it (bytes);
      random loss (netem): below it, at a netem with a loss configured;
      below its limit: the qdisc's own choice (a filter, an AQM);
      not told apart: a log with no enqueue event at all (before 6.1).
    A netem's random loss while its queue was at its limit counts as an
    overflow: netem draws the loss first, and the data cannot tell them
    apart. A drop is told by the qdisc of the last enqueue on its device
    (before any, the first): after a qdisc was replaced, the new one's
    drops before its first enqueue are told by the old one's. Other
    drops: by the kernel's reason (a tc action: a policer or filter; a
    netfilter rule; the stack's own). @limit: the limit, with where it
    came from, or None"""
    if not dev:
        if why.startswith("TC_"):
            return "tc action (policer or filter)", None
        if why == "NETFILTER_DROP":
            return "netfilter rule", None
        return "the stack's (its reason)", None
    if not queues.enq_seen:
        return UNTOLD, None
    qlen, backlog, _, plen = fill or (0, 0, None, 0)
    name = qd or ""
    lim = limits.get((ns, dev, name))
    if lim is None:
        top = queues.longest.get((ns, dev, name))
        if not top:
            return BELOW_LONGEST, None
        return (AT_LONGEST if qlen >= top else BELOW_LONGEST,
                "%d packets (the longest queue in the log)" % top)
    if lim["unit"] == "packets":
        full = qlen >= lim["limit"]
    else:
        full = backlog + plen > lim["limit"]
    text = "%d %s (tc)" % (lim["limit"], lim["unit"])
    if full:
        return OVERFLOW, text
    if name.startswith("netem ") and lim.get("loss"):
        return RANDOM, text
    return BELOW, text


_TC_BYTES = {"b": 1, "Kb": 1024, "Mb": 1024 * 1024}


def qdisc_limits(text, devices, hosts):
    """the limits in `tc qdisc show`'s @text (a run's <...>_qdisc.txt):
    {(netns inode, ifindex, "kind handle"): {"limit", "unit" (packets or
    bytes), "loss" (a netem's configured loss, %)}}, the devices placed by
    @devices (topology.json's: {name: {"netns": name, "ifindex"}}) and
    @hosts ({netns inode: "role (name)"}); a qdisc whose line gives no
    limit (tbf gives its latency) is left out"""
    inode = {}
    for ino, name in (hosts or {}).items():
        m = re.search(r"\((\S+)\)$", name)
        if m:
            inode[m.group(1)] = ino
    out = {}
    for line in text.splitlines():
        m = re.match(r"qdisc (\S+) ([0-9a-f]+):([0-9a-f]*) dev (\S+) ", line)
        lm = re.search(r" limit ([0-9]+)(p|b|Kb|Mb)?\b", line)
        if not m or not lm:
            continue
        d = (devices or {}).get(m.group(4))
        if not isinstance(d, dict) or d.get("netns") not in inode:
            continue
        unit = "bytes" if lm.group(2) in _TC_BYTES else "packets"
        n = int(lm.group(1)) * _TC_BYTES.get(lm.group(2), 1)
        loss = re.search(r" loss (?:random )?([0-9.]+)%", line)
        out[(inode[d["netns"]], str(d["ifindex"]), "%s %s:%s" % (
            m.group(1), m.group(2), m.group(3) or "0"))] = {
            "limit": n, "unit": unit,
            "loss": float(loss.group(1)) if loss else 0.0}
    return out


def _label(key):
    fam, la, lp, ra, rp = key[:5]
    if fam == "6":
        return "[%s]:%s -> [%s]:%s" % (la, lp, ra, rp)
    return "%s:%s -> %s:%s" % (la, lp, ra, rp)


# the kernel's TCP states, by number (include/net/tcp_states.h)
TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV",
              4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE",
              8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING",
              12: "NEW_SYN_RECV"}


def _acked(f, ts, acked):
    """f.acked_t/acked_b: @acked (bytes) at @ts (s from the log's start)
    if it grew"""
    if acked and (not f.acked_b or acked > f.acked_b[-1]):
        f.acked_t.append(ts)
        f.acked_b.append(acked)


def _ca_seen(f, t, ca):
    """a record of @f's socket with a TCP part (its TCP records and TCP
    events) showed congestion state @ca at @t: a change from its last
    such record is an entry into @ca (Flow.ca_entered, ca_changes)"""
    if ca == f.ca_prev or not ca:
        return
    if f.ca_prev is not None:
        name = _CA_STATES.get(int(ca), ca)
        f.ca_entered[name] += 1
        if len(f.ca_changes) < _MAX_CA_CHANGES:
            f.ca_changes.append((t, name))
    f.ca_prev = ca


def _tcp(res, f, r, t, t0, csvs):
    f.tcp_records += 1
    f.state = r.int_("state")
    f.advmss = r.int_("advmss") or f.advmss
    vals = {n: r.int_(n) for n in _TCP_INTS}
    f.last_tcp = vals
    f.ca_names.add(r["ca_name"])
    seq, end = r.int_("seq"), r.int_("end_seq")
    if r["event"] == "tcp_out":
        f.sent_tcp = True
        if f.data_out_first is None:
            if f.tcp_records == 1 and f.state == 2:   # SYN_SENT: its SYN
                f.syn_out = t
            if r.int_("len"):       # (a Fast Open SYN's data too)
                f.data_out_first = t
        if end != seq:
            f.ca_bytes[r["ca_name"]] += (end - seq) & 0xffffffff
            if f.sent.bump((seq, end)) > 1:
                f.retx.pop((seq, end), None)
                f.retx[(seq, end)] = f.sent[(seq, end)]
            f.inflight_max = max(f.inflight_max, _behind(vals["snd_nxt"],
                                                         vals["snd_una"]))
            if f.retx:
                _settle_retx(res, f)
        f.out_ranges[(seq, end)] += 1
        if not f.out_ranges[(seq, end)]:
            del f.out_ranges[(seq, end)]
    else:
        _tcp_in_range(f, seq, end)
        if f.tcp_in_first is None:
            f.tcp_in_first = t
    if r["event"] == "tcp_in" and end != seq:
        f.arrived += (end - seq) & 0xffffffff
    if r.get("chrono"):
        if f.limits is None:
            f.limits = Limits(f.first_ns)
        f.limits.record(t, r, vals)
    _ca_seen(f, t, r["ca_state"])
    ts = (t - t0) / 1e9
    _acked(f, ts, vals["bytes_acked"])
    if r["event"] == "tcp_in" and vals["rtt_us"] > 0:
        f.rtt_samples[vals["rtt_us"]] += 1
    dl = r.get("delivered")
    f.series.add(ts, vals["cwnd"], vals["srtt_us"],
                 vals["bytes_acked"], vals["bytes_received"], f.arrived,
                 int(dl) * vals["mss"] if dl else None)
    ss = vals["ssthresh"]
    if f.ca_first is None and ss != _SENTINELS["ssthresh"] and ss and \
            vals["cwnd"] >= ss and r["ca_state"] == "0":
        f.ca_first = ts
    f.detail.add(ts,
                 None if ss == _SENTINELS["ssthresh"] else ss,
                 vals["rtt_us"] or None if r["event"] == "tcp_in" else None,
                 vals["snd_nxt"], vals["snd_una"])
    m = vals["min_rtt_us"]
    if m and m != _SENTINELS["min_rtt_us"] and (
            f.min_rtt_us is None or m < f.min_rtt_us):
        f.min_rtt_us = m
    if vals["srtt_us"]:
        f.srtt_sum += vals["srtt_us"]
        f.srtt_n += 1
        f.srtt_max = max(f.srtt_max, vals["srtt_us"])
    f.cwnd_max = max(f.cwnd_max, vals["cwnd"])
    if r["event"] == "tcp_in" and end != seq:
        if f.data_in_first is None:
            f.data_in_first = t
        f.data_in_last = t
    if f.listener():
        return      # a listening socket: no peer, no CSV
    w = csvs.writer(f)
    # a field the log does not have (a ttprobe log's) is written empty
    w.writerow([_rel(t, t0), _epoch(t), r["event"],
                _STATES.get(f.state, f.state),
                _CA_STATES.get(r.int_("ca_state"), r["ca_state"])
                if r["ca_state"] else ""] +
               [_csv_val(n, vals[n]) if r[n] != "" else ""
                for n in _TCP_INTS] + [r["ca_name"]] +
               [_csv_val(n, r.get(n)) for n in _RATE_COLS])


def _in_take(f, seq, end):
    f.in_pending[(seq, end)] -= 1
    if not f.in_pending[(seq, end)]:
        del f.in_pending[(seq, end)]
    ends = f.in_starts[seq]
    ends[end] -= 1
    if not ends[end]:
        del ends[end]
        if not ends:
            del f.in_starts[seq]


def _tcp_in_range(f, seq, end):
    """a range TCP received: the device's record of it, or of the
    consecutive segments TCP coalesced into it; else TCP saw it alone"""
    if f.in_pending.get((seq, end), 0) > 0:
        _in_take(f, seq, end)
        if end != seq:
            f.got_tcp.bump((seq, end))
        return
    span = (end - seq) % 2 ** 32
    chain, cur = [], seq
    while cur != end and len(chain) < 256:
        step = None
        for e in f.in_starts.get(cur, ()):
            if 0 < (e - cur) % 2 ** 32 <= (end - cur) % 2 ** 32:
                step = e
                break
        if step is None:
            break
        chain.append((cur, step))
        cur = step
    if span and cur == end:
        for s_, e_ in chain:
            _in_take(f, s_, e_)
            f.got_tcp.bump((s_, e_))
    else:
        f.in_tcp_only += 1
        if span:
            f.got_tcp.bump((seq, end))


def _pkt(f, r, t, ev, layer):
    if r["seq"] and layer == "dev":
        seq, end = r.int_("seq"), r.int_("end_seq")
        if ev == "dev_out":
            # before the socket's first transmit: its request socket's
            # SYN-ACK, which TCP's transmit probe does not see
            if f.sent_tcp:
                f.out_ranges[(seq, end)] -= 1
                if not f.out_ranges[(seq, end)]:
                    del f.out_ranges[(seq, end)]
        else:
            if end != seq:
                f.got_dev.bump((seq, end))
            f.in_pending[(seq, end)] += 1
            f.in_starts.setdefault(seq, Counter())[end] += 1
            f.in_high = _raised(f.in_high, end)
            while f.in_pending:
                k = next(iter(f.in_pending))
                if _behind(f.in_high, k[1]) <= _WINDOW:
                    break
                del f.in_pending[k]
                ends = f.in_starts[k[0]]
                del ends[k[1]]
                if not ends:
                    del f.in_starts[k[0]]
    if ev not in ("dev_in", "ip_in") or f.key[0] != "4":
        return
    # Monarch's test: the peer's socket numbers its packets (IPv4 ID, +1
    # per segment); a jump means packets lost on their way to this host.
    # ID 0 is no number (a request socket's SYN-ACK, a reset or a
    # TIME_WAIT reply from the stack's control socket, none with data)
    # unless it is the socket's count wrapping from 65535 to 0: a packet
    # with data, or one due within 256 (skipping it there made a false
    # hole, seen in CI: a peer's IDs from 64810 on; and, when the packet
    # before it was lost, one hole more than lost, seen by make
    # check-long); a jump of 256 or more is a renumbering, not loss.
    # Packets handled on different CPUs may be recorded out of order: an
    # ID that comes late fills its hole; only holes never filled count.
    # The IDs are counted on from the first one, past 65535 (the next ID
    # due and the holes are such counts): a hole more than 256 behind the
    # next due is no longer filled, and is kept as a number (id_lost).
    ip_id = r.int_("ip_id")
    want = f.peer_id.get(layer)
    payload = (r.int_("end_seq") - r.int_("seq")) % 2 ** 32 \
        if r["seq"] else 0
    if not ip_id and (want is None or (not payload and
                                       -want % 65536 >= 256)):
        return
    segs = max(1, -(-payload // f.advmss)) if f.advmss else 1
    holes = f.id_holes.setdefault(layer, {})
    if want is None:
        f.peer_id[layer] = ip_id + segs
        return
    ahead = (ip_id - want) % 65536
    if ahead < 256:
        for k in range(ahead):
            holes[want + k] = t
        want = f.peer_id[layer] = want + ahead + segs
        while holes:
            first = next(iter(holes))
            if first >= want - 256:
                break
            t1 = holes.pop(first)
            lost = f.id_lost.setdefault(layer, [0, t1])
            lost[0] += 1
            lost[1] = min(lost[1], t1)
    elif ahead >= 65536 - 256:
        late = want - (65536 - ahead)
        filled = 0
        for k in range(segs):       # a late packet
            filled += holes.pop(late + k, None) is not None
        if filled:
            f.id_late[layer] = f.id_late.get(layer, 0) + 1
    else:
        f.peer_id[layer] = want + ahead + segs      # renumbered


def _namespaces(res, ns_events):
    """name each flow's host; res.namespaces: per namespace its host,
    its events, its connection ends and what it is (a host: connection
    ends, or a socket's records with none, a listener's; forwarding: the
    packets of others' connections only; else nothing of a connection); a
    note when the log holds several, saying which is which; a note when
    no connection's end is in the log, or only one end of some"""
    ends = Counter(f.netns for f in res.tcp_flows())
    # namespaces with any socket's records (TCP, application, or TCP's
    # decisions: a listener's state, say): hosts, even with no connection
    socks = {f.netns for f in res.flows.values() if f.has_socket()} | \
        {k[5] or "" for k in res.sock_keys.values()}
    pkts = {f.netns for f in res.flows.values() if not f.has_socket()}
    for f in res.flows.values():
        f.host = res.host_name(f.netns)

    def role(ns):
        if ends.get(ns):
            return "host"
        if ns in socks:
            return "host, no connection"
        return "forwarding" if ns in pkts else "no connection"
    res.namespaces = [{"netns": ns, "host": res.host_name(ns),
                       "events": n, "connection_ends": ends.get(ns, 0),
                       "role": role(ns)}
                      for ns, n in sorted(ns_events.items()) if ns]
    _one_host(res)
    if len(res.namespaces) < 2:
        return
    hosts = ["%s (%d connection end%s)" % (
        x["host"], x["connection_ends"],
        "" if x["connection_ends"] == 1 else "s")
        for x in res.namespaces if x["role"] == "host"]
    idle = [x["host"] for x in res.namespaces
            if x["role"] == "host, no connection"]
    fwd = [x["host"] for x in res.namespaces if x["role"] == "forwarding"]
    other = [x["host"] for x in res.namespaces
             if x["role"] == "no connection"]
    res.log_reasons.append(Reason(NOTE, (
        "records of %d network namespaces, analysed apart: the connections' "
        "ends are in %s%s%s%s" % (
            len(res.namespaces), ", ".join(hosts) or "none",
            "; %s had sockets but no connection in the log (a listener's "
            "records, say)" % ", ".join(idle) if idle else "",
            "; %s saw their packets only (forwarding): their records are "
            "in no connection end's numbers" % ", ".join(fwd) if fwd
            else "",
            "; %s had no socket's and no connection's packet records"
            % ", ".join(other) if other else ""))))


def _one_host(res):
    """what a log without both ends of its connections can tell: a note
    when it has no connection's end (a router's log, or a host's without
    the tcp and app events), and when some ends have no peer in it (one
    host's view: where retransmitted segments went and whether the data
    was all read need the peer's records)"""
    if res.kind != "magnet":
        return      # ttprobe's and web10g's logs say what they lack
    flows = [f for f in res.tcp_flows() if not f.listener()]
    if not flows and res.records:
        pkts = sum(1 for f in res.flows.values() if not f.has_socket())
        res.log_reasons.append(Reason(NOTE, (
            "no connection's end is in this log (%s): no per-connection "
            "numbers, throughput, figures or loss notes; what it tells is "
            "where packets waited and died (the queues and drops tables, "
            "with events qdisc and drop)" % (
                "the packets of %d flows only, a flow a direction of a "
                "connection: a router's records, or a host's without the "
                "tcp and app events" % pkts if pkts
                else "no connection's packets either"))))
        return
    alone = [f for f in flows if res.alone(f)]
    if alone:
        res.log_reasons.append(Reason(NOTE, (
            "%s no peer in this log (its host was not recorded, or not with "
            "the tcp events): for %s no note says where retransmitted "
            "segments went or whether the peer's application read "
            "everything, and a sender's throughput is counted from what its "
            "ACKs said was delivered, a receiver's from the data arriving "
            "at its TCP" % (
                "the connection end has" if len(flows) == 1 else
                "all %d connection ends have" % len(flows)
                if len(alone) == len(flows) else
                "%d of the %d connection ends have" % (len(alone),
                                                       len(flows)),
                "it" if len(alone) == 1 else "them"))))


def _peer_ended(res, f):
    """the other end of @f's connection, in the same log, has ended (a
    reset from the peer closes a socket with no record after it)"""
    p = res.peer(f)
    return p is not None and p.state in _ENDED


def _settle_retx(res, f, final=False):
    """count into f.loss the ranges @f sent more than once that it is now
    _WINDOW / 2 past in sequence space (all of them if @final), in the
    order last sent: their sends against what the peer's device and TCP
    got of them (no copy of them is still on its way unless more than
    _WINDOW / 2 was in flight, which _loss_places says)"""
    p = None
    while f.retx:
        k = next(iter(f.retx))
        if not final and _behind(f.sent.high, k[1]) <= _WINDOW // 2:
            return
        sends = f.retx.pop(k)
        if p is None:
            p = res.peer(f) or False
        if not p or not p.tcp_records:
            f.retx_unplaced += 1
            continue
        dev = p.got_dev.get(k, 0)
        tcp = p.got_tcp.get(k, 0)
        loss = f.loss
        loss[0] += 1
        loss[1] += sends
        if "dev" in p.seen_layers:
            loss[2] += max(0, sends - dev)
            loss[3] += max(0, dev - tcp)
        else:
            loss[2] += max(0, sends - tcp)
        loss[4] += max(0, tcp - 1)


def _loss_places(res, f, cut=False):
    """with the receiving end in the log too: where @f's retransmitted
    segments had gone (a note; inaccurate in a log that is @cut, whose
    missing part may hold their arrivals), and whether the analysis could
    tell it exactly (a reason more if not)"""
    _settle_retx(res, f, True)
    p = res.peer(f)
    segs, sends, net, stack, spurious = f.loss
    if not segs or p is None or not p.tcp_records:
        return
    dev_seen = "dev" in p.seen_layers
    f.reasons.append(Reason(INACCURATE if cut else NOTE, (
        "%d segments retransmitted (%d sends): %d sends lost between the "
        "hosts%s, %d retransmissions spurious (the segment had reached the "
        "receiver's TCP)%s%s" % (
            segs, sends, net,
            ", %d lost in the receiver's stack (its device got them, its TCP "
            "did not)" % stack if dev_seen else "", spurious,
            "; %d more retransmitted before the receiver's first record, "
            "not placed" % f.retx_unplaced if f.retx_unplaced else "",
            _CUT if cut else ""))))
    why = []
    if f.inflight_max > _WINDOW // 2:
        why.append("%d bytes were in flight at once, a copy may have "
                   "arrived after its segment was counted" % f.inflight_max)
    if f.sent.overflowed or p.got_dev.overflowed or p.got_tcp.overflowed:
        why.append("more than %d segments were in that space at once"
                   % _WINDOW_KEYS)
    if why:
        f.reasons.append(Reason(INACCURATE, (
            "where the retransmitted segments went is approximate: the "
            "analysis counts each segment's sends and arrivals within %d "
            "MiB of sequence space, and %s" % (_WINDOW >> 20,
                                              " and ".join(why)))))


def _beside(path, suffix):
    """the file magnet-exp run saved beside the log @path
    (<...>_magnet.bin[.gz] -> <...>@suffix), or None"""
    for ext in ("_magnet.bin.gz", "_magnet.bin"):
        if path.endswith(ext):
            cand = path[:-len(ext)] + suffix
            return cand if os.path.exists(cand) else None
    return None


def stats_file(path):
    """the statistics magnet-exp run saved beside the log @path
    (<...>_magnet_stats.txt), or None"""
    return _beside(path, "_magnet_stats.txt")


def qdisc_file(path):
    """the qdiscs magnet-exp run saved beside the log @path (the router's
    `tc -s qdisc show` at the run's end: <...>_qdisc.txt), or None"""
    return _beside(path, "_qdisc.txt")


_TC_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def configured_rates(text):
    """the rates configured in `tc qdisc show`'s @text: [{"qdisc",
    "dev", "mbit_s"}] per qdisc line with a "rate N[KMG]bit" (netem's,
    tbf's): what the qdisc lets through, as it counts (whole frames)"""
    out = []
    for line in text.splitlines():
        m = re.match(r"qdisc (\S+) \S+ dev (\S+) .*? rate "
                     r"([0-9.]+)([KMG]?)bit\b", line)
        if m:
            out.append({"qdisc": m.group(1), "dev": m.group(2),
                        "mbit_s": float(m.group(3)) *
                        _TC_UNITS[m.group(4)] / 1e6})
    return out


def reconcile_stats(res, text):
    """@text: /proc/net/magnet_stats as magnet-exp run saves it at a run's
    end (after flush, before finish, the reader still reading). Every
    event the kernel had written by then must be in the log, unless a
    reset discarded it (the log's RESET records say how many) or an open
    did (its "discarded open"); fewer mean the reader stopped before it
    read them all: it never got finish, or it was killed. Adds that reason
    to the log's; returns the kernel's count, or None if @text has none"""
    written = at_open = None
    for line in text.splitlines():
        f = line.split("\t")
        try:
            if f[0] == "total" and len(f) >= 3:
                written = int(f[2])
            elif f[0] == "discarded" and f[1].startswith("open "):
                at_open = int(f[1][5:])
        except (IndexError, ValueError):
            return None
    if written is None:
        return None
    held = res.events + res.discarded + (at_open or 0)
    if held < written:
        res.log_reasons.append(Reason(INACCURATE, (
            "the kernel had written %d records when the run ended, the log "
            "holds %d%s: its reader stopped before it had read them all (it "
            "never got finish, or it was killed)" % (
                written, res.events, " (and %d discarded)" % (
                    held - res.events) if held > res.events else "")),
            res.t_end))
    return written


def _cut_short(res, f, cut=False):
    """a transfer cut short: the peer's application read less than this
    end's wrote (iperf3's server closes its data connection when the
    client says it is done writing, with data still in flight: resets);
    not said of a log that is @cut (its missing part may hold the reads)"""
    peer = res.peer(f)
    if not (f.app_written and peer and peer.app_events):
        return
    if cut:
        f.reasons.append(Reason(INACCURATE, (
            "whether the peer's application read all that this end's wrote "
            "is not said: the log is cut (the records have %d of the %d "
            "bytes read; the rest may be in its missing part)" % (
                peer.app_read, f.app_written)), peer.last_ns))
        return
    f.undelivered = f.app_written - peer.app_read
    if f.undelivered > 0:
        f.reasons.append(Reason(NOTE, (
            "the transfer was cut short: the peer's application read %d of "
            "the %d bytes this end's application wrote, %d never delivered"
            "%s" % (peer.app_read, f.app_written, f.undelivered,
                    " (the peer closed, in state CLOSE: a reset)"
                    if peer.state == 7 else "")), peer.last_ns))


_CUT = ("; the log is cut, so this may be the cut's doing: records from "
        "before its end are missing too (each CPU's are written in turns)")


def _finish(res, gaps, end):
    # a log cut short, or unreadable past a point: the conclusions its
    # missing part could have caused are withheld or marked
    cut = end.truncated or end.corrupt
    mark = _CUT if cut else ""
    for f in res.flows.values():
        f.reasons = []
        for start, t, what in gaps:
            # the records went missing after @start; a flow alive then,
            # or never seen to end, may have lost some of its own
            if f.first_ns <= t and (f.last_ns >= start or
                                    f.state not in _ENDED):
                f.reasons.append(Reason(INACCURATE, what + " (during this "
                                        "connection: some may be its own)", t))
        if end.truncated or end.corrupt:
            f.reasons.append(Reason(INACCURATE, "the log ends early: this "
                                    "connection's end may be missing",
                                    res.t_end))
        elif f.tcp_records and f.state not in _ENDED and not _peer_ended(
                res, f):
            f.reasons.append(Reason(
                INDETERMINATE, "the capture ended with the connection %s: its "
                "end is not in the log" % _STATES.get(f.state, f.state),
                f.last_ns))
        if "tcp" in f.seen_layers and "dev" in res.layers:
            n = sum(v for v in f.out_ranges.values() if v > 0)
            if n:
                f.reasons.append(Reason(INACCURATE, (
                    "sent: %d segments seen at TCP and never at the device"
                    "%s" % (n, mark))))
            n = f.in_tcp_only
            if n:
                f.reasons.append(Reason(INACCURATE, (
                    "received: %d segments seen at TCP and never at the "
                    "device%s" % (n, mark))))
        if f.app_events and f.last_tcp:
            sent = f.last_tcp["bytes_sent"] - f.last_tcp["bytes_retrans"]
            if sent > f.app_written:
                f.reasons.append(Reason(INACCURATE, (
                    "TCP sent %d bytes of new data, the application wrote %d: "
                    "application records are missing%s" % (
                        sent, f.app_written, mark))))
            if f.app_read > f.last_tcp["bytes_received"]:
                f.reasons.append(Reason(INACCURATE, (
                    "the application read %d bytes, TCP received %d: TCP "
                    "records are missing%s" % (
                        f.app_read, f.last_tcp["bytes_received"],
                        mark))))
        _cut_short(res, f, cut)
        _loss_places(res, f, cut)
        layer = "dev" if "dev" in f.peer_id else "ip"
        holes = f.id_holes.get(layer, {})
        lost = f.id_lost.get(layer, [0])
        if holes or lost[0]:
            # the data sender's peer sends the ACKs: their loss is on the
            # return path, which Monarch's emulation must not have; the
            # receiver's peer sends the data: loss on the forward path
            sender = f.last_tcp and (f.last_tcp["bytes_sent"] >
                                     f.last_tcp["bytes_received"])
            f.reasons.append(Reason(INACCURATE if sender else NOTE, (
                "loss on the %s path: %d of the peer's IP IDs missing (%s "
                "layer): packets from the peer lost before they reached "
                "this host%s" % ("return" if sender else "forward",
                                 len(holes) + lost[0], layer,
                                 mark)),
                min(list(holes.values()) + lost[1:])))
