#!/bin/bash
# usage: bench/run.sh [KVER]      (make bench)
#
# Throughput of an iperf3 transfer with and without magnet, measured in one
# guest boot under QEMU's instruction-counted clock (-icount shift=0,
# sleep=off): guest time advances by 1 ns per executed instruction, so a
# guest-measured throughput is repeatable and a ratio of two runs is a ratio
# of executed instructions. Configurations (see bench/guest.sh):
#   baseline     no module
#   tcp-ascii    events=tcp omode=0 (ttprobe's volume and format)
#   all-binary   events=all omode=1 (every layer, binary)
#   handlers     the same, but the reader starts after the transfer: what
#                the traffic pays for the probe handlers alone, as on a
#                machine where the reader has a core of its own
#   baseline2    no module again: shows the runs are repeatable
# Reports throughput, the ratio to baseline, events, lost records, and the
# cost per event in instructions. KVER defaults to the 6.1 line (the
# reference numbers in DEVELOPERS' guide were taken on Debian 6.1).
# BENCH_BYTES (default 100M) sets the transfer size. One vCPU: QEMU's icount
# mode hangs bringing up a second one.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:-$("$top"/scripts/kernels.sh | head -n 1)}
bytes=${BENCH_BYTES:-100M}
out=$top/build/bench/$kver
rm -rf "$out"
mkdir -p "$out"
"$top"/scripts/build-module.sh "$kver" "$top/build/$kver" > /dev/null
cp "$top"/bench/guest.sh "$top"/scripts/netpair.sh "$out/"
echo "bench: $kver, iperf3 -n $bytes over veth, TSO/GSO/GRO off, -icount shift=0,sleep=off"
# cryptomgr.notests: under the instruction clock, the crypto self-test that
# udev's loading of ghash_clmulni_intel starts can outlast its timeout and
# print "WARNING: ... crypto_wait_for_test" (seen on 6.1), which is no
# concern of this benchmark and would fail it
timeout --kill-after=30 1800 vng --verbose --run "/boot/vmlinuz-$kver" --disable-kvm --cpus 1 \
	--memory 1G --rwdir "$out" --qemu-opts="-icount shift=0,sleep=off" \
	--append cryptomgr.notests \
	--exec "bash $out/guest.sh $top/build/$kver/magnet.ko $out $bytes" \
	< /dev/null > "$out/console.log" 2>&1 || true
if [ ! -e "$out/done" ]; then
	echo "bench: the guest did not finish; see $out/console.log" >&2
	tail -n 20 "$out/console.log" >&2
	exit 1
fi
if grep -E 'BUG:|WARNING:|Oops|RCU stall|soft lockup' "$out/dmesg.txt"; then
	echo "bench: kernel warnings in the guest" >&2
	exit 1
fi
python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
def run(name):
    j = json.load(open("%s/%s.json" % (out, name)))
    e = j["end"]["sum_received"]
    return e["bytes"], e["seconds"], e["bits_per_second"]
b0, s0, bps0 = run("baseline")
print("%-11s %12s %8s %10s %8s %14s" % ("config", "Mbit/s", "ratio", "events", "lost", "instr/event"))
for name in ("baseline", "tcp-ascii", "all-binary", "handlers", "baseline2"):
    b, s, bps = run(name)
    ev = lost = "-"
    per = "-"
    try:
        st = open("%s/%s.stats" % (out, name)).read()
        m = re.search(r"(\d+) records written, (\d+) lost", st)
        ev, lost = int(m.group(1)), int(m.group(2))
        # guest ns per byte above baseline = instructions (shift=0)
        extra_ns = (s - s0 * b / b0) * 1e9
        per = "%.0f" % (extra_ns / ev) if ev else "-"
    except OSError:
        pass
    print("%-11s %12.1f %8.3f %10s %8s %14s" % (name, bps / 1e6, bps / bps0, ev, lost, per))
PY
