#!/bin/bash -e
# VM cases: queueing (events=qdisc, the qdisc:qdisc_dequeue and
# qdisc:qdisc_enqueue tracepoints; module/qdisc.c).
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# fixed_neighbours
. "$MAGNET_TOP/scripts/monarch-net.sh"

# quiet_path P NET: lib.sh's routed_path P NET, with nothing on it but
# what a case sends: no IPv6, the neighbours fixed (no ARP)
quiet_path() {
	local ns p=$1 n=$2
	routed_path "$p" "$n"
	for ns in "$p-snd" "$p-rtr" "$p-rcv"; do
		ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	fixed_neighbours "$p-snd:${p}s0:10.$n.1.1:$p-rtr:${p}r0:10.$n.1.2" \
		"$p-rtr:${p}r1:10.$n.2.1:$p-rcv:${p}c0:10.$n.2.2"
}

# tc_counts NS DEV: the root qdisc's sent packets, bytes and drops
tc_counts() {
	tc -n "$1" -s qdisc show dev "$2" |
		awk '$1 == "Sent" && !n++ { sub(",", "", $7); print $4, $2, $7 }'
}

# A transfer from mq-snd through the router mq-rtr to mq-rcv, one MSS a
# packet, through a tbf bottleneck on the router's device toward the
# receiver (3 Mbit/s, a 15 KiB bucket, 15 KiB of queue: it drops, also
# where the debug kernel sends 5.5 Mbit/s at most). Nothing
# but the test's TCP crosses tbf (no IPv6, neighbours fixed: no ARP), so
# tbf's own counters are the truth (tests/vm/checkqdisc.py): the router's
# QDISC events on that device are tbf's sent packets and bytes, its drop
# events tbf's drops, each QDISC event names tbf 1:0, and each packet's
# wait there (its QDISC event's time minus its dev_out's) agrees with
# tbf's rate: the bytes that left while it waited are the rate times its
# wait, give or take the bucket and two packets; and while tbf holds
# packets (the qlen of the events) it lets them go at its rate, within 1%
# (both away from the emulator's stalls: checkqdisc.py says how). From
# 6.1 the enqueues too (QDISC_ENQ; dev_qdisc_enqueue()'s entry and
# qdisc:qdisc_enqueue): one per packet tbf sent, the packets
# ahead of each at its enqueue exactly the dequeues before its own, and
# its sojourn what tbf's backlog then takes at its rate, less the bucket.
# And the device's wire_out events (events=wire, net:net_dev_start_xmit;
# tests/vm/checkwire.py): tbf's sent packets and bytes, each right after
# its dequeue and before the next, and the packets tcpdump on the device
# saw leave, in order, each between tcpdump's stamps of it and of the next.
# suite: every-kernel
case_qdisc() {
	local ns idx sent bytes dropped enq
	quiet_path mq 66
	# one MSS a packet, and none merged on the router's way in
	ip -n mq-snd link set mqs0 gso_max_segs 1
	ip netns exec mq-rtr ethtool -K mqr0 gro off > /dev/null
	tc -n mq-rtr qdisc add dev mqr1 root handle 1: tbf rate 3mbit \
		burst 15k limit 15k
	idx=$(ip netns exec mq-rtr cat /sys/class/net/mqr1/ifindex)
	insmod "$KO" events=dev,drop,qdisc,wire omode=1 port=5201
	grep -q "probe	qdisc dequeue	tracepoint	qdisc_dequeue" /proc/net/magnet_stats
	grep -q "probe	device to the wire	tracepoint	net_dev_start_xmit" /proc/net/magnet_stats
	# qdisc:qdisc_enqueue too, from 6.1 (module/compat.h)
	enq=0
	case $(uname -r) in 5.*) ;; *) enq=1 ;; esac
	# (the packet read at dev_qdisc_enqueue()'s entry, module/qdisc.c)
	if grep -q "probe	qdisc enqueue	tracepoint	qdisc_enqueue" /proc/net/magnet_stats; then
		[ $enq = 1 ]
		grep -q "probe	qdisc enqueue entry	ftrace	dev_qdisc_enqueue" /proc/net/magnet_stats
	else
		[ $enq = 0 ]
		[ "$(grep -c "qdisc enqueue entry" /proc/net/magnet_stats)" = 0 ]
	fi
	start_reader "$L/qdisc.bin"
	# what leaves the device, as a capture on it sees it
	# (-B: a 4 MiB buffer, so a loaded host's slow tcpdump loses none)
	ip netns exec mq-rtr tcpdump -i mqr1 -Q out -n -s 96 -U -B 4096 \
		--time-stamp-precision=nano -w "$L/wire.pcap" tcp \
		2> "$L/tcpdump-wire.err" &
	td=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$L/tcpdump-wire.err" && break
		sleep 0.1
	done
	grep -q "listening on" "$L/tcpdump-wire.err"
	xfer mq-rcv mq-snd 10.66.2.2 5201 "$L/qdisc.json" -t 4
	sleep 1
	teacup_stop
	rmmod magnet
	kill -INT "$td"
	wait "$td" || true
	grep -q "^0 packets dropped by kernel" "$L/tcpdump-wire.err"
	read -r sent bytes dropped < <(tc_counts mq-rtr mqr1)
	log "tbf: sent $sent packets, $bytes bytes, dropped $dropped"
	[ "$dropped" -gt 0 ]
	$TTPB2ASCII -f magnet -o "$L/qdisc.txt" "$L/qdisc.bin"
	# 3 Mbit/s is 375000 bytes/s; 15k is 15360 bytes
	$PY "$HERE/checkqdisc.py" "$L/qdisc.txt" \
		"$(stat -L -c %i /run/netns/mq-rtr)" "$idx" "$sent" "$bytes" \
		"$dropped" 375000 15360 $enq | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	# the wire's egress (events=wire): tbf's sent packets, each right
	# after its dequeue and where tcpdump saw it leave
	$PY "$HERE/checkwire.py" "$L/qdisc.txt" \
		"$(stat -L -c %i /run/netns/mq-rtr)" "$idx" "$sent" "$bytes" \
		"$L/wire.pcap" | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	for ns in mq-snd mq-rtr mq-rcv; do ip netns del $ns; done
	# on the host: the Wireshark plugin's fields of the qdisc events,
	# and from 6.1 their sojourns (tests/vm/hostcheck.sh, host_qdisc)
	echo "$enq" > "$L/qdisc.enq"
	echo qdisc >> "$L/host-checks"
}


# GSO and GRO on, and qdiscs that split what they are given: the enqueue
# must never read a packet the qdisc freed (module/qdisc.c; KFENCE is on in
# every boot, KASAN in make check-debug's), and the events must be honest
# per segment (tests/vm/checksplit.py). mz-snd sends through the router
# mz-rtr to mz-rcv; on the router's way out, a tbf root whose bucket is one
# frame (burst 1600: every GSO packet is split into its segments, and the
# original freed inside tbf's enqueue), then a netem root that corrupts a
# third of the packets (it splits a GSO packet it corrupts, and the byte it
# flips is a segment's header as often as not: what netem let go is
# counted as netem counts it only where no header can have changed, see
# checksplit.py's CORRUPT). Through tbf:
# 20 UDP GSO sends of 40 x 1400 bytes (UDP_SEGMENT, which needs no
# privilege), then a TCP transfer the sender sends one MSS a packet (no
# TSO), in bursts (a netem delay), and the router's GRO merges (veth's GRO, 5.13 on: a packet made at the router, no
# clone of the sender's); through netem, 20 more UDP GSO sends. The truth:
# tbf's and netem's counters (segments and bytes sent, drops), and the 20
# sends of 40 segments each per port.
# suite: every-kernel
case_qdisc_gso() {
	local ns idx enq n s1 s2 tb nt
	: > "$L/split-net"
	quiet_path mz 67
	ip netns exec mz-rtr ethtool -K mzr0 gro on > /dev/null 2>&1 ||
		log "veth has no GRO of its own on $(uname -r)"
	tc -n mz-rtr qdisc add dev mzr1 root handle 1: tbf rate 50mbit \
		burst 1600 limit 4mb
	idx=$(ip netns exec mz-rtr cat /sys/class/net/mzr1/ifindex)
	enq=0
	case $(uname -r) in 5.*) ;; *) enq=1 ;; esac
	insmod "$KO" events=dev,drop,qdisc omode=1 nontcp=1
	start_reader "$L/split.bin"
	s1=$(nsexec mz-snd $PY "$HERE/udpsend.py" 10.67.2.2 7001 20 56000 1400)
	[ "$s1" = 20 ]
	# one MSS a packet (a veth takes the peer's GRO only from a device
	# without TSO), in bursts (netem's timer lets what is due go in one
	# softirq, and the router's NAPI poll then takes them together)
	ip netns exec mz-snd ethtool -K mzs0 tso off gso off > /dev/null
	tc -n mz-snd qdisc add dev mzs0 root netem delay 2ms limit 10000
	xfer mz-rcv mz-snd 10.67.2.2 5201 "$L/split.json" -n 1M
	tc -n mz-snd qdisc del dev mzs0 root
	ip netns exec mz-snd ethtool -K mzs0 tso on gso on > /dev/null
	sleep 1
	tb=$(tc_counts mz-rtr mzr1)
	log "tbf: sent, bytes, dropped: $tb"
	tc -n mz-rtr qdisc replace dev mzr1 root handle 2: netem corrupt 30%
	s2=$(nsexec mz-snd $PY "$HERE/udpsend.py" 10.67.2.2 7002 20 56000 1400)
	[ "$s2" = 20 ]
	sleep 1
	nt=$(tc_counts mz-rtr mzr1)
	log "netem: sent, bytes, dropped: $nt"
	teacup_stop
	rmmod magnet
	$TTPB2ASCII -f magnet -o "$L/split.txt" "$L/split.bin"
	n=$(stat -L -c %i /run/netns/mz-rtr)
	# shellcheck disable=SC2086 # the counts are three words
	$PY "$HERE/checksplit.py" "$L/split.txt" "$n" "$idx" tbf $tb $enq \
		udp:7001:20:40 SPLIT:5201 | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	# shellcheck disable=SC2086
	$PY "$HERE/checksplit.py" "$L/split.txt" "$n" "$idx" netem $nt $enq \
		udp:7002:20:40 CORRUPT | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	for ns in mz-snd mz-rtr mz-rcv; do ip netns del $ns; done
	rm -f "$L/split-net"
}

# kept_lossy LOG: case_qdisc_kept's first part: mka0's root a netem that
# loses 30%, magnet loaded and recording into LOG, 200 datagrams to port
# 7003 through it; ne: tc's sent packets, bytes and drops
kept_lossy() {
	local s
	tc -n mk-a qdisc replace dev mka0 root handle 1: netem loss 30%
	insmod "$KO" events=dev,drop,qdisc omode=1 nontcp=1
	start_reader "$1"
	s=$(nsexec mk-a $PY "$HERE/udpsend.py" 10.68.1.2 7003 200 100)
	[ "$s" = 200 ]
	ne=$(tc_counts mk-a mka0)
}

# Packets a qdisc says it took but did not keep: netem's random loss and
# a classifier's drop both return success to dev_qdisc_enqueue() (with
# __NET_XMIT_BYPASS, which it masks) and leave the packet on the list to
# free; neither may have a QDISC_ENQ event. And frames whose VLAN tag is in
# their data (a VLAN device with reorder_hdr off) queued and dropped by
# tbf: QDISC and drop events like untagged ones'. Over a veth mka0 (mk-a)
# to mkb0 (mk-b), VLAN 5 on each: 200 datagrams through netem loss 30%;
# then a prio root whose u32 filter drops every one to port 7004 (50 of
# them) and keeps 50 to port 7005; then 100 tagged datagrams through a tbf
# of 1 Mbit/s that holds 3000 bytes; then 100 through a netem with no loss
# and a limit of 10. The truth: each qdisc's counters and the VLAN
# device's transmitted packets. And the kinds of loss magnet-exp analyse
# tells from the log (on the host: hostcheck.sh qdisc_kinds): netem 1:'s
# drops random, netem 4:'s overflows, each as many as tc counted.
# suite: every-kernel
case_qdisc_kept() {
	local ns idx enq n s c ne pr tb vtx nf
	: > "$L/split-net"
	for ns in mk-a mk-b; do
		ip netns add $ns
		ip -n $ns link set lo up
		ip netns exec $ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	ip link add mka0 netns mk-a type veth peer name mkb0 netns mk-b
	ip -n mk-a link add link mka0 name mka5 type vlan id 5 reorder_hdr off
	ip -n mk-b link add link mkb0 name mkb5 type vlan id 5
	ip -n mk-a addr add 10.68.1.1/24 dev mka0
	ip -n mk-b addr add 10.68.1.2/24 dev mkb0
	ip -n mk-a addr add 10.68.5.1/24 dev mka5
	ip -n mk-b addr add 10.68.5.2/24 dev mkb5
	for c in mk-a:mka0 mk-b:mkb0 mk-a:mka5 mk-b:mkb5; do
		ip -n "${c%:*}" link set "${c#*:}" up
	done
	fixed_neighbours mk-a:mka0:10.68.1.1:mk-b:mkb0:10.68.1.2 \
		mk-a:mka5:10.68.5.1:mk-b:mkb5:10.68.5.2
	idx=$(ip netns exec mk-a cat /sys/class/net/mka0/ifindex)
	n=$(stat -L -c %i /run/netns/mk-a)
	enq=0
	case $(uname -r) in 5.*) ;; *) enq=1 ;; esac
	kept_lossy "$L/kept.bin"
	log "netem: sent, bytes, dropped: $ne"
	tc -n mk-a qdisc replace dev mka0 root handle 2: prio
	tc -n mk-a filter add dev mka0 parent 2: protocol ip prio 1 u32 \
		match ip dport 7004 0xffff action drop
	s=$(nsexec mk-a $PY "$HERE/udpsend.py" 10.68.1.2 7004 50 100)
	[ "$s" = 50 ]
	s=$(nsexec mk-a $PY "$HERE/udpsend.py" 10.68.1.2 7005 50 100)
	[ "$s" = 50 ]
	pr=$(tc_counts mk-a mka0)
	log "prio: sent, bytes, dropped: $pr"
	tc -n mk-a qdisc replace dev mka0 root handle 3: tbf rate 1mbit \
		burst 1600 limit 3000
	s=$(nsexec mk-a $PY "$HERE/udpsend.py" 10.68.5.2 7006 100 1000)
	[ "$s" = 100 ]
	sleep 1
	tb=$(tc_counts mk-a mka0)
	# what the VLAN device gave mka0: tbf took it, or dropped it
	vtx=$(($(ip netns exec mk-a cat /sys/class/net/mka5/statistics/tx_packets) +
		$(ip netns exec mk-a cat /sys/class/net/mka5/statistics/tx_dropped)))
	log "tbf: sent, bytes, dropped: $tb; the VLAN device passed on $vtx"
	teacup_stop
	rmmod magnet
	$TTPB2ASCII -f magnet -o "$L/kept.txt" "$L/kept.bin"
	# netem: what it kept is what it sent (nothing is left in it)
	# shellcheck disable=SC2086 # the counts are three words
	$PY "$HERE/checksplit.py" "$L/kept.txt" "$n" "$idx" netem $ne $enq \
		"KEPT:7003:${ne%% *}" | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	# prio: the filter dropped the 50 to 7004, all of them (tc's drops)
	[ "$(echo $pr | cut -d' ' -f3)" = 50 ]
	# shellcheck disable=SC2086
	$PY "$HERE/checksplit.py" "$L/kept.txt" "$n" "$idx" prio $pr $enq \
		NONE:7004 KEPT:7005:50 | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	# tbf, tagged: it dropped some, and sent or dropped all 100 the VLAN
	# device passed on
	# shellcheck disable=SC2086 # the counts are three words
	set -- $tb
	[ "$3" -gt 0 ]
	[ "$vtx" = 100 ]
	[ $(($1 + $3)) = 100 ]
	# shellcheck disable=SC2086
	$PY "$HERE/checksplit.py" "$L/kept.txt" "$n" "$idx" tbf+4 $tb $enq \
		"KEPT:7006:$1" | while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	# The kinds of loss, in a log of their own: netem loss 30% as above,
	# then a netem with no loss and room for 10 packets, sent 100 at once
	# (what it drops, it drops full). A drop is told by the qdisc whose
	# enqueue came last on its device, so in a log of one qdisc after
	# another a new one's drops are its own only once it has enqueued
	# (the prio's above, before its first, would be netem's). Told by
	# magnet-exp analyse on the host (hostcheck.sh qdisc_kinds) with the
	# qdiscs as magnet-exp run keeps them (<...>_qdisc.txt) and
	# topology.json placing the device as its would
	rm -rf "$L/kinds"
	mkdir "$L/kinds"
	kept_lossy "$L/kinds/kinds_magnet.bin"
	tc -n mk-a -s qdisc show > "$L/kinds/kinds_qdisc.txt"
	tc -n mk-a qdisc replace dev mka0 root handle 4: netem limit 10 \
		rate 1mbit
	s=$(nsexec mk-a $PY "$HERE/udpsend.py" 10.68.1.2 7008 100 1000)
	[ "$s" = 100 ]
	sleep 1.5
	nf=$(tc_counts mk-a mka0)
	tc -n mk-a -s qdisc show >> "$L/kinds/kinds_qdisc.txt"
	teacup_stop
	rmmod magnet
	log "kinds: netem loss 30%: sent, bytes, dropped: $ne; netem limit 10: $nf"
	# both dropped some, netem 4 of the 100 it got
	# shellcheck disable=SC2086 # the counts are three words
	set -- $ne $nf
	[ "$3" -gt 0 ]
	[ "$6" -gt 0 ]
	[ $(($4 + $6)) = 100 ]
	echo "$ne $nf $(uname -r)" > "$L/kinds/truth"
	printf '{"devices": {"mka0": {"netns": "mk-a", "ifindex": %s}},\n "netns_hosts": {"%s": "sender (mk-a)"}}\n' \
		"$idx" "$n" > "$L/kinds/topology.json"
	echo qdisc_kinds >> "$L/host-checks"
	for ns in mk-a mk-b; do ip netns del $ns; done
	rm -f "$L/split-net"
}
