"""The bar chart of a `make bench` report: each configuration's ratio to the
baseline, one bar per round, magnet's bars apart from the anchors'.
usage: chart.py REPORT.md OUT.png"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ANCHORS = ("tcpdump-96", "tcpdump-full", "tracepoint", "bpftrace", "udp-tcpdump-96")


def rows(path):
    """(config, round, ratio, lost) of every table row but the baselines"""
    for line in open(path):
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(f) < 6 or f[0] in ("config", "---") or "baseline" in f[0]:
            continue
        try:
            ratio = float(f[3])
        except ValueError:
            continue
        yield f[0], f[1], ratio, f[5]


def main():
    report, out = sys.argv[1], sys.argv[2]
    data = {}
    for name, rnd, ratio, lost in rows(report):
        data.setdefault(name, []).append((rnd, ratio, lost))
    names = list(data)
    rounds = sorted({r for v in data.values() for r, _, _ in v})
    width = 0.8 / len(rounds)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for i, rnd in enumerate(rounds):
        xs, ys, colors = [], [], []
        for j, name in enumerate(names):
            for r, ratio, lost in data[name]:
                if r == rnd:
                    xs.append(j + (i - (len(rounds) - 1) / 2) * width)
                    ys.append(ratio)
                    colors.append("tab:gray" if name in ANCHORS else "tab:blue")
        # lighter round by round, the last still visible (BENCH_REPS > 2)
        ax.bar(xs, ys, width * 0.95, color=colors,
               alpha=1.0 - 0.35 * i * min(1.0, 2.0 / len(rounds)),
               label="round %s" % rnd)
    for j, name in enumerate(names):
        lost = [lo for _, _, lo in data[name] if lo not in ("0", "-")]
        if lost:
            ax.annotate("lost", (j, 0.03), ha="center", fontsize=8, color="tab:red")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("throughput / baseline")
    ax.set_ylim(0, 1.05)
    ax.set_title("make bench: %s (gray: anchors, blue: magnet)" % report.split("/")[-1][:-3])
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


main()
