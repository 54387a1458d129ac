#!/bin/bash
# usage: scripts/reliability.sh -o FILE STRESS_DIR...
# docs/reliability.md (FILE) from what the suites wrote: each kernel's
# STRESS_DIR/<kver>/reliability.txt (tests/vm/cases/92-stress.sh) and
# its result, for every STRESS_DIR (one per boot: make check-stress boots
# the hotplug suite apart), and the last `make fuzz` run
# (build/fuzz-results). A kernel with no result in any STRESS_DIR, and the
# fuzzing section when no `make fuzz` ran here, keep what FILE said of them,
# so one suite's run does not erase another's (make check-debug on a
# machine where make check-stress never ran). Within a kernel's section a
# new run replaces the earlier runs it repeats: a run of VM-suite cases
# those that named any of its cases, a stress run those that began with
# the same suite (load/unload, CPU hotplug); the others stay, each with its
# date, so the VM suite run in parts on a slow kernel (the debug kernel:
# a boot per part, MAGNET_TEST_CASES) adds up. FILE is replaced whole.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: scripts/reliability.sh -o FILE STRESS_DIR..." >&2; exit 2; }
[ "${1:-}" = -o ] && [ $# -ge 3 ] || usage
file=$2
shift 2
old=$(mktemp)
new=$(mktemp)
sec=$(mktemp)
trap 'rm -f "$old" "$new" "$sec"' EXIT
[ -e "$file" ] && cp "$file" "$old"

# old_section TITLE: FILE's "## TITLE" section, up to the next "## "
old_section() {
	awk -v t="## $1" '/^## / { on = ($0 == t) } on' "$old"
}

# runs KERNEL STRESS_DIR...: the runs of KERNEL in the STRESS_DIRs
runs() {
	local k=$1 dir d n h
	shift
	for dir; do for d in "$dir/$k" "$dir/$k/single"; do
		# (the VM suite's single-threaded boot of a kernel is in its
		# directory's single/, tests/vm/run.sh)
		[ -e "$d/result" ] || continue
		# the boot's outcome: its cases and the host's checks of their
		# logs, and what the kernel's log or kmemleak failed (run.sh's
		# counts), else the guest's own line
		if [ -s "$d/counts" ]; then
			n=$(awk '{ printf "%d passed, %d failed, %d skipped (cases and host checks)", $1, $2, $3 }' "$d/counts")
		else
			n=$(sed -n 's/^\([0-9]* passed, [0-9]* failed\)\(, [0-9]* skipped\)\{0,1\}$/\1\2/p' "$d/result")
		fi
		echo "Run on $(date -u -r "$d/result" +%Y-%m-%d), magnet $("$top"/scripts/version.sh), $n$(sed -n 's/^cpus \([0-9]*\)$/ on \1 vCPUs/p' "$d/result")$([ "${d##*/}" = single ] && echo ", the single-threaded boot (-accel tcg,thread=single)"):"
		echo
		[ -s "$d/reliability.txt" ] && sed 's/^/- /' "$d/reliability.txt"
		if [ -d "$d/logs" ] && grep -qE '^(passed|failed|skipped):' "$d/result"; then
			# the guest's cases: the stress suite's, or the VM suite's
			echo "- $(awk '/^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/ { n = $1 + $3 + $5; print n (n == 1 ? " case" : " cases") }' "$d/result") of $(if sed -n 's/^\(passed\|failed\|skipped\)://p' "$d/result" | tr ' ' '\n' | grep -v '^$' | grep -qv '^stress_'; then echo "the VM suite of \`make check\`"; else echo "the stress suite (\`make check-stress\`)"; fi)"
			if grep -q '^passed:' "$d/result"; then
				echo "- passed:$(sed -n 's/^passed://p' "$d/result")"
			fi
		elif [ ! -s "$d/reliability.txt" ]; then
			echo "- no suite wrote a result"
		fi
		if grep -q '^failed:' "$d/result"; then
			echo "- failed:$(sed -n 's/^failed://p' "$d/result")"
		fi
		# the host's checks of the guest's logs (tests/vm/hostcheck.sh)
		for h in passed failed; do
			if grep -q "^$h " "$d/host-results" 2>/dev/null; then
				echo "- host checks $h: $(echo $(sed -n "s/^$h //p" "$d/host-results"))"
			fi
		done
		if [ -e "$d/kmemleak.txt" ]; then
			echo "- debug kernel: KASAN, lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_ATOMIC_SLEEP, UBSAN and kmemleak on; $(grep -c '^unreferenced object' "$d/kmemleak.txt") unreferenced objects after the cases and the unload; $(grep -cE 'BUG:|WARNING:|UBSAN:' "$d/dmesg.txt" 2>/dev/null || :) checker reports in the kernel log"
		fi
		echo
	done; done
}

{
cat <<'HEAD'
# Reliability

Written by the suites themselves: `make check-stress` (the stress cases,
`tests/vm/cases/92-stress.sh`, booted with `-accel tcg,thread=single`; see
there why) and `make check-debug` (the VM suite and the stress cases on a debug
kernel) regenerate this file from the last run of each case and suite on
each kernel, each run with its date; the fuzzing numbers come from the
last `make fuzz`. Any kernel warning, `BUG:`, UBSAN report, Oops, lockup
or RCU stall in a guest fails its run, and on the debug kernel any leak
kmemleak finds.

HEAD
# written here, not by a suite: the rules every probe is held to
cat <<'TOUCH'
## What a probe may touch

A probe runs inside the kernel's own path, at a point the kernel chose
for its own reasons, and may read only what that path keeps alive there.
These are the rules magnet's probes follow, and why; a new probe starts
from them.

- **An ftrace probe at a function's entry** (module/probes.c): the
  arguments are the caller's and alive for the whole call. The handler
  runs with preemption off (ftrace's recursion guard), which is a
  read-side section of the one RCU that `kfree_rcu()` and
  `synchronize_rcu()` wait for.
- **A kretprobe's return** (the application calls, the tail loss probe):
  only what the entry saved in its instance, and of that only what the
  caller still holds (the socket), never what the function may have freed.
- **A tracepoint** is called with what the kernel had when it fired, and
  some fire after the kernel let go of it. Each of magnet's tracepoint
  probes holds `rcu_read_lock()` itself, for the filter, the drop
  reason's name and a device it finds: a kernel may run tracepoint probes
  preemptible (PREEMPT_RT is moving that way), and then nothing else keeps
  a filter that a `filter` command replaces, or a device being removed.
  - `skb:kfree_skb` (module/drops.c): the packet, freed after the probe.
    Its `dev` field is not always a device (a queue's rbnode may overlay
    it, a packet in a socket's queue may outlive its device): it is read
    only with `copy_from_kernel_nofault()`, its namespace taken only if it
    is in the set of namespaces that exist (module/nets.c, one hash bucket
    whatever their number) and the device only if that namespace's device
    of that index is it. A packet a raw socket was still building from
    user memory (an `IP_HDRINCL` copy that faulted part-way, freed with the
    rest of its bytes never written) is not read: no byte the kernel did
    not write may reach a record.
  - `qdisc:qdisc_dequeue` (module/qdisc.c): the packets the root qdisc has
    just let go under its lock, not yet given to the driver: alive.
  - `qdisc:qdisc_enqueue`: fired after the root qdisc's enqueue returned
    success, when the packet may already be freed: a qdisc that splits a
    GSO packet (tbf beyond its burst, cake, netem corrupting it, taprio)
    queues the segments and frees the original, and a lockless qdisc
    (`TCQ_F_NOLOCK`) may have let it go on another CPU. Its packet is never
    read, only compared: the packet is read at `dev_qdisc_enqueue()`'s
    entry (an ftrace probe), into an event that keeps no pointer into it
    (the TCP options copied: a read of them at the end was KFENCE's one
    report on 7.2), and the tracepoint writes that event if its
    packet, qdisc and queue are the entry's, unless the packet is on the
    caller's list of packets to free (a qdisc that dropped it and still
    said success: netem's loss, a classifier's verdict), which is alive
    until the caller releases the root lock. The qdisc is alive: its root
    lock is held, or the caller's RCU-bh section.
  - `tcp:tcp_retransmit_skb`, `sock:inet_sock_set_state` (module/tcpev.c):
    the socket, which the caller has locked or owns, and the segment being
    sent again.
- **Per-CPU state between two probes** (the enqueue's halves, the tail
  loss probe's): only where nothing else can run on that CPU between them.
  Both halves of the enqueue run under `__dev_queue_xmit()`'s
  `rcu_read_lock_bh()`: no softirq and no other task's transmit on that
  CPU (on PREEMPT_RT a per-CPU lock that also keeps the task there).
- **Never**: an allocation, a lock shared across CPUs, a sleep, a raw
  kernel address in a record, a read through a pointer the path above does
  not keep alive.

What proves it: every VM boot runs with KFENCE on
(`kfence.sample_interval=1`; tests/vm/run.sh), whose reports fail a run
like any other kernel warning; `make check-debug` runs the suite on a
kernel with KASAN and lockdep (PROVE_RCU); and `case_qdisc_gso`
(tests/vm/cases/47-qdisc.sh) runs GSO and GRO on, through qdiscs that
split them.

TOUCH
for k in $({ for dir in "$@"; do ls "$dir" 2>/dev/null; done
	    sed -n 's/^## //p' "$old" | grep -vx -e Fuzzing -e 'What a probe may touch'; } | sort -uV); do
	have=
	for dir in "$@"; do [ -e "$dir/$k/result" ] && have=1; done
	if [ -z "$have" ]; then
		old_section "$k"
		continue
	fi
	echo "## $k"
	echo
	runs "$k" "$@" | tee "$sec"
	# the earlier runs this one does not repeat: one parser reads the new
	# runs ($sec) first, for the cases and suites they repeat, then the
	# earlier ones (stdin)
	old_section "$k" | awk -v newf="$sec" '
	function cases(line, set,   n, i, w) {
		n = split(substr(line, index(line, ":") + 1), w, " ")
		# (the guest names a passed case without its case_ prefix, a
		# failed one with it)
		for (i = 1; i <= n; i++) { sub(/^case_/, "", w[i]); set[w[i]] = 1 }
	}
	function flush(   c, keep) {
		if (blk == "") return
		if (isnew) {
			for (c in bc) newc[c] = 1
			# (a stress run that lists its cases replaces one that
			# did not, by its first line)
			if (!vm || label != "") newl[label] = 1
		} else {
			keep = 1
			if (vm) { for (c in bc) if (c in newc) keep = 0 }
			else if (label in newl) keep = 0
			if (keep) printf "%s", blk
		}
		blk = ""; vm = 0; label = ""; delete bc
	}
	FNR == 1 { flush(); isnew = (FILENAME == newf) }
	/^Run on / { flush(); blk = $0 "\n"; first = 1; next }
	blk == "" { next }
	{ blk = blk $0 "\n" }
	/^- (passed|failed):/ { vm = 1; cases($0, bc); next }
	first && /^- / { label = substr($0, 3, index($0, ":") - 3); first = 0 }
	END { flush() }' "$sec" -
done
echo "## Fuzzing"
echo
res=$top/build/fuzz-results
if [ -s "$res" ] && grep -qE '^(ok|stopped) .* [0-9]' "$res"; then
	echo "Last \`make fuzz\`, $(date -u -r "$res" +%Y-%m-%d), libFuzzer with ASan and UBSan:"
	echo
	awk '$1 == "ok" && $3 < 10000000 { printf "- `%s`: %d executions, 0 crashes (short of the 10 million)\n", $2, $3; next }
	     $1 == "ok" { printf "- `%s`: %d executions, 0 crashes\n", $2, $3 }
	     $1 == "stopped" { printf "- `%s`: %d executions, 0 crashes (stopped early, short of the 10 million)\n", $2, $3 }
	     $1 == "failed" { printf "- `%s`: FAILED (see tests/fuzz/work/%s.log)\n", $2, $2 }' "$res"
elif grep -qx '## Fuzzing' "$old"; then
	old_section Fuzzing | tail -n +3
else
	echo "No \`make fuzz\` run recorded on this tree."
fi
} > "$new"
chmod 644 "$new"
mv "$new" "$file"
trap - EXIT
rm -f "$old" "$sec"
