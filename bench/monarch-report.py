#!/usr/bin/python3
"""The report of make bench-monarch (bench/monarch.sh): Markdown on stdout.

usage: monarch-report.py OUT PAIRS KVER REV COST_BYTES ACC_BYTES

OUT: bench/monarch-guest.sh's files. magnet's logs are read through
ttpb2ascii -f magnet (MAGNET_TTPB2ASCII, else on PATH), the stable text
interface; exits non-zero with a reason if a flow's files are missing or
its log has no data connection.
"""
import json
import os
import re
import statistics
import subprocess
import sys


def fail(msg):
    sys.exit("monarch-report: " + msg)


def iperf_mbps(path):
    try:
        j = json.load(open(path))
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    if j.get("error"):
        fail("%s: iperf3: %s" % (path, j["error"]))
    return j["end"]["sum_received"]["bits_per_second"] / 1e6


def proxy_delays(path):
    """{'out': (median, p99, n), 'back': (median, p99, n)} in us, and
    'packets', 'cpu_us' (a packet), 'invol' (involuntary context
    switches): proxy.txt"""
    d = {"cpu_us": None, "invol": None, "packets": None}
    for line in open(path):
        m = re.match(r"magnet-monarch-proxy: (\d+) packets,", line)
        if m:
            d["packets"] = int(m.group(1))
        m = re.match(r"cpu: .* ([\d.]+) us a packet; (\d+) voluntary, "
                     r"(\d+) involuntary", line)
        if m:
            d["cpu_us"], d["invol"] = float(m.group(1)), int(m.group(3))
        m = re.match(r"added delay, (packet to probe|response to verdict): "
                     r"(\d+), median ([\d.]+) us, p99 ([\d.]+) us", line)
        if m:
            d["out" if m.group(1).startswith("packet") else "back"] = \
                (float(m.group(3)), float(m.group(4)), int(m.group(2)))
    if "out" not in d or "back" not in d or not d["packets"]:
        fail("%s: no packet count or added delay lines" % path)
    return d


def sender(log):
    """the data connection's sender in magnet's log: (min RTT us, max RTT
    us, seconds from 10% to 90% of its bytes acknowledged, bytes)"""
    tool = os.environ.get("MAGNET_TTPB2ASCII", "ttpb2ascii")
    p = subprocess.run([tool, "-f", "magnet", log], capture_output=True,
                       text=True)
    if p.returncode:
        fail("%s -f magnet %s: exit %d: %s" % (tool, log, p.returncode,
                                              p.stderr.strip()))
    lines = p.stdout.splitlines()
    head = lines[0].split("\t")
    ix = {k: head.index(k) for k in ("time", "event", "sock", "netns",
                                     "rport", "bytes_acked", "rtt_us")}
    conns = {}
    for l in lines[1:]:
        w = l.split("\t")
        if len(w) != len(head) or w[ix["event"]] != "tcp_in" or \
                w[ix["rport"]] != "5201":
            continue
        conns.setdefault((w[ix["netns"]], w[ix["sock"]]), []).append(
            (float(w[ix["time"]]), int(w[ix["bytes_acked"]]),
             int(w[ix["rtt_us"]])))
    if not conns:
        fail("%s: no TCP event of a sender to port 5201" % log)
    ev = max(conns.values(), key=lambda e: max(b for _, b, _ in e))
    total = max(b for _, b, _ in ev)
    t10 = next(t for t, b, _ in ev if b >= 0.1 * total)
    t90 = next(t for t, b, _ in ev if b >= 0.9 * total)
    rtts = [r for _, _, r in ev if r > 0]
    return min(rtts), max(rtts), t90 - t10, total


def rel(a, b):
    return (a - b) / b


def pct(x):
    return "%+.1f%%" % (100 * x)


def syms(path):
    """[(percent, command, symbol)] of a profiled flow's perf report"""
    rows = []
    for line in open(path):
        p = line.split(None, 2)
        if len(p) == 3:
            rows.append((float(p[0]), p[1], p[2].strip()))
    return rows


def profile(f, cost_bytes):
    """the profile section (MONARCH_PROFILE=1), if the guest wrote one"""
    if not os.path.exists(f("prof-monarch.syms")):
        return
    print("## Profile: one more flow of each kind, %s, no netem\n" % cost_bytes)
    print("`perf record -a -e cpu-clock` in the guest, whose clock counts "
          "instructions: a command's or symbol's share of the samples is its "
          "share of the instructions executed while the flow's command ran "
          "(for Monarch: magnet-exp's set-up and tear-down, python3, "
          "included). Kernel work done in softirq is charged to the command "
          "that was running (a probe the proxy sends crosses the router and "
          "the remote, and the answer comes back, inside the proxy's own "
          "send call, on this one vCPU). Symbols: `[k]` kernel, `[.]` user "
          "space.\n")
    for name, label in (("prof-tcp", "real TCP"),
                        ("prof-monarch", "Monarch")):
        rows = syms(f(name + ".syms"))
        n = open(f(name + ".samples")).read().strip()
        j = json.load(open(f(name + ".json" if name == "prof-tcp"
                             else os.path.join(name, "iperf3.json"))))
        by = {}
        for pc, comm, _ in rows:
            by[comm] = by.get(comm, 0) + pc
        print("### %s: %.1f Mbit/s, %s samples\n" % (
            label, j["end"]["sum_received"]["bits_per_second"] / 1e6, n))
        print("| command | share |\n|---|---|")
        for comm, pc in sorted(by.items(), key=lambda kv: -kv[1])[:8]:
            print("| %s | %.1f%% |" % (comm, pc))
        print("\n| share | command | symbol |\n|---|---|---|")
        for pc, comm, sym in sorted(rows, key=lambda r: -r[0])[:25]:
            print("| %.2f%% | %s | `%s` |" % (pc, comm, sym))
        print()


def ping_ipg(path):
    """the mean µs between a ping flood's requests (ping -f: the next is
    sent when the answer comes), from ping's ipg/ewma line"""
    for line in open(path):
        m = re.match(r"(?:rtt .*, )?ipg/ewma ([\d.]+)/", line.strip())
        if m:
            return float(m.group(1)) * 1e3
    fail("%s: no ipg/ewma line" % path)


def ceiling(f, cost_bytes, tcp_rates):
    """the section on what no proxy can save (bench/monarch-guest.sh's
    plumbing flow and ping floods), if the guest wrote it"""
    if not os.path.exists(f("cost-plumbing.json")):
        return
    us = lambda mbps: 1448 * 8 / mbps	# a full segment's time, in us
    t = statistics.mean(tcp_rates)
    p = iperf_mbps(f("cost-plumbing.json"))
    small, full = ping_ipg(f("cost-ping-40.txt")), \
        ping_ipg(f("cost-ping-1500.txt"))
    print("## What no proxy can save: the cost's floor\n")
    print("On one vCPU every packet's work is done in turn, so a flow's "
          "time a packet is the sum of what each packet costs. A Monarch "
          "packet crosses Monarch's own namespaces, and its probe makes a "
          "round trip to the remote; neither depends on the proxy. "
          "Measured once, %s, after the pairs above:\n" % cost_bytes)
    print("| what | Mbit/s | us a packet (1448-byte segments) |")
    print("|---|---|---|")
    print("| real TCP to the remote (the pairs' mean) | %.1f | %.1f |"
          % (t, us(t)))
    print("| TCP through Monarch's namespaces, routes and nftables table, "
          "its queue rule an accept (no proxy) | %.1f | %.1f |"
          % (p, us(p)))
    print("| a 40-byte ICMP echo round trip to the remote (ping -f, its "
          "interval) | | %.1f |" % small)
    print("| a 1500-byte one | | %.1f |" % full)
    print("\nA probe's round trip is of the same kind as a small echo's: a "
          "packet each way through the router, the remote's answer, a "
          "process that sends and receives (the probe is as large as its "
          "packet, the TCP probe's answer a 40-byte RST). Taking the "
          "40-byte echo's interval for it, a proxy that cost nothing would "
          "still leave a ratio of about %.1f / (%.1f + %.1f) = **%.2f** at "
          "most; the proxy's own work (the queue's messages and verdicts, "
          "the probe's build, its trace) comes on top.\n"
          % (us(t), us(p), small, us(t) / (us(p) + small)))


def main(argv):
    if len(argv) != 7:
        fail("usage: monarch-report.py OUT PAIRS KVER REV COST_BYTES "
             "ACC_BYTES")
    out, pairs, kver, rev = argv[1], int(argv[2]), argv[3], argv[4]
    cost_bytes, acc_bytes = argv[5], argv[6]
    f = lambda *p: os.path.join(out, *p)
    print("# make bench-monarch: %s, %s\n" % (kver, rev))
    print("One boot, one vCPU, QEMU -icount shift=0,sleep=off (1 guest ns = "
          "1 instruction); scripts/monarch-net.sh's path (mo-host, a router, "
          "the remote mo-rem); pairs of flows of cubic alternating a real TCP "
          "flow (iperf3 to the remote) and a Monarch flow (magnet-exp "
          "monarch, tcp probes to a closed port of the remote), %d pairs "
          "each. Throughput: iperf3's receiver's.\n" % pairs)
    # cost
    print("## Cost: no netem, %s a flow\n" % cost_bytes)
    print("| pair | TCP Mbit/s | Monarch Mbit/s | ratio | proxy packet to "
          "probe, median / p99 us | response to verdict, median / p99 us | "
          "Monarch flow's guest us a packet | proxy CPU us a packet | "
          "proxy preempted |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios, meds, tcp_rates = [], [], []
    for i in range(1, pairs + 1):
        t = iperf_mbps(f("cost-tcp.%d.json" % i))
        tcp_rates.append(t)
        m = iperf_mbps(f("cost-monarch.%d" % i, "iperf3.json"))
        d = proxy_delays(f("cost-monarch.%d" % i, "proxy.txt"))
        ratios.append(m / t)
        meds.append(d["out"][0] + d["back"][0])
        j = json.load(open(f("cost-monarch.%d" % i, "iperf3.json")))
        secs = j["end"]["sum_sent"]["seconds"]
        print("| %d | %.1f | %.1f | %.3f | %.1f / %.1f | %.1f / %.1f | %.1f "
              "| %s | %s |" % (
                  i, t, m, m / t, d["out"][0], d["out"][1], d["back"][0],
                  d["back"][1], secs * 1e6 / d["packets"],
                  "%.1f" % d["cpu_us"] if d["cpu_us"] is not None else "-",
                  d["invol"] if d["invol"] is not None else "-"))
    print("\nMedian ratio %.3f (target at least 0.5); the proxy's added delay "
          "(the two medians' sum) median over the flows %.1f us (target under "
          "100 us). Guest us a packet: the Monarch flow's iperf3 seconds over "
          "the packets the proxy held (under the instruction clock, "
          "instructions and the time the one vCPU waited); proxy CPU: its "
          "own user and system time (getrusage) over the same packets.\n"
          % (statistics.median(ratios), statistics.median(meds)))
    ceiling(f, cost_bytes, tcp_rates)
    # accuracy
    loss = open(f("acc-loss")).read().strip() if \
        os.path.exists(f("acc-loss")) else "random"
    print("## Accuracy: 20 Mbit/s, 15 ms each way, 0.5%% loss toward the "
          "remote (%s), %s a flow\n" % (loss, acc_bytes))
    if loss == "fixed":
        print("Loss fixed: the router drops the same 5 of every 1000 packets "
              "over 200 bytes it forwards toward the remote, counted from "
              "each flow's start (nftables' numgen), so that the two flows "
              "of a pair meet their losses at the same packets and differ "
              "by what Monarch changes, not by the draws of a random loss. "
              "dropped: that rule's counter for the flow.\n")
    else:
        print("Loss random: netem's, a new draw for every packet.\n")
    print("RTT: the sender's tcp_in `rtt_us` (the RTT of the latest "
          "acknowledged data), minimum and maximum; 10-90%: seconds from "
          "10% to 90% of the bytes acknowledged (`bytes_acked`); from "
          "magnet's log through `ttpb2ascii -f magnet`. diff: Monarch's "
          "against the TCP flow of its pair; TCP's against the TCP flow "
          "before it (the path's own run-to-run difference).\n")
    print("| pair | flow | Mbit/s | dropped | min RTT ms | max RTT ms | "
          "10-90% s | Mbit/s diff | min RTT diff | max RTT diff | "
          "10-90% diff | self-diagnosis |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def dropped(name):
        p = f(name + ".lost")
        return open(p).read().strip() or "-" if os.path.exists(p) else "-"

    dm, dt = [], []
    prev = None
    for i in range(1, pairs + 1):
        tm = iperf_mbps(f("acc-tcp.%d.json" % i))
        ts = sender(f("acc-tcp.%d.bin" % i))
        mm = iperf_mbps(f("acc-monarch.%d" % i, "iperf3.json"))
        ms = sender(f("acc-monarch.%d.bin" % i))
        diag = json.load(open(f("acc-monarch.%d" % i, "monarch.json")))
        diag = diag.get("diagnosis", {}).get("verdict", "none")
        tv = (tm,) + ts[:3]
        mv = (mm,) + ms[:3]
        if prev:
            d = [rel(a, b) for a, b in zip(tv, prev)]
            dt.append(abs(d[0]))
            ds = " | ".join(pct(x) for x in d)
        else:
            ds = " | ".join(["-"] * 4)
        print("| %d | TCP | %.2f | %s | %.1f | %.1f | %.2f | %s | |" % (
            i, tm, dropped("acc-tcp.%d" % i), ts[0] / 1e3, ts[1] / 1e3,
            ts[2], ds))
        d = [rel(a, b) for a, b in zip(mv, tv)]
        dm.append(abs(d[0]))
        print("| %d | Monarch | %.2f | %s | %.1f | %.1f | %.2f | %s | %s |" % (
            i, mm, dropped("acc-monarch.%d" % i), ms[0] / 1e3, ms[1] / 1e3,
            ms[2],
            " | ".join(pct(x) for x in d), diag))
        prev = tv
    med_m = statistics.median(dm)
    med_t = statistics.median(dt) if dt else float("nan")
    ok = med_m <= 0.05 and med_m <= med_t + 0.02
    print("\nMedian absolute throughput difference: Monarch against TCP "
          "%.1f%%, TCP against TCP %.1f%% (target: Monarch's within 5%% and "
          "no larger than TCP's + 2 points): %s.\n" % (
              100 * med_m, 100 * med_t, "met" if ok else "NOT met"))
    profile(f, cost_bytes)
    print("The router's qdiscs at the end of the accuracy flows "
          "(`tc -s qdisc`):\n\n```\n%s```" % open(f("acc-qdisc.txt")).read())


if __name__ == "__main__":
    main(sys.argv)
