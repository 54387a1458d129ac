#!/bin/bash
# Runs inside the benchmark guest (see bench/run.sh).
# usage: guest.sh MAGNET_KO OUTDIR BYTES
#
#   netns bc (iperf3 client) --veth, TSO/GSO/GRO off--> netns bs (iperf3 -s)
#
# One iperf3 transfer of BYTES per configuration, all in this one boot, so
# ratios compare runs on the same kernel and the same instruction clock.
set -eu
ko=$1
out=$2
bytes=$3
ip netns add bc
ip netns add bs
ip link add vc netns bc type veth peer name vs netns bs
ip -n bc addr add 10.201.0.1/24 dev vc
ip -n bs addr add 10.201.0.2/24 dev vs
for ns in bc bs; do
	ip -n $ns link set lo up
done
ip -n bc link set vc up
ip -n bs link set vs up
# one event per MTU-sized segment: no segmentation or receive offloads
ip netns exec bc ethtool -K vc tso off gso off gro off > /dev/null 2>&1 || true
ip netns exec bs ethtool -K vs tso off gso off gro off > /dev/null 2>&1 || true
ip netns exec bc ping -c 1 -W 5 10.201.0.2 > /dev/null

# run NAME [insmod parameters]: one transfer; "-" = no module
run() {
	local name=$1 reader= secs bps
	shift
	if [ "$1" != - ]; then
		insmod "$ko" "$@"
		cat /proc/net/magnet > /dev/shm/bench.log &
		reader=$!
	fi
	ip netns exec bs iperf3 -s -1 -D
	for i in $(seq 50); do
		ip netns exec bs ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.1
	done
	ip netns exec bc iperf3 -c 10.201.0.2 -n "$bytes" -J > "$out/$name.json"
	if [ -n "$reader" ]; then
		echo flush > /proc/net/magnet
		sleep 0.5
		echo finish > /proc/net/magnet
		wait "$reader"
		dmesg | grep 'magnet: finish: .*records written' | tail -1 > "$out/$name.stats"
		stat -c %s /dev/shm/bench.log >> "$out/$name.stats"
		rm -f /dev/shm/bench.log
		rmmod magnet
	fi
	echo "bench: $name done"
}

run baseline -
run tcp-ascii events=tcp omode=0 port=5201
run all-binary events=all omode=1 port=5201 bufsize=16384
run baseline2 -
dmesg > "$out/dmesg.txt"
echo BENCH-DONE > "$out/done"
