"""Monarch's comparison of congestion controls on the same path: per run,
the numbers of its log (and iperf3's), then per variant, over the
repetitions whose verdict is confirmed, their median and spread, their
mean with its 95% confidence interval, and Welch's test of each variant
against the first (stats.py)."""
import bisect
import statistics
from collections import Counter

from . import analyse as an
from . import stats
from .limits import SHARES

CONFIRMED = "confirmed"
MIN_RUNS = 3        # fewer confirmed runs than this: a warning

# the times to N% of the bytes acknowledged; 100: all of them (the
# transfer's completion)
PCTS = (10, 30, 50, 70, 90, 100)
IPERF3_COOKIE = 37      # the bytes iperf3 sends first on a data connection
# what held the busiest sender back, % of its life (limits.py)
LIMIT_COLUMNS = ["limit_%s_pct" % k for k in SHARES]
COLUMNS = ["throughput_mbps", "iperf3_mbps", "undelivered", "retransmits",
           "rtt_mean_ms", "rtt_max_ms", "cwnd_max", "ttfb_s"] + \
    ["t%d_s" % p for p in PCTS] + LIMIT_COLUMNS
# the columns' names in the tables
NAMES = dict(zip(COLUMNS, ["throughput (Mbit/s)", "iperf3 (Mbit/s)",
                           "undelivered (bytes)", "retransmits",
                           "mean RTT (ms)", "max RTT (ms)", "max cwnd",
                           "first byte (s)"] +
                 ["%d%% acked (s)" % p if p < 100 else "all acked (s)"
                  for p in PCTS] +
                 ["%s-limited (%%)" % k for k in SHARES]))


# how a run's throughput_mbps was computed (its metrics' "window")
WINDOWS = {
    "iperf3": "iperf3's bytes over iperf3's window as the log saw it (the "
              "server's test-start message to its read of the end-of-test "
              "message)",
    "receiver": "the receiver's data over the time from its first data "
                "received to its last (with iperf3's report, to when it had "
                "the bytes iperf3 counted)",
}


def _span_s(t0, t1):
    """seconds from @t0 to @t1 (ns), None if either is"""
    return None if t0 is None or t1 is None else (t1 - t0) / 1e9


def _data_flows(flows, field):
    """the connection ends that moved data: at least 10% of the most"""
    vals = [(f, f.last_tcp[field]) for f in flows if f.last_tcp]
    top = max((v for _, v in vals), default=0)
    return [f for f, v in vals if top and v >= top / 10]


def _iperf3_window(res, rcv, ib):
    """iperf3's receiver counts the bytes its application read from the
    test's start (as it sends TEST_START and TEST_RUNNING, 1 byte each on
    the control connection) to its read of the sender's TEST_END (1 byte);
    the data connection's first 37 bytes, its cookie, do not count. Its
    clock starts right after the TEST_START write (iperf3 3.12,
    iperf_server_api.c: iperf_set_send_state(TEST_START), then
    iperf_init_test sets start_time; TEST_RUNNING is written after the
    timers are made, which under emulation can be 10 ms later) and stops
    at its read of TEST_END (the stats callback right after it). The
    same window from the log's application records, (start, end) in ns, if
    the log has them and the application read exactly the bytes iperf3
    counted; else None."""
    if rcv.app_read != ib + IPERF3_COOKIE:
        return None
    fam, la, lp = rcv.key[:3]
    for f in res.tcp_flows():
        if f is rcv or f.key[:3] != (fam, la, lp) or not f.app_one_read:
            continue
        end = f.app_one_read[0]
        # the server's last two 1-byte writes before TEST_END's read:
        # TEST_START and TEST_RUNNING
        start = [t for t in f.app_one_sent if t < end]
        if len(start) >= 2:
            return start[-2], end
    return None


def _end_flows(res, ends):
    """@res's connection ends, of the addresses @ends only if given (with
    relays, the log has every hop's too)"""
    flows = res.tcp_flows()
    return [f for f in flows if f.key[1] in ends] if ends else flows


# where a one-way delay is measured from and to (analyse.OneWay's layers)
OWD_FROM = {"dev": "the sender's device to the receiver's device "
                   "(dev_out to dev_in)",
            "tcp": "the sender's TCP to the receiver's TCP (tcp_out to "
                   "tcp_in)"}


def delay_samples(res, ends=None):
    """the data senders' delays, each counted by value in microseconds:
    {"rtt": every RTT sample their TCP took from an ACK (tcp_in's
    rtt_us), "owd": each data segment's one-way delay to the receiver's
    host (analyse.OneWay), or None, "owd_from": its layer ("dev" when
    every sender has the devices' records, else "tcp"), "owd_left_out":
    the arrivals of bytes sent more than once, not counted}; @ends as
    run_metrics'"""
    senders = _data_flows(_end_flows(res, ends), "bytes_sent")
    out = {"rtt": sum((f.rtt_samples for f in senders), Counter()),
           "owd": None, "owd_from": None, "owd_left_out": 0}
    for layer in ("dev", "tcp"):
        got = []
        for f in senders:
            peer = res.peer(f)
            c = res.oneway.delays.get((f.key[:5], layer, peer.netns or "")) \
                if peer is not None and peer.has_socket() else None
            if not c:
                break
            got.append((c, res.oneway.again[(f.key[:5], layer)]))
        else:
            if got:
                out["owd"] = sum((c for c, _ in got), Counter())
                out["owd_from"] = layer
                out["owd_left_out"] = sum(n for _, n in got)
                break
    return out


def run_metrics(res, iperf=None, ends=None, delays=None):
    """the numbers of one run from its analysis (and iperf3's JSON);
    @ends: the addresses of the sender and the receiver, whose connection
    ends alone count (with relays, the log has every hop's too);
    @delays: delay_samples(res, ends), if the caller has it"""
    flows = _end_flows(res, ends)
    senders = _data_flows(flows, "bytes_sent")
    receivers = _data_flows(flows, "bytes_received")
    m = {c: None for c in COLUMNS}
    # the congestion control that sent most of each data sender's bytes
    # (by its tcp_out records), or without such records those its TCP
    # records name
    m["ca"] = " ".join(sorted({c for f in senders for c in (
        [f.ca_bytes.most_common(1)[0][0]] if f.ca_bytes else f.ca_names)
        if c}))
    ib = None
    if iperf:
        try:
            m["iperf3_mbps"] = \
                iperf["end"]["sum_received"]["bits_per_second"] / 1e6
            ib = iperf["end"]["sum_received"]["bytes"]
        except (KeyError, TypeError):
            pass
    receivers = [f for f in receivers if f.data_in_first is not None]
    if receivers:
        # from the first data received to the last (or, with iperf3's
        # report, iperf3's window from the application's records, or
        # until the receiver had the bytes iperf3 counted)
        first = min(f.data_in_first for f in receivers)
        last = max(f.data_in_last for f in receivers)
        got = sum(f.last_tcp["bytes_received"] for f in receivers)
        reach = None
        one = ib and len(receivers) == 1
        win = _iperf3_window(res, receivers[0], ib) if one else None
        if win:
            # iperf3's own window and bytes, as the log saw them
            first, reach = win[0], win[1] - res.t0
            got = ib
            m["window"] = "iperf3"
        elif one:
            # iperf3's receiver counts until the sender's end-of-test
            # message, not every byte: the log's rate over the same bytes
            # is the time the receiver took to have them
            for p in receivers[0].series.pts:
                if p[4] >= ib:
                    reach = p[0] * 1e9      # ns from the log's start
                    got = ib
                    break
        m.setdefault("window", "receiver")
        span = (reach if reach is not None else last - res.t0) - \
            (first - res.t0)
        if span > 0:
            m["throughput_mbps"] = got * 8 / (span / 1e9) / 1e6
    if senders:
        m["retransmits"] = sum(f.last_tcp["total_retrans"] for f in senders)
        n = sum(f.srtt_n for f in senders)
        if n:
            m["rtt_mean_ms"] = sum(f.srtt_sum for f in senders) / n / 1e3
            m["rtt_max_ms"] = max(f.srtt_max for f in senders) / 1e3
        m["cwnd_max"] = max(f.cwnd_max for f in senders)
        und = [f.undelivered for f in senders if f.undelivered is not None]
        m["undelivered"] = sum(und) if und else None
        busiest = max(senders, key=lambda f: f.last_tcp["bytes_sent"])
        pts = busiest.series.pts
        # the 95th percentile (nearest rank) of the RTT samples the
        # data senders' TCP took from ACKs (tcp_in's rtt_us), every one
        ds = delays or delay_samples(res, ends)
        samples = ds["rtt"]
        m["rtt_p95_ms"] = an.count_pct(samples, 95) / 1e3 if samples \
            else None
        # and of the data segments' one-way delays (analyse.OneWay),
        # from and to the layer owd_from names
        m["owd_p95_ms"] = an.count_pct(ds["owd"], 95) / 1e3 \
            if ds["owd"] else None
        m["owd_from"] = ds["owd_from"]
        # the time to the first byte: from its first TCP record (the
        # SYN) to its peer's TCP getting data (analyse.Flow
        # .data_in_first); what a slow first packet (a neighbour not yet
        # resolved) shows in
        peer = res.peer(busiest)
        m["ttfb_s"] = (peer.data_in_first - res.t0) / 1e9 - pts[0][0] \
            if pts and peer is not None and peer.data_in_first is not None \
            else None
        # and two of its parts, where its first TCP record is its SYN:
        # the handshake (the SYN's tcp_out to its first tcp_in, the
        # SYN-ACK) and the wait for the first data (the SYN-ACK to its
        # first tcp_out with data: the application's and the scheduler's
        # share); the rest is the first data's way to the peer's TCP
        m["ttfb_handshake_s"] = _span_s(busiest.syn_out,
                                        busiest.tcp_in_first)
        m["ttfb_wait_s"] = _span_s(busiest.tcp_in_first,
                                   busiest.data_out_first) \
            if busiest.syn_out is not None else None
        # when it reached congestion avoidance (analyse.Flow.ca_first),
        # from its first TCP record; None: never
        m["ca_from_s"] = busiest.ca_first - pts[0][0] \
            if busiest.ca_first is not None and pts else None
        # the time from its first TCP record (the SYN) until N% of what
        # the application wrote was acknowledged (the same bytes for
        # every variant of one spec), 100%: all of it, the completion;
        # without the application's records, of the bytes acknowledged in
        # the end: the first record of its socket (TCP or state change)
        # whose bytes_acked reached it, every record counted (not the
        # figures' decimated series)
        acked = busiest.acked_b
        total = busiest.app_written or (acked[-1] if acked else 0)
        for p in PCTS:
            i = bisect.bisect_left(acked, total * p / 100)
            at = busiest.acked_t[i] if total and pts and i < len(acked) \
                else None
            if at is not None:
                m["t%d_s" % p] = at - pts[0][0]
        # what held it back: the shares of its life (limits.py; a log
        # with the limit part)
        li = busiest.limits
        if li is not None and li.dominant():
            us, life = li.shares()
            for k in SHARES:
                m["limit_%s_pct" % k] = 100.0 * us[k] / life
    return m


def mislabelled(variant, m):
    """why a run of @variant with metrics @m is filed under the wrong
    congestion control (the one that sent most of its data senders'
    bytes is another, or they differ: run_metrics' ca), or None (the
    variant, or none: a log without TCP records)"""
    used = (m.get("ca") or "").split()
    if not used or used == [variant]:
        return None
    return "its data senders' TCP records name %s, not %s: the run is " \
        "filed under the wrong variant" % (" and ".join(used), variant)


def _params(r):
    return r[3] if len(r) > 3 and r[3] else {}


def confirmed(r):
    """a run (variant, rep, metrics[, params[, verdict]]) the statistics
    count: its verdict confirmed (or not given)"""
    return len(r) < 5 or r[4] in (None, CONFIRMED)


def _keys(runs):
    return dict.fromkeys((tuple(_params(r).items()), r[0]) for r in runs)


def groups(runs):
    """@runs: [(variant, rep, metrics[, params[, verdict]])] -> [(params,
    variant, [metrics of its repetitions whose verdict is confirmed])],
    per combination of a sweep (in the order of @runs: cli.report gives
    them in the spec's) and within it per variant"""
    return [(dict(p), v, [r[2] for r in runs if confirmed(r) and r[0] == v
                          and tuple(_params(r).items()) == p])
            for p, v in _keys(runs)]


def excluded(runs):
    """the runs left out of the statistics, their verdict not confirmed
    (or "mislabelled": the wrong congestion control, cli.report):
    [(params, variant, rep, verdict)], in the order of @runs"""
    return [(_params(r), r[0], r[1], r[4]) for r in runs if not confirmed(r)]


def table(runs):
    """@runs: [(variant, rep, metrics[, params[, verdict]])] -> rows per
    variant (of a sweep: per combination and variant, its swept keys'
    values in the row, and in "params"), over the repetitions whose
    verdict is confirmed ("runs", their count; "excluded", the others'
    "#rep verdict"): for each column the median and the spread (min..max),
    the mean and its 95% confidence interval (_mean, _ci_low, _ci_high:
    stats.CI_METHOD)"""
    rows = []
    out = excluded(runs)
    for params, v, ms in groups(runs):
        row = dict(params)
        row.update({"params": params, "variant": v, "runs": len(ms),
                    "excluded": " ".join(
                        "#%d %s" % (rep, verdict) for p, vv, rep, verdict
                        in out if vv == v and p == params),
                    # how the throughput of its runs was computed
                    "windows": " ".join(sorted({m["window"] for m in ms
                                                if m.get("window")}))})
        for c in COLUMNS:
            vals = [m[c] for m in ms if m[c] is not None]
            row[c] = statistics.median(vals) if vals else None
            row[c + "_min"] = min(vals) if vals else None
            row[c + "_max"] = max(vals) if vals else None
            (row[c + "_mean"], row[c + "_ci_low"],
             row[c + "_ci_high"]) = stats.mean_ci(vals)
        rows.append(row)
    return rows


def differences(runs):
    """each variant against the first of its combination, column by
    column, over the confirmed repetitions: [{"params", "variant",
    "baseline", "column", "diff", "ci_low", "ci_high", "p",
    "significant"}] (stats.welch: the difference of the means, variant
    minus baseline), for the columns with at least 2 values on both
    sides"""
    out = []
    gs = groups(runs)
    for params, v, ms in gs:
        base = next(g for g in gs if g[0] == params)
        if base[1] == v:
            continue
        for c in COLUMNS:
            a = [m[c] for m in base[2] if m[c] is not None]
            b = [m[c] for m in ms if m[c] is not None]
            w = stats.welch(a, b)
            if w is None:
                continue
            out.append({"params": params, "variant": v, "baseline": base[1],
                        "column": c, "diff": w[0], "ci_low": w[1],
                        "ci_high": w[2], "p": w[3],
                        "significant": w[3] < stats.ALPHA})
    return out


def warnings(rows, runs):
    """the comparison's caveats as lines: variants with fewer than
    MIN_RUNS confirmed runs, those none of whose confirmed runs reached
    congestion avoidance (run_metrics' ca_from_s; not BBR), and the runs
    left out"""
    lines = []
    few = [r for r in rows if r["runs"] < MIN_RUNS]
    if few:
        lines.append(
            "warning: fewer than %d confirmed runs: %s; a median or mean of "
            "so few runs says little about a variant: no confidence "
            "interval with 1 run, a wide one with 2, no test of a "
            "difference with fewer than 2 on either side" % (
                MIN_RUNS, ", ".join("%s%s (%d)" % (
                    "".join("%s %s, " % kv for kv in r["params"].items()),
                    r["variant"], r["runs"]) for r in few)))
    # a variant none of whose confirmed runs left slow start: its
    # numbers are of slow start and how it ended (of runs whose TCP
    # records name their congestion control; BBR has no such phase)
    slow = [(p, v) for p, v, ms in groups(runs) if ms and not any(
        m.get("ca_from_s") is not None or not m.get("ca") or
        "bbr" in m["ca"] for m in ms)]
    if slow:
        lines.append(
            "phase: no run of %s reached congestion avoidance (a TCP record "
            "of its sender with cwnd at or above ssthresh, state Open): "
            "their numbers are of slow start and how it ended (HyStart, "
            "the first loss), not of congestion avoidance" % ", ".join(
                "%s%s" % ("".join("%s %s, " % kv for kv in p.items()), v)
                for p, v in slow))
    out = excluded(runs)
    if out:
        lines.append(
            "left out of every median, mean and test (verdict not "
            "confirmed, or the wrong congestion control): %s" % ", ".join("%s%s #%d (%s)" % (
                "".join("%s %s, " % kv for kv in p.items()), v, rep, verdict)
                for p, v, rep, verdict in out))
    return lines


def _fmt(v):
    if v is None:
        return "-"
    return "%.3g" % v if isinstance(v, float) else str(v)


def swept(rows):
    """the swept keys of a table's rows, in order"""
    return list(dict.fromkeys(k for r in rows for k in r.get("params", {})))


def _cells(rows, cell):
    """a table of the rows as text: (head, [cells per variant]), a sweep's
    keys first, then the variant, its runs and @cell(row, column) for
    each column"""
    keys = swept(rows)
    head = keys + ["variant", "runs"] + [NAMES[c] for c in COLUMNS]
    body = [[str(r["params"].get(k, "")) for k in keys] +
            [r["variant"], str(r["runs"])] + [cell(r, c) for c in COLUMNS]
            for r in rows]
    return head, body


def table_cells(rows):
    """the comparison table as text: "median (min..max)", the value alone
    with one run"""
    return _cells(rows, lambda r, c: "%s (%s..%s)" % (
        _fmt(r[c]), _fmt(r[c + "_min"]), _fmt(r[c + "_max"]))
        if r["runs"] > 1 else _fmt(r[c]))


def ci_cells(rows):
    """the means with their 95% confidence intervals: "mean [low, high]",
    the mean alone with one run"""
    return _cells(rows, lambda r, c: _fmt(r[c + "_mean"])
                  if r[c + "_ci_low"] is None else "%s [%s, %s]" % (
                      _fmt(r[c + "_mean"]), _fmt(r[c + "_ci_low"]),
                      _fmt(r[c + "_ci_high"])))


def diff_cells(diffs):
    """Welch's tests as a table: (head, [cells per test])"""
    keys = list(dict.fromkeys(k for d in diffs for k in d["params"]))
    head = keys + ["variant", "against", "metric", "difference of means",
                   "95% interval", "p", "significant"]
    body = []
    for d in diffs:
        body.append([str(d["params"].get(k, "")) for k in keys] +
                    [d["variant"], d["baseline"], NAMES[d["column"]],
                     _fmt(d["diff"]), "[%s, %s]" % (_fmt(d["ci_low"]),
                                                    _fmt(d["ci_high"])),
                     "%.3g" % d["p"], "yes" if d["significant"] else "no"])
    return head, body


def _md(head, body):
    out = ["| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    for cells in body:
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def statistics_md(rows, runs):
    """the comparison's statistics in Markdown: the warnings, the means
    with their intervals, and the tests of the differences"""
    out = "".join(w + "\n\n" for w in warnings(rows, runs))
    out += "Means with their %s.\n\n" % stats.CI_METHOD
    out += _md(*ci_cells(rows))
    diffs = differences(runs)
    if diffs:
        out += "\nDifferences: %s.\n\n" % stats.TEST_METHOD
        out += _md(*diff_cells(diffs))
    else:
        out += ("\nDifferences: none tested (%s needs at least 2 confirmed "
                "runs of two variants of a combination).\n" %
                stats.TEST_METHOD.split(" (")[0])
    return out


def table_md(rows):
    return _md(*table_cells(rows))


def legend(rows):
    """what the table's columns are, for its caption: the throughput by
    the windows its rows' runs used (WINDOWS), the times to N% acked"""
    used = {}
    for r in rows:
        for w in (r.get("windows") or "").split():
            used.setdefault(w, []).append(r["variant"])
    if not used:
        thr = "throughput: none (no receiver's data in the logs)"
    else:
        thr = "; ".join(
            "throughput from the log%s: %s" % (
                "" if len(used) == 1 else " (%s)" % ", ".join(
                    dict.fromkeys(used[w])), WINDOWS[w])
            for w in sorted(used))
    return ("Median (min..max) over the repetitions whose verdict is "
            "confirmed; %s; N%% acked and all "
            "acked: the time from the busiest sender's first TCP record "
            "(its SYN) to the first record of its socket (a TCP record or "
            "a state change) whose bytes_acked reached N%% (all) of the "
            "bytes its application wrote (without the application's "
            "records, of the bytes acknowledged in the end)." % thr)
