#!/bin/bash -e
# VM cases: TCP's decisions (events=retrans, events=state; module/tcpev.c).
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# ns_text BIN NS...: BIN's magnet text (header, then lines) of the records
# of the named namespaces only, and the lost marks: a case's own sockets
# (a socket of an earlier case, gone with its namespace, may still
# change state during this one)
ns_text() {
	local bin=$1 ns inodes=
	shift
	for ns; do inodes="$inodes $(stat -L -c %i "/run/netns/$ns")"; done
	$TTPB2ASCII -f magnet "$bin" |
		awk -F '\t' -v inodes="$inodes" '
			NR == 1 { n = split(inodes, v, " "); for (i = 1; i <= n; i++) keep[v[i]] = 1
				  for (i = 1; i <= NF; i++) col[$i] = i; print; next }
			($col["netns"] in keep) || $3 == "lost"'
}

# recovered: 64 KB more acknowledged of mt-snd's connections to port 5201
# than on entry, or 30 s gone (a loaded host's RTO backoff lasts seconds)
recovered() {
	acked_to mt-snd 5201 $(($(bytes_acked mt-snd 5201) + 65537)) 30 || true
}

# the sender namespace's TCP counters, "name value" a line
tcp_mib() {
	ip netns exec "$1" $PY -c '
v = {}
for f in ("/proc/net/snmp", "/proc/net/netstat"):
    lines = open(f).read().split("\n")
    for a, b in zip(lines[0::2], lines[1::2]):
        a, b = a.split(), b.split()
        if a:
            for k, x in zip(a[1:], b[1:]):
                v[a[0][:-1] + k] = x
for k in ("TcpRetransSegs", "TcpExtTCPFastRetrans", "TcpExtTCPTimeouts",
          "TcpExtTCPLossProbes", "TcpExtTCPSackRecovery",
          "TcpExtTCPRenoRecovery"):
    print(k, v[k])'
}

# what ss shows of port $2's sockets in namespace $1, as "T0 T1 STATE
# COOKIE" lines (the wall clock before and after it)
ss_point() {
	local t0 t1 out
	t0=$(date +%s.%N)
	out=$(ip netns exec "$1" ss -tanOe state all "( sport = :$2 or dport = :$2 )")
	t1=$(date +%s.%N)
	echo "$out" | awk -v t0="$t0" -v t1="$t1" 'NR > 1 {
		for (i = 1; i <= NF; i++) if ($i ~ /^sk:/) print t0, t1, $1, substr($i, 4) }'
}

# A transfer from mt-snd through the router mt-rtr to mt-rcv, one MSS a
# packet: netem drops 1% of the flow's packets at the router (fast
# retransmissions, tail loss probes), and an nftables rule drops all of
# them for a second mid-transfer (a blackhole: the RTO fires, and again,
# backed off), then, a second later, all the receiver's packets for a
# second (the RTO sends again data that had arrived); the transfer's
# first SYN is dropped too (sent again, no data: checktcpev.py's
# truth must find its copy). The sender namespace's own counters are the truth
# (checktcpev.py retrans): retransmissions = TcpRetransSegs, those of kind
# fast = TcpExtTCPFastRetrans, RTO events = TcpExtTCPTimeouts, TLP events
# that sent a probe = TcpExtTCPLossProbes, and from 6.7 every TCP event's
# RTO totals (the kernel's total_rto, total_rto_recoveries) the RTO events
# before it on its socket; and magnet-exp's entries into
# the congestion states (checktcpev.py cong, on the host), from the
# kernel's changes (events=cong, 7.2) or derived from the records (5.10,
# which refuses events=cong): into Recovery = TcpExtTCPSackRecovery +
# TcpExtTCPRenoRecovery, into Loss = the RTOs that fired out of Loss. And whether each
# retransmission's original had reached the receiver when its copy was
# sent, in magnet-exp's report (from the sender's tcp_out and the
# receiver's dev_in events), must be what tcpdump on the two devices saw
# (checktcpev.py reached, on the host: hostcheck.sh host_tcpev). Then a
# connection's life (checktcpev.py states):
# connected, half closed by the client, closed by the server; at each
# point ss's state of each socket (by its cookie, ss's sk:) must be the
# last state change recorded for it.
# suite: every-kernel
case_tcpev() {
	local ns c srv cli td tds
	routed_path mt 64
	# one MSS a segment: TcpRetransSegs counts segments
	ip -n mt-snd link set mts0 gso_max_segs 1
	tc -n mt-rtr qdisc add dev mtr1 root handle 1: prio
	tc -n mt-rtr qdisc add dev mtr1 parent 1:3 handle 30: netem loss 1%
	tc -n mt-rtr filter add dev mtr1 parent 1: protocol ip u32 \
		match ip dport 5201 0xffff flowid 1:3
	# the congestion state's changes where the kernel has their
	# tracepoint (5.15+); 5.10 refuses events=cong, naming it
	ev=tcp,dev,retrans,state
	case $(uname -r) in
	5.10.*)
		mark_log
		if insmod "$KO" events=tcp,cong omode=1 2> /dev/null; then
			rmmod magnet
			log "events=cong loaded on a kernel without its tracepoint"
			return 1
		fi
		new_log | grep "the tcp_cong_state_set tracepoint is not in this kernel" > /dev/null
		;;
	*) ev=$ev,cong ;;
	esac
	insmod "$KO" events=$ev omode=1 port=5201 bufsize=65536
	case $ev in
	*cong) grep -q "probe	TCP congestion state	tracepoint	tcp_cong_state_set" /proc/net/magnet_stats ;;
	esac
	grep -q "probe	TCP retransmission	tracepoint	tcp_retransmit_skb" /proc/net/magnet_stats
	grep -q "probe	TCP RTO	ftrace	tcp_retransmit_timer" /proc/net/magnet_stats
	grep -q "probe	TCP loss probe	kretprobe	tcp_send_loss_probe" /proc/net/magnet_stats
	start_reader "$L/tcpev.bin"
	# what the sender's device sends and the receiver's gets
	ip netns exec mt-snd tcpdump -i mts0 -n -s 128 -U -w "$L/tcpev-snd.pcap" \
		tcp dst port 5201 2> "$L/tcpdump-snd.err" &
	tds=$!
	ip netns exec mt-rcv tcpdump -i mtc0 -n -s 128 -U -w "$L/tcpev-rcv.pcap" \
		tcp dst port 5201 2> "$L/tcpdump.err" &
	td=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$L/tcpdump.err" &&
			grep -q "listening on" "$L/tcpdump-snd.err" && break
		sleep 0.1
	done
	grep -q "listening on" "$L/tcpdump.err"
	grep -q "listening on" "$L/tcpdump-snd.err"
	# the blackhole a second into the transfer's data, its counter kept;
	# its table made first, with a rule of the same kinds for another port
	# (a first nft in a slow guest loads nf_tables' modules for seconds)
	# and the transfer's first SYN dropped: the client sends it again a
	# second later, a retransmission with no data (numgen inc counts the
	# SYNs the rule sees, the first 1)
	ip netns exec mt-rtr nft -f - <<-EOF
	table inet mt {
		counter syn { }
		chain hole {
			type filter hook forward priority 0;
			tcp dport 5999 meta length > 200 counter drop
		}
		chain syn {
			type filter hook forward priority 0;
			tcp dport 5201 tcp flags & (syn | ack) == syn numgen inc mod 1000000 == 1 counter name syn drop
		}
	}
	EOF
	(
		data_flowing mt-snd 5201 60 || exit 1
		sleep 1
		ip netns exec mt-rtr nft add rule inet mt hole \
			tcp dport 5201 meta length \> 200 counter drop
		sleep 1
		ip netns exec mt-rtr nft list chain inet mt hole > "$L/tcpev.hole"
		ip netns exec mt-rtr nft flush chain inet mt hole
		# then the return path's: the receiver's ACKs dropped for a
		# second, so that the RTO sends again data that had arrived;
		# once the transfer has recovered (64 KB more acked), as the
		# sender's backoff after the first can last seconds (a loaded
		# host: its RTO came after the second hole, which then dropped
		# nothing)
		recovered
		ip netns exec mt-rtr nft add rule inet mt hole \
			tcp sport 5201 counter drop
		sleep 1
		ip netns exec mt-rtr nft list chain inet mt hole > "$L/tcpev.ackhole"
		ip netns exec mt-rtr nft flush chain inet mt hole
		recovered
	) &
	c=$!
	# the transfer lasts until both holes are done and the sender has
	# recovered from the second, then its client is stopped (iperf3's
	# interrupt: exit status 1 and an error in its JSON, expected). A
	# fixed length did not hold on a slow host: under emulation each nft
	# command above takes 2-3 s to act, the RTO's backoff after the first
	# hole seconds more, and with -t 16 the return path's hole came after
	# the transfer's end (5.10, CI of 2026-12-02: 0 ACKs dropped)
	nsexec mt-rcv iperf3 -s -1 -p 5201 -D --logfile "$L/iperf3-s-5201.log"
	wait_listen mt-rcv 5201
	ip netns exec mt-snd timeout 300 iperf3 -c 10.64.2.2 -p 5201 -J -t 200 \
		-b 50M > "$L/tcpev.json" &
	cli=$!
	wait "$c" || { log "no blackhole: the transfer's data never flowed"; return 1; }
	kill -0 "$cli" || { log "the transfer ended before its holes were done"; return 1; }
	kill -TERM "$cli"
	wait "$cli" || true
	c=$(awk '$1 == "tcp" && $3 == 5201 { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }' "$L/tcpev.hole")
	log "the blackhole dropped $c packets"
	[ "$c" -gt 0 ]
	c=$(awk '$1 == "tcp" && $2 == "sport" && $3 == 5201 { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }' "$L/tcpev.ackhole")
	log "the return path's blackhole dropped $c packets"
	[ "$c" -gt 0 ]
	c=$(ip netns exec mt-rtr nft list counter inet mt syn | awk '$1 == "packets" { print $2 }')
	log "SYNs dropped: $c"
	[ "$c" = 1 ]
	# every retransmission the counters will count is recorded first:
	# the sender's sockets to 5201 closed or in TIME-WAIT (a FIN sent again
	# after the module's unload counted in TcpRetransSegs and TCPTimeouts
	# with no event, on a loaded host)
	for _ in $(seq 100); do
		ip netns exec mt-snd ss -Htan "( dport = :5201 )" |
			grep -v TIME-WAIT > /dev/null || break
		sleep 0.1
	done
	sleep 1
	teacup_stop
	rmmod magnet
	kill -INT "$td" "$tds"
	wait "$td" || true
	wait "$tds" || true
	grep -q "^0 packets dropped by kernel" "$L/tcpdump.err"
	grep -q "^0 packets dropped by kernel" "$L/tcpdump-snd.err"
	tcp_mib mt-snd > "$L/tcpev.mib"
	ns_text "$L/tcpev.bin" mt-snd > "$L/tcpev.txt"
	$PY "$HERE/checktcpev.py" retrans "$L/tcpev.txt" "$L/tcpev.mib" "$(uname -r)" |
		while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	# whether each retransmission's original had reached the receiver:
	# magnet-exp's report against tcpdump, on the host
	# (tests/vm/hostcheck.sh, host_tcpev: the analysis takes minutes
	# under emulation)
	echo tcpev >> "$L/host-checks"

	# a connection's life: the server (mt-rcv) accepts and reads to the
	# end; the client (mt-snd) sends, then shuts its side; the server
	# closes; the client closes last
	insmod "$KO" events=state omode=1 port=5202
	start_reader "$L/states.bin"
	rm -f "$L"/life-*
	nsexec mt-rcv $PY -c '
import os, socket, time
def wait(f):
    while not os.path.exists("'"$L"'/life-" + f):
        time.sleep(0.05)
l = socket.socket()
l.bind(("10.64.2.2", 5202))
l.listen()
c, _ = l.accept()
while c.recv(65536):
    pass
open("'"$L"'/life-eof", "w").close()
wait("close")
c.close()
open("'"$L"'/life-closed", "w").close()
wait("end")
l.close()' &
	srv=$!
	wait_listen mt-rcv 5202
	nsexec mt-snd $PY -c '
import os, socket, time
def wait(f):
    while not os.path.exists("'"$L"'/life-" + f):
        time.sleep(0.05)
s = socket.create_connection(("10.64.2.2", 5202))
s.sendall(b"x" * 1000)
open("'"$L"'/life-connected", "w").close()
wait("shut")
s.shutdown(socket.SHUT_WR)
wait("end")
s.close()' &
	cli=$!
	# each point once the last step is done and its packets have crossed
	: > "$L/life.points"
	for c in connected:shut eof:close closed:end; do
		wait_file "$L/life-${c%:*}" 30
		sleep 0.5
		for ns in mt-snd mt-rcv; do ss_point $ns 5202 >> "$L/life.points"; done
		touch "$L/life-${c#*:}"
	done
	wait "$cli"
	wait "$srv"
	sleep 0.2
	teacup_stop
	rmmod magnet
	# the case's own sockets: those of its two namespaces
	ns_text "$L/states.bin" mt-snd mt-rcv > "$L/states.txt"
	$PY "$HERE/checktcpev.py" states "$L/states.txt" "$L/life.points" "$(uname -r)" |
		while read -r l; do log "$l"; done
	[ "${PIPESTATUS[0]}" = 0 ]
	for ns in mt-snd mt-rtr mt-rcv; do ip netns del $ns; done
	# refused where no output carries them
	mark_log
	if insmod "$KO" events=retrans omode=0 2>/dev/null ||
		insmod "$KO" events=state omode=2; then
		rmmod magnet
		log "insmod accepted events=retrans or state with an output that cannot carry them"
		return 1
	fi
	new_log | grep "magnet: events=state is invalid here: drops, retransmissions, state changes and qdisc events are written only by" > /dev/null
}
