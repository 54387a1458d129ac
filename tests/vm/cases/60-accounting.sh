#!/bin/bash -e
# VM cases: every hit accounted for: reset, lost records, probe misses, the
# statistics, reads of any size, readers that close with records staged or
# wait in a fault.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# reset discards what is buffered and says how much in the stream
case_reset() {
	local fill
	insmod "$KO" omode=3 port=5201
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/reset1.json" -n 1M
	fill=$(awk '$1 == "total" { print $7 }' /proc/net/magnet_stats)
	log "$fill records buffered before reset"
	[ "$fill" -gt 0 ]
	echo reset > "$PROC"
	[ "$(awk '$1 == "total" { print $7 }' /proc/net/magnet_stats)" = 0 ]
	start_reader "$L/reset.log"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/reset2.json" -n 1M
	teacup_stop
	rmmod magnet
	sed -n 2p "$L/reset.log" | awk -F'\t' -v n="$fill" '$3 == "reset" && $NF == n { ok = 1 } END { exit !ok }'
	$CTL absent "$L/reset.log" "$L/reset1.json:sender" "$L/reset1.json:receiver"
	$CTL term "$L/reset.log" port 5201 "$L/reset2.json:sender" "$L/reset2.json:receiver"
}

# A reset while a LOST record waits in a ring (finding 7): the losses it
# carried are reported again after the RESET mark, so the stream alone
# still accounts for every hit. Tiny rings, a reader that takes 8 records
# and pauses: the rings overflow, the freed slots take a LOST record and
# new events, then the reset discards them.
case_reset_lost() {
	local lost0
	# format=2: the reader's 8 records are 8 x 256 bytes (the rings hold
	# version 3 records in either format)
	insmod "$KO" events=all omode=1 format=2 port=5201 bufsize=64
	rm -f "$L"/rl.*
	$PROCF partial "$L/rl.bin" 8 "$L/rl.go" &
	READER=$!
	wait_file "$L/rl.bin.ready1" 30
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/rl1.json" -n 512K
	lost0=$(awk '$1 == "total" { print $4 }' /proc/net/magnet_stats)
	log "$lost0 events lost with the rings full"
	[ "$lost0" -gt 0 ]
	# the reader frees 8 slots; the next events there are a LOST record
	# and new events, until the ring is full again
	touch "$L/rl.go1"
	wait_file "$L/rl.bin.ready2" 30
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/rl2.json" -n 512K
	echo reset > "$PROC"
	touch "$L/rl.go2"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/rl3.json" -n 64K
	teacup_stop
	cat /proc/net/magnet_stats > "$L/rl-stats.txt"
	rmmod magnet
	$CTL accounting "$L/rl-stats.txt" "$L/rl.bin"
}

# probe misses reach the stream (finding 7): with maxactive=1, 8 receivers
# blocked at once leave 7 or more tcp_recvmsg calls without a kretprobe
# instance; the LOST records' misses must add up to probe_misses, the first
# before the last event, and records + LOST counts to hits
# suite: every-kernel
case_probe_misses() {
	insmod "$KO" events=all omode=1 port=5302 maxactive=1
	start_reader "$L/pm.bin"
	nsexec mg-srv $PY "$HERE/blockedrecv.py" 10.200.1.2 5302 8
	teacup_stop
	cat /proc/net/magnet_stats > "$L/pm-stats.txt"
	rmmod magnet
	grep -E '^(total|probe_misses)' "$L/pm-stats.txt"
	$CTL misses "$L/pm-stats.txt" "$L/pm.bin" 7
	$CTL accounting "$L/pm-stats.txt" "$L/pm.bin"
}

# the statistics add up against the records actually read
case_stats() {
	insmod "$KO" events=all omode=1 port=5201 bufsize=64
	start_reader "$L/stats.bin"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/stats.json" -n 2M
	teacup_stop
	cat /proc/net/magnet_stats > "$L/stats.txt"
	rmmod magnet
	cat "$L/stats.txt"
	grep -q '^reader	closed' "$L/stats.txt"
	grep -qE '^probe	TCP transmit	ftrace	__tcp_transmit_skb' "$L/stats.txt"
	$CTL accounting "$L/stats.txt" "$L/stats.bin"
}

# binary reads of any size: whole records go straight from the rings to
# the reader, smaller reads through the staging buffer; either way the
# stream holds every record written, aligned, and decodes cleanly
# suite: every-kernel
case_binary_reads() {
	read_whole chunks $PROCF chunks "$L/chunks.bin"
}

# A reader that closes with records taken from the rings but not read
# (staged in its buffer: `head -c`, a killed reader) leaves no gap the
# statistics do not show (#10): events read whole + `discarded closed` +
# those still in the rings = hits, exactly, in format 2 (always staged),
# format 3 read in pieces smaller than a record, and text
# suite: every-kernel
case_reader_closed() {
	local mode args n hits lost fill closed
	for mode in v2 v3 text; do
		case $mode in
		v2) args="omode=1 format=2" ;;
		v3) args="omode=1 format=3" ;;
		text) args="omode=3" ;;
		esac
		insmod "$KO" events=tcp port=5201 bufsize=65536 $args
		xfer mg-srv mg-cli 10.200.1.2 5201 "$L/rc-$mode.json" -n 1M
		no_sockets 30 time-wait
		n=$($PY "$HERE/closeread.py" "$PROC" "$L/rc-$mode.out" 150 5000 $mode)
		cat /proc/net/magnet_stats > "$L/rc-$mode-stats.txt"
		rmmod magnet
		read -r hits lost fill <<< "$(awk '$1 == "total" { print $2, $4, $7 }' "$L/rc-$mode-stats.txt")"
		closed=$(sed -n 's/^discarded\topen 0\treset 0\tclosed \([0-9]*\)$/\1/p' "$L/rc-$mode-stats.txt")
		log "$mode: $n events read whole, $closed closed unread, $fill in the rings, $hits hits, $lost lost"
		# one command each: under set -e a failing && list that is not a
		# function's last command stops nothing
		[ "$lost" = 0 ]
		[ -n "$closed" ]
		[ "$closed" -gt 0 ]
		[ $((n + closed + fill)) = "$hits" ]
	done
}

# Finding 9: binary records are copied to the reader's buffer with page
# faults disabled and the buffer faulted in without the consume lock, so a
# reader parked in a slow fault (userfaultfd here; swap or FUSE in life)
# does not hold up `reset` (nor unload). uffdread.py fails if the reset
# waits more than 5 s; the read then completes with whole records.
# suite: every-kernel
case_fault_unlocked() {
	insmod "$KO" events=all omode=1 port=5201
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/fu.json" -n 256K
	$PY "$HERE/uffdread.py" "$PROC"
	rmmod magnet
}
