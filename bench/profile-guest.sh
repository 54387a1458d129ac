#!/bin/bash
# Runs inside the profiling guest (see bench/profile.sh).
# usage: profile-guest.sh MAGNET_KO OUTDIR BYTES CONFIG...
#
# The topology, traffic and magnet configurations of bench/guest.sh, each
# transfer run under `perf record -a -e cpu-clock` (the guest's clock counts
# instructions, so samples are spread by instructions executed). Per
# configuration it leaves OUTDIR/<config>.json (iperf3), <config>.syms
# ("percent symbol" per line, every symbol above 0.005%) and, for magnet,
# <config>.hits (records that passed the filters).
set -eu
ko=$1
out=$2
bytes=$3
shift 3
. "$(dirname "$0")/netpair.sh"
. "$(dirname "$0")/guest-common.sh"
netpair_setup bc bs nooffload
LOG=/dev/shm/profile.log
DATA=/dev/shm/perf.data

# transfer NAME [perf]: one iperf3 run, bc -> bs; with perf, recorded
transfer() {
	local rec=()
	[ "${2:-}" = perf ] && rec=(perf record -q -a -e cpu-clock -F 20000 -o $DATA --)
	ip netns exec bs iperf3 -s -1 -D
	netpair_wait_listen bs 5201
	"${rec[@]}" ip netns exec bc iperf3 -c 10.200.1.2 -n "$bytes" -J > "$out/$1.json"
	pkill -x iperf3 2> /dev/null || true
}

# syms NAME: the profile as "percent symbol", then the sample count
syms() {
	perf report -i $DATA --sort sym --stdio --no-children --percent-limit 0.005 2> /dev/null |
		awk '/^# Samples:/ { n = $3 } /^ +[0-9.]+%/ { p = $1; sub(/%/, "", p); $1 = ""; $2 = ""; sub(/^ +/, ""); print p, $0 } END { print "samples", n > "/dev/stderr" }' \
		> "$out/$1.syms" 2> "$out/$1.samples"
	rm -f $DATA
}

# magnet NAME live|deferred PARAMS...: as bench/guest.sh's, profiled
magnet() {
	local name=$1 mode=$2 reader
	shift 2
	insmod "$ko" "$@"
	[ "$mode" = live ] && { cat /proc/net/magnet > $LOG & reader=$!; reader_open; }
	transfer "$name" perf
	[ "$mode" = deferred ] && { cat /proc/net/magnet > $LOG & reader=$!; reader_open; }
	echo flush > /proc/net/magnet
	sleep 0.5
	echo finish > /proc/net/magnet
	wait "$reader" || true
	syms "$name"
	awk '$1 == "total" { print $2 }' /proc/net/magnet_stats > "$out/$name.hits"
	rm -f $LOG
	rmmod magnet
}

transfer warmup
for c in "$@"; do
	case $c in
	baseline) transfer baseline perf; syms baseline ;;
	tcp-ascii) magnet "$c" live events=tcp omode=0 port=5201 ;;
	tcp-binary) magnet "$c" live events=tcp omode=1 port=5201 ;;
	all-binary) magnet "$c" live events=all omode=1 port=5201 bufsize=16384 ;;
	tcp-binary-v3) magnet "$c" live events=tcp omode=1 format=3 port=5201 ;;
	all-binary-v3) magnet "$c" live events=all omode=1 format=3 port=5201 bufsize=16384 ;;
	tcp-handlers) magnet "$c" deferred events=tcp omode=1 port=5201 bufsize=262144 ;;
	handlers) magnet "$c" deferred events=all omode=1 port=5201 bufsize=1048576 ;;
	*) echo "profile: unknown configuration $c" >&2; exit 1 ;;
	esac
	echo "profile: $c"
done
dmesg > "$out/dmesg.txt"
echo PROFILE-DONE > "$out/done"
