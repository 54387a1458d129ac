#!/bin/bash
# Runs inside bench/nsdrop.sh's guest (make bench-nsdrop).
# usage: nsdrop-guest.sh MAGNET_KO OUTDIR MARK COUNT NETNS
#
# A drop that has no socket, as a remote's flood to a closed port makes
# them: COUNT UDP datagrams from one namespace to another's port 9, where
# nothing listens (the receiver's UDP frees each, NO_SOCKET, with its
# device set and no socket: the case that tested the packet's namespace
# against every namespace, module/rec_pkt.c's magnet_drop_dev), twice:
# first with the host's few namespaces, then from a new pair made after
# NETNS more (the kernel's list of namespaces keeps them in the order they
# were made: the pair's is last). For each, under the insn plugin
# (bench/insn/insn.c; MARK writes the counts so far, labelled in
# OUTDIR/marks): the flood without magnet (<label>.base), and with magnet
# loaded with events=drop nontcp=1 (<label>), the records read after the
# window;
# <label>.ksyms the kernel's symbols while loaded, <label>.hits the
# events written.
set -eu
ko=$1
out=$2
mark=$3
count=$4
netns=$5
. "$(dirname "$0")/guest-common.sh"
LOG=/dev/shm/nsdrop.log
W=/dev/shm/bench-out
rm -rf "$W"
mkdir -p "$W"
trap 'cp -r "$W"/. "$out"/' EXIT
mark() {
	echo "$1" >> "$W/marks"
	"$mark"
}
# pair P: namespaces Pc (10.201.1.1) and Ps (10.201.1.2), a veth between;
# Ps sends no port unreachable (one a hundred seconds at most)
pair() {
	ip netns add "$1c"
	ip netns add "$1s"
	ip link add "$1c0" netns "$1c" type veth peer name "$1s0" netns "$1s"
	ip -n "$1c" addr add 10.201.1.1/24 dev "$1c0"
	ip -n "$1s" addr add 10.201.1.2/24 dev "$1s0"
	ip -n "$1c" link set "$1c0" up
	ip -n "$1s" link set "$1s0" up
	ip netns exec "$1s" sysctl -q -w net.ipv4.icmp_ratelimit=100000
	ip netns exec "$1c" ping -c 1 -W 5 10.201.1.2 > /dev/null
}
# flood P: COUNT datagrams from Pc to Ps's port 9 (bash's /dev/udp: no
# program started per datagram)
flood() {
	ip netns exec "$1c" bash -c "exec 3> /dev/udp/10.201.1.2/9
		for ((i = 0; i < $count; i++)); do echo x >&3 2> /dev/null || :; done"
}
# window LABEL P: the flood without magnet, then with events=drop
window() {
	mark "$1.setup"
	flood "$2"
	mark "$1.base"
	insmod "$ko" events=drop nontcp=1 omode=1 bufsize=65536
	cat /proc/kallsyms > "$W/$1.ksyms"
	mark "$1.load"
	flood "$2"
	mark "$1"
	start_reader cat
	echo flush > /proc/net/magnet
	bsleep 0.5
	echo finish > /proc/net/magnet
	wait "$reader" || true
	stats_hits > "$W/$1.hits"
	: > $LOG
	rmmod magnet
}
sysctl -q -w kernel.kptr_restrict=0
pair a
flood a
mark boot
window ns-few a
# NETNS more, in one process
for ((i = 0; i < netns; i++)); do echo "netns add x$i"; done > /dev/shm/ns.batch
ip -batch /dev/shm/ns.batch
ip netns list | grep -c '^x' > "$W/netns-made"
pair b
flood b
window "ns-$netns" b
dmesg > "$W/dmesg.txt"
: > "$W/done"
