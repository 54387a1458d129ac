#!/usr/bin/env python3
"""Report of make bench-nsdrop (bench/nsdrop.sh), from the insn plugin's
counts (bench/insn/insn.c: "vaddr insns executions" per block, a file per
mark).

usage: nsdrop-report.py OUTDIR COUNT NETNS KVER REV

For each window (ns-few, ns-NETNS): the drop events magnet wrote (its
statistics' hits), and per event: the instructions executed in magnet's
own functions (the kernel's symbols while it was loaded, those of module
[magnet]), and all the window's instructions less those of the same flood
without magnet (<label>.base), which adds what magnet's calls into the
kernel cost, and whatever else the kernel did in the window. Exits 1 if a
window is missing or wrote no event.
"""
import bisect
import os
import sys


def blocks(path):
    with open(path) as f:
        for line in f:
            a, n, c = line.split()
            yield int(a, 16), int(n) * int(c)


def magnet_ranges(path):
    """sorted text symbol starts, and whether each is magnet's"""
    t = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                t.append((int(p[0], 16), len(p) > 3 and p[3] == "[magnet]"))
    t.sort()
    return [a for a, _ in t], [m for _, m in t]


def main(out, count, netns, kver, rev):
    with open(os.path.join(out, "marks")) as f:
        labels = [l.strip() for l in f]
    files = {l: os.path.join(out, "counts.%d" % i) for i, l in enumerate(labels)}
    rows = []
    for w in ("ns-few", "ns-%s" % netns):
        if w not in files or w + ".base" not in files:
            sys.exit("nsdrop-report: no counts for %s in %s" % (w, out))
        with open(os.path.join(out, w + ".hits")) as f:
            hits = int(f.read().split()[0])
        if hits <= 0:
            sys.exit("nsdrop-report: %s wrote no event" % w)
        starts, mine = magnet_ranges(os.path.join(out, w + ".ksyms"))
        own = total = 0
        for a, n in blocks(files[w]):
            total += n
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and mine[i]:
                own += n
        base = sum(n for _, n in blocks(files[w + ".base"]))
        rows.append((w, hits, own / hits, (total - base) / hits))
    with open(os.path.join(out, "netns-made")) as f:
        made = f.read().strip()
    print("# bench-nsdrop: %s, %s" % (kver, rev))
    print()
    print("A flood of %s UDP datagrams to a closed port (each a drop with "
          "no socket), every instruction counted (bench/nsdrop.sh): from a "
          "pair of namespaces on a host with few, then from a pair made "
          "after %s more (%s made). Per drop event: magnet's own "
          "instructions (its functions'), and the whole window's above the "
          "same flood without magnet." % (count, netns, made))
    print()
    print("| window | drop events | magnet's instructions per event | "
          "all instructions per event, above the flood alone |")
    print("|---|---|---|---|")
    for w, hits, own, extra in rows:
        print("| %s | %d | %.1f | %.1f |" % (w, hits, own, extra))
    print()
    a, b = rows
    print("many against few: magnet's own %+.1f%% (aim: within 5%%), in "
          "all %+.1f%%. Magnet's own instructions hold the test of the "
          "drop's namespace; the whole window's also hold what else the "
          "kernel did in it (timers, RCU, the ICMP replies' rate limit), "
          "which moves by several percent from window to window." % (
              100 * (b[2] / a[2] - 1), 100 * (b[3] / a[3] - 1)))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
