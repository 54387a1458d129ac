#!/bin/bash
# Runs inside the demo VM: TEACUP-style capture of one iperf3 transfer.
set -eu
ko=$1
out=$2
ip netns add cli
ip netns add srv
ip link add mgc netns cli type veth peer name mgs netns srv
ip -n cli addr add 10.200.1.1/24 dev mgc
ip -n srv addr add 10.200.1.2/24 dev mgs
ip -n cli link set mgc up
ip -n srv link set mgs up
ip -n srv link set lo up

insmod "$ko" port=5201 full=1 direction=2
cat /proc/net/magnet > "$out/magnet.log" &
reader=$!
ip netns exec srv iperf3 -s -1 -D
for i in $(seq 50); do
	ip netns exec srv ss -Hltn 'sport = :5201' | grep -q . && break
	sleep 0.1
done
ip netns exec cli iperf3 -c 10.200.1.2 -n 8M > "$out/iperf3.txt"
echo flush > /proc/net/magnet
sleep 0.5
echo finish > /proc/net/magnet
wait "$reader"
rmmod magnet
dmesg > "$out/dmesg.txt"
