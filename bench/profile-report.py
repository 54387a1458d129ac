"""The report of bench/profile.sh: instructions per event, per symbol, above
the baseline transfer. usage: profile-report.py OUT BYTES KVER REV CONFIG..."""
import json
import sys

out, nbytes, kver, rev = sys.argv[1:5]
configs = [c for c in sys.argv[5:] if c != "baseline"]
TOP = 25        # symbols shown per configuration
# where a halted vCPU's samples land: under -icount sleep=off the guest
# clock jumps over idle time, which is time, not instructions
IDLE = {"native_safe_halt", "pv_native_safe_halt", "default_idle", "acpi_safe_halt"}


def run(name):
    """guest seconds of the transfer, bytes, instructions per symbol"""
    s = json.load(open("%s/%s.json" % (out, name)))["end"]["sum_received"]
    secs = s["seconds"]
    syms = {}
    for line in open("%s/%s.syms" % (out, name)):
        pct, sym = line.rstrip("\n").split(" ", 1)
        syms[sym] = syms.get(sym, 0.0) + float(pct) / 100 * secs * 1e9
    return secs, s["bytes"], syms


def hits(name):
    with open("%s/%s.hits" % (out, name)) as f:
        return int(f.read().split()[0])


def segs(name):
    """{namespace: TCP OutSegs during the transfer}, from <name>.segs"""
    try:
        rows = [ln.split() for ln in open("%s/%s.segs" % (out, name))]
    except OSError:
        return None
    before, d = {}, {}
    for ns, _, o in rows:
        if ns in before:
            d[ns] = int(o) - before[ns]
        else:
            before[ns] = int(o)
    return d


bsecs, bbytes, bsyms = run("baseline")
bsg = segs("baseline")
runs = {}       # config: (guest seconds, bytes, events), for the callers' part
print("# make bench-profile: %s, %s\n" % (kver, rev))
print("iperf3 -n %s over veth (TSO/GSO/GRO off, gso_max_segs 1), one vCPU, QEMU -icount shift=0,sleep=off, "
      "`perf record -a -e cpu-clock` in the guest (bench/profile.sh). Per configuration: the "
      "instructions per recorded event above the baseline transfer (%.1f Mbit/s, scaled to the "
      "same bytes), in total and per symbol, the %d largest. The samples of a handler's "
      "interrupts-off section show as the builder that ends it (`magnet_record_tcp`, "
      "`magnet_record_pkt`, `magnet_app_return`; see bench/profile.sh). perf's own "
      "sampling runs in the baseline too.\n" % (nbytes, bbytes * 8 / bsecs / 1e6, TOP))
for c in configs:
    secs, nb, syms = run(c)
    ev = hits(c)
    runs[c] = (secs, nb, ev)
    scale = nb / bbytes
    extra = (secs - bsecs * scale) * 1e9 / ev
    print("## %s\n" % c)
    print("%d events, %.1f Mbit/s (%.3f of the baseline), %.0f instructions per event above it\n"
          % (ev, nb * 8 / secs / 1e6, (nb / secs) / (bbytes / bsecs), extra))
    sg = segs(c)
    if sg and bsg:
        print("TCP segments sent during the transfer: the receiver (ACKs) %d, the sender %d; "
              "in the baseline %d and %d.\n" % (sg["bs"], sg["bc"], bsg["bs"], bsg["bc"]))
    if abs(nb - bbytes) > 0.02 * bbytes:
        # iperf3's receiver stops counting at the test's end; a little
        # in flight then is usual, much means another workload
        print("**This run's receiver counted %d bytes, the baseline's %d: more than 2%% apart, "
              "so the two transfers are not the same workload.**\n" % (nb, bbytes))
    rows = sorted(((syms.get(k, 0) - bsyms.get(k, 0) * scale) / ev, k)
                  for k in set(syms) | set(bsyms))
    rows.reverse()
    idle = sum(v for v, k in rows if k in IDLE)
    print("Of these, idle time (the clock's jumps over a halted vCPU, not instructions): %.0f; "
          "the rest: %.0f.\n" % (idle, extra - idle))
    rows = [r for r in rows if r[1] not in IDLE]
    print("| instr/event | symbol |")
    print("|---|---|")
    for v, k in rows[:TOP]:
        print("| %.0f | `%s` |" % (v, k))
    print()


def callers(name):
    """{chain: share of the run's samples}, or None without call graphs"""
    try:
        lines = open("%s/%s.callers" % (out, name)).read().splitlines()
    except OSError:
        return None
    n = int(lines[-1].split()[1])
    return {k: int(v) / n for v, k in (ln.split(" ", 1) for ln in lines[:-1])}


bcall = callers("baseline")
if bcall is not None:
    print("## Callers (PROFILE_CALLERS)\n")
    print("Per configuration, the instructions per event of the symbols named, by chain of "
          "callers (leaf first, 7 frames up), above the baseline's same chain scaled to the "
          "same bytes; the 15 largest.\n")
    for c in configs:
        secs, nb, ev = runs[c]
        scale = nb / bbytes
        call = callers(c)
        rows = sorted((((call.get(k, 0) * secs - bcall.get(k, 0) * bsecs * scale) * 1e9 / ev), k)
                      for k in set(call) | set(bcall))
        rows.reverse()
        print("### %s\n" % c)
        print("| instr/event | chain |")
        print("|---|---|")
        for v, k in rows[:15]:
            print("| %.0f | `%s` |" % (v, k))
        print()
