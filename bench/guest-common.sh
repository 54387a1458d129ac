# shellcheck shell=bash
# Sourced by the benchmark's guest scripts (bench/guest.sh,
# bench/profile-guest.sh), which netpair.sh is sourced by too.

# reader_open: wait until the reader has the file open. finish ends the
# reads of the readers open at that moment; a reader that opens after it
# waits for the next finish. Under -icount sleep=off the guest clock jumps
# ahead while the guest waits for the host (cat loading over 9p), so a
# fixed sleep is no guarantee (seen: a deferred reader opened after its
# finish and waited forever).
reader_open() {
	local i
	for i in $(seq 100); do
		grep -q '^reader[[:space:]]*open' /proc/net/magnet_stats && return 0
		sleep 0.1
	done
	echo "bench: the reader did not open /proc/net/magnet" >&2
	return 1
}
