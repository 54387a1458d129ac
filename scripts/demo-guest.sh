#!/bin/bash
# Runs inside the demo VM: TEACUP-style capture of one iperf3 transfer.
set -eu
ko=$1
out=$2
size=${3:-8M}
. "$(dirname "$0")/netpair.sh"
netpair_setup cli srv

insmod "$ko" port=5201 full=1 direction=2
cat /proc/net/magnet > "$out/magnet.log" &
reader=$!
ip netns exec srv iperf3 -s -1 -D
netpair_wait_listen srv 5201
ip netns exec cli iperf3 -c 10.200.1.2 -n "$size" > "$out/iperf3.txt"
echo flush > /proc/net/magnet
sleep 0.5
echo finish > /proc/net/magnet
wait "$reader"
rmmod magnet
dmesg > "$out/dmesg.txt"
