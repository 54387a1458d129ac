#!/bin/bash -e
# VM cases: what limited a flow (the limit part: module/rec_tcp.c's
# magnet_fill_limit, docs/binary-format.md "Limit part").
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# limit_run NAME RCVBUF SENDER_ARGS...: one transfer from lm-snd to lm-rcv
# port 5301 (tests/vm/limitflow.py), the sender's TCP_INFO at its end in
# $L/limits-NAME.json, the receiver's buffer in $L/limits-NAME.rcv.json
limit_run() {
	local name=$1 rcvbuf=$2 rcv
	shift 2
	rm -f "$L/limits-$name.ready"
	# shellcheck disable=SC2086 # RCVBUF: a word, or none
	ip netns exec lm-rcv $PY "$HERE/limitflow.py" recv 5301 \
		"$L/limits-$name.ready" "$L/limits-$name.rcv.json" $rcvbuf \
		> "$L/limits-$name.recv" &
	rcv=$!
	wait_file "$L/limits-$name.ready" 60
	ip netns exec lm-snd timeout 200 $PY "$HERE/limitflow.py" send 10.66.2.2 \
		5301 "$L/limits-$name.json" "$@"
	wait_exit "$rcv" 30
	log "$name: $(cat "$L/limits-$name.json")"
	log "$name receiver: $(cat "$L/limits-$name.rcv.json")"
}

# Four transfers, each with one known limit, from lm-snd through the
# router lm-rtr (netem: 10 ms each way, unless said) to lm-rcv, recorded
# with the limit part (events=tcp, omode=1):
#   rwnd    the receiver's SO_RCVBUF 4 KB: the receiver's window;
#   app     1 KB written every 100 ms, five RTTs: the application;
#   sndbuf  the sender's SO_SNDBUF 32 KB over 50 ms each way, paced by
#           fq, its first window 100 segments: the send buffer. Linux
#           counts this limit when a send that is not the application's
#           (paced, or clocked by ACKs) empties the queue while the
#           application waits for room and the window would allow more
#           (tcp_cwnd_validate()); in slow start the window counts as the
#           limit until it is twice the packets out, hence the first
#           window. Without fq, the application's own sends empty the
#           queue, and the kernel counted 0 to 100 ms of 1 to 6 s
#           (windows of 16 to 217 segments, GSO on or off);
#   cwnd    a 4 Mbit/s bottleneck with a 1000-packet queue: the
#           congestion window.
# Both ends' buffers start at 4 MB (tcp_wmem, tcp_rmem), more than any
# transfer, so that only the limit chosen binds: the kernel runs one
# chronograph at a time, the send buffer's first, so an application
# blocked on a small default buffer would hide the receiver's window.
# The truth is each sender socket's own TCP_INFO when the peer had
# acknowledged everything (limitflow.py): its tcpi_busy_time,
# tcpi_rwnd_limited and tcpi_sndbuf_limited must equal what the
# socket's last record before the read says (the magnet text's busy_us,
# rwnd_limited_us, sndbuf_limited_us, and the web10g line's SndLimTime*),
# to a jiffy; and magnet-exp analyse must name each transfer's limit (or,
# where the kernel counted another of its chronographs longer, that one)
# (checklimits.py, on the host: hostcheck.sh host_limits). Receive-buffer
# autotuning (events=rcvbuf) is recorded too, and a fifth transfer starts
# from the kernel's default buffer (tcp_rmem 128 KB): each receiver's
# rcvbuf events must chain from its SO_RCVBUF after the accept to its
# SO_RCVBUF at the end (none where the receiver set SO_RCVBUF: rwnd).
# And where the kernel has the congestion state's tracepoint (events=cong,
# not 5.10), a sixth transfer, paced (8 KB every 20 ms for 5 s), whose
# data netem drops for a second once 64 KB were acknowledged: an RTO
# recovery, and on Linux 6.7 and later its rto_end event, whose RTO
# totals and total_rto_time must be the sender's own TCP_INFO at the end
# (tcpi_total_rto, tcpi_total_rto_recoveries, tcpi_total_rto_time: equal
# where the recovery ended into Open, the kernel's time at least the
# line's and its recovery's into Recovery); no rto_end where the kernel
# keeps no such time or the transfer had no RTO (checklimits.py).
# suite: every-kernel
case_limits() {
	local ev=tcp,rcvbuf hole
	routed_path lm 66
	ip netns exec lm-snd sysctl -q -w net.ipv4.tcp_wmem="4096 4194304 8388608"
	ip netns exec lm-rcv sysctl -q -w net.ipv4.tcp_rmem="4096 4194304 8388608"
	tc -n lm-rtr qdisc add dev lmr1 root netem delay 10ms limit 1000
	tc -n lm-rtr qdisc add dev lmr0 root netem delay 10ms limit 1000
	case $(uname -r) in
	5.10.*) ;;
	*) ev=$ev,cong ;;
	esac
	insmod "$KO" events=$ev omode=1 port=5301
	start_reader "$L/limits.bin"
	limit_run rwnd 4096 bulk 400000
	limit_run app "" paced 1000 100 30
	tc -n lm-rtr qdisc change dev lmr1 root netem delay 50ms limit 1000
	tc -n lm-rtr qdisc change dev lmr0 root netem delay 50ms limit 1000
	tc -n lm-snd qdisc add dev lms0 root fq
	ip -n lm-snd route change default via 10.66.1.2 initcwnd 100
	limit_run sndbuf "" bulk 1500000 32768
	tc -n lm-snd qdisc del dev lms0 root
	ip -n lm-snd route change default via 10.66.1.2
	tc -n lm-rtr qdisc change dev lmr1 root netem delay 10ms rate 4mbit \
		limit 1000
	tc -n lm-rtr qdisc change dev lmr0 root netem delay 10ms limit 1000
	limit_run cwnd "" bulk 1500000
	# receive-buffer autotuning from the kernel's default start (128 KB),
	# unlimited, 20 ms: the buffer grows as the application reads
	ip netns exec lm-rcv sysctl -q -w net.ipv4.tcp_rmem="4096 131072 6291456"
	# (a new netem: `change` would keep the rate)
	tc -n lm-rtr qdisc del dev lmr1 root
	tc -n lm-rtr qdisc add dev lmr1 root netem delay 10ms limit 1000
	limit_run autotune "" bulk 8000000
	case $ev in
	*cong)
		# the hole: once the transfer's data flow (64 KB acked, not a
		# fixed time: a slow guest starts the sender late; at 1.5 s
		# after the receiver's start, the debug kernel's sender had
		# barely begun, 7.2's once had 24 ms of recovery), for a second;
		# netem's count of what it dropped kept
		(data_flowing lm-snd 5301 60 || exit 1
		 tc -n lm-rtr qdisc change dev lmr1 root netem delay 10ms \
			loss 100% limit 1000
		 sleep 1
		 tc -s -n lm-rtr qdisc show dev lmr1 > "$L/limits-hole.tc"
		 tc -n lm-rtr qdisc change dev lmr1 root netem delay 10ms \
			limit 1000) &
		hole=$!
		limit_run rto "" paced 8192 20 250
		wait "$hole" || { log "rto: the transfer's data never flowed"; return 1; }
		log "rto: the hole: $(grep -o 'dropped [0-9]*' "$L/limits-hole.tc")"
		;;
	esac
	teacup_stop
	rmmod magnet
	$TTPB2ASCII -f magnet "$L/limits.bin" > /dev/null
	echo limits >> "$L/host-checks"
}
