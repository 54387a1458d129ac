# shellcheck shell=bash
# Sourced by the Monarch VM cases (tests/vm/cases/85-monarch.sh) and
# Monarch's benchmark (bench/monarch-guest.sh): a path to a remote host
# through a router, in network namespaces.
#
#   mo-host 10.63.1.1 --moh0/mor0-- mo-rtr --mor1/moe0-- mo-rem 10.63.2.2
#
# monarch_net_setup [TO BACK]: build it; TO and BACK are netem's options
#   for the router's device toward the remote (mor1) and back toward the
#   host (mor0), a netem qdisc on each (none without them). Nothing but the traffic of a test
#   crosses them (no IPv6, neighbours set by hand: no ARP), so that their
#   drop counters are the truth about its losses. The remote handles
#   every packet on one CPU (RPS to CPU 0): on two, the IP IDs of answers
#   made at once on both may be taken in the other order than the answers
#   leave, which Monarch's self-diagnosis would rightly call reordering
#   on the way back. The remote answers every probe: no ICMP rate limit
#   (its default is one error a second per host, net.ipv4.icmp_ratelimit,
#   and 1000 a second in all, icmp_msgs_per_sec: the whole kernel's on
#   5.10, per namespace later).
#   Packets cross it one MTU at a time, as on a wire: no TSO or GSO out of
#   mo-host, no GRO on any of its devices. With them a real TCP flow from
#   mo-host crossed the router's netem in segments of up to 64 KB, each
#   dropped by its loss or counted against its limit as one packet,
#   while a Monarch flow's probes (one MTU each, as the sender's segments
#   are in Monarch's namespaces) met the loss once per MTU: in make
#   bench-monarch (2026-11-28) the real flows ran at 7.3 to 11.4 Mbit/s,
#   the Monarch flows at 6.2 to 7.9.
# monarch_net_del: remove it.
# fixed_neighbours NS1:DEV1:ADDR1:NS2:DEV2:ADDR2 ...: each link's two ends
#   know each other's MAC address for good (no ARP on it); case_qdisc
#   uses it too.

fixed_neighbours() {
	local d n1 d1 a1 n2 d2 a2
	for d in "$@"; do
		IFS=: read -r n1 d1 a1 n2 d2 a2 <<< "$d"
		ip -n "$n1" neigh replace "$a2" dev "$d1" nud permanent \
			lladdr "$(ip -n "$n2" -br link show dev "$d2" | awk '{ print $3 }')"
		ip -n "$n2" neigh replace "$a1" dev "$d2" nud permanent \
			lladdr "$(ip -n "$n1" -br link show dev "$d1" | awk '{ print $3 }')"
	done
}
monarch_net_setup() {
	local ns d
	for ns in mo-host mo-rtr mo-rem; do
		ip netns add $ns
		ip -n $ns link set lo up
		ip netns exec $ns sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 \
			net.ipv6.conf.all.disable_ipv6=1
	done
	ip link add moh0 netns mo-host type veth peer name mor0 netns mo-rtr
	ip link add mor1 netns mo-rtr type veth peer name moe0 netns mo-rem
	ip -n mo-host addr add 10.63.1.1/24 dev moh0
	ip -n mo-rtr addr add 10.63.1.2/24 dev mor0
	ip -n mo-rtr addr add 10.63.2.1/24 dev mor1
	ip -n mo-rem addr add 10.63.2.2/24 dev moe0
	for d in mo-host:moh0 mo-rtr:mor0 mo-rtr:mor1 mo-rem:moe0; do
		ip -n "${d%:*}" link set "${d#*:}" up
	done
	ip -n mo-host route add default via 10.63.1.2
	ip -n mo-rem route add default via 10.63.2.1
	ip netns exec mo-host ethtool -K moh0 tso off gso off gro off > /dev/null
	for d in mo-rtr:mor0 mo-rtr:mor1 mo-rem:moe0; do
		ip netns exec "${d%:*}" ethtool -K "${d#*:}" gro off > /dev/null
	done
	fixed_neighbours mo-host:moh0:10.63.1.1:mo-rtr:mor0:10.63.1.2 \
		mo-rtr:mor1:10.63.2.1:mo-rem:moe0:10.63.2.2
	ip netns exec mo-rem sh -c 'echo 1 > /sys/class/net/moe0/queues/rx-0/rps_cpus'
	ip netns exec mo-rtr sysctl -q -w net.ipv4.ip_forward=1
	if [ $# = 2 ]; then
		# shellcheck disable=SC2086 # netem's options, word by word
		ip netns exec mo-rtr tc qdisc add dev mor1 root netem $1
		# shellcheck disable=SC2086
		ip netns exec mo-rtr tc qdisc add dev mor0 root netem $2
	fi
	ip netns exec mo-rem sysctl -q -w net.ipv4.icmp_ratelimit=0
	sysctl -q -w net.ipv4.icmp_msgs_per_sec=1000000 net.ipv4.icmp_msgs_burst=1000000
	if ip netns exec mo-rem sysctl -q net.ipv4.icmp_msgs_per_sec > /dev/null 2>&1; then
		ip netns exec mo-rem sysctl -q -w net.ipv4.icmp_msgs_per_sec=1000000 \
			net.ipv4.icmp_msgs_burst=1000000
	fi
}

monarch_net_del() {
	local ns
	for ns in mo-host mo-rtr mo-rem; do
		ip netns del $ns
	done
}
