"""make check-long: magnet-exp analyse on one connection of SEGMENTS data
segments (default 2,000,000), with the analysis's own bounds (nothing
forced small): a magnet text log test_exp.py's write_long_flow writes with
the truth known (both ends recorded; the sequence numbers wrap past 2^32
and the IP IDs every 65,536 packets; one send in 100 lost between the
hosts, one in 700 lost in the receiver's stack, one in 250 sent again
spuriously). The loss places and the forward path's missing IP IDs must be
the truth, exactly, and both verdicts confirmed; the one-way delays of
every first copy counted. Prints the records, the analysis's time and its
peak memory (what #59's speed and memory targets are about).

usage: longflow.py TTPB2ASCII DIR [SEGMENTS]
Closes with "longflow: N passed, N failed".
"""
import os
import resource
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
from magnet_exp import analyse as an  # noqa: E402
import test_exp  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s" % what)


def main():
    ttpb, d = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000000
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "long.txt")
    t0 = time.monotonic()
    truth = test_exp.write_long_flow(path, n, first_id=50000)
    with open(path) as f:
        records = sum(1 for _ in f) - 1
    t1 = time.monotonic()
    print("longflow: %d segments, %d records (%d MB) written in %.0f s"
          % (n, records, os.path.getsize(path) >> 20, t1 - t0))
    res = an.analyse(path, os.path.join(d, "an"), ttpb)
    t2 = time.monotonic()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("longflow: analysed in %.0f s, %.0f records/s, peak RSS %d MB"
          % (t2 - t1, records / (t2 - t1), rss >> 10))
    dd = res.as_dict()
    s = test_exp.flow(dd, test_exp.SENDER + " on netns 1")
    r = test_exp.flow(dd, test_exp.RECEIVER + " on netns 2")
    print("longflow: truth %s" % truth)
    check(s["verdict"] == "confirmed", "sender's verdict %s: %s"
          % (s["verdict"], s["reasons"]))
    want = ("%d segments retransmitted (%d sends): %d sends lost between "
            "the hosts, %d lost in the receiver's stack (its device got "
            "them, its TCP did not), %d retransmissions spurious (the "
            "segment had reached the receiver's TCP)" % (
                truth["segments"], truth["sends"], truth["net"],
                truth["stack"], truth["spurious"]))
    got = [x["reason"] for x in s["reasons"]]
    check(got == [want], "sender's loss places: %s, the truth: %s"
          % (got, want))
    check(r["verdict"] == "confirmed", "receiver's verdict %s: %s"
          % (r["verdict"], r["reasons"]))
    ids = "loss on the forward path: %d of the peer's IP IDs missing " \
          "(dev layer)" % truth["fwd_ids"]
    check(len(r["reasons"]) == 1 and
          r["reasons"][0]["reason"].startswith(ids),
          "receiver's IP IDs: %s, the truth: %s" % (r["reasons"], ids))
    k = ("4", "10.0.0.1", "40000", "10.0.0.2", "5201")
    dev = res.oneway.delays[(k, "dev", "2")]
    tcp = res.oneway.delays[(k, "tcp", "2")]
    check(dev == Counter({1: n - truth["net"]}),
          "one-way delays at the device: %s, the truth %d at 1 us"
          % (dict(dev), n - truth["net"]))
    check(tcp == Counter({3: n - truth["net"] - truth["stack"]}),
          "one-way delays at TCP: %s, the truth %d at 3 us"
          % (dict(tcp), n - truth["net"] - truth["stack"]))
    os.unlink(path)
    print("longflow: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
