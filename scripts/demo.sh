#!/bin/bash
# make demo: install deps, build, boot a throwaway VM with a Debian kernel,
# load magnet, run a short iperf3 transfer over a veth pair, and leave the
# log and a summary in build/demo/; then, in the same VM, magnet-exp's
# experiment examples/experiments/demo.toml (cubic against reno on an
# emulated path), analysed here: its comparison table, verdicts and
# figures in build/demo/exp/, and each run's packets and events for
# Wireshark, one pcapng file per host and device (<run>.analysis/pcapng/);
# then each run's sender's packets as Wireshark reads them, its
# retransmissions against the analysis's count (scripts/demo-wireshark.py:
# the demo fails if they differ).
#
# MAGNET_DEMO_KVER picks the kernel (default: the newest installed line),
# MAGNET_DEMO_SIZE what iperf3 sends (default 8M; iperf3's -n syntax);
# MAGNET_VM_KVM=1 uses KVM instead of software emulation;
# MAGNET_DEMO_ICOUNT=0 runs the emulated guest on the host's clock, not
# on instruction-counted time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
make -s userspace
kver=${MAGNET_DEMO_KVER:-$(scripts/kernels.sh | tail -n 1)}
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"
scripts/build-module.sh "$kver" "$top/build/$kver"
kvm=--disable-kvm
[ "${MAGNET_VM_KVM:-0}" = 1 ] && kvm=
size=${MAGNET_DEMO_SIZE:-8M}
# the guest's clock counts instructions (QEMU -icount shift=0,sleep=off:
# 1 ns each, idle time skipped), so the host's load does not move the
# experiment's timings and cubic's and reno's runs meet the same path
# (on the host's clock their times to the first byte were up to 1.7 ms
# apart from the emulator's timing alone); magnet-exp records it
# (MAGNET_EXP_ICOUNT) and its report says so. MAGNET_DEMO_ICOUNT=0 runs
# on the host's clock; KVM has no instruction counting.
icount="shift=0,sleep=off"
{ [ "${MAGNET_DEMO_ICOUNT:-1}" = 0 ] || [ -z "$kvm" ]; } && icount=

# a boot the emulator kills before the demo's first line is retried once
# (scripts/vmboot.sh), as make check does
. "$top"/scripts/vmboot.sh
echo "demo: booting $kver under QEMU (about a minute with software emulation${icount:+; the guest on instruction-counted time, -icount $icount})"
rc=0
vm_boot demo "$out/console.log" '^demo-guest: started' 600 \
	timeout --kill-after=30 900 vng --verbose --run "/boot/vmlinuz-$kver" $kvm --cpus 2 \
	--memory 1G --rwdir "$out" --append kfence.sample_interval=1 ${icount:+--qemu-opts="-icount $icount"} \
	--exec "MAGNET_EXP_ICOUNT=$icount bash $top/scripts/demo-guest.sh $top/build/$kver/magnet.ko $out $size" >&2 || rc=1
[ $rc = 0 ] && rc=$VM_STATUS
if [ $rc != 0 ]; then
	echo "demo: the VM run failed; see $out/console.log" >&2
	tail -n 20 "$out/console.log" >&2
	exit 1
fi
[ -s "$out/magnet.log" ] || { echo "demo: no log was written" >&2; exit 1; }

{
	echo "magnet demo on Linux $kver: iperf3, $size from 10.200.1.1 to 10.200.1.2 over veth"
	echo
	userspace/magnet-summary "$out/magnet.log"
	# what iperf3 counted: its server stops reading at the test's end, so
	# it may read less than the client wrote (and the client's unsent rest
	# then goes with the server's reset)
	python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["end"]
print("iperf3: the client wrote %d bytes, the server read %d" % (e["sum_sent"]["bytes"], e["sum_received"]["bytes"]))' "$out/iperf3.json"
	# the transfer's counters (its finish), not the experiment's runs'
	# nor the per-CPU lines
	grep -o 'magnet: finish: [0-9]* records written.*' "$out/dmesg-transfer.txt" |
		sed 's/^magnet: finish: /kernel counters: /'
} > "$out/summary.txt"
cat "$out/summary.txt"
echo
echo "demo: log in $out/magnet.log, summary in $out/summary.txt"
echo
echo "demo: the experiment (examples/experiments/demo.toml): cubic and reno"
echo "through 20 Mbit/s, 20 ms, 0.2% loss; its analysis:"
MAGNET_TTPB2ASCII=$top/userspace/ttpb2ascii MPLCONFIGDIR=$out/mpl \
	userspace/magnet-exp report --pcapng "$out/exp"
echo
echo "demo: the time to the first byte (the table's \"first byte\": the sender's SYN"
echo "to the receiver's TCP getting data), the same path for both variants since"
echo "the warm-up resolved its neighbours: the handshake (the SYN to the SYN-ACK"
echo "at the sender's TCP), the wait for the first data (the SYN-ACK to its first"
echo "data segment: the application's share), the first data's way:"
python3 - "$out/exp/summary.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
ms = lambda x: "%.2f ms" % (x * 1e3) if x is not None else "-"
for r in runs:
    m = r["metrics"]
    way = m["ttfb_s"] - m["ttfb_handshake_s"] - m["ttfb_wait_s"] \
        if None not in (m["ttfb_s"], m["ttfb_handshake_s"],
                        m["ttfb_wait_s"]) else None
    print("  %s #%d: %s (handshake %s, wait %s, way %s)" % (
        r["variant"], r["repetition"], ms(m["ttfb_s"]),
        ms(m["ttfb_handshake_s"]), ms(m["ttfb_wait_s"]), ms(way)))
t = [r["metrics"]["ttfb_s"] for r in runs]
if len(t) > 1 and None not in t:
    print("  apart: %s at most" % ms(max(t) - min(t)))
PY
echo
echo "demo: Wireshark (tshark) on each run's sender alone (ttpb2ascii -f pcapng"
echo "-n <its namespace> -L dev), against the analysis's retransmits; then each"
echo "device's own file, those magnet-exp report --pcapng left in each run's"
echo "<run>.analysis/pcapng/ for Wireshark (the sender's with what the plugin"
echo "wireshark/magnet.lua shows of it): the sender's and the"
echo "router's must hold as many copies of a segment (less those its qdisc"
echo "dropped); then the router's devices: the packets that left each"
echo "(wire_out) against tc's sent count, and the time through it against"
echo "netem's delay:"
MAGNET_TTPB2ASCII=$top/userspace/ttpb2ascii python3 scripts/demo-wireshark.py "$out/exp"
