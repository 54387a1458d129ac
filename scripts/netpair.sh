# shellcheck shell=bash
# Sourced by the guest scripts of the VM tests, the demo and the benchmark:
# two hosts in network namespaces joined by a veth pair.
#
#   netns CLI: mgc 10.200.1.1/24 fd00:200::1/64 <--veth--> mgs 10.200.1.2/24 fd00:200::2/64 :netns SRV
#
# netpair_setup CLI SRV [nooffload]: build it and check that both ends
#   answer; nooffload turns TSO, GSO and GRO off on both ends and sets
#   gso_max_segs 1, so every MTU-sized segment is one event at each layer.
#   GSO off alone is not enough: TCP builds multi-segment skbs for software
#   GSO anyway (sk_setup_caps), as many as were queued, so the number of
#   TCP-layer events of a transfer would depend on how busy the CPU was
#   (seen in make bench: 5,555 to 24,518 tcp events for the same 30 MB).
# netpair_hold_timestamps: receive timestamps on until the process in
#   $NETPAIR_TSHOLD is killed; call before any traffic, in a guest of more
#   than one vCPU. ping turns them on (SO_TIMESTAMP) and off again as it
#   exits, and the first turn on and the last turn off each patch
#   netif_rx_internal and its kin (a static key): code patched under
#   traffic, which multi-threaded TCG can get wrong (the emulator pitfall
#   of shared/reference/vm-testing.md; seen once, "Oops: int3" in
#   netif_rx_internal from netpair_setup's ping on 7.2, no module loaded,
#   2026-11-27). With a socket holding them on, a ping only counts up and
#   down. Not for the benchmarks: timestamps cost every packet a clock read.
netpair_hold_timestamps() {
	/usr/bin/python3 -S -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMP", 29), 1)
time.sleep(1e6)' &
	NETPAIR_TSHOLD=$!
	sleep 1		# the key is turned on by a work item
}

netpair_setup() {
	local cli=$1 srv=$2 ns
	ip link set lo up
	ip netns add "$cli"
	ip netns add "$srv"
	ip link add mgc netns "$cli" type veth peer name mgs netns "$srv"
	ip -n "$cli" addr add 10.200.1.1/24 dev mgc
	ip -n "$srv" addr add 10.200.1.2/24 dev mgs
	ip -n "$cli" addr add fd00:200::1/64 dev mgc nodad
	ip -n "$srv" addr add fd00:200::2/64 dev mgs nodad
	for ns in "$cli" "$srv"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$cli" link set mgc up
	ip -n "$srv" link set mgs up
	if [ "${3:-}" = nooffload ]; then
		ip netns exec "$cli" ethtool -K mgc tso off gso off gro off > /dev/null
		ip netns exec "$srv" ethtool -K mgs tso off gso off gro off > /dev/null
		ip -n "$cli" link set mgc gso_max_segs 1
		ip -n "$srv" link set mgs gso_max_segs 1
	fi
	ip netns exec "$cli" ping -c 1 -W 5 10.200.1.2 > /dev/null
	ip netns exec "$cli" ping -6 -c 1 -W 5 fd00:200::2 > /dev/null
}

# netpair_wait_listen NS PORT: wait up to 10 s for a TCP listener in NS
# ("-": the initial namespace). One exec a poll (ss -N, no ip netns exec,
# grep or seq): under emulation each exec costs a few tenths of a second.
netpair_wait_listen() {
	local i ns=()
	[ "$1" = - ] || ns=(-N "$1")
	for ((i = 0; i < 100; i++)); do
		[ -n "$(ss "${ns[@]}" -Hltn "sport = :$2")" ] && return 0
		sleep 0.1
	done
	echo "no listener on port $2 in netns $1" >&2
	return 1
}
