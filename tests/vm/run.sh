#!/bin/bash
# usage: tests/vm/run.sh [KVER...]
# Build magnet for each kernel (default: the oldest and the newest line
# this machine has that make check tests, scripts/kernels.sh --ends, 5.10
# and 7.2; make check-all names all of them), boot that kernel under QEMU
# with virtme-ng, run tests/vm/guest.sh in it and check the result
# (guest.sh is the driver; the helpers are in tests/vm/lib.sh, the cases
# in tests/vm/cases/*.sh, and the "# suite: TAG" line above a case says
# which suites run it: tests/vm/suite.sh lists them). A
# kernel fails if any case failed, the guest did not finish (timeout
# MAGNET_VM_TIMEOUT, default 3600 s, 4200 s for a PREEMPT_RT kernel; on a
# two-core host every case took 700 to 1100 s on 5.10, 850 to 1350 s on
# 6.1, 6.12 and 7.2, 1200 to 1400 s on 6.1 PREEMPT_RT; the magnet-exp
# cases add about 350 s on 5.10; guest.sh prints each case's seconds. On
# 2026-12-02 the same two-core machine ran them 1.6 to 1.8 times slower
# (make check's 5.10 suite past 2300 s, killed at the old 2400 s), so
# the limit stands well above a slow day's time), or
# its kernel log shows a warning, BUG, UBSAN report, Oops, lockup, RCU
# stall or kprobe error (a KFENCE report among them: every boot has it on,
# kfence.sample_interval=1), or (a kernel with kmemleak) a leak. Software
# emulation by default; MAGNET_VM_KVM=1 uses KVM.
# Logs go to build/vm/<kver>/ and build/vm/<kver>/single/ (MAGNET_VM_OUT
# overrides build/vm).
# MAGNET_TEST_CASES picks the guest's cases (default: the suite of
# make check). MAGNET_LIST_CASES=1 builds and boots nothing: it prints
# the cases each boot would run, in order (guest.sh prints them: alone,
# `MAGNET_LIST_CASES=1 bash tests/vm/guest.sh` gives the first kernel's
# and with MAGNET_ALL_CASES=0 the other kernels'). MAGNET_VM_QEMU_OPTS
# adds QEMU options (make check-stress: -accel tcg,thread=single, see
# tests/vm/cases/92-stress.sh);
# MAGNET_VM_JOBS how many boots run at once (default 1, make check too;
# with more than one, the timeout's default is 4800 s);
# MAGNET_VM_CPUS the guest's vCPUs (default 2; stress_hotplug takes 4);
# MAGNET_VM_MEM its memory (default 1G; stress_reset_full's rings take 1 GiB);
# MAGNET_VM_APPEND adds kernel boot options.
# A boot that dies or hangs before guest.sh's first line (the emulator,
# not magnet: nothing of it has run) is booted once more after
# MAGNET_VM_BOOT_LIMIT s (default 300: a boot reached it in under 60 s
# on 2026-12-04, one guest at a time); a second such boot fails, as does
# any guest that does not finish.
# A case that runs past MAGNET_CASE_TIMEOUT s (default 900 s, 1125 s for
# a PREEMPT_RT kernel) is killed and fails, and the suite goes on; the
# stress_* cases have no such limit.
# MAGNET_XTRACE=1: each case's commands with a timestamp each (bash's
# xtrace, $EPOCHREALTIME) in build/vm/<kver>/logs/xtrace, to see where a
# slow case's time goes.
# The logs of a case that passed and left no check for the host are
# deleted when it ends (the guest's /tmp is a tmpfs of half its memory);
# MAGNET_VM_KEEP_LOGS=1 keeps every case's in build/vm/<kver>/logs.
# A case that captures in the guest and leaves the analysis to the host
# (magnet-exp's, and case_pcapng's tshark: minutes under emulation) names
# a check in the guest's $L/host-checks; after the guest,
# tests/vm/hostcheck.sh runs each on the logs copied out
# (build/vm/<kver>/logs), counted as a case ("[host]").
# MAGNET_VM_KTREE boots a kernel built in that tree instead of an installed
# one (make check-debug: scripts/debug-kernel.sh), built against the tree.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top"/scripts/vmboot.sh
# The guest sees the host's files, but virtme-ng mounts a fresh tmpfs on
# some directories (its virtme-init): a checkout, or MAGNET_VM_OUT, under
# one of them is not there for the guest, and every case fails on a
# missing module (a clone in /var/tmp did, 87 cases)
for d in "$top" "${MAGNET_VM_OUT:-$top/build/vm}"; do
	case "$(realpath -m "$d")/" in
	/var/tmp/* | /var/cache/* | /var/log/* | /run/* | /dev/shm/* | /var/lib/apt/*)
		echo "vm: $d is under a directory the guest mounts anew (a tmpfs of virtme-ng's), so the guest cannot see it: put the checkout and MAGNET_VM_OUT elsewhere (/tmp, a home directory, /work)" >&2
		exit 1 ;;
	esac
done
ktree=${MAGNET_VM_KTREE:-}
if [ -n "$ktree" ]; then
	kvers=$(make -s -C "$ktree" kernelrelease) || exit 1
else
	kvers=${*:-$("$top"/scripts/kernels.sh --ends)}
fi
jobs_n=${MAGNET_VM_JOBS:-1}
case $jobs_n in
'' | *[!0-9]* | 0) echo "vm: MAGNET_VM_JOBS must be a positive number, not '$jobs_n'" >&2; exit 1 ;;
esac
# two boots at a time take each one longer: on 2026-12-03 make check's
# cases ran 1.12 (5.10) and 1.51 (7.2) times their time alone
timeout_s=${MAGNET_VM_TIMEOUT:-3600}
[ -z "${MAGNET_VM_TIMEOUT:-}" ] && [ "$jobs_n" -gt 1 ] && timeout_s=4800
kvm=--disable-kvm
qemu_opts=()
[ -n "${MAGNET_VM_QEMU_OPTS:-}" ] && qemu_opts=(--qemu-opts="$MAGNET_VM_QEMU_OPTS")
[ "${MAGNET_VM_KVM:-0}" = 1 ] && kvm=
. "$top"/scripts/kernel-bad.sh
guest_sh='guest\.sh|/tests/lib\.sh|/tests/cases/'

if [ -z "$kvers" ]; then
	echo "vm: no kernel with headers and /boot/vmlinuz found (run make deps)" >&2
	exit 1
fi
total_pass=0
total_fail=0
total_skip=0
recap=$(mktemp)
trap 'rm -f "$recap"' EXIT

# case_tail KVER CASE: the last guest lines of a failed case, for the recap:
# from its own "=== CASE" line (the whole name: case_qdisc is not
# case_qdisc_gso) to its FAIL line, the guest's lines, the checkers'
# "NAME: FAIL: why" lines and the kernel's alarms (KERNEL_BAD,
# scripts/kernel-bad.sh), not its other messages; a line saying so when
# the console has none of them (a line of the guest's cut by the kernel's
# own: the recap still names the case)
case_tail() {
	awk -v s="[guest] === $2" -v e="[guest] FAIL $2 " -v bad="$KERNEL_BAD" \
		-v none="neither its lines nor its FAIL line in $out/console.log" \
		'{ sub(/\r$/, "") }
		 $0 == s { n = 0; on = 1; next }
		 index($0, e) == 1 { l[n++ % 12] = $0; on = 0 }
		 on && (index($0, "[guest] ") == 1 || $0 ~ bad ||
			$0 ~ /^[A-Za-z0-9_.-]+: FAIL: /) { l[n++ % 12] = $0 }
		 END { if (!n) print none
		       for (i = (n > 12 ? n - 12 : 0); i < n; i++) print l[i % 12] }' \
		"$out/console.log" | awk -v p="  $1 $2| " '{ print p $0 }'
}

# The default suite boots each kernel twice: once for guest.sh's cases,
# and once more, with QEMU's vCPUs taking turns on one host thread, for
# the cases that load or unload magnet while traffic runs (SINGLE_CASES).
# With QEMU's default multi-threaded TCG, code patched on one vCPU while
# another runs it can trap ("Oops: int3" at the patched call site), with
# no module loaded too (../shared/reference/vm-testing.md); on 7.2 the
# unload under traffic hit it at __release_sock. The guest keeps its two
# CPUs, so the race between unload and handlers on the other CPU is still
# there. The cases of that boot are those tagged "# suite: single".
SINGLE_CASES=$("$top"/tests/vm/suite.sh single) || exit 1
SINGLE_CASES=$(echo $SINGLE_CASES)
# and on the first kernel only, the cases tagged "# suite: single-first":
# a short form of each stress case (tests/vm/cases/92-stress.sh; 107 s on
# 5.10, 417 s on 7.2, whose boot also has the check-exp cases)
SINGLE_FIRST_CASES=$("$top"/tests/vm/suite.sh single-first) || exit 1
SINGLE_FIRST_CASES=$(echo $SINGLE_FIRST_CASES)
# each kernel's boot, then each one's single-threaded boot (with several
# boots at a time, the short ones end the run: MAGNET_VM_JOBS below)
boots=
unbuilt=
for k in $kvers; do
	boots="$boots $k"
done
for k in $kvers; do
	[ -z "${MAGNET_TEST_CASES:-}" ] && [ -z "${MAGNET_VM_QEMU_OPTS:-}" ] &&
		[ -n "$SINGLE_CASES" ] && boots="$boots $k/single"
done

# The default suite runs every module case on the first kernel, and on
# the others the cases whose outcome depends on the kernel (tagged
# "# suite: every-kernel", guest.sh says which): the rest test logic no
# kernel touches. The last kernel also runs the magnet-exp and Monarch
# cases tagged "# suite: check-exp" (one of each area: a Monarch flow per
# further probe type, Monarch's self-diagnosis, a [monarch] spec run and
# resumed, a sweep, a complete transfer), and the first kernel's single-threaded boot the short
# stress cases tagged "# suite: single-first"; case_exp_strict (a run whose verdict must be
# confirmed, checked with report --strict on the host) is in the first
# kernel's suite. make check-all (MAGNET_VM_ALL=1, which also runs every
# module case on each kernel) and MAGNET_VM_EXP=1 add the other exp cases
# to the last kernel's. make check-fresh runs make demo's experiment and
# requires its verdicts confirmed.
for all_on in $kvers; do break; done
first_on=$all_on
for one_on in $kvers; do :; done
exp=0
[ "${MAGNET_VM_ALL:-0}" = 1 ] || [ "${MAGNET_VM_EXP:-0}" = 1 ] && exp=1
[ "${MAGNET_VM_ALL:-0}" = 1 ] && all_on=$(echo $kvers)

# boot_vars B: the settings of boot B (k, out, cases, all, one, opts)
boot_vars() {
	b=$1
	k=${b%/single}
	out=${MAGNET_VM_OUT:-$top/build/vm}/$b
	cases=${MAGNET_TEST_CASES:-}
	all=0
	case " $all_on " in *" $k "*) all=1 ;; esac
	one=0
	[ "$k" = "$one_on" ] && one=1
	kimg=/boot/vmlinuz-$k
	[ -n "$ktree" ] && kimg=$ktree/arch/x86/boot/bzImage
	opts=("${qemu_opts[@]}")
	if [ "$b" != "$k" ]; then
		cases=$SINGLE_CASES
		[ "$k" = "$first_on" ] && [ -n "$SINGLE_FIRST_CASES" ] &&
			cases="$cases $SINGLE_FIRST_CASES"
		opts=(--qemu-opts="-accel tcg,thread=single")
	fi
}

# First, one at a time: each kernel's modules built, and each boot's log
# directory made anew (a kernel's before its single boot's, which is
# inside it) with the snapshot of the tests its guest runs
for b in $boots; do
	boot_vars "$b"
	if [ "${MAGNET_LIST_CASES:-0}" = 1 ]; then
		echo "vm: $b would run:"
		MAGNET_LIST_CASES=1 MAGNET_TEST_CASES=$cases MAGNET_ALL_CASES=$all \
			MAGNET_ONE_CASES=$one MAGNET_EXP_CASES=$exp bash "$top/tests/vm/guest.sh" | sed 's/^/  /'
		continue
	fi
	rm -rf "$out"
	mkdir -p "$out"
	[ -n "$ktree" ] && export MAGNET_KDIR=$ktree
	# MAGNET_VM_BUILD=0: cases that load only installed modules (the
	# packaging tests' modprobe) need no build
	if [ "$b" = "$k" ] && [ "${MAGNET_VM_BUILD:-1}" != 0 ] &&
	   { ! "$top"/scripts/build-module.sh "$k" "$top/build/$k" ||
	   ! "$top"/scripts/build-module.sh "$k" "$top/build/$k-ttprobe" ttprobe; }; then
		total_fail=$((total_fail + 1))
		echo "  $k: the module did not build" >> "$recap"
		unbuilt="$unbuilt $k "
		continue
	fi
	case $unbuilt in *" $k "*) continue ;; esac
	# the guest runs a snapshot (guest.sh, lib.sh, cases/ and the
	# checkers), so editing tests/vm/ mid-run cannot derail it
	cp -r "$top/tests/vm" "$out/tests"
	cp "$top/scripts/netpair.sh" "$out/tests/"
	# the record layout the Python checks read (tests/vm/schema.py)
	cp -r "$top/module/uapi" "$out/tests/uapi"
	# a 32-bit program for the compat ioctl (case_record); freestanding,
	# so no 32-bit C library is needed. Not built: that check fails
	gcc -m32 -march=i686 -ffreestanding -fno-pic -fno-stack-protector \
		-nostdlib -static -O2 -Wall -Wextra -Werror \
		-I"/usr/include/$(gcc -print-multiarch)" \
		-o "$out/tests/take32" "$top/tests/vm/take32.c" ||
		echo "vm: tests/vm/take32.c did not build" >&2
done
[ "${MAGNET_LIST_CASES:-0}" = 1 ] && exit 0

# run_boot B: boot B, run its guest and the host checks of its logs; its
# report on stdout, the recap's lines in B's out/recap.txt and "passed
# failed skipped" in out/counts
run_boot() {
	boot_vars "$1"
	local bp=0 bf=0 bs=0 brecap=$out/recap.txt
	: > "$brecap"
	# PREEMPT_RT's threaded interrupts cost more under emulation: its
	# suite took 1385 s where 6.1's takes about 800
	t=$timeout_s
	ct=900
	case $k in *-rt-*) [ -z "${MAGNET_VM_TIMEOUT:-}" ] && t=4200; ct=1125 ;; esac
	# the guest's root is the host's, over 9p with a 512 KiB msize; before
	# 6.0 the 9p client allocates two msize buffers per request, which
	# Debian's init_on_alloc zeroes: 5.10 then spent a third of its time
	# in memset and ran every exec 4 times slower than 6.1 (its suite
	# 1750 s, not 850). Not zeroing heap allocations there also leaves
	# stale memory where an uninitialised byte would show
	append=(${MAGNET_VM_APPEND:+--append "$MAGNET_VM_APPEND"})
	case $k in [2-5].*) append+=(--append init_on_alloc=0) ;; esac
	# KFENCE (built into Debian's kernels from 5.12, off by default):
	# every slab allocation it can take is guarded, one a millisecond,
	# and a read of freed memory is a "BUG: KFENCE" report, which fails
	# the kernel as any other (scripts/kernel-bad.sh). 5.10 has no KFENCE
	# and ignores the option; the debug kernel has KASAN
	append+=(--append kfence.sample_interval=1)
	# The debug kernel (KASAN) boots with 4-level page tables. QEMU's CPU
	# offers 5-level ones, and then, in 2 of 7 boots on 2026-11-25, KASAN
	# reported a "wild-memory-access" at a 5-level direct-map address
	# (ff11...) in handle_edge_irq, for an interrupt taken inside
	# identify_cpu(), 5 ms into the boot, before any module (our reading:
	# the interrupt saw the CPU's feature bits while they were re-probed).
	# The report taints the kernel, which turns lockdep off for the run.
	[ -n "$ktree" ] && append+=(--append no5lvl)
	echo "vm: booting $b (timeout ${t}s)"
	start=$(date +%s)
	# a boot the emulator kills or hangs before guest.sh's first line
	# (scripts/vmboot.sh) is stopped after MAGNET_VM_BOOT_LIMIT s
	# (default 600) and booted once more; a second one fails the kernel
	vm_boot "vm: $b" "$out/console.log" '^\[guest\]' "${MAGNET_VM_BOOT_LIMIT:-300}" \
			timeout --kill-after=30 "$t" \
			vng --verbose --run "$kimg" $kvm --cpus "${MAGNET_VM_CPUS:-2}" --memory "${MAGNET_VM_MEM:-1G}" \
			"${opts[@]}" "${append[@]}" \
			--rwdir "$out" \
			--exec "MAGNET_TOP=$top MAGNET_TT_KO=$top/build/$k-ttprobe/ttprobe.ko MAGNET_XTRACE='${MAGNET_XTRACE:-}' MAGNET_VM_KEEP_LOGS='${MAGNET_VM_KEEP_LOGS:-}' MAGNET_TEST_CASES='$cases' MAGNET_ALL_CASES=$all MAGNET_ONE_CASES=$one MAGNET_EXP_CASES=$exp STRESS_CYCLES='${STRESS_CYCLES:-}' STRESS_CONNS='${STRESS_CONNS:-}' STRESS_HOTPLUG='${STRESS_HOTPLUG:-}' STRESS_FLUSHES='${STRESS_FLUSHES:-}' MAGNET_CASE_TIMEOUT='${MAGNET_CASE_TIMEOUT:-$ct}' bash $out/tests/guest.sh $top/build/$k/magnet.ko $out" || :
	rc=$VM_STATUS
	echo "vm: $b finished in $(($(date +%s) - start)) s (status $rc)"
	grep '^\[guest\]' "$out/console.log" | grep -E 'PASS|FAIL|SKIP|===' | sed "s/^/  /"
	ok=1
	if ! grep -q MAGNET-VM-DONE "$out/result" 2>/dev/null; then
		echo "vm: $b: the guest did not finish (status $rc); see $out/console.log"
		tail -n 30 "$out/console.log"
		echo "  $b: the guest did not finish (status $rc)" >> "$brecap"
		tail -n 8 "$out/console.log" | awk -v p="  $b| " '{ print p $0 }' >> "$brecap"
		ok=0
		bf=$((bf + 1))
	else
		res=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$out/result")
		if [ -z "$res" ]; then
			echo "vm: $b: no \"N passed, N failed, N skipped\" line in $out/result"
			echo "  $b: the guest's result has no summary line" >> "$brecap"
			ok=0
			bf=$((bf + 1))
			res="0 0 0"
		fi
		read -r p f s <<< "$res"
		# every case the guest was asked to run reported PASS, FAIL or
		# SKIP (the result's names), and it was asked to run some
		asked=$(echo $(sed -n 's/^asked://p' "$out/result"))
		done_names=" $(sed -n 's/^\(passed\|failed\|skipped\)://p' "$out/result" | tr '\n' ' ') "
		missing=
		for c in $asked; do
			case $done_names in
			*" $c "* | *" ${c#case_} "*) ;;
			*) missing="$missing $c" ;;
			esac
		done
		if [ -z "$asked" ] || [ -n "$missing" ]; then
			if [ -z "$asked" ]; then
				echo "vm: $b: the guest was asked to run no case"
				echo "  $b: the guest was asked to run no case" >> "$brecap"
			else
				echo "vm: $b: no PASS, FAIL or SKIP from:$missing"
				echo "  $b: no PASS, FAIL or SKIP from:$missing" >> "$brecap"
			fi
			ok=0
			bf=$((bf + 1))
		fi
		bp=$((bp + p))
		bf=$((bf + f))
		bs=$((bs + s))
		if [ "$f" != 0 ]; then
			ok=0
			grep '^failed:' "$out/result"
			for c in $(sed -n 's/^failed://p' "$out/result"); do
				case_tail "$b" "$c" >> "$brecap"
			done
		fi
	fi
	# the host's half of cases that capture in the guest and analyse
	# here (tests/vm/hostcheck.sh): one per name the guest's result lists
	# (its cases wrote them into $L/host-checks), counted with the guest's
	# cases; logs that did not come out fail each check they hold; each
	# one's outcome in host-results ("passed NAME", "failed NAME":
	# scripts/reliability.sh)
	: > "$out/host-results"
	for hc in $(sed -n 's/^host-checks://p' "$out/result" 2>/dev/null); do
		if ! grep -qx "$hc" "$out/logs/host-checks" 2>/dev/null; then
			echo "  [host] FAIL $hc: the guest's logs did not arrive ($out/logs/host-checks)"
			echo "  $b host check $hc failed: the guest's logs did not arrive" >> "$brecap"
			echo "failed $hc" >> "$out/host-results"
			ok=0
			bf=$((bf + 1))
		elif "$top/tests/vm/hostcheck.sh" "$hc" "$out/logs" > "$out/host-$hc.log" 2>&1 < /dev/null; then
			echo "  [host] PASS $hc"
			echo "passed $hc" >> "$out/host-results"
			bp=$((bp + 1))
		else
			echo "  [host] FAIL $hc (see $out/host-$hc.log)"
			tail -n 12 "$out/host-$hc.log" | sed 's/^/    /'
			echo "  $b host check $hc failed:" >> "$brecap"
			tail -n 12 "$out/host-$hc.log" | sed "s/^/  $b $hc| /" >> "$brecap"
			echo "failed $hc" >> "$out/host-results"
			ok=0
			bf=$((bf + 1))
		fi
	done
	# a kernel with kmemleak (the debug kernel's tree) must have scanned
	if [ -n "$ktree" ] && grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$ktree/.config" 2>/dev/null &&
	   ! grep -qx 'kmemleak scanned' "$out/result" 2>/dev/null; then
		echo "vm: $b: the kernel has kmemleak and the guest did not scan with it"
		echo "  $b: kmemleak did not scan (disabled, or debugfs missing)" >> "$brecap"
		ok=0
		bf=$((bf + 1))
	fi
	if grep -q '^unreferenced object' "$out/kmemleak.txt" 2>/dev/null; then
		echo "vm: $b: kmemleak reports unreferenced objects ($out/kmemleak.txt):"
		head -n 20 "$out/kmemleak.txt"
		head -n 8 "$out/kmemleak.txt" | sed "s/^/  $b kmemleak| /" >> "$brecap"
		ok=0
		bf=$((bf + 1))
	fi
	# (not the guest's lines, nor bash's about its scripts: guest.sh,
	# lib.sh, cases/*.sh)
	if grep -E "$KERNEL_BAD" "$out/dmesg.txt" "$out/console.log" 2>/dev/null | grep -v '^\[guest\]' | grep -vE "$guest_sh"; then
		echo "vm: $b: the kernel log shows a warning or error (above)"
		# the recap names what it was: each match with the 3 lines before
		# it (a Call Trace's header: which task, which warning), from
		# dmesg.txt (console.log repeats it) if the guest wrote one
		klog="$out/dmesg.txt"
		[ -s "$klog" ] || klog="$out/console.log"
		grep -E -B3 "$KERNEL_BAD" "$klog" 2>/dev/null | grep -v '^\[guest\]' |
			grep -vE "$guest_sh" | head -n 12 | sed "s/^/  $b kernel log| /" >> "$brecap"
		ok=0
		bf=$((bf + 1))
	fi
	[ $ok = 1 ] && echo "vm: $b: OK" || echo "vm: $b: FAILED (logs in $out)"
	echo "$bp $bf $bs" > "$out/counts"
}

# boot_done B: boot B's counts and recap added to the totals
boot_done() {
	local o=${MAGNET_VM_OUT:-$top/build/vm}/$1 p f s
	if ! read -r p f s < "$o/counts" 2> /dev/null; then
		p=0 f=1 s=0
		echo "  $1: its runner ended without counts" >> "$recap"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	cat "$o/recap.txt" >> "$recap" 2> /dev/null || :
}

# Then the boots, MAGNET_VM_JOBS at a time (default 1, make check too):
# a guest under emulation kept 0.86 of a two-core machine's cores busy
# on average (7.2's case_record, 2026-12-03), but two boots beside each
# other (and CI's check-fresh preparing beside them) made CI's make check
# longer, not shorter (5,233 s to the end of the VM tests, against 4,010
# s for the whole of .ci/run one at a time on the stop before, which had
# 8 minutes fewer cases), and starved
# 7.2's tbf of its timer (case_qdisc failed). One at a time, each boot
# reports as it runs; several,
# each boot's report is printed whole when it ends (it is also in
# build/vm/<boot>.report).
run_list=
for b in $boots; do
	case $unbuilt in *" ${b%/single} "*) continue ;; esac
	run_list="$run_list $b"
done
if [ "$jobs_n" = 1 ]; then
	for b in $run_list; do
		run_boot "$b"
		boot_done "$b"
	done
else
	declare -A pid=()
	pending=$run_list
	while [ -n "$pending" ] || [ ${#pid[@]} -gt 0 ]; do
		for b in "${!pid[@]}"; do
			kill -0 "${pid[$b]}" 2> /dev/null && continue
			wait "${pid[$b]}" || :
			unset "pid[$b]"
			cat "${MAGNET_VM_OUT:-$top/build/vm}/$b.report"
			boot_done "$b"
		done
		while [ -n "$pending" ] && [ ${#pid[@]} -lt "$jobs_n" ]; do
			set -- $pending
			b=$1
			shift
			pending="$*"
			echo "vm: $b: started (its report when it ends)"
			run_boot "$b" > "${MAGNET_VM_OUT:-$top/build/vm}/$b.report" 2>&1 &
			pid[$b]=$!
		done
		[ ${#pid[@]} -gt 0 ] && sleep 5
	done
fi
if [ -s "$recap" ]; then
	echo "vm: what failed (the last lines of each failed case):"
	cat "$recap"
fi
echo "vm: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
