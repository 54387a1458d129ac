# shellcheck shell=bash
# Sourced by the benchmark's guest scripts (bench/guest.sh,
# bench/profile-guest.sh), which netpair.sh is sourced by too.
#
# The helpers here use bash's builtins only, no program: the guest's root
# is the host's directory over 9p, and each program started is 9p
# requests (path walks, reads), whose buffers the guest zeroes, 10^4-10^5
# counted instructions each under bench-insn's instruction clock. A
# configuration's window then counts only what it must start (the reader).

# magnet-record, from tmpfs: its start in a window reads nothing over 9p
cp "$(dirname "${BASH_SOURCE[0]}")"/magnet-record /dev/shm/magnet-record
RECORD=/dev/shm/magnet-record

# start_reader MODE: the reader of /proc/net/magnet into $LOG in the
# background, its pid in $reader: MODE record is magnet-record (format 3:
# records written from the mapped rings), any other cat
start_reader() {
	if [ "$1" = record ]; then
		$RECORD -o "$LOG" &
	else
		cat /proc/net/magnet > "$LOG" &
	fi
	reader=$!
	reader_open $reader
}

# bsleep SECS: sleep, as a read that times out on a pipe nobody writes
exec 8<> <(:)
bsleep() {
	read -r -t "$1" -u 8 _ || true
}

# reader_open PID: wait until the reader PID has the file open. finish
# ends the reads of the readers open at that moment; a reader that opens
# after it waits for the next finish. Under -icount sleep=off the guest
# clock jumps ahead while the guest waits for the host (cat loading over
# 9p), so a fixed sleep is no guarantee (seen: a deferred reader opened
# after its finish and waited forever). Looks at the reader's open files
# (test -ef: the same inode), not at /proc/net/magnet_stats, whose every
# read would be counted in the window (the backlog line walks its table).
reader_open() {
	local i f
	for ((i = 0; i < 100; i++)); do
		for f in /proc/"$1"/fd/*; do
			if [ "$f" -ef /proc/net/magnet ]; then
				return 0
			fi
		done
		bsleep 0.1
	done
	echo "bench: the reader did not open /proc/net/magnet" >&2
	return 1
}

# stats_hits: the statistics' total hits (/proc/net/magnet_stats)
stats_hits() {
	local k v
	while read -r k v _; do
		if [ "$k" = total ]; then
			echo "$v"
		fi
	done < /proc/net/magnet_stats
}
