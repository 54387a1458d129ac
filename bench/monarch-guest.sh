#!/bin/bash
# Runs inside the benchmark guest (see bench/monarch.sh).
# usage: monarch-guest.sh MAGNET_KO OUTDIR TOP COST_BYTES PAIRS ACC_BYTES LOSS [profile]
#
# In one boot, over scripts/monarch-net.sh's path (mo-host - mo-rtr -
# mo-rem), flows from mo-host to the remote 10.63.2.2, alternating a real
# TCP flow (iperf3 -c from mo-host to iperf3 -s in mo-rem) and a Monarch
# flow (magnet-exp monarch, tcp probes to a closed port of the same
# remote), each of the kernel's cubic:
#   cost      the path without delay, rate or loss: PAIRS pairs of
#             COST_BYTES; OUTDIR/cost-tcp.N.json (iperf3) and cost-monarch.N/
#             (magnet-exp monarch -o: its iperf3.json, proxy.txt with the
#             proxy's own added delay); then what no proxy can save, once:
#             a flow through Monarch's namespaces without the proxy, and
#             ping floods to the remote (below)
#   accuracy  20 Mbit/s, 15 ms each way, 0.5% loss toward the remote (the
#             paper's section 4, one way): PAIRS pairs of ACC_BYTES, magnet
#             recording the sender's TCP (events=tcp), OUTDIR/acc-tcp.N.json
#             and .bin, acc-monarch.N/ and acc-monarch.N.bin. LOSS fixed:
#             the router drops the same 5 of every 1000 full-sized packets
#             it forwards toward the remote in every flow (fixed_loss below;
#             OUTDIR/acc-*.N.lost, its count); random: netem's loss 0.5%, a
#             new draw for every packet. OUTDIR/acc-loss names which
#   profile   (with "profile", MONARCH_PROFILE=1) one more real TCP flow
#             and one more Monarch flow of COST_BYTES on the cost path, each
#             under `perf record -a -e cpu-clock` (under the instruction
#             clock a sample every N instructions): OUTDIR/prof-tcp.syms and
#             prof-monarch.syms, "percent command symbol" per line, the
#             sample count in .samples, the flows' iperf3 JSON beside
# then OUTDIR/done.
set -eu
ko=$1
out=$2
top=$3
cost_bytes=$4
pairs=$5
acc_bytes=$6
loss=$7
profile=${8:-}
. "$top/scripts/monarch-net.sh"
MONARCH="ip netns exec mo-host /usr/bin/python3 $top/userspace/magnet-exp monarch"

# tcp_flow NAME BYTES: a real TCP flow, mo-host -> mo-rem
tcp_flow() {
	ip netns exec mo-rem iperf3 -s -1 -D -B 10.63.2.2
	for _ in $(seq 50); do
		ip netns exec mo-rem ss -ltnH | grep -q 5201 && break
		sleep 0.1
	done
	ip netns exec mo-host iperf3 -c 10.63.2.2 -C cubic -n "$2" -J > "$out/$1.json"
	sleep 0.2
	pkill -x iperf3 2> /dev/null || true
}

# recorded NAME CMD...: CMD with magnet recording every TCP event of port
# 5201 into /dev/shm, then OUTDIR/NAME.bin
recorded() {
	local name=$1 reader
	shift
	insmod "$ko" events=tcp omode=1 port=5201 bufsize=65536
	cat /proc/net/magnet > "/dev/shm/$name.bin" &
	reader=$!
	"$@"
	echo finish > /proc/net/magnet
	wait $reader
	rmmod magnet
	mv "/dev/shm/$name.bin" "$out/"
}

monarch_net_setup
# monarch NAME BYTES: a Monarch flow, its files written to tmpfs and
# copied out after (OUTDIR is the host's, over 9p: each write a few 9p
# requests, which would count in the flow's instructions)
monarch() {
	$MONARCH 10.63.2.2 -n "$2" -o "/dev/shm/$1" > /dev/null
	cp -r "/dev/shm/$1" "$out/"
	rm -rf "/dev/shm/$1"
}

for i in $(seq "$pairs"); do
	tcp_flow cost-tcp.$i "$cost_bytes"
	monarch cost-monarch.$i "$cost_bytes"
done
# the parts of a Monarch flow's cost that no proxy can save, each measured:
# plumbing  a TCP flow through Monarch's own namespaces, veths, routes and
#           nftables table (magnet_exp.monarch.Setup), its queue rule
#           replaced by an accept: the sender's and receiver's path
#           without the proxy (cost-plumbing.json)
# ping      3000 ICMP echo round trips to the remote, flooded (ping -f
#           sends the next when the answer comes), 40 and 1500 bytes: what
#           a probe and its answer cost on this path with the least a
#           process can do around them (cost-ping-40.txt, cost-ping-1500.txt)
ip netns exec mo-host python3 - "$top" "$out" "$cost_bytes" <<'PY'
import subprocess, sys, time
sys.path.insert(0, sys.argv[1] + "/python")
from magnet_exp import monarch
st = monarch.Setup("10.63.2.2")
try:
    st.make()
    monarch.sh("nft", "flush", "chain", "ip", st.table, "hold")
    for dev in (st.hs, st.hr):
        monarch.sh("nft", "add", "rule", "ip", st.table, "hold", "iifname",
                   dev, "notrack")
    srv = subprocess.Popen(["ip", "netns", "exec", st.rcv, "iperf3", "-s",
                            "-1", "-B", monarch.LOCAL],
                           stdout=subprocess.DEVNULL)
    for _ in range(50):
        if "5201" in monarch.sh("ss", "-ltnH", ns=st.rcv).stdout:
            break
        time.sleep(0.1)
    r = monarch.sh("iperf3", "-c", "10.63.2.2", "-C", "cubic", "-J", "-n",
                   sys.argv[3], ns=st.snd)
    with open(sys.argv[2] + "/cost-plumbing.json", "w") as f:
        f.write(r.stdout)
    srv.wait()
finally:
    st.undo()
PY
for s in 12 1472; do
	ip netns exec mo-host ping -q -f -c 3000 -s $s 10.63.2.2 > "$out/cost-ping-$((s + 28)).txt"
done
# profiled NAME CMD...: CMD under perf record -a; OUTDIR/NAME.syms, .samples
profiled() {
	local name=$1 data=/dev/shm/perf.data
	shift
	# CMD is one of this script's functions: exported, as what they use,
	# for the shell perf starts (perf record -a in the background, stopped
	# by SIGINT, took one sample in all)
	export -f "$1"
	export out MONARCH
	perf record -q -a -e cpu-clock -F 20000 -o $data -- bash -c "$*"
	perf report -i $data --sort comm,sym --stdio --no-children -g none \
		--percent-limit 0.05 2> /dev/null |
		awk '/^# Samples:/ { n = $3 } /^ +[0-9.]+%/ { p = $1; sub(/%/, "", p); $1 = ""; sub(/^ +/, ""); print p, $0 } END { print n > "/dev/stderr" }' \
		> "$out/$name.syms" 2> "$out/$name.samples"
	rm -f $data
}
if [ "$profile" = profile ]; then
	profiled prof-tcp tcp_flow prof-tcp "$cost_bytes"
	profiled prof-monarch monarch prof-monarch "$cost_bytes"
fi
# fixed_loss: from now on the router drops the 97th, 311th, 502nd, 688th
# and 941st of every 1000 packets over 200 bytes it forwards toward the
# remote (nftables' numgen, counted from 0 again: each flow meets its
# losses at the same packets, the small ones aside, such as a Monarch
# run's three check probes). With netem's random loss the flows' throughput
# followed how many packets each lost (5 pairs of 64 MB: 194 to 258, 6.59
# to 5.50 Mbit/s, bench/results/2026-11-29-6.1.0-56-amd64-monarch-random-loss.md),
# so that a pair's difference was mostly the draws'; here it is what
# Monarch changes
fixed_loss() {
	ip netns exec mo-rtr nft delete table ip mo_loss 2> /dev/null || true
	ip netns exec mo-rtr nft -f - <<-EOF
	table ip mo_loss {
		chain lost {
			counter drop
		}
		chain lose {
			type filter hook forward priority 0; policy accept;
			oifname "mor1" ip length > 200 numgen inc mod 1000 vmap { 97 : jump lost, 311 : jump lost, 502 : jump lost, 688 : jump lost, 941 : jump lost }
		}
	}
	EOF
}
# lossy NAME CMD...: CMD, with its own fixed losses (LOSS fixed), their
# count then in OUTDIR/NAME.lost
lossy() {
	local name=$1
	shift
	if [ "$loss" = fixed ]; then
		fixed_loss
	fi
	"$@"
	if [ "$loss" = fixed ]; then
		ip netns exec mo-rtr nft list chain ip mo_loss lost |
			awk '/counter/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }' \
			> "$out/$name.lost"
	fi
}
monarch_net_del
to="delay 15ms rate 20mbit limit 100"
[ "$loss" = fixed ] || to="$to loss 0.5%"
monarch_net_setup "$to" "delay 15ms"
echo "$loss" > "$out/acc-loss"
for i in $(seq "$pairs"); do
	lossy acc-tcp.$i recorded acc-tcp.$i tcp_flow acc-tcp.$i "$acc_bytes"
	lossy acc-monarch.$i recorded acc-monarch.$i monarch acc-monarch.$i "$acc_bytes"
done
ip netns exec mo-rtr tc -s qdisc show > "$out/acc-qdisc.txt"
monarch_net_del
dmesg > "$out/dmesg.txt"
touch "$out/done"
