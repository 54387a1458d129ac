#!/bin/bash
# usage: tests/vm/hostcheck.sh NAME LOGDIR
#
# The host's half of a VM case that captures in the guest and analyses on
# the host (magnet-exp's cases, and case_pcapng's tshark): run.sh calls it
# after the guest ended, once per name the guest wrote into its
# host-checks file (LOGDIR/host-checks; LOGDIR is the
# guest's /tmp/mg as copied out, build/vm/<kver>/logs). Under software
# emulation magnet-exp's analysis of a few MB of logs takes minutes; on
# the host, seconds. The analysis is the same program either way, reading
# the logs the guest's kernel wrote, as on a testbed whose logs are
# analysed on a workstation.
#
# host_NAME LOGDIR: one function per check; exit status 0 = passed. A
# pipeline fails if any of its commands does (pipefail: ttpb2ascii's exit
# on a cut log, not only its reader's).
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
EXP="$PY $top/userspace/magnet-exp"
CHK="$PY $top/tests/vm/checkexp.py"
export MAGNET_TTPB2ASCII=$top/userspace/ttpb2ascii
MPLCONFIGDIR=$(mktemp -d)
export MPLCONFIGDIR
trap 'rm -rf "$MPLCONFIGDIR"' EXIT

# text_logs DIR: each run's _ttprobe.log.gz and _web10g.log.gz hold what
# ttpb2ascii decodes from its binary log, byte for byte, with lines of the
# iperf3 flow (port 5201) in both
text_logs() {
	local b f n
	for b in "$1"/*_magnet.bin.gz; do
		for f in ttprobe web10g; do
			cmp <(zcat "${b%_magnet.bin.gz}_$f.log.gz") \
				<("$MAGNET_TTPB2ASCII" -f $f "$b")
			n=$(zcat "${b%_magnet.bin.gz}_$f.log.gz" | grep -c '5201')
			[ "$n" -gt 100 ] || { echo "text_logs: $f: $n lines of port 5201"; return 1; }
			echo "text_logs: ${b##*/}: $f: $n lines of port 5201, as ttpb2ascii -f $f decodes it"
		done
	done
}

# case_exp_run: magnet-exp report on each experiment the guest ran
host_exp_run() {
	$EXP report "$1/exp"
	$CHK main "$1/exp" 20 20 100 131072
	$EXP report --no-figures "$1/expret"
	$CHK return-loss "$1/expret"
	$EXP report --no-figures "$1/expfwd"
	$CHK forward-loss "$1/expfwd"
	text_logs "$1/expfwd"
	$EXP report --no-figures "$1/explost"
	$CHK lost "$1/explost"
}

# case_exp_strict: report --strict exits 1 unless every verdict is
# confirmed; then checkexp.py's checks of the run against iperf3 and the path
host_exp_strict() {
	$EXP report --strict "$1/expstrict"
	$CHK main "$1/expstrict" 20 20 100 131072
	# the sender's and the receiver's clocks: one kernel's (one log: 0 by
	# construction; as two logs: 0 within the estimate's bound), then the
	# receiver's records moved 7.5 ms on purpose
	$CHK clocks "$1/expstrict" 7.5
}

# case_exp_ssh: the run over SSH, analysed here; every host's files
host_exp_ssh() {
	$EXP report "$1/expssh"
	$CHK main "$1/expssh" 20 20 100 131072
	$CHK ssh "$1/expssh" snd rcv rtr 7201,7204
	# [[flows]] over SSH: each flow checked as the local run's are, its
	# files from the host that ran its side
	$EXP report --no-figures "$1/expsshflows"
	$CHK flows "$1/expsshflows" a:0:1048576:65536 cmd:0.5:300000
	local f
	for f in snd_flows.json snd_a_iperf3.json snd_cmd_command.log \
		rcv_a_iperf3_server.log rcv_cmd_server.log; do
		[ -s "$1/expsshflows/expsshflows_reno_1_$f" ] ||
			{ echo "hostcheck: expsshflows_reno_1_$f: missing or empty"; return 1; }
	done
}

# case_exp_flows: [[flows]], each flow in the log
host_exp_flows() {
	$EXP report --no-figures "$1/expflows"
	$CHK flows "$1/expflows" a:0:1048576:65536 b:1:524288:65536 cmd:0.5:300000
}

# case_exp_sweep: 2 delays x 2 variants x 3 repetitions from one spec
host_exp_sweep() {
	$EXP report "$1/expsweep"
	$CHK sweep "$1/expsweep" 20 20 524288 "$1/expsweep-stalls.txt"
}

# case_exp_complete: socat's transfer complete, iperf3's cut short flagged
host_exp_complete() {
	$EXP report --no-figures "$1/expcomplete"
	$CHK complete "$1/expcomplete" 1048576
}

# case_exp_relays: [path] relays = 2, the per-stack table
host_exp_relays() {
	$EXP report --no-figures "$1/exprelays"
	$CHK relays "$1/exprelays" 2 65536 500000
}

# case_pcapng: the clean and the lossy capture's pcapng export, with
# tshark, against the capture's own records (checkpcap.py); the lossy
# one's sender ran BBR: the plugin gives its BBR fields (checked against
# the text by wireshark_check) on each of its data packets but those of
# its first flight (before the first ACK, BBR has no bandwidth sample and
# no gain yet: at most 10 segments, at two layers), iperf3's control
# connection (cubic) left out
host_pcapng() {
	local mode n all
	for mode in clean lossy; do
		$PY "$top/tests/vm/checkpcap.py" $mode "$1/pcap-$mode.txt" "$1/pcap-$mode.pcapng" ||
			return 1
		# the plugin on this kernel's records: the rate and limit
		# parts, app calls, IPv6 then IPv4 with losses
		wireshark_check "$1/pcap-$mode.bin" || return 1
	done
	# the BBR connection's data packets, and those with every BBR field
	# above 0
	read -r all n < <(tshark -X lua_script:"$top/wireshark/magnet.lua" \
		-r "$1/pcap-lossy.pcapng" -Y 'tcp.len > 0 && magnet.ca_name == "bbr"' \
		-T fields -e magnet.bbr_bw -e magnet.bbr_min_rtt \
		-e magnet.bbr_pacing_gain -e magnet.bbr_cwnd_gain 2> /dev/null |
		awk -F '\t' '{ all++ } $1 > 0 && $2 > 0 && $3 > 0 && $4 > 0 { n++ }
			END { print all + 0, n + 0 }')
	echo "pcapng: $n of the BBR connection's $all data packets carry BBR's bandwidth, min RTT and gains"
	[ "$all" -gt 100 ] && [ "$n" -ge $((all - 20)) ]
}

# wireshark_check LOG [OPTIONS]: the Wireshark plugin's fields, every
# packet (and with --events every event) of every file of LOG's pcapng
# export, against the magnet text (tests/unit/checkwireshark.py)
wireshark_check() {
	local d=${1%.bin}.ws
	rm -rf "$d"
	mkdir "$d"
	$PY "$top/tests/unit/checkwireshark.py" "$MAGNET_TTPB2ASCII" \
		"$top/wireshark/magnet.lua" "$1" "$d" "${@:2}" > "$d.log" || {
		tail -n 20 "$d.log"
		return 1
	}
	tail -n 1 "$d.log"
}

# case_qdisc: the tbf log's qdisc events (and every packet) in the
# Wireshark export against the magnet text; on a kernel with enqueue
# events (6.1 on: the guest's qdisc.enq says 1) each dequeue's
# magnet.qdisc_sojourn_ns too, per device as many as magnet-exp's queues
# table and of the same mean
host_qdisc() {
	local enq
	read -r enq < "$1/qdisc.enq"
	if [ "$enq" = 1 ]; then
		wireshark_check "$1/qdisc.bin" --events --queues
	else
		wireshark_check "$1/qdisc.bin" --events
	fi
}

# case_qdisc_kept: the kinds of loss magnet-exp analyse tells (its
# "drops" in verdict.json), held against tc's counters and what each
# netem could do: netem 1: (loss 30%, limit 1000, 200 datagrams) dropped
# only at random, netem 4: (no loss, limit 10, 100 at once) only full.
# On a kernel without enqueue events (5.10) all are "not told apart".
host_qdisc_kinds() {
	local d="$1/kinds" truth
	read -r -a truth < "$d/truth"
	rm -rf "$d/an"
	$EXP analyse --no-figures -o "$d/an" "$d/kinds_magnet.bin" > /dev/null
	$CHK kinds "$d/an" "${truth[@]}"
}

# case_drops: in the pcapng export, the packets whose comment says they
# were dropped, per interface (named nsINODE:ifINDEX, nsINODE:ip):
# the router's device's as many as netem dropped, the receiver's
# netfilter ones as many as the rule dropped (their reason NETFILTER_DROP
# where the guest's kernel gives reasons, 5.17 on; on 5.10 "unknown", in
# nf_hook_slow)
host_drops() {
	local qd nf rtr rcv kver got want="NETFILTER_DROP"
	read -r qd nf rtr rcv kver < "$1/drops.truth"
	case $kver in 5.10.*) want="unknown in nf_hook_slow" ;; esac
	got=$(tshark -r "$1/drops.pcapng" -T fields -E separator=/t \
		-e frame.interface_name -e frame.comment \
		-Y 'frame.comment contains "magnet drop:"' 2>/dev/null |
		awk -F '\t' -v rtr="$rtr" -v rcv="$rcv" -v want="magnet drop: $want" '
			$1 == "ns" rtr ":if7451" { q++ }
			index($1, "ns" rcv ":") == 1 && index($2, want) { n++ }
			END { print q + 0, n + 0 }')
	echo "drops: tshark finds $got dropped packets (router, netfilter); netem dropped $qd, the rule $nf"
	[ "$got" = "$qd $nf" ]
}

# case_tcpev: magnet-exp's report of whether each retransmission's
# original had reached the receiver when its copy was sent, against
# tcpdump on the sender's and the receiver's devices (checktcpev.py
# reached)
host_tcpev() {
	"$MAGNET_TTPB2ASCII" -f magnet "$1/tcpev.bin" |
		awk -F '\t' 'NR == 1 || $3 == "retrans"' > "$1/tcpev-retrans.txt"
	tcpdump -r "$1/tcpev-rcv.pcap" -tt -n -S 2> /dev/null > "$1/tcpev-rcv.txt"
	tcpdump -r "$1/tcpev-snd.pcap" -tt -n -S 2> /dev/null > "$1/tcpev-snd.txt"
	$EXP analyse --no-figures -o "$1/tcpev.an" "$1/tcpev.bin" \
		> "$1/tcpev.an.log" 2>&1
	$PY "$top/tests/vm/checktcpev.py" reached "$1/tcpev-retrans.txt" \
		"$1/tcpev-snd.txt" "$1/tcpev-rcv.txt" "$1/tcpev.an/verdict.json" \
		10.64.1.1
	$PY "$top/tests/vm/checktcpev.py" cong "$1/tcpev.txt" "$1/tcpev.mib" \
		"$1/tcpev.an/verdict.json" 10.64.1.1 || return 1
	# the TCP events (retransmissions, RTOs, loss probes, state and
	# congestion-state changes) as records of the Wireshark export
	wireshark_check "$1/tcpev.bin" --events
}

# case_limits: the limit parts against each sender's TCP_INFO, the
# web10g lines too, and magnet-exp analyse's dominant limit
host_limits() {
	"$MAGNET_TTPB2ASCII" -f magnet "$1/limits.bin" > "$1/limits.txt"
	"$MAGNET_TTPB2ASCII" -f web10g "$1/limits.bin" > "$1/limits.web10g"
	$EXP analyse --no-figures -o "$1/limits.an" "$1/limits.bin" \
		> "$1/limits.an.log" 2>&1
	cat "$1/limits.an.log"
	$PY "$top/tests/vm/checklimits.py" "$1" || return 1
	# the limit part and the autotuning events in the Wireshark export
	wireshark_check "$1/limits.bin" --events
}

# case_monarch and case_monarch_probes: tshark reads each flow's pcapng of
# probes and answers, a frame per line of the proxy's trace
host_monarch_tcp() { $PY "$top/tests/vm/checkmonarch.py" pcapng "$1/monarch-tcp"; }
host_monarch_udp() { $PY "$top/tests/vm/checkmonarch.py" pcapng "$1/monarch-udp"; }
host_monarch_echo() { $PY "$top/tests/vm/checkmonarch.py" pcapng "$1/monarch-echo"; }
host_monarch_tstamp() { $PY "$top/tests/vm/checkmonarch.py" pcapng "$1/monarch-tstamp"; }

# case_monarch_exp: the [monarch] experiment, reported; a row per variant,
# each run's throughput from the log as iperf3's, its hosts named
host_exp_monarch() {
	$EXP report --no-figures "$1/expmonarch"
	$CHK monarch "$1/expmonarch"
}

# case_web10g: its TEACUP logs of the same segments (the ttprobe build's
# ASCII lines, magnet's web10g lines) analysed by magnet-exp, against
# magnet-summary and against each other (checkexp.py teacup)
host_teacup_logs() {
	local d rc=0
	d=$(mktemp -d)
	$CHK teacup "$1/w10g-tt.log" "$1/w10g.log" "$d" || rc=$?
	rm -rf "$d"
	return $rc
}

[ $# = 2 ] || { echo "usage: $0 NAME LOGDIR" >&2; exit 2; }
declare -F "host_$1" > /dev/null || { echo "hostcheck: no check '$1'" >&2; exit 2; }
"host_$1" "$2"
