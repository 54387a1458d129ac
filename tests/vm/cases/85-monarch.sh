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

. "$MAGNET_TOP/scripts/monarch-net.sh"

# mo-host (where magnet-exp monarch runs) - mo-rtr - mo-rem (the remote,
# 10.63.2.2): 20 Mbit/s and 10 ms toward the remote, 10 ms back
# (scripts/monarch-net.sh); lib.sh's cleanup removes it after a failure
monarch_net() {
	: > "$L/monarch-net"
	monarch_net_setup "delay 10ms rate 20mbit limit 200" "delay 10ms"
}

monarch_net_end() {
	monarch_net_del
	rm -f "$L/monarch-net"
}

# the remote's count of the answers to probe type $1: its RSTs, or every
# ICMP message it sent (the remote sends no other): the per-type counters
# are not all true (6.12 counted timestamp replies as echo replies)
monarch_answers() {
	local c=IcmpOutMsgs
	[ "$1" = tcp ] && c=TcpOutRsts
	nsexec mo-rem nstat -asz "$c" | awk -v c="$c" '$1 == c { n = $2 } END { print n + 0 }'
}

# monarch_clean NAME [NS]: nothing of a run left in NS (default mo-host;
# - the guest's own): no namespace, nftables table, device, rule, route
# (to its address, in any table)
monarch_clean() {
	local left ns=${2:-mo-host}
	left="$(ip netns list | grep -o 'magnet-monarch-[^ ]*' || true)"
	left="$left$(nsexec $ns nft list tables | grep magnet_monarch || true)"
	left="$left$(nsexec $ns ip -o link | grep -oE 'mm[sr][0-9]+' || true)"
	left="$left$(nsexec $ns ip rule | grep -E 'iif mm[sr]' || true)"
	left="$left$(nsexec $ns ip route show table all | grep -E '10\.255\.77\.|dev mm[sr][0-9]' || true)"
	if [ -n "$left" ]; then
		log "monarch $1: left behind: $left"
		return 1
	fi
}

# monarch_flow PROBE: a 2 MB flow of the kernel's cubic through magnet-exp
# monarch with that probe type, magnet recording; the remote's own
# counters (its RSTs, ICMP replies) equal the answers the trace saw
# (checkmonarch.py flow); magnet's log shows the sender's cwnd and srtt
# evolving; nothing is left behind. The pcapng is read on the host
# (tests/vm/hostcheck.sh's host_monarch_PROBE: tshark).
monarch_flow() {
	local probe=$1 a0 a1
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
	echo "monarch_$probe" >> "$L/host-checks"
}

# The default probe (TCP ACKs to a closed port, answered by the remote
# kernel's RSTs) through this kernel's nftables, NFQUEUE and namespaces;
# the remote listens on no TCP port before or after.
# suite: every-kernel
case_monarch() {
	monarch_net
	[ -z "$(nsexec mo-rem ss -ltnH)" ]
	monarch_flow tcp
	[ -z "$(nsexec mo-rem ss -ltnH)" ]
	monarch_net_end
}

# The other three probe types (UDP to a closed port, ICMP echo, ICMP
# timestamp), each a flow as case_monarch's: the kernel's part is the
# same as there, so on one kernel, make check's last (68 s on 5.10).
# suite: check-exp
case_monarch_probes() {
	local probe
	monarch_net
	for probe in udp echo tstamp; do
		monarch_flow $probe
	done
	[ -z "$(nsexec mo-rem ss -ltnH)" ]
	monarch_net_end
}

# monarch_privileges: the proxy of a running flow runs as nobody, with
# CAP_NET_ADMIN only (nfnetlink checks it on each verdict), none in its
# bounding set but that, and no_new_privs (its /proc status)
monarch_privileges() {
	local pid st want="Uid: 65534 65534 65534 65534|Gid: 65534 65534 65534 65534|Groups:|CapInh: 0000000000000000|CapPrm: 0000000000001000|CapEff: 0000000000001000|CapBnd: 0000000000001000|CapAmb: 0000000000000000|NoNewPrivs: 1"
	pid=$(pgrep -f "magnet-monarch-proxy -q")
	st=$(grep -E '^(Uid|Gid|Groups|Cap[A-Za-z]+|NoNewPrivs):' /proc/$pid/status |
		tr -s '\t ' '  ' | sed 's/ *$//' | paste -sd '|')
	log "the proxy's credentials: $st"
	[ "$st" = "$want" ] || { log "monarch: the proxy runs with more than it needs; want $want"; return 1; }
}

# monarch_symlinks: an output file that is a symbolic link is refused
# (the proxy's -w and -t; magnet-exp monarch's -o DIR with trace.txt a
# link), with a one-line error and status 2, the link's target untouched
# and nothing set up or left behind
monarch_symlinks() {
	local c
	echo untouched > "$L/victim"
	rm -rf "$L/monarch-link"
	mkdir "$L/monarch-link"
	ln -s "$L/victim" "$L/monarch-link/probes.pcapng"
	ln -s "$L/victim" "$L/monarch-link/trace.txt"
	c=0
	nsexec mo-host "$MAGNET_TOP/userspace/magnet-monarch-proxy" -c -r 10.63.2.2 \
		-w "$L/monarch-link/probes.pcapng" > "$L/monarch-link.out" 2>&1 || c=$?
	log "proxy -w a link: status $c, $(cat "$L/monarch-link.out")"
	[ $c = 2 ]
	grep -q "symbolic link: refused" "$L/monarch-link.out"
	c=0
	nsexec mo-host "$MAGNET_TOP/userspace/magnet-monarch-proxy" -q 7 -r 10.63.2.2 \
		-t "$L/monarch-link/trace.txt" -s < /dev/null > "$L/monarch-link.out" 2>&1 || c=$?
	log "proxy -t a link: status $c, $(cat "$L/monarch-link.out")"
	[ $c = 2 ]
	grep -q "symbolic link: refused" "$L/monarch-link.out"
	rm "$L/monarch-link/probes.pcapng"
	c=0
	nsexec mo-host $MONARCH 10.63.2.2 -n 100K -o "$L/monarch-link" > "$L/monarch-link.out" 2>&1 || c=$?
	log "magnet-exp monarch -o DIR, DIR/trace.txt a link: status $c, $(cat "$L/monarch-link.out")"
	[ $c = 2 ]
	grep -q "trace.txt: a symbolic link: refused" "$L/monarch-link.out"
	[ "$(cat "$L/victim")" = untouched ] || { log "monarch: the link's target was written"; return 1; }
	monarch_clean symlinks
}

# monarch_port1: probes to closed port 1 (the proxy's -P 1, tcp and udp):
# the router counts 3 of each going to port 1, none from port 0, and each
# check is answered
monarch_port1() {
	local p n z c
	for p in tcp udp; do
		nsexec mo-rtr nft -f - <<-NFT
		table ip magnet_test_port {
			counter toport { }
			counter fromzero { }
			chain fw {
				type filter hook forward priority 0;
				ip saddr 10.63.1.1 $p dport 1 counter name toport
				ip saddr 10.63.1.1 $p sport 0 counter name fromzero
			}
		}
		NFT
		c=0
		nsexec mo-host "$MAGNET_TOP/userspace/magnet-monarch-proxy" -c -r 10.63.2.2 \
			-p $p -P 1 > "$L/monarch-port1.out" 2>&1 || c=$?
		n=$(nsexec mo-rtr nft list counter ip magnet_test_port toport | awk '$1 == "packets" { print $2 }')
		z=$(nsexec mo-rtr nft list counter ip magnet_test_port fromzero | awk '$1 == "packets" { print $2 }')
		nsexec mo-rtr nft delete table ip magnet_test_port
		log "-p $p -P 1: status $c, $(cat "$L/monarch-port1.out"); the router: $n probes to port 1, $z from port 0"
		[ $c = 0 ]
		[ "$n" = 3 ]
		[ "$z" = 0 ]
		grep -q "3 of 3 answered" "$L/monarch-port1.out"
	done
}

# monarch_signals NAME SIG...: a flow stopped by SIGINT (as Ctrl-C), then
# while it tears down, every 0.1 s each SIG in turn until it exits: it
# ends with the error "interrupted", status 2, and nothing is left
# behind. The signals go to magnet-exp itself (pkill -f: $! is the
# subshell that runs nsexec)
monarch_signals() {
	local name=$1 pid c s n=0
	shift
	# (no ERR trap in the background: its status is wait_exit's to take)
	(trap - ERR; nsexec mo-host $MONARCH 10.63.2.2 -t 30 -o "$L/monarch-$name" \
		> "$L/monarch-$name.out" 2>&1) &
	pid=$!
	wait_file "$L/monarch-$name/trace.txt" 20
	sleep 2
	pkill -INT -f "magnet-exp monarch .*monarch-$name\$"
	while [ $# -gt 0 ] && kill -0 $pid 2> /dev/null && [ $n -lt 300 ]; do
		sleep 0.1
		for s in "$@"; do
			pkill -$s -f "magnet-exp monarch .*monarch-$name\$" && n=$((n + 1))
		done
	done
	c=0
	wait_exit $pid 30 || c=$?
	log "$name: status $c after $n more signals, $(cat "$L/monarch-$name.out")"
	monarch_clean "$name"
	[ $c = 2 ]
	grep -q interrupted "$L/monarch-$name.out"
}

# A run interrupted (SIGINT, as Ctrl-C), one interrupted again and again
# while it tears down (SIGINT and SIGTERM), and one whose proxy is killed:
# an error, and nothing left behind. The proxy's credentials during a
# flow; output files that are symbolic links. And the errors: a remote
# that answers nothing, ECN, a closed port out of range.
# In the exp suite with the other further cases (make check-all,
# MAGNET_VM_EXP=1): 149 s on a slow day's 5.10, which make check's time
# could not hold.
# suite: exp
case_monarch_errors() {
	local pid c
	monarch_net
	# Ctrl-C in the middle of a flow, the proxy's credentials before
	(trap - ERR; nsexec mo-host $MONARCH 10.63.2.2 -t 30 -o "$L/monarch-int" \
		> "$L/monarch-int.out" 2>&1) &
	pid=$!
	wait_file "$L/monarch-int/trace.txt" 20
	sleep 2
	monarch_privileges
	# to magnet-exp itself ($! is the subshell that runs nsexec)
	pkill -INT -f "magnet-exp monarch .*monarch-int"
	c=0
	wait_exit $pid 20 || c=$?
	log "interrupted: status $c, $(cat "$L/monarch-int.out")"
	[ $c = 2 ]
	grep -q interrupted "$L/monarch-int.out"
	monarch_clean interrupted
	# Ctrl-C, then Ctrl-C and SIGTERM during the teardown
	monarch_signals int-again INT TERM
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
	c=0
	nsexec mo-host $MONARCH 10.63.2.2 --closed-port 0 -o "$L/monarch-port" > "$L/monarch-port.out" 2>&1 || c=$?
	[ $c = 2 ]
	grep -q "closed port 0: not a port (1-65535)" "$L/monarch-port.out"
	monarch_port1
	monarch_symlinks
	monarch_clean errors
	monarch_net_end
}

# monarch_spoof PROBE: a 3-second flow with PROBE probes while the router
# forges answers from the remote's address (tests/vm/monarchspoof.py:
# for each of the flow's first 60 probes it sees, answers wrong in one
# field each, its key, a port, a quoted address, the ICMP id, code or
# size, or sent to another of the host's addresses, and a blind guess as
# against the old proxy), each with TTL 7, which the host's nftables
# counts as they arrive: checkmonarch.py spoof: the answers the trace
# saw are as many as the remote's own counters say it sent (no forgery
# released a packet), and the proxy rejected as many packets as
# forgeries arrived
monarch_spoof() {
	local probe=$1 a0 a1 n spid
	nsexec mo-host nft -f - <<-NFT
	table ip magnet_test_spoof {
		counter forged { }
		chain pre {
			type filter hook prerouting priority -400; policy accept;
			ip saddr 10.63.2.2 ip ttl 7 counter name forged
		}
	}
	NFT
	rm -f "$L/spoof-$probe.json" "$L/spoof-$probe.json.ready"
	a0=$(monarch_answers $probe)
	ip netns exec mo-rtr $PY "$HERE/monarchspoof.py" $probe 33434 \
		"$L/monarch-spoof-$probe/trace.txt" "$L/spoof-$probe.json" &
	spid=$!
	wait_file "$L/spoof-$probe.json.ready" 30
	nsexec mo-host $MONARCH 10.63.2.2 -p $probe -t 3 -o "$L/monarch-spoof-$probe" \
		> "$L/monarch-spoof-$probe.out"
	kill -TERM $spid
	wait $spid
	a1=$(monarch_answers $probe)
	n=$(nsexec mo-host nft list counter ip magnet_test_spoof forged | awk '$1 == "packets" { print $2 }')
	nsexec mo-host nft delete table ip magnet_test_spoof
	cat "$L/monarch-spoof-$probe.out"
	$PY "$HERE/checkmonarch.py" spoof "$L/monarch-spoof-$probe" $((a1 - a0)) \
		100000 "$n" "$L/spoof-$probe.json"
	monarch_clean "spoof-$probe"
}

# monarch_nobuf: a 2 MB flow whose proxy's netlink buffer (-b 8192) is
# too small for the queue's messages in a burst: the host's nftables
# counts the packets that reach the queue, checkmonarch.py nobuf: the
# proxy's packets and lost messages add up to them, a "lost" trace line
# each, some lost, and the flow completes. Whether a burst outruns the
# proxy depends on the machine (a clean-clone CI run on 2026-12-02 lost
# none), so the proxy is stopped 0.2 s in every 0.4 s while the flow runs:
# every stop with the flow sending overflows the buffer
monarch_nobuf() {
	local n stopper
	(
		p=
		for _ in $(seq 300); do
			p=$(pgrep -f '^[^ ]*magnet-monarch-proxy ' | sed -n 1p || true)
			[ -n "$p" ] && break
			sleep 0.1
		done
		[ -n "$p" ] || exit 0
		while kill -STOP "$p" 2> /dev/null; do
			sleep 0.2
			kill -CONT "$p" 2> /dev/null || break
			sleep 0.2
		done
	) &
	stopper=$!
	nsexec mo-host nft -f - <<-NFT
	table ip magnet_test_queued {
		counter queued { }
		chain pre {
			type filter hook prerouting priority -350; policy accept;
			iifname "mms*" ip daddr 10.63.2.2 counter name queued
		}
	}
	NFT
	nsexec mo-host /usr/bin/python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
from magnet_exp import monarch
monarch.run("10.63.2.2", "tcp", sys.argv[2], nbytes="2M", proxy_opts=["-b", "8192"])' \
		"$MAGNET_TOP/python" "$L/monarch-nobuf"
	kill "$stopper" 2> /dev/null || :
	wait "$stopper" || :
	pkill -CONT -f '^[^ ]*magnet-monarch-proxy ' || :
	n=$(nsexec mo-host nft list counter ip magnet_test_queued queued | awk '$1 == "packets" { print $2 }')
	nsexec mo-host nft delete table ip magnet_test_queued
	$PY "$HERE/checkmonarch.py" nobuf "$L/monarch-nobuf" "$n" 2000000
	monarch_clean nobuf
}

# A remote's address others can send from: answers forged from it with a
# field wrong release no packet (monarch_spoof, each probe type that
# matches answers differently: tcp, udp, echo; tstamp matches as echo);
# and queue messages lost to a netlink buffer too small are counted, one
# by one (monarch_nobuf). The router routes the host's gateway address
# (10.255.77.1, on magnet-exp monarch's veths) to it, for the forgeries
# sent there.
# In the exp suite with the other further cases (make check-all,
# MAGNET_VM_EXP=1): 149 s on a slow day's 5.10, which make check's time
# could not hold.
# suite: exp
case_monarch_hostile() {
	local probe
	monarch_net
	ip -n mo-rtr route add 10.255.77.1/32 via 10.63.1.1
	for probe in tcp udp echo; do
		monarch_spoof $probe
	done
	monarch_nobuf
	monarch_net_end
}

# monarch_diag NAME WANT IDS LOSS: a 1 MB flow of ICMP echo probes, the
# router (nftables, table magnet_test_diag) giving each answer an IP ID of
# its own (IDS: inc, a counter of the router's: the sequential IDs the
# self-diagnosis reads, which the remote's Linux does not keep over its
# quiet times; random) and dropping 2% of the full-sized packets (the
# probes of data packets, and their answers, as large) toward the remote
# (LOSS out), on the way back (back, after the ID is set: a lost answer
# used one), or none (nft writes numgen's 32 bits in network order and
# the ID field takes the first 2 bytes: << 16 puts the number there); then
# checkmonarch.py diag with the rule's counter:
# the losses the self-diagnosis classifies as on the way out and back
# equal the drops in each direction, and its verdict is WANT
monarch_diag() {
	local name=$1 want=$2 ids=$3 loss=$4 n out=0 back=0 drop=
	case $loss in
	out) drop="ip daddr 10.63.2.2 meta length > 1000 numgen random mod 100 < 2 counter name lost drop" ;;
	back) drop="ip saddr 10.63.2.2 meta length > 1000 numgen random mod 100 < 2 counter name lost drop" ;;
	esac
	nsexec mo-rtr nft -f - <<-NFT
	table ip magnet_test_diag {
		counter lost { }
		chain fw {
			type filter hook forward priority 0;
			ip saddr 10.63.2.2 ip id set numgen $ids mod 65536 << 16
			$drop
		}
	}
	NFT
	nsexec mo-host $MONARCH 10.63.2.2 -p echo -n 1M -o "$L/monarch-$name" \
		> "$L/monarch-$name.out"
	n=$(nsexec mo-rtr nft list counter ip magnet_test_diag lost | awk '$1 == "packets" { print $2 }')
	nsexec mo-rtr nft delete table ip magnet_test_diag
	case $loss in
	out) out=$n ;;
	back) back=$n ;;
	esac
	cat "$L/monarch-$name.out"
	$PY "$HERE/checkmonarch.py" diag "$L/monarch-$name" "$want" $out $back
	monarch_clean "$name"
}

# Monarch's self-diagnosis (monarchdiag.py, the paper's Figure 3) against
# the truth the router's counters know, on a remote whose answers have
# sequential IP IDs: loss on the way to the remote only is confirmed,
# every loss classified as on the way out, as many as the router dropped;
# loss on the way back only is inaccurate, every loss classified as on the
# way back, as many as the router dropped, and the sender retransmitted;
# randomised IP IDs (no loss) are indeterminate, the IDs unusable. On one
# kernel, as case_monarch_probes (67 s on 5.10).
# suite: check-exp
case_monarch_diagnosis() {
	monarch_net
	monarch_diag out confirmed inc out
	monarch_diag back inaccurate inc back
	monarch_diag ipid indeterminate random none
	monarch_net_end
}

# An experiment spec with [monarch] (magnet-exp run): cubic and reno, each
# a 1 MB Monarch flow of ICMP echo probes to the remote, magnet recording
# as in any run. magnet-exp run works where magnet's /proc/net/magnet is,
# the guest's own namespace, as a user's on a host: a veth from it to the
# router (mox0 10.63.3.1 - mor2 10.63.3.2), its route to the remote. The
# guest checks each run's files and that nothing is left, then resumes a
# copy cut after the first run (--resume); the host reports and checks
# the comparison (hostcheck.sh exp_monarch: checkexp.py monarch). In
# make check (check-exp, on the last kernel: 145 s on 7.2).
# suite: check-exp
case_monarch_exp() {
	local n
	monarch_net
	ip link add mox0 type veth peer name mor2 netns mo-rtr
	ip addr add 10.63.3.1/24 dev mox0
	ip -n mo-rtr addr add 10.63.3.2/24 dev mor2
	ip link set mox0 up
	ip -n mo-rtr link set mor2 up
	ip route add 10.63.2.0/24 via 10.63.3.2
	cat > "$L/expmonarch.toml" <<-EOF
	test_id = "expmonarch"
	variants = ["cubic", "reno"]
	[monarch]
	remote = "10.63.2.2"
	probe = "echo"
	[traffic]
	size = "1M"
	[magnet]
	params = "events=tcp,app omode=1 bufsize=65536"
	EOF
	rm -rf "$L/expmonarch"
	/usr/bin/python3 "$MAGNET_TOP/userspace/magnet-exp" run --no-analyse \
		--module "$KO" -o "$L/expmonarch" "$L/expmonarch.toml"
	n=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
		"$L/expmonarch/runs.json")
	[ "$n" = 2 ] || { log "expmonarch: $n runs in runs.json, want 2"; return 1; }
	[ ! -e /sys/module/magnet ] || { log "expmonarch: magnet still loaded"; return 1; }
	[ "$(ls "$L/expmonarch"/*_magnet.bin.gz | wc -l)" = 2 ]
	[ "$(ls "$L/expmonarch"/*_monarch/trace.txt | wc -l)" = 2 ]
	monarch_clean exp -
	# --resume: the directory as a run interrupted in its second run
	# leaves it (runs.json up to the first, the second's log not there),
	# resumed: the second run again, runs.json as before, topology.json
	# naming the first run's namespaces as before and the new run's
	rm -rf "$L/expmonarchres"
	cp -a "$L/expmonarch" "$L/expmonarchres"
	$PY - "$L/expmonarchres" <<-'PY'
	import json, os, sys
	d = sys.argv[1]
	runs = json.load(open(os.path.join(d, "runs.json")))
	os.unlink(os.path.join(d, runs[1]["log"]))
	json.dump(runs[:1], open(os.path.join(d, "runs.json"), "w"))
	PY
	/usr/bin/python3 "$MAGNET_TOP/userspace/magnet-exp" run --resume --no-analyse \
		--module "$KO" -o "$L/expmonarchres" "$L/expmonarch.toml" > "$L/expmonarchres.out"
	cat "$L/expmonarchres.out"
	grep -q "^resuming $L/expmonarchres: 1 of 2 runs done (seed [0-9]*)" "$L/expmonarchres.out"
	[ "$(grep -c ' Mbit/s; ' "$L/expmonarchres.out")" = 1 ] ||
		{ log "expmonarchres: not one run again"; return 1; }
	$PY - "$L/expmonarch" "$L/expmonarchres" <<-'PY'
	import json, os, sys
	a, b = sys.argv[1:]
	ld = lambda d, n: json.load(open(os.path.join(d, n)))
	assert ld(a, "runs.json") == ld(b, "runs.json")
	ha, hb = (ld(d, "topology.json")["netns_hosts"] for d in (a, b))
	def nss(d, i):
	    base = ld(d, "runs.json")[i]["log"][:-len("_magnet.bin.gz")]
	    ns = ld(d, base + "_monarch/monarch.json")["namespaces"]
	    return {str(ns[k]) for k in ("sender_netns", "receiver_netns")}
	# the first run's namespaces as the uninterrupted run named them
	# (unless the new run's took their inode numbers), the new run's too
	old, new = nss(a, 0), nss(b, 1)
	assert all(hb[k] == ha[k] for k in old - new), (ha, hb)
	assert new <= set(hb), (new, hb)
	PY
	[ ! -e /sys/module/magnet ] || { log "expmonarchres: magnet still loaded"; return 1; }
	monarch_clean expres -
	ip route del 10.63.2.0/24
	monarch_net_end
	echo exp_monarch >> "$L/host-checks"
}
