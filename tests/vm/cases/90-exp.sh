#!/bin/bash -e
# VM cases: magnet-exp (python/magnet_exp): experiments run in the guest,
# analysed and checked on the host (tests/vm/hostcheck.sh).
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# magnet-exp run (python/magnet_exp): cubic and reno through a 20 Mbit/s,
# 20 ms bottleneck on a router namespace, twice each; checkexp.py checks
# the verdicts, throughput against iperf3, cwnd against the path, the
# figures and the modulation table. Then loss on the return path only
# (reported) and on the forward path only (not reported as return-path),
# and bufsize=16 with a stalled reader (inaccurate, naming the losses).
EXP="/usr/bin/python3 $MAGNET_TOP/userspace/magnet-exp"
exp_spec() {
	cat > "$L/$1.toml" <<-EOF
	test_id = "$1"
	variants = [$2]
	repetitions = $3
	[path]
	rate = "20mbit"
	delay = "20ms"
	limit = 100
	loss = "$4"
	return_loss = "$5"
	[traffic]
	size = "$6"
	length = "128K"
	[magnet]
	params = "events=all omode=1 bufsize=${7:-65536}"
	reader = "${8:-live}"
	text_logs = [${9:-}]
	EOF
}

# The guest only runs the experiments (magnet-exp run --no-analyse: about
# 20 s a run under emulation); their analysis (minutes under emulation,
# seconds natively) and checkexp.py's checks run on the host after the
# guest ends (run.sh: tests/vm/hostcheck.sh exp_run, on the copy of $L).
# The case checks here what only the guest can: every run left its log,
# and magnet is unloaded.
exp_capture() {
	local name=$1 n
	rm -rf "$L/$name"
	$EXP run --no-analyse --module "$KO" -o "$L/$name" "$L/$name.toml"
	n=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
		"$L/$name/runs.json")
	[ "$n" = "$2" ] || { log "$name: $n runs in runs.json, want $2"; return 1; }
	[ ! -e /sys/module/magnet ] || { log "$name: magnet still loaded"; return 1; }
	[ "$(ls "$L/$name"/*_magnet.bin.gz | wc -l)" = "$2" ]
}

# make check's magnet-exp case on the first kernel (those tagged
# check-exp run on its last, the others in make check-all or with
# MAGNET_VM_EXP=1): one cubic run through a 20 Mbit/s, 20 ms bottleneck
# with no loss, whose verdict must be confirmed: the host runs
# `magnet-exp report --strict` on it (exit 1 for any other verdict) and
# checkexp.py's main checks (throughput against iperf3's, cwnd against the
# path, the CSV's rate part, the modulation table, the figures)
case_exp_strict() {
	exp_spec expstrict '"cubic"' 1 0% 0% 2M
	exp_capture expstrict 1
	echo exp_strict >> "$L/host-checks"
}

# suite: exp
case_exp_run() {
	exp_spec exp '"cubic", "reno"' 2 0% 0% 4M
	exp_capture exp 4
	exp_spec expret '"cubic"' 1 0% 5% 1M
	exp_capture expret 1
	# and TEACUP's text logs beside the binary one
	exp_spec expfwd '"cubic"' 1 5% 0% 1M 65536 live '"ttprobe", "web10g"'
	exp_capture expfwd 1
	# bufsize=16 and a reader that starts after the traffic
	exp_spec explost '"reno"' 1 0% 0% 1M 16 after
	exp_capture explost 1
	echo exp_run >> "$L/host-checks"
}

# after an interrupted magnet-exp run into $1 (exit status $2; its stderr
# in $L/expsweep-$3.err): status 130, the resume hint, magnet unloaded,
# the namespaces gone
exp_interrupted() {
	[ "$2" = 130 ] || { log "expsweep: status $2 after the $3 interrupt, want 130"; return 1; }
	grep -q "^magnet-exp: interrupted; the runs that ended are in $1/runs.json, and magnet-exp run --resume" "$L/expsweep-$3.err" ||
		{ log "expsweep: no resume hint after the $3 interrupt"; return 1; }
	[ ! -e /sys/module/magnet ] || { log "expsweep: magnet loaded after the $3 interrupt"; return 1; }
	[ -z "$(ip netns list | grep mx-)" ] || { log "expsweep: namespaces left after the $3 interrupt"; return 1; }
	log "expsweep: $($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$1/runs.json") runs in runs.json after the $3 interrupt"
}

# A sweep (magnet-exp run): two delays, 10 and 40 ms, x cubic and reno x
# 3 repetitions from one spec, 12 runs of 512 KB through 20 Mbit/s with a
# 20-packet queue (at most 12 ms of queueing: the delays' RTTs stay
# apart); the host checks each run's path against tc's own readout and
# iperf3's RTT, and the comparison's rows and spread (hostcheck.sh
# exp_sweep). The sweep is interrupted (SIGINT, as Ctrl-C) twice, each
# time resumed (--resume): as its fifth run's insmod starts, and during
# the eighth run's traffic; after each, magnet is unloaded and the
# namespaces gone. The host holds its runs.json to the one an
# uninterrupted sweep with order.json's seed writes, the order drawn
# again in the checker from the seed (checkexp.py sweep)
# suite: check-exp
case_exp_sweep() {
	cat > "$L/expsweep.toml" <<-EOF
	test_id = "expsweep"
	variants = ["cubic", "reno"]
	repetitions = 3
	[path]
	rate = "20mbit"
	delay = ["10ms", "40ms"]
	limit = 20
	[traffic]
	size = "512K"
	length = "64K"
	[magnet]
	params = "events=tcp,app omode=1 bufsize=65536"
	EOF
	local d=$L/expsweep w=$L/expsweep-wrap pid n rc=0 meter
	rm -rf "$d" "$w" "$L/expsweep-stalls.txt"
	# the guest's stalls through the sweep, which the host check allows
	# for in each run's delays (stallmeter.py; cleanup kills it if the
	# case fails)
	$PY "$HERE/stallmeter.py" "$L/expsweep-stalls.txt" &
	meter=$!
	# first interrupt: as the fifth run's insmod starts (a wrapper before
	# the real one in PATH sends it, then runs it): the module loads
	# while the signal is pending, and must still be unloaded
	mkdir -p "$w"
	cat > "$w/insmod" <<-EOF
	#!/bin/sh
	n=\$(cat $w/count 2> /dev/null || echo 0)
	echo \$((n + 1)) > $w/count
	[ "\$n" != 4 ] || kill -INT \$PPID
	exec $(command -v insmod) "\$@"
	EOF
	chmod +x "$w/insmod"
	# (a background job of a script starts with SIGINT ignored; Python
	# then never turns it into KeyboardInterrupt)
	PATH=$w:$PATH env --default-signal=INT $EXP run --no-analyse \
		--module "$KO" -o "$d" "$L/expsweep.toml" > "$L/expsweep-first.out" \
		2> "$L/expsweep-first.err" || rc=$?
	log "expsweep interrupted at the fifth insmod: status $rc; $(tail -n 1 "$L/expsweep-first.err")"
	[ "$(cat "$w/count")" = 5 ] || { log "expsweep: $(cat "$w/count") insmods, want 5"; return 1; }
	exp_interrupted "$d" "$rc" first || return 1
	# second interrupt: during the resumed sweep's eighth run's traffic,
	# its fourth: an iperf3 wrapper sends it as the fourth client starts
	mkdir -p "$w/2"
	cat > "$w/2/iperf3" <<-EOF
	#!/bin/sh
	case " \$* " in
	*" -c "*)
		n=\$(cat $w/2/count 2> /dev/null || echo 0)
		echo \$((n + 1)) > $w/2/count
		[ "\$n" != 3 ] || kill -INT \$PPID ;;
	esac
	exec $(command -v iperf3) "\$@"
	EOF
	chmod +x "$w/2/iperf3"
	rc=0
	PATH=$w/2:$PATH env --default-signal=INT $EXP run --resume --no-analyse \
		--module "$KO" -o "$d" "$L/expsweep.toml" > "$L/expsweep-second.out" \
		2> "$L/expsweep-second.err" || rc=$?
	n=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$d/runs.json")
	[ "$n" = 7 ] || { log "expsweep: $n runs done at the second interrupt, want 7"; return 1; }
	log "expsweep interrupted during the eighth run's traffic: status $rc"
	grep "^resuming" "$L/expsweep-second.out" | while read -r l; do log "$l"; done
	grep -q "^resuming $d: 4 of 12 runs done (seed [0-9]*)" "$L/expsweep-second.out"
	exp_interrupted "$d" "$rc" second || return 1
	$EXP run --resume --no-analyse --module "$KO" -o "$d" "$L/expsweep.toml" \
		> "$L/expsweep-resume.out"
	grep "^resuming" "$L/expsweep-resume.out" | while read -r l; do log "$l"; done
	grep -q "^resuming $d: $n of 12 runs done (seed [0-9]*)" "$L/expsweep-resume.out"
	n=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$d/runs.json")
	[ "$n" = 12 ] || { log "expsweep: $n runs in runs.json, want 12"; return 1; }
	[ ! -e /sys/module/magnet ] || { log "expsweep: magnet still loaded"; return 1; }
	[ "$(ls "$d"/*_magnet.bin.gz | wc -l)" = 12 ]
	[ "$(ls "$d"/*_magnet.bin 2> /dev/null | wc -l)" = 0 ]
	[ "$(ls "$L/expsweep"/*_qdisc.txt | wc -l)" = 12 ]
	kill "$meter"
	wait "$meter" 2> /dev/null || true
	log "expsweep: the guest's stalls (over 2 ms late on a 5 ms sleep): $(grep -c '^[0-9]' "$L/expsweep-stalls.txt" || true)"
	# what provenance.json must say of this guest (checkexp.py sweep)
	nproc > "$L/expsweep/nproc.txt"
	echo exp_sweep >> "$L/host-checks"
}

# [traffic] source swept: iperf3 and socat, 1 MB through 20 Mbit/s, 20 ms
# and 1% loss: the host checks that socat's transfer completes (every
# byte read, as its server's wc -c counts, none undelivered) and that an
# iperf3 transfer cut short is flagged with its count (hostcheck.sh
# exp_complete)
# suite: check-exp
case_exp_complete() {
	cat > "$L/expcomplete.toml" <<-EOF
	test_id = "expcomplete"
	variants = ["cubic"]
	[path]
	rate = "20mbit"
	delay = "20ms"
	loss = "1%"
	[traffic]
	source = ["iperf3", "socat"]
	size = "1M"
	length = "64K"
	[magnet]
	params = "events=tcp,app omode=1 bufsize=65536"
	EOF
	exp_capture expcomplete 2
	echo exp_complete >> "$L/host-checks"
}

# [[flows]] (magnet-exp run): two iperf3 flows 1 s apart (1 MB and 512 KB,
# 64 KB writes) and a command flow (300,000 bytes through socat, counted
# by its server's wc -c) at 0.5 s, through a 20 Mbit/s, 10 ms bottleneck;
# the guest captures, the host checks (hostcheck.sh exp_flows: each flow
# in the log with iperf3's bytes or the server's count, and its start).
# Then a command that exits 3: the run fails naming the flow, the command
# and its status, magnet unloaded.
CMDFLOW='command = "head -c NBYTES /dev/zero | socat -u - TCP:{addr}:{port}"
server = "socat -u TCP-LISTEN:{port},reuseaddr - | wc -c"'
# suite: exp
case_exp_flows() {
	local rc
	cat > "$L/expflows.toml" <<-EOF
	test_id = "expflows"
	variants = ["cubic"]
	[path]
	rate = "20mbit"
	delay = "10ms"
	[magnet]
	params = "events=all omode=1 bufsize=65536"
	[[flows]]
	name = "a"
	size = "1M"
	length = "64K"
	[[flows]]
	name = "b"
	start = 1
	size = "512K"
	length = "64K"
	[[flows]]
	name = "cmd"
	start = 0.5
	${CMDFLOW/NBYTES/300000}
	EOF
	exp_capture expflows 1
	cat > "$L/expbad.toml" <<-EOF
	test_id = "expbad"
	variants = ["cubic"]
	[[flows]]
	name = "bad"
	command = "echo no way >&2; exit 3"
	EOF
	rc=0
	$EXP run --no-analyse --module "$KO" -o "$L/expbad" "$L/expbad.toml" 2> "$L/expbad.err" || rc=$?
	cat "$L/expbad.err"
	[ $rc = 2 ] || { log "a failing command: exit $rc, want 2"; return 1; }
	grep -q "^magnet-exp: flow bad: command 'echo no way >&2; exit 3' exited with status 3: no way$" "$L/expbad.err"
	[ ! -e /sys/module/magnet ] || { log "expbad: magnet still loaded"; return 1; }
	echo exp_flows >> "$L/host-checks"
}

# [path] relays = 2 (magnet-exp run): the data crosses three TCP stacks
# (the sender's, two socat relays'), an iperf3 flow (1 MB, 64 KB writes)
# and a command flow (500,000 bytes); the host checks the per-stack table
# (hostcheck.sh exp_relays).
# suite: exp
case_exp_relays() {
	cat > "$L/exprelays.toml" <<-EOF
	test_id = "exprelays"
	variants = ["cubic"]
	[path]
	rate = "20mbit"
	delay = "10ms"
	relays = 2
	[magnet]
	params = "events=all omode=1 bufsize=65536"
	[[flows]]
	name = "bulk"
	size = "1M"
	length = "64K"
	[[flows]]
	name = "cmd"
	${CMDFLOW/NBYTES/500000}
	EOF
	exp_capture exprelays 1
	echo exp_relays >> "$L/host-checks"
}

# magnet-exp run over SSH ([testbed], python/magnet_exp/remote.py): three
# sshds as the hosts (tests/vm/sshtestbed.sh: the sender in the root
# namespace, where /proc/net/magnet is, the router and the receiver in
# namespaces of their own), cubic and reno once each, 4 MB through the
# router's 20 Mbit/s, 20 ms netem, set over SSH. The guest checks magnet
# unloaded, no temporaries left on the hosts, the router's qdisc and the
# receiver's sysctl restored; then a run whose iperf3 client fails after
# magnet was loaded: exit 2 naming the host and the command, magnet
# unloaded, no iperf3 server left. On the host (hostcheck.sh exp_ssh):
# magnet-exp report, checkexp.py main (verdicts, throughput against
# iperf3, ...) and ssh (every host's files, named by it).
# ssh_spec NAME ADDRESS [VARIANTS TRAFFIC]: a [testbed] spec against
# sshtestbed.sh's sshds; TRAFFIC replaces [traffic] ([[flows]] tables)
ssh_spec() {
	local keys="identity = \"$L/sshtb/id\"
known_hosts = \"$L/sshtb/known_hosts\""
	local variants=${3:-'"cubic", "reno"'} traffic=${4:-'[traffic]
size = "4M"
length = "128K"'}
	cat > "$L/$1.toml" <<-EOF
	test_id = "$1"
	variants = [$variants]
	[path]
	rate = "20mbit"
	delay = "20ms"
	limit = 100
	$traffic
	[magnet]
	params = "events=all omode=1"
	[testbed.sender]
	$keys
	ssh = "root@127.0.0.1:2201"
	name = "snd"
	module = "$KO"
	[testbed.receiver]
	$keys
	ssh = "root@10.79.2.2"
	name = "rcv"
	address = "$2"
	record = false
	[testbed.router]
	$keys
	ssh = "root@10.79.3.2:2203"
	name = "rtr"
	forward_dev = "rtr1"
	return_dev = "rtr0"
	EOF
}

ssh_left() {
	[ ! -e /sys/module/magnet ] || { log "$1: magnet still loaded"; return 1; }
	# the hosts share this /tmp
	! ls -d /tmp/magnet-exp.* 2> /dev/null || { log "$1: remote temporaries left"; return 1; }
	! ip netns exec mx-srtr tc qdisc show dev rtr1 | grep netem > /dev/null ||
		{ log "$1: the router's netem is still there"; return 1; }
	[ "$(ip netns exec mx-srcv sysctl -n net.ipv4.tcp_no_metrics_save)" = 0 ] ||
		{ log "$1: the receiver's tcp_no_metrics_save not restored"; return 1; }
	[ -z "$(ip netns exec mx-srcv ss -Htln '( sport = :5201 or sport = :5202 )')" ] ||
		{ log "$1: a server still listening on the receiver"; return 1; }
	[ "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$SSH_CC" ] ||
		{ log "$1: the sender's default congestion control not restored"; return 1; }
}

# suite: exp
case_exp_ssh() {
	local rc
	trap '$HERE/sshtestbed.sh down "$L/sshtb"' EXIT
	SSH_CC=$(sysctl -n net.ipv4.tcp_congestion_control)
	$HERE/sshtestbed.sh up "$L/sshtb"
	ip netns exec mx-srcv sysctl -q -w net.ipv4.tcp_no_metrics_save=0
	ssh_spec expssh 10.78.2.2
	rm -rf "$L/expssh"
	# (the trace: every remote command and how long it took)
	MAGNET_EXP_TRACE=$L/expssh.trace $EXP run --no-analyse -o "$L/expssh" "$L/expssh.toml"
	ssh_left expssh
	ls -l "$L/expssh"
	# a warm-up before each run: one ping from the sender to the receiver
	[ "$(grep -c '^[0-9.]* [0-9.]* snd 0: ping -c 1 -w 5 -q -n 10.78.2.2$' "$L/expssh.trace")" = 2 ] ||
		{ log "expssh: not one warm-up ping a run"; return 1; }
	# --resume on a testbed: the same directory as an interrupted run
	# leaves it (runs.json up to the first run, the second's log not
	# there), resumed: the second run again, runs.json as before
	rm -rf "$L/expsshres"
	cp -a "$L/expssh" "$L/expsshres"
	$PY - "$L/expsshres" <<-'PY'
	import json, os, sys
	d = sys.argv[1]
	runs = json.load(open(os.path.join(d, "runs.json")))
	assert len(runs) == 2, runs
	os.unlink(os.path.join(d, runs[1]["log"]))
	json.dump(runs[:1], open(os.path.join(d, "runs.json"), "w"))
	PY
	MAGNET_EXP_TRACE=$L/expsshres.trace $EXP run --resume --no-analyse -o "$L/expsshres" \
		"$L/expssh.toml" > "$L/expsshres.out"
	cat "$L/expsshres.out"
	grep -q "^resuming $L/expsshres: 1 of 2 runs done (seed [0-9]*)" "$L/expsshres.out"
	[ "$(grep -c ' snd 0: insmod ' "$L/expsshres.trace")" = 1 ] ||
		{ log "expsshres: not one run again"; return 1; }
	$PY - "$L/expssh/runs.json" "$L/expsshres/runs.json" <<-'PY'
	import json, sys
	a, b = (json.load(open(p)) for p in sys.argv[1:])
	assert a == b, (a, b)
	PY
	ssh_left expsshres
	# the receiver's address is the sender's own, where nothing listens:
	# iperf3 -c fails with magnet loaded on the sender
	ssh_spec expsshfail 10.78.1.1
	rc=0
	MAGNET_EXP_TRACE=$L/expsshfail.trace $EXP run --no-analyse -o "$L/expsshfail" \
		"$L/expsshfail.toml" 2> "$L/expsshfail.err" || rc=$?
	cat "$L/expsshfail.err"
	[ $rc = 2 ] || { log "a failed iperf3 -c: exit $rc, want 2"; return 1; }
	grep -q '^magnet-exp: sender snd (root@127.0.0.1:2201): iperf3 -c 10.78.1.1 .*Connection refused' "$L/expsshfail.err"
	# magnet was loaded before the failure, and unloaded after it
	grep -q '^[0-9.]* [0-9.]* snd 0: insmod ' "$L/expsshfail.trace"
	grep -q '^[0-9.]* [0-9.]* snd 0: rmmod magnet$' "$L/expsshfail.trace"
	ssh_left expsshfail
	# [[flows]] over SSH: an iperf3 flow at 0 s and a command flow at
	# 0.5 s, reno (each run sets the sender's default congestion control
	# for the commands, and puts it back); the host checks each flow
	ssh_spec expsshflows 10.78.2.2 '"reno"' '[[flows]]
name = "a"
size = "1M"
length = "64K"
[[flows]]
name = "cmd"
start = 0.5
'"${CMDFLOW/NBYTES/300000}"
	rm -rf "$L/expsshflows"
	MAGNET_EXP_TRACE=$L/expsshflows.trace $EXP run --no-analyse -o "$L/expsshflows" "$L/expsshflows.toml"
	ssh_left expsshflows
	ls -l "$L/expsshflows"
	# a command flow failing on the sender, its server waiting on the
	# receiver: the run fails naming the host, the flow and the command,
	# the server stopped, magnet unloaded
	ssh_spec expsshbad 10.78.2.2 '"reno"' '[[flows]]
name = "bad"
command = "echo no way >&2; exit 3"
server = "socat -u TCP-LISTEN:{port},reuseaddr - | wc -c"'
	rc=0
	MAGNET_EXP_TRACE=$L/expsshbad.trace $EXP run --no-analyse -o "$L/expsshbad" \
		"$L/expsshbad.toml" 2> "$L/expsshbad.err" || rc=$?
	cat "$L/expsshbad.err"
	[ $rc = 2 ] || { log "a failing command over SSH: exit $rc, want 2"; return 1; }
	grep -q "^magnet-exp: sender snd (root@127.0.0.1:2201): flow bad: command 'echo no way >&2; exit 3' exited with status 3: no way$" "$L/expsshbad.err"
	grep -q '^[0-9.]* [0-9.]* snd 0: rmmod magnet$' "$L/expsshbad.trace"
	ssh_left expsshbad
	echo exp_ssh >> "$L/host-checks"
}
