"""The reports to read: per log report.md and report.html (the verdicts
with their reasons, the connections, the modulation and latency tables,
the figures), and per experiment comparison.md and report.html (the
comparison of the variants, every run's verdict, the comparison figure).

The HTML pages stand alone: the PNG figures are inline (base64 data:
URIs), the style is a small inline <style>, there is no JavaScript, and
every string from a log goes through esc().
"""
import base64
import html
import os

from magnet_exp import compare
from magnet_exp import limits as limitsmod
from magnet_exp import spec as specmod

_STYLE = """\
body { font-family: sans-serif; margin: 1.5em; max-width: 80em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left;
         vertical-align: top; }
th { background: #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.confirmed { color: #176117; }
.note { color: #555; }
.indeterminate { color: #8a5a00; }
.inaccurate { color: #b00020; }
.warn { color: #b00020; }
img { max-width: 100%; border: 1px solid #ddd; }
figure { margin: 1em 0; }
"""


def esc(x):
    """@x as HTML text (or an attribute's value): &, <, >, " and '
    escaped"""
    return html.escape("" if x is None else str(x), quote=True)


def _reason(r):
    return ("at %.6f s: " % r["time"] if "time" in r else "") + r["reason"]


def report_md(d):
    """one log's analysis (the dict of verdict.json) in Markdown"""
    lines = ["# %s" % d["log"], "",
             "Verdict: **%s** (%d records; %d lost, %d probe misses, %d "
             "discarded by reset; layers %s)" % (
                 d["verdict"], d["records"], d["lost"], d["probe_misses"],
                 d["discarded_by_reset"], ", ".join(d["layers"]) or "none"),
             ""]
    for r in d["reasons"]:
        lines.append("- %s%s: %s" % (r["verdict"], " at %.6f s" % r["time"]
                                     if "time" in r else "", r["reason"]))
    for c in d.get("caveats", []):
        lines.append("- caveat: %s" % c)
    for fig in d.get("figures", []):
        if fig["file"].endswith(".png"):
            lines.append("![%s](%s)" % (fig["file"], fig["file"]))
    lines += ["", "| connection | start (s) | end (s) | TCP records | "
              "verdict | reasons |", "|---|---|---|---|---|---|"]
    for f in d["flows"]:
        lines.append("| %s | %.6f | %.6f | %d | %s | %s |" % (
            f["flow"], f["start"], f["end"], f["tcp_records"], f["verdict"],
            "; ".join(_reason(r) for r in f["reasons"]) or "-"))
    if d["modulation"]:
        lines += ["", "## How the stack shaped the traffic (MAGNeT's "
                  "Table II)", "",
                  "Per connection end, direction and layer: events that "
                  "carry data, their size in bytes (mean, median, 90th "
                  "percentile) and the time between them in microseconds.",
                  "", "| connection | dir | layer | events | size mean | "
                  "size p50 | size p90 | spacing mean | spacing p50 | "
                  "spacing p90 |", "|---|---|---|---|---|---|---|---|---|---|"]
        for m in d["modulation"]:
            lines.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |"
                         % (m["flow"], m["direction"], m["layer"], m["count"],
                            m["size_mean"], m["size_p50"], m["size_p90"],
                            m["spacing_mean_us"], m["spacing_p50_us"],
                            m["spacing_p90_us"]))
    if d["latency"]:
        lines += ["", "## From layer to layer", "",
                  "Segments matched by connection and sequence range, "
                  "within one host (network namespace); microseconds.", "",
                  "| host | dir | from | to | segments | mean | p10 | p50 | "
                  "p90 | p99 |", "|---|---|---|---|---|---|---|---|---|---|"]
        for m in d["latency"]:
            lines.append("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |"
                         % (m["host"] or "-", m["direction"], m["from"],
                            m["to"], m["count"], m["mean_us"], m["p10_us"],
                            m["p50_us"], m["p90_us"], m["p99_us"]))
    if d.get("queues"):
        lines += ["", "## Where packets waited", "", QUEUES_INTRO, "",
                  "| host | device | qdisc | from | packets | mean | p10 | p50 | "
                  "p90 | p99 | ahead: mean | p50 | p99 |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for m in d["queues"]:
            lines.append("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s "
                         "| %s | %s | %s |" % (
                             m["host"] or "-", m["device"], m["qdisc"],
                             m["from"], m["count"], m["mean_us"],
                             m["p10_us"], m["p50_us"], m["p90_us"],
                             m["p99_us"], _dash(m["ahead_mean"]),
                             _dash(m["ahead_p50"]), _dash(m["ahead_p99"])))
    if d.get("devices_out"):
        lines += ["", "## Through each device, to the wire", "",
                  DEVICES_INTRO, "",
                  "| host | device | taken in | left | matched | mean | "
                  "p10 | p50 | p90 | p99 |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for m in d["devices_out"]:
            lines.append("| %s | %s | %d | %d | %d | %s | %s | %s | %s | %s "
                         "|" % (m["host"] or "-", m["device"], m["taken_in"],
                                m["left"], m["matched"], _dash(m["mean_us"]),
                                _dash(m["p10_us"]), _dash(m["p50_us"]),
                                _dash(m["p90_us"]), _dash(m["p99_us"])))
    if d.get("drops"):
        lines += ["", "## Where packets died", "",
                  DROPS_INTRO, "", "| packets of | host | layer | reason | "
                  "function | qdisc | kind | its limit | packets |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for m in d["drops"]:
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
                m["flow"], m["host"] or "-", m["layer"], m["reason"],
                m["where"], _dash(m["qdisc"]), m["kind"],
                _dash(m["limit"]), m["packets"]))
    if d.get("decisions"):
        lines += ["", "## TCP's decisions", "", DECISIONS_INTRO, "",
                  "| connection | host | " + " | ".join(DECISION_HEAD) +
                  " | states |", "|---|---|" + "---|" * len(DECISION_HEAD) +
                  "---|"]
        for m in d["decisions"]:
            lines.append("| %s | %s | %s | %s |" % (
                m["flow"], m["host"] or "-",
                " | ".join(str(_dash(m[k])) for k in DECISION_KEYS),
                m["states"] or "-"))
    rows = limit_rows(d)
    if rows:
        lines += ["", "## What held each sender back", "", LIMITS_INTRO, "",
                  "| " + " | ".join(LIMITS_HEAD) + " |",
                  "|" + "---|" * len(LIMITS_HEAD)]
        for row in rows:
            lines.append("| " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines) + "\n"


LIMITS_INTRO = (
    "Per connection end that sent data, the share of its life (its first "
    "record to its last with a limit part) each limit held it back, from "
    "the kernel's own chronographs as tcp_info gives them "
    "(tcpi_busy_time, tcpi_rwnd_limited, tcpi_sndbuf_limited; exact to "
    "the jiffy) at its last record: rwnd the receiver's window, sndbuf "
    "the send buffer, cwnd and pacing the rest of the kernel's busy time "
    "(which the kernel does not tell apart: magnet splits it by whether "
    "the pacing rate was below cwnd x mss / srtt at each record), app "
    "the time nothing was queued to send. Changes seen: the changes of "
    "the running limit between consecutive records (a lower bound).")
LIMITS_HEAD = (["connection", "host"] + ["%s %%" % k for k in limitsmod.SHARES] +
               ["life s", "changes seen", "diagnosis"])


def limit_rows(d):
    """the rows of "What held each sender back": flows that sent data"""
    out = []
    for fl in d["flows"]:
        li = fl.get("limits")
        if not li or not li["dominant"]:
            continue
        out.append([fl["flow"], fl["host"] or "-"] +
                   ["%.1f" % (100.0 * li["shares"][k]) for k in
                    limitsmod.SHARES] +
                   ["%.3f" % (li["life_us"] / 1e6), li["changes_seen"],
                    li["diagnosis"]])
    return out


DEVICES_INTRO = ("Per host (network namespace), routers too, and device "
                 "(ifindex) that has wire_out events (events=wire): the "
                 "packets it took in to send (taken in: its dev_out "
                 "events, before its qdisc), those it handed to its "
                 "driver (left: its wire_out events, after the qdisc, "
                 "where a capture on the device such as tcpdump sees them "
                 "leave: tc's sent packets), and for each packet matched "
                 "by both (connection, sequence range and IP id) the time "
                 "from one to the other: all it waited in the device, its "
                 "qdisc included, on any kernel and qdisc; microseconds. "
                 "Taken in less left: packets the qdisc dropped, still "
                 "held at the log's end, or sent as segments the device "
                 "split (each its own wire_out, not matched).")

QUEUES_INTRO = ("Per host (network namespace), routers too, device "
                "(ifindex) and qdisc (kind and handle) (events=qdisc): the "
                "time a packet spent in the qdisc (its sojourn), from its "
                "enqueue (from: enqueue; the qdisc_enq event, Linux 6.1 "
                "on) or else its dev_out, before the enqueue (from: "
                "dev_out), to the qdisc's dequeue toward the driver, "
                "matched by connection, sequence range and IP id; "
                "microseconds. Ahead: the packets in the qdisc before it "
                "at its enqueue (the qdisc's own count after the enqueue, "
                "less the packet; '-' without enqueue events, or for a "
                "qdisc that counts per CPU). A packet an empty qdisc hands "
                "straight to the driver (pfifo_fast, fq_codel) has no "
                "dequeue and is not counted. In netem the sojourn includes "
                "its configured delay (it holds each packet in its delay "
                "line, then releases it at its rate), and its limit counts "
                "the packets in that delay line too, not only those "
                "queued for the rate.")
DROPS_INTRO = ("Packets the kernel freed as dropped (events=drop), by the "
               "packets' path (their sender's end first), the host "
               "(network namespace) and layer where it happened (dev: at a "
               "device; ip: no device known), the kernel's reason "
               "(unknown before Linux 5.17) and the function that freed "
               "them; for a qdisc's drop (its reason QDISC_..., or on 5.10 "
               "freed in kfree_skb_list at a device it was sent on), the "
               "device's root qdisc as its qdisc events (events=qdisc) "
               "name it, '-' without them. The kind of loss: for a qdisc's "
               "drop, its queue as the last enqueue on that device before "
               "the drop left it (the qdisc_enq events, Linux 6.1 on; "
               "without them, not told apart) against its limit (the "
               "run's tc qdisc show; else the longest queue the log shows "
               "it had, said so): overflow at the limit, random loss "
               "(netem) below it at a netem with a loss configured, and "
               "else below its limit (the qdisc's own choice: a filter, "
               "an AQM). A netem's random loss that struck while its queue "
               "was full counts as an overflow (netem draws the loss "
               "first; the data cannot tell them apart). Other drops by "
               "their reason: a tc action (a policer or filter), a "
               "netfilter rule, the stack's own.")
DECISIONS_INTRO = ("Per connection end (events=retrans, state, cong, rcvbuf): its "
                   "retransmissions by what made them (fast: fast "
                   "retransmit or RACK; rto: in loss recovery after a "
                   "timeout; tlp: a tail loss probe), and by whether the "
                   "original had reached the peer when it was sent again "
                   "(the peer's host, by its dev_in, ip_in or tcp_in "
                   "events, had got all its bytes before the copy's "
                   "tcp_out; counted only where the log has the sender's "
                   "tcp_out and the peer's tcp_in events: neither column "
                   "counts the others), its retransmission timeouts, its "
                   "tail loss "
                   "probes by what they sent, its entries into the "
                   "congestion states Recovery, Loss and CWR, from the "
                   "kernel's own changes (events=cong, where the kernel "
                   "has tcp:tcp_cong_state_set: \"events\") or else "
                   "derived from the ca_state of its records (\"records\": "
                   "a lower bound, a state entered and left between two "
                   "records is not seen), the TCP states it went "
                   "through, and how often receive-buffer autotuning grew "
                   "its buffer with the buffer the last growth left "
                   "(events=rcvbuf: the kernel's sk_rcvbuf, bytes), and "
                   "its time in RTO recoveries, each from its first "
                   "timeout to the change out of Loss, as the kernel "
                   "summed them when the last one ended (events=cong, "
                   "Linux 6.7 and later: total_rto_time, ms; the kernel "
                   "leaves out a recovery that ended into Recovery).")
DECISION_KEYS = ("retrans_fast", "retrans_rto", "retrans_tlp",
                 "retrans_reached", "retrans_not_reached", "rto",
                 "tlp_new", "tlp_retrans", "tlp_none", "recovery", "loss",
                 "cwr", "cong_from", "rcvbuf_grown", "rcvbuf_bytes",
                 "rto_time_ms")
DECISION_HEAD = ("retrans fast", "retrans rto", "retrans tlp",
                 "original had reached", "original had not", "RTOs",
                 "TLP new data", "TLP last segment", "TLP nothing sent",
                 "entries into Recovery", "into Loss", "into CWR",
                 "congestion states from", "receive buffer grown",
                 "receive buffer (bytes)", "in RTO recoveries (ms)")


def provenance_lines(prov):
    """what the runs ran on (@prov: provenance.json, run.provenance()), as
    lines, a caveat first where the machine shapes the numbers; [] without
    it"""
    if not prov:
        return []
    lines = []
    virt = prov.get("virtualization")
    icount = prov.get("icount")
    emulated = ("caveat: these runs ran under software CPU emulation (QEMU "
                "without KVM, systemd-detect-virt --vm: qemu)")
    if virt == "qemu" and icount:
        lines.append(
            emulated + " with "
            "instruction-counted time (QEMU -icount %s, as "
            "MAGNET_EXP_ICOUNT said): the guest's clock advances with the "
            "instructions it executes, not with real time, so the host's "
            "load does not move its timings and netem's delays are exact on "
            "that clock; but the CPUs' work is timed in instructions, not in "
            "a real CPU's cycles: rates and delays that the CPUs bound are "
            "not a real machine's" % icount)
    elif virt == "qemu":
        lines.append(
            emulated + ": the guest's CPUs stop "
            "while the host is busy, so netem can release packets in "
            "bursts and veth can reorder them across CPUs; rates over short "
            "windows, delays and reordering carry the emulator's timing")
    elif virt and virt != "none":
        lines.append("note: these runs ran in a virtual machine "
                     "(systemd-detect-virt --vm: %s): timings include its "
                     "scheduling" % virt)
    offs = prov.get("offloads") or {}
    vals = {v for o in offs.values() for v in o.values()}
    if offs and vals == {"off"}:
        off = "every offload off (TSO, GSO, GRO, LRO) on every device"
    else:
        off = "offloads: " + "; ".join(
            "%s %s" % (d, ", ".join("%s %s" % (k, v) for k, v in
                                    sorted(o.items())))
            for d, o in sorted(offs.items())) if offs else "offloads unknown"
    cont = prov.get("container")
    lines.append("ran on: Linux %s (%s), %s CPUs (%s), virtualization %s%s; "
                 "%s" % (prov.get("kernel"), prov.get("machine"),
                         prov.get("cpus"), prov.get("cpu_model"),
                         virt or "unknown", ", container %s" % cont
                         if cont and cont != "none" else "", off))
    return lines


def comparison_md(test_id, tab, runs=(), notes=()):
    """an experiment's comparison of its variants in Markdown; @tab:
    compare.table(), of @runs (its statistics after the table); @notes:
    lines above the table (provenance_lines(), the runs' caveats)"""
    return ("# %s\n\n%s\n\n" % (test_id, compare.legend(tab)) +
            "".join(x + "\n\n" for x in notes) +
            compare.table_md(tab) + "\n" + compare.statistics_md(tab, runs))


# ---- HTML ----

def _page(title, body):
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
            "<meta charset=\"utf-8\">\n<title>%s</title>\n"
            "<style>\n%s</style>\n</head>\n<body>\n%s</body>\n</html>\n"
            % (esc(title), _STYLE, "".join(body)))


def _verdict(v):
    return "<strong class=\"%s\">%s</strong>" % (esc(v), esc(v))


def _table(head, rows, numeric=()):
    """a table: @head, the column names; @rows, lists of cells (text,
    escaped here); the columns in @numeric aligned right"""
    out = ["<table>\n<tr>"]
    out += ["<th>%s</th>" % esc(h) for h in head]
    out.append("</tr>\n")
    for cells in rows:
        out.append("<tr>")
        for i, c in enumerate(cells):
            out.append("<td class=\"n\">%s</td>" % esc(c) if i in numeric
                       else "<td>%s</td>" % esc(c))
        out.append("</tr>\n")
    out.append("</table>\n")
    return "".join(out)


def _reasons(reasons):
    if not reasons:
        return ""
    return "<ul>\n%s</ul>\n" % "".join(
        "<li>%s: %s</li>\n" % (_verdict(r["verdict"]), esc(
            ("%s: " % r["flow"] if r.get("flow") else "") + _reason(r)))
        for r in reasons)


def _img(path, alt):
    """<img> with the PNG at @path inline, or "" if it is not there"""
    try:
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
    except OSError:
        return ""
    return "<img src=\"data:image/png;base64,%s\" alt=\"%s\">" % (
        data, esc(alt))


def _figures(figures, outdir, prefix=""):
    """a <figure> per PNG of @figures ([{"file", "series"}]) in @outdir,
    with a link to its SVG (@prefix: the path from the page to @outdir)"""
    names = {f["file"] for f in figures}
    out = []
    for f in figures:
        name = f["file"]
        if not name.endswith(".png"):
            continue
        img = _img(os.path.join(outdir, name), name)
        if not img:
            continue
        svg = name[:-4] + ".svg"
        cap = esc(name)
        if svg in names:
            cap += " (<a href=\"%s\">SVG</a>)" % esc(prefix + svg)
        out.append("<figure>%s<figcaption>%s</figcaption></figure>\n" % (
            img, cap))
    return "".join(out)


def _num(v):
    return "-" if v is None else v


def report_html(d, outdir):
    """one log's analysis (the dict of verdict.json) as a page that
    stands alone: report_md's content, the figures in @outdir inline"""
    b = ["<h1>%s</h1>\n" % esc(d["log"]),
         "<p>Verdict: %s (%d records; %d lost, %d probe misses, %d "
         "discarded by reset; layers %s)</p>\n" % (
             _verdict(d["verdict"]), d["records"], d["lost"],
             d["probe_misses"], d["discarded_by_reset"],
             esc(", ".join(d["layers"]) or "none")),
         _reasons(d["reasons"])]
    if d.get("view"):
        b.append("<p>Interactive view (zoom and pan, the markers of TCP's "
                 "decisions and the drops): <a href=\"%s\">%s</a></p>\n"
                 % (esc(d["view"]), esc(d["view"])))
    b += ["<p class=\"warn\">caveat: %s</p>\n" % esc(c)
          for c in d.get("caveats", [])]
    b += ["<h2>Connections</h2>\n<table>\n<tr><th>connection</th>"
         "<th>start (s)</th><th>end (s)</th><th>TCP records</th>"
         "<th>verdict</th><th>reasons</th><th>CSV</th></tr>\n"]
    for f in d["flows"]:
        b.append("<tr><td>%s</td><td class=\"n\">%.6f</td>"
                 "<td class=\"n\">%.6f</td><td class=\"n\">%d</td>"
                 "<td>%s</td><td>%s</td><td><a href=\"%s\">%s</a></td>"
                 "</tr>\n" % (
                     esc(f["flow"]), f["start"], f["end"], f["tcp_records"],
                     _verdict(f["verdict"]),
                     esc("; ".join(_reason(r) for r in f["reasons"]) or
                         "-"), esc(f["csv"]), esc(f["csv"])))
    b.append("</table>\n")
    if d["modulation"]:
        b += ["<h2>How the stack shaped the traffic (MAGNeT's Table "
              "II)</h2>\n",
              "<p>Per connection end, direction and layer: the events "
              "that carry data, their size in bytes (for the application "
              "also what the calls asked for) and the time between them in "
              "microseconds.</p>\n"]
        head = ["connection", "dir", "layer", "events", "size mean",
                "size min", "size max"] + \
            ["size p%d" % p for p in (10, 50, 90, 99)] + \
            ["asked mean", "asked max", "spacing mean"] + \
            ["spacing p%d" % p for p in (10, 50, 90, 99)]
        rows = [[m["flow"], m["direction"], m["layer"], m["count"],
                 m["size_mean"], m["size_min"], m["size_max"]] +
                [m["size_p%d" % p] for p in (10, 50, 90, 99)] +
                [_num(m["asked_mean"]), _num(m["asked_max"]),
                 _num(m["spacing_mean_us"])] +
                [_num(m["spacing_p%d_us" % p]) for p in (10, 50, 90, 99)]
                for m in d["modulation"]]
        b.append(_table(head, rows, range(3, len(head))))
    if d["latency"]:
        b += ["<h2>From layer to layer</h2>\n",
              "<p>Segments matched by connection and sequence range, "
              "within one host (network namespace); microseconds.</p>\n"]
        head = ["host", "dir", "from", "to", "segments", "mean", "p10",
                "p50", "p90", "p99"]
        rows = [[m["host"] or "-", m["direction"], m["from"], m["to"],
                 m["count"], m["mean_us"], m["p10_us"], m["p50_us"],
                 m["p90_us"], m["p99_us"]] for m in d["latency"]]
        b.append(_table(head, rows, range(4, len(head))))
    if d.get("queues"):
        b += ["<h2>Where packets waited</h2>\n",
              "<p>%s</p>\n" % esc(QUEUES_INTRO)]
        b.append(_table(["host", "device", "qdisc", "from", "packets",
                         "mean", "p10", "p50", "p90", "p99", "ahead: mean",
                         "p50", "p99"],
                        [[m["host"] or "-", m["device"], m["qdisc"],
                          m["from"], m["count"], m["mean_us"], m["p10_us"],
                          m["p50_us"], m["p90_us"], m["p99_us"],
                          _dash(m["ahead_mean"]), _dash(m["ahead_p50"]),
                          _dash(m["ahead_p99"])]
                         for m in d["queues"]], range(4, 13)))
    if d.get("devices_out"):
        b += ["<h2>Through each device, to the wire</h2>\n",
              "<p>%s</p>\n" % esc(DEVICES_INTRO)]
        b.append(_table(["host", "device", "taken in", "left", "matched",
                         "mean", "p10", "p50", "p90", "p99"],
                        [[m["host"] or "-", m["device"], m["taken_in"],
                          m["left"], m["matched"], _dash(m["mean_us"]),
                          _dash(m["p10_us"]), _dash(m["p50_us"]),
                          _dash(m["p90_us"]), _dash(m["p99_us"])]
                         for m in d["devices_out"]], range(2, 10)))
    if d.get("drops"):
        b += ["<h2>Where packets died</h2>\n", "<p>%s</p>\n" % esc(DROPS_INTRO)]
        b.append(_table(["packets of", "host", "layer", "reason", "function",
                         "qdisc", "kind", "its limit", "packets"],
                        [[m["flow"], m["host"] or "-", m["layer"], m["reason"],
                          m["where"], _dash(m["qdisc"]), m["kind"],
                          _dash(m["limit"]), m["packets"]]
                         for m in d["drops"]],
                        (8,)))
    if d.get("decisions"):
        b += ["<h2>TCP's decisions</h2>\n",
              "<p>%s</p>\n" % esc(DECISIONS_INTRO)]
        b.append(_table(["connection", "host"] + list(DECISION_HEAD) +
                        ["states"],
                        [[m["flow"], m["host"] or "-"] +
                         [_dash(m[k]) for k in DECISION_KEYS] + [m["states"] or "-"]
                         for m in d["decisions"]],
                        range(2, 2 + len(DECISION_KEYS))))
    rows = limit_rows(d)
    if rows:
        b += ["<h2>What held each sender back</h2>\n",
              "<p>%s</p>\n" % esc(LIMITS_INTRO)]
        b.append(_table(LIMITS_HEAD, rows,
                        range(2, 2 + len(limitsmod.SHARES) + 2)))
    figs = _figures(d.get("figures", []), outdir)
    if figs:
        b += ["<h2>Figures</h2>\n", figs]
    return _page(d["log"], b)


def experiment_html(test_id, tab, runs, outdir, figures, metrics=(),
                    notes=()):
    """an experiment's page: the comparison of the variants (@tab:
    compare.table()), the figures of @outdir inline (@figures: [{"file",
    "series"}]), and per run (@runs: summary.json's runs, each with
    "report", the path of its report.html from @outdir) its verdict, its
    reasons and a link to its analysis; @metrics: compare.table()'s runs,
    for the statistics; @notes: as comparison_md()'s"""
    head, body = compare.table_cells(tab)
    nk = len(compare.swept(tab)) + 1
    b = ["<h1>%s</h1>\n" % esc(test_id),
         "<p>%s</p>\n" % esc(compare.legend(tab))]
    b += ["<p%s>%s</p>\n" % (" class=\"warn\"" if x.startswith("caveat")
                             else "", esc(x)) for x in notes]
    b.append(_table(head, body, range(nk, len(head))))
    b += ["<p class=\"warn\"><strong>%s</strong></p>\n" % esc(w)
          for w in compare.warnings(tab, metrics)]
    b.append("<h2>Means and their confidence intervals</h2>\n<p>%s.</p>\n"
             % esc(compare.stats.CI_METHOD))
    head, body = compare.ci_cells(tab)
    b.append(_table(head, body, range(nk, len(head))))
    diffs = compare.differences(metrics)
    b.append("<h2>Differences between the variants</h2>\n<p>%s.</p>\n"
             % esc(compare.stats.TEST_METHOD))
    if diffs:
        head, body = compare.diff_cells(diffs)
        b.append(_table(head, body, range(len(head) - 6, len(head) - 1)))
    else:
        b.append("<p>None tested: fewer than 2 confirmed runs of two "
                 "variants of a combination.</p>\n")
    figs = _figures(figures, outdir)
    if figs:
        b.append(figs)
    b.append("<h2>Runs</h2>\n<table>\n<tr><th>variant</th>"
             "<th>repetition</th><th>log</th><th>verdict</th>"
             "<th>reasons</th><th>interactive view</th></tr>\n")
    for r in runs:
        b.append("<tr><td>%s</td><td class=\"n\">%s</td>"
                 "<td><a href=\"%s\">%s</a></td><td>%s</td><td>%s</td>"
                 "<td>%s</td></tr>\n" % (
                     esc(_variant(r)), esc(r["repetition"]),
                     esc(r["report"]), esc(r["log"]), _verdict(r["verdict"]),
                     _reasons(r["reasons"]) or "-",
                     "<a href=\"%s\">view</a>" % esc(r["view"])
                     if r.get("view") else "-"))
    b.append("</table>\n")
    b += _runs_extras_html(runs)
    return _page(test_id, b)


def run_variant(variant, params):
    """a run's variant, after its sweep's combination if any (delay
    10ms, loss 1%: cubic)"""
    return specmod.params_text(params) + ": " + variant if params else \
        variant


def _variant(r):
    return run_variant(r["variant"], r.get("params"))


def _dash(v):
    return "-" if v is None else ("%.6g" % v if isinstance(v, float) else v)


def _runs_extras_html(runs):
    """per run, its flows ([[flows]]) and MAGNeT's Table II per TCP stack
    ([path] relays), when summary.json has them (stacks.py)"""
    b = []
    for r in runs:
        name = "%s #%s" % (_variant(r), r["repetition"])
        if r.get("flows"):
            cols = ["flow", "port", "kind", "start", "started",
                    "first_data_s", "written", "read", "bytes_received",
                    "throughput_mbps", "iperf3_sent", "iperf3_received",
                    "iperf3_mbps"]
            b += ["<h2>%s: flows</h2>\n" % esc(name),
                  _table(["flow", "port", "kind", "start (s)",
                          "started (s)", "first data (s in the log)",
                          "written (log)", "read (log)",
                          "TCP received (log)", "Mbit/s (log)",
                          "iperf3 bytes sent", "iperf3 bytes received",
                          "iperf3 Mbit/s"],
                         [[_dash(f.get(c)) for c in cols]
                          for f in r["flows"]], range(3, len(cols)))]
            if r.get("jain") is not None:
                b.append("<p>Jain's fairness index over the flows' rates "
                         "from the log: %.3f (1: the same rate each)</p>\n"
                         % r["jain"])
        if r.get("stacks"):
            cols = ["port", "stack", "layer", "count", "size_mean",
                    "size_p50", "size_p90", "spacing_mean_us",
                    "spacing_p50_us", "spacing_p90_us", "bytes"]
            b += ["<h2>%s: per TCP stack (MAGNeT's Table II)</h2>\n"
                  % esc(name),
                  _table(["port", "trial", "layer", "segments",
                          "mean size (bytes)", "size p50", "size p90",
                          "mean spacing (us)", "spacing p50",
                          "spacing p90", "bytes"],
                         [[_dash(x.get(c)) for c in cols]
                          for x in r["stacks"]], range(3, len(cols)))]
    return b
