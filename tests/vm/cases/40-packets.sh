#!/bin/bash -e
# VM cases: the text mode (omode=3), the IP and device events of non-TCP
# packets, frames a veth never makes, the pcapng export.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# omode=3: a header naming 77 columns, every event type, 77 fields per
# line, the namespace on every event: also on the RST that refuses a
# connection (no server yet), which the kernel's control socket sends with
# neither skb->dev nor skb->sk at ip6_output (5.10)
case_text_mode() {
	insmod "$KO" events=all omode=3 port=5201
	start_reader "$L/text.log"
	if nsexec mg-cli bash -c 'exec 3<>/dev/tcp/fd00:200::2/5201' 2>/dev/null; then
		log "a connection to port 5201 with no server was not refused"
		return 1
	fi
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/text.json" -n 1M
	teacup_stop
	rmmod magnet
	$CHECK text "$L/text.log"
}

# IP and device events of non-TCP packets only with nontcp=1
# suite: every-kernel
case_nontcp() {
	insmod "$KO" events=ip,dev omode=3
	start_reader "$L/nontcp0.log"
	ip netns exec mg-cli ping -c 3 -i 0.2 10.200.1.2 > /dev/null
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/nontcp0.json" -n 1M
	teacup_stop
	rmmod magnet
	insmod "$KO" events=ip,dev omode=3 nontcp=1
	start_reader "$L/nontcp1.log"
	ip netns exec mg-cli ping -c 3 -i 0.2 10.200.1.2 > /dev/null
	teacup_stop
	rmmod magnet
	$CHECK protos "$L/nontcp0.log" 6
	# ICMP from ping; IPv6 neighbour discovery (58) may show up too
	$CHECK protos "$L/nontcp1.log" 1 includes
}

# Frames a veth never makes, sent from a packet socket in the server's
# namespace to the client's end (tests/vm/rawframes.py): a padded IPv4 ACK
# must keep the IP header's length (finding 5), an IPv6 segment behind a
# destination-options header must be parsed (finding 6), and a packet
# whose extension header runs past its end is counted as unparsed, once
# at each probe that sees it (the sender's device, where the packet socket
# hands it to __dev_queue_xmit, the receiver's device and its IP layer),
# never as filtered. Nothing is filtered at all: the IP and device layers
# only, every direction, every port, and non-TCP packets recorded
# (nontcp=1; the other traffic of the guest, the resets and the ICMPv6
# parameter problem that answer the frames, would else be filtered), so
# the filtered counter stays 0 whatever else the guest sends.
# suite: every-kernel
case_pkt_headers() {
	local mac u0 u1 f0 f1 outs
	mac=$(ip netns exec mg-cli cat /sys/class/net/mgc/address)
	insmod "$KO" events=ip,dev omode=3 nontcp=1
	start_reader "$L/pkt.log"
	u0=$(awk '$1 == "unparsed" { print $2 }' /proc/net/magnet_stats)
	f0=$(awk '$1 == "total" { print $5 }' /proc/net/magnet_stats)
	ip netns exec mg-srv $PY "$HERE/rawframes.py" send mgs "$mac"
	sleep 0.5
	u1=$(awk '$1 == "unparsed" { print $2 }' /proc/net/magnet_stats)
	f1=$(awk '$1 == "total" { print $5 }' /proc/net/magnet_stats)
	teacup_stop
	rmmod magnet
	# the two good frames leaving the sender's device (lport 5301, to 40123)
	outs=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["event"] == "dev_out" && $c["lport"] == 5301 && $c["rport"] == 40123' \
		"$L/pkt.log" | wc -l)
	log "unparsed $u0 -> $u1, filtered $f0 -> $f1, $outs good frames at the sender's device"
	[ -n "$u0" ]
	[ "$outs" = 2 ]
	[ "$((u1 - u0))" = 3 ]
	[ "$f0" = 0 ]
	[ "$f1" = 0 ]
	$PY "$HERE/rawframes.py" check "$L/pkt.log"
}

# One connection seen from three network namespaces in one kernel, as a
# testbed of containers or a router namespace gives it: a sender (mn-snd),
# a router forwarding it (mn-rtr), a receiver (mn-rcv). Ifindexes repeat
# across namespaces: 7441 is the sender's device and the router's toward
# the receiver, 7442 the router's toward the sender and the receiver's.
# The truth is the kernel's (tests/vm/checkns.py): each namespace's inode,
# and nftables counters of the connection's packets (to port 5201: data;
# from it: acks) at each device's prerouting and postrouting hooks, which
# see each skb once, as magnet's device probes do. Every event names one
# of the three namespaces; each (namespace, device, direction, kind) count
# of device events equals its counter exactly; the TCP and app events are
# the two ends', none the router's. ttpb2ascii refuses -I 7441 alone (two
# namespaces have it), and -n with -I gives a classic pcap file of the
# router's device toward the receiver with as many packets as its
# counters saw.
# suite: every-kernel
case_netns() {
	local ns dev ev hook kind c n
	: > "$L/netns-net"
	routed_path mn 61 "index 7441" "index 7442" "index 7441" "index 7442"
	# a counter per namespace, device, hook and kind
	for dev in mn-snd:mns0 mn-rtr:mnr0 mn-rtr:mnr1 mn-rcv:mnc0; do
		ns=${dev%:*} dev=${dev#*:}
		ip netns exec "$ns" nft list table inet mn > /dev/null 2>&1 ||
			ip netns exec "$ns" nft -f - <<-EOF
			table inet mn {
				chain pre { type filter hook prerouting priority 0; }
				chain post { type filter hook postrouting priority 0; }
			}
			EOF
		for c in in_data in_ack out_data out_ack; do
			ip netns exec "$ns" nft add counter inet mn "${dev}_$c"
		done
		ip netns exec "$ns" nft -f - <<-EOF
		add rule inet mn pre iifname "$dev" tcp dport 5201 counter name "${dev}_in_data"
		add rule inet mn pre iifname "$dev" tcp sport 5201 counter name "${dev}_in_ack"
		add rule inet mn post oifname "$dev" tcp dport 5201 counter name "${dev}_out_data"
		add rule inet mn post oifname "$dev" tcp sport 5201 counter name "${dev}_out_ack"
		EOF
	done
	insmod "$KO" events=all omode=1 port=5201
	start_reader "$L/netns.bin"
	xfer mn-rcv mn-snd 10.61.2.2 5201 "$L/netns.json" -n 1M
	sleep 1
	teacup_stop
	rmmod magnet
	# the facts: the inodes, and each counter, which must not have moved
	# since the capture ended
	: > "$L/netns.facts"
	for ns in snd rtr rcv; do
		echo "ns $ns $(stat -L -c %i /run/netns/mn-$ns)" >> "$L/netns.facts"
	done
	for dev in snd:mns0:7441 rtr:mnr0:7442 rtr:mnr1:7441 rcv:mnc0:7442; do
		IFS=: read -r ns c n <<< "$dev"
		for hook in in_data in_ack out_data out_ack; do
			ev=dev_${hook%_*} kind=${hook#*_}
			echo "count $ns $ev $n $kind $(ip netns exec mn-$ns nft list counter inet mn "${c}_$hook" |
				awk '$1 == "packets" { print $2 }')" >> "$L/netns.facts"
		done
	done
	$TTPB2ASCII -f magnet -o "$L/netns.txt" "$L/netns.bin"
	$PY "$HERE/checkns.py" text "$L/netns.txt" "$L/netns.facts"
	# -I 7441 is the sender's device and the router's
	c=0
	$TTPB2ASCII -f magnet -I 7441 -o /dev/null "$L/netns.bin" 2> "$L/netns.err" || c=$?
	[ "$c" = 1 ]
	grep -q "ifindex 7441 is in two network namespaces" "$L/netns.err"
	ns=$(stat -L -c %i /run/netns/mn-rtr)
	$TTPB2ASCII -f pcap -n "$ns" -I 7441 -o "$L/netns-rtr.pcap" "$L/netns.bin"
	n=$(awk '$2 == "rtr" && $4 == 7441 { s += $6 } END { print s }' "$L/netns.facts")
	$PY "$HERE/checkns.py" pcap "$L/netns-rtr.pcap" "$n"
	for ns in mn-snd mn-rtr mn-rcv; do ip netns del $ns; done
	rm -f "$L/netns-net"
}

# -f pcapng of a capture, checked with tshark on the host (checkpcap.py
# from hostcheck.sh, after the guest, on the copy of $L): a clean
# IPv6 transfer (cubic), then IPv4 through netem loss on the sender's
# veth, with BBR (its bandwidth, min RTT and gains in the rate part: the
# Wireshark plugin's BBR fields, hostcheck.sh). With
# gso_max_segs 1, TCP sends one MSS per skb, so a dev_out record is one
# wire packet and total_retrans counts the packets tshark sees resent
# (software GSO would otherwise hand the qdisc 64 KB packets).
# suite: every-kernel
case_pcapng() {
	local mode addr cc
	: > "$L/pcap-net"
	ip -n mg-cli link set mgc gso_max_segs 1
	ip -n mg-srv link set mgs gso_max_segs 1
	for mode in clean lossy; do
		addr=fd00:200::2
		cc=cubic
		if [ $mode = lossy ]; then
			addr=10.200.1.2
			cc=bbr
			ip netns exec mg-cli tc qdisc add dev mgc root netem loss 3%
		fi
		insmod "$KO" events=all omode=1 port=5201
		start_reader "$L/pcap-$mode.bin"
		xfer mg-srv mg-cli $addr 5201 "$L/pcap-$mode.json" -n 1M -C $cc
		teacup_stop
		rmmod magnet
		ip netns exec mg-cli tc qdisc del dev mgc root 2> /dev/null || true
		$TTPB2ASCII -f magnet -o "$L/pcap-$mode.txt" "$L/pcap-$mode.bin"
		$TTPB2ASCII -f pcapng --all-interfaces -d out -o "$L/pcap-$mode.pcapng" \
			"$L/pcap-$mode.bin"
	done
	# tshark reads the two files on the host (hostcheck.sh pcapng): a
	# minute under emulation, a second there
	echo pcapng >> "$L/host-checks"
}

# VLAN-tagged traffic over VLAN devices on a veth pair, in namespaces of
# their own with no other traffic (IPv6 off, static neighbours): the
# device events at each device equal its own packet counters (sysfs
# statistics), all the connection's packets, port 5201 both ways. Three
# stacks: "hw", 802.1Q 100 on the veth, whose tag goes in skb->vlan_tci
# all the way (the veth offloads it); "qinq", 802.1Q 100 on 802.1ad 200 on
# the veth: a VLAN device offloads no tag, so the inner tag is in the frame
# from the 802.1ad device's xmit on (skb->protocol 802.1Q at the veth's
# __dev_queue_xmit and at the receiver's __netif_receive_skb); "qinq-raw",
# the same with reorder_hdr off, the inner tag in the frame from the top
# device's header on. A veth's own tag offload cannot be turned off, so no
# frame reaches it with both tags in its data. TCP sends one MSS per skb
# (gso_max_segs 1): no device segments past its probe. The receiver's VLAN
# devices get no device event of their own (the frame is untagged inside
# __netif_receive_skb, past its probe).
# suite: every-kernel
case_vlan() {
	local how ns dev idx reo f ev n m pkts hows="hw qinq"
	: > "$L/vlan-net"
	# qinq-raw carries nothing on 7.2 (iperf3 cannot connect: the client
	# sent 11 frames, the receiver's veth counted 11, magnet saw none at
	# its __netif_receive_skb and the kernel answered none): 5.x only,
	# until that is understood; a SKIP line says so, which make check's
	# summary counts and lists (tests/run-all.sh)
	case $(uname -r) in
	5.*) hows="$hows qinq-raw" ;;
	*) log "SKIP case_vlan's qinq-raw part: carries nothing on $(uname -r) (5.x only, tests/vm/cases/40-packets.sh)" ;;
	esac
	for how in $hows; do
		reo=on
		[ $how = qinq-raw ] && reo=off
		for ns in mv-a mv-b; do
			ip netns add $ns
			nsexec $ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1
			ip -n $ns link set lo up
		done
		ip link add mva0 netns mv-a index 7501 type veth \
			peer name mvb0 netns mv-b index 7511
		for ns in a:7501 b:7511; do
			idx=${ns#*:} ns=${ns%:*}
			dev=mv${ns}0
			ip -n mv-$ns link set $dev up
			if [ $how != hw ]; then
				ip -n mv-$ns link add link $dev name $dev.200 index $((idx + 2)) \
					type vlan proto 802.1ad id 200 reorder_hdr $reo
				ip -n mv-$ns link set $dev.200 up
				dev=$dev.200
			fi
			ip -n mv-$ns link add link $dev name $dev.100 index $((idx + 1)) \
				type vlan id 100 reorder_hdr $reo
			# one MSS per skb: a device's counter counts what its
			# probe sees, nothing segmented past it
			ip -n mv-$ns link set $dev.100 gso_max_segs 1 up
		done
		ip -n mv-a addr add 10.62.0.1/24 dev "$(vlan_top a $how)"
		ip -n mv-b addr add 10.62.0.2/24 dev "$(vlan_top b $how)"
		ip -n mv-a neigh add 10.62.0.2 lladdr "$(nsexec mv-b cat /sys/class/net/mvb0/address)" \
			nud permanent dev "$(vlan_top a $how)"
		ip -n mv-b neigh add 10.62.0.1 lladdr "$(nsexec mv-a cat /sys/class/net/mva0/address)" \
			nud permanent dev "$(vlan_top b $how)"
		insmod "$KO" events=dev omode=3 port=5201
		start_reader "$L/vlan-$how.log"
		xfer mv-b mv-a 10.62.0.2 5201 "$L/vlan-$how.json" -n 1M
		sleep 0.5
		teacup_stop
		rmmod magnet
		# the facts: every device's packets each way, then what magnet saw
		: > "$L/vlan-$how.facts"
		for ns in a b; do
			for dev in $(nsexec mv-$ns ls /sys/class/net); do
				[ "$dev" = lo ] && continue
				idx=$(nsexec mv-$ns cat /sys/class/net/"$dev"/ifindex)
				for f in tx:dev_out rx:dev_in; do
					pkts=$(nsexec mv-$ns cat /sys/class/net/"$dev"/statistics/${f%:*}_packets)
					# the receiver's stacked devices: untagged past the probe
					[ "${f#*:}" = dev_in ] && [ "$idx" != 7501 ] && [ "$idx" != 7511 ] && pkts=0
					echo "${f#*:} $idx $pkts" >> "$L/vlan-$how.facts"
				done
			done
		done
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ n[$c["event"] " " $c["ifindex"]]++ }
			END { for (k in n) print k, n[k] }' "$L/vlan-$how.log" | sort > "$L/vlan-$how.seen"
		m=0
		while read -r ev idx n; do
			pkts=$(awk -v e="$ev" -v i="$idx" '$1 == e && $2 == i { print $3 }' "$L/vlan-$how.seen")
			if [ "${pkts:-0}" != "$n" ]; then
				log "vlan $how: $ev ifindex $idx: ${pkts:-0} events, the device counted $n"
				m=1
			fi
		done < "$L/vlan-$how.facts"
		while read -r ev idx n; do
			grep -q "^$ev $idx " "$L/vlan-$how.facts" ||
				{ log "vlan $how: $n $ev events of ifindex $idx, a device of neither end"; m=1; }
		done < "$L/vlan-$how.seen"
		log "vlan $how: $(tr '\n' ',' < "$L/vlan-$how.seen")"
		[ $m = 0 ]
		# the connection's packets went through every device
		[ "$(awk '$1 == "dev_out" && $3 > 0' "$L/vlan-$how.facts" | wc -l)" -ge 4 ]
		for ns in mv-a mv-b; do ip netns del $ns; done
	done
	rm -f "$L/vlan-net"
}

# the device carrying IP in case_vlan's end $1 (a or b), tagging $2
vlan_top() {
	if [ "$2" != hw ]; then echo "mv${1}0.200.100"; else echo "mv${1}0.100"; fi
}
