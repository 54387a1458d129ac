#!/bin/bash -e
# VM cases: no kernel address in any output mode; an unprivileged user and
# a user namespace's root denied everything, and no payload in any output.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# run_sampled OMODE OUT [PARAM...]: all layers in that mode during a 2 s
# transfer, while the kernel addresses of the live TCP sockets are sampled
# from /proc/net/tcp*
run_sampled() {
	local client i
	insmod "$KO" events=all omode=$1 port=5201 "${@:3}"
	start_reader "$2"
	ip netns exec mg-srv iperf3 -s -1 -p 5201 -D --logfile "$L/iperf3-addr.log"
	wait_listen mg-srv 5201
	ip netns exec mg-cli iperf3 -c 10.200.1.2 -p 5201 -t 2 > /dev/null &
	client=$!
	for i in 1 2 3 4 5 6; do
		for ns in mg-cli mg-srv; do
			ip netns exec $ns cat /proc/net/tcp /proc/net/tcp6 |
				awk 'NR > 1 && $1 ~ /:$/ { for (f = 12; f <= NF; f++) if (length($f) == 16 && $f ~ /^[0-9a-f]+$/) print $f }'
		done
		sleep 0.3
	done >> "$L/ptrs"
	wait_exit $client 20
	teacup_stop
	rmmod magnet
}

# no output mode contains a kernel address (the sockets' own addresses)
case_no_kernel_addresses() {
	sysctl -q -w kernel.kptr_restrict=1
	: > "$L/ptrs"
	run_sampled 1 "$L/addr1.bin"
	run_sampled 1 "$L/addr1v3.bin" format=3
	run_sampled 3 "$L/addr3.txt"
	run_sampled 0 "$L/addr0.txt"
	$CHECK format "$L/addr0.txt" 0 9999999999
	kernel_ranges "$L/ranges"
	cat "$L/ranges"
	$STACK noaddr "$L/ptrs" "$L/ranges" "$L/addr1.bin" "$L/addr1v3.bin" \
		"$L/addr3.txt" "$L/addr0.txt"
	$TTPB2ASCII -f magnet "$L/addr1.bin" > "$L/addr1.dec"
	$TTPB2ASCII -f magnet "$L/addr1v3.bin" > "$L/addr1v3.dec"
	$STACK noaddr "$L/ptrs" "$L/ranges" "$L/addr1.dec" "$L/addr1v3.dec"
}

# kernel_ranges FILE: the guest's kernel address ranges, "LO HI NAME" in
# hex: the kernel image and the module area (from /proc/kallsyms' _stext
# to the top of the module space) and the direct map, where slab objects
# such as sockets live (from the 1 GiB boundary below the lowest sampled
# socket address, 64 GiB: more than this guest's memory and holes)
kernel_ranges() {
	local lo
	sysctl -q -w kernel.kptr_restrict=0
	awk '$3 == "_stext" { print $1, "ffffffffff000000", "kernel-and-modules" }' \
		/proc/kallsyms > "$1"
	sysctl -q -w kernel.kptr_restrict=1
	lo=$(sort "$L/ptrs" | awk '$1 ~ /^ff/ && !n++')
	[ -n "$lo" ]
	printf '%016x %016x direct-map\n' $((0x$lo & ~0x3fffffff)) \
		$(((0x$lo & ~0x3fffffff) + (64 << 30))) >> "$1"
	[ "$(wc -l < "$1")" = 2 ]
}

# as_nobody CMD...: CMD as an unprivileged user; as_userns_root CMD...: as
# root of a user namespace that user made (root inside, nobody outside)
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_userns_root() { as_nobody unshare -Ur "$@"; }

# denied CMD...: CMD must fail with "Permission denied" (EACCES)
denied() {
	if "$@" > "$L/denied.out" 2> "$L/denied.err"; then
		log "allowed: $*"
		return 1
	fi
	grep -q 'Permission denied' "$L/denied.err" ||
		{ log "$*: $(cat "$L/denied.err")"; return 1; }
}

# Security: an unprivileged user, and root of that user's user namespace,
# can neither read, write nor see the statistics; and payload never
# reaches any output (a marker sent as data is in no log of any mode, nor
# in the kernel log)
# suite: every-kernel
case_security() {
	local who f mode marker srv
	insmod "$KO" port=5304
	[ "$(as_userns_root id -u)" = 0 ]
	for who in as_nobody as_userns_root; do
		for f in "$PROC" "${PROC}_stats"; do
			denied $who cat "$f"
		done
		denied $who sh -c "echo flush > $PROC"
		denied $who sh -c "echo 'filter port=1' > $PROC"
	done
	rmmod magnet
	# 8 random letters, sent over and over: any 15 bytes of the payload in
	# a log hold the marker whole (a long marker found only long leaks),
	# and 52^8 makes a chance match in a few MB of log negligible
	marker=$(head -c 1024 /dev/urandom | tr -dc 'A-Za-z' | cut -c 1-8)
	[ ${#marker} = 8 ]
	for mode in 0 1 2 3; do
		insmod "$KO" events=all omode=$mode port=5304 nontcp=1
		start_reader "$L/sec$mode.log"
		nsexec mg-srv $PY -c "
import socket
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(('10.200.1.2', 5304)); l.listen(1); open('$L/sec.listen', 'w').close()
s = l.accept()[0]
while s.recv(65536): pass
" &
		srv=$!
		wait_file "$L/sec.listen" 30
		nsexec mg-cli $PY -c "
import socket
s = socket.create_connection(('10.200.1.2', 5304))
s.sendall(b'$marker' * 2000); s.close()
"
		wait_exit $srv 30
		rm -f "$L/sec.listen"
		teacup_stop
		rmmod magnet
		if grep -a -q "$marker" "$L/sec$mode.log"; then
			log "omode=$mode: the payload marker is in the log"
			return 1
		fi
		[ -s "$L/sec$mode.log" ]
	done
	if dmesg | grep -a "$marker" > /dev/null; then
		log "the payload marker is in the kernel log"
		return 1
	fi
}
