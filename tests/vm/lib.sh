#!/bin/bash -e
# The VM suite's helpers: tests/vm/guest.sh sources this file, then the
# cases (tests/vm/cases/*.sh), having set HERE (its directory: the guest's
# copy of tests/vm/), KO (magnet.ko) and OUT (the output directory). The
# logs' directory, the checkers, traffic between the two namespaces,
# readers, waits, the kernel log, and cleanup() after each case. Never
# run by itself (the -e above: the cases call these under set -e, which
# tells shellcheck).

L=/tmp/mg
# the checkers and helpers need only the standard library: -S, no site
# module. The guest reads the host's root over 9p, and site's .pth files
# (certifi, distutils, matplotlib's namespace) took 2.3 s of the 3.5 a
# start took on 5.10 (1.2 s with -S); the suite starts Python hundreds
# of times. magnet-exp (EXP) imports installed packages: it keeps site
PY="/usr/bin/python3 -S"
CHECK="$PY $HERE/checklog.py"
STACK="$PY $HERE/checkstack.py"
CTL="$PY $HERE/checkctl.py"
TTCHK="$PY $HERE/checkttprobe.py"
FLOW="$PY $HERE/tcpflow.py"
. "$HERE/netpair.sh"
TT_KO=${MAGNET_TT_KO:-/nonexistent}
TTPB2ASCII=${MAGNET_TOP:-/nonexistent}/userspace/ttpb2ascii
PROCF="$PY $HERE/procfile.py"
RECORD=${MAGNET_TOP:-/nonexistent}/userspace/magnet-record
MAPCHECK="$PY $HERE/mapcheck.py"
XFER=${MAGNET_TEST_XFER:-12M}
READER=
MODROOT=/tmp/mg-modroot
PROC=/proc/net/magnet
export MAGNET_PROC=$PROC

log() { echo "[guest] $*"; }

# skip REASON: the case cannot run here (a tool or a kernel feature it
# needs is missing); counted as skipped, never as passed, and the reason
# printed (run.sh and make check's summary count the skips)
skip() {
	echo "$*" > "$L/skip"
	exit 77
}

# keep_for_later NAME...: files of $L that a later case reads, kept when
# this one passes (guest.sh deletes the rest of a passed case's files)
keep_for_later() {
	printf '%s\n' "$@" >> "$L/kept"
}

nsexec() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

wait_listen() {
	netpair_wait_listen "$1" "$2" || { log "no listener on port $2"; return 1; }
}

# bytes_acked NS PORT: the most bytes acknowledged of NS's established
# connections to PORT (iperf3's test's, not its control connection's few
# bytes), 0 with none
bytes_acked() {
	ip netns exec "$1" ss -Htin state established "( dport = :$2 )" |
		grep -Eo 'bytes_acked:[0-9]+' | cut -d: -f2 | sort -n | tail -n 1 |
		grep . || echo 0
}

# acked_to NS PORT BYTES SECONDS: within SECONDS of the wall clock, a
# connection to PORT in NS has had BYTES acknowledged. By the clock, not a
# count of polls: under single-threaded emulation one poll (ss and its
# pipe) can take a second or more
acked_to() {
	local end=$((SECONDS + $4))
	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(bytes_acked "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# data_flowing NS PORT SECONDS: within SECONDS, a connection to PORT in NS
# has had more than 64 KB acknowledged (at least 70000 bytes)
data_flowing() {
	acked_to "$1" "$2" 70000 "$3"
}

# xfer SRV_NS CLI_NS ADDR PORT JSON [iperf3 client args]: one iperf3 test
xfer() {
	local srvns=$1 clins=$2 addr=$3 port=$4 json=$5
	shift 5
	nsexec "$srvns" iperf3 -s -1 -p "$port" -D --logfile "$L/iperf3-s-$port.log"
	wait_listen "$srvns" "$port"
	# iperf3's client has no time limit of its own: one that hangs fails
	# the case, not the whole boot at the VM's timeout
	nsexec "$clins" timeout 300 iperf3 -c "$addr" -p "$port" -J "$@" > "$json" ||
		{ log "iperf3 client to $addr port $port: status $?"; return 1; }
	# iperf3 3.12 can exit 0 with an error in its JSON (seen: "unable to
	# connect to server: Connection timed out", case_vlan on 7.2)
	if grep -q '^[[:space:]]*"error":' "$json"; then
		log "iperf3 client to $addr port $port: $(grep '"error":' "$json")"
		return 1
	fi
}

start_reader() {
	cat "$PROC" > "$1" &
	READER=$!
}

# wait_exit PID SECONDS: PID must exit by itself in time; returns its
# status, or 124 if it did not exit
wait_exit() {
	local pid=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			return $?
		fi
		sleep 0.1
	done
	log "process $pid did not exit within $2 s"
	return 124
}

# wait_file FILE SECONDS: FILE must appear in time
wait_file() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	log "$1 did not appear within $2 s"
	return 1
}

# routed_path P NET [ARGS1 [ARGS2 [ARGS3 [ARGS4]]]]: three namespaces on a
# line, P-snd, the router P-rtr (forwarding) and P-rcv: a veth from
# P-snd's Ps0 (10.NET.1.1) to P-rtr's Pr0 (10.NET.1.2), another from
# P-rtr's Pr1 (10.NET.2.1) to P-rcv's Pc0 (10.NET.2.2), each end's default
# route through the router. ARGS1 to ARGS4: more `ip link add` words for
# Ps0, Pr0, Pr1 and Pc0 (an index: "index 7451"), in that order.
routed_path() {
	local p=$1 net=$2 ns d
	for ns in $p-snd $p-rtr $p-rcv; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
	done
	# shellcheck disable=SC2086 # the ARGS are words
	ip link add "${p}s0" netns "$p-snd" ${3:-} type veth \
		peer name "${p}r0" netns "$p-rtr" ${4:-}
	# shellcheck disable=SC2086
	ip link add "${p}r1" netns "$p-rtr" ${5:-} type veth \
		peer name "${p}c0" netns "$p-rcv" ${6:-}
	ip -n "$p-snd" addr add "10.$net.1.1/24" dev "${p}s0"
	ip -n "$p-rtr" addr add "10.$net.1.2/24" dev "${p}r0"
	ip -n "$p-rtr" addr add "10.$net.2.1/24" dev "${p}r1"
	ip -n "$p-rcv" addr add "10.$net.2.2/24" dev "${p}c0"
	for d in "$p-snd:${p}s0" "$p-rtr:${p}r0" "$p-rtr:${p}r1" "$p-rcv:${p}c0"; do
		ip -n "${d%:*}" link set "${d#*:}" up
	done
	ip -n "$p-snd" route add default via "10.$net.1.2"
	ip -n "$p-rcv" route add default via "10.$net.2.1"
	ip netns exec "$p-rtr" sysctl -q -w net.ipv4.ip_forward=1
}

# wait_open PID: PID has $PROC open (a reader started in the background
# reads from before the traffic it must see; a python3 one takes seconds
# to start in a slow guest, and one that opened after `finish` missed the
# stop sequence's 10 s)
wait_open() {
	local i f
	for ((i = 0; i < 300; i++)); do
		for f in /proc/"$1"/fd/*; do
			case $(readlink "$f" 2> /dev/null) in
			*/net/"${PROC##*/}") return 0 ;;
			esac
		done
		kill -0 "$1" 2> /dev/null || break
		sleep 0.1
	done
	log "process $1 did not open $PROC"
	return 1
}

# TEACUP's stop sequence; the reader must then exit by itself with status 0.
# With STATS, the statistics go there between flush and finish (traffic
# over), before a checker reading the stream through a FIFO sees its end;
# the reader then has 30 s, as the checker may lag behind it.
teacup_stop() {
	local t=10
	echo flush > "$PROC"
	sleep 0.5
	if [ $# -gt 0 ]; then
		cat /proc/net/magnet_stats > "$1"
		t=30
	fi
	echo finish > "$PROC"
	wait_exit "$READER" $t
	READER=
}

# kernel log lines written since mark_log
mark_log() { LOGMARK=$(dmesg | wc -l); }
new_log() { dmesg | tail -n +$((LOGMARK + 1)); }

# undo case_ttprobe_ascii's route ssthresh, also when it failed half-way
restore_route() {
	[ -e "$L/route-ssthresh" ] || return 0
	ip netns exec mg-cli tc qdisc del dev mgc root 2> /dev/null || true
	ip netns exec mg-cli ethtool -K mgc tso on gso on > /dev/null
	ip netns exec mg-cli sysctl -q -w net.ipv4.tcp_no_ssthresh_metrics_save=1
	ip -n mg-cli route replace 10.200.1.0/24 dev mgc proto kernel scope link \
		src 10.200.1.1
	ip -n mg-cli tcp_metrics flush all
	rm -f "$L/route-ssthresh"
}

cleanup() {
	local c
	restore_route
	restore_tcp_info_net
	if [ -e "$L/pcap-net" ]; then
		ip netns exec mg-cli tc qdisc del dev mgc root 2> /dev/null || true
		ip -n mg-cli link set mgc gso_max_segs 65535
		ip -n mg-srv link set mgs gso_max_segs 65535
		rm -f "$L/pcap-net"
	fi
	if [ -e "$L/netns-net" ]; then
		for c in mn-snd mn-rtr mn-rcv; do
			ip netns del $c 2> /dev/null || true
		done
		rm -f "$L/netns-net"
	fi
	if [ -e "$L/monarch-net" ]; then
		pkill -f "magnet-exp monarch" 2> /dev/null
		pkill -f "magnet-monarch-proxy -q" 2> /dev/null
		sleep 1
		for c in mo-host mo-rtr mo-rem $(ip netns list | grep -o 'magnet-monarch-[^ ]*'); do
			ip netns del "$c" 2> /dev/null || true
		done
		rm -f "$L/monarch-net"
	fi
	if [ -e "$L/vlan-net" ]; then
		for c in mv-a mv-b; do
			ip netns del $c 2> /dev/null || true
		done
		rm -f "$L/vlan-net"
	fi
	if [ -e "$L/split-net" ]; then
		for c in mz-snd mz-rtr mz-rcv mk-a mk-b; do
			ip netns del $c 2> /dev/null || true
		done
		rm -f "$L/split-net"
	fi
	if [ -e "$L/bldrop-net" ]; then
		ip netns exec mg-srv tc qdisc del dev mgs root 2> /dev/null || true
		rm -f "$L/bldrop-net"
	fi
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -e "$c" ] && [ "$(cat "$c")" = 0 ] && echo 1 > "$c"
	done
	[ -n "$READER" ] && kill "$READER" 2>/dev/null
	READER=
	pkill -x iperf3 2>/dev/null
	# a case that failed early leaves its helpers (a server, a coproc)
	pkill -f "^$PY $HERE/[a-z0-9]+\.py" 2>/dev/null
	rm -f "$L"/*.fifo
	for m in magnet ttprobe; do
		if [ -e /sys/module/$m ]; then rmmod $m; fi
	done
	sleep 0.2
}

# the two hosts of every test (netpair.sh, copied next to this script)
# Tail loss probes are off: a probe resends the last segment without
# counting it in tcpi_total_retrans, so iperf3's retransmit count (which the
# byte checks allow for) would miss it. Seen: a 752-byte tail sent twice.
setup_net() {
	local ns
	netpair_setup mg-cli mg-srv
	for ns in - mg-cli mg-srv; do
		nsexec "$ns" sysctl -q -w net.ipv4.tcp_early_retrans=0
	done
}

# `modprobe magnet` from a private module tree (the guest's /lib is the host's)
setup_modprobe() {
	local d
	d=$MODROOT/lib/modules/$(uname -r)/extra
	mkdir -p "$d"
	cp "$KO" "$d/magnet.ko"
	cp "$TT_KO" "$d/ttprobe.ko"
	depmod -b "$MODROOT" "$(uname -r)" > "$L/depmod.log" 2>&1
}

# no TCP socket but listeners left in mg-cli and mg-srv within SECONDS:
# none in TIME_WAIT either, or with a second argument, none that can still
# send (TIME_WAIT sockets can stay)
no_sockets() {
	local i ex="exclude listening"
	[ $# -gt 1 ] && ex="$ex exclude time-wait"
	for i in $(seq $(($1 * 2))); do
		[ -z "$(ip netns exec mg-cli ss -Htan state all $ex)" ] &&
		[ -z "$(ip netns exec mg-srv ss -Htan state all $ex)" ] &&
			return 0
		sleep 0.5
	done
	log "sockets left after $1 s: $(ip netns exec mg-cli ss -Htan | wc -l) + $(ip netns exec mg-srv ss -Htan | wc -l)"
	return 1
}
