"""Per TCP stack, per flow: MAGNeT's Table II ("Effect of multiple TCP
stacks"), and the numbers of each flow of a run.

With [path] relays = N the data of a flow crosses N+1 TCP stacks: the
sender's, then each relay's (a socat reading from one connection and
writing into the next), then the receiver reads it. One kernel, so one log
holds every hop's connections. Per flow (its port), the table has a row
for the sender's application (what its writes moved) and a row per stack
(the data segments the connection leaving that stack sent, at the device
layer, or at TCP where the log has no device records): their count, size
and the time between consecutive ones of the same connection, from the
modulation statistics of the analysis (modulation.Modulation), merged
over the flow's data connections (iperf3 -P; iperf3's control connection,
with less than 10% of the busiest's bytes, is left out).
"""
import statistics

from magnet_exp.modulation import PCTS, Stat


def ordinal(n):
    if 10 <= n % 100 <= 20:
        return "%dth" % n
    return "%d%s" % (n, {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def merge(stats):
    """one Stat of several (counts, sums and bins added)"""
    out = Stat()
    for st in stats:
        if not st.n:
            continue
        out.n += st.n
        out.sum += st.sum
        out.lo = st.lo if out.lo is None or st.lo < out.lo else out.lo
        out.hi = st.hi if out.hi is None or st.hi > out.hi else out.hi
        out.bins.update(st.bins)
    return out


def _row(port, stack, layer, n, size, gap, sent):
    row = {"port": port, "stack": stack, "layer": layer,
           "connections": n, "count": size.n,
           "bytes": sent,
           "size_mean": round(size.mean(), 1) if size.n else None,
           "size_min": size.lo, "size_max": size.hi}
    for p in PCTS:
        v = size.pct(p)
        row["size_p%d" % p] = round(v) if v is not None else None
    row["spacing_mean_us"] = round(gap.mean() / 1e3, 3) if gap.n else None
    for p in PCTS:
        v = gap.pct(p)
        row["spacing_p%d_us" % p] = round(v / 1e3, 3) \
            if v is not None else None
    return row


def table(mod, hops, ports, last_tcp=None):
    """@mod: a Modulation; @hops: [(local address, remote address)] of the
    connection leaving each TCP stack, the sender's first; @ports: the
    flows' ports; @last_tcp: {flow key: its last TCP record's numbers}
    for the bytes: of a stack, the new data its TCP sent (bytes_sent less
    bytes_retrans; of the application, what its writes moved). Returns
    the rows, per port: "application", then "1st TCP stack", "2nd TCP
    stack", ..."""
    out = []
    for port in ports:
        for i, (la, ra) in enumerate(hops):
            # this stack's connection ends toward the next hop on the port
            ends = {}
            for (key, d, layer), st in mod.size.items():
                if d == "out" and key[1] == la and key[3] == ra and \
                        str(key[4]) == str(port):
                    ends.setdefault(key, {})[layer] = (st, mod.gap[(key, d,
                                                                    layer)])
            layer = "dev" if any("dev" in v for v in ends.values()) \
                else "tcp"
            sent = {k: v[layer][0].sum for k, v in ends.items()
                    if layer in v}
            top = max(sent.values(), default=0)
            keys = sorted(k for k, b in sent.items() if top and b * 10 >= top)
            acked = None
            if last_tcp is not None:
                acked = sum(last_tcp[k]["bytes_sent"] -
                            last_tcp[k]["bytes_retrans"] for k in keys
                            if last_tcp.get(k))
            if i == 0:
                app = [ends[k]["app"] for k in keys if "app" in ends[k]]
                wrote = merge(a[0] for a in app)
                r = _row(port, "application", "app", len(app), wrote,
                         merge(a[1] for a in app), wrote.sum)
                asked = merge(mod.asked[(k, "out", "app")] for k in keys
                              if (k, "out", "app") in mod.asked)
                r["asked_max"] = asked.hi
                out.append(r)
            out.append(_row(port, "%s TCP stack" % ordinal(i + 1), layer,
                            len(keys), merge(ends[k][layer][0] for k in keys),
                            merge(ends[k][layer][1] for k in keys), acked))
    for r in out:
        r.setdefault("asked_max", None)
    return out


def table_md(rows, flow_names=None):
    """MAGNeT's Table II in Markdown: per flow, a row per stack"""
    names = flow_names or {}
    several = len({r["port"] for r in rows}) > 1
    head = (["flow"] if several else []) + [
        "trial", "layer", "segments", "mean size (bytes)", "size p50",
        "size p90", "mean spacing (us)", "spacing p50", "spacing p90",
        "bytes"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = ([names.get(r["port"], str(r["port"]))] if several else []) \
            + [r["stack"], r["layer"], str(r["count"])] + [
            "-" if r[c] is None else str(r[c]) for c in (
                "size_mean", "size_p50", "size_p90", "spacing_mean_us",
                "spacing_p50_us", "spacing_p90_us", "bytes")]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def flow_rows(res, flows, sender, receiver):
    """per flow of a run (@flows: run.run_flows()'s list), from the log:
    what the sender's application wrote into its data connections on the
    flow's port and what the receiver's read, the bytes the receiver's TCP
    received (its FIN counts one) and their throughput (first data
    received to last), beside iperf3's bytes sent and received (which
    leave out the 37-byte cookie iperf3 writes first on a data connection)
    and its rate; @sender, @receiver: the addresses of the two ends"""
    out = []
    ends = [f for f in res.tcp_flows() if f.last_tcp]
    for fl in flows:
        port = str(fl["port"])
        rcv = [f for f in ends if f.key[1] == receiver and
               str(f.key[2]) == port]
        top = max((f.last_tcp["bytes_received"] for f in rcv), default=0)
        rcv = [f for f in rcv if top and
               f.last_tcp["bytes_received"] * 10 >= top]
        snd = [f for f in ends if f.key[1] == sender and
               str(f.key[4]) == port]
        top = max((f.app_written for f in snd), default=0)
        snd = [f for f in snd if top and f.app_written * 10 >= top]
        row = {"flow": fl["name"], "port": fl["port"], "kind": fl["kind"],
               "start": fl["start"], "started": fl.get("started"),
               "ended": fl.get("ended"), "connections": len(rcv),
               "written": sum(f.app_written for f in snd),
               "read": sum(f.app_read for f in rcv),
               "bytes_received": sum(f.last_tcp["bytes_received"]
                                     for f in rcv),
               "first_data_s": None, "throughput_mbps": None,
               "iperf3_sent": None, "iperf3_received": None,
               "iperf3_mbps": None}
        got = [f for f in rcv if f.data_in_first is not None]
        if got:
            first = min(f.data_in_first for f in got)
            last = max(f.data_in_last for f in got)
            row["first_data_s"] = round((first - res.t0) / 1e9, 6)
            if last > first:
                row["throughput_mbps"] = row["bytes_received"] * 8 / (
                    (last - first) / 1e9) / 1e6
        try:
            end = fl["iperf3"]["end"]
            row["iperf3_sent"] = end["sum_sent"]["bytes"]
            row["iperf3_received"] = end["sum_received"]["bytes"]
            row["iperf3_mbps"] = end["sum_received"]["bits_per_second"] / 1e6
        except (KeyError, TypeError):
            pass
        out.append(row)
    return out


def _fmt(v):
    if v is None:
        return "-"
    return "%.4g" % v if isinstance(v, float) else str(v)


def jain(rates):
    """Jain's fairness index of @rates (None left out): (sum x)^2 / (n sum
    x^2), 1 when every flow had the same rate, 1/n when one had it all;
    None with fewer than 2 rates or all 0"""
    xs = [x for x in rates if x is not None]
    sq = sum(x * x for x in xs)
    if len(xs) < 2 or not sq:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)


def flows_md(rows):
    head = ["flow", "port", "kind", "start (s)", "started (s)",
            "first data (s in the log)", "written (log)", "read (log)",
            "TCP received (log)",
            "Mbit/s (log)", "iperf3 bytes sent", "iperf3 bytes received",
            "iperf3 Mbit/s"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(_fmt(r[c]) for c in (
            "flow", "port", "kind", "start", "started", "first_data_s",
            "written", "read", "bytes_received", "throughput_mbps", "iperf3_sent",
            "iperf3_received", "iperf3_mbps")) + " |")
    j = jain(r["throughput_mbps"] for r in rows)
    if j is not None:
        n = sum(r["throughput_mbps"] is not None for r in rows)
        out += ["", "Jain's fairness index over the %d flows' rates from "
                "the log (each over its own time, first data to last): "
                "%.3f (1: the same rate each; 1/%d: one flow had it all)" % (
                    n, j, n)]
    return "\n".join(out) + "\n"


def median_md(per_run):
    """@per_run: [(variant, rep, stack rows)] -> per variant, flow and
    stack, the median over the repetitions of the mean size and the mean
    spacing (Markdown)"""
    acc = {}
    for v, _, rows in per_run:
        for r in rows:
            a = acc.setdefault((v, r["port"], r["stack"]), ([], []))
            if r["size_mean"] is not None:
                a[0].append(r["size_mean"])
            if r["spacing_mean_us"] is not None:
                a[1].append(r["spacing_mean_us"])
    head = ["variant", "port", "trial", "runs", "mean size (bytes)",
            "mean spacing (us)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (v, port, stack), (sz, gp) in acc.items():
        out.append("| %s | %s | %s | %d | %s | %s |" % (
            v, port, stack, max(len(sz), len(gp)),
            _fmt(statistics.median(sz)) if sz else "-",
            _fmt(statistics.median(gp)) if gp else "-"))
    return "\n".join(out) + "\n"


def _csv(path, rows):
    import csv
    with open(path, "w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def path_of(outdir, s):
    """(hops, receiver) of an experiment directory: topology.json's (what
    magnet-exp run wrote), else the spec's local path; None if neither
    says (a testbed's topology)"""
    import json
    import os
    try:
        with open(os.path.join(outdir, "topology.json")) as f:
            t = json.load(f)
        if t.get("hops"):
            return [tuple(h) for h in t["hops"]], t["receiver"]
        return None
    except (OSError, ValueError):
        pass
    if s.get("testbed") or "path" not in s:
        return None
    from magnet_exp import run as runner
    t = runner.topology(s["path"]["relays"])
    return t["hops"], t["receiver"]


def run_extras(s, outdir, res, adir, traffic):
    """one run's stacks table and flow table: stacks.csv (and flows.csv
    with [[flows]]) in its analysis directory @adir, a section of its
    report.md; returns (stack rows, flow rows or None, the iperf3 JSON
    for compare.run_metrics (None with several flows or a command), the
    sender's and the receiver's addresses or None)"""
    import os
    from magnet_exp import spec as sp
    path = path_of(outdir, s)
    flows = traffic if isinstance(traffic, list) else None
    iperf = traffic
    if flows is not None:
        iperf = flows[0]["iperf3"] if len(flows) == 1 and \
            flows[0]["kind"] == "iperf3" else None
    if path is None:
        return [], None, iperf, None
    hops, receiver = path
    specs = sp.flows_of(s)
    rows = table(res.modulation, hops, [f["port"] for f in specs],
                 {f.key: f.last_tcp for f in res.tcp_flows()})
    names = {f["port"]: f["name"] or "iperf3" for f in specs}
    _csv(os.path.join(adir, "stacks.csv"), rows)
    md = ["", "## Per TCP stack (MAGNeT's Table II)", "",
          "The sender's application writes, then the data segments the "
          "connection leaving each TCP stack sent (the sender's, then each "
          "relay's: %d relays); sizes in bytes, spacing between consecutive "
          "segments of a connection in microseconds." % (len(hops) - 1), "",
          table_md(rows, names)]
    frows = None
    if flows is not None:
        frows = flow_rows(res, flows, hops[0][0], receiver)
        _csv(os.path.join(adir, "flows.csv"), frows)
        md += ["## Flows", "", "Each flow from the log: what the sender's "
               "application wrote into its data connections, what the "
               "receiver's read, what the receiver's TCP received (the FIN "
               "counts one) and the throughput (first data to last), beside "
               "iperf3's report (whose bytes leave out the 37-byte cookie "
               "iperf3 writes first).", "", flows_md(frows)]
    with open(os.path.join(adir, "report.md"), "a") as f:
        f.write("\n".join(md))
    return rows, frows, iperf, (hops[0][0], receiver)


def experiment_extras(outdir, per_run):
    """@per_run: [(variant, rep, stack rows, flow rows)]: the
    experiment's stacks.csv (and flows.csv), and the Markdown to add to
    comparison.md"""
    import os
    if not any(r[2] for r in per_run):
        return ""
    _csv(os.path.join(outdir, "stacks.csv"),
         [dict({"variant": v, "repetition": rep}, **r)
          for v, rep, rows, _ in per_run for r in rows])
    md = ["", "## Per TCP stack (MAGNeT's Table II)", "",
          "Per variant, flow (port) and stack: the median over the "
          "repetitions of the mean size of the sender's application writes "
          "and of the data segments the connection leaving each TCP stack "
          "sent, and of the mean time between them (stacks.csv has every "
          "run's rows).", "", median_md([r[:3] for r in per_run])]
    if any(r[3] for r in per_run):
        frows = [dict({"variant": v, "repetition": rep}, **r)
                 for v, rep, _, fr in per_run for r in fr or []]
        _csv(os.path.join(outdir, "flows.csv"), frows)
        md += ["## Flows", ""]
        for v, rep, _, fr in per_run:
            md += ["%s #%d:" % (v, rep), "", flows_md(fr or [])]
    return "\n".join(md)
