#!/bin/bash -e
# VM cases: queueing (events=qdisc, the qdisc:qdisc_dequeue and
# qdisc:qdisc_enqueue tracepoints; module/qdisc.c).
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# fixed_neighbours
. "$MAGNET_TOP/scripts/monarch-net.sh"

# A transfer from mq-snd through the router mq-rtr to mq-rcv, one MSS a
# packet, through a tbf bottleneck on the router's device toward the
# receiver (10 Mbit/s, a 15 KiB bucket, 30 KB of queue: it drops). Nothing
# but the test's TCP crosses tbf (no IPv6, neighbours fixed: no ARP), so
# tbf's own counters are the truth (tests/vm/checkqdisc.py): the router's
# QDISC events on that device are tbf's sent packets and bytes, its drop
# events tbf's drops, each QDISC event names tbf 1:0, and each packet's
# wait there (its QDISC event's time minus its dev_out's) agrees with
# tbf's rate: the bytes that left while it waited are the rate times its
# wait, give or take the bucket and two packets; and while tbf holds
# packets (the qlen of the events) it lets them go at its rate, within 1%
# (both away from the emulator's stalls: checkqdisc.py says how). From
# 6.1 the enqueues too (QDISC_ENQ): one per packet tbf sent, the packets
# ahead of each at its enqueue exactly the dequeues before its own, and
# its sojourn what tbf's backlog then takes at its rate, less the bucket.
# suite: every-kernel
case_qdisc() {
	local ns idx sent bytes dropped enq
	routed_path mq 66
	for ns in mq-snd mq-rtr mq-rcv; do
		ip netns exec $ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	fixed_neighbours mq-snd:mqs0:10.66.1.1:mq-rtr:mqr0:10.66.1.2 \
		mq-rtr:mqr1:10.66.2.1:mq-rcv:mqc0:10.66.2.2
	# one MSS a packet, and none merged on the router's way in
	ip -n mq-snd link set mqs0 gso_max_segs 1
	ip netns exec mq-rtr ethtool -K mqr0 gro off > /dev/null
	tc -n mq-rtr qdisc add dev mqr1 root handle 1: tbf rate 10mbit \
		burst 15k limit 30k
	idx=$(ip netns exec mq-rtr cat /sys/class/net/mqr1/ifindex)
	insmod "$KO" events=dev,drop,qdisc omode=1 port=5201
	grep -q "probe	qdisc dequeue	tracepoint	qdisc_dequeue" /proc/net/magnet_stats
	# qdisc:qdisc_enqueue too, from 6.1 (module/compat.h)
	enq=0
	case $(uname -r) in 5.*) ;; *) enq=1 ;; esac
	if grep -q "probe	qdisc enqueue	tracepoint	qdisc_enqueue" /proc/net/magnet_stats; then
		[ $enq = 1 ]
	else
		[ $enq = 0 ]
	fi
	start_reader "$L/qdisc.bin"
	xfer mq-rcv mq-snd 10.66.2.2 5201 "$L/qdisc.json" -t 4
	sleep 1
	teacup_stop
	rmmod magnet
	read -r sent bytes dropped < <(tc -n mq-rtr -s qdisc show dev mqr1 |
		awk '$1 == "Sent" { sub(",", "", $7); print $4, $2, $7; exit }')
	log "tbf: sent $sent packets, $bytes bytes, dropped $dropped"
	[ "$dropped" -gt 0 ]
	$TTPB2ASCII -f magnet -o "$L/qdisc.txt" "$L/qdisc.bin"
	# 10 Mbit/s is 1250000 bytes/s; 15k is 15360 bytes
	$PY "$HERE/checkqdisc.py" "$L/qdisc.txt" \
		"$(stat -L -c %i /run/netns/mq-rtr)" "$idx" "$sent" "$bytes" \
		"$dropped" 1250000 15360 $enq | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	for ns in mq-snd mq-rtr mq-rcv; do ip netns del $ns; done
}
