"""analyse.py's per-record pass in C: userspace/magnet-pass.

magnet-pass reads the magnet text (ttpb2ascii -f magnet's output, or a
text log as it is), keeps per record what analyse._pass() keeps, and
writes that state as JSON (and the flows' CSVs); this module runs it and
puts the state into a LogAnalysis, as _pass() would have left it, for
analyse()'s end (_finish) to take over. tests/unit/test_pass.py holds
every member against _pass() on the unit-test logs, and analyse()'s
output files against those of the Python pass.

MAGNET_EXP_PASS=python makes analyse() use the Python pass; ttprobe's and
web10g's logs always take it (their lines are made magnet rows in
textlog.py). The bounds magnet-pass keeps to are analyse.py's own, passed
on each run (a test that makes one small makes both passes' small).
"""
import json
import os
import shutil
import subprocess
from array import array
from collections import Counter, OrderedDict

from magnet_exp import modulation, plots, textlog, view
from magnet_exp.limits import Limits

_HERE = os.path.dirname(os.path.abspath(__file__))


def find():
    """magnet-pass's path: MAGNET_PASS, beside the package in the source
    tree (python/ -> userspace/), installed beside it (lib/magnet/), or on
    PATH; None if none"""
    env = os.environ.get("MAGNET_PASS")
    if env:
        return env
    for cand in (os.path.join(_HERE, "..", "..", "userspace", "magnet-pass"),
                 os.path.join(_HERE, "..", "..", "magnet-pass")):
        if os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    return shutil.which("magnet-pass")


def usable(path):
    """whether the C pass reads the log at @path: a magnet log (binary,
    or its text), magnet-pass found, MAGNET_EXP_PASS not "python" """
    if os.environ.get("MAGNET_EXP_PASS") == "python" or not find():
        return False
    return not textlog.is_ttprobe(path) and not textlog.is_web10g(path)


def _bounds(an):
    """analyse.py's bounds, as magnet-pass's --bound takes them"""
    return {"pending": an._Pending.LIMIT,
            "buckets": view.Envelope.__init__.__defaults__[0],
            "sent": an.Received.SENT, "sends": an.OneWay.SENDS,
            "marks": an.MAX_MARKS, "ca_changes": an._MAX_CA_CHANGES,
            "latency": modulation.Latency.PENDING,
            "points": plots.MAX_POINTS, "window": an._WINDOW,
            "window_keys": an._WINDOW_KEYS}


def run(an, res, path, outdir, ttpb2ascii=None, devices=None):
    """magnet-pass over the log at @path into @res (an analyse.LogAnalysis;
    @an: the analyse module), the CSVs into @outdir; returns (gaps,
    ns_events, end) as analyse._pass() does"""
    argv = [find(), "--name", path, "--csv", outdir]
    if devices is not None:
        argv += ["--devices", ",".join(sorted(devices)) or ","]
    for ns, name in sorted(res.hosts.items()):
        argv += ["--host", "%s=%s" % (ns, name)]
    for name, v in sorted(_bounds(an).items()):
        argv += ["--bound", "%s=%d" % (name, v)]
    end = textlog.LogEnd()
    feed = None
    text = textlog.is_text(path)
    if text:
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        if gz:
            feed = subprocess.Popen(["gzip", "-dc", path],
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        else:
            argv.append(path)
    else:
        feed = subprocess.Popen(
            [textlog.find_ttpb2ascii(ttpb2ascii), "-f", "magnet", path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p = subprocess.Popen(argv, stdin=feed.stdout if feed else None,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if feed:
        feed.stdout.close()
    out, err = p.communicate()
    if feed and feed.stderr:
        end.message = feed.stderr.read().decode(errors="replace").strip()
        feed.stderr.close()
    code = feed.wait() if feed else None
    if p.returncode:
        raise RuntimeError("magnet-pass failed (exit %d): %s" % (
            p.returncode, err.decode(errors="replace").strip()))
    st = json.loads(out)
    if text:
        # magnet-pass read the text: its end is the log's (gzip's own
        # failure, a corrupt file, as a line that is not a record)
        end.code = st["end"]["code"]
        end.message = st["end"]["message"]
        if feed and code and not end.code:
            end.code = 2
            end.message = "%s: gzip -dc exited %d" % (path, code)
    else:
        end.code = code
    return load(an, res, st) + (end,)


def _stat(d):
    st = modulation.Stat()
    st.n, st.sum, st.lo, st.hi = d["n"], d["sum"], d["lo"], d["hi"]
    st.bins = Counter({b: n for b, n in d["bins"]})
    return st


def _envelope(d):
    e = view.Envelope()
    e.n, e.width, e.t0 = d["n"], d["width"], d["t0"]
    e.pts = [list(p) for p in d["pts"]]
    return e


def _series(d):
    s = plots.Series()
    s.pts = [tuple(p) for p in d["pts"]]
    s.stride, s.skip = d["stride"], d["skip"]
    return s


def _window(an, d):
    w = an._Window()
    for seq, end, n in d["d"]:
        w[(seq, end)] = n
    w.high, w.overflowed = d["high"], d["overflowed"]
    return w


def _pending(an, d, val=lambda v: v):
    p = an._Pending()
    p.d = {tuple(k): [val(v) for v in q] for k, q in d["d"]}
    p.n = d["n"]
    return p


def _sock(k):
    return tuple(k) if isinstance(k, list) else k


def _flow(an, d):
    f = an.Flow(tuple(d["key"]), d["first_ns"])
    for k in ("last_ns", "app_events", "app_written", "app_read",
              "app_one_sent", "app_one_read", "ca_prev", "ca_changes",
              "tcp_records", "state", "advmss", "sent_tcp", "inflight_max",
              "arrived", "syn_out", "tcp_in_first", "data_out_first",
              "data_in_first", "data_in_last", "min_rtt_us", "srtt_sum",
              "srtt_n", "srtt_max", "cwnd_max", "ca_first", "loss",
              "retx_unplaced", "in_tcp_only", "peer_id", "id_lost",
              "id_late"):
        setattr(f, k, d[k])
    f.ca_changes = [tuple(c) for c in d["ca_changes"]]
    f.seen_layers = set(d["seen_layers"])
    f.ca_entered = Counter(dict(d["ca_entered"]))
    f.last_tcp = d["last_tcp"]
    f.ca_names = set(d["ca_names"])
    f.ca_bytes = Counter(dict(d["ca_bytes"]))
    f.rtt_samples = Counter(dict(d["rtt_samples"]))
    f.acked_t = array("d", d["acked_t"])
    f.acked_b = array("q", d["acked_b"])
    f.series = _series(d["series"])
    f.detail = _series(d["detail"])
    f.sent = _window(an, d["sent"])
    f.got_dev = _window(an, d["got_dev"])
    f.got_tcp = _window(an, d["got_tcp"])
    f.retx = OrderedDict(((s, e), n) for s, e, n in d["retx"])
    f.out_ranges = Counter({(s, e): n for s, e, n in d["out_ranges"]})
    f.in_pending = Counter({(s, e): n for s, e, n in d["in_pending"]})
    f.in_starts = {s: Counter(dict(ends)) for s, ends in d["in_starts"]}
    f.id_holes = {la: dict(h) for la, h in d["id_holes"].items()}
    if d["limits"] is not None:
        li = Limits(d["limits"]["first_ns"])
        for k, v in d["limits"].items():
            setattr(li, k, array("q", v) if k in ("st", "sb", "sr", "ss")
                    else v)
        f.limits = li
    return f


def load(an, res, st):
    """the state magnet-pass wrote (@st, its JSON) into @res; returns
    (gaps, ns_events)"""
    lg = st["log"]
    for k in ("records", "events", "lost", "misses", "discarded", "t0",
              "t_end"):
        setattr(res, k, lg[k])
    res.layers = set(lg["layers"])
    ns_events = Counter(dict(lg["ns_events"]))
    gaps = [tuple(g) for g in lg["gaps"]]
    res.log_reasons += [an.Reason(an.INACCURATE, what, t)
                        for _, t, what in gaps]
    for d in st["flows"]:
        f = _flow(an, d)
        res.flows[f.key] = f
        res.live.setdefault(f.key[:5], []).append(f)
    q, qs = res.queues, st["queues"]
    q.t0 = res.t0 if res.t0 is not None else 0
    q.devout = _pending(an, qs["devout"])
    q.toward = _pending(an, qs["toward"])
    q.enq = _pending(an, qs["enq"], tuple)
    q.stats = {tuple(k): _stat(v) for k, v in qs["stats"]}
    q.ahead = {tuple(k): Counter(dict(v)) for k, v in qs["ahead"]}
    q.handed = Counter({tuple(k): n for k, n in qs["handed"]})
    q.left = Counter({tuple(k): n for k, n in qs["left"]})
    q.through = {tuple(k): _stat(v) for k, v in qs["through"]}
    q.fill = {tuple(k): tuple(v) for k, v in qs["fill"]}
    q.first = {tuple(k): v for k, v in qs["first"]}
    q.longest = Counter({tuple(k): n for k, n in qs["longest"]})
    q.enq_seen = qs["enq_seen"]
    q.sojourns = {tuple(k): _envelope(v) for k, v in qs["sojourns"]}
    rc, rs = res.received, st["received"]
    rc.d = {(tuple(k[:5]), k[5]): [e[0], [list(x) for x in e[1]], e[2]]
            for k, e in rs["d"]}
    rc.end_ns = {tuple(k): ns for k, ns in rs["end_ns"]}
    rc.at_send = OrderedDict(((tuple(k[:5]), int(k[5]), int(k[6])), v)
                             for k, v in rs["at_send"])
    ow, os_ = res.oneway, st["oneway"]
    ow.sender_ns = {tuple(k): ns for k, ns in os_["sender_ns"]}
    ow.sends = {(tuple(k[:5]), k[5]): [v[0], v[1], array("q", v[2]),
                                       array("q", v[3]), array("q", v[4]),
                                       bytearray(v[5])]
                for k, v in os_["sends"]}
    ow.delays = {(tuple(k[:5]), k[5], k[6]): Counter(dict(c))
                 for k, c in os_["delays"]}
    ow.again = Counter({(tuple(k[:5]), k[5]): n for k, n in os_["again"]})
    dc = st["decided"]
    res.marks = [tuple(m) for m in dc["marks"]]
    res.marks_left_out = dc["marks_left_out"]
    res.drops = Counter({
        (tuple(k[:5]), k[5], k[6], k[7], k[8], k[9],
         tuple(fill) if fill else None): n for k, fill, n in dc["drops"]})
    res.sock_keys = {_sock(s): tuple(k) for s, k in dc["sock_keys"]}
    res.state_paths = {_sock(s): p for s, p in dc["state_paths"]}
    res.decisions = {_sock(s): Counter(dict(c)) for s, c in dc["decisions"]}
    res.rcvbufs = {_sock(s): n for s, n in dc["rcvbufs"]}
    res.rto_times = {_sock(s): n for s, n in dc["rto_times"]}
    res.cong_socks = {_sock(s[0]) for s in dc["cong_socks"]}
    mo, ms = res.modulation, st["modulation"]

    def mkey(k):
        return (tuple(k[0]), k[1], k[2])
    mo.size = {mkey(k): _stat(v) for k, v in ms["size"]}
    mo.gap = {mkey(k): _stat(v) for k, v in ms["gap"]}
    mo.asked = {mkey(k): _stat(v) for k, v in ms["asked"]}
    mo.last = {mkey(k): t for k, t in ms["last"]}
    la, ls = res.latency, st["latency"]
    la.pending = {(tuple(p[0]), p[1], p[2], p[3]): (p[4], p[5])
                  for p in ls["pending"]}
    la.stats = {tuple(k): _stat(v) for k, v in ls["stats"]}
    la.reads = {tuple(k): [tuple(x) for x in v] for k, v in ls["reads"]}
    return gaps, ns_events
