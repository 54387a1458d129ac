#!/usr/bin/python3
"""Unit tests of magnet-exp's analysis (python/magnet_exp) on the logs
exp_fixture writes, read through the ttpb2ascii-asan build.

usage: test_exp.py FIXTURE-DIR   (check.sh); closes with
"test_exp: N passed, N failed".
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from magnet_exp import analyse as an  # noqa: E402

TTPB = os.path.join(HERE, "ttpb2ascii-asan")
FIX = None
SENDER = "10.0.0.1:40000 -> 10.0.0.2:5201"
RECEIVER = "10.0.0.2:5201 -> 10.0.0.1:40000"


def run(name):
    out = tempfile.mkdtemp(dir=FIX)
    res = an.analyse(os.path.join(FIX, name), out, TTPB)
    return res, res.as_dict(), out


def flow(d, label):
    for f in d["flows"]:
        if f["flow"] == label:
            return f
    raise AssertionError("no flow %s in %s" % (label, d["flows"]))


class Analyse(unittest.TestCase):
    def test_clean(self):
        res, d, out = run("clean.bin")
        self.assertEqual(d["verdict"], "confirmed", d)
        self.assertEqual(len(d["flows"]), 2)
        self.assertEqual(d["layers"], ["app", "dev", "ip", "tcp"])
        for f in d["flows"]:
            self.assertEqual(f["verdict"], "confirmed", f)
            self.assertEqual(f["reasons"], [])
        # the sender: 5 data segments + FIN out, 5 ACKs + 1 in = 12 TCP
        # records, one CSV row each, with the columns documented
        with open(os.path.join(out, flow(d, SENDER)["csv"])) as fh:
            rows = list(csv.reader(fh))
        self.assertEqual(rows[0], an.CSV_COLUMNS)
        self.assertEqual(rows[0][:6], ["time", "event", "state", "ca_state",
                                       "cwnd", "ssthresh"])
        self.assertEqual(len(rows) - 1, 12)
        self.assertEqual(flow(d, SENDER)["tcp_records"], 12)
        first = dict(zip(rows[0], rows[1]))
        self.assertEqual((first["time"], first["event"], first["state"],
                          first["cwnd"], first["srtt_us"], first["ca_name"]),
                         ("0.000001", "tcp_out", "ESTABLISHED", "11", "5000",
                          "cubic"))
        last = dict(zip(rows[0], rows[-1]))
        self.assertEqual((last["bytes_sent"], last["bytes_acked"]),
                         ("5000", "5000"))

    def test_modulation(self):
        # clean.bin, by hand: the sender writes 5000 bytes at once; TCP, IP
        # and the device send 5 segments of 1000, one every 12 records
        # (1 us apart); the receiver's application reads 5000 at once
        _, d, _ = run("clean.bin")
        m = {(r["flow"], r["direction"], r["layer"]): r
             for r in d["modulation"]}
        self.assertEqual(len(m), 8, sorted(m))
        w = m[(SENDER, "out", "app")]
        self.assertEqual((w["count"], w["size_mean"], w["size_p50"],
                          w["spacing_mean_us"], w["asked_max"]),
                         (1, 5000.0, 5000, None, 5000))
        self.assertIsNone(m[(SENDER, "out", "tcp")]["asked_max"])
        for layer in ("tcp", "ip", "dev"):
            r = m[(SENDER, "out", layer)]
            self.assertEqual((r["count"], r["size_mean"], r["size_p10"],
                              r["size_p99"]), (5, 1000.0, 1000, 1000), r)
            self.assertEqual(r["spacing_mean_us"], 12.0, r)
            self.assertAlmostEqual(r["spacing_p50_us"], 12.0, delta=0.12)
            r = m[(RECEIVER, "in", layer)]
            self.assertEqual((r["count"], r["size_mean"]), (5, 1000.0), r)
        r = m[(RECEIVER, "in", "app")]
        self.assertEqual((r["count"], r["size_mean"]), (1, 5000.0))

    def test_latency(self):
        # each layer 1 us after the one before; the read comes 55, 43, 31,
        # 19 and 7 us after the 5 segments reached TCP
        _, d, _ = run("clean.bin")
        lat = {(r["from"], r["to"]): r for r in d["latency"]}
        for hop in (("tcp_out", "ip_out"), ("ip_out", "dev_out"),
                    ("dev_in", "ip_in"), ("ip_in", "tcp_in")):
            # the 5 data segments; ACKs carry no data and are not matched
            self.assertEqual((lat[hop]["count"], lat[hop]["mean_us"]),
                             (5, 1.0), lat[hop])
        r = lat[("tcp_in", "app_recv")]
        self.assertEqual((r["count"], r["mean_us"]), (5, 31.0))
        for p, want in (("p10_us", 7), ("p50_us", 31), ("p90_us", 55)):
            self.assertAlmostEqual(r[p], want, delta=want / 100, msg=p)

    def test_series_thinning(self):
        from magnet_exp.plots import MAX_POINTS, Series, throughput
        s = Series()
        for i in range(100000):
            s.add(i, i)
        self.assertLessEqual(len(s.pts), MAX_POINTS)
        self.assertGreater(len(s.pts), MAX_POINTS // 4)
        self.assertEqual(s.pts[0], (0, 0))
        steps = {b[0] - a[0] for a, b in zip(s.pts, s.pts[1:])}
        self.assertEqual(len(steps), 1, "evenly thinned")
        # 1000 bytes acked per 0.01 s: 0.8 Mbit/s in every interval
        xs, ys = throughput([(i / 100, i * 1000) for i in range(101)], 10)
        self.assertEqual(len(ys), 10)
        for y in ys:
            self.assertAlmostEqual(y, 0.8)

    def test_lost(self):
        _, d, _ = run("lost.bin")
        self.assertEqual(d["verdict"], "inaccurate")
        self.assertEqual((d["lost"], d["probe_misses"]), (3, 2))
        self.assertIn("3 records lost and 2 probe misses on CPU 1",
                      d["reasons"][0]["reason"])
        for label in (SENDER, RECEIVER):
            f = flow(d, label)
            self.assertEqual(f["verdict"], "inaccurate")
            self.assertTrue(any("3 records lost" in r["reason"]
                                for r in f["reasons"]), f)

    def test_truncated(self):
        _, d, _ = run("trunc.bin")
        self.assertEqual(d["verdict"], "inaccurate")
        self.assertTrue(any("cut short" in r["reason"] and
                            "last record truncated" in r["reason"]
                            for r in d["reasons"]), d["reasons"])
        self.assertEqual(d["records"], 10)

    def test_return_path_loss(self):
        _, d, _ = run("idgap.bin")
        self.assertEqual(d["verdict"], "inaccurate")
        s = flow(d, SENDER)
        self.assertEqual(s["verdict"], "inaccurate")
        self.assertEqual(len(s["reasons"]), 1, s)
        self.assertIn("loss on the return path: 1 of the peer's IP IDs "
                      "missing (dev layer)", s["reasons"][0]["reason"])
        self.assertEqual(flow(d, RECEIVER)["verdict"], "confirmed")

    def test_forward_path_loss_is_not_return_path(self):
        _, d, _ = run("fwdgap.bin")
        self.assertEqual(d["verdict"], "confirmed")
        r = flow(d, RECEIVER)["reasons"]
        self.assertEqual([x["verdict"] for x in r], ["note"])
        self.assertIn("loss on the forward path", r[0]["reason"])
        self.assertEqual(flow(d, SENDER)["reasons"], [])

    def test_loss_places(self):
        # both ends in the log: the third segment's first send was lost
        # between the hosts, the fifth's second send was spurious
        _, d, _ = run("retx.bin")
        self.assertEqual(d["verdict"], "confirmed", d)
        r = flow(d, SENDER)["reasons"]
        self.assertEqual([x["verdict"] for x in r], ["note"], r)
        self.assertEqual(r[0]["reason"],
                         "2 segments retransmitted (4 sends): 1 sends lost "
                         "between the hosts, 0 lost in the receiver's stack "
                         "(its device got them, its TCP did not), 1 "
                         "retransmissions spurious (the segment had reached "
                         "the receiver's TCP)")
        # the receiver sees the gap in the sender's IP IDs: forward path
        r = flow(d, RECEIVER)["reasons"]
        self.assertEqual([x["verdict"] for x in r], ["note"], r)
        self.assertIn("loss on the forward path: 1 of the peer's IP IDs",
                      r[0]["reason"])

    def test_reordered_ids(self):
        # IDs 7000, 7002, 7001, 7003: recorded out of order, none missing
        _, d, _ = run("reorder.bin")
        self.assertEqual(d["verdict"], "confirmed", d)
        for label in (SENDER, RECEIVER):
            self.assertEqual(flow(d, label)["reasons"], [])

    def test_segment_not_at_device(self):
        _, d, _ = run("nodev.bin")
        s = flow(d, SENDER)
        self.assertEqual(s["verdict"], "inaccurate")
        self.assertEqual([r["reason"] for r in s["reasons"]],
                         ["sent: 1 segments seen at TCP and never at the "
                          "device"])

    def test_open_connection(self):
        _, d, _ = run("open.bin")
        self.assertEqual(d["verdict"], "indeterminate")
        for label in (SENDER, RECEIVER):
            self.assertIn("ended with the connection ESTABLISHED",
                          flow(d, label)["reasons"][0]["reason"])

    def test_cli(self):
        out = tempfile.mkdtemp(dir=FIX)
        env = dict(os.environ, MAGNET_TTPB2ASCII=TTPB)
        exe = os.path.join(HERE, "..", "..", "userspace", "magnet-exp")
        p = subprocess.run([exe, "analyse", "--strict", "-o", out,
                            os.path.join(FIX, "clean.bin"),
                            os.path.join(FIX, "lost.bin")],
                           capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("clean.bin: confirmed (2 connections", p.stdout)
        self.assertIn("lost.bin: inaccurate", p.stdout)
        with open(os.path.join(out, "lost.analysis", "verdict.json")) as f:
            self.assertEqual(json.load(f)["verdict"], "inaccurate")
        with open(os.path.join(out, "clean.analysis", "report.md")) as f:
            self.assertIn("Verdict: **confirmed**", f.read())
        # the figures: valid PNGs, and as many series as connection ends
        # (cwnd and srtt each) and senders (throughput)
        with open(os.path.join(out, "clean.analysis", "verdict.json")) as f:
            figs = {x["file"]: x["series"] for x in json.load(f)["figures"]}
        self.assertEqual(figs, {"cwnd_srtt.png": 4, "cwnd_srtt.svg": 4,
                                "throughput.png": 1, "throughput.svg": 1})
        from PIL import Image
        for name in ("cwnd_srtt.png", "throughput.png"):
            with Image.open(os.path.join(out, "clean.analysis", name)) as im:
                im.verify()
                self.assertEqual(im.format, "PNG")
        with open(os.path.join(out, "clean.analysis", "cwnd_srtt.svg")) as f:
            svg = f.read()
        self.assertTrue(svg.startswith("<?xml") and "<svg" in svg)
        self.assertIn("10.0.0.1:40000 -&gt; 10.0.0.2:5201", svg)
        self.assertIn("comparison of the logs: %s/compare.png" % out,
                      p.stdout)
        p = subprocess.run([exe, "analyse", os.path.join(FIX, "nosuch.bin")],
                           capture_output=True, text=True, env=env)
        self.assertEqual((p.returncode, p.stderr.strip()),
                         (2, "magnet-exp: %s/nosuch.bin: no such file" % FIX))


class Spec(unittest.TestCase):
    def spec(self, **kw):
        from magnet_exp import spec
        raw = {"test_id": "t1", "variants": ["cubic", "reno"]}
        raw.update(kw)
        return spec.check(raw, "t.toml")

    def bad(self, msg, **kw):
        from magnet_exp import spec
        with self.assertRaises(spec.SpecError) as e:
            self.spec(**kw)
        self.assertIn(msg, str(e.exception))

    def test_defaults(self):
        s = self.spec()
        self.assertEqual(s["repetitions"], 1)
        self.assertEqual(s["path"]["rate"], "20mbit")
        self.assertEqual(s["traffic"]["size"], "2M")
        s = self.spec(traffic={"duration": 5})
        self.assertEqual((s["traffic"]["duration"], s["traffic"]["size"]),
                         (5, None))

    def test_errors(self):
        self.bad("unknown key 'variant'", variant=["x"])
        self.bad("test_id must be", test_id="a b")
        self.bad("variants must be", variants=[])
        self.bad("repetitions must be 1..100", repetitions=0)
        self.bad("[path] rate '20mb'", path={"rate": "20mb"})
        self.bad("[path] delay '20'", path={"delay": "20"})
        self.bad("[path] loss '101%'", path={"loss": "101%"})
        self.bad("[path]: unknown key 'bw'", path={"bw": "1mbit"})
        self.bad("[traffic] size '2MB'", traffic={"size": "2MB"})
        self.bad("omode=1", magnet={"params": "omode=0"})
        self.bad("reader must be", magnet={"reader": "later"})
        self.assertEqual(self.spec(magnet={"reader": "after"})["magnet"],
                         {"params": "events=all omode=1", "reader": "after"})
        self.bad("[magnet] params", magnet={"params": "port=1;rm -rf /"})

    def test_units(self):
        from magnet_exp import spec
        self.assertEqual(spec.size_bytes("128K"), 131072)
        self.assertEqual(spec.rate_bps("20mbit"), 20e6)
        self.assertAlmostEqual(spec.time_s("20ms"), 0.02)


class Compare(unittest.TestCase):
    def test_run_metrics(self):
        # clean.bin: the receiver's 5000 bytes, from its first data
        # (record 7) to its last (record 55), 1 us apart
        from magnet_exp import compare
        res, _, _ = run("clean.bin")
        m = compare.run_metrics(res, {"end": {"sum_received": {
            "bits_per_second": 8e8}}})
        self.assertAlmostEqual(m["throughput_mbps"], 5000 * 8 / 48e-6 / 1e6)
        # iperf3 counted 3000 bytes: the receiver had them at the third
        # segment (record 31), 24 us after its first data
        m3 = compare.run_metrics(res, {"end": {"sum_received": {
            "bits_per_second": 8e8, "bytes": 3000}}})
        self.assertAlmostEqual(m3["throughput_mbps"], 3000 * 8 / 24e-6 / 1e6)
        self.assertEqual((m["iperf3_mbps"], m["retransmits"], m["cwnd_max"]),
                         (800.0, 0, 11))
        self.assertEqual((m["rtt_mean_ms"], m["rtt_max_ms"]), (5.0, 5.0))
        # the sender's records show 1000 more bytes acked from its next
        # transmit on: 1000 at the second segment (12 us after the first
        # record), 3000 at the fourth (36 us), all 5000 only at the FIN
        # (record 63, 61 us after)
        self.assertAlmostEqual(m["t10_s"], 12e-6, delta=1e-9)
        self.assertAlmostEqual(m["t50_s"], 36e-6, delta=1e-9)
        self.assertAlmostEqual(m["t90_s"], 61e-6, delta=1e-9)

    def test_run_metrics_without_data(self):
        # a log with no data received (every record lost): no numbers,
        # no exception
        from magnet_exp import compare
        res, _, _ = run("trunc.bin")
        m = compare.run_metrics(res, None)
        self.assertIsNone(m["throughput_mbps"])
        res, _, _ = run("open.bin")
        for f in res.flows.values():
            f.data_in_first = f.data_in_last = None
        m = compare.run_metrics(res, {"end": {"sum_received": {
            "bits_per_second": 5e6, "bytes": 10}}})
        self.assertEqual((m["throughput_mbps"], m["iperf3_mbps"]), (None, 5.0))

    def test_table(self):
        from magnet_exp import compare
        mk = lambda t: dict({c: None for c in compare.COLUMNS},
                            throughput_mbps=t, retransmits=int(t))
        rows = compare.table([("cubic", 1, mk(10.0)), ("reno", 1, mk(4.0)),
                              ("cubic", 2, mk(12.0)), ("reno", 2, mk(6.0)),
                              ("cubic", 3, mk(20.0))])
        self.assertEqual([r["variant"] for r in rows], ["cubic", "reno"])
        c = rows[0]
        self.assertEqual((c["runs"], c["throughput_mbps"],
                          c["throughput_mbps_min"], c["throughput_mbps_max"]),
                         (3, 12.0, 10.0, 20.0))
        self.assertEqual(rows[1]["retransmits"], 5.0)
        self.assertIn("| cubic | 3 | 12 (10..20) |",
                      compare.table_md(rows))


if __name__ == "__main__":
    FIX = sys.argv.pop(1)
    suite = unittest.TestSuite(
        unittest.defaultTestLoader.loadTestsFromTestCase(c)
        for c in (Analyse, Spec, Compare))
    r = unittest.TextTestRunner(verbosity=1).run(suite)
    bad = len(r.failures) + len(r.errors)
    print("test_exp: %d passed, %d failed" % (r.testsRun - bad, bad))
    sys.exit(1 if bad else 0)
