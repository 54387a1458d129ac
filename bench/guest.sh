#!/bin/bash
# Runs inside the benchmark guest (see bench/run.sh).
# usage: guest.sh MAGNET_KO OUTDIR BYTES
#
#   netns bc (iperf3 client) --veth, TSO/GSO/GRO off--> netns bs (iperf3 -s)
#   (scripts/netpair.sh, copied next to this script)
#
# One iperf3 transfer of BYTES per configuration, all in this one boot, so
# ratios compare runs on the same kernel and the same instruction clock.
set -eu
ko=$1
out=$2
bytes=$3
. "$(dirname "$0")/netpair.sh"
netpair_setup bc bs nooffload

# run NAME [insmod parameters]: one transfer; "-" = no module. With
# DEFER=1 the reader starts only after the transfer, so the transfer pays
# for the probe handlers alone (the ring must hold every record).
run() {
	local name=$1 reader= secs bps
	shift
	if [ "$1" != - ]; then
		insmod "$ko" "$@"
		if [ "${DEFER:-0}" = 0 ]; then
			cat /proc/net/magnet > /dev/shm/bench.log &
			reader=$!
		else
			reader=deferred
		fi
	fi
	ip netns exec bs iperf3 -s -1 -D
	netpair_wait_listen bs 5201
	ip netns exec bc iperf3 -c 10.200.1.2 -n "$bytes" -J > "$out/$name.json"
	if [ "$reader" = deferred ]; then
		cat /proc/net/magnet > /dev/shm/bench.log &
		reader=$!
	fi
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
DEFER=1 run handlers events=all omode=1 port=5201 bufsize=262144
run baseline2 -
dmesg > "$out/dmesg.txt"
echo BENCH-DONE > "$out/done"
