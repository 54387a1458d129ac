#!/bin/bash -e
# VM cases: Monarch (magnet-exp monarch: python/magnet_exp/monarch.py and
# userspace/magnet-monarch-proxy.c, docs/monarch.md), over a path to a
# "remote" namespace that runs no TCP listener at all, behind a router
# with netem.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.
MONARCH="/usr/bin/python3 $MAGNET_TOP/userspace/magnet-exp monarch"

# mo-host (where magnet-exp monarch runs) - mo-rtr - mo-rem (the remote,
# 10.63.2.2): 20 Mbit/s and 10 ms toward the remote, 10 ms back
monarch_net() {
	local ns d
	: > "$L/monarch-net"
	for ns in mo-host mo-rtr mo-rem; do
		ip netns add $ns
		ip -n $ns link set lo up
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
	nsexec mo-rtr sysctl -q -w net.ipv4.ip_forward=1
	nsexec mo-rtr tc qdisc add dev mor1 root netem delay 10ms rate 20mbit limit 200
	nsexec mo-rtr tc qdisc add dev mor0 root netem delay 10ms
	# the remote answers every UDP probe: its default is one ICMP error a
	# second (net.ipv4.icmp_ratelimit), and 1000 a second in all
	# (icmp_msgs_per_sec: the whole kernel's on 5.10, per namespace later)
	nsexec mo-rem sysctl -q -w net.ipv4.icmp_ratelimit=0
	sysctl -q -w net.ipv4.icmp_msgs_per_sec=1000000 net.ipv4.icmp_msgs_burst=1000000
	if nsexec mo-rem sysctl -q net.ipv4.icmp_msgs_per_sec > /dev/null 2>&1; then
		nsexec mo-rem sysctl -q -w net.ipv4.icmp_msgs_per_sec=1000000 \
			net.ipv4.icmp_msgs_burst=1000000
	fi
}

# the remote's count of the answers to probe type $1: its RSTs, or every
# ICMP message it sent (the remote sends no other): the per-type counters
# are not all true (6.12 counted timestamp replies as echo replies)
monarch_answers() {
	local c=IcmpOutMsgs
	[ "$1" = tcp ] && c=TcpOutRsts
	nsexec mo-rem nstat -asz "$c" | awk -v c="$c" '$1 == c { n = $2 } END { print n + 0 }'
}

# nothing of a run left in mo-host: no namespace, nftables table, device
monarch_clean() {
	local left
	left="$(ip netns list | grep -o 'magnet-monarch-[^ ]*' || true)"
	left="$left$(nsexec mo-host nft list tables | grep magnet_monarch || true)"
	left="$left$(nsexec mo-host ip -o link | grep -oE 'mm[sr][0-9]+' || true)"
	left="$left$(nsexec mo-host ip rule | grep -E 'iif mm[sr]' || true)"
	if [ -n "$left" ]; then
		log "monarch $1: left behind: $left"
		return 1
	fi
}

# For each probe type, a 2 MB flow of the kernel's cubic completes through
# magnet-exp monarch; the remote's own counters (its RSTs, ICMP replies)
# equal the answers the trace saw (checkmonarch.py flow); magnet's log
# shows the sender's cwnd and srtt evolving; nothing is left behind. Then
# a run interrupted (SIGINT, as Ctrl-C) and one whose proxy is killed: an
# error, and nothing left behind. And the errors: a remote that answers
# nothing, ECN.
# suite: every-kernel
case_monarch() {
	local probe a0 a1 pid c
	monarch_net
	[ -z "$(nsexec mo-rem ss -ltnH)" ]
	for probe in tcp udp echo tstamp; do
		a0=$(monarch_answers $probe)
		insmod "$KO" events=tcp omode=3 port=5201
		start_reader "$L/monarch-$probe.log"
		nsexec mo-host $MONARCH 10.63.2.2 -p $probe -n 2M -o "$L/monarch-$probe" \
			> "$L/monarch-$probe.out"
		teacup_stop
		rmmod magnet
		a1=$(monarch_answers $probe)
		cat "$L/monarch-$probe.out"
		$PY "$HERE/checkmonarch.py" flow "$L/monarch-$probe" "$L/monarch-$probe.log" \
			$((a1 - a0)) 2097152
		monarch_clean $probe
	done
	[ -z "$(nsexec mo-rem ss -ltnH)" ]
	# Ctrl-C in the middle of a flow
	# (no ERR trap in the background: its status is wait_exit's to take)
	(trap - ERR; nsexec mo-host $MONARCH 10.63.2.2 -t 30 -o "$L/monarch-int" \
		> "$L/monarch-int.out" 2>&1) &
	pid=$!
	wait_file "$L/monarch-int/trace.txt" 20
	sleep 2
	# to magnet-exp itself ($! is the subshell that runs nsexec)
	pkill -INT -f "magnet-exp monarch .*monarch-int"
	c=0
	wait_exit $pid 20 || c=$?
	log "interrupted: status $c, $(cat "$L/monarch-int.out")"
	[ $c = 2 ]
	grep -q interrupted "$L/monarch-int.out"
	monarch_clean interrupted
	# the proxy killed in the middle of a flow
	(trap - ERR; nsexec mo-host $MONARCH 10.63.2.2 -t 30 -o "$L/monarch-kill" \
		> "$L/monarch-kill.out" 2>&1) &
	pid=$!
	wait_file "$L/monarch-kill/trace.txt" 20
	sleep 2
	# (-f: the process name is cut to 15 characters)
	pkill -9 -f "magnet-monarch-proxy -q"
	c=0
	wait_exit $pid 30 || c=$?
	log "proxy killed: status $c, $(cat "$L/monarch-kill.out")"
	[ $c = 2 ]
	grep -q "proxy ended during the flow" "$L/monarch-kill.out"
	monarch_clean killed
	# a remote that answers nothing (no host at 10.63.2.9): said within
	# a few seconds, before anything is set up
	c=0
	nsexec mo-host timeout 20 $MONARCH 10.63.2.9 -o "$L/monarch-none" > "$L/monarch-none.out" 2>&1 || c=$?
	log "no answer: status $c, $(cat "$L/monarch-none.out")"
	[ $c = 2 ]
	grep -q "answered none of 3 tcp probes" "$L/monarch-none.out"
	c=0
	nsexec mo-host $MONARCH 10.63.2.2 --ecn -o "$L/monarch-ecn" > "$L/monarch-ecn.out" 2>&1 || c=$?
	[ $c = 2 ]
	grep -q "ECN cannot be emulated" "$L/monarch-ecn.out"
	monarch_clean errors
	for c in mo-host mo-rtr mo-rem; do ip netns del $c; done
	rm -f "$L/monarch-net"
}
