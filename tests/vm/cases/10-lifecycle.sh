#!/bin/bash -e
# VM cases: TEACUP's lifecycle, the load-time parameters (port, direction,
# full), non-blocking and ordered reads, bad parameters and commands.
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# TEACUP lifecycle with TEACUP's parameters: modprobe, cat in the
# background, traffic (IPv4/IPv6 over loopback and veth), flush, sleep 0.5,
# finish, rmmod. The log must be complete and every transfer accounted for.
# suite: every-kernel
case_teacup_lifecycle() {
	local t0 t1 j
	setup_modprobe
	modprobe -d "$MODROOT" magnet port=0 full=1 bufsize=16384 omode=0 direction=2
	grep -q '^16384$' /sys/module/magnet/parameters/bufsize
	t0=$(date +%s.%N)
	start_reader "$L/main.log"
	sleep 0.2
	$PROCF busy
	xfer - - 127.0.0.1 5201 "$L/lo4.json" -n "$XFER"
	xfer - - ::1 5201 "$L/lo6.json" -n "$XFER"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/veth4.json" -n "$XFER"
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/veth6.json" -n "$XFER"
	mark_log
	teacup_stop
	t1=$(date +%s.%N)
	modprobe -d "$MODROOT" -r magnet
	$CHECK format "$L/main.log" "$t0" "$t1"
	for j in lo4 lo6 veth4 veth6; do
		$CHECK flow "$L/main.log" "$L/$j.json" --role sender --bytes
		$CHECK flow "$L/main.log" "$L/$j.json" --role receiver --bytes
	done
	new_log | grep -E 'magnet: finish: [0-9]+ records written, 0 lost \(ring full\), [0-9]+ unread, 0 probe misses'
	new_log | grep -E 'magnet: unload: [0-9]+ records written, 0 lost'
}

# port= keeps only flows with that port at one end
case_port_filter() {
	insmod "$KO" port=5202
	start_reader "$L/port.log"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/port-5201.json" -n 4M
	xfer mg-srv mg-cli 10.200.1.2 5202 "$L/port-5202.json" -n "$XFER"
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/port6-5201.json" -n 4M
	teacup_stop
	rmmod magnet
	$CHECK only-port "$L/port.log" 5202
	$CHECK flow "$L/port.log" "$L/port-5202.json" --role sender --bytes
	$CHECK absent "$L/port.log" "$L/port-5201.json"
	$CHECK absent "$L/port.log" "$L/port6-5201.json"
}

case_direction_out() {
	insmod "$KO" direction=0
	start_reader "$L/dir0.log"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/dir0.json" -n "$XFER"
	teacup_stop
	rmmod magnet
	$CHECK only-dir "$L/dir0.log" o
	$CHECK flow "$L/dir0.log" "$L/dir0.json" --role sender --bytes
}

case_direction_in() {
	insmod "$KO" direction=1
	start_reader "$L/dir1.log"
	xfer mg-srv mg-cli fd00:200::2 5201 "$L/dir1.json" -n "$XFER"
	teacup_stop
	rmmod magnet
	$CHECK only-dir "$L/dir1.log" i
	$CHECK flow "$L/dir1.log" "$L/dir1.json" --role receiver --bytes
	$CHECK flow "$L/dir1.log" "$L/dir1.json" --role sender
}

# full=0: a line only when cwnd changed, so fewer lines than full=1 gives
# for the same transfer (its own: a case never reads another's files,
# which a failed or left-out case would not have written)
case_full0() {
	local n0 n1
	insmod "$KO" full=1
	start_reader "$L/full1.log"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/full1.json" -n "$XFER"
	teacup_stop
	rmmod magnet
	n1=$($CHECK count "$L/full1.log" "$L/full1.json")
	insmod "$KO" full=0
	start_reader "$L/full0.log"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/full0.json" -n "$XFER"
	teacup_stop
	rmmod magnet
	$CHECK cwnd-changes "$L/full0.log"
	$CHECK flow "$L/full0.log" "$L/full0.json" --role sender
	n0=$($CHECK count "$L/full0.log" "$L/full0.json")
	log "full=0: $n0 lines for the data flow, full=1: $n1"
	[ "$n0" -lt "$n1" ]
}

# O_NONBLOCK gives EAGAIN when empty, poll() reports data
case_nonblock_poll() {
	insmod "$KO"
	$PROCF nonblock
	rmmod magnet
}

# each read() returns lines merged across CPUs in timestamp order; traffic
# in both directions over veth keeps both CPUs writing
case_read_order() {
	local reader
	insmod "$KO"
	$PROCF ordered "$L/order.log" &
	reader=$!
	wait_open $reader
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/order.json" -n "$XFER" --bidir
	echo finish > /proc/net/magnet
	wait_exit "$reader" 10
	rmmod magnet
	$CHECK flow "$L/order.log" "$L/order.json" --role sender
}

# a bad parameter refuses the load and the kernel log names it
case_bad_params() {
	local p name
	for p in bufsize=0 bufsize=4294967295 bufsize=2000000 direction=7 \
		 omode=4 omode=9 full=2 port=70000 port=abc \
		 events=bogus events= events=tcp,foo nontcp=2 \
		 procname=a/b procname= procname=$(printf 'x%.0s' $(seq 40)) \
		 compat=bogus compat=TTPROBE compat=ttprobe,magnet \
		 maxactive=0 maxactive=16385 format=1 format=4 format=; do
		name=${p%%=*}
		mark_log
		if insmod "$KO" "$p" 2> "$L/insmod.err"; then
			log "insmod accepted $p"
			rmmod magnet
			return 1
		fi
		[ ! -e /proc/net/magnet ]
		[ ! -e /sys/module/magnet ]
		if ! new_log | grep "magnet: .*$name"; then
			log "no kernel log line naming $name for $p"
			return 1
		fi
	done
}

# bad commands fail with EINVAL and a log line; recording goes on
case_bad_commands() {
	local n
	insmod "$KO"
	start_reader "$L/cmd.log"
	mark_log
	$PROCF write 22 "'bogus'" "'flushx\n'" "'\n'" "'FLUSH'" "'fl\x00ush'" \
		"'flush ' * 60"
	n=$(new_log | grep -c 'magnet: rejected command')
	log "$n rejected-command log lines"
	[ "$n" -eq 6 ]
	$PROCF write 0 "'flush'" "'flush\n'" "'  flush \t\n'"
	kill -0 "$READER"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$L/cmd.json" -n "$XFER"
	echo -n flush > /proc/net/magnet
	sleep 0.5
	echo -n finish > /proc/net/magnet
	wait_exit "$READER" 10
	READER=
	rmmod magnet
	$CHECK flow "$L/cmd.log" "$L/cmd.json" --role sender --bytes
}

# finish under traffic: the stream ends with what the rings held when the
# command ran, in each binary read path: staged (format 2), records copied
# straight from the rings (format 3) and the mapped reader (magnet-record).
# The readers of formats 2 and 3 take 4 KiB every 10 ms, far less than the
# traffic writes, so they never catch up with the rings: one that did not
# stop at the drain's end would read until the traffic stops.
# No event in the log is stamped a second or more after the command
# returned (the drain's end is the rings' heads when the reader sees the
# command, a few ms later; a read that went on taking new records would
# end only with the traffic, 25 s later), and the reader exits while the
# traffic still runs.
case_finish_under_traffic() {
	local how t late pid
	for how in 2 3 map; do
		insmod "$KO" events=all omode=1 format=${how/map/3} port=5201
		nsexec mg-srv iperf3 -s -1 -p 5201 -D --logfile "$L/iperf3-fut-$how.log"
		wait_listen mg-srv 5201
		nsexec mg-cli timeout 120 iperf3 -c 10.200.1.2 -p 5201 -t 30 \
			> "$L/fut-$how.txt" 2>&1 &
		pid=$!
		sleep 2
		if [ "$how" = map ]; then
			$RECORD -o "$L/fut-$how.bin" &
			READER=$!
		else
			$PY -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
with open(sys.argv[2], "wb") as out:
    while True:
        b = os.read(fd, 4096)
        if not b:
            break
        out.write(b)
        time.sleep(0.01)' "$PROC" "$L/fut-$how.bin" &
			READER=$!
		fi
		sleep 3
		echo finish > "$PROC"
		t=$($PY -c 'import time; print(time.time_ns())')
		wait_exit "$READER" 15
		READER=
		# the traffic outlived the reader
		kill -0 "$pid"
		pkill -x iperf3
		wait "$pid" 2>/dev/null || :
		rmmod magnet
		$TTPB2ASCII -f magnet "$L/fut-$how.bin" > "$L/fut-$how.log"
		[ "$(grep -c $'\ttcp_out\t' "$L/fut-$how.log")" -gt 0 ]
		# events (not the LOST marks a drain ends with) stamped 1 s or
		# more after the finish; the text's time is s.ns of the wall clock
		late=$(awk -F'\t' -v t="$((t + 1000000000))" 'NR > 1 && $3 != "lost" {
			split($1, p, "."); ns = p[1] * 1000000000 + p[2]
			if (ns > t) n++ } END { print n + 0 }' "$L/fut-$how.log")
		log "finish under traffic ($how): $late events stamped after it"
		[ "$late" = 0 ]
	done
}
