#!/usr/bin/python3
"""Unit tests of Monarch's self-diagnosis (python/magnet_exp/monarchdiag.py)
on traces written here by a small model of the path: each probe's fate is
set (answered, lost on the way out, its answer lost on the way back,
delayed), and a remote that numbers its packets (a step per packet, zero,
random, or Linux's: a step per packet and a random jump after a quiet
time). The truth is the model's, not the diagnosis's.

usage: test_monarchdiag.py   (check.sh); closes with
"test_monarchdiag: N passed, N failed".
"""
import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from magnet_exp import monarchdiag as md  # noqa: E402

MS = 1000000


def trace(fates, ids="step", gap=600000, quiet=(), seed=1, step=1,
          late=(), hold=None, still=()):
    """A trace of len(fates) probes sent @gap ns apart (and 200 ms more
    before each index in @quiet), each 1500 bytes of data: fate "ok",
    "down" (lost on the way out), "up" (its answer lost on the way back),
    ("delay", ns) (its answer later by ns). @ids: "step" (the remote adds
    @step per packet), "zero", "random", "linux" (a step per packet, and a
    random jump of up to a step per 4 ms jiffy after a quiet time of more
    than one jiffy, but before an index in @still, where it drew 0).
    Returns the trace's path."""
    rnd = random.Random(seed)
    ipid, t, last_t = 1000, 0, None
    lines, answers = [], []
    for k, f in enumerate(fates, 1):
        if k - 1 in quiet:
            t += 200 * MS
        t += gap
        lines.append((t, "probe\t%d\t%d\t1500\t1448\t1500\t" % (k, k * 1448)))
        if f == "down":
            continue
        arrive = t + 20 * MS + (f[1] if isinstance(f, tuple) else 0)
        if ids == "linux" and last_t is not None:
            jiffies = (t - last_t) // (4 * MS)
            if jiffies > 1 and k - 1 not in still:
                ipid += rnd.randrange(jiffies)
        last_t = t
        ipid = (ipid + step) % 65536
        v = {"step": ipid, "linux": ipid, "zero": 0,
             "random": rnd.randrange(65536)}[ids]
        if f == "up":
            continue
        ev = "unmatched" if k in late else "response"
        answers.append((arrive, "%s\t%d\t%s\t40\t%d" % (
            ev, k, "\t1500\t1448" if ev == "response" else "\t\t", v)))
    for k in late:
        lines.append((lines[k - 1][0] + (hold or 5000 * MS),
                      "expired\t%d\t%d\t1500\t1448\t\t" % (k, k * 1448)))
    rows = sorted(lines + answers)
    fd, path = tempfile.mkstemp(suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write("# magnet-monarch-proxy: probe echo, remote 10.0.0.2, "
                "local 10.0.0.1, port 33434, hold 5000 ms\n")
        f.write("time_ns\tevent\tkey\tseq\tlen\tdata\twire_len\tip_id\n")
        for t, rest in rows:
            f.write("%d\t%s\n" % (t, rest))
    return path


def diag(*a, **kw):
    p = trace(*a, **kw)
    try:
        return md.diagnose(md.read_trace(p))
    finally:
        os.unlink(p)


class Diagnosis(unittest.TestCase):
    def test_clean(self):
        d = diag(["ok"] * 500)
        self.assertEqual(d["verdict"], "confirmed", d)
        self.assertEqual((d["answered"], d["downstream_losses"],
                          d["upstream_losses"]), (500, 0, 0))
        self.assertEqual(d["ipid_step"], 1)

    def test_downstream_only(self):
        f = ["ok"] * 500
        for i in (50, 120, 121, 300, 301, 302, 450):
            f[i] = "down"
        d = diag(f)
        self.assertEqual(d["verdict"], "confirmed", d)
        self.assertEqual((d["downstream_losses"], d["upstream_losses"],
                          d["unclassified"]), (7, 0, 0))

    def test_upstream(self):
        f = ["ok"] * 500
        for i in (50, 200, 201):
            f[i] = "up"
        f[300] = "down"
        d = diag(f)
        self.assertEqual(d["verdict"], "inaccurate", d)
        self.assertEqual((d["downstream_losses"], d["upstream_losses"],
                          d["upstream_losses_data"]), (1, 3, 3))
        self.assertIn("3 answers lost on the way back", d["reasons"][0])

    def test_mixed_run(self):
        # one run of three unanswered: two lost out, one lost back
        f = ["ok"] * 100
        f[40], f[41], f[42] = "down", "up", "down"
        d = diag(f)
        self.assertEqual((d["downstream_losses"], d["upstream_losses"]),
                         (2, 1), d)

    def test_step_256(self):
        # a host that numbers in the other byte order: a step of 256
        f = ["ok"] * 300
        f[100] = "down"
        f[200] = "up"
        d = diag(f, step=256)
        self.assertEqual(d["ipid_step"], 256)
        self.assertEqual((d["downstream_losses"], d["upstream_losses"]),
                         (1, 1), d)

    def test_zero_ids(self):
        d = diag(["ok"] * 100, ids="zero")
        self.assertEqual(d["verdict"], "indeterminate")
        self.assertIn("IP IDs unusable: all 0", d["reasons"])

    def test_random_ids(self):
        f = ["ok"] * 300
        f[10] = "up"
        d = diag(f, ids="random")
        self.assertEqual(d["verdict"], "indeterminate")
        self.assertIn("randomised", d["reasons"][0])

    def test_upstream_reordering(self):
        f = ["ok"] * 200
        f[50] = ("delay", 3300000)    # 5 later answers arrive before it
        d = diag(f)
        self.assertEqual(d["verdict"], "inaccurate", d)
        self.assertEqual(d["upstream_reorder_max"], 5)
        f[50] = ("delay", 1 * MS)    # 1: below the duplicate ACK threshold
        d = diag(f)
        self.assertEqual(d["verdict"], "confirmed", d)
        self.assertEqual((d["upstream_reordered"], d["upstream_reorder_max"]),
                         (1, 1))

    def test_linux_ids_continuous(self):
        # Linux's IDs jump only after quiet times; losses in the middle of
        # continuous sending are classified
        f = ["ok"] * 600
        for i in (100, 101, 400):
            f[i] = "down"
        f[250] = "up"
        d = diag(f, ids="linux", quiet=(200, 500), seed=3)
        self.assertGreater(d["ipid_jumps"], 0)
        self.assertEqual((d["downstream_losses"], d["upstream_losses"],
                          d["unclassified"]), (3, 1, 0), d)
        self.assertEqual(d["verdict"], "inaccurate")

    def test_linux_ids_loss_at_quiet(self):
        # a loss right before a quiet time: the IDs after it may have
        # jumped, so it is not classified
        f = ["ok"] * 600
        f[299] = "down"
        d = diag(f, ids="linux", quiet=(100, 300), seed=3)
        self.assertEqual(d["unclassified"], 1, d)
        self.assertEqual(d["verdict"], "indeterminate")

    def test_loss_at_quiet_no_id_between(self):
        # a loss right before a quiet time after which the remote's IDs
        # did not jump (the jump drew 0), while they jumped after another:
        # no ID used between the answers around it, so on the way out,
        # since a jump only adds to the IDs
        f = ["ok"] * 600
        f[299] = "down"
        d = diag(f, ids="linux", quiet=(100, 300), still=(300,), seed=3)
        self.assertEqual(d["ipid_jumps"], 1, d)
        self.assertEqual((d["downstream_losses"], d["unclassified"]), (1, 0), d)
        self.assertEqual(d["verdict"], "confirmed")

    def test_held_at_end(self):
        # a packet still held when the proxy stopped: a "held" line,
        # unanswered as the others (the proxy waited for the answers on
        # the way), counted
        p = trace(["ok"] * 100 + ["down"] * 2)
        with open(p, "a") as f:
            f.write("999999999999\theld\t102\t147696\t1500\t1448\t\t\n")
        try:
            d = md.diagnose(md.read_trace(p))
        finally:
            os.unlink(p)
        self.assertEqual((d["probes"], d["held_at_end"], d["unanswered"],
                          d["unclassified"]), (102, 1, 2, 2), d)

    def test_lost_messages(self):
        # queue messages lost (ENOBUFS): a "lost" line each, its fields
        # empty; their packets got no probe, so the diagnosis is that of
        # the probes alone
        p = trace(["ok"] * 50 + ["down"] + ["ok"] * 50)
        with open(p) as f:
            lines = f.readlines()
        lines.insert(40, "1000\tlost\t\t\t\t\t\t\n")
        lines.insert(41, "1001\tlost\t\t\t\t\t\t\n")
        with open(p, "w") as f:
            f.writelines(lines)
        try:
            d = md.diagnose(md.read_trace(p))
        finally:
            os.unlink(p)
        self.assertEqual((d["probes"], d["unanswered"],
                          d["downstream_losses"]), (101, 1, 1), d)
        self.assertEqual(d["verdict"], "confirmed", d)

    def test_rate_limited(self):
        # the remote answers the first 100, then nothing for 40 (its
        # limit), then again
        f = ["ok"] * 100 + ["down"] * 40 + ["ok"] * 100
        d = diag(f)
        self.assertEqual(d["longest_unanswered_run"], 40)
        self.assertEqual(d["verdict"], "inaccurate")
        self.assertTrue(any("rate-limiting" in r for r in d["reasons"]), d)

    def test_late_answer(self):
        d = diag(["ok"] * 100, late=(30,))
        self.assertEqual(d["late"], 1)
        self.assertEqual(d["verdict"], "inaccurate", d)

    def test_not_a_trace(self):
        fd, p = tempfile.mkstemp()
        os.write(fd, b"time\tevent\n1\tprobe\n")
        os.close(fd)
        try:
            with self.assertRaises(ValueError):
                md.read_trace(p)
            open(p, "w").close()
            with self.assertRaises(ValueError):
                md.read_trace(p)
        finally:
            os.unlink(p)


if __name__ == "__main__":
    r = unittest.TextTestRunner(verbosity=1).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(Diagnosis))
    bad = len(r.failures) + len(r.errors)
    print("test_monarchdiag: %d passed, %d failed" % (r.testsRun - bad, bad))
    sys.exit(1 if bad else 0)
