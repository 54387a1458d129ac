#!/usr/bin/env python3
"""Check a `magnet-exp run` directory (case_exp_run in guest.sh).

usage: checkexp.py main DIR RATE_MBIT DELAY_MS LIMIT LENGTH
       checkexp.py return-loss DIR
       checkexp.py forward-loss DIR
       checkexp.py lost DIR

main: every verdict confirmed; per run, the throughput from the log within
3% of iperf3's; the largest cwnd at most three times what the path holds
(its bandwidth-delay product plus the bottleneck queue, in MSS-sized
packets; slow start overshoots by the growth of the round trips in which
the first loss is noticed, measured up to 2.1 times with reno); the figures
valid PNGs with a cwnd and an srtt series per connection end shown; the
modulation table: the sender's application writes asking for and moving
at most LENGTH bytes, some all of it, and no device-layer segment larger
than the MSS; the comparison table with a row
per variant. return-loss: the sender's connection is inaccurate for loss
on the return path. forward-loss: no return-path loss reported; the
receiver notes loss on the forward path. lost: every verdict inaccurate,
naming the lost records.
"""
import csv
import json
import os
import sys


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


def cmd_main(d, rate, delay, limit, length):
    s = load(d)
    if not s["runs"]:
        fail("no runs")
    for run in s["runs"]:
        name = "%s #%d" % (run["variant"], run["repetition"])
        if run["verdict"] != "confirmed":
            fail("%s: verdict %s: %s" % (name, run["verdict"],
                                         run["reasons"]))
        m = run["metrics"]
        if not m["throughput_mbps"] or not m["iperf3_mbps"]:
            fail("%s: no throughput: %s" % (name, m))
        err = abs(m["throughput_mbps"] / m["iperf3_mbps"] - 1)
        if err > 0.03:
            fail("%s: throughput %.3f Mbit/s from the log, %.3f from iperf3 "
                 "(%.1f%% apart)" % (name, m["throughput_mbps"],
                                     m["iperf3_mbps"], err * 100))
        a, v = analysis(d, run)
        flow = sender(v)
        mss = None
        with open(os.path.join(a, [f["csv"] for f in v["flows"]
                                   if f["flow"] == flow][0])) as f:
            for row in csv.DictReader(f):
                mss = int(row["mss"])
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
        if app["asked_max"] != length or app["size_max"] != length:
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
        print("checkexp: %s: confirmed, %.2f Mbit/s (iperf3 %.2f, %.1f%% "
              "apart), cwnd max %d (path %.0f), writes %d, segments <= %d"
              % (name, m["throughput_mbps"], m["iperf3_mbps"], err * 100,
                 m["cwnd_max"], bdp + limit, length, mss))
    variants = [r["variant"] for r in s["comparison"]]
    if variants != list(dict.fromkeys(r["variant"] for r in s["runs"])):
        fail("comparison rows %s" % variants)
    if not os.path.exists(os.path.join(d, "compare.png")):
        fail("no compare.png")
    print("checkexp: comparison of %s" % ", ".join(variants))


def cmd_lost(d):
    """bufsize=16 and the reader started after the traffic: inaccurate,
    naming the LOST records"""
    s = load(d)
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


if __name__ == "__main__":
    if sys.argv[1] == "main":
        cmd_main(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
                 int(sys.argv[5]), int(sys.argv[6]))
    elif sys.argv[1] == "lost":
        cmd_lost(sys.argv[2])
    elif sys.argv[1] in ("return-loss", "forward-loss"):
        cmd_loss(sys.argv[2], sys.argv[1].split("-")[0])
    else:
        fail("usage")
