#!/bin/bash -e
# VM cases: the run-time filter (`filter` commands): every term on live
# traffic, `filter clear`, bad filter commands.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

SRV4=10.200.1.2
SRV6=FD00:0200:0000:0000:0000:0000:0000:0002
ANY6=0000:0000:0000:0000:0000:0000:0000:0000

# traffic with several flows: IPv4 veth (5201), IPv6 veth (5202), IPv4
# loopback (5203), and a python3 flow with fwmark 36 (5204)
traffic() {
	local pre=$1 srv snd v6 lo
	# the four flows at once, not one after another (case_filter_terms
	# went from 151 s to 115 s on 5.10 beside another VM): the IPv4, IPv6
	# and loopback transfers, and the marked flow (python3, seconds to
	# start under emulation), which begins once its server listens
	ip netns exec mg-srv $FLOW serve 5204 &
	srv=$!
	xfer mg-srv mg-cli fd00:200::2 5202 "$L/$pre.v6.json" -n 1M &
	v6=$!
	xfer - - 127.0.0.1 5203 "$L/$pre.lo.json" -n 1M &
	lo=$!
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/$pre.v4.json" -n 1M
	wait_listen mg-srv 5204
	ip netns exec mg-cli $FLOW send 10.200.1.2 5204 200000 --mark 36 &
	snd=$!
	wait_exit $v6 60
	wait_exit $lo 60
	wait_exit $snd 30
	wait_exit $srv 10
}

# run_term NAME TERM [FLOW...]: filter TERM, reset, record the traffic
# (magnet text), check every line obeys the term; each FLOW, "v4:sender"
# for iperf3's data flow of the IPv4 run as its sender sees it (v4, v6, lo;
# sender, receiver), must appear, and each !FLOW must not
run_term() {
	local name=$1 term=$2 key=${2%%=*} value=${2#*=} f not flows=()
	shift 2
	for f; do
		not=
		[ "${f#!}" = "$f" ] || { not=!; f=${f#!}; }	# "!": absent
		flows+=("$not$L/f-$name.${f%%:*}.json:${f#*:}")
	done
	echo "filter $term" > "$PROC"
	echo reset > "$PROC"
	start_reader "$L/f-$name.log"
	traffic "f-$name"
	teacup_stop
	$CTL term "$L/f-$name.log" "$key" "$value" "${flows[@]}"
}

# every filter term narrows live traffic with several flows
# suite: every-kernel
case_filter_terms() {
	local srvns spid
	insmod "$KO" events=all omode=3
	run_term port port=5202 v6:sender v6:receiver
	run_term sport sport=5201 v4:receiver !v4:sender
	run_term dport dport=5201 v4:sender
	run_term addr6 addr=fd00:200::/64 !v4:sender !v4:receiver
	run_term addr4 addr=127.0.0.0/8 lo:sender lo:receiver
	run_term dirout dir=o
	run_term dirin dir=i
	run_term app events=app
	run_term ipdev events=ip,dev
	run_term mark fwmark=36
	srvns=$(stat -L -c %i /run/netns/mg-srv)
	echo "filter netns=$srvns" > "$PROC"
	echo reset > "$PROC"
	start_reader "$L/f-netns.log"
	traffic f-netns
	teacup_stop
	# events of mg-srv: its sockets and packets, listeners on wildcards too
	$CTL term "$L/f-netns.log" netns "$SRV4|$SRV6|0.0.0.0|$ANY6" \
		"$L/f-netns.v4.json:receiver"
	run_term comm comm=python3
	# pid: the iperf3 server's; its receive calls stay, the client's go
	ip netns exec mg-srv iperf3 -s -1 -p 5201 -D --logfile "$L/iperf3-pid.log"
	wait_listen mg-srv 5201
	spid=$(pgrep -n -x iperf3)
	echo "filter pid=$spid events=app" > "$PROC"
	echo reset > "$PROC"
	start_reader "$L/f-pid.log"
	ip netns exec mg-cli iperf3 -c 10.200.1.2 -p 5201 -n 1M -J > "$L/f-pid.json"
	teacup_stop
	$CTL term "$L/f-pid.log" pid "$spid" "$L/f-pid.json:receiver" "!$L/f-pid.json:sender"
	rmmod magnet
}

# stats line of the filter in force
filter_now() { grep '^filter' /proc/net/magnet_stats | cut -f2; }

# `filter clear` returns to the load-time parameters
case_filter_clear() {
	local f0
	insmod "$KO" events=all omode=3 port=5203
	f0=$(filter_now)
	log "load-time filter: $f0"
	echo "filter port=5201 dir=o" > "$PROC"
	filter_now | grep 'port=5201' > /dev/null
	filter_now | grep 'dir=o ' > /dev/null
	echo "filter clear" > "$PROC"
	[ "$(filter_now)" = "$f0" ]
	echo reset > "$PROC"
	start_reader "$L/clear.log"
	traffic clear
	teacup_stop
	rmmod magnet
	$CTL term "$L/clear.log" port 5203 "$L/clear.lo.json:sender" "$L/clear.lo.json:receiver"
	$CTL absent "$L/clear.log" "$L/clear.v4.json:sender" "$L/clear.v4.json:receiver"
}

# bad filter commands: EINVAL, a log line each, the filter and the
# recording untouched
case_filter_bad() {
	local f0 n
	insmod "$KO" events=all omode=3
	echo "filter port=5202" > "$PROC"
	f0=$(filter_now)
	start_reader "$L/bad.log"
	mark_log
	$PROCF write 22 "'filter port=99999'" "'filter addr=10.0.0.1/33'" \
		"'filter bogus=1'" "'filter'" "'filter port=5201 port=5202'" \
		"'filter port='" "'filter addr=' + '1' * 300" "'filter dir=x'" \
		"'filter events=foo'" "'filter port=5201x'" "'filter addr=fd00::1::2'"
	n=$(new_log | grep -c 'magnet: rejected command')
	log "$n rejected-command log lines"
	[ "$n" -eq 11 ]
	[ "$(filter_now)" = "$f0" ]
	kill -0 "$READER"
	traffic bad
	teacup_stop
	rmmod magnet
	$CTL term "$L/bad.log" port 5202 "$L/bad.v6.json:sender" "$L/bad.v6.json:receiver"
}
