#!/bin/bash -e
# VM cases: drops (events=drop, the skb:kfree_skb tracepoint).
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# A transfer from md-snd through the router md-rtr to md-rcv, one MSS a
# packet, with two droppers whose own counters are the truth: netem loss
# on the router's device toward the receiver, for the flow's packets (the
# qdisc's "dropped"), and an nftables rule in the receiver's input that
# drops one data packet in 40 (its counter).
# magnet records events=tcp,drop for port 5201 in format 3; in
# ttpb2ascii's text, the drop lines in the router's namespace must be
# exactly the qdisc's drops, at its device, sent-packet side (laddr the
# sender's); those in the receiver's with the reason NETFILTER_DROP (5.10
# has no reasons: "unknown", freed in nf_hook_slow) exactly the rule's,
# received side (lport 5201); every one with a reason and a function name,
# never an address. The ends' TCP drops too (a segment it had already, a
# socket closed with data queued): listed, not counted. Then
# events=drop is refused where no output carries a drop: at load with
# format=2, and as a filter command with omode=0. The pcapng export has
# each drop as a packet on its interface with the comment "magnet drop:
# REASON in WHERE": tshark (on the host) finds the router's interface's
# and the receiver's netfilter ones, as many as the counters say.
# UDP's NoPorts + InErrors + RcvbufErrors (/proc/net/snmp) in namespace
# $1: datagrams that arrived and did not get into a socket's queue
udp_not_queued() {
	ip netns exec "$1" awk '$1 == "Udp:" && $2 ~ /^[0-9]/ {
		print $3 + $4 + $6 }' /proc/net/snmp
}

# hold_start NS OUT CODE: run the Python CODE in namespace NS, its output
# in OUT and its stdin a fifo this shell holds open (fd 9) until hold_end,
# so that CODE can hold its sockets open by reading stdin; returns once
# CODE printed "bound". The fifo ($HOLD) is outside $L, which is copied
# out over 9p: no special files there.
hold_start() {
	HOLD=$(mktemp -u /tmp/hold.XXXXXX)
	rm -f "$2"
	mkfifo "$HOLD"
	nsexec "$1" $PY -c "$3" < "$HOLD" > "$2" &
	HOLD_PID=$!
	exec 9> "$HOLD"
	for _ in $(seq 300); do
		grep -q bound "$2" && break
		sleep 0.1
	done
	grep -q bound "$2"
}

# hold_end: close the fifo (the program held reads its end) and wait for
# the program
hold_end() {
	exec 9>&-
	wait "$HOLD_PID"
	rm -f "$HOLD"
}

# suite: every-kernel
case_drops() {
	local ns qd nf c n out
	routed_path md 63 "" "" "index 7451"
	# one MSS a packet (no 64 KB GSO packets: each would be one drop)
	ip -n md-snd link set mds0 gso_max_segs 1
	ip -n md-rcv link set mdc0 gso_max_segs 1
	# netem for the flow's packets only (its "dropped" would count an
	# IPv6 neighbour solicitation it dropped too): a prio band of its own
	tc -n md-rtr qdisc add dev mdr1 root handle 1: prio
	tc -n md-rtr qdisc add dev mdr1 parent 1:3 handle 30: netem loss 2%
	tc -n md-rtr filter add dev mdr1 parent 1: protocol ip u32 \
		match ip dport 5201 0xffff flowid 1:3
	ip netns exec md-rcv nft -f - <<-EOF
	table inet md {
		counter dropped { }
		chain in {
			type filter hook input priority 0;
			tcp dport 5201 meta length > 200 numgen random mod 40 == 0 counter name dropped drop
		}
	}
	EOF
	insmod "$KO" events=tcp,drop omode=1 port=5201
	grep -q "probe	drop	tracepoint	skb:kfree_skb" /proc/net/magnet_stats
	start_reader "$L/drops.bin"
	xfer md-rcv md-snd 10.63.2.2 5201 "$L/drops.json" -n 2M
	sleep 1
	teacup_stop
	qd=$(tc -n md-rtr -s qdisc show dev mdr1 |
		awk '$1 == "qdisc" { q = $2 } q == "netem" && /dropped/ && !n++ {
			sub(",", "", $7); print $7 }')
	nf=$(ip netns exec md-rcv nft list counter inet md dropped |
		awk '$1 == "packets" { print $2 }')
	# recording again: netem deleted with packets in its time queue, whose
	# reset drops them. With jitter, packets out of their arrival order go
	# into its tree, whose node overlays the dev field (netem erases them
	# leftmost first: the field is NULL): those drops come with no device,
	# and so with no namespace (a forwarded packet has no socket), the ones
	# in its in-order list with theirs
	# The netem is deleted once 20 packets wait in it (not after a fixed
	# time: a clean-clone CI run on 2026-12-02 found 3 there after 4 s,
	# none in the tree), with no loss left on the path (the receiver's
	# rule gone, its count read above)
	ip netns exec md-rcv nft delete table inet md
	tc -n md-rtr qdisc change dev mdr1 parent 1:3 handle 30: netem delay 300ms 100ms
	nsexec md-rcv iperf3 -s -1 -p 5201 -D --logfile "$L/iperf3-s-again.log"
	wait_listen md-rcv 5201
	start_reader "$L/drops-reset.bin"
	nsexec md-snd timeout 40 iperf3 -c 10.63.2.2 -p 5201 -t 30 > /dev/null 2>&1 &
	c=$!
	n=0
	for _ in $(seq 100); do
		sleep 0.2
		n=$(tc -n md-rtr -s qdisc show dev mdr1 | awk '$1 == "qdisc" { q = $2 }
			q == "netem" && /backlog/ && !n++ { sub("p", "", $3); print $3 }')
		[ "${n:-0}" -ge 20 ] && break
	done
	tc -n md-rtr qdisc del dev mdr1 root
	pkill -f 'iperf3 -c 10.63.2.2 -p 5201 -t 30' || :
	wait "$c" || true
	teacup_stop
	rmmod magnet
	$TTPB2ASCII -f magnet -o "$L/drops-reset.txt" "$L/drops-reset.bin"
	c=$(awk -F '\t' -v ns="$(stat -L -c %i /run/netns/md-rtr)" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$3 == "drop_out" && ($col["netns"] == ns || $col["netns"] == "") {
			n[$col["ifindex"] == ""]++ }
		END { print n[1] + 0, n[0] + 0 }' "$L/drops-reset.txt")
	log "netem deleted with $n packets queued: drops at the router with no device and with one: $c"
	[ "$n" -ge 20 ]
	[ "${c% *}" -gt 0 ]
	# UDP's receive queue overlays the dev field with dev_scratch, not a
	# pointer: 20 datagrams queued to a socket that never reads, then
	# closed, are 20 drops at the receiver, with no device; a handler that
	# took the field for a device would fault (drops.c, magnet_drop_dev:
	# it did, on 7.2, "general protection fault, probably for non-canonical
	# address"). The truth: 20 sent, on a path with no qdisc of ours left,
	# and none the receiver's UDP counted as not queued (InDatagrams counts
	# a datagram when it is read)
	insmod "$KO" events=drop nontcp=1 omode=1 port=5301
	start_reader "$L/drops-udp.bin"
	c=$(udp_not_queued md-rcv)
	# the receiver binds, then holds its socket until hold_end
	hold_start md-rcv "$L/udp-rcv.out" '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.63.2.2", 5301))
print("bound", flush=True)
sys.stdin.read()'
	nsexec md-snd $PY -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20):
    s.sendto(b"x" * 100, ("10.63.2.2", 5301))'
	sleep 0.5
	c=$(( 20 - ($(udp_not_queued md-rcv) - c) ))
	hold_end
	teacup_stop
	rmmod magnet
	n=$($TTPB2ASCII -f magnet "$L/drops-udp.bin" | awk -F '\t' '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$3 == "drop_in" && $col["lport"] == 5301 && $col["ifindex"] == "" { n++ }
		END { print n + 0 }')
	log "UDP: 20 datagrams sent, $c queued to a socket closed unread, $n drops with no device"
	[ "$c" = 20 ]
	[ "$n" = 20 ]
	log "truth: netem dropped $qd, the nftables rule $nf"
	[ "$qd" -gt 0 ]
	[ "$nf" -gt 0 ]
	$TTPB2ASCII -f magnet -o "$L/drops.txt" "$L/drops.bin"
	out=$($PY - "$L/drops.txt" "$qd" "$nf" \
		"$(stat -L -c %i /run/netns/md-snd)" \
		"$(stat -L -c %i /run/netns/md-rtr)" \
		"$(stat -L -c %i /run/netns/md-rcv)" "$(uname -r)" <<-'EOF'
	import collections, re, sys
	path, qd, nf, snd, rtr, rcv, kver = sys.argv[1:]
	# the kernel, not the data, says whether drops have reasons: 5.10 has
	# none, 6.1 on do (5.17 brought them)
	reasons = tuple(int(x) for x in kver.split("-")[0].split(".")[:2]) >= (5, 17)
	with open(path) as f:
	    head = f.readline().rstrip("\n").split("\t")
	    rows = [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f]
	drops = [r for r in rows if r["event"].startswith("drop_")]
	by = collections.Counter(r["netns"] for r in drops)
	why = collections.Counter((r["netns"], r["drop_reason"], r["drop_where"])
	                          for r in drops)
	for k, n in sorted(why.items()):
	    print("drops: %s %s %s: %d" % (k + (n,)))
	bad = []
	if by[rtr] != int(qd):
	    bad.append("router: %d drop events, netem dropped %s" % (by[rtr], qd))
	# the rule's: NETFILTER_DROP, or on 5.10 (no reasons) nf_hook_slow's
	# (the receiver's TCP may drop too: a retransmission it had, OLD_DATA)
	nfd = sum(1 for r in drops if r["netns"] == rcv and
	          (r["drop_reason"] == "NETFILTER_DROP" if reasons else
	           (r["drop_reason"] == "unknown" and
	            r["drop_where"].startswith("nf_hook_slow"))))
	if nfd != int(nf):
	    bad.append("receiver: %d netfilter drop events, the rule dropped %s"
	               % (nfd, nf))
	for r in drops:
	    if r["event"] != ("drop_out" if r["netns"] == rtr else
	                      "drop_in" if r["netns"] == rcv else r["event"]):
	        bad.append("a drop's direction: %s" % r)
	    if r["netns"] == rtr and (r["ifindex"] != "7451" or
	                              r["laddr"] != "10.63.1.1" or
	                              r["rport"] != "5201"):
	        bad.append("a router drop: %s" % r)
	    if r["netns"] == rcv and (r["laddr"] != "10.63.2.2" or
	                              r["lport"] != "5201"):
	        bad.append("a receiver drop: %s" % r)
	    if not r["drop_reason"] or not r["drop_where"] or \
	            re.search(r"0x[0-9a-f]|ffff", r["drop_where"]):
	        bad.append("reason or where: %s" % r)
	for b in bad[:5]:
	    print("FAIL: " + b)
	sys.exit(1 if bad else 0)
	EOF
	) || { log "$out"; return 1; }
	log "$out"
	# pcapng: tshark on the host counts the dropped packets' comments
	# (tests/vm/hostcheck.sh, host_drops) against the same truth
	$TTPB2ASCII -f pcapng -L ip,dev --all-interfaces --drops -o "$L/drops.pcapng" "$L/drops.bin"
	echo "$qd $nf $(stat -L -c %i /run/netns/md-rtr) $(stat -L -c %i /run/netns/md-rcv) $(uname -r)" > "$L/drops.truth"
	echo drops >> "$L/host-checks"
	for ns in md-snd md-rtr md-rcv; do ip netns del $ns; done
	# refused where no output carries a drop
	mark_log
	if insmod "$KO" events=drop omode=1 format=2; then
		rmmod magnet
		log "insmod accepted events=drop format=2"
		return 1
	fi
	new_log | grep "magnet: events=drop is invalid here: drops, retransmissions, state changes and qdisc events are written only by" > /dev/null
	insmod "$KO" omode=0
	if echo "filter events=tcp,drop" > /proc/net/magnet; then
		rmmod magnet
		log "filter events=tcp,drop accepted with omode=0"
		return 1
	fi
	new_log | grep 'rejected command "filter events=tcp,drop": events: drops, retransmissions, state changes and qdisc events are written only by' > /dev/null
	rmmod magnet
}


# all of namespace $1's IP, TCP and UDP counters, "name value" a line
all_mib() {
	ip netns exec "$1" $PY -c '
for f in ("/proc/net/snmp", "/proc/net/netstat"):
    lines = open(f).read().split("\n")
    for a, b in zip(lines[0::2], lines[1::2]):
        a, b = a.split(), b.split()
        for k, x in zip(a[1:], b[1:]):
            print(a[0][:-1] + k, x)'
}

# A receiver that never reads, with a small receive buffer, behind the
# router mr-rtr: 200 UDP datagrams of 1000 bytes to a socket of 4 KB
# (SO_RCVBUF), and a TCP connection whose socket's buffer shrinks to 4 KB
# once accepted (the window it offered is larger: the sender sends what
# fits in it, and probes the zero window after). magnet records
# events=tcp,drop nontcp=1 for port 5202; then the router's link to the
# receiver goes down (nothing reaches it any more), and the receiver
# namespace's counters are the truth for its drop events (checkrcvbuf
# below): UDP's = RcvbufErrors, SOCKET_RCVBUFF (5.10: unknown, in
# udp_queue_rcv_one_skb); TCP's, where the kernel gives reasons,
# TCP_ZEROWINDOW = TCPZeroWindowDrop and PROTO_MEM = TCPRcvQDrop +
# TCPOFODrop. TCP sets a received packet's device to none: its drops
# have the receiver's namespace and device where the kernel gives the
# receiving socket (6.11 on), else neither. On 5.10 TCP's own drops free
# the packet with __kfree_skb(), which fires no tracepoint: none is
# recorded, and the case says how many the counters have.
# suite: every-kernel
case_rcvbuf() {
	local s out
	routed_path mr 65
	insmod "$KO" events=tcp,drop nontcp=1 omode=1 port=5202
	all_mib mr-rcv > "$L/rcvbuf-mib0"
	start_reader "$L/rcvbuf.bin"
	# both ends hold their sockets until hold_end (the sender reads the
	# fifo too, without its write end, fd 9)
	hold_start mr-rcv "$L/rcvbuf-rcv.out" '
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
u.bind(("10.65.2.2", 5202))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.bind(("10.65.2.2", 5202))
t.listen(1)
print("bound", flush=True)
c, a = t.accept()
c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
print("accepted", flush=True)
sys.stdin.read()'
	nsexec mr-snd $PY -c '
import socket, sys, time
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200):
    u.sendto(b"x" * 1000, ("10.65.2.2", 5202))
t = socket.create_connection(("10.65.2.2", 5202))
t.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
t.setblocking(False)
end = time.time() + 3
sent = 0
while time.time() < end:
    try:
        sent += t.send(b"y" * 50)
    except BlockingIOError:
        time.sleep(0.01)
print("TCP: %d bytes sent" % sent, flush=True)
sys.stdin.read()
# closed by a reset: with its data unsent and the path down, a close
# left it in FIN-WAIT-1 for minutes after the case, to die in another
# case on port 5202 (in case_tcpev: a state change of a stranger)
import struct
t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
t.close()' < "$HOLD" > "$L/rcvbuf-snd.out" 2>&1 9>&- &
	s=$!
	for _ in $(seq 100); do
		grep -q sent "$L/rcvbuf-snd.out" && break
		sleep 0.1
	done
	grep -q sent "$L/rcvbuf-snd.out"
	ip -n mr-rtr link set mrr1 down
	sleep 0.5
	all_mib mr-rcv > "$L/rcvbuf-mib1"
	teacup_stop
	hold_end
	wait "$s"
	rmmod magnet
	log "$(cat "$L/rcvbuf-snd.out")"
	$TTPB2ASCII -f magnet -o "$L/rcvbuf.txt" "$L/rcvbuf.bin"
	out=$($PY - "$L/rcvbuf.txt" "$L/rcvbuf-mib0" "$L/rcvbuf-mib1" \
		"$(stat -L -c %i /run/netns/mr-rcv)" \
		"$(ip netns exec mr-rcv cat /sys/class/net/mrc0/ifindex)" \
		"$(uname -r)" <<-'EOF'
	import collections, sys
	path, m0, m1, rcv, idx, kver = sys.argv[1:]
	def short(r):
	    return " ".join("%s=%s" % (k, r[k]) for k in (
	        "time", "event", "ip_proto", "netns", "ifindex", "laddr", "lport",
	        "raddr", "rport", "len", "drop_reason", "drop_where"))
	def mib(p):
	    return {k: int(v) for k, v in (l.split() for l in open(p))}
	a, b = mib(m0), mib(m1)
	d = {k: b[k] - a.get(k, 0) for k in b}
	with open(path) as f:
	    head = f.readline().rstrip("\n").split("\t")
	    rows = [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f]
	# the receiver's: its namespace, or none (no device, no socket)
	drops = [r for r in rows if r["event"] == "drop_in" and
	         r["lport"] == "5202" and r["netns"] in (rcv, "")]
	why = collections.Counter((r["ip_proto"], r["drop_reason"],
	                           r["drop_where"]) for r in drops)
	for k, n in sorted(why.items()):
	    print("drops: proto %s %s %s: %d" % (k + (n,)))
	bad = []
	udp = [r for r in drops if r["ip_proto"] == "17"]
	print("UDP: %d drop events, RcvbufErrors %d" % (len(udp), d["UdpRcvbufErrors"]))
	if not d["UdpRcvbufErrors"] or len(udp) != d["UdpRcvbufErrors"]:
	    bad.append("UDP: %d drops, the receiver counted %d" %
	               (len(udp), d["UdpRcvbufErrors"]))
	# the kernel, not the data, says whether drops have reasons: 5.10 has
	# none, 6.1 on do (5.17 brought them)
	reasons = tuple(int(x) for x in kver.split("-")[0].split(".")[:2]) >= (5, 17)
	for r in udp:
	    if r["drop_reason"] != ("SOCKET_RCVBUFF" if reasons else "unknown") or \
	            not r["drop_where"].startswith("udp_queue_rcv") or \
	            r["netns"] != rcv or r["ifindex"] != idx:
	        bad.append("a UDP drop: %s" % short(r))
	tcp = [r for r in drops if r["ip_proto"] == "6"]
	zw, mem = d.get("TcpExtTCPZeroWindowDrop", 0), \
	    d.get("TcpExtTCPRcvQDrop", 0) + d.get("TcpExtTCPOFODrop", 0)
	n = collections.Counter(r["drop_reason"] for r in tcp)
	print("TCP: TCP_ZEROWINDOW %d, TCPZeroWindowDrop %d; PROTO_MEM %d, "
	      "TCPRcvQDrop + TCPOFODrop %d" % (n["TCP_ZEROWINDOW"], zw,
	                                      n["PROTO_MEM"], mem))
	if not zw + mem:
	    bad.append("TCP: the receiver dropped nothing")
	if not reasons:
	    # no reasons (5.10): TCP's own drops are not visible
	    print("TCP: no drop reasons here: %d of TCP's drops recorded" % len(tcp))
	else:
	    if n["TCP_ZEROWINDOW"] != zw or n["PROTO_MEM"] != mem:
	        bad.append("TCP: the drops by reason differ from the counters")
	    rx = tuple(int(x) for x in kver.split("-")[0].split(".")[:2]) >= (6, 11)
	    for r in tcp:
	        if (r["netns"], r["ifindex"]) != ((rcv, idx) if rx else ("", "")):
	            bad.append("a TCP drop's namespace and device: %s" % short(r))
	for x in bad[:5]:
	    print("FAIL: " + x)
	sys.exit(1 if bad else 0)
	EOF
	) || { log "$out"; return 1; }
	log "$out"
	for ns in mr-snd mr-rtr mr-rcv; do ip netns del $ns; done
}

# A packet a raw socket was still building from user memory when the
# kernel freed it: an IP_HDRINCL send whose copy faults part-way
# (tests/vm/rawfault.py; the kernel frees it as dropped in raw_send_hdrinc,
# marked IP, the bytes past the fault never written). No byte the kernel
# did not write may reach a record: no drop event from the send functions
# (module/rec_pkt.c, magnet_drop_unwritten()), and the packet counted as
# one that could not be parsed, once (the statistics' unparsed). 5.10
# marks the packet IP only once it is built (__ip_local_out): the drop's
# probe leaves it as it leaves any packet that is not IP, and counts
# nothing.
# suite: every-kernel
case_drop_unwritten() {
	local u0 u1 n want=1
	case $(uname -r) in 5.*) want=0 ;; esac
	insmod "$KO" events=drop omode=1 nontcp=1
	start_reader "$L/unwritten.bin"
	u0=$(awk '$1 == "unparsed" { print $2 }' /proc/net/magnet_stats)
	[ "$(nsexec mg-cli $PY "$HERE/rawfault.py" 10.200.1.2)" = EFAULT ]
	u1=$(awk '$1 == "unparsed" { print $2 }' /proc/net/magnet_stats)
	teacup_stop
	rmmod magnet
	$TTPB2ASCII -f magnet -o "$L/unwritten.txt" "$L/unwritten.bin"
	n=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "drop_where") c = i; next }
		c && $c ~ /^raw(v6)?_send/ { n++ } END { print n + 0 }' "$L/unwritten.txt")
	log "drop events from the raw send functions: $n; unparsed $u0 -> $u1"
	[ "$n" = 0 ]
	[ $((u1 - u0)) = $want ]
}
