#!/usr/bin/python3
"""userspace/magnet-pass (the analysis's per-record pass in C, in the
making) against python/magnet_exp/analyse.py's _pass() on the same logs:
every member magnet-pass says it covers ("covers" in its JSON) must equal
what the Python pass left in its LogAnalysis, its flows and its gaps.

usage: test_pass.py TTPB2ASCII MAGNET_PASS LOG... (MAGNET_PASS: the build whose state is held; analyse() runs the one cpass finds)
A binary log is made the magnet text with TTPB2ASCII -f magnet first, so
both passes read the same lines; a .txt log is read as it is. Also the
long flow test_exp.py writes (20,000 segments: sequence and IP-ID wraps),
and the same flow with some devices left out (--devices)."""
import contextlib
import io
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from magnet_exp import analyse, plots, view  # noqa: E402


# the Python pass's bounds that magnet-pass's --bound sets: (module or
# class, attribute) for each name
BOUNDS = {"pending": (analyse._Pending, "LIMIT"),
          "sent": (analyse.Received, "SENT"),
          "sends": (analyse.OneWay, "SENDS"),
          "marks": (analyse, "MAX_MARKS"),
          "ca_changes": (analyse, "_MAX_CA_CHANGES"),
          "latency": (analyse.Latency, "PENDING"),
          "points": (plots, "MAX_POINTS"),
          "window": (analyse, "_WINDOW"),
          "window_keys": (analyse, "_WINDOW_KEYS")}


@contextlib.contextmanager
def bounded(bounds):
    """the Python pass's bounds set to @bounds ({name: N}) meanwhile (and
    so magnet-pass's, when analyse() runs it: cpass passes them on)"""
    saved = {}
    try:
        for name, v in (bounds or {}).items():
            if name == "buckets":
                saved[name] = view.Envelope.__init__.__defaults__
                view.Envelope.__init__.__defaults__ = (v,)
            else:
                saved[name] = getattr(*BOUNDS[name])
                setattr(*BOUNDS[name], v)
        yield
    finally:
        for name, v in saved.items():
            if name == "buckets":
                view.Envelope.__init__.__defaults__ = v
            else:
                setattr(*BOUNDS[name], v)


def python_state(path, devices=None, bounds=None, hosts=None):
    """the covered members, as the Python pass leaves them, with @bounds
    ({name: N}) in place of its own"""
    res = analyse.LogAnalysis(path, hosts)
    with tempfile.TemporaryDirectory() as d, bounded(bounds):
        csvs = analyse._CsvFiles(d)
        try:
            gaps, ns_events, end = analyse._pass(res, path, csvs,
                                                 devices=devices)
        finally:
            csvs.close()
        csv_files = _files(d)
    log = dict(records=res.records, events=res.events, lost=res.lost,
               misses=res.misses, discarded=res.discarded, t0=res.t0,
               t_end=res.t_end, layers=sorted(res.layers),
               ns_events=dict(ns_events),
               gaps=[list(g) for g in gaps])
    flows = []
    for k, f in res.flows.items():
        flows.append(dict(key=list(k), first_ns=f.first_ns,
                          last_ns=f.last_ns,
                          seen_layers=sorted(f.seen_layers),
                          app_events=f.app_events,
                          app_written=f.app_written, app_read=f.app_read,
                          app_one_sent=f.app_one_sent,
                          app_one_read=f.app_one_read,
                          ca_prev=f.ca_prev,
                          ca_entered=_pairs(f.ca_entered),
                          ca_changes=[list(c) for c in f.ca_changes],
                          tcp_records=f.tcp_records, state=f.state,
                          advmss=f.advmss, last_tcp=f.last_tcp,
                          ca_names=sorted(f.ca_names),
                          sent_tcp=f.sent_tcp, ca_bytes=_pairs(f.ca_bytes),
                          inflight_max=f.inflight_max, arrived=f.arrived,
                          syn_out=f.syn_out, tcp_in_first=f.tcp_in_first,
                          data_out_first=f.data_out_first,
                          data_in_first=f.data_in_first,
                          data_in_last=f.data_in_last,
                          rtt_samples=sorted(_pairs(f.rtt_samples)),
                          min_rtt_us=f.min_rtt_us, srtt_sum=f.srtt_sum,
                          srtt_n=f.srtt_n, srtt_max=f.srtt_max,
                          cwnd_max=f.cwnd_max, ca_first=f.ca_first,
                          acked_t=list(f.acked_t), acked_b=list(f.acked_b),
                          series=_series(f.series),
                          detail=_series(f.detail),
                          sent=_window(f.sent), got_dev=_window(f.got_dev),
                          got_tcp=_window(f.got_tcp),
                          retx=[list(k) + [n] for k, n in f.retx.items()],
                          loss=f.loss, retx_unplaced=f.retx_unplaced,
                          out_ranges=[list(k) + [n]
                                      for k, n in f.out_ranges.items()],
                          in_pending=[list(k) + [n]
                                      for k, n in f.in_pending.items()],
                          in_starts=[[k, _pairs(c)]
                                     for k, c in f.in_starts.items()],
                          in_tcp_only=f.in_tcp_only, peer_id=f.peer_id,
                          id_holes={la: _pairs(h)
                                    for la, h in f.id_holes.items()},
                          id_lost=f.id_lost, id_late=f.id_late,
                          limits=_limits(f.limits)))
    rc, ow = res.received, res.oneway
    received = dict(
        d=[[list(k5) + [ns], [e[0], [list(x) for x in e[1]], e[2]]]
           for (k5, ns), e in rc.d.items()],
        end_ns=_pairs(rc.end_ns),
        at_send=[[list(k5) + [str(a), str(b)], v]
                 for (k5, a, b), v in rc.at_send.items()])
    oneway = dict(
        sender_ns=_pairs(ow.sender_ns),
        sends=[[list(k5) + [layer], [v[0], v[1]] + [list(x) for x in v[2:]]]
               for (k5, layer), v in ow.sends.items()],
        delays=[[list(k5) + [layer, ns], _pairs(c)]
                for (k5, layer, ns), c in ow.delays.items()],
        again=[[list(k5) + [layer], n]
               for (k5, layer), n in ow.again.items()])
    def sock(k):
        return list(k) if isinstance(k, tuple) else k

    def socks(d, val=lambda v: v):
        return [[sock(k), val(v)] for k, v in d.items()]

    def drop(k):
        (k5, ns, layer, why, where, dev, fill) = k
        return [list(k5) + [ns, layer, why, where, dev],
                list(fill) if fill else None]
    decided = dict(
        marks=[list(m) for m in res.marks],
        marks_left_out=res.marks_left_out,
        drops=[drop(k) + [n] for k, n in res.drops.items()],
        sock_keys=socks(res.sock_keys, list),
        state_paths=socks(res.state_paths),
        decisions=socks(res.decisions, _pairs),
        rcvbufs=socks(res.rcvbufs), rto_times=socks(res.rto_times),
        cong_socks=sorted(([sock(k)] for k in res.cong_socks),
                          key=json.dumps))
    mo, la = res.modulation, res.latency

    def by_key(d, val):
        return sorted([list(k[0]) + list(k[1:]), val(v)]
                      for k, v in d.items())
    modulation = dict(size=by_key(mo.size, _stat), gap=by_key(mo.gap, _stat),
                      asked=by_key(mo.asked, _stat),
                      last=by_key(mo.last, lambda v: v))
    latency = dict(
        pending=[[list(k[0]), k[1], k[2], k[3], v[0], v[1]]
                 for k, v in la.pending.items()],
        stats=sorted(_pairs(la.stats, _stat)),
        reads=sorted([list(k), [list(x) for x in v]]
                     for k, v in la.reads.items()))
    return dict(log=log, flows=flows, queues=queues_state(res.queues),
                received=received, oneway=oneway, decided=decided,
                modulation=modulation, latency=latency,
                csv=dict(files=csv_files),
                end=dict(code=end.code, message=end.message))


def _pairs(d, val=lambda v: v):
    """a dict (tuple keys) as [[key as a list, value], ...] in its order"""
    return [[list(k) if isinstance(k, tuple) else k, val(v)]
            for k, v in d.items()]


def _files(d):
    """{name: its bytes} of the files in @d"""
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = f.read()
    return out


def _limits(li):
    if li is None:
        return None
    return {k: list(getattr(li, k)) if k in ("st", "sb", "sr", "ss")
            else getattr(li, k) for k in li.__slots__}


def _window(w):
    return dict(d=[list(k) + [n] for k, n in w.items()], high=w.high,
                overflowed=w.overflowed)


def _series(se):
    return dict(pts=[list(p) for p in se.pts], stride=se.stride,
                skip=se.skip)


def _stat(st):
    return dict(n=st.n, sum=st.sum, lo=st.lo, hi=st.hi,
                bins=sorted([k, v] for k, v in st.bins.items()))


def _envelope(e):
    return dict(n=e.n, width=e.width, t0=e.t0, pts=[list(p) for p in e.pts])


def _pending(p):
    return dict(n=p.n, d=_pairs(p.d, lambda q: [
        list(v) if isinstance(v, tuple) else v for v in q]))


def queues_state(q):
    return dict(devout=_pending(q.devout), enq=_pending(q.enq),
                toward=_pending(q.toward), stats=_pairs(q.stats, _stat),
                ahead=_pairs(q.ahead, _pairs), handed=_pairs(q.handed),
                left=_pairs(q.left), through=_pairs(q.through, _stat),
                fill=_pairs(q.fill, list), first=_pairs(q.first),
                longest=_pairs(q.longest), enq_seen=q.enq_seen,
                sojourns=_pairs(q.sojourns, _envelope))


def c_state(prog, path, devices=None, bounds=None, hosts=None):
    argv = [prog, "--full"] + (["--devices", ",".join(sorted(devices))]
                     if devices is not None else [])
    for ns, name in (hosts or {}).items():
        argv += ["--host", "%s=%s" % (ns, name)]
    for name, v in (bounds or {}).items():
        argv += ["--bound", "%s=%d" % (name, v)]
    with tempfile.TemporaryDirectory() as d:
        argv += ["--csv", d, path]
        # (a one-shot tool: what it holds at its exit is not freed)
        p = subprocess.run(argv, capture_output=True, text=True,
                           env=dict(os.environ,
                                    ASAN_OPTIONS="detect_leaks=0"))
        if p.returncode:
            raise AssertionError("%s: exit %d: %s" % (
                " ".join(argv), p.returncode, p.stderr))
        st = json.loads(p.stdout)
        # (--csv DIR's files)
        st["csv"] = dict(files=_files(d))
    st["log"]["layers"] = sorted(st["log"]["layers"])
    st["decided"]["cong_socks"] = sorted(st["decided"]["cong_socks"],
                                         key=json.dumps)
    # (kept per flow in C, in one dict in Python: their order is not the
    # Python pass's, and nothing depends on it)
    for m in st["modulation"]:
        st["modulation"][m] = sorted([k[0] + k[1:], v]
                                     for k, v in st["modulation"][m])
    for m in ("stats", "reads"):
        st["latency"][m] = sorted(st["latency"][m])
    st["log"]["ns_events"] = dict(st["log"]["ns_events"])
    for f in st["flows"]:
        f["seen_layers"] = sorted(f["seen_layers"])
        f["ca_names"] = sorted(f["ca_names"])
        f["rtt_samples"] = sorted(f["rtt_samples"])
    return st


def end_to_end(name, ttpb, path, devices=None, hosts=None, figures=False,
               bounds=None):
    """magnet-exp analyse (cli.analyse_one) of @path with the Python pass
    and with magnet-pass, into the same directory one after the other:
    every file it writes (but the figures' images, which matplotlib
    dates) and every line it prints must be the same; the differences,
    as lines"""
    from magnet_exp import cli
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "analysis")
        for mode in ("python", "c"):
            os.environ["MAGNET_EXP_PASS"] = mode
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed), bounded(bounds):
                    res, _ = cli.analyse_one(path, d, ttpb, figures,
                                             devices, hosts, bar=False)
                if not figures:
                    # the interactive view (with the figures otherwise):
                    # the markers, the queues' envelopes
                    view.write(res, d, "view")
            finally:
                del os.environ["MAGNET_EXP_PASS"]
            files = {n: b for n, b in _files(d).items()
                     if not n.endswith((".png", ".svg"))}
            out[mode] = (files, printed.getvalue())
            shutil.rmtree(d)
    (fp, pp), (fc, pc) = out["python"], out["c"]
    bad = []
    if pp != pc:
        bad.append("%s: analyse printed %r with the Python pass, %r with "
                   "magnet-pass" % (name, pp[:300], pc[:300]))
    for n in sorted(set(fp) | set(fc)):
        if fp.get(n) != fc.get(n):
            bad.append("%s: analyse's %s differs (%s bytes with the Python "
                       "pass, %s with magnet-pass)" % (
                           name, n, len(fp.get(n, b"")) if n in fp else
                           "none", len(fc.get(n, b"")) if n in fc else
                           "none"))
    if not fp:
        bad.append("%s: analyse wrote nothing" % name)
    return bad


def compare(name, py, c):
    """the differences, as lines"""
    bad = []
    for m in c["covers"]["log"]:
        if py["log"][m] != c["log"][m]:
            bad.append("%s: log %s: Python %r, C %r" % (
                name, m, str(py["log"][m])[:200], str(c["log"][m])[:200]))
    if len(py["flows"]) != len(c["flows"]):
        bad.append("%s: %d flows in Python, %d in C" % (
            name, len(py["flows"]), len(c["flows"])))
    for fp, fc in zip(py["flows"], c["flows"]):
        for m in c["covers"]["flow"]:
            if fp[m] != fc[m]:
                bad.append("%s: flow %s: %s: Python %r, C %r" % (
                    name, fp["key"], m, str(fp[m])[:200],
                    str(fc[m])[:200]))
    for part in c["covers"]:
        if part in ("log", "flow"):
            continue
        for m in c["covers"][part]:
            if py[part][m] != c[part][m]:
                bad.append("%s: %s %s: Python %r, C %r" % (
                    name, part, m, str(py[part][m])[:300],
                    str(c[part][m])[:300]))
    if py["end"]["code"] != c["end"]["code"]:
        bad.append("%s: end: Python %r, C %r" % (name, py["end"],
                                                  c["end"]))
    return bad


def derive(src, dst, each):
    """the magnet text @dst made from @src's: its header, then for each
    record i (its fields, a list) the records @each(i, fields) returns;
    @dst"""
    with open(src) as f, open(dst, "w") as out:
        out.write(next(f))
        for i, ln in enumerate(f):
            for v in each(i, ln.rstrip("\n").split("\t")):
                out.write("\t".join(v) + "\n")
    return dst


TSAN = " (ThreadSanitizer)"


def run_case(job):
    """one case: (magnet-pass or None for the end to end only, ttpb2ascii,
    name, log, devices, bounds, hosts); (name, the differences)"""
    prog, ttpb, name, path = job[:4]
    devices, bounds, hosts = (tuple(job[4:]) + (None,) * 3)[:3]
    bad = []
    if prog:
        bad = compare(name, python_state(path, devices, bounds, hosts),
                      c_state(prog, path, devices, bounds, hosts))
    if not name.endswith(TSAN):
        bad += end_to_end(name, ttpb, path, devices, hosts,
                          name.startswith("demo"), bounds)
    return name, bad


def main():
    ttpb, prog, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
    import test_exp
    failed = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        binary = []
        for log in logs:
            name = os.path.basename(log)
            if log.endswith(".txt"):
                cases.append((name, log, None))
                continue
            # the binary log itself, through ttpb2ascii
            binary.append((name + " (binary)", log))
            text = os.path.join(tmp, name + ".txt")
            with open(text, "w") as out:
                # (a cut or corrupt log's text: what ttpb2ascii gave)
                subprocess.run([ttpb, "-f", "magnet", log], stdout=out,
                               stderr=subprocess.DEVNULL)
            if os.path.getsize(text):
                cases.append((name, text, None))
        # (5,000 segments: the sequence numbers wrap past 2^32, the IP IDs
        # do not; 20,000 where a bound of thousands must be passed: IDs
        # wrap too)
        long_ = os.path.join(tmp, "long.txt")
        test_exp.write_long_flow(long_, 5000, isn=2 ** 32 - 5000000,
                                 first_id=60000)
        longer = os.path.join(tmp, "longer.txt")
        test_exp.write_long_flow(longer, 20000)
        cases.append(("long flow", long_, None))
        cases.append(("long flow, no devices", long_, set()))
        cases.append(("long flow, bounds small", long_, None,
                      {"sends": 1000, "sent": 100, "window": 1 << 20,
                       "points": 100, "ca_changes": 3}))
        cases.append(("long flow, windows overflowed", long_, None,
                      {"window_keys": 500}))
        cases.append(("long flow, windows small", long_, None,
                      {"window_keys": 500, "window": 1 << 14}))
        # a cut line, and a line of the wrong width
        with open(long_) as f:
            head = [next(f) for _ in range(50)]
        cut = os.path.join(tmp, "cut.txt")
        with open(cut, "w") as f:
            f.writelines(head[:-1] + [head[-1][:40]])
        cases.append(("cut line", cut, None))
        odd = os.path.join(tmp, "odd.txt")
        with open(odd, "w") as f:
            f.writelines(head[:30] + ["1.5\t0\tapp_send\n"] + head[30:])
        cases.append(("a short line", odd, None))
        # records lost (with probe misses and without) and discarded by a
        # reset, on CPUs with records before and without
        cols = analyse.textlog.TEXT_COLUMNS

        def line(t, cpu, ev, **kw):
            v = dict(time=t, cpu=cpu, event=ev, **kw)
            return "\t".join(v.get(c, "") for c in cols) + "\n"
        gapped = os.path.join(tmp, "gaps.txt")
        with open(gapped, "w") as f:
            f.writelines(head[:20] + [
                line("1700000001.000100000", "0", "lost", lost="5"),
                line("1700000001.000200000", "7", "lost", lost="2",
                     ret="3")] + head[20:40] + [
                line("1700000001.000300000", "1", "reset", lost="9"),
                line("1700000001.000400000", "0", "lost", lost="1")] +
                head[40:])
        cases.append(("records lost and discarded", gapped, None))
        # the long flow through a qdisc on the sender's device: each
        # dev_out enqueued (but every 5th), dequeued (but every 11th of
        # those) after a wait that varies, and handed to the driver
        # (wire_out; but every 3rd): with the bounds small, packets
        # forgotten and the sojourns' envelope made coarser
        queued = os.path.join(tmp, "queued.txt")
        ix = {c: i for i, c in enumerate(cols)}
        with open(longer) as f, open(queued, "w") as out:
            out.write(next(f))
            i = 0
            for ln in f:
                out.write(ln)
                v = ln.rstrip("\n").split("\t")
                if v[ix["event"]] != "dev_out":
                    continue
                i += 1
                sec, ns = v[ix["time"]].split(".")
                t = int(sec) * 10 ** 9 + int(ns)

                def at(dt, ev, **kw):
                    w = list(v)
                    w[ix["time"]] = "%d.%09d" % divmod(t + dt, 10 ** 9)
                    w[ix["event"]] = ev
                    for k, x in kw.items():
                        w[ix[k]] = x
                    return "\t".join(w) + "\n"
                q = dict(qdisc="netem", qdisc_handle="8001:0",
                         qdisc_qlen=str(i % 7), qdisc_backlog=str(i % 7 * 1514))
                if i % 5:
                    out.write(at(10, "qdisc_enq", **q))
                    if i % 11:
                        out.write(at(20 + i % 13 * 50, "qdisc", **q))
                if i % 3:
                    out.write(at(900, "wire_out"))
        # the long flow without its dev_out records: the segments TCP
        # sent await their next layer until the oldest are forgotten
        undev = os.path.join(tmp, "undev.txt")
        with open(long_) as f, open(undev, "w") as out:
            out.writelines(ln for ln in f if "\tdev_out\t" not in ln)
        cases.append(("long flow, no dev_out, latency bounded", undev, None,
                      {"latency": 5000}))
        # the long flow with limit parts (limits.py) in its TCP records:
        # the chronographs in turn, their times growing, pacing rates that
        # bind, that do not, unlimited (~0) and none
        limited = os.path.join(tmp, "limited.txt")
        chronos = ("busy", "busy", "rwnd", "sndbuf", "none", "busy")
        rates = ("400000", "900000000", str(2 ** 64 - 1), "")
        with open(long_) as f, open(limited, "w") as out:
            out.write(next(f))
            acc = [0, 0, 0]
            for i, ln in enumerate(f):
                v = ln.rstrip("\n").split("\t")
                if v[ix["event"]] in ("tcp_out", "tcp_in"):
                    ch = chronos[i // 40 % len(chronos)]
                    k = {"busy": 0, "rwnd": 1, "sndbuf": 2}.get(ch)
                    if k is not None:
                        acc[k] += 1000 + i % 7 * 10
                    for c, x in (("chrono", ch),
                                 ("busy_us", str(sum(acc))),
                                 ("rwnd_limited_us", str(acc[1])),
                                 ("sndbuf_limited_us", str(acc[2])),
                                 ("reordering", str(3 + i % 5)),
                                 ("reord_seen", str(i // 1000)),
                                 ("dsack_dups", str(i // 3000)),
                                 ("pacing_rate", rates[i // 120 % 4]),
                                 ("snd_wnd", str(65536 - i % 4096)),
                                 ("write_seq", str(v[ix["snd_nxt"]] or 0))):
                        v[ix[c]] = x
                out.write("\t".join(v) + "\n")
        cases.append(("long flow with limit parts", limited, None))
        # 140 connection ends at once (the long flow's records spread over
        # 70 ports, both ends): more CSVs than are kept open
        def spread(i, v):
            port = str(40000 + i % 70)
            for c in ("lport", "rport"):
                if v[ix[c]] == "40000":
                    v[ix[c]] = port
                    break
            return [v]
        many = derive(long_, os.path.join(tmp, "many.txt"), spread)
        cases.append(("140 connection ends", many, None))
        # TCP's decisions the unit logs lack: the kernel's congestion-state
        # changes, receive-buffer growth, the ends of RTO recoveries; with
        # the markers bounded too
        def decide(i, v):
            if i % 97:
                return [v]
            w = list(v)
            w[ix["event"]] = ("cong_state", "rcvbuf", "rto_end")[i // 97 % 3]
            for c, x in (("prev_state", str(i // 97 % 5)),
                         ("ca_state", str((i // 97 + 1) % 5)),
                         ("rcvbuf", str(131072 + i)),
                         ("rcvbuf_before", "131072"),
                         ("window_clamp", str(65535 + i)),
                         ("window_clamp_before", "65535"),
                         ("rto_recovery_ms", str(i % 300)),
                         ("total_rto_time", str(i))):
                w[ix[c]] = x
            return [v, w]
        decided = derive(long_, os.path.join(tmp, "decided.txt"), decide)
        cases.append(("decisions", decided, None))
        # a record of 3 MB (its comm), longer than a batch of
        # magnet-pass's reader, which grows to hold it, in the middle of
        # a text of several batches
        def longer_line(i, v):
            if i == 3000:
                v[ix["comm"]] = "x" * (3 << 20)
            return [v]
        cases.append(("a line longer than a batch", derive(
            long_, os.path.join(tmp, "longline.txt"), longer_line), None))
        # a line of the wrong width past the reader's first batches (the
        # pass ends there, and the CSVs' thread with it), and the last
        # line cut after them
        def short_later(i, v):
            return [v, ["1.5", "0", "app_send"]] if i == 15000 else [v]
        cases.append(("a short line after batches", derive(
            long_, os.path.join(tmp, "odd-later.txt"), short_later), None))
        cut_later = os.path.join(tmp, "cut-later.txt")
        with open(long_) as f, open(cut_later, "w") as out:
            text = f.read()
            out.write(text[:-100])
        cases.append(("cut line after batches", cut_later, None))
        cases.append(("decisions, marks bounded", decided, None,
                      {"marks": 50}))
        small = {"pending": 5000, "buckets": 300}
        cases.append(("a qdisc and wire_out", queued, None))
        cases.append(("a qdisc and wire_out, bounds small", queued, None,
                      small))
        # the hosts named (magnet-exp run's topology), one of them with
        # an empty name; and the markers bounded
        for name, path, *_ in list(cases):
            if name.startswith("demo") or name.startswith("tcpev"):
                with open(path) as f:
                    nss = sorted({ln.split("\t")[ix["netns"]]
                                  for ln in f} - {"netns", ""})
                hosts = {ns: "host%d" % i for i, ns in enumerate(nss)}
                if hosts:
                    hosts[nss[0]] = ""
                cases.append((name + ", hosts named, marks bounded", path,
                              None, {"marks": 7}, hosts))
        jobs = [(prog, ttpb) + tuple(c) for c in cases] + \
            [(None, ttpb, name, path) for name, path in binary]
        # magnet-pass built with ThreadSanitizer (check.sh passes it): its
        # reader and CSVs' threads on the texts of several batches, the
        # state only (ASan's build has the rest)
        tsan = os.environ.get("TEST_PASS_TSAN")
        if tsan:
            jobs += [(tsan, ttpb, c[0] + TSAN) + tuple(c[1:])
                     for c in cases
                     if c[0] in ("long flow", "140 connection ends",
                                 "a line longer than a batch",
                                 "a short line after batches",
                                 "cut line after batches")]
        # (two cases at a time: each runs the Python pass three times)
        with multiprocessing.get_context("fork").Pool(
                min(2, len(os.sched_getaffinity(0)))) as pool:
            for name, bad in pool.imap(run_case, jobs):
                for b in bad[:10]:
                    print("FAIL", b)
                if bad:
                    failed += 1
                else:
                    passed += 1
                    print("ok", name)
    # (a StopIteration raised in a case ends imap's loop as if it were
    # done: every case must have said)
    if passed + failed != len(jobs):
        print("FAIL %d of %d cases gave no result (an exception that "
              "ended the loop)" % (len(jobs) - passed - failed, len(jobs)))
        failed += 1
    print("test_pass: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
