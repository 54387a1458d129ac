#!/bin/bash
# usage: sshtestbed.sh up DIR | down DIR
#
# A testbed of three "hosts" reached over SSH, for magnet-exp's [testbed]
# (case_exp_ssh in tests/vm/cases/90-exp.sh): each an sshd of its own
# (its own host key, config, pid file, port; UsePAM no, root by key only),
# the controller in the root namespace.
#
#   sender   snd: sshd in the root namespace, 127.0.0.1:2201. magnet's
#            /proc/net/magnet exists in the initial network namespace
#            only, so the host that records is there.
#   router   rtr: sshd in netns mx-srtr, 10.79.3.2:2203; the bottleneck
#            goes on its rtr1 (toward the receiver) over SSH
#   receiver rcv: sshd in netns mx-srcv, 10.79.2.2:22; iperf3 -s. One
#            kernel: it does not record, the sender's log has both ends.
#
#   experiment: mxs0 10.78.1.1 (7201) --- rtr0 10.78.1.2 (7202) |
#               rtr1 10.78.2.1 (7203) --- rcv0 10.78.2.2 (7204)
#   control:    mxc-rtr 10.79.3.1 --- ctl0 10.79.3.2 (mx-srtr)
#               mxc-rcv 10.79.2.1 --- ctl0 10.79.2.2 (mx-srcv)
#
# (ifindexes in brackets: each unique across the namespaces, so that the
# one kernel's log tells the devices apart). TSO, GSO and GRO are off on
# the experiment's devices, as magnet-exp's local namespaces have them.
# DIR gets the keys (client: DIR/id, its public half authorized), the
# configs, DIR/known_hosts with the three host keys, the sshds' logs.
# Each sshd runs in a mount namespace of its own, where root's /etc/shadow
# entry is unlocked (virtme-ng's locks every account) and ~/.bashrc empty.
set -eu
cmd=$1
d=$2

down() {
	local p
	for p in "$d"/*.pid; do
		[ -e "$p" ] && kill "$(cat "$p")" 2> /dev/null || true
	done
	ip netns del mx-srtr 2> /dev/null || true
	ip netns del mx-srcv 2> /dev/null || true
	ip link del mxs0 2> /dev/null || true
	ip link del mxc-rtr 2> /dev/null || true
	ip link del mxc-rcv 2> /dev/null || true
	ip route del 10.78.2.0/24 2> /dev/null || true
}

nsx() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# sshd NAME NETNS ADDRESS PORT
sshd_up() {
	local name=$1 ns=$2 addr=$3 port=$4 i
	ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$d/$name.hostkey"
	cat > "$d/$name.conf" <<-EOF
		Port $port
		ListenAddress $addr
		HostKey $d/$name.hostkey
		PidFile $d/$name.pid
		AuthorizedKeysFile $d/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		StrictModes no
		Subsystem sftp internal-sftp
	EOF
	# in a mount namespace of its own: root's shadow entry unlocked and
	# ~/.bashrc empty for it alone (below)
	nsx "$ns" unshare -m --propagation private sh -c '
		[ ! -e "$1/shadow" ] || mount --bind "$1/shadow" /etc/shadow
		[ ! -e /root/.bashrc ] || mount --bind "$1/bashrc" /root/.bashrc
		exec /usr/sbin/sshd -f "$1/$2.conf" -E "$1/$2.log"' - "$d" "$name"
	for i in $(seq 100); do
		[ -s "$d/$name.pid" ] && break
		sleep 0.1
	done
	[ -s "$d/$name.pid" ] || { echo "sshtestbed: sshd $name did not start:" >&2; cat "$d/$name.log" >&2; exit 1; }
	if [ "$port" = 22 ]; then
		echo "$addr $(cut -d' ' -f1,2 "$d/$name.hostkey.pub")"
	else
		echo "[$addr]:$port $(cut -d' ' -f1,2 "$d/$name.hostkey.pub")"
	fi >> "$d/known_hosts"
}

up() {
	local dev ns
	down
	rm -rf "$d"
	mkdir -p "$d" /run/sshd
	chmod 700 "$d"
	ssh-keygen -q -t ed25519 -N '' -C controller -f "$d/id"
	cp "$d/id.pub" "$d/authorized_keys"
	: > "$d/known_hosts"
	# virtme-ng-init's /etc/shadow locks every account ('!'), and sshd
	# without PAM refuses a locked account, keys or not: the sshds see
	# root's entry unlocked (no password, '*'). And bash reads ~/.bashrc
	# for every command sshd runs: this machine's (pyenv's init) took 5 s
	# a command under emulation; the sshds see an empty one.
	if grep -q '^root:!' /etc/shadow; then
		sed 's/^root:![^:]*:/root:*:/' /etc/shadow > "$d/shadow"
		chmod 640 "$d/shadow"
	fi
	: > "$d/bashrc"
	ip netns add mx-srtr
	ip netns add mx-srcv
	for ns in mx-srtr mx-srcv; do ip -n $ns link set lo up; done
	ip link add mxs0 index 7201 type veth peer name rtr0 index 7202 netns mx-srtr
	ip -n mx-srtr link add rtr1 index 7203 type veth peer name rcv0 index 7204 netns mx-srcv
	ip addr add 10.78.1.1/24 dev mxs0
	ip -n mx-srtr addr add 10.78.1.2/24 dev rtr0
	ip -n mx-srtr addr add 10.78.2.1/24 dev rtr1
	ip -n mx-srcv addr add 10.78.2.2/24 dev rcv0
	for dev in -:mxs0 mx-srtr:rtr0 mx-srtr:rtr1 mx-srcv:rcv0; do
		nsx "${dev%%:*}" ethtool -K "${dev#*:}" tso off gso off gro off > /dev/null
		nsx "${dev%%:*}" ip link set "${dev#*:}" gso_max_segs 1 up
	done
	ip route add 10.78.2.0/24 via 10.78.1.2
	ip -n mx-srcv route add default via 10.78.2.1
	ip netns exec mx-srtr sysctl -q -w net.ipv4.ip_forward=1
	ip link add mxc-rtr type veth peer name ctl0 netns mx-srtr
	ip link add mxc-rcv type veth peer name ctl0 netns mx-srcv
	ip addr add 10.79.3.1/30 dev mxc-rtr
	ip addr add 10.79.2.1/30 dev mxc-rcv
	ip -n mx-srtr addr add 10.79.3.2/30 dev ctl0
	ip -n mx-srcv addr add 10.79.2.2/30 dev ctl0
	ip link set mxc-rtr up
	ip link set mxc-rcv up
	ip -n mx-srtr link set ctl0 up
	ip -n mx-srcv link set ctl0 up
	sshd_up snd - 127.0.0.1 2201
	sshd_up rtr mx-srtr 10.79.3.2 2203
	sshd_up rcv mx-srcv 10.79.2.2 22
}

case $cmd in
up) up ;;
down) down ;;
*)
	echo "usage: $0 up DIR | down DIR" >&2
	exit 2
	;;
esac
