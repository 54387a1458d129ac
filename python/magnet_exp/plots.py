"""Figures of a log (matplotlib, PNG and SVG): cwnd and srtt over time,
throughput over time, TEACUP's cwnd and ssthresh, smoothed and per-ACK
RTT and sequence numbers per sender, the CDFs of the modulation and
latency tables, and a comparison of several logs.

The analysis pass keeps, per connection end, at most MAX_POINTS points:
when a series fills up, every other point is dropped and from then on
only every second (then fourth, ...) point is kept, so memory stays flat
in the log's size while a figure keeps the series' shape. The CDFs are
drawn from the statistics' 1%-wide bins (modulation.Stat), not from the
values.
"""
import os
import textwrap

MAX_POINTS = 4000
# connection ends with fewer TCP records are left out of the figures
MIN_RECORDS = 4


class Series:
    """(time, values...) points, decimated to at most MAX_POINTS"""
    __slots__ = ("pts", "stride", "skip")

    def __init__(self):
        self.pts = []
        self.stride = 1
        self.skip = 0

    def add(self, *p):
        if self.skip:
            self.skip -= 1
            return
        self.pts.append(p)
        self.skip = self.stride - 1
        if len(self.pts) >= MAX_POINTS:
            self.pts = self.pts[::2]
            self.stride *= 2


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, outdir, name, n=None):
    """@fig as @name.png and .svg in @outdir, the files' names; none when
    it has @n == 0 series (a figure with nothing drawn is not written)"""
    files = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, "%s.%s" % (name, ext))
        if n == 0:
            # nothing drawn; an earlier analysis's file of that name, in
            # the same directory, goes
            if os.path.exists(path):
                os.unlink(path)
            continue
        fig.savefig(path, dpi=100)
        files.append(os.path.basename(path))
    return files


def _senders(res):
    """the connection ends that had data acknowledged"""
    return [f for f in res.tcp_flows() if f.series.pts and
            f.series.pts[-1][3] > 0]


def log_figures(res, outdir, title):
    """cwnd_srtt and throughput figures of one log; returns
    [{"file", "series"}] per file written"""
    plt = _plt()
    out = []
    shown = [f for f in res.tcp_flows() if f.tcp_records >= MIN_RECORDS and
             f.series.pts]
    # with the limit parts: what held each sender back, under them
    limited = [f for f in shown if f.limits is not None and
               f.limits.dominant()]
    if limited:
        fig, (ax1, ax2, ax3) = plt.subplots(
            3, 1, sharex=True, figsize=(10, 8.5),
            gridspec_kw={"height_ratios": [3, 3, 0.6 + 0.4 * len(limited)]})
    else:
        fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(10, 7))
    for f in shown:
        t = [p[0] for p in f.series.pts]
        ax1.plot(t, [p[1] for p in f.series.pts], label=f.label(),
                 drawstyle="steps-post", linewidth=1)
        ax2.plot(t, [p[2] / 1000 for p in f.series.pts], label=f.label(),
                 linewidth=1)
    ax1.set_ylabel("cwnd (packets)")
    ax2.set_ylabel("srtt (ms)")
    ax2.set_xlabel("time (s)")
    ax1.set_title("%s: cwnd and srtt per connection end" % title)
    if shown:
        ax1.legend(fontsize="small")
    if limited:
        limit_timeline(ax3, limited, res.t0)
    fig.tight_layout()
    for name in _save(fig, outdir, "cwnd_srtt", len(shown)):
        out.append({"file": name, "series": 2 * len(shown)})
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 4))
    n = 0
    hows = []
    above = res.above_rate()
    for f, tp in res.throughputs().items():
        if tp:
            # a step per window, over the whole window, and the band of
            # what one window can be off by: the largest step of its
            # count (delivery.py, granularity)
            xs = [t for t, _ in tp["windows"]] + \
                [tp["windows"][-1][0] + tp["window_s"]]
            ys = [v for _, v in tp["windows"]] + [tp["windows"][-1][1]]
            g = tp["granularity_mbps"]
            line, = ax.plot(xs, ys, drawstyle="steps-post", linewidth=1,
                            label="%s (%.0f ms windows, each within "
                            "%.2f Mbit/s)" % (f.label(),
                                              tp["window_s"] * 1e3, g))
            ax.fill_between(xs, [max(0, y - g) for y in ys],
                            [y + g for y in ys], step="post", alpha=0.15,
                            color=line.get_color(), linewidth=0)
            # windows above the configured rate by more than their
            # granularity: a burst, not the path's rate (above_rate())
            hi = above.get(f)
            if hi:
                ax.plot([t + tp["window_s"] / 2 for t, _ in hi[1]],
                        [v for _, v in hi[1]], "x", color="tab:red",
                        label="%s: %d windows above the configured rate "
                        "(bursts, not the path's rate)" % (f.label(),
                                                           len(hi[1])))
            hows.append(tp["how"])
            n += 1
    if n:
        # the rates the path's qdiscs were configured with: what a
        # window above them shows is its count's steps, not the path
        for c in res.configured:
            ax.axhline(c["mbit_s"], color="grey", linestyle=":",
                       linewidth=1, label="configured: %s rate on %s, %g "
                       "Mbit/s (whole frames: the payload's is lower)" % (
                           c["qdisc"], c["dev"], c["mbit_s"]))
    ax.set_ylim(bottom=0)
    _close(fig, ax, outdir, "throughput", n, "throughput (Mbit/s)",
           "%s: throughput per connection end, from %s" % (
               title, "; ".join(sorted(set(hows))) or "its data delivered"),
           out)
    plt.close(fig)
    return out


# the kernel's chronographs' colours on the limit timeline
LIMIT_COLOURS = {"busy": "#4c72b0", "rwnd": "#dd8452", "sndbuf": "#c44e52",
                 "none": "#dddddd"}
LIMIT_LABELS = {"busy": "busy (cwnd or pacing)", "rwnd": "receiver's window",
                "sndbuf": "send buffer", "none": "nothing queued (app)"}


# the timeline's bins: at most this many per connection end, none
# narrower than LIMIT_BIN_NS (five jiffies at HZ=250: the kernel's times
# are counted in jiffies)
LIMIT_BINS = 200
LIMIT_BIN_NS = 20_000_000


def limit_timeline(ax, flows, t0):
    """a row per connection end of @flows: in each bin of its life, the
    share each of the kernel's chronographs ran, stacked (limits.Limits
    .binned: from the accumulated times at its records, not the
    chronograph its records happened to show), and the congestion-state
    changes its records' ca_state show (ticks: derived from consecutive
    records, not the kernel's events)"""
    seen = set()
    widths = []
    for i, f in enumerate(flows):
        li = f.limits
        n = max(1, min(LIMIT_BINS, (li.last_ns - li.first_ns) // LIMIT_BIN_NS))
        bins = li.binned(n)
        if bins:
            widths.append((bins[0][1] - bins[0][0]) / 1e6)
        x = [(b[0] - t0) / 1e9 for b in bins]
        w = [(b[1] - b[0]) / 1e9 for b in bins]
        bottom = [i - 0.35] * len(bins)
        for k, ch in ((2, "busy"), (3, "rwnd"), (4, "sndbuf"), (5, "none")):
            h = [b[k] * 0.7 for b in bins]
            ax.bar(x, h, width=w, bottom=bottom, align="edge",
                   color=LIMIT_COLOURS[ch], linewidth=0,
                   label=LIMIT_LABELS[ch] if ch not in seen else None)
            bottom = [a + c for a, c in zip(bottom, h)]
            seen.add(ch)
        xs = [(t - t0) / 1e9 for t, _ in f.ca_changes]
        if xs:
            ax.vlines(xs, i - 0.45, i + 0.45, color="black", linewidth=0.8)
        # named where they are few enough to read
        if len(xs) <= 40:
            for xx, (_, st) in zip(xs, f.ca_changes):
                ax.annotate(st, (xx, i + 0.45), fontsize="x-small",
                            rotation=90, va="bottom")

    ax.set_yticks(range(len(flows)))
    ax.set_yticklabels([":%s > %s:%s" % (f.key[2], f.key[3], f.key[4])
                        for f in flows], fontsize="x-small")
    ax.set_ylim(-0.6, len(flows) - 0.2 + 0.6)
    ax.set_xlabel("time (s); ticks: congestion-state changes (from "
                  "consecutive records' ca_state)")
    ax.set_title("what held each sender back: the share of each bin "
                 "(%s ms wide or more) each of the kernel's chronographs "
                 "ran" % ("%.0f" % min(widths) if widths else "?"),
                 fontsize="small")
    ax.legend(fontsize="x-small", loc="upper right", ncol=4)


def _close(fig, ax, outdir, name, n, ylabel, title, out):
    """a one-panel figure's labels, legend (if it has @n series), files;
    appends {"file", "series"} per file to @out"""
    ax.set_ylabel(ylabel)
    ax.set_xlabel("time (s)")
    # (a long title, the throughput's with how it was counted, wrapped)
    ax.set_title(textwrap.fill(title, 120), fontsize="small")
    if n:
        ax.legend(fontsize="small")
    fig.tight_layout()
    for f in _save(fig, outdir, name, n):
        out.append({"file": f, "series": n})
    fig.clf()


def _rel32(v, base):
    """a sequence number as bytes after @base, across 2^32 wraps"""
    return (v - base) % 2 ** 32


def teacup_figures(res, outdir, title):
    """the plots TEACUP users expect, per sending connection end: cwnd
    and ssthresh (cwnd_ssthresh), smoothed and per-ACK RTT (rtt), and the
    sequence numbers sent and acknowledged over time (seq); returns
    [{"file", "series"}] per file written"""
    plt = _plt()
    out = []
    senders = [f for f in _senders(res) if f.tcp_records >= MIN_RECORDS]

    fig, ax = plt.subplots(figsize=(10, 4))
    n = 0
    for f in senders:
        t = [p[0] for p in f.series.pts]
        line, = ax.plot(t, [p[1] for p in f.series.pts], linewidth=1,
                        drawstyle="steps-post", label="%s cwnd" % f.label())
        n += 1
        ss = [(p[0], p[1]) for p in f.detail.pts if p[1] is not None]
        if ss:
            ax.plot([x for x, _ in ss], [y for _, y in ss], linewidth=1,
                    linestyle="--", drawstyle="steps-post",
                    color=line.get_color(), label="%s ssthresh" % f.label())
            n += 1
    _close(fig, ax, outdir, "cwnd_ssthresh", n, "packets",
           "%s: cwnd and ssthresh per sending connection end (ssthresh "
           "only once set: before the first loss it is 'infinite')" % title,
           out)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 4))
    n = 0
    for f in senders:
        # srtt 0: no sample yet, not a round trip of 0
        sr = [(p[0], p[2]) for p in f.series.pts if p[2]]
        line, = ax.plot([x for x, _ in sr], [y / 1000 for _, y in sr],
                        linewidth=1, label="%s srtt" % f.label())
        n += 1
        acks = [(p[0], p[2]) for p in f.detail.pts if p[2] is not None]
        if acks:
            ax.plot([x for x, _ in acks], [y / 1000 for _, y in acks], ".",
                    markersize=2, color=line.get_color(),
                    label="%s per ACK" % f.label())
            n += 1
    _close(fig, ax, outdir, "rtt", n, "RTT (ms)",
           "%s: smoothed RTT, and each ACK's sample (the RTT of the data it "
           "acknowledged)" % title, out)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 4))
    n = 0
    for f in senders:
        pts = f.detail.pts
        base = pts[0][4]
        line, = ax.plot([p[0] for p in pts],
                        [_rel32(p[3], base) / 1e6 for p in pts], linewidth=1,
                        drawstyle="steps-post", label="%s snd_nxt" % f.label())
        ax.plot([p[0] for p in pts], [_rel32(p[4], base) / 1e6 for p in pts],
                linewidth=1, linestyle="--", drawstyle="steps-post",
                color=line.get_color(), label="%s snd_una" % f.label())
        n += 2
    _close(fig, ax, outdir, "seq", n, "MB after the first snd_una",
           "%s: sequence numbers sent (snd_nxt) and acknowledged (snd_una) "
           "per sending connection end" % title, out)
    plt.close(fig)
    return out


def cdf_steps(points):
    """(xs, ys) to draw a CDF's points [(value, fraction)] as steps
    (drawstyle steps-post): from 0 up to the first fraction at the first
    value, and so on"""
    if not points:
        return [], []
    return ([points[0][0]] + [p[0] for p in points],
            [0.0] + [p[1] for p in points])


# a layer's colour and, with several connection ends, an end's line style
_LAYER_COLOURS = {"app": "C0", "tcp": "C1", "ip": "C2", "dev": "C3"}
_STYLES = ("-", "--", ":", "-.")
MAX_CDF_ENDS = len(_STYLES)


def _cdf_axis(ax, xlabel, n):
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction at most")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    if n:
        ax.legend(fontsize="small", loc="lower right")
    else:
        ax.text(0.5, 0.5, "nothing to show", transform=ax.transAxes,
                ha="center")


def cdf_figures(res, outdir, title):
    """modulation_cdf (MAGNeT's Figure 8: per layer, the sizes of the
    events that carry data and the time between them, for the connection
    ends that sent data, at most MAX_CDF_ENDS of the busiest) and
    latency_cdf (a series per row of the latency table), drawn from the
    statistics' bins; @res: a LogAnalysis. Returns [{"file", "series"}]"""
    from magnet_exp.modulation import LAYERS
    plt = _plt()
    out = []
    ends = res.modulation.senders(keep=res.host_keys)[:MAX_CDF_ENDS]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    n1 = n2 = 0
    for i, (key, layers) in enumerate(ends):
        for layer in LAYERS:
            if layer not in layers:
                continue
            size, gap = layers[layer]
            label = layer if len(ends) == 1 else "%s, %s" % (
                layer, res.flows[key].label())
            style = dict(color=_LAYER_COLOURS[layer], linewidth=1.2,
                         linestyle=_STYLES[i], drawstyle="steps-post",
                         label=label)
            xs, ys = cdf_steps(size.cdf())
            if xs:
                ax1.plot(xs, ys, **style)
                n1 += 1
            xs, ys = cdf_steps([(v / 1e3, f) for v, f in gap.cdf()])
            if xs:
                ax2.plot(xs, ys, **style)
                n2 += 1
    ax1.set_title("size of the events carrying data")
    ax2.set_title("time between them")
    _cdf_axis(ax1, "bytes", n1)
    _cdf_axis(ax2, "microseconds", n2)
    fig.suptitle("%s: how the stack shaped the traffic, per layer "
                 "(the data senders)" % title)
    fig.tight_layout()
    for name in _save(fig, outdir, "modulation_cdf", n1 + n2):
        out.append({"file": name, "series": n1 + n2})
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 4.5))
    n = 0
    items = res.latency.items(res.socket_netns())
    several = len({k[0] for k, _ in items}) > 1
    for k, st in items:
        xs, ys = cdf_steps([(v / 1e3, f) for v, f in st.cdf()])
        if xs:
            ax.plot(xs, ys, drawstyle="steps-post", linewidth=1.2,
                    linestyle="-" if k[1] == "out" else "--",
                    label=("%s, " % res.host_name(k[0]) if several else "") +
                    "%s: %s -> %s" % k[1:])
            n += 1
    ax.set_title("%s: time from layer to layer (segments matched by "
                 "sequence range)" % title)
    _cdf_axis(ax, "microseconds", n)
    fig.tight_layout()
    for name in _save(fig, outdir, "latency_cdf", n):
        out.append({"file": name, "series": n})
    plt.close(fig)
    return out


def compare_figure(runs, outdir):
    """throughput over time of each log's busiest sending connection end,
    one series per log; @runs: [(name, LogAnalysis)]"""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 4))
    n = 0
    for name, res in runs:
        best = max(_senders(res), key=lambda f: f.series.pts[-1][3],
                   default=None)
        tp = best and res.throughputs().get(best)
        if tp:
            t0 = best.series.pts[0][0]
            ax.plot([t - t0 for t, _ in tp["windows"]] +
                    [tp["windows"][-1][0] + tp["window_s"] - t0],
                    [v for _, v in tp["windows"]] + [tp["windows"][-1][1]],
                    drawstyle="steps-post", linewidth=1,
                    label="%s (%.0f ms windows)" % (name,
                                                    tp["window_s"] * 1e3))
            n += 1
    ax.set_ylabel("throughput (Mbit/s, data delivered, windows >= RTT)")
    ax.set_xlabel("time from the connection's first record (s)")
    ax.set_title("the logs compared: each one's busiest sender")
    if n:
        ax.legend(fontsize="small")
    fig.tight_layout()
    files = [{"file": f, "series": n} for f in _save(fig, outdir, "compare")]
    plt.close(fig)
    return files


# the metrics of spread_figure: (compare.COLUMNS name, axis label)
SPREAD_METRICS = (("throughput_mbps", "throughput (Mbit/s, from the log)"),
                  ("retransmits", "retransmitted segments"),
                  ("rtt_mean_ms", "mean smoothed RTT (ms)"),
                  ("t90_s", "time from the SYN to 90% acked (s)"))


def spread_figure(groups, outdir):
    """each variant's repetitions (of a sweep: per combination and
    variant) side by side, one panel per metric: a box from the first to
    the third quartile with the median, whiskers to the smallest and the
    largest value (no outlier rule), every repetition's value as a
    point, and to its right the mean with its 95% confidence interval
    (stats.mean_ci; with 2 runs or more); @groups: compare.groups()'s
    [(params, variant, [metrics of the confirmed runs])]"""
    from . import stats
    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(max(8, 1.4 * len(groups) + 3),
                                            7))
    names = ["\n".join(["%s %s" % kv for kv in p.items()] + [v])
             for p, v, _ in groups]
    n = 0
    for ax, (col, label) in zip(axes.flat, SPREAD_METRICS):
        vals = [[m[col] for m in ms if m.get(col) is not None]
                for _, _, ms in groups]
        pos = [i + 1 for i, v in enumerate(vals) if v]
        if pos:
            ax.boxplot([v for v in vals if v], positions=pos, whis=(0, 100),
                       widths=0.5, showfliers=False)
            for i, v in enumerate(vals):
                ax.plot([i + 1] * len(v), v, "o", markersize=4, alpha=0.6,
                        color="tab:blue")
                mean, lo, hi = stats.mean_ci(v)
                if lo is not None:
                    ax.errorbar([i + 1.35], [mean],
                                yerr=[[mean - lo], [hi - mean]], fmt="D",
                                markersize=4, capsize=3, color="tab:red")
            n += sum(len(v) for v in vals)
        else:
            ax.text(0.5, 0.5, "no run has a value", ha="center",
                    va="center", transform=ax.transAxes)
        ax.set_xticks(range(1, len(groups) + 1))
        ax.set_xticklabels(names, fontsize="small")
        ax.set_xlim(0.5, len(groups) + 0.5)
        ax.set_ylabel(label)
    fig.suptitle("the repetitions' spread (runs whose verdict is "
                 "confirmed): box from the 1st to the 3rd quartile, line "
                 "the median, whiskers min..max, points the runs; red: the "
                 "mean and its 95% confidence interval (Student's t)",
                 fontsize="small")
    fig.tight_layout()
    files = [{"file": f, "series": n} for f in _save(fig, outdir, "spread")]
    plt.close(fig)
    return files


def plane_figure(groups, outdir, delay="rtt"):
    """the throughput-delay plane (Pantheon's): each confirmed run a
    point, its throughput from the log against the 95th percentile of its
    senders' RTT samples (compare.run_metrics' rtt_p95_ms: plane.png) or,
    with @delay "owd", of its data segments' one-way delays (owd_p95_ms:
    plane_owd.png), one colour per variant (of a sweep: per combination
    and variant), and each one's mean with its 95% confidence interval
    both ways (stats.mean_ci; with 2 runs or more); the delay axis runs
    right to left, so that better is up and to the right; @groups:
    compare.groups()'s"""
    from . import compare, stats
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 6))
    n = 0
    key = delay + "_p95_ms"
    # the largest value each way, intervals included
    top, right = [0], [0]
    froms = set()
    for k, (p, v, ms) in enumerate(groups):
        pts = [(m[key], m["throughput_mbps"]) for m in ms
               if m.get(key) is not None and
               m.get("throughput_mbps") is not None]
        froms |= {m.get("owd_from") for m in ms if m.get(key) is not None}
        if not pts:
            continue
        colour = "C%d" % (k % 10)
        label = " ".join(["%s %s" % kv for kv in p.items()] + [v])
        right += [x for x, _ in pts]
        top += [y for _, y in pts]
        ax.plot([x for x, _ in pts], [y for _, y in pts], "o", alpha=0.6,
                color=colour, label="%s (%d run%s)" % (
                    label, len(pts), "s" if len(pts) > 1 else ""))
        n += len(pts)
        mx, xlo, xhi = stats.mean_ci([x for x, _ in pts])
        my, ylo, yhi = stats.mean_ci([y for _, y in pts])
        if xlo is not None and ylo is not None:
            right.append(xhi)
            top.append(yhi)
            ax.errorbar([mx], [my], xerr=[[mx - xlo], [xhi - mx]],
                        yerr=[[my - ylo], [yhi - my]], fmt="D",
                        markersize=6, capsize=4, color=colour)
    if n:
        ax.legend(fontsize="small")
        # both axes from 0: a difference drawn in proportion to the
        # numbers, not blown up to fill the panel; delay right to left
        ax.set_ylim(0, max(top) * 1.1 or 1)
        ax.set_xlim(max(right) * 1.1 or 1, 0)
    else:
        ax.text(0.5, 0.5, "no run has both numbers", ha="center",
                va="center", transform=ax.transAxes)
    if delay == "rtt":
        ax.set_xlabel("95th percentile of the sender's RTT samples (ms, "
                      "decreasing to the right)")
    else:
        ax.set_xlabel("95th percentile of the data segments' one-way delay "
                      "(ms, decreasing to the right),\nfrom %s" % (
                          " or ".join(compare.OWD_FROM[f] for f in
                                      sorted(froms)) or "-"))
    ax.set_ylabel("throughput (Mbit/s, from the log)")
    ax.set_title("throughput against delay, runs whose verdict is "
                 "confirmed, both axes from 0;\ndiamonds: the mean and its "
                 "95% confidence interval both ways (Student's t, 2 runs "
                 "or more)", fontsize="small")
    fig.tight_layout()
    files = [{"file": f, "series": n} for f in _save(
        fig, outdir, "plane" if delay == "rtt" else "plane_owd", n)]
    plt.close(fig)
    return files


def delay_cdf_figure(groups, outdir):
    """delay_cdf.png/.svg: the CDF of each confirmed run's RTT samples
    (left) and of its data segments' one-way delays (right), every sample
    (compare.delay_samples, counted by value in microseconds), one colour
    per variant (of a sweep: per combination and variant), a line per
    run; @groups: compare.groups() of the runs' delay_samples()"""
    from . import compare
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    n = [0, 0]
    froms = set()
    for k, (p, v, dss) in enumerate(groups):
        colour = "C%d" % (k % 10)
        label = " ".join(["%s %s" % kv for kv in p.items()] + [v])
        runs = [sum(1 for d in dss if d[w]) for w in ("rtt", "owd")]
        for i, (ax, what) in enumerate(((ax1, "rtt"), (ax2, "owd"))):
            first = True
            for ds in dss:
                c = ds[what]
                if not c:
                    continue
                if what == "owd":
                    froms.add(ds["owd_from"])
                total = sum(c.values())
                xs, ys, seen = [], [], 0
                for us in sorted(c):
                    seen += c[us]
                    xs.append(us / 1e3)
                    ys.append(seen / total)
                ax.step(xs, ys, where="post", color=colour, linewidth=1,
                        alpha=0.8, label="%s (%d run%s)" % (
                            label, runs[i], "s" if runs[i] > 1 else "")
                        if first else None)
                first = False
                n[i] += 1
    ax1.set_title("RTT samples the data senders' TCP took from ACKs",
                  fontsize="small")
    ax2.set_title("one-way delay of each data segment, from\n%s" % (
        " or ".join(compare.OWD_FROM[f] for f in sorted(froms)) or "-"),
        fontsize="small")
    for ax, k in ((ax1, 0), (ax2, 1)):
        ax.set_xlabel("ms")
        ax.set_xlim(left=0)
        ax.grid(alpha=0.3)
        if n[k]:
            ax.legend(fontsize="small", loc="lower right")
        else:
            ax.text(0.5, 0.5, "no run has these samples", ha="center",
                    va="center", transform=ax.transAxes)
    ax1.set_ylabel("fraction of the samples at or below")
    fig.suptitle("delays of the runs whose verdict is confirmed, a line per "
                 "run, every sample")
    fig.tight_layout()
    files = [{"file": f, "series": sum(n)} for f in _save(
        fig, outdir, "delay_cdf", sum(n))]
    plt.close(fig)
    return files
