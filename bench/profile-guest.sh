#!/bin/bash
# Runs inside the profiling guest (see bench/profile.sh and bench/insn.sh).
# usage: profile-guest.sh MAGNET_KO OUTDIR BYTES [insn=MARK] CONFIG...
#
# The topology, traffic and magnet configurations of bench/guest.sh, each
# transfer run under `perf record -a -e cpu-clock` (the guest's clock counts
# instructions, so samples are spread by instructions executed). Per
# configuration it leaves OUTDIR/<config>.json (iperf3), <config>.syms
# ("percent symbol" per line, every symbol above 0.005%), <config>.segs
# (each namespace's TCP InSegs and OutSegs before and after the transfer)
# and, for magnet, <config>.hits (records that passed the filters).
# With insn=MARK (bench/insn.sh), no perf: the emulator's insn plugin
# counts every instruction, and each run of MARK (bench/insn/insn-mark.c)
# tells it to write the counts since the last one, to file n for the n-th
# line of OUTDIR/marks, which names what ran: the boot, each
# configuration's load (<config>.load), its run from the reader's start to
# its end, and its unload (<config>.unload). <config>.ksyms has the
# kernel's symbols while magnet was loaded (with ftrace's trampolines),
# kallsyms those at the end.
# With callers=SYM,SYM... (PROFILE_CALLERS), perf records call graphs too,
# and <config>.callers counts, per sample whose leaf is one of the SYMs,
# its chain of callers (the leaf and 7 frames up): "count chain" lines,
# then "samples N", the run's samples in all.
set -eu
ko=$1
out=$2
bytes=$3
shift 3
mark=
callers=
case ${1:-} in insn=*) mark=${1#insn=}; shift ;; esac
case ${1:-} in callers=*) callers=${1#callers=}; shift ;; esac
. "$(dirname "$0")/netpair.sh"
. "$(dirname "$0")/guest-common.sh"
netpair_setup bc bs nooffload
LOG=/dev/shm/profile.log
DATA=/dev/shm/perf.data
# What the guest writes while it is measured goes to tmpfs, and to OUTDIR
# (the host's directory, over 9p) only at the end, also when the script
# fails: each 9p write is a request whose buffers the guest's allocator
# zeroes (Debian's init_on_alloc), 10^5-10^6 counted instructions, which
# bench-insn's callers table showed in the windows (memset_erms from
# p9_fcall_init, 125-221 per event in 2026-11-26-6.1.0-56-amd64-insn.md)
W=/dev/shm/bench-out
rm -rf "$W"
mkdir -p "$W"
trap 'cp -r "$W"/. "$out"/' EXIT

# transfer NAME [perf]: one iperf3 run, bc -> bs; with perf, recorded
transfer() {
	local rec=()
	[ "${2:-}" = perf ] && [ -z "$mark" ] &&
		rec=(perf record -q -a -e cpu-clock -F 20000 ${callers:+-g} -o $DATA --)
	ip netns exec bs iperf3 -s -1 -D
	netpair_wait_listen bs 5201
	segs bs > "$W/$1.segs"
	segs bc >> "$W/$1.segs"
	"${rec[@]}" ip netns exec bc iperf3 -c 10.200.1.2 -n "$bytes" -J > "$W/$1.json"
	segs bs >> "$W/$1.segs"
	segs bc >> "$W/$1.segs"
	pkill -x iperf3 2> /dev/null || true
}

# segs NS: "NS InSegs OutSegs" of NS's TCP (/proc/net/snmp)
segs() {
	ip netns exec "$1" awk -v ns="$1" '$1 == "Tcp:" && $11 ~ /^[0-9]+$/ { print ns, $11, $12 }' /proc/net/snmp
}

# mark LABEL: insn=MARK's counts so far, as the next file, named LABEL
mark() {
	echo "$1" >> "$W/marks"
	"$mark"
}

# syms NAME: the profile as "percent symbol", then the sample count
syms() {
	if [ -n "$mark" ]; then
		mark "$1"
		return
	fi
	perf report -i $DATA --sort sym --stdio --no-children -g none --percent-limit 0.005 2> /dev/null |
		awk '/^# Samples:/ { n = $3 } /^ +[0-9.]+%/ { p = $1; sub(/%/, "", p); $1 = ""; $2 = ""; sub(/^ +/, ""); print p, $0 } END { print "samples", n > "/dev/stderr" }' \
		> "$W/$1.syms" 2> "$W/$1.samples"
	[ -n "$callers" ] && perf script -i $DATA -F ip,sym 2> /dev/null |
		python3 -c '
import sys
want = set(sys.argv[1].split(","))
counts, n, frames = {}, 0, []
for line in sys.stdin.read().split("\n") + [""]:
    f = line.split()
    if f:
        frames.append(f[1] if len(f) > 1 else f[0])
        continue
    if frames:
        n += 1
        if frames[0] in want:
            k = " < ".join(frames[:8])
            counts[k] = counts.get(k, 0) + 1
    frames = []
for k, v in sorted(counts.items(), key=lambda kv: -kv[1]):
    print(v, k)
print("samples", n)' "$callers" > "$W/$1.callers"
	rm -f $DATA
}

# magnet NAME live|deferred PARAMS...: as bench/guest.sh's, profiled
magnet() {
	local name=$1 mode=$2 reader
	shift 2
	insmod "$ko" "$@"
	if [ -n "$mark" ]; then
		# all of them: ftrace's trampolines live only while loaded
		cat /proc/kallsyms > "$W/$name.ksyms"
		mark "$name.load"
	fi
	[ "$mode" = deferred ] || start_reader "$mode"
	transfer "$name" perf
	[ "$mode" = deferred ] && start_reader cat
	echo flush > /proc/net/magnet
	bsleep 0.5
	echo finish > /proc/net/magnet
	wait "$reader" || true
	stats_hits > "$W/$name.hits"
	if [ -n "$mark" ]; then
		mark "$name"
		# the log's pages are freed outside the window
		: > $LOG
		rmmod magnet
		mark "$name.unload"
	else
		syms "$name"
		: > $LOG
		rmmod magnet
	fi
}

transfer warmup
if [ -n "$mark" ]; then
	sysctl -q -w kernel.kptr_restrict=0
	mark boot
fi
for c in "$@"; do
	case $c in
	baseline) transfer baseline perf; syms baseline ;;
	tcp-ascii) magnet "$c" live events=tcp omode=0 port=5201 ;;
	tcp-binary) magnet "$c" live events=tcp omode=1 format=2 port=5201 ;;
	all-binary) magnet "$c" live events=all omode=1 format=2 port=5201 bufsize=16384 ;;
	tcp-binary-v3) magnet "$c" live events=tcp omode=1 format=3 port=5201 ;;
	all-binary-v3) magnet "$c" live events=all omode=1 format=3 port=5201 bufsize=16384 ;;
	tcp-record) magnet "$c" record events=tcp omode=1 format=3 port=5201 ;;
	all-record) magnet "$c" record events=all omode=1 format=3 port=5201 bufsize=16384 ;;
	tcp-handlers) magnet "$c" deferred events=tcp omode=1 port=5201 bufsize=262144 ;;
	handlers) magnet "$c" deferred events=all omode=1 port=5201 bufsize=1048576 ;;
	*) echo "profile: unknown configuration $c" >&2; exit 1 ;;
	esac
	echo "profile: $c"
done
[ -n "$mark" ] && cat /proc/kallsyms > "$W/kallsyms"
dmesg > "$W/dmesg.txt"
trap - EXIT
cp -r "$W"/. "$out"/
echo PROFILE-DONE > "$out/done"
