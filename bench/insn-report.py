#!/usr/bin/env python3
"""Report of make bench-insn (bench/insn.sh), from the insn plugin's counts.

usage: insn-report.py OUTDIR MAGNET_KO BYTES KVER REV

OUTDIR holds marks (the label of each count file, in order), counts.<n>
("vaddr insns executions" per translation block), kallsyms, and per
magnet configuration <config>.ksyms, <config>.hits and <config>.json.
With INSN_CALLERS, counts.<n>.callers ("site start insns up1 up2 up3":
the named functions' instructions by the call that entered them, and the
three calls above it) too.
"""
import bisect
import json
import os
import subprocess
import sys
from collections import defaultdict

TOP_SYMS = 25
TOP_BLOCKS = 12


def symtab(lines):
    """sorted [(addr, name)] of the text symbols in kallsyms lines"""
    t = []
    for line in lines:
        f = line.split()
        if len(f) >= 3 and f[1] in "tTwW":
            t.append((int(f[0], 16), f[2]))
    t.sort()
    return t


def read(path):
    with open(path) as f:
        return f.read().splitlines()


def counts(path):
    """[(vaddr, insns, executions)] of one count file"""
    out = []
    for line in read(path):
        a, n, c = line.split()
        out.append((int(a, 16), int(n), int(c)))
    return out


def per_symbol(blocks, tab):
    """{symbol: instructions}, {symbol: {offset: (insns, executions)}}"""
    addrs = [a for a, _ in tab]
    syms = defaultdict(int)
    blk = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for a, n, c in blocks:
        i = bisect.bisect_right(addrs, a) - 1
        name = tab[i][1] if i >= 0 else "?"
        syms[name] += n * c
        if i >= 0:
            b = blk[name][a - tab[i][0]]
            b[0] = n
            b[1] += c
    return syms, blk


def ko_symbols(ko):
    """{function: (section, offset)} from the module's symbol table"""
    out = {}
    try:
        text = subprocess.run(["objdump", "-t", ko], capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return out
    for line in text.splitlines():
        f = line.split()
        # value flags... section size name
        if len(f) >= 6 and "F" in f[1:-3] and f[-3].startswith(".text"):
            out[f[-1]] = (f[-3], int(f[0], 16))
    return out


def srclines(ko, sec, addrs):
    """{address: 'file:line'} in section @sec of the module (addr2line)"""
    if not addrs:
        return {}
    try:
        r = subprocess.run(["addr2line", "-e", ko, "-j", sec] +
                           ["%x" % a for a in addrs],
                           capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return {}
    return {a: os.path.relpath(l, os.path.dirname(os.path.dirname(ko)))
            .split(" ")[0].replace("../", "")
            for a, l in zip(addrs, r.stdout.splitlines())}


def callers(path, tab):
    """{(function, call site, the calls above it): instructions} of one
    counts.<n>.callers file, or None (sites as symbol+offset)"""
    if not os.path.exists(path):
        return None
    addrs = [a for a, _ in tab]
    out = defaultdict(int)

    def name(a, off):
        i = bisect.bisect_right(addrs, a) - 1
        if i < 0:
            return "0x%x" % a
        return "%s+0x%x" % (tab[i][1], a - tab[i][0]) if off else tab[i][1]
    for line in read(path):
        f = line.split()
        up = " < ".join(name(int(a, 16), True) for a in f[3:])
        out[(name(int(f[1], 16), False), name(int(f[0], 16), True),
             up)] += int(f[2])
    return out


def main():
    out, ko, nbytes, kver, rev = sys.argv[1:6]
    labels = read(os.path.join(out, "marks"))
    ktab = symtab(read(os.path.join(out, "kallsyms")))
    kosyms = ko_symbols(ko)
    by_label = {}
    for n, label in enumerate(labels):
        path = os.path.join(out, "counts.%d" % n)
        if os.path.exists(path):
            by_label[label] = counts(path)
    base = by_label.get("baseline")
    if base is None:
        sys.exit("insn-report: no baseline counts in " + out)
    bsyms, _ = per_symbol(base, ktab)
    btotal = sum(bsyms.values())
    bcallers = callers(os.path.join(out, "counts.%d.callers"
                                    % labels.index("baseline")), ktab)

    def mbit(name):
        try:
            with open(os.path.join(out, name + ".json")) as f:
                j = json.load(f)
            return j["end"]["sum_received"]["bits_per_second"] / 1e6
        except (OSError, KeyError, ValueError):
            return 0.0

    print("# make bench-insn: %s, %s\n" % (kver, rev))
    print("iperf3 -n %s over veth (TSO/GSO/GRO off, gso_max_segs 1), one vCPU, "
          "QEMU -icount shift=0,sleep=off with the insn plugin "
          "(bench/insn.sh): every kernel instruction the guest executed, "
          "counted per translation block, not sampled, so the sections a "
          "handler runs with interrupts off are seen too. Per configuration: "
          "the kernel instructions per recorded event above the baseline "
          "transfer (%d kernel instructions, %.1f Mbit/s), from the reader's "
          "start to its end (the load and unload apart), in total and per symbol; then, for magnet's "
          "functions, the blocks that execute the most. User space (iperf3, "
          "cat) is not counted. Under -icount a `rep` string instruction "
          "counts once per iteration (a `rep movsb` of 256 bytes: 256).\n"
          % (nbytes, btotal, mbit("baseline")))
    for label in labels:
        if label in ("boot", "baseline") or label.endswith((".load", ".unload")):
            continue
        blocks = by_label.get(label)
        if blocks is None:
            continue
        try:
            hits = int(read(os.path.join(out, label + ".hits"))[0])
        except (OSError, IndexError, ValueError):
            hits = 0
        if not hits:
            continue
        klines = read(os.path.join(out, label + ".ksyms"))
        tab = symtab(klines)
        syms, blk = per_symbol(blocks, tab)
        total = sum(syms.values())
        load = by_label.get(label + ".load")
        ltotal = sum(n * c for _, n, c in load) if load else 0
        mods = {name for _, name in symtab(l for l in klines
                                           if l.endswith("[magnet]"))}
        own = sum(v for k, v in syms.items() if k in mods)
        print("## %s\n" % label)
        print("%d events, %.1f Mbit/s; %.0f kernel instructions per event "
              "above the baseline, %.0f of them in magnet's own code "
              "(the load, apart: %.0f per event)\n"
              % (hits, mbit(label), (total - btotal) / hits, own / hits,
                 ltotal / hits))
        diff = {k: (syms.get(k, 0) - bsyms.get(k, 0)) / hits
                for k in set(syms) | set(bsyms)}
        print("| instr/event | symbol |\n|---|---|")
        for k in sorted(diff, key=lambda k: -abs(diff[k]))[:TOP_SYMS]:
            print("| %.1f | `%s`%s |" % (diff[k], k, " (magnet)" if k in mods else ""))
        print()
        cl = callers(os.path.join(out, "counts.%d.callers"
                                  % labels.index(label)), tab)
        if cl is not None and bcallers is not None:
            cdiff = {k: (cl.get(k, 0) - bcallers.get(k, 0)) / hits
                     for k in set(cl) | set(bcallers)}
            print("Callers (INSN_CALLERS): the named functions' instructions "
                  "per event above the baseline, by the call that entered "
                  "them\n")
            print("| instr/event | function | called from | and above "
                  "(shadow stack) |\n|---|---|---|---|")
            for k in sorted(cdiff, key=lambda k: -abs(cdiff[k]))[:TOP_SYMS]:
                if abs(cdiff[k]) >= 1:
                    print("| %.1f | `%s` | `%s` | `%s` |" % ((cdiff[k],) + k))
            print()
        for k in sorted((k for k in syms if k in mods), key=lambda k: -syms[k]):
            if syms[k] < 0.05 * own:
                break
            print("### `%s`: %.1f instructions per event\n" % (k, syms[k] / hits))
            rows = sorted(blk[k].items(), key=lambda kv: -kv[1][0] * kv[1][1])
            rows = rows[:TOP_BLOCKS]
            sec, base_off = kosyms.get(k, (None, 0))
            src = srclines(ko, sec, [base_off + o for o, _ in rows]) if sec else {}
            print("| offset | instructions | runs/event | instr/event | source |")
            print("|---|---|---|---|---|")
            for o, (n, c) in rows:
                print("| +0x%x | %d | %.2f | %.1f | %s |"
                      % (o, n, c / hits, n * c / hits, src.get(base_off + o, "")))
            print()


if __name__ == "__main__":
    main()
