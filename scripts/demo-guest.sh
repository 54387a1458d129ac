#!/bin/bash
# Runs inside the demo VM: TEACUP-style capture of one iperf3 transfer,
# then magnet-exp's experiment examples/experiments/demo.toml (captured
# only: scripts/demo.sh analyses it on the host, where it takes seconds,
# not the minutes it takes under emulation).
set -eu
# the first line: scripts/demo.sh boots once more when it never came
echo "demo-guest: started"
ko=$1
out=$2
size=${3:-8M}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/netpair.sh"
netpair_hold_timestamps
netpair_setup cli srv

insmod "$ko" port=5201 full=1 direction=2
cat /proc/net/magnet > "$out/magnet.log" &
reader=$!
ip netns exec srv iperf3 -s -1 -D
netpair_wait_listen srv 5201
ip netns exec cli iperf3 -c 10.200.1.2 -n "$size" -J > "$out/iperf3.json"
echo flush > /proc/net/magnet
sleep 0.5
echo finish > /proc/net/magnet
wait "$reader"
rmmod magnet
# the transfer's own kernel log (its finish counters), apart from the
# experiment's, whose runs load magnet again
dmesg > "$out/dmesg-transfer.txt"
echo "demo: the experiment: cubic and reno through 20 Mbit/s, 20 ms, 0.2% loss"
/usr/bin/python3 "$top/userspace/magnet-exp" run --no-analyse --module "$ko" \
	-o "$out/exp" "$top/examples/experiments/demo.toml"
kill "$NETPAIR_TSHOLD"
dmesg > "$out/dmesg.txt"
