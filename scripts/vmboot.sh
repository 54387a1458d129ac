# shellcheck shell=bash
# Sourced by tests/vm/run.sh and scripts/demo.sh: one guest boot, with the
# emulator's own failures retried.
#
# The emulator can hang or die while the kernel boots, before the guest
# script's first line ("Oops: int3" in multi-threaded TCG's code patching
# with 2 vCPUs; a hang after the HPET line on 7.2 on a busy host): nothing
# of magnet has run then. Such a boot is stopped after a limit and booted
# once more, and the log says so; a second one fails.

# vm_boot NAME LOG MARKER LIMIT CMD...: run CMD (a vng boot) in a session
# of its own (so that QEMU is stopped with it), its output in LOG. A boot
# that exits, or is still running after LIMIT seconds, without a line
# matching MARKER (grep) in LOG is stopped and run once more, the first
# one's log kept as LOG's name with -boot1. VM_STATUS is then CMD's exit
# status; returns 0 if the marker appeared.
vm_boot() {
	local name=$1 log=$2 marker=$3 limit=$4 attempt vm waited
	shift 4
	for attempt in 1 2; do
		setsid "$@" < /dev/null > "$log" 2>&1 &
		vm=$!
		waited=0
		while kill -0 $vm 2> /dev/null && ! grep -q "$marker" "$log" &&
			[ $waited -lt "$limit" ]; do
			sleep 2
			waited=$((waited + 2))
		done
		if kill -0 $vm 2> /dev/null && ! grep -q "$marker" "$log"; then
			kill -TERM -- -$vm 2> /dev/null || :
			sleep 5
			kill -KILL -- -$vm 2> /dev/null || :
		fi
		VM_STATUS=0
		wait $vm || VM_STATUS=$?
		grep -q "$marker" "$log" && return 0
		echo "$name: the guest died or hung before its first line (boot $attempt, the emulator's, not magnet's); its last lines:"
		tail -n 5 "$log"
		[ $attempt = 1 ] && cp "$log" "${log%.log}-boot1.log"
	done
	return 1
}
