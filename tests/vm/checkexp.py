#!/usr/bin/env python3
"""Check a `magnet-exp run` directory (case_exp_run,
tests/vm/cases/90-exp.sh).

usage: checkexp.py main DIR RATE_MBIT DELAY_MS LIMIT LENGTH
       checkexp.py return-loss DIR
       checkexp.py forward-loss DIR
       checkexp.py lost DIR
       checkexp.py ssh DIR SENDER RECEIVER ROUTER IFINDEX,IFINDEX
       checkexp.py flows DIR NAME:START:BYTES[:LENGTH]...
       checkexp.py relays DIR RELAYS LENGTH COMMAND_BYTES
       checkexp.py teacup TTPROBE_LOG WEB10G_LOG OUTDIR
       checkexp.py sweep DIR RATE_MBIT LIMIT BYTES STALLS
       checkexp.py clocks DIR OFFSET_MS
       checkexp.py complete DIR BYTES
       checkexp.py monarch DIR
       checkexp.py kinds ANALYSIS SENT BYTES DROPPED SENT BYTES DROPPED KVER

main: every verdict confirmed; per run, the throughput from the log within
1% of iperf3's (3% for a log without the application's records); the largest cwnd at most three times what the path holds
(its bandwidth-delay product plus the bottleneck queue, in MSS-sized
packets; slow start overshoots by the growth of the round trips in which
the first loss is noticed, measured up to 2.1 times with reno); the figures
valid PNGs with a cwnd and an srtt series per connection end shown; the
sender's CSV: the rate part on every row, delivered never going back,
and at least the bytes acked over the MSS delivered; the sender's
throughput series counted at the receiver's TCP, no window above RATE by
more than its granularity and what the receiver took in late, back to
back, at its start or after a stall within it (taken_late); the
modulation table: the sender's application writes asking for and moving
at most LENGTH bytes, and no device-layer segment larger
than the MSS; the comparison table with a row
per variant. return-loss: the sender's connection is inaccurate for loss
on the return path. forward-loss: no return-path loss reported; the
receiver notes loss on the forward path. lost: every verdict inaccurate,
naming the lost records. ssh: a run over SSH (magnet-exp's [testbed]):
every file from the host that made it, with its name (cmd_ssh). flows:
[[flows]] (cmd_flows). relays: [path] relays and the per-stack table
(cmd_relays). teacup: TEACUP's ttprobe and web10g logs of the same
segments, analysed (cmd_teacup). sweep: a sweep of [path] delay
(cmd_sweep), its statistics held to SciPy's, each run's congestion
control to iperf3's, and two runs' logs swapped refused (mislabel). clocks: magnet-exp clocks on the run's log (one clock: 0
by construction) and on its sender's and receiver's records apart (true
offset 0 within the estimate's bound), then the receiver's clock moved by
OFFSET_MS (cmd_clocks). complete: [traffic] source iperf3
against socat (cmd_complete). monarch: a spec with [monarch]
(cmd_monarch).
"""
import bisect
import csv
import json
import os
import statistics
import subprocess
import sys
from collections import Counter


def fail(msg):
    print("checkexp: FAIL: " + msg)
    sys.exit(1)


def load(d):
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def analysis(d, run):
    a = os.path.join(d, run["log"][:-len(".bin.gz")] + ".analysis")
    with open(os.path.join(a, "verdict.json")) as f:
        return a, json.load(f)


def sender(v):
    """the data sender's connection end: most bytes out at the app layer"""
    best = None
    for m in v["modulation"]:
        if m["direction"] == "out" and m["layer"] == "app" and (
                best is None or m["count"] * m["size_mean"] >
                best["count"] * best["size_mean"]):
            best = m
    if best is None:
        fail("no application writes in the modulation table")
    return best["flow"]


def receiver_arrivals(a, v, flow):
    """the times (s, as in the analysis' CSVs) at which the receiver's
    TCP got @flow's segments"""
    src, _, dst = flow.split(" ")[:3]
    peer = [f for f in v["flows"] if f["flow"].startswith(
        "%s -> %s " % (dst, src))]
    if not peer:
        fail("%s: no receiver's end in the log" % flow)
    with open(os.path.join(a, peer[0]["csv"])) as f:
        return [float(r["time"]) for r in csv.DictReader(f)
                if r["event"] == "tcp_in"]


def taken_late(t, start, end, rate, mss):
    """the most bytes of the path's earlier windows the receiver can have
    taken in within the window [@start, @end) s, from the arrival times
    @t (sorted): netem sends a frame every frame's time at @rate Mbit/s,
    so segments arriving under half of that apart came late, all at once
    (the receiver, or netem's timer, had stalled: an emulated vCPU,
    interrupt coalescing). What the path carried before the window but
    the receiver took in within it is at least the run of such segments
    the window's first arrival begins, and at each segment of such a
    burst later in the window, what arrived since the start beyond what
    the path can carry in that time (a stall inside the window, then its
    backlog at once: a burst with no stall counts nothing); the larger.
    An MSS a segment: the receiver's CSV has no payload sizes, and a
    segment carries at most that"""
    # a full frame's time, s: MSS + TCP/IP headers with timestamps (52)
    # + Ethernet (14)
    half = (mss + 52 + 14) * 8 / (rate * 1e6) / 2
    k = bisect.bisect_left(t, start)
    n = 1 if k < len(t) else 0
    while k + n < len(t) and t[k + n] - t[k + n - 1] < half:
        n += 1
    late = n * mss
    got = 0
    for i in range(k, len(t)):
        if t[i] >= end:
            break
        got += mss
        if i > k and t[i] - t[i - 1] < half:
            late = max(late, got - rate * 1e6 / 8 * (t[i] - start))
    return late


def all_runs(d):
    """summary.json and spec.json of @d; every run the spec asks for
    analysed (a dropped run is a failure)"""
    s = load(d)
    with open(os.path.join(d, "spec.json")) as f:
        spec = json.load(f)
    want = len(spec["variants"]) * spec["repetitions"]
    some_runs(s, d)
    if len(s["runs"]) != want:
        fail("%d runs in summary.json, the spec asks for %d" % (
            len(s["runs"]), want))
    return s, spec


# How far apart the log's iperf3 window and iperf3's own may be in length
# (s): iperf3's receiver starts its clock after its TEST_START write and
# stops it after its read of TEST_END, the log's window is those two
# records (compare.py); under emulation the guest's CPUs stop at times,
# and either end of iperf3's clock can come that much later: seen 5.9 ms
# (2.47%) on 7.2, where a 1 MB Monarch flow's iperf3 receiver counts the
# 449 KB it read by TEST_END, in 0.23 s (a CI run: 2.80% the other way)
IPERF3_CLOCK = 10e-3


def iperf3_apart(name, m, d, run, tol_iperf3=0.01):
    """how far the log's throughput is from iperf3's; fails beyond
    @tol_iperf3 over iperf3's own window (from the application's
    records: the same bytes, so the rates differ by the windows'
    lengths) unless the two windows' lengths are within IPERF3_CLOCK, 3%
    over the receiver's TCP from its first data"""
    if not m["throughput_mbps"] or not m["iperf3_mbps"]:
        fail("%s: no throughput: %s" % (name, m))
    err = abs(m["throughput_mbps"] / m["iperf3_mbps"] - 1)
    tol = tol_iperf3 if m.get("window") == "iperf3" else 0.03
    if err <= tol:
        return err
    if m.get("window") == "iperf3":
        with open(os.path.join(d, run_iperf3(d, run))) as f:
            got = json.load(f)["end"]["sum_received"]["bytes"] * 8e-6
        dt = got / m["throughput_mbps"] - got / m["iperf3_mbps"]
        print("checkexp: %s: throughput %.2f%% from iperf3's, windows "
              "%+.1f ms apart (up to %.0f ms: iperf3's clock)" % (
                  name, err * 100, dt * 1e3, IPERF3_CLOCK * 1e3))
        if abs(dt) <= IPERF3_CLOCK:
            return err
    fail("%s: throughput %.3f Mbit/s from the log (%s window), %.3f "
         "from iperf3 (%.2f%% apart)" % (
             name, m["throughput_mbps"], m.get("window"),
             m["iperf3_mbps"], err * 100))


def run_iperf3(d, run):
    """the iperf3 JSON runs.json names for @run"""
    with open(os.path.join(d, "runs.json")) as f:
        for r in json.load(f):
            if (r["variant"], r["repetition"], r["log"]) == (
                    run["variant"], run["repetition"], run["log"]):
                return r["iperf3"]
    fail("%s #%d: not in runs.json" % (run["variant"], run["repetition"]))


def cmd_main(d, rate, delay, limit, length):
    s, spec = all_runs(d)
    for run in s["runs"]:
        name = "%s #%d" % (run["variant"], run["repetition"])
        if run["verdict"] != "confirmed":
            fail("%s: verdict %s: %s" % (name, run["verdict"],
                                         run["reasons"]))
        m = run["metrics"]
        err = iperf3_apart(name, m, d, run)
        a, v = analysis(d, run)
        flow = sender(v)
        mss = None
        delivered = acked = 0
        with open(os.path.join(a, [f["csv"] for f in v["flows"]
                                   if f["flow"] == flow][0])) as f:
            for row in csv.DictReader(f):
                mss = int(row["mss"])
                # the rate part, on every TCP record of a version 3 log:
                # delivered never goes back along a connection
                # (pacing_rate empty before TCP computed one: ~0UL)
                if not (row["pacing_rate"].isdigit() or
                        row["pacing_rate"] == "") or \
                        not row["delivered"].isdigit():
                    fail("%s: a CSV row without the rate part: %s" % (name, row))
                if int(row["delivered"]) < delivered:
                    fail("%s: delivered went from %d to %s at %s" % (
                        name, delivered, row["delivered"], row["time"]))
                delivered = int(row["delivered"])
                acked = int(row["bytes_acked"])
        # each packet delivered carries at most an MSS (and the SYN one)
        if (delivered - 1) * mss < acked - 1:
            fail("%s: %d packets delivered, %d bytes acked, MSS %d"
                 % (name, delivered, acked, mss))
        # the throughput series: counted where the receiver's TCP got the
        # data (both ends are in the log), and no window above the
        # bottleneck's rate (netem's, which counts whole frames: the
        # payload alone is less) by more than the granularity the
        # analysis reports and what the receiver took in late (below)
        tp = [f for f in v["flows"] if f["flow"] == flow][0]["throughput"]
        if not tp or not tp["how"].startswith("data arriving at the "
                                              "receiver's TCP"):
            fail("%s: the sender's throughput series: %s" % (name, tp))
        t = receiver_arrivals(a, v, flow)
        top = None
        with open(os.path.join(a, "throughput.csv")) as f:
            for row in csv.DictReader(f):
                if row["flow"] != flow:
                    continue
                w, mbps = float(row["window_s"]), float(row["mbit_s"])
                late = taken_late(t, float(row["start"]),
                                  float(row["start"]) + w, rate, mss) \
                    * 8 / w / 1e6
                if mbps > rate + tp["granularity_mbps"] + late:
                    fail("%s: the %.0f ms window at %s s has %.2f Mbit/s, "
                         "above the path's %g (granularity %.2f; taken in "
                         "late: %.2f)" % (
                             name, w * 1e3, row["start"], mbps, rate,
                             tp["granularity_mbps"], late))
                if top is None or mbps - late > top[0] - top[1]:
                    top = (mbps, late)
        if top is None:
            fail("%s: no window in throughput.csv" % name)
        bdp = rate * 1e6 / 8 * (delay / 1e3) / mss
        # slow start grows cwnd by one per segment acked; the first drop
        # (the queue full) is known a round trip later, a round trip as
        # long as the full queue makes it, in which cwnd can grow by
        # another path's worth, and fast recovery takes another: 3x
        if m["cwnd_max"] > 3 * (bdp + limit):
            fail("%s: cwnd reached %d packets; the path holds %.0f (BDP "
                 "%.0f + queue %d)" % (name, m["cwnd_max"], bdp + limit,
                                       bdp, limit))
        app = [x for x in v["modulation"] if x["flow"] == flow and
               x["direction"] == "out" and x["layer"] == "app"][0]
        # iperf3 writes blocks of LENGTH; into a full buffer a
        # non-blocking write moves less, and the rest is asked for again
        # (every write can: through relays on 5.10 none moved more than
        # 55,024 of 65,536)
        if app["asked_max"] != length or not 0 < app["size_max"] <= length:
            fail("%s: application writes asked for up to %s and moved up to "
                 "%s bytes, iperf3 writes blocks of %d" % (
                     name, app["asked_max"], app["size_max"], length))
        for x in v["modulation"]:
            if x["layer"] == "dev" and x["size_max"] > mss:
                fail("%s: %s %s: a device segment of %d bytes, MSS %d"
                     % (name, x["flow"], x["direction"], x["size_max"], mss))
        shown = sum(1 for f in v["flows"] if f["tcp_records"] >= 4)
        figs = {f["file"]: f["series"] for f in v["figures"]}
        if figs.get("cwnd_srtt.png") != 2 * shown:
            fail("%s: cwnd_srtt.png has %s series, want %d" % (
                name, figs.get("cwnd_srtt.png"), 2 * shown))
        with open(os.path.join(a, "cwnd_srtt.png"), "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("%s: cwnd_srtt.png is not a PNG" % name)
        print("checkexp: %s: windows of %.0f ms up to %.2f Mbit/s; the "
              "highest less what came late: %.2f less %.2f "
              "(+- %.2f), path %g" % (
                  name, tp["window_s"] * 1e3, tp["max_mbps"], top[0],
                  top[1], tp["granularity_mbps"], rate))
        print("checkexp: %s: confirmed, %.2f Mbit/s (%s window; iperf3 "
              "%.2f, %.2f%% apart), cwnd max %d (path %.0f), writes %d, "
              "segments <= %d, delivered %d"
              % (name, m["throughput_mbps"], m.get("window"),
                 m["iperf3_mbps"], err * 100, m["cwnd_max"], bdp + limit,
                 length, mss, delivered))
    variants = [r["variant"] for r in s["comparison"]]
    if variants != list(dict.fromkeys(r["variant"] for r in s["runs"])):
        fail("comparison rows %s" % variants)
    if not os.path.exists(os.path.join(d, "compare.png")):
        fail("no compare.png")
    print("checkexp: comparison of %s" % ", ".join(variants))


def some_runs(s, d):
    """a check over every run of @s checks nothing on none: fail then"""
    if not s["runs"]:
        fail("%s: no run in summary.json" % d)


def cmd_lost(d):
    """bufsize=16 and the reader started after the traffic: inaccurate,
    naming the LOST records"""
    s = load(d)
    some_runs(s, d)
    for run in s["runs"]:
        if run["verdict"] != "inaccurate":
            fail("stalled reader: verdict %s" % run["verdict"])
        lost = [r for r in run["reasons"] if "records lost" in r["reason"]]
        if not lost or lost[0]["verdict"] != "inaccurate":
            fail("stalled reader: no reason names the lost records: %s"
                 % run["reasons"])
        print("checkexp: stalled reader: inaccurate: %s" % lost[0]["reason"])


def cmd_loss(d, where):
    s = load(d)
    some_runs(s, d)
    for run in s["runs"]:
        _, v = analysis(d, run)
        flow = sender(v)
        ret = [r for r in run["reasons"] if r.get("flow") == flow and
               "loss on the return path" in r["reason"]]
        fwd = [r for r in run["reasons"] if r.get("flow") != flow and
               "loss on the forward path" in r["reason"]]
        any_ret = [r for r in run["reasons"]
                   if "loss on the return path" in r["reason"]]
        if where == "return":
            if not ret or ret[0]["verdict"] != "inaccurate":
                fail("return-path loss not reported for %s: %s"
                     % (flow, run["reasons"]))
            print("checkexp: %s" % ret[0]["reason"])
        else:
            if any_ret:
                fail("forward-path loss reported as return-path loss: %s"
                     % any_ret)
            if not fwd:
                fail("no forward-path loss noted: %s" % run["reasons"])
            print("checkexp: no return-path loss; %s" % fwd[0]["reason"])


def cmd_ssh(d, snd, rcv, rtr, ifindex):
    """a run over SSH (case_exp_ssh): every run's files from the host
    that made them, named by it: the sender's log, iperf3 JSON and
    statistics, the receiver's iperf3 server log, none of the receiver's
    logs (it does not record); kernel.txt, sysctl.txt and qdisc.txt with
    a section per host, the router's netem bottleneck in qdisc.txt;
    runs.json with one entry per run, the sender's; topology.json with
    the end hosts' experiment interfaces"""
    with open(os.path.join(d, "spec.json")) as f:
        spec = json.load(f)
    with open(os.path.join(d, "runs.json")) as f:
        runs = json.load(f)
    want = len(spec["variants"]) * spec["repetitions"]
    if not runs or len(runs) != want:
        fail("runs.json: %d entries, want %d" % (len(runs), want))
    files = set(os.listdir(d))
    for r in runs:
        base = "%s_%s_%d_" % (spec["test_id"], r["variant"],
                              r["repetition"])
        if r.get("host") != snd or r["log"] != base + snd + \
                "_magnet.bin.gz" or r["iperf3"] != base + snd + \
                "_iperf3.json":
            fail("runs.json entry %s: not the sender %s's files" % (r, snd))
        for name in (r["log"], r["iperf3"], base + snd + "_magnet_stats.txt",
                     base + rcv + "_iperf3_server.log"):
            if name not in files or not os.path.getsize(os.path.join(d,
                                                                     name)):
                fail("%s: missing or empty" % name)
        with open(os.path.join(d, r["iperf3"])) as f:
            got = json.load(f)["end"]["sum_received"]["bytes"]
        if got < 1 << 20:
            fail("%s: %d bytes received" % (r["iperf3"], got))
        with open(os.path.join(d, base + rcv + "_iperf3_server.log")) as f:
            if "Accepted connection" not in f.read():
                fail("%s_iperf3_server.log: no connection accepted" % base)
        with open(os.path.join(d, base + snd + "_magnet_stats.txt")) as f:
            stats = f.read()
            if "version\t" not in stats or "\ntotal\t" not in stats:
                fail("%s_magnet_stats.txt: not magnet's statistics" % base)
        if base + rcv + "_magnet.bin.gz" in files:
            fail("a log from %s, which does not record" % rcv)
    for name in ("kernel.txt", "sysctl.txt", "qdisc.txt"):
        with open(os.path.join(d, name)) as f:
            text = f.read()
        for role, host in (("sender", snd), ("receiver", rcv),
                           ("router", rtr)):
            if "# %s %s\n" % (role, host) not in text:
                fail("%s: no section from the %s %s" % (name, role, host))
    with open(os.path.join(d, "qdisc.txt")) as f:
        router = f.read().split("# router %s\n" % rtr)[1]
    p = spec["path"]
    netem = [line for line in router.splitlines()
             if "netem" in line and "dev %s " % "rtr1" in line]
    if not netem or "rate %s" % p["rate"].replace("mbit", "Mbit") not in \
            netem[0] or "delay %s" % p["delay"] not in netem[0]:
        fail("qdisc.txt: the router's rtr1 has no netem %s %s: %s" % (
            p["rate"], p["delay"], router))
    with open(os.path.join(d, "topology.json")) as f:
        topo = json.load(f)
    if topo["host_ifindex"] != ifindex.split(","):
        fail("topology.json: host_ifindex %s, want %s" % (
            topo["host_ifindex"], ifindex))
    print("checkexp: %d runs over SSH: %s's logs, iperf3 and statistics, "
          "%s's iperf3 server logs, every host's kernel, sysctls and "
          "qdiscs (%s: %s)" % (len(runs), snd, rcv, rtr, netem[0].strip()))


# iperf3 writes a 37-byte cookie first on each connection, which its byte
# counts leave out
COOKIE = 37


def _server_count(d, run, name):
    """the byte count a command flow's server (... | wc -c) printed, in
    the file the run's flows.json names (on a testbed, the receiver's)"""
    with open(os.path.join(d, "runs.json")) as f:
        entry = [e for e in json.load(f) if e["log"] == run["log"]][0]
    with open(os.path.join(d, entry["flows"])) as f:
        flow = [x for x in json.load(f) if x["name"] == name][0]
    with open(os.path.join(d, flow["files"]["server"])) as f:
        return int(f.read().split()[-1])


def read_stalls(path):
    """stallmeter.py's @path: (its start, the last time it was seen
    running, [(time, late)] of its late wake-ups), times in s"""
    start, seen, late = None, None, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) != 2:
                fail("%s: %r is not a stallmeter.py line" % (path, line))
            if w[0] == "start":
                start = seen = float(w[1])
            elif w[0] == "alive":
                seen = float(w[1])
            else:
                late.append((float(w[0]), float(w[1])))
                seen = float(w[0]) + float(w[1])
    if start is None:
        fail("%s: no start line" % path)
    return start, seen, late


def stall_allowance(stalls, t0, t1, span):
    """the most time the guest stood still (stallmeter.py's late wake-ups,
    summed) within any @span s from @span before the window [@t0, @t1]
    to its end: a delay measured in the window (a packet's, an RTT
    sample's) waits that much more, the path and its queue being what
    they are; the meter must have run from before the window to past
    it"""
    start, seen, late = stalls
    if not start < t0 - span or seen < t1:
        fail("stallmeter ran from %.3f to %.3f, not through the run's "
             "%.3f..%.3f" % (start, seen, t0 - span, t1))
    ts = [(t, x) for t, x in late if t0 - span <= t <= t1]
    return max((sum(x for u, x in ts if t <= u < t + span)
                for t, _ in ts), default=0.0)


def cmd_sweep(d, rate, limit, size, stallfile):
    """a sweep of [path] delay: every combination ran every variant and
    repetition; each run had its combination's path, as tc's own readout
    of the router's netem says (its delay, and counters of that run
    alone: at least what iperf3's receiver got, less than three times
    BYTES), and an RTT in
    its range both as iperf3 read the kernel's srtt and as magnet's
    records say (mean srtt): at least the delay, at most the delay plus
    the queue's LIMIT full-size packets at RATE plus 10 ms plus the
    guest's stalls within the run (STALLS, stallmeter.py's file: the most
    of them in any span of that bound: a stalled guest delays its
    packets and ACKs as much, the path being what it is); the
    comparison a row per combination and variant, in the order run, each
    the median and the spread of its confirmed runs, the others listed,
    their 95% intervals and Welch's tests as SciPy's from the runs' own
    numbers; each run's congestion control, as the log's data senders'
    records say, its variant's and iperf3's sender's; two runs' logs
    swapped, refused (mislabel); spread.png drawn"""
    s = load(d)
    with open(os.path.join(d, "spec.json")) as f:
        spec = json.load(f)
    delays, variants = spec["path"]["delay"], spec["variants"]
    reps = spec["repetitions"]
    some_runs(s, d)
    runs = s["runs"]
    if len(runs) != len(delays) * len(variants) * reps:
        fail("%d runs, want %d" % (len(runs), len(delays) * len(variants)
                                   * reps))
    queue_ms = limit * 1514 * 8 / (rate * 1e3)
    stalls = read_stalls(stallfile)
    for r in runs:
        delay = r["params"]["delay"]
        d_ms = float(delay[:-2])
        base = os.path.join(d, r["log"][:-len("_magnet.bin.gz")])
        with open(base + "_qdisc.txt") as f:
            tc = f.read()
        line = [x for x in tc.splitlines() if "dev rtr1 " in x and
                "netem" in x]
        if not line or " delay %s" % delay not in line[0]:
            fail("%s: tc shows %r, want delay %s" % (base, line, delay))
        # qdisc netem ...\n Sent N bytes M pkt (dropped ...
        sent = int(tc.split("dev rtr1 ", 1)[1].split(" Sent ", 1)[1]
                   .split()[0])
        with open(os.path.join(d, run_iperf3(d, r))) as f:
            end = json.load(f)["end"]
        # the congestion control: iperf3's sender read it from its socket
        # (TCP_CONGESTION), the analysis from the log's TCP records
        cc = end.get("sender_tcp_congestion")
        if cc != r["variant"] or r["metrics"].get("ca") != cc:
            fail("%s: variant %s, iperf3's sender used %s, the log's data "
                 "senders %r" % (base, r["variant"], cc,
                                 r["metrics"].get("ca")))
        ip = end["streams"][0]["sender"]
        got = end["sum_received"]["bytes"]
        if not got <= sent < 3 * size:
            fail("%s: rtr1's netem sent %d bytes this run, iperf3's "
                 "receiver got %d of %d" % (base, sent, got, size))
        hi = d_ms + queue_ms + 10
        # the 95th percentile of the data sender's RTT samples, drawn
        # again here from the log's records (ttpb2ascii's text: tcp_in's
        # rtt_us at the sender, 10.77.1.1, on the connection with the
        # most ACKs: iperf3's data connection, not its control one),
        # nearest rank
        tool = os.environ["MAGNET_TTPB2ASCII"]
        recs = subprocess.run([tool, "-f", "magnet", os.path.join(
            d, r["log"])], capture_output=True, text=True,
            check=True).stdout.splitlines()
        head = recs[0].split("\t")
        ix = {c: head.index(c) for c in ("time", "event", "laddr",
                                         "lport", "rtt_us")}
        fields = [l.split("\t") for l in recs[1:]]
        acks = [x for x in fields if x[ix["event"]] == "tcp_in" and
                x[ix["laddr"]] == "10.77.1.1"]
        # the guest's stalls in the run widen the upper bound: a packet
        # or an RTT sample waits through them (stallmeter.py)
        times = [float(x[ix["time"]]) for x in fields]
        stall = stall_allowance(stalls, min(times), max(times),
                                hi / 1e3) * 1e3
        hi += stall
        port = Counter(x[ix["lport"]] for x in acks).most_common(1)
        samples = sorted(int(x[ix["rtt_us"]]) for x in acks
                         if port and x[ix["lport"]] == port[0][0] and
                         x[ix["rtt_us"]] and int(x[ix["rtt_us"]]) > 0)
        p95 = samples[-(-len(samples) * 95 // 100) - 1] / 1e3 \
            if samples else None
        if r["metrics"].get("rtt_p95_ms") != p95:
            fail("%s: p95 RTT %r ms, the log's %d samples give %r" % (
                base, r["metrics"].get("rtt_p95_ms"), len(samples), p95))
        # the data segments' one-way delays, drawn again here from the
        # records (the sweep has TCP's: tcp_out at the sender to tcp_in
        # at the receiver), as docs/experiments.md says: each arrival
        # from the send of the segment holding its first byte, a byte
        # sent more than once left out
        owd, mn = _owd(recs, port[0][0] if port else None)
        if r["metrics"].get("owd_p95_ms") != owd or \
                r["metrics"].get("owd_from") != "tcp":
            fail("%s: p95 one-way delay %r ms from %r, the log's records "
                 "give %r from tcp" % (base, r["metrics"].get("owd_p95_ms"),
                                       r["metrics"].get("owd_from"), owd))
        # none faster than netem's delay on the way (tc's own readout)
        if mn is None or mn < d_ms:
            fail("%s: the fastest data segment took %s ms one way, netem "
                 "holds each for %s ms" % (base, mn, d_ms))
        for what, rtt in (("iperf3's srtt", ip["min_rtt"] / 1e3),
                          ("the log's mean srtt",
                           r["metrics"]["rtt_mean_ms"]),
                          ("the 95th percentile of its RTT samples", p95),
                          ("the 95th percentile of its one-way delays",
                           owd)):
            if rtt is None or not d_ms <= rtt <= hi:
                fail("%s: %s %s ms, want %.0f..%.0f ms (%.1f ms of it the "
                     "guest's stalls in the run)" % (base, what, rtt, d_ms,
                                                     hi, stall))
        print("checkexp: %s: tc netem delay %s, %d bytes sent; srtt %.1f ms "
              "(iperf3), mean %.1f ms (log); the 95th percentile of %d RTT "
              "samples %.3f ms and of the one-way delays %.3f ms (min "
              "%.3f) (the log's records, as the report's); at most %.1f "
              "ms allowed, %.1f of it the guest's stalls" % (
                  os.path.basename(base), delay, sent, ip["min_rtt"] / 1e3,
                  r["metrics"]["rtt_mean_ms"], len(samples), p95, owd, mn,
                  hi, stall))
    rows = s["comparison"]
    want = [(dl, v) for dl in delays for v in variants]
    if [(x["delay"], x["variant"]) for x in rows] != want:
        fail("comparison rows %r, want %r" % (
            [(x["delay"], x["variant"]) for x in rows], want))
    # the statistics over the runs whose verdict is confirmed, the others
    # listed; the median and spread, and the mean's 95% interval and
    # Welch's test of each variant against the first, held to SciPy's
    # from the runs' own numbers
    from scipy import stats as S
    vals = {}
    for x in rows:
        mine = [r for r in runs if r["params"]["delay"] == x["delay"] and
                r["variant"] == x["variant"]]
        ok = [r for r in mine if r["verdict"] == "confirmed"]
        out = " ".join("#%d %s" % (r["repetition"], r["verdict"])
                       for r in mine if r["verdict"] != "confirmed")
        if len(mine) != reps or x["runs"] != len(ok) or \
                x["excluded"] != out:
            fail("row %s %s: %d runs, left out %r; its runs: %d, %d "
                 "confirmed, the others %r" % (
                     x["delay"], x["variant"], x["runs"], x["excluded"],
                     len(mine), len(ok), out))
        got = [r["metrics"]["rtt_mean_ms"] for r in ok]
        vals[(x["delay"], x["variant"])] = got
        if not got:
            continue
        if (x["rtt_mean_ms"], x["rtt_mean_ms_min"], x["rtt_mean_ms_max"]) \
                != (statistics.median(got), min(got), max(got)):
            fail("row %s %s: rtt %s (%s..%s), its runs %r" % (
                x["delay"], x["variant"], x["rtt_mean_ms"],
                x["rtt_mean_ms_min"], x["rtt_mean_ms_max"], got))
        if len(got) >= 2:
            lo, hi = S.t.interval(0.95, len(got) - 1, loc=S.tmean(got),
                                  scale=S.sem(got))
            if abs(x["rtt_mean_ms_ci_low"] - lo) > 1e-6 or \
                    abs(x["rtt_mean_ms_ci_high"] - hi) > 1e-6:
                fail("row %s %s: rtt 95%% interval [%s, %s], SciPy's "
                     "[%s, %s] of %r" % (
                         x["delay"], x["variant"], x["rtt_mean_ms_ci_low"],
                         x["rtt_mean_ms_ci_high"], lo, hi, got))
    tested = 0
    for dl in delays:
        a = vals[(dl, variants[0])]
        for v in variants[1:]:
            b = vals[(dl, v)]
            tst = [x for x in s["differences"] if x["params"]["delay"] == dl
                 and x["variant"] == v and x["column"] == "rtt_mean_ms"]
            if len(a) < 2 or len(b) < 2:
                if tst:
                    fail("delay %s %s: a test of %r against %r" % (
                        dl, v, b, a))
                continue
            p = S.ttest_ind(b, a, equal_var=False).pvalue
            if len(tst) != 1 or tst[0]["baseline"] != variants[0] or \
                    abs(tst[0]["p"] - p) > 1e-6 or tst[0]["significant"] != \
                    (p < 0.05):
                fail("delay %s %s against %s: the test %r, SciPy's p %s" % (
                    dl, v, variants[0], tst, p))
            tested += 1
    for name in ("spread.png", "plane.png", "plane_owd.png",
                 "delay_cdf.png"):
        png = os.path.join(d, name)
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("%s is not a PNG" % png)
    mislabel(d, runs)
    provenance(d)
    run_order(d, spec)
    print("checkexp: sweep: %d runs, %d rows of %d runs (%d confirmed), "
          "%d Welch's tests as SciPy's, spread.png, plane.png" % (
              len(runs), len(rows), reps,
              sum(r["verdict"] == "confirmed" for r in runs), tested))


def _owd(recs, port):
    """the 95th percentile (nearest rank) and the smallest of the one-way
    delays (ms) of the data segments of the sender 10.77.1.1's connection
    to @port from its tcp_out to the receiver 10.77.2.2's tcp_in, from
    ttpb2ascii's text @recs: an arrival's delay is from the send of the
    segment holding its first byte, whose bytes were sent once only"""
    import bisect
    head = recs[0].split("\t")
    ix = {c: head.index(c) for c in ("time", "event", "laddr", "lport",
                                     "rport", "seq", "end_seq")}
    base = None
    starts, ends, times, again = [], [], [], []
    got = []
    for line in recs[1:]:
        x = line.split("\t")
        ev = x[ix["event"]]
        if ev not in ("tcp_out", "tcp_in") or not x[ix["seq"]] or \
                x[ix["seq"]] == x[ix["end_seq"]]:
            continue
        seq, end = int(x[ix["seq"]]), int(x[ix["end_seq"]])
        sec, ns = x[ix["time"]].split(".")
        t = int(sec) * 10 ** 9 + int(ns)
        if ev == "tcp_out" and x[ix["laddr"]] == "10.77.1.1" and \
                x[ix["lport"]] == port:
            if base is None:
                base = seq
            a = (seq - base) % 2 ** 32
            a = a - 2 ** 32 if a >= 2 ** 31 else a
            b = a + (end - seq) % 2 ** 32
            if not ends or a >= ends[-1]:
                starts.append(a)
                ends.append(b)
                times.append(t)
                again.append(False)
            else:
                for i in range(len(starts)):
                    if starts[i] < b and ends[i] > a:
                        again[i] = True
        elif ev == "tcp_in" and x[ix["laddr"]] == "10.77.2.2" and \
                x[ix["rport"]] == port and base is not None:
            a = (seq - base) % 2 ** 32
            a = a - 2 ** 32 if a >= 2 ** 31 else a
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < ends[i] and times[i] <= t and not again[i]:
                got.append((t - times[i] + 500) // 1000)
    if not got:
        return None, None
    got.sort()
    return got[-(-len(got) * 95 // 100) - 1] / 1e3, got[0] / 1e3


def run_order(d, spec):
    """the sweep ran in a random order drawn from the seed order.json
    records, and its runs.json (interrupted and resumed: case_exp_sweep)
    is the one an uninterrupted sweep writes: drawn again here from that
    seed, as docs/experiments.md says the order is made (each
    repetition a block of every delay with every variant, in the spec's
    order, random.Random(seed).shuffle'd, block after block), each run's
    variant, repetition, delay and log name (TEACUP's: test, the sweep's
    key-value, variant, repetition, host)"""
    import random
    with open(os.path.join(d, "order.json")) as f:
        order = json.load(f)
    with open(os.path.join(d, "runs.json")) as f:
        done = json.load(f)
    seed = order.get("seed")
    if not isinstance(seed, int) or order.get("shuffled") is not True:
        fail("order.json: seed %r, shuffled %r: not a shuffled order" % (
            seed, order.get("shuffled")))
    rng = random.Random(seed)
    want = []
    for rep in range(1, spec["repetitions"] + 1):
        block = [(dl, v) for dl in spec["path"]["delay"]
                 for v in spec["variants"]]
        rng.shuffle(block)
        want += [(dl, v, rep) for dl, v in block]
    first = "%s_delay-%s_%s_%d_" % (spec["test_id"], want[0][0], want[0][1],
                                    want[0][2])
    if not done or not done[0]["log"].startswith(first):
        fail("runs.json's first run %r, the seed's %s...: another order" % (
            done[:1], first))
    host = done[0]["log"][len(first):-len("_magnet.bin.gz")]
    got = [(e.get("params", {}).get("delay"), e["variant"], e["repetition"],
            e["log"]) for e in done]
    exp = [(dl, v, rep, "%s_delay-%s_%s_%d_%s_magnet.bin.gz" % (
        spec["test_id"], dl, v, rep, host)) for dl, v, rep in want]
    if got != exp:
        bad = [k for k, (a, b) in enumerate(zip(got, exp)) if a != b]
        fail("runs.json: %d runs, the seed %d's order %d; first difference "
             "at %s: %r, want %r" % (len(got), seed, len(exp),
                                     bad[0] if bad else len(got),
                                     got[bad[0]] if bad else None,
                                     exp[bad[0]] if bad else exp[len(got):]))
    plain = [(dl, v, rep) for rep in range(1, spec["repetitions"] + 1)
             for dl in spec["path"]["delay"] for v in spec["variants"]]
    print("checkexp: sweep order: seed %d, %d runs as the seed orders them "
          "(%s the spec's order), runs.json as an uninterrupted sweep's" % (
              seed, len(got), "the same as" if want == plain
              else "not"))


def _clocks(logs, out):
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    p = subprocess.run([sys.executable, os.path.join(top, "userspace",
                                                     "magnet-exp"),
                        "clocks", "--json", out] + logs,
                       capture_output=True, text=True)
    if p.returncode:
        fail("magnet-exp clocks %s: exit %d: %s" % (" ".join(logs),
                                                    p.returncode,
                                                    p.stdout + p.stderr))
    with open(out) as f:
        est = json.load(f)
    pairs = [x for x in est["pairs"] if (x["a"], x["b"]) ==
             ("10.77.1.1", "10.77.2.2")]
    if len(pairs) != 1 or est["layer"] != "dev":
        fail("clocks: no dev-layer pair of the sender and the receiver: "
             "%r" % est)
    return est, pairs[0]


def cmd_clocks(d, offset_ms):
    """the clock offset between the sender's and the receiver's namespace
    of one kernel, in one log: one clock, 0 by construction (one_clock,
    theta and bound 0), with the router's devices left out as forwarders.
    Then the same records as two logs, the sender's and the receiver's
    (ttpb2ascii -n, each namespace's inode from topology.json): two
    clocks to the tool, whose estimate must hold the truth, 0, within its
    bound; and with every receiver's time moved by OFFSET_MS, the estimate
    must be that one plus OFFSET_MS and the bound that one, to the
    nanosecond"""
    s = load(d)
    some_runs(s, d)
    log = os.path.join(d, s["runs"][0]["log"])
    est, pr0 = _clocks([log], os.path.join(d, "clocks0.json"))
    if not pr0.get("one_clock") or pr0["theta_s"] != 0 or \
            pr0["bound_s"] != 0:
        fail("clocks: one log, one kernel's clock: %+.6f s +- %.6f s, "
             "one_clock %r; want 0 by construction" % (
                 pr0["theta_s"], pr0["bound_s"], pr0.get("one_clock")))
    with open(os.path.join(d, "topology.json")) as f:
        hosts = {v.split(" ")[0]: k for k, v in
                 json.load(f)["netns_hosts"].items()}
    if not any(x.startswith("netns %s " % hosts["router"])
               for x in est["forwarders"]) or any(
                   not x.startswith("netns %s " % hosts["router"])
                   for x in est["forwarders"]):
        fail("clocks: forwarders %r, want the router's (netns %s)" % (
            est["forwarders"], hosts["router"]))
    tool = os.environ["MAGNET_TTPB2ASCII"]
    text = {h: subprocess.run([tool, "-f", "magnet", "-n", hosts[h], log],
                              capture_output=True, text=True,
                              check=True).stdout.splitlines()
            for h in ("sender", "receiver")}

    def split(shift, name):
        """the sender's and the receiver's records as two logs, the
        receiver's times moved by SHIFT ns"""
        logs = []
        for host in ("sender", "receiver"):
            path = os.path.join(d, "clocks_%s_%s.txt" % (name, host))
            with open(path, "w") as f:
                f.write(text[host][0] + "\n")
                for line in text[host][1:]:
                    v = line.split("\t")
                    if host == "receiver":
                        sec, ns = v[0].split(".")
                        t = int(sec) * 10 ** 9 + int(ns) + shift
                        v[0] = "%d.%09d" % divmod(t, 10 ** 9)
                    f.write("\t".join(v) + "\n")
            logs.append(path)
        return _clocks(logs, os.path.join(d, "clocks_%s.json" % name))[1]
    pr = split(0, "apart")
    if pr.get("one_clock") or abs(pr["theta_s"]) > pr["bound_s"]:
        fail("clocks: two logs: offset %+.6f s +- %.6f s (one_clock %r), "
             "the truth 0 outside, or taken for one clock" % (
                 pr["theta_s"], pr["bound_s"], pr.get("one_clock")))
    pr2 = split(int(offset_ms * 1e6), "shifted")
    want = offset_ms / 1e3
    # the same packets' times, the receiver's moved by exactly the shift
    # (whole nanoseconds): the estimate moves by the shift and the bound
    # stays, both to within the floats' rounding (1 ns). A test of the
    # shifted estimate against its own bound alone could not fail here:
    # the bound (about 10 ms on this path) exceeds the shift
    if abs(pr2["theta_s"] - pr["theta_s"] - want) > 1e-9 or \
            abs(pr2["bound_s"] - pr["bound_s"]) > 1e-9:
        fail("clocks: with the receiver's clock %+.3f ms: %+.9f s +- %.9f "
             "s, want %+.9f s +- %.9f s (one log's estimate moved by the "
             "shift)" % (
                 offset_ms, pr2["theta_s"], pr2["bound_s"],
                 pr["theta_s"] + want, pr["bound_s"]))
    print("checkexp: clocks: one log: one clock, 0 (router's %d devices "
          "left out); as two logs: %+.6f s +- %.6f s (truth 0); the "
          "receiver's records %+.1f ms apart: %+.6f s +- %.6f s" % (
              len(est["forwarders"]), pr["theta_s"], pr["bound_s"],
              offset_ms, pr2["theta_s"], pr2["bound_s"]))


def cmd_complete(d, size):
    """[traffic] source swept over iperf3 and socat: socat's run moved
    every byte (its server's wc -c, the receiver's reads in the log and
    the sender's writes all BYTES; undelivered 0, no reason saying cut
    short, verdict confirmed); iperf3's run, if its application read
    less than was written, says so with the count (undelivered = written
    - read, and a reason naming the transfer cut short)"""
    s = load(d)
    seen = set()
    for run in s["runs"]:
        src = run["params"]["source"]
        seen.add(src)
        m = run["metrics"]
        cut = [r["reason"] for r in run["reasons"] if "cut short" in
               r["reason"]]
        if src == "socat":
            (row,) = run["flows"]
            got = _server_count(d, run, "bulk")
            if (got, row["written"], row["read"], m["undelivered"]) != \
                    (size, size, size, 0) or cut or \
                    run["verdict"] != "confirmed":
                fail("socat: its server counted %d, the log %d written and "
                     "%d read, undelivered %s, verdict %s %s; want %d" % (
                         got, row["written"], row["read"], m["undelivered"],
                         run["verdict"], cut, size))
            print("checkexp: socat: %d bytes written, read and counted by "
                  "its server; none undelivered" % size)
        else:
            und = m["undelivered"]
            if und is None or und < 0 or bool(und) != bool(cut) or (
                    und and ("%d" % und) not in cut[0]):
                fail("iperf3: undelivered %s, reasons %r" % (und, cut))
            print("checkexp: iperf3: %d bytes undelivered%s" % (
                und, (": " + cut[0]) if cut else ""))
    if seen != {"iperf3", "socat"}:
        fail("sources run: %s" % sorted(seen))


def cmd_flows(d, specs):
    """[[flows]]: every flow in the log; per iperf3 flow, what the
    sender's application wrote in the log exactly iperf3's bytes sent (the
    flow's size BYTES, or one write of LENGTH more: iperf3 -n may write
    one block past it, as it did on 7.2) and what the receiver's read exactly iperf3's bytes
    received, both with the 37-byte cookie iperf3 writes first on a data
    connection (iperf3's receiver stops counting at the end-of-test
    message, so it may have received less than was sent); the command
    flow's bytes written and read exactly what the command sent and its
    server counted; each flow started when the spec says (within 0.5 s),
    in flows.json and in the log (its first data, relative to the first
    flow's; a command's up to 1 s late, its processes starting); the
    verdict confirmed"""
    s = load(d)
    if len(s["runs"]) != 1:
        fail("%d runs, want 1" % len(s["runs"]))
    run = s["runs"][0]
    if run["verdict"] != "confirmed":
        fail("verdict %s: %s" % (run["verdict"], run["reasons"]))
    rows = {r["flow"]: r for r in run["flows"] or []}
    if sorted(rows) != sorted(x.split(":")[0] for x in specs):
        fail("flows %s, want %s" % (sorted(rows), specs))
    first = None
    for x in specs:
        name, start, want, length = (x + ":0").split(":")[:4]
        start, want, length = float(start), int(want), int(length)
        r = rows[name]
        if not r["connections"]:
            fail("%s: no receiving connection in the log" % name)
        if abs(r["started"] - start) > 0.5:
            fail("%s: started %.3f s after the first, spec %.1f" % (
                name, r["started"], start))
        if first is None:
            first = r["first_data_s"] - start
        lag = r["first_data_s"] - first
        # a command's first data waits for its processes to start (sh,
        # head, socat): under emulation up to 0.57 s after the runner
        # started it (5.10, 2026-11-28), so 1 s late is allowed there
        late = 1.0 if r["kind"] == "command" else 0.5
        if not -0.5 <= lag - start <= late:
            fail("%s: its first data %.3f s after the first flow's, spec "
                 "%.1f" % (name, lag, start))
        if r["kind"] == "iperf3":
            if not want <= r["iperf3_sent"] <= want + length or \
                    r["written"] != r["iperf3_sent"] + COOKIE or \
                    r["read"] != r["iperf3_received"] + COOKIE:
                fail("%s: the log has %d bytes written and %d read, iperf3 "
                     "%s sent and %s received (+%d, its cookie), the spec "
                     "%d (writes of %d)" % (
                         name, r["written"], r["read"], r["iperf3_sent"],
                         r["iperf3_received"], COOKIE, want, length))
            other = "iperf3 %d sent, %d received (+%d)" % (
                r["iperf3_sent"], r["iperf3_received"], COOKIE)
        else:
            got = _server_count(d, run, name)
            if got != want or r["written"] != want or r["read"] != want:
                fail("%s: the log has %d bytes written and %d read, its "
                     "server counted %d, the command sent %d" % (
                         name, r["written"], r["read"], got, want))
            other = "the command's and its server's %d" % want
        print("checkexp: flow %s (%s, port %d): started at %.3f s, first data "
              "%.3f s after the first flow's; in the log %d bytes written, %d "
              "read = %s" % (name, r["kind"], r["port"], r["started"], lag,
                             r["written"], r["read"], other))


def cmd_relays(d, relays, length, cmd_bytes):
    """[path] relays = N, an iperf3 flow (port 5201, writes of LENGTH) and
    a command flow of COMMAND_BYTES bytes (port 5202): per flow, the
    stacks table has the application and N+1 stack rows, in order, every
    stack's connection at the device layer; the iperf3 flow's application
    writes asked for LENGTH and moved at most that, in all
    iperf3's bytes sent and its cookie; no segment above the MSS at any
    stack; the new data each stack's TCP sent: never more than the
    application wrote, nor at a stack than at the one before (the iperf3
    server closes at the end of its test, and what the sender and the
    relays still held is lost), and for the command flow exactly
    COMMAND_BYTES at every
    stack and in the application's writes (the relays pass it all on),
    which the receiver's application read and its server counted; each
    stack's segments carry at least that new data; no verdict
    inaccurate"""
    s = load(d)
    some_runs(s, d)
    for run in s["runs"]:
        name = "%s #%d" % (run["variant"], run["repetition"])
        if run["verdict"] == "inaccurate":
            fail("%s: verdict %s: %s" % (name, run["verdict"],
                                         run["reasons"]))
        a, v = analysis(d, run)
        mss = 0
        for f in v["flows"]:
            with open(os.path.join(a, f["csv"])) as fh:
                for row in csv.DictReader(fh):
                    mss = max(mss, int(row["mss"]))
        flows = {r["port"]: r for r in run["flows"]}
        for port in (5201, 5202):
            rows = [r for r in run["stacks"] if r["port"] == port]
            want = ["application"] + ["%s TCP stack" % o for o in
                                      ("1st", "2nd", "3rd", "4th",
                                       "5th")[:relays + 1]]
            if [r["stack"] for r in rows] != want:
                fail("%s port %d: rows %s, want %s" % (
                    name, port, [r["stack"] for r in rows], want))
            app, stk = rows[0], rows[1:]
            if port == 5201 and (app["asked_max"] != length or
                                 not 0 < app["size_max"] <= length):
                fail("%s: application writes asked for up to %s and moved "
                     "up to %s bytes, iperf3 writes %d" % (
                         name, app["asked_max"], app["size_max"], length))
            prev = None
            for r in stk:
                if r["layer"] != "dev" or not r["count"]:
                    fail("%s port %d %s: %s" % (name, port, r["stack"], r))
                if r["size_max"] > mss:
                    fail("%s port %d %s: a segment of %d bytes, MSS %d" % (
                        name, port, r["stack"], r["size_max"], mss))
                # (the mean is rounded to 0.1)
                if r["count"] * (r["size_mean"] + 0.05) < r["bytes"]:
                    fail("%s port %d %s: %d segments of %.1f bytes on "
                         "average carried less than its %d bytes of new "
                         "data" % (name, port, r["stack"], r["count"],
                                   r["size_mean"], r["bytes"]))
                if r["bytes"] > (prev if prev is not None else app["bytes"]):
                    fail("%s port %d %s: %d bytes of new data, %d at the "
                         "stack before (or the application)" % (
                             name, port, r["stack"], r["bytes"],
                             prev if prev is not None else app["bytes"]))
                if port == 5202 and r["bytes"] != cmd_bytes:
                    fail("%s: the command flow's %s: %d bytes of new data, "
                         "the command sent %d" % (name, r["stack"],
                                                  r["bytes"], cmd_bytes))
                prev = r["bytes"]
            # the iperf3 flow's first stack may not send it all: iperf3's
            # server closes at the end of its test (the client's message on
            # its control connection), the relays' connections close after
            # it, and what the sender still held is reset (seen on 5.10:
            # 991,917 of 1,048,613); the command flow's ends wait for it all
            if port == 5202 and stk[0]["bytes"] != app["bytes"]:
                fail("%s port %d: the first stack sent %d bytes of new "
                     "data, the application wrote %d" % (
                         name, port, stk[0]["bytes"], app["bytes"]))
            want = flows[5201]["iperf3_sent"] + COOKIE if port == 5201 \
                else cmd_bytes
            if app["bytes"] != want:
                fail("%s port %d: the application wrote %d bytes, want %d"
                     % (name, port, app["bytes"], want))
            print("checkexp: %s port %d: %s" % (name, port, "; ".join(
                "%s %s x %s B, %s us apart, %s B" % (
                    r["stack"], r["count"], r["size_mean"],
                    r["spacing_mean_us"], r["bytes"]) for r in rows)))
        got = _server_count(d, run, flows[5202]["flow"])
        if got != cmd_bytes or flows[5202]["read"] != cmd_bytes:
            fail("%s: the receiver's server counted %d bytes, its reads in "
                 "the log %d, the command sent %d" % (
                     name, got, flows[5202]["read"], cmd_bytes))
    if not os.path.exists(os.path.join(d, "stacks.csv")):
        fail("no stacks.csv")
    with open(os.path.join(d, "comparison.md")) as f:
        if "## Per TCP stack (MAGNeT's Table II)" not in f.read():
            fail("comparison.md has no per-stack section")


def _summary(tool, log):
    """magnet-summary's rows: {(laddr, lport, raddr, rport): (o, i)}"""
    out = subprocess.run([tool, log], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    rows = {}
    for line in out[1:-1]:
        f = line.split()
        rows[tuple(f[0].split(","))] = (int(f[1]), int(f[2]))
    return rows


def _csv_rows(adir, fam, conn):
    la, lp, ra, rp = conn
    name = "%s_%s_%s_%s_%s.csv" % (fam, la.replace(":", "."), lp,
                                   ra.replace(":", "."), rp)
    with open(os.path.join(adir, name)) as f:
        return list(csv.DictReader(f))


def cmd_teacup(tt_log, w10g_log, out):
    """TEACUP's logs of the same segments, the ttprobe build's ASCII
    lines and magnet's web10g lines (case_web10g), analysed by magnet-exp:
    per connection (not the listener's), the ttprobe log's rows out and in
    as magnet-summary counts its lines (an independent reader); the web10g
    log's rows the same segments, row by row the same direction, cwnd,
    snd_una, snd_nxt, state and MSS, and its srtt the ttprobe line's in
    whole ms; the last bytes_acked of both the same (web10g's is the
    kernel's counter, the ttprobe log's snd_una's progress)"""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..")
    exp = [sys.executable, os.path.join(top, "userspace", "magnet-exp")]
    summ = _summary(os.path.join(top, "userspace", "magnet-summary"), tt_log)
    a_tt, a_w = os.path.join(out, "tt.analysis"), os.path.join(
        out, "w10g.analysis")
    for log, a, fmt in ((tt_log, a_tt, "ttprobe"), (w10g_log, a_w, "web10g")):
        subprocess.run(exp + ["analyse", "--no-figures", "-o", a, log],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(a, "verdict.json")) as f:
            v = json.load(f)
        if v["format"] != fmt or v["verdict"] != "indeterminate":
            fail("%s: format %s, verdict %s" % (log, v["format"],
                                                 v["verdict"]))
    n = rows_n = 0
    for conn, (o, i) in sorted(summ.items()):
        if conn[3] == "0":
            continue            # a listener: no connection
        fam = "6" if ":" in conn[0] else "4"
        tt = _csv_rows(a_tt, fam, conn)
        got = (sum(r["event"] == "tcp_out" for r in tt),
               sum(r["event"] == "tcp_in" for r in tt))
        if got != (o, i):
            fail("%s: the ttprobe log's analysis has %s rows out and in, "
                 "magnet-summary %s lines" % (",".join(conn), got, (o, i)))
        w = _csv_rows(a_w, fam, conn)
        if len(w) != len(tt):
            fail("%s: %d web10g rows, %d ttprobe rows" % (
                ",".join(conn), len(w), len(tt)))
        for k, (x, y) in enumerate(zip(tt, w)):
            for c in ("event", "cwnd", "snd_una", "snd_nxt", "state", "mss"):
                if x[c] != y[c]:
                    fail("%s row %d: %s %s in the ttprobe log, %s in the "
                         "web10g log" % (",".join(conn), k + 1, c, x[c],
                                         y[c]))
            if int(x["srtt_us"]) // 1000 * 1000 != int(y["srtt_us"] or 0):
                fail("%s row %d: srtt_us %s and %s" % (
                    ",".join(conn), k + 1, x["srtt_us"], y["srtt_us"]))
        if tt[-1]["bytes_acked"] != w[-1]["bytes_acked"]:
            fail("%s: bytes acked %s (ttprobe's snd_una), %s (web10g)" % (
                ",".join(conn), tt[-1]["bytes_acked"], w[-1]["bytes_acked"]))
        n += 1
        rows_n += len(tt)
    if n < 4:
        fail("%d connections in %s" % (n, tt_log))
    print("checkexp: teacup: %d connections, %d rows each way, as "
          "magnet-summary counts, the same segments in both formats" % (
              n, rows_n))


def cmd_monarch(d):
    """every run the spec asks for, each a Monarch flow: its files
    (monarch.json without an error, its self-diagnosis), the throughput
    from magnet's log as iperf3's (as main); the flows' hosts named as
    topology.json names that run's namespaces (sender, receiver), the
    sender's TCP records in the sender's; the comparison a row per
    variant"""
    s, spec = all_runs(d)
    for run in s["runs"]:
        name = "%s #%d" % (run["variant"], run["repetition"])
        base = run["log"][:-len("_magnet.bin.gz")]
        with open(os.path.join(d, base + "_monarch", "monarch.json")) as f:
            mo = json.load(f)
        if mo.get("error") or mo.get("teardown_errors") or \
                "verdict" not in mo.get("diagnosis", {}):
            fail("%s: monarch.json: %s" % (name, mo))
        if mo["cc"] != run["variant"] or \
                mo["probe"] != spec["monarch"]["probe"]:
            fail("%s: a flow of %s with %s probes" % (name, mo["cc"],
                                                      mo["probe"]))
        m = run["metrics"]
        # as main, but for iperf3's own window 2% (or IPERF3_CLOCK): a
        # 1 MB flow's window is a quarter of a second (iperf3 counts to
        # TEST_END, which its sender writes when the last byte is
        # written, not delivered); seen 1.02% on reno
        iperf3_apart(name, m, d, run, 0.02)
        _, v = analysis(d, run)
        ns = mo["namespaces"]
        hosts = {f["host"] for f in v["flows"]}
        want_hosts = {"sender (%s)" % ns["sender"],
                      "receiver (%s)" % ns["receiver"]}
        if hosts != want_hosts:
            fail("%s: the flows' hosts %s, not %s" % (name, sorted(hosts),
                                                      sorted(want_hosts)))
        snd = [f for f in v["flows"] if f["flow"] == sender(v)]
        if not snd or snd[0]["netns"] != str(ns["sender_netns"]):
            fail("%s: the sender's writes are not in the sender's "
                 "namespace: %s" % (name, snd))
        print("checkexp: monarch %s: %.2f Mbit/s (iperf3 %.2f), %s; %s"
              % (name, m["throughput_mbps"], m["iperf3_mbps"],
                 mo["diagnosis"]["verdict"], ", ".join(sorted(hosts))))
    variants = [r["variant"] for r in s["comparison"]]
    if variants != spec["variants"]:
        fail("comparison rows %s" % variants)
    print("checkexp: monarch: comparison of %s" % ", ".join(variants))


def cmd_kinds(a, n1, n4, kver):
    """case_qdisc_kept's log of loss kinds, analysed into @a: netem 1:
    (loss 30%, limit 1000, 200 datagrams) dropped only at random, netem
    4: (no loss, limit 10, 100 at once) only full, each as many as tc
    counted (@n1, @n4); on 5.x (no qdisc_enq events) every qdisc drop not
    told apart, @n1 + @n4 in all (its rows name every qdisc the device
    had: no enqueue event says which one dropped)"""
    with open(os.path.join(a, "verdict.json")) as f:
        d = json.load(f)
    qd = [m for m in d["drops"] if m["qdisc"]]
    print("checkexp: kinds: %s; tc: netem 1: dropped %d, netem 4: %d" % (
        sorted((m["qdisc"], m["kind"], m["limit"], m["packets"])
               for m in qd), n1, n4))
    if kver.startswith("5."):
        untold = ("not told apart (no qdisc_enq events: events=qdisc, "
                  "Linux 6.1 on)")
        if not all(m["kind"] == untold for m in qd) or \
                sum(m["packets"] for m in qd) != n1 + n4:
            fail("kinds: want every qdisc drop %r, %d in all" % (
                untold, n1 + n4))
        return
    got = Counter()
    for m in qd:
        if m["qdisc"] in ("netem 1:0", "netem 4:0"):
            got[(m["qdisc"], m["kind"], m["limit"])] += m["packets"]
    want = {("netem 1:0", "random loss (netem)", "1000 packets (tc)"): n1,
            ("netem 4:0", "overflow", "10 packets (tc)"): n4}
    if dict(got) != want:
        fail("kinds: want %s" % sorted(want.items()))


def provenance(d):
    """provenance.json against the guest: its kernel (kernel.txt), its
    CPUs (nproc in the guest, nproc.txt), QEMU's software emulation
    (tests/vm/run.sh boots without KVM unless MAGNET_VM_KVM=1: the
    guest's systemd-detect-virt --vm says qemu, --container docker when
    the root it shares is a container's), every
    device of topology.json with TSO, GSO and GRO off (magnet-exp run turns
    them off); and the caveat of emulation in comparison.md"""
    with open(os.path.join(d, "provenance.json")) as f:
        p = json.load(f)
    with open(os.path.join(d, "kernel.txt")) as f:
        kernel = f.read().strip()
    with open(os.path.join(d, "nproc.txt")) as f:
        cpus = int(f.read())
    with open(os.path.join(d, "topology.json")) as f:
        devs = json.load(f)["devices"]
    virt = "kvm" if os.environ.get("MAGNET_VM_KVM") == "1" else "qemu"
    if (p["kernel"], p["cpus"], p["virtualization"]) != (kernel, cpus, virt):
        fail("provenance.json: kernel %s, %s CPUs, virtualization %s; the "
             "guest's: %s, %d, %s" % (p["kernel"], p["cpus"],
                                      p["virtualization"], kernel, cpus,
                                      virt))
    for dev in devs:
        o = p["offloads"].get(dev, {})
        if [o.get(k) for k in ("tcp-segmentation-offload",
                               "generic-segmentation-offload",
                               "generic-receive-offload")] != ["off"] * 3:
            fail("provenance.json: %s's offloads %r, want TSO, GSO and GRO "
                 "off" % (dev, o))
    with open(os.path.join(d, "comparison.md")) as f:
        md = f.read()
    if (virt == "qemu") != ("caveat: these runs ran under software CPU "
                            "emulation" in md):
        fail("comparison.md: the caveat of emulation %s, virtualization %s"
             % ("there" if virt != "qemu" else "missing", virt))
    print("checkexp: provenance: %s, %d CPUs, %s, offloads of %d devices "
          "off, the caveat in comparison.md" % (kernel, cpus, virt,
                                                len(devs)))


def mislabel(d, runs):
    """a copy of run directory @d with two runs of one combination whose
    variants differ, their logs swapped: magnet-exp report refuses both
    (status 2), each named on stderr with the congestion control its log
    shows, and leaves them out of every statistic"""
    import shutil
    import tempfile
    a = runs[0]
    b = next(r for r in runs if r["params"] == a["params"] and
             r["repetition"] == a["repetition"] and
             r["variant"] != a["variant"])
    with open(os.path.join(d, "runs.json")) as f:
        manifest = [m for m in json.load(f) if m["log"] in (a["log"],
                                                            b["log"])]
    tmp = tempfile.mkdtemp()
    try:
        for n in os.listdir(d):
            p = os.path.join(d, n)
            if os.path.isfile(p) and (not n.startswith(d.rstrip("/")
                                                       .split("/")[-1]) or
                                      any(n.startswith(m["log"][:-len(
                                          "_magnet.bin.gz")])
                                          for m in manifest)):
                shutil.copy(p, tmp)
        with open(os.path.join(tmp, "runs.json"), "w") as f:
            json.dump(manifest, f)
        # each log filed under the other's variant
        os.rename(os.path.join(tmp, a["log"]), os.path.join(tmp, "x"))
        os.rename(os.path.join(tmp, b["log"]), os.path.join(tmp, a["log"]))
        os.rename(os.path.join(tmp, "x"), os.path.join(tmp, b["log"]))
        top = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..")
        p = subprocess.run([sys.executable, os.path.join(
            top, "userspace", "magnet-exp"), "report", "--no-figures", tmp],
            capture_output=True, text=True)
        for r, other in ((a, b), (b, a)):
            want = "its data senders' TCP records name %s, not %s" % (
                other["variant"], r["variant"])
            if p.returncode != 2 or want not in p.stderr or \
                    r["log"] not in p.stderr:
                fail("two logs swapped between %s and %s: status %d, "
                     "stderr %r" % (a["variant"], b["variant"],
                                    p.returncode, p.stderr))
        with open(os.path.join(tmp, "summary.json")) as f:
            rows = json.load(f)["comparison"]
        if any(x["runs"] != 0 or x["excluded"] != "#%d mislabelled" %
               a["repetition"] for x in rows):
            fail("two logs swapped: rows %r" % [
                (x["variant"], x["runs"], x["excluded"]) for x in rows])
        print("checkexp: sweep: two logs swapped between %s and %s: "
              "refused (status 2), left out" % (a["variant"], b["variant"]))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    if sys.argv[1] == "main":
        cmd_main(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
                 int(sys.argv[5]), int(sys.argv[6]))
    elif sys.argv[1] == "lost":
        cmd_lost(sys.argv[2])
    elif sys.argv[1] == "ssh":
        cmd_ssh(*sys.argv[2:7])
    elif sys.argv[1] == "flows":
        cmd_flows(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "relays":
        cmd_relays(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                   int(sys.argv[5]))
    elif sys.argv[1] == "sweep":
        cmd_sweep(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]),
                  int(sys.argv[5]), sys.argv[6])
    elif sys.argv[1] == "complete":
        cmd_complete(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "clocks":
        cmd_clocks(sys.argv[2], float(sys.argv[3]))
    elif sys.argv[1] == "monarch":
        cmd_monarch(sys.argv[2])
    elif sys.argv[1] == "kinds":
        cmd_kinds(sys.argv[2], int(sys.argv[5]), int(sys.argv[8]),
                  sys.argv[9])
    elif sys.argv[1] == "teacup":
        cmd_teacup(*sys.argv[2:5])
    elif sys.argv[1] in ("return-loss", "forward-loss"):
        cmd_loss(sys.argv[2], sys.argv[1].split("-")[0])
    else:
        fail("usage")
