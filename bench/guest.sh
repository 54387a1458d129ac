#!/bin/bash
# Runs inside the benchmark guest (see bench/run.sh).
# usage: guest.sh MAGNET_KO OUTDIR BYTES REPS [BASE_KO]
#
#   netns bc (iperf3 client) --veth mgc/mgs, TSO/GSO/GRO off, gso_max_segs 1--> netns bs (iperf3 -s)
#   (scripts/netpair.sh, copied next to this script)
#
# Every configuration is one iperf3 transfer, all in this one boot, so
# ratios compare runs on the same kernel and the same instruction clock.
# The list is run REPS times, interleaved (A B C ... A B C ...), with a
# baseline first in each round and once more at the end. Per run it leaves
# OUTDIR/<config>.<round>.json (iperf3) and .stats: "events N", "lost N",
# "bytes N" (what the tracer wrote).
set -eu
ko=$1
out=$2
bytes=$3
reps=$4
# bench/run.sh's BENCH_BASE: another build of magnet, run as CONFIG@base
# right before each magnet configuration
baseko=${5:-}
. "$(dirname "$0")/netpair.sh"
. "$(dirname "$0")/guest-common.sh"
netpair_setup bc bs nooffload
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T
LOG=/dev/shm/bench.log

stats() {	# stats FILE EVENTS LOST: the run's counts
	printf 'events %s\nlost %s\nbytes %s\n' "$2" "$3" \
		"$(stat -c %s $LOG 2>/dev/null || echo 0)" > "$1"
	rm -f $LOG
}

# transfer NAME ROUND [udp]: one iperf3 run, bc -> bs
transfer() {
	ip netns exec bs iperf3 -s -1 -D
	netpair_wait_listen bs 5201
	if [ "${3:-}" = udp ]; then
		# TICKET's small packets: 64-byte payloads, as fast as iperf3 goes
		ip netns exec bc iperf3 -c 10.200.1.2 -u -l 64 -b 0 -t 1 -J > "$out/$1.$2.json"
	else
		ip netns exec bc iperf3 -c 10.200.1.2 -n "$bytes" -J > "$out/$1.$2.json"
	fi
	# a UDP server may still be in its last second
	sleep 0.2
	pkill -x iperf3 2> /dev/null || true
}

# wait_reader PID RUN: the reader ends after finish; if it does not within
# 120 s, say where it is blocked and end it, so the benchmark goes on
wait_reader() {
	local i
	for i in $(seq 120); do
		kill -0 "$1" 2> /dev/null || break
		sleep 1
	done
	if kill -0 "$1" 2> /dev/null; then
		echo "bench: $2: the reader did not end after finish" | tee -a "$out/hung.txt"
		{ cat /proc/"$1"/stack; grep State /proc/"$1"/status; cat /proc/net/magnet_stats; } \
			>> "$out/hung.txt" 2>&1
		kill -9 "$1"
	fi
	wait "$1" || true
}

# magnet NAME ROUND MODE [udp] -- PARAMS: MODE live (cat reads during the
# transfer), record (magnet-record does) or deferred (cat starts after it:
# what the traffic pays for the handlers alone; the ring must hold every
# record). With a base module, the same first with it, as NAME@base.
magnet_one() {	# magnet_one KO NAME ROUND MODE ...
	local mod=$1 name=$2 round=$3 mode=$4 kind= reader st
	shift 4
	[ "$1" = udp ] && { kind=udp; shift; }
	insmod "$mod" "$@"
	[ "$mode" = deferred ] || start_reader "$mode"
	transfer "$name" "$round" $kind
	[ "$mode" = deferred ] && start_reader cat
	echo flush > /proc/net/magnet
	sleep 0.5
	echo finish > /proc/net/magnet
	wait_reader "$reader" "$name.$round"
	st=$(dmesg | grep 'magnet: finish: .*records written' | tail -1)
	[[ $st =~ ([0-9]+)\ records\ written,\ ([0-9]+)\ lost ]]
	stats "$out/$name.$round.stats" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
	rmmod magnet
}

magnet() {
	if [ -n "$baseko" ]; then
		magnet_one "$baseko" "$1@base" "${@:2}"
	fi
	magnet_one "$ko" "$@"
}

# tcpdump NAME ROUND SNAPLEN [udp]: on the sender's veth, to tmpfs
tcpdump_run() {
	local name=$1 round=$2 snap=$3 pid err=/dev/shm/tcpdump.err
	ip netns exec bc tcpdump -i mgc -s "$snap" -w $LOG -n 2> $err &
	pid=$!
	sleep 1	# tcpdump attached: "listening on" is printed
	transfer "$name" "$round" ${4:-}
	kill -INT $pid
	wait $pid || true
	stats "$out/$name.$round.stats" \
		"$(awk '/packets captured/ { print $1 }' $err)" \
		"$(awk '/packets dropped by kernel/ { print $1 }' $err)"
}

# the kernel's own tcp:tcp_probe tracepoint, filtered on the port, read
# through trace_pipe; its ring's overruns are its losses
tracepoint_run() {
	local name=$1 round=$2 pid lost
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 'sport == 5201 || dport == 5201' > $T/events/tcp/tcp_probe/filter
	echo 1 > $T/events/tcp/tcp_probe/enable
	cat $T/trace_pipe > $LOG &
	pid=$!
	echo 1 > $T/tracing_on
	transfer "$name" "$round"
	sleep 0.5
	# with tracing off, trace_pipe ends the read: cat exits by itself
	echo 0 > $T/tracing_on
	lost=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	kill $pid 2> /dev/null || true
	wait $pid 2> /dev/null || true
	echo 0 > $T/events/tcp/tcp_probe/enable
	echo 0 > $T/events/tcp/tcp_probe/filter
	stats "$out/$name.$round.stats" "$(wc -l < $LOG)" "$lost"
}

# bpftrace: kprobes where magnet's TCP events are, printing 4 fields each
bpftrace_run() {
	local name=$1 round=$2 pid lost
	bpftrace -e '
kprobe:__tcp_transmit_skb { printf("o %llu %u %u\n", nsecs, cpu, ((struct tcp_sock *)arg0)->snd_cwnd); }
kprobe:tcp_v4_do_rcv { printf("i %llu %u %u\n", nsecs, cpu, ((struct tcp_sock *)arg0)->snd_cwnd); }' \
		> $LOG 2> /dev/shm/bpftrace.err &
	pid=$!
	for _ in $(seq 300); do
		grep -q Attaching $LOG 2> /dev/null && break
		sleep 0.1
	done
	transfer "$name" "$round"
	sleep 0.5
	kill -INT $pid
	wait $pid || true
	lost=$(cat $LOG /dev/shm/bpftrace.err | awk '/^Lost [0-9]+ events/ { n += $2 } END { print n + 0 }')
	stats "$out/$name.$round.stats" "$(grep -c '^[oi] ' $LOG)" "$lost"
}

# want NAME: the configuration is asked for (bench/run.sh's BENCH_CONFIGS,
# written to $out/configs; every one if it is empty)
want() {
	[ ! -s "$out/configs" ] || grep -qxF "$1" "$out/configs"
}

one_round() {
	local r=$1
	transfer baseline "$r"; echo "bench: baseline.$r"
	if want tcpdump-96; then tcpdump_run tcpdump-96 "$r" 96; echo "bench: tcpdump-96.$r"; fi
	if want tcpdump-full; then tcpdump_run tcpdump-full "$r" 262144; echo "bench: tcpdump-full.$r"; fi
	if want tracepoint; then tracepoint_run tracepoint "$r"; echo "bench: tracepoint.$r"; fi
	if want bpftrace; then bpftrace_run bpftrace "$r"; echo "bench: bpftrace.$r"; fi
	if want tcp-ascii; then magnet tcp-ascii "$r" live events=tcp omode=0 port=5201; echo "bench: tcp-ascii.$r"; fi
	if want tcp-binary; then magnet tcp-binary "$r" live events=tcp omode=1 format=2 port=5201; echo "bench: tcp-binary.$r"; fi
	if want all-binary; then magnet all-binary "$r" live events=all omode=1 format=2 port=5201 bufsize=16384; echo "bench: all-binary.$r"; fi
	if want tcp-binary-v3; then magnet tcp-binary-v3 "$r" live events=tcp omode=1 format=3 port=5201; echo "bench: tcp-binary-v3.$r"; fi
	if want all-binary-v3; then magnet all-binary-v3 "$r" live events=all omode=1 format=3 port=5201 bufsize=16384; echo "bench: all-binary-v3.$r"; fi
	if want all-ev-v3; then magnet all-ev-v3 "$r" live events=all,drop,retrans,state,qdisc omode=1 format=3 port=5201 bufsize=16384; echo "bench: all-ev-v3.$r"; fi
	if want all-wire-v3; then magnet all-wire-v3 "$r" live events=all,wire omode=1 format=3 port=5201 bufsize=16384; echo "bench: all-wire-v3.$r"; fi
	if want tcp-record; then magnet tcp-record "$r" record events=tcp omode=1 format=3 port=5201; echo "bench: tcp-record.$r"; fi
	if want all-record; then magnet all-record "$r" record events=all omode=1 format=3 port=5201 bufsize=16384; echo "bench: all-record.$r"; fi
	if want tcp-handlers; then magnet tcp-handlers "$r" deferred events=tcp omode=1 port=5201 bufsize=262144; echo "bench: tcp-handlers.$r"; fi
	if want handlers; then magnet handlers "$r" deferred events=all omode=1 port=5201 bufsize=1048576; echo "bench: handlers.$r"; fi
	transfer udp-baseline "$r" udp; echo "bench: udp-baseline.$r"
	if want udp-tcpdump-96; then tcpdump_run udp-tcpdump-96 "$r" 96 udp; echo "bench: udp-tcpdump-96.$r"; fi
	if want udp-magnet; then magnet udp-magnet "$r" live udp events=ip,dev nontcp=1 omode=1 format=2 bufsize=16384; echo "bench: udp-magnet.$r"; fi
	if want udp-magnet-v3; then magnet udp-magnet-v3 "$r" live udp events=ip,dev nontcp=1 omode=1 format=3 bufsize=16384; echo "bench: udp-magnet-v3.$r"; fi
	if want udp-record; then magnet udp-record "$r" record udp events=ip,dev nontcp=1 omode=1 format=3 bufsize=16384; echo "bench: udp-record.$r"; fi
}

for r in $(seq "$reps"); do
	one_round "$r"
done
transfer baseline last; echo "bench: baseline.last"
dmesg > "$out/dmesg.txt"
echo BENCH-DONE > "$out/done"
