#!/bin/bash
# magnet VM tests: runs inside a guest booted by tests/vm/run.sh.
#
# usage: guest.sh MAGNET_KO OUTDIR
#        MAGNET_LIST_CASES=1 guest.sh: print the cases it would run, one a
#        line, and exit (nothing else is done; with MAGNET_ALL_CASES=0:
#        without the cases of make check's first kernel alone,
#        MAGNET_ONE_CASES=1: with those of its last kernel alone, and
#        with MAGNET_EXP_CASES=1 too, magnet-exp's further cases, as
#        tests/vm/run.sh would pass them)
#
# Topology (one guest kernel, so magnet sees both ends of every flow):
#
#   root namespace:  lo  127.0.0.1 / ::1          (loopback cases)
#
#   netns mg-cli                           netns mg-srv
#   +----------------------+  veth pair  +----------------------+
#   | mgc 10.200.1.1/24    |<----------->| mgs 10.200.1.2/24    |
#   |     fd00:200::1/64   |             |     fd00:200::2/64   |
#   | iperf3 client        |             | iperf3 -s            |
#   +----------------------+             +----------------------+
#
# This file is the driver: it picks the cases, runs them and writes the
# result. The helpers are in lib.sh, the cases in cases/*.sh, a file per
# group (tests/vm/run.sh copies all of tests/vm/ into the guest's output
# directory and runs the copy, so editing them while a VM runs is safe).
# Each case runs in a subshell with `set -e`; a case passes only if every
# command in it succeeds. cleanup() runs after each case and at exit. The
# result ("N passed, N failed, N skipped"; a case that cannot run here
# calls skip, which is never a pass) and the guest's kernel log land in OUTDIR,
# which run.sh checks for kernel warnings.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)

# The cases are the functions named case_* and stress_* in cases/*.sh, in
# the files' order, each in the suites the "# suite: TAG" line right above
# it names (tests/vm/suite.sh lists them; no line: make check's, first
# kernel). Every case without one runs on the first kernel of make check's
# two; on the other (tests/vm/run.sh sets MAGNET_ALL_CASES=0 there) only
# those tagged every-kernel, whose outcome depends on the kernel: its probe
# points, the socket and packet layouts the records read, tcp_info and ss,
# uaccess and faults, proc file permissions, unloading with a reader. The
# rest test logic no kernel touches (parameter, command and filter
# parsing, the filters' and the ring's decisions, the formats, read
# semantics). Sockets coming and going depend on the kernel too, but the
# churn (1,000 connections twice, 80 s on 5.10) runs on the first kernel
# only: make check-stress runs it with 10,000 on both. magnet-exp's and
# Monarch's further cases (but case_exp_strict, on the first kernel) test
# the tool (the module paths they use have cases of their own), so they
# run on one kernel, make check's last (run.sh sets MAGNET_ONE_CASES=1
# there): those tagged check-exp, one of each area, and with
# MAGNET_EXP_CASES=1 too (make check-all, MAGNET_VM_EXP=1) those tagged
# exp. MAGNET_TEST_CASES names the cases instead.
if [ -n "${MAGNET_TEST_CASES:-}" ]; then
	cases=$MAGNET_TEST_CASES
else
	tags=every-kernel
	[ "${MAGNET_ALL_CASES:-1}" = 1 ] && tags="$tags -"
	if [ "${MAGNET_ONE_CASES:-0}" = 1 ]; then
		tags="$tags check-exp"
		[ "${MAGNET_EXP_CASES:-0}" = 1 ] && tags="$tags exp"
	fi
	# (run.sh has run it on the host: a bad tag stops it before any boot)
	cases=$("$HERE/suite.sh" $tags) ||
		{ echo "[guest] no case list: tests/vm/suite.sh failed"; exit 1; }
fi
if [ "${MAGNET_LIST_CASES:-0}" = 1 ]; then
	for c in $cases; do
		echo "$c"
	done
	exit 0
fi

KO=$1
OUT=$2
. "$HERE/lib.sh"
for casefile in "$HERE"/cases/*.sh; do
	. "$casefile"
done

mkdir -p "$L"
passed=0
failed=0
skipped=0
failed_names=
passed_names=
skipped_names=

# kill_tree PID: stop PID, kill its descendants, then PID itself
kill_tree() {
	local c
	kill -STOP "$1" 2> /dev/null
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill -KILL "$1" 2> /dev/null
}

# run_case NAME: one case in a subshell with set -e. A case that runs past
# MAGNET_CASE_TIMEOUT seconds (default 900; the stress_* cases have none,
# the guest's own timeout bounds them) is killed with everything it started
# and fails, and the next case runs: a hang costs one case, not the guest.
run_case() {
	local name=$1 rc lim=${MAGNET_CASE_TIMEOUT:-900} pid dog which t0=$SECONDS
	local before hc0 f
	case $name in stress_*) lim=0 ;; esac
	log "=== $name"
	rm -f "$L/err" "$L/skip"
	before=$(ls -A "$L")
	hc0=$(cat "$L/host-checks" 2> /dev/null | wc -l)
	# set -e stops the case at its first failing command, which the ERR
	# trap notes last; pipefail makes a pipeline fail when any of its
	# commands does (a decoder that exits 3 on a cut log, piped into a
	# checker: a pipe's reader must read to the end, never grep -q or
	# head, or the writer's SIGPIPE fails it); MAGNET_XTRACE=1 (run.sh) traces every command, with
	# its time, into $L/xtrace
	(set -eE -o pipefail
	 if [ -n "${MAGNET_XTRACE:-}" ]; then
		exec 9>> "$L/xtrace"
		BASH_XTRACEFD=9
		PS4='+ $EPOCHREALTIME '
		set -x
	 fi
	 trap 'echo "line $LINENO of ${BASH_SOURCE[0]#"$HERE"/}: $BASH_COMMAND" >> "$L/err"' ERR
	 "$name") &
	pid=$!
	if [ "$lim" -gt 0 ]; then
		sleep "$lim" &
		dog=$!
		wait -n -p which $pid $dog
		rc=$?
		if [ "$which" = "$dog" ]; then
			kill_tree $pid
			wait $pid
			echo "line -: still running after ${lim}s (MAGNET_CASE_TIMEOUT), killed" >> "$L/err"
			rc=124
		else
			kill $dog
			wait $dog
		fi
	else
		wait $pid
		rc=$?
	fi
	cleanup
	# The guest's /tmp is virtme-ng's tmpfs, half the guest's memory: the
	# logs of a case that passed and left no check for the host go once
	# it ended (468 MB of them filled it on 5.10, and every case after
	# failed). A failed case's stay, and go out with the rest
	# (MAGNET_VM_KEEP_LOGS=1, tests/vm/run.sh: every case's stay), and so
	# do those it named for a later case (keep_for_later, lib.sh).
	if [ $rc -eq 0 ] && [ "${MAGNET_VM_KEEP_LOGS:-}" != 1 ] && [ "$(cat "$L/host-checks" 2> /dev/null | wc -l)" = "$hc0" ]; then
		for f in $(ls -A "$L"); do
			case $f in xtrace | host-checks | kept) continue ;; esac
			grep -qxF -- "$f" <<< "$before" ||
				grep -qxF -- "$f" "$L/kept" 2> /dev/null ||
				rm -rf -- "${L:?}/$f"
		done
	fi
	if [ $rc -eq 77 ] && [ -s "$L/skip" ]; then
		skipped=$((skipped + 1))
		skipped_names="$skipped_names $name"
		log "SKIP $name: $(cat "$L/skip")"
	elif [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		passed_names="$passed_names ${name#case_}"
		log "PASS $name ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1))
		failed_names="$failed_names $name"
		[ -s "$L/err" ] && log "failed at $(tail -n 1 "$L/err")"
		log "FAIL $name (status $rc, $((SECONDS - t0)) s)"
	fi
}

log "kernel $(uname -r), $(nproc) CPUs"
# receive timestamps on for the whole run (netpair.sh)
netpair_hold_timestamps
# (not in an if's condition, where bash would ignore the set -e)
(set -e; setup_net)
net_rc=$?
if [ "$net_rc" != 0 ]; then
	log "network setup failed"
	failed=1
else
	for c in $cases; do
		run_case "$c"
	done
fi

# a kernel with kmemleak (make check-debug): scan after every case ran and
# magnet was unloaded; run.sh fails on any unreferenced object reported
# (the result says "kmemleak scanned" only if both scans and the read
# worked: a kernel built with it, where it disabled itself, fails there)
kml=/sys/kernel/debug/kmemleak
[ -e /sys/kernel/debug/tracing ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
kml_ok=0
if [ -e "$kml" ]; then
	# twice, 6 s apart: an object is reported once it has been
	# unreferenced for 5 s and two scans
	if echo scan > "$kml" && sleep 6 && echo scan > "$kml" &&
	   cat "$kml" > "$OUT/kmemleak.txt"; then
		kml_ok=1
		log "kmemleak: $(grep -c '^unreferenced object' "$OUT/kmemleak.txt") unreferenced objects"
	else
		log "kmemleak: the scan failed (kmemleak disabled?)"
	fi
fi
kill $NETPAIR_TSHOLD 2>/dev/null
dmesg > "$OUT/dmesg.txt"
# the logs go out for the host's checks (run.sh); the result names the
# checks the cases asked for, so that logs that did not arrive fail them
# rather than skip them
cp -r "$L" "$OUT/logs" || log "copying $L to $OUT/logs failed"
{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc --all)"
	# the cases it was asked to run: run.sh fails the boot if any of them
	# reported none of PASS, FAIL and SKIP, or if there were none
	echo "asked: $(echo $cases)"
	[ -n "$passed_names" ] && echo "passed:$passed_names"
	[ -n "$failed_names" ] && echo "failed:$failed_names"
	[ -n "$skipped_names" ] && echo "skipped:$skipped_names"
	[ -s "$L/host-checks" ] && echo "host-checks: $(echo $(cat "$L/host-checks"))"
	[ $kml_ok = 1 ] && echo "kmemleak scanned"
	echo "$passed passed, $failed failed, $skipped skipped"
	echo MAGNET-VM-DONE
} > "$OUT/result"
cat "$OUT/result"
