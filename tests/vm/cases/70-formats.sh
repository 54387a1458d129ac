#!/bin/bash -e
# VM cases: web10g (omode=2) against ttprobe lines and ss, version 3's rate
# part against TCP_INFO, and the ttprobe build (compat=ttprobe), binary and
# ASCII.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# web10g (omode=2) next to ttprobe (omode=0) on the same segments, every
# segment (full=1), with rings that hold a whole transfer
case_web10g() {
	insmod "$KO" omode=2 port=5201 full=1 bufsize=65536
	insmod "$TT_KO" omode=0 port=5201 full=1 bufsize=65536
	cat /proc/net/magnet > "$L/w10g.log" &
	local r1=$!
	cat /proc/net/ttprobe > "$L/w10g-tt.log" &
	local r2=$!
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/w10g4.json" -n 4M
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/w10g6.json" -n 2M
	for f in /proc/net/magnet /proc/net/ttprobe; do echo flush > $f; done
	sleep 0.5
	for f in /proc/net/magnet /proc/net/ttprobe; do echo finish > $f; done
	wait_exit $r1 10
	wait_exit $r2 10
	cat /proc/net/magnet_stats > "$L/w10g-stats.txt"
	cat /proc/net/ttprobe_stats > "$L/w10g-tt-stats.txt"
	rmmod ttprobe
	rmmod magnet
	$CTL web10g "$L/w10g.log" "$L/w10g-tt.log" "$L/w10g-stats.txt" \
		"$L/w10g-tt-stats.txt"
	$CTL octets "$L/w10g.log" "$L/w10g4.json"
	$CTL octets "$L/w10g.log" "$L/w10g6.json"
	# both logs analysed on the host (hostcheck.sh teacup_logs)
	echo teacup_logs >> "$L/host-checks"
}

# more connections in one open than the web10g CID table's first 4096
# slots (finding 9): it grows as ttpb2ascii's does, so no CID 0, and each
# connection keeps its own id. The 4,200 sockets are open at once: a
# socket that reuses a freed one's memory has its id, and its CID
case_web10g_cids() {
	insmod "$KO" omode=2 port=5303 bufsize=65536
	start_reader "$L/cids.log"
	nsexec mg-srv $PY "$HERE/churn.py" 10.200.1.2 5303 2100
	teacup_stop
	cat /proc/net/magnet_stats > "$L/cids-stats.txt"
	rmmod magnet
	[ "$(awk '$1 == "total" { print $4 }' "$L/cids-stats.txt")" = 0 ]
	# 2,100 connections, both ends open at once: 4,200 flows, an id each
	$CTL cids "$L/cids.log" 4200 distinct
	# 100 connections in a row with one four-tuple, closed with resets (no
	# TIME_WAIT): their sockets mostly reuse the last ones' freed memory,
	# and each end of each is still a connection of its own, with its own
	# id (a socket's id is its cookie, never another socket's)
	insmod "$KO" omode=2 port=5303 bufsize=65536
	start_reader "$L/cids-same.log"
	nsexec mg-srv $PY "$HERE/churn.py" same 10.200.1.2 5303 100
	teacup_stop
	cat /proc/net/magnet_stats > "$L/cids-same-stats.txt"
	rmmod magnet
	[ "$(awk '$1 == "total" { print $4 }' "$L/cids-same-stats.txt")" = 0 ]
	$CTL cids "$L/cids-same.log" 200 sequential
}

# the last web10g line of a quiet connection agrees with ss -tin
# suite: every-kernel
case_web10g_ss() {
	local client cport srv
	insmod "$KO" omode=2 port=5300
	start_reader "$L/w10g-ss.log"
	ip netns exec mg-srv $FLOW serve 5300 &
	srv=$!
	wait_listen mg-srv 5300
	rm -f "$L/quiet" "$L/release"
	# the connection stays open until ss and the log have it ($L/release)
	ip netns exec mg-cli $FLOW send 10.200.1.2 5300 1000000 --hold 120 \
		--portfile "$L/cport" --quietfile "$L/quiet" --until "$L/release" &
	client=$!
	wait_file "$L/quiet" 60
	sleep 1	# window updates as the receiver reads the last bytes
	cport=$(cat "$L/cport")
	ip netns exec mg-cli ss -tin "sport = :$cport" > "$L/ss.txt"
	cat "$L/ss.txt"
	echo finish > "$PROC"
	wait_exit "$READER" 10
	READER=
	# only now may the connection close: its FIN is not in ss's snapshot
	touch "$L/release"
	wait_exit $client 20
	wait_exit $srv 10
	rmmod magnet
	$CTL ss "$L/w10g-ss.log" "$L/ss.txt" "10.200.1.1,$cport,10.200.1.2,5300"
}

# The rate part of version 3's TCP records (pacing and delivery rate,
# delivered and CE-marked, lost and SACKed out, app-limited, BBR's state)
# against the socket's own TCP_INFO and TCP_CC_INFO, field by field: a
# cubic flow with ECN on both ends through netem that CE-marks 2% of its
# packets, then a BBR flow. Whether the marks show in delivered_ce is
# the kernel's (7.2's cubic flow counted none, its BBR flow 135; 6.1's
# cubic 73): the check is that the record equals TCP_INFO. Each sender, once all its data is acked and
# the connection quiet, reads TCP_INFO, then sends one byte: that tcp_out
# record's snapshot (taken before TCP sends it) must equal what it read.
# suite: every-kernel
case_tcp_info() {
	local cc client srv
	# a module on Debian's kernels, built in on the debug kernel
	grep -qw bbr /proc/sys/net/ipv4/tcp_available_congestion_control ||
		modprobe tcp_bbr
	: > "$L/tcp-info-net"
	ip netns exec mg-cli sysctl -q -w net.ipv4.tcp_ecn=1
	ip netns exec mg-srv sysctl -q -w net.ipv4.tcp_ecn=1
	ip netns exec mg-cli tc qdisc add dev mgc root netem loss 2% ecn
	insmod "$KO" omode=1 port=5300
	start_reader "$L/ti.bin"
	for cc in cubic bbr; do
		ip netns exec mg-srv $FLOW serve 5300 &
		srv=$!
		wait_listen mg-srv 5300
		ip netns exec mg-cli $FLOW send 10.200.1.2 5300 2000000 --cc $cc \
			--portfile "$L/ti-$cc.port" --infofile "$L/ti-$cc.json" &
		client=$!
		wait_exit $client 90
		wait_exit $srv 10
	done
	teacup_stop
	rmmod magnet
	restore_tcp_info_net
	"$TTPB2ASCII" -f magnet "$L/ti.bin" > "$L/ti.txt"
	$CTL tcpinfo "$L/ti.txt" "$L/ti-cubic.json" "$(cat "$L/ti-cubic.port")"
	$CTL tcpinfo "$L/ti.txt" "$L/ti-bbr.json" "$(cat "$L/ti-bbr.port")"
}

# undo case_tcp_info's ECN and netem, also when it failed half-way
restore_tcp_info_net() {
	[ -e "$L/tcp-info-net" ] || return 0
	ip netns exec mg-cli tc qdisc del dev mgc root 2> /dev/null || true
	ip netns exec mg-cli sysctl -q -w net.ipv4.tcp_ecn=2
	ip netns exec mg-srv sysctl -q -w net.ipv4.tcp_ecn=2
	rm -f "$L/tcp-info-net"
}

# TEACUP's lifecycle through `modprobe ttprobe ... omode=1`: the ttprobe
# build defaults to compat=ttprobe, so the log is ttprobe's 96-byte records
# with no header, and TEACUP's binary reader (checkttprobe.py teacup: gzip,
# ctypes struct tcp_log, flows from fields 3-6, cwnd and RTT per flow) gets
# the iperf3 flows, ports and byte counts. What was buffered before the
# open is discarded, and counted in the statistics and the kernel log.
case_ttprobe_binary() {
	local t0 t1 disc
	setup_modprobe
	PROC=/proc/net/ttprobe
	export MAGNET_PROC=$PROC
	rmmod ttprobe 2> /dev/null || true
	modprobe -d "$MODROOT" ttprobe port=0 full=1 bufsize=16384 omode=1 direction=2
	grep -qx ttprobe /sys/module/ttprobe/parameters/compat
	grep -qx 'compat	ttprobe' /proc/net/ttprobe_stats
	# traffic while no reader is open: buffered, then emptied by the open
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/tb0.json" -n 1M
	local fill
	fill=$(awk '$1 == "total" { print $7 }' /proc/net/ttprobe_stats)
	log "$fill records buffered before the open"
	[ "$fill" -gt 0 ]
	mark_log
	t0=$(date +%s.%N)
	start_reader "$L/tb_host_ttprobe.log"
	sleep 0.3
	disc=$(new_log | sed -n 's/.*ttprobe: open: \([0-9]*\) records buffered before the open discarded.*/\1/p')
	log "the open discarded $disc records"
	[ -n "$disc" ]
	[ "$disc" -ge "$fill" ]
	grep -qx "discarded	open $disc	reset 0	closed 0" /proc/net/ttprobe_stats
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/tb4.json" -n "$XFER"
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/tb6.json" -n "$XFER"
	teacup_stop
	t1=$(date +%s.%N)
	cat /proc/net/ttprobe_stats > "$L/tb-stats.txt"
	rmmod ttprobe
	new_log | grep -E 'ttprobe: finish: [0-9]+ records written, 0 lost'
	# no SYSINFO header: the first bytes are a timeval, not magnet's magic
	[ "$(od -An -tx4 -N4 "$L/tb_host_ttprobe.log" | tr -d ' ')" != 01234567 ]
	gzip -f "$L/tb_host_ttprobe.log"
	$TTCHK teacup "$L/tb_host_ttprobe.log.gz" "$t0" "$t1" \
		--flow "$L/tb4.json" --flow "$L/tb6.json" --absent "$L/tb0.json"
	# ttpb2ascii reads the same records (detected) as ttprobe lines
	$TTPB2ASCII "$L/tb_host_ttprobe.log.gz" > "$L/tb.txt"
	$CHECK format "$L/tb.txt" "$t0" "$t1" 0
	$CHECK flow "$L/tb.txt" "$L/tb4.json" --role sender --bytes
	$CHECK flow "$L/tb.txt" "$L/tb6.json" --role receiver --bytes
}

# compat=ttprobe's ASCII (the ttprobe build, omode=0): field 7 from 0 since
# load across two opens, the second open empties what came between them,
# and fields 10 and 11 are ttprobe's (32-bit, tcp_current_ssthresh()),
# checked line by line against magnet's own records of the same segments
# (magnet.ko, omode=3, cwnd, ssthresh and ca_state from the handler). A
# lossy link (netem) brings CWR/Recovery; a locked route ssthresh of 20
# (taken by connections after the first, through the TCP metrics) puts the
# third transfer, with Reno, into congestion avoidance from the start, so
# cwnd grows past 4/3 of ssthresh (the 3/4-cwnd branch).
case_ttprobe_ascii() {
	local r1 t0 t1 n1 disc
	PROC=/proc/net/ttprobe
	export MAGNET_PROC=$PROC
	insmod "$KO" omode=3 port=5201 bufsize=65536
	insmod "$TT_KO" omode=0 port=5201 bufsize=65536
	grep -qx ttprobe /sys/module/ttprobe/parameters/compat
	: > "$L/route-ssthresh"
	# TCP hands the qdisc GSO packets even with TSO/GSO off on the device
	# (software GSO segments after the qdisc): on 6.1 a 3 MB transfer is
	# about 250 of them, and 1% loss left both transfers without a single
	# drop in 2 of some 10 runs. 5% drops a few of them in each transfer.
	ip netns exec mg-cli ethtool -K mgc tso off gso off > /dev/null
	ip netns exec mg-cli tc qdisc add dev mgc root netem loss 5%
	ip netns exec mg-cli sysctl -q -w net.ipv4.tcp_no_ssthresh_metrics_save=0
	ip -n mg-cli route replace 10.200.1.0/24 dev mgc proto kernel scope link \
		src 10.200.1.1 ssthresh lock 20
	ip -n mg-cli tcp_metrics flush all
	cat /proc/net/magnet > "$L/tt-mg.txt" &
	r1=$!
	t0=$(date +%s.%N)
	cat /proc/net/ttprobe > "$L/tt1.log" &
	READER=$!
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/tt1.json" -n 3M
	echo finish > /proc/net/ttprobe
	wait_exit "$READER" 10
	# between the opens: recorded, then emptied by the second open. Its
	# teardown can outlast iperf3: with 5% loss a lost FIN is sent again
	# after an RTO, and a record of it after the open failed the absent
	# check below (seen on 7.2). Wait until neither end can send.
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/tt2.json" -n 1M
	no_sockets 10 keep-time-wait
	mark_log
	cat /proc/net/ttprobe > "$L/tt3.log" &
	READER=$!
	sleep 0.3
	disc=$(new_log | sed -n 's/.*ttprobe: open: \([0-9]*\) records buffered.*/\1/p')
	log "the second open discarded $disc records"
	[ -n "$disc" ]
	[ "$disc" -gt 0 ]
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/tt3.json" -n 3M -C reno
	teacup_stop
	t1=$(date +%s.%N)
	echo finish > /proc/net/magnet
	wait_exit $r1 10
	ip netns exec mg-cli tc qdisc del dev mgc root
	restore_route
	grep -qx "discarded	open $disc	reset 0	closed 0" /proc/net/ttprobe_stats
	rmmod ttprobe
	rmmod magnet
	$CHECK format "$L/tt1.log" "$t0" "$t1" 0
	n1=$(wc -l < "$L/tt1.log")
	$CHECK format "$L/tt3.log" "$t0" "$t1" "$n1"
	$TTCHK counter 0 "$L/tt1.log" "$L/tt3.log"
	$CHECK flow "$L/tt1.log" "$L/tt1.json" --role sender --bytes
	$CHECK flow "$L/tt3.log" "$L/tt3.json" --role sender --bytes
	$CHECK absent "$L/tt3.log" "$L/tt2.json"
	$TTCHK semantics "$L/tt-mg.txt" "$L/tt1.log" "$L/tt3.log"
}
